package kandra

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kandra-go/kandra/kerrors"
)

// The DDL writers. Every statement is written by a *Keyspace, which has
// checked its tables against the rules of its targets, so no writer can
// produce a statement for a table the keyspace's servers would refuse.
// Names are qualified with the keyspace's.

// ddlSpec is how a statement is written: the keyspace qualifier.
type ddlSpec struct {
	keyspace string
	scylla   bool // every target is ScyllaDB's: its dialect of the storage options
}

func (s ddlSpec) qualify(b *strings.Builder, cqlTable string) {
	if s.keyspace != "" {
		b.WriteString(QuoteIdent(s.keyspace))
		b.WriteByte('.')
	}
	b.WriteString(cqlTable)
}

func (k *Keyspace) ddl() ddlSpec {
	return ddlSpec{keyspace: k.spec.Name, scylla: k.Targets()&cassandraTargets == 0}
}

// member returns src's schema if it is one of the keyspace's tables;
// another table is a *SchemaError under RuleNotInKeyspace.
func (k *Keyspace) member(fn string, src SchemaSource) (*TableSchema, error) {
	if src == nil || src.tableSchema() == nil {
		panic("kandra: Keyspace." + fn + ": nil table")
	}
	t := src.tableSchema()
	if !slices.Contains(k.tables, t) {
		return nil, &SchemaError{Entity: "keyspace " + strconv.Quote(k.spec.Name), Rule: RuleNotInKeyspace,
			Detail: "table " + strconv.Quote(t.name) + " of " + t.entity.String() + " is not in the keyspace; give it to NewKeyspace, so that its rules are checked"}
	}
	return t, nil
}

// ClaimColumn is the column of a unique lookup's table that holds the
// claim token of the value's holder (bound as adapter.ParamClaim).
const ClaimColumn = "kandra_claim"

// CreateTable renders the CREATE TABLE statement of table t of the
// keyspace: columns in DDL order, the primary key (a composite partition
// key in its own parentheses), then WITH CLUSTERING ORDER BY,
// default_time_to_live and gc_grace_seconds, each present only when it
// applies. A table that is not in the keyspace is a *SchemaError under
// RuleNotInKeyspace.
func (k *Keyspace) CreateTable(t SchemaSource) (string, error) {
	ts, err := k.member("CreateTable", t)
	if err != nil {
		return "", err
	}
	return createTable(ts, k.ddl()), nil
}

func createTable(t *TableSchema, s ddlSpec) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS ")
	s.qualify(&b, t.cqlName)
	b.WriteString(" (\n")
	writeColumnDefs(&b, t.columns, true)
	b.WriteString("    PRIMARY KEY (")
	if len(t.partition) > 1 {
		b.WriteByte('(')
	}
	writeNames(&b, t.partition)
	if len(t.partition) > 1 {
		b.WriteByte(')')
	}
	if len(t.clustering) > 0 {
		b.WriteString(", ")
		writeNames(&b, t.clustering)
	}
	b.WriteString(")\n)")
	// The WITH clause: its options joined by a newline and AND.
	sep := "\nWITH "
	if len(t.clustering) > 0 {
		b.WriteString(sep)
		sep = "\nAND "
		b.WriteString("CLUSTERING ORDER BY (")
		for i, c := range t.clustering {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(c.cqlName)
			b.WriteByte(' ')
			b.WriteString(c.order.String())
		}
		b.WriteByte(')')
	}
	if t.hasTTL {
		b.WriteString(sep)
		sep = "\nAND "
		b.WriteString("default_time_to_live = " + strconv.Itoa(t.ttl))
	}
	if t.hasGCGrace {
		b.WriteString(sep)
		sep = "\nAND "
		b.WriteString("gc_grace_seconds = " + strconv.Itoa(t.gcGrace))
	}
	for _, o := range t.storage.render(s.scylla) {
		b.WriteString(sep)
		sep = "\nAND "
		b.WriteString(o)
	}
	b.WriteByte(';')
	return b.String()
}

// writeColumnDefs writes one "    name TYPE," line per column, with its
// mask when masks is set (a primary table's columns; a lookup table's
// copies have none).
func writeColumnDefs(b *strings.Builder, cols []*ColumnSchema, masks bool) {
	for _, c := range cols {
		b.WriteString("    ")
		b.WriteString(c.cqlName)
		b.WriteByte(' ')
		c.writeDecl(b)
		if c.static {
			b.WriteString(" STATIC")
		}
		if masks {
			writeMask(b, c)
		}
		b.WriteString(",\n")
	}
}

