package integration

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/gocql/gocql"
	"github.com/google/uuid"
	"pgregory.net/rapid"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/internal/dynamic"
)

// valueCase is one supported Go type (with a CQL override where the
// mapping table offers one). Each gets its own table: id TEXT partition
// key, k of the type as a clustering key when keys may hold it, v of the
// type as a regular column.
type valueCase struct {
	name string
	typ  reflect.Type
	as   kandra.CQLType // zero: kandra derives it
	key  bool
}

func vc[V any](as kandra.CQLType, key bool) valueCase {
	t := reflect.TypeFor[V]()
	name := t.String()
	if !as.IsZero() {
		name += " as " + as.String()
	}
	return valueCase{name: name, typ: t, as: as, key: key}
}

var none kandra.CQLType

// valueCases is DESIGN.md's mapping table, type by type, plus its
// overrides (DATE, TIME, TIMEUUID, ASCII, BIGINT for an unsigned, DECIMAL
// through CQLTyper), pointers, and nested collections.
var valueCases = []valueCase{
	vc[string](none, true),
	vc[Status](none, true),
	vc[string](kandra.CQLAscii, true),
	vc[bool](none, true),
	vc[Flag](none, true),
	vc[int8](none, true),
	vc[int16](none, true),
	vc[Level](none, true),
	vc[int32](none, true),
	vc[int](none, true),
	vc[int64](none, true),
	vc[uint32](kandra.CQLBigint, true),
	vc[float32](none, true),
	vc[float64](none, true),
	vc[[]byte](none, true),
	vc[time.Time](none, true),
	vc[time.Time](kandra.CQLDate, true),
	vc[time.Duration](none, false),
	vc[time.Duration](kandra.CQLTime, true),
	vc[uuid.UUID](none, true),
	vc[uuid.UUID](kandra.CQLTimeUUID, true),
	vc[net.IP](none, true),
	vc[netip.Addr](none, true),
	vc[*big.Int](none, true),
	vc[Money](none, true),
	vc[*string](none, false),
	vc[*int64](none, false),
	vc[*time.Time](none, false),
	vc[*uuid.UUID](none, false),
	vc[*netip.Addr](none, false),
	vc[*time.Duration](none, false),
	vc[[]string](none, true),
	vc[[]uuid.UUID](none, true),
	vc[[]net.IP](none, true),
	vc[[]time.Time](none, true),
	vc[[]time.Time](kandra.ListOf(kandra.CQLDate), true),
	vc[[]time.Duration](none, false),
	vc[map[string]struct{}](none, true),
	vc[map[uuid.UUID]struct{}](none, true),
	vc[map[int64]struct{}](none, true),
	vc[map[netip.Addr]struct{}](none, true),
	vc[map[string]int32](none, true),
	vc[map[uuid.UUID]string](none, true),
	vc[map[string]time.Duration](none, false),
	vc[[][]int32](none, true),
	vc[map[string][]string](none, true),
	vc[[]map[string]uuid.UUID](none, true),
	vc[map[string]map[int64]struct{}](none, true),
	// Named types of the special types (issue 10, finding 15): mapped as
	// the special type, converted by Codec.
	vc[UserID](none, true),
	vc[UserID](kandra.CQLTimeUUID, true),
	vc[At](none, true),
	vc[At](kandra.CQLDate, true),
	vc[IPAddr](none, true),
	vc[*UserID](none, false),
	vc[[]UserID](none, true),
	vc[map[UserID]At](none, true),
	// User-defined types (entities_test.go): as a column of its own (not
	// frozen), in a key and in collections (frozen), nested, with null
	// fields, and with every native type kandra maps inside one.
	vc[Leg](none, true),
	vc[Place](none, true),
	vc[*Place](none, false),
	vc[Parcel](none, true),
	vc[[]Place](none, true),
	vc[map[string]Leg](none, true),
	vc[map[Leg]struct{}](none, true),
	vc[map[Leg]int32](none, true),
	vc[UDTNatives](none, false),
	vc[[]UDTNatives](none, false),
}

