package kandra_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"net"
	"net/netip"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/storedgen"
	"github.com/kandra-go/kandra/kerrors"
	"pgregory.net/rapid"
)

// Stored equality: equal by kandra exactly when the stored bytes are, and
// every other Go form of a value stored as it is.

// storedTB is what the helpers need of a *testing.T or a *rapid.T.
type storedTB interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// storedColumn draws a column of storedgen's types.
func storedColumn(t *rapid.T) (*storedgen.Case, *kandra.ColumnSchema) {
	c := storedgen.Draw(t)
	col, err := c.Column()
	if err != nil {
		t.Fatalf("%s: %v", c, err)
	}
	return c, col
}

// mustStored is AppendStored of p, checked to be one well-formed [bytes].
func mustStored(t storedTB, col *kandra.ColumnSchema, p any) []byte {
	t.Helper()
	b, err := col.AppendStored([]byte{0xee}, p)
	if err != nil {
		t.Fatalf("AppendStored(%#v) on %s: %v", reflect.ValueOf(p).Elem(), col.Decl(), err)
	}
	if b[0] != 0xee {
		t.Fatalf("AppendStored overwrote dst")
	}
	b = b[1:]
	if len(b) < 4 {
		t.Fatalf("AppendStored: %x is no [bytes]", b)
	}
	n := int32(binary.BigEndian.Uint32(b))
	if n < 0 && (n != -1 || len(b) != 4) || n >= 0 && int(n) != len(b)-4 {
		t.Fatalf("AppendStored: %x is no [bytes] (length %d)", b, n)
	}
	return b
}

// TestStoredOtherForms: every other Go form of a value (another zone or
// sub-millisecond part of a TIMESTAMP, another time of the day of a DATE,
// a 16-byte net.IP of an IPv4 address, a named float32's quieted NaN, a
// `kandra:"-"` field set otherwise, another pointer, a set holding an
// element in two forms, nil for an empty collection in a column that is
// not frozen) is the same stored value: the same bytes, and SameStored.
func TestStoredOtherForms(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, col := storedColumn(t)
		v := c.Value(t, "v")
		o := c.Other(t, v, "other")
		bv, bo := mustStored(t, col, v), mustStored(t, col, o)
		if !bytes.Equal(bv, bo) {
			t.Fatalf("%s (%s): %#v stored as %x, its other form %#v as %x", c, col.Decl(), reflect.ValueOf(v).Elem(), bv, reflect.ValueOf(o).Elem(), bo)
		}
		if !col.SameStored(v, o) || !col.SameStored(o, v) || !col.SameStored(v, v) {
			t.Fatalf("%s: SameStored(%#v, %#v) is false; both are stored as %x", c, reflect.ValueOf(v).Elem(), reflect.ValueOf(o).Elem(), bv)
		}
		// Appended twice, the same bytes (a set's and a map's order is
		// the comparator's, not Go's).
		if again := mustStored(t, col, v); !bytes.Equal(again, bv) {
			t.Fatalf("%s: %#v stored as %x, then as %x", c, reflect.ValueOf(v).Elem(), bv, again)
		}
	})
}

// TestStoredPairs: for pairs of values, SameStored holds exactly when the
// stored bytes are equal, and the keys concatenated are unambiguous.
func TestStoredPairs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, col := storedColumn(t)
		a := c.Value(t, "a")
		var b any
		switch rapid.IntRange(0, 2).Draw(t, "b") {
		case 0:
			b = c.Other(t, a, "b")
		default:
			b = c.Value(t, "b")
		}
		ba, bb := mustStored(t, col, a), mustStored(t, col, b)
		if same := col.SameStored(a, b); same != bytes.Equal(ba, bb) {
			t.Fatalf("%s: SameStored(%#v, %#v) = %v, stored as %x and %x", c, reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem(), same, ba, bb)
		}
		if col.SameStored(a, b) != col.SameStored(b, a) {
			t.Fatalf("%s: SameStored is not symmetric", c)
		}
		// Concatenated with a text column's, the bytes are a key: (a, "x")
		// and (b, "y") are one key exactly when a and b are stored alike
		// and x == y.
		text := storedTextColumn(t)
		x, y := rapid.StringN(0, 3, -1).Draw(t, "x"), rapid.StringN(0, 3, -1).Draw(t, "y")
		ka := append(append([]byte(nil), ba...), mustStored(t, text, &x)...)
		kb := append(append([]byte(nil), bb...), mustStored(t, text, &y)...)
		if bytes.Equal(ka, kb) != (bytes.Equal(ba, bb) && x == y) {
			t.Fatalf("%s: the keys %x and %x are ambiguous", c, ka, kb)
		}
	})
}

