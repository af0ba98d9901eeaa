// Package tokenscan is the one engine of every whole-table read: the
// runtime's Repo.Scan and CountAll, and the migrator's backfill. It cuts
// the Murmur3 token ring into ranges where the live ring is cut (each
// node's vnode tokens, or ScyllaDB's tablets), runs the ranges at a
// bounded concurrency, carries each range's paging state so a run resumes
// where it stopped, and measures progress. What a page's rows mean is the
// caller's: the engine only says which range and page state to read next.
package tokenscan

import (
	"context"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/kandra-go/kandra"
)

// Range is (Start, End] of the Murmur3 ring. MinInt64 is no token (the
// partitioner maps it to MaxInt64), so a range starting there loses
// nothing.
type Range struct{ Start, End int64 }

// width is the number of tokens in r.
func (r Range) width() uint64 { return uint64(r.End) - uint64(r.Start) }

// Even cuts the whole ring, (MinInt64, MaxInt64], into n contiguous ranges
// of near-equal width (n < 1 is 1).
func Even(n int) []Range {
	if n < 1 {
		n = 1
	}
	return cut(Range{math.MinInt64, math.MaxInt64}, n, nil)
}

// cut appends to dst r cut in n pieces of near-equal width.
func cut(r Range, n int, dst []Range) []Range {
	w := r.width() / uint64(n)
	if w == 0 {
		w, n = 1, int(r.width())
	}
	start := r.Start
	for i := 0; i < n; i++ {
		end := int64(uint64(start) + w) // wraps from negative to positive on purpose
		if i == n-1 {
			end = r.End
		}
		dst = append(dst, Range{start, end})
		start = end
	}
	return dst
}

// Cut cuts the whole ring at each of tokens (the ring's own boundaries:
// a range then lives on one set of replicas), and cuts the widest pieces
// again until there are at least min (for the concurrency to have work).
// No tokens is Even(min).
func Cut(tokens []int64, min int) []Range {
	ts := slices.Clone(tokens)
	slices.Sort(ts)
	ts = slices.Compact(ts)
	ts = slices.DeleteFunc(ts, func(t int64) bool { return t == math.MinInt64 || t == math.MaxInt64 })
	if len(ts) == 0 {
		return Even(min)
	}
	out := make([]Range, 0, len(ts)+1)
	start := int64(math.MinInt64)
	for _, t := range ts {
		out = append(out, Range{start, t})
		start = t
	}
	out = append(out, Range{start, math.MaxInt64})
	if len(out) >= min {
		return out
	}
	// Cut each piece in proportion to its width, so the pieces stay near
	// one width; every piece is cut at least once in one.
	total := float64(math.MaxUint64)
	var more []Range
	for _, r := range out {
		n := int(math.Ceil(float64(min) * float64(r.width()) / total))
		more = cut(r, max(n, 1), more)
	}
	return more
}

// Minus is rs without the tokens of done: the ranges left to read when
// done were read before (by an earlier run, with another cut of the
// ring). It keeps rs's order.
func Minus(rs, done []Range) []Range {
	if len(done) == 0 {
		return slices.Clone(rs)
	}
	d := slices.Clone(done)
	slices.SortFunc(d, func(a, b Range) int {
		switch {
		case a.Start < b.Start:
			return -1
		case a.Start > b.Start:
			return 1
		}
		return 0
	})
	var out []Range
	for _, r := range rs {
		start := r.Start
		for _, x := range d {
			if x.End <= start || x.Start >= r.End {
				continue
			}
			if x.Start > start {
				out = append(out, Range{start, x.Start})
			}
			start = max(start, x.End)
			if start >= r.End {
				break
			}
		}
		if start < r.End {
			out = append(out, Range{start, r.End})
		}
	}
	return out
}

// Querier reads system tables: adapter.Driver's QueryCQL.
type Querier interface {
	QueryCQL(ctx context.Context, stmt string, values []any, c kandra.Consistency) ([]map[string]any, error)
}

// Ring names where a cut of the ring came from, for progress reports.
type Ring string

const (
	// RingTablets is ScyllaDB's tablets of the table.
	RingTablets Ring = "tablets"
	// RingVnodes is the vnode tokens of the nodes the session sees.
	RingVnodes Ring = "vnodes"
	// RingEven is an even cut: the ring could not be read, or a count was
	// asked for.
	RingEven Ring = "even"
)

// Live reads the boundaries of keyspace.table's token ranges: the last
// token of each of its tablets on ScyllaDB with tablets, else the vnode
// tokens of the nodes system.local and system.peers list. The two tables
// may be read on two coordinators, so a node's tokens can be missing:
// the cut then has fewer boundaries, never a gap (Cut covers the ring
// whatever it is given). An error reading the vnodes is returned; the
// tablets table missing (Cassandra) is not an error.
func Live(ctx context.Context, q Querier, keyspace, table string) ([]int64, Ring, error) {
	if toks := tablets(ctx, q, keyspace, table); len(toks) > 0 {
		return toks, RingTablets, nil
	}
	var toks []int64
	for _, stmt := range []string{"SELECT tokens FROM system.local", "SELECT tokens FROM system.peers"} {
		rows, err := q.QueryCQL(ctx, stmt, nil, kandra.ConsistencyOne)
		if err != nil {
			return nil, RingEven, err
		}
		for _, row := range rows {
			toks = appendTokens(toks, row["tokens"])
		}
	}
	return toks, RingVnodes, nil
}

