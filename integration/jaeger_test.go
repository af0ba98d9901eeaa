package integration

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"text/template"
	"time"

	"github.com/gocql/gocql"
	"github.com/google/uuid"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/kstore"
	"github.com/kandra-go/kandra/migrate"
)

// The Jaeger source this test ports: github.com/jaegertracing/jaeger at
// this commit (its newest snapshot when the test was written). The v1
// Cassandra storage lives under internal/storage/v1/cassandra/ there (it
// was plugin/storage/cassandra/), and the lock under
// internal/storage/distributedlock/cassandra/ (it was
// plugin/pkg/distributedlock/cassandra/).
const jaegerCommit = "8498073ff809b1a3923521920a9b1b017ea97ecf"

// Jaeger's write statements, verbatim (the operation_names_v2 one as its
// tableMeta.materialize makes it).
const (
	// internal/storage/v1/cassandra/spanstore/writer.go
	jcqlInsertSpan = `
		INSERT
		INTO traces(trace_id, span_id, span_hash, parent_id, operation_name, flags,
				    start_time, duration, tags, logs, refs, process)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	jcqlServiceNameIndex = `
		INSERT
		INTO service_name_index(service_name, bucket, start_time, trace_id)
		VALUES (?, ?, ?, ?)`
	jcqlServiceOperationIndex = `
		INSERT
		INTO
		service_operation_index(service_name, operation_name, start_time, trace_id)
		VALUES (?, ?, ?, ?)`
	jcqlTagIndex = `
		INSERT
		INTO tag_index(trace_id, span_id, service_name, start_time, tag_key, tag_value)
		VALUES (?, ?, ?, ?, ?, ?)`
	jcqlDurationIndex = `
		INSERT
		INTO duration_index(service_name, operation_name, bucket, duration, start_time, trace_id)
		VALUES (?, ?, ?, ?, ?, ?)`
	// internal/storage/v1/cassandra/spanstore/service_names.go
	jcqlInsertServiceName = `INSERT INTO service_names(service_name) VALUES (?)`
	// internal/storage/v1/cassandra/spanstore/operation_names.go, latestVersion
	jcqlInsertOperationName = "INSERT INTO operation_names_v2(service_name, span_kind, operation_name) VALUES (?, ?, ?)"
	// internal/storage/v1/cassandra/dependencystore/storage.go
	jcqlDepsInsertStmtV2 = "INSERT INTO dependencies_v2(ts, ts_bucket, dependencies) VALUES (?, ?, ?)"
	// internal/storage/v1/cassandra/samplingstore/storage.go
	jcqlInsertThroughput    = `INSERT INTO operation_throughput(bucket, ts, throughput) VALUES (?, ?, ?)`
	jcqlInsertProbabilities = `INSERT INTO sampling_probabilities(bucket, ts, hostname, probabilities) VALUES (?, ?, ?, ?)`
	// internal/storage/distributedlock/cassandra/lock.go
	jcqlInsertLock = `INSERT INTO leases (name, owner) VALUES (?,?) IF NOT EXISTS USING TTL ?;`
	jcqlUpdateLock = `UPDATE leases USING TTL ? SET owner = ? WHERE name = ? IF owner = ?;`
	jcqlDeleteLock = `DELETE FROM leases WHERE name = ? IF owner = ?;`
)

// Jaeger's read statements, verbatim, that read the rows back.
const (
	// internal/storage/v1/cassandra/spanstore/reader.go
	jcqlBucketRange        = `(0,1,2,3,4,5,6,7,8,9)`
	jcqlQuerySpanByTraceID = `
		SELECT trace_id, span_id, parent_id, operation_name, flags, start_time, duration, tags, logs, refs, process
		FROM traces
		WHERE trace_id = ?`
	jcqlQueryByTag = `
		SELECT trace_id
		FROM tag_index
		WHERE service_name = ? AND tag_key = ? AND tag_value = ? and start_time > ? and start_time < ?
		ORDER BY start_time DESC
		LIMIT ?`
	jcqlQueryByServiceName = `
		SELECT trace_id
		FROM service_name_index
		WHERE bucket IN ` + jcqlBucketRange + ` AND service_name = ? AND start_time > ? AND start_time < ?
		ORDER BY start_time DESC
		LIMIT ?`
	jcqlQueryByServiceAndOperationName = `
		SELECT trace_id
		FROM service_operation_index
		WHERE service_name = ? AND operation_name = ? AND start_time > ? AND start_time < ?
		ORDER BY start_time DESC
		LIMIT ?`
	jcqlQueryByDuration = `
		SELECT trace_id
		FROM duration_index
		WHERE bucket = ? AND service_name = ? AND operation_name = ? AND duration >= ? AND duration <= ?
		LIMIT ?`
	// internal/storage/v1/cassandra/spanstore/service_names.go
	jcqlQueryServiceNames = `SELECT service_name FROM service_names`
	// internal/storage/v1/cassandra/spanstore/operation_names.go, latestVersion's queryByKindStmt
	jcqlQueryOperationsByKind = "SELECT span_kind, operation_name FROM operation_names_v2 WHERE service_name = ? AND span_kind = ?"
	// internal/storage/v1/cassandra/dependencystore/storage.go
	jcqlDepsSelectStmtV2 = "SELECT ts, dependencies FROM dependencies_v2 WHERE ts_bucket IN ? AND ts >= ? AND ts < ?"
	// internal/storage/v1/cassandra/samplingstore/storage.go
	jcqlGetThroughput          = `SELECT throughput FROM operation_throughput WHERE bucket IN ` + jcqlBucketRange + ` AND ts > ? AND ts <= ?`
	jcqlGetLatestProbabilities = `SELECT probabilities FROM sampling_probabilities WHERE bucket = ` + `1` + ` LIMIT 1`
)

// jaegerSchemaTemplate is Jaeger's schema,
// internal/storage/v1/cassandra/schema/v004-go-tmpl.cql.tmpl, verbatim: the
// template its schema.Creator fills and runs statement by statement.
const jaegerSchemaTemplate = `CREATE KEYSPACE IF NOT EXISTS {{.Keyspace}} WITH replication = {{.Replication}};

CREATE TYPE IF NOT EXISTS {{.Keyspace}}.keyvalue (
    key             text,
    value_type      text,
    value_string    text,
    value_bool      boolean,
    value_long      bigint,
    value_double    double,
    value_binary    blob
);

CREATE TYPE IF NOT EXISTS {{.Keyspace}}.log (
    ts      bigint, -- microseconds since epoch
    fields  frozen<list<frozen<{{.Keyspace}}.keyvalue>>>
);

CREATE TYPE IF NOT EXISTS {{.Keyspace}}.span_ref (
    ref_type        text,
    trace_id        blob,
    span_id         bigint
);

CREATE TYPE IF NOT EXISTS {{.Keyspace}}.process (
    service_name    text,
    tags            frozen<list<frozen<{{.Keyspace}}.keyvalue>>>
);

-- Notice we have span_hash. This exists only for zipkin backwards compat. Zipkin allows spans with the same ID.
-- Note: Cassandra re-orders non-PK columns alphabetically, so the table looks differently in CQLSH "describe table".
-- start_time is bigint instead of timestamp as we require microsecond precision
CREATE TABLE IF NOT EXISTS {{.Keyspace}}.traces (
    trace_id        blob,
    span_id         bigint,
    span_hash       bigint,
    parent_id       bigint,
    operation_name  text,
    flags           int,
    start_time      bigint, -- microseconds since epoch
    duration        bigint, -- microseconds
    tags            list<frozen<keyvalue>>,
    logs            list<frozen<log>>,
    refs            list<frozen<span_ref>>,
    process         frozen<process>,
    PRIMARY KEY (trace_id, span_id, span_hash)
)
    WITH compaction = {
        'compaction_window_size': '{{.CompactionWindowInMinutes}}',
        'compaction_window_unit': 'MINUTES',
        'class': 'org.apache.cassandra.db.compaction.TimeWindowCompactionStrategy'
    }
    AND default_time_to_live = {{.TraceTTLInSeconds}}
    AND speculative_retry = 'NONE'
    AND gc_grace_seconds = 10800; -- 3 hours of downtime acceptable on nodes

CREATE TABLE IF NOT EXISTS {{.Keyspace}}.service_names (
    service_name text,
    PRIMARY KEY (service_name)
)
    WITH compaction = {
        'min_threshold': '4',
        'max_threshold': '32',
        'class': 'org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy'
    }
    AND default_time_to_live = {{.TraceTTLInSeconds}}
    AND speculative_retry = 'NONE'
    AND gc_grace_seconds = 10800; -- 3 hours of downtime acceptable on nodes

CREATE TABLE IF NOT EXISTS {{.Keyspace}}.operation_names_v2 (
    service_name        text,
    span_kind           text,
    operation_name      text,
    PRIMARY KEY ((service_name), span_kind, operation_name)
)
    WITH compaction = {
        'min_threshold': '4',
        'max_threshold': '32',
        'class': 'org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy'
    }
    AND default_time_to_live = {{.TraceTTLInSeconds}}
    AND speculative_retry = 'NONE'
    AND gc_grace_seconds = 10800; -- 3 hours of downtime acceptable on nodes

-- index of trace IDs by service + operation names, sorted by span start_time.
CREATE TABLE IF NOT EXISTS {{.Keyspace}}.service_operation_index (
    service_name        text,
    operation_name      text,
    start_time          bigint, -- microseconds since epoch
    trace_id            blob,
    PRIMARY KEY ((service_name, operation_name), start_time)
) WITH CLUSTERING ORDER BY (start_time DESC)
    AND compaction = {
        'compaction_window_size': '1',
        'compaction_window_unit': 'HOURS',
        'class': 'org.apache.cassandra.db.compaction.TimeWindowCompactionStrategy'
    }
    AND default_time_to_live = {{.TraceTTLInSeconds}}
    AND speculative_retry = 'NONE'
    AND gc_grace_seconds = 10800; -- 3 hours of downtime acceptable on nodes

CREATE TABLE IF NOT EXISTS {{.Keyspace}}.service_name_index (
    service_name      text,
    bucket            int,
    start_time        bigint, -- microseconds since epoch
    trace_id          blob,
    PRIMARY KEY ((service_name, bucket), start_time)
) WITH CLUSTERING ORDER BY (start_time DESC)
    AND compaction = {
        'compaction_window_size': '1',
        'compaction_window_unit': 'HOURS',
        'class': 'org.apache.cassandra.db.compaction.TimeWindowCompactionStrategy'
    }
    AND default_time_to_live = {{.TraceTTLInSeconds}}
    AND speculative_retry = 'NONE'
    AND gc_grace_seconds = 10800; -- 3 hours of downtime acceptable on nodes

CREATE TABLE IF NOT EXISTS {{.Keyspace}}.duration_index (
    service_name    text,      -- service name
    operation_name  text,      -- operation name, or blank for queries without span name
    bucket          timestamp, -- time bucket, - the start_time of the given span rounded to an hour
    duration        bigint,    -- span duration, in microseconds
    start_time      bigint,    -- microseconds since epoch
    trace_id        blob,
    PRIMARY KEY ((service_name, operation_name, bucket), duration, start_time, trace_id)
) WITH CLUSTERING ORDER BY (duration DESC, start_time DESC)
    AND compaction = {
        'compaction_window_size': '1',
        'compaction_window_unit': 'HOURS',
        'class': 'org.apache.cassandra.db.compaction.TimeWindowCompactionStrategy'
    }
    AND default_time_to_live = {{.TraceTTLInSeconds}}
    AND speculative_retry = 'NONE'
    AND gc_grace_seconds = 10800; -- 3 hours of downtime acceptable on nodes

-- a bucketing strategy may have to be added for tag queries
-- we can make this table even better by adding a timestamp to it
CREATE TABLE IF NOT EXISTS {{.Keyspace}}.tag_index (
    service_name    text,
    tag_key         text,
    tag_value       text,
    start_time      bigint, -- microseconds since epoch
    trace_id        blob,
    span_id         bigint,
    PRIMARY KEY ((service_name, tag_key, tag_value), start_time, trace_id, span_id)
)
    WITH CLUSTERING ORDER BY (start_time DESC)
    AND compaction = {
        'compaction_window_size': '1',
        'compaction_window_unit': 'HOURS',
        'class': 'org.apache.cassandra.db.compaction.TimeWindowCompactionStrategy'
    }
    AND default_time_to_live = {{.TraceTTLInSeconds}}
    AND speculative_retry = 'NONE'
    AND gc_grace_seconds = 10800; -- 3 hours of downtime acceptable on nodes

CREATE TYPE IF NOT EXISTS {{.Keyspace}}.dependency (
    parent          text,
    child           text,
    call_count      bigint,
    source          text
);

-- compaction strategy is intentionally different as compared to other tables due to the size of dependencies data
CREATE TABLE IF NOT EXISTS {{.Keyspace}}.dependencies_v2 (
    ts_bucket    timestamp,
    ts           timestamp,
    dependencies list<frozen<dependency>>,
    PRIMARY KEY (ts_bucket, ts)
) WITH CLUSTERING ORDER BY (ts DESC)
    AND compaction = {
        'min_threshold': '4',
        'max_threshold': '32',
        'class': 'org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy'
    }
    AND default_time_to_live = {{.DependenciesTTLInSeconds}};

-- adaptive sampling tables
-- ./internal/storage/v1/cassandra/samplingstore/storage.go
CREATE TABLE IF NOT EXISTS {{.Keyspace}}.operation_throughput (
    bucket        int,
    ts            timeuuid,
    throughput    text,
    PRIMARY KEY(bucket, ts)
) WITH CLUSTERING ORDER BY (ts desc);

CREATE TABLE IF NOT EXISTS {{.Keyspace}}.sampling_probabilities (
    bucket        int,
    ts            timeuuid,
    hostname      text,
    probabilities text,
    PRIMARY KEY(bucket, ts)
) WITH CLUSTERING ORDER BY (ts desc);

-- distributed lock
-- ./plugin/pkg/distributedlock/cassandra/lock.go
CREATE TABLE IF NOT EXISTS {{.Keyspace}}.leases (
    name text,
    owner text,
    PRIMARY KEY (name)
);
`

// Jaeger's defaults (internal/storage/cassandra/config/config.go): trace
// and dependencies TTL 48 h, compaction window 2 h.
const (
	jaegerTraceTTL         = 48 * time.Hour
	jaegerDependenciesTTL  = 48 * time.Hour
	jaegerCompactionWindow = 2 * time.Hour
)

// jaegerTemplateParams is Jaeger's schema.templateParams.
type jaegerTemplateParams struct {
	Keyspace                  string
	Replication               string
	CompactionWindowInMinutes int64
	TraceTTLInSeconds         int64
	DependenciesTTLInSeconds  int64
}

// jaegerSchemaStatements fills Jaeger's template as its
// constructTemplateParams does for a datacenter (NetworkTopologyStrategy),
// and splits it into statements as its getQueriesFromBytes does.
func jaegerSchemaStatements(ks string) ([]string, error) {
	params := jaegerTemplateParams{
		Keyspace:                  ks,
		Replication:               fmt.Sprintf("{'class': 'NetworkTopologyStrategy', '%s': '%d' }", nodeDC, 1),
		CompactionWindowInMinutes: int64(jaegerCompactionWindow / time.Minute),
		TraceTTLInSeconds:         int64(jaegerTraceTTL / time.Second),
		DependenciesTTLInSeconds:  int64(jaegerDependenciesTTL / time.Second),
	}
	tmpl, err := template.New("v004-go-tmpl.cql.tmpl").Parse(jaegerSchemaTemplate)
	if err != nil {
		return nil, err
	}
	var result bytes.Buffer
	if err := tmpl.Execute(&result, params); err != nil {
		return nil, err
	}
	var extracted [][]byte
	for _, line := range bytes.Split(result.Bytes(), []byte("\n")) {
		if i := bytes.Index(line, []byte(`--`)); i != -1 {
			line = line[0:i]
		}
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			extracted = append(extracted, trimmed)
		}
	}
	var queries []string
	var query string
	for _, line := range extracted {
		query += string(line) + "\n"
		if bytes.HasSuffix(line, []byte(";")) {
			queries = append(queries, query)
			query = ""
		}
	}
	if query != "" {
		return nil, fmt.Errorf("query exists in template without \";\"")
	}
	return queries, nil
}

// ---------------------------------------------------------------------------
// Jaeger's side: its dbmodel types (spanstore/dbmodel/model.go, ids.go,
// cql_udt.go; dependencystore/model.go), with the cql tags Jaeger gives
// them. gocql marshals a user-defined type value by those tags, each field
// of the server's type in its order, as Jaeger's MarshalUDT methods do.

type jdbTraceID [16]byte

// MarshalCQL is Jaeger's dbmodel.TraceID.MarshalCQL (on gocql v1's
// TypeInfo).
func (t jdbTraceID) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return t[:], nil }

type jdbKeyValue struct {
	Key          string  `cql:"key"`
	ValueType    string  `cql:"value_type"`
	ValueString  string  `cql:"value_string"`
	ValueBool    bool    `cql:"value_bool"`
	ValueInt64   int64   `cql:"value_long"`
	ValueFloat64 float64 `cql:"value_double"`
	ValueBinary  []byte  `cql:"value_binary"`
}

// AsString is dbmodel.KeyValue.AsString.
func (t *jdbKeyValue) AsString() string {
	switch t.ValueType {
	case "string":
		return t.ValueString
	case "bool":
		if t.ValueBool {
			return "true"
		}
		return "false"
	case "int64":
		return fmt.Sprint(t.ValueInt64)
	case "float64":
		return fmt.Sprintf("%.10g", t.ValueFloat64)
	case "binary":
		return hex.EncodeToString(t.ValueBinary)
	default:
		return "unknown type " + t.ValueType
	}
}

type jdbLog struct {
	Timestamp int64         `cql:"ts"`
	Fields    []jdbKeyValue `cql:"fields"`
}

type jdbSpanRef struct {
	RefType string     `cql:"ref_type"`
	TraceID jdbTraceID `cql:"trace_id"`
	SpanID  int64      `cql:"span_id"`
}

type jdbProcess struct {
	ServiceName string        `cql:"service_name"`
	Tags        []jdbKeyValue `cql:"tags"`
}

type jdbSpan struct {
	TraceID       jdbTraceID
	SpanID        int64
	ParentID      int64
	OperationName string
	Flags         int32
	StartTime     int64
	Duration      int64
	Tags          []jdbKeyValue
	Logs          []jdbLog
	Refs          []jdbSpanRef
	Process       jdbProcess
	ServiceName   string
	SpanHash      int64
}

type jdbDependency struct {
	Parent    string `cql:"parent"`
	Child     string `cql:"child"`
	CallCount int64  `cql:"call_count"`
	Source    string `cql:"source"`
}

// jdbUniqueTags is dbmodel.GetAllUniqueTags with Jaeger's default tag
// filter (every tag): process tags, span tags, log fields, sorted, binary
// ones and duplicates left out, each as its AsString.
func jdbUniqueTags(sp *jdbSpan) [][2]string {
	all := append([]jdbKeyValue{}, sp.Process.Tags...)
	all = append(all, sp.Tags...)
	for _, l := range sp.Logs {
		all = append(all, l.Fields...)
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].Key != all[j].Key {
			return all[i].Key < all[j].Key
		}
		if all[i].ValueType != all[j].ValueType {
			return all[i].ValueType < all[j].ValueType
		}
		return all[i].AsString() < all[j].AsString()
	})
	var out [][2]string
	for i := range all {
		if all[i].ValueType == "binary" {
			continue
		}
		if i > 0 && all[i-1].Key == all[i].Key && all[i-1].ValueType == all[i].ValueType && all[i-1].AsString() == all[i].AsString() {
			continue
		}
		out = append(out, [2]string{all[i].Key, all[i].AsString()})
	}
	return out
}

// ---------------------------------------------------------------------------
// kandra's side: the entities of Jaeger's tables, declared to match them as
// v004 creates them (the test checks it against system_schema and with the
// migrator's plan). Nothing needed simplifying: the traces table's
// user-defined types, non-frozen lists of frozen values and frozen process
// are all declared as they are. Jaeger's TraceID is a [16]byte, which
// kandra does not map (an array): the entities hold trace ids as []byte.

type jaegerKeyValue struct {
	Key          string
	ValueType    string
	ValueString  string
	ValueBool    bool
	ValueInt64   int64   `kandra:"value_long"`
	ValueFloat64 float64 `kandra:"value_double"`
	ValueBinary  []byte
}

func (jaegerKeyValue) UDTName() string { return "keyvalue" }

type jaegerLog struct {
	Timestamp int64 `kandra:"ts"`
	Fields    []jaegerKeyValue
}

func (jaegerLog) UDTName() string { return "log" }

type jaegerSpanRef struct {
	RefType string
	TraceID []byte
	SpanID  int64
}

func (jaegerSpanRef) UDTName() string { return "span_ref" }

type jaegerProcess struct {
	ServiceName string
	Tags        []jaegerKeyValue
}

func (jaegerProcess) UDTName() string { return "process" }

type jaegerDependency struct {
	Parent    string
	Child     string
	CallCount int64
	Source    string
}

func (jaegerDependency) UDTName() string { return "dependency" }

// jaegerIndexOptions are the options v004 gives the span tables.
func jaegerIndexOptions(c kandra.CompactionStrategy) []kandra.TableOption {
	return []kandra.TableOption{kandra.Compaction(c), kandra.DefaultTTL(jaegerTraceTTL),
		kandra.SpeculativeRetry("NONE"), kandra.GCGrace(3 * time.Hour)}
}

type jaegerSpan struct {
	TraceID       []byte
	SpanID        int64
	SpanHash      int64
	ParentID      int64
	OperationName string
	Flags         int32
	StartTime     int64
	Duration      int64
	Tags          []jaegerKeyValue
	Logs          []jaegerLog
	Refs          []jaegerSpanRef
	Process       jaegerProcess
}

func (e *jaegerSpan) Describe(s *kandra.Schema[jaegerSpan]) {
	s.Table("traces", jaegerIndexOptions(kandra.TimeWindow(kandra.WindowMinutes, int(jaegerCompactionWindow/time.Minute)))...)
	kandra.Bind(s, &e.TraceID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.SpanID, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &e.SpanHash, kandra.ClusteringKey(1, kandra.ClusteringAsc))
	kandra.Bind(s, &e.Process, kandra.Frozen())
}

type jaegerServiceName struct{ ServiceName string }

func (e *jaegerServiceName) Describe(s *kandra.Schema[jaegerServiceName]) {
	s.Table("service_names", jaegerIndexOptions(kandra.SizeTiered())...)
	kandra.Bind(s, &e.ServiceName, kandra.PartitionKey(0))
}

type jaegerOperationName struct {
	ServiceName   string
	SpanKind      string
	OperationName string
}

func (e *jaegerOperationName) Describe(s *kandra.Schema[jaegerOperationName]) {
	s.Table("operation_names_v2", jaegerIndexOptions(kandra.SizeTiered())...)
	kandra.Bind(s, &e.ServiceName, kandra.PartitionKey(0))
	kandra.Bind(s, &e.SpanKind, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &e.OperationName, kandra.ClusteringKey(1, kandra.ClusteringAsc))
}

type jaegerServiceOperationIndex struct {
	ServiceName   string
	OperationName string
	StartTime     int64
	TraceID       []byte
}

func (e *jaegerServiceOperationIndex) Describe(s *kandra.Schema[jaegerServiceOperationIndex]) {
	s.Table("service_operation_index", jaegerIndexOptions(kandra.TimeWindow(kandra.WindowHours, 1))...)
	kandra.Bind(s, &e.ServiceName, kandra.PartitionKey(0))
	kandra.Bind(s, &e.OperationName, kandra.PartitionKey(1))
	kandra.Bind(s, &e.StartTime, kandra.ClusteringKey(0, kandra.ClusteringDesc))
}

type jaegerServiceNameIndex struct {
	ServiceName string
	Bucket      int32
	StartTime   int64
	TraceID     []byte
}

func (e *jaegerServiceNameIndex) Describe(s *kandra.Schema[jaegerServiceNameIndex]) {
	s.Table("service_name_index", jaegerIndexOptions(kandra.TimeWindow(kandra.WindowHours, 1))...)
	kandra.Bind(s, &e.ServiceName, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Bucket, kandra.PartitionKey(1))
	kandra.Bind(s, &e.StartTime, kandra.ClusteringKey(0, kandra.ClusteringDesc))
}

type jaegerDurationIndex struct {
	ServiceName   string
	OperationName string
	Bucket        time.Time
	Duration      int64
	StartTime     int64
	TraceID       []byte
}

func (e *jaegerDurationIndex) Describe(s *kandra.Schema[jaegerDurationIndex]) {
	s.Table("duration_index", jaegerIndexOptions(kandra.TimeWindow(kandra.WindowHours, 1))...)
	kandra.Bind(s, &e.ServiceName, kandra.PartitionKey(0))
	kandra.Bind(s, &e.OperationName, kandra.PartitionKey(1))
	kandra.Bind(s, &e.Bucket, kandra.PartitionKey(2))
	kandra.Bind(s, &e.Duration, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.Bind(s, &e.StartTime, kandra.ClusteringKey(1, kandra.ClusteringDesc))
	kandra.Bind(s, &e.TraceID, kandra.ClusteringKey(2, kandra.ClusteringAsc))
}

type jaegerTagIndex struct {
	ServiceName string
	TagKey      string
	TagValue    string
	StartTime   int64
	TraceID     []byte
	SpanID      int64
}

func (e *jaegerTagIndex) Describe(s *kandra.Schema[jaegerTagIndex]) {
	s.Table("tag_index", jaegerIndexOptions(kandra.TimeWindow(kandra.WindowHours, 1))...)
	kandra.Bind(s, &e.ServiceName, kandra.PartitionKey(0))
	kandra.Bind(s, &e.TagKey, kandra.PartitionKey(1))
	kandra.Bind(s, &e.TagValue, kandra.PartitionKey(2))
	kandra.Bind(s, &e.StartTime, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.Bind(s, &e.TraceID, kandra.ClusteringKey(1, kandra.ClusteringAsc))
	kandra.Bind(s, &e.SpanID, kandra.ClusteringKey(2, kandra.ClusteringAsc))
}

type jaegerDependencies struct {
	TsBucket     time.Time
	Ts           time.Time
	Dependencies []jaegerDependency
}

func (e *jaegerDependencies) Describe(s *kandra.Schema[jaegerDependencies]) {
	s.Table("dependencies_v2", kandra.Compaction(kandra.SizeTiered()), kandra.DefaultTTL(jaegerDependenciesTTL))
	kandra.Bind(s, &e.TsBucket, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Ts, kandra.ClusteringKey(0, kandra.ClusteringDesc))
}

type jaegerThroughput struct {
	Bucket     int32
	Ts         uuid.UUID
	Throughput string
}

func (e *jaegerThroughput) Describe(s *kandra.Schema[jaegerThroughput]) {
	s.Table("operation_throughput")
	kandra.Bind(s, &e.Bucket, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Ts, kandra.ClusteringKey(0, kandra.ClusteringDesc), kandra.AsType(kandra.CQLTimeUUID))
}

type jaegerProbabilities struct {
	Bucket        int32
	Ts            uuid.UUID
	Hostname      string
	Probabilities string
}

func (e *jaegerProbabilities) Describe(s *kandra.Schema[jaegerProbabilities]) {
	s.Table("sampling_probabilities")
	kandra.Bind(s, &e.Bucket, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Ts, kandra.ClusteringKey(0, kandra.ClusteringDesc), kandra.AsType(kandra.CQLTimeUUID))
}

type jaegerLease struct {
	Name  string
	Owner string
}

func (e *jaegerLease) Describe(s *kandra.Schema[jaegerLease]) {
	s.Table("leases")
	kandra.Bind(s, &e.Name, kandra.PartitionKey(0))
}

// Conversions a port makes from Jaeger's dbmodel values.

func jaegerKVs(kvs []jdbKeyValue) []jaegerKeyValue {
	if kvs == nil {
		return nil
	}
	out := make([]jaegerKeyValue, len(kvs))
	for i, kv := range kvs {
		out[i] = jaegerKeyValue(kv)
	}
	return out
}

func jaegerSpanOf(sp *jdbSpan, traceID []byte) *jaegerSpan {
	e := &jaegerSpan{TraceID: traceID, SpanID: sp.SpanID, SpanHash: sp.SpanHash, ParentID: sp.ParentID,
		OperationName: sp.OperationName, Flags: sp.Flags, StartTime: sp.StartTime, Duration: sp.Duration,
		Tags: jaegerKVs(sp.Tags), Process: jaegerProcess{ServiceName: sp.Process.ServiceName, Tags: jaegerKVs(sp.Process.Tags)}}
	for _, l := range sp.Logs {
		e.Logs = append(e.Logs, jaegerLog{Timestamp: l.Timestamp, Fields: jaegerKVs(l.Fields)})
	}
	for _, r := range sp.Refs {
		e.Refs = append(e.Refs, jaegerSpanRef{RefType: r.RefType, TraceID: bytes.Clone(r.TraceID[:]), SpanID: r.SpanID})
	}
	return e
}

// ---------------------------------------------------------------------------
// Cells as the node returns them.

// jaegerCell is one cell of a result: its bytes as the node sent them, or
// null.
type jaegerCell struct {
	info gocql.TypeInfo
	null bool
	b    []byte
}

func (c *jaegerCell) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	c.info, c.null, c.b = info, data == nil, bytes.Clone(data)
	return nil
}

func (c jaegerCell) String() string {
	if c.null {
		return "null"
	}
	h := hex.EncodeToString(c.b)
	if len(h) > 80 {
		h = h[:80] + "..."
	}
	return "0x" + h
}

// cellDiff says where two cells differ: null against a value, or the
// first differing byte, with the bytes around it.
func cellDiff(a, b jaegerCell) string {
	if a.null || b.null {
		return fmt.Sprintf("Jaeger's %s, kandra's %s", a, b)
	}
	i := 0
	for i < len(a.b) && i < len(b.b) && a.b[i] == b.b[i] {
		i++
	}
	window := func(x []byte) string {
		lo, hi := max(i-8, 0), min(i+24, len(x))
		return fmt.Sprintf("%d bytes, [%d:%d] %x", len(x), lo, hi, x[lo:hi])
	}
	return fmt.Sprintf("differ from byte %d: Jaeger's %s, kandra's %s", i, window(a.b), window(b.b))
}

type jaegerRow map[string]jaegerCell

// jaegerRows runs q and returns its rows, every cell raw.
func jaegerRows(q *gocql.Query) ([]jaegerRow, error) {
	iter := q.Iter()
	cols := iter.Columns()
	var rows []jaegerRow
	for {
		cells := make([]jaegerCell, len(cols))
		dest := make([]any, len(cols))
		for i := range cells {
			dest[i] = &cells[i]
		}
		if !iter.Scan(dest...) {
			break
		}
		row := make(jaegerRow, len(cols))
		for i, c := range cols {
			row[c.Name] = cells[i]
		}
		rows = append(rows, row)
	}
	return rows, iter.Close()
}

// diffCells lists the columns whose cells differ between a and b, but for
// those in skip.
func diffCells(a, b jaegerRow, skip ...string) []string {
	names := map[string]bool{}
	for n := range a {
		names[n] = true
	}
	for n := range b {
		names[n] = true
	}
	var sorted []string
	for n := range names {
		if !slices.Contains(skip, n) {
			sorted = append(sorted, n)
		}
	}
	sort.Strings(sorted)
	var diffs []string
	for _, n := range sorted {
		ca, okA := a[n]
		cb, okB := b[n]
		switch {
		case !okA || !okB:
			diffs = append(diffs, fmt.Sprintf("column %s in one row only", n))
		case ca.null != cb.null || !bytes.Equal(ca.b, cb.b):
			diffs = append(diffs, fmt.Sprintf("column %s: %s", n, cellDiff(ca, cb)))
		}
	}
	return diffs
}

// ttlValues decodes a TTL(col) cell: nil for null, one value for a cell,
// one per element of a multi-cell column.
func ttlValues(c jaegerCell) ([]int, error) {
	if c.null {
		return nil, nil
	}
	if c.info.Type() == gocql.TypeList {
		var vs []int
		return vs, gocql.Unmarshal(c.info, c.b, &vs)
	}
	var v int
	return []int{v}, gocql.Unmarshal(c.info, c.b, &v)
}

// ---------------------------------------------------------------------------
// The run.

// jaegerObserver records the statements kandra sends.
type jaegerObserver struct {
	mu    sync.Mutex
	stmts []string
}

func (o *jaegerObserver) Start(ctx context.Context, ob *kandra.Observation) context.Context {
	o.mu.Lock()
	o.stmts = append(o.stmts, strings.Join(strings.Fields(ob.Statement), " "))
	o.mu.Unlock()
	return ctx
}

func (o *jaegerObserver) End(context.Context, *kandra.Observation) {}

func (o *jaegerObserver) take() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := o.stmts
	o.stmts = nil
	return out
}

// jaegerStmt is one of Jaeger's write statements and what was found
// about its typed replacement.
type jaegerStmt struct {
	name, file, cql, call string
	typed                 bool // every typed call was made and succeeded
	calls                 int
	sent                  []string // kandra's statements
	problems              []string
}

func (st *jaegerStmt) fail(format string, args ...any) {
	st.problems = append(st.problems, fmt.Sprintf(format, args...))
}

type jaegerRun struct {
	t     *testing.T
	s, js *gocql.Session
	ks    string
	obs   *jaegerObserver
	stmts []*jaegerStmt
	live  map[string]map[string]sysColumn // table -> live columns
}

func (r *jaegerRun) stmt(name, file, cql, call string) *jaegerStmt {
	st := &jaegerStmt{name: name, file: file, cql: cql, call: call, typed: true}
	r.stmts = append(r.stmts, st)
	return st
}

// jaeger runs Jaeger's statement text on the keyspace's session, as
// Jaeger's session runs it.
func (r *jaegerRun) jaeger(st *jaegerStmt, q *gocql.Query) {
	if err := q.Exec(); err != nil {
		st.fail("Jaeger's statement failed: %v", err)
	}
}

// typed makes a typed call for st and checks that kandra's statement
// has Jaeger's TTL and condition: USING TTL in both or in neither (rows
// written without one take the table's default_time_to_live), IF in both
// or in neither.
func (r *jaegerRun) typed(st *jaegerStmt, call func() error) {
	st.calls++
	r.obs.take()
	err := call()
	sent := r.obs.take()
	st.sent = append(st.sent, sent...)
	if err != nil {
		st.typed = false
		st.fail("typed call %s: %v", st.call, err)
		return
	}
	jq := strings.Join(strings.Fields(st.cql), " ")
	for _, k := range sent {
		ju, ku := strings.ToUpper(jq), strings.ToUpper(k)
		if strings.Contains(ju, "USING TTL") != strings.Contains(ku, "USING TTL") {
			st.fail("TTL: Jaeger's statement %q, kandra's %q", jq, k)
		}
		if strings.Contains(ju, " IF ") != strings.Contains(ku, " IF ") {
			st.fail("condition: Jaeger's statement %q, kandra's %q", jq, k)
		}
	}
}

// liveColumns are the table's columns in system_schema.
func (r *jaegerRun) liveColumns(table string) map[string]sysColumn {
	if r.live == nil {
		r.live = map[string]map[string]sysColumn{}
	}
	if cols, ok := r.live[table]; ok {
		return cols
	}
	cols, err := readColumns(r.s, r.ks, table)
	if err != nil {
		r.t.Fatalf("columns of %s: %v", table, err)
	}
	r.live[table] = cols
	return cols
}

// keyWhere is the WHERE clause of ts's primary key and its values in e.
func keyWhere(ts *kandra.TableSchema, e any) (string, []any) {
	var where []string
	var args []any
	for _, c := range ts.PrimaryKey() {
		p, err := c.Pointer(e)
		if err != nil {
			panic(err)
		}
		v := reflect.ValueOf(p).Elem().Interface()
		if u, ok := v.(uuid.UUID); ok {
			v = gocql.UUID(u) // gocql cannot marshal a uuid.UUID
		}
		where = append(where, c.CQLName()+" = ?")
		args = append(args, v)
	}
	return strings.Join(where, " AND "), args
}

// fullRow reads the row of e's key with a SELECT of every column the
// live table has; nil when there is none.
func (r *jaegerRun) fullRow(ts *kandra.TableSchema, e any) (jaegerRow, error) {
	live := r.liveColumns(ts.Name())
	var cols []string
	for n := range live {
		cols = append(cols, n)
	}
	sort.Strings(cols)
	where, args := keyWhere(ts, e)
	rows, err := jaegerRows(r.js.Query("SELECT "+strings.Join(cols, ", ")+" FROM "+ts.Name()+" WHERE "+where, args...))
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	return rows[0], nil
}

// ttls reads TTL(col) of every regular column of e's row.
func (r *jaegerRun) ttls(ts *kandra.TableSchema, e any) (map[string][]int, error) {
	live := r.liveColumns(ts.Name())
	var sel []string
	for n, c := range live {
		if c.kind == "regular" {
			sel = append(sel, "TTL("+n+")")
		}
	}
	if len(sel) == 0 {
		return nil, nil
	}
	sort.Strings(sel)
	where, args := keyWhere(ts, e)
	rows, err := jaegerRows(r.js.Query("SELECT "+strings.Join(sel, ", ")+" FROM "+ts.Name()+" WHERE "+where, args...))
	if err != nil {
		return nil, err
	}
	if len(rows) != 1 {
		return nil, fmt.Errorf("%d rows", len(rows))
	}
	out := map[string][]int{}
	for n, c := range rows[0] {
		vs, err := ttlValues(c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		out[n] = vs
	}
	return out, nil
}

// sameRow reads the row Jaeger's statement wrote (key j) and the one
// the typed call wrote (key k), both entities of ts's table, and
// compares every cell but those of the columns in differ (the key's
// part that tells them apart), then the TTL of every regular column:
// none on either when maxTTL is 0, else in (minTTL, maxTTL] on both.
func (r *jaegerRun) sameRow(st *jaegerStmt, ts *kandra.TableSchema, j, k any, differ []string, minTTL, maxTTL time.Duration) {
	rj, err := r.fullRow(ts, j)
	if err != nil || rj == nil {
		st.fail("%s: Jaeger's row %v: not read back (%v)", ts.Name(), j, err)
		return
	}
	rk, err := r.fullRow(ts, k)
	if err != nil || rk == nil {
		st.fail("%s: kandra's row %v: not read back (%v)", ts.Name(), k, err)
		return
	}
	for _, d := range diffCells(rj, rk, differ...) {
		st.fail("%s: %s", ts.Name(), d)
	}
	tj, err := r.ttls(ts, j)
	if err != nil {
		st.fail("%s: TTLs of Jaeger's row: %v", ts.Name(), err)
		return
	}
	tk, err := r.ttls(ts, k)
	if err != nil {
		st.fail("%s: TTLs of kandra's row: %v", ts.Name(), err)
		return
	}
	for n, vj := range tj {
		vk := tk[n]
		for who, vs := range map[string][]int{"Jaeger's": vj, "kandra's": vk} {
			switch {
			case maxTTL == 0 && len(vs) > 0:
				st.fail("%s: %s %s = %v, want none", ts.Name(), who, n, vs)
			case maxTTL > 0 && len(vs) == 0:
				st.fail("%s: %s %s has no TTL, want one in (%d, %d]", ts.Name(), who, n, int(minTTL/time.Second), int(maxTTL/time.Second))
			}
			for _, v := range vs {
				if maxTTL > 0 && (v <= int(minTTL/time.Second) || v > int(maxTTL/time.Second)) {
					st.fail("%s: %s %s = %d, want (%d, %d]", ts.Name(), who, n, v, int(minTTL/time.Second), int(maxTTL/time.Second))
				}
			}
		}
	}
}

// absent checks that neither key has a row.
func (r *jaegerRun) absent(st *jaegerStmt, ts *kandra.TableSchema, keys ...any) {
	for _, e := range keys {
		row, err := r.fullRow(ts, e)
		if err != nil {
			st.fail("%s: reading %v: %v", ts.Name(), e, err)
		} else if row != nil {
			st.fail("%s: row %v still there: %v", ts.Name(), e, row)
		}
	}
}

// reader runs one of Jaeger's read statements and fails st when it
// errs or returns another number of rows than want (-1: any).
func (r *jaegerRun) reader(st *jaegerStmt, want int, q *gocql.Query) []jaegerRow {
	rows, err := jaegerRows(q)
	if err != nil {
		st.fail("Jaeger's read %q: %v", strings.Join(strings.Fields(q.Statement()), " "), err)
		return nil
	}
	if want >= 0 && len(rows) != want {
		st.fail("Jaeger's read %q returned %d rows, want %d", strings.Join(strings.Fields(q.Statement()), " "), len(rows), want)
		return nil
	}
	return rows
}

// cellSet is the set of one column's cells over rows.
func cellSet(rows []jaegerRow, col string) map[string]bool {
	out := map[string]bool{}
	for _, row := range rows {
		out[row[col].String()] = true
	}
	return out
}

func blobCell(b []byte) string { return jaegerCell{b: b}.String() }

func mustTable[T any, PT kandra.Entity[T]](t *testing.T) *kandra.Table[T] {
	t.Helper()
	tb, err := kandra.Register[T, PT]()
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	return tb
}

// TestJaegerWritesTyped shows that every Cassandra write of Jaeger's v1
// storage is a typed kandra call that writes the same cells. Source:
// github.com/jaegertracing/jaeger at commit
// 8498073ff809b1a3923521920a9b1b017ea97ecf (jaegerCommit), read with git:
//
//	internal/storage/v1/cassandra/spanstore/writer.go
//	  insertSpan            INSERT INTO traces(trace_id, ..., process) VALUES (...)      -> traces.Save(ctx, &jaegerSpan{...})
//	  serviceNameIndex      INSERT INTO service_name_index(...) VALUES (?, ?, ?, ?)     -> serviceNameIndex.Save(ctx, &jaegerServiceNameIndex{...})
//	  serviceOperationIndex INSERT INTO service_operation_index(...) VALUES (...)        -> serviceOperationIndex.Save(ctx, &jaegerServiceOperationIndex{...})
//	  tagIndex              INSERT INTO tag_index(...) VALUES (...), per unique tag      -> tagIndex.Save(ctx, &jaegerTagIndex{...})
//	  durationIndex         INSERT INTO duration_index(...) VALUES (...), twice per span -> durationIndex.Save(ctx, &jaegerDurationIndex{...})
//	internal/storage/v1/cassandra/spanstore/service_names.go
//	  insertServiceName     INSERT INTO service_names(service_name) VALUES (?)           -> serviceNames.Save(ctx, &jaegerServiceName{...})
//	internal/storage/v1/cassandra/spanstore/operation_names.go (latestVersion)
//	  insertStmt            INSERT INTO operation_names_v2(...) VALUES (?, ?, ?)         -> operationNames.Save(ctx, &jaegerOperationName{...})
//	internal/storage/v1/cassandra/dependencystore/storage.go
//	  depsInsertStmtV2      INSERT INTO dependencies_v2(ts, ts_bucket, dependencies) ... -> dependencies.Save(ctx, &jaegerDependencies{...})
//	internal/storage/v1/cassandra/samplingstore/storage.go
//	  insertThroughput      INSERT INTO operation_throughput(...) VALUES (?, ?, ?)       -> throughput.Save(ctx, &jaegerThroughput{...})
//	  insertProbabilities   INSERT INTO sampling_probabilities(...) VALUES (...)         -> probabilities.Save(ctx, &jaegerProbabilities{...})
//	internal/storage/distributedlock/cassandra/lock.go (was plugin/pkg/distributedlock/cassandra/lock.go)
//	  cqlInsertLock  INSERT INTO leases (name, owner) VALUES (?,?) IF NOT EXISTS USING TTL ?;
//	                 -> leases.SaveIfNotExists(ctx, &jaegerLease{Name: n, Owner: me}, kstore.TTL(ttl))
//	  cqlUpdateLock  UPDATE leases USING TTL ? SET owner = ? WHERE name = ? IF owner = ?;
//	                 -> leases.Patch(ctx, &jaegerLease{Name: n}, kstore.Set(owner, me).If(kstore.Eq(owner, me)), kstore.TTL(ttl))
//	  cqlDeleteLock  DELETE FROM leases WHERE name = ? IF owner = ?;
//	                 -> leases.DeleteIf(ctx, &jaegerLease{Name: n}, kstore.Eq(owner, me))
//
// The tables are Jaeger's own: internal/storage/v1/cassandra/schema/
// v004-go-tmpl.cql.tmpl, filled with Jaeger's defaults and run as its
// schema.Creator runs it. The span, dependency and sampling writers send
// no USING TTL: the span and dependency rows expire by their tables'
// default_time_to_live, which the entities declare (kandra.DefaultTTL),
// and the sampling tables have none, so the typed calls take no TTL
// option either; only the lock's statements carry one. Not
// covered: the previous-version tables (operation_names, the SASI-indexed
// dependencies) that v004 does not create.
//
// Each statement runs with Jaeger's text on a session bound to the
// keyspace (as Jaeger's is) for one key, and the typed call for a second
// key with the same values; both rows are read back with Jaeger's own
// SELECTs (its readers') and with a SELECT of every live column by key,
// and compared cell by cell (bytes as the node returns them, null apart
// from empty), with TTL(col) of every regular column: present on both
// where Jaeger's write makes one (the table default or USING TTL), absent
// on both elsewhere. For the lock it also checks the conditional
// semantics: a second owner's SaveIfNotExists is refused, an extend by
// the wrong owner is not applied and out.Current holds the real owner, a
// forfeit by the wrong owner is not applied, one by the right owner
// deletes, and an extend of a forfeited lease does not bring it back.
func TestJaegerWritesTyped(t *testing.T) {
	s := session(t)
	ctx := context.Background()
	ks := keyspaceName("jaeger")

	// 1. Jaeger's tables, from Jaeger's CQL.
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

	// 2. kandra's entities of them, in a kandra keyspace of the same name.
	traces := mustTable[jaegerSpan](t)
	serviceNames := mustTable[jaegerServiceName](t)
	operationNames := mustTable[jaegerOperationName](t)
	serviceOperationIndex := mustTable[jaegerServiceOperationIndex](t)
	serviceNameIndex := mustTable[jaegerServiceNameIndex](t)
	durationIndex := mustTable[jaegerDurationIndex](t)
	tagIndex := mustTable[jaegerTagIndex](t)
	dependencies := mustTable[jaegerDependencies](t)
	throughput := mustTable[jaegerThroughput](t)
	probabilities := mustTable[jaegerProbabilities](t)
	leases := mustTable[jaegerLease](t)
	k, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: ks, Replication: testReplication(), Targets: kandra.Cassandra5},
		traces, serviceNames, operationNames, serviceOperationIndex, serviceNameIndex, durationIndex, tagIndex,
		dependencies, throughput, probabilities, leases)
	if err != nil {
		t.Fatalf("NewKeyspace: %v", err)
	}
	for _, ts := range k.Tables() {
		diffs, err := compareSchema(s, ks, ts)
		if err != nil {
			t.Fatalf("reading %s: %v", ts.Name(), err)
		}
		for _, d := range diffs {
			t.Errorf("kandra's %s differs from Jaeger's table: %s", ts.Name(), d)
		}
	}
	d := kgocql.New(s)
	if p, err := migrate.PlanFor(ctx, d, k); err != nil || !p.Empty() || len(p.Extra) > 0 {
		t.Errorf("the migrator's plan from Jaeger's keyspace to kandra's entities is not empty:\n%v, %v", p, err)
	}
	obs := &jaegerObserver{}
	rt, err := kstore.New(d, k, kstore.WithObserver(obs))
	if err != nil {
		t.Fatalf("kstore.New: %v", err)
	}
	defer func() { _ = rt.Close(ctx) }()

	// Jaeger's session is bound to its keyspace (config.go sets
	// cluster.Keyspace): its statements name tables only.
	c := newCluster()
	c.Keyspace = ks
	js, err := c.CreateSession()
	if err != nil {
		t.Fatalf("a session on %s: %v", ks, err)
	}
	defer js.Close()
	r := &jaegerRun{t: t, s: s, js: js, ks: ks, obs: obs}

	// 3. The statements. One span, as Jaeger's dbmodel holds it.
	now := time.Now().UTC()
	traceJ := jdbTraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36}
	traceK := jdbTraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x37}
	parent := jdbTraceID{0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19}
	sp := &jdbSpan{
		TraceID: traceJ, SpanID: 0x5f3a9c21e04b7d18, ParentID: 0x1122334455667788, OperationName: "HTTP GET /dispatch",
		Flags: 1, StartTime: now.UnixMicro(), Duration: 1_234_567,
		Tags: []jdbKeyValue{
			{Key: "span.kind", ValueType: "string", ValueString: "server"},
			{Key: "http.status_code", ValueType: "int64", ValueInt64: 200},
			{Key: "error", ValueType: "bool", ValueBool: false},
			{Key: "sampler.param", ValueType: "float64", ValueFloat64: 0.25},
			{Key: "request.body", ValueType: "binary", ValueBinary: []byte{0, 1, 0xfe, 0xff}},
			{Key: "note", ValueType: "string", ValueString: ""},
		},
		Logs: []jdbLog{{Timestamp: now.UnixMicro() + 42, Fields: []jdbKeyValue{
			{Key: "event", ValueType: "string", ValueString: "retry"},
			{Key: "attempt", ValueType: "int64", ValueInt64: 2},
		}}},
		Refs: []jdbSpanRef{{RefType: "child-of", TraceID: parent, SpanID: 0x1122334455667788}},
		Process: jdbProcess{ServiceName: "frontend", Tags: []jdbKeyValue{
			{Key: "hostname", ValueType: "string", ValueString: "host-1"},
			{Key: "ip", ValueType: "string", ValueString: "10.0.0.1"},
			{Key: "jaeger.version", ValueType: "string", ValueString: "Go-2.30.0"},
		}},
		ServiceName: "frontend", SpanHash: -0x2d6e0b3f41a6c5e9,
	}
	svcJ, svcK := sp.Process.ServiceName+"-j", sp.Process.ServiceName+"-k" // where the service is the key
	spanKind := "server"                                                   // dbmodel.GetSpanKind(sp)
	traceTTL := jaegerTraceTTL

	{ // traces
		st := r.stmt("insertSpan", "internal/storage/v1/cassandra/spanstore/writer.go", jcqlInsertSpan, "traces.Save(ctx, &jaegerSpan{...})")
		r.jaeger(st, js.Query(jcqlInsertSpan, sp.TraceID, sp.SpanID, sp.SpanHash, sp.ParentID, sp.OperationName, sp.Flags,
			sp.StartTime, sp.Duration, sp.Tags, sp.Logs, sp.Refs, sp.Process))
		repo := kstore.MustNewRepo(rt, traces)
		ek := jaegerSpanOf(sp, traceK[:])
		r.typed(st, func() error { return repo.Save(ctx, ek) })
		r.sameRow(st, traces.Schema(), jaegerSpanOf(sp, traceJ[:]), ek, []string{"trace_id"}, 0, traceTTL)
		rj := r.reader(st, 1, js.Query(jcqlQuerySpanByTraceID, traceJ))
		rk := r.reader(st, 1, js.Query(jcqlQuerySpanByTraceID, traceK))
		if rj != nil && rk != nil {
			for _, d := range diffCells(rj[0], rk[0], "trace_id") {
				st.fail("readTrace: %s", d)
			}
			if rk[0]["trace_id"].String() != blobCell(traceK[:]) {
				st.fail("readTrace of kandra's row: trace_id %s", rk[0]["trace_id"])
			}
		}
	}
	{ // service_names
		st := r.stmt("insertServiceName", "internal/storage/v1/cassandra/spanstore/service_names.go", jcqlInsertServiceName, "serviceNames.Save(ctx, &jaegerServiceName{...})")
		r.jaeger(st, js.Query(jcqlInsertServiceName).Bind(svcJ))
		repo := kstore.MustNewRepo(rt, serviceNames)
		r.typed(st, func() error { return repo.Save(ctx, &jaegerServiceName{ServiceName: svcK}) })
		r.sameRow(st, serviceNames.Schema(), &jaegerServiceName{svcJ}, &jaegerServiceName{svcK}, []string{"service_name"}, 0, traceTTL)
		got := cellSet(r.reader(st, 2, js.Query(jcqlQueryServiceNames)), "service_name")
		if !got[blobCell([]byte(svcJ))] || !got[blobCell([]byte(svcK))] {
			st.fail("GetServices: %v, want %s and %s", got, svcJ, svcK)
		}
	}
	{ // operation_names_v2
		st := r.stmt("insertStmt (operation_names_v2)", "internal/storage/v1/cassandra/spanstore/operation_names.go", jcqlInsertOperationName, "operationNames.Save(ctx, &jaegerOperationName{...})")
		r.jaeger(st, js.Query(jcqlInsertOperationName).Bind(svcJ, spanKind, sp.OperationName))
		repo := kstore.MustNewRepo(rt, operationNames)
		ek := &jaegerOperationName{ServiceName: svcK, SpanKind: spanKind, OperationName: sp.OperationName}
		r.typed(st, func() error { return repo.Save(ctx, ek) })
		r.sameRow(st, operationNames.Schema(), &jaegerOperationName{svcJ, spanKind, sp.OperationName}, ek, []string{"service_name"}, 0, traceTTL)
		rj := r.reader(st, 1, js.Query(jcqlQueryOperationsByKind, svcJ, spanKind))
		rk := r.reader(st, 1, js.Query(jcqlQueryOperationsByKind, svcK, spanKind))
		if rj != nil && rk != nil {
			for _, d := range diffCells(rj[0], rk[0]) {
				st.fail("GetOperations: %s", d)
			}
		}
	}
	{ // service_name_index
		st := r.stmt("serviceNameIndex", "internal/storage/v1/cassandra/spanstore/writer.go", jcqlServiceNameIndex, "serviceNameIndex.Save(ctx, &jaegerServiceNameIndex{...})")
		bucketNo := uint64(sp.SpanHash) % 10
		r.jaeger(st, js.Query(jcqlServiceNameIndex).Bind(svcJ, bucketNo, sp.StartTime, sp.TraceID))
		repo := kstore.MustNewRepo(rt, serviceNameIndex)
		ek := &jaegerServiceNameIndex{ServiceName: svcK, Bucket: int32(bucketNo), StartTime: sp.StartTime, TraceID: traceJ[:]}
		r.typed(st, func() error { return repo.Save(ctx, ek) })
		ej := *ek
		ej.ServiceName = svcJ
		r.sameRow(st, serviceNameIndex.Schema(), &ej, ek, []string{"service_name"}, 0, traceTTL)
		rj := r.reader(st, 1, js.Query(jcqlQueryByServiceName, svcJ, sp.StartTime-1, sp.StartTime+1, 300).PageSize(0))
		rk := r.reader(st, 1, js.Query(jcqlQueryByServiceName, svcK, sp.StartTime-1, sp.StartTime+1, 300).PageSize(0))
		if rj != nil && rk != nil {
			for _, d := range diffCells(rj[0], rk[0]) {
				st.fail("queryByService: %s", d)
			}
		}
	}
	{ // service_operation_index
		st := r.stmt("serviceOperationIndex", "internal/storage/v1/cassandra/spanstore/writer.go", jcqlServiceOperationIndex, "serviceOperationIndex.Save(ctx, &jaegerServiceOperationIndex{...})")
		r.jaeger(st, js.Query(jcqlServiceOperationIndex).Bind(svcJ, sp.OperationName, sp.StartTime, sp.TraceID))
		repo := kstore.MustNewRepo(rt, serviceOperationIndex)
		ek := &jaegerServiceOperationIndex{ServiceName: svcK, OperationName: sp.OperationName, StartTime: sp.StartTime, TraceID: traceJ[:]}
		r.typed(st, func() error { return repo.Save(ctx, ek) })
		ej := *ek
		ej.ServiceName = svcJ
		r.sameRow(st, serviceOperationIndex.Schema(), &ej, ek, []string{"service_name"}, 0, traceTTL)
		rj := r.reader(st, 1, js.Query(jcqlQueryByServiceAndOperationName, svcJ, sp.OperationName, sp.StartTime-1, sp.StartTime+1, 300).PageSize(0))
		rk := r.reader(st, 1, js.Query(jcqlQueryByServiceAndOperationName, svcK, sp.OperationName, sp.StartTime-1, sp.StartTime+1, 300).PageSize(0))
		if rj != nil && rk != nil {
			for _, d := range diffCells(rj[0], rk[0]) {
				st.fail("queryByServiceNameAndOperation: %s", d)
			}
		}
	}
	{ // tag_index: one row per unique tag, Jaeger's for its trace, kandra's for the other
		st := r.stmt("tagIndex", "internal/storage/v1/cassandra/spanstore/writer.go", jcqlTagIndex, "tagIndex.Save(ctx, &jaegerTagIndex{...})")
		repo := kstore.MustNewRepo(rt, tagIndex)
		tags := jdbUniqueTags(sp)
		for _, tag := range tags {
			r.jaeger(st, js.Query(jcqlTagIndex, sp.TraceID, sp.SpanID, sp.Process.ServiceName, sp.StartTime, tag[0], tag[1]))
			ek := &jaegerTagIndex{ServiceName: sp.Process.ServiceName, TagKey: tag[0], TagValue: tag[1], StartTime: sp.StartTime, TraceID: traceK[:], SpanID: sp.SpanID}
			r.typed(st, func() error { return repo.Save(ctx, ek) })
			ej := *ek
			ej.TraceID = traceJ[:]
			r.sameRow(st, tagIndex.Schema(), &ej, ek, []string{"trace_id"}, 0, traceTTL)
			got := cellSet(r.reader(st, 2, js.Query(jcqlQueryByTag, sp.Process.ServiceName, tag[0], tag[1], sp.StartTime-1, sp.StartTime+1, 300).PageSize(0)), "trace_id")
			if !got[blobCell(traceJ[:])] || !got[blobCell(traceK[:])] {
				st.fail("queryByTagsAndLogs %s=%s: %v, want both traces", tag[0], tag[1], got)
			}
		}
		if len(tags) < 10 {
			st.fail("%d unique tags indexed, want 10", len(tags))
		}
	}
	{ // duration_index: by service alone (operation ""), and by service and operation
		st := r.stmt("durationIndex", "internal/storage/v1/cassandra/spanstore/writer.go", jcqlDurationIndex, "durationIndex.Save(ctx, &jaegerDurationIndex{...})")
		repo := kstore.MustNewRepo(rt, durationIndex)
		timeBucket := time.Unix(0, sp.StartTime*1000).UTC().Round(time.Hour) // model.EpochMicrosecondsAsTime(...).Round(durationBucketSize)
		query := js.Query(jcqlDurationIndex)
		for _, op := range []string{"", sp.OperationName} {
			r.jaeger(st, query.Bind(sp.Process.ServiceName, op, timeBucket, sp.Duration, sp.StartTime, sp.TraceID))
			ek := &jaegerDurationIndex{ServiceName: sp.Process.ServiceName, OperationName: op, Bucket: timeBucket, Duration: sp.Duration, StartTime: sp.StartTime, TraceID: traceK[:]}
			r.typed(st, func() error { return repo.Save(ctx, ek) })
			ej := *ek
			ej.TraceID = traceJ[:]
			r.sameRow(st, durationIndex.Schema(), &ej, ek, []string{"trace_id"}, 0, traceTTL)
			maxMicros := (24 * time.Hour).Microseconds()
			got := cellSet(r.reader(st, 2, js.Query(jcqlQueryByDuration, timeBucket, sp.Process.ServiceName, op, int64(0), maxMicros, 300)), "trace_id")
			if !got[blobCell(traceJ[:])] || !got[blobCell(traceK[:])] {
				st.fail("queryByDuration %q: %v, want both traces", op, got)
			}
		}
	}
	{ // dependencies_v2
		st := r.stmt("depsInsertStmtV2", "internal/storage/v1/cassandra/dependencystore/storage.go", jcqlDepsInsertStmtV2, "dependencies.Save(ctx, &jaegerDependencies{...})")
		const tsBucket = 24 * time.Hour
		tsJ := now.Truncate(tsBucket).Add(time.Hour + 123456789*time.Nanosecond) // a sub-millisecond part, which both floor
		tsK := tsJ.Add(time.Second)
		deps := []jdbDependency{
			{Parent: "frontend", Child: "driver", CallCount: 12, Source: "jaeger"},
			{Parent: "driver", Child: "redis", CallCount: 1 << 40, Source: "jaeger"},
			{Parent: "frontend", Child: "", CallCount: 0, Source: ""},
		}
		r.jaeger(st, js.Query(jcqlDepsInsertStmtV2, tsJ, tsJ.Truncate(tsBucket), deps))
		repo := kstore.MustNewRepo(rt, dependencies)
		ek := &jaegerDependencies{TsBucket: tsK.Truncate(tsBucket), Ts: tsK}
		for _, dep := range deps {
			ek.Dependencies = append(ek.Dependencies, jaegerDependency(dep))
		}
		r.typed(st, func() error { return repo.Save(ctx, ek) })
		ej := *ek
		ej.Ts = tsJ
		r.sameRow(st, dependencies.Schema(), &ej, ek, []string{"ts"}, 0, jaegerDependenciesTTL)
		// GetDependencies: getBuckets(startTs, endTs), then depsSelectStmtV2.
		startTs, endTs := tsJ.Add(-time.Minute), tsK.Add(time.Minute)
		var buckets []time.Time
		for b := startTs.Truncate(tsBucket); b.Before(endTs); b = b.Add(tsBucket) {
			buckets = append(buckets, b)
		}
		rows := r.reader(st, 2, js.Query(jcqlDepsSelectStmtV2, buckets, startTs, endTs).Consistency(gocql.One))
		if len(rows) == 2 { // ts DESC: kandra's newer row first
			for _, d := range diffCells(rows[1], rows[0], "ts") {
				st.fail("GetDependencies: %s", d)
			}
		}
	}
	{ // operation_throughput
		st := r.stmt("insertThroughput", "internal/storage/v1/cassandra/samplingstore/storage.go", jcqlInsertThroughput, "throughput.Save(ctx, &jaegerThroughput{...})")
		var buf bytes.Buffer // throughputToString
		w := csv.NewWriter(&buf)
		_ = w.Write([]string{"frontend", "HTTP GET /dispatch", "42", "0.001,0.5"})
		_ = w.Write([]string{"driver", "FindNearest, \"quoted\"", "7", ""})
		w.Flush()
		bucket := time.Now().UnixNano() % 10 // generateRandomBucket
		tsJ := gocql.TimeUUID()
		r.jaeger(st, js.Query(jcqlInsertThroughput, bucket, tsJ, buf.String()))
		repo := kstore.MustNewRepo(rt, throughput)
		ek := &jaegerThroughput{Bucket: int32(bucket), Ts: uuid.UUID(gocql.TimeUUID()), Throughput: buf.String()}
		r.typed(st, func() error { return repo.Save(ctx, ek) })
		r.sameRow(st, throughput.Schema(), &jaegerThroughput{Bucket: int32(bucket), Ts: uuid.UUID(tsJ)}, ek, []string{"ts"}, 0, 0)
		rows := r.reader(st, 2, js.Query(jcqlGetThroughput, gocql.UUIDFromTime(now.Add(-time.Minute)), gocql.UUIDFromTime(time.Now().Add(time.Minute))))
		if len(rows) == 2 { // one partition, ts DESC: kandra's newer row first
			for _, d := range diffCells(rows[1], rows[0]) {
				st.fail("GetThroughput: %s", d)
			}
		}
	}
	{ // sampling_probabilities
		st := r.stmt("insertProbabilities", "internal/storage/v1/cassandra/samplingstore/storage.go", jcqlInsertProbabilities, "probabilities.Save(ctx, &jaegerProbabilities{...})")
		var buf bytes.Buffer // probabilitiesAndQPSToString
		w := csv.NewWriter(&buf)
		_ = w.Write([]string{"frontend", "HTTP GET /dispatch", "0.001", "12.5"})
		w.Flush()
		const constBucket = 1
		tsJ := gocql.TimeUUID()
		r.jaeger(st, js.Query(jcqlInsertProbabilities, constBucket, tsJ, "collector-1", buf.String()))
		repo := kstore.MustNewRepo(rt, probabilities)
		ek := &jaegerProbabilities{Bucket: constBucket, Ts: uuid.UUID(gocql.TimeUUID()), Hostname: "collector-1", Probabilities: buf.String()}
		r.typed(st, func() error { return repo.Save(ctx, ek) })
		r.sameRow(st, probabilities.Schema(), &jaegerProbabilities{Bucket: constBucket, Ts: uuid.UUID(tsJ)}, ek, []string{"ts"}, 0, 0)
		// GetLatestProbabilities reads the newest row: kandra's.
		rows := r.reader(st, 1, js.Query(jcqlGetLatestProbabilities))
		if len(rows) == 1 && rows[0]["probabilities"].String() != blobCell(buf.Bytes()) {
			st.fail("GetLatestProbabilities: %s", rows[0]["probabilities"])
		}
	}

	// The lock. Acquire's INSERT ... IF NOT EXISTS USING TTL, extendLease's
	// UPDATE ... IF owner = ?, Forfeit's DELETE ... IF owner = ?.
	{
		const file = "internal/storage/distributedlock/cassandra/lock.go"
		acquire := r.stmt("cqlInsertLock", file, jcqlInsertLock, "leases.SaveIfNotExists(ctx, &jaegerLease{Name: n, Owner: me}, kstore.TTL(ttl))")
		extend := r.stmt("cqlUpdateLock", file, jcqlUpdateLock, "leases.Patch(ctx, &jaegerLease{Name: n}, kstore.Set(owner, me).If(kstore.Eq(owner, me)), kstore.TTL(ttl))")
		forfeit := r.stmt("cqlDeleteLock", file, jcqlDeleteLock, "leases.DeleteIf(ctx, &jaegerLease{Name: n}, kstore.Eq(owner, me))")
		repo := kstore.MustNewRepo(rt, leases)
		owner := kandra.MustFieldOf(leases, func(l *jaegerLease) *string { return &l.Owner })
		ts := leases.Schema()
		resJ, resK := "sampling-lock-j", "sampling-lock-k"
		hostA, hostB := "collector-a", "collector-b"
		ttl, longer := 60*time.Second, 120*time.Second
		keyJ, keyK := &jaegerLease{Name: resJ}, &jaegerLease{Name: resK}

		// Acquire by host A: both applied.
		var name, cur string
		applied, err := js.Query(jcqlInsertLock, resJ, hostA, int(ttl.Seconds())).ScanCAS(&name, &cur)
		if err != nil || !applied {
			acquire.fail("Jaeger's acquire by %s: applied=%v, %v", hostA, applied, err)
		}
		var ok bool
		r.typed(acquire, func() error {
			ok, err = repo.SaveIfNotExists(ctx, &jaegerLease{Name: resK, Owner: hostA}, kstore.TTL(ttl))
			return err
		})
		if !ok {
			acquire.fail("SaveIfNotExists by %s on a free lease: not applied", hostA)
		}
		r.sameRow(acquire, ts, keyJ, keyK, []string{"name"}, 0, ttl)

		// Acquire by host B: refused by both; Jaeger's returns the owner.
		applied, err = js.Query(jcqlInsertLock, resJ, hostB, int(ttl.Seconds())).ScanCAS(&name, &cur)
		if err != nil || applied || cur != hostA {
			acquire.fail("Jaeger's acquire by %s of %s's lease: applied=%v owner=%q, %v", hostB, hostA, applied, cur, err)
		}
		r.typed(acquire, func() error {
			ok, err = repo.SaveIfNotExists(ctx, &jaegerLease{Name: resK, Owner: hostB}, kstore.TTL(ttl))
			return err
		})
		if ok {
			acquire.fail("SaveIfNotExists by %s of %s's lease: applied", hostB, hostA)
		}
		if got, err := repo.Get(ctx, keyK); err != nil || got.Owner != hostA {
			acquire.fail("after %s's refused SaveIfNotExists: %+v, %v; want owner %s", hostB, got, err, hostA)
		}
		r.sameRow(acquire, ts, keyJ, keyK, []string{"name"}, 0, ttl)

		// Extend by the owner: applied by both, with the longer TTL.
		applied, err = js.Query(jcqlUpdateLock, int(longer.Seconds()), hostA, resJ, hostA).ScanCAS(&cur)
		if err != nil || !applied {
			extend.fail("Jaeger's extend by %s: applied=%v, %v", hostA, applied, err)
		}
		var out kstore.Outcome[jaegerLease]
		r.typed(extend, func() error {
			out, err = repo.Patch(ctx, &jaegerLease{Name: resK}, kstore.Set(owner, hostA).If(kstore.Eq(owner, hostA)), kstore.TTL(longer))
			return err
		})
		if !out.Applied {
			extend.fail("Patch by the owner %s: not applied: %+v", hostA, out)
		}
		r.sameRow(extend, ts, keyJ, keyK, []string{"name"}, ttl, longer)

		// Extend by host B: not applied; both return the real owner.
		applied, err = js.Query(jcqlUpdateLock, int(longer.Seconds()), hostB, resJ, hostB).ScanCAS(&cur)
		if err != nil || applied || cur != hostA {
			extend.fail("Jaeger's extend by %s: applied=%v owner=%q, %v", hostB, applied, cur, err)
		}
		r.typed(extend, func() error {
			out, err = repo.Patch(ctx, &jaegerLease{Name: resK}, kstore.Set(owner, hostB).If(kstore.Eq(owner, hostB)), kstore.TTL(longer))
			return err
		})
		if out.Applied || !out.Exists || out.Current == nil || out.Current.Owner != hostA || out.Current.Name != resK {
			extend.fail("Patch by %s of %s's lease: %+v (Current %+v), want not applied, the row with owner %s", hostB, hostA, out, out.Current, hostA)
		}
		r.sameRow(extend, ts, keyJ, keyK, []string{"name"}, ttl, longer)

		// Forfeit by host B: not applied by either; the lease stays.
		applied, err = js.Query(jcqlDeleteLock, resJ, hostB).ScanCAS(&cur)
		if err != nil || applied || cur != hostA {
			forfeit.fail("Jaeger's forfeit by %s: applied=%v owner=%q, %v", hostB, applied, cur, err)
		}
		r.typed(forfeit, func() error {
			out, err = repo.DeleteIf(ctx, &jaegerLease{Name: resK}, kstore.Eq(owner, hostB))
			return err
		})
		if out.Applied || out.Current == nil || out.Current.Owner != hostA {
			forfeit.fail("DeleteIf by %s of %s's lease: %+v (Current %+v), want not applied, owner %s", hostB, hostA, out, out.Current, hostA)
		}
		r.sameRow(forfeit, ts, keyJ, keyK, []string{"name"}, ttl, longer)

		// Forfeit by the owner: both rows go.
		applied, err = js.Query(jcqlDeleteLock, resJ, hostA).ScanCAS(&cur)
		if err != nil || !applied {
			forfeit.fail("Jaeger's forfeit by %s: applied=%v, %v", hostA, applied, err)
		}
		r.typed(forfeit, func() error {
			out, err = repo.DeleteIf(ctx, &jaegerLease{Name: resK}, kstore.Eq(owner, hostA))
			return err
		})
		if !out.Applied {
			forfeit.fail("DeleteIf by the owner %s: not applied: %+v", hostA, out)
		}
		r.absent(forfeit, ts, keyJ, keyK)

		// Extend of a forfeited lease: not applied, and no row comes back.
		applied, err = js.Query(jcqlUpdateLock, int(longer.Seconds()), hostA, resJ, hostA).ScanCAS(&cur)
		if err != nil || applied {
			extend.fail("Jaeger's extend of a forfeited lease: applied=%v, %v", applied, err)
		}
		r.typed(extend, func() error {
			out, err = repo.Patch(ctx, &jaegerLease{Name: resK}, kstore.Set(owner, hostA).If(kstore.Eq(owner, hostA)), kstore.TTL(longer))
			return err
		})
		if out.Applied || out.Exists {
			extend.fail("Patch of a forfeited lease: %+v, want not applied, no row", out)
		}
		r.absent(extend, ts, keyJ, keyK)
	}

	// 4. The summary.
	typed, same := 0, 0
	for _, st := range r.stmts {
		if st.typed && st.calls > 0 {
			typed++
		}
		if len(st.problems) == 0 {
			same++
		}
		t.Logf("%s (%s)\n  Jaeger: %s\n  kandra: %s, %d call(s): %s", st.name, st.file,
			strings.Join(strings.Fields(st.cql), " "), st.call, st.calls, strings.Join(slices.Compact(st.sent), " | "))
		for _, p := range st.problems {
			t.Errorf("%s: %s", st.name, p)
		}
	}
	line := fmt.Sprintf("real-server: jaeger statements=%d typed=%d same-cells=%d", len(r.stmts), typed, same)
	t.Log(line)
	fmt.Println(line)
	if typed != len(r.stmts) || same != len(r.stmts) {
		t.Errorf("%d of Jaeger's %d write statements have a typed call, %d write the same cells (Jaeger %s)", typed, len(r.stmts), same, jaegerCommit)
	}
}
