package kstore

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
	"github.com/kandra-go/kandra/internal/lookupval"
	"github.com/kandra-go/kandra/kerrors"
)

// Repo reads and writes the entities of one table. Make one per table with
// NewRepo and share it; it is safe for concurrent use.
type Repo[T any] struct {
	rt       *Store
	t        *kandra.Table[T]
	ts       *kandra.TableSchema
	st       *catalog.Table
	typeName string
	gen      []*kandra.ColumnSchema
	key      []*kandra.ColumnSchema
	// partition and clustering are the key's two parts; lonePartition is a
	// partition key of one column, which may not be empty.
	partition     []*kandra.ColumnSchema
	clustering    []*kandra.ColumnSchema
	lonePartition bool
	checked       []*kandra.ColumnSchema // the non-key columns whose values are checked (see checkValues)
	batch         []int                  // indices of BATCH lookups
	eventual      []int                  // indices of EVENTUAL lookups
	unique        []int                  // indices of UNIQUE lookups
	lookups       []*kandra.LookupTableSchema
	inserts       sync.Pool // *eventualInsert[T], reused once their writes are done
}

// NewRepo builds the statements of t (once) and returns its repository. A
// table that is not in the store's keyspace is a *kandra.SchemaError: its
// keyspace rules were never checked, and its statements would name a
// table the keyspace's migration does not create.
func NewRepo[T any](rt *Store, t *kandra.Table[T]) (*Repo[T], error) {
	if rt == nil || t == nil {
		panic("kandra/kstore: NewRepo: nil Store or Table")
	}
	if !rt.ks.Has(t) {
		return nil, &kandra.SchemaError{Entity: t.Schema().EntityType().String(), Rule: kandra.RuleBinding,
			Detail: "table " + t.Name() + " is not in keyspace " + rt.keyspace + "; give it to the kandra.NewKeyspace the store was built from"}
	}
	st, err := catalog.Build(t.Schema(), rt.keyspace)
	if err != nil {
		return nil, err
	}
	ts := t.Schema()
	r := &Repo[T]{rt: rt, t: t, ts: ts, st: st, typeName: ts.EntityType().String(), key: ts.PrimaryKey(), lookups: ts.LookupTables(),
		partition: ts.PartitionKeys(), clustering: ts.ClusteringKeys()}
	r.lonePartition = len(r.partition) == 1
	for _, c := range ts.Columns() {
		if c.ChecksValues() && c.Role() == kandra.RegularColumn {
			r.checked = append(r.checked, c)
		}
		if _, ok := c.GeneratedUUID(); ok {
			r.gen = append(r.gen, c)
		}
	}
	for i, l := range ts.LookupTables() {
		switch l.Consistency() {
		case kandra.LookupBatch:
			r.batch = append(r.batch, i)
		case kandra.LookupEventual:
			r.eventual = append(r.eventual, i)
		default:
			r.unique = append(r.unique, i)
		}
	}
	return r, nil
}

// MustNewRepo is NewRepo that panics on error.
func MustNewRepo[T any](rt *Store, t *kandra.Table[T]) *Repo[T] {
	r, err := NewRepo(rt, t)
	if err != nil {
		panic(err)
	}
	return r
}

// Table is the repository's table.
func (r *Repo[T]) Table() *kandra.Table[T] { return r.t }

// ---------------------------------------------------------------------------
// Consistency and execution.

// writeCons resolves a write's consistency (the call's, the table's, the
// runtime's) and checks it for the kind of write.
func (r *Repo[T]) writeCons(op string, c *call) (kandra.Consistency, error) {
	cons := r.rt.cfg.consistency
	if c.hasCons {
		cons = c.cons
	} else if v, ok := r.ts.WriteConsistency(); ok {
		cons = v
	}
	return cons, r.checkConsistency(op, cons, false, r.ts.IsCounterTable())
}

// readCons resolves a read's consistency and checks it.
func (r *Repo[T]) readCons(op string, c *call) (kandra.Consistency, error) {
	cons := r.rt.cfg.consistency
	if c.hasCons {
		cons = c.cons
	} else if v, ok := r.ts.ReadConsistency(); ok {
		cons = v
	}
	return cons, r.checkConsistency(op, cons, true, false)
}

// serialCons resolves the serial consistency of a call's lightweight
// transactions (its own, or the runtime's).
func (r *Repo[T]) serialCons(op string, c *call) (kandra.Consistency, error) {
	s := r.rt.cfg.serial
	if c.hasSerial {
		s = c.serial
	}
	if !s.IsSerial() {
		return 0, r.argErr(op, "SerialConsistency", s.String()+" is not SERIAL or LOCAL_SERIAL")
	}
	return s, nil
}

