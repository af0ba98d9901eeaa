package otelkandra_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
	"github.com/kandra-go/kandra/otelkandra"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// Note is the entity of the tests: a BATCH and an EVENTUAL lookup, a
// version, a Sensitive column.
type Note struct {
	Board   uuid.UUID
	ID      int64
	Title   string
	Owner   string
	Secret  string
	Version int64
}

func (n *Note) Describe(s *kandra.Schema[Note]) {
	s.Table("notes")
	kandra.Bind(s, &n.Board, kandra.PartitionKey(0))
	kandra.Bind(s, &n.ID, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &n.Title, kandra.Lookup("by_title", kandra.LookupBatch))
	kandra.Bind(s, &n.Owner, kandra.Lookup("by_owner", kandra.LookupEventual))
	kandra.Bind(s, &n.Secret, kandra.Sensitive())
	kandra.Version(s, &n.Version)
}

var notes = kandra.MustRegister[Note]()

var app = kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "app", Replication: kandra.SimpleStrategy(1), Targets: kandra.Cassandra5}, notes)

// fakeDriver applies no lightweight transaction when conflict is set,
// and returns pages of one row for a partition read, three pages in all.
type fakeDriver struct {
	adapter.Driver // the migrator's calls, which the runtime never makes: nil
	mu             sync.Mutex
	conflict       bool
	pages          int
}

func (d *fakeDriver) Exec(_ context.Context, q *adapter.Query) (bool, error) {
	if strings.Contains(q.Statement.CQL(), "notes_by_owner") && strings.HasPrefix(q.Statement.CQL(), "INSERT") {
		return false, errors.New("injected: the node is down")
	}
	return !(q.Statement.IsConditional() && d.conflict), nil
}

func (d *fakeDriver) Batch(context.Context, *adapter.Batch) (bool, error) { return true, nil }

func (d *fakeDriver) Query(_ context.Context, q *adapter.Query) (adapter.Rows, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pages++
	state := []byte{byte(d.pages)}
	if d.pages == 3 {
		state = nil
	}
	return &oneRow{state: state}, nil
}

type oneRow struct {
	done  bool
	state []byte
}

func (r *oneRow) Next(dst []any) bool {
	if r.done {
		return false
	}
	r.done = true
	*dst[0].(*uuid.UUID) = uuid.MustParse("0190f0a8-1d2c-7a3b-8c4d-5e6f7a8b9c0d")
	return true
}
func (r *oneRow) PageState() []byte { return r.state }
func (r *oneRow) Close() error      { return nil }

func attrs(kv []attribute.KeyValue) map[string]string {
	m := map[string]string{}
	for _, a := range kv {
		m[string(a.Key)] = a.Value.String()
	}
	return m
}

