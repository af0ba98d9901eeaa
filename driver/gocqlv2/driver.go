// Package gocqlv2 is the kandra runtime's adapter for the Apache Cassandra
// Go driver v2 (github.com/apache/cassandra-gocql-driver/v2, v2.1.2), the
// maintained line of gocql, with native protocol v5.
//
//	cluster := gocql.NewCluster("127.0.0.1")
//	cluster.AuthProvider = kgocqlv2.Authenticator(auth.FromEnv(), listener)
//	session, err := cluster.CreateSession()
//	rt, err := runtime.New(kgocqlv2.New(session), "app")
//	users := runtime.MustNewRepo(rt, Users)
//
// It converts the Go types the driver cannot marshal or scan (see Codec)
// per column, and plugs an auth.Provider into the driver's authenticator
// (Authenticator).
package gocqlv2

import (
	"context"
	"errors"
	"net"
	"reflect"
	"strconv"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/auth"
	kerrors "github.com/kandra-go/kandra/errors"
	"github.com/kandra-go/kandra/runtime"
)

// Driver implements runtime.Driver on a *gocql.Session. It is safe for
// concurrent use; it does not own the session (close it yourself).
type Driver struct {
	s     *gocql.Session
	plans sync.Map // *kandra.Statement -> *plan
}

var _ runtime.Driver = (*Driver)(nil)

// New returns the driver for s.
func New(s *gocql.Session) *Driver {
	if s == nil {
		panic("kandra/driver/gocqlv2: New: nil *gocql.Session")
	}
	return &Driver{s: s}
}

// Session is the gocql session.
func (d *Driver) Session() *gocql.Session { return d.s }

// plan is the conversions of one statement: per marker and per result
// column, nil where gocql takes the value as it is.
type plan struct {
	params []*conv
	goType []reflect.Type
	result []*conv
	cols   []*kandra.ColumnSchema // the result columns, for read errors
	any    bool                   // some result column converts
}

// conv is result column i's conversion; nil past the columns (the
// WRITETIME of Statement.HasWriteTime scans into the *int64 as it is).
func (p *plan) conv(i int) *conv {
	if i < len(p.result) {
		return p.result[i]
	}
	return nil
}

func (d *Driver) plan(s *kandra.Statement) (*plan, error) {
	if p, ok := d.plans.Load(s); ok {
		return p.(*plan), nil
	}
	p := &plan{params: make([]*conv, s.NumParams()), goType: make([]reflect.Type, s.NumParams()), result: make([]*conv, s.NumResult()), cols: make([]*kandra.ColumnSchema, s.NumResult())}
	for i := 0; i < s.NumParams(); i++ {
		c := s.Param(i).Column
		if c == nil {
			continue
		}
		n, err := nodeOf(c.Type())
		if err != nil {
			return nil, err
		}
		p.params[i] = planConv(c.GoType(), n, true)
		p.goType[i] = c.GoType()
	}
	for i := 0; i < s.NumResult(); i++ {
		c := s.Result(i)
		n, err := nodeOf(c.Type())
		if err != nil {
			return nil, err
		}
		p.cols[i] = c
		if p.result[i] = planConv(c.GoType(), n, true); p.result[i] != nil {
			p.any = true
		}
	}
	v, _ := d.plans.LoadOrStore(s, p)
	return v.(*plan), nil
}

// values converts q.Values for gocql: a *V or a V of a converted column
// becomes its wire value; everything else passes through.
//
// The result is always a new slice: the driver's Query keeps it, and the
// runtime reuses q.Values once the call returns. The address of a common
// type, and of a uuid.UUID, becomes its value (a gocql.UUID), so that
// marshalling takes the driver's typed cases instead of reflect.
func (p *plan) values(vals []any) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		cv := p.params[i]
		switch {
		case v == nil:
			continue
		case cv == nil:
			out[i] = deref(v)
			continue
		case cv.alias != nil:
			if a, ok := cv.alias(v); ok {
				out[i] = wireValue(a)
				continue
			}
		}
		rv := reflect.ValueOf(v)
		if rv.Type() != p.goType[i] && rv.Kind() == reflect.Pointer && rv.Type().Elem() == p.goType[i] {
			rv = rv.Elem()
		}
		out[i] = cv.toWire(rv).Interface()
	}
	return out
}

