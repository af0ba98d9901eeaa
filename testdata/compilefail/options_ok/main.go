// Control: every option where it applies compiles.
package main

import (
	"context"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/store"
	. "github.com/kandra-go/kandra/testdata/optionentity"
)

func use(ctx context.Context, r *store.Repo[E], at kandra.Field[E, time.Time], c *store.Counter[E]) {
	_ = r.Save(ctx, &E{}, store.TTL(time.Minute), store.Timestamp(time.Now()), store.Consistency(kandra.ConsistencyOne), store.SerialConsistency(kandra.ConsistencySerial))
	_, _ = r.SaveIfNotExists(ctx, &E{}, store.TTL(time.Minute), store.SerialConsistency(kandra.ConsistencySerial))
	_ = r.Delete(ctx, &E{}, store.Timestamp(time.Now()))
	_, _ = r.Get(ctx, &E{}, store.Consistency(kandra.ConsistencyOne))
	_ = r.List(ctx, &E{}, store.PageSize(10), store.From(at, time.Now(), true), store.Reversed(), store.Consistency(kandra.ConsistencyOne))
	_ = c.Increment(ctx, &E{}, 1, store.Consistency(kandra.ConsistencyOne))
}

func main() { _ = use }
