package migrate

import (
	"slices"
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
	"pgregory.net/rapid"
)

// Jaeger's shape (its v004 schema): types whose fields are collections
// declared without FROZEN (log.fields, process.tags), used only frozen
// (a list of logs, a frozen process); and frozen collections outside the
// key.

type openKV struct {
	Key   string
	Value string
}

func (openKV) UDTName() string { return "keyvalue" }

type openLog struct {
	TS     int64 `kandra:"ts"`
	Fields []openKV
}

func (openLog) UDTName() string { return "log" }

type openProcess struct {
	ServiceName string
	Tags        []openKV
}

func (openProcess) UDTName() string { return "process" }

// openSpan holds process inside another type, frozen there.
type openSpan struct {
	Name    string
	Process openProcess
}

func (openSpan) UDTName() string { return "span" }

type openTrace struct {
	TraceID []byte
	SpanID  int64
	Logs    []openLog
	Process openProcess
	Parent  openSpan
	Tags    map[string]struct{}
	Sizes   map[string][]int32
}

func (e *openTrace) Describe(s *kandra.Schema[openTrace]) {
	s.Table("traces")
	kandra.Bind(s, &e.TraceID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.SpanID, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &e.Process, kandra.Frozen())
	kandra.Bind(s, &e.Parent, kandra.Frozen())
	kandra.Bind(s, &e.Tags, kandra.Frozen(), kandra.SecondaryIndex())
	kandra.Bind(s, &e.Sizes, kandra.Frozen())
}

// openTraceLoose declares process as a column of its own, not frozen.
type openTraceLoose openTrace

func (e *openTraceLoose) Describe(s *kandra.Schema[openTraceLoose]) {
	s.Table("traces")
	kandra.Bind(s, &e.TraceID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.SpanID, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &e.Parent, kandra.Frozen())
	kandra.Bind(s, &e.Tags, kandra.Frozen(), kandra.SecondaryIndex())
	kandra.Bind(s, &e.Sizes, kandra.Frozen())
}

// openTraceBare leaves process out (live may hold it, kandra never writes
// it).
type openTraceBare openTrace

func (e *openTraceBare) Describe(s *kandra.Schema[openTraceBare]) {
	s.Table("traces")
	kandra.Bind(s, &e.TraceID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.SpanID, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &e.Process, kandra.Transient())
	kandra.Bind(s, &e.Parent, kandra.Frozen())
	kandra.Bind(s, &e.Tags, kandra.Frozen(), kandra.SecondaryIndex())
	kandra.Bind(s, &e.Sizes, kandra.Frozen())
}

var (
	openTracesBare  = kandra.MustRegister[openTraceBare]()
	openTraces      = kandra.MustRegister[openTrace]()
	openTracesLoose = kandra.MustRegister[openTraceLoose]()
)

// openFields declares the collection fields of log and process without
// FROZEN, as Jaeger's CREATE TYPE does.
func openFields(t tb, r *schemaRows) {
	for typ, field := range map[string]string{"log": "fields", "process": "tags"} {
		row := typeRowOf(t, r, typ)
		types := slices.Clone(row["field_types"].([]string))
		types[fieldIndex(row, field)] = "list<frozen<keyvalue>>"
		row["field_types"] = types
	}
}

func openColumn(t tb, r *schemaRows, table, name string) map[string]any {
	i := rowsWhere(r.Columns, table, func(m map[string]any) bool { return m["column_name"] == name })
	if len(i) != 1 {
		t.Fatalf("no column %s.%s in the rows", table, name)
	}
	return r.Columns[i[0]]
}

