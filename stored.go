package kandra

// Stored equality: the one notion of "the same value" the runtime uses,
// the value as the server holds it, byte for byte. One stored value has
// many Go forms (a time in another zone or with sub-millisecond parts, a
// 16-byte net.IP of an IPv4 address, a UDT with a `kandra:"-"` field set,
// a key reached through another pointer, a set in another order), and the
// server compares bytes: a comparison of Go values would tell two forms of
// one row apart, or one claim from itself. The encoding is the adapter
// core's (package adapter, on internal/cqlvalue and internal/cqlcompare),
// written here again without a driver; the adapters' tests cross-check
// the two byte for byte.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"net"
	"net/netip"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra/internal/cqlcompare"
	"github.com/kandra-go/kandra/internal/cqlvalue"
	"github.com/kandra-go/kandra/internal/reflectx"
	"github.com/kandra-go/kandra/kerrors"
)

// AppendStored appends to dst the value at p (a *V for the column's Go
// type V, as CheckValue takes it) as the server stores it, in the native
// protocol's [bytes] form: a 4-byte big-endian length and the bytes, or
// the length -1 for null. Null is a nil pointer, a value sent as null
// (SentAsNull), and an empty collection in a column that is not frozen
// (the server keeps no cell for it); an empty collection in a frozen
// context (a key column, a Frozen() column, inside a collection or a
// user-defined type) is a value. The concatenation of AppendStored for
// several columns is therefore an unambiguous key: two values append the
// same bytes exactly when the server holds them as one.
//
// The bytes are those the driver adapters send (package adapter): a
// TIMESTAMP's milliseconds (a time's zone and sub-millisecond part do not
// count), a DATE's day, an IPv4 address in 4 bytes however net.IP holds
// it, a float's bits as they are sent (NaNs of one payload are the same
// value, of different payloads not), a set's elements and a map's keys in
// the server's order, each once as the server keeps them (of elements its
// comparator holds equal, the first), and a user-defined type's stored
// fields in its order (a `kandra:"-"` field is not stored and never
// counts).
//
// It fails, appending nothing, with an *kerrors.ArgumentError when p is
// not a non-nil *V, with the *kerrors.ValueError of CheckValue for a value
// CheckValue refuses (it has no stored form), and with an error naming
// the Go type for a type whose bytes kandra leaves to the driver: a
// CQLTyper (a decimal type, say), a type with its own MarshalCQL, or one
// given with AsType that kandra maps to no CQL type of its own.
func (c *ColumnSchema) AppendStored(dst []byte, p any) ([]byte, error) {
	pl := c.storedPlan()
	if pl.fastAppend {
		if out, ok := appendStoredFast(c, pl.fast, dst, p); ok {
			return out, nil
		}
	}
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Type() != c.goType {
		return dst, &kerrors.ArgumentError{Op: "AppendStored on " + c.where(), Arg: "p",
			Message: fmt.Sprintf("want a non-nil *%s, got %T", c.goType, p)}
	}
	if pl.enc == nil {
		return dst, pl.err
	}
	if c.check != nil {
		if bad, problem := c.check(v.Elem()); problem != "" {
			return dst, c.valueErr(bad, problem)
		}
	}
	out, fail := appendFramed(dst, pl.enc, v.Elem())
	if fail != nil {
		return dst, c.valueErr(fail.bad, fail.problem)
	}
	return out, nil
}

// CompareStored orders the values at a and b (each a *V, as for
// AppendStored) as the server sorts them in a column in ascending order
// (a clustering column's, a set's elements): -1, 0 or +1. It fails as
// AppendStored does, and for a null.
func (c *ColumnSchema) CompareStored(a, b any) (int, error) {
	// Pooled buffers, as SameStored's: arrays on the stack escaped through
	// the stored encoders, two allocations a comparison (a merge makes one
	// per row it lists).
	ba, bb := getStoredBuf(), getStoredBuf()
	defer putStoredBuf(ba)
	defer putStoredBuf(bb)
	x, err := c.AppendStored((*ba)[:0], a)
	if err != nil {
		return 0, err
	}
	*ba = x
	y, err := c.AppendStored((*bb)[:0], b)
	if err != nil {
		return 0, err
	}
	*bb = y
	if int32(binary.BigEndian.Uint32(x)) < 0 || int32(binary.BigEndian.Uint32(y)) < 0 {
		return 0, &kerrors.ArgumentError{Op: "CompareStored on " + c.where(), Arg: "a, b", Message: "a null has no place in the order"}
	}
	return cqlcompare.Compare(c.storedPlan().order, x[4:], y[4:]), nil
}

// SameStored reports whether the values at a and b (each a *V, as for
// AppendStored) are stored as the same bytes: whether the server holds
// them as one value. It is AppendStored's equality, without building the
// bytes for the common types (string, the integers, bool, float64,
// []byte, uuid.UUID, time.Time in a TIMESTAMP or DATE).
//
// Where AppendStored fails for either value (a value CheckValue refuses,
// which is never stored; a Go type whose bytes kandra leaves to the
// driver, such as a CQLTyper; a or b not a non-nil *V), SameStored
// compares the Go values instead, with reflect.DeepEqual: the stored form
// is unknown, and equal Go values are at least sent as the same bytes.
func (c *ColumnSchema) SameStored(a, b any) bool {
	if same, ok := sameStoredFast(c.storedPlan().fast, a, b); ok {
		return same
	}
	ba, bb := getStoredBuf(), getStoredBuf()
	defer putStoredBuf(ba)
	defer putStoredBuf(bb)
	var errA, errB error
	*ba, errA = c.AppendStored((*ba)[:0], a)
	*bb, errB = c.AppendStored((*bb)[:0], b)
	if errA != nil || errB != nil {
		return reflect.DeepEqual(a, b)
	}
	return bytes.Equal(*ba, *bb)
}

