package gocql

import (
	"encoding/binary"
	"fmt"
	"math"
	"net/netip"
	"reflect"
	"strconv"
	"time"

	gocql "github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/cqlorder"
	"github.com/kandra-go/kandra/internal/cqlvalue"
)

// Codec adapts kandra's per-row accessors (Table.Pointers,
// TableSchema.Pointers, ColumnSchema.Pointer) to what gocql v1.7.0 can
// marshal. kandra hands out the addresses of an entity's fields; for most
// Go types gocql takes them as they are. For the types below it does not,
// and the adapter converts them, per column (the real-server suites,
// runtime/runtimetest and integration/, prove each against Cassandra 5.0):
//
//   - uuid.UUID (github.com/google/uuid): gocql marshals only gocql.UUID,
//     [16]byte, []byte and string into a uuid column. uuid.UUID is a named
//     [16]byte, which gocql's type switch does not match, so binding one
//     fails with "can not marshal uuid.UUID into uuid", and scanning fails
//     too. Converted to gocql.UUID (same bytes), also inside collections
//     and behind pointers. In a TIMEUUID column of its own, the zero UUID
//     (version 0, which Cassandra refuses there: "Invalid version for
//     TimeUUID type") is sent as null, and null reads back as zero.
//   - time.Time (TIMESTAMP and DATE), time.Duration in a TIME, netip.Addr
//     and net.IP (INET), and []byte (BLOB): encoded by kandra's value rules
//     (README, "Values at the edges"), through the wire types of
//     internal/cqlvalue over the field's own memory. gocql writes the zero
//     time as an empty value, rounds pre-1970 dates toward zero, wraps a
//     time past the type's range, sends a TIME outside a day, turns an
//     IPv4-mapped address into IPv4, cannot bind a netip.Addr at all, and
//     reads an empty blob as nil.
//   - time.Duration in a DURATION column: gocql marshals it but unmarshals
//     a duration only into gocql.Duration. Scanned into gocql.Duration and
//     converted back (months and days are never set by a Go value; a
//     server value that has them cannot be a time.Duration: the read fails
//     with an *errors.ValueError naming the column).
//   - a named type of one of these special types (type UserID uuid.UUID:
//     any 16-byte array type; type At time.Time; a struct type convertible
//     to netip.Addr), which kandra maps as the special type: gocql's type
//     switches see only the special types (and [16]byte), so binding one
//     fails ("can not marshal main.At into timestamp"). Converted to the
//     special type, then as that type is converted.
//
// A column whose CQL type holds a set or a map (at any depth) is bound as
// a SortedValue, which sends the elements of every set and the entries of
// every map in the server's order. gocql sends a Go map in its random
// iteration order, and Cassandra 5.0 keeps a frozen set or map in the
// order it was sent when it is a clustering column in descending order
// (it sorts it everywhere else): unsorted, the same Go value would be a
// different key on every write, and differ from the key another client
// writes. Sorting is not a conversion for Converted.
//
// A column whose Go type needs none of this is passed through: the address
// kandra gave is what gocql reads and writes. For the plain native types
// (string, []byte, int32, int64, int, float64, bool, time.Time, uuid.UUID)
// and []string, AppendBindRefs and the scan targets wrap the address in a
// one-pointer reference that writes or reads the field's bytes itself,
// exactly as gocql's marshal.go does (property-tested against it), and
// hands every other CQL type to gocql: the same bytes and values, without
// gocql's reflection or the boxing of each value.
type Codec struct {
	convs []*conv // per column; nil = pass through
	cols  []*kandra.ColumnSchema
}

// NewCodec plans the conversions for cols (in the order the pointers will
// come in, normally TableSchema.Columns()).
func NewCodec(cols []*kandra.ColumnSchema) (*Codec, error) {
	c := &Codec{convs: make([]*conv, len(cols)), cols: cols}
	for i, col := range cols {
		node, err := nodeOf(col.Type())
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", col.Name(), err)
		}
		c.convs[i] = planConv(col.GoType(), node, true)
	}
	return c, nil
}

// Converted reports whether column i's Go type needs a conversion (see
// Codec); a column that is only sorted is not converted.
func (c *Codec) Converted(i int) bool { return c.convs[i] != nil && !c.convs[i].sortOnly }

