package catalog

import (
	"encoding/binary"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
)

// The statements of partial writes (kstore's Patch and Update) and of
// range deletes: their shape depends on the call (which columns, which
// operations, which conditions), so each shape is rendered on first use
// and kept, up to maxShapes per table.

// SetOp is what one SET clause does to its column.
type SetOp uint8

const (
	// Assign is c = ?, the column's value.
	Assign SetOp = iota
	// Append is c = c + ?: a list's elements after the others, a set's
	// elements added, a map's entries put.
	Append
	// Prepend is c = ? + c: a list's elements before the others.
	Prepend
	// Remove is c = c - ?: a list's or a set's values removed.
	Remove
	// RemoveKeys is c = c - ?: a map's keys removed, a set of them.
	RemoveKeys
	// AtIndex is c[?] = ?: a list's element at an index.
	AtIndex
	// AtKey is c[?] = ?: a map's value at a key.
	AtKey
	// AtField is c.f = ?: a user-defined type's field, Set.Field.
	AtField
)

// Set is one SET clause: Op on Col (on its field number Field, for
// AtField).
type Set struct {
	Col   *kandra.ColumnSchema
	Op    SetOp
	Field int
}

// CondOp is the operator of one IF condition.
type CondOp uint8

// The condition operators. IsNull and NotNull have no marker (= null,
// != null); In has N.
const (
	Eq CondOp = iota
	Ne
	Lt
	Le
	Gt
	Ge
	In
	IsNull
	NotNull
)

var condText = [...]string{" = ?", " != ?", " < ?", " <= ?", " > ?", " >= ?", " IN (", " = null", " != null"}

// Cond is one IF condition: Col Op value, on the column or, with Key, on
// its element at a key (a map's, m[?] = ?) or an index (a list's).
type Cond struct {
	Col *kandra.ColumnSchema
	Op  CondOp
	Key bool
	N   int // In's values
}

// PatchSpec is the shape of one partial write: an UPDATE of the row of
// the key (every key column bound, adapter.ParamColumn) with Sets, and
// either IfExists or Conds (joined by AND). Its markers, in order: the
// USING values, each Set's (the column's value; an index or key, then an
// element), the key's columns, each Cond's (an index or key first).
type PatchSpec struct {
	Using    Using
	Sets     []Set
	Conds    []Cond
	IfExists bool
}

// maxShapes bounds the shapes a table keeps: a program has a fixed set of
// calls, but IN makes one shape per arity.
const maxShapes = 4096

// shapes are the rendered statements of a table's partial writes and
// range deletes, by shape. Every call looks its shape up and a new shape
// is rare, so the map is copied on write: a lookup is one atomic load, no
// lock shared between the calls of every core.
type shapes struct {
	mu sync.Mutex // held to add a shape
	m  atomic.Pointer[map[string]*adapter.Statement]
}

