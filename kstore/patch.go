package kstore

import (
	"context"
	"fmt"
	"reflect"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
	"github.com/kandra-go/kandra/internal/cqlvalue"
	"github.com/kandra-go/kandra/internal/reflectx"
)

// Partial writes: some columns of one row changed by its key, without
// reading it, each change typed by its field handle. See Repo.Patch.

// Patch is the changes of a partial write and, optionally, its
// conditions: build one with Set, Clear, the collection changes (Append,
// Prepend, SetAt, RemoveValues; Add, Remove; Put, PutAll, RemoveKeys) and
// SetField (a user-defined type's field), join them with And, and make it
// conditional with If. A Patch is a value: And and If return a new one
// and leave their receiver as it was.
type Patch[T any] struct {
	changes []change
	conds   []cond
	exists  bool
}

// change is one SET clause and its values.
type change struct {
	col  *kandra.ColumnSchema
	op   catalog.SetOp
	v    any   // a *V of the column's Go type (Set, the collection changes), an element (SetAt, Put), a field's value (SetField), a set of keys (RemoveKeys), nil (Clear)
	k    any   // an index (int) or a map key, for AtIndex and AtKey
	keys []any // RemoveKeys' keys, for the checks (v is their set)
	fld  int   // AtField's field number, -1 when the selector names none
}

// what renders the change as it is sent ("tags = tags + ?"), for
// messages: built only when one is.
func (ch change) what() string {
	n := ch.col.Name()
	switch ch.op {
	case catalog.Assign:
		if ch.v == nil {
			return n + " = null"
		}
		return n + " = ?"
	case catalog.Append:
		return n + " = " + n + " + ?"
	case catalog.Prepend:
		return n + " = ? + " + n
	case catalog.Remove, catalog.RemoveKeys:
		return n + " = " + n + " - ?"
	case catalog.AtField:
		name := "?"
		if fs := ch.col.Type().Fields(); ch.fld >= 0 && ch.fld < len(fs) {
			name = fs[ch.fld].Name
		}
		return n + "." + name + " = ?"
	}
	return n + "[?] = ?"
}

// And is p's changes and conditions followed by q's.
func (p Patch[T]) And(q Patch[T]) Patch[T] {
	return Patch[T]{changes: join(p.changes, q.changes), conds: join(p.conds, q.conds), exists: p.exists || q.exists}
}

// If makes p conditional on c, joined by AND to the conditions it has: it
// applies only when the row's current values meet them (a lightweight
// transaction), and when it does not, the Outcome holds those values.
func (p Patch[T]) If(c Cond[T]) Patch[T] {
	return Patch[T]{changes: p.changes, conds: join(p.conds, c.conds), exists: p.exists || c.exists}
}

// join is a followed by b: one of them when the other is empty (capped,
// so that an append to it copies; a Patch's and a Cond's slices are
// never written in place), else a new slice.
func join[E any](a, b []E) []E {
	switch {
	case len(a) == 0:
		return b[:len(b):len(b)]
	case len(b) == 0:
		return a[:len(a):len(a)]
	}
	out := make([]E, 0, len(a)+len(b))
	return append(append(out, a...), b...)
}

// String renders the changes and conditions as kandra sends them, with
// their columns' names ("done = ?, tags = tags + ? IF done = ?").
func (p Patch[T]) String() string {
	s := ""
	for i, ch := range p.changes {
		if i > 0 {
			s += ", "
		}
		s += ch.what()
	}
	if c := (Cond[T]{conds: p.conds, exists: p.exists}).String(); c != "" {
		s += " IF " + c
	}
	return s
}

// Outcome is what a conditional write found: whether it applied and, when
// it did not, the row's current values the server returned.
type Outcome[T any] struct {
	// Applied reports that the write was made (always true for a write
	// that is not conditional, when its error is nil).
	Applied bool
	// Exists reports, when Applied is false, that the row exists (the
	// server returned its values); false means there is no row of the key.
	Exists bool
	// Current, when Applied is false and Exists true, holds the row's
	// current values of the columns of the conditions (the columns
	// Cassandra returns; ScyllaDB returns every column, of which Current
	// keeps those too), its key's fields copied from the key given; nil
	// otherwise.
	Current *T
}

