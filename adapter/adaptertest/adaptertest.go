// Package adaptertest is the conformance suite of an adapter.Driver, as
// testing/fstest.TestFS is of an fs.FS: written once against the
// interface, it proves an implementation on a real Cassandra node. An
// adapter module's node test opens sessions on the node and calls [Run]
// with a [Node]; [RunRetries] and [RunAuth] prove its retries and its
// authenticator on nodes set up for them.
//
// Run runs every scenario of the runtime (package kstore) and of the
// migrator (package migrate) as subtests: the runtime's on a keyspace of
// their own (Targets kandra.Cassandra5, NetworkTopologyStrategy
// datacenter1: 1), created first and dropped at the end, the migrator's
// on scratch keyspaces each scenario creates and drops. Each suite
// prints its "real-server:" summary lines on standard output.
//
// Importing the package registers nothing: its entity types are
// registered with kandra when a suite first runs.
package adaptertest

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

// Node is an adapter's way onto a real node.
type Node struct {
	// Name goes into the keyspace names and the summary lines ("gocql",
	// "gocqlv2"): lower-case letters, digits and underscores, at most 16
	// characters.
	Name string
	// Open opens a new session on the node (skipping or failing t when
	// there is none) and returns the adapter's driver on it, and a
	// function that closes the session; t's cleanup closes it too. The
	// runtime's scenarios share one session; each migrator scenario opens
	// its own (one closes it to see a failed wait for agreement).
	Open func(t *testing.T) (d adapter.Driver, closeSession func())
	// Exec runs one raw CQL statement (DDL and fixtures) on a session of
	// the node, independently of kandra. Its arguments are plain Go
	// values: strings (also for uuid columns), ints, bools, nil.
	Exec func(ctx context.Context, cql string, args ...any) error
	// Scan runs a raw SELECT the same way and scans its first row into
	// dest (*int, *int64, *string). A missing row is an error.
	Scan func(ctx context.Context, cql string, args []any, dest ...any) error
}

// The entities of the tutorial service, plus two for the proofs at
// scale.

