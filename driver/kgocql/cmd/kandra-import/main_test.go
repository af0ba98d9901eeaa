package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunFile: -file reads the keyspace from a schema file, with no
// server to contact; a file it cannot read is a usage error naming the
// line.
func TestRunFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "schema.cql")
	src := "CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\nCREATE TABLE shop.accounts (id uuid PRIMARY KEY, email text);\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"-file", path, "-package", "model", "-hosts", "192.0.2.1"}, &out, &errb); code != exitOK ||
		!strings.Contains(out.String(), "type Accounts struct") || !strings.Contains(errb.String(), "note: the server is not known") {
		t.Errorf("-file: %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	if err := os.WriteFile(path, []byte("CREATE TABLE shop.t (k int PRIMARY KEY\n;"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"-file", path, "-keyspace", "shop"}, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "line 1 (CREATE TABLE shop.t (k int PRIMARY KEY)") {
		t.Errorf("-file of a bad file: %d, %q", code, errb.String())
	}
	if code := run([]string{"-file", filepath.Join(dir, "none.cql")}, &out, &errb); code != exitUsage {
		t.Errorf("-file of a missing file: %d", code)
	}
}