// Plan is the cut of keyspace.table's ring a run reads: Even(n) when n
// is set, else the live ring's (Live) cut into at least min pieces; when
// the ring cannot be read, Even(min).
func Plan(ctx context.Context, q Querier, keyspace, table string, n, min int) ([]Range, Ring) {
	if n > 0 {
		return Even(n), RingEven
	}
	toks, ring, err := Live(ctx, q, keyspace, table)
	if err != nil || len(toks) == 0 {
		return Even(min), RingEven
	}
	return Cut(toks, min), ring
}

// tablets reads the last token of each tablet of keyspace.table on
// ScyllaDB (system.tablets, keyed by the table's id); nothing elsewhere.
func tablets(ctx context.Context, q Querier, keyspace, table string) []int64 {
	ids, err := q.QueryCQL(ctx, "SELECT id FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", []any{keyspace, table}, kandra.ConsistencyOne)
	if err != nil || len(ids) == 0 || ids[0]["id"] == nil {
		return nil
	}
	rows, err := q.QueryCQL(ctx, "SELECT last_token FROM system.tablets WHERE table_id = ?", []any{ids[0]["id"]}, kandra.ConsistencyOne)
	if err != nil {
		return nil
	}
	var out []int64
	for _, row := range rows {
		if t, ok := row["last_token"].(int64); ok {
			out = append(out, t)
		}
	}
	return out
}

// appendTokens appends the tokens of a set<text> column as a driver
// returns it.
func appendTokens(dst []int64, v any) []int64 {
	add := func(s string) {
		if t, err := strconv.ParseInt(s, 10, 64); err == nil {
			dst = append(dst, t)
		}
	}
	switch v := v.(type) {
	case []string:
		for _, s := range v {
			add(s)
		}
	case []any:
		for _, s := range v {
			if s, ok := s.(string); ok {
				add(s)
			}
		}
	case map[string]struct{}:
		for s := range v {
			add(s)
		}
	}
	return dst
}

// Piece is where one range of a run stands: its range, the paging state
// of its next page (nil: from the start), and whether it is done.
type Piece struct {
	Range
	State []byte
	Done  bool
}

// Pieces are the pieces of rs, none started.
func Pieces(rs []Range) []Piece {
	out := make([]Piece, len(rs))
	for i, r := range rs {
		out[i] = Piece{Range: r}
	}
	return out
}

// PageFunc reads one page of range r from paging state state (nil: the
// range's first page) and hands its rows on; it returns the next page's
// state (empty: the range is done) and the rows it read.
type PageFunc func(ctx context.Context, r Range, state []byte) (next []byte, rows int64, err error)

// Run reads every piece not done, at most conc at a time, page after page
// through page, and after each page calls after (one call at a time, in
// no order across pieces) with the piece's index, where it now stands,
// and the page's rows. The first error (of page or of ctx) stops the
// others and is returned; the pieces keep where each stood. Run changes
// pieces in place, under the same lock as after.
//
// Up to conc goroutines take the pieces in turn, in order. A goroutine per
// piece started a goroutine, and grew its stack, for every range: for a
// count, one short query a range, that cost more than the queries on a
// driver that answers at once (bench's count-all cells).
func Run(ctx context.Context, pieces []Piece, conc int, page PageFunc, after func(i int, p Piece, rows int64)) error {
	todo := 0
	for _, p := range pieces {
		if !p.Done {
			todo++
		}
	}
	conc = max(min(conc, todo), 1)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		mu    sync.Mutex
		wg    sync.WaitGroup
		once  sync.Once
		first error
		next  int // the next piece to take, under mu
	)
	// take is the next piece not done, or -1 when none is left or ctx
	// is done.
	take := func() (int, Piece) {
		mu.Lock()
		defer mu.Unlock()
		for next < len(pieces) && ctx.Err() == nil {
			i := next
			next++
			if !pieces[i].Done {
				return i, pieces[i]
			}
		}
		return -1, Piece{}
	}
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, p := take()
				if i < 0 {
					return
				}
				for !p.Done {
					if ctx.Err() != nil {
						return
					}
					state, n, err := page(ctx, p.Range, p.State)
					if err != nil {
						once.Do(func() { first = err; cancel(err) })
						return
					}
					p.State, p.Done = state, len(state) == 0
					mu.Lock()
					pieces[i] = p
					if after != nil {
						after(i, p, n)
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return context.Cause(ctx)
}

// Meter measures a run's progress: its rows and finished ranges since it
// started, and the time left at the rate of the ranges finished in it.
type Meter struct {
	start      time.Time
	total      int
	done, mine int // ranges finished before and in this run; mine of them in this run
	rows       int64
}

// NewMeter starts measuring a run of total ranges, done of them finished
// before it started.
func NewMeter(total, done int) *Meter {
	return &Meter{start: time.Now(), total: total, done: done}
}

// Add counts a page of rows and, if finished, its range.
func (m *Meter) Add(rows int64, finished bool) {
	m.rows += rows
	if finished {
		m.done++
		m.mine++
	}
}

// Reading is one reading of a Meter.
type Reading struct {
	Rows               int64
	RangesDone, Ranges int
	Elapsed, Remaining time.Duration
	RowsPerSecond      float64
}

// Read reads the meter now.
func (m *Meter) Read() Reading {
	el := time.Since(m.start)
	r := Reading{Rows: m.rows, RangesDone: m.done, Ranges: m.total, Elapsed: el}
	if s := el.Seconds(); s > 0 {
		r.RowsPerSecond = float64(m.rows) / s
	}
	if m.mine > 0 {
		r.Remaining = time.Duration(float64(el) * float64(m.total-m.done) / float64(m.mine))
	}
	return r
}
