package kstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"reflect"
	"strconv"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
)

// The steps of a unit of work, typed by their repository: UnitRepo's
// calls mirror Repo's, without a context, each adding one step to the
// unit (see Unit).

// UnitRepo is a repository's writes within one Unit: r.In(u).
type UnitRepo[T any] struct {
	r *Repo[T]
	u *Unit
}

// In returns r's writes within u (not nil). A write added to a unit of
// another store is refused (Unit.Err).
func (r *Repo[T]) In(u *Unit) UnitRepo[T] {
	if u == nil {
		panic("kandra/kstore: In: nil Unit (make one with Store.Unit)")
	}
	return UnitRepo[T]{r: r, u: u}
}

// Step is one write of a Unit: after Apply, its Outcome.
type Step[T any] struct {
	stepBase
	r    *Repo[T]
	u    *Unit
	e    *T // the entity or key written
	kind stepKind
	out  Outcome[T]
	// was is e before the stamps, put back when the unit does not
	// apply: a copy from r.copies on a table that stamps an insert, nil
	// on one that stamps nothing, whose e the unit never changes (the
	// Step is allocated per write: a copy of T inline made it the size
	// of two entities).
	was *T
	// What the kind's hooks need (see typedStep): a Save's, its claims
	// and the EVENTUAL rows' timestamp; a Patch's, its stamps and
	// changes; a raw write's, its statement.
	claimed *claims[T]
	evTS    int64
	nw      *T
	changes []change
	rawSt   *adapter.Statement
}

// stepKind is the call that made a step, which chooses its hooks.
type stepKind uint8

const (
	stepSave stepKind = iota
	stepSaveVersioned
	stepSaveIfNotExists
	stepPatch
	stepDelete
	stepOther // DeleteIf, DeleteRange, Increment
	stepRaw
)

// inserts reports whether s writes a whole entity (Save,
// SaveIfNotExists): stamped, claimed, and its EVENTUAL rows written.
func (s *Step[T]) inserts() bool {
	return s.kind == stepSave || s.kind == stepSaveVersioned || s.kind == stepSaveIfNotExists
}

func (s *Step[T]) stamp() {
	if s.was == nil {
		return // not an insert, or nothing to stamp
	}
	*s.was = *s.e
	s.r.stampInsert(s.e)
	if s.kind == stepSaveVersioned && !s.r.versionZero(s.was) {
		s.r.nextVersion(s.was, s.e)
	}
}

func (s *Step[T]) notSent() {
	if s.was != nil {
		*s.e = *s.was
	}
}

// release gives was back, once the unit is done with the step.
func (s *Step[T]) release() {
	if s.was != nil {
		s.r.unspare(s.was)
		s.was = nil
	}
}

func (s *Step[T]) claim(ctx context.Context) error {
	if !s.inserts() || len(s.r.unique) == 0 {
		return nil
	}
	c := &s.sc.c
	got, err := s.r.claimAll(ctx, s.op, s.e, nil, c, s.cons)
	if err == nil {
		err = s.r.fresh(ctx, s.op, got, c, s.cons)
	}
	s.claimed = got
	return err
}

func (s *Step[T]) giveBack(ctx context.Context) {
	if s.inserts() && len(s.r.unique) > 0 {
		s.r.giveBack(ctx, s.op, s.claimed, &s.sc.c, s.cons)
	}
}

func (s *Step[T]) applied(ctx context.Context) {
	s.out.Applied = true
	switch {
	case s.inserts():
		s.r.landed(s.claimed)
		s.r.eventualInserts(ctx, kandra.OpUnit, s.cons, s.e, s.evTS)
	case s.kind == stepPatch:
		s.r.restamp(s.e, s.nw)
	}
}

func (s *Step[T]) failed(ctx context.Context, unknown bool) {
	if !s.inserts() {
		return
	}
	if s.was != nil {
		// As a versioned Save: e as it was, but for the ids and
		// CreatedAt it was given, so that a retry writes the same entity.
		stamped := *s.e
		*s.e = *s.was
		s.r.keepInsertStamps(s.e, &stamped)
	}
	if unknown {
		s.r.eventualInserts(ctx, kandra.OpUnit, s.cons, s.e, s.evTS)
	}
}

