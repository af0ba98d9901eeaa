package kstore

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/catalog"
	"github.com/kandra-go/kandra/kerrors"
)

// Save validates e, stamps it (generated ids that are zero, CreatedAt when
// zero, UpdatedAt, the initial version when zero; times truncated to the
// column's precision) and upserts it with its BATCH lookup rows in one
// LOGGED BATCH, then writes its EVENTUAL lookup rows asynchronously. Its
// unique lookup values are claimed first: a value another live entity
// holds is an *kerrors.UniqueError, and nothing is written. A validation
// failure is a *kerrors.ValidationError and nothing is written; a refused
// Save leaves e as it was. Save does not know e's earlier values: a value
// e left stays in its lookup (reads skip it; Update moves values).
// Options: TTL, Timestamp, Consistency, SerialConsistency. Save on a
// counter table is a *kerrors.ArgumentError.
//
// On a table with a Version, Save never overwrites another version: an
// entity with a zero version is written only if the row of its key has no
// version (there is none, or it was written before the table had a
// Version: a Get of it reads version zero), and one with a version only if
// the row still has that version; then e gets the next one. Each is a
// lightweight transaction after the BATCH lookup rows (see versioned.go).
// A stale copy, or a new entity whose key has a versioned row, is an
// *kerrors.OptimisticLockError, the row is not written and e is left as it
// was; SaveIfNotExists refuses any existing row. A Timestamp is refused
// on such a table (its writes are conditional); ForceSave writes without
// the check.
func (r *Repo[T]) Save(ctx context.Context, e *T, opts ...WriteOption) error {
	return r.save(ctx, "Save", e, opts, false)
}

// ForceSave is Save without the version check of a versioned table: it
// upserts e as it is (its version stamped to the first one when zero),
// overwriting whatever version the row has, by an UPDATE (ForceUpdate, in
// the LOGGED BATCH of its lookup rows), so that it leaves no row marker. It
// is for repairs and imports; on a table without a
// Version it is Save.
func (r *Repo[T]) ForceSave(ctx context.Context, e *T, opts ...WriteOption) error {
	return r.save(ctx, "ForceSave", e, opts, true)
}

func (r *Repo[T]) save(ctx context.Context, op string, e *T, opts []WriteOption, force bool) error {
	sc := getScratch(opts)
	defer sc.release()
	c := &sc.c
	cons, _, err := r.enter(ctx, entry{op: op, kind: writes}, c, arg[T]{name: "entity", e: e, key: r.key, insert: true, written: true})
	if err != nil {
		return err
	}
	defer r.rt.leave()
	if !force && r.ts.VersionColumn() != nil {
		return r.saveVersioned(ctx, e, c, cons)
	}
	// The statements bind e's field addresses, so they are built (and the
	// batch limit checked) before the stamps are written into e: a refusal
	// leaves e as it was.
	ts := insertTS(c)
	ins := r.st.Insert(using(c))
	if r.ts.VersionColumn() != nil {
		// ForceSave writes a versioned row by an UPDATE too, so that it
		// leaves no row marker (see versioned.go).
		ins = r.st.ForceUpdate(using(c))
	}
	row := sc.query(ins)
	row.Values = r.appendWrite(sc.values(ins.NumParams()), sc, ins, c, e, nil)
	for _, i := range r.batch {
		if !r.emptyAt(i, r.lookupValue(i, e)) { // the stamps never make a value empty
			r.lookupInsertIn(sc, i, e, ts)
		}
	}
	if err := r.checkBatchSize(op, sc.entries); err != nil {
		return err
	}
	var was T
	if len(r.unique) > 0 {
		was = *e // put back when a claim refuses the write
	}
	r.stampInsert(e)
	evTS := r.eventualTS(c)
	var claimed *claims[T]
	if len(r.unique) > 0 {
		claimed, err = r.claimAll(ctx, op, e, nil, c, cons)
		if err == nil {
			err = r.fresh(ctx, op, claimed, c, cons)
		}
		if err != nil {
			*e = was
			return err
		}
	}
	// Measured above: the stamps (a generated UUID, times, a version) have
	// the same size zero or not.
	if err := r.batchSend(ctx, kandra.OpSave, cons, sc.entries, &sc.batch, true); err != nil {
		return err // the claims stay: the batch may have landed
	}
	r.landed(claimed)
	r.eventualInserts(ctx, kandra.OpSave, cons, e, evTS)
	return nil
}

// eventualIfUnknown queues e's EVENTUAL lookup rows after an insert whose
// answer was lost (err matches ErrUnknownOutcome): if it applied, they
// are due, and nothing else would write them; if it did not, they point
// to an entity that does not hold their values, which reads skip.
func (r *Repo[T]) eventualIfUnknown(ctx context.Context, op string, cons kandra.Consistency, e *T, ts int64, err error) {
	if errors.Is(err, kerrors.ErrUnknownOutcome) {
		r.eventualInserts(ctx, op, cons, e, ts)
	}
}

