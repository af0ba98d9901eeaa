package nodetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gocqlv2 "github.com/apache/cassandra-gocql-driver/v2"
	gocql "github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/driver/kgocqlv2"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
	"github.com/kandra-go/kandra/migrate"
	"github.com/kandra-go/kandra/otelkandra"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// Task is the entity: a BATCH and an EVENTUAL lookup, a version, a
// Sensitive column.
type Task struct {
	Board   uuid.UUID
	Seq     int64
	Title   string
	Owner   string
	Secret  string
	Version int64
}

func (t *Task) Describe(s *kandra.Schema[Task]) {
	s.Table("tasks")
	kandra.Bind(s, &t.Board, kandra.PartitionKey(0))
	kandra.Bind(s, &t.Seq, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &t.Title, kandra.Lookup("by_title", kandra.LookupBatch))
	kandra.Bind(s, &t.Owner, kandra.Lookup("by_owner", kandra.LookupEventual))
	kandra.Bind(s, &t.Secret, kandra.Sensitive())
	kandra.Version(s, &t.Version)
}

var tasks = kandra.MustRegister[Task]()

func envOr(k, d string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return d
}

// node is the node's address, or a skip (a failure with
// KANDRA_REQUIRE_CASSANDRA=1).
func node(t *testing.T) (string, int) {
	host, port := envOr("KANDRA_CASSANDRA_HOST", "127.0.0.1"), envOr("KANDRA_CASSANDRA_PORT", "9042")
	c, err := net.DialTimeout("tcp", net.JoinHostPort(host, port), 3*time.Second)
	if err != nil {
		msg := fmt.Sprintf("no Cassandra node on %s:%s; start one with scripts/cassandra.sh start", host, port)
		if os.Getenv("KANDRA_REQUIRE_CASSANDRA") == "1" {
			t.Fatal("real-server test cannot run: " + msg)
		}
		t.Skip("skipping real-server test: " + msg)
	}
	_ = c.Close()
	p, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	return host, p
}

func gocqlDriver(t *testing.T, host string, port int) *kgocql.Driver {
	cl := gocql.NewCluster(host)
	cl.Port, cl.ProtoVersion, cl.DisableInitialHostLookup = port, 4, true
	cl.Timeout, cl.ConnectTimeout = 15*time.Second, 15*time.Second
	s, err := cl.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return kgocql.New(s)
}

func v2Driver(t *testing.T, host string, port int) *kgocqlv2.Driver {
	cl := gocqlv2.NewCluster(host)
	cl.Port, cl.ProtoVersion, cl.DisableInitialHostLookup = port, 5, true
	cl.Timeout, cl.ConnectTimeout = 15*time.Second, 15*time.Second
	cl.Logger = gocqlv2.NewLogger(gocqlv2.LogLevelNone)
	s, err := cl.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return kgocqlv2.New(s)
}

// nodeDriver is what both adapters' Drivers are.
type nodeDriver interface {
	adapter.Driver
}

