package integration

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/dynamic"
	"github.com/kandra-go/kandra/kerrors"
)

// ---------------------------------------------------------------------------
// A mirror of kandra's CREATE TABLE layout, for DDL that kandra refuses to
// write: each rule case says what kandra would have rendered without the
// rule. TestRules first checks that the mirror renders every catalogue
// schema exactly as kandra.CreateTable does, so the rejected statements are
// kandra's shape, not a paraphrase.

type colDef struct{ name, typ string } // raw name, kandra's type rendering

type tableDef struct {
	name string
	cols []colDef
	pk   []string
	ck   []string // raw names
	asc  []bool
	ttl  *int
	gc   *int
	// storage are WITH items after gc_grace_seconds, as written
	// ("compaction = {...}"): kandra's StorageOptionItems.
	storage []string
}

func (d tableDef) render(ks string) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS " + qualified(ks, kandra.QuoteIdent(d.name)) + " (\n")
	for _, c := range d.cols {
		b.WriteString("    " + kandra.QuoteIdent(c.name) + " " + c.typ + ",\n")
	}
	quote := func(names []string) string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = kandra.QuoteIdent(n)
		}
		return strings.Join(out, ", ")
	}
	b.WriteString("    PRIMARY KEY (")
	if len(d.pk) > 1 {
		b.WriteString("(" + quote(d.pk) + ")")
	} else {
		b.WriteString(quote(d.pk))
	}
	if len(d.ck) > 0 {
		b.WriteString(", " + quote(d.ck))
	}
	b.WriteString(")\n)")
	var with []string
	if len(d.ck) > 0 {
		parts := make([]string, len(d.ck))
		for i, n := range d.ck {
			o := "ASC"
			if !d.asc[i] {
				o = "DESC"
			}
			parts[i] = kandra.QuoteIdent(n) + " " + o
		}
		with = append(with, "CLUSTERING ORDER BY ("+strings.Join(parts, ", ")+")")
	}
	if d.ttl != nil {
		with = append(with, "default_time_to_live = "+strconv.Itoa(*d.ttl))
	}
	if d.gc != nil {
		with = append(with, "gc_grace_seconds = "+strconv.Itoa(*d.gc))
	}
	with = append(with, d.storage...)
	if len(with) > 0 {
		b.WriteString("\nWITH " + strings.Join(with, "\nAND "))
	}
	b.WriteString(";")
	return b.String()
}

// mirrorOf describes a registered schema's primary table as a tableDef.
func mirrorOf(ts *kandra.TableSchema) tableDef {
	d := tableDef{name: ts.Name()}
	for _, c := range ts.Columns() {
		typ := c.Decl()
		if c.IsStatic() {
			typ += " STATIC"
		}
		d.cols = append(d.cols, colDef{c.Name(), typ})
	}
	for _, c := range ts.PartitionKeys() {
		d.pk = append(d.pk, c.Name())
	}
	for _, c := range ts.ClusteringKeys() {
		d.ck = append(d.ck, c.Name())
		d.asc = append(d.asc, c.ClusteringOrder() == kandra.ClusteringAsc)
	}
	if n, ok := ts.DefaultTTL(); ok {
		d.ttl = ip(int(n / time.Second))
	}
	if n, ok := ts.GCGrace(); ok {
		d.gc = ip(int(n / time.Second))
	}
	return d
}

// lookupDDL is kandra's lookup-table layout.
func lookupDDL(ks, table string, key colDef, rest ...colDef) string {
	d := tableDef{name: table, cols: append([]colDef{key}, rest...), pk: []string{key.name}}
	return d.render(ks)
}

func indexDDL(ks, name, table, target string, ifNotExists bool) string {
	ine := "IF NOT EXISTS "
	if !ifNotExists {
		ine = ""
	}
	return "CREATE INDEX " + ine + kandra.QuoteIdent(name) + " ON " + qualified(ks, kandra.QuoteIdent(table)) + " (" + target + ");"
}

// indexWith is CREATE INDEX IF NOT EXISTS with a target as written
// (KEYS(m), "odd name") and what follows it (USING, WITH OPTIONS).
func indexWith(ks, name, table, target, tail string) string {
	return "CREATE INDEX IF NOT EXISTS " + kandra.QuoteIdent(name) + " ON " + qualified(ks, kandra.QuoteIdent(table)) + " (" + target + ")" + tail + ";"
}

func ip(n int) *int { return &n }

func ptr[T any](v T) *T { return &v }

// ---------------------------------------------------------------------------
// Specs for the rule cases, built from run-time struct types through the
// builder Register uses (internal/dynamic).

type fld struct {
	name  string
	typ   reflect.Type
	opts  []any
	roles []dynamic.Role
}

func f[V any](name string, opts ...any) fld {
	return fld{name: name, typ: reflect.TypeFor[V](), opts: opts}
}

func (x fld) as(r ...dynamic.Role) fld { x.roles = append(x.roles, r...); return x }

func specOf(table string, tableOpts []any, fields ...fld) dynamic.Spec {
	sf := make([]reflect.StructField, len(fields))
	for i, x := range fields {
		sf[i] = reflect.StructField{Name: x.name, Type: x.typ}
	}
	sp := dynamic.Spec{Type: reflect.StructOf(sf), Table: table, TableOptions: tableOpts, MarkerField: -1}
	for i, x := range fields {
		if len(x.opts) > 0 && len(x.roles) == 0 {
			sp.Binds = append(sp.Binds, dynamic.Bind{Field: i, Options: x.opts})
		}
		for j, r := range x.roles {
			b := dynamic.Bind{Field: i, Role: r}
			if j == 0 {
				b.Options = x.opts
			}
			sp.Binds = append(sp.Binds, b)
		}
	}
	return sp
}

func softDelete(sp dynamic.Spec, ttl, marker int) dynamic.Spec {
	sp.SoftDelete, sp.SoftTTL, sp.MarkerField = true, ttl, marker
	return sp
}

var pk0 = kandra.PartitionKey(0)

// ---------------------------------------------------------------------------
// The cases.

type ruleCase struct {
	rule kandra.Rule
	what string
	// spec must be refused by Register with rule. For a keyspace rule,
	// others are the keyspace's other tables: each of them and spec
	// builds, and NewKeyspace over others then spec must refuse them.
	others []dynamic.Spec
	spec   dynamic.Spec
	// setup runs first and must succeed (the parts kandra would have
	// written before the offending statement); stmt must be rejected with
	// an error containing want. {ks} stands for the keyspace.
	setup []string
	stmt  string
	want  string
	// silent, when set, is a check for a statement the server accepts
	// (IF NOT EXISTS) without doing what kandra would have asked: it
	// returns "" when the server visibly ignored the statement.
	silent func(s *gocql.Session, ks string) string
	// after, when set, runs once the statement is refused and returns ""
	// when all is well (the node still answers, say).
	after func(s *gocql.Session) string
}

const ksVar = "{ks}"

// inKeyspace puts ks into a case's statement: the mirror quotes ksVar as
// it quotes any name, and ks goes in exactly as kandra writes it.
func inKeyspace(stmt, ks string) string {
	stmt = strings.ReplaceAll(stmt, kandra.QuoteIdent(ksVar), kandra.QuoteIdent(ks))
	return strings.ReplaceAll(stmt, ksVar, kandra.QuoteIdent(ks))
}

