package kandra

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Replication is a keyspace's replication strategy, built with
// SimpleStrategy or NetworkTopologyStrategy.
type Replication struct {
	simple int
	dcs    map[string]int
	nts    bool // NetworkTopologyStrategy, even with an empty map
}

// SimpleStrategy places factor replicas on consecutive nodes of the ring,
// ignoring datacenters: for a single-datacenter or test cluster.
func SimpleStrategy(factor int) Replication { return Replication{simple: factor} }

// NetworkTopologyStrategy sets a replication factor per datacenter, for
// production clusters. Cassandra 4.0 and later reject a datacenter name the
// cluster does not know.
func NetworkTopologyStrategy(factors map[string]int) Replication {
	return Replication{dcs: maps.Clone(factors), nts: true}
}

// IsNetworkTopology reports a NetworkTopologyStrategy replication.
func (r Replication) IsNetworkTopology() bool { return r.nts }

// SimpleFactor is the replication factor of a SimpleStrategy replication
// (0 for NetworkTopologyStrategy).
func (r Replication) SimpleFactor() int { return r.simple }

// Datacenters returns the replication factor per datacenter of a
// NetworkTopologyStrategy replication (a fresh map; nil for SimpleStrategy).
func (r Replication) Datacenters() map[string]int { return maps.Clone(r.dcs) }

// Keyspace is one keyspace: its name, its replication and the tables in it.
// It is the unit the keyspace-wide rules apply to (a table or index name is
// used once per keyspace) and the unit a schema is created or migrated in.
// Build it with NewKeyspace; it is immutable. One registered type may be in
// several keyspaces, and two types may share a table name in different
// keyspaces.
type Keyspace struct {
	name        string
	replication Replication
	tables      []*TableSchema
}

// SchemaSource is what NewKeyspace takes a table from: a *Table[T] from
// Register, or a *TableSchema.
type SchemaSource interface {
	Schema() *TableSchema
}

// Schema returns t itself, so that a *TableSchema is a SchemaSource.
func (t *TableSchema) Schema() *TableSchema { return t }

// NewKeyspace checks the keyspace rules (see Rules) on name, r and the
// tables, in the order given, and returns the keyspace. A broken rule is a
// *SchemaError that names the rule and, for a name used twice, both entity
// types. A nil table is a programmer error: NewKeyspace panics, naming it.
//
//	app, err := kandra.NewKeyspace("app", kandra.SimpleStrategy(1), Users, Todos)
func NewKeyspace(name string, r Replication, tables ...SchemaSource) (*Keyspace, error) {
	k := &keyspaceBuilder{name: name, r: r}
	for i, src := range tables {
		if src == nil || src.Schema() == nil {
			panic("kandra: NewKeyspace: table " + strconv.Itoa(i) + " is nil")
		}
		k.tables = append(k.tables, src.Schema())
	}
	if err := k.check(); err != nil {
		return nil, err
	}
	return &Keyspace{name: name, replication: r, tables: k.tables}, nil
}

// MustNewKeyspace is NewKeyspace for keyspaces fixed in the program; it
// panics with the schema error.
func MustNewKeyspace(name string, r Replication, tables ...SchemaSource) *Keyspace {
	k, err := NewKeyspace(name, r, tables...)
	if err != nil {
		panic(err)
	}
	return k
}

// Name is the keyspace's name.
func (k *Keyspace) Name() string { return k.name }

// Replication is the keyspace's replication.
func (k *Keyspace) Replication() Replication {
	r := k.replication
	r.dcs = maps.Clone(r.dcs)
	return r
}

// Tables returns the keyspace's tables in the order given to NewKeyspace
// (a fresh slice).
func (k *Keyspace) Tables() []*TableSchema { return clone(k.tables) }

// Table returns the table with the given name, or nil.
func (k *Keyspace) Table(name string) *TableSchema {
	for _, t := range k.tables {
		if t.name == name {
			return t
		}
	}
	return nil
}

// Statements returns every statement that creates the keyspace, in
// dependency order: CREATE KEYSPACE, then every primary table, then every
// lookup table, then every secondary index, each table in the order given
// to NewKeyspace and qualified with the keyspace's name. Each statement is
// IF NOT EXISTS, so running them again changes nothing; a changed schema
// needs a migration, not these.
func (k *Keyspace) Statements() []string {
	s := ddlSpec{keyspace: k.name}
	out := []string{renderKeyspace(k.name, k.replication)}
	for _, t := range k.tables {
		out = append(out, createTable(t, s))
	}
	for _, t := range k.tables {
		for _, l := range t.lookups {
			out = append(out, createLookupTable(l, s))
		}
	}
	for _, t := range k.tables {
		for _, c := range t.indexes {
			out = append(out, createIndex(t, c, s))
		}
	}
	return out
}

// CreateKeyspace renders CREATE KEYSPACE IF NOT EXISTS for name with the
// given replication. It checks the same rules as NewKeyspace's keyspace
// name and replication rows, and returns the same *SchemaError.
func CreateKeyspace(name string, r Replication) (string, error) {
	k := &keyspaceBuilder{name: name, r: r}
	if err := k.checkName(); err != nil {
		return "", err
	}
	if err := k.checkReplication(); err != nil {
		return "", err
	}
	return renderKeyspace(name, r), nil
}