// BindValues replaces, in ptrs (field addresses from kandra), the entries
// gocql cannot marshal (or would send unsorted) by converted values, and
// the addresses of common types by their values (which gocql marshals
// without reflect). It returns a new slice.
func (c *Codec) BindValues(ptrs []any) []any {
	return c.AppendBindValues(make([]any, 0, len(ptrs)), ptrs)
}

// AppendBindValues is BindValues appending to dst, so that a caller can
// reuse one buffer for every statement.
func (c *Codec) AppendBindValues(dst, ptrs []any) []any {
	for i, p := range ptrs {
		dst = append(dst, c.convs[i].bind(p))
	}
	return dst
}

// AppendBindRefs is AppendBindValues, except that the value of a field of
// a plain native type (string, []byte, int32, int64, int, float64, bool,
// time.Time, uuid.UUID) is bound as a reference to the field: a
// gocql.Marshaler holding only the field's address, which an interface
// holds without allocating, and which writes the field's bytes when gocql
// marshals it, the same bytes gocql.Marshal writes for the value. The
// fields are read when gocql marshals the statement, not now: keep them
// unchanged until the statement has run, and do not bind refs to a query
// that may run after its call returns (a speculative execution of an
// idempotent query may); bind values there.
func (c *Codec) AppendBindRefs(dst, ptrs []any) []any {
	for i, p := range ptrs {
		dst = append(dst, c.convs[i].bindRef(p))
	}
	return dst
}

// bind is the value gocql is given for the field address p: p's value for
// a common type, a pointer of the wire type to the same memory (alias), or
// the converted value.
func (cv *conv) bind(p any) any {
	if cv == nil {
		return deref(p)
	}
	if cv.alias != nil {
		if a, ok := cv.alias(p); ok {
			return wireValue(a)
		}
	}
	return cv.toWire(reflect.ValueOf(p).Elem()).Interface()
}

// bindRef is bind with a reference (see ref) where one marshals the field.
func (cv *conv) bindRef(p any) any {
	if cv == nil {
		return ref(p)
	}
	if cv.alias != nil {
		if a, ok := cv.alias(p); ok {
			return ref(a)
		}
	}
	return cv.toWire(reflect.ValueOf(p).Elem()).Interface()
}

// wireValue is the value behind an alias: Marshal takes a *gocql.UUID
// through reflect, a gocql.UUID through its typed case.
func wireValue(a any) any {
	if u, ok := a.(*gocql.UUID); ok {
		return *u
	}
	return cqlvalue.Deref[gocql.TypeInfo](a) // a copy: values are read later
}

// noFinish is ScanTargets' finish when no column needs one.
func noFinish() error { return nil }

// ScanTargets returns scan targets for a row whose fields are at ptrs:
// kandra's addresses (or their references, see Codec) where gocql can scan
// directly, temporaries elsewhere.
// Call finish after a successful Scan to store the temporaries into the
// fields.
func (c *Codec) ScanTargets(ptrs []any) (targets []any, finish func() error) {
	return c.AppendScanTargets(make([]any, 0, len(ptrs)), ptrs)
}

// AppendScanTargets is ScanTargets appending the targets to dst, so that
// a caller can reuse one buffer for every row.
func (c *Codec) AppendScanTargets(dst, ptrs []any) (targets []any, finish func() error) {
	targets = dst
	type pending struct {
		cv    *conv
		tmp   reflect.Value
		field reflect.Value
		col   int
	}
	var todo []pending
	for i, p := range ptrs {
		cv := c.convs[i]
		if cv == nil || cv.sortOnly {
			targets = append(targets, scanRef(p))
			continue
		}
		if cv.alias != nil {
			if a, ok := cv.alias(p); ok {
				targets = append(targets, scanRef(a))
				continue
			}
		}
		tmp := reflect.New(cv.wire)
		targets = append(targets, tmp.Interface())
		todo = append(todo, pending{cv, tmp, reflect.ValueOf(p).Elem(), i})
	}
	if len(todo) == 0 {
		return targets, noFinish
	}
	return targets, func() error {
		for _, t := range todo {
			v, err := t.cv.fromWire(t.tmp.Elem())
			if err != nil {
				return c.cols[t.col].ReadError(err)
			}
			t.field.Set(v)
		}
		return nil
	}
}

