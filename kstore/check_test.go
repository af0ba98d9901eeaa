package kstore

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
)

// fNote has a text partition key of one column, a clustering column, a
// Sensitive key column and a counter-free body: the key checks' entity.
type fNote struct {
	Owner  string
	At     time.Time
	Secret string
	Body   []byte
}

func (n *fNote) Describe(s *kandra.Schema[fNote]) {
	s.Table("fnotes")
	kandra.Bind(s, &n.Owner, kandra.PartitionKey(0))
	kandra.Bind(s, &n.At, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &n.Secret, kandra.ClusteringKey(1, kandra.ClusteringAsc), kandra.Sensitive())
	kandra.Bind(s, &n.Body)
}

var fNotes = kandra.MustRegister[fNote]()

type fHits struct {
	Page string
	N    int64
}

func (h *fHits) Describe(s *kandra.Schema[fHits]) {
	s.Table("fhits")
	kandra.Bind(s, &h.Page, kandra.PartitionKey(0))
	kandra.Counter(s, &h.N)
}

var fHitsT = kandra.MustRegister[fHits]()

var (
	noteAt     = kandra.MustFieldOf(fNotes, func(n *fNote) *time.Time { return &n.At })
	noteSecret = kandra.MustFieldOf(fNotes, func(n *fNote) *string { return &n.Secret })
	hitsN      = kandra.MustFieldOf(fHitsT, func(h *fHits) *int64 { return &h.N })
)

