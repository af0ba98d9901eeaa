package migrate_test

import (
	"fmt"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/migrate"
)

// A keyspace an application created by hand, as migrate.Read models it:
// one table with an index of the application's own name. Import reads
// the same from a node (migrate.Import(ctx, driver, "shop", opts)).
func ExampleGenerateEntities() {
	live := &migrate.Live{Keyspace: &migrate.LiveKeyspace{
		Name:          "shop",
		Replication:   map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "3"},
		DurableWrites: true,
		Tables: map[string]*migrate.LiveTable{"customers": {
			Name: "customers",
			Columns: []*migrate.LiveColumn{
				{Name: "id", Kind: migrate.ColumnPartitionKey, Position: 0, Order: "none", Type: kandra.CQLUUID, RawType: "uuid"},
				{Name: "email", Kind: migrate.ColumnRegular, Position: -1, Order: "none", Type: kandra.CQLText, RawType: "text"},
				{Name: "joined", Kind: migrate.ColumnRegular, Position: -1, Order: "none", Type: kandra.CQLTimestamp, RawType: "timestamp"},
			},
			Indexes: []*migrate.LiveIndex{{Name: "idx_customers_email", Kind: "COMPOSITES", Options: map[string]string{"target": "email"}}},
			GCGrace: 864000e9,
			Flags:   []string{"compound"},
		}},
	}}
	im, err := migrate.GenerateEntities(live, migrate.ImportOptions{Package: "shop", Targets: kandra.Cassandra5})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(im.Source))
	fmt.Println("unexpressed:", len(im.Unexpressed))
	// Output:
	// // Package shop is the kandra model of keyspace shop, imported from its live
	// // schema by migrate.GenerateEntities: Keyspace builds it, and planned
	// // against the keyspace it came from (migrate.PlanFor) it plans no step.
	// // From now on it is the keyspace's model: edit it, and let the migrator
	// // bring the keyspace to it.
	// package shop
	//
	// import (
	// 	"errors"
	// 	"time"
	//
	// 	"github.com/google/uuid"
	// 	"github.com/kandra-go/kandra"
	// )
	//
	// // Keyspace registers the entities of this file into keyspace shop,
	// // replicated as the live keyspace is.
	// func Keyspace() (*kandra.Keyspace, error) {
	// 	spec := kandra.KeyspaceSpec{
	// 		Name:        "shop",
	// 		Replication: kandra.SimpleStrategy(3),
	// 		Targets:     kandra.Cassandra5,
	// 	}
	// 	var tables []kandra.SchemaSource
	// 	var errs []error
	// 	add := func(t kandra.SchemaSource, err error) {
	// 		if err != nil {
	// 			errs = append(errs, err)
	// 			return
	// 		}
	// 		tables = append(tables, t)
	// 	}
	// 	add(kandra.Register[Customers]())
	// 	if err := errors.Join(errs...); err != nil {
	// 		return nil, err
	// 	}
	// 	return kandra.NewKeyspace(spec, tables...)
	// }
	//
	// // Customers is a row of table customers.
	// type Customers struct {
	// 	ID     uuid.UUID
	// 	Email  string
	// 	Joined time.Time
	// }
	//
	// // Describe binds Customers to table customers.
	// func (e *Customers) Describe(s *kandra.Schema[Customers]) {
	// 	s.Table("customers")
	// 	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	// 	kandra.Bind(s, &e.Email, kandra.SecondaryIndex(kandra.UsingLegacy(), kandra.IndexNamed("idx_customers_email")))
	// }
	// unexpressed: 0
}
