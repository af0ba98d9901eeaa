package kstore

import (
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/catalog"
)

// The per-call options: what each call takes, and what each option sets
// in the call (see "Call options" in the package doc).

// option is what every per-call option does.
type option interface{ apply(*call) }

// ReadOption configures a read of one entity; see "Call options" in the package doc.
type ReadOption interface {
	option
	readOption()
}

// ListOption configures a read of a page of entities; see "Call options" in the package doc.
type ListOption interface {
	option
	listOption()
}

// WriteOption configures Save, ForceSave, Update, SaveAll and SaveStatic;
// see "Call options" in the package doc.
type WriteOption interface {
	option
	writeOption()
}

// InsertOption configures SaveIfNotExists; see "Call options" in the package doc.
type InsertOption interface {
	option
	insertOption()
}

// DeleteOption configures Delete, HardDelete, ForceDelete, SoftDelete,
// DeleteIf,
// DeleteAll and Raw.Exec; see "Call options" in the package doc.
type DeleteOption interface {
	option
	deleteOption()
}

// ScanOption configures Repo.Scan, ScanAll and CountAll; see "Whole-table
// reads" in the package doc.
type ScanOption interface {
	option
	scanOption()
}

// CounterOption configures Counter.Increment and Decrement; see "Call
// options" in the package doc.
type CounterOption interface {
	option
	counterOption()
}

type call struct {
	cons      kandra.Consistency
	hasCons   bool
	serial    kandra.Consistency
	hasSerial bool
	ttl       time.Duration
	hasTTL    bool
	ts        int64     // microseconds since the epoch
	tsAt      time.Time // the time given, for messages
	hasTS     bool

	pageSize    int
	hasPageSize bool
	cursor      Cursor
	hasCursor   bool
	lower       any // From's value's address (a *V), or a tuple bound's first
	lowerCol    *kandra.ColumnSchema
	lowerB      catalog.Bound
	upper       any // To's, as lower
	upperCol    *kandra.ColumnSchema
	upperB      catalog.Bound
	reversed    bool
	lowerTuple  []prefixValue          // FromTuple's (lowerCol and lower are its first); nil for From
	upperTuple  []prefixValue          // ToTuple's
	prefix      []prefixValue          // Equal's, in the order given
	skipDeleted bool                   // SkipDeleted
	upsert      bool                   // Upsert
	current     any                    // Current's *T
	omitNulls   bool                   // OmitNulls, WriteNulls, or the table's kandra.OmitNulls
	hasNulls    bool                   // OmitNulls or WriteNulls was given
	columns     []*kandra.ColumnSchema // Columns', as given (nil: every column)
	times       []*kandra.ColumnSchema // WithTimes'
	hasTimes    bool
	timesOut    [][]CellTime // the times of each row read, with WithTimes
	scores      bool         // WithScores
	scoresOut   []float32    // the score of each row read, with WithScores
	hasColumns  bool
	colSet      *columnSet  // Columns' own, for the projection cache
	scan        *scanTuning // a Scan's own options, nil when none given
}

// prefixValue is one Equal: a clustering column and its value's
// address (a *V of the column's Go type, as a field's).
type prefixValue struct {
	col *kandra.ColumnSchema
	v   any
}

// SkipDeletedOption is the option SkipDeleted returns; every read of
// entities takes it.
type SkipDeletedOption struct{}

func (SkipDeletedOption) apply(c *call) { c.skipDeleted = true }
func (SkipDeletedOption) readOption()   {}
func (SkipDeletedOption) listOption()   {}
func (SkipDeletedOption) scanOption()   {}

// SkipDeleted makes a read leave out soft-deleted rows (kandra.SoftDelete
// with a marker field that is true; a null marker counts as live); without
// it, reads return them. Get, GetMany and Lookup.Find report such a row as
// not found; List and the index reads (Index.Find, Range, the Contains
// reads) leave it out and read on until the page is full or the rows end;
// Lookup.FindAll leaves it out of its page of lookup rows, which may then
// hold fewer entities; Nearest reads one page and may return fewer than
// its limit. GetStatic and Raw.Query refuse it (a partition's statics and
// a hand-written SELECT have no row to judge). On a table without a marker
// it changes nothing.
func SkipDeleted() SkipDeletedOption { return SkipDeletedOption{} }

// ConsistencyOption is the option Consistency returns; every call takes it.
type ConsistencyOption struct{ c kandra.Consistency }

