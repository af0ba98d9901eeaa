// Package kgocqlv2 is the kandra runtime's adapter for the Apache Cassandra
// Go driver v2 (github.com/apache/cassandra-gocql-driver/v2, v2.1.2), the
// maintained line of gocql, with native protocol v5.
//
//	cluster := gocql.NewCluster("127.0.0.1")
//	cluster.AuthProvider = kgocqlv2.Authenticator(auth.FromEnv(), listener)
//	session, err := cluster.CreateSession()
//	rt, err := kstore.New(kgocqlv2.New(session), app) // app is the *kandra.Keyspace
//	users := kstore.MustNewRepo(rt, Users)
//
// It converts the Go types the driver cannot marshal or scan (see Codec)
// per column, and plugs an auth.Provider into the driver's authenticator
// (Authenticator). The planning, binding, scanning and value rules are
// the adapter core's (github.com/kandra-go/kandra/adapter), shared with
// the adapter for gocql v1.7.0; this package holds the driver's session
// plumbing.
package kgocqlv2

import (
	"context"
	"net"
	"strconv"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
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
		panic("kandra/driver/kgocqlv2: New: nil *gocql.Session")
	}
	return &Driver{s: s}
}

// Session is the driver's session.
func (d *Driver) Session() *gocql.Session { return d.s }

