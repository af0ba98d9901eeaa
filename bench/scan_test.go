package bench

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"reflect"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"

	gocqlv2 "github.com/apache/cassandra-gocql-driver/v2"
	gocql "github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kstore"
)

// The scan cells: kstore.Repo.Scan of a table of 10,000 rows against the
// token-range scan a careful engineer writes by hand on the same driver,
// on both adapters, with the matrix's method (measureCell: interleaved
// blocks, one P, the collector charged per byte; bench/README.md,
// "Method").
//
// Both read the same even cut of the ring (kstore.Ranges(16); by hand,
// the same 16 ranges computed as kstore cuts them), 4 ranges at a time
// (kstore.Concurrency(4); by hand, 4 goroutines taking the ranges in
// turn), 200 rows a page (kstore.PageSize(200)), with the same statement:
// cqlScan, bound with a range's two tokens. Each page is one Query of the
// driver on the matrix's wire (wire_test.go: the driver's own Query, its
// Marshal of the two tokens) and the page's rows unmarshalled, each into
// a new entity handed to a function that counts it (the entity is the
// callback's to keep, as Scan's contract says; so is the hand-written
// code's).
//
// The rows are C12L0's (12 columns), each in a partition of its own. The
// fake server (ringServer) gives each partition a token (an FNV-1a hash
// of its key, standing in for Murmur3: what matters is that the rows
// spread over the ranges), and serves a range's rows in token order,
// paged: a page state is the offset of the page's first row.
//
// TestScansAgree checks that each cell compares like with like; TestScans
// measures them (KANDRA_MATRIX=1):
//
//	go test -c -o /tmp/bench.test .
//	KANDRA_MATRIX=1 /tmp/bench.test -test.run '^TestScans$' -matrix.rounds 10 -scans.out /tmp/scans.md
//
// BenchmarkScans runs each contender alone, for profiles.

var scansOut = flag.String("scans.out", "", "TestScans: write the table (markdown) to this file")

// The scan cells' table and how it is read.
const (
	scanRows   = 10000
	scanRanges = 16  // kstore.Ranges: the even cut both contenders read
	scanConc   = 4   // kstore.Concurrency (its default)
	scanPage   = 200 // kstore.PageSize: 4 pages a range (616 to 632 rows)
)

// cqlScan is the hand-written statement of the scan cells: every column
// of C12L0, by token range (TestScansAgree checks that kandra sends the
// same).
const cqlScan = "SELECT part, seq, f0, f1, f2, f3, f4, f5, f6, f7, f8, f9 FROM app.c12l0 WHERE token(part) > ? AND token(part) <= ?"

// cqlCountAll is the hand-written count of one token range, the count-all
// cells' statement (TestCountsAgree checks that kandra sends the same).
const cqlCountAll = "SELECT COUNT(*) FROM app.c12l0 WHERE token(part) > ? AND token(part) <= ?"

// scanEntity is the i-th row of the scanned table: newC12L0(i) in a
// partition of its own.
func scanEntity(i int) *C12L0 {
	e := newC12L0(int64(i))
	binary.BigEndian.PutUint32(e.Part[10:14], uint32(i))
	return e
}

// scanToken is the token the fake server gives a partition key.
func scanToken(part uuid.UUID) int64 {
	h := fnv.New64a()
	h.Write(part[:])
	return int64(h.Sum64())
}

// ringServer is the fake server of the scan cells: the table's rows in
// token order, each as its column bytes.
type ringServer struct {
	cql    string
	tokens []int64      // sorted
	rows   [][][]byte   // rows[i] has tokens[i]
	want   []*C12L0     // the entities of rows, in the same order
	states [][]byte     // states[i] is the page state of a page from row i
	served atomic.Int64 // rows served, for TestScansAgree
	// counts is the answer to cqlCountAll for each range of the even cut
	// (evenCut(scanRanges)): one row, its count as a BIGINT.
	counts map[[2]int64][][][]byte
}

