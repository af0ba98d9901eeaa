package kstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
)

// Reads by several secondary-index predicates at once, within a partition
// or not, listed, counted, or ranked by an ANN index.

// Predicate is one predicate of a Where, or several ANDed: a condition
// of a comparison (Eq, Lt, Le, Gt, Ge, and EqAt of a map's entry: a
// Cond), or a collection's element or key (ListHas, SetHas, MapHasKey,
// MapHasValue), each read through its field's secondary index.
type Predicate[T any] interface {
	predicates() []pred
}

// pred is one predicate as a Where reads it.
type pred struct {
	col   *kandra.ColumnSchema
	op    catalog.IndexOp
	lower bool // a range's: a lower bound (Gt, Ge), else an upper one
	bound catalog.Bound
	vals  []any  // pointers to the values, in the order of their markers
	what  string // how the caller wrote it, for messages
	bad   string // why a Where cannot read it, if it cannot
}

// predicates converts c's conditions: Eq, the four comparisons, and
// EqAt of a map; the others (Ne, In, IsNull, NotNull, Exists) are no
// index's reads.
func (c Cond[T]) predicates() []pred {
	var out []pred
	if c.exists {
		out = append(out, pred{what: "Exists", bad: "Exists is a write's condition, not a read's predicate"})
	}
	for _, x := range c.conds {
		p := pred{col: x.col, what: x.what(), vals: x.vals}
		switch {
		case x.k != nil:
			p.op, p.vals = catalog.IndexEntry, []any{ptrTo(x.k), ptrTo(x.vals[0])}
		case x.op == catalog.Eq:
			p.op = catalog.IndexEqual
		case x.op >= catalog.Lt && x.op <= catalog.Ge:
			p.op, p.lower = catalog.IndexRange, x.op == catalog.Gt || x.op == catalog.Ge
			p.bound = catalog.Exclusive
			if x.op == catalog.Le || x.op == catalog.Ge {
				p.bound = catalog.Inclusive
			}
		default:
			p.bad = "servers read an index by =, <, <=, >, >=, CONTAINS and CONTAINS KEY only; " + x.what() + " would need ALLOW FILTERING, which kandra never sends"
		}
		out = append(out, p)
	}
	return out
}

// Has is a predicate on a collection's elements or keys: ListHas, SetHas,
// MapHasKey and MapHasValue make one.
type Has[T any] struct{ p pred }

func (h Has[T]) predicates() []pred { return []pred{h.p} }

// ListHas is the list f CONTAINS e, through an index on its values.
func ListHas[T any, S ~[]E, E any](f kandra.Field[T, S], e E) Has[T] {
	return Has[T]{pred{col: f.Column(), op: catalog.IndexContains, vals: []any{&e}, what: f.Column().Name() + " CONTAINS ?"}}
}

// SetHas is the set f CONTAINS e, through an index on its values.
func SetHas[T any, S ~map[E]struct{}, E comparable](f kandra.Field[T, S], e E) Has[T] {
	return Has[T]{pred{col: f.Column(), op: catalog.IndexContains, vals: []any{&e}, what: f.Column().Name() + " CONTAINS ?"}}
}

// MapHasKey is the map f CONTAINS KEY k, through an index on its keys.
func MapHasKey[T any, M ~map[K]V, K comparable, V any](f kandra.Field[T, M], k K) Has[T] {
	return Has[T]{pred{col: f.Column(), op: catalog.IndexContainsKey, vals: []any{&k}, what: f.Column().Name() + " CONTAINS KEY ?"}}
}

// MapHasValue is the map f CONTAINS v, through an index on its values.
func MapHasValue[T any, M ~map[K]V, K comparable, V any](f kandra.Field[T, M], v V) Has[T] {
	return Has[T]{pred{col: f.Column(), op: catalog.IndexContains, vals: []any{&v}, what: f.Column().Name() + " CONTAINS ?"}}
}

// Query is a read by predicates (Repo.Where), optionally within one
// partition (Within). It is a value: Within returns a new one.
type Query[T any] struct {
	r      *Repo[T]
	preds  []pred
	within *T
}

