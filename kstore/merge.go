package kstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"sync"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
)

// MaxMerged is the most partitions one ListMerged reads.
const MaxMerged = 256

// ListMerged reads several partitions of the table as one listing: their
// rows merged in the table's clustering order (or Reversed), a page of at
// most PageSize rows (default 100), and one cursor for all of them. It is
// the read of time buckets (the rows of buckets 0 to 9, newest first,
// limit N) that servers refuse to page as one query (a SELECT with IN and
// ORDER BY is not paged); each partition is read on its own, a page at a
// time, and merged here. Rows of equal clustering keys in two partitions
// come in the order of partitions.
//
// The partitions' other fields than their partition key are ignored; the
// same partition twice is a *kerrors.ArgumentError. Options: PageSize,
// After (the cursor of the same ListMerged), Equal, From, To, Reversed
// (applied to every partition, as List applies them), Columns,
// WithTimes, SkipDeleted, Consistency.
//
// Each page reads up to PageSize rows of each partition still in the
// listing (PageSize more past where the last page stopped in it), so a
// page costs one query per partition: merge a handful of buckets, not a
// table.
func (r *Repo[T]) ListMerged(ctx context.Context, partitions []*T, opts ...ListOption) *Iter[T] {
	const op = "ListMerged"
	it := &Iter[T]{}
	c := applyCall(opts)
	args := make([]arg[T], len(partitions))
	for i, p := range partitions {
		args[i] = arg[T]{name: "partitions[" + strconv.Itoa(i) + "]", e: p, key: r.partition}
	}
	cons, _, err := r.enter(ctx, entry{op: op, kind: reads, takes: takesColumns | takesTimes}, &c, args...)
	if err != nil {
		it.err = err
		return it
	}
	defer r.rt.leave()
	if len(partitions) == 0 || len(partitions) > MaxMerged {
		it.err = r.argErr(op, "partitions", fmt.Sprintf("%d partitions; ListMerged reads 1 to %d (MaxMerged)", len(partitions), MaxMerged))
		return it
	}
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
	m := &merge[T]{r: r, st: st, cons: cons, c: &c, parts: make([]mergePart[T], len(partitions)), order: r.ts.ClusteringKeys()}
	q := r.newPrint(st.CQL())
	seen := map[string]int{}
	for i, p := range partitions {
		var key []byte
		for _, col := range r.partition {
			ptr, _ := col.Pointer(p)
			q.add(col, ptr)
			key, _ = col.AppendStored(key, ptr)
		}
		if j, dup := seen[string(key)]; dup {
			it.err = r.argErr(op, "partitions", fmt.Sprintf("partitions[%d] is partitions[%d]'s partition again: its rows would be listed twice", i, j))
			return it
		}
		seen[string(key)] = i
		m.parts[i].vals = r.partitionValues(st, p, &c)
	}
	for _, p := range c.prefix {
		q.add(p.col, p.v)
	}
	q.addBounds(&c)
	fp := q.sum(r.rt)
	if !c.cursor.IsZero() {
		if !r.rt.resume(&c.cursor, fp) || !m.decode(c.cursor.state) {
			it.err = r.argErr(op, "After", refusedCursor(c.cursor, "the cursor was made by another query (another table, partitions, bounds or order); a cursor resumes only the ListMerged that returned it"))
			return it
		}
	}
	it.rows, it.err = m.page(ctx)
	it.times = c.timesOut
	if it.err == nil && !m.finished() {
		it.cursor = r.rt.cursor(m.encode(), fp)
	}
	return it
}

// merge is one page of a ListMerged.
type merge[T any] struct {
	r     *Repo[T]
	st    *adapter.Statement
	cons  kandra.Consistency
	c     *call
	parts []mergePart[T]
	order []*kandra.ColumnSchema // the clustering columns (less)
	err   error                  // of less: two rows it could not order
}

// mergePart is where one partition of a merge stands: the page it is
// reading (read from state, its rows from the server as they came), the
// rows of it already listed (pos), and the state of its next page.
type mergePart[T any] struct {
	vals  []any
	state []byte       // of the page being read (nil: the first)
	rows  []*T         // the page's rows; nil for a row that is no entity
	times [][]CellTime // with WithTimes, each row's
	pos   int          // rows listed (or skipped) of the page
	next  []byte
	read  bool // the page has been read
	done  bool // no rows left
}

func (m *merge[T]) finished() bool {
	for _, p := range m.parts {
		if !p.done {
			return false
		}
	}
	return true
}

// fetch reads the page of p at p.state, size rows, keeping p.pos.
func (m *merge[T]) fetch(ctx context.Context, p *mergePart[T], size int) error {
	r, st := m.r, m.st
	q := &adapter.Query{Statement: st, Values: p.vals, Consistency: m.cons, PageSize: min(size, MaxPageSize), PageState: p.state}
	octx, w := r.rt.observe(ctx, r.ts.Name(), kandra.OpList, kandra.SingleStatement, st.CQL(), 1, m.cons, false)
	rows, err := r.rt.d.Query(octx, q)
	if err != nil {
		r.rt.observed(octx, w, r.ts.Name(), kandra.OpList, 0, err)
		return queryErr("merged list on "+r.ts.Name()+" failed", err)
	}
	p.rows, p.times = p.rows[:0], p.times[:0]
	dst := make([]any, 0, st.NumResult()+1)
	var present adapter.Present
	var times *rawTimes
	var timeDst []any
	if m.c.hasTimes {
		times = timeTargets(len(m.c.times))
		timeDst = times.targets()
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
		if times != nil {
			p.times = append(p.times, times.cellTimes())
		}
		if st.HasPresence() && !bool(present) || m.c.skipDeleted && r.deleted(e) {
			e = nil // counted in the page's position, never listed
		}
		p.rows = append(p.rows, e)
	}
	p.next = append([]byte(nil), rows.PageState()...)
	err = rows.Close()
	r.rt.observed(octx, w, r.ts.Name(), kandra.OpList, len(p.rows), err)
	if err != nil {
		return queryErr("merged list on "+r.ts.Name()+" failed", err)
	}
	p.read = true
	return nil
}

