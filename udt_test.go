package kandra_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
)

// GeoPoint is a user-defined type: geo_point.
type GeoPoint struct {
	Lat, Lon float64
}

// Address is a user-defined type holding another, a null field (Unit), a
// renamed field (Zip) and a field left out (Cached).
type Address struct {
	Street string
	Unit   *string
	Zip    string `kandra:"postal_code"`
	Tags   map[string]struct{}
	At     GeoPoint
	Cached string `kandra:"-"`
}

// Customer keeps a home address, past addresses, and is found by where
// it is.
type Customer struct {
	ID    uuid.UUID
	Home  Address
	Past  []Address
	Where *GeoPoint
}

func (c *Customer) Describe(s *kandra.Schema[Customer]) {
	s.Table("customers")
	kandra.Bind(s, &c.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &c.Where, kandra.Lookup("by_where", kandra.LookupBatch))
}

func ExampleUDTOf() {
	customers := kandra.MustRegister[Customer]()
	shop := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "shop", Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3})}, customers)
	for _, stmt := range shop.Statements()[1:] {
		fmt.Println(stmt)
	}
	// Output:
	// CREATE TYPE IF NOT EXISTS shop.geo_point (
	//     lat DOUBLE,
	//     lon DOUBLE
	// );
	// CREATE TYPE IF NOT EXISTS shop.address (
	//     street TEXT,
	//     unit TEXT,
	//     postal_code TEXT,
	//     tags FROZEN<SET<TEXT>>,
	//     at FROZEN<geo_point>
	// );
	// CREATE TABLE IF NOT EXISTS shop.customers (
	//     id UUID,
	//     home address,
	//     past LIST<FROZEN<address>>,
	//     "where" geo_point,
	//     PRIMARY KEY (id)
	// );
	// CREATE TABLE IF NOT EXISTS shop.customers_by_where (
	//     "where" FROZEN<geo_point>,
	//     id UUID,
	//     PRIMARY KEY (("where"), id)
	// );
}

// Visit is keyed by a user-defined type: frozen there.
type Visit struct {
	Place GeoPoint
	At    time.Time
	Note  string
}

func (v *Visit) Describe(s *kandra.Schema[Visit]) {
	s.Table("visits")
	kandra.Bind(s, &v.Place, kandra.PartitionKey(0))
	kandra.Bind(s, &v.At, kandra.ClusteringKey(0, kandra.ClusteringDesc))
}

