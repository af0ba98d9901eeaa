package kgocqlv2_test

import (
	"context"
	"log"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/driver/kgocqlv2"
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
	cluster.ProtoVersion = 5
	session, err := cluster.CreateSession()
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	d := kgocqlv2.New(session)

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
