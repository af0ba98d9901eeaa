package kstore

import (
	"context"
	"fmt"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
)

// Index is a typed handle on a column with a secondary index
// (kandra.SecondaryIndex), for reads by its value across partitions.
type Index[T, V any] struct {
	repo *Repo[T]
	f    kandra.Field[T, V]
	spec kandra.IndexSpec
}

// IndexOf returns the handle of the secondary index on field f. A field
// without one is a *kandra.SchemaError that names the option to add: a
// query by it would need ALLOW FILTERING, which kandra never sends (it
// reads every partition).
//
// How the index is read follows its target (kandra.IndexSpec.Target):
// Find by the column's value (a frozen collection's whole value), Range
// between bounds where the index reads ranges (an SAI index on a number
// or a time), Contains, SetContains, ContainsKey, ContainsValue and
// HasEntry on a collection's elements, keys or entries; an ANN index
// (kandra.VectorIndex) with Nearest.
func IndexOf[T, V any](r *Repo[T], f kandra.Field[T, V]) (*Index[T, V], error) {
	c := f.Column()
	spec, ok := c.Index()
	if !ok {
		return nil, &kandra.SchemaError{Entity: r.typeName, Field: c.GoName(), Rule: kandra.RuleSecondaryIndex,
			Detail: "column " + c.Name() + " has no secondary index, so a query by it would need ALLOW FILTERING, which kandra never sends: bind the field with kandra.SecondaryIndex() (the migrator creates " + r.ts.IndexName(c) + "), or give it a kandra.Lookup"}
	}
	return &Index[T, V]{repo: r, f: f, spec: spec}, nil
}

// MustIndexOf is IndexOf that panics on error.
func MustIndexOf[T, V any](r *Repo[T], f kandra.Field[T, V]) *Index[T, V] {
	x, err := IndexOf(r, f)
	if err != nil {
		panic(err)
	}
	return x
}

// Spec is the index as Register resolved it: its name, kind and target.
func (x *Index[T, V]) Spec() kandra.IndexSpec { return x.spec }

// Find reads one page of the rows whose column equals v, through the
// index, in the server's order (by token, then clustering order), with
// the cursor of the next page. A read through an index touches every
// node: a lookup table (kandra.Lookup) is the read of one partition.
// Options: PageSize (default 100), After, Columns, WithTimes, SkipDeleted, Consistency (the
// other index reads take the same). An index on a
// collection's values, keys or entries is read with Contains,
// ContainsKey, ContainsValue or HasEntry instead: Find there is a
// *kerrors.ArgumentError that names the call.
func (x *Index[T, V]) Find(ctx context.Context, v V, opts ...ListOption) *Iter[T] {
	return x.find(ctx, "Index.Find", catalog.IndexEqual, []any{&v}, opts)
}

// Range reads one page of the rows whose column lies within the bounds
// From and To give on the index's own field (either may be left out),
// through an index that reads ranges (kandra.IndexSpec.Ranges: an SAI
// index on a number, a date, a time, a timestamp, a timeuuid or an inet).
// Another index is a *kerrors.ArgumentError before anything is sent:
// servers read its ranges only with ALLOW FILTERING, which kandra never
// sends. The rows come in the server's order (by token), not by the
// column: an index read cannot be ordered (servers refuse ORDER BY there).
func (x *Index[T, V]) Range(ctx context.Context, opts ...ListOption) *Iter[T] {
	return x.find(ctx, "Index.Range", catalog.IndexRange, nil, opts)
}

// Contains reads one page of the rows whose list holds e, through an
// index on the list's values (the default target of a list's index). S is
// the field's list type: []E or a named type of it.
func Contains[T any, S ~[]E, E any](ctx context.Context, x *Index[T, S], e E, opts ...ListOption) *Iter[T] {
	return x.find(ctx, "Contains", catalog.IndexContains, []any{&e}, opts)
}

