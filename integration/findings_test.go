package integration

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/internal/catalog"
	"github.com/kandra-go/kandra/internal/dynamic"
)

// The findings of issue 10 whose demonstration takes more than one
// statement: a write after the DDL, a second session, a check of what the
// server stored. TestRules runs those for the node's target.

type findingKind uint8

const (
	// demonstration: kandra refuses, and the server refuses (or
	// mishandles) what kandra would have sent without the rule. Counted in
	// "rules demonstrated".
	demonstration findingKind = iota
	// stricterHere: kandra refuses it for the node's target, and the node
	// takes it; run returns what was shown.
	stricterHere
	// acceptedHere: the rule serves another target; for the node's target
	// kandra takes the schema, and the node takes its DDL and its writes.
	acceptedHere
)

type finding struct {
	rule    kandra.Rule
	what    string
	targets kandra.Target // the node targets it runs on
	kind    findingKind
	// run fails t, or returns a line for the log.
	run func(t *testing.T, s *gocql.Session, ks string) string
}

func findings() []finding {
	return []finding{
		{rule: kandra.RuleTTLCap, what: "DefaultTTL(MaxTTL): CREATE accepted, every INSERT refused", targets: kandra.Cassandra5,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				sp := specOf("r_ttl20y", []any{kandra.DefaultTTL(kandra.MaxTTL)}, f[string]("K", pk0), f[string]("V"))
				return ttlCapRefused(t, s, ks, sp, "INSERT", false)
			}},
		{rule: kandra.RuleTTLCap, what: "DefaultTTL of now to 2038-01-19 plus a day: every INSERT refused", targets: kandra.Cassandra5,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				ttl := int((time.Until(expirationCap2038) + 24*time.Hour) / time.Second)
				sp := specOf("r_ttl2038", []any{kandra.DefaultTTL(time.Duration(ttl) * time.Second)}, f[string]("K", pk0), f[string]("V"))
				return ttlCapRefused(t, s, ks, sp, "INSERT", false)
			}},
		{rule: kandra.RuleTTLCap, what: "SoftDelete(MaxTTL): the soft-delete write refused", targets: kandra.Cassandra5,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				sp := softDelete(specOf("r_sd20y", nil, f[string]("K", pk0), f[bool]("Gone"), f[string]("V")), maxTTLSeconds, 1)
				return ttlCapRefused(t, s, ks, sp, "soft-delete write", true)
			}},
		{rule: kandra.RuleTTLCap, what: "a TTL whose writes work today and fail within TTLHorizon", targets: kandra.Cassandra5, kind: stricterHere,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				ttl := int((time.Until(expirationCap2038) - kandra.TTLHorizon + 30*24*time.Hour) / time.Second)
				sp := specOf("r_ttlsoon", []any{kandra.DefaultTTL(time.Duration(ttl) * time.Second)}, f[string]("K", pk0), f[string]("V"))
				ts := refusedInKeyspace(t, ks, sp, kandra.RuleTTLCap)
				createFor(t, s, ks, kandra.Cassandra5Latest, ts)
				if w := checkWritable(s, ks, ts, 1); len(w.problems) > 0 {
					t.Fatalf("the write fails already: %v", w.problems)
				}
				return fmt.Sprintf("DefaultTTL(%d) (2038 minus 335 days from now): the node takes writes with it today; they start failing on %s, within kandra.TTLHorizon",
					ttl, expirationCap2038.Add(-time.Duration(ttl)*time.Second).Format(time.DateOnly))
			}},
		{rule: kandra.RuleTTLCap, what: "DefaultTTL(MaxTTL) and SoftDelete(MaxTTL) on Cassandra5Latest: accepted and writable", targets: kandra.Cassandra5Latest, kind: acceptedHere,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				var out []string
				for _, sp := range []dynamic.Spec{
					specOf("r_ttl20y", []any{kandra.DefaultTTL(kandra.MaxTTL)}, f[string]("K", pk0), f[string]("V")),
					softDelete(specOf("r_sd20y", nil, f[string]("K", pk0), f[bool]("Gone"), f[string]("V")), maxTTLSeconds, 1),
				} {
					ts := mustBuild(t, sp)
					var se *kandra.SchemaError
					if _, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: ks, Replication: testReplication(), Targets: kandra.Cassandra5}, ts); !errors.As(err, &se) || se.Rule != kandra.RuleTTLCap {
						t.Fatalf("for Cassandra5: got %v, want a %s error", err, kandra.RuleTTLCap)
					}
					createFor(t, s, ks, serverTarget(), ts)
					w := checkWritable(s, ks, ts, 2)
					for _, p := range w.problems {
						t.Errorf("not writable on the latest node: %s", p)
					}
					out = append(out, ts.Name()+": "+w.summary())
				}
				return strings.Join(out, "; ")
			}},
		{rule: kandra.RuleSAIIndex, what: "an index on a blob under default_secondary_index sai", targets: kandra.Cassandra5Latest,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				return saiRefused(t, s, ks, specOf("r_saiblob", nil, f[string]("K", pk0), f[[]byte]("B", kandra.SecondaryIndex())), "Unsupported type: blob")
			}},
		{rule: kandra.RuleSAIIndex, what: "an index on a LIST<BLOB> under default_secondary_index sai", targets: kandra.Cassandra5Latest,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				return saiRefused(t, s, ks, specOf("r_sailist", nil, f[string]("K", pk0), f[[][]byte]("L", kandra.SecondaryIndex())), "Unsupported type: blob")
			}},
		// Issue 33, finding 12: SAI checks the column's name as it checks
		// a table's (\w+, at most 48 characters).
		{rule: kandra.RuleSAIIndex, what: "an index on a column named größe under default_secondary_index sai", targets: kandra.Cassandra5Latest,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				return saiRefused(t, s, ks, specOf("r_saigr", nil, f[string]("K", pk0), f[int32]("Größe", kandra.SecondaryIndex())), "contains non-alphanumeric-underscore characters")
			}},
		{rule: kandra.RuleSAIIndex, what: "an index on a column of 49 characters under default_secondary_index sai", targets: kandra.Cassandra5Latest,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				return saiRefused(t, s, ks, specOf("r_sailong", nil, f[string]("K", pk0), f[int32]("V", kandra.Column("v"+strings.Repeat("x", 48)), kandra.SecondaryIndex())),
					"is longer than the permissible name length of 48 characters")
			}},
		{rule: kandra.RuleSAIIndex, what: "UsingLegacy on a column named größe and on one of 49 characters under default_secondary_index sai: accepted, written and found", targets: kandra.Cassandra5Latest, kind: acceptedHere,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				ts := mustBuild(t, specOf("r_legnames", nil, f[string]("K", pk0), f[int32]("Größe", kandra.SecondaryIndex(kandra.UsingLegacy())),
					f[int32]("V", kandra.Column("v"+strings.Repeat("x", 48)), kandra.SecondaryIndex(kandra.UsingLegacy()))))
				createFor(t, s, ks, serverTarget(), ts)
				return "the way out the sai-index rule names: " + writeAndFindByIndexes(t, s, ks, ts)
			}},
		{rule: kandra.RuleSAIIndex, what: "a full() index on a frozen LIST<BLOB> clustering key", targets: kandra.Cassandra5Latest, kind: stricterHere,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				sp := specOf("r_saifull", nil, f[string]("K", pk0), f[[][]byte]("C", kandra.ClusteringKey(0, kandra.ClusteringAsc), kandra.SecondaryIndex()))
				ts := refusedInKeyspace(t, ks, sp, kandra.RuleSAIIndex)
				createFor(t, s, ks, kandra.Cassandra5, ts)
				found := writeAndFindByIndexes(t, s, ks, ts)
				return "the latest node takes CREATE INDEX ... (full(c)) on a FROZEN<LIST<BLOB>> as a storage-attached index, and " + found
			}},
		{rule: kandra.RuleSAIIndex, what: "blob indexes on Cassandra5: accepted, written and found", targets: kandra.Cassandra5, kind: acceptedHere,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				ts := mustBuild(t, specOf("r_blobidx", nil, f[string]("K", pk0), f[[]byte]("B", kandra.SecondaryIndex()), f[[][]byte]("L", kandra.SecondaryIndex())))
				var se *kandra.SchemaError
				if _, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: ks, Replication: testReplication(), Targets: kandra.Cassandra5Latest}, ts); !errors.As(err, &se) || se.Rule != kandra.RuleSAIIndex {
					t.Fatalf("for Cassandra5Latest: got %v, want a %s error", err, kandra.RuleSAIIndex)
				}
				createFor(t, s, ks, serverTarget(), ts)
				return "legacy indexes on BLOB and LIST<BLOB>: " + writeAndFindByIndexes(t, s, ks, ts)
			}},
		{rule: kandra.RuleIndexKind, what: "explicit index kinds on Cassandra: SAI with text analysis, SAI on a bigint, legacy on a blob; accepted, written and found", targets: kandra.Cassandra5 | kandra.Cassandra5Latest, kind: acceptedHere,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				ts := mustBuild(t, specOf("r_kinds", nil, f[string]("K", pk0),
					f[string]("T", kandra.SecondaryIndex(kandra.UsingSAI(), kandra.SAICaseInsensitive(), kandra.SAINormalize())),
					f[int64]("N", kandra.SecondaryIndex(kandra.UsingSAI())),
					f[[]byte]("B", kandra.SecondaryIndex(kandra.UsingLegacy()))))
				var se *kandra.SchemaError
				if _, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: ks, Replication: testReplication(), Targets: kandra.Cassandra5 | kandra.Scylla2026}, ts); !errors.As(err, &se) || se.Rule != kandra.RuleIndexKind {
					t.Fatalf("with a ScyllaDB target: got %v, want a %s error", err, kandra.RuleIndexKind)
				}
				createFor(t, s, ks, serverTarget(), ts)
				return "USING 'sai' WITH OPTIONS and USING 'legacy_local_table': " + writeAndFindByIndexes(t, s, ks, ts)
			}},
		{rule: kandra.RuleSAI, what: "text analysis without UsingSAI on a legacy default", targets: kandra.Cassandra5,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				return analysisWithoutSAI(t, s, ks, "Cannot specify options for a non-CUSTOM index")
			}},
		{rule: kandra.RuleSAI, what: "text analysis without UsingSAI where the default index is SAI", targets: kandra.Cassandra5Latest, kind: stricterHere,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				analysisWithoutSAI(t, s, ks, "")
				return "the latest node takes CREATE INDEX ... WITH OPTIONS without USING (its default index is SAI); kandra asks for UsingSAI, so that the same model is not refused on Cassandra5 and ScyllaDB"
			}},
		{rule: kandra.RuleSAIIndex, what: "a blob index with UsingLegacy under default_secondary_index sai: accepted, written and found", targets: kandra.Cassandra5Latest, kind: acceptedHere,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				ts := mustBuild(t, specOf("r_legblob", nil, f[string]("K", pk0), f[[]byte]("B", kandra.SecondaryIndex(kandra.UsingLegacy())), f[[][]byte]("L", kandra.SecondaryIndex(kandra.UsingLegacy()))))
				createFor(t, s, ks, serverTarget(), ts)
				return "the way out the sai-index rule names: " + writeAndFindByIndexes(t, s, ks, ts)
			}},
		{rule: kandra.RuleOptionTarget, what: "the trie memtable on the shipped cassandra.yaml", targets: kandra.Cassandra5,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				return optionRefused(t, s, ks, kandra.Memtable("trie"), "memtable = 'trie'", "trie")
			}},
		{rule: kandra.RuleOptionTarget, what: "the trie memtable under cassandra_latest.yaml: accepted and writable", targets: kandra.Cassandra5Latest, kind: acceptedHere,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				ts := mustBuild(t, specOf("r_trie", []any{kandra.Memtable("trie")}, f[string]("K", pk0), f[string]("V")))
				var se *kandra.SchemaError
				if _, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: ks, Replication: testReplication(), Targets: kandra.Cassandra5}, ts); !errors.As(err, &se) || se.Rule != kandra.RuleOptionTarget {
					t.Fatalf("for Cassandra5: got %v, want a %s error", err, kandra.RuleOptionTarget)
				}
				createFor(t, s, ks, serverTarget(), ts)
				return "memtable = 'trie': " + checkWritable(s, ks, ts, 2).summary()
			}},
		{rule: kandra.RuleOptionTarget, what: "ScyllaDB's options on Cassandra: incremental compaction, tombstone_gc, per_partition_rate_limit, caching enabled", targets: kandra.Cassandra5 | kandra.Cassandra5Latest,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				var out []string
				for _, c := range []struct {
					opt        kandra.TableOption
					item, want string
				}{
					{kandra.Compaction(kandra.Incremental()), "compaction = {'class': 'IncrementalCompactionStrategy'}", "IncrementalCompactionStrategy"},
					{kandra.TombstoneGC(kandra.TombstoneGCRepair), "tombstone_gc = {'mode': 'repair'}", "tombstone_gc"},
					{kandra.PerPartitionRateLimit(100, 0), "per_partition_rate_limit = {'max_reads_per_second': '100'}", "per_partition_rate_limit"},
					{kandra.ScyllaCaching(true), "caching = {'enabled': 'true'}", "only 'keys' and 'rows_per_partition' are allowed"},
				} {
					out = append(out, optionRefused(t, s, ks, c.opt, c.item, c.want))
				}
				return strings.Join(out, "; ")
			}},
		{rule: kandra.RuleOptionTarget, what: "CDC(true) without cdc_enabled: the node takes cdc = true and keeps nothing of it", targets: kandra.Cassandra5 | kandra.Cassandra5Latest,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				ts := mustBuild(t, specOf("r_cdc", []any{kandra.CDC(true)}, f[string]("K", pk0), f[string]("V")))
				var se *kandra.SchemaError
				if _, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: ks, Replication: testReplication(), Targets: serverTarget()}, ts); !errors.As(err, &se) || se.Rule != kandra.RuleOptionTarget {
					t.Fatalf("kandra: got %v, want a %s error", err, kandra.RuleOptionTarget)
				}
				stmt := tableDef{name: "r_cdc", cols: []colDef{{"k", "TEXT"}, {"v", "TEXT"}}, pk: []string{"k"}, storage: []string{"cdc = true"}}.render(ks)
				if err := execDDL(s, stmt); err != nil {
					t.Fatalf("%s\n-> %v (the node refused it: the rule's reason would be another)", stmt, err)
				}
				var cdc *bool
				if err := s.Query(`SELECT cdc FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?`, ks, "r_cdc").Scan(&cdc); err != nil {
					t.Fatal(err)
				}
				if cdc != nil && *cdc {
					t.Fatalf("system_schema.tables.cdc is true: the node keeps CDC, the rule is unfounded")
				}
				return "CREATE TABLE ... WITH cdc = true is taken, and system_schema.tables.cdc reads null: CDC is silently off"
			}},
		{rule: kandra.RuleInvalidName, what: `a column named "[applied]": a failed LWT reads as applied`, targets: kandra.Cassandra5 | kandra.Cassandra5Latest,
			run: appliedColumn},
		{rule: kandra.RuleInvalidName, what: "a 65,536-byte column name: CREATE accepted, the prepared INSERT breaks the protocol", targets: kandra.Cassandra5 | kandra.Cassandra5Latest,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				name := strings.Repeat("c", 1<<16)
				if err := longColumn(t, s, ks, "r_col64k", name); err == nil {
					t.Fatal("the prepared INSERT with a 65,536-byte column name worked: the limit would be unfounded")
				} else {
					t.Logf("on a separate session, kandra's INSERT -> %v", err)
				}
				return ""
			}},
		{rule: kandra.RuleInvalidName, what: "a 65,535-byte column name (over MaxColumnNameBytes) works", targets: kandra.Cassandra5 | kandra.Cassandra5Latest, kind: stricterHere,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				name := strings.Repeat("c", 1<<16-1)
				if err := longColumn(t, s, ks, "r_col64k1", name); err != nil {
					t.Fatalf("a 65,535-byte column name fails too: %v", err)
				}
				return fmt.Sprintf("column names of %d to 65,535 bytes: CREATE, INSERT and SELECT work (65,536 breaks the protocol)", kandra.MaxColumnNameBytes+1)
			}},
		{rule: kandra.RuleSchemaSize, what: "the widest table kandra takes is created; a few columns more, the schema mutation is refused", targets: kandra.Cassandra5 | kandra.Cassandra5Latest,
			run: schemaSize},
		{rule: kandra.RuleTargets, what: "the tablets option on a Cassandra target", targets: kandra.Cassandra5 | kandra.Cassandra5Latest,
			run: func(t *testing.T, s *gocql.Session, ks string) string {
				name := ks + "_tab"
				spec := kandra.KeyspaceSpec{Name: name, Replication: testReplication(), Targets: serverTarget(), Tablets: kandra.TabletsDisabled}
				var se *kandra.SchemaError
				if _, err := specKeyspace(spec); !errors.As(err, &se) || se.Rule != kandra.RuleTargets {
					t.Fatalf("CreateKeyspace with Tablets on %s: got %v, want a %s error", serverTarget(), err, kandra.RuleTargets)
				}
				// What kandra renders with the option, for ScyllaDB targets.
				spec.Targets = kandra.Scylla2025 | kandra.Scylla2026
				stmt := kandra.MustNewKeyspace(spec).CreateKeyspace()
				trackKeyspace(name)
				err := s.Query(stmt).Exec()
				if err == nil || !strings.Contains(err.Error(), "Unknown property 'tablets'") {
					t.Fatalf("%s\n-> %v; want Unknown property 'tablets'", stmt, err)
				}
				t.Logf("refused by kandra: %v\nserver rejects:\n%s\n-> %v", se, stmt, err)
				return ""
			}},
	}
}

