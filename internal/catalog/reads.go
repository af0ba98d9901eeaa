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
		n := s.selectList(st)
		w := newSB(s.schema.Name())
		w.WriteString("SELECT ")
		w.names(cols)
		if st.HasPresence() {
			w.WriteString(", ")
			w.WriteString(s.schema.ClusteringKeys()[0].CQLName())
		}
		w.WriteString(st.CQL()[n:])
		for i := 0; i < st.NumParams(); i++ {
			w.s.Params = append(w.s.Params, st.Param(i))
		}
		w.s.Result, w.s.Present = cols, st.HasPresence()
		return w.done()
	})
}

// selectList is the length of st's "SELECT <columns>" (with its
// HasPresence column), which a projection or an extension replaces or
// extends. It panics on a statement that is not a SELECT of its result
// columns.
func (s *Table) selectList(st *adapter.Statement) int {
	var sel strings.Builder
	sel.WriteString("SELECT ")
	names(&sel, st.ResultColumns())
	if st.HasPresence() {
		sel.WriteString(", ")
		sel.WriteString(s.schema.ClusteringKeys()[0].CQLName())
	}
	if !strings.HasPrefix(st.CQL(), sel.String()+" FROM ") {
		panic("kandra: not a SELECT of its result columns: " + st.CQL())
	}
	return sel.Len()
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
	if r.LowerN <= 1 && r.UpperN <= 1 && r.Prefix >= 0 && r.Prefix < len(s.counts) && r.Lower <= Exclusive && r.Upper <= Exclusive {
		// The common shapes, in slots as SelectPartition's: no key to
		// build and hash on every count. SelectPartition checks the rest
		// of r when the slot's statement is built.
		slot := &s.counts[r.Prefix][r.Lower][r.Upper]
		if st := slot.Load(); st != nil {
			return st
		}
		return fill(slot, s.count(s.SelectPartition(r)))
	}
	// The tuples' lengths are part of the shape: (a, b) <= (?, ?) is not
	// a <= ?.
	key := []byte{'C', byte(r.Prefix), byte(r.Lower), byte(r.Upper), byte(r.LowerN), byte(r.UpperN)}
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

// Timed is Extend(st, cols, nil, 0, buf).
func (s *Table) Timed(st *adapter.Statement, cols []*kandra.ColumnSchema, buf []byte) *adapter.Statement {
	return s.Extend(st, cols, nil, 0, buf)
}

// Extend is st, a SELECT of columns (SelectByKey, SelectPartition,
// SelectByIndexOp, Where, or a Project of one), also selecting, after
// st's columns (and its HasPresence column), WRITETIME(c), TTL(c) for
// each of times (a BIGINT then an INT, scanned into an *int64 and an
// *int32, 0 for a null), then, when score is not nil, the similarity sim
// of score's vector and a query vector, similarity_<sim>(score, ?) (a
// FLOAT, scanned into a *float32): its adapter.ParamValue marker comes
// first, before st's. buf is scratch for the shape's key.
func (s *Table) Extend(st *adapter.Statement, times []*kandra.ColumnSchema, score *kandra.ColumnSchema, sim kandra.Similarity, buf []byte) *adapter.Statement {
	key := append(append(buf[:0], 'W', byte(sim)), st.CQL()...)
	key = append(key, 0)
	for _, c := range times {
		key = binary.AppendUvarint(key, uint64(c.Position()))
	}
	if score != nil {
		key = binary.AppendUvarint(append(key, 0), uint64(score.Position()))
	}
	return s.shaped(key, func() *adapter.Statement {
		n := s.selectList(st)
		w := newSB(s.schema.Name())
		w.WriteString(st.CQL()[:n])
		for _, c := range times {
			w.WriteString(", WRITETIME(" + c.CQLName() + "), TTL(" + c.CQLName() + ")")
		}
		if score != nil {
			w.WriteString(", similarity_" + strings.ToLower(sim.String()) + "(" + score.CQLName() + ", ?)")
			w.mark(adapter.ParamValue, score)
		}
		w.WriteString(st.CQL()[n:])
		for i := 0; i < st.NumParams(); i++ {
			w.s.Params = append(w.s.Params, st.Param(i))
		}
		w.s.Result, w.s.Present = st.ResultColumns(), st.HasPresence()
		return w.done()
	})
}

// Pred is one restriction of a Where through a secondary index: Op on
// Col, with Lower and Upper for an IndexRange.
type Pred struct {
	Col          *kandra.ColumnSchema
	Op           IndexOp
	Lower, Upper Bound
}

// WhereSpec is the shape of a Where: the partition (ParamColumn markers
// of the partition key first), the predicates in order, and either a
// count, or an ANN order (ORDER BY c ANN OF ? LIMIT ?).
type WhereSpec struct {
	Partition bool
	Preds     []Pred
	Count     bool
	Nearest   *kandra.ColumnSchema
}

// Where is SELECT every column (or COUNT) FROM t WHERE [the partition
// key = ? AND] each predicate [ORDER BY c ANN OF ? LIMIT ?]: the markers
// of a predicate are those of SelectByIndexOp's read, but for an
// equality's, an adapter.ParamValue (a value the call gives); the ANN's
// vector is an adapter.ParamValue too. buf is scratch for the shape's key.
func (s *Table) Where(spec WhereSpec, buf []byte) *adapter.Statement {
	key := append(buf[:0], 'Q')
	if spec.Partition {
		key = append(key, 'p')
	}
	if spec.Count {
		key = append(key, 'c')
	}
	if spec.Nearest != nil {
		key = binary.AppendUvarint(append(key, 'n'), uint64(spec.Nearest.Position()))
	}
	for _, p := range spec.Preds {
		key = binary.AppendUvarint(key, uint64(p.Col.Position()))
		key = append(key, byte(p.Op), byte(p.Lower), byte(p.Upper))
	}
	return s.shaped(key, func() *adapter.Statement { return s.builder.where(spec) })
}

func (b *stmtBuilder) where(spec WhereSpec) *adapter.Statement {
	w := newSB(b.t.Name())
	if spec.Count {
		w.WriteString("SELECT " + b.counted() + " FROM " + b.qualify(b.t.CQLName()) + " WHERE ")
	} else {
		b.selectRows(w)
	}
	sep := ""
	if spec.Partition {
		w.where(b.t.PartitionKeys())
		sep = " AND "
	}
	for _, p := range spec.Preds {
		c := p.Col.CQLName()
		w.WriteString(sep)
		sep = " AND "
		switch p.Op {
		case IndexContains:
			w.WriteString(c + " CONTAINS ?")
			w.mark(adapter.ParamElement, p.Col)
		case IndexContainsKey:
			w.WriteString(c + " CONTAINS KEY ?")
			w.mark(adapter.ParamMapKey, p.Col)
		case IndexEntry:
			w.WriteString(c + "[?] = ?")
			w.mark(adapter.ParamMapKey, p.Col)
			w.mark(adapter.ParamElement, p.Col)
		case IndexRange:
			and := ""
			if p.Lower != Unbounded {
				w.WriteString(c + map[Bound]string{Inclusive: " >= ?", Exclusive: " > ?"}[p.Lower])
				w.mark(adapter.ParamLowerBound, p.Col)
				and = " AND "
			}
			if p.Upper != Unbounded {
				w.WriteString(and + c + map[Bound]string{Inclusive: " <= ?", Exclusive: " < ?"}[p.Upper])
				w.mark(adapter.ParamUpperBound, p.Col)
			}
		default:
			w.WriteString(c + " = ?")
			w.mark(adapter.ParamValue, p.Col)
		}
	}
	if sep == "" {
		// No restriction: an ANN read of the whole table.
		text := strings.TrimSuffix(w.String(), " WHERE ")
		w.Reset()
		w.WriteString(text)
	}
	if spec.Nearest != nil {
		w.WriteString(" ORDER BY " + spec.Nearest.CQLName() + " ANN OF ?")
		w.mark(adapter.ParamValue, spec.Nearest)
		w.WriteString(" LIMIT ?")
		w.mark(adapter.ParamLimit, nil)
	}
	return w.done()
}
