package kandra

import (
	"reflect"
	"time"
	"unsafe"

	"github.com/google/uuid"
	kerrors "github.com/kandra-go/kandra/errors"
)

// Field is a typed handle on one column of entity type T whose Go type is
// V. Get and Set read and write the field through a fixed offset: no
// reflection, no allocation. Obtain one with FieldOf after registration.
// The zero Field is not usable.
type Field[T, V any] struct {
	col *ColumnSchema
	off uintptr
}

// Get returns the field's value in e.
func (f Field[T, V]) Get(e *T) V { return *(*V)(unsafe.Add(unsafe.Pointer(e), f.off)) }

// Set stores v in the field of e.
func (f Field[T, V]) Set(e *T, v V) { *(*V)(unsafe.Add(unsafe.Pointer(e), f.off)) = v }

// Ptr returns the address of the field in e, for scanning into.
func (f Field[T, V]) Ptr(e *T) *V { return (*V)(unsafe.Add(unsafe.Pointer(e), f.off)) }

// Column is the column's schema.
func (f Field[T, V]) Column() *ColumnSchema { return f.col }

// Name is the column's raw CQL name.
func (f Field[T, V]) Name() string { return f.col.name }

// CQLName is the column's name as written in CQL.
func (f Field[T, V]) CQLName() string { return f.col.cqlName }

// Role is the column's part in the primary key.
func (f Field[T, V]) Role() KeyRole { return f.col.role }

