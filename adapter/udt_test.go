package adapter

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/cqlorder"
	"github.com/kandra-go/kandra/kerrors"
)

// The core's user-defined types, through the fake driver: the adapters'
// tests prove them through their drivers' own marshalling.

type udtGeo struct{ Lat, Lon float64 }

type udtAddress struct {
	Street string
	Zip    *string `kandra:"zip_code"`
	Tags   []string
	Seen   map[string]struct{}
	Where  udtGeo
	At     time.Time
	ID     uuid.UUID
	Note   string `kandra:"-"` // not stored
}

type udtCustomer struct {
	ID     uuid.UUID
	Home   udtAddress
	Past   []udtAddress
	Where  *udtGeo
	Places map[udtGeo]struct{}
	ByGeo  map[udtGeo]string
}

func (c *udtCustomer) Describe(s *kandra.Schema[udtCustomer]) {
	s.Table("udt_customers")
	kandra.Bind(s, &c.ID, kandra.PartitionKey(0))
}

var udtCustomers = kandra.MustRegister[udtCustomer]()

// fakeNatives are the fake's type infos of the native types.
var fakeNatives = map[string]Type{"TEXT": TypeText, "DOUBLE": TypeDouble, "TIMESTAMP": TypeTimestamp, "UUID": TypeUUID,
	"INT": TypeInt, "TIMEUUID": TypeTimeUUID, "INET": TypeInet, "BLOB": TypeBlob}

// fakeInfoOf is the fake's type info of ct, as a server describes it.
func fakeInfoOf(ct kandra.CQLType) fakeInfo {
	switch ct.Kind() {
	case kandra.KindList, kandra.KindSet:
		e := fakeInfoOf(ct.Elem())
		return fakeInfo{t: map[kandra.CQLKind]Type{kandra.KindList: TypeList, kandra.KindSet: TypeSet}[ct.Kind()], elem: &e}
	case kandra.KindMap:
		k, e := fakeInfoOf(ct.Key()), fakeInfoOf(ct.Elem())
		return fakeInfo{t: TypeMap, key: &k, elem: &e}
	case kandra.KindUDT:
		info := fakeInfo{t: TypeUDT}
		for _, f := range ct.Fields() {
			info.udt = append(info.udt, fakeField{f.Name, fakeInfoOf(f.Type)})
		}
		return info
	}
	return fakeInfo{t: fakeNatives[ct.Name()]}
}

func sampleCustomer() udtCustomer {
	zip := "75001"
	at := time.UnixMilli(1700000000123).UTC()
	return udtCustomer{
		ID: uuid.New(),
		Home: udtAddress{Street: "1 rue", Zip: &zip, Tags: []string{"b", "a"}, Seen: map[string]struct{}{"y": {}, "x": {}},
			Where: udtGeo{48.85, 2.35}, At: at, ID: uuid.New()},
		Past:   []udtAddress{{Street: "old"}, {Street: "", Tags: []string{}, Seen: map[string]struct{}{}}},
		Where:  &udtGeo{-1, 1},
		Places: map[udtGeo]struct{}{{2, 0}: {}, {1, 5}: {}, {1, -5}: {}},
		ByGeo:  map[udtGeo]string{{3, 3}: "c", {0, 0}: "z"},
	}
}

// roundTrip binds and marshals every column of c through the codec, then
// unmarshals and scans it back.
func roundTrip(t *testing.T, c udtCustomer) (udtCustomer, [][]byte) {
	t.Helper()
	ts := udtCustomers.Schema()
	codec, err := NewCodec[fakeInfo, fake](ts.Columns())
	if err != nil {
		t.Fatal(err)
	}
	var d fake
	var wire [][]byte
	for _, byRef := range []bool{false, true} {
		ptrs := udtCustomers.Pointers(&c, nil)
		bound := codec.AppendBindValues(nil, ptrs)
		if byRef {
			bound = codec.AppendBindRefs(nil, ptrs)
		}
		wire = wire[:0]
		for i, v := range bound {
			b, err := d.Marshal(fakeInfoOf(ts.Column(i).Type()), v)
			if err != nil {
				t.Fatalf("column %s: %v", ts.Column(i).Name(), err)
			}
			wire = append(wire, b)
		}
	}
	var back udtCustomer
	targets, finish := codec.ScanTargets(udtCustomers.Pointers(&back, nil))
	for i, target := range targets {
		if err := d.Unmarshal(fakeInfoOf(ts.Column(i).Type()), wire[i], target); err != nil {
			t.Fatalf("column %s: %v", ts.Column(i).Name(), err)
		}
	}
	if err := finish(); err != nil {
		t.Fatal(err)
	}
	return back, wire
}