// user has a BATCH email lookup and an EVENTUAL ticketRef lookup.
type user struct {
	UserID      uuid.UUID
	Email       string
	TicketRef   string
	DisplayName string
	Bio         string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Describe implements kandra's description.
func (u *user) Describe(s *kandra.Schema[user]) {
	s.Table("users")
	kandra.GeneratedUUID(s, &u.UserID, kandra.UUIDRandom, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Email, kandra.Lookup("by_email", kandra.LookupBatch))
	kandra.Bind(s, &u.TicketRef, kandra.Lookup("by_ticket_ref", kandra.LookupEventual))
	kandra.CreatedAt(s, &u.CreatedAt)
	kandra.UpdatedAt(s, &u.UpdatedAt)
	s.Validate(kandra.ValidatorFunc[user](func(u *user) []kandra.FieldError {
		if strings.HasPrefix(u.DisplayName, " ") {
			return []kandra.FieldError{{Field: "display_name", Message: "must not start with a space"}}
		}
		return nil
	}))
}

// todo is soft-deleted and listed newest first.
type todo struct {
	OwnerID   uuid.UUID
	TodoID    uuid.UUID
	Title     string
	Deleted   bool
	CreatedAt time.Time
}

// Describe implements kandra's description.
func (t *todo) Describe(s *kandra.Schema[todo]) {
	s.Table("todos", kandra.SoftDelete(3600*time.Second, &t.Deleted))
	kandra.Bind(s, &t.OwnerID, kandra.PartitionKey(0))
	kandra.GeneratedUUID(s, &t.TodoID, kandra.UUIDTimeOrdered, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.CreatedAt(s, &t.CreatedAt)
}

// wallet is versioned, with a BATCH owner lookup.
type wallet struct {
	WalletID string
	Owner    string
	Balance  int64
	Version  int64
}

// Describe implements kandra's description.
func (w *wallet) Describe(s *kandra.Schema[wallet]) {
	s.Table("wallets")
	kandra.Bind(s, &w.WalletID, kandra.PartitionKey(0))
	kandra.Bind(s, &w.Owner, kandra.Lookup("by_owner", kandra.LookupBatch))
	kandra.Version(s, &w.Version)
}

// pageHits is a counter table.
type pageHits struct {
	Page string
	Hits int64
}

// Describe implements kandra's description.
func (h *pageHits) Describe(s *kandra.Schema[pageHits]) {
	s.Table("page_hits")
	kandra.Bind(s, &h.Page, kandra.PartitionKey(0))
	kandra.Counter(s, &h.Hits)
}

// event is one row of a stream, keyed by a generated time-ordered id.
type event struct {
	Stream  string
	EventID uuid.UUID
	Seq     int
}

// Describe implements kandra's description.
func (e *event) Describe(s *kandra.Schema[event]) {
	s.Table("events")
	kandra.Bind(s, &e.Stream, kandra.PartitionKey(0))
	kandra.GeneratedUUID(s, &e.EventID, kandra.UUIDTimeOrdered, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &e.Seq)
}

// device has an EVENTUAL lookup whose table one scenario drops.
type device struct {
	DeviceID string
	Serial   string
}

// Describe implements kandra's description.
func (d *device) Describe(s *kandra.Schema[device]) {
	s.Table("devices")
	kandra.Bind(s, &d.DeviceID, kandra.PartitionKey(0))
	kandra.Bind(s, &d.Serial, kandra.Lookup("by_serial", kandra.LookupEventual))
}

// member has a unique handle and a unique, Sensitive recovery code.
type member struct {
	MemberID uuid.UUID
	Handle   string
	Recovery string
	Name     string
}

// Describe implements kandra's description.
func (m *member) Describe(s *kandra.Schema[member]) {
	s.Table("members")
	kandra.GeneratedUUID(s, &m.MemberID, kandra.UUIDRandom, kandra.PartitionKey(0))
	kandra.Bind(s, &m.Handle, kandra.Lookup("by_handle", kandra.LookupUnique))
	kandra.Bind(s, &m.Recovery, kandra.Lookup("by_recovery", kandra.LookupUnique), kandra.Sensitive())
}

// note is versioned and soft-deleted with a TTL of 2 s, so that a
// scenario sees a soft-deleted row expire.
type note struct {
	NoteID  string
	Body    string
	Deleted bool
	Version int64
}

// Describe implements kandra's description.
func (n *note) Describe(s *kandra.Schema[note]) {
	s.Table("notes", kandra.SoftDelete(2*time.Second, &n.Deleted))
	kandra.Bind(s, &n.NoteID, kandra.PartitionKey(0))
	kandra.Version(s, &n.Version)
}

// Tables and field handles; register sets them (and those of the other
// files).
var (
	usersTable   *kandra.Table[user]
	todosTable   *kandra.Table[todo]
	walletsTable *kandra.Table[wallet]
	hitsTable    *kandra.Table[pageHits]
	eventsTable  *kandra.Table[event]
	devicesTable *kandra.Table[device]
	membersTable *kandra.Table[member]
	notesTable   *kandra.Table[note]

	userEmail    kandra.Field[user, string]
	userTicket   kandra.Field[user, string]
	walletOwn    kandra.Field[wallet, string]
	hitsField    kandra.Field[pageHits, int64]
	deviceSerial kandra.Field[device, string]
	todoID       kandra.Field[todo, uuid.UUID]
	memberHandle kandra.Field[member, string]
)

// runtimeKeyspace is the runtime suite's keyspace, named name.
func runtimeKeyspace(name string) (*kandra.Keyspace, error) {
	return kandra.NewKeyspace(kandra.KeyspaceSpec{
		Name:        name,
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"datacenter1": 1}),
		Targets:     kandra.Cassandra5,
	}, usersTable, todosTable, walletsTable, hitsTable, eventsTable, devicesTable, membersTable, notesTable, threadsTable, threadHitsTable, readingsTable, ticketsTable, listingsTable, embeddingsTable, customersTable, routesTable,
		bookingsTable, shiftsTable, sittingsTable, staysTable, diariesTable, talliesTable, cardsTable, shardRowsTable, shelvedTable, bucketedTable, stockedTable, slicedTable)
}

// harness is one keyspace on one node, and the adapter's driver on a
// session of it.
type harness struct {
	n        Node
	d        adapter.Driver
	ks       string // keyspace.Name()
	keyspace *kandra.Keyspace
}

var ctx = context.Background()

// Run proves the adapter n opens: every scenario of the runtime, as
// subtests of Runtime, then every scenario of the migrator, as subtests
// of Migrator. Runtime opens one session, creates its keyspace, runs the
// scenarios through the session's driver, prints "real-server: runtime
// adapter=<Name> scenarios=<n> ok=<passed>" and drops the keyspace;
// Migrator's scenarios print their own summary lines ("real-server:
// static-migrate adapter=<Name> ok=<bool>" and the like).
func Run(t *testing.T, n Node) {
	register()
	t.Run("Runtime", func(t *testing.T) { runRuntime(t, n) })
	t.Run("Migrator", func(t *testing.T) { runMigrator(t, n) })
}