// StoredDiff compares chosen columns of two entities as the server
// stores them (ColumnSchema.SameStored), planned once for a caller that
// compares many columns on every call (an Update compares every regular
// column): each column's field and comparison sit side by side, so that
// the common types are compared in place, reading neither the column's
// schema nor handing out the fields' addresses. Make one with
// Table.StoredDiff; it is safe for concurrent use.
type StoredDiff[T any] struct {
	cols []diffColumn
	// The bitwise screen of AppendChanged, when T's words can be read
	// (screen): the columns whose fields overlap word w are
	// wordCols[wordAt[w]:wordAt[w+1]]; words lo to hi hold them all but
	// tail's, which lie past T's last whole word (or have no bytes) and
	// are always compared.
	screen   bool
	lo, hi   int
	wordAt   []int32
	wordCols []int32
	tail     []int32
	// narrow: at most 64 columns, screened as one bit set: wordMask[k]
	// is the set of the columns whose fields overlap word lo+k, tailMask
	// the tail's. Most entities have no more, and their screen is then an
	// OR per differing word, with no list to walk.
	narrow   bool
	wordMask []uint64
	tailMask uint64
}

// maxScreened is the most columns AppendChanged screens (its bit set).
const maxScreened = 256

type diffColumn struct {
	fast storedFast
	at   columnAccess
	size uintptr // the field's, for the bitwise check
	col  *ColumnSchema
}

// StoredDiff plans the comparison of cols, columns of t, in that order.
// It panics on a column of another table, as ColumnPointers does.
func (t *Table[T]) StoredDiff(cols []*ColumnSchema) *StoredDiff[T] {
	d := &StoredDiff[T]{cols: make([]diffColumn, len(cols))}
	for i, c := range cols {
		if c.table != t.schema {
			panic("kandra: Table[" + t.schema.entity.String() + "].StoredDiff: column " + c.name + " belongs to another table")
		}
		d.cols[i] = diffColumn{fast: c.storedPlan().fast, at: t.access[c.position], size: c.goType.Size(), col: c}
	}
	d.planScreen(t.schema.entity)
	return d
}

// planScreen maps the words of entity (T) to the columns whose fields
// overlap them.
func (d *StoredDiff[T]) planScreen(entity reflect.Type) {
	const ws = reflectx.WordSize
	if len(d.cols) > maxScreened || uintptr(entity.Align()) < ws {
		return // compared column by column
	}
	words := int(entity.Size() / ws)
	per := make([][]int32, words)
	for i, dc := range d.cols {
		end := dc.at.offset + dc.size
		if dc.size == 0 || end > uintptr(words)*ws {
			d.tail = append(d.tail, int32(i))
		}
		for w := int(dc.at.offset / ws); w < words && uintptr(w)*ws < end; w++ {
			per[w] = append(per[w], int32(i))
		}
	}
	d.wordAt = make([]int32, words+1)
	d.lo, d.hi = words, 0
	for w, cols := range per {
		if len(cols) > 0 {
			d.lo, d.hi = min(d.lo, w), w+1
		}
		d.wordCols = append(d.wordCols, cols...)
		d.wordAt[w+1] = int32(len(d.wordCols))
	}
	d.screen = true
	if len(d.cols) <= 64 {
		d.narrow = true
		for _, i := range d.tail {
			d.tailMask |= 1 << i
		}
		d.wordMask = make([]uint64, max(d.hi-d.lo, 0))
		for w := d.lo; w < d.hi; w++ {
			for _, i := range per[w] {
				d.wordMask[w-d.lo] |= 1 << i
			}
		}
	}
}

// AppendChanged appends to dst, in ascending order, the indexes i of the
// columns whose values a and b do not store the same: those for which
// Same(i, a, b) is false. It reads a and b word by word first and
// compares only the columns whose fields differ in some bit, so that two
// copies of an entity that differ in a few fields cost little more than
// reading them.
func (d *StoredDiff[T]) AppendChanged(dst []int, a, b *T) []int {
	if !d.screen {
		for i := range d.cols {
			if !d.Same(i, a, b) {
				dst = append(dst, i)
			}
		}
		return dst
	}
	if d.narrow {
		maybe := d.tailMask // the columns to compare
		for k, m := range d.wordMask {
			if reflectx.Word(a, d.lo+k) != reflectx.Word(b, d.lo+k) {
				maybe |= m
			}
		}
		for maybe != 0 {
			i := bits.TrailingZeros64(maybe)
			maybe &= maybe - 1
			if !d.Same(i, a, b) {
				dst = append(dst, i)
			}
		}
		return dst
	}
	var maybe [maxScreened / 64]uint64 // the columns to compare
	for _, i := range d.tail {
		maybe[i>>6] |= 1 << (i & 63)
	}
	for w := d.lo; w < d.hi; w++ {
		if reflectx.Word(a, w) != reflectx.Word(b, w) {
			for _, i := range d.wordCols[d.wordAt[w]:d.wordAt[w+1]] {
				maybe[i>>6] |= 1 << (i & 63)
			}
		}
	}
	for k, m := range maybe {
		for m != 0 {
			i := k<<6 + bits.TrailingZeros64(m)
			m &= m - 1
			if !d.Same(i, a, b) {
				dst = append(dst, i)
			}
		}
	}
	return dst
}

