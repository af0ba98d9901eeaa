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
// and asserts that binding a typed role to a field of the wrong Go type is
// a compile error, reported at the binding, for the reason expected. The
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
