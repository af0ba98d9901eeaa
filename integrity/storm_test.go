package integrity_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	gocql2 "github.com/apache/cassandra-gocql-driver/v2"
	gocql "github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/driver/kgocqlv2"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
)

// The storm: for each adapter, writer processes (this test binary run as
// TestStormWorker) read and write a small pool of versioned users with a
// unique handle and a non-unique team, from few values, so that they
// collide all the time; some use stale copies on purpose. The parent kills
// writers with SIGKILL at random points of their runs (after a drawn number
// of logged lines, then a few milliseconds) and restarts them, and each writer
// also kills itself right after some of its unique claims, before its
// primary write. Some of the versioned saves go as units of work (a
// conditional unit of one step, which claims the handle and writes the
// team's lookup row before its batch, as Save does): in the history such
// a unit is its save, not applied being a version conflict, and its
// step's Outcome must hold the row that refused it. Every writer logs
// each operation's start and end to its own file. Then the parent audits
// the node: every live user is found by its handle and its team, no
// handle is held by two live users, no read through a lookup returned a
// user without the value, no unit's Outcome contradicted its refusal,
// and the logged history of versioned writes and reads is linearizable
// per user (porcupine), with the operations a kill cut short, and the
// writes whose answer was lost, taken as possibly applied at any later
// time.

// StormUser is the storm's entity.
type StormUser struct {
	ID      uuid.UUID
	Handle  string
	Team    string
	Version int64
}

// Describe implements kandra's description.
func (u *StormUser) Describe(s *kandra.Schema[StormUser]) {
	s.Table("storm_users")
	kandra.Bind(s, &u.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Handle, kandra.Lookup("by_handle", kandra.LookupUnique))
	kandra.Bind(s, &u.Team, kandra.Lookup("by_team", kandra.LookupBatch))
	kandra.Version(s, &u.Version)
}

var (
	users     = kandra.MustRegister[StormUser]()
	handleF   = kandra.MustFieldOf(users, func(u *StormUser) *string { return &u.Handle })
	teamF     = kandra.MustFieldOf(users, func(u *StormUser) *string { return &u.Team })
	grace     = 8 * time.Second // the claim grace: longer than any stall between a claim and its write
	nUsers    = 10
	nHandles  = 8
	nTeams    = 3
	writers   = 4
	opsPerRun = 60 // operations of one writer process
	runs      = 3  // writer processes per slot, one after another
)

func envOr(k, d string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return d
}

// userID is user i's fixed id in a storm.
func userID(ks string, i int) uuid.UUID {
	return uuid.NewSHA1(uuid.NameSpaceOID, []byte(ks+"/"+strconv.Itoa(i)))
}

// node is one adapter's connection.
type node struct {
	d     adapter.Driver
	exec  func(ctx context.Context, stmt string) error
	close func()
}

func open(adapter string) (*node, error) {
	host, port := envOr("KANDRA_CASSANDRA_HOST", "127.0.0.1"), envOr("KANDRA_CASSANDRA_PORT", "9042")
	var p int
	fmt.Sscan(port, &p)
	switch adapter {
	case "gocql":
		cl := gocql.NewCluster(host)
		cl.Port, cl.ProtoVersion, cl.DisableInitialHostLookup = p, 4, true
		cl.Timeout, cl.ConnectTimeout, cl.WriteTimeout = 15*time.Second, 15*time.Second, 15*time.Second
		cl.MaxWaitSchemaAgreement = 60 * time.Second
		cl.Logger = quiet{}
		s, err := cl.CreateSession()
		if err != nil {
			return nil, err
		}
		d := kgocql.New(s)
		return &node{d: d, exec: schemaExec(d), close: s.Close}, nil
	case "gocqlv2":
		cl := gocql2.NewCluster(host)
		cl.Port, cl.ProtoVersion, cl.DisableInitialHostLookup = p, 5, true
		cl.Timeout, cl.ConnectTimeout, cl.WriteTimeout = 15*time.Second, 15*time.Second, 15*time.Second
		cl.MaxWaitSchemaAgreement = 60 * time.Second
		cl.Logger = gocql2.NewLogger(gocql2.LogLevelNone)
		s, err := cl.CreateSession()
		if err != nil {
			return nil, err
		}
		d := kgocqlv2.New(s)
		return &node{d: d, exec: schemaExec(d), close: s.Close}, nil
	}
	return nil, fmt.Errorf("unknown adapter %q", adapter)
}