func (o ConsistencyOption) apply(c *call) { c.cons, c.hasCons = o.c, true }
func (ConsistencyOption) readOption()     {}
func (ConsistencyOption) listOption()     {}
func (ConsistencyOption) scanOption()     {}
func (ConsistencyOption) patchOption()    {}
func (ConsistencyOption) writeOption()    {}
func (ConsistencyOption) insertOption()   {}
func (ConsistencyOption) deleteOption()   {}
func (ConsistencyOption) counterOption()  {}

// Consistency sets the consistency of the call; it wins over the table's
// and the store's.
func Consistency(c kandra.Consistency) ConsistencyOption { return ConsistencyOption{c} }

// SerialConsistencyOption is the option SerialConsistency returns; the writes and
// deletes take it.
type SerialConsistencyOption struct{ c kandra.Consistency }

func (o SerialConsistencyOption) apply(c *call) { c.serial, c.hasSerial = o.c, true }
func (SerialConsistencyOption) patchOption()    {}
func (SerialConsistencyOption) writeOption()    {}
func (SerialConsistencyOption) insertOption()   {}
func (SerialConsistencyOption) deleteOption()   {}

// SerialConsistency sets the serial consistency of a call's lightweight
// transactions: SaveIfNotExists, every write of a versioned table, and the
// claims of unique lookups. A level that is not SERIAL or LOCAL_SERIAL
// makes the call fail with a *kerrors.ArgumentError before anything is
// sent.
func SerialConsistency(c kandra.Consistency) SerialConsistencyOption {
	return SerialConsistencyOption{c}
}

// TTLOption is the option TTL returns; Save, ForceSave, Update, SaveAll,
// SaveStatic and SaveIfNotExists take it.
type TTLOption struct{ d time.Duration }

func (o TTLOption) apply(c *call) { c.ttl, c.hasTTL = o.d, true }
func (TTLOption) patchOption()    {}
func (TTLOption) writeOption()    {}
func (TTLOption) insertOption()   {}

// TTL writes the row with a time to live (USING TTL): a whole number of
// seconds, 0 for none, up to kandra.MaxWriteTTL of the keyspace's targets.
// Another value is a *kerrors.ArgumentError and nothing is sent.
func TTL(d time.Duration) TTLOption { return TTLOption{d} }

// TimestampOption is the option Timestamp returns; Save, ForceSave,
// Update, SaveAll, SaveStatic and the deletes take it (Raw.Exec refuses
// it).
type TimestampOption struct{ t time.Time }

func (o TimestampOption) apply(c *call) { c.ts, c.tsAt, c.hasTS = o.t.UnixMicro(), o.t, true }
func (TimestampOption) patchOption()    {}
func (TimestampOption) writeOption()    {}
func (TimestampOption) deleteOption()   {}

// NullsOption is the option OmitNulls and WriteNulls return.
type NullsOption struct{ omit bool }

func (o NullsOption) apply(c *call) { c.omitNulls, c.hasNulls = o.omit, true }
func (NullsOption) writeOption()    {}
func (NullsOption) insertOption()   {}

// OmitNulls leaves the columns whose values are null (a nil pointer,
// slice or map, an empty collection, a value sent as null) out of a
// Save, ForceSave, SaveIfNotExists, Update or SaveAll: they are sent as
// the native protocol's "unset", so the write leaves no null cell (a
// tombstone) and keeps what those columns held. Save is then no longer a
// full replace of the row: a column the entity holds as null keeps the
// row's value. Update ignores it: it writes only the columns that
// changed, a column changed to null as null (that is the change), and
// under a TTL every column, nulls as null, so that no cell outlives the
// row. A soft delete, which rewrites the row with its TTL, writes every
// cell too.
// Without it, a null is written as null, which is a
// tombstone on the server: a sparse entity saved often leaves one per
// null column per write.
// A table declared with kandra.OmitNulls does it on every such write.
func OmitNulls() NullsOption { return NullsOption{true} }

// WriteNulls writes null columns as null, a full replace of the row by a
// Save, on a table declared with kandra.OmitNulls (the default of every
// other table).
func WriteNulls() NullsOption { return NullsOption{false} }

// CurrentOption is the option Current returns.
type CurrentOption struct{ dst any }

func (o CurrentOption) apply(c *call) { c.current = o.dst }
func (CurrentOption) insertOption()   {}

