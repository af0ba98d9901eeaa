package integration

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gocql/gocql"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/kstore"
	"github.com/kandra-go/kandra/migrate"
)

// Jaeger's read statements that jaeger_test.go does not hold already,
// verbatim as Jaeger sends them to a keyspace its v004 schema made (the
// others, jcqlQuerySpanByTraceID, jcqlQueryByTag, jcqlQueryByServiceName,
// jcqlQueryByServiceAndOperationName, jcqlQueryByDuration,
// jcqlQueryServiceNames and jcqlQueryOperationsByKind, are jaeger_test.go's).
const (
	// internal/storage/v1/cassandra/spanstore/operation_names.go:
	// latestVersion's queryStmt as tableMeta.materialize makes it
	// (getOperationsV2 without a span kind).
	jcqlQueryOperations = "SELECT span_kind, operation_name FROM operation_names_v2 WHERE service_name = ?"
	// internal/storage/v1/cassandra/spanstore/operation_names.go:
	// tableCheckStmt as tableExist formats it for latestVersion's table
	// (NewOperationNamesStorage; on a v004 keyspace the table is there, so
	// Jaeger never sends the check of previousVersion's operation_names).
	jcqlTableCheckV2 = "SELECT * from operation_names_v2 limit 1"
)

// Jaeger's constants the reads depend on.
const (
	jrDefaultNumTraces   = 100       // reader.go defaultNumTraces (SearchDepth when not given)
	jrLimitMultiple      = 3         // reader.go limitMultiple (LIMIT = SearchDepth * 3)
	jrNumBuckets         = 10        // writer.go defaultNumBuckets (service_name_index buckets)
	jrDurationBucketSize = time.Hour // writer.go durationBucketSize
	jrMaxTagSize         = 256       // writer.go maximumTagKeyOrValueSize
	jrSmallPage          = 7         // the typed calls' page when they page through a LIMIT
	jrSpread             = 6 * time.Hour
)

// UnmarshalCQL is Jaeger's dbmodel.TraceID.UnmarshalCQL (cql_udt.go): how
// its readers scan a trace id, alone and in a span_ref.
func (t *jdbTraceID) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	if len(data) != 16 {
		return errors.New("TraceID is not a 128bit integer")
	}
	copy(t[:], data)
	return nil
}

// jdbSpanKind is dbmodel.GetSpanKind: the span.kind tag's string, or "".
func jdbSpanKind(sp *jdbSpan) string {
	for _, tag := range sp.Tags {
		if tag.Key == "span.kind" {
			return tag.ValueString
		}
	}
	return ""
}

// jdbShouldIndexTag is SpanWriter.shouldIndexTag.
func jdbShouldIndexTag(tag [2]string) bool {
	isJSON := func(s string) bool {
		var js json.RawMessage
		return strings.HasPrefix(s, "{") && json.Unmarshal([]byte(s), &js) == nil
	}
	return len(tag[0]) < jrMaxTagSize && len(tag[1]) < jrMaxTagSize &&
		utf8.ValidString(tag[1]) && utf8.ValidString(tag[0]) && !isJSON(tag[1])
}

// jdbIndexedTags are the (key, value) pairs Jaeger's indexByTags writes
// for sp.
func jdbIndexedTags(sp *jdbSpan) [][2]string {
	var out [][2]string
	for _, tag := range jdbUniqueTags(sp) {
		if jdbShouldIndexTag(tag) {
			out = append(out, tag)
		}
	}
	return out
}

// jrBucket is the service_name_index bucket indexByService writes sp to.
func jrBucket(sp *jdbSpan) int32 { return int32(uint64(sp.SpanHash) % jrNumBuckets) }

// jrDurationBucket is the duration_index bucket indexByDuration writes sp
// to: model.EpochMicrosecondsAsTime(start).Round(durationBucketSize).
func jrDurationBucket(sp *jdbSpan) time.Time {
	return time.Unix(0, sp.StartTime*1000).UTC().Round(jrDurationBucketSize)
}

// jrMicros is model.TimeAsEpochMicroseconds, how the reader binds a time.
func jrMicros(t time.Time) uint64 { return uint64(t.UnixNano() / 1000) }

// ---------------------------------------------------------------------------
// The data: HotROD-like services, drawn from a fixed seed.

type jrOperation struct{ name, kind string }

type jrService struct {
	name string
	ops  []jrOperation
}

var jrServices = []jrService{
	{"frontend", []jrOperation{{"HTTP GET /dispatch", "server"}, {"HTTP GET /config", "server"}, {"HTTP GET: /customer", "client"}, {"/driver.DriverService/FindNearest", "client"}}},
	{"customer", []jrOperation{{"HTTP GET /customer", "server"}, {"SQL SELECT", "client"}}},
	{"driver", []jrOperation{{"/driver.DriverService/FindNearest", "server"}, {"FindDriverIDs", "client"}, {"GetDriver", "client"}}},
	{"redis", []jrOperation{{"FindDriverIDs", ""}, {"GetDriver", ""}}}, // no span.kind tag: span_kind ""
	{"route", []jrOperation{{"HTTP GET /route", "server"}, {"compute-eta", "producer"}}},
}

// jrSpans is the data set: spans, and the trace each belongs to (its
// index in traces).
type jrSpans struct {
	spans   []*jdbSpan
	traceOf []int
	traces  []jdbTraceID
}

// jrKeys are the primary keys of the index rows Jaeger writes for sp
// (the traces and tag_index keys hold the span id, unique anyway).
func jrKeys(sp *jdbSpan) []string {
	b := jrDurationBucket(sp).UnixMicro()
	return []string{
		fmt.Sprintf("sni|%s|%d|%d", sp.ServiceName, jrBucket(sp), sp.StartTime),
		fmt.Sprintf("soi|%s|%s|%d", sp.ServiceName, sp.OperationName, sp.StartTime),
		fmt.Sprintf("dur|%s||%d|%d|%d|%x", sp.ServiceName, b, sp.Duration, sp.StartTime, sp.TraceID),
		fmt.Sprintf("dur|%s|%s|%d|%d|%d|%x", sp.ServiceName, sp.OperationName, b, sp.Duration, sp.StartTime, sp.TraceID),
		fmt.Sprintf("span|%x|%d", sp.TraceID, sp.SpanID),
	}
}

