package kstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
)

// Units of work: typed writes across the repositories of one store, sent
// as one batch. The steps are built by UnitRepo (unitsteps.go); this file
// plans the batch, checks what the servers would refuse, and sends it.

// MaxUnitSteps bounds the steps of one Unit, as MaxBatchEntities bounds a
// SaveAll.
const MaxUnitSteps = MaxBatchEntities

// Unit is a unit of work: writes of several repositories of one store
// (saves, partial writes, deletes, range deletes, counter updates,
// prepared statements), collected by each repository's In(u) and sent by
// Apply as one batch, so that they are applied all or none.
//
//	u := store.Unit()
//	fence := shards.In(u).Patch(fenceKey, kstore.Set(rangeF, mine).If(kstore.Eq(rangeF, mine)))
//	shards.In(u).Save(&task) // a row of the fence's partition
//	applied, err := u.Apply(ctx)
//	// !applied: fence.Outcome().Current holds the range id that beat it
//
// What a unit guarantees, and what it costs:
//   - Writes of one partition of one table go as an UNLOGGED BATCH: the
//     server applies them as one mutation, atomically and in isolation (no
//     reader sees some of them). A unit of one write sends it alone.
//   - Writes across partitions or tables go as a LOGGED BATCH: the
//     coordinator first writes the batch to its batch log (on two other
//     nodes), so that the writes are all applied eventually, even if it
//     fails midway; they are not isolated (a reader may see some of them
//     before the others), and the log costs a round trip and a write
//     more. Counter updates go as a COUNTER BATCH, alone.
//   - A unit with a condition (a version, IF NOT EXISTS, IF EXISTS, a
//     Patch's If, a DeleteIf) is a lightweight transaction, which the
//     servers take only within one partition of one table: every write of
//     such a unit must be of that partition. It applies whole or not at
//     all; when it does not, each step's Outcome holds the row of its
//     key the server returned, so the caller can tell which condition
//     failed. It is sent once (never retried).
//
// Each step keeps what its single call keeps: generated ids, CreatedAt,
// UpdatedAt and versions are stamped (versions moved only when the unit
// applied), BATCH lookup rows join the batch (in a conditional unit, which
// cannot hold another table, they are written before it, as a versioned
// Save writes them), EVENTUAL lookup rows are written after it, unique
// lookup values are claimed before it and given back if it does not
// apply. What a step cannot keep within one batch is refused when it is
// added, naming the call that can do it; Apply returns the first refusal
// and sends nothing.
//
// A step binds its entity's fields by address: their values are read
// when Apply sends them. A Unit is for one goroutine and one Apply.
type Unit struct {
	rt    *Store
	steps []*stepBase
	err   error
	done  bool
	// rows are the rows a conditional unit that did not apply returned,
	// each a *T of the unit's table.
	rows []any
	// The memory of a small unit's steps and batch, in the Unit's own
	// allocation: most units are a few writes.
	first   [4]*stepBase
	batchOf adapter.Batch
	sizer   batchSizer
	entries [8]*adapter.Query
}

// Unit returns an empty unit of work of the store's repositories.
func (s *Store) Unit() *Unit {
	u := &Unit{rt: s}
	u.steps = u.first[:0]
	return u
}

// Err is the first refusal of a step added to u (nil when there is none):
// Apply returns it without sending anything.
func (u *Unit) Err() error { return u.err }

// Len is the number of steps added to u.
func (u *Unit) Len() int { return len(u.steps) }

