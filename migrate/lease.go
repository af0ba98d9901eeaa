package migrate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

// The migrator's own tables, in the target keyspace. The planner never
// reports them as extra.
const (
	LeaseTable    = "kandra_schema_lease"
	HistoryTable  = "kandra_schema_history"
	BackfillTable = "kandra_backfill"
)

// leaseName is the key of the one lease row of a keyspace.
const leaseName = "schema"

// tableIDNamespace is the UUID namespace of the migrator's table ids.
var tableIDNamespace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://github.com/kandra-go/kandra/migrate"))

// TableID is the id the migrator gives its own table in keyspace on
// Cassandra: a version 5 UUID of "keyspace.table". Cassandra 5.0 mints a
// time-based id per CREATE TABLE, so two coordinators creating the same
// table at once would leave two ids (the "Column family ID mismatch" of
// concurrent start-ups); with the id fixed, every concurrent create
// converges on one.
func TableID(keyspace, table string) uuid.UUID {
	return uuid.NewSHA1(tableIDNamespace, []byte(keyspace+"."+table))
}

// ownTables are the CREATE TABLE statements of the migrator's tables,
// with fixed ids when withID.
func ownTables(keyspace string, withID bool) []string {
	q := kandra.QuoteIdent(keyspace) + "."
	defs := []struct{ name, body string }{
		{LeaseTable, "(name text PRIMARY KEY, owner text, acquired_at timestamp)"},
		{HistoryTable, "(plan_hash text, applied_at timestamp, steps list<text>, owner text, PRIMARY KEY (plan_hash, applied_at))"},
		{BackfillTable, "(lookup text, range_start bigint, range_end bigint, rows bigint, done_at timestamp, status text static, ranges int static, PRIMARY KEY (lookup, range_start))"},
	}
	out := make([]string, len(defs))
	for i, t := range defs {
		s := "CREATE TABLE IF NOT EXISTS " + q + t.name + " " + t.body
		if withID {
			s += " WITH ID = " + TableID(keyspace, t.name).String()
		}
		out[i] = s
	}
	return out
}

// ensureInfra creates the keyspace (if missing) and the migrator's own
// tables, each statement deterministic, so any number of appliers may run
// them at once. Cassandra takes the tables' fixed ids (WITH ID); ScyllaDB,
// whose Raft-based schema changes are serialised already, refuses the
// option.
func ensureInfra(ctx context.Context, d driver, ks *kandra.Keyspace, server Server) error {
	stmt := ks.CreateKeyspaceOn(server.Targets)
	if err := d.ExecSchema(ctx, strings.TrimSuffix(stmt, ";")); err != nil {
		return schemaErr("creating keyspace "+ks.Name(), err)
	}
	for _, s := range ownTables(ks.Name(), !server.IsScylla()) {
		if err := d.ExecSchema(ctx, s); err != nil {
			return schemaErr("creating the migrator's table ("+s+")", err)
		}
	}
	return nil
}

func schemaErr(what string, err error) error {
	var ae *kerrors.AgreementError
	if errors.As(err, &ae) {
		return err
	}
	return &kerrors.MigrationError{Message: what + " failed", Cause: err, Rule: serverRule(err)}
}

// DefaultOwner is "<hostname>:<pid>:<random>", unique per process.
func DefaultOwner() string {
	h, _ := os.Hostname()
	if h == "" {
		h = "unknown-host"
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s:%d:%s", h, os.Getpid(), hex.EncodeToString(b))
}

// lease is the one schema lease of a keyspace: an LWT row with an owner,
// expiring by TTL unless renewed.
type lease struct {
	d     driver
	table string // qualified lease table
	owner string
	ttl   time.Duration
}

func newLease(d driver, keyspace, owner string, ttl time.Duration) *lease {
	return &lease{d: d, table: kandra.QuoteIdent(keyspace) + "." + LeaseTable, owner: owner, ttl: ttl}
}

func (l *lease) ttlSeconds() int { return max(1, int(math.Ceil(l.ttl.Seconds()))) }

func (l *lease) tryAcquire(ctx context.Context) (bool, error) {
	return l.d.ExecCQL(ctx, "INSERT INTO "+l.table+" (name, owner, acquired_at) VALUES (?, ?, ?) IF NOT EXISTS USING TTL ?",
		[]any{leaseName, l.owner, time.Now().UTC(), l.ttlSeconds()}, kandra.ConsistencyQuorum)
}

// renew pushes the expiry back; false means another owner holds it (ours
// expired).
func (l *lease) renew(ctx context.Context) (bool, error) {
	return l.d.ExecCQL(ctx, "UPDATE "+l.table+" USING TTL ? SET owner = ? WHERE name = ? IF owner = ?",
		[]any{l.ttlSeconds(), l.owner, leaseName, l.owner}, kandra.ConsistencyQuorum)
}

// release deletes the lease if this owner holds it. A timed-out attempt
// (Paxos contention with the waiters' polling) is tried again while ctx
// allows: one that did apply makes the next a no-op.
func (l *lease) release(ctx context.Context) error {
	var err error
	for attempt := 1; ; attempt++ {
		_, err = l.d.ExecCQL(ctx, "DELETE FROM "+l.table+" WHERE name = ? IF owner = ?", []any{leaseName, l.owner}, kandra.ConsistencyQuorum)
		if err == nil || attempt == 3 {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(attempt) * 200 * time.Millisecond):
		}
	}
}

