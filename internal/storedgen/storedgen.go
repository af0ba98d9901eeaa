// Package storedgen draws, for the property tests of stored equality
// (kandra's ColumnSchema.AppendStored and SameStored, and the adapters'
// cross-checks of them), a column of any Go type kandra maps (natives,
// every AsType override the type table allows, lists, sets and maps
// nested, user-defined types with nested types and `kandra:"-"` fields,
// pointers, key columns and Frozen ones, byte arrays as BLOBs), values of
// it, and "other Go forms" of a value: Go values that differ but are
// stored as the same bytes (a time in another zone or with sub-millisecond parts, a 16-byte
// net.IP of an IPv4 address, a named float32's signalling NaN and its
// quiet twin, a `kandra:"-"` field set otherwise, pointer copies, a set
// holding one element in two Go forms, an empty collection for nil where
// the column is not frozen). It is for kandra's own tests.
package storedgen

import (
	"fmt"
	"math"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/dynamic"
)

// Named types: kandra maps each as its underlying type.
type (
	// Status is a named string (TEXT).
	Status string
	// Level is a named int16 (SMALLINT).
	Level int16
	// Celsius is a named float32 (FLOAT): the drivers marshal it through
	// float64, which quiets a signalling NaN.
	Celsius float32
	// Stamp is a named time.Time (TIMESTAMP).
	Stamp time.Time
	// Ref is a named uuid.UUID (UUID).
	Ref uuid.UUID
	// Peer is a named netip.Addr (INET).
	Peer netip.Addr
	// Raw is a named []byte (BLOB).
	Raw []byte
	// Digest is a named [32]byte, a BLOB of exactly 32 bytes (given with
	// AsType, as every byte array's BLOB is).
	Digest [32]byte
)

// Point is a comparable user-defined type (a set element, a map key).
type Point struct {
	X, Y float64
}

// Slot is a comparable user-defined type with a field that is not stored.
type Slot struct {
	Room  string
	Start time.Time
	Note  string `kandra:"-"`
	Level Level
}

// Place is a user-defined type of many field types, nested types,
// collections, pointers and a field that is not stored.
type Place struct {
	Name  string
	Zip   int16
	At    time.Time
	IP    net.IP
	Addr  netip.Addr
	Pos   *Point
	Tags  map[string]struct{}
	Seen  []time.Time
	Score float32
	Memo  string `kandra:"-"`
	Big   *big.Int
	ID    uuid.UUID
	Slots map[Slot]int32
	Raw   []byte
	When  *time.Time
}

// Case is a drawn column: its Go type, the CQL type given with AsType
// (zero: kandra's own), and whether it is a clustering key or Frozen.
type Case struct {
	Type   reflect.Type
	As     kandra.CQLType
	Key    bool // a clustering column (frozen)
	Frozen bool // a user-defined type or collection column given Frozen()
	s      *shape
}

func (c *Case) String() string {
	as := ""
	if !c.As.IsZero() {
		as = " as " + c.As.String()
	}
	return fmt.Sprintf("%s%s key=%v frozen=%v", c.Type, as, c.Key, c.Frozen)
}

