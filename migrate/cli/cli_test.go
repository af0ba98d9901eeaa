package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/migrate"
)

func TestUsageAndHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		r := runWith(t, &fakeDriver{}, backend{}, false, args...)
		if r.code != ExitOK || !strings.HasPrefix(r.stdout, "Usage: app schema <command>") || r.stderr != "" {
			t.Fatalf("%v: %+v", args, r)
		}
		if !strings.Contains(r.stdout, "keyspace shop") || !strings.Contains(r.stdout, "--approve ID,...|all") {
			t.Fatalf("%v: usage lacks the keyspace or a flag:\n%s", args, r.stdout)
		}
	}
	// Each command's own -h: its flags, on stderr as the flag package does.
	for _, cmd := range []string{"plan", "validate", "apply", "backfill", "history"} {
		r := runWith(t, &fakeDriver{}, backend{}, false, cmd, "-h")
		if r.code != ExitOK || !strings.Contains(r.stderr, "Usage: app schema "+cmd) {
			t.Fatalf("%s -h: %+v", cmd, r)
		}
	}
	r := runWith(t, &fakeDriver{}, backend{}, false, "plan", "--help")
	if r.code != ExitOK || !strings.Contains(r.stderr, "-cql") {
		t.Fatalf("plan --help: %+v", r)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // in stderr
	}{
		{nil, "no command given"},
		{[]string{"migrate"}, `unknown command "migrate"`},
		{[]string{"plan", "now"}, `unexpected argument "now"`},
		{[]string{"plan", "--sql"}, "flag provided but not defined: -sql"},
		{[]string{"validate", "x"}, `unexpected argument "x"`},
		{[]string{"history", "--cql"}, "flag provided but not defined: -cql"},
		{[]string{"apply", "--approve"}, "flag needs an argument"},
		{[]string{"apply", "--approve", " , "}, "want step IDs separated by commas"},
		{[]string{"apply", "--lease-ttl", "soon"}, "invalid value"},
		{[]string{"apply", "--lease-ttl", "-5s"}, "positive duration"},
		{[]string{"apply", "--concurrency", "-1"}, "--concurrency -1"},
		{[]string{"apply", "--lease-ttl", "1ns"}, "--lease-ttl 1ns: want 1s or more"},
		{[]string{"apply", "--lease-ttl", "999ms"}, "--lease-ttl 999ms: want 1s or more"},
		{[]string{"apply", "--page-size", "2147483648"}, "--page-size 2147483648: want at most 2147483647"},
		{[]string{"backfill", "--page-size", "4294967297", "accounts_by_email"}, "--page-size 4294967297: want at most 2147483647"},
		{[]string{"backfill"}, "want 1 argument(s), got 0"},
		{[]string{"backfill", "a", "b"}, "want 1 argument(s), got 2"},
		{[]string{"backfill", "accounts_by_name"}, `"accounts_by_name" is not a lookup table of keyspace shop (its lookup tables: accounts_by_email)`},
	} {
		be := backend{
			planFor: func(context.Context, adapter.Driver, *kandra.Keyspace) (*migrate.Plan, error) {
				t.Fatalf("%q: usage error reached the server", tc.args)
				return nil, nil
			},
			apply: func(context.Context, adapter.Driver, *kandra.Keyspace, migrate.ApplyOptions) (*migrate.Result, error) {
				t.Fatalf("%q: usage error reached the server", tc.args)
				return nil, nil
			},
			backfill: func(context.Context, adapter.Driver, *kandra.Keyspace, *kandra.LookupTableSchema, migrate.BackfillOptions) (*migrate.BackfillResult, error) {
				t.Fatalf("%q: usage error reached the server", tc.args)
				return nil, nil
			},
		}
		r := runWith(t, &fakeDriver{}, be, false, tc.args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
			t.Fatalf("%q: want exit 2 and %q on stderr, got %+v", tc.args, tc.want, r)
		}
		if len(tc.args) != 2 || tc.args[0] != "backfill" { // an unknown table lists the known ones instead
			if !strings.Contains(r.stderr, "Usage: app schema") {
				t.Fatalf("%q: no usage printed:\n%s", tc.args, r.stderr)
			}
		}
	}
}

