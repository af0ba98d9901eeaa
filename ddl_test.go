package kandra_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/examples/todos/model"
	"github.com/kandra-go/kandra/examples/todos/recipe"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The golden texts below are the DESIGN.md layout (the Kotlin
// DdlGenerator's), written out by hand, qualified with the keyspace's name
// as every statement a Keyspace writes is.

const goldenUsers = `CREATE TABLE IF NOT EXISTS app.users (
    user_id UUID,
    email TEXT,
    display_name TEXT,
    created_at TIMESTAMP,
    PRIMARY KEY (user_id)
);`

const goldenUsersByEmail = `CREATE TABLE IF NOT EXISTS app.users_by_email (
    email TEXT,
    user_id UUID,
    kandra_claim BIGINT,
    PRIMARY KEY (email)
);`

const goldenTodos = `CREATE TABLE IF NOT EXISTS app.todos (
    owner_id UUID,
    created_at TIMESTAMP,
    todo_id UUID,
    title TEXT,
    assignee_id UUID,
    done BOOLEAN,
    PRIMARY KEY (owner_id, created_at)
)
WITH CLUSTERING ORDER BY (created_at DESC);`

const goldenAppKeyspace = "CREATE KEYSPACE IF NOT EXISTS app WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 1};"

// The tutorial's tables have no index, counter or Version column, but a
// unique lookup, whose lightweight transactions ScyllaDB 2025.x refuses in
// a tablets keyspace: every target but that one takes them.
const lwtTargets = kandra.AllTargets &^ kandra.Scylla2025Tablets

func TestGoldenTutorialUser(t *testing.T) {
	users := kandra.MustRegister[model.User]()
	app := newKeyspace(t, "app", lwtTargets, users)
	assert.Equal(t, []string{goldenAppKeyspace, goldenUsers, goldenUsersByEmail}, app.Statements())
	assert.Equal(t, goldenUsers, noErr(app.CreateTable(users)))
	assert.Equal(t, goldenUsersByEmail, noErr(app.CreateLookupTable(users.Schema().LookupTables()[0])))
	assert.Equal(t, goldenAppKeyspace, app.CreateKeyspace())

	ts := users.Schema()
	assert.Equal(t, "users", ts.Name())
	assert.Equal(t, "user_id", ts.PartitionKeys()[0].Name())
	require.Len(t, ts.LookupTables(), 1)
	lt := ts.LookupTables()[0]
	assert.Equal(t, "users_by_email", lt.Name())
	assert.Equal(t, kandra.LookupUnique, lt.Kind())
	assert.Equal(t, "email", lt.IndexColumn().Name())
	assert.Same(t, ts.ColumnByName("created_at"), ts.CreatedAtColumn())
}

func TestGoldenTutorialTodo(t *testing.T) {
	todos := kandra.MustRegister[model.Todo]()
	app := newKeyspace(t, "app", 0, todos)
	assert.Equal(t, []string{goldenAppKeyspace, goldenTodos}, app.Statements())
	assert.Nil(t, todos.Schema().CreatedAtColumn(), "Todo.CreatedAt is a key set by the caller, not stamped")
}

func TestGoldenRecipeUser(t *testing.T) {
	users := kandra.MustRegister[recipe.User]()
	want := []string{
		goldenAppKeyspace,
		`CREATE TABLE IF NOT EXISTS app.users (
    user_id UUID,
    email TEXT,
    ticket_ref TEXT,
    name TEXT,
    PRIMARY KEY (user_id)
);`,
		goldenUsersByEmail,
		`CREATE TABLE IF NOT EXISTS app.users_by_ticket_ref (
    ticket_ref TEXT,
    user_id UUID,
    PRIMARY KEY ((ticket_ref), user_id)
);`,
	}
	assert.Equal(t, want, newKeyspace(t, "app", lwtTargets, users).Statements())
	lts := users.Schema().LookupTables()
	require.Len(t, lts, 2)
	assert.Equal(t, kandra.LookupUnique, lts[0].Kind())
	assert.Equal(t, kandra.LookupEventual, lts[1].Kind())
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
	s.Table("ledger", kandra.DefaultTTL(86400*time.Second), kandra.GCGrace(3600*time.Second))
	kandra.Bind(s, &l.Currency, kandra.PartitionKey(1))
	kandra.Bind(s, &l.WalletID, kandra.PartitionKey(0))
	kandra.Bind(s, &l.EntryID, kandra.ClusteringKey(1, kandra.ClusteringAsc))
	kandra.Bind(s, &l.Day, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.Bind(s, &l.Reference, kandra.Lookup("by_reference", kandra.LookupEventual))
	kandra.Bind(s, &l.Memo, kandra.SecondaryIndex())
}

// ledgerStatements are Ledger's statements in keyspace "accounts" after
// its CREATE KEYSPACE.
var ledgerStatements = []string{
	`CREATE TABLE IF NOT EXISTS accounts.ledger (
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
	`CREATE TABLE IF NOT EXISTS accounts.ledger_by_reference (
    reference TEXT,
    wallet_id UUID,
    currency TEXT,
    day TIMESTAMP,
    entry_id UUID,
    PRIMARY KEY ((reference), wallet_id, currency, day, entry_id)
);`,
	`CREATE INDEX IF NOT EXISTS ledger_memo_idx ON accounts.ledger (memo);`,
}

func TestDDLLayout(t *testing.T) {
	ledger := kandra.MustRegister[Ledger]()
	// Ledger has an index on a TEXT column: indexTargets take it.
	ks := newKeyspace(t, "accounts", indexTargets, ledger)
	got := ks.Statements()
	require.Len(t, got, 4)
	assert.Equal(t, "CREATE KEYSPACE IF NOT EXISTS accounts WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 1};", got[0])
	assert.Equal(t, ledgerStatements, got[1:])

	// The per-statement writers give the same texts.
	ts := ledger.Schema()
	assert.Equal(t, ledgerStatements[0], noErr(ks.CreateTable(ledger)))
	assert.Equal(t, ledgerStatements[0], noErr(ks.CreateTable(ts)))
	assert.Equal(t, ledgerStatements[1], noErr(ks.CreateLookupTable(ts.LookupTables()[0])))
	assert.Equal(t, ledgerStatements[2], noErr(ks.CreateIndex(ts, ts.ColumnByName("memo"))))

	assert.Equal(t, `ALTER TABLE accounts.ledger ADD "order" TEXT;`, noErr(ks.AlterTableAdd(ts, ts.ColumnByName("order"))))
	assert.Equal(t, `ALTER TABLE accounts.ledger ADD memo TEXT;`, noErr(ks.AlterTableAdd(ledger, ts.ColumnByName("memo"))))
	for _, key := range []string{"wallet_id", "currency", "day", "entry_id"} {
		stmt, err := ks.AlterTableAdd(ts, ts.ColumnByName(key))
		var me *kerrors.MigrationError
		assert.ErrorAs(t, err, &me, "key column %s cannot be added", key)
		assert.ErrorIs(t, err, kerrors.ErrMigration)
		assert.Empty(t, stmt)
	}

	// Statements returns a fresh slice: changing it leaves the keyspace's alone.
	got[1] = ""
	assert.Equal(t, ledgerStatements, ks.Statements()[1:])
}

// TestKeyspaceWritersRefuseOtherTables: a keyspace writes statements for
// its own tables only, whose rules it checked; another table, or a column
// of another table, is a *SchemaError.
func TestKeyspaceWritersRefuseOtherTables(t *testing.T) {
	ledger := kandra.MustRegister[Ledger]()
	users := kandra.MustRegister[model.User]()
	ks := newKeyspace(t, "accounts", indexTargets, ledger)
	lt, ut := ledger.Schema(), users.Schema()
	wantRule := func(what string, err error, rule kandra.Rule, detail string) {
		t.Helper()
		var se *kandra.SchemaError
		if assert.ErrorAs(t, err, &se, what) {
			assert.Equal(t, rule, se.Rule, what)
			assert.Contains(t, se.Detail, detail, what)
		}
		assert.ErrorIs(t, err, kerrors.ErrSchema, what)
	}
	const notIn = `table "users" of model.User is not in the keyspace; give it to NewKeyspace`
	stmt, err := ks.CreateTable(users)
	wantRule("CreateTable", err, kandra.RuleNotInKeyspace, notIn)
	assert.Empty(t, stmt)
	stmt, err = ks.CreateLookupTable(ut.LookupTables()[0])
	wantRule("CreateLookupTable", err, kandra.RuleNotInKeyspace, notIn)
	assert.Empty(t, stmt)
	_, err = ks.CreateIndex(ut, ut.ColumnByName("email"))
	wantRule("CreateIndex of another table", err, kandra.RuleNotInKeyspace, notIn)
	_, err = ks.AlterTableAdd(ut, ut.ColumnByName("email"))
	wantRule("AlterTableAdd of another table", err, kandra.RuleNotInKeyspace, notIn)
	_, err = ks.CreateIndex(lt, ut.ColumnByName("email"))
	wantRule("CreateIndex of another table's column", err, kandra.RuleBinding, `column "email" is not a column of table "ledger"`)
	_, err = ks.AlterTableAdd(lt, ut.ColumnByName("email"))
	wantRule("AlterTableAdd of another table's column", err, kandra.RuleBinding, `column "email" is not a column of table "ledger"`)
	_, err = ks.CreateIndex(lt, lt.ColumnByName("reference"))
	wantRule("CreateIndex of a column without SecondaryIndex", err, kandra.RuleSecondaryIndex, "has no SecondaryIndex option")

	assert.PanicsWithValue(t, "kandra: Keyspace.CreateTable: nil table", func() { _, _ = ks.CreateTable(nil) })
	assert.PanicsWithValue(t, "kandra: Keyspace.CreateLookupTable: nil *LookupTableSchema", func() { _, _ = ks.CreateLookupTable(nil) })
	assert.PanicsWithValue(t, "kandra: Keyspace.CreateIndex: nil *ColumnSchema", func() { _, _ = ks.CreateIndex(lt, nil) })
	assert.PanicsWithValue(t, "kandra: Keyspace.AlterTableAdd: nil *ColumnSchema", func() { _, _ = ks.AlterTableAdd(lt, nil) })
}

// TestKeyspaceNames: keyspace names servers refuse, through CreateKeyspace
// and NewKeyspace alike (RuleKeyspaceName).
func TestKeyspaceNames(t *testing.T) {
	for _, bad := range []string{"", "my-app", "app.users", "x23456789012345678901234567890123456789012345678901",
		"system", "System_Auth", "SYSTEM_SCHEMA"} {
		spec := kandra.KeyspaceSpec{Name: bad, Replication: oneDC}
		_, err := createKeyspace(spec)
		var se *kandra.SchemaError
		if assert.ErrorAs(t, err, &se, bad) {
			assert.Equal(t, kandra.RuleKeyspaceName, se.Rule, bad)
		}
		_, err = kandra.NewKeyspace(spec)
		if assert.ErrorAs(t, err, &se, bad) {
			assert.Equal(t, kandra.RuleKeyspaceName, se.Rule, bad)
		}
	}
	for _, ok := range []string{"Analytics_2", "systems", "my_system", strings.Repeat("k", 48)} {
		_, err := createKeyspace(kandra.KeyspaceSpec{Name: ok, Replication: oneDC})
		assert.NoError(t, err, ok)
	}
}

func TestCreateKeyspace(t *testing.T) {
	// SimpleStrategy: a ScyllaDB keyspace with tablets refuses it, so the
	// targets must leave those out.
	got, err := createKeyspace(kandra.KeyspaceSpec{Name: "app", Replication: kandra.SimpleStrategy(3), Targets: kandra.Cassandra5 | kandra.Scylla2026})
	require.NoError(t, err)
	assert.Equal(t, "CREATE KEYSPACE IF NOT EXISTS app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3};", got)

	got, err = createKeyspace(kandra.KeyspaceSpec{Name: "App", Replication: kandra.NetworkTopologyStrategy(map[string]int{"us-east": 3, "eu'west": 2})})
	require.NoError(t, err)
	assert.Equal(t, `CREATE KEYSPACE IF NOT EXISTS "App" WITH replication = {'class': 'NetworkTopologyStrategy', 'eu''west': 2, 'us-east': 3};`, got)

	// The tablets option, on ScyllaDB-only targets.
	got, err = createKeyspace(kandra.KeyspaceSpec{Name: "app", Replication: kandra.SimpleStrategy(1), Targets: kandra.Scylla2025 | kandra.Scylla2026, Tablets: kandra.TabletsDisabled})
	require.NoError(t, err)
	assert.Equal(t, "CREATE KEYSPACE IF NOT EXISTS app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1} AND tablets = {'enabled': false};", got)
	got, err = createKeyspace(kandra.KeyspaceSpec{Name: "app", Replication: oneDC, Targets: kandra.Scylla2026Tablets, Tablets: kandra.TabletsEnabled})
	require.NoError(t, err)
	assert.Equal(t, "CREATE KEYSPACE IF NOT EXISTS app WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 1} AND tablets = {'enabled': true};", got)
	assert.Equal(t, got, kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "app", Replication: oneDC, Targets: kandra.Scylla2026Tablets, Tablets: kandra.TabletsEnabled}).CreateKeyspace())

	for _, tc := range []struct {
		name string
		r    kandra.Replication
		rule kandra.Rule
	}{
		{"app", kandra.SimpleStrategy(0), kandra.RuleReplication},
		{"bad name", kandra.SimpleStrategy(1), kandra.RuleKeyspaceName},
		{"app", kandra.NetworkTopologyStrategy(nil), kandra.RuleReplication},
		{"app", kandra.NetworkTopologyStrategy(map[string]int{"dc1": 0}), kandra.RuleReplication},
		{"app", kandra.NetworkTopologyStrategy(map[string]int{"dc1": -1, "dc2": 3}), kandra.RuleReplication},
		{"app", kandra.NetworkTopologyStrategy(map[string]int{"": 1}), kandra.RuleReplication},
		{"app", kandra.NetworkTopologyStrategy(map[string]int{"dc\n1": 1}), kandra.RuleReplication},
		{"app", kandra.NetworkTopologyStrategy(map[string]int{"dc1": 65}), kandra.RuleReplication},
		{"app", kandra.NetworkTopologyStrategy(map[string]int{"class": 1}), kandra.RuleReplication},
		{"app", kandra.SimpleStrategy(1), kandra.RuleTablets}, // the default AllTargets include ScyllaDB with tablets
	} {
		_, err := createKeyspace(kandra.KeyspaceSpec{Name: tc.name, Replication: tc.r})
		var se *kandra.SchemaError
		if assert.ErrorAs(t, err, &se, "%s %+v", tc.name, tc.r) {
			assert.Equal(t, tc.rule, se.Rule, "%s %+v: %v", tc.name, tc.r, err)
		}
		assert.Panics(t, func() { kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: tc.name, Replication: tc.r}).CreateKeyspace() })
	}
}

// TestStatementsConcurrent: a keyspace is immutable and renders its
// statements from many goroutines at once (run under -race).
func TestStatementsConcurrent(t *testing.T) {
	ledger := kandra.MustRegister[Ledger]()
	ks := newKeyspace(t, "accounts", indexTargets, ledger)
	const n = 16
	got := make([][]string, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			got[i] = ks.Statements()
		}(i)
	}
	wg.Wait()
	for i := 1; i < n; i++ {
		require.Equal(t, got[0], got[i])
	}
	require.Len(t, got[0], 4)
}

// CDCFeed has a table option whose CQL differs between the servers.
type CDCFeed struct{ ID string }

func (e *CDCFeed) Describe(s *kandra.Schema[CDCFeed]) {
	s.Table("cdc_feed", kandra.CDC(true))
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

// TestStatementsInTheTargetsDialect: Statements writes each table as
// CreateTable does, in the dialect of the keyspace's servers: on ScyllaDB
// only, CDC is the map ScyllaDB takes ("cdc = true" is Cassandra's).
func TestStatementsInTheTargetsDialect(t *testing.T) {
	feed := kandra.MustRegister[CDCFeed]()
	ks := newKeyspace(t, "feeds", kandra.Scylla2026, feed)
	create, err := ks.CreateTable(feed)
	require.NoError(t, err)
	require.Contains(t, create, "cdc = {'enabled': 'true'}")
	stmts := ks.Statements()
	require.Len(t, stmts, 2)
	require.Equal(t, create, stmts[1])
	require.Equal(t, create, ks.StatementsOn(kandra.Scylla2026)[1])
}
