package kandra_test

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

// Event is a time series: one partition per stream, newest first, keyed by
// a time-ordered id that kandra's runtime generates on insert.
type Event struct {
	StreamID uuid.UUID
	EventID  uuid.UUID
	Kind     string
	Payload  []byte
	Received time.Time
}

func (e *Event) Describe(s *kandra.Schema[Event]) {
	s.Table("events", kandra.DefaultTTL((7*24*3600)*time.Second))
	kandra.Bind(s, &e.StreamID, kandra.PartitionKey(0))
	kandra.GeneratedUUID(s, &e.EventID, kandra.UUIDTimeOrdered, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.Bind(s, &e.Kind, kandra.SecondaryIndex())
	kandra.CreatedAt(s, &e.Received)
}

func ExampleRegister() {
	events, err := kandra.Register[Event]()
	if err != nil {
		panic(err)
	}
	// A keyspace writes the statements. Event has a secondary index, which
	// ScyllaDB 2025.x refuses in a keyspace with tablets: target the rest.
	telemetry := kandra.MustNewKeyspace(kandra.KeyspaceSpec{
		Name:        "telemetry",
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3}),
		Targets:     kandra.AllTargets &^ kandra.Scylla2025Tablets,
	}, events)
	for _, stmt := range telemetry.Statements()[1:] {
		fmt.Println(stmt)
	}
	// Output:
	// CREATE TABLE IF NOT EXISTS telemetry.events (
	//     stream_id UUID,
	//     event_id UUID,
	//     kind TEXT,
	//     payload BLOB,
	//     received TIMESTAMP,
	//     PRIMARY KEY (stream_id, event_id)
	// )
	// WITH CLUSTERING ORDER BY (event_id DESC)
	// AND default_time_to_live = 604800;
	// CREATE INDEX IF NOT EXISTS events_kind_idx ON telemetry.events (kind);
}

// Broken has no partition key.
type Broken struct {
	ID   uuid.UUID
	Note string
}

func (b *Broken) Describe(s *kandra.Schema[Broken]) { s.Table("broken") }

func ExampleRegister_schemaError() {
	_, err := kandra.Register[Broken]()
	var se *kandra.SchemaError
	if errors.As(err, &se) {
		fmt.Println(se.Entity, se.Rule)
		fmt.Println(err)
	}
	// Output:
	// kandra_test.Broken no-partition-key
	// kandra: schema kandra_test.Broken [no-partition-key]: no field is a partition key; bind one with kandra.PartitionKey(0)
}

func ExampleFieldOf() {
	events := kandra.MustRegister[Event]()
	kind := kandra.MustFieldOf(events, func(e *Event) *string { return &e.Kind })

	e := &Event{}
	kind.Set(e, "signup")
	fmt.Println(kind.CQLName(), kind.Get(e), kind.Role())
	// Output: kind signup regular
}

func ExampleTable_Pointers() {
	events := kandra.MustRegister[Event]()
	e := &Event{StreamID: uuid.Nil, Kind: "signup"}

	// One buffer reused for every row: addresses of the fields, in column
	// order, for an INSERT listing Schema().Columns().
	buf := make([]any, 0, events.Schema().NumColumns())
	values := events.Pointers(e, buf[:0])
	fmt.Println(len(values), *values[2].(*string))
	// Output: 5 signup
}

func ExampleTable_StoredDiff() {
	events := kandra.MustRegister[Event]()
	cols := []*kandra.ColumnSchema{events.Schema().ColumnByName("kind"), events.Schema().ColumnByName("received")}
	diff := events.StoredDiff(cols) // planned once, used on every call

	at := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	old := &Event{Kind: "signup", Received: at}
	// The same instant in another zone, 0.4 ms later: a TIMESTAMP holds
	// milliseconds, so the server stores the same value.
	nw := &Event{Kind: "login", Received: at.Add(400 * time.Microsecond).In(time.FixedZone("CET", 3600))}
	for i, c := range cols {
		fmt.Println(c.Name(), diff.Same(i, old, nw))
	}
	// Every column at once: the ones to write.
	for _, i := range diff.AppendChanged(nil, old, nw) {
		fmt.Println("changed:", cols[i].Name())
	}
	// Output:
	// kind false
	// received true
	// changed: kind
}

// Session is another entity of the same application.
type Session struct {
	Token  string
	UserID uuid.UUID
}

func (e *Session) Describe(s *kandra.Schema[Session]) {
	s.Table("sessions", kandra.DefaultTTL(3600*time.Second))
	kandra.Bind(s, &e.Token, kandra.PartitionKey(0), kandra.Sensitive())
}

