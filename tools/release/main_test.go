package main

import (
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

func TestFit(t *testing.T) {
	for src, want := range map[string]string{
		"module m\nrequire github.com/kandra-go/kandra v0.1.0\n":                                             "",
		"module m\nrequire github.com/kandra-go/kandra v0.0.9\n":                                             "not the release version",
		"module m\nrequire github.com/kandra-go/kandra v0.1.0\nreplace github.com/kandra-go/kandra => ../\n": "points to a directory",
		"module m\nrequire example.com/x v1.0.0\nreplace example.com/x => example.com/y v1.2.0\n":            "",
	} {
		f, err := modfile.Parse("go.mod", []byte(src), nil)
		if err != nil {
			t.Fatal(err)
		}
		err = fit(f, "v0.1.0")
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
}
