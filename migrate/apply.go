package migrate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
)

// ApplyOptions tune Apply. The zero value applies the safe steps only.
type ApplyOptions struct {
	// Approve lists the IDs of the NeedsApproval steps to run; "all"
	// approves every one.
	Approve []string
	// Owner names this applier in the lease and the history; default
	// DefaultOwner().
	Owner string
	// LeaseTTL is how long the lease lives unless renewed (0: the default
	// 30s); it is renewed every LeaseTTL/3 while working. Under a second
	// is refused: the lease row's TTL counts whole seconds.
	LeaseTTL time.Duration
	// LeaseWait is how long to wait for another applier's lease (default
	// 10m).
	LeaseWait time.Duration
	// OnEvent, if set, is told of the lease, each step and the backfill
	// progress. It is called from Apply's goroutine and from backfill
	// workers: it must be safe for concurrent use.
	OnEvent func(Event)
	// Backfill tunes the backfill steps.
	Backfill BackfillOptions
	// Observer, if set, sees every statement Apply sends, its backfills'
	// included (see kandra.Observer; operations kandra.OpMigrate and
	// kandra.OpBackfill).
	Observer kandra.Observer
}

// EventKind says what an Event reports.
type EventKind uint8

// The kinds of event.
const (
	// EventLeaseWaiting: another applier holds the lease; Message names it.
	EventLeaseWaiting EventKind = iota
	// EventLeaseAcquired: this applier holds the lease.
	EventLeaseAcquired
	// EventLeaseReleased: this applier released the lease.
	EventLeaseReleased
	// EventStepStarted: Step is about to run.
	EventStepStarted
	// EventStepDone: Step ran (and the schema agreed).
	EventStepDone
	// EventStepSkipped: Step needs approval and was not approved.
	EventStepSkipped
	// EventBackfillProgress: Backfill reports the progress of a backfill.
	EventBackfillProgress
)

var eventKindNames = [...]string{"lease-waiting", "lease-acquired", "lease-released", "step-started", "step-done", "step-skipped", "backfill-progress"}