type quiet struct{}

func (quiet) Print(...any)          {}
func (quiet) Printf(string, ...any) {}
func (quiet) Println(...any)        {}

// ---------------------------------------------------------------------------
// The history.

// state is one user as the model sees it.
type state struct {
	Exists  bool
	Version int64
	Handle  string
	Team    string
}

// entry is one line of a writer's log: the start or the end of an
// operation.
type entry struct {
	Client int    `json:"c"`
	Op     int    `json:"o"`
	End    bool   `json:"e,omitempty"`
	Kind   string `json:"k,omitempty"`  // read, create, cas, delete; lookup, outcome
	Unit   bool   `json:"un,omitempty"` // the write went as a unit of work
	User   int    `json:"u"`
	Expect int64  `json:"x,omitempty"`   // the version a cas or delete expects
	New    state  `json:"n"`             // a write's new values; a read's result
	Result string `json:"r,omitempty"`   // ok, notfound, lock, unique, open (kerrors.ErrUnknownOutcome), unknown; wrong (a lookup, an outcome)
	Err    string `json:"err,omitempty"` // an unknown result's error, for the report
	At     int64  `json:"t"`
}

type input struct {
	Kind   string
	Expect int64
	New    state
}

type output struct {
	Result string
	Read   state
	Err    string // an unknown result's error; the model ignores it
}

// model is a user's sequential specification: a read sees the state; a
// create applies only when the user does not exist, a cas and a delete
// only at the expected version; a refused write (lock) saw the condition
// false, a unique refusal changed nothing; an unknown outcome may or may
// not have applied. A write cut short by a kill, or whose error matches
// kerrors.ErrUnknownOutcome, may apply at any time after its start: a
// lightweight transaction accepted but not committed is completed by the
// next one on its partition, however much later. (Before, such a write
// had to apply before it returned; CI's run of 585c7eb then failed once
// on gocqlv2, seed 17, with a history it did not print: a failure now
// lists the user's operations and errors.)
var model = porcupine.NondeterministicModel{
	Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
		by := map[int][]porcupine.Operation{}
		for _, o := range h {
			k := o.Metadata.(int)
			by[k] = append(by[k], o)
		}
		keys := make([]int, 0, len(by))
		for k := range by {
			keys = append(keys, k)
		}
		sort.Ints(keys)
		out := make([][]porcupine.Operation, 0, len(keys))
		for _, k := range keys {
			out = append(out, by[k])
		}
		return out
	},
	Init: func() []any { return []any{state{}} },
	Step: func(st, in, out any) []any {
		s, i, o := st.(state), in.(input), out.(output)
		var cond bool
		var next state
		switch i.Kind {
		case "read":
			switch o.Result {
			case "ok":
				if s == o.Read {
					return []any{s}
				}
				return nil
			case "notfound":
				if !s.Exists {
					return []any{s}
				}
				return nil
			}
			return []any{s}
		case "create":
			cond, next = !s.Exists, state{true, 1, i.New.Handle, i.New.Team}
		case "cas":
			cond, next = s.Exists && s.Version == i.Expect, state{true, i.Expect + 1, i.New.Handle, i.New.Team}
		case "delete":
			cond, next = s.Exists && s.Version == i.Expect, state{}
		}
		switch o.Result {
		case "ok":
			if cond {
				return []any{next}
			}
			return nil
		case "lock":
			if !cond {
				return []any{s}
			}
			return nil
		case "unique":
			return []any{s}
		}
		if cond { // unknown
			return []any{s, next}
		}
		return []any{s}
	},
	DescribeOperation: func(in, out any) string { return fmt.Sprintf("%+v -> %+v", in, out) },
}

