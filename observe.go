package kandra

import (
	"context"
	"strconv"
	"time"
)

// Observer sees every statement, batch and background write the store
// and the migrator send, before and after: a tracer opens a span in
// Start and ends it in End (the module github.com/kandra-go/kandra/otelkandra
// does, with OpenTelemetry), a recorder counts in End. Set one with
// kstore.WithObserver, migrate.ApplyOptions.Observer or
// BackfillOptions.Observer; with none set, nothing of this is built.
//
// Start and End are called on the goroutine that runs the work (the
// caller's, or a store worker's for a background write), from many
// goroutines at once: implementations must be safe for concurrent use and
// return quickly. o is the caller's for the duration of the work only:
// copy what you keep.
type Observer interface {
	// Start is called before the work is sent. The context it returns is
	// the one the work runs with, and the one End gets: return ctx, or a
	// context derived from it (one carrying a span).
	Start(ctx context.Context, o *Observation) context.Context
	// End is called once the work is done, with its outcome in o
	// (Duration, Rows, Err).
	End(ctx context.Context, o *Observation)
}

// StatementKind is what an Observation is of.
type StatementKind uint8

const (
	// SingleStatement is one statement.
	SingleStatement StatementKind = iota + 1
	// BatchStatement is a batch (LOGGED, or UNLOGGED for one partition) of
	// Observation.Statements statements.
	BatchStatement
	// SchemaStatement is a schema change (CREATE, ALTER, DROP) and the wait
	// for the cluster's agreement on it.
	SchemaStatement
)

var kindNames = [...]string{SingleStatement: "statement", BatchStatement: "batch", SchemaStatement: "schema"}

// String returns "statement", "batch" or "schema".
func (k StatementKind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "StatementKind(" + strconv.Itoa(int(k)) + ")"
}

// Observation is one statement, batch or schema change, as an Observer
// sees it. It never holds a bound value: the CQL text has markers where
// the values go.
type Observation struct {
	// Keyspace is the keyspace's name ("" for a statement outside one).
	Keyspace string
	// Table is the table written or read: a lookup table's own name for
	// its rows; for a batch, the entity's table.
	Table string
	// Operation is what the call is: one of Operations.
	Operation string
	// Kind is a statement, a batch or a schema change.
	Kind StatementKind
	// Statement is the CQL text (of a batch, its first statement's).
	Statement string
	// Statements is the number of statements: 1, or a batch's.
	Statements int
	// Consistency is the consistency the work runs at (zero for a schema
	// change).
	Consistency Consistency
	// Attempt is 1: kandra sends each statement once (the driver's retry
	// policy may retry an idempotent one, unseen here).
	Attempt int
	// Background is true for a write no caller waits for: an EVENTUAL
	// lookup row, on a store worker (the context is the call's that
	// queued it, detached from its cancellation). A backfill's writes are
	// not: its caller waits for them.
	Background bool

	// Set for End:

	// Duration is how long the work took.
	Duration time.Duration
	// Rows is the number of rows a read returned (0 for a write).
	Rows int
	// Err is the work's error, or nil. A lightweight transaction that did
	// not apply is not an error: see Applied.
	Err error
	// Conditional is true for a lightweight transaction (IF ...), and
	// Applied then says whether it applied (a version conflict, a value
	// another entity holds, a row that exists: false).
	Conditional, Applied bool
}

// Operations is every operation name an Observation carries. The tests
// of package kstore and of the migrator check that they emit no other.
func Operations() []string {
	return []string{OpSave, OpUpdate, OpDelete, OpSaveAll, OpDeleteAll, OpSaveIfNotExists, OpSoftDelete, OpGet, OpFind, OpList,
		OpIncrement, OpBackfill, OpMigrate, OpPatch, OpDeleteRange, OpUnit, OpScan, OpCount, OpTruncate}
}

// The operations an Observation names (Observation.Operation): what the
// call was, per statement. Operations lists them.
const (
	// OpSave is a single-entity insert: Save, and the lookup rows it writes.
	OpSave = "save"
	// OpUpdate is a single-entity update, and its lookup rows.
	OpUpdate = "update"
	// OpDelete is a single-entity hard delete, its lookup reads and
	// deletes, and a conditional delete of one row (kstore's DeleteIf).
	OpDelete = "delete"
	// OpSaveAll is a multi-entity insert: the batch of a SaveAll, and the
	// EVENTUAL lookup rows written after it.
	OpSaveAll = "saveAll"
	// OpDeleteAll is a multi-entity hard delete: the batch of a DeleteAll.
	OpDeleteAll = "deleteAll"
	// OpSaveIfNotExists is the lightweight-transaction insert.
	OpSaveIfNotExists = "saveIfNotExists"
	// OpPatch is a partial write of one row by its key (kstore's Patch).
	OpPatch = "patch"
	// OpUnit is a unit of work (kstore's Unit): the batch of its writes,
	// the lookup rows and claims it makes before, and the lookup rows
	// written after it.
	OpUnit = "unit"
	// OpDeleteRange is a delete beyond one row: a partition or a
	// clustering range (kstore's DeleteRange).
	OpDeleteRange = "deleteRange"
	// OpSoftDelete is the soft-delete rewrite.
	OpSoftDelete = "softDelete"
	// OpGet is a read of one row by its full primary key.
	OpGet = "get"
	// OpFind is a read through a lookup table: the lookup row (recorded
	// with the lookup table's name), then the primary row (with the
	// primary table's name).
	OpFind = "find"
	// OpList is a read of one page of a partition.
	OpList = "list"
	// OpScan is a whole-table read by token ranges (kstore's Scan and
	// ScanAll): one per page.
	OpScan = "scan"
	// OpCount is a count of rows (kstore's Count, and CountAll's count of
	// each token range).
	OpCount = "count"
	// OpTruncate is a table's truncation, and its lookup tables'.
	OpTruncate = "truncate"
	// OpIncrement is a counter update (Increment and Decrement).
	OpIncrement = "increment"
	// OpBackfill is a backfill's writes of lookup rows, and its reads of
	// the table's token ranges.
	OpBackfill = "backfill"
	// OpMigrate is a migration's statements: its schema changes, its
	// reads of the schema and of its history, and its lease.
	OpMigrate = "migrate"
)