// refusedInKeyspace builds sp (the entity rules take it) and checks that
// NewKeyspace refuses it for the node's target under rule.
func refusedInKeyspace(t *testing.T, ks string, sp dynamic.Spec, rule kandra.Rule) *kandra.TableSchema {
	t.Helper()
	ts := mustBuild(t, sp)
	var se *kandra.SchemaError
	if _, err := kandra.NewKeyspace(keyspaceSpec(ks), ts); !errors.As(err, &se) || se.Rule != rule {
		t.Fatalf("NewKeyspace for %s: got %v, want a %s error", serverTarget(), err, rule)
	}
	t.Logf("refused by kandra: %v", se)
	return ts
}

// createFor creates ts in ks with the statements kandra writes for it in
// a keyspace of the given target (where the rule at hand does not apply):
// what kandra would have sent without the rule.
func createFor(t *testing.T, s *gocql.Session, ks string, target kandra.Target, ts *kandra.TableSchema) {
	t.Helper()
	k, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: ks, Replication: testReplication(), Targets: target}, ts)
	if err != nil {
		t.Fatalf("NewKeyspace for %s: %v", target, err)
	}
	for _, stmt := range k.Statements()[1:] {
		if err := execDDL(s, stmt); err != nil {
			t.Fatalf("%s\n-> %v", stmt, err)
		}
	}
}