// TestValues: for every supported Go type, random values written through
// gocql with kandra's per-row accessors (TableSchema.Pointers, adapted by
// Codec; the INSERT and SELECT column lists come from Schema().Columns())
// read back equal into a fresh entity. Normalisations, all documented:
// timestamps keep milliseconds; nil and empty collections and blobs are
// the same value to Cassandra; an IPv4 address comes back in its 4-byte
// form; NaN equals NaN.
func TestValues(t *testing.T) {
	s := session(t)

	type built struct {
		c     valueCase
		ts    *kandra.TableSchema
		codec *kgocql.Codec
	}
	pairs, extra := overridePairs(t)
	all := append(append([]valueCase(nil), valueCases...), extra...)
	cases := make([]built, len(all))
	for i, c := range all {
		ts, err := buildValueTable(i, c)
		if err != nil {
			t.Fatalf("%s: kandra rejects a supported type: %v", c.name, err)
		}
		codec, err := kgocql.NewCodec(ts.Columns())
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		cases[i] = built{c, ts, codec}
	}
	sources := make([]kandra.SchemaSource, len(cases))
	for i := range cases {
		sources[i] = cases[i].ts
	}
	// DDL four at a time within each group: the schema changes are the
	// slow part.
	k := buildKeyspace(t, "values", sources...)
	ks := k.Name()
	errs := createKeyspace(t, s, k, 4)

	ok := 0
	passedCase := map[string]bool{}
	var needConversion, direct []string
	for i, b := range cases {
		if errs[i] != nil {
			t.Errorf("%s: the server rejected kandra's DDL: %v", b.c.name, errs[i])
			continue
		}
		passed := t.Run(strings.NewReplacer("/", "_", " ", "_").Replace(b.c.name), func(t *testing.T) {
			// What gocql v1.7.0 does with kandra's raw addresses.
			if probe := directProbe(s, ks, b.ts, b.c); probe != "" {
				needConversion = append(needConversion, b.c.name+" ("+probe+")")
				if !converted(b.codec, b.ts.NumColumns()) {
					t.Errorf("gocql cannot take %s unconverted (%s), but Codec does not convert it", b.c.name, probe)
				}
			} else {
				direct = append(direct, b.c.name)
				if converted(b.codec, b.ts.NumColumns()) && !underValueRules(b.ts) {
					t.Errorf("gocql takes %s unconverted, but Codec converts it: update Codec and its documentation", b.c.name)
				}
			}
			rapid.Check(t, func(rt *rapid.T) { roundTrip(rt, s, ks, b.ts, b.codec, b.c) })
		})
		if passed {
			ok++
			passedCase[b.c.name] = true
		}
	}
	t.Logf("gocql v1.7.0 binds and scans these unconverted: %s", strings.Join(direct, ", "))
	t.Logf("gocql v1.7.0 needs Codec's conversion for: %s", strings.Join(needConversion, "; "))
	summary("values", fmt.Sprintf("real-server: value types=%d ok=%d", len(cases), ok))
	pairsOK := 0
	for _, p := range pairs {
		if passedCase[p.roundTrip] {
			pairsOK++
		} else {
			t.Errorf("AsType pair %s: its round trip (%s) did not pass", p.name, p.roundTrip)
		}
	}
	t.Logf("AsType pairs of kandra.NativeOverrides, each round-tripped through its case: %d", len(pairs))
	summary("overrides", fmt.Sprintf("real-server: overrides pairs=%d ok=%d", len(pairs), pairsOK))
}

// underValueRules reports a table with a column whose Go type holds a
// type kandra encodes by its own value rules (docs/types.md, "Values at
// the edges") even where gocql would take it: times, blobs, inet
// addresses, a time.Duration in a TIME, an integer in a wider type.
func underValueRules(ts *kandra.TableSchema) bool {
	var holds func(t reflect.Type) bool
	holds = func(t reflect.Type) bool {
		switch t.Kind() {
		case reflect.Pointer:
			return holds(t.Elem())
		case reflect.Slice:
			return t.Elem().Kind() == reflect.Uint8 || t == reflect.TypeFor[net.IP]() || holds(t.Elem())
		case reflect.Map:
			return holds(t.Key()) || holds(t.Elem())
		case reflect.Struct:
			return t.ConvertibleTo(reflect.TypeFor[time.Time]()) || t.ConvertibleTo(reflect.TypeFor[netip.Addr]())
		}
		return false
	}
	// An integer field stored in a wider CQL integer type: read through
	// kandra's range check, so that a stored value the field cannot hold
	// names the column.
	own := map[reflect.Kind]string{reflect.Int8: "TINYINT", reflect.Int16: "SMALLINT", reflect.Int32: "INT", reflect.Int64: "BIGINT", reflect.Int: "BIGINT"}
	for _, c := range ts.Columns() {
		if holds(c.GoType()) || strings.Contains(c.Type().String(), "TIME") || holdsUDT(c.Type()) {
			return true
		}
		if name, ok := own[c.GoType().Kind()]; ok && c.Type().Kind() == kandra.KindNative && c.Type().Name() != name {
			return true
		}
	}
	return false
}

