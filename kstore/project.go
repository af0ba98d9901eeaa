package kstore

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
)

// Column is a field handle of any value type (kandra.Field[T, V]), for
// the options that name several columns of one table (Columns).
type Column interface {
	Column() *kandra.ColumnSchema
}

// ColumnsOption is the option Columns returns; every read of entities
// takes it (Get, List, the index reads, Nearest, Scan and ScanAll).
type ColumnsOption struct{ cols []*kandra.ColumnSchema }

func (o ColumnsOption) apply(c *call) { c.columns, c.hasColumns = o.cols, true }
func (ColumnsOption) readOption()     {}
func (ColumnsOption) listOption()     {}
func (ColumnsOption) scanOption()     {}

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
	cols := make([]*kandra.ColumnSchema, len(fields))
	for i, f := range fields {
		if f != nil {
			cols[i] = f.Column()
		}
	}
	return ColumnsOption{cols}
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
	if len(cols) == len(st.ResultColumns()) {
		return st, nil // every column: the full read itself
	}
	var buf [128]byte
	return r.st.Project(st, cols, buf[:0]), nil
}

// sortColumns sorts cols in the table's order and drops repeats.
func sortColumns(cols []*kandra.ColumnSchema) []*kandra.ColumnSchema {
	slices.SortFunc(cols, func(a, b *kandra.ColumnSchema) int { return a.Position() - b.Position() })
	return slices.Compact(cols)
}
