package bench

import (
	"reflect"
	"strings"
	"sync"
	"testing"

	"gorm.io/gorm/schema"
)

// TestContendersAgree checks that the contenders do the same work, so
// that the benchmarks compare like with like.
func TestContendersAgree(t *testing.T) {
	tbl := events(t)
	e := NewEvent()
	names := columns(tbl)
	want := []string{"tenant_id", "day", "occurred_at", "event_id", "email", "kind",
		"title", "priority", "score", "done", "tags", "payload"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("kandra columns %v, want %v", names, want)
	}
	m := newMapper()
	for i, n := range names {
		if got := CamelToSnakeASCII(eventType.Field(i).Name); got != n {
			t.Errorf("gocqlx's rule names field %d %q, kandra %q", i, got, n)
		}
	}

	// BindValues: pointers that dereference to the values the others box.
	ptrs := tbl.Pointers(e, nil)
	deref := make([]any, len(ptrs))
	for i, p := range ptrs {
		deref[i] = reflect.ValueOf(p).Elem().Interface()
	}
	for name, got := range map[string][]any{"reflectx": reflectxBind(m, names, e), "handwritten": handwrittenBind(e)} {
		if !reflect.DeepEqual(deref, got) {
			t.Errorf("%s binds %v, kandra %v", name, got, deref)
		}
	}

	// ScanTargets: the very same addresses.
	scan := tbl.Pointers(e, nil)
	for name, got := range map[string][]any{"reflectx": reflectxScan(m, names, e), "handwritten": handwrittenScan(e)} {
		if len(got) != len(scan) {
			t.Fatalf("%s has %d targets, kandra %d", name, len(got), len(scan))
		}
		for i := range scan {
			if scan[i] != got[i] {
				t.Errorf("%s target %d is %v (%T), kandra's %v (%T)", name, i, got[i], got[i], scan[i], scan[i])
			}
		}
	}

	// The peers parse the same 12 columns.
	gs, err := schema.Parse(&GormEvent{}, &sync.Map{}, schema.NamingStrategy{})
	if err != nil {
		t.Fatal(err)
	}
	if len(gs.DBNames) != 12 || len(gs.PrimaryFieldDBNames) != 3 {
		t.Errorf("gorm parsed columns %v, primary key %v", gs.DBNames, gs.PrimaryFieldDBNames)
	}
	if n := len(m.TypeMap(eventType).Names); n != 12 {
		t.Errorf("reflectx maps %d names", n)
	}

	// The DDL is what the benchmark claims: a table, two lookups, an index.
	stmts := eventsKeyspace(t).Statements()[1:] // after CREATE KEYSPACE
	if len(stmts) != 4 || !strings.Contains(stmts[0], "PRIMARY KEY ((tenant_id, day), occurred_at)") ||
		!strings.HasPrefix(stmts[0], "CREATE TABLE IF NOT EXISTS app.events (") ||
		!strings.HasPrefix(stmts[3], "CREATE INDEX IF NOT EXISTS events_kind_idx") {
		t.Errorf("statements:\n%s", strings.Join(stmts, "\n"))
	}
}