// holdsUDT reports a type that is or holds a user-defined type: kandra
// encodes those itself, matching fields by the names kandra gives them
// (gocql matches a struct's fields by their lower-cased Go names or cql
// tags) under its value rules.
func holdsUDT(t kandra.CQLType) bool {
	switch t.Kind() {
	case kandra.KindUDT:
		return true
	case kandra.KindMap:
		return holdsUDT(t.Key()) || holdsUDT(t.Elem())
	case kandra.KindList, kandra.KindSet:
		return holdsUDT(t.Elem())
	}
	return false
}

func converted(c *kgocql.Codec, columns int) bool {
	for i := 0; i < columns; i++ {
		if c.Converted(i) {
			return true
		}
	}
	return false
}

// overrideBases are the Go types whose derived CQL type is native: every
// pair kandra.NativeOverrides allows for them is round-tripped.
var overrideBases = []reflect.Type{
	reflect.TypeFor[string](), reflect.TypeFor[bool](), reflect.TypeFor[int8](), reflect.TypeFor[int16](),
	reflect.TypeFor[int32](), reflect.TypeFor[int](), reflect.TypeFor[int64](), reflect.TypeFor[float32](),
	reflect.TypeFor[float64](), reflect.TypeFor[[]byte](), reflect.TypeFor[time.Time](), reflect.TypeFor[time.Duration](),
	reflect.TypeFor[uuid.UUID](), reflect.TypeFor[net.IP](), reflect.TypeFor[netip.Addr](), reflect.TypeFor[*big.Int](),
}

// overrideCollections are collection overrides (same kind, element
// types allowed for the Go element types), a few of each kind.
var overrideCollections = []valueCase{
	vc[[]int16](kandra.ListOf(kandra.CQLVarint), true),
	vc[[]time.Duration](kandra.ListOf(kandra.CQLTime), true),
	vc[map[time.Time]struct{}](kandra.SetOf(kandra.CQLDate), true),
	vc[map[string]int8](kandra.MapOf(kandra.CQLAscii, kandra.CQLBigint), true),
	vc[map[uuid.UUID][]int32](kandra.MapOf(kandra.CQLTimeUUID, kandra.ListOf(kandra.CQLVarint)), true),
}

// overridePair is one allowed AsType pair and the value case whose round
// trip proves it: the derived type's own case (valueCases) for the pair of
// a type with itself, whose DDL is the same; its own case otherwise.
type overridePair struct {
	name      string
	roundTrip string
}

// overridePairs lists every pair kandra.NativeOverrides allows for the
// overrideBases (and the overrideCollections), checks that Register takes
// each and renders the override, and returns the value cases still
// missing from valueCases.
func overridePairs(t *testing.T) ([]overridePair, []valueCase) {
	t.Helper()
	have := map[string]bool{}
	for _, c := range valueCases {
		have[c.name] = true
	}
	var pairs []overridePair
	var extra []valueCase
	add := func(c valueCase, pair string) {
		pairs = append(pairs, overridePair{pair, c.name})
		if !have[c.name] {
			have[c.name] = true
			extra = append(extra, c)
		}
	}
	for _, typ := range overrideBases {
		derived, err := derivedType(typ)
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		overrides := kandra.NativeOverrides(derived)
		if len(overrides) == 0 || !overrides[0].Equal(derived) {
			t.Fatalf("NativeOverrides(%s) = %v: the derived type is not first", derived, overrides)
		}
		for _, o := range overrides {
			pair := fmt.Sprintf("%s (%s) as %s", typ, derived, o)
			c := valueCase{name: typ.String(), typ: typ, key: o.Name() != "DURATION"}
			if !o.Equal(derived) {
				c.name, c.as = typ.String()+" as "+o.String(), o
			}
			// Register takes the pair and the column is of the override.
			ts, err := buildValueTable(0, valueCase{name: c.name, typ: typ, as: o})
			if err != nil {
				t.Errorf("AsType pair %s: kandra refuses an allowed pair: %v", pair, err)
				continue
			}
			if got := ts.Columns()[len(ts.Columns())-1].Type(); !got.Equal(o) {
				t.Errorf("AsType pair %s: the column is %s", pair, got)
			}
			add(c, pair)
		}
	}
	for _, c := range overrideCollections {
		add(c, c.name)
	}
	return pairs, extra
}

