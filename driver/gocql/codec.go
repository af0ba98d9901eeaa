package gocql

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"sort"
	"strings"
	"time"

	gocql "github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
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
//   - netip.Addr: gocql marshals an inet only from net.IP or string, and
//     scans one only into net.IP or string. Converted to net.IP (the zero,
//     invalid Addr is null, and null reads back as the zero Addr).
//   - net.IP as a column's own value: gocql binds it, but scanning a null
//     inet into *net.IP fails ("invalid sized IP: got 0 bytes not 4 or
//     16"). Scanned through a **net.IP, which gocql sets to nil for null.
//   - map[K]struct{} (a CQL set): gocql marshals it but cannot unmarshal a
//     set into a map. Scanned into []K and turned back into a map.
//   - time.Time in a DATE column: gocql marshals the zero time as an empty
//     value, which Cassandra refuses for a DATE ("Expected 4 byte long for
//     date (0)"; a TIMESTAMP takes it). Sent through *time.Time, so that
//     the zero time is null; null reads back as the zero time.
//   - time.Duration in a DURATION column: gocql marshals it but unmarshals
//     a duration only into gocql.Duration. Scanned into gocql.Duration and
//     converted back (months and days are never set by a Go value; a
//     server value that has them cannot be a time.Duration and is an error).
//     time.Duration in a TIME column needs nothing.
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
// A column whose Go type needs none of this is passed through untouched:
// the address kandra gave is what gocql reads and writes.
type Codec struct {
	convs []*conv // per column; nil = pass through
}

