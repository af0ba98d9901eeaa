// Command todos registers the tutorial's entities and the lookup recipe's
// User, and prints the CQL of their two keyspaces, ready to paste into
// cqlsh.
//
//	go run ./examples/todos
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/examples/todos/model"
	"github.com/kandra-go/kandra/examples/todos/recipe"
)

// local is the replication of a single-node cluster: NetworkTopologyStrategy
// works on every target (ScyllaDB's tablets keyspaces refuse SimpleStrategy).
var local = kandra.NetworkTopologyStrategy(map[string]int{"datacenter1": 1})

func main() {
	users, err := kandra.Register[model.User]()
	check(err)
	todos, err := kandra.Register[model.Todo]()
	check(err)
	safeTodos, err := kandra.Register[model.SafeTodo]()
	check(err)
	app, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "todos", Replication: local}, users, todos, safeTodos)
	check(err)
	fmt.Println("-- Tutorial: users and todos (safe_todos is Todo with a key that never collides)")
	printKeyspace(app)

	// The recipe's User is another type with the table name "users": fine,
	// because it lives in a keyspace of its own.
	recipeUsers, err := kandra.Register[recipe.User]()
	check(err)
	recipes, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "recipes", Replication: local}, recipeUsers)
	check(err)
	fmt.Println("-- Recipe: lookup tables, BATCH and EVENTUAL")
	printKeyspace(recipes)
}

func printKeyspace(k *kandra.Keyspace) {
	fmt.Println(strings.Join(k.Statements(), "\n\n"))
	fmt.Println()
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