// begin starts call op: it refuses a nil or done context and a closed
// runtime. When it returns nil, the call is counted in (Close waits for
// it) and must end with r.rt.leave().
func (r *Repo[T]) begin(ctx context.Context, op string) error {
	if ctx == nil {
		return r.argErr(op, "ctx", "a nil context.Context (pass context.Background() or the request's context)")
	}
	if !r.rt.enter() {
		return queryErr(op+" on "+r.ts.Name()+": the runtime is closed", kerrors.ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		r.rt.leave()
		return queryErr(op+" on "+r.ts.Name()+": context done", err)
	}
	return nil
}

func (r *Repo[T]) exec(ctx context.Context, op string, q *adapter.Query) (bool, error) {
	return r.execAs(ctx, op, q, false)
}

// execAs is exec, of a background write (an EVENTUAL lookup row) or not.
func (r *Repo[T]) execAs(ctx context.Context, op string, q *adapter.Query, background bool) (bool, error) {
	table := q.Statement.TableName()
	octx, w := r.rt.observe(ctx, table, op, kandra.KindStatement, q.Statement.CQL(), 1, q.Consistency, background)
	applied, err := r.rt.d.Exec(octx, q)
	if w.o != nil && q.Statement.IsConditional() {
		w.o.Conditional, w.o.Applied = true, applied && err == nil
	}
	r.rt.observed(octx, w, table, op, 0, err)
	if err != nil {
		return false, queryErr(op+" on "+q.Statement.TableName()+" failed ("+q.Statement.CQL()+")", err)
	}
	return applied, nil
}

// batchExec runs entries as one LOGGED BATCH (a single entry alone). b,
// if not nil, is the Batch to fill (a call's scratch).
func (r *Repo[T]) batchExec(ctx context.Context, op string, cons kandra.Consistency, entries []*adapter.Query, b *adapter.Batch) error {
	if len(entries) == 1 {
		entries[0].Consistency = cons
		_, err := r.exec(ctx, op, entries[0])
		return err
	}
	if err := r.checkBatchSize(op, entries); err != nil {
		return err
	}
	if b == nil {
		b = new(adapter.Batch)
	}
	b.Entries, b.Consistency = entries, cons
	octx, w := r.rt.observe(ctx, r.ts.Name(), op, kandra.KindBatch, entries[0].Statement.CQL(), len(entries), cons, false)
	err := r.rt.d.Batch(octx, b)
	r.rt.observed(octx, w, r.ts.Name(), op, 0, err)
	if err != nil {
		kind := "LOGGED"
		if b.Unlogged {
			kind = "UNLOGGED"
		}
		if strings.Contains(err.Error(), "Batch too large") {
			// Past the estimate's lower bound but over the server's
			// batch_size_fail_threshold: refused whole, nothing written.
			err = fmt.Errorf("%w: the server refused the batch (its batch_size_fail_threshold; nothing was written): %w", kerrors.ErrBatchTooLarge, err)
		}
		return queryErr(op+" on "+r.ts.Name()+": "+kind+" BATCH of "+fmt.Sprint(len(entries))+" statements failed", err)
	}
	return nil
}

// checkBatchSize refuses a LOGGED BATCH of entries over the batch limit.
// The size is a lower bound of the server's (see batchsize.go), so that
// a refusal here is one the server would make, after sending.
func (r *Repo[T]) checkBatchSize(op string, entries []*adapter.Query) error {
	max := r.rt.cfg.maxBatch
	if max < 0 || len(entries) < 2 {
		return nil
	}
	sz := batchSizer{cells: r.rt.ks.Targets()&^(kandra.Cassandra5|kandra.Cassandra5Latest) == 0}
	size := 0
	for _, e := range entries {
		var lookupKey *kandra.ColumnSchema // nil: a row of r's own table
		if t := e.Statement.TableName(); t != r.ts.Name() {
			for _, l := range r.lookups {
				if l.Name() == t {
					lookupKey = l.IndexColumn()
				}
			}
		}
		if size += estimateSize(&sz, e.Statement, e.Values, lookupKey); size > max {
			return queryErr(fmt.Sprintf("%s on %s: the batch of the rows and their BATCH lookup rows holds at least %d bytes of values, over the %d-byte batch limit; nothing was written (make the large lookups EVENTUAL, shrink the rows, write fewer at once, or raise WithMaxBatchBytes with the server's batch_size_fail_threshold)",
				op, r.ts.Name(), size, max), kerrors.ErrBatchTooLarge)
		}
	}
	return nil
}

// estimateSize is a lower bound of the bytes the server counts of one
// statement of a batch against its batch limit (see batchsize.go): the
// column values st binds (values), every shape of value in full (a
// collection's elements, a user-defined type's fields, through pointers),
// without the partition key, which the server does not count: r's
// partition key columns in a row of r's table, the indexed column
// lookupKey in a lookup table's row (whose other columns are its
// clustering key); nor static columns, one cell per partition however many
// rows write it. A string or a blob is measured by its length; another
// value by its stored form (kandra.ColumnSchema.AppendStored).
func estimateSize(sz *batchSizer, st *adapter.Statement, values []any, lookupKey *kandra.ColumnSchema) int {
	n := 0
	for i, v := range values {
		if i >= st.NumParams() {
			break
		}
		p := st.Param(i)
		if p.Kind != adapter.ParamColumn || p.Column == nil {
			continue // a TTL or a timestamp: within the cells' overhead
		}
		col := p.Column
		if lookupKey != nil && col == lookupKey || lookupKey == nil && (col.IsPartitionKey() || col.IsStatic()) {
			// A static cell is one per partition: the server counts it once
			// however many of the batch's rows write it.
			continue
		}
		n += sz.valueBytes(col, v, lookupKey == nil && !col.IsClusteringKey())
	}
	return n
}

// ---------------------------------------------------------------------------
// Stamping.

func (r *Repo[T]) now() time.Time { return r.rt.cfg.now() }

// truncate gives t the precision the column stores, in UTC, as a read
// returns it (TIMESTAMP: milliseconds; DATE: days).
func truncate(c *kandra.ColumnSchema, t time.Time) time.Time {
	t = t.UTC()
	switch c.Type().Name() {
	case "DATE":
		return t.Truncate(24 * time.Hour)
	default:
		return t.Truncate(time.Millisecond)
	}
}

func (r *Repo[T]) timeField(c *kandra.ColumnSchema, e *T) *time.Time {
	p, _ := c.Pointer(e)
	return p.(*time.Time)
}

// stampInsert fills generated ids, CreatedAt (when zero), UpdatedAt and the
// initial version (when zero).
func (r *Repo[T]) stampInsert(e *T) {
	for _, c := range r.gen {
		p, _ := c.Pointer(e)
		id := p.(*uuid.UUID)
		if *id == (uuid.UUID{}) {
			s, _ := c.GeneratedUUID()
			*id = s.New()
		}
	}
	created, updated, version := r.ts.CreatedAtColumn(), r.ts.UpdatedAtColumn(), r.ts.VersionColumn()
	if created == nil && updated == nil && version == nil {
		return // nothing to stamp: no clock reading (tens of ns a call)
	}
	var now time.Time
	clock := func() time.Time {
		if now.IsZero() {
			now = r.now()
		}
		return now
	}
	if c := created; c != nil {
		if p := r.timeField(c, e); p.IsZero() {
			*p = truncate(c, clock())
		}
	}
	if c := updated; c != nil {
		*r.timeField(c, e) = truncate(c, clock())
	}
	if c := version; c != nil {
		p, _ := c.Pointer(e)
		switch v := p.(type) {
		case *int64:
			if *v == 0 {
				*v = 1
			}
		case *time.Time:
			if v.IsZero() {
				*v = truncate(c, clock())
			}
		}
	}
}

// keepStamps saves e's UpdatedAt and version, for stamps.restore (a
// value, not a closure: Update would allocate one on every call).
func (r *Repo[T]) keepStamps(e *T) stamps {
	var s stamps
	if col := r.ts.UpdatedAtColumn(); col != nil {
		s.at = r.timeField(col, e)
		s.atWas = *s.at
	}
	if col := r.ts.VersionColumn(); col != nil {
		switch p, _ := col.Pointer(e); v := p.(type) {
		case *int64:
			s.verInt, s.intWas = v, *v
		case *time.Time:
			s.verTime, s.timeWas = v, *v
		}
	}
	return s
}

// stamps are an entity's UpdatedAt and version as keepStamps found them.
type stamps struct {
	at, verTime    *time.Time
	atWas, timeWas time.Time
	verInt         *int64
	intWas         int64
}

// restore puts the stamps back.
func (s *stamps) restore() {
	if s.at != nil {
		*s.at = s.atWas
	}
	if s.verInt != nil {
		*s.verInt = s.intWas
	}
	if s.verTime != nil {
		*s.verTime = s.timeWas
	}
}

// nextVersion sets new's version to the one after old's.
func (r *Repo[T]) nextVersion(old, nw *T) {
	c := r.ts.VersionColumn()
	po, _ := c.Pointer(old)
	pn, _ := c.Pointer(nw)
	switch v := po.(type) {
	case *int64:
		*pn.(*int64) = *v + 1
	case *time.Time:
		next := truncate(c, r.now())
		if !next.After(*v) {
			next = v.Add(time.Millisecond)
		}
		*pn.(*time.Time) = next
	}
}

// ---------------------------------------------------------------------------
// Building queries.

func using(c *call) catalog.Using {
	var u catalog.Using
	if c.hasTTL {
		u |= catalog.UsingTTL
	}
	if c.hasTS {
		u |= catalog.UsingTimestamp
	}
	return u
}

// bindWrite binds a statement whose markers are [ttl] [timestamp]
// columns... [expected...] from e (and old for the expected values).
func (r *Repo[T]) bindWrite(s *adapter.Statement, c *call, e, old *T) []any {
	return r.appendWrite(make([]any, 0, s.NumParams()), s, c, e, old)
}

// appendWrite is bindWrite appending to vals.
func (r *Repo[T]) appendWrite(vals []any, s *adapter.Statement, c *call, e, old *T) []any {
	for i := 0; i < s.ColumnsOffset(); i++ {
		vals = appendParam(vals, s.Param(i), c)
	}
	vals = catalog.AppendColumns(r.t, s, e, vals)
	n := len(vals)
	for i := n; i < s.NumParams(); i++ {
		p := s.Param(i)
		if p.Kind == adapter.ParamExpected {
			vals = catalog.AppendExpected(r.t, s, old, vals)
			break
		}
		vals = appendParam(vals, p, c)
	}
	return vals
}

func appendParam(vals []any, p adapter.Param, c *call) []any {
	switch p.Kind {
	case adapter.ParamTTL:
		return append(vals, int(c.ttl/time.Second))
	case adapter.ParamTimestamp:
		return append(vals, c.ts)
	case adapter.ParamLowerBound:
		return append(vals, c.lower)
	case adapter.ParamUpperBound:
		return append(vals, c.upper)
	case adapter.ParamLimit:
		return append(vals, c.pageSize)
	}
	panic("kandra/kstore: internal error: unexpected marker " + p.String())
}

func (r *Repo[T]) lookupValue(i int, e *T) any {
	p, _ := r.lookups[i].IndexColumn().Pointer(e)
	return p
}

// isEmpty is lookupval.Empty: a value with no lookup row.
func isEmpty(p any) bool { return lookupval.Empty(p) }

// emptyAt is isEmpty for the value p of lookup i, and also a value its
// column's CQL type sends as null (ColumnSchema.SentAsNull: the zero
// netip.Addr, the zero UUID in a TIMEUUID).
func (r *Repo[T]) emptyAt(i int, p any) bool {
	return isEmpty(p) || r.lookups[i].IndexColumn().SentAsNull(p)
}

// ---------------------------------------------------------------------------
// Writes.

// Save validates e, stamps it (generated ids that are zero, CreatedAt when
// zero, UpdatedAt, the initial version when zero; times truncated to the
// column's precision) and upserts it with its BATCH lookup rows in one
// LOGGED BATCH, then writes its EVENTUAL lookup rows asynchronously. Its
// unique lookup values are claimed first: a value another live entity
// holds is an *kerrors.UniqueError, and nothing is written. A validation
// failure is a *kerrors.ValidationError and nothing is written; a refused
// Save leaves e as it was. Save does not know e's earlier values: a value
// e left stays in its lookup (reads skip it; Update moves values).
// Options: TTL, Timestamp, Consistency, SerialConsistency. Save on a
// counter table is a *kerrors.QueryError.
//
// On a table with a Version, Save never overwrites another version: an
// entity with a zero version is written only if the row of its key has no
// version (there is none, or it was written before the table had a
// Version: a Get of it reads version zero), and one with a version only if
// the row still has that version; then e gets the next one. Each is a
// lightweight transaction after the BATCH lookup rows (see versioned.go).
// A stale copy, or a new entity whose key has a versioned row, is an
// *kerrors.OptimisticLockError, the row is not written and e is left as it
// was; SaveIfNotExists refuses any existing row. A Timestamp is refused
// on such a table (its writes are conditional); ForceSave writes without
// the check.
func (r *Repo[T]) Save(ctx context.Context, e *T, opts ...WriteOption) error {
	return r.save(ctx, "Save", e, opts, false)
}

// ForceSave is Save without the version check of a versioned table: it
// upserts e as it is (its version stamped to the first one when zero),
// overwriting whatever version the row has, by an UPDATE (ForceUpdate, in
// the LOGGED BATCH of its lookup rows), so that it leaves no row marker. It
// is the seed's updateForce, for repairs and imports; on a table without a
// Version it is Save.
func (r *Repo[T]) ForceSave(ctx context.Context, e *T, opts ...WriteOption) error {
	return r.save(ctx, "ForceSave", e, opts, true)
}

func (r *Repo[T]) save(ctx context.Context, op string, e *T, opts []WriteOption, force bool) error {
	if err := r.begin(ctx, op); err != nil {
		return err
	}
	defer r.rt.leave()
	if r.ts.IsCounterTable() {
		return queryErr(r.ts.Name()+" is a counter table: use a Counter's Increment and Decrement, not Save", nil)
	}
	if err := r.checkEntity(op, "entity", e); err != nil {
		return err
	}
	if err := r.t.Validate(e); err != nil {
		return err
	}
	sc := getScratch(opts)
	defer sc.release()
	c := &sc.c
	cons, err := r.writeCons(op, c)
	if err != nil {
		return err
	}
	if err := r.checkWrite(op, c); err != nil {
		return err
	}
	if err := r.checkKey(op, e, r.key, true); err != nil {
		return err
	}
	if err := r.checkValues(e); err != nil {
		return err
	}
	if !force && r.ts.VersionColumn() != nil {
		return r.saveVersioned(ctx, e, c, cons)
	}
	// The statements bind e's field addresses, so they are built (and the
	// batch limit checked) before the stamps are written into e: a refusal
	// leaves e as it was.
	ts := insertTS(c)
	ins := r.st.Insert(using(c))
	if r.ts.VersionColumn() != nil {
		// ForceSave writes a versioned row by an UPDATE too, so that it
		// leaves no row marker (see versioned.go).
		ins = r.st.ForceUpdate(using(c))
	}
	row := sc.query(ins)
	row.Values = r.appendWrite(sc.values(ins.NumParams()), ins, c, e, nil)
	for _, i := range r.batch {
		if !r.emptyAt(i, r.lookupValue(i, e)) { // the stamps never make a value empty
			r.lookupInsertIn(sc, i, e, ts)
		}
	}
	if err := r.checkBatchSize(op, sc.entries); err != nil {
		return err
	}
	var was T
	if len(r.unique) > 0 {
		was = *e // put back when a claim refuses the write
	}
	r.stampInsert(e)
	var evTS int64
	if len(r.eventual) > 0 {
		evTS = lookupTS(c) // before the write: see eventualInserts
	}
	var claimed *claims[T]
	if len(r.unique) > 0 {
		claimed, err = r.claimAll(ctx, op, e, nil, c, cons)
		if err == nil {
			err = r.fresh(ctx, op, claimed, c, cons)
		}
		if err != nil {
			*e = was
			return err
		}
	}
	if err := r.batchExec(ctx, OpSave, cons, sc.entries, &sc.batch); err != nil {
		return err // the claims stay: the batch may have landed
	}
	r.landed(claimed)
	r.eventualInserts(ctx, OpSave, cons, e, evTS)
	return nil
}

// eventualIfUnknown queues e's EVENTUAL lookup rows after an insert whose
// answer was lost (err matches ErrUnknownOutcome): if it applied, they
// are due, and nothing else would write them; if it did not, they point
// to an entity that does not hold their values, which reads skip.
func (r *Repo[T]) eventualIfUnknown(ctx context.Context, op string, cons kandra.Consistency, e *T, ts int64, err error) {
	if errors.Is(err, kerrors.ErrUnknownOutcome) {
		r.eventualInserts(ctx, op, cons, e, ts)
	}
}

// eventualInserts writes the EVENTUAL lookup rows of a copy of e, at
// timestamp ts: the call's, taken before the write, so that a later move
// of the value wins over the insert even when the insert runs after it.
func (r *Repo[T]) eventualInserts(ctx context.Context, op string, cons kandra.Consistency, e *T, ts int64) {
	n := 0
	for _, i := range r.eventual {
		if !r.emptyAt(i, r.lookupValue(i, e)) {
			n++
		}
	}
	if n == 0 {
		return
	}
	w, _ := r.inserts.Get().(*eventualInsert[T])
	if w == nil {
		w = &eventualInsert[T]{r: r}
	}
	w.op, w.cons, w.ts, w.e = op, cons, ts, *e
	// Counted before the first write is queued: a worker may finish it
	// before the next is. Once the last is queued, w may already be back in
	// the pool: the loop reads only e (the caller's, unchanged during the
	// call) and stops.
	w.pending.Store(int32(n))
	for _, i := range r.eventual {
		if r.emptyAt(i, r.lookupValue(i, e)) {
			continue
		}
		r.rt.asyncWrite(ctx, r.lookups[i].Name(), &w.e, w, i)
		if n--; n == 0 {
			return
		}
	}
}

// eventualMoves writes, for an Update, the EVENTUAL lookup rows of
// lookups idx (every EVENTUAL one the Update touches) at timestamp ts:
// for each, old's row is deleted if the value changed, then nw's is
// written, on the workers, from copies of both.
func (r *Repo[T]) eventualMoves(ctx context.Context, cons kandra.Consistency, old, nw *T, idx []int, ts int64) {
	w, _ := r.inserts.Get().(*eventualInsert[T])
	if w == nil {
		w = &eventualInsert[T]{r: r}
	}
	w.op, w.cons, w.ts, w.e, w.old, w.moved = OpUpdate, cons, ts, *nw, *old, 0
	for _, i := range idx {
		if ov := r.lookupValue(i, old); !r.sameLookup(i, old, nw) && !r.emptyAt(i, ov) {
			w.moved |= 1 << i
		}
	}
	w.pending.Store(int32(len(idx)))
	for k, i := range idx {
		r.rt.asyncWrite(ctx, r.lookups[i].Name(), &w.e, w, i)
		if k == len(idx)-1 {
			return // w may be back in the pool: see eventualInserts
		}
	}
}

// eventualInsert is the EVENTUAL lookup rows of one write: a copy of the
// entity as it was when the call returned, shared by its lookups. It goes
// back to the Repo's pool when its last write is done, unless a write was
// not started or failed: the listener was then given &e, which must stay
// the entity it was told about.
type eventualInsert[T any] struct {
	r       *Repo[T]
	op      string
	cons    kandra.Consistency
	ts      int64        // the rows' write timestamp
	pending atomic.Int32 // writes not yet done
	kept    atomic.Bool  // a listener has &e: never reused
	e       T
	// An Update's moves: bit i says lookup i's value changed, and old's
	// row of it is deleted (at ts) before e's is written.
	moved uint64
	old   T
}

// maxMoves is the lookups an eventualInsert can move (the bits of moved);
// an Update of a table with more moves its EVENTUAL rows by closures.
const maxMoves = 64

// write deletes old's row of lookup i if it moved, and inserts e's (if
// e has a value), on a worker.
func (w *eventualInsert[T]) write(ctx context.Context, i int) error {
	sc := getScratch[option](nil)
	defer sc.release()
	if w.moved&(1<<i) != 0 {
		q := w.r.lookupDeleteIn(sc, i, &w.old, w.ts)
		q.Consistency = w.cons
		if _, err := w.r.execAs(ctx, w.op, q, true); err != nil {
			return err
		}
	}
	if w.r.emptyAt(i, w.r.lookupValue(i, &w.e)) {
		return nil // a move to no value: the old row is all there was to do
	}
	s := w.r.st.Lookup(i).Insert()
	if w.ts != noTS {
		s = w.r.st.Lookup(i).InsertAt()
	}
	q := sc.query(s)
	q.Values = catalog.AppendColumns(w.r.t, s, &w.e, sc.values(s.NumParams()))
	if w.ts != noTS {
		// The timestamp by reference, as the field values are: boxing the
		// int64 would allocate on every Save.
		q.Values = append(q.Values, &w.ts)
	}
	q.Consistency = w.cons
	_, err := w.r.execAs(ctx, w.op, q, true)
	return err
}

// done is called once per write, after write and after the listener has
// heard of its failure, or instead of write when it was not started.
func (w *eventualInsert[T]) done(reported bool) {
	if reported {
		w.kept.Store(true)
	}
	if w.pending.Add(-1) != 0 || w.kept.Load() {
		return
	}
	var zero T
	w.e, w.old, w.op, w.moved = zero, zero, "", 0 // hold no entity while pooled
	w.r.inserts.Put(w)
}

// scratch is the memory of one call's statements: the Query structs, one
// backing array for their values, the entries of a batch and the Batch,
// and the call's options. A Driver keeps nothing of a Query or a Batch
// after it returns (see Driver), so the call gives the scratch back to
// scratchPool when it returns and the next call reuses it.
type scratch struct {
	c       call
	qs      [4]adapter.Query
	nq      int
	more    []*adapter.Query // past len(qs)
	entries []*adapter.Query
	vals    []any
	batch   adapter.Batch
}

var scratchPool = sync.Pool{New: func() any { return &scratch{entries: make([]*adapter.Query, 0, 4), vals: make([]any, 0, 32)} }}

// getScratch takes a scratch from the pool, with opts applied to its call.
func getScratch[O option](opts []O) *scratch {
	sc := scratchPool.Get().(*scratch)
	for _, o := range opts {
		o.apply(&sc.c)
	}
	return sc
}

// release clears what the call put in sc (so that the pool holds no
// entity alive) and gives it back.
func (sc *scratch) release() {
	sc.c = call{}
	clear(sc.qs[:sc.nq])
	sc.nq = 0
	if sc.more != nil { // the stores are skipped when there is nothing to clear: each costs a write barrier
		sc.more = nil
	}
	clear(sc.entries)
	sc.entries = sc.entries[:0]
	clear(sc.vals)
	sc.vals = sc.vals[:0]
	if sc.batch.Entries != nil || sc.batch.Unlogged {
		sc.batch = adapter.Batch{}
	}
	scratchPool.Put(sc)
}

// query returns a cleared Query for s, appended to sc.entries.
func (sc *scratch) query(s *adapter.Statement) *adapter.Query {
	var q *adapter.Query
	if sc.nq < len(sc.qs) {
		q = &sc.qs[sc.nq]
		sc.nq++
	} else {
		q = new(adapter.Query)
		sc.more = append(sc.more, q)
	}
	q.Statement = s
	sc.entries = append(sc.entries, q)
	return q
}

// values returns an empty slice with room for n values, in sc's backing
// array. Its capacity is n, so that appending past n cannot overwrite the
// next statement's values.
func (sc *scratch) values(n int) []any {
	if cap(sc.vals)-len(sc.vals) < n {
		// The earlier statements keep the old array; release clears only
		// this one, and the old one is garbage once they are.
		sc.vals = make([]any, 0, max(2*cap(sc.vals), n))
	}
	l := len(sc.vals)
	sc.vals = sc.vals[:l+n]
	return sc.vals[l : l : l+n]
}

// SaveIfNotExists is Save as a lightweight transaction (INSERT ... IF NOT
// EXISTS). It reports whether the row was written. Its BATCH lookup rows
// are written before it, in one LOGGED BATCH (a conditional statement
// cannot join a multi-table batch); when the row was not written, they
// point to an entity that does not hold their values, and reads skip them.
// On a versioned table too it refuses any existing row, one without a
// version included (where a Save of a zero version would write).
// Options: TTL, Consistency, SerialConsistency (a Timestamp does not
// compile). A keyspace whose targets include kandra.Scylla2025Tablets
// refuses it with a *kerrors.ArgumentError before anything is sent: that
// server refuses lightweight transactions in a tablets keyspace.
func (r *Repo[T]) SaveIfNotExists(ctx context.Context, e *T, opts ...InsertOption) (bool, error) {
	const op = "SaveIfNotExists"
	if err := r.begin(ctx, op); err != nil {
		return false, err
	}
	defer r.rt.leave()
	if r.ts.IsCounterTable() {
		return false, queryErr(r.ts.Name()+" is a counter table: SaveIfNotExists is not possible", nil)
	}
	if t := r.rt.ks.Targets(); t&kandra.Scylla2025Tablets != 0 {
		return false, r.argErr(op, "the keyspace's Targets", "they include "+kandra.Scylla2025Tablets.String()+
			", which refuses the lightweight transaction SaveIfNotExists is (\"LWT is not yet supported with tablets\"; 2025.4 lifts it once every node has the lwt_with_tablets feature, 2026.1 always): "+
			"leave kandra.Scylla2025Tablets out of KeyspaceSpec.Targets (kandra then creates a vnodes keyspace on ScyllaDB 2025.x), or use Save")
	}
	if err := r.checkEntity(op, "entity", e); err != nil {
		return false, err
	}
	sc := getScratch(opts)
	defer sc.release()
	c := &sc.c
	if err := r.t.Validate(e); err != nil {
		return false, err
	}
	cons, err := r.writeCons(op, c)
	if err != nil {
		return false, err
	}
	serial, err := r.serialCons(op, c)
	if err != nil {
		return false, err
	}
	if err := r.checkWrite(op, c); err != nil {
		return false, err
	}
	if err := r.checkKey(op, e, r.key, true); err != nil {
		return false, err
	}
	if err := r.checkValues(e); err != nil {
		return false, err
	}
	was := *e // put back when the row is not written
	r.stampInsert(e)
	ts := insertTS(c)
	// On a versioned table too: an UPDATE IF version IN (null, 0) would
	// take over a live row without a version. The row marker it writes
	// does not outlive a soft delete, which rewrites it with its TTL (see
	// versioned.go).
	ins := r.st.InsertIfNotExists(using(c))
	row := sc.query(ins)
	row.Values, row.Consistency, row.SerialConsistency = r.appendWrite(sc.values(ins.NumParams()), ins, c, e, nil), cons, serial
	for _, i := range r.batch {
		if !r.emptyAt(i, r.lookupValue(i, e)) {
			r.lookupInsertIn(sc, i, e, ts)
		}
	}
	entries := sc.entries[1:] // the lookup rows
	// The size check is of the batch a Save of e would send (the row and
	// its lookup rows), so that what SaveIfNotExists writes a Save can
	// rewrite.
	if len(entries) > 0 {
		if err := r.checkBatchSize(op, sc.entries); err != nil {
			*e = was
			return false, err
		}
	}
	evTS := lookupTS(c)
	claimed, err := r.claimAll(ctx, op, e, nil, c, cons)
	if err != nil {
		*e = was
		return false, err
	}
	// The lookup rows before the LWT (see saveVersioned for why).
	if len(entries) > 0 {
		if err := r.batchExec(ctx, OpSaveIfNotExists, cons, entries, &sc.batch); err != nil {
			r.giveBack(ctx, op, claimed, c, cons) // the row was not sent
			*e = was
			return false, err
		}
	}
	if err := r.fresh(ctx, op, claimed, c, cons); err != nil {
		*e = was
		return false, err
	}
	applied, err := r.exec(ctx, OpSaveIfNotExists, row)
	if err != nil {
		r.eventualIfUnknown(ctx, OpSaveIfNotExists, cons, e, evTS, err)
		return false, err // the claims stay: the LWT may have applied
	}
	if !applied {
		r.giveBack(ctx, op, claimed, c, cons)
		*e = was
		return false, nil
	}
	r.landed(claimed)
	r.eventualInserts(ctx, OpSaveIfNotExists, cons, e, evTS)
	return true, nil
}

// Update writes new over old (same primary key, which it may not change;
// old and new are two structs: copy old before editing). It validates new,
// stamps UpdatedAt, and moves each lookup value that changed: a non-unique
// one deletes this entity's row of the old value and writes the new one,
// at one timestamp; a unique one claims the new value before the write
// (an *kerrors.UniqueError when another live entity holds it) and releases
// the old one after it, only the claim this entity held. On a table
// without a version every value of new is written again (old may be a
// stale copy), in the primary row's LOGGED BATCH for BATCH lookups,
// asynchronously for EVENTUAL ones. On a versioned table the UPDATE
// carries IF version = old's version (IF version IN (null, 0) when old's
// is zero: old was read from a row without a version) and sets new's
// version to the next one; a conflict is a *kerrors.OptimisticLockError and
// new is left as it was (see the package documentation for the order of
// the writes, versioned.go for the conditions).
func (r *Repo[T]) Update(ctx context.Context, old, nw *T, opts ...WriteOption) (err error) {
	const op = "Update"
	if err := r.begin(ctx, op); err != nil {
		return err
	}
	defer r.rt.leave()
	if r.ts.IsCounterTable() {
		return queryErr(r.ts.Name()+" is a counter table: use a Counter's Increment and Decrement, not Update", nil)
	}
	if err := r.checkEntity(op, "old", old); err != nil {
		return err
	}
	if err := r.checkEntity(op, "new", nw); err != nil {
		return err
	}
	if old == nw {
		return r.argErr(op, "old, new", "old and new are the same *"+r.typeName+": Update needs the entity as it was read (old) to move its lookup values and check its version; copy it before editing (nw := *old; edit nw; Update(ctx, old, &nw))")
	}
	for _, col := range r.key {
		po, _ := col.Pointer(old)
		pn, _ := col.Pointer(nw)
		if !col.SameStored(po, pn) {
			return r.argErr(op, "field "+col.GoName(), "new changes key column "+col.Name()+"; a primary key is immutable: Save the entity under its new key and Delete the old one")
		}
	}
	if err := r.checkKey(op, nw, r.key, false); err != nil {
		return err
	}
	if err := r.checkValues(nw); err != nil {
		return err
	}
	if err := r.t.Validate(nw); err != nil {
		return err
	}
	sc := getScratch(opts)
	defer sc.release()
	c := &sc.c
	cons, err := r.writeCons(op, c)
	if err != nil {
		return err
	}
	if err := r.checkWrite(op, c); err != nil {
		return err
	}
	versioned := r.ts.VersionColumn() != nil
	var serial kandra.Consistency
	if versioned || len(r.unique) > 0 {
		if serial, err = r.serialCons(op, c); err != nil {
			return err
		}
	}
	if versioned {
		if err := r.checkVersioned(op, c); err != nil {
			return err
		}
	}
	// new's stamps are put back when the call fails before the row is
	// written, so that a retry of Update(old, new) starts from the same
	// new; once the row is written new keeps them, as it is.
	kept, written := r.keepStamps(nw), false
	defer func() {
		if err != nil && !written {
			kept.restore()
		}
	}()
	if col := r.ts.UpdatedAtColumn(); col != nil {
		*r.timeField(col, nw) = truncate(col, r.now())
	}
	if versioned {
		r.nextVersion(old, nw)
	}
	// The lookups. A value that changed moves: a non-unique row is deleted
	// (this entity's own row of the old value) and written anew, at one
	// timestamp; a unique value is claimed before the write and the old
	// one released after it. On a table without a version, old may be a
	// stale copy, so every value of new is written (claimed) again, as
	// Save does, and the primary row carries the same timestamp as the
	// lookup rows: whichever of two Updates is later wins in both.
	var ts int64
	if len(r.lookups) > 0 { // without lookups, no timestamp to share (and no clock reading)
		ts = lookupTS(c)
		if !versioned && !c.hasTS {
			c.ts, c.hasTS = ts, true
		}
	}
	st := r.st.Update(using(c))
	if versioned && r.versionZero(old) {
		st = r.st.UpdateIfNoVersion(using(c)) // old was read without a version
	}
	if st == nil { // every column is in the key
		st = r.st.Insert(using(c))
	}
	// The primary row first in sc.entries, then the BATCH lookup rows: the
	// LOGGED BATCH of a table without a version.
	primary := sc.query(st)
	primary.Values = r.appendWrite(sc.values(st.NumParams()), st, c, nw, old)
	if versioned {
		primary.Consistency, primary.SerialConsistency = cons, serial
	}
	var batchIns, batchDels []*adapter.Query // on a versioned table, which sends them apart
	var evBuf, claimBuf, leaveBuf [4]int
	eventual, claimNew, leave := evBuf[:0], claimBuf[:0], leaveBuf[:0]
	// A soft-deleted entity holds no unique value (another may have taken
	// it): bringing it back claims them all again.
	revive := r.deleted(old) && !r.deleted(nw)
	for i, l := range r.lookups {
		ov, nv := r.lookupValue(i, old), r.lookupValue(i, nw)
		changed := !r.sameLookup(i, old, nw)
		if !changed && versioned && !(revive && l.IsUnique()) {
			continue
		}
		switch l.Consistency() {
		case kandra.LookupEventual:
			eventual = append(eventual, i)
		case kandra.LookupBatch:
			if changed && !r.emptyAt(i, ov) {
				if q := r.lookupDeleteIn(sc, i, old, ts); versioned {
					batchDels = append(batchDels, q)
				}
			}
			if !r.emptyAt(i, nv) {
				if q := r.lookupInsertIn(sc, i, nw, ts); versioned {
					batchIns = append(batchIns, q)
				}
			}
		default:
			claimNew = append(claimNew, i)
			if changed {
				leave = append(leave, i)
			}
		}
	}
	if len(sc.entries) > 1 {
		if err := r.checkBatchSize(op, sc.entries); err != nil {
			return err
		}
	}
	var claimed *claims[T]
	if len(claimNew) > 0 {
		if claimed, err = r.claimAll(ctx, op, nw, claimNew, c, cons); err != nil {
			return err
		}
	}
	var left *owned // the claims of the values nw leaves, read before the write
	if len(leave) > 0 {
		if left, err = r.ownedClaims(ctx, op, old, leave, c); err != nil {
			r.giveBack(ctx, op, claimed, c, cons)
			return err
		}
	}
	if versioned {
		// The conditional UPDATE cannot share the lookup rows' batch: the
		// new rows go before it and the old ones are deleted after it, so
		// that a conflict or a crash in between leaves only rows whose
		// entity does not hold their value (reads skip them), never an
		// entity its lookups cannot find.
		if len(batchIns) > 0 {
			if err := r.batchExec(ctx, OpUpdate, cons, batchIns, nil); err != nil {
				r.giveBack(ctx, op, claimed, c, cons) // the row was not sent
				return err
			}
		}
		if err := r.fresh(ctx, op, claimed, c, cons); err != nil {
			return err
		}
		applied, err := r.exec(ctx, OpUpdate, primary)
		if err != nil {
			return err // the claims stay: the UPDATE may have applied
		}
		if !applied {
			r.giveBack(ctx, op, claimed, c, cons)
			return r.lockErr(nw, r.expected(old)+" expected, the row has another version or is gone: Get it again and retry")
		}
		written = true
		r.landed(claimed)
		if len(batchDels) > 0 {
			if err := r.batchExec(ctx, OpUpdate, cons, batchDels, nil); err != nil {
				// Only rows of values the entity left remain: reads skip
				// them. The listener hears of it.
				cp := new(T)
				*cp = *nw
				r.rt.eventualFailed(batchDels[0].Statement.TableName(), cp, err, 0)
			}
		}
	} else {
		if err := r.fresh(ctx, op, claimed, c, cons); err != nil {
			return err
		}
		if err := r.batchExec(ctx, OpUpdate, cons, sc.entries, &sc.batch); err != nil {
			return err // the claims stay: the batch may have landed
		}
		written = true
		r.landed(claimed)
	}
	r.releaseOwned(ctx, op, old, left, c, cons)
	if len(eventual) > 0 && len(r.lookups) <= maxMoves {
		r.eventualMoves(ctx, cons, old, nw, eventual, ts)
	} else if len(eventual) > 0 {
		oldCopy, newCopy := new(T), new(T)
		*oldCopy, *newCopy = *old, *nw
		for _, i := range eventual {
			i := i
			changed := !r.sameLookup(i, oldCopy, newCopy)
			r.rt.async(ctx, r.lookups[i].Name(), newCopy, func(ctx context.Context) error {
				if changed && !r.emptyAt(i, r.lookupValue(i, oldCopy)) {
					q := r.lookupDeleteAt(i, oldCopy, ts)
					q.Consistency = cons
					if _, err := r.execAs(ctx, OpUpdate, q, true); err != nil {
						return err
					}
				}
				if r.emptyAt(i, r.lookupValue(i, newCopy)) {
					return nil
				}
				q := r.lookupInsertIn(nil, i, newCopy, ts)
				q.Consistency = cons
				_, err := r.execAs(ctx, OpUpdate, q, true)
				return err
			})
		}
	}
	return nil
}

// Delete removes e: a soft delete on a table with SoftDelete, a hard delete
// otherwise (see HardDelete and SoftDelete).
func (r *Repo[T]) Delete(ctx context.Context, e *T, opts ...DeleteOption) error {
	if r.ts.SoftDelete() != nil {
		return r.SoftDelete(ctx, e, opts...)
	}
	return r.HardDelete(ctx, e, opts...)
}

// HardDelete deletes the row of e's primary key with, in the same LOGGED
// BATCH, this entity's own row of each of e's non-unique lookup values,
// then releases the unique values e holds (the claims it held when the
// call began, never a newer one). On a versioned table the DELETE carries
// IF version = e's version (IF version IN (null, 0) when e's is zero) and
// runs alone, and the lookup rows follow it.
// Options: Timestamp (of the deletes; refused on a versioned table),
// Consistency, SerialConsistency.
func (r *Repo[T]) HardDelete(ctx context.Context, e *T, opts ...DeleteOption) error {
	return r.hardDelete(ctx, "HardDelete", e, opts, false)
}

// ForceDelete is HardDelete without the version check of a versioned
// table: it deletes the row whatever its version, with every lookup row
// that still points to e. On a table without a Version it is HardDelete.
func (r *Repo[T]) ForceDelete(ctx context.Context, e *T, opts ...DeleteOption) error {
	return r.hardDelete(ctx, "ForceDelete", e, opts, true)
}

func (r *Repo[T]) hardDelete(ctx context.Context, op string, e *T, opts []DeleteOption, force bool) error {
	if err := r.begin(ctx, op); err != nil {
		return err
	}
	defer r.rt.leave()
	if err := r.checkEntity(op, "entity", e); err != nil {
		return err
	}
	if err := r.checkKey(op, e, r.key, false); err != nil {
		return err
	}
	sc := getScratch(opts)
	defer sc.release()
	c := &sc.c
	cons, err := r.writeCons(op, c)
	if err != nil {
		return err
	}
	if err := r.checkWrite(op, c); err != nil {
		return err
	}
	versioned := !force && r.ts.VersionColumn() != nil
	if versioned {
		if err := r.checkVersioned(op, c); err != nil {
			return err
		}
	}
	st := r.st.Delete(using(c) & catalog.UsingTimestamp)
	row := sc.query(st)
	row.Values = r.appendWrite(sc.values(st.NumParams()), st, c, e, nil)
	ts := int64(noTS) // read from the clock only when a lookup row is deleted
	for i, l := range r.lookups {
		if !l.IsUnique() && !r.emptyAt(i, r.lookupValue(i, e)) {
			if ts == noTS {
				ts = lookupTS(c)
			}
			r.lookupDeleteIn(sc, i, e, ts)
		}
	}
	// The claims e holds, read before the delete, are released after it:
	// exactly those, so that a re-creation of e in between keeps its own.
	left, err := r.ownedClaims(ctx, op, e, nil, c)
	if err != nil {
		return err
	}
	if versioned {
		return r.deleteVersioned(ctx, op, e, c, cons, sc.entries[1:], left)
	}
	if err := r.batchExec(ctx, OpDelete, cons, sc.entries, &sc.batch); err != nil {
		return err
	}
	r.releaseOwned(ctx, op, e, left, c, cons)
	return nil
}

// SoftDelete sets e's marker (if the table has one) to true, stamps
// UpdatedAt, and rewrites the row with the table's soft-delete TTL. The
// lookup rows are left alone. It is an error on a table without SoftDelete.
// On a versioned table it is conditional on e's version like HardDelete,
// moves e to the next version, and rewrites the row marker with the TTL
// too (SoftDeleteIfVersion), so the row vanishes whole when it passes.
func (r *Repo[T]) SoftDelete(ctx context.Context, e *T, opts ...DeleteOption) error {
	const op = "SoftDelete"
	if err := r.begin(ctx, op); err != nil {
		return err
	}
	defer r.rt.leave()
	sd := r.ts.SoftDelete()
	if sd == nil {
		return queryErr(r.ts.Name()+" has no SoftDelete", nil)
	}
	if err := r.checkEntity(op, "entity", e); err != nil {
		return err
	}
	if err := r.checkKey(op, e, r.key, false); err != nil {
		return err
	}
	c := applyCall(opts)
	cons, err := r.writeCons(op, &c)
	if err != nil {
		return err
	}
	if err := r.checkWrite(op, &c); err != nil {
		return err
	}
	if r.ts.VersionColumn() != nil {
		return r.softDeleteVersioned(ctx, e, &c, cons)
	}
	if sd.Marker != nil {
		p, _ := sd.Marker.Pointer(e)
		*p.(*bool) = true
	}
	if col := r.ts.UpdatedAtColumn(); col != nil {
		*r.timeField(col, e) = truncate(col, r.now())
	}
	st := r.st.SoftDelete()
	_, err = r.exec(ctx, OpSoftDelete, &adapter.Query{Statement: st, Values: r.bindWrite(st, &c, e, nil), Consistency: cons})
	return err
}

// ---------------------------------------------------------------------------
// Reads.

// Get reads the row with key's primary key (the other fields of key are
// ignored) into a new entity; kerrors.ErrNotFound when there is none. On a
// versioned table a row whose version is null reads at version zero (see
// versioned.go).
func (r *Repo[T]) Get(ctx context.Context, key *T, opts ...ReadOption) (*T, error) {
	if err := r.begin(ctx, "Get"); err != nil {
		return nil, err
	}
	defer r.rt.leave()
	if err := r.checkEntity("Get", "key", key); err != nil {
		return nil, err
	}
	if err := r.checkKey("Get", key, r.key, false); err != nil {
		return nil, err
	}
	sc := getScratch(opts)
	defer sc.release()
	return r.getIn(ctx, OpGet, sc, key)
}

// getIn reads key's row with sc's options, its Query and targets in sc.
func (r *Repo[T]) getIn(ctx context.Context, op string, sc *scratch, key *T) (*T, error) {
	cons, err := r.readCons("Get", &sc.c)
	if err != nil {
		return nil, err
	}
	return r.readRow(ctx, op, sc, r.st.SelectByKey(), key, cons)
}

// readRow reads the one row st (a SELECT bound by key's columns) returns,
// with sc's Query and targets: a new entity, or a not-found error.
func (r *Repo[T]) readRow(ctx context.Context, op string, sc *scratch, st *adapter.Statement, key *T, cons kandra.Consistency) (*T, error) {
	q := sc.query(st)
	q.Values, q.Consistency = catalog.AppendColumns(r.t, st, key, sc.values(st.NumParams())), cons
	e := new(T)
	found, err := r.oneInto(ctx, op, q, catalog.AppendResult(r.t, st, e, sc.values(st.NumResult())))
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, r.notFound(key)
	}
	return e, nil
}

