package adapter

import (
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/kandra-go/kandra"
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
	// ParamRaw is a marker of a hand-written statement (kstore.Prepare):
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
	// ParamValue is a value of Param.Column's Go type that the call gives
	// (a partial write's SET c = ?, c = c + ?, a condition's IF c < ?), not
	// a field of the entity written.
	ParamValue
	// ParamIndex is a list's index (l[?] = ?), an int.
	ParamIndex
	// ParamKeys is a set of keys of the map column Param.Column (m = m -
	// ?): a map[K]struct{} of the map's key type K.
	ParamKeys
	// ParamField is one field of the user-defined type column
	// Param.Column (u.f = ?): field number Param.Field of the type, a
	// value of the Go struct field's type.
	ParamField
)

var paramKindNames = [...]string{"col", "ttl", "timestamp", "expected", "delta", "lower", "upper", "limit", "token", "claim", "prefix", "raw", "element", "mapkey", "value", "index", "keys", "field"}

// String returns a short name: "col", "ttl", "timestamp", "expected",
// "delta", "lower", "upper", "limit", "token", "claim", "prefix", "raw",
// "element", "mapkey", "value", "index", "keys" or "field".
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
	Column *kandra.ColumnSchema // nil for ParamTTL, ParamTimestamp, ParamDelta, ParamLimit, ParamToken, ParamClaim, ParamIndex
	// Field is the field number of a ParamField, in the user-defined
	// type's order (CQLType.Fields).
	Field int
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
// The ParamColumn markers of a statement are contiguous (Columns). The
// runtime builds its statements once per table, and a statement written
// by hand (kstore.Prepare) once; NewStatement makes one from its parts.
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
// an *int64 (a lookup's owner read).
func (s *Statement) HasWriteTime() bool { return s.writeTime }

// HasClaim reports a SELECT whose rows end, after the NumResult columns,
// with a unique lookup's claim token and the write times of the token and
// of the holder, each scanned into an *int64 (a lookup's owner read
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

// ColumnsOffset is the index of the first ParamColumn marker: Columns
// are bound from there.
func (s *Statement) ColumnsOffset() int { return s.firstCol }

// Columns are the columns of the statement's ParamColumn markers, in
// order (they are contiguous, from ColumnsOffset). The slice is the
// statement's own: do not modify it.
func (s *Statement) Columns() []*kandra.ColumnSchema { return s.cols }

// ExpectedColumns are the columns of the statement's ParamExpected
// markers (the values a condition expects), in order. The slice is the
// statement's own: do not modify it.
func (s *Statement) ExpectedColumns() []*kandra.ColumnSchema { return s.expected }

// ResultColumns are the columns a SELECT returns, in order (Result(i) for
// each). The slice is the statement's own: do not modify it.
func (s *Statement) ResultColumns() []*kandra.ColumnSchema { return s.result }

// StatementSpec is what NewStatement makes a Statement of.
type StatementSpec struct {
	// Table is the raw name of the table read or written.
	Table string
	// CQL is the statement's text, as it is sent.
	CQL string
	// Params is the bind plan: one Param per marker, in order; the
	// ParamColumn markers must be contiguous.
	Params []Param
	// Result are the columns a SELECT returns, in order.
	Result []*kandra.ColumnSchema
	// Conditional, Idempotent, WriteTime, Present and Claim are what
	// IsConditional, IsIdempotent, HasWriteTime, HasPresence and HasClaim
	// report.
	Conditional, Idempotent, WriteTime, Present, Claim bool
}

// NewStatement makes the statement of spec (its slices are copied). It
// panics when the ParamColumn markers are not contiguous: the runtime binds
// them as one run.
func NewStatement(spec StatementSpec) *Statement {
	s := &Statement{table: spec.Table, cql: spec.CQL, params: slices.Clone(spec.Params), result: slices.Clone(spec.Result),
		conditional: spec.Conditional, idempotent: spec.Idempotent, writeTime: spec.WriteTime, present: spec.Present, claim: spec.Claim}
	for i, p := range s.params {
		switch p.Kind {
		case ParamColumn:
			if len(s.cols) == 0 {
				s.firstCol = i
			} else if s.params[i-1].Kind != ParamColumn {
				panic("kandra: NewStatement: ParamColumn markers not contiguous in " + spec.CQL)
			}
			s.cols = append(s.cols, p.Column)
		case ParamExpected:
			s.expected = append(s.expected, p.Column)
		}
	}
	return s
}
