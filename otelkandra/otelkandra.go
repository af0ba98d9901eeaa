// Package otelkandra is kandra's OpenTelemetry observer: a span for every
// statement, batch and background write the store and the migrator send,
// following OpenTelemetry's semantic conventions for database clients
// (Cassandra), and a duration histogram and an error counter per table
// and operation.
//
//	obs := otelkandra.New() // the global TracerProvider and MeterProvider
//	rt, err := kstore.New(kgocql.New(session), app, kstore.WithObserver(obs))
//	res, err := migrate.Apply(ctx, kgocql.New(session), app, migrate.ApplyOptions{Observer: obs})
//
// A span is a child of the caller's span (the context given to the store's
// call). A background write, an EVENTUAL lookup row, runs after its call
// has returned: its span starts a trace of its own, linked to the call's
// span. Spans carry no bound value: the statement text, with
// its markers, only with WithStatementText, and never a value of any
// column, Sensitive or not.
//
// The attributes: db.system.name ("cassandra"), db.namespace (the
// keyspace), db.collection.name (the table; a lookup table's name for its
// rows), db.operation.name (the kandra operation: save, get, ...; see
// kandra.Operations), db.operation.batch.size (a batch's statements),
// db.response.returned_rows (a read's rows), cassandra.consistency.level,
// kandra.statement.kind (statement, batch, schema), kandra.background,
// kandra.lwt.applied (a lightweight transaction: whether it applied), and
// on failure error.type and the span's error status.
package otelkandra

import (
	"context"
	"reflect"
	"strings"
	"sync"

	"github.com/kandra-go/kandra"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the spans and metrics.
const ScopeName = "github.com/kandra-go/kandra/otelkandra"

// The metric names.
const (
	// DurationMetric is a histogram of the duration of each statement,
	// batch and background write, in seconds (OpenTelemetry's
	// db.client.operation.duration).
	DurationMetric = "db.client.operation.duration"
	// ErrorMetric counts the statements that failed.
	ErrorMetric = "kandra.client.errors"
)

// Option configures New.
type Option func(*config)

type config struct {
	tp   trace.TracerProvider
	mp   metric.MeterProvider
	text bool
}

// WithTracerProvider sets the TracerProvider (default otel.GetTracerProvider()).
func WithTracerProvider(tp trace.TracerProvider) Option { return func(c *config) { c.tp = tp } }

// WithMeterProvider sets the MeterProvider (default otel.GetMeterProvider()).
func WithMeterProvider(mp metric.MeterProvider) Option { return func(c *config) { c.mp = mp } }

// WithStatementText adds the statement's CQL text to each span
// (db.query.text): markers where the values go, no value. Off by default:
// a text can be long, and a team may not want even the shape of its
// queries in its traces.
func WithStatementText() Option { return func(c *config) { c.text = true } }

// Observer is a kandra.Observer that traces and measures with
// OpenTelemetry. It is safe for concurrent use.
type Observer struct {
	tracer   trace.Tracer
	duration metric.Float64Histogram
	errors   metric.Int64Counter
	text     bool
	sets     sync.Map // setKey -> metric.MeasurementOption: a metric's attributes, built once per table and operation
}

// setKey is what a metric's attributes are made of.
type setKey struct{ keyspace, table, op, errType string }

var _ kandra.Observer = (*Observer)(nil)

// New returns the observer. It fails only if the MeterProvider refuses
// the instruments (an SDK's does not).
func New(opts ...Option) (*Observer, error) {
	c := config{}
	for _, o := range opts {
		o(&c)
	}
	if c.tp == nil {
		c.tp = otel.GetTracerProvider()
	}
	if c.mp == nil {
		c.mp = otel.GetMeterProvider()
	}
	meter := c.mp.Meter(ScopeName)
	duration, err := meter.Float64Histogram(DurationMetric, metric.WithUnit("s"),
		metric.WithDescription("Duration of kandra's database client operations: each statement, batch and background write."),
		metric.WithExplicitBucketBoundaries(0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10))
	if err != nil {
		return nil, err
	}
	errs, err := meter.Int64Counter(ErrorMetric, metric.WithUnit("{statement}"),
		metric.WithDescription("kandra's statements, batches and background writes that failed."))
	if err != nil {
		return nil, err
	}
	return &Observer{tracer: c.tp.Tracer(ScopeName), duration: duration, errors: errs, text: c.text}, nil
}

// Start implements kandra.Observer: it starts the span.
func (o *Observer) Start(ctx context.Context, ob *kandra.Observation) context.Context {
	attrs := o.appendCommon(make([]attribute.KeyValue, 0, 10), ob)
	attrs = append(attrs, attribute.String("kandra.statement.kind", ob.Kind.String()))
	if ob.Consistency != 0 {
		attrs = append(attrs, attribute.String("cassandra.consistency.level", consistencyLevel(ob.Consistency)))
	}
	if ob.Kind == kandra.BatchStatement {
		attrs = append(attrs, attribute.Int("db.operation.batch.size", ob.Statements))
	}
	if ob.Background {
		attrs = append(attrs, attribute.Bool("kandra.background", true))
	}
	if o.text && ob.Statement != "" {
		attrs = append(attrs, attribute.String("db.query.text", ob.Statement))
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...)}
	if ob.Background {
		// Its call has returned: a trace of its own, linked to the call.
		opts = append(opts, trace.WithNewRoot())
		if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: sc}))
		}
	}
	ctx, _ = o.tracer.Start(ctx, spanName(ob), opts...)
	return ctx
}

