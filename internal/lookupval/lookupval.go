// Package lookupval tells which lookup values have no lookup row: the
// runtime's writes and the migrator's backfill skip the same ones.
package lookupval

import (
	"reflect"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
)

// Empty reports a lookup value p (the address of the index column c's
// field) that has no lookup row: one the servers refuse as a key ("" or
// an empty blob, or null: a nil pointer or collection, an empty
// collection that is not frozen, which the servers store as null), or
// one c's CQL type sends as null (ColumnSchema.SentAsNull: the zero
// netip.Addr, the zero UUID in a TIMEUUID). A pointer is followed, as
// the value is stored.
func Empty(c *kandra.ColumnSchema, p any) bool {
	return empty(c, p) || c.SentAsNull(p)
}

func empty(c *kandra.ColumnSchema, p any) bool {
	switch x := p.(type) {
	case *string:
		return *x == ""
	case *[]byte:
		return len(*x) == 0
	case *int, *int64, *int32, *int16, *int8, *bool, *uuid.UUID, *time.Time, *float64, *float32:
		return false
	}
	v := reflect.ValueOf(p).Elem()
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return true
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		return v.Len() == 0
	case reflect.Slice, reflect.Map:
		if v.IsNil() {
			return true
		}
		if !c.Type().IsCollection() {
			return v.Len() == 0 // a blob
		}
		return v.Len() == 0 && !c.IsFrozen()
	}
	return false
}
