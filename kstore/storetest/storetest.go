// Package storetest is the real-server suite of the kandra runtime,
// written once against adapter.Driver so that every behaviour is proved
// through every driver adapter: each adapter module's node test opens a
// session on a Cassandra node and calls [Run] with a [Node].
//
// Run creates its own keyspace (kandra.NewKeyspace with Targets
// kandra.Cassandra5 and NetworkTopologyStrategy datacenter1: 1, and its
// Statements), runs the scenarios as subtests, and drops the keyspace.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kstore"
)

// Node is an adapter's connection to a real node.
type Node struct {
	// Name goes into the keyspace name ("gocql", "gocqlv2").
	Name string
	// Driver is the adapter under test.
	Driver adapter.Driver
	// Exec runs one raw CQL statement (DDL and fixtures). Its arguments
	// are plain Go values: strings (also for uuid columns), ints, bools,
	// nil.
	Exec func(ctx context.Context, cql string, args ...any) error
	// Scan runs a raw SELECT and scans its first row into dest (*int,
	// *int64, *string). A missing row is an error.
	Scan func(ctx context.Context, cql string, args []any, dest ...any) error
}

// The entities of issue 11's tutorial service, plus two for the proofs at
// scale.

// User has a BATCH email lookup and an EVENTUAL ticketRef lookup.
type User struct {
	UserID      uuid.UUID
	Email       string
	TicketRef   string
	DisplayName string
	Bio         string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Describe implements kandra's description.
func (u *User) Describe(s *kandra.Schema[User]) {
	s.Table("users")
	kandra.GeneratedUUID(s, &u.UserID, kandra.UUIDRandom, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Email, kandra.Lookup("by_email", kandra.LookupBatch))
	kandra.Bind(s, &u.TicketRef, kandra.Lookup("by_ticket_ref", kandra.LookupEventual))
	kandra.CreatedAt(s, &u.CreatedAt)
	kandra.UpdatedAt(s, &u.UpdatedAt)
	s.Validate(kandra.ValidatorFunc[User](func(u *User) []kandra.FieldError {
		if strings.HasPrefix(u.DisplayName, " ") {
			return []kandra.FieldError{{Field: "display_name", Message: "must not start with a space"}}
		}
		return nil
	}))
}

// Todo is soft-deleted and listed newest first.
type Todo struct {
	OwnerID   uuid.UUID
	TodoID    uuid.UUID
	Title     string
	Deleted   bool
	CreatedAt time.Time
}

// Describe implements kandra's description.
func (t *Todo) Describe(s *kandra.Schema[Todo]) {
	s.Table("todos", kandra.SoftDelete(3600*time.Second, &t.Deleted))
	kandra.Bind(s, &t.OwnerID, kandra.PartitionKey(0))
	kandra.GeneratedUUID(s, &t.TodoID, kandra.UUIDTimeOrdered, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.CreatedAt(s, &t.CreatedAt)
}

// Wallet is versioned, with a BATCH owner lookup.
type Wallet struct {
	WalletID string
	Owner    string
	Balance  int64
	Version  int64
}

// Describe implements kandra's description.
func (w *Wallet) Describe(s *kandra.Schema[Wallet]) {
	s.Table("wallets")
	kandra.Bind(s, &w.WalletID, kandra.PartitionKey(0))
	kandra.Bind(s, &w.Owner, kandra.Lookup("by_owner", kandra.LookupBatch))
	kandra.Version(s, &w.Version)
}

// PageHits is a counter table.
type PageHits struct {
	Page string
	Hits int64
}

// Describe implements kandra's description.
func (h *PageHits) Describe(s *kandra.Schema[PageHits]) {
	s.Table("page_hits")
	kandra.Bind(s, &h.Page, kandra.PartitionKey(0))
	kandra.Counter(s, &h.Hits)
}

// Event is one row of a stream, keyed by a generated time-ordered id.
type Event struct {
	Stream  string
	EventID uuid.UUID
	Seq     int
}

// Describe implements kandra's description.
func (e *Event) Describe(s *kandra.Schema[Event]) {
	s.Table("events")
	kandra.Bind(s, &e.Stream, kandra.PartitionKey(0))
	kandra.GeneratedUUID(s, &e.EventID, kandra.UUIDTimeOrdered, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &e.Seq)
}

// Device has an EVENTUAL lookup whose table one scenario drops.
type Device struct {
	DeviceID string
	Serial   string
}

// Describe implements kandra's description.
func (d *Device) Describe(s *kandra.Schema[Device]) {
	s.Table("devices")
	kandra.Bind(s, &d.DeviceID, kandra.PartitionKey(0))
	kandra.Bind(s, &d.Serial, kandra.Lookup("by_serial", kandra.LookupEventual))
}

// Member has a unique handle and a unique, Sensitive recovery code.
type Member struct {
	MemberID uuid.UUID
	Handle   string
	Recovery string
	Name     string
}

// Describe implements kandra's description.
func (m *Member) Describe(s *kandra.Schema[Member]) {
	s.Table("members")
	kandra.GeneratedUUID(s, &m.MemberID, kandra.UUIDRandom, kandra.PartitionKey(0))
	kandra.Bind(s, &m.Handle, kandra.Lookup("by_handle", kandra.LookupUnique))
	kandra.Bind(s, &m.Recovery, kandra.Lookup("by_recovery", kandra.LookupUnique), kandra.Sensitive())
}

// Note is versioned and soft-deleted with a TTL of 2 s, so that a
// scenario sees a soft-deleted row expire.
type Note struct {
	NoteID  string
	Body    string
	Deleted bool
	Version int64
}

// Describe implements kandra's description.
func (n *Note) Describe(s *kandra.Schema[Note]) {
	s.Table("notes", kandra.SoftDelete(2*time.Second, &n.Deleted))
	kandra.Bind(s, &n.NoteID, kandra.PartitionKey(0))
	kandra.Version(s, &n.Version)
}

// Tables and field handles.
var (
	Users   = kandra.MustRegister[User]()
	Todos   = kandra.MustRegister[Todo]()
	Wallets = kandra.MustRegister[Wallet]()
	Hits    = kandra.MustRegister[PageHits]()
	Events  = kandra.MustRegister[Event]()
	Devices = kandra.MustRegister[Device]()
	Members = kandra.MustRegister[Member]()
	Notes   = kandra.MustRegister[Note]()

	userEmail    = kandra.MustFieldOf(Users, func(u *User) *string { return &u.Email })
	userTicket   = kandra.MustFieldOf(Users, func(u *User) *string { return &u.TicketRef })
	walletOwn    = kandra.MustFieldOf(Wallets, func(w *Wallet) *string { return &w.Owner })
	hitsField    = kandra.MustFieldOf(Hits, func(h *PageHits) *int64 { return &h.Hits })
	deviceSerial = kandra.MustFieldOf(Devices, func(d *Device) *string { return &d.Serial })
	todoID       = kandra.MustFieldOf(Todos, func(t *Todo) *uuid.UUID { return &t.TodoID })
	memberHandle = kandra.MustFieldOf(Members, func(m *Member) *string { return &m.Handle })
)

// Keyspace returns the suite's keyspace, named name.
func Keyspace(name string) (*kandra.Keyspace, error) {
	return kandra.NewKeyspace(kandra.KeyspaceSpec{
		Name:        name,
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"datacenter1": 1}),
		Targets:     kandra.Cassandra5,
	}, Users, Todos, Wallets, Hits, Events, Devices, Members, Notes, Threads, ThreadHit, Readings, Tickets, Listings, Embeddings, Customers, Routes,
		Bookings, Shifts, Sittings, Stays, Diaries, Tallies)
}

