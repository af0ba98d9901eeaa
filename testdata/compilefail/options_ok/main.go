// Control: every option where it applies compiles.
package main

import (
	"context"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kstore"
	. "github.com/kandra-go/kandra/testdata/optionentity"
)

func use(ctx context.Context, r *kstore.Repo[E], at kandra.Field[E, time.Time], c *kstore.Counter[E]) {
	_ = r.Save(ctx, &E{}, kstore.TTL(time.Minute), kstore.Timestamp(time.Now()), kstore.Consistency(kandra.ConsistencyOne), kstore.SerialConsistency(kandra.ConsistencySerial))
	_, _ = r.SaveIfNotExists(ctx, &E{}, kstore.TTL(time.Minute), kstore.SerialConsistency(kandra.ConsistencySerial))
	_ = r.Delete(ctx, &E{}, kstore.Timestamp(time.Now()))
	_, _ = r.Get(ctx, &E{}, kstore.Consistency(kandra.ConsistencyOne))
	_ = r.List(ctx, &E{}, kstore.PageSize(10), kstore.From(at, time.Now(), true), kstore.Reversed(), kstore.Consistency(kandra.ConsistencyOne))
	_ = c.Increment(ctx, &E{}, 1, kstore.Consistency(kandra.ConsistencyOne))
}

func main() { _ = use }
