package migrate

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
	"pgregory.net/rapid"
)

// rowsBuilder writes system_schema rows by hand, as a server holds them.
type rowsBuilder struct {
	ks string
	r  *schemaRows
}

func newRows(ks string, replication map[string]string, durable bool) *rowsBuilder {
	b := &rowsBuilder{ks: ks, r: &schemaRows{}}
	b.r.Keyspaces = append(b.r.Keyspaces, map[string]any{"keyspace_name": ks, "durable_writes": durable, "replication": replication})
	return b
}

// table adds a table row with the servers' defaults, then extra's
// entries.
func (b *rowsBuilder) table(name string, extra map[string]any) {
	row := map[string]any{"keyspace_name": b.ks, "table_name": name, "id": "5a1c3d4e-0000-4000-8000-000000000000", "default_time_to_live": 0,
		"gc_grace_seconds": 864000, "flags": []string{"compound"},
		"caching":     map[string]string{"keys": "ALL", "rows_per_partition": "NONE"},
		"compaction":  map[string]string{"class": "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy", "max_threshold": "32", "min_threshold": "4"},
		"compression": map[string]string{"chunk_length_in_kb": "16", "class": "org.apache.cassandra.io.compress.LZ4Compressor"},
		"comment":     "", "speculative_retry": "99p", "bloom_filter_fp_chance": 0.01}
	for k, v := range extra {
		row[k] = v
	}
	b.r.Tables = append(b.r.Tables, row)
}

// col adds a column: kind p(artition key), c(lustering), s(tatic) or
// r(egular), at position pos, in order for a clustering column.
func (b *rowsBuilder) col(table, name, kind string, pos int, order, typ string) {
	k := map[string]ColumnKind{"p": ColumnPartitionKey, "c": ColumnClustering, "s": ColumnStatic, "r": ColumnRegular}[kind]
	if order == "" {
		order = "none"
	}
	if k == ColumnStatic || k == ColumnRegular {
		pos = -1
	}
	b.r.Columns = append(b.r.Columns, map[string]any{"keyspace_name": b.ks, "table_name": table, "column_name": name, "kind": string(k), "position": pos, "clustering_order": order, "type": typ})
}

func (b *rowsBuilder) index(table, name, kind string, opts map[string]string) {
	b.r.Indexes = append(b.r.Indexes, map[string]any{"keyspace_name": b.ks, "table_name": table, "index_name": name, "kind": kind, "options": opts})
}

func (b *rowsBuilder) udt(name string, fields ...string) {
	var names, types []string
	for i := 0; i < len(fields); i += 2 {
		names, types = append(names, fields[i]), append(types, fields[i+1])
	}
	b.r.Types = append(b.r.Types, map[string]any{"keyspace_name": b.ks, "type_name": name, "field_names": names, "field_types": types})
}

func (b *rowsBuilder) mask(table, column, fn string, types, values []string) {
	b.r.ColumnMasks = append(b.r.ColumnMasks, map[string]any{"keyspace_name": b.ks, "table_name": table, "column_name": column, "function_keyspace": "system",
		"function_name": fn, "function_argument_types": types, "function_argument_values": values, "function_argument_nulls": make([]bool, len(types))})
}

var cassandra508 = Server{Product: cassandraProduct, Version: "5.0.8", Targets: kandra.Cassandra5 | kandra.Cassandra5Latest}

