package tokenscan

import (
	"context"
	"errors"
	"math"
	"math/big"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kandra-go/kandra"
	"pgregory.net/rapid"
)

// covers fails t unless rs are contiguous, non-empty and cover the whole
// ring, (MinInt64, MaxInt64], so that a token is in exactly one of them.
func covers(t interface{ Fatalf(string, ...any) }, rs []Range) {
	if len(rs) == 0 || rs[0].Start != math.MinInt64 || rs[len(rs)-1].End != math.MaxInt64 {
		t.Fatalf("ring not covered: %v", rs)
	}
	for i, r := range rs {
		if r.End <= r.Start {
			t.Fatalf("range %d is empty or reversed: %+v", i, r)
		}
		if i > 0 && r.Start != rs[i-1].End {
			t.Fatalf("range %d starts at %d, range %d ended at %d", i, r.Start, i-1, rs[i-1].End)
		}
	}
}

// in counts the ranges of rs holding tok.
func in(rs []Range, tok int64) int {
	n := 0
	for _, r := range rs {
		if tok > r.Start && tok <= r.End {
			n++
		}
	}
	return n
}

// Even covers the ring with n ranges whose widths differ by at most n
// (the remainder of the cut).
func TestPropertyEven(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(-2, 5000).Draw(t, "n")
		rs := Even(n)
		if want := max(n, 1); len(rs) != want {
			t.Fatalf("%d ranges, want %d", len(rs), want)
		}
		covers(t, rs)
		var lo, hi *big.Int
		for _, r := range rs {
			w := new(big.Int).Sub(big.NewInt(r.End), big.NewInt(r.Start))
			if lo == nil || w.Cmp(lo) < 0 {
				lo = w
			}
			if hi == nil || w.Cmp(hi) > 0 {
				hi = w
			}
		}
		if d := new(big.Int).Sub(hi, lo); d.Cmp(big.NewInt(int64(len(rs)))) > 0 {
			t.Fatalf("widths differ by %s over %d ranges", d, len(rs))
		}
	})
}

// Cut covers the ring, ends a range at every token given (the live ring's
// boundaries), and makes at least min ranges.
func TestPropertyCut(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		toks := rapid.SliceOfN(rapid.Int64(), 0, 300).Draw(t, "tokens")
		min := rapid.IntRange(1, 64).Draw(t, "min")
		rs := Cut(toks, min)
		covers(t, rs)
		if len(rs) < min {
			t.Fatalf("%d ranges, want at least %d", len(rs), min)
		}
		for _, tok := range toks {
			if tok == math.MinInt64 || tok == math.MaxInt64 {
				continue
			}
			if !slices.ContainsFunc(rs, func(r Range) bool { return r.End == tok }) {
				t.Fatalf("no range ends at token %d", tok)
			}
		}
		tok := rapid.Int64Range(math.MinInt64+1, math.MaxInt64).Draw(t, "token")
		if in(rs, tok) != 1 {
			t.Fatalf("token %d is in %d ranges", tok, in(rs, tok))
		}
	})
}

// Minus leaves exactly the tokens of rs that are in none of done, whatever
// cut done came from.
func TestPropertyMinus(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rs := Cut(rapid.SliceOfN(rapid.Int64(), 0, 20).Draw(t, "ring"), rapid.IntRange(1, 8).Draw(t, "min"))
		other := Cut(rapid.SliceOfN(rapid.Int64(), 0, 20).Draw(t, "other"), 1)
		var done []Range
		for _, r := range other {
			if rapid.Bool().Draw(t, "done") {
				done = append(done, r)
			}
		}
		left := Minus(rs, done)
		for i, r := range left {
			if r.End <= r.Start {
				t.Fatalf("left range %d is empty: %+v", i, r)
			}
		}
		// Every boundary, and a token each side of it, is where it belongs.
		var probes []int64
		for _, r := range append(append(slices.Clone(rs), done...), left...) {
			for _, b := range []int64{r.Start, r.End} {
				for _, d := range []int64{-1, 0, 1} {
					if p := b + d; p != math.MinInt64 && (d <= 0 || b != math.MaxInt64) && (d >= 0 || b != math.MinInt64) {
						probes = append(probes, p)
					}
				}
			}
		}
		probes = append(probes, rapid.Int64Range(math.MinInt64+1, math.MaxInt64).Draw(t, "token"))
		for _, p := range probes {
			want := 0
			if in(done, p) == 0 {
				want = 1
			}
			if got := in(left, p); got != want {
				t.Fatalf("token %d: in %d ranges left, want %d (done %v, left %v)", p, got, want, done, left)
			}
		}
	})
}

