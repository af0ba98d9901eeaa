package kandra_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTypedRolesDoNotCompile builds small programs in testdata/compilefail
// and asserts that binding a typed role to a field of the wrong Go type,
// or giving a call a store option that cannot apply to it, is a compile
// error, reported at the binding or call, for the reason expected. The
// "ok" program binds every role correctly and must compile, so a failure of
// the others cannot come from the set-up.
func TestTypedRolesDoNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs with the go command")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	// The words each error must hold, not the compiler's whole sentence,
	// whose wording differs between Go releases (go.mod says 1.23; CI runs
	// a newer toolchain): the field, the types and the call.
	cases := map[string][]string{
		"ok":                   nil,
		"createdat_string":     {"&e.Created", "*string", "time", "kandra.CreatedAt"},
		"updatedat_int64":      {"&e.Updated", "*int64", "time", "kandra.UpdatedAt"},
		"version_string":       {"string", "kandra.VersionType"},
		"version_int32":        {"int32", "kandra.VersionType"},
		"counter_int32":        {"&e.Hits", "*int32", "*int64", "kandra.Counter"},
		"uuid_string":          {"&e.ID", "*string", "uuid.UUID", "kandra.GeneratedUUID"},
		"softdelete_string":    {"&e.Deleted", "*string", "*bool", "kandra.SoftDelete"},
		"register_no_describe": {"*E", "kandra.Entity[E]", "missing", "Describe"},
		"bind_other_entity":    {"*E", "kandra.Entity[E]", "wrong type", "Describe"},
		// Per-call options that cannot apply to the call (options_ok is
		// their control).
		"options_ok":                 nil,
		"option_ttl_on_get":          {"kstore.TTL", "kstore.ReadOption", "r.Get"},
		"option_range_on_save":       {"kstore.From", "kstore.WriteOption", "r.Save"},
		"option_timestamp_on_insert": {"kstore.Timestamp", "kstore.InsertOption", "r.SaveIfNotExists"},
		"option_ttl_on_counter":      {"kstore.TTL", "kstore.CounterOption", "c.Increment"},
		"option_ttl_on_delete":       {"kstore.TTL", "kstore.DeleteOption", "r.Delete"},
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "compilefail"))
	require.NoError(t, err)
	require.Len(t, entries, len(cases), "every snippet has an expectation")
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(goBin, "build", "-o", os.DevNull, "./testdata/compilefail/"+name)
			out, err := cmd.CombinedOutput()
			if want == nil {
				require.NoError(t, err, "control program must compile:\n%s", out)
				return
			}
			require.Error(t, err, "program must not compile")
			for _, w := range want {
				require.Contains(t, string(out), w)
			}
			// The error points at the binding line in main.go, not elsewhere.
			require.True(t, strings.Contains(string(out), "main.go:"), string(out))
		})
	}
}

// TestNoDynamicBuilderInUserBinaries: the run-time schema builder that
// kandra's own tests use (internal/dynamic) is not linked into a program
// built without the test-only kandra_dynamic tag; with the tag it is, so
// the check can see it.
func TestNoDynamicBuilderInUserBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program with the go command")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	symbols := func(tags string) string {
		bin := filepath.Join(t.TempDir(), "todos")
		args := []string{"build", "-o", bin}
		if tags != "" {
			args = append(args, "-tags", tags)
		}
		cmd := exec.Command(goBin, append(args, "./examples/todos")...)
		// The tag must come from the arguments only, not from CI's GOFLAGS.
		cmd.Env = append(os.Environ(), "GOFLAGS=")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		nm, err := exec.Command(goBin, "tool", "nm", bin).CombinedOutput()
		require.NoError(t, err, "%s", nm)
		return string(nm)
	}
	const builder = "github.com/kandra-go/kandra.buildDynamic"
	require.NotContains(t, symbols(""), builder)
	require.Contains(t, symbols("kandra_dynamic"), builder)
}