// SetContains reads one page of the rows whose set holds e, through an
// index on the set's values (its default target). S is the field's set
// type: map[E]struct{} or a named type of it.
func SetContains[T any, S ~map[E]struct{}, E comparable](ctx context.Context, x *Index[T, S], e E, opts ...ListOption) *Iter[T] {
	return x.find(ctx, "SetContains", catalog.IndexContains, []any{&e}, opts)
}

// ContainsKey reads one page of the rows whose map has the key k, through
// an index on the map's keys (kandra.IndexKeys). M is the field's map
// type. A set (map[E]struct{} in Go) is read with SetContains.
func ContainsKey[T any, M ~map[K]V, K comparable, V any](ctx context.Context, x *Index[T, M], k K, opts ...ListOption) *Iter[T] {
	if it := x.notSet("ContainsKey"); it != nil {
		return it
	}
	return x.find(ctx, "ContainsKey", catalog.IndexContainsKey, []any{&k}, opts)
}

// ContainsValue reads one page of the rows whose map holds the value v
// under some key, through an index on the map's values (its default
// target).
func ContainsValue[T any, M ~map[K]V, K comparable, V any](ctx context.Context, x *Index[T, M], v V, opts ...ListOption) *Iter[T] {
	if it := x.notSet("ContainsValue"); it != nil {
		return it
	}
	return x.find(ctx, "ContainsValue", catalog.IndexContains, []any{&v}, opts)
}

// HasEntry reads one page of the rows whose map holds v under the key k,
// through an index on the map's entries (kandra.IndexEntries).
func HasEntry[T any, M ~map[K]V, K comparable, V any](ctx context.Context, x *Index[T, M], k K, v V, opts ...ListOption) *Iter[T] {
	if it := x.notSet("HasEntry"); it != nil {
		return it
	}
	return x.find(ctx, "HasEntry", catalog.IndexEntry, []any{&k, &v}, opts)
}

// notSet refuses a map read of a set column, whose Go type is a map too.
func (x *Index[T, V]) notSet(op string) *Iter[T] {
	if x.f.Column().Type().Kind() != kandra.KindSet {
		return nil
	}
	it := &Iter[T]{}
	it.err = x.repo.argErr(op, "x", "column "+x.f.Column().GoName()+" is a set, whose elements are its Go map's keys: read it with kstore.SetContains")
	return it
}

// indexCalls names, per target, the call that reads an index.
var indexCalls = map[kandra.IndexTarget]string{
	kandra.IndexTargetColumn: "Index.Find", kandra.IndexTargetFull: "Index.Find",
	kandra.IndexTargetValues: "kstore.Contains (a list), SetContains (a set) or ContainsValue (a map)",
	kandra.IndexTargetKeys:   "kstore.ContainsKey", kandra.IndexTargetEntries: "kstore.HasEntry",
}

