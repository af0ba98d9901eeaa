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
	cases := map[string]string{
		"ok":                   "",
		"createdat_string":     `cannot use &e.Created (value of type *string) as *"time".Time value in argument to kandra.CreatedAt`,
		"updatedat_int64":      `cannot use &e.Updated (value of type *int64) as *"time".Time value in argument to kandra.UpdatedAt`,
		"version_string":       "string does not satisfy kandra.VersionType",
		"version_int32":        "int32 does not satisfy kandra.VersionType",
		"counter_int32":        "cannot use &e.Hits (value of type *int32) as *int64 value in argument to kandra.Counter",
		"uuid_string":          "cannot use &e.ID (value of type *string) as *uuid.UUID value in argument to kandra.GeneratedUUID",
		"softdelete_string":    "cannot use &e.Deleted (value of type *string) as *bool value in argument to kandra.SoftDelete",
		"register_no_describe": "*E does not satisfy kandra.Entity[E] (missing method Describe)",
		"bind_other_entity":    "*E does not satisfy kandra.Entity[E] (wrong type for method Describe)",
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "compilefail"))
	require.NoError(t, err)
	require.Len(t, entries, len(cases), "every snippet has an expectation")
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(goBin, "build", "-o", os.DevNull, "./testdata/compilefail/"+name)
			out, err := cmd.CombinedOutput()
			if want == "" {
				require.NoError(t, err, "control program must compile:\n%s", out)
				return
			}
			require.Error(t, err, "program must not compile")
			require.Contains(t, string(out), want)
			// The error points at the binding line in main.go, not elsewhere.
			require.True(t, strings.Contains(string(out), "main.go:"), string(out))
		})
	}
}
