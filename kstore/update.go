package kstore

import (
	"context"
	"sync/atomic"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
)

// Update writes new over old (same primary key, which it may not change;
// old and new are two structs: copy old before editing). It validates new,
// stamps UpdatedAt, and moves each lookup value that changed: a non-unique
// one deletes this entity's row of the old value and writes the new one,
// at one timestamp; a unique one claims the new value before the write
// (an *kerrors.UniqueError when another live entity holds it) and releases
// the old one after it, only the claim this entity held.
//
// Update writes only the columns whose values differ between old and new
// as the server stores them, with the stamps (UpdatedAt, the version), so
// that a stale copy of an entity without a version does not write back
// what another writer changed in other columns since; with nothing
// changed and nothing to stamp it writes nothing. It checks the values it
// writes (kandra.ColumnSchema.CheckValue), after the options: a value that
// did not change is neither sent nor checked. With a TTL it writes every
// column, so that the whole row expires, and checks every value. On a table without a
// version the row goes in the LOGGED BATCH of the BATCH lookup rows it
// moves, EVENTUAL ones follow asynchronously. On a versioned table the UPDATE
// carries IF version = old's version (IF version IN (null, 0) when old's
// is zero: old was read from a row without a version) and sets new's
// version to the next one; a conflict is a *kerrors.OptimisticLockError and
// new is left as it was (see the package documentation for the order of
// the writes, versioned.go for the conditions).
func (r *Repo[T]) Update(ctx context.Context, old, nw *T, opts ...WriteOption) error {
	const op = "Update"
	sc := getScratch(opts)
	defer sc.release()
	c := &sc.c
	cons, serial, err := r.enter(ctx, entry{op: op, kind: writes}, c, arg[T]{name: "old", e: old}, arg[T]{name: "new", e: nw, key: r.key, written: true, changedOnly: true})
	if err != nil {
		return err
	}
	defer r.rt.leave()
	// new's stamps are put back when the call fails before the row is
	// written, so that a retry of Update(old, new) starts from the same
	// new; once the row is written new keeps them, as it is.
	kept := r.keepStamps(nw)
	written, err := r.update(ctx, sc, cons, serial, old, nw)
	if err != nil && !written {
		kept.restore()
	}
	return err
}