func TestUDTRoundTrip(t *testing.T) {
	c := sampleCustomer()
	c.Home.Note = "not stored"
	back, wire := roundTrip(t, c)
	c.Home.Note = ""
	if !reflect.DeepEqual(back, c) {
		t.Fatalf("read back\n%+v\nwant\n%+v", back, c)
	}
	// The home column: its fields in order, each as its own column's value
	// would be, the set sorted, the nested type frozen inside.
	home := wire[1]
	fields := splitFields(t, home)
	if len(fields) != 7 || string(fields[0]) != "1 rue" || string(fields[1]) != "75001" {
		t.Fatalf("home: %d fields %q", len(fields), fields)
	}
	if want, _ := AppendTextList(nil, []string{"x", "y"}); !bytes.Equal(fields[3], want) {
		t.Errorf("the set field is %x, want it sorted: %x", fields[3], want)
	}
	if ts, _ := timestampBytes(c.Home.At); !bytes.Equal(fields[5], ts) || !bytes.Equal(fields[6], c.Home.ID[:]) {
		t.Errorf("at, id: %x %x", fields[5], fields[6])
	}
	// The set of a user-defined type: in the type's order (lat, then lon).
	elems := splitList(t, wire[4])
	var order []udtGeo
	for _, e := range elems {
		f := splitFields(t, e)
		order = append(order, udtGeo{f64(f[0]), f64(f[1])})
	}
	if !reflect.DeepEqual(order, []udtGeo{{1, -5}, {1, 5}, {2, 0}}) {
		t.Errorf("the set of geos is sent as %v, not in the server's order", order)
	}

	// Nulls: a nil *struct, nil fields; a null read into a struct is zero.
	c = udtCustomer{ID: uuid.New()}
	if back, wire = roundTrip(t, c); !reflect.DeepEqual(back, c) {
		t.Fatalf("zero values read back as %+v", back)
	}
	if wire[3] != nil {
		t.Errorf("a nil *udtGeo is sent as %x, not null", wire[3])
	}
	if f := splitFields(t, wire[1]); f[1] != nil || f[2] != nil || f[3] != nil {
		t.Errorf("a nil zip, tags and seen are sent as %x %x %x, not null", f[1], f[2], f[3])
	}
	codec, _ := NewCodec[fakeInfo, fake](udtCustomers.Schema().Columns())
	back = udtCustomer{Home: udtAddress{Street: "was here"}, Where: &udtGeo{1, 1}}
	targets, finish := codec.ScanTargets(udtCustomers.Pointers(&back, nil))
	for i, target := range targets {
		if err := (fake{}).Unmarshal(fakeInfoOf(udtCustomers.Schema().Column(i).Type()), nil, target); err != nil {
			t.Fatal(err)
		}
	}
	if err := finish(); err != nil || !reflect.DeepEqual(back.Home, udtAddress{}) || back.Where != nil {
		t.Errorf("null read as %+v, %v (%v)", back.Home, back.Where, err)
	}
}

func f64(b []byte) float64 {
	var x doubleRef[fakeInfo, fake]
	_ = x.UnmarshalCQL(fakeInfo{t: TypeDouble}, b)
	return float64(x)
}

func splitFields(t *testing.T, b []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for len(b) > 0 {
		n := int32(binary.BigEndian.Uint32(b))
		b = b[4:]
		if n < 0 {
			out = append(out, nil)
			continue
		}
		out, b = append(out, b[:n]), b[n:]
	}
	return out
}

