package kstore

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
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
	regular       []*kandra.ColumnSchema // the regular columns, in column order (an Update compares them)
	diff          *kandra.StoredDiff[T]  // the comparison of regular's columns but the stamps
	keyDiff       *kandra.StoredDiff[T]  // the comparison of key's columns (an Update's key may not change)
	diffAt        []int                  // per column of diff: its index in regular
	stamps        []int                  // the indexes in regular of UpdatedAt and the version, which an Update moves
	updates       updShapes              // Update's statements by the columns they write
	batch         []int                  // indices of BATCH lookups
	eventual      []int                  // indices of EVENTUAL lookups
	unique        []int                  // indices of UNIQUE lookups
	lookups       []*kandra.LookupTableSchema
	inserts       sync.Pool // *eventualInsert[T], reused once their writes are done
	current       sync.Pool // *T: the row a conditional write's refusal returns, reused when it applied
	copies        sync.Pool // *T, zeroed: entities held during a call only (spare)
	stampsInsert  bool      // an insert changes the entity: a generated id, CreatedAt, UpdatedAt or a version
	keyMask       uint64    // the primary key's positions (a projection always reads them)
	keySafe       uint64    // the key columns' positions whose every value is a valid key (see checkKey)
	deleteBound   int       // the most a HardDelete's batch can count (deleteFits), -1 for no bound
	proj          projections
	// plainPatch: the table has no UpdatedAt, version or soft delete, so a
	// Patch writes only its changes and its guard is IF EXISTS or none.
	plainPatch bool
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
		return nil, &kandra.SchemaError{Entity: t.Schema().EntityType().String(), Rule: kandra.RuleNotInKeyspace,
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
	r.plainPatch = ts.UpdatedAtColumn() == nil && ts.VersionColumn() == nil && ts.SoftDelete() == nil
	for _, c := range r.key {
		if c.Position() < 64 {
			r.keyMask |= 1 << c.Position()
			if keySafe(c) {
				r.keySafe |= 1 << c.Position()
			}
		}
	}
	r.deleteBound = deleteBound(r.key, ts.LookupTables())
	var compared []*kandra.ColumnSchema
	for _, c := range ts.Columns() {
		if c.Role() == kandra.RegularColumn {
			if c.IsUpdatedAt() || c.IsVersion() {
				r.stamps = append(r.stamps, len(r.regular))
			} else {
				r.diffAt = append(r.diffAt, len(r.regular))
				compared = append(compared, c)
			}
			r.regular = append(r.regular, c)
			if c.ChecksValues() {
				r.checked = append(r.checked, c)
			}
		}
		if _, ok := c.GeneratedUUID(); ok {
			r.gen = append(r.gen, c)
		}
	}
	r.stampsInsert = len(r.gen) > 0 || ts.CreatedAtColumn() != nil || ts.UpdatedAtColumn() != nil || ts.VersionColumn() != nil
	r.diff = r.t.StoredDiff(compared)
	r.keyDiff = r.t.StoredDiff(r.key)
	for i, l := range ts.LookupTables() {
		switch l.Kind() {
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

// Consistency and execution.

func (r *Repo[T]) exec(ctx context.Context, op string, q *adapter.Query) (bool, error) {
	return r.execAs(ctx, op, q, false)
}

// execAs is exec, of a background write (an EVENTUAL lookup row) or not.
func (r *Repo[T]) execAs(ctx context.Context, op string, q *adapter.Query, background bool) (bool, error) {
	table := q.Statement.TableName()
	octx, w := r.rt.observe(ctx, table, op, kandra.SingleStatement, q.Statement.CQL(), 1, q.Consistency, background)
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

// batchExec runs entries as one LOGGED BATCH (a single entry alone),
// after checkBatchSize. b, if not nil, is the Batch to fill (a call's
// scratch).
func (r *Repo[T]) batchExec(ctx context.Context, op string, cons kandra.Consistency, entries []*adapter.Query, b *adapter.Batch) error {
	return r.batchSend(ctx, op, cons, entries, b, false)
}

// batchSend is batchExec; sized says the caller has run checkBatchSize on
// entries (or on a batch they are part of) with the values they send, so
// it is not measured twice (a tenth of a Save's own time).
func (r *Repo[T]) batchSend(ctx context.Context, op string, cons kandra.Consistency, entries []*adapter.Query, b *adapter.Batch, sized bool) error {
	if len(entries) == 1 {
		entries[0].Consistency = cons
		_, err := r.exec(ctx, op, entries[0])
		return err
	}
	if !sized {
		if err := r.checkBatchSize(op, entries); err != nil {
			return err
		}
	}
	if b == nil {
		b = new(adapter.Batch)
	}
	b.Entries, b.Consistency = entries, cons
	octx, w := r.rt.observe(ctx, r.ts.Name(), op, kandra.BatchStatement, entries[0].Statement.CQL(), len(entries), cons, false)
	_, err := r.rt.d.Batch(octx, b)
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
// column values st binds (values), a partial write's whole values, every shape of value in full (a
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
		switch {
		case p.Column == nil:
			continue // a TTL or a timestamp: within the cells' overhead
		case p.Kind == adapter.ParamValue && i < st.ColumnsOffset() && p.Column.Type().Kind() != kandra.KindList:
			// A partial write's whole value (c = ?, s = s + ?, s = s - ?),
			// before the key: a cell each, or a set's element each (a
			// removed one a tombstone with its path). A list's may remove
			// nothing (l = l - ?): not counted. Elements, fields and keys
			// given alone are not counted either.
		case p.Kind != adapter.ParamColumn:
			continue
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