// Len is the number of columns d compares.
func (d *StoredDiff[T]) Len() int { return len(d.cols) }

// Same reports whether a and b hold values stored the same in d's i-th
// column: its ColumnSchema.SameStored of their fields, but that a field
// bitwise the same in a and b is always the same (where SameStored falls
// back to reflect.DeepEqual, a NaN inside a value is unequal to itself).
func (d *StoredDiff[T]) Same(i int, a, b *T) bool {
	dc := &d.cols[i]
	off := dc.at.offset
	switch dc.fast {
	case fastString:
		return *reflectx.FieldAt[string](a, off) == *reflectx.FieldAt[string](b, off)
	case fastInt64:
		return *reflectx.FieldAt[int64](a, off) == *reflectx.FieldAt[int64](b, off)
	case fastInt:
		return *reflectx.FieldAt[int](a, off) == *reflectx.FieldAt[int](b, off)
	case fastInt32:
		return *reflectx.FieldAt[int32](a, off) == *reflectx.FieldAt[int32](b, off)
	case fastBool:
		return *reflectx.FieldAt[bool](a, off) == *reflectx.FieldAt[bool](b, off)
	case fastUUID:
		return *reflectx.FieldAt[uuid.UUID](a, off) == *reflectx.FieldAt[uuid.UUID](b, off)
	case fastFloat64:
		return math.Float64bits(*reflectx.FieldAt[float64](a, off)) == math.Float64bits(*reflectx.FieldAt[float64](b, off))
	}
	// The kinds whose comparison converts or walks the values: a field
	// bitwise the same in a and b (the common case of an Update, whose new
	// is a copy of old) holds the same value, stored the same.
	if reflectx.SameMemory(a, b, off, dc.size) {
		return true
	}
	switch dc.fast {
	case fastBytes:
		return sameBlob(*reflectx.FieldAt[[]byte](a, off), *reflectx.FieldAt[[]byte](b, off))
	case fastTextList, fastFrozenTextList:
		return sameTextList(dc.fast == fastFrozenTextList, *reflectx.FieldAt[[]string](a, off), *reflectx.FieldAt[[]string](b, off))
	case fastTimestamp, fastDate:
		return sameTime(dc.fast == fastDate, *reflectx.FieldAt[time.Time](a, off), *reflectx.FieldAt[time.Time](b, off))
	}
	return dc.col.SameStored(reflectx.PackField(dc.at.ptrType, a, off), reflectx.PackField(dc.at.ptrType, b, off))
}

var storedBufs = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

func getStoredBuf() *[]byte { return storedBufs.Get().(*[]byte) }

func putStoredBuf(b *[]byte) {
	if cap(*b) <= 64<<10 { // a rare large value is not kept
		storedBufs.Put(b)
	}
}

func (c *ColumnSchema) where() string {
	if c.table == nil {
		return c.name
	}
	return c.table.Name() + "." + c.name
}

// storedState is a column's stored-form plan, built on first use.
type storedState struct {
	once sync.Once
	plan storedPlan
}

// storedPlan is how a column's values are encoded in their stored form.
type storedPlan struct {
	enc        storedEnc       // nil: the Go type has no stored form kandra knows (err says why)
	err        error           // AppendStored's error when enc is nil
	fast       storedFast      // a common type compared and appended without reflect
	fastAppend bool            // appendStoredFast covers the column (its check is the encoding's)
	order      cqlcompare.Type // how the server sorts the column's values (CompareStored)
}

func (c *ColumnSchema) storedPlan() *storedPlan {
	s := &c.stored
	s.once.Do(func() { s.plan = c.planStoredColumn() })
	return &s.plan
}

func (c *ColumnSchema) planStoredColumn() storedPlan {
	var pl storedPlan
	enc, problem := planStored(c.goType, c.typ, storedCtx{top: true, frozen: c.IsFrozen()})
	if problem != "" {
		pl.err = fmt.Errorf("kandra: %s (%s, Go type %s) has no stored form kandra knows: %s", c.where(), c.typ.brief(), c.goType, problem)
		return pl
	}
	pl.enc = enc
	pl.order = compareType(c.typ)
	pl.fast = fastOf(c.goType, c.typ)
	if pl.fast == fastNone && c.goType == typeStrings && c.typ.Kind() == KindList && isTextName(c.typ.Elem().n.name) {
		pl.fast = fastTextList
		if c.IsFrozen() {
			pl.fast = fastFrozenTextList
		}
	}
	switch pl.fast {
	case fastString, fastTimestamp, fastDate: // their checks are appendStoredFast's
		pl.fastAppend = true
	case fastNone:
	default:
		pl.fastAppend = c.check == nil
	}
	return pl
}

// storedFast names the common column types compared and appended without
// reflect.
type storedFast uint8

const (
	fastNone      storedFast = iota
	fastString               // string in TEXT, VARCHAR, ASCII
	fastInt64                // int64 in an integer type
	fastInt                  // int in an integer type
	fastInt32                // int32 in an integer type
	fastBool                 // bool in BOOLEAN
	fastFloat64              // float64 in DOUBLE
	fastBytes                // []byte in BLOB
	fastUUID                 // uuid.UUID in UUID or TIMEUUID
	fastTimestamp            // time.Time in TIMESTAMP
	fastDate                 // time.Time in DATE
	// []string in a LIST of TEXT, VARCHAR or ASCII: compared only (a
	// list that is not frozen is null when empty, a frozen one is not).
	fastTextList
	fastFrozenTextList
)