// ttlCapRefused: NewKeyspace refuses sp for Cassandra5 under ttl-cap; the
// DDL kandra writes for it on Cassandra5Latest is accepted by the node,
// and the write (kandra's Insert, or its soft-delete write) is refused
// for passing the 2038 cap.
func ttlCapRefused(t *testing.T, s *gocql.Session, ks string, sp dynamic.Spec, what string, softDelete bool) string {
	ts := refusedInKeyspace(t, ks, sp, kandra.RuleTTLCap)
	createFor(t, s, ks, kandra.Cassandra5Latest, ts)
	st, err := catalog.Build(ts, ks)
	if err != nil {
		t.Fatal(err)
	}
	codec, err := kgocql.NewCodec(ts.Columns())
	if err != nil {
		t.Fatal(err)
	}
	e, err := fullEntity(ts, 3)
	if err != nil {
		t.Fatal(err)
	}
	ptrs := pointersOf(ts, e.Interface())
	vals := codec.BindValues(ptrs)
	stmt := st.Insert(0)
	if softDelete {
		if err := s.Query(stmt.CQL(), bindArgs(stmt, vals, nil)...).Exec(); err != nil {
			t.Fatalf("the plain INSERT (no TTL) fails too: %v", err)
		}
		stmt = st.SoftDelete()
	}
	err = s.Query(stmt.CQL(), bindArgs(stmt, vals, nil)...).Exec()
	const want = "exceeds maximum supported expiration date of 2038-01-19T03:14:06+00:00"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("the %s (%s): got %v, want %q", what, stmt.CQL(), err, want)
	}
	t.Logf("the table is created; the %s is refused:\n%s\n-> %v", what, stmt.CQL(), err)
	return ""
}

