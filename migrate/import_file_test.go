package migrate

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
	"pgregory.net/rapid"
)

// fileCase is one schema file read by ParseSchemaFile: what its Live
// holds, what it lists, or the error.
type fileCase struct {
	name, src, keyspace string
	// err is a piece of the error; "" wants none.
	err string
	// columns are "table.column: kind position order type" for every
	// column of the listed tables.
	columns map[string][]string
	// indexes are "table: name kind options" of the listed tables.
	indexes map[string][]string
	// options are the wanted LiveTable.Options of the listed tables.
	options map[string]map[string]string
	// check looks at whatever else.
	check func(t *testing.T, sf *SchemaFile)
	// unexp are pieces of the Unexpressed entries, one per entry, in
	// order.
	unexp []string
}

const ksHead = "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3};\n"

var fileCases = []fileCase{
	{name: "columns", src: ksHead + `
		-- a comment; with a semicolon
		CREATE TABLE ks.t (
			k int, "CK" varchar, c2 timeuuid,
			v VARCHAR, m map<text, frozen<list<int>>>, fl frozen<set<text>>, st text static, tu tuple<int, list<int>>, vec vector<float, 3>,
			PRIMARY KEY ((k), "CK", c2),  /* trailing comma */
		) WITH CLUSTERING ORDER BY ("CK" DESC) AND comment = 'it''s';`,
		columns: map[string][]string{"t": {
			"k partition_key 0 none int", "CK clustering 0 desc text", "c2 clustering 1 asc timeuuid",
			"fl regular -1 none frozen<set<text>>", "m regular -1 none map<text, frozen<list<int>>>", "st static -1 none text",
			"tu regular -1 none frozen<tuple<int, frozen<list<int>>>>", "v regular -1 none text", "vec regular -1 none vector<float, 3>"}},
		options: map[string]map[string]string{"t": {"comment": "it's"}},
		check: func(t *testing.T, sf *SchemaFile) {
			lt := sf.Live.Table("t")
			if lt.GCGrace != defaultGCGrace || lt.DefaultTTL != 0 || !slices.Equal(lt.Flags, []string{"compound"}) {
				t.Errorf("gc %v ttl %v flags %v; want the servers' defaults", lt.GCGrace, lt.DefaultTTL, lt.Flags)
			}
			if r := sf.Live.Keyspace.Replication; r["class"] != "org.apache.cassandra.locator.SimpleStrategy" || r["replication_factor"] != "3" {
				t.Errorf("replication %v", r)
			}
			if sf.Live.Server.Product != "" {
				t.Errorf("Server %v, want unknown", sf.Live.Server)
			}
		}},
	{name: "inline key and unqualified names", keyspace: "app", src: `CREATE TABLE Users (ID uuid PRIMARY KEY, "Name" text)`,
		columns: map[string][]string{"users": {"id partition_key 0 none uuid", "Name regular -1 none text"}},
		unexp:   []string{}, check: func(t *testing.T, sf *SchemaFile) {
			if len(sf.Notes) != 1 || !strings.Contains(sf.Notes[0], "does not create keyspace app") {
				t.Errorf("notes %q, want the replication's", sf.Notes)
			}
		}},
	{name: "types", src: ksHead + `
		CREATE TYPE IF NOT EXISTS ks.kv (key text, value_binary blob,);
		CREATE TYPE ks."Addr" (street text, tags frozen<list<kv>>, t tuple<int, text>);
		CREATE TYPE IF NOT EXISTS ks.kv (other int);
		CREATE TABLE ks.t (k frozen<"Addr"> PRIMARY KEY, l list<frozen<kv>>, a frozen<"Addr">);`,
		columns: map[string][]string{"t": {`k partition_key 0 none frozen<"Addr">`, "a regular -1 none frozen<\"Addr\">", "l regular -1 none list<frozen<kv>>"}},
		check: func(t *testing.T, sf *SchemaFile) {
			a := sf.Live.Keyspace.Types["Addr"]
			if a == nil || !slices.Equal(a.FieldTypes, []string{"text", "frozen<list<frozen<kv>>>", "frozen<tuple<int, text>>"}) {
				t.Errorf("type Addr: %+v", a)
			}
			if kv := sf.Live.Keyspace.Types["kv"]; kv == nil || kv.Type.IsZero() || len(kv.FieldNames) != 2 {
				t.Errorf("type kv: %+v", kv)
			}
		}},
	{name: "indexes", src: ksHead + `
		CREATE TABLE ks.t (k int, c int, v text, m map<text, int>, l list<int>, fl frozen<list<int>>, "V2" text, vec vector<float, 2>, PRIMARY KEY (k, c));
		CREATE INDEX ON ks.t (v);
		CREATE INDEX ON ks.t (keys(m));
		CREATE INDEX ON ks.t (entries(m));
		CREATE INDEX ON ks.t (m);
		CREATE INDEX named ON ks.t (l);
		CREATE INDEX IF NOT EXISTS ON ks.t (full(fl));
		CREATE INDEX ON ks.t ("V2") USING 'sai' WITH OPTIONS = {'case_sensitive': false};
		CREATE CUSTOM INDEX vi ON ks.t (vec) USING 'StorageAttachedIndex' WITH OPTIONS = {'similarity_function': 'COSINE'};
		CREATE INDEX IF NOT EXISTS again ON ks.t (v);
		CREATE INDEX ON ks.t (c) USING 'legacy_local_table';`,
		indexes: map[string][]string{"t": {
			"named COMPOSITES map[target:values(l)]", "t_V2_idx CUSTOM map[case_sensitive:false class_name:sai target:\"V2\"]",
			"t_c_idx COMPOSITES map[target:c]",
			"t_fl_idx COMPOSITES map[target:full(fl)]", "t_m_idx COMPOSITES map[target:keys(m)]", "t_m_idx_1 COMPOSITES map[target:entries(m)]",
			"t_m_idx_2 COMPOSITES map[target:values(m)]", "t_v_idx COMPOSITES map[target:v]",
			"vi CUSTOM map[class_name:StorageAttachedIndex similarity_function:COSINE target:vec]"}},
		err: "", unexp: []string{}},
	{name: "options", src: ksHead + `
		CREATE TABLE ks.a (k int PRIMARY KEY) WITH compaction = {'class': 'LeveledCompactionStrategy', 'sstable_size_in_mb': 100}
			AND compression = {'enabled': false} AND speculative_retry = '95PERCENTILE' AND gc_grace_seconds = 10 AND default_time_to_live = 60;
		CREATE TABLE ks.b (k int PRIMARY KEY) WITH caching = {'rows_per_partition': 'all'} AND speculative_retry = 'NONE'
			AND compression = {'chunk_length_kb': 64, 'class': 'LZ4Compressor'} AND bloom_filter_fp_chance = 0.02 AND cdc = false;
		CREATE TABLE ks.c (k int PRIMARY KEY) WITH speculative_retry = 'min(50ms, 90PERCENTILE)' AND compaction = {'class': 'UnifiedCompactionStrategy'}
			AND compression = {'class': 'ZstdCompressor', 'enabled': 'true'} AND memtable = 'trie' AND crc_check_chance = 1.0 AND read_repair = 'BLOCKING';
		CREATE TABLE ks.d (k int PRIMARY KEY) WITH crc_check_chance = 0.5 AND extensions = {};
		CREATE TABLE ks.e (k int PRIMARY KEY) WITH compression = {'sstable_compression': ''};
		CREATE TABLE ks.f (k int PRIMARY KEY) WITH compression = {'sstable_compression': 'LZ4Compressor', 'chunk_length_in_kb': 4};`,
		options: map[string]map[string]string{
			"a": {"compaction.class": "org.apache.cassandra.db.compaction.LeveledCompactionStrategy", "compaction.sstable_size_in_mb": "100",
				"compaction.max_threshold": "32", "compaction.min_threshold": "4", "compression.enabled": "false", "speculative_retry": "95p"},
			"b": {"caching.keys": "NONE", "caching.rows_per_partition": "ALL", "speculative_retry": "NEVER", "compression.chunk_length_in_kb": "64",
				"compression.class": "org.apache.cassandra.io.compress.LZ4Compressor", "bloom_filter_fp_chance": "0.02", "cdc": "false"},
			"c": {"speculative_retry": "MIN(90p,50ms)", "compaction.class": "org.apache.cassandra.db.compaction.UnifiedCompactionStrategy",
				"compression.class": "org.apache.cassandra.io.compress.ZstdCompressor", "memtable": "trie"},
			// ScyllaDB's spellings, as it stores them: none as an empty map.
			"e": {},
			"f": {"compression.sstable_compression": "org.apache.cassandra.io.compress.LZ4Compressor", "compression.chunk_length_in_kb": "4"},
		},
		check: func(t *testing.T, sf *SchemaFile) {
			if a := sf.Live.Table("a"); a.GCGrace != 10*time.Second || a.DefaultTTL != time.Minute {
				t.Errorf("a: gc %v ttl %v", a.GCGrace, a.DefaultTTL)
			}
		},
		unexp: []string{"table d: crc_check_chance = 0.5 (line 9)"}},
	{name: "masks functions views triggers", src: ksHead + `
		CREATE TABLE ks.t (k int, c int, v text MASKED WITH mask_inner(1, null), w int MASKED WITH DEFAULT, x date MASKED WITH mask_replace('2020-01-01'), PRIMARY KEY (k, c));
		CREATE OR REPLACE FUNCTION ks.f(a list<int>, b text) RETURNS NULL ON NULL INPUT RETURNS map<int, text> LANGUAGE java AS $$ return null; $$;
		CREATE AGGREGATE IF NOT EXISTS ks.ag(list<int>, text) SFUNC f STYPE map<int, text>;
		CREATE MATERIALIZED VIEW ks.v AS SELECT * FROM ks.t WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k);
		CREATE TRIGGER tr ON ks.t USING 'org.example.Trigger';
		INSERT INTO ks.t (k, c) VALUES (1, 2);
		GRANT SELECT ON KEYSPACE ks TO bob;`,
		check: func(t *testing.T, sf *SchemaFile) {
			lt := sf.Live.Table("t")
			for col, want := range map[string]string{"v": "mask_inner(1, 0)", "w": "mask_default()", "x": "mask_replace('2020-01-01')"} {
				if m := lt.Column(col).Mask; m == nil || m.String() != want {
					t.Errorf("mask of %s: %v, want %s", col, m, want)
				}
			}
			ks := sf.Live.Keyspace
			if len(ks.Functions) != 1 || ks.Functions[0].Signature() != "f(frozen<list<int>>, text)" || ks.Functions[0].ReturnType != "frozen<map<int, text>>" {
				t.Errorf("functions %+v", ks.Functions)
			}
			if len(ks.Aggregates) != 1 || ks.Aggregates[0].Signature() != "ag(frozen<list<int>>, text)" {
				t.Errorf("aggregates %+v", ks.Aggregates)
			}
			if len(ks.Views) != 1 || *ks.Views[0] != (LiveView{Name: "v", BaseTable: "t"}) || len(ks.Triggers) != 1 || *ks.Triggers[0] != (LiveTrigger{Name: "tr", Table: "t"}) {
				t.Errorf("views %+v, triggers %+v", ks.Views, ks.Triggers)
			}
		},
		unexp: []string{"line 8 (INSERT INTO ks.t (k, c) VALUES (1, 2)): a data statement", "line 9 (GRANT SELECT ON KEYSPACE ks TO bob): a role or permission statement"}},
	{name: "refused statements are left out and listed", src: ksHead + `
		CREATE TABLE ks.t (k int PRIMARY KEY, data binary);
		CREATE TABLE ks.u (k int PRIMARY KEY);
		CREATE TABLE ks.u (k int PRIMARY KEY);
		CREATE TABLE ks.w (k int, v text);
		CREATE INDEX ON ks.u (k);
		CREATE INDEX ON ks.u (nope);
		CREATE TABLE ks.x (k list<int> PRIMARY KEY);
		CREATE TABLE ks.y (k int PRIMARY KEY, l list<list<int>>);
		CREATE TABLE ks.z (k int PRIMARY KEY, s text STATIC);
		CREATE TABLE ks.q (k int PRIMARY KEY, c counter, v text);
		CREATE TABLE ks.o (k int PRIMARY KEY) WITH nonsense = 1;`,
		check: func(t *testing.T, sf *SchemaFile) {
			if got := slices.Sorted(maps.Keys(sf.Live.Keyspace.Tables)); !slices.Equal(got, []string{"u"}) {
				t.Errorf("tables %v, want [u]", got)
			}
		},
		unexp: []string{"line 3 (CREATE TABLE ks.t (k int PRIMARY KEY, data binary)) is left out, as a server refuses it: table t: column \"data\": the type binary is neither a CQL type nor a type created before it in keyspace ks",
			"line 5", "line 6 (CREATE TABLE ks.w (k int, v text)) is left out, as a server refuses it: table w has no PRIMARY KEY", "only partition key column",
			"has no column \"nope\"", "not frozen", "inside a collection is not frozen", "static column and no clustering", "mixes counter", "nonsense is no table option"}},
	{name: "drops and USE", src: `CREATE KEYSPACE IF NOT EXISTS "Other" WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 2} AND durable_writes = false;
		USE "Other";
		CREATE TABLE t (k int PRIMARY KEY, v text);
		CREATE INDEX ix ON t (v);
		DROP INDEX ix;
		CREATE TABLE gone (k int PRIMARY KEY);
		DROP TABLE IF EXISTS gone;
		DROP TABLE IF EXISTS never;
		DROP TYPE IF EXISTS nope;`, keyspace: "Other",
		check: func(t *testing.T, sf *SchemaFile) {
			ks := sf.Live.Keyspace
			if ks.DurableWrites || ks.Replication["dc1"] != "2" || len(ks.Tables) != 1 || len(ks.Tables["t"].Indexes) != 0 {
				t.Errorf("keyspace %+v", ks)
			}
		}, unexp: []string{}},
	{name: "ScyllaDB's tablets, a UUID constant", src: `CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3} AND tablets = {'initial': 8};
		CREATE TABLE ks.t (k int PRIMARY KEY) WITH tablets = {'min_tablet_count': 16} AND id = a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11;
		CREATE TABLE ks.u (k int PRIMARY KEY) WITH id = 0a0eebc9-9c0b-4ef8-bb6d-6bb9bd380a11;`,
		check: func(t *testing.T, sf *SchemaFile) {
			if !sf.Live.Keyspace.Tablets || sf.Live.Table("t") == nil || sf.Live.Table("u") == nil {
				t.Errorf("tablets %v, tables %v", sf.Live.Keyspace.Tablets, slices.Sorted(maps.Keys(sf.Live.Keyspace.Tables)))
			}
		},
		unexp: []string{"table t: tablets = {min_tablet_count=16}"}},
	{name: "tablets off", src: `CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3} AND tablets = {'initial': 8, 'enabled': false};`,
		check: func(t *testing.T, sf *SchemaFile) {
			if sf.Live.Keyspace.Tablets {
				t.Error("tablets on with enabled false")
			}
		}, unexp: []string{}},
	{name: "refusals change nothing", src: ksHead + `
		CREATE TABLE ks.t (k int, c int, v int, PRIMARY KEY (k, c));
		CREATE INDEX ix ON ks.t (v);
		CREATE TRIGGER tr ON ks.t USING 'org.example.T';
		CREATE TABLE ks."t.x" (k int PRIMARY KEY);
		CREATE TRIGGER tr2 ON ks."t.x" USING 'org.example.T';
		CREATE MATERIALIZED VIEW ks.mv AS SELECT * FROM ks.t WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k);
		DROP TABLE ks.t;
		DROP INDEX ks.ix;
		CREATE TYPE ks.u (c counter);
		CREATE TABLE ks.w (k int PRIMARY KEY) WITH comment = 'a' AND comment = 'b';`,
		check: func(t *testing.T, sf *SchemaFile) {
			ks := sf.Live.Keyspace
			if lt := sf.Live.Table("t"); lt == nil || len(lt.Indexes) != 0 || len(ks.Types) != 0 || sf.Live.Table("w") != nil {
				t.Errorf("tables %v, types %v", slices.Sorted(maps.Keys(ks.Tables)), ks.Types)
			}
			var trigs []string
			for _, tr := range ks.Triggers {
				trigs = append(trigs, tr.Table+" "+tr.Name)
			}
			if !slices.Equal(trigs, []string{"t tr", "t.x tr2"}) {
				t.Errorf("triggers %q", trigs)
			}
		},
		unexp: []string{"DROP TABLE ks.t) is left out, as a server refuses it: table t has the materialized view mv; drop it first",
			"CREATE TYPE ks.u (c counter)) is left out, as a server refuses it: type u: field \"c\" is a counter",
			"the property comment is given twice"}},
	{name: "several keyspaces need a name", src: ksHead + "CREATE KEYSPACE ks2 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};",
		err: "names the keyspaces ks, ks2; name the one to import"},
	{name: "the named keyspace of several", keyspace: "ks2", src: ksHead + "CREATE KEYSPACE ks2 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}; CREATE TABLE ks.t (k int PRIMARY KEY);",
		check: func(t *testing.T, sf *SchemaFile) {
			if len(sf.Live.Keyspace.Tables) != 0 || !slices.Equal(sf.Keyspaces, []string{"ks", "ks2"}) || len(sf.Notes) != 1 {
				t.Errorf("keyspaces %v, notes %q", sf.Keyspaces, sf.Notes)
			}
		}, unexp: []string{}},
	{name: "a keyspace the file does not hold", keyspace: "Shop", src: ksHead + "CREATE TABLE ks.t (k int PRIMARY KEY);",
		err: `the file holds nothing of keyspace "Shop" (it names ks); name one of those`},
	{name: "unqualified with no keyspace", src: "CREATE TABLE t (k int PRIMARY KEY);", err: "line 1 (CREATE TABLE t (k int PRIMARY KEY)): it names no keyspace, and the file creates no keyspace"},
	{name: "alter is an error", src: ksHead + "CREATE TABLE ks.t (k int PRIMARY KEY);\n\nALTER TABLE ks.t ADD v text;", err: "line 4 (ALTER TABLE ks.t ADD v text): ParseSchemaFile reads the schema CREATE statements make and applies no ALTER"},
	{name: "syntax error names the line", src: ksHead + "CREATE TABLE ks.t (k int PRIMARY KEY\n WITH x = 1;", err: "line 2 (CREATE TABLE ks.t (k int PRIMARY KEY WITH x = 1): line 3: found \"WITH\" where ',' or ')' in the table's columns should come; fix the statement"},
	{name: "unterminated comment", src: ksHead + "/* open", err: "line 2: a /* comment is never closed"},
	{name: "unterminated string", src: "\n\nCREATE KEYSPACE k WITH replication = {'class", err: "line 3: a string opened with ' is never closed"},
	{name: "unknown statement", src: "EXPLODE;", err: "line 1 (EXPLODE): found \"EXPLODE\" where a statement ParseSchemaFile reads"},
	{name: "dropped keyspace", src: ksHead + "DROP KEYSPACE ks;", check: func(t *testing.T, sf *SchemaFile) {
		if sf.Live.Keyspace != nil {
			t.Error("a dropped keyspace exists")
		}
	}, unexp: []string{}},
}

