// Package kstore saves, finds, updates, patches, deletes and lists kandra
// entities through a CQL driver, doing everything the schema records:
// validation, generated ids, CreatedAt/UpdatedAt stamps, versions, lookup
// tables (unique, BATCH and EVENTUAL), soft delete, counters, consistency
// and observation.
//
// A Store is made of an adapter's driver (kgocql.New(session) from
// github.com/kandra-go/kandra/driver/kgocql for gocql v1.7.0, or
// kgocqlv2.New from .../driver/kgocqlv2 for the Apache driver v2) and a
// keyspace; this package has no driver dependency of its own.
//
// # Batches
//
// SaveAll and DeleteAll write several entities of one table in one batch.
//
// Atomicity: the batch is one LOGGED BATCH (every entity's row and its
// BATCH lookup rows): once the coordinator has it, all of it is applied or,
// if the coordinator fails, replayed from the batch log; a reader may see
// some of its rows before others. When every entity is in one partition
// and the table has no BATCH lookup, it is an UNLOGGED BATCH instead,
// which the server applies to that partition atomically and in isolation
// without the batch log. EVENTUAL lookup rows follow each entity
// asynchronously, as after Save.
//
// The batch's estimated size must fit WithMaxBatchBytes (the servers'
// batch_size_fail_threshold is 50 KiB by default); a larger one is refused
// with kerrors.ErrBatchTooLarge before anything is sent, and nothing is
// stamped. Save the entities in smaller groups then.
//
// A versioned table and a table with a UNIQUE lookup are refused with an
// *kerrors.ArgumentError: their writes are lightweight transactions, which
// a batch over several partitions cannot hold; Save or Delete each entity.
//
// # Units of work
//
// A Unit collects writes of several repositories (Repo.In(u).Save,
// Patch, Delete, DeleteIf, DeleteRange, prepared writes, counter
// increments) and Unit.Apply sends them as one batch: UNLOGGED within one
// partition of one table, LOGGED across partitions and tables, COUNTER for
// counter updates. A unit with conditions (versions, IF NOT EXISTS, a
// Patch's If) is one lightweight transaction on one partition of one
// table, and when it does not apply each conditional step's Outcome holds
// the row the server returned for it. See Unit.
//
// # Whole-table reads
//
// Repo.Scan and ScanAll read every row by token ranges, cut where the
// live ring is cut (vnodes or tablets), Concurrency ranges at once, with
// progress and a ScanPosition that resumes a scan after a crash;
// CountAll counts by the same ranges. Beyond one partition by its key,
// Count counts a partition or a range of it, ListMerged reads several
// partitions in clustering order with one cursor, Where reads by several
// SAI predicates (listed, counted, or filtering an ANN read), FromTuple
// and ToTuple slice several clustering columns, Columns projects any
// read, GetTimes and WithTimes read write times and TTLs, and Truncate
// empties a table and its lookup tables.
//
// # Defined behaviour
//
//   - Empty lookup values. The servers refuse an empty partition key, so a
//     lookup whose value is empty ("" or an empty []byte), nil, or sent as
//     null (the zero netip.Addr, the zero UUID in a TIMEUUID) gets no
//     lookup row: Save and Update write none (and an Update away from an
//     empty value deletes none), and Lookup.Find of an empty value is
//     kerrors.ErrNotFound without a query.
//   - Batch too large. A LOGGED BATCH whose bound values add up to more than
//     the batch limit (WithMaxBatchBytes, default 50 KiB, Cassandra 5.0's
//     batch_size_fail_threshold) fails before anything is sent, with a
//     *kerrors.QueryError matching kerrors.ErrBatchTooLarge: nothing is written.
//     The size is a lower bound of what the server counts:
//     every value's bytes, whatever its shape (a collection's elements, a
//     user-defined type's fields, through pointers), but for the partition
//     keys, which the server does not count, and on a keyspace whose
//     targets are all Cassandra each cell's overhead too; so a batch over
//     the limit here is over it for the server too (which, unlike kandra,
//     does not check a batch of one partition), and one within it may
//     still be refused by the server ("Batch too large"; on Cassandra 5.0
//     a list of bigints of about 1,160 to 1,280 elements), nothing written.
//     There is no fallback to separate writes, which would lose the
//     atomicity a BATCH lookup promises. A write with no BATCH lookup row
//     is a single statement and has no such limit.
//   - Versioned entities. On a table with a Version no write path
//     overwrites or deletes a row whose version differs from the caller's
//     copy: Save, Update, Patch, HardDelete, SoftDelete and DeleteIf are
//     lightweight transactions on the version,
//     and a refused one is an *kerrors.OptimisticLockError, the row and
//     the argument unchanged (lookup rows written before it point to an
//     entity without their values: reads skip them). ForceSave and
//     ForceDelete are the
//     unconditional forms, and DeleteRange deletes rows whatever their
//     version. A conditional statement cannot share a batch
//     with other tables, so the new BATCH lookup rows are written before
//     it, in one LOGGED BATCH, and the rows of values an Update left are
//     deleted after it: a conflict, a failure or a crash in between leaves
//     only lookup rows whose entity does not hold their value, which reads
//     skip, never an entity its lookups cannot find. SaveIfNotExists works
//     the same way.
//   - Unknown outcomes. A write that must not be sent twice (a
//     lightweight transaction, a counter update, a list append or prepend,
//     a write of a list's elements at a given timestamp) is sent once,
//     whatever the driver's retry policy: a second try would be answered
//     "not applied" after the first applied, or count twice. When its answer is lost after it
//     was sent (a client timeout, a server write timeout, a lost
//     connection, the context done while waiting), the call returns a
//     *kerrors.QueryError matching kerrors.ErrUnknownOutcome: the write may
//     or may not have applied. It is never reported as a conflict or as
//     not written, and the unique values the call claimed stay claimed
//     (a retry of the entity takes them back; others take them over after
//     WithClaimGrace if the write did not apply). Resolve it by reading
//     the entity at SERIAL consistency, then deciding.
//   - Partial writes. Patch writes chosen columns of one row by its key
//     without reading it, and by default only to a row that exists and
//     is not soft-deleted (IF EXISTS, the marker, or the version: a
//     lightweight transaction), so that it never brings a row to life;
//     Upsert makes it a plain write. A conditional Patch or DeleteIf that
//     does not apply returns the row's current values of its conditions'
//     columns (Outcome). DeleteRange deletes a partition or a clustering
//     range in one statement (one tombstone). Update writes only the
//     columns that changed (every column under a TTL). OmitNulls leaves
//     null columns unset instead of writing tombstones.
//   - Arguments. Every call checks its arguments and options before it
//     sends anything, in one order for every call; a bad one is an
//     *kerrors.ArgumentError.
//   - Close. Close refuses new calls, then waits for the calls in progress
//     and for every EVENTUAL write they queue: once it returns nil, nothing
//     more is sent through the driver.
//   - Lookups. Once
//     the EVENTUAL writes are done, every live entity is found through
//     every lookup by every value it holds, and no read through a lookup
//     returns an entity that does not hold the value. A non-unique lookup
//     (LookupBatch, LookupEventual) keeps one row per value and holder, so
//     many entities may share a value and FindAll pages through them; a
//     move deletes exactly the entity's own old row and writes its new
//     one, both at the call's timestamp, so moves applied out of order
//     still leave the later one's rows. A unique lookup (LookupUnique)
//     claims each value with a lightweight transaction before the primary
//     write, refuses a value another live entity holds with an
//     *kerrors.UniqueError (nothing written), takes over a stale claim once
//     it is older than WithClaimGrace, and releases a value only while it
//     holds it under the claim it read before its write. A claim that
//     another call renewed within the grace is not released (that call may
//     be on its way to write the value) unless the renewal was a write of
//     this store that landed: a value left right after another
//     process's Save of it stays taken until the grace passes. The claims
//     are written by lightweight transactions only, so no row is written
//     by both Paxos and plain writes. Assumptions, as for any lease: the
//     clocks of the writers and the servers agree within a fraction of the
//     grace; with LOCAL_SERIAL a value is unique per datacenter; concurrent
//     writes of one entity with unique lookups are safe on a table with a
//     Version (its writes are serialized), while on one without, the
//     later timestamp wins the row but not the claims.
//   - Reads through a lookup never return the wrong entity: Find reads the
//     lookup row, then the primary row by the full key, and checks that the
//     row still carries the value. A stale row (EVENTUAL lag, a moved or
//     hijacked value, a deleted entity) is kerrors.ErrNotFound.
//   - EVENTUAL lookups run after the primary write succeeded, on goroutines
//     the store owns and keeps for the next writes (they end when idle
//     for a few seconds, or after Close), at most WithEventualConcurrency
//     at a time, with up to WithEventualQueue more waiting in order for a
//     worker; a caller that finds the queue full waits for room
//     (backpressure, not an unbounded queue). They
//     work on a copy of the entity taken when the call returns, and use a
//     context detached from the caller's cancellation. Failures go to
//     EventListener.OnEventualWriteFailed (and the Observer sees the
//     failed write), never to the caller. Close waits for them.
//
// # Call options
//
// Each call takes the option interface of its kind,
// so that an option that cannot apply to it (a TTL on Get, a range on
// Save) does not compile:
//
//	option              Read List Write Insert Delete Counter Patch Range
//	Consistency          x    x    x     x      x      x       x     x
//	SerialConsistency              x     x      x              x
//	TTL                            x     x                     x
//	Timestamp                      x            x              x     x
//	SkipDeleted          x    x
//	PageSize, After,          x
//	Reversed
//	Equal, From, To           x                                      x
//	OmitNulls,                     x     x
//	WriteNulls
//	Current                              x
//	Upsert                                                     x
//	Columns              x    x
//	WithTimes                 x
//	WithScores           x
//	FromTuple, ToTuple        x                                      x
//
// A Scan (Scan, ScanAll, CountAll) takes Consistency, SkipDeleted,
// Columns, PageSize, Concurrency, Ranges, ResumeFrom and OnProgress (the
// ScanOptions); Repo.Count takes the List options (refusing After,
// Reversed and Columns).
//
// Read is Get, GetMany, GetStatic and Lookup.Find; List is List,
// Lookup.FindAll, Index.Find, Index.Range, the Contains reads,
// Index.Nearest (a Read) and Raw.Query (the index reads and Raw.Query
// refuse Equal, From, To and Reversed, as the lookups do);
// Write is Save, ForceSave, Update, SaveAll and SaveStatic; Insert is
// SaveIfNotExists (a conditional write, which the servers refuse a client
// timestamp); Delete is Delete, HardDelete, ForceDelete, SoftDelete (whose
// TTL is the table's), DeleteAll and Raw.Exec (which refuses a Timestamp:
// the statement says its own USING); Counter
// is Counter.Increment and Decrement (the servers refuse both a timestamp
// and a TTL on a counter update); Patch is Repo.Patch (a Timestamp only
// with Upsert and no condition); Range is DeleteRange (PageSize, After and
// Reversed compile for it and are refused, as are FromTuple and ToTuple,
// Columns and WithTimes); DeleteIf takes the Delete
// options (and refuses a Timestamp: it is conditional). What depends on
// the table, not the call (a versioned table's writes are conditional and
// refuse a Timestamp), is checked when the call is made, with a
// *kerrors.ArgumentError.
package kstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
)