func (s *Step[T]) lostAfter(err error) {
	if s.kind == stepDelete {
		cp := new(T)
		*cp = *s.e
		s.r.rt.eventualFailed(s.after[0].Statement.TableName(), cp, err)
	}
}

// fillCells fills b's cells: a whole row's write (Save,
// SaveIfNotExists), each of its regular columns bound to a value or null
// (a tombstone), not those left unset (OmitNulls) and not UpdatedAt; a
// Patch's, its changes' (its stamps are not among them). Their values are
// read when the unit compares them, at Apply, after the stamps. UpdatedAt
// is left out because two writes of a row stamp it alike, and the server
// keeping the later time is what either would. An Increment's cell is set
// when it is added.
func (s *Step[T]) fillCells(b *stepBase) {
	switch {
	case s.inserts():
		q := s.row[0]
		st := q.Statement
		for j, col := range st.Columns() {
			v := q.Values[st.ColumnsOffset()+j]
			if col.IsPartitionKey() || col.IsClusteringKey() || col.IsUpdatedAt() || v == adapter.Unset {
				continue
			}
			b.cells = append(b.cells, wholeCell(col, v))
		}
	case s.kind == stepPatch:
		for _, ch := range s.changes {
			b.cells = append(b.cells, changeCells(ch)...)
		}
	}
}

// Outcome is what the step found once the unit was applied: Applied is
// the unit's; when a conditional unit did not apply, Exists and Current
// are the row of the step's key the server returned (a condition of
// this step, or of another step on the row, read it), with Exists false
// when it returned none (the row does not exist, or no condition is on
// it). Before Apply, the zero Outcome.
func (s *Step[T]) Outcome() Outcome[T] { return s.out }

// start makes a step of op with its scratch and options applied, after
// refusing the options that are the unit's.
func start[T any, O option](w UnitRepo[T], op string, e *T, opts []O) (*Step[T], *call, error) {
	s := &Step[T]{r: w.r, u: w.u, e: e, kind: stepOther}
	s.op, s.repo, s.sc = op, w.r.ts.Name(), getScratch(opts)
	c := &s.sc.c
	switch {
	case w.u.rt != w.r.rt:
		return s, c, w.r.argErr(op, "the unit", "a Unit of another Store: make it with this repository's Store.Unit")
	case c.hasCons:
		return s, c, w.r.argErr(op, "Consistency", "a unit's writes share one consistency: pass it to Unit.Apply")
	case c.hasSerial:
		return s, c, w.r.argErr(op, "SerialConsistency", "a unit's writes share one serial consistency: pass it to Unit.Apply")
	}
	s.typed = s
	return s, c, nil
}

// sizeOf is the estimate of q, a statement of s (see estimateSize).
func (s *Step[T]) sizeOf(sz *batchSizer, q *adapter.Query) int {
	return estimateSize(sz, q.Statement, q.Values, s.r.lookupKeyOf(q.Statement.TableName()))
}

// checkCons checks the unit's consistency for s's table.
func (s *Step[T]) checkCons(cons kandra.Consistency) error {
	return s.r.checkConsistency("Unit.Apply", cons, false, s.r.ts.IsCounterTable())
}

// check is enter's checks of a step (but the store's, made by Apply).
func (s *Step[T]) check(en entry, c *call, args ...arg[T]) error {
	cons, _, err := s.r.check(context.Background(), en, c, args)
	s.cons = cons
	return err
}

// setKeys records the partition and row s writes, after the stamps.
// A raw write's row is not known: its part is its statement's, and it is
// checked against no other write.
func (s *Step[T]) setKeys(b *stepBase) {
	r := s.r
	key := append(s.sc.rowKey[:0], r.ts.Name()...)
	key = append(key, 0)
	if s.kind == stepRaw {
		key = append(key, "raw\x00"...)
		key = append(key, s.rawSt.CQL()...)
		b.part, b.key, s.sc.rowKey = key, nil, key
		return
	}
	for _, c := range r.partition {
		key = appendKeyPart(key, c, s.e)
	}
	n := len(key)
	if !b.rangeDel {
		for _, c := range r.clustering {
			key = appendKeyPart(key, c, s.e)
		}
		b.key = key
	}
	b.part = key[:n:n] // the partition is the key's prefix
	s.sc.rowKey = key  // kept for the next call that takes this scratch
}

