// Package model holds the tutorial's entities: a User with a lookup by
// email and a Todo partitioned by owner, newest first.
package model

import (
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
)

// User is one account. Login finds it by email through the users_by_email
// lookup table, written in the same batch as the user row.
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
	kandra.Bind(s, &u.Email, kandra.Lookup("by_email", kandra.LookupBatch))
	kandra.CreatedAt(s, &u.CreatedAt)
}

// Todo is one item on an owner's list. The partition is the owner; rows
// are stored newest first. CreatedAt is set by the caller (not stamped),
// because it is part of the key that every later read must repeat.
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
	kandra.Bind(s, &t.CreatedAt, kandra.ClusteringKey(0, kandra.Desc))
}
