// Package catalog is the runtime's statement catalogue: the statements of
// each table and lookup table, rendered once when a repository is made,
// and those written by hand (Raw). Package kstore sends them; the
// migrator's backfill uses a table's token-range scan and lookup inserts.
package catalog

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/cqlstmt"
)

// Raw is a statement written by hand (kstore.Prepare) for
// table t: its text as it is sent, one adapter.ParamRaw per marker, and the
// columns a SELECT returns, in order (none for a write). A statement with
// an IF clause is conditional. A SELECT is idempotent; so is a write
// that is not conditional, unless t is a counter table or has a list
// column that is not frozen: such a write may add to a counter or to a
// list (c = c + ?, l = l + ?, DELETE l[?]), or, with a timestamp, write a
// list's elements twice (see IsIdempotent), which the text alone does not
// always tell.
func Raw(t *kandra.TableSchema, cql string, params []adapter.Param, result []*kandra.ColumnSchema) *adapter.Statement {
	for _, p := range params {
		if p.Kind != adapter.ParamRaw {
			panic("kandra: Raw: a " + p.Kind.String() + " marker; raw statements have adapter.ParamRaw markers only")
		}
	}
	s := adapter.StatementSpec{Table: t.Name(), CQL: cql, Params: params, Result: result, Conditional: cqlstmt.HasIF(cql)}
	switch {
	case s.Conditional:
	case isSelect(cql):
		s.Idempotent = true
	default:
		s.Idempotent = !t.IsCounterTable() && !slices.ContainsFunc(t.Columns(), multiCellList)
	}
	return adapter.NewStatement(s)
}

// isSelect reports a statement whose first word is SELECT.
func isSelect(cql string) bool {
	toks, err := cqlstmt.Tokens(cql)
	return err == nil && len(toks) > 0 && toks[0].Is("SELECT")
}

// multiCellList reports a list column whose elements are cells of their
// own (not frozen): the server gives each element written a new cell, so
// a list written twice at one timestamp holds its elements twice.
func multiCellList(c *kandra.ColumnSchema) bool {
	return c.Type().Kind() == kandra.KindList && !c.IsFrozen()
}

// AppendColumns appends to dst the addresses in e of the statement's
// adapter.ParamColumn markers, in order, through Table.ColumnPointers: no
// reflection, no allocation when dst has room. The statement must have been
// built for t's schema.
func AppendColumns[T any](t *kandra.Table[T], s *adapter.Statement, e *T, dst []any) []any {
	return t.ColumnPointers(e, s.Columns(), dst)
}

// AppendExpected appends to dst the addresses in old of the statement's
// adapter.ParamExpected markers (the values a condition expects), in order.
func AppendExpected[T any](t *kandra.Table[T], s *adapter.Statement, old *T, dst []any) []any {
	return t.ColumnPointers(old, s.ExpectedColumns(), dst)
}

// AppendResult appends to dst the addresses in e of the columns the SELECT
// returns, in order: the scan targets of one row.
func AppendResult[T any](t *kandra.Table[T], s *adapter.Statement, e *T, dst []any) []any {
	return t.ColumnPointers(e, s.ResultColumns(), dst)
}

// Using says which USING clauses a write statement carries. Each is bound
// (USING TTL ? AND TIMESTAMP ?), so one statement text serves every value.
type Using uint8

const (
	// UsingTTL adds USING TTL ?: a adapter.ParamTTL marker.
	UsingTTL Using = 1 << iota
	// UsingTimestamp adds USING TIMESTAMP ?: a adapter.ParamTimestamp marker.
	UsingTimestamp
)

// Bound is the kind of a clustering-range bound of a partition SELECT.
type Bound uint8

const (
	// Unbounded means no bound on that side.
	Unbounded Bound = iota
	// Inclusive is >= (lower) or <= (upper).
	Inclusive
	// Exclusive is > (lower) or < (upper).
	Exclusive
)

// Range selects the clustering prefix, bounds, order and limit of a
// partition SELECT. The first Prefix clustering columns are fixed by
// equality; the bounds apply to the next one.
type Range struct {
	// Prefix is the number of leading clustering columns fixed by
	// equality (adapter.ParamPrefix markers), at most the number of clustering
	// columns.
	Prefix       int
	Lower, Upper Bound
	// Reversed reads the partition in the reverse of its clustering order.
	Reversed bool
	// Limit adds LIMIT ? (a adapter.ParamLimit marker).
	Limit bool
	// LowerN and UpperN, when above 1, make a bound a tuple of that many
	// clustering columns from the one after the prefix: (a, b) >= (?, ?),
	// one adapter.ParamLowerBound (or ParamUpperBound) marker a column.
	LowerN, UpperN int
}

// Lookup are the statements of one lookup table. Every column
// they bind is a column of the primary table (the index column and the
// primary key), so the values come from the primary entity.
type Lookup struct {
	lookup *kandra.LookupTableSchema
	// Insert writes the lookup row: INSERT INTO lk (index, pk..., ck...)
	// VALUES (...).
	insert *adapter.Statement
	// Select reads the primary key by the index value.
	sel *adapter.Statement
	// Delete removes the row of an index value unconditionally.
	del *adapter.Statement
	// SelectOwner reads the primary key and the row's write time.
	selOwner *adapter.Statement
	// DeleteAt removes the row of an index value at a given timestamp.
	delAt *adapter.Statement
	// InsertAt is Insert USING TIMESTAMP (non-unique).
	insertAt *adapter.Statement
	// The claims of a unique lookup.
	claim, reclaim, takeover, release *adapter.Statement
}

// Lookup is the lookup table the statements are for.
func (l *Lookup) Lookup() *kandra.LookupTableSchema { return l.lookup }

// Insert is INSERT INTO lk (index, pk..., ck...) VALUES (?, ...): every
// marker a adapter.ParamColumn of the primary entity. Nil for a unique lookup,
// whose rows are written by lightweight transactions only (Claim).
func (l *Lookup) Insert() *adapter.Statement { return l.insert }

// InsertAt is Insert USING TIMESTAMP ?: the adapter.ParamColumn markers, then a
// adapter.ParamTimestamp. A move writes the new row and deletes the old one at the
// same timestamp, so two moves of one entity applied out of order still
// leave the later one's rows. Nil for a unique lookup.
func (l *Lookup) InsertAt() *adapter.Statement { return l.insertAt }