// PatchOption configures Patch and DeleteIf; see "Call options" in the
// package doc.
type PatchOption interface {
	option
	patchOption()
}

// UpsertOption is the option Upsert returns.
type UpsertOption struct{}

func (UpsertOption) apply(c *call) { c.upsert = true }
func (UpsertOption) patchOption()  {}

// Upsert makes a Patch write as Cassandra's UPDATE does: without the
// condition that the row exists, so it costs one plain write instead of a
// lightweight transaction, and on a key without a row it creates one,
// holding the key and the columns set (no row marker: the row disappears
// when those are null). It is refused on a versioned table and on one
// with SoftDelete, where it would bring back a deleted row.
func Upsert() UpsertOption { return UpsertOption{} }

// Patch changes the columns p names in the row of key's primary key (its
// other fields are ignored, but for the version of a versioned table),
// without reading it. Each value is checked as Save checks it; the table's
// Validators, which see whole entities, are not run (use Update for
// changes one must see). UpdatedAt is stamped.
//
// A row is never brought to life by accident. By default Patch writes
// only to a row that exists and is not soft-deleted, by a lightweight
// transaction whose condition is:
//   - on a versioned table, that the row still has key's version (a zero
//     version is refused: Get the row first); the row moves to the next
//     version, written into key's version field with UpdatedAt's stamp
//     when the write applied; another version is a
//     *kerrors.OptimisticLockError;
//   - on a table with SoftDelete, that its marker is false (SoftDelete
//     without a marker field cannot tell a deleted row and is refused);
//   - otherwise IF EXISTS, or the conditions of p.If when they imply that
//     the row exists (NotNull, or a comparison with a value; IsNull and
//     Ne alone, which a missing row meets, are refused without a
//     condition that implies it, or Exists).
//
// The Outcome says whether it applied and, when not, the row's current
// values of the conditions' columns. Upsert turns the default condition
// off: one plain write, which creates a missing row.
//
// Refused before anything is sent (*kerrors.ArgumentError, naming the
// call that can do it): a change of a key column, of a column a lookup
// indexes (Update moves lookup values), of the version, CreatedAt,
// UpdatedAt or soft-delete marker, of a counter, an element change of a
// frozen column or of a column of another kind, a whole value's change
// (Set, Clear) with another change of the column, a condition on a key
// column or a counter, an order condition on a collection, EqAt on a map
// keyed by UUIDs (Cassandra 5.0 fails it); a Timestamp on a conditional
// write; a conditional write in a keyspace whose targets refuse
// lightweight transactions. A value a column cannot hold is a
// *kerrors.ValueError, an element's by an element's rules
// (ColumnSchema.CheckPart).
//
// Idempotence: a conditional Patch, and one with Append or Prepend on a
// list, is sent once (see IsIdempotent); the others may be retried.
// Options: Upsert, TTL, Timestamp, Consistency, SerialConsistency.
func (r *Repo[T]) Patch(ctx context.Context, key *T, p Patch[T], opts ...PatchOption) (Outcome[T], error) {
	const op = "Patch"
	sc := getScratch(opts)
	defer sc.release()
	c := &sc.c
	cons, _, err := r.enter(ctx, entry{op: op, kind: writes}, c, arg[T]{name: "key", e: key, key: r.key})
	if err != nil {
		return Outcome[T]{}, err
	}
	defer r.rt.leave()
	st, nw, given, _, err := r.buildPatch(op, sc, key, p)
	if err != nil {
		return Outcome[T]{}, err
	}
	return r.conditional(ctx, op, kandra.OpPatch, sc, cons, key, nw, st, p.changes, given)
}

