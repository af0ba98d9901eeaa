package kstore

import (
	"context"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
)

// Get reads the row with key's primary key (the other fields of key are
// ignored) into a new entity; kerrors.ErrNotFound when there is none. On a
// versioned table a row whose version is null reads at version zero (see
// versioned.go).
func (r *Repo[T]) Get(ctx context.Context, key *T, opts ...ReadOption) (*T, error) {
	sc := getScratch(opts)
	defer sc.release()
	cons, _, err := r.enter(ctx, entry{op: "Get", kind: reads, takes: takesColumns}, &sc.c, arg[T]{name: "key", e: key, key: r.key})
	if err != nil {
		return nil, err
	}
	defer r.rt.leave()
	return r.getIn(ctx, kandra.OpGet, sc, &sc.c, key, cons, false)
}

// getIn reads key's row at cons with c's options (Columns, SkipDeleted),
// its Query and targets in sc. With into, the row is read into key itself,
// which the caller gives up (a key it made, read from a lookup row): a
// read of every column sets every field a new entity would have, so the
// entity is key. A projection (Columns) always reads into a new entity,
// whose other fields stay zero.
func (r *Repo[T]) getIn(ctx context.Context, op string, sc *scratch, c *call, key *T, cons kandra.Consistency, into bool) (*T, error) {
	st, err := r.project("Get", r.st.SelectByKey(), c)
	if err != nil {
		return nil, err
	}
	var e *T
	if into && !c.hasColumns {
		e = key
	}
	e, err = r.readRow(ctx, op, sc, st, key, e, cons)
	if err == nil && c.skipDeleted && r.deleted(e) {
		return nil, r.notFound(key)
	}
	return e, err
}

// readRow reads the one row st (a SELECT bound by key's columns) returns,
// with sc's Query and targets: into e (a new entity when e is nil), or a
// not-found error.
func (r *Repo[T]) readRow(ctx context.Context, op string, sc *scratch, st *adapter.Statement, key, e *T, cons kandra.Consistency) (*T, error) {
	q := sc.query(st)
	q.Values, q.Consistency = catalog.AppendColumns(r.t, st, key, sc.values(st.NumParams())), cons
	if e == nil {
		e = new(T)
	}
	found, err := r.oneInto(ctx, op, q, catalog.AppendResult(r.t, st, e, sc.values(st.NumResult())))
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, r.notFound(key)
	}
	return e, nil
}

// one reads at most one row into the targets targets(dst) gives.
func (r *Repo[T]) one(ctx context.Context, op string, q *adapter.Query, targets func([]any) []any) (bool, error) {
	return r.oneInto(ctx, op, q, targets(make([]any, 0, q.Statement.NumResult())))
}

// oneInto reads at most one row into dst.
func (r *Repo[T]) oneInto(ctx context.Context, op string, q *adapter.Query, dst []any) (bool, error) {
	table := q.Statement.TableName()
	octx, w := r.rt.observe(ctx, table, op, kandra.SingleStatement, q.Statement.CQL(), 1, q.Consistency, false)
	rows, err := r.rt.d.Query(octx, q)
	if err != nil {
		r.rt.observed(octx, w, table, op, 0, err)
		return false, queryErr(op+" on "+q.Statement.TableName()+" failed ("+q.Statement.CQL()+")", err)
	}
	found := rows.Next(dst)
	err = rows.Close()
	n := 0
	if found {
		n = 1
	}
	r.rt.observed(octx, w, table, op, n, err)
	if err != nil {
		return false, queryErr(op+" on "+q.Statement.TableName()+" failed ("+q.Statement.CQL()+")", err)
	}
	return found, nil
}

func (r *Repo[T]) deleted(e *T) bool {
	sd := r.ts.SoftDelete()
	if sd == nil || sd.Marker == nil {
		return false
	}
	p, _ := sd.Marker.Pointer(e)
	return *p.(*bool)
}

// List reads one page of the partition of partition's partition key (its
// other fields are ignored), in the table's clustering order or Reversed,
// optionally restricted to a prefix of the clustering key by Equal and
// bounded by From and To on the clustering column after it.
// Options: PageSize (default 100), After, Equal, From, To, Reversed,
// Columns, WithTimes, SkipDeleted, Consistency.
func (r *Repo[T]) List(ctx context.Context, partition *T, opts ...ListOption) *Iter[T] {
	const op = "List"
	it := &Iter[T]{}
	c := applyCall(opts)
	cons, _, err := r.enter(ctx, entry{op: op, kind: reads, takes: takesColumns | takesTimes}, &c, arg[T]{name: "partition", e: partition, key: r.partition})
	if err != nil {
		it.err = err
		return it
	}
	defer r.rt.leave()
	if it.err = r.checkRange(op, &c); it.err != nil {
		return it
	}
	if !c.hasPageSize {
		c.pageSize = defaultPageSize
	}
	st, err := r.project(op, r.st.SelectPartition(c.partitionRange()), &c)
	if err == nil {
		st, err = r.timed(op, st, &c)
	}
	if err != nil {
		it.err = err
		return it
	}
	var fp uint64
	if !c.cursor.IsZero() {
		fp = r.fingerprint(st, partition, &c)
		if !r.rt.resume(&c.cursor, fp) {
			it.err = r.argErr(op, "After", refusedCursor(c.cursor, "the cursor was made by another query (another table, partition, bounds or order); a cursor resumes only the List that returned it"))
			return it
		}
	}
	vals := r.partitionValues(st, partition, &c)
	it.rows, it.cursor, it.err = r.readPage(ctx, kandra.OpList, "list", st, vals, cons, &c, fp, func() uint64 { return r.fingerprint(st, partition, &c) })
	it.times = c.timesOut
	return it
}