// saiRefused: NewKeyspace refuses sp for Cassandra5Latest under
// sai-index; the table kandra writes for it on Cassandra5 is accepted by
// the latest node and its CREATE INDEX refused with want.
func saiRefused(t *testing.T, s *gocql.Session, ks string, sp dynamic.Spec, want string) string {
	ts := refusedInKeyspace(t, ks, sp, kandra.RuleSAIIndex)
	k := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: ks, Replication: testReplication(), Targets: kandra.Cassandra5}, ts)
	table := mustStmt(t, "CreateTable", ts.Name())(k.CreateTable(ts))
	if err := execDDL(s, table); err != nil {
		t.Fatalf("%s\n-> %v", table, err)
	}
	c := ts.SecondaryIndexes()[0]
	stmt := mustStmt(t, "CreateIndex", c.Name())(k.CreateIndex(ts, c))
	err := s.Query(stmt).Exec()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("%s\n-> %v; want %s", stmt, err, want)
	}
	t.Logf("server rejects:\n%s\n-> %v", stmt, err)
	return ""
}

// writeAndFindByIndexes writes a full row into ts (created in ks) and
// finds it through each of its indexes.
func writeAndFindByIndexes(t *testing.T, s *gocql.Session, ks string, ts *kandra.TableSchema) string {
	t.Helper()
	w := checkWritable(s, ks, ts, 4)
	for _, p := range w.problems {
		t.Errorf("not writable: %s", p)
	}
	codec, _ := kgocql.NewCodec(ts.Columns())
	e, err := fullEntity(ts, 4)
	if err != nil {
		t.Fatal(err)
	}
	ptrs := pointersOf(ts, e.Interface())
	vals := codec.BindValues(ptrs)
	var found []string
	for _, c := range ts.SecondaryIndexes() {
		n, _ := nodeOf(c.Type())
		var arg any = vals[c.Position()]
		op := " = ?"
		if c.Type().IsCollection() && c.Role() == kandra.RegularColumn {
			// values(col): CONTAINS one element.
			op = " CONTAINS ?"
			v := reflect.ValueOf(arg)
			if o, isSorted := arg.(kgocql.SortedValue); isSorted {
				v = reflect.ValueOf(o.Value)
			}
			arg = reflect.Indirect(v).Index(0).Interface()
		}
		q := "SELECT " + columnList(ts.Columns()) + " FROM " + qualified(ks, ts.CQLName()) + " WHERE " + c.CQLName() + op
		out := reflect.New(ts.EntityType())
		outPtrs := pointersOf(ts, out.Interface())
		targets, finish := codec.ScanTargets(outPtrs)
		if err := s.Query(q, arg).Scan(targets...); err != nil {
			t.Errorf("by index on %s: %s\n-> %v", c.Name(), q, err)
			continue
		}
		if err := finish(); err != nil {
			t.Fatal(err)
		}
		if why := sameValue(fieldOf(t, c, e), fieldOf(t, c, out), n); why != "" {
			t.Errorf("by index on %s: another row: %s", c.Name(), why)
			continue
		}
		found = append(found, c.Name())
	}
	return "a row is written and found through the index on " + strings.Join(found, ", ")
}