// update is Update past enter: written reports that the row was sent
// and applied. The defers stay in Update, whose few returns let the
// compiler open-code them; with update's many returns they would be
// pushed and run by the runtime on every call.
func (r *Repo[T]) update(ctx context.Context, sc *scratch, cons, serial kandra.Consistency, old, nw *T) (written bool, err error) {
	const op = "Update"
	c := &sc.c
	if old == nw {
		return false, r.argErr(op, "old, new", "old and new are the same *"+r.typeName+": Update needs the entity as it was read (old) to move its lookup values and check its version; copy it before editing (nw := *old; edit nw; Update(ctx, old, &nw))")
	}
	var keyBuf [1]int
	if moved := r.keyDiff.AppendChanged(keyBuf[:0], old, nw); len(moved) > 0 {
		col := r.key[moved[0]]
		return false, r.argErr(op, "field "+col.GoName(), "new changes key column "+col.Name()+"; a primary key is immutable: Save the entity under its new key and Delete the old one")
	}
	versioned := r.ts.VersionColumn() != nil
	if versioned {
		if err := r.checkVersioned(op, c); err != nil {
			return written, err
		}
	}
	if col := r.ts.UpdatedAtColumn(); col != nil {
		*r.timeField(col, nw) = truncate(col, r.now())
	}
	if versioned {
		r.nextVersion(old, nw)
	}
	// The lookups. A value that changed moves: a non-unique row is deleted
	// (this entity's own row of the old value) and written anew, at one
	// timestamp; a unique value is claimed before the write and the old
	// one released after it. A value that did not change is not written
	// in the primary row, and its lookup rows are left alone (but for a
	// TTL, which rewrites every value, as Save does). On a table without
	// a version the primary row carries the same timestamp as the lookup
	// rows: whichever of two Updates is later wins in both.
	var ts int64
	if len(r.lookups) > 0 { // without lookups, no timestamp to share (and no clock reading)
		ts = lookupTS(c)
		if !versioned && !c.hasTS {
			c.ts, c.hasTS = ts, true
		}
	}
	// Update writes what changed: a column changed to null is the change,
	// written as null; under a TTL every column is written, nulls too, so
	// that no old cell outlives the row.
	c.omitNulls = false
	var st *adapter.Statement
	switch {
	case versioned && r.versionZero(old):
		if err := r.checkValues(nw); err != nil {
			return written, err
		}
		st = r.st.UpdateIfNoVersion(using(c)) // old was read without a version
	case c.hasTTL:
		if err := r.checkValues(nw); err != nil {
			return written, err
		}
		// Every column, so that the whole row expires with the TTL.
		st = r.st.Update(using(c))
	default:
		// Only what changed, with the stamps: a stale copy of old does not
		// write back the columns another writer changed since.
		var colBuf [16]*kandra.ColumnSchema
		changed, mask, err := r.changedColumns(colBuf[:0], old, nw)
		if err != nil {
			return written, err
		}
		if len(changed) == 0 {
			return written, nil // nothing changed, nothing stamped: nothing to write
		}
		st = r.updateColumns(changed, mask, using(c), versioned)
	}
	if st == nil { // every column is in the key
		st = r.st.Insert(using(c))
	}
	// The primary row first in sc.entries, then the BATCH lookup rows: the
	// LOGGED BATCH of a table without a version.
	primary := sc.query(st)
	primary.Values = r.appendWrite(sc.values(st.NumParams()), sc, st, c, nw, old)
	if versioned {
		primary.Consistency, primary.SerialConsistency = cons, serial
	}
	var batchIns, batchDels []*adapter.Query // on a versioned table, which sends them apart
	var evBuf, claimBuf, leaveBuf [4]int
	eventual, claimNew, leave := evBuf[:0], claimBuf[:0], leaveBuf[:0]
	// A soft-deleted entity holds no unique value (another may have taken
	// it): bringing it back claims them all again.
	revive := r.deleted(old) && !r.deleted(nw)
	for i, l := range r.lookups {
		ov, nv := r.lookupValue(i, old), r.lookupValue(i, nw)
		changed := !r.sameLookup(i, old, nw)
		if !changed && !(revive && l.IsUnique()) && (versioned || !c.hasTTL) {
			// The row keeps the value (it is not written again): so does
			// its lookup row.
			continue
		}
		switch l.Kind() {
		case kandra.LookupEventual:
			eventual = append(eventual, i)
		case kandra.LookupBatch:
			if changed && !r.emptyAt(i, ov) {
				if q := r.lookupDeleteIn(sc, i, old, ts); versioned {
					batchDels = append(batchDels, q)
				}
			}
			if !r.emptyAt(i, nv) {
				if q := r.lookupInsertIn(sc, i, nw, ts); versioned {
					batchIns = append(batchIns, q)
				}
			}
		default:
			claimNew = append(claimNew, i)
			if changed {
				leave = append(leave, i)
			}
		}
	}
	if len(sc.entries) > 1 {
		if err := r.checkBatchSize(op, sc.entries); err != nil {
			return written, err
		}
	}
	var claimed *claims[T]
	if len(claimNew) > 0 {
		if claimed, err = r.claimAll(ctx, op, nw, claimNew, c, cons); err != nil {
			return written, err
		}
	}
	var left *owned // the claims of the values nw leaves, read before the write
	if len(leave) > 0 {
		if left, err = r.ownedClaims(ctx, op, old, leave, c); err != nil {
			r.giveBack(ctx, op, claimed, c, cons)
			return written, err
		}
	}
	if versioned {
		// The conditional UPDATE cannot share the lookup rows' batch: the
		// new rows go before it and the old ones are deleted after it, so
		// that a conflict or a crash in between leaves only rows whose
		// entity does not hold their value (reads skip them), never an
		// entity its lookups cannot find.
		if len(batchIns) > 0 {
			if err := r.batchExec(ctx, kandra.OpUpdate, cons, batchIns, nil); err != nil {
				r.giveBack(ctx, op, claimed, c, cons) // the row was not sent
				return written, err
			}
		}
		if err := r.fresh(ctx, op, claimed, c, cons); err != nil {
			return written, err
		}
		applied, err := r.exec(ctx, kandra.OpUpdate, primary)
		if err != nil {
			return written, err // the claims stay: the UPDATE may have applied
		}
		if !applied {
			r.giveBack(ctx, op, claimed, c, cons)
			return false, r.lockErr(nw, r.expected(old)+" expected, the row has another version or is gone: Get it again and retry")
		}
		written = true
		r.landed(claimed)
		if len(batchDels) > 0 {
			if err := r.batchExec(ctx, kandra.OpUpdate, cons, batchDels, nil); err != nil {
				// Only rows of values the entity left remain: reads skip
				// them. The listener hears of it.
				cp := new(T)
				*cp = *nw
				r.rt.eventualFailed(batchDels[0].Statement.TableName(), cp, err)
			}
		}
	} else {
		if err := r.fresh(ctx, op, claimed, c, cons); err != nil {
			return written, err
		}
		if err := r.batchSend(ctx, kandra.OpUpdate, cons, sc.entries, &sc.batch, true); err != nil {
			return written, err // the claims stay: the batch may have landed
		}
		written = true
		r.landed(claimed)
	}
	r.releaseOwned(ctx, op, old, left, c, cons)
	if len(eventual) > 0 && len(r.lookups) <= maxMoves {
		r.eventualMoves(ctx, cons, old, nw, eventual, ts)
	} else if len(eventual) > 0 {
		oldCopy, newCopy := new(T), new(T)
		*oldCopy, *newCopy = *old, *nw
		ts := ts // the closures' own: captured, the call's would live on the heap in every Update
		for _, i := range eventual {
			changed := !r.sameLookup(i, oldCopy, newCopy)
			r.rt.async(ctx, r.lookups[i].Name(), newCopy, func(ctx context.Context) error {
				if changed && !r.emptyAt(i, r.lookupValue(i, oldCopy)) {
					q := r.lookupDeleteAt(i, oldCopy, ts)
					q.Consistency = cons
					if _, err := r.execAs(ctx, kandra.OpUpdate, q, true); err != nil {
						return err
					}
				}
				if r.emptyAt(i, r.lookupValue(i, newCopy)) {
					return nil
				}
				q := r.lookupInsertIn(nil, i, newCopy, ts)
				q.Consistency = cons
				_, err := r.execAs(ctx, kandra.OpUpdate, q, true)
				return err
			})
		}
	}
	return written, nil
}