// Column builds the case's column: V of a table keyed by a text ID (and
// V as a clustering column for a Key case). It needs dynamic's entry
// points (package kandra's tests, or the kandra_dynamic build tag).
func (c *Case) Column() (*kandra.ColumnSchema, error) {
	fields := []reflect.StructField{{Name: "ID", Type: reflect.TypeFor[string]()}, {Name: "V", Type: c.Type}}
	sp := dynamic.Spec{Type: reflect.StructOf(fields), Table: "t", MarkerField: -1,
		Binds: []dynamic.Bind{{Field: 0, Options: []any{kandra.PartitionKey(0)}}}}
	var opts []any
	if !c.As.IsZero() {
		opts = append(opts, kandra.AsType(c.As))
	}
	if c.Key {
		opts = append(opts, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	}
	if c.Frozen {
		opts = append(opts, kandra.Frozen())
	}
	if len(opts) > 0 {
		sp.Binds = append(sp.Binds, dynamic.Bind{Field: 1, Options: opts})
	}
	ts, err := dynamic.Build(sp)
	if err != nil {
		return nil, err
	}
	return ts.(*kandra.TableSchema).Column(1), nil
}

// Value draws a value of the column: a *V, as AppendStored takes it.
func (c *Case) Value(t *rapid.T, label string) any {
	return ptrTo(c.s.draw(t, ctx{top: true}, label))
}

// Other draws another Go form of the value at p (a *V): a new *V whose
// value is stored as the same bytes in the column.
func (c *Case) Other(t *rapid.T, p any, label string) any {
	v := reflect.ValueOf(p).Elem()
	return ptrTo(c.s.other(t, v, ctx{top: true, frozen: c.Key || c.Frozen}, label))
}

func ptrTo(v reflect.Value) any {
	p := reflect.New(v.Type())
	p.Elem().Set(v)
	return p.Interface()
}

// ctx is where a value is drawn: top is a column's own value or a
// user-defined type's field (where null-like values may be drawn);
// noNaN a set element or map key (two NaNs of different payloads are
// one element to the server, which keeps the first of them: a Go map's
// random order would make the stored value random); frozen a context
// where an empty collection is a value (Other keeps nil and empty
// apart there).
type ctx struct{ top, noNaN, frozen bool }

// shape is a Go type with its CQL type, how to draw a value of it, and
// how to draw another Go form of a value.
type shape struct {
	t       reflect.Type
	ct      kandra.CQLType // the column's CQL type: kandra's own, or the AsType
	as      bool           // ct is an override (given with AsType)
	key     bool           // comparable: a set element or map key
	draw    func(t *rapid.T, c ctx, label string) reflect.Value
	other   func(t *rapid.T, v reflect.Value, c ctx, label string) reflect.Value
	isDur   bool // holds a DURATION (no key, no set element or map key)
	pointer bool
}

func same(_ *rapid.T, v reflect.Value, _ ctx, _ string) reflect.Value { return v }

func native(t reflect.Type, ct kandra.CQLType, as bool, draw func(t *rapid.T, c ctx, label string) reflect.Value) *shape {
	return &shape{t: t, ct: ct, as: as, key: t.Comparable(), draw: draw, other: same}
}

func conv(t reflect.Type, v any) reflect.Value { return reflect.ValueOf(v).Convert(t) }

// Int64 draws an integer that fits bits, biased to the edges.
func drawInt(t *rapid.T, bits int, label string) int64 {
	lo, hi := int64(-1)<<(bits-1), int64(1)<<(bits-1)-1
	return rapid.OneOf(rapid.Int64Range(lo, hi), rapid.SampledFrom([]int64{lo, hi, 0, -1, 1, 127, 128, -128, -129})).
		Filter(func(x int64) bool { return x >= lo && x <= hi }).Draw(t, label)
}

var asciiStr = rapid.StringMatching(`[ -~]{0,6}`)

func intShapes() []*shape {
	var out []*shape
	for _, it := range []struct {
		t    reflect.Type
		bits int
		own  kandra.CQLType
		over []kandra.CQLType
	}{
		{reflect.TypeFor[int8](), 8, kandra.CQLTinyint, []kandra.CQLType{kandra.CQLSmallint, kandra.CQLInt, kandra.CQLBigint, kandra.CQLVarint}},
		{reflect.TypeFor[int16](), 16, kandra.CQLSmallint, []kandra.CQLType{kandra.CQLInt, kandra.CQLBigint, kandra.CQLVarint}},
		{reflect.TypeFor[Level](), 16, kandra.CQLSmallint, []kandra.CQLType{kandra.CQLVarint}},
		{reflect.TypeFor[int32](), 32, kandra.CQLInt, []kandra.CQLType{kandra.CQLBigint, kandra.CQLVarint}},
		{reflect.TypeFor[int64](), 64, kandra.CQLBigint, []kandra.CQLType{kandra.CQLVarint}},
		{reflect.TypeFor[int](), 64, kandra.CQLBigint, []kandra.CQLType{kandra.CQLVarint}},
	} {
		draw := func(t *rapid.T, _ ctx, label string) reflect.Value {
			return conv(it.t, drawInt(t, it.bits, label))
		}
		out = append(out, native(it.t, it.own, false, draw))
		for _, o := range it.over {
			out = append(out, native(it.t, o, true, draw))
		}
	}
	return out
}

// drawFloat32Bits draws a float32's bits, NaNs of every payload (quiet and
// signalling), infinities, zeros and subnormals among them.
func drawFloat32Bits(t *rapid.T, c ctx, label string) uint32 {
	b := rapid.OneOf(rapid.Uint32(), rapid.SampledFrom([]uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffc00001, 0x7fbfffff, 1, 0x3f800000})).Draw(t, label)
	if c.noNaN && math.IsNaN(float64(math.Float32frombits(b))) {
		b = 0x3f800000
	}
	return b
}

