package main

// The migrator on a single node: a scripted history of the tutorial's
// users table, v1 to v4, beside the tutorial's other tables (store.go).
// Skipped without a node, unless KANDRA_REQUIRE_CASSANDRA=1.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gocql "github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
	"github.com/kandra-go/kandra/migrate"
)

// v1: the users table as first shipped.
type migUserV1 struct {
	UserID      uuid.UUID
	Email, Name string
	CreatedAt   time.Time
}

func (u *migUserV1) Describe(s *kandra.Schema[migUserV1]) {
	s.Table("users")
	kandra.GeneratedUUID(s, &u.UserID, kandra.UUIDRandom, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Email, kandra.Lookup("by_email", kandra.LookupBatch))
	kandra.CreatedAt(s, &u.CreatedAt)
}

// v2 adds a field.
type migUserV2 struct {
	UserID                 uuid.UUID
	Email, Name, TicketRef string
	CreatedAt              time.Time
}

func (u *migUserV2) Describe(s *kandra.Schema[migUserV2]) {
	s.Table("users")
	kandra.GeneratedUUID(s, &u.UserID, kandra.UUIDRandom, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Email, kandra.Lookup("by_email", kandra.LookupBatch))
	kandra.CreatedAt(s, &u.CreatedAt)
}

// v3 adds a lookup on the new field, once the table holds rows.
type migUserV3 struct {
	UserID                 uuid.UUID
	Email, Name, TicketRef string
	CreatedAt              time.Time
}

func (u *migUserV3) Describe(s *kandra.Schema[migUserV3]) {
	s.Table("users")
	kandra.GeneratedUUID(s, &u.UserID, kandra.UUIDRandom, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Email, kandra.Lookup("by_email", kandra.LookupBatch))
	kandra.Bind(s, &u.TicketRef, kandra.Lookup("by_ticket_ref", kandra.LookupEventual))
	kandra.CreatedAt(s, &u.CreatedAt)
}

// v4 changes a column's type: impossible in place.
type migUserV4 struct {
	UserID           uuid.UUID
	Email, TicketRef string
	Name             int64
	CreatedAt        time.Time
}

func (u *migUserV4) Describe(s *kandra.Schema[migUserV4]) {
	s.Table("users")
	kandra.GeneratedUUID(s, &u.UserID, kandra.UUIDRandom, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Email, kandra.Lookup("by_email", kandra.LookupBatch))
	kandra.Bind(s, &u.TicketRef, kandra.Lookup("by_ticket_ref", kandra.LookupEventual))
	kandra.CreatedAt(s, &u.CreatedAt)
}

var (
	migUsersV1 = kandra.MustRegister[migUserV1]()
	migUsersV2 = kandra.MustRegister[migUserV2]()
	migUsersV3 = kandra.MustRegister[migUserV3]()
	migUsersV4 = kandra.MustRegister[migUserV4]()
)

const migRows = 10000

func migKeyspace(t *testing.T, name string, users kandra.SchemaSource) *kandra.Keyspace {
	t.Helper()
	ks, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: name, Targets: kandra.Cassandra5,
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"datacenter1": 1})},
		users, Todos, Stats, Preferences)
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

func migSession(t *testing.T) *gocql.Session {
	t.Helper()
	host, port := envOr("KANDRA_CASSANDRA_HOST", "127.0.0.1"), envOr("KANDRA_CASSANDRA_PORT", "9042")
	if c, err := net.DialTimeout("tcp", net.JoinHostPort(host, port), 3*time.Second); err != nil {
		if os.Getenv("KANDRA_REQUIRE_CASSANDRA") == "1" {
			t.Fatalf("real-server test cannot run: no node on %s:%s", host, port)
		}
		t.Skipf("skipping real-server test: no node on %s:%s; start one with scripts/cassandra.sh start", host, port)
	} else {
		_ = c.Close()
	}
	cl := gocql.NewCluster(host)
	cl.Port, _ = strconv.Atoi(port)
	cl.ProtoVersion, cl.DisableInitialHostLookup = 4, true
	cl.Consistency = gocql.LocalQuorum
	cl.Timeout, cl.ConnectTimeout, cl.WriteTimeout = 20*time.Second, 10*time.Second, 20*time.Second
	cl.MaxWaitSchemaAgreement = 60 * time.Second
	cl.NumConns = 4
	s, err := cl.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// stepIDs lists the steps' IDs.
func stepIDs(steps []migrate.Step) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = s.ID
	}
	return out
}