var (
	typeString  = reflect.TypeFor[string]()
	typeInt64   = reflect.TypeFor[int64]()
	typeInt     = reflect.TypeFor[int]()
	typeInt32   = reflect.TypeFor[int32]()
	typeFloat32 = reflect.TypeFor[float32]()
	typeFloat64 = reflect.TypeFor[float64]()
	typeBytes   = reflect.TypeFor[[]byte]()
	typeStrings = reflect.TypeFor[[]string]()
)

func isTextName(name string) bool { return name == "TEXT" || name == "VARCHAR" || name == "ASCII" }

// cqlIntSize is the width of each CQL integer type; 0 for VARINT.
var cqlIntSize = map[string]int{"TINYINT": 1, "SMALLINT": 2, "INT": 4, "BIGINT": 8, "COUNTER": 8, "VARINT": 0}

func fastOf(t reflect.Type, ct CQLType) storedFast {
	if ct.Kind() != KindNative {
		return fastNone
	}
	name := ct.n.name
	_, isInt := cqlIntSize[name]
	switch {
	case t == typeString && isTextName(name):
		return fastString
	case t == typeInt64 && isInt:
		return fastInt64
	case t == typeInt && isInt:
		return fastInt
	case t == typeInt32 && isInt:
		return fastInt32
	case t == typeBool && name == "BOOLEAN":
		return fastBool
	case t == typeFloat64 && name == "DOUBLE":
		return fastFloat64
	case t == typeBytes && name == "BLOB":
		return fastBytes
	case t == typeUUID && (name == "UUID" || name == "TIMEUUID"):
		return fastUUID
	case t == typeTime && name == "TIMESTAMP":
		return fastTimestamp
	case t == typeTime && name == "DATE":
		return fastDate
	}
	return fastNone
}

// sameStoredFast is SameStored for the common types: where the Go values'
// equality is the stored bytes' (every integer of an integer type, a
// string, a bool, a UUID, whose zero value is null in a TIMEUUID and
// equal to itself), by it, and by the bytes' parts otherwise. ok is false
// when a or b is not of the column's type: SameStored then takes its
// general path.
func sameStoredFast(f storedFast, a, b any) (same, ok bool) {
	switch f {
	case fastString:
		x, ok1 := a.(*string)
		y, ok2 := b.(*string)
		if ok1 && ok2 && x != nil && y != nil {
			return *x == *y, true
		}
	case fastInt64:
		x, ok1 := a.(*int64)
		y, ok2 := b.(*int64)
		if ok1 && ok2 && x != nil && y != nil {
			return *x == *y, true
		}
	case fastInt:
		x, ok1 := a.(*int)
		y, ok2 := b.(*int)
		if ok1 && ok2 && x != nil && y != nil {
			return *x == *y, true
		}
	case fastInt32:
		x, ok1 := a.(*int32)
		y, ok2 := b.(*int32)
		if ok1 && ok2 && x != nil && y != nil {
			return *x == *y, true
		}
	case fastBool:
		x, ok1 := a.(*bool)
		y, ok2 := b.(*bool)
		if ok1 && ok2 && x != nil && y != nil {
			return *x == *y, true
		}
	case fastFloat64:
		x, ok1 := a.(*float64)
		y, ok2 := b.(*float64)
		if ok1 && ok2 && x != nil && y != nil {
			return math.Float64bits(*x) == math.Float64bits(*y), true
		}
	case fastBytes:
		x, ok1 := a.(*[]byte)
		y, ok2 := b.(*[]byte)
		if ok1 && ok2 && x != nil && y != nil {
			return sameBlob(*x, *y), true
		}
	case fastUUID:
		x, ok1 := a.(*uuid.UUID)
		y, ok2 := b.(*uuid.UUID)
		if ok1 && ok2 && x != nil && y != nil {
			return *x == *y, true
		}
	case fastTextList, fastFrozenTextList:
		x, ok1 := a.(*[]string)
		y, ok2 := b.(*[]string)
		if !ok1 || !ok2 || x == nil || y == nil {
			return false, false
		}
		return sameTextList(f == fastFrozenTextList, *x, *y), true
	case fastTimestamp, fastDate:
		x, ok1 := a.(*time.Time)
		y, ok2 := b.(*time.Time)
		if !ok1 || !ok2 || x == nil || y == nil {
			return false, false
		}
		return sameTime(f == fastDate, *x, *y), true
	}
	return false, false
}

// sameBlob compares two BLOB values as stored: nil is null, an empty
// slice an empty value.
func sameBlob(x, y []byte) bool { return (x == nil) == (y == nil) && bytes.Equal(x, y) }

// sameTextList compares two lists of text as stored. Equal elements are
// equal bytes (or the same invalid text, which the general path would
// compare as Go values: equal too); different ones are different bytes,
// or a text no server takes. Not frozen, nil and empty are both null; a
// frozen list keeps them apart.
func sameTextList(frozen bool, x, y []string) bool {
	return (!frozen || (x == nil) == (y == nil)) && slices.Equal(x, y)
}

// sameTime compares two times as a TIMESTAMP (with date, a DATE) stores
// them; a time outside the type, never stored, is compared as a Go value.
func sameTime(date bool, x, y time.Time) bool {
	enc := cqlvalue.TimestampMillis
	if date {
		enc = cqlvalue.DateDays
	}
	n, errX := enc(x)
	m, errY := enc(y)
	if errX != nil || errY != nil {
		return reflect.DeepEqual(x, y)
	}
	return n == m
}

