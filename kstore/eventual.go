package kstore

import (
	"context"
	"sync"
	"time"

	"github.com/kandra-go/kandra/kerrors"
)

// The EVENTUAL lookup writes run on worker goroutines the store owns:
//
//   - at most WithEventualConcurrency of them run at once;
//   - up to WithEventualQueue more wait in a FIFO queue for a worker;
//   - a caller that finds both full waits for room (backpressure), or
//     until its context ends, when the write is reported as failed.
//
// The queue is what keeps a Save cheap: handing a write over is a lock and
// an append, not a goroutine switch per write (with an unbuffered hand-off,
// every Save woke a worker and, on a busy P, waited for it to run). Workers
// are kept for the next writes, sparing each write a goroutine start and
// its stack growth, and end when a tick of workerIdle finds they ran
// nothing since the previous one, or once Close has seen every write
// finish. The decisions (queue, start a worker, wake an idle one, end) are
// all taken under one mutex, so that a queued write always has a worker
// that will take it.

// workerIdle is about how long an EVENTUAL worker waits for the next write
// before it ends (see work): long enough that a steady stream of writes
// reuses the same goroutines, short enough that an idle store that is
// never closed holds no goroutines for long.
const workerIdle = 2 * time.Second

// DefaultEventualQueue is the default of WithEventualQueue.
const DefaultEventualQueue = 1024

// job is one EVENTUAL write: fn, or w's write of lookup i.
type job struct {
	ctx    context.Context
	table  string
	entity any
	fn     func(ctx context.Context) error
	w      eventualWriter
	i      int
	seq    uint64 // its place in the order of admission (see Wait)
}

// eventualWriter writes lookup i's row of one entity. A Repo's EVENTUAL
// inserts implement it on the struct that holds the entity's copy, so
// that they need no closure of their own.
type eventualWriter interface {
	write(ctx context.Context, i int) error
	// done is called once per write: after write (reported: its failure
	// went to the listener), or, reported, instead of write when the write
	// was not started.
	done(reported bool)
}

// workers is the store's EVENTUAL worker pool.
type workers struct {
	// room has one slot per admitted write (running or queued): a caller
	// takes one before queueing, a worker gives it back after the write.
	room chan struct{}

	mu      sync.Mutex
	queue   []job // a ring of the waiting writes: queue[head], ... (n of them)
	head, n int
	running int           // worker goroutines
	max     int           // WithEventualConcurrency
	idleFor time.Duration // workerIdle; shorter in tests
	idle    []*idleState  // parked workers, the most recent last
	closing bool          // Close has seen every write finish

	// Wait's bookkeeping: the writes are numbered as they are admitted
	// (next), low is the first not yet finished, fin marks the finished
	// ones past low (a ring: fewer than len(fin) are admitted and
	// unrecorded at once), and waiters wait for low to pass their target.
	next, low uint64
	fin       []bool
	waiters   []waiter
}

// waiter is a Wait for every write admitted before target.
type waiter struct {
	target uint64
	done   chan struct{}
}

// idleState is a parked worker's wake-up: the one who takes it off the
// idle list sends once on wake (buffered, so never blocking).
type idleState struct{ wake chan struct{} }

func newWorkers(concurrency, queue int) *workers {
	// fin holds twice the admitted writes: a worker gives a write's room
	// back before it records the write finished, so up to concurrency
	// more may be admitted meanwhile.
	return &workers{room: make(chan struct{}, concurrency+queue), queue: make([]job, concurrency+queue), max: concurrency, idleFor: workerIdle,
		fin: make([]bool, 2*(concurrency+queue))}
}

// finish records write seq finished (p.mu is held) and lets go the Waits
// it completes.
func (p *workers) finish(seq uint64) {
	p.fin[seq%uint64(len(p.fin))] = true
	for p.low < p.next && p.fin[p.low%uint64(len(p.fin))] {
		p.fin[p.low%uint64(len(p.fin))] = false
		p.low++
	}
	kept := p.waiters[:0]
	for _, w := range p.waiters {
		if w.target <= p.low {
			close(w.done)
		} else {
			kept = append(kept, w)
		}
	}
	clear(p.waiters[len(kept):])
	p.waiters = kept
}

// Wait waits until every EVENTUAL lookup write queued before it was
// called is done (written, or failed and reported to the listener), or
// until ctx is done, and returns ctx's error then. Writes queued while it
// waits are not waited for. Unlike Close it stops nothing: for tests, and
// for a graceful handover that wants the lookups written before it goes
// on.
func (r *Store) Wait(ctx context.Context) error {
	p := r.pool
	p.mu.Lock()
	if p.low >= p.next {
		p.mu.Unlock()
		return nil
	}
	w := waiter{target: p.next, done: make(chan struct{})}
	p.waiters = append(p.waiters, w)
	p.mu.Unlock()
	select {
	case <-w.done:
		return nil
	case <-ctx.Done():
		return ctx.Err() // w stays listed until its target passes, then is let go
	}
}