// derivedType is the CQL type kandra derives for a column of Go type typ.
func derivedType(typ reflect.Type) (kandra.CQLType, error) {
	ts, err := buildValueTable(0, valueCase{name: typ.String(), typ: typ})
	if err != nil {
		return kandra.CQLType{}, err
	}
	return ts.Columns()[len(ts.Columns())-1].Type(), nil
}

// buildValueTable builds the case's table from a run-time struct type
// through the builder Register uses. Build, not Register: several cases
// share a struct type (string as TEXT and as ASCII, ...), and the per-type
// cache would hand the second the first's schema.
func buildValueTable(i int, c valueCase) (*kandra.TableSchema, error) {
	fields := []reflect.StructField{{Name: "ID", Type: reflect.TypeFor[string]()}}
	if c.key {
		fields = append(fields, reflect.StructField{Name: "K", Type: c.typ})
	}
	fields = append(fields, reflect.StructField{Name: "V", Type: c.typ})
	typ := reflect.StructOf(fields)
	sp := dynamic.Spec{Type: typ, Table: fmt.Sprintf("v%02d", i), MarkerField: -1,
		Binds: []dynamic.Bind{{Field: 0, Options: []any{kandra.PartitionKey(0)}}}}
	for f := 1; f < len(fields); f++ {
		var opts []any
		if fields[f].Name == "K" {
			opts = append(opts, kandra.ClusteringKey(0, kandra.ClusteringAsc))
		}
		if !c.as.IsZero() {
			opts = append(opts, kandra.AsType(c.as))
		}
		if len(opts) > 0 {
			sp.Binds = append(sp.Binds, dynamic.Bind{Field: f, Options: opts})
		}
	}
	ts, err := dynamic.Build(sp)
	if err != nil {
		return nil, err
	}
	return ts.(*kandra.TableSchema), nil
}

// roundTrip writes one random row and reads it back.
func roundTrip(rt *rapid.T, s *gocql.Session, ks string, ts *kandra.TableSchema, codec *kgocql.Codec, c valueCase) {
	cols := ts.Columns()
	in := reflect.New(ts.EntityType())
	in.Elem().Field(0).SetString(uuid.NewString())
	for _, col := range cols[1:] {
		n, err := nodeOf(col.Type())
		if err != nil {
			rt.Fatal(err)
		}
		key := col.Role() != kandra.RegularColumn
		v := rapid.Custom(func(t *rapid.T) reflect.Value { return genValue(t, col.GoType(), n, key) }).Draw(rt, col.Name())
		fieldOf(rt, col, in).Set(v)
	}
	ptrs := pointersOf(ts, in.Interface())
	bind := codec.BindValues(ptrs)
	if err := s.Query(insertStmt(ks, ts), bind...).Exec(); err != nil {
		rt.Fatalf("INSERT: %v", err)
	}
	out := reflect.New(ts.EntityType())
	outPtrs := pointersOf(ts, out.Interface())
	targets, finish := codec.ScanTargets(outPtrs)
	if err := s.Query(selectStmt(ks, ts), bind[:len(ts.PrimaryKey())]...).Scan(targets...); err != nil {
		rt.Fatalf("SELECT: %v", err)
	}
	if err := finish(); err != nil {
		rt.Fatalf("converting back: %v", err)
	}
	for _, col := range cols {
		n, _ := nodeOf(col.Type())
		want, got := fieldOf(rt, col, in), fieldOf(rt, col, out)
		if why := sameValue(want, got, n); why != "" {
			rt.Fatalf("column %s (%s as %s): wrote %#v, read %#v: %s", col.Name(), col.GoType(), col.Decl(), want.Interface(), got.Interface(), why)
		}
	}
}

