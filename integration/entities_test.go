package integration

import (
	"encoding/binary"
	"errors"
	"math/big"
	"net"
	"net/netip"
	"time"

	"github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
)

// The catalogue: entities that together use every supported Go type, every
// option, composite keys, collections in keys, counters, TTL, gc grace,
// soft delete, lookups with clustering keys and secondary indexes. The
// tutorial and recipe entities come from examples/todos.

type (
	Status string // named string: TEXT
	Level  int16  // named int16: SMALLINT
	Flag   bool   // named bool: BOOLEAN
	// Named types of the special types map as them (issue 10, finding 15).
	UserID uuid.UUID  // UUID
	At     time.Time  // TIMESTAMP
	IPAddr netip.Addr // INET
)

// Money names its own CQL type (kandra.CQLTyper) and marshals itself for
// gocql (gocql.Marshaler/Unmarshaler), as cqltype.go says such a type must:
// Units * 10^-Scale as a CQL DECIMAL.
type Money struct {
	Units int64
	Scale int32
}

func (Money) CQLType() kandra.CQLType { return kandra.CQLDecimal }

func (m Money) MarshalCQL(gocql.TypeInfo) ([]byte, error) {
	// The unscaled value is a CQL varint: let gocql encode it.
	unscaled, err := gocql.Marshal(gocql.NewNativeType(4, gocql.TypeVarint, ""), m.Units)
	if err != nil {
		return nil, err
	}
	b := binary.BigEndian.AppendUint32(nil, uint32(m.Scale))
	return append(b, unscaled...), nil
}

func (m *Money) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	if len(data) == 0 {
		*m = Money{}
		return nil
	}
	if len(data) < 5 {
		return errors.New("a decimal needs at least 5 bytes")
	}
	m.Scale = int32(binary.BigEndian.Uint32(data))
	return gocql.Unmarshal(gocql.NewNativeType(4, gocql.TypeVarint, ""), data[4:], &m.Units)
}

// AllTypes has a column of every Go type in DESIGN.md's mapping table, and
// of every AsType override that makes sense for a Go type.
type AllTypes struct {
	ID          uuid.UUID
	Text        string
	Status      Status
	Level       Level
	Flag        Flag
	Bool        bool
	Tiny        int8
	Small       int16
	Int         int32
	Plain       int
	Long        int64
	Float       float32
	Double      float64
	Blob        []byte
	At          time.Time
	Day         time.Time     // DATE
	Span        time.Duration // DURATION
	TimeOfDay   time.Duration // TIME
	Other       uuid.UUID
	TimeID      uuid.UUID // TIMEUUID
	IP          net.IP
	Addr        netip.Addr
	Big         *big.Int
	Cash        Money // DECIMAL via CQLTyper
	ASCII       string
	Varchar     string
	Unsigned    uint32 // BIGINT by override
	OptText     *string
	OptLong     *int64
	OptAt       *time.Time
	OptID       *uuid.UUID
	OptIP       *net.IP
	Tags        []string
	IDs         []uuid.UUID
	Set         map[string]struct{}
	IDSet       map[uuid.UUID]struct{}
	Counts      map[string]int32
	ByID        map[uuid.UUID]string
	Grid        [][]int32
	Nested      map[string]map[int64]struct{}
	Rows        []map[string]uuid.UUID
	Durations   []time.Duration
	SpanByName  map[string]time.Duration
	Days        []time.Time
	Addresses   []net.IP
	hidden      int // unexported: not a column
	Scratch     string
	RawStatuses []Status
}

// A read of hidden, so that staticcheck sees it used: it is there to be
// left out of the table (TestCatalogue compares every column).
var _ = AllTypes{}.hidden

func (e *AllTypes) Describe(s *kandra.Schema[AllTypes]) {
	s.Table("all_types")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Day, kandra.AsType(kandra.CQLDate))
	kandra.Bind(s, &e.TimeOfDay, kandra.AsType(kandra.CQLTime))
	kandra.Bind(s, &e.TimeID, kandra.AsType(kandra.CQLTimeUUID))
	kandra.Bind(s, &e.ASCII, kandra.AsType(kandra.CQLAscii))
	kandra.Bind(s, &e.Varchar, kandra.AsType(kandra.CQLVarchar))
	kandra.Bind(s, &e.Unsigned, kandra.AsType(kandra.CQLBigint))
	kandra.Bind(s, &e.Days, kandra.AsType(kandra.ListOf(kandra.CQLDate)))
	kandra.Bind(s, &e.Scratch, kandra.Transient())
}

