// Package kgocqlv2 is the kandra runtime's adapter for the Apache Cassandra
// Go driver v2 (github.com/apache/cassandra-gocql-driver/v2, v2.1.2), the
// maintained line of gocql, with native protocol v5.
//
//	cluster := gocql.NewCluster("127.0.0.1")
//	cluster.AuthProvider = kgocqlv2.Authenticator(auth.FromEnv(), listener)
//	session, err := cluster.CreateSession()
//	rt, err := store.New(kgocqlv2.New(session), app) // app is the *kandra.Keyspace
//	users := store.MustNewRepo(rt, Users)
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
	"github.com/kandra-go/kandra/store"
)

// Driver implements store.Driver on a *gocql.Session. It is safe for
// concurrent use; it does not own the session (close it yourself).
type Driver struct {
	s     *gocql.Session
	plans adapter.Plans[gocql.TypeInfo, types]
	texts adapter.Texts // renewed after a user-defined type gained a field (see renewed)
}

var _ store.Driver = (*Driver)(nil)

// New returns the driver for s.
func New(s *gocql.Session) *Driver {
	if s == nil {
		panic("kandra/driver/kgocqlv2: New: nil *gocql.Session")
	}
	return &Driver{s: s}
}

// Session is the driver's session.
func (d *Driver) Session() *gocql.Session { return d.s }

// query is q as a query of the driver, with its plan and the text sent.
// Its values are bound by reference (adapter.Plan.Values) when the driver
// runs it before ExecContext or IterContext returns: when it is not
// idempotent, the driver never runs speculative executions of it, which
// could read the fields after the call.
func (d *Driver) query(q *store.Query) (*gocql.Query, *adapter.Plan[gocql.TypeInfo, types], string, error) {
	p, err := d.plans.Of(q.Statement)
	if err != nil {
		return nil, nil, "", err
	}
	cql := d.texts.CQL(q.Statement)
	gq := d.s.Query(cql).Consistency(gocql.Consistency(q.Consistency))
	gq.Bind(p.Values(q.Values, !gq.IsIdempotent())...)
	if q.Statement.IsConditional() {
		gq = gq.SerialConsistency(gocql.Consistency(q.SerialConsistency))
	}
	return gq, p, cql, nil
}

// renewed reports whether err is a value of a user-defined type the
// driver could not marshal because it prepared the statement before the
// type gained a field the value has (adapter.UDTFieldAdded), and if so
// renews the texts sent (stmts and sent in pairs), which the driver then
// prepares anew: nothing was sent, so the call can be made again.
func (d *Driver) renewed(ctx context.Context, err error, stmts []*adapter.Statement, sent []string) bool {
	if !adapter.UDTFieldAdded(ctx, d.QueryCQL, err) {
		return false
	}
	for i, s := range stmts {
		d.texts.Renew(s, sent[i])
	}
	return true
}

// Exec implements store.Driver.
func (d *Driver) Exec(ctx context.Context, q *store.Query) (bool, error) {
	for try := 0; ; try++ {
		applied, cql, err := d.exec(ctx, q)
		if try == 0 && err != nil && d.renewed(ctx, err, []*adapter.Statement{q.Statement}, []string{cql}) {
			continue
		}
		return applied, err
	}
}

func (d *Driver) exec(ctx context.Context, q *store.Query) (bool, string, error) {
	gq, _, cql, err := d.query(q)
	if err != nil {
		return false, cql, err
	}
	if q.Statement.IsConditional() {
		applied, err := gq.MapScanCASContext(ctx, map[string]any{})
		return applied, cql, err
	}
	return true, cql, gq.ExecContext(ctx)
}

// Query implements store.Driver: one page, never fetching the next by
// itself.
func (d *Driver) Query(ctx context.Context, q *store.Query) (store.Rows, error) {
	for try := 0; ; try++ {
		gq, p, cql, err := d.query(q)
		if err != nil {
			return nil, err
		}
		if q.PageSize > 0 {
			gq = gq.PageSize(q.PageSize)
		}
		gq = gq.PageState(q.PageState) // also turns automatic paging off
		it := gq.IterContext(ctx)
		if it.NumRows() > 0 || len(it.PageState()) > 0 {
			return p.Rows(it), nil
		}
		// No rows, the last page: a failure (one to make again, see
		// renewed) or the end.
		if err := it.Close(); err != nil {
			if try == 0 && d.renewed(ctx, err, []*adapter.Statement{q.Statement}, []string{cql}) {
				continue
			}
			return nil, err
		}
		return p.Rows(noRows{}), nil
	}
}

// noRows is a page without rows, the last.
type noRows struct{}

func (noRows) Scan(...any) bool  { return false }
func (noRows) PageState() []byte { return nil }
func (noRows) Close() error      { return nil }

// Batch implements store.Driver with a LOGGED BATCH.
func (d *Driver) Batch(ctx context.Context, b *store.Batch) error {
	for try := 0; ; try++ {
		stmts, sent, err := d.batch(ctx, b)
		if try == 0 && err != nil && d.renewed(ctx, err, stmts, sent) {
			continue
		}
		return err
	}
}

func (d *Driver) batch(ctx context.Context, b *store.Batch) ([]*adapter.Statement, []string, error) {
	kind := gocql.LoggedBatch
	if b.Unlogged {
		kind = gocql.UnloggedBatch
	}
	gb := d.s.Batch(kind).Consistency(gocql.Consistency(b.Consistency))
	stmts, sent := make([]*adapter.Statement, len(b.Entries)), make([]string, len(b.Entries))
	for i, e := range b.Entries {
		p, err := d.plans.Of(e.Statement)
		if err != nil {
			return nil, nil, err
		}
		// A batch entry is never idempotent here, so the driver never
		// speculates on the batch: references are safe.
		stmts[i], sent[i] = e.Statement, d.texts.CQL(e.Statement)
		gb.Query(sent[i], p.Values(e.Values, true)...)
	}
	return stmts, sent, gb.ExecContext(ctx)
}

// Authenticator returns a ClusterConfig.AuthProvider that asks p for
// credentials on every new connection (so a rotated secret is used without
// a restart) and answers the server's PasswordAuthenticator with them.
// A provider failure is an *errors.AuthError; it is reported to
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
