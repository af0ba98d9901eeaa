// Package model holds the tutorial's entities: a User with a lookup by
// email and a Todo partitioned by owner, newest first, plus SafeTodo, the
// variant of Todo to use in an application.
package model

import (
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
)

// User is one account. Login finds it by email through the users_by_email
// lookup table, a unique lookup: the runtime claims each address for one
// user with a lightweight transaction before it writes the user row.
type User struct {
	UserID      uuid.UUID
	Email       string
	DisplayName string
	CreatedAt   time.Time
}

// Describe binds User to the users table.
func (u *User) Describe(s *kandra.Schema[User]) {
	s.Table("users")
	kandra.Bind(s, &u.UserID, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Email, kandra.Lookup("by_email", kandra.LookupUnique))
	kandra.CreatedAt(s, &u.CreatedAt)
}

// Todo is one item on an owner's list, keyed by its creation time. The
// partition is the owner; rows are stored newest first. CreatedAt is set
// by the caller (not stamped), because it is part of the key that every
// later read must repeat.
//
// Its key (owner_id, created_at) has a flaw: two todos of one owner
// created in the same millisecond share a primary key, and the second
// write silently overwrites the first (shown on a real node by the
// integration suite). SafeTodo is the variant to use.
type Todo struct {
	OwnerID    uuid.UUID
	CreatedAt  time.Time
	TodoID     uuid.UUID
	Title      string
	AssigneeID *uuid.UUID // nullable: most todos are not assigned
	Done       bool
}

// Describe binds Todo to the todos table.
func (t *Todo) Describe(s *kandra.Schema[Todo]) {
	s.Table("todos")
	kandra.Bind(s, &t.OwnerID, kandra.PartitionKey(0))
	kandra.Bind(s, &t.CreatedAt, kandra.ClusteringKey(0, kandra.ClusteringDesc))
}

// SafeTodo is Todo keyed by a time-ordered generated id instead of a
// timestamp: UUIDv7 ids from one process are strictly increasing, also
// within one millisecond, so rows still sort newest first and two todos
// never share a key. The creation time stays a regular column, stamped by
// the runtime on insert.
type SafeTodo struct {
	OwnerID    uuid.UUID
	TodoID     uuid.UUID
	Title      string
	AssigneeID *uuid.UUID
	Done       bool
	CreatedAt  time.Time
}

// Describe binds SafeTodo to the safe_todos table.
func (t *SafeTodo) Describe(s *kandra.Schema[SafeTodo]) {
	s.Table("safe_todos")
	kandra.Bind(s, &t.OwnerID, kandra.PartitionKey(0))
	kandra.GeneratedUUID(s, &t.TodoID, kandra.UUIDTimeOrdered, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.CreatedAt(s, &t.CreatedAt)
}