// conv converts one Go type to the type gocql handles (wire) and back.
type conv struct {
	wire     reflect.Type
	toWire   func(reflect.Value) reflect.Value
	fromWire func(reflect.Value) (reflect.Value, error)
	// sortOnly: the Go type needs no conversion, the bound value is only
	// wrapped in a SortedValue (wire is the Go type, fromWire the identity).
	sortOnly bool
	// alias, when set, turns a field address into a pointer of the wire
	// type to the same memory (a conversion between pointers to identical
	// underlying types), which gocql reads and writes directly: no
	// temporary, no reflect. It reports false for any other value.
	alias func(p any) (any, bool)
}

var (
	typeUUID         = reflect.TypeFor[uuid.UUID]()
	typeByte16       = reflect.TypeFor[[16]byte]()
	typeGocqlUUID    = reflect.TypeFor[gocql.UUID]()
	typeGocqlUUIDPtr = reflect.TypeFor[*gocql.UUID]()
	typeAddr         = reflect.TypeFor[netip.Addr]()
	typeTime         = reflect.TypeFor[time.Time]()
	typeGocqlDur     = reflect.TypeFor[gocql.Duration]()
)

// planConv returns nil when gocql handles t (as CQL type n) directly. A
// column's own value (top) whose type holds a set or a map is bound as a
// SortedValue.
func planConv(t reflect.Type, n cqlNode, top bool) *conv {
	cv := planValue(t, n, top)
	if !top || !n.HoldsSetOrMap() {
		return cv
	}
	out := &conv{wire: t, sortOnly: true, toWire: func(v reflect.Value) reflect.Value { return v },
		fromWire: func(v reflect.Value) (reflect.Value, error) { return v, nil }}
	if cv != nil {
		*out = *cv
	}
	inner := out.toWire
	out.toWire = func(v reflect.Value) reflect.Value {
		return reflect.ValueOf(SortedValue{Value: inner(v).Interface(), typ: n})
	}
	return out
}

// specialBase is the special type a named type of one converts to:
// kandra maps every 16-byte array type (type UserID uuid.UUID) to UUID,
// a struct type convertible to time.Time (type At time.Time) to
// TIMESTAMP and one convertible to netip.Addr to INET, as it maps the
// special type. gocql v1.7.0 matches only the special types themselves
// (and [16]byte), so a named one must be converted to its base first.
// ok is false for every other type, and for the special types.
func specialBase(t reflect.Type) (base reflect.Type, ok bool) {
	switch {
	case t.Kind() == reflect.Array && t.Len() == 16 && t.Elem().Kind() == reflect.Uint8:
		if t == typeUUID || t == typeGocqlUUID || t == typeByte16 {
			return nil, false
		}
		return typeUUID, true
	case t.Kind() == reflect.Struct && t != typeTime && t.ConvertibleTo(typeTime):
		return typeTime, true
	case t.Kind() == reflect.Struct && t != typeAddr && t.ConvertibleTo(typeAddr):
		return typeAddr, true
	}
	return nil, false
}

