package runtime

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/kandra-go/kandra"
	kerrors "github.com/kandra-go/kandra/errors"
)

// The write paths of a table with a Version. None of them overwrites or
// deletes a row whose version differs from the caller's copy:
//
//   - Save of a zero version: UPDATE ... IF version = null (no row with the
//     key, or only a versionless one), at the first version;
//   - Save of a version v: UPDATE ... IF version = v, at the next version;
//   - Update: UPDATE ... IF version = old's (see Update);
//   - HardDelete: DELETE ... IF version = v;
//   - SoftDelete: UPDATE ... USING TTL n ... IF version = v, at the next
//     version.
//
// Every one is a lightweight transaction, so none carries a client
// timestamp, and the rows of a versioned table are written by Paxos only
// (ForceSave and ForceDelete aside). The first write is an UPDATE, not an
// INSERT, so no row marker outlives the cells: a soft-deleted row vanishes
// whole once its TTL passes. A row with a null version (a leftover of a
// ForceSave whose cells expired) reads as not found.

// checkVersioned refuses what a versioned write cannot do: a client
// timestamp, and (for a delete) a copy that has no version to check.
func (r *Repo[T]) checkVersioned(op string, c *call, e *T) error {
	if c.hasTS {
		return r.argErr(op, "Timestamp", "a versioned (conditional) write cannot carry a client timestamp; ForceSave and ForceDelete can")
	}
	if e != nil && r.versionZero(e) {
		return r.argErr(op, "field "+r.ts.VersionColumn().GoName(), "the entity has no version, so there is no version to check: "+op+" the entity as it was read (Get), or ForceDelete")
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

func (r *Repo[T]) lockErr(e *T, msg string) error {
	return &kerrors.OptimisticLockError{EntityType: r.typeName, Key: r.redactedKey(e), Message: msg}
}

// saveVersioned is Save on a versioned table (see Save).
func (r *Repo[T]) saveVersioned(ctx context.Context, e *T, c *call, cons kandra.Consistency) (err error) {
	const op = "Save"
	if err := r.checkVersioned(op, c, nil); err != nil {
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
	var row *Query
	if first {
		r.stampInsert(e)
		st := r.st.UpdateIfNoVersion(using(c) & kandra.UsingTTL)
		row = &Query{Statement: st, Values: r.bindWrite(st, c, e, nil)}
	} else {
		r.stampInsert(e) // ids and CreatedAt when zero, UpdatedAt
		r.nextVersion(&was, e)
		st := r.st.Update(using(c) & kandra.UsingTTL)
		row = &Query{Statement: st, Values: r.bindWrite(st, c, e, &was)}
	}
	row.Consistency, row.SerialConsistency = cons, serial
	ts, evTS := insertTS(c), lookupTS(c)
	var entries []*Query
	for _, i := range r.batch {
		if !isEmpty(r.lookupValue(i, e)) {
			entries = append(entries, r.lookupInsertIn(nil, i, e, ts))
		}
	}
	if len(entries) > 0 {
		if err := r.checkBatchSize(op, append([]*Query{row}, entries...)); err != nil {
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
		if err := r.batchExec(ctx, OpSave, cons, entries, nil); err != nil {
			r.giveBack(ctx, op, claimed, c, cons) // the row was not sent
			return err
		}
	}
	if err := r.fresh(ctx, op, claimed, c, cons); err != nil {
		return err
	}
	applied, err := r.exec(ctx, OpSave, row)
	if err != nil {
		unknown = true
		return err // the claims stay: the write may have applied
	}
	if !applied {
		r.giveBack(ctx, op, claimed, c, cons)
		if first {
			return r.lockErr(&was, "a row with this key exists: Get it and Update it (or Save the copy you read), or ForceSave to overwrite it")
		}
		return r.lockErr(&was, fmt.Sprintf("%s = %v expected, the row has another version or is gone: Get it again and retry", r.ts.VersionColumn().Name(), r.versionOf(&was)))
	}
	r.landed(claimed)
	r.eventualInserts(ctx, OpSave, cons, e, evTS)
	return nil
}

// deleteVersioned runs the conditional DELETE of e, then the deletes of
// its non-unique lookup rows and the release of the claims it held (left,
// read before the DELETE).
func (r *Repo[T]) deleteVersioned(ctx context.Context, op string, e *T, c *call, cons kandra.Consistency, lookupDels []*Query, left *owned) error {
	serial, err := r.serialCons(op, c)
	if err != nil {
		return err
	}
	st := r.st.DeleteIfVersion()
	q := &Query{Statement: st, Values: r.bindWrite(st, c, e, e), Consistency: cons, SerialConsistency: serial}
	applied, err := r.exec(ctx, OpDelete, q)
	if err != nil {
		return err
	}
	if !applied {
		return r.lockErr(e, fmt.Sprintf("%s = %v expected, the row has another version or is gone: nothing was deleted; Get it again and retry, or ForceDelete", r.ts.VersionColumn().Name(), r.versionOf(e)))
	}
	if len(lookupDels) > 0 {
		if err := r.batchExec(ctx, OpDelete, cons, lookupDels, nil); err != nil {
			// The row is gone: the lookup rows left point to nothing, and
			// reads skip them. The listener hears of it.
			cp := new(T)
			*cp = *e
			r.rt.eventualFailed(lookupDels[0].Statement.TableName(), cp, err, 0)
		}
	}
	r.releaseOwned(ctx, op, e, left, c, cons)
	return nil
}

// softDeleteVersioned is SoftDelete on a versioned table: the conditional
// rewrite at the next version, e left as it was when it does not apply.
func (r *Repo[T]) softDeleteVersioned(ctx context.Context, e *T, c *call, cons kandra.Consistency) (err error) {
	const op = "SoftDelete"
	if err := r.checkVersioned(op, c, e); err != nil {
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
	applied, err := r.exec(ctx, OpSoftDelete, &Query{Statement: st, Values: r.bindWrite(st, c, e, &was), Consistency: cons, SerialConsistency: serial})
	if err != nil {
		return err
	}
	if !applied {
		return r.lockErr(&was, fmt.Sprintf("%s = %v expected, the row has another version or is gone: nothing was written; Get it again and retry", r.ts.VersionColumn().Name(), r.versionOf(&was)))
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

// ghost reports a row of a versioned table read without a version: what
// remains of a ForceSave (an INSERT, with its row marker) once a soft
// delete's cells expired. It reads as not found.
func (r *Repo[T]) ghost(e *T) bool {
	return r.ts.VersionColumn() != nil && r.versionZero(e)
}
