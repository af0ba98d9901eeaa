// A TTL on a counter update does not compile.
package main

import (
	"context"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/store"
	. "github.com/kandra-go/kandra/testdata/optionentity"
)

func use(ctx context.Context, r *store.Repo[E], at kandra.Field[E, time.Time], c *store.Counter[E]) {
	_ = c.Increment(ctx, &E{}, 1, store.TTL(time.Minute))
	_ = at
}

func main() { _ = use }