// ---------------------------------------------------------------------------
// The writer process.

// TestStormWorker is one writer process of TestStorm; it does nothing
// unless TestStorm started it.
// stormKeyspace is the storm's keyspace, the same in the parent and in
// every writer process.
func stormKeyspace(name string) (*kandra.Keyspace, error) {
	return kandra.NewKeyspace(kandra.KeyspaceSpec{Name: name, Replication: kandra.NetworkTopologyStrategy(map[string]int{"datacenter1": 1}), Targets: kandra.Cassandra5}, users)
}

func TestStormWorker(t *testing.T) {
	if os.Getenv("KANDRA_STORM_WORKER") != "1" {
		t.Skip("a writer process of TestStorm")
	}
	client, _ := strconv.Atoi(os.Getenv("KANDRA_STORM_CLIENT"))
	seed, _ := strconv.ParseInt(os.Getenv("KANDRA_STORM_WORKER_SEED"), 10, 64)
	diePct, _ := strconv.Atoi(os.Getenv("KANDRA_STORM_DIE_AFTER_CLAIM_PCT"))
	ks := os.Getenv("KANDRA_STORM_KEYSPACE")
	log, err := os.OpenFile(os.Getenv("KANDRA_STORM_LOG"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	n, err := open(os.Getenv("KANDRA_STORM_ADAPTER"))
	if err != nil {
		t.Fatal(err)
	}
	defer n.close()
	rng := rand.New(rand.NewSource(seed))
	d := &dieAfterClaim{Driver: n.d, pct: diePct, rng: rand.New(rand.NewSource(seed + 1))}
	k, err := stormKeyspace(ks)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := kstore.New(d, k, kstore.WithClaimGrace(grace), kstore.WithConsistency(kandra.ConsistencyOne))
	if err != nil {
		t.Fatal(err)
	}
	repo := kstore.MustNewRepo(rt, users)
	byHandle, byTeam := kstore.MustLookupOf(repo, handleF), kstore.MustLookupOf(repo, teamF)
	ctx := context.Background()
	op := 0
	write := func(e entry) {
		e.Client, e.Op, e.At = client, op, time.Now().UnixNano()
		b, _ := json.Marshal(e)
		if _, err := log.Write(append(b, '\n')); err != nil { // one write a line: a kill loses no ended op
			t.Fatal(err)
		}
	}
	stale := map[int]*StormUser{} // an old copy of each user, to write on purpose
	for ; op < opsPerRun; op++ {
		u := rng.Intn(nUsers)
		id := userID(ks, u)
		// Read it.
		write(entry{Kind: "read", User: u})
		got, err := repo.Get(ctx, &StormUser{ID: id})
		res := entry{End: true, Kind: "read", User: u, Result: "ok"}
		switch {
		case errors.Is(err, kerrors.ErrNotFound):
			res.Result = "notfound"
		case err != nil:
			res.Result, res.Err = "unknown", err.Error()
		default:
			res.New = state{true, got.Version, got.Handle, got.Team}
		}
		write(res)
		handle, team := fmt.Sprint("h", rng.Intn(nHandles)), fmt.Sprint("t", rng.Intn(nTeams))
		var kind string
		var expect int64
		var call func() error
		// A third of the saves go as a unit of work.
		viaUnit := rng.Intn(3) == 0
		save := func(e *StormUser) func() error {
			if viaUnit {
				return func() error { return unitSave(ctx, rt, repo, e, expect, write) }
			}
			return func() error { return repo.Save(ctx, e) }
		}
		switch r := rng.Intn(10); {
		case got == nil && err == nil || errors.Is(err, kerrors.ErrNotFound):
			kind = "create"
			call = save(&StormUser{ID: id, Handle: handle, Team: team})
		case err != nil:
			continue
		case r < 5:
			kind, expect, viaUnit = "cas", got.Version, false // Update is no unit's step
			nw := *got
			nw.Handle, nw.Team = handle, team
			call = func() error { return repo.Update(ctx, got, &nw) }
		case r < 7:
			kind, expect = "cas", got.Version
			cp := *got
			cp.Handle, cp.Team = handle, team
			call = save(&cp)
		case r < 8:
			// A unit's Delete refuses a table with unique lookups.
			kind, expect, viaUnit = "delete", got.Version, false
			call = func() error { return repo.HardDelete(ctx, got) }
		default: // a stale copy, when there is one
			old := stale[u]
			if old == nil {
				stale[u] = got
				continue
			}
			kind, expect = "cas", old.Version
			cp := *old
			cp.Handle, cp.Team = handle, team
			call = save(&cp)
		}
		if got != nil && rng.Intn(3) == 0 {
			stale[u] = got
		}
		nv := state{Handle: handle, Team: team}
		write(entry{Kind: kind, User: u, Expect: expect, New: nv, Unit: viaUnit})
		err = call()
		res = entry{End: true, Kind: kind, User: u, Expect: expect, New: nv, Unit: viaUnit, Result: "ok"}
		switch {
		case err == nil:
		case errors.Is(err, kerrors.ErrOptimisticLock):
			res.Result = "lock"
		case errors.Is(err, kerrors.ErrUnique):
			res.Result = "unique"
		case errors.Is(err, kerrors.ErrUnknownOutcome):
			// A lightweight transaction whose answer was lost may still be
			// completed later, by the next one on its partition: its
			// outcome stays open to the end of the history.
			res.Result, res.Err = "open", err.Error()
		default:
			res.Result, res.Err = "unknown", err.Error()
		}
		write(res)
		// Reads through the lookups never return a user without the value.
		if f, err := byHandle.Find(ctx, handle); err == nil && f.Handle != handle {
			write(entry{Kind: "lookup", User: u, Result: "wrong"})
		}
		rows, _ := byTeam.FindAll(ctx, team).All()
		for _, f := range rows {
			if f.Team != team {
				write(entry{Kind: "lookup", User: u, Result: "wrong"})
			}
		}
	}
	if err := rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// unitSave saves e, whose version is expect, as a unit of work of one
// step: a versioned Save, which makes the unit conditional. Not applied
// is a version conflict (an *kerrors.OptimisticLockError, as Save's),
// whose step's Outcome must hold the row that refused it: another
// version, or no row for a save of a version (a create, of version 0,
// finds a row); a contradiction is logged as a wrong outcome.
func unitSave(ctx context.Context, rt *kstore.Store, repo *kstore.Repo[StormUser], e *StormUser, expect int64, write func(entry)) error {
	u := rt.Unit()
	step := repo.In(u).Save(e)
	applied, err := u.Apply(ctx)
	if err != nil || applied {
		return err
	}
	out := step.Outcome()
	if out.Exists == (out.Current == nil) || out.Exists && out.Current.Version == expect || !out.Exists && expect == 0 {
		write(entry{Kind: "outcome", Result: "wrong", Expect: expect, New: state{Exists: out.Exists}})
	}
	return &kerrors.OptimisticLockError{Message: "the unit did not apply", EntityType: "StormUser", Key: e.ID}
}

// kill is when the parent kills one writer run: once its log has atLine
// lines (0: never), after a further delay, so that the kill lands inside
// an operation as often as between two.
type kill struct {
	atLine int
	delay  time.Duration
}

// killPlan is the storm's kills, one per writer run (by client number),
// from seed: about half the runs are killed, each after a number of its
// operations rather than a time, so that a run a fast machine finishes
// early is killed all the same (seed 1044102782, with kills planned by
// time, killed no run); a plan without a kill gets one.
func killPlan(seed int64) []kill {
	plan := rand.New(rand.NewSource(seed))
	kills := make([]kill, writers*runs)
	planned := false
	for i := range kills {
		if plan.Intn(2) == 0 {
			kills[i] = kill{atLine: 1 + plan.Intn(2*opsPerRun-2), delay: time.Duration(plan.Intn(20)) * time.Millisecond}
			planned = true
		}
	}
	if !planned {
		kills[0] = kill{atLine: opsPerRun}
	}
	return kills
}

// killAt kills p with SIGKILL once the log at path has k.atLine lines and
// k.delay has passed, unless stop closes first (the run ended).
func killAt(p *os.Process, path string, k kill, stop <-chan struct{}) {
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		if b, err := os.ReadFile(path); err == nil && bytes.Count(b, []byte{'\n'}) >= k.atLine {
			select {
			case <-stop:
			case <-time.After(k.delay):
				_ = p.Signal(syscall.SIGKILL)
			}
			return
		}
	}
}

// dieAfterClaim kills its own process, with probability pct %, right after
// a unique claim applied: between the claim and the primary write.
type dieAfterClaim struct {
	adapter.Driver
	pct int
	mu  sync.Mutex
	rng *rand.Rand
}

func (d *dieAfterClaim) Exec(ctx context.Context, q *adapter.Query) (bool, error) {
	applied, err := d.Driver.Exec(ctx, q)
	if err == nil && applied && strings.Contains(q.Statement.CQL(), "_by_handle") && strings.HasSuffix(q.Statement.CQL(), "IF NOT EXISTS") {
		d.mu.Lock()
		die := d.rng.Intn(100) < d.pct
		d.mu.Unlock()
		if die {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	}
	return applied, err
}

// ---------------------------------------------------------------------------
// The storm and its audit.

func TestStorm(t *testing.T) {
	host, port := envOr("KANDRA_CASSANDRA_HOST", "127.0.0.1"), envOr("KANDRA_CASSANDRA_PORT", "9042")
	if c, err := net.DialTimeout("tcp", net.JoinHostPort(host, port), 3*time.Second); err != nil {
		msg := fmt.Sprintf("no Cassandra node on %s:%s; start one with scripts/cassandra.sh start", host, port)
		if os.Getenv("KANDRA_REQUIRE_CASSANDRA") == "1" {
			t.Fatal("real-server test cannot run: " + msg)
		}
		t.Skip("skipping real-server test: " + msg)
	} else {
		_ = c.Close()
	}
	for _, adapter := range []string{"gocql", "gocqlv2"} {
		t.Run(adapter, func(t *testing.T) { storm(t, adapter) })
	}
}

func storm(t *testing.T, adapter string) {
	n, err := open(adapter)
	if err != nil {
		t.Fatal(err)
	}
	defer n.close()
	ctx := context.Background()
	ks := fmt.Sprintf("kandra_storm_%s_%d", adapter, time.Now().UnixNano()%1e9)
	k, err := stormKeyspace(ks)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range k.Statements() {
		if err := n.exec(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = n.exec(ctx, "DROP KEYSPACE IF EXISTS "+ks) })

	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The kill plan and the writers' choices come from one seed: fixed in
	// CI, KANDRA_STORM_SEED for an exploration run (scripts/explore.sh).
	seed, err := strconv.ParseInt(envOr("KANDRA_STORM_SEED", "17"), 10, 64)
	if err != nil {
		t.Fatalf("KANDRA_STORM_SEED: %v", err)
	}
	plan := killPlan(seed)
	var wg sync.WaitGroup
	var mu sync.Mutex
	killed := 0
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for r := 0; r < runs; r++ {
				client := w*runs + r
				cmd := exec.Command(self, "-test.run", "^TestStormWorker$", "-test.count", "1")
				cmd.Env = append(os.Environ(), "KANDRA_STORM_WORKER=1", "KANDRA_STORM_ADAPTER="+adapter, "KANDRA_STORM_KEYSPACE="+ks,
					"KANDRA_STORM_CLIENT="+strconv.Itoa(client), "KANDRA_STORM_WORKER_SEED="+strconv.FormatInt(seed*1000+int64(client), 10),
					"KANDRA_STORM_DIE_AFTER_CLAIM_PCT=4", "KANDRA_STORM_LOG="+filepath.Join(dir, fmt.Sprint(client, ".log")))
				out := &strings.Builder{}
				cmd.Stdout, cmd.Stderr = out, out
				if err := cmd.Start(); err != nil {
					t.Error(err)
					return
				}
				stop := make(chan struct{})
				if k := plan[client]; k.atLine > 0 {
					go killAt(cmd.Process, filepath.Join(dir, fmt.Sprint(client, ".log")), k, stop)
				}
				err := cmd.Wait()
				close(stop)
				var ee *exec.ExitError
				switch {
				case err == nil:
				case errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signaled():
					mu.Lock()
					killed++
					mu.Unlock()
				default:
					t.Errorf("writer %d: %v\n%s", client, err, out)
				}
			}
		}(w)
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	// The history.
	h := readHistory(t, dir)
	ops, wrong := h.ops, h.wrong
	perUser := map[int][]porcupine.Operation{}
	for _, o := range ops {
		perUser[o.Metadata.(int)] = append(perUser[o.Metadata.(int)], o)
	}
	lost := 0
	for u := 0; u < nUsers; u++ {
		if res := porcupine.CheckOperationsTimeout(model.ToModel(), perUser[u], 60*time.Second); res != porcupine.Ok {
			lost++
			t.Errorf("user %d: the history of its versioned writes is %s:\n%s", u, res, describe(perUser[u]))
		}
	}

	// The audit, through a runtime of the parent's own, after every
	// writer is gone (its unique claims may be stale: the audit reads).
	rt, err := kstore.New(n.d, k, kstore.WithClaimGrace(grace))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rt.Close(ctx) }()
	repo := kstore.MustNewRepo(rt, users)
	byHandle, byTeam := kstore.MustLookupOf(repo, handleF), kstore.MustLookupOf(repo, teamF)
	stranded, duplicates, live := 0, 0, 0
	holders := map[string]int{}
	for u := 0; u < nUsers; u++ {
		got, err := repo.Get(ctx, &StormUser{ID: userID(ks, u)})
		if errors.Is(err, kerrors.ErrNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		live++
		holders[got.Handle]++
		if f, err := byHandle.Find(ctx, got.Handle); err != nil || f.ID != got.ID {
			stranded++
			t.Errorf("user %d holds handle %s and Find returns %v, %v", u, got.Handle, f, err)
		}
		found := false
		rows, err := byTeam.FindAll(ctx, got.Team).All()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rows {
			found = found || f.ID == got.ID
		}
		if !found {
			stranded++
			t.Errorf("user %d holds team %s and FindAll does not return it", u, got.Team)
		}
	}
	for h, c := range holders {
		if c > 1 {
			duplicates += c - 1
			t.Errorf("handle %s is held by %d live users", h, c)
		}
	}
	if wrong > 0 {
		t.Errorf("%d reads through a lookup returned a user without the value", wrong)
	}
	if h.outcomes > 0 {
		t.Errorf("%d units did not apply with an Outcome that does not refuse them (no row, or the version they expected)", h.outcomes)
	}
	if h.units == 0 {
		t.Error("no unit of work ran: the storm did not test what it says")
	}
	if killed == 0 {
		t.Error("no writer was killed: the storm did not test what it says")
	}
	fmt.Printf("real-server: integrity adapter=%s ops=%d units=%d wrong=%d stranded=%d lost=%d duplicates=%d killed=%d unknown=%d open=%d live=%d seed=%d\n",
		adapter, len(ops), h.units, wrong, stranded, lost, duplicates, killed, h.unknown, h.open, live, seed)
}

// history is the writers' logs read back.
type history struct {
	ops      []porcupine.Operation
	wrong    int // reads through a lookup that returned a user without the value
	outcomes int // units not applied whose Outcome does not refuse them
	units    int // writes that went as a unit of work, ended or cut short
	unknown  int // operations (reads too) that ended with an error other than a refusal or a lost answer
	open     int // writes whose answer was lost (kerrors.ErrUnknownOutcome)
}

// readHistory reads every writer's log into porcupine operations: an
// operation whose end a kill cut off is unknown, returning at the end of
// time (a unit's as its save's); it also counts the wrong lookup reads,
// the wrong outcomes and the units.
func readHistory(t *testing.T, dir string) history {
	files, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	var h history
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		open := map[int]entry{}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			var e entry
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				continue // a line a kill cut in half
			}
			switch {
			case e.Kind == "lookup":
				if e.Result == "wrong" {
					h.wrong++
				}
			case e.Kind == "outcome":
				h.outcomes++
			case !e.End:
				open[e.Op*2+boolInt(e.Kind != "read")] = e
				if e.Unit {
					h.units++
				}
			default:
				key := e.Op*2 + boolInt(e.Kind != "read")
				b, ok := open[key]
				if !ok {
					continue
				}
				delete(open, key)
				ret, res := e.At, e.Result
				switch res {
				case "unknown":
					h.unknown++
				case "open": // may apply after it returned
					h.open++
					ret, res = math.MaxInt64, "unknown"
				}
				h.ops = append(h.ops, porcupine.Operation{ClientId: e.Client, Call: b.At, Return: ret, Metadata: e.User,
					Input: input{Kind: e.Kind, Expect: e.Expect, New: e.New}, Output: output{Result: res, Read: e.New, Err: e.Err}})
			}
		}
		_ = fh.Close()
		for _, b := range open { // cut short by a kill: may or may not have applied
			h.ops = append(h.ops, porcupine.Operation{ClientId: b.Client, Call: b.At, Return: math.MaxInt64, Metadata: b.User,
				Input: input{Kind: b.Kind, Expect: b.Expect, New: b.New}, Output: output{Result: "unknown", Err: "cut short by a kill"}})
		}
	}
	return h
}