// buildPatch checks p and makes its statement in sc (its shape, the
// guard's conditions, the stamps written into nw: key, or a copy of it
// when the table has stamps), and reports whether its guard is IF EXISTS.
// given are the conditions to bind after sc.conds (see bindChanges): p's,
// when plainShape made the statement.
func (r *Repo[T]) buildPatch(op string, sc *scratch, key *T, p Patch[T]) (st *adapter.Statement, nw *T, given []cond, ifExists bool, err error) {
	c := &sc.c
	if len(p.changes) == 0 {
		return nil, nil, nil, false, r.argErr(op, "patch", "no change: build one with kstore.Set, Clear, Append, Add, Put and the like")
	}
	for i, ch := range p.changes {
		if err := r.checkChange(op, ch); err != nil {
			return nil, nil, nil, false, err
		}
		for _, prev := range p.changes[:i] {
			// The servers take several element changes of one collection
			// in a statement, but not a whole value with another change.
			if prev.col == ch.col && (prev.op == catalog.Assign || ch.op == catalog.Assign || ch.op == catalog.AtField && prev.fld == ch.fld) {
				return nil, nil, nil, false, r.argErr(op, "change "+ch.what(), "a second change of "+ch.col.Name()+" after "+prev.what()+": the servers refuse a change of a whole value with another change of it (\"Multiple incompatible setting\"); make it one change, or send two Patches")
			}
		}
	}
	if ch := p.changes[0]; r.plainPatch && len(p.changes) == 1 && len(p.conds) == 0 && !p.exists && ch.op < catalog.AtField {
		// The most common Patch, one change without a condition: its
		// guard is IF EXISTS unless Upsert, and its statement is in a
		// slot, found without a spec.
		ifExists = !c.upsert
		if st = r.st.PatchOne(ch.col, ch.op, ifExists, using(c)); st.IsConditional() {
			if err := r.checkLWT(op, c); err != nil {
				return nil, nil, nil, false, err
			}
		}
		return st, key, nil, ifExists, nil
	}
	if r.plainPatch && len(p.changes) <= 2 && len(p.conds) <= 2 {
		if st, ifExists, ok, err := r.plainShape(op, sc, key, p); ok {
			return st, key, p.conds, ifExists, err
		}
	}
	sc.shaped = true
	spec := &sc.patch
	spec.Using = using(c)
	for _, ch := range p.changes {
		spec.Sets = append(spec.Sets, catalog.Set{Col: ch.col, Op: ch.op, Field: ch.fld})
	}
	nw = key // where the stamps go (UpdatedAt, the next version): a copy, if the table has one
	if r.ts.UpdatedAtColumn() != nil || r.ts.VersionColumn() != nil {
		cp := *key
		nw = &cp
	}
	ifExists, err = r.guard(op, sc, key, nw, p.conds, p.exists, true)
	if err != nil {
		return nil, nil, nil, false, err
	}
	sc.conds = append(sc.conds, p.conds...)
	spec.IfExists = ifExists
	spec.Conds = appendCondShapes(spec.Conds, sc.conds)
	st = r.st.Patch(spec, sc.shapeKey())
	if st.IsConditional() {
		if err := r.checkLWT(op, c); err != nil {
			return nil, nil, nil, false, err
		}
	}
	return st, nw, nil, ifExists, nil
}