// TestStoredFixedSize: a non-null value of a column whose type has a
// FixedSize is stored in exactly that many bytes, and a value of any
// other type has a FixedSize of 0 (what a batch's size estimate relies on
// to skip encoding the common values).
func TestStoredFixedSize(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, col := storedColumn(t)
		b := mustStored(t, col, c.Value(t, "v"))
		n := int32(binary.BigEndian.Uint32(b))
		size := col.Type().FixedSize()
		if n >= 0 && size > 0 && int(n) != size {
			t.Fatalf("%s: a value of %d bytes, FixedSize %d", c, n, size)
		}
		if size > 0 && col.Type().Kind() != kandra.KindNative {
			t.Fatalf("%s: FixedSize %d of a type that is not native", c, size)
		}
	})
	for _, ct := range []kandra.CQLType{kandra.CQLText, kandra.CQLBlob, kandra.CQLVarint, kandra.CQLDecimal, kandra.CQLDuration, kandra.CQLInet, kandra.ListOf(kandra.CQLInt), kandra.VectorOf(kandra.CQLFloat, 3), {}} {
		if n := ct.FixedSize(); n != 0 {
			t.Errorf("%v: FixedSize %d, want 0 (its values vary in length)", ct, n)
		}
	}
	for ct, want := range map[kandra.CQLType]int{kandra.CQLBoolean: 1, kandra.CQLTinyint: 1, kandra.CQLSmallint: 2, kandra.CQLInt: 4, kandra.CQLFloat: 4, kandra.CQLDate: 4, kandra.CQLBigint: 8, kandra.CQLDouble: 8, kandra.CQLTimestamp: 8, kandra.CQLTime: 8, kandra.CQLUUID: 16, kandra.CQLTimeUUID: 16} {
		if n := ct.FixedSize(); n != want {
			t.Errorf("%v: FixedSize %d, want %d", ct, n, want)
		}
	}
}

type storedText struct {
	ID   string
	Name string
}

func (s *storedText) Describe(sc *kandra.Schema[storedText]) {
	sc.Table("stored_text")
	kandra.Bind(sc, &s.ID, kandra.PartitionKey(0))
}

func storedTextColumn(t storedTB) *kandra.ColumnSchema {
	tbl, err := kandra.Register[storedText]()
	if err != nil {
		t.Fatal(err)
	}
	return tbl.Schema().ColumnByName("name")
}

// A named case for each Go form the issue found compared wrongly, and the
// common shapes of the stored forms.

type stSlot struct {
	Room  string
	Start time.Time
	Note  string `kandra:"-"`
	IP    net.IP
	Score float64
}

type stPoint struct{ X, Y int32 }

type stDecimal struct{ unscaled int64 }

func (stDecimal) CQLType() kandra.CQLType { return kandra.CQLDecimal }

type storedRow struct {
	ID      string
	Start   time.Time
	Day     time.Time
	IP      net.IP
	Addr    netip.Addr
	Score   float64
	Ratio   float32
	Slot    stSlot
	SlotPtr *stSlot
	Key     *stPoint
	Tags    map[string]struct{}
	Nums    map[int32]struct{}
	Whens   map[time.Time]struct{}
	Scores  map[string]int64
	List    []int64
	Blob    []byte
	Stamp   uuid.UUID
	Small   int8
	Count   int64
	Name    string
	On      bool
	Price   stDecimal
	Tod     time.Duration
	Vec     [2]float32
	Names   []string
	Frozen  []string
	Codes   []string
	N       int
	M       int32
}