// oddRows is a Cassandra keyspace of what a model does not say as
// simply: a type and a table of one name, colliding Go names, types
// whose fields need a type of their own, masks, an index of another name,
// a table shaped as a lookup kandra refuses, options of cassandra_latest.yaml,
// a frozen list (Frozen), and what kandra cannot say (a tuple, a set of blobs, a
// vector of ints, a type holding a tuple, a SASI index, a second index on
// a column, a COMPACT STORAGE table, a table of static columns only,
// functions, a non-durable keyspace, a compaction setting).
func oddRows() *rowsBuilder {
	b := newRows("odd", map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "3"}, false)
	b.udt("address", "street", "text", "zip", "ascii", "since", "date", "id", "timeuuid", "amount", "decimal", "at", "time", "Tags", "frozen<set<ascii>>")
	b.udt("unused_t", "x", "int")
	b.udt("bad_t", "t", "frozen<tuple<int, text>>")
	b.table("address", map[string]any{"memtable": "trie", "default_time_to_live": 630720000,
		"compaction": map[string]string{"class": "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy", "max_threshold": "32", "min_threshold": "8"}})
	b.col("address", "id", "p", 0, "", "uuid")
	b.col("address", "UserID", "r", 0, "", "text")
	b.col("address", "user_id", "r", 0, "", "text")
	b.col("address", "describe", "r", 0, "", "int")
	b.col("address", "places", "r", 0, "", "map<date, frozen<address>>")
	b.col("address", "home", "r", 0, "", "frozen<address>")
	b.col("address", "loc", "r", 0, "", "frozen<tuple<int, int>>")
	b.col("address", "flist", "r", 0, "", "frozen<list<int>>")
	b.col("address", "blobs", "r", 0, "", "set<blob>")
	b.col("address", "vi", "r", 0, "", "vector<int, 3>")
	b.col("address", "bad", "r", 0, "", "frozen<bad_t>")
	b.col("address", "note", "r", 0, "", "text")
	b.col("address", "digest", "r", 0, "", "blob")
	b.index("address", "addr_user", "COMPOSITES", map[string]string{"target": "user_id"})
	b.index("address", "address_user_id_sasi", "CUSTOM", map[string]string{"target": "user_id", "class_name": "org.apache.cassandra.index.sasi.SASIIndex"})
	b.index("address", "describe_sasi", "CUSTOM", map[string]string{"target": "describe", "class_name": "org.apache.cassandra.index.sasi.SASIIndex"})
	b.mask("address", "UserID", "mask_inner", []string{"int", "int", "text"}, []string{"1", "2", "#"})
	b.mask("address", "describe", "mask_replace", []string{"int"}, []string{"0"})
	b.mask("address", "digest", "mask_hash", []string{"text"}, []string{"SHA-512"})
	b.table("users", nil)
	b.col("users", "id", "p", 0, "", "uuid")
	b.col("users", "email", "r", 0, "", "text")
	b.table("users_by_email", nil)
	b.col("users_by_email", "email", "p", 0, "", "text")
	b.col("users_by_email", "id", "r", 0, "", "uuid")
	b.col("users_by_email", kandra.ClaimColumn, "r", 0, "", "bigint")
	b.table("users_by_id", nil)
	b.col("users_by_id", "id", "p", 0, "", "uuid")
	b.col("users_by_id", kandra.ClaimColumn, "r", 0, "", "bigint")
	b.table("legacy", map[string]any{"flags": []string{"dense"}})
	b.col("legacy", "k", "p", 0, "", "text")
	b.col("legacy", "c", "c", 0, "asc", "text")
	b.col("legacy", "v", "r", 0, "", "blob")
	b.table("statics", nil)
	b.col("statics", "a", "p", 0, "", "int")
	b.col("statics", "b", "c", 0, "desc", "int")
	b.col("statics", "s", "s", 0, "", "text")
	b.table("keyed_tuple", nil)
	b.col("keyed_tuple", "k", "p", 0, "", "frozen<tuple<int, int>>")
	b.col("keyed_tuple", "v", "r", 0, "", "text")
	b.table(ownTablePrefix+"schema_history", nil)
	b.col(ownTablePrefix+"schema_history", "id", "p", 0, "", "timeuuid")
	b.r.Functions = append(b.r.Functions, map[string]any{"keyspace_name": "odd", "function_name": "plus", "argument_types": []string{"int", "int"}, "return_type": "int"})
	b.r.Aggregates = append(b.r.Aggregates, map[string]any{"keyspace_name": "odd", "aggregate_name": "total", "argument_types": []string{"int"}, "return_type": "int"})
	return b
}