// plainShape is buildPatch's way for the common Patch on a table without
// stamps, version or soft delete (Repo.plainPatch), of at most two
// changes and two conditions: the guard adds nothing to its statement
// but IF EXISTS, so its shape is made on the stack and its statement
// found in the table's slots (catalog.Table.PatchCached), and the
// conditions are bound from p, not copied into sc. ok is false
// for a Patch it does not take (a change of a field: AtField); p's
// changes are checked already.
func (r *Repo[T]) plainShape(op string, sc *scratch, key *T, p Patch[T]) (st *adapter.Statement, ifExists, ok bool, err error) {
	c := &sc.c
	var sets [2]catalog.Set
	var conds [2]catalog.Cond
	spec := catalog.PatchSpec{Using: using(c), Sets: sets[:0], Conds: conds[:0]}
	for _, ch := range p.changes {
		if ch.op == catalog.AtField {
			return nil, false, false, nil
		}
		spec.Sets = append(spec.Sets, catalog.Set{Col: ch.col, Op: ch.op})
	}
	if ifExists, err = r.guard(op, sc, key, key, p.conds, p.exists, true); err != nil {
		return nil, false, true, err
	}
	spec.IfExists = ifExists
	spec.Conds = appendCondShapes(spec.Conds, p.conds)
	if st = r.st.PatchCached(&spec); st == nil {
		// A shape not made yet, or not kept in a slot: through sc's spec,
		// which the table's shapes may keep.
		sc.shaped = true
		sc.patch.Using, sc.patch.IfExists = spec.Using, spec.IfExists
		sc.patch.Sets = append(sc.patch.Sets, spec.Sets...)
		sc.patch.Conds = append(sc.patch.Conds, spec.Conds...)
		st = r.st.Patch(&sc.patch, sc.shapeKey())
	}
	if st.IsConditional() {
		if err := r.checkLWT(op, c); err != nil {
			return nil, false, true, err
		}
	}
	return st, ifExists, true, nil
}

// guard checks the conditions given and, for a Patch (patch), adds to
// sc.patch.Sets the stamps' changes (UpdatedAt, the next version, written
// into nw) and their values (field addresses in nw) to sc.stamps, in SET
// order. It puts in sc.conds the condition that keeps the call from
// bringing a row to life (the version's, the soft-delete marker's), which
// comes before the given ones in the statement, and reports whether the
// statement takes IF EXISTS. The caller adds the given conditions.
func (r *Repo[T]) guard(op string, sc *scratch, key, nw *T, given []cond, exists, patch bool) (ifExists bool, err error) {
	c := &sc.c
	fail := func(arg, msg string) (bool, error) { return false, r.argErr(op, arg, msg) }
	for _, x := range given {
		if err := r.checkCond(op, x); err != nil {
			return false, err
		}
	}
	if exists && len(given) > 0 {
		return fail("If", "Exists joined to another condition: the servers take IF EXISTS alone; the other conditions imply that the row exists when they compare a value")
	}
	vc, sd := r.ts.VersionColumn(), r.ts.SoftDelete()
	if c.upsert {
		switch {
		case exists:
			return fail("Upsert", "Upsert with Exists: Upsert writes whether the row exists or not; drop one of them")
		case vc != nil:
			return fail("Upsert", r.ts.Name()+" is versioned: every write is conditional on the version; Patch without Upsert")
		case sd != nil:
			return fail("Upsert", r.ts.Name()+" has SoftDelete: a write without the condition would bring a soft-deleted row back; Patch without Upsert")
		}
	}
	if col := r.ts.UpdatedAtColumn(); col != nil && patch {
		*r.timeField(col, nw) = truncate(col, r.now())
		p, _ := col.Pointer(nw)
		sc.patch.Sets = append(sc.patch.Sets, catalog.Set{Col: col, Op: catalog.Assign})
		sc.stamps = append(sc.stamps, p)
	}
	switch {
	case vc != nil:
		if r.versionZero(key) {
			return fail("key", "its "+vc.GoName()+" is zero: a write of one row of a versioned table by its key is conditional on the version the caller read; Get the row first (a row written before the table had a version: Update or ForceSave)")
		}
		if exists {
			return fail("If", "Exists on a versioned table: the version's condition implies that the row exists")
		}
		pv, _ := vc.Pointer(key)
		sc.conds = append(sc.conds, cond{col: vc, op: catalog.Eq, vals: append(sc.guardVal[:0], pv)})
		if patch {
			r.nextVersion(key, nw)
			p, _ := vc.Pointer(nw)
			sc.patch.Sets = append(sc.patch.Sets, catalog.Set{Col: vc, Op: catalog.Assign})
			sc.stamps = append(sc.stamps, p)
		}
	case sd != nil:
		if sd.Marker == nil {
			return fail("the table", r.ts.Name()+"'s SoftDelete has no marker field, so no condition tells a soft-deleted row from a live one: give SoftDelete a marker (kandra.SoftDelete(ttl, &e.Deleted)), or Get the entity and Update it")
		}
		if exists {
			return fail("If", "Exists on a table with SoftDelete: the condition that the row is not soft-deleted implies that it exists")
		}
		sc.conds = append(sc.conds, cond{col: sd.Marker, op: catalog.Eq, vals: append(sc.guardVal[:0], &notDeleted)})
	case c.upsert:
	case exists, len(given) == 0:
		ifExists = true
	case !patch:
		// A conditional delete a missing row meets deletes nothing.
	default:
		implied := false
		for _, x := range given {
			implied = implied || impliesRow(x)
		}
		if !implied {
			return fail("If", "the conditions ("+(Cond[T]{conds: given}).String()+") are met by a row that does not exist, so the write would create it: add a condition on a value (Eq, Lt, In...), use Exists alone, or pass Upsert to create a missing row")
		}
	}
	return ifExists, nil
}