// stepBase is one step of a unit: its statements and what the unit asks
// of it before and after sending.
type stepBase struct {
	op    string // the call's name: "Save", "Patch"...
	index int
	repo  string // the table written, for messages
	sc    *scratch
	// The statements: row, the step's own (in the batch); lookups, its
	// BATCH lookup rows (in the batch, or before a conditional one);
	// after, its lookup deletes (in the batch, or after a conditional one
	// that applied).
	row      []*adapter.Query
	lookups  []*adapter.Query
	after    []*adapter.Query
	cons     kandra.Consistency
	cond     bool     // a conditional statement
	condKind condKind // its kind of condition
	// readsList: a list change the server makes by reading the list
	// (SetAt, RemoveValues), which a conditional batch reads only of the
	// rows its conditions are on.
	readsList bool
	counter   bool
	hasTS     bool
	// What it writes, for the unit's checks: filled by keys at Apply,
	// after the stamps (a generated id makes the key).
	rowDel    bool     // deletes the row (Delete, DeleteIf)
	rangeDel  bool     // deletes a range of rows
	cells     []cellOf // the cells it writes (fillCells)
	cellsDone bool     // cells is filled
	// part is the table and the stored partition key, key part and the
	// stored clustering key (nil for a range): bytes of the step's
	// scratch, set by setKeys at Apply.
	part, key []byte
	raw       bool // a prepared statement, whose row kandra does not know
	// typed is the step's repository side (its *Step[T]): its key, its
	// hooks, its size estimate, its row among those returned.
	typed  typedStep
	currOf *adapter.Statement // the statement whose Result columns a conditional step's current fills
}

// add appends s to u, or records err as u's refusal.
func (u *Unit) add(s *stepBase, err error) {
	if u.err != nil {
		return
	}
	switch {
	case err != nil:
		// The error names the step: an argument's in its Op, another
		// wrapped.
		var ae *kerrors.ArgumentError
		if errors.As(err, &ae) {
			cp := *ae
			cp.Op = "unit step " + strconv.Itoa(len(u.steps)) + ", " + cp.Op
			u.err = &cp
		} else {
			u.err = fmt.Errorf("unit step %d (%s on %s): %w", len(u.steps), s.op, s.repo, err)
		}
	case u.done:
		u.err = &kerrors.ArgumentError{Op: "Unit", Arg: "step " + strconv.Itoa(len(u.steps)), Message: "added after Apply: a Unit is applied once; make a new one"}
	case len(u.steps) == MaxUnitSteps:
		u.err = &kerrors.ArgumentError{Op: "Unit", Arg: "step " + strconv.Itoa(len(u.steps)), Message: "over MaxUnitSteps (" + strconv.Itoa(MaxUnitSteps) + "): split the writes in several units"}
	default:
		s.index = len(u.steps)
		u.steps = append(u.steps, s)
		return
	}
	if s.sc != nil {
		s.sc.release()
		s.sc = nil
	}
}

// UnitOption configures Apply: Consistency and SerialConsistency.
type UnitOption interface {
	option
	unitOption()
}

func (ConsistencyOption) unitOption()       {}
func (SerialConsistencyOption) unitOption() {}