// Claim is INSERT INTO lk (index, pk..., ck..., kandra_claim) VALUES (...)
// IF NOT EXISTS: a unique lookup's claim of a value, the adapter.ParamColumn
// markers of the entity, then the adapter.ParamClaim of a new token. Nil for a
// non-unique lookup.
func (l *Lookup) Claim() *adapter.Statement { return l.claim }

// Reclaim is UPDATE lk SET kandra_claim = ? WHERE index = ? IF pk... = ?:
// the holder renews its claim with a new token (adapter.ParamClaim, adapter.ParamColumn of
// the value, adapter.ParamExpected of the holder's key), so that a takeover that
// read the old token no longer applies. Nil for a non-unique lookup.
func (l *Lookup) Reclaim() *adapter.Statement { return l.reclaim }

// Takeover is UPDATE lk SET kandra_claim = ?, pk... = ? WHERE index = ? IF
// pk... = ? AND kandra_claim = ?: a unique lookup's claim moved to a new
// holder with a new token (adapter.ParamClaim, then the adapter.ParamColumn markers of the
// new holder's key and of the value), only while the old holder (the
// adapter.ParamExpected markers) still has it under the token read (the last
// adapter.ParamClaim). Nil for a non-unique lookup.
func (l *Lookup) Takeover() *adapter.Statement { return l.takeover }

// Release is DELETE FROM lk WHERE index = ? IF pk... = ? AND kandra_claim =
// ?: a unique lookup's claim given up by its holder (the adapter.ParamExpected
// markers), only under the token the holder read or took it with (the
// adapter.ParamClaim), so that a newer claim of the same holder survives. Nil for a
// non-unique lookup.
func (l *Lookup) Release() *adapter.Statement { return l.release }

// Select is SELECT pk..., ck... FROM lk WHERE index = ?: one adapter.ParamColumn
// marker (the index value); the result is the primary key, of the holder
// (unique) or of every holder, one per row (non-unique).
func (l *Lookup) Select() *adapter.Statement { return l.sel }

// Delete is DELETE FROM lk WHERE index = ?: every row of the value.
func (l *Lookup) Delete() *adapter.Statement { return l.del }

// SelectOwner is SELECT pk..., ck..., kandra_claim, WRITETIME(kandra_claim),
// WRITETIME(pk) FROM lk WHERE index = ? of a unique lookup, pk the
// holder's first key column: the entity that holds the claim, its token
// and the write times of the token and of the holder (HasClaim: three
// int64s after the result). Nil for a non-unique lookup.
func (l *Lookup) SelectOwner() *adapter.Statement { return l.selOwner }

// DeleteAt is DELETE FROM lk USING TIMESTAMP ? WHERE index = ? AND pk...
// = ? AND ck... = ?: a adapter.ParamTimestamp then the lookup row's key as
// adapter.ParamColumn markers, of a non-unique lookup. It removes one entity's row
// of a value as of the timestamp: a row written later (a move back, or a
// Save since) survives. Nil for a unique lookup.
func (l *Lookup) DeleteAt() *adapter.Statement { return l.delAt }

// Table are the runtime statements of one table, rendered once
// (Build) and then only read, concurrently.
type Table struct {
	schema     *kandra.TableSchema
	keyspace   string
	insert     [4]*adapter.Statement // by Using
	insertINE  [2]*adapter.Statement // by UsingTTL
	selectKey  *adapter.Statement
	partition  []partitionSlots      // by Range.Prefix: made on first use
	counts     []countSlots          // by Range.Prefix: CountPartition's, as partition
	builder    *stmtBuilder          // for them
	update     [4]*adapter.Statement // by Using; nil when no non-key column
	del        [2]*adapter.Statement // by UsingTimestamp
	softDelete *adapter.Statement
	// The versioned table's writes (nil without a version).
	create      [2]*adapter.Statement // by UsingTTL: IF version has no value
	delVersion  *adapter.Statement
	delNone     *adapter.Statement
	softVersion *adapter.Statement
	softNone    *adapter.Statement
	force       [4]*adapter.Statement // by Using: the unconditional UPDATE
	counters    map[*kandra.ColumnSchema]*adapter.Statement
	byIndex     map[indexRead]*adapter.Statement // SELECT ... WHERE through an index
	// The static columns' writes and read (nil without static columns).
	staticUpdate [4]*adapter.Statement // by Using
	staticSelect *adapter.Statement
	lookups      []*Lookup
	tokenRange   *adapter.Statement
	shapes       shapes // partial writes and range deletes (patch.go)
	// patchOne are the Patches of one change of a column without a
	// condition, by the column's position (patch.go): made on first use.
	patchOne []atomic.Pointer[patchSlots]
	// patchPacked are the other Patches whose shape packs into 64 bits
	// (patch.go).
	patchPacked patchSlotsPacked
	// rangeDels are the range deletes without a condition, by prefix
	// (patch.go).
	rangeDels []rangeDelSlots
}

// partitionSlots are the partition SELECTs of one prefix length, by
// lower bound, upper bound, order and limit.
type partitionSlots [3][3][2][2]atomic.Pointer[adapter.Statement]

// countSlots are the partition counts of one prefix length without a
// tuple bound, by lower and upper bound: a count has no order nor limit.
type countSlots [3][3]atomic.Pointer[adapter.Statement]