// DefaultMaxBatchBytes is Cassandra 5.0's default batch_size_fail_threshold.
const DefaultMaxBatchBytes = 50 << 10

// Store holds a driver and the defaults shared by every table's Repo. It
// is safe for concurrent use.
type Store struct {
	d         adapter.Driver
	ks        *kandra.Keyspace
	keyspace  string // ks.Name(), which qualifies every table in the statements
	cfg       config
	pool      *workers // the EVENTUAL writes' workers and queue
	closeOnce sync.Once
	// calls is the calls in progress times two, plus one once Close has
	// begun: one atomic add lets a call in and counts it, with no lock
	// (see enter).
	calls      atomic.Int64
	drained    chan struct{} // closed once Close has begun and no call is in progress
	drainOnce  sync.Once
	wg         sync.WaitGroup // the EVENTUAL writes admitted and not yet done
	done       doneClaims     // the claim tokens of writes that landed (lookup.go)
	background context.Context
	keys       *cursorKeys // the keys of sealed cursors (seal.go)
}

type config struct {
	consistency kandra.Consistency
	serial      kandra.Consistency
	observer    kandra.Observer
	listener    kandra.EventListener
	concurrency int
	queue       int
	maxBatch    int
	now         func() time.Time
	ahead       time.Duration
	grace       time.Duration
	cursorKey   []byte
}