// FieldOf returns the typed handle of the column that field selects, for
// example
//
//	email, err := kandra.FieldOf(users, func(u *User) *string { return &u.Email })
//
// It fails when the selected field is not a column of the table (excluded
// with Transient, unexported, or not a field of T at all).
func FieldOf[T, V any](t *Table[T], field func(*T) *V) (Field[T, V], error) {
	probe := new(T)
	p := field(probe)
	off := uintptr(unsafe.Pointer(p)) - uintptr(unsafe.Pointer(probe))
	size := unsafe.Sizeof(*probe)
	if p == nil || uintptr(unsafe.Pointer(p)) < uintptr(unsafe.Pointer(probe)) || off >= size && size > 0 {
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

// FieldOption adds to what a field binding says about its column.
type FieldOption interface{ applyField(*fieldSpec) }

type fieldOptionFunc func(*fieldSpec)

func (f fieldOptionFunc) applyField(s *fieldSpec) { f(s) }

// fieldSpec is what the bindings of one field declared.
type fieldSpec struct {
	partition  []int
	clustering []clusteringSpec
	lookups    []lookupSpec
	names      []string
	transient  bool
	counter    bool
	createdAt  bool
	updatedAt  bool
	version    int // number of Version bindings
	index      bool
	sensitive  bool
	generated  bool
	uuidKind   UUIDStrategy
	asType     CQLType
	hasAsType  bool
	conflicts  []string
}

type clusteringSpec struct {
	index int
	order ClusteringOrder
}

type lookupSpec struct {
	suffix      string
	consistency LookupConsistency
	name        string // "{table}_{suffix}", set once the table name is known
}

// PartitionKey makes the field a partition-key component. Components are
// ordered by index; give each a distinct one for a composite key.
func PartitionKey(index int) FieldOption {
	return fieldOptionFunc(func(s *fieldSpec) { s.partition = append(s.partition, index) })
}

// ClusteringKey makes the field a clustering column, ordered among the
// clustering columns by index, stored in the given order.
func ClusteringKey(index int, order ClusteringOrder) FieldOption {
	return fieldOptionFunc(func(s *fieldSpec) {
		s.clustering = append(s.clustering, clusteringSpec{index, order})
	})
}

// Lookup gives the field a denormalized lookup table named
// "{table}_{suffix}" whose primary key is this column. The lookup table
// holds one row per value: two entities with the same value share a row.
func Lookup(suffix string, consistency LookupConsistency) FieldOption {
	return fieldOptionFunc(func(s *fieldSpec) {
		s.lookups = append(s.lookups, lookupSpec{suffix: suffix, consistency: consistency})
	})
}

// Column overrides the column name derived from the Go name. A blank name
// (empty or only spaces) falls back to the derived name, as in the Kotlin
// library. Any other name is used exactly, quoted in CQL where needed.
func Column(name string) FieldOption {
	return fieldOptionFunc(func(s *fieldSpec) { s.names = append(s.names, name) })
}

// Transient excludes an exported field from the table.
func Transient() FieldOption { return fieldOptionFunc(func(s *fieldSpec) { s.transient = true }) }

// SecondaryIndex creates a native secondary index on the column,
// "{table}_{column}_idx". Queries through it touch every node.
func SecondaryIndex() FieldOption { return fieldOptionFunc(func(s *fieldSpec) { s.index = true }) }

// Sensitive marks the column for masking by logging layers.
func Sensitive() FieldOption { return fieldOptionFunc(func(s *fieldSpec) { s.sensitive = true }) }

// AsType gives the column a CQL type instead of the one derived from its Go
// type: DATE for a time.Time, TIME for a time.Duration, ASCII for a string,
// DECIMAL for a user decimal type, and so on. The Go type must be one the
// driver can marshal to t.
func AsType(t CQLType) FieldOption {
	return fieldOptionFunc(func(s *fieldSpec) { s.asType, s.hasAsType = t, true })
}

// Bind declares options for the field that ptr points to. ptr must be the
// address of a field of the entity Describe was called on (&u.Email).
// Every exported field is a column without a Bind; Bind only adds to that.
// Binding one field several times merges the options.
func Bind[T, V any](s *Schema[T], ptr *V, opts ...FieldOption) {
	s.bind(unsafe.Pointer(ptr), reflect.TypeFor[V](), opts, nil)
}

// CreatedAt marks the time.Time field a runtime stamps once, on insert.
// At most one per entity.
func CreatedAt[T any](s *Schema[T], ptr *time.Time, opts ...FieldOption) {
	s.bind(unsafe.Pointer(ptr), typeTime, opts, func(f *fieldSpec) { f.createdAt = true })
}

// UpdatedAt marks the time.Time field a runtime stamps on every insert and
// update. At most one per entity.
func UpdatedAt[T any](s *Schema[T], ptr *time.Time, opts ...FieldOption) {
	s.bind(unsafe.Pointer(ptr), typeTime, opts, func(f *fieldSpec) { f.updatedAt = true })
}

// VersionType is the set of Go types an optimistic-lock column may have.
type VersionType interface{ int64 | time.Time }

// Version marks the optimistic-lock column: an int64 counter or a
// time.Time. At most one per entity.
func Version[T any, V VersionType](s *Schema[T], ptr *V, opts ...FieldOption) {
	s.bind(unsafe.Pointer(ptr), reflect.TypeFor[V](), opts, func(f *fieldSpec) { f.version++ })
}

// Counter makes the int64 field a COUNTER column. A table with a counter
// column is a counter table: every non-key column must be a counter.
func Counter[T any](s *Schema[T], ptr *int64, opts ...FieldOption) {
	s.bind(unsafe.Pointer(ptr), reflect.TypeFor[int64](), opts, func(f *fieldSpec) { f.counter = true })
}

// GeneratedUUID marks a uuid.UUID field a runtime fills on every insert,
// with a time-ordered (UUIDv7, sortable, the default) or random (UUIDv4)
// id. It exists for keys: two rows written in the same millisecond never
// collide, unlike a timestamp key.
func GeneratedUUID[T any](s *Schema[T], ptr *uuid.UUID, strategy UUIDStrategy, opts ...FieldOption) {
	s.bind(unsafe.Pointer(ptr), typeUUID, opts, generatedRole(strategy))
}

func generatedRole(strategy UUIDStrategy) func(*fieldSpec) {
	return func(f *fieldSpec) {
		if f.generated && f.uuidKind != strategy {
			f.conflicts = append(f.conflicts, "GeneratedUUID is bound twice with different strategies")
		}
		f.generated, f.uuidKind = true, strategy
	}
}

func (t *TableSchema) fieldErr(field string, rule kerrors.Rule, detail string) error {
	return &kerrors.SchemaError{Entity: t.entity.String(), Field: field, Rule: rule, Detail: detail}
}
