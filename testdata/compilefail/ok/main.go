// Control: the right types compile, so the failures below are about types.
package main

import (
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
)

type E struct {
	ID      uuid.UUID
	Created time.Time
	Ver     int64
	Hits    int64
	Deleted bool
}

func (e *E) Describe(s *kandra.Schema[E]) {
	s.Table("e", kandra.SoftDelete(60*time.Second, &e.Deleted))
	kandra.GeneratedUUID(s, &e.ID, kandra.UUIDTimeOrdered, kandra.PartitionKey(0))
	kandra.CreatedAt(s, &e.Created)
	kandra.UpdatedAt(s, &e.Created)
	kandra.Version(s, &e.Ver)
	kandra.Counter(s, &e.Hits)
}

func main() { _ = kandra.MustRegister[E] }
