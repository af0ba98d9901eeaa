package kstore

import (
	"context"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

// The one entry of every call. Each public call of a Repo, a Lookup and a
// Counter starts with enter, which makes the same checks in the same
// order, each refusal with the same error kind whatever the call:
//
//  1. the context (a nil one is a *kerrors.ArgumentError) and the store
//     (closed, or the context done: a *kerrors.QueryError matching
//     kerrors.ErrClosed or the context's error); past this the call is
//     counted in (Close waits for it) and must end with r.rt.leave();
//  2. the table's kind: a counter table takes a Counter's calls, deletes
//     and reads only, and a call on static columns needs a table that
//     has them (a *kerrors.ArgumentError);
//  3. each entity argument, in order: not nil, its key columns set as the
//     servers need them, and, for an entity written, its values (an
//     Update checks only the values it writes, after the options: see
//     changedOnly) and the
//     table's validators (*kerrors.ArgumentError, *kerrors.ValueError,
//     *kerrors.ValidationError);
//  4. the options: a write's TTL and Timestamp, then the consistency (a
//     read's or a write's), then the serial consistency of a call that
//     makes lightweight transactions (*kerrors.ArgumentError).
//
// Index, Raw, GetMany, SaveAll and DeleteAll enter the same way; the
// last three then check each of their entities with the same checkArg.
// What a call checks beyond these (a batch's size, a range's bounds, a
// value's type, Decrement's delta before anything) comes after enter, on
// the resolved options.

// callKind is what a call does to the table, for enter.
type callKind uint8

const (
	// reads reads rows: any table, the read consistency.
	reads callKind = iota
	// writes writes rows: not a counter table; the write
	// options and the write consistency.
	writes
	// writesAny deletes rows or runs a raw write: any table (a counter
	// table's too); the write options and the write consistency.
	writesAny
	// counts changes counters (a Counter's calls): the write consistency.
	counts
)

// entry is one call as enter checks it.
type entry struct {
	op   string
	kind callKind
	// statics: the call reads or writes a partition's static columns,
	// which the table must have.
	statics bool
	// serial: the call makes lightweight transactions, at a serial
	// consistency enter resolves. A write on a versioned table or one
	// with unique lookups makes them too: enter checks the option then.
	serial bool
	// takes are the read options beyond the common ones the call reads
	// by (Columns, WithTimes, WithScores); another given is refused.
	takes takes
}

// takes is a set of the read options only some reads take.
type takes uint8

const (
	takesColumns takes = 1 << iota // Columns
	takesTimes                     // WithTimes
	takesScores                    // WithScores
)

// arg is one entity argument of a call.
type arg[T any] struct {
	name string // how the call names it: "entity", "key", "entities[3]"
	e    *T
	// key are the columns that must be set (r.key, r.partition), nil for
	// none.
	key []*kandra.ColumnSchema
	// insert: an entity the call inserts: the key columns it stamps (a
	// generated id, CreatedAt) may be zero.
	insert bool
	// written: an entity the call writes: its values and the validators
	// are checked.
	written bool
	// changedOnly: of an entity written, the call checks the values of
	// the columns it writes itself, once it knows them (an Update writes
	// what changed: it checks those as it compares them, after the
	// options). The validators are checked here all the same.
	changedOnly bool
}

// enter starts call en with options c and entity arguments args: see
// the checks above. On success the call is counted in and must end with
// r.rt.leave(); on an error it is not. serial is zero unless the call
// makes lightweight transactions (en.serial, or a write on a versioned
// table or one with unique lookups).
func (r *Repo[T]) enter(ctx context.Context, en entry, c *call, args ...arg[T]) (cons, serial kandra.Consistency, err error) {
	if ctx == nil {
		return 0, 0, r.argErr(en.op, "ctx", "a nil context.Context (pass context.Background() or the request's context)")
	}
	if !r.rt.enter() {
		return 0, 0, queryErr(en.op+" on "+r.ts.Name()+": the store is closed", kerrors.ErrClosed)
	}
	if cons, serial, err = r.check(ctx, en, c, args); err != nil {
		r.rt.leave()
	}
	return cons, serial, err
}

// check is enter's checks past the store's.
func (r *Repo[T]) check(ctx context.Context, en entry, c *call, args []arg[T]) (cons, serial kandra.Consistency, err error) {
	if err := ctx.Err(); err != nil {
		return 0, 0, queryErr(en.op+" on "+r.ts.Name()+": context done", err)
	}
	if en.kind == writes && r.ts.IsCounterTable() {
		return 0, 0, r.argErr(en.op, "the table", r.ts.Name()+" is a counter table: change its counters with a Counter's Increment and Decrement (kstore.CounterOf)")
	}
	if en.statics && r.st.SelectStatic() == nil {
		return 0, 0, r.argErr(en.op, "the table", r.ts.Name()+" has no static columns (kandra.Static)")
	}
	for i := range args {
		if err := r.checkArg(en.op, &args[i]); err != nil {
			return 0, 0, err
		}
	}
	if !c.hasNulls && en.kind == writes {
		// A soft delete rewrites the row with its TTL and must write
		// every cell: a cell left unset would outlive the TTL.
		c.omitNulls = r.ts.OmitsNulls()
	}
	if err := r.checkTakes(en, c); err != nil {
		return 0, 0, err
	}
	if en.kind == reads {
		cons, err = r.readCons(en.op, c)
	} else {
		if err := r.checkWrite(en.op, c); err != nil { // a Counter's calls take no TTL nor Timestamp
			return 0, 0, err
		}
		cons, err = r.writeCons(en.op, c)
	}
	if err == nil && (en.serial || (en.kind == writes || en.kind == writesAny) && (r.ts.VersionColumn() != nil || len(r.unique) > 0)) {
		serial, err = r.serialCons(en.op, c)
	}
	return cons, serial, err
}

// checkTakes refuses a read option the call does not take.
func (r *Repo[T]) checkTakes(en entry, c *call) error {
	if !c.hasColumns && !c.hasTimes && !c.scores {
		return nil // most calls: no list of the options to build
	}
	for _, o := range []struct {
		given bool
		t     takes
		name  string
	}{{c.hasColumns, takesColumns, "Columns"}, {c.hasTimes, takesTimes, "WithTimes"}, {c.scores, takesScores, "WithScores"}} {
		if o.given && en.takes&o.t == 0 {
			return r.argErr(en.op, o.name, en.op+" does not take "+o.name+" (see \"Call options\" in kstore's package doc)")
		}
	}
	return nil
}

// checkArg checks one entity argument.
func (r *Repo[T]) checkArg(op string, a *arg[T]) error {
	if err := r.checkEntity(op, a.name, a.e); err != nil {
		return err
	}
	if err := r.checkKey(op, a.e, a.key, a.insert); err != nil {
		return err
	}
	if !a.written {
		return nil
	}
	if !a.changedOnly {
		if err := r.checkValues(a.e); err != nil {
			return err
		}
	}
	return r.t.Validate(a.e)
}

// writeCons resolves a write's consistency (the call's, the table's, the
// store's) and checks it for the kind of write.
func (r *Repo[T]) writeCons(op string, c *call) (kandra.Consistency, error) {
	cons := r.rt.cfg.consistency
	if c.hasCons {
		cons = c.cons
	} else if v, ok := r.ts.WriteConsistency(); ok {
		cons = v
	}
	return cons, r.checkConsistency(op, cons, false, r.ts.IsCounterTable())
}

// readCons resolves a read's consistency and checks it.
func (r *Repo[T]) readCons(op string, c *call) (kandra.Consistency, error) {
	cons := r.rt.cfg.consistency
	if c.hasCons {
		cons = c.cons
	} else if v, ok := r.ts.ReadConsistency(); ok {
		cons = v
	}
	return cons, r.checkConsistency(op, cons, true, false)
}

// serialCons resolves the serial consistency of a call's lightweight
// transactions (its own, or the store's).
func (r *Repo[T]) serialCons(op string, c *call) (kandra.Consistency, error) {
	s := r.rt.cfg.serial
	if c.hasSerial {
		s = c.serial
	}
	if !s.IsSerial() {
		return 0, r.argErr(op, "SerialConsistency", s.String()+" is not SERIAL or LOCAL_SERIAL")
	}
	return s, nil
}
