package kgocql

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	gocql "github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/auth"
	"github.com/kandra-go/kandra/internal/catalog"
	"github.com/kandra-go/kandra/internal/cqlvalue"
	"github.com/kandra-go/kandra/internal/dynamic"
	"github.com/kandra-go/kandra/kerrors"
	"pgregory.net/rapid"
)

type authEvents struct {
	kandra.NopEventListener
	failed    []string
	refreshed int
}

func (a *authEvents) OnEventualWriteFailed(string, any, error) {}
func (a *authEvents) OnAuthFailed(cp string, err error)        { a.failed = append(a.failed, cp) }
func (a *authEvents) OnCredentialRefreshed()                   { a.refreshed++ }

func TestAuthenticatorRotationAndFailure(t *testing.T) {
	pw := "one"
	fail := false
	p := auth.ProviderFunc(func(context.Context) (auth.Credentials, error) {
		if fail {
			return auth.Credentials{}, errors.New("vault down")
		}
		return auth.Credentials{Username: "app", Password: pw}, nil
	})
	l := &authEvents{}
	f := Authenticator(p, l)
	a, err := f(nil)
	if err != nil || a.(gocql.PasswordAuthenticator).Password != "one" {
		t.Fatalf("%#v %v", a, err)
	}
	pw = "two" // rotated: the next connection uses it
	if a, _ = f(nil); a.(gocql.PasswordAuthenticator).Password != "two" || l.refreshed != 1 {
		t.Fatalf("rotation: %d", l.refreshed)
	}
	fail = true
	_, err = f(nil)
	var ae *kerrors.AuthError
	if !errors.As(err, &ae) || len(l.failed) != 1 {
		t.Fatalf("%v %v", err, l.failed)
	}
}

type userID uuid.UUID

// scyllaFork reports whether the gocql linked is ScyllaDB's fork (module
// path github.com/gocql/gocql too), whose ClusterConfig has had
// DisableShardAwarePort since its v1.5.0.
var _, scyllaFork = reflect.TypeFor[gocql.ClusterConfig]().FieldByName("DisableShardAwarePort")

// column is the column V of a table whose Go type is typ and CQL type
// cql (AsType; "" for kandra's own).
func column(typ reflect.Type, cql string) (*kandra.ColumnSchema, error) {
	fields := []reflect.StructField{{Name: "ID", Type: reflect.TypeFor[string]()}, {Name: "V", Type: typ}}
	sp := dynamic.Spec{Type: reflect.StructOf(fields), Table: "t", MarkerField: -1,
		Binds: []dynamic.Bind{{Field: 0, Options: []any{kandra.PartitionKey(0)}}}}
	if cql != "" {
		ct, err := kandra.ParseCQLType(cql)
		if err != nil {
			return nil, err
		}
		sp.Binds = append(sp.Binds, dynamic.Bind{Field: 1, Options: []any{kandra.AsType(ct)}})
	}
	ts, err := dynamic.Build(sp)
	if err != nil {
		return nil, err
	}
	return ts.(*kandra.TableSchema).Column(1), nil
}

