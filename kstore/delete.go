package kstore

import (
	"context"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
)

// Delete removes e: a soft delete on a table with SoftDelete, a hard delete
// otherwise (see HardDelete and SoftDelete).
func (r *Repo[T]) Delete(ctx context.Context, e *T, opts ...DeleteOption) error {
	if r.ts.SoftDelete() != nil {
		return r.SoftDelete(ctx, e, opts...)
	}
	return r.HardDelete(ctx, e, opts...)
}

// HardDelete deletes the row of e's primary key with, in the same LOGGED
// BATCH, this entity's own row of each of e's non-unique lookup values,
// then releases the unique values e holds (the claims it held when the
// call began, never a newer one). On a versioned table the DELETE carries
// IF version = e's version (IF version IN (null, 0) when e's is zero) and
// runs alone, and the lookup rows follow it.
// Options: Timestamp (of the deletes; refused on a versioned table),
// Consistency, SerialConsistency.
func (r *Repo[T]) HardDelete(ctx context.Context, e *T, opts ...DeleteOption) error {
	return r.hardDelete(ctx, "HardDelete", e, opts, false)
}

// ForceDelete is HardDelete without the version check of a versioned
// table: it deletes the row whatever its version, with every lookup row
// that still points to e. On a table without a Version it is HardDelete.
func (r *Repo[T]) ForceDelete(ctx context.Context, e *T, opts ...DeleteOption) error {
	return r.hardDelete(ctx, "ForceDelete", e, opts, true)
}

func (r *Repo[T]) hardDelete(ctx context.Context, op string, e *T, opts []DeleteOption, force bool) error {
	sc := getScratch(opts)
	defer sc.release()
	c := &sc.c
	cons, _, err := r.enter(ctx, entry{op: op, kind: writesAny}, c, arg[T]{name: "entity", e: e, key: r.key})
	if err != nil {
		return err
	}
	defer r.rt.leave()
	versioned := !force && r.ts.VersionColumn() != nil
	if versioned {
		if err := r.checkVersioned(op, c); err != nil {
			return err
		}
	}
	st := r.st.Delete(using(c) & catalog.UsingTimestamp)
	row := sc.query(st)
	row.Values = r.appendWrite(sc.values(st.NumParams()), sc, st, c, e, nil)
	ts := int64(noTS) // read from the clock only when a lookup row is deleted
	for i, l := range r.lookups {
		if !l.IsUnique() && !r.emptyAt(i, r.lookupValue(i, e)) {
			if ts == noTS {
				ts = lookupTS(c)
			}
			r.lookupDeleteIn(sc, i, e, ts)
		}
	}
	// The claims e holds, read before the delete, are released after it:
	// exactly those, so that a re-creation of e in between keeps its own.
	left, err := r.ownedClaims(ctx, op, e, nil, c)
	if err != nil {
		return err
	}
	if versioned {
		return r.deleteVersioned(ctx, op, e, c, cons, sc.entries[1:], left)
	}
	if err := r.batchSend(ctx, kandra.OpDelete, cons, sc.entries, &sc.batch, r.deleteFits()); err != nil {
		return err
	}
	r.releaseOwned(ctx, op, e, left, c, cons)
	return nil
}

// deleteBound is the most checkBatchSize can count of a HardDelete's
// batch, or -1 when a key column's values have no fixed size: the row's
// DELETE and each non-unique lookup row's bind the key columns and
// nothing else it counts (a lookup row's own value is its partition key).
func deleteBound(key []*kandra.ColumnSchema, lookups []*kandra.LookupTableSchema) int {
	per := 0
	for _, c := range key {
		n := c.Type().FixedSize()
		if n == 0 {
			return -1
		}
		per += n
	}
	rows := 1
	for _, l := range lookups {
		if !l.IsUnique() {
			rows++
		}
	}
	return rows * per
}

// deleteFits reports that no HardDelete of the table can pass the batch
// limit, so that its batch is not measured on every call.
func (r *Repo[T]) deleteFits() bool {
	max := r.rt.cfg.maxBatch
	return r.deleteBound >= 0 && (max < 0 || r.deleteBound <= max)
}

// SoftDelete sets e's marker (if the table has one) to true, stamps
// UpdatedAt, and rewrites the row with the table's soft-delete TTL. The
// lookup rows are left alone. It is an error on a table without SoftDelete.
// On a versioned table it is conditional on e's version like HardDelete,
// moves e to the next version, and rewrites the row marker with the TTL
// too (SoftDeleteIfVersion), so the row vanishes whole when it passes.
func (r *Repo[T]) SoftDelete(ctx context.Context, e *T, opts ...DeleteOption) error {
	const op = "SoftDelete"
	c := applyCall(opts)
	cons, _, err := r.enter(ctx, entry{op: op, kind: writesAny}, &c, arg[T]{name: "entity", e: e, key: r.key})
	if err != nil {
		return err
	}
	defer r.rt.leave()
	sd := r.ts.SoftDelete()
	if sd == nil {
		return r.argErr(op, "the table", r.ts.Name()+" has no SoftDelete: delete its rows with HardDelete")
	}
	if r.ts.VersionColumn() != nil {
		return r.softDeleteVersioned(ctx, e, &c, cons)
	}
	if sd.Marker != nil {
		p, _ := sd.Marker.Pointer(e)
		*p.(*bool) = true
	}
	if col := r.ts.UpdatedAtColumn(); col != nil {
		*r.timeField(col, e) = truncate(col, r.now())
	}
	st := r.st.SoftDelete()
	_, err = r.exec(ctx, kandra.OpSoftDelete, &adapter.Query{Statement: st, Values: r.bindWrite(st, &c, e, nil), Consistency: cons})
	return err
}
