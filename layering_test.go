package kandra_test

import (
	goparser "go/parser"
	gotoken "go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The layering the packages keep, as database/sql/driver keeps its own:
// the adapters implement package adapter and import nothing else of
// kandra's but the root, auth and kerrors; the migrator does not import
// the runtime; no runtime file grows past what a reader takes in.

// kandraImports returns the kandra packages the non-test files of dir
// import, with the file that imports each.
func kandraImports(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: no Go files (%v)", dir, err)
	}
	out := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		pf, err := goparser.ParseFile(gotoken.NewFileSet(), f, nil, goparser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range pf.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if strings.HasPrefix(p, "github.com/kandra-go/kandra") {
				out[p] = f
			}
		}
	}
	return out
}

func TestAdaptersImportOnlyTheInterface(t *testing.T) {
	allowed := map[string]bool{
		"github.com/kandra-go/kandra":         true,
		"github.com/kandra-go/kandra/adapter": true,
		"github.com/kandra-go/kandra/auth":    true,
		"github.com/kandra-go/kandra/kerrors": true,
	}
	for _, dir := range []string{"driver/kgocql", "driver/kgocqlv2"} {
		for p, f := range kandraImports(t, dir) {
			if !allowed[p] {
				t.Errorf("%s imports %s: an adapter imports only package adapter, the root, auth and kerrors", f, p)
			}
		}
	}
}

func TestMigratorDoesNotImportTheRuntime(t *testing.T) {
	for _, dir := range []string{"migrate", "migrate/cli", "adapter"} {
		for p, f := range kandraImports(t, dir) {
			if p == "github.com/kandra-go/kandra/kstore" || strings.HasPrefix(p, "github.com/kandra-go/kandra/kstore/") {
				t.Errorf("%s imports %s", f, p)
			}
			if dir == "adapter" && p == "github.com/kandra-go/kandra/migrate" {
				t.Errorf("%s imports %s: the interface package imports no user package", f, p)
			}
		}
	}
}

// TestRuntimeFilesStaySmall: a file of the runtime holds one concern; the
// next operation is a new file, not a longer one.
func TestRuntimeFilesStaySmall(t *testing.T) {
	files, _ := filepath.Glob("kstore/*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n > 750 {
			t.Errorf("%s has %d lines, over 750: split it along its sections", f, n)
		}
	}
}