// fieldOf is col's field in entity (a pointer), through ColumnSchema.Pointer,
// the accessor a runtime holding only a TableSchema uses.
func fieldOf(t interface{ Fatalf(string, ...any) }, col *kandra.ColumnSchema, entity reflect.Value) reflect.Value {
	p, err := col.Pointer(entity.Interface())
	if err != nil {
		t.Fatalf("%s.Pointer: %v", col.Name(), err)
	}
	return reflect.ValueOf(p).Elem()
}

// directProbe writes and reads two rows with kandra's raw addresses, no
// Codec: one with non-zero values, one with zero values (nulls) in its
// regular column, and says what gocql v1.7.0 rejected ("" = nothing).
func directProbe(s *gocql.Session, ks string, ts *kandra.TableSchema, c valueCase) string {
	var problems []string
	for _, zero := range []bool{false, true} {
		in := reflect.New(ts.EntityType())
		in.Elem().Field(0).SetString(uuid.NewString())
		for _, col := range ts.Columns()[1:] {
			if zero && col.Role() == kandra.RegularColumn {
				continue
			}
			n, _ := nodeOf(col.Type())
			g := rapid.Custom(func(t *rapid.T) reflect.Value { return genValue(t, col.GoType(), n, true) })
			for seed := 0; seed < 50; seed++ {
				v := g.Example(seed)
				if !v.IsZero() && (v.Kind() != reflect.Map && v.Kind() != reflect.Slice || v.Len() > 0) {
					p, _ := col.Pointer(in.Interface())
					reflect.ValueOf(p).Elem().Set(v)
					break
				}
			}
		}
		what := "non-zero"
		if zero {
			what = "zero"
		}
		ptrs := pointersOf(ts, in.Interface())
		codec, _ := kgocql.NewCodec(ts.Columns())
		if err := s.Query(insertStmt(ks, ts), ptrs...).Exec(); err != nil {
			problems = append(problems, "bind "+what+": "+err.Error())
			// Write it through the Codec so the read can be probed.
			if err2 := s.Query(insertStmt(ks, ts), codec.BindValues(ptrs)...).Exec(); err2 != nil {
				return strings.Join(problems, "; ") + "; even converted: " + err2.Error()
			}
		}
		key := codec.BindValues(ptrs)[:len(ts.PrimaryKey())]
		out := reflect.New(ts.EntityType())
		outPtrs := pointersOf(ts, out.Interface())
		if err := s.Query(selectStmt(ks, ts), key...).Scan(outPtrs...); err != nil {
			problems = append(problems, "scan "+what+": "+err.Error())
		}
	}
	return strings.Join(problems, "; ")
}

// ---------------------------------------------------------------------------
// Generators, by Go type and CQL type.

