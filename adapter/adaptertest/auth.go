package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/auth"
	"github.com/kandra-go/kandra/kerrors"
)

// AuthNode is an adapter's way onto a node started with
// `scripts/cassandra.sh start --auth` (superuser cassandra/cassandra), for
// [RunAuth].
type AuthNode struct {
	// Name goes into the test role's name and the real-server line
	// ("gocql", "gocqlv2").
	Name string
	// Login builds one authenticator from p and l, the adapter's own
	// (kgocql.Authenticator(p, l)), and returns a function that opens a new
	// session whose connections log in through that same authenticator,
	// proves it with a query, and returns it. An error is the driver's,
	// unwrapped enough that its message is the server's or the
	// authenticator's.
	Login func(p auth.Provider, l kandra.EventListener) func() (AuthSession, error)
}

// AuthSession is an open session on the auth node.
type AuthSession interface {
	// Exec runs one raw CQL statement (a role's DDL).
	Exec(cql string) error
	// Close closes the session.
	Close()
}

// RunAuth proves an adapter's authenticator against the auth node: the
// superuser logs in through a static provider; a role of the test's own
// logs in, has its password rotated, is refused with the old password
// until the provider changes, then logs in again through the same
// authenticator (one OnCredentialRefreshed); a provider failure is an
// *kerrors.AuthError reported to OnAuthFailed and no session; a wrong
// password is refused with the server's message; and no error message
// holds a password. It skips unless KANDRA_CASSANDRA_AUTH=1, and prints
// "real-server: auth adapter=<Name> ok=<bool>".
func RunAuth(t *testing.T, n AuthNode) {
	t.Helper()
	if os.Getenv("KANDRA_CASSANDRA_AUTH") != "1" {
		t.Skip("needs a node started with `scripts/cassandra.sh start --auth` and KANDRA_CASSANDRA_AUTH=1")
	}
	ok := false
	defer func() { fmt.Printf("real-server: auth adapter=%s ok=%t\n", n.Name, ok && !t.Failed()) }()

	// The superuser, through a static provider.
	admin, err := n.Login(auth.Static("cassandra", "cassandra"), nil)()
	if err != nil {
		t.Fatalf("the superuser cannot log in through the adapter's authenticator: %v", err)
	}
	defer admin.Close()

	// A role of the test's own, then its password rotated: the same
	// authenticator reads the provider again for every new connection.
	id := strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	role := "kandra_" + n.Name + "_" + id
	pass1, pass2 := "first-"+id+"-secret", "second-"+id+"-secret"
	if err := admin.Exec("CREATE ROLE " + role + " WITH PASSWORD = '" + pass1 + "' AND LOGIN = true"); err != nil {
		t.Fatalf("CREATE ROLE: %v", err)
	}
	defer func() { _ = admin.Exec("DROP ROLE IF EXISTS " + role) }()
	p := &rotatingProvider{creds: auth.Credentials{Username: role, Password: pass1}}
	l := &authListener{}
	open := n.Login(p, l)
	var msgs []string // every error met, checked for passwords at the end
	login := func() error {
		s, err := open()
		if err != nil {
			msgs = append(msgs, err.Error())
			return err
		}
		s.Close()
		return nil
	}
	if err := retryAuth(login); err != nil {
		t.Fatalf("login as %s: %v", role, err)
	}
	if err := retryAuth(func() error {
		return admin.Exec("ALTER ROLE " + role + " WITH PASSWORD = '" + pass2 + "'")
	}); err != nil {
		t.Fatalf("ALTER ROLE: %v", err)
	}
	// Until the provider is updated, new connections fail with the old one.
	if err := retryAuth(func() error {
		if login() == nil {
			return errors.New("the old password still logs in")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	p.set(auth.Credentials{Username: role, Password: pass2}, nil)
	if err := retryAuth(login); err != nil {
		t.Fatalf("login with the rotated password through the same authenticator: %v", err)
	}
	if _, refreshed := l.state(); refreshed != 1 {
		t.Errorf("OnCredentialRefreshed: %d calls after one rotation, want 1", refreshed)
	}

	// A provider failure: an *kerrors.AuthError, reported to OnAuthFailed,
	// and the session is not created.
	p.set(auth.Credentials{}, errors.New("vault unreachable"))
	err = login()
	failed, _ := l.state()
	var ae *kerrors.AuthError
	switch {
	case err == nil:
		t.Fatal("a session was created while the provider failed")
	case len(failed) == 0:
		t.Fatalf("the provider failed (%v) and OnAuthFailed was not called", err)
	case !errors.As(failed[0], &ae) || !strings.Contains(failed[0].Error(), "vault unreachable"):
		t.Errorf("OnAuthFailed got %v (%T), want an *kerrors.AuthError with the provider's cause", failed[0], failed[0])
	}
	for _, f := range failed {
		msgs = append(msgs, f.Error())
	}

	// A wrong password: the server refuses it, and no message holds it.
	wrong := "wrong-" + id + "-password"
	p.set(auth.Credentials{Username: role, Password: wrong}, nil)
	if err := login(); err == nil {
		t.Fatal("a wrong password logged in")
	} else if !strings.Contains(err.Error(), "Provided username") {
		t.Errorf("a wrong password fails with an unclear error: %v", err)
	}
	for _, m := range msgs {
		for _, secret := range []string{pass1, pass2, wrong} {
			if strings.Contains(m, secret) {
				t.Errorf("an error message holds a password: %s", m)
			}
		}
	}
	t.Logf("rotation and failures through the %s authenticator; provider failure -> %v; wrong password -> %s", n.Name, failed[0], msgs[len(msgs)-1])
	ok = true
}

// authListener records what the authenticator reports; connections call
// it from their own goroutines.
type authListener struct {
	kandra.NopEventListener
	mu        sync.Mutex
	failed    []error
	refreshed int
}

func (l *authListener) OnEventualWriteFailed(string, any, error) {}

func (l *authListener) OnAuthFailed(_ string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failed = append(l.failed, err)
}

func (l *authListener) OnCredentialRefreshed() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refreshed++
}

func (l *authListener) state() ([]error, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]error(nil), l.failed...), l.refreshed
}

// rotatingProvider is a provider whose password the test changes.
type rotatingProvider struct {
	mu    sync.Mutex
	creds auth.Credentials
	err   error
}

func (r *rotatingProvider) Credentials(context.Context) (auth.Credentials, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.creds, r.err
}

func (r *rotatingProvider) set(c auth.Credentials, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.creds, r.err = c, err
}

// retryAuth runs fn until it succeeds or 20 s pass: the node caches roles
// and credentials for a few seconds, and refuses a second password change
// within 5 s of the first.
func retryAuth(fn func() error) error {
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := fn()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(500 * time.Millisecond)
	}
}
