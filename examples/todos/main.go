// Command todos registers the tutorial's entities and the lookup recipe's
// User, and prints their CQL, ready to paste into cqlsh.
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

func main() {
	fmt.Println("-- Tutorial: users and todos")
	fmt.Println(kandra.MustCreateKeyspace("todos", kandra.SimpleStrategy(1)))
	fmt.Println("USE todos;")
	fmt.Println()
	users, err := kandra.Register[model.User]()
	check(err)
	todos, err := kandra.Register[model.Todo]()
	check(err)
	printAll(users.Statements(), todos.Statements())

	// The recipe's User claims the table name "users" too. A registry holds
	// one keyspace's tables, so the recipe gets a fresh registry and its own
	// keyspace.
	kandra.Reset()
	fmt.Println("-- Recipe: lookup tables, BATCH and EVENTUAL")
	fmt.Println(kandra.MustCreateKeyspace("recipes", kandra.SimpleStrategy(1)))
	fmt.Println()
	ru, err := kandra.Register[recipe.User]()
	check(err)
	printAll(ru.Statements(kandra.MustInKeyspace("recipes")))
}

func printAll(groups ...[]string) {
	for _, g := range groups {
		fmt.Println(strings.Join(g, "\n\n"))
		fmt.Println()
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
