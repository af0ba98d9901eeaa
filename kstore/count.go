package kstore

import (
	"context"
	"sync/atomic"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/tokenscan"
)

// Count counts the rows of partition's partition (its other fields are
// ignored), restricted as List restricts them by Equal, From and To: the
// server counts, and only the count crosses the network. Options: Equal,
// From, To, SkipDeleted, Consistency. With SkipDeleted the rows' soft-
// delete markers are read instead (the server cannot count by a
// column's value without ALLOW FILTERING, which kandra never sends), a
// page of PageSize rows at a time (default 1000).
//
// A count reads every row it counts on each replica the consistency
// asks: counting a partition of millions of rows takes as long as reading
// their keys.
func (r *Repo[T]) Count(ctx context.Context, partition *T, opts ...ListOption) (int64, error) {
	const op = "Count"
	sc := getScratch(opts)
	defer sc.release()
	c := &sc.c
	cons, _, err := r.enter(ctx, entry{op: op, kind: reads}, c, arg[T]{name: "partition", e: partition, key: r.partition})
	if err != nil {
		return 0, err
	}
	defer r.rt.leave()
	if c.hasCursor || c.reversed {
		return 0, r.argErr(op, "options", "After and Reversed belong to List; a count has one answer")
	}
	if err := r.checkRange(op, c); err != nil {
		return 0, err
	}
	rng := c.partitionRange()
	if c.skipDeleted && r.marker() != nil {
		st := r.liveOnly(r.st.SelectPartition(rng))
		if !c.hasPageSize {
			c.pageSize = DefaultScanPageSize
		}
		return r.countLive(ctx, st, r.partitionValues(st, partition, c), cons, c.pageSize)
	}
	st := r.st.CountPartition(rng)
	return r.countIn(ctx, sc, st, r.partitionValuesIn(sc.values(st.NumParams()), st, partition, c), cons)
}

// CountAll counts every row of the table, by token ranges, as Scan reads
// them: the server counts each range (COUNT(*)), Concurrency ranges at a
// time, and only the counts cross the network; with SkipDeleted the
// soft-delete markers are read and counted instead. Its cost is a Scan's
// on the servers (every row of every replica set is read); its progress
// is reported as a Scan's (OnProgress), by range. Options: Concurrency,
// Ranges, OnProgress, PageSize (with SkipDeleted), SkipDeleted,
// Consistency. A count is not resumed: ResumeFrom and Columns are
// refused.
func (r *Repo[T]) CountAll(ctx context.Context, opts ...ScanOption) (int64, error) {
	const op = "CountAll"
	c := applyCall(opts)
	cons, _, err := r.enter(ctx, entry{op: op, kind: reads}, &c)
	if err != nil {
		return 0, err
	}
	defer r.rt.leave()
	if c.scan != nil && c.scan.from != nil {
		return 0, r.argErr(op, "ResumeFrom", "a count is not resumed: leave ResumeFrom out (Scan takes it)")
	}
	if c.skipDeleted && r.marker() != nil {
		// Read the key and the marker only: the marker is what tells.
		c.columns, c.hasColumns = []*kandra.ColumnSchema{r.marker()}, true
		var n atomic.Int64
		_, err := r.scan(ctx, op, cons, &c, func(context.Context, *T) error { n.Add(1); return nil })
		return n.Load(), err
	}
	t, err := r.checkScan(op, &c)
	if err != nil {
		return 0, err
	}
	rs, _ := tokenscan.Plan(ctx, r.rt.d, r.st.Keyspace(), r.ts.Name(), t.ranges, 4*t.conc)
	pieces := tokenscan.Pieces(rs)
	st := r.st.CountTokenRange()
	var total atomic.Int64
	meter := tokenscan.NewMeter(len(pieces), 0)
	fp := r.newPrint(r.st.TokenRange().CQL()).sum(r.rt)
	err = tokenscan.Run(ctx, pieces, t.conc, func(ctx context.Context, rg tokenscan.Range, _ []byte) ([]byte, int64, error) {
		n, err := r.countOne(ctx, st, []any{rg.Start, rg.End}, cons)
		total.Add(n)
		return nil, n, err
	}, func(_ int, p tokenscan.Piece, rows int64) {
		meter.Add(rows, p.Done)
		if t.progress != nil {
			m := meter.Read()
			t.progress(ScanProgress{Table: r.ts.Name(), Rows: m.Rows, RangesDone: m.RangesDone, Ranges: m.Ranges, Elapsed: m.Elapsed,
				Remaining: m.Remaining, RowsPerSecond: m.RowsPerSecond, Position: r.position(fp, pieces)})
		}
	})
	return total.Load(), err
}

// marker is the table's soft-delete marker column, or nil.
func (r *Repo[T]) marker() *kandra.ColumnSchema {
	if sd := r.ts.SoftDelete(); sd != nil {
		return sd.Marker
	}
	return nil
}

// liveOnly is st reading the primary key and the soft-delete marker only.
func (r *Repo[T]) liveOnly(st *adapter.Statement) *adapter.Statement {
	cols := append(append([]*kandra.ColumnSchema(nil), r.key...), r.marker())
	cols = sortColumns(cols)
	var buf [128]byte
	return r.st.Project(st, cols, buf[:0])
}

// countOne runs st, a COUNT, and reads its one BIGINT.
func (r *Repo[T]) countOne(ctx context.Context, st *adapter.Statement, vals []any, cons kandra.Consistency) (int64, error) {
	sc := getScratch[option](nil)
	defer sc.release()
	return r.countIn(ctx, sc, st, vals, cons)
}

// countIn is countOne with its Query and its count's target in sc.
func (r *Repo[T]) countIn(ctx context.Context, sc *scratch, st *adapter.Statement, vals []any, cons kandra.Consistency) (int64, error) {
	q := sc.query(st)
	q.Values, q.Consistency = vals, cons
	sc.count = 0
	if _, err := r.oneInto(ctx, kandra.OpCount, q, append(sc.values(1), &sc.count)); err != nil {
		return 0, err
	}
	return sc.count, nil
}

// countLive pages through st (a projection by liveOnly), as List pages,
// and counts the rows whose soft-delete marker is not set.
func (r *Repo[T]) countLive(ctx context.Context, st *adapter.Statement, vals []any, cons kandra.Consistency, pageSize int) (int64, error) {
	c := call{pageSize: pageSize, hasPageSize: true, skipDeleted: true}
	var n int64
	for {
		// Any fingerprint but 0 will do: the cursor never leaves this loop.
		rows, next, err := r.readPage(ctx, kandra.OpCount, "count", st, vals, cons, &c, 2, nil)
		n += int64(len(rows))
		if err != nil || next.IsZero() {
			return n, err
		}
		c.cursor = next
	}
}
