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
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/driver/kgocqlv2"
	"github.com/kandra-go/kandra/internal/catalog"
	"github.com/kandra-go/kandra/kstore"
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
	// target is 1.0; see TestRealServerThroughput).
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

// TestRealServerThroughput measures Save, Get and Update throughput with
// 16 goroutines on each adapter, kandra (the store on driver/kgocql, on
// driver/kgocqlv2) against hand-written code on the same driver sending
// the same CQL (nodehand_test.go), in interleaved rounds (24 per
// operation, 500ms each by default, in pairs: kandra then hand-written,
// hand-written then kandra, ...), after a warm-up round of each. It prints
// one line per adapter,
//
//	real-server: throughput adapter=kgocql save=<ratio> get=<ratio> update=<ratio> ok=<bool>
//
// with the ratios kandra/hand-written of the operations per second, the
// median over the pairs of rounds (their spread is in the log); ok says
// whether all three are at least 1.0, the target. A ratio under the
// target does not fail the test: on a shared 2-core machine one round's
// throughput can differ from the next by several times, and one run's
// median moves by several percent. Only a gross miss fails it: kandra
// under 0.8x (grossMiss) in three pairs of rounds in four, in the
// measurement and again in a second one taken at once (skipped when the
// adapter's measurement has run 60 s), which no noise explains. Server timeouts are
// retried for both contenders and counted in the log.
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
	st, err := catalog.Build(events(t).Schema(), ks)
	if err != nil {
		t.Fatal(err)
	}
	cql := newNodeCQL(st)
	s2 := nodeSessionV2(t)
	adapters := []struct {
		name   string
		driver adapter.Driver
		hand   nodeHand
	}{
		{"kgocql", kgocql.New(s), newGocqlHand(s, cql)},
		{"kgocqlv2", kgocqlv2.New(s2), newV2Hand(s2, cql)},
	}
	for i, a := range adapters {
		// Each adapter writes rows of its own: the run's high bits carry
		// the adapter.
		nt := &nodeThroughput{t: t, ctx: ctx, d: d, began: time.Now(), run: run ^ uint32(i)<<31, ks: k, driver: a.driver, hand: a.hand}
		save, get, update := nt.measureAll()
		fmt.Printf("real-server: throughput adapter=%s save=%.3f get=%.3f update=%.3f ok=%v\n", a.name, save.median, get.median, update.median,
			save.median >= 1 && get.median >= 1 && update.median >= 1)
		for _, r := range []struct {
			op string
			r  pairRatios
		}{{"save", save}, {"get", get}, {"update", update}} {
			if r.r.gross() {
				t.Errorf("%s: kandra's %s throughput is a gross miss against hand-written code on the driver: three pairs of rounds in four under %.1fx, twice (upper quartile %.3f)",
					a.name, r.op, grossMiss, r.r.upper)
			}
		}
	}
}

// nodeThroughput is one adapter's measurement.
type nodeThroughput struct {
	t        *testing.T
	ctx      context.Context
	d        time.Duration
	began    time.Time
	run      uint32
	ks       *kandra.Keyspace
	driver   adapter.Driver
	hand     nodeHand
	timeouts atomic.Int64
	roundNo  atomic.Int64
}

// newRepo is a new store per kandra round, closed inside the round's
// timing so that its EVENTUAL writes count, as the hand-written ones are
// waited for. The store does not retry an EVENTUAL write: one that
// failed (other than by a server timeout, which the hand-written side
// retries) fails the round.
func (nt *nodeThroughput) newRepo() (*kstore.Repo[Event], func() error) {
	var eventualErr atomic.Value
	listener := kandra.EventListenerFunc(func(table string, _ any, err error) {
		if !serverTimeout(err) {
			eventualErr.CompareAndSwap(nil, fmt.Errorf("EVENTUAL write to %s: %w", table, err))
		}
	})
	rt, err := kstore.New(nt.driver, nt.ks, kstore.WithConsistency(kandra.ConsistencyLocalQuorum), kstore.WithEventListener(listener))
	if err != nil {
		nt.t.Fatal(err)
	}
	return kstore.MustNewRepo(rt, events(nt.t)), func() error {
		if err := rt.Close(nt.ctx); err != nil {
			return err
		}
		err, _ := eventualErr.Load().(error)
		return err
	}
}

