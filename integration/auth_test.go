package integration

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/auth"
	"github.com/kandra-go/kandra/kerrors"
)

// loginWith opens a session with the credentials p supplies now.
func loginWith(p auth.Provider) (*gocql.Session, error) {
	c, err := p.Credentials(context.Background())
	if err != nil {
		return nil, err
	}
	cl := newCluster()
	cl.Authenticator = gocql.PasswordAuthenticator{Username: c.Username, Password: c.Password}
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

// eventually retries fn for up to 15 s: the node caches roles and
// credentials for a couple of seconds, so a password change is not seen
// at once.
func eventually(fn func() error) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		err := fn()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// TestAuth (auth mode only: scripts/cassandra.sh start --auth and
// KANDRA_CASSANDRA_AUTH=1): credentials from the auth package's environment
// and file providers log in to a PasswordAuthenticator node; a file
// provider picks up a rotated password without being rebuilt; a wrong
// password and missing credentials fail with clear errors that never
// contain the password.
func TestAuth(t *testing.T) {
	if !authMode() {
		t.Skip("auth tests need a node started with `scripts/cassandra.sh start --auth` and KANDRA_CASSANDRA_AUTH=1")
	}
	if !tcpReachable() {
		msg := fmt.Sprintf("no Cassandra node answers on %s:%d; %s", serverHost(), serverPort(), startHint)
		if requireServer() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	allOK := false
	defer func() { summary("auth", fmt.Sprintf("real-server: auth ok=%t", allOK && !t.Failed())) }()

	// 1. The environment provider (SCYLLA_USERNAME / SCYLLA_PASSWORD),
	// defaulting to the superuser scripts/cassandra.sh creates.
	if os.Getenv(auth.DefaultUsernameEnv) == "" {
		t.Setenv(auth.DefaultUsernameEnv, superUser)
		t.Setenv(auth.DefaultPasswordEnv, superPass)
	}
	admin, err := loginWith(auth.FromEnv())
	if err != nil {
		t.Fatalf("login with auth.FromEnv() (%s=%s) failed on an auth-mode node: %v", auth.DefaultUsernameEnv, os.Getenv(auth.DefaultUsernameEnv), err)
	}
	defer admin.Close()
	t.Logf("auth.FromEnv(): logged in as %s", os.Getenv(auth.DefaultUsernameEnv))

	// 2. A role of our own, through the file provider.
	role := "kandra_it_" + runID
	pass1, pass2 := "first-"+runID+"-secret", "second-"+runID+"-secret"
	if err := admin.Query("CREATE ROLE IF NOT EXISTS " + kandra.QuoteIdent(role) + " WITH PASSWORD = '" + pass1 + "' AND LOGIN = true").Exec(); err != nil {
		t.Fatalf("CREATE ROLE: %v", err)
	}
	defer func() { _ = admin.Query("DROP ROLE IF EXISTS " + kandra.QuoteIdent(role)).Exec() }()
	dir := t.TempDir()
	userFile, passFile := filepath.Join(dir, "username"), filepath.Join(dir, "password")
	write := func(path, content string) {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(userFile, role+"\n") // secret mounts end with a newline: trimmed
	write(passFile, pass1+"\n")
	files := auth.FromFile(userFile, passFile)
	if err := eventually(func() error {
		s, err := loginWith(files)
		if err == nil {
			s.Close()
		}
		return err
	}); err != nil {
		t.Fatalf("login with auth.FromFile as %s: %v", role, err)
	}
	t.Logf("auth.FromFile(): logged in as %s", role)

	// 3. Rotation: the same provider reads the new password.
	// Cassandra 5.0 refuses a second password change within 5 s of the
	// first ("can only be changed every 5000ms"): retry.
	if err := eventually(func() error {
		return admin.Query("ALTER ROLE " + kandra.QuoteIdent(role) + " WITH PASSWORD = '" + pass2 + "'").Exec()
	}); err != nil {
		t.Fatalf("ALTER ROLE: %v", err)
	}
	if err := eventually(func() error {
		s, err := loginWith(files)
		if err == nil {
			s.Close()
			return errors.New("the old password still logs in")
		}
		return nil
	}); err != nil {
		t.Fatalf("after ALTER ROLE: %v", err)
	}
	write(passFile, pass2+"\n")
	if err := eventually(func() error {
		s, err := loginWith(files)
		if err == nil {
			s.Close()
		}
		return err
	}); err != nil {
		t.Fatalf("login with the rotated password (same auth.FromFile provider): %v", err)
	}
	t.Logf("auth.FromFile(): the rotated password is picked up without a new provider")

	// 4. A wrong password: a clear error, without the password.
	wrong := "wrong-" + runID + "-password"
	t.Setenv("KANDRA_IT_USER", superUser)
	t.Setenv("KANDRA_IT_PASS", wrong)
	_, err = loginWith(auth.FromEnvVars("KANDRA_IT_USER", "KANDRA_IT_PASS"))
	switch {
	case err == nil:
		t.Fatal("a wrong password logged in")
	case !strings.Contains(err.Error(), "Provided username") || !strings.Contains(err.Error(), "incorrect"):
		t.Errorf("a wrong password fails with an unclear error: %v", err)
	case strings.Contains(err.Error(), wrong):
		t.Errorf("the login error contains the password")
	default:
		t.Logf("wrong password -> %v", err)
	}

	// 5. No credentials at all.
	_, err = newCluster().CreateSession()
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "authentication") {
		t.Errorf("a session without credentials: got %v, want an authentication error", err)
	} else {
		t.Logf("no credentials -> %v", err)
	}

	// 6. A missing secret is reported by the provider, naming the source.
	_, err = loginWith(auth.FromFile(userFile, filepath.Join(dir, "missing")))
	var ae *kerrors.AuthError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a missing password file: got %v, want an *kerrors.AuthError naming the path", err)
	}
	allOK = true
}
