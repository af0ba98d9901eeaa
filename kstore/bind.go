package kstore

import (
	"reflect"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
	"github.com/kandra-go/kandra/internal/lookupval"
)

// The values of a statement's markers, in the order of its bind plan.

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
	return r.appendWrite(make([]any, 0, s.NumParams()), nil, s, c, e, old)
}

// appendWrite is bindWrite appending to vals, which sc (if not nil)
// holds: the TTL and timestamp are bound by their address in sc.
func (r *Repo[T]) appendWrite(vals []any, sc *scratch, s *adapter.Statement, c *call, e, old *T) []any {
	for i := 0; i < s.ColumnsOffset(); i++ {
		vals = appendParam(vals, s.Param(i), c, sc)
	}
	first := len(vals)
	vals = catalog.AppendColumns(r.t, s, e, vals)
	if c.omitNulls {
		for j, col := range s.Columns() {
			if nullAt(col, vals[first+j]) {
				vals[first+j] = adapter.Unset
			}
		}
	}
	n := len(vals)
	for i := n; i < s.NumParams(); i++ {
		p := s.Param(i)
		if p.Kind == adapter.ParamExpected {
			vals = catalog.AppendExpected(r.t, s, old, vals)
			break
		}
		vals = appendParam(vals, p, c, sc)
	}
	return vals
}

// appendParam appends the value of marker p (not a column's) from c's
// options; a TTL or a timestamp by its address in sc (see
// scratch.timestamp), or by value when sc is nil.
func appendParam(vals []any, p adapter.Param, c *call, sc *scratch) []any {
	switch p.Kind {
	case adapter.ParamTTL:
		return append(vals, sc.ttl(int(c.ttl/time.Second)))
	case adapter.ParamTimestamp:
		return append(vals, sc.timestamp(c.ts))
	case adapter.ParamLowerBound:
		return append(vals, tupleAt(c.lowerTuple, p.Column, c.lower))
	case adapter.ParamUpperBound:
		return append(vals, tupleAt(c.upperTuple, p.Column, c.upper))
	case adapter.ParamLimit:
		return append(vals, c.pageSize)
	}
	panic("kandra/kstore: internal error: unexpected marker " + p.String())
}

func (r *Repo[T]) lookupValue(i int, e *T) any {
	p, _ := r.lookups[i].IndexColumn().Pointer(e)
	return p
}

// emptyAt reports that the value p of lookup i has no lookup row
// (lookupval.Empty).
func (r *Repo[T]) emptyAt(i int, p any) bool {
	return lookupval.Empty(r.lookups[i].IndexColumn(), p)
}

// nullAt reports a field value (at p) that is sent as null: a nil
// pointer, slice or map, an empty collection in a column that is not
// frozen (the servers store it as null; a frozen one keeps an empty
// value), or a value c's CQL type sends as null.
func nullAt(c *kandra.ColumnSchema, p any) bool {
	switch x := p.(type) {
	case *string, *int64, *int32, *int, *bool, *float64, *time.Time:
		return false
	case *[]byte:
		return *x == nil
	case *[]string:
		return *x == nil || len(*x) == 0 && !c.IsFrozen()
	case **string:
		return *x == nil
	case **int64:
		return *x == nil
	case **int32:
		return *x == nil
	case **int:
		return *x == nil
	case **bool:
		return *x == nil
	case **float64:
		return *x == nil
	case **time.Time:
		return *x == nil
	case *uuid.UUID:
		return *x == uuid.Nil && c.SentAsNull(p) // the zero UUID, in a TIMEUUID
	case **uuid.UUID:
		return *x == nil || **x == uuid.Nil && c.SentAsNull(p)
	}
	return nullAtReflect(c, p)
}

// nullAtReflect is nullAt for any type.
func nullAtReflect(c *kandra.ColumnSchema, p any) bool {
	v := reflect.ValueOf(p).Elem()
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return true
		}
		v = v.Elem() // a pointer to a collection is stored as the collection is
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Map:
		if v.IsNil() || v.Len() == 0 && c.Type().IsCollection() && !c.IsFrozen() {
			return true
		}
	}
	return c.SentAsNull(p)
}

// tupleAt is the value of col in a tuple bound, or single, the bound's
// value without one.
func tupleAt(tuple []prefixValue, col *kandra.ColumnSchema, single any) any {
	for _, v := range tuple {
		if v.col == col {
			return v.v
		}
	}
	return single
}