// planValue is planConv without the sorting.
func planValue(t reflect.Type, n cqlNode, top bool) *conv {
	if c, ok := cqlvalue.Plan[gocql.TypeInfo](t, n.Name, top); ok {
		// kandra's value rules (README, "Values at the edges").
		return &conv{wire: c.Wire, toWire: c.ToWire, fromWire: c.FromWire, alias: c.Alias}
	}
	if base, ok := specialBase(t); ok {
		// Convert to the special type, then as it is converted (if at all).
		inner := planValue(base, n, top)
		if inner == nil {
			return &conv{
				wire:     base,
				toWire:   func(v reflect.Value) reflect.Value { return v.Convert(base) },
				fromWire: func(v reflect.Value) (reflect.Value, error) { return v.Convert(t), nil },
			}
		}
		return &conv{
			wire:   inner.wire,
			toWire: func(v reflect.Value) reflect.Value { return inner.toWire(v.Convert(base)) },
			fromWire: func(v reflect.Value) (reflect.Value, error) {
				x, err := inner.fromWire(v)
				if err != nil {
					return reflect.Value{}, err
				}
				return x.Convert(t), nil
			},
		}
	}
	switch {
	case t == typeUUID && n.Name == "timeuuid" && top:
		// The zero UUID is version 0, which Cassandra refuses in a
		// TIMEUUID ("Invalid version for TimeUUID type"): it is sent as
		// null, through *gocql.UUID, and null reads back as the zero UUID.
		return &conv{
			wire: typeGocqlUUIDPtr,
			toWire: func(v reflect.Value) reflect.Value {
				if v.IsZero() {
					return reflect.Zero(typeGocqlUUIDPtr)
				}
				p := reflect.New(typeGocqlUUID)
				p.Elem().Set(v.Convert(typeGocqlUUID))
				return p
			},
			fromWire: func(v reflect.Value) (reflect.Value, error) {
				if v.IsNil() {
					return reflect.Zero(t), nil
				}
				return v.Elem().Convert(t), nil
			},
		}
	case t == typeUUID:
		return &conv{
			alias: func(p any) (any, bool) {
				u, ok := p.(*uuid.UUID)
				return (*gocql.UUID)(u), ok
			},
			wire:   typeGocqlUUID,
			toWire: func(v reflect.Value) reflect.Value { return v.Convert(typeGocqlUUID) },
			fromWire: func(v reflect.Value) (reflect.Value, error) {
				return v.Convert(t), nil
			},
		}
	case t.Kind() == reflect.Int64 && n.Name == "duration":
		return &conv{
			wire: typeGocqlDur,
			toWire: func(v reflect.Value) reflect.Value {
				return reflect.ValueOf(gocql.Duration{Nanoseconds: v.Int()})
			},
			fromWire: func(v reflect.Value) (reflect.Value, error) {
				d := v.Interface().(gocql.Duration)
				if p := cqlvalue.DurationProblem(d.Months, d.Days, d.Nanoseconds); p != nil {
					return reflect.Value{}, p
				}
				out := reflect.New(t).Elem()
				out.SetInt(d.Nanoseconds)
				return out, nil
			},
		}
	case t.Kind() == reflect.Pointer:
		// What is behind a column's pointer is the column's own value: a
		// nil pointer is null, and a zero Addr behind one is null too.
		inner := planValue(t.Elem(), n, top)
		if inner == nil {
			return nil
		}
		wire := reflect.PointerTo(inner.wire)
		return &conv{
			wire: wire,
			toWire: func(v reflect.Value) reflect.Value {
				if v.IsNil() {
					return reflect.Zero(wire)
				}
				p := reflect.New(inner.wire)
				p.Elem().Set(inner.toWire(v.Elem()))
				return p
			},
			fromWire: func(v reflect.Value) (reflect.Value, error) {
				if v.IsNil() {
					return reflect.Zero(t), nil
				}
				x, err := inner.fromWire(v.Elem())
				if err != nil {
					return reflect.Value{}, err
				}
				p := reflect.New(t.Elem())
				p.Elem().Set(x)
				return p, nil
			},
		}
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 && len(n.Args) == 1:
		inner := planValue(t.Elem(), n.Args[0], false)
		if inner == nil {
			return nil
		}
		wire := reflect.SliceOf(inner.wire)
		return &conv{
			wire: wire,
			toWire: func(v reflect.Value) reflect.Value {
				if v.IsNil() {
					return reflect.Zero(wire)
				}
				out := reflect.MakeSlice(wire, v.Len(), v.Len())
				for i := 0; i < v.Len(); i++ {
					out.Index(i).Set(inner.toWire(v.Index(i)))
				}
				return out
			},
			fromWire: func(v reflect.Value) (reflect.Value, error) {
				if v.IsNil() {
					return reflect.Zero(t), nil
				}
				out := reflect.MakeSlice(t, v.Len(), v.Len())
				for i := 0; i < v.Len(); i++ {
					x, err := inner.fromWire(v.Index(i))
					if err != nil {
						return reflect.Value{}, err
					}
					out.Index(i).Set(x)
				}
				return out, nil
			},
		}
	case t.Kind() == reflect.Map && isSetElem(t.Elem()) && len(n.Args) == 1:
		// A set: always scanned through a slice.
		key := planValue(t.Key(), n.Args[0], false)
		keyWire := t.Key()
		if key != nil {
			keyWire = key.wire
		}
		wire := reflect.SliceOf(keyWire)
		return &conv{
			wire: wire,
			toWire: func(v reflect.Value) reflect.Value {
				if v.IsNil() {
					return reflect.Zero(wire)
				}
				out := reflect.MakeSlice(wire, 0, v.Len())
				it := v.MapRange()
				for it.Next() {
					k := it.Key()
					if key != nil {
						k = key.toWire(k)
					}
					out = reflect.Append(out, k)
				}
				return out
			},
			fromWire: func(v reflect.Value) (reflect.Value, error) {
				if v.IsNil() {
					return reflect.Zero(t), nil
				}
				out := reflect.MakeMapWithSize(t, v.Len())
				for i := 0; i < v.Len(); i++ {
					k := v.Index(i)
					if key != nil {
						var err error
						if k, err = key.fromWire(k); err != nil {
							return reflect.Value{}, err
						}
					}
					out.SetMapIndex(k, reflect.Zero(t.Elem()))
				}
				return out, nil
			},
		}
	case t.Kind() == reflect.Map && len(n.Args) == 2:
		key, val := planValue(t.Key(), n.Args[0], false), planValue(t.Elem(), n.Args[1], false)
		if key == nil && val == nil {
			return nil
		}
		keyWire, valWire := t.Key(), t.Elem()
		if key != nil {
			keyWire = key.wire
		}
		if val != nil {
			valWire = val.wire
		}
		wire := reflect.MapOf(keyWire, valWire)
		return &conv{
			wire: wire,
			toWire: func(v reflect.Value) reflect.Value {
				if v.IsNil() {
					return reflect.Zero(wire)
				}
				out := reflect.MakeMapWithSize(wire, v.Len())
				it := v.MapRange()
				for it.Next() {
					k, x := it.Key(), it.Value()
					if key != nil {
						k = key.toWire(k)
					}
					if val != nil {
						x = val.toWire(x)
					}
					out.SetMapIndex(k, x)
				}
				return out
			},
			fromWire: func(v reflect.Value) (reflect.Value, error) {
				if v.IsNil() {
					return reflect.Zero(t), nil
				}
				out := reflect.MakeMapWithSize(t, v.Len())
				it := v.MapRange()
				for it.Next() {
					k, x := it.Key(), it.Value()
					var err error
					if key != nil {
						if k, err = key.fromWire(k); err != nil {
							return reflect.Value{}, err
						}
					}
					if val != nil {
						if x, err = val.fromWire(x); err != nil {
							return reflect.Value{}, err
						}
					}
					out.SetMapIndex(k, x)
				}
				return out, nil
			},
		}
	}
	return nil
}

