package kgocql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"testing"
	"unsafe"

	gocql "github.com/gocql/gocql"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
	"github.com/kandra-go/kandra/kerrors"
)

// retryRow has a statement of every kind: reads, plain writes, versioned
// (conditional) writes, unique claims, and a list that is not frozen.
type retryRow struct {
	ID      string
	Tags    []string
	Owner   string
	Handle  string
	Version int64
}

func (r *retryRow) Describe(s *kandra.Schema[retryRow]) {
	s.Table("retry_rows")
	kandra.Bind(s, &r.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &r.Tags)
	kandra.Bind(s, &r.Owner, kandra.Lookup("by_owner", kandra.LookupBatch))
	kandra.Bind(s, &r.Handle, kandra.Lookup("by_handle", kandra.LookupUnique))
	kandra.Version(s, &r.Version)
}

type retryHits struct {
	Page string
	N    int64
}

func (h *retryHits) Describe(s *kandra.Schema[retryHits]) {
	s.Table("retry_hits")
	kandra.Bind(s, &h.Page, kandra.PartitionKey(0))
	kandra.Counter(s, &h.N)
}

// field is the unexported field name of the struct v points to, writable:
// gocql has no getter for a query's retry policy, nor a session with a
// policy but no connections. The driver's version is pinned (go.mod).
func field(t *testing.T, v any, name string) reflect.Value {
	t.Helper()
	f := reflect.ValueOf(v).Elem().FieldByName(name)
	if !f.IsValid() {
		t.Fatalf("%T has no field %s: see how this gocql version keeps retry policies", v, name)
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

// sessionRetrying is a session without connections whose queries and
// batches start with policy, as those of a ClusterConfig.RetryPolicy do.
func sessionRetrying(t *testing.T, policy gocql.RetryPolicy) *gocql.Session {
	s := &gocql.Session{}
	field(t, s, "cfg").FieldByName("RetryPolicy").Set(reflect.ValueOf(policy))
	return s
}

func retryPolicy(t *testing.T, v any) gocql.RetryPolicy {
	rt, _ := field(t, v, "rt").Interface().(gocql.RetryPolicy)
	return rt
}

// TestIdempotencePerStatement: every statement is marked idempotent or not
// as adapter.Statement says, and one that is not gets the retry policy
// that never retries, whatever the session's: gocql v1.7.0 retries a query
// by its policy, idempotent or not. Batches are idempotent when each entry
// is.
func TestIdempotencePerStatement(t *testing.T) {
	policy := &gocql.SimpleRetryPolicy{NumRetries: 3}
	d := New(sessionRetrying(t, policy))
	rows, err := catalog.Build(kandra.MustRegister[retryRow]().Schema(), "ks")
	if err != nil {
		t.Fatal(err)
	}
	hitsT := kandra.MustRegister[retryHits]().Schema()
	hits, err := catalog.Build(hitsT, "ks")
	if err != nil {
		t.Fatal(err)
	}
	owner, handle := rows.Lookups()[0], rows.Lookups()[1]
	for _, tt := range []struct {
		kind       string
		st         *adapter.Statement
		idempotent bool
	}{
		{"read", rows.SelectByKey(), true},
		{"read of a claim", handle.SelectOwner(), true},
		{"plain upsert", rows.Insert(0), true},
		{"plain upsert with a TTL", rows.Insert(catalog.UsingTTL), true},
		{"unconditional update", rows.ForceUpdate(0), true},
		{"plain delete", rows.Delete(0), true},
		{"delete at a timestamp", rows.Delete(catalog.UsingTimestamp), true},
		{"lookup row at a timestamp", owner.InsertAt(), true},
		{"lookup row deleted at a timestamp", owner.DeleteAt(), true},
		{"INSERT IF NOT EXISTS", rows.InsertIfNotExists(0), false},
		{"versioned update", rows.Update(0), false},
		{"versioned update of a row without a version", rows.UpdateIfNoVersion(0), false},
		{"versioned delete", rows.DeleteIfVersion(), false},
		{"claim", handle.Claim(), false},
		{"takeover", handle.Takeover(), false},
		{"release", handle.Release(), false},
		{"counter update", hits.Counter(hitsT.ColumnByName("n")), false},
		{"list written at a timestamp", rows.Insert(catalog.UsingTimestamp), false},
		{"list updated at a timestamp", rows.ForceUpdate(catalog.UsingTimestamp), false},
	} {
		if tt.st == nil {
			t.Fatalf("%s: no statement", tt.kind)
		}
		if got := tt.st.IsIdempotent(); got != tt.idempotent {
			t.Errorf("%s: adapter.Statement.IsIdempotent() = %v, want %v (%s)", tt.kind, got, tt.idempotent, tt.st)
		}
		vals := make([]any, tt.st.NumParams())
		gq, _, _, _, err := d.query(context.Background(), &adapter.Query{Statement: tt.st, Values: vals,
			Consistency: kandra.ConsistencyQuorum, SerialConsistency: kandra.ConsistencySerial})
		if err != nil {
			t.Fatalf("%s: %v", tt.kind, err)
		}
		if gq.IsIdempotent() != tt.idempotent {
			t.Errorf("%s: the query is idempotent: %v, want %v", tt.kind, gq.IsIdempotent(), tt.idempotent)
		}
		want := gocql.RetryPolicy(policy)
		if !tt.idempotent {
			want = once{}
		}
		if got := retryPolicy(t, gq); got != want {
			t.Errorf("%s: the query's retry policy is %v, want %v", tt.kind, got, want)
		}
	}

	plain := &adapter.Query{Statement: rows.Insert(0), Values: make([]any, rows.Insert(0).NumParams())}
	lookup := &adapter.Query{Statement: owner.InsertAt(), Values: make([]any, owner.InsertAt().NumParams())}
	list := &adapter.Query{Statement: rows.Insert(catalog.UsingTimestamp), Values: make([]any, rows.Insert(catalog.UsingTimestamp).NumParams())}
	for _, tt := range []struct {
		kind       string
		entries    []*adapter.Query
		idempotent bool
	}{
		{"row and lookup rows", []*adapter.Query{plain, lookup}, true},
		{"a list at a timestamp", []*adapter.Query{lookup, list}, false},
	} {
		gb, _, err := d.newBatch(context.Background(), &adapter.Batch{Entries: tt.entries, Consistency: kandra.ConsistencyQuorum}, adapter.NewArgs())
		if err != nil {
			t.Fatalf("%s: %v", tt.kind, err)
		}
		if gb.IsIdempotent() != tt.idempotent {
			t.Errorf("batch of %s: idempotent %v, want %v", tt.kind, gb.IsIdempotent(), tt.idempotent)
		}
		want := gocql.RetryPolicy(policy)
		if !tt.idempotent {
			want = once{}
		}
		if got := retryPolicy(t, gb); got != want {
			t.Errorf("batch of %s: retry policy %v, want %v", tt.kind, got, want)
		}
	}
}

// serverError is a server's error of a code, as gocql's RequestErr types
// are (their code is unexported).
type serverError int

func (e serverError) Code() int       { return int(e) }
func (e serverError) Message() string { return "m" }
func (e serverError) Error() string   { return fmt.Sprintf("server error 0x%04x", int(e)) }

// sentOrNot is an error that says whether its statement may have been
// executed, as ScyllaDB's fork of gocql wraps them.
type sentOrNot struct {
	err  error
	sent bool
}

func (e sentOrNot) Error() string             { return e.err.Error() }
func (e sentOrNot) Unwrap() error             { return e.err }
func (e sentOrNot) PotentiallyExecuted() bool { return e.sent }

// TestMayHaveApplied: the errors after which a statement that is not
// idempotent may have applied are the answers lost and the server's
// errors that leave the outcome open; the ones that come before sending,
// and the server's refusals, are not.
func TestMayHaveApplied(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{gocql.ErrTimeoutNoResponse, true},
		{gocql.ErrConnectionClosed, true},
		{context.DeadlineExceeded, true},
		{context.Canceled, true},
		{io.EOF, true},
		{&net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}, true},
		{serverError(gocql.ErrCodeWriteTimeout), true},
		{fmt.Errorf("exec: %w", serverError(gocql.ErrCodeWriteFailure)), true},
		{serverError(gocql.ErrCodeServer), true},
		{serverError(gocql.ErrCodeUnavailable), true},
		{serverError(gocql.ErrCodeOverloaded), false},
		{serverError(gocql.ErrCodeReadTimeout), false},
		{serverError(gocql.ErrCodeInvalid), false},
		{gocql.ErrNoConnections, false},
		{fmt.Errorf("prepare: %w", gocql.ErrNoStreams), false},
		{gocql.MarshalError("can not marshal"), false},
		{&kerrors.ValueError{Column: "c", Type: "int", Value: "v", Reason: "r"}, false},
		{&kerrors.UDTFieldError{Keyspace: "ks", Type: "t", Field: "f"}, false},
		{sentOrNot{io.EOF, false}, false},
		{fmt.Errorf("exec: %w", sentOrNot{io.EOF, true}), true},
		{sentOrNot{serverError(gocql.ErrCodeWriteTimeout), false}, true},
	} {
		if got := mayHaveApplied(tt.err); got != tt.want {
			t.Errorf("mayHaveApplied(%T %v) = %v, want %v", tt.err, tt.err, got, tt.want)
		}
	}
}

// TestUnknownOutcomeNotSentWhenDone: a context done before the call sends
// nothing, and is not an unknown outcome.
func TestUnknownOutcomeNotSentWhenDone(t *testing.T) {
	rows, err := catalog.Build(kandra.MustRegister[retryRow]().Schema(), "ks")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := &Driver{} // no session: nothing may reach gocql
	st := rows.InsertIfNotExists(0)
	_, err = d.Exec(ctx, &adapter.Query{Statement: st, Values: make([]any, st.NumParams()), SerialConsistency: kandra.ConsistencySerial})
	if !errors.Is(err, context.Canceled) || errors.Is(err, kerrors.ErrUnknownOutcome) {
		t.Errorf("Exec with a done context: %v", err)
	}
	_, err = d.Batch(ctx, &adapter.Batch{Entries: []*adapter.Query{{Statement: st}}})
	if !errors.Is(err, context.Canceled) || errors.Is(err, kerrors.ErrUnknownOutcome) {
		t.Errorf("Batch with a done context: %v", err)
	}
}