func drawFloat64Bits(t *rapid.T, c ctx, label string) uint64 {
	b := rapid.OneOf(rapid.Uint64(), rapid.SampledFrom([]uint64{0, 1 << 63, 0x7ff0000000000000, 0x7ff8000000000000, 0x7ff0000000000001, 0xfff8000000000abc, 1, 0x3ff0000000000000})).Draw(t, label)
	if c.noNaN && math.IsNaN(math.Float64frombits(b)) {
		b = 0x3ff0000000000000
	}
	return b
}

// zones are the zones other forms of a time are drawn in.
var zones = func() []*time.Location {
	out := []*time.Location{time.UTC, time.FixedZone("CEST", 2*3600), time.FixedZone("X", -9*3600-30*60), time.FixedZone("Y", 14*3600)}
	if l, err := time.LoadLocation("Europe/Berlin"); err == nil {
		out = append(out, l)
	}
	return out
}()

// drawMillis draws a TIMESTAMP's milliseconds, biased to the edges of its
// range and of the epoch.
func drawMillis(t *rapid.T, label string) int64 {
	return rapid.OneOf(rapid.Int64Range(-1e13, 1e13), rapid.Int64(), rapid.SampledFrom([]int64{0, -1, 1, math.MinInt64, math.MaxInt64, 1_700_000_000_000})).Draw(t, label)
}

// inMilli is a time of the millisecond ms: a sub-millisecond part and a
// zone drawn.
func inMilli(t *rapid.T, ms int64, label string) time.Time {
	sub := rapid.OneOf(rapid.Int64Range(0, 999_999), rapid.SampledFrom([]int64{0, 999_999})).Draw(t, label+" sub-ms")
	return time.UnixMilli(ms).Add(time.Duration(sub)).In(rapid.SampledFrom(zones).Draw(t, label+" zone"))
}

func timeShapes() []*shape {
	var out []*shape
	for _, tt := range []reflect.Type{reflect.TypeFor[time.Time](), reflect.TypeFor[Stamp]()} {
		ts := native(tt, kandra.CQLTimestamp, false, func(t *rapid.T, _ ctx, label string) reflect.Value {
			return conv(tt, inMilli(t, drawMillis(t, label), label))
		})
		ts.other = func(t *rapid.T, v reflect.Value, _ ctx, label string) reflect.Value {
			return conv(tt, inMilli(t, v.Convert(reflect.TypeFor[time.Time]()).Interface().(time.Time).UnixMilli(), label))
		}
		date := native(tt, kandra.CQLDate, true, func(t *rapid.T, _ ctx, label string) reflect.Value {
			days := rapid.OneOf(rapid.Int64Range(-1e6, 1e6), rapid.SampledFrom([]int64{math.MinInt32, math.MaxInt32, 0, -1})).Draw(t, label)
			return conv(tt, inDay(t, days, label))
		})
		date.other = func(t *rapid.T, v reflect.Value, _ ctx, label string) reflect.Value {
			tm := v.Convert(reflect.TypeFor[time.Time]()).Interface().(time.Time)
			days := tm.Unix() / 86400
			if tm.Unix()%86400 < 0 {
				days--
			}
			return conv(tt, inDay(t, days, label))
		}
		out = append(out, ts, date)
	}
	return out
}

// inDay is a time of the UTC day days: another time of day, another zone.
func inDay(t *rapid.T, days int64, label string) time.Time {
	ns := rapid.OneOf(rapid.Int64Range(0, 86_400e9-1), rapid.SampledFrom([]int64{0, 86_400e9 - 1})).Draw(t, label+" time of day")
	return time.Unix(days*86400, 0).Add(time.Duration(ns)).In(rapid.SampledFrom(zones).Draw(t, label+" zone"))
}

func drawUUID(t *rapid.T, label string) [16]byte {
	var u [16]byte
	for i, b := range rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, label) {
		u[i] = b
	}
	return u
}

func uuidShapes() []*shape {
	var out []*shape
	for _, ut := range []reflect.Type{reflect.TypeFor[uuid.UUID](), reflect.TypeFor[Ref](), reflect.TypeFor[[16]byte]()} {
		out = append(out, native(ut, kandra.CQLUUID, false, func(t *rapid.T, _ ctx, label string) reflect.Value {
			return conv(ut, drawUUID(t, label))
		}))
		out = append(out, native(ut, kandra.CQLTimeUUID, true, func(t *rapid.T, c ctx, label string) reflect.Value {
			if c.top && rapid.IntRange(0, 5).Draw(t, label+" zero") == 0 {
				return reflect.Zero(ut) // null
			}
			u := drawUUID(t, label)
			u[6] = u[6]&0x0f | 0x10 // version 1
			u[8] = u[8]&0x3f | 0x80
			return conv(ut, u)
		}))
	}
	return out
}