// scyllaRows is a ScyllaDB 2026.x tablets keyspace in ScyllaDB's dialect.
func scyllaRows() *rowsBuilder {
	b := newRows("sc", map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "dc1": "3"}, true)
	b.table("items", map[string]any{"caching": map[string]string{"enabled": "false", "keys": "ALL", "rows_per_partition": "ALL"},
		"compression":       map[string]string{"sstable_compression": "org.apache.cassandra.io.compress.SnappyCompressor"},
		"speculative_retry": "95.0PERCENTILE", "compaction": map[string]string{"class": "IncrementalCompactionStrategy"}})
	b.col("items", "id", "p", 0, "", "uuid")
	b.col("items", "sku", "r", 0, "", "text")
	b.col("items", "tags", "r", 0, "", "set<text>")
	b.index("items", "items_tags_idx", "COMPOSITES", map[string]string{"target": "tags"})
	b.table("items_by_sku", map[string]any{"compression": map[string]string{"sstable_compression": "org.apache.cassandra.io.compress.LZ4Compressor"}})
	b.col("items_by_sku", "sku", "p", 0, "", "text")
	b.col("items_by_sku", "id", "r", 0, "", "uuid")
	b.col("items_by_sku", kandra.ClaimColumn, "r", 0, "", "bigint")
	b.table("other", map[string]any{"speculative_retry": "99.0PERCENTILE", "compression": map[string]string{"sstable_compression": "org.apache.cassandra.io.compress.LZ4Compressor"}})
	b.col("other", "k", "p", 0, "", "int")
	return b
}

func generated(t *testing.T, live *Live, opts ImportOptions) (*Imported, string) {
	t.Helper()
	imp, err := GenerateEntities(live, opts)
	if err != nil {
		t.Fatal(err)
	}
	return imp, checkSource(t, imp.Source)
}

func contains(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.Contains(g, w) }) {
			t.Errorf("%s lacks %q:\n  %s", what, w, strings.Join(got, "\n  "))
		}
	}
}

