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

// The registry: the per-type cache of registrations that Register,
// TableOf and SchemaOf read. register.go holds those entry points.

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