func TestNilDriverOrKeyspace(t *testing.T) {
	var out, errb strings.Builder
	if code := Run(context.Background(), nil, testKeyspace, []string{"plan"}, &out, &errb); code != ExitError ||
		!strings.Contains(errb.String(), "needs a driver and a *kandra.Keyspace") {
		t.Fatalf("nil driver: %d %q", code, errb.String())
	}
	errb.Reset()
	if code := Run(context.Background(), &fakeDriver{}, nil, []string{"validate"}, &out, &errb); code != ExitError {
		t.Fatalf("nil keyspace: %d %q", code, errb.String())
	}
	// Help needs neither.
	if code := Run(context.Background(), nil, nil, []string{"--help"}, &out, &errb); code != ExitOK ||
		!strings.Contains(out.String(), "the program's keyspace") {
		t.Fatalf("help without a keyspace: %d %q", code, out.String())
	}
}

func TestPlan(t *testing.T) {
	p := &migrate.Plan{Keyspace: "shop", Steps: []migrate.Step{stepTable, stepBackfill}, Extra: []string{"table accounts_old"}}
	r := runWith(t, &fakeDriver{}, planBackend(p, nil), false, "plan")
	if r.code != ExitOK || r.stdout != withNewline(p.String())+"not in the model (kept, never dropped): table accounts_old\n" || r.stderr != "" {
		t.Fatalf("plan: %+v", r)
	}
	for _, want := range []string{p.Hash(), stepTable.ID, stepBackfill.ID, "needs approval", stepBackfill.Reason} {
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("plan output lacks %q:\n%s", want, r.stdout)
		}
	}

	// --cql: the script alone on stdout, to redirect to a file.
	r = runWith(t, &fakeDriver{}, planBackend(p, nil), false, "plan", "--cql")
	if r.code != ExitOK || r.stdout != p.Script() || r.stderr != "keyspace shop: plan "+p.Hash()+": 1 safe, 1 need approval, 0 impossible\nnot in the model (kept, never dropped): table accounts_old\n" {
		t.Fatalf("plan --cql: %+v", r)
	}

	// An impossible step: exit 1, named.
	p = &migrate.Plan{Keyspace: "shop", Steps: []migrate.Step{stepTable, stepType}}
	r = runWith(t, &fakeDriver{}, planBackend(p, nil), false, "plan", "-cql")
	if r.code != ExitDifferences || !strings.Contains(r.stderr, "1 step(s) cannot be done in place; apply will refuse: change-type:accounts.name") {
		t.Fatalf("impossible plan: %+v", r)
	}

	r = runWith(t, &fakeDriver{}, planBackend(&migrate.Plan{Keyspace: "shop"}, nil), false, "plan")
	if r.code != ExitOK || r.stdout != "keyspace shop matches the model: nothing to do\n" {
		t.Fatalf("empty plan: %+v", r)
	}

	r = runWith(t, &fakeDriver{}, planBackend(nil, errors.New("connection refused")), false, "plan")
	if r.code != ExitError || r.stderr != "app schema plan: connection refused\n" {
		t.Fatalf("server error: %+v", r)
	}
}

func TestValidate(t *testing.T) {
	r := runWith(t, &fakeDriver{}, planBackend(&migrate.Plan{Keyspace: "shop", Extra: []string{"column accounts.legacy"}}, nil), false, "validate")
	if r.code != ExitOK || r.stdout != "keyspace shop matches the model\nnot in the model (kept, never dropped): column accounts.legacy\n" {
		t.Fatalf("in sync: %+v", r)
	}
	p := &migrate.Plan{Keyspace: "shop", Steps: []migrate.Step{stepTable, stepBackfill, stepType}}
	r = runWith(t, &fakeDriver{}, planBackend(p, nil), false, "validate")
	if r.code != ExitDifferences || !strings.Contains(r.stdout, p.Err().Error()) {
		t.Fatalf("differences: %+v", r)
	}
	for _, s := range p.Steps {
		if !strings.Contains(r.stdout, s.ID) {
			t.Fatalf("difference %s not listed:\n%s", s.ID, r.stdout)
		}
	}
	ae := &kerrors.AgreementError{Versions: map[string]string{"127.0.0.1": "a", "127.0.0.2": "b"}, Waited: time.Minute}
	r = runWith(t, &fakeDriver{}, planBackend(nil, ae), false, "validate")
	if r.code != ExitError || !strings.Contains(r.stderr, "no schema agreement") {
		t.Fatalf("agreement error: %+v", r)
	}
}

