package bench

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gocql "github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/store"
)

// The end-to-end throughput of Save and Get against a real node, kandra
// (runtime + driver/kgocql) against hand-written gocql sending the same CQL.
// It skips without a node on KANDRA_CASSANDRA_HOST:KANDRA_CASSANDRA_PORT
// (default 127.0.0.1:9042), unless KANDRA_REQUIRE_CASSANDRA=1.

func envOr(k, d string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return d
}

type quietLogger struct{}

func (quietLogger) Print(...any)          {}
func (quietLogger) Printf(string, ...any) {}
func (quietLogger) Println(...any)        {}

// nodeSession connects as driver/kgocql's node test does, or skips.
func nodeSession(t *testing.T) *gocql.Session {
	t.Helper()
	host, port := envOr("KANDRA_CASSANDRA_HOST", "127.0.0.1"), envOr("KANDRA_CASSANDRA_PORT", "9042")
	c, err := net.DialTimeout("tcp", net.JoinHostPort(host, port), 3*time.Second)
	if err != nil {
		msg := fmt.Sprintf("no Cassandra node on %s:%s; start one with scripts/cassandra.sh start", host, port)
		if os.Getenv("KANDRA_REQUIRE_CASSANDRA") == "1" {
			t.Fatal("real-server test cannot run: " + msg)
		}
		t.Skip("skipping real-server test: " + msg)
	}
	_ = c.Close()
	cl := gocql.NewCluster(host)
	if cl.Port, err = strconv.Atoi(port); err != nil {
		t.Fatalf("KANDRA_CASSANDRA_PORT %q is not a port number", port)
	}
	cl.ProtoVersion = 4
	cl.DisableInitialHostLookup = true
	cl.Consistency = gocql.LocalQuorum
	cl.Timeout, cl.ConnectTimeout, cl.WriteTimeout = 15*time.Second, 15*time.Second, 15*time.Second
	cl.MaxWaitSchemaAgreement = 60 * time.Second
	cl.NumConns = 2
	cl.Logger = quietLogger{}
	s, err := cl.CreateSession()
	if err != nil {
		t.Fatalf("real-server test cannot run: session: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

const (
	nodeWorkers = 16
	// nodeRounds is the rounds per operation and measurement, half of
	// them kandra's.
	nodeRounds = 24
	// grossMiss is the throughput ratio under which the test fails (the
	// target is 0.95; see TestRealServerThroughput).
	grossMiss = 0.8
)

// roundTime is one round's length: KANDRA_BENCH_ROUND (a Go duration),
// 500ms by default, which keeps the whole test under a minute.
func roundTime(t *testing.T) time.Duration {
	d, err := time.ParseDuration(envOr("KANDRA_BENCH_ROUND", "500ms"))
	if err != nil || d <= 0 {
		t.Fatalf("KANDRA_BENCH_ROUND=%q is not a positive Go duration", os.Getenv("KANDRA_BENCH_ROUND"))
	}
	return d
}

// nodeEvent is the n-th entity worker w writes: its own partition (tenant),
// a new clustering key and new lookup values for every write, so that no
// write overwrites another.
func nodeEvent(run uint32, w, n int) *Event {
	e := NewEvent()
	binary.BigEndian.PutUint32(e.TenantID[8:], run)
	binary.BigEndian.PutUint32(e.TenantID[12:], uint32(w))
	e.OccurredAt = e.OccurredAt.Add(time.Duration(n) * time.Millisecond)
	e.EventID = e.TenantID
	binary.BigEndian.PutUint64(e.EventID[8:], uint64(w)<<40|uint64(n))
	e.Email = "w" + strconv.Itoa(w) + "-" + strconv.Itoa(n) + "@example.com"
	return e
}

// handSaver is Save written by hand on gocql with kandra's CQL: the row and
// its BATCH lookup in one LOGGED BATCH, then the EVENTUAL lookup on a
// goroutine, at most 16 at a time, as the runtime does, so that both keep
// the same number of statements in flight.
type handSaver struct {
	s                     *gocql.Session
	insert, byID, byEmail string
	sem                   chan struct{}
	wg                    sync.WaitGroup
	mu                    sync.Mutex
	err                   error
}

func (h *handSaver) save(ctx context.Context, e *Event) error {
	tid, eid := gocql.UUID(e.TenantID), gocql.UUID(e.EventID)
	b := h.s.NewBatch(gocql.LoggedBatch).WithContext(ctx)
	b.Cons = gocql.LocalQuorum
	b.Query(h.insert, tid, e.Day, e.OccurredAt, eid, e.Email, e.Kind, e.Title, e.Priority, e.Score, e.Done, e.Tags, e.Payload)
	b.Query(h.byID, eid, tid, e.Day, e.OccurredAt)
	if err := h.s.ExecuteBatch(b); err != nil {
		return err
	}
	if e.Email == "" {
		return nil
	}
	email, day, at, ts := e.Email, e.Day, e.OccurredAt, time.Now().UnixMicro()
	h.sem <- struct{}{}
	h.wg.Add(1)
	go func() {
		defer func() { <-h.sem; h.wg.Done() }()
		err := h.s.Query(h.byEmail, email, tid, day, at, ts).WithContext(ctx).Consistency(gocql.LocalQuorum).Exec()
		for try := 0; try < 3 && err != nil && serverTimeout(err); try++ {
			err = h.s.Query(h.byEmail, email, tid, day, at, ts).WithContext(ctx).Consistency(gocql.LocalQuorum).Exec()
		}
		if err != nil {
			h.mu.Lock()
			if h.err == nil {
				h.err = err
			}
			h.mu.Unlock()
		}
	}()
	return nil
}

// wait waits for the EVENTUAL writes and returns the first failure.
func (h *handSaver) wait() error {
	h.wg.Wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// serverTimeout reports the node's own timeouts (a write or read that the
// node gave up on, or no answer within the client's timeout): on a busy
// shared machine they happen to either contender, and are retried rather
// than failing the measurement.
func serverTimeout(err error) bool {
	var wt *gocql.RequestErrWriteTimeout
	var rt *gocql.RequestErrReadTimeout
	return errors.As(err, &wt) || errors.As(err, &rt) || errors.Is(err, gocql.ErrTimeoutNoResponse)
}

// round runs op on nodeWorkers goroutines for d and returns the operations
// per second; finish runs inside the timing (the writes still in flight).
// An operation that meets a server timeout is retried, up to 3 times.
func round(t *testing.T, d time.Duration, timeouts *atomic.Int64, op func(w, n int) error, finish func() error) float64 {
	t.Helper()
	var ops atomic.Int64
	var first atomic.Value
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for w := 0; w < nodeWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; time.Now().Before(deadline); n++ {
				err := op(w, n)
				for try := 0; try < 3 && err != nil && serverTimeout(err); try++ {
					timeouts.Add(1)
					err = op(w, n)
				}
				if err != nil {
					first.CompareAndSwap(nil, err)
					return
				}
				ops.Add(1)
			}
		}()
	}
	wg.Wait()
	if err := finish(); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	if err, _ := first.Load().(error); err != nil {
		t.Fatal(err)
	}
	return float64(ops.Load()) / elapsed.Seconds()
}

// TestRealServerThroughput measures Save and Get throughput with 16
// goroutines, kandra against hand-written gocql with the same CQL, in
// interleaved rounds (24 per operation, 500ms each by default, in pairs:
// kandra then hand-written, hand-written then kandra, ...), after a warm-up
// round of each. It prints
//
//	real-server: throughput save=<ratio> get=<ratio> ok=<bool>
//
// with the ratios kandra/hand-written of the operations per second, the
// median over the pairs of rounds; ok says whether both meet issue 11's
// target of 0.95. A ratio under the target does not fail the test: on a
// shared 2-core machine one round's throughput can differ from the next by
// several times, and one run's median moves by several percent. Only a
// gross miss fails it: kandra under 0.8x (grossMiss) in three pairs of
// rounds in four, in the measurement and again in a second one taken at
// once (skipped when the test has run 30 s, to stay under a minute), which
// no noise explains. Server timeouts are retried for both contenders and
// counted in the log.
func TestRealServerThroughput(t *testing.T) {
	s := nodeSession(t)
	ctx := context.Background()
	d := roundTime(t)
	began := time.Now()
	var rb [4]byte
	_, _ = rand.Read(rb[:])
	run := binary.BigEndian.Uint32(rb[:])
	ks := "kbench_" + hex.EncodeToString(rb[:])
	k, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: ks, Replication: kandra.SimpleStrategy(1), Targets: kandra.Cassandra5}, events(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range k.Statements() {
		if err := s.Query(st).WithContext(ctx).Exec(); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	t.Cleanup(func() { _ = s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })
	t.Logf("keyspace %s created in %v", ks, time.Since(began).Round(time.Millisecond))

	st, err := adapter.BuildStatements(events(t).Schema(), ks)
	if err != nil {
		t.Fatal(err)
	}
	hs := &handSaver{s: s, insert: st.Insert(0).CQL(), sem: make(chan struct{}, 16)}
	for i := 0; i < st.NumLookups(); i++ {
		switch l := st.Lookup(i); l.Insert().Param(0).Column.Name() {
		case "event_id":
			hs.byID = l.Insert().CQL()
		case "email":
			hs.byEmail = l.InsertAt().CQL() // at the call's timestamp, as kandra writes it
		}
	}
	get := st.SelectByKey().CQL()

	// A new runtime per kandra round, closed inside the round's timing so
	// that its EVENTUAL writes count, as the hand-written ones are waited
	// for.
	driver := kgocql.New(s)
	// The runtime does not retry an EVENTUAL write: one that failed (other
	// than by a server timeout, which the hand-written side retries) fails
	// the round.
	var eventualErr atomic.Value
	listener := kandra.EventListenerFunc(func(table string, _ any, err error) {
		if !serverTimeout(err) {
			eventualErr.CompareAndSwap(nil, fmt.Errorf("EVENTUAL write to %s: %w", table, err))
		}
	})
	newRepo := func() (*store.Store, *store.Repo[Event], func() error) {
		rt, err := store.New(driver, k, store.WithConsistency(kandra.ConsistencyLocalQuorum), store.WithEventListener(listener))
		if err != nil {
			t.Fatal(err)
		}
		return rt, store.MustNewRepo(rt, events(t)), func() error {
			if err := rt.Close(ctx); err != nil {
				return err
			}
			err, _ := eventualErr.Load().(error)
			return err
		}
	}
	var timeouts atomic.Int64
	// Each round writes new rows: the round number goes into the clustering
	// key's offset.
	var roundNo atomic.Int64
	kandraSave := func(d time.Duration) float64 {
		_, repo, closeRT := newRepo()
		base := int(roundNo.Add(1)) << 20
		return round(t, d, &timeouts, func(w, n int) error { return repo.Save(ctx, nodeEvent(run, w, base+n)) }, closeRT)
	}
	handSave := func(d time.Duration) float64 {
		base := int(roundNo.Add(1)) << 20
		return round(t, d, &timeouts, func(w, n int) error { return hs.save(ctx, nodeEvent(run, w, base+n)) }, hs.wait)
	}

	// The rows Get reads: 32 per worker, written before the Get rounds.
	const perWorker = 32
	keys := make([][]*Event, nodeWorkers)
	var setup sync.WaitGroup
	var setupErr atomic.Value
	for w := range keys {
		for n := 0; n < perWorker; n++ {
			keys[w] = append(keys[w], nodeEvent(run, w, n))
		}
		setup.Add(1)
		go func() {
			defer setup.Done()
			for _, e := range keys[w] {
				err := hs.save(ctx, e)
				for try := 0; try < 3 && err != nil && serverTimeout(err); try++ {
					err = hs.save(ctx, e)
				}
				if err != nil {
					setupErr.CompareAndSwap(nil, err)
					return
				}
			}
		}()
	}
	setup.Wait()
	if err, _ := setupErr.Load().(error); err != nil {
		t.Fatal(err)
	}
	if err := hs.wait(); err != nil {
		t.Fatal(err)
	}
	t.Logf("set up in %v", time.Since(began).Round(time.Millisecond))
	check := func(got, want *Event) error {
		if got.Title != want.Title || got.EventID != want.EventID || got.Email != want.Email {
			return fmt.Errorf("read %+v, want %+v", got, want)
		}
		return nil
	}
	kandraGet := func(d time.Duration) float64 {
		_, repo, closeRT := newRepo()
		return round(t, d, &timeouts, func(w, n int) error {
			want := keys[w][n%perWorker]
			e, err := repo.Get(ctx, want)
			if err != nil {
				return err
			}
			return check(e, want)
		}, closeRT)
	}
	handGet := func(d time.Duration) float64 {
		return round(t, d, &timeouts, func(w, n int) error {
			want := keys[w][n%perWorker]
			e := new(Event)
			var tid, eid gocql.UUID
			err := s.Query(get, gocql.UUID(want.TenantID), want.Day, want.OccurredAt).WithContext(ctx).Consistency(gocql.LocalQuorum).
				Scan(&tid, &e.Day, &e.OccurredAt, &eid, &e.Email, &e.Kind, &e.Title, &e.Priority, &e.Score, &e.Done, &e.Tags, &e.Payload)
			if err != nil {
				return err
			}
			e.TenantID, e.EventID = uuid.UUID(tid), uuid.UUID(eid)
			return check(e, want)
		}, func() error { return nil })
	}

	// measure runs nodeRounds short rounds in pairs, in the order k h, h k,
	// k h, ..., and returns the median over the pairs of kandra's
	// operations per second over hand-written's. Each pair runs back to
	// back, so a load that drifts during the test weighs on both alike; the
	// median keeps a round that met a stall (a flush or a GC pause on the
	// node, a burst of other work on a shared machine: one round can differ
	// from the next by several times) from deciding the result.
	measure := func(name string, k, h func(time.Duration) float64) pairRatios {
		ratios := make([]float64, 0, nodeRounds/2)
		var kSum, hSum float64
		for p := 0; p < nodeRounds/2; p++ {
			var kv, hv float64
			if p%2 == 0 {
				kv = k(d)
				hv = h(d)
			} else {
				hv = h(d)
				kv = k(d)
			}
			kSum, hSum = kSum+kv, hSum+hv
			ratios = append(ratios, kv/hv)
		}
		slices.Sort(ratios)
		r := pairRatios{median: quantile(ratios, 0.5), upper: quantile(ratios, 0.75)}
		t.Logf("%s: kandra %.0f ops/s, hand-written %.0f ops/s (means over %d rounds each); per-pair ratios %.2f: median %.3f, upper quartile %.3f",
			name, kSum/float64(len(ratios)), hSum/float64(len(ratios)), len(ratios), ratios, r.median, r.upper)
		return r
	}
	ratio := func(name string, k, h func(time.Duration) float64) pairRatios {
		k(d / 2) // warm-up: prepared statements, connections, the node's JIT
		h(d / 2)
		r := measure(name, k, h)
		if r.gross() && time.Since(began) < 30*time.Second {
			// One more measurement before calling it a gross miss: a
			// burst of load on a shared machine can sink one series.
			t.Logf("%s: a gross miss? measuring once more", name)
			if again := measure(name, k, h); !again.gross() {
				r = again
			}
		}
		return r
	}
	save := ratio("save", kandraSave, handSave)
	getR := ratio("get", kandraGet, handGet)
	if n := timeouts.Load(); n > 0 {
		t.Logf("%d operations met a server timeout and were retried", n)
	}
	fmt.Printf("real-server: throughput save=%.3f get=%.3f ok=%v\n", save.median, getR.median, save.median >= 0.95 && getR.median >= 0.95)
	if save.gross() || getR.gross() {
		t.Errorf("kandra's throughput is a gross miss against hand-written gocql: three pairs of rounds in four under %.1fx, twice (upper quartiles: save %.3f, get %.3f)",
			grossMiss, save.upper, getR.upper)
	}
}

// pairRatios sums up the per-pair throughput ratios of one measurement.
type pairRatios struct{ median, upper float64 }

// gross reports a gross miss: kandra under grossMiss in at least three
// pairs of rounds in four. Noise that moves single rounds by several times
// either way rarely does that; a kandra that is really that slow always
// does.
func (r pairRatios) gross() bool { return r.upper < grossMiss }

// quantile is the q-quantile of sorted xs, interpolated between ranks.
func quantile(xs []float64, q float64) float64 {
	pos := q * float64(len(xs)-1)
	i := int(pos)
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[i] + (pos-float64(i))*(xs[i+1]-xs[i])
}