// partitionRange is the shape of a partition SELECT with c's prefix,
// bounds and order.
func (c *call) partitionRange() catalog.Range {
	rng := catalog.Range{Prefix: len(c.prefix), Reversed: c.reversed, LowerN: len(c.lowerTuple), UpperN: len(c.upperTuple)}
	if c.lowerCol != nil {
		rng.Lower = c.lowerB
	}
	if c.upperCol != nil {
		rng.Upper = c.upperB
	}
	return rng
}

// partitionValues are the values of st, a SELECT (or COUNT) of
// partitionRange's shape: partition's key, c's prefix, bounds and limit.
func (r *Repo[T]) partitionValues(st *adapter.Statement, partition *T, c *call) []any {
	return r.partitionValuesIn(make([]any, 0, st.NumParams()), st, partition, c)
}

// partitionValuesIn is partitionValues appended to vals (a count's, in
// its scratch).
func (r *Repo[T]) partitionValuesIn(vals []any, st *adapter.Statement, partition *T, c *call) []any {
	vals = catalog.AppendColumns(r.t, st, partition, vals)
	for i := len(vals); i < st.NumParams(); i++ {
		if p := st.Param(i); p.Kind == adapter.ParamPrefix {
			vals = append(vals, c.prefix[i-len(r.partition)].v)
			continue
		}
		vals = appendParam(vals, st.Param(i), c, nil)
	}
	return vals
}

// readPage reads one page of st's rows (at most c.pageSize; with
// SkipDeleted, the live ones, fetching on until the page is full or the rows end) from
// c's cursor, skipping the row a partition of static values only returns
// (Statement.HasPresence). fp is the query's fingerprint, or 0 for fpOf
// to compute it when a cursor is made.
func (r *Repo[T]) readPage(ctx context.Context, op, what string, st *adapter.Statement, vals []any, cons kandra.Consistency, c *call, fp uint64, fpOf func() uint64) ([]*T, Cursor, error) {
	var out []*T
	state := c.cursor.state
	want := c.pageSize
	for {
		fetch := want - len(out)
		q := &adapter.Query{Statement: st, Values: vals, Consistency: cons, PageSize: fetch, PageState: state}
		octx, w := r.rt.observe(ctx, r.ts.Name(), op, kandra.SingleStatement, st.CQL(), 1, cons, false)
		rows, err := r.rt.d.Query(octx, q)
		if err != nil {
			r.rt.observed(octx, w, r.ts.Name(), op, 0, err)
			return out, Cursor{}, queryErr(what+" on "+r.ts.Name()+" failed", err)
		}
		dst := make([]any, 0, st.NumResult()+1)
		read := 0
		var present adapter.Present
		var times *rawTimes
		var timeDst []any
		if c.hasTimes {
			times = timeTargets(len(c.times))
			timeDst = times.targets()
		}
		var score float32
		if c.scores {
			timeDst = append(timeDst, &score)
		}
		for {
			e := new(T)
			dst = catalog.AppendResult(r.t, st, e, dst[:0])
			if st.HasPresence() {
				dst = append(dst, &present)
			}
			dst = append(dst, timeDst...)
			if !rows.Next(dst) {
				break
			}
			read++
			var ct []CellTime
			if times != nil {
				ct = times.cellTimes()
			}
			if st.HasPresence() && !bool(present) {
				continue // the static values of a partition without rows
			}
			if c.skipDeleted && r.deleted(e) {
				continue
			}
			out = append(out, e)
			if times != nil {
				c.timesOut = append(c.timesOut, ct)
			}
			if c.scores {
				c.scoresOut = append(c.scoresOut, score)
			}
		}
		state = rows.PageState() // before Close, which may give the rows back to the adapter
		err = rows.Close()
		r.rt.observed(octx, w, r.ts.Name(), op, read, err)
		if err != nil {
			return out, Cursor{}, queryErr(what+" on "+r.ts.Name()+" failed", err)
		}
		if len(state) == 0 || len(out) >= want || !c.skipDeleted {
			break
		}
		if err := ctx.Err(); err != nil {
			return out, Cursor{}, queryErr(what+" on "+r.ts.Name()+": context done", err)
		}
	}
	if len(state) == 0 {
		return out, Cursor{}, nil
	}
	if fp == 0 {
		fp = fpOf()
	}
	return out, r.rt.cursor(state, fp), nil
}
