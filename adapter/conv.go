package adapter

import (
	"net"
	"net/netip"
	"reflect"
	"slices"
	"time"

	"github.com/kandra-go/kandra/internal/cqlorder"
	"github.com/kandra-go/kandra/internal/cqlvalue"
	"github.com/kandra-go/kandra/internal/reflectx"
)

// conv converts one Go type to the type the driver is given (wire) and
// back. A nil *conv is a Go type the driver takes as it is.
type conv struct {
	wire     reflect.Type
	toWire   func(reflect.Value) reflect.Value
	fromWire func(reflect.Value) (reflect.Value, error)
	// only is set for a conv that is no conversion (see Codec.Converted):
	// sortOnly, the bound value is only wrapped in a SortedValue (wire is
	// the Go type, fromWire the identity); refOnly, the driver takes the
	// type as it is and the conv only aliases it to a reference.
	only convOnly
	// from and to, when to is set, alias a field's address: a *T (from's
	// word) becomes a pointer of the wire type to the same memory (to's
	// word), which the driver reads and writes directly: no temporary, no
	// reflect. T and the wire type have the same underlying type.
	from, to reflectx.TypeWord
	// ref, when set, is the pointer type a field aliased by to is bound
	// as by reference (bind's byRef), instead of to's: uuidRefWire, whose
	// MarshalCQL hands the driver the field's own bytes.
	ref reflectx.TypeWord
	// fast, when set, is the bound value of a field address or a value
	// (ok), without reflect, for the common Go types the conv takes;
	// toWire does the others.
	fast func(v any) (wire any, ok bool)
}

type convOnly uint8

const (
	converts convOnly = iota
	sortOnly
	refOnly
)

// alias is the field at p as a pointer of the wire type, if cv aliases
// and p is a *T; with byRef, of cv's ref type when it has one.
func (cv *conv) alias(p any, byRef bool) (any, bool) {
	if cv.to.IsZero() {
		return nil, false
	}
	w, d := reflectx.Unpack(p)
	if w != cv.from {
		return nil, false
	}
	if byRef && !cv.ref.IsZero() {
		return d.PackAt(cv.ref, 0), true
	}
	return d.PackAt(cv.to, 0), true
}

// aliasing sets cv's alias from t to its wire type.
func (cv *conv) aliasing(t reflect.Type) *conv {
	if reflect.PointerTo(t).ConvertibleTo(reflect.PointerTo(cv.wire)) {
		cv.from, cv.to = reflectx.PointerWordOf(t), reflectx.PointerWordOf(cv.wire)
	}
	return cv
}

// converting is the conv to wire by reflect's conversion, aliased.
func converting(t, wire reflect.Type) *conv {
	return (&conv{
		wire:     wire,
		toWire:   func(v reflect.Value) reflect.Value { return v.Convert(wire) },
		fromWire: func(v reflect.Value) (reflect.Value, error) { return v.Convert(t), nil },
	}).aliasing(t)
}

func identity(v reflect.Value) reflect.Value { return v }

func identityBack(v reflect.Value) (reflect.Value, error) { return v, nil }

var (
	typeTime   = reflect.TypeFor[time.Time]()
	typeAddr   = reflect.TypeFor[netip.Addr]()
	typeIP     = reflect.TypeFor[net.IP]()
	typeByte16 = reflect.TypeFor[[16]byte]()
)

// planConv returns nil when the driver takes t (as CQL type n) as it is.
// A column's own value (top) whose type holds a set or a map is bound as
// a SortedValue.
func planConv[I any, D TypeSystem[I]](t reflect.Type, n cqlorder.Type, top bool) *conv {
	return planSorted[I, D](t, n, top, top)
}

