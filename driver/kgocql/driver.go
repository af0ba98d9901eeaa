// Package kgocql is the kandra runtime's adapter for gocql v1.7.0
// (github.com/gocql/gocql). It also builds against ScyllaDB's fork of
// gocql, which keeps the module path (`replace github.com/gocql/gocql =>
// github.com/scylladb/gocql v1.19.0`), and reads and writes values as the
// fork does; scripts/scylla-fork-check.sh checks a release of the fork.
//
//	session, err := cluster.CreateSession()
//	rt, err := kstore.New(kgocql.New(session), app) // app is the *kandra.Keyspace
//	users := kstore.MustNewRepo(rt, Users)
//
// It converts the Go types gocql v1.7.0 cannot marshal or scan (see Codec)
// per column, and plugs an auth.Provider into gocql's authenticator
// (Authenticator). The planning, binding, scanning and value rules are
// the adapter core's (github.com/kandra-go/kandra/adapter), shared with
// the adapter for the Apache driver v2; this package holds gocql's
// session plumbing.
package kgocql

import (
	"context"
	"fmt"
	"net"
	"strconv"

	gocql "github.com/gocql/gocql"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/auth"
	"github.com/kandra-go/kandra/kerrors"
)

// Driver implements adapter.Driver on a *gocql.Session. It is safe for
// concurrent use; it does not own the session (close it yourself).
type Driver struct {
	s     *gocql.Session
	plans adapter.Plans[gocql.TypeInfo, types]
	texts adapter.Texts // renewed after a user-defined type gained a field (see renewed)
}

var _ adapter.Driver = (*Driver)(nil)

// New returns the driver for s.
func New(s *gocql.Session) *Driver {
	if s == nil {
		panic("kandra/driver/kgocql: New: nil *gocql.Session")
	}
	return &Driver{s: s}
}

// Session is the gocql session.
func (d *Driver) Session() *gocql.Session { return d.s }

// query is q as a gocql query, with its plan and the text sent, marked
// idempotent or not as its statement is (adapter.Statement.IsIdempotent).
// One that is not idempotent gets the retry policy once, which never
// retries: gocql v1.7.0's query executor retries a failed query by its
// policy whatever its idempotence (query_executor.go), and a second
// lightweight transaction or counter update would be answered or applied
// as a new one.
//
// Its values are bound by reference (adapter.Plan.Values) into args, from
// the pool: gocql runs the query, retries included, before Exec or Iter
// returns, and the caller then releases args (a read turns gocql's
// automatic paging off: no later page reads them). It would run one later
// only in a speculative execution, which it starts for a query with a
// SpeculativeExecutionPolicy of its own, never set here (a new query has
// NonSpeculativeExecution).
func (d *Driver) query(ctx context.Context, q *adapter.Query) (gq *gocql.Query, p *adapter.Plan[gocql.TypeInfo, types], cql string, args *adapter.Args, err error) {
	p, err = d.plans.Of(q.Statement)
	if err != nil {
		return nil, nil, "", nil, err
	}
	if q.Statement.IsConditional() && !q.SerialConsistency.IsSerial() {
		// ScyllaDB's fork of gocql panics on any other serial level;
		// gocql v1.7.0 sends it, and the server refuses it.
		return nil, nil, "", nil, &kerrors.ArgumentError{Op: "kgocql: conditional statement", Arg: "SerialConsistency",
			Message: q.SerialConsistency.String() + " is not SERIAL or LOCAL_SERIAL"}
	}
	cql = d.texts.CQL(q.Statement)
	gq = d.s.Query(cql).WithContext(ctx).Consistency(gocql.Consistency(q.Consistency))
	gq.Idempotent(q.Statement.IsIdempotent())
	if !q.Statement.IsIdempotent() {
		gq.RetryPolicy(once{})
	}
	args = adapter.NewArgs()
	gq.Bind(p.Bind(args, q.Values, true)...)
	if q.Statement.IsConditional() {
		gq = gq.SerialConsistency(gocql.SerialConsistency(q.SerialConsistency))
	}
	return gq, p, cql, args, nil
}

// Exec implements adapter.Driver. A statement that is not idempotent is
// sent once; when its answer is lost, or the server's error leaves the
// outcome open, the error matches kerrors.ErrUnknownOutcome.
func (d *Driver) Exec(ctx context.Context, q *adapter.Query) (bool, error) {
	return adapter.Send(ctx, d, &d.texts, q.Statement.IsIdempotent(), mayHaveApplied, func() (bool, adapter.Sent, error) {
		return d.exec(ctx, q)
	})
}