func TestParseSchemaFile(t *testing.T) {
	for _, c := range fileCases {
		t.Run(c.name, func(t *testing.T) {
			sf, err := ParseSchemaFile([]byte(c.src), c.keyspace)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one with %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for table, want := range c.columns {
				var got []string
				for _, col := range sf.Live.Table(table).Columns {
					got = append(got, fmt.Sprintf("%s %s %d %s %s", col.Name, col.Kind, col.Position, col.Order, col.RawType))
					if col.Type.IsZero() && col.RawType != "frozen<tuple<int, frozen<list<int>>>>" {
						t.Errorf("column %s: type %q does not parse", col.Name, col.RawType)
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("table %s columns:\n got %q\nwant %q", table, got, want)
				}
			}
			for table, want := range c.indexes {
				var got []string
				for _, ix := range sf.Live.Table(table).Indexes {
					got = append(got, fmt.Sprint(ix.Name, " ", ix.Kind, " ", ix.Options))
				}
				if !slices.Equal(got, want) {
					t.Errorf("table %s indexes:\n got %q\nwant %q", table, got, want)
				}
			}
			for table, want := range c.options {
				if got := sf.Live.Table(table).Options; !maps.Equal(got, want) {
					t.Errorf("table %s options:\n got %v\nwant %v", table, got, want)
				}
			}
			if c.check != nil {
				c.check(t, sf)
			}
			if c.unexp != nil {
				if len(sf.Unexpressed) != len(c.unexp) {
					t.Errorf("%d unexpressed, want %d: %q", len(sf.Unexpressed), len(c.unexp), sf.Unexpressed)
				}
				for i, u := range sf.Unexpressed {
					if i < len(c.unexp) && !strings.Contains(u, c.unexp[i]) {
						t.Errorf("unexpressed[%d] = %q, want it to hold %q", i, u, c.unexp[i])
					}
				}
			}
		})
	}
}

// TestParseSchemaFileFor: read for a node with cassandra_latest.yaml's
// settings, a CREATE INDEX without USING is storage-attached and a table
// created without compaction has the yaml's; USING 'legacy_local_table'
// and a stated compaction are kept. Any other targets read as
// ParseSchemaFile.
func TestParseSchemaFileFor(t *testing.T) {
	src := ksHead + `CREATE TABLE ks.t (k int PRIMARY KEY, v text, w text);
		CREATE TABLE ks.u (k int PRIMARY KEY) WITH compaction = {'class': 'LeveledCompactionStrategy'};
		CREATE INDEX ON ks.t (v);
		CREATE INDEX ON ks.t (w) USING 'legacy_local_table';`
	for targets, want := range map[kandra.Target][2]string{
		kandra.Cassandra5Latest:                     {"t_v_idx CUSTOM map[class_name:sai target:v] t_w_idx COMPOSITES map[target:w]", "org.apache.cassandra.db.compaction.UnifiedCompactionStrategy"},
		kandra.Cassandra5:                           {"t_v_idx COMPOSITES map[target:v] t_w_idx COMPOSITES map[target:w]", ""},
		kandra.Cassandra5 | kandra.Cassandra5Latest: {"t_v_idx COMPOSITES map[target:v] t_w_idx COMPOSITES map[target:w]", ""},
	} {
		sf, err := ParseSchemaFileFor([]byte(src), "", targets)
		if err != nil {
			t.Fatal(err)
		}
		// A blob is no SAI's: a plain index on one is refused on such a
		// node, one USING 'sai' everywhere.
		blob := ksHead + "CREATE TABLE ks.b (k int PRIMARY KEY, b blob, c blob);\nCREATE INDEX ON ks.b (b);\nCREATE INDEX ON ks.b (c) USING 'StorageAttachedIndex';"
		bf, err := ParseSchemaFileFor([]byte(blob), "", targets)
		if err != nil {
			t.Fatal(err)
		}
		refused := 0
		for _, u := range bf.Unexpressed {
			if strings.Contains(u, "SAI refuses blob values") {
				refused++
			}
		}
		if wantRefused := map[bool]int{true: 2, false: 1}[targets == kandra.Cassandra5Latest]; refused != wantRefused || len(bf.Live.Table("b").Indexes) != 2-wantRefused {
			t.Errorf("%v: blob indexes refused %d (%q), kept %d", targets, refused, bf.Unexpressed, len(bf.Live.Table("b").Indexes))
		}
		var got []string
		for _, ix := range sf.Live.Table("t").Indexes {
			got = append(got, fmt.Sprint(ix.Name, " ", ix.Kind, " ", ix.Options))
		}
		if strings.Join(got, " ") != want[0] || sf.Live.Table("t").Options["compaction.class"] != want[1] ||
			sf.Live.Table("u").Options["compaction.class"] != "org.apache.cassandra.db.compaction.LeveledCompactionStrategy" {
			t.Errorf("%v: indexes %q, compaction %v, u's %v", targets, got, sf.Live.Table("t").Options, sf.Live.Table("u").Options)
		}
	}
}

// TestImportFileLists: ImportFile says in Imported.Unexpressed and Notes
// what ParseSchemaFile lists, as Import says what it reads beside the
// tables.
func TestImportFileLists(t *testing.T) {
	src := ksHead + "CREATE TABLE ks.t (k int PRIMARY KEY, v text);\nCREATE MATERIALIZED VIEW ks.mv AS SELECT * FROM ks.t WHERE v IS NOT NULL PRIMARY KEY (v, k);\nCREATE TABLE ks.bad (k frozen<nope> PRIMARY KEY);"
	im, err := ImportFile([]byte(src), "", ImportOptions{Package: "p", Targets: kandra.Cassandra5})
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Unexpressed) != 2 || !strings.HasPrefix(im.Unexpressed[1], "materialized view mv on t:") || !strings.Contains(im.Unexpressed[0], "line 4 (CREATE TABLE ks.bad (k frozen<nope> PRIMARY KEY)) is left out, as a server refuses it: table bad: column \"k\": the type nope is neither") {
		t.Errorf("unexpressed %q", im.Unexpressed)
	}
	if !slices.Equal(im.Entities, []string{"T"}) || !bytes.Contains(im.Source, []byte("materialized view mv on t")) {
		t.Errorf("entities %v; source:\n%s", im.Entities, im.Source)
	}
	if _, err := ImportFile([]byte(ksHead+"DROP KEYSPACE ks;"), "ks", ImportOptions{}); err == nil || !strings.Contains(err.Error(), "drops keyspace") {
		t.Errorf("a dropped keyspace: %v", err)
	}
}