// harness is one keyspace on one node.
type harness struct {
	n        Node
	ks       string // keyspace.Name()
	keyspace *kandra.Keyspace
}

var ctx = context.Background()

// Run creates the keyspace, runs every scenario as a subtest through n,
// prints "real-server: runtime adapter=<Name> scenarios=<n> ok=<passed>"
// and drops the keyspace.
func Run(t *testing.T, n Node) {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	k, err := Keyspace("krt_" + n.Name + "_" + hex.EncodeToString(b))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range k.Statements() {
		if err := n.Exec(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	t.Cleanup(func() { _ = n.Exec(ctx, "DROP KEYSPACE IF EXISTS "+k.Name()) })
	h := &harness{n: n, ks: k.Name(), keyspace: k}
	ran, passed := 0, 0
	for _, s := range scenarios {
		started := false // a scenario -run leaves out reports true without running
		if t.Run(s.name, func(t *testing.T) { started = true; s.fn(t, h) }) && started {
			passed++
		}
		if started {
			ran++
		}
	}
	// The summary line CI prints for each adapter: the scenarios that ran.
	fmt.Printf("real-server: runtime adapter=%s scenarios=%d ok=%d\n", n.Name, ran, passed)
}

var scenarios = []struct {
	name string
	fn   func(*testing.T, *harness)
}{
	{"SaveStampsAndGetRoundTrips", testSaveStampsAndGet},
	{"SaveValidationWritesNothing", testSaveValidation},
	{"SaveTTLAndTimestamp", testSaveTTLAndTimestamp},
	{"SaveIfNotExists", testSaveIfNotExists},
	{"LookupsBatchAndEventual", testLookupsBatchAndEventual},
	{"EmptyLookupValueWritesNoRow", testEmptyLookupValue},
	{"BatchTooLargeFailsBeforeSending", testBatchTooLarge},
	{"UpdateMovesLookupsAndHijack", testUpdateMovesAndHijack},
	{"VersionedUpdateConflict", testVersionedConflict},
	{"HardDeleteRemovesLookupRows", testHardDelete},
	{"HardDeleteLeavesHijackedValue", testHardDeleteHijacked},
	{"ListPagingNewestFirstAndSoftDelete", testListAndSoftDelete},
	{"Counters", testCounters},
	{"DriverErrorsAreQueryErrors", testDriverErrors},
	{"EventualFailureReachesListener", testEventualDroppedTable},
	{"EventualConsistentUnder16Writers", testEventualConcurrent},
	{"TenThousandTimeOrderedSavesOnePartition", testScaleOnePartition},
	{"StaleCopyNeverOverwritesOrDeletes", testStaleCopyRefused},
	{"UpdateOnePointerOrKeyChangeRefused", testUpdateOnePointer},
	{"OptionsRefusedBeforeSending", testOptionsRefused},
	{"SaveIfNotExistsChecksBatchFirst", testSaveIfNotExistsBatchFirst},
	{"CloseWaitsForSaveInProgress", testCloseWaitsForSave},
	{"NonUniqueThousandHoldersAllFound", testNonUniqueThousand},
	{"NonUniqueSwapStormStrandsNobody", testSwapStorm},
	{"UniqueValueClaimedOnce", testUniqueClaims},
	{"UniqueStaleClaimTakenOverAfterGrace", testUniqueStaleClaim},
	{"VersionedSoftDeleteExpiresWhole", testVersionedSoftDelete},
	{"StaticColumnsArePerPartition", testStatic},
	{"SaveAllDeleteAll", testSaveAllDeleteAll},
	{"PrefixRanges", testPrefixRanges},
	{"RawStatementsAndGetMany", testRawAndGetMany},
	{"IndexKindsAndTargets", testIndexKinds},
	{"VectorsNearestFirst", testVectors},
	{"UDTRoundTrip", testUDTs},
	{"StoredEqualityUniqueClaims", testStoredEqUniqueClaims},
	{"StoredEqualityLookupMoves", testStoredEqLookupMoves},
	{"StoredEqualityFindHolders", testStoredEqFindHolders},
	{"StoredEqualityResaveOwnKey", testStoredEqResaveOwnKey},
	{"StoredEqualitySaveAllOneRow", testStoredEqSaveAllOneRow},
	{"SensitiveCursors", testSensitiveCursors},
	{"BatchEstimateEveryShape", testBatchEstimate},
}

type failures struct {
	mu       sync.Mutex
	got      []string
	entities []any
}

func (f *failures) OnEventualWriteFailed(table string, entity any, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, table+": "+err.Error())
	f.entities = append(f.entities, entity)
}

func (f *failures) list() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.got...)
}

