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
	"runtime"
	"slices"
	"strconv"
	"strings"
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

// The end-to-end throughput and client CPU per operation of Save, Get,
// Update and Patch against a real node, kandra (the store on
// driver/kgocql and on driver/kgocqlv2) against hand-written code on the
// same driver sending the same CQL.
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
	// nodeWideWorkers is the goroutines of the second figure, for Save
	// and Get: 64, four to each of nodeWorkers' row sets.
	nodeWideWorkers = 64
	// nodeRounds is the rounds per operation and measurement at
	// nodeWorkers, half of them kandra's; nodeWideRounds at
	// nodeWideWorkers.
	nodeRounds     = 24
	nodeWideRounds = 12
	// perWorker is the rows each of nodeWorkers' row sets holds, which
	// Get, Update and Patch read and write.
	perWorker = 32
	// grossMiss is the throughput ratio under which the test fails (the
	// target is 1.0; see TestRealServerThroughput).
	grossMiss = 0.8
	// remeasureWithin is how long into an adapter's measurement a gross
	// miss is still measured once more.
	remeasureWithin = 90 * time.Second
)

// roundTime is one round's length: KANDRA_BENCH_ROUND (a Go duration),
// 500ms by default, which keeps the whole test near two minutes.
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

// slot is the row (set i, row j) that worker w of workers uses in its
// n-th operation of a Get, Update or Patch round: at nodeWorkers, row
// n%32 of set w; with more, each set is split between workers/16 of them,
// so that no two workers write one row.
func slot(workers, w, n int) (i, j int) {
	per := perWorker / (workers / nodeWorkers)
	return w % nodeWorkers, w/nodeWorkers*per + n%per
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

// roundResult is one round's outcome: the operations, their rate, and the
// CPU time the process used for them (cpuOK false when it cannot be read).
type roundResult struct {
	ops   int64
	rate  float64 // ops per second
	cpu   time.Duration
	cpuOK bool
}

// nodeContender runs one round of d on workers goroutines.
type nodeContender func(d time.Duration, workers int) roundResult

// round runs op on workers goroutines for d; finish runs inside the timing
// (the writes still in flight). An operation that meets a server timeout
// is retried, up to 3 times. The CPU time is the process's (user and
// system, every thread: the driver's goroutines, the garbage collector)
// from the start of the round to after a collection at its end, which
// a collection before it keeps clear of the round before: so each round
// pays for collecting what it allocated, and for nothing else's.
func round(t *testing.T, d time.Duration, workers int, timeouts *atomic.Int64, op func(w, n int) error, finish func() error) roundResult {
	t.Helper()
	runtime.GC()
	cpu0, ok0 := processCPU()
	var ops atomic.Int64
	var first atomic.Value
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
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
	runtime.GC()
	cpu1, ok1 := processCPU()
	if err, _ := first.Load().(error); err != nil {
		t.Fatal(err)
	}
	n := ops.Load()
	return roundResult{ops: n, rate: float64(n) / elapsed.Seconds(), cpu: cpu1 - cpu0, cpuOK: ok0 && ok1}
}

// TestRealServerThroughput measures the throughput of Save, Get, Update
// and Patch (a partial write of one column) with 16 goroutines on each
// adapter, kandra (the store on driver/kgocql, on driver/kgocqlv2)
// against hand-written code on the same driver sending the same CQL
// (nodehand_test.go), in interleaved rounds (24 per operation, 500ms each
// by default, in pairs: kandra then hand-written, hand-written then
// kandra, ...), after a warm-up round of each; then Save and Get again
// with 64 goroutines (12 rounds each, right after the same operation's 16
// goroutines, which are their warm-up). Beside each ratio it measures
// the CPU time of the client process per operation, for each contender:
// what a service pays at scale (the node runs in another process, and is
// not counted). It prints two lines per adapter,
//
//	real-server: throughput adapter=kgocql workers=16 save=<ratio>(<q1>-<q3>) get=... update=... patch=... cpu-ns/op save=<kandra>/<hand> get=... update=... patch=... ok=<bool>
//	real-server: throughput-64 adapter=kgocql workers=64 save=<ratio>(<q1>-<q3>) get=... ops/s save=<kandra>/<hand> get=... cpu-ns/op save=<kandra>/<hand> get=... ok=<bool>
//
// with the ratios kandra/hand-written of the operations per second, the
// median over the pairs of rounds and, in brackets, the quartiles of the
// per-pair ratios; the CPU nanoseconds per operation of each contender,
// summed over its rounds (a round's CPU time includes the garbage
// collection of what it allocated, and the EVENTUAL writes it waits for);
// the mean operations per second of each. ok says whether every median
// on the line is at least 1.0, the target. A ratio under the target does
// not fail the test: on a shared 2-core machine one round's throughput
// can differ from the next by several times, and one run's median moves
// by several percent. Only a gross miss at 16 goroutines fails it: kandra
// under 0.8x (grossMiss) in three pairs of rounds in four, in the
// measurement and again in a second one taken at once (skipped when the
// adapter's measurement has run 90 s), which no noise explains. The
// figures at 64 goroutines and the CPU figures never fail it: 6 pairs of
// rounds are too few for the rule on a shared machine (one series was
// under 0.8x in five pairs of six, and the next at 0.99). Server timeouts are retried for both contenders and
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
		nt := &nodeThroughput{t: t, ctx: ctx, d: d, began: time.Now(), run: run ^ uint32(i)<<31, ks: k, driver: a.driver, hand: a.hand, cql: cql}
		narrow, wide := nt.measureAll()
		fmt.Printf("real-server: throughput adapter=%s workers=%d %s cpu-ns/op %s ok=%v\n",
			a.name, nodeWorkers, narrow.ratios(), narrow.cpus(), narrow.ok())
		fmt.Printf("real-server: throughput-%d adapter=%s workers=%d %s ops/s %s cpu-ns/op %s ok=%v\n",
			nodeWideWorkers, a.name, nodeWideWorkers, wide.ratios(), wide.rates(), wide.cpus(), wide.ok())
		for _, r := range narrow {
			if r.s.gross() {
				t.Errorf("%s: kandra's %s throughput is a gross miss against hand-written code on the driver: three pairs of rounds in four under %.1fx, twice (upper quartile %.3f)",
					a.name, r.op, grossMiss, r.s.upper)
			}
		}
		for _, r := range wide {
			if r.s.gross() {
				t.Logf("%s: kandra's %s throughput with %d goroutines was under %.1fx in three pairs of rounds in four (upper quartile %.3f); this figure does not fail the test",
					a.name, r.op, r.workers, grossMiss, r.s.upper)
			}
		}
		t.Logf("%s measured in %v", a.name, time.Since(nt.began).Round(time.Second))
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
	cql      nodeCQL
	timeouts atomic.Int64
	roundNo  atomic.Int64
}