// fileOfKeyspace writes ks's DDL as a schema file: its statements, one a
// line, as kandra applies them.
func fileOfKeyspace(ks *kandra.Keyspace) []byte {
	var b strings.Builder
	for _, s := range ks.Statements() {
		b.WriteString(strings.TrimSuffix(s, ";") + ";\n")
	}
	return []byte(b.String())
}

// serverPositions renumbers the key positions of r from 0, as a server
// numbers them (rowsOf writes the model's key indexes).
func serverPositions(r *schemaRows) *schemaRows {
	type key struct{ table, kind string }
	byKey := map[key][]map[string]any{}
	for _, c := range r.Columns {
		if k := c["kind"].(string); k == string(ColumnPartitionKey) || k == string(ColumnClustering) {
			byKey[key{c["table_name"].(string), k}] = append(byKey[key{c["table_name"].(string), k}], c)
		}
	}
	for _, cs := range byKey {
		slices.SortFunc(cs, func(a, b map[string]any) int { return a["position"].(int) - b["position"].(int) })
		for i, c := range cs {
			c["position"] = i
		}
	}
	return r
}

// TestParseSchemaFileRoundTrip: for random keyspaces (drawKeyspace, from
// the fixed seed), the DDL kandra writes, read back by ParseSchemaFile,
// plans no step against the model, and GenerateEntities writes of it
// what it writes of the rows a server holds after that DDL (rowsOf).
func TestParseSchemaFileRoundTrip(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		ks, _ := drawKeyspace(rt)
		src := fileOfKeyspace(ks)
		sf, err := ParseSchemaFile(src, ks.Name())
		if err != nil {
			rt.Fatalf("ParseSchemaFile of kandra's DDL: %v\n%s", err, src)
		}
		if len(sf.Unexpressed) > 0 {
			rt.Fatalf("kandra's DDL read with unexpressed entries %q\n%s", sf.Unexpressed, src)
		}
		p, err := NewPlan(ks, sf.Live)
		if err != nil {
			rt.Fatal(err)
		}
		if len(p.Steps) > 0 || len(p.Extra) > 0 {
			rt.Fatalf("the file's Live plans %d steps and %d extras against its model: %v %q\n%s", len(p.Steps), len(p.Extra), p.Steps, p.Extra, src)
		}
		fromRows, err := liveFromRows(ks.Name(), serverPositions(rowsOf(ks)))
		if err != nil {
			rt.Fatal(err)
		}
		opts := ImportOptions{Package: "p", Targets: ks.Targets()}
		want, err := GenerateEntities(fromRows, opts)
		if err != nil {
			rt.Fatal(err)
		}
		got, err := GenerateEntities(sf.Live, opts)
		if err != nil {
			rt.Fatalf("GenerateEntities of the file's Live: %v", err)
		}
		if !bytes.Equal(want.Source, got.Source) {
			rt.Fatalf("the file's entities differ from the rows':\n%s\n--- the file:\n%s", sourceDiff(want.Source, got.Source), src)
		}
	})
}

// sourceDiff shows the lines where the rows' source (a) and the file's
// (b) differ.
func sourceDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	var out []string
	for i := 0; i < max(len(al), len(bl)) && len(out) < 20; i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			out = append(out, fmt.Sprintf("%4d rows: %s\n%4d file: %s", i+1, x, i+1, y))
		}
	}
	return strings.Join(out, "\n")
}