// notDeleted is the soft-delete marker's value in the guard's condition.
var notDeleted = false

// checkChange refuses a change the servers refuse or kandra could not
// keep its lookups, stamps and versions right through.
func (r *Repo[T]) checkChange(op string, ch change) error {
	c := ch.col
	switch {
	case c.Table() != r.ts:
		return r.argErr(op, "change "+ch.what(), "the field is "+c.Table().EntityType().String()+"'s, not "+r.typeName+"'s")
	case c.Role() != kandra.RegularColumn && !c.IsStatic():
		return r.argErr(op, "change "+ch.what(), c.Name()+" is in the primary key, which is immutable: Save the entity under its new key and Delete the old one")
	case c.Lookup() != nil:
		return r.argErr(op, "change "+ch.what(), c.Name()+" has a lookup table, whose row of the old value Patch cannot know: Get the entity and Update it (Update moves lookup values)")
	case c.IsVersion():
		return r.argErr(op, "change "+ch.what(), c.Name()+" is the version, which every write of the table moves itself")
	case c.IsCreatedAt(), c.IsUpdatedAt():
		return r.argErr(op, "change "+ch.what(), c.Name()+" is stamped by kandra (CreatedAt by the first Save, UpdatedAt by every write)")
	case c.IsSoftDeleteMarker():
		return r.argErr(op, "change "+ch.what(), c.Name()+" is the soft-delete marker: SoftDelete sets it, with the table's TTL")
	case c.IsCounter():
		return r.argErr(op, "change "+ch.what(), c.Name()+" is a counter: change it with a Counter's Increment")
	}
	kind := c.Type().Kind()
	if ch.op != catalog.Assign && ch.op != catalog.AtField {
		var ok bool
		var want string
		switch ch.op {
		case catalog.Append, catalog.Remove: // a map takes Append (PutAll), not Remove
			ok, want = kind == kandra.KindList || kind == kandra.KindSet || kind == kandra.KindMap && ch.op == catalog.Append, "collection"
		case catalog.Prepend, catalog.AtIndex:
			ok, want = kind == kandra.KindList, "list"
		default: // AtKey, RemoveKeys
			ok, want = kind == kandra.KindMap, "map"
		}
		if !ok {
			return r.argErr(op, "change "+ch.what(), fmt.Sprintf("%s is a %s, not a %s: set it whole with kstore.Set", c.Name(), c.Type(), want))
		}
		if c.IsFrozen() {
			return r.argErr(op, "change "+ch.what(), c.Name()+" is frozen ("+c.Type().Frozen()+"): the servers write it whole only (\"Invalid operation ... for frozen collection column\"); set it with kstore.Set, or drop kandra.Frozen (a schema change)")
		}
	}
	switch ch.op {
	case catalog.AtField:
		switch {
		case kind != kandra.KindUDT:
			return r.argErr(op, "change "+ch.what(), c.Name()+" is a "+c.Type().String()+", not a user-defined type: set it whole with kstore.Set")
		case c.IsFrozen():
			return r.argErr(op, "change "+ch.what(), c.Name()+" is frozen ("+c.Type().Frozen()+"): the servers write it whole only; set it with kstore.Set, or drop kandra.Frozen (a schema change)")
		case ch.fld < 0 || ch.fld >= len(c.Type().Fields()):
			return r.argErr(op, "change "+ch.what(), "the selector does not return the address of a stored field of "+c.GoType().String())
		}
		return r.checkFieldValue(c, ch.fld, ch.v)
	case catalog.RemoveKeys:
		if len(ch.keys) == 0 {
			return r.argErr(op, "change "+ch.what(), "no key to remove")
		}
		for _, k := range ch.keys {
			if err := c.CheckPart(k, true); err != nil {
				return err
			}
		}
		return nil
	case catalog.AtKey:
		if err := c.CheckPart(ch.k, true); err != nil {
			return err
		}
		return c.CheckPart(ch.v, false)
	case catalog.AtIndex:
		if ch.k.(int) < 0 {
			return r.argErr(op, "change "+ch.what(), fmt.Sprintf("index %d: a list's index is at least 0", ch.k))
		}
		return c.CheckPart(ch.v, false)
	}
	if ch.v == nil || !c.ChecksValues() {
		return nil // Clear, or a type without values to refuse
	}
	if ts, ok := ch.v.(*cqlvalue.TextSet); ok {
		// Add's or Remove's elements: checked as a list's or a set's
		// []string, one by one, without boxing each.
		return c.CheckValue((*[]string)(ts))
	}
	return c.CheckValue(ch.v) // a *V of the column's Go type
}