// one reads at most one row into the targets targets(dst) gives.
func (r *Repo[T]) one(ctx context.Context, op string, q *adapter.Query, targets func([]any) []any) (bool, error) {
	return r.oneInto(ctx, op, q, targets(make([]any, 0, q.Statement.NumResult())))
}

// oneInto reads at most one row into dst.
func (r *Repo[T]) oneInto(ctx context.Context, op string, q *adapter.Query, dst []any) (bool, error) {
	table := q.Statement.TableName()
	octx, w := r.rt.observe(ctx, table, op, kandra.KindStatement, q.Statement.CQL(), 1, q.Consistency, false)
	rows, err := r.rt.d.Query(octx, q)
	if err != nil {
		r.rt.observed(octx, w, table, op, 0, err)
		return false, queryErr(op+" on "+q.Statement.TableName()+" failed ("+q.Statement.CQL()+")", err)
	}
	found := rows.Next(dst)
	err = rows.Close()
	n := 0
	if found {
		n = 1
	}
	r.rt.observed(octx, w, table, op, n, err)
	if err != nil {
		return false, queryErr(op+" on "+q.Statement.TableName()+" failed ("+q.Statement.CQL()+")", err)
	}
	return found, nil
}

// FindActive is Get that treats a soft-deleted row (marker true) as not
// found. A row whose marker is null counts as live.
func (r *Repo[T]) FindActive(ctx context.Context, key *T, opts ...ReadOption) (*T, error) {
	e, err := r.Get(ctx, key, opts...)
	if err != nil {
		return nil, err
	}
	if r.deleted(e) {
		return nil, r.notFound(key)
	}
	return e, nil
}