func splitList(t *testing.T, b []byte) [][]byte {
	t.Helper()
	n := int(binary.BigEndian.Uint32(b))
	b = b[4:]
	out := make([][]byte, n)
	for i := range out {
		m := int(binary.BigEndian.Uint32(b))
		out[i], b = b[4:4+m], b[4+m:]
	}
	return out
}

// udtPlanOf is the conv of a udtAddress and the server's type info of
// the model's address type.
func udtPlanOf(t *testing.T) (*conv, fakeInfo) {
	t.Helper()
	ct := udtCustomers.Schema().Column(1).Type()
	n, err := cqlorder.Of(ct)
	if err != nil {
		t.Fatal(err)
	}
	return planTop[fakeInfo, fake](reflect.TypeFor[udtAddress](), n), fakeInfoOf(ct)
}

func marshalAddr(cv *conv, info fakeInfo, a udtAddress) ([]byte, error) {
	return fake{}.Marshal(info, cv.toWire(reflect.ValueOf(a)).Interface())
}

func unmarshalAddr(t *testing.T, cv *conv, info fakeInfo, b []byte) (udtAddress, error) {
	t.Helper()
	tmp := reflect.New(cv.wire)
	if err := (fake{}).Unmarshal(info, b, tmp.Interface()); err != nil {
		t.Fatal(err)
	}
	v, err := cv.fromWire(tmp.Elem())
	if err != nil {
		return udtAddress{}, err
	}
	return v.Interface().(udtAddress), nil
}

// TestUDTFieldsByName: the server's fields are matched by name, in the
// server's order: a field the struct lacks is sent as null and skipped
// on read; one the server lacks is a write error naming it.
func TestUDTFieldsByName(t *testing.T) {
	cv, model := udtPlanOf(t)
	zip := "1000"
	a := udtAddress{Street: "s", Zip: &zip, Where: udtGeo{1, 2}}
	// The server's type: the model's fields reversed, and one more.
	live := fakeInfo{t: TypeUDT}
	for i := len(model.udt) - 1; i >= 0; i-- {
		live.udt = append(live.udt, model.udt[i])
		if i == 3 {
			live.udt = append(live.udt, fakeField{"extra", fakeInfo{t: TypeText}})
		}
	}
	b, err := marshalAddr(cv, live, a)
	if err != nil {
		t.Fatal(err)
	}
	f := splitFields(t, b)
	if len(f) != 8 || string(f[6]) != "1000" || string(f[7]) != "s" || f[4] != nil {
		t.Fatalf("sent in the server's order: %q", f)
	}
	// Reading it back, and a value whose extra field is set.
	f[4] = []byte("someone else's")
	var raw []byte
	for _, x := range f {
		raw = appendField(raw, x)
	}
	if back, err := unmarshalAddr(t, cv, live, raw); err != nil || !reflect.DeepEqual(back, a) {
		t.Fatalf("read back %+v, %v; want %+v", back, err, a)
	}
	// The server's type lacks zip_code: the migration has not run.
	short := fakeInfo{t: TypeUDT}
	for _, x := range model.udt {
		if x.name != "zip_code" {
			short.udt = append(short.udt, x)
		}
	}
	_, err = marshalAddr(cv, short, a)
	if err == nil || !strings.Contains(err.Error(), "no field zip_code") || !strings.Contains(err.Error(), "udtAddress.Zip") || !strings.Contains(err.Error(), "migration") {
		t.Fatalf("a field the server lacks: %v", err)
	}
	// Not a user-defined type at all.
	if _, err := marshalAddr(cv, fakeInfo{t: TypeText}, a); err == nil || !strings.Contains(err.Error(), "not a user-defined type") {
		t.Errorf("a text column: %v", err)
	}
}

func appendField(b, f []byte) []byte {
	if f == nil {
		return binary.BigEndian.AppendUint32(b, 0xffffffff)
	}
	return append(binary.BigEndian.AppendUint32(b, uint32(len(f))), f...)
}