func inetShapes() []*shape {
	drawAddr := func(t *rapid.T, c ctx, label string) netip.Addr {
		var a netip.Addr
		switch rapid.IntRange(0, 4).Draw(t, label+" form") {
		case 0, 1:
			b := rapid.SliceOfN(rapid.Byte(), 4, 4).Draw(t, label)
			a = netip.AddrFrom4([4]byte(b))
		case 2, 3:
			b := rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, label)
			a = netip.AddrFrom16([16]byte(b))
			if a.Is4In6() && !c.top {
				a = a.Unmap()
			}
		case 4:
			if c.top {
				return netip.Addr{} // null
			}
			a = netip.MustParseAddr("::1")
		}
		return a
	}
	var out []*shape
	for _, at := range []reflect.Type{reflect.TypeFor[netip.Addr](), reflect.TypeFor[Peer]()} {
		out = append(out, native(at, kandra.CQLInet, false, func(t *rapid.T, c ctx, label string) reflect.Value {
			return conv(at, drawAddr(t, c, label))
		}))
	}
	ip := native(reflect.TypeFor[net.IP](), kandra.CQLInet, false, func(t *rapid.T, c ctx, label string) reflect.Value {
		if c.top && rapid.IntRange(0, 6).Draw(t, label+" empty") == 0 {
			return reflect.ValueOf(rapid.SampledFrom([]net.IP{nil, {}}).Draw(t, label+" which"))
		}
		a := drawAddr(t, ctx{}, label)
		ip := net.IP(a.AsSlice())
		if a.Is4() && rapid.Bool().Draw(t, label+" 16 bytes") {
			ip = ip.To16()
		}
		return reflect.ValueOf(ip)
	})
	ip.other = func(t *rapid.T, v reflect.Value, _ ctx, label string) reflect.Value {
		ip := v.Interface().(net.IP)
		switch {
		case len(ip) == 0:
			return reflect.ValueOf(rapid.SampledFrom([]net.IP{nil, {}}).Draw(t, label)) // both null
		case ip.To4() != nil && rapid.Bool().Draw(t, label):
			return reflect.ValueOf(ip.To16()) // net.ParseIP's form of an IPv4 address
		case ip.To4() != nil:
			return reflect.ValueOf(ip.To4())
		}
		return reflect.ValueOf(append(net.IP(nil), ip...))
	}
	return append(out, ip)
}

func bytesShapes() []*shape {
	var out []*shape
	for _, bt := range []reflect.Type{reflect.TypeFor[[]byte](), reflect.TypeFor[Raw]()} {
		s := native(bt, kandra.CQLBlob, false, func(t *rapid.T, _ ctx, label string) reflect.Value {
			switch rapid.IntRange(0, 5).Draw(t, label+" form") {
			case 0:
				return reflect.Zero(bt)
			case 1:
				return conv(bt, []byte{})
			}
			return conv(bt, rapid.SliceOfN(rapid.Byte(), 1, 8).Draw(t, label))
		})
		s.other = func(t *rapid.T, v reflect.Value, c ctx, label string) reflect.Value {
			if v.Len() == 0 && !c.top && rapid.Bool().Draw(t, label) {
				// In a collection nil is sent as the empty value.
				if v.IsNil() {
					return conv(bt, []byte{})
				}
				return reflect.Zero(bt)
			}
			if v.IsNil() {
				return v
			}
			return conv(bt, append([]byte{}, v.Bytes()...))
		}
		out = append(out, s)
	}
	return out
}

// byteArrayShapes are byte arrays given AsType(BLOB): their bytes,
// exactly, whatever they hold (the zero array is a value, not null).
func byteArrayShapes() []*shape {
	var out []*shape
	for _, at := range []reflect.Type{reflect.TypeFor[[1]byte](), reflect.TypeFor[[4]byte](), reflect.TypeFor[[16]byte](),
		reflect.TypeFor[uuid.UUID](), reflect.TypeFor[Ref](), reflect.TypeFor[Digest]()} {
		out = append(out, native(at, kandra.CQLBlob, true, func(t *rapid.T, _ ctx, label string) reflect.Value {
			v := reflect.New(at).Elem()
			if rapid.IntRange(0, 5).Draw(t, label+" zero") > 0 {
				reflect.Copy(v, reflect.ValueOf(rapid.SliceOfN(rapid.Byte(), at.Len(), at.Len()).Draw(t, label)))
			}
			return v
		}))
	}
	return out
}