// TestGenerateEntitiesOdd: what a model cannot say is listed, each with
// its way out; what it can say is said.
func TestGenerateEntitiesOdd(t *testing.T) {
	live := liveNamed(t, oddRows().r, "odd")
	live.Server = cassandra508
	imp, src := generated(t, live, ImportOptions{})
	contains(t, "Unexpressed", imp.Unexpressed,
		"keyspace odd: durable_writes = false",
		"column address.loc (frozen<tuple<int, int>>): is of a type kandra has no Go type for",
		"column address.vi (vector<int, 3>): is a vector of int",
		`column address.bad (frozen<bad_t>): holds the user-defined type "bad_t", which kandra cannot declare`,
		"index address_user_id_sasi on address.user_id: kandra gives a column one index",
		`index describe_sasi on address.describe: a custom index of class "org.apache.cassandra.index.sasi.SASIIndex"`,
		"compaction SizeTieredCompactionStrategy: its setting min_threshold = \"8\" has no kandra form",
		"table keyed_tuple: its key column \"k\" is of a type kandra has no Go type for",
		"table legacy: a table of the legacy form COMPACT STORAGE, dense",
		"table statics: every non-key column kandra can write is static",
		"type unused_t: no imported column holds it",
		"type bad_t: kandra cannot declare it: one of its fields is of a type kandra cannot read",
		"user function plus(int, int)",
		"user aggregate total(int)",
	)
	contains(t, "Notes", imp.Notes,
		"table users_by_email taken as the lookup by_email of users (UNIQUE",
		"table users_by_id is shaped as the lookup by_id of users.id, which kandra refuses (a lookup by the only partition-key column",
		"the targets are Cassandra5Latest alone",
		"the migrator's own tables (kandra_schema_history)",
		"decimal values use the generated type Decimal",
		"columns of a set of blobs or a map keyed by a collection use the generated type Opaque",
	)
	for _, want := range []string{
		"Replication: kandra.SimpleStrategy(3),",
		"Targets:     kandra.Cassandra5Latest,",
		"add(kandra.Register[Address]())",
		"add(kandra.Register[UsersByID]())",
		"type Address struct {",  // the table's
		"type Address2 struct {", // the type's
		`func (Address2) UDTName() string { return "address" }`,
		"\tUserID2   string\n",
		`kandra.Bind(s, &e.UserID, kandra.Column("UserID"), kandra.Masked(kandra.MaskInner(1, 2, '#')))`,
		`kandra.Bind(s, &e.UserID2, kandra.Column("user_id"), kandra.SecondaryIndex(kandra.UsingLegacy(), kandra.IndexNamed("addr_user")))`,
		`kandra.Bind(s, &e.Describe2, kandra.Column("describe"), kandra.Masked(kandra.MaskReplace(int64(0))))`,
		`kandra.Bind(s, &e.Digest, kandra.Masked(kandra.MaskHash("SHA-512")))`,
		"Places    map[Date]Address2",
		"Home      Address2",
		"kandra.Memtable(\"trie\")",
		"kandra.DefaultTTL(630720000*time.Second)",
		"\tZip    ASCII\n", "\tSince  Date\n", "\tID     TimeUUID\n", "\tAmount Decimal\n", "\tAt     TimeOfDay\n",
		"\tTags   map[ASCII]struct{} `kandra:\"Tags\"`\n",
		"type ASCII string", "type Date time.Time", "type TimeOfDay time.Duration", "type TimeUUID uuid.UUID",
		"func (Date) CQLType() kandra.CQLType { return kandra.CQLDate }",
		`kandra.Bind(s, &e.Email, kandra.Lookup("by_email", kandra.LookupUnique))`,
		"kandra.Bind(s, &e.Blobs, kandra.AsType(kandra.SetOf(kandra.CQLBlob)))",
		"kandra.Bind(s, &e.Flist, kandra.Frozen())",
		"type Opaque struct{ _ int64 }",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the source lacks %q", want)
		}
	}
	for _, not := range []string{"Loc ", "Vi ", "type Legacy", "Statics", "KeyedTuple", "UnusedT", "BadT", "KandraSchemaHistory", "UsersByEmail"} {
		if strings.Contains(src[strings.Index(src, "package "):], not) {
			t.Errorf("the source has %q", not)
		}
	}
	// Masks kandra does not take where they are, or on a target without
	// masks: listed, and the column written without its mask.
	b := oddRows()
	b.mask("address", "user_id", "mask_null", nil, nil)
	b.mask("address", "id", "mask_default", nil, nil)
	b.mask("address", "note", "mask_hash", nil, nil)
	b.r.ColumnMasks = append(b.r.ColumnMasks, map[string]any{"keyspace_name": "odd", "table_name": "users", "column_name": "email", "function_keyspace": "odd",
		"function_name": "redact", "function_argument_types": []string{}, "function_argument_values": []string{}})
	live = liveNamed(t, b.r, "odd")
	live.Server = cassandra508
	imp, _ = generated(t, live, ImportOptions{})
	contains(t, "Unexpressed", imp.Unexpressed,
		"the mask mask_null() of column address.user_id: kandra takes no mask on a key, indexed or lookup column",
		"the mask mask_default() of column address.id: kandra takes no mask on a key",
		"the mask mask_hash() of column address.note: ",
		"the mask odd.redact() of column users.email: kandra cannot model it: it is the user-defined function odd.redact")
	imp, src = generated(t, liveNamed(t, oddRows().r, "odd"), ImportOptions{Targets: kandra.AllTargets})
	contains(t, "Unexpressed", imp.Unexpressed, "the mask mask_inner(1, 2, '#') of column address.UserID: only Cassandra has masks")
	if t.Failed() {
		t.Logf("source:\n%s", src)
	}
}

