package kandra

import (
	"reflect"
	"time"
)

// Schema is what an entity's Describe method receives: it names the table,
// sets table options, and collects field bindings (Bind, CreatedAt,
// Version, ...). It is only valid during Describe; Register validates what
// it collected and builds the immutable TableSchema.
type Schema[T any] struct {
	tableCalls int
	tableName  string
	tableOpts  tableSpec
	binds      []bindRecord
	validators []Validator[T]
}

// bindRecord is one binding call: the field's address (a pointer, as an
// any), its type, the options, and the typed binder's role if any.
type bindRecord struct {
	ptr  any
	typ  reflect.Type
	opts []FieldOption
	role FieldOption
}

func (s *Schema[T]) bind(ptr any, typ reflect.Type, opts []FieldOption, role FieldOption) {
	s.binds = append(s.binds, bindRecord{ptr: ptr, typ: typ, opts: opts, role: role})
}

// Table names the entity's table and sets table options. It is required:
// an entity whose Describe does not call it fails registration.
func (s *Schema[T]) Table(name string, opts ...TableOption) {
	s.tableCalls++
	s.tableName = name
	for _, o := range opts {
		if o != nil {
			o.applyTable(&s.tableOpts)
		}
	}
}

// Validate attaches a validator that Table.Validate runs on an entity.
func (s *Schema[T]) Validate(v Validator[T]) {
	if v != nil {
		s.validators = append(s.validators, v)
	}
}

// TableOption sets a table-level option in Schema.Table.
type TableOption interface{ applyTable(*tableSpec) }

type tableOptionFunc func(*tableSpec)

func (f tableOptionFunc) applyTable(s *tableSpec) { f(s) }

type tableSpec struct {
	gcGrace    *time.Duration
	ttl        *time.Duration
	read       *Consistency
	write      *Consistency
	omitNulls  bool
	softDelete *softDeleteSpec
	storage    StorageOptions
	conflicts  []string
}

type softDeleteSpec struct {
	ttl    time.Duration
	marker *bool
}

func setOnce[V comparable](dst **V, v V, what string, conflicts *[]string) {
	if *dst != nil && **dst != v {
		*conflicts = append(*conflicts, what+" is set twice with different values")
	}
	*dst = &v
}

// GCGrace sets gc_grace_seconds: how long tombstones are kept, a whole
// number of seconds from 0 to 2^31-1 s (another value is a schema error).
// Without it the server's default (ten days) applies.
func GCGrace(d time.Duration) TableOption {
	return tableOptionFunc(func(s *tableSpec) { setOnce(&s.gcGrace, d, "GCGrace", &s.conflicts) })
}

// DefaultTTL sets default_time_to_live on the primary table (never on its
// lookup tables): rows expire d after they are written. d is a whole
// number of seconds from 0 (no expiry) to MaxTTL; another value is a
// schema error.
func DefaultTTL(d time.Duration) TableOption {
	return tableOptionFunc(func(s *tableSpec) { setOnce(&s.ttl, d, "DefaultTTL", &s.conflicts) })
}

// ReadConsistency records the table's read consistency. The schema only
// records it; the runtime resolves the per-call value, then this, then its
// default.
func ReadConsistency(c Consistency) TableOption {
	return tableOptionFunc(func(s *tableSpec) { setOnce(&s.read, c, "ReadConsistency", &s.conflicts) })
}

// WriteConsistency records the table's write consistency, like
// ReadConsistency.
func WriteConsistency(c Consistency) TableOption {
	return tableOptionFunc(func(s *tableSpec) { setOnce(&s.write, c, "WriteConsistency", &s.conflicts) })
}

// OmitNulls records that the runtime's writes of the table's entities
// (kstore's Save, ForceSave, SaveIfNotExists and SaveAll; not Update,
// which writes what changed, nor a soft delete, which rewrites every cell
// with its TTL) leave the columns whose values are null out, sent as the native
// protocol's "unset": a sparse entity's write leaves no null cells
// (tombstones), as a hand-written INSERT of its set columns does, and a
// column the entity holds as null keeps the row's value, so a Save is no
// longer a full replace of the row. kstore.WriteNulls turns it off for one
// call. It changes no DDL.
func OmitNulls() TableOption {
	return tableOptionFunc(func(s *tableSpec) { s.omitNulls = true })
}

// SoftDelete records that the runtime deletes rows by rewriting them with a
// TTL of ttl (a whole number of seconds, 0 to MaxTTL) instead of deleting
// them. marker, if not nil, is the address
// of a bool field of the entity that permanently records deletion (true =
// deleted): without it no query can tell a soft-deleted row from a live one
// before the TTL expires.
func SoftDelete(ttl time.Duration, marker *bool) TableOption {
	return tableOptionFunc(func(s *tableSpec) {
		if s.softDelete != nil {
			s.conflicts = append(s.conflicts, "SoftDelete is set twice")
		}
		s.softDelete = &softDeleteSpec{ttl: ttl, marker: marker}
	})
}