// checkFieldValue checks v, the value of field k of the user-defined
// type column c, as Save checks it inside c's value: through a value of
// c's type holding it.
func (r *Repo[T]) checkFieldValue(c *kandra.ColumnSchema, k int, v any) error {
	if !c.ChecksValues() {
		return nil
	}
	p := reflect.New(c.GoType())
	p.Elem().Field(reflectx.StoredFields(c.GoType())[k]).Set(reflect.ValueOf(v))
	return c.CheckValue(p.Interface())
}

// conditional sends st, a Patch's or a DeleteIf's statement, with its
// values (see bindChanges), and reads what the server returned when it
// did not apply. nw holds the stamps of a Patch: when it applies, they are
// copied into key.
func (r *Repo[T]) conditional(ctx context.Context, op, kind string, sc *scratch, cons kandra.Consistency, key, nw *T, st *adapter.Statement, changes []change, given []cond) (Outcome[T], error) {
	c := &sc.c
	q := r.bindChanges(sc, st, key, changes, given)
	q.Consistency = cons
	var cur *T
	if st.IsConditional() {
		serial, err := r.serialCons(op, c)
		if err != nil {
			return Outcome[T]{}, err
		}
		q.SerialConsistency = serial
		// The row the server returns when it does not apply: into a T of
		// the pool, back to it when the write applied.
		cur, _ = r.current.Get().(*T)
		if cur == nil {
			cur = new(T)
		}
		q.Current = catalog.AppendResult(r.t, st, cur, sc.values(st.NumResult()))
	}
	applied, err := r.exec(ctx, kind, q)
	if err != nil {
		return Outcome[T]{}, err // cur is not reused: the driver may have scanned into it
	}
	if applied {
		if cur != nil {
			var zero T
			*cur = zero // ScyllaDB returns the row's columns with [applied] = true too
			r.current.Put(cur)
		}
		r.restamp(key, nw)
		return Outcome[T]{Applied: true}, nil
	}
	out := Outcome[T]{Exists: q.Returned > 0}
	if out.Exists {
		for _, col := range r.key {
			pk, _ := col.Pointer(key)
			pc, _ := col.Pointer(cur)
			reflect.ValueOf(pc).Elem().Set(reflect.ValueOf(pk).Elem())
		}
		out.Current = cur
	}
	if vc := r.ts.VersionColumn(); vc != nil {
		return out, r.lockErr(key, r.expected(key)+" expected, the row has another version, is gone, or did not meet the conditions: Get it again and retry")
	}
	return out, nil
}

