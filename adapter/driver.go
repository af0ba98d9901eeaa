package adapter

import (
	"context"

	"github.com/kandra-go/kandra"
)

// Driver is what kandra needs from a CQL driver, as database/sql/driver's
// interfaces are what database/sql needs: package kstore runs every typed
// call through Exec, Query and Batch (and reads the token ring's
// boundaries from system.local and system.peers through QueryCQL before a
// whole-table scan), and package migrate reads the live
// schema, changes it and keeps its own tables through ExecCQL, QueryCQL
// and AwaitSchemaAgreement. The adapter modules implement it on their
// driver's session (kgocql.Driver, kgocqlv2.Driver); an application only
// passes one to kstore.New or to package migrate and never calls it.
//
// Values hold one entry per bind marker of the statement, in the order of
// Statement.Params: field addresses (a *V for a column of Go type V) or
// plain values (an int or an *int32 for ParamTTL, an int for ParamLimit,
// an int64 or an *int64 for ParamTimestamp, an int64 for ParamDelta, a V
// or *V for a bound: the runtime binds a TTL or a timestamp by address to
// spare boxing it). The adapter
// converts column-typed values by Param.Column, as its driver needs (Codec
// does it once per statement).
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
// runtime as they are; the runtime wraps them in *kerrors.QueryError.
//
// A statement or batch that is not idempotent (Statement.IsIdempotent
// false for one of its statements) must be sent once: the driver must not
// retry it nor run speculative executions of it, whatever its session's
// policies, and an error after which it may have applied (its answer lost,
// or the server's error leaving the outcome open) must match
// kerrors.ErrUnknownOutcome (UnknownOutcome wraps one; Send does both).
// Idempotent statements may be retried and speculated.
//
// The conformance suite, package adaptertest, proves an implementation on
// a real node.
type Driver interface {
	// Exec runs a write. For a conditional statement
	// (Statement.IsConditional) it reports whether the server applied it;
	// otherwise applied is true whenever err is nil.
	Exec(ctx context.Context, q *Query) (applied bool, err error)
	// Query runs a SELECT and returns one page of rows: at most
	// q.PageSize rows (the driver's own page size when PageSize is 0),
	// starting at
	// q.PageState. It must not return the rows of more than one page; it
	// may pass over empty pages to the first page with rows, as
	// ScyllaDB's fork of gocql does by itself (Rows.PageState is then the
	// state after that page).
	Query(ctx context.Context, q *Query) (Rows, error)
	// Batch runs the statements as one LOGGED BATCH at b.Consistency (an
	// UNLOGGED one when b.Unlogged, a COUNTER one when b.Counter). A batch
	// with a conditional statement (Batch.IsConditional) is a lightweight
	// transaction: it runs at b.SerialConsistency, Batch reports whether
	// the server applied it and, when not, reads the rows the server
	// returned into b.Current (Plans.ExecBatchCAS). Otherwise applied is
	// true whenever err is nil.
	Batch(ctx context.Context, b *Batch) (applied bool, err error)

	// ExecCQL runs one statement of the migrator's with plain values
	// (string, int, int64, bool, time.Time, []byte) at consistency c: a
	// schema statement, or a write to its own tables. For a conditional
	// statement (IsConditional) it reports whether it applied, at serial
	// consistency SERIAL; otherwise applied is true when err is nil.
	ExecCQL(ctx context.Context, stmt string, values []any, c kandra.Consistency) (applied bool, err error)
	// QueryCQL runs a SELECT of the migrator's with plain values and
	// returns every row (MapRows reads them from a driver's iterator): one
	// map per row keyed by column name, with plain Go values: text as
	// string, uuid and timeuuid as a canonical string, int as int, boolean
	// as bool, timestamp as time.Time, map<text, text> as
	// map[string]string, list<text> and set<text> as []string, inet as its
	// string; a null is absent or nil.
	QueryCQL(ctx context.Context, stmt string, values []any, c kandra.Consistency) ([]map[string]any, error)
	// AwaitSchemaAgreement waits until every live node reports the same
	// schema version, up to the driver's own bound or ctx's deadline, and
	// returns the driver's error when they do not agree in time (the
	// migrator reads the versions and reports them itself).
	AwaitSchemaAgreement(ctx context.Context) error
}