func (r *storedRow) Describe(s *kandra.Schema[storedRow]) {
	s.Table("stored_rows")
	kandra.Bind(s, &r.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &r.Key, kandra.Frozen())
	kandra.Bind(s, &r.Nums, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.Bind(s, &r.Day, kandra.AsType(kandra.CQLDate))
	kandra.Bind(s, &r.Stamp, kandra.AsType(kandra.CQLTimeUUID))
	kandra.Bind(s, &r.Small, kandra.AsType(kandra.CQLVarint))
	kandra.Bind(s, &r.Tod, kandra.AsType(kandra.CQLTime))
	kandra.Bind(s, &r.Frozen, kandra.Frozen())
	kandra.Bind(s, &r.Codes, kandra.AsType(kandra.ListOf(kandra.CQLAscii)))
}

var storedTable = kandra.MustRegister[storedRow]()

func storedCol(t *testing.T, name string) *kandra.ColumnSchema {
	t.Helper()
	tbl, err := kandra.Register[storedRow]()
	if err != nil {
		t.Fatal(err)
	}
	c := tbl.Schema().ColumnByName(name)
	if c == nil {
		t.Fatalf("no column %s", name)
	}
	return c
}

// sameStoredCase is two values of a column of storedRow, and whether the
// server stores them the same. A nil b is a's millisecond floor.
type sameStoredCase struct {
	name   string
	column string
	a, b   any
	same   bool
}

func sameStoredCases() []sameStoredCase {
	cest := time.FixedZone("CEST", 2*3600)
	now := time.Date(2026, 5, 4, 10, 0, 0, 123_456_789, cest)
	slot := stSlot{Room: "r1", Start: now, Note: "a", IP: net.ParseIP("10.0.0.1"), Score: 1}
	slotOther := stSlot{Room: "r1", Start: now.Truncate(time.Millisecond).UTC(), Note: "b", IP: net.IP{10, 0, 0, 1}, Score: 1}
	nan1, nan2 := math.Float64frombits(0x7ff8000000000001), math.Float64frombits(0x7ff8000000000002)
	nan32 := math.Float32frombits(0x7fa00001) // signalling
	p1, p2 := &stPoint{1, 2}, &stPoint{1, 2}
	empty, none := map[string]struct{}{}, map[string]struct{}(nil)
	return []sameStoredCase{
		{"a time in CEST and the same instant in UTC", "start", &now, ptr(now.UTC()), true},
		{"a time and its millisecond floor", "start", &now, ptr(now.Truncate(time.Millisecond)), true},
		{"times a millisecond apart", "start", &now, ptr(now.Add(time.Millisecond)), false},
		{"time.Now() and its millisecond floor", "start", ptr(time.Now()), nil, true},
		{"a DATE at 00:30 and 23:59 of one UTC day", "day", ptr(time.Date(2026, 5, 4, 0, 30, 0, 0, time.UTC)), ptr(time.Date(2026, 5, 4, 23, 59, 0, 0, time.UTC)), true},
		{"a DATE: 01:00 CEST is the day before in UTC", "day", ptr(time.Date(2026, 5, 4, 1, 0, 0, 0, cest)), ptr(time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC)), false},
		{"net.ParseIP of an IPv4 address and its 4 bytes", "ip", ptr(net.ParseIP("1.2.3.4")), ptr(net.IP{1, 2, 3, 4}), true},
		{"an IPv4 address and its IPv4-mapped IPv6 address as netip.Addr", "addr", ptr(netip.MustParseAddr("1.2.3.4")), ptr(netip.MustParseAddr("::ffff:1.2.3.4")), false},
		{"nil and an empty net.IP (both null)", "ip", ptr(net.IP(nil)), ptr(net.IP{}), true},
		{"a NaN and itself", "score", &nan1, ptr(nan1), true},
		{"NaNs of different payloads", "score", &nan1, &nan2, false},
		{"-0 and +0", "score", ptr(math.Copysign(0, -1)), ptr(0.0), false},
		{"a signalling float32 NaN and itself", "ratio", &nan32, ptr(nan32), true},
		{"a signalling float32 NaN and its quiet twin", "ratio", &nan32, ptr(math.Float32frombits(0x7fe00001)), false},
		{"a UDT with its kandra:\"-\" field set otherwise, a time and an IP in other forms", "slot", &slot, &slotOther, true},
		{"UDTs of different stored fields", "slot", &slot, ptr(stSlot{Room: "r2", Start: now}), false},
		{"a UDT through two pointers", "slot_ptr", ptr(&slot), ptr(&slotOther), true},
		{"a nil UDT pointer and a UDT", "slot_ptr", ptr((*stSlot)(nil)), ptr(&slot), false},
		{"a frozen UDT key through two pointers", "key", &p1, &p2, true},
		{"a set in two orders, one with repeats", "tags", ptr(map[string]struct{}{"b": {}, "a": {}}), ptr(map[string]struct{}{"a": {}, "b": {}}), true},
		{"a set of ints in two orders", "nums", ptr(map[int32]struct{}{-1: {}, 2: {}}), ptr(map[int32]struct{}{2: {}, -1: {}}), true},
		{"a set holding one time in two zones, and the set of it", "whens", ptr(map[time.Time]struct{}{now: {}, now.UTC(): {}}), ptr(map[time.Time]struct{}{now.Truncate(time.Millisecond): {}}), true},
		{"a set holding two times", "whens", ptr(map[time.Time]struct{}{now: {}, now.Add(time.Millisecond): {}}), ptr(map[time.Time]struct{}{now: {}}), false},
		{"a nil and an empty set in a column not frozen", "tags", &none, &empty, true},
		{"a nil and an empty set in a key", "nums", ptr(map[int32]struct{}(nil)), ptr(map[int32]struct{}{}), false},
		{"maps rebuilt", "scores", ptr(map[string]int64{"x": 1, "y": 2}), ptr(map[string]int64{"y": 2, "x": 1}), true},
		{"maps of other values", "scores", ptr(map[string]int64{"x": 1}), ptr(map[string]int64{"x": 2}), false},
		{"a nil and an empty list in a column not frozen", "list", ptr([]int64(nil)), ptr([]int64{}), true},
		{"lists in two orders", "list", ptr([]int64{1, 2}), ptr([]int64{2, 1}), false},
		{"a nil and an empty list of text not frozen", "names", ptr([]string(nil)), ptr([]string{}), true},
		{"a nil and an empty frozen list of text", "frozen", ptr([]string(nil)), ptr([]string{}), false},
		{"frozen lists of text", "frozen", ptr([]string{"a", ""}), ptr([]string{"a", ""}), true},
		{"lists of text in two orders", "names", ptr([]string{"a", "b"}), ptr([]string{"b", "a"}), false},
		{"lists of text, one longer", "names", ptr([]string{"a"}), ptr([]string{"a", ""}), false},
		{"lists of ASCII", "codes", ptr([]string{"x"}), ptr([]string{"x"}), true},
		{"ints", "n", ptr(-1), ptr(-1), true},
		{"other ints", "n", ptr(1), ptr(2), false},
		{"int32s", "m", ptr(int32(7)), ptr(int32(-7)), false},
		{"counts", "count", ptr(int64(3)), ptr(int64(3)), true},
		{"UUIDs", "stamp", ptr(uuid.Must(uuid.Parse("6ba7b810-9dad-11d1-80b4-00c04fd430c8"))), ptr(uuid.Must(uuid.Parse("6ba7b810-9dad-11d1-80b4-00c04fd430c8"))), true},
		{"strings that differ", "name", ptr("a"), ptr("b"), false},
		{"a nil and an empty blob", "blob", ptr([]byte(nil)), ptr([]byte{}), false},
		{"blobs", "blob", ptr([]byte{1}), ptr([]byte{1}), true},
		{"the zero UUID in a TIMEUUID (null) and a version 1 UUID", "stamp", ptr(uuid.UUID{}), ptr(uuid.Must(uuid.Parse("6ba7b810-9dad-11d1-80b4-00c04fd430c8"))), false},
		{"int8 in a VARINT", "small", ptr(int8(-1)), ptr(int8(-1)), true},
		{"a TIME", "tod", ptr(time.Hour), ptr(time.Hour + 1), false},
		{"strings", "name", ptr("é"), ptr("é"), true},
		{"bools", "on", ptr(true), ptr(false), false},
		{"a vector of a signalling NaN", "vec", ptr([2]float32{nan32, 1}), ptr([2]float32{nan32, 1}), true},
	}
}