func genValue(t *rapid.T, typ reflect.Type, n cqlNode, key bool) reflect.Value {
	if base, ok := drawBase(typ); ok {
		return genValue(t, base, n, key).Convert(typ) // type UserID uuid.UUID, type At time.Time, [16]byte
	}
	v := reflect.New(typ).Elem()
	switch {
	case typ == reflect.TypeFor[time.Time]():
		v.Set(reflect.ValueOf(genTime(t, n.Name, key)))
		return v
	case typ == reflect.TypeFor[time.Duration]():
		if n.Name == "time" {
			v.SetInt(rapid.Int64Range(0, int64(24*time.Hour)-1).Draw(t, "time"))
		} else {
			v.SetInt(rapid.Int64().Draw(t, "duration"))
		}
		return v
	case typ == typeUUID:
		var u uuid.UUID
		if !key && n.Name == "timeuuid" && rapid.IntRange(0, 9).Draw(t, "zerouuid") == 0 {
			return v // the zero UUID: null in a TIMEUUID (see Codec)
		}
		if n.Name == "timeuuid" {
			// A timeuuid must be version 1; build one from random fields.
			b := rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "uuid1")
			copy(u[:], b)
			u[6] = u[6]&0x0f | 0x10
			u[8] = u[8]&0x3f | 0x80
		} else {
			copy(u[:], rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "uuid"))
		}
		v.Set(reflect.ValueOf(u))
		return v
	case typ == reflect.TypeFor[net.IP]():
		if !key && rapid.IntRange(0, 9).Draw(t, "nilip") == 0 {
			return v
		}
		if rapid.Bool().Draw(t, "v4") {
			v.Set(reflect.ValueOf(net.IP(rapid.SliceOfN(rapid.Byte(), 4, 4).Draw(t, "ip4"))))
		} else {
			v.Set(reflect.ValueOf(net.IP(rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "ip6"))))
		}
		return v
	case typ == typeAddr:
		if !key && rapid.IntRange(0, 9).Draw(t, "zeroaddr") == 0 {
			return v
		}
		if rapid.Bool().Draw(t, "v4") {
			v.Set(reflect.ValueOf(netip.AddrFrom4([4]byte(rapid.SliceOfN(rapid.Byte(), 4, 4).Draw(t, "a4")))))
		} else {
			a := netip.AddrFrom16([16]byte(rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "a6")))
			if a.Is4In6() {
				a = a.Unmap() // an IPv4-mapped address is sent as IPv4 by gocql
			}
			v.Set(reflect.ValueOf(a))
		}
		return v
	case typ == reflect.TypeFor[*big.Int]():
		if !key && rapid.IntRange(0, 9).Draw(t, "nilbig") == 0 {
			return v
		}
		b := new(big.Int).SetBytes(rapid.SliceOfN(rapid.Byte(), 0, 24).Draw(t, "bigbytes"))
		if rapid.Bool().Draw(t, "neg") {
			b.Neg(b)
		}
		v.Set(reflect.ValueOf(b))
		return v
	case typ == reflect.TypeFor[Money]():
		v.Set(reflect.ValueOf(Money{Units: rapid.Int64().Draw(t, "units"), Scale: rapid.Int32().Draw(t, "scale")}))
		return v
	}
	if n.Name == "udt" && typ.Kind() == reflect.Struct {
		// A user-defined type: each field drawn for its own type, the
		// fields in struct order (those tagged kandra:"-" are not stored).
		j := 0
		for i := range typ.NumField() {
			if typ.Field(i).Tag.Get(kandra.UDTTag) == "-" {
				continue
			}
			v.Field(i).Set(genValue(t, typ.Field(i).Type, n.Args[j], key))
			j++
		}
		return v
	}
	if typ.Kind() == reflect.Array && typ.Elem().Kind() == reflect.Float32 {
		// A vector: any float32, NaN payloads and infinities included
		// (no ANN index in these tables).
		for i := range typ.Len() {
			v.Index(i).SetFloat(float64(math.Float32frombits(rapid.Uint32().Draw(t, "component"))))
		}
		return v
	}
	switch typ.Kind() {
	case reflect.String:
		if n.Name == "ascii" {
			v.SetString(rapid.StringOf(rapid.RuneFrom(nil, asciiTable)).Draw(t, "ascii"))
		} else {
			v.SetString(rapid.String().Draw(t, "text"))
		}
	case reflect.Bool:
		v.SetBool(rapid.Bool().Draw(t, "bool"))
	case reflect.Int8:
		v.SetInt(int64(rapid.Int8().Draw(t, "i8")))
	case reflect.Int16:
		v.SetInt(int64(rapid.Int16().Draw(t, "i16")))
	case reflect.Int32:
		v.SetInt(int64(rapid.Int32().Draw(t, "i32")))
	case reflect.Int, reflect.Int64:
		v.SetInt(rapid.Int64().Draw(t, "i64"))
	case reflect.Uint32:
		v.SetUint(uint64(rapid.Uint32().Draw(t, "u32")))
	case reflect.Float32:
		v.SetFloat(float64(rapid.Float32().Draw(t, "f32")))
	case reflect.Float64:
		v.SetFloat(rapid.Float64().Draw(t, "f64"))
	case reflect.Pointer:
		if rapid.IntRange(0, 3).Draw(t, "nil") == 0 {
			return v
		}
		p := reflect.New(typ.Elem())
		p.Elem().Set(genValue(t, typ.Elem(), n, key))
		v.Set(p)
	case reflect.Slice:
		if typ.Elem().Kind() == reflect.Uint8 { // blob
			if !key && rapid.IntRange(0, 9).Draw(t, "nilblob") == 0 {
				return v
			}
			v.SetBytes(rapid.SliceOfN(rapid.Byte(), 0, 40).Draw(t, "blob"))
			return v
		}
		if !key && rapid.IntRange(0, 5).Draw(t, "nillist") == 0 {
			return v
		}
		l := rapid.IntRange(0, 4).Draw(t, "len")
		v.Set(reflect.MakeSlice(typ, l, l))
		for i := 0; i < l; i++ {
			v.Index(i).Set(genValue(t, typ.Elem(), n.Args[0], true))
		}
	case reflect.Map:
		if !key && rapid.IntRange(0, 5).Draw(t, "nilmap") == 0 {
			return v
		}
		l := rapid.IntRange(0, 4).Draw(t, "len")
		v.Set(reflect.MakeMap(typ))
		for i := 0; i < l; i++ {
			// A TIMESTAMP keeps milliseconds: a key drawn with finer noise
			// could collide with another once the server truncates it.
			k := truncTimes(genValue(t, typ.Key(), n.Args[0], true))
			var e reflect.Value
			if isSetElem(typ.Elem()) {
				e = reflect.Zero(typ.Elem())
			} else {
				e = genValue(t, typ.Elem(), n.Args[1], true)
			}
			v.SetMapIndex(k, e)
		}
	default:
		t.Fatalf("no generator for %s", typ)
	}
	return v
}