// The real package migrate behind a driver with no server.
func TestThroughMigrate(t *testing.T) {
	// A fresh cluster: everything to create, nothing impossible.
	r := runWith(t, &fakeDriver{}, backend{}, false, "plan")
	if r.code != ExitOK || !strings.Contains(r.stdout, "create-table:accounts ") || !strings.Contains(r.stdout, "create-lookup-table:accounts_by_email ") {
		t.Fatalf("plan on a fresh cluster: %+v", r)
	}
	r = runWith(t, &fakeDriver{}, backend{}, false, "plan", "--cql")
	if r.code != ExitOK || !strings.Contains(r.stdout, "CREATE TABLE IF NOT EXISTS shop.accounts (") {
		t.Fatalf("plan --cql on a fresh cluster: %+v", r)
	}
	r = runWith(t, &fakeDriver{}, backend{}, false, "validate")
	if r.code != ExitDifferences || !strings.Contains(r.stdout, "create-table:accounts [safe]") {
		t.Fatalf("validate on a fresh cluster: %+v", r)
	}
	r = runWith(t, &fakeDriver{}, backend{}, false, "apply", "--owner", "t1")
	if r.code != ExitOK || !strings.Contains(r.stdout, "applied 3 step(s) to keyspace shop") ||
		!strings.Contains(r.stderr, "apply: create-table:accounts done\n") {
		t.Fatalf("apply on a fresh cluster: %+v", r)
	}

	// In sync.
	for _, args := range [][]string{{"plan"}, {"validate"}, {"apply"}} {
		r := runWith(t, &fakeDriver{rows: liveRows("text")}, backend{}, false, args...)
		if r.code != ExitOK || !strings.Contains(r.stdout, "keyspace shop matches the model") {
			t.Fatalf("%v in sync: %+v", args, r)
		}
	}
	// A column missing: safe to add; validate lists it.
	r = runWith(t, &fakeDriver{rows: liveRows("")}, backend{}, false, "validate")
	if r.code != ExitDifferences || !strings.Contains(r.stdout, "add-column:accounts.name") {
		t.Fatalf("validate with a missing column: %+v", r)
	}
	// A type changed: impossible; plan exits 1 and apply refuses.
	drift := &fakeDriver{rows: liveRows("int")}
	r = runWith(t, drift, backend{}, false, "plan")
	if r.code != ExitDifferences || !strings.Contains(r.stderr, "apply will refuse: change-type:accounts.name") {
		t.Fatalf("plan with a changed type: %+v", r)
	}
	r = runWith(t, drift, backend{}, false, "apply", "--approve", "all")
	if r.code != ExitDifferences || !strings.Contains(r.stderr, "change-type:accounts.name") || r.stdout != "" {
		t.Fatalf("apply with a changed type: %+v", r)
	}

	// The server failing: exit 3 from every command that reads.
	down := &fakeDriver{err: errors.New("gocql: no hosts available in the pool")}
	for _, args := range [][]string{{"plan"}, {"validate"}, {"apply"}, {"history"}} {
		r := runWith(t, down, backend{}, false, args...)
		if r.code != ExitError || !strings.Contains(r.stderr, "no hosts available") {
			t.Fatalf("%v with the server down: %+v", args, r)
		}
	}
}