// codecOf is the codec of the one column V.
func codecOf(t testing.TB, typ reflect.Type, cql string) *Codec {
	t.Helper()
	c, err := newCodecOf(typ, cql)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func newCodecOf(typ reflect.Type, cql string) (*Codec, error) {
	col, err := column(typ, cql)
	if err != nil {
		return nil, err
	}
	return NewCodec([]*kandra.ColumnSchema{col})
}

// refCodecs are the codecs of the types the core binds and scans by
// reference: the plain native types, a list of text and gocql.UUID, and
// a []byte in a BLOB (over the field's memory, by the value rules).
var refCodecs = func() map[reflect.Type]*Codec {
	m := map[reflect.Type]*Codec{}
	for typ, cql := range map[reflect.Type]string{
		reflect.TypeFor[string](): "TEXT", reflect.TypeFor[int32](): "INT", reflect.TypeFor[int64](): "BIGINT",
		reflect.TypeFor[int](): "BIGINT", reflect.TypeFor[float64](): "DOUBLE", reflect.TypeFor[bool](): "BOOLEAN",
		reflect.TypeFor[gocql.UUID](): "UUID", reflect.TypeFor[[]string](): "LIST<TEXT>", reflect.TypeFor[[]byte](): "BLOB",
	} {
		c, err := newCodecOf(typ, cql)
		if err != nil {
			panic(err)
		}
		m[typ] = c
	}
	return m
}()

// ref is what the adapter binds by reference for the field at p.
func ref(p any) any {
	return refCodecs[reflect.TypeOf(p).Elem()].AppendBindRefs(nil, []any{p})[0]
}

// scanRef is the adapter's scan target for the field at p.
func scanRef(p any) any {
	targets, _ := refCodecs[reflect.TypeOf(p).Elem()].ScanTargets([]any{p})
	return targets[0]
}

func TestCodecConverts(t *testing.T) {
	// Converted: what gocql v1.7.0 cannot take as kandra hands it over.
	for typ, cql := range map[reflect.Type]string{
		reflect.TypeFor[userID]():           "TIMEUUID",
		reflect.TypeFor[uuid.UUID]():        "UUID",
		reflect.TypeFor[time.Duration]():    "DURATION",
		reflect.TypeFor[map[string]int32](): "MAP<TEXT, INT>", // only sorted
		reflect.TypeFor[gocql.UUID]():       "UUID",           // only bound by reference
		reflect.TypeFor[[16]byte]():         "UUID",
	} {
		c := codecOf(t, typ, cql)
		if want := typ == reflect.TypeFor[userID]() || typ == reflect.TypeFor[uuid.UUID]() || typ == reflect.TypeFor[time.Duration](); c.Converted(0) != want {
			t.Errorf("%s as %s: Converted %v", typ, cql, c.Converted(0))
		}
	}
}

func TestCodecRoundTripInMemory(t *testing.T) {
	// Through gocql's own Marshal/Unmarshal, as a session would.
	info := nativeType(4, gocql.TypeUUID)
	for _, v := range []any{uuid.New(), userID(uuid.New())} {
		c := codecOf(t, reflect.TypeOf(v), "UUID")
		p := reflect.New(reflect.TypeOf(v))
		p.Elem().Set(reflect.ValueOf(v))
		b, err := gocql.Marshal(info, c.BindValues([]any{p.Interface()})[0])
		if err != nil {
			t.Fatal(err)
		}
		back := reflect.New(reflect.TypeOf(v))
		targets, finish := c.ScanTargets([]any{back.Interface()})
		if err := gocql.Unmarshal(info, b, targets[0]); err != nil {
			t.Fatal(err)
		}
		if err := finish(); err != nil || back.Elem().Interface() != v {
			t.Fatalf("%T: read back %v (%v)", v, back.Elem(), err)
		}
		// gocql v1.7.0 cannot marshal it unconverted (Codec's
		// documentation); ScyllaDB's fork can, to the same bytes.
		raw, err := gocql.Marshal(info, v)
		if !scyllaFork && err == nil {
			t.Errorf("gocql v1.7.0 marshals %T unconverted: Codec's documentation is out of date", v)
		}
		if scyllaFork && (err != nil || !bytes.Equal(raw, b)) {
			t.Errorf("the fork marshals %T unconverted to %x (%v), the codec to %x", v, raw, err, b)
		}
	}
}

// TestDurationAsGocql: a time.Duration in a DURATION marshals to gocql's
// bytes for a gocql.Duration, and every gocql.Duration reads back as its
// nanoseconds, or fails naming the column when it has months or days.
func TestDurationAsGocql(t *testing.T) {
	info := nativeType(4, gocql.TypeDuration)
	c := codecOf(t, reflect.TypeFor[time.Duration](), "")
	rapid.Check(t, func(t *rapid.T) {
		d := gocql.Duration{Nanoseconds: rapid.Int64().Draw(t, "ns")}
		if rapid.Bool().Draw(t, "months or days") {
			// Of one sign, as the servers store them (the fork refuses
			// to marshal mixed signs).
			d.Months, d.Days = rapid.Int32Min(0).Draw(t, "months"), rapid.Int32Min(0).Draw(t, "days")
			if d.Nanoseconds < 0 || d.Nanoseconds == 0 && rapid.Bool().Draw(t, "negative") {
				d.Months, d.Days = -d.Months, -d.Days
			}
		}
		v := time.Duration(d.Nanoseconds)
		want, _ := gocql.Marshal(info, gocql.Duration{Nanoseconds: d.Nanoseconds})
		got, err := gocql.Marshal(info, c.BindValues([]any{&v})[0])
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%v: %x %v, gocql's %x", v, got, err, want)
		}
		data, err := gocql.Marshal(info, d)
		if err != nil {
			t.Fatalf("%+v: %v", d, err)
		}
		var back time.Duration
		targets, finish := c.ScanTargets([]any{&back})
		if err := gocql.Unmarshal(info, data, targets[0]); err != nil {
			t.Fatal(err)
		}
		err = finish()
		if d.Months != 0 || d.Days != 0 {
			var ve *kerrors.ValueError
			if !errors.As(err, &ve) {
				t.Fatalf("%+v read as %v, %v; want a ValueError", d, back, err)
			}
			return
		}
		if err != nil || back != v {
			t.Fatalf("%+v read as %v, %v", d, back, err)
		}
	})
}

