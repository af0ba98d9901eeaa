package kstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
)

// TestWorkersStress: many callers queue EVENTUAL writes while the workers
// keep ending (an idle period of a millisecond) and starting again. Every
// write runs exactly once, never more than the limit at once; Close waits
// for all of them; afterwards no worker is left.
func TestWorkersStress(t *testing.T) {
	for _, c := range []struct{ limit, queue int }{{1, 0}, {3, 0}, {3, 5}, {8, 64}} {
		rt, err := New(nopDriver{}, keyspaceOf("app", kandra.Cassandra5), WithEventualConcurrency(c.limit), WithEventualQueue(c.queue))
		if err != nil {
			t.Fatal(err)
		}
		rt.pool.idleFor = time.Millisecond
		const callers, each = 16, 200
		var inFlight, maxSeen, ran atomic.Int64
		seen := make([]atomic.Int32, callers*each)
		var wg sync.WaitGroup
		for g := 0; g < callers; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				for i := 0; i < each; i++ {
					id := g*each + i
					rt.async(context.Background(), "t", nil, func(context.Context) error {
						n := inFlight.Add(1)
						for m := maxSeen.Load(); n > m && !maxSeen.CompareAndSwap(m, n); m = maxSeen.Load() {
						}
						if id%7 == 0 {
							time.Sleep(50 * time.Microsecond)
						}
						seen[id].Add(1)
						ran.Add(1)
						inFlight.Add(-1)
						return nil
					})
					if i%50 == 0 {
						time.Sleep(2 * time.Millisecond) // let the workers go idle and end
					}
				}
			}(g)
		}
		wg.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := rt.Close(ctx); err != nil {
			t.Fatalf("limit %d queue %d: Close: %v after %d of %d writes", c.limit, c.queue, err, ran.Load(), callers*each)
		}
		cancel()
		if got := ran.Load(); got != callers*each {
			t.Fatalf("limit %d queue %d: %d writes ran, want %d", c.limit, c.queue, got, callers*each)
		}
		for id := range seen {
			if n := seen[id].Load(); n != 1 {
				t.Fatalf("limit %d queue %d: write %d ran %d times", c.limit, c.queue, id, n)
			}
		}
		if m := maxSeen.Load(); m > int64(c.limit) {
			t.Fatalf("limit %d queue %d: %d writes ran at once", c.limit, c.queue, m)
		}
		// Close waited for the writes; the workers end by themselves (the
		// pool's own count: a goroutine count would see other tests').
		deadline := time.Now().Add(10 * time.Second)
		for {
			rt.pool.mu.Lock()
			running := rt.pool.running
			rt.pool.mu.Unlock()
			if running == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("limit %d queue %d: %d workers left after Close", c.limit, c.queue, running)
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// TestWorkersEndWhenIdle: without Close, the workers end once idle, and a
// later write starts one again.
func TestWorkersEndWhenIdle(t *testing.T) {
	// The pool's own count of live workers, which a worker lowers as its
	// last act: goroutines of other tests would make a NumGoroutine
	// baseline a matter of chance.
	rt, err := New(nopDriver{}, keyspaceOf("app", kandra.Cassandra5), WithEventualConcurrency(4))
	if err != nil {
		t.Fatal(err)
	}
	rt.pool.idleFor = 5 * time.Millisecond
	for round := 0; round < 2; round++ {
		done := make(chan struct{}, 8)
		for i := 0; i < 8; i++ {
			rt.async(context.Background(), "t", nil, func(context.Context) error { done <- struct{}{}; return nil })
		}
		for i := 0; i < 8; i++ {
			<-done
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			rt.pool.mu.Lock()
			running := rt.pool.running
			rt.pool.mu.Unlock()
			if running == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: %d workers still running while idle", round, running)
			}
			time.Sleep(time.Millisecond)
		}
	}
	if err := rt.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// nopDriver is a Driver that is never called: the tests here queue their
// own writes.
type nopDriver struct{ noMigrator }

func (nopDriver) Exec(context.Context, *adapter.Query) (bool, error)  { panic("nopDriver: Exec") }
func (nopDriver) Batch(context.Context, *adapter.Batch) (bool, error) { panic("nopDriver: Batch") }
func (nopDriver) Query(context.Context, *adapter.Query) (adapter.Rows, error) {
	panic("nopDriver: Query")
}

// ticketFake fails the EVENTUAL by_ticket insert of tickets starting with
// "bad" and lets every other statement through.
type ticketFake struct{ fake }

func (f *ticketFake) Exec(ctx context.Context, q *adapter.Query) (bool, error) {
	if strings.Contains(q.Statement.CQL(), "by_ticket") {
		if s, ok := q.Values[0].(*string); ok && strings.HasPrefix(*s, "bad") {
			return false, errors.New("injected")
		}
	}
	return true, nil
}

// TestEventualCopyReused: the entity copy an EVENTUAL write works on is
// reused once its writes are done, but the copy a listener was given (a
// failed write) stays the entity it was told about while later Saves run.
func TestEventualCopyReused(t *testing.T) {
	var mu sync.Mutex
	var got []*fUser
	rt, err := New(&ticketFake{}, testKeyspace, WithEventListener(kandra.EventListenerFunc(func(_ string, e any, _ error) {
		mu.Lock()
		got = append(got, e.(*fUser))
		mu.Unlock()
	})))
	if err != nil {
		t.Fatal(err)
	}
	repo := MustNewRepo(rt, fUsers)
	ctx := context.Background()
	for i := 0; i < 200; i++ {
		ticket := fmt.Sprintf("ok-%d", i)
		if i%20 == 0 {
			ticket = fmt.Sprintf("bad-%d", i)
		}
		if err := repo.Save(ctx, &fUser{Email: fmt.Sprintf("u%d@x", i), Ticket: ticket}); err != nil {
			t.Fatal(err)
		}
	}
	if err := rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if len(got) != 10 {
		t.Fatalf("the listener heard of %d failures, want 10", len(got))
	}
	for _, u := range got {
		var n int
		if _, err := fmt.Sscanf(u.Ticket, "bad-%d", &n); err != nil || u.Email != fmt.Sprintf("u%d@x", n) {
			t.Errorf("the listener's entity changed after it was reported: %+v", u)
		}
	}
}

type twoEventual struct {
	ID uuid.UUID
	A  string
	B  string
}

func (e *twoEventual) Describe(s *kandra.Schema[twoEventual]) {
	s.Table("two_eventual")
	kandra.GeneratedUUID(s, &e.ID, kandra.UUIDRandom, kandra.PartitionKey(0))
	kandra.Bind(s, &e.A, kandra.Lookup("by_a", kandra.LookupEventual))
	kandra.Bind(s, &e.B, kandra.Lookup("by_b", kandra.LookupEventual))
}

var twoEventuals = kandra.MustRegister[twoEventual]()

// countingFake counts the EVENTUAL inserts per lookup table.
type countingFake struct {
	noMigrator
	fake
	a, b atomic.Int64
}

func (f *countingFake) Exec(ctx context.Context, q *adapter.Query) (bool, error) {
	switch cql := q.Statement.CQL(); {
	case strings.Contains(cql, "by_a"):
		f.a.Add(1)
	case strings.Contains(cql, "by_b"):
		f.b.Add(1)
	}
	return true, nil
}

// TestEventualCopyLastWrite: with two EVENTUAL lookups and the second value
// empty, the copy can go back to the pool as soon as the first write is
// done; Save must not look at it again (run with -race), and exactly one
// write per non-empty value runs.
func TestEventualCopyLastWrite(t *testing.T) {
	f := &countingFake{}
	rt, err := New(f, testKeyspace)
	if err != nil {
		t.Fatal(err)
	}
	repo := MustNewRepo(rt, twoEventuals)
	ctx := context.Background()
	var wg sync.WaitGroup
	const writers, each = 4, 500
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				e := &twoEventual{A: fmt.Sprintf("a%d-%d", w, i)}
				if i%2 == 1 {
					e.B = "b"
				}
				if err := repo.Save(ctx, e); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	if err := rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if a, b := f.a.Load(), f.b.Load(); a != writers*each || b != writers*each/2 {
		t.Fatalf("%d by_a and %d by_b writes, want %d and %d", a, b, writers*each, writers*each/2)
	}
}

// rowFake records each EVENTUAL lookup statement as its verb, table and
// values (the timestamp left out), read while the statement is sent.
type rowFake struct {
	fake
	mu   sync.Mutex
	rows map[string]int
}

func (f *rowFake) Exec(ctx context.Context, q *adapter.Query) (bool, error) {
	cql := q.Statement.CQL()
	if !strings.Contains(cql, "two_eventual_by_") {
		return true, nil
	}
	row := strings.Fields(cql)[0]
	for _, w := range strings.Fields(cql) {
		if strings.HasPrefix(w, "ks.two_eventual_by_") {
			row += " " + strings.TrimPrefix(w, "ks.two_eventual_")
		}
	}
	for _, v := range q.Values {
		switch v := v.(type) {
		case *string:
			row += " " + *v
		case *uuid.UUID:
			row += " " + v.String()
		}
	}
	f.mu.Lock()
	f.rows[row]++
	f.mu.Unlock()
	return true, nil
}

// TestEventualMovesBindOldValues: an Update's EVENTUAL move deletes the
// row of old's value and writes new's, with the entity's key, from
// copies taken when the call returned: many Updates at once, whose
// copies the pool hands from one to the next (run with -race), each
// moving A, and B in each of its ways (kept, to none, from none).
func TestEventualMovesBindOldValues(t *testing.T) {
	f := &rowFake{rows: map[string]int{}}
	rt, err := New(f, testKeyspace)
	if err != nil {
		t.Fatal(err)
	}
	repo := MustNewRepo(rt, twoEventuals)
	ctx := context.Background()
	want := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	const writers, each = 4, 300
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				id := uuid.New()
				old := &twoEventual{ID: id, A: fmt.Sprintf("a%d-%d", w, i)}
				nw := &twoEventual{ID: id, A: fmt.Sprintf("A%d-%d", w, i)}
				rows := []string{"DELETE by_a " + old.A + " " + id.String(), "INSERT by_a " + nw.A + " " + id.String()}
				switch i % 3 {
				case 0:
					old.B, nw.B = "b", "b"
				case 1:
					old.B = fmt.Sprintf("b%d-%d", w, i)
					rows = append(rows, "DELETE by_b "+old.B+" "+id.String())
				case 2:
					nw.B = fmt.Sprintf("B%d-%d", w, i)
					rows = append(rows, "INSERT by_b "+nw.B+" "+id.String())
				}
				if err := repo.Update(ctx, old, nw); err != nil {
					t.Error(err)
					return
				}
				// The caller's structs are its own again once Update returns.
				*old, *nw = twoEventual{A: "reused"}, twoEventual{B: "reused"}
				mu.Lock()
				for _, r := range rows {
					want[r]++
				}
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	if err := rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for r, n := range want {
		if f.rows[r] != n {
			t.Errorf("%q sent %d times, want %d", r, f.rows[r], n)
		}
	}
	for r, n := range f.rows {
		if want[r] == 0 {
			t.Errorf("%q sent %d times, want none", r, n)
		}
	}
}