// checkLWT refuses a conditional write the call's options or the
// keyspace's targets cannot carry.
func (r *Repo[T]) checkLWT(op string, c *call) error {
	patch := op == "Patch" // a Patch has a way out: Upsert
	if c.hasTS {
		msg := "a conditional write (a lightweight transaction) cannot carry a client timestamp: the servers refuse it"
		if patch {
			msg += "; pass Upsert without conditions to write at a timestamp"
		}
		return r.argErr(op, "Timestamp", msg)
	}
	if t := r.rt.ks.Targets(); t&kandra.Scylla2025Tablets != 0 {
		msg := "they include " + kandra.Scylla2025Tablets.String() + ", which refuses lightweight transactions: "
		if patch {
			msg += "pass Upsert (a plain write, which creates a missing row), or "
		}
		return r.argErr(op, "the keyspace's Targets", msg+"leave kandra.Scylla2025Tablets out of KeyspaceSpec.Targets")
	}
	return nil
}

// bindChanges binds st, a Patch's or a DeleteIf's statement, in sc: the
// USING values, those of changes, sc.stamps, the key, then sc.conds' and
// given's (the conditions buildPatch left in the caller's Patch).
func (r *Repo[T]) bindChanges(sc *scratch, st *adapter.Statement, key *T, changes []change, given []cond) *adapter.Query {
	c := &sc.c
	q := sc.query(st)
	vals := sc.values(st.NumParams())
	for i := 0; i < st.NumParams(); i++ {
		if k := st.Param(i).Kind; k != adapter.ParamTTL && k != adapter.ParamTimestamp {
			break
		}
		vals = appendParam(vals, st.Param(i), c, sc)
	}
	for _, ch := range changes {
		if ch.op == catalog.AtIndex || ch.op == catalog.AtKey {
			vals = append(vals, ch.k)
		}
		vals = append(vals, ch.v)
	}
	vals = append(vals, sc.stamps...)
	vals = catalog.AppendColumns(r.t, st, key, vals)
	if len(sc.conds) > 0 {
		vals = appendConds(vals, sc.conds)
	}
	if len(given) > 0 {
		vals = appendConds(vals, given)
	}
	if len(vals) != st.NumParams() {
		panic(fmt.Sprintf("kandra/kstore: internal error: %d values for the %d markers of %s", len(vals), st.NumParams(), st.CQL()))
	}
	q.Values = vals
	return q
}

// appendConds appends the values of conds, each one's key or index first.
func appendConds(vals []any, conds []cond) []any {
	for _, x := range conds {
		if x.k != nil {
			vals = append(vals, x.k)
		}
		vals = append(vals, x.vals...)
	}
	return vals
}

// restamp copies a Patch's stamps (UpdatedAt, the version) from nw into
// key once it applied.
func (r *Repo[T]) restamp(key, nw *T) {
	if key == nw {
		return
	}
	for _, col := range []*kandra.ColumnSchema{r.ts.UpdatedAtColumn(), r.ts.VersionColumn()} {
		if col == nil {
			continue
		}
		pk, _ := col.Pointer(key)
		pn, _ := col.Pointer(nw)
		reflect.ValueOf(pk).Elem().Set(reflect.ValueOf(pn).Elem())
	}
}
