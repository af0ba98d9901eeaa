package adapter

import (
	"context"
	"errors"
	"net"
	"reflect"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/auth"
	"github.com/kandra-go/kandra/internal/cqlstmt"
	"github.com/kandra-go/kandra/kerrors"
)

// IsConditional reports a lightweight transaction: an INSERT, UPDATE or
// DELETE with an IF clause (the word IF, in any case). An adapter runs
// such a statement of the migrator's (adapter.Driver's ExecCQL) at serial
// consistency and reads its [applied] column. Other statements with IF
// (CREATE ... IF NOT EXISTS) are not transactions. (The runtime's
// statements say it themselves: Statement.IsConditional.)
func IsConditional(stmt string) bool { return cqlstmt.IsConditional(stmt) }

// Auth is the driver-neutral part of an adapter's authenticator: it asks
// a provider for credentials on every new connection (so that a rotated
// secret is used without a restart), and reports to a listener. It is
// safe for concurrent use.
type Auth struct {
	p    auth.Provider
	l    kandra.EventListener
	mu   sync.Mutex
	last auth.Credentials
	seen bool
}

// NewAuth returns the Auth of p (not nil) and l (nil for none).
func NewAuth(p auth.Provider, l kandra.EventListener) *Auth { return &Auth{p: p, l: l} }

// Credentials asks the provider for the credentials of a new connection,
// with a timeout of 30 seconds. A provider failure is an
// *kerrors.AuthError; it is reported to the listener's OnAuthFailed with
// host() (the connection's host:port; called only then). On success the
// listener's OnCredentialRefreshed is called when the credentials changed
// since the last connection.
func (a *Auth) Credentials(host func() string) (auth.Credentials, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	creds, err := a.p.Credentials(ctx)
	if err != nil {
		var ae *kerrors.AuthError
		if !errors.As(err, &ae) {
			err = &kerrors.AuthError{Message: "credentials provider failed", Cause: err}
		}
		if a.l != nil {
			a.l.OnAuthFailed(host(), err)
		}
		return auth.Credentials{}, err
	}
	a.mu.Lock()
	changed := a.seen && creds != a.last
	a.last, a.seen = creds, true
	a.mu.Unlock()
	if changed && a.l != nil {
		a.l.OnCredentialRefreshed()
	}
	return creds, nil
}

// MapIter is a driver's rows as MapRows reads them: the *Iter of both
// gocql drivers.
type MapIter interface {
	MapScan(m map[string]any) bool
	Close() error
}

// MapRows reads every row of it (the driver fetching pages as they come)
// with the driver's own types turned into plain values, as
// a Driver's QueryCQL gives them (the migrator reads system_schema so): a UUID (any
// 16-byte array) and a list of them as canonical strings, a net.IP as its
// string.
func MapRows(it MapIter) ([]map[string]any, error) {
	var out []map[string]any
	for {
		m := map[string]any{}
		if !it.MapScan(m) {
			break
		}
		for k, v := range m {
			m[k] = plainValue(v)
		}
		out = append(out, m)
	}
	return out, it.Close()
}

// plainValue turns the driver's own types into plain values.
func plainValue(v any) any {
	if ip, ok := v.(net.IP); ok {
		return ip.String()
	}
	rv := reflect.ValueOf(v)
	switch {
	case !rv.IsValid():
	case isUUIDType(rv.Type()):
		return uuidString(rv)
	case rv.Kind() == reflect.Slice && isUUIDType(rv.Type().Elem()):
		s := make([]string, rv.Len())
		for i := range s {
			s[i] = uuidString(rv.Index(i))
		}
		return s
	}
	return v
}

func uuidString(v reflect.Value) string {
	var u uuid.UUID
	reflect.Copy(reflect.ValueOf(u[:]), v)
	return u.String()
}
