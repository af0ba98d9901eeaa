package kgocqlv2

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

// The adapter core's references, and its duration, against the driver's
// own marshalling: for drawn values of every type with a reference, into
// and from every CQL type, the same bytes, values and failures (a fixed
// seed: the cases are the same on every run).

// refTypes are the CQL types a reference may be asked to marshal: the
// ones each writes itself and, for the fallback to the driver, others.
var refTypes = []gocql.Type{gocql.TypeVarchar, gocql.TypeText, gocql.TypeAscii, gocql.TypeBlob,
	gocql.TypeInt, gocql.TypeBigInt, gocql.TypeCounter, gocql.TypeTimestamp, gocql.TypeDouble,
	gocql.TypeFloat, gocql.TypeBoolean, gocql.TypeUUID, gocql.TypeTimeUUID, gocql.TypeSmallInt,
	gocql.TypeTinyInt, gocql.TypeVarint, gocql.TypeDate, gocql.TypeTime, gocql.TypeInet}

// refCases are the Go types with a reference, with their CQL type and a
// value drawn from r.
var refCases = []struct {
	cql  string
	draw func(r *rand.Rand) any
}{
	{"TEXT", func(r *rand.Rand) any { return string(drawBytes(r, 12)) }},
	{"INT", func(r *rand.Rand) any { return int32(r.Uint32()) }},
	{"BIGINT", func(r *rand.Rand) any { return int64(r.Uint64()) }},
	{"BIGINT", func(r *rand.Rand) any { return int(r.Uint64()) }},
	{"DOUBLE", func(r *rand.Rand) any { return math.Float64frombits(r.Uint64()) }},
	{"BOOLEAN", func(r *rand.Rand) any { return r.IntN(2) == 0 }},
	{"UUID", func(r *rand.Rand) any { return gocql.UUID(drawBytes16(r)) }},
	{"LIST<TEXT>", func(r *rand.Rand) any { return drawStrings(r) }},
}

func drawBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, r.IntN(n+1))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func drawBytes16(r *rand.Rand) (u [16]byte) {
	for i := range u {
		u[i] = byte(r.Uint32())
	}
	return u
}

func drawStrings(r *rand.Rand) []string {
	if r.IntN(8) == 0 {
		return nil
	}
	s := make([]string, r.IntN(6))
	for i := range s {
		s[i] = string(drawBytes(r, 6))
	}
	return s
}

// infos are the type infos a reference meets: every refType, and lists
// and sets of text and of int.
func infos() []gocql.TypeInfo {
	var out []gocql.TypeInfo
	for _, t := range refTypes {
		out = append(out, gocql.NewNativeType(5, t, ""))
	}
	for _, c := range []struct {
		t    gocql.Type
		elem string
	}{{gocql.TypeList, "varchar"}, {gocql.TypeSet, "text"}, {gocql.TypeList, "ascii"}, {gocql.TypeSet, "blob"}, {gocql.TypeList, "int"}} {
		out = append(out, gocql.NewNativeType(5, c.t, c.elem))
	}
	return out
}

// outcome is what one Marshal or Unmarshal did.
type outcome struct {
	v     any
	b     []byte
	err   error
	panic any
}

func (o outcome) same(p outcome) bool {
	return (o.err == nil) == (p.err == nil) && (o.panic == nil) == (p.panic == nil) &&
		bytes.Equal(o.b, p.b) && (o.b == nil) == (p.b == nil) && sameValue(o.v, p.v)
}

// sameValue compares floats by their bits and tells nil slices apart.
func sameValue(a, b any) bool {
	if x, ok := a.(float64); ok {
		return math.Float64bits(x) == math.Float64bits(b.(float64))
	}
	if x, ok := a.([]string); ok && (x == nil) != (b.([]string) == nil) {
		return false
	}
	return reflect.DeepEqual(a, b)
}

func marshal(info gocql.TypeInfo, v any) (o outcome) {
	defer func() { o.panic = recover() }()
	o.b, o.err = gocql.Marshal(info, v)
	return o
}

