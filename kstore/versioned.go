package kstore

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
	"github.com/kandra-go/kandra/kerrors"
)

// The write paths of a table with a Version. None of them overwrites or
// deletes a row whose version differs from the caller's copy. A copy's
// version v is the version it was read at; version zero (int64 0, the zero
// time.Time) is "no version yet": a new entity, or one read from a row
// whose version is null (written before the table had a Version, or by
// another client). A read cannot tell a null version from 0, so zero
// conditions on IF version IN (null, 0) (IF version = null for a time.Time
// version); kandra's own int64 versions start at 1.
//
//   - Save: UPDATE ... IF version IN (null, 0) at zero (no row with the
//     key, or one without a version), IF version = v otherwise; e gets the
//     next version (1, or now for a time.Time);
//   - Update(old, new): UPDATE ... IF version = old's (IN (null, 0) when
//     old's is zero), new at the next version;
//   - HardDelete: DELETE ... IF version = v (IN (null, 0) at zero);
//   - SoftDelete: one conditional batch of the row (the row marker and
//     every non-key column USING TTL n, IF version = v or IN (null, 0)), at
//     the next version;
//   - ForceSave: an unconditional UPDATE (with the lookup rows' LOGGED
//     BATCH); ForceDelete: an unconditional DELETE.
//
// Every conditional one is a lightweight transaction, so none carries a
// client timestamp. At zero the condition cannot tell a row without a
// version from no row: an Update or a delete of a zero copy whose row was
// deleted meanwhile applies (the Update writes the entity anew at version
// 1, as a Save of a new entity would; the delete deletes nothing). Only
// SaveIfNotExists (INSERT ... IF NOT EXISTS) refuses any existing row.
//
// Row markers. kandra writes a versioned row by UPDATEs, which leave no
// row marker, except SaveIfNotExists; an INSERT may also have written one
// before the table had a Version (a Save of the versionless entity) or
// from another client. The soft delete rewrites the marker with its TTL
// too, so a soft-deleted row vanishes whole once the TTL passes, whoever
// wrote the marker. So a row with a null version is a live row, never a
// leftover: it reads as the entity at version zero. (A caller's TTL on
// Save, Update or ForceSave is an UPDATE USING TTL of the cells: a marker
// written earlier without a TTL outlives them, and the key then reads as
// an entity with zero fields at version zero, as on a table without a
// Version.)

// checkVersioned refuses what a versioned write cannot do: a client
// timestamp. A copy at version zero is written conditionally too (IF
// version IN (null, 0)), so it needs no refusal: a copy that was never
// read (only its key set) deletes or updates only a row without a
// version, and a row with one refuses it (*kerrors.OptimisticLockError).
func (r *Repo[T]) checkVersioned(op string, c *call) error {
	if c.hasTS {
		return r.argErr(op, "Timestamp", "a versioned (conditional) write cannot carry a client timestamp; ForceSave and ForceDelete can")
	}
	return nil
}

// versionZero reports an entity whose version is not set.
func (r *Repo[T]) versionZero(e *T) bool {
	p, _ := r.ts.VersionColumn().Pointer(e)
	switch v := p.(type) {
	case *int64:
		return *v == 0
	case *time.Time:
		return v.IsZero()
	}
	return false
}

// versionOf renders e's version for a message.
func (r *Repo[T]) versionOf(e *T) any {
	p, _ := r.ts.VersionColumn().Pointer(e)
	return reflect.ValueOf(p).Elem().Interface()
}

// expected renders the condition a write of e carried, for a message:
// "version = 4", or "no version (version null or 0)" at zero.
func (r *Repo[T]) expected(e *T) string {
	name := r.ts.VersionColumn().Name()
	if r.versionZero(e) {
		if r.ts.VersionColumn().GoType() == reflect.TypeFor[time.Time]() {
			return "no version (" + name + " null)"
		}
		return "no version (" + name + " null or 0)"
	}
	return fmt.Sprintf("%s = %v", name, r.versionOf(e))
}

func (r *Repo[T]) lockErr(e *T, msg string) error {
	return &kerrors.OptimisticLockError{EntityType: r.typeName, Key: r.redactedKey(e), Message: msg}
}