func (r *Repo[T]) deleted(e *T) bool {
	sd := r.ts.SoftDelete()
	if sd == nil || sd.Marker == nil {
		return false
	}
	p, _ := sd.Marker.Pointer(e)
	return *p.(*bool)
}

// Cursor is an opaque position in a partition, where the next page of a
// List starts. The zero Cursor means the partition has no more rows. A
// Cursor remembers the query that made it (table, partition, bounds,
// order), and resumes only that query.
type Cursor struct {
	state []byte // the driver's paging state
	query uint64 // the fingerprint of the query (Repo.fingerprint)
}

// IsZero reports the end of the partition.
func (c Cursor) IsZero() bool { return len(c.state) == 0 }

// String encodes the cursor for a URL or a JSON field ("" for the zero
// Cursor); ParseCursor reads it back.
func (c Cursor) String() string {
	if c.IsZero() {
		return ""
	}
	b := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(c.state)), c.query)
	return base64.RawURLEncoding.EncodeToString(append(b, c.state...))
}

// ParseCursor decodes a Cursor.String; a string no Cursor.String made is a
// *kerrors.ArgumentError.
func ParseCursor(s string) (Cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil && len(b) > 0 && len(b) <= 8 {
		err = errors.New("too short")
	}
	if err != nil {
		return Cursor{}, &kerrors.ArgumentError{Op: "ParseCursor", Arg: "s", Message: "not a cursor: " + err.Error()}
	}
	if len(b) == 0 {
		return Cursor{}, nil
	}
	return Cursor{query: binary.BigEndian.Uint64(b), state: b[8:]}, nil
}

