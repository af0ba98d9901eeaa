package kstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
)

// Account is the examples' entity, with a lookup by email.
type Account struct {
	ID    uuid.UUID
	Email string
	Name  string
}

func (a *Account) Describe(s *kandra.Schema[Account]) {
	s.Table("accounts")
	kandra.GeneratedUUID(s, &a.ID, kandra.UUIDRandom, kandra.PartitionKey(0))
	kandra.Bind(s, &a.Email, kandra.Lookup("by_email", kandra.LookupBatch))
}

var (
	Accounts = kandra.MustRegister[Account]()
	email    = kandra.MustFieldOf(Accounts, func(a *Account) *string { return &a.Email })
	// App is the keyspace the accounts live in.
	App = kandra.MustNewKeyspace(kandra.KeyspaceSpec{
		Name:        "app",
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3}),
	}, Accounts)
)

// printer is an adapter.Driver that prints each statement it is given
// and finds no rows: a stand-in for an adapter (kgocql.New(session)) in
// these examples.
type printer struct{}

func (printer) Exec(_ context.Context, q *adapter.Query) (bool, error) {
	fmt.Println(q.Statement.CQL())
	return true, nil
}

func (printer) Query(_ context.Context, q *adapter.Query) (adapter.Rows, error) {
	fmt.Println(q.Statement.CQL())
	return noRows{}, nil
}

func (printer) Batch(_ context.Context, b *adapter.Batch) (bool, error) {
	fmt.Println("BEGIN BATCH")
	for _, e := range b.Entries {
		fmt.Println("  " + e.Statement.CQL())
	}
	fmt.Println("APPLY BATCH")
	return true, nil
}

func (printer) ExecCQL(context.Context, string, []any, kandra.Consistency) (bool, error) {
	return false, errors.New("printer: no migrator")
}

func (printer) QueryCQL(context.Context, string, []any, kandra.Consistency) ([]map[string]any, error) {
	return nil, errors.New("printer: no migrator")
}

func (printer) AwaitSchemaAgreement(context.Context) error { return nil }

type noRows struct{}

func (noRows) Next([]any) bool   { return false }
func (noRows) PageState() []byte { return nil }
func (noRows) Close() error      { return nil }

// A runtime is one driver session and one keyspace value; a Repo is one
// table of that keyspace. With a node, the driver is an adapter: kgocql.New(session).
func ExampleNew() {
	rt, err := kstore.New(printer{}, App)
	if err != nil {
		panic(err)
	}
	defer rt.Close(context.Background())
	accounts, err := kstore.NewRepo(rt, Accounts)
	if err != nil {
		panic(err)
	}
	fmt.Println(accounts.Table().Schema().Name())
	// Output:
	// accounts
}

// Save stamps the generated id and writes the row with its BATCH lookup
// row in one LOGGED BATCH.
func ExampleRepo_Save() {
	rt, _ := kstore.New(printer{}, App)
	defer rt.Close(context.Background())
	accounts := kstore.MustNewRepo(rt, Accounts)
	a := &Account{Email: "ada@example.com", Name: "Ada"}
	if err := accounts.Save(context.Background(), a); err != nil {
		panic(err)
	}
	fmt.Println("id set:", a.ID != uuid.Nil)
	// Output:
	// BEGIN BATCH
	//   INSERT INTO app.accounts (id, email, name) VALUES (?, ?, ?)
	//   INSERT INTO app.accounts_by_email (email, id) VALUES (?, ?)
	// APPLY BATCH
	// id set: true
}

// Get reads one row by its key; a missing row is an *kerrors.NotFoundError.
func ExampleRepo_Get() {
	rt, _ := kstore.New(printer{}, App)
	defer rt.Close(context.Background())
	accounts := kstore.MustNewRepo(rt, Accounts)
	_, err := accounts.Get(context.Background(), &Account{ID: uuid.MustParse("6ba7b810-9dad-11d1-80b4-00c04fd430c8")})
	fmt.Println(errors.Is(err, kerrors.ErrNotFound))
	// Output:
	// SELECT id, email, name FROM app.accounts WHERE id = ?
	// true
}