func isSetElem(t reflect.Type) bool { return t.Kind() == reflect.Struct && t.NumField() == 0 }

// cqlNode is the CQL type the codec plans for (see internal/cqlorder).
type cqlNode = cqlorder.Type

// nodeOf walks a kandra.CQLType into a cqlNode.
var nodeOf = cqlorder.Of

// SortedValue is a value bound for a column whose CQL type holds a set or
// a map (see Codec). It marshals like Value, with the elements of every
// set and the entries of every map in it, at any depth, in the order
// Cassandra's comparator for the element (or key) type gives (see
// cqlorder.Compare), the order in which the server stores them in any
// other column and in which it reads a CQL literal.
type SortedValue struct {
	// Value is what gocql would be given unsorted: a slice (list or
	// set), a map[K]struct{} (set) or a map, or a pointer to one.
	Value any
	typ   cqlNode
}

// Sorted returns v, a value gocql marshals for a column of CQL type t, as
// a SortedValue. It fails only for a CQL type the adapter does not know.
func Sorted(t kandra.CQLType, v any) (SortedValue, error) {
	n, err := nodeOf(t)
	if err != nil {
		return SortedValue{}, err
	}
	return SortedValue{Value: v, typ: n}, nil
}

// MarshalCQL implements gocql.Marshaler.
func (s SortedValue) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	return cqlorder.Marshal[gocql.TypeInfo](orderDriver{}, info, s.typ, reflect.ValueOf(s.Value))
}

