package kstore

import (
	"context"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
)

// Truncate removes every row of the table, then of each of its lookup
// tables (whose rows would name rows that are gone): TRUNCATE TABLE, a
// data operation that leaves the schema as it is. It is what a test's
// purge or a reset of a staging keyspace does; it is not a delete of
// rows a reader can race (a reader sees the table whole or empty, per
// replica) and writes no tombstones.
//
// Servers refuse it unless every node that holds the table is up (it is
// sent to all of them); Cassandra snapshots the table first when
// auto_snapshot is on (its default), which keeps the disk space until the
// snapshot is cleared. A truncation that fails part way leaves the lookup
// tables it did not reach with rows of rows that are gone, which Find
// treats as stale; run it again. Options: none but the context.
func (r *Repo[T]) Truncate(ctx context.Context) error {
	const op = "Truncate"
	var c call
	cons, _, err := r.enter(ctx, entry{op: op, kind: writesAny}, &c)
	if err != nil {
		return err
	}
	defer r.rt.leave()
	for _, st := range r.st.Truncate() {
		if _, err := r.execAs(ctx, kandra.OpTruncate, &adapter.Query{Statement: st, Consistency: cons}, false); err != nil {
			return err
		}
	}
	return nil
}