// appendKeyPart appends the stored form of e's column c, after its
// length, so that two keys' columns never run into each other.
func appendKeyPart[T any](key []byte, c *kandra.ColumnSchema, e *T) []byte {
	p, _ := c.Pointer(e)
	at := len(key)
	key = append(key, 0, 0, 0, 0)
	key, _ = c.AppendStored(key, p)
	binary.BigEndian.PutUint32(key[at:], uint32(len(key)-at-4))
	return key
}

// conditional makes s a conditional step, of kind k (IF EXISTS, IF NOT
// EXISTS, conditions on columns), that reads back the rows of its table a
// conditional unit that does not apply returns.
func (s *Step[T]) conditional(k condKind) {
	s.cond, s.condKind = true, k
	s.currOf = s.r.st.SelectByKey()
}

// current is a new row of s's table, the i-th the conditional unit that
// did not apply returned, and its targets for st's Result columns.
func (s *Step[T]) current(st *adapter.Statement, i int) []any {
	t := new(T)
	s.u.rows = append(s.u.rows[:i], t)
	return catalog.AppendResult(s.r.t, st, t, make([]any, 0, st.NumResult()))
}

// attachRow finds, among the rows a conditional unit that did not apply
// returned, the one of s's key.
func (s *Step[T]) attachRow(rows []any) {
	if s.e == nil {
		return // a prepared statement's
	}
	for _, row := range rows {
		if t, ok := row.(*T); ok && s.r.sameKey(t, s.e) {
			s.out.Exists, s.out.Current = true, t
			return
		}
	}
}

// lookupKeyOf is the indexed column of r's lookup table named table, nil
// for r's own table (see estimateSize).
func (r *Repo[T]) lookupKeyOf(table string) *kandra.ColumnSchema {
	for _, l := range r.lookups {
		if l.Name() == table {
			return l.IndexColumn()
		}
	}
	return nil
}

// put adds s, or its refusal, to the unit.
func (w UnitRepo[T]) put(s *Step[T], err error) *Step[T] {
	w.u.add(&s.stepBase, err)
	return s
}

// Save adds e's Save to the unit: e validated and, at Apply, stamped as
// Save stamps it; its BATCH lookup rows join the unit, its EVENTUAL ones
// are written after it applied, its unique lookup values claimed before.
// On a versioned table the write is conditional on e's version (as
// Save's), which makes the unit conditional: the version moves into e
// only when the unit applied. Options: TTL, Timestamp, OmitNulls and
// WriteNulls (Consistency is Apply's).
func (w UnitRepo[T]) Save(e *T, opts ...WriteOption) *Step[T] {
	const op = "Save"
	r := w.r
	s, c, err := start(w, op, e, opts)
	if err == nil {
		err = s.check(entry{op: op, kind: writes}, c, arg[T]{name: "entity", e: e, key: r.key, insert: true, written: true})
	}
	if err != nil {
		return w.put(s, err)
	}
	sc := s.sc
	s.hasTS = c.hasTS
	versioned := r.ts.VersionColumn() != nil
	if versioned {
		if err := r.checkVersioned(op, c); err != nil {
			return w.put(s, err)
		}
	}
	s.was = r.stampCopy()
	var st *adapter.Statement
	switch {
	case !versioned:
		st = r.st.Insert(using(c))
		s.sc.query(st).Values = r.appendWrite(sc.values(st.NumParams()), sc, st, c, e, nil)
	case r.versionZero(e):
		st = r.st.UpdateIfNoVersion(using(c) & catalog.UsingTTL)
		sc.query(st).Values = r.appendWrite(sc.values(st.NumParams()), sc, st, c, e, nil)
	default:
		st = r.st.Update(using(c) & catalog.UsingTTL)
		sc.query(st).Values = r.appendWrite(sc.values(st.NumParams()), sc, st, c, e, s.was) // the version's condition: e's before the stamps
	}
	s.kind = stepSave
	if versioned {
		s.conditional(condColumns)
		s.kind = stepSaveVersioned
	}
	ts := insertTS(c)
	for _, i := range r.batch {
		if !r.emptyAt(i, r.lookupValue(i, e)) {
			r.lookupInsertIn(sc, i, e, ts)
		}
	}
	s.row, s.lookups = sc.entries[:1], sc.entries[1:]
	s.evTS = r.eventualTS(c)
	return w.put(s, nil)
}