// TestOTelOnNode: on the node, through each adapter, the spans and
// metrics of a migration's Apply, a Save with a BATCH and an EVENTUAL
// lookup, a versioned Update that conflicts, a List over three pages and
// a backfill, each under a caller's span. It prints, per adapter,
//
//	real-server: otel adapter=<name> spans=N ok=true
func TestOTelOnNode(t *testing.T) {
	host, port := node(t)
	for _, a := range []struct {
		name string
		d    func() nodeDriver
	}{
		{"kgocql", func() nodeDriver { return gocqlDriver(t, host, port) }},
		{"kgocqlv2", func() nodeDriver { return v2Driver(t, host, port) }},
	} {
		t.Run(a.name, func(t *testing.T) {
			n, err := proveOTel(t, a.d())
			fmt.Printf("real-server: otel adapter=%s spans=%d ok=%v\n", a.name, n, err == nil)
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func proveOTel(t *testing.T, d nodeDriver) (int, error) {
	ctx := context.Background()
	var rb [4]byte
	_, _ = rand.Read(rb[:])
	ks, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "kotel_" + hex.EncodeToString(rb[:]), Replication: kandra.SimpleStrategy(1), Targets: kandra.Cassandra5}, tasks)
	if err != nil {
		return 0, err
	}
	t.Cleanup(func() {
		_, _ = d.ExecCQL(context.Background(), "DROP KEYSPACE IF EXISTS "+ks.Name(), nil, kandra.ConsistencyOne)
	})
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	reader := sdkmetric.NewManualReader()
	obs, err := otelkandra.New(otelkandra.WithTracerProvider(tp), otelkandra.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))))
	if err != nil {
		return 0, err
	}
	caller := tp.Tracer("test")
	step := func(name string, f func(ctx context.Context) error) error {
		ctx, span := caller.Start(ctx, name)
		defer span.End()
		if err := f(ctx); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
	if err := step("apply", func(ctx context.Context) error {
		_, err := migrate.Apply(ctx, d, ks, migrate.ApplyOptions{Owner: "otel", Observer: obs})
		return err
	}); err != nil {
		return 0, err
	}
	rt, err := kstore.New(d, ks, kstore.WithObserver(obs))
	if err != nil {
		return 0, err
	}
	repo := kstore.MustNewRepo(rt, tasks)
	board := uuid.New()
	first := &Task{Board: board, Seq: 1, Title: "t-1", Owner: "ada", Secret: "s3cret"}
	if err := step("save", func(ctx context.Context) error {
		if err := repo.Save(ctx, first); err != nil {
			return err
		}
		return rt.Wait(ctx)
	}); err != nil {
		return 0, err
	}
	for i := int64(2); i <= 3; i++ {
		if err := repo.Save(ctx, &Task{Board: board, Seq: i, Title: fmt.Sprint("t-", i), Owner: "bob", Secret: "s3cret"}); err != nil {
			return 0, err
		}
	}
	if err := step("conflict", func(ctx context.Context) error {
		stale := *first
		stale.Version = 7 // not the row's
		nw := stale
		nw.Title = "renamed"
		var lock *kerrors.OptimisticLockError
		if err := repo.Update(ctx, &stale, &nw); !errors.As(err, &lock) {
			return fmt.Errorf("Update of a stale copy: %v, want an OptimisticLockError", err)
		}
		return nil
	}); err != nil {
		return 0, err
	}
	if err := step("list", func(ctx context.Context) error {
		var after kstore.Cursor
		got := 0
		for page := 0; page < 3; page++ {
			it := repo.List(ctx, first, kstore.PageSize(1), kstore.After(after))
			rows, err := it.All()
			if err != nil {
				return err
			}
			got += len(rows)
			after = it.Cursor()
		}
		if got != 3 {
			return fmt.Errorf("listed %d rows over three pages, want 3", got)
		}
		return nil
	}); err != nil {
		return 0, err
	}
	if err := rt.Close(ctx); err != nil {
		return 0, err
	}
	if err := step("backfill", func(ctx context.Context) error {
		_, err := migrate.Backfill(ctx, d, ks, ks.LookupTable("tasks_by_owner"), migrate.BackfillOptions{Observer: obs})
		return err
	}); err != nil {
		return 0, err
	}
	return checkTelemetry(ctx, spans, reader, ks.Name())
}

