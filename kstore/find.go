package kstore

import (
	"context"
	"errors"
	"slices"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/catalog"
	"github.com/kandra-go/kandra/kerrors"
)

// Lookup is a typed handle on one lookup column, for Find.
type Lookup[T, V any] struct {
	repo *Repo[T]
	f    kandra.Field[T, V]
	idx  int
}

// LookupOf returns the handle of the lookup on field f; it fails when f's
// column has no lookup table.
func LookupOf[T, V any](r *Repo[T], f kandra.Field[T, V]) (*Lookup[T, V], error) {
	for i, l := range r.lookups {
		if l.IndexColumn() == f.Column() {
			return &Lookup[T, V]{repo: r, f: f, idx: i}, nil
		}
	}
	return nil, &kandra.SchemaError{Entity: r.typeName, Field: f.Column().GoName(), Rule: kandra.RuleLookup,
		Detail: "column " + f.Name() + " has no lookup table"}
}

// MustLookupOf is LookupOf that panics on error.
func MustLookupOf[T, V any](r *Repo[T], f kandra.Field[T, V]) *Lookup[T, V] {
	l, err := LookupOf(r, f)
	if err != nil {
		panic(err)
	}
	return l
}

// Find returns the entity whose lookup column has value v: it reads the
// lookup row, then the primary row by its full key, and checks that the row
// still carries v. A missing or stale lookup row, and an empty v, are
// kerrors.ErrNotFound, never another entity. A non-unique value may have many
// holders: Find returns the first live one, FindAll every one. Options:
// SkipDeleted, Consistency.
func (l *Lookup[T, V]) Find(ctx context.Context, v V, opts ...ReadOption) (*T, error) {
	const op = "Find"
	r := l.repo
	sc := getScratch(opts) // the call's options, and both reads' queries
	defer sc.release()
	c := &sc.c
	cons, _, err := r.enter(ctx, entry{op: op, kind: reads, takes: takesColumns}, c)
	if err != nil {
		return nil, err
	}
	defer r.rt.leave()
	return l.find(ctx, sc, cons, v)
}

// find is Find past enter, apart so that its many returns leave Find's
// defers open-coded (see Repo.update).
func (l *Lookup[T, V]) find(ctx context.Context, sc *scratch, cons kandra.Consistency, v V) (*T, error) {
	const op = "Find"
	r := l.repo
	c := &sc.c
	col := r.lookups[l.idx].IndexColumn()
	if c.hasColumns {
		// The holder's value is read to tell a stale lookup row.
		c.columns = append(slices.Clone(c.columns), col)
		c.colSet = nil // another set than the option's: not its cache entry
	}
	col.StoredForm(&v)
	if err := col.CheckValue(&v); err != nil {
		return nil, err
	}
	if r.emptyAt(l.idx, &v) {
		return nil, l.notFound(v)
	}
	if !r.lookups[l.idx].IsUnique() {
		// Many may hold v: the first live holder, page by page.
		c.pageSize, c.hasPageSize = findPage, true
		for {
			e, next, err := l.firstHolder(ctx, op, &v, sc, cons)
			if err != nil || e != nil {
				return e, err
			}
			if next.IsZero() {
				return nil, l.notFound(v)
			}
			c.cursor, c.hasCursor = next, true
			sc.rewind() // the page's statements are done: the next page reuses their room
		}
	}
	st := r.st.Lookup(l.idx).Select()
	key := new(T) // the holder's key, read from the lookup row, then the holder
	l.f.Set(key, v)
	q := sc.query(st)
	q.Values, q.Consistency = catalog.AppendColumns(r.t, st, key, sc.values(st.NumParams())), cons
	found, err := r.oneInto(ctx, kandra.OpFind, q, catalog.AppendResult(r.t, st, key, sc.values(st.NumResult())))
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, l.notFound(v)
	}
	e, err := r.getIn(ctx, kandra.OpFind, sc, c, key, cons, true)
	if errors.Is(err, kerrors.ErrNotFound) {
		return nil, l.notFound(v)
	}
	if err != nil {
		return nil, err
	}
	if !r.lookups[l.idx].IndexColumn().SameStored(l.f.Pointer(e), &v) {
		return nil, l.notFound(v)
	}
	return e, nil
}

// findPage is the lookup rows a Find of a non-unique value reads at a
// time: the first live holder is usually in the first few.
const findPage = 16

// notFound is the *kerrors.NotFoundError of a Find of v.
func (l *Lookup[T, V]) notFound(v V) error {
	lt := l.repo.lookups[l.idx]
	var shown any = v
	if lt.IndexColumn().IsSensitive() {
		shown = redacted
	}
	return &kerrors.NotFoundError{Table: l.repo.ts.Name(), Lookup: lt.Name(), Value: shown}
}
