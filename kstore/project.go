package kstore

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
)

// Column is a field handle of any value type (kandra.Field[T, V]), for
// the options that name several columns of one table (Columns).
type Column interface {
	Column() *kandra.ColumnSchema
}

// ColumnsOption is the option Columns returns; the reads of entities take
// it (Get, GetMany, List, ListMerged, Find, FindAll, the index reads,
// Nearest, Where, GetTimes, Scan and ScanAll). Made once and kept, it
// costs nothing per call.
type ColumnsOption struct{ set *columnSet }

// columnSet is a Columns: its columns, and their positions as a bit set
// when they all fit in 64 bits (the cache key of a projection).
type columnSet struct {
	cols []*kandra.ColumnSchema
	mask uint64
	wide bool // a position past 63: no mask
}

func (o ColumnsOption) apply(c *call) {
	c.hasColumns = true
	if o.set != nil {
		c.columns, c.colSet = o.set.cols, o.set
	}
}
func (ColumnsOption) readOption() {}
func (ColumnsOption) listOption() {}
func (ColumnsOption) scanOption() {}

// Columns reads only the columns of fields (and the primary key's, so a
// row read can be written back by key; and the soft-delete marker's with
// SkipDeleted): a projection. The other fields of each entity read are
// their zero value, so a listing does not fetch the blobs it does not
// show. Fields of another table, and no field at all, are a
// *kerrors.ArgumentError before anything is sent.
//
// An entity read with Columns is not the row: do not Save it (that would
// write its zero fields over the row's values); change what it shows with
// Patch.
func Columns(fields ...Column) ColumnsOption {
	set := &columnSet{cols: make([]*kandra.ColumnSchema, len(fields))}
	for i, f := range fields {
		if f != nil {
			set.cols[i] = f.Column()
		}
	}
	for _, c := range set.cols {
		switch {
		case c == nil:
		case c.Position() < 64:
			set.mask |= 1 << c.Position()
		default:
			set.wide = true
		}
	}
	return ColumnsOption{set}
}

// projKey is a projection's place in a Repo's cache: the full statement,
// and the positions of the columns read.
type projKey struct {
	st   *adapter.Statement
	mask uint64
}

// projections caches a Repo's projected statements.
type projections struct {
	mu sync.RWMutex
	m  map[projKey]*adapter.Statement
}

// project is st (a SELECT of every column) reading only what c's Columns
// ask for, or st itself without Columns.
func (r *Repo[T]) project(op string, st *adapter.Statement, c *call) (*adapter.Statement, error) {
	if !c.hasColumns {
		return st, nil
	}
	if len(c.columns) == 0 {
		return nil, r.argErr(op, "Columns", "no field: name the fields to read, or leave Columns out to read every column")
	}
	// The cache: a Columns made once and a table of at most 64 columns
	// find their statement without allocating.
	var key projKey
	if set := c.colSet; set != nil && !set.wide && r.ts.NumColumns() <= 64 && r.ownsAll(set.cols) {
		key = projKey{st: st, mask: set.mask | r.keyMask}
		if sd := r.marker(); c.skipDeleted && sd != nil {
			key.mask |= 1 << sd.Position()
		}
		r.proj.mu.RLock()
		p := r.proj.m[key]
		r.proj.mu.RUnlock()
		if p != nil {
			return p, nil
		}
	}
	cols := make([]*kandra.ColumnSchema, 0, len(r.key)+len(c.columns)+1)
	cols = append(cols, r.key...)
	for i, col := range c.columns {
		if col == nil || col.Table() != r.ts {
			var names []string
			for _, k := range r.ts.Columns() {
				names = append(names, k.GoName())
			}
			what := "a nil field"
			if col != nil {
				what = "field " + col.GoName() + " of " + col.Table().Name()
			}
			return nil, r.argErr(op, "Columns", "field "+strconv.Itoa(i)+" is "+what+", not a field of "+r.ts.Name()+" (its fields: "+strings.Join(names, ", ")+")")
		}
		cols = append(cols, col)
	}
	if c.skipDeleted {
		if sd := r.ts.SoftDelete(); sd != nil && sd.Marker != nil {
			cols = append(cols, sd.Marker)
		}
	}
	cols = sortColumns(cols)
	p := st // every column: the full read itself
	if len(cols) != len(st.ResultColumns()) {
		var buf [128]byte
		p = r.st.Project(st, cols, buf[:0])
	}
	if key.st != nil {
		r.proj.mu.Lock()
		if r.proj.m == nil {
			r.proj.m = map[projKey]*adapter.Statement{}
		}
		if len(r.proj.m) < maxProjections {
			r.proj.m[key] = p
		}
		r.proj.mu.Unlock()
	}
	return p, nil
}

// maxProjections bounds a Repo's cache of projections: a program has a
// fixed set of reads.
const maxProjections = 1024

// ownsAll reports that every one of cols is a column of r's table.
func (r *Repo[T]) ownsAll(cols []*kandra.ColumnSchema) bool {
	for _, c := range cols {
		if c == nil || c.Table() != r.ts {
			return false
		}
	}
	return true
}

// sortColumns sorts cols in the table's order and drops repeats.
func sortColumns(cols []*kandra.ColumnSchema) []*kandra.ColumnSchema {
	slices.SortFunc(cols, func(a, b *kandra.ColumnSchema) int { return a.Position() - b.Position() })
	return slices.Compact(cols)
}
