package migrate

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"pgregory.net/rapid"
)

// The user-defined types of the tests: geo (held by the key of the
// lookup table customers_by_spot), address (holding geo, in a column and
// in a list), and address with a new field in v2.
type udtGeo struct {
	Lat, Lon float64
}

func (udtGeo) UDTName() string { return "geo" }

type udtAddress struct {
	Street string
	Zip    *string `kandra:"zip_code"`
	Tags   []string
	Where  udtGeo
}

func (udtAddress) UDTName() string { return "address" }

type udtCustomer struct {
	ID   uuid.UUID
	Home udtAddress
	Past []udtAddress
	Spot udtGeo
}

func (c *udtCustomer) Describe(s *kandra.Schema[udtCustomer]) {
	s.Table("customers")
	kandra.Bind(s, &c.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &c.Spot, kandra.Lookup("by_spot", kandra.LookupUnique))
}

// udtAddressV2 is address with a field added at the end, and another in
// the middle (servers append both).
type udtAddressV2 struct {
	Street string
	Floor  int32
	Zip    *string `kandra:"zip_code"`
	Tags   []string
	Where  udtGeo
	Note   string
}

func (udtAddressV2) UDTName() string { return "address" }

type udtCustomerV2 struct {
	ID   uuid.UUID
	Home udtAddressV2
	Past []udtAddressV2
	Spot udtGeo
}

func (c *udtCustomerV2) Describe(s *kandra.Schema[udtCustomerV2]) {
	s.Table("customers")
	kandra.Bind(s, &c.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &c.Spot, kandra.Lookup("by_spot", kandra.LookupUnique))
}

var (
	udtCustomers   = kandra.MustRegister[udtCustomer]()
	udtCustomersV2 = kandra.MustRegister[udtCustomerV2]()
)

func udtKS(t testing.TB, targets kandra.Target, src kandra.SchemaSource) *kandra.Keyspace {
	t.Helper()
	ks, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: targets, Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 1})}, src)
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

// typeRowOf returns the system_schema.types row of type name, or fails.
func typeRowOf(t tb, r *schemaRows, name string) map[string]any {
	t.Helper()
	for _, row := range r.Types {
		if row["type_name"] == name {
			return row
		}
	}
	t.Fatalf("no type %s in the rows", name)
	return nil
}

// fieldIndex is the index of field in a types row, or -1.
func fieldIndex(row map[string]any, field string) int {
	return slices.Index(row["field_names"].([]string), field)
}

// dropField removes field from a types row.
func dropField(row map[string]any, field string) {
	i := fieldIndex(row, field)
	row["field_names"] = slices.Delete(slices.Clone(row["field_names"].([]string)), i, i+1)
	row["field_types"] = slices.Delete(slices.Clone(row["field_types"].([]string)), i, i+1)
}

