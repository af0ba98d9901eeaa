package main

import (
	"testing"

	"github.com/kandra-go/kandra/examples/todos/quickstart"
)

// The first keyspace printed is the README quick start's, which the
// README's own test compares with the README.
func TestPrintsTheQuickstart(t *testing.T) {
	ss, err := sections()
	if err != nil {
		t.Fatal(err)
	}
	if ss[0].ks != quickstart.App {
		t.Fatalf("the first keyspace printed is %s, not the quick start's", ss[0].ks.Name())
	}
}
