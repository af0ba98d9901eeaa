package kandra

import "time"

// Metrics receives the duration of each statement the runtime executes, so an
// application can feed its own metrics system (Prometheus, OpenTelemetry,
// expvar) without kandra depending on any of them.
//
// Record is called after every execution, on the caller's goroutine and
// possibly from many goroutines at once: implementations must be safe for
// concurrent use and should return quickly.
type Metrics interface {
	// Record reports that operation on table took d. operation is one of
	// the Op constants or another name the runtime chooses.
	Record(table, operation string, d time.Duration)
}

// MetricsFunc adapts a function to [Metrics], for the common case of a
// recorder that is a single closure.
type MetricsFunc func(table, operation string, d time.Duration)

// Record calls f(table, operation, d).
func (f MetricsFunc) Record(table, operation string, d time.Duration) { f(table, operation, d) }

// Operation names the runtime passes to [Metrics.Record] and carries in
// [Observation.Operation]; [Operations] lists them. They document what the
// runtime emits; they are not a closed set, and a recorder should accept
// other names too. Package kstore re-exports the ones it emits.
const (
	// OpSave is a single-entity insert: Save, and the lookup rows it writes.
	OpSave = "save"
	// OpUpdate is a single-entity update, and its lookup rows.
	OpUpdate = "update"
	// OpDelete is a single-entity hard delete, its lookup reads and deletes.
	OpDelete = "delete"
	// OpSaveAll is a multi-entity insert: the batch of a SaveAll, and the
	// EVENTUAL lookup rows written after it.
	OpSaveAll = "saveAll"
	// OpDeleteAll is a multi-entity hard delete: the batch of a DeleteAll.
	OpDeleteAll = "deleteAll"
	// OpSaveIfNotExists is the lightweight-transaction insert.
	OpSaveIfNotExists = "saveIfNotExists"
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
	// OpIncrement is a counter update (Increment and Decrement).
	OpIncrement = "increment"
	// OpEventualWriteFailed is recorded, with the lookup table's name and
	// the failed statement's duration, when an asynchronous lookup write
	// fails (the listener's OnEventualWriteFailed is called too).
	OpEventualWriteFailed = "eventualWriteFailed"
	// OpBackfill is a backfill's writes of lookup rows, and its reads of
	// the table's token ranges.
	OpBackfill = "backfill"
	// OpMigrate is a migration's statements: its schema changes, its
	// reads of the schema and of its history, and its lease.
	OpMigrate = "migrate"
)