// Run reads every piece page by page, reports each page once, and the
// first error stops it with the pieces where they stood; a second Run on
// the same pieces reads only what was left.
func TestRunResumesWhereItStopped(t *testing.T) {
	pieces := Pieces(Even(20))
	const pages = 3 // every range has three pages
	boom := errors.New("boom")
	var mu sync.Mutex
	read := map[Range]int{}
	var calls atomic.Int64
	page := func(fail bool) PageFunc {
		return func(ctx context.Context, r Range, state []byte) ([]byte, int64, error) {
			if fail && calls.Add(1) == 25 {
				return nil, 0, boom
			}
			mu.Lock()
			defer mu.Unlock()
			want := byte(read[r])
			if (len(state) == 0) != (want == 0) || len(state) > 0 && state[0] != want {
				t.Errorf("range %v read from state %v, its next page is %d", r, state, want)
			}
			read[r]++
			if read[r] == pages {
				return nil, 10, nil
			}
			return []byte{byte(read[r])}, 10, nil
		}
	}
	var rows int64
	after := func(i int, p Piece, n int64) { rows += n }
	if err := Run(context.Background(), pieces, 3, page(true), after); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if rows >= 20*pages*10 {
		t.Fatalf("the failed run read %d rows, all of them", rows)
	}
	if err := Run(context.Background(), pieces, 3, page(false), after); err != nil {
		t.Fatal(err)
	}
	if rows != 20*pages*10 {
		t.Fatalf("%d rows over the two runs, want %d: a page read twice or never", rows, 20*pages*10)
	}
	for _, p := range pieces {
		if !p.Done || read[p.Range] != pages {
			t.Fatalf("piece %+v: %d pages read", p, read[p.Range])
		}
	}
}

// Run reads every piece not done, each page once, never more than conc
// pages at a time, on at most conc goroutines of its own; pieces done
// before it are not read again.
func TestRunBoundsItsGoroutines(t *testing.T) {
	for _, conc := range []int{1, 3, 8, 50} {
		pieces := Pieces(Even(40))
		for i := 0; i < len(pieces); i += 5 {
			pieces[i].Done = true
		}
		const pages = 3
		var mu sync.Mutex
		read := map[Range]int{}
		goroutines := map[uint64]bool{}
		var active, most atomic.Int64
		page := func(ctx context.Context, r Range, state []byte) ([]byte, int64, error) {
			now := active.Add(1)
			defer active.Add(-1)
			for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
			}
			runtime.Gosched() // let the others in while this one reads
			mu.Lock()
			defer mu.Unlock()
			goroutines[goid()] = true
			read[r]++
			if read[r] == pages {
				return nil, 1, nil
			}
			return []byte{byte(read[r])}, 1, nil
		}
		var rows int64
		if err := Run(context.Background(), pieces, conc, page, func(_ int, _ Piece, n int64) { rows += n }); err != nil {
			t.Fatal(err)
		}
		if m := most.Load(); m > int64(conc) {
			t.Errorf("conc %d: %d pages read at once", conc, m)
		}
		if len(goroutines) > conc {
			t.Errorf("conc %d: pages read on %d goroutines", conc, len(goroutines))
		}
		if rows != 32*pages {
			t.Errorf("conc %d: %d rows, want %d", conc, rows, 32*pages)
		}
		for i, p := range pieces {
			if want := pages * min(1, i%5); !p.Done || read[p.Range] != want {
				t.Errorf("conc %d: piece %d: done %v, %d pages read, want %d", conc, i, p.Done, read[p.Range], want)
			}
		}
	}
}