// String names the kind, "step-done".
func (k EventKind) String() string {
	if int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event is one progress report of Apply.
type Event struct {
	Kind     EventKind
	Step     *Step
	Message  string
	Backfill *BackfillProgress
}

// Result is what Apply did. Apply returns one even with an error: what
// it applied before the error is in it.
type Result struct {
	// Plan is the plan made under the lease, headed by the
	// create-keyspace step when this Apply created the keyspace before
	// taking the lease (or, when Apply refused, the plan it refused; nil
	// when the live schema could not be read). Its Hash is the history
	// record's.
	Plan *Plan
	// Applied are the steps run, in order.
	Applied []Step
	// Unapproved are the NeedsApproval steps left out.
	Unapproved []Step
	// Record is the history record written; nil when nothing was applied.
	Record *HistoryRecord
	// Backfills are the results of the backfill steps run, in order.
	Backfills []*BackfillResult
}

func (o *ApplyOptions) defaults() {
	if o.Owner == "" {
		o.Owner = DefaultOwner()
	}
	if o.LeaseTTL == 0 {
		o.LeaseTTL = 30 * time.Second
	}
	if o.LeaseWait <= 0 {
		o.LeaseWait = 10 * time.Minute
	}
}

// minLeaseTTL is the shortest lease: the server keeps the lease row for
// whole seconds (USING TTL), so a shorter one would be renewed (every
// third of it, by an LWT) faster than it could expire, and one under
// 3ns left the renewal no period at all.
const minLeaseTTL = time.Second

// check refuses options out of range, before Apply sends anything.
func (o *ApplyOptions) check() error {
	if o.LeaseTTL < minLeaseTTL {
		return &kerrors.MigrationError{Message: "ApplyOptions.LeaseTTL " + o.LeaseTTL.String() +
			" is under a second, the lease row's TTL counts whole seconds: use " + minLeaseTTL.String() + " or more, or 0 for the default 30s"}
	}
	return o.Backfill.check()
}

func (o *ApplyOptions) approved(s Step) bool {
	return slices.Contains(o.Approve, "all") || slices.Contains(o.Approve, s.ID)
}

// Apply brings ks's keyspace to ks on the cluster behind d:
//
//  1. It plans against the live schema and refuses, before changing
//     anything, when the plan has an impossible step (a
//     *kerrors.MigrationError naming each with its manual path). Approving
//     a step that is not in the plan is no error: a re-run may find it
//     done.
//  2. It creates the keyspace if missing and the migrator's own tables,
//     each with one deterministic statement (fixed table ids on
//     Cassandra), so concurrent appliers converge, and waits for schema
//     agreement.
//  3. It takes the lease (kandra_schema_lease, an LWT row with a TTL),
//     waiting up to LeaseWait for another applier, reads the live schema
//     again and re-plans under the lease: what another applier did is not
//     done twice.
//  4. It runs the safe steps and the approved ones in order, waiting for
//     schema agreement after each, renewing the lease meanwhile; a lost
//     lease stops the work with an error. After each schema step it reads
//     the live schema again: a step the server accepted without its
//     effect showing (taken as a no-op) stops the work with an error
//     naming it, and is not counted as applied. When the nodes do not agree on
//     a step in time (a node down: gocql counts a down node's last
//     version too), the step has run on the live nodes: Apply records it
//     and stops with an error wrapping the *kerrors.AgreementError, and the node
//     takes the change when it returns; apply again then for the rest.
//  5. It records what it applied in kandra_schema_history and releases
//     the lease. The record is of the plan as reviewed (PlanFor's, which
//     the command line's plan prints): its hash and its steps include the
//     create-keyspace step of step 2, unless another applier's record
//     has it.
//
// Before step 2 it returns at once, changing nothing and taking no lease,
// when the plan has nothing it would run (in sync, or only unapproved
// steps); and it refuses, changing nothing, when the nodes do not agree
// on one schema version already. While it waits for another applier's
// lease it plans again now and then, and returns once nothing is left
// for it to do.
//
// Apply is idempotent: once the keyspace matches, it plans nothing and
// writes no record. Interrupted (ctx cancelled, process killed), it can be
// run again: it re-plans and does the rest. A backfill left unapproved is
// recorded as pending in kandra_backfill, so a later Apply (or PlanFor,
// Check) still shows it once its lookup table exists.
func Apply(ctx context.Context, d adapter.Driver, ks *kandra.Keyspace, opts ApplyOptions) (*Result, error) {
	return apply(ctx, wrap(d), ks, opts)
}

// apply is Apply on the migrator's driver.
func apply(ctx context.Context, d driver, ks *kandra.Keyspace, opts ApplyOptions) (*Result, error) {
	opts.defaults()
	if err := opts.check(); err != nil {
		return &Result{}, err
	}
	if ks != nil {
		d = observing(d, ks.Name(), opts.Observer)
		if opts.Backfill.Observer == nil {
			opts.Backfill.Observer = opts.Observer // d is already observed by it: observing keeps d
		}
	}
	emit := func(e Event) {
		if opts.OnEvent != nil {
			opts.OnEvent(e)
		}
	}
	live, err := Read(ctx, d, ks)
	if err != nil {
		return &Result{}, err
	}
	plan, err := planChecked(ks, live)
	if err != nil {
		return &Result{}, err
	}
	if err := refuse(plan); err != nil {
		return &Result{Plan: plan}, err
	}
	if !runnable(plan, &opts) {
		return &Result{Plan: plan, Unapproved: unapproved(plan, &opts)}, nil
	}
	// A schema change made while a node is down or the nodes disagree
	// reaches only some of them, and the wait for agreement after it
	// fails with the change half done: refuse before changing anything.
	if err := d.AwaitSchemaAgreement(ctx); err != nil {
		return &Result{Plan: plan}, &kerrors.MigrationError{Message: "nothing was changed in keyspace " + ks.Name() +
			": the nodes do not agree on one schema version, or one of them does not answer (a node down?); " +
			"bring every node up, or wait for them to converge, and apply again", Cause: err}
	}
	if err := checkLease(ks, live); err != nil {
		return &Result{Plan: plan}, err
	}
	if err := ensureInfra(ctx, d, ks, live.Server); err != nil {
		return &Result{Plan: plan}, err
	}
	// The plan's create-keyspace step ran just now, before the lease (the
	// lease lives in the keyspace): the work under the lease counts it,
	// so that the history records the plan as reviewed.
	var created *Step
	if i := slices.IndexFunc(plan.Steps, func(s Step) bool { return s.Kind == StepCreateKeyspace }); i >= 0 {
		s := plan.Steps[i]
		created = &s
	}
	l := newLease(d, ks.Name(), opts.Owner, opts.LeaseTTL)
	idle := func(ctx context.Context) bool {
		p, err := planOn(ctx, d, ks, live.Server)
		return err == nil && !runnable(p, &opts)
	}
	if err := l.acquire(ctx, opts.LeaseWait, emit, idle); errors.Is(err, errNothingLeft) {
		p, perr := planOn(ctx, d, ks, live.Server)
		if perr != nil {
			return &Result{Plan: plan}, perr
		}
		return &Result{Plan: p, Unapproved: unapproved(p, &opts)}, nil
	} else if err != nil {
		return &Result{Plan: plan}, err
	}
	work, stop := l.keep(ctx)
	res, err := applyLeased(work, d, ks, live.Server, &opts, emit, created)
	stop()
	if cause := context.Cause(work); err != nil && errors.Is(cause, errLeaseLost) {
		err = &kerrors.MigrationError{Message: "apply of keyspace " + ks.Name() + " stopped", Cause: cause}
	}
	// Release even when ctx is done, so the next applier need not wait
	// for the TTL.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if rerr := l.release(rctx); rerr == nil {
		emit(Event{Kind: EventLeaseReleased, Message: "lease released by " + opts.Owner})
	} else {
		// The work is done and recorded; the lease expires by itself.
		emit(Event{Kind: EventLeaseReleased, Message: "releasing the lease held by " + opts.Owner + " failed (" + rerr.Error() +
			"); it expires by itself after " + opts.LeaseTTL.String()})
	}
	return res, err
}

