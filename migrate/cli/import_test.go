package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/migrate"
)

// runImport runs args with import's backend returning imp or err, and
// the keyspace ks (nil: a program without a model).
func runImport(t *testing.T, ks *kandra.Keyspace, imp *migrate.Imported, err error, args ...string) (result, *string) {
	t.Helper()
	var asked string
	be := backend{imports: func(_ context.Context, _ adapter.Driver, keyspace string, opts migrate.ImportOptions) (*migrate.Imported, error) {
		asked = keyspace + "/" + opts.Package
		return imp, err
	}}
	var out, errb bytes.Buffer
	c := &command{ctx: context.Background(), d: &fakeDriver{}, ks: ks, be: be, stdout: &out, stderr: &errb, prog: "app schema"}
	code := c.run(args)
	return result{code, out.String(), errb.String()}, &asked
}

// TestImportCommand: import writes the source to stdout or -o's file, and
// what it does not express to stderr, with exit 1.
func TestImportCommand(t *testing.T) {
	src := []byte("package schema\n")
	clean := &migrate.Imported{Source: src, Entities: []string{"Accounts"}, Notes: []string{"table accounts_by_email taken as the lookup by_email of accounts"}}
	r, asked := runImport(t, testKeyspace, clean, nil, "import")
	if r.code != ExitOK || r.stdout != string(src) || !strings.Contains(r.stderr, "note: table accounts_by_email taken") || *asked != "shop/" {
		t.Errorf("import: %d, stdout %q, stderr %q, asked %q", r.code, r.stdout, r.stderr, *asked)
	}
	partial := &migrate.Imported{Source: src, Unexpressed: []string{"column accounts.loc (tuple<int, int>): no Go type"}}
	file := filepath.Join(t.TempDir(), "model.go")
	r, asked = runImport(t, nil, partial, nil, "import", "--keyspace", "other", "--package", "model", "-o", file)
	if got, err := os.ReadFile(file); err != nil || !bytes.Equal(got, src) {
		t.Errorf("-o wrote %q (%v)", got, err)
	}
	if r.code != ExitDifferences || r.stdout != "" || !strings.Contains(r.stderr, "not expressed: column accounts.loc") ||
		!strings.Contains(r.stderr, "written to "+file) || *asked != "other/model" {
		t.Errorf("import -o: %d, stdout %q, stderr %q, asked %q", r.code, r.stdout, r.stderr, *asked)
	}
	if r, _ := runImport(t, nil, clean, nil, "import"); r.code != ExitUsage || !strings.Contains(r.stderr, "give --keyspace NAME") {
		t.Errorf("import without a keyspace: %d, %q", r.code, r.stderr)
	}
	if r, _ := runImport(t, nil, nil, &kerrors.MigrationError{Message: `Import: keyspace "nope" does not exist`}, "import", "--keyspace", "nope"); r.code != ExitUsage || !strings.Contains(r.stderr, "does not exist") {
		t.Errorf("import of a missing keyspace: %d, %q", r.code, r.stderr)
	}
	if r, _ := runImport(t, nil, nil, &kerrors.MigrationError{Message: "reading failed", Cause: errors.New("no host")}, "import", "--keyspace", "x"); r.code != ExitError {
		t.Errorf("import failing to read: %d, %q", r.code, r.stderr)
	}
	if r, _ := runImport(t, nil, clean, nil, "plan"); r.code != ExitError {
		t.Errorf("plan without a keyspace: %d", r.code)
	}
	if r, _ := runImport(t, testKeyspace, clean, nil, "--help"); !strings.Contains(r.stdout, "import [flags]") {
		t.Errorf("the usage lacks import:\n%s", r.stdout)
	}
}

// TestImportCommandFile: import --file reads the keyspace from a .cql
// schema file with no driver at all (the server is not asked), lists on
// stderr what the file holds beside the schema (exit 1), and refuses a
// file it cannot read naming the line (exit 2).
func TestImportCommandFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	run := func(ks *kandra.Keyspace, args ...string) result {
		var out, errb bytes.Buffer
		c := &command{ctx: context.Background(), ks: ks, stdout: &out, stderr: &errb, prog: "app schema"}
		return result{c.run(args), out.String(), errb.String()}
	}
	schema := write("schema.cql", `CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE shop.accounts (id uuid PRIMARY KEY, email text);
`)
	r := run(nil, "import", "--file", schema, "--package", "model")
	if r.code != ExitOK || !strings.Contains(r.stdout, "package model") || !strings.Contains(r.stdout, "type Accounts struct") ||
		!strings.Contains(r.stderr, "note: the server is not known") {
		t.Errorf("import --file: %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	out := filepath.Join(dir, "model.go")
	r = run(testKeyspace, "import", "--file", schema, "--keyspace", "shop", "-o", out)
	if got, err := os.ReadFile(out); err != nil || !bytes.Contains(got, []byte("Targets:")) || r.code != ExitOK ||
		!strings.Contains(r.stderr, "keyspace shop written to "+out+": 1 entities (Accounts)") {
		t.Errorf("import --file -o with the program's targets: %d, %q, file %q (%v)", r.code, r.stderr, got, err)
	}
	listed := write("listed.cql", `USE shop;
CREATE TABLE t (k int PRIMARY KEY, v nope);
INSERT INTO t (k) VALUES (1);
`)
	r = run(nil, "import", "--file", listed, "--keyspace", "shop")
	if r.code != ExitDifferences || !strings.Contains(r.stderr, "not expressed: line 2 (CREATE TABLE t (k int PRIMARY KEY, v nope)) is left out, as a server refuses it") ||
		!strings.Contains(r.stderr, "not expressed: line 3 (INSERT INTO t (k) VALUES (1)): a data statement") {
		t.Errorf("import --file of a file with refused and data statements: %d, %q", r.code, r.stderr)
	}
	bad := write("bad.cql", "CREATE KEYSPACE k WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\nALTER TABLE k.t ADD v text;\n")
	if r := run(nil, "import", "--file", bad); r.code != ExitUsage || !strings.Contains(r.stderr, "line 2 (ALTER TABLE k.t ADD v text)") {
		t.Errorf("import --file of a file with ALTER: %d, %q", r.code, r.stderr)
	}
	if r := run(nil, "import", "--file", filepath.Join(dir, "missing.cql")); r.code != ExitUsage || !strings.Contains(r.stderr, "missing.cql") {
		t.Errorf("import --file of a missing file: %d, %q", r.code, r.stderr)
	}
	if r := run(nil, "import", "--keyspace", "shop"); r.code != ExitError || !strings.Contains(r.stderr, "needs a driver") {
		t.Errorf("import from the server without a driver: %d, %q", r.code, r.stderr)
	}
	if r := run(testKeyspace, "--help"); !strings.Contains(r.stdout, "--file PATH.cql") {
		t.Errorf("the usage lacks --file:\n%s", r.stdout)
	}
}
