package bench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kstore"
)

// gateDriver is a adapter.Driver whose Exec (the EVENTUAL lookup write of
// Event, by_email) waits for the gate to open; Batch (the row and its
// BATCH lookup) returns at once. It counts the writes in flight.
type gateDriver struct {
	adapter.Driver // the migrator's calls, which the runtime never makes: nil
	gate           chan struct{}
	inFlight       atomic.Int32
	maxSeen        atomic.Int32
	done           atomic.Int32
	emails         sync.Map             // email -> true, as the EVENTUAL writes saw them
	seen           chan context.Context // if not nil, each write's context once the gate opened
}

func (d *gateDriver) Exec(ctx context.Context, q *adapter.Query) (bool, error) {
	n := d.inFlight.Add(1)
	for {
		m := d.maxSeen.Load()
		if n <= m || d.maxSeen.CompareAndSwap(m, n) {
			break
		}
	}
	if !strings.Contains(q.Statement.CQL(), "by_email") {
		return false, errors.New("gateDriver: unexpected Exec " + q.Statement.CQL())
	}
	// The value must still be readable: the runtime hands the write a copy
	// of the entity, which the caller cannot change any more.
	d.emails.Store(*q.Values[0].(*string), true)
	<-d.gate
	if d.seen != nil {
		d.seen <- ctx
	}
	d.inFlight.Add(-1)
	d.done.Add(1)
	return true, nil
}

func (d *gateDriver) Batch(context.Context, *adapter.Batch) (bool, error) { return true, nil }

func (d *gateDriver) Query(context.Context, *adapter.Query) (adapter.Rows, error) {
	return nil, errors.New("gateDriver: no reads")
}

// TestEventualWorkers: the runtime's kept EVENTUAL workers and their queue
// keep the documented semantics. At most WithEventualConcurrency writes are
// in flight, at most WithEventualQueue more wait, and a caller past that
// waits (backpressure); every write sees the entity as it was when Save
// returned; Close waits for the writes in flight and queued; the workers
// end after Close.
func TestEventualWorkers(t *testing.T) {
	for _, queue := range []int{0, 4} {
		t.Run(fmt.Sprintf("queue=%d", queue), func(t *testing.T) { testEventualWorkers(t, queue) })
	}
}

func testEventualWorkers(t *testing.T, queue int) {
	const limit, saves = 3, 12
	before := runtime.NumGoroutine()
	d := &gateDriver{gate: make(chan struct{})}
	var failed atomic.Int32
	rt, err := kstore.New(d, eventsKeyspace(t), kstore.WithEventualConcurrency(limit), kstore.WithEventualQueue(queue),
		kstore.WithEventListener(kandra.EventListenerFunc(func(string, any, error) { failed.Add(1) })))
	if err != nil {
		t.Fatal(err)
	}
	repo := kstore.MustNewRepo(rt, events(t))
	ctx := context.Background()

	returned := make(chan int, saves)
	go func() {
		e := NewEvent()
		for i := 0; i < saves; i++ {
			e.Email = "user" + string(rune('a'+i)) + "@example.com"
			if err := repo.Save(ctx, e); err != nil {
				t.Error(err)
			}
			e.Email = "changed after Save" // the write in flight must not see this
			returned <- i
		}
	}()
	waitFor(t, "3 writes in flight", func() bool { return d.inFlight.Load() == limit })
	for i := 0; i < limit+queue; i++ {
		<-returned
	}
	// The next Save has its row written and waits for room.
	select {
	case i := <-returned:
		t.Fatalf("Save %d returned with %d writes in flight, a limit of %d and a queue of %d", i, d.inFlight.Load(), limit, queue)
	case <-time.After(100 * time.Millisecond):
	}
	if got := d.inFlight.Load(); got != limit {
		t.Fatalf("%d writes in flight with a limit of %d", got, limit)
	}

	close(d.gate)
	for i := limit + queue; i < saves; i++ {
		<-returned
	}
	if err := rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if got := d.done.Load(); got != saves {
		t.Fatalf("Close returned after %d of %d EVENTUAL writes", got, saves)
	}
	if got := d.maxSeen.Load(); got != limit {
		t.Fatalf("at most %d writes were in flight, want exactly the limit %d", got, limit)
	}
	if failed.Load() != 0 {
		t.Fatalf("%d EVENTUAL writes reported failed", failed.Load())
	}
	for i := 0; i < saves; i++ {
		if _, ok := d.emails.Load("user" + string(rune('a'+i)) + "@example.com"); !ok {
			t.Errorf("the EVENTUAL write of Save %d did not see the entity as saved", i)
		}
	}
	waitFor(t, "the workers to end after Close", func() bool { return runtime.NumGoroutine() <= before })
}