func ExampleNewKeyspace() {
	events := kandra.MustRegister[Event]()
	sessions := kandra.MustRegister[Session]()
	telemetry, err := kandra.NewKeyspace(kandra.KeyspaceSpec{
		Name:        "telemetry",
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3}),
		Targets:     kandra.AllTargets &^ kandra.Scylla2025Tablets, // events has an index
	}, events, sessions)
	if err != nil {
		panic(err)
	}
	// Every statement of the keyspace, in the order they must run: the
	// keyspace, the tables, then the lookup tables and indexes.
	for _, stmt := range telemetry.Statements() {
		fmt.Println(strings.SplitN(stmt, " (", 2)[0])
	}
	// Output:
	// CREATE KEYSPACE IF NOT EXISTS telemetry WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3};
	// CREATE TABLE IF NOT EXISTS telemetry.events
	// CREATE TABLE IF NOT EXISTS telemetry.sessions
	// CREATE INDEX IF NOT EXISTS events_kind_idx ON telemetry.events
}

// Profile is another type that uses the table name "events".
type Profile struct {
	ID uuid.UUID
}

func (e *Profile) Describe(s *kandra.Schema[Profile]) {
	s.Table("events")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

func ExampleNewKeyspace_nameTaken() {
	events := kandra.MustRegister[Event]()
	profiles := kandra.MustRegister[Profile]() // a table name is claimed per keyspace, not per process
	_, err := kandra.NewKeyspace(kandra.KeyspaceSpec{
		Name:        "app",
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3}),
		Targets:     kandra.AllTargets &^ kandra.Scylla2025Tablets,
	}, events, profiles)
	fmt.Println(err)
	// Output: kandra: schema keyspace "app" [name-taken]: table name "events" of kandra_test.Profile is already the table name of kandra_test.Event; names are unique per keyspace
}

func ExampleNewKeyspace_targets() {
	events := kandra.MustRegister[Event]()
	// The default targets are every server kandra knows: ScyllaDB 2025.x
	// keyspaces with tablets among them, which refuse secondary indexes.
	_, err := kandra.NewKeyspace(kandra.KeyspaceSpec{
		Name:        "telemetry",
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3}),
	}, events)
	var se *kandra.SchemaError
	if errors.As(err, &se) {
		fmt.Println(se.Rule)
	}
	// Output: tablets
}

func ExampleKeyspace_AlterTableAdd() {
	events := kandra.MustRegister[Event]()
	telemetry := kandra.MustNewKeyspace(kandra.KeyspaceSpec{
		Name:        "telemetry",
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3}),
		Targets:     kandra.AllTargets &^ kandra.Scylla2025Tablets,
	}, events)
	ts := events.Schema()
	stmt, err := telemetry.AlterTableAdd(ts, ts.ColumnByName("payload"))
	fmt.Println(stmt, err)
	_, err = telemetry.AlterTableAdd(ts, ts.ColumnByName("stream_id"))
	fmt.Println(errors.Is(err, kerrors.ErrMigration))
	// Output:
	// ALTER TABLE telemetry.events ADD payload BLOB; <nil>
	// true
}

func ExampleSnakeCase() {
	for _, name := range []string{"UserID", "HTTPServer", "UserIDs", "IPv4Addr", "OAuth2Token"} {
		fmt.Println(kandra.SnakeCase(name))
	}
	// Output:
	// user_id
	// http_server
	// user_ids
	// ipv4_addr
	// oauth2_token
}

func ExampleQuoteIdent() {
	for _, name := range []string{"email", "order", "Email", `say "hi"`} {
		fmt.Println(kandra.QuoteIdent(name))
	}
	// Output:
	// email
	// "order"
	// "Email"
	// "say ""hi"""
}

func ExampleValidatorFunc() {
	v := kandra.ValidatorFunc[Event](func(e *Event) []kandra.FieldError {
		if e.Kind == "" {
			return []kandra.FieldError{{Field: "kind", Message: "must not be blank"}}
		}
		return nil
	})
	fmt.Println(v.Validate(&Event{}))
	// Output: [kind: must not be blank]
}

// Reply is one reply of a forum thread; the thread's title and tags are
// static: stored once per partition, read with every reply.
type Reply struct {
	ThreadID string
	ReplyID  int64
	Body     string
	Title    string
	Tags     []string
}

func (r *Reply) Describe(s *kandra.Schema[Reply]) {
	s.Table("replies")
	kandra.Bind(s, &r.ThreadID, kandra.PartitionKey(0))
	kandra.Bind(s, &r.ReplyID, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &r.Title, kandra.Static())
	kandra.Bind(s, &r.Tags, kandra.Static())
}