// applyBackend records the options Apply got and answers res, err,
// sending events first.
func applyBackend(got *migrate.ApplyOptions, events []migrate.Event, res *migrate.Result, err error) backend {
	return backend{apply: func(_ context.Context, _ adapter.Driver, _ *kandra.Keyspace, o migrate.ApplyOptions) (*migrate.Result, error) {
		*got = o
		for _, e := range events {
			o.OnEvent(e)
		}
		return res, err
	}}
}

func TestApplyOptions(t *testing.T) {
	var got migrate.ApplyOptions
	res := &migrate.Result{Plan: &migrate.Plan{Keyspace: "shop"}}
	r := runWith(t, &fakeDriver{}, applyBackend(&got, nil, res, nil), false,
		"apply", "--approve", "backfill:accounts_by_email, options:accounts", "--approve=all",
		"--owner", "deploy-7", "--lease-ttl", "45s", "--lease-wait", "2m", "--concurrency", "3", "--ranges", "12", "--page-size", "500")
	if r.code != ExitOK {
		t.Fatalf("apply: %+v", r)
	}
	if fmt.Sprint(got.Approve) != "[backfill:accounts_by_email options:accounts all]" || got.Owner != "deploy-7" ||
		got.LeaseTTL != 45*time.Second || got.LeaseWait != 2*time.Minute {
		t.Fatalf("options: %+v", got)
	}
	if b := got.Backfill; b.Concurrency != 3 || b.Ranges != 12 || b.PageSize != 500 {
		t.Fatalf("backfill options: %+v", b)
	}
	if r.stdout != "keyspace shop matches the model: nothing to apply\n" {
		t.Fatalf("nothing to apply: %q", r.stdout)
	}
	// The defaults are migrate's: zero values.
	runWith(t, &fakeDriver{}, applyBackend(&got, nil, res, nil), false, "apply")
	if got.Approve != nil || got.Owner != "" || got.LeaseTTL != 0 || got.LeaseWait != 0 || got.OnEvent == nil {
		t.Fatalf("default options: %+v", got)
	}
}