// TestArgumentsRefusedBeforeSending: every refused argument is an
// *kerrors.ArgumentError (matching ErrArgument and ErrKandra) that names the
// call and the argument, and nothing reaches the driver.
func TestArgumentsRefusedBeforeSending(t *testing.T) {
	f, users, rt, _ := newFake(t)
	notes := MustNewRepo(rt, fNotes)
	hits := MustCounterOf(MustNewRepo(rt, fHitsT), hitsN)
	ctx := context.Background()
	u := func() *fUser { return &fUser{ID: uuid.New(), Email: "a@b"} }
	note := &fNote{Owner: "o", At: clock, Secret: "s"}
	var nilCtx context.Context
	var nilUser *fUser
	tests := []struct {
		name, arg string
		call      func() error
	}{
		{"Timestamp in the year 300000", "Timestamp", func() error { return users.Save(ctx, u(), Timestamp(time.Date(300000, 1, 1, 0, 0, 0, 0, time.UTC))) }},
		{"Timestamp zero", "Timestamp", func() error { return users.Save(ctx, u(), Timestamp(time.Time{})) }},
		{"Timestamp before the epoch", "Timestamp", func() error { return users.Save(ctx, u(), Timestamp(time.UnixMicro(-1))) }},
		{"Timestamp two minutes ahead", "Timestamp", func() error { return users.Save(ctx, u(), Timestamp(clock.Add(2*time.Minute))) }},
		{"Timestamp a year ahead on HardDelete", "Timestamp", func() error { return users.HardDelete(ctx, u(), Timestamp(clock.AddDate(1, 0, 0))) }},
		{"TTL negative", "TTL", func() error { return users.Save(ctx, u(), TTL(-time.Second)) }},
		{"TTL not whole seconds", "TTL", func() error { return users.Save(ctx, u(), TTL(1500*time.Millisecond)) }},
		{"TTL past 2038", "TTL", func() error {
			return users.Save(ctx, u(), TTL(kandra.MaxWriteTTL(kandra.Cassandra5, clock)+time.Second))
		}},
		{"TTL on SaveIfNotExists", "TTL", func() error { _, err := users.SaveIfNotExists(ctx, u(), TTL(-5*time.Second)); return err }},
		{"TTL on Update", "TTL", func() error { a := u(); b := *a; return users.Update(ctx, a, &b, TTL(-5*time.Second)) }},
		{"SERIAL for a write", "Consistency", func() error { return users.Save(ctx, u(), Consistency(kandra.ConsistencySerial)) }},
		{"ANY for a read", "Consistency", func() error { _, err := users.Get(ctx, u(), Consistency(kandra.ConsistencyAny)); return err }},
		{"ANY for a counter", "Consistency", func() error { return hits.Increment(ctx, &fHits{Page: "p"}, 1, Consistency(kandra.ConsistencyAny)) }},
		{"invalid consistency", "Consistency", func() error { return users.Save(ctx, u(), Consistency(99)) }},
		{"Decrement MinInt64", "delta", func() error { return hits.Decrement(ctx, &fHits{Page: "p"}, math.MinInt64) }},
		{"counter empty key", "field Page", func() error { return hits.Increment(ctx, &fHits{}, 1) }},
		{"PageSize 0", "PageSize", func() error { return notes.List(ctx, note, PageSize(0)).Err() }},
		{"PageSize 2^31", "PageSize", func() error { return notes.List(ctx, note, PageSize(1<<31)).Err() }},
		{"PageSize 2^32+2", "PageSize", func() error { return notes.List(ctx, note, PageSize(1<<32+2)).Err() }},
		{"From on the second clustering column", "From", func() error { return notes.List(ctx, note, From(noteSecret, "a", true)).Err() }},
		{"To on a table without clustering", "To", func() error {
			return users.List(ctx, u(), To(kandra.MustFieldOf(fUsers, func(u *fUser) *string { return &u.Bio }), "x", true)).Err()
		}},
		{"empty partition key in Save", "field Owner", func() error { return notes.Save(ctx, &fNote{At: clock}) }},
		{"empty partition key in Get", "field Owner", func() error { _, err := notes.Get(ctx, &fNote{At: clock}); return err }},
		{"empty partition key in List", "field Owner", func() error { return notes.List(ctx, &fNote{}).Err() }},
		{"empty partition key in HardDelete", "field Owner", func() error { return notes.HardDelete(ctx, &fNote{At: clock}) }},
		{"nil context", "ctx", func() error { return users.Save(nilCtx, u()) }},
		{"nil context in Get", "ctx", func() error { _, err := users.Get(nilCtx, u()); return err }},
		{"nil entity in Save", "entity", func() error { return users.Save(ctx, nil) }},
		{"nil entity in SaveIfNotExists", "entity", func() error { _, err := users.SaveIfNotExists(ctx, nil); return err }},
		{"nil old in Update", "old", func() error { return users.Update(ctx, nilUser, u()) }},
		{"nil new in Update", "new", func() error { return users.Update(ctx, u(), nil) }},
		{"nil entity in Delete", "entity", func() error { return users.Delete(ctx, nil) }},
		{"nil key in Get", "key", func() error { _, err := users.Get(ctx, nil); return err }},
		{"nil partition in List", "partition", func() error { return users.List(ctx, nil).Err() }},
		{"Update with one pointer", "old, new", func() error { a := u(); return users.Update(ctx, a, a) }},
		{"Update changing the key", "field ID", func() error { a := u(); b := *a; b.ID = uuid.New(); return users.Update(ctx, a, &b) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(f.sent())
			err := tt.call()
			var ae *kerrors.ArgumentError
			if !errors.As(err, &ae) || !errors.Is(err, kerrors.ErrArgument) || !errors.Is(err, kerrors.ErrKandra) {
				t.Fatalf("err = %v, want an *kerrors.ArgumentError", err)
			}
			if ae.Arg != tt.arg {
				t.Errorf("Arg = %q, want %q (%v)", ae.Arg, tt.arg, err)
			}
			if !strings.Contains(ae.Op, " on ") {
				t.Errorf("Op %q names no table", ae.Op)
			}
			if n := len(f.sent()) - before; n != 0 {
				t.Errorf("%d statements sent: %+v", n, f.sent()[before:])
			}
		})
	}
}

