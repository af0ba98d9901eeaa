package bench

import (
	"testing"

	"github.com/kandra-go/kandra/internal/catalog"
	"github.com/kandra-go/kandra/kstore"
)

// BenchmarkNewRepo is what a Repo costs: NewRepo of Event (12 columns,
// two lookups, an index), and of that the statements alone
// (catalog.Build). The drivers' plans of the statements are
// made on first use and are not in it.
func BenchmarkNewRepo(b *testing.B) {
	ks := eventsKeyspace(b)
	rt, err := kstore.New(newClientDriver(gocqlWire), ks)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("repo", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := kstore.NewRepo(rt, events(b)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("statements", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := catalog.Build(events(b).Schema(), "app"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