// newRingServer is the table of scanRows rows of wire w: rowOf is a row's
// values as the driver marshals them (the matrix's handOps.row), infos
// their types.
func newRingServer[I any](w *wire[I], rowOf func(*C12L0) []any, infos []I) (*ringServer, error) {
	type row struct {
		tok int64
		e   *C12L0
	}
	all := make([]row, scanRows)
	for i := range all {
		e := scanEntity(i)
		all[i] = row{scanToken(e.Part), e}
	}
	slices.SortFunc(all, func(a, b row) int { return cmpInt64(a.tok, b.tok) })
	g := &ringServer{cql: cqlScan}
	for i, r := range all {
		if i > 0 && r.tok == all[i-1].tok || r.tok == math.MinInt64 {
			return nil, fmt.Errorf("bench: scan row %d: token %d taken, or no token", i, r.tok)
		}
		vals := rowOf(r.e)
		cols := make([][]byte, len(vals))
		for j, v := range vals {
			b, err := w.marshal(infos[j], v)
			if err != nil {
				return nil, fmt.Errorf("bench: scan row %d, column %d: %w", i, j, err)
			}
			cols[j] = b
		}
		g.tokens, g.rows, g.want = append(g.tokens, r.tok), append(g.rows, cols), append(g.want, r.e)
		g.states = append(g.states, binary.BigEndian.AppendUint32(nil, uint32(i)))
	}
	g.counts = map[[2]int64][][][]byte{}
	for _, r := range evenCut(scanRanges) {
		lo := sort.Search(len(g.tokens), func(i int) bool { return g.tokens[i] > r[0] })
		hi := sort.Search(len(g.tokens), func(i int) bool { return g.tokens[i] > r[1] })
		b, err := w.marshal(w.bigint, int64(hi-lo))
		if err != nil {
			return nil, err
		}
		g.counts[r] = [][][]byte{{b}}
	}
	return g, nil
}