// holder reads the current owner and its time left ("" when free).
func (l *lease) holder(ctx context.Context) (string, time.Duration, error) {
	rows, err := l.d.QueryCQL(ctx, "SELECT owner, TTL(owner) AS ttl FROM "+l.table+" WHERE name = ?", []any{leaseName}, kandra.ConsistencySerial)
	if err != nil || len(rows) == 0 {
		return "", 0, err
	}
	owner, _ := rows[0]["owner"].(string)
	ttl, _ := rows[0]["ttl"].(int)
	return owner, time.Duration(ttl) * time.Second, nil
}

// errNothingLeft ends the wait for the lease: while another applier held
// it, the keyspace came to need nothing this applier would run.
var errNothingLeft = errors.New("nothing left to apply")

// acquire takes the lease, polling with backoff while another owner holds
// it, up to wait. While it waits, idle (when not nil) is asked whether
// there is still anything to do; when there is not, acquire returns
// errNothingLeft without the lease, so that appliers started together do
// not queue for a lease only to find the work done.
func (l *lease) acquire(ctx context.Context, wait time.Duration, emit func(Event), idle func(context.Context) bool) error {
	deadline := time.Now().Add(wait)
	backoff := 100 * time.Millisecond
	lastHolder := ""
	failures := 0
	for {
		ok, err := l.tryAcquire(ctx)
		if err != nil {
			// A conditional write that times out may or may not have
			// applied: appliers started together contend for the one Paxos
			// row ("Operation timed out - received only 1 responses" on a
			// 3-node cluster). Look at the holder and retry a few times;
			// keep failing and it is a real error.
			if failures++; failures >= 8 || time.Now().After(deadline) {
				return &kerrors.MigrationError{Message: fmt.Sprintf("taking the schema lease in %s failed (%d attempts)", l.table, failures), Cause: err, Rule: serverRule(err)}
			}
		} else {
			failures = 0
		}
		if ok {
			emit(Event{Kind: EventLeaseAcquired, Message: "lease acquired by " + l.owner})
			return nil
		}
		holder, left, _ := l.holder(ctx)
		if holder == l.owner {
			// An earlier attempt of ours applied and the answer was lost.
			emit(Event{Kind: EventLeaseAcquired, Message: "lease acquired by " + l.owner})
			return nil
		}
		if time.Now().After(deadline) {
			return &kerrors.MigrationError{Message: fmt.Sprintf("the schema lease in %s is held by %s (expires in %s); gave up after waiting %s (raise ApplyOptions.LeaseWait, or wait for that applier to finish)", l.table, holder, left, wait)}
		}
		if holder != lastHolder {
			emit(Event{Kind: EventLeaseWaiting, Message: fmt.Sprintf("waiting for the schema lease held by %s (expires in %s)", holder, left)})
			lastHolder = holder
		}
		if holder != "" && idle != nil && idle(ctx) {
			return errNothingLeft
		}
		sleep := backoff + mrand.N(backoff) // jitter: appliers started together spread out
		select {
		case <-ctx.Done():
			return &kerrors.MigrationError{Message: "waiting for the schema lease in " + l.table, Cause: context.Cause(ctx)}
		case <-time.After(sleep):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// errLeaseLost is the cause of the work context's cancellation when a
// renewal finds another owner (or keeps failing until the lease expired).
var errLeaseLost = errors.New("the schema lease was lost")

// keep renews the lease every ttl/3 until stop is called; when the lease
// is lost, the returned context is cancelled with errLeaseLost.
func (l *lease) keep(ctx context.Context) (context.Context, func()) {
	work, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(l.ttl / 3)
		defer t.Stop()
		lastOK := time.Now()
		for {
			select {
			case <-done:
				return
			case <-work.Done():
				return
			case <-t.C:
			}
			rctx, rcancel := context.WithTimeout(work, l.ttl/3)
			ok, err := l.renew(rctx)
			rcancel()
			switch {
			case err == nil && ok:
				lastOK = time.Now()
			case err == nil:
				holder, _, _ := l.holder(work)
				if holder == "" {
					holder = "no one"
				}
				cancel(fmt.Errorf("%w: it expired before a renewal and %s holds it now in %s (raise ApplyOptions.LeaseTTL, or lighten the cluster's load)", errLeaseLost, holder, l.table))
				return
			case time.Since(lastOK) >= l.ttl:
				cancel(fmt.Errorf("%w: renewing it failed for a whole TTL (%s): %v", errLeaseLost, l.ttl, err))
				return
			}
		}
	}()
	return work, func() {
		close(done)
		<-stopped
		cancel(nil)
	}
}