func TestUDTColumns(t *testing.T) {
	customers := kandra.MustRegister[Customer]()
	home := customers.Schema().ColumnByName("home").Type()
	if home.Kind() != kandra.KindUDT || home.Name() != "address" || home.GoType() != "kandra_test.Address" {
		t.Fatalf("home is %v (%s, %q, %q), want the address type of kandra_test.Address", home, home.Kind(), home.Name(), home.GoType())
	}
	want := kandra.UDTOf("address",
		kandra.UDTField{Name: "street", Type: kandra.CQLText},
		kandra.UDTField{Name: "unit", Type: kandra.CQLText},
		kandra.UDTField{Name: "postal_code", Type: kandra.CQLText},
		kandra.UDTField{Name: "tags", Type: kandra.SetOf(kandra.CQLText)},
		kandra.UDTField{Name: "at", Type: kandra.UDTOf("geo_point", kandra.UDTField{Name: "lat", Type: kandra.CQLDouble}, kandra.UDTField{Name: "lon", Type: kandra.CQLDouble})},
	)
	if !home.Equal(want) {
		t.Fatalf("home = %v %v, want %v", home, home.Fields(), want.Fields())
	}
	// Fields hands out a copy.
	f := home.Fields()
	f[0].Name = "changed"
	if home.Fields()[0].Name != "street" {
		t.Fatal("Fields shares its slice")
	}
	if home.String() != "address" || home.Frozen() != "FROZEN<address>" {
		t.Fatalf("String %q, Frozen %q", home.String(), home.Frozen())
	}
	if got := kandra.ListOf(kandra.UDTOf("Geo Point")).String(); got != `LIST<FROZEN<"Geo Point">>` {
		t.Fatalf("a quoted name in a list: %q", got)
	}
	// By name: a reference read from system_schema.columns matches the type.
	ref, err := kandra.ParseCQLType("frozen<address>")
	if err != nil || ref.Equal(home) || !ref.SameName(home) || !kandra.ListOf(ref).SameName(kandra.ListOf(home)) || ref.SameName(kandra.UDTOf("addr")) {
		t.Fatalf("ParseCQLType(frozen<address>) = %v, %v: Equal %v, SameName %v", ref, err, ref.Equal(home), ref.SameName(home))
	}
	visits := kandra.MustRegister[Visit]()
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "geo", Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 1})}, visits, customers)
	if got := ks.Statements()[3]; !strings.Contains(got, "place FROZEN<geo_point>,") {
		t.Fatalf("a partition key of a user-defined type is frozen: %s", got)
	}
	// One Go type in two tables is one type, declared once, before the
	// types that hold it.
	var names []string
	for _, u := range ks.Types() {
		names = append(names, u.Name())
	}
	if strings.Join(names, ",") != "geo_point,address" {
		t.Fatalf("Types() = %v, want geo_point then address", names)
	}
	if _, ok := ks.CreateType("nope"); ok {
		t.Fatal("CreateType of a type the keyspace lacks")
	}
	if got := kandra.AlterTypeAdd("shop", home, kandra.UDTField{Name: "country", Type: kandra.ListOf(kandra.CQLText)}); got != "ALTER TYPE shop.address ADD country FROZEN<LIST<TEXT>>;" {
		t.Fatalf("AlterTypeAdd = %q", got)
	}
}

// named names its type with UDTName.
type named struct{ A int32 }

func (named) UDTName() string { return "renamed" }

type panicky struct{ A int32 }

func (*panicky) UDTName() string { panic("boom") }

type namedHolder struct {
	ID string
	V  named
}

func (e *namedHolder) Describe(s *kandra.Schema[namedHolder]) {
	s.Table("holders")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type panickyHolder struct {
	ID string
	V  panicky
}

func (e *panickyHolder) Describe(s *kandra.Schema[panickyHolder]) {
	s.Table("holders")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

func TestUDTNames(t *testing.T) {
	tb, err := kandra.Register[namedHolder]()
	if err != nil {
		t.Fatal(err)
	}
	if got := tb.Schema().ColumnByName("v").Type().Name(); got != "renamed" {
		t.Fatalf("UDTName: the type is %q", got)
	}
	_, err = kandra.Register[panickyHolder]()
	var se *kandra.SchemaError
	if !errors.As(err, &se) || se.Rule != kandra.RuleUnsupportedType || !strings.Contains(se.Detail, "UDTName() panicked on the zero value (boom)") {
		t.Fatalf("a panicking UDTName: %v", err)
	}
}

// Beacon declares its GeoPoint column with AsType: the same type by name
// and fields as GeoPoint's, so one type in a keyspace.
type Beacon struct {
	ID  string
	Pos GeoPoint
}

func (b *Beacon) Describe(s *kandra.Schema[Beacon]) {
	s.Table("beacons")
	kandra.Bind(s, &b.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &b.Pos, kandra.AsType(kandra.UDTOf("geo_point",
		kandra.UDTField{Name: "lat", Type: kandra.CQLDouble}, kandra.UDTField{Name: "lon", Type: kandra.CQLDouble})))
}

// Misplaced declares a geo_point of other fields.
type Misplaced struct {
	ID  string
	Pos GeoPoint
}

func (m *Misplaced) Describe(s *kandra.Schema[Misplaced]) {
	s.Table("misplaced")
	kandra.Bind(s, &m.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &m.Pos, kandra.AsType(kandra.UDTOf("geo_point", kandra.UDTField{Name: "lat", Type: kandra.CQLFloat})))
}

func TestUDTAsType(t *testing.T) {
	spec := kandra.KeyspaceSpec{Name: "geo", Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 1})}
	ks, err := kandra.NewKeyspace(spec, kandra.MustRegister[Beacon](), kandra.MustRegister[Visit]())
	if err != nil || len(ks.Types()) != 1 {
		t.Fatalf("AsType of the derived type beside the derived type: %v, types %v", err, ks.Types())
	}
	_, err = kandra.Register[Misplaced]()
	var se *kandra.SchemaError
	if !errors.As(err, &se) || se.Rule != kandra.RuleUnsupportedType || !strings.Contains(se.Detail, "cannot be stored as geo_point") {
		t.Fatalf("AsType of another geo_point: %v", err)
	}
}