// Build renders the runtime statements of t. keyspace, if not
// empty, qualifies every table name (keyspace.table), written through
// kandra.QuoteIdent; an invalid keyspace name is a *kandra.NameError.
func Build(t *kandra.TableSchema, keyspace string) (*Table, error) {
	if t == nil {
		panic("kandra: Build: nil *kandra.TableSchema")
	}
	if keyspace != "" {
		if err := kandra.ValidateName(keyspace); err != nil {
			return nil, err
		}
	}
	b := &stmtBuilder{t: t, ks: keyspace}
	ts := &Table{schema: t, keyspace: keyspace}
	if !t.IsCounterTable() {
		for u := Using(0); u < 4; u++ {
			ts.insert[u] = b.insert(u, false)
		}
		ts.insertINE[0] = b.insert(0, true)
		ts.insertINE[1] = b.insert(UsingTTL, true)
		for u := Using(0); u < 4; u++ {
			ts.update[u] = b.update(u)
		}
		if sd := t.SoftDelete(); sd != nil {
			ts.softDelete = b.softDelete(int(sd.TTL / time.Second))
		}
		if t.VersionColumn() != nil {
			ts.create[0] = b.updateRow(0, "", versionNull)
			ts.create[1] = b.updateRow(UsingTTL, "", versionNull)
			ts.delVersion = b.deleteIfVersion(versionExpected)
			ts.delNone = b.deleteIfVersion(versionNull)
			if sd := t.SoftDelete(); sd != nil {
				ts.softVersion = b.softDeleteIf(int(sd.TTL/time.Second), versionExpected)
				ts.softNone = b.softDeleteIf(int(sd.TTL/time.Second), versionNull)
			}
			for u := Using(0); u < 4; u++ {
				ts.force[u] = b.updateRow(u, "", noVersion)
			}
		} else {
			ts.force = ts.update
		}
	}
	ts.selectKey = b.selectKey()
	// The 36 partition SELECTs (bounds, order, limit) are made when first
	// asked for: most tables are listed one or two ways, and each costs
	// about a kilobyte.
	ts.builder = b
	ts.partition = make([]partitionSlots, len(t.ClusteringKeys())+1)
	ts.counts = make([]countSlots, len(t.ClusteringKeys())+1)
	ts.patchOne = make([]atomic.Pointer[patchSlots], len(t.Columns()))
	ts.rangeDels = make([]rangeDelSlots, len(t.ClusteringKeys())+1)
	ts.del[0] = b.delete(0)
	ts.del[1] = b.delete(UsingTimestamp)
	if t.IsCounterTable() {
		ts.counters = make(map[*kandra.ColumnSchema]*adapter.Statement)
		for _, c := range t.Columns() {
			if c.IsCounter() {
				ts.counters[c] = b.counter(c)
			}
		}
	}
	for _, c := range t.SecondaryIndexes() {
		if ts.byIndex == nil {
			ts.byIndex = make(map[indexRead]*adapter.Statement)
		}
		spec, _ := c.Index()
		if spec.Kind == kandra.IndexVector {
			ts.byIndex[indexRead{c: c, op: IndexNearest}] = b.selectByIndex(indexRead{c: c, op: IndexNearest})
			continue
		}
		switch spec.Target {
		case kandra.IndexTargetValues:
			ts.byIndex[indexRead{c: c, op: IndexContains}] = b.selectByIndex(indexRead{c: c, op: IndexContains})
		case kandra.IndexTargetKeys:
			ts.byIndex[indexRead{c: c, op: IndexContainsKey}] = b.selectByIndex(indexRead{c: c, op: IndexContainsKey})
		case kandra.IndexTargetEntries:
			ts.byIndex[indexRead{c: c, op: IndexEntry}] = b.selectByIndex(indexRead{c: c, op: IndexEntry})
		default:
			ts.byIndex[indexRead{c: c}] = b.selectByIndex(indexRead{c: c})
			if spec.Ranges {
				for _, lo := range []Bound{Unbounded, Inclusive, Exclusive} {
					for _, hi := range []Bound{Unbounded, Inclusive, Exclusive} {
						if lo != Unbounded || hi != Unbounded {
							r := indexRead{c: c, op: IndexRange, lower: lo, upper: hi}
							ts.byIndex[r] = b.selectByIndex(r)
						}
					}
				}
			}
		}
	}
	if len(t.StaticColumns()) > 0 {
		if !t.IsCounterTable() {
			for u := Using(0); u < 4; u++ {
				ts.staticUpdate[u] = b.updateStatic(u)
			}
		}
		ts.staticSelect = b.selectStatic()
	}
	for _, l := range t.LookupTables() {
		ts.lookups = append(ts.lookups, b.lookup(l))
	}
	ts.tokenRange = b.tokenRange()
	return ts, nil
}

// Schema is the table the statements are for.
func (s *Table) Schema() *kandra.TableSchema { return s.schema }

// Keyspace is the qualifier given to Build ("" for none).
func (s *Table) Keyspace() string { return s.keyspace }

// Insert is INSERT INTO t (every column) VALUES (...), with USING TTL ? AND
// TIMESTAMP ? as u asks: every column as a adapter.ParamColumn, then adapter.ParamTTL, then
// adapter.ParamTimestamp. Nil for a counter table (counters cannot be inserted).
func (s *Table) Insert(u Using) *adapter.Statement { return s.insert[u&3] }

// InsertIfNotExists is Insert with IF NOT EXISTS (a lightweight
// transaction), optionally USING TTL ?. A conditional statement cannot
// carry a client timestamp, so UsingTimestamp is ignored. Nil for a counter
// table.
func (s *Table) InsertIfNotExists(u Using) *adapter.Statement {
	return s.insertINE[u&UsingTTL]
}

// SelectByKey is SELECT every column FROM t WHERE every primary-key column
// = ?: the key as adapter.ParamColumn markers; the result is every column.
func (s *Table) SelectByKey() *adapter.Statement { return s.selectKey }

// SelectPartition is SELECT every column FROM t WHERE the partition key =
// ?, with the prefix, bounds, order and limit of r: the partition key as
// adapter.ParamColumn markers, the first r.Prefix clustering columns as
// adapter.ParamPrefix markers, then adapter.ParamLowerBound, adapter.ParamUpperBound (on the
// clustering column after the prefix) and adapter.ParamLimit. A table without
// clustering columns ignores the bounds and the order. It panics on a
// Prefix past the clustering columns, or bounds with every clustering
// column fixed.
func (s *Table) SelectPartition(r Range) *adapter.Statement {
	if r.Lower > Exclusive || r.Upper > Exclusive {
		panic("kandra: SelectPartition: invalid Bound")
	}
	if r.Prefix < 0 || r.Prefix >= len(s.partition) || len(s.partition) > 1 && r.Prefix == len(s.partition)-1 && (r.Lower != Unbounded || r.Upper != Unbounded) {
		panic("kandra: SelectPartition: invalid Prefix")
	}
	rev, lim := 0, 0
	if r.Reversed {
		rev = 1
	}
	if r.Limit {
		lim = 1
	}
	if r.LowerN > 1 || r.UpperN > 1 {
		n := len(s.schema.ClusteringKeys()) - r.Prefix
		if r.LowerN > n || r.UpperN > n || r.LowerN > 1 && r.Lower == Unbounded || r.UpperN > 1 && r.Upper == Unbounded {
			panic("kandra: SelectPartition: invalid tuple bound")
		}
		key := []byte{'R', byte(r.Prefix), byte(r.Lower), byte(r.Upper), byte(rev), byte(lim), byte(r.LowerN), byte(r.UpperN)}
		return s.shaped(key, func() *adapter.Statement { return s.builder.partition(r) })
	}
	r.LowerN, r.UpperN = 0, 0
	slot := &s.partition[r.Prefix][r.Lower][r.Upper][rev][lim]
	if st := slot.Load(); st != nil {
		return st
	}
	return fill(slot, s.builder.partition(Range{Prefix: r.Prefix, Lower: r.Lower, Upper: r.Upper, Reversed: rev == 1, Limit: lim == 1}))
}