func natives() []*shape {
	out := []*shape{
		native(reflect.TypeFor[string](), kandra.CQLText, false, func(t *rapid.T, _ ctx, label string) reflect.Value {
			return reflect.ValueOf(rapid.String().Draw(t, label))
		}),
		native(reflect.TypeFor[string](), kandra.CQLVarchar, true, func(t *rapid.T, _ ctx, label string) reflect.Value {
			return reflect.ValueOf(rapid.StringN(0, 4, -1).Draw(t, label))
		}),
		native(reflect.TypeFor[string](), kandra.CQLAscii, true, func(t *rapid.T, _ ctx, label string) reflect.Value {
			return reflect.ValueOf(asciiStr.Draw(t, label))
		}),
		native(reflect.TypeFor[Status](), kandra.CQLText, false, func(t *rapid.T, _ ctx, label string) reflect.Value {
			return reflect.ValueOf(Status(asciiStr.Draw(t, label)))
		}),
		native(reflect.TypeFor[bool](), kandra.CQLBoolean, false, func(t *rapid.T, _ ctx, label string) reflect.Value {
			return reflect.ValueOf(rapid.Bool().Draw(t, label))
		}),
		native(reflect.TypeFor[float64](), kandra.CQLDouble, false, func(t *rapid.T, c ctx, label string) reflect.Value {
			return reflect.ValueOf(math.Float64frombits(drawFloat64Bits(t, c, label)))
		}),
		native(reflect.TypeFor[float32](), kandra.CQLFloat, false, func(t *rapid.T, c ctx, label string) reflect.Value {
			return reflect.ValueOf(math.Float32frombits(drawFloat32Bits(t, c, label)))
		}),
		{t: reflect.TypeFor[*big.Int](), ct: kandra.CQLVarint,
			draw: func(t *rapid.T, c ctx, label string) reflect.Value {
				if c.top && rapid.IntRange(0, 6).Draw(t, label+" nil") == 0 {
					return reflect.Zero(reflect.TypeFor[*big.Int]())
				}
				x := new(big.Int).SetBytes(rapid.SliceOfN(rapid.Byte(), 0, 12).Draw(t, label))
				if rapid.Bool().Draw(t, label+" negative") {
					x.Neg(x)
				}
				return reflect.ValueOf(x)
			},
			other: func(_ *rapid.T, v reflect.Value, _ ctx, _ string) reflect.Value {
				if v.IsNil() {
					return v
				}
				return reflect.ValueOf(new(big.Int).Set(v.Interface().(*big.Int)))
			}},
	}
	// A named float32's signalling NaN is sent quiet (the drivers convert
	// it through float64): its quiet twin is another form of it.
	celsius := native(reflect.TypeFor[Celsius](), kandra.CQLFloat, false, func(t *rapid.T, c ctx, label string) reflect.Value {
		return reflect.ValueOf(Celsius(math.Float32frombits(drawFloat32Bits(t, c, label))))
	})
	celsius.other = func(t *rapid.T, v reflect.Value, _ ctx, label string) reflect.Value {
		if rapid.Bool().Draw(t, label) {
			return reflect.ValueOf(Celsius(float32(v.Float()))) // through float64: quiet
		}
		return v
	}
	dur := native(reflect.TypeFor[time.Duration](), kandra.CQLDuration, false, func(t *rapid.T, _ ctx, label string) reflect.Value {
		return reflect.ValueOf(time.Duration(rapid.Int64().Draw(t, label)))
	})
	dur.isDur = true
	tod := native(reflect.TypeFor[time.Duration](), kandra.CQLTime, true, func(t *rapid.T, _ ctx, label string) reflect.Value {
		return reflect.ValueOf(time.Duration(rapid.Int64Range(0, 86_400e9-1).Draw(t, label)))
	})
	out = append(out, celsius, dur, tod)
	out = append(out, intShapes()...)
	out = append(out, timeShapes()...)
	out = append(out, uuidShapes()...)
	out = append(out, inetShapes()...)
	out = append(out, bytesShapes()...)
	out = append(out, byteArrayShapes()...)
	return out
}

