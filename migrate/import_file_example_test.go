package migrate_test

import (
	"fmt"
	"strings"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/migrate"
)

// An application's published schema file, read without a node: the
// entities are those migrate.Import would write after the file ran on a
// server, with what the file holds beside the tables listed.
func ExampleImportFile() {
	file := []byte(`
-- shop schema, v3
CREATE KEYSPACE IF NOT EXISTS shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3};

CREATE TABLE IF NOT EXISTS shop.orders (
    customer_id uuid,
    placed_at   timestamp,
    total       bigint,  // cents
    PRIMARY KEY ((customer_id), placed_at)
) WITH CLUSTERING ORDER BY (placed_at DESC)
  AND gc_grace_seconds = 86400;

CREATE INDEX IF NOT EXISTS ON shop.orders (total);
INSERT INTO shop.orders (customer_id, placed_at, total) VALUES (uuid(), toTimestamp(now()), 0);
`)
	im, err := migrate.ImportFile(file, "shop", migrate.ImportOptions{Package: "shop", Targets: kandra.Cassandra5})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(im.Entities)
	for _, u := range im.Unexpressed {
		fmt.Println("unexpressed:", u)
	}
	src := string(im.Source)
	fmt.Print(src[strings.Index(src, "// Orders is"):])
	// Output:
	// [Orders]
	// unexpressed: line 14 (INSERT INTO shop.orders (customer_id, placed_at, total) VALUES (uuid(), toTim...): a data statement, which is no schema: the generated code holds no rows; keep it in a script of its own
	// // Orders is a row of table orders.
	// type Orders struct {
	// 	CustomerID uuid.UUID
	// 	PlacedAt   time.Time
	// 	Total      int64
	// }
	//
	// // Describe binds Orders to table orders.
	// func (e *Orders) Describe(s *kandra.Schema[Orders]) {
	// 	s.Table("orders", kandra.GCGrace(86400*time.Second))
	// 	kandra.Bind(s, &e.CustomerID, kandra.PartitionKey(0))
	// 	kandra.Bind(s, &e.PlacedAt, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	// 	kandra.Bind(s, &e.Total, kandra.SecondaryIndex(kandra.UsingLegacy()))
	// }
}
