package migrate

import (
	"bytes"
	"go/format"
	"go/parser"
	gotoken "go/token"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
)

// The entities of the import tests: between them, one of everything
// GenerateEntities writes.

type impAddress struct {
	Street string
	Zip    string `kandra:"ZIP"`
	Since  time.Time
}

func (impAddress) UDTName() string { return "address" }

// impDecimal names its CQL type, as an application's decimal type does.
type impDecimal struct{ Unscaled, Scale int64 }

func (impDecimal) CQLType() kandra.CQLType { return kandra.CQLDecimal }

type impUser struct {
	UserID    uuid.UUID
	Email     string
	Country   string
	Name      string
	Tags      []string
	Home      impAddress
	Work      impAddress
	Born      time.Time
	Code      string
	Seen      uuid.UUID
	Embedding [3]float32
	Score     *big.Int
	Attrs     map[string]time.Time
	Lunch     time.Duration
	Mixed     string
	Size      int16
	Balance   impDecimal
	Prefs     map[string]int32
}

func (u *impUser) Describe(s *kandra.Schema[impUser]) {
	s.Table("users",
		kandra.DefaultTTL(3600*time.Second), kandra.GCGrace(7200*time.Second), kandra.Compaction(kandra.Leveled(80)),
		kandra.Comment("the users"), kandra.Caching(false, 10), kandra.SpeculativeRetry("50ms"),
		kandra.BloomFilterFPChance(0.05), kandra.Compression(kandra.ZstdCompressor, 64))
	kandra.Bind(s, &u.UserID, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Email, kandra.Lookup("by_email", kandra.LookupUnique))
	kandra.Bind(s, &u.Country, kandra.Lookup("by_country", kandra.LookupBatch))
	kandra.Bind(s, &u.Name, kandra.SecondaryIndex(kandra.UsingSAI(), kandra.SAICaseInsensitive(), kandra.SAINormalize()))
	kandra.Bind(s, &u.Tags, kandra.SecondaryIndex())
	kandra.Bind(s, &u.Home, kandra.Frozen())
	kandra.Bind(s, &u.Born, kandra.AsType(kandra.CQLDate))
	kandra.Bind(s, &u.Code, kandra.AsType(kandra.CQLAscii))
	kandra.Bind(s, &u.Seen, kandra.AsType(kandra.CQLTimeUUID))
	kandra.Bind(s, &u.Embedding, kandra.VectorIndex(kandra.SimilarityDotProduct))
	kandra.Bind(s, &u.Attrs, kandra.AsType(kandra.MapOf(kandra.CQLText, kandra.CQLDate)))
	kandra.Bind(s, &u.Lunch, kandra.AsType(kandra.CQLTime))
	kandra.Bind(s, &u.Mixed, kandra.Column("Mixed Case"))
	kandra.Bind(s, &u.Size, kandra.Column("größe"), kandra.SecondaryIndex(kandra.UsingLegacy(), kandra.IndexNamed("users_size")))
	kandra.Bind(s, &u.Prefs, kandra.SecondaryIndex(kandra.UsingLegacy(), kandra.IndexKeys()))
}

type impEvent struct {
	Owner   uuid.UUID
	Day     time.Time
	At      time.Time
	Seq     int32
	Region  string
	Payload []byte
	Places  []impAddress
	Tagged  map[string]struct{}
	Where   impAddress
}

