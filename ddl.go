package kandra

import (
	"strconv"
	"strings"

	kerrors "github.com/kandra-go/kandra/errors"
)

// DDLOption changes how DDL is written.
type DDLOption interface{ applyDDL(*ddlSpec) }

type ddlSpec struct{ keyspace string }

type ddlOptionFunc func(*ddlSpec)

func (f ddlOptionFunc) applyDDL(s *ddlSpec) { f(s) }

// InKeyspace qualifies every table name with keyspace ("app.users"). It
// fails when the name is not one servers accept (see ValidateName).
func InKeyspace(keyspace string) (DDLOption, error) {
	if err := ValidateName(keyspace); err != nil {
		return nil, err
	}
	return ddlOptionFunc(func(s *ddlSpec) { s.keyspace = keyspace }), nil
}

// MustInKeyspace is InKeyspace for a keyspace name fixed in the program; it
// panics on an invalid name.
func MustInKeyspace(keyspace string) DDLOption {
	o, err := InKeyspace(keyspace)
	if err != nil {
		panic(err)
	}
	return o
}

func ddlSpecOf(opts []DDLOption) ddlSpec {
	var s ddlSpec
	for _, o := range opts {
		if o != nil {
			o.applyDDL(&s)
		}
	}
	return s
}

func (s ddlSpec) qualify(b *strings.Builder, cqlTable string) {
	if s.keyspace != "" {
		b.WriteString(QuoteIdent(s.keyspace))
		b.WriteByte('.')
	}
	b.WriteString(cqlTable)
}

// CreateTable renders the CREATE TABLE statement of t's primary table:
// columns in DDL order, the primary key (a composite partition key in its
// own parentheses), then WITH CLUSTERING ORDER BY, default_time_to_live and
// gc_grace_seconds, each present only when it applies.
func CreateTable(t *TableSchema, opts ...DDLOption) string {
	mustTable("CreateTable", t)
	return createTable(t, ddlSpecOf(opts))
}

func createTable(t *TableSchema, s ddlSpec) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS ")
	s.qualify(&b, t.cqlName)
	b.WriteString(" (\n")
	writeColumnDefs(&b, t.columns)
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
		b.WriteString("gc_grace_seconds = " + strconv.Itoa(t.gcGrace))
	}
	b.WriteByte(';')
	return b.String()
}