// UpdateStatic is UPDATE t [USING TTL ? AND TIMESTAMP ?] SET every static
// column = ? WHERE the partition key = ?: adapter.ParamTTL and adapter.ParamTimestamp as u
// asks, then the static columns and the partition key as adapter.ParamColumn
// markers. Nil for a table without static columns and for a counter table
// (whose counters only Counter changes).
func (s *Table) UpdateStatic(u Using) *adapter.Statement { return s.staticUpdate[u&3] }

// IndexOp is how a read through a secondary index restricts its column.
type IndexOp uint8

const (
	// IndexEqual is c = ?, a adapter.ParamColumn marker: an index on a column's
	// value, or on a frozen collection whole.
	IndexEqual IndexOp = iota
	// IndexContains is c CONTAINS ?, a adapter.ParamElement marker: an index on a
	// collection's values.
	IndexContains
	// IndexContainsKey is c CONTAINS KEY ?, a adapter.ParamMapKey marker: an
	// index on a map's keys.
	IndexContainsKey
	// IndexEntry is c[?] = ?, a adapter.ParamMapKey then a adapter.ParamElement marker: an
	// index on a map's entries.
	IndexEntry
	// IndexRange is c >= ? (or >) and c <= ? (or <), adapter.ParamLowerBound and
	// adapter.ParamUpperBound markers as the bounds ask: an SAI index that reads
	// ranges (kandra.IndexSpec.Ranges).
	IndexRange
	// IndexNearest is no WHERE clause but ORDER BY c ANN OF ? LIMIT ?, a
	// adapter.ParamColumn (the query vector) then a adapter.ParamLimit marker: an ANN
	// index (kandra.VectorIndex), nearest rows first.
	IndexNearest
)

type indexRead struct {
	c            *kandra.ColumnSchema
	op           IndexOp
	lower, upper Bound // IndexRange's
}

// SelectByIndex is SELECT every column FROM t WHERE c = ?, through c's
// secondary index: c as a adapter.ParamColumn marker. Nil for a column without an
// index, and for an index on a collection's values, keys or entries (see
// SelectByIndexOp).
func (s *Table) SelectByIndex(c *kandra.ColumnSchema) *adapter.Statement {
	return s.byIndex[indexRead{c: c}]
}

// SelectByIndexOp is SELECT every column FROM t WHERE c's index restricts
// it as op says, with the bounds of an IndexRange (at least one bounded).
// Nil when c's index does not read that way: IndexContains is for an
// index on values, IndexContainsKey on keys, IndexEntry on entries,
// IndexEqual on anything else, IndexRange where kandra.IndexSpec.Ranges.
func (s *Table) SelectByIndexOp(c *kandra.ColumnSchema, op IndexOp, lower, upper Bound) *adapter.Statement {
	if op != IndexRange {
		lower, upper = Unbounded, Unbounded
	}
	return s.byIndex[indexRead{c: c, op: op, lower: lower, upper: upper}]
}

// SelectStatic is SELECT the partition key and every static column FROM t
// WHERE the partition key = ? LIMIT 1: the partition key as adapter.ParamColumn
// markers; the result is the partition key then the static columns. Nil
// for a table without static columns.
func (s *Table) SelectStatic() *adapter.Statement { return s.staticSelect }

// Update is UPDATE t [USING TTL ? AND TIMESTAMP ?] SET every non-key column
// = ? WHERE the primary key = ?, and IF version = ? on a versioned table:
// adapter.ParamTTL and adapter.ParamTimestamp as u asks, the non-key columns then the key
// as adapter.ParamColumn markers, then a adapter.ParamExpected of the version column. A
// versioned (conditional) update cannot carry a timestamp: UsingTimestamp
// gives nil there. Nil for a counter table and for a table whose every
// column is in the key (use Insert).
func (s *Table) Update(u Using) *adapter.Statement { return s.update[u&3] }

// UpdateIfNoVersion is the write of a versioned entity at version zero
// (new, or read from a row without a version): UPDATE t [USING TTL ?] SET
// every non-key column = ? WHERE the primary key = ? IF version IN (null,
// 0) (IF version = null for a timestamp version), which applies when no
// row has the key or its row has no version yet. A read cannot tell a
// null version from 0, so the condition takes both; kandra's own int64
// versions start at 1. An UPDATE writes no row marker, so a row written
// only by UPDATEs disappears once its cells expire. adapter.ParamTTL if u asks,
// the non-key columns, then the key. Nil on a table without a version.
func (s *Table) UpdateIfNoVersion(u Using) *adapter.Statement { return s.create[u&UsingTTL] }

// ForceUpdate is Update without a condition: UPDATE t [USING TTL ? AND
// TIMESTAMP ?] SET every non-key column = ? WHERE the primary key = ?,
// adapter.ParamTTL and adapter.ParamTimestamp as u asks, then the non-key columns and the
// key. It is the write of a forced save on a versioned table, which,
// being an UPDATE, leaves no row marker; on a table without a version it
// is Update. Nil for a counter table and for a table whose every column is
// in the key.
func (s *Table) ForceUpdate(u Using) *adapter.Statement { return s.force[u&3] }

// DeleteIfVersion is DELETE FROM t WHERE the primary key = ? IF version =
// ?: the key as adapter.ParamColumn markers, then a adapter.ParamExpected of the version.
// Nil on a table without a version.
func (s *Table) DeleteIfVersion() *adapter.Statement { return s.delVersion }