func (e *impEvent) Describe(s *kandra.Schema[impEvent]) {
	s.Table("events", kandra.Compaction(kandra.TimeWindow(kandra.WindowHours, 6)), kandra.NoCompression(), kandra.Caching(true, kandra.CachingAllRows))
	kandra.Bind(s, &e.Owner, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Day, kandra.PartitionKey(1), kandra.AsType(kandra.CQLDate))
	kandra.Bind(s, &e.At, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.Bind(s, &e.Seq, kandra.ClusteringKey(1, kandra.ClusteringAsc), kandra.Lookup("by_seq", kandra.LookupEventual))
	kandra.Bind(s, &e.Region, kandra.Static())
	kandra.Bind(s, &e.Where, kandra.Static(), kandra.Frozen())
}

type impPageViews struct {
	Page  string
	Day   time.Time
	Hits  int64
	Bytes int64
}

func (p *impPageViews) Describe(s *kandra.Schema[impPageViews]) {
	s.Table("page_views")
	kandra.Bind(s, &p.Page, kandra.PartitionKey(0))
	kandra.Bind(s, &p.Day, kandra.ClusteringKey(0, kandra.ClusteringAsc), kandra.AsType(kandra.CQLDate))
	kandra.Counter(s, &p.Hits)
	kandra.Counter(s, &p.Bytes)
}

// impKeyspace is the keyspace of the entities above, on Cassandra.
func impKeyspace(t testing.TB) *kandra.Keyspace {
	t.Helper()
	users, err := kandra.Register[impUser]()
	if err != nil {
		t.Fatal(err)
	}
	ks, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "shop", Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3, "dc2": 1}),
		Targets: kandra.Cassandra5 | kandra.Cassandra5Latest}, users, kandra.MustRegister[impEvent](), kandra.MustRegister[impPageViews]())
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

// impRows are the system_schema rows of impKeyspace as Cassandra 5.0
// holds them: rowsOf's, with the ANN index as the server writes one
// (rowsOf writes a default index).
func impRows(t testing.TB) *schemaRows {
	r := rowsOf(impKeyspace(t))
	for _, ix := range r.Indexes {
		if ix["index_name"] == "users_embedding_idx" {
			ix["kind"], ix["options"] = "CUSTOM", map[string]string{"target": "embedding", "class_name": "org.apache.cassandra.index.sai.StorageAttachedIndex", "similarity_function": "dot_product"}
		}
	}
	return r
}

// checkSource checks that src parses and is gofmt's, and returns it.
func checkSource(t tb, src []byte) string {
	t.Helper()
	if _, err := parser.ParseFile(gotoken.NewFileSet(), "model.go", src, parser.ParseComments); err != nil {
		t.Fatalf("the generated source does not parse: %v\n%s", err, src)
	}
	again, err := format.Source(src)
	if err != nil || !bytes.Equal(again, src) {
		t.Fatalf("the generated source is not gofmt-stable (%v):\n%s", err, src)
	}
	return string(src)
}

