package kandra

import (
	"bytes"
	"fmt"
	"reflect"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

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

// cache remembers the outcome of every type's registration, keyed by the
// type word of *T. Like encoding/json's field cache it only remembers
// results: a type's schema is a pure function of the type, so there is
// nothing to reset, and each registration costs the same however many came
// before it.
var cache sync.Map // reflectx.TypeWord -> *entry

// entry is one type's registration: built once, then read without a lock.
type entry struct {
	result atomic.Pointer[result] // nil until built

	mu      sync.Mutex
	done    chan struct{} // closed once result is set; nil before the build starts
	builder int64         // the goroutine running the build
}

type result struct {
	table  any // *Table[T]; nil for run-time types (internal/dynamic)
	schema *TableSchema
	err    error
}

func cached(key reflectx.TypeWord) *entry {
	if v, ok := cache.Load(key); ok {
		return v.(*entry)
	}
	v, _ := cache.LoadOrStore(key, new(entry))
	return v.(*entry)
}

// build runs fn once for the entry's type and stores its result; callers
// that arrive meanwhile wait for it. A panic in Describe (or in a CQLType
// method it reaches) becomes the type's schema error, for this caller and
// every later one, instead of unwinding through Register.
//
// A Describe that registers its own type, directly or through a cycle of
// types (A's Describe registers B, whose Describe registers A), would wait
// for itself forever: build detects that the waiter is the goroutine
// running the build and returns a schema error to it instead. That inner
// error is not stored; the outer build decides the type's result.
func (e *entry) build(typ reflect.Type, fn func() (any, *TableSchema, error)) (r *result) {
	if r := e.result.Load(); r != nil {
		return r
	}
	g := goroutineID()
	e.mu.Lock()
	if r := e.result.Load(); r != nil {
		e.mu.Unlock()
		return r
	}
	if e.done != nil {
		done, builder := e.done, e.builder
		e.mu.Unlock()
		if builder == g {
			return &result{err: &SchemaError{Entity: typ.String(), Rule: RuleDescribe,
				Detail: "registration of " + typ.String() + " is already under way in this goroutine: a Describe registers " + typ.String() + " itself, directly or through a cycle of types; register other types outside Describe"}}
		}
		<-done
		return e.result.Load()
	}
	e.done, e.builder = make(chan struct{}), g
	e.mu.Unlock()

	r = &result{}
	defer func() {
		if p := recover(); p != nil {
			r = &result{err: &SchemaError{Entity: typ.String(), Rule: RuleDescribe,
				Detail: fmt.Sprintf("registration panicked: %v; Describe must only bind fields and name the table", p)}}
		}
		e.result.Store(r)
		close(e.done)
	}()
	r.table, r.schema, r.err = fn()
	return r
}

// goroutineID returns the current goroutine's id, read from the first line
// of its stack trace ("goroutine 42 [running]:"). It is only called on the
// registration slow path, to tell a Describe that waits for itself from
// one that waits for another goroutine.
func goroutineID() int64 {
	var buf [64]byte
	line := buf[:runtime.Stack(buf[:], false)]
	line, _ = bytes.CutPrefix(line, []byte("goroutine "))
	id, _ := strconv.ParseInt(string(line[:max(bytes.IndexByte(line, ' '), 0)]), 10, 64)
	return id
}
