package kstore

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
)

type fUser struct {
	ID        uuid.UUID
	Email     string
	Ticket    string
	Bio       string
	UpdatedAt time.Time
	Version   int64
}

func (u *fUser) Describe(s *kandra.Schema[fUser]) {
	s.Table("fusers", kandra.ReadConsistency(kandra.ConsistencyOne))
	kandra.GeneratedUUID(s, &u.ID, kandra.UUIDRandom, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Email, kandra.Lookup("by_email", kandra.LookupBatch))
	kandra.Bind(s, &u.Ticket, kandra.Lookup("by_ticket", kandra.LookupEventual))
	kandra.UpdatedAt(s, &u.UpdatedAt)
	kandra.Version(s, &u.Version)
	s.Validate(kandra.ValidatorFunc[fUser](func(u *fUser) []kandra.FieldError {
		if u.Bio == "invalid" {
			return []kandra.FieldError{{Field: "bio", Message: "invalid"}}
		}
		return nil
	}))
}

var fUsers = kandra.MustRegister[fUser]()

type sent struct {
	cql      string
	cons     kandra.Consistency
	serial   kandra.Consistency
	batch    []string
	unlogged bool
	counter  bool
}

type fake struct {
	noMigrator
	mu      sync.Mutex
	log     []sent
	applied bool
	fail    string // fail statements containing this
	// batchErr is what Batch returns, after logging the batch.
	batchErr error
}

func (f *fake) add(s sent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = append(f.log, s)
}

func (f *fake) sent() []sent { f.mu.Lock(); defer f.mu.Unlock(); return append([]sent(nil), f.log...) }

func (f *fake) Exec(ctx context.Context, q *adapter.Query) (bool, error) {
	f.add(sent{cql: q.Statement.CQL(), cons: q.Consistency, serial: q.SerialConsistency})
	if len(q.Values) != q.Statement.NumParams() {
		return false, errors.New("wrong number of values")
	}
	if f.fail != "" && strings.Contains(q.Statement.CQL(), f.fail) {
		return false, errors.New("injected")
	}
	if q.Statement.IsConditional() {
		return f.applied, nil
	}
	return true, nil
}

func (f *fake) Query(ctx context.Context, q *adapter.Query) (adapter.Rows, error) {
	f.add(sent{cql: q.Statement.CQL(), cons: q.Consistency})
	return emptyRows{}, nil
}

func (f *fake) Batch(ctx context.Context, b *adapter.Batch) (bool, error) {
	s := sent{cons: b.Consistency, unlogged: b.Unlogged, counter: b.Counter}
	if b.IsConditional() {
		s.serial = b.SerialConsistency
	}
	failed := false
	for _, e := range b.Entries {
		s.batch = append(s.batch, e.Statement.CQL())
		if len(e.Values) != e.Statement.NumParams() {
			return false, errors.New("wrong number of values")
		}
		failed = failed || f.fail != "" && strings.Contains(e.Statement.CQL(), f.fail)
	}
	f.add(s)
	if f.batchErr != nil {
		return false, f.batchErr
	}
	if failed {
		return false, errors.New("injected")
	}
	if b.IsConditional() {
		return f.applied, nil
	}
	return true, nil
}

type emptyRows struct{}

func (emptyRows) Next([]any) bool   { return false }
func (emptyRows) PageState() []byte { return nil }
func (emptyRows) Close() error      { return nil }

var clock = time.Date(2025, 5, 6, 7, 8, 9, 123456789, time.FixedZone("X", 3600))

func newFake(t *testing.T, opts ...Option) (*fake, *Repo[fUser], *Store, *[]string) {
	return newFakeIn(t, testKeyspace, opts...)
}