// TestGenerateEntities: the keyspace of every kind of column, index,
// lookup and option is written back as the entities it came from.
func TestGenerateEntities(t *testing.T) {
	imp, err := GenerateEntities(liveNamed(t, impRows(t), "shop"), ImportOptions{Package: "shop", Targets: kandra.Cassandra5 | kandra.Cassandra5Latest})
	if err != nil {
		t.Fatal(err)
	}
	src := checkSource(t, imp.Source)
	if len(imp.Unexpressed) != 0 {
		t.Errorf("unexpressed: %q", imp.Unexpressed)
	}
	if want := []string{"Events", "PageViews", "Users"}; !slices.Equal(imp.Entities, want) {
		t.Errorf("entities %q, want %q", imp.Entities, want)
	}
	if want := []string{"Address"}; !slices.Equal(imp.Types, want) {
		t.Errorf("types %q, want %q", imp.Types, want)
	}
	for _, want := range []string{
		"package shop\n",
		"Replication: kandra.NetworkTopologyStrategy(map[string]int{\"dc1\": 3, \"dc2\": 1}),",
		"Targets:     kandra.Cassandra5 | kandra.Cassandra5Latest,",
		"add(kandra.Register[Users]())",
		"kandra.Bind(s, &e.UserID, kandra.PartitionKey(0))",
		`kandra.Bind(s, &e.Email, kandra.Lookup("by_email", kandra.LookupUnique))`,
		`kandra.Bind(s, &e.Country, kandra.Lookup("by_country", kandra.LookupBatch))`,
		"kandra.Bind(s, &e.Name, kandra.SecondaryIndex(kandra.UsingSAI(), kandra.SAICaseInsensitive(), kandra.SAINormalize()))",
		"kandra.Bind(s, &e.Tags, kandra.SecondaryIndex(kandra.UsingLegacy()))",
		"kandra.Bind(s, &e.Home, kandra.Frozen())",
		"kandra.Bind(s, &e.Born, kandra.AsType(kandra.CQLDate))",
		"kandra.Bind(s, &e.Code, kandra.AsType(kandra.CQLAscii))",
		"kandra.Bind(s, &e.Seen, kandra.AsType(kandra.CQLTimeUUID))",
		"kandra.Bind(s, &e.Embedding, kandra.VectorIndex(kandra.SimilarityDotProduct))",
		"kandra.Bind(s, &e.Attrs, kandra.AsType(kandra.MapOf(kandra.CQLText, kandra.CQLDate)))",
		"kandra.Bind(s, &e.Lunch, kandra.AsType(kandra.CQLTime))",
		`kandra.Bind(s, &e.MixedCase, kandra.Column("Mixed Case"))`,
		`kandra.Bind(s, &e.Größe, kandra.SecondaryIndex(kandra.UsingLegacy(), kandra.IndexNamed("users_size")))`,
		"kandra.Bind(s, &e.Prefs, kandra.SecondaryIndex(kandra.UsingLegacy(), kandra.IndexKeys()))",
		"Embedding [3]float32",
		"Score     *big.Int",
		"Balance   Decimal",
		"Work      Address\n",
		"kandra.DefaultTTL(3600*time.Second)",
		"kandra.GCGrace(7200*time.Second)",
		"kandra.Compaction(kandra.Leveled(80))",
		`kandra.Comment("the users")`,
		"kandra.Caching(false, 10)",
		`kandra.SpeculativeRetry("50ms")`,
		"kandra.BloomFilterFPChance(0.05)",
		"kandra.Compression(kandra.ZstdCompressor, 64)",
		"kandra.Compaction(kandra.TimeWindow(kandra.WindowHours, 6)),\n\t\tkandra.NoCompression(),\n\t\tkandra.Caching(true, kandra.CachingAllRows),",
		"kandra.Bind(s, &e.Day, kandra.PartitionKey(1), kandra.AsType(kandra.CQLDate))",
		"kandra.Bind(s, &e.At, kandra.ClusteringKey(0, kandra.ClusteringDesc))",
		`kandra.Bind(s, &e.Seq, kandra.ClusteringKey(1, kandra.ClusteringAsc), kandra.Lookup("by_seq", kandra.LookupBatch))`,
		"kandra.Bind(s, &e.Region, kandra.Static())",
		"kandra.Bind(s, &e.Where, kandra.Static(), kandra.Frozen())",
		"Places  []Address",
		"Tagged  map[string]struct{}",
		"kandra.Counter(s, &e.Hits)",
		"type Address struct {",
		"ZIP    string `kandra:\"ZIP\"`",
		"type Decimal struct {",
		"func (Decimal) CQLType() kandra.CQLType { return kandra.CQLDecimal }",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the source lacks %q", want)
		}
	}
	for _, not := range []string{"UsersByEmail", "kandra.GCGrace(864000", "UDTName", "Compaction(kandra.SizeTiered"} {
		if strings.Contains(src, not) {
			t.Errorf("the source has %q", not)
		}
	}
	for _, want := range []string{"table users_by_email taken as the lookup by_email of users (UNIQUE", "table users_by_country taken as the lookup by_country of users (BATCH", "table events_by_seq taken as the lookup by_seq of events (BATCH"} {
		if !slices.ContainsFunc(imp.Notes, func(n string) bool { return strings.HasPrefix(n, want) }) {
			t.Errorf("no note %q in %q", want, imp.Notes)
		}
	}
	if t.Failed() {
		t.Logf("source:\n%s", src)
	}
}

// liveNamed is the Live of rows r of keyspace name.
func liveNamed(t tb, r *schemaRows, name string) *Live {
	t.Helper()
	live, err := liveFromRows(name, r)
	if err != nil || live.Keyspace == nil {
		t.Fatalf("liveFromRows: %v", err)
	}
	return live
}