// Apply sends u's steps as one batch (see Unit) and reports whether it
// applied: always true when err is nil, but for a conditional unit whose
// conditions were not met (then each conditional step's Outcome says
// what the server found). A unit with no step sends nothing.
//
// Refused before anything is sent (an *kerrors.ArgumentError naming the
// step and the rule): a step's refusal (Err); a conditional unit with a
// write of another table or partition, or with a Timestamp; counter
// updates with other writes; two steps writing one cell of a row with
// different values (a column, a map's key or a set's element, a list, a
// counter; a row delete and a write of the row, a range delete and a
// write of its partition: the batch gives them one timestamp, and the
// server keeps, cell by cell, the larger value or the tombstone), while
// steps writing other cells of one row are merged as the server merges
// them (a Save's columns left unset by OmitNulls are not its cells); steps whose tables ask for different
// write consistencies, without Consistency; a batch over the batch limit
// (kerrors.ErrBatchTooLarge). An error after which the unit may have
// applied matches kerrors.ErrUnknownOutcome when the unit is not
// idempotent (a condition, a counter, a list append): read before
// writing again. Options: Consistency, SerialConsistency.
func (u *Unit) Apply(ctx context.Context, opts ...UnitOption) (applied bool, err error) {
	const op = "Unit.Apply"
	if ctx == nil {
		return false, &kerrors.ArgumentError{Op: op, Arg: "ctx", Message: "a nil context.Context (pass context.Background() or the request's context)"}
	}
	if u.done {
		return false, &kerrors.ArgumentError{Op: op, Arg: "the unit", Message: "applied already: a Unit is applied once; make a new one"}
	}
	u.done = true
	defer u.release()
	if u.err != nil {
		return false, u.err
	}
	if len(u.steps) == 0 {
		return true, nil
	}
	c := applyCall(opts) // no allocation without options: o.apply(&c) here would put c on the heap
	if !u.rt.enter() {
		return false, queryErr(op+": the store is closed", kerrors.ErrClosed)
	}
	defer u.rt.leave()
	if err := ctx.Err(); err != nil {
		return false, queryErr(op+": context done", err)
	}
	for _, s := range u.steps {
		s.typed.stamp()
		s.typed.setKeys(s)
	}
	b, err := u.plan(&c)
	if err != nil {
		u.putBack()
		return false, err
	}
	// The claims of unique lookup values, before anything is written.
	for i, s := range u.steps {
		if err := s.typed.claim(ctx); err != nil {
			u.giveBack(ctx, u.steps[:i])
			u.putBack()
			return false, err
		}
	}
	if b.IsConditional() {
		// The BATCH lookup rows cannot join a conditional batch (another
		// table): they go first, as a versioned Save writes them. Rows
		// written for a unit that then does not apply point to entities
		// that do not hold their values, which reads skip.
		var pre []*adapter.Query
		for _, s := range u.steps {
			pre = append(pre, s.lookups...)
		}
		if len(pre) > 0 {
			if err := u.send(ctx, &adapter.Batch{Entries: pre, Consistency: b.Consistency}); err != nil {
				u.giveBack(ctx, u.steps)
				u.putBack()
				return false, err
			}
		}
	}
	applied, err = u.sendUnit(ctx, b)
	if err != nil {
		// It may have applied: the claims stay (see Save).
		unknown := errors.Is(err, kerrors.ErrUnknownOutcome)
		for _, s := range u.steps {
			s.typed.failed(ctx, unknown)
		}
		return false, err
	}
	if !applied {
		u.giveBack(ctx, u.steps)
		u.putBack()
		for _, s := range u.steps {
			if s.typed != nil {
				s.typed.attachRow(u.rows)
			}
		}
		return false, nil
	}
	for _, s := range u.steps {
		s.typed.applied(ctx)
	}
	if b.IsConditional() {
		var post []*adapter.Query
		for _, s := range u.steps {
			post = append(post, s.after...)
		}
		if len(post) > 0 {
			if err := u.send(ctx, &adapter.Batch{Entries: post, Consistency: b.Consistency}); err != nil {
				// As after a versioned HardDelete: the rows are gone, the
				// lookup rows left point to nothing, which reads skip;
				// the listener hears of each.
				for _, s := range u.steps {
					if len(s.after) > 0 {
						s.typed.lostAfter(err)
					}
				}
			}
		}
	}
	return true, nil
}

