package kstore

import (
	"context"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
)

// Driver is what a runtime needs from a CQL driver. An adapter module
// (github.com/kandra-go/kandra/driver/kgocql) implements it on its driver's
// session; the runtime's logic is written once against it.
//
// Values hold one entry per bind marker of the statement, in the order of
// Statement.Params: field addresses (a *V for a column of Go type V) or
// plain values (an int for ParamTTL and ParamLimit, an int64 for
// ParamTimestamp and ParamDelta, a V or *V for a bound). The adapter
// converts column-typed values by Param.Column, as its driver needs.
//
// A Query, a Batch, their Values and the dst of Rows.Next are valid only
// during the call they are passed to: the runtime reuses their memory for
// its next calls (that is how a Save or a Get allocates almost nothing). A
// Driver must copy what it keeps after returning (a Rows may keep the
// Query's values until its Close, which the runtime calls before reusing
// them). Converting the values into a slice of the driver's own is enough:
// the field addresses point into the caller's entity, not into the
// runtime's memory.
//
// A Driver must be safe for concurrent use. Its errors are returned to the
// runtime as they are; the runtime wraps them in *errors.QueryError.
//
// A statement or batch that is not idempotent
// (adapter.Statement.IsIdempotent false for one of its statements) must
// be sent once: the driver must not retry it nor run speculative
// executions of it, whatever its session's policies, and an error after
// which it may have applied (its answer lost, or the server's error
// leaving the outcome open) must match errors.ErrUnknownOutcome
// (adapter.UnknownOutcome wraps one). Idempotent statements may be
// retried and speculated.
type Driver interface {
	// Exec runs a write. For a conditional statement
	// (Statement.IsConditional) it reports whether the server applied it;
	// otherwise applied is true whenever err is nil.
	Exec(ctx context.Context, q *Query) (applied bool, err error)
	// Query runs a SELECT and returns one page of rows: at most
	// q.PageSize rows (all of them when PageSize is 0), starting at
	// q.PageState. It must not return the rows of more than one page; it
	// may pass over empty pages to the first page with rows, as
	// ScyllaDB's fork of gocql does by itself (Rows.PageState is then the
	// state after that page).
	Query(ctx context.Context, q *Query) (Rows, error)
	// Batch runs the statements as one LOGGED BATCH at b.Consistency (an
	// UNLOGGED one when b.Unlogged). The runtime never puts a conditional
	// statement in a batch.
	Batch(ctx context.Context, b *Batch) error
}

// Query is one statement with its values and options.
type Query struct {
	Statement *adapter.Statement
	Values    []any
	// Consistency is the resolved consistency level.
	Consistency kandra.Consistency
	// SerialConsistency is the Paxos level of a conditional statement
	// (always ConsistencySerial or ConsistencyLocalSerial); ignored
	// otherwise.
	SerialConsistency kandra.Consistency
	// PageSize bounds the rows of one page of a SELECT; 0 = no paging.
	PageSize int
	// PageState resumes a SELECT where a previous page ended (nil = from
	// the start).
	PageState []byte
}

// Batch is a LOGGED BATCH of unconditional statements.
type Batch struct {
	// Entries are the statements, in order; their Consistency fields are
	// not used.
	Entries     []*Query
	Consistency kandra.Consistency
	// Unlogged asks for an UNLOGGED BATCH: the runtime sets it only when
	// every entry writes one partition of one table, which the server
	// applies atomically and in isolation without the batch log.
	Unlogged bool
}

// Rows is one page of a SELECT.
type Rows interface {
	// Next scans the next row into dst (one target per
	// Statement.Result column, field addresses) and reports whether
	// there was a row. It returns false at the end of the page or on an
	// error, which Close reports.
	Next(dst []any) bool
	// PageState is where the next page starts, or empty when this page
	// was the last. It is valid after Next returned false.
	PageState() []byte
	// Close releases the page and returns the first error met.
	Close() error
}
