// Package quickstart is the README's quick start, as the README shows it
// (readme_test.go checks the README against this file): a versioned User
// with a unique lookup by email, and a Todo keyed by a time-ordered
// generated id, newest first, in keyspace app on one local Cassandra 5.0
// node. The command examples/todos prints its statements first.
package quickstart

import (
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
)

// snippet: quickstart

// User is an account, found by its id or, through a lookup table, by email.
type User struct {
	UserID      uuid.UUID
	Email       string
	DisplayName string
	CreatedAt   time.Time
	Version     int64
}

// Describe binds User to the users table.
func (u *User) Describe(s *kandra.Schema[User]) {
	s.Table("users")
	kandra.Bind(s, &u.UserID, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Email, kandra.Lookup("by_email", kandra.LookupUnique)) // one user per email
	kandra.CreatedAt(s, &u.CreatedAt)
	kandra.Version(s, &u.Version) // every write checks it: a stale copy is refused
}

// Todo is one item on an owner's list.
type Todo struct {
	OwnerID   uuid.UUID
	TodoID    uuid.UUID
	Title     string
	Done      bool
	CreatedAt time.Time
}

// Describe binds Todo to the todos table, one partition per owner.
func (t *Todo) Describe(s *kandra.Schema[Todo]) {
	s.Table("todos")
	kandra.Bind(s, &t.OwnerID, kandra.PartitionKey(0))
	// A time-ordered id as the clustering key: newest first, and two todos
	// created in the same millisecond never share a key.
	kandra.GeneratedUUID(s, &t.TodoID, kandra.UUIDTimeOrdered, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.CreatedAt(s, &t.CreatedAt)
}

// The registered tables, and the keyspace they live in.
var (
	Users = kandra.MustRegister[User]() // or: users, err := kandra.Register[User]()
	Todos = kandra.MustRegister[Todo]()
	App   = kandra.MustNewKeyspace(kandra.KeyspaceSpec{
		Name:        "app",
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"datacenter1": 1}), // one local node
		Targets:     kandra.Cassandra5,
	}, Users, Todos)
)

// end snippet