// writeMask writes " MASKED WITH fn(args)" for a masked column, after
// STATIC as the grammar has it.
func writeMask(b *strings.Builder, c *ColumnSchema) {
	if c.hasMask {
		b.WriteString(" MASKED WITH ")
		b.WriteString(c.mask.String())
	}
}

func writeNames(b *strings.Builder, cols []*ColumnSchema) {
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.cqlName)
	}
}

// CreateLookupTable renders the CREATE TABLE statement of lookup table l
// of a table of the keyspace: the indexed column (frozen if a collection,
// since it is the key), the primary table's partition and clustering
// columns, and the primary key: the indexed column alone for a unique
// lookup, PRIMARY KEY ((indexed), the other key columns...) for a
// non-unique one. No TTL, clustering order or gc grace: lookup tables are
// minimal by design.
func (k *Keyspace) CreateLookupTable(l *LookupTableSchema) (string, error) {
	if l == nil {
		panic("kandra: Keyspace.CreateLookupTable: nil *LookupTableSchema")
	}
	if _, err := k.member("CreateLookupTable", l.Table()); err != nil {
		return "", err
	}
	return createLookupTable(l, k.ddl()), nil
}

func createLookupTable(l *LookupTableSchema, s ddlSpec) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS ")
	s.qualify(&b, l.cqlName)
	b.WriteString(" (\n    ")
	b.WriteString(l.index.cqlName)
	b.WriteByte(' ')
	l.index.typ.write(&b, true) // the key: frozen, as CQLType.Frozen renders it
	b.WriteString(",\n")
	carried := l.carried()
	writeColumnDefs(&b, carried, false)
	if l.IsUnique() {
		b.WriteString("    " + ClaimColumn + " BIGINT,\n")
	}
	b.WriteString("    PRIMARY KEY (")
	if l.IsUnique() {
		b.WriteString(l.index.cqlName)
	} else {
		b.WriteString("(")
		b.WriteString(l.index.cqlName)
		b.WriteString(")")
		for _, c := range carried {
			b.WriteString(", ")
			b.WriteString(c.cqlName)
		}
	}
	b.WriteString(")\n);")
	return b.String()
}

// StorageOptionItems renders the storage options of table t of the
// keyspace (kandra.Compaction, Compression, Caching, ...) as CREATE TABLE
// writes them for the keyspace's targets, one WITH item each, in a fixed
// order: "compaction = {'class': 'LeveledCompactionStrategy'}". An ALTER
// TABLE ... WITH takes the same items. A table that is not in the keyspace
// is a *SchemaError under RuleNotInKeyspace.
func (k *Keyspace) StorageOptionItems(t SchemaSource) ([]string, error) {
	ts, err := k.member("StorageOptionItems", t)
	if err != nil {
		return nil, err
	}
	return ts.storage.render(k.ddl().scylla), nil
}

// CreateIndex renders the CREATE INDEX statement for column c of table t
// of the keyspace, named as TableSchema.IndexName says. A frozen
// collection (a collection in a key, or one given Frozen) is indexed
// whole, with full(), as servers require. c must have been bound with
// SecondaryIndex, so that Register and NewKeyspace checked the index
// rules on it; another column
// is a *SchemaError under RuleSecondaryIndex, and a column of another
// table one under RuleBinding.
func (k *Keyspace) CreateIndex(t SchemaSource, c *ColumnSchema) (string, error) {
	ts, err := k.member("CreateIndex", t)
	if err != nil {
		return "", err
	}
	mustColumn("CreateIndex", c)
	if c.table != ts {
		return "", ts.fieldErr(c.goName, RuleBinding, "column "+strconv.Quote(c.name)+" is not a column of table "+strconv.Quote(ts.name))
	}
	if !c.index {
		return "", ts.fieldErr(c.goName, RuleSecondaryIndex, "column "+strconv.Quote(c.name)+" has no SecondaryIndex option, so the index rules were never checked on it; bind it with kandra.SecondaryIndex()")
	}
	return createIndex(ts, c, k.ddl()), nil
}