// plan checks u's steps against the servers' rules and makes its batch.
func (u *Unit) plan(c *call) (*adapter.Batch, error) {
	b := &u.batchOf
	first := u.steps[0]
	refuse := func(s *stepBase, msg string) error {
		return &kerrors.ArgumentError{Op: "Unit.Apply", Arg: "step " + strconv.Itoa(s.index) + " (" + s.op + " on " + s.repo + ")", Message: msg}
	}
	var cond *stepBase
	for _, s := range u.steps {
		if s.cond && cond == nil {
			cond = s
		}
		if s.counter != first.counter {
			return nil, refuse(s, "counter updates go only with counter updates (the servers refuse a batch that mixes them): send them in a unit of their own")
		}
	}
	if cond != nil {
		for _, s := range u.steps {
			switch {
			case s.raw:
				return nil, refuse(s, "a prepared statement in a conditional unit, whose partition kandra cannot check (the servers take a batch with conditions only within one partition): write the row with a typed step, or send it in another unit")
			case !bytes.Equal(s.part, cond.part):
				return nil, refuse(s, "a conditional unit writes one partition of one table (the servers take a batch with conditions only within one partition), and step "+strconv.Itoa(cond.index)+" ("+cond.op+" on "+cond.repo+") is conditional: send this write in another unit")
			case s.hasTS:
				return nil, refuse(s, "a Timestamp in a conditional unit: the servers refuse a client timestamp in a lightweight transaction; drop it")
			}
		}
	}
	for i, s := range u.steps {
		for _, t := range u.steps[:i] {
			if msg := clash(t, s); msg != "" {
				return nil, refuse(s, msg+" (one batch gives its writes one timestamp, and the server would keep, cell by cell, the larger value or the tombstone): make it one step, or send it in another unit")
			}
		}
	}
	if cond != nil {
		if err := u.checkConditions(refuse); err != nil {
			return nil, err
		}
	}
	// The consistency: Apply's, or the one every step's table asks for.
	if c.hasCons {
		b.Consistency = c.cons
		if err := first.typed.checkCons(c.cons); err != nil {
			return nil, err
		}
	} else {
		b.Consistency = first.cons
		for _, s := range u.steps {
			if s.cons != b.Consistency {
				return nil, refuse(s, "its table is written at "+s.cons.String()+", step 0's at "+b.Consistency.String()+": pass the unit's Consistency to Apply")
			}
		}
	}
	if cond != nil {
		b.SerialConsistency = u.rt.cfg.serial
		if c.hasSerial {
			b.SerialConsistency = c.serial
		}
		if !b.SerialConsistency.IsSerial() {
			return nil, &kerrors.ArgumentError{Op: "Unit.Apply", Arg: "SerialConsistency", Message: b.SerialConsistency.String() + " is not SERIAL or LOCAL_SERIAL"}
		}
		if t := u.rt.ks.Targets(); t&kandra.Scylla2025Tablets != 0 {
			return nil, refuse(cond, "the keyspace's targets include "+kandra.Scylla2025Tablets.String()+", which refuses lightweight transactions: leave it out of KeyspaceSpec.Targets, or make the unit unconditional")
		}
		b.CurrentOf = cond.currOf
		b.Current = func(i int) []any { return cond.typed.current(cond.currOf, i) }
	}
	n := 0
	for _, s := range u.steps {
		n += len(s.row) + len(s.lookups) + len(s.after)
	}
	if n <= len(u.entries) {
		b.Entries = u.entries[:0:n]
	} else {
		b.Entries = make([]*adapter.Query, 0, n)
	}
	for _, s := range u.steps {
		b.Entries = append(b.Entries, s.row...)
		if cond == nil {
			b.Entries = append(b.Entries, s.lookups...)
			b.Entries = append(b.Entries, s.after...)
		}
	}
	b.Counter = first.counter
	onePartition := true
	for _, e := range b.Entries[1:] {
		onePartition = onePartition && e.Statement.TableName() == b.Entries[0].Statement.TableName()
	}
	for _, s := range u.steps {
		onePartition = onePartition && bytes.Equal(s.part, first.part) && (cond != nil || len(s.lookups)+len(s.after) == 0)
	}
	// A conditional unit is one partition: UNLOGGED, as the servers run
	// it by Paxos, without the batch log, whatever its type.
	b.Unlogged = onePartition && !b.Counter
	if err := u.checkSize(b, cond != nil); err != nil {
		return nil, err
	}
	return b, nil
}

// condKind is the kind of condition of a step, which the servers do not
// take mixed on one row of a batch.
type condKind uint8

const (
	condNone      condKind = iota
	condExists             // IF EXISTS
	condNotExists          // IF NOT EXISTS
	condColumns            // IF c = ?, IF version = ?...
)

var condKindNames = [...]string{"", "IF EXISTS", "IF NOT EXISTS", "conditions on columns"}

// checkConditions refuses, in a conditional unit, two kinds of condition
// on one row (the servers: "Cannot mix IF conditions and IF NOT EXISTS
// for the same row"), and a list change that reads the list on a row
// without a condition, which the server does not read for the batch: a
// SetAt fails there, a RemoveValues removes nothing.
func (u *Unit) checkConditions(refuse func(*stepBase, string) error) error {
	for i, s := range u.steps {
		for _, t := range u.steps[:i] {
			if bytes.Equal(s.key, t.key) && s.condKind != condNone && t.condKind != condNone && s.condKind != t.condKind {
				return refuse(s, "its "+condKindNames[s.condKind]+" and step "+strconv.Itoa(t.index)+"'s "+condKindNames[t.condKind]+" are on one row, which the servers refuse (\"Cannot mix IF conditions and IF NOT EXISTS for the same row\"): join them in one step, or give both a condition on a column (one on a value implies that the row exists)")
			}
		}
	}
	for _, s := range u.steps {
		if !s.readsList {
			continue
		}
		read := false
		for _, t := range u.steps {
			read = read || t.cond && bytes.Equal(t.key, s.key)
		}
		if !read {
			return refuse(s, "a list's SetAt or RemoveValues in a conditional unit, on a row no condition of the unit is on: the server reads the list only of the rows its conditions read (SetAt then fails, RemoveValues removes nothing); add a condition on this row (If), or send it in another unit")
		}
	}
	return nil
}

