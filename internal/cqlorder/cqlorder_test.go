package cqlorder

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
)

func parse(t *testing.T, cql string) Type {
	t.Helper()
	ct, err := kandra.ParseCQLType(cql)
	if err != nil {
		t.Fatal(err)
	}
	n, err := Of(ct)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestOf(t *testing.T) {
	for cql, want := range map[string]struct {
		str   string
		holds bool
	}{
		"INT":                                    {"int", false},
		"TimeUUID":                               {"timeuuid", false},
		"LIST<FROZEN<LIST<TEXT>>>":               {"list<list<text>>", false},
		"SET<INT>":                               {"set<int>", true},
		"FROZEN<MAP<TEXT, FROZEN<SET<BIGINT>>>>": {"map<text, set<bigint>>", true},
		"LIST<FROZEN<MAP<UUID, DOUBLE>>>":        {"list<map<uuid, double>>", true},
	} {
		n := parse(t, cql)
		if n.String() != want.str || n.HoldsSetOrMap() != want.holds {
			t.Errorf("%s: %s (holds a set or map: %t), want %s (%t)", cql, n, n.HoldsSetOrMap(), want.str, want.holds)
		}
	}
	if _, err := Of(kandra.CQLType{}); err == nil || !strings.Contains(err.Error(), "a native type, a list, set or map, or a user-defined type") {
		t.Errorf("Of(zero CQLType): %v, want an error naming the kinds it takes", err)
	}
	// A user-defined type: its fields' types as Args, their names, and a
	// set inside one is a set to sort.
	geo := kandra.UDTOf("geo", kandra.UDTField{Name: "lat", Type: kandra.CQLDouble}, kandra.UDTField{Name: "lon", Type: kandra.CQLDouble})
	addr := kandra.UDTOf("address", kandra.UDTField{Name: "street", Type: kandra.CQLText},
		kandra.UDTField{Name: "tags", Type: kandra.SetOf(kandra.CQLText)}, kandra.UDTField{Name: "where", Type: geo})
	for _, c := range []struct {
		typ   kandra.CQLType
		str   string
		holds bool
	}{
		{geo, "geo{lat double, lon double}", false},
		{addr, "address{street text, tags set<text>, where geo{lat double, lon double}}", true},
		{kandra.ListOf(geo), "list<geo{lat double, lon double}>", false},
		{kandra.MapOf(geo, kandra.CQLInt), "map<geo{lat double, lon double}, int>", true},
	} {
		n, err := Of(c.typ)
		if err != nil || n.String() != c.str || n.HoldsSetOrMap() != c.holds {
			t.Errorf("%s: %s (holds a set or map: %t), %v; want %s (%t)", c.typ, n, n.HoldsSetOrMap(), err, c.str, c.holds)
		}
	}
	if n, _ := Of(addr); n.Name != "udt" || n.UDT != "address" || !slices.Equal(n.Fields, []string{"street", "tags", "where"}) || n.Args[2].Name != "udt" {
		t.Errorf("Of(address): %#v", n)
	}
	if _, err := Of(kandra.UDTOf("address")); err == nil || !strings.Contains(err.Error(), "no fields") {
		t.Errorf("Of(a UDT by name only): %v, want an error", err)
	}
}

// udtOrParse is parse, and "udt(T, ...)" a user-defined type of fields of
// those native types.
func udtOrParse(t *testing.T, cql string) Type {
	t.Helper()
	inner, ok := strings.CutPrefix(cql, "udt(")
	if !ok {
		return parse(t, cql)
	}
	var fields []kandra.UDTField
	for i, f := range strings.Split(strings.TrimSuffix(inner, ")"), ", ") {
		fields = append(fields, kandra.UDTField{Name: fmt.Sprintf("f%d", i), Type: mustParse(t, f)})
	}
	n, err := Of(kandra.UDTOf("u", fields...))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func mustParse(t *testing.T, cql string) kandra.CQLType {
	t.Helper()
	ct, err := kandra.ParseCQLType(cql)
	if err != nil {
		t.Fatal(err)
	}
	return ct
}

func be32(x int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(x)) }

func f64(x float64) []byte { return binary.BigEndian.AppendUint64(nil, math.Float64bits(x)) }

func f32(x float32) []byte { return binary.BigEndian.AppendUint32(nil, math.Float32bits(x)) }

func uuidOf(s string) []byte {
	var b []byte
	if _, err := fmt.Sscanf(strings.ReplaceAll(s, "-", ""), "%x", &b); err != nil || len(b) != 16 {
		panic("bad uuid " + s)
	}
	return b
}

// TestCompareOrders: each list is in the server's order, strictly
// ascending, and holds the cases that differ from byte order.
func TestCompareOrders(t *testing.T) {
	dec := func(scale int32, unscaled int64) []byte {
		return append(be32(scale), encodeVarint(bigInt(unscaled))...)
	}
	for _, c := range []struct {
		typ    string
		values [][]byte
	}{
		{"INT", [][]byte{{}, be32(math.MinInt32), be32(-1), be32(0), be32(1), be32(math.MaxInt32)}},
		{"BIGINT", [][]byte{be64(math.MinInt64), be64(-256), be64(-1), be64(0), be64(255), be64(256)}},
		{"TIMESTAMP", [][]byte{be64(-86400000), be64(0), be64(1700000000000)}},
		{"SMALLINT", [][]byte{{0x80, 0}, {0xff, 0xff}, {0, 0}, {0x7f, 0xff}}},
		{"DOUBLE", [][]byte{f64(math.Inf(-1)), f64(-1.5), f64(math.Copysign(0, -1)), f64(0), f64(1e-300), f64(math.Inf(1)), f64(math.NaN())}},
		{"FLOAT", [][]byte{f32(float32(math.Inf(-1))), f32(-2), f32(float32(math.Copysign(0, -1))), f32(0), f32(3.25), f32(float32(math.NaN()))}},
		{"VARINT", [][]byte{encodeVarint(bigInt(-129)), encodeVarint(bigInt(-1)), {0}, {0x7f}, {0, 0x80}, {1, 0}}},
		{"DECIMAL", [][]byte{dec(0, -10), dec(2, -1), dec(0, 0), dec(3, 5), dec(-2, 1), dec(0, 101)}},
		{"TEXT", [][]byte{[]byte(""), []byte("A"), []byte("a"), []byte("ab"), []byte("é")}},
		// uuid: version first (a version 1 before a version 4), then the
		// version 1 by its timestamp (time_hi before time_low).
		{"UUID", [][]byte{
			uuidOf("ffffffff-ffff-0fff-ffff-ffffffffffff"),
			uuidOf("ffffffff-0000-1000-8000-000000000000"),
			uuidOf("00000000-0000-1001-8000-000000000000"),
			uuidOf("00000000-0000-4000-8000-000000000000"),
			uuidOf("00000000-0000-4000-8000-000000000001"),
		}},
		// timeuuid: by time, then the low half as signed bytes.
		{"TIMEUUID", [][]byte{
			uuidOf("ffffffff-ffff-1000-0000-000000000000"),
			uuidOf("00000000-0000-1001-8000-000000000000"),
			uuidOf("00000000-0000-1001-0000-000000000000"),
			uuidOf("00000000-0000-1001-7f00-000000000000"),
		}},
		// frozen collections: element by element, then the shorter first.
		{"FROZEN<LIST<INT>>", [][]byte{
			AppendCollection(nil, 0, nil),
			AppendCollection(nil, 1, [][]byte{be32(-5)}),
			AppendCollection(nil, 2, [][]byte{be32(-5), be32(-7)}),
			AppendCollection(nil, 1, [][]byte{be32(3)}),
		}},
		// a user-defined type (a, b): field by field, a null field before
		// any value, an empty field a value; a value with fewer fields
		// (written before ALTER TYPE ADD) as if they were null.
		{"udt(INT, TEXT)", [][]byte{
			{},
			AppendUDT(nil, [][]byte{nil}),
			AppendUDT(nil, [][]byte{nil, []byte("a")}),
			AppendUDT(nil, [][]byte{{}, nil}),
			AppendUDT(nil, [][]byte{be32(-5)}),
			AppendUDT(nil, [][]byte{be32(-5), {}}),
			AppendUDT(nil, [][]byte{be32(-5), []byte("a")}),
			AppendUDT(nil, [][]byte{be32(3), []byte("")}),
			AppendUDT(nil, [][]byte{be32(3), []byte("b")}),
		}},
		{"FROZEN<MAP<INT, TEXT>>", [][]byte{
			AppendCollection(nil, 1, [][]byte{be32(-1), []byte("z")}),
			AppendCollection(nil, 1, [][]byte{be32(2), []byte("a")}),
			AppendCollection(nil, 1, [][]byte{be32(2), []byte("b")}),
			AppendCollection(nil, 2, [][]byte{be32(2), []byte("b"), be32(3), []byte("")}),
		}},
	} {
		n := udtOrParse(t, c.typ)
		for i := range c.values {
			for j := range c.values {
				if got, want := sign(Compare(n, c.values[i], c.values[j])), sign(i-j); got != want {
					t.Errorf("%s: value %d (%x) vs %d (%x): %d, want %d", c.typ, i, c.values[i], j, c.values[j], got, want)
				}
			}
		}
	}
	// Equal though the bytes differ: 1.0 and 1.00, two NaNs.
	for _, c := range []struct {
		typ  string
		a, b []byte
	}{
		{"DECIMAL", dec(1, 10), dec(2, 100)},
		{"DOUBLE", f64(math.NaN()), binary.BigEndian.AppendUint64(nil, 0x7ff0000000000001)},
		{"VARINT", []byte{0xff}, []byte{0xff, 0xff}},
		// Trailing null fields, sent or not (a value written before
		// ALTER TYPE ADD), are the same value.
		{"udt(INT, TEXT)", AppendUDT(nil, [][]byte{be32(1)}), AppendUDT(nil, [][]byte{be32(1), nil})},
		{"udt(INT, TEXT)", AppendUDT(nil, [][]byte{nil}), AppendUDT(nil, [][]byte{nil, nil})},
		{"udt(DECIMAL)", AppendUDT(nil, [][]byte{dec(1, 10)}), AppendUDT(nil, [][]byte{dec(2, 100)})},
	} {
		if got := Compare(udtOrParse(t, c.typ), c.a, c.b); got != 0 {
			t.Errorf("%s %x vs %x: %d, want equal", c.typ, c.a, c.b, got)
		}
	}
}

// info is the test driver's type info.
type info struct {
	kind      Kind
	key, elem *info
}

var native = &info{}

func coll(k Kind, key, elem *info) *info { return &info{kind: k, key: key, elem: elem} }

// testDriver serializes int32, int64, float64 and string, and any slice
// or map of them, unsorted: as a driver does.
type testDriver struct {
	calls int
	fail  error
}

func (d *testDriver) Collection(i *info) (Kind, *info, *info, error) {
	if d.fail != nil && i.kind != NotCollection {
		return 0, nil, nil, d.fail
	}
	return i.kind, i.key, i.elem, nil
}

func (d *testDriver) Marshal(i *info, v any) ([]byte, error) {
	d.calls++
	return plainMarshal(reflect.ValueOf(v))
}

// rawUDT is a user-defined type's value as its fields' bytes, which the
// test driver writes as they are.
type rawUDT [][]byte

func plainMarshal(v reflect.Value) ([]byte, error) {
	if u, ok := v.Interface().(rawUDT); ok {
		return AppendUDT(nil, u), nil
	}
	switch v.Kind() {
	case reflect.Int32:
		return be32(int32(v.Int())), nil
	case reflect.Int64:
		return be64(v.Int()), nil
	case reflect.Float64:
		return f64(v.Float()), nil
	case reflect.String:
		return []byte(v.String()), nil
	case reflect.Slice:
		var elems [][]byte
		for i := 0; i < v.Len(); i++ {
			b, err := plainMarshal(v.Index(i))
			if err != nil {
				return nil, err
			}
			elems = append(elems, b)
		}
		return AppendCollection(nil, len(elems), elems), nil
	case reflect.Map:
		var elems [][]byte
		for it := v.MapRange(); it.Next(); {
			k, err := plainMarshal(it.Key())
			if err != nil {
				return nil, err
			}
			elems = append(elems, k)
			if it.Value().Kind() != reflect.Struct {
				e, err := plainMarshal(it.Value())
				if err != nil {
					return nil, err
				}
				elems = append(elems, e)
			}
		}
		return AppendCollection(nil, v.Len(), elems), nil
	}
	return nil, fmt.Errorf("test driver: cannot marshal %s", v.Type())
}

func TestMarshal(t *testing.T) {
	setInt := coll(Set, nil, native)
	for _, c := range []struct {
		name string
		cql  string
		info *info
		v    any
		want []byte
	}{
		{"a slice as a set: sorted, repeats once", "SET<INT>", setInt, []int32{3, -1, 3, 2, -1},
			AppendCollection(nil, 3, [][]byte{be32(-1), be32(2), be32(3)})},
		{"a map[K]struct{} as a set", "SET<TEXT>", coll(Set, nil, native), map[string]struct{}{"b": {}, "a": {}, "c": {}},
			AppendCollection(nil, 3, [][]byte{[]byte("a"), []byte("b"), []byte("c")})},
		{"a map by key; keys the server holds equal once", "MAP<DOUBLE, INT>", coll(Map, native, native), map[float64]int32{math.NaN(): 1, 2: 2, -1: 3},
			nil}, // checked below: the NaN key's value is either
		{"a pointer to a set", "SET<INT>", setInt, &[]int32{2, 1},
			AppendCollection(nil, 2, [][]byte{be32(1), be32(2)})},
		{"a nil set is null", "SET<INT>", setInt, []int32(nil), nil},
		{"a nil pointer is null", "SET<INT>", setInt, (*[]int32)(nil), nil},
		{"an empty set", "SET<INT>", setInt, []int32{}, AppendCollection(nil, 0, nil)},
		{"a list keeps its order, its sets sorted", "LIST<FROZEN<SET<INT>>>", coll(List, nil, setInt), [][]int32{{2, 1}, {0}},
			AppendCollection(nil, 2, [][]byte{AppendCollection(nil, 2, [][]byte{be32(1), be32(2)}), AppendCollection(nil, 1, [][]byte{be32(0)})})},
		{"a set of lists: by element, then the shorter first", "SET<FROZEN<LIST<INT>>>", coll(Set, nil, coll(List, nil, native)), [][]int32{{2}, {1, 5}, {2}, {}, {1}},
			AppendCollection(nil, 4, [][]byte{AppendCollection(nil, 0, nil), AppendCollection(nil, 1, [][]byte{be32(1)}), AppendCollection(nil, 2, [][]byte{be32(1), be32(5)}), AppendCollection(nil, 1, [][]byte{be32(2)})})},
		{"a list without sets is the driver's", "LIST<INT>", coll(List, nil, native), []int32{3, 1},
			AppendCollection(nil, 2, [][]byte{be32(3), be32(1)})},
	} {
		d := &testDriver{}
		got, err := Marshal[*info](d, c.info, parse(t, c.cql), reflect.ValueOf(c.v))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.cql == "MAP<DOUBLE, INT>" {
			// -1, 2, then one NaN (after every number), with its value.
			if elems, ok := splitCollection(got, true); !ok || len(elems) != 6 || !bytes.Equal(elems[0], f64(-1)) || !bytes.Equal(elems[2], f64(2)) || !math.IsNaN(math.Float64frombits(binary.BigEndian.Uint64(elems[4]))) || !bytes.Equal(elems[5], be32(1)) {
				t.Errorf("%s: %x", c.name, got)
			}
			continue
		}
		if !bytes.Equal(got, c.want) || (c.want == nil) != (got == nil) {
			t.Errorf("%s: %x, want %x", c.name, got, c.want)
		}
	}
	// A set of a user-defined type: each value is the driver's (a UDT is no
	// collection to the driver), in the type's order, repeats once.
	udt := udtOrParse(t, "udt(INT, TEXT)")
	setUDT := Type{Name: "set", Args: []Type{udt}}
	elems := []rawUDT{{be32(3), nil}, {be32(-1), []byte("b")}, {nil}, {be32(3)}, {be32(-1), []byte("a")}}
	got, err := Marshal[*info](&testDriver{}, coll(Set, nil, native), setUDT, reflect.ValueOf(elems))
	want := AppendCollection(nil, 4, [][]byte{AppendUDT(nil, [][]byte{nil}), AppendUDT(nil, [][]byte{be32(-1), []byte("a")}),
		AppendUDT(nil, [][]byte{be32(-1), []byte("b")}), AppendUDT(nil, [][]byte{be32(3), nil})})
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("a set of a user-defined type: %x, %v; want %x", got, err, want)
	}
	// A type without sets or maps, and a driver type that is not a
	// collection, go to the driver whole.
	d := &testDriver{}
	if _, err := Marshal[*info](d, native, parse(t, "SET<INT>"), reflect.ValueOf("x")); err != nil || d.calls != 1 {
		t.Errorf("a non-collection info: %v, %d driver calls, want 1", err, d.calls)
	}
	// The driver's refusal stops the marshalling, with its error.
	refused := errors.New("protocol 2")
	if _, err := Marshal[*info](&testDriver{fail: refused}, setInt, parse(t, "SET<INT>"), reflect.ValueOf([]int32{1})); !errors.Is(err, refused) {
		t.Errorf("a driver's refusal: %v, want %v", err, refused)
	}
}