// Query is one statement with its values and options.
type Query struct {
	Statement *Statement
	Values    []any
	// Consistency is the resolved consistency level.
	Consistency kandra.Consistency
	// SerialConsistency is the Paxos level of a conditional statement
	// (always ConsistencySerial or ConsistencyLocalSerial); ignored
	// otherwise.
	SerialConsistency kandra.Consistency
	// PageSize bounds the rows of one page of a SELECT; 0 = the driver's
	// own page size.
	PageSize int
	// PageState resumes a SELECT where a previous page ended (nil = from
	// the start).
	PageState []byte
	// Current, for a conditional statement, are the targets of the row
	// the server returns when it does not apply the statement: one per
	// Statement.Result column (field addresses), or nil to read nothing
	// back. Exec scans each column the server returns into the target of
	// the Result column of the same name (Plan.ReadCAS) and ignores the
	// others: Cassandra returns the columns of the conditions (all of
	// them for IF NOT EXISTS), ScyllaDB every column, and neither any
	// when the row does not exist.
	Current []any
	// Returned is set by Exec when a conditional statement with Current
	// did not apply: how many of the Result columns the server returned
	// (0 when the row does not exist).
	Returned int
}

// Unset is a value that leaves its column as it is: bound for a column
// marker, the driver sends the native protocol's "unset" (gocql's
// UnsetValue) instead of a value, so the write neither changes the cell
// nor leaves a null (a tombstone) in it.
var Unset any = unset{}

type unset struct{}

// Batch is a batch of statements: LOGGED, or UNLOGGED when Unlogged, or
// COUNTER when Counter. It is conditional when one of its statements is
// (IsConditional): the runtime then makes every statement write one
// partition of one table, as the servers require.
type Batch struct {
	// Entries are the statements, in order; their Consistency,
	// SerialConsistency and Current fields are not used.
	Entries     []*Query
	Consistency kandra.Consistency
	// Unlogged asks for an UNLOGGED BATCH: the runtime sets it only when
	// every entry writes one partition of one table, which the server
	// applies atomically and in isolation without the batch log.
	Unlogged bool
	// Counter asks for a COUNTER BATCH: every entry is a counter update.
	Counter bool
	// SerialConsistency is the Paxos level of a conditional batch (always
	// ConsistencySerial or ConsistencyLocalSerial); ignored otherwise.
	SerialConsistency kandra.Consistency
	// CurrentOf and Current read back the rows the server returns when a
	// conditional batch does not apply: Current(i) returns the targets of
	// the i-th row (from 0), one per CurrentOf.Result column (field
	// addresses, nil for a column not wanted). The adapter scans each
	// column the server returned into the target of the Result column of
	// the same name and ignores the others: Cassandra returns the primary
	// key and the columns of the conditions of each conditioned row that
	// exists, ScyllaDB every column. Nil Current reads nothing back.
	CurrentOf *Statement
	Current   func(i int) []any
	// Returned is set by Batch when a conditional batch with Current did
	// not apply: how many rows it read into Current's targets.
	Returned int
}

// IsConditional reports a batch with a conditional statement: a
// lightweight transaction.
func (b *Batch) IsConditional() bool {
	for _, e := range b.Entries {
		if e.Statement.IsConditional() {
			return true
		}
	}
	return false
}

// Rows is one page of a SELECT.
type Rows interface {
	// Next scans the next row into dst (one target per
	// Statement.Result column, field addresses) and reports whether
	// there was a row. It returns false at the end of the page or on an
	// error, which Close reports.
	Next(dst []any) bool
	// PageState is where the next page starts, or empty when this page
	// was the last. It is valid after Next returned false, and until
	// Close (the bytes it returned stay valid after).
	PageState() []byte
	// Close releases the page and returns the first error met. It is
	// called once, and nothing of the Rows after it: an adapter may
	// reuse it for another page (Plan.Rows does).
	Close() error
}
