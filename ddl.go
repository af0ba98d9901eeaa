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
	var b strings.Builder
	b.Grow(64 + 32*len(t.columns))
	b.WriteString("CREATE TABLE IF NOT EXISTS ")
	ddlSpecOf(opts).qualify(&b, t.cqlName)
	b.WriteString(" (\n")
	for _, c := range t.columns {
		b.WriteString("    ")
		b.WriteString(c.cqlName)
		b.WriteByte(' ')
		b.WriteString(c.CQLType())
		b.WriteString(",\n")
	}
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
	var with []string
	if len(t.clustering) > 0 {
		var o strings.Builder
		o.WriteString("CLUSTERING ORDER BY (")
		for i, c := range t.clustering {
			if i > 0 {
				o.WriteString(", ")
			}
			o.WriteString(c.cqlName)
			o.WriteByte(' ')
			o.WriteString(c.order.String())
		}
		o.WriteByte(')')
		with = append(with, o.String())
	}
	if t.hasTTL {
		with = append(with, "default_time_to_live = "+strconv.Itoa(t.ttl))
	}
	if t.hasGCGrace {
		with = append(with, "gc_grace_seconds = "+strconv.Itoa(t.gcGrace))
	}
	if len(with) > 0 {
		b.WriteString("\nWITH ")
		b.WriteString(strings.Join(with, "\nAND "))
	}
	b.WriteByte(';')
	return b.String()
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
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS ")
	ddlSpecOf(opts).qualify(&b, l.cqlName)
	b.WriteString(" (\n    ")
	b.WriteString(l.index.cqlName)
	b.WriteByte(' ')
	b.WriteString(l.index.typ.Frozen())
	b.WriteString(",\n")
	for _, cs := range [][]*ColumnSchema{l.partition, l.clustering} {
		for _, c := range cs {
			b.WriteString("    ")
			b.WriteString(c.cqlName)
			b.WriteByte(' ')
			b.WriteString(c.CQLType())
			b.WriteString(",\n")
		}
	}
	b.WriteString("    PRIMARY KEY (")
	b.WriteString(l.index.cqlName)
	b.WriteString(")\n);")
	return b.String()
}

// CreateIndex renders the CREATE INDEX statement for column c of t, named
// "{table}_{column}_idx". A frozen collection (a collection in a key) is
// indexed whole, with full(), as servers require.
func CreateIndex(t *TableSchema, c *ColumnSchema, opts ...DDLOption) string {
	var b strings.Builder
	b.WriteString("CREATE INDEX IF NOT EXISTS ")
	b.WriteString(QuoteIdent(c.indexName(t.name)))
	b.WriteString(" ON ")
	ddlSpecOf(opts).qualify(&b, t.cqlName)
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
	b.WriteString(c.CQLType())
	b.WriteByte(';')
	return b.String()
}

// Statements returns every statement t needs, in order: the primary table,
// each lookup table, then each secondary index. Without options it returns
// a copy of the statements built once at registration.
func Statements(t *TableSchema, opts ...DDLOption) []string {
	if len(opts) == 0 && t.statements != nil {
		return clone(t.statements)
	}
	out := make([]string, 0, 1+len(t.lookups)+len(t.indexes))
	out = append(out, CreateTable(t, opts...))
	for _, l := range t.lookups {
		out = append(out, CreateLookupTable(l, opts...))
	}
	for _, c := range t.indexes {
		out = append(out, CreateIndex(t, c, opts...))
	}
	return out
}