// Option configures a Store.
type Option func(*config)

// WithConsistency sets the default consistency, used when neither the call
// nor the table gives one (default LOCAL_QUORUM).
func WithConsistency(c kandra.Consistency) Option { return func(o *config) { o.consistency = c } }

// WithSerialConsistency sets the default serial consistency of
// lightweight transactions (default SERIAL). It must be a serial level.
func WithSerialConsistency(c kandra.Consistency) Option { return func(o *config) { o.serial = c } }

// WithObserver sets the observer of every statement, batch and EVENTUAL
// write the store sends (see kandra.Observer; the module
// github.com/kandra-go/kandra/otelkandra is one, for OpenTelemetry). It is
// called with the context it gives the driver. It is the one hook for
// traces and metrics: the Observation its End gets carries the table,
// the operation, the duration, the rows and the error of each.
func WithObserver(ob kandra.Observer) Option { return func(o *config) { o.observer = ob } }

// WithEventListener sets the listener of asynchronous failures.
func WithEventListener(l kandra.EventListener) Option { return func(o *config) { o.listener = l } }

// WithEventualConcurrency bounds the EVENTUAL lookup writes in flight
// (default 16).
func WithEventualConcurrency(n int) Option { return func(o *config) { o.concurrency = n } }

// WithEventualQueue sets how many EVENTUAL lookup writes may wait for a
// worker beyond those in flight (default DefaultEventualQueue). A call that
// finds the queue full waits for room; with 0 it waits for a free worker.
func WithEventualQueue(n int) Option { return func(o *config) { o.queue = n } }