// runnable reports whether the plan has a step Apply would run with
// these options: a safe step, or one that needs approval and has it. A
// plan of unapproved steps alone is left as it is, even a backfill of an
// empty table that Apply would otherwise run unapproved: it is reported
// in Result.Unapproved, and an Apply that approves it runs it.
func runnable(p *Plan, o *ApplyOptions) bool {
	for _, s := range p.Steps {
		if s.Class == Safe || (s.Class == NeedsApproval && o.approved(s)) {
			return true
		}
	}
	return false
}

// unapproved lists the plan's NeedsApproval steps the options leave out.
func unapproved(p *Plan, o *ApplyOptions) []Step {
	var out []Step
	for _, s := range p.Steps {
		if s.Class == NeedsApproval && !o.approved(s) {
			out = append(out, s)
		}
	}
	return out
}

// applyLeased plans again under the lease and runs the plan. created is
// the create-keyspace step Apply ran before the lease, if any: when this
// applier has the rest of the work to do and the keyspace's history does
// not record the step already, it heads the plan and the steps applied,
// as in the plan reviewed before the keyspace existed, so that the
// record's hash and steps are that plan's. When another applier did the
// rest (its plan, made once the keyspace existed, had no such step),
// this one records nothing: its CREATE KEYSPACE IF NOT EXISTS may not
// even have been the one that created it.
func applyLeased(ctx context.Context, d driver, ks *kandra.Keyspace, server Server, opts *ApplyOptions, emit func(Event), created *Step) (*Result, error) {
	plan, err := planOn(ctx, d, ks, server)
	if err != nil {
		return &Result{}, err
	}
	res := &Result{Plan: plan}
	if err := refuse(plan); err != nil {
		return res, err
	}
	ranEarly := ""
	if created != nil && !planned(plan, created.ID) && runnable(plan, opts) {
		done, err := recorded(ctx, d, ks, created.ID)
		if err != nil {
			return res, err
		}
		if !done {
			s := *created
			plan.Steps = append([]Step{s}, plan.Steps...)
			res.Applied = append(res.Applied, s)
			ranEarly = s.ID
			emit(Event{Kind: EventStepDone, Step: &s, Message: s.ID + " (run before the lease, which lives in the keyspace)"})
		}
	}
	// A backfill of an empty primary table reads nothing: it needs no
	// approval (an Apply interrupted right after creating the table
	// leaves exactly that). The others are recorded as pending first:
	// once their lookup tables exist, the live schema no longer shows
	// them.
	trivial := map[string]bool{}
	for _, s := range plan.Steps {
		if !isBackfill(s) || opts.approved(s) {
			continue
		}
		empty, err := primaryEmpty(ctx, d, ks, s.Table)
		if err != nil {
			return res, err
		}
		if empty {
			trivial[s.ID] = true
			continue
		}
		if err := markPending(ctx, d, ks.Name(), s.Table); err != nil {
			return res, err
		}
	}
	var failed error
	for i := range plan.Steps {
		s := plan.Steps[i]
		if s.ID == ranEarly {
			continue
		}
		if s.Class == NeedsApproval && !opts.approved(s) && !trivial[s.ID] {
			res.Unapproved = append(res.Unapproved, s)
			emit(Event{Kind: EventStepSkipped, Step: &s, Message: s.ID + " needs approval (--approve " + s.ID + ")"})
			continue
		}
		if err := ctx.Err(); err != nil {
			failed = &kerrors.MigrationError{Message: fmt.Sprintf("apply of keyspace %s interrupted before step %s (%d of %d steps applied; run apply again to do the rest)", ks.Name(), s.ID, len(res.Applied), len(plan.Steps)), Cause: context.Cause(ctx)}
			break
		}
		emit(Event{Kind: EventStepStarted, Step: &s, Message: s.ID})
		if err := runStep(ctx, d, ks, s, opts, emit, res); err != nil {
			var ae *kerrors.AgreementError
			if errors.As(err, &ae) {
				// The coordinator ran the statement; the nodes did not
				// converge on it in time (a node down, or slow). It is
				// applied, and recorded as such; the rest waits.
				res.Applied = append(res.Applied, s)
				failed = &kerrors.MigrationError{Message: fmt.Sprintf("keyspace %s: step %s ran, but the nodes did not agree on the new schema in time "+
					"(a node down? it takes the change when it returns); stopped after %d of %d steps: apply again once every node is up", ks.Name(), s.ID, len(res.Applied), len(plan.Steps)), Cause: err}
				break
			}
			failed = stepErr(ks, s, len(res.Applied), len(plan.Steps), err)
			break
		}
		if err := verifyStep(ctx, d, ks, server, s, len(res.Applied), len(plan.Steps)); err != nil {
			failed = err
			break
		}
		res.Applied = append(res.Applied, s)
		emit(Event{Kind: EventStepDone, Step: &s, Message: s.ID})
	}
	if len(res.Applied) > 0 {
		rec := &HistoryRecord{PlanHash: plan.Hash(), Owner: opts.Owner, AppliedAt: time.Now().UTC().Truncate(time.Millisecond)}
		for _, s := range res.Applied {
			rec.Steps = append(rec.Steps, s.ID)
		}
		// Record what was applied even when interrupted: the steps ran.
		hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		err := writeHistory(hctx, d, ks.Name(), rec)
		cancel()
		if err != nil && failed == nil {
			failed = err
		}
		if err == nil {
			res.Record = rec
		}
	}
	return res, failed
}

