// Package kandra is a typed schema library for Cassandra and ScyllaDB. An
// entity is a Go struct with a Describe method; Register validates it once
// and turns it into an immutable TableSchema, from which kandra writes the
// CQL DDL (tables, denormalized lookup tables, secondary indexes, ALTER
// TABLE) and hands a runtime typed, reflection-free access to each row.
//
// The entity contract:
//
//   - Every exported field is a column, named by SnakeCase of its Go name;
//     unexported fields are ignored; embedded structs are flattened as
//     encoding/json flattens them. Options only add to that.
//   - Describe identifies fields by pointer (&u.Email) on the value it is
//     called on: no struct tags, no field names in strings. It runs once per
//     type, on a zero value kandra owns, and must have no other effect.
//   - Typed roles are checked by the compiler: CreatedAt and UpdatedAt take
//     a *time.Time, Version a *int64 or *time.Time, Counter a *int64,
//     GeneratedUUID a *uuid.UUID and SoftDelete's marker a *bool.
//   - Register accepts no schema whose DDL Cassandra 5.0 or ScyllaDB would
//     reject; every failure is a *errors.SchemaError naming the entity, the
//     field and the rule (see Rules for the order they are checked in).
//
// kandra does no network I/O: it has no driver and no session.
package kandra

// Entity is the constraint Register puts on an entity type's pointer: it
// has a Describe method, with either a value or a pointer receiver, so
// Register is called with the struct type alone (Register[User]()).
//
// With a value receiver Describe runs on a copy of kandra's probe; kandra
// then locates the copy from the bound field pointers, which fails only
// when the bindings fit more than one field layout. A pointer receiver is
// the recommended form.
type Entity[T any] interface {
	*T
	Describe(*Schema[T])
}
