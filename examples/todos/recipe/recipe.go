// Package recipe holds the lookup-table recipe's User: two lookups, one
// written in the primary row's batch, one written eventually.
package recipe

import (
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
)

// User can be found by email (login cannot miss, so BATCH) and by support
// ticket reference (rarely read right after a write, so EVENTUAL).
type User struct {
	UserID    uuid.UUID
	Email     string
	TicketRef string
	Name      string
}

// Describe binds the recipe's User to the users table.
func (u *User) Describe(s *kandra.Schema[User]) {
	s.Table("users")
	kandra.Bind(s, &u.UserID, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Email, kandra.Lookup("by_email", kandra.LookupUnique))
	kandra.Bind(s, &u.TicketRef, kandra.Lookup("by_ticket_ref", kandra.LookupEventual))
}