// appendStoredFast is AppendStored for the common types, where the
// column's value check is the encoding's own (or there is none); ok is
// false when p is not of the column's type.
func appendStoredFast(c *ColumnSchema, f storedFast, dst []byte, p any) ([]byte, bool) {
	switch f {
	case fastString:
		if x, ok := p.(*string); ok && x != nil && stringProblem(*x, c.typ.n.name) == "" {
			dst = binary.BigEndian.AppendUint32(dst, uint32(len(*x)))
			return append(dst, *x...), true
		}
	case fastInt64:
		if x, ok := p.(*int64); ok && x != nil {
			return appendInteger(dst, *x, c.typ.n.name), true
		}
	case fastInt:
		if x, ok := p.(*int); ok && x != nil {
			return appendInteger(dst, int64(*x), c.typ.n.name), true
		}
	case fastInt32:
		if x, ok := p.(*int32); ok && x != nil {
			return appendInteger(dst, int64(*x), c.typ.n.name), true
		}
	case fastBool:
		if x, ok := p.(*bool); ok && x != nil {
			b := byte(0)
			if *x {
				b = 1
			}
			return append(binary.BigEndian.AppendUint32(dst, 1), b), true
		}
	case fastFloat64:
		if x, ok := p.(*float64); ok && x != nil {
			return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(dst, 8), math.Float64bits(*x)), true
		}
	case fastBytes:
		if x, ok := p.(*[]byte); ok && x != nil && len(*x) <= math.MaxInt32 {
			if *x == nil {
				return appendNull(dst), true
			}
			dst = binary.BigEndian.AppendUint32(dst, uint32(len(*x)))
			return append(dst, *x...), true
		}
	case fastUUID:
		if x, ok := p.(*uuid.UUID); ok && x != nil {
			if *x == (uuid.UUID{}) && c.typ.n.name == "TIMEUUID" {
				return appendNull(dst), true // SentAsNull
			}
			return append(binary.BigEndian.AppendUint32(dst, 16), x[:]...), true
		}
	case fastTimestamp, fastDate:
		if x, ok := p.(*time.Time); ok && x != nil {
			start := len(dst)
			var err error
			if f == fastDate {
				dst, err = cqlvalue.AppendDate(binary.BigEndian.AppendUint32(dst, 4), *x)
			} else {
				dst, err = cqlvalue.AppendTimestamp(binary.BigEndian.AppendUint32(dst, 8), *x)
			}
			if err != nil { // the general path reports it
				return dst[:start], false
			}
			return dst, true
		}
	}
	return dst, false
}

func appendNull(dst []byte) []byte { return binary.BigEndian.AppendUint32(dst, math.MaxUint32) }

// appendInteger appends x, framed, as the CQL integer type name:
// big-endian in the type's width, a VARINT in its shortest two's
// complement (cqlvalue.IntegerBytes).
func appendInteger(dst []byte, x int64, name string) []byte {
	return appendIntegerBody(binary.BigEndian.AppendUint32(dst, uint32(integerSize(x, name))), x, name)
}

// integerSize is the length of x as the CQL integer type name.
func integerSize(x int64, name string) int {
	size := cqlIntSize[name]
	if size == 0 { // VARINT: drop each leading byte that only repeats the sign
		size = 8
		for size > 1 && (x>>(8*(size-1)-1) == 0 || x>>(8*(size-1)-1) == -1) {
			size--
		}
	}
	return size
}

// appendIntegerBody is appendInteger without the length.
func appendIntegerBody(dst []byte, x int64, name string) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(x))
	return append(dst, b[8-integerSize(x, name):]...)
}

// storedEnc appends the stored bytes of v (without their length) to dst,
// or reports null (appending nothing), or the part of v that has no
// stored form.
type storedEnc func(dst []byte, v reflect.Value) ([]byte, bool, *storedFail)

// storedFail is the part of a value that has no stored form, and why.
type storedFail struct {
	bad     reflect.Value
	problem string
}

// storedCtx is where a value is stored: top is a column's own value or a
// user-defined type's field, where the values SentAsNull are null (in a
// collection they are refused or, for a nil []byte, empty); frozen is a
// context where an empty collection is a value rather than no cell.
type storedCtx struct{ top, frozen bool }

var inCollection = storedCtx{top: false, frozen: true}

// appendFramed appends v encoded by enc in the [bytes] form.
func appendFramed(dst []byte, enc storedEnc, v reflect.Value) ([]byte, *storedFail) {
	start := len(dst)
	out, null, fail := enc(binary.BigEndian.AppendUint32(dst, 0), v)
	switch {
	case fail != nil:
		return dst[:start], fail
	case null:
		return appendNull(out[:start]), nil
	case len(out)-start-4 > math.MaxInt32:
		return dst[:start], &storedFail{v, "the value is " + fmt.Sprint(len(out)-start-4) + " bytes long, past the protocol's 2147483647"}
	}
	binary.BigEndian.PutUint32(out[start:], uint32(len(out)-start-4))
	return out, nil
}