// unmarshal decodes data into a field holding prior, through target(p).
func unmarshal(info gocql.TypeInfo, data []byte, prior any, target func(p any) any) (o outcome) {
	p := reflect.New(reflect.TypeOf(prior))
	p.Elem().Set(reflect.ValueOf(prior))
	defer func() {
		o.panic = recover()
		o.v = p.Elem().Interface()
	}()
	o.err = gocql.Unmarshal(info, data, target(p.Interface()))
	return o
}

func TestRefsAsTheDriver(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 2))
	all := infos()
	for _, c := range refCases {
		for range 300 {
			v := c.draw(r)
			codec := codecOf(t, reflect.TypeOf(v), c.cql)
			p := reflect.New(reflect.TypeOf(v))
			p.Elem().Set(reflect.ValueOf(v))
			ref := codec.AppendBindRefs(nil, []any{p.Interface()})[0]
			if reflect.TypeOf(ref).Kind() != reflect.Pointer || reflect.TypeOf(ref) == p.Type() {
				t.Fatalf("%T is bound as %T, not a reference", v, ref)
			}
			targets, _ := codec.ScanTargets([]any{p.Interface()})
			if reflect.TypeOf(targets[0]) == p.Type() {
				t.Fatalf("%T is scanned into %T, not a reference", v, targets[0])
			}
			info := all[r.IntN(len(all))]
			if got, want := marshal(info, ref), marshal(info, v); !got.same(want) {
				t.Fatalf("%T %v into %s: %x %v (panic %v), the driver's %x %v (panic %v)", v, v, info, got.b, got.err, got.panic, want.b, want.err, want.panic)
			}
			// Decode a value of the info's own form, or a drawn one.
			data, err := gocql.Marshal(info, info.Zero())
			switch n := r.IntN(4); {
			case n == 0 || err != nil:
				data = drawBytes(r, 20)
			case n == 1:
				data = nil
			case n == 2:
				data = data[:0]
			default:
				rand.Shuffle(len(data), func(i, j int) { data[i], data[j] = data[j], data[i] })
				for i := range data {
					data[i] ^= byte(r.Uint32())
				}
			}
			scan := func(p any) any { targets, _ := codec.ScanTargets([]any{p}); return targets[0] }
			if _, list := v.([]string); list && claimsTooMany(info, data) {
				// The driver would allocate a slice of the count first
				// (up to 32 GiB); the reference fails at once.
				if got := unmarshal(info, data, []string{"prior"}, scan); got.err == nil && got.panic == nil {
					t.Fatalf("%x as %s: read %q", data, info, got.v)
				}
				continue
			}
			got, want := unmarshal(info, data, c.draw(r), scan), outcome{}
			want = unmarshal(info, data, got.v, func(p any) any { return p }) // from the same prior value
			got = unmarshal(info, data, got.v, scan)
			if !got.same(want) {
				t.Fatalf("%x as %s into %T: %#v %v (panic %v), the driver's %#v %v (panic %v)", data, info, v, got.v, got.err, got.panic, want.v, want.err, want.panic)
			}
		}
	}
}

// claimsTooMany reports a list or set whose data claims more elements
// than it can hold.
func claimsTooMany(info gocql.TypeInfo, data []byte) bool {
	if t := info.Type(); (t != gocql.TypeList && t != gocql.TypeSet) || len(data) < 4 {
		return false
	}
	n := int32(binary.BigEndian.Uint32(data))
	return n < 0 || int(n) > len(data)/4
}

// TestTextListAsTheDriver: well-formed and malformed lists of text read
// through the reference as the driver reads them (the field unchanged on
// a failure, where the driver would have set a slice of the count).
func TestTextListAsTheDriver(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 3))
	codec := codecOf(t, reflect.TypeFor[[]string](), "LIST<TEXT>")
	scan := func(p any) any { targets, _ := codec.ScanTargets([]any{p}); return targets[0] }
	for range 2000 {
		info := gocql.NewNativeType(5, gocql.TypeList, "varchar")
		elems := drawStrings(r)
		data, _ := gocql.Marshal(info, elems)
		switch r.IntN(3) {
		case 0: // cut short
			data = data[:r.IntN(len(data)+1)]
		case 1: // trailing bytes, or a count that claims more
			if len(data) >= 4 && r.IntN(2) == 0 {
				binary.BigEndian.PutUint32(data, binary.BigEndian.Uint32(data)+uint32(r.IntN(3)))
			} else {
				data = append(data, drawBytes(r, 3)...)
			}
		}
		prior := drawStrings(r)
		got := unmarshal(info, data, slices.Clone(prior), scan)
		want := unmarshal(info, data, slices.Clone(prior), func(p any) any { return p })
		if want.err != nil && got.err != nil {
			if !slices.Equal(got.v.([]string), prior) {
				t.Fatalf("%x: failed and left %q, not %q", data, got.v, prior)
			}
			continue
		}
		if !got.same(want) {
			t.Fatalf("%x: %q %v, the driver's %q %v", data, got.v, got.err, want.v, want.err)
		}
	}
}

