package kandra

import (
	"reflect"

	"github.com/kandra-go/kandra/internal/reflectx"
)

// Register validates T's schema the first time it is called for T and
// caches the result; later calls return the same *Table without running
// Describe again, also when many goroutines call it at once. It returns a
// *SchemaError that names the entity, the field and the rule when the
// schema is invalid; the failure is remembered too, so Describe never runs
// twice for one type.
//
// Register knows nothing of keyspaces: two types may use one table name,
// and a keyspace's own rules (a name used once per keyspace) are checked
// when the tables are put together with NewKeyspace.
//
//	users, err := kandra.Register[User]()
func Register[T any, PT Entity[T]]() (*Table[T], error) {
	e := cached(reflectx.PointerWord[T]())
	if r := e.result.Load(); r != nil {
		return tableResult[T](r)
	}
	return tableResult[T](e.build(reflect.TypeFor[T](), func() (any, *TableSchema, error) {
		ts, validators, err := buildSchema[T](func(p *T, s *Schema[T]) { PT(p).Describe(s) })
		if err != nil {
			return nil, nil, err
		}
		return newTable(ts, validators), ts, nil
	}))
}

func tableResult[T any](r *result) (*Table[T], error) {
	if r.err != nil {
		return nil, r.err
	}
	return r.table.(*Table[T]), nil
}

// MustRegister is Register for package-level variables; it panics with the
// schema error.
//
//	var Users = kandra.MustRegister[User]()
func MustRegister[T any, PT Entity[T]]() *Table[T] {
	t, err := Register[T, PT]()
	if err != nil {
		panic(err)
	}
	return t
}

// TableOf returns the table of T if Register[T] has succeeded. It is a
// lock-free read that does not allocate.
func TableOf[T any]() (*Table[T], bool) {
	if v, ok := cache.Load(reflectx.PointerWord[T]()); ok {
		if r := v.(*entry).result.Load(); r != nil && r.err == nil {
			return r.table.(*Table[T]), true
		}
	}
	return nil, false
}

// SchemaOf returns the schema of the entity type t (the struct type, not a
// pointer to it) if it has been registered successfully.
func SchemaOf(t reflect.Type) (*TableSchema, bool) {
	if t == nil {
		return nil, false
	}
	if v, ok := cache.Load(reflectx.PointerWordOf(t)); ok {
		if r := v.(*entry).result.Load(); r != nil && r.err == nil {
			return r.schema, true
		}
	}
	return nil, false
}
