package migrate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

type applyUserV1 struct {
	ID    string
	Email string
	Name  string
}

func (u *applyUserV1) Describe(s *kandra.Schema[applyUserV1]) {
	s.Table("users")
	kandra.Bind(s, &u.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Name)
}

type applyUserV2 struct {
	ID    string
	Email string
	Name  string
}

func (u *applyUserV2) Describe(s *kandra.Schema[applyUserV2]) {
	s.Table("users")
	kandra.Bind(s, &u.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Email, kandra.Lookup("by_email", kandra.LookupBatch))
}

type applyUserBad struct {
	ID   string
	Name int64
}

func (u *applyUserBad) Describe(s *kandra.Schema[applyUserBad]) {
	s.Table("users")
	kandra.Bind(s, &u.ID, kandra.PartitionKey(0))
}

type applyTodo struct {
	Owner, ID uuid.UUID
	Title     string
}

func (t *applyTodo) Describe(s *kandra.Schema[applyTodo]) {
	s.Table("todos")
	kandra.Bind(s, &t.Owner, kandra.PartitionKey(0))
	kandra.Bind(s, &t.ID, kandra.ClusteringKey(0, kandra.ClusteringAsc))
}

var (
	applyUsersV1  = kandra.MustRegister[applyUserV1]()
	applyUsersV2  = kandra.MustRegister[applyUserV2]()
	applyUsersBad = kandra.MustRegister[applyUserBad]()
	applyTodos    = kandra.MustRegister[applyTodo]()
)

func applyKS(t testing.TB, users kandra.SchemaSource) *kandra.Keyspace {
	t.Helper()
	ks, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "app", Targets: kandra.Cassandra5, Replication: kandra.SimpleStrategy(1)}, users, applyTodos)
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

func ids2(steps []Step) string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = s.ID
	}
	return strings.Join(out, ",")
}

