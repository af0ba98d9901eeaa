package store

import (
	"context"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
)

// Index is a typed handle on a column with a secondary index
// (kandra.SecondaryIndex), for reads by its value across partitions.
type Index[T, V any] struct {
	repo *Repo[T]
	f    kandra.Field[T, V]
	st   *adapter.Statement
}

// IndexOf returns the handle of the secondary index on field f. A field
// without one is a *kandra.SchemaError that names the option to add: a
// query by it would need ALLOW FILTERING, which kandra never sends (it
// reads every partition). A collection that is not a key has its index on
// its values, read with CONTAINS: write that query with Prepare.
func IndexOf[T, V any](r *Repo[T], f kandra.Field[T, V]) (*Index[T, V], error) {
	c := f.Column()
	if !c.IsSecondaryIndex() {
		return nil, &kandra.SchemaError{Entity: r.typeName, Field: c.GoName(), Rule: kandra.RuleSecondaryIndex,
			Detail: "column " + c.Name() + " has no secondary index, so a query by it would need ALLOW FILTERING, which kandra never sends: bind the field with kandra.SecondaryIndex() (the migrator creates " + r.ts.IndexName(c) + "), or give it a kandra.Lookup"}
	}
	st := r.st.SelectByIndex(c)
	if st == nil {
		return nil, &kandra.SchemaError{Entity: r.typeName, Field: c.GoName(), Rule: kandra.RuleSecondaryIndex,
			Detail: "the index on collection column " + c.Name() + " holds its values: query it with CONTAINS through store.Prepare"}
	}
	return &Index[T, V]{repo: r, f: f, st: st}, nil
}

// MustIndexOf is IndexOf that panics on error.
func MustIndexOf[T, V any](r *Repo[T], f kandra.Field[T, V]) *Index[T, V] {
	x, err := IndexOf(r, f)
	if err != nil {
		panic(err)
	}
	return x
}

// Find reads one page of the rows whose column equals v, through the
// index, in the server's order (by token, then clustering order), with
// the cursor of the next page. A read through an index touches every
// node: a lookup table (kandra.Lookup) is the read of one partition.
// Options: PageSize (default 100), After, Consistency.
func (x *Index[T, V]) Find(ctx context.Context, v V, opts ...ListOption) *Iter[T] {
	return x.find(ctx, "Index.Find", v, false, opts)
}

// FindActive is Find without soft-deleted rows (marker true); it fetches
// on until the page is full or the rows end.
func (x *Index[T, V]) FindActive(ctx context.Context, v V, opts ...ListOption) *Iter[T] {
	return x.find(ctx, "Index.FindActive", v, true, opts)
}

func (x *Index[T, V]) find(ctx context.Context, op string, v V, active bool, opts []ListOption) *Iter[T] {
	r := x.repo
	it := &Iter[T]{}
	if it.err = r.begin(ctx, op); it.err != nil {
		return it
	}
	defer r.rt.leave()
	c := applyCall(opts)
	if c.lowerCol != nil || c.upperCol != nil || c.reversed || len(c.prefix) > 0 {
		it.err = r.argErr(op, "Equal, From, To, Reversed", "an index is read by equality, in the server's order")
		return it
	}
	if it.err = r.checkRange(op, &c); it.err != nil {
		return it
	}
	if !c.hasPageSize {
		c.pageSize = defaultPageSize
	}
	col := x.f.Column()
	col.StoredForm(&v)
	if msg := keyProblem(&v, false); msg != "" {
		it.err = r.argErr(op, "v", "the value of "+col.GoName()+" "+msg)
		return it
	}
	if it.err = col.CheckValue(&v); it.err != nil {
		return it
	}
	cons, err := r.readCons(op, &c)
	if err != nil {
		it.err = err
		return it
	}
	fpOf := func() uint64 {
		if col.IsSensitive() {
			return fingerprintOf(x.st.CQL())
		}
		return fingerprintOf(x.st.CQL(), v)
	}
	var fp uint64
	if !c.cursor.IsZero() {
		if fp = fpOf(); c.cursor.query != fp {
			it.err = r.argErr(op, "After", "the cursor was made by another query; a cursor resumes only the query that returned it")
			return it
		}
	}
	it.rows, it.cursor, it.err = r.readPage(ctx, OpFind, "index read", x.st, []any{&v}, cons, &c, active, fp, fpOf)
	return it
}
