package migrate

import (
	"strings"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
)

func ksRow() map[string]any {
	return map[string]any{"keyspace_name": "ks", "durable_writes": true,
		"replication": map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "1"}}
}

func TestLiveFromRowsMissingKeyspace(t *testing.T) {
	if _, err := liveFromRows("ks", nil); err == nil || !strings.Contains(err.Error(), `"ks"`) {
		t.Fatalf("nil rows: %v, want an error naming the keyspace", err)
	}
	live, err := liveFromRows("ks", &schemaRows{})
	if err != nil || live.Keyspace != nil {
		t.Fatalf("no rows: %+v, %v; want a Live with a nil Keyspace", live, err)
	}
	// Another keyspace's rows are not this one's.
	other := &schemaRows{Keyspaces: []map[string]any{{"keyspace_name": "other"}},
		Tables: []map[string]any{{"keyspace_name": "other", "table_name": "t"}}}
	if live, err := liveFromRows("ks", other); err != nil || live.Keyspace != nil {
		t.Fatalf("another keyspace's rows: %+v, %v", live, err)
	}
	orphan := &schemaRows{Tables: []map[string]any{{"keyspace_name": "ks", "table_name": "t"}}}
	if _, err := liveFromRows("ks", orphan); err == nil || !strings.Contains(err.Error(), "system_schema.keyspaces") {
		t.Fatalf("a table without its keyspace row: %v", err)
	}
}