// DeleteIfNoVersion is the delete of a copy at version zero: DELETE FROM t
// WHERE the primary key = ? IF version IN (null, 0) (IF version = null for
// a timestamp version), the key as adapter.ParamColumn markers. Nil on a table
// without a version.
func (s *Table) DeleteIfNoVersion() *adapter.Statement { return s.delNone }

// SoftDeleteIfVersion is the soft delete of a versioned table, one
// conditional batch of the row: BEGIN UNLOGGED BATCH INSERT INTO t (the
// primary key) VALUES (?) USING TTL n; UPDATE t USING TTL n SET every
// non-key column = ? WHERE the primary key = ? IF version = ? APPLY BATCH,
// with n the soft-delete TTL as a literal: the key, the non-key columns
// and the key again as adapter.ParamColumn markers, then a adapter.ParamExpected of the
// version. The INSERT gives the row marker the same TTL as the cells, so
// the row vanishes whole once it passes, even when an INSERT wrote its
// marker earlier (a Save before the table had a Version, another client).
// Nil on a table without a version or without SoftDelete.
func (s *Table) SoftDeleteIfVersion() *adapter.Statement { return s.softVersion }

// SoftDeleteIfNoVersion is SoftDeleteIfVersion of a copy at version zero:
// IF version IN (null, 0) (IF version = null for a timestamp version), no
// adapter.ParamExpected. Nil on a table without a version or without SoftDelete.
func (s *Table) SoftDeleteIfNoVersion() *adapter.Statement { return s.softNone }

// Delete is DELETE FROM t [USING TIMESTAMP ?] WHERE the primary key = ?:
// the adapter.ParamTimestamp if asked, then the key as adapter.ParamColumn markers.
func (s *Table) Delete(u Using) *adapter.Statement {
	if u&UsingTimestamp != 0 {
		return s.del[1]
	}
	return s.del[0]
}

// SoftDelete is the soft-delete rewrite: Insert of every column USING TTL
// n, with n the table's soft-delete TTL written as a literal. The caller
// sets the marker (if any) to true in the entity it binds. Nil for a table
// without SoftDelete.
func (s *Table) SoftDelete() *adapter.Statement { return s.softDelete }

// Counter is UPDATE t SET c = c + ? WHERE the primary key = ?, for the
// counter column c: a adapter.ParamDelta, then the key as adapter.ParamColumn markers. Nil
// for a column that is not a counter of this table.
func (s *Table) Counter(c *kandra.ColumnSchema) *adapter.Statement { return s.counters[c] }

// TokenRange is SELECT every column FROM t WHERE token(pk...) > ? AND
// token(pk...) <= ?: two adapter.ParamToken markers (int64, the exclusive start
// and the inclusive end of a range of the Murmur3 ring); the result is
// every column. Run with a page size, it scans one token range of the
// table page by page (a backfill, a full-table copy) without ALLOW
// FILTERING: a token range is a range of partitions.
func (s *Table) TokenRange() *adapter.Statement { return s.tokenRange }

// Lookups returns the statements of every lookup table, in the order of
// kandra.TableSchema.LookupTables (a fresh slice).
func (s *Table) Lookups() []*Lookup { return slices.Clone(s.lookups) }

// NumLookups is len(Lookups()) without the copy.
func (s *Table) NumLookups() int { return len(s.lookups) }

// Lookup returns the statements of the i-th lookup table.
func (s *Table) Lookup(i int) *Lookup { return s.lookups[i] }

// stmtBuilder renders the statements of one table.
type stmtBuilder struct {
	t  *kandra.TableSchema
	ks string
}

func (b *stmtBuilder) qualify(cqlName string) string {
	if b.ks == "" {
		return cqlName
	}
	return kandra.QuoteIdent(b.ks) + "." + cqlName
}

// sb collects the text and plan of one statement.
type sb struct {
	strings.Builder
	s adapter.StatementSpec
}

func newSB(table string) *sb { return &sb{s: adapter.StatementSpec{Table: table}} }

func (w *sb) mark(k adapter.ParamKind, c *kandra.ColumnSchema) {
	w.s.Params = append(w.s.Params, adapter.Param{Kind: k, Column: c})
}

// done is the statement written: idempotent unless it is conditional,
// adds to a counter, or writes a list's elements at an explicit timestamp
// (twice, they would be there twice).
func (w *sb) done() *adapter.Statement {
	w.s.CQL = w.String()
	w.s.Idempotent = !w.s.Conditional
	var timestamp, list bool
	for _, p := range w.s.Params {
		switch {
		case p.Kind == adapter.ParamDelta:
			w.s.Idempotent = false // a counter update adds at each application
		case p.Kind == adapter.ParamTimestamp:
			timestamp = true
		case (p.Kind == adapter.ParamColumn || p.Kind == adapter.ParamValue) && multiCellList(p.Column):
			list = true
		}
	}
	if timestamp && list {
		w.s.Idempotent = false
	}
	return adapter.NewStatement(w.s)
}

func (w *sb) names(cols []*kandra.ColumnSchema) {
	for i, c := range cols {
		if i > 0 {
			w.WriteString(", ")
		}
		w.WriteString(c.CQLName())
	}
}

// where writes "col = ? AND col = ?" with adapter.ParamColumn markers.
func (w *sb) where(cols []*kandra.ColumnSchema) { w.pairs(cols, " AND ", adapter.ParamColumn) }

// pairs writes "col = ?" for each of cols, joined by sep, each a marker of
// kind k.
func (w *sb) pairs(cols []*kandra.ColumnSchema, sep string, k adapter.ParamKind) {
	for i, c := range cols {
		if i > 0 {
			w.WriteString(sep)
		}
		w.WriteString(c.CQLName())
		w.WriteString(" = ?")
		w.mark(k, c)
	}
}

func (w *sb) using(u Using) {
	switch {
	case u&UsingTTL != 0 && u&UsingTimestamp != 0:
		w.WriteString(" USING TTL ? AND TIMESTAMP ?")
		w.mark(adapter.ParamTTL, nil)
		w.mark(adapter.ParamTimestamp, nil)
	case u&UsingTTL != 0:
		w.WriteString(" USING TTL ?")
		w.mark(adapter.ParamTTL, nil)
	case u&UsingTimestamp != 0:
		w.WriteString(" USING TIMESTAMP ?")
		w.mark(adapter.ParamTimestamp, nil)
	}
}