// TestEventualCallerContext: a Save whose context ends while it waits for
// a worker returns (its row is written) and reports the write as failed;
// Close returns ctx's error while a write is still in flight.
func TestEventualCallerContext(t *testing.T) {
	d := &gateDriver{gate: make(chan struct{})}
	failed := make(chan error, 1)
	rt, err := kstore.New(d, eventsKeyspace(t), kstore.WithEventualConcurrency(1), kstore.WithEventualQueue(0),
		kstore.WithEventListener(kandra.EventListenerFunc(func(_ string, _ any, err error) { failed <- err })))
	if err != nil {
		t.Fatal(err)
	}
	repo := kstore.MustNewRepo(rt, events(t))
	if err := repo.Save(context.Background(), NewEvent()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "1 write in flight", func() bool { return d.inFlight.Load() == 1 })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- repo.Save(ctx, NewEvent()) }()
	select {
	case err := <-done:
		t.Fatalf("Save returned (%v) with the only worker busy", err)
	case <-time.After(50 * time.Millisecond):
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Save: %v (its row was written; only the EVENTUAL write fails)", err)
	}
	if err := <-failed; !errors.Is(err, context.Canceled) {
		t.Fatalf("the EVENTUAL write failed with %v, want the caller's context.Canceled", err)
	}
	short, cancelShort := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancelShort()
	if err := rt.Close(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close with a write blocked: %v, want the context's deadline", err)
	}
	close(d.gate)
	if err := rt.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := d.done.Load(); got != 1 {
		t.Fatalf("%d EVENTUAL writes done, want the 1 that was started", got)
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

type ctxKey struct{}

// TestEventualDetached: an EVENTUAL write keeps the caller's context
// values but not its cancellation, whether or not the context can be
// canceled.
func TestEventualDetached(t *testing.T) {
	for _, cancellable := range []bool{true, false} {
		d := &gateDriver{gate: make(chan struct{}), seen: make(chan context.Context, 1)}
		rt, err := kstore.New(d, eventsKeyspace(t))
		if err != nil {
			t.Fatal(err)
		}
		repo := kstore.MustNewRepo(rt, events(t))
		ctx := context.WithValue(context.Background(), ctxKey{}, "request 7")
		cancel := func() {}
		if cancellable {
			ctx, cancel = context.WithCancel(ctx)
		}
		if err := repo.Save(ctx, NewEvent()); err != nil {
			t.Fatal(err)
		}
		cancel()
		close(d.gate)
		got := <-d.seen
		if got.Err() != nil || got.Done() != nil {
			t.Errorf("cancellable %v: the EVENTUAL write's context is done (%v) after the caller's was canceled", cancellable, got.Err())
		}
		if v, _ := got.Value(ctxKey{}).(string); v != "request 7" {
			t.Errorf("cancellable %v: the EVENTUAL write's context lost the caller's value (%q)", cancellable, v)
		}
		if err := rt.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEventualCloseWaitsForWaitingCaller: a write whose caller is waiting
// for room in the queue counts for Close, which waits for it to run.
func TestEventualCloseWaitsForWaitingCaller(t *testing.T) {
	d := &gateDriver{gate: make(chan struct{})}
	rt, err := kstore.New(d, eventsKeyspace(t), kstore.WithEventualConcurrency(1), kstore.WithEventualQueue(0))
	if err != nil {
		t.Fatal(err)
	}
	repo := kstore.MustNewRepo(rt, events(t))
	ctx := context.Background()
	if err := repo.Save(ctx, NewEvent()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "1 write in flight", func() bool { return d.inFlight.Load() == 1 })
	saved := make(chan error)
	go func() { saved <- repo.Save(ctx, NewEvent()) }()
	waitFor(t, "the second Save to wait for room", waitingInEnqueue)
	closed := make(chan error)
	go func() { closed <- rt.Close(ctx) }()
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) with a write in flight and one waiting", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(d.gate)
	if err := <-saved; err != nil {
		t.Fatal(err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if got := d.done.Load(); got != 2 {
		t.Fatalf("Close returned after %d of 2 EVENTUAL writes", got)
	}
}

// waitingInEnqueue reports whether a goroutine is blocked in the runtime's
// enqueue, waiting for room in the EVENTUAL queue (after it counted its
// write for Close).
func waitingInEnqueue() bool {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "store.(*Store).enqueue") && (strings.Contains(g, "[select") || strings.Contains(g, "[chan send")) {
			return true
		}
	}
	return false
}
