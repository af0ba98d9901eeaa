package bench

import (
	"reflect"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx/reflectx"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/dynamic"
	"gorm.io/gorm/schema"
)

// Sinks keep the compiler from discarding the work measured.
var (
	sinkString string
	sinkAnys   []any
	sinkTable  *kandra.Table[Event]
	sinkAny    any
	sinkSchema *schema.Schema
	sinkMap    *reflectx.StructMap
	sinkStmts  []string
	sinkUUID   uuid.UUID
	sinkBool   bool
)

// events registers Event, or returns its table if it is registered.
func events(b testing.TB) *kandra.Table[Event] {
	b.Helper()
	t, err := kandra.Register[Event]()
	if err != nil {
		b.Fatal(err)
	}
	return t
}

// columns is the column list an INSERT or SELECT of every column names, in
// kandra's column order: what gocqlx would get from its query builder.
func columns(t *kandra.Table[Event]) []string {
	var names []string
	for _, c := range t.Schema().Columns() {
		names = append(names, c.Name())
	}
	return names
}

func newMapper() *reflectx.Mapper { return reflectx.NewMapperFunc("db", CamelToSnakeASCII) }

var (
	eventType  = reflect.TypeFor[Event]()
	titleIndex = func() []int {
		f, _ := eventType.FieldByName("Title")
		return f.Index
	}()
)

func BenchmarkFieldGet(b *testing.B) {
	e := NewEvent()
	b.Run("kandra", func(b *testing.B) {
		title := kandra.MustFieldOf(events(b), func(e *Event) *string { return &e.Title })
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			sinkString = title.Get(e)
		}
	})
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			sinkString = e.Title
		}
	})
	b.Run("reflect", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			sinkString = reflect.ValueOf(e).Elem().FieldByIndex(titleIndex).Interface().(string)
		}
	})
	b.Run("reflectx", func(b *testing.B) {
		m := newMapper()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			sinkString = m.FieldByName(reflect.ValueOf(e).Elem(), "title").Interface().(string)
		}
	})
}

func BenchmarkFieldSet(b *testing.B) {
	e := NewEvent()
	const v = "signed out"
	b.Run("kandra", func(b *testing.B) {
		title := kandra.MustFieldOf(events(b), func(e *Event) *string { return &e.Title })
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			title.Set(e, v)
		}
	})
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			e.Title = v
		}
	})
	b.Run("reflect", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			reflect.ValueOf(e).Elem().FieldByIndex(titleIndex).Set(reflect.ValueOf(v))
		}
	})
	b.Run("reflectx", func(b *testing.B) {
		m := newMapper()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			m.FieldByName(reflect.ValueOf(e).Elem(), "title").Set(reflect.ValueOf(v))
		}
	})
}

// reflectxBind is how gocqlx binds a struct's fields to a query's named
// parameters: traversals by name, then each field read and boxed.
func reflectxBind(m *reflectx.Mapper, names []string, e *Event) []any {
	v := reflect.ValueOf(e).Elem()
	args := make([]any, 0, len(names))
	for _, t := range m.TraversalsByName(v.Type(), names) {
		args = append(args, reflectx.FieldByIndexesReadOnly(v, t).Interface())
	}
	return args
}

// reflectxScan is how gocqlx prepares a row scan into a struct: traversals
// by column name, then each field's address.
func reflectxScan(m *reflectx.Mapper, names []string, e *Event) []any {
	v := reflect.ValueOf(e).Elem()
	values := make([]any, len(names))
	for i, t := range m.TraversalsByName(v.Type(), names) {
		values[i] = reflectx.FieldByIndexes(v, t).Addr().Interface()
	}
	return values
}

// handwrittenBind is what a programmer writes without a library: the
// fields in column order, boxed into a []any literal.
func handwrittenBind(e *Event) []any {
	return []any{e.TenantID, e.Day, e.OccurredAt, e.EventID, e.Email, e.Kind,
		e.Title, e.Priority, e.Score, e.Done, e.Tags, e.Payload}
}

func handwrittenScan(e *Event) []any {
	return []any{&e.TenantID, &e.Day, &e.OccurredAt, &e.EventID, &e.Email, &e.Kind,
		&e.Title, &e.Priority, &e.Score, &e.Done, &e.Tags, &e.Payload}
}

func BenchmarkBindValues(b *testing.B) {
	e := NewEvent()
	b.Run("kandra", func(b *testing.B) {
		t := events(b)
		// A runtime reuses one buffer per statement; kandra appends into it.
		dst := make([]any, 0, t.Schema().NumColumns())
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			dst = t.Pointers(e, dst[:0])
		}
		sinkAnys = dst
	})
	b.Run("reflectx", func(b *testing.B) {
		m, names := newMapper(), columns(events(b))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			sinkAnys = reflectxBind(m, names, e)
		}
	})
	b.Run("handwritten", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			sinkAnys = handwrittenBind(e)
		}
	})
}

