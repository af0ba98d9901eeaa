package bench

import (
	"context"
	"fmt"
	"os"
	"testing"

	gocql "github.com/gocql/gocql"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kstore"
	"github.com/kandra-go/kandra/otelkandra"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// What an observer costs a Save, on the client (the matrix's driver and
// method): the store with no observer, with one that does nothing, and
// with otelkandra on the OpenTelemetry SDK (every span sampled and
// recorded, then dropped: no exporter; the metrics aggregated by a
// manual reader). TestObserverCost (KANDRA_MATRIX=1) prints one line per
// shape.

// nopObserver is an Observer that does nothing.
type nopObserver struct{}

func (nopObserver) Start(ctx context.Context, _ *kandra.Observation) context.Context { return ctx }
func (nopObserver) End(context.Context, *kandra.Observation)                         {}

// observerCell is a Save of shape T on gocql's wire: kandra with
// otelkandra against kandra without an observer (the "hand" side of the
// cell), and with a no-op observer (its "floor" side).
func observerCell[T any](t *testing.T, shape string, register func() (*kandra.Table[T], error), newT func(int64) *T) *cell {
	table, ks, _, err := tableOf(register)
	if err != nil {
		t.Fatal(err)
	}
	obs, err := otelkandra.New(
		otelkandra.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))),
		otelkandra.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e := newT(1)
	side := func(name string, opts ...kstore.Option) contender {
		k := &rig[T, gocql.TypeInfo]{d: newClientDriver(gocqlWire), ks: ks, table: table, opts: opts}
		return contender{name: name, setup: k.open, run: times(func() error { return k.repo.Save(ctx, e) }, k.close)}
	}
	return &cell{adapter: gocqlWire.name, shape: shape, op: "save", target: 1.1,
		kandra: side("otel", kstore.WithObserver(obs)), hand: side("none"), floor: side("nop", kstore.WithObserver(nopObserver{}))}
}

func TestObserverCost(t *testing.T) {
	if os.Getenv("KANDRA_MATRIX") != "1" {
		t.Skip("the observer's cost is measured with KANDRA_MATRIX=1 (bench/README.md)")
	}
	for _, c := range []*cell{
		observerCell(t, "C12L2B", kandra.Register[C12L2B], newC12L2B),
		observerCell(t, "C12L2E", kandra.Register[C12L2E], newC12L2E),
	} {
		otel, none, nop, n, err := measureCell(c, *matrixRounds, *matrixBlock)
		if err != nil {
			t.Fatal(err)
		}
		r := summarize(c, otel, none, nop, n)
		fmt.Printf("observer: shape=%s op=save none=%s nop=%s otel=%s otel/none=%.2f p10-p90=%.2f-%.2f allocs=%.0f/%.0f/%.0f blocks=%dx%d\n",
			c.shape, fmtNs(r.h), fmtNs(r.f), fmtNs(r.k), r.ratio, r.p10, r.p90, r.ha, r.fa, r.ka, r.rounds, r.ops)
	}
}