// TestSpansAndMetrics: a Save with a BATCH and an EVENTUAL lookup (whose
// write fails), a versioned Update that conflicts, and a List over three
// pages, each under a caller's span: the spans, their parents and links,
// their attributes (never a value), and the metrics.
func TestSpansAndMetrics(t *testing.T) {
	ctx := context.Background()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	obs, err := otelkandra.New(otelkandra.WithTracerProvider(tp), otelkandra.WithMeterProvider(mp), otelkandra.WithStatementText())
	if err != nil {
		t.Fatal(err)
	}
	d := &fakeDriver{}
	rt, err := kstore.New(d, app, kstore.WithObserver(obs))
	if err != nil {
		t.Fatal(err)
	}
	repo := kstore.MustNewRepo(rt, notes)
	caller := tp.Tracer("test")

	ctx1, call := caller.Start(ctx, "handler")
	n := &Note{Board: uuid.New(), ID: 1, Title: "groceries", Owner: "ada", Secret: "s3cret"}
	if err := repo.Save(ctx1, n); err != nil {
		t.Fatal(err)
	}
	if err := rt.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	d.conflict = true
	nw := *n
	nw.Title = "shopping"
	var lock *kerrors.OptimisticLockError
	if err := repo.Update(ctx1, n, &nw); !errors.As(err, &lock) {
		t.Fatalf("Update: %v, want an OptimisticLockError", err)
	}
	it := repo.List(ctx1, n, kstore.PageSize(1))
	for range 2 {
		if _, err := it.All(); err != nil {
			t.Fatal(err)
		}
		it = repo.List(ctx1, n, kstore.PageSize(1), kstore.After(it.Cursor()))
	}
	if _, err := it.All(); err != nil {
		t.Fatal(err)
	}
	call.End()
	if err := rt.Close(ctx); err != nil {
		t.Fatal(err)
	}

	var names []string
	byName := map[string][]sdktrace.ReadOnlySpan{}
	for _, s := range spans.GetSpans().Snapshots() {
		names = append(names, s.Name())
		byName[s.Name()] = append(byName[s.Name()], s)
		for _, a := range s.Attributes() {
			if v := a.Value.String(); strings.Contains(v, "s3cret") || strings.Contains(v, "groceries") || strings.Contains(v, "ada") {
				t.Errorf("span %s carries a value: %s=%s", s.Name(), a.Key, v)
			}
		}
	}
	slices.Sort(names)
	// The versioned table's writes: the BATCH lookup's row first, alone,
	// then the lightweight transaction of the row; the EVENTUAL row after.
	want := []string{"handler", "list app.notes", "list app.notes", "list app.notes", "save app.notes", "save app.notes_by_owner",
		"save app.notes_by_title", "update app.notes", "update app.notes_by_title"}
	if !slices.Equal(names, want) {
		t.Fatalf("spans %v, want %v", names, want)
	}
	handler := byName["handler"][0].SpanContext()
	for name, ss := range byName {
		for _, s := range ss {
			a := attrs(s.Attributes())
			switch {
			case name == "handler":
			case name == "save app.notes_by_owner":
				// The EVENTUAL row: its own trace, linked to the call.
				if s.Parent().IsValid() || len(s.Links()) != 1 || s.Links()[0].SpanContext.SpanID() != handler.SpanID() ||
					a["kandra.background"] != "true" || s.Status().Code != codes.Error || a["error.type"] == "" {
					t.Errorf("background span: parent %v, links %v, attrs %v, status %v", s.Parent(), s.Links(), a, s.Status())
				}
			default:
				if s.Parent().SpanID() != handler.SpanID() || a["db.system.name"] != "cassandra" || a["db.namespace"] != "app" ||
					name != a["db.operation.name"]+" app."+a["db.collection.name"] || a["db.query.text"] == "" {
					t.Errorf("span %s: parent %v, attrs %v", name, s.Parent(), a)
				}
			}
			if name == "list app.notes" && a["db.response.returned_rows"] != "1" {
				t.Errorf("list page: rows %q", a["db.response.returned_rows"])
			}
			if name == "update app.notes" && (a["kandra.lwt.applied"] != "false" || s.Status().Code == codes.Error) {
				t.Errorf("the conflicting update: %v, status %v", a, s.Status())
			}
		}
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch data := m.Data.(type) {
			case metricdata.Histogram[float64]:
				for _, p := range data.DataPoints {
					op, _ := p.Attributes.Value("db.operation.name")
					table, _ := p.Attributes.Value("db.collection.name")
					counts[m.Name+" "+op.AsString()+" "+table.AsString()] += int64(p.Count)
				}
			case metricdata.Sum[int64]:
				for _, p := range data.DataPoints {
					table, _ := p.Attributes.Value("db.collection.name")
					counts[m.Name+" "+table.AsString()] += p.Value
				}
			}
		}
	}
	wantCounts := map[string]int64{
		"db.client.operation.duration save notes":            1,
		"db.client.operation.duration save notes_by_title":   1,
		"db.client.operation.duration save notes_by_owner":   1,
		"db.client.operation.duration update notes":          1,
		"db.client.operation.duration update notes_by_title": 1,
		"db.client.operation.duration list notes":            3,
		"kandra.client.errors notes_by_owner":                1,
		"kandra.client.errors notes":                         0,
	}
	for k, v := range wantCounts {
		if counts[k] != v {
			t.Errorf("%s: %d, want %d (all: %v)", k, counts[k], v, counts)
		}
	}
}