// orderDriver is gocql v1.7.0 as cqlorder.Marshal sees it.
type orderDriver struct{}

func (orderDriver) Collection(info gocql.TypeInfo) (cqlorder.Kind, gocql.TypeInfo, gocql.TypeInfo, error) {
	ci, ok := info.(gocql.CollectionType)
	if !ok {
		return cqlorder.NotCollection, nil, nil, nil
	}
	if info.Version() < 3 {
		return 0, nil, nil, fmt.Errorf("kandra/driver/gocql: protocol version %d: sorted collections need protocol 3 or later", info.Version())
	}
	switch info.Type() {
	case gocql.TypeList:
		return cqlorder.List, ci.Key, ci.Elem, nil
	case gocql.TypeSet:
		return cqlorder.Set, ci.Key, ci.Elem, nil
	case gocql.TypeMap:
		return cqlorder.Map, ci.Key, ci.Elem, nil
	}
	return cqlorder.NotCollection, nil, nil, nil
}

func (orderDriver) Marshal(info gocql.TypeInfo, v any) ([]byte, error) { return gocql.Marshal(info, v) }

// deref is the value behind a field address of a common type, which gocql
// marshals through its typed cases; given the address, gocql.Marshal
// dereferences it through reflect first (a copy and a second Marshal). Any
// other value is returned as it is.
func deref(p any) any {
	switch x := p.(type) {
	case *string:
		return *x
	case *[]byte:
		return *x
	case *int32:
		return *x
	case *int64:
		return *x
	case *int:
		return *x
	case *float64:
		return *x
	case *bool:
		return *x
	case *time.Time:
		return *x
	case *[]string:
		return *x
	}
	return p
}

// ref is the reference that marshals the field at p for the plain native
// types (see Codec.AppendBindRefs), and deref(p) for any other. Storing a
// string or an int64 in an interface allocates; storing a struct of one
// pointer does not.
func ref(p any) any {
	if r, ok := refOf(p); ok {
		return r
	}
	return deref(p)
}

// scanRef is the scan target for the field at p: for the plain native
// types and a list of text, the reference to the field, which decodes the
// column into it itself, as gocql's Unmarshal would; p for any other type.
// gocql.Unmarshal hands a reference to its UnmarshalCQL at once, before
// the reflection it spends on every other target.
func scanRef(p any) any {
	if r, ok := refOf(p); ok {
		return r
	}
	return p
}

// refOf is the reference to the field at p, if its type has one.
func refOf(p any) (any, bool) {
	switch x := p.(type) {
	case *string:
		return textRef{x}, true
	case *[]byte:
		return blobRef{x}, true
	case *int32:
		return int32Ref{x}, true
	case *int64:
		return int64Ref{x}, true
	case *int:
		return intRef{x}, true
	case *float64:
		return doubleRef{x}, true
	case *bool:
		return boolRef{x}, true
	case *gocql.UUID:
		return uuidRef{x}, true
	case *[]string:
		return textListRef{x}, true
	}
	return nil, false
}

// hasScanRef reports whether scanRef gives a reference for a field of
// type t (at plan time: it allocates a zero value of t).
func hasScanRef(t reflect.Type) bool {
	_, ok := refOf(reflect.New(t).Interface())
	return ok
}

// The references. Each writes its field's bytes itself only for the CQL
// types whose encoding in gocql v1.7.0's marshal.go is a plain copy or a
// big-endian integer (the same expression gocql uses), and hands the
// value to gocql.Marshal for every other type, so that the bytes, the
// nulls and the errors are gocql's own. Their UnmarshalCQL methods do the
// same the other way: they decode exactly what gocql's unmarshal functions
// decode for those types into a pointer of the field's type (null, and a
// value of the wrong length where gocql reads it as zero, included), and
// call gocql.Unmarshal for any other.
type (
	textRef   struct{ p *string }
	blobRef   struct{ p *[]byte }
	int32Ref  struct{ p *int32 }
	int64Ref  struct{ p *int64 }
	intRef    struct{ p *int }
	doubleRef struct{ p *float64 }
	boolRef   struct{ p *bool }
	uuidRef   struct{ p *gocql.UUID }

	// textListRef marshals and unmarshals a list or set of text (or
	// ascii or blob) from and to a []string; gocql does it through
	// reflect, element by element.
	textListRef struct{ p *[]string }
)