func (b *stmtBuilder) insertInto(w *sb, table string, cols []*kandra.ColumnSchema) {
	w.WriteString("INSERT INTO ")
	w.WriteString(b.qualify(table))
	w.WriteString(" (")
	w.names(cols)
	w.WriteString(") VALUES (")
	for i, c := range cols {
		if i > 0 {
			w.WriteString(", ")
		}
		w.WriteByte('?')
		w.mark(adapter.ParamColumn, c)
	}
	w.WriteByte(')')
}

func (b *stmtBuilder) insert(u Using, ifNotExists bool) *adapter.Statement {
	w := newSB(b.t.Name())
	b.insertInto(w, b.t.CQLName(), b.t.Columns())
	if ifNotExists {
		w.WriteString(" IF NOT EXISTS")
		w.s.Conditional = true
		w.s.Result = b.t.Columns() // the existing row the server returns when it does not apply
		u &= UsingTTL
	}
	w.using(u)
	return w.done()
}

func (b *stmtBuilder) softDelete(ttl int) *adapter.Statement {
	w := newSB(b.t.Name())
	b.insertInto(w, b.t.CQLName(), b.rowColumns(b.t.Columns()))
	w.WriteString(" USING TTL ")
	w.WriteString(strconv.Itoa(ttl))
	return w.done()
}

func (b *stmtBuilder) selectFrom(w *sb, table string, result []*kandra.ColumnSchema) {
	w.WriteString("SELECT ")
	w.names(result)
	w.WriteString(" FROM ")
	w.WriteString(b.qualify(table))
	w.WriteString(" WHERE ")
	w.s.Result = result
}

// selectRows is selectFrom of every column, with the first clustering
// column again at the end when the table has static columns (see
// Statement.HasPresence).
func (b *stmtBuilder) selectRows(w *sb) {
	if len(b.t.StaticColumns()) == 0 {
		b.selectFrom(w, b.t.CQLName(), b.t.Columns())
		return
	}
	w.WriteString("SELECT ")
	w.names(b.t.Columns())
	w.WriteString(", ")
	w.WriteString(b.t.ClusteringKeys()[0].CQLName())
	w.WriteString(" FROM ")
	w.WriteString(b.qualify(b.t.CQLName()))
	w.WriteString(" WHERE ")
	w.s.Result, w.s.Present = b.t.Columns(), true
}

func (b *stmtBuilder) selectKey() *adapter.Statement {
	w := newSB(b.t.Name())
	b.selectFrom(w, b.t.CQLName(), b.t.Columns())
	w.where(b.t.PrimaryKey())
	return w.done()
}

func (b *stmtBuilder) partition(r Range) *adapter.Statement {
	b2 := b
	w := newSB(b.t.Name())
	b.selectRows(w)
	w.where(b.t.PartitionKeys())
	for _, c := range b.t.ClusteringKeys()[:r.Prefix] {
		w.WriteString(" AND ")
		w.WriteString(c.CQLName())
		w.WriteString(" = ?")
		w.mark(adapter.ParamPrefix, c)
	}
	if len(b.t.ClusteringKeys()) > 0 {
		var ck *kandra.ColumnSchema
		if r.Prefix < len(b.t.ClusteringKeys()) {
			ck = b.t.ClusteringKeys()[r.Prefix]
		}
		bound := func(b Bound, n int, ops [3]string, k adapter.ParamKind) {
			if b == Unbounded {
				return
			}
			if n <= 1 {
				w.WriteString(" AND " + ck.CQLName() + ops[b])
				w.mark(k, ck)
				return
			}
			cols := b2.t.ClusteringKeys()[r.Prefix : r.Prefix+n]
			w.WriteString(" AND (")
			w.names(cols)
			w.WriteString(")" + strings.TrimSuffix(ops[b], "?") + "(")
			for i, c := range cols {
				if i > 0 {
					w.WriteString(", ")
				}
				w.WriteByte('?')
				w.mark(k, c)
			}
			w.WriteString(")")
		}
		bound(r.Lower, r.LowerN, [3]string{"", " >= ?", " > ?"}, adapter.ParamLowerBound)
		bound(r.Upper, r.UpperN, [3]string{"", " <= ?", " < ?"}, adapter.ParamUpperBound)
		if r.Reversed {
			w.WriteString(" ORDER BY ")
			for i, c := range b.t.ClusteringKeys() {
				if i > 0 {
					w.WriteString(", ")
				}
				w.WriteString(c.CQLName())
				if c.ClusteringOrder() == kandra.ClusteringDesc {
					w.WriteString(" ASC")
				} else {
					w.WriteString(" DESC")
				}
			}
		}
	}
	if r.Limit {
		w.WriteString(" LIMIT ?")
		w.mark(adapter.ParamLimit, nil)
	}
	return w.done()
}

func (b *stmtBuilder) tokenRange() *adapter.Statement {
	w := newSB(b.t.Name())
	b.selectRows(w)
	var tok strings.Builder
	tok.WriteString("token(")
	for i, c := range b.t.PartitionKeys() {
		if i > 0 {
			tok.WriteString(", ")
		}
		tok.WriteString(c.CQLName())
	}
	tok.WriteString(")")
	w.WriteString(tok.String())
	w.WriteString(" > ? AND ")
	w.mark(adapter.ParamToken, nil)
	w.WriteString(tok.String())
	w.WriteString(" <= ?")
	w.mark(adapter.ParamToken, nil)
	return w.done()
}

func (b *stmtBuilder) update(u Using) *adapter.Statement {
	versioned := b.t.VersionColumn() != nil
	if len(b.regular()) == 0 || versioned && u&UsingTimestamp != 0 {
		return nil
	}
	cond := noVersion
	if versioned {
		cond = versionExpected
	}
	return b.updateRow(u, "", cond)
}

// versionCond is the IF clause of a versioned table's UPDATE or DELETE.
type versionCond uint8

const (
	noVersion       versionCond = iota // no condition
	versionExpected                    // IF version = ?, a adapter.ParamExpected
	versionNull                        // IF version IN (null, 0) (= null for a timestamp): no version yet
)

// regular is the table's non-key columns, in column order.
func (b *stmtBuilder) regular() []*kandra.ColumnSchema {
	var set []*kandra.ColumnSchema
	for _, c := range b.t.Columns() {
		if c.Role() == kandra.RegularColumn {
			set = append(set, c)
		}
	}
	return set
}

