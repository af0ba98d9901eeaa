package kstore

import (
	"reflect"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/catalog"
	"github.com/kandra-go/kandra/internal/cqlvalue"
	"github.com/kandra-go/kandra/internal/reflectx"
)

// The changes a Patch makes, each typed by its field handle: Set and
// Clear, the collections' element changes, SetField. See Patch.

func one[T any](ch change) Patch[T] { return Patch[T]{changes: []change{ch}} }

// Set writes v into f's column.
func Set[T, V any](f kandra.Field[T, V], v V) Patch[T] {
	return one[T](change{col: f.Column(), op: catalog.Assign, v: &v})
}

// Clear writes null into f's column (a tombstone: the cell is deleted).
func Clear[T, V any](f kandra.Field[T, V]) Patch[T] {
	return one[T](change{col: f.Column(), op: catalog.Assign})
}

// Append adds vs at the end of f's list (l = l + ?). A list append is not
// idempotent: a retry would add them twice, so it is sent once (see
// IsIdempotent).
func Append[T any, L ~[]E, E any](f kandra.Field[T, L], vs ...E) Patch[T] {
	l := L(vs)
	return one[T](change{col: f.Column(), op: catalog.Append, v: &l})
}

// Prepend adds vs at the start of f's list (l = ? + l), in their order;
// like Append, it is not idempotent.
func Prepend[T any, L ~[]E, E any](f kandra.Field[T, L], vs ...E) Patch[T] {
	l := L(vs)
	return one[T](change{col: f.Column(), op: catalog.Prepend, v: &l})
}

// SetAt writes v at index i of f's list (l[i] = v). The server reads the
// list to find the element: an index past its end fails the write.
func SetAt[T any, L ~[]E, E any](f kandra.Field[T, L], i int, v E) Patch[T] {
	return one[T](change{col: f.Column(), op: catalog.AtIndex, k: i, v: v})
}

// RemoveValues removes every element of f's list equal to one of vs (l =
// l - ?).
func RemoveValues[T any, L ~[]E, E any](f kandra.Field[T, L], vs ...E) Patch[T] {
	l := L(vs)
	return one[T](change{col: f.Column(), op: catalog.Remove, v: &l})
}

// Add adds ks to f's set (s = s + ?).
func Add[T any, S ~map[K]struct{}, K comparable](f kandra.Field[T, S], ks ...K) Patch[T] {
	return one[T](change{col: f.Column(), op: catalog.Append, v: setValue[S](f.Column(), ks)})
}

// Remove removes ks from f's set (s = s - ?).
func Remove[T any, S ~map[K]struct{}, K comparable](f kandra.Field[T, S], ks ...K) Patch[T] {
	return one[T](change{col: f.Column(), op: catalog.Remove, v: setValue[S](f.Column(), ks)})
}

// setValue is the value Add and Remove bind for ks: on a set of text of
// strings, a *cqlvalue.TextSet, which the adapters write as they write a
// []string (no map to build, walk and sort on every call); else a *S.
// columnValue turns the first back into a *S where a value is read by
// the column's Go type.
func setValue[S ~map[K]struct{}, K comparable](col *kandra.ColumnSchema, ks []K) any {
	if ss, ok := any(ks).([]string); ok && isTextSet(col) {
		if len(ss) == 1 { // the common Add(f, "x"): the slice and its element in one allocation
			single := &struct {
				ts cqlvalue.TextSet
				e  [1]string
			}{e: [1]string{ss[0]}}
			single.ts = single.e[:]
			return &single.ts
		}
		ts := cqlvalue.NewTextSet(ss)
		return &ts
	}
	s := setOf[S](ks)
	return &s
}

// isTextSet reports that col is a set of text, varchar or ascii: the sets
// whose elements the adapters sort and write as a []string's.
func isTextSet(col *kandra.ColumnSchema) bool {
	return col != nil && col.Type().Kind() == kandra.KindSet && textElems(col.Type())
}

// textElems reports that the collection type ct holds text, varchar or
// ascii elements: those a []string holds as they are stored.
func textElems(ct kandra.CQLType) bool {
	if ct.Elem().Kind() != kandra.KindNative {
		return false
	}
	n := ct.Elem().Name()
	return n == "TEXT" || n == "VARCHAR" || n == "ASCII"
}

// columnValue is v, a change's value, as a value of col's Go type: a
// *cqlvalue.TextSet (see setValue) as the *S it stands for, for the paths
// that read a value through the column's stored form (a unit's cells, a
// batch's size); v itself otherwise.
func columnValue(col *kandra.ColumnSchema, v any) any {
	ts, ok := v.(*cqlvalue.TextSet)
	if !ok {
		return v
	}
	t := col.GoType()
	m := reflect.MakeMapWithSize(t, len(*ts))
	for _, s := range *ts {
		m.SetMapIndex(reflect.ValueOf(s).Convert(t.Key()), reflect.Zero(t.Elem()))
	}
	p := reflect.New(t)
	p.Elem().Set(m)
	return p.Interface()
}

func setOf[S ~map[K]struct{}, K comparable](ks []K) S {
	s := make(S, len(ks))
	for _, k := range ks {
		s[k] = struct{}{}
	}
	return s
}

// Put writes v at key k of f's map (m[k] = v).
func Put[T any, M ~map[K]V, K comparable, V any](f kandra.Field[T, M], k K, v V) Patch[T] {
	return one[T](change{col: f.Column(), op: catalog.AtKey, k: k, v: v})
}

// PutAll writes the entries of m into f's map (m = m + ?).
func PutAll[T any, M ~map[K]V, K comparable, V any](f kandra.Field[T, M], m M) Patch[T] {
	return one[T](change{col: f.Column(), op: catalog.Append, v: &m})
}

// RemoveKeys removes the entries of ks from f's map (m = m - ?, a set of
// the keys).
func RemoveKeys[T any, M ~map[K]V, K comparable, V any](f kandra.Field[T, M], ks ...K) Patch[T] {
	keys := make([]any, len(ks))
	for i, k := range ks {
		keys[i] = k
	}
	return one[T](change{col: f.Column(), op: catalog.RemoveKeys, keys: keys, v: setOf[map[K]struct{}](ks)})
}

// SetField writes v into one field of f's user-defined type value (u.f
// = ?), the field field selects (func(a *Address) *string { return
// &a.City }), and leaves its other fields as they are. f's column must
// not be frozen (kandra.Frozen): the servers write a frozen value whole.
func SetField[T, U, V any](f kandra.Field[T, U], field func(*U) *V, v V) Patch[T] {
	c := f.Column()
	ch := change{col: c, op: catalog.AtField, v: v, fld: -1}
	ut := reflect.TypeFor[U]()
	probe := new(U)
	if off, ok := reflectx.OffsetIn(probe, field(probe), ut.Size()); ok && ut.Kind() == reflect.Struct {
		for k, i := range reflectx.StoredFields(ut) {
			if sf := ut.Field(i); sf.Offset == off && sf.Type == reflect.TypeFor[V]() {
				ch.fld = k
			}
		}
	}
	return one[T](ch)
}