// query is q as a query of the driver, with its plan and the text sent,
// marked idempotent or not as its statement is
// (adapter.Statement.IsIdempotent), whatever the session's
// DefaultIdempotence: the driver retries only an idempotent query
// (query_executor.go), and a second lightweight transaction or counter
// update would be answered or applied as a new one. One that is not
// idempotent also gets the retry policy once, which never retries, as in
// the adapter for gocql v1.7.0, whose executor retries whatever the
// idempotence.
//
// Its values are bound by reference (adapter.Plan.Values) into args, from
// the pool: the driver runs the query, retries included, before
// ExecContext or IterContext returns, and the caller then releases args
// (a read turns automatic paging off: no later page reads them). It
// would run one later only in a speculative execution, which it starts
// for a query with a SpeculativeExecutionPolicy of its own, never set
// here (a new query has NonSpeculativeExecution).
func (d *Driver) query(q *adapter.Query) (gq *gocql.Query, p *adapter.Plan[gocql.TypeInfo, types], cql string, args *adapter.Args, err error) {
	p, err = d.plans.Of(q.Statement)
	if err != nil {
		return nil, nil, "", nil, err
	}
	cql = d.texts.CQL(q.Statement)
	gq = d.s.Query(cql).Consistency(gocql.Consistency(q.Consistency))
	gq.Idempotent(q.Statement.IsIdempotent())
	if !q.Statement.IsIdempotent() {
		gq.RetryPolicy(once{})
	}
	args = adapter.NewArgs()
	gq.Bind(p.Bind(args, q.Values, true)...)
	if q.Statement.IsConditional() {
		gq = gq.SerialConsistency(gocql.Consistency(q.SerialConsistency))
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

// mayHaveApplied reports whether err, the error of a statement the driver
// ran, may have come after the server applied it: an answer lost (a
// client timeout, a connection closed or broken, the context done while
// waiting), a server error that leaves the outcome open
// (adapter.MayHaveApplied), or anything not known to come before sending,
// which is the safe side: the caller reads before writing again.
func mayHaveApplied(err error) bool {
	return adapter.OutcomeOpen[gocql.RequestError, gocql.MarshalError](err, notSent...)
}

// notSent are the driver's errors that come before a statement is sent.
var notSent = []error{gocql.ErrNoConnections, gocql.ErrNoStreams, gocql.ErrSessionClosed,
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
	gq, p, cql, args, err := d.query(q)
	if err != nil {
		return false, adapter.SentOne(q.Statement, cql), err
	}
	defer args.Release() // once it ran, nothing reads them again (see query)
	if q.Statement.IsConditional() && q.Current == nil {
		applied, err := gq.MapScanCASContext(ctx, map[string]any{})
		return applied, adapter.SentOne(q.Statement, cql), err
	}
	if q.Statement.IsConditional() {
		applied, err := scanCAS(gq.NoSkipMetadata().IterContext(ctx), p, q)
		return applied, adapter.SentOne(q.Statement, cql), err
	}
	return true, adapter.SentOne(q.Statement, cql), gq.ExecContext(ctx)
}

// Query implements adapter.Driver: one page, never fetching the next by
// itself.
func (d *Driver) Query(ctx context.Context, q *adapter.Query) (adapter.Rows, error) {
	return adapter.Send(ctx, d, &d.texts, true, mayHaveApplied, func() (adapter.Rows, adapter.Sent, error) {
		gq, p, cql, args, err := d.query(q)
		sent := adapter.SentOne(q.Statement, cql)
		if err != nil {
			return nil, sent, err
		}
		defer args.Release() // the page is read: no later one reads them (see query)
		if q.PageSize > 0 {
			gq = gq.PageSize(q.PageSize)
		}
		gq = gq.PageState(q.PageState) // also turns automatic paging off
		it := gq.IterContext(ctx)
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
	gb, sent, err := d.newBatch(b, args)
	if err != nil {
		return false, sent, err
	}
	if !b.IsConditional() {
		return true, sent, gb.ExecContext(ctx)
	}
	applied, err := d.plans.ExecBatchCAS(b, func(m map[string]any) (bool, []string, func(...any) bool, func() error, error) {
		applied, it, err := gb.MapExecCASContext(ctx, m)
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

// newBatch is b as a batch of the driver, with its statements and the
// texts sent, idempotent when each statement is.
func (d *Driver) newBatch(b *adapter.Batch, args *adapter.Args) (*gocql.Batch, adapter.Sent, error) {
	kind := gocql.LoggedBatch
	switch {
	case b.Counter:
		kind = gocql.CounterBatch
	case b.Unlogged:
		kind = gocql.UnloggedBatch
	}
	gb := d.s.Batch(kind).Consistency(gocql.Consistency(b.Consistency))
	// References are safe: the driver speculates on a batch only
	// with a SpeculativeExecutionPolicy of its own, never set here.
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
		gb.SerialConsistency(gocql.Consistency(b.SerialConsistency))
	}
	if !gb.IsIdempotent() {
		gb.RetryPolicy(once{}) // as query's
	}
	return gb, sent, nil
}

// Authenticator returns a ClusterConfig.AuthProvider that asks p for
// credentials on every new connection (so a rotated secret is used without
// a restart) and answers the server's PasswordAuthenticator with them.
// A provider failure is an *kerrors.AuthError; it is reported to
// l.OnAuthFailed (l may be nil) with the host's address, and on success
// l.OnCredentialRefreshed is called when the credentials changed.
//
//	cluster.AuthProvider = kgocqlv2.Authenticator(auth.FromEnv(), listener)
func Authenticator(p auth.Provider, l kandra.EventListener) func(h *gocql.HostInfo) (gocql.Authenticator, error) {
	if p == nil {
		panic("kandra/driver/kgocqlv2: Authenticator: nil auth.Provider")
	}
	a := adapter.NewAuth(p, l)
	return func(h *gocql.HostInfo) (gocql.Authenticator, error) {
		creds, err := a.Credentials(func() string { return hostAddr(h) })
		if err != nil {
			return nil, err
		}
		// gocql v1.7.0's list of approved authenticators: the v2 driver
		// would otherwise answer any authenticator the server names.
		return gocql.PasswordAuthenticator{Username: creds.Username, Password: creds.Password,
			AllowedAuthenticators: allowedAuthenticators}, nil
	}
}

var allowedAuthenticators = []string{
	"org.apache.cassandra.auth.PasswordAuthenticator",
	"com.instaclustr.cassandra.auth.SharedSecretAuthenticator",
	"com.datastax.bdp.cassandra.auth.DseAuthenticator",
	"io.aiven.cassandra.auth.AivenAuthenticator",
	"com.ericsson.bss.cassandra.ecaudit.auth.AuditPasswordAuthenticator",
	"com.amazon.helenus.auth.HelenusAuthenticator",
	"com.ericsson.bss.cassandra.ecaudit.auth.AuditAuthenticator",
	"com.scylladb.auth.SaslauthdAuthenticator",
	"com.scylladb.auth.TransitionalAuthenticator",
	"com.instaclustr.cassandra.auth.InstaclustrPasswordAuthenticator",
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
