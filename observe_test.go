package kandra

import (
	"slices"
	"testing"
)

func TestOperationNames(t *testing.T) {
	// The names are fixed, byte for byte: dashboards and alerts keyed on
	// them keep working across releases.
	for got, want := range map[string]string{
		OpSave: "save", OpUpdate: "update", OpDelete: "delete",
		OpSaveAll: "saveAll", OpDeleteAll: "deleteAll",
		OpSaveIfNotExists: "saveIfNotExists", OpSoftDelete: "softDelete", OpGet: "get",
		OpFind: "find", OpList: "list", OpIncrement: "increment",
		OpBackfill: "backfill", OpMigrate: "migrate", OpPatch: "patch", OpDeleteRange: "deleteRange", OpUnit: "unit",
		OpScan: "scan", OpCount: "count", OpTruncate: "truncate",
	} {
		if got != want {
			t.Errorf("operation %q, want %q", got, want)
		}
	}
}

// TestOperationsListsEveryOp: Operations is every Op constant, each once.
func TestOperationsListsEveryOp(t *testing.T) {
	want := []string{OpSave, OpUpdate, OpDelete, OpSaveAll, OpDeleteAll, OpSaveIfNotExists, OpSoftDelete,
		OpGet, OpFind, OpList, OpIncrement, OpBackfill, OpMigrate, OpPatch, OpDeleteRange, OpUnit, OpScan, OpCount, OpTruncate}
	got := Operations()
	if len(got) != len(want) {
		t.Fatalf("Operations() = %q, want %q", got, want)
	}
	for _, op := range want {
		if !slices.Contains(got, op) {
			t.Errorf("Operations() lacks %q", op)
		}
	}
}
