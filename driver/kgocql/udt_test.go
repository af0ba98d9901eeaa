package kgocql

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	gocql "github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
)

// User-defined types through gocql's own Marshal and Unmarshal, with the
// type infos the server describes (built here by hand): every field as a
// column of its own Go and CQL type is, by kandra's value rules.

type udtGeo struct{ Lat, Lon float64 }

type udtAll struct {
	Text   string
	I8     int8
	I16    int16
	I32    int32
	I64    int64
	I      int
	F32    float32
	F64    float64
	Bool   bool
	Blob   []byte
	Empty  []byte
	NoBlob []byte
	At     time.Time
	ID     uuid.UUID
	GID    gocql.UUID
	Named  userID
	IP     net.IP
	Addr   netip.Addr
	NoAddr netip.Addr
	Dur    time.Duration
	Big    *big.Int
	Ptr    *string
	Nil    *int32
	List   []int32
	Texts  []string
	Set    map[string]struct{}
	Map    map[string]int64
	Where  udtGeo
	Maybe  *udtGeo
	Geos   map[udtGeo]struct{}
	Stamps []time.Time
	Skip   string `kandra:"-"`
}

// udtNatives are the protocol's types of the native CQL types, as a
// server describes them (TEXT as varchar).
var udtNatives = map[string]gocql.Type{"TEXT": gocql.TypeVarchar, "TINYINT": gocql.TypeTinyInt, "SMALLINT": gocql.TypeSmallInt,
	"INT": gocql.TypeInt, "BIGINT": gocql.TypeBigInt, "FLOAT": gocql.TypeFloat, "DOUBLE": gocql.TypeDouble, "BOOLEAN": gocql.TypeBoolean,
	"BLOB": gocql.TypeBlob, "TIMESTAMP": gocql.TypeTimestamp, "UUID": gocql.TypeUUID, "TIMEUUID": gocql.TypeTimeUUID,
	"INET": gocql.TypeInet, "DURATION": gocql.TypeDuration, "VARINT": gocql.TypeVarint, "DATE": gocql.TypeDate, "TIME": gocql.TypeTime}

// infoOf is gocql's type info of ct, as the server describes it.
func infoOf(t testing.TB, ct kandra.CQLType) gocql.TypeInfo {
	switch ct.Kind() {
	case kandra.KindList:
		return gocql.CollectionType{NativeType: nativeType(4, gocql.TypeList), Elem: infoOf(t, ct.Elem())}
	case kandra.KindSet:
		return gocql.CollectionType{NativeType: nativeType(4, gocql.TypeSet), Elem: infoOf(t, ct.Elem())}
	case kandra.KindMap:
		return gocql.CollectionType{NativeType: nativeType(4, gocql.TypeMap), Key: infoOf(t, ct.Key()), Elem: infoOf(t, ct.Elem())}
	case kandra.KindUDT:
		u := gocql.UDTTypeInfo{NativeType: nativeType(4, gocql.TypeUDT), KeySpace: "ks", Name: ct.Name()}
		for _, f := range ct.Fields() {
			u.Elements = append(u.Elements, gocql.UDTField{Name: f.Name, Type: infoOf(t, f.Type)})
		}
		return u
	}
	typ, ok := udtNatives[ct.Name()]
	if !ok {
		t.Fatalf("no type info for %s", ct)
	}
	return nativeType(4, typ)
}

func udtSample() udtAll {
	s := "here"
	return udtAll{
		Text: "é", I8: -8, I16: 1600, I32: -32, I64: 1 << 40, I: -7, F32: 1.5, F64: -2.25, Bool: true,
		Blob: []byte{1, 2}, Empty: []byte{}, At: time.UnixMilli(-1700000000123).UTC(), ID: uuid.New(), GID: gocql.TimeUUID(),
		Named: userID(uuid.New()), IP: net.IPv4(10, 0, 0, 1).To4(), Addr: netip.MustParseAddr("::ffff:10.0.0.1"),
		Dur: 90 * time.Minute, Big: new(big.Int).Lsh(big.NewInt(-3), 70), Ptr: &s,
		List: []int32{3, 1}, Texts: []string{"", "b"}, Set: map[string]struct{}{"z": {}, "a": {}, "m": {}},
		Map: map[string]int64{"k": 1, "a": -1}, Where: udtGeo{1, 2}, Maybe: &udtGeo{-3, 4},
		Geos: map[udtGeo]struct{}{{2, 1}: {}, {1, 9}: {}, {1, -9}: {}}, Stamps: []time.Time{time.UnixMilli(5).UTC()},
	}
}