// TestUDTRoundTrip: the live schema of a keyspace's own statements, user-
// defined types in columns, in a list, nested and in a lookup key, plans
// nothing; a fresh keyspace plans its statements, the types first.
func TestUDTRoundTrip(t *testing.T) {
	for _, targets := range []kandra.Target{kandra.Cassandra5, kandra.Scylla2026, kandra.AllTargets &^ kandra.Scylla2025Tablets} {
		ks := udtKS(t, targets, udtCustomers)
		if p := mustPlan(t, ks, liveOf(t, ks)); !p.Empty() || len(p.Extra) > 0 {
			t.Fatalf("%v: the keyspace's own rows plan:\n%s", targets, p)
		}
		p := mustPlan(t, ks, &Live{})
		if got, want := cqlOf(p.Steps), ks.Statements(); !slices.Equal(got, want) {
			t.Fatalf("fresh plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if got := strings.Join(ids(p.Steps), " "); !strings.HasPrefix(got, "create-keyspace:ks create-type:geo create-type:address create-table:customers") {
			t.Fatalf("fresh plan steps %s: want the types after the keyspace, nested first, before the tables", got)
		}
		if s := stepOf(t, p, "create-type:address"); s.Kind != StepCreateType || s.UDT != "address" || s.Class != Safe || s.Table != "" {
			t.Fatalf("step %+v", s)
		}
	}
}

// TestUDTPlan checks the verdict on one change of the live rows.
func TestUDTPlan(t *testing.T) {
	cassandra := udtKS(t, kandra.Cassandra5, udtCustomers)
	scylla := udtKS(t, kandra.Scylla2026, udtCustomers)
	v2 := udtKS(t, kandra.Cassandra5, udtCustomersV2)
	v2Scylla := udtKS(t, kandra.Scylla2026, udtCustomersV2)
	col := func(r *schemaRows, table, name string) map[string]any {
		i := rowsWhere(r.Columns, table, func(m map[string]any) bool { return m["column_name"] == name })
		if len(i) != 1 {
			t.Fatalf("no column %s.%s in the rows", table, name)
		}
		return r.Columns[i[0]]
	}
	setField := func(r *schemaRows, typ, field, to string) {
		row := typeRowOf(t, r, typ)
		types := slices.Clone(row["field_types"].([]string))
		types[fieldIndex(row, field)] = to
		row["field_types"] = types
	}
	cases := []struct {
		name   string
		ks     *kandra.Keyspace
		rowsOf *kandra.Keyspace // the keyspace whose rows are live (ks when nil)
		edit   func(r *schemaRows)
		ids    []string // the plan's steps, all of them
		class  Class    // of the first
		reason string   // in the first step's reason
		cql    string   // the first step's CQL
		manual string   // in the first step's manual path
		extra  []string
	}{
		{name: "a missing type", ks: cassandra, edit: func(r *schemaRows) {
			r.Types = without(r.Types, func(m map[string]any) bool { return m["type_name"] == "address" })
		}, ids: []string{"create-type:address"}, class: Safe, reason: `type "address" does not exist`,
			cql: "CREATE TYPE IF NOT EXISTS ks.address (\n    street TEXT,\n    zip_code TEXT,\n    tags FROZEN<LIST<TEXT>>,\n    \"where\" FROZEN<geo>\n);"},
		{name: "a missing field", ks: cassandra, edit: func(r *schemaRows) { dropField(typeRowOf(t, r, "address"), "zip_code") },
			ids: []string{"add-field:address.zip_code"}, class: Safe, reason: `type "address" has no field "zip_code" (text)`,
			cql: "ALTER TYPE ks.address ADD IF NOT EXISTS zip_code TEXT;"},
		{name: "a missing field on ScyllaDB", ks: scylla, edit: func(r *schemaRows) { dropField(typeRowOf(t, r, "address"), "tags") },
			ids: []string{"add-field:address.tags"}, class: Safe, reason: "(frozen<list<text>>)", cql: "ALTER TYPE ks.address ADD tags FROZEN<LIST<TEXT>>;"},
		{name: "a missing nested-type field", ks: cassandra, edit: func(r *schemaRows) { dropField(typeRowOf(t, r, "address"), "where") },
			ids: []string{"add-field:address.where"}, class: Safe, cql: "ALTER TYPE ks.address ADD IF NOT EXISTS \"where\" FROZEN<geo>;"},
		{name: "v2's new fields", ks: v2, rowsOf: cassandra, ids: []string{"add-field:address.floor", "add-field:address.note"}, class: Safe,
			cql: "ALTER TYPE ks.address ADD IF NOT EXISTS floor INT;"},
		{name: "v2's new fields on ScyllaDB", ks: v2Scylla, rowsOf: scylla, ids: []string{"add-field:address.floor", "add-field:address.note"}, class: Safe,
			cql: "ALTER TYPE ks.address ADD floor INT;"},
		{name: "a field of a type a partition key holds", ks: cassandra, edit: func(r *schemaRows) { dropField(typeRowOf(t, r, "geo"), "lon") },
			ids: []string{"change-key-type:geo.lon"}, class: Impossible, reason: "a partition key holds (here of customers_by_spot",
			manual: "DROP TABLE ks.customers_by_spot;"},
		{name: "a field of a type a primary key holds inside another type", ks: cassandra, edit: func(r *schemaRows) {
			dropField(typeRowOf(t, r, "geo"), "lon")
			r.Tables = append(r.Tables, map[string]any{"keyspace_name": "ks", "table_name": "zz_keyed"})
			r.Columns = append(r.Columns, map[string]any{"keyspace_name": "ks", "table_name": "zz_keyed", "column_name": "k", "kind": "partition_key", "position": 0,
				"type": "frozen<list<frozen<address>>>"})
			r.Columns = without(r.Columns, func(m map[string]any) bool {
				return m["table_name"] == "customers_by_spot" && m["kind"] == "partition_key"
			})
			r.Columns = append(r.Columns, map[string]any{"keyspace_name": "ks", "table_name": "customers_by_spot", "column_name": "spot", "kind": "clustering", "position": 0, "type": "frozen<geo>"})
		}, ids: []string{"change-key-type:geo.lon", "change-key:customers_by_spot"}, class: Impossible, reason: "(here of zz_keyed;",
			manual: "a table keyed by the type (zz_keyed)", extra: []string{"table zz_keyed"}},
		{name: "a changed field type", ks: cassandra, edit: func(r *schemaRows) { setField(r, "address", "zip_code", "int") },
			ids: []string{"change-field-type:address.zip_code"}, class: Impossible, reason: `field "zip_code" of type "address": its type is int in live, text in the model`,
			manual: "`kandra:\"new_name\"`"},
		{name: "a field of another type", ks: cassandra, edit: func(r *schemaRows) { setField(r, "address", "where", "frozen<place>") },
			ids: []string{"change-field-type:address.where"}, class: Impossible, reason: "its type is frozen<place> in live, frozen<geo> in the model",
			manual: `ALTER TYPE ks.address RENAME "where" TO where_old;`},
		{name: "a field not frozen", ks: cassandra, edit: func(r *schemaRows) { setField(r, "address", "tags", "list<text>") },
			ids: []string{"change-field-type:address.tags"}, class: Impossible, reason: "its type is list<text> in live, frozen<list<text>> in the model"},
		{name: "an unreadable field", ks: cassandra, edit: func(r *schemaRows) { setField(r, "geo", "lat", "frozen<tuple<int, int>>") },
			ids: []string{"change-field-type:geo.lat"}, class: Impossible, reason: "kandra cannot read its live type"},
		{name: "a field spelled otherwise", ks: cassandra, edit: func(r *schemaRows) {
			setField(r, "address", "street", "varchar")
			setField(r, "address", "tags", "FROZEN <LIST<VARCHAR>>")
			setField(r, "address", "where", " frozen< geo > ")
		}},
		{name: "fields only live has", ks: cassandra, edit: func(r *schemaRows) {
			row := typeRowOf(t, r, "address")
			row["field_names"] = append(slices.Clone(row["field_names"].([]string)), "old", "older")
			row["field_types"] = append(slices.Clone(row["field_types"].([]string)), "int", "frozen<tuple<int, int>>")
			r.Types = append(r.Types, map[string]any{"keyspace_name": "ks", "type_name": "gone", "field_names": []string{"x"}, "field_types": []string{"int"}})
		}, extra: []string{"field address.old", "field address.older", "type gone"}},
		{name: "fields in another order", ks: cassandra, edit: func(r *schemaRows) {
			row := typeRowOf(t, r, "geo")
			row["field_names"], row["field_types"] = []string{"lon", "lat"}, []string{"double", "double"}
		}},
		{name: "a column frozen in live", ks: cassandra, edit: func(r *schemaRows) { col(r, "customers", "home")["type"] = "frozen<address>" },
			ids: []string{"change-type:customers.home"}, class: Impossible, reason: "its type is frozen<address> in live, address in the model"},
		{name: "a column of another type", ks: cassandra, edit: func(r *schemaRows) { col(r, "customers", "past")["type"] = "list<frozen<geo>>" },
			ids: []string{"change-type:customers.past"}, class: Impossible, reason: "its type is list<frozen<geo>> in live, list<frozen<address>> in the model"},
		{name: "a key not frozen in live", ks: cassandra, edit: func(r *schemaRows) { col(r, "customers_by_spot", "spot")["type"] = "geo" },
			ids: []string{"change-key:customers_by_spot"}, class: Impossible, reason: "its type is geo in live, frozen<geo> in the model"},
		{name: "a type live lacks, named by a column", ks: cassandra, edit: func(r *schemaRows) {
			r.Types = without(r.Types, func(m map[string]any) bool { return m["type_name"] == "geo" })
		}, ids: []string{"create-type:geo"}, class: Safe},
		{name: "a dropped column of a type, recorded as a tuple", ks: cassandra, edit: func(r *schemaRows) {
			r.Columns = without(r.Columns, func(m map[string]any) bool { return m["table_name"] == "customers" && m["column_name"] == "past" })
			r.DroppedColumns = append(r.DroppedColumns, map[string]any{"keyspace_name": "ks", "table_name": "customers", "column_name": "past", "kind": "regular",
				"type": "list<frozen<tuple<text, text, frozen<list<text>>, frozen<tuple<double, double>>>>>"})
		}, ids: []string{"re-add-dropped:customers.past"}, class: Impossible, reason: "recorded the dropped column's user-defined type as a tuple"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := c.rowsOf
			if src == nil {
				src = c.ks
			}
			r := rowsOf(src)
			if c.edit != nil {
				c.edit(r)
			}
			p := mustPlan(t, c.ks, mustLive(t, r))
			if got := ids(p.Steps); !slices.Equal(got, c.ids) && (len(got) > 0 || len(c.ids) > 0) {
				t.Fatalf("steps %q, want %q:\n%s", got, c.ids, p)
			}
			if !sameSet(p.Extra, c.extra) && (len(p.Extra) > 0 || len(c.extra) > 0) {
				t.Fatalf("extra %q, want %q", p.Extra, c.extra)
			}
			if len(c.ids) == 0 {
				return
			}
			s := stepOf(t, p, c.ids[0])
			if s.Class != c.class || !strings.Contains(s.Reason, c.reason) || c.cql != "" && s.CQL != c.cql || !strings.Contains(s.Manual, c.manual) {
				t.Fatalf("step %s: %v, reason %q, CQL %q, manual %q; want %v, %q, %q, %q", s.ID, s.Class, s.Reason, s.CQL, s.Manual, c.class, c.reason, c.cql, c.manual)
			}
			if (s.Class == Impossible) != (s.Manual != "" && s.CQL == "") {
				t.Fatalf("step %+v", s)
			}
			if strings.HasPrefix(s.ID, "add-field:") || strings.HasPrefix(s.ID, "change-field-type:") || strings.HasPrefix(s.ID, "change-key-type:") {
				udt, field, _ := strings.Cut(strings.SplitN(s.ID, ":", 2)[1], ".")
				if s.UDT != udt || s.Field != field || s.Table != "" || s.Column != "" {
					t.Fatalf("step %+v: want UDT %q, Field %q", s, udt, field)
				}
			}
			if err := p.Err(); err == nil || !strings.Contains(err.Error(), s.ID) {
				t.Fatalf("Err does not list %s: %v", s.ID, err)
			}
			if script := p.Script(); !strings.Contains(script, "-- ["+s.Class.String()+"] "+s.ID+":") || s.CQL != "" && !strings.Contains(script, s.CQL+"\n") {
				t.Fatalf("the script lacks step %s:\n%s", s.ID, script)
			}
		})
	}
}