// updateRow renders UPDATE t [USING ...] SET every non-key column = ? WHERE
// the primary key = ? [IF version ...]. ttl, if not "", is a literal TTL
// written instead of u's markers.
func (b *stmtBuilder) updateRow(u Using, ttl string, cond versionCond) *adapter.Statement {
	w := newSB(b.t.Name())
	b.updateInto(w, u, ttl, cond)
	return w.done()
}

func (b *stmtBuilder) updateInto(w *sb, u Using, ttl string, cond versionCond) {
	b.updateSet(w, u, ttl, b.regular(), cond)
}

// updateSet is updateInto setting only the columns set.
func (b *stmtBuilder) updateSet(w *sb, u Using, ttl string, set []*kandra.ColumnSchema, cond versionCond) {
	w.WriteString("UPDATE ")
	w.WriteString(b.qualify(b.t.CQLName()))
	if ttl != "" {
		w.WriteString(" USING TTL " + ttl)
	} else {
		w.using(u)
	}
	w.WriteString(" SET ")
	w.pairs(set, ", ", adapter.ParamColumn)
	w.WriteString(" WHERE ")
	w.where(b.t.PrimaryKey())
	b.ifVersion(w, cond)
}

// rowColumns is cols without the static columns: what a soft delete
// rewrites with its TTL, which must not expire the values the partition's
// other rows share.
func (b *stmtBuilder) rowColumns(cols []*kandra.ColumnSchema) []*kandra.ColumnSchema {
	var out []*kandra.ColumnSchema
	for _, c := range cols {
		if !c.IsStatic() {
			out = append(out, c)
		}
	}
	return out
}

// updateStatic renders UPDATE t [USING ...] SET every static column = ?
// WHERE the partition key = ?: a write of the partition's shared values
// that names no row (servers refuse clustering columns in the WHERE of an
// UPDATE that sets only static columns).
func (b *stmtBuilder) updateStatic(u Using) *adapter.Statement {
	w := newSB(b.t.Name())
	w.WriteString("UPDATE ")
	w.WriteString(b.qualify(b.t.CQLName()))
	w.using(u)
	w.WriteString(" SET ")
	w.pairs(b.t.StaticColumns(), ", ", adapter.ParamColumn)
	w.WriteString(" WHERE ")
	w.where(b.t.PartitionKeys())
	return w.done()
}

// selectByIndex renders SELECT every column FROM t WHERE c = ?, a read
// through c's secondary index (with the first clustering column again on a
// table with static columns, see Statement.HasPresence).
func (b *stmtBuilder) selectByIndex(r indexRead) *adapter.Statement {
	w := newSB(b.t.Name())
	b.selectRows(w)
	c := r.c
	switch r.op {
	case IndexNearest:
		sel := strings.TrimSuffix(w.String(), " WHERE ")
		w.Reset()
		w.WriteString(sel + " ORDER BY " + c.CQLName() + " ANN OF ?")
		w.mark(adapter.ParamColumn, c)
		w.WriteString(" LIMIT ?")
		w.mark(adapter.ParamLimit, nil)
	case IndexContains:
		w.WriteString(c.CQLName() + " CONTAINS ?")
		w.mark(adapter.ParamElement, c)
	case IndexContainsKey:
		w.WriteString(c.CQLName() + " CONTAINS KEY ?")
		w.mark(adapter.ParamMapKey, c)
	case IndexEntry:
		w.WriteString(c.CQLName() + "[?] = ?")
		w.mark(adapter.ParamMapKey, c)
		w.mark(adapter.ParamElement, c)
	case IndexRange:
		sep := ""
		if r.lower != Unbounded {
			w.WriteString(c.CQLName() + map[Bound]string{Inclusive: " >= ?", Exclusive: " > ?"}[r.lower])
			w.mark(adapter.ParamLowerBound, c)
			sep = " AND "
		}
		if r.upper != Unbounded {
			w.WriteString(sep + c.CQLName() + map[Bound]string{Inclusive: " <= ?", Exclusive: " < ?"}[r.upper])
			w.mark(adapter.ParamUpperBound, c)
		}
	default:
		w.where([]*kandra.ColumnSchema{c})
	}
	return w.done()
}

// selectStatic renders SELECT the partition key and the static columns
// FROM t WHERE the partition key = ? LIMIT 1: the partition's shared
// values, which every row of it returns (and a partition with statics but
// no rows returns once).
func (b *stmtBuilder) selectStatic() *adapter.Statement {
	w := newSB(b.t.Name())
	b.selectFrom(w, b.t.CQLName(), append(b.t.PartitionKeys(), b.t.StaticColumns()...))
	w.where(b.t.PartitionKeys())
	w.WriteString(" LIMIT 1")
	return w.done()
}

// softDeleteIf renders the soft delete of a versioned table: the row
// marker and every non-key column rewritten with the soft-delete TTL, in
// one conditional batch of the row (see SoftDeleteIfVersion).
func (b *stmtBuilder) softDeleteIf(ttl int, cond versionCond) *adapter.Statement {
	n := strconv.Itoa(ttl)
	w := newSB(b.t.Name())
	w.WriteString("BEGIN UNLOGGED BATCH ")
	b.insertInto(w, b.t.CQLName(), b.t.PrimaryKey())
	w.WriteString(" USING TTL " + n + "; ")
	b.updateSet(w, 0, n, b.rowColumns(b.regular()), cond)
	w.WriteString(" APPLY BATCH")
	return w.done()
}

// ifVersion writes the IF clause cond asks for.
func (b *stmtBuilder) ifVersion(w *sb, cond versionCond) {
	if cond == noVersion {
		return
	}
	w.WriteString(" IF ")
	w.WriteString(b.t.VersionColumn().CQLName())
	switch {
	case cond == versionExpected:
		w.WriteString(" = ?")
		w.mark(adapter.ParamExpected, b.t.VersionColumn())
	case b.t.VersionColumn().GoType() == reflect.TypeFor[time.Time]():
		w.WriteString(" = null")
	default:
		// An int64 version read as 0 was null or 0: the condition takes
		// both (kandra's own versions start at 1).
		w.WriteString(" IN (null, 0)")
	}
	w.s.Conditional = true
}

func (b *stmtBuilder) deleteIfVersion(cond versionCond) *adapter.Statement {
	w := newSB(b.t.Name())
	w.WriteString("DELETE FROM ")
	w.WriteString(b.qualify(b.t.CQLName()))
	w.WriteString(" WHERE ")
	w.where(b.t.PrimaryKey())
	b.ifVersion(w, cond)
	return w.done()
}