// drawBase is the type values of typ are drawn and compared as: the
// special type of a named one (specialBase), uuid.UUID for every other
// 16-byte array type ([16]byte, gocql.UUID).
func drawBase(typ reflect.Type) (reflect.Type, bool) {
	if base, ok := specialBase(typ); ok {
		return base, true
	}
	if typ != typeUUID && typ.Kind() == reflect.Array && typ.Len() == 16 && typ.Elem().Kind() == reflect.Uint8 {
		return typeUUID, true
	}
	return nil, false
}

// truncTimes drops what a TIMESTAMP cannot hold from a time value (or a
// named time type); other values are returned as they are.
func truncTimes(v reflect.Value) reflect.Value {
	if base, ok := drawBase(v.Type()); ok && base == typeTime {
		return reflect.ValueOf(v.Convert(typeTime).Interface().(time.Time).Truncate(time.Millisecond)).Convert(v.Type())
	}
	if v.Type() == typeTime {
		return reflect.ValueOf(v.Interface().(time.Time).Truncate(time.Millisecond))
	}
	return v
}

var asciiTable = &unicode.RangeTable{R16: []unicode.Range16{{Lo: 0, Hi: 127, Stride: 1}}}

// genTime draws a TIMESTAMP (any millisecond between years 1000 and 3000,
// with sub-millisecond noise that must be dropped) or a DATE (midnight UTC;
// gocql v1.7.0 divides pre-1970 instants by a day rounding toward zero, so
// a DATE is passed as midnight UTC).
func genTime(t *rapid.T, cql string, key bool) time.Time {
	if !key && rapid.IntRange(0, 9).Draw(t, "zerotime") == 0 {
		return time.Time{} // gocql writes the zero time as an empty value and reads it back as zero
	}
	if cql == "date" {
		day := rapid.Int64Range(-365*1000, 365*1000).Draw(t, "day")
		return time.Unix(day*86400, 0).UTC()
	}
	ms := rapid.Int64Range(-30610224000000, 32503680000000).Draw(t, "ms")
	ns := rapid.Int64Range(0, 999999).Draw(t, "ns")
	return time.UnixMilli(ms).Add(time.Duration(ns)).UTC()
}

// ---------------------------------------------------------------------------
// Equality with the documented normalisations.