// NewCodec plans the conversions for cols (in the order the pointers will
// come in, normally TableSchema.Columns()).
func NewCodec(cols []*kandra.ColumnSchema) (*Codec, error) {
	c := &Codec{convs: make([]*conv, len(cols))}
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
// gocql cannot marshal (or would send unsorted) by converted values. It
// returns a new slice.
func (c *Codec) BindValues(ptrs []any) []any {
	out := make([]any, len(ptrs))
	for i, p := range ptrs {
		cv := c.convs[i]
		if cv == nil {
			out[i] = p
			continue
		}
		out[i] = cv.toWire(reflect.ValueOf(p).Elem()).Interface()
	}
	return out
}

// ScanTargets returns scan targets for a row whose fields are at ptrs:
// kandra's addresses where gocql can scan directly, temporaries elsewhere.
// Call finish after a successful Scan to store the temporaries into the
// fields.
func (c *Codec) ScanTargets(ptrs []any) (targets []any, finish func() error) {
	targets = make([]any, len(ptrs))
	type pending struct {
		cv    *conv
		tmp   reflect.Value
		field reflect.Value
	}
	var todo []pending
	for i, p := range ptrs {
		cv := c.convs[i]
		if cv == nil || cv.sortOnly {
			targets[i] = p
			continue
		}
		tmp := reflect.New(cv.wire)
		targets[i] = tmp.Interface()
		todo = append(todo, pending{cv, tmp, reflect.ValueOf(p).Elem()})
	}
	return targets, func() error {
		for _, t := range todo {
			v, err := t.cv.fromWire(t.tmp.Elem())
			if err != nil {
				return err
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
}

var (
	typeUUID         = reflect.TypeFor[uuid.UUID]()
	typeByte16       = reflect.TypeFor[[16]byte]()
	typeGocqlUUID    = reflect.TypeFor[gocql.UUID]()
	typeGocqlUUIDPtr = reflect.TypeFor[*gocql.UUID]()
	typeAddr         = reflect.TypeFor[netip.Addr]()
	typeNetIP        = reflect.TypeFor[net.IP]()
	typeNetIPPtr     = reflect.TypeFor[*net.IP]()
	typeTime         = reflect.TypeFor[time.Time]()
	typeTimePtr      = reflect.TypeFor[*time.Time]()
	typeGocqlDur     = reflect.TypeFor[gocql.Duration]()
)

// planConv returns nil when gocql handles t (as CQL type n) directly. A
// column's own value (top) whose type holds a set or a map is bound as a
// SortedValue.
func planConv(t reflect.Type, n cqlNode, top bool) *conv {
	cv := planValue(t, n, top)
	if !top || !n.holdsSetOrMap() {
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
	case t == typeUUID && n.name == "timeuuid" && top:
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
			wire:   typeGocqlUUID,
			toWire: func(v reflect.Value) reflect.Value { return v.Convert(typeGocqlUUID) },
			fromWire: func(v reflect.Value) (reflect.Value, error) {
				return v.Convert(t), nil
			},
		}
	case t == typeAddr:
		// Through *net.IP, so that null reads back as the zero Addr (see
		// the net.IP case).
		return &conv{
			wire: typeNetIPPtr,
			toWire: func(v reflect.Value) reflect.Value {
				a := v.Interface().(netip.Addr)
				if !a.IsValid() {
					return reflect.Zero(typeNetIPPtr)
				}
				ip := net.IP(a.AsSlice())
				return reflect.ValueOf(&ip)
			},
			fromWire: func(v reflect.Value) (reflect.Value, error) {
				p := v.Interface().(*net.IP)
				if p == nil || len(*p) == 0 {
					return reflect.Zero(typeAddr), nil
				}
				a, ok := netip.AddrFromSlice(*p)
				if !ok {
					return reflect.Value{}, fmt.Errorf("inet value %v is not 4 or 16 bytes", []byte(*p))
				}
				return reflect.ValueOf(a), nil
			},
		}
	case t == typeNetIP && top:
		// gocql v1.7.0 binds a net.IP, but scanning a null inet into
		// *net.IP fails ("invalid sized IP: got 0 bytes"): scan through
		// **net.IP, which gocql sets to nil for null. Collections cannot
		// hold nulls, so only a column's own value needs this.
		return &conv{
			wire: typeNetIPPtr,
			toWire: func(v reflect.Value) reflect.Value {
				if v.IsNil() {
					return reflect.Zero(typeNetIPPtr)
				}
				p := reflect.New(typeNetIP)
				p.Elem().Set(v)
				return p
			},
			fromWire: func(v reflect.Value) (reflect.Value, error) {
				if v.IsNil() {
					return reflect.Zero(t), nil
				}
				return v.Elem(), nil
			},
		}
	case t == typeTime && n.name == "date" && top:
		// gocql v1.7.0 writes the zero time.Time as an empty value, which
		// Cassandra refuses in a DATE ("Expected 4 byte long for date
		// (0)"); a TIMESTAMP takes it. Sent through *time.Time, the zero
		// time is null, and null reads back as the zero time. Collections
		// cannot hold nulls, so only a column's own value needs this.
		return &conv{
			wire: typeTimePtr,
			toWire: func(v reflect.Value) reflect.Value {
				if v.IsZero() {
					return reflect.Zero(typeTimePtr)
				}
				p := reflect.New(typeTime)
				p.Elem().Set(v)
				return p
			},
			fromWire: func(v reflect.Value) (reflect.Value, error) {
				if v.IsNil() {
					return reflect.Zero(t), nil
				}
				return v.Elem(), nil
			},
		}
	case t.Kind() == reflect.Int64 && n.name == "duration":
		return &conv{
			wire: typeGocqlDur,
			toWire: func(v reflect.Value) reflect.Value {
				return reflect.ValueOf(gocql.Duration{Nanoseconds: v.Int()})
			},
			fromWire: func(v reflect.Value) (reflect.Value, error) {
				d := v.Interface().(gocql.Duration)
				if d.Months != 0 || d.Days != 0 {
					return reflect.Value{}, fmt.Errorf("duration %dmo%dd%dns has months or days: it is not a %s", d.Months, d.Days, d.Nanoseconds, t)
				}
				out := reflect.New(t).Elem()
				out.SetInt(d.Nanoseconds)
				return out, nil
			},
		}
	case t.Kind() == reflect.Pointer:
		inner := planValue(t.Elem(), n, false)
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
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 && len(n.args) == 1:
		inner := planValue(t.Elem(), n.args[0], false)
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
	case t.Kind() == reflect.Map && isSetElem(t.Elem()) && len(n.args) == 1:
		// A set: always scanned through a slice.
		key := planValue(t.Key(), n.args[0], false)
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
	case t.Kind() == reflect.Map && len(n.args) == 2:
		key, val := planValue(t.Key(), n.args[0], false), planValue(t.Elem(), n.args[1], false)
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

// cqlNode is a parsed CQL type: a lower-case native name, or list/set/map
// with arguments. FROZEN<> is dropped: it does not change the values.
type cqlNode struct {
	name string
	args []cqlNode
}

// holdsSetOrMap reports whether n is, or holds at any depth, a set or a map.
func (n cqlNode) holdsSetOrMap() bool {
	if n.name == "set" || n.name == "map" {
		return true
	}
	for _, a := range n.args {
		if a.holdsSetOrMap() {
			return true
		}
	}
	return false
}

func (n cqlNode) String() string {
	if len(n.args) == 0 {
		return n.name
	}
	parts := make([]string, len(n.args))
	for i, a := range n.args {
		parts[i] = a.String()
	}
	return n.name + "<" + strings.Join(parts, ", ") + ">"
}

// nodeOf walks a kandra.CQLType into a cqlNode.
func nodeOf(t kandra.CQLType) (cqlNode, error) {
	var children []kandra.CQLType
	switch t.Kind() {
	case kandra.KindNative:
		return cqlNode{name: strings.ToLower(t.Name())}, nil
	case kandra.KindList, kandra.KindSet:
		children = []kandra.CQLType{t.Elem()}
	case kandra.KindMap:
		children = []kandra.CQLType{t.Key(), t.Elem()}
	default:
		return cqlNode{}, fmt.Errorf("CQL type %s has kind %s", t, t.Kind())
	}
	n := cqlNode{name: t.Kind().String(), args: make([]cqlNode, len(children))}
	for i, c := range children {
		var err error
		if n.args[i], err = nodeOf(c); err != nil {
			return cqlNode{}, err
		}
	}
	return n, nil
}

// SortedValue is a value bound for a column whose CQL type holds a set or
// a map (see Codec). It marshals like Value, with the elements of every
// set and the entries of every map in it, at any depth, in the order
// Cassandra's comparator for the element (or key) type gives, the order
// in which the server stores them in any other column and in which it
// reads a CQL literal: text, ascii, blob, inet, boolean and date by their
// bytes; the integer types, timestamp and time as signed numbers; float
// and double as Java's Float.compare and Double.compare; varint and
// decimal by value; uuid by version, then by time for version 1, then by
// unsigned bytes; timeuuid by time, then by signed bytes; a frozen
// collection element by element, then by size.
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
	return marshalSorted(info, s.typ, reflect.ValueOf(s.Value))
}

// marshalSorted marshals v as gocql would, sorting every set and map.
func marshalSorted(info gocql.TypeInfo, n cqlNode, v reflect.Value) ([]byte, error) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil, nil
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		return nil, nil
	}
	ci, isColl := info.(gocql.CollectionType)
	if !isColl || !n.holdsSetOrMap() {
		return gocql.Marshal(info, v.Interface())
	}
	if info.Version() < 3 {
		return nil, fmt.Errorf("kandra/driver/gocql: protocol version %d: sorted collections need protocol 3 or later", info.Version())
	}
	if (v.Kind() == reflect.Slice || v.Kind() == reflect.Map) && v.IsNil() {
		return nil, nil
	}
	var elems [][]byte // a map's keys and values, interleaved
	count := 0
	switch {
	case info.Type() == gocql.TypeMap && v.Kind() == reflect.Map && len(n.args) == 2:
		type entry struct{ k, v []byte }
		entries := make([]entry, 0, v.Len())
		for it := v.MapRange(); it.Next(); {
			kb, err := marshalSorted(ci.Key, n.args[0], it.Key())
			if err != nil {
				return nil, err
			}
			vb, err := marshalSorted(ci.Elem, n.args[1], it.Value())
			if err != nil {
				return nil, err
			}
			entries = append(entries, entry{kb, vb})
		}
		sort.SliceStable(entries, func(i, j int) bool { return compareValues(n.args[0], entries[i].k, entries[j].k) < 0 })
		for i, e := range entries {
			if i > 0 && compareValues(n.args[0], entries[i-1].k, e.k) == 0 {
				continue // keys the server holds equal (NaN, 1.0 and 1.00): the first is kept, as in a literal
			}
			elems = append(elems, e.k, e.v)
			count++
		}
	case info.Type() == gocql.TypeSet && v.Kind() == reflect.Map && len(n.args) == 1: // map[K]struct{}
		for _, k := range v.MapKeys() {
			b, err := marshalSorted(ci.Elem, n.args[0], k)
			if err != nil {
				return nil, err
			}
			elems = append(elems, b)
		}
		count = len(elems)
	case (info.Type() == gocql.TypeSet || info.Type() == gocql.TypeList) && (v.Kind() == reflect.Slice || v.Kind() == reflect.Array) && len(n.args) == 1:
		for i := 0; i < v.Len(); i++ {
			b, err := marshalSorted(ci.Elem, n.args[0], v.Index(i))
			if err != nil {
				return nil, err
			}
			elems = append(elems, b)
		}
		count = len(elems)
	default:
		return gocql.Marshal(info, v.Interface())
	}
	if info.Type() == gocql.TypeSet {
		sort.SliceStable(elems, func(i, j int) bool { return compareValues(n.args[0], elems[i], elems[j]) < 0 })
		// A set holds each element once: a slice can repeat one, and the
		// server keeps repeats in a descending clustering column.
		uniq := elems[:0]
		for i, e := range elems {
			if i == 0 || compareValues(n.args[0], elems[i-1], e) != 0 {
				uniq = append(uniq, e)
			}
		}
		elems, count = uniq, len(uniq)
	}
	return appendCollection(nil, count, elems), nil
}

// appendCollection writes a collection of protocol 3 and later: the
// count, then each value with its length (a nil value is null, -1).
func appendCollection(out []byte, count int, elems [][]byte) []byte {
	out = binary.BigEndian.AppendUint32(out, uint32(count))
	for _, e := range elems {
		if e == nil {
			out = binary.BigEndian.AppendUint32(out, math.MaxUint32)
			continue
		}
		out = binary.BigEndian.AppendUint32(out, uint32(len(e)))
		out = append(out, e...)
	}
	return out
}

// compareValues orders two serialized values of CQL type n as Cassandra
// 5.0's comparator for n does (see SortedValue): negative when a sorts
// first. A value that is not well formed for n falls back to byte order.
func compareValues(n cqlNode, a, b []byte) int {
	if len(a) == 0 || len(b) == 0 {
		return cmp.Compare(len(a), len(b)) // the empty value sorts first in every type
	}
	switch n.name {
	case "tinyint", "smallint", "int", "bigint", "counter", "timestamp", "time":
		if len(a) == len(b) {
			if c := cmp.Compare(int8(a[0]), int8(b[0])); c != 0 {
				return c
			}
			return bytes.Compare(a[1:], b[1:])
		}
		return varint(a).Cmp(varint(b))
	case "float":
		if len(a) == 4 && len(b) == 4 {
			return compareFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(a))), float64(math.Float32frombits(binary.BigEndian.Uint32(b))))
		}
	case "double":
		if len(a) == 8 && len(b) == 8 {
			return compareFloat(math.Float64frombits(binary.BigEndian.Uint64(a)), math.Float64frombits(binary.BigEndian.Uint64(b)))
		}
	case "varint":
		return varint(a).Cmp(varint(b))
	case "decimal":
		if len(a) > 4 && len(b) > 4 {
			return compareDecimal(int32(binary.BigEndian.Uint32(a)), varint(a[4:]), int32(binary.BigEndian.Uint32(b)), varint(b[4:]))
		}
	case "uuid", "timeuuid":
		if len(a) == 16 && len(b) == 16 {
			return compareUUID(n.name == "timeuuid", a, b)
		}
	case "list", "set", "map":
		if c, ok := compareCollections(n, a, b); ok {
			return c
		}
	}
	return bytes.Compare(a, b) // ascii, text, varchar, blob, boolean, inet, date
}