// SaveIfNotExists adds e's SaveIfNotExists to the unit: the row is
// written only if its key has none (IF NOT EXISTS), which makes the unit
// conditional. As for Save, e is stamped, its lookup rows written and its
// unique values claimed. Options: TTL, OmitNulls, WriteNulls.
func (w UnitRepo[T]) SaveIfNotExists(e *T, opts ...InsertOption) *Step[T] {
	const op = "SaveIfNotExists"
	r := w.r
	s, c, err := start(w, op, e, opts)
	if err == nil {
		err = s.check(entry{op: op, kind: writes, serial: true}, c, arg[T]{name: "entity", e: e, key: r.key, insert: true, written: true})
	}
	if err == nil && c.current != nil {
		err = r.argErr(op, "Current", "a unit reads the row back into the step's Outcome")
	}
	if err == nil {
		err = r.checkLWT(op, c)
	}
	if err != nil {
		return w.put(s, err)
	}
	sc := s.sc
	s.was = r.stampCopy()
	st := r.st.InsertIfNotExists(using(c))
	sc.query(st).Values = r.appendWrite(sc.values(st.NumParams()), sc, st, c, e, nil)
	ts := insertTS(c)
	for _, i := range r.batch {
		if !r.emptyAt(i, r.lookupValue(i, e)) {
			r.lookupInsertIn(sc, i, e, ts)
		}
	}
	s.row, s.lookups = sc.entries[:1], sc.entries[1:]
	s.conditional(condNotExists)
	s.kind, s.evTS = stepSaveIfNotExists, r.eventualTS(c)
	return w.put(s, nil)
}

// Patch adds key's Patch to the unit, as Repo.Patch makes it: by default
// conditional on the row's existence (or its version, or its soft-delete
// marker), which makes the unit conditional; Upsert makes it a plain
// write. UpdatedAt and the next version move into key only when the unit
// applied. Options: Upsert, TTL, Timestamp.
func (w UnitRepo[T]) Patch(key *T, p Patch[T], opts ...PatchOption) *Step[T] {
	const op = "Patch"
	r := w.r
	s, c, err := start(w, op, key, opts)
	if err == nil {
		err = s.check(entry{op: op, kind: writes}, c, arg[T]{name: "key", e: key, key: r.key})
	}
	if err != nil {
		return w.put(s, err)
	}
	st, nw, given, ifExists, err := r.buildPatch(op, s.sc, key, p)
	if err != nil {
		return w.put(s, err)
	}
	r.bindChanges(s.sc, st, key, p.changes, given)
	s.row, s.hasTS = s.sc.entries, c.hasTS
	s.kind, s.nw, s.changes = stepPatch, nw, p.changes
	switch {
	case ifExists:
		s.conditional(condExists)
	case st.IsConditional():
		s.conditional(condColumns)
	}
	for _, ch := range p.changes {
		// The server reads the list for these (see Unit.Apply).
		s.readsList = s.readsList || ch.op == catalog.AtIndex || ch.op == catalog.Remove && ch.col.Type().Kind() == kandra.KindList
	}
	return w.put(s, nil)
}

