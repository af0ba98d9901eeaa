package adapter

import (
	"bytes"
	"encoding/binary"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/cqlorder"
	"pgregory.net/rapid"
)

// fake is a driver as the core sees it, for the core's own tests (the
// adapters' tests prove the core against their drivers): its type info is
// a fakeInfo, its Marshal knows Marshalers, strings, 32-bit integers,
// lists of text and pointers to them, its Unmarshal Unmarshalers, *string,
// *[]string and pointers to pointers (nil for null), and its UUID type is
// fakeUUID.
type fake struct{}

type fakeInfo struct {
	t         Type
	key, elem *fakeInfo
	udt       []fakeField // a user-defined type's fields
}

type fakeField struct {
	name string
	info fakeInfo
}

type fakeUUID [16]byte

func (fake) Type(info fakeInfo) Type { return info.t }

func (fake) Collection(info fakeInfo) (key, elem fakeInfo, ok bool, err error) {
	if info.elem == nil {
		return key, elem, false, nil
	}
	if info.key != nil {
		key = *info.key
	}
	return key, *info.elem, true, nil
}

func (fake) UDT(info fakeInfo) (keyspace, name string, fields int, ok bool) {
	return "ks", "t", len(info.udt), info.t == TypeUDT
}

func (fake) UDTField(info fakeInfo, i int) (string, fakeInfo) {
	return info.udt[i].name, info.udt[i].info
}

func (fake) Marshal(info fakeInfo, v any) ([]byte, error) {
	if rv := reflect.ValueOf(v); v == nil || rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, nil // as the drivers: nil, and a nil pointer, Marshaler or not, is null
	}
	switch x := v.(type) {
	case interface {
		MarshalCQL(fakeInfo) ([]byte, error)
	}:
		return x.MarshalCQL(info)
	case string:
		return []byte(x), nil
	case int32:
		return binary.BigEndian.AppendUint32(nil, uint32(x)), nil
	case []string:
		if x == nil {
			return nil, nil
		}
		b, _ := AppendTextList(nil, x)
		return b, nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer {
		return fake{}.Marshal(info, rv.Elem().Interface())
	}
	return nil, errFake
}