// TestPropertyTypeMutations changes the live types of a fixed keyspace in
// random ways (a type or fields gone, fields of another type, spelled
// otherwise, or only in live) and checks the plan against what changed;
// then it applies the plan's safe steps to the rows, as a server would,
// and plans again: only the impossible steps are left.
func TestPropertyTypeMutations(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		targets := rapid.SampledFrom([]kandra.Target{kandra.Cassandra5, kandra.Scylla2026, kandra.AllTargets &^ kandra.Scylla2025Tablets}).Draw(t, "targets")
		src := rapid.SampledFrom([]kandra.SchemaSource{udtCustomers, udtCustomersV2}).Draw(t, "model")
		liveSrc := rapid.SampledFrom([]kandra.SchemaSource{udtCustomers, src}).Draw(t, "live model")
		ks, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: targets, Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 1})}, src)
		if err != nil {
			t.Fatal(err)
		}
		liveKS, err := kandra.NewKeyspace(ks.Spec(), liveSrc)
		if err != nil {
			t.Fatal(err)
		}
		r := rowsOf(liveKS)
		model := map[string]kandra.CQLType{}
		for _, ty := range ks.Types() {
			model[ty.Name()] = ty
		}
		want := map[string]Class{} // the type steps the mutations call for
		var wantExtra []string
		for _, name := range []string{"geo", "address"} {
			row := typeRowOf(t, r, name)
			if rapid.IntRange(0, 5).Draw(t, "drop type "+name) == 0 {
				r.Types = without(r.Types, func(m map[string]any) bool { return m["type_name"] == name })
				want["create-type:"+name] = Safe
				continue
			}
			names, types := slices.Clone(row["field_names"].([]string)), slices.Clone(row["field_types"].([]string))
			for _, f := range model[name].Fields() {
				i := slices.Index(names, f.Name)
				if i < 0 {
					continue // the live model lacks it: v2's new fields
				}
				switch rapid.IntRange(0, 4).Draw(t, "field "+name+"."+f.Name) {
				case 1:
					names, types = slices.Delete(names, i, i+1), slices.Delete(types, i, i+1)
				case 2:
					types[i] = rapid.SampledFrom([]string{otherType(types[i]), "frozen<zz_other>", `frozen<"Geo">`}).Draw(t, "other type")
					want["change-field-type:"+name+"."+f.Name] = Impossible
				case 3:
					types[i] = strings.ToUpper(strings.ReplaceAll(strings.ReplaceAll(types[i], "text", "varchar"), "<", " < "))
				}
			}
			for _, f := range model[name].Fields() {
				if !slices.Contains(names, f.Name) {
					if name == "geo" {
						want["change-key-type:geo."+f.Name] = Impossible // customers_by_spot is keyed by geo
					} else {
						want["add-field:"+name+"."+f.Name] = Safe
					}
				}
			}
			if rapid.IntRange(0, 3).Draw(t, "extra field "+name) == 0 {
				names, types = append(names, "zz_old"), append(types, rapid.SampledFrom([]string{"int", "frozen<list<text>>", "frozen<tuple<int, int>>", "frozen<geo>"}).Draw(t, "extra type"))
				wantExtra = append(wantExtra, "field "+name+".zz_old")
			}
			// Shuffled: servers keep the order fields were added in, which
			// the plan does not compare.
			order := make([]int, len(names))
			for i := range order {
				order[i] = i
			}
			perm := rapid.Permutation(order).Draw(t, "order "+name)
			sn, st := make([]string, len(names)), make([]string, len(types))
			for i, j := range perm {
				sn[i], st[i] = names[j], types[j]
			}
			row["field_names"], row["field_types"] = sn, st
		}
		p := mustPlan(t, ks, mustLive(t, r))
		got := map[string]Class{}
		for _, s := range p.Steps {
			got[s.ID] = s.Class
			if (s.Class == Impossible) != (s.Manual != "" && s.CQL == "") || s.Reason == "" {
				t.Fatalf("step %+v", s)
			}
		}
		if !maps.Equal(got, want) {
			t.Fatalf("steps %v, want %v:\n%s", got, want, p)
		}
		if !sameSet(p.Extra, wantExtra) && (len(p.Extra) > 0 || len(wantExtra) > 0) {
			t.Fatalf("extra %q, want %q", p.Extra, wantExtra)
		}
		// Each type's steps come in Keyspace.Types order: geo's before
		// address's.
		last := -1
		for _, s := range p.Steps {
			if s.Class == Impossible {
				continue
			}
			i := slices.IndexFunc(ks.Types(), func(ty kandra.CQLType) bool { return ty.Name() == s.UDT })
			if i < last {
				t.Fatalf("step %s out of the types' order: %q", s.ID, ids(p.Steps))
			}
			last = i
		}
		// Apply the safe steps as a server does (a created type has the
		// model's fields; an added field goes last), and plan again.
		for _, s := range p.Steps {
			switch s.Kind {
			case StepCreateType:
				r.Types = append(r.Types, typeRow("ks", s.UDT, model[s.UDT].Fields()))
			case StepAddField:
				row := typeRowOf(t, r, s.UDT)
				for _, f := range model[s.UDT].Fields() {
					if f.Name == s.Field {
						row["field_names"] = append(slices.Clone(row["field_names"].([]string)), f.Name)
						row["field_types"] = append(slices.Clone(row["field_types"].([]string)), serverType(f.Type, freezable(f.Type)))
					}
				}
			}
		}
		again := mustPlan(t, ks, mustLive(t, r))
		if len(again.Steps) != len(p.Select(Impossible)) || len(again.Select(Impossible)) != len(again.Steps) {
			t.Fatalf("after the safe steps, the plan is\n%s\nwant the impossible steps of\n%s", again, p)
		}
	})
}

