package kstore

import (
	"context"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
)

// Deletes beyond one row, and a row's delete on a condition.

// RangeOption configures DeleteRange: Equal, From and To select the rows
// as they do for List; Timestamp and Consistency as for any write.
type RangeOption interface {
	option
	rangeOption()
}

func (PageOption) rangeOption()        {}
func (TimestampOption) rangeOption()   {}
func (ConsistencyOption) rangeOption() {}

// DeleteRange deletes, in one statement, the rows of partition's
// partition key (its other fields are ignored) that Equal, From and To
// select, as List selects them: every row of the partition without them,
// a prefix of the clustering key with Equal, a range of the clustering
// column after it with From and To. It leaves one tombstone on the server
// (a partition tombstone, or a range tombstone), which reads of the
// partition pass over until compaction drops it after the table's
// gc_grace_seconds: far cheaper than a tombstone per row, and the way to
// expire a time bucket.
//
// A table with lookups is refused (*kerrors.ArgumentError): their rows of
// the deleted rows' values would stay, and only a read could find them:
// List the rows and DeleteAll them. So is a table with SoftDelete (its
// rows are deleted by a soft delete each: List them and Delete each, or
// HardDelete them), and PageSize, After and Reversed, which select no
// rows. On a versioned table the rows go whatever their version.
// Options: Equal, From, To, Timestamp, Consistency.
func (r *Repo[T]) DeleteRange(ctx context.Context, partition *T, opts ...RangeOption) error {
	const op = "DeleteRange"
	sc := getScratch(opts)
	defer sc.release()
	c := &sc.c
	cons, _, err := r.enter(ctx, entry{op: op, kind: writesAny}, c, arg[T]{name: "partition", e: partition, key: r.partition})
	if err != nil {
		return err
	}
	defer r.rt.leave()
	q, err := r.buildDeleteRange(op, sc, partition)
	if err != nil {
		return err
	}
	q.Consistency = cons
	_, err = r.exec(ctx, kandra.OpDeleteRange, q)
	return err
}

// buildDeleteRange checks a DeleteRange of partition and binds its
// statement in sc.
func (r *Repo[T]) buildDeleteRange(op string, sc *scratch, partition *T) (*adapter.Query, error) {
	c := &sc.c
	switch {
	case len(r.lookups) > 0:
		return nil, r.argErr(op, "the table", r.ts.Name()+" has lookup tables, whose rows of the deleted rows' values would stay: List the rows and DeleteAll them")
	case r.ts.SoftDelete() != nil:
		return nil, r.argErr(op, "the table", r.ts.Name()+" has SoftDelete, which deletes each row with its TTL: List the rows and Delete each (or HardDelete them)")
	case c.hasPageSize, c.hasCursor, c.reversed:
		return nil, r.argErr(op, "options", "PageSize, After and Reversed are a List's: a delete takes Equal, From and To")
	case c.lowerTuple != nil, c.upperTuple != nil:
		return nil, r.argErr(op, "FromTuple, ToTuple", "a delete's range bounds one clustering column: fix the columns before it with Equal and bound it with From and To")
	}
	if err := r.checkRange(op, c); err != nil {
		return nil, err
	}
	sc.shaped = true
	spec := &sc.del
	spec.Using, spec.Prefix = using(c)&catalog.UsingTimestamp, len(c.prefix)
	if c.lowerCol != nil {
		spec.Lower = c.lowerB
	}
	if c.upperCol != nil {
		spec.Upper = c.upperB
	}
	st := r.st.DeleteWhere(spec, sc.shapeKey())
	vals := sc.values(st.NumParams())
	if c.hasTS {
		vals = append(vals, c.ts)
	}
	vals = catalog.AppendColumns(r.t, st, partition, vals)
	base := len(vals) // the prefix's markers follow the partition key's
	for i := len(vals); i < st.NumParams(); i++ {
		if p := st.Param(i); p.Kind == adapter.ParamPrefix {
			vals = append(vals, c.prefix[i-base].v)
			continue
		}
		vals = appendParam(vals, st.Param(i), c, sc)
	}
	q := sc.query(st)
	q.Values = vals
	return q, nil
}

// DeleteIf deletes the row of key's primary key when it meets cond (a
// lightweight transaction), and reports, as Patch does, whether it
// applied and, when not, the row's current values of cond's columns. On a
// versioned table it is also conditional on key's version, as HardDelete
// is (another version is a *kerrors.OptimisticLockError).
//
// A table with lookups is refused (*kerrors.ArgumentError): the row's
// lookup values are only known once it is read: Get it and HardDelete it,
// which a versioned table makes conditional on its version. So is a
// table with SoftDelete (Get the entity and SoftDelete it), and a cond
// without a condition (HardDelete deletes without one). Unlike Patch it
// takes conditions a missing row meets (IsNull, Ne): a delete that
// applies to no row deletes nothing.
// Options: Consistency, SerialConsistency.
func (r *Repo[T]) DeleteIf(ctx context.Context, key *T, cond Cond[T], opts ...DeleteOption) (Outcome[T], error) {
	const op = "DeleteIf"
	sc := getScratch(opts)
	defer sc.release()
	c := &sc.c
	cons, _, err := r.enter(ctx, entry{op: op, kind: writesAny, serial: true}, c, arg[T]{name: "key", e: key, key: r.key})
	if err != nil {
		return Outcome[T]{}, err
	}
	defer r.rt.leave()
	st, err := r.buildDeleteIf(op, sc, key, cond)
	if err != nil {
		return Outcome[T]{}, err
	}
	return r.conditional(ctx, op, kandra.OpDelete, sc, cons, key, key, st, nil, nil)
}

// buildDeleteIf checks a DeleteIf of key and cond and makes its statement
// in sc.
func (r *Repo[T]) buildDeleteIf(op string, sc *scratch, key *T, cond Cond[T]) (*adapter.Statement, error) {
	c := &sc.c
	switch {
	case len(r.lookups) > 0:
		return nil, r.argErr(op, "the table", r.ts.Name()+" has lookup tables, whose rows of the row's values DeleteIf cannot know: Get the entity and HardDelete it")
	case r.ts.SoftDelete() != nil:
		return nil, r.argErr(op, "the table", r.ts.Name()+" has SoftDelete: Get the entity and SoftDelete it")
	case len(cond.conds) == 0 && !cond.exists && r.ts.VersionColumn() == nil:
		return nil, r.argErr(op, "cond", "no condition: HardDelete deletes a row without one")
	}
	if err := r.checkLWT(op, c); err != nil {
		return nil, err
	}
	sc.shaped = true
	ifExists, err := r.guard(op, sc, key, key, cond.conds, cond.exists, false)
	if err != nil {
		return nil, err
	}
	sc.conds = append(sc.conds, cond.conds...)
	spec := &sc.del
	spec.Row, spec.IfExists = true, ifExists
	spec.Conds = appendCondShapes(spec.Conds, sc.conds)
	return r.st.DeleteWhere(spec, sc.shapeKey()), nil
}
