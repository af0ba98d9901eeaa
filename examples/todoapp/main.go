// Command todoapp is the tutorial service of issue 11 on the kandra
// runtime: users with a BATCH email lookup and an EVENTUAL ticketRef
// lookup, todos paged newest first and soft-deleted, a counter table and a
// versioned entity. store.go is its whole data layer.
//
//	scripts/cassandra.sh start && go run ./examples/todoapp
//
// (from the repository root; the example is its own module, so from
// examples/todoapp it is go run .). KANDRA_CASSANDRA_HOST and
// KANDRA_CASSANDRA_PORT choose the node (default 127.0.0.1:9042).
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strconv"
	"time"

	gocql "github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	kgocql "github.com/kandra-go/kandra/driver/gocql"
	kerrors "github.com/kandra-go/kandra/errors"
	"github.com/kandra-go/kandra/runtime"
)

// Keyspace is the service's schema; its Statements create it.
func Keyspace(name string) (*kandra.Keyspace, error) {
	return kandra.NewKeyspace(kandra.KeyspaceSpec{Name: name, Targets: kandra.Cassandra5,
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"datacenter1": 1})},
		Users, Todos, Stats, Preferences)
}

func envOr(k, d string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return d
}

// connect opens a session and creates keyspace ks with every table.
func connect(ks string) (*gocql.Session, error) {
	cl := gocql.NewCluster(envOr("KANDRA_CASSANDRA_HOST", "127.0.0.1"))
	port, err := strconv.Atoi(envOr("KANDRA_CASSANDRA_PORT", "9042"))
	if err != nil {
		return nil, err
	}
	cl.Port, cl.ProtoVersion, cl.DisableInitialHostLookup = port, 4, true
	cl.Consistency = gocql.LocalQuorum
	cl.Timeout, cl.ConnectTimeout = 15*time.Second, 10*time.Second
	s, err := cl.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("no node (start one with scripts/cassandra.sh start): %w", err)
	}
	k, err := Keyspace(ks)
	if err != nil {
		s.Close()
		return nil, err
	}
	for _, st := range k.Statements() {
		if err := s.Query(st).Exec(); err != nil {
			s.Close()
			return nil, fmt.Errorf("%s: %w", st, err)
		}
	}
	return s, nil
}

func main() {
	ctx := context.Background()
	s, err := connect("todoapp")
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	rt, err := runtime.New(kgocql.New(s), "todoapp")
	if err != nil {
		log.Fatal(err)
	}
	defer func() { _ = rt.Close(ctx) }()
	if err := demo(ctx, NewStore(rt), os.Stdout.WriteString); err != nil {
		log.Fatal(err)
	}
}

// demo walks through the service once.
func demo(ctx context.Context, st *Store, out func(string) (int, error)) error {
	say := func(f string, a ...any) { _, _ = out(fmt.Sprintf(f+"\n", a...)) }
	tag := uuid.NewString()[:8]
	u, err := st.SignUp(ctx, "ann-"+tag+"@example.com", "Ann", "TICKET-"+tag)
	if err != nil {
		return err
	}
	say("signed up %s as %s", u.Email, u.UserID)
	if u, err = st.LogIn(ctx, u.Email); err != nil {
		return err
	}
	say("logged in by email: %s", u.Name)
	if u, err = st.ChangeEmail(ctx, u, "ann.b-"+tag+"@example.com"); err != nil {
		return err
	}
	if _, err := st.LogIn(ctx, "ann-"+tag+"@example.com"); !errors.Is(err, runtime.ErrNotFound) {
		return fmt.Errorf("old email still logs in: %v", err)
	}
	say("email changed to %s", u.Email)
	for i := 1; i <= 5; i++ {
		if _, err := st.AddTodo(ctx, u.UserID, fmt.Sprintf("todo %d", i)); err != nil {
			return err
		}
	}
	page, next, err := st.Todos(ctx, u.UserID, "", 3)
	if err != nil {
		return err
	}
	say("newest todos: %s, %s, %s (more: %v)", page[0].Title, page[1].Title, page[2].Title, next != "")
	if err := st.DeleteTodo(ctx, page[0]); err != nil {
		return err
	}
	page, _, err = st.Todos(ctx, u.UserID, "", 10)
	if err != nil {
		return err
	}
	c, err := st.Stats(ctx, u.UserID)
	if err != nil {
		return err
	}
	say("after deleting one: %d live todos, %d created", len(page), c.Created)
	p := &Prefs{UserID: u.UserID, Theme: "light"}
	if err := st.SavePrefs(ctx, p); err != nil {
		return err
	}
	if _, err := st.SetTheme(ctx, p, "dark"); err != nil {
		return err
	}
	_, err = st.SetTheme(ctx, p, "blue") // p is stale now
	var ol *kerrors.OptimisticLockError
	if !errors.As(err, &ol) {
		return fmt.Errorf("stale update: %v", err)
	}
	say("stale theme change refused: %v", err)
	return nil
}
