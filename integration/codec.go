package integration

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"net"
	"net/netip"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
)

// Codec adapts kandra's per-row accessors (Table.Pointers,
// TableSchema.Pointers, ColumnSchema.Pointer) to what gocql v1.7.0 can
// marshal. kandra hands out the addresses of an entity's fields; for most
// Go types gocql takes them as they are. For the types below it does not,
// and a runtime built on gocql v1.7.0 must convert them, per column, as
// this helper does (the real-server suite proves each of these against
// Cassandra 5.0; TestValues logs which types gocql rejects unconverted):
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
//     fails ("can not marshal integration.At into timestamp"). Converted to
//     the special type, then as that type is converted.
//
// A value that holds a set or a map is bound through ordered, which sends
// its elements in a fixed order (gocql v1.7.0 sends a Go map in random
// order, and Cassandra 5.0 keeps that order in a descending frozen
// clustering column: see ordered).
//
// A column whose Go type needs none of this is passed through untouched:
// the address kandra gave is what gocql reads and writes.
type Codec struct {
	convs   []*conv // per column; nil = pass through
	ordered []bool  // per column: its type holds a set or a map (see ordered)
}

// NewCodec plans the conversions for cols (in the order the pointers will
// come in, normally TableSchema.Columns()).
func NewCodec(cols []*kandra.ColumnSchema) (*Codec, error) {
	c := &Codec{convs: make([]*conv, len(cols)), ordered: make([]bool, len(cols))}
	for i, col := range cols {
		node, err := nodeOf(col.Type())
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", col.Name(), err)
		}
		c.convs[i] = planConv(col.GoType(), node, true)
		c.ordered[i] = node.holdsSetOrMap()
	}
	return c, nil
}

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

// Converted reports whether column i needs a conversion.
func (c *Codec) Converted(i int) bool { return c.convs[i] != nil }

// BindValues replaces, in ptrs (field addresses from kandra), the entries
// gocql cannot marshal by converted values. It returns a new slice.
func (c *Codec) BindValues(ptrs []any) []any {
	out := make([]any, len(ptrs))
	for i, p := range ptrs {
		cv := c.convs[i]
		switch {
		case cv == nil && !c.ordered[i]:
			out[i] = p
		case cv == nil:
			out[i] = ordered{reflect.ValueOf(p).Elem()}
		case c.ordered[i]:
			out[i] = ordered{cv.toWire(reflect.ValueOf(p).Elem())}
		default:
			out[i] = cv.toWire(reflect.ValueOf(p).Elem()).Interface()
		}
	}
	return out
}

// ordered marshals a collection value (a list or set as a slice, a set
// as a map[K]struct{}, a map), through a pointer or not, with the
// elements of every set and the entries of every map in it sorted by
// their serialized bytes, nested collections likewise. gocql v1.7.0
// marshals a Go map in its random iteration order, and Cassandra 5.0
// keeps a frozen set or map in the order it was sent when the column is a
// clustering column in descending order (it sorts it otherwise): the same
// Go value would be a different key on every write (TestDescendingFrozen
// shows it). Sorting by bytes makes the order deterministic; it is the
// server's own order (the element type's comparator) for text, ascii,
// blob and boolean elements, not for signed numbers or UUIDs, so a key
// written by Codec can differ from the same key written as a CQL literal
// by another client. A runtime must sort by the comparator.
type ordered struct{ v reflect.Value }

func (o ordered) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	v := o.v
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, nil
		}
		v = v.Elem()
	}
	if (v.Kind() == reflect.Slice || v.Kind() == reflect.Map) && v.IsNil() {
		return nil, nil
	}
	ci, ok := info.(gocql.CollectionType)
	if !ok {
		return gocql.Marshal(info, v.Interface())
	}
	item := func(info gocql.TypeInfo, x reflect.Value) ([]byte, error) {
		if _, isColl := info.(gocql.CollectionType); isColl {
			return ordered{x}.MarshalCQL(info)
		}
		return gocql.Marshal(info, x.Interface())
	}
	var elems [][]byte
	n := 0
	switch {
	case info.Type() == gocql.TypeMap:
		type entry struct{ k, v []byte }
		var entries []entry
		it := v.MapRange()
		for it.Next() {
			kb, err := item(ci.Key, it.Key())
			if err != nil {
				return nil, err
			}
			vb, err := item(ci.Elem, it.Value())
			if err != nil {
				return nil, err
			}
			entries = append(entries, entry{kb, vb})
		}
		sort.Slice(entries, func(i, j int) bool { return bytes.Compare(entries[i].k, entries[j].k) < 0 })
		for _, e := range entries {
			elems = append(elems, e.k, e.v)
		}
		n = len(entries)
	case v.Kind() == reflect.Map: // a set as map[K]struct{}
		for _, k := range v.MapKeys() {
			b, err := item(ci.Elem, k)
			if err != nil {
				return nil, err
			}
			elems = append(elems, b)
		}
		n = len(elems)
	default: // a list, or a set as a slice
		for i := 0; i < v.Len(); i++ {
			b, err := item(ci.Elem, v.Index(i))
			if err != nil {
				return nil, err
			}
			elems = append(elems, b)
		}
		n = len(elems)
	}
	if info.Type() == gocql.TypeSet {
		sort.Slice(elems, func(i, j int) bool { return bytes.Compare(elems[i], elems[j]) < 0 })
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(n))
	for _, e := range elems {
		if e == nil {
			out = binary.BigEndian.AppendUint32(out, math.MaxUint32) // null (-1)
			continue
		}
		out = binary.BigEndian.AppendUint32(out, uint32(len(e)))
		out = append(out, e...)
	}
	return out, nil
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
		if cv == nil {
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
}

var (
	typeUUID         = reflect.TypeFor[uuid.UUID]()
	typeByte16       = reflect.TypeFor[[16]byte]()
	typeGocqlUUID    = reflect.TypeFor[gocql.UUID]()
	typeGocqlUUIDPtr = reflect.TypeFor[*gocql.UUID]()
	typeAddr         = reflect.TypeFor[netip.Addr]()
	typeNetIP        = reflect.TypeFor[net.IP]()
	typeNetIPPtr     = reflect.TypeFor[*net.IP]()
	typeDuration     = reflect.TypeFor[time.Duration]()
	typeTime         = reflect.TypeFor[time.Time]()
	typeTimePtr      = reflect.TypeFor[*time.Time]()
	typeGocqlDur     = reflect.TypeFor[gocql.Duration]()
)

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

// planConv returns nil when gocql handles t (as CQL type n) directly.
func planConv(t reflect.Type, n cqlNode, top bool) *conv {
	if base, ok := specialBase(t); ok {
		// Convert to the special type, then as it is converted (if at all).
		inner := planConv(base, n, top)
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
		inner := planConv(t.Elem(), n, false)
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
		inner := planConv(t.Elem(), n.args[0], false)
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
		key := planConv(t.Key(), n.args[0], false)
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
		key, val := planConv(t.Key(), n.args[0], false), planConv(t.Elem(), n.args[1], false)
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

// parseCQLType reads a CQL type string (kandra's rendering or a server's)
// into a cqlNode, for tests that start from text.
func parseCQLType(s string) (cqlNode, error) {
	t, err := kandra.ParseCQLType(s)
	if err != nil {
		return cqlNode{}, err
	}
	return nodeOf(t)
}
