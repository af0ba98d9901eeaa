package kstore

import (
	"context"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
)

// CellTime is when a cell was written and how long it has left to live:
// the WRITETIME and TTL servers keep of each cell.
type CellTime struct {
	// WriteTime is the cell's write timestamp (the time of the write, or
	// the Timestamp it was given), to the microsecond; the zero time for
	// a cell without a value (a null has no write time).
	WriteTime time.Time
	// TTL is the time the cell has left, to the second; 0 for a cell
	// written without a TTL, or without a value.
	TTL time.Duration
}

// IsSet reports a cell with a value.
func (c CellTime) IsSet() bool { return !c.WriteTime.IsZero() }

// TimesOption is the option WithTimes returns; List, ListMerged and the
// index reads take it.
type TimesOption struct{ cols []*kandra.ColumnSchema }

func (o TimesOption) apply(c *call) { c.times, c.hasTimes = o.cols, true }
func (TimesOption) listOption()     {}

// WithTimes also reads the write time and TTL of the cells of fields in
// each row listed: Iter.Times gives them, in the order of fields. A field
// of the primary key (whose cells servers do not time), a counter, a
// collection or a user-defined type that is not frozen (each of whose
// elements is a cell with its own time), a field of another table, and
// no field at all are a *kerrors.ArgumentError before anything is sent.
// GetTimes is the read of one row's.
func WithTimes(fields ...Column) TimesOption {
	cols := make([]*kandra.ColumnSchema, len(fields))
	for i, f := range fields {
		if f != nil {
			cols[i] = f.Column()
		}
	}
	return TimesOption{cols}
}

// Times is the write time and TTL of the current row's cells WithTimes
// asked for, in its order; nil without WithTimes.
func (it *Iter[T]) Times() []CellTime {
	if it.times == nil {
		return nil
	}
	return it.times[it.i-1]
}

// GetTimes is Get that also reads the write time and TTL of the cells of
// fields (see WithTimes), in their order. Options: Columns, SkipDeleted,
// Consistency.
func (r *Repo[T]) GetTimes(ctx context.Context, key *T, fields []Column, opts ...ReadOption) (*T, []CellTime, error) {
	const op = "GetTimes"
	sc := getScratch(opts)
	defer sc.release()
	c := &sc.c
	cons, _, err := r.enter(ctx, entry{op: op, kind: reads, takes: takesColumns}, c, arg[T]{name: "key", e: key, key: r.key})
	if err != nil {
		return nil, nil, err
	}
	defer r.rt.leave()
	c.times, c.hasTimes = WithTimes(fields...).cols, true
	st, err := r.project(op, r.st.SelectByKey(), c)
	if err != nil {
		return nil, nil, err
	}
	if st, err = r.timed(op, st, c); err != nil {
		return nil, nil, err
	}
	// The Query, its values and the targets in the call's scratch, as a
	// Get's; the times' targets too, for up to len(sc.timeWT) fields.
	q := sc.query(st)
	q.Values, q.Consistency = catalog.AppendColumns(r.t, st, key, sc.values(st.NumParams())), cons
	e := new(T)
	n := len(c.times)
	raw := rawTimes{wt: sc.timeWT[:0], ttl: sc.timeTTL[:0]}
	if n > len(sc.timeWT) {
		raw = rawTimes{wt: make([]int64, 0, n), ttl: make([]int32, 0, n)}
	}
	raw.wt, raw.ttl = raw.wt[:n], raw.ttl[:n]
	clear(raw.wt)
	clear(raw.ttl)
	dst := catalog.AppendResult(r.t, st, e, sc.values(st.NumResult()+2*n))
	found, err := r.oneInto(ctx, kandra.OpGet, q, raw.appendTargets(dst))
	if err != nil {
		return nil, nil, err
	}
	if !found || c.skipDeleted && r.deleted(e) {
		return nil, nil, r.notFound(key)
	}
	return e, raw.cellTimes(), nil
}

// timed is st also reading the times c asks for, or st without WithTimes.
func (r *Repo[T]) timed(op string, st *adapter.Statement, c *call) (*adapter.Statement, error) {
	if !c.hasTimes {
		return st, nil
	}
	if len(c.times) == 0 {
		return nil, r.argErr(op, "WithTimes", "no field: name the fields whose write times to read")
	}
	for _, col := range c.times {
		var why string
		switch {
		case col == nil || col.Table() != r.ts:
			why = "is not a field of " + r.ts.Name()
		case col.Role() != kandra.RegularColumn:
			why = "is a primary key column: servers keep no write time of a key (read a regular column's)"
		case col.IsCounter():
			why = "is a counter: servers keep no write time of a counter"
		case !col.IsFrozen() && (col.Type().Kind() == kandra.KindList || col.Type().Kind() == kandra.KindSet || col.Type().Kind() == kandra.KindMap || col.Type().Kind() == kandra.KindUDT):
			why = "is a collection or user-defined type that is not frozen: each of its elements is a cell with a time of its own"
		}
		if why != "" {
			name := "a nil field"
			if col != nil {
				name = col.GoName()
			}
			return nil, r.argErr(op, "WithTimes", name+" "+why)
		}
	}
	var buf [128]byte
	return r.st.Timed(st, c.times, buf[:0]), nil
}

// rawTimes are the scan targets of a row's WRITETIME and TTL pairs.
type rawTimes struct {
	wt  []int64
	ttl []int32
}

func timeTargets(n int) *rawTimes { return &rawTimes{wt: make([]int64, n), ttl: make([]int32, n)} }

func (t *rawTimes) targets() []any { return t.appendTargets(make([]any, 0, 2*len(t.wt))) }

// appendTargets appends the scan targets of the times to dst.
func (t *rawTimes) appendTargets(dst []any) []any {
	for i := range t.wt {
		dst = append(dst, &t.wt[i], &t.ttl[i])
	}
	return dst
}

// cellTimes converts the values scanned, and zeroes them for the next row
// (a null leaves a target as it was).
func (t *rawTimes) cellTimes() []CellTime {
	out := make([]CellTime, len(t.wt))
	for i := range t.wt {
		if t.wt[i] != 0 {
			out[i].WriteTime = time.UnixMicro(t.wt[i]).UTC()
		}
		out[i].TTL = time.Duration(t.ttl[i]) * time.Second
		t.wt[i], t.ttl[i] = 0, 0
	}
	return out
}