// udtShape is the shape of a user-defined type: each stored field drawn
// and given another form as a column of its type, the fields that are
// not stored drawn freely.
func udtShape(t reflect.Type) *shape {
	ct := derived(t)
	type fieldShape struct {
		index  int
		s      *shape
		stored bool
	}
	var fields []fieldShape
	for i := range t.NumField() {
		f := t.Field(i)
		s := shapeOf(f.Type)
		fields = append(fields, fieldShape{i, s, f.Tag.Get("kandra") != "-"})
	}
	return &shape{
		t: t, ct: ct, key: t.Comparable(),
		draw: func(rt *rapid.T, c ctx, label string) reflect.Value {
			v := reflect.New(t).Elem()
			for _, f := range fields {
				fc := ctx{top: true, noNaN: c.noNaN, frozen: true}
				v.Field(f.index).Set(f.s.draw(rt, fc, label+"."+t.Field(f.index).Name))
			}
			return v
		},
		other: func(rt *rapid.T, v reflect.Value, c ctx, label string) reflect.Value {
			o := reflect.New(t).Elem()
			for _, f := range fields {
				fc := ctx{top: true, noNaN: c.noNaN, frozen: true}
				name := label + "." + t.Field(f.index).Name
				if !f.stored {
					o.Field(f.index).Set(f.s.draw(rt, fc, name)) // not stored: anything
					continue
				}
				o.Field(f.index).Set(f.s.other(rt, v.Field(f.index), fc, name))
			}
			return o
		},
	}
}

// shapeOf is the shape of a Go type the UDTs above hold, kandra's own
// CQL type.
func shapeOf(t reflect.Type) *shape {
	if t.Kind() == reflect.Pointer && t != reflect.TypeFor[*big.Int]() {
		return pointerShape(shapeOf(t.Elem()))
	}
	switch t {
	case reflect.TypeFor[Point](), reflect.TypeFor[Slot]():
		return udtShape(t)
	}
	if t.Kind() == reflect.Map && t.Elem() == reflect.TypeFor[struct{}]() {
		return setShape(shapeOf(t.Key()), 0, 4)
	}
	if t.Kind() == reflect.Map {
		return mapShape(shapeOf(t.Key()), shapeOf(t.Elem()), 0, 3)
	}
	if t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 {
		return listShape(shapeOf(t.Elem()), 0, 3)
	}
	for _, s := range natives() {
		if s.t == t && !s.as {
			return s
		}
	}
	panic("storedgen: no shape for " + t.String())
}

// derived is kandra's own CQL type of t, read off a column of it.
func derived(t reflect.Type) kandra.CQLType {
	c := &Case{Type: t}
	col, err := c.Column()
	if err != nil {
		panic("storedgen: " + t.String() + ": " + err.Error())
	}
	return col.Type()
}

func pointerShape(e *shape) *shape {
	t := reflect.PointerTo(e.t)
	return &shape{
		t: t, ct: e.ct, as: e.as, pointer: true, isDur: e.isDur,
		draw: func(rt *rapid.T, c ctx, label string) reflect.Value {
			if rapid.IntRange(0, 4).Draw(rt, label+" nil") == 0 {
				return reflect.Zero(t)
			}
			p := reflect.New(e.t)
			p.Elem().Set(e.draw(rt, c, label))
			return p
		},
		other: func(rt *rapid.T, v reflect.Value, c ctx, label string) reflect.Value {
			if v.IsNil() {
				return v
			}
			p := reflect.New(e.t) // another pointer
			p.Elem().Set(e.other(rt, v.Elem(), c, label))
			return p
		},
	}
}

// emptyOther is another form of an empty collection: nil for empty and
// empty for nil where the column is not frozen (both are no cell).
func emptyOther(rt *rapid.T, v reflect.Value, c ctx, label string, empty func() reflect.Value) (reflect.Value, bool) {
	if v.Len() != 0 || c.frozen || !c.top || !rapid.Bool().Draw(rt, label+" nil or empty") {
		return reflect.Value{}, false
	}
	if v.IsNil() {
		return empty(), true
	}
	return reflect.Zero(v.Type()), true
}

func listShape(e *shape, lo, hi int) *shape {
	t := reflect.SliceOf(e.t)
	ct := kandra.ListOf(e.ct)
	return &shape{
		t: t, ct: ct, as: e.as, isDur: e.isDur,
		draw: func(rt *rapid.T, c ctx, label string) reflect.Value {
			n := rapid.IntRange(lo-1, hi).Draw(rt, label+" len")
			if n < 0 {
				return reflect.Zero(t)
			}
			v := reflect.MakeSlice(t, n, n)
			for i := range n {
				v.Index(i).Set(e.draw(rt, ctx{noNaN: c.noNaN, frozen: true}, label+"[]"))
			}
			return v
		},
		other: func(rt *rapid.T, v reflect.Value, c ctx, label string) reflect.Value {
			if o, ok := emptyOther(rt, v, c, label, func() reflect.Value { return reflect.MakeSlice(t, 0, 0) }); ok {
				return o
			}
			if v.IsNil() {
				return v
			}
			o := reflect.MakeSlice(t, v.Len(), v.Len())
			for i := range v.Len() {
				o.Index(i).Set(e.other(rt, v.Index(i), ctx{noNaN: c.noNaN, frozen: true}, label+"[]"))
			}
			return o
		},
	}
}