// marshalsItself reports a Go type whose bytes kandra leaves to the
// driver: a CQLTyper, or a type with a MarshalCQL method, which the
// drivers call before their own marshalling.
func marshalsItself(t reflect.Type) bool {
	if _, _, ok := userType(t); ok {
		return true
	}
	if t.Kind() == reflect.Interface {
		return true
	}
	_, m1 := t.MethodByName("MarshalCQL")
	_, m2 := reflect.PointerTo(t).MethodByName("MarshalCQL")
	return m1 || m2
}

// planStored is the encoder of Go type t stored as ct in ctx, or a
// problem saying why kandra does not know its stored bytes. It follows
// the adapter core's conversions (adapter/conv.go, adapter/udt.go) and the
// drivers' marshalling of the types the core hands them.
func planStored(t reflect.Type, ct CQLType, ctx storedCtx) (storedEnc, string) {
	if ct.n == nil {
		return nil, "the column has no CQL type"
	}
	switch {
	case t == typeBigInt:
		if ct.n.kind != KindNative || ct.n.name != "VARINT" {
			return nil, "a *big.Int is stored as a VARINT only"
		}
		return func(dst []byte, v reflect.Value) ([]byte, bool, *storedFail) {
			if v.IsNil() {
				return dst, true, nil
			}
			return cqlvalue.AppendBigInt(dst, v.Interface().(*big.Int)), false, nil
		}, ""
	case t.Kind() == reflect.Pointer:
		inner, problem := planStored(t.Elem(), ct, ctx)
		if problem != "" {
			return nil, problem
		}
		return func(dst []byte, v reflect.Value) ([]byte, bool, *storedFail) {
			if v.IsNil() {
				return dst, true, nil
			}
			return inner(dst, v.Elem())
		}, ""
	case t != typeTime && t != typeNetipAdd && t != typeUUID && t != typeNetIP && marshalsItself(t):
		return nil, "the Go type " + t.String() + " marshals itself (a CQLTyper, or a MarshalCQL method): the driver writes its bytes"
	}
	switch ct.n.kind {
	case KindUDT:
		return planStoredUDT(t, ct)
	case KindList, KindSet, KindMap:
		return planStoredCollection(t, ct, ctx)
	case KindVector:
		if t.Kind() != reflect.Array || t.Elem().Kind() != reflect.Float32 || t.Len() != ct.n.dim {
			return nil, "a vector is stored from a [N]float32 only"
		}
		return appendVector, ""
	case KindNative:
		return planStoredNative(t, ct.n.name, ctx)
	}
	return nil, "the CQL type " + ct.brief() + " has no stored form kandra knows"
}

// appendVector appends a [N]float32 as N big-endian floats, bit for bit
// (adapter/wire.go's vectorBytes): a signalling NaN stays one.
func appendVector(dst []byte, v reflect.Value) ([]byte, bool, *storedFail) {
	if !v.CanAddr() {
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		v = c
	}
	for _, x := range reflectx.Float32s(v) {
		dst = binary.BigEndian.AppendUint32(dst, math.Float32bits(x))
	}
	return dst, false, nil
}

