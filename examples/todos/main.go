// Command todos registers the tutorial's entities and the lookup recipe's
// User, and prints the CQL of their keyspaces, ready to paste into cqlsh:
// first the README quick start's keyspace, app (its users, and its todos
// keyed by a time-ordered id), then model.Todo, keyed by its creation
// time, beside SafeTodo, then the recipe's. It needs no server.
//
//	go run ./examples/todos
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/examples/todos/model"
	"github.com/kandra-go/kandra/examples/todos/quickstart"
	"github.com/kandra-go/kandra/examples/todos/recipe"
)

// targets are the quick start's: Cassandra 5.0.
var targets = kandra.Cassandra5

// local is the replication of a single-node cluster, as the quick start's.
var local = kandra.NetworkTopologyStrategy(map[string]int{"datacenter1": 1})

// section is one printed keyspace and the comment above it.
type section struct {
	title string
	ks    *kandra.Keyspace
}

// sections are the keyspaces main prints, in order.
func sections() ([]section, error) {
	// model.Todo uses the table name "todos" too: it lives in a keyspace
	// of its own.
	keyedByTime, err := kandra.Register[model.Todo]()
	if err != nil {
		return nil, err
	}
	safeTodos, err := kandra.Register[model.SafeTodo]()
	if err != nil {
		return nil, err
	}
	todos, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "todos", Replication: local, Targets: targets}, keyedByTime, safeTodos)
	if err != nil {
		return nil, err
	}

	// The recipe's User is another type with the table name "users": fine,
	// because it lives in a keyspace of its own.
	recipeUsers, err := kandra.Register[recipe.User]()
	if err != nil {
		return nil, err
	}
	recipes, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "recipes", Replication: local, Targets: targets}, recipeUsers)
	if err != nil {
		return nil, err
	}
	return []section{
		{"Quick start (README.md): users, and todos keyed by a time-ordered id", quickstart.App},
		{"model.Todo, keyed by (owner_id, created_at): two todos of one owner in one millisecond are one row;\n" +
			"-- safe_todos is SafeTodo, keyed by a time-ordered id as the quick start's", todos},
		{"Recipe: lookup tables, UNIQUE and EVENTUAL", recipes},
	}, nil
}

func main() {
	ss, err := sections()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, s := range ss {
		fmt.Println("-- " + s.title)
		fmt.Println(strings.Join(s.ks.Statements(), "\n\n"))
		fmt.Println()
	}
}