// Current has SaveIfNotExists read into dst the row that kept it from
// writing, as the server returns it with its refusal (every column): the
// caller learns who holds the key without another read. dst is left as it
// was when the row was written; it must be a *T of the repository's T (a
// *kerrors.ArgumentError otherwise, nothing sent).
func Current[T any](dst *T) CurrentOption { return CurrentOption{dst} }

// Timestamp writes with a client write time (USING TIMESTAMP), sent in
// microseconds since the Unix epoch (t.UnixMicro: finer digits are
// dropped). A time before the epoch, or more than WithMaxTimestampAhead
// past the store's clock, is a *kerrors.ArgumentError and nothing is
// sent: a write from the future wins over every later write of the row
// until that time comes. A write of a versioned table is conditional and
// cannot carry one (ForceSave and ForceDelete can).
func Timestamp(t time.Time) TimestampOption { return TimestampOption{t} }

// PageOption is the option PageSize, After, Equal, From, To and Reversed
// return; the list calls take it.
type PageOption struct {
	// p is the option, one pointer so that handing it to a call (into
	// the option interface) copies a word and allocates nothing; nil for
	// the zero PageOption, which does nothing.
	p *pageOpt
}

// pageOpt is a PageOption's content.
type pageOpt struct {
	kind  pageKind
	bound catalog.Bound
	n     int
	col   *kandra.ColumnSchema
	// Equal's, From's and To's value's address (a *V), as a field's: one
	// allocation with the option (valueOpt); After's *Cursor (cursorOpt);
	// FromTuple's and ToTuple's []prefixValue. The rare ones live here so
	// that the common ones stay small: 40 bytes, where a Cursor and a
	// tuple of their own made 104.
	v any
}

// cursorOpt is After's option with its cursor, in one allocation.
type cursorOpt struct {
	pageOpt
	c Cursor
}

// valueOpt is the option of a value of Go type V (Equal, From, To) with
// the value, in one allocation: its pageOpt's v is &value.
type valueOpt[V any] struct {
	pageOpt
	value V
}

func newValueOpt[V any](kind pageKind, col *kandra.ColumnSchema, v V, b catalog.Bound) PageOption {
	o := &valueOpt[V]{pageOpt: pageOpt{kind: kind, col: col, bound: b}, value: v}
	o.v = &o.value
	return PageOption{&o.pageOpt}
}

// pageKind says which PageOption it is: a struct, not a closure, so that
// an option allocates nothing but itself.
type pageKind uint8

const (
	pageNone pageKind = iota // the zero PageOption: does nothing
	pageSize
	pageAfter
	pageEqual
	pageFrom
	pageTo
	pageReversed
	pageFromTuple
	pageToTuple
)

func (po PageOption) apply(c *call) {
	o := po.p
	if o == nil {
		return
	}
	switch o.kind {
	case pageSize:
		c.pageSize, c.hasPageSize = o.n, true
	case pageAfter:
		c.cursor, c.hasCursor = *o.v.(*Cursor), true
	case pageEqual:
		c.prefix = append(c.prefix, prefixValue{o.col, o.v})
	case pageFrom:
		c.lower, c.lowerCol, c.lowerB, c.lowerTuple = o.v, o.col, o.bound, nil
	case pageTo:
		c.upper, c.upperCol, c.upperB, c.upperTuple = o.v, o.col, o.bound, nil
	case pageReversed:
		c.reversed = true
	case pageFromTuple:
		t := o.v.([]prefixValue)
		c.lowerTuple, c.lowerB, c.lowerCol, c.lower = t, o.bound, nil, nil
		if len(t) > 0 {
			c.lowerCol, c.lower = t[0].col, t[0].v
		}
	case pageToTuple:
		t := o.v.([]prefixValue)
		c.upperTuple, c.upperB, c.upperCol, c.upper = t, o.bound, nil, nil
		if len(t) > 0 {
			c.upperCol, c.upper = t[0].col, t[0].v
		}
	}
}
func (PageOption) listOption() {}

// scanOption: a Scan takes PageSize; the other PageOptions are refused
// there (checkScan).
func (PageOption) scanOption() {}

// PageSize sets the rows per page of a list call (default 100), 1 to
// MaxPageSize; another value is a *kerrors.ArgumentError.
func PageSize(n int) PageOption {
	return PageOption{&pageOpt{kind: pageSize, n: n}}
}