func ruleCases() []ruleCase {
	ks := ksVar
	text, bigint, counter, duration := "TEXT", "BIGINT", "COUNTER", "DURATION"
	k := colDef{"k", text}
	cases := []ruleCase{
		{
			rule: kandra.RuleTableMissing, what: "blank table name",
			spec: specOf("", nil, f[string]("K", pk0)),
			stmt: tableDef{name: "", cols: []colDef{k}, pk: []string{"k"}}.render(ks),
			want: "no viable alternative",
		},
		{
			rule: kandra.RuleNoPartitionKey, what: "no partition key",
			spec: specOf("r_nopk", nil, f[string]("K"), f[string]("V")),
			stmt: tableDef{name: "r_nopk", cols: []colDef{k, {"v", text}}}.render(ks),
			want: "no viable alternative",
		},
		{
			rule: kandra.RuleInvalidName, what: "table name with '-' (quoted)",
			spec: specOf("r-dash", nil, f[string]("K", pk0)),
			stmt: tableDef{name: "r-dash", cols: []colDef{k}, pk: []string{"k"}}.render(ks),
			want: "non-alphanumeric-underscore",
		},
		{
			rule: kandra.RuleInvalidName, what: "non-ASCII table name (quoted)",
			spec: specOf("r_tablé", nil, f[string]("K", pk0)),
			stmt: tableDef{name: "r_tablé", cols: []colDef{k}, pk: []string{"k"}}.render(ks),
			want: "non-alphanumeric-underscore",
		},
		{
			rule: kandra.RuleInvalidName, what: "lookup table name with '-'",
			spec:  specOf("r_lk", nil, f[string]("K", pk0), f[string]("Email", kandra.Lookup("by-mail", kandra.LookupBatch))),
			setup: []string{tableDef{name: "r_lk", cols: []colDef{k, {"email", text}}, pk: []string{"k"}}.render(ks)},
			stmt:  lookupDDL(ks, "r_lk_by-mail", colDef{"email", text}, k),
			want:  "non-alphanumeric-underscore",
		},
		{
			rule: kandra.RuleDuplicateColumn, what: "two fields, one column name",
			spec: specOf("r_dup", nil, f[string]("K", pk0), f[string]("Note"), f[string]("Remark", kandra.Column("note"))),
			stmt: tableDef{name: "r_dup", cols: []colDef{k, {"note", text}, {"note", text}}, pk: []string{"k"}}.render(ks),
			want: "Duplicate column",
		},
		{
			rule: kandra.RuleCounterMix, what: "counter and non-counter columns",
			spec: specOf("r_mix", nil, f[string]("K", pk0), f[int64]("N").as(dynamic.Counter), f[string]("Note")),
			stmt: tableDef{name: "r_mix", cols: []colDef{k, {"n", counter}, {"note", text}}, pk: []string{"k"}}.render(ks),
			want: "Cannot mix counter and non counter columns",
		},
		{
			rule: kandra.RuleKeyType, what: "counter partition key",
			spec: specOf("r_ctrpk", nil, f[int64]("K", pk0).as(dynamic.Counter), f[int64]("N").as(dynamic.Counter)),
			stmt: tableDef{name: "r_ctrpk", cols: []colDef{{"k", counter}, {"n", counter}}, pk: []string{"k"}}.render(ks),
			want: "counter type is not supported for PRIMARY KEY",
		},
		{
			rule: kandra.RuleKeyType, what: "counter clustering key",
			spec: specOf("r_ctrck", nil, f[string]("K", pk0), f[int64]("C", kandra.ClusteringKey(0, kandra.ClusteringAsc)).as(dynamic.Counter), f[int64]("N").as(dynamic.Counter)),
			stmt: tableDef{name: "r_ctrck", cols: []colDef{k, {"c", counter}, {"n", counter}}, pk: []string{"k"}, ck: []string{"c"}, asc: []bool{true}}.render(ks),
			want: "counter type is not supported for PRIMARY KEY",
		},
		{
			rule: kandra.RuleKeyType, what: "duration partition key",
			spec: specOf("r_durpk", nil, f[time.Duration]("K", pk0)),
			stmt: tableDef{name: "r_durpk", cols: []colDef{{"k", duration}}, pk: []string{"k"}}.render(ks),
			want: "duration type is not supported for PRIMARY KEY",
		},
		{
			rule: kandra.RuleKeyType, what: "duration clustering key",
			spec: specOf("r_durck", nil, f[string]("K", pk0), f[time.Duration]("C", kandra.ClusteringKey(0, kandra.ClusteringDesc))),
			stmt: tableDef{name: "r_durck", cols: []colDef{k, {"c", duration}}, pk: []string{"k"}, ck: []string{"c"}, asc: []bool{false}}.render(ks),
			want: "duration type is not supported for PRIMARY KEY",
		},
		{
			rule: kandra.RuleKeyType, what: "list of durations in a clustering key (frozen)",
			spec: specOf("r_durlist", nil, f[string]("K", pk0), f[[]time.Duration]("C", kandra.ClusteringKey(0, kandra.ClusteringAsc))),
			stmt: tableDef{name: "r_durlist", cols: []colDef{k, {"c", "FROZEN<LIST<DURATION>>"}}, pk: []string{"k"}, ck: []string{"c"}, asc: []bool{true}}.render(ks),
			want: "duration type is not supported for PRIMARY KEY",
		},
		{
			rule: kandra.RuleKeyType, what: "lookup on a duration column (the lookup table's key)",
			spec:  specOf("r_durlk", nil, f[string]("K", pk0), f[time.Duration]("D", kandra.Lookup("by_d", kandra.LookupBatch))),
			setup: []string{tableDef{name: "r_durlk", cols: []colDef{k, {"d", duration}}, pk: []string{"k"}}.render(ks)},
			stmt:  lookupDDL(ks, "r_durlk_by_d", colDef{"d", duration}, k),
			want:  "duration type is not supported for PRIMARY KEY",
		},
		{
			rule: kandra.RuleKeyType, what: "lookup on a counter column (counter table with a lookup)",
			spec:  specOf("r_ctrlk", nil, f[string]("K", pk0), f[int64]("N", kandra.Lookup("by_n", kandra.LookupEventual)).as(dynamic.Counter)),
			setup: []string{tableDef{name: "r_ctrlk", cols: []colDef{k, {"n", counter}}, pk: []string{"k"}}.render(ks)},
			stmt:  lookupDDL(ks, "r_ctrlk_by_n", colDef{"n", counter}, k),
			want:  "counter type is not supported for PRIMARY KEY",
		},
		{
			rule: kandra.RuleUnsupportedType, what: "duration as a set element",
			spec: specOf("r_durset", nil, f[string]("K", pk0), f[map[time.Duration]struct{}]("S")),
			stmt: tableDef{name: "r_durset", cols: []colDef{k, {"s", "SET<DURATION>"}}, pk: []string{"k"}}.render(ks),
			want: "Durations are not allowed inside sets",
		},
		{
			rule: kandra.RuleUnsupportedType, what: "duration as a map key",
			spec: specOf("r_durmap", nil, f[string]("K", pk0), f[map[time.Duration]string]("M")),
			stmt: tableDef{name: "r_durmap", cols: []colDef{k, {"m", "MAP<DURATION, TEXT>"}}, pk: []string{"k"}}.render(ks),
			want: "Durations are not allowed as map keys",
		},
		{
			rule: kandra.RuleStatic, what: "static column in a table without clustering columns",
			spec: specOf("r_stnock", nil, f[string]("K", pk0), f[string]("S", kandra.Static())),
			stmt: tableDef{name: "r_stnock", cols: []colDef{k, {"s", "TEXT STATIC"}}, pk: []string{"k"}}.render(ks),
			want: "Static columns are only useful (and thus allowed) if the table has at least one clustering column",
		},
		{
			// The table is accepted; the runtime's Update of a row, which
			// names the clustering column, is not.
			rule: kandra.RuleStatic, what: "every non-key column static (the update of a row)",
			spec:  specOf("r_stall", nil, f[string]("K", pk0), f[string]("C", kandra.ClusteringKey(0, kandra.ClusteringAsc)), f[string]("S", kandra.Static())),
			setup: []string{tableDef{name: "r_stall", cols: []colDef{k, {"c", text}, {"s", "TEXT STATIC"}}, pk: []string{"k"}, ck: []string{"c"}, asc: []bool{true}}.render(ks)},
			stmt:  "UPDATE " + qualified(ks, "r_stall") + " SET s = 'x' WHERE k = 'a' AND c = 'b'",
			want:  "Invalid restrictions on clustering columns since the UPDATE statement modifies only static columns",
		},
		{
			rule: kandra.RuleCounterTable, what: "counter table with a default TTL",
			spec: specOf("r_ctrttl", []any{kandra.DefaultTTL(60 * time.Second)}, f[string]("K", pk0), f[int64]("N").as(dynamic.Counter)),
			stmt: tableDef{name: "r_ctrttl", cols: []colDef{k, {"n", counter}}, pk: []string{"k"}, ttl: ip(60)}.render(ks),
			want: "Cannot set default_time_to_live on a table with counters",
		},
		{
			rule: kandra.RuleCounterTable, what: "counter table with a created-at timestamp column",
			spec: specOf("r_ctrts", nil, f[string]("K", pk0), f[int64]("N").as(dynamic.Counter), f[time.Time]("Created").as(dynamic.CreatedAt)),
			stmt: tableDef{name: "r_ctrts", cols: []colDef{k, {"n", counter}, {"created", "TIMESTAMP"}}, pk: []string{"k"}}.render(ks),
			want: "Cannot mix counter and non counter columns",
		},
		{
			rule: kandra.RuleCounterMix, what: "counter table with an int64 version column",
			spec: specOf("r_ctrver", nil, f[string]("K", pk0), f[int64]("N").as(dynamic.Counter), f[int64]("Rev").as(dynamic.Version)),
			stmt: tableDef{name: "r_ctrver", cols: []colDef{k, {"n", counter}, {"rev", bigint}}, pk: []string{"k"}}.render(ks),
			want: "Cannot mix counter and non counter columns",
		},
		{
			// Version with Counter on one field is conflicting-options, checked
			// before counter-table; the server refuses the runtime's
			// conditional update all the same.
			rule: kandra.RuleConflictingOptions, what: "counter column that is also the version (its conditional update)",
			spec:  specOf("r_ctrver2", nil, f[string]("K", pk0), f[int64]("N").as(dynamic.Counter), f[int64]("Rev").as(dynamic.Counter, dynamic.Version)),
			setup: []string{tableDef{name: "r_ctrver2", cols: []colDef{k, {"n", counter}, {"rev", counter}}, pk: []string{"k"}}.render(ks)},
			stmt:  "UPDATE " + qualified(ks, "r_ctrver2") + " SET rev = rev + 1 WHERE k = 'a' IF rev = 0",
			want:  "Conditions on counters are not supported",
		},
		{
			rule: kandra.RuleCounterTable, what: "counter table with a secondary index",
			spec:  specOf("r_ctridx", nil, f[string]("K", pk0), f[string]("C", kandra.ClusteringKey(0, kandra.ClusteringAsc), kandra.SecondaryIndex()), f[int64]("N").as(dynamic.Counter)),
			setup: []string{tableDef{name: "r_ctridx", cols: []colDef{k, {"c", text}, {"n", counter}}, pk: []string{"k"}, ck: []string{"c"}, asc: []bool{true}}.render(ks)},
			stmt:  indexDDL(ks, "r_ctridx_c_idx", "r_ctridx", "c", true),
			want:  "counter",
		},
		{
			rule: kandra.RuleCounterTable, what: "counter table with soft delete (its TTL write)",
			spec:  softDelete(specOf("r_ctrsd", nil, f[string]("K", pk0), f[int64]("N").as(dynamic.Counter)), 86400, -1),
			setup: []string{tableDef{name: "r_ctrsd", cols: []colDef{k, {"n", counter}}, pk: []string{"k"}}.render(ks)},
			stmt:  "UPDATE " + qualified(ks, "r_ctrsd") + " USING TTL 86400 SET n = n + 1 WHERE k = 'a'",
			want:  "Cannot provide custom TTL for counter updates",
		},
		{
			rule: kandra.RuleLookup, what: "lookup on the partition key",
			spec:  specOf("r_lkpk", nil, f[string]("K", pk0, kandra.Lookup("by_k", kandra.LookupBatch)), f[string]("V")),
			setup: []string{tableDef{name: "r_lkpk", cols: []colDef{k, {"v", text}}, pk: []string{"k"}}.render(ks)},
			stmt:  lookupDDL(ks, "r_lkpk_by_k", k, k),
			want:  "Duplicate column",
		},
		{
			rule: kandra.RuleSecondaryIndex, what: "index on the only partition-key column",
			spec:  specOf("r_idxpk", nil, f[string]("K", pk0, kandra.SecondaryIndex()), f[string]("V")),
			setup: []string{tableDef{name: "r_idxpk", cols: []colDef{k, {"v", text}}, pk: []string{"k"}}.render(ks)},
			stmt:  indexDDL(ks, "r_idxpk_k_idx", "r_idxpk", "k", true),
			want:  "only partition key column",
		},
		{
			rule: kandra.RuleSecondaryIndex, what: "index on a duration column",
			spec:  specOf("r_idxdur", nil, f[string]("K", pk0), f[time.Duration]("D", kandra.SecondaryIndex())),
			setup: []string{tableDef{name: "r_idxdur", cols: []colDef{k, {"d", duration}}, pk: []string{"k"}}.render(ks)},
			stmt:  indexDDL(ks, "r_idxdur_d_idx", "r_idxdur", "d", true),
			want:  "not supported on duration columns",
		},
		{
			rule: kandra.RuleSecondaryIndex, what: "index on a list of durations",
			spec:  specOf("r_idxdurl", nil, f[string]("K", pk0), f[[]time.Duration]("D", kandra.SecondaryIndex())),
			setup: []string{tableDef{name: "r_idxdurl", cols: []colDef{k, {"d", "LIST<DURATION>"}}, pk: []string{"k"}}.render(ks)},
			stmt:  indexDDL(ks, "r_idxdurl_d_idx", "r_idxdurl", "d", true),
			want:  "collections containing durations",
		},
		{
			rule: kandra.RuleSecondaryIndex, what: "KEYS index on a list",
			spec:  specOf("r_idxkl", nil, f[string]("K", pk0), f[[]string]("L", kandra.SecondaryIndex(kandra.IndexKeys()))),
			setup: []string{tableDef{name: "r_idxkl", cols: []colDef{k, {"l", "LIST<TEXT>"}}, pk: []string{"k"}}.render(ks)},
			stmt:  indexWith(ks, "r_idxkl_l_idx", "r_idxkl", "KEYS(l)", ""),
			want:  "Cannot create index on keys of column l with non-map type",
		},
		{
			rule: kandra.RuleSecondaryIndex, what: "ENTRIES index on a text column",
			spec:  specOf("r_idxet", nil, f[string]("K", pk0), f[string]("X", kandra.SecondaryIndex(kandra.IndexEntries()))),
			setup: []string{tableDef{name: "r_idxet", cols: []colDef{k, {"x", text}}, pk: []string{"k"}}.render(ks)},
			stmt:  indexWith(ks, "r_idxet_x_idx", "r_idxet", "ENTRIES(x)", ""),
			want:  "Non-collection columns only support simple indexes",
		},
		{
			rule: kandra.RuleSecondaryIndex, what: "FULL index on a list that is not frozen",
			spec:  specOf("r_idxfl", nil, f[string]("K", pk0), f[[]int32]("L", kandra.SecondaryIndex(kandra.IndexFull()))),
			setup: []string{tableDef{name: "r_idxfl", cols: []colDef{k, {"l", "LIST<INT>"}}, pk: []string{"k"}}.render(ks)},
			stmt:  indexWith(ks, "r_idxfl_l_idx", "r_idxfl", "FULL(l)", ""),
			want:  "full() indexes can only be created on frozen collections",
		},
		{
			rule: kandra.RuleSecondaryIndex, what: "VALUES index on a frozen list in the key",
			spec:  specOf("r_idxvf", nil, f[string]("K", pk0), f[[]int32]("L", kandra.ClusteringKey(0, kandra.ClusteringAsc), kandra.SecondaryIndex(kandra.IndexValues()))),
			setup: []string{tableDef{name: "r_idxvf", cols: []colDef{k, {"l", "FROZEN<LIST<INT>>"}}, pk: []string{"k"}, ck: []string{"l"}, asc: []bool{true}}.render(ks)},
			stmt:  indexWith(ks, "r_idxvf_l_idx", "r_idxvf", "VALUES(l)", ""),
			want:  "Frozen collections are immutable and must be fully indexed",
		},
		{
			rule: kandra.RuleSecondaryIndex, what: "VALUES index on a set given Frozen",
			spec:  specOf("r_idxvfz", nil, f[string]("K", pk0), f[map[string]struct{}]("S", kandra.Frozen(), kandra.SecondaryIndex(kandra.IndexValues()))),
			setup: []string{tableDef{name: "r_idxvfz", cols: []colDef{k, {"s", "FROZEN<SET<TEXT>>"}}, pk: []string{"k"}}.render(ks)},
			stmt:  indexWith(ks, "r_idxvfz_s_idx", "r_idxvfz", "VALUES(s)", ""),
			want:  "Frozen collections are immutable and must be fully indexed",
		},
		{
			rule: kandra.RuleSAI, what: "SAI index on a blob",
			spec:  specOf("r_saiblob", nil, f[string]("K", pk0), f[[]byte]("B", kandra.SecondaryIndex(kandra.UsingSAI()))),
			setup: []string{tableDef{name: "r_saiblob", cols: []colDef{k, {"b", "BLOB"}}, pk: []string{"k"}}.render(ks)},
			stmt:  indexWith(ks, "r_saiblob_b_idx", "r_saiblob", "b", " USING 'sai'"),
			want:  "Unsupported type: blob",
		},
		{
			rule: kandra.RuleSAI, what: "SAI index on a column whose name has a space",
			spec:  specOf("r_saiodd", nil, f[string]("K", pk0), f[int32]("X", kandra.Column("odd name"), kandra.SecondaryIndex(kandra.UsingSAI()))),
			setup: []string{tableDef{name: "r_saiodd", cols: []colDef{k, {"odd name", "INT"}}, pk: []string{"k"}}.render(ks)},
			stmt:  indexWith(ks, "r_saiodd_odd_name_idx_", "r_saiodd", `"odd name"`, " USING 'sai'"),
			want:  "contains non-alphanumeric-underscore characters",
		},
		{
			rule: kandra.RuleSAI, what: "text analysis on a clustering column",
			spec:  specOf("r_saick", nil, f[string]("K", pk0), f[string]("C", kandra.ClusteringKey(0, kandra.ClusteringAsc), kandra.SecondaryIndex(kandra.UsingSAI(), kandra.SAINormalize()))),
			setup: []string{tableDef{name: "r_saick", cols: []colDef{k, {"c", text}}, pk: []string{"k"}, ck: []string{"c"}, asc: []bool{true}}.render(ks)},
			stmt:  indexWith(ks, "r_saick_c_idx", "r_saick", "c", " USING 'sai' WITH OPTIONS = {'normalize': 'true'}"),
			want:  "Analysis options are not supported on primary key columns",
		},
		{
			rule: kandra.RuleSAI, what: "text analysis on an int",
			spec:  specOf("r_saiint", nil, f[string]("K", pk0), f[int32]("N", kandra.SecondaryIndex(kandra.UsingSAI(), kandra.SAIASCII()))),
			setup: []string{tableDef{name: "r_saiint", cols: []colDef{k, {"n", "INT"}}, pk: []string{"k"}}.render(ks)},
			stmt:  indexWith(ks, "r_saiint_n_idx", "r_saiint", "n", " USING 'sai' WITH OPTIONS = {'ascii': 'true'}"),
			want:  "CQL type int cannot be analyzed",
		},
		{
			rule: kandra.RuleMask, what: "mask_inner on an int",
			spec:  specOf("r_maskint", nil, f[string]("K", pk0), f[int32]("N", kandra.Masked(kandra.MaskInner(1, 0)))),
			setup: []string{tableDef{name: "r_maskint", cols: []colDef{k, {"n", "INT"}}, pk: []string{"k"}}.render(ks)},
			stmt:  "ALTER TABLE " + ks + ".r_maskint ALTER n MASKED WITH mask_inner(1, 0)",
			want:  "Function system.mask_inner requires an argument of type [text|varchar|ascii]",
		},
		{
			rule: kandra.RuleSAI, what: "text analysis on a map's entries",
			spec:  specOf("r_saient", nil, f[string]("K", pk0), f[map[string]string]("M", kandra.SecondaryIndex(kandra.UsingSAI(), kandra.IndexEntries(), kandra.SAICaseInsensitive()))),
			setup: []string{tableDef{name: "r_saient", cols: []colDef{k, {"m", "MAP<TEXT, TEXT>"}}, pk: []string{"k"}}.render(ks)},
			stmt:  indexWith(ks, "r_saient_m_idx", "r_saient", "ENTRIES(m)", " USING 'sai' WITH OPTIONS = {'case_sensitive': 'false'}"),
			want:  "cannot be analyzed",
		},
		{
			rule: kandra.RuleVector, what: "a cosine ANN index on one dimension",
			spec:  specOf("r_veccos1", nil, f[string]("K", pk0), f[[1]float32]("V", kandra.VectorIndex(kandra.SimilarityCosine))),
			setup: []string{tableDef{name: "r_veccos1", cols: []colDef{k, {"v", "VECTOR<FLOAT, 1>"}}, pk: []string{"k"}}.render(ks)},
			stmt:  indexWith(ks, "r_veccos1_v_idx", "r_veccos1", "v", " USING 'sai' WITH OPTIONS = {'similarity_function': 'COSINE'}"),
			want:  "Cosine similarity is not supported for single-dimension vectors",
		},
		{
			rule: kandra.RuleVector, what: "an ANN index on a column whose name has a space",
			spec:  specOf("r_vecodd", nil, f[string]("K", pk0), f[[2]float32]("V", kandra.Column("odd v"), kandra.VectorIndex(kandra.SimilarityEuclidean))),
			setup: []string{tableDef{name: "r_vecodd", cols: []colDef{k, {"odd v", "VECTOR<FLOAT, 2>"}}, pk: []string{"k"}}.render(ks)},
			stmt:  indexWith(ks, "r_vecodd_odd_v_idx", "r_vecodd", `"odd v"`, " USING 'sai' WITH OPTIONS = {'similarity_function': 'EUCLIDEAN'}"),
			want:  "contains non-alphanumeric-underscore characters",
		},
		{
			rule: kandra.RuleUDT, what: "an index on a user-defined type column of its own (not frozen)",
			spec:  specOf("r_udtidx", nil, f[string]("K", pk0), f[RuleAddr]("A", kandra.SecondaryIndex())),
			setup: []string{"CREATE TYPE IF NOT EXISTS " + qualified(ks, "rule_addr") + " (city TEXT);", tableDef{name: "r_udtidx", cols: []colDef{k, {"a", "rule_addr"}}, pk: []string{"k"}}.render(ks)},
			stmt:  indexDDL(ks, "r_udtidx_a_idx", "r_udtidx", "a", true),
			want:  "Cannot create index on non-frozen UDT column",
		},
		{
			rule: kandra.RuleUDT, what: "Frozen on a text column",
			spec: specOf("r_frztext", nil, f[string]("K", pk0), f[string]("X", kandra.Frozen())),
			stmt: tableDef{name: "r_frztext", cols: []colDef{k, {"x", "FROZEN<TEXT>"}}, pk: []string{"k"}}.render(ks),
			want: "frozen<> is only allowed on collections, tuples, and user-defined types",
		},
		{
			rule: kandra.RuleUDTName, what: "a second user-defined type of a name taken in the keyspace",
			others: []dynamic.Spec{specOf("r_udt1", nil, f[string]("K", pk0), f[RuleHomeA]("H"))},
			spec:   specOf("r_udt2", nil, f[string]("K", pk0), f[RuleHomeB]("H")),
			setup: []string{
				"CREATE TYPE IF NOT EXISTS " + qualified(ks, "rule_home") + " (\n    city TEXT\n);",
				tableDef{name: "r_udt1", cols: []colDef{k, {"h", "rule_home"}}, pk: []string{"k"}}.render(ks),
			},
			stmt: "CREATE TYPE " + qualified(ks, "rule_home") + " (\n    zip INT\n);",
			want: "already exists",
			silent: func(s *gocql.Session, ks string) string {
				// What kandra would write, with IF NOT EXISTS: accepted, and
				// the type keeps the first definition.
				if err := execDDL(s, "CREATE TYPE IF NOT EXISTS "+qualified(ks, "rule_home")+" (\n    zip INT\n);"); err != nil {
					return "IF NOT EXISTS form rejected: " + err.Error()
				}
				var fields []string
				if err := s.Query(`SELECT field_names FROM system_schema.types WHERE keyspace_name = ? AND type_name = ?`, ks, "rule_home").Scan(&fields); err != nil {
					return err.Error()
				}
				if !slices.Equal(fields, []string{"city"}) {
					return fmt.Sprintf("the type's fields are %v", fields)
				}
				return ""
			},
		},
		{
			rule: kandra.RuleOptionRange, what: "a compression chunk of 3 KB",
			spec: specOf("r_chunk3", []any{kandra.Compression(kandra.LZ4Compressor, 3)}, f[string]("K", pk0)),
			stmt: tableDef{name: "r_chunk3", cols: []colDef{k}, pk: []string{"k"}, storage: []string{"compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': '3'}"}}.render(ks),
			want: "power of 2",
		},
		{
			rule: kandra.RuleOptionRange, what: "a bloom filter chance of 0",
			spec: specOf("r_bloom0", []any{kandra.BloomFilterFPChance(0)}, f[string]("K", pk0)),
			stmt: tableDef{name: "r_bloom0", cols: []colDef{k}, pk: []string{"k"}, storage: []string{"bloom_filter_fp_chance = 0"}}.render(ks),
			want: "bloom_filter_fp_chance",
		},
		{
			rule: kandra.RuleOptionRange, what: "a speculative retry that is no policy",
			spec: specOf("r_retry", []any{kandra.SpeculativeRetry("sometimes")}, f[string]("K", pk0)),
			stmt: tableDef{name: "r_retry", cols: []colDef{k}, pk: []string{"k"}, storage: []string{"speculative_retry = 'sometimes'"}}.render(ks),
			want: "sometimes",
		},
		{
			rule: kandra.RuleOptionRange, what: "a speculative retry at the 100th percentile",
			spec: specOf("r_retry100", []any{kandra.SpeculativeRetry("100p")}, f[string]("K", pk0)),
			stmt: tableDef{name: "r_retry100", cols: []colDef{k}, pk: []string{"k"}, storage: []string{"speculative_retry = '100p'"}}.render(ks),
			want: "100",
		},
		{
			rule: kandra.RuleOptionRange, what: "unified compaction with scaling parameters it cannot parse",
			spec: specOf("r_ucs", []any{kandra.Compaction(kandra.Unified("fast"))}, f[string]("K", pk0)),
			stmt: tableDef{name: "r_ucs", cols: []colDef{k}, pk: []string{"k"}, storage: []string{"compaction = {'class': 'UnifiedCompactionStrategy', 'scaling_parameters': 'fast'}"}}.render(ks),
			want: "fast",
		},
		// Issue 33, finding 8: values of the right form past the servers'
		// own limits.
		optionCase("r_lcs87961", "Leveled(87961): LCS's ninth level passes 2^63-1 bytes", kandra.Compaction(kandra.Leveled(87961)),
			"compaction = {'class': 'LeveledCompactionStrategy', 'sstable_size_in_mb': '87961'}", "At most 9223372036854775807 bytes may be in a compaction level"),
		optionCase("r_lcs2e31", "Leveled(2^31)", kandra.Compaction(kandra.Leveled(1<<31)),
			"compaction = {'class': 'LeveledCompactionStrategy', 'sstable_size_in_mb': '2147483648'}", "2147483648 is not a parsable int"),
		optionCase("r_twcs2e31", "TimeWindow(WindowDays, 2^31)", kandra.Compaction(kandra.TimeWindow(kandra.WindowDays, 1<<31)),
			"compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': '2147483648'}", "2147483648 is not a parsable int"),
		optionCase("r_cache2e31", "Caching(true, 2^31)", kandra.Caching(true, 1<<31),
			"caching = {'keys': 'ALL', 'rows_per_partition': '2147483648'}", "NumberFormatException"),
		optionCase("r_ucst", `Unified("T")`, kandra.Compaction(kandra.Unified("T")),
			"compaction = {'class': 'UnifiedCompactionStrategy', 'scaling_parameters': 'T'}", "Scaling parameter T must match"),
		optionCase("r_ucsn5", `Unified("N5")`, kandra.Compaction(kandra.Unified("N5")),
			"compaction = {'class': 'UnifiedCompactionStrategy', 'scaling_parameters': 'N5'}", "Scaling parameter N5 must match"),
		optionCase("r_ucst1", `Unified("T1")`, kandra.Compaction(kandra.Unified("T1")),
			"compaction = {'class': 'UnifiedCompactionStrategy', 'scaling_parameters': 'T1'}", "Fan factor cannot be lower than 2 in T1"),
		optionCase("r_ucsl0", `Unified("L0")`, kandra.Compaction(kandra.Unified("L0")),
			"compaction = {'class': 'UnifiedCompactionStrategy', 'scaling_parameters': 'L0'}", "Fan factor cannot be lower than 2 in L0"),
		optionCase("r_ucsbig", `Unified("T99999999999")`, kandra.Compaction(kandra.Unified("T99999999999")),
			"compaction = {'class': 'UnifiedCompactionStrategy', 'scaling_parameters': 'T99999999999'}", "NumberFormatException"),
		// A comment of 17 MiB passes the protocol's frame (kandra stops
		// at MaxCommentBytes, 1 MiB; the node takes one of 15 MB, and
		// refuses the schema mutation of one just under 16 MiB).
		optionCase("r_comment17m", "a 17 MiB Comment", kandra.Comment(strings.Repeat("c", 17<<20)),
			"comment = '"+strings.Repeat("c", 17<<20)+"'", "Request is too big"),
		{
			// Issue 10, finding 7: a 2,000-level type overflows the server's
			// stack (from about 240 levels on a cold node); kandra bounds
			// types at kandra.MaxTypeDepth levels. The node stays up.
			rule: kandra.RuleUnsupportedType, what: "2,000 nested lists (past MaxTypeDepth)",
			spec:  specOf("r_deep", nil, f[string]("K", pk0), fld{name: "V", typ: nestedSlices(2000)}),
			stmt:  tableDef{name: "r_deep", cols: []colDef{k, {"v", nestedListDecl(2000)}}, pk: []string{"k"}}.render(ks),
			want:  "StackOverflowError",
			after: nodeAnswers,
		},
		{
			rule: kandra.RuleOptionRange, what: "default TTL above 630720000",
			spec: specOf("r_ttlmax", []any{kandra.DefaultTTL(kandra.MaxTTL + time.Second)}, f[string]("K", pk0)),
			stmt: tableDef{name: "r_ttlmax", cols: []colDef{k}, pk: []string{"k"}, ttl: ip(maxTTLSeconds + 1)}.render(ks),
			want: "default_time_to_live must be less than or equal to 630720000",
		},
		{
			rule: kandra.RuleOptionRange, what: "negative default TTL",
			spec: specOf("r_ttlneg", []any{kandra.DefaultTTL(-1 * time.Second)}, f[string]("K", pk0)),
			stmt: tableDef{name: "r_ttlneg", cols: []colDef{k}, pk: []string{"k"}, ttl: ip(-1)}.render(ks),
			want: "default_time_to_live must be greater than or equal to 0",
		},
		{
			rule: kandra.RuleOptionRange, what: "negative gc grace",
			spec: specOf("r_gcneg", []any{kandra.GCGrace(-1 * time.Second)}, f[string]("K", pk0)),
			stmt: tableDef{name: "r_gcneg", cols: []colDef{k}, pk: []string{"k"}, gc: ip(-1)}.render(ks),
			want: "gc_grace_seconds must be greater than or equal to 0",
		},
		{
			rule: kandra.RuleOptionRange, what: "gc grace above 2147483647",
			spec: specOf("r_gcbig", []any{kandra.GCGrace((1 << 31) * time.Second)}, f[string]("K", pk0)),
			stmt: tableDef{name: "r_gcbig", cols: []colDef{k}, pk: []string{"k"}, gc: ip(1 << 31)}.render(ks),
			want: "gc_grace_seconds",
		},
		{
			rule: kandra.RuleOptionRange, what: "soft-delete TTL above 630720000 (its TTL write)",
			spec:  softDelete(specOf("r_sdmax", nil, f[string]("K", pk0), f[bool]("Gone")), maxTTLSeconds+1, 1),
			setup: []string{tableDef{name: "r_sdmax", cols: []colDef{k, {"gone", "BOOLEAN"}}, pk: []string{"k"}}.render(ks)},
			stmt:  "INSERT INTO " + qualified(ks, "r_sdmax") + " (k, gone) VALUES ('a', true) USING TTL " + strconv.Itoa(maxTTLSeconds+1),
			want:  "ttl is too large",
		},
		{
			rule: kandra.RuleOptionRange, what: "negative soft-delete TTL (its TTL write)",
			spec:  softDelete(specOf("r_sdneg", nil, f[string]("K", pk0), f[bool]("Gone")), -1, 1),
			setup: []string{tableDef{name: "r_sdneg", cols: []colDef{k, {"gone", "BOOLEAN"}}, pk: []string{"k"}}.render(ks)},
			stmt:  "INSERT INTO " + qualified(ks, "r_sdneg") + " (k, gone) VALUES ('a', true) USING TTL -1",
			want:  "TTL",
		},
		{
			rule: kandra.RuleNameTaken, what: "index name already used in the keyspace by another table",
			others: []dynamic.Spec{specOf("r_a_b", nil, f[string]("K2", pk0), f[string]("C", kandra.SecondaryIndex()))},
			spec:   specOf("r_a", nil, f[string]("K2", pk0), f[string]("BC", kandra.Column("b_c"), kandra.SecondaryIndex())),
			setup: []string{
				tableDef{name: "r_a_b", cols: []colDef{{"k2", text}, {"c", text}}, pk: []string{"k2"}}.render(ks),
				indexDDL(ks, "r_a_b_c_idx", "r_a_b", "c", true),
				tableDef{name: "r_a", cols: []colDef{{"k2", text}, {"b_c", text}}, pk: []string{"k2"}}.render(ks),
			},
			stmt: indexDDL(ks, "r_a_b_c_idx", "r_a", "b_c", false),
			want: "already exist",
			silent: func(s *gocql.Session, ks string) string {
				// What kandra writes, with IF NOT EXISTS: accepted, and no index.
				if err := execDDL(s, indexDDL(ks, "r_a_b_c_idx", "r_a", "b_c", true)); err != nil {
					return "IF NOT EXISTS form rejected: " + err.Error()
				}
				idx, err := readIndexes(s, ks, "r_a")
				if err != nil {
					return err.Error()
				}
				if len(idx) != 0 {
					return fmt.Sprintf("the server created %v", idx)
				}
				return ""
			},
		},
		{
			rule: kandra.RuleNameTaken, what: "table name already used by another entity",
			others: []dynamic.Spec{specOf("r_same", nil, f[string]("K3", pk0), f[string]("First"))},
			spec:   specOf("r_same", nil, f[string]("K3", pk0), f[string]("Second")),
			setup:  []string{tableDef{name: "r_same", cols: []colDef{{"k3", text}, {"first", text}}, pk: []string{"k3"}}.render(ks)},
			stmt:   strings.Replace(tableDef{name: "r_same", cols: []colDef{{"k3", text}, {"second", text}}, pk: []string{"k3"}}.render(ks), "IF NOT EXISTS ", "", 1),
			want:   "already exist",
			silent: func(s *gocql.Session, ks string) string {
				if err := execDDL(s, tableDef{name: "r_same", cols: []colDef{{"k3", text}, {"second", text}}, pk: []string{"k3"}}.render(ks)); err != nil {
					return "IF NOT EXISTS form rejected: " + err.Error()
				}
				cols, err := readColumns(s, ks, "r_same")
				if err != nil {
					return err.Error()
				}
				if _, ok := cols["second"]; ok {
					return "the second entity's column exists"
				}
				return ""
			},
		},
		{
			rule: kandra.RuleDuplicateLookupTable, what: "two lookups naming one lookup table",
			spec: specOf("r_twolk", nil, f[string]("K", pk0), f[string]("A", kandra.Lookup("by_x", kandra.LookupBatch)), f[int32]("B", kandra.Lookup("by_x", kandra.LookupEventual))),
			setup: []string{
				tableDef{name: "r_twolk", cols: []colDef{k, {"a", text}, {"b", "INT"}}, pk: []string{"k"}}.render(ks),
				lookupDDL(ks, "r_twolk_by_x", colDef{"a", text}, k),
			},
			stmt: strings.Replace(lookupDDL(ks, "r_twolk_by_x", colDef{"b", "INT"}, k), "IF NOT EXISTS ", "", 1),
			want: "already exist",
			silent: func(s *gocql.Session, ks string) string {
				if err := execDDL(s, lookupDDL(ks, "r_twolk_by_x", colDef{"b", "INT"}, k)); err != nil {
					return "IF NOT EXISTS form rejected: " + err.Error()
				}
				cols, err := readColumns(s, ks, "r_twolk_by_x")
				if err != nil {
					return err.Error()
				}
				if _, ok := cols["b"]; ok {
					return "the second lookup's key column exists"
				}
				return ""
			},
		},
	}
	return cases
}