func TestApplyFreshThenIdempotent(t *testing.T) {
	ks := applyKS(t, applyUsersV1)
	f := newFake(nil, ks)
	ctx := context.Background()
	var events []EventKind
	var mu sync.Mutex
	reviewed, err := PlanFor(ctx, f, ks)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Apply(ctx, f, ks, ApplyOptions{Owner: "me", OnEvent: func(e Event) { mu.Lock(); events = append(events, e.Kind); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	// The keyspace is created before the lease, and recorded with the
	// rest: the record is of the plan as reviewed.
	if got := ids2(res.Applied); got != "create-keyspace:app,create-table:users,create-table:todos" || got != ids2(reviewed.Steps) {
		t.Fatalf("applied %s, reviewed %s", got, ids2(reviewed.Steps))
	}
	if res.Record == nil || res.Record.Owner != "me" || res.Record.PlanHash != res.Plan.Hash() || res.Record.PlanHash != reviewed.Hash() ||
		strings.Join(res.Record.Steps, ",") != ids2(res.Applied) {
		t.Fatalf("record %+v, reviewed plan %s", res.Record, reviewed.Hash())
	}
	// The keyspace and the migrator's tables come first, each with a
	// fixed id on Cassandra.
	if !strings.HasPrefix(f.schema[0], "CREATE KEYSPACE IF NOT EXISTS app") {
		t.Fatalf("first statement %q", f.schema[0])
	}
	for i, n := range []string{LeaseTable, HistoryTable, BackfillTable} {
		if s := f.schema[1+i]; !strings.Contains(s, "app."+n+" ") || !strings.HasSuffix(s, "WITH ID = "+TableID("app", n).String()) {
			t.Fatalf("statement %d: %q", 1+i, s)
		}
	}
	want := []EventKind{EventLeaseAcquired, EventStepDone, EventStepStarted, EventStepDone, EventStepStarted, EventStepDone, EventLeaseReleased}
	if !slices.Equal(events, want) {
		t.Fatalf("events %v, want %v", events, want)
	}
	if f.leaseOwner != "" {
		t.Fatalf("lease still held by %q", f.leaseOwner)
	}
	if err := Check(ctx, f, ks); err != nil {
		t.Fatal(err)
	}

	n := len(f.schema)
	res, err = Apply(ctx, f, ks, ApplyOptions{Approve: []string{"all"}})
	if err != nil || !res.Plan.Empty() || len(res.Applied) != 0 || res.Record != nil {
		t.Fatalf("second apply: %+v, %v", res, err)
	}
	for _, s := range f.schema[n:] {
		if !strings.Contains(s, "IF NOT EXISTS") {
			t.Fatalf("second apply ran %q", s)
		}
	}
	h, err := History(ctx, f, ks)
	if err != nil || len(h) != 1 {
		t.Fatalf("history %+v, %v", h, err)
	}
}

func TestApplyRefusesImpossibleBeforeChanging(t *testing.T) {
	v1 := applyKS(t, applyUsersV1)
	bad := applyKS(t, applyUsersBad)
	f := newFake(v1, bad)
	res, err := Apply(context.Background(), f, bad, ApplyOptions{Approve: []string{"all"}})
	var me *kerrors.MigrationError
	if !errors.As(err, &me) || !errors.Is(err, kerrors.ErrMigration) || !strings.Contains(err.Error(), "change-type:users.name") ||
		!strings.Contains(err.Error(), "manual path") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("err = %v", err)
	}
	if res == nil || res.Plan == nil || len(res.Applied) != 0 {
		t.Fatalf("res = %+v", res)
	}
	if len(f.schema) != 0 || f.writes != 0 {
		t.Fatalf("a refused apply ran %d schema statements and %d writes: %v", len(f.schema), f.writes, f.schema)
	}
}

func TestApplyWaitsForAnotherLease(t *testing.T) {
	ks := applyKS(t, applyUsersV1)
	f := newFake(nil, ks)
	f.leaseOwner, f.leaseExpiry = "other", time.Now().Add(400*time.Millisecond)
	var waited []string
	res, err := Apply(context.Background(), f, ks, ApplyOptions{Owner: "me", LeaseWait: 5 * time.Second,
		OnEvent: func(e Event) {
			if e.Kind == EventLeaseWaiting {
				waited = append(waited, e.Message)
			}
		}})
	if err != nil || len(res.Applied) != 3 {
		t.Fatalf("%+v, %v", res, err)
	}
	if len(waited) != 1 || !strings.Contains(waited[0], "held by other") {
		t.Fatalf("waiting events %q", waited)
	}
}

func TestApplyGivesUpOnAHeldLease(t *testing.T) {
	ks := applyKS(t, applyUsersV1)
	f := newFake(nil, ks)
	f.leaseOwner, f.leaseExpiry = "other", time.Now().Add(time.Hour)
	_, err := Apply(context.Background(), f, ks, ApplyOptions{Owner: "me", LeaseWait: 300 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "held by other") || !strings.Contains(err.Error(), "LeaseWait") {
		t.Fatalf("err = %v", err)
	}
	if len(f.tables) != 0 {
		t.Fatalf("tables created without the lease: %v", f.tables)
	}
}

func TestApplyStopsWhenTheLeaseIsLost(t *testing.T) {
	ks := applyKS(t, applyUsersV1)
	f := newFake(nil, ks)
	f.onSchema = func(ctx context.Context, stmt string) error {
		if !strings.Contains(stmt, "todos") {
			return nil
		}
		// Another applier takes the lease over while this step hangs.
		f.mu.Lock()
		f.leaseOwner, f.leaseExpiry = "thief", time.Now().Add(time.Hour)
		f.mu.Unlock()
		<-ctx.Done()
		return ctx.Err()
	}
	start := time.Now()
	res, err := Apply(context.Background(), f, ks, ApplyOptions{Owner: "me", LeaseTTL: time.Second})
	if err == nil || !errors.Is(err, errLeaseLost) || !strings.Contains(err.Error(), "thief holds it now") {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("took %s to notice", time.Since(start))
	}
	if ids2(res.Applied) != "create-keyspace:app,create-table:users" || res.Record == nil {
		t.Fatalf("res = %+v", res)
	}
	if f.leaseOwner != "thief" {
		t.Fatalf("the release removed another owner's lease: %q", f.leaseOwner)
	}
}

func TestApplyResumesAfterInterruption(t *testing.T) {
	ks := applyKS(t, applyUsersV2)
	f := newFake(nil, ks)
	ctx, cancel := context.WithCancel(context.Background())
	res, err := Apply(ctx, f, ks, ApplyOptions{OnEvent: func(e Event) {
		if e.Kind == EventStepDone && e.Step.Kind != StepCreateKeyspace {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || ids2(res.Applied) != "create-keyspace:app,create-table:users" || res.Record == nil {
		t.Fatalf("interrupted: %+v, %v", res, err)
	}
	if f.leaseOwner != "" {
		t.Fatal("an interrupted apply kept the lease")
	}
	// The table now exists (and is empty): its lookup's backfill runs
	// without approval.
	res, err = Apply(context.Background(), f, ks, ApplyOptions{})
	if err != nil || ids2(res.Applied) != "create-table:todos,create-lookup-table:users_by_email,backfill:users_by_email" || len(res.Unapproved) != 0 {
		t.Fatalf("resumed: %+v, %v", res, err)
	}
	if len(res.Backfills) != 1 || !res.Backfills[0].Verified {
		t.Fatalf("backfills %+v", res.Backfills)
	}
	if err := Check(context.Background(), f, ks); err != nil {
		t.Fatal(err)
	}
	h, _ := History(context.Background(), f, ks)
	if len(h) != 2 {
		t.Fatalf("history %+v", h)
	}
}

func TestApplyUnapprovedBackfillStaysPlanned(t *testing.T) {
	v1, v2 := applyKS(t, applyUsersV1), applyKS(t, applyUsersV2)
	f := newFake(v1, v2)
	f.own[LeaseTable], f.own[HistoryTable], f.own[BackfillTable] = true, true, true
	for i := 0; i < 50; i++ {
		email := fmt.Sprintf("u%d@x", i)
		if i%5 == 0 {
			email = ""
		}
		f.rows["users"] = append(f.rows["users"], []any{fmt.Sprint(i), email})
	}
	ctx := context.Background()
	res, err := Apply(ctx, f, v2, ApplyOptions{})
	const bf = "backfill:users_by_email"
	if err != nil || !strings.Contains(ids2(res.Applied), "create-lookup-table:users_by_email") || ids2(res.Unapproved) != bf {
		t.Fatalf("unapproved: %+v, %v", res, err)
	}
	if f.bfStatus["users_by_email"] != "pending" {
		t.Fatalf("status %q", f.bfStatus["users_by_email"])
	}
	if err := Check(ctx, f, v2); err == nil || !strings.Contains(err.Error(), "users_by_email is not backfilled") {
		t.Fatalf("Check = %v", err)
	}
	p, err := PlanFor(ctx, f, v2)
	if err != nil || ids2(p.Steps) != bf || p.Steps[0].Class != NeedsApproval || p.Steps[0].Lookup == nil {
		t.Fatalf("plan %+v, %v", p, err)
	}
	res, err = Apply(ctx, f, v2, ApplyOptions{Approve: []string{bf}})
	if err != nil || ids2(res.Applied) != bf || len(res.Backfills) != 1 {
		t.Fatalf("approved: %+v, %v", res, err)
	}
	if r := res.Backfills[0]; !r.Verified || r.Valued != 40 || r.LookupRows != 40 || r.Rows != 50 || r.Written != 40 || r.Resumed {
		t.Fatalf("backfill %+v", r)
	}
	if err := Check(ctx, f, v2); err != nil {
		t.Fatal(err)
	}
	if p, _ := PlanFor(ctx, f, v2); !p.Empty() {
		t.Fatalf("plan after the backfill: %s", ids2(p.Steps))
	}
}

func TestApplyRenewsTheLeaseDuringALongStep(t *testing.T) {
	ks := applyKS(t, applyUsersV1)
	f := newFake(nil, ks)
	other := make(chan error, 1)
	f.onSchema = func(ctx context.Context, stmt string) error {
		if !strings.Contains(stmt, "todos") {
			return nil
		}
		// The step outlives the lease's TTL (3s): only renewals keep it.
		// It waits for the renewals themselves, not a fixed time, and the
		// TTL is three renewal periods, so a slow machine (-race on two
		// cores) delays the test but cannot fail it: a renewal would have
		// to be two seconds late.
		start := time.Now()
		for deadline := start.Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
			f.mu.Lock()
			n := f.renewals
			f.mu.Unlock()
			if n >= 4 && time.Since(start) > 3*time.Second {
				break
			}
			if time.Now().After(deadline) {
				other <- fmt.Errorf("only %d renewals in a minute", n)
				return nil
			}
		}
		_, err := Apply(context.Background(), f, ks, ApplyOptions{Owner: "other", LeaseWait: 50 * time.Millisecond})
		other <- err
		return nil
	}
	res, err := Apply(context.Background(), f, ks, ApplyOptions{Owner: "me", LeaseTTL: 3 * time.Second})
	if err != nil || len(res.Applied) != 3 {
		t.Fatalf("%+v, %v", res, err)
	}
	if err := <-other; err == nil || !strings.Contains(err.Error(), "held by me") {
		t.Fatalf("a second applier during the long step: %v", err)
	}
}

// Many appliers at once: each step runs once, one history record.
func TestApplyConcurrentAppliers(t *testing.T) {
	ks := applyKS(t, applyUsersV2)
	f := newFake(nil, ks)
	var wg sync.WaitGroup
	results := make([]*Result, 8)
	errs := make([]error, 8)
	for i := range results {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i], errs[i] = Apply(context.Background(), f, ks, ApplyOptions{Owner: fmt.Sprint("applier-", i), LeaseWait: 10 * time.Second})
		}(i)
	}
	wg.Wait()
	applied := 0
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("applier %d: %v", i, errs[i])
		}
		if len(r.Applied) > 0 {
			applied++
		}
	}
	if applied != 1 || len(f.history) != 1 {
		t.Fatalf("%d appliers applied steps, %d history records", applied, len(f.history))
	}
	// Every applier ran the keyspace's CREATE KEYSPACE IF NOT EXISTS; the
	// one record holds the recording applier's plan: the keyspace's step
	// first when that applier planned before the keyspace existed (which
	// of them got there first is the scheduler's choice), then the tables.
	steps := f.history[0]["steps"].([]string)
	tables := steps
	if len(steps) > 0 && steps[0] == "create-keyspace:app" {
		tables = steps[1:]
	}
	if len(tables) != 3 || slices.Contains(tables, "create-keyspace:app") {
		t.Fatalf("recorded %v", steps)
	}
	seen := map[string]int{}
	for _, s := range f.schema {
		if strings.HasPrefix(s, "CREATE KEYSPACE") || strings.Contains(s, ".kandra_") {
			continue // every applier runs these, converging
		}
		if seen[s]++; seen[s] > 1 {
			t.Fatalf("a step ran twice: %q", s)
		}
	}
	planned := 0
	for _, r := range results {
		planned += len(r.Plan.Steps)
	}
	if len(seen) != 3 || planned != len(steps) { // the keyspace's step, run before the lease, is in the recorder's plan
		t.Fatalf("%d steps ran, %d planned under the lease in all, %d recorded", len(seen), planned, len(steps))
	}
}

func TestApplyRefusesWithoutAgreement(t *testing.T) {
	ks := applyKS(t, applyUsersV1)
	f := newFake(nil, ks)
	f.agreement = &kerrors.AgreementError{Versions: map[string]string{"127.0.0.1": "a", "127.0.0.3": "b"}, Waited: time.Second}
	res, err := Apply(context.Background(), f, ks, ApplyOptions{Owner: "me"})
	var ae *kerrors.AgreementError
	if !errors.Is(err, kerrors.ErrMigration) || !errors.As(err, &ae) || !strings.Contains(err.Error(), "nothing was changed") ||
		!strings.Contains(err.Error(), "127.0.0.3=b") {
		t.Fatalf("err = %v", err)
	}
	if len(f.schema) != 0 || f.writes != 0 || len(res.Applied) != 0 {
		t.Fatalf("an apply without agreement ran %v (%d writes)", f.schema, f.writes)
	}
	// In sync already, it needs no agreement: nothing is changed.
	g := newFake(ks, ks)
	g.agreement = f.agreement
	if res, err := Apply(context.Background(), g, ks, ApplyOptions{}); err != nil || len(res.Applied) != 0 || len(g.schema) != 0 {
		t.Fatalf("in sync: %+v, %v, ran %v", res, err, g.schema)
	}
}

func TestApplyStopsWaitingWhenAnotherApplierDidTheWork(t *testing.T) {
	ks := applyKS(t, applyUsersV1)
	f := newFake(nil, ks)
	f.leaseOwner, f.leaseExpiry = "other", time.Now().Add(time.Hour)
	go func() {
		// The lease holder creates the tables and keeps its lease.
		time.Sleep(300 * time.Millisecond)
		f.mu.Lock()
		defer f.mu.Unlock()
		f.exists = true
		for _, tb := range ks.Tables() {
			f.tables[tb.Name()] = tb
		}
	}()
	start := time.Now()
	res, err := Apply(context.Background(), f, ks, ApplyOptions{Owner: "me", LeaseWait: 20 * time.Second})
	if err != nil || len(res.Applied) != 0 || res.Record != nil || !res.Plan.Empty() {
		t.Fatalf("%+v, %v", res, err)
	}
	if waited := time.Since(start); waited > 10*time.Second {
		t.Fatalf("waited %s for a lease it did not need", waited)
	}
	if f.leaseOwner != "other" {
		t.Fatalf("lease owner %q", f.leaseOwner)
	}
}

func TestApplyRecordsAStepWhoseAgreementTimedOut(t *testing.T) {
	ks := applyKS(t, applyUsersV1)
	f := newFake(nil, ks)
	f.onSchema = func(ctx context.Context, stmt string) error {
		if strings.Contains(stmt, "app.todos") {
			return &kerrors.AgreementError{Statement: stmt, Versions: map[string]string{"127.0.0.1": "new", "127.0.0.3": "old"}, Waited: time.Second}
		}
		return nil
	}
	res, err := Apply(context.Background(), f, ks, ApplyOptions{Owner: "me"})
	var ae *kerrors.AgreementError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "step create-table:todos ran") || !strings.Contains(err.Error(), "apply again") {
		t.Fatalf("err = %v", err)
	}
	if got := ids2(res.Applied); got != "create-keyspace:app,create-table:users,create-table:todos" {
		t.Fatalf("applied %s", got)
	}
	if res.Record == nil || strings.Join(res.Record.Steps, ",") != "create-keyspace:app,create-table:users,create-table:todos" || len(f.history) != 1 {
		t.Fatalf("record %+v, history %v", res.Record, f.history)
	}
	if f.leaseOwner != "" {
		t.Fatalf("lease still held by %q", f.leaseOwner)
	}
}

// Another applier that created the keyspace first and recorded it: this
// one ran the CREATE KEYSPACE IF NOT EXISTS too, as a no-op, and records
// only the rest.
func TestApplyRecordsTheKeyspaceOnce(t *testing.T) {
	ks := applyKS(t, applyUsersV1)
	f := newFake(nil, ks)
	f.onSchema = func(ctx context.Context, stmt string) error {
		if strings.HasPrefix(stmt, "CREATE KEYSPACE") {
			f.mu.Lock()
			f.history = append(f.history, map[string]any{"plan_hash": "other", "applied_at": time.Now().UTC(), "steps": []string{"create-keyspace:app"}, "owner": "other"})
			f.mu.Unlock()
		}
		return nil
	}
	res, err := Apply(context.Background(), f, ks, ApplyOptions{Owner: "me"})
	if err != nil || ids2(res.Applied) != "create-table:users,create-table:todos" || ids2(res.Plan.Steps) != ids2(res.Applied) {
		t.Fatalf("%+v, %v", res, err)
	}
	if len(f.history) != 2 || strings.Join(f.history[1]["steps"].([]string), ",") != ids2(res.Applied) || f.history[1]["plan_hash"] != res.Plan.Hash() {
		t.Fatalf("history %v", f.history)
	}
}

// TestApplyRecordsNothingWhenAnotherDidTheWork: applier A plans before the
// keyspace exists and creates it; B plans once it exists, takes the lease
// first and applies the tables. A, under the lease, finds nothing left:
// it records nothing (the race the concurrent test met under load, when A
// recorded its create-keyspace step alone).
func TestApplyRecordsNothingWhenAnotherDidTheWork(t *testing.T) {
	ctx := context.Background()
	ks := applyKS(t, applyUsersV2)
	f := newFake(nil, ks)
	reviewed, err := PlanFor(ctx, f, ks)
	if err != nil || reviewed.Steps[0].Kind != StepCreateKeyspace {
		t.Fatalf("A's plan %v, %v", reviewed, err)
	}
	created := reviewed.Steps[0]
	if err := ensureInfra(ctx, f, ks, Server{}); err != nil {
		t.Fatal(err)
	}
	b, err := Apply(ctx, f, ks, ApplyOptions{Owner: "b"})
	if err != nil || len(b.Applied) != 3 || len(f.history) != 1 {
		t.Fatalf("B: %+v, %v, %d records", b, err, len(f.history))
	}
	o := ApplyOptions{Owner: "a"}
	o.defaults()
	a, err := applyLeased(ctx, f, ks, Server{}, &o, func(Event) {}, &created)
	if err != nil || len(a.Applied) != 0 || len(f.history) != 1 {
		t.Fatalf("A under the lease: %+v, %v, %d records", a, err, len(f.history))
	}
}

// A lease TTL under a second is refused before anything is sent: the
// lease row's TTL counts whole seconds, and a TTL under 3ns made the
// renewal ticker's period 0 (a panic in time.NewTicker).
func TestApplyRefusesALeaseTTLUnderASecond(t *testing.T) {
	ks := applyKS(t, applyUsersV1)
	for _, ttl := range []time.Duration{1, 2, 3 * time.Nanosecond, time.Millisecond, 999 * time.Millisecond, -time.Second} {
		f := newFake(nil, ks)
		res, err := Apply(context.Background(), f, ks, ApplyOptions{Owner: "me", LeaseTTL: ttl})
		if !errors.Is(err, kerrors.ErrMigration) || !strings.Contains(err.Error(), "ApplyOptions.LeaseTTL "+ttl.String()) ||
			!strings.Contains(err.Error(), "1s or more") || res == nil || len(res.Applied) != 0 {
			t.Fatalf("LeaseTTL %s: %+v, %v", ttl, res, err)
		}
		if len(f.schema) != 0 || f.writes != 0 {
			t.Fatalf("LeaseTTL %s: a refused apply ran %v, %d writes", ttl, f.schema, f.writes)
		}
	}
	f := newFake(nil, ks)
	if _, err := Apply(context.Background(), f, ks, ApplyOptions{Owner: "me", LeaseTTL: time.Second}); err != nil {
		t.Fatalf("LeaseTTL 1s: %v", err)
	}
}

// noIndexes is a fake on which CREATE INDEX is accepted and does nothing,
// as Cassandra takes CREATE INDEX IF NOT EXISTS of a name another index
// has.
type noIndexes struct{ *fakeDriver }

func (n noIndexes) ExecSchema(ctx context.Context, stmt string) error {
	if strings.HasPrefix(stmt, "CREATE INDEX") {
		n.mu.Lock()
		n.schema = append(n.schema, stmt)
		n.mu.Unlock()
		return nil
	}
	return n.fakeDriver.ExecSchema(ctx, stmt)
}

// TestApplyChecksEachStep: a step the server accepted without its effect
// showing in the live schema stops Apply with an error naming it, and is
// neither applied nor recorded; the steps before it are.
func TestApplyChecksEachStep(t *testing.T) {
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 1}), Targets: kandra.Cassandra5}, kandra.MustRegister[indexed]())
	f := newFake(nil, ks)
	res, err := Apply(context.Background(), noIndexes{f}, ks, ApplyOptions{Owner: "me"})
	if err == nil || !strings.Contains(err.Error(), "step create-index:docs_tag_idx ran and the server accepted it, but the live schema does not show its effect") ||
		!strings.Contains(err.Error(), "CREATE INDEX IF NOT EXISTS docs_tag_idx ON ks.docs (tag);") {
		t.Fatalf("err = %v", err)
	}
	if got := ids2(res.Applied); got != "create-keyspace:ks,create-table:docs" || res.Record == nil || strings.Join(res.Record.Steps, ",") != got {
		t.Fatalf("applied %s, record %+v", got, res.Record)
	}
	// On a server that creates it, the same plan applies and converges.
	f = newFake(nil, ks)
	if _, err := Apply(context.Background(), f, ks, ApplyOptions{Owner: "me"}); err != nil {
		t.Fatal(err)
	}
	if err := Check(context.Background(), f, ks); err != nil {
		t.Fatal(err)
	}
}