// describe lists one user's operations by their start, times in
// milliseconds from the first start, for a failure's report.
func describe(ops []porcupine.Operation) string {
	ops = append([]porcupine.Operation(nil), ops...)
	sort.Slice(ops, func(i, j int) bool { return ops[i].Call < ops[j].Call })
	var b strings.Builder
	for _, o := range ops {
		in, out := o.Input.(input), o.Output.(output)
		end := "open"
		if o.Return != math.MaxInt64 {
			end = fmt.Sprintf("%.1f", float64(o.Return-ops[0].Call)/1e6)
		}
		fmt.Fprintf(&b, "  client %2d  %9.1f .. %9s  %-6s expect=%d new=%+v -> %s %+v %s\n", o.ClientId,
			float64(o.Call-ops[0].Call)/1e6, end, in.Kind, in.Expect, in.New, out.Result, out.Read, out.Err)
	}
	return b.String()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// schemaExec runs a schema statement through d and waits for agreement,
// as the migrator does.
func schemaExec(d adapter.Driver) func(ctx context.Context, stmt string) error {
	return func(ctx context.Context, stmt string) error {
		if _, err := d.ExecCQL(ctx, stmt, nil, kandra.ConsistencyOne); err != nil {
			return err
		}
		return d.AwaitSchemaAgreement(ctx)
	}
}

// TestKillPlan: every seed's plan kills at least one run, each kill
// inside a run's log (an operation logs at least two lines); seed
// 1044102782, whose time-planned kills all came after its runs had ended,
// is kept as the regression case, beside CI's seed 17.
func TestKillPlan(t *testing.T) {
	for _, seed := range []int64{17, 1044102782, 0, 1, 2} {
		n := 0
		for _, k := range killPlan(seed) {
			if k.atLine > 0 {
				n++
				if k.atLine > 2*opsPerRun {
					t.Errorf("seed %d: a kill at line %d, past a run's %d operations", seed, k.atLine, opsPerRun)
				}
			}
		}
		if n == 0 {
			t.Errorf("seed %d: no run is killed", seed)
		}
	}
}
