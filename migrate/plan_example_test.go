package migrate_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/migrate"
)

// User is version 2 of an app's user: it adds Nickname and a lookup by
// email to what the cluster has, and its Age is now an int.
type User struct {
	ID       uuid.UUID
	Email    string
	Name     string
	Nickname string
	Age      int32
}

func (u *User) Describe(s *kandra.Schema[User]) {
	s.Table("users")
	kandra.Bind(s, &u.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Email, kandra.Lookup("by_email", kandra.LookupEventual))
}

// v2 is version 2 of the app and the live schema of version 1, as Read
// models it from what the cluster's system_schema holds.
func v2() (*kandra.Keyspace, *migrate.Live) {
	users := kandra.MustRegister[User]()
	app := kandra.MustNewKeyspace(kandra.KeyspaceSpec{
		Name:        "app",
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3}),
	}, users)

	col := func(name string, kind migrate.ColumnKind, typ string, pos int) *migrate.LiveColumn {
		t, err := kandra.ParseCQLType(typ)
		if err != nil {
			panic(err)
		}
		return &migrate.LiveColumn{Name: name, Kind: kind, Position: pos, Order: "none", Type: t, RawType: typ}
	}
	live := &migrate.Live{Keyspace: &migrate.LiveKeyspace{
		Name:          "app",
		Replication:   map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "dc1": "3"},
		DurableWrites: true,
		Tables: map[string]*migrate.LiveTable{"users": {
			Name:    "users",
			GCGrace: 864000 * time.Second,
			Dropped: map[string]*migrate.LiveDropped{},
			Columns: []*migrate.LiveColumn{
				col("id", migrate.ColumnPartitionKey, "uuid", 0),
				col("age", migrate.ColumnRegular, "text", -1),
				col("email", migrate.ColumnRegular, "text", -1),
				col("legacy", migrate.ColumnRegular, "frozen<list<int>>", -1),
				col("name", migrate.ColumnRegular, "text", -1),
			},
		}},
		Types: map[string]*migrate.LiveType{},
	}}
	return app, live
}

func planV2() *migrate.Plan {
	plan, err := migrate.NewPlan(v2())
	if err != nil {
		panic(err)
	}
	return plan
}

// The plan of version 2 against the cluster's version 1, as a script for
// review.
func Example_plan() {
	fmt.Print(planV2().Script())
	// Output:
	// -- kandra migration plan for keyspace app
	// -- plan hash: 9df57156e17215244ef56b1baa9fb857
	// -- 4 steps: 2 safe, 1 needs approval, 1 impossible
	//
	// -- [safe] create-lookup-table:users_by_email: lookup table "users_by_email" of table "users" does
	// --    not exist
	// CREATE TABLE IF NOT EXISTS app.users_by_email (
	//     email TEXT,
	//     id UUID,
	//     PRIMARY KEY ((email), id)
	// );
	//
	// -- [safe] add-column:users.nickname: table "users" has no column "nickname"
	// ALTER TABLE app.users ADD nickname TEXT;
	//
	// -- [needs approval] backfill:users_by_email: table "users" exists, so new lookup table
	// --    "users_by_email" must be filled from its rows before lookups by "email" find the rows written
	// --    earlier; it reads the whole table
	// -- not a statement: run the migrator's backfill of users_by_email (schema backfill users_by_email,
	// --    or apply --approve backfill:users_by_email)
	//
	// -- [impossible] change-type:users.age: column "age" of table "users": its type is text in live, int
	// --    in the model
	// -- manual path: servers no longer alter column types: add a column under a new name with the new
	// --    type (kandra.Column), copy the values over, then stop using the old one; or create a new table
	// --    with the model's definition under another name, copy the rows from app.users (with a
	// --    token-range scan or DSBulk), switch the application to it, then drop the old table; the
	// --    table's lookup tables and indexes follow it
	//
	// -- only in live, not in the model (kept; the migrator never drops):
	// --   column users.legacy
}

// The same plan as a table, for a terminal.
func ExamplePlan_String() {
	fmt.Print(planV2())
	// Output:
	// plan for keyspace app (9df57156e17215244ef56b1baa9fb857): 4 steps: 2 safe, 1 needs approval, 1 impossible
	// ID                                  CLASS           REASON
	// create-lookup-table:users_by_email  safe            lookup table "users_by_email" of table "users" does not exist
	// add-column:users.nickname           safe            table "users" has no column "nickname"
	// backfill:users_by_email             needs approval  table "users" exists, so new lookup table "users_by_email" must be filled from its rows before lookups by "email" find the rows written earlier; it reads the whole table
	// change-type:users.age               impossible      column "age" of table "users": its type is text in live, int in the model
	// only in live (kept): column users.legacy
}

// Validate, at start-up or in CI, fails with every difference.
func ExampleValidate() {
	err := migrate.Validate(v2())
	fmt.Println(errors.Is(err, kerrors.ErrMigration))
	fmt.Println(err)
	// Output:
	// true
	// kandra: migration: keyspace "app" differs from the model (4 steps: 2 safe, 1 needs approval, 1 impossible, plan 9df57156e17215244ef56b1baa9fb857); the impossible steps need the manual paths below before the rest can be applied:
	//   create-lookup-table:users_by_email [safe]: lookup table "users_by_email" of table "users" does not exist
	//   add-column:users.nickname [safe]: table "users" has no column "nickname"
	//   backfill:users_by_email [needs approval]: table "users" exists, so new lookup table "users_by_email" must be filled from its rows before lookups by "email" find the rows written earlier; it reads the whole table
	//   change-type:users.age [impossible]: column "age" of table "users": its type is text in live, int in the model
	//       manual path: servers no longer alter column types: add a column under a new name with the new type (kandra.Column), copy the values over, then stop using the old one; or create a new table with the model's definition under another name, copy the rows from app.users (with a token-range scan or DSBulk), switch the application to it, then drop the old table; the table's lookup tables and indexes follow it
	//   only in live, kept: column users.legacy
}