// appliedColumn: Register refuses Column("[applied]"); on the table kandra
// would have written, an INSERT ... IF NOT EXISTS that does not apply
// comes back with two columns named [applied], and gocql's MapScanCAS
// reports the row's column as the answer: applied, though nothing was
// written.
func appliedColumn(t *testing.T, s *gocql.Session, ks string) string {
	sp := specOf("r_applied", nil, f[string]("K", pk0), f[bool]("Applied", kandra.Column("[applied]")), f[string]("V"))
	_, err := dynamic.Build(sp)
	var se *kandra.SchemaError
	if !errors.As(err, &se) || se.Rule != kandra.RuleInvalidName {
		t.Fatalf("kandra: got %v, want a %s error", err, kandra.RuleInvalidName)
	}
	t.Logf("refused by kandra: %v", se)
	table := tableDef{name: "r_applied", cols: []colDef{{"k", "TEXT"}, {"[applied]", "BOOLEAN"}, {"v", "TEXT"}}, pk: []string{"k"}}.render(ks)
	if err := execDDL(s, table); err != nil {
		t.Fatalf("%s\n-> %v", table, err)
	}
	// kandra's Insert and InsertIfNotExists shapes.
	insert := "INSERT INTO " + qualified(ks, kandra.QuoteIdent("r_applied")) + " (k, " + kandra.QuoteIdent("[applied]") + ", v) VALUES (?, ?, ?)"
	if err := s.Query(insert, "a", true, "first").Exec(); err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	applied, err := s.Query(insert+" IF NOT EXISTS", "a", false, "second").MapScanCAS(m)
	if err != nil {
		t.Fatal(err)
	}
	var v string
	if err := s.Query("SELECT v FROM "+qualified(ks, kandra.QuoteIdent("r_applied"))+" WHERE k = ?", "a").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if !applied || v != "first" {
		t.Fatalf("MapScanCAS says applied=%t and the row holds %q: the collision did not show", applied, v)
	}
	t.Logf("INSERT ... IF NOT EXISTS on an existing row: MapScanCAS reports applied=true (the row's \"[applied]\" column), and the row still holds %q", v)
	return ""
}