func setOf(elem gocql.Type) gocql.TypeInfo {
	return gocql.CollectionType{NativeType: nativeType(4, gocql.TypeSet), Elem: nativeType(4, elem)}
}

func TestSortedValueOrdersAndRepeats(t *testing.T) {
	set := map[int32]struct{}{}
	for i := int32(-40); i < 40; i += 7 {
		set[i*1000003] = struct{}{}
	}
	c := codecOf(t, reflect.TypeFor[map[int32]struct{}](), "FROZEN<SET<INT>>")
	info := setOf(gocql.TypeInt)
	first, err := gocql.Marshal(info, c.BindValues([]any{&set})[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		b, _ := gocql.Marshal(info, c.BindValues([]any{&set})[0])
		if !bytes.Equal(b, first) {
			t.Fatal("one set marshals to different bytes")
		}
	}
	var got []int32
	if err := gocql.Unmarshal(info, first, &got); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(got); i++ {
		if got[i-1] >= got[i] {
			t.Fatalf("not in ascending order: %v", got)
		}
	}
	if len(got) != len(set) {
		t.Fatalf("%d elements, want %d", len(got), len(set))
	}
	var nilSet map[int32]struct{}
	if b, err := gocql.Marshal(info, c.BindValues([]any{&nilSet})[0]); err != nil || b != nil {
		t.Fatalf("a nil set: %v %v, want null", b, err)
	}
}

func TestSortedValueKeepsEachElementOnce(t *testing.T) {
	ct, err := kandra.ParseCQLType("SET<FROZEN<LIST<INT>>>")
	if err != nil {
		t.Fatal(err)
	}
	sv, err := Sorted(ct, [][]int32{{2}, {1, 5}, {2}, {}, {1}})
	if err != nil {
		t.Fatal(err)
	}
	list := gocql.CollectionType{NativeType: nativeType(4, gocql.TypeList), Elem: nativeType(4, gocql.TypeInt)}
	info := gocql.CollectionType{NativeType: nativeType(4, gocql.TypeSet), Elem: list}
	b, err := gocql.Marshal(info, sv)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]int32
	if err := gocql.Unmarshal(info, b, &got); err != nil {
		t.Fatal(err)
	}
	// The server's order of frozen lists: element by element, then the
	// shorter first; the repeated [2] once.
	if g, want := fmt.Sprint(got), "[[] [1] [1 5] [2]]"; g != want {
		t.Fatalf("got %s, want %s", g, want)
	}
}

// refTypes are the CQL types a reference may be asked to marshal: the
// ones each writes itself and, for the fallback to gocql.Marshal, others.
var refTypes = []gocql.Type{gocql.TypeVarchar, gocql.TypeText, gocql.TypeAscii, gocql.TypeBlob,
	gocql.TypeInt, gocql.TypeBigInt, gocql.TypeCounter, gocql.TypeTimestamp, gocql.TypeDouble,
	gocql.TypeFloat, gocql.TypeBoolean, gocql.TypeUUID, gocql.TypeTimeUUID, gocql.TypeSmallInt,
	gocql.TypeTinyInt, gocql.TypeVarint, gocql.TypeDate, gocql.TypeTime, gocql.TypeInet}

// sameAsGocql checks that ref(p) marshals, into a type of types, to exactly what gocql.Marshal
// makes of the value behind p, nil (null) against empty included, and
// fails exactly when gocql does.
func sameAsGocql(t *rapid.T, p any, types []gocql.Type) {
	info := nativeType(4, rapid.SampledFrom(types).Draw(t, "type"))
	r := ref(p)
	if _, ok := r.(gocql.Marshaler); !ok {
		t.Fatalf("ref(%T) is %T, not a gocql.Marshaler", p, r)
	}
	want, werr := gocql.Marshal(info, reflect.ValueOf(p).Elem().Interface())
	got, gerr := gocql.Marshal(info, r)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%T into %s: error %v, gocql's %v", p, info, gerr, werr)
	}
	if !bytes.Equal(got, want) || (got == nil) != (want == nil) {
		t.Fatalf("%T %v into %s: %#v, gocql's %#v", p, reflect.ValueOf(p).Elem(), info, got, want)
	}
}