func sameValue(want, got reflect.Value, n cqlNode) string {
	typ := want.Type()
	if base, ok := drawBase(typ); ok {
		return sameValue(want.Convert(base), got.Convert(base), n)
	}
	switch {
	case typ == reflect.TypeFor[time.Time]():
		w, g := want.Interface().(time.Time), got.Interface().(time.Time)
		if w.IsZero() && g.IsZero() {
			return ""
		}
		if n.Name != "date" {
			w = w.Truncate(time.Millisecond)
		}
		if !w.Equal(g) {
			return fmt.Sprintf("time %s != %s", w.Format(time.RFC3339Nano), g.Format(time.RFC3339Nano))
		}
		return ""
	case typ == reflect.TypeFor[net.IP]():
		w, g := want.Interface().(net.IP), got.Interface().(net.IP)
		if len(w) == 0 && len(g) == 0 || w.Equal(g) {
			return ""
		}
		return "inet differs"
	case typ == typeAddr:
		w, g := want.Interface().(netip.Addr), got.Interface().(netip.Addr)
		if w.Unmap() == g.Unmap() {
			return ""
		}
		return "inet differs"
	case typ == reflect.TypeFor[*big.Int]():
		w, g := want.Interface().(*big.Int), got.Interface().(*big.Int)
		if w == nil && g == nil || w != nil && g != nil && w.Cmp(g) == 0 {
			return ""
		}
		return "varint differs"
	}
	if n.Name == "udt" && typ.Kind() == reflect.Struct {
		j := 0
		for i := range typ.NumField() {
			if typ.Field(i).Tag.Get(kandra.UDTTag) == "-" {
				continue
			}
			if why := sameValue(want.Field(i), got.Field(i), n.Args[j]); why != "" {
				return fmt.Sprintf("field %s: %s", typ.Field(i).Name, why)
			}
			j++
		}
		return ""
	}
	if typ.Kind() == reflect.Array && typ.Elem().Kind() == reflect.Float32 {
		for i := range typ.Len() {
			w, g := math.Float32bits(float32(want.Index(i).Float())), math.Float32bits(float32(got.Index(i).Float()))
			if w != g { // bit for bit: a vector keeps every float as it is
				return fmt.Sprintf("vector component %d: %#x != %#x", i, w, g)
			}
		}
		return ""
	}
	switch typ.Kind() {
	case reflect.Float32, reflect.Float64:
		w, g := want.Float(), got.Float()
		if w == g && math.Signbit(w) == math.Signbit(g) || math.IsNaN(w) && math.IsNaN(g) {
			return ""
		}
		return "float differs"
	case reflect.Pointer:
		if want.IsNil() || got.IsNil() {
			if want.IsNil() && got.IsNil() {
				return ""
			}
			// The zero netip.Addr is null, so a pointer to it reads back nil.
			if !want.IsNil() && want.Elem().Type() == typeAddr && !want.Elem().Interface().(netip.Addr).IsValid() {
				return ""
			}
			return "one pointer is nil"
		}
		return sameValue(want.Elem(), got.Elem(), n)
	case reflect.Slice:
		if typ.Elem().Kind() == reflect.Uint8 {
			if bytes.Equal(want.Bytes(), got.Bytes()) {
				return ""
			}
			return "blob differs"
		}
		if n.Name == "set" {
			// A set written from a slice: the server keeps each element
			// once, in its own order.
			elems := func(v reflect.Value) map[string]bool {
				m := map[string]bool{}
				for i := 0; i < v.Len(); i++ {
					m[fmt.Sprintf("%v", v.Index(i).Interface())] = true
				}
				return m
			}
			if w, g := elems(want), elems(got); !reflect.DeepEqual(w, g) {
				return fmt.Sprintf("set %v != %v", w, g)
			}
			return ""
		}
		if want.Len() != got.Len() {
			return fmt.Sprintf("list length %d != %d", want.Len(), got.Len())
		}
		for i := 0; i < want.Len(); i++ {
			if why := sameValue(want.Index(i), got.Index(i), n.Args[0]); why != "" {
				return fmt.Sprintf("element %d: %s", i, why)
			}
		}
		return ""
	case reflect.Map:
		if want.Len() != got.Len() {
			return fmt.Sprintf("map/set size %d != %d", want.Len(), got.Len())
		}
		it := want.MapRange()
		for it.Next() {
			g := got.MapIndex(it.Key())
			if !g.IsValid() {
				return fmt.Sprintf("key %v missing", it.Key())
			}
			if len(n.Args) == 2 {
				if why := sameValue(it.Value(), g, n.Args[1]); why != "" {
					return fmt.Sprintf("key %v: %s", it.Key(), why)
				}
			}
		}
		return ""
	}
	if !reflect.DeepEqual(want.Interface(), got.Interface()) {
		return "differs"
	}
	return ""
}
