package kstore

import (
	"context"
	"reflect"
	"strconv"

	"github.com/kandra-go/kandra"
)

// MaxBatchEntities bounds the entities of one SaveAll or DeleteAll, under
// the batch byte limit: more statements than this in one batch load the
// coordinator for little gain over several batches.
const MaxBatchEntities = 1000

// SaveAll saves es in one batch (see Batches in the package doc), each as Save
// would: validated, its generated id, CreatedAt and UpdatedAt stamped, its
// BATCH lookup rows in the batch, its EVENTUAL ones after it. A nil entity
// or one that Save refuses refuses the whole call before anything is
// sent. Observed as kandra.OpSaveAll. Options: TTL, Timestamp,
// Consistency.
func (r *Repo[T]) SaveAll(ctx context.Context, es []*T, opts ...WriteOption) error {
	const op = "SaveAll"
	sc := getScratch(opts)
	defer sc.release()
	c := &sc.c
	cons, _, err := r.enter(ctx, entry{op: op, kind: writes}, c)
	if err != nil {
		return err
	}
	defer r.rt.leave()
	if err := r.checkAll(op, len(es)); err != nil {
		return err
	}
	for i, e := range es {
		if err := r.checkArg(op, &arg[T]{name: "entities[" + strconv.Itoa(i) + "]", e: e, key: r.key, insert: true, written: true}); err != nil {
			return err
		}
	}
	if err := r.distinctKeys(op, es); err != nil {
		return err
	}
	// As in Save, the statements bind the fields' addresses and are built,
	// and the batch checked, before the stamps are written.
	ts := insertTS(c)
	ins := r.st.Insert(using(c))
	for _, e := range es {
		row := sc.query(ins)
		row.Values = r.appendWrite(sc.values(ins.NumParams()), sc, ins, c, e, nil)
		for _, i := range r.batch {
			if !r.emptyAt(i, r.lookupValue(i, e)) {
				r.lookupInsertIn(sc, i, e, ts)
			}
		}
	}
	if err := r.checkBatchSize(op, sc.entries); err != nil {
		return err
	}
	for _, e := range es {
		r.stampInsert(e)
	}
	evTS := r.eventualTS(c)
	// The generated ids are stamped now: only then is the partition of
	// each entity known.
	if err := r.batchAll(ctx, kandra.OpSaveAll, cons, sc, es); err != nil {
		return err
	}
	for _, e := range es {
		r.eventualInserts(ctx, kandra.OpSaveAll, cons, e, evTS)
	}
	return nil
}

// DeleteAll hard-deletes the rows of es's primary keys in one batch (see
// the atomicity above), each with this entity's own rows of its
// non-unique lookup values, as HardDelete would. A table with SoftDelete
// is refused (an *kerrors.ArgumentError): soft-delete each entity with
// Delete. Observed as kandra.OpDeleteAll. Options: Timestamp, Consistency.
func (r *Repo[T]) DeleteAll(ctx context.Context, es []*T, opts ...DeleteOption) error {
	const op = "DeleteAll"
	sc := getScratch(opts)
	defer sc.release()
	c := &sc.c
	cons, _, err := r.enter(ctx, entry{op: op, kind: writesAny}, c)
	if err != nil {
		return err
	}
	defer r.rt.leave()
	if err := r.checkAll(op, len(es)); err != nil {
		return err
	}
	if r.ts.SoftDelete() != nil {
		return r.argErr(op, "entities", r.ts.Name()+" soft-deletes its rows, which DeleteAll does not: Delete each entity")
	}
	for i, e := range es {
		if err := r.checkArg(op, &arg[T]{name: "entities[" + strconv.Itoa(i) + "]", e: e, key: r.key}); err != nil {
			return err
		}
	}
	if err := r.distinctKeys(op, es); err != nil {
		return err
	}
	st := r.st.Delete(using(c))
	ts := int64(noTS)
	for _, e := range es {
		row := sc.query(st)
		row.Values = r.appendWrite(sc.values(st.NumParams()), sc, st, c, e, nil)
		for i, l := range r.lookups {
			if !l.IsUnique() && !r.emptyAt(i, r.lookupValue(i, e)) {
				if ts == noTS {
					ts = lookupTS(c)
				}
				r.lookupDeleteIn(sc, i, e, ts)
			}
		}
	}
	if err := r.checkBatchSize(op, sc.entries); err != nil {
		return err
	}
	return r.batchAll(ctx, kandra.OpDeleteAll, cons, sc, es)
}

// checkAll refuses what no batch of n entities of the table can do.
func (r *Repo[T]) checkAll(op string, n int) error {
	switch {
	case n > MaxBatchEntities:
		return r.argErr(op, "entities", strconv.Itoa(n)+" entities, over MaxBatchEntities ("+strconv.Itoa(MaxBatchEntities)+"): write them in smaller groups")
	case r.ts.VersionColumn() != nil:
		return r.argErr(op, "entities", r.ts.Name()+" is versioned: each write is a lightweight transaction, which a batch over several partitions cannot hold; Save or Delete each entity")
	case len(r.unique) > 0:
		return r.argErr(op, "entities", r.ts.Name()+" has a UNIQUE lookup, whose claims are lightweight transactions, which a batch over several partitions cannot hold; Save or Delete each entity")
	}
	return nil
}

// batchAll runs sc's entries: nothing for no entity, one statement alone,
// an UNLOGGED BATCH when the entries are the rows of es alone and es is
// one partition, a LOGGED BATCH otherwise. Its callers have measured it
// (SaveAll before the stamps, which keep its size).
func (r *Repo[T]) batchAll(ctx context.Context, op string, cons kandra.Consistency, sc *scratch, es []*T) error {
	switch {
	case len(sc.entries) == 0:
		return nil
	case len(sc.entries) > 1 && len(sc.entries) == len(es) && r.onePartition(es):
		sc.batch.Unlogged = true
	}
	return r.batchSend(ctx, op, cons, sc.entries, &sc.batch, true)
}

// onePartition reports whether every entity of es is stored in the first
// one's partition.
func (r *Repo[T]) onePartition(es []*T) bool {
	for _, e := range es[1:] {
		if !r.samePartition(es[0], e) {
			return false
		}
	}
	return true
}

// distinctKeys refuses two entities of es with one primary key: in one
// batch their writes carry one timestamp, and the server would keep, cell
// by cell, the larger of the two values, a row neither entity is. A
// generated key still zero is filled on insert and never collides.
func (r *Repo[T]) distinctKeys(op string, es []*T) error {
	seen := make(map[string]int, len(es))
	var key []byte
	for i, e := range es {
		fresh := false
		for _, c := range r.key {
			if _, gen := c.GeneratedUUID(); gen {
				p, _ := c.Pointer(e)
				fresh = fresh || reflect.ValueOf(p).Elem().IsZero()
			}
		}
		if fresh {
			continue
		}
		key = r.appendStoredKey(key[:0], e)
		if j, ok := seen[string(key)]; ok {
			return r.argErr(op, "entities["+strconv.Itoa(i)+"]", "has the primary key of entities["+strconv.Itoa(j)+"] as the server stores it: one batch cannot write a row twice (the server would merge the two, cell by cell); keep one of them")
		}
		seen[string(key)] = i
	}
	return nil
}