// verifyStep reads the live schema again after schema step s ran and
// fails when the step is still planned: the server accepted the statement
// and did nothing (CREATE INDEX IF NOT EXISTS of a name another index
// has, say), or did something else. Such a step is not applied, so it is
// neither reported nor recorded as applied. A backfill verifies itself.
func verifyStep(ctx context.Context, d driver, ks *kandra.Keyspace, server Server, s Step, done, total int) error {
	if isBackfill(s) {
		return nil
	}
	p, err := planOn(ctx, d, ks, server)
	if err != nil {
		return stepErr(ks, s, done, total, err)
	}
	for _, again := range p.Steps {
		if again.ID == s.ID {
			return &kerrors.MigrationError{Message: fmt.Sprintf("keyspace %s: step %s ran and the server accepted it, but the live schema does not show its effect "+
				"(%d of %d steps applied before it): the plan still has it (%s). The server took the statement as a no-op, or did something else; "+
				"nothing after it was run. Compare the live schema (DESCRIBE) with the statement:\n  %s", ks.Name(), s.ID, done, total, again.Reason, strings.TrimSpace(s.CQL))}
		}
	}
	return nil
}

// recorded reports whether a record of ks's history lists the step id.
func recorded(ctx context.Context, d driver, ks *kandra.Keyspace, id string) (bool, error) {
	h, err := History(ctx, d, ks)
	if err != nil {
		return false, err
	}
	for _, r := range h {
		if slices.Contains(r.Steps, id) {
			return true, nil
		}
	}
	return false, nil
}