// udtFields splits a user-defined type's value into its fields (nil for
// null).
func udtFields(t *testing.T, b []byte) [][]byte {
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

// TestUDTAsGocql: a struct of every field type kandra maps round-trips
// through gocql's Marshal and Unmarshal, by value and by reference, and
// each field's bytes are those of a column of its own of the field's type
// (the value rules, the sorted sets), which read back as the field.
func TestUDTAsGocql(t *testing.T) {
	col, err := column(reflect.TypeFor[udtAll](), "")
	if err != nil {
		t.Fatal(err)
	}
	info := infoOf(t, col.Type())
	c, err := NewCodec([]*kandra.ColumnSchema{col})
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]udtAll{"values": udtSample(), "zero": {}} {
		v.Skip = "not stored"
		b, err := gocql.Marshal(info, c.BindValues([]any{&v})[0])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r, err := gocql.Marshal(info, c.AppendBindRefs(nil, []any{&v})[0]); err != nil || !bytes.Equal(r, b) {
			t.Fatalf("%s by reference: %x %v, by value %x", name, r, err, b)
		}
		var back udtAll
		targets, finish := c.ScanTargets([]any{&back})
		if err := gocql.Unmarshal(info, b, targets[0]); err != nil {
			t.Fatal(err)
		}
		if err := finish(); err != nil {
			t.Fatal(err)
		}
		v.Skip = ""
		if (v.Big == nil) != (back.Big == nil) || v.Big != nil && v.Big.Cmp(back.Big) != 0 {
			t.Errorf("%s: Big %v read back as %v", name, v.Big, back.Big)
		}
		w := v
		w.Big, back.Big = nil, nil
		if !reflect.DeepEqual(back, w) {
			t.Errorf("%s: read back\n%#v\nwant\n%#v", name, back, w)
		}
		// Field by field, as a column of its own.
		fields := udtFields(t, b)
		rv := reflect.ValueOf(&v).Elem()
		for j, f := range col.Type().Fields() {
			fv := rv.Field(j)
			own := codecOf(t, fv.Type(), "")
			fi := infoOf(t, f.Type)
			want, err := gocql.Marshal(fi, own.BindValues([]any{fv.Addr().Interface()})[0])
			if err != nil {
				t.Fatalf("%s: field %s as a column: %v", name, f.Name, err)
			}
			if f.Type.Kind() != kandra.KindMap && f.Type.Kind() != kandra.KindSet || len(want) > 0 {
				if !bytes.Equal(fields[j], want) || (fields[j] == nil) != (want == nil) {
					t.Errorf("%s: field %s is %x, as a column of its own %x", name, f.Name, fields[j], want)
				}
			}
		}
	}
	// A value the rules refuse, in a field: the error names it.
	bad := udtSample()
	bad.At = time.UnixMilli(math.MaxInt64).Add(time.Hour)
	if _, err := gocql.Marshal(info, c.BindValues([]any{&bad})[0]); err == nil || !strings.Contains(err.Error(), "field at of user-defined type udt_all") {
		t.Errorf("a timestamp out of range: %v", err)
	}
	// The server's type with the fields in another order and one more: by
	// name.
	u := info.(gocql.UDTTypeInfo)
	live := u
	live.Elements = append([]gocql.UDTField{{Name: "added", Type: nativeType(4, gocql.TypeInt)}}, u.Elements...)
	live.Elements[1], live.Elements[2] = live.Elements[2], live.Elements[1]
	v := udtSample()
	b, err := gocql.Marshal(live, c.BindValues([]any{&v})[0])
	if err != nil {
		t.Fatal(err)
	}
	if f := udtFields(t, b); f[0] != nil || string(f[2]) != "é" {
		t.Errorf("by name: %x", f[:3])
	}
	var back udtAll
	targets, finish := c.ScanTargets([]any{&back})
	if err := gocql.Unmarshal(live, b, targets[0]); err != nil || finish() != nil || back.Text != "é" || back.I8 != -8 {
		t.Errorf("read by name: %+v", back)
	}
	// And without a field of the struct: the migration has not run.
	live.Elements = u.Elements[1:]
	if _, err := gocql.Marshal(live, c.BindValues([]any{&v})[0]); err == nil || !strings.Contains(err.Error(), "no field text") {
		t.Errorf("a field the server lacks: %v", err)
	}
	// An older value, without its last fields: zero.
	b, _ = gocql.Marshal(info, c.BindValues([]any{&v})[0])
	short := b[:4+len(udtFields(t, b)[0])]
	back = udtAll{I8: 9}
	targets, finish = c.ScanTargets([]any{&back})
	if err := gocql.Unmarshal(info, short, targets[0]); err != nil || finish() != nil || !reflect.DeepEqual(back, udtAll{Text: "é"}) {
		t.Errorf("a value of one field: %+v", back)
	}
}

// TestUDTInCollectionsAsGocql: a user-defined type in a list, a set, as a
// map's key and value, and behind a pointer, through gocql.
func TestUDTInCollectionsAsGocql(t *testing.T) {
	type holder struct {
		List []udtGeo
		Set  map[udtGeo]struct{}
		Keys map[udtGeo]string
		Vals map[string]udtGeo
		Ptr  *udtGeo
	}
	col, err := column(reflect.TypeFor[holder](), "")
	if err != nil {
		t.Fatal(err)
	}
	_ = col
	for _, c := range []struct {
		v   any
		cql string
	}{
		{[]udtGeo{{1, 2}, {0, 0}}, "list"},
		{map[udtGeo]struct{}{{3, 1}: {}, {-1, 5}: {}}, "set"},
		{map[udtGeo]string{{3, 1}: "a", {-1, 5}: "b"}, "keys"},
		{map[string]udtGeo{"x": {1, 1}}, "vals"},
		{&udtGeo{5, 6}, "ptr"},
		{(*udtGeo)(nil), "nil"},
	} {
		col, err := column(reflect.TypeOf(c.v), "")
		if err != nil {
			t.Fatal(err)
		}
		info := infoOf(t, col.Type())
		codec, err := NewCodec([]*kandra.ColumnSchema{col})
		if err != nil {
			t.Fatal(err)
		}
		p := reflect.New(reflect.TypeOf(c.v))
		p.Elem().Set(reflect.ValueOf(c.v))
		b, err := gocql.Marshal(info, codec.BindValues([]any{p.Interface()})[0])
		if err != nil {
			t.Fatalf("%s: %v", c.cql, err)
		}
		back := reflect.New(reflect.TypeOf(c.v))
		targets, finish := codec.ScanTargets([]any{back.Interface()})
		if err := gocql.Unmarshal(info, b, targets[0]); err != nil {
			t.Fatalf("%s: %v", c.cql, err)
		}
		if err := finish(); err != nil || !reflect.DeepEqual(back.Elem().Interface(), c.v) {
			t.Errorf("%s: read back %#v, %v", c.cql, back.Elem().Interface(), err)
		}
	}
}