// Event is the README/example time series: a generated time-ordered
// clustering key, newest first, a default TTL, an index, a created stamp.
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

// Reading has a composite partition key (with a DATE component), three
// clustering columns in mixed orders, gc grace, and indexes on a clustering
// column and on a component of the composite partition key.
type Reading struct {
	Sensor uuid.UUID
	Day    time.Time
	Seq    int64
	At     time.Time
	Tag    string
	Value  float64
	Unit   Status
}

func (r *Reading) Describe(s *kandra.Schema[Reading]) {
	s.Table("readings", kandra.GCGrace(3600*time.Second))
	kandra.Bind(s, &r.Day, kandra.PartitionKey(1), kandra.AsType(kandra.CQLDate), kandra.SecondaryIndex())
	kandra.Bind(s, &r.Sensor, kandra.PartitionKey(0))
	kandra.Bind(s, &r.At, kandra.ClusteringKey(1, kandra.ClusteringDesc))
	kandra.Bind(s, &r.Seq, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &r.Tag, kandra.ClusteringKey(2, kandra.ClusteringAsc), kandra.SecondaryIndex())
}

// Bucket has collections in every key position (frozen by kandra), an
// index on a frozen collection (full()), a lookup keyed by a set, and
// indexes on non-frozen collections (values()).
type Bucket struct {
	Path    []string
	Members map[int32]struct{}
	Attrs   map[string]int64
	Labels  map[string]struct{}
	Notes   map[string]string
	Scores  []float64
	Owner   uuid.UUID
}