// optionCase is an option-range case of one table (k TEXT PRIMARY KEY)
// with one storage option, rendered as item.
func optionCase(table, what string, opt any, item, want string) ruleCase {
	return ruleCase{
		rule: kandra.RuleOptionRange, what: what,
		spec: specOf(table, []any{opt}, f[string]("K", pk0)),
		stmt: tableDef{name: table, cols: []colDef{{"k", "TEXT"}}, pk: []string{"k"}, storage: []string{item}}.render(ksVar),
		want: want,
	}
}

// keyspaceCase is a keyspace name CreateKeyspace and NewKeyspace refuse.
// stmt, when set, is what the server is sent instead of CREATE KEYSPACE
// (for a keyspace that exists: kandra's CREATE TABLE in it).
type keyspaceCase struct {
	what, name, want string
	stmt             func(name string) string
}

// keyspaceCases: CreateKeyspace and NewKeyspace refuse these names; the
// server refuses them too.
var keyspaceCases = []keyspaceCase{
	{what: "keyspace name of 49 characters", name: strings.Repeat("k", 49), want: "48 characters"},
	{what: "keyspace name with '-' (quoted)", name: "kandra-it", want: "alphanumeric or underscore"},
	// Issue 10, finding 4: system keyspaces, compared without case.
	{what: "System (a system keyspace in another case)", name: "System", want: "System keyspace 'System' is not user-modifiable"},
	{what: "system_schema", name: "system_schema", want: "is not user-modifiable"},
	{what: "system_auth (exists: kandra's CREATE TABLE in it)", name: "system_auth", want: "Cannot CREATE <all tables in system_auth>",
		stmt: func(name string) string {
			return tableDef{name: "r_sys", cols: []colDef{{"k", "TEXT"}}, pk: []string{"k"}}.render(name)
		}},
	{what: "system_traces (exists: kandra's CREATE TABLE in it)", name: "system_traces", want: "Cannot CREATE <all tables in system_traces>",
		stmt: func(name string) string {
			return tableDef{name: "r_sys", cols: []colDef{{"k", "TEXT"}}, pk: []string{"k"}}.render(name)
		}},
}

