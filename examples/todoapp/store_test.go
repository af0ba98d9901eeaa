package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
)

// needNode skips t without a node (fails it with
// KANDRA_REQUIRE_CASSANDRA=1).
func needNode(t *testing.T) {
	t.Helper()
	addr := net.JoinHostPort(envOr("KANDRA_CASSANDRA_HOST", "127.0.0.1"), envOr("KANDRA_CASSANDRA_PORT", "9042"))
	if c, err := net.DialTimeout("tcp", addr, 3*time.Second); err != nil {
		if os.Getenv("KANDRA_REQUIRE_CASSANDRA") == "1" {
			t.Fatalf("no node on %s", addr)
		}
		t.Skipf("skipping real-server test: no node on %s; start one with scripts/cassandra.sh start", addr)
	} else {
		_ = c.Close()
	}
}

// The service's scenarios on a real node (skipped without one, unless
// KANDRA_REQUIRE_CASSANDRA=1), in a keyspace of their own.
func newStore(t *testing.T) (mk func() (*Store, *kstore.Store)) {
	t.Helper()
	needNode(t)
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	ks := "todoapp_test_" + hex.EncodeToString(b)
	s, err := connect(ks)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec(); s.Close() })
	return func() (*Store, *kstore.Store) {
		k, err := Keyspace(ks)
		if err != nil {
			t.Fatal(err)
		}
		rt, err := kstore.New(kgocql.New(s), k)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = rt.Close(context.Background()) })
		return NewStore(rt), rt
	}
}

func TestScenarios(t *testing.T) {
	mk := newStore(t)
	st, rt := mk()
	ctx := context.Background()
	var u *User
	t.Run("SignUp", func(t *testing.T) {
		var err error
		if u, err = st.SignUp(ctx, "ann@example.com", "Ann", "T-1"); err != nil {
			t.Fatal(err)
		}
		if u.UserID.String() == "00000000-0000-0000-0000-000000000000" || u.CreatedAt.IsZero() {
			t.Fatalf("not stamped: %+v", u)
		}
	})
	t.Run("LogInByEmail", func(t *testing.T) {
		got, err := st.LogIn(ctx, "ann@example.com")
		if err != nil || *got != *u {
			t.Fatalf("%+v %v", got, err)
		}
		if _, err := st.LogIn(ctx, "nobody@example.com"); !errors.Is(err, kerrors.ErrNotFound) {
			t.Fatalf("unknown email: %v", err)
		}
	})
	t.Run("ChangeEmail", func(t *testing.T) {
		// Bob cannot sign up with Ann's address (emails are unique); once
		// Ann moves away from it, Bob can, and is found by it.
		if _, err := st.SignUp(ctx, "ann@example.com", "Bob", "T-2"); !errors.Is(err, kerrors.ErrUnique) {
			t.Fatalf("sign-up with a taken email: %v", err)
		}
		nu, err := st.ChangeEmail(ctx, u, "ann.b@example.com")
		if err != nil {
			t.Fatal(err)
		}
		bob, err := st.SignUp(ctx, "ann@example.com", "Bob", "T-2")
		if err != nil {
			t.Fatal(err)
		}
		if got, err := st.LogIn(ctx, "ann.b@example.com"); err != nil || got.UserID != u.UserID {
			t.Fatalf("new email: %+v %v", got, err)
		}
		if got, err := st.LogIn(ctx, "ann@example.com"); err != nil || got.UserID != bob.UserID {
			t.Fatalf("old email must find Bob: %+v %v", got, err)
		}
		u = nu
	})
	t.Run("EventualTicketLookup", func(t *testing.T) {
		if err := rt.Close(ctx); err != nil { // waits for the EVENTUAL rows
			t.Fatal(err)
		}
		st, rt = mk()
		if got, err := st.ByTicket(ctx, "T-1"); err != nil || got.UserID != u.UserID {
			t.Fatalf("%+v %v", got, err)
		}
	})
	t.Run("TodosPagedNewestFirstAndSoftDelete", func(t *testing.T) {
		var titles []string
		for _, ti := range []string{"a", "b", "c", "d", "e"} {
			if _, err := st.AddTodo(ctx, u.UserID, ti); err != nil {
				t.Fatal(err)
			}
		}
		page, next, err := st.Todos(ctx, u.UserID, "", 2)
		for err == nil {
			for _, td := range page {
				titles = append(titles, td.Title)
			}
			if next == "" {
				break
			}
			page, next, err = st.Todos(ctx, u.UserID, next, 2)
		}
		if err != nil || strings.Join(titles, "") != "edcba" {
			t.Fatalf("pages %v %v", titles, err)
		}
		first, _, _ := st.Todos(ctx, u.UserID, "", 1)
		if err := st.DeleteTodo(ctx, first[0]); err != nil {
			t.Fatal(err)
		}
		live, _, err := st.Todos(ctx, u.UserID, "", 10)
		if err != nil || len(live) != 4 || live[0].Title != "d" {
			t.Fatalf("after soft delete: %d %v", len(live), err)
		}
	})
	t.Run("Counter", func(t *testing.T) {
		c, err := st.Stats(ctx, u.UserID)
		if err != nil || c.Created != 5 {
			t.Fatalf("%+v %v", c, err)
		}
	})
	t.Run("VersionConflict", func(t *testing.T) {
		p := &Prefs{UserID: u.UserID, Theme: "light"}
		if err := st.SavePrefs(ctx, p); err != nil {
			t.Fatal(err)
		}
		if _, err := st.SetTheme(ctx, p, "dark"); err != nil {
			t.Fatal(err)
		}
		_, err := st.SetTheme(ctx, p, "blue")
		var ol *kerrors.OptimisticLockError
		if !errors.As(err, &ol) {
			t.Fatalf("stale update: %v", err)
		}
		if got, err := st.Prefs(ctx, u.UserID); err != nil || got.Theme != "dark" || got.Version != 2 {
			t.Fatalf("%+v %v", got, err)
		}
	})
	t.Run("Demo", func(t *testing.T) {
		var out strings.Builder
		if err := demo(ctx, st, out.WriteString); err != nil {
			t.Fatal(err)
		}
		t.Log(out.String())
	})
}
