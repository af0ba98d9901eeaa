package adapter

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/cqlstmt"
)

// ParamKind says where the value of one bind marker (?) of a [Statement]
// comes from.
type ParamKind uint8

const (
	// ParamColumn is the value of Param.Column in the entity being written
	// (or, in a WHERE clause, the entity that names the row).
	ParamColumn ParamKind = iota
	// ParamTTL is a time to live in seconds (USING TTL ?), an int.
	ParamTTL
	// ParamTimestamp is a write timestamp in microseconds since the Unix
	// epoch (USING TIMESTAMP ?), an int64 (time.Time.UnixMicro).
	ParamTimestamp
	// ParamExpected is the value a condition expects Param.Column to have
	// (IF version = ?, IF user_id = ?), taken from the entity as it was
	// read, not from the new one.
	ParamExpected
	// ParamDelta is a counter increment (SET c = c + ?), an int64.
	ParamDelta
	// ParamLowerBound is a lower bound of the clustering column Param.Column.
	ParamLowerBound
	// ParamUpperBound is an upper bound of the clustering column Param.Column.
	ParamUpperBound
	// ParamLimit is a row limit (LIMIT ?), an int.
	ParamLimit
	// ParamToken is a partition token (token(pk...) > ?), an int64 of the
	// Murmur3 partitioner's range.
	ParamToken
	// ParamClaim is a unique lookup's claim token (the kandra_claim column,
	// BIGINT), an int64 the runtime draws for each claim: a takeover or a
	// release applies only to the claim whose token it read.
	ParamClaim
	// ParamPrefix is the value the clustering column Param.Column equals
	// in a partition SELECT of a clustering prefix (Range.Prefix).
	ParamPrefix
	// ParamRaw is a marker of a hand-written statement (NewRawStatement):
	// a value of Param.Column's Go type, or, without a column, a value the
	// driver binds as it is.
	ParamRaw
	// ParamElement is one element of the collection column Param.Column
	// (a list's or set's element, a map's value) in a read through its
	// index (CONTAINS ?, m[?] = ?): a value of the element's Go type (a
	// set's map key type).
	ParamElement
	// ParamMapKey is one key of the map column Param.Column in a read
	// through its index (CONTAINS KEY ?, m[?] = ?): a value of the map's
	// key type.
	ParamMapKey
)

var paramKindNames = [...]string{"col", "ttl", "timestamp", "expected", "delta", "lower", "upper", "limit", "token", "claim", "prefix", "raw", "element", "mapkey"}

// String returns a short name: "col", "ttl", "timestamp", "expected",
// "delta", "lower", "upper", "limit", "token", "claim", "prefix", "raw",
// "element" or "mapkey".
func (k ParamKind) String() string {
	if int(k) < len(paramKindNames) {
		return paramKindNames[k]
	}
	return "ParamKind(" + strconv.FormatUint(uint64(k), 10) + ")"
}

// Param is one bind marker of a Statement: where its value comes from and,
// for column-typed values, the column (whose CQL and Go types a driver
// adapter converts by).
type Param struct {
	Kind   ParamKind
	Column *kandra.ColumnSchema // nil for ParamTTL, ParamTimestamp, ParamDelta, ParamLimit, ParamToken, ParamClaim
}

// String renders "col:email", "ttl", "expected:version".
func (p Param) String() string {
	if p.Column == nil {
		return p.Kind.String()
	}
	return p.Kind.String() + ":" + p.Column.Name()
}

// Statement is one prepared-statement text with its bind plan: the kind and
// column of every bind marker, in order, and the columns a SELECT returns.
// It is immutable but for one slot an adapter may cache its own plan of
// the statement in (Cached, Cache), and safe for concurrent use.
//
// The ParamColumn markers of a statement are contiguous; [AppendColumns]
// appends their values (field addresses) for an entity without reflection.
type Statement struct {
	cql         string
	params      []Param
	cols        []*kandra.ColumnSchema // the contiguous ParamColumn markers
	firstCol    int                    // index in params of cols[0]
	expected    []*kandra.ColumnSchema // the ParamExpected markers, in order
	result      []*kandra.ColumnSchema // selected columns
	conditional bool
	idempotent  bool   // see IsIdempotent
	writeTime   bool   // the row ends with one BIGINT WRITETIME(...) after result
	present     bool   // the row ends with the first clustering column, for a Present
	claim       bool   // the row has the claim token (BIGINT) after result, before the WRITETIME
	table       string // raw name of the table written or read, for metrics
	cache       atomic.Pointer[cached]
}

// cached is what Cache stored, with its owner.
type cached struct{ owner, v any }

