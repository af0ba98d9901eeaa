package gocqlv2_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/auth"
	kgocqlv2 "github.com/kandra-go/kandra/driver/gocqlv2"
	kerrors "github.com/kandra-go/kandra/errors"
)

// The adapter's authenticator on a node started with
// `scripts/cassandra.sh start --auth` (superuser cassandra/cassandra). It
// runs only when KANDRA_CASSANDRA_AUTH=1.

// authListener records what the authenticator reports; connections call it
// from their own goroutines.
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

// rotating is a provider whose password the test changes.
type rotating struct {
	mu    sync.Mutex
	creds auth.Credentials
	err   error
}

func (r *rotating) Credentials(context.Context) (auth.Credentials, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.creds, r.err
}

func (r *rotating) set(c auth.Credentials, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.creds, r.err = c, err
}

// authSession opens a session whose connections log in through af.
func authSession(af func(*gocql.HostInfo) (gocql.Authenticator, error)) (*gocql.Session, error) {
	cl := gocql.NewCluster(envOr("KANDRA_CASSANDRA_HOST", "127.0.0.1"))
	fmt.Sscan(envOr("KANDRA_CASSANDRA_PORT", "9042"), &cl.Port)
	cl.ProtoVersion = 5
	cl.DisableInitialHostLookup = true
	cl.Consistency = gocql.One
	cl.Timeout, cl.ConnectTimeout = 15*time.Second, 15*time.Second
	cl.NumConns = 1
	cl.Logger = gocql.NewLogger(gocql.LogLevelNone)
	cl.AuthProvider = af
	s, err := cl.CreateSession()
	if err != nil {
		return nil, err
	}
	var v string
	if err := s.Query("SELECT release_version FROM system.local").Scan(&v); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// retry runs fn until it succeeds or 20 s pass: the node caches roles and
// credentials for a few seconds, and refuses a second password change
// within 5 s of the first.
func retry(fn func() error) error {
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := fn()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func TestAuthNode(t *testing.T) {
	if os.Getenv("KANDRA_CASSANDRA_AUTH") != "1" {
		t.Skip("needs a node started with `scripts/cassandra.sh start --auth` and KANDRA_CASSANDRA_AUTH=1")
	}
	ok := false
	defer func() { fmt.Printf("real-server: auth adapter=gocqlv2 ok=%t\n", ok && !t.Failed()) }()

	// The superuser, through a static provider.
	admin, err := authSession(kgocqlv2.Authenticator(auth.Static("cassandra", "cassandra"), nil))
	if err != nil {
		t.Fatalf("the superuser cannot log in through the adapter's authenticator: %v", err)
	}
	defer admin.Close()

	// A role of the test's own, then its password rotated: the same
	// authenticator reads the provider again for every new connection.
	id := strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	role := "kandra_gocqlv2_" + id
	pass1, pass2 := "first-"+id+"-secret", "second-"+id+"-secret"
	if err := admin.Query("CREATE ROLE " + role + " WITH PASSWORD = '" + pass1 + "' AND LOGIN = true").Exec(); err != nil {
		t.Fatalf("CREATE ROLE: %v", err)
	}
	defer func() { _ = admin.Query("DROP ROLE IF EXISTS " + role).Exec() }()
	p := &rotating{creds: auth.Credentials{Username: role, Password: pass1}}
	l := &authListener{}
	af := kgocqlv2.Authenticator(p, l)
	var msgs []string // every error met, checked for passwords at the end
	login := func() error {
		s, err := authSession(af)
		if err != nil {
			msgs = append(msgs, err.Error())
			return err
		}
		s.Close()
		return nil
	}
	if err := retry(login); err != nil {
		t.Fatalf("login as %s: %v", role, err)
	}
	if err := retry(func() error {
		return admin.Query("ALTER ROLE " + role + " WITH PASSWORD = '" + pass2 + "'").Exec()
	}); err != nil {
		t.Fatalf("ALTER ROLE: %v", err)
	}
	// Until the provider is updated, new connections fail with the old one.
	if err := retry(func() error {
		if login() == nil {
			return errors.New("the old password still logs in")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	p.set(auth.Credentials{Username: role, Password: pass2}, nil)
	if err := retry(login); err != nil {
		t.Fatalf("login with the rotated password through the same authenticator: %v", err)
	}
	if _, refreshed := l.state(); refreshed != 1 {
		t.Errorf("OnCredentialRefreshed: %d calls after one rotation, want 1", refreshed)
	}

	// A provider failure: an *errors.AuthError, reported to OnAuthFailed,
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
		t.Errorf("OnAuthFailed got %v (%T), want an *errors.AuthError with the provider's cause", failed[0], failed[0])
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
	t.Logf("rotation and failures through the adapter's authenticator; provider failure -> %v; wrong password -> %s", failed[0], msgs[len(msgs)-1])
	ok = true
}