func TestRefMarshalsAsGocql(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var p any
		switch rapid.IntRange(0, 7).Draw(t, "kind") {
		case 0:
			s := rapid.String().Draw(t, "s")
			p = &s
		case 1:
			b := rapid.SliceOf(rapid.Byte()).Draw(t, "b")
			if rapid.Bool().Draw(t, "nil") {
				b = nil
			}
			p = &b
		case 2:
			v := rapid.Int32().Draw(t, "v")
			p = &v
		case 3:
			v := rapid.Int64().Draw(t, "v")
			p = &v
		case 4:
			v := rapid.Int().Draw(t, "v")
			p = &v
		case 5:
			v := math.Float64frombits(rapid.Uint64().Draw(t, "bits"))
			p = &v
		case 6:
			v := rapid.Bool().Draw(t, "v")
			p = &v
		case 7:
			var v gocql.UUID
			copy(v[:], rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "u"))
			p = &v
		}
		types := refTypes
		if _, ok := p.(*[]byte); ok {
			types = []gocql.Type{gocql.TypeBlob} // a []byte is a BLOB: the value rules' wire type
		}
		sameAsGocql(t, p, types)
	})
}

func TestRefReadsTheFieldWhenMarshalled(t *testing.T) {
	s := "before"
	r := ref(&s)
	s = "after"
	got, err := gocql.Marshal(nativeType(4, gocql.TypeVarchar), r)
	if err != nil || string(got) != "after" {
		t.Fatalf("%q %v", got, err)
	}
	codec, ptrs, dst := refCodecs[reflect.TypeFor[string]()], []any{&s}, make([]any, 0, 1)
	if allocs := testing.AllocsPerRun(100, func() { dst = codec.AppendBindRefs(dst[:0], ptrs) }); allocs != 0 {
		t.Errorf("binding a reference allocates %v times", allocs)
	}
	// Marshalling gives the string's own bytes (gocql copies them into
	// the frame): no copy, and the empty string is an empty value.
	m := r.(gocql.Marshaler)
	var info gocql.TypeInfo = nativeType(4, gocql.TypeVarchar) // boxed once
	if allocs := testing.AllocsPerRun(100, func() { got, _ = m.MarshalCQL(info) }); allocs != 0 || string(got) != "after" {
		t.Errorf("marshalling a text reference: %q, %v allocations", got, allocs)
	}
	s = ""
	if got, err := m.MarshalCQL(info); err != nil || got == nil || len(got) != 0 {
		t.Errorf("the empty string marshals to %#v %v, want an empty value", got, err)
	}
}

func TestBindRefMarshalsAsBind(t *testing.T) {
	// A column's plan: a reference where the value is a plain value or
	// the uuid alias, the value itself for a converted column.
	u, id, name, tags := uuid.New(), userID(uuid.New()), "n", []string{"b", "a"}
	for _, c := range []struct {
		p   any
		cql string
		typ gocql.TypeInfo
	}{
		{&u, "UUID", nativeType(4, gocql.TypeUUID)},
		{&id, "UUID", nativeType(4, gocql.TypeUUID)},
		{&name, "TEXT", nativeType(4, gocql.TypeVarchar)},
		{&tags, "LIST<TEXT>", gocql.CollectionType{NativeType: nativeType(4, gocql.TypeList), Elem: nativeType(4, gocql.TypeVarchar)}},
	} {
		codec := codecOf(t, reflect.TypeOf(c.p).Elem(), c.cql)
		want, err := gocql.Marshal(c.typ, codec.BindValues([]any{c.p})[0])
		if err != nil {
			t.Fatal(err)
		}
		got, err := gocql.Marshal(c.typ, codec.AppendBindRefs(nil, []any{c.p})[0])
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%T as %s: %x (%v), bind's %x", c.p, c.cql, got, err, want)
		}
	}
	if r := codecOf(t, reflect.TypeFor[uuid.UUID](), "UUID").AppendBindRefs(nil, []any{&u})[0]; reflect.TypeOf(r).Kind() != reflect.Pointer {
		t.Errorf("a uuid.UUID is bound as a %T, not as a reference", r)
	}
}

// textListInfos are the types a textListRef may be asked to marshal or
// unmarshal: the lists and sets of text it encodes itself and, for the
// fallback to gocql, a protocol 2 list, a list of int and text itself.
func textListInfos() []gocql.TypeInfo {
	coll := func(proto byte, t, elem gocql.Type) gocql.TypeInfo {
		return gocql.CollectionType{NativeType: nativeType(proto, t), Elem: nativeType(proto, elem)}
	}
	return []gocql.TypeInfo{
		coll(4, gocql.TypeList, gocql.TypeVarchar), coll(4, gocql.TypeSet, gocql.TypeVarchar),
		coll(3, gocql.TypeList, gocql.TypeText), coll(5, gocql.TypeList, gocql.TypeAscii),
		coll(4, gocql.TypeSet, gocql.TypeBlob), coll(2, gocql.TypeList, gocql.TypeVarchar),
		coll(4, gocql.TypeList, gocql.TypeInt), nativeType(4, gocql.TypeVarchar),
	}
}