// Iter is one page of a List: Next/Value over the rows, then Err and
// Cursor.
type Iter[T any] struct {
	rows   []*T
	i      int
	err    error
	cursor Cursor
}

// Next advances to the next row and reports whether there is one.
func (it *Iter[T]) Next() bool {
	if it.err != nil || it.i >= len(it.rows) {
		return false
	}
	it.i++
	return true
}

// Value is the current row.
func (it *Iter[T]) Value() *T { return it.rows[it.i-1] }

// Err is the error that ended the page, or nil.
func (it *Iter[T]) Err() error { return it.err }

// Cursor is where the next page starts (the zero Cursor at the end of the
// partition); pass it back with After.
func (it *Iter[T]) Cursor() Cursor { return it.cursor }

// All returns the page's rows.
func (it *Iter[T]) All() ([]*T, error) { return it.rows, it.err }

const defaultPageSize = 100

// List reads one page of the partition of partition's partition key (its
// other fields are ignored), in the table's clustering order or Reversed,
// optionally restricted to a prefix of the clustering key by Equal and
// bounded by From and To on the clustering column after it.
// Options: PageSize (default 100), After, Equal, From, To, Reversed,
// Consistency.
func (r *Repo[T]) List(ctx context.Context, partition *T, opts ...ListOption) *Iter[T] {
	return r.list(ctx, partition, false, opts)
}

