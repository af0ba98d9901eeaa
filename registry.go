package kandra

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	kerrors "github.com/kandra-go/kandra/errors"
	"github.com/kandra-go/kandra/internal/reflectx"
)

// Table is a registered entity type: its validated TableSchema plus the
// typed, reflection-free per-row access a runtime needs. Register returns
// the same *Table for a type every time.
type Table[T any] struct {
	schema     *TableSchema
	validators []Validator[T]
	access     []columnAccess // per column in DDL order
}

type columnAccess struct {
	ptrType unsafe.Pointer
	offset  uintptr
}

// Schema is the table's immutable schema.
func (t *Table[T]) Schema() *TableSchema { return t.schema }

// Name is the table's name.
func (t *Table[T]) Name() string { return t.schema.name }

// Statements is Statements(t.Schema(), opts...).
func (t *Table[T]) Statements(opts ...DDLOption) []string { return Statements(t.schema, opts...) }

// BindValues appends to dst the values an INSERT of every column binds, in
// column order (TableSchema.Columns): pointers to e's fields, which drivers
// such as gocql dereference. It does not allocate when dst has room, and
// uses no reflection.
func (t *Table[T]) BindValues(e *T, dst []any) []any { return t.pointers(e, dst) }

// ScanTargets appends to dst the addresses to scan a SELECT of every column
// into, in column order.
func (t *Table[T]) ScanTargets(e *T, dst []any) []any { return t.pointers(e, dst) }

func (t *Table[T]) pointers(e *T, dst []any) []any {
	base := unsafe.Pointer(e)
	for _, a := range t.access {
		dst = append(dst, reflectx.Pack(a.ptrType, unsafe.Add(base, a.offset)))
	}
	return dst
}

// ColumnPointers appends to dst the addresses in e of the given columns,
// which must belong to this table (for a WHERE clause, a lookup row, ...).
func (t *Table[T]) ColumnPointers(e *T, cols []*ColumnSchema, dst []any) []any {
	base := unsafe.Pointer(e)
	for _, c := range cols {
		a := t.access[c.position]
		dst = append(dst, reflectx.Pack(a.ptrType, unsafe.Add(base, a.offset)))
	}
	return dst
}

// Pointer returns the address of column c's field in entity, which must be
// a pointer to the table's entity type: the untyped per-row accessor for
// code that holds only a TableSchema. It does not allocate.
func (c *ColumnSchema) Pointer(entity any) (any, error) {
	typ, data := reflectx.Unpack(entity)
	if typ != c.entityPtr || data == nil {
		return nil, fmt.Errorf("kandra: column %s belongs to *%s, not %T", c.name, c.entity.String(), entity)
	}
	return reflectx.Pack(c.ptrType, unsafe.Add(data, c.offset)), nil
}

// Pointers appends to dst the addresses of every column of entity (a
// pointer to the table's entity type), in column order, like
// Table.ScanTargets for code that holds only a TableSchema.
func (t *TableSchema) Pointers(entity any, dst []any) ([]any, error) {
	typ, data := reflectx.Unpack(entity)
	if typ != t.ptrType || data == nil {
		return dst, fmt.Errorf("kandra: table %s holds *%s, not %T", t.name, t.entity.String(), entity)
	}
	for _, c := range t.columns {
		dst = append(dst, reflectx.Pack(c.ptrType, unsafe.Add(data, c.offset)))
	}
	return dst, nil
}