// planSorted is planConv with a value's rules (top: a column's own value,
// else an element's) apart from whether it is sorted as a value bound on
// its own (sorted): an element bound alone (l[?] = ?, m[?] = ?) has an
// element's rules and is sorted as a bound value.
func planSorted[I any, D TypeSystem[I]](t reflect.Type, n cqlorder.Type, top, sorted bool) *conv {
	cv := planValue[I, D](t, n, top)
	if !sorted || !n.HoldsSetOrMap() || n.Name == "udt" { // a user-defined type sorts its fields itself (planUDT)
		return cv
	}
	out := &conv{wire: t, only: sortOnly, toWire: identity, fromWire: identityBack}
	if cv != nil {
		*out = *cv
	}
	out.from, out.to = reflectx.TypeWord{}, reflectx.TypeWord{} // a sorted value is never aliased
	inner := out.toWire
	out.toWire = func(v reflect.Value) reflect.Value {
		return reflect.ValueOf(SortedValue[I, D]{Value: inner(v).Interface(), typ: n})
	}
	if n.Name == "set" && (n.Args[0].Name == "text" || n.Args[0].Name == "varchar" || n.Args[0].Name == "ascii") {
		out.fast = sortedTextSet[I, D]
	}
	return out
}

// sortedTextSet is the bound value of a set of text (or ascii) held in a
// map[string]struct{}, the common Go set, or given as a
// *cqlvalue.TextSet: its elements in a textListRef,
// in the server's order (bytes, as Go compares strings), which writes
// them as the drivers write a []string, without reflect (the drivers box
// each element and copy its bytes). A nil set and another Go type are
// left to toWire.
func sortedTextSet[I any, D TypeSystem[I]](v any) (any, bool) {
	var m map[string]struct{}
	switch x := v.(type) {
	case *cqlvalue.TextSet: // kstore's Add and Remove: sorted and distinct already
		return (*textListRef[I, D])(x), true
	case *map[string]struct{}:
		m = *x
	case map[string]struct{}:
		m = x
	}
	if m == nil {
		return nil, false
	}
	out := make(textListRef[I, D], 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return &out, true
}

var intBits = map[reflect.Kind]int{reflect.Int8: 8, reflect.Int16: 16, reflect.Int32: 32, reflect.Int64: 64, reflect.Int: 64}
var cqlIntBits = map[string]int{"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64, "varint": 1 << 30}

// isUUIDType is a 16-byte array type: kandra maps every one to UUID
// (unless AsType makes it a BLOB).
func isUUIDType(t reflect.Type) bool {
	return t.Kind() == reflect.Array && t.Len() == 16 && t.Elem().Kind() == reflect.Uint8
}

// isByteArray is an array type of bytes ([32]byte, type Hash [32]byte,
// uuid.UUID), which kandra stores in a BLOB when AsType says so.
func isByteArray(t reflect.Type) bool {
	return t.Kind() == reflect.Array && t.Elem() == typeByte
}

var typeByte = reflect.TypeFor[byte]()

// marshalsItself reports a type with its own MarshalCQL, which the
// drivers call before any conversion of theirs: kandra leaves its bytes
// to it (as kandra.ColumnSchema.AppendStored does).
func marshalsItself(t reflect.Type) bool {
	_, ok := reflect.PointerTo(t).MethodByName("MarshalCQL")
	return ok
}

// wireType is the wire type, for a driver whose type info is I, that
// encodes Go type t in the CQL type named cql by kandra's value rules, if
// one does: a time-like struct in a TIMESTAMP or DATE, an int64 type in a
// TIME, an Addr-like struct or a net.IP in an INET, and a []byte type in
// a BLOB (blobWire for a column's own value, top, blobElemWire inside a
// collection). A named type of one of these (type At time.Time) takes the
// same wire type: they share the underlying type.
func wireType[I any](t reflect.Type, cql string, top bool) (reflect.Type, bool) {
	switch {
	case t.Kind() == reflect.Struct && t.ConvertibleTo(typeTime) && cql == "timestamp":
		return reflect.TypeFor[timestampWire[I]](), true
	case t.Kind() == reflect.Struct && t.ConvertibleTo(typeTime) && cql == "date":
		return reflect.TypeFor[dateWire[I]](), true
	case t.Kind() == reflect.Int64 && cql == "time":
		return reflect.TypeFor[timeOfDayWire[I]](), true
	case t.Kind() == reflect.Struct && t.ConvertibleTo(typeAddr) && cql == "inet":
		if !top {
			return reflect.TypeFor[inetElemWire[I]](), true
		}
		return reflect.TypeFor[inetWire[I]](), true
	case t == typeIP && cql == "inet":
		return reflect.TypeFor[netIPWire[I]](), true
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && cql == "blob":
		if top {
			return reflect.TypeFor[blobWire[I]](), true
		}
		return reflect.TypeFor[blobElemWire[I]](), true
	}
	return nil, false
}

// planRules is the conv of Go type t in the CQL type named cql when
// kandra's value rules encode it (wireType), when t cannot give back
// every stored value (an IPv4-mapped address in a net.IP), or when the
// CQL integer type is wider than t (a column's own value, or behind its
// pointer: inside a collection the driver's range check stands).
func planRules[I any](t reflect.Type, cql string, top bool) *conv {
	if bits, isInt := intBits[t.Kind()]; isInt && top && cqlIntBits[cql] > bits {
		return &conv{
			wire: reflect.TypeFor[integerWire[I]](),
			toWire: func(v reflect.Value) reflect.Value {
				return reflect.ValueOf(integerWire[I]{cqlvalue.IntegerBytes(v.Int(), cql)})
			},
			fromWire: func(v reflect.Value) (reflect.Value, error) {
				x, err := cqlvalue.NarrowInt(v.Interface().(integerWire[I]).data, cql, bits)
				if err != nil {
					return reflect.Value{}, err
				}
				out := reflect.New(t).Elem()
				out.SetInt(x)
				return out, nil
			},
		}
	}
	wire, ok := wireType[I](t, cql, top)
	if !ok {
		return nil
	}
	c := converting(t, wire)
	if t == typeIP {
		// Through a temporary, so that fromWire sees every stored value.
		c.from, c.to = reflectx.TypeWord{}, reflectx.TypeWord{}
		c.fromWire = func(v reflect.Value) (reflect.Value, error) {
			ip := v.Convert(typeIP).Interface().(net.IP)
			if p := cqlvalue.NetIPProblem(ip); p != nil {
				return reflect.Value{}, p
			}
			return v.Convert(t), nil
		}
	}
	return c
}

// specialBase is the special type a named struct type of one converts
// to: kandra maps a struct type convertible to time.Time (type At
// time.Time) to TIMESTAMP and one convertible to netip.Addr to INET, as it
// maps the special type, and the drivers match only the special types
// themselves. ok is false for every other type, and for the special
// types.
func specialBase(t reflect.Type) (base reflect.Type, ok bool) {
	switch {
	case t.Kind() == reflect.Struct && t != typeTime && t.ConvertibleTo(typeTime):
		return typeTime, true
	case t.Kind() == reflect.Struct && t != typeAddr && t.ConvertibleTo(typeAddr):
		return typeAddr, true
	}
	return nil, false
}

// planValue is planConv without the sorting.
func planValue[I any, D TypeSystem[I]](t reflect.Type, n cqlorder.Type, top bool) *conv {
	if c := planRules[I](t, n.Name, top); c != nil {
		return c
	}
	if base, ok := specialBase(t); ok {
		// Convert to the special type, then as it is converted (if at all).
		inner := planValue[I, D](base, n, top)
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
	var d D
	switch {
	case t.Kind() == reflect.Array && t.Elem().Kind() == reflect.Float32 && n.Name == "vector":
		// Encoded by the core for both drivers: gocql v1.7.0 has no vector
		// type, and v2 marshals one float at a time through reflect.
		return &conv{
			wire:   reflect.TypeFor[vectorWire[I]](),
			toWire: func(v reflect.Value) reflect.Value { return reflect.ValueOf(vectorWire[I]{vectorBytes(v)}) },
			fromWire: func(v reflect.Value) (reflect.Value, error) {
				return vectorValue(t, v.Interface().(vectorWire[I]).data)
			},
		}
	case isByteArray(t) && n.Name == "blob" && !marshalsItself(t):
		// The drivers marshal a BLOB from slices and strings only: the
		// array goes as a copy of its bytes, and reads back only at its
		// length (null: the zero array, as a UUID's).
		if !top {
			return &conv{
				wire: reflect.TypeFor[byteArrayElemWire[I]](),
				toWire: func(v reflect.Value) reflect.Value {
					return reflect.ValueOf(byteArrayElemWire[I](byteArrayBytes(v)))
				},
				fromWire: func(v reflect.Value) (reflect.Value, error) { return byteArrayValue(t, v) },
			}
		}
		return &conv{
			wire: reflect.TypeFor[byteArrayWire[I]](),
			toWire: func(v reflect.Value) reflect.Value {
				return reflect.ValueOf(byteArrayWire[I](byteArrayBytes(v)))
			},
			fromWire: func(v reflect.Value) (reflect.Value, error) {
				if v.IsNil() {
					return reflect.Zero(t), nil // null
				}
				return byteArrayValue(t, v)
			},
		}
	case isUUIDType(t) && (n.Name == "uuid" || n.Name == "timeuuid"):
		// The drivers bind and scan only their own UUID type and [16]byte:
		// any other (uuid.UUID, type UserID uuid.UUID) goes as uuidWire,
		// over the field's memory.
		wire := reflect.TypeFor[uuidWire[I, D]]()
		if r := d.Ref(d.UUID()); r != nil {
			wire = r
		}
		var cv *conv
		switch {
		case n.Name == "timeuuid" && top:
			// First, for [16]byte and the driver's UUID too: the zero
			// value goes as null (SentAsNull), never as 16 zero bytes,
			// which servers refuse in a TIMEUUID.
			return converting(t, reflect.TypeFor[timeUUIDWire[I, D]]())
		case t == typeByte16:
			return nil // as it is: no reference reads a [16]byte as the driver does
		case t == d.UUID():
			cv = refOnlyConv(t, wire)
		default:
			cv = converting(t, wire)
		}
		if !cv.to.IsZero() {
			cv.ref = reflectx.PointerWordOf(reflect.TypeFor[uuidRefWire[I, D]]())
		}
		return cv
	case t.Kind() == reflect.Int64 && n.Name == "duration":
		wire := reflect.TypeFor[durationWire[I]]()
		return &conv{
			wire:   wire,
			toWire: func(v reflect.Value) reflect.Value { return reflect.ValueOf(durationWire[I]{nanos: v.Int()}) },
			fromWire: func(v reflect.Value) (reflect.Value, error) {
				w := v.Interface().(durationWire[I])
				if p := cqlvalue.DurationProblem(w.months, w.days, w.nanos); p != nil {
					return reflect.Value{}, p
				}
				out := reflect.New(t).Elem()
				out.SetInt(w.nanos)
				return out, nil
			},
		}
	case t.Kind() == reflect.Struct && n.Name == "udt":
		// Encoded by the core for both drivers, field by field, matched by
		// name to the server's type (planUDT).
		return planUDT[I, D](t, n)
	case t.Kind() == reflect.Pointer:
		return planPointer(t, planValue[I, D](t.Elem(), n, top))
	case n.Name == "udt":
		return nil // no struct: the driver's own (a map[string]any, its UDTMarshaler)
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 && len(n.Args) == 1:
		return planSlice(t, planValue[I, D](t.Elem(), n.Args[0], false))
	case t.Kind() == reflect.Map && isSetElem(t.Elem()) && len(n.Args) == 1:
		return planSet(t, planValue[I, D](t.Key(), n.Args[0], false))
	case t.Kind() == reflect.Map && len(n.Args) == 2:
		return planMap(t, planValue[I, D](t.Key(), n.Args[0], false), planValue[I, D](t.Elem(), n.Args[1], false))
	}
	return nil
}

// planPointer is the conv of a pointer type whose element converts by
// inner: what is behind a column's pointer is the column's own value, a
// nil pointer is null (and a zero Addr behind one is null too).
func planPointer(t reflect.Type, inner *conv) *conv {
	if inner == nil || inner.only != converts {
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
}

// planSlice is the conv of a list (or set) as a slice whose elements
// convert by inner.
func planSlice(t reflect.Type, inner *conv) *conv {
	if inner == nil || inner.only != converts {
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
}

// planSet is the conv of a set as a map[K]struct{}, whose keys convert by
// key (nil: as they are). The drivers marshal such a map but cannot
// unmarshal a set into one: it is always scanned through a slice.
func planSet(t reflect.Type, key *conv) *conv {
	keyWire := t.Key()
	if key != nil && key.only != converts {
		key = nil
	}
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
}

// planMap is the conv of a map whose keys convert by key and values by
// val (nil: as they are).
func planMap(t reflect.Type, key, val *conv) *conv {
	if key != nil && key.only != converts {
		key = nil
	}
	if val != nil && val.only != converts {
		val = nil
	}
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

func isSetElem(t reflect.Type) bool { return t.Kind() == reflect.Struct && t.NumField() == 0 }