func planStoredNative(t reflect.Type, name string, ctx storedCtx) (storedEnc, string) {
	k := t.Kind()
	_, isInt := cqlIntSize[name]
	switch {
	case k == reflect.String && (name == "TEXT" || name == "VARCHAR" || name == "ASCII"):
		return func(dst []byte, v reflect.Value) ([]byte, bool, *storedFail) {
			return append(dst, v.String()...), false, nil
		}, ""
	case k == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && name == "BLOB":
		top := ctx.top
		return func(dst []byte, v reflect.Value) ([]byte, bool, *storedFail) {
			if v.IsNil() && top { // a column's nil is null; inside a collection, empty
				return dst, true, nil
			}
			return append(dst, v.Bytes()...), false, nil
		}, ""
	case isByteArray(t) && name == "BLOB":
		// Its bytes, never null (adapter/conv.go: a copy of the array).
		return func(dst []byte, v reflect.Value) ([]byte, bool, *storedFail) {
			if v.CanAddr() {
				return append(dst, v.Bytes()...), false, nil
			}
			start := len(dst)
			dst = append(dst, make([]byte, v.Len())...)
			reflect.Copy(reflect.ValueOf(dst[start:]), v)
			return dst, false, nil
		}, ""
	case k == reflect.Bool && name == "BOOLEAN":
		return func(dst []byte, v reflect.Value) ([]byte, bool, *storedFail) {
			if v.Bool() {
				return append(dst, 1), false, nil
			}
			return append(dst, 0), false, nil
		}, ""
	case intBitsOf(k) > 0 && isInt:
		return func(dst []byte, v reflect.Value) ([]byte, bool, *storedFail) {
			return appendIntegerBody(dst, v.Int(), name), false, nil
		}, ""
	case k == reflect.Int64 && name == "TIME":
		return func(dst []byte, v reflect.Value) ([]byte, bool, *storedFail) {
			if err := cqlvalue.CheckTimeOfDay(v.Int()); err != nil {
				return dst, false, &storedFail{v, err.Error()}
			}
			return binary.BigEndian.AppendUint64(dst, uint64(v.Int())), false, nil
		}, ""
	case k == reflect.Int64 && name == "DURATION":
		return func(dst []byte, v reflect.Value) ([]byte, bool, *storedFail) {
			return cqlvalue.AppendVint(cqlvalue.AppendVint(cqlvalue.AppendVint(dst, 0), 0), v.Int()), false, nil
		}, ""
	case k == reflect.Float32 && name == "FLOAT":
		exact := t == typeFloat32
		return func(dst []byte, v reflect.Value) ([]byte, bool, *storedFail) {
			return binary.BigEndian.AppendUint32(dst, float32Bits(v, exact)), false, nil
		}, ""
	case k == reflect.Float64 && name == "DOUBLE":
		return func(dst []byte, v reflect.Value) ([]byte, bool, *storedFail) {
			return binary.BigEndian.AppendUint64(dst, math.Float64bits(v.Float())), false, nil
		}, ""
	case k == reflect.Struct && t.ConvertibleTo(typeTime) && (name == "TIMESTAMP" || name == "DATE"):
		enc := cqlvalue.AppendTimestamp
		if name == "DATE" {
			enc = cqlvalue.AppendDate
		}
		return func(dst []byte, v reflect.Value) ([]byte, bool, *storedFail) {
			out, err := enc(dst, v.Convert(typeTime).Interface().(time.Time))
			if err != nil {
				return dst, false, &storedFail{v, err.Error()}
			}
			return out, false, nil
		}, ""
	case k == reflect.Array && t.Len() == 16 && t.Elem().Kind() == reflect.Uint8 && (name == "UUID" || name == "TIMEUUID"):
		nullZero := name == "TIMEUUID" && ctx.top // SentAsNull
		return func(dst []byte, v reflect.Value) ([]byte, bool, *storedFail) {
			var u [16]byte
			reflect.Copy(reflect.ValueOf(&u).Elem(), v)
			if nullZero && u == ([16]byte{}) {
				return dst, true, nil
			}
			return append(dst, u[:]...), false, nil
		}, ""
	case k == reflect.Struct && t.ConvertibleTo(typeNetipAdd) && name == "INET":
		top := ctx.top
		return func(dst []byte, v reflect.Value) ([]byte, bool, *storedFail) {
			a := v.Convert(typeNetipAdd).Interface().(netip.Addr)
			if !top {
				if err := cqlvalue.InetElemProblem(a); err != nil {
					return dst, false, &storedFail{v, err.Error()}
				}
			} else if !a.IsValid() {
				return dst, true, nil
			}
			b, err := cqlvalue.InetBytes(a)
			if err != nil {
				return dst, false, &storedFail{v, err.Error()}
			}
			return append(dst, b...), false, nil
		}, ""
	case t == typeNetIP && name == "INET":
		top := ctx.top
		return func(dst []byte, v reflect.Value) ([]byte, bool, *storedFail) {
			ip := v.Interface().(net.IP)
			if len(ip) == 0 {
				if top {
					return dst, true, nil
				}
				return dst, false, &storedFail{v, "an empty net.IP is null, and a collection cannot hold null"}
			}
			b, err := cqlvalue.NetIPBytes(ip)
			if err != nil {
				return dst, false, &storedFail{v, err.Error()}
			}
			return append(dst, b...), false, nil
		}, ""
	}
	return nil, "the Go type " + t.String() + " in a " + name + " is marshalled by the driver, not by kandra's rules"
}

// intBitsOf is the width of a signed integer kind, 0 for any other kind
// (the unsigned kinds kandra maps to no CQL type; the drivers' range
// rules for them differ).
func intBitsOf(k reflect.Kind) int {
	switch k {
	case reflect.Int8:
		return 8
	case reflect.Int16:
		return 16
	case reflect.Int32:
		return 32
	case reflect.Int64, reflect.Int:
		return 64
	}
	return 0
}

// float32Bits is v's bits as the drivers send them: a float32's own, and
// for a named float32 type through float64, as the drivers' reflection
// converts it (which quiets a signalling NaN).
func float32Bits(v reflect.Value, exact bool) uint32 {
	switch {
	case !exact:
		return math.Float32bits(float32(v.Float()))
	case v.CanAddr():
		return math.Float32bits(*v.Addr().Interface().(*float32))
	}
	return math.Float32bits(v.Interface().(float32))
}

// planStoredUDT is the encoder of a Go struct stored as the user-defined
// type ct: ct's fields in order, each from the struct's stored field of
// the same place (the struct's stored fields are the type's, as kandra
// maps them and adapter/udt.go binds them), as a column of the field's Go
// and CQL type would be (a nil pointer, a value SentAsNull: a null
// field), with its collections frozen.
func planStoredUDT(t reflect.Type, ct CQLType) (storedEnc, string) {
	if t.Kind() != reflect.Struct {
		return nil, "a user-defined type is stored from a Go struct only"
	}
	stored := reflectx.StoredFields(t)
	if len(stored) != len(ct.n.fields) || len(stored) == 0 {
		return nil, fmt.Sprintf("the Go struct %s has %d stored fields for the user-defined type %s, which has %d", t, len(stored), ct.n.name, len(ct.n.fields))
	}
	encs := make([]storedEnc, len(stored))
	for j, i := range stored {
		enc, problem := planStored(t.Field(i).Type, ct.n.fields[j].Type, storedCtx{top: true, frozen: true})
		if problem != "" {
			return nil, "field " + t.Field(i).Name + ": " + problem
		}
		encs[j] = enc
	}
	return func(dst []byte, v reflect.Value) ([]byte, bool, *storedFail) {
		for j, i := range stored {
			var fail *storedFail
			if dst, fail = appendFramed(dst, encs[j], v.Field(i)); fail != nil {
				return dst, false, fail
			}
		}
		return dst, false, nil
	}, ""
}

