package kstore

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
)

// vRow has lookups on the Go types whose values the value rules check
// or change (docs/types.md, "Values at the edges").
type vRow struct {
	ID   int64
	Seen time.Time
	Addr netip.Addr
	Tod  time.Duration
	Run  uuid.UUID
}

func (r *vRow) Describe(s *kandra.Schema[vRow]) {
	s.Table("vrows")
	kandra.Bind(s, &r.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &r.Seen, kandra.Lookup("by_seen", kandra.LookupBatch))
	kandra.Bind(s, &r.Addr, kandra.Lookup("by_addr", kandra.LookupEventual))
	kandra.Bind(s, &r.Tod, kandra.AsType(kandra.CQLTime))
	kandra.Bind(s, &r.Run, kandra.AsType(kandra.CQLTimeUUID), kandra.Lookup("by_run", kandra.LookupBatch))
}

var vRows = kandra.MustRegister[vRow]()

// valuesDriver records every statement and the values bound to it.
type valuesDriver struct {
	noMigrator
	mu  sync.Mutex
	cql []string
	val [][]any
}

func (d *valuesDriver) note(q *adapter.Query) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cql = append(d.cql, q.Statement.CQL())
	d.val = append(d.val, append([]any(nil), q.Values...))
}

func (d *valuesDriver) Exec(_ context.Context, q *adapter.Query) (bool, error) {
	d.note(q)
	return true, nil
}

func (d *valuesDriver) Query(_ context.Context, q *adapter.Query) (adapter.Rows, error) {
	d.note(q)
	return emptyRows{}, nil
}

func (d *valuesDriver) Batch(_ context.Context, b *adapter.Batch) (bool, error) {
	for _, e := range b.Entries {
		d.note(e)
	}
	return true, nil
}

func (d *valuesDriver) sent() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.cql...)
}

func newValues(t *testing.T) (*valuesDriver, *Repo[vRow]) {
	d := &valuesDriver{}
	rt, err := New(d, testKeyspace)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	return d, MustNewRepo(rt, vRows)
}

func TestValueOutOfRangeSendsNothing(t *testing.T) {
	d, repo := newValues(t)
	ctx := context.Background()
	for name, r := range map[string]*vRow{
		"tod":  {ID: 1, Tod: 25 * time.Hour},
		"seen": {ID: 1, Seen: time.Date(300_000_000, 1, 1, 0, 0, 0, 0, time.UTC)},
		"addr": {ID: 1, Addr: netip.MustParseAddr("fe80::1%eth0")},
	} {
		was := *r
		for op, call := range map[string]func() error{
			"Save":            func() error { return repo.Save(ctx, r) },
			"SaveIfNotExists": func() error { _, err := repo.SaveIfNotExists(ctx, r); return err },
			"Update":          func() error { old := &vRow{ID: 1}; return repo.Update(ctx, old, r) },
		} {
			err := call()
			var ve *kerrors.ValueError
			if !errors.As(err, &ve) || ve.Column != name || ve.Table != "vrows" {
				t.Errorf("%s of a bad %s: %v, want a *ValueError naming the column", op, name, err)
			}
			if *r != was {
				t.Errorf("%s of a bad %s changed the entity", op, name)
			}
		}
	}
	if s := d.sent(); len(s) != 0 {
		t.Fatalf("sent %q", s)
	}
	if _, err := MustLookupOf(repo, kandra.MustFieldOf(vRows, func(r *vRow) *netip.Addr { return &r.Addr })).
		Find(ctx, netip.MustParseAddr("fe80::1%eth0")); !errors.Is(err, kerrors.ErrValue) {
		t.Fatalf("Find of an address with a zone: %v", err)
	}
	if s := d.sent(); len(s) != 0 {
		t.Fatalf("sent %q", s)
	}
}

// TestUpdateChecksWhatItWrites: Update checks the values it sends: a
// changed one out of range is refused (above), one that did not change is
// not written, so not refused; under a TTL every value is written and
// checked.
func TestUpdateChecksWhatItWrites(t *testing.T) {
	d, repo := newValues(t)
	ctx := context.Background()
	old := &vRow{ID: 1, Tod: 25 * time.Hour}
	nw := *old
	nw.Seen = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := repo.Update(ctx, old, &nw); err != nil {
		t.Fatalf("Update of a row whose unchanged tod is out of range: %v", err)
	}
	sent := d.sent()
	if len(sent) == 0 || !strings.Contains(sent[0], "seen") || strings.Contains(sent[0], "tod") {
		t.Fatalf("sent %q, want the changed seen alone", sent)
	}
	nw2 := nw
	nw2.Seen = nw.Seen.Add(time.Hour)
	err := repo.Update(ctx, &nw, &nw2, TTL(time.Hour))
	var ve *kerrors.ValueError
	if !errors.As(err, &ve) || ve.Column != "tod" {
		t.Fatalf("Update under a TTL of a row whose tod is out of range: %v, want a *ValueError naming tod", err)
	}
	if got := d.sent(); len(got) != len(sent) {
		t.Fatalf("the refused Update sent %q", got[len(sent):])
	}
}