// Update writes the columns that changed and moves the lookup value
// that changed: the old value's row goes, the new one's comes, in the
// row's batch, all at one timestamp, so that moves applied out of order
// leave the later. The name did not change: it is not written, so a
// stale copy never writes back what another writer changed.
func ExampleRepo_Update() {
	rt, _ := kstore.New(printer{}, App)
	defer rt.Close(context.Background())
	accounts := kstore.MustNewRepo(rt, Accounts)
	old := &Account{ID: uuid.MustParse("6ba7b810-9dad-11d1-80b4-00c04fd430c8"), Email: "ada@example.com", Name: "Ada"}
	nw := *old
	nw.Email = "ada@lovelace.example"
	if err := accounts.Update(context.Background(), old, &nw); err != nil {
		panic(err)
	}
	// Output:
	// BEGIN BATCH
	//   UPDATE app.accounts USING TIMESTAMP ? SET email = ? WHERE id = ?
	//   DELETE FROM app.accounts_by_email USING TIMESTAMP ? WHERE email = ? AND id = ?
	//   INSERT INTO app.accounts_by_email (email, id) VALUES (?, ?) USING TIMESTAMP ?
	// APPLY BATCH
}

// List pages through one partition; All collects the rest of it.
func ExampleRepo_List() {
	rt, _ := kstore.New(printer{}, App)
	defer rt.Close(context.Background())
	accounts := kstore.MustNewRepo(rt, Accounts)
	all, err := accounts.List(context.Background(), &Account{ID: uuid.MustParse("6ba7b810-9dad-11d1-80b4-00c04fd430c8")}).All()
	fmt.Println(len(all), err)
	// Output:
	// SELECT id, email, name FROM app.accounts WHERE id = ?
	// 0 <nil>
}

// A lookup finds entities by a value of its field: the lookup table
// first, then the entity's row.
func ExampleLookup_Find() {
	rt, _ := kstore.New(printer{}, App)
	defer rt.Close(context.Background())
	byEmail := kstore.MustLookupOf(kstore.MustNewRepo(rt, Accounts), email)
	_, err := byEmail.Find(context.Background(), "ada@example.com")
	fmt.Println(strings.TrimPrefix(err.Error(), "kandra: "))
	// Output:
	// SELECT id FROM app.accounts_by_email WHERE email = ?
	// not found: accounts_by_email value=ada@example.com
}

// Replaying events: each is written with the time it happened, so that the
// row ends up holding the last event, whatever order the replay runs in;
// a TTL is a time.Duration of whole seconds.
func ExampleTimestamp() {
	rt, _ := kstore.New(printer{}, App)
	defer rt.Close(context.Background())
	accounts := kstore.MustNewRepo(rt, Accounts)
	ctx := context.Background()
	occurredAt := time.Now().Add(-time.Hour)
	a := &Account{Email: "ada@example.com"}
	// snippet: timestamps
	err := accounts.Save(ctx, a, kstore.Timestamp(occurredAt), kstore.TTL(30*24*time.Hour))
	// end snippet
	fmt.Println(err)
	// Output:
	// BEGIN BATCH
	//   INSERT INTO app.accounts (id, email, name) VALUES (?, ?, ?) USING TTL ? AND TIMESTAMP ?
	//   INSERT INTO app.accounts_by_email (email, id) VALUES (?, ?) USING TIMESTAMP ?
	// APPLY BATCH
	// <nil>
}

func ExamplePrepare() {
	rt, _ := kstore.New(printer{}, App)
	accounts := kstore.MustNewRepo(rt, Accounts)
	accountID := kandra.MustFieldOf(Accounts, func(a *Account) *uuid.UUID { return &a.ID })
	// An IN query over uuid.UUID keys, bound through the adapter's codec.
	byIDs := kstore.MustPrepare(accounts, "SELECT * FROM accounts WHERE id IN (?, ?)",
		kstore.Arg(accountID), kstore.Arg(accountID))
	rows, err := byIDs.Query(context.Background(), []any{uuid.New(), uuid.New()}).All()
	fmt.Println(len(rows), err)
	// Output:
	// SELECT id, email, name FROM app.accounts WHERE id IN (?, ?)
	// 0 <nil>
}

func ExampleRepo_SaveAll() {
	rt, _ := kstore.New(printer{}, App)
	accounts := kstore.MustNewRepo(rt, Accounts)
	err := accounts.SaveAll(context.Background(), []*Account{{Email: "a@example.com"}, {Email: "b@example.com"}})
	fmt.Println(err)
	// Output:
	// BEGIN BATCH
	//   INSERT INTO app.accounts (id, email, name) VALUES (?, ?, ?)
	//   INSERT INTO app.accounts_by_email (email, id) VALUES (?, ?)
	//   INSERT INTO app.accounts (id, email, name) VALUES (?, ?, ?)
	//   INSERT INTO app.accounts_by_email (email, id) VALUES (?, ?)
	// APPLY BATCH
	// <nil>
}