func TestMigrationHistory(t *testing.T) {
	s := migSession(t)
	d := kgocql.New(s)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "todoapp_migrate_" + hex.EncodeToString(b)
	t.Cleanup(func() { _ = s.Query("DROP KEYSPACE IF EXISTS " + name).Exec() })
	start := time.Now()
	opts := func(approve ...string) migrate.ApplyOptions {
		return migrate.ApplyOptions{Owner: "migrate-node-test", LeaseTTL: 15 * time.Second, Approve: approve}
	}
	check := func(ks *kandra.Keyspace, v string) {
		t.Helper()
		if err := migrate.Check(ctx, d, ks); err != nil {
			t.Fatalf("%s: Check after apply: %v", v, err)
		}
	}
	again := func(ks *kandra.Keyspace, v string) {
		t.Helper()
		res, err := migrate.Apply(ctx, d, ks, opts("all"))
		if err != nil || !res.Plan.Empty() || len(res.Applied) != 0 || res.Record != nil {
			t.Fatalf("%s: a second Apply is not a no-op: %+v, %v", v, res, err)
		}
	}

	// v1 on an empty keyspace, interrupted after its first step, then
	// resumed.
	v1 := migKeyspace(t, name, migUsersV1)
	ictx, interrupt := context.WithCancel(ctx)
	o := opts()
	o.OnEvent = func(e migrate.Event) {
		if e.Kind == migrate.EventStepDone {
			interrupt()
		}
	}
	res, err := migrate.Apply(ictx, d, v1, o)
	interrupt()
	if err == nil || !errors.Is(err, context.Canceled) || res == nil || len(res.Applied) != 1 || res.Record == nil {
		t.Fatalf("v1 interrupted: %+v, %v", res, err)
	}
	firstStep := res.Applied[0].ID
	res, err = migrate.Apply(ctx, d, v1, opts())
	if err != nil {
		t.Fatalf("v1 resumed: %v", err)
	}
	if len(res.Applied) == 0 || res.Applied[0].ID == firstStep || len(res.Unapproved) != 0 {
		t.Fatalf("v1 resumed: applied %v, unapproved %v (first run did %s)", stepIDs(res.Applied), stepIDs(res.Unapproved), firstStep)
	}
	check(v1, "v1")
	again(v1, "v1")
	live, err := migrate.Read(ctx, d, v1)
	if err != nil {
		t.Fatal(err)
	}
	for _, own := range []string{migrate.LeaseTable, migrate.HistoryTable, migrate.BackfillTable} {
		if lt := live.Table(own); lt == nil || lt.ID != migrate.TableID(name, own).String() {
			t.Fatalf("the migrator's table %s: %+v, want id %s", own, lt, migrate.TableID(name, own))
		}
	}
	if h, err := migrate.History(ctx, d, v1); err != nil || len(h) != 2 || h[0].Steps[0] != firstStep || h[1].Owner != "migrate-node-test" {
		t.Fatalf("v1 history: %+v, %v", h, err)
	}

	// v2 adds a field: one safe ALTER.
	v2 := migKeyspace(t, name, migUsersV2)
	res, err = migrate.Apply(ctx, d, v2, opts())
	if err != nil || len(res.Applied) != 1 || res.Applied[0].Kind != migrate.StepAddColumn || res.Applied[0].Class != migrate.Safe ||
		!strings.HasPrefix(res.Applied[0].CQL, "ALTER TABLE") {
		t.Fatalf("v2: %+v, %v", res, err)
	}
	check(v2, "v2")
	again(v2, "v2")

	// 10,000 users written by the v2 app; every tenth has no ticket.
	rt2, err := kstore.New(d, v2)
	if err != nil {
		t.Fatal(err)
	}
	users2 := kstore.MustNewRepo(rt2, migUsersV2)
	loadStart := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for w := 0; w < 32; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= migRows {
					return
				}
				u := &migUserV2{Email: fmt.Sprintf("u%05d@example.com", i), Name: "user " + strconv.Itoa(int(i))}
				if i%10 != 0 {
					u.TicketRef = fmt.Sprintf("T-%05d", i)
				}
				if err := users2.Save(ctx, u); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	_ = rt2.Close(ctx)
	load := time.Since(loadStart)

	// v3 adds a lookup: without approval the table is created and the
	// backfill is left out, and stays owed.
	v3 := migKeyspace(t, name, migUsersV3)
	const bf = "backfill:users_by_ticket_ref"
	res, err = migrate.Apply(ctx, d, v3, opts())
	if err != nil || strings.Join(stepIDs(res.Applied), ",") != "create-lookup-table:users_by_ticket_ref" || strings.Join(stepIDs(res.Unapproved), ",") != bf {
		t.Fatalf("v3 unapproved: %+v, %v", res, err)
	}
	if err := migrate.Check(ctx, d, v3); err == nil || !strings.Contains(err.Error(), "users_by_ticket_ref is not backfilled") {
		t.Fatalf("v3 Check before the backfill: %v", err)
	}
	res, err = migrate.Apply(ctx, d, v3, opts())
	if err != nil || len(res.Applied) != 0 || strings.Join(stepIDs(res.Unapproved), ",") != bf || res.Record != nil {
		t.Fatalf("v3 unapproved again: %+v, %v", res, err)
	}
	rt3, err := kstore.New(d, v3)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rt3.Close(context.Background()) }()
	byTicket := kstore.MustLookupOf(kstore.MustNewRepo(rt3, migUsersV3), kandra.MustFieldOf(migUsersV3, func(u *migUserV3) *string { return &u.TicketRef }))
	if _, err := byTicket.Find(ctx, "T-01234"); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatalf("v3 before the backfill: Find = %v, want not found", err)
	}

	// Approved, interrupted after a few ranges, then resumed.
	ictx, interrupt = context.WithCancel(ctx)
	o = opts(bf)
	o.Backfill = migrate.BackfillOptions{Concurrency: 4, Ranges: 16, PageSize: 500}
	var progress atomic.Int64
	o.OnEvent = func(e migrate.Event) {
		if e.Kind == migrate.EventBackfillProgress {
			progress.Add(1)
			if e.Backfill.RangesDone >= 3 {
				interrupt()
			}
		}
	}
	res, err = migrate.Apply(ictx, d, v3, o)
	interrupt()
	if err == nil || len(res.Applied) != 0 {
		t.Fatalf("v3 backfill interrupted: %+v, %v", res, err)
	}
	o.OnEvent = func(migrate.Event) { progress.Add(1) }
	bfStart := time.Now()
	res, err = migrate.Apply(ctx, d, v3, o)
	if err != nil || strings.Join(stepIDs(res.Applied), ",") != bf || len(res.Backfills) != 1 {
		t.Fatalf("v3 backfill: %+v, %v", res, err)
	}
	r := res.Backfills[0]
	bfTime := time.Since(bfStart)
	if !r.Resumed || !r.Verified || r.Valued != migRows*9/10 || r.LookupRows != r.Valued || r.Rows >= migRows || progress.Load() == 0 {
		t.Fatalf("v3 backfill result: %+v (progress events %d)", r, progress.Load())
	}
	check(v3, "v3")
	again(v3, "v3")
	for _, i := range []int{1, 1234, 9999} {
		u, err := byTicket.Find(ctx, fmt.Sprintf("T-%05d", i))
		if err != nil || u.Email != fmt.Sprintf("u%05d@example.com", i) {
			t.Fatalf("v3: Find T-%05d = %+v, %v", i, u, err)
		}
	}

	// v4 changes a column's type: refused with the manual path, nothing
	// changed.
	v4 := migKeyspace(t, name, migUsersV4)
	before, err := migrate.Read(ctx, d, v4)
	if err != nil {
		t.Fatal(err)
	}
	histBefore, _ := migrate.History(ctx, d, v4)
	res, err = migrate.Apply(ctx, d, v4, opts("all"))
	var me *kerrors.MigrationError
	if err == nil || !errors.As(err, &me) || !strings.Contains(err.Error(), "change-type:users.name") || !strings.Contains(err.Error(), "manual path") ||
		(res != nil && len(res.Applied) != 0) {
		t.Fatalf("v4: %+v, %v", res, err)
	}
	after, err := migrate.Read(ctx, d, v4)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after) {
		t.Fatal("v4: the refused Apply changed the live schema")
	}
	if h, _ := migrate.History(ctx, d, v4); len(h) != len(histBefore) {
		t.Fatalf("v4: history %d records, was %d", len(h), len(histBefore))
	}
	if err := migrate.Check(ctx, d, v4); err == nil || !strings.Contains(err.Error(), "change-type:users.name") {
		t.Fatalf("v4: Check = %v, want the type change", err)
	}
	check(v3, "v3 after the refused v4")

	h, _ := migrate.History(ctx, d, v4)
	t.Logf("history: %d records; load %d users in %s; backfill resumed %d rows in %s (%.0f rows/s), verified %d lookup rows",
		len(h), migRows, load.Round(time.Millisecond), r.Rows, bfTime.Round(time.Millisecond), float64(r.Rows)/bfTime.Seconds(), r.LookupRows)
	fmt.Printf("real-server: migration versions=4 ok=true users=%d backfilled=%d history=%d time=%s\n", migRows, r.LookupRows, len(h), time.Since(start).Round(time.Second))
}
