package kstore

import (
	"context"
	"math"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
)

// Counter is a typed handle on one counter column.
type Counter[T any] struct {
	repo *Repo[T]
	st   *adapter.Statement
	key  []*kandra.ColumnSchema // the primary key; the partition key for a static counter
	col  *kandra.ColumnSchema
}

// CounterOf returns the handle of counter column f; it fails when f is not
// a counter.
func CounterOf[T any](r *Repo[T], f kandra.Field[T, int64]) (*Counter[T], error) {
	st := r.st.Counter(f.Column())
	if st == nil {
		return nil, &kandra.SchemaError{Entity: r.typeName, Field: f.Column().GoName(), Rule: kandra.RuleCounterTable,
			Detail: "column " + f.Name() + " is not a counter"}
	}
	key := r.key
	if f.Column().IsStatic() {
		key = r.partition
	}
	return &Counter[T]{repo: r, st: st, key: key, col: f.Column()}, nil
}

// MustCounterOf is CounterOf that panics on error.
func MustCounterOf[T any](r *Repo[T], f kandra.Field[T, int64]) *Counter[T] {
	c, err := CounterOf(r, f)
	if err != nil {
		panic(err)
	}
	return c
}

// Increment adds delta to the counter of key's primary key (of its
// partition key, for a static counter). Options:
// Consistency.
func (c *Counter[T]) Increment(ctx context.Context, key *T, delta int64, opts ...CounterOption) error {
	return c.add(ctx, "Increment", key, delta, opts)
}

func (c *Counter[T]) add(ctx context.Context, op string, key *T, delta int64, opts []CounterOption) error {
	r := c.repo
	sc := getScratch(opts)
	defer sc.release()
	cons, _, err := r.enter(ctx, entry{op: op, kind: counts}, &sc.c, arg[T]{name: "key", e: key, key: c.key})
	if err != nil {
		return err
	}
	defer r.rt.leave()
	q := sc.query(c.st)
	q.Values = catalog.AppendColumns(r.t, c.st, key, append(sc.values(c.st.NumParams()), delta))
	q.Consistency = cons
	_, err = r.exec(ctx, kandra.OpIncrement, q)
	return err
}

// Decrement subtracts delta from the counter of key's primary key. A delta
// of math.MinInt64, whose negation overflows, is a *kerrors.ArgumentError.
func (c *Counter[T]) Decrement(ctx context.Context, key *T, delta int64, opts ...CounterOption) error {
	if delta == math.MinInt64 {
		return c.repo.argErr("Decrement", "delta", "math.MinInt64 cannot be negated; decrement by at most math.MaxInt64")
	}
	return c.add(ctx, "Decrement", key, -delta, opts)
}