// TestPlanOpenTypeFields: a type's collection field live declares without
// FROZEN is the model's frozen field when every use of the type is
// frozen (no step); a use that is not frozen, in the model or in live,
// is an impossible step on the field naming the use and the way out.
func TestPlanOpenTypeFields(t *testing.T) {
	strict := udtKS(t, kandra.Cassandra5, openTraces)
	loose := udtKS(t, kandra.Cassandra5, openTracesLoose)

	r := rowsOf(strict)
	openFields(t, r)
	if p := mustPlan(t, strict, mustLive(t, r)); !p.Empty() || len(p.Extra) > 0 || len(p.Notes) > 0 {
		t.Fatalf("Jaeger's open fields, every use frozen: want no step:\n%s", p)
	}

	p := mustPlan(t, loose, mustLive(t, r))
	if got := ids(p.Steps); !slices.Equal(got, []string{"change-field-type:process.tags", "change-type:traces.process"}) {
		t.Fatalf("the model's process not frozen: steps %q:\n%s", got, p)
	}
	s := stepOf(t, p, "change-field-type:process.tags")
	if s.Class != Impossible || s.UDT != "process" || s.Field != "tags" ||
		!strings.Contains(s.Reason, `field "tags" of type "process": its type is list<frozen<keyvalue>> in live, frozen<list<frozen<keyvalue>>> in the model, the same bytes inside a frozen value`) ||
		!strings.Contains(s.Reason, "(traces.process)") || !strings.Contains(s.Reason, `"Non-frozen UDTs with nested non-frozen collections are not supported"`) ||
		!strings.Contains(s.Manual, "give traces.process kandra.Frozen()") {
		t.Fatalf("step %+v", s)
	}

	// A column of the type not frozen in live: the field was added by
	// ALTER TYPE after it (Cassandra 5.0 takes that).
	r = rowsOf(loose)
	openFields(t, r)
	p = mustPlan(t, strict, mustLive(t, r))
	if got := ids(p.Steps); !slices.Equal(got, []string{"change-field-type:process.tags", "change-type:traces.process"}) {
		t.Fatalf("live's process not frozen: steps %q:\n%s", got, p)
	}
	if s := stepOf(t, p, "change-field-type:process.tags"); !strings.Contains(s.Reason, "live holds it in a column not frozen (traces.process;") ||
		strings.Contains(s.Reason, "the model holds") || !strings.Contains(s.Manual, "into a new column of frozen<process>") {
		t.Fatalf("step %+v", s)
	}
	// A live column the model leaves out is never written: it blocks
	// nothing, and is listed as extra.
	if p := mustPlan(t, udtKS(t, kandra.Cassandra5, openTracesBare), mustLive(t, r)); !p.Empty() || !slices.Equal(p.Extra, []string{"column traces.process"}) {
		t.Fatalf("live's process not frozen, left out of the model:\n%s", p)
	}
	if p := mustPlan(t, loose, mustLive(t, r)); !slices.Equal(ids(p.Steps), []string{"change-field-type:process.tags"}) ||
		!strings.Contains(p.Steps[0].Reason, "the model holds the type in a column of its own, not frozen (traces.process)") || !strings.Contains(p.Steps[0].Reason, "; and live holds it in a column not frozen") {
		t.Fatalf("both not frozen:\n%s", p)
	}

	// A field of another element type is a change of type still.
	r = rowsOf(strict)
	row := typeRowOf(t, r, "process")
	types := slices.Clone(row["field_types"].([]string))
	types[fieldIndex(row, "tags")] = "list<text>"
	row["field_types"] = types
	if p := mustPlan(t, strict, mustLive(t, r)); !slices.Equal(ids(p.Steps), []string{"change-field-type:process.tags"}) ||
		!strings.Contains(p.Steps[0].Reason, "its type is list<text> in live, frozen<list<frozen<keyvalue>>> in the model") {
		t.Fatalf("another element type:\n%s", p)
	}
}

// TestPlanFrozenCollections: a Frozen collection column is a type of its
// own to the planner: not frozen in live is an impossible change of type,
// added it is declared FROZEN, a dropped column of the other freezing is
// refused back (Cassandra 5.0: "incompatible with previously dropped
// column"), and its index is FULL.
func TestPlanFrozenCollections(t *testing.T) {
	ks := udtKS(t, kandra.Cassandra5, openTraces)
	r := rowsOf(ks)
	if got := r.Indexes[0]["options"].(map[string]string)["target"]; got != "full(tags)" {
		t.Fatalf("the index target %q", got)
	}
	if p := mustPlan(t, ks, mustLive(t, r)); !p.Empty() {
		t.Fatalf("own rows:\n%s", p)
	}
	// A bare target on a frozen collection is its whole value.
	r.Indexes[0]["options"].(map[string]string)["target"] = "tags"
	if p := mustPlan(t, ks, mustLive(t, r)); !p.Empty() {
		t.Fatalf("a bare index target on a frozen set:\n%s", p)
	}

	r = rowsOf(ks)
	openColumn(t, r, "traces", "sizes")["type"] = "map<text, frozen<list<int>>>"
	p := mustPlan(t, ks, mustLive(t, r))
	if got := ids(p.Steps); !slices.Equal(got, []string{"change-type:traces.sizes"}) ||
		!strings.Contains(p.Steps[0].Reason, "its type is map<text, frozen<list<int>>> in live, frozen<map<text, frozen<list<int>>>> in the model") || p.Steps[0].Class != Impossible {
		t.Fatalf("a frozen map not frozen in live:\n%s", p)
	}

	for _, c := range []struct {
		dropped string
		id      string
		class   Class
	}{
		{"", "add-column:traces.sizes", Safe},
		{"frozen<map<text, frozen<list<int>>>>", "add-column:traces.sizes", Safe},
		{"map<text, frozen<list<int>>>", "re-add-dropped:traces.sizes", Impossible},
	} {
		r := rowsOf(ks)
		r.Columns = without(r.Columns, func(m map[string]any) bool { return m["table_name"] == "traces" && m["column_name"] == "sizes" })
		if c.dropped != "" {
			r.DroppedColumns = append(r.DroppedColumns, map[string]any{"keyspace_name": "ks", "table_name": "traces", "column_name": "sizes", "kind": "regular", "type": c.dropped})
		}
		p := mustPlan(t, ks, mustLive(t, r))
		s := stepOf(t, p, c.id)
		if len(p.Steps) != 1 || s.Class != c.class {
			t.Fatalf("dropped %q: %s", c.dropped, p)
		}
		if c.class == Safe && s.CQL != "ALTER TABLE ks.traces ADD IF NOT EXISTS sizes FROZEN<MAP<TEXT, FROZEN<LIST<INT>>>>;" {
			t.Fatalf("dropped %q: CQL %s", c.dropped, s.CQL)
		}
		if c.class == Impossible && !strings.Contains(s.Reason, "another type") {
			t.Fatalf("dropped %q: reason %s", c.dropped, s.Reason)
		}
	}
}