// TestArgumentsAccepted: the edges of each range are accepted.
func TestArgumentsAccepted(t *testing.T) {
	f, users, rt, _ := newFakeIn(t, keyspaceOf("ks", kandra.Cassandra5Latest))
	notes := MustNewRepo(rt, fNotes)
	hits := MustCounterOf(MustNewRepo(rt, fHitsT), hitsN)
	ctx := context.Background()
	u := func() *fUser { return &fUser{ID: uuid.New()} }
	for name, err := range map[string]error{
		"Timestamp now":                    users.ForceSave(ctx, u(), Timestamp(clock)),
		"Timestamp at the epoch":           users.ForceSave(ctx, u(), Timestamp(time.Unix(0, 0))),
		"Timestamp a minute ahead":         users.ForceSave(ctx, u(), Timestamp(clock.Add(time.Minute))),
		"TTL 0":                            users.Save(ctx, u(), TTL(0)),
		"TTL MaxTTL off Cassandra5":        users.Save(ctx, u(), TTL(kandra.MaxTTL)),
		"Decrement MaxInt64":               hits.Decrement(ctx, &fHits{Page: "p"}, math.MaxInt64),
		"PageSize MaxPageSize":             notes.List(ctx, &fNote{Owner: "o"}, PageSize(MaxPageSize)).Err(),
		"From the first clustering column": notes.List(ctx, &fNote{Owner: "o"}, From(noteAt, clock, true), To(noteAt, clock, false)).Err(),
		"empty clustering text":            notes.Save(ctx, &fNote{Owner: "o", At: clock}),
	} {
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := users.Save(ctx, u(), TTL(kandra.MaxTTL+time.Second)); !errors.Is(err, kerrors.ErrArgument) {
		t.Errorf("TTL over MaxTTL: %v", err)
	}
	if len(f.sent()) == 0 {
		t.Fatal("nothing sent")
	}
}

// TestNotFoundNamesTableAndKey: a miss is an *kerrors.NotFoundError naming
// the table and the key (or the lookup and the value), Sensitive values
// redacted, matching kerrors.ErrNotFound and ErrKandra.
func TestNotFoundNamesTableAndKey(t *testing.T) {
	_, users, rt, _ := newFake(t)
	notes := MustNewRepo(rt, fNotes)
	ctx := context.Background()
	id := uuid.MustParse("00000000-0000-4000-8000-000000000001")
	_, err := users.Get(ctx, &fUser{ID: id})
	var nf *kerrors.NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, kerrors.ErrNotFound) || !errors.Is(err, kerrors.ErrKandra) || nf.Table != "fusers" || nf.Key != id {
		t.Fatalf("Get: %v", err)
	}
	_, err = notes.Get(ctx, &fNote{Owner: "alice", At: clock, Secret: "hunter2"})
	if !errors.As(err, &nf) || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "alice") || !strings.Contains(err.Error(), redacted) {
		t.Fatalf("Sensitive key: %v", err)
	}
	l := MustLookupOf(users, kandra.MustFieldOf(fUsers, func(u *fUser) *string { return &u.Email }))
	_, err = l.Find(ctx, "x@y")
	if !errors.As(err, &nf) || nf.Lookup != "fusers_by_email" || nf.Value != "x@y" || !errors.Is(err, kerrors.ErrKandra) {
		t.Fatalf("Find: %v", err)
	}
}

// pagingFake answers every SELECT with no rows and a page state.
type pagingFake struct{ fake }

type pagedRows struct{}

func (pagedRows) Next([]any) bool   { return false }
func (pagedRows) PageState() []byte { return []byte{1, 2, 3} }
func (pagedRows) Close() error      { return nil }

func (f *pagingFake) Query(ctx context.Context, q *adapter.Query) (adapter.Rows, error) {
	f.add(sent{cql: q.Statement.CQL()})
	return pagedRows{}, nil
}