// head is p's next row to list, reading its next page when the one it
// has is listed; nil when p has no rows left.
func (m *merge[T]) head(ctx context.Context, p *mergePart[T]) (*T, error) {
	for !p.done {
		if !p.read {
			if err := m.fetch(ctx, p, m.c.pageSize+p.pos); err != nil {
				return nil, err
			}
		}
		for p.pos < len(p.rows) && p.rows[p.pos] == nil {
			p.pos++
		}
		if p.pos < len(p.rows) {
			return p.rows[p.pos], nil
		}
		if len(p.next) == 0 {
			p.done = true
			break
		}
		p.state, p.next, p.pos, p.read = p.next, nil, 0, false
	}
	return nil, nil
}

// page lists up to pageSize rows, the least (in the listing's order) of
// every partition's head each time.
func (m *merge[T]) page(ctx context.Context) ([]*T, error) {
	// The first page of each partition, read at once: a merge of ten
	// buckets waits for one round trip, not ten.
	errs := make([]error, len(m.parts))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range m.parts {
		if p := &m.parts[i]; !p.done && !p.read {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				errs[i] = m.fetch(ctx, p, m.c.pageSize+p.pos)
				<-sem
			}()
		}
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	var out []*T
	for len(out) < m.c.pageSize {
		best := -1
		var bestRow *T
		for i := range m.parts {
			e, err := m.head(ctx, &m.parts[i])
			if err != nil {
				return out, err
			}
			if e != nil && (best < 0 || m.less(e, bestRow)) {
				best, bestRow = i, e
			}
		}
		if best < 0 {
			break
		}
		if m.err != nil {
			return nil, m.err
		}
		out = append(out, bestRow)
		if m.c.hasTimes {
			m.c.timesOut = append(m.c.timesOut, m.parts[best].times[m.parts[best].pos])
		}
		m.parts[best].pos++
	}
	// Settle each partition whose page is listed, without reading on: done
	// at the end of its last page, else its next page from the start.
	for i := range m.parts {
		p := &m.parts[i]
		for p.read && p.pos < len(p.rows) && p.rows[p.pos] == nil {
			p.pos++
		}
		if p.read && p.pos == len(p.rows) {
			if len(p.next) == 0 {
				p.done = true
			} else {
				p.state, p.next, p.pos, p.read = p.next, nil, 0, false
			}
		}
	}
	return out, nil
}

// less reports whether a comes before b in the listing: the table's
// clustering order, or its reverse.
func (m *merge[T]) less(a, b *T) bool {
	for _, col := range m.order {
		pa, _ := col.Pointer(a)
		pb, _ := col.Pointer(b)
		c, err := col.CompareStored(pa, pb)
		if err != nil && m.err == nil {
			// A type whose stored form kandra leaves to the driver: no
			// order to merge by, and a guess would list rows out of order.
			m.err = m.r.argErr("ListMerged", "partitions", "clustering column "+col.GoName()+" has no order kandra knows ("+err.Error()+"): read the partitions with List")
		}
		if c == 0 {
			continue
		}
		if col.ClusteringOrder() == kandra.ClusteringDesc {
			c = -c
		}
		if m.c.reversed {
			c = -c
		}
		return c < 0
	}
	return false
}

// encode is the cursor's state: each partition's page state and the
// rows of that page listed, or done.
func (m *merge[T]) encode() []byte {
	b := binary.AppendUvarint(nil, uint64(len(m.parts)))
	for _, p := range m.parts {
		if p.done {
			b = append(b, 1)
			continue
		}
		b = append(b, 0)
		b = binary.AppendUvarint(b, uint64(p.pos))
		b = binary.AppendUvarint(b, uint64(len(p.state)))
		b = append(b, p.state...)
	}
	return b
}

// decode reads encode's state into m; false when it is not one of m's.
func (m *merge[T]) decode(b []byte) bool {
	n, k := binary.Uvarint(b)
	if k <= 0 || n != uint64(len(m.parts)) {
		return false
	}
	b = b[k:]
	for i := range m.parts {
		if len(b) == 0 {
			return false
		}
		p := &m.parts[i]
		p.done, b = b[0] == 1, b[1:]
		if p.done {
			continue
		}
		pos, k1 := binary.Uvarint(b)
		if k1 <= 0 || pos > MaxPageSize {
			return false
		}
		l, k2 := binary.Uvarint(b[k1:])
		if k2 <= 0 || l > uint64(len(b)-k1-k2) {
			return false
		}
		p.pos = int(pos)
		if l > 0 {
			p.state = append([]byte(nil), b[k1+k2:k1+k2+int(l)]...)
		}
		b = b[k1+k2+int(l):]
	}
	return len(b) == 0
}