// shaped returns the statement of shape key, rendering it with build on
// first use. key is looked up without a copy: a call that hits the cache
// allocates nothing.
func (s *Table) shaped(key []byte, build func() *adapter.Statement) *adapter.Statement {
	if m := s.shapes.m.Load(); m != nil {
		if st := (*m)[string(key)]; st != nil {
			return st
		}
	}
	st := build()
	s.shapes.mu.Lock()
	defer s.shapes.mu.Unlock()
	var old map[string]*adapter.Statement
	if p := s.shapes.m.Load(); p != nil {
		old = *p
	}
	if prev := old[string(key)]; prev != nil {
		return prev
	}
	if len(old) >= maxShapes {
		return st
	}
	m := make(map[string]*adapter.Statement, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	m[string(key)] = st
	s.shapes.m.Store(&m)
	return st
}

// fill puts st in an empty slot and returns the slot's statement: st, or
// the one another call put there first.
func fill(slot *atomic.Pointer[adapter.Statement], st *adapter.Statement) *adapter.Statement {
	slot.CompareAndSwap(nil, st)
	return slot.Load()
}

// patchSlots are the Patches of one change of one column without a
// condition, by its SetOp (but AtField), IF EXISTS and Using: the common
// Patch (Set, Append, Add, Put of one column) finds its statement by
// index, without building and hashing its shape's key.
type patchSlots [AtField][2][4]atomic.Pointer[adapter.Statement]

// Patch is the UPDATE of spec. buf is scratch for the shape's key (its
// memory is reused by the caller). Without Sets it returns nil.
func (s *Table) Patch(spec *PatchSpec, buf []byte) *adapter.Statement {
	if len(spec.Sets) == 0 {
		return nil
	}
	if set := spec.Sets[0]; len(spec.Sets) == 1 && len(spec.Conds) == 0 {
		if slot := s.patchOneSlot(set.Col, set.Op, spec.IfExists, spec.Using); slot != nil {
			if st := slot.Load(); st != nil {
				return st
			}
			// The shapes' statement, so that both ways give the same one.
			return fill(slot, s.patchShaped(spec, buf))
		}
	}
	if key, ok := packPatch(spec); ok {
		slot := &s.patchPacked[packedSlot(key)]
		if p := slot.Load(); p != nil && p.key == key {
			return p.st
		}
		st := s.patchShaped(spec, buf)
		if slot.Load() == nil {
			slot.CompareAndSwap(nil, &packedShape{key: key, st: st})
		}
		return st
	}
	return s.patchShaped(spec, buf)
}

// packedSlot is the slot of patchPacked for a packed shape: its bits
// folded to 5.
func packedSlot(key uint64) uint64 { return key * 0x9E3779B97F4A7C15 >> (64 - 5) }

// packedShape is a Patch's statement kept under its packed shape.
type packedShape struct {
	key uint64
	st  *adapter.Statement
}

// patchPacked keeps the Patches whose shape packs into 64 bits (packPatch)
// but has no patchOne slot (a condition, or several changes), direct
// mapped by the packed key: the first shape to claim a slot keeps it, and
// the rest go through the shapes' map as before. A program's conditional
// Patches are a few shapes, and a lookup here is a load and a compare
// where the map's is a key built and hashed.
type patchSlotsPacked [32]atomic.Pointer[packedShape]

// packPatch packs spec's shape, every part of it that tells two
// statements apart, into a uint64: 7 bits of Using, IfExists and the
// counts, 15 per Set (its SetOp and column position) and 21 per Cond (its
// operator, Key, column position and N). A shape that does not fit (an
// AtField change, a position past 4095, an IN of more than 15 values,
// more than 3 Sets or Conds, or more than 64 bits in all) is not packed.
func packPatch(spec *PatchSpec) (uint64, bool) {
	if spec.Using >= 4 || len(spec.Sets) > 3 || len(spec.Conds) > 3 || 7+15*len(spec.Sets)+21*len(spec.Conds) > 64 {
		return 0, false
	}
	key := uint64(spec.Using) | uint64(len(spec.Sets))<<2 | uint64(len(spec.Conds))<<4
	if spec.IfExists {
		key |= 1 << 6
	}
	at := 7
	for _, st := range spec.Sets {
		pos := st.Col.Position()
		if st.Op >= AtField || pos < 0 || pos >= 1<<12 {
			return 0, false
		}
		key |= (uint64(st.Op) | uint64(pos)<<3) << at
		at += 15
	}
	for _, c := range spec.Conds {
		pos := c.Col.Position()
		if c.Op > NotNull || pos < 0 || pos >= 1<<12 || c.N < 0 || c.N >= 1<<4 {
			return 0, false
		}
		k := uint64(0)
		if c.Key {
			k = 1
		}
		key |= (uint64(c.Op) | k<<4 | uint64(pos)<<5 | uint64(c.N)<<17) << at
		at += 21
	}
	return key, true
}

// PatchOne is Patch of the spec of one change, op on col, with IF EXISTS
// or none and USING u, without a spec when its statement is made already.
func (s *Table) PatchOne(col *kandra.ColumnSchema, op SetOp, ifExists bool, u Using) *adapter.Statement {
	if slot := s.patchOneSlot(col, op, ifExists, u); slot != nil {
		if st := slot.Load(); st != nil {
			return st
		}
	}
	return s.Patch(&PatchSpec{Using: u, Sets: []Set{{Col: col, Op: op}}, IfExists: ifExists}, nil)
}

// PatchCached is Patch's statement of spec when it is made and kept in a
// slot (one change without a condition, or a shape that packs into 64
// bits), or nil: then Patch makes it. It keeps nothing of spec, which may
// be on the caller's stack.
func (s *Table) PatchCached(spec *PatchSpec) *adapter.Statement {
	if len(spec.Sets) == 1 && len(spec.Conds) == 0 {
		if slot := s.patchOneSlot(spec.Sets[0].Col, spec.Sets[0].Op, spec.IfExists, spec.Using); slot != nil {
			return slot.Load()
		}
		return nil
	}
	if key, ok := packPatch(spec); ok {
		if p := s.patchPacked[packedSlot(key)].Load(); p != nil && p.key == key {
			return p.st
		}
	}
	return nil
}

// patchOneSlot is the patchOne slot of one change, op on col, or nil for a
// change that has none.
func (s *Table) patchOneSlot(col *kandra.ColumnSchema, op SetOp, ifExists bool, u Using) *atomic.Pointer[adapter.Statement] {
	pos := col.Position()
	if op >= AtField || u >= 4 || pos < 0 || pos >= len(s.patchOne) {
		return nil
	}
	slots := s.patchOne[pos].Load()
	if slots == nil {
		s.patchOne[pos].CompareAndSwap(nil, new(patchSlots))
		slots = s.patchOne[pos].Load()
	}
	ie := 0
	if ifExists {
		ie = 1
	}
	return &slots[op][ie][u]
}

// patchShaped is Patch through the shapes' cache.
func (s *Table) patchShaped(spec *PatchSpec, buf []byte) *adapter.Statement {
	key := append(buf[:0], 'P', byte(spec.Using))
	if spec.IfExists {
		key = append(key, 'E')
	}
	for _, st := range spec.Sets {
		key = binary.AppendVarint(append(key, 's', byte(st.Op)), int64(st.Col.Position()))
		if st.Op == AtField {
			key = binary.AppendVarint(append(key, '.'), int64(st.Field))
		}
	}
	key = appendCondsKey(key, spec.Conds)
	return s.shaped(key, func() *adapter.Statement { return s.builder.patch(spec) })
}

// appendCondsKey appends conds' part of a shape's key.
func appendCondsKey(key []byte, conds []Cond) []byte {
	for _, c := range conds {
		k := byte(0)
		if c.Key {
			k = 1
		}
		key = binary.AppendVarint(append(key, 'c', byte(c.Op), k), int64(c.Col.Position()))
		key = binary.AppendVarint(append(key, ':'), int64(c.N))
	}
	return key
}

func (b *stmtBuilder) patch(spec *PatchSpec) *adapter.Statement {
	w := newSB(b.t.Name())
	w.WriteString("UPDATE ")
	w.WriteString(b.qualify(b.t.CQLName()))
	w.using(spec.Using)
	w.WriteString(" SET ")
	appends := false
	for i, st := range spec.Sets {
		if i > 0 {
			w.WriteString(", ")
		}
		n := st.Col.CQLName()
		switch st.Op {
		case Assign:
			w.WriteString(n + " = ?")
			w.mark(adapter.ParamValue, st.Col)
		case Append:
			w.WriteString(n + " = " + n + " + ?")
			w.mark(adapter.ParamValue, st.Col)
			appends = appends || st.Col.Type().Kind() == kandra.KindList
		case Prepend:
			w.WriteString(n + " = ? + " + n)
			w.mark(adapter.ParamValue, st.Col)
			appends = true
		case Remove:
			w.WriteString(n + " = " + n + " - ?")
			w.mark(adapter.ParamValue, st.Col)
		case RemoveKeys:
			w.WriteString(n + " = " + n + " - ?")
			w.mark(adapter.ParamKeys, st.Col)
		case AtIndex:
			w.WriteString(n + "[?] = ?")
			w.mark(adapter.ParamIndex, nil)
			w.mark(adapter.ParamElement, st.Col)
		case AtKey:
			w.WriteString(n + "[?] = ?")
			w.mark(adapter.ParamMapKey, st.Col)
			w.mark(adapter.ParamElement, st.Col)
		case AtField:
			w.WriteString(n + "." + kandra.QuoteIdent(st.Col.Type().Fields()[st.Field].Name) + " = ?")
			w.s.Params = append(w.s.Params, adapter.Param{Kind: adapter.ParamField, Column: st.Col, Field: st.Field})
		}
	}
	w.WriteString(" WHERE ")
	w.where(b.t.PrimaryKey())
	b.conditions(w, spec.Conds, spec.IfExists)
	st := w.done()
	if appends && st.IsIdempotent() {
		// An append or a prepend adds the elements again at each
		// application: a retry would hold them twice.
		w.s.Idempotent = false
		return adapter.NewStatement(w.s)
	}
	return st
}

// conditions writes the IF clause of conds (or IF EXISTS) and makes the
// statement conditional, with the conditions' columns as its result: the
// row the server returns when it does not apply it.
func (b *stmtBuilder) conditions(w *sb, conds []Cond, ifExists bool) {
	if ifExists {
		w.WriteString(" IF EXISTS")
		w.s.Conditional = true
		return
	}
	for i, c := range conds {
		if i == 0 {
			w.WriteString(" IF ")
		} else {
			w.WriteString(" AND ")
		}
		w.WriteString(c.Col.CQLName())
		if c.Key {
			w.WriteString("[?]")
			if c.Col.Type().Kind() == kandra.KindList {
				w.mark(adapter.ParamIndex, nil)
			} else {
				w.mark(adapter.ParamMapKey, c.Col)
			}
		}
		w.WriteString(condText[c.Op])
		kind := adapter.ParamValue
		if c.Key {
			kind = adapter.ParamElement
		}
		switch c.Op {
		case IsNull, NotNull:
		case In:
			for k := 0; k < c.N; k++ {
				if k > 0 {
					w.WriteString(", ")
				}
				w.WriteString("?")
				w.mark(kind, c.Col)
			}
			w.WriteString(")")
		default:
			w.mark(kind, c.Col)
		}
		w.s.Conditional = true
		if !slices.Contains(w.s.Result, c.Col) {
			w.s.Result = append(w.s.Result, c.Col)
		}
	}
}

// DeleteSpec is the shape of a DELETE of one row (Row: the whole key,
// adapter.ParamColumn markers) or of a part of a partition: its key's
// columns (adapter.ParamColumn), the first Prefix clustering columns by
// equality (adapter.ParamPrefix), then the next clustering column
// bounded by Lower and Upper (adapter.ParamLowerBound and
// ParamUpperBound). Conds (of a Row) make it conditional, as IfExists
// does.
type DeleteSpec struct {
	Using        Using // UsingTimestamp or none
	Row          bool
	Prefix       int
	Lower, Upper Bound
	Conds        []Cond
	IfExists     bool
}

// rangeDelSlots are the range deletes of one prefix length without a
// condition, by lower and upper bound and Using: DeleteRange finds its
// statement by index, as a List does.
type rangeDelSlots [3][3][4]atomic.Pointer[adapter.Statement]

// DeleteWhere is the DELETE of spec; buf is scratch as for Patch.
func (s *Table) DeleteWhere(spec *DeleteSpec, buf []byte) *adapter.Statement {
	if !spec.Row && !spec.IfExists && len(spec.Conds) == 0 && spec.Prefix >= 0 && spec.Prefix < len(s.rangeDels) &&
		spec.Lower <= Exclusive && spec.Upper <= Exclusive && spec.Using < 4 {
		slot := &s.rangeDels[spec.Prefix][spec.Lower][spec.Upper][spec.Using]
		if st := slot.Load(); st != nil {
			return st
		}
		return fill(slot, s.deleteShaped(spec, buf))
	}
	return s.deleteShaped(spec, buf)
}

// deleteShaped is DeleteWhere through the shapes' cache.
func (s *Table) deleteShaped(spec *DeleteSpec, buf []byte) *adapter.Statement {
	key := append(buf[:0], 'D', byte(spec.Using), byte(spec.Prefix), byte(spec.Lower), byte(spec.Upper))
	if spec.IfExists {
		key = append(key, 'E')
	}
	if spec.Row {
		key = append(key, 'R')
	}
	key = appendCondsKey(key, spec.Conds)
	return s.shaped(key, func() *adapter.Statement { return s.builder.deleteWhere(spec) })
}

func (b *stmtBuilder) deleteWhere(spec *DeleteSpec) *adapter.Statement {
	w := newSB(b.t.Name())
	w.WriteString("DELETE FROM ")
	w.WriteString(b.qualify(b.t.CQLName()))
	w.using(spec.Using & UsingTimestamp)
	w.WriteString(" WHERE ")
	if spec.Row {
		w.where(b.t.PrimaryKey())
		b.conditions(w, spec.Conds, spec.IfExists)
		return w.done()
	}
	w.where(b.t.PartitionKeys())
	cl := b.t.ClusteringKeys()
	for _, c := range cl[:spec.Prefix] {
		w.WriteString(" AND " + c.CQLName() + " = ?")
		w.mark(adapter.ParamPrefix, c)
	}
	if spec.Prefix < len(cl) {
		c := cl[spec.Prefix]
		for _, bd := range [2]struct {
			b    Bound
			op   [2]string
			kind adapter.ParamKind
		}{{spec.Lower, [2]string{" > ?", " >= ?"}, adapter.ParamLowerBound}, {spec.Upper, [2]string{" < ?", " <= ?"}, adapter.ParamUpperBound}} {
			if bd.b == Unbounded {
				continue
			}
			w.WriteString(" AND " + c.CQLName())
			if bd.b == Inclusive {
				w.WriteString(bd.op[1])
			} else {
				w.WriteString(bd.op[0])
			}
			w.mark(bd.kind, c)
		}
	}
	b.conditions(w, spec.Conds, spec.IfExists)
	return w.done()
}

// UpdateColumns is the table's UPDATE of the row of a key setting only
// cols (adapter.ParamColumn markers, as Update's; cols in column order),
// with IF version = ? (adapter.ParamExpected) when ifVersion: the
// statement of an Update that writes only the columns that changed. buf
// is scratch as for Patch.
func (s *Table) UpdateColumns(cols []*kandra.ColumnSchema, u Using, ifVersion bool, buf []byte) *adapter.Statement {
	key := append(buf[:0], 'U', byte(u))
	if ifVersion {
		key = append(key, 'V')
	}
	for _, c := range cols {
		key = binary.AppendVarint(append(key, ','), int64(c.Position()))
	}
	return s.shaped(key, func() *adapter.Statement {
		cond := noVersion
		if ifVersion {
			cond = versionExpected
		}
		w := newSB(s.schema.Name())
		s.builder.updateSet(w, u, "", cols, cond)
		return w.done()
	})
}
