// A range on a write does not compile.
package main

import (
	"context"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/store"
	. "github.com/kandra-go/kandra/testdata/optionentity"
)

func use(ctx context.Context, r *store.Repo[E], at kandra.Field[E, time.Time], c *store.Counter[E]) {
	_ = r.Save(ctx, &E{}, store.From(at, time.Now(), true))
	_ = c
}

func main() { _ = use }
