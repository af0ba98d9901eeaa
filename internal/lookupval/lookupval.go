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
// an empty blob, or null: a nil pointer or collection), or one c's CQL
// type sends as null (ColumnSchema.SentAsNull: the zero netip.Addr, the
// zero UUID in a TIMEUUID).
func Empty(c *kandra.ColumnSchema, p any) bool {
	return empty(p) || c.SentAsNull(p)
}

func empty(p any) bool {
	switch x := p.(type) {
	case *string:
		return *x == ""
	case *[]byte:
		return len(*x) == 0
	case *int, *int64, *int32, *int16, *int8, *bool, *uuid.UUID, *time.Time, *float64, *float32:
		return false
	}
	v := reflect.ValueOf(p).Elem()
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
		return v.IsNil()
	case reflect.String:
		return v.Len() == 0
	}
	return false
}