// changedColumns appends to dst the non-key columns whose values differ
// between old and nw as the server stores them, and the stamps Update
// moves (UpdatedAt, the version), in column order. It checks nw's value
// of each (kandra.ColumnSchema.CheckValue): the values Update writes,
// and only those (a value that did not change is not sent). mask has bit
// i set for r.regular[i] appended (of the first 64).
func (r *Repo[T]) changedColumns(dst []*kandra.ColumnSchema, old, nw *T) ([]*kandra.ColumnSchema, uint64, error) {
	var buf [16]int
	var mask uint64
	stamps := r.stamps
	for _, j := range r.diff.AppendChanged(buf[:0], old, nw) {
		i := r.diffAt[j]
		for ; len(stamps) > 0 && stamps[0] < i; stamps = stamps[1:] {
			dst, mask = append(dst, r.regular[stamps[0]]), mask|1<<(stamps[0]&63)
		}
		col := r.regular[i]
		pn, _ := col.Pointer(nw)
		if err := col.CheckValue(pn); err != nil {
			return dst, 0, err
		}
		dst, mask = append(dst, col), mask|1<<(i&63)
	}
	for _, i := range stamps {
		dst, mask = append(dst, r.regular[i]), mask|1<<(i&63)
	}
	return dst, mask, nil
}

// updShape is one of Update's statements that write some columns: the
// regular columns it sets (bit i: Repo.regular[i]) and its USING.
type updShape struct {
	mask uint64
	u    catalog.Using
	st   *adapter.Statement
}

// updShapes keep the statements of the first Update shapes a Repo sends,
// so that an Update finds its statement by its changed columns' mask
// without building the key of the table's shape cache and hashing it. A
// program's Updates change a few sets of columns: the first ones to
// claim a slot keep it, and the rest go to the table's cache as before.
type updShapes [16]atomic.Pointer[updShape]

// updSlot is the slot of updShapes for mask and u: their bits folded to 4.
func updSlot(mask uint64, u catalog.Using) int {
	return int((mask ^ uint64(u)<<59) * 0x9E3779B97F4A7C15 >> 60)
}

// updateColumns is the UPDATE of the columns changed (the Update's, in
// column order), whose positions among r.regular mask has, with USING u
// and IF version = ? when versioned.
func (r *Repo[T]) updateColumns(changed []*kandra.ColumnSchema, mask uint64, u catalog.Using, versioned bool) *adapter.Statement {
	if len(r.regular) > 64 { // the mask does not tell them apart
		var buf [64]byte
		return r.st.UpdateColumns(changed, u, versioned, buf[:0])
	}
	slot := &r.updates[updSlot(mask, u)] // versioned is the table's: the same in every Update here
	if s := slot.Load(); s != nil && s.mask == mask && s.u == u {
		return s.st
	}
	var buf [64]byte
	st := r.st.UpdateColumns(changed, u, versioned, buf[:0])
	if st != nil && slot.Load() == nil {
		slot.CompareAndSwap(nil, &updShape{mask: mask, u: u, st: st})
	}
	return st
}