// compareFloat is Java's Double.compare (Float.compare agrees on every
// float32): -0 before +0, NaN after +Inf, all NaNs equal.
func compareFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	bits := func(f float64) int64 {
		if math.IsNaN(f) {
			return 0x7ff8000000000000
		}
		return int64(math.Float64bits(f))
	}
	return cmp.Compare(bits(x), bits(y))
}

// varint decodes a big-endian two's complement integer.
func varint(b []byte) *big.Int {
	x := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(len(b))*8))
	}
	return x
}

// compareDecimal compares unscaledA × 10^-scaleA with unscaledB ×
// 10^-scaleB by value, as Java's BigDecimal.compareTo (1.0 equals 1.00).
func compareDecimal(scaleA int32, a *big.Int, scaleB int32, b *big.Int) int {
	if c := cmp.Compare(a.Sign(), b.Sign()); c != 0 || a.Sign() == 0 {
		return c
	}
	// Different magnitudes (digits before the point) decide without
	// scaling, which keeps a far-off scale from building a huge power.
	mag := func(x *big.Int, scale int32) int64 { return int64(len(new(big.Int).Abs(x).String())) - int64(scale) }
	if c := cmp.Compare(mag(a, scaleA), mag(b, scaleB)); c != 0 {
		return c * a.Sign()
	}
	ten := big.NewInt(10)
	x, y := new(big.Int).Set(a), new(big.Int).Set(b)
	if scaleA < scaleB {
		x.Mul(x, new(big.Int).Exp(ten, big.NewInt(int64(scaleB)-int64(scaleA)), nil))
	} else {
		y.Mul(y, new(big.Int).Exp(ten, big.NewInt(int64(scaleA)-int64(scaleB)), nil))
	}
	return x.Cmp(y)
}

