package kandra

import (
	"reflect"

	"github.com/kandra-go/kandra/internal/reflectx"
)

// Field is a typed handle on one column of entity type T whose Go type is
// V. Get, Set and Pointer reach the field through a fixed offset: no
// reflection, no allocation. Obtain one with FieldOf after registration.
// The zero Field is not usable: its methods panic.
type Field[T, V any] struct {
	col *ColumnSchema
	off uintptr
}

// Get returns the field's value in e.
func (f Field[T, V]) Get(e *T) V { return *reflectx.FieldAt[V](e, f.off) }

// Set stores v in the field of e.
func (f Field[T, V]) Set(e *T, v V) { *reflectx.FieldAt[V](e, f.off) = v }

// Pointer returns the address of the field in e, for scanning into.
func (f Field[T, V]) Pointer(e *T) *V { return reflectx.FieldAt[V](e, f.off) }

// Column is the column's schema.
func (f Field[T, V]) Column() *ColumnSchema { return f.mustCol() }

// Name is the column's raw CQL name.
func (f Field[T, V]) Name() string { return f.mustCol().name }

// CQLName is the column's name as written in CQL.
func (f Field[T, V]) CQLName() string { return f.mustCol().cqlName }

// Role is the column's part in the primary key.
func (f Field[T, V]) Role() KeyRole { return f.mustCol().role }

func (f Field[T, V]) mustCol() *ColumnSchema {
	if f.col == nil {
		panic("kandra: use of the zero Field; obtain a Field with FieldOf")
	}
	return f.col
}

// FieldOf returns the typed handle of the column that field selects, for
// example
//
//	email, err := kandra.FieldOf(users, func(u *User) *string { return &u.Email })
//
// It fails when the selected field is not a column of the table (excluded
// with Transient, unexported, or not a field of T at all). A nil table or
// selector is a programmer error: FieldOf panics, naming the argument.
func FieldOf[T, V any](t *Table[T], field func(*T) *V) (Field[T, V], error) {
	if t == nil {
		panic("kandra: FieldOf: nil *Table")
	}
	if field == nil {
		panic("kandra: FieldOf: nil field selector")
	}
	probe := new(T)
	off, ok := reflectx.OffsetIn(probe, field(probe), t.schema.entity.Size())
	if !ok {
		return Field[T, V]{}, t.schema.fieldErr("", RuleBinding, "the selector does not return the address of a field of the entity it is given")
	}
	vt := reflect.TypeFor[V]()
	for _, c := range t.schema.columns {
		if c.offset == off && c.goType == vt {
			return Field[T, V]{col: c, off: off}, nil
		}
	}
	what := describeOffset(t.schema.entity, off)
	return Field[T, V]{}, t.schema.fieldErr(what, RuleBinding, "the selected "+vt.String()+" field "+what+" is not a column (excluded with Transient, unexported, or inside a non-embedded struct)")
}

// MustFieldOf is FieldOf that panics on error, for package-level handles
// initialised next to MustRegister.
func MustFieldOf[T, V any](t *Table[T], field func(*T) *V) Field[T, V] {
	f, err := FieldOf(t, field)
	if err != nil {
		panic(err)
	}
	return f
}

func (t *TableSchema) fieldErr(field string, rule Rule, detail string) error {
	return &SchemaError{Entity: t.entity.String(), Field: field, Rule: rule, Detail: detail}
}
