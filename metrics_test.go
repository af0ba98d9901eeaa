package kandra

import (
	"sync"
	"testing"
	"time"
)

func TestMetricsFuncRecords(t *testing.T) {
	type rec struct {
		table, op string
		d         time.Duration
	}
	var (
		mu   sync.Mutex
		got  []rec
		want []rec
	)
	var m Metrics = MetricsFunc(func(table, op string, d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, rec{table, op, d})
	})
	for i, op := range []string{OpSave, OpUpdate, OpDelete, OpSaveAll, OpDeleteAll, OpBatch, "custom"} {
		d := time.Duration(i+1) * 1500 * time.Microsecond
		m.Record("users", op, d)
		want = append(want, rec{"users", op, d})
	}
	if len(got) != len(want) {
		t.Fatalf("recorded %d, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestMetricsOperationNames(t *testing.T) {
	// The names are the Kotlin runtime's, byte for byte, so dashboards built
	// for either keep working.
	for got, want := range map[string]string{
		OpSave: "save", OpUpdate: "update", OpDelete: "delete",
		OpSaveAll: "saveAll", OpDeleteAll: "deleteAll", OpBatch: "batch",
		// The Go runtime's additions.
		OpSaveIfNotExists: "saveIfNotExists", OpSoftDelete: "softDelete", OpGet: "get",
		OpFind: "find", OpList: "list", OpIncrement: "increment",
		OpEventualWriteFailed: "eventualWriteFailed",
	} {
		if got != want {
			t.Errorf("operation %q, want %q", got, want)
		}
	}
}
