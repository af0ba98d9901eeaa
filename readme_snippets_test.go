package kandra_test

// The Go snippets of README.md, compiled and run here. TestReadmeSnippets
// (readme_test.go) checks that each README code block is the text between
// "// snippet: NAME" and "// end snippet" below, so the README cannot
// drift from code that builds and passes.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kandra-go/kandra/examples/todos/quickstart"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/auth"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The README quick start's declarations (examples/todos/quickstart, which
// the README shows), under the names the other snippets use.
type (
	User = quickstart.User
	Todo = quickstart.Todo
)

var (
	Users = quickstart.Users
	Todos = quickstart.Todos
	App   = quickstart.App
)

func TestReadmeQuickstart(t *testing.T) {
	// The README shows this output under the quick start.
	got := strings.Join(App.Statements(), "\n\n")
	assert.Equal(t, readmeBlock(t, "sql", "statements: quickstart"), got)
}

func TestReadmeHandles(t *testing.T) {
	u := &User{}
	// snippet: handles
	email := kandra.MustFieldOf(Users, func(u *User) *string { return &u.Email })
	email.Set(u, "a@b.c")                                    // a fixed offset: no reflection, no allocation
	fmt.Println(email.Get(u), email.CQLName(), email.Role()) // a@b.c email regular
	// end snippet
	assert.Equal(t, "a@b.c", u.Email)
}

func TestReadmeRows(t *testing.T) {
	u := &User{UserID: uuid.New(), Email: "a@b.c"}
	// snippet: rows
	ts := Users.Schema()
	names := make([]string, 0, ts.NumColumns())
	for _, c := range ts.Columns() { // DDL order: keys first
		names = append(names, c.CQLName())
	}
	insert := "INSERT INTO app.users (" + strings.Join(names, ", ") + ") VALUES (?" +
		strings.Repeat(", ?", len(names)-1) + ")"
	buf := make([]any, 0, ts.NumColumns())
	args := Users.Pointers(u, buf[:0]) // &u.UserID, &u.Email, ...: 0 allocations
	// end snippet
	assert.Equal(t, "INSERT INTO app.users (user_id, email, display_name, created_at, version) VALUES (?, ?, ?, ?, ?)", insert)
	require.Len(t, args, 5)
	assert.Same(t, &u.Email, args[1])
}

func TestReadmeDDL(t *testing.T) {
	readme := func() error {
		// snippet: ddl
		for _, stmt := range App.Statements() { // keyspace, tables, lookup tables, indexes
			fmt.Println(stmt) // or run it: session.Query(stmt).Exec()
		}
		// One statement at a time, for a table of the keyspace:
		add, err := App.AlterTableAdd(Users, Users.Schema().ColumnByName("display_name"))
		if err != nil {
			return err // a *kerrors.MigrationError for a key column: keys are fixed
		}
		fmt.Println(add) // ALTER TABLE app.users ADD display_name TEXT;
		if _, err := App.CreateIndex(Users, Users.Schema().ColumnByName("email")); err != nil {
			fmt.Println(err) // email has no SecondaryIndex option: its index rules were never checked
		}
		// end snippet
		return nil
	}
	require.NoError(t, readme())
	ts := Users.Schema()
	assert.Equal(t, "ALTER TABLE app.users ADD display_name TEXT;", noErr(App.AlterTableAdd(Users, ts.ColumnByName("display_name"))))
	assert.Equal(t, noErr(App.CreateTable(Users)), App.Statements()[1])
	_, err := App.CreateIndex(Users, ts.ColumnByName("email"))
	assert.ErrorIs(t, err, kerrors.ErrSchema)
	_, err = App.AlterTableAdd(Users, ts.ColumnByName("user_id"))
	assert.ErrorIs(t, err, kerrors.ErrMigration)
}

// Member is a second type with the table name "users".
type Member struct{ ID uuid.UUID }

func (m *Member) Describe(s *kandra.Schema[Member]) {
	s.Table("users")
	kandra.Bind(s, &m.ID, kandra.PartitionKey(0))
}

func TestReadmeKeyspaces(t *testing.T) {
	// snippet: keyspaces
	members := kandra.MustRegister[Member]() // also table "users": fine on its own
	rf1 := kandra.NetworkTopologyStrategy(map[string]int{"dc1": 1})
	_, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "app", Replication: rf1}, Users, members)
	fmt.Println(err)
	// kandra: schema keyspace "app" [name-taken]: table name "users" of kandra_test.Member
	// is already the table name of quickstart.User; names are unique per keyspace
	billing, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "billing", Replication: rf1}, members) // ok
	// end snippet
	require.NoError(t, err)
	_, err = kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "app", Replication: rf1}, Users, members)
	var se *kandra.SchemaError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, kandra.RuleNameTaken, se.Rule)
	assert.Contains(t, err.Error(), "kandra_test.Member")
	assert.Contains(t, err.Error(), "quickstart.User")
	assert.Equal(t, "billing", billing.Name())
}

// Visits counts page views: a counter table.
type Visits struct {
	Page  string
	Views int64
}

func (v *Visits) Describe(s *kandra.Schema[Visits]) {
	s.Table("visits")
	kandra.Bind(s, &v.Page, kandra.PartitionKey(0))
	kandra.Counter(s, &v.Views)
}

