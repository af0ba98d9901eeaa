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

// Operation names the runtime passes to [Metrics.Record]. They document what
// the runtime emits; they are not a closed set, and a recorder should
// accept other names too.
const (
	// OpSave is a single-entity insert.
	OpSave = "save"
	// OpUpdate is a single-entity update.
	OpUpdate = "update"
	// OpDelete is a single-entity delete.
	OpDelete = "delete"
	// OpSaveAll is a multi-entity insert.
	OpSaveAll = "saveAll"
	// OpDeleteAll is a multi-entity delete.
	OpDeleteAll = "deleteAll"
	// OpBatch is a user-assembled batch of statements.
	OpBatch = "batch"
)