// newRepo is a new store per kandra round, closed inside the round's
// timing so that its EVENTUAL writes count, as the hand-written ones are
// waited for. The store does not retry an EVENTUAL write: one that
// failed (other than by a server timeout, which the hand-written side
// retries) fails the round.
func (nt *nodeThroughput) newRepo() (*kstore.Repo[Event], func() error) {
	return nt.newRepoOn(nt.driver)
}

func (nt *nodeThroughput) newRepoOn(d adapter.Driver) (*kstore.Repo[Event], func() error) {
	var eventualErr atomic.Value
	listener := kandra.EventListenerFunc(func(table string, _ any, err error) {
		if !serverTimeout(err) {
			eventualErr.CompareAndSwap(nil, fmt.Errorf("EVENTUAL write to %s: %w", table, err))
		}
	})
	rt, err := kstore.New(d, nt.ks, kstore.WithConsistency(kandra.ConsistencyLocalQuorum), kstore.WithEventListener(listener))
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

// opResult is one operation's measurement at a number of goroutines.
type opResult struct {
	op      string
	workers int
	s       opStats
}

// opResults is the operations of one summary line.
type opResults []opResult

// ratios renders "save=1.012(0.95-1.07) get=...": the median and the
// quartiles of the per-pair ratios.
func (rs opResults) ratios() string {
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%.3f(%.2f-%.2f)", r.op, r.s.median, r.s.lower, r.s.upper)
	}
	return b.String()
}

