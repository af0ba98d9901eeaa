// Package optionentity is the entity the compilefail programs about store
// options call with: a partition, a clustering column and a counter.
package optionentity

import (
	"time"

	"github.com/kandra-go/kandra"
)

// E is the entity.
type E struct {
	ID   string
	At   time.Time
	Hits int64
}

// Describe binds E's key.
func (e *E) Describe(s *kandra.Schema[E]) {
	s.Table("e")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.At, kandra.ClusteringKey(0, kandra.ClusteringDesc))
}