// longColumn creates a table with a column of that name (accepted) and
// writes and reads a row through prepared statements on a session of its
// own (a protocol break stays on its connections), returning the first
// error.
func longColumn(t *testing.T, s *gocql.Session, ks, table, name string) error {
	t.Helper()
	sp := specOf(table, nil, f[string]("K", pk0), f[string]("V", kandra.Column(name)))
	if _, err := dynamic.Build(sp); err == nil {
		t.Fatalf("kandra takes a %d-byte column name", len(name))
	} else {
		var se *kandra.SchemaError
		if !errors.As(err, &se) || se.Rule != kandra.RuleInvalidName {
			t.Fatalf("kandra: got %v, want a %s error", err, kandra.RuleInvalidName)
		}
		t.Logf("refused by kandra: %s", short(err.Error()))
	}
	stmt := tableDef{name: table, cols: []colDef{{"k", "TEXT"}, {name, "TEXT"}}, pk: []string{"k"}}.render(ks)
	if err := execDDL(s, stmt); err != nil {
		t.Fatalf("CREATE TABLE with a %d-byte column name refused: %v", len(name), err)
	}
	c := newCluster()
	c.NumConns = 1
	other, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tbl := qualified(ks, kandra.QuoteIdent(table))
	if err := other.Query("INSERT INTO "+tbl+" (k, "+kandra.QuoteIdent(name)+") VALUES (?, ?)", "a", "v").Exec(); err != nil {
		return err
	}
	var v string
	if err := other.Query("SELECT "+kandra.QuoteIdent(name)+" FROM "+tbl+" WHERE k = ?", "a").Scan(&v); err != nil {
		return err
	}
	if v != "v" {
		return fmt.Errorf("read %q back", v)
	}
	if why := nodeAnswers(s); why != "" {
		t.Fatal(why)
	}
	return nil
}