func setShape(e *shape, lo, hi int) *shape {
	t := reflect.MapOf(e.t, reflect.TypeFor[struct{}]())
	ct := kandra.SetOf(e.ct)
	unit := reflect.ValueOf(struct{}{})
	return &shape{
		t: t, ct: ct, as: e.as,
		draw: func(rt *rapid.T, c ctx, label string) reflect.Value {
			n := rapid.IntRange(lo-1, hi).Draw(rt, label+" len")
			if n < 0 {
				return reflect.Zero(t)
			}
			v := reflect.MakeMap(t)
			for range n {
				v.SetMapIndex(e.draw(rt, ctx{noNaN: true, frozen: true}, label+"{}"), unit)
			}
			return v
		},
		other: func(rt *rapid.T, v reflect.Value, c ctx, label string) reflect.Value {
			if o, ok := emptyOther(rt, v, c, label, func() reflect.Value { return reflect.MakeMap(t) }); ok {
				return o
			}
			if v.IsNil() {
				return v
			}
			o := reflect.MakeMap(t)
			ec := ctx{noNaN: true, frozen: true}
			for it := v.MapRange(); it.Next(); {
				o.SetMapIndex(e.other(rt, it.Key(), ec, label+"{}"), unit)
				if rapid.Bool().Draw(rt, label+" twice") {
					// One element in two Go forms: one element stored.
					o.SetMapIndex(e.other(rt, it.Key(), ec, label+"{} again"), unit)
				}
			}
			return o
		},
	}
}

func mapShape(k, e *shape, lo, hi int) *shape {
	t := reflect.MapOf(k.t, e.t)
	ct := kandra.MapOf(k.ct, e.ct)
	return &shape{
		t: t, ct: ct, as: k.as || e.as, isDur: e.isDur,
		draw: func(rt *rapid.T, c ctx, label string) reflect.Value {
			n := rapid.IntRange(lo-1, hi).Draw(rt, label+" len")
			if n < 0 {
				return reflect.Zero(t)
			}
			v := reflect.MakeMap(t)
			seen := map[string]bool{}
			for range n {
				key := k.draw(rt, ctx{noNaN: true, frozen: true}, label+" key")
				// Two keys stored as one would leave the value kept to
				// Go's map order: each stored key is drawn once.
				if ck := canon(key, k.ct); !seen[ck] {
					seen[ck] = true
					v.SetMapIndex(key, e.draw(rt, ctx{noNaN: c.noNaN, frozen: true}, label+" value"))
				}
			}
			return v
		},
		other: func(rt *rapid.T, v reflect.Value, c ctx, label string) reflect.Value {
			if o, ok := emptyOther(rt, v, c, label, func() reflect.Value { return reflect.MakeMap(t) }); ok {
				return o
			}
			if v.IsNil() {
				return v
			}
			// Keys in other forms that are one stored key would leave the
			// kept value to Go's map order: each key keeps one form here
			// (the sets above hold two forms of one element).
			o := reflect.MakeMap(t)
			for it := v.MapRange(); it.Next(); {
				ov := e.other(rt, it.Value(), ctx{noNaN: c.noNaN, frozen: true}, label+" value")
				o.SetMapIndex(k.other(rt, it.Key(), ctx{noNaN: true, frozen: true}, label+" key"), ov)
			}
			return o
		},
	}
}

func vectorShape() *shape {
	t := reflect.TypeFor[[3]float32]()
	return &shape{
		t: t, ct: kandra.VectorOf(kandra.CQLFloat, 3),
		draw: func(rt *rapid.T, c ctx, label string) reflect.Value {
			var v [3]float32
			for i := range v {
				v[i] = math.Float32frombits(drawFloat32Bits(rt, c, label))
			}
			return reflect.ValueOf(v)
		},
		other: same,
	}
}