// Delete adds the hard delete of e's row to the unit, with the deletes of
// its rows of non-unique lookups. On a versioned table it is conditional
// on e's version (which makes the unit conditional), and its lookup rows
// are deleted after the unit applied. A table with unique lookups or
// SoftDelete is refused: Delete such an entity alone. Options: Timestamp.
func (w UnitRepo[T]) Delete(e *T, opts ...DeleteOption) *Step[T] {
	const op = "Delete"
	r := w.r
	s, c, err := start(w, op, e, opts)
	if err == nil {
		err = s.check(entry{op: op, kind: writesAny}, c, arg[T]{name: "entity", e: e, key: r.key})
	}
	switch {
	case err != nil:
	case len(r.unique) > 0:
		err = r.argErr(op, "the table", r.ts.Name()+" has UNIQUE lookups, whose claims are read before a delete and released after it: Delete the entity alone")
	case r.ts.SoftDelete() != nil:
		err = r.argErr(op, "the table", r.ts.Name()+" has SoftDelete: Delete the entity alone (or Patch its marker in the unit)")
	case r.ts.VersionColumn() != nil:
		err = r.checkVersioned(op, c)
	}
	if err != nil {
		return w.put(s, err)
	}
	sc := s.sc
	s.rowDel, s.hasTS = true, c.hasTS
	st := r.st.Delete(using(c) & catalog.UsingTimestamp)
	if r.ts.VersionColumn() != nil {
		st = r.st.DeleteIfVersion()
		if r.versionZero(e) {
			st = r.st.DeleteIfNoVersion()
		}
		s.conditional(condColumns)
	}
	sc.query(st).Values = r.appendWrite(sc.values(st.NumParams()), sc, st, c, e, e)
	ts := int64(noTS)
	for i, l := range r.lookups {
		if !r.emptyAt(i, r.lookupValue(i, e)) && !l.IsUnique() {
			if ts == noTS {
				ts = lookupTS(c)
			}
			r.lookupDeleteIn(sc, i, e, ts)
		}
	}
	s.row, s.after, s.kind = sc.entries[:1], sc.entries[1:], stepDelete
	return w.put(s, nil)
}

// DeleteIf adds key's DeleteIf to the unit: the row is deleted only when
// it meets cond, which makes the unit conditional. It refuses what
// Repo.DeleteIf refuses.
func (w UnitRepo[T]) DeleteIf(key *T, cond Cond[T], opts ...DeleteOption) *Step[T] {
	const op = "DeleteIf"
	r := w.r
	s, c, err := start(w, op, key, opts)
	if err == nil {
		err = s.check(entry{op: op, kind: writesAny, serial: true}, c, arg[T]{name: "key", e: key, key: r.key})
	}
	if err != nil {
		return w.put(s, err)
	}
	st, err := r.buildDeleteIf(op, s.sc, key, cond)
	if err != nil {
		return w.put(s, err)
	}
	r.bindChanges(s.sc, st, key, nil, nil)
	s.row, s.rowDel = s.sc.entries, true
	if s.sc.del.IfExists {
		s.conditional(condExists)
	} else {
		s.conditional(condColumns)
	}
	return w.put(s, nil)
}

// DeleteRange adds a delete of partition's rows to the unit, as
// Repo.DeleteRange makes it (Equal, From and To choose the range). It
// refuses what Repo.DeleteRange refuses, and any other write of the
// partition in the unit, whose rows the range's tombstone would hide.
func (w UnitRepo[T]) DeleteRange(partition *T, opts ...RangeOption) *Step[T] {
	const op = "DeleteRange"
	r := w.r
	s, c, err := start(w, op, partition, opts)
	if err == nil {
		err = s.check(entry{op: op, kind: writesAny}, c, arg[T]{name: "partition", e: partition, key: r.partition})
	}
	if err != nil {
		return w.put(s, err)
	}
	if _, err := r.buildDeleteRange(op, s.sc, partition); err != nil {
		return w.put(s, err)
	}
	s.row, s.rangeDel, s.hasTS = s.sc.entries, true, c.hasTS
	return w.put(s, nil)
}

// Exec adds q, a prepared INSERT, UPDATE or DELETE of r's table, with
// args to the unit, as Raw.Exec would send it: nothing stamped, no lookup
// row. A conditional statement is refused (the unit cannot tell its row:
// use Patch with If, or DeleteIf), and so is a SELECT.
func (w UnitRepo[T]) Exec(q *Raw[T], args ...any) *Step[T] {
	const op = "Raw.Exec"
	r := w.r
	s, c, err := start[T, DeleteOption](w, op, nil, nil)
	switch {
	case err != nil:
	case q == nil || q.r != r:
		err = r.argErr(op, "q", "a statement prepared on another repository (kstore.Prepare with this one)")
	case q.st.NumResult() > 0:
		err = r.argErr(op, "q", "a SELECT: a unit holds writes")
	case q.st.IsConditional():
		err = r.argErr(op, "q", "a conditional statement, whose row the unit could not read back: write it with Patch and If, or DeleteIf")
	}
	if err == nil {
		err = s.check(entry{op: op, kind: writesAny}, c)
	}
	var vals []any
	if err == nil {
		vals, err = q.bind(op, args)
	}
	if err != nil {
		return w.put(s, err)
	}
	s.sc.query(q.st).Values = vals
	s.row = s.sc.entries
	s.raw, s.kind, s.rawSt = true, stepRaw, q.st
	s.counter = r.ts.IsCounterTable()
	return w.put(s, nil)
}

