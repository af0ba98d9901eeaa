package migrate

import (
	"context"
	"errors"
	"fmt"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

// Apply brings a live keyspace to the schema: it takes the lease, plans
// against what the servers have, runs the steps and records them in the
// history. A second Apply of the same schema finds nothing to do. (The
// driver here is the package's in-memory fake; with a node it is an
// adapter: kgocql.New(session).)
func ExampleApply() {
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "app", Targets: kandra.Cassandra5, Replication: kandra.SimpleStrategy(1)}, applyUsersV1, applyTodos)
	d := newFake(nil, ks)
	ctx := context.Background()
	res, err := Apply(ctx, d, ks, ApplyOptions{Owner: "deploy-42"})
	if err != nil {
		panic(err)
	}
	for _, s := range res.Applied {
		fmt.Println(s.ID)
	}
	again, _ := Apply(ctx, d, ks, ApplyOptions{Owner: "deploy-43"})
	fmt.Println("second apply:", len(again.Applied), "steps")
	// Output:
	// create-keyspace:app
	// create-table:users
	// create-table:todos
	// second apply: 0 steps
}

// Check is what a service runs at start-up: nil when the live keyspace
// has the schema, an *kerrors.MigrationError naming the differences when
// not (here: the users table gained a lookup that no Apply has created).
func ExampleCheck() {
	v1 := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "app", Targets: kandra.Cassandra5, Replication: kandra.SimpleStrategy(1)}, applyUsersV1, applyTodos)
	v2 := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "app", Targets: kandra.Cassandra5, Replication: kandra.SimpleStrategy(1)}, applyUsersV2, applyTodos)
	d := newFake(nil, v1)
	ctx := context.Background()
	if _, err := Apply(ctx, d, v1, ApplyOptions{Owner: "deploy-42"}); err != nil {
		panic(err)
	}
	fmt.Println("v1:", Check(ctx, d, v1))
	err := Check(ctx, d, v2)
	fmt.Println("v2 is a migration error:", errors.Is(err, kerrors.ErrMigration))
	// Output:
	// v1: <nil>
	// v2 is a migration error: true
}