// After resumes a list call at a cursor returned by Iter.Cursor. A cursor
// of another query (another table, partition, bounds or order) is a
// *kerrors.ArgumentError, as is a sealed cursor (one that would show a
// Sensitive value, see WithCursorKey) of a store with another key.
func After(c Cursor) PageOption {
	o := &cursorOpt{pageOpt: pageOpt{kind: pageAfter}, c: c}
	o.v = &o.c
	return PageOption{&o.pageOpt}
}

// Equal restricts List to the rows whose clustering column f equals v.
// Equal on the first clustering column, then on the second, and so on,
// lists a prefix of the clustering key: Equal(day, d) lists one day of a
// partition clustered by (day, hour). The columns must be the first ones
// of the clustering key, each once, in any order of the options; a gap
// (the second without the first) is a *kerrors.ArgumentError, since servers
// refuse it unless ALLOW FILTERING, which kandra never sends.
func Equal[T, V any](f kandra.Field[T, V], v V) PageOption {
	return newValueOpt(pageEqual, f.Column(), v, catalog.Unbounded)
}

// From bounds List to rows whose clustering column f is >= v (inclusive)
// or > v. f must be the clustering column after those Equal fixes: the
// first one without Equal; another field is a *kerrors.ArgumentError.
//
// In a column stored in descending order (kandra.ClusteringDesc), From is
// still the smaller end: From(t, a) and To(t, b) list a <= t <= b, newest
// first, the table's order; Reversed lists them oldest first.
func From[T, V any](f kandra.Field[T, V], v V, inclusive bool) PageOption {
	return newValueOpt(pageFrom, f.Column(), v, bound(inclusive))
}

// To bounds List to rows whose clustering column f is <= v (inclusive) or
// < v, on the column From bounds (see From).
func To[T, V any](f kandra.Field[T, V], v V, inclusive bool) PageOption {
	return newValueOpt(pageTo, f.Column(), v, bound(inclusive))
}

// TupleValue is one value of a tuple bound (FromTuple, ToTuple): a
// clustering field and its value.
type TupleValue[T any] struct{ p prefixValue }

// At is the value v of clustering field f in a tuple bound.
func At[T, V any](f kandra.Field[T, V], v V) TupleValue[T] {
	return TupleValue[T]{prefixValue{f.Column(), &v}}
}

// FromTuple bounds List to the rows whose clustering columns, from the
// first one Equal does not fix, compare as a tuple >= (inclusive) or > the
// values given, the columns in clustering order:
// FromTuple(true, At(kind, 2), At(pass, 0), At(taskID, 100)) is
// (kind, pass, task_id) >= (2, 0, 100). Tuples compare by value, column
// after column, whatever each column's clustering order, as servers
// compare them. A tuple bound and From (or To and ToTuple) replace each
// other; one of each side bounds a slice, of any lengths. Columns out of
// that order, or none, are a *kerrors.ArgumentError.
func FromTuple[T any](inclusive bool, vals ...TupleValue[T]) PageOption {
	return PageOption{&pageOpt{kind: pageFromTuple, bound: bound(inclusive), v: tupleOf(vals)}}
}

// ToTuple bounds List to the rows whose clustering columns compare as a
// tuple <= (inclusive) or < the values given (see FromTuple).
func ToTuple[T any](inclusive bool, vals ...TupleValue[T]) PageOption {
	return PageOption{&pageOpt{kind: pageToTuple, bound: bound(inclusive), v: tupleOf(vals)}}
}

func tupleOf[T any](vals []TupleValue[T]) []prefixValue {
	out := make([]prefixValue, len(vals)) // never nil: an empty tuple is given, and refused by checkRange
	for i, v := range vals {
		out[i] = v.p
	}
	return out
}

// Reversed lists in the reverse of the table's clustering order.
func Reversed() PageOption { return PageOption{&reversed} }

var reversed = pageOpt{kind: pageReversed} // read only

func bound(inclusive bool) catalog.Bound {
	if inclusive {
		return catalog.Inclusive
	}
	return catalog.Exclusive
}

// applyCall gathers the options of one call. o.apply is called through
// the generic dictionary, where escape analysis sees nothing: the call
// it fills goes to the heap. So only a call that has options pays that
// allocation (a call is a few hundred bytes); one without returns the
// zero call, which stays on the caller's stack.
func applyCall[O option](opts []O) call {
	if len(opts) == 0 {
		return call{}
	}
	c := new(call)
	for _, o := range opts {
		o.apply(c)
	}
	return *c
}