// Where starts a read by the predicates given, ANDed (Eq, Lt, Le, Gt, Ge,
// EqAt, ListHas, SetHas, MapHasKey, MapHasValue): List lists the rows
// that hold them all, Count counts them, Nearest ranks them by an ANN
// index. Each predicate's field needs a secondary index that reads that
// way (as Index's reads do); two predicates or more need an SAI index on
// each field (kandra.UsingSAI) and Cassandra targets, since other indexes
// combine only with ALLOW FILTERING, which kandra never sends. Every
// refusal is a *kerrors.ArgumentError before anything is sent.
func (r *Repo[T]) Where(preds ...Predicate[T]) *Query[T] {
	q := &Query[T]{r: r}
	for _, p := range preds {
		if p != nil {
			q.preds = append(q.preds, p.predicates()...)
		}
	}
	return q
}

// Within restricts the query to the partition of partition's partition
// key (its other fields are ignored): a read of one partition through
// its indexes, the cheap kind.
func (q *Query[T]) Within(partition *T) *Query[T] {
	c := *q
	c.within = partition
	return &c
}

// NearOption is the vector a Nearest ranks by (NearTo).
type NearOption[T any] struct {
	col *kandra.ColumnSchema
	v   any
}

// NearTo ranks by the distance of f's vector (an ANN index,
// kandra.VectorIndex) to v.
func NearTo[T, V any](f kandra.Field[T, V], v V) NearOption[T] {
	return NearOption[T]{col: f.Column(), v: &v}
}

// ScoresOption is the option WithScores returns.
type ScoresOption struct{}

func (ScoresOption) apply(c *call) { c.scores = true }
func (ScoresOption) readOption()   {}

// WithScores also reads each row's similarity to the query vector, by the
// ANN index's function (Iter.Score): the cosine similarity mapped to 0
// to 1, the Euclidean similarity 1/(1+d²), or the dot product mapped to
// 0 to 1, as Cassandra's similarity functions give them; higher is
// nearer. Index.Nearest and Query.Nearest take it.
func WithScores() ScoresOption { return ScoresOption{} }

// Score is the current row's similarity, with WithScores; 0 without.
func (it *Iter[T]) Score() float32 {
	if it.scores == nil {
		return 0
	}
	return it.scores[it.i-1]
}

// List reads one page of the rows that hold every predicate, in the
// server's order (by token, then clustering order). Options: PageSize
// (default 100), After, Columns, WithTimes, SkipDeleted, Consistency.
func (q *Query[T]) List(ctx context.Context, opts ...ListOption) *Iter[T] {
	const op = "Where.List"
	r := q.r
	it := &Iter[T]{}
	c := applyCall(opts)
	cons, _, err := q.enter(ctx, op, &c, takesColumns|takesTimes)
	if err != nil {
		it.err = err
		return it
	}
	defer r.rt.leave()
	if c.reversed || len(c.prefix) > 0 || c.lowerCol != nil || c.upperCol != nil || c.lowerTuple != nil || c.upperTuple != nil {
		it.err = r.argErr(op, "options", "Equal, From, To and Reversed belong to List; a query's bounds are its predicates (Gt, Ge, Lt, Le)")
		return it
	}
	spec, vals, err := q.spec(op, false)
	if err != nil {
		it.err = err
		return it
	}
	st, err := r.project(op, r.st.Where(spec, nil), &c)
	if err == nil {
		st, err = r.timed(op, st, &c)
	}
	if err != nil {
		it.err = err
		return it
	}
	if it.err = r.checkRange(op, &call{pageSize: c.pageSize, hasPageSize: c.hasPageSize}); it.err != nil {
		return it
	}
	if !c.hasPageSize {
		c.pageSize = defaultPageSize
	}
	vals = append(q.partitionValues(st), vals...)
	fpOf := func() uint64 { return q.fingerprint(st, vals) }
	var fp uint64
	if !c.cursor.IsZero() {
		if fp = fpOf(); !r.rt.resume(&c.cursor, fp) {
			it.err = r.argErr(op, "After", refusedCursor(c.cursor, "the cursor was made by another query; a cursor resumes only the query that returned it"))
			return it
		}
	}
	it.rows, it.cursor, it.err = r.readPage(ctx, kandra.OpFind, "index query", st, vals, cons, &c, fp, fpOf)
	it.times = c.timesOut
	return it
}

