package main

// The data side of TestCluster: the tutorial's writes through one node,
// and reading all of them back through another.

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	gocql "github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/kstore"
)

// clusterData is what the test wrote, to be read back.
type clusterData struct {
	users []*User
	todos []*Todo
	prefs []*Prefs
	notes []*Note
	count map[uuid.UUID]int64 // todos created per owner (the counter)
}

func clusterStore(t *testing.T, s *gocql.Session, ks *kandra.Keyspace, c kandra.Consistency) (*Store, *kstore.Repo[Note]) {
	t.Helper()
	rt, err := kstore.New(kgocql.New(s), ks, kstore.WithConsistency(c))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	if !ks.Has(Notes) {
		return NewStore(rt), nil // the base keyspace, before the notes table
	}
	return NewStore(rt), kstore.MustNewRepo(rt, Notes)
}

// write signs a user up through st (every table of the tutorial: users
// and its BATCH lookup, todos, the counter, versioned prefs), reads each
// back at the store's consistency, and adds it to data. notes, if not
// nil (a keyspace with the notes table), gets a note too.
func (data *clusterData) write(t *testing.T, st *Store, notes *kstore.Repo[Note], tag string) {
	t.Helper()
	ctx := context.Background()
	email := fmt.Sprintf("%s-%s@example.com", tag, randomSuffix())
	u, err := st.SignUp(ctx, email, "User "+tag, "T-"+tag)
	if err != nil {
		t.Fatalf("%s: sign-up: %v", tag, err)
	}
	if got, err := st.LogIn(ctx, email); err != nil || *got != *u {
		t.Fatalf("%s: log-in by email: %+v, %v", tag, got, err)
	}
	td, err := st.AddTodo(ctx, u.UserID, "todo of "+tag)
	if err != nil {
		t.Fatalf("%s: add todo: %v", tag, err)
	}
	page, _, err := st.Todos(ctx, u.UserID, "", 10)
	if err != nil || len(page) != 1 || *page[0] != *td {
		t.Fatalf("%s: todos: %v, %v", tag, page, err)
	}
	if stats, err := st.Stats(ctx, u.UserID); err != nil || stats.Created != 1 {
		t.Fatalf("%s: stats: %+v, %v", tag, stats, err)
	}
	p := &Prefs{UserID: u.UserID, Theme: "dark"}
	if err := st.SavePrefs(ctx, p); err != nil {
		t.Fatalf("%s: save prefs: %v", tag, err)
	}
	if p, err = st.SetTheme(ctx, p, "light"); err != nil {
		t.Fatalf("%s: set theme (a conditional update): %v", tag, err)
	}
	if got, err := st.Prefs(ctx, u.UserID); err != nil || *got != *p {
		t.Fatalf("%s: prefs: %+v, %v (want %+v)", tag, got, err, p)
	}
	data.users, data.todos, data.prefs = append(data.users, u), append(data.todos, td), append(data.prefs, p)
	if data.count == nil {
		data.count = map[uuid.UUID]int64{}
	}
	data.count[u.UserID]++
	if notes != nil {
		n := &Note{OwnerID: u.UserID, Text: "note of " + tag}
		if err := notes.Save(ctx, n); err != nil {
			t.Fatalf("%s: save note: %v", tag, err)
		}
		data.notes = append(data.notes, n)
	}
}

// checkAll reads every row of data through st at consistency ALL (every
// replica answers) and fails on any row missing or different.
func (data *clusterData) checkAll(t *testing.T, host string, st *Store, notes *kstore.Repo[Note]) {
	t.Helper()
	ctx := context.Background()
	all := kstore.Consistency(kandra.ConsistencyAll)
	for _, u := range data.users {
		if got, err := st.users.Get(ctx, &User{UserID: u.UserID}, all); err != nil || *got != *u {
			t.Errorf("%s: user %s at ALL: %+v, %v", host, u.UserID, got, err)
		}
		if got, err := st.byEmail.Find(ctx, u.Email, all); err != nil || *got != *u {
			t.Errorf("%s: user by email %s at ALL: %+v, %v", host, u.Email, got, err)
		}
		if got, err := st.stats.Get(ctx, &TodoStats{OwnerID: u.UserID}, all); err != nil || got.Created != data.count[u.UserID] {
			t.Errorf("%s: stats of %s at ALL: %+v, %v", host, u.UserID, got, err)
		}
	}
	for _, td := range data.todos {
		got, err := st.todos.List(ctx, &Todo{OwnerID: td.OwnerID}, all).All()
		if err != nil || !slices.ContainsFunc(got, func(g *Todo) bool { return *g == *td }) {
			t.Errorf("%s: todos of %s at ALL: %v, %v", host, td.OwnerID, got, err)
		}
	}
	for _, p := range data.prefs {
		if got, err := st.prefs.Get(ctx, &Prefs{UserID: p.UserID}, all); err != nil || *got != *p {
			t.Errorf("%s: prefs of %s at ALL: %+v, %v", host, p.UserID, got, err)
		}
	}
	for _, n := range data.notes {
		if got, err := notes.Get(ctx, &Note{OwnerID: n.OwnerID, NoteID: n.NoteID}, all); err != nil || *got != *n {
			t.Errorf("%s: note %s at ALL: %+v, %v", host, n.NoteID, got, err)
		}
	}
	// The whole users table by the three nodes' token ranges (16 vnodes
	// each): every user once, and the count the server makes agrees.
	var mu sync.Mutex
	scanned := map[uuid.UUID]int{}
	res, err := st.users.Scan(ctx, func(u *User) error {
		mu.Lock()
		defer mu.Unlock()
		scanned[u.UserID]++
		return nil
	}, all, kstore.Concurrency(4))
	if err != nil || res.Ring != "vnodes" || res.Ranges < 3*16 || int(res.Rows) != len(data.users) {
		t.Errorf("%s: scan of users at ALL: %+v, %v (%d users written)", host, res, err, len(data.users))
	}
	for _, u := range data.users {
		if scanned[u.UserID] != 1 {
			t.Errorf("%s: user %s scanned %d times", host, u.UserID, scanned[u.UserID])
		}
	}
	n, err := st.users.CountAll(ctx, all)
	if err != nil || int(n) != len(data.users) {
		t.Errorf("%s: CountAll of users at ALL: %d, %v (%d written)", host, n, err, len(data.users))
	}
	fmt.Printf("real-server: cluster-scan via=%s rows=%d ranges=%d ring=%s counted=%d ok=%t\n", host, res.Rows, res.Ranges, res.Ring, n, !t.Failed())
}
