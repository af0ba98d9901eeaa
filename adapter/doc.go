// Package adapter is the adapter interface: what a driver adapter for
// kandra is built from. App authors do not need it: they use an adapter
// (github.com/kandra-go/kandra/driver/kgocql or .../driver/kgocqlv2), as the
// users of database/sql never import database/sql/driver.
//
// The core here is written once for every driver. It plans, per column,
// how a Go type kandra maps is bound and scanned (Codec for a row's
// columns, Plan for a Statement's markers and results), applies
// kandra's value rules at the edges (docs/types.md, "Values at the edges": the
// exact wire form of timestamps, dates, times of day, inet addresses,
// blobs, UUIDs, durations and integers wider than their field), encodes
// the Go structs of user-defined types field by field, binds by
// value or by reference (a reference writes a field's bytes when the
// driver marshals it: no boxing, no reflection), scans into the fields
// themselves where it can, sends every set and map in the server's order
// (SortedValue), and holds the driver-neutral parts of the runtime's and
// the migrator's driver: LWT classification (IsConditional), credentials
// for an authenticator (Auth) and the plain values of schema rows
// (MapRows).
//
// The statements come from here too: BuildStatements renders, once per
// table, every CQL statement the runtime sends (TableStatements and
// LookupStatements), each a Statement whose bind markers say where their
// values come from (Param); AppendColumns, AppendExpected and
// AppendResult give the entity's field addresses for them, in order.
//
// And the migrator's driver side: ReadSchemaRows, ReadSchemaVersions,
// ExecSchemaThen and AwaitAgreement read the schema tables and wait for
// schema agreement over any QueryFunc, which is what an adapter's
// adapter.Driver methods are made of.
//
// An adapter implements Driver, a handful of methods for its driver's
// types (its TypeInfo, its Marshal and Unmarshal, how it splits a
// collection's and a user-defined type's type info, its UUID type, and
// references of its own if it has any), on an empty struct type, and
// instantiates the core with it:
//
//	type types struct{} // implements adapter.TypeSystem[gocql.TypeInfo]
//	type Codec = adapter.Codec[gocql.TypeInfo, types]
//
// What it keeps is its session plumbing: building its driver's queries and
// batches, their consistency, paging and LWT calls.
package adapter