// planStoredCollection is the encoder of a list, set or map: the
// protocol's form (an int32 count, then each element framed), a set's
// elements and a map's entries sorted by the server's comparator
// (internal/cqlcompare) and each kept once, the first of those it holds
// equal, as internal/cqlorder's Marshal sends them.
func planStoredCollection(t reflect.Type, ct CQLType, ctx storedCtx) (storedEnc, string) {
	kind := ct.n.kind
	var elemT, keyT reflect.Type
	switch {
	case kind == KindMap && t.Kind() == reflect.Map:
		keyT, elemT = t.Key(), t.Elem()
	case kind == KindSet && t.Kind() == reflect.Map && isEmptyStruct(t.Elem()):
		elemT = t.Key()
	case kind != KindMap && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
		elemT = t.Elem()
	default:
		return nil, "a " + strings.ToLower(kind.String()) + " is not stored from a " + t.String()
	}
	elem, problem := planStored(elemT, ct.n.elem, inCollection)
	if problem != "" {
		return nil, problem
	}
	var key storedEnc
	var order cqlcompare.Type
	if kind == KindMap {
		if key, problem = planStored(keyT, ct.n.key, inCollection); problem != "" {
			return nil, problem
		}
		order = compareType(ct.n.key)
	} else {
		order = compareType(ct.n.elem)
	}
	frozen := ctx.frozen
	return func(dst []byte, v reflect.Value) ([]byte, bool, *storedFail) {
		if (v.Kind() == reflect.Slice || v.Kind() == reflect.Map) && v.IsNil() {
			return dst, true, nil
		}
		if v.Len() == 0 && !frozen {
			return dst, true, nil // no cell: read back as null
		}
		if kind == KindList {
			dst = binary.BigEndian.AppendUint32(dst, uint32(v.Len()))
			for i := range v.Len() {
				var fail *storedFail
				if dst, fail = appendFramed(dst, elem, v.Index(i)); fail != nil {
					return dst, false, fail
				}
			}
			return dst, false, nil
		}
		return appendSorted(dst, v, kind, key, elem, order)
	}, ""
}

func isEmptyStruct(t reflect.Type) bool { return t.Kind() == reflect.Struct && t.NumField() == 0 }

// appendSorted appends a set (v a slice, an array or a map[K]struct{}) or
// a map: its elements (keys) framed in a scratch buffer, ordered by the
// comparator, stably, and each written once.
func appendSorted(dst []byte, v reflect.Value, kind CQLKind, key, elem storedEnc, order cqlcompare.Type) ([]byte, bool, *storedFail) {
	type part struct{ k, v []byte } // framed; v for a map's value
	buf := getStoredBuf()
	defer putStoredBuf(buf)
	scratch := (*buf)[:0]
	var spans [][4]int // k start, k end, v start, v end in scratch
	var fail *storedFail
	add := func(enc storedEnc, x reflect.Value) (int, int) {
		start := len(scratch)
		if fail == nil {
			scratch, fail = appendFramed(scratch, enc, x)
		}
		return start, len(scratch)
	}
	switch {
	case kind == KindMap:
		for it := v.MapRange(); it.Next(); {
			ks, ke := add(key, it.Key())
			vs, ve := add(elem, it.Value())
			spans = append(spans, [4]int{ks, ke, vs, ve})
		}
	case v.Kind() == reflect.Map:
		for it := v.MapRange(); it.Next(); {
			ks, ke := add(elem, it.Key())
			spans = append(spans, [4]int{ks, ke})
		}
	default:
		for i := range v.Len() {
			ks, ke := add(elem, v.Index(i))
			spans = append(spans, [4]int{ks, ke})
		}
	}
	*buf = scratch
	if fail != nil {
		return dst, false, fail
	}
	parts := make([]part, len(spans))
	for i, s := range spans {
		parts[i] = part{scratch[s[0]:s[1]], scratch[s[2]:s[3]]}
	}
	// Compared unframed; a null (nil) element sorts as the empty value,
	// as internal/cqlorder's Marshal compares it.
	body := func(b []byte) []byte {
		if int32(binary.BigEndian.Uint32(b)) < 0 {
			return nil
		}
		return b[4:]
	}
	sort.SliceStable(parts, func(i, j int) bool {
		return cqlcompare.Compare(order, body(parts[i].k), body(parts[j].k)) < 0
	})
	uniq := parts[:0]
	for i, p := range parts {
		if i == 0 || cqlcompare.Compare(order, body(parts[i-1].k), body(p.k)) != 0 {
			uniq = append(uniq, p)
		}
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(uniq)))
	for _, p := range uniq {
		dst = append(append(dst, p.k...), p.v...)
	}
	return dst, false, nil
}

// compareType is ct as the comparators see it (internal/cqlorder.Of,
// which package kandra cannot import: it imports kandra).
func compareType(ct CQLType) cqlcompare.Type {
	if ct.n == nil {
		return cqlcompare.Type{}
	}
	switch ct.n.kind {
	case KindNative:
		return cqlcompare.Type{Name: strings.ToLower(ct.n.name)}
	case KindMap:
		return cqlcompare.Type{Name: "map", Args: []cqlcompare.Type{compareType(ct.n.key), compareType(ct.n.elem)}}
	case KindUDT:
		u := cqlcompare.Type{Name: "udt", UDT: ct.n.name}
		for _, f := range ct.n.fields {
			u.Args = append(u.Args, compareType(f.Type))
			u.Fields = append(u.Fields, f.Name)
		}
		return u
	}
	return cqlcompare.Type{Name: ct.n.kind.String(), Args: []cqlcompare.Type{compareType(ct.n.elem)}}
}