// replicationCase is a replication CreateKeyspace and NewKeyspace refuse.
// want is the server's reason for refusing the statement kandra would
// have written. For a statement Cassandra accepts: misread, when set,
// checks that the server stored something other than what kandra would
// have asked for ("" = it did); otherwise the case is one where kandra is
// stricter (no replica to write to, or a factor no cluster needs). A case
// with notSent is never sent: it says why.
type replicationCase struct {
	what    string
	r       kandra.Replication
	want    string
	misread func(s *gocql.Session, ks string) string
	notSent string
}

func replicationCases(dc string) []replicationCase {
	nts := func(f int) kandra.Replication { return kandra.NetworkTopologyStrategy(map[string]int{dc: f}) }
	return []replicationCase{
		{what: "SimpleStrategy with a negative factor", r: kandra.SimpleStrategy(-1), want: "Replication factor must be non-negative"},
		{what: "NetworkTopologyStrategy with a negative factor", r: nts(-1), want: "Replication factor must be non-negative"},
		{what: "NetworkTopologyStrategy whose only datacenter has factor 0", r: nts(0), want: "at least one datacenter must be present"},
		// Issue 10, finding 2. 2^31 does not parse; 2^31-1 parses, and the
		// first CREATE TABLE in that keyspace ends the node
		// (OutOfMemoryError): never sent.
		{what: "SimpleStrategy with factor 2^31", r: kandra.SimpleStrategy(1 << 31), want: `For input string: "2147483648"`},
		{what: "SimpleStrategy with factor 2^31-1", r: kandra.SimpleStrategy(1<<31 - 1),
			notSent: "accepted with a warning, and the first CREATE TABLE in the keyspace ends the node with OutOfMemoryError (issue 10, finding 2)"},
		// Issue 10, finding 5.
		{what: "NetworkTopologyStrategy with a datacenter named class", r: kandra.NetworkTopologyStrategy(map[string]int{"class": 1}), want: "Multiple definition for property class"},
		{what: "NetworkTopologyStrategy with a datacenter named replication_factor", r: kandra.NetworkTopologyStrategy(map[string]int{"replication_factor": 1}),
			misread: func(s *gocql.Session, ks string) string {
				var repl map[string]string
				if err := s.Query("SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?", ks).Scan(&repl); err != nil {
					return err.Error()
				}
				if _, ok := repl["replication_factor"]; ok || repl[dc] != "1" {
					return fmt.Sprintf("the server stored %v", repl)
				}
				return ""
			}},
		{what: "SimpleStrategy with factor 0", r: kandra.SimpleStrategy(0)},
		{what: "NetworkTopologyStrategy without datacenters", r: kandra.NetworkTopologyStrategy(nil)},
		{what: "SimpleStrategy with factor 65 (over MaxReplicationFactor)", r: kandra.SimpleStrategy(kandra.MaxReplicationFactor + 1)},
		{what: "NetworkTopologyStrategy with factor 65 (over MaxReplicationFactor)", r: nts(kandra.MaxReplicationFactor + 1)},
	}
}