func drawStrings(t *rapid.T, label string) []string {
	if rapid.IntRange(0, 9).Draw(t, label+"-nil") == 0 {
		return nil
	}
	return rapid.SliceOfN(rapid.OneOf(rapid.Just(""), rapid.String()), 0, 8).Draw(t, label)
}

// TestTextListRefMarshalsAsGocql: a []string marshals through
// textListRef to exactly gocql's bytes, nil (null) against an empty list
// included, and fails exactly when gocql does.
func TestTextListRefMarshalsAsGocql(t *testing.T) {
	infos := textListInfos()
	rapid.Check(t, func(t *rapid.T) {
		v := drawStrings(t, "v")
		info := rapid.SampledFrom(infos).Draw(t, "info")
		want, werr := gocql.Marshal(info, v)
		got, gerr := gocql.Marshal(info, ref(&v))
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%q into %s: error %v, gocql's %v", v, info, gerr, werr)
		}
		if !bytes.Equal(got, want) || (got == nil) != (want == nil) {
			t.Fatalf("%q into %s: %x, gocql's %x", v, info, got, want)
		}
	})
}

// listBytes encodes elems as a list of text with 4-byte sizes, a nil
// element as null.
func listBytes(n int, elems [][]byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(n))
	for _, e := range elems {
		if e == nil {
			b = binary.BigEndian.AppendUint32(b, math.MaxUint32) // -1: null
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(e)))
		b = append(b, e...)
	}
	return b
}

// outcome is what one Unmarshal did: the value read, its error, a panic.
type outcome struct {
	v     []string
	err   error
	panic any
}

// unmarshalBoth scans data of type info into a []string that held prior,
// through gocql and through textListRef; a panic counts as an outcome.
func unmarshalBoth(info gocql.TypeInfo, data []byte, prior []string) (want, got outcome) {
	try := func(o *outcome, dst func(*[]string) any) {
		o.v = slices.Clone(prior)
		defer func() { o.panic = recover() }()
		o.err = gocql.Unmarshal(info, data, dst(&o.v))
	}
	try(&want, func(p *[]string) any { return p })
	try(&got, func(p *[]string) any { return scanRef(p) })
	return want, got
}

func checkUnmarshalSame(t interface{ Fatalf(string, ...any) }, info gocql.TypeInfo, data []byte, prior []string) {
	if n, ok := claimedCount(info, data); ok && (n < 0 || n > len(data)/2) {
		// More elements than the data can hold: gocql allocates a slice
		// of n first (up to 32 GiB, or panics when n < 0), then fails.
		// textListRef fails at once and leaves the field alone; for the
		// other types it hands the data to gocql, so neither is run.
		if isTextList(info) {
			got := slices.Clone(prior)
			if err := gocql.Unmarshal(info, data, scanRef(&got)); err == nil || !slices.Equal(got, prior) {
				t.Fatalf("%x as %s (a count of %d): %q, %v; want an error and the field unchanged", data, info, n, got, err)
			}
		}
		return
	}
	want, got := unmarshalBoth(info, data, prior)
	if (want.panic == nil) != (got.panic == nil) || (want.err == nil) != (got.err == nil) {
		t.Fatalf("%x as %s: error %v (panic %v), gocql's %v (panic %v)", data, info, got.err, got.panic, want.err, want.panic)
	}
	if want.err == nil && want.panic == nil && (!reflect.DeepEqual(got.v, want.v) || (got.v == nil) != (want.v == nil)) {
		t.Fatalf("%x as %s: %#v, gocql's %#v", data, info, got.v, want.v)
	}
}

// isTextList reports a list or set of text at protocol 3 or later, the
// types the reference reads itself.
func isTextList(info gocql.TypeInfo) bool {
	ci, ok := info.(gocql.CollectionType)
	return ok && (ci.Type() == gocql.TypeList || ci.Type() == gocql.TypeSet) && ci.Version() > 2 &&
		ci.Elem != nil && (ci.Elem.Type() == gocql.TypeVarchar || ci.Elem.Type() == gocql.TypeText || ci.Elem.Type() == gocql.TypeAscii || ci.Elem.Type() == gocql.TypeBlob)
}

// claimedCount is the element count at the start of data for a list or
// set type, with the protocol's size width.
func claimedCount(info gocql.TypeInfo, data []byte) (int, bool) {
	if info.Type() != gocql.TypeList && info.Type() != gocql.TypeSet {
		return 0, false
	}
	if info.Version() > 2 {
		if len(data) < 4 {
			return 0, false
		}
		return int(int32(binary.BigEndian.Uint32(data))), true
	}
	if len(data) < 2 {
		return 0, false
	}
	return int(binary.BigEndian.Uint16(data)), true
}