// TestGenerateEntitiesScylla: a ScyllaDB keyspace's targets are its
// distribution's, and its options are written in ScyllaDB's dialect.
func TestGenerateEntitiesScylla(t *testing.T) {
	live := liveNamed(t, scyllaRows().r, "sc")
	live.Server = Server{Product: scyllaProduct, Version: "2026.1.2", Targets: kandra.Scylla2026 | kandra.Scylla2026Tablets}
	live.Keyspace.Tablets = true
	imp, src := generated(t, live, ImportOptions{})
	if len(imp.Unexpressed) > 0 {
		t.Errorf("unexpressed %q", imp.Unexpressed)
	}
	for _, want := range []string{
		"Targets:     kandra.Scylla2026Tablets,",
		"kandra.Compaction(kandra.Incremental()),\n\t\tkandra.Compression(kandra.SnappyCompressor, 0),\n\t\tkandra.ScyllaCaching(false),\n\t\tkandra.SpeculativeRetry(\"95PERCENTILE\"),",
		"kandra.Bind(s, &e.Tags, kandra.SecondaryIndex())",
		`kandra.Bind(s, &e.SKU, kandra.Lookup("by_sku", kandra.LookupUnique))`,
		"s.Table(\"other\")\n",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the source lacks %q", want)
		}
	}
	contains(t, "Notes", imp.Notes, "the keyspace uses tablets on ScyllaDB 2026.1.2: its targets are ScyllaDB 2026.x with tablets")
	// On ScyllaDB 2025.x with tablets, a unique lookup is refused.
	live.Server = Server{Product: scyllaProduct, Version: "2025.1.2", Targets: kandra.Scylla2025 | kandra.Scylla2025Tablets}
	imp, src = generated(t, live, ImportOptions{})
	contains(t, "Notes", imp.Notes, "table items_by_sku is shaped as the lookup by_sku of items.sku, which kandra refuses (a unique lookup claims values with lightweight transactions")
	if !strings.Contains(src, "add(kandra.Register[ItemsBySKU]())") {
		t.Errorf("items_by_sku is not a table of its own:\n%s", src)
	}
	if t.Failed() {
		t.Logf("source:\n%s", src)
	}
}

// TestGenerateEntitiesErrors: what GenerateEntities cannot write a model
// of is an error that says so, and the way out.
func TestGenerateEntitiesErrors(t *testing.T) {
	ok := liveNamed(t, scyllaRows().r, "sc")
	for _, c := range []struct {
		live *Live
		opts ImportOptions
		want string
	}{
		{nil, ImportOptions{}, "nil *Live"},
		{&Live{}, ImportOptions{}, "does not exist"},
		{ok, ImportOptions{Package: "my-model"}, `package name "my-model" is not a Go identifier`},
		{liveNamed(t, newRows("system_auth", map[string]string{"class": "SimpleStrategy", "replication_factor": "1"}, true).r, "system_auth"), ImportOptions{}, `keyspace "system_auth" is one of the server's own`},
		{liveNamed(t, newRows("r", map[string]string{"class": "org.apache.cassandra.locator.EverywhereStrategy"}, true).r, "r"), ImportOptions{}, `replication class "org.apache.cassandra.locator.EverywhereStrategy" is neither SimpleStrategy nor NetworkTopologyStrategy`},
		{liveNamed(t, newRows("r", map[string]string{"class": "SimpleStrategy", "replication_factor": "3/1"}, true).r, "r"), ImportOptions{}, `replication_factor="3/1" is not a whole number`},
	} {
		_, err := GenerateEntities(c.live, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("GenerateEntities: %v, want %q", err, c.want)
		}
	}
	// No server known: no targets, and a note.
	imp, src := generated(t, ok, ImportOptions{})
	contains(t, "Notes", imp.Notes, "the server is not known")
	if strings.Contains(src, "Targets:") {
		t.Errorf("targets without a server:\n%s", src)
	}
}