// cpus renders "save=41000/43000 ...": the CPU nanoseconds per operation,
// kandra's then hand-written's ("?" when unknown).
func (rs opResults) cpus() string {
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(' ')
		}
		if r.s.kCPU > 0 && r.s.hCPU > 0 {
			fmt.Fprintf(&b, "%s=%.0f/%.0f", r.op, r.s.kCPU, r.s.hCPU)
		} else {
			fmt.Fprintf(&b, "%s=?", r.op)
		}
	}
	return b.String()
}

// rates renders "save=2410/2460 ...": the mean operations per second,
// kandra's then hand-written's.
func (rs opResults) rates() string {
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%.0f/%.0f", r.op, r.s.kRate, r.s.hRate)
	}
	return b.String()
}

// ok reports whether every median meets the target, 1.0.
func (rs opResults) ok() bool {
	for _, r := range rs {
		if r.s.median < 1 {
			return false
		}
	}
	return true
}

// measureAll measures Save, Get, Update and Patch with nodeWorkers
// goroutines (narrow), and Save and Get with nodeWideWorkers (wide).
func (nt *nodeThroughput) measureAll() (narrow, wide opResults) {
	t, ctx := nt.t, nt.ctx
	kandraSave := func(d time.Duration, workers int) roundResult {
		repo, closeRT := nt.newRepo()
		base := int(nt.roundNo.Add(1)) << 20 // each round writes new rows
		return round(t, d, workers, &nt.timeouts, func(w, n int) error { return repo.Save(ctx, nodeEvent(nt.run, w, base+n)) }, closeRT)
	}
	handSave := func(d time.Duration, workers int) roundResult {
		base := int(nt.roundNo.Add(1)) << 20
		return round(t, d, workers, &nt.timeouts, func(w, n int) error { return nt.hand.save(ctx, nodeEvent(nt.run, w, base+n)) }, nt.hand.wait)
	}

	// The rows Get, Update and Patch read and write: 32 per worker of
	// nodeWorkers, written before their rounds (slot says which worker
	// uses which); cur is each row as it is now (Update writes a new
	// email each time, and passes the row as it was).
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
	kandraGet := func(d time.Duration, workers int) roundResult {
		repo, closeRT := nt.newRepo()
		return round(t, d, workers, &nt.timeouts, func(w, n int) error {
			i, j := slot(workers, w, n)
			want := cur[i][j]
			e, err := repo.Get(ctx, want)
			if err != nil {
				return err
			}
			return check(e, want)
		}, closeRT)
	}
	handGet := func(d time.Duration, workers int) roundResult {
		return round(t, d, workers, &nt.timeouts, func(w, n int) error {
			i, j := slot(workers, w, n)
			want := cur[i][j]
			e, err := nt.hand.get(ctx, want)
			if err != nil {
				return err
			}
			return check(e, want)
		}, func() error { return nil })
	}
	// moved is the row worker w uses in its n-th operation with a new
	// email: a move of its EVENTUAL lookup, and a rewrite of its BATCH
	// one.
	moved := func(workers, w, n int) (i, j int, old, nw *Event) {
		i, j = slot(workers, w, n)
		old = cur[i][j]
		e := *old
		e.Email = fmt.Sprintf("w%d-u%d-%d@example.com", w, nt.roundNo.Load(), n)
		return i, j, old, &e
	}
	kandraUpdate := func(d time.Duration, workers int) roundResult {
		repo, closeRT := nt.newRepo()
		nt.roundNo.Add(1)
		return round(t, d, workers, &nt.timeouts, func(w, n int) error {
			i, j, old, nw := moved(workers, w, n)
			if err := repo.Update(ctx, old, nw); err != nil {
				return err
			}
			cur[i][j] = nw
			return nil
		}, closeRT)
	}
	handUpdate := func(d time.Duration, workers int) roundResult {
		nt.roundNo.Add(1)
		return round(t, d, workers, &nt.timeouts, func(w, n int) error {
			i, j, old, nw := moved(workers, w, n)
			if err := nt.hand.update(ctx, old, nw); err != nil {
				return err
			}
			cur[i][j] = nw
			return nil
		}, nt.hand.wait)
	}
	// The partial write sets the title of a row (no lookup: one plain
	// UPDATE, by Patch with Upsert), to one of 64 prepared values.
	title := kandra.MustFieldOf(events(t), func(e *Event) *string { return &e.Title })
	titles := make([]string, 64)
	for n := range titles {
		titles[n] = "patched title " + strconv.Itoa(n)
	}
	kandraPatch := func(d time.Duration, workers int) roundResult {
		repo, closeRT := nt.newRepo()
		return round(t, d, workers, &nt.timeouts, func(w, n int) error {
			i, j := slot(workers, w, n)
			_, err := repo.Patch(ctx, cur[i][j], kstore.Set(title, titles[n%len(titles)]), kstore.Upsert())
			return err
		}, closeRT)
	}
	handPatch := func(d time.Duration, workers int) roundResult {
		return round(t, d, workers, &nt.timeouts, func(w, n int) error {
			i, j := slot(workers, w, n)
			return nt.hand.patch(ctx, cur[i][j], titles[n%len(titles)])
		}, func() error { return nil })
	}
	one := func(op string, workers int, k, h nodeContender) opResult {
		return opResult{op: op, workers: workers, s: nt.ratio(op, workers, k, h)}
	}
	// Each operation at 64 goroutines right after the same at 16, which
	// warms it up.
	narrow = append(narrow, one("save", nodeWorkers, kandraSave, handSave))
	wide = append(wide, one("save", nodeWideWorkers, kandraSave, handSave))
	narrow = append(narrow, one("get", nodeWorkers, kandraGet, handGet))
	wide = append(wide, one("get", nodeWideWorkers, kandraGet, handGet))
	narrow = append(narrow, one("update", nodeWorkers, kandraUpdate, handUpdate))
	nt.checkPatchCQL(cur[0][0], kstore.Set(title, titles[0]))
	narrow = append(narrow, one("patch", nodeWorkers, kandraPatch, handPatch))
	// Both contenders' partial writes landed: the row holds one of the
	// titles.
	e, err := nt.hand.get(ctx, cur[0][0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(e.Title, "patched title ") {
		t.Fatalf("after the patch rounds the row's title is %q, not one of theirs", e.Title)
	}
	if n := nt.timeouts.Load(); n > 0 {
		t.Logf("%d operations met a server timeout and were retried", n)
	}
	return narrow, wide
}

// checkPatchCQL sends p on key once through kandra's Patch with Upsert,
// recording what the store hands the driver, and fails unless it is the
// hand-written statement: the same CQL (no USING TIMESTAMP), consistency
// LOCAL_QUORUM and four values (the title, the key's three columns).
func (nt *nodeThroughput) checkPatchCQL(key *Event, p kstore.Patch[Event]) {
	rec := &recordingDriver{Driver: nt.driver}
	repo, closeRT := nt.newRepoOn(rec)
	if _, err := repo.Patch(nt.ctx, key, p, kstore.Upsert()); err != nil {
		nt.t.Fatal(err)
	}
	if err := closeRT(); err != nil {
		nt.t.Fatal(err)
	}
	want := fmt.Sprintf("[%q LOCAL_QUORUM 4 values]", nt.cql.patch)
	if got := fmt.Sprint(rec.execs); got != want {
		nt.t.Fatalf("kandra's Patch sends %s, the hand-written code %s", got, want)
	}
}

// recordingDriver records the statements, consistency levels and number
// of values of the writes it passes on.
type recordingDriver struct {
	adapter.Driver
	mu    sync.Mutex
	execs []string
}

func (r *recordingDriver) Exec(ctx context.Context, q *adapter.Query) (bool, error) {
	r.mu.Lock()
	r.execs = append(r.execs, fmt.Sprintf("%q %s %d values", q.Statement.CQL(), q.Consistency, len(q.Values)))
	r.mu.Unlock()
	return r.Driver.Exec(ctx, q)
}

// measure runs rounds short rounds of workers goroutines in pairs, in the
// order k h, h k, k h, ..., and returns the median and quartiles over the
// pairs of kandra's operations per second over hand-written's, and each
// contender's CPU time per operation over all its rounds. Each pair runs
// back to back, so a load that drifts during the test weighs on both
// alike; the median keeps a round that met a stall (a flush or a GC pause
// on the node, a burst of other work on a shared machine: one round can
// differ from the next by several times) from deciding the result.
func (nt *nodeThroughput) measure(name string, workers, rounds int, k, h nodeContender) opStats {
	ratios := make([]float64, 0, rounds/2)
	var kSum, hSum sums
	for p := 0; p < rounds/2; p++ {
		var kv, hv roundResult
		if p%2 == 0 {
			kv = k(nt.d, workers)
			hv = h(nt.d, workers)
		} else {
			hv = h(nt.d, workers)
			kv = k(nt.d, workers)
		}
		kSum.add(kv)
		hSum.add(hv)
		ratios = append(ratios, kv.rate/hv.rate)
	}
	slices.Sort(ratios)
	n := float64(len(ratios))
	r := opStats{
		median: quantile(ratios, 0.5), lower: quantile(ratios, 0.25), upper: quantile(ratios, 0.75),
		kRate: kSum.rate / n, hRate: hSum.rate / n, kCPU: kSum.cpuPerOp(), hCPU: hSum.cpuPerOp(),
	}
	nt.t.Logf("%s, %d goroutines: kandra %.0f ops/s, %.0f CPU ns/op; hand-written %.0f ops/s, %.0f CPU ns/op (over %d rounds each); per-pair ratios %.2f: median %.3f, quartiles %.3f–%.3f",
		name, workers, r.kRate, r.kCPU, r.hRate, r.hCPU, len(ratios), ratios, r.median, r.lower, r.upper)
	return r
}

// sums adds up one contender's rounds.
type sums struct {
	rate  float64
	ops   int64
	cpu   time.Duration
	cpuOK bool
	n     int
}

func (s *sums) add(r roundResult) {
	s.cpuOK = (s.n == 0 || s.cpuOK) && r.cpuOK
	s.n++
	s.rate += r.rate
	s.ops += r.ops
	s.cpu += r.cpu
}

// cpuPerOp is the CPU nanoseconds per operation, 0 when unknown.
func (s *sums) cpuPerOp() float64 {
	if !s.cpuOK || s.ops == 0 {
		return 0
	}
	return float64(s.cpu.Nanoseconds()) / float64(s.ops)
}

// ratio measures op at workers goroutines: at nodeWorkers a warm-up
// round of each contender, nodeRounds rounds, and once more on a gross
// miss; wide, nodeWideRounds rounds only (it follows the narrow
// measurement of the same operation, which warms it up, and does not
// decide the test).
func (nt *nodeThroughput) ratio(name string, workers int, k, h nodeContender) opStats {
	rounds := nodeWideRounds
	if workers == nodeWorkers {
		rounds = nodeRounds
		k(nt.d/2, workers) // warm-up: prepared statements, connections, the node's JIT
		h(nt.d/2, workers)
	}
	r := nt.measure(name, workers, rounds, k, h)
	if workers == nodeWorkers && r.gross() && time.Since(nt.began) < remeasureWithin {
		// One more measurement before calling it a gross miss: a burst of
		// load on a shared machine can sink one series.
		nt.t.Logf("%s, %d goroutines: a gross miss? measuring once more", name, workers)
		if again := nt.measure(name, workers, rounds, k, h); !again.gross() {
			r = again
		}
	}
	return r
}

// opStats sums up one measurement: the per-pair throughput ratios'
// median and quartiles, each contender's mean operations per second and
// CPU nanoseconds per operation (0 when unknown).
type opStats struct {
	median, lower, upper float64
	kRate, hRate         float64
	kCPU, hCPU           float64
}

// gross reports a gross miss: kandra under grossMiss in at least three
// pairs of rounds in four. Noise that moves single rounds by several times
// either way rarely does that; a kandra that is really that slow always
// does.
func (r opStats) gross() bool { return r.upper < grossMiss }

// quantile is the q-quantile of sorted xs, interpolated between ranks.
func quantile(xs []float64, q float64) float64 {
	pos := q * float64(len(xs)-1)
	i := int(pos)
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[i] + (pos-float64(i))*(xs[i+1]-xs[i])
}