// keyspaceDDL mirrors kandra's CREATE KEYSPACE, for replications kandra
// refuses to render; TestRules checks it against CreateKeyspace first.
func keyspaceDDL(name string, r kandra.Replication) string {
	repl := "'SimpleStrategy', 'replication_factor': " + strconv.Itoa(r.SimpleFactor())
	if r.IsNetworkTopology() {
		repl = "'NetworkTopologyStrategy'"
		dcs := r.Datacenters()
		names := make([]string, 0, len(dcs))
		for dc := range dcs {
			names = append(names, dc)
		}
		sort.Strings(names)
		for _, dc := range names {
			repl += ", '" + strings.ReplaceAll(dc, "'", "''") + "': " + strconv.Itoa(dcs[dc])
		}
	}
	return "CREATE KEYSPACE IF NOT EXISTS " + kandra.QuoteIdent(name) + " WITH replication = {'class': " + repl + "};"
}

// scyllaCase is a rule (or part of one) that serves ScyllaDB targets
// only: kandra refuses the schema for every target (the default) and
// takes it for the node's own target, and Cassandra accepts the statement.
type scyllaCase struct {
	rule       kandra.Rule
	what       string
	why        string
	tables     []dynamic.Spec
	repl       *kandra.Replication // nil: testReplication()
	stmts      []string            // sent, in order; all must be accepted
	stricter   bool                // kandra refuses it for the node's target too
	stricterOn kandra.Target       // the targets kandra refuses it for too, when not all
	among      kandra.Target       // the targets it is refused for (0: every target)
}