// goid is the calling goroutine's id, from its stack trace's header
// ("goroutine 18 [running]:").
func goid() uint64 {
	var buf [64]byte
	f := strings.Fields(string(buf[:runtime.Stack(buf[:], false)]))
	id, _ := strconv.ParseUint(f[1], 10, 64)
	return id
}

// A cancelled context stops Run with its cause.
func TestRunStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Run(ctx, Pieces(Even(4)), 2, func(context.Context, Range, []byte) ([]byte, int64, error) { return nil, 0, nil }, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

type fakeRing struct {
	rows map[string][]map[string]any
	err  map[string]error
}

func (f fakeRing) QueryCQL(_ context.Context, stmt string, _ []any, _ kandra.Consistency) ([]map[string]any, error) {
	return f.rows[stmt], f.err[stmt]
}

// Live reads the vnode tokens of every node listed, as a driver returns a
// set<text>; tablets win where the server has them; an unreadable ring
// plans an even cut.
func TestLiveAndPlan(t *testing.T) {
	vnodes := fakeRing{rows: map[string][]map[string]any{
		"SELECT tokens FROM system.local": {{"tokens": []string{"-100", "5"}}},
		"SELECT tokens FROM system.peers": {{"tokens": []string{"7000"}}, {"tokens": []any{"-9"}}},
	}, err: map[string]error{"SELECT id FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?": errors.New("no tablets")}}
	toks, ring, err := Live(context.Background(), vnodes, "ks", "t")
	slices.Sort(toks)
	if err != nil || ring != RingVnodes || !slices.Equal(toks, []int64{-100, -9, 5, 7000}) {
		t.Fatalf("Live = %v %v %v", toks, ring, err)
	}
	rs, ring := Plan(context.Background(), vnodes, "ks", "t", 0, 2)
	if ring != RingVnodes || len(rs) != 5 || rs[0].End != -100 || rs[3].End != 7000 {
		t.Fatalf("Plan = %v %v", rs, ring)
	}
	if rs, ring := Plan(context.Background(), vnodes, "ks", "t", 7, 2); ring != RingEven || len(rs) != 7 {
		t.Fatalf("Plan(n=7) = %v %v", rs, ring)
	}

	tablets := fakeRing{rows: map[string][]map[string]any{
		"SELECT id FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?": {{"id": "some-uuid"}},
		"SELECT last_token FROM system.tablets WHERE table_id = ?":                       {{"last_token": int64(-1)}, {"last_token": int64(math.MaxInt64)}},
	}}
	if toks, ring, err := Live(context.Background(), tablets, "ks", "t"); err != nil || ring != RingTablets || !slices.Equal(toks, []int64{-1, math.MaxInt64}) {
		t.Fatalf("Live(tablets) = %v %v %v", toks, ring, err)
	}

	down := fakeRing{err: map[string]error{"SELECT tokens FROM system.local": errors.New("down")}}
	if rs, ring := Plan(context.Background(), down, "ks", "t", 0, 8); ring != RingEven || len(rs) != 8 {
		t.Fatalf("Plan(unreadable) = %v %v", rs, ring)
	}
}

func TestMeter(t *testing.T) {
	m := NewMeter(10, 4)
	m.Add(100, false)
	if r := m.Read(); r.Rows != 100 || r.RangesDone != 4 || r.Remaining != 0 {
		t.Fatalf("%+v", r)
	}
	m.Add(50, true)
	if r := m.Read(); r.Rows != 150 || r.RangesDone != 5 || r.Ranges != 10 || r.Remaining <= 0 {
		t.Fatalf("%+v", r)
	}
}