func (b *stmtBuilder) delete(u Using) *adapter.Statement {
	w := newSB(b.t.Name())
	w.WriteString("DELETE FROM ")
	w.WriteString(b.qualify(b.t.CQLName()))
	w.using(u)
	w.WriteString(" WHERE ")
	w.where(b.t.PrimaryKey())
	return w.done()
}

func (b *stmtBuilder) counter(c *kandra.ColumnSchema) *adapter.Statement {
	w := newSB(b.t.Name())
	w.WriteString("UPDATE ")
	w.WriteString(b.qualify(b.t.CQLName()))
	w.WriteString(" SET ")
	w.WriteString(c.CQLName())
	w.WriteString(" = ")
	w.WriteString(c.CQLName())
	w.WriteString(" + ?")
	w.mark(adapter.ParamDelta, nil)
	w.WriteString(" WHERE ")
	if c.IsStatic() {
		w.where(b.t.PartitionKeys()) // a static counter is the partition's
	} else {
		w.where(b.t.PrimaryKey())
	}
	return w.done()
}

func (b *stmtBuilder) lookup(l *kandra.LookupTableSchema) *Lookup {
	key := append(slices.Clone(l.PartitionKeys()), l.ClusteringKeys()...)
	carried := l.Carried()
	ls := &Lookup{lookup: l}

	if l.IsUnique() {
		// INSERT INTO lk (index, pk..., kandra_claim) VALUES (?, ..., ?) IF NOT EXISTS
		w := newSB(l.Name())
		w.WriteString("INSERT INTO ")
		w.WriteString(b.qualify(l.CQLName()))
		w.WriteString(" (")
		w.names(l.Columns())
		w.WriteString(", " + kandra.ClaimColumn + ") VALUES (")
		for i, c := range l.Columns() {
			if i > 0 {
				w.WriteString(", ")
			}
			w.WriteByte('?')
			w.mark(adapter.ParamColumn, c)
		}
		w.WriteString(", ?) IF NOT EXISTS")
		w.mark(adapter.ParamClaim, nil)
		w.s.Conditional = true
		ls.claim = w.done()

		ls.reclaim = b.claimUpdate(l, carried, false)
		ls.takeover = b.claimUpdate(l, carried, true)

		// DELETE FROM lk WHERE index = ? IF pk... = ? AND kandra_claim = ?
		w = newSB(l.Name())
		w.WriteString("DELETE FROM ")
		w.WriteString(b.qualify(l.CQLName()))
		w.WriteString(" WHERE ")
		w.where([]*kandra.ColumnSchema{l.IndexColumn()})
		b.ifHolder(w, carried, true)
		ls.release = w.done()
	} else {
		w := newSB(l.Name())
		b.insertInto(w, l.CQLName(), l.Columns())
		ls.insert = w.done()

		w = newSB(l.Name())
		b.insertInto(w, l.CQLName(), l.Columns())
		w.using(UsingTimestamp)
		ls.insertAt = w.done()

		w = newSB(l.Name())
		w.WriteString("DELETE FROM ")
		w.WriteString(b.qualify(l.CQLName()))
		w.using(UsingTimestamp)
		w.WriteString(" WHERE ")
		w.where(l.Columns())
		ls.delAt = w.done()
	}

	w := newSB(l.Name())
	b.selectFrom(w, l.CQLName(), key)
	w.where([]*kandra.ColumnSchema{l.IndexColumn()})
	ls.sel = w.done()

	w = newSB(l.Name())
	w.WriteString("DELETE FROM ")
	w.WriteString(b.qualify(l.CQLName()))
	w.WriteString(" WHERE ")
	w.where([]*kandra.ColumnSchema{l.IndexColumn()})
	ls.del = w.done()

	if l.IsUnique() {
		// The holder's key columns are regular columns of a unique
		// lookup's table, so WRITETIME of one is the claim's time. (A
		// non-unique lookup's table has no regular column to ask.)
		w = newSB(l.Name())
		w.WriteString("SELECT ")
		w.names(key)
		w.WriteString(", " + kandra.ClaimColumn + ", WRITETIME(" + kandra.ClaimColumn + "), WRITETIME(" + carried[0].CQLName() + ") FROM ")
		w.WriteString(b.qualify(l.CQLName()))
		w.WriteString(" WHERE ")
		w.s.Result = key
		w.s.WriteTime, w.s.Claim = true, true
		w.where([]*kandra.ColumnSchema{l.IndexColumn()})
		ls.selOwner = w.done()
	}
	return ls
}

// claimUpdate renders a unique lookup's UPDATE lk SET kandra_claim = ?
// WHERE index = ? IF pk... = ? (a renewal by the holder), or, for a move to
// another holder, UPDATE lk SET kandra_claim = ?, pk... = ? WHERE index = ?
// IF pk... = ? AND kandra_claim = ?.
func (b *stmtBuilder) claimUpdate(l *kandra.LookupTableSchema, carried []*kandra.ColumnSchema, move bool) *adapter.Statement {
	w := newSB(l.Name())
	w.WriteString("UPDATE ")
	w.WriteString(b.qualify(l.CQLName()))
	w.WriteString(" SET " + kandra.ClaimColumn + " = ?")
	w.mark(adapter.ParamClaim, nil)
	if move {
		w.WriteString(", ")
		w.pairs(carried, ", ", adapter.ParamColumn)
	}
	w.WriteString(" WHERE ")
	w.where([]*kandra.ColumnSchema{l.IndexColumn()})
	b.ifHolder(w, carried, move)
	return w.done()
}

// ifHolder writes " IF c = ? AND ..." with adapter.ParamExpected markers: a claim
// held by the entity whose key the expected values are; token adds " AND
// kandra_claim = ?", a adapter.ParamClaim: that very claim.
func (b *stmtBuilder) ifHolder(w *sb, carried []*kandra.ColumnSchema, token bool) {
	w.WriteString(" IF ")
	w.pairs(carried, " AND ", adapter.ParamExpected)
	if token {
		w.WriteString(" AND " + kandra.ClaimColumn + " = ?")
		w.mark(adapter.ParamClaim, nil)
	}
	w.s.Conditional = true
}
