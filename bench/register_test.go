package bench

import (
	"fmt"
	"reflect"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/dynamic"
)

// typeSeq numbers the run-time types of this package. kandra caches a
// registered type for the life of the process and reflect.StructOf returns
// the existing type for an identical field list, so each new type carries
// its number in a struct tag (which kandra does not read) to be new to
// both.
var typeSeq atomic.Uint64

// manyFields are the 12 fields of a RegisterMany type: the seven field
// types in turn, field 0 the partition key.
var manyFields = func() []reflect.StructField {
	types := []reflect.Type{
		reflect.TypeFor[string](),
		reflect.TypeFor[int64](),
		reflect.TypeFor[bool](),
		reflect.TypeFor[time.Time](),
		reflect.TypeFor[uuid.UUID](),
		reflect.TypeFor[[]string](),
		reflect.TypeFor[map[string]int32](),
	}
	fields := make([]reflect.StructField, 12)
	for i := range fields {
		fields[i] = reflect.StructField{Name: fmt.Sprintf("Field%02d", i), Type: types[i%len(types)]}
	}
	return fields
}()

// manyBinds is shared by every RegisterMany spec: kandra only reads it.
var manyBinds = []dynamic.Bind{{Field: 0, Options: []any{kandra.PartitionKey(0)}}}

// newType returns a struct type with fields that no type made before has,
// the number that makes it new, and (made up front) its pointer type: a
// compiled type has *T for free, so making it is not registration work.
func newType(fields []reflect.StructField) (reflect.Type, uint64) {
	n := typeSeq.Add(1)
	f := append([]reflect.StructField(nil), fields...)
	f[0].Tag = reflect.StructTag(`bench:"` + strconv.FormatUint(n, 10) + `"`)
	t := reflect.StructOf(f)
	reflect.PointerTo(t)
	return t, n
}

// manySpec is the spec of a new RegisterMany type, with a table of its own.
func manySpec() dynamic.Spec {
	t, n := newType(manyFields)
	return dynamic.Spec{Type: t, Table: "many_" + strconv.FormatUint(n, 10), MarkerField: -1, Binds: manyBinds}
}

// eventBinds are Event.Describe's bindings, by field index.
var eventBinds = func() []dynamic.Bind {
	bind := func(name string, opts ...any) dynamic.Bind {
		f, ok := eventType.FieldByName(name)
		if !ok {
			panic("Event has no field " + name)
		}
		return dynamic.Bind{Field: f.Index[0], Options: opts}
	}
	return []dynamic.Bind{
		bind("TenantID", kandra.PartitionKey(0)),
		bind("Day", kandra.PartitionKey(1)),
		bind("OccurredAt", kandra.ClusteringKey(0, kandra.ClusteringDesc)),
		bind("EventID", kandra.Lookup("by_id", kandra.LookupBatch)),
		bind("Email", kandra.Lookup("by_email", kandra.LookupEventual)),
		bind("Kind", kandra.SecondaryIndex()),
	}
}()

var eventFields = func() []reflect.StructField {
	fields := make([]reflect.StructField, eventType.NumField())
	for i := range fields {
		f := eventType.Field(i)
		fields[i] = reflect.StructField{Name: f.Name, Type: f.Type}
	}
	return fields
}()

// eventTwin is the spec of a new run-time type with Event's fields (names,
// types, order) and Event.Describe's table name and bindings: a type kandra
// has never seen, to register cold without resetting anything.
func eventTwin() dynamic.Spec {
	t, _ := newType(eventFields)
	return dynamic.Spec{Type: t, Table: "events", MarkerField: -1, Binds: eventBinds}
}

// BenchmarkRegisterMany registers N new 12-field types per iteration, as a
// large program does at start-up, to show whether the cost of one
// registration grows with the number of types registered: ns/type at 4000
// should stay within 1.5x of ns/type at 250. Making the types
// (reflect.StructOf) is outside the timer; allocs/type and B/type count
// only the registrations. kandra's cache keeps every type of every
// iteration (there is nothing to reset), so later runs also register into
// a larger cache.
func BenchmarkRegisterMany(b *testing.B) {
	for _, n := range []int{250, 1000, 4000} {
		b.Run("types="+strconv.Itoa(n), func(b *testing.B) {
			var ms runtime.MemStats
			var mallocs, bytes uint64
			specs := make([]dynamic.Spec, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				for j := range specs {
					specs[j] = manySpec()
				}
				runtime.ReadMemStats(&ms)
				m0, b0 := ms.Mallocs, ms.TotalAlloc
				b.StartTimer()
				for _, sp := range specs {
					v, err := dynamic.Register(sp)
					if err != nil {
						b.Fatal(err)
					}
					sinkAny = v
				}
				b.StopTimer()
				runtime.ReadMemStats(&ms)
				mallocs += ms.Mallocs - m0
				bytes += ms.TotalAlloc - b0
				b.StartTimer()
			}
			types := float64(b.N) * float64(n)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/types, "ns/type")
			b.ReportMetric(float64(mallocs)/types, "allocs/type")
			b.ReportMetric(float64(bytes)/types, "B/type")
		})
	}
}