// mayHaveApplied reports whether err, the error of a statement gocql ran,
// may have come after the server applied it: an answer lost (a client
// timeout, a connection closed or broken, the context done while waiting),
// a server error that leaves the outcome open (adapter.MayHaveApplied), or
// anything not known to come before sending, which is the safe side: the
// caller reads before writing again.
func mayHaveApplied(err error) bool {
	return adapter.OutcomeOpen[gocql.RequestError, gocql.MarshalError](err, notSent...)
}

// notSent are gocql's errors that come before a statement is sent.
var notSent = []error{gocql.ErrNoConnections, gocql.ErrNoStreams, gocql.ErrSessionClosed, gocql.ErrQueryArgLength,
	gocql.ErrTooManyStmts, gocql.ErrUseStmt, gocql.ErrNoKeyspace, gocql.ErrUnsupported, gocql.ErrFrameTooBig}

// once is the retry policy of a statement that must not be sent twice: it
// never retries. A query without a policy would not do: ScyllaDB's fork
// of gocql then retries by its default SimpleRetryPolicy.
type once struct{}

// Attempt implements gocql.RetryPolicy: never again.
func (once) Attempt(gocql.RetryableQuery) bool { return false }

// GetRetryType implements gocql.RetryPolicy.
func (once) GetRetryType(error) gocql.RetryType { return gocql.Rethrow }

func (d *Driver) exec(ctx context.Context, q *adapter.Query) (bool, adapter.Sent, error) {
	gq, p, cql, args, err := d.query(ctx, q)
	if err != nil {
		return false, adapter.SentOne(q.Statement, cql), err
	}
	// Once it ran, the query goes back to gocql's pool and its values to
	// ours: neither is read again (see query).
	defer args.Release()
	defer gq.Release()
	if q.Statement.IsConditional() && q.Current == nil {
		applied, err := gq.MapScanCAS(map[string]any{})
		return applied, adapter.SentOne(q.Statement, cql), err
	}
	if q.Statement.IsConditional() {
		applied, err := scanCAS(gq.NoSkipMetadata().Iter(), p, q)
		return applied, adapter.SentOne(q.Statement, cql), err
	}
	return true, adapter.SentOne(q.Statement, cql), gq.Exec()
}

// Query implements adapter.Driver: one page, never fetching the next by
// itself, but for pages with no rows that are not the last, which it
// passes (as ScyllaDB's fork of gocql does).
func (d *Driver) Query(ctx context.Context, q *adapter.Query) (adapter.Rows, error) {
	return adapter.Send(ctx, d, &d.texts, true, mayHaveApplied, func() (adapter.Rows, adapter.Sent, error) {
		gq, p, cql, args, err := d.query(ctx, q)
		sent := adapter.SentOne(q.Statement, cql)
		if err != nil {
			return nil, sent, err
		}
		defer args.Release() // the page is read: no later one reads them (see query)
		if q.PageSize > 0 {
			gq = gq.PageSize(q.PageSize)
		}
		gq = gq.PageState(q.PageState) // also turns gocql's automatic paging off
		it := gq.Iter()
		// A page with no rows that is not the last (the server may return
		// one): ScyllaDB's fork of gocql fetches the next page itself, from
		// its v1.14.3; so does this, for gocql v1.7.0.
		for it.NumRows() == 0 && len(it.PageState()) > 0 {
			state := it.PageState() // a copy of the frame's bytes
			if err := it.Close(); err != nil {
				return nil, sent, err
			}
			it = gq.PageState(state).Iter()
		}
		rows, err := p.Page(it)
		return rows, sent, err
	})
}

// Batch implements adapter.Driver with a LOGGED BATCH (UNLOGGED when
// b.Unlogged). A batch is
// idempotent when each of its statements is; one that is not is sent
// once, and its error matches kerrors.ErrUnknownOutcome as Exec's does.
func (d *Driver) Batch(ctx context.Context, b *adapter.Batch) (bool, error) {
	return adapter.Send(ctx, d, &d.texts, b.IsIdempotent(), mayHaveApplied, func() (bool, adapter.Sent, error) {
		return d.batch(ctx, b)
	})
}