func ExampleStatic() {
	replies := kandra.MustRegister[Reply]()
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "forum", Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3})}, replies)
	ddl, _ := ks.CreateTable(replies)
	fmt.Println(ddl)
	// Output:
	// CREATE TABLE IF NOT EXISTS forum.replies (
	//     thread_id TEXT,
	//     reply_id BIGINT,
	//     body TEXT,
	//     title TEXT STATIC,
	//     tags LIST<TEXT> STATIC,
	//     PRIMARY KEY (thread_id, reply_id)
	// )
	// WITH CLUSTERING ORDER BY (reply_id ASC);
}

// Item has an index of each kind kandra renders: SAI with text analysis,
// SAI on a number (read by range), a legacy index on a map's keys.
type Item struct {
	Shop  string
	SKU   string
	Name  string
	Price int64
	Attrs map[string]string
}

func (i *Item) Describe(s *kandra.Schema[Item]) {
	s.Table("items")
	kandra.Bind(s, &i.Shop, kandra.PartitionKey(0))
	kandra.Bind(s, &i.SKU, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &i.Name, kandra.SecondaryIndex(kandra.UsingSAI(), kandra.SAICaseInsensitive(), kandra.SAIASCII()))
	kandra.Bind(s, &i.Price, kandra.SecondaryIndex(kandra.UsingSAI()))
	kandra.Bind(s, &i.Attrs, kandra.SecondaryIndex(kandra.UsingLegacy(), kandra.IndexKeys()))
}

func ExampleSecondaryIndex() {
	items := kandra.MustRegister[Item]()
	// Explicit kinds are Cassandra's: the keyspace targets Cassandra only.
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "shop", Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3}),
		Targets: kandra.Cassandra5 | kandra.Cassandra5Latest}, items)
	for _, c := range items.Schema().SecondaryIndexes() {
		ddl, _ := ks.CreateIndex(items, c)
		spec, _ := c.Index()
		fmt.Printf("%s\n  ranges: %t\n", ddl, spec.Ranges)
	}
	// Output:
	// CREATE INDEX IF NOT EXISTS items_name_idx ON shop.items (name) USING 'sai' WITH OPTIONS = {'ascii': 'true', 'case_sensitive': 'false'};
	//   ranges: false
	// CREATE INDEX IF NOT EXISTS items_price_idx ON shop.items (price) USING 'sai';
	//   ranges: true
	// CREATE INDEX IF NOT EXISTS items_attrs_idx ON shop.items (KEYS(attrs)) USING 'legacy_local_table';
	//   ranges: false
}

// Metric is a time series kept 30 days, compacted in daily windows.
type Metric struct {
	Sensor string
	At     time.Time
	Value  float64
}

func (m *Metric) Describe(s *kandra.Schema[Metric]) {
	s.Table("metrics",
		kandra.DefaultTTL(30*24*time.Hour),
		kandra.Compaction(kandra.TimeWindow(kandra.WindowDays, 1)),
		kandra.Compression(kandra.ZstdCompressor, 64),
		kandra.Comment("sensor readings, 30 days"),
		kandra.SpeculativeRetry("99PERCENTILE"),
	)
	kandra.Bind(s, &m.Sensor, kandra.PartitionKey(0))
	kandra.Bind(s, &m.At, kandra.ClusteringKey(0, kandra.ClusteringDesc))
}

// ExampleCompaction renders storage options in each server's dialect:
// compression takes class on Cassandra and sstable_compression on
// ScyllaDB, so the two keyspaces are two values.
func ExampleCompaction() {
	metrics := kandra.MustRegister[Metric]()
	for _, targets := range []kandra.Target{kandra.Cassandra5 | kandra.Cassandra5Latest, kandra.Scylla2026} {
		ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "iot", Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3}), Targets: targets}, metrics)
		ddl, _ := ks.CreateTable(metrics)
		fmt.Println(ddl)
	}
	// Output:
	// CREATE TABLE IF NOT EXISTS iot.metrics (
	//     sensor TEXT,
	//     at TIMESTAMP,
	//     value DOUBLE,
	//     PRIMARY KEY (sensor, at)
	// )
	// WITH CLUSTERING ORDER BY (at DESC)
	// AND default_time_to_live = 2592000
	// AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': '1'}
	// AND compression = {'class': 'ZstdCompressor', 'chunk_length_in_kb': '64'}
	// AND comment = 'sensor readings, 30 days'
	// AND speculative_retry = '99PERCENTILE';
	// CREATE TABLE IF NOT EXISTS iot.metrics (
	//     sensor TEXT,
	//     at TIMESTAMP,
	//     value DOUBLE,
	//     PRIMARY KEY (sensor, at)
	// )
	// WITH CLUSTERING ORDER BY (at DESC)
	// AND default_time_to_live = 2592000
	// AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': '1'}
	// AND compression = {'sstable_compression': 'ZstdCompressor', 'chunk_length_in_kb': '64'}
	// AND comment = 'sensor readings, 30 days'
	// AND speculative_retry = '99PERCENTILE';
}