func (d *Driver) query(q *runtime.Query) (*gocql.Query, error) {
	p, err := d.plan(q.Statement)
	if err != nil {
		return nil, err
	}
	gq := d.s.Query(q.Statement.CQL(), p.values(q.Values)...).Consistency(gocql.Consistency(q.Consistency))
	if q.Statement.IsConditional() {
		gq = gq.SerialConsistency(gocql.Consistency(q.SerialConsistency))
	}
	return gq, nil
}

// Exec implements runtime.Driver.
func (d *Driver) Exec(ctx context.Context, q *runtime.Query) (bool, error) {
	gq, err := d.query(q)
	if err != nil {
		return false, err
	}
	if q.Statement.IsConditional() {
		return gq.MapScanCASContext(ctx, map[string]any{})
	}
	return true, gq.ExecContext(ctx)
}

// Query implements runtime.Driver: one page, never fetching the next by
// itself.
func (d *Driver) Query(ctx context.Context, q *runtime.Query) (runtime.Rows, error) {
	gq, err := d.query(q)
	if err != nil {
		return nil, err
	}
	if q.PageSize > 0 {
		gq = gq.PageSize(q.PageSize)
	}
	gq = gq.PageState(q.PageState) // also turns gocql's automatic paging off
	p, _ := d.plan(q.Statement)
	return &rows{it: gq.IterContext(ctx), p: p}, nil
}

type rows struct {
	it      *gocql.Iter
	p       *plan
	targets []any
	tmps    []reflect.Value
	err     error
}

func (r *rows) Next(dst []any) bool {
	if !r.p.any {
		return r.it.Scan(dst...)
	}
	if r.targets == nil {
		r.targets = make([]any, len(dst))
		r.tmps = make([]reflect.Value, len(dst))
	}
	for i, t := range dst {
		if cv := r.p.conv(i); cv != nil {
			if cv.alias != nil {
				if a, ok := cv.alias(t); ok {
					r.targets[i], r.tmps[i] = a, reflect.Value{} // scanned in place
					continue
				}
			}
			r.tmps[i] = reflect.New(cv.wire)
			r.targets[i] = r.tmps[i].Interface()
		} else {
			r.targets[i] = t
		}
	}
	if !r.it.Scan(r.targets...) {
		return false
	}
	for i, t := range dst {
		if cv := r.p.conv(i); cv != nil && r.tmps[i].IsValid() {
			v, err := cv.fromWire(r.tmps[i].Elem())
			if err != nil {
				r.err = r.p.cols[i].ReadError(err)
				return false
			}
			reflect.ValueOf(t).Elem().Set(v)
		}
	}
	return true
}

func (r *rows) PageState() []byte { return r.it.PageState() }

func (r *rows) Close() error {
	err := r.it.Close()
	if err == nil {
		err = r.err
	}
	return err
}

// Batch implements runtime.Driver with a LOGGED BATCH.
func (d *Driver) Batch(ctx context.Context, b *runtime.Batch) error {
	gb := d.s.Batch(gocql.LoggedBatch).Consistency(gocql.Consistency(b.Consistency))
	for _, e := range b.Entries {
		p, err := d.plan(e.Statement)
		if err != nil {
			return err
		}
		gb.Query(e.Statement.CQL(), p.values(e.Values)...)
	}
	return gb.ExecContext(ctx)
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
		panic("kandra/driver/gocqlv2: Authenticator: nil auth.Provider")
	}
	var mu sync.Mutex
	var last auth.Credentials
	var seen bool
	return func(h *gocql.HostInfo) (gocql.Authenticator, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		creds, err := p.Credentials(ctx)
		if err != nil {
			var ae *kerrors.AuthError
			if !errors.As(err, &ae) {
				err = &kerrors.AuthError{Message: "credentials provider failed", Cause: err}
			}
			if l != nil {
				l.OnAuthFailed(hostAddr(h), err)
			}
			return nil, err
		}
		mu.Lock()
		changed := seen && creds != last
		last, seen = creds, true
		mu.Unlock()
		if changed && l != nil {
			l.OnCredentialRefreshed()
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