// TestTextListRefUnmarshalsAsGocql: textListRef reads into a *[]string
// exactly what gocql reads: well-formed lists (with null and empty
// elements, and bytes after the last one), null, an empty list, and
// malformed data, which fails as it does in gocql.
func TestTextListRefUnmarshalsAsGocql(t *testing.T) {
	infos := textListInfos()
	rapid.Check(t, func(t *rapid.T) {
		info := rapid.SampledFrom(infos).Draw(t, "info")
		prior := drawStrings(t, "prior")
		var data []byte
		switch rapid.IntRange(0, 3).Draw(t, "form") {
		case 0:
			data = nil
		case 1: // well formed
			elems := rapid.SliceOfN(rapid.OneOf(rapid.Just([]byte(nil)), rapid.SliceOf(rapid.Byte())), 0, 8).Draw(t, "elems")
			data = listBytes(len(elems), elems)
			data = append(data, rapid.SliceOfN(rapid.Byte(), 0, 3).Draw(t, "trailing")...)
		case 2: // cut short, or claiming more elements than it has
			elems := rapid.SliceOfN(rapid.SliceOf(rapid.Byte()), 0, 4).Draw(t, "elems")
			data = listBytes(len(elems)+rapid.IntRange(0, 2).Draw(t, "extra"), elems)
			data = data[:rapid.IntRange(0, len(data)).Draw(t, "cut")]
		default:
			data = rapid.SliceOfN(rapid.Byte(), 0, 24).Draw(t, "bytes")
		}
		checkUnmarshalSame(t, info, data, prior)
	})
}

// FuzzTextListUnmarshal: for any bytes, textListRef reads what gocql
// reads, or fails (or panics) as it does.
func FuzzTextListUnmarshal(f *testing.F) {
	f.Add([]byte{0, 0, 0, 2, 0, 0, 0, 1, 'a', 0xff, 0xff, 0xff, 0xff}, uint8(0))
	f.Add([]byte{0, 0, 0, 0}, uint8(1))
	f.Add([]byte{0, 0, 0, 3, 0, 0, 0, 5, 'a'}, uint8(4))
	infos := textListInfos()
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		checkUnmarshalSame(t, infos[int(which)%len(infos)], data, []string{"prior"})
	})
}

func TestTextListRefAllocations(t *testing.T) {
	info := textListInfos()[0]
	v := []string{"a", "bb", "", "ccc"}
	data, err := gocql.Marshal(info, v)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	target := scanRef(&got)
	if allocs := testing.AllocsPerRun(100, func() {
		if err := gocql.Unmarshal(info, data, target); err != nil {
			t.Fatal(err)
		}
	}); allocs != 2 {
		t.Errorf("a list of 4 texts reads in %v allocations, want 2 (the slice and the shared string)", allocs)
	}
	if !reflect.DeepEqual(got, v) {
		t.Fatalf("read %q, want %q", got, v)
	}
}