// Stamped holds fields with value checks: a time, a text, an inet.
type Stamped struct {
	At   time.Time
	Note *string
}

type stampedRow struct {
	ID string
	S  Stamped
	L  []Stamped
}

func (e *stampedRow) Describe(s *kandra.Schema[stampedRow]) {
	s.Table("stamped")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

func TestUDTValueChecks(t *testing.T) {
	ts := kandra.MustRegister[stampedRow]().Schema()
	s, l := ts.ColumnByName("s"), ts.ColumnByName("l")
	if !s.ChecksValues() || !l.ChecksValues() {
		t.Fatal("a type holding a time checks its values")
	}
	bad := "\xff"
	for _, c := range []struct {
		col  *kandra.ColumnSchema
		v    any
		want string // "" for no error
	}{
		{s, &Stamped{At: time.Unix(0, 0)}, ""},
		{s, &Stamped{At: time.Date(300000000, 1, 1, 0, 0, 0, 0, time.UTC)}, "field at: "},
		{s, &Stamped{Note: &bad}, "field note: "},
		{l, &[]Stamped{{}, {Note: &bad}}, "field note: "},
	} {
		err := c.col.CheckValue(c.v)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("CheckValue(%v) = %v", c.v, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("CheckValue(%v) = %v, want an error with %q", c.v, err, c.want)
		}
	}
}

// Landmark keeps a frozen type, indexed.
type Landmark struct {
	ID  string
	Pos GeoPoint
}

func (l *Landmark) Describe(s *kandra.Schema[Landmark]) {
	s.Table("landmarks")
	kandra.Bind(s, &l.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &l.Pos, kandra.Frozen(), kandra.SecondaryIndex())
}

func TestUDTFrozen(t *testing.T) {
	ts := kandra.MustRegister[Landmark]().Schema()
	pos := ts.ColumnByName("pos")
	if !pos.IsFrozen() || pos.Decl() != "FROZEN<geo_point>" {
		t.Fatalf("a Frozen type column: IsFrozen %v, Decl %q", pos.IsFrozen(), pos.Decl())
	}
	home := kandra.MustRegister[Customer]().Schema().ColumnByName("home")
	if home.IsFrozen() || home.Decl() != "address" {
		t.Fatalf("a type column of its own: IsFrozen %v, Decl %q", home.IsFrozen(), home.Decl())
	}
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "geo", Replication: kandra.SimpleStrategy(1), Targets: kandra.Cassandra5 | kandra.Cassandra5Latest}, ts)
	if got := ks.Statements()[len(ks.Statements())-1]; got != "CREATE INDEX IF NOT EXISTS landmarks_pos_idx ON geo.landmarks (pos);" {
		t.Fatalf("the index on a frozen type: %s", got)
	}
}

func TestUDTStoredForm(t *testing.T) {
	ts := kandra.MustRegister[stampedRow]().Schema()
	at := time.Date(2026, 12, 3, 10, 0, 0, 123456789, time.FixedZone("X", 3600))
	v := Stamped{At: at}
	ts.ColumnByName("s").StoredForm(&v)
	if want := time.Date(2026, 12, 3, 9, 0, 0, 123000000, time.UTC); !v.At.Equal(want) || v.At.Location() != time.UTC || v.At.Nanosecond() != 123000000 {
		t.Fatalf("StoredForm of a type's time: %v, want %v in UTC", v.At, want)
	}
}