func (nt *nodeThroughput) measureAll() (save, get, update pairRatios) {
	t, ctx := nt.t, nt.ctx
	kandraSave := func(d time.Duration) float64 {
		repo, closeRT := nt.newRepo()
		base := int(nt.roundNo.Add(1)) << 20 // each round writes new rows
		return round(t, d, &nt.timeouts, func(w, n int) error { return repo.Save(ctx, nodeEvent(nt.run, w, base+n)) }, closeRT)
	}
	handSave := func(d time.Duration) float64 {
		base := int(nt.roundNo.Add(1)) << 20
		return round(t, d, &nt.timeouts, func(w, n int) error { return nt.hand.save(ctx, nodeEvent(nt.run, w, base+n)) }, nt.hand.wait)
	}

	// The rows Get and Update read and write: 32 per worker, written
	// before their rounds; cur is each row as it is now (Update writes a
	// new email each time, and passes the row as it was).
	const perWorker = 32
	cur := make([][]*Event, nodeWorkers)
	var setup sync.WaitGroup
	var setupErr atomic.Value
	for w := range cur {
		for n := 0; n < perWorker; n++ {
			cur[w] = append(cur[w], nodeEvent(nt.run, w, n))
		}
		setup.Add(1)
		go func() {
			defer setup.Done()
			for _, e := range cur[w] {
				err := nt.hand.save(ctx, e)
				for try := 0; try < 3 && err != nil && serverTimeout(err); try++ {
					err = nt.hand.save(ctx, e)
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
	if err := nt.hand.wait(); err != nil {
		t.Fatal(err)
	}
	check := func(got, want *Event) error {
		if got.Title != want.Title || got.EventID != want.EventID {
			return fmt.Errorf("read %+v, want %+v", got, want)
		}
		return nil
	}
	kandraGet := func(d time.Duration) float64 {
		repo, closeRT := nt.newRepo()
		return round(t, d, &nt.timeouts, func(w, n int) error {
			want := cur[w][n%perWorker]
			e, err := repo.Get(ctx, want)
			if err != nil {
				return err
			}
			return check(e, want)
		}, closeRT)
	}
	handGet := func(d time.Duration) float64 {
		return round(t, d, &nt.timeouts, func(w, n int) error {
			want := cur[w][n%perWorker]
			e, err := nt.hand.get(ctx, want)
			if err != nil {
				return err
			}
			return check(e, want)
		}, func() error { return nil })
	}
	// moved is row (w, n%32) with a new email: a move of its EVENTUAL
	// lookup, and a rewrite of its BATCH one.
	moved := func(w, n int) (old, nw *Event) {
		old = cur[w][n%perWorker]
		e := *old
		e.Email = fmt.Sprintf("w%d-u%d-%d@example.com", w, nt.roundNo.Load(), n)
		return old, &e
	}
	kandraUpdate := func(d time.Duration) float64 {
		repo, closeRT := nt.newRepo()
		nt.roundNo.Add(1)
		return round(t, d, &nt.timeouts, func(w, n int) error {
			old, nw := moved(w, n)
			if err := repo.Update(ctx, old, nw); err != nil {
				return err
			}
			cur[w][n%perWorker] = nw
			return nil
		}, closeRT)
	}
	handUpdate := func(d time.Duration) float64 {
		nt.roundNo.Add(1)
		return round(t, d, &nt.timeouts, func(w, n int) error {
			old, nw := moved(w, n)
			if err := nt.hand.update(ctx, old, nw); err != nil {
				return err
			}
			cur[w][n%perWorker] = nw
			return nil
		}, nt.hand.wait)
	}
	save = nt.ratio("save", kandraSave, handSave)
	get = nt.ratio("get", kandraGet, handGet)
	update = nt.ratio("update", kandraUpdate, handUpdate)
	if n := nt.timeouts.Load(); n > 0 {
		t.Logf("%d operations met a server timeout and were retried", n)
	}
	return save, get, update
}

// measure runs nodeRounds short rounds in pairs, in the order k h, h k, k
// h, ..., and returns the median over the pairs of kandra's operations per
// second over hand-written's. Each pair runs back to back, so a load that
// drifts during the test weighs on both alike; the median keeps a round
// that met a stall (a flush or a GC pause on the node, a burst of other
// work on a shared machine: one round can differ from the next by several
// times) from deciding the result.
func (nt *nodeThroughput) measure(name string, k, h func(time.Duration) float64) pairRatios {
	ratios := make([]float64, 0, nodeRounds/2)
	var kSum, hSum float64
	for p := 0; p < nodeRounds/2; p++ {
		var kv, hv float64
		if p%2 == 0 {
			kv = k(nt.d)
			hv = h(nt.d)
		} else {
			hv = h(nt.d)
			kv = k(nt.d)
		}
		kSum, hSum = kSum+kv, hSum+hv
		ratios = append(ratios, kv/hv)
	}
	slices.Sort(ratios)
	r := pairRatios{median: quantile(ratios, 0.5), upper: quantile(ratios, 0.75)}
	nt.t.Logf("%s: kandra %.0f ops/s, hand-written %.0f ops/s (means over %d rounds each); per-pair ratios %.2f: median %.3f, quartiles %.3f–%.3f",
		name, kSum/float64(len(ratios)), hSum/float64(len(ratios)), len(ratios), ratios, r.median, quantile(ratios, 0.25), r.upper)
	return r
}

func (nt *nodeThroughput) ratio(name string, k, h func(time.Duration) float64) pairRatios {
	k(nt.d / 2) // warm-up: prepared statements, connections, the node's JIT
	h(nt.d / 2)
	r := nt.measure(name, k, h)
	if r.gross() && time.Since(nt.began) < 60*time.Second {
		// One more measurement before calling it a gross miss: a burst of
		// load on a shared machine can sink one series.
		nt.t.Logf("%s: a gross miss? measuring once more", name)
		if again := nt.measure(name, k, h); !again.gross() {
			r = again
		}
	}
	return r
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
