package kandra

import (
	"strconv"
	"strings"
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
	return createTable(t, ddlSpecOf(opts))
}

func createTable(t *TableSchema, s ddlSpec) string {
	var b strings.Builder
	size := 96 + len(s.keyspace) + len(t.cqlName)
	for _, c := range t.columns {
		size += 24 + len(c.cqlName)
	}
	for _, c := range t.clustering {
		size += 8 + len(c.cqlName)
	}
	b.Grow(size)
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
	var num [20]byte
	if t.hasTTL {
		b.WriteString(sep)
		sep = "\nAND "
		b.WriteString("default_time_to_live = ")
		b.Write(strconv.AppendInt(num[:0], int64(t.ttl), 10))
	}
	if t.hasGCGrace {
		b.WriteString(sep)
		b.WriteString("gc_grace_seconds = ")
		b.Write(strconv.AppendInt(num[:0], int64(t.gcGrace), 10))
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
		c.writeCQLType(b)
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
	return createLookupTable(l, ddlSpecOf(opts))
}

func createLookupTable(l *LookupTableSchema, s ddlSpec) string {
	var b strings.Builder
	size := 80 + len(s.keyspace) + len(l.cqlName) + 2*len(l.index.cqlName)
	for _, cs := range [][]*ColumnSchema{l.partition, l.clustering} {
		for _, c := range cs {
			size += 24 + len(c.cqlName)
		}
	}
	b.Grow(size)
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
// indexed whole, with full(), as servers require.
func CreateIndex(t *TableSchema, c *ColumnSchema, opts ...DDLOption) string {
	return createIndex(t, c, ddlSpecOf(opts))
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
// Key columns cannot be added to an existing table; for them it returns "".
func AlterTableAdd(t *TableSchema, c *ColumnSchema, opts ...DDLOption) string {
	if c.role != RegularColumn {
		return ""
	}
	var b strings.Builder
	b.WriteString("ALTER TABLE ")
	ddlSpecOf(opts).qualify(&b, t.cqlName)
	b.WriteString(" ADD ")
	b.WriteString(c.cqlName)
	b.WriteByte(' ')
	c.writeCQLType(&b)
	b.WriteByte(';')
	return b.String()
}

// Statements returns every statement t needs, in order: the primary table,
// each lookup table, then each secondary index. Without options it returns
// a copy of statements that are rendered once per schema, on first use.
func Statements(t *TableSchema, opts ...DDLOption) []string {
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