// NewRawStatement is a statement written by hand (kstore.Prepare) for
// table t: its text as it is sent, one ParamRaw per marker, and the
// columns a SELECT returns, in order (none for a write). A statement with
// an IF clause is conditional. A SELECT is idempotent; so is a write
// that is not conditional, unless t is a counter table or has a list
// column that is not frozen: such a write may add to a counter or to a
// list (c = c + ?, l = l + ?, DELETE l[?]), or, with a timestamp, write a
// list's elements twice (see IsIdempotent), which the text alone does not
// always tell.
func NewRawStatement(t *kandra.TableSchema, cql string, params []Param, result []*kandra.ColumnSchema) *Statement {
	for _, p := range params {
		if p.Kind != ParamRaw {
			panic("kandra: NewRawStatement: a " + p.Kind.String() + " marker; raw statements have ParamRaw markers only")
		}
	}
	s := &Statement{table: t.Name(), cql: cql, params: slices.Clone(params), result: slices.Clone(result), conditional: cqlstmt.HasIF(cql)}
	switch {
	case s.conditional:
	case isSelect(cql):
		s.idempotent = true
	default:
		s.idempotent = !t.IsCounterTable() && !slices.ContainsFunc(t.Columns(), multiCellList)
	}
	return s
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

// Cached is the value owner stored with Cache, or nil when it stored none
// or another owner's replaced it. It is one atomic load: an adapter finds
// its plan of a statement here on every call, where a map lookup would
// cost several times that.
func (s *Statement) Cached(owner any) any {
	if c := s.cache.Load(); c != nil && c.owner == owner {
		return c.v
	}
	return nil
}

// Cache stores v for owner (comparable: normally a pointer of the
// adapter's), replacing what any owner stored. A statement has one slot:
// an adapter keeps its plans somewhere of its own as well (a statement
// may be run by two drivers), and treats the slot as a shortcut to them.
func (s *Statement) Cache(owner, v any) { s.cache.Store(&cached{owner, v}) }

// CQL is the statement text.
func (s *Statement) CQL() string { return s.cql }

// String is CQL.
func (s *Statement) String() string { return s.cql }

// Params returns the bind plan: one Param per marker, in order (a fresh
// slice).
func (s *Statement) Params() []Param { return slices.Clone(s.params) }

// NumParams is the number of bind markers.
func (s *Statement) NumParams() int { return len(s.params) }

// Param returns the i-th marker's Param, without a copy of the plan.
func (s *Statement) Param(i int) Param { return s.params[i] }

// NumResult is the number of columns a SELECT returns (0 for a write).
func (s *Statement) NumResult() int { return len(s.result) }

// Result returns the i-th returned column, in the order the row is
// scanned.
func (s *Statement) Result(i int) *kandra.ColumnSchema { return s.result[i] }

// HasPresence reports a SELECT whose rows end, after the NumResult
// columns, with the first clustering column again, to be scanned into a
// *Present: the partition SELECTs and the token-range scan of a table with
// static columns. A partition that has static values and no rows returns
// one row of them with null clustering columns, which is no entity; the
// runtime skips the rows whose Present is false.
func (s *Statement) HasPresence() bool { return s.present }

// HasWriteTime reports a SELECT whose rows end, after the NumResult
// columns, with one more value: a WRITETIME in microseconds, scanned into
// an *int64 (LookupStatements.SelectOwner).
func (s *Statement) HasWriteTime() bool { return s.writeTime }

// HasClaim reports a SELECT whose rows end, after the NumResult columns,
// with a unique lookup's claim token and the write times of the token and
// of the holder, each scanned into an *int64 (LookupStatements.SelectOwner
// of a unique lookup). Such a statement also reports HasWriteTime.
func (s *Statement) HasClaim() bool { return s.claim }

// IsConditional reports a lightweight transaction (IF NOT EXISTS, IF
// col = ?): the server answers whether it applied.
func (s *Statement) IsConditional() bool { return s.conditional }

// IsIdempotent reports a statement that leaves the same data whether the
// server applies it once or more: reads, and the plain writes and deletes
// of values. A driver may retry it, or send it to several coordinators at
// once (speculative execution), after an answer is lost.
//
// A statement that is not idempotent must be sent once: a lightweight
// transaction (a second one is answered "not applied" because the first
// applied), a counter update (each adds), and a write at an explicit
// timestamp (USING TIMESTAMP ?) of a list column that is not frozen (the
// server gives each element it writes a new cell, so two writes at one
// timestamp leave every element twice). Without an explicit timestamp a
// list write is idempotent: the driver stamps each attempt anew, and the
// later one's deletion of the list covers the earlier one's elements.
func (s *Statement) IsIdempotent() bool { return s.idempotent }

// TableName is the raw name of the table the statement reads or writes
// (a lookup table's name for lookup statements).
func (s *Statement) TableName() string { return s.table }

// ColumnsOffset is the index of the first ParamColumn marker; the values
// AppendColumns appends go there.
func (s *Statement) ColumnsOffset() int { return s.firstCol }

// AppendColumns appends to dst the addresses in e of the statement's
// ParamColumn markers, in order, through Table.ColumnPointers: no
// reflection, no allocation when dst has room. The statement must have been
// built for t's schema.
func AppendColumns[T any](t *kandra.Table[T], s *Statement, e *T, dst []any) []any {
	return t.ColumnPointers(e, s.cols, dst)
}

// AppendExpected appends to dst the addresses in old of the statement's
// ParamExpected markers (the values a condition expects), in order.
func AppendExpected[T any](t *kandra.Table[T], s *Statement, old *T, dst []any) []any {
	return t.ColumnPointers(old, s.expected, dst)
}

// AppendResult appends to dst the addresses in e of the columns the SELECT
// returns, in order: the scan targets of one row.
func AppendResult[T any](t *kandra.Table[T], s *Statement, e *T, dst []any) []any {
	return t.ColumnPointers(e, s.result, dst)
}

// Using says which USING clauses a write statement carries. Each is bound
// (USING TTL ? AND TIMESTAMP ?), so one statement text serves every value.
type Using uint8

const (
	// UsingTTL adds USING TTL ?: a ParamTTL marker.
	UsingTTL Using = 1 << iota
	// UsingTimestamp adds USING TIMESTAMP ?: a ParamTimestamp marker.
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
	// equality (ParamPrefix markers), at most the number of clustering
	// columns.
	Prefix       int
	Lower, Upper Bound
	// Reversed reads the partition in the reverse of its clustering order.
	Reversed bool
	// Limit adds LIMIT ? (a ParamLimit marker).
	Limit bool
}

// LookupStatements are the statements of one lookup table. Every column
// they bind is a column of the primary table (the index column and the
// primary key), so the values come from the primary entity.
type LookupStatements struct {
	lookup *kandra.LookupTableSchema
	// Insert writes the lookup row: INSERT INTO lk (index, pk..., ck...)
	// VALUES (...).
	insert *Statement
	// Select reads the primary key by the index value.
	sel *Statement
	// Delete removes the row of an index value unconditionally.
	del *Statement
	// SelectOwner reads the primary key and the row's write time.
	selOwner *Statement
	// DeleteAt removes the row of an index value at a given timestamp.
	delAt *Statement
	// InsertAt is Insert USING TIMESTAMP (non-unique).
	insertAt *Statement
	// The claims of a unique lookup.
	claim, reclaim, takeover, release *Statement
}

// Lookup is the lookup table the statements are for.
func (l *LookupStatements) Lookup() *kandra.LookupTableSchema { return l.lookup }

// Insert is INSERT INTO lk (index, pk..., ck...) VALUES (?, ...): every
// marker a ParamColumn of the primary entity. Nil for a unique lookup,
// whose rows are written by lightweight transactions only (Claim).
func (l *LookupStatements) Insert() *Statement { return l.insert }

// InsertAt is Insert USING TIMESTAMP ?: the ParamColumn markers, then a
// ParamTimestamp. A move writes the new row and deletes the old one at the
// same timestamp, so two moves of one entity applied out of order still
// leave the later one's rows. Nil for a unique lookup.
func (l *LookupStatements) InsertAt() *Statement { return l.insertAt }

// Claim is INSERT INTO lk (index, pk..., ck..., kandra_claim) VALUES (...)
// IF NOT EXISTS: a unique lookup's claim of a value, the ParamColumn
// markers of the entity, then the ParamClaim of a new token. Nil for a
// non-unique lookup.
func (l *LookupStatements) Claim() *Statement { return l.claim }

// Reclaim is UPDATE lk SET kandra_claim = ? WHERE index = ? IF pk... = ?:
// the holder renews its claim with a new token (ParamClaim, ParamColumn of
// the value, ParamExpected of the holder's key), so that a takeover that
// read the old token no longer applies. Nil for a non-unique lookup.
func (l *LookupStatements) Reclaim() *Statement { return l.reclaim }

// Takeover is UPDATE lk SET kandra_claim = ?, pk... = ? WHERE index = ? IF
// pk... = ? AND kandra_claim = ?: a unique lookup's claim moved to a new
// holder with a new token (ParamClaim, then the ParamColumn markers of the
// new holder's key and of the value), only while the old holder (the
// ParamExpected markers) still has it under the token read (the last
// ParamClaim). Nil for a non-unique lookup.
func (l *LookupStatements) Takeover() *Statement { return l.takeover }

// Release is DELETE FROM lk WHERE index = ? IF pk... = ? AND kandra_claim =
// ?: a unique lookup's claim given up by its holder (the ParamExpected
// markers), only under the token the holder read or took it with (the
// ParamClaim), so that a newer claim of the same holder survives. Nil for a
// non-unique lookup.
func (l *LookupStatements) Release() *Statement { return l.release }

// Select is SELECT pk..., ck... FROM lk WHERE index = ?: one ParamColumn
// marker (the index value); the result is the primary key, of the holder
// (unique) or of every holder, one per row (non-unique).
func (l *LookupStatements) Select() *Statement { return l.sel }

// Delete is DELETE FROM lk WHERE index = ?: every row of the value.
func (l *LookupStatements) Delete() *Statement { return l.del }

// SelectOwner is SELECT pk..., ck..., kandra_claim, WRITETIME(kandra_claim),
// WRITETIME(pk) FROM lk WHERE index = ? of a unique lookup, pk the
// holder's first key column: the entity that holds the claim, its token
// and the write times of the token and of the holder (HasClaim: three
// int64s after the result). Nil for a non-unique lookup.
func (l *LookupStatements) SelectOwner() *Statement { return l.selOwner }

// DeleteAt is DELETE FROM lk USING TIMESTAMP ? WHERE index = ? AND pk...
// = ? AND ck... = ?: a ParamTimestamp then the lookup row's key as
// ParamColumn markers, of a non-unique lookup. It removes one entity's row
// of a value as of the timestamp: a row written later (a move back, or a
// Save since) survives. Nil for a unique lookup.
func (l *LookupStatements) DeleteAt() *Statement { return l.delAt }

// TableStatements are the runtime statements of one table, rendered once
// (BuildStatements) and then only read, concurrently.
type TableStatements struct {
	schema     *kandra.TableSchema
	keyspace   string
	insert     [4]*Statement // by Using
	insertINE  [2]*Statement // by UsingTTL
	selectKey  *Statement
	partition  []partitionSlots // by Range.Prefix: made on first use
	builder    *stmtBuilder     // for them
	update     [4]*Statement    // by Using; nil when no non-key column
	del        [2]*Statement    // by UsingTimestamp
	softDelete *Statement
	// The versioned table's writes (nil without a version).
	create      [2]*Statement // by UsingTTL: IF version has no value
	delVersion  *Statement
	delNone     *Statement
	softVersion *Statement
	softNone    *Statement
	force       [4]*Statement // by Using: the unconditional UPDATE
	counters    map[*kandra.ColumnSchema]*Statement
	byIndex     map[indexRead]*Statement // SELECT ... WHERE through an index
	// The static columns' writes and read (nil without static columns).
	staticUpdate [4]*Statement // by Using
	staticSelect *Statement
	lookups      []*LookupStatements
	tokenRange   *Statement
}

// partitionSlots are the partition SELECTs of one prefix length, by
// lower bound, upper bound, order and limit.
type partitionSlots [3][3][2][2]atomic.Pointer[Statement]

// BuildStatements renders the runtime statements of t. keyspace, if not
// empty, qualifies every table name (keyspace.table), written through
// kandra.QuoteIdent; an invalid keyspace name is a *kandra.NameError.
func BuildStatements(t *kandra.TableSchema, keyspace string) (*TableStatements, error) {
	if t == nil {
		panic("kandra: BuildStatements: nil *kandra.TableSchema")
	}
	if keyspace != "" {
		if err := kandra.ValidateName(keyspace); err != nil {
			return nil, err
		}
	}
	b := &stmtBuilder{t: t, ks: keyspace}
	ts := &TableStatements{schema: t, keyspace: keyspace}
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
	ts.del[0] = b.delete(0)
	ts.del[1] = b.delete(UsingTimestamp)
	if t.IsCounterTable() {
		ts.counters = make(map[*kandra.ColumnSchema]*Statement)
		for _, c := range t.Columns() {
			if c.IsCounter() {
				ts.counters[c] = b.counter(c)
			}
		}
	}
	for _, c := range t.SecondaryIndexes() {
		if ts.byIndex == nil {
			ts.byIndex = make(map[indexRead]*Statement)
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
func (s *TableStatements) Schema() *kandra.TableSchema { return s.schema }

// Keyspace is the qualifier given to BuildStatements ("" for none).
func (s *TableStatements) Keyspace() string { return s.keyspace }

// Insert is INSERT INTO t (every column) VALUES (...), with USING TTL ? AND
// TIMESTAMP ? as u asks: every column as a ParamColumn, then ParamTTL, then
// ParamTimestamp. Nil for a counter table (counters cannot be inserted).
func (s *TableStatements) Insert(u Using) *Statement { return s.insert[u&3] }

// InsertIfNotExists is Insert with IF NOT EXISTS (a lightweight
// transaction), optionally USING TTL ?. A conditional statement cannot
// carry a client timestamp, so UsingTimestamp is ignored. Nil for a counter
// table.
func (s *TableStatements) InsertIfNotExists(u Using) *Statement { return s.insertINE[u&UsingTTL] }

// SelectByKey is SELECT every column FROM t WHERE every primary-key column
// = ?: the key as ParamColumn markers; the result is every column.
func (s *TableStatements) SelectByKey() *Statement { return s.selectKey }

// SelectPartition is SELECT every column FROM t WHERE the partition key =
// ?, with the prefix, bounds, order and limit of r: the partition key as
// ParamColumn markers, the first r.Prefix clustering columns as
// ParamPrefix markers, then ParamLowerBound, ParamUpperBound (on the
// clustering column after the prefix) and ParamLimit. A table without
// clustering columns ignores the bounds and the order. It panics on a
// Prefix past the clustering columns, or bounds with every clustering
// column fixed.
func (s *TableStatements) SelectPartition(r Range) *Statement {
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
	slot := &s.partition[r.Prefix][r.Lower][r.Upper][rev][lim]
	if st := slot.Load(); st != nil {
		return st
	}
	slot.CompareAndSwap(nil, s.builder.partition(Range{Prefix: r.Prefix, Lower: r.Lower, Upper: r.Upper, Reversed: rev == 1, Limit: lim == 1}))
	return slot.Load()
}

// UpdateStatic is UPDATE t [USING TTL ? AND TIMESTAMP ?] SET every static
// column = ? WHERE the partition key = ?: ParamTTL and ParamTimestamp as u
// asks, then the static columns and the partition key as ParamColumn
// markers. Nil for a table without static columns and for a counter table
// (whose counters only Counter changes).
func (s *TableStatements) UpdateStatic(u Using) *Statement { return s.staticUpdate[u&3] }

// IndexOp is how a read through a secondary index restricts its column.
type IndexOp uint8

const (
	// IndexEqual is c = ?, a ParamColumn marker: an index on a column's
	// value, or on a frozen collection whole.
	IndexEqual IndexOp = iota
	// IndexContains is c CONTAINS ?, a ParamElement marker: an index on a
	// collection's values.
	IndexContains
	// IndexContainsKey is c CONTAINS KEY ?, a ParamMapKey marker: an
	// index on a map's keys.
	IndexContainsKey
	// IndexEntry is c[?] = ?, a ParamMapKey then a ParamElement marker: an
	// index on a map's entries.
	IndexEntry
	// IndexRange is c >= ? (or >) and c <= ? (or <), ParamLowerBound and
	// ParamUpperBound markers as the bounds ask: an SAI index that reads
	// ranges (kandra.IndexSpec.Ranges).
	IndexRange
	// IndexNearest is no WHERE clause but ORDER BY c ANN OF ? LIMIT ?, a
	// ParamColumn (the query vector) then a ParamLimit marker: an ANN
	// index (kandra.VectorIndex), nearest rows first.
	IndexNearest
)

type indexRead struct {
	c            *kandra.ColumnSchema
	op           IndexOp
	lower, upper Bound // IndexRange's
}

// SelectByIndex is SELECT every column FROM t WHERE c = ?, through c's
// secondary index: c as a ParamColumn marker. Nil for a column without an
// index, and for an index on a collection's values, keys or entries (see
// SelectByIndexOp).
func (s *TableStatements) SelectByIndex(c *kandra.ColumnSchema) *Statement {
	return s.byIndex[indexRead{c: c}]
}

// SelectByIndexOp is SELECT every column FROM t WHERE c's index restricts
// it as op says, with the bounds of an IndexRange (at least one bounded).
// Nil when c's index does not read that way: IndexContains is for an
// index on values, IndexContainsKey on keys, IndexEntry on entries,
// IndexEqual on anything else, IndexRange where kandra.IndexSpec.Ranges.
func (s *TableStatements) SelectByIndexOp(c *kandra.ColumnSchema, op IndexOp, lower, upper Bound) *Statement {
	if op != IndexRange {
		lower, upper = Unbounded, Unbounded
	}
	return s.byIndex[indexRead{c: c, op: op, lower: lower, upper: upper}]
}

// SelectStatic is SELECT the partition key and every static column FROM t
// WHERE the partition key = ? LIMIT 1: the partition key as ParamColumn
// markers; the result is the partition key then the static columns. Nil
// for a table without static columns.
func (s *TableStatements) SelectStatic() *Statement { return s.staticSelect }

// Update is UPDATE t [USING TTL ? AND TIMESTAMP ?] SET every non-key column
// = ? WHERE the primary key = ?, and IF version = ? on a versioned table:
// ParamTTL and ParamTimestamp as u asks, the non-key columns then the key
// as ParamColumn markers, then a ParamExpected of the version column. A
// versioned (conditional) update cannot carry a timestamp: UsingTimestamp
// gives nil there. Nil for a counter table and for a table whose every
// column is in the key (use Insert).
func (s *TableStatements) Update(u Using) *Statement { return s.update[u&3] }

// UpdateIfNoVersion is the write of a versioned entity at version zero
// (new, or read from a row without a version): UPDATE t [USING TTL ?] SET
// every non-key column = ? WHERE the primary key = ? IF version IN (null,
// 0) (IF version = null for a timestamp version), which applies when no
// row has the key or its row has no version yet. A read cannot tell a
// null version from 0, so the condition takes both; kandra's own int64
// versions start at 1. An UPDATE writes no row marker, so a row written
// only by UPDATEs disappears once its cells expire. ParamTTL if u asks,
// the non-key columns, then the key. Nil on a table without a version.
func (s *TableStatements) UpdateIfNoVersion(u Using) *Statement { return s.create[u&UsingTTL] }

// ForceUpdate is Update without a condition: UPDATE t [USING TTL ? AND
// TIMESTAMP ?] SET every non-key column = ? WHERE the primary key = ?,
// ParamTTL and ParamTimestamp as u asks, then the non-key columns and the
// key. It is the write of a forced save on a versioned table, which,
// being an UPDATE, leaves no row marker; on a table without a version it
// is Update. Nil for a counter table and for a table whose every column is
// in the key.
func (s *TableStatements) ForceUpdate(u Using) *Statement { return s.force[u&3] }

// DeleteIfVersion is DELETE FROM t WHERE the primary key = ? IF version =
// ?: the key as ParamColumn markers, then a ParamExpected of the version.
// Nil on a table without a version.
func (s *TableStatements) DeleteIfVersion() *Statement { return s.delVersion }

// DeleteIfNoVersion is the delete of a copy at version zero: DELETE FROM t
// WHERE the primary key = ? IF version IN (null, 0) (IF version = null for
// a timestamp version), the key as ParamColumn markers. Nil on a table
// without a version.
func (s *TableStatements) DeleteIfNoVersion() *Statement { return s.delNone }

// SoftDeleteIfVersion is the soft delete of a versioned table, one
// conditional batch of the row: BEGIN UNLOGGED BATCH INSERT INTO t (the
// primary key) VALUES (?) USING TTL n; UPDATE t USING TTL n SET every
// non-key column = ? WHERE the primary key = ? IF version = ? APPLY BATCH,
// with n the soft-delete TTL as a literal: the key, the non-key columns
// and the key again as ParamColumn markers, then a ParamExpected of the
// version. The INSERT gives the row marker the same TTL as the cells, so
// the row vanishes whole once it passes, even when an INSERT wrote its
// marker earlier (a Save before the table had a Version, another client).
// Nil on a table without a version or without SoftDelete.
func (s *TableStatements) SoftDeleteIfVersion() *Statement { return s.softVersion }

// SoftDeleteIfNoVersion is SoftDeleteIfVersion of a copy at version zero:
// IF version IN (null, 0) (IF version = null for a timestamp version), no
// ParamExpected. Nil on a table without a version or without SoftDelete.
func (s *TableStatements) SoftDeleteIfNoVersion() *Statement { return s.softNone }

// Delete is DELETE FROM t [USING TIMESTAMP ?] WHERE the primary key = ?:
// the ParamTimestamp if asked, then the key as ParamColumn markers.
func (s *TableStatements) Delete(u Using) *Statement {
	if u&UsingTimestamp != 0 {
		return s.del[1]
	}
	return s.del[0]
}

// SoftDelete is the soft-delete rewrite: Insert of every column USING TTL
// n, with n the table's soft-delete TTL written as a literal. The caller
// sets the marker (if any) to true in the entity it binds. Nil for a table
// without SoftDelete.
func (s *TableStatements) SoftDelete() *Statement { return s.softDelete }

// Counter is UPDATE t SET c = c + ? WHERE the primary key = ?, for the
// counter column c: a ParamDelta, then the key as ParamColumn markers. Nil
// for a column that is not a counter of this table.
func (s *TableStatements) Counter(c *kandra.ColumnSchema) *Statement { return s.counters[c] }

// TokenRange is SELECT every column FROM t WHERE token(pk...) > ? AND
// token(pk...) <= ?: two ParamToken markers (int64, the exclusive start
// and the inclusive end of a range of the Murmur3 ring); the result is
// every column. Run with a page size, it scans one token range of the
// table page by page (a backfill, a full-table copy) without ALLOW
// FILTERING: a token range is a range of partitions.
func (s *TableStatements) TokenRange() *Statement { return s.tokenRange }

// Lookups returns the statements of every lookup table, in the order of
// kandra.TableSchema.LookupTables (a fresh slice).
func (s *TableStatements) Lookups() []*LookupStatements { return slices.Clone(s.lookups) }

// NumLookups is len(Lookups()) without the copy.
func (s *TableStatements) NumLookups() int { return len(s.lookups) }

// Lookup returns the statements of the i-th lookup table.
func (s *TableStatements) Lookup(i int) *LookupStatements { return s.lookups[i] }

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
	s *Statement
}

func newSB(table string) *sb { return &sb{s: &Statement{table: table}} }

func (w *sb) mark(k ParamKind, c *kandra.ColumnSchema) {
	if k == ParamColumn {
		if len(w.s.cols) == 0 {
			w.s.firstCol = len(w.s.params)
		} else if w.s.params[len(w.s.params)-1].Kind != ParamColumn {
			panic("kandra: internal error: ParamColumn markers not contiguous in " + w.String())
		}
		w.s.cols = append(w.s.cols, c)
	}
	if k == ParamExpected {
		w.s.expected = append(w.s.expected, c)
	}
	w.s.params = append(w.s.params, Param{Kind: k, Column: c})
}

func (w *sb) done() *Statement {
	w.s.cql = w.String()
	w.s.idempotent = !w.s.conditional
	var timestamp, list bool
	for _, p := range w.s.params {
		switch {
		case p.Kind == ParamDelta:
			w.s.idempotent = false // a counter update adds at each application
		case p.Kind == ParamTimestamp:
			timestamp = true
		case p.Kind == ParamColumn && multiCellList(p.Column):
			list = true
		}
	}
	if timestamp && list {
		w.s.idempotent = false
	}
	return w.s
}

func (w *sb) names(cols []*kandra.ColumnSchema) {
	for i, c := range cols {
		if i > 0 {
			w.WriteString(", ")
		}
		w.WriteString(c.CQLName())
	}
}

// where writes "col = ? AND col = ?" with ParamColumn markers.
func (w *sb) where(cols []*kandra.ColumnSchema) { w.pairs(cols, " AND ", ParamColumn) }

// pairs writes "col = ?" for each of cols, joined by sep, each a marker of
// kind k.
func (w *sb) pairs(cols []*kandra.ColumnSchema, sep string, k ParamKind) {
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
		w.mark(ParamTTL, nil)
		w.mark(ParamTimestamp, nil)
	case u&UsingTTL != 0:
		w.WriteString(" USING TTL ?")
		w.mark(ParamTTL, nil)
	case u&UsingTimestamp != 0:
		w.WriteString(" USING TIMESTAMP ?")
		w.mark(ParamTimestamp, nil)
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
		w.mark(ParamColumn, c)
	}
	w.WriteByte(')')
}

func (b *stmtBuilder) insert(u Using, ifNotExists bool) *Statement {
	w := newSB(b.t.Name())
	b.insertInto(w, b.t.CQLName(), b.t.Columns())
	if ifNotExists {
		w.WriteString(" IF NOT EXISTS")
		w.s.conditional = true
		u &= UsingTTL
	}
	w.using(u)
	return w.done()
}

func (b *stmtBuilder) softDelete(ttl int) *Statement {
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
	w.s.result = result
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
	w.s.result, w.s.present = b.t.Columns(), true
}

func (b *stmtBuilder) selectKey() *Statement {
	w := newSB(b.t.Name())
	b.selectFrom(w, b.t.CQLName(), b.t.Columns())
	w.where(b.t.PrimaryKey())
	return w.done()
}

func (b *stmtBuilder) partition(r Range) *Statement {
	w := newSB(b.t.Name())
	b.selectRows(w)
	w.where(b.t.PartitionKeys())
	for _, c := range b.t.ClusteringKeys()[:r.Prefix] {
		w.WriteString(" AND ")
		w.WriteString(c.CQLName())
		w.WriteString(" = ?")
		w.mark(ParamPrefix, c)
	}
	if len(b.t.ClusteringKeys()) > 0 {
		var ck *kandra.ColumnSchema
		if r.Prefix < len(b.t.ClusteringKeys()) {
			ck = b.t.ClusteringKeys()[r.Prefix]
		}
		if r.Lower != Unbounded {
			w.WriteString(" AND ")
			w.WriteString(ck.CQLName())
			if r.Lower == Inclusive {
				w.WriteString(" >= ?")
			} else {
				w.WriteString(" > ?")
			}
			w.mark(ParamLowerBound, ck)
		}
		if r.Upper != Unbounded {
			w.WriteString(" AND ")
			w.WriteString(ck.CQLName())
			if r.Upper == Inclusive {
				w.WriteString(" <= ?")
			} else {
				w.WriteString(" < ?")
			}
			w.mark(ParamUpperBound, ck)
		}
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
		w.mark(ParamLimit, nil)
	}
	return w.done()
}

func (b *stmtBuilder) tokenRange() *Statement {
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
	w.mark(ParamToken, nil)
	w.WriteString(tok.String())
	w.WriteString(" <= ?")
	w.mark(ParamToken, nil)
	return w.done()
}

func (b *stmtBuilder) update(u Using) *Statement {
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
	versionExpected                    // IF version = ?, a ParamExpected
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
func (b *stmtBuilder) updateRow(u Using, ttl string, cond versionCond) *Statement {
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
	w.pairs(set, ", ", ParamColumn)
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
func (b *stmtBuilder) updateStatic(u Using) *Statement {
	w := newSB(b.t.Name())
	w.WriteString("UPDATE ")
	w.WriteString(b.qualify(b.t.CQLName()))
	w.using(u)
	w.WriteString(" SET ")
	w.pairs(b.t.StaticColumns(), ", ", ParamColumn)
	w.WriteString(" WHERE ")
	w.where(b.t.PartitionKeys())
	return w.done()
}

// selectByIndex renders SELECT every column FROM t WHERE c = ?, a read
// through c's secondary index (with the first clustering column again on a
// table with static columns, see Statement.HasPresence).
func (b *stmtBuilder) selectByIndex(r indexRead) *Statement {
	w := newSB(b.t.Name())
	b.selectRows(w)
	c := r.c
	switch r.op {
	case IndexNearest:
		sel := strings.TrimSuffix(w.String(), " WHERE ")
		w.Reset()
		w.WriteString(sel + " ORDER BY " + c.CQLName() + " ANN OF ?")
		w.mark(ParamColumn, c)
		w.WriteString(" LIMIT ?")
		w.mark(ParamLimit, nil)
	case IndexContains:
		w.WriteString(c.CQLName() + " CONTAINS ?")
		w.mark(ParamElement, c)
	case IndexContainsKey:
		w.WriteString(c.CQLName() + " CONTAINS KEY ?")
		w.mark(ParamMapKey, c)
	case IndexEntry:
		w.WriteString(c.CQLName() + "[?] = ?")
		w.mark(ParamMapKey, c)
		w.mark(ParamElement, c)
	case IndexRange:
		sep := ""
		if r.lower != Unbounded {
			w.WriteString(c.CQLName() + map[Bound]string{Inclusive: " >= ?", Exclusive: " > ?"}[r.lower])
			w.mark(ParamLowerBound, c)
			sep = " AND "
		}
		if r.upper != Unbounded {
			w.WriteString(sep + c.CQLName() + map[Bound]string{Inclusive: " <= ?", Exclusive: " < ?"}[r.upper])
			w.mark(ParamUpperBound, c)
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
func (b *stmtBuilder) selectStatic() *Statement {
	w := newSB(b.t.Name())
	b.selectFrom(w, b.t.CQLName(), append(b.t.PartitionKeys(), b.t.StaticColumns()...))
	w.where(b.t.PartitionKeys())
	w.WriteString(" LIMIT 1")
	return w.done()
}

// softDeleteIf renders the soft delete of a versioned table: the row
// marker and every non-key column rewritten with the soft-delete TTL, in
// one conditional batch of the row (see SoftDeleteIfVersion).
func (b *stmtBuilder) softDeleteIf(ttl int, cond versionCond) *Statement {
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
		w.mark(ParamExpected, b.t.VersionColumn())
	case b.t.VersionColumn().GoType() == reflect.TypeFor[time.Time]():
		w.WriteString(" = null")
	default:
		// An int64 version read as 0 was null or 0: the condition takes
		// both (kandra's own versions start at 1).
		w.WriteString(" IN (null, 0)")
	}
	w.s.conditional = true
}

func (b *stmtBuilder) deleteIfVersion(cond versionCond) *Statement {
	w := newSB(b.t.Name())
	w.WriteString("DELETE FROM ")
	w.WriteString(b.qualify(b.t.CQLName()))
	w.WriteString(" WHERE ")
	w.where(b.t.PrimaryKey())
	b.ifVersion(w, cond)
	return w.done()
}

func (b *stmtBuilder) delete(u Using) *Statement {
	w := newSB(b.t.Name())
	w.WriteString("DELETE FROM ")
	w.WriteString(b.qualify(b.t.CQLName()))
	w.using(u)
	w.WriteString(" WHERE ")
	w.where(b.t.PrimaryKey())
	return w.done()
}

func (b *stmtBuilder) counter(c *kandra.ColumnSchema) *Statement {
	w := newSB(b.t.Name())
	w.WriteString("UPDATE ")
	w.WriteString(b.qualify(b.t.CQLName()))
	w.WriteString(" SET ")
	w.WriteString(c.CQLName())
	w.WriteString(" = ")
	w.WriteString(c.CQLName())
	w.WriteString(" + ?")
	w.mark(ParamDelta, nil)
	w.WriteString(" WHERE ")
	if c.IsStatic() {
		w.where(b.t.PartitionKeys()) // a static counter is the partition's
	} else {
		w.where(b.t.PrimaryKey())
	}
	return w.done()
}

func (b *stmtBuilder) lookup(l *kandra.LookupTableSchema) *LookupStatements {
	key := append(slices.Clone(l.PartitionKeys()), l.ClusteringKeys()...)
	carried := l.Carried()
	ls := &LookupStatements{lookup: l}

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
			w.mark(ParamColumn, c)
		}
		w.WriteString(", ?) IF NOT EXISTS")
		w.mark(ParamClaim, nil)
		w.s.conditional = true
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
		w.s.result = key
		w.s.writeTime, w.s.claim = true, true
		w.where([]*kandra.ColumnSchema{l.IndexColumn()})
		ls.selOwner = w.done()
	}
	return ls
}

// claimUpdate renders a unique lookup's UPDATE lk SET kandra_claim = ?
// WHERE index = ? IF pk... = ? (a renewal by the holder), or, for a move to
// another holder, UPDATE lk SET kandra_claim = ?, pk... = ? WHERE index = ?
// IF pk... = ? AND kandra_claim = ?.
func (b *stmtBuilder) claimUpdate(l *kandra.LookupTableSchema, carried []*kandra.ColumnSchema, move bool) *Statement {
	w := newSB(l.Name())
	w.WriteString("UPDATE ")
	w.WriteString(b.qualify(l.CQLName()))
	w.WriteString(" SET " + kandra.ClaimColumn + " = ?")
	w.mark(ParamClaim, nil)
	if move {
		w.WriteString(", ")
		w.pairs(carried, ", ", ParamColumn)
	}
	w.WriteString(" WHERE ")
	w.where([]*kandra.ColumnSchema{l.IndexColumn()})
	b.ifHolder(w, carried, move)
	return w.done()
}

// ifHolder writes " IF c = ? AND ..." with ParamExpected markers: a claim
// held by the entity whose key the expected values are; token adds " AND
// kandra_claim = ?", a ParamClaim: that very claim.
func (b *stmtBuilder) ifHolder(w *sb, carried []*kandra.ColumnSchema, token bool) {
	w.WriteString(" IF ")
	w.pairs(carried, " AND ", ParamExpected)
	if token {
		w.WriteString(" AND " + kandra.ClaimColumn + " = ?")
		w.mark(ParamClaim, nil)
	}
	w.s.conditional = true
}