// TestApplyUDT: through the fake cluster, Apply creates the types before
// the table that uses them, then a model with a new field adds it, records
// it in the history, and plans nothing after.
func TestApplyUDT(t *testing.T) {
	ctx := context.Background()
	v1 := udtKS(t, kandra.Cassandra5, udtCustomers)
	f := newFake(nil, v1)
	res, err := Apply(ctx, f, v1, ApplyOptions{Owner: "me"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids2(res.Applied); got != "create-keyspace:ks,create-type:geo,create-type:address,create-table:customers,create-lookup-table:customers_by_spot" {
		t.Fatalf("v1 applied %s", got)
	}
	if p, err := PlanFor(ctx, f, v1); err != nil || !p.Empty() {
		t.Fatalf("v1 again: %v, %v", p, err)
	}
	v2 := udtKS(t, kandra.Cassandra5, udtCustomersV2)
	f.target = v2
	reviewed, err := PlanFor(ctx, f, v2)
	if err != nil {
		t.Fatal(err)
	}
	res, err = Apply(ctx, f, v2, ApplyOptions{Owner: "me"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids2(res.Applied); got != "add-field:address.floor,add-field:address.note" || got != ids2(reviewed.Steps) {
		t.Fatalf("v2 applied %s, reviewed %s", got, ids2(reviewed.Steps))
	}
	if res.Record == nil || res.Record.PlanHash != reviewed.Hash() || strings.Join(res.Record.Steps, ",") != ids2(res.Applied) {
		t.Fatalf("record %+v", res.Record)
	}
	if last := f.schema[len(f.schema)-1]; last != "ALTER TYPE ks.address ADD IF NOT EXISTS note TEXT" {
		t.Fatalf("last statement %q", last)
	}
	if err := Check(ctx, f, v2); err != nil {
		t.Fatal(err)
	}
	h, err := History(ctx, f, v2)
	if err != nil || len(h) != 2 || !slices.Equal(h[1].Steps, []string{"add-field:address.floor", "add-field:address.note"}) {
		t.Fatalf("history %+v, %v", h, err)
	}
	// The fields v1 lacks are extra to it now, and kept.
	p, err := PlanFor(ctx, f, v1)
	if err != nil || !p.Empty() || !sameSet(p.Extra, []string{"field address.floor", "field address.note"}) {
		t.Fatalf("v1 after v2: %v, %v", p, err)
	}
}

// udtIndexed holds address (and, through it, geo) in a clustering column,
// a plain column, and under three indexes: a legacy and an SAI index on
// frozen columns, a values index on a list. Notes maps text keys to
// addresses under a keys index, which compares no address.
type udtIndexed struct {
	ID    uuid.UUID
	At    udtAddress
	Plain udtAddress
	Home  udtAddress
	Work  udtAddress
	Past  []udtAddress
	Notes map[string]udtAddress
}

func (c *udtIndexed) Describe(s *kandra.Schema[udtIndexed]) {
	s.Table("indexed")
	kandra.Bind(s, &c.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &c.At, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &c.Home, kandra.Frozen(), kandra.SecondaryIndex(kandra.UsingLegacy()))
	kandra.Bind(s, &c.Work, kandra.Frozen(), kandra.SecondaryIndex(kandra.UsingSAI()))
	kandra.Bind(s, &c.Past, kandra.SecondaryIndex())
	kandra.Bind(s, &c.Notes, kandra.SecondaryIndex(kandra.IndexKeys()))
}

// udtIndexedV2 is udtIndexed with address's two new fields.
type udtIndexedV2 struct {
	ID    uuid.UUID
	At    udtAddressV2
	Plain udtAddressV2
	Home  udtAddressV2
	Work  udtAddressV2
	Past  []udtAddressV2
	Notes map[string]udtAddressV2
}

func (c *udtIndexedV2) Describe(s *kandra.Schema[udtIndexedV2]) {
	s.Table("indexed")
	kandra.Bind(s, &c.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &c.At, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &c.Home, kandra.Frozen(), kandra.SecondaryIndex(kandra.UsingLegacy()))
	kandra.Bind(s, &c.Work, kandra.Frozen(), kandra.SecondaryIndex(kandra.UsingSAI()))
	kandra.Bind(s, &c.Past, kandra.SecondaryIndex())
	kandra.Bind(s, &c.Notes, kandra.SecondaryIndex(kandra.IndexKeys()))
}

// udtUnindexed holds address in a clustering column and plain columns
// only: a clustering column compares values field by field (a value
// written before ALTER TYPE ... ADD is equal to the same value with the
// new field null), so nothing compares the type's bytes.
type udtUnindexed struct {
	ID    uuid.UUID
	At    udtAddress
	Plain udtAddress
	Past  []udtAddress
}

func (c *udtUnindexed) Describe(s *kandra.Schema[udtUnindexed]) {
	s.Table("unindexed")
	kandra.Bind(s, &c.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &c.At, kandra.ClusteringKey(0, kandra.ClusteringAsc))
}

// TestUDTAddFieldUnderAnIndex (issue 33, finding 6): a field added to a
// type whose values an index holds needs approval, and the reason names
// the indexes, the cost (reads through them miss the rows written before
// until they are written again) and the ways out; a type no index holds
// takes its field as a safe step.
func TestUDTAddFieldUnderAnIndex(t *testing.T) {
	ks := udtKS(t, kandra.Cassandra5, kandra.MustRegister[udtIndexed]())
	const indexes = "index indexed_home_idx on indexed.home, index indexed_past_idx on indexed.past, index indexed_work_idx on indexed.work"
	for _, c := range []struct{ typ, field string }{{"address", "zip_code"}, {"geo", "lat"}} {
		r := rowsOf(ks)
		dropField(typeRowOf(t, r, c.typ), c.field)
		p := mustPlan(t, ks, mustLive(t, r))
		s := stepOf(t, p, "add-field:"+c.typ+"."+c.field)
		if len(p.Steps) != 1 || s.Class != NeedsApproval || s.Kind != StepAddField || !strings.HasPrefix(s.CQL, "ALTER TYPE ks."+c.typ+" ADD ") {
			t.Fatalf("%s.%s: plan\n%s\nwant one add-field step needing approval", c.typ, c.field, p)
		}
		for _, want := range []string{indexes + " compare", "no longer find the rows written before", "until each is written again",
			"the storage-attached index indexed_work_idx finds no row at all, old or new, until it is built again",
			"approve the step, then drop the storage-attached index by hand (DROP INDEX ks.indexed_work_idx;) and apply again", "then write every such row again",
			"kandra refuses to write the type's values", "or keep the type as it is"} {
			if !strings.Contains(s.Reason, want) {
				t.Errorf("%s.%s: the reason lacks %q:\n%s", c.typ, c.field, want, s.Reason)
			}
		}
		if strings.Contains(s.Reason, "indexed_notes_idx") || strings.Contains(s.Reason, "indexed.at") || strings.Contains(s.Reason, "indexed.plain") {
			t.Errorf("%s.%s: the reason names what compares no %s:\n%s", c.typ, c.field, c.typ, s.Reason)
		}
	}
	// Unapproved, Apply leaves the steps; approved, it runs them. (The
	// fake cluster keeps no indexes: each apply creates them again.)
	v2 := udtKS(t, kandra.Cassandra5, kandra.MustRegister[udtIndexedV2]())
	f := newFake(ks, v2)
	addFields := func(steps []Step) string {
		var out []Step
		for _, s := range steps {
			if s.Kind == StepAddField {
				out = append(out, s)
			}
		}
		return ids2(out)
	}
	res, err := Apply(context.Background(), f, v2, ApplyOptions{Owner: "me"})
	if err != nil || addFields(res.Applied) != "" || ids2(res.Unapproved) != "add-field:address.floor,add-field:address.note" {
		t.Fatalf("v2 unapproved: %+v, %v", res, err)
	}
	res, err = Apply(context.Background(), f, v2, ApplyOptions{Owner: "me", Approve: []string{"add-field:address.floor", "add-field:address.note"}})
	if err != nil || addFields(res.Applied) != "add-field:address.floor,add-field:address.note" || len(res.Unapproved) != 0 {
		t.Fatalf("v2 approved: %+v, %v", res, err)
	}
	// An index the model adds to a live column indexes the rows there
	// now: it counts before it exists.
	r := rowsOf(ks)
	dropField(typeRowOf(t, r, "address"), "zip_code")
	r.Indexes = without(r.Indexes, func(m map[string]any) bool { return m["index_name"] == "indexed_home_idx" })
	p := mustPlan(t, ks, mustLive(t, r))
	if s := stepOf(t, p, "add-field:address.zip_code"); s.Class != NeedsApproval || !strings.Contains(s.Reason, indexes) {
		t.Fatalf("with the home index still to create:\n%s", p)
	}
	// Without a live SAI index, no rebuild is asked for.
	r = rowsOf(ks)
	dropField(typeRowOf(t, r, "address"), "zip_code")
	r.Indexes = without(r.Indexes, func(m map[string]any) bool { return m["index_name"] == "indexed_work_idx" })
	if s := stepOf(t, mustPlan(t, ks, mustLive(t, r)), "add-field:address.zip_code"); s.Class != NeedsApproval || strings.Contains(s.Reason, "DROP INDEX") ||
		!strings.Contains(s.Reason, "approve the step, then write every such row again") {
		t.Fatalf("with the SAI index still to create: %s", s.Reason)
	}
	// No index holds the type: safe, as before.
	plain := udtKS(t, kandra.Cassandra5, kandra.MustRegister[udtUnindexed]())
	r = rowsOf(plain)
	dropField(typeRowOf(t, r, "address"), "zip_code")
	if s := stepOf(t, mustPlan(t, plain, mustLive(t, r)), "add-field:address.zip_code"); s.Class != Safe || strings.Contains(s.Reason, "index") {
		t.Fatalf("no index: %+v", s)
	}
}