func TestApplyOutcomes(t *testing.T) {
	at := time.Date(2026, 12, 1, 11, 40, 2, 0, time.UTC)
	plan := &migrate.Plan{Keyspace: "shop", Steps: []migrate.Step{stepTable, stepBackfill}}
	events := []migrate.Event{
		{Kind: migrate.EventLeaseAcquired, Message: "lease acquired by deploy-7"},
		{Kind: migrate.EventStepStarted, Step: &stepTable, Message: stepTable.ID},
		{Kind: migrate.EventStepDone, Step: &stepTable, Message: stepTable.ID},
		{Kind: migrate.EventStepSkipped, Step: &stepBackfill, Message: "needs approval"},
	}
	var got migrate.ApplyOptions
	res := &migrate.Result{Plan: plan, Applied: []migrate.Step{stepTable}, Unapproved: []migrate.Step{stepBackfill},
		Record: &migrate.HistoryRecord{PlanHash: plan.Hash(), Steps: []string{stepTable.ID}, Owner: "deploy-7", AppliedAt: at}}
	r := runWith(t, &fakeDriver{}, applyBackend(&got, events, res, nil), false, "apply", "--approve", "backfill:accounts_by_emial")
	if r.code != ExitDifferences {
		t.Fatalf("unapproved steps left: want exit 1, got %+v", r)
	}
	for _, want := range []string{
		"applied 1 step(s) to keyspace shop (plan " + plan.Hash() + "):\n  create-table:accounts\n",
		"recorded in shop.kandra_schema_history: owner deploy-7 at 2026-12-01T11:40:02Z\n",
		"not applied, 1 step(s) need approval:\n  backfill:accounts_by_email: the lookup table is new",
		"then run app schema apply --approve backfill:accounts_by_email\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, want := range []string{
		"apply: lease acquired by deploy-7\napply: create-table:accounts ...\napply: create-table:accounts done\n",
		"apply: backfill:accounts_by_email: needs approval\n",
		"--approve backfill:accounts_by_emial: no such step in plan " + plan.Hash(),
	} {
		if !strings.Contains(r.stderr, want) {
			t.Fatalf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}

	res.Unapproved = nil
	if r := runWith(t, &fakeDriver{}, applyBackend(&got, nil, res, nil), false, "apply"); r.code != ExitOK {
		t.Fatalf("all applied: %+v", r)
	}

	refusal := &kerrors.MigrationError{Message: "keyspace shop: the plan has 1 step(s) that cannot be applied in place; nothing was changed:\n  change-type:accounts.name: manual path: copy"}
	impossible := &migrate.Result{Plan: &migrate.Plan{Keyspace: "shop", Steps: []migrate.Step{stepType}}}
	for _, tc := range []struct {
		name string
		res  *migrate.Result
		err  error
		want int
	}{
		{"refused with the plan", impossible, refusal, ExitDifferences},
		{"refused without a result", nil, refusal, ExitDifferences},
		{"lease held too long", nil, &kerrors.MigrationError{Message: "the schema lease is held by b"}, ExitDifferences},
		{"step failed on the server", &migrate.Result{Plan: plan}, &kerrors.MigrationError{Message: "step create-table:accounts failed", Cause: errors.New("timeout")}, ExitError},
		{"no agreement", &migrate.Result{Plan: plan}, &kerrors.AgreementError{Statement: "CREATE TABLE", Waited: time.Minute}, ExitError},
		{"plain driver error", nil, errors.New("EOF"), ExitError},
	} {
		r := runWith(t, &fakeDriver{}, applyBackend(&got, nil, tc.res, tc.err), false, "apply")
		if r.code != tc.want || !strings.Contains(r.stderr, "app schema apply: "+tc.err.Error()) || r.stdout != "" {
			t.Fatalf("%s: want exit %d, got %+v", tc.name, tc.want, r)
		}
	}
}

func TestApplyBackfillProgress(t *testing.T) {
	var events []migrate.Event
	for i := 0; i <= 4; i++ {
		p := migrate.BackfillProgress{Lookup: "accounts_by_email", Rows: int64(i) * 2500, RangesDone: i, Ranges: 4,
			Elapsed: time.Duration(i) * time.Second, Remaining: time.Duration(4-i) * time.Second, RowsPerSecond: 2500}
		events = append(events, migrate.Event{Kind: migrate.EventBackfillProgress, Step: &stepBackfill, Backfill: &p, Message: p.String()})
	}
	events = append(events, migrate.Event{Kind: migrate.EventStepDone, Step: &stepBackfill, Message: stepBackfill.ID})
	var got migrate.ApplyOptions
	res := &migrate.Result{Plan: &migrate.Plan{Keyspace: "shop", Steps: []migrate.Step{stepBackfill}}, Applied: []migrate.Step{stepBackfill}}

	// Not a terminal: plain lines, one per finished range (the fake clock
	// moves 300ms a reading, so the throttle lets each through only once a
	// second has passed... except the last, always shown).
	r := runWith(t, &fakeDriver{}, applyBackend(&got, events, res, nil), false, "apply", "--approve", "all")
	if r.code != ExitOK || strings.Contains(r.stderr, "\r") {
		t.Fatalf("plain progress: %+v", r)
	}
	if !strings.Contains(r.stderr, "backfill accounts_by_email: 0/4 ranges, 0 rows, 2,500 rows/s, 4s left\n") ||
		!strings.Contains(r.stderr, "backfill accounts_by_email: 4/4 ranges, 10,000 rows, 2,500 rows/s, 0s left\n") {
		t.Fatalf("plain progress lines:\n%s", r.stderr)
	}
	// A terminal: one bar redrawn with \r, ended by a newline before the
	// next line.
	r = runWith(t, &fakeDriver{}, applyBackend(&got, events, res, nil), true, "apply", "--approve", "all")
	if r.code != ExitOK || !strings.Contains(r.stderr, "\r"+render(*events[4].Backfill, 59)+"\napply: backfill:accounts_by_email done\n") {
		t.Fatalf("bar progress: %q", r.stderr)
	}
}

func TestBackfill(t *testing.T) {
	var gotName string
	var gotOpts migrate.BackfillOptions
	be := func(res *migrate.BackfillResult, err error) backend {
		return backend{backfill: func(_ context.Context, _ adapter.Driver, ks *kandra.Keyspace, l *kandra.LookupTableSchema, o migrate.BackfillOptions) (*migrate.BackfillResult, error) {
			if l != ks.LookupTable(l.Name()) {
				t.Fatalf("backfill of %s: not the keyspace's lookup table", l.Name())
			}
			name := l.Name()
			gotName, gotOpts = name, o
			for i := 1; i <= 2; i++ {
				o.OnProgress(migrate.BackfillProgress{Lookup: name, Rows: int64(i * 50), RangesDone: i, Ranges: 2, RowsPerSecond: 100, Remaining: time.Second})
			}
			return res, err
		}}
	}
	ok := &migrate.BackfillResult{Lookup: "accounts_by_email", Rows: 100, Written: 100, LookupRows: 100, Verified: true, Resumed: true}
	// Flags after the argument are parsed too.
	r := runWith(t, &fakeDriver{}, be(ok, nil), false, "backfill", "accounts_by_email", "--concurrency", "2")
	if r.code != ExitOK || gotName != "accounts_by_email" || gotOpts.Concurrency != 2 {
		t.Fatalf("backfill: %+v name=%q opts=%+v", r, gotName, gotOpts)
	}
	if r.stdout != "backfill accounts_by_email (resumed an earlier run): 100 primary rows scanned, 100 lookup rows written\nverified: 100 lookup rows\n" {
		t.Fatalf("backfill output: %q", r.stdout)
	}
	if !strings.Contains(r.stderr, "backfill accounts_by_email: 2/2 ranges, 100 rows, 100 rows/s, 0s left\n") {
		t.Fatalf("backfill progress: %q", r.stderr)
	}
	bad := &migrate.BackfillResult{Lookup: "accounts_by_email", Rows: 100, Written: 100, Valued: 100, LookupRows: 97, Mismatch: "3 rows missing"}
	r = runWith(t, &fakeDriver{}, be(bad, nil), false, "backfill", "accounts_by_email")
	if r.code != ExitDifferences || !strings.Contains(r.stdout, "verification failed: 97 lookup rows for 100 primary rows with a value") || !strings.Contains(r.stderr, "backfill: 3 rows missing") {
		t.Fatalf("unverified backfill: %+v", r)
	}
	// A finished backfill verified again scans nothing: the count is the
	// verification's, over the whole table, and the advice is the
	// mismatch's (which way it differs), not a guess.
	again := &migrate.BackfillResult{Lookup: "accounts_by_email", Valued: 0, LookupRows: 2,
		Mismatch: "accounts has 0 rows with a non-empty email, accounts_by_email has 2 rows (more: lookup rows of values that moved or were deleted before the backfill)"}
	r = runWith(t, &fakeDriver{}, be(again, nil), false, "backfill", "accounts_by_email")
	if r.code != ExitDifferences || !strings.Contains(r.stdout, "verification failed: 2 lookup rows for 0 primary rows with a value") ||
		!strings.Contains(r.stderr, "(more: lookup rows of values that moved") || strings.Contains(r.stderr, "run the backfill again") {
		t.Fatalf("a mismatch of more lookup rows: %+v", r)
	}
	r = runWith(t, &fakeDriver{}, be(nil, errors.New("read timeout")), false, "backfill", "accounts_by_email")
	if r.code != ExitError || !strings.Contains(r.stderr, "app schema backfill: read timeout") {
		t.Fatalf("backfill error: %+v", r)
	}
}

func TestHistory(t *testing.T) {
	t1 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	recs := []migrate.HistoryRecord{
		{PlanHash: "bbbb", Steps: []string{"add-column:accounts.name"}, Owner: "web-2:77:x", AppliedAt: t1.Add(time.Hour)},
		{PlanHash: "aaaa", Steps: []string{"create-keyspace:shop", "create-table:accounts"}, Owner: "web-1:12:y", AppliedAt: t1},
	}
	be := func(recs []migrate.HistoryRecord, err error) backend {
		return backend{history: func(_ context.Context, _ adapter.Driver, ks *kandra.Keyspace) ([]migrate.HistoryRecord, error) {
			if ks != testKeyspace {
				t.Fatalf("history of %q", ks.Name())
			}
			return recs, err
		}}
	}
	r := runWith(t, &fakeDriver{}, be(recs, nil), false, "history")
	want := "APPLIED AT (UTC)     OWNER       PLAN  STEPS\n" +
		"2026-12-01 09:00:00  web-1:12:y  aaaa  create-keyspace:shop, create-table:accounts\n" +
		"2026-12-01 10:00:00  web-2:77:x  bbbb  add-column:accounts.name\n"
	if r.code != ExitOK || r.stdout != want {
		t.Fatalf("history:\n%s\nwant:\n%s", r.stdout, want)
	}
	r = runWith(t, &fakeDriver{}, be(nil, nil), false, "history")
	if r.code != ExitOK || r.stdout != "keyspace shop: no migrations recorded\n" {
		t.Fatalf("empty history: %+v", r)
	}
	r = runWith(t, &fakeDriver{}, be(nil, errors.New("unavailable")), false, "history")
	if r.code != ExitError {
		t.Fatalf("history error: %+v", r)
	}
}

// Apply reports events from several goroutines: the output stays whole
// lines (and -race quiet).
func TestApplyConcurrentEvents(t *testing.T) {
	be := backend{apply: func(_ context.Context, _ adapter.Driver, _ *kandra.Keyspace, o migrate.ApplyOptions) (*migrate.Result, error) {
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 50; i++ {
					if i%2 == 0 {
						o.OnEvent(migrate.Event{Kind: migrate.EventLeaseWaiting, Message: "waiting"})
					} else {
						o.OnEvent(migrate.Event{Kind: migrate.EventBackfillProgress, Backfill: &migrate.BackfillProgress{Lookup: "l", RangesDone: g*50 + i, Ranges: 1000}})
					}
				}
			}()
		}
		wg.Wait()
		return &migrate.Result{Plan: &migrate.Plan{Keyspace: "shop"}}, nil
	}}
	r := runWith(t, &fakeDriver{}, be, false, "apply")
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	for _, line := range strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n") {
		if line != "apply: waiting" && !strings.HasPrefix(line, "backfill l: ") {
			t.Fatalf("torn line %q in:\n%s", line, r.stderr)
		}
	}
}