// eventualInserts writes the EVENTUAL lookup rows of a copy of e, at
// timestamp ts: the call's, taken before the write, so that a later move
// of the value wins over the insert even when the insert runs after it.
func (r *Repo[T]) eventualInserts(ctx context.Context, op string, cons kandra.Consistency, e *T, ts int64) {
	n := 0
	for _, i := range r.eventual {
		if !r.emptyAt(i, r.lookupValue(i, e)) {
			n++
		}
	}
	if n == 0 {
		return
	}
	w, _ := r.inserts.Get().(*eventualInsert[T])
	if w == nil {
		w = &eventualInsert[T]{r: r}
	}
	w.op, w.cons, w.ts, w.e = op, cons, ts, *e
	// Counted before the first write is queued: a worker may finish it
	// before the next is. Once the last is queued, w may already be back in
	// the pool: the loop reads only e (the caller's, unchanged during the
	// call) and stops.
	w.pending.Store(int32(n))
	for _, i := range r.eventual {
		if r.emptyAt(i, r.lookupValue(i, e)) {
			continue
		}
		r.rt.asyncWrite(ctx, r.lookups[i].Name(), &w.e, w, i)
		if n--; n == 0 {
			return
		}
	}
}

// eventualMoves writes, for an Update, the EVENTUAL lookup rows of
// lookups idx (every EVENTUAL one the Update touches) at timestamp ts:
// for each, old's row is deleted if the value changed, then nw's is
// written, on the workers, from copies of both.
func (r *Repo[T]) eventualMoves(ctx context.Context, cons kandra.Consistency, old, nw *T, idx []int, ts int64) {
	w, _ := r.inserts.Get().(*eventualInsert[T])
	if w == nil {
		w = &eventualInsert[T]{r: r}
	}
	w.op, w.cons, w.ts, w.e, w.old, w.moved = kandra.OpUpdate, cons, ts, *nw, *old, 0
	for _, i := range idx {
		if ov := r.lookupValue(i, old); !r.sameLookup(i, old, nw) && !r.emptyAt(i, ov) {
			w.moved |= 1 << i
		}
	}
	w.pending.Store(int32(len(idx)))
	for k, i := range idx {
		r.rt.asyncWrite(ctx, r.lookups[i].Name(), &w.e, w, i)
		if k == len(idx)-1 {
			return // w may be back in the pool: see eventualInserts
		}
	}
}

// eventualInsert is the EVENTUAL lookup rows of one write: a copy of the
// entity as it was when the call returned, shared by its lookups. It goes
// back to the Repo's pool when its last write is done, unless a write was
// not started or failed: the listener was then given &e, which must stay
// the entity it was told about.
type eventualInsert[T any] struct {
	r       *Repo[T]
	op      string
	cons    kandra.Consistency
	ts      int64        // the rows' write timestamp
	pending atomic.Int32 // writes not yet done
	kept    atomic.Bool  // a listener has &e: never reused
	e       T
	// An Update's moves: bit i says lookup i's value changed, and old's
	// row of it is deleted (at ts) before e's is written.
	moved uint64
	old   T
}

// maxMoves is the lookups an eventualInsert can move (the bits of moved);
// an Update of a table with more moves its EVENTUAL rows by closures.
const maxMoves = 64

// write deletes old's row of lookup i if it moved, and inserts e's (if
// e has a value), on a worker.
func (w *eventualInsert[T]) write(ctx context.Context, i int) error {
	sc := getScratch[option](nil)
	defer sc.release()
	if w.moved&(1<<i) != 0 {
		q := w.r.lookupDeleteIn(sc, i, &w.old, w.ts)
		q.Consistency = w.cons
		if _, err := w.r.execAs(ctx, w.op, q, true); err != nil {
			return err
		}
	}
	if w.r.emptyAt(i, w.r.lookupValue(i, &w.e)) {
		return nil // a move to no value: the old row is all there was to do
	}
	s := w.r.st.Lookup(i).Insert()
	if w.ts != noTS {
		s = w.r.st.Lookup(i).InsertAt()
	}
	q := sc.query(s)
	q.Values = catalog.AppendColumns(w.r.t, s, &w.e, sc.values(s.NumParams()))
	if w.ts != noTS {
		// The timestamp by reference, as the field values are: boxing the
		// int64 would allocate on every Save.
		q.Values = append(q.Values, &w.ts)
	}
	q.Consistency = w.cons
	_, err := w.r.execAs(ctx, w.op, q, true)
	return err
}

// done is called once per write, after write and after the listener has
// heard of its failure, or instead of write when it was not started.
func (w *eventualInsert[T]) done(reported bool) {
	if reported {
		w.kept.Store(true)
	}
	if w.pending.Add(-1) != 0 || w.kept.Load() {
		return
	}
	var zero T
	w.e, w.old, w.op, w.moved = zero, zero, "", 0 // hold no entity while pooled
	w.r.inserts.Put(w)
}