// TestImportFake: Import reads the live schema and the server through a
// driver, and writes the model of the keyspace with the server's targets.
func TestImportFake(t *testing.T) {
	ks := impKeyspace(t)
	imp, err := importWith(context.Background(), newFake(ks, ks), "shop", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	src := checkSource(t, imp.Source)
	if !strings.Contains(src, "Targets:     kandra.Cassandra5 | kandra.Cassandra5Latest,") || !strings.Contains(src, "on Cassandra 5.0.8") {
		t.Errorf("the model is not of the server read:\n%s", src)
	}
	if _, err := importWith(context.Background(), newFake(nil, ks), "shop", ImportOptions{}); err == nil || !strings.Contains(err.Error(), `keyspace "shop" does not exist on Cassandra 5.0.8`) {
		t.Errorf("Import of a missing keyspace: %v", err)
	}
	if _, err := Import(context.Background(), nil, "shop", ImportOptions{}); err == nil || !strings.Contains(err.Error(), "nil adapter.Driver") {
		t.Errorf("Import without a driver: %v", err)
	}
}

// TestPropertyGenerateEntities: the model of any schema kandra makes is
// said whole (nothing unexpressed), each lookup table taken as the lookup
// it is, in a file that parses, gofmt leaves as it is, and that the same
// schema writes the same way. The compiled round trip
// (TestImportRoundTripCompiled) proves what it plans.
func TestPropertyGenerateEntities(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ks, ts := drawKeyspace(t)
		live := liveOf(t, ks)
		imp, err := GenerateEntities(live, ImportOptions{Targets: ks.Targets()})
		if err != nil {
			t.Fatalf("GenerateEntities: %v", err)
		}
		checkSource(t, imp.Source)
		if lost := blobKeyedColumns(live); len(lost) > 0 {
			// A [N]byte map key or set element stored as BLOB: the live
			// type does not say N, so no Go type holds it (seed
			// 1434206321). Each such column, and a type only it holds, is
			// listed, and nothing else.
			for _, u := range imp.Unexpressed {
				if !strings.Contains(u, "keyed by blob") && !strings.Contains(u, "no imported column holds it") {
					t.Fatalf("unexpressed %q: want only the blob-keyed columns %q\n%s", u, lost, imp.Source)
				}
			}
			for _, c := range lost {
				if !slices.ContainsFunc(imp.Unexpressed, func(u string) bool { return strings.Contains(u, strconv.Quote(c)) || strings.Contains(u, "."+c+" (") }) {
					t.Fatalf("column %s is not listed in %q", c, imp.Unexpressed)
				}
			}
			return
		}
		if len(imp.Unexpressed) > 0 {
			t.Fatalf("unexpressed %q\n%s", imp.Unexpressed, imp.Source)
		}
		if len(imp.Entities) != 1 {
			t.Fatalf("entities %q, want one", imp.Entities)
		}
		for _, l := range ts.LookupTables() {
			want := "table " + l.Name() + " taken as the lookup " + l.Suffix() + " of " + ts.Name() + " ("
			if !slices.ContainsFunc(imp.Notes, func(n string) bool { return strings.HasPrefix(n, want) }) {
				t.Fatalf("no note %q in %q", want, imp.Notes)
			}
		}
		again, err := GenerateEntities(liveOf(t, ks), ImportOptions{Targets: ks.Targets()})
		if err != nil || string(again.Source) != string(imp.Source) {
			t.Fatalf("a second generation differs (%v):\n%s\n---\n%s", err, imp.Source, again.Source)
		}
	})
}

// blobKeyedColumns are the live columns whose type holds a map keyed by
// BLOB or a set of BLOB that the Opaque helper cannot declare (a
// user-defined type inside): what a [N]byte map key or set element stored
// as BLOB becomes, whose length the live type does not say.
func blobKeyedColumns(live *Live) []string {
	var held func(t kandra.CQLType) bool
	held = func(t kandra.CQLType) bool {
		switch t.Kind() {
		case kandra.KindSet:
			return t.Elem().Equal(kandra.CQLBlob) || held(t.Elem())
		case kandra.KindMap:
			return t.Key().Equal(kandra.CQLBlob) || held(t.Key()) || held(t.Elem())
		case kandra.KindList:
			return held(t.Elem())
		}
		return false
	}
	var out []string
	for _, lt := range live.Keyspace.Tables {
		for _, c := range lt.Columns {
			if held(c.Type) && !opaqueable(c.Type) {
				out = append(out, c.Name)
			}
		}
	}
	return out
}