// TestUDTShortValue: a value written before the type gained fields (the
// server sends it as it was stored) reads its missing fields as zero.
func TestUDTShortValue(t *testing.T) {
	cv, info := udtPlanOf(t)
	zip := "z"
	full, err := marshalAddr(cv, info, udtAddress{Street: "s", Zip: &zip, Tags: []string{"t"}, Where: udtGeo{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	f := splitFields(t, full)
	for n := 0; n <= len(f); n++ {
		var raw []byte
		for _, x := range f[:n] {
			raw = appendField(raw, x)
		}
		if raw == nil {
			raw = []byte{}
		}
		got, err := unmarshalAddr(t, cv, info, raw)
		want := udtAddress{}
		if n > 0 {
			want.Street = "s"
		}
		if n > 1 {
			want.Zip = &zip
		}
		if n > 2 {
			want.Tags = []string{"t"}
		}
		if n > 4 {
			want.Where = udtGeo{1, 2}
		}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%d fields: %+v, %v; want %+v", n, got, err, want)
		}
	}
	// Cut inside a field, or more fields than the type: an error naming it.
	for name, raw := range map[string][]byte{
		"cut":   full[:len(full)-3],
		"extra": appendField(full, []byte("x")),
		"len":   append(full, 0, 0),
	} {
		if _, err := unmarshalAddr(t, cv, info, raw); err == nil || !strings.Contains(err.Error(), "user-defined type udt_address") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestUDTReadErrorNamesTheField: a field the value rules refuse on read
// fails the column's read naming the field.
func TestUDTReadErrorNamesTheField(t *testing.T) {
	ts := udtCustomers.Schema()
	codec, err := NewCodec[fakeInfo, fake](ts.Columns())
	if err != nil {
		t.Fatal(err)
	}
	info := fakeInfoOf(ts.Column(1).Type())
	raw := appendField(appendField(nil, []byte("s")), nil)
	raw = appendField(appendField(appendField(raw, nil), nil), appendField(nil, nil))
	raw = appendField(raw, []byte{1, 2, 3}) // a 3-byte timestamp
	var back udtCustomer
	targets, finish := codec.ScanTargets(udtCustomers.Pointers(&back, nil))
	if err := (fake{}).Unmarshal(info, raw, targets[1]); err != nil {
		t.Fatal(err)
	}
	err = finish()
	var ve *kerrors.ValueError
	if !errors.As(err, &ve) || ve.Column != "home" || !ve.Read || !strings.Contains(ve.Reason, "field at of user-defined type udt_address") {
		t.Fatalf("%v", err)
	}
}

// TestUDTMapKeysAndAllocs: a user-defined type as a map key reads back
// into the Go map; binding a column of one copies the struct once.
func TestUDTMapKeys(t *testing.T) {
	c := sampleCustomer()
	back, wire := roundTrip(t, c)
	if !reflect.DeepEqual(back.ByGeo, c.ByGeo) || !reflect.DeepEqual(back.Places, c.Places) {
		t.Fatalf("%v %v", back.ByGeo, back.Places)
	}
	// The map is sent in the key type's order.
	entries := splitList(t, append(binary.BigEndian.AppendUint32(nil, 4), wire[5][4:]...))
	if f := splitFields(t, entries[0]); f64(f[0]) != 0 || string(entries[1]) != "z" {
		t.Errorf("the first key is %x, want {0 0}", entries[0])
	}
}

// TestSortedUDT: Sorted converts the structs of a user-defined type
// inside the value, which the driver would match by their Go names.
func TestSortedUDT(t *testing.T) {
	geo := udtCustomers.Schema().Column(3).Type() // Where *udtGeo
	sv, err := Sorted[fakeInfo, fake](kandra.SetOf(geo), []udtGeo{{2, 0}, {1, 5}, {1, -5}, {2, 0}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := sv.MarshalCQL(fakeInfoOf(kandra.SetOf(geo)))
	if err != nil {
		t.Fatal(err)
	}
	var order []udtGeo
	for _, e := range splitList(t, b) {
		f := splitFields(t, e)
		order = append(order, udtGeo{f64(f[0]), f64(f[1])})
	}
	if !reflect.DeepEqual(order, []udtGeo{{1, -5}, {1, 5}, {2, 0}}) {
		t.Errorf("sorted as %v", order)
	}
}

// TestUDTFieldAddedAndTexts: a missing field the server's schema has now
// renews the statement's text once per text sent; one it lacks does not.

func TestUDTFieldAddedAndTexts(t *testing.T) {
	cv, info := udtPlanOf(t)
	short := fakeInfo{t: TypeUDT}
	for _, x := range info.udt {
		if x.name != "zip_code" {
			short.udt = append(short.udt, x)
		}
	}
	_, err := marshalAddr(cv, short, udtAddress{})
	var fe *kerrors.UDTFieldError
	if !errors.As(err, &fe) || fe.Keyspace != "ks" || fe.Type != "t" || fe.Field != "zip_code" || fe.GoField != "adapter.udtAddress.Zip" {
		t.Fatalf("%#v", err)
	}
	schema := []string{"street", "zip_code"}
	var asked []any
	query := func(_ context.Context, stmt string, values []any, c kandra.Consistency) ([]map[string]any, error) {
		asked = values
		if !strings.Contains(stmt, "system_schema.types") || c != kandra.ConsistencyOne {
			t.Errorf("%s at %s", stmt, c)
		}
		return []map[string]any{{"field_names": schema}}, nil
	}
	wrapped := &kerrors.QueryError{Message: "save", Cause: err}
	if !UDTFieldAdded(context.Background(), queryOnly{q: query}, wrapped) || !reflect.DeepEqual(asked, []any{"ks", "t"}) {
		t.Errorf("the field is on the server now: not added (asked %v)", asked)
	}
	schema = []string{"street"}
	if UDTFieldAdded(context.Background(), queryOnly{q: query}, err) || UDTFieldAdded(context.Background(), queryOnly{q: query}, errors.New("other")) {
		t.Error("added without the field on the server")
	}

	var texts Texts
	s := NewStatement(StatementSpec{Table: "raw_rows", CQL: "SELECT 1", Idempotent: true})
	if texts.CQL(s) != "SELECT 1" {
		t.Fatal(texts.CQL(s))
	}
	texts.Renew(s, "SELECT 1")
	texts.Renew(s, "SELECT 1") // a call that failed at the same time: once
	if texts.CQL(s) != "SELECT 1 " {
		t.Fatalf("%q", texts.CQL(s))
	}
	texts.Renew(s, texts.CQL(s))
	if texts.CQL(s) != "SELECT 1  " || s.CQL() != "SELECT 1" {
		t.Fatalf("%q", texts.CQL(s))
	}

	// Send renews what the failed attempt sent, a statement alone
	// (SentOne) or a batch's, and tries once more.
	schema = []string{"street", "zip_code"}
	b1 := NewStatement(StatementSpec{Table: "raw_rows", CQL: "SELECT 2", Idempotent: true})
	b2 := NewStatement(StatementSpec{Table: "raw_rows", CQL: "SELECT 3", Idempotent: true})
	for _, sent := range []Sent{SentOne(s, texts.CQL(s)), {Statements: []*Statement{b1, b2}, Texts: []string{"SELECT 2", "SELECT 3"}}} {
		var was []string
		for _, st := range []*Statement{s, b1, b2} {
			was = append(was, texts.CQL(st))
		}
		tries := 0
		_, err := Send(context.Background(), queryOnly{q: query}, &texts, true, func(error) bool { return false }, func() (int, Sent, error) {
			tries++
			if tries == 1 {
				return 0, sent, err
			}
			return 0, sent, nil
		})
		if err != nil || tries != 2 {
			t.Fatalf("Send: %v after %d tries, want nil after 2", err, tries)
		}
		for i, st := range []*Statement{s, b1, b2} {
			renewed := texts.CQL(st) != was[i]
			if in := sent.one == st || slices.Contains(sent.Statements, st); renewed != in {
				t.Errorf("%s: renewed %v, sent %v", st.CQL(), renewed, in)
			}
		}
	}
}

// queryOnly is a Driver that answers QueryCQL only.
type queryOnly struct {
	Driver
	q func(ctx context.Context, stmt string, values []any, c kandra.Consistency) ([]map[string]any, error)
}

func (d queryOnly) QueryCQL(ctx context.Context, stmt string, values []any, c kandra.Consistency) ([]map[string]any, error) {
	return d.q(ctx, stmt, values, c)
}