// TestDurationAsTheDriver: a time.Duration in a DURATION marshals to the
// driver's bytes for a gocql.Duration, and every gocql.Duration reads back
// as its nanoseconds, or fails naming the column when it has months or
// days.
func TestDurationAsTheDriver(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 4))
	info := gocql.NewNativeType(5, gocql.TypeDuration, "")
	c := codecOf(t, reflect.TypeFor[time.Duration](), "")
	for range 2000 {
		d := gocql.Duration{Nanoseconds: int64(r.Uint64()) >> r.IntN(64)}
		if r.IntN(2) == 0 {
			d.Months, d.Days = int32(r.Uint32())>>r.IntN(32), int32(r.Uint32())>>r.IntN(32)
		}
		v := time.Duration(d.Nanoseconds)
		want, _ := gocql.Marshal(info, gocql.Duration{Nanoseconds: d.Nanoseconds})
		got, err := gocql.Marshal(info, c.BindValues([]any{&v})[0])
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%v: %x %v, the driver's %x", v, got, err, want)
		}
		data, _ := gocql.Marshal(info, d)
		var back time.Duration
		targets, finish := c.ScanTargets([]any{&back})
		if err := gocql.Unmarshal(info, data, targets[0]); err != nil {
			t.Fatal(err)
		}
		err = finish()
		if d.Months != 0 || d.Days != 0 {
			if _, ok := err.(*kerrors.ValueError); !ok {
				t.Fatalf("%+v read as %v, %v; want a ValueError", d, back, err)
			}
			continue
		}
		if err != nil || back != v {
			t.Fatalf("%+v read as %v, %v", d, back, err)
		}
	}
}

var _ = kandra.CQLText

// TestNullableRefsAsTheDriver: a pointer field of a type with a reference
// (a nullable column) is bound, by reference and by value, as null when
// nil and as its value's reference or copy otherwise, never as the field's
// address for the driver to dereference twice; the driver marshals that
// to the bytes it gives the address, into every CQL type.
func TestNullableRefsAsTheDriver(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 4))
	all := infos()
	for _, c := range refCases {
		if c.cql == "UUID" || c.cql == "LIST<TEXT>" {
			continue // converted or not a native value: no nullable reference
		}
		for range 200 {
			v := c.draw(r)
			pt := reflect.PointerTo(reflect.TypeOf(v))
			codec := codecOf(t, pt, c.cql)
			field := reflect.New(pt) // a **V: the field's address
			if r.IntN(5) > 0 {
				vp := reflect.New(reflect.TypeOf(v))
				vp.Elem().Set(reflect.ValueOf(v))
				field.Elem().Set(vp)
			}
			isNil := field.Elem().IsNil()
			for _, bound := range []any{codec.AppendBindRefs(nil, []any{field.Interface()})[0], codec.BindValues([]any{field.Interface()})[0]} {
				switch {
				case isNil && bound != nil:
					t.Fatalf("a nil %s is bound as %#v, not null", pt, bound)
				case !isNil && reflect.TypeOf(bound) == field.Type():
					t.Fatalf("a %s is bound as its field's address", pt)
				}
				info := all[r.IntN(len(all))]
				if got, want := marshal(info, bound), marshal(info, field.Interface()); !got.same(want) {
					t.Fatalf("%s %v into %s: %x %v (panic %v), the driver's %x %v (panic %v)", pt, v, info, got.b, got.err, got.panic, want.b, want.err, want.panic)
				}
			}
		}
	}
}