// cellOf is one cell, or set of cells, a step writes in its row: a
// whole column (a value, a list's change, a counter's), or one element of
// a collection or one field of a user-defined type.
type cellOf struct {
	col  *kandra.ColumnSchema
	elem string // the element's stored form, "" for the whole column
	// val is a whole value's stored form, so that two steps writing the
	// same value pass (the server keeps that value); known false for a
	// change whose result is not one value (an append, a counter's delta).
	val   string
	known bool
}

// typedStep is what the unit asks of a step's repository side.
type typedStep interface {
	setKeys(b *stepBase)
	attachRow(rows []any)
	sizeOf(sz *batchSizer, q *adapter.Query) int
	checkCons(cons kandra.Consistency) error
	// The hooks, by the step's kind (each a no-op where the kind has
	// none): methods, not closures, so that adding a step allocates
	// only the step.
	stamp()                                     // before the plan: the stamps
	claim(ctx context.Context) error            // before sending: the unique lookup values
	giveBack(ctx context.Context)               // the claims, when the unit did not apply
	applied(ctx context.Context)                // the unit applied
	failed(ctx context.Context, unknown bool)   // the unit's batch failed
	lostAfter(err error)                        // after's deletes failed, once the unit applied
	notSent()                                   // put the entity back: the unit was refused, or did not apply
	release()                                   // give back what the step took for Apply, once it is done
	fillCells(b *stepBase)                      // the cells the step writes (see clash)
	current(st *adapter.Statement, i int) []any // the targets of st's Result columns in the i-th returned row of the step's table
}

// fillCells makes s's cells, once: only when another step writes the
// row, so most units never compare cells.
func (s *stepBase) fillCells() {
	if !s.cellsDone {
		s.cellsDone = true
		s.typed.fillCells(s)
	}
}

// clash is what makes a batch of t and s write a row as neither says:
// two writes of one cell at one timestamp, which the server merges by
// keeping the larger value or the tombstone; "" when they do not.
func clash(t, s *stepBase) string {
	switch {
	case !bytes.Equal(t.part, s.part):
		return ""
	case t.rangeDel || s.rangeDel:
		return "a range delete and another write of its partition"
	case !bytes.Equal(t.key, s.key):
		return ""
	case t.rowDel || s.rowDel:
		return "a write and a delete of the row of step " + strconv.Itoa(t.index)
	}
	t.fillCells()
	s.fillCells()
	for _, a := range t.cells {
		for _, b := range s.cells {
			switch {
			case a.col != b.col:
			case a.elem == "" && b.elem == "" && a.known && b.known && a.val == b.val:
				// One value written twice is that value.
			case a.elem == "" || b.elem == "" || a.elem == b.elem:
				what := a.col.Name()
				if a.elem != "" && a.elem == b.elem {
					what = "an element of " + what
				}
				return "a second write of " + what + ", which step " + strconv.Itoa(t.index) + " writes in the same row"
			}
		}
	}
	return ""
}

// checkSize refuses a batch over the store's batch limit, counted as
// SaveAll counts it (see batchsize.go); a conditional unit's lookup rows
// go in a batch of their own.
func (u *Unit) checkSize(b *adapter.Batch, conditional bool) error {
	limit := u.rt.cfg.maxBatch
	if limit < 0 || len(b.Entries) < 2 && !conditional {
		return nil
	}
	sz := &u.sizer // in the Unit: handed to each step, it would escape
	sz.cells = u.rt.ks.Targets()&^(kandra.Cassandra5|kandra.Cassandra5Latest) == 0
	// The buffer of the values it encodes (collections, UDTs) is the
	// first step's pooled scratch's: a Unit is new on every call.
	sc := u.steps[0].sc
	sz.buf = sc.sized[:0]
	defer func() { sc.sized, sz.buf = sz.buf[:0], nil }()
	main, pre := 0, 0
	for _, s := range u.steps {
		for _, q := range s.row {
			main += s.typed.sizeOf(sz, q)
		}
		for _, q := range s.lookups {
			if conditional {
				pre += s.typed.sizeOf(sz, q)
			} else {
				main += s.typed.sizeOf(sz, q)
			}
		}
	}
	if n := max(main, pre); n > limit {
		return queryErr(fmt.Sprintf("Unit.Apply: the unit's batch holds at least %d bytes of values, over the %d-byte batch limit; nothing was written (split the unit, make large lookups EVENTUAL, or raise WithMaxBatchBytes with the server's batch_size_fail_threshold)", n, limit), kerrors.ErrBatchTooLarge)
	}
	return nil
}