// TestRefUnmarshalsAsGocql: scanning a column into a field through its
// reference (scanRef) leaves the field exactly as gocql.Unmarshal into the
// field's address does (but for an empty blob, []byte{} where gocql gives
// nil), for any bytes (null, empty, the right length and
// wrong ones) of any type, from any prior value, and fails exactly when
// gocql does.
func TestRefUnmarshalsAsGocql(t *testing.T) {
	// Per kind: the CQL types its reference decodes itself and the length
	// of their values, drawn half of the time (any type and length else).
	own := []struct {
		types []gocql.Type
		n     int
	}{
		{[]gocql.Type{gocql.TypeVarchar, gocql.TypeText, gocql.TypeAscii, gocql.TypeBlob}, 5},
		{[]gocql.Type{gocql.TypeBlob}, 5},
		{[]gocql.Type{gocql.TypeInt}, 4},
		{[]gocql.Type{gocql.TypeBigInt, gocql.TypeCounter, gocql.TypeTimestamp}, 8},
		{[]gocql.Type{gocql.TypeBigInt, gocql.TypeCounter, gocql.TypeInt}, 8},
		{[]gocql.Type{gocql.TypeDouble}, 8},
		{[]gocql.Type{gocql.TypeBoolean}, 1},
		{[]gocql.Type{gocql.TypeUUID, gocql.TypeTimeUUID}, 16},
	}
	rapid.Check(t, func(t *rapid.T) {
		kind := rapid.IntRange(0, len(own)-1).Draw(t, "kind")
		typ, n := rapid.SampledFrom(refTypes).Draw(t, "any type"), rapid.IntRange(0, 20).Draw(t, "any len")
		if rapid.Bool().Draw(t, "own type") || kind == 1 { // a []byte is a BLOB: the value rules' wire type
			typ = rapid.SampledFrom(own[kind].types).Draw(t, "type")
		}
		if rapid.Bool().Draw(t, "own len") {
			n = own[kind].n
			if typ == gocql.TypeInt {
				n = 4
			}
		}
		info := nativeType(4, typ)
		var data []byte
		if rapid.IntRange(0, 5).Draw(t, "null") != 0 {
			data = rapid.SliceOfN(rapid.Byte(), n, n).Draw(t, "data")
		}
		var want, got any
		switch kind {
		case 0:
			want, got = pair(rapid.String().Draw(t, "prior"))
		case 1:
			b := rapid.SliceOfN(rapid.Byte(), 0, 8).Draw(t, "prior")
			if rapid.Bool().Draw(t, "prior nil") {
				b = nil
			}
			want, got = ptrTo(slices.Clone(b)), ptrTo(slices.Clone(b))
		case 2:
			want, got = pair(rapid.Int32().Draw(t, "prior"))
		case 3:
			want, got = pair(rapid.Int64().Draw(t, "prior"))
		case 4:
			want, got = pair(rapid.Int().Draw(t, "prior"))
		case 5:
			want, got = pair(rapid.Float64().Draw(t, "prior"))
		case 6:
			want, got = pair(rapid.Bool().Draw(t, "prior"))
		case 7:
			var v gocql.UUID
			copy(v[:], rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "prior"))
			want, got = pair(v)
		}
		r := scanRef(got)
		if _, ok := r.(gocql.Unmarshaler); !ok {
			t.Fatalf("scanRef(%T) is %T, not a gocql.Unmarshaler", got, r)
		}
		wpanic, werr := unmarshalCatching(info, data, want)
		gpanic, gerr := unmarshalCatching(info, data, r)
		if (werr == nil) != (gerr == nil) || (wpanic == nil) != (gpanic == nil) {
			t.Fatalf("%x as %s into %T: error %v (panic %v), gocql's %v (panic %v)", data, info, got, gerr, gpanic, werr, wpanic)
		}
		if wpanic != nil {
			return // gocql panics on this input (a DATE of the wrong length): so does the fallback
		}
		if b, ok := got.(*[]byte); ok && data != nil && len(data) == 0 {
			// The one deliberate difference (docs/types.md, "Values at
			// the edges"): an empty value is an empty slice, not nil.
			if *b == nil || len(*b) != 0 {
				t.Fatalf("an empty %s value read as %#v, want []byte{}", info, *b)
			}
			return
		}
		w, g := reflect.ValueOf(want).Elem().Interface(), reflect.ValueOf(got).Elem().Interface()
		if wf, ok := w.(float64); ok { // NaN: compare the bits
			w, g = math.Float64bits(wf), math.Float64bits(g.(float64))
		}
		if wb, ok := w.([]byte); ok && (wb == nil) != (g.([]byte) == nil) {
			t.Fatalf("%x as %s: %#v, gocql's %#v", data, info, g, w)
		}
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("%x as %s into %T: %#v, gocql's %#v", data, info, got, g, w)
		}
	})
}

func ptrTo[V any](v V) *V { return &v }

// pair is two pointers to copies of v.
func pair[V any](v V) (any, any) { return ptrTo(v), ptrTo(v) }

// unmarshalCatching is gocql.Unmarshal, with a panic as an outcome.
func unmarshalCatching(info gocql.TypeInfo, data []byte, dst any) (p any, err error) {
	defer func() { p = recover() }()
	return nil, gocql.Unmarshal(info, data, dst)
}

// TestConditionalNeedsASerialLevel: a conditional statement at a serial
// consistency other than SERIAL and LOCAL_SERIAL is refused before
// anything is sent (ScyllaDB's fork of gocql would panic on it), so
// without a session.
func TestConditionalNeedsASerialLevel(t *testing.T) {
	fields := []reflect.StructField{{Name: "ID", Type: reflect.TypeFor[string]()}, {Name: "V", Type: reflect.TypeFor[string]()}}
	ts, err := dynamic.Build(dynamic.Spec{Type: reflect.StructOf(fields), Table: "t", MarkerField: -1,
		Binds: []dynamic.Bind{{Field: 0, Options: []any{kandra.PartitionKey(0)}}}})
	if err != nil {
		t.Fatal(err)
	}
	sts, err := catalog.Build(ts.(*kandra.TableSchema), "ks")
	if err != nil {
		t.Fatal(err)
	}
	st := sts.InsertIfNotExists(0)
	if !st.IsConditional() {
		t.Fatalf("%s is not conditional", st)
	}
	d := &Driver{} // no session: nothing may reach gocql
	for _, c := range []kandra.Consistency{kandra.ConsistencyAny, kandra.ConsistencyQuorum, kandra.ConsistencyLocalOne} {
		_, err := d.Exec(context.Background(), &adapter.Query{Statement: st, Consistency: kandra.ConsistencyQuorum, SerialConsistency: c})
		if !errors.Is(err, kerrors.ErrArgument) {
			t.Errorf("serial consistency %s: %v, want an ErrArgument", c, err)
		}
	}
}