type env struct {
	rt      *kstore.Store
	users   *kstore.Repo[User]
	todos   *kstore.Repo[Todo]
	wallets *kstore.Repo[Wallet]
	hits    *kstore.Repo[PageHits]
	events  *kstore.Repo[Event]
	devices *kstore.Repo[Device]
	members *kstore.Repo[Member]
	notes   *kstore.Repo[Note]
	fails   *failures
	ops     *sync.Map
	h       *harness
}

func (h *harness) env(t *testing.T, opts ...kstore.Option) *env {
	return h.envOn(t, h.n.Driver, opts...)
}

func (h *harness) envOn(t *testing.T, d adapter.Driver, opts ...kstore.Option) *env {
	e := &env{fails: &failures{}, ops: &sync.Map{}, h: h}
	opts = append([]kstore.Option{kstore.WithEventListener(kandra.EventListenerFunc(e.fails.OnEventualWriteFailed)),
		kstore.WithMetrics(kandra.MetricsFunc(func(table, op string, d time.Duration) {
			n, _ := e.ops.LoadOrStore(table+"/"+op, new(atomic.Int64))
			n.(*atomic.Int64).Add(1)
		}))}, opts...)
	rt, err := kstore.New(d, h.keyspace, opts...)
	if err != nil {
		t.Fatal(err)
	}
	e.rt = rt
	e.users = kstore.MustNewRepo(rt, Users)
	e.todos = kstore.MustNewRepo(rt, Todos)
	e.wallets = kstore.MustNewRepo(rt, Wallets)
	e.hits = kstore.MustNewRepo(rt, Hits)
	e.events = kstore.MustNewRepo(rt, Events)
	e.devices = kstore.MustNewRepo(rt, Devices)
	e.members = kstore.MustNewRepo(rt, Members)
	e.notes = kstore.MustNewRepo(rt, Notes)
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	return e
}

func (e *env) count(key string) int64 {
	n, ok := e.ops.Load(key)
	if !ok {
		return 0
	}
	return n.(*atomic.Int64).Load()
}

// rows counts the rows of table (unqualified) WHERE where, by a raw query.
func (h *harness) rows(t *testing.T, table, where string, args ...any) int {
	t.Helper()
	var n int64
	if err := h.n.Scan(ctx, "SELECT COUNT(*) FROM "+h.ks+"."+table+" WHERE "+where, args, &n); err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return int(n)
}

func uniq(p string) string { return p + "-" + uuid.NewString()[:8] }