func (fake) Unmarshal(info fakeInfo, data []byte, v any) error {
	switch x := v.(type) {
	case interface {
		UnmarshalCQL(fakeInfo, []byte) error
	}:
		return x.UnmarshalCQL(info, data)
	case *string:
		*x = string(data)
		return nil
	case *[]string:
		if data == nil {
			*x = nil
			return nil
		}
		l, ok := DecodeTextList(data)
		if !ok {
			return errFake
		}
		*x = l
		return nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && (rv.Elem().Kind() == reflect.Slice || rv.Elem().Kind() == reflect.Map) && info.elem != nil {
		return fakeCollection(info, data, rv.Elem())
	}
	if rv.Kind() == reflect.Pointer && rv.Elem().Kind() == reflect.Pointer {
		if data == nil {
			rv.Elem().Set(reflect.Zero(rv.Elem().Type()))
			return nil
		}
		p := reflect.New(rv.Elem().Type().Elem())
		if err := (fake{}).Unmarshal(info, data, p.Interface()); err != nil {
			return err
		}
		rv.Elem().Set(p)
		return nil
	}
	return errFake
}

// fakeCollection unmarshals a list, set or map into the slice or map v,
// element by element.
func fakeCollection(info fakeInfo, data []byte, v reflect.Value) error {
	if data == nil {
		v.Set(reflect.Zero(v.Type()))
		return nil
	}
	n := int(binary.BigEndian.Uint32(data))
	data = data[4:]
	next := func() []byte {
		m := int32(binary.BigEndian.Uint32(data))
		data = data[4:]
		if m < 0 {
			return nil
		}
		b := data[:m]
		data = data[m:]
		return b
	}
	if v.Kind() == reflect.Slice {
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		for i := range n {
			if err := (fake{}).Unmarshal(*info.elem, next(), v.Index(i).Addr().Interface()); err != nil {
				return err
			}
		}
		return nil
	}
	v.Set(reflect.MakeMapWithSize(v.Type(), n))
	for range n {
		k, x := reflect.New(v.Type().Key()), reflect.New(v.Type().Elem())
		if err := (fake{}).Unmarshal(*info.key, next(), k.Interface()); err != nil {
			return err
		}
		if err := (fake{}).Unmarshal(*info.elem, next(), x.Interface()); err != nil {
			return err
		}
		v.SetMapIndex(k.Elem(), x.Elem())
	}
	return nil
}

func (fake) UUID() reflect.Type { return reflect.TypeFor[fakeUUID]() }

func (fake) Ref(reflect.Type) reflect.Type { return nil }
func (fake) Unset() any                    { return fakeUnset{} }

type fakeUnset struct{}

var errFake = &fakeError{}

type fakeError struct{}

func (*fakeError) Error() string { return "the fake driver does not know this" }

var _ TypeSystem[fakeInfo] = fake{}

type (
	userID uuid.UUID
	at     time.Time
	ipAddr netip.Addr
)

func planOf(t *testing.T, typ reflect.Type, cql string) *conv {
	t.Helper()
	ct, err := kandra.ParseCQLType(cql)
	if err != nil {
		t.Fatal(err)
	}
	n, err := cqlorder.Of(ct)
	if err != nil {
		t.Fatal(err)
	}
	return planConv[fakeInfo, fake](typ, n, true)
}

func TestCodecPlan(t *testing.T) {
	// Converted: what the gocql drivers cannot take as kandra hands it
	// over, or what kandra's value rules encode.
	for _, c := range []struct {
		typ reflect.Type
		cql string
	}{
		{reflect.TypeFor[userID](), "TIMEUUID"},
		{reflect.TypeFor[[]map[string]struct{}](), "LIST<FROZEN<SET<TEXT>>>"},
		{reflect.TypeFor[time.Duration](), "TIME"},
		{reflect.TypeFor[time.Time](), "TIMESTAMP"},
		{reflect.TypeFor[[]net.IP](), "LIST<INET>"},
		{reflect.TypeFor[[][]byte](), "LIST<BLOB>"},
		{reflect.TypeFor[*[]byte](), "BLOB"},
		{reflect.TypeFor[int8](), "SMALLINT"},
	} {
		if cv := planOf(t, c.typ, c.cql); cv == nil || cv.only != converts {
			t.Errorf("%s as %s is not converted", c.typ, c.cql)
		}
	}
	for typ, cql := range map[reflect.Type]string{
		reflect.TypeFor[uuid.UUID]():                "UUID",
		reflect.TypeFor[*uuid.UUID]():               "UUID",
		reflect.TypeFor[[]uuid.UUID]():              "LIST<UUID>",
		reflect.TypeFor[map[uuid.UUID]string]():     "MAP<UUID, TEXT>",
		reflect.TypeFor[netip.Addr]():               "INET",
		reflect.TypeFor[net.IP]():                   "INET",
		reflect.TypeFor[map[string]struct{}]():      "SET<TEXT>",
		reflect.TypeFor[time.Duration]():            "DURATION",
		reflect.TypeFor[time.Time]():                "DATE",
		reflect.TypeFor[[]time.Duration]():          "LIST<DURATION>",
		reflect.TypeFor[map[string]time.Duration](): "MAP<TEXT, DURATION>",
		reflect.TypeFor[userID]():                   "UUID",
		reflect.TypeFor[at]():                       "TIMESTAMP",
		reflect.TypeFor[ipAddr]():                   "INET",
		reflect.TypeFor[*userID]():                  "UUID",
		reflect.TypeFor[map[userID]at]():            "MAP<UUID, TIMESTAMP>",
		reflect.TypeFor[[32]byte]():                 "BLOB", // the drivers marshal no array into a blob
		reflect.TypeFor[[16]byte]():                 "BLOB",
		reflect.TypeFor[*[4]byte]():                 "BLOB",
		reflect.TypeFor[[][4]byte]():                "LIST<BLOB>",
		reflect.TypeFor[map[[4]byte]string]():       "MAP<BLOB, TEXT>",
	} {
		if cv := planOf(t, typ, cql); cv == nil || cv.only != converts {
			t.Errorf("%s as %s is not converted", typ, cql)
		}
	}
	// Passed through, or only sorted, or only bound by reference.
	for typ, cql := range map[reflect.Type]string{
		reflect.TypeFor[string]():              "TEXT",
		reflect.TypeFor[*big.Int]():            "VARINT",
		reflect.TypeFor[[16]byte]():            "UUID",
		reflect.TypeFor[[]fakeUUID]():          "LIST<UUID>",
		reflect.TypeFor[*fakeUUID]():           "UUID",
		reflect.TypeFor[[][]int32]():           "LIST<FROZEN<LIST<INT>>>",
		reflect.TypeFor[map[string][]string](): "MAP<TEXT, FROZEN<LIST<TEXT>>>",
		reflect.TypeFor[map[string]int32]():    "MAP<TEXT, INT>",
		reflect.TypeFor[int64]():               "BIGINT",
	} {
		cv := planOf(t, typ, cql)
		holds := strings.Contains(cql, "SET") || strings.Contains(cql, "MAP")
		if holds != (cv != nil) || cv != nil && cv.only != sortOnly {
			t.Errorf("%s as %s: plan %+v, want %s", typ, cql, cv, map[bool]string{true: "sorted only", false: "none"}[holds])
		}
	}
	if cv := planOf(t, reflect.TypeFor[fakeUUID](), "UUID"); cv == nil || cv.only != refOnly {
		t.Errorf("the driver's UUID: plan %+v, want a reference only", cv)
	}
	// In a TIMEUUID column of its own, the zero UUID goes as null: the
	// driver's UUID and [16]byte convert (over the field's memory).
	for _, typ := range []reflect.Type{reflect.TypeFor[fakeUUID](), reflect.TypeFor[[16]byte]()} {
		if cv := planOf(t, typ, "TIMEUUID"); cv == nil || cv.only != converts || cv.to.IsZero() {
			t.Errorf("%s in a TIMEUUID: plan %+v, want an aliased conversion", typ, cv)
		}
	}
}

// TestAliasesShareTheField: a type encoded by the value rules is bound by
// reference and scanned over the field's own memory.
func TestAliasesShareTheField(t *testing.T) {
	ts := fakeInfo{t: TypeTimestamp}
	cv := planOf(t, reflect.TypeFor[at](), "TIMESTAMP")
	var v at
	r := bind[fakeInfo, fake](cv, &v, true)
	target, tmp := scanTarget[fakeInfo, fake](cv, &v)
	if tmp.IsValid() {
		t.Fatal("a named time type is scanned through a temporary")
	}
	want := time.UnixMilli(1700000000123).UTC()
	b, _ := timestampBytes(want)
	if err := target.(interface {
		UnmarshalCQL(fakeInfo, []byte) error
	}).UnmarshalCQL(ts, b); err != nil || time.Time(v) != want {
		t.Fatalf("scanned %v %v, want %v", time.Time(v), err, want)
	}
	v = at(want.Add(time.Second))
	got, err := r.(interface {
		MarshalCQL(fakeInfo) ([]byte, error)
	}).MarshalCQL(ts)
	if b2, _ := timestampBytes(want.Add(time.Second)); err != nil || !bytes.Equal(got, b2) {
		t.Fatalf("the reference marshals %x %v, not the field as it is now (%x)", got, err, b2)
	}
	if copied := bind[fakeInfo, fake](cv, &v, false); reflect.TypeOf(copied).Kind() == reflect.Pointer {
		t.Fatalf("bound by value as %T", copied)
	}
}

func timestampBytes(t time.Time) ([]byte, error) {
	return timestampWire[fakeInfo](t).MarshalCQL(fakeInfo{})
}

func TestUUIDs(t *testing.T) {
	id := fakeInfo{t: TypeUUID}
	var zero timeUUIDWire[fakeInfo, fake]
	if b, err := zero.MarshalCQL(fakeInfo{t: TypeTimeUUID}); b != nil || err != nil {
		t.Errorf("the zero UUID in a TIMEUUID is %x %v, not null", b, err)
	}
	u := uuidWire[fakeInfo, fake](uuid.New())
	b, err := u.MarshalCQL(id)
	if err != nil || !bytes.Equal(b, u[:]) {
		t.Fatalf("%x %v", b, err)
	}
	var back uuidWire[fakeInfo, fake]
	if err := back.UnmarshalCQL(id, b); err != nil || back != u {
		t.Fatalf("%x %v", back, err)
	}
	if err := back.UnmarshalCQL(id, nil); err != nil || back != (uuidWire[fakeInfo, fake]{}) {
		t.Fatalf("null read as %x %v", back, err)
	}
	if err := back.UnmarshalCQL(id, []byte{1, 2}); err == nil {
		t.Fatal("a 2-byte UUID read")
	}
}

// TestUUIDByReference: a uuid.UUID (or a named UUID type) bound by
// reference marshals to the field's bytes as they are when the driver
// marshals, without a copy; bound by value, to a copy taken at binding.
func TestUUIDByReference(t *testing.T) {
	type userID uuid.UUID
	id := fakeInfo{t: TypeUUID}
	for _, p := range []any{new(uuid.UUID), new(userID)} {
		cv := planOf(t, reflect.TypeOf(p).Elem(), "UUID")
		field := (*[16]byte)(reflect.ValueOf(p).UnsafePointer())
		*field = uuid.New()
		r := bind[fakeInfo, fake](cv, p, true)
		v := bind[fakeInfo, fake](cv, p, false)
		was := *field
		field[0] ^= 0xff
		m := r.(interface {
			MarshalCQL(fakeInfo) ([]byte, error)
		})
		b, err := m.MarshalCQL(id)
		if err != nil || !bytes.Equal(b, field[:]) {
			t.Fatalf("%T by reference: %x %v, the field is %x", p, b, err, *field)
		}
		if allocs := testing.AllocsPerRun(100, func() { b, _ = m.MarshalCQL(id) }); allocs != 0 {
			t.Errorf("%T by reference: marshalling allocates %v times", p, allocs)
		}
		if b, err := v.(uuidWire[fakeInfo, fake]).MarshalCQL(id); err != nil || !bytes.Equal(b, was[:]) {
			t.Errorf("%T by value: %x %v, want the copy %x", p, b, err, was)
		}
		// Another CQL type goes to the driver's Marshal, with the value.
		if _, err := m.MarshalCQL(fakeInfo{t: TypeInt}); err == nil {
			t.Errorf("%T by reference marshals into an INT", p)
		}
	}
}

// TestTextByReference: a string bound by reference marshals to the
// string's own bytes, without a copy (the copy would allocate); the empty string to an empty value,
// not null.
func TestTextByReference(t *testing.T) {
	info := fakeInfo{t: TypeVarchar}
	s := string([]byte("name"))
	m := ref[fakeInfo, fake](&s).(interface {
		MarshalCQL(fakeInfo) ([]byte, error)
	})
	b, err := m.MarshalCQL(info)
	if err != nil || string(b) != s {
		t.Fatalf("%q %v, want %q", b, err, s)
	}
	if allocs := testing.AllocsPerRun(100, func() { b, _ = m.MarshalCQL(info) }); allocs != 0 {
		t.Errorf("marshalling allocates %v times", allocs)
	}
	s = ""
	if b, err := m.MarshalCQL(info); err != nil || b == nil || len(b) != 0 {
		t.Errorf("the empty string marshals to %#v %v, want an empty value", b, err)
	}
}

func TestBlobs(t *testing.T) {
	type I = struct{}
	if b, _ := (blobElemWire[I](nil)).MarshalCQL(I{}); b == nil || len(b) != 0 {
		t.Errorf("a nil element marshals to %#v, want an empty value", b)
	}
	var w blobElemWire[I]
	if _ = w.UnmarshalCQL(I{}, []byte{}); w == nil {
		t.Error("an empty element reads as nil")
	}
	var top blobWire[I]
	if _ = top.UnmarshalCQL(I{}, []byte{}); top == nil {
		t.Error("an empty value reads as nil")
	}
	if _ = top.UnmarshalCQL(I{}, nil); top != nil {
		t.Error("null reads as non-nil")
	}
	if b, _ := (blobWire[I](nil)).MarshalCQL(I{}); b != nil {
		t.Error("nil is not null")
	}
}

// TestVints: every int64 is one vint that reads back whole; a cut one
// fails.
func TestVints(t *testing.T) {
	for x, want := range map[int64][]byte{0: {0}, -1: {1}, 1: {2}, 63: {0x7e}, -64: {0x7f}, 64: {0x80, 0x80}} {
		if got := appendVint(nil, x); !bytes.Equal(got, want) {
			t.Errorf("%d: %x, want %x", x, got, want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		x := rapid.Int64().Draw(t, "x")
		b := appendVint([]byte{9}, x)[1:]
		got, rest, err := vint(append(b, 7))
		if err != nil || got != x || !bytes.Equal(rest, []byte{7}) {
			t.Fatalf("%d: %x reads %d %x %v", x, b, got, rest, err)
		}
		if _, _, err := vint(b[:len(b)-1]); err == nil {
			t.Fatalf("%d: %x cut short reads", x, b)
		}
	})
	var d durationWire[struct{}]
	if err := d.UnmarshalCQL(struct{}{}, []byte{2, 4}); err == nil {
		t.Error("a duration of two vints read")
	}
}

type digest [16]byte

func TestPlainValue(t *testing.T) {
	u := uuid.New()
	for _, c := range []struct{ in, want any }{
		{digest(u), u.String()},
		{[]digest{digest(u)}, []string{u.String()}},
		{net.IPv4(10, 0, 0, 1), "10.0.0.1"},
		{nil, nil},
		{int64(3), int64(3)},
		{map[string]string{"a": "b"}, map[string]string{"a": "b"}},
	} {
		if got := plainValue(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%#v: %#v, want %#v", c.in, got, c.want)
		}
	}
}

func TestIsConditional(t *testing.T) {
	if !IsConditional("update t set a = 1 where k = 2 if a = 0") || IsConditional("CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY)") {
		t.Error("IsConditional")
	}
}

// TestArgsBind: Plan.Bind appends each statement's values to one list,
// converted as Values converts them, and caps each statement's slice, so
// that an append to one cannot overwrite the next statement's values;
// Release clears the list, so that the pool keeps no entity alive.
func TestArgsBind(t *testing.T) {
	p := &Plan[fakeInfo, fake]{params: make([]*conv, 2), goType: []reflect.Type{reflect.TypeFor[int64](), reflect.TypeFor[string]()}}
	n, s := int64(7), "x"
	args := NewArgs()
	first := p.Bind(args, []any{&n, &s}, true)
	second := p.Bind(args, []any{int64(8), nil}, true)
	if want := p.Values([]any{&n, &s}, true); !reflect.DeepEqual(first, want) {
		t.Fatalf("Bind: %#v, Values: %#v", first, want)
	}
	if want := p.Values([]any{int64(8), nil}, true); !reflect.DeepEqual(second, want) {
		t.Fatalf("Bind: %#v, Values: %#v", second, want)
	}
	if len(first) != 2 || cap(first) != 2 {
		t.Fatalf("the first statement's values: len %d, cap %d, want 2 and 2", len(first), cap(first))
	}
	_ = append(first, "past the end")
	if second[0] != any(int64(8)) {
		t.Fatalf("an append to the first statement's values wrote the second's: %#v", second)
	}
	all := args.vals
	args.Release()
	for i, v := range all {
		if v != nil {
			t.Fatalf("value %d is %#v after Release, want nil", i, v)
		}
	}
}

// scanned is a scan target without a reference: the Iter scans into it.
type scanned struct{ n int }

// rowsIter is a page of rows of ints, each scanned into every target.
type rowsIter struct{ rows []int }

func (it *rowsIter) Scan(dest ...any) bool {
	if len(it.rows) == 0 {
		return false
	}
	for _, d := range dest {
		*d.(*scanned) = scanned{it.rows[0]}
	}
	it.rows = it.rows[1:]
	return true
}
func (it *rowsIter) PageState() []byte { return nil }
func (it *rowsIter) Close() error      { return nil }
func (it *rowsIter) NumRows() int      { return len(it.rows) }

// TestPlanRowsReuse: a plan's Rows go back to it at Close with their scan
// targets cleared (the pool keeps no field alive), and a page reusing
// them scans into its own targets, however many.
func TestPlanRowsReuse(t *testing.T) {
	p := &Plan[fakeInfo, fake]{result: make([]*conv, 2), cols: make([]*kandra.ColumnSchema, 2), scans: true}
	var a, b scanned
	first := p.Rows(&rowsIter{rows: []int{1}})
	if !first.Next([]any{&a, &b}) || a.n != 1 || b.n != 1 {
		t.Fatalf("first page: %v %v", a, b)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	for i, target := range first.targets {
		if target != nil {
			t.Fatalf("target %d kept after Close: %#v", i, target)
		}
	}
	var c scanned
	second := p.Rows(&rowsIter{rows: []int{2}})
	if !second.Next([]any{&c}) || c.n != 2 || a.n != 1 || b.n != 1 {
		t.Fatalf("second page: %v, and the first's targets %v %v", c, a, b)
	}
	if second.Next([]any{&c}) {
		t.Fatal("a row past the page's last")
	}
	if err := second.Close(); err != nil {
		t.Fatal(err)
	}
}
