package migrate

import (
	"context"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"reflect"
	"strconv"
	"sync"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
	"github.com/kandra-go/kandra/internal/lookupval"
	"github.com/kandra-go/kandra/internal/tokenscan"
	"github.com/kandra-go/kandra/kerrors"
)

// lookupFill writes the rows of one lookup table from the rows of its
// primary table, as Save would have written them: the lookup's own insert
// statement, the adapter's conversions, no row for an empty value. It is
// the untyped path a migrator needs (it holds a *kandra.TableSchema, not a
// Go type): each row is scanned into a new entity of the table's type
// (reflect.New of EntityType) through ColumnSchema.Pointer. It is safe for
// concurrent use; run one token range per goroutine.
type lookupFill struct {
	d      adapter.Driver
	ks     string
	ts     *kandra.TableSchema
	cols   []*kandra.ColumnSchema // ts.Columns(), the token-range scan's result
	scan   *adapter.Statement
	insert *adapter.Statement
	lookup *kandra.LookupTableSchema
}

// newLookupFill prepares the backfill of lookup table lookup of
// keyspace ks (from ks.LookupTable). A lookup table that is not in ks is a
// *kandra.SchemaError under kandra.RuleNotInKeyspace. An observing driver sees its scans and writes
// (operation OpBackfill).
func newLookupFill(d adapter.Driver, ks *kandra.Keyspace, lookup *kandra.LookupTableSchema) (*lookupFill, error) {
	if d == nil || ks == nil || lookup == nil {
		panic("kandra/migrate: newLookupFill: nil Driver, Keyspace or LookupTableSchema")
	}
	t := lookup.Table()
	if !ks.Has(t) {
		return nil, &kandra.SchemaError{Entity: "keyspace " + strconv.Quote(ks.Name()), Rule: kandra.RuleNotInKeyspace,
			Detail: "lookup table " + lookup.Name() + " is not in the keyspace; give its table " + strconv.Quote(t.Name()) + " to NewKeyspace"}
	}
	st, err := catalog.Build(t, ks.Name())
	if err != nil {
		return nil, err
	}
	for i := 0; i < st.NumLookups(); i++ {
		if l := st.Lookup(i); l.Lookup() == lookup {
			ins := l.Insert()
			if l.Lookup().IsUnique() {
				// A unique lookup's rows are claims, written by LWTs only.
				// A claim that does not apply is one a rerun made before,
				// or a value two rows share: the verification count shows
				// the latter.
				ins = l.Claim()
			}
			b := &lookupFill{d: d, ks: ks.Name(), ts: t, cols: t.Columns(), scan: st.TokenRange(), insert: ins, lookup: l.Lookup()}
			return b, nil
		}
	}
	panic("kandra/migrate: newLookupFill: lookup table " + lookup.Name() + " has no statements") // catalog.Build plans every lookup
}

// Lookup is the lookup table being filled.
func (b *lookupFill) Lookup() *kandra.LookupTableSchema { return b.lookup }

// rangeStats counts what one token range held.
type rangeStats struct {
	// Rows is the number of primary rows scanned.
	Rows int64
	// Valued is the number of them with a non-empty lookup value: the
	// lookup rows written (or, for Count, that should exist).
	Valued int64
}

// Fill scans the token range (start, end] of the primary table, pageSize
// rows a page (0 to maxPageSize, 0 for no paging; another is a
// *kerrors.ArgumentError) at consistency cons, and writes the lookup row of every row
// whose value is not empty. onPage, if set, is called after each page with
// the rows scanned in it.
func (b *lookupFill) Fill(ctx context.Context, start, end int64, pageSize int, cons kandra.Consistency, onPage func(rows int64)) (rangeStats, error) {
	return b.run(ctx, start, end, pageSize, cons, true, onPage)
}

// Count scans the token range (start, end] like Fill and counts the rows
// with a non-empty value, writing nothing: the other side of a
// verification.
func (b *lookupFill) Count(ctx context.Context, start, end int64, pageSize int, cons kandra.Consistency) (rangeStats, error) {
	return b.run(ctx, start, end, pageSize, cons, false, nil)
}

func (b *lookupFill) run(ctx context.Context, start, end int64, pageSize int, cons kandra.Consistency, write bool, onPage func(int64)) (rangeStats, error) {
	var st rangeStats
	var state []byte
	for {
		next, page, err := b.page(ctx, tokenscan.Range{Start: start, End: end}, state, pageSize, cons, write)
		st.Rows += page.Rows
		st.Valued += page.Valued
		if err != nil {
			return st, err
		}
		if onPage != nil {
			onPage(page.Rows)
		}
		if state = next; len(state) == 0 {
			return st, nil
		}
	}
}