// ListActive is List without soft-deleted rows (marker true; a null marker
// counts as live). It filters within the partition and keeps fetching until
// the page is full or the partition ends.
func (r *Repo[T]) ListActive(ctx context.Context, partition *T, opts ...ListOption) *Iter[T] {
	return r.list(ctx, partition, true, opts)
}

func (r *Repo[T]) list(ctx context.Context, partition *T, active bool, opts []ListOption) *Iter[T] {
	it := &Iter[T]{}
	op := "List"
	if active {
		op = "ListActive"
	}
	if err := r.begin(ctx, op); err != nil {
		it.err = err
		return it
	}
	defer r.rt.leave()
	if it.err = r.checkEntity(op, "partition", partition); it.err != nil {
		return it
	}
	if it.err = r.checkKey(op, partition, r.partition, false); it.err != nil {
		return it
	}
	c := applyCall(opts)
	if it.err = r.checkRange(op, &c); it.err != nil {
		return it
	}
	if !c.hasPageSize {
		c.pageSize = defaultPageSize
	}
	cons, err := r.readCons(op, &c)
	if err != nil {
		it.err = err
		return it
	}
	rng := catalog.Range{Prefix: len(c.prefix), Reversed: c.reversed}
	if c.lowerCol != nil {
		rng.Lower = c.lowerB
	}
	if c.upperCol != nil {
		rng.Upper = c.upperB
	}
	st := r.st.SelectPartition(rng)
	var fp uint64
	if !c.cursor.IsZero() {
		fp = r.fingerprint(st, partition, &c)
		if !r.rt.resume(&c.cursor, fp) {
			it.err = r.argErr(op, "After", refusedCursor(c.cursor, "the cursor was made by another query (another table, partition, bounds or order); a cursor resumes only the List that returned it"))
			return it
		}
	}
	vals := make([]any, 0, st.NumParams())
	vals = catalog.AppendColumns(r.t, st, partition, vals)
	for i := len(vals); i < st.NumParams(); i++ {
		if p := st.Param(i); p.Kind == adapter.ParamPrefix {
			vals = append(vals, c.prefix[i-len(r.partition)].v)
			continue
		}
		vals = appendParam(vals, st.Param(i), &c)
	}
	it.rows, it.cursor, it.err = r.readPage(ctx, OpList, "list", st, vals, cons, &c, active, fp, func() uint64 { return r.fingerprint(st, partition, &c) })
	return it
}