func scyllaCases(ks string) []scyllaCase {
	long := "r_" + strings.Repeat("l", 47) // 49 characters
	// A table of 140 and a column of 48 characters (what SAI takes): an
	// index name of 193.
	idxTable, idxCol := "r_idxlong_"+strings.Repeat("x", 130), "V"+strings.Repeat("v", 47)
	return []scyllaCase{
		{rule: kandra.RuleNameLength, what: "table name longer than 48 characters",
			why:    "ScyllaDB up to 2025.1 limits table, view and index names to 48 characters (192 from 2025.2); Cassandra 5.0 takes longer ones (183 with the keyspace's name)",
			tables: []dynamic.Spec{specOf(long, nil, f[string]("K", pk0))},
			stmts:  []string{tableDef{name: long, cols: []colDef{{"k", "TEXT"}}, pk: []string{"k"}}.render(ks)}},
		{rule: kandra.RuleNameLength, what: "index name longer than 192 characters", stricterOn: kandra.Cassandra5Latest,
			why:    "ScyllaDB checks index names from 2025.2 against 192 characters (2025.1 not at all) and 2026.x table names against 192 too; Cassandra checks index names only against \\w+, and kandra keeps a storage-attached index's (the default on cassandra_latest.yaml) to 182, where its longest file names still fit 255 bytes",
			tables: []dynamic.Spec{specOf(idxTable, nil, f[string]("K", pk0), f[string](idxCol, kandra.SecondaryIndex()))}, // index name: 193 characters
			stmts: []string{
				tableDef{name: idxTable, cols: []colDef{{"k", "TEXT"}, {kandra.SnakeCase(idxCol), "TEXT"}}, pk: []string{"k"}}.render(ks),
				indexDDL(ks, idxTable+"_"+kandra.SnakeCase(idxCol)+"_idx", idxTable, kandra.SnakeCase(idxCol), true),
			}},
		{rule: kandra.RuleTablets, what: "SimpleStrategy",
			why:   "a ScyllaDB keyspace with tablets (the default for new keyspaces) supports only NetworkTopologyStrategy",
			repl:  ptr(kandra.SimpleStrategy(1)),
			stmts: []string{keyspaceDDL(ks+"_simple", kandra.SimpleStrategy(1))}},
		{rule: kandra.RuleTablets, what: "a counter table",
			why:    "ScyllaDB 2025.x refuses counters with tablets (\"Counters are not yet supported with tablets\")",
			tables: []dynamic.Spec{specOf("r_tabctr", nil, f[string]("K", pk0), f[int64]("N").as(dynamic.Counter))},
			stmts:  []string{tableDef{name: "r_tabctr", cols: []colDef{{"k", "TEXT"}, {"n", "COUNTER"}}, pk: []string{"k"}}.render(ks)}},
		{rule: kandra.RuleTablets, what: "a Version column (its lightweight transaction)",
			why:    "ScyllaDB 2025.x refuses LWT with tablets (\"LWT is not yet supported with tablets\")",
			tables: []dynamic.Spec{specOf("r_tabver", nil, f[string]("K", pk0), f[int64]("Rev").as(dynamic.Version))},
			stmts: []string{
				tableDef{name: "r_tabver", cols: []colDef{{"k", "TEXT"}, {"rev", "BIGINT"}}, pk: []string{"k"}}.render(ks),
				"INSERT INTO " + qualified(ks, "r_tabver") + " (k, rev) VALUES ('a', 1)",
				"UPDATE " + qualified(ks, "r_tabver") + " SET rev = 2 WHERE k = 'a' IF rev = 1",
			}},
		{rule: kandra.RuleNameTaken, what: "an index whose name + \"_index\" is a table", stricter: true,
			among: kandra.AllTargets &^ kandra.Scylla2025Tablets, // which refuses every index (tablets)
			why:   "ScyllaDB backs a global index with a view named <index>_index; Cassandra has no such view, yet kandra claims the name on every target",
			tables: []dynamic.Spec{
				specOf("r_idxview_w_idx_index", nil, f[string]("K", pk0)),
				specOf("r_idxview", nil, f[string]("K", pk0), f[string]("W", kandra.SecondaryIndex())),
			},
			stmts: []string{
				tableDef{name: "r_idxview_w_idx_index", cols: []colDef{{"k", "TEXT"}}, pk: []string{"k"}}.render(ks),
				tableDef{name: "r_idxview", cols: []colDef{{"k", "TEXT"}, {"w", "TEXT"}}, pk: []string{"k"}}.render(ks),
				indexDDL(ks, "r_idxview_w_idx", "r_idxview", "w", true),
			}},
	}
}

// goSideRules are the rules, or the parts of rules, that no server
// enforces: they keep the Go API unambiguous (or are the Kotlin library's),
// so there is no DDL for a server to reject. Every rule of kandra.Rules()
// is demonstrated by TestRules, serves only other targets, or is listed
// here.
var goSideRules = map[kandra.Rule]string{
	kandra.RuleNotStruct:                "Go-level misuse, no DDL",
	kandra.RuleDescribe:                 "a value-receiver Describe or a panic while registering: Go-level, no DDL",
	kandra.RuleBinding:                  "a pointer that is not a field of the entity: Go-level, no DDL",
	kandra.RuleConflictingOptions:       "Transient with another option, two timestamps or a version and a timestamp on one field, UpdatedAt or Version on a key, AsType twice: Go-level misuse (Version with Counter is demonstrated)",
	kandra.RuleSoftDeleteMarker:         "a marker that is Transient, a key column or not the entity's: the runtime would write the wrong row or none, with DDL the server accepts",
	kandra.RuleDuplicatePartitionIndex:  "the key order would be ambiguous; the server accepts either order",
	kandra.RuleDuplicateClusteringIndex: "the key order would be ambiguous; the server accepts either order",
	kandra.RuleDuplicateTimestamp:       "a runtime needs one of each",
	kandra.RuleDuplicateVersion:         "a runtime needs one",
	kandra.RuleKeyConflict:              "a field both partition and clustering key; kandra would write it once, which servers accept",
	kandra.RuleVector:                   "for a vector in a key or a lookup, which Cassandra takes (a float vector compares by its bytes: -0 and 0 would be two keys), and a SecondaryIndex on a vector, which the shipped yaml takes as an equality index: kandra's choices, not a server's refusal",
	kandra.RuleUnsupportedType:          "for user-defined types: an unexported, embedded or blank-tagged field, a recursive or anonymous struct, a vector in a type (kandra keeps vectors in columns of their own) and a reserved type name, which the grammar refuses before any type exists; and for Go kinds (unsigned, chan, func, pointer in a collection), AsType pairs the driver cannot marshal and CQLTypers that panic: no CQL type to send",
	kandra.RuleOptionRange:              "for cache settings, consistency levels and out-of-range enum values (ClusteringOrder(5), ...): recorded only or never rendered",
	kandra.RuleInvalidName:              "for a blank lookup suffix or a non-UTF-8 column name: client-side sanity; column names of 1,025 to 65,535 bytes, which the server takes (kandra's MaxColumnNameBytes is a margin)",
	kandra.RuleReplication:              "for a keyspace without a replica (SimpleStrategy(0), NetworkTopologyStrategy without datacenters) and factors 65 to 2^31-2, which Cassandra accepts",
	kandra.RuleTargets:                  "for Targets bits that name no server and Tablets values out of range: Go-level misuse (the tablets option on a Cassandra target is demonstrated)",
	kandra.RuleNameLength:               "Cassandra's own limits (183 for a table's and its keyspace's names, 182 for an SAI index, 222 for a legacy one): the node creates such a table or index, then fails on the file system to flush a lightweight transaction's Paxos state or the index's files, and stops recycling its commit log (CASSANDRA-20389, CASSANDRA-20425), so they are not sent; the 48 and 192 limits are ScyllaDB's (sent above: Cassandra accepts)",
}