func TestSameStoredCases(t *testing.T) {
	for _, c := range sameStoredCases() {
		t.Run(c.name, func(t *testing.T) {
			col := storedCol(t, c.column)
			if c.b == nil { // time.Now(): against its floor
				c.b = ptr(c.a.(*time.Time).Truncate(time.Millisecond))
			}
			ba, bb := mustStored(t, col, c.a), mustStored(t, col, c.b)
			if bytes.Equal(ba, bb) != c.same {
				t.Errorf("%s: stored as %x and %x; want same=%v", col.Decl(), ba, bb, c.same)
			}
			if got := col.SameStored(c.a, c.b); got != c.same {
				t.Errorf("SameStored = %v, want %v (stored as %x and %x)", got, c.same, ba, bb)
			}
			// The same values in two entities, compared in place.
			var ra, rb storedRow
			pa, _ := col.Pointer(&ra)
			pb, _ := col.Pointer(&rb)
			reflect.ValueOf(pa).Elem().Set(reflect.ValueOf(c.a).Elem())
			reflect.ValueOf(pb).Elem().Set(reflect.ValueOf(c.b).Elem())
			diff := storedTable.StoredDiff([]*kandra.ColumnSchema{col})
			if got := diff.Same(0, &ra, &rb); got != c.same {
				t.Errorf("StoredDiff.Same = %v, want %v", got, c.same)
			}
			// Each against its copy (an Update's new before it is edited):
			// the same, by the bitwise check and by SameStored.
			for _, r := range []*storedRow{&ra, &rb} {
				cp := *r
				pr, _ := col.Pointer(r)
				pc, _ := col.Pointer(&cp)
				if !diff.Same(0, r, &cp) || !col.SameStored(pr, pc) {
					t.Errorf("a copy: StoredDiff.Same = %v, SameStored = %v; want true", diff.Same(0, r, &cp), col.SameStored(pr, pc))
				}
			}
		})
	}
}

