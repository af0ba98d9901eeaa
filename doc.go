// Package kandra is a typed schema library for Cassandra and ScyllaDB. An
// entity is a Go struct with a Describe method; Register validates it once
// and turns it into an immutable TableSchema, from which kandra writes the
// CQL DDL (keyspaces, tables, denormalized lookup tables, secondary
// indexes, ALTER TABLE) and hands a runtime typed, reflection-free access to
// each row. kandra does no network I/O: it has no driver and no session.
//
// # For application authors
//
// Three steps, each with one type:
//
//   - Describe fills a Schema[T]: it names the table (Schema.Table, with
//     table options such as DefaultTTL) and binds fields by pointer with
//     Bind and its FieldOptions (PartitionKey, ClusteringKey, Lookup,
//     SecondaryIndex, ...) or with the typed binders (CreatedAt, UpdatedAt,
//     Version, Counter, GeneratedUUID).
//   - Register[T] validates the schema once per type and returns a
//     *Table[T]; a broken rule is a *SchemaError that names the entity, the
//     field, the rule (see Rules) and the way out.
//   - NewKeyspace puts tables into a *Keyspace for the servers it targets
//     (KeyspaceSpec.Targets; every known server by default), checks the
//     rules that span a keyspace (a table or index name is used once) and
//     what those servers refuse, and writes every statement that creates
//     it (Keyspace.Statements), or one at a time (Keyspace.CreateTable,
//     AlterTableAdd, ...). No other code writes DDL.
//
// The entity contract:
//
//   - Every exported field is a column, named by SnakeCase of its Go name;
//     unexported fields are ignored; embedded structs are flattened as
//     encoding/json flattens them. Options only add to that.
//   - Describe has a pointer receiver and identifies fields by pointer
//     (&u.Email): no struct tags, no field names in strings. It runs once
//     per type, on a zero value kandra owns, and must have no other effect.
//   - Typed roles are checked by the compiler: CreatedAt and UpdatedAt take
//     a *time.Time, Version a *int64 or *time.Time, Counter a *int64,
//     GeneratedUUID a *uuid.UUID and SoftDelete's marker a *bool.
//   - What Register and NewKeyspace accept, the keyspace's target servers
//     accept: its DDL, and writes through its schema.
//
// # For runtime and tool authors
//
// A runtime (saving and finding entities through a driver) or a tool (a
// migration planner) reads the immutable model: TableSchema, ColumnSchema
// and LookupTableSchema, and CQLType trees (Kind, Elem, Key; ParseCQLType
// reads the type strings of system_schema). Per row it uses Table.Pointers
// and Table.ColumnPointers, or a typed Field from FieldOf, which reach the
// fields through offsets computed once: no reflection and no allocation on
// a per-row path. The options the schema only records (ReadConsistency,
// WriteConsistency, SoftDelete, the lookup kind) are
// for the runtime to act on; their docs say what the runtime does.
//
// Consistency, UUIDStrategy, the timestamp helpers, Observer and
// EventListener are the contracts such a runtime shares with the
// application. Package kerrors holds the error family: every error
// kandra returns matches kerrors.ErrKandra and the sentinel of its kind.
// The runtime itself lives in package kstore and the driver adapters in
// nested modules.
//
// No API is generic over numeric kinds, so golang.org/x/exp/constraints
// (named in the design) is not needed: a counter is int64 because a CQL
// counter is a 64-bit integer (a narrower Go type would silently wrap what
// another client added), and each column's numeric range is the CQL
// type's, checked per value (ColumnSchema.CheckValue), not a type
// parameter's.
package kandra
