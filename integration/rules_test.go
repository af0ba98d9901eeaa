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
	kerrors "github.com/kandra-go/kandra/errors"
	"github.com/kandra-go/kandra/internal/dynamic"
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
		d.cols = append(d.cols, colDef{c.Name(), c.Decl()})
	}
	for _, c := range ts.PartitionKeys() {
		d.pk = append(d.pk, c.Name())
	}
	for _, c := range ts.ClusteringKeys() {
		d.ck = append(d.ck, c.Name())
		d.asc = append(d.asc, c.ClusteringOrder() == kandra.ClusteringAsc)
	}
	if n, ok := ts.DefaultTTL(); ok {
		d.ttl = &n
	}
	if n, ok := ts.GCGraceSeconds(); ok {
		d.gc = &n
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

func ip(n int) *int { return &n }

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
			rule: kandra.RuleInvalidName, what: "index name with a space (from column \"a b\")",
			spec:  specOf("r_ix", nil, f[string]("K", pk0), f[string]("AB", kandra.Column("a b"), kandra.SecondaryIndex())),
			setup: []string{tableDef{name: "r_ix", cols: []colDef{k, {"a b", text}}, pk: []string{"k"}}.render(ks)},
			stmt:  indexDDL(ks, "r_ix_a b_idx", "r_ix", kandra.QuoteIdent("a b"), true),
			want:  "Illegal index name",
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
			rule: kandra.RuleCounterTable, what: "counter table with a default TTL",
			spec: specOf("r_ctrttl", []any{kandra.DefaultTTL(60)}, f[string]("K", pk0), f[int64]("N").as(dynamic.Counter)),
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
			rule: kandra.RuleConflict, what: "counter column that is also the version (its conditional update)",
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
			rule: kandra.RuleLookup, what: "lookup on a clustering key",
			spec:  specOf("r_lkck", nil, f[string]("K", pk0), f[int32]("C", kandra.ClusteringKey(0, kandra.ClusteringAsc), kandra.Lookup("by_c", kandra.LookupBatch))),
			setup: []string{tableDef{name: "r_lkck", cols: []colDef{k, {"c", "INT"}}, pk: []string{"k"}, ck: []string{"c"}, asc: []bool{true}}.render(ks)},
			stmt:  lookupDDL(ks, "r_lkck_by_c", colDef{"c", "INT"}, k, colDef{"c", "INT"}),
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
			rule: kandra.RuleOptionRange, what: "default TTL above 630720000",
			spec: specOf("r_ttlmax", []any{kandra.DefaultTTL(kandra.MaxTTL + 1)}, f[string]("K", pk0)),
			stmt: tableDef{name: "r_ttlmax", cols: []colDef{k}, pk: []string{"k"}, ttl: ip(kandra.MaxTTL + 1)}.render(ks),
			want: "default_time_to_live must be less than or equal to 630720000",
		},
		{
			rule: kandra.RuleOptionRange, what: "negative default TTL",
			spec: specOf("r_ttlneg", []any{kandra.DefaultTTL(-1)}, f[string]("K", pk0)),
			stmt: tableDef{name: "r_ttlneg", cols: []colDef{k}, pk: []string{"k"}, ttl: ip(-1)}.render(ks),
			want: "default_time_to_live must be greater than or equal to 0",
		},
		{
			rule: kandra.RuleOptionRange, what: "negative gc grace",
			spec: specOf("r_gcneg", []any{kandra.GCGraceSeconds(-1)}, f[string]("K", pk0)),
			stmt: tableDef{name: "r_gcneg", cols: []colDef{k}, pk: []string{"k"}, gc: ip(-1)}.render(ks),
			want: "gc_grace_seconds must be greater than or equal to 0",
		},
		{
			rule: kandra.RuleOptionRange, what: "gc grace above 2147483647",
			spec: specOf("r_gcbig", []any{kandra.GCGraceSeconds(1 << 31)}, f[string]("K", pk0)),
			stmt: tableDef{name: "r_gcbig", cols: []colDef{k}, pk: []string{"k"}, gc: ip(1 << 31)}.render(ks),
			want: "gc_grace_seconds",
		},
		{
			rule: kandra.RuleOptionRange, what: "soft-delete TTL above 630720000 (its TTL write)",
			spec:  softDelete(specOf("r_sdmax", nil, f[string]("K", pk0), f[bool]("Gone")), kandra.MaxTTL+1, 1),
			setup: []string{tableDef{name: "r_sdmax", cols: []colDef{k, {"gone", "BOOLEAN"}}, pk: []string{"k"}}.render(ks)},
			stmt:  "INSERT INTO " + qualified(ks, "r_sdmax") + " (k, gone) VALUES ('a', true) USING TTL " + strconv.Itoa(kandra.MaxTTL+1),
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

// keyspaceCases: CreateKeyspace, InKeyspace and NewKeyspace refuse these
// names; the server refuses them too.
var keyspaceCases = []struct{ what, name, want string }{
	{"keyspace name of 49 characters", strings.Repeat("k", 49), "48 characters"},
	{"keyspace name with '-' (quoted)", "kandra-it", "alphanumeric or underscore"},
}

// replicationCase is a replication CreateKeyspace and NewKeyspace refuse.
// want is the server's reason for refusing the statement kandra would
// have written; "" marks a setting Cassandra accepts, where kandra is
// stricter because such a keyspace has no replica to write to.
type replicationCase struct {
	what string
	r    kandra.Replication
	want string
}

func replicationCases(dc string) []replicationCase {
	nts := func(f int) kandra.Replication { return kandra.NetworkTopologyStrategy(map[string]int{dc: f}) }
	return []replicationCase{
		{"SimpleStrategy with a negative factor", kandra.SimpleStrategy(-1), "Replication factor must be non-negative"},
		{"NetworkTopologyStrategy with a negative factor", nts(-1), "Replication factor must be non-negative"},
		{"NetworkTopologyStrategy whose only datacenter has factor 0", nts(0), "at least one datacenter must be present"},
		{"SimpleStrategy with factor 0", kandra.SimpleStrategy(0), ""},
		{"NetworkTopologyStrategy without datacenters", kandra.NetworkTopologyStrategy(nil), ""},
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

// scyllaOnly are rules kandra enforces for ScyllaDB that Cassandra 5.0 does
// not: each statement is sent, and Cassandra accepting it is logged (were it
// rejected, it would count as demonstrated).
func scyllaOnly(ks string) []struct{ what, why, stmt string } {
	long := "r_" + strings.Repeat("l", 47) // 49 characters
	return []struct{ what, why, stmt string }{
		{"table name longer than 48 characters",
			"ScyllaDB up to 2025.1 limits table, view and index names to 48 characters (192 from 2025.2); Cassandra 5.0 has no table-name length limit (CASSANDRA-20389 later adds 222)",
			tableDef{name: long, cols: []colDef{{"k", "TEXT"}}, pk: []string{"k"}}.render(ks)},
		{"index name longer than 48 characters",
			"same ScyllaDB limit; Cassandra checks index names only against \\w+",
			indexDDL(ks, long+"_v_idx", "r_idxlong", "v", true)},
		{"index name whose name+\"_index\" is a table",
			"ScyllaDB backs a global index with a view named <index>_index; Cassandra has no such view",
			indexDDL(ks, "r_view", "r_idxlong", "w", true)},
	}
}

// goSideRules are the rules, or the parts of rules, that no server
// enforces: they keep the Go API unambiguous (or are the Kotlin library's),
// so there is no DDL for a server to reject. Every rule of kandra.Rules()
// is demonstrated by TestRules or listed here.
var goSideRules = map[kandra.Rule]string{
	kandra.RuleNotStruct:                "Go-level misuse, no DDL",
	kandra.RuleDescribe:                 "a value-receiver Describe or a panic while registering: Go-level, no DDL",
	kandra.RuleBinding:                  "a pointer that is not a field of the entity: Go-level, no DDL",
	kandra.RuleConflict:                 "Transient with another option, two timestamps or a version and a timestamp on one field, UpdatedAt or Version on a key, AsType twice: Go-level misuse (Version with Counter is demonstrated)",
	kandra.RuleSoftDeleteMarker:         "a marker that is Transient, a key column or not the entity's: the runtime would write the wrong row or none, with DDL the server accepts",
	kandra.RuleDuplicatePartitionIndex:  "the key order would be ambiguous; the server accepts either order",
	kandra.RuleDuplicateClusteringIndex: "the key order would be ambiguous; the server accepts either order",
	kandra.RuleDuplicateTimestamp:       "a runtime needs one of each",
	kandra.RuleDuplicateVersion:         "a runtime needs one",
	kandra.RuleKeyConflict:              "a field both partition and clustering key; kandra would write it once, which servers accept",
	kandra.RuleUnsupportedType:          "for Go kinds (unsigned, chan, func, pointer in a collection): no CQL type to send",
	kandra.RuleOptionRange:              "for cache settings, consistency levels and out-of-range enum values (ClusteringOrder(5), ...): recorded only or never rendered",
	kandra.RuleInvalidName:              "for a blank lookup suffix or a non-UTF-8 column name: client-side sanity",
	kandra.RuleReplication:              "for a keyspace without a replica (SimpleStrategy(0), NetworkTopologyStrategy without datacenters), which Cassandra accepts",
}

// TestRules: for each server-grounded rule kandra enforces, Register (or,
// for a keyspace rule, NewKeyspace) refuses the schema, and the statement
// kandra would have sent without the rule is refused by Cassandra (or, for
// IF NOT EXISTS statements, visibly ignored, and refused without IF NOT
// EXISTS).
func TestRules(t *testing.T) {
	s := session(t)

	// The mirror renders exactly what kandra renders.
	schemas, err := registerCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	for _, ts := range schemas {
		if got, want := mirrorOf(ts).render("ks"), kandra.CreateTable(ts, kandra.MustInKeyspace("ks")); got != want {
			t.Fatalf("the test's DDL mirror differs from kandra for %s:\n%s\nvs kandra:\n%s", ts.Name(), got, want)
		}
		for _, l := range ts.LookupTables() {
			key := colDef{l.IndexColumn().Name(), l.IndexColumn().Type().Frozen()}
			var rest []colDef
			for _, c := range append(l.PartitionKeys(), l.ClusteringKeys()...) {
				rest = append(rest, colDef{c.Name(), c.Decl()})
			}
			if got, want := lookupDDL("ks", l.Name(), key, rest...), kandra.CreateLookupTable(l, kandra.MustInKeyspace("ks")); got != want {
				t.Fatalf("the test's lookup DDL mirror differs from kandra:\n%s\nvs kandra:\n%s", got, want)
			}
		}
	}
	var dc string
	if err := s.Query("SELECT data_center FROM system.local").Scan(&dc); err != nil {
		t.Fatal(err)
	}
	for _, r := range []kandra.Replication{kandra.SimpleStrategy(1), kandra.NetworkTopologyStrategy(map[string]int{dc: 1, "dc'2": 3})} {
		if got, want := keyspaceDDL("ks", r), kandra.MustCreateKeyspace("ks", r); got != want {
			t.Fatalf("the test's keyspace DDL mirror differs from kandra:\n%s\nvs kandra:\n%s", got, want)
		}
	}

	ks := newKeyspace(t, s, "rules")
	demonstrated := 0
	shown := map[kandra.Rule]bool{}
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
				t.Fatalf("Cassandra ACCEPTED what rule %s forbids (the rule rejects what the server accepts):\n%s", c.rule, stmt)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("rejected for another reason than the rule's:\n%s\n-> %v\n(want %q in the message)", stmt, err, c.want)
			}
			t.Logf("refused by kandra: %v", se)
			t.Logf("server rejects:\n%s\n-> %v", stmt, err)
			if c.silent != nil {
				if why := c.silent(s, ks); why != "" {
					t.Fatalf("with IF NOT EXISTS (what kandra writes): %s", why)
				}
				t.Logf("and kandra's IF NOT EXISTS form is accepted but silently does nothing, leaving the second entity without its table/index")
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
			if _, err := kandra.CreateKeyspace(c.name, kandra.SimpleStrategy(1)); !errors.As(err, &se) || se.Rule != kandra.RuleKeyspaceName {
				t.Fatalf("kandra.CreateKeyspace(%q): got %v, want a %s error", c.name, err, kandra.RuleKeyspaceName)
			}
			if _, err := kandra.NewKeyspace(c.name, kandra.SimpleStrategy(1)); !errors.As(err, &se) || se.Rule != kandra.RuleKeyspaceName {
				t.Fatalf("kandra.NewKeyspace(%q): got %v, want a %s error", c.name, err, kandra.RuleKeyspaceName)
			}
			if _, err := kandra.InKeyspace(c.name); err == nil {
				t.Fatalf("kandra.InKeyspace accepts %q", c.name)
			}
			stmt := keyspaceDDL(c.name, kandra.SimpleStrategy(1))
			err := s.Query(stmt).Exec()
			if err == nil {
				_ = execDDL(s, "DROP KEYSPACE IF EXISTS "+kandra.QuoteIdent(c.name))
				t.Fatalf("Cassandra ACCEPTED %s", stmt)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("rejected for another reason:\n%s\n-> %v", stmt, err)
			}
			t.Logf("server rejects:\n%s\n-> %v", stmt, err)
		})
		if ok {
			demonstrated++
			shown[kandra.RuleKeyspaceName] = true
		}
	}
	var stricter []string
	for i, c := range replicationCases(dc) {
		c := c
		name := keyspaceName(fmt.Sprintf("repl%d", i))
		ok := t.Run("replication/"+c.what, func(t *testing.T) {
			var se *kandra.SchemaError
			if _, err := kandra.CreateKeyspace(name, c.r); !errors.As(err, &se) || se.Rule != kandra.RuleReplication {
				t.Fatalf("kandra.CreateKeyspace: got %v, want a %s error", err, kandra.RuleReplication)
			}
			if _, err := kandra.NewKeyspace(name, c.r); !errors.As(err, &se) || se.Rule != kandra.RuleReplication {
				t.Fatalf("kandra.NewKeyspace: got %v, want a %s error", err, kandra.RuleReplication)
			}
			stmt := keyspaceDDL(name, c.r)
			trackKeyspace(name) // dropped at the end should the server create it
			err := s.Query(stmt).Exec()
			switch {
			case err == nil && c.want == "":
				stricter = append(stricter, c.what)
				t.Logf("Cassandra accepts it; kandra is stricter (no replica to write to):\n%s", stmt)
				return
			case err == nil:
				t.Fatalf("Cassandra ACCEPTED %s", stmt)
			case c.want == "":
				t.Logf("Cassandra rejects it too, counted as demonstrated")
			case !strings.Contains(err.Error(), c.want):
				t.Fatalf("rejected for another reason:\n%s\n-> %v", stmt, err)
			}
			t.Logf("refused by kandra: %v", se)
			t.Logf("server rejects:\n%s\n-> %v", stmt, err)
		})
		if ok && !slices.Contains(stricter, c.what) {
			demonstrated++
			shown[kandra.RuleReplication] = true
		}
	}

	// ScyllaDB-only rules: sent to show Cassandra accepts them.
	if err := execDDL(s, sub(tableDef{name: "r_idxlong", cols: []colDef{{"k", "TEXT"}, {"v", "TEXT"}, {"w", "TEXT"}}, pk: []string{"k"}}.render(ksVar))); err != nil {
		t.Fatal(err)
	}
	if err := execDDL(s, sub(tableDef{name: "r_view_index", cols: []colDef{{"k", "TEXT"}}, pk: []string{"k"}}.render(ksVar))); err != nil {
		t.Fatal(err)
	}
	var scylla []string
	for _, c := range scyllaOnly(ksVar) {
		stmt := sub(c.stmt)
		if err := s.Query(stmt).Exec(); err != nil {
			t.Logf("ScyllaDB rule %q: Cassandra rejects it too (-> %v), counted as demonstrated", c.what, err)
			demonstrated++
			continue
		}
		scylla = append(scylla, c.what)
		t.Logf("ScyllaDB-only rule, not demonstrable on Cassandra 5.0: %s: Cassandra accepts\n%s\n(%s)", c.what, stmt, c.why)
	}

	// Every rule is accounted for: demonstrated above, or Go-side.
	var goSide []string
	for _, r := range kandra.Rules() {
		why, listed := goSideRules[r.Rule]
		if !shown[r.Rule] && !listed {
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
	t.Logf("rules (or parts of rules) kandra enforces that no server enforces (nothing to demonstrate): %s", strings.Join(goSide, "; "))
	t.Logf("ScyllaDB-only rules (accepted by Cassandra 5.0, kept for ScyllaDB portability): %s", strings.Join(scylla, "; "))
	t.Logf("replications kandra refuses and Cassandra accepts (a keyspace without a replica): %s", strings.Join(stricter, "; "))
	summary("rules", fmt.Sprintf("real-server: rules demonstrated=%d", demonstrated))
}

// keyspaceRefusal builds each spec (a keyspace rule is no concern of
// Register's), checks that the statements the case sends are kandra's own
// for those tables in ks (the plain form of an IF NOT EXISTS statement
// counts as its own), and returns NewKeyspace's error for the tables in
// order, which must name every entity type involved.
func keyspaceRefusal(t *testing.T, ks string, specs []dynamic.Spec, sent []string) error {
	t.Helper()
	tables := make([]kandra.SchemaSource, len(specs))
	var own []string
	for i, sp := range specs {
		v, err := dynamic.Build(sp)
		if err != nil {
			t.Fatalf("table %s of the keyspace: %v", sp.Table, err)
		}
		ts := v.(*kandra.TableSchema)
		tables[i] = ts
		own = append(own, kandra.Statements(ts, kandra.MustInKeyspace(ks))...)
	}
	for _, st := range sent {
		st = inKeyspace(st, ks)
		withINE := st
		for _, verb := range []string{"CREATE TABLE ", "CREATE INDEX "} {
			if strings.HasPrefix(st, verb) && !strings.HasPrefix(st, verb+"IF NOT EXISTS ") {
				withINE = verb + "IF NOT EXISTS " + st[len(verb):]
			}
		}
		if !slices.Contains(own, withINE) {
			t.Fatalf("the case sends a statement kandra would not write for these tables:\n%s\nkandra writes:\n%s", st, strings.Join(own, "\n"))
		}
	}
	_, err := kandra.NewKeyspace(ks, kandra.SimpleStrategy(1), tables...)
	if err != nil {
		for _, ts := range tables {
			if typ := ts.Schema().EntityType().String(); !strings.Contains(err.Error(), typ) {
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
	if !errors.As(err, &se) || se.Rule != kandra.RuleConflict {
		t.Fatalf("Register of a GeneratedUUID column typed TIMEUUID: got %v, want a %s schema error", err, kandra.RuleConflict)
	}
}
