package gocqlv2

import (
	"fmt"
	"reflect"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/cqlorder"
	"github.com/kandra-go/kandra/internal/cqlvalue"
)

// Codec adapts kandra's per-row accessors (Table.Pointers,
// TableSchema.Pointers, ColumnSchema.Pointer) to what the Apache driver v2
// can marshal. kandra hands out the addresses of an entity's fields; for
// most Go types the driver takes them as they are. For the types below it
// does not, and the adapter converts them, per column (the real-server
// suite, runtime/runtimetest, proves them against Cassandra 5.0):
//
//   - uuid.UUID (github.com/google/uuid), and any other named [16]byte
//     type (type UserID uuid.UUID): the driver marshals only gocql.UUID,
//     an unnamed [16]byte, []byte and string into a uuid column, and scans
//     only into *gocql.UUID, *[16]byte, *[]byte and *string. Converted to
//     gocql.UUID (same bytes), also inside collections and behind
//     pointers. In a TIMEUUID column of its own, the zero UUID (version 0,
//     which Cassandra refuses there: "Invalid version for TimeUUID type")
//     is sent as null, and null reads back as zero.
//   - map[K]struct{} (a CQL set): the driver marshals it but cannot
//     unmarshal a set into a map. Scanned into []K and turned back into a
//     map.
//   - time.Time (TIMESTAMP and DATE), time.Duration in a TIME, netip.Addr
//     and net.IP (INET), and []byte (BLOB): encoded by kandra's value rules
//     (README, "Values at the edges"), through the wire types of
//     internal/cqlvalue over the field's own memory, as in the gocql v1
//     adapter: the driver writes the zero time as an empty value, wraps a
//     time past the type's range, sends a TIME outside a day, turns an
//     IPv4-mapped address into IPv4 and cannot bind a netip.Addr.
//   - time.Duration in a DURATION column: the driver marshals it but
//     unmarshals a duration only into gocql.Duration. Scanned into
//     gocql.Duration and converted back (a server value with months or days
//     cannot be a time.Duration: the read fails with an *errors.ValueError
//     naming the column).
//
// A column whose CQL type holds a set or a map (at any depth) is bound as
// a SortedValue, which sends the elements of every set and the entries of
// every map in the server's order. The driver sends a Go map in its random
// iteration order, and Cassandra 5.0 keeps a frozen set or map in the
// order it was sent when it is a clustering column in descending order
// (it sorts it everywhere else): unsorted, the same Go value would be a
// different key on every write, and differ from the key another client
// writes. Sorting is not a conversion for Converted.
//
// A column whose Go type needs none of this is passed through untouched:
// the address kandra gave is what the driver reads and writes.
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
// the driver cannot marshal (or would send unsorted) by converted values,
// and the addresses of common types by their values (which the driver
// marshals without reflect). It returns a new slice.
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

// bind is the value the driver is given for the field address p: p's
// value for a common type, a pointer of the wire type to the same memory
// (alias), or the converted value.
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
// kandra's addresses where gocql can scan directly, temporaries elsewhere.
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
			targets = append(targets, p)
			continue
		}
		if cv.alias != nil {
			if a, ok := cv.alias(p); ok {
				targets = append(targets, a)
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
	// underlying types), which the driver reads and writes directly: no
	// temporary, no reflect. It reports false for any other value.
	alias func(p any) (any, bool)
}

var (
	typeGocqlUUID    = reflect.TypeFor[gocql.UUID]()
	typeGocqlUUIDPtr = reflect.TypeFor[*gocql.UUID]()
	typeByte16       = reflect.TypeFor[[16]byte]()
	typeTime         = reflect.TypeFor[time.Time]()
	typeGocqlDur     = reflect.TypeFor[gocql.Duration]()
)

// uuidLike is a named [16]byte type other than gocql.UUID.
func uuidLike(t reflect.Type) bool {
	return t.Kind() == reflect.Array && t.Len() == 16 && t.Elem().Kind() == reflect.Uint8 &&
		t != typeGocqlUUID && t != typeByte16
}

// timeLike is a named struct type of time.Time.
func timeLike(t reflect.Type) bool {
	return t != typeTime && t.Kind() == reflect.Struct && t.ConvertibleTo(typeTime)
}

// planConv returns nil when the driver handles t (as CQL type n)
// directly. A column's own value (top) whose type holds a set or a map is
// bound as a SortedValue.
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

// planValue is planConv without the sorting.
func planValue(t reflect.Type, n cqlNode, top bool) *conv {
	if c, ok := cqlvalue.Plan[gocql.TypeInfo](t, n.Name, top); ok {
		// kandra's value rules (README, "Values at the edges").
		return &conv{wire: c.Wire, toWire: c.ToWire, fromWire: c.FromWire, alias: c.Alias}
	}
	switch {
	case timeLike(t):
		inner := planValue(typeTime, n, top)
		if inner == nil {
			return &conv{
				wire:   typeTime,
				toWire: func(v reflect.Value) reflect.Value { return v.Convert(typeTime) },
				fromWire: func(v reflect.Value) (reflect.Value, error) {
					return v.Convert(t), nil
				},
			}
		}
		return &conv{
			wire:   inner.wire,
			toWire: func(v reflect.Value) reflect.Value { return inner.toWire(v.Convert(typeTime)) },
			fromWire: func(v reflect.Value) (reflect.Value, error) {
				x, err := inner.fromWire(v)
				if err != nil {
					return x, err
				}
				return x.Convert(t), nil
			},
		}
	case uuidLike(t) && n.Name == "timeuuid" && top:
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
	case uuidLike(t):
		return &conv{
			alias: func(p any) (any, bool) {
				u, ok := p.(*uuid.UUID) // a named 16-byte type is converted
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
	// Value is what the driver would be given unsorted: a slice (list or
	// set), a map[K]struct{} (set) or a map, or a pointer to one.
	Value any
	typ   cqlNode
}

// Sorted returns v, a value the driver marshals for a column of CQL type
// t, as a SortedValue. It fails only for a CQL type the adapter does not
// know.
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

// orderDriver is the Apache driver v2 as cqlorder.Marshal sees it.
type orderDriver struct{}

func (orderDriver) Collection(info gocql.TypeInfo) (cqlorder.Kind, gocql.TypeInfo, gocql.TypeInfo, error) {
	ci, ok := info.(gocql.CollectionType)
	if !ok {
		return cqlorder.NotCollection, nil, nil, nil
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

// deref is the value behind a field address of a common type, which the
// driver marshals through its typed cases; given the address, Marshal
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