func TestLiveFromRows(t *testing.T) {
	dropped := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	r := &schemaRows{
		Keyspaces: []map[string]any{ksRow()},
		Tables: []map[string]any{
			{"keyspace_name": "ks", "table_name": "t", "id": "5a1c0bb8-8f6a-11ee-b9d1-0242ac120002", "default_time_to_live": int32(60),
				"gc_grace_seconds": int64(3600), "flags": []string{"compound"}},
		},
		Columns: []map[string]any{
			{"table_name": "t", "column_name": "v", "kind": "regular", "position": -1, "clustering_order": "none", "type": "map<text, frozen<list<int>>>"},
			{"table_name": "t", "column_name": "c2", "kind": "clustering", "position": 1, "clustering_order": "desc", "type": "timeuuid"},
			{"table_name": "t", "column_name": "a", "kind": "static", "position": -1, "clustering_order": "none", "type": "int"},
			{"table_name": "t", "column_name": "c1", "kind": "clustering", "position": 0, "clustering_order": "asc", "type": "frozen<set<text>>"},
			{"table_name": "t", "column_name": "p", "kind": "partition_key", "position": 0, "clustering_order": "none", "type": "uuid"},
			{"table_name": "t", "column_name": "u", "kind": "regular", "position": -1, "clustering_order": "none", "type": "frozen<address>"},
			{"table_name": "t", "column_name": "us", "kind": "regular", "position": -1, "clustering_order": "none", "type": "list<frozen<\"Geo\">>"},
			{"table_name": "t", "column_name": "uo", "kind": "regular", "position": -1, "clustering_order": "none", "type": "map<int, frozen<odd>>"},
			{"table_name": "a_view", "column_name": "x", "kind": "regular", "type": "int"},
		},
		Indexes: []map[string]any{{"table_name": "t", "index_name": "t_v_idx", "kind": "COMPOSITES", "options": map[string]string{"target": "values(v)"}}},
		Types: []map[string]any{
			{"type_name": "address", "field_names": []string{"street", "at", "zips"}, "field_types": []string{"text", "frozen<geo>", "frozen<list<int>>"}},
			{"type_name": "geo", "field_names": []string{"lat", "Lon"}, "field_types": []string{"double", "varchar"}},
			{"type_name": "odd", "field_names": []string{"t"}, "field_types": []string{"frozen<tuple<int, text>>"}},
			{"type_name": "orphan", "field_names": []string{"g"}, "field_types": []string{"frozen<missing>"}},
		},
		DroppedColumns: []map[string]any{
			{"table_name": "t", "column_name": "old", "kind": "regular", "type": "int", "dropped_time": dropped.Add(-time.Hour)},
			{"table_name": "t", "column_name": "old", "kind": "regular", "type": "text", "dropped_time": dropped},
		},
	}
	live, err := liveFromRows("ks", r)
	if err != nil {
		t.Fatal(err)
	}
	lt := live.Table("t")
	if lt == nil || live.Table("a_view") != nil {
		t.Fatalf("tables %v: want t only (a view's columns are skipped)", live.Keyspace.Tables)
	}
	var order []string
	for _, c := range lt.Columns {
		order = append(order, c.Name)
	}
	if got := strings.Join(order, " "); got != "p c1 c2 a u uo us v" {
		t.Fatalf("columns in order %q, want partition key, clustering by position, then by name", got)
	}
	if lt.DefaultTTL != time.Minute || lt.GCGrace != time.Hour || lt.ID != "5a1c0bb8-8f6a-11ee-b9d1-0242ac120002" {
		t.Fatalf("table %+v", lt)
	}
	want := kandra.MapOf(kandra.CQLText, kandra.ListOf(kandra.CQLInt))
	if v := lt.Column("v"); !v.Type.Equal(want) || v.Position != -1 || v.Kind != ColumnRegular {
		t.Fatalf("column v: %+v", v)
	}
	if c1 := lt.Column("c1"); !c1.Type.Equal(kandra.SetOf(kandra.CQLText)) || c1.Order != "asc" || c1.Position != 0 {
		t.Fatalf("column c1: %+v", c1)
	}
	// A user-defined type is resolved from system_schema.types, its
	// fields' types parsed; one that names a type the keyspace lacks, or
	// holds a type kandra cannot read, stays a reference by name.
	geo := kandra.UDTOf("geo", kandra.UDTField{Name: "lat", Type: kandra.CQLDouble}, kandra.UDTField{Name: "Lon", Type: kandra.CQLVarchar})
	address := kandra.UDTOf("address", kandra.UDTField{Name: "street", Type: kandra.CQLText}, kandra.UDTField{Name: "at", Type: geo},
		kandra.UDTField{Name: "zips", Type: kandra.ListOf(kandra.CQLInt)})
	if u := lt.Column("u"); !u.Type.Equal(address) || u.RawType != "frozen<address>" {
		t.Fatalf("column u: %+v, want %v resolved", u, address)
	}
	if us := lt.Column("us"); !us.Type.Equal(kandra.ListOf(kandra.UDTOf("Geo"))) {
		t.Fatalf("column us: %+v, want a reference to \"Geo\", which the keyspace lacks", us)
	}
	if uo := lt.Column("uo"); !uo.Type.Equal(kandra.MapOf(kandra.CQLInt, kandra.UDTOf("odd"))) {
		t.Fatalf("column uo: %+v, want a reference to odd, which holds a tuple", uo)
	}
	types := live.Keyspace.Types
	if a := types["address"]; a == nil || !a.Type.Equal(address) || len(a.Fields) != 3 || !a.Fields[1].Type.Equal(kandra.UDTOf("geo")) || a.FieldTypes[1] != "frozen<geo>" {
		t.Fatalf("type address: %+v", a)
	}
	if o := types["odd"]; o == nil || !o.Type.IsZero() || !o.Fields[0].Type.IsZero() || o.FieldTypes[0] != "frozen<tuple<int, text>>" {
		t.Fatalf("type odd: %+v, want its tuple field unread", o)
	}
	if o := types["orphan"]; o == nil || !o.Type.IsZero() || !o.Fields[0].Type.Equal(kandra.UDTOf("missing")) {
		t.Fatalf("type orphan: %+v", o)
	}
	if d := lt.Dropped["old"]; d == nil || !d.DroppedAt.Equal(dropped) || !d.Type.Equal(kandra.CQLText) {
		t.Fatalf("dropped: %+v, want the latest drop", d)
	}
	if len(lt.Indexes) != 1 || lt.Indexes[0].Options["target"] != "values(v)" {
		t.Fatalf("indexes %+v", lt.Indexes)
	}
	if rf := live.Keyspace.Replication["replication_factor"]; rf != "1" || !live.Keyspace.DurableWrites {
		t.Fatalf("keyspace %+v", live.Keyspace)
	}
}