// TestApplyExitsOneOnAFailedVerification: apply whose backfill wrote its
// rows but did not verify exits 1, as the usage says, though Apply wraps
// the verification in the step's error; a server failure exits 3.
func TestApplyExitsOneOnAFailedVerification(t *testing.T) {
	mismatch := &migrate.BackfillResult{Mismatch: "accounts has 0 rows with a non-empty email, accounts_by_email has 2 rows"}
	stepFailed := &kerrors.MigrationError{Message: "keyspace shop: step backfill:accounts_by_email failed", Cause: &kerrors.MigrationError{Message: "backfill of accounts_by_email wrote its rows but did not verify"}}
	be := backend{apply: func(context.Context, adapter.Driver, *kandra.Keyspace, migrate.ApplyOptions) (*migrate.Result, error) {
		return &migrate.Result{Backfills: []*migrate.BackfillResult{mismatch}}, stepFailed
	}}
	if r := runWith(t, &fakeDriver{}, be, false, "apply", "--approve", "all"); r.code != ExitDifferences || !strings.Contains(r.stderr, "did not verify") {
		t.Fatalf("failed verification: %+v", r)
	}
	be.apply = func(context.Context, adapter.Driver, *kandra.Keyspace, migrate.ApplyOptions) (*migrate.Result, error) {
		return &migrate.Result{Backfills: []*migrate.BackfillResult{{}}}, &kerrors.MigrationError{Message: "step failed", Cause: errors.New("timeout")}
	}
	if r := runWith(t, &fakeDriver{}, be, false, "apply", "--approve", "all"); r.code != ExitError {
		t.Fatalf("server failure: %+v", r)
	}
}