// TestRules: for each server-grounded rule kandra enforces, Register (or,
// for a keyspace rule, NewKeyspace) refuses the schema, and the statement
// kandra would have sent without the rule is refused by Cassandra (or, for
// IF NOT EXISTS statements, visibly ignored, and refused without IF NOT
// EXISTS; or, for a write, answered wrongly).
func TestRules(t *testing.T) {
	s := session(t)

	// The mirror renders exactly what kandra renders.
	schemas, err := registerCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	sources := make([]kandra.SchemaSource, len(schemas))
	for i, ts := range schemas {
		sources[i] = ts
	}
	mk := kandra.MustNewKeyspace(keyspaceSpec("ks"), sources...)
	for _, ts := range schemas {
		if got, want := mirrorOf(ts).render("ks"), mustStmt(t, "CreateTable", ts.Name())(mk.CreateTable(ts)); got != want {
			t.Fatalf("the test's DDL mirror differs from kandra for %s:\n%s\nvs kandra:\n%s", ts.Name(), got, want)
		}
		for _, l := range ts.LookupTables() {
			if got, want := mirrorLookup("ks", l), mustStmt(t, "CreateLookupTable", l.Name())(mk.CreateLookupTable(l)); got != want {
				t.Fatalf("the test's lookup DDL mirror differs from kandra:\n%s\nvs kandra:\n%s", got, want)
			}
		}
	}
	for _, r := range []kandra.Replication{kandra.SimpleStrategy(1), kandra.NetworkTopologyStrategy(map[string]int{nodeDC: 1, "dc'2": 3})} {
		if got, want := keyspaceDDL("ks", r), kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Replication: r, Targets: serverTarget()}).CreateKeyspace(); got != want {
			t.Fatalf("the test's keyspace DDL mirror differs from kandra:\n%s\nvs kandra:\n%s", got, want)
		}
	}
	if got, want := nestedListDecl(3), fmt.Sprint(mustBuild(t, specOf("r_n3", nil, f[string]("K", pk0), fld{name: "V", typ: nestedSlices(3)})).Columns()[1].Decl()); got != want {
		t.Fatalf("the test's nested-type mirror renders %s, kandra %s", got, want)
	}

	ks := newKeyspace(t, s, "rules")
	demonstrated := 0
	shown := map[kandra.Rule]bool{}
	var stricter []string // what kandra refuses and the node accepts
	var accepted []string // what a rule of the other target refuses, accepted and written here
	sub := func(s string) string { return inKeyspace(s, ks) }
	for _, c := range ruleCases() {
		c := c
		ok := t.Run(string(c.rule)+"/"+c.what, func(t *testing.T) {
			var err error
			if len(c.others) == 0 {
				// Build, not Register: specs of different tables share
				// struct types, and the per-type cache would answer for
				// the first one.
				_, err = dynamic.Build(c.spec)
			} else {
				err = keyspaceRefusal(t, ks, append(c.others, c.spec), append(c.setup, c.stmt))
			}
			var se *kandra.SchemaError
			if !errors.As(err, &se) || se.Rule != c.rule || !errors.Is(err, kerrors.ErrSchema) {
				t.Fatalf("kandra: got %v, want a %s schema error", err, c.rule)
			}
			for _, st := range c.setup {
				if err := execDDL(s, sub(st)); err != nil {
					t.Fatalf("setup statement rejected:\n%s\n-> %v", sub(st), err)
				}
			}
			stmt := sub(c.stmt)
			err = s.Query(stmt).Exec()
			if err == nil {
				t.Fatalf("Cassandra ACCEPTED what rule %s forbids (the rule rejects what the server accepts):\n%s", c.rule, short(stmt))
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("rejected for another reason than the rule's:\n%s\n-> %v\n(want %q in the message)", short(stmt), err, c.want)
			}
			t.Logf("refused by kandra: %v", se)
			t.Logf("server rejects:\n%s\n-> %v", short(stmt), err)
			if c.silent != nil {
				if why := c.silent(s, ks); why != "" {
					t.Fatalf("with IF NOT EXISTS (what kandra writes): %s", why)
				}
				t.Logf("and kandra's IF NOT EXISTS form is accepted but silently does nothing, leaving the second entity without its table/index")
			}
			if c.after != nil {
				if why := c.after(s); why != "" {
					t.Fatal(why)
				}
			}
		})
		if ok {
			demonstrated++
			shown[c.rule] = true
		}
	}
	for _, c := range keyspaceCases {
		c := c
		ok := t.Run("keyspace-name/"+c.what, func(t *testing.T) {
			var se *kandra.SchemaError
			if _, err := specKeyspace(keyspaceSpec(c.name)); !errors.As(err, &se) || se.Rule != kandra.RuleKeyspaceName {
				t.Fatalf("specKeyspace(%q): got %v, want a %s error", c.name, err, kandra.RuleKeyspaceName)
			}
			if _, err := kandra.NewKeyspace(keyspaceSpec(c.name)); !errors.As(err, &se) || se.Rule != kandra.RuleKeyspaceName {
				t.Fatalf("kandra.NewKeyspace(%q): got %v, want a %s error", c.name, err, kandra.RuleKeyspaceName)
			}
			stmt := keyspaceDDL(c.name, testReplication())
			if c.stmt != nil {
				stmt = c.stmt(c.name)
			}
			err := s.Query(stmt).Exec()
			if err == nil {
				if c.stmt == nil {
					_ = execDDL(s, "DROP KEYSPACE IF EXISTS "+kandra.QuoteIdent(c.name))
				}
				t.Fatalf("Cassandra ACCEPTED %s", stmt)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("rejected for another reason:\n%s\n-> %v", stmt, err)
			}
			t.Logf("refused by kandra: %v", se)
			t.Logf("server rejects:\n%s\n-> %v", stmt, err)
		})
		if ok {
			demonstrated++
			shown[kandra.RuleKeyspaceName] = true
		}
	}
	var notSent []string
	for i, c := range replicationCases(nodeDC) {
		c := c
		name := keyspaceName(fmt.Sprintf("repl%d", i))
		counted := false
		t.Run("replication/"+c.what, func(t *testing.T) {
			var se *kandra.SchemaError
			if _, err := specKeyspace(kandra.KeyspaceSpec{Name: name, Replication: c.r, Targets: serverTarget()}); !errors.As(err, &se) || se.Rule != kandra.RuleReplication {
				t.Fatalf("kandra.CreateKeyspace: got %v, want a %s error", err, kandra.RuleReplication)
			}
			if _, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: name, Replication: c.r, Targets: serverTarget()}); !errors.As(err, &se) || se.Rule != kandra.RuleReplication {
				t.Fatalf("kandra.NewKeyspace: got %v, want a %s error", err, kandra.RuleReplication)
			}
			t.Logf("refused by kandra: %v", se)
			stmt := keyspaceDDL(name, c.r)
			if c.notSent != "" {
				notSent = append(notSent, c.what+": "+c.notSent)
				t.Logf("not sent: %s\n%s", c.notSent, stmt)
				return
			}
			trackKeyspace(name) // dropped at the end should the server create it
			err := s.Query(stmt).Exec()
			switch {
			case err == nil && c.misread != nil:
				if why := c.misread(s, name); why != "" {
					t.Fatalf("Cassandra accepts %s and %s: the rule would be unfounded", stmt, why)
				}
				t.Logf("Cassandra accepts it and stores something else than asked (replication_factor is read as every datacenter's factor, not as a datacenter):\n%s", stmt)
				counted = true
				return
			case err == nil && c.want == "":
				stricter = append(stricter, "replication: "+c.what)
				t.Logf("Cassandra accepts it; kandra is stricter:\n%s", stmt)
				return
			case err == nil:
				t.Fatalf("Cassandra ACCEPTED %s", stmt)
			case c.want == "":
				t.Logf("Cassandra rejects it too, counted as demonstrated")
			case !strings.Contains(err.Error(), c.want):
				t.Fatalf("rejected for another reason:\n%s\n-> %v", stmt, err)
			}
			t.Logf("server rejects:\n%s\n-> %v", stmt, err)
			counted = true
		})
		if counted {
			demonstrated++
			shown[kandra.RuleReplication] = true
		}
	}

	// The findings that need more than one statement (findings_test.go).
	for _, d := range findings() {
		d := d
		if !d.targets.Has(serverTarget()) {
			continue
		}
		passed := t.Run(string(d.rule)+"/"+d.what, func(t *testing.T) {
			if note := d.run(t, s, ks); note != "" {
				t.Log(note)
				switch d.kind {
				case stricterHere:
					stricter = append(stricter, string(d.rule)+": "+note)
				case acceptedHere:
					accepted = append(accepted, string(d.rule)+": "+d.what+": "+note)
				}
			}
		})
		if passed && d.kind == demonstration {
			demonstrated++
			shown[d.rule] = true
		}
	}

	// Rules that serve ScyllaDB targets only: refused by default, taken
	// for the node's target, and accepted by the node.
	var scylla []string
	for _, c := range scyllaCases(ksVar) {
		c := c
		t.Run("scylla-only/"+string(c.rule)+"/"+c.what, func(t *testing.T) {
			tables := make([]kandra.SchemaSource, len(c.tables))
			for i, sp := range c.tables {
				tables[i] = mustBuild(t, sp)
			}
			spec := kandra.KeyspaceSpec{Name: ks, Replication: testReplication(), Targets: c.among}
			if c.repl != nil {
				spec.Replication = *c.repl
			}
			var se *kandra.SchemaError
			if _, err := kandra.NewKeyspace(spec, tables...); !errors.As(err, &se) || se.Rule != c.rule {
				t.Fatalf("NewKeyspace for %s: got %v, want a %s error", spec.Targets, err, c.rule)
			}
			spec.Targets = serverTarget()
			_, err := kandra.NewKeyspace(spec, tables...)
			strict := c.stricter || c.stricterOn&serverTarget() != 0
			switch {
			case strict && err == nil:
				t.Fatalf("kandra now takes it for %s: move the case", serverTarget())
			case !strict && err != nil:
				t.Fatalf("NewKeyspace for %s: %v", serverTarget(), err)
			}
			for _, st := range c.stmts {
				stmt := sub(st)
				if strings.HasPrefix(stmt, "CREATE KEYSPACE") {
					trackKeyspace(ks + "_simple")
				}
				if err := s.Query(stmt).Exec(); err != nil {
					t.Fatalf("Cassandra refuses it too (a rule for Cassandra then, not ScyllaDB only):\n%s\n-> %v", stmt, err)
				}
			}
			if strict {
				stricter = append(stricter, string(c.rule)+": "+c.what+" on a "+serverTarget().String()+" keyspace ("+c.why+")")
			} else {
				scylla = append(scylla, string(c.rule)+": "+c.what)
			}
			t.Logf("refused for every target: %v\nCassandra accepts (%s)", se, c.why)
		})
	}

	// Every rule is accounted for: demonstrated above, serving only other
	// targets, or Go-side.
	var goSide, otherTargets []string
	for _, r := range kandra.Rules() {
		why, listed := goSideRules[r.Rule]
		switch {
		case shown[r.Rule]:
		case r.Targets&serverTarget() == 0:
			otherTargets = append(otherTargets, fmt.Sprintf("%s (%s)", r.Rule, r.Targets))
			continue
		case !listed:
			t.Errorf("rule %s (%s) is neither demonstrated on the server nor listed in goSideRules", r.Rule, r.Summary)
		}
		if listed {
			goSide = append(goSide, string(r.Rule)+": "+why)
		}
	}
	for r := range goSideRules {
		if !slices.ContainsFunc(kandra.Rules(), func(i kandra.RuleInfo) bool { return i.Rule == r }) {
			t.Errorf("goSideRules lists %q, which kandra.Rules() does not have", r)
		}
	}
	t.Logf("rules (or parts of rules) kandra enforces that no server enforces, or that are not sent (nothing to demonstrate): %s", strings.Join(goSide, "; "))
	t.Logf("rules serving only other targets than %s: %s", serverTarget(), strings.Join(otherTargets, "; "))
	t.Logf("ScyllaDB-only rules (refused for every target, taken for %s, accepted by Cassandra): %s", serverTarget(), strings.Join(scylla, "; "))
	t.Logf("what kandra refuses for %s and the node accepts (kandra is stricter): %s", serverTarget(), strings.Join(stricter, "; "))
	t.Logf("not sent: %s", strings.Join(notSent, "; "))
	t.Logf("refused for %s only, and accepted and written on this node: %s", otherTarget(), strings.Join(accepted, "; "))
	summary("rules", fmt.Sprintf("real-server: rules demonstrated=%d", demonstrated))
}

