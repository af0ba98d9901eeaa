package cli_test

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/migrate/cli"
)

// Order is the entity of the example: it compiles into the program, which
// is why the program mounts the command line rather than a separate tool.
type Order struct {
	OrderID  uuid.UUID
	Customer string
	Total    int64
}

func (o *Order) Describe(s *kandra.Schema[Order]) {
	s.Table("orders")
	kandra.Bind(s, &o.OrderID, kandra.PartitionKey(0))
	kandra.Bind(s, &o.Customer, kandra.Lookup("by_customer", kandra.LookupBatch))
}

// freshCluster stands in for an adapter (driver/kgocql's kgocql.New(session)
// in a real program): a cluster where the keyspace does not exist yet.
type freshCluster struct{ adapter.Driver }

// QueryCQL answers the migrator's reads as a fresh Cassandra 5.0 does:
// no rows in system_schema for the keyspace.
func (freshCluster) QueryCQL(_ context.Context, stmt string, _ []any, _ kandra.Consistency) ([]map[string]any, error) {
	if strings.HasPrefix(stmt, "SELECT * FROM system_schema.") {
		return nil, nil
	}
	if strings.Contains(stmt, "scylla_nr_shards") {
		return nil, errors.New("Undefined column name scylla_nr_shards in table system.local")
	}
	return []map[string]any{{"release_version": "5.0.8"}}, nil
}

// A program mounts the migrator as its "schema" subcommand; here it plans
// against a fresh cluster. In main:
//
//	if len(os.Args) > 1 && os.Args[1] == "schema" {
//		os.Exit(cli.Run(ctx, kgocql.New(session), ks, os.Args[2:], os.Stdout, os.Stderr))
//	}
func Example() {
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{
		Name: "shop", Targets: kandra.Cassandra5,
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"datacenter1": 3}),
	}, kandra.MustRegister[Order]())
	code := cli.Run(context.Background(), freshCluster{}, ks, []string{"plan"}, os.Stdout, os.Stderr)
	if code != cli.ExitOK {
		os.Exit(code)
	}
	// Output:
	// plan for keyspace shop (8df8804c30a740bbdab7c9f38d1d5f58): 3 steps: 3 safe, 0 needs approval, 0 impossible
	// ID                                      CLASS  REASON
	// create-keyspace:shop                    safe   keyspace "shop" does not exist
	// create-table:orders                     safe   table "orders" does not exist
	// create-lookup-table:orders_by_customer  safe   lookup table "orders_by_customer" of table "orders" does not exist
}