// schemaSize: with 1,000-byte column names, Register takes the widest
// table whose estimated schema mutation fits MaxSchemaMutationBytes, and
// the node creates it; Register refuses one column more. The node refuses
// a table a few columns wider still (the estimate allows some 6 KiB for
// what Register cannot know: the keyspace's name and replication, the
// server's configuration), printing the size it counted, which the
// estimate must not fall short of, nor pass by more than the allowances.
// The keyspace is dropped at the end: a 16 MiB schema weighs on the node.
func schemaSize(t *testing.T, s *gocql.Session, ks string) string {
	const table, nameLen = "r_size", 1000
	name := func(i int) string {
		p := "v" + strconv.Itoa(i) + "_"
		return p + strings.Repeat("x", nameLen-len(p))
	}
	spec := func(n int) dynamic.Spec {
		fields := []fld{f[string]("K", pk0)}
		for i := 0; i < n; i++ {
			fields = append(fields, f[string]("V"+strconv.Itoa(i), kandra.Column(name(i))))
		}
		return specOf(table, nil, fields...)
	}
	ddl := func(n int) string {
		d := tableDef{name: table, cols: []colDef{{"k", "TEXT"}}, pk: []string{"k"}}
		for i := 0; i < n; i++ {
			d.cols = append(d.cols, colDef{name(i), "TEXT"})
		}
		return d.render(ksVar)
	}
	// estimate is Register's estimate for n columns, read from its refusal.
	estimated := regexp.MustCompile(`an estimated (\d+) bytes`)
	estimate := func(n int) int {
		_, err := dynamic.Build(spec(n))
		var se *kandra.SchemaError
		if !errors.As(err, &se) || se.Rule != kandra.RuleSchemaSize {
			t.Fatalf("Register with %d columns: got %v, want a %s error", n, short(fmt.Sprint(err)), kandra.RuleSchemaSize)
		}
		m := estimated.FindStringSubmatch(se.Detail)
		if m == nil {
			t.Fatalf("the %s error does not give the estimate: %s", kandra.RuleSchemaSize, se.Detail)
		}
		v, _ := strconv.Atoi(m[1])
		return v
	}
	// The widest table Register takes, with 1,000-byte names.
	lo, hi := 1, 8000 // 1 fits; 8,000 columns are some 24 MiB
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if _, err := dynamic.Build(spec(mid)); err == nil {
			lo = mid
		} else {
			hi = mid
		}
	}
	widest := lo
	perColumn := estimate(widest+2) - estimate(widest+1)

	name2 := ks + "_size"
	stmt, err := specKeyspace(keyspaceSpec(name2))
	if err != nil {
		t.Fatal(err)
	}
	trackKeyspace(name2)
	if err := execDDL(s, stmt); err != nil {
		t.Fatalf("%s\n-> %v", stmt, err)
	}
	defer func() {
		if err := execDDL(s, "DROP KEYSPACE IF EXISTS "+kandra.QuoteIdent(name2)); err != nil {
			t.Errorf("dropping %s: %v", name2, err)
		}
	}()

	// Just under: accepted by Register, created by the node.
	ts := mustBuild(t, spec(widest))
	createFor(t, s, name2, serverTarget(), ts)
	cols, err := readColumns(s, name2, table)
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) != 1+widest {
		t.Fatalf("the node holds %d columns of %s, want %d", len(cols), table, 1+widest)
	}
	// IF EXISTS: execDDL sends the DROP again after a client timeout, which
	// a slow node may hit after dropping the table.
	if err := execDDL(s, "DROP TABLE IF EXISTS "+qualified(name2, table)); err != nil {
		t.Fatal(err)
	}

	// Just over the node's limit: refused by both. allowance is what the
	// estimate adds for what Register cannot know; past it by one column,
	// the node must refuse.
	const allowance = 6 << 10
	over := widest + 1 + allowance/perColumn + 1
	est := estimate(over)
	stmt = inKeyspace(ddl(over), name2)
	err = s.Query(stmt).Exec()
	if err == nil {
		t.Fatalf("the node created %s with %d columns (estimate %d): the estimate's allowance is larger than it says", table, over, est)
	}
	m := regexp.MustCompile(`Rejected an oversized mutation \((\d+)/(\d+)\) for keyspace: system_schema`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("%s\n-> %v; want \"Rejected an oversized mutation\"", short(stmt), err)
	}
	counted, _ := strconv.Atoi(m[1])
	limit, _ := strconv.Atoi(m[2])
	if limit != kandra.MaxSchemaMutationBytes {
		t.Fatalf("the node's max_mutation_size is %d, kandra's MaxSchemaMutationBytes %d", limit, kandra.MaxSchemaMutationBytes)
	}
	if est < counted || est-counted > allowance {
		t.Fatalf("with %d columns Register estimates %d bytes, the node counted %d: want the estimate at or above it by at most %d", over, est, counted, allowance)
	}
	t.Logf("refused by kandra from %d columns of %d-byte names (%d bytes each); the node refuses %d columns: %s", widest+1, nameLen, perColumn, over, err)
	return fmt.Sprintf("%d columns: created; %d: refused by kandra; %d: refused by the node, which counted %d bytes, %d below kandra's estimate",
		widest, widest+1, over, counted, est-counted)
}