// jrGenerate draws nTraces traces of 1 to 6 spans each, starting within
// jrSpread after base, then makes ties: spans of one service in other
// service_name_index buckets (and with other operations) that start in
// the same microsecond, which the merge of buckets must order as the
// server does. No two spans share an index row (the writes run
// concurrently, so a shared row would end as either write).
func jrGenerate(t *testing.T, seed uint64, base time.Time, nTraces, nTies int) *jrSpans {
	rng := mrand.New(mrand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	statuses := []int64{200, 200, 200, 200, 404, 500}
	customers := []string{"123", "392", "731", "567"}
	events := []string{"retry", "cache miss", "dispatch"}
	d := &jrSpans{}
	for i := range nTraces {
		var tid jdbTraceID
		binary.BigEndian.PutUint64(tid[:8], rng.Uint64())
		binary.BigEndian.PutUint64(tid[8:], rng.Uint64())
		d.traces = append(d.traces, tid)
		at := base.UnixMicro() + rng.Int64N(jrSpread.Microseconds())
		n := 1 + rng.IntN(6)
		first := len(d.spans)
		for j := range n {
			si := rng.IntN(len(jrServices))
			svc := jrServices[si]
			op := svc.ops[rng.IntN(len(svc.ops))]
			dur := int64(1)<<(6+rng.IntN(16)) + rng.Int64N(1000)
			if rng.IntN(5) == 0 {
				dur = dur/1000*1000 + 1000 // round milliseconds: equal durations in a partition
			}
			sp := &jdbSpan{TraceID: tid, SpanID: int64(rng.Uint64()), SpanHash: int64(rng.Uint64()), OperationName: op.name,
				Flags: 1, StartTime: at, Duration: dur, ServiceName: svc.name}
			if op.kind != "" {
				sp.Tags = append(sp.Tags, jdbKeyValue{Key: "span.kind", ValueType: "string", ValueString: op.kind})
			}
			if strings.HasPrefix(op.name, "HTTP") {
				sp.Tags = append(sp.Tags, jdbKeyValue{Key: "http.method", ValueType: "string", ValueString: "GET"})
			}
			status := statuses[rng.IntN(len(statuses))]
			sp.Tags = append(sp.Tags,
				jdbKeyValue{Key: "http.status_code", ValueType: "int64", ValueInt64: status},
				jdbKeyValue{Key: "error", ValueType: "bool", ValueBool: status >= 500},
				jdbKeyValue{Key: "customer_id", ValueType: "string", ValueString: customers[rng.IntN(len(customers))]})
			if j == 0 {
				sp.Tags = append(sp.Tags,
					jdbKeyValue{Key: "sampler.type", ValueType: "string", ValueString: "probabilistic"},
					jdbKeyValue{Key: "sampler.param", ValueType: "float64", ValueFloat64: []float64{0.25, 1}[rng.IntN(2)]})
			}
			if rng.IntN(4) == 0 { // left out of tag_index: binary
				sp.Tags = append(sp.Tags, jdbKeyValue{Key: "request.body", ValueType: "binary", ValueBinary: []byte{byte(rng.Uint32()), 0, 0xfe, 0xff}})
			}
			if rng.IntN(8) == 0 { // left out of tag_index: JSON
				sp.Tags = append(sp.Tags, jdbKeyValue{Key: "request.params", ValueType: "string", ValueString: `{"id":42}`})
			}
			if rng.IntN(3) == 0 {
				level := "info"
				if status >= 500 {
					level = "error"
				}
				sp.Logs = append(sp.Logs, jdbLog{Timestamp: at + rng.Int64N(1000), Fields: []jdbKeyValue{
					{Key: "event", ValueType: "string", ValueString: events[rng.IntN(len(events))]},
					{Key: "level", ValueType: "string", ValueString: level},
				}})
			}
			host := 1 + rng.IntN(2)
			sp.Process = jdbProcess{ServiceName: svc.name, Tags: []jdbKeyValue{
				{Key: "hostname", ValueType: "string", ValueString: fmt.Sprintf("%s-%d", svc.name, host)},
				{Key: "ip", ValueType: "string", ValueString: fmt.Sprintf("10.0.%d.%d", si, host)},
				{Key: "jaeger.version", ValueType: "string", ValueString: "Go-2.30.0"},
			}}
			if j > 0 {
				parent := d.spans[first+rng.IntN(j)]
				sp.ParentID = parent.SpanID
				sp.Refs = []jdbSpanRef{{RefType: "child-of", TraceID: tid, SpanID: parent.SpanID}}
			}
			d.spans = append(d.spans, sp)
			d.traceOf = append(d.traceOf, i)
			at += 1 + rng.Int64N(20_000)
		}
	}
	used := map[string]bool{}
	for i, sp := range d.spans {
		for _, k := range jrKeys(sp) {
			if used[k] {
				t.Fatalf("seed %d: span %d shares index row %s with another span", seed, i, k)
			}
			used[k] = true
		}
	}
	for ties, tries := 0, 0; ties < nTies && tries < 100_000; tries++ {
		a, b := d.spans[rng.IntN(len(d.spans))], d.spans[rng.IntN(len(d.spans))]
		if a.ServiceName != b.ServiceName || jrBucket(a) == jrBucket(b) || a.OperationName == b.OperationName || a.TraceID == b.TraceID {
			continue
		}
		old := b.StartTime
		for _, k := range jrKeys(b) {
			delete(used, k)
		}
		b.StartTime = a.StartTime
		keys := jrKeys(b)
		if slices.ContainsFunc(keys, func(k string) bool { return used[k] }) {
			b.StartTime = old
			keys = jrKeys(b)
		} else {
			ties++
		}
		for _, k := range keys {
			used[k] = true
		}
	}
	return d
}

// jrWriteJaeger writes sp as Jaeger's SpanWriter.WriteSpan does with its
// defaults (store and index, every index, every tag): Jaeger's statements,
// in its order, on Jaeger's session.
func jrWriteJaeger(js *gocql.Session, sp *jdbSpan) error {
	if err := js.Query(jcqlInsertSpan, sp.TraceID, sp.SpanID, sp.SpanHash, sp.ParentID, sp.OperationName, sp.Flags,
		sp.StartTime, sp.Duration, sp.Tags, sp.Logs, sp.Refs, sp.Process).Exec(); err != nil {
		return fmt.Errorf("insertSpan: %w", err)
	}
	if err := js.Query(jcqlInsertServiceName).Bind(sp.ServiceName).Exec(); err != nil {
		return fmt.Errorf("insertServiceName: %w", err)
	}
	if err := js.Query(jcqlInsertOperationName).Bind(sp.ServiceName, jdbSpanKind(sp), sp.OperationName).Exec(); err != nil {
		return fmt.Errorf("operation_names_v2 insertStmt: %w", err)
	}
	if err := js.Query(jcqlServiceNameIndex).Bind(sp.Process.ServiceName, uint64(sp.SpanHash)%jrNumBuckets, sp.StartTime, sp.TraceID).Exec(); err != nil {
		return fmt.Errorf("serviceNameIndex: %w", err)
	}
	if err := js.Query(jcqlServiceOperationIndex).Bind(sp.Process.ServiceName, sp.OperationName, sp.StartTime, sp.TraceID).Exec(); err != nil {
		return fmt.Errorf("serviceOperationIndex: %w", err)
	}
	for _, tag := range jdbIndexedTags(sp) {
		if err := js.Query(jcqlTagIndex, sp.TraceID, sp.SpanID, sp.ServiceName, sp.StartTime, tag[0], tag[1]).Exec(); err != nil {
			return fmt.Errorf("tagIndex: %w", err)
		}
	}
	q := js.Query(jcqlDurationIndex)
	for _, op := range []string{"", sp.OperationName} {
		if err := q.Bind(sp.Process.ServiceName, op, jrDurationBucket(sp), sp.Duration, sp.StartTime, sp.TraceID).Exec(); err != nil {
			return fmt.Errorf("durationIndex: %w", err)
		}
	}
	return nil
}

// jrRepos are the typed repositories of Jaeger's span tables.
type jrRepos struct {
	traces                *kstore.Repo[jaegerSpan]
	serviceNames          *kstore.Repo[jaegerServiceName]
	operationNames        *kstore.Repo[jaegerOperationName]
	serviceNameIndex      *kstore.Repo[jaegerServiceNameIndex]
	serviceOperationIndex *kstore.Repo[jaegerServiceOperationIndex]
	tagIndex              *kstore.Repo[jaegerTagIndex]
	durationIndex         *kstore.Repo[jaegerDurationIndex]
}

// write writes the rows jrWriteJaeger writes, with the typed calls of
// TestJaegerWritesTyped.
func (p *jrRepos) write(ctx context.Context, sp *jdbSpan) error {
	tid := bytes.Clone(sp.TraceID[:])
	if err := p.traces.Save(ctx, jaegerSpanOf(sp, tid)); err != nil {
		return err
	}
	if err := p.serviceNames.Save(ctx, &jaegerServiceName{ServiceName: sp.ServiceName}); err != nil {
		return err
	}
	if err := p.operationNames.Save(ctx, &jaegerOperationName{ServiceName: sp.ServiceName, SpanKind: jdbSpanKind(sp), OperationName: sp.OperationName}); err != nil {
		return err
	}
	if err := p.serviceNameIndex.Save(ctx, &jaegerServiceNameIndex{ServiceName: sp.Process.ServiceName, Bucket: jrBucket(sp), StartTime: sp.StartTime, TraceID: tid}); err != nil {
		return err
	}
	if err := p.serviceOperationIndex.Save(ctx, &jaegerServiceOperationIndex{ServiceName: sp.Process.ServiceName, OperationName: sp.OperationName, StartTime: sp.StartTime, TraceID: tid}); err != nil {
		return err
	}
	for _, tag := range jdbIndexedTags(sp) {
		if err := p.tagIndex.Save(ctx, &jaegerTagIndex{ServiceName: sp.ServiceName, TagKey: tag[0], TagValue: tag[1], StartTime: sp.StartTime, TraceID: tid, SpanID: sp.SpanID}); err != nil {
			return err
		}
	}
	for _, op := range []string{"", sp.OperationName} {
		if err := p.durationIndex.Save(ctx, &jaegerDurationIndex{ServiceName: sp.Process.ServiceName, OperationName: op, Bucket: jrDurationBucket(sp), Duration: sp.Duration, StartTime: sp.StartTime, TraceID: tid}); err != nil {
			return err
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// Rows, compared by value: each row as a string of the statement's
// selected columns, Jaeger's scanned into the types its reader scans
// into, kandra's read into the entities. Collections print the same
// whether nil or empty (as Cassandra stores them).

func jrHex(b []byte) string { return hex.EncodeToString(b) }

// jrSpanRow is a span as querySpanByTraceID selects it (no span_hash).
func jrSpanRow(e *jaegerSpan) string {
	return fmt.Sprintf("trace_id=%x span_id=%d parent_id=%d operation_name=%q flags=%d start_time=%d duration=%d tags=%+v logs=%+v refs=%+v process=%+v",
		e.TraceID, e.SpanID, e.ParentID, e.OperationName, e.Flags, e.StartTime, e.Duration, e.Tags, e.Logs, e.Refs, e.Process)
}

// jrReadTrace runs querySpanByTraceID as readTraceInSpan does: its scan
// targets, its dbmodel.Span.
func jrReadTrace(js *gocql.Session, traceID jdbTraceID) ([]string, error) {
	i := js.Query(jcqlQuerySpanByTraceID, traceID).Iter()
	var traceIDFromSpan jdbTraceID
	var startTime, spanID, duration, parentID int64
	var flags int32
	var operationName string
	var dbProcess jdbProcess
	var refs []jdbSpanRef
	var tags []jdbKeyValue
	var logs []jdbLog
	var rows []string
	for i.Scan(&traceIDFromSpan, &spanID, &parentID, &operationName, &flags, &startTime, &duration, &tags, &logs, &refs, &dbProcess) {
		sp := jdbSpan{TraceID: traceIDFromSpan, SpanID: spanID, ParentID: parentID, OperationName: operationName, Flags: flags,
			StartTime: startTime, Duration: duration, Tags: tags, Logs: logs, Refs: refs, Process: dbProcess, ServiceName: dbProcess.ServiceName}
		rows = append(rows, jrSpanRow(jaegerSpanOf(&sp, bytes.Clone(traceIDFromSpan[:]))))
	}
	return rows, i.Close()
}

// jrTraceIDs runs one of Jaeger's index queries and reads it as
// executeQuery does, each row's trace_id scanned into a dbmodel.TraceID;
// in the order the rows came (Jaeger then puts them in a set).
func jrTraceIDs(q *gocql.Query) ([]string, error) {
	i := q.Iter()
	var traceID jdbTraceID
	var out []string
	for i.Scan(&traceID) {
		out = append(out, jrHex(traceID[:]))
	}
	return out, i.Close()
}

// jrOperations runs an operation_names_v2 query as getOperationsV2 does.
func jrOperations(q *gocql.Query) ([]string, error) {
	i := q.Iter()
	var operationName, spanKind string
	var out []string
	for i.Scan(&spanKind, &operationName) {
		out = append(out, spanKind+"|"+operationName)
	}
	return out, i.Close()
}

func jrStrings[T any](rows []*T, row func(*T) string) []string {
	out := make([]string, len(rows))
	for i, e := range rows {
		out[i] = row(e)
	}
	return out
}

// jrPager is a typed list call with its options but the page's.
type jrPager[T any] func(opts ...kstore.ListOption) *kstore.Iter[T]

// jrCollect reads call page after page, size rows a page, each resumed
// with After at the cursor of the one before, until it has want rows (0:
// until the rows end). It returns the rows and the pages read.
func jrCollect[T any](call jrPager[T], size, want int) ([]*T, int, error) {
	var out []*T
	var cur kstore.Cursor
	for pages := 1; ; pages++ {
		opts := []kstore.ListOption{kstore.PageSize(size)}
		if pages > 1 {
			opts = append(opts, kstore.After(cur))
		}
		it := call(opts...)
		page, err := it.All()
		if err != nil {
			return out, pages, err
		}
		out = append(out, page...)
		cur = it.Cursor()
		if cur.IsZero() || want > 0 && len(out) >= want {
			return out, pages, nil
		}
	}
}

// ---------------------------------------------------------------------------
// The statements and what was found about their typed calls.

type jrStmt struct {
	name, file, cql, call string
	untyped               string // why no typed call reads it ("" when one does)
	runs, rows            int    // Jaeger's executions, and the rows they returned
	failed                bool   // a typed call failed
	sent                  []string
	problems              []string
	seen                  map[string]int // what the data made matter
	need                  []string       // what it must have made matter
}

func (st *jrStmt) fail(format string, args ...any) {
	st.problems = append(st.problems, fmt.Sprintf(format, args...))
}

// same compares the rows of a typed call with Jaeger's.
func (st *jrStmt) same(label, how string, jaeger, typed []string) {
	if slices.Equal(jaeger, typed) {
		return
	}
	i := 0
	for i < len(jaeger) && i < len(typed) && jaeger[i] == typed[i] {
		i++
	}
	at := func(s []string) string {
		if i < len(s) {
			return s[i]
		}
		return "(none)"
	}
	st.fail("%s, %s: Jaeger %d rows, kandra %d; first difference at row %d: Jaeger %s, kandra %s", label, how, len(jaeger), len(typed), i, at(jaeger), at(typed))
}

// ran records one execution of Jaeger's statement.
func (st *jrStmt) ran(label string, rows []string, err error) bool {
	if err != nil {
		st.fail("%s: Jaeger's statement failed: %v", label, err)
		return false
	}
	st.runs++
	st.rows += len(rows)
	if len(rows) > 0 {
		st.seen["rows"]++
	}
	return true
}

type jrRun struct {
	obs   *jaegerObserver
	stmts []*jrStmt
}

func (r *jrRun) stmt(name, file, cql, call string, need ...string) *jrStmt {
	st := &jrStmt{name: name, file: file, cql: cql, call: call, seen: map[string]int{}, need: append([]string{"rows"}, need...)}
	r.stmts = append(r.stmts, st)
	return st
}

// typed makes a typed call for st, recording the statements kandra sent;
// false when it failed.
func (r *jrRun) typed(st *jrStmt, label string, call func() error) bool {
	r.obs.take()
	err := call()
	for _, s := range r.obs.take() {
		if !slices.Contains(st.sent, s) {
			st.sent = append(st.sent, s)
		}
	}
	if err != nil {
		st.failed = true
		st.fail("%s: typed call: %v", label, err)
		return false
	}
	return true
}

// jrLimited checks the typed call of one of Jaeger's LIMIT reads against
// Jaeger's rows, two ways: one page of PageSize(limit), the LIMIT as the
// page; and pages of jrSmallPage rows resumed with After until limit rows.
// It returns the first way's rows.
func jrLimited[T any](r *jrRun, st *jrStmt, label string, jaeger []string, limit int, call jrPager[T], row func(*T) string) []*T {
	var page []*T
	if r.typed(st, label, func() (err error) { page, err = call(kstore.PageSize(limit)).All(); return err }) {
		st.same(label, fmt.Sprintf("PageSize(%d)", limit), jaeger, jrStrings(page, row))
	}
	var paged []*T
	var pages int
	if r.typed(st, label, func() (err error) { paged, pages, err = jrCollect(call, jrSmallPage, limit+1); return err }) {
		if len(paged) > limit {
			st.seen["limited"]++ // rows past the LIMIT exist
			paged = paged[:limit]
		}
		if pages > 1 {
			st.seen["paged"]++
		}
		st.same(label, fmt.Sprintf("PageSize(%d), After, until %d rows", jrSmallPage, limit), jaeger, jrStrings(paged, row))
	}
	return page
}

// jrWindow is a TraceQueryParams' StartTimeMin and StartTimeMax.
type jrWindow struct {
	name     string
	min, max time.Time
	atRows   bool // both bounds are start times of rows of the partition
}

// jrWindows are the windows a query runs with: all the data, a middle
// part, and (for a partition of 4 rows or more) bounds that are the start
// times of two of its rows, which the exclusive bounds leave out.
func jrWindows(base time.Time, starts []int64) []jrWindow {
	ws := []jrWindow{
		{name: "all", min: base.Add(-time.Hour), max: base.Add(jrSpread + time.Hour)},
		{name: "middle", min: base.Add(73 * time.Minute), max: base.Add(221 * time.Minute)},
	}
	ts := slices.Clone(starts)
	slices.Sort(ts)
	ts = slices.Compact(ts)
	if len(ts) >= 4 {
		ws = append(ws, jrWindow{name: "at-rows", min: time.UnixMicro(ts[len(ts)/4]).UTC(), max: time.UnixMicro(ts[3*len(ts)/4]).UTC(), atRows: true})
	}
	return ws
}

// jrSearchDepths are the SearchDepths the queries run with: Jaeger's
// default, and two that the LIMIT (SearchDepth * limitMultiple) cuts.
var jrSearchDepths = []int{jrDefaultNumTraces, 20, 3}

// TestJaegerReadsTyped shows that every Cassandra read of Jaeger's v1 span
// reader, and of its service and operation name readers, is a typed
// kandra call that returns the same rows in the same order. Source:
// github.com/jaegertracing/jaeger at commit
// 8498073ff809b1a3923521920a9b1b017ea97ecf (jaegerCommit, its newest
// snapshot), read with git:
//
//	internal/storage/v1/cassandra/spanstore/reader.go
//	  querySpanByTraceID  SELECT trace_id, span_id, ..., process FROM traces WHERE trace_id = ?
//	                      -> traces.List(ctx, &jaegerSpan{TraceID: id}, Columns(ParentID, ..., Process)), paged with After
//	  queryByTag          SELECT trace_id FROM tag_index WHERE service_name = ? AND tag_key = ? AND tag_value = ?
//	                        and start_time > ? and start_time < ? ORDER BY start_time DESC LIMIT ?
//	                      -> tagIndex.List(ctx, &jaegerTagIndex{...}, From(start, min, false), To(start, max, false), Columns(TraceID), PageSize(limit))
//	  queryByServiceName  SELECT trace_id FROM service_name_index WHERE bucket IN (0,...,9) AND service_name = ?
//	                        AND start_time > ? AND start_time < ? ORDER BY start_time DESC LIMIT ?
//	                      -> serviceNameIndex.ListMerged(ctx, buckets 0..9, From(start, min, false), To(start, max, false), Columns(TraceID), PageSize(limit))
//	  queryByServiceAndOperationName
//	                      SELECT trace_id FROM service_operation_index WHERE service_name = ? AND operation_name = ?
//	                        AND start_time > ? AND start_time < ? ORDER BY start_time DESC LIMIT ?
//	                      -> serviceOperationIndex.List(ctx, &jaegerServiceOperationIndex{...}, From(...), To(...), Columns(TraceID), PageSize(limit))
//	  queryByDuration     SELECT trace_id FROM duration_index WHERE bucket = ? AND service_name = ? AND operation_name = ?
//	                        AND duration >= ? AND duration <= ? LIMIT ?
//	                      -> durationIndex.List(ctx, &jaegerDurationIndex{...}, From(duration, min, true), To(duration, max, true), Columns(TraceID), PageSize(limit))
//	internal/storage/v1/cassandra/spanstore/service_names.go
//	  queryServiceNames   SELECT service_name FROM service_names
//	                      -> serviceNames.Scan(ctx, each, Concurrency(1), PageSize(2), Columns(ServiceName))
//	internal/storage/v1/cassandra/spanstore/operation_names.go (latestVersion, operation_names_v2)
//	  queryStmt           SELECT span_kind, operation_name FROM operation_names_v2 WHERE service_name = ?
//	                      -> operationNames.List(ctx, &jaegerOperationName{ServiceName: s}, Columns(SpanKind, OperationName)), paged with After
//	  queryByKindStmt     SELECT span_kind, operation_name FROM operation_names_v2 WHERE service_name = ? AND span_kind = ?
//	                      -> the same List with Equal(SpanKind, kind) (and PageSize(1): no service has more than two operations of a kind)
//	  tableCheckStmt      SELECT * from operation_names_v2 limit 1
//	                      -> operationNames.Scan(ctx, each, Concurrency(1), PageSize(1)), stopped at the first row
//
// Not covered: previousVersion's statements (SELECT operation_name FROM
// operation_names WHERE service_name = ?, and its tableCheckStmt), which
// Jaeger sends only to a keyspace without operation_names_v2; v004 does
// not create operation_names (as TestJaegerWritesTyped). Jaeger counts
// nothing (no COUNT), so no Count call stands for one of its reads.
//
// The schema is Jaeger's v004, created from Jaeger's template as
// TestJaegerWritesTyped creates it, with the same kandra entities (the
// migrator must plan nothing between them). The data, drawn from a fixed
// seed: 130 traces of 1 to 6 spans of 5 HotROD-like services over 6
// hours (7 duration buckets, all 10 service buckets), with span kinds,
// status codes, errors, customers, sampler tags, log fields, process tags,
// binary and JSON tags (which Jaeger does not index), and spans of one
// service in different buckets starting in the same microsecond. The
// spans of even traces are written with Jaeger's own statements
// (SpanWriter.WriteSpan's, on a session bound to the keyspace, as
// Jaeger's), those of odd traces with the typed writes of
// TestJaegerWritesTyped; every read returns rows of both.
//
// Each read runs with Jaeger's text and binds, as Jaeger's reader runs it
// (queryByTag, queryByService and queryByServiceNameAndOperation with
// PageSize(0), unpaged, as the server requires of the IN query; Jaeger
// sends them with github.com/apache/cassandra-gocql-driver/v2, the test
// with the harness's gocql v1.7.0, which changes nothing the server
// returns), with windows over all the data, over a middle part and with
// bounds on rows' own start times (so the exclusive bounds matter), and
// with LIMITs of SearchDepth 100, 20 and 3 times limitMultiple; the
// duration reads bucket by bucket as queryByDuration loops. Jaeger's rows
// are scanned into the types its reader scans into (dbmodel's trace id,
// key-values, logs, refs, process) and compared, value by value, in
// order, with the typed call's entities. Each LIMIT read's typed call is
// made twice: one page of PageSize(LIMIT), and pages of 7 rows resumed
// with After until LIMIT rows, both equal to Jaeger's; the test requires
// the data to have made the LIMIT cut, the paging, the merge of buckets
// interleave and tie, and the exclusive bounds leave rows out (an
// inclusive typed call returns more rows), so that none of it passes
// vacuously.
func TestJaegerReadsTyped(t *testing.T) {
	s := session(t)
	ctx := context.Background()
	ks := keyspaceName("jaegerreads")

	// 1. Jaeger's tables, from Jaeger's CQL, and kandra's entities of them.
	ddl, err := jaegerSchemaStatements(ks)
	if err != nil {
		t.Fatalf("Jaeger's schema template: %v", err)
	}
	trackKeyspace(ks)
	for _, stmt := range ddl {
		if err := execDDL(s, stmt); err != nil {
			t.Fatalf("Jaeger's schema:\n%s-> %v", stmt, err)
		}
	}
	traces := mustTable[jaegerSpan](t)
	serviceNames := mustTable[jaegerServiceName](t)
	operationNames := mustTable[jaegerOperationName](t)
	serviceOperationIndex := mustTable[jaegerServiceOperationIndex](t)
	serviceNameIndex := mustTable[jaegerServiceNameIndex](t)
	durationIndex := mustTable[jaegerDurationIndex](t)
	tagIndex := mustTable[jaegerTagIndex](t)
	k, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: ks, Replication: testReplication(), Targets: kandra.Cassandra5},
		traces, serviceNames, operationNames, serviceOperationIndex, serviceNameIndex, durationIndex, tagIndex,
		mustTable[jaegerDependencies](t), mustTable[jaegerThroughput](t), mustTable[jaegerProbabilities](t), mustTable[jaegerLease](t))
	if err != nil {
		t.Fatalf("NewKeyspace: %v", err)
	}
	d := kgocql.New(s)
	if p, err := migrate.PlanFor(ctx, d, k); err != nil || !p.Empty() || len(p.Extra) > 0 {
		t.Fatalf("the migrator's plan from Jaeger's keyspace to kandra's entities is not empty:\n%v, %v", p, err)
	}
	obs := &jaegerObserver{}
	rt, err := kstore.New(d, k, kstore.WithObserver(obs))
	if err != nil {
		t.Fatalf("kstore.New: %v", err)
	}
	defer func() { _ = rt.Close(ctx) }()
	repos := &jrRepos{
		traces:                kstore.MustNewRepo(rt, traces),
		serviceNames:          kstore.MustNewRepo(rt, serviceNames),
		operationNames:        kstore.MustNewRepo(rt, operationNames),
		serviceNameIndex:      kstore.MustNewRepo(rt, serviceNameIndex),
		serviceOperationIndex: kstore.MustNewRepo(rt, serviceOperationIndex),
		tagIndex:              kstore.MustNewRepo(rt, tagIndex),
		durationIndex:         kstore.MustNewRepo(rt, durationIndex),
	}
	c := newCluster()
	c.Keyspace = ks // Jaeger's session is bound to its keyspace
	js, err := c.CreateSession()
	if err != nil {
		t.Fatalf("a session on %s: %v", ks, err)
	}
	defer js.Close()

	// 2. The data, written by both writers, four spans at a time.
	const seed = 20260820
	base := time.Date(2026, 8, 20, 8, 47, 13, 123456000, time.UTC)
	data := jrGenerate(t, seed, base, 130, 24)
	writeStart := time.Now()
	var wg sync.WaitGroup
	var werrMu sync.Mutex
	var werrs []string
	next := make(chan int)
	byJaeger := 0
	for i := range data.spans {
		if data.traceOf[i]%2 == 0 {
			byJaeger++
		}
	}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				var err error
				if data.traceOf[i]%2 == 0 {
					err = jrWriteJaeger(js, data.spans[i])
				} else {
					err = repos.write(ctx, data.spans[i])
				}
				if err != nil {
					werrMu.Lock()
					werrs = append(werrs, fmt.Sprintf("span %d: %v", i, err))
					werrMu.Unlock()
				}
			}
		}()
	}
	for i := range data.spans {
		next <- i
	}
	close(next)
	wg.Wait()
	if len(werrs) > 0 {
		t.Fatalf("writing the spans: %s", strings.Join(werrs, "; "))
	}
	obs.take()
	hours := map[time.Time]bool{}
	buckets := map[int32]bool{}
	for _, sp := range data.spans {
		hours[jrDurationBucket(sp)] = true
		buckets[jrBucket(sp)] = true
	}
	t.Logf("seed %d: %d traces, %d spans (%d by Jaeger's statements, %d by typed calls), %d duration buckets, %d service buckets, written in %v",
		seed, len(data.traces), len(data.spans), byJaeger, len(data.spans)-byJaeger, len(hours), len(buckets), time.Since(writeStart).Round(time.Millisecond))
	if len(hours) < 5 || len(buckets) < jrNumBuckets {
		t.Fatalf("the data covers %d duration buckets and %d service buckets; want 5 and more, and all %d", len(hours), len(buckets), jrNumBuckets)
	}

	// What the data holds, for the reads' parameters (never their results).
	opsOf := map[string][]string{}
	svcStarts := map[string][]int64{}
	opStarts := map[[2]string][]int64{}
	tagStarts := map[[3]string][]int64{}
	for _, sp := range data.spans {
		svcStarts[sp.ServiceName] = append(svcStarts[sp.ServiceName], sp.StartTime)
		opStarts[[2]string{sp.ServiceName, sp.OperationName}] = append(opStarts[[2]string{sp.ServiceName, sp.OperationName}], sp.StartTime)
		for _, tag := range jdbIndexedTags(sp) {
			key := [3]string{sp.ServiceName, tag[0], tag[1]}
			tagStarts[key] = append(tagStarts[key], sp.StartTime)
		}
	}
	var services []string
	for _, svc := range jrServices {
		services = append(services, svc.name)
		for _, op := range svc.ops {
			opsOf[svc.name] = append(opsOf[svc.name], op.name)
		}
	}
	const noService = "no-such-service"

	r := &jrRun{obs: obs}
	const readerGo = "internal/storage/v1/cassandra/spanstore/reader.go"
	const serviceNamesGo = "internal/storage/v1/cassandra/spanstore/service_names.go"
	const operationNamesGo = "internal/storage/v1/cassandra/spanstore/operation_names.go"

	// 3. The statements.
	{ // querySpanByTraceID: readTrace, for every trace and one that is not there.
		st := r.stmt("querySpanByTraceID", readerGo, jcqlQuerySpanByTraceID,
			"traces.List(ctx, &jaegerSpan{TraceID: id}, Columns(ParentID, OperationName, Flags, StartTime, Duration, Tags, Logs, Refs, Process), PageSize(2)), then After(cursor) to the end",
			"paged")
		cols := kstore.Columns(
			kandra.MustFieldOf(traces, func(e *jaegerSpan) *int64 { return &e.ParentID }),
			kandra.MustFieldOf(traces, func(e *jaegerSpan) *string { return &e.OperationName }),
			kandra.MustFieldOf(traces, func(e *jaegerSpan) *int32 { return &e.Flags }),
			kandra.MustFieldOf(traces, func(e *jaegerSpan) *int64 { return &e.StartTime }),
			kandra.MustFieldOf(traces, func(e *jaegerSpan) *int64 { return &e.Duration }),
			kandra.MustFieldOf(traces, func(e *jaegerSpan) *[]jaegerKeyValue { return &e.Tags }),
			kandra.MustFieldOf(traces, func(e *jaegerSpan) *[]jaegerLog { return &e.Logs }),
			kandra.MustFieldOf(traces, func(e *jaegerSpan) *[]jaegerSpanRef { return &e.Refs }),
			kandra.MustFieldOf(traces, func(e *jaegerSpan) *jaegerProcess { return &e.Process }))
		ids := append(slices.Clone(data.traces), jdbTraceID{0xde, 0xad, 0xbe, 0xef})
		for _, id := range ids {
			label := "trace " + jrHex(id[:])
			jrows, err := jrReadTrace(js, id)
			if !st.ran(label, jrows, err) {
				continue
			}
			call := func(opts ...kstore.ListOption) *kstore.Iter[jaegerSpan] {
				return repos.traces.List(ctx, &jaegerSpan{TraceID: id[:]}, append([]kstore.ListOption{cols}, opts...)...)
			}
			var rows []*jaegerSpan
			var pages int
			if r.typed(st, label, func() (err error) { rows, pages, err = jrCollect(call, 2, 0); return err }) {
				st.same(label, "PageSize(2), After, to the end", jrows, jrStrings(rows, jrSpanRow))
				if pages > 1 && len(rows) > 2 {
					st.seen["paged"]++
				}
			}
		}
	}
	{ // queryByTag: queryByTagsAndLogs, one query per tag.
		st := r.stmt("queryByTag", readerGo, jcqlQueryByTag,
			"tagIndex.List(ctx, &jaegerTagIndex{ServiceName, TagKey, TagValue}, From(StartTime, min, false), To(StartTime, max, false), Columns(TraceID), PageSize(limit))",
			"limited", "paged", "bounds-exclusive")
		start := kandra.MustFieldOf(tagIndex, func(e *jaegerTagIndex) *int64 { return &e.StartTime })
		cols := kstore.Columns(kandra.MustFieldOf(tagIndex, func(e *jaegerTagIndex) *[]byte { return &e.TraceID }))
		var keys [][3]string
		for key := range tagStarts {
			keys = append(keys, key)
		}
		keys = append(keys, [3]string{"frontend", "customer_id", "no-such-customer"})
		sort.Slice(keys, func(i, j int) bool { return strings.Join(keys[i][:], "\x00") < strings.Join(keys[j][:], "\x00") })
		for _, key := range keys {
			part := &jaegerTagIndex{ServiceName: key[0], TagKey: key[1], TagValue: key[2]}
			ws, depths := jrWindows(base, tagStarts[key]), jrSearchDepths
			if len(tagStarts[key]) < 20 { // the small partitions: every row, once
				ws, depths = ws[:1], depths[:1]
			}
			for _, w := range ws {
				for _, depth := range depths {
					limit := depth * jrLimitMultiple
					label := fmt.Sprintf("%s %s=%s [%s] LIMIT %d", key[0], key[1], key[2], w.name, limit)
					jrows, err := jrTraceIDs(js.Query(jcqlQueryByTag, key[0], key[1], key[2], jrMicros(w.min), jrMicros(w.max), limit).PageSize(0))
					if !st.ran(label, jrows, err) {
						continue
					}
					call := func(bounds ...kstore.ListOption) jrPager[jaegerTagIndex] {
						return func(opts ...kstore.ListOption) *kstore.Iter[jaegerTagIndex] {
							return repos.tagIndex.List(ctx, part, slices.Concat(bounds, []kstore.ListOption{cols}, opts)...)
						}
					}
					lo, hi := int64(jrMicros(w.min)), int64(jrMicros(w.max))
					jrLimited(r, st, label, jrows, limit, call(kstore.From(start, lo, false), kstore.To(start, hi, false)),
						func(e *jaegerTagIndex) string { return jrHex(e.TraceID) })
					if w.atRows && depth == jrDefaultNumTraces {
						jrInclusive(r, st, label, jrows, limit, call(kstore.From(start, lo, true), kstore.To(start, hi, true)))
					}
				}
			}
		}
	}
	{ // queryByServiceName: queryByService, the ten buckets merged.
		st := r.stmt("queryByServiceName", readerGo, jcqlQueryByServiceName,
			"serviceNameIndex.ListMerged(ctx, [&jaegerServiceNameIndex{ServiceName, Bucket: 0}, ..., Bucket: 9], From(StartTime, min, false), To(StartTime, max, false), Columns(TraceID), PageSize(limit))",
			"limited", "paged", "bounds-exclusive", "interleaved", "tie")
		start := kandra.MustFieldOf(serviceNameIndex, func(e *jaegerServiceNameIndex) *int64 { return &e.StartTime })
		cols := kstore.Columns(kandra.MustFieldOf(serviceNameIndex, func(e *jaegerServiceNameIndex) *[]byte { return &e.TraceID }))
		for _, svc := range append(slices.Clone(services), noService) {
			parts := make([]*jaegerServiceNameIndex, jrNumBuckets) // bucketRange, in its order
			for b := range parts {
				parts[b] = &jaegerServiceNameIndex{ServiceName: svc, Bucket: int32(b)}
			}
			for _, w := range jrWindows(base, svcStarts[svc]) {
				for _, depth := range jrSearchDepths {
					limit := depth * jrLimitMultiple
					label := fmt.Sprintf("%s [%s] LIMIT %d", svc, w.name, limit)
					jrows, err := jrTraceIDs(js.Query(jcqlQueryByServiceName, svc, jrMicros(w.min), jrMicros(w.max), limit).PageSize(0))
					if !st.ran(label, jrows, err) {
						continue
					}
					call := func(bounds ...kstore.ListOption) jrPager[jaegerServiceNameIndex] {
						return func(opts ...kstore.ListOption) *kstore.Iter[jaegerServiceNameIndex] {
							return repos.serviceNameIndex.ListMerged(ctx, parts, slices.Concat(bounds, []kstore.ListOption{cols}, opts)...)
						}
					}
					lo, hi := int64(jrMicros(w.min)), int64(jrMicros(w.max))
					page := jrLimited(r, st, label, jrows, limit, call(kstore.From(start, lo, false), kstore.To(start, hi, false)),
						func(e *jaegerServiceNameIndex) string { return jrHex(e.TraceID) })
					if w.atRows && depth == jrDefaultNumTraces {
						jrInclusive(r, st, label, jrows, limit, call(kstore.From(start, lo, true), kstore.To(start, hi, true)))
					}
					// Did the merge matter: rows of a bucket, then of
					// another, then of the first again; equal start times
					// in two buckets next to each other.
					seenB, switches := map[int32]bool{}, 0
					for i, e := range page {
						seenB[e.Bucket] = true
						if i > 0 && e.Bucket != page[i-1].Bucket {
							switches++
						}
						if i > 0 && e.StartTime == page[i-1].StartTime {
							st.seen["tie"]++
						}
					}
					if len(seenB) > 0 && switches >= len(seenB) {
						st.seen["interleaved"]++
					}
				}
			}
		}
	}
	{ // queryByServiceAndOperationName: queryByServiceNameAndOperation.
		st := r.stmt("queryByServiceAndOperationName", readerGo, jcqlQueryByServiceAndOperationName,
			"serviceOperationIndex.List(ctx, &jaegerServiceOperationIndex{ServiceName, OperationName}, From(StartTime, min, false), To(StartTime, max, false), Columns(TraceID), PageSize(limit))",
			"limited", "paged", "bounds-exclusive")
		start := kandra.MustFieldOf(serviceOperationIndex, func(e *jaegerServiceOperationIndex) *int64 { return &e.StartTime })
		cols := kstore.Columns(kandra.MustFieldOf(serviceOperationIndex, func(e *jaegerServiceOperationIndex) *[]byte { return &e.TraceID }))
		for _, svc := range services {
			for _, op := range append(slices.Clone(opsOf[svc]), "no-such-operation") {
				part := &jaegerServiceOperationIndex{ServiceName: svc, OperationName: op}
				for _, w := range jrWindows(base, opStarts[[2]string{svc, op}]) {
					for _, depth := range jrSearchDepths {
						limit := depth * jrLimitMultiple
						label := fmt.Sprintf("%s %q [%s] LIMIT %d", svc, op, w.name, limit)
						jrows, err := jrTraceIDs(js.Query(jcqlQueryByServiceAndOperationName, svc, op, jrMicros(w.min), jrMicros(w.max), limit).PageSize(0))
						if !st.ran(label, jrows, err) {
							continue
						}
						call := func(bounds ...kstore.ListOption) jrPager[jaegerServiceOperationIndex] {
							return func(opts ...kstore.ListOption) *kstore.Iter[jaegerServiceOperationIndex] {
								return repos.serviceOperationIndex.List(ctx, part, slices.Concat(bounds, []kstore.ListOption{cols}, opts)...)
							}
						}
						lo, hi := int64(jrMicros(w.min)), int64(jrMicros(w.max))
						jrLimited(r, st, label, jrows, limit, call(kstore.From(start, lo, false), kstore.To(start, hi, false)),
							func(e *jaegerServiceOperationIndex) string { return jrHex(e.TraceID) })
						if w.atRows && depth == jrDefaultNumTraces {
							jrInclusive(r, st, label, jrows, limit, call(kstore.From(start, lo, true), kstore.To(start, hi, true)))
						}
					}
				}
			}
		}
	}
	{ // queryByDuration: one query per hour bucket, newest first, as the reader loops.
		st := r.stmt("queryByDuration", readerGo, jcqlQueryByDuration,
			"durationIndex.List(ctx, &jaegerDurationIndex{ServiceName, OperationName, Bucket}, From(Duration, min, true), To(Duration, max, true), Columns(TraceID), PageSize(limit))",
			"limited", "paged")
		dur := kandra.MustFieldOf(durationIndex, func(e *jaegerDurationIndex) *int64 { return &e.Duration })
		cols := kstore.Columns(kandra.MustFieldOf(durationIndex, func(e *jaegerDurationIndex) *[]byte { return &e.TraceID }))
		durations := []struct {
			name     string
			min, max time.Duration
		}{{"min 1ms", time.Millisecond, 0}, {"max 200ms", 0, 200 * time.Millisecond}, {"5ms to 900ms", 5 * time.Millisecond, 900 * time.Millisecond}}
		for _, svc := range services {
			for _, op := range append([]string{""}, opsOf[svc]...) {
				for wi, w := range jrWindows(base, nil) {
					for di, dq := range durations {
						depths := jrSearchDepths[:1]
						if wi == 0 && di == 0 {
							depths = []int{jrDefaultNumTraces, 3}
						}
						for _, depth := range depths {
							limit := depth * jrLimitMultiple
							minMicros := dq.min.Nanoseconds() / int64(time.Microsecond/time.Nanosecond)
							maxMicros := (time.Hour * 24).Nanoseconds() / int64(time.Microsecond/time.Nanosecond)
							if dq.max != 0 {
								maxMicros = dq.max.Nanoseconds() / int64(time.Microsecond/time.Nanosecond)
							}
							startByHour, endByHour := w.min.Round(jrDurationBucketSize), w.max.Round(jrDurationBucketSize)
							for tb := endByHour; tb.After(startByHour) || tb.Equal(startByHour); tb = tb.Add(-1 * jrDurationBucketSize) {
								label := fmt.Sprintf("%s %q bucket %s [%s] %s LIMIT %d", svc, op, tb.Format("15:04"), w.name, dq.name, limit)
								jrows, err := jrTraceIDs(js.Query(jcqlQueryByDuration, tb, svc, op, minMicros, maxMicros, limit))
								if !st.ran(label, jrows, err) {
									continue
								}
								part := &jaegerDurationIndex{ServiceName: svc, OperationName: op, Bucket: tb}
								jrLimited(r, st, label, jrows, limit, func(opts ...kstore.ListOption) *kstore.Iter[jaegerDurationIndex] {
									return repos.durationIndex.List(ctx, part, append([]kstore.ListOption{kstore.From(dur, minMicros, true), kstore.To(dur, maxMicros, true), cols}, opts...)...)
								}, func(e *jaegerDurationIndex) string { return jrHex(e.TraceID) })
							}
						}
					}
				}
			}
		}
	}
	{ // queryServiceNames: GetServices, the whole table.
		st := r.stmt("queryServiceNames", serviceNamesGo, jcqlQueryServiceNames,
			"serviceNames.Scan(ctx, each, Concurrency(1), PageSize(2), Columns(ServiceName))")
		i := js.Query(jcqlQueryServiceNames).Iter()
		var service string
		var jrows []string
		for i.Scan(&service) {
			jrows = append(jrows, service)
		}
		if st.ran("GetServices", jrows, i.Close()) {
			// One range at a time, in the ring's order, each range's rows
			// by token: the order of the unrestricted SELECT.
			var mu sync.Mutex
			var got []string
			var res kstore.ScanResult
			if r.typed(st, "GetServices", func() (err error) {
				res, err = repos.serviceNames.Scan(ctx, func(e *jaegerServiceName) error {
					mu.Lock()
					got = append(got, e.ServiceName)
					mu.Unlock()
					return nil
				}, kstore.Concurrency(1), kstore.PageSize(2),
					kstore.Columns(kandra.MustFieldOf(serviceNames, func(e *jaegerServiceName) *string { return &e.ServiceName })))
				return err
			}) {
				st.same("GetServices", fmt.Sprintf("Scan of %d ranges (%s)", res.Ranges, res.Ring), jrows, got)
				t.Logf("GetServices: Scan read %d rows in %d token ranges (ring: %s)", res.Rows, res.Ranges, res.Ring)
			}
		}
	}
	opCols := kstore.Columns(
		kandra.MustFieldOf(operationNames, func(e *jaegerOperationName) *string { return &e.SpanKind }),
		kandra.MustFieldOf(operationNames, func(e *jaegerOperationName) *string { return &e.OperationName }))
	opRow := func(e *jaegerOperationName) string { return e.SpanKind + "|" + e.OperationName }
	{ // queryStmt: GetOperations without a span kind.
		st := r.stmt("queryStmt (operation_names_v2)", operationNamesGo, jcqlQueryOperations,
			"operationNames.List(ctx, &jaegerOperationName{ServiceName: s}, Columns(SpanKind, OperationName), PageSize(2)), then After(cursor) to the end",
			"paged")
		for _, svc := range append(slices.Clone(services), noService) {
			label := svc
			jrows, err := jrOperations(js.Query(jcqlQueryOperations, svc))
			if !st.ran(label, jrows, err) {
				continue
			}
			var rows []*jaegerOperationName
			var pages int
			if r.typed(st, label, func() (err error) {
				rows, pages, err = jrCollect(func(opts ...kstore.ListOption) *kstore.Iter[jaegerOperationName] {
					return repos.operationNames.List(ctx, &jaegerOperationName{ServiceName: svc}, append([]kstore.ListOption{opCols}, opts...)...)
				}, 2, 0)
				return err
			}) {
				st.same(label, "PageSize(2), After, to the end", jrows, jrStrings(rows, opRow))
				if pages > 1 && len(rows) > 2 {
					st.seen["paged"]++
				}
			}
		}
	}
	{ // queryByKindStmt: GetOperations with a span kind (Jaeger sends queryStmt for kind "").
		st := r.stmt("queryByKindStmt (operation_names_v2)", operationNamesGo, jcqlQueryOperationsByKind,
			"operationNames.List(ctx, &jaegerOperationName{ServiceName: s}, Equal(SpanKind, kind), Columns(SpanKind, OperationName), PageSize(1)), then After(cursor) to the end",
			"paged")
		kind := kandra.MustFieldOf(operationNames, func(e *jaegerOperationName) *string { return &e.SpanKind })
		for _, svc := range append(slices.Clone(services), noService) {
			for _, k := range []string{"server", "client", "producer", "consumer"} {
				label := svc + " " + k
				jrows, err := jrOperations(js.Query(jcqlQueryOperationsByKind, svc, k))
				if !st.ran(label, jrows, err) {
					continue
				}
				var rows []*jaegerOperationName
				var pages int
				if r.typed(st, label, func() (err error) {
					rows, pages, err = jrCollect(func(opts ...kstore.ListOption) *kstore.Iter[jaegerOperationName] {
						return repos.operationNames.List(ctx, &jaegerOperationName{ServiceName: svc}, append([]kstore.ListOption{kstore.Equal(kind, k), opCols}, opts...)...)
					}, 1, 0)
					return err
				}) {
					st.same(label, "PageSize(1), After, to the end", jrows, jrStrings(rows, opRow))
					if pages > 1 && len(rows) > 1 {
						st.seen["paged"]++
					}
				}
			}
		}
	}
	{ // tableCheckStmt: tableExist(operation_names_v2), which Jaeger Execs.
		st := r.stmt("tableCheckStmt (operation_names_v2)", operationNamesGo, jcqlTableCheckV2,
			"operationNames.Scan(ctx, each, Concurrency(1), PageSize(1)), each ending the scan at the first row")
		label := "tableExist"
		if err := js.Query(jcqlTableCheckV2).Exec(); err != nil {
			st.fail("%s: Jaeger's check says the table is not there: %v", label, err)
		}
		i := js.Query(jcqlTableCheckV2).Iter()
		var jrows []string
		for {
			row := map[string]any{}
			if !i.MapScan(row) {
				break
			}
			jrows = append(jrows, fmt.Sprintf("%v|%v|%v", row["service_name"], row["span_kind"], row["operation_name"]))
		}
		if st.ran(label, jrows, i.Close()) {
			errFirst := errors.New("the first row is read")
			var got []string
			r.typed(st, label, func() error {
				_, err := repos.operationNames.Scan(ctx, func(e *jaegerOperationName) error {
					got = append(got, e.ServiceName+"|"+e.SpanKind+"|"+e.OperationName)
					return errFirst
				}, kstore.Concurrency(1), kstore.PageSize(1))
				if errors.Is(err, errFirst) {
					return nil
				}
				return err
			})
			st.same(label, "Scan to the first row", jrows, got)
		}
	}

	// 4. The summary.
	typed, same := 0, 0
	for _, st := range r.stmts {
		if st.untyped == "" && !st.failed && st.runs > 0 {
			typed++
		}
		for _, need := range st.need {
			if st.seen[need] == 0 {
				st.fail("the data never made %q matter in %d runs (seen: %v)", need, st.runs, st.seen)
			}
		}
		if st.untyped == "" && len(st.problems) == 0 && st.runs > 0 {
			same++
		}
		t.Logf("%s (%s): %d runs, %d rows, %v\n  Jaeger: %s\n  kandra: %s\n  sent: %s", st.name, st.file, st.runs, st.rows, st.seen,
			strings.Join(strings.Fields(st.cql), " "), st.call, strings.Join(st.sent, " | "))
		for i, p := range st.problems {
			if i == 10 {
				t.Errorf("%s: ... and %d more", st.name, len(st.problems)-10)
				break
			}
			t.Errorf("%s: %s", st.name, p)
		}
	}
	line := fmt.Sprintf("real-server: jaeger-reads statements=%d typed=%d same-rows=%d", len(r.stmts), typed, same)
	t.Log(line)
	fmt.Println(line)
	if typed != len(r.stmts) || same != len(r.stmts) {
		t.Errorf("%d of Jaeger's %d read statements have a typed call, %d return the same rows (Jaeger %s)", typed, len(r.stmts), same, jaegerCommit)
	}
}

// jrInclusive shows that a window's exclusive bounds matter: the typed
// call with inclusive bounds on the same rows returns more rows than
// Jaeger's (the rows at the bounds).
func jrInclusive[T any](r *jrRun, st *jrStmt, label string, jaeger []string, limit int, call jrPager[T]) {
	var rows []*T
	if r.typed(st, label+" inclusive", func() (err error) { rows, err = call(kstore.PageSize(limit)).All(); return err }) {
		if len(rows) > len(jaeger) {
			st.seen["bounds-exclusive"]++
		} else if len(jaeger) < limit {
			st.fail("%s: with inclusive bounds on rows' start times the typed call returns %d rows, Jaeger's exclusive %d", label, len(rows), len(jaeger))
		}
	}
}
