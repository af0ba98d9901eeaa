// Package dynamic lets kandra's own tests (the property tests, the
// real-server suite) build schemas for struct types made at run time with
// reflect.StructOf, which cannot have a Describe method. It feeds the very
// builder Register uses. Package kandra installs the entry points only in
// test binaries (its export_test.go, and the kandra_dynamic build tag the
// other packages' tests are built with), so that no user's binary carries
// them.
package dynamic

import "reflect"

// Role is a typed binder (CreatedAt, Version, ...) applied to a field.
type Role uint8

// The roles. A role on a field of a type its typed binder does not accept
// panics: through the typed API it would not compile.
const (
	NoRole Role = iota
	CreatedAt
	UpdatedAt
	Version
	Counter
	UUIDTimeOrdered
	UUIDRandom
)

// Bind binds a top-level field of the struct type.
type Bind struct {
	Field   int   // index of the field in the struct type
	Options []any // kandra.FieldOption values
	Role    Role
}

// Spec is a Describe call's content for a run-time struct type.
type Spec struct {
	Type         reflect.Type // a struct type
	Table        string       // "" means s.Table was never called
	TableOptions []any        // kandra.TableOption values, SoftDelete excepted
	SoftDelete   bool
	SoftTTL      int
	MarkerField  int // index of the soft-delete marker field, -1 for none
	Binds        []Bind
}

var build, register func(spec Spec) (any, error)

// Install sets the entry points; package kandra calls it.
func Install(b, r func(spec Spec) (any, error)) { build, register = b, r }

// notInstalled says how to get the entry points: tests outside package
// kandra are built with the kandra_dynamic tag.
const notInstalled = "internal/dynamic: kandra's run-time builder is not in this binary; build the tests with -tags kandra_dynamic (as .ci/run does)"

// Build validates spec and returns its *kandra.TableSchema, or the schema
// error. It does not register anything.
func Build(spec Spec) (any, error) {
	if build == nil {
		panic(notInstalled)
	}
	return build(spec)
}

// Register is Build through kandra's per-type cache, as Register[T] does:
// the schema is built once per type and then found by kandra.SchemaOf.
func Register(spec Spec) (any, error) {
	if register == nil {
		panic(notInstalled)
	}
	return register(spec)
}