// TestCursorOnlyResumesItsQuery: a cursor resumes the List that made it
// (also through String and ParseCursor) and is refused by any other.
func TestCursorOnlyResumesItsQuery(t *testing.T) {
	f := &pagingFake{}
	rt, err := New(f, testKeyspace, WithClock(func() time.Time { return clock }))
	if err != nil {
		t.Fatal(err)
	}
	notes := MustNewRepo(rt, fNotes)
	ctx := context.Background()
	a := &fNote{Owner: "a"}
	it := notes.List(ctx, a, From(noteAt, clock, true))
	if it.Err() != nil || it.Cursor().IsZero() {
		t.Fatalf("%v %v", it.Err(), it.Cursor())
	}
	c, err := ParseCursor(it.Cursor().String())
	if err != nil {
		t.Fatal(err)
	}
	if err := notes.List(ctx, &fNote{Owner: "a", Body: []byte("ignored")}, From(noteAt, clock, true), After(c)).Err(); err != nil {
		t.Fatalf("same query: %v", err)
	}
	for name, opts := range map[string][]ListOption{
		"other partition": {From(noteAt, clock, true), After(c)},
		"other bound":     {From(noteAt, clock.Add(time.Second), true), After(c)},
		"no bound":        {After(c)},
		"reversed":        {From(noteAt, clock, true), Reversed(), After(c)},
	} {
		p := a
		if name == "other partition" {
			p = &fNote{Owner: "b"}
		}
		if err := notes.List(ctx, p, opts...).Err(); !errors.Is(err, kerrors.ErrArgument) {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, s := range []string{"AQID", "!!"} {
		if _, err := ParseCursor(s); !errors.Is(err, kerrors.ErrArgument) {
			t.Errorf("ParseCursor(%q) = %v", s, err)
		}
	}
	if c, err := ParseCursor(""); err != nil || !c.IsZero() {
		t.Errorf("ParseCursor(\"\") = %v, %v", c, err)
	}
}

// TestUpdateKeepsNewOnConflict: a refused Update leaves new as it was.
func TestUpdateKeepsNewOnConflict(t *testing.T) {
	f, users, _, _ := newFake(t)
	f.applied = false
	old := &fUser{ID: uuid.New(), Email: "a", Version: 3}
	nw := *old
	nw.Email = "b"
	want := nw
	if err := users.Update(context.Background(), old, &nw); !errors.Is(err, kerrors.ErrOptimisticLock) {
		t.Fatal(err)
	}
	if nw != want {
		t.Fatalf("new changed: %+v, was %+v", nw, want)
	}
}

// TestSaveIfNotExistsBatchCheckedFirst: lookup rows that cannot follow the
// LWT make SaveIfNotExists fail before the LWT is sent.
func TestSaveIfNotExistsBatchCheckedFirst(t *testing.T) {
	f, users, _, _ := newFake(t)
	_, err := users.SaveIfNotExists(context.Background(), &fUser{Email: strings.Repeat("e", 60000)})
	if !errors.Is(err, kerrors.ErrBatchTooLarge) || len(f.sent()) != 0 {
		t.Fatalf("%v, sent %+v", err, f.sent())
	}
}

// blockingFake blocks every statement until release is closed, and
// fails the test if a statement arrives after closed is set.
type blockingFake struct {
	noMigrator
	fake
	entered chan struct{}
	release chan struct{}
	once    sync.Once
	closed  atomic.Bool
	late    atomic.Int32
}

func (f *blockingFake) wait() {
	if f.closed.Load() {
		f.late.Add(1)
	}
	f.once.Do(func() { close(f.entered) })
	<-f.release
}

func (f *blockingFake) Exec(ctx context.Context, q *adapter.Query) (bool, error) {
	f.wait()
	return f.fake.Exec(ctx, q)
}

func (f *blockingFake) Batch(ctx context.Context, b *adapter.Batch) (bool, error) {
	f.wait()
	return f.fake.Batch(ctx, b)
}

// TestCloseWaitsForCallsInProgress: Close returns only after a Save that
// was running when it was called has returned and its EVENTUAL lookup
// write is done; nothing is sent after Close returns, and later calls fail
// with kerrors.ErrClosed.
func TestCloseWaitsForCallsInProgress(t *testing.T) {
	f := &blockingFake{fake: fake{applied: true}, entered: make(chan struct{}), release: make(chan struct{})}
	rt, err := New(f, testKeyspace, WithClock(func() time.Time { return clock }))
	if err != nil {
		t.Fatal(err)
	}
	users := MustNewRepo(rt, fUsers)
	ctx := context.Background()
	saved := make(chan error, 1)
	go func() { saved <- users.Save(ctx, &fUser{Email: "a@b", Ticket: "T1"}) }()
	<-f.entered // the Save's batch is at the driver
	closed := make(chan error, 1)
	go func() { closed <- rt.Close(ctx) }()
	for rt.calls.Load()&1 == 0 { // until Close has begun
		time.Sleep(time.Millisecond)
	}
	if err := users.Save(ctx, &fUser{}); !errors.Is(err, kerrors.ErrClosed) {
		t.Fatalf("Save while closing: %v", err)
	}
	select {
	case err := <-closed:
		t.Fatalf("Close returned %v while a Save was in progress", err)
	default:
	}
	close(f.release)
	if err := <-saved; err != nil {
		t.Fatal(err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	f.closed.Store(true)
	log := f.sent()
	if len(log) != 3 || !strings.HasSuffix(log[1].cql, "IF version IN (null, 0)") || !strings.HasPrefix(log[2].cql, "INSERT INTO ks.fusers_by_ticket") {
		t.Fatalf("the EVENTUAL write was not done before Close returned: %+v", log)
	}
	if _, err := users.Get(ctx, &fUser{ID: uuid.New()}); !errors.Is(err, kerrors.ErrClosed) || !errors.Is(err, kerrors.ErrKandra) {
		t.Fatalf("Get after Close: %v", err)
	}
	if f.late.Load() != 0 || len(f.sent()) != 3 {
		t.Fatalf("sent after Close: %+v", f.sent())
	}
}

// TestCloseBoundedByContext: Close gives up when its context ends while a
// call is still in progress.
func TestCloseBoundedByContext(t *testing.T) {
	f := &blockingFake{entered: make(chan struct{}), release: make(chan struct{})}
	rt, _ := New(f, testKeyspace)
	users := MustNewRepo(rt, fUsers)
	go func() { _ = users.Save(context.Background(), &fUser{}) }()
	<-f.entered
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := rt.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close = %v", err)
	}
	close(f.release)
	if err := rt.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// fMember has a unique lookup.
type fMember struct {
	ID     uuid.UUID
	Handle string
}

func (m *fMember) Describe(s *kandra.Schema[fMember]) {
	s.Table("fmembers")
	kandra.Bind(s, &m.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &m.Handle, kandra.Lookup("by_handle", kandra.LookupUnique))
}

var fMembers = kandra.MustRegister[fMember]()

// TestClaimsRecordedUnderDocumentedOps: the claim statements of a write
// are recorded under the write's documented operation name.
func TestClaimsRecordedUnderDocumentedOps(t *testing.T) {
	f, _, rt, ops := newFake(t)
	members := MustNewRepo(rt, fMembers)
	ctx := context.Background()
	m := &fMember{ID: uuid.New(), Handle: "h"}
	if err := members.Save(ctx, m); err != nil {
		t.Fatal(err)
	}
	nm := *m
	nm.Handle = "h2"
	if err := members.Update(ctx, m, &nm); err != nil {
		t.Fatal(err)
	}
	if err := members.HardDelete(ctx, &nm); err != nil {
		t.Fatal(err)
	}
	claims := 0
	for _, s := range f.sent() {
		if strings.Contains(s.cql, "fmembers_by_handle") {
			claims++
		}
	}
	if claims == 0 {
		t.Fatal("no claim statement was sent")
	}
	documented := map[string]bool{kandra.OpSave: true, kandra.OpUpdate: true, kandra.OpDelete: true, kandra.OpFind: true}
	for _, o := range *ops {
		if _, op, _ := strings.Cut(o, "/"); !documented[op] {
			t.Errorf("recorded under %q", o)
		}
	}
}

// TestSaveIfNotExistsRefusedForScylla2025Tablets: a keyspace that must
// work in a ScyllaDB 2025.x tablets keyspace cannot take the lightweight
// transaction of SaveIfNotExists; nothing is sent, and the error names the
// target and what lifts the refusal.
func TestSaveIfNotExistsRefusedForScylla2025Tablets(t *testing.T) {
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5 | kandra.Scylla2025Tablets,
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3})}, fNotes)
	f := &fake{applied: true}
	rt, err := New(f, ks)
	if err != nil {
		t.Fatal(err)
	}
	notes := MustNewRepo(rt, fNotes)
	_, err = notes.SaveIfNotExists(context.Background(), &fNote{Owner: "o", At: clock, Secret: "s"})
	if !errors.Is(err, kerrors.ErrArgument) || !strings.Contains(err.Error(), "ScyllaDB 2025.x with tablets") || !strings.Contains(err.Error(), "2026.1") || len(f.sent()) != 0 {
		t.Fatalf("err = %v, sent %d", err, len(f.sent()))
	}
	if err := notes.Save(context.Background(), &fNote{Owner: "o", At: clock, Secret: "s"}); err != nil {
		t.Fatalf("Save: %v", err)
	}
}