// isText: gocql's marshalVarchar, which sends a string's or a []byte's
// bytes as they are (an empty one as an empty value, not null).
func isText(t gocql.Type) bool {
	return t == gocql.TypeVarchar || t == gocql.TypeText || t == gocql.TypeAscii || t == gocql.TypeBlob
}

func (r textRef) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	if isText(info.Type()) {
		return []byte(*r.p), nil
	}
	return gocql.Marshal(info, *r.p)
}

func (r blobRef) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	if isText(info.Type()) {
		return *r.p, nil // nil is null, as in gocql
	}
	return gocql.Marshal(info, *r.p)
}

func (r int32Ref) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	if info.Type() == gocql.TypeInt {
		return be32(*r.p), nil
	}
	return gocql.Marshal(info, *r.p)
}

func (r int64Ref) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	switch info.Type() {
	case gocql.TypeBigInt, gocql.TypeCounter, gocql.TypeTimestamp:
		return be64(*r.p), nil
	}
	return gocql.Marshal(info, *r.p)
}

func (r intRef) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	switch info.Type() {
	case gocql.TypeBigInt, gocql.TypeCounter:
		return be64(int64(*r.p)), nil
	}
	return gocql.Marshal(info, *r.p) // INT checks the range
}

func (r doubleRef) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	if info.Type() == gocql.TypeDouble {
		return be64(int64(math.Float64bits(*r.p))), nil
	}
	return gocql.Marshal(info, *r.p)
}

func (r boolRef) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	if info.Type() == gocql.TypeBoolean {
		if *r.p {
			return []byte{1}, nil
		}
		return []byte{0}, nil
	}
	return gocql.Marshal(info, *r.p)
}

func (r uuidRef) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	switch info.Type() {
	case gocql.TypeUUID, gocql.TypeTimeUUID:
		b := make([]byte, 16) // a copy: gocql may keep the bytes
		copy(b, r.p[:])
		return b, nil
	}
	return gocql.Marshal(info, *r.p)
}

// textList reports whether info is a list or set of text elements at a
// protocol whose sizes are 4 bytes (3 and later), the only form
// textListRef encodes itself.
func textList(info gocql.TypeInfo) bool {
	ci, ok := info.(gocql.CollectionType)
	return ok && (ci.Type() == gocql.TypeList || ci.Type() == gocql.TypeSet) &&
		ci.Version() > 2 && ci.Elem != nil && isText(ci.Elem.Type())
}

// MarshalCQL writes gocql's marshalList of a []string: nil is null; then
// the count and each element's length and bytes (an empty string is an
// empty element, not null).
func (r textListRef) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	v := *r.p
	if !textList(info) {
		return gocql.Marshal(info, v)
	}
	if v == nil {
		return nil, nil
	}
	n := 4
	for _, s := range v {
		if len(s) > math.MaxInt32 {
			return gocql.Marshal(info, v) // gocql's error
		}
		n += 4 + len(s)
	}
	b := make([]byte, 4, n)
	binary.BigEndian.PutUint32(b, uint32(len(v)))
	for _, s := range v {
		b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	return b, nil
}

// UnmarshalCQL reads what gocql's unmarshalList reads into a *[]string:
// null is a nil slice, anything else a new slice (empty, not nil, for no
// elements), a null element "". The elements share one string, so that a
// row's list is two allocations, not one per element. Data that is not
// well formed is gocql's error, "unmarshal list: unexpected eof", and the
// field is left as it was; gocql would first allocate the slice of the
// count the data claims (and panic on a negative one).
func (r textListRef) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	if !textList(info) {
		return gocql.Unmarshal(info, data, r.p)
	}
	if data == nil {
		*r.p = nil
		return nil
	}
	n, ok := textListSize(data)
	if !ok {
		return gocql.UnmarshalError("unmarshal list: unexpected eof")
	}
	all := string(data[4:])
	out := make([]string, n)
	at := 0
	for i := range out {
		m := int(int32(binary.BigEndian.Uint32(data[4+at:])))
		at += 4
		if m > 0 {
			out[i] = all[at : at+m]
			at += m
		}
	}
	*r.p = out
	return nil
}