// async runs fn on a store-owned goroutine (see workers). If ctx ends
// before the write is admitted, it is reported as failed.
func (r *Store) async(ctx context.Context, lookupTable string, entity any, fn func(ctx context.Context) error) {
	r.enqueue(ctx, job{table: lookupTable, entity: entity, fn: fn})
}

// asyncWrite is async of w's write of lookup i.
func (r *Store) asyncWrite(ctx context.Context, lookupTable string, entity any, w eventualWriter, i int) {
	r.enqueue(ctx, job{table: lookupTable, entity: entity, w: w, i: i})
}

func (r *Store) enqueue(ctx context.Context, j job) {
	j.ctx = ctx
	if ctx.Done() != nil { // else it can never be canceled: nothing to detach
		j.ctx = context.WithoutCancel(ctx)
	}
	p := r.pool
	// Counted before it may wait for room, so that Close waits for a
	// caller that waits.
	r.wg.Add(1)
	select {
	case p.room <- struct{}{}:
	default:
		select {
		case p.room <- struct{}{}:
		case <-ctx.Done():
			r.eventualFailed(j.table, j.entity, &kerrors.QueryError{Message: "eventual write to " + j.table + " not started", Cause: ctx.Err()})
			if j.w != nil {
				j.w.done(true)
			}
			r.wg.Done()
			return
		}
	}
	p.mu.Lock()
	j.seq = p.next
	p.next++
	// The slot taken above bounds the writes admitted, so the ring has room.
	p.queue[(p.head+p.n)%len(p.queue)] = j
	p.n++
	if k := len(p.idle); k > 0 {
		w := p.idle[k-1]
		p.idle[k-1] = nil
		p.idle = p.idle[:k-1]
		w.wake <- struct{}{} // buffered, one send per park: never blocks
		p.mu.Unlock()
		return
	}
	start := p.running < p.max
	if start {
		p.running++
	}
	p.mu.Unlock()
	if start {
		go r.work()
	}
}

// pop takes the oldest queued write; p.mu is held.
func (p *workers) pop() (job, bool) {
	if p.n == 0 {
		return job{}, false
	}
	j := p.queue[p.head]
	p.queue[p.head] = job{}
	p.head = (p.head + 1) % len(p.queue)
	p.n--
	return j, true
}

// unpark takes s off the idle list if it is still there (p.mu is held) and
// reports whether it was; if not, somebody took it and sent on s.wake.
func (p *workers) unpark(s *idleState) bool {
	for i, w := range p.idle {
		if w == s {
			last := len(p.idle) - 1
			copy(p.idle[i:], p.idle[i+1:])
			p.idle[last] = nil
			p.idle = p.idle[:last]
			return true
		}
	}
	return false
}

// close is called once Close has seen every write finish: the workers
// end once the queue is empty (a write queued after this still runs).
func (p *workers) close() {
	p.mu.Lock()
	p.closing = true
	for i, w := range p.idle {
		w.wake <- struct{}{}
		p.idle[i] = nil
	}
	p.idle = p.idle[:0]
	p.mu.Unlock()
}

// work runs queued writes until the queue is empty and either a tick of
// workerIdle finds it has run none since the previous tick (idle for one to
// two periods) or Close has seen every write finish.
func (r *Store) work() {
	p := r.pool
	tick := time.NewTicker(p.idleFor)
	defer tick.Stop()
	s := &idleState{wake: make(chan struct{}, 1)}
	ran := false
	p.mu.Lock()
	for {
		if j, ok := p.pop(); ok {
			p.mu.Unlock()
			r.run(j)
			ran = true
			p.mu.Lock()
			p.finish(j.seq)
			continue
		}
		if p.closing {
			break
		}
		p.idle = append(p.idle, s)
		p.mu.Unlock()
		select {
		case <-s.wake: // taken off the idle list by enqueue or close
			p.mu.Lock()
			continue
		case <-tick.C:
		}
		idled := !ran
		ran = false
		p.mu.Lock()
		if !p.unpark(s) {
			<-s.wake // taken off the list meanwhile; its token was sent under p.mu
			continue
		}
		if idled && p.n == 0 {
			break
		}
	}
	p.running--
	p.mu.Unlock()
}

// run runs j and gives its slot back.
func (r *Store) run(j job) {
	defer func() {
		<-r.pool.room
		r.wg.Done()
	}()
	var err error
	if j.w != nil {
		err = j.w.write(j.ctx, j.i)
	} else {
		err = j.fn(j.ctx)
	}
	if err != nil {
		r.eventualFailed(j.table, j.entity, err)
	}
	if j.w != nil {
		j.w.done(err != nil)
	}
}
