package kstore

import (
	"context"

	"github.com/kandra-go/kandra"
)

// The static columns (kandra.Static) of a partition, written and read by
// its partition key alone. Save, Update and Get write and read them with a
// row like every other column; a row's Delete leaves them, and a
// SoftDelete's TTL never reaches them (they belong to the partition's other
// rows too).

// SaveStatic writes e's static columns to the partition of e's partition
// key, without naming a row: UPDATE t SET the static columns WHERE the
// partition key. e's clustering and other columns are ignored, and a
// static UpdatedAt is stamped. A table without static columns, or a counter
// table (whose static counters only Counter changes), is a
// *kerrors.ArgumentError. Observed as kandra.OpUpdate.
// Options: TTL, Timestamp, Consistency.
func (r *Repo[T]) SaveStatic(ctx context.Context, e *T, opts ...WriteOption) error {
	const op = "SaveStatic"
	sc := getScratch(opts)
	defer sc.release()
	c := &sc.c
	cons, _, err := r.enter(ctx, entry{op: op, kind: writes, statics: true}, c, arg[T]{name: "entity", e: e, key: r.partition})
	if err != nil {
		return err
	}
	defer r.rt.leave()
	for _, c := range r.ts.StaticColumns() { // the other columns are ignored
		p, _ := c.Pointer(e)
		if err := c.CheckValue(p); err != nil {
			return err
		}
	}
	if u := r.ts.UpdatedAtColumn(); u != nil && u.IsStatic() {
		*r.timeField(u, e) = truncate(u, r.now())
	}
	st := r.st.UpdateStatic(using(c))
	q := sc.query(st)
	q.Values, q.Consistency = r.appendWrite(sc.values(st.NumParams()), sc, st, c, e, nil), cons
	_, err = r.exec(ctx, kandra.OpUpdate, q)
	return err
}

// GetStatic reads the static columns of the partition of key's partition
// key (its other fields are ignored): the returned entity has the
// partition key and the static columns set, and every other field zero. A
// partition with no rows and no static values is an *kerrors.NotFoundError;
// one whose rows exist but whose statics were never written returns them
// zero. A table without static columns is an *kerrors.ArgumentError.
// Observed as kandra.OpGet. Options: Consistency.
func (r *Repo[T]) GetStatic(ctx context.Context, key *T, opts ...ReadOption) (*T, error) {
	const op = "GetStatic"
	sc := getScratch(opts)
	defer sc.release()
	cons, _, err := r.enter(ctx, entry{op: op, kind: reads, statics: true}, &sc.c, arg[T]{name: "key", e: key, key: r.partition})
	if err != nil {
		return nil, err
	}
	defer r.rt.leave()
	if sc.c.skipDeleted {
		return nil, r.argErr(op, "SkipDeleted", "a partition's static columns have no soft-deleted row to leave out: read them without it")
	}
	return r.readRow(ctx, kandra.OpGet, sc, r.st.SelectStatic(), key, nil, cons)
}