func TestReadmeTargets(t *testing.T) {
	var onEvery, onCassandra error
	var dev *kandra.Keyspace
	// snippet: targets
	visits := kandra.MustRegister[Visits]()
	rf3 := kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3})
	_, onEvery = kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "stats", Replication: rf3}, visits)
	// [tablets]: ... ScyllaDB 2025.x with tablets refuses counters ...
	_, onCassandra = kandra.NewKeyspace(kandra.KeyspaceSpec{
		Name: "stats", Replication: rf3, Targets: kandra.Cassandra5 | kandra.Cassandra5Latest,
	}, visits) // nil: Cassandra 5.0 has counters
	dev, err := kandra.NewKeyspace(kandra.KeyspaceSpec{
		Name: "stats", Replication: kandra.SimpleStrategy(1), // ScyllaDB tablets need NetworkTopologyStrategy
		Targets: kandra.Cassandra5,
	}, visits)
	// end snippet
	require.NoError(t, err)
	var se *kandra.SchemaError
	require.ErrorAs(t, onEvery, &se)
	assert.Equal(t, kandra.RuleTablets, se.Rule)
	assert.Contains(t, se.Detail, "ScyllaDB 2025.x with tablets refuses counters")
	assert.NoError(t, onCassandra)
	assert.Contains(t, dev.Statements()[0], "'SimpleStrategy'")
}

func TestReadmeUUIDs(t *testing.T) {
	// snippet: uuids
	id := kandra.NewTimeOrderedUUID() // uuid.UUID, version 7
	rnd := kandra.NewRandomUUID()     // version 4: does not reveal when it was made
	var s kandra.UUIDStrategy         // zero value: kandra.UUIDTimeOrdered
	next := s.New()
	// end snippet
	assert.Equal(t, uuid.Version(7), id.Version())
	assert.Equal(t, uuid.Version(4), rnd.Version())
	assert.Equal(t, uuid.Version(7), next.Version())
}

func TestReadmeConsistency(t *testing.T) {
	readme := func() error {
		// snippet: consistency
		c, err := kandra.ParseConsistency("local_quorum") // case-insensitive
		if err != nil {
			return err // names the input and lists the valid levels
		}
		fmt.Println(c, uint16(c), c.IsSerial()) // LOCAL_QUORUM 6 false: the protocol code
		// end snippet
		return nil
	}
	assert.NoError(t, readme())
}

type queue struct {
	mu    sync.Mutex
	items []string
}

func (q *queue) Publish(table string, entity any, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.items = append(q.items, fmt.Sprint(table, entity, err))
}

// snippet: events
type deadLetter struct {
	kandra.NopEventListener // required: later callbacks get a no-op default
	queue                   *queue
}

func (d deadLetter) OnEventualWriteFailed(lookupTable string, entity any, err error) {
	d.queue.Publish(lookupTable, entity, err) // lookupTable: "users_by_email", say
}

// end snippet

func TestReadmeEvents(t *testing.T) {
	q := &queue{}
	var l kandra.EventListener = deadLetter{queue: q}
	l.OnEventualWriteFailed("users_by_email", 1, errors.New("timeout"))
	// snippet: eventsfunc
	// Only the required callback? A func is enough:
	var logged kandra.EventListener = kandra.EventListenerFunc(func(lookupTable string, entity any, err error) {
		slog.Error("lookup write failed", "table", lookupTable, "err", err)
	})
	// end snippet
	logged.OnCredentialRefreshed()
	assert.Equal(t, []string{"users_by_email1 timeout"}, q.items)
}

func TestReadmeAuth(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "user"), []byte("app\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pass"), []byte("s3cret\n"), 0o600))
	readSecret := func(ctx context.Context) (string, string, error) { return "app", "s3cret", nil }
	userFile, passFile := filepath.Join(dir, "user"), filepath.Join(dir, "pass")
	ctx := context.Background()
	// snippet: auth
	providers := []auth.Provider{
		auth.FromEnv(),                         // SCYLLA_USERNAME / SCYLLA_PASSWORD
		auth.FromEnvVars("DB_USER", "DB_PASS"), // other variable names
		auth.Static("cassandra", "cassandra"),  // dev and tests only
		auth.Custom(func(ctx context.Context) (auth.Credentials, error) {
			user, pass, err := readSecret(ctx) // your secrets manager
			if err != nil {
				return auth.Credentials{}, err // wrapped as *kerrors.AuthError
			}
			return auth.Credentials{Username: user, Password: pass}, nil
		}),
		auth.FromFile(userFile, passFile), // read fresh on every call, trimmed
	}
	c, err := providers[4].Credentials(ctx)
	fmt.Printf("%v\n", c) // {Username:app Password:***}
	// end snippet
	require.NoError(t, err)
	assert.Equal(t, "app", c.Username)
	custom, err := providers[3].Credentials(ctx)
	require.NoError(t, err)
	assert.Equal(t, "s3cret", custom.Password)
	assert.Equal(t, "{Username:app Password:***}", fmt.Sprintf("%v", c))
}

// Wallet breaks a rule: it has no partition key.
type Wallet struct {
	ID      uuid.UUID
	Balance int64
}

func (w *Wallet) Describe(s *kandra.Schema[Wallet]) { s.Table("wallets") }

func TestReadmeErrors(t *testing.T) {
	readme := func() error {
		// snippet: errors
		_, err := kandra.Register[Wallet]()
		var se *kandra.SchemaError
		switch {
		case errors.As(err, &se):
			// se.Entity "kandra_test.Wallet", se.Rule kandra.RuleNoPartitionKey,
			// se.Detail "no field is a partition key; bind one with kandra.PartitionKey(0)"
			return fmt.Errorf("wallet schema: %w", err)
		case errors.Is(err, kerrors.ErrKandra): // every kandra error matches it
			return err
		}
		// end snippet
		return nil
	}
	err := readme()
	assert.ErrorIs(t, err, kerrors.ErrSchema)
	assert.Contains(t, err.Error(), "no field is a partition key")
}