func (x *Index[T, V]) find(ctx context.Context, op string, how catalog.IndexOp, vals []any, opts []ListOption) *Iter[T] {
	r := x.repo
	it := &Iter[T]{}
	c := applyCall(opts)
	cons, _, err := r.enter(ctx, entry{op: op, kind: reads, takes: takesColumns | takesTimes}, &c)
	if err != nil {
		it.err = err
		return it
	}
	defer r.rt.leave()
	col := x.f.Column()
	if x.spec.Kind == kandra.IndexVector {
		it.err = r.argErr(op, "x", "the index "+x.spec.Name+" on "+col.GoName()+" is an ANN index: read it with Index.Nearest")
		return it
	}
	if c.reversed || len(c.prefix) > 0 {
		it.err = r.argErr(op, "Equal, Reversed", "an index is read in the server's order, by the index's own column")
		return it
	}
	if c.lowerTuple != nil || c.upperTuple != nil {
		it.err = r.argErr(op, "FromTuple, ToTuple", "tuple bounds are a partition's clustering columns'; an index read bounds its own field with From and To")
		return it
	}
	lower, upper := catalog.Unbounded, catalog.Unbounded
	if how == catalog.IndexRange {
		if !x.spec.Ranges {
			it.err = r.argErr(op, "x", "the index "+x.spec.Name+" on "+col.GoName()+" ("+x.spec.Kind.String()+" index on "+col.Type().String()+") does not read ranges: servers would need ALLOW FILTERING, which kandra never sends; give the field kandra.SecondaryIndex(kandra.UsingSAI()) on a number, date, time, timestamp, timeuuid or inet, or read it with Find")
			return it
		}
		for _, b := range []struct {
			name string
			col  *kandra.ColumnSchema
		}{{"From", c.lowerCol}, {"To", c.upperCol}} {
			if b.col != nil && b.col != col {
				it.err = r.argErr(op, b.name, "bounds field "+b.col.GoName()+"; Index.Range bounds the index's own field, "+col.GoName())
				return it
			}
		}
		if c.lowerCol == nil && c.upperCol == nil {
			it.err = r.argErr(op, "From, To", "Index.Range needs a bound: give From or To on "+col.GoName()+", or read by equality with Find")
			return it
		}
		if c.lowerCol != nil {
			lower, vals = c.lowerB, append(vals, c.lower)
		}
		if c.upperCol != nil {
			upper, vals = c.upperB, append(vals, c.upper)
		}
	} else if c.lowerCol != nil || c.upperCol != nil {
		it.err = r.argErr(op, "From, To", "bounds belong to Index.Range; "+op+" reads by equality")
		return it
	}
	st := r.st.SelectByIndexOp(col, how, lower, upper)
	if st == nil {
		it.err = r.argErr(op, "x", "the index "+x.spec.Name+" on "+col.GoName()+" holds its "+x.spec.Target.String()+", read with "+indexCalls[x.spec.Target])
		return it
	}
	if st, it.err = r.project(op, st, &c); it.err != nil {
		return it
	}
	if st, it.err = r.timed(op, st, &c); it.err != nil {
		return it
	}
	if it.err = r.checkRange(op, &call{pageSize: c.pageSize, hasPageSize: c.hasPageSize}); it.err != nil {
		return it
	}
	if !c.hasPageSize {
		c.pageSize = defaultPageSize
	}
	// The values: the column's own (Find, Range) are checked as the
	// column's; a collection's parts as values of a key, which cannot be
	// null.
	for i, v := range vals {
		if st.Param(i).Kind == adapter.ParamColumn || st.Param(i).Kind == adapter.ParamLowerBound || st.Param(i).Kind == adapter.ParamUpperBound {
			col.StoredForm(v)
			if msg := keyProblem(v, false); msg != "" {
				it.err = r.argErr(op, "v", "the value of "+col.GoName()+" "+msg)
				return it
			}
			if it.err = col.CheckValue(v); it.err != nil {
				return it
			}
			continue
		}
		if msg := keyProblem(v, false); msg != "" {
			it.err = r.argErr(op, "v", "the "+map[adapter.ParamKind]string{adapter.ParamElement: "element", adapter.ParamMapKey: "key"}[st.Param(i).Kind]+" of "+col.GoName()+" "+msg)
			return it
		}
	}
	fpOf := func() uint64 { return r.indexFingerprint(st, col, vals) }
	var fp uint64
	if !c.cursor.IsZero() {
		if fp = fpOf(); !r.rt.resume(&c.cursor, fp) {
			it.err = r.argErr(op, "After", refusedCursor(c.cursor, "the cursor was made by another query; a cursor resumes only the query that returned it"))
			return it
		}
	}
	it.rows, it.cursor, it.err = r.readPage(ctx, kandra.OpFind, "index read", st, vals, cons, &c, fp, fpOf)
	it.times = c.timesOut
	return it
}