// sendUnit sends b: its one statement alone, or the batch.
func (u *Unit) sendUnit(ctx context.Context, b *adapter.Batch) (bool, error) {
	if len(b.Entries) == 1 && !b.Counter && !b.IsConditional() {
		// A conditional one goes as a batch all the same: the server
		// then returns the row's key and the columns of its conditions,
		// which the step's statement alone may not name.
		q := b.Entries[0]
		q.Consistency = b.Consistency
		octx, w := u.rt.observe(ctx, q.Statement.TableName(), kandra.OpUnit, kandra.SingleStatement, q.Statement.CQL(), 1, b.Consistency, false)
		_, err := u.rt.d.Exec(octx, q)
		u.rt.observed(octx, w, q.Statement.TableName(), kandra.OpUnit, 0, err)
		if err != nil {
			return false, queryErr("Unit.Apply: "+q.Statement.CQL()+" failed", err)
		}
		return true, nil
	}
	applied, err := u.batch(ctx, b)
	if err == nil && !applied {
		u.rows = u.rows[:b.Returned]
	}
	return applied, err
}

// send sends the lookup rows before or after a conditional unit.
func (u *Unit) send(ctx context.Context, b *adapter.Batch) error {
	if len(b.Entries) == 1 {
		q := b.Entries[0]
		q.Consistency = b.Consistency
		octx, w := u.rt.observe(ctx, q.Statement.TableName(), kandra.OpUnit, kandra.SingleStatement, q.Statement.CQL(), 1, b.Consistency, false)
		_, err := u.rt.d.Exec(octx, q)
		u.rt.observed(octx, w, q.Statement.TableName(), kandra.OpUnit, 0, err)
		if err != nil {
			return queryErr("Unit.Apply: "+q.Statement.CQL()+" failed", err)
		}
		return nil
	}
	_, err := u.batch(ctx, b)
	return err
}

// batch runs b, observed as one batch statement.
func (u *Unit) batch(ctx context.Context, b *adapter.Batch) (bool, error) {
	table := b.Entries[0].Statement.TableName()
	octx, w := u.rt.observe(ctx, table, kandra.OpUnit, kandra.BatchStatement, b.Entries[0].Statement.CQL(), len(b.Entries), b.Consistency, false)
	applied, err := u.rt.d.Batch(octx, b)
	if w.o != nil && b.IsConditional() {
		w.o.Conditional, w.o.Applied = true, applied && err == nil
	}
	u.rt.observed(octx, w, table, kandra.OpUnit, 0, err)
	if err != nil {
		kind := "LOGGED"
		switch {
		case b.Counter:
			kind = "COUNTER"
		case b.Unlogged:
			kind = "UNLOGGED"
		}
		return false, queryErr("Unit.Apply: "+kind+" BATCH of "+strconv.Itoa(len(b.Entries))+" statements failed", err)
	}
	return applied, nil
}

// giveBack gives back the claims of steps.
func (u *Unit) giveBack(ctx context.Context, steps []*stepBase) {
	for _, s := range steps {
		s.typed.giveBack(ctx)
	}
}

// putBack puts the steps' entities back as they were before the stamps.
func (u *Unit) putBack() {
	for _, s := range u.steps {
		s.typed.notSent()
	}
}

// release gives the steps' memory back.
func (u *Unit) release() {
	u.batchOf = adapter.Batch{}
	clear(u.entries[:])
	for _, s := range u.steps {
		if s.sc != nil {
			s.sc.release()
			s.sc = nil
		}
		s.typed.release()
	}
}