func stepErr(ks *kandra.Keyspace, s Step, done, total int, err error) error {
	return &kerrors.MigrationError{Message: fmt.Sprintf("keyspace %s: step %s failed (%d of %d steps applied before it; fix the cause and run apply again to do the rest)", ks.Name(), s.ID, done, total), Cause: err, Rule: serverRule(err)}
}

func runStep(ctx context.Context, d driver, ks *kandra.Keyspace, s Step, opts *ApplyOptions, emit func(Event), res *Result) error {
	if isBackfill(s) {
		bo := opts.Backfill
		user := bo.OnProgress
		bo.OnProgress = func(p BackfillProgress) {
			emit(Event{Kind: EventBackfillProgress, Step: &s, Backfill: &p, Message: p.String()})
			if user != nil {
				user(p)
			}
		}
		l := s.Lookup
		if l == nil {
			l = ks.LookupTable(s.Table)
		}
		r, err := Backfill(ctx, d, ks, l, bo)
		if r != nil {
			res.Backfills = append(res.Backfills, r)
		}
		if err != nil {
			return err
		}
		if !r.Verified {
			return &kerrors.MigrationError{Message: "backfill of " + s.Table + " wrote its rows but did not verify: " + r.Mismatch}
		}
		return nil
	}
	if strings.TrimSpace(s.CQL) == "" {
		return &kerrors.MigrationError{Message: "step " + s.ID + " has no CQL to run"}
	}
	return d.ExecSchema(ctx, strings.TrimSuffix(strings.TrimSpace(s.CQL), ";"))
}

// refuse fails on a plan with impossible steps, with Plan.Err's message:
// every step, the impossible ones with their manual paths.
func refuse(p *Plan) error {
	if len(p.Select(Impossible)) == 0 {
		return nil
	}
	return &kerrors.MigrationError{Message: "nothing was changed: the plan cannot be applied in place", Cause: p.Err()}
}

// isBackfill reports a backfill step, by its ID ("backfill:<lookup>").
func isBackfill(s Step) bool { return strings.HasPrefix(s.ID, "backfill:") }

// primaryEmpty reports whether the primary table of lookup table
// lookupTable exists and holds no row (false when it does not exist yet:
// the lookup's backfill then runs after it is created, in the same plan).
func primaryEmpty(ctx context.Context, d driver, ks *kandra.Keyspace, lookupTable string) (bool, error) {
	l := ks.LookupTable(lookupTable)
	if l == nil {
		return false, nil
	}
	t := l.Table()
	live, err := Read(ctx, d, ks)
	if err != nil {
		return false, err
	}
	if live.Table(t.Name()) == nil {
		return false, nil
	}
	rows, err := d.QueryCQL(ctx, "SELECT "+t.PartitionKeys()[0].CQLName()+" FROM "+qualified(ks.Name(), t.CQLName())+" LIMIT 1", nil, kandra.ConsistencyQuorum)
	if err != nil {
		return false, &kerrors.MigrationError{Message: "checking whether table " + t.Name() + " holds rows failed", Cause: err}
	}
	return len(rows) == 0, nil
}
