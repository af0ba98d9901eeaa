package kandra

import (
	"slices"
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
	for i, op := range []string{OpSave, OpUpdate, OpDelete, OpSaveAll, OpDeleteAll, "custom"} {
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
	// The names are fixed, byte for byte: dashboards and alerts keyed on
	// them keep working across releases.
	for got, want := range map[string]string{
		OpSave: "save", OpUpdate: "update", OpDelete: "delete",
		OpSaveAll: "saveAll", OpDeleteAll: "deleteAll",
		OpSaveIfNotExists: "saveIfNotExists", OpSoftDelete: "softDelete", OpGet: "get",
		OpFind: "find", OpList: "list", OpIncrement: "increment",
		OpEventualWriteFailed: "eventualWriteFailed", OpBackfill: "backfill", OpMigrate: "migrate",
	} {
		if got != want {
			t.Errorf("operation %q, want %q", got, want)
		}
	}
}

// TestOperationsListsEveryOp: Operations is every Op constant an
// Observation carries (all but OpEventualWriteFailed, which only
// Metrics.Record gets), each once.
func TestOperationsListsEveryOp(t *testing.T) {
	want := []string{OpSave, OpUpdate, OpDelete, OpSaveAll, OpDeleteAll, OpSaveIfNotExists, OpSoftDelete,
		OpGet, OpFind, OpList, OpIncrement, OpBackfill, OpMigrate}
	got := Operations()
	if len(got) != len(want) {
		t.Fatalf("Operations() = %q, want %q", got, want)
	}
	for _, op := range want {
		if !slices.Contains(got, op) {
			t.Errorf("Operations() lacks %q", op)
		}
	}
	if slices.Contains(got, OpEventualWriteFailed) {
		t.Errorf("Operations() lists %q, which no Observation carries", OpEventualWriteFailed)
	}
}
