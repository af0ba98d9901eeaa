// Package adapter is what a driver adapter for kandra implements, as
// database/sql/driver is for database/sql: the Driver interface (the
// runtime's Exec, Query and Batch, the migrator's ExecCQL, QueryCQL and
// AwaitSchemaAgreement) and the types it is called with (Query, Batch,
// Rows, Statement). App authors do not import it: they pass an adapter's
// driver (github.com/kandra-go/kandra/driver/kgocql or .../kgocqlv2) to
// kstore.New and to package migrate. Its conformance suite, run against a
// real node, is package adapter/adaptertest.
//
// The rest is the driver-neutral half of an adapter, written once for
// every driver of the gocql family. It plans, per column, how a Go type
// kandra maps is bound and scanned (Codec for a row's columns, Plan for a
// Statement's markers and results), applies kandra's value rules at the
// edges (docs/types.md, "Values at the edges": the exact wire form of
// timestamps, dates, times of day, inet addresses, blobs, UUIDs,
// durations and integers wider than their field), encodes the Go structs
// of user-defined types field by field, binds by value or by reference (a
// reference writes a field's bytes when the driver marshals it: no
// boxing, no reflection) into one pooled list per query or batch (Args,
// which the adapter releases once its driver ran the statement), scans
// into the fields themselves where it can, with rows reused from page to
// page (Plan.Rows), and sends every set and map in the server's order
// (SortedValue). It
// also runs the send loop every Driver call needs (Send: a statement that
// must not be sent twice is sent once, and an error after which it may
// have applied is an unknown outcome, OutcomeOpen), and holds credentials
// for an authenticator (Auth) and the plain values of the migrator's rows
// (MapRows).
//
// An adapter implements TypeSystem, a handful of methods for its driver's
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