// TestAppendStoredBytes: the stored forms, byte for byte, of values whose
// form the protocol fixes.
func TestAppendStoredBytes(t *testing.T) {
	cest := time.FixedZone("CEST", 2*3600)
	for _, c := range []struct {
		column string
		v      any
		want   []byte
	}{
		{"name", ptr("ab"), []byte{0, 0, 0, 2, 'a', 'b'}},
		{"count", ptr(int64(-2)), []byte{0, 0, 0, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}},
		{"small", ptr(int8(-1)), []byte{0, 0, 0, 1, 0xff}},
		{"small", ptr(int8(127)), []byte{0, 0, 0, 1, 0x7f}},
		{"on", ptr(true), []byte{0, 0, 0, 1, 1}},
		{"start", ptr(time.UnixMilli(-1).Add(999_999).In(cest)), []byte{0, 0, 0, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{"day", ptr(time.Unix(-1, 0)), []byte{0, 0, 0, 4, 0x7f, 0xff, 0xff, 0xff}},
		{"ip", ptr(net.ParseIP("1.2.3.4")), []byte{0, 0, 0, 4, 1, 2, 3, 4}},
		{"ip", ptr(net.IP(nil)), []byte{0xff, 0xff, 0xff, 0xff}},
		{"addr", ptr(netip.MustParseAddr("::ffff:1.2.3.4")), append([]byte{0, 0, 0, 16}, netip.MustParseAddr("::ffff:1.2.3.4").AsSlice()...)},
		{"ratio", ptr(math.Float32frombits(0x7fa00001)), []byte{0, 0, 0, 4, 0x7f, 0xa0, 0, 1}},
		{"blob", ptr([]byte{}), []byte{0, 0, 0, 0}},
		{"tags", ptr(map[string]struct{}{}), []byte{0xff, 0xff, 0xff, 0xff}}, // not frozen: no cell
		{"nums", ptr(map[int32]struct{}{}), []byte{0, 0, 0, 4, 0, 0, 0, 0}},  // a key: frozen
		// Signed order, not the bytes': -1 first.
		{"nums", ptr(map[int32]struct{}{1: {}, -1: {}}), []byte{0, 0, 0, 20, 0, 0, 0, 2, 0, 0, 0, 4, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 4, 0, 0, 0, 1}},
		{"scores", ptr(map[string]int64{"b": 1, "a": 2}), []byte{0, 0, 0, 38, 0, 0, 0, 2,
			0, 0, 0, 1, 'a', 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 2,
			0, 0, 0, 1, 'b', 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 1}},
		{"key", ptr(&stPoint{1, -1}), []byte{0, 0, 0, 16, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 4, 0xff, 0xff, 0xff, 0xff}},
		{"slot", ptr(stSlot{Room: "r", Note: "not stored"}), []byte{0, 0, 0, 33, 0, 0, 0, 1, 'r', 0, 0, 0, 8, 0xff, 0xff, 0xc7, 0x7c, 0xed, 0xd3, 0x28, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"tod", ptr(time.Duration(1)), []byte{0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 1}},
		{"vec", ptr([2]float32{1, 0}), []byte{0, 0, 0, 8, 0x3f, 0x80, 0, 0, 0, 0, 0, 0}},
	} {
		col := storedCol(t, c.column)
		if got := mustStored(t, col, c.v); !bytes.Equal(got, c.want) {
			t.Errorf("%s %s: AppendStored(%#v) = %x, want %x", col.Name(), col.Decl(), reflect.ValueOf(c.v).Elem(), got, c.want)
		}
	}
}

// TestStoredFallbacks: a value CheckValue refuses, and a Go type whose
// bytes the driver writes (a CQLTyper), have no stored form: AppendStored
// fails, and SameStored compares the Go values.
func TestStoredFallbacks(t *testing.T) {
	start := storedCol(t, "start")
	far := time.Date(300_000_000, 1, 1, 0, 0, 0, 0, time.UTC)
	_, err := start.AppendStored(nil, &far)
	var ve *kerrors.ValueError
	if !errors.As(err, &ve) || ve.Column != "start" {
		t.Fatalf("AppendStored of a time past a TIMESTAMP: %v, want a ValueError", err)
	}
	if !start.SameStored(&far, ptr(far)) || start.SameStored(&far, ptr(far.In(time.FixedZone("X", 3600)))) {
		t.Error("a time past a TIMESTAMP: SameStored is not DeepEqual")
	}
	if b, err := start.AppendStored([]byte{1}, "not a pointer"); !errors.Is(err, kerrors.ErrArgument) || !bytes.Equal(b, []byte{1}) {
		t.Errorf("AppendStored of a string: %x, %v; want an ArgumentError and dst", b, err)
	}
	if start.SameStored(ptr(time.Time{}), ptr("x")) {
		t.Error("SameStored of two types")
	}

	price := storedCol(t, "price")
	if _, err := price.AppendStored(nil, &stDecimal{1}); err == nil || !bytes.Contains([]byte(err.Error()), []byte("stored_rows.price")) {
		t.Errorf("AppendStored of a CQLTyper: %v, want an error naming the column", err)
	}
	if !price.SameStored(&stDecimal{1}, &stDecimal{1}) || price.SameStored(&stDecimal{1}, &stDecimal{2}) {
		t.Error("a CQLTyper: SameStored is not DeepEqual")
	}

	// An ASCII column refuses é: CheckValue's error.
	ascii := storedAsciiColumn(t)
	if _, err := ascii.AppendStored(nil, ptr("é")); !errors.As(err, &ve) {
		t.Errorf("AppendStored of é in ASCII: %v", err)
	}
}

type storedASCII struct {
	ID   string
	Code string
}

func (s *storedASCII) Describe(sc *kandra.Schema[storedASCII]) {
	sc.Table("stored_ascii")
	kandra.Bind(sc, &s.ID, kandra.PartitionKey(0))
	kandra.Bind(sc, &s.Code, kandra.AsType(kandra.CQLAscii))
}

func storedAsciiColumn(t *testing.T) *kandra.ColumnSchema {
	tbl, err := kandra.Register[storedASCII]()
	if err != nil {
		t.Fatal(err)
	}
	return tbl.Schema().ColumnByName("code")
}

// TestSameStoredFastAllocs: the common types compare (SameStored, and
// CompareStored's order) without allocating.
func TestSameStoredFastAllocs(t *testing.T) {
	now := time.Now()
	id := uuid.New()
	for _, c := range []struct {
		column string
		a, b   any
	}{
		{"name", ptr("a"), ptr("a")},
		{"count", ptr(int64(1)), ptr(int64(2))},
		{"on", ptr(true), ptr(true)},
		{"score", ptr(1.5), ptr(1.5)},
		{"blob", ptr([]byte{1}), ptr([]byte{1})},
		{"start", &now, ptr(now.UTC())},
		{"day", &now, ptr(now.UTC())},
		{"id", ptr("x"), ptr("y")},
		{"stamp", &id, ptr(id)},
		{"names", ptr([]string{"a", "b"}), ptr([]string{"a", "b"})},
		{"frozen", ptr([]string{"a"}), ptr([]string(nil))},
	} {
		col := storedCol(t, c.column)
		if n := testing.AllocsPerRun(100, func() { col.SameStored(c.a, c.b) }); n != 0 {
			t.Errorf("SameStored on %s (%s): %v allocations", c.column, col.Decl(), n)
		}
		buf := make([]byte, 0, 64)
		if n := testing.AllocsPerRun(100, func() { _, _ = col.AppendStored(buf[:0], c.a) }); n != 0 && c.column != "stamp" {
			t.Errorf("AppendStored on %s (%s): %v allocations", c.column, col.Decl(), n)
		}
		// CompareStored encodes into pooled buffers, which the race
		// detector's pool drops at random; a collection's order decodes
		// its elements.
		if n := testing.AllocsPerRun(100, func() { _, _ = col.CompareStored(c.a, c.b) }); n != 0 && !raceEnabled && col.Type().Kind() == kandra.KindNative && c.column != "stamp" {
			t.Errorf("CompareStored on %s (%s): %v allocations", c.column, col.Decl(), n)
		}
	}
}

// ordered has a column of each type whose order a listing merges by.
type ordered struct {
	K    int32
	I    int64
	S    string
	At   time.Time
	TU   uuid.UUID
	Blob []byte
}

func (o *ordered) Describe(s *kandra.Schema[ordered]) {
	s.Table("ordered")
	kandra.Bind(s, &o.K, kandra.PartitionKey(0))
	kandra.Bind(s, &o.TU, kandra.AsType(kandra.CQLTimeUUID))
}

// CompareStored orders values as the server does: signed integers,
// text by its bytes, timestamps by time, timeuuids by their time first,
// blobs by bytes; a null has no place.
func TestCompareStored(t *testing.T) {
	tab := kandra.MustRegister[ordered]()
	col := func(name string) *kandra.ColumnSchema { return tab.Schema().ColumnByName(name) }
	// Version-1 UUIDs of fixed times: t2 is later, with a smaller clock
	// sequence and node, which the time outranks.
	v1 := func(ts uint64, rest byte) uuid.UUID {
		var u uuid.UUID
		binary.BigEndian.PutUint32(u[0:], uint32(ts))
		binary.BigEndian.PutUint16(u[4:], uint16(ts>>32))
		binary.BigEndian.PutUint16(u[6:], uint16(ts>>48)&0x0fff|0x1000)
		u[8] = 0x80 | rest&0x3f
		for i := 9; i < 16; i++ {
			u[i] = rest
		}
		return u
	}
	t1, t2 := v1(1<<40, 0x3f), v1(1<<40+1, 0)
	for _, c := range []struct {
		col  string
		a, b any
		want int
	}{
		{"i", ptr(int64(-5)), ptr(int64(3)), -1},
		{"i", ptr(int64(math.MaxInt64)), ptr(int64(math.MinInt64)), 1},
		{"s", ptr("b"), ptr("ab"), 1},
		{"s", ptr("é"), ptr("z"), 1},
		{"at", ptr(time.UnixMilli(5)), ptr(time.UnixMilli(5).In(time.FixedZone("X", 3600))), 0},
		{"at", ptr(time.UnixMilli(-1)), ptr(time.UnixMilli(1)), -1},
		{"tu", &t2, &t1, 1},
		{"blob", ptr([]byte{1, 2}), ptr([]byte{1}), 1},
	} {
		got, err := col(c.col).CompareStored(c.a, c.b)
		if err != nil || got != c.want {
			t.Errorf("%s: CompareStored(%v, %v) = %d, %v; want %d", c.col, reflect.ValueOf(c.a).Elem(), reflect.ValueOf(c.b).Elem(), got, err, c.want)
		}
	}
	if _, err := col("blob").CompareStored(ptr([]byte(nil)), ptr([]byte{1})); !errors.Is(err, kerrors.ErrArgument) {
		t.Errorf("a null compared: %v", err)
	}
}

// TestAppendChanged: of two rows that differ in some columns by the
// cases' values (the rest bitwise copies), AppendChanged lists exactly
// the columns whose values are not stored the same, in order, as a
// column-by-column Same does.
//
// The table's columns, at most 64, take AppendChanged's narrow screen (one
// bit set); the same columns listed twice over, more than 64, its wide
// one, which must list each change twice, in both halves.
func TestAppendChanged(t *testing.T) {
	cases := sameStoredCases()
	cols := storedTable.Schema().Columns()
	if len(cols) > 64 {
		t.Fatalf("%d columns: the narrow screen is not tested", len(cols))
	}
	diff := storedTable.StoredDiff(cols)
	wide := storedTable.StoredDiff(slices.Concat(cols, cols))
	index := map[string]int{}
	for i, c := range cols {
		index[c.Name()] = i
	}
	set := func(r *storedRow, col *kandra.ColumnSchema, v any) {
		p, _ := col.Pointer(r)
		reflect.ValueOf(p).Elem().Set(reflect.ValueOf(v).Elem())
	}
	rapid.Check(t, func(t *rapid.T) {
		var a storedRow
		var picked []sameStoredCase
		used := map[string]bool{}
		for _, c := range cases {
			if !used[c.column] && rapid.Bool().Draw(t, c.name) {
				used[c.column] = true
				if c.b == nil {
					c.b = ptr(c.a.(*time.Time).Truncate(time.Millisecond))
				}
				if rapid.Bool().Draw(t, "swapped") {
					c.a, c.b = c.b, c.a
				}
				picked = append(picked, c)
				set(&a, cols[index[c.column]], c.a)
			}
		}
		b := a
		want := []int{}
		for _, c := range picked {
			set(&b, cols[index[c.column]], c.b)
			if !c.same {
				want = append(want, index[c.column])
			}
		}
		slices.Sort(want)
		got := diff.AppendChanged([]int{}, &a, &b)
		if !slices.Equal(got, want) {
			t.Fatalf("AppendChanged = %v, want %v", got, want)
		}
		var each []int
		for i := range cols {
			if !diff.Same(i, &a, &b) {
				each = append(each, i)
			}
		}
		if !slices.Equal(got, each) {
			t.Fatalf("AppendChanged = %v, Same column by column = %v", got, each)
		}
		twice := slices.Clone(want)
		for _, i := range want {
			twice = append(twice, i+len(cols))
		}
		if got := wide.AppendChanged(nil, &a, &b); !slices.Equal(got, twice) {
			t.Fatalf("AppendChanged of the columns twice over = %v, want %v", got, twice)
		}
	})
}