// pointersOf is the address of every column's field in e, in column order.
func pointersOf(ts *kandra.TableSchema, e any) []any {
	var out []any
	for _, c := range ts.Columns() {
		p, err := c.Pointer(e)
		if err != nil {
			panic(err)
		}
		out = append(out, p)
	}
	return out
}

// analysisWithoutSAI: kandra refuses an index with text analysis but no
// UsingSAI, and the node refuses the statement kandra would have sent
// with want in its message, or, for want "", takes it.
func analysisWithoutSAI(t *testing.T, s *gocql.Session, ks, want string) string {
	t.Helper()
	sp := specOf("r_saino", nil, f[string]("K", pk0), f[string]("X", kandra.SecondaryIndex(kandra.SAICaseInsensitive())))
	var se *kandra.SchemaError
	if _, err := dynamic.Build(sp); !errors.As(err, &se) || se.Rule != kandra.RuleSAI {
		t.Fatalf("kandra: got %v, want a %s error", err, kandra.RuleSAI)
	}
	table := tableDef{name: "r_saino", cols: []colDef{{"k", "TEXT"}, {"x", "TEXT"}}, pk: []string{"k"}}.render(ks)
	if err := execDDL(s, table); err != nil {
		t.Fatal(err)
	}
	stmt := indexWith(ks, "r_saino_x_idx", "r_saino", "x", " WITH OPTIONS = {'case_sensitive': 'false'}")
	err := s.Query(stmt).Exec()
	switch {
	case want == "" && err != nil:
		t.Fatalf("the node refused %s: %v", stmt, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Fatalf("%s: %v, want a refusal with %q", stmt, err, want)
	}
	return "refused by kandra: " + se.Error()
}

// optionRefused: kandra refuses a table with storage option opt for the
// node's target (RuleOptionTarget), and the node refuses the CREATE TABLE
// kandra would have written without the rule, item in its WITH clause,
// with want in its message.
func optionRefused(t *testing.T, s *gocql.Session, ks string, opt kandra.TableOption, item, want string) string {
	t.Helper()
	ts := mustBuild(t, specOf("r_opt", []any{opt}, f[string]("K", pk0), f[string]("V")))
	var se *kandra.SchemaError
	if _, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: ks, Replication: testReplication(), Targets: serverTarget()}, ts); !errors.As(err, &se) || se.Rule != kandra.RuleOptionTarget {
		t.Fatalf("kandra: got %v, want a %s error", err, kandra.RuleOptionTarget)
	}
	stmt := tableDef{name: "r_opt", cols: []colDef{{"k", "TEXT"}, {"v", "TEXT"}}, pk: []string{"k"}, storage: []string{item}}.render(ks)
	err := s.Query(stmt).Exec()
	if err == nil {
		_ = execDDL(s, "DROP TABLE IF EXISTS "+qualified(ks, "r_opt"))
		t.Fatalf("the node ACCEPTED what %s refuses:\n%s", kandra.RuleOptionTarget, stmt)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("%s\n-> %v, want %q in the message", stmt, err, want)
	}
	return item + ": " + err.Error()
}