// Register validates T's schema the first time it is called for T and
// caches the result; later calls return the same *Table without running
// Describe again, also when many goroutines call it at once. It returns a
// *errors.SchemaError that names the entity, the field and the rule when
// the schema is invalid, and registers nothing in that case.
//
//	users, err := kandra.Register[User]()
func Register[T any, PT Entity[T]]() (*Table[T], error) {
	if e, ok := registry.load().byPtr[reflectx.PtrTypeWord[T]()]; ok {
		return e.table.(*Table[T]), nil
	}
	typ := reflect.TypeFor[T]()
	v, err := registry.register(typ, func() (any, *TableSchema, error) {
		ts, validators, err := buildSchema[T](func(p *T, s *Schema[T]) { PT(p).Describe(s) })
		if err != nil {
			return nil, nil, err
		}
		return newTable(ts, validators), ts, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*Table[T]), nil
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

func newTable[T any](ts *TableSchema, validators []Validator[T]) *Table[T] {
	t := &Table[T]{schema: ts, validators: validators, access: make([]columnAccess, len(ts.columns))}
	for i, c := range ts.columns {
		t.access[i] = columnAccess{ptrType: c.ptrType, offset: c.offset}
	}
	return t
}

// Get returns the registered table of T, if T has been registered. It is a
// lock-free read that does not allocate.
func Get[T any]() (*Table[T], bool) {
	if e, ok := registry.load().byPtr[reflectx.PtrTypeWord[T]()]; ok {
		return e.table.(*Table[T]), true
	}
	return nil, false
}

// SchemaOf returns the registered schema of the entity type t (the struct
// type, not a pointer to it).
func SchemaOf(t reflect.Type) (*TableSchema, bool) {
	if t == nil {
		return nil, false
	}
	if e, ok := registry.load().byPtr[reflectx.PointerTypeWord(t)]; ok {
		return e.schema, true
	}
	return nil, false
}

// All returns every registered schema, ordered by table name: for creating
// every table at start-up.
func All() []*TableSchema { return clone(registry.load().all) }

// Reset forgets every registration. It exists for tests; tables already
// returned by Register stay usable but are no longer in the registry.
func Reset() {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	registry.snap.Store(&snapshot{})
}

var registry = newRegistry()

type entry struct {
	schema *TableSchema
	table  any
}

// snapshot is an immutable view of the registry, replaced whole on every
// registration so that reads need no lock.
type snapshot struct {
	byPtr   map[unsafe.Pointer]entry // keyed by the type word of *T: cheaper to hash than a reflect.Type
	all     []*TableSchema
	tables  map[string]reflect.Type // primary and lookup table names
	indexes map[string]reflect.Type
}

type flight struct {
	done  chan struct{}
	value any
	err   error
}

type registryState struct {
	mu       sync.Mutex
	snap     atomic.Pointer[snapshot]
	inflight map[reflect.Type]*flight
}

func newRegistry() *registryState {
	r := &registryState{inflight: map[reflect.Type]*flight{}}
	r.snap.Store(&snapshot{})
	return r
}

func (r *registryState) load() *snapshot { return r.snap.Load() }

// register builds typ's table once: concurrent callers for the same type
// wait for the first one's result; different types build in parallel.
func (r *registryState) register(typ reflect.Type, build func() (any, *TableSchema, error)) (any, error) {
	key := reflectx.PointerTypeWord(typ)
	r.mu.Lock()
	if e, ok := r.load().byPtr[key]; ok {
		r.mu.Unlock()
		return e.table, nil
	}
	if f, ok := r.inflight[typ]; ok {
		r.mu.Unlock()
		<-f.done
		return f.value, f.err
	}
	f := &flight{done: make(chan struct{})}
	r.inflight[typ] = f
	r.mu.Unlock()

	completed := false
	defer func() {
		if !completed {
			// Describe panicked: release the waiters, then let the panic go on.
			f.err = &kerrors.SchemaError{Entity: typ.String(), Rule: RuleBinding, Detail: "Describe panicked"}
		}
		r.mu.Lock()
		delete(r.inflight, typ)
		r.mu.Unlock()
		close(f.done)
	}()
	value, ts, err := build()
	completed = true
	if err == nil {
		err = r.publish(typ, value, ts)
	}
	if err != nil {
		f.err = err
		return nil, err
	}
	f.value = value
	return value, nil
}

// publish checks ts's names against every other registered table and adds
// it to a new snapshot.
func (r *registryState) publish(typ reflect.Type, value any, ts *TableSchema) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.load()
	fail := func(field, detail string) error {
		return &kerrors.SchemaError{Entity: typ.String(), Field: field, Rule: RuleNameTaken, Detail: detail}
	}
	// Names this table claims, checked against others and among themselves,
	// in name order so that the first conflict reported is deterministic.
	// A table's own names are distinct: build rejected duplicates.
	type claim struct{ name, field string }
	tables := make([]claim, 0, 1+len(ts.lookups))
	tables = append(tables, claim{ts.name, ""})
	for _, l := range ts.lookups {
		tables = append(tables, claim{l.name, l.index.goName})
	}
	slices.SortFunc(tables, func(a, b claim) int { return strings.Compare(a.name, b.name) })
	indexes := make([]claim, 0, len(ts.indexes))
	for _, c := range ts.indexes {
		indexes = append(indexes, claim{ts.IndexName(c), c.goName})
	}
	for _, t := range tables {
		n := t.name
		if other, ok := old.tables[n]; ok {
			return fail(t.field, "table name "+strconv.Quote(n)+" is already used by "+other.String())
		}
		if other, ok := old.indexes[trimIndexSuffix(n)]; ok {
			return fail(t.field, "table name "+strconv.Quote(n)+" is the name ScyllaDB gives the view behind index "+strconv.Quote(trimIndexSuffix(n))+" of "+other.String())
		}
		for _, ix := range indexes {
			if ix.name == trimIndexSuffix(n) {
				return fail(ix.field, "table name "+strconv.Quote(n)+" is the name ScyllaDB gives the view behind this column's index")
			}
		}
	}
	for _, c := range ts.indexes {
		n := ts.IndexName(c)
		if other, ok := old.indexes[n]; ok {
			return fail(c.goName, "index name "+strconv.Quote(n)+" is already used by "+other.String()+"; index names are unique per keyspace")
		}
		if other, ok := old.tables[n+"_index"]; ok {
			return fail(c.goName, "index "+strconv.Quote(n)+" needs the name "+strconv.Quote(n+"_index")+" for its ScyllaDB view, which is table of "+other.String())
		}
	}
	next := &snapshot{
		byPtr:   make(map[unsafe.Pointer]entry, len(old.byPtr)+1),
		tables:  make(map[string]reflect.Type, len(old.tables)+len(tables)),
		indexes: make(map[string]reflect.Type, len(old.indexes)+len(indexes)),
	}
	for k, v := range old.byPtr {
		next.byPtr[k] = v
	}
	for k, v := range old.tables {
		next.tables[k] = v
	}
	for k, v := range old.indexes {
		next.indexes[k] = v
	}
	next.byPtr[ts.ptrType] = entry{schema: ts, table: value}
	for _, t := range tables {
		next.tables[t.name] = typ
	}
	for _, ix := range indexes {
		next.indexes[ix.name] = typ
	}
	next.all = make([]*TableSchema, 0, len(old.all)+1)
	next.all = append(append(next.all, old.all...), ts)
	slices.SortFunc(next.all, func(a, b *TableSchema) int { return strings.Compare(a.name, b.name) })
	r.snap.Store(next)
	return nil
}

func trimIndexSuffix(n string) string {
	const s = "_index"
	if len(n) > len(s) && n[len(n)-len(s):] == s {
		return n[:len(n)-len(s)]
	}
	return ""
}