// readPage reads one page of st's rows (at most c.pageSize; with active,
// the live ones, fetching on until the page is full or the rows end) from
// c's cursor, skipping the row a partition of static values only returns
// (Statement.HasPresence). fp is the query's fingerprint, or 0 for fpOf
// to compute it when a cursor is made.
func (r *Repo[T]) readPage(ctx context.Context, op, what string, st *adapter.Statement, vals []any, cons kandra.Consistency, c *call, active bool, fp uint64, fpOf func() uint64) ([]*T, Cursor, error) {
	var out []*T
	state := c.cursor.state
	want := c.pageSize
	for {
		fetch := want - len(out)
		q := &adapter.Query{Statement: st, Values: vals, Consistency: cons, PageSize: fetch, PageState: state}
		octx, w := r.rt.observe(ctx, r.ts.Name(), op, kandra.KindStatement, st.CQL(), 1, cons, false)
		rows, err := r.rt.d.Query(octx, q)
		if err != nil {
			r.rt.observed(octx, w, r.ts.Name(), op, 0, err)
			return out, Cursor{}, queryErr(what+" on "+r.ts.Name()+" failed", err)
		}
		dst := make([]any, 0, st.NumResult()+1)
		read := 0
		var present adapter.Present
		for {
			e := new(T)
			dst = catalog.AppendResult(r.t, st, e, dst[:0])
			if st.HasPresence() {
				dst = append(dst, &present)
			}
			if !rows.Next(dst) {
				break
			}
			read++
			if st.HasPresence() && !bool(present) {
				continue // the static values of a partition without rows
			}
			if active && r.deleted(e) {
				continue
			}
			out = append(out, e)
		}
		err = rows.Close()
		r.rt.observed(octx, w, r.ts.Name(), op, read, err)
		if err != nil {
			return out, Cursor{}, queryErr(what+" on "+r.ts.Name()+" failed", err)
		}
		state = rows.PageState()
		if len(state) == 0 || len(out) >= want || !active {
			break
		}
		if err := ctx.Err(); err != nil {
			return out, Cursor{}, queryErr(what+" on "+r.ts.Name()+": context done", err)
		}
	}
	if len(state) == 0 {
		return out, Cursor{}, nil
	}
	if fp == 0 {
		fp = fpOf()
	}
	return out, r.rt.cursor(state, fp), nil
}