func (d *Driver) batch(ctx context.Context, b *adapter.Batch) (bool, adapter.Sent, error) {
	args := adapter.NewArgs() // the entries' values, released once the batch ran (see query)
	defer args.Release()
	gb, sent, err := d.newBatch(ctx, b, args)
	if err != nil {
		return false, sent, err
	}
	if !b.IsConditional() {
		return true, sent, d.s.ExecuteBatch(gb)
	}
	applied, err := d.plans.ExecBatchCAS(b, func(m map[string]any) (bool, []string, func(...any) bool, func() error, error) {
		applied, it, err := mapExecuteBatchCAS(d.s, gb, m)
		if it == nil {
			return false, nil, nil, nil, err
		}
		if err != nil {
			return false, nil, nil, it.Close, err
		}
		cols := it.Columns()
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = c.Name
		}
		return applied, names, it.Scan, it.Close, nil
	})
	return applied, sent, err
}

// mapExecuteBatchCAS is the session's MapExecuteBatchCAS, which panics
// when the answer's first row cannot be scanned into m (it asserts
// m["[applied]"] to be the bool the scan would have stored): the batch was
// sent, so that is an error after sending, whose outcome is open.
func mapExecuteBatchCAS(s *gocql.Session, gb *gocql.Batch, m map[string]any) (applied bool, it *gocql.Iter, err error) {
	defer func() {
		if p := recover(); p != nil {
			applied, it, err = false, nil, fmt.Errorf("kgocql: the answer to a conditional batch could not be read: %v", p)
		}
	}()
	return s.MapExecuteBatchCAS(gb, m)
}

// newBatch is b as a batch of the driver, with its statements and the
// texts sent, idempotent when each statement is.
func (d *Driver) newBatch(ctx context.Context, b *adapter.Batch, args *adapter.Args) (*gocql.Batch, adapter.Sent, error) {
	kind := gocql.LoggedBatch
	switch {
	case b.Counter:
		kind = gocql.CounterBatch
	case b.Unlogged:
		kind = gocql.UnloggedBatch
	}
	gb := d.s.NewBatch(kind).WithContext(ctx)
	gb.Cons = gocql.Consistency(b.Consistency)
	// References are safe: gocql speculates on a batch only with a
	// SpeculativeExecutionPolicy of its own, never set here.
	sent, err := d.plans.Batch(b, &d.texts, args, func(text string, values []any, idempotent bool) {
		gb.Entries = append(gb.Entries, gocql.BatchEntry{Stmt: text, Args: values, Idempotent: idempotent})
	})
	if err != nil {
		return nil, sent, err
	}
	if b.IsConditional() {
		if !b.SerialConsistency.IsSerial() {
			return nil, sent, &kerrors.ArgumentError{Op: "conditional batch", Arg: "SerialConsistency",
				Message: b.SerialConsistency.String() + " is not SERIAL or LOCAL_SERIAL"}
		}
		gb.SerialConsistency(gocql.SerialConsistency(b.SerialConsistency))
	}
	if !gb.IsIdempotent() {
		gb.RetryPolicy(once{}) // as query's
	}
	return gb, sent, nil
}

// Authenticator returns a gocql ClusterConfig.AuthProvider that asks p for
// credentials on every new connection (so a rotated secret is used without
// a restart) and answers the server's PasswordAuthenticator with them.
// A provider failure is an *kerrors.AuthError; it is reported to
// l.OnAuthFailed (l may be nil) with the host's address, and on success
// l.OnCredentialRefreshed is called when the credentials changed.
//
//	cluster.AuthProvider = kgocql.Authenticator(auth.FromEnv(), listener)
func Authenticator(p auth.Provider, l kandra.EventListener) func(h *gocql.HostInfo) (gocql.Authenticator, error) {
	if p == nil {
		panic("kandra/driver/kgocql: Authenticator: nil auth.Provider")
	}
	a := adapter.NewAuth(p, l)
	return func(h *gocql.HostInfo) (gocql.Authenticator, error) {
		creds, err := a.Credentials(func() string { return hostAddr(h) })
		if err != nil {
			return nil, err
		}
		return gocql.PasswordAuthenticator{Username: creds.Username, Password: creds.Password}, nil
	}
}

func hostAddr(h *gocql.HostInfo) string {
	if h == nil {
		return ""
	}
	return net.JoinHostPort(h.ConnectAddress().String(), strconv.Itoa(h.Port()))
}

// scanCAS reads the answer of a conditional statement whose caller wants
// the current row back when it does not apply (q.Current): [applied], then
// the columns the server returned, by name (adapter.Plan.ReadCAS).
func scanCAS(it *gocql.Iter, p *adapter.Plan[gocql.TypeInfo, types], q *adapter.Query) (bool, error) {
	cols := it.Columns()
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return p.ReadCAS(q, names, it.Scan, it.Close)
}