// MustCreateKeyspace is CreateKeyspace for fixed arguments; it panics on error.
func MustCreateKeyspace(name string, r Replication) string {
	s, err := CreateKeyspace(name, r)
	if err != nil {
		panic(err)
	}
	return s
}

func renderKeyspace(name string, r Replication) string {
	var b strings.Builder
	b.WriteString("CREATE KEYSPACE IF NOT EXISTS ")
	b.WriteString(QuoteIdent(name))
	b.WriteString(" WITH replication = {'class': ")
	if !r.nts {
		b.WriteString("'SimpleStrategy', 'replication_factor': ")
		b.WriteString(strconv.Itoa(r.simple))
	} else {
		b.WriteString("'NetworkTopologyStrategy'")
		for _, dc := range slices.Sorted(maps.Keys(r.dcs)) { // deterministic output
			b.WriteString(", ")
			b.WriteString(quoteLiteral(dc))
			b.WriteString(": ")
			b.WriteString(strconv.Itoa(r.dcs[dc]))
		}
	}
	b.WriteString("};")
	return b.String()
}

// keyspaceBuilder runs the keyspace rows of ruleTable.
type keyspaceBuilder struct {
	name   string
	r      Replication
	tables []*TableSchema
}

func (k *keyspaceBuilder) check() error {
	for _, r := range ruleTable {
		if r.keyspace == nil {
			continue
		}
		if err := r.keyspace(k); err != nil {
			return err
		}
	}
	return nil
}

func (k *keyspaceBuilder) fail(field string, rule Rule, detail string) error {
	return &SchemaError{Entity: "keyspace " + strconv.Quote(k.name), Field: field, Rule: rule, Detail: detail}
}

func (k *keyspaceBuilder) checkName() error {
	if p := nameProblem(k.name); p != "" {
		return k.fail("", RuleKeyspaceName, "the keyspace name "+p)
	}
	return nil
}

func (k *keyspaceBuilder) checkReplication() error {
	if !k.r.nts {
		if k.r.simple < 1 {
			return k.fail("", RuleReplication, "SimpleStrategy needs a replication factor of at least 1, not "+strconv.Itoa(k.r.simple))
		}
		return nil
	}
	total := 0
	for _, dc := range slices.Sorted(maps.Keys(k.r.dcs)) {
		if p := datacenterProblem(dc); p != "" {
			return k.fail("", RuleReplication, p)
		}
		f := k.r.dcs[dc]
		if f < 0 {
			return k.fail("", RuleReplication, "datacenter "+strconv.Quote(dc)+" has a negative replication factor "+strconv.Itoa(f))
		}
		total += f
	}
	if total == 0 {
		return k.fail("", RuleReplication, "NetworkTopologyStrategy needs at least one datacenter with a replica")
	}
	return nil
}

// checkNamesTaken claims every table and index name of the keyspace, in
// the order the tables were given: a name may be claimed once, and an
// index's name plus "_index" is claimed for the view ScyllaDB creates
// behind it.
func (k *keyspaceBuilder) checkNamesTaken() error {
	type claim struct {
		owner *TableSchema
		what  string // "table", "lookup table", "index", "view of index"
	}
	claims := map[string]claim{}
	take := func(t *TableSchema, field, name, what string) error {
		if prev, ok := claims[name]; ok {
			if prev.owner == t && prev.what == "table" && what == "table" {
				return k.fail("", RuleNameTaken, "table "+strconv.Quote(name)+" of "+t.entity.String()+" is given twice")
			}
			return k.fail("", RuleNameTaken, fmt.Sprintf("%s name %q of %s is already the %s name of %s; names are unique per keyspace", what, name, describeOwner(t, field), prev.what, prev.owner.entity))
		}
		claims[name] = claim{t, what}
		return nil
	}
	for _, t := range k.tables {
		if err := take(t, "", t.name, "table"); err != nil {
			return err
		}
		for _, l := range t.lookups {
			if err := take(t, l.index.goName, l.name, "lookup table"); err != nil {
				return err
			}
		}
	}
	for _, t := range k.tables {
		for _, c := range t.indexes {
			n := t.IndexName(c)
			if err := take(t, c.goName, n, "index"); err != nil {
				return err
			}
			if err := take(t, c.goName, n+"_index", "ScyllaDB view of index"); err != nil {
				return err
			}
		}
	}
	return nil
}

func describeOwner(t *TableSchema, field string) string {
	if field == "" {
		return t.entity.String()
	}
	return t.entity.String() + "." + field
}

// datacenterProblem says why servers refuse dc as a datacenter name, or "".
func datacenterProblem(dc string) string {
	switch {
	case dc == "":
		return "a datacenter name is empty"
	case !utf8.ValidString(dc):
		return "datacenter name " + strconv.Quote(dc) + " is not valid UTF-8"
	}
	for _, r := range dc {
		if unicode.IsControl(r) {
			return "datacenter name " + strconv.Quote(dc) + " contains a control character"
		}
	}
	return ""
}

// quoteLiteral writes s as a CQL string literal: single quotes, with each
// embedded single quote doubled.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