// newFakeIn is newFake in keyspace ks.
func newFakeIn(t *testing.T, ks *kandra.Keyspace, opts ...Option) (*fake, *Repo[fUser], *Store, *[]string) {
	f := &fake{applied: true}
	var mu sync.Mutex
	var ops []string
	opts = append([]Option{WithClock(func() time.Time { return clock }),
		WithObserver(opsObserver(func(ob *kandra.Observation) {
			mu.Lock()
			ops = append(ops, ob.Table+"/"+ob.Operation)
			mu.Unlock()
		}))}, opts...)
	rt, err := New(f, ks, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	return f, MustNewRepo(rt, fUsers), rt, &ops
}

func TestSaveStampsAndBatches(t *testing.T) {
	f, repo, rt, ops := newFake(t)
	u := &fUser{Email: "a@b", Ticket: "T1"}
	if err := repo.ForceSave(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	if err := rt.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if u.ID == (uuid.UUID{}) || u.Version != 1 || !u.UpdatedAt.Equal(clock.Truncate(time.Millisecond)) || u.UpdatedAt.Location() != time.UTC {
		t.Fatalf("stamps: %+v", u)
	}
	log := f.sent()
	if len(log) != 2 || len(log[0].batch) != 2 || !strings.HasPrefix(log[0].batch[1], "INSERT INTO ks.fusers_by_email") ||
		!strings.HasPrefix(log[1].cql, "INSERT INTO ks.fusers_by_ticket") || log[0].cons != kandra.ConsistencyLocalQuorum {
		t.Fatalf("sent %+v", log)
	}
	if strings.Join(*ops, ",") != "fusers/save,fusers_by_ticket/save" {
		t.Errorf("metrics %v", *ops)
	}
}

func TestSaveValidationAndEmptyLookups(t *testing.T) {
	f, repo, _, _ := newFake(t)
	var ve *kerrors.ValidationError
	if err := repo.Save(context.Background(), &fUser{Bio: "invalid"}); !errors.As(err, &ve) || len(f.sent()) != 0 {
		t.Fatalf("%v, sent %v", err, f.sent())
	}
	if err := repo.ForceSave(context.Background(), &fUser{}); err != nil {
		t.Fatal(err)
	}
	if log := f.sent(); len(log) != 1 || log[0].batch != nil || !strings.HasPrefix(log[0].cql, "UPDATE ks.fusers SET") {
		t.Fatalf("empty lookups wrote %+v", log)
	}
}

func TestBatchTooLarge(t *testing.T) {
	f, repo, _, _ := newFake(t)
	err := repo.Save(context.Background(), &fUser{Email: "a", Bio: strings.Repeat("x", 60000)})
	if !errors.Is(err, kerrors.ErrBatchTooLarge) || len(f.sent()) != 0 {
		t.Fatalf("%v %v", err, f.sent())
	}
}

func TestConsistencyResolution(t *testing.T) {
	f, repo, _, _ := newFake(t, WithConsistency(kandra.ConsistencyQuorum))
	ctx := context.Background()
	_, _ = repo.Get(ctx, &fUser{})                                                          // table's read level
	_, _ = repo.Get(ctx, &fUser{}, Consistency(kandra.ConsistencyAll))                      // per call
	_ = repo.Save(ctx, &fUser{})                                                            // runtime default
	_, err := repo.SaveIfNotExists(ctx, &fUser{}, SerialConsistency(kandra.ConsistencyOne)) // refused
	if !errors.Is(err, kerrors.ErrArgument) {
		t.Fatalf("non-serial: %v", err)
	}
	log := f.sent()
	if len(log) != 3 || log[0].cons != kandra.ConsistencyOne || log[1].cons != kandra.ConsistencyAll || log[2].cons != kandra.ConsistencyQuorum {
		t.Fatalf("%+v", log)
	}
	if _, err := New(f, testKeyspace, WithSerialConsistency(kandra.ConsistencyQuorum)); err == nil {
		t.Fatal("non-serial default accepted")
	}
}

func TestVersionedUpdate(t *testing.T) {
	f, repo, rt, _ := newFake(t)
	ctx := context.Background()
	old := &fUser{ID: uuid.New(), Email: "old@x", Ticket: "T", Version: 3}
	nw := *old
	nw.Email = "new@x"
	if err := repo.Update(ctx, old, &nw); err != nil {
		t.Fatal(err)
	}
	_ = rt.Close(ctx)
	log := f.sent()
	// The email's move around the conditional UPDATE: this entity's new
	// row before it, its old row deleted after it, at one timestamp, with
	// no read of the old row.
	if nw.Version != 4 || len(log) != 3 ||
		log[0].cql != "INSERT INTO ks.fusers_by_email (email, id) VALUES (?, ?) USING TIMESTAMP ?" ||
		!strings.HasSuffix(log[1].cql, "IF version = ?") || log[1].serial != kandra.ConsistencySerial ||
		log[2].cql != "DELETE FROM ks.fusers_by_email USING TIMESTAMP ? WHERE email = ? AND id = ?" {
		t.Fatalf("version %d, sent %+v", nw.Version, log)
	}
	// Conflict: an OptimisticLockError and nothing else.
	f2, repo2, _, _ := newFake(t)
	f2.applied = false
	err := repo2.Update(ctx, old, &nw)
	var ol *kerrors.OptimisticLockError
	// The new email's row went first (it points to an entity that does
	// not hold it: reads skip it); nothing after the refused UPDATE.
	if log2 := f2.sent(); !errors.As(err, &ol) || ol.Key != old.ID || ol.EntityType != "kstore.fUser" || len(log2) != 2 || !log2[1].serial.IsSerial() {
		t.Fatalf("%v %+v", err, f2.sent())
	}
}

func TestDriverErrorWrappedAndEventualFailureReported(t *testing.T) {
	var mu sync.Mutex
	var got []string
	f, repo, rt, _ := newFake(t, WithEventListener(kandra.EventListenerFunc(func(tbl string, e any, err error) {
		mu.Lock()
		got = append(got, tbl)
		mu.Unlock()
		if _, ok := e.(*fUser); !ok {
			t.Errorf("entity %T", e)
		}
	})))
	f.fail = "fusers_by_ticket"
	if err := repo.ForceSave(context.Background(), &fUser{Ticket: "T"}); err != nil {
		t.Fatal(err)
	}
	_ = rt.Close(context.Background())
	if len(got) != 1 || got[0] != "fusers_by_ticket" {
		t.Fatalf("listener got %v", got)
	}
	f.fail = "UPDATE ks.fusers SET"
	_, repo2, _, _ := newFake(t)
	repo2.rt.d.(*fake).fail = f.fail
	err := repo2.ForceSave(context.Background(), &fUser{})
	var qe *kerrors.QueryError
	if !errors.As(err, &qe) || qe.Cause == nil || qe.Cause.Error() != "injected" {
		t.Fatalf("%v", err)
	}
	if err := repo2.ForceSave(context.Background(), &fUser{}); err == nil {
		t.Fatal("no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := repo2.Save(ctx, &fUser{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled ctx: %v", err)
	}
}

func TestFindEmptyValueAndClosed(t *testing.T) {
	f, repo, rt, _ := newFake(t)
	l := MustLookupOf(repo, kandra.MustFieldOf(fUsers, func(u *fUser) *string { return &u.Email }))
	if _, err := l.Find(context.Background(), ""); !errors.Is(err, kerrors.ErrNotFound) || len(f.sent()) != 0 {
		t.Fatalf("%v %v", err, f.sent())
	}
	if _, err := l.Find(context.Background(), "x"); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatal(err)
	}
	_ = rt.Close(context.Background())
	if err := repo.Save(context.Background(), &fUser{}); !errors.Is(err, kerrors.ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

// keyspaceOf is a keyspace named name, on targets, of every table the
// package's tests use.
func keyspaceOf(name string, targets kandra.Target) *kandra.Keyspace {
	return kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: name, Targets: targets,
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3})},
		fUsers, fNotes, fHitsT, fMembers, twoEventuals, vRows, fDocs, fStamps, fPosts, fSlots)
}