// fRun is keyed by a TIMEUUID, whose zero value is sent as null.
type fRun struct {
	Run uuid.UUID
	N   int64
}

func (r *fRun) Describe(s *kandra.Schema[fRun]) {
	s.Table("fruns")
	kandra.Bind(s, &r.Run, kandra.PartitionKey(0), kandra.AsType(kandra.CQLTimeUUID))
	kandra.Bind(s, &r.N, kandra.ClusteringKey(0, kandra.ClusteringAsc))
}

var fRuns = kandra.MustRegister[fRun]()

// TestKeySentAsNull: the zero UUID in a TIMEUUID key column is null, which
// no server takes in a key: every call refuses it before sending, naming
// the field.
func TestKeySentAsNull(t *testing.T) {
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5, Replication: kandra.SimpleStrategy(1)}, fRuns)
	d := &valuesDriver{}
	rt, err := New(d, ks)
	if err != nil {
		t.Fatal(err)
	}
	runs := MustNewRepo(rt, fRuns)
	ctx := context.Background()
	zero := &fRun{N: 1}
	for name, call := range map[string]func() error{
		"Save":   func() error { return runs.Save(ctx, zero) },
		"Get":    func() error { _, err := runs.Get(ctx, zero); return err },
		"Delete": func() error { return runs.Delete(ctx, zero) },
		"List":   func() error { return runs.List(ctx, zero).Err() },
	} {
		if err := call(); !errors.Is(err, kerrors.ErrArgument) || !strings.Contains(err.Error(), "field Run") || !strings.Contains(err.Error(), "sent as null") {
			t.Errorf("%s with a zero TIMEUUID key: %v, want an ArgumentError naming the field", name, err)
		}
	}
	if s := d.sent(); len(s) != 0 {
		t.Fatalf("sent %q", s)
	}
	if err := runs.Save(ctx, &fRun{Run: uuid.Must(uuid.NewUUID()), N: 1}); err != nil || len(d.sent()) != 1 {
		t.Fatalf("Save of a version 1 key: %v, sent %q", err, d.sent())
	}
}