// TestTextSetAsSorted: a set of text or ascii held in a map[string]struct{}
// is bound without reflect, as its sorted elements, to the bytes the
// general SortedValue marshals (the server's order, each element once),
// by value and by reference; nil stays null. So is a *cqlvalue.TextSet
// of its elements (kstore's Add and Remove). Marshalling it allocates
// only the bytes (gocql's own list of a []string boxes and copies each
// element).
func TestTextSetAsSorted(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 5))
	for _, cql := range []string{"SET<TEXT>", "FROZEN<SET<TEXT>>", "SET<ASCII>"} {
		ct, err := kandra.ParseCQLType(cql)
		if err != nil {
			t.Fatal(err)
		}
		info := setOf(gocql.TypeVarchar)
		c := codecOf(t, reflect.TypeFor[map[string]struct{}](), cql)
		for range 500 {
			var set map[string]struct{}
			if r.IntN(10) > 0 {
				set = map[string]struct{}{}
				for range r.IntN(8) {
					b := make([]byte, r.IntN(5)) // shared prefixes, bytes past 0x7f
					for i := range b {
						b[i] = byte(r.Uint32())
					}
					set[string(b)] = struct{}{}
				}
			}
			sorted, err := Sorted(ct, set)
			if err != nil {
				t.Fatal(err)
			}
			want, err := gocql.Marshal(info, sorted)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range []any{c.BindValues([]any{&set})[0], c.AppendBindRefs(nil, []any{&set})[0]} {
				if _, general := v.(SortedValue); general != (set == nil) {
					t.Fatalf("%s %q bound as %T", cql, set, v)
				}
				if got, err := gocql.Marshal(info, v); err != nil || !bytes.Equal(got, want) || (got == nil) != (set == nil) {
					t.Fatalf("%s %q: %x %v, the general path's %x", cql, set, got, err, want)
				}
			}
			if set == nil {
				continue
			}
			// kstore's Add and Remove bind the elements given, in any
			// order and repeated, as a TextSet: the same bytes.
			given := slices.Collect(maps.Keys(set))
			given = append(given, given...)
			ts := cqlvalue.NewTextSet(given)
			for _, v := range []any{c.BindValues([]any{&ts})[0], c.AppendBindRefs(nil, []any{&ts})[0]} {
				if got, err := gocql.Marshal(info, v); err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%s %q as a TextSet (%T): %x %v, the general path's %x", cql, given, v, got, err, want)
				}
			}
		}
	}
	set := map[string]struct{}{"b": {}, "a": {}, "c": {}}
	v := codecOf(t, reflect.TypeFor[map[string]struct{}](), "SET<TEXT>").AppendBindRefs(nil, []any{&set})[0]
	info := setOf(gocql.TypeVarchar)
	if n := testing.AllocsPerRun(100, func() { _, _ = gocql.Marshal(info, v) }); n != 1 {
		t.Errorf("marshalling a bound set of 3 strings allocates %v times, want 1 (its bytes)", n)
	}
}

// TestNullableRefsAsGocql: a pointer field of a plain native type (a
// nullable column) is bound, by reference and by value, as null when nil
// and as its value's reference or copy otherwise, never as the field's
// address for gocql to dereference twice; gocql marshals that to the
// bytes it gives the address, into every CQL type, failing as it does.
func TestNullableRefsAsGocql(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 7))
	draws := []struct {
		cql  string
		draw func() any
	}{
		{"TEXT", func() any { return string(rune(r.IntN(0x3000))) + "x" }},
		{"INT", func() any { return int32(r.Uint32()) }},
		{"BIGINT", func() any { return int64(r.Uint64()) }},
		{"BIGINT", func() any { return int(r.Uint64()) }},
		{"DOUBLE", func() any { return math.Float64frombits(r.Uint64()) }},
		{"BOOLEAN", func() any { return r.IntN(2) == 0 }},
	}
	for _, c := range draws {
		for range 200 {
			v := c.draw()
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
				info := nativeType(4, refTypes[r.IntN(len(refTypes))])
				got, gerr := gocql.Marshal(info, bound)
				want, werr := gocql.Marshal(info, field.Interface())
				if (gerr == nil) != (werr == nil) || !bytes.Equal(got, want) || (got == nil) != (want == nil) {
					t.Fatalf("%s %v into %s: %x %v, gocql's %x %v", pt, v, info, got, gerr, want, werr)
				}
			}
		}
	}
}