// writeColumnDefs writes one "    name TYPE," line per column.
func writeColumnDefs(b *strings.Builder, cols []*ColumnSchema) {
	for _, c := range cols {
		b.WriteString("    ")
		b.WriteString(c.cqlName)
		b.WriteByte(' ')
		c.writeDecl(b)
		b.WriteString(",\n")
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

// CreateLookupTable renders the CREATE TABLE statement of a lookup table:
// the indexed column (frozen if a collection, since it is the key), the
// primary table's partition and clustering columns, and a single-column
// primary key. No TTL, clustering order or gc grace: lookup tables are
// minimal by design.
func CreateLookupTable(l *LookupTableSchema, opts ...DDLOption) string {
	if l == nil {
		panic("kandra: CreateLookupTable: nil *LookupTableSchema")
	}
	return createLookupTable(l, ddlSpecOf(opts))
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
	writeColumnDefs(&b, l.partition)
	writeColumnDefs(&b, l.clustering)
	b.WriteString("    PRIMARY KEY (")
	b.WriteString(l.index.cqlName)
	b.WriteString(")\n);")
	return b.String()
}

// CreateIndex renders the CREATE INDEX statement for column c of t, named
// "{table}_{column}_idx". A frozen collection (a collection in a key) is
// indexed whole, with full(), as servers require. c must have been bound
// with SecondaryIndex, so that Register checked the index rules on it;
// another column is a *SchemaError under RuleSecondaryIndex, and a column
// of another table one under RuleBinding.
func CreateIndex(t *TableSchema, c *ColumnSchema, opts ...DDLOption) (string, error) {
	mustTable("CreateIndex", t)
	mustColumn("CreateIndex", c)
	if c.table != t {
		return "", t.fieldErr(c.goName, RuleBinding, "column "+strconv.Quote(c.name)+" is not a column of table "+strconv.Quote(t.name))
	}
	if !c.index {
		return "", t.fieldErr(c.goName, RuleSecondaryIndex, "column "+strconv.Quote(c.name)+" has no SecondaryIndex option, so the index rules were never checked on it; bind it with kandra.SecondaryIndex()")
	}
	return createIndex(t, c, ddlSpecOf(opts)), nil
}

func createIndex(t *TableSchema, c *ColumnSchema, s ddlSpec) string {
	var b strings.Builder
	b.WriteString("CREATE INDEX IF NOT EXISTS ")
	b.WriteString(QuoteIdent(c.indexName(t.name)))
	b.WriteString(" ON ")
	s.qualify(&b, t.cqlName)
	b.WriteString(" (")
	if c.role != RegularColumn && c.typ.IsCollection() {
		b.WriteString("FULL(")
		b.WriteString(c.cqlName)
		b.WriteByte(')')
	} else {
		b.WriteString(c.cqlName)
	}
	b.WriteString(");")
	return b.String()
}

// AlterTableAdd renders ALTER TABLE ... ADD for column c of t, for adding a
// column a deployed table lacks. It never drops or renames. There is no IF
// NOT EXISTS: ScyllaDB rejects it, so check system_schema.columns first.
// A key column cannot be added to an existing table: for one it returns a
// *errors.MigrationError that gives the manual path. A column of another
// table is a *SchemaError under RuleBinding.
func AlterTableAdd(t *TableSchema, c *ColumnSchema, opts ...DDLOption) (string, error) {
	mustTable("AlterTableAdd", t)
	mustColumn("AlterTableAdd", c)
	if c.table != t {
		return "", t.fieldErr(c.goName, RuleBinding, "column "+strconv.Quote(c.name)+" is not a column of table "+strconv.Quote(t.name))
	}
	if c.role != RegularColumn {
		return "", &kerrors.MigrationError{Message: "column " + strconv.Quote(c.name) + " of table " + strconv.Quote(t.name) + " is a " + c.role.String() + "; a primary key is fixed when the table is created, so a key column cannot be added: create a new table and copy the rows"}
	}
	var b strings.Builder
	b.WriteString("ALTER TABLE ")
	ddlSpecOf(opts).qualify(&b, t.cqlName)
	b.WriteString(" ADD ")
	b.WriteString(c.cqlName)
	b.WriteByte(' ')
	c.writeDecl(&b)
	b.WriteByte(';')
	return b.String(), nil
}

// Statements returns every statement t needs, in order: the primary table,
// each lookup table, then each secondary index. Without options it returns
// a copy of statements that are rendered once per schema, on first use.
func Statements(t *TableSchema, opts ...DDLOption) []string {
	mustTable("Statements", t)
	if len(opts) == 0 {
		t.ddlRendered.Do(func() { t.statements = statements(t, ddlSpec{}) })
		return clone(t.statements)
	}
	return statements(t, ddlSpecOf(opts))
}

func statements(t *TableSchema, s ddlSpec) []string {
	out := make([]string, 0, 1+len(t.lookups)+len(t.indexes))
	out = append(out, createTable(t, s))
	for _, l := range t.lookups {
		out = append(out, createLookupTable(l, s))
	}
	for _, c := range t.indexes {
		out = append(out, createIndex(t, c, s))
	}
	return out
}

// The DDL writers panic on a nil schema, naming the argument, as the
// standard library does for a nil receiver-like argument: it is a
// programmer error, not an input to report.
func mustTable(fn string, t *TableSchema) {
	if t == nil {
		panic("kandra: " + fn + ": nil *TableSchema")
	}
}

func mustColumn(fn string, c *ColumnSchema) {
	if c == nil {
		panic("kandra: " + fn + ": nil *ColumnSchema")
	}
}
