package kandra

// Entity is the constraint Register puts on an entity type's pointer: it
// has a Describe method, so Register is called with the struct type alone
// (Register[User]()). Describe must have a pointer receiver,
//
//	func (u *User) Describe(s *kandra.Schema[User])
//
// because kandra identifies fields by their addresses in the value Describe
// runs on; a value receiver would bind the fields of a copy, and Register
// refuses it (RuleDescribe).
type Entity[T any] interface {
	*T
	Describe(*Schema[T])
}
