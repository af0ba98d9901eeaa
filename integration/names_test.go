package integration

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/migrate"
)

// HostileFields has Go fields whose derived column names are reserved or
// awkward CQL words; the table name is mixed case (quoted).
type HostileFields struct {
	From   string
	Token  string
	Order  int32
	Select bool
	Key    string
	Ttl    int64
	Table  string
	Where  time.Time
}

func (h *HostileFields) Describe(s *kandra.Schema[HostileFields]) {
	s.Table("Hostile_Fields")
	kandra.Bind(s, &h.From, kandra.PartitionKey(0))
	kandra.Bind(s, &h.Token, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.Bind(s, &h.Order, kandra.SecondaryIndex())
	kandra.Bind(s, &h.Select, kandra.SecondaryIndex())
	kandra.Bind(s, &h.Key, kandra.Lookup("by_key", kandra.LookupBatch))
}

// HostileColumns overrides column names with reserved words in other
// cases, quotes, spaces and non-ASCII letters, in key positions, in a
// lookup table and under an index.
type HostileColumns struct {
	A string
	B string
	C string
	D int32
	E string
	F []string
	G string
	H uuid.UUID
	I string
}

func (h *HostileColumns) Describe(s *kandra.Schema[HostileColumns]) {
	s.Table("hostile_columns")
	kandra.Bind(s, &h.A, kandra.Column("Mixed Case"), kandra.PartitionKey(0))
	kandra.Bind(s, &h.B, kandra.Column(`a"b`), kandra.PartitionKey(1))
	kandra.Bind(s, &h.C, kandra.Column("From"), kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &h.D, kandra.Column("Order"), kandra.SecondaryIndex())
	kandra.Bind(s, &h.E, kandra.Column("select"), kandra.SecondaryIndex())
	kandra.Bind(s, &h.F, kandra.Column(`"quoted"`))
	kandra.Bind(s, &h.G, kandra.Column("ünïcode"), kandra.Lookup("by_unicode", kandra.LookupEventual))
	kandra.Bind(s, &h.H, kandra.Column("Ttl"))
	kandra.Bind(s, &h.I, kandra.Column("default"))
}

// TestHostileNames: reserved words, mixed case, quotes, spaces and
// non-ASCII in column names create columns whose names in system_schema
// equal ColumnSchema.Name() exactly, and a row goes in and out through them
// (also through a lookup table and a secondary index).
func TestHostileNames(t *testing.T) {
	s := session(t)
	hf, err := kandra.Register[HostileFields]()
	if err != nil {
		t.Fatal(err)
	}
	hc, err := kandra.Register[HostileColumns]()
	if err != nil {
		t.Fatal(err)
	}

	k := buildKeyspace(t, "names", hf, hc)
	ks := k.Name()
	errs := createKeyspace(t, s, k, 1)
	names, ok := 0, 0
	for i, ts := range k.Tables() {
		if errs[i] != nil {
			t.Errorf("the server rejected kandra's DDL for %s: %v", ts.Name(), errs[i])
			names += ts.NumColumns()
			continue
		}
		diffs, err := compareSchema(s, ks, ts)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range diffs {
			t.Errorf("system_schema differs: %s", d)
		}
		got, err := readColumns(s, ks, ts.Name())
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range ts.Columns() {
			names++
			if _, found := got[c.Name()]; found {
				ok++
				t.Logf("%s.%s: Go %s -> column %q, written %s", ts.Name(), c.GoName(), c.GoName(), c.Name(), c.CQLName())
			} else {
				t.Errorf("%s: no column named exactly %q in system_schema (has %v)", ts.Name(), c.Name(), keys(got))
			}
		}
	}

	// A row through every hostile column, read back by primary key, through
	// the lookup table and through the indexes.
	hostileRow(t, ks, hf, &HostileFields{From: "f", Token: "t", Order: 7, Select: true, Key: "k", Ttl: 9, Table: "tb", Where: time.UnixMilli(1700000000123).UTC()})
	hostileRow(t, ks, hc, &HostileColumns{A: "a", B: "b", C: "c", D: 42, E: "e", F: []string{"x", "y"}, G: "ĝ", H: uuid.New(), I: "i"})
	summary("names", fmt.Sprintf("real-server: names=%d ok=%d", names, ok))
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func hostileRow[T any](t *testing.T, ks string, table *kandra.Table[T], row *T) {
	t.Helper()
	s := session(t)
	ts := table.Schema()
	codec, err := kgocql.NewCodec(ts.Columns())
	if err != nil {
		t.Fatal(err)
	}
	bind := codec.BindValues(table.Pointers(row, nil))
	if err := s.Query(insertStmt(ks, ts), bind...).Exec(); err != nil {
		t.Fatalf("INSERT into %s: %v", ts.Name(), err)
	}
	read := func(how, stmt string, args ...any) {
		got := new(T)
		targets, finish := codec.ScanTargets(table.Pointers(got, nil))
		if err := s.Query(stmt, args...).Scan(targets...); err != nil {
			t.Errorf("%s: %s\n-> %v", how, stmt, err)
			return
		}
		if err := finish(); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, row) {
			t.Errorf("%s: read %+v, wrote %+v", how, got, row)
		}
	}
	read("by primary key", selectStmt(ks, ts), bind[:len(ts.PrimaryKey())]...)
	for _, c := range ts.SecondaryIndexes() {
		v := bind[c.Position()]
		read("by index on "+c.Name(), "SELECT "+columnList(ts.Columns())+" FROM "+qualified(ks, ts.CQLName())+" WHERE "+c.CQLName()+" = ?", v)
	}
	for _, l := range ts.LookupTables() {
		// The lookup row a runtime writes, then the primary key it yields.
		cols := l.Columns()
		vals := make([]any, len(cols))
		for i, c := range cols {
			vals[i] = bind[c.Position()]
		}
		ins := "INSERT INTO " + qualified(ks, l.CQLName()) + " (" + columnList(cols) + ") VALUES (" + placeholders(len(cols)) + ")"
		if err := s.Query(ins, vals...).Exec(); err != nil {
			t.Errorf("INSERT into lookup %s: %v", l.Name(), err)
			continue
		}
		pk := append(l.PartitionKeys(), l.ClusteringKeys()...)
		out := make([]any, len(pk))
		for i, c := range pk {
			out[i] = reflect.New(reflect.TypeOf(bind[c.Position()])).Interface()
		}
		q := "SELECT " + columnList(pk) + " FROM " + qualified(ks, l.CQLName()) + " WHERE " + l.IndexColumn().CQLName() + " = ?"
		if err := s.Query(q, bind[l.IndexColumn().Position()]).Scan(out...); err != nil {
			t.Errorf("lookup %s: %s\n-> %v", l.Name(), q, err)
			continue
		}
		args := make([]any, len(out))
		for i := range out {
			args[i] = reflect.ValueOf(out[i]).Elem().Interface()
		}
		read("through lookup "+l.Name(), selectStmt(ks, ts), args...)
	}
}

func placeholders(n int) string {
	s := ""
	for i := 0; i < n; i++ {
		if i > 0 {
			s += ", "
		}
		s += "?"
	}
	return s
}

// User-defined types named by the words both servers take bare as a
// column name but not as a type name (their grammars' non_type_ident
// leaves out ttl, count, writetime, maxwritetime, cast, json and
// distinct; key is allowed): kandra quotes them wherever it writes a type
// name.
type (
	// Count is the user-defined type count.
	Count struct{ N int32 }
	// TTL is ttl.
	TTL struct{ S string }
	// Writetime is writetime.
	Writetime struct{ At time.Time }
	// Maxwritetime is maxwritetime.
	Maxwritetime struct{ At time.Time }
	// JSON is json.
	JSON struct{ Doc string }
	// Distinct is distinct.
	Distinct struct{ V int64 }
	// Cast is cast (reserved by ScyllaDB already).
	Cast struct{ To string }
	// Key is key, which both grammars take as a type name bare.
	Key struct{ K string }
)

// HostileTypes holds each of those types: frozen in the partition key,
// non-frozen and frozen columns, in collections, under an index.
type HostileTypes struct {
	ID       Count
	T        TTL
	W        Writetime
	M        []Maxwritetime
	J        map[string]JSON
	D        *Distinct
	C        Cast
	K        Key
	Extended Writetime
}

func (h *HostileTypes) Describe(s *kandra.Schema[HostileTypes]) {
	s.Table("hostile_types")
	kandra.Bind(s, &h.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &h.C, kandra.Frozen(), kandra.SecondaryIndex())
}

// TestHostileTypeNames: the types above are created by kandra's CREATE
// TYPE, hold columns whose types in system_schema are the model's, take a
// row through every column (and the index on the frozen one), and take
// ALTER TYPE ... ADD as kandra renders it.
func TestHostileTypeNames(t *testing.T) {
	s := session(t)
	ht, err := kandra.Register[HostileTypes]()
	if err != nil {
		t.Fatal(err)
	}
	k := buildKeyspace(t, "typenames", ht)
	ks := k.Name()
	errs := createKeyspace(t, s, k, 1)
	if errs[0] != nil {
		t.Fatalf("the server rejected kandra's DDL: %v", errs[0])
	}
	diffs, err := compareSchema(s, ks, ht.Schema())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Errorf("system_schema differs: %s", d)
	}
	types := 0
	for _, u := range k.Types() {
		var name string
		if err := s.Query(`SELECT type_name FROM system_schema.types WHERE keyspace_name = ? AND type_name = ?`, ks, u.Name()).Scan(&name); err != nil {
			t.Errorf("type %s: %v", u.Name(), err)
			continue
		}
		types++
	}
	// The migrator reads the types and the columns of them back as the
	// model's: nothing to plan.
	if p, err := migrate.PlanFor(context.Background(), kgocql.New(s), k); err != nil || !p.Empty() || len(p.Extra) > 0 {
		t.Errorf("the migrator's plan over kandra's own DDL:\n%v, %v", p, err)
	}
	at := time.UnixMilli(1700000000123).UTC()
	hostileRow(t, ks, ht, &HostileTypes{ID: Count{7}, T: TTL{"t"}, W: Writetime{at}, M: []Maxwritetime{{at}}, J: map[string]JSON{"j": {"{}"}},
		D: &Distinct{9}, C: Cast{"int"}, K: Key{"k"}, Extended: Writetime{at}})
	// ALTER TYPE ... ADD, as the migrator renders it, on each type no key
	// holds.
	added := 0
	for _, u := range k.Types() {
		if u.Name() == "count" {
			continue
		}
		stmt := kandra.AlterTypeAdd(ks, u, kandra.UDTField{Name: "added", Type: kandra.CQLText})
		if err := execDDL(s, stmt); err != nil {
			t.Errorf("%s\n-> %v", stmt, err)
			continue
		}
		added++
	}
	t.Logf("types=%d altered=%d", types, added)
	summary("type-names", fmt.Sprintf("real-server: type-names=%d created=%d altered=%d", len(k.Types()), types, added))
}