func createIndex(t *TableSchema, c *ColumnSchema, s ddlSpec) string {
	var b strings.Builder
	b.WriteString("CREATE INDEX IF NOT EXISTS ")
	b.WriteString(QuoteIdent(c.indexName(t.name)))
	b.WriteString(" ON ")
	s.qualify(&b, t.cqlName)
	b.WriteString(" (")
	// Without a target option the column is written bare, as before
	// targets existed; a frozen collection takes FULL either way.
	target := c.indexOpts.target
	if target == IndexTargetColumn && c.isFrozenCollection() {
		target = IndexTargetFull
	}
	if target != IndexTargetColumn {
		b.WriteString(strings.ToUpper(target.String()))
		b.WriteByte('(')
		b.WriteString(c.cqlName)
		b.WriteByte(')')
	} else {
		b.WriteString(c.cqlName)
	}
	b.WriteByte(')')
	switch c.indexOpts.kind {
	case IndexSAI, IndexVector: // an ANN index is SAI with a similarity_function
		b.WriteString(" USING 'sai'")
	case IndexLegacy:
		b.WriteString(" USING 'legacy_local_table'")
	}
	if spec, _ := c.Index(); spec.AnalysisOptions() != nil {
		opts := spec.AnalysisOptions()
		b.WriteString(" WITH OPTIONS = {")
		for i, k := range slices.Sorted(maps.Keys(opts)) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(quoteLiteral(k) + ": " + quoteLiteral(opts[k]))
		}
		b.WriteByte('}')
	}
	b.WriteByte(';')
	return b.String()
}

// AlterTableAdd renders ALTER TABLE ... ADD for column c of table t of the
// keyspace, for adding a column a deployed table lacks. It never drops or
// renames. There is no IF NOT EXISTS: ScyllaDB rejects it, so check
// system_schema.columns first. A key column cannot be added to an existing
// table: for one it returns a *kerrors.MigrationError that gives the manual
// path. A column of another table is a *SchemaError under RuleBinding.
func (k *Keyspace) AlterTableAdd(t SchemaSource, c *ColumnSchema) (string, error) {
	ts, err := k.member("AlterTableAdd", t)
	if err != nil {
		return "", err
	}
	mustColumn("AlterTableAdd", c)
	if c.table != ts {
		return "", ts.fieldErr(c.goName, RuleBinding, "column "+strconv.Quote(c.name)+" is not a column of table "+strconv.Quote(ts.name))
	}
	if c.role != RegularColumn {
		return "", &kerrors.MigrationError{Message: "column " + strconv.Quote(c.name) + " of table " + strconv.Quote(ts.name) + " is a " + c.role.String() + "; a primary key is fixed when the table is created, so a key column cannot be added: create a new table and copy the rows"}
	}
	var b strings.Builder
	b.WriteString("ALTER TABLE ")
	k.ddl().qualify(&b, ts.cqlName)
	b.WriteString(" ADD ")
	b.WriteString(c.cqlName)
	b.WriteByte(' ')
	c.writeDecl(&b)
	if c.static {
		b.WriteString(" STATIC")
	}
	writeMask(&b, c)
	b.WriteByte(';')
	return b.String(), nil
}

// AlterColumnMask renders the ALTER TABLE that gives live column c of
// table t of the keyspace the mask the model declares (Masked):
// ALTER TABLE ks.t ALTER c MASKED WITH fn(args), or ALTER TABLE ks.t
// ALTER c DROP MASKED for a column the model does not mask. Only
// Cassandra 5.0 has masks (with dynamic_data_masking_enabled: true): the
// DROP is for a column whose live mask the model lacks, which no ScyllaDB
// server has, and NewKeyspace refuses a Masked column on ScyllaDB targets
// (RuleMaskTarget). A column of another table is a *SchemaError under
// RuleBinding.
func (k *Keyspace) AlterColumnMask(t SchemaSource, c *ColumnSchema) (string, error) {
	ts, err := k.member("AlterColumnMask", t)
	if err != nil {
		return "", err
	}
	mustColumn("AlterColumnMask", c)
	if c.table != ts {
		return "", ts.fieldErr(c.goName, RuleBinding, "column "+strconv.Quote(c.name)+" is not a column of table "+strconv.Quote(ts.name))
	}
	var b strings.Builder
	b.WriteString("ALTER TABLE ")
	k.ddl().qualify(&b, ts.cqlName)
	b.WriteString(" ALTER ")
	b.WriteString(c.cqlName)
	if c.hasMask {
		b.WriteString(" MASKED WITH ")
		b.WriteString(c.mask.String())
	} else {
		b.WriteString(" DROP MASKED")
	}
	b.WriteByte(';')
	return b.String(), nil
}

// The DDL writers panic on a nil schema, naming the argument, as the
// standard library does: it is a programmer error, not an input to report.
func mustColumn(fn string, c *ColumnSchema) {
	if c == nil {
		panic("kandra: Keyspace." + fn + ": nil *ColumnSchema")
	}
}