// WithMaxBatchBytes sets the batch limit (default DefaultMaxBatchBytes);
// a negative value turns the check off.
func WithMaxBatchBytes(n int) Option { return func(o *config) { o.maxBatch = n } }

// WithMaxTimestampAhead sets how far past the store's clock a Timestamp
// option may lie (default DefaultMaxTimestampAhead). A write carrying a
// timestamp in the future wins over every later write of the same cells
// until that time comes, so a wrong unit (nanoseconds for microseconds)
// would make every later Save and Delete of the row do nothing.
func WithMaxTimestampAhead(d time.Duration) Option { return func(o *config) { o.ahead = d } }

// WithClaimGrace sets how old a unique lookup's claim must be before
// another entity may take it over when its holder does not have the value
// (default DefaultClaimGrace): the time a writer has between claiming a
// value and its primary write. A writer whose claims take longer than half
// of it gives them up and fails instead of writing.
func WithClaimGrace(d time.Duration) Option { return func(o *config) { o.grace = d } }

// WithCursorKey sets the secret (at least MinCursorKeyBytes random bytes)
// under which the store seals the cursors that would otherwise show a
// Sensitive value: those of a query that binds one (a List of a Sensitive
// partition, a FindAll by a Sensitive lookup value, an index read by a
// Sensitive column) or that pages a table whose primary key has a
// Sensitive column (the server's page state holds the last row's key).
// Such a cursor's page state is encrypted and authenticated (AES-GCM), and
// its query fingerprint is a keyed hash, so its String tells nothing of
// the values. A sealed cursor resumes only in a store with the same
// key: without WithCursorKey, New draws a random key, and the cursor
// resumes only in the store that made it (not after a restart, nor on
// another instance behind the same load balancer); give every instance
// the same key, kept as secret as any credential, for cursors that travel
// between them. Other cursors are not sealed and resume anywhere.
func WithCursorKey(key []byte) Option {
	return func(o *config) { o.cursorKey = append([]byte{}, key...) }
}