// TestImportOpenTypeFields: the importer declares a frozen collection
// outside the key with kandra.Frozen (its FULL index bare), and a type
// whose collection fields live declares without FROZEN as any type, with
// its frozen columns; a column of such a type not frozen is listed.
func TestImportOpenTypeFields(t *testing.T) {
	r := rowsOf(udtKS(t, kandra.Cassandra5, openTraces))
	openFields(t, r)
	live := mustLive(t, r)
	live.Server = cassandra508
	imp, src := generated(t, live, ImportOptions{})
	if len(imp.Unexpressed) > 0 {
		t.Fatalf("unexpressed:\n  %s", strings.Join(imp.Unexpressed, "\n  "))
	}
	for _, want := range []string{
		"kandra.Bind(s, &e.Process, kandra.Frozen())",
		"kandra.Bind(s, &e.Parent, kandra.Frozen())",
		"kandra.Bind(s, &e.Tags, kandra.Frozen(), kandra.SecondaryIndex(kandra.UsingLegacy()))",
		"kandra.Bind(s, &e.Sizes, kandra.Frozen())",
		"\tLogs    []Log\n",
		"\tFields []Keyvalue\n",
		"\tTags        []Keyvalue\n",
		"type Process struct {",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the source lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(src)
	}

	r = rowsOf(udtKS(t, kandra.Cassandra5, openTracesLoose))
	openFields(t, r)
	live = mustLive(t, r)
	live.Server = cassandra508
	imp, src = generated(t, live, ImportOptions{})
	contains(t, "Unexpressed", imp.Unexpressed,
		`column traces.process (process): is of the user-defined type "process", not frozen, whose field "tags" is a collection not frozen`)
	if strings.Contains(src, "e.Process") {
		t.Errorf("the source declares traces.process:\n%s", src)
	}
}

// TestPropertyOpenFieldUses: for a type with a collection field live
// declares without FROZEN, the plan has a step on the field exactly when
// the model or live holds the type in a column of its own not frozen.
func TestPropertyOpenFieldUses(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		modelLoose := rapid.Bool().Draw(rt, "model's process not frozen")
		liveLoose := rapid.Bool().Draw(rt, "live's process not frozen")
		openLog := rapid.Bool().Draw(rt, "log.fields not frozen")
		openProc := rapid.Bool().Draw(rt, "process.tags not frozen")
		model, rowsFrom := openTraces.Schema(), openTraces.Schema()
		if modelLoose {
			model = openTracesLoose.Schema()
		}
		if liveLoose {
			rowsFrom = openTracesLoose.Schema()
		}
		spec := kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5, Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 1})}
		ks, err := kandra.NewKeyspace(spec, model)
		if err != nil {
			rt.Fatal(err)
		}
		r := rowsOf(kandra.MustNewKeyspace(spec, rowsFrom))
		for typ, open := range map[string]bool{"log": openLog, "process": openProc} {
			if !open {
				continue
			}
			row := typeRowOf(rt, r, typ)
			types := slices.Clone(row["field_types"].([]string))
			types[1] = "list<frozen<keyvalue>>"
			row["field_types"] = types
		}
		p := mustPlan(rt, ks, mustLive(rt, r))
		var want []string
		if openProc && (modelLoose || liveLoose) {
			want = append(want, "change-field-type:process.tags")
		}
		if modelLoose != liveLoose {
			want = append(want, "change-type:traces.process")
		}
		if got := ids(p.Steps); !slices.Equal(got, want) && len(got)+len(want) > 0 {
			rt.Fatalf("steps %q, want %q:\n%s", got, want, p)
		}
	})
}