func (b *Bucket) Describe(s *kandra.Schema[Bucket]) {
	s.Table("buckets")
	kandra.Bind(s, &b.Path, kandra.PartitionKey(0))
	kandra.Bind(s, &b.Members, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.Bind(s, &b.Attrs, kandra.ClusteringKey(1, kandra.ClusteringAsc), kandra.SecondaryIndex())
	kandra.Bind(s, &b.Labels, kandra.Lookup("by_labels", kandra.LookupEventual))
	kandra.Bind(s, &b.Notes, kandra.SecondaryIndex())
	kandra.Bind(s, &b.Scores, kandra.SecondaryIndex())
}

// PageViews is a counter table with a clustering key and recorded
// consistency levels.
type PageViews struct {
	Page   string
	Day    time.Time
	Views  int64
	Clicks int64
}

func (p *PageViews) Describe(s *kandra.Schema[PageViews]) {
	s.Table("page_views", kandra.ReadConsistency(kandra.ConsistencyLocalQuorum),
		kandra.WriteConsistency(kandra.ConsistencyOne))
	kandra.Bind(s, &p.Page, kandra.PartitionKey(0))
	kandra.Bind(s, &p.Day, kandra.ClusteringKey(0, kandra.ClusteringDesc), kandra.AsType(kandra.CQLDate))
	kandra.Counter(s, &p.Views)
	kandra.Counter(s, &p.Clicks)
}

// Audit is embedded and flattened.
type Audit struct {
	CreatedBy string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Account uses soft delete with a marker, an int64 version, created and
// updated stamps on embedded fields, a random generated key, a column-name
// override, a sensitive column, a transient field, explicit zero TTL and
// zero gc grace, and two lookups (BATCH and EVENTUAL).
type Account struct {
	Audit
	AccountID uuid.UUID
	Email     string
	Handle    string
	Secret    string
	Deleted   bool
	Rev       int64
	Session   string
}

func (a *Account) Describe(s *kandra.Schema[Account]) {
	s.Table("accounts", kandra.SoftDelete((30*24*3600)*time.Second, &a.Deleted), kandra.DefaultTTL(0*time.Second), kandra.GCGrace(0*time.Second))
	kandra.GeneratedUUID(s, &a.AccountID, kandra.UUIDRandom, kandra.PartitionKey(0))
	kandra.Bind(s, &a.Email, kandra.Column("e_mail"), kandra.Lookup("by_email", kandra.LookupBatch))
	kandra.Bind(s, &a.Handle, kandra.Lookup("by_handle", kandra.LookupEventual))
	kandra.Bind(s, &a.Secret, kandra.Sensitive())
	kandra.Version(s, &a.Rev)
	kandra.CreatedAt(s, &a.CreatedAt)
	kandra.UpdatedAt(s, &a.UpdatedAt)
	kandra.Bind(s, &a.Session, kandra.Transient())
}

// Message has lookups that must carry every clustering column (ISS-029),
// a time.Time version and an index.
type Message struct {
	Owner   uuid.UUID
	Folder  string
	At      time.Time
	Seq     int32
	Email   string
	Ref     uuid.UUID
	Note    string
	Edited  time.Time
	Private bool
}

func (m *Message) Describe(s *kandra.Schema[Message]) {
	s.Table("messages")
	kandra.Bind(s, &m.Owner, kandra.PartitionKey(0))
	kandra.Bind(s, &m.Folder, kandra.PartitionKey(1))
	kandra.Bind(s, &m.At, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.Bind(s, &m.Seq, kandra.ClusteringKey(1, kandra.ClusteringAsc))
	kandra.Bind(s, &m.Email, kandra.Lookup("by_email", kandra.LookupBatch))
	kandra.Bind(s, &m.Ref, kandra.Lookup("by_ref", kandra.LookupEventual))
	kandra.Bind(s, &m.Note, kandra.SecondaryIndex())
	kandra.Version(s, &m.Edited)
}

// Limits uses the largest TTL and gc grace servers accept. Its TTL
// (20 years) lies past 2038: kandra refuses it for Cassandra5 (ttl-cap;
// TestRules shows every write to it failing on a default node), so it is
// in the catalogue of the cassandra_latest.yaml run only.
type Limits struct {
	K string
	V string
}

func (l *Limits) Describe(s *kandra.Schema[Limits]) {
	s.Table("limits", kandra.DefaultTTL(kandra.MaxTTL), kandra.GCGrace((1<<31-1)*time.Second))
	kandra.Bind(s, &l.K, kandra.PartitionKey(0))
}

// CappedLimits has the largest default TTL kandra accepts for Cassandra5
// today (see cappedTTL), and the largest gc grace: in both runs.
type CappedLimits struct {
	K string
	V string
}

func (l *CappedLimits) Describe(s *kandra.Schema[CappedLimits]) {
	s.Table("capped_limits", kandra.DefaultTTL(cappedTTL()), kandra.GCGrace((1<<31-1)*time.Second))
	kandra.Bind(s, &l.K, kandra.PartitionKey(0))
}

// expirationCap2038 is the latest expiration a default Cassandra 5.0 node
// (storage_compatibility_mode CASSANDRA_4) accepts; with NONE it is
// 2106-02-07T06:28:13Z.
var expirationCap2038 = time.Date(2038, 1, 19, 3, 14, 6, 0, time.UTC)

// cappedTTL is the largest TTL (an hour to spare) that kandra's ttl-cap
// rule accepts now: writes with it must still succeed kandra.TTLHorizon
// from now.
func cappedTTL() time.Duration {
	return (time.Until(expirationCap2038) - kandra.TTLHorizon - time.Hour).Truncate(time.Second)
}

// KeyOnly has nothing but primary-key columns.
type KeyOnly struct {
	A string
	B int32
}

func (k *KeyOnly) Describe(s *kandra.Schema[KeyOnly]) {
	s.Table("key_only")
	kandra.Bind(s, &k.A, kandra.PartitionKey(0))
	kandra.Bind(s, &k.B, kandra.ClusteringKey(0, kandra.ClusteringAsc))
}

// Topic is a partition of replies sharing static columns: an indexed
// title (a legacy index on the default node, a storage-attached one on the
// latest), a set of tags and a flag.
type Topic struct {
	TopicID string
	Reply   int64
	Body    string
	Title   string
	Tags    map[string]struct{}
	Pinned  bool
}

func (p *Topic) Describe(s *kandra.Schema[Topic]) {
	s.Table("topics")
	kandra.Bind(s, &p.TopicID, kandra.PartitionKey(0))
	kandra.Bind(s, &p.Reply, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.Bind(s, &p.Title, kandra.Static(), kandra.SecondaryIndex())
	kandra.Bind(s, &p.Tags, kandra.Static())
	kandra.Bind(s, &p.Pinned, kandra.Static())
}

// Product has an index of each kind on a populated table: SAI with text
// analysis, SAI on a number (read by range), a legacy index on a blob and
// on a map's keys, SAI on a map's entries, and the default index on a
// set's values and on a frozen list in the key.
type Product struct {
	Shop    string
	Options []string
	Name    string
	Price   int64
	Thumb   []byte
	Attrs   map[string]string
	Specs   map[string]int32
	Labels  map[string]struct{}
}

func (p *Product) Describe(s *kandra.Schema[Product]) {
	s.Table("products")
	kandra.Bind(s, &p.Shop, kandra.PartitionKey(0))
	kandra.Bind(s, &p.Options, kandra.ClusteringKey(0, kandra.ClusteringAsc), kandra.SecondaryIndex(kandra.IndexFull()))
	kandra.Bind(s, &p.Name, kandra.SecondaryIndex(kandra.UsingSAI(), kandra.SAICaseInsensitive(), kandra.SAIASCII()))
	kandra.Bind(s, &p.Price, kandra.SecondaryIndex(kandra.UsingSAI()))
	kandra.Bind(s, &p.Thumb, kandra.SecondaryIndex(kandra.UsingLegacy()))
	kandra.Bind(s, &p.Attrs, kandra.SecondaryIndex(kandra.UsingLegacy(), kandra.IndexKeys()))
	kandra.Bind(s, &p.Specs, kandra.SecondaryIndex(kandra.UsingSAI(), kandra.IndexEntries()))
	kandra.Bind(s, &p.Labels, kandra.SecondaryIndex())
}

// Shipment is the catalogue's entity of user-defined types: one in the
// partition key (frozen), a static one, one of its own holding a nested
// type, a set and a map, a list of them, a nullable one, a lookup by one
// (its table's key, frozen), and a Frozen one with an index.
type Shipment struct {
	Route   Leg
	Seq     int32
	Depot   Place
	Parcel  Parcel
	Stops   []Place
	Next    *Place
	Tracker Leg
	Origin  Place
}

// Leg is a user-defined type: leg.
type Leg struct{ From, To string }

// Place is a user-defined type with a nullable field: place.
type Place struct {
	Name     string
	Lat, Lon float64
	Note     *string
}

// Parcel holds a nested type, a set, a map and a field left out.
type Parcel struct {
	Weight int32
	Dims   Dims
	Labels map[string]struct{}
	Counts map[string]int32 `kandra:"item_counts"`
	Cache  string           `kandra:"-"`
}

// Dims is nested in Parcel: dims.
type Dims struct{ W, H, D int16 }

func (e *Shipment) Describe(s *kandra.Schema[Shipment]) {
	s.Table("shipments")
	kandra.Bind(s, &e.Route, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Seq, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.Bind(s, &e.Depot, kandra.Static())
	kandra.Bind(s, &e.Tracker, kandra.Lookup("by_tracker", kandra.LookupBatch))
	kandra.Bind(s, &e.Origin, kandra.Frozen(), kandra.SecondaryIndex())
}

// UDTNatives is a user-defined type with a field of every native type
// kandra maps, each under the same value rules as a column of its own.
type UDTNatives struct {
	S    string
	B    bool
	I8   int8
	I16  int16
	I32  int32
	I64  int64
	F32  float32
	F64  float64
	Blob []byte
	At   time.Time
	D    time.Duration
	ID   uuid.UUID
	Addr netip.Addr
	IP   net.IP
	Big  *big.Int
	Opt  *string
	Tags []string
	Set  map[int64]struct{}
	M    map[string]uuid.UUID
	When *time.Time
	Day  At
}