func TestLiveFromRowsErrors(t *testing.T) {
	cases := []struct {
		name string
		rows schemaRows
		want string // in the error
	}{
		{"two keyspace rows", schemaRows{Keyspaces: []map[string]any{ksRow(), ksRow()}}, "keyspaces of keyspace \"ks\", row 1: column keyspace_name repeats"},
		{"replication not a map", schemaRows{Keyspaces: []map[string]any{{"keyspace_name": "ks", "replication": "x"}}}, "column replication is a string"},
		{"table without a name", schemaRows{Keyspaces: []map[string]any{ksRow()}, Tables: []map[string]any{{"id": "x"}}}, "tables of keyspace \"ks\", row 0: column table_name is missing"},
		{"ttl as text", schemaRows{Keyspaces: []map[string]any{ksRow()}, Tables: []map[string]any{{"table_name": "t", "default_time_to_live": "60"}}}, "column default_time_to_live is string"},
		{"two tables", schemaRows{Keyspaces: []map[string]any{ksRow()}, Tables: []map[string]any{{"table_name": "t"}, {"table_name": "t"}}}, "repeats \"t\""},
		{"unknown kind", schemaRows{Keyspaces: []map[string]any{ksRow()}, Tables: []map[string]any{{"table_name": "t"}},
			Columns: []map[string]any{{"table_name": "t", "column_name": "c", "type": "int", "kind": "weird"}}}, "column kind is \"weird\""},
		{"key without a position", schemaRows{Keyspaces: []map[string]any{ksRow()}, Tables: []map[string]any{{"table_name": "t"}},
			Columns: []map[string]any{{"table_name": "t", "column_name": "c", "type": "int", "kind": "partition_key"}}}, "column position is -1"},
		{"column twice", schemaRows{Keyspaces: []map[string]any{ksRow()}, Tables: []map[string]any{{"table_name": "t"}},
			Columns: []map[string]any{{"table_name": "t", "column_name": "c", "type": "int"}, {"table_name": "t", "column_name": "c", "type": "int"}}}, "repeats \"c\""},
		{"column without a type", schemaRows{Keyspaces: []map[string]any{ksRow()}, Tables: []map[string]any{{"table_name": "t"}},
			Columns: []map[string]any{{"table_name": "t", "column_name": "c"}}}, "column type is missing"},
		{"dropped time as text", schemaRows{Keyspaces: []map[string]any{ksRow()}, Tables: []map[string]any{{"table_name": "t"}},
			DroppedColumns: []map[string]any{{"table_name": "t", "column_name": "c", "dropped_time": "yesterday"}}}, "column dropped_time is a string"},
		{"flags as text", schemaRows{Keyspaces: []map[string]any{ksRow()}, Tables: []map[string]any{{"table_name": "t", "flags": "compound"}}}, "column flags is a string"},
		{"type without a name", schemaRows{Keyspaces: []map[string]any{ksRow()}, Types: []map[string]any{{"field_names": []string{"a"}, "field_types": []string{"int"}}}}, "types of keyspace \"ks\", row 0: column type_name is missing"},
		{"type twice", schemaRows{Keyspaces: []map[string]any{ksRow()}, Types: []map[string]any{{"type_name": "a"}, {"type_name": "a"}}}, "column type_name repeats \"a\""},
		{"fewer field types than names", schemaRows{Keyspaces: []map[string]any{ksRow()}, Types: []map[string]any{{"type_name": "a", "field_names": []string{"x", "y"}, "field_types": []string{"int"}}}}, "has 1 types for 2 field names"},
		{"field twice", schemaRows{Keyspaces: []map[string]any{ksRow()}, Types: []map[string]any{{"type_name": "a", "field_names": []string{"x", "x"}, "field_types": []string{"int", "text"}}}}, "column field_names repeats \"x\" in type \"a\""},
		{"field without a name", schemaRows{Keyspaces: []map[string]any{ksRow()}, Types: []map[string]any{{"type_name": "a", "field_names": []string{""}, "field_types": []string{"int"}}}}, "has an empty name at 0"},
		{"field types as text", schemaRows{Keyspaces: []map[string]any{ksRow()}, Types: []map[string]any{{"type_name": "a", "field_types": "int"}}}, "column field_types is a string"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := liveFromRows("ks", &c.rows)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// FuzzLiveFromRows reads one table with fuzzed column rows and plans a
// fixed model against it: neither may panic, and what liveFromRows
// accepts is well formed.
func FuzzLiveFromRows(f *testing.F) {
	f.Add("id", "partition_key", 0, "none", "uuid", "email", "regular", -1, "none", "frozen<map<text, frozen<list<int>>>>", "int")
	f.Add("id", "partition_key", 0, "none", "text", "at", "clustering", 0, "desc", "timestamp", "frozen<list<text>>")
	f.Add("id", "static", 3, "ASC", "tuple<int, text>", "id", "regular", -1, "", "org.apache.cassandra.db.marshal.ReversedType(Int32Type)", "frozen<tuple<int>>")
	f.Add("name", "partition_key", -5, "none", "frozen <set<blob>>", "x", "", 1<<40, "none", "counter", "")
	f.Add("id", "partition_key", 0, "none", "frozen<address>", "email", "regular", -1, "none", "list<frozen<address>>", "frozen<address>")
	f.Add("id", "partition_key", 0, "none", "text", "email", "regular", -1, "none", "address", `frozen<"Geo">`)
	users := kandra.MustRegister[fuzzUser]()
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 1})}, users)
	f.Fuzz(func(t *testing.T, n1, k1 string, p1 int, o1, t1, n2, k2 string, p2 int, o2, t2, ft string) {
		r := &schemaRows{Keyspaces: []map[string]any{ksRow()},
			Tables: []map[string]any{{"table_name": "users", "flags": []string{"compound"}}},
			Columns: []map[string]any{
				{"table_name": "users", "column_name": n1, "kind": k1, "position": p1, "clustering_order": o1, "type": t1},
				{"table_name": "users", "column_name": n2, "kind": k2, "position": p2, "clustering_order": o2, "type": t2},
			},
			DroppedColumns: []map[string]any{{"table_name": "users", "column_name": n2, "kind": k1, "type": t2}},
			// A type whose field's type is fuzzed: it may hold itself.
			Types: []map[string]any{{"type_name": "address", "field_names": []string{"f", "g"}, "field_types": []string{ft, "frozen<geo>"}},
				{"type_name": "geo", "field_names": []string{"lat"}, "field_types": []string{"double"}}},
		}
		live, err := liveFromRows("ks", r)
		if err != nil {
			return
		}
		for _, c := range live.Table("users").Columns {
			if parsed, perr := kandra.ParseCQLType(c.RawType); (perr == nil) != !c.Type.IsZero() || perr == nil && !parsed.SameName(c.Type) {
				t.Fatalf("column %q: Type %v for raw %q (parse: %v)", c.Name, c.Type, c.RawType, perr)
			}
			if (c.Kind == ColumnPartitionKey || c.Kind == ColumnClustering) != (c.Position >= 0) {
				t.Fatalf("column %+v: a position only for key columns", c)
			}
		}
		// The type's fields are parsed as a column's type is; its whole
		// type is resolved exactly when every field's is.
		a := live.Keyspace.Types["address"]
		parsed, perr := kandra.ParseCQLType(ft)
		if len(a.Fields) != 2 || (perr == nil) != !a.Fields[0].Type.IsZero() || perr == nil && !parsed.Equal(a.Fields[0].Type) {
			t.Fatalf("type address: fields %+v for field type %q (parse: %v)", a.Fields, ft, perr)
		}
		if !a.Type.IsZero() {
			if fs := a.Type.Fields(); len(fs) != 2 || !fs[0].Type.SameName(parsed) || !fs[1].Type.Equal(live.Keyspace.Types["geo"].Type) {
				t.Fatalf("type address resolved to %v", a.Type)
			}
		}
		p, err := NewPlan(ks, live)
		if err != nil {
			t.Fatalf("NewPlan: %v", err)
		}
		for _, s := range p.Steps {
			if s.Class == Impossible && s.Manual == "" || s.ID == "" || s.Reason == "" {
				t.Fatalf("step %+v", s)
			}
		}
		_ = p.Script()
		_ = p.String()
	})
}

type fuzzUser struct {
	ID    string
	Email string
	Tags  []string
}

func (u *fuzzUser) Describe(s *kandra.Schema[fuzzUser]) {
	s.Table("users")
	kandra.Bind(s, &u.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Email, kandra.Lookup("by_email", kandra.LookupEventual))
}