// Increment adds delta to the counter c of key's row in the unit. A unit
// of counter updates holds nothing else (a COUNTER BATCH).
func (w UnitRepo[T]) Increment(c *Counter[T], key *T, delta int64) *Step[T] {
	const op = "Increment"
	r := w.r
	s, cl, err := start[T, CounterOption](w, op, key, nil)
	switch {
	case err != nil:
	case c == nil || c.repo != r:
		err = r.argErr(op, "c", "a Counter of another repository (kstore.CounterOf with this one)")
	default:
		err = s.check(entry{op: op, kind: counts}, cl, arg[T]{name: "key", e: key, key: c.key})
	}
	if err != nil {
		return w.put(s, err)
	}
	q := s.sc.query(c.st)
	q.Values = catalog.AppendColumns(r.t, c.st, key, append(s.sc.values(c.st.NumParams()), delta))
	s.row, s.counter = s.sc.entries, true
	s.cells = []cellOf{{col: c.col}}
	return w.put(s, nil)
}

// wholeCell is the cell of column col written with v (a field's address,
// or nil for null).
func wholeCell(col *kandra.ColumnSchema, v any) cellOf {
	if v == nil || nullAt(col, v) {
		return cellOf{col: col, val: "\x00null", known: true}
	}
	b, err := col.AppendStored(nil, v)
	if err != nil {
		return cellOf{col: col}
	}
	return cellOf{col: col, val: string(b), known: true}
}

// changeCells are the cells one change of a Patch writes: a set's
// elements and a map's keys one by one, a field of a user-defined type by
// its number, the whole column otherwise.
func changeCells(ch change) []cellOf {
	col := ch.col
	kind := col.Type().Kind()
	switch {
	case ch.op == catalog.Assign:
		return []cellOf{wholeCell(col, ch.v)}
	case ch.op == catalog.AtField:
		return []cellOf{{col: col, elem: "field " + strconv.Itoa(ch.fld)}}
	case ch.op == catalog.AtKey:
		return []cellOf{{col: col, elem: elemOf(col, ch.k)}}
	case ch.op == catalog.RemoveKeys:
		out := make([]cellOf, len(ch.keys))
		for i, k := range ch.keys {
			out[i] = cellOf{col: col, elem: elemOf(col, k)}
		}
		return out
	case kind == kandra.KindSet || kind == kandra.KindMap:
		// Add, Remove and PutAll: a *S or *M, each key a cell.
		m := reflect.ValueOf(columnValue(col, ch.v)).Elem()
		out := make([]cellOf, 0, m.Len())
		for it := m.MapRange(); it.Next(); {
			out = append(out, cellOf{col: col, elem: elemOf(col, it.Key().Interface())})
		}
		return out
	}
	return []cellOf{{col: col}} // a list's change: its cells are not known here
}

// elemOf is the stored form of k, an element of col's set or a key of
// its map: the stored form of a collection holding k alone (with the
// zero value), so that two Go forms of one stored key are one element.
func elemOf(col *kandra.ColumnSchema, k any) string {
	t := col.GoType()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	kv := reflect.ValueOf(k)
	if t.Kind() != reflect.Map || !kv.Type().AssignableTo(t.Key()) {
		return "\x00" + fmt.Sprint(k)
	}
	m := reflect.MakeMapWithSize(t, 1)
	m.SetMapIndex(kv, reflect.Zero(t.Elem()))
	p := reflect.New(t)
	p.Elem().Set(m)
	b, err := col.AppendStored(nil, p.Interface())
	if err != nil {
		return "\x00" + fmt.Sprint(k)
	}
	return string(b)
}