// checkTelemetry checks what proveOTel's calls left.
func checkTelemetry(ctx context.Context, exp *tracetest.InMemoryExporter, reader *sdkmetric.ManualReader, ks string) (int, error) {
	all := exp.GetSpans().Snapshots()
	steps := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range all {
		if s.InstrumentationScope().Name == "test" {
			steps[s.Name()] = s
		}
	}
	under := func(step string) []sdktrace.ReadOnlySpan {
		var out []sdktrace.ReadOnlySpan
		for _, s := range all {
			if s.Parent().SpanID() == steps[step].SpanContext().SpanID() && s.Parent().IsValid() {
				out = append(out, s)
			}
		}
		return out
	}
	attr := func(s sdktrace.ReadOnlySpan, k string) string {
		for _, a := range s.Attributes() {
			if string(a.Key) == k {
				return a.Value.String()
			}
		}
		return ""
	}
	var problems []string
	for _, s := range all {
		for _, a := range s.Attributes() {
			if v := a.Value.String(); strings.Contains(v, "s3cret") || strings.Contains(v, "ada") {
				problems = append(problems, fmt.Sprintf("span %s carries a value: %s", s.Name(), a.Key))
			}
		}
		if s.InstrumentationScope().Name == otelkandra.ScopeName && (attr(s, "db.system.name") != "cassandra" || attr(s, "db.namespace") != ks) {
			problems = append(problems, fmt.Sprintf("span %s: %v", s.Name(), s.Attributes()))
		}
	}
	// Apply: its schema changes, each a span under the call.
	schema := 0
	for _, s := range under("apply") {
		if attr(s, "kandra.statement.kind") == "schema" && attr(s, "db.operation.name") == "migrate" {
			schema++
		}
	}
	if schema < 4 { // the keyspace, the table, its two lookup tables, the migrator's tables
		problems = append(problems, fmt.Sprintf("apply: %d schema spans", schema))
	}
	// Save: the BATCH lookup's row and the row's lightweight transaction
	// under the call; the EVENTUAL row in a trace of its own, linked.
	var saved []string
	for _, s := range under("save") {
		saved = append(saved, s.Name())
	}
	slices.Sort(saved)
	if want := []string{"save " + ks + ".tasks", "save " + ks + ".tasks_by_title"}; !slices.Equal(saved, want) {
		problems = append(problems, fmt.Sprintf("save: %v, want %v", saved, want))
	}
	linked := 0
	for _, s := range all {
		if s.Name() == "save "+ks+".tasks_by_owner" && !s.Parent().IsValid() && attr(s, "kandra.background") == "true" {
			for _, l := range s.Links() {
				if l.SpanContext.SpanID() == steps["save"].SpanContext().SpanID() {
					linked++
				}
			}
		}
	}
	if linked != 1 {
		problems = append(problems, fmt.Sprintf("the EVENTUAL row's span linked to the save: %d", linked))
	}
	// The conflict: the conditional update did not apply, and is no error.
	conflict := 0
	for _, s := range under("conflict") {
		if s.Name() == "update "+ks+".tasks" && attr(s, "kandra.lwt.applied") == "false" && s.Status().Code != codes.Error {
			conflict++
		}
	}
	if conflict != 1 {
		problems = append(problems, fmt.Sprintf("conflict: %d unapplied update spans", conflict))
	}
	// The list: three pages of one row.
	pages := 0
	for _, s := range under("list") {
		if s.Name() == "list "+ks+".tasks" && attr(s, "db.response.returned_rows") == "1" {
			pages++
		}
	}
	if pages != 3 {
		problems = append(problems, fmt.Sprintf("list: %d page spans of one row", pages))
	}
	// The backfill: its scans and writes.
	backfill := 0
	for _, s := range under("backfill") {
		if attr(s, "db.operation.name") == "backfill" {
			backfill++
		}
	}
	if backfill == 0 {
		problems = append(problems, "backfill: no span")
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		return len(all), err
	}
	measured := map[string]uint64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if h, ok := m.Data.(metricdata.Histogram[float64]); ok && m.Name == otelkandra.DurationMetric {
				for _, p := range h.DataPoints {
					op, _ := p.Attributes.Value("db.operation.name")
					measured[op.AsString()] += p.Count
				}
			}
		}
	}
	for _, op := range []string{"migrate", "save", "update", "list", "backfill"} {
		if measured[op] == 0 {
			problems = append(problems, "no duration measured for "+op)
		}
	}
	if len(problems) > 0 {
		return len(all), errors.New(strings.Join(problems, "; "))
	}
	return len(all), nil
}
