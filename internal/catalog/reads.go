package catalog

import (
	"encoding/binary"
	"strings"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
)

// The statements of the reads beyond rows by key: projections of any
// SELECT, counts, and truncation.

// Project is st, a SELECT of every column (SelectByKey, SelectPartition,
// SelectByIndexOp, TokenRange), selecting cols instead, in the table's
// order; its markers, its order, its limit and its HasPresence are st's.
// buf is scratch for the shape's key. It panics on a statement that does
// not select every column.
func (s *Table) Project(st *adapter.Statement, cols []*kandra.ColumnSchema, buf []byte) *adapter.Statement {
	key := append(append(buf[:0], 'S'), st.CQL()...)
	key = append(key, 0)
	for _, c := range cols {
		key = binary.AppendUvarint(key, uint64(c.Position()))
	}
	return s.shaped(key, func() *adapter.Statement {
		var sel strings.Builder
		sel.WriteString("SELECT ")
		names(&sel, st.ResultColumns())
		if st.HasPresence() {
			sel.WriteString(", ")
			sel.WriteString(s.schema.ClusteringKeys()[0].CQLName())
		}
		if !strings.HasPrefix(st.CQL(), sel.String()+" FROM ") {
			panic("kandra: Project: not a SELECT of every column: " + st.CQL())
		}
		w := newSB(s.schema.Name())
		w.WriteString("SELECT ")
		w.names(cols)
		if st.HasPresence() {
			w.WriteString(", ")
			w.WriteString(s.schema.ClusteringKeys()[0].CQLName())
		}
		w.WriteString(st.CQL()[sel.Len():])
		for i := 0; i < st.NumParams(); i++ {
			w.s.Params = append(w.s.Params, st.Param(i))
		}
		w.s.Result, w.s.Present = cols, st.HasPresence()
		return w.done()
	})
}

// names writes the CQL names of cols, comma-separated.
func names(b *strings.Builder, cols []*kandra.ColumnSchema) {
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.CQLName())
	}
}

// counted is what a count counts: COUNT(*), or on a table with static
// columns COUNT of the first clustering column, which is null in the one
// row a partition of static values only shows (no entity).
func (b *stmtBuilder) counted() string {
	if len(b.t.StaticColumns()) > 0 {
		return "COUNT(" + b.t.ClusteringKeys()[0].CQLName() + ")"
	}
	return "COUNT(*)"
}

// CountPartition is SELECT COUNT(*) FROM t WHERE the partition key = ?
// with the prefix and bounds of r (SelectPartition's markers; the order
// and the limit are ignored): one row of one BIGINT, with no Result
// column, scanned into an *int64.
func (s *Table) CountPartition(r Range) *adapter.Statement {
	r.Reversed, r.Limit = false, false
	key := []byte{'C', byte(r.Prefix), byte(r.Lower), byte(r.Upper)}
	return s.shaped(key, func() *adapter.Statement { return s.count(s.SelectPartition(r)) })
}

// CountTokenRange is SELECT COUNT(*) FROM t WHERE token(pk...) > ? AND
// token(pk...) <= ?: TokenRange's markers, one BIGINT.
func (s *Table) CountTokenRange() *adapter.Statement {
	return s.shaped([]byte{'T'}, func() *adapter.Statement { return s.count(s.tokenRange) })
}

// count is st, a SELECT of every column, counting its rows instead.
func (s *Table) count(st *adapter.Statement) *adapter.Statement {
	cql := st.CQL()
	from := strings.Index(cql, " FROM "+s.builder.qualify(s.schema.CQLName())+" WHERE ")
	if !strings.HasPrefix(cql, "SELECT ") || from < 0 {
		panic("kandra: count: not a SELECT: " + cql)
	}
	w := newSB(s.schema.Name())
	w.WriteString("SELECT " + s.builder.counted())
	w.WriteString(cql[from:])
	for i := 0; i < st.NumParams(); i++ {
		w.s.Params = append(w.s.Params, st.Param(i))
	}
	return w.done()
}

// Truncate is TRUNCATE TABLE t, and of each of its lookup tables after
// it (the lookup rows would name rows that no longer exist).
func (s *Table) Truncate() []*adapter.Statement {
	out := []*adapter.Statement{s.truncate(s.schema.Name(), s.schema.CQLName())}
	for _, l := range s.schema.LookupTables() {
		out = append(out, s.truncate(l.Name(), l.CQLName()))
	}
	return out
}

func (s *Table) truncate(name, cqlName string) *adapter.Statement {
	w := newSB(name)
	w.WriteString("TRUNCATE TABLE " + s.builder.qualify(cqlName))
	return w.done()
}

// Timed is st, a SELECT (SelectByKey, SelectPartition, SelectByIndexOp,
// or a Project of one), also selecting WRITETIME(c), TTL(c) for each of
// cols, after st's columns (and its HasPresence column): two values a
// column, a BIGINT then an INT, scanned into an *int64 and an *int32 (0
// for a null: no value, or no TTL). buf is scratch for the shape's key.
func (s *Table) Timed(st *adapter.Statement, cols []*kandra.ColumnSchema, buf []byte) *adapter.Statement {
	key := append(append(buf[:0], 'W'), st.CQL()...)
	key = append(key, 0)
	for _, c := range cols {
		key = binary.AppendUvarint(key, uint64(c.Position()))
	}
	return s.shaped(key, func() *adapter.Statement {
		var sel strings.Builder
		sel.WriteString("SELECT ")
		names(&sel, st.ResultColumns())
		if st.HasPresence() {
			sel.WriteString(", ")
			sel.WriteString(s.schema.ClusteringKeys()[0].CQLName())
		}
		if !strings.HasPrefix(st.CQL(), sel.String()+" FROM ") {
			panic("kandra: Timed: not a SELECT of columns: " + st.CQL())
		}
		w := newSB(s.schema.Name())
		w.WriteString(sel.String())
		for _, c := range cols {
			w.WriteString(", WRITETIME(" + c.CQLName() + "), TTL(" + c.CQLName() + ")")
		}
		w.WriteString(st.CQL()[sel.Len():])
		for i := 0; i < st.NumParams(); i++ {
			w.s.Params = append(w.s.Params, st.Param(i))
		}
		w.s.Result, w.s.Present = st.ResultColumns(), st.HasPresence()
		return w.done()
	})
}
