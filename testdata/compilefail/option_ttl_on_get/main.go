// A TTL on a read does not compile.
package main

import (
	"context"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kstore"
	. "github.com/kandra-go/kandra/testdata/optionentity"
)

func use(ctx context.Context, r *kstore.Repo[E], at kandra.Field[E, time.Time], c *kstore.Counter[E]) {
	_, _ = r.Get(ctx, &E{}, kstore.TTL(time.Minute))
	_ = at
	_ = c
}

func main() { _ = use }