func TestZeroValuesInLookups(t *testing.T) {
	d, repo := newValues(t)
	ctx := context.Background()
	if err := repo.Save(ctx, &vRow{ID: 1}); err != nil {
		t.Fatal(err)
	}
	_ = repo.rt.Close(ctx) // the EVENTUAL writes are done
	sent := strings.Join(d.sent(), "\n")
	// The zero time.Time is an instant like any other: it has its row.
	if !strings.Contains(sent, "INSERT INTO ks.vrows_by_seen") {
		t.Errorf("no lookup row for the zero time:\n%s", sent)
	}
	// The zero netip.Addr, and the zero UUID in a TIMEUUID, are null: no
	// row.
	if strings.Contains(sent, "vrows_by_addr") || strings.Contains(sent, "vrows_by_run") {
		t.Errorf("a lookup row for a null value:\n%s", sent)
	}
}

func TestFindComparesAsStored(t *testing.T) {
	d, repo := newValues(t)
	seen := MustLookupOf(repo, kandra.MustFieldOf(vRows, func(r *vRow) *time.Time { return &r.Seen }))
	at := time.Date(1969, 12, 31, 12, 0, 0, 123456789, time.FixedZone("z", 3600))
	if _, err := seen.Find(context.Background(), at); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatal(err)
	}
	want := time.Date(1969, 12, 31, 11, 0, 0, 123000000, time.UTC)
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.val) != 1 || len(d.val[0]) == 0 {
		t.Fatalf("sent %v", d.val)
	}
	got, ok := d.val[0][0].(*time.Time)
	if !ok || *got != want {
		t.Fatalf("Find bound %#v, want the stored form %v", d.val[0][0], want)
	}
}

// nullRow has a field of each type nullAt reads without reflect.
type nullRow struct {
	ID     uuid.UUID
	Stamp  uuid.UUID
	PStamp *uuid.UUID
	Ref    *uuid.UUID
	Note   *string
	Hits   *int64
	Rank   *int32
	N      *int
	Flag   *bool
	Score  *float64
	Seen   *time.Time
}

func (r *nullRow) Describe(s *kandra.Schema[nullRow]) {
	s.Table("null_rows")
	kandra.Bind(s, &r.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &r.Stamp, kandra.AsType(kandra.CQLTimeUUID))
	kandra.Bind(s, &r.PStamp, kandra.AsType(kandra.CQLTimeUUID))
}

// TestNullAt: what an OmitNulls write leaves unset, read without reflect
// for the common types, is what the general reading says: nil pointers,
// and the zero UUID in a TIMEUUID only.
func TestNullAt(t *testing.T) {
	ts := kandra.MustRegister[nullRow]().Schema()
	zero, v1 := uuid.UUID{}, uuid.Must(uuid.NewUUID())
	s, i64, i32, n, b, f, at := "", int64(0), int32(0), 0, false, 0.0, time.Time{}
	rows := []nullRow{
		{},
		{ID: v1, Stamp: v1, PStamp: &v1, Ref: &v1, Note: &s, Hits: &i64, Rank: &i32, N: &n, Flag: &b, Score: &f, Seen: &at},
		{PStamp: &zero, Ref: &zero},
	}
	want := []string{
		"stamp p_stamp ref note hits rank n flag score seen", // the zero ID is a UUID, sent as it is
		"",
		"stamp p_stamp note hits rank n flag score seen",
	}
	for i := range rows {
		var null []string
		for _, c := range ts.Columns() {
			p, _ := c.Pointer(&rows[i])
			got := nullAt(c, p)
			if got != nullAtReflect(c, p) {
				t.Errorf("row %d, %s: nullAt %v, the general reading not", i, c.Name(), got)
			}
			if got {
				null = append(null, c.Name())
			}
		}
		if strings.Join(null, " ") != want[i] {
			t.Errorf("row %d: null %q, want %q", i, null, want[i])
		}
	}
}