// WithClock sets the clock used for CreatedAt, UpdatedAt and time versions
// (default time.Now), for tests.
func WithClock(now func() time.Time) Option { return func(o *config) { o.now = now } }

// New returns the store of keyspace ks on d. Every statement names its
// table qualified with the keyspace, and the checks that depend on the
// servers use the keyspace's targets (ks.Targets): a TTL whose expiry
// passes 2038-01-19 is refused only when they include kandra.Cassandra5
// (see kandra.MaxWriteTTL). A nil d or ks is a programmer error: New
// panics.
func New(d adapter.Driver, ks *kandra.Keyspace, opts ...Option) (*Store, error) {
	if d == nil || ks == nil {
		panic("kandra/kstore: New: nil Driver or Keyspace")
	}
	cfg := config{consistency: kandra.ConsistencyLocalQuorum, serial: kandra.ConsistencySerial,
		concurrency: 16, queue: DefaultEventualQueue, maxBatch: DefaultMaxBatchBytes, now: time.Now,
		ahead: DefaultMaxTimestampAhead, grace: DefaultClaimGrace}
	for _, o := range opts {
		o(&cfg)
	}
	if !cfg.consistency.IsValid() {
		return nil, &kerrors.QueryError{Message: "invalid default consistency " + cfg.consistency.String()}
	}
	if !cfg.serial.IsSerial() {
		return nil, &kerrors.QueryError{Message: "default serial consistency " + cfg.serial.String() + " is not SERIAL or LOCAL_SERIAL"}
	}
	if cfg.grace <= 0 {
		return nil, &kerrors.QueryError{Message: "WithClaimGrace: the grace must be positive, not " + cfg.grace.String()}
	}
	if cfg.cursorKey != nil && len(cfg.cursorKey) < MinCursorKeyBytes {
		return nil, &kerrors.QueryError{Message: fmt.Sprintf("WithCursorKey: a key of %d bytes; give at least %d random bytes", len(cfg.cursorKey), MinCursorKeyBytes)}
	}
	if cfg.ahead < 0 {
		return nil, &kerrors.QueryError{Message: "WithMaxTimestampAhead: a negative duration " + cfg.ahead.String()}
	}
	if cfg.concurrency < 1 {
		cfg.concurrency = 1
	}
	if cfg.queue < 0 {
		cfg.queue = 0
	}
	keys, err := newCursorKeys(cfg.cursorKey)
	if err != nil {
		return nil, &kerrors.QueryError{Message: "the random cursor key (see WithCursorKey)", Cause: err}
	}
	return &Store{d: d, ks: ks, keyspace: ks.Name(), cfg: cfg, pool: newWorkers(cfg.concurrency, cfg.queue),
		drained: make(chan struct{}), background: context.Background(), keys: keys}, nil
}

// Keyspace is the keyspace given to New.
func (r *Store) Keyspace() *kandra.Keyspace { return r.ks }