// End implements kandra.Observer: it ends the span and records the
// duration (and the error).
func (o *Observer) End(ctx context.Context, ob *kandra.Observation) {
	span := trace.SpanFromContext(ctx)
	if ob.Rows > 0 || isRead(ob) {
		span.SetAttributes(attribute.Int("db.response.returned_rows", ob.Rows))
	}
	if ob.Conditional {
		span.SetAttributes(attribute.Bool("kandra.lwt.applied", ob.Applied))
	}
	et := ""
	if ob.Err != nil {
		et = errorType(ob.Err)
		span.SetAttributes(attribute.String("error.type", et))
		span.SetStatus(codes.Error, ob.Err.Error())
		span.RecordError(ob.Err)
	}
	set := o.set(ob, et)
	if ob.Err != nil {
		o.errors.Add(ctx, 1, set)
	}
	o.duration.Record(ctx, ob.Duration.Seconds(), set)
	span.End()
}

// set is the metrics' attributes of ob with error type et: built once
// per keyspace, table, operation and error type (a bounded set), since
// building an attribute set costs more than recording a measurement.
func (o *Observer) set(ob *kandra.Observation, et string) metric.MeasurementOption {
	k := setKey{ob.Keyspace, ob.Table, ob.Operation, et}
	if v, ok := o.sets.Load(k); ok {
		return v.(metric.MeasurementOption)
	}
	attrs := o.appendCommon(nil, ob)
	if et != "" {
		attrs = append(attrs, attribute.String("error.type", et))
	}
	v, _ := o.sets.LoadOrStore(k, metric.WithAttributeSet(attribute.NewSet(attrs...)))
	return v.(metric.MeasurementOption)
}

// levels are the consistency levels' names as the conventions write
// them (lower case), made once.
var levels sync.Map // kandra.Consistency -> string

func consistencyLevel(c kandra.Consistency) string {
	if v, ok := levels.Load(c); ok {
		return v.(string)
	}
	v, _ := levels.LoadOrStore(c, strings.ToLower(c.String()))
	return v.(string)
}

// appendCommon appends the attributes of both the span and the metrics.
func (o *Observer) appendCommon(attrs []attribute.KeyValue, ob *kandra.Observation) []attribute.KeyValue {
	attrs = append(attrs, attribute.String("db.system.name", "cassandra"), attribute.String("db.operation.name", ob.Operation))
	if ob.Keyspace != "" {
		attrs = append(attrs, attribute.String("db.namespace", ob.Keyspace))
	}
	if ob.Table != "" {
		attrs = append(attrs, attribute.String("db.collection.name", ob.Table))
	}
	return attrs
}

// spanName is "{operation} {keyspace}.{table}", as the conventions have
// it ("{db.operation.name} {target}"), or as much of it as is known.
func spanName(ob *kandra.Observation) string {
	target := ob.Table
	if ob.Keyspace != "" && target != "" {
		target = ob.Keyspace + "." + target
	} else if target == "" {
		target = ob.Keyspace
	}
	if target == "" {
		return ob.Operation
	}
	return ob.Operation + " " + target
}

// isRead is whether ob's rows count: a read, or a backfill's scan.
func isRead(ob *kandra.Observation) bool {
	switch ob.Operation {
	case kandra.OpGet, kandra.OpFind, kandra.OpList:
		return true
	}
	return strings.HasPrefix(ob.Statement, "SELECT")
}

// errorType is the conventions' error.type: the error's Go type
// ("*kerrors.QueryError", "*gocql.RequestErrWriteTimeout").
func errorType(err error) string { return reflect.TypeOf(err).String() }