// ---------------------------------------------------------------------------
// Lookups and counters.

// Lookup is a typed handle on one lookup column, for Find.
type Lookup[T, V any] struct {
	repo *Repo[T]
	f    kandra.Field[T, V]
	idx  int
}

// LookupOf returns the handle of the lookup on field f; it fails when f's
// column has no lookup table.
func LookupOf[T, V any](r *Repo[T], f kandra.Field[T, V]) (*Lookup[T, V], error) {
	for i, l := range r.lookups {
		if l.IndexColumn() == f.Column() {
			return &Lookup[T, V]{repo: r, f: f, idx: i}, nil
		}
	}
	return nil, &kandra.SchemaError{Entity: r.typeName, Field: f.Column().GoName(), Rule: kandra.RuleLookup,
		Detail: "column " + f.Name() + " has no lookup table"}
}

// MustLookupOf is LookupOf that panics on error.
func MustLookupOf[T, V any](r *Repo[T], f kandra.Field[T, V]) *Lookup[T, V] {
	l, err := LookupOf(r, f)
	if err != nil {
		panic(err)
	}
	return l
}

// Find returns the entity whose lookup column has value v: it reads the
// lookup row, then the primary row by its full key, and checks that the row
// still carries v. A missing or stale lookup row, and an empty v, are
// kerrors.ErrNotFound, never another entity. A non-unique value may have many
// holders: Find returns the first live one, FindAll every one. Options:
// Consistency.
func (l *Lookup[T, V]) Find(ctx context.Context, v V, opts ...ReadOption) (*T, error) {
	return l.find(ctx, v, false, opts)
}

// FindActive is Find that also treats a soft-deleted row as not found.
func (l *Lookup[T, V]) FindActive(ctx context.Context, v V, opts ...ReadOption) (*T, error) {
	return l.find(ctx, v, true, opts)
}

func (l *Lookup[T, V]) find(ctx context.Context, v V, active bool, opts []ReadOption) (*T, error) {
	r := l.repo
	op := "Find"
	if active {
		op = "FindActive"
	}
	if err := r.begin(ctx, op); err != nil {
		return nil, err
	}
	defer r.rt.leave()
	col := r.lookups[l.idx].IndexColumn()
	col.StoredForm(&v)
	if err := col.CheckValue(&v); err != nil {
		return nil, err
	}
	if r.emptyAt(l.idx, &v) {
		return nil, l.notFound(v)
	}
	if !r.lookups[l.idx].IsUnique() {
		// Many may hold v: the first live holder, page by page.
		c := applyCall(opts)
		c.pageSize, c.hasPageSize = findPage, true
		cons, err := r.readCons(op, &c)
		if err != nil {
			return nil, err
		}
		for {
			e, next, err := l.firstHolder(ctx, op, v, active, &c, cons)
			if err != nil || e != nil {
				return e, err
			}
			if next.IsZero() {
				return nil, l.notFound(v)
			}
			c.cursor, c.hasCursor = next, true
		}
	}
	c := applyCall(opts)
	cons, err := r.readCons(op, &c)
	if err != nil {
		return nil, err
	}
	st := r.st.Lookup(l.idx).Select()
	key := new(T)
	l.f.Set(key, v)
	q := &adapter.Query{Statement: st, Values: catalog.AppendColumns(r.t, st, key, make([]any, 0, 1)), Consistency: cons}
	found, err := r.one(ctx, OpFind, q, func(dst []any) []any { return catalog.AppendResult(r.t, st, key, dst) })
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, l.notFound(v)
	}
	sc := getScratch[option](nil)
	defer sc.release()
	sc.c = c
	e, err := r.getIn(ctx, OpFind, sc, key)
	if errors.Is(err, kerrors.ErrNotFound) {
		return nil, l.notFound(v)
	}
	if err != nil {
		return nil, err
	}
	if !r.lookups[l.idx].IndexColumn().SameStored(l.f.Pointer(e), &v) || (active && r.deleted(e)) {
		return nil, l.notFound(v)
	}
	return e, nil
}

// findPage is the lookup rows a Find of a non-unique value reads at a
// time: the first live holder is usually in the first few.
const findPage = 16

// notFound is the *kerrors.NotFoundError of a Find of v.
func (l *Lookup[T, V]) notFound(v V) error {
	lt := l.repo.lookups[l.idx]
	var shown any = v
	if lt.IndexColumn().IsSensitive() {
		shown = redacted
	}
	return &kerrors.NotFoundError{Table: l.repo.ts.Name(), Lookup: lt.Name(), Value: shown}
}

// Counter is a typed handle on one counter column.
type Counter[T any] struct {
	repo *Repo[T]
	st   *adapter.Statement
	key  []*kandra.ColumnSchema // the primary key; the partition key for a static counter
}

// CounterOf returns the handle of counter column f; it fails when f is not
// a counter.
func CounterOf[T any](r *Repo[T], f kandra.Field[T, int64]) (*Counter[T], error) {
	st := r.st.Counter(f.Column())
	if st == nil {
		return nil, &kandra.SchemaError{Entity: r.typeName, Field: f.Column().GoName(), Rule: kandra.RuleCounterTable,
			Detail: "column " + f.Name() + " is not a counter"}
	}
	key := r.key
	if f.Column().IsStatic() {
		key = r.partition
	}
	return &Counter[T]{repo: r, st: st, key: key}, nil
}

// MustCounterOf is CounterOf that panics on error.
func MustCounterOf[T any](r *Repo[T], f kandra.Field[T, int64]) *Counter[T] {
	c, err := CounterOf(r, f)
	if err != nil {
		panic(err)
	}
	return c
}

// Increment adds delta to the counter of key's primary key (of its
// partition key, for a static counter). Options:
// Consistency.
func (c *Counter[T]) Increment(ctx context.Context, key *T, delta int64, opts ...CounterOption) error {
	return c.add(ctx, "Increment", key, delta, opts)
}

func (c *Counter[T]) add(ctx context.Context, op string, key *T, delta int64, opts []CounterOption) error {
	r := c.repo
	if err := r.begin(ctx, op); err != nil {
		return err
	}
	defer r.rt.leave()
	if err := r.checkEntity(op, "key", key); err != nil {
		return err
	}
	if err := r.checkKey(op, key, c.key, false); err != nil {
		return err
	}
	sc := getScratch(opts)
	defer sc.release()
	cons, err := r.writeCons(op, &sc.c)
	if err != nil {
		return err
	}
	q := sc.query(c.st)
	q.Values = catalog.AppendColumns(r.t, c.st, key, append(sc.values(c.st.NumParams()), delta))
	q.Consistency = cons
	_, err = r.exec(ctx, OpIncrement, q)
	return err
}

// Decrement subtracts delta from the counter of key's primary key. A delta
// of math.MinInt64, whose negation overflows, is a *kerrors.ArgumentError.
func (c *Counter[T]) Decrement(ctx context.Context, key *T, delta int64, opts ...CounterOption) error {
	if delta == math.MinInt64 {
		return c.repo.argErr("Decrement", "delta", "math.MinInt64 cannot be negated; decrement by at most math.MaxInt64")
	}
	return c.add(ctx, "Decrement", key, -delta, opts)
}