// compareUUID is Cassandra's UUIDType (timeuuid false) or TimeUUIDType
// comparator on two 16-byte values.
func compareUUID(timeuuid bool, a, b []byte) int {
	va, vb := a[6]>>4, b[6]>>4
	if !timeuuid && va != vb {
		return cmp.Compare(va, vb)
	}
	if timeuuid || va == 1 {
		// The 60-bit timestamp: time_hi, time_mid, time_low.
		ts := func(u []byte) uint64 {
			msb := binary.BigEndian.Uint64(u)
			return msb<<48 | msb<<16&0xffff00000000 | msb>>32
		}
		if c := cmp.Compare(ts(a), ts(b)); c != 0 {
			return c
		}
	} else if c := bytes.Compare(a[:8], b[:8]); c != 0 {
		return c
	}
	if !timeuuid {
		return bytes.Compare(a[8:], b[8:])
	}
	for i := 8; i < 16; i++ { // TimeUUIDType: signed bytes, kept for compatibility
		if c := cmp.Compare(int8(a[i]), int8(b[i])); c != 0 {
			return c
		}
	}
	return 0
}

// compareCollections orders two frozen collections of type n: value by
// value (a map's key, then its value), then the shorter first. ok is
// false when either is not a well-formed collection.
func compareCollections(n cqlNode, a, b []byte) (c int, ok bool) {
	ea, okA := splitCollection(a, n.name == "map")
	eb, okB := splitCollection(b, n.name == "map")
	if !okA || !okB || len(n.args) == 0 {
		return 0, false
	}
	for i := 0; i < len(ea) && i < len(eb); i++ {
		if c := compareValues(n.args[i%len(n.args)], ea[i], eb[i]); c != 0 {
			return c, true
		}
	}
	return cmp.Compare(len(ea), len(eb)), true
}

// splitCollection reads a serialized collection's values (a map's keys
// and values interleaved).
func splitCollection(b []byte, isMap bool) ([][]byte, bool) {
	if len(b) < 4 {
		return nil, false
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	if isMap {
		n *= 2
	}
	if n < 0 || n > len(b) {
		return nil, false
	}
	b = b[4:]
	out := make([][]byte, 0, n)
	for i := 0; i < n; i++ {
		if len(b) < 4 {
			return nil, false
		}
		l := int(int32(binary.BigEndian.Uint32(b)))
		b = b[4:]
		if l < 0 {
			out = append(out, nil)
			continue
		}
		if l > len(b) {
			return nil, false
		}
		out = append(out, b[:l])
		b = b[l:]
	}
	return out, len(b) == 0
}