// MaxNearest is the most rows one Nearest read returns: Cassandra 5.0
// refuses a larger LIMIT on an ANN query ("Use of ANN OF in an ORDER BY
// clause requires a LIMIT that is not greater than 1000").
const MaxNearest = 1000

// Nearest reads the limit rows (1 to MaxNearest) whose vector is nearest
// q by the ANN index's similarity (kandra.VectorIndex), nearest first, in
// one page: servers do not page an ANN query, so there is no cursor. The
// nearest are approximate, as every ANN index's are. q is refused before
// sending when the index could not rank it (kandra.VectorProblem: a
// component that is not finite or past ±1e17, a zero vector for cosine),
// as is a serial consistency ("Top-K queries can only be run with
// consistency level ONE/LOCAL_ONE", which Cassandra 5.0.8 enforces for
// SERIAL and LOCAL_SERIAL only). Options: SkipDeleted (which may leave
// fewer than limit rows), Columns, WithScores, Consistency.
//
// A read through an ANN index touches every node; rows written a moment
// ago may not be ranked yet on a replica the read does not reach at the
// consistency given.
func (x *Index[T, V]) Nearest(ctx context.Context, q V, limit int, opts ...ReadOption) *Iter[T] {
	const op = "Index.Nearest"
	r := x.repo
	it := &Iter[T]{}
	c := applyCall(opts)
	cons, _, err := r.enter(ctx, entry{op: op, kind: reads, takes: takesColumns | takesScores}, &c)
	if err != nil {
		it.err = err
		return it
	}
	defer r.rt.leave()
	col := x.f.Column()
	st := r.st.SelectByIndexOp(col, catalog.IndexNearest, catalog.Unbounded, catalog.Unbounded)
	if x.spec.Kind != kandra.IndexVector || st == nil {
		it.err = r.argErr(op, "x", "the index "+x.spec.Name+" on "+col.GoName()+" is a "+x.spec.Kind.String()+" index, not an ANN index: bind a [N]float32 field with kandra.VectorIndex, or read this one with "+indexCalls[x.spec.Target])
		return it
	}
	if st, it.err = r.project(op, st, &c); it.err != nil {
		return it
	}
	if it.err = nearestChecks(r, op, col, &q, limit, cons); it.err != nil {
		return it
	}
	vals := []any{&q, limit}
	if c.scores {
		var buf [128]byte
		st = r.st.Extend(st, nil, col, x.spec.Similarity, buf[:0])
		vals = append([]any{&q}, vals...)
	}
	// The page must hold more rows than the limit ("Top-K queries must have
	// a limit specified and the limit must be less than the query page
	// size"), so one page is the whole answer.
	c.pageSize = limit + 1
	// Its cursor is dropped: any fingerprint but 0 (make one) will do, an
	// even one without sealedBit, so nothing is sealed for nothing.
	it.rows, _, it.err = r.readPage(ctx, kandra.OpFind, "ANN read", st, vals, cons, &c, 2, nil)
	it.scores = c.scoresOut
	return it
}

// nearestChecks refuses what an ANN read of col by the vector at q cannot
// be sent with: a limit out of 1 to MaxNearest, a vector the index could
// not rank, a serial consistency.
func nearestChecks[T any](r *Repo[T], op string, col *kandra.ColumnSchema, q any, limit int, cons kandra.Consistency) error {
	if limit < 1 || limit > MaxNearest {
		return r.argErr(op, "limit", fmt.Sprintf("%d is not in 1 to %d (MaxNearest): Cassandra refuses an ANN query without a LIMIT or over 1000", limit, MaxNearest))
	}
	if err := col.CheckValue(q); err != nil {
		return err
	}
	if cons.IsSerial() {
		return r.argErr(op, "Consistency", cons.String()+": an ANN query cannot be read at a serial consistency (\"Top-K queries can only be run with consistency level ONE/LOCAL_ONE\"); give ConsistencyOne or ConsistencyLocalOne")
	}
	return nil
}