// textListSize is the element count of a well-formed list of text in
// data (4-byte sizes), and false for anything else: too short, a negative
// count, an element past the end. Bytes after the last element are
// ignored, as gocql does.
func textListSize(data []byte) (int, bool) {
	if len(data) < 4 {
		return 0, false
	}
	n := int(int32(binary.BigEndian.Uint32(data)))
	if n < 0 {
		return 0, false
	}
	rest := data[4:]
	for i := 0; i < n; i++ {
		if len(rest) < 4 {
			return 0, false
		}
		m := int(int32(binary.BigEndian.Uint32(rest)))
		rest = rest[4:]
		if m < 0 {
			continue // null: ""
		}
		if len(rest) < m {
			return 0, false
		}
		rest = rest[m:]
	}
	return n, true
}

func (r textRef) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	if isText(info.Type()) {
		*r.p = string(data)
		return nil
	}
	return gocql.Unmarshal(info, data, r.p)
}

func (r blobRef) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	if isText(info.Type()) {
		*r.p = cqlvalue.DecodeBlob(*r.p, data) // an empty value is []byte{}, not nil
		return nil
	}
	return gocql.Unmarshal(info, data, r.p)
}

func (r int32Ref) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	if info.Type() == gocql.TypeInt {
		*r.p = int32(dec64(data, 4))
		return nil
	}
	return gocql.Unmarshal(info, data, r.p)
}

func (r int64Ref) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	switch info.Type() {
	case gocql.TypeBigInt, gocql.TypeCounter, gocql.TypeTimestamp:
		*r.p = dec64(data, 8)
		return nil
	}
	return gocql.Unmarshal(info, data, r.p)
}

func (r intRef) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	switch info.Type() {
	case gocql.TypeBigInt, gocql.TypeCounter:
		if strconv.IntSize == 64 { // else gocql checks the range
			*r.p = int(dec64(data, 8))
			return nil
		}
	case gocql.TypeInt:
		*r.p = int(int32(dec64(data, 4)))
		return nil
	}
	return gocql.Unmarshal(info, data, r.p)
}

func (r doubleRef) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	if info.Type() == gocql.TypeDouble {
		*r.p = math.Float64frombits(uint64(dec64(data, 8)))
		return nil
	}
	return gocql.Unmarshal(info, data, r.p)
}

func (r boolRef) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	if info.Type() == gocql.TypeBoolean {
		*r.p = len(data) > 0 && data[0] != 0
		return nil
	}
	return gocql.Unmarshal(info, data, r.p)
}

func (r uuidRef) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	switch info.Type() {
	case gocql.TypeUUID, gocql.TypeTimeUUID:
		switch len(data) {
		case 0:
			*r.p = gocql.UUID{}
			return nil
		case 16:
			copy(r.p[:], data)
			return nil
		}
	}
	return gocql.Unmarshal(info, data, r.p) // and its error for another length
}

// dec64 is gocql's decInt (n = 4) or decBigInt (n = 8): the big-endian
// integer, or 0 when data is not n bytes long.
func dec64(data []byte, n int) int64 {
	if len(data) != n {
		return 0
	}
	var x int64
	for _, b := range data {
		x = x<<8 | int64(b)
	}
	if n == 4 {
		return int64(int32(x))
	}
	return x
}

func be32(x int32) []byte {
	return []byte{byte(x >> 24), byte(x >> 16), byte(x >> 8), byte(x)}
}

func be64(x int64) []byte {
	return []byte{byte(x >> 56), byte(x >> 48), byte(x >> 40), byte(x >> 32),
		byte(x >> 24), byte(x >> 16), byte(x >> 8), byte(x)}
}
