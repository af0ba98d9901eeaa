package migrate

import (
	"slices"
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
)

// TestViewsAndTriggers: the live materialized views and triggers are read
// into the live keyspace (a ScyllaDB view that backs a secondary index
// is the index's), listed as extra by a plan and as unexpressed by an
// import, never touched.
func TestViewsAndTriggers(t *testing.T) {
	b := scyllaRows()
	b.r.Views = append(b.r.Views,
		map[string]any{"keyspace_name": "sc", "view_name": "items_tags_idx_index", "base_table_name": "items"}, // the index's
		map[string]any{"keyspace_name": "sc", "view_name": "items_by_tag", "base_table_name": "items"},
		map[string]any{"keyspace_name": "other", "view_name": "not_mine", "base_table_name": "t"})
	b.r.Triggers = append(b.r.Triggers,
		map[string]any{"keyspace_name": "sc", "table_name": "items", "trigger_name": "audit", "options": map[string]string{"class": "org.example.Audit"}})
	live := liveNamed(t, b.r, "sc")
	ks := live.Keyspace
	if len(ks.Views) != 1 || *ks.Views[0] != (LiveView{Name: "items_by_tag", BaseTable: "items"}) {
		t.Errorf("views %+v, want items_by_tag of items alone", ks.Views)
	}
	if len(ks.Triggers) != 1 || *ks.Triggers[0] != (LiveTrigger{Name: "audit", Table: "items", Class: "org.example.Audit"}) {
		t.Errorf("triggers %+v, want audit", ks.Triggers)
	}
	imp, _ := generated(t, live, ImportOptions{})
	contains(t, "Unexpressed", imp.Unexpressed,
		"materialized view items_by_tag on items: kandra models no materialized view",
		"trigger audit on items: kandra declares no trigger")
	if slices.ContainsFunc(imp.Unexpressed, func(u string) bool {
		return strings.Contains(u, "items_tags_idx_index") || strings.Contains(u, "not_mine")
	}) {
		t.Errorf("unexpressed lists the index's view or another keyspace's: %q", imp.Unexpressed)
	}

	// A plan of any model of the keyspace lists them, and changes nothing
	// of them.
	model := serverKS(t, kandra.Cassandra5)
	r := rowsOf(model)
	r.Views = []map[string]any{{"keyspace_name": "app", "view_name": "users_by_age", "base_table_name": "users"}}
	r.Triggers = []map[string]any{{"keyspace_name": "app", "table_name": "users", "trigger_name": "audit"}}
	p := mustPlan(t, model, liveNamed(t, r, "app"))
	for _, want := range []string{"materialized view app.users_by_age of table users", "trigger audit on table users"} {
		if !slices.Contains(p.Extra, want) {
			t.Errorf("extra %q lacks %q", p.Extra, want)
		}
	}
	if !p.Empty() {
		t.Errorf("a view and a trigger plan steps:\n%s", p)
	}
}