// Count counts the rows that hold every predicate (the server counts,
// through the indexes). Options: Consistency.
func (q *Query[T]) Count(ctx context.Context, opts ...ReadOption) (int64, error) {
	const op = "Where.Count"
	r := q.r
	c := applyCall(opts)
	cons, _, err := q.enter(ctx, op, &c, 0)
	if err != nil {
		return 0, err
	}
	defer r.rt.leave()
	if c.skipDeleted {
		return 0, r.argErr(op, "SkipDeleted", "a count through indexes reads no column, so it cannot skip soft-deleted rows: list them with SkipDeleted, or count the partition with Repo.Count")
	}
	spec, vals, err := q.spec(op, false)
	if err != nil {
		return 0, err
	}
	spec.Count = true
	st := r.st.Where(spec, nil)
	return r.countOne(ctx, st, append(q.partitionValues(st), vals...), cons)
}

// Nearest reads the limit rows (1 to MaxNearest) that hold every
// predicate whose vector is nearest to.v, nearest first, in one page (see
// Index.Nearest): ANN with a filter, or within a partition. Options:
// WithScores, Columns, SkipDeleted, Consistency.
func (q *Query[T]) Nearest(ctx context.Context, to NearOption[T], limit int, opts ...ReadOption) *Iter[T] {
	const op = "Where.Nearest"
	r := q.r
	it := &Iter[T]{}
	c := applyCall(opts)
	cons, _, err := q.enter(ctx, op, &c, takesColumns|takesScores)
	if err != nil {
		it.err = err
		return it
	}
	defer r.rt.leave()
	spec, vals, err := q.spec(op, true)
	if err != nil {
		it.err = err
		return it
	}
	col := to.col
	x, ok := col.Index()
	if col.Table() != r.ts || !ok || x.Kind != kandra.IndexVector {
		it.err = r.argErr(op, "to", "field "+col.GoName()+" has no ANN index: bind a [N]float32 field with kandra.VectorIndex")
		return it
	}
	if it.err = nearestChecks(r, op, col, to.v, limit, cons); it.err != nil {
		return it
	}
	spec.Nearest = col
	st, err := r.project(op, r.st.Where(spec, nil), &c)
	if err != nil {
		it.err = err
		return it
	}
	var score *kandra.ColumnSchema
	if c.scores {
		score = col
		var buf [128]byte
		st = r.st.Extend(st, nil, col, x.Similarity, buf[:0])
	}
	all := q.partitionValues(st)
	if score != nil {
		all = append([]any{to.v}, all...)
	}
	all = append(append(all, vals...), to.v, limit)
	c.pageSize = limit + 1 // one page is the answer (see Index.Nearest)
	it.rows, _, it.err = r.readPage(ctx, kandra.OpFind, "ANN read", st, all, cons, &c, 2, nil)
	it.scores = c.scoresOut
	return it
}

// enter is the entry of a query's calls: the partition, when Within gave
// one, is checked as a key.
func (q *Query[T]) enter(ctx context.Context, op string, c *call, tk takes) (kandra.Consistency, kandra.Consistency, error) {
	if q.within != nil {
		return q.r.enter(ctx, entry{op: op, kind: reads, takes: tk}, c, arg[T]{name: "Within's partition", e: q.within, key: q.r.partition})
	}
	return q.r.enter(ctx, entry{op: op, kind: reads, takes: tk}, c)
}

// partitionValues are the partition key's values of Within, for st's
// first markers; none without it.
func (q *Query[T]) partitionValues(st *adapter.Statement) []any {
	if q.within == nil {
		return nil
	}
	return catalog.AppendColumns(q.r.t, st, q.within, make([]any, 0, st.NumParams()))
}

