// Package recipe holds the lookup-table recipe's User: two lookups, a
// unique one claimed before the primary write, and one written eventually.
package recipe

import (
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
)

// User can be found by email (one account per address, so UNIQUE: the
// runtime claims the address with a lightweight transaction before it
// writes the user, and login cannot miss) and by support ticket reference
// (rarely read right after a write, so EVENTUAL: written after the user
// row, on the runtime's goroutines).
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