// SaveIfNotExists is Save as a lightweight transaction (INSERT ... IF NOT
// EXISTS). It reports whether the row was written. Its BATCH lookup rows
// are written before it, in one LOGGED BATCH (a conditional statement
// cannot join a multi-table batch); when the row was not written, they
// point to an entity that does not hold their values, and reads skip them.
// On a versioned table too it refuses any existing row, one without a
// version included (where a Save of a zero version would write).
// Options: TTL, Consistency, SerialConsistency, Current (a Timestamp
// does not compile). A keyspace whose targets include kandra.Scylla2025Tablets
// refuses it with a *kerrors.ArgumentError before anything is sent: that
// server refuses lightweight transactions in a tablets keyspace.
func (r *Repo[T]) SaveIfNotExists(ctx context.Context, e *T, opts ...InsertOption) (bool, error) {
	const op = "SaveIfNotExists"
	sc := getScratch(opts)
	defer sc.release()
	c := &sc.c
	cons, serial, err := r.enter(ctx, entry{op: op, kind: writes, serial: true}, c, arg[T]{name: "entity", e: e, key: r.key, insert: true, written: true})
	if err != nil {
		return false, err
	}
	defer r.rt.leave()
	return r.saveIfNotExists(ctx, sc, cons, serial, e)
}

// saveIfNotExists is SaveIfNotExists past enter, apart so that its many
// returns leave SaveIfNotExists's defers open-coded (see update).
func (r *Repo[T]) saveIfNotExists(ctx context.Context, sc *scratch, cons, serial kandra.Consistency, e *T) (bool, error) {
	const op = "SaveIfNotExists"
	c := &sc.c
	if t := r.rt.ks.Targets(); t&kandra.Scylla2025Tablets != 0 {
		return false, r.argErr(op, "the keyspace's Targets", "they include "+kandra.Scylla2025Tablets.String()+
			", which refuses the lightweight transaction SaveIfNotExists is (\"LWT is not yet supported with tablets\"; 2025.4 lifts it once every node has the lwt_with_tablets feature, 2026.1 always): "+
			"leave kandra.Scylla2025Tablets out of KeyspaceSpec.Targets (kandra then creates a vnodes keyspace on ScyllaDB 2025.x), or use Save")
	}
	was := *e // put back when the row is not written
	r.stampInsert(e)
	ts := insertTS(c)
	// On a versioned table too: an UPDATE IF version IN (null, 0) would
	// take over a live row without a version. The row marker it writes
	// does not outlive a soft delete, which rewrites it with its TTL (see
	// versioned.go).
	ins := r.st.InsertIfNotExists(using(c))
	row := sc.query(ins)
	row.Values, row.Consistency, row.SerialConsistency = r.appendWrite(sc.values(ins.NumParams()), sc, ins, c, e, nil), cons, serial
	for _, i := range r.batch {
		if !r.emptyAt(i, r.lookupValue(i, e)) {
			r.lookupInsertIn(sc, i, e, ts)
		}
	}
	entries := sc.entries[1:] // the lookup rows
	// The size check is of the batch a Save of e would send (the row and
	// its lookup rows), so that what SaveIfNotExists writes a Save can
	// rewrite.
	if len(entries) > 0 {
		if err := r.checkBatchSize(op, sc.entries); err != nil {
			*e = was
			return false, err
		}
	}
	evTS := r.eventualTS(c)
	claimed, err := r.claimAll(ctx, op, e, nil, c, cons)
	if err != nil {
		*e = was
		return false, err
	}
	// The lookup rows before the LWT (see saveVersioned for why).
	if len(entries) > 0 {
		if err := r.batchSend(ctx, kandra.OpSaveIfNotExists, cons, entries, &sc.batch, true); err != nil { // a part of the batch checked
			r.giveBack(ctx, op, claimed, c, cons) // the row was not sent
			*e = was
			return false, err
		}
	}
	if err := r.fresh(ctx, op, claimed, c, cons); err != nil {
		*e = was
		return false, err
	}
	if c.current != nil {
		cur, ok := c.current.(*T)
		if !ok {
			r.giveBack(ctx, op, claimed, c, cons)
			*e = was
			return false, r.argErr(op, "Current", fmt.Sprintf("a %T, not a *%s", c.current, r.typeName))
		}
		row.Current = catalog.AppendResult(r.t, ins, cur, make([]any, 0, ins.NumResult()))
	}
	applied, err := r.exec(ctx, kandra.OpSaveIfNotExists, row)
	if err != nil {
		r.eventualIfUnknown(ctx, kandra.OpSaveIfNotExists, cons, e, evTS, err)
		return false, err // the claims stay: the LWT may have applied
	}
	if !applied {
		r.giveBack(ctx, op, claimed, c, cons)
		*e = was
		return false, nil
	}
	r.landed(claimed)
	r.eventualInserts(ctx, kandra.OpSaveIfNotExists, cons, e, evTS)
	return true, nil
}