// spec checks the predicates and makes the statement's shape and the
// predicates' values, in the order of their markers.
func (q *Query[T]) spec(op string, ann bool) (catalog.WhereSpec, []any, error) {
	r := q.r
	spec := catalog.WhereSpec{Partition: q.within != nil}
	if len(q.preds) == 0 && !ann && q.within == nil {
		return spec, nil, r.argErr(op, "preds", "no predicate: read every row with Scan, or a partition with List")
	}
	type colPreds struct {
		pred catalog.Pred
		vals []any
	}
	byCol := map[*kandra.ColumnSchema]*colPreds{}
	var order []*kandra.ColumnSchema
	for i, p := range q.preds {
		at := fmt.Sprintf("predicate %d (%s)", i, p.what)
		if p.bad != "" {
			return spec, nil, r.argErr(op, at, p.bad)
		}
		if p.col == nil || p.col.Table() != r.ts {
			return spec, nil, r.argErr(op, at, "not a field of "+r.ts.Name())
		}
		x, ok := p.col.Index()
		if !ok {
			return spec, nil, r.argErr(op, at, "field "+p.col.GoName()+" has no secondary index, so the server would need ALLOW FILTERING, which kandra never sends: bind it with kandra.SecondaryIndex(kandra.UsingSAI())")
		}
		if x.Kind == kandra.IndexVector {
			return spec, nil, r.argErr(op, at, "field "+p.col.GoName()+" has an ANN index: rank by it with Nearest(ctx, kstore.NearTo(...))")
		}
		if !predReads(p.op, x) {
			how := indexCalls[x.Target]
			if p.op == catalog.IndexRange {
				how = "Eq (the index " + x.Name + " does not read ranges: an SAI index on a number, date, time, timestamp, timeuuid or inet does)"
			}
			return spec, nil, r.argErr(op, at, "the index "+x.Name+" on "+p.col.GoName()+" holds its "+x.Target.String()+"; its predicate is "+how)
		}
		for _, v := range p.vals {
			if msg := keyProblem(v, false); msg != "" {
				return spec, nil, r.argErr(op, at, "the value "+msg)
			}
		}
		if p.op == catalog.IndexEqual || p.op == catalog.IndexRange {
			p.col.StoredForm(p.vals[0])
			if err := p.col.CheckValue(p.vals[0]); err != nil {
				return spec, nil, err
			}
		}
		cp := byCol[p.col]
		switch {
		case cp == nil:
			cp = &colPreds{pred: catalog.Pred{Col: p.col, Op: p.op}}
			byCol[p.col] = cp
			order = append(order, p.col)
		case cp.pred.Op != catalog.IndexRange || p.op != catalog.IndexRange:
			return spec, nil, r.argErr(op, at, "a second predicate on "+p.col.GoName()+": the server takes one restriction of a column, or a range's two bounds")
		}
		if p.op == catalog.IndexRange {
			side := &cp.pred.Upper
			if p.lower {
				side = &cp.pred.Lower
			}
			if *side != catalog.Unbounded {
				return spec, nil, r.argErr(op, at, "a second bound on the same side of "+p.col.GoName())
			}
			*side = p.bound
			if p.lower {
				cp.vals = append(p.vals, cp.vals...) // the lower bound's marker first
			} else {
				cp.vals = append(cp.vals, p.vals...)
			}
			continue
		}
		cp.vals = p.vals
	}
	if len(order) > 1 || ann && len(order) > 0 {
		for _, col := range order {
			if x, _ := col.Index(); x.Kind != kandra.IndexSAI {
				what := "two predicates or more"
				if ann {
					what = "an ANN read with a predicate"
				}
				return spec, nil, r.argErr(op, "preds", what+" need an SAI index on each field; "+col.GoName()+"'s index "+x.Name+" is "+x.Kind.String()+", which servers combine only with ALLOW FILTERING: give it kandra.SecondaryIndex(kandra.UsingSAI())")
			}
		}
		if t := r.rt.ks.Targets(); t&^(kandra.Cassandra5|kandra.Cassandra5Latest) != 0 {
			return spec, nil, r.argErr(op, "preds", "the keyspace targets ScyllaDB, whose secondary indexes combine only with ALLOW FILTERING, which kandra never sends: read by one predicate, or give the keyspace Cassandra targets")
		}
	}
	slices.SortFunc(order, func(a, b *kandra.ColumnSchema) int { return a.Position() - b.Position() })
	var vals []any
	for _, col := range order {
		cp := byCol[col]
		spec.Preds = append(spec.Preds, cp.pred)
		vals = append(vals, cp.vals...)
	}
	return spec, vals, nil
}

// predReads reports an index that reads by op.
func predReads(op catalog.IndexOp, x kandra.IndexSpec) bool {
	switch op {
	case catalog.IndexContains:
		return x.Target == kandra.IndexTargetValues
	case catalog.IndexContainsKey:
		return x.Target == kandra.IndexTargetKeys
	case catalog.IndexEntry:
		return x.Target == kandra.IndexTargetEntries
	case catalog.IndexRange:
		return x.Ranges
	}
	return x.Target == kandra.IndexTargetColumn || x.Target == kandra.IndexTargetFull
}

// fingerprint identifies a query's List (see Repo.fingerprint): the
// statement and its values.
func (q *Query[T]) fingerprint(st *adapter.Statement, vals []any) uint64 {
	p := q.r.newPrint(st.CQL())
	for i, v := range vals {
		p.add(st.Param(i).Column, v)
	}
	return p.sum(q.r.rt)
}