// short cuts a statement for the log (a 2,000-level type, a 64 KiB name).
func short(stmt string) string {
	if len(stmt) > 400 {
		return stmt[:400] + fmt.Sprintf("... (%d bytes)", len(stmt))
	}
	return stmt
}

// mirrorLookup is the mirror of kandra's lookup table l.
func mirrorLookup(ks string, l *kandra.LookupTableSchema) string {
	cols := l.Columns()
	key := colDef{cols[0].Name(), cols[0].Type().Frozen()}
	var rest []colDef
	for _, c := range cols[1:] {
		rest = append(rest, colDef{c.Name(), c.Decl()})
	}
	ddl := lookupDDL(ks, l.Name(), key, rest...)
	if l.IsUnique() { // the claim token
		ddl = strings.Replace(ddl, "    PRIMARY KEY (", "    "+kandra.ClaimColumn+" BIGINT,\n    PRIMARY KEY (", 1)
	} else {
		// Non-unique: the holder's key follows the value as clustering
		// columns, with no clustering order clause.
		names := []string{cols[0].CQLName()}
		for _, c := range cols[1:] {
			names = append(names, c.CQLName())
		}
		ddl = strings.Replace(ddl, "PRIMARY KEY ("+cols[0].CQLName()+")", "PRIMARY KEY (("+names[0]+"), "+strings.Join(names[1:], ", ")+")", 1)
	}
	return ddl
}

func mustBuild(t testing.TB, sp dynamic.Spec) *kandra.TableSchema {
	t.Helper()
	v, err := dynamic.Build(sp)
	if err != nil {
		t.Fatalf("building %s: %v", sp.Table, err)
	}
	return v.(*kandra.TableSchema)
}

// nestedSlices is []...[]int32, depth levels deep.
func nestedSlices(depth int) reflect.Type {
	typ := reflect.TypeFor[int32]()
	for i := 0; i < depth; i++ {
		typ = reflect.SliceOf(typ)
	}
	return typ
}

// nestedListDecl is kandra's rendering of nestedSlices(depth) as a
// regular column: LIST<FROZEN<LIST<...INT...>>>.
func nestedListDecl(depth int) string {
	d := "INT"
	for i := 0; i < depth; i++ {
		if i < depth-1 {
			d = "FROZEN<LIST<" + d + ">>"
		} else {
			d = "LIST<" + d + ">"
		}
	}
	return d
}

// nodeAnswers checks that the node still answers a query.
func nodeAnswers(s *gocql.Session) string {
	var v string
	if err := s.Query("SELECT release_version FROM system.local").Scan(&v); err != nil {
		return "the node no longer answers: " + err.Error()
	}
	return ""
}

// keyspaceRefusal builds each spec (a keyspace rule is no concern of
// Register's), checks that the statements the case sends are kandra's own
// for those tables in ks (the plain form of an IF NOT EXISTS statement
// counts as its own), and returns NewKeyspace's error for the tables in
// order, which must name every entity type involved.
func keyspaceRefusal(t *testing.T, ks string, specs []dynamic.Spec, sent []string) error {
	t.Helper()
	tables := make([]kandra.SchemaSource, len(specs))
	schemas := make([]*kandra.TableSchema, len(specs))
	var own []string
	for i, sp := range specs {
		ts := mustBuild(t, sp)
		tables[i], schemas[i] = ts, ts
		// Each table alone in the keyspace: what kandra writes for it.
		own = append(own, kandra.MustNewKeyspace(keyspaceSpec(ks), ts).Statements()[1:]...)
	}
	for _, st := range sent {
		st = inKeyspace(st, ks)
		withINE := st
		for _, verb := range []string{"CREATE TABLE ", "CREATE INDEX ", "CREATE TYPE "} {
			if strings.HasPrefix(st, verb) && !strings.HasPrefix(st, verb+"IF NOT EXISTS ") {
				withINE = verb + "IF NOT EXISTS " + st[len(verb):]
			}
		}
		if !slices.Contains(own, withINE) {
			t.Fatalf("the case sends a statement kandra would not write for these tables:\n%s\nkandra writes:\n%s", st, strings.Join(own, "\n"))
		}
	}
	_, err := kandra.NewKeyspace(keyspaceSpec(ks), tables...)
	if err != nil {
		for _, ts := range schemas {
			if typ := ts.EntityType().String(); !strings.Contains(err.Error(), typ) {
				t.Errorf("NewKeyspace's error does not name %s: %v", typ, err)
			}
		}
	}
	return err
}

// GeneratedTimeUUID is a generated key that its CQL override makes a
// TIMEUUID: the server accepts only version-1 UUIDs there, and kandra's
// strategies generate version 7 (TimeOrdered) or 4 (Random).
type GeneratedTimeUUID struct {
	K  string
	ID uuid.UUID
}

func (e *GeneratedTimeUUID) Describe(s *kandra.Schema[GeneratedTimeUUID]) {
	s.Table("r_gen_timeuuid")
	kandra.Bind(s, &e.K, kandra.PartitionKey(0))
	kandra.GeneratedUUID(s, &e.ID, kandra.UUIDTimeOrdered, kandra.AsType(kandra.CQLTimeUUID))
}

// TestGeneratedTimeUUID: a GeneratedUUID column overridden to TIMEUUID can
// never be written, because every id kandra generates for it is refused by
// the server; Register refuses the schema.
func TestGeneratedTimeUUID(t *testing.T) {
	s := session(t)
	ks := newKeyspace(t, s, "timeuuid")
	for _, strategy := range []kandra.UUIDStrategy{kandra.UUIDTimeOrdered, kandra.UUIDRandom} {
		stmt := tableDef{name: "r_gen_timeuuid", cols: []colDef{{"k", "TEXT"}, {"id", "TIMEUUID"}}, pk: []string{"k"}}.render(ks)
		if err := execDDL(s, stmt); err != nil {
			t.Fatal(err)
		}
		err := s.Query("INSERT INTO "+qualified(ks, "r_gen_timeuuid")+" (k, id) VALUES (?, ?)", "a", gocql.UUID(strategy.New())).Exec()
		if err == nil || !strings.Contains(err.Error(), "TimeUUID") {
			t.Fatalf("the server took a %s id in a TIMEUUID column (err %v): the rule below would be unfounded", strategy, err)
		}
		t.Logf("a %s id in a TIMEUUID column -> %v", strategy, err)
	}
	_, err := kandra.Register[GeneratedTimeUUID]()
	var se *kandra.SchemaError
	if !errors.As(err, &se) || se.Rule != kandra.RuleConflictingOptions {
		t.Fatalf("Register of a GeneratedUUID column typed TIMEUUID: got %v, want a %s schema error", err, kandra.RuleConflictingOptions)
	}
}

// maxTTLSeconds is kandra.MaxTTL in the seconds dynamic.Spec and CQL count.
const maxTTLSeconds = int(kandra.MaxTTL / time.Second)

// RuleAddr is a user-defined type of the rule cases: rule_addr.
type RuleAddr struct{ City string }

// RuleHomeA and RuleHomeB are two Go types that name one user-defined
// type, rule_home.
type (
	RuleHomeA struct{ City string }
	RuleHomeB struct{ Zip int32 }
)

// UDTName names the type.
func (RuleHomeA) UDTName() string { return "rule_home" }

// UDTName names the type.
func (RuleHomeB) UDTName() string { return "rule_home" }