// Close stops accepting calls (a later call fails with an error matching
// kerrors.ErrClosed, sending nothing), then waits, until ctx is done, for the calls
// in progress and for every EVENTUAL lookup write they queue. When it
// returns nil, nothing more is sent through the driver; it returns ctx's
// error if the work did not finish in time (it then goes on in the
// background). It does not close the driver's session: close it after.
func (r *Store) Close(ctx context.Context) error {
	if r.calls.Or(1)>>1 == 0 {
		r.drainOnce.Do(func() { close(r.drained) })
	}
	done := make(chan struct{})
	go func() {
		<-r.drained
		// Every call has returned, and each counted its EVENTUAL writes
		// in wg before it did; no call can start any more.
		r.wg.Wait()
		r.closeOnce.Do(r.pool.close) // let the idle workers end
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// enter counts a call in, unless Close has begun; a call that entered
// must leave. Counting first and then looking at the closed bit, in one
// atomic add, is what makes Close see every call that got in.
func (r *Store) enter() bool {
	if r.calls.Add(2)&1 != 0 {
		r.leave()
		return false
	}
	return true
}

// leave counts a call out; the last one out after Close began lets Close
// go on.
func (r *Store) leave() {
	if r.calls.Add(-2) == 1 {
		r.drainOnce.Do(func() { close(r.drained) })
	}
}

// watch is a statement (or batch) being sent: its observation, when an
// observer is set, and its start, when anyone wants its duration.
type watch struct {
	o     *kandra.Observation
	start time.Time
}

// observe starts watching a statement (or a batch of n) of op on table,
// and returns the context to send it with. With neither an observer nor
// a recorder it costs two nil checks: no clock reading, no allocation.
func (r *Store) observe(ctx context.Context, table, op string, kind kandra.StatementKind, cql string, n int, cons kandra.Consistency, background bool) (context.Context, watch) {
	if r.cfg.observer == nil { // here, so that the common case inlines into every call
		return ctx, watch{}
	}
	return r.cfg.observe(ctx, r.keyspace, table, op, kind, cql, n, cons, background)
}

// observed ends w: rows read, and the driver's error.
func (r *Store) observed(ctx context.Context, w watch, table, op string, rows int, err error) {
	if w.o != nil {
		r.cfg.observed(ctx, w, table, op, rows, err)
	}
}

func (c *config) observe(ctx context.Context, keyspace, table, op string, kind kandra.StatementKind, cql string, n int, cons kandra.Consistency, background bool) (context.Context, watch) {
	if c.observer == nil {
		return ctx, watch{}
	}
	w := watch{o: &kandra.Observation{Keyspace: keyspace, Table: table, Operation: op, Kind: kind, Statement: cql,
		Statements: n, Consistency: cons, Attempt: 1, Background: background}}
	ctx = c.observer.Start(ctx, w.o)
	w.start = time.Now()
	return ctx, w
}

func (c *config) observed(ctx context.Context, w watch, table, op string, rows int, err error) {
	if w.o == nil {
		return
	}
	w.o.Duration, w.o.Rows, w.o.Err = time.Since(w.start), rows, err
	c.observer.End(ctx, w.o)
}

// eventualFailed reports an asynchronous failure to the listener (the
// observer saw the failed write itself).
func (r *Store) eventualFailed(lookupTable string, entity any, err error) {
	if r.cfg.listener != nil {
		r.cfg.listener.OnEventualWriteFailed(lookupTable, entity, err)
	}
}

// queryErr is the *kerrors.QueryError of msg and cause. A cause that
// matches kerrors.ErrUnknownOutcome (the adapter sent a write that must not
// be sent twice, and lost its answer) gets the way out in the message.
func queryErr(msg string, cause error) error {
	if errors.Is(cause, kerrors.ErrUnknownOutcome) {
		msg += ": its answer was lost, so it may have applied; it is not sent again: read the entity at SERIAL consistency (kstore.Consistency(kandra.ConsistencySerial)) to learn whether it did before writing again (a counter cannot tell: count the update as possibly applied)"
	}
	return &kerrors.QueryError{Message: msg, Cause: cause}
}
