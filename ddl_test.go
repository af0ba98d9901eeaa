package kandra_test

import (
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	kerrors "github.com/kandra-go/kandra/errors"
	"github.com/kandra-go/kandra/examples/todos/model"
	"github.com/kandra-go/kandra/examples/todos/recipe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The golden texts below are the DESIGN.md layout (the Kotlin
// DdlGenerator's), written out by hand.

const goldenUsers = `CREATE TABLE IF NOT EXISTS users (
    user_id UUID,
    email TEXT,
    display_name TEXT,
    created_at TIMESTAMP,
    PRIMARY KEY (user_id)
);`

const goldenUsersByEmail = `CREATE TABLE IF NOT EXISTS users_by_email (
    email TEXT,
    user_id UUID,
    PRIMARY KEY (email)
);`

const goldenTodos = `CREATE TABLE IF NOT EXISTS todos (
    owner_id UUID,
    created_at TIMESTAMP,
    todo_id UUID,
    title TEXT,
    assignee_id UUID,
    done BOOLEAN,
    PRIMARY KEY (owner_id, created_at)
)
WITH CLUSTERING ORDER BY (created_at DESC);`

func TestGoldenTutorialUser(t *testing.T) {
	users := kandra.MustRegister[model.User]()
	assert.Equal(t, []string{goldenUsers, goldenUsersByEmail}, users.Statements())

	ts := users.Schema()
	assert.Equal(t, "users", ts.Name())
	assert.Equal(t, "user_id", ts.PartitionKeys()[0].Name())
	require.Len(t, ts.LookupTables(), 1)
	lt := ts.LookupTables()[0]
	assert.Equal(t, "users_by_email", lt.Name())
	assert.Equal(t, kandra.LookupBatch, lt.Consistency())
	assert.Equal(t, "email", lt.IndexColumn().Name())
	assert.Same(t, ts.ColumnByName("created_at"), ts.CreatedAtColumn())
}

func TestGoldenTutorialTodo(t *testing.T) {
	todos := kandra.MustRegister[model.Todo]()
	assert.Equal(t, []string{goldenTodos}, todos.Statements())
	assert.Nil(t, todos.Schema().CreatedAtColumn(), "Todo.CreatedAt is a key set by the caller, not stamped")
}

func TestGoldenRecipeUser(t *testing.T) {
	users := kandra.MustRegister[recipe.User]()
	want := []string{
		`CREATE TABLE IF NOT EXISTS users (
    user_id UUID,
    email TEXT,
    ticket_ref TEXT,
    name TEXT,
    PRIMARY KEY (user_id)
);`,
		goldenUsersByEmail,
		`CREATE TABLE IF NOT EXISTS users_by_ticket_ref (
    ticket_ref TEXT,
    user_id UUID,
    PRIMARY KEY (ticket_ref)
);`,
	}
	assert.Equal(t, want, users.Statements())
	lts := users.Schema().LookupTables()
	require.Len(t, lts, 2)
	assert.Equal(t, kandra.LookupBatch, lts[0].Consistency())
	assert.Equal(t, kandra.LookupEventual, lts[1].Consistency())
}

// Ledger exercises everything the DDL layout has: a composite partition
// key, two clustering keys with their own orders, a lookup (which carries
// the whole primary key), a secondary index, TTL and gc grace.
type Ledger struct {
	WalletID  uuid.UUID
	Currency  string
	Day       time.Time
	EntryID   uuid.UUID
	Reference string
	Amount    int64
	Memo      string
	Order     string // a reserved word, quoted in CQL
}

func (l *Ledger) Describe(s *kandra.Schema[Ledger]) {
	s.Table("ledger", kandra.DefaultTTL(86400), kandra.GCGraceSeconds(3600))
	kandra.Bind(s, &l.Currency, kandra.PartitionKey(1))
	kandra.Bind(s, &l.WalletID, kandra.PartitionKey(0))
	kandra.Bind(s, &l.EntryID, kandra.ClusteringKey(1, kandra.ClusteringAsc))
	kandra.Bind(s, &l.Day, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.Bind(s, &l.Reference, kandra.Lookup("by_reference", kandra.LookupEventual))
	kandra.Bind(s, &l.Memo, kandra.SecondaryIndex())
}

func TestDDLLayout(t *testing.T) {
	ledger := kandra.MustRegister[Ledger]()
	want := []string{
		`CREATE TABLE IF NOT EXISTS ledger (
    wallet_id UUID,
    currency TEXT,
    day TIMESTAMP,
    entry_id UUID,
    reference TEXT,
    amount BIGINT,
    memo TEXT,
    "order" TEXT,
    PRIMARY KEY ((wallet_id, currency), day, entry_id)
)
WITH CLUSTERING ORDER BY (day DESC, entry_id ASC)
AND default_time_to_live = 86400
AND gc_grace_seconds = 3600;`,
		`CREATE TABLE IF NOT EXISTS ledger_by_reference (
    reference TEXT,
    wallet_id UUID,
    currency TEXT,
    day TIMESTAMP,
    entry_id UUID,
    PRIMARY KEY (reference)
);`,
		`CREATE INDEX IF NOT EXISTS ledger_memo_idx ON ledger (memo);`,
	}
	assert.Equal(t, want, ledger.Statements())

	ks := kandra.MustInKeyspace("accounts")
	qualified := ledger.Statements(ks)
	assert.Contains(t, qualified[0], "CREATE TABLE IF NOT EXISTS accounts.ledger (")
	assert.Contains(t, qualified[1], "CREATE TABLE IF NOT EXISTS accounts.ledger_by_reference (")
	assert.Equal(t, "CREATE INDEX IF NOT EXISTS ledger_memo_idx ON accounts.ledger (memo);", qualified[2])

	ts := ledger.Schema()
	assert.Equal(t, `ALTER TABLE ledger ADD "order" TEXT;`, noErr(kandra.AlterTableAdd(ts, ts.ColumnByName("order"))))
	assert.Equal(t, `ALTER TABLE accounts.ledger ADD memo TEXT;`, noErr(kandra.AlterTableAdd(ts, ts.ColumnByName("memo"), ks)))
	_, err := kandra.AlterTableAdd(ts, ts.ColumnByName("day"))
	assert.ErrorIs(t, err, kerrors.ErrMigration, "key columns cannot be added")

	// Statements returns a copy: changing it leaves the schema's alone.
	s := ledger.Statements()
	s[0] = ""
	assert.Equal(t, want, ledger.Statements())
}

func TestInKeyspaceRejectsBadNames(t *testing.T) {
	for _, bad := range []string{"", "my-app", "app.users", "x23456789012345678901234567890123456789012345678901"} {
		_, err := kandra.InKeyspace(bad)
		assert.Error(t, err, bad)
	}
	_, err := kandra.InKeyspace("Analytics_2")
	assert.NoError(t, err)
}

func TestCreateKeyspace(t *testing.T) {
	got, err := kandra.CreateKeyspace("app", kandra.SimpleStrategy(3))
	require.NoError(t, err)
	assert.Equal(t, "CREATE KEYSPACE IF NOT EXISTS app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3};", got)

	got, err = kandra.CreateKeyspace("App", kandra.NetworkTopologyStrategy(map[string]int{"us-east": 3, "eu'west": 2}))
	require.NoError(t, err)
	assert.Equal(t, `CREATE KEYSPACE IF NOT EXISTS "App" WITH replication = {'class': 'NetworkTopologyStrategy', 'eu''west': 2, 'us-east': 3};`, got)

	for _, tc := range []struct {
		name string
		r    kandra.Replication
	}{
		{"app", kandra.SimpleStrategy(0)},
		{"bad name", kandra.SimpleStrategy(1)},
		{"app", kandra.NetworkTopologyStrategy(nil)},
		{"app", kandra.NetworkTopologyStrategy(map[string]int{"dc1": 0})},
		{"app", kandra.NetworkTopologyStrategy(map[string]int{"dc1": -1, "dc2": 3})},
		{"app", kandra.NetworkTopologyStrategy(map[string]int{"": 1})},
		{"app", kandra.NetworkTopologyStrategy(map[string]int{"dc\n1": 1})},
	} {
		_, err := kandra.CreateKeyspace(tc.name, tc.r)
		assert.Error(t, err, "%s %+v", tc.name, tc.r)
	}
}

// TestStatementsConcurrentFirstUse: the statements are rendered once, on
// first use, possibly from many goroutines at once (run under -race).
func TestStatementsConcurrentFirstUse(t *testing.T) {
	ledger := kandra.MustRegister[Ledger]()
	const n = 16
	got := make([][]string, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			got[i] = ledger.Statements()
		}(i)
	}
	wg.Wait()
	for i := 1; i < n; i++ {
		require.Equal(t, got[0], got[i])
	}
	require.Len(t, got[0], 3)
}