// saveVersioned is Save on a versioned table (see Save).
func (r *Repo[T]) saveVersioned(ctx context.Context, e *T, c *call, cons kandra.Consistency) (err error) {
	const op = "Save"
	if err := r.checkVersioned(op, c); err != nil {
		return err
	}
	serial, err := r.serialCons(op, c)
	if err != nil {
		return err
	}
	// e is put back when the write fails. When its outcome is unknown, e
	// keeps the ids and CreatedAt it was given, so that a retry writes the
	// same entity (and finds it written, if it was) instead of a second one.
	was, unknown := *e, false
	defer func() {
		if err == nil {
			return
		}
		stamped := *e
		*e = was
		if unknown {
			r.keepInsertStamps(e, &stamped)
		}
	}()
	first := r.versionZero(e)
	var row *adapter.Query
	if first {
		r.stampInsert(e)
		st := r.st.UpdateIfNoVersion(using(c) & catalog.UsingTTL)
		row = &adapter.Query{Statement: st, Values: r.bindWrite(st, c, e, nil)}
	} else {
		r.stampInsert(e) // ids and CreatedAt when zero, UpdatedAt
		r.nextVersion(&was, e)
		st := r.st.Update(using(c) & catalog.UsingTTL)
		row = &adapter.Query{Statement: st, Values: r.bindWrite(st, c, e, &was)}
	}
	row.Consistency, row.SerialConsistency = cons, serial
	ts, evTS := insertTS(c), r.eventualTS(c)
	var entries []*adapter.Query
	for _, i := range r.batch {
		if !r.emptyAt(i, r.lookupValue(i, e)) {
			entries = append(entries, r.lookupInsertIn(nil, i, e, ts))
		}
	}
	if len(entries) > 0 {
		if err := r.checkBatchSize(op, append([]*adapter.Query{row}, entries...)); err != nil {
			return err
		}
	}
	claimed, err := r.claimAll(ctx, op, e, nil, c, cons)
	if err != nil {
		return err
	}
	// The lookup rows go first: a conditional write cannot share their
	// batch, and rows written before a write that then does not happen
	// (a conflict, a crash) only point to an entity that does not hold
	// their value, which reads skip; the other order would leave a written
	// entity that its lookups cannot find.
	if len(entries) > 0 {
		if err := r.batchExec(ctx, kandra.OpSave, cons, entries, nil); err != nil {
			r.giveBack(ctx, op, claimed, c, cons) // the row was not sent
			return err
		}
	}
	if err := r.fresh(ctx, op, claimed, c, cons); err != nil {
		return err
	}
	applied, err := r.exec(ctx, kandra.OpSave, row)
	if err != nil {
		unknown = true
		r.eventualIfUnknown(ctx, kandra.OpSave, cons, e, evTS, err)
		return err // the claims stay: the write may have applied
	}
	if !applied {
		r.giveBack(ctx, op, claimed, c, cons)
		if first {
			return r.lockErr(&was, "a row with this key exists and has a version: Get it and Update it (or Save the copy you read), or ForceSave to overwrite it")
		}
		return r.lockErr(&was, r.expected(&was)+" expected, the row has another version or is gone: Get it again and retry")
	}
	r.landed(claimed)
	r.eventualInserts(ctx, kandra.OpSave, cons, e, evTS)
	return nil
}

// deleteVersioned runs the conditional DELETE of e, then the deletes of
// its non-unique lookup rows and the release of the claims it held (left,
// read before the DELETE).
func (r *Repo[T]) deleteVersioned(ctx context.Context, op string, e *T, c *call, cons kandra.Consistency, lookupDels []*adapter.Query, left *owned) error {
	serial, err := r.serialCons(op, c)
	if err != nil {
		return err
	}
	st := r.st.DeleteIfVersion()
	if r.versionZero(e) {
		st = r.st.DeleteIfNoVersion()
	}
	q := &adapter.Query{Statement: st, Values: r.bindWrite(st, c, e, e), Consistency: cons, SerialConsistency: serial}
	applied, err := r.exec(ctx, kandra.OpDelete, q)
	if err != nil {
		return err
	}
	if !applied {
		return r.lockErr(e, r.expected(e)+" expected, the row has another version or is gone: nothing was deleted; Get it again and retry, or ForceDelete")
	}
	if len(lookupDels) > 0 {
		if err := r.batchExec(ctx, kandra.OpDelete, cons, lookupDels, nil); err != nil {
			// The row is gone: the lookup rows left point to nothing, and
			// reads skip them. The listener hears of it.
			cp := new(T)
			*cp = *e
			r.rt.eventualFailed(lookupDels[0].Statement.TableName(), cp, err)
		}
	}
	r.releaseOwned(ctx, op, e, left, c, cons)
	return nil
}

// softDeleteVersioned is SoftDelete on a versioned table: the conditional
// rewrite at the next version, e left as it was when it does not apply.
func (r *Repo[T]) softDeleteVersioned(ctx context.Context, e *T, c *call, cons kandra.Consistency) (err error) {
	const op = "SoftDelete"
	if err := r.checkVersioned(op, c); err != nil {
		return err
	}
	serial, err := r.serialCons(op, c)
	if err != nil {
		return err
	}
	was := *e
	defer func() {
		if err != nil {
			*e = was
		}
	}()
	if m := r.ts.SoftDelete().Marker; m != nil {
		p, _ := m.Pointer(e)
		*p.(*bool) = true
	}
	if col := r.ts.UpdatedAtColumn(); col != nil {
		*r.timeField(col, e) = truncate(col, r.now())
	}
	r.nextVersion(&was, e)
	st := r.st.SoftDeleteIfVersion()
	if r.versionZero(&was) {
		st = r.st.SoftDeleteIfNoVersion()
	}
	applied, err := r.exec(ctx, kandra.OpSoftDelete, &adapter.Query{Statement: st, Values: r.bindWrite(st, c, e, &was), Consistency: cons, SerialConsistency: serial})
	if err != nil {
		return err
	}
	if !applied {
		return r.lockErr(&was, r.expected(&was)+" expected, the row has another version or is gone: nothing was written; Get it again and retry")
	}
	return nil
}

// keepInsertStamps copies from's generated ids and CreatedAt into e.
func (r *Repo[T]) keepInsertStamps(e, from *T) {
	cols := r.gen
	if c := r.ts.CreatedAtColumn(); c != nil {
		cols = append(cols[:len(cols):len(cols)], c)
	}
	for _, c := range cols {
		pe, _ := c.Pointer(e)
		pf, _ := c.Pointer(from)
		reflect.ValueOf(pe).Elem().Set(reflect.ValueOf(pf).Elem())
	}
}