// Draw draws a column: a native type, a collection of up to depth levels,
// a user-defined type, a vector or a pointer to one of them, kandra's own
// CQL type or an override AsType allows, as a regular column, a
// clustering column or a Frozen one.
func Draw(t *rapid.T) *Case {
	udtOnce.Do(func() {
		udtShapes = []*shape{udtShape(reflect.TypeFor[Point]()), udtShape(reflect.TypeFor[Slot]()), udtShape(reflect.TypeFor[Place]())}
	})
	s := drawShape(t, 2, true, "type")
	c := &Case{Type: s.t, s: s}
	if s.as {
		c.As = s.ct
	}
	base := s.t
	if base.Kind() == reflect.Pointer && base != reflect.TypeFor[*big.Int]() {
		base = base.Elem()
	}
	isUDT := base.Kind() == reflect.Struct && s.ct.Kind() == kandra.KindUDT
	switch rapid.IntRange(0, 3).Draw(t, "role") {
	case 1:
		// A key column: frozen, never a pointer, a duration or a vector.
		c.Key = !s.pointer && !s.isDur && s.ct.Kind() != kandra.KindVector && s.t != reflect.TypeFor[*big.Int]()
	case 2:
		c.Frozen = isUDT || s.ct.IsCollection()
	}
	return c
}

var (
	nativeShapes = natives()
	// udtShapes need kandra's types of the structs, read off columns
	// (dynamic's entry points), so they are made at the first Draw.
	udtOnce   sync.Once
	udtShapes []*shape
)

func drawShape(t *rapid.T, depth int, top bool, label string) *shape {
	kinds := []string{"native", "native", "native", "udt", "list", "set", "map"}
	if top {
		kinds = append(kinds, "pointer", "vector")
	}
	if depth == 0 {
		kinds = []string{"native", "udt"}
	}
	switch rapid.SampledFrom(kinds).Draw(t, label) {
	case "udt":
		return rapid.SampledFrom(udtShapes).Draw(t, label+" udt")
	case "list":
		return listShape(drawShape(t, depth-1, false, label+" elem"), 0, 4)
	case "set":
		return setShape(drawKeyShape(t, depth-1, label+" elem"), 0, 4)
	case "map":
		return mapShape(drawKeyShape(t, depth-1, label+" key"), drawShape(t, depth-1, false, label+" value"), 0, 3)
	case "pointer":
		e := drawShape(t, depth, false, label+" pointee")
		if e.t.Kind() == reflect.Pointer { // a *big.Int: no pointer to it
			return e
		}
		return pointerShape(e)
	case "vector":
		return vectorShape()
	}
	return rapid.SampledFrom(nativeShapes).Draw(t, label+" native")
}

// drawKeyShape draws a shape that can be a set element or a map key:
// comparable, and no duration.
func drawKeyShape(t *rapid.T, depth int, label string) *shape {
	for i := 0; ; i++ {
		s := drawShape(t, depth, false, label)
		if s.key && !s.isDur && !s.ct.Equal(kandra.CQLDuration) {
			return s
		}
		if i > 20 {
			return nativeShapes[0]
		}
	}
}

// canon renders the stored form of v, a map key of CQL type ct, for the
// generator's own use: Go values of one stored key render alike.
func canon(v reflect.Value, ct kandra.CQLType) string {
	typeTime := reflect.TypeFor[time.Time]()
	switch {
	case v.Kind() == reflect.Pointer && v.Type() != reflect.TypeFor[*big.Int]():
		if v.IsNil() {
			return "nil"
		}
		return canon(v.Elem(), ct)
	case v.Type() == reflect.TypeFor[*big.Int]():
		if v.IsNil() {
			return "nil"
		}
		return v.Interface().(*big.Int).String()
	case v.Kind() == reflect.Struct && v.Type().ConvertibleTo(typeTime) && ct.Equal(kandra.CQLDate):
		s := v.Convert(typeTime).Interface().(time.Time).Unix()
		if s < 0 && s%86400 != 0 {
			s -= 86400
		}
		return strconv.FormatInt(s/86400, 10)
	case v.Kind() == reflect.Struct && v.Type().ConvertibleTo(typeTime):
		return strconv.FormatInt(v.Convert(typeTime).Interface().(time.Time).UnixMilli(), 10)
	case v.Kind() == reflect.Struct && ct.Kind() == kandra.KindUDT:
		var parts []string
		j := 0
		for i := range v.NumField() {
			if v.Type().Field(i).Tag.Get("kandra") == "-" {
				continue
			}
			parts = append(parts, canon(v.Field(i), ct.Fields()[j].Type))
			j++
		}
		return "{" + strings.Join(parts, ",") + "}"
	case v.Type() == reflect.TypeFor[Celsius]():
		return strconv.FormatUint(uint64(math.Float32bits(float32(v.Float()))), 10)
	case v.Kind() == reflect.Float32:
		return strconv.FormatUint(uint64(math.Float32bits(v.Interface().(float32))), 10)
	case v.Kind() == reflect.Float64:
		return strconv.FormatUint(math.Float64bits(v.Float()), 10)
	}
	return fmt.Sprintf("%#v", v.Interface())
}
