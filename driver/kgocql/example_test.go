package kgocql_test

import (
	"context"
	"log"
	"time"

	"github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/kstore"
	"github.com/kandra-go/kandra/migrate"
)

type Note struct {
	ID    uuid.UUID
	Owner string
	Body  string
	At    time.Time
}

func (n *Note) Describe(s *kandra.Schema[Note]) {
	s.Table("notes")
	kandra.GeneratedUUID(s, &n.ID, kandra.UUIDRandom, kandra.PartitionKey(0))
	kandra.Bind(s, &n.Owner, kandra.Lookup("by_owner", kandra.LookupBatch))
	kandra.CreatedAt(s, &n.At)
}

// New wraps a session: the adapter is both the runtime's and the
// migrator's driver. (It needs a node, so this example is compiled, not
// run; the node suites run the same calls.)
func ExampleNew() {
	notes := kandra.MustRegister[Note]()
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{
		Name:        "app",
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"datacenter1": 1}),
		Targets:     kandra.Cassandra5,
	}, notes)

	cluster := gocql.NewCluster("127.0.0.1")
	cluster.ProtoVersion = 4
	session, err := cluster.CreateSession()
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	d := kgocql.New(session)

	ctx := context.Background()
	if _, err := migrate.Apply(ctx, d, ks, migrate.ApplyOptions{Owner: "deploy"}); err != nil {
		log.Fatal(err)
	}
	rt, err := kstore.New(d, ks)
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(ctx)
	repo := kstore.MustNewRepo(rt, notes)
	if err := repo.Save(ctx, &Note{Owner: "ada@example.com", Body: "hello"}); err != nil {
		log.Fatal(err)
	}
}