// runRuntime runs the runtime's scenarios on a keyspace of their own.
func runRuntime(t *testing.T, n Node) {
	d, _ := n.Open(t)
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	k, err := runtimeKeyspace("krt_" + n.Name + "_" + hex.EncodeToString(b))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range k.Statements() {
		if err := n.Exec(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	t.Cleanup(func() { _ = n.Exec(ctx, "DROP KEYSPACE IF EXISTS "+k.Name()) })
	h := &harness{n: n, d: d, ks: k.Name(), keyspace: k}
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
	{"NamedSpecialTypesRoundTrip", testNamedSpecialTypes},
	{"SetsAndMapsInServerOrder", testSortedCollections},
	{"VersionAddedToTableWithRows", testVersionAdded},
	{"PatchInPlace", testPatchInPlace},
	{"PatchNeverRevives", testPatchNeverRevives},
	{"PatchConditions", testPatchConditions},
	{"PatchPlainTable", testPatchPlainTable},
	{"DeletesBeyondOneRow", testDeletesBeyondOneRow},
	{"UpdateWritesWhatChanged", testUpdateWritesWhatChanged},
	{"PartialWritesMatchTheModel", testPartialModel},
	{"PatchUDTField", testPatchUDTField},
	{"UnitsAcrossTables", testUnitsAcrossTables},
	{"UnitFence", testUnitFence},
	{"UnitsMatchTheModel", testUnitsModel},
	{"WholeTableReads", testWholeTableReads},
	{"MergedBuckets", testMergedBuckets},
	{"WriteTimesAndTTLs", testWriteTimesAndTTLs},
	{"PredicatesAndFilteredNearest", testPredicatesAndFilteredNearest},
	{"TupleSlices", testTupleSlices},
	{"ByteArraysAsBlobs", testByteArrays},
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
	users   *kstore.Repo[user]
	todos   *kstore.Repo[todo]
	wallets *kstore.Repo[wallet]
	hits    *kstore.Repo[pageHits]
	events  *kstore.Repo[event]
	devices *kstore.Repo[device]
	members *kstore.Repo[member]
	notes   *kstore.Repo[note]
	fails   *failures
	ops     *sync.Map
	h       *harness
}

func (h *harness) env(t *testing.T, opts ...kstore.Option) *env {
	return h.envOn(t, h.d, opts...)
}

func (h *harness) envOn(t *testing.T, d adapter.Driver, opts ...kstore.Option) *env {
	e := &env{fails: &failures{}, ops: &sync.Map{}, h: h}
	opts = append([]kstore.Option{kstore.WithEventListener(kandra.EventListenerFunc(e.fails.OnEventualWriteFailed)),
		kstore.WithObserver(opsObserver(func(ob *kandra.Observation) {
			key := ob.Table + "/" + ob.Operation
			if ob.Background && ob.Err != nil {
				key = ob.Table + "/failed in the background"
			}
			n, _ := e.ops.LoadOrStore(key, new(atomic.Int64))
			n.(*atomic.Int64).Add(1)
		}))}, opts...)
	rt, err := kstore.New(d, h.keyspace, opts...)
	if err != nil {
		t.Fatal(err)
	}
	e.rt = rt
	e.users = kstore.MustNewRepo(rt, usersTable)
	e.todos = kstore.MustNewRepo(rt, todosTable)
	e.wallets = kstore.MustNewRepo(rt, walletsTable)
	e.hits = kstore.MustNewRepo(rt, hitsTable)
	e.events = kstore.MustNewRepo(rt, eventsTable)
	e.devices = kstore.MustNewRepo(rt, devicesTable)
	e.members = kstore.MustNewRepo(rt, membersTable)
	e.notes = kstore.MustNewRepo(rt, notesTable)
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	return e
}

// opsObserver is an Observer that hands each ended Observation to a
// function.
type opsObserver func(*kandra.Observation)

func (opsObserver) Start(ctx context.Context, _ *kandra.Observation) context.Context { return ctx }
func (o opsObserver) End(_ context.Context, ob *kandra.Observation)                  { o(ob) }

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

func ptr[T any](v T) *T { return &v }