// count is the answer to cqlCountAll for range (start, end], which must
// be one of the even cut's.
func (g *ringServer) count(start, end int64) ([][][]byte, error) {
	row, ok := g.counts[[2]int64{start, end}]
	if !ok {
		return nil, fmt.Errorf("bench: a count of range (%d, %d], not one of the even cut's", start, end)
	}
	return row, nil
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// page is the page of range (start, end] from state (nil: the range's
// first row), at most size rows (size < 1: all), and the next page's
// state (nil: this is the last).
func (g *ringServer) page(start, end int64, size int, state []byte) ([][][]byte, []byte, error) {
	lo := sort.Search(len(g.tokens), func(i int) bool { return g.tokens[i] > start })
	hi := sort.Search(len(g.tokens), func(i int) bool { return g.tokens[i] > end })
	if len(state) > 0 {
		at := int(binary.BigEndian.Uint32(state))
		if len(state) != 4 || at < lo || at >= hi {
			return nil, nil, fmt.Errorf("bench: page state %x is not of range (%d, %d]", state, start, end)
		}
		lo = at
	}
	n := hi - lo
	if size > 0 {
		n = min(n, size)
	}
	var next []byte
	if lo+n < hi {
		next = g.states[lo+n]
	}
	g.served.Add(int64(n))
	return g.rows[lo : lo+n], next, nil
}

// scanQuery is one page a contender asked for, noted when recording: its
// range, its page size and state, its consistency.
type scanQuery struct {
	start, end int64
	size       int
	state      string
	cons       string
}

// scanLog is the pages a contender asked for while its marshaller
// records (in TestScansAgree only).
type scanLog struct {
	mu sync.Mutex
	qs []scanQuery
}

func (l *scanLog) add(q scanQuery) {
	l.mu.Lock()
	l.qs = append(l.qs, q)
	l.mu.Unlock()
}

// sorted is the pages asked for, in one order (the contenders read
// their ranges concurrently).
func (l *scanLog) sorted() []scanQuery {
	out := slices.Clone(l.qs)
	slices.SortFunc(out, func(a, b scanQuery) int {
		if c := cmpInt64(a.start, b.start); c != 0 {
			return c
		}
		return bytes.Compare([]byte(a.state), []byte(b.state))
	})
	return out
}

// scanDriver is the matrix's clientDriver with the token-range pages of
// its ringServer: a Query of cqlScan is bound and marshalled as every
// Query is (clientDriver.Query), and its rows are the page the server
// serves for its two tokens, page size and page state.
type scanDriver[I any] struct {
	*clientDriver[I]
	srv *ringServer
	log scanLog
}

// Query implements adapter.Driver.
func (d *scanDriver[I]) Query(ctx context.Context, q *adapter.Query) (adapter.Rows, error) {
	rows, err := d.clientDriver.Query(ctx, q)
	cql := q.Statement.CQL()
	if err != nil || cql != d.srv.cql && cql != cqlCountAll {
		return rows, err
	}
	start, ok1 := q.Values[0].(int64)
	end, ok2 := q.Values[1].(int64)
	if !ok1 || !ok2 {
		rows.Close()
		return nil, fmt.Errorf("bench: %s: tokens %T, %T", q.Statement, q.Values[0], q.Values[1])
	}
	var page [][][]byte
	var next []byte
	if cql == cqlCountAll {
		page, err = d.srv.count(start, end)
	} else {
		page, next, err = d.srv.page(start, end, q.PageSize, q.PageState)
	}
	if err != nil {
		rows.Close()
		return nil, err
	}
	if d.m.record != nil && cql == d.srv.cql {
		d.log.add(scanQuery{start, end, q.PageSize, fmt.Sprintf("%x", q.PageState), q.Consistency.String()})
	}
	r := rows.(*clientRows[I])
	r.rows, r.next = page, next
	return r, nil
}

// evenCut is the token ring, (MinInt64, MaxInt64], cut in n ranges of
// one width, the last to the ring's end: the hand-written code's ranges,
// which kstore.Ranges(n) reads too.
func evenCut(n int) [][2]int64 {
	w := uint64(math.MaxUint64) / uint64(n)
	out := make([][2]int64, n)
	start := int64(math.MinInt64)
	for i := range out {
		end := int64(uint64(start) + w) // from negative to positive on the way
		if i == n-1 {
			end = math.MaxInt64
		}
		out[i] = [2]int64{start, end}
		start = end
	}
	return out
}

// scanHand is the hand-written token-range scan on one driver: the ring
// cut evenly, scanConc goroutines taking the ranges in turn, each range
// read page after page (one Query of the driver each, bound with its two
// tokens), each row scanned by row into a new entity and handed to each.
type scanHand[I any] struct {
	m      *marshaller[I]
	srv    *ringServer
	tokens []I // the markers': BIGINT
	result []I // the columns'
	count  []I // a count's: BIGINT
	row    func(m *marshaller[I], result []I, row [][]byte) (*C12L0, error)
	log    scanLog
}

func (h *scanHand[I]) scan(ctx context.Context, each func(*C12L0) error) error {
	return eachRange(ctx, func(ctx context.Context, r [2]int64) error { return h.scanRange(ctx, r, each) })
}

// countAll is the hand-written count of the table: each range counted by
// the server (one Query of cqlCountAll, bound with its two tokens, its
// one row scanned into an int64), the counts summed.
func (h *scanHand[I]) countAll(ctx context.Context) (int64, error) {
	var total atomic.Int64
	err := eachRange(ctx, func(_ context.Context, r [2]int64) error {
		n, err := h.countRange(r)
		total.Add(n)
		return err
	})
	return total.Load(), err
}

// eachRange is the hand-written code's walk of the ring: cut evenly,
// scanConc goroutines taking the ranges in turn, the first error stopping
// the others.
func eachRange(ctx context.Context, do func(context.Context, [2]int64) error) error {
	ranges := evenCut(scanRanges)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for range scanConc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(ranges) {
					return
				}
				if err := do(ctx, ranges[i]); err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// countRange is the count of range r, as the server answers it.
func (h *scanHand[I]) countRange(r [2]int64) (int64, error) {
	if err := h.m.exec(cqlCountAll, h.tokens, []any{r[0], r[1]}); err != nil {
		return 0, err
	}
	rows, err := h.srv.count(r[0], r[1])
	if err != nil {
		return 0, err
	}
	var n int64
	err = unmarshalRow(h.m.w, h.count, rows[0], []any{&n})
	return n, err
}

// scanRange reads range r: its pages in turn, as the driver's iterator
// does with a page size (gocql's automatic paging sends a Query a page
// too).
func (h *scanHand[I]) scanRange(ctx context.Context, r [2]int64, each func(*C12L0) error) error {
	var state []byte
	for {
		if err := h.m.exec(cqlScan, h.tokens, []any{r[0], r[1]}); err != nil {
			return err
		}
		rows, next, err := h.srv.page(r[0], r[1], scanPage, state)
		if err != nil {
			return err
		}
		if h.m.record != nil {
			h.log.add(scanQuery{r[0], r[1], scanPage, fmt.Sprintf("%x", state), kandra.ConsistencyLocalQuorum.String()})
		}
		for _, row := range rows {
			e, err := h.row(h.m, h.result, row)
			if err != nil {
				return err
			}
			if err := each(e); err != nil {
				return err
			}
		}
		if len(next) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		state = next
	}
}

// scanRowGocql is a row of cqlScan scanned on gocql, as iter.Scan does it:
// into the fields, through gocql.UUID temporaries for the uuid.UUID ones
// (the matrix's hand-written List of C12L0).
func scanRowGocql(m *marshaller[gocql.TypeInfo], result []gocql.TypeInfo, row [][]byte) (*C12L0, error) {
	e := new(C12L0)
	var uPart, uF1 gocql.UUID
	if err := unmarshalRow(m.w, result, row, []any{&uPart, &e.Seq, &e.F0, &uF1, &e.F2, &e.F3, &e.F4, &e.F5, &e.F6, &e.F7, &e.F8, &e.F9}); err != nil {
		return nil, err
	}
	e.Part, e.F1 = uuid.UUID(uPart), uuid.UUID(uF1)
	return e, nil
}

// scanRowV2 is scanRowGocql on the Apache driver v2.
func scanRowV2(m *marshaller[gocqlv2.TypeInfo], result []gocqlv2.TypeInfo, row [][]byte) (*C12L0, error) {
	e := new(C12L0)
	var uPart, uF1 gocqlv2.UUID
	if err := unmarshalRow(m.w, result, row, []any{&uPart, &e.Seq, &e.F0, &uF1, &e.F2, &e.F3, &e.F4, &e.F5, &e.F6, &e.F7, &e.F8, &e.F9}); err != nil {
		return nil, err
	}
	e.Part, e.F1 = uuid.UUID(uPart), uuid.UUID(uF1)
	return e, nil
}

// scanned checks what a scan of the table handed on: every row, once.
func scanned(rows int64, err error) error {
	if err == nil && rows != scanRows {
		err = fmt.Errorf("scanned %d rows, want %d", rows, scanRows)
	}
	return err
}

// scanRig is what the scan and count-all cells of one wire stand on:
// the driver and its ring server, kandra's Repo, the hand-written code.
func scanRig[I any](w *wire[I], rowOf func(*C12L0) []any, row func(*marshaller[I], []I, [][]byte) (*C12L0, error)) (*scanDriver[I], *wrig[C12L0], *scanHand[I], error) {
	d := &scanDriver[I]{clientDriver: newClientDriver(w)}
	k, err := wrigOf(d, kandra.Register[C12L0])
	if err != nil {
		return nil, nil, nil, err
	}
	result, err := w.infos(k.table.Schema().Columns())
	if err != nil {
		return nil, nil, nil, err
	}
	if d.srv, err = newRingServer(w, rowOf, result); err != nil {
		return nil, nil, nil, err
	}
	hm := &marshaller[I]{w: w}
	h := &scanHand[I]{m: hm, srv: d.srv, tokens: []I{w.bigint, w.bigint}, result: result, count: []I{w.bigint}, row: row}
	return d, k, h, nil
}

// scanCell is the scan cell on wire w: rowOf and row are the driver's
// row of an entity and its scan (the hand-written code's).
func scanCell[I any](w *wire[I], rowOf func(*C12L0) []any, row func(*marshaller[I], []I, [][]byte) (*C12L0, error)) (*cell, error) {
	d, k, h, err := scanRig(w, rowOf, row)
	if err != nil {
		return nil, err
	}
	hm := h.m
	ctx := context.Background()
	opts := []kstore.ScanOption{kstore.Ranges(scanRanges), kstore.Concurrency(scanConc), kstore.PageSize(scanPage)}
	kscan := func(each func(*C12L0) error) (kstore.ScanResult, error) {
		return k.repo.Scan(ctx, each, opts...)
	}
	kop := func() error {
		var n atomic.Int64
		_, err := kscan(func(*C12L0) error { n.Add(1); return nil })
		return scanned(n.Load(), err)
	}
	hop := func() error {
		var n atomic.Int64
		err := h.scan(ctx, func(*C12L0) error { n.Add(1); return nil })
		return scanned(n.Load(), err)
	}
	c := newCell(cellDef[I]{adapter: w.name, shape: "C12L0", op: fmt.Sprintf("scan-%d", scanRows), target: 1.1,
		d: d.clientDriver, open: k.open, close: k.close, kop: kop, hm: hm, hand: &hand[I]{}, hop: hop})
	c.agree = func() error { return scanAgree(d, h, k, kscan) }
	return c, nil
}

// collect is a Scan's each that keeps every entity handed on.
func collect(mu *sync.Mutex, dst *[]*C12L0) func(*C12L0) error {
	return func(e *C12L0) error {
		mu.Lock()
		*dst = append(*dst, e)
		mu.Unlock()
		return nil
	}
}

// scanAgree checks that the scan cell compares like with like: kandra's
// Scan and the hand-written scan send the same statement text with the
// same bytes (the same ranges' tokens, page by page), ask for the same
// pages (range, page size, page state) at the same consistency, and hand
// on the same entities, every row of the table once.
func scanAgree[I any](d *scanDriver[I], h *scanHand[I], k *wrig[C12L0], kscan func(func(*C12L0) error) (kstore.ScanResult, error)) error {
	var mu sync.Mutex
	var kGot, hGot []*C12L0

	d.m.record, d.log.qs = map[string][][][]byte{}, nil
	d.srv.served.Store(0)
	err := k.open()
	var res kstore.ScanResult
	if err == nil {
		res, err = kscan(collect(&mu, &kGot))
		err = errors.Join(err, k.close())
	}
	kRec, kServed := d.m.record, d.srv.served.Load()
	d.m.record = nil
	if err != nil {
		return fmt.Errorf("kandra: %w", err)
	}
	if res.Ranges != scanRanges || res.Ring != "even" || res.Rows != scanRows || !res.Position.Done() {
		return fmt.Errorf("kandra's Scan: %d ranges (%s), %d rows, done %v; want %d even ranges, %d rows, done",
			res.Ranges, res.Ring, res.Rows, res.Position.Done(), scanRanges, scanRows)
	}

	h.m.record, h.log.qs = map[string][][][]byte{}, nil
	d.srv.served.Store(0)
	err = h.scan(context.Background(), collect(&mu, &hGot))
	hRec, hServed := h.m.record, d.srv.served.Load()
	h.m.record = nil
	if err != nil {
		return fmt.Errorf("hand-written: %w", err)
	}

	if err := sameRows(kRec, hRec); err != nil {
		return err
	}
	if len(kRec) != 1 || len(kRec[cqlScan]) == 0 {
		return fmt.Errorf("kandra sent %d statements, want %q alone", len(kRec), cqlScan)
	}
	kq, hq := d.log.sorted(), h.log.sorted()
	if !reflect.DeepEqual(kq, hq) {
		return fmt.Errorf("the contenders ask for different pages:\nkandra: %v\nhand-written: %v", kq, hq)
	}
	later := 0
	for _, q := range kq {
		if q.state != "" {
			later++
		}
	}
	if later == 0 || len(kq) != len(kRec[cqlScan]) {
		return fmt.Errorf("%d pages of %d queries past a range's first: the cell does not page", later, len(kq))
	}
	if kServed != scanRows || hServed != scanRows {
		return fmt.Errorf("the server served %d rows to kandra, %d to the hand-written code; want %d each", kServed, hServed, scanRows)
	}
	byKey := func(s []*C12L0) {
		slices.SortFunc(s, func(a, b *C12L0) int { return bytes.Compare(a.Part[:], b.Part[:]) })
	}
	want := slices.Clone(d.srv.want)
	byKey(kGot)
	byKey(hGot)
	byKey(want)
	return sameAs(kGot, hGot, want)
}

// sameRows checks that two contenders marshalled the same statements to
// the same bytes, in any order (the scans read their ranges
// concurrently).
func sameRows(k, h map[string][][][]byte) error {
	sorted := func(rec map[string][][][]byte) map[string][]string {
		out := map[string][]string{}
		for cql, rows := range rec {
			for _, row := range rows {
				out[cql] = append(out[cql], fmt.Sprintf("%x", row))
			}
			slices.Sort(out[cql])
		}
		return out
	}
	if ks, hs := sorted(k), sorted(h); !reflect.DeepEqual(ks, hs) {
		return fmt.Errorf("the contenders marshal different statements or values:\nkandra: %v\nhand-written: %v", ks, hs)
	}
	return nil
}

// scanCells is the scan cells of both adapters.
func scanCells() ([]*cell, error) {
	a, err := scanCell(gocqlWire, handGocql.c12L0.row, scanRowGocql)
	if err != nil {
		return nil, fmt.Errorf("kgocql: %w", err)
	}
	b, err := scanCell(v2Wire, handV2.c12L0.row, scanRowV2)
	if err != nil {
		return nil, fmt.Errorf("kgocqlv2: %w", err)
	}
	return []*cell{a, b}, nil
}

// countAllCell is the count-all cell on wire w: kandra's CountAll of the
// scan cells' table against the hand-written count of each range of the
// same even cut (scanHand.countAll), summed.
func countAllCell[I any](w *wire[I], rowOf func(*C12L0) []any, row func(*marshaller[I], []I, [][]byte) (*C12L0, error)) (*cell, error) {
	d, k, h, err := scanRig(w, rowOf, row)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	var kGot, hGot int64
	kop := func() (err error) {
		kGot, err = k.repo.CountAll(ctx, kstore.Ranges(scanRanges), kstore.Concurrency(scanConc))
		return err
	}
	hop := func() (err error) { hGot, err = h.countAll(ctx); return err }
	c := newCell(cellDef[I]{adapter: w.name, shape: "C12L0", op: fmt.Sprintf("count-all-%d", scanRows), target: 1.1,
		d: d.clientDriver, open: k.open, close: k.close, kop: kop, hm: h.m, hand: &hand[I]{}, hop: hop,
		check: func() error { return sameAs(kGot, hGot, int64(scanRows)) }})
	c.agree = func() error { return countAllAgree(d, h, k, c, &kGot, &hGot) }
	return c, nil
}

// countAllAgree checks that the count-all cell compares like with like:
// kandra's CountAll and the hand-written count send cqlCountAll alone,
// once per range of the even cut, with the same bytes (the ranges'
// tokens), and both count every row of the table.
func countAllAgree[I any](d *scanDriver[I], h *scanHand[I], k *wrig[C12L0], c *cell, kGot, hGot *int64) error {
	d.m.record = map[string][][][]byte{}
	err := k.open()
	if err == nil {
		*kGot, err = k.repo.CountAll(context.Background(), kstore.Ranges(scanRanges), kstore.Concurrency(scanConc))
		err = errors.Join(err, k.close())
	}
	kRec := d.m.record
	d.m.record = nil
	if err != nil {
		return fmt.Errorf("kandra: %w", err)
	}
	h.m.record = map[string][][][]byte{}
	*hGot, err = h.countAll(context.Background())
	hRec := h.m.record
	h.m.record = nil
	if err != nil {
		return fmt.Errorf("hand-written: %w", err)
	}
	if err := sameRows(kRec, hRec); err != nil {
		return err
	}
	if len(kRec) != 1 || len(kRec[cqlCountAll]) != scanRanges {
		return fmt.Errorf("kandra sent %d statements, %d of %q; want that one alone, once per range (%d)", len(kRec), len(kRec[cqlCountAll]), cqlCountAll, scanRanges)
	}
	return sameAs(*kGot, *hGot, int64(scanRows))
}

// TestScansAgree checks that every scan cell compares like with like
// (scanAgree), and that the hand-written cut is the one kstore.Ranges
// reads (the tokens both bind are compared there too).
func TestScansAgree(t *testing.T) {
	cells, err := scanCells()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cells {
		if err := c.agree(); err != nil {
			t.Errorf("%s: %v", c.name(), err)
		}
	}
	cut := evenCut(scanRanges)
	if cut[0][0] != math.MinInt64 || cut[len(cut)-1][1] != math.MaxInt64 {
		t.Errorf("the cut %v does not cover the ring", cut)
	}
	for i := 1; i < len(cut); i++ {
		if cut[i][0] != cut[i-1][1] || cut[i][1] <= cut[i][0] {
			t.Errorf("ranges %d and %d: %v, %v", i-1, i, cut[i-1], cut[i])
		}
	}
}

// TestScans measures the scan cells with the matrix's method
// (KANDRA_MATRIX=1; -matrix.rounds, -matrix.block and -matrix.run as for
// TestMatrix), one line per cell, and with -scans.out the markdown table.
// The time is per scan of the table (10,000 rows).
func TestScans(t *testing.T) {
	measureTable(t, "scan", scanCells, *scansOut)
}

// BenchmarkScans runs every scan cell's contenders as the testing
// package's benchmarks (BenchmarkScans/<adapter>/C12L0/scan-10000/<contender>),
// at GOMAXPROCS=1, for profiles; the figures to publish are TestScans'.
func BenchmarkScans(b *testing.B) {
	cells, err := scanCells()
	if err != nil {
		b.Fatal(err)
	}
	benchCells(b, cells)
}
