package kandra

import (
	"fmt"

	"github.com/kandra-go/kandra/internal/reflectx"
	"github.com/kandra-go/kandra/kerrors"
)

// Table is a registered entity type: its validated TableSchema plus the
// typed, reflection-free per-row access a runtime needs. Register returns
// the same *Table for a type every time.
type Table[T any] struct {
	schema     *TableSchema
	validators []Validator[T]
	access     []columnAccess // per column in DDL order
}

// columnAccess is where a column's field lives in a T, and the type word of
// a pointer to it: enough to hand out the field's address as an any.
type columnAccess struct {
	ptrType reflectx.TypeWord
	offset  uintptr
}

func newTable[T any](ts *TableSchema, validators []Validator[T]) *Table[T] {
	t := &Table[T]{schema: ts, validators: validators, access: make([]columnAccess, len(ts.columns))}
	for i, c := range ts.columns {
		t.access[i] = columnAccess{ptrType: c.ptrType, offset: c.offset}
	}
	return t
}

// Schema is the table's immutable schema.
func (t *Table[T]) Schema() *TableSchema { return t.schema }

// Name is the table's name.
func (t *Table[T]) Name() string { return t.schema.name }

// Pointers appends to dst the addresses of e's fields for every column, in
// column order (TableSchema.Columns): the values an INSERT of every column
// binds (drivers such as gocql dereference them) and the targets a SELECT
// of every column scans into. It does not allocate when dst has room, and
// uses no reflection.
func (t *Table[T]) Pointers(e *T, dst []any) []any {
	for _, a := range t.access {
		dst = append(dst, reflectx.PackField(a.ptrType, e, a.offset))
	}
	return dst
}

// ColumnPointers appends to dst the addresses in e of the given columns,
// which must belong to this table (for a WHERE clause, a lookup row, ...).
// It panics on a column of another table, as an index out of range would.
func (t *Table[T]) ColumnPointers(e *T, cols []*ColumnSchema, dst []any) []any {
	for _, c := range cols {
		if c.table != t.schema {
			panic("kandra: Table[" + t.schema.entity.String() + "].ColumnPointers: column " + c.name + " belongs to another table")
		}
		a := t.access[c.position]
		dst = append(dst, reflectx.PackField(a.ptrType, e, a.offset))
	}
	return dst
}

// Validate runs the validators attached in Describe (Schema.Validate), in
// order, and returns a *kerrors.ValidationError holding every failure, or
// nil when there is none. Its message is
// "Validation failed: field: message; field: message".
func (t *Table[T]) Validate(e *T) error {
	var all []FieldError
	for _, v := range t.validators {
		all = append(all, v.Validate(e)...)
	}
	if len(all) == 0 {
		return nil
	}
	return &kerrors.ValidationError{Errors: all}
}

// Pointer returns the address of column c's field in entity, which must be
// a non-nil pointer to the table's entity type: the untyped per-row
// accessor for code that holds only a TableSchema. It does not allocate.
// Another argument is a *SchemaError under RuleBinding.
func (c *ColumnSchema) Pointer(entity any) (any, error) {
	w, d := reflectx.Unpack(entity)
	if w != c.table.ptrType || d.IsNil() {
		return nil, c.table.pointerErr(entity)
	}
	return d.PackAt(c.ptrType, c.offset), nil
}

func (t *TableSchema) pointerErr(entity any) error {
	return &SchemaError{Entity: t.entity.String(), Rule: RuleBinding,
		Detail: fmt.Sprintf("table %s holds *%s; %T is not a non-nil pointer to it", t.name, t.entity, entity)}
}