// page reads one page of range r from paging state state (nil: the
// first), writing the lookup rows of its rows when write; it returns the
// next page's state (empty at the end of the range): a tokenscan.PageFunc.
func (b *lookupFill) page(ctx context.Context, r tokenscan.Range, state []byte, pageSize int, cons kandra.Consistency, write bool) ([]byte, rangeStats, error) {
	var st rangeStats
	if pageSize < 0 || pageSize > maxPageSize {
		// The protocol carries a page size as a 32-bit int: a larger one
		// would be cut to its low bits.
		return nil, st, &kerrors.ArgumentError{Op: "backfill of " + b.lookup.Name(), Arg: "pageSize",
			Message: fmt.Sprintf("%d is not in 0 (no paging) to %d (the protocol's 32-bit limit)", pageSize, maxPageSize)}
	}
	if err := ctx.Err(); err != nil {
		return nil, st, &kerrors.QueryError{Message: "backfill of " + b.lookup.Name() + ": context done", Cause: err}
	}
	typ := b.ts.EntityType()
	idx := b.lookup.IndexColumn()
	dst := make([]any, 0, b.ts.NumColumns()+1)
	q := &adapter.Query{Statement: b.scan, Values: []any{r.Start, r.End}, Consistency: cons, PageSize: pageSize, PageState: state}
	rows, err := b.d.Query(ctx, q)
	if err != nil {
		return nil, st, &kerrors.QueryError{Message: "backfill of " + b.lookup.Name() + ": scan of " + b.ts.Name() + " failed (" + b.scan.CQL() + ")", Cause: err}
	}
	var present adapter.Present
	w := newWriter(ctx)
	for {
		e := reflect.New(typ).Interface()
		dst = dst[:0]
		for _, c := range b.cols {
			p, _ := c.Pointer(e) // e is a new entity of the table's type
			dst = append(dst, p)
		}
		if b.scan.HasPresence() {
			dst = append(dst, &present)
		}
		if !rows.Next(dst) {
			break
		}
		if b.scan.HasPresence() && !bool(present) {
			continue // the static values of a partition without rows: no entity
		}
		st.Rows++
		v, _ := idx.Pointer(e)
		if lookupval.Empty(idx, v) {
			continue
		}
		st.Valued++
		if !write {
			continue
		}
		vals := make([]any, b.insert.NumParams())
		for i := range vals {
			if p := b.insert.Param(i); p.Kind == adapter.ParamClaim {
				vals[i] = mrand.Int64N(math.MaxInt64) + 1 // a claim token, as Save makes one
			} else {
				vals[i], _ = p.Column.Pointer(e)
			}
		}
		w.do(func(ctx context.Context) error {
			_, err := b.d.Exec(ctx, &adapter.Query{Statement: b.insert, Values: vals, Consistency: cons, SerialConsistency: kandra.ConsistencySerial})
			return err
		})
	}
	if err := w.wait(); err != nil {
		_ = rows.Close()
		return nil, st, &kerrors.QueryError{Message: "backfill of " + b.lookup.Name() + ": insert failed (" + b.insert.CQL() + ")", Cause: err}
	}
	next := rows.PageState()
	if err := rows.Close(); err != nil {
		return nil, st, &kerrors.QueryError{Message: "backfill of " + b.lookup.Name() + ": scan of " + b.ts.Name() + " failed (" + b.scan.CQL() + ")", Cause: err}
	}
	return next, st, nil
}

// backfillInflight bounds the lookup inserts in flight per scanned range:
// one at a time would leave the range waiting on every round trip.
const backfillInflight = 16

// writer runs writes at most backfillInflight at a time and keeps the
// first error; after one, the rest are skipped.
type writer struct {
	parent context.Context
	ctx    context.Context
	cancel context.CancelFunc
	sem    chan struct{}
	wg     sync.WaitGroup
	once   sync.Once
	err    error
}

func newWriter(ctx context.Context) *writer {
	wctx, cancel := context.WithCancel(ctx)
	return &writer{parent: ctx, ctx: wctx, cancel: cancel, sem: make(chan struct{}, backfillInflight)}
}

func (w *writer) do(fn func(context.Context) error) {
	select {
	case w.sem <- struct{}{}:
	case <-w.ctx.Done():
		return
	}
	w.wg.Add(1)
	go func() {
		defer func() { <-w.sem; w.wg.Done() }()
		if err := fn(w.ctx); err != nil {
			w.once.Do(func() { w.err = err; w.cancel() })
		}
	}()
}

func (w *writer) wait() error {
	w.wg.Wait()
	defer w.cancel()
	if w.err != nil {
		return w.err
	}
	// A write skipped because the caller's context ended is a failure.
	return w.parent.Err()
}

// maxPageSize is the largest page size: the protocol carries one as a
// 32-bit int.
const maxPageSize = math.MaxInt32