// testKeyspace is keyspace "ks" on Cassandra 5.0, the one most tests use.
var testKeyspace = keyspaceOf("ks", kandra.Cassandra5)

// TestNewRepoOutsideKeyspace: a Repo of a table the store's keyspace does
// not hold is refused, naming the table and the keyspace; so is a table
// of the same name with another schema.
func TestNewRepoOutsideKeyspace(t *testing.T) {
	other := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "app", Targets: kandra.Cassandra5,
		Replication: kandra.SimpleStrategy(1)}, fNotes)
	rt, err := New(&fake{}, other)
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewRepo(rt, fUsers)
	var se *kandra.SchemaError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "table fusers is not in keyspace app") {
		t.Fatalf("err = %v", err)
	}
	if _, err := NewRepo(rt, fNotes); err != nil {
		t.Fatalf("a table of the keyspace: %v", err)
	}
}

// opsObserver is an Observer that hands each ended Observation to a
// function.
type opsObserver func(*kandra.Observation)

func (opsObserver) Start(ctx context.Context, _ *kandra.Observation) context.Context { return ctx }
func (o opsObserver) End(_ context.Context, ob *kandra.Observation)                  { o(ob) }

// noMigrator is the migrator's half of adapter.Driver, which the runtime
// never calls: a fake embeds it.
type noMigrator struct{}

func (noMigrator) ExecCQL(context.Context, string, []any, kandra.Consistency) (bool, error) {
	panic("the runtime called ExecCQL")
}

// QueryCQL: the runtime reads the ring's boundaries before a scan (and
// cuts the ring evenly when it cannot), nothing else.
func (noMigrator) QueryCQL(_ context.Context, stmt string, _ []any, _ kandra.Consistency) ([]map[string]any, error) {
	if strings.Contains(stmt, "FROM system") {
		return nil, errors.New("no ring here")
	}
	panic("the runtime called QueryCQL: " + stmt)
}

func (noMigrator) AwaitSchemaAgreement(context.Context) error {
	panic("the runtime called AwaitSchemaAgreement")
}