func BenchmarkScanTargets(b *testing.B) {
	e := NewEvent()
	b.Run("kandra", func(b *testing.B) {
		t := events(b)
		dst := make([]any, 0, t.Schema().NumColumns())
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			dst = t.Pointers(e, dst[:0])
		}
		sinkAnys = dst
	})
	b.Run("reflectx", func(b *testing.B) {
		m, names := newMapper(), columns(events(b))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			sinkAnys = reflectxScan(m, names, e)
		}
	})
	b.Run("handwritten", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			sinkAnys = handwrittenScan(e)
		}
	})
}

// BenchmarkRegisterCold measures a type's first registration, 12 fields
// with Event's keys, lookups and index.
//
// kandra: dynamic.Register of a run-time twin of Event (eventTwin: Event's
// fields, table name and Describe's bindings) that kandra has never seen,
// a new one per iteration, since a registered type is cached for good and
// there is no reset. Timed: validating and building the schema, and
// storing it in kandra's per-type cache. Not timed: making the twin and
// its pointer type, which a compiled type has for free. The run-time path
// reads the bindings from the Spec instead of running Describe, and builds
// no *Table[T] accessors. The twins stay cached, so the cache grows by one
// type per iteration (BenchmarkRegisterMany shows what that costs).
// TestStatementsRenderedOnceConcurrently checks that a twin's DDL is
// Event's.
//
// gorm: schema.Parse of the compiled GormEvent with a fresh cache for
// every Parse, so every call parses the struct again: all of its parse,
// none of its cache hits.
//
// Any bias is against kandra: GORM parses one type again and again, whose
// data stays in the CPU caches, while every kandra twin is new memory.
//
// reflectx: TypeMap on a fresh Mapper.
func BenchmarkRegisterCold(b *testing.B) {
	b.Run("kandra", func(b *testing.B) {
		// The twins are made in batches outside the timer, so that
		// stopping the timer costs little and few twins wait in memory.
		specs := make([]dynamic.Spec, 0, 256)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i += len(specs) {
			b.StopTimer()
			specs = specs[:min(cap(specs), b.N-i)]
			for j := range specs {
				specs[j] = eventTwin()
			}
			b.StartTimer()
			for _, sp := range specs {
				v, err := dynamic.Register(sp)
				if err != nil {
					b.Fatal(err)
				}
				sinkAny = v
			}
		}
	})
	b.Run("gorm", func(b *testing.B) {
		dest := &GormEvent{}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			s, err := schema.Parse(dest, &sync.Map{}, schema.NamingStrategy{})
			if err != nil {
				b.Fatal(err)
			}
			sinkSchema = s
		}
	})
	b.Run("reflectx", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			sinkMap = newMapper().TypeMap(eventType)
		}
	})
}

// BenchmarkSchemaLookup measures finding the registered schema of a type
// that is already registered.
func BenchmarkSchemaLookup(b *testing.B) {
	b.Run("kandra", func(b *testing.B) {
		events(b)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			t, ok := kandra.TableOf[Event]()
			sinkTable, sinkBool = t, ok
		}
	})
	b.Run("gorm", func(b *testing.B) {
		dest, cache, namer := &GormEvent{}, &sync.Map{}, schema.NamingStrategy{}
		if _, err := schema.Parse(dest, cache, namer); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			s, err := schema.Parse(dest, cache, namer)
			if err != nil {
				b.Fatal(err)
			}
			sinkSchema = s
		}
	})
	b.Run("reflectx", func(b *testing.B) {
		m := newMapper()
		m.TypeMap(eventType)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			sinkMap = m.TypeMap(reflect.TypeFor[Event]())
		}
	})
}

// BenchmarkDDL measures writing every statement of a keyspace holding the
// entity: CREATE KEYSPACE, the primary table, two lookup tables and one
// index, qualified with the keyspace. Nothing is cached: DDL is start-up
// work.
func BenchmarkDDL(b *testing.B) {
	b.Run("kandra_keyspace", func(b *testing.B) {
		ks := eventsKeyspace(b)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			sinkStmts = ks.Statements()
		}
	})
}

// eventsKeyspace is the Event table in keyspace app, for a Cassandra 5.0
// node (the table has a secondary index, which ScyllaDB 2025.x refuses
// under tablets).
func eventsKeyspace(tb testing.TB) *kandra.Keyspace {
	return kandra.MustNewKeyspace(kandra.KeyspaceSpec{
		Name:        "app",
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3}),
		Targets:     kandra.Cassandra5,
	}, events(tb))
}

func BenchmarkTimeOrderedUUID(b *testing.B) {
	b.Run("kandra", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			sinkUUID = kandra.NewTimeOrderedUUID()
		}
	})
	b.Run("googleuuid", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			id, err := uuid.NewV7()
			if err != nil {
				b.Fatal(err)
			}
			sinkUUID = id
		}
	})
}
