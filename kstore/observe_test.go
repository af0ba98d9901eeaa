package kstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
)

// recorder is an Observer that keeps what it saw, and checks that Start
// and End pair up and that the context Start returned is the one the
// driver and End get.
type recorder struct {
	mu    sync.Mutex
	seen  []kandra.Observation
	open  int
	wrong []string
}

type spanKey struct{}

func (r *recorder) Start(ctx context.Context, o *kandra.Observation) context.Context {
	r.mu.Lock()
	r.open++
	r.mu.Unlock()
	return context.WithValue(ctx, spanKey{}, o)
}

func (r *recorder) End(ctx context.Context, o *kandra.Observation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.open--
	if ctx.Value(spanKey{}) != o {
		r.wrong = append(r.wrong, "End got another context than Start returned, for "+o.Statement)
	}
	r.seen = append(r.seen, *o)
}

func (r *recorder) all() []kandra.Observation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.seen)
}

// brief is o as one comparable line.
func brief(o kandra.Observation) string {
	return fmt.Sprintf("%s %s %s %s n=%d rows=%d bg=%v err=%v", o.Keyspace, o.Table, o.Operation, o.Kind, o.Statements, o.Rows, o.Background, o.Err != nil)
}

// ctxFake is fake checking that every statement gets the observer's
// context.
type ctxFake struct {
	noMigrator
	fake
	missing []string
}

func (f *ctxFake) check(ctx context.Context, what string) {
	if ctx.Value(spanKey{}) == nil {
		f.mu.Lock()
		f.missing = append(f.missing, what)
		f.mu.Unlock()
	}
}

func (f *ctxFake) Exec(ctx context.Context, q *adapter.Query) (bool, error) {
	f.check(ctx, q.Statement.CQL())
	return f.fake.Exec(ctx, q)
}

func (f *ctxFake) Query(ctx context.Context, q *adapter.Query) (adapter.Rows, error) {
	f.check(ctx, q.Statement.CQL())
	return f.fake.Query(ctx, q)
}

func (f *ctxFake) Batch(ctx context.Context, b *adapter.Batch) (bool, error) {
	f.check(ctx, "batch")
	return f.fake.Batch(ctx, b)
}

func TestObserverSeesEveryStatement(t *testing.T) {
	ctx := context.Background()
	rec := &recorder{}
	f := &ctxFake{fake: fake{applied: true, fail: "fusers_by_ticket"}}
	var failed []string
	var mu sync.Mutex
	rt, err := New(f, testKeyspace, WithObserver(rec), WithEventListener(kandra.EventListenerFunc(func(table string, _ any, err error) {
		mu.Lock()
		failed = append(failed, table)
		mu.Unlock()
	})))
	if err != nil {
		t.Fatal(err)
	}
	repo := MustNewRepo(rt, fUsers)
	// A ForceSave: the row and its BATCH lookup in one batch, the EVENTUAL
	// lookup in the background (failing: the fake refuses it).
	u := &fUser{Email: "a@b", Ticket: "T1"}
	if err := repo.ForceSave(ctx, u); err != nil {
		t.Fatal(err)
	}
	if err := rt.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Get(ctx, u); err == nil {
		t.Fatal("the fake has no rows: Get should find none")
	}
	if err := rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	got := rec.all()
	var lines []string
	for _, o := range got {
		lines = append(lines, brief(o))
		if o.Statement == "" || o.Attempt != 1 || o.Duration < 0 || o.Consistency == 0 {
			t.Errorf("incomplete observation %+v", o)
		}
		if !slices.Contains(kandra.Operations(), o.Operation) {
			t.Errorf("operation %q is not in kandra.Operations", o.Operation)
		}
		if strings.Contains(o.Statement, "a@b") || strings.Contains(o.Statement, "T1") {
			t.Errorf("a value in the statement text: %s", o.Statement)
		}
	}
	sort.Strings(lines)
	want := []string{
		"ks fusers get statement n=1 rows=0 bg=false err=false",
		"ks fusers save batch n=2 rows=0 bg=false err=false",
		"ks fusers_by_ticket save statement n=1 rows=0 bg=true err=true",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("observed\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if rec.open != 0 || len(rec.wrong) > 0 || len(f.missing) > 0 {
		t.Errorf("open %d, wrong %v, statements without the observer's context %v", rec.open, rec.wrong, f.missing)
	}
	if len(failed) != 1 {
		t.Errorf("listener heard of %v", failed)
	}
}

// quietDriver accepts everything and allocates nothing.
type quietDriver struct{ noMigrator }

func (quietDriver) Exec(context.Context, *adapter.Query) (bool, error)  { return true, nil }
func (quietDriver) Batch(context.Context, *adapter.Batch) (bool, error) { return true, nil }
func (quietDriver) Query(context.Context, *adapter.Query) (adapter.Rows, error) {
	return emptyRows{}, nil
}

// TestNoObserverNoCost: with neither an observer nor a recorder, a Save
// and a Get allocate nothing the store's checks do not (a driver that
// allocates nothing either): the hooks cost no allocation when unset.
func TestNoObserverNoCost(t *testing.T) {
	ctx := context.Background()
	rt := allocStore(t)
	repo := MustNewRepo(rt, fUsers)
	u := &fUser{Email: "a@b"} // no EVENTUAL value: nothing for the workers
	if err := repo.ForceSave(ctx, u); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(200, func() {
		if err := repo.ForceSave(ctx, u); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("a ForceSave allocates %v times without an observer", n)
	}
}

// allocStore is a store on quietDriver for counting a call's allocations,
// closed when t ends. Under -race t is skipped: the race detector's
// sync.Pool drops what is put back at random, so a pooled call allocates
// by chance.
func allocStore(t *testing.T) *Store { t.Helper(); return allocStoreOf(t, testKeyspace) }

// allocStoreOf is allocStore of keyspace ks.
func allocStoreOf(t *testing.T, ks *kandra.Keyspace) *Store {
	t.Helper()
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops what is put back at random: a pooled call allocates by chance")
	}
	rt, err := New(quietDriver{}, ks)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	return rt
}

// slowDriver holds every EVENTUAL lookup write (to fusers_by_ticket)
// until release is closed.
type slowDriver struct {
	noMigrator
	quietDriver
	release chan struct{}
	mu      sync.Mutex
	done    int
}

func (d *slowDriver) Exec(ctx context.Context, q *adapter.Query) (bool, error) {
	if strings.Contains(q.Statement.CQL(), "fusers_by_ticket") {
		<-d.release
		d.mu.Lock()
		d.done++
		d.mu.Unlock()
	}
	return true, nil
}

func (d *slowDriver) count() int { d.mu.Lock(); defer d.mu.Unlock(); return d.done }

// TestWaitForEventualWrites: Wait returns once the EVENTUAL writes
// queued before it are done, not before; with a context that ends first
// it returns the context's error, and the store stays open.
func TestWaitForEventualWrites(t *testing.T) {
	ctx := context.Background()
	d := &slowDriver{release: make(chan struct{})}
	rt, err := New(d, testKeyspace, WithEventualConcurrency(2))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	repo := MustNewRepo(rt, fUsers)
	if err := rt.Wait(ctx); err != nil {
		t.Fatalf("Wait with nothing queued: %v", err)
	}
	for i := 0; i < 5; i++ {
		if err := repo.ForceSave(ctx, &fUser{Ticket: fmt.Sprint("T", i)}); err != nil {
			t.Fatal(err)
		}
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := rt.Wait(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait with 5 writes held: %v", err)
	}
	close(d.release)
	if err := rt.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if n := d.count(); n != 5 {
		t.Fatalf("Wait returned with %d of 5 writes done", n)
	}
	if err := repo.ForceSave(ctx, &fUser{Ticket: "T5"}); err != nil {
		t.Fatalf("the store after Wait: %v", err)
	}
	if err := rt.Wait(ctx); err != nil || d.count() != 6 {
		t.Fatalf("second Wait: %v, %d done", err, d.count())
	}
}

// TestRangeAllocations: From and To allocate one option each, its value
// within it, and a DeleteRange of them nothing more (each option was
// boxed into the option interface apart from its value: two allocations);
// a Count of a partition, with or without them, allocates nothing (its
// Query, values and result were 4 allocations, 5 with a range).
func TestRangeAllocations(t *testing.T) {
	ctx := context.Background()
	rt := allocStoreOf(t, kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5,
		Replication: kandra.SimpleStrategy(1)}, fPlains))
	plains := MustNewRepo(rt, fPlains)
	pos := kandra.MustFieldOf(fPlains, func(c *fPlain) *int32 { return &c.Pos })
	key := &fPlain{Board: "b"}
	del := func() {
		if err := plains.DeleteRange(ctx, key, From(pos, 1000, true), To(pos, 2000, false)); err != nil {
			t.Fatal(err)
		}
	}
	del()
	if n := testing.AllocsPerRun(200, del); n != 2 {
		t.Errorf("a DeleteRange with From and To allocates %v times, want 2 (an option each, its value within it)", n)
	}
	// A count's Query, values and result are the call's scratch.
	for _, c := range []struct {
		name string
		opts []ListOption
		want float64
	}{
		{"a Count", nil, 0},
		{"a Count with From and To", []ListOption{From(pos, 1000, true), To(pos, 2000, false)}, 0}, // made once
	} {
		count := func() {
			if _, err := plains.Count(ctx, key, c.opts...); err != nil {
				t.Fatal(err)
			}
		}
		count()
		if n := testing.AllocsPerRun(200, count); n != c.want {
			t.Errorf("%s allocates %v times, want %v", c.name, n, c.want)
		}
	}
}

// TestUsingAllocations: the USING TIMESTAMP and TTL values are bound by
// their address in the call's scratch, not boxed (an int64 or an int of
// 256 or more put in an interface is a heap allocation): a Delete that
// deletes a BATCH lookup row at the call's timestamp, a Save with a TTL
// and a Timestamp, and an Update that moves a BATCH lookup value allocate
// nothing.
func TestUsingAllocations(t *testing.T) {
	ctx := context.Background()
	rt := allocStoreOf(t, kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5,
		Replication: kandra.SimpleStrategy(1)}, fPosts))
	posts := MustNewRepo(rt, fPosts)
	p := &fPost{Board: "b", PostID: 7, Author: "ann"} // no Tag: nothing for the workers
	moved := *p
	moved.Author = "bob"
	using := []WriteOption{TTL(time.Hour), Timestamp(time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC))} // made once: an option's own allocation is not the call's
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"Delete with a lookup row", func() error { return posts.Delete(ctx, p) }},
		{"Save with TTL and Timestamp", func() error { return posts.Save(ctx, p, using...) }},
		{"Update of a lookup value", func() error { return posts.Update(ctx, p, &moved) }},
	} {
		if err := c.call(); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(200, func() {
			if err := c.call(); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%s allocates %v times, want 0", c.name, n)
		}
	}
}

// TestGetTimesAllocations: a GetTimes allocates the entity it returns,
// the times it returns and the list of its fields' columns, nothing more:
// its Query, values, row targets and times' targets are the call's
// scratch (they were 5 allocations more).
func TestGetTimesAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops what is put back at random: a pooled call allocates by chance")
	}
	ctx := context.Background()
	rt, err := New(&rowDriver{}, kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5,
		Replication: kandra.SimpleStrategy(1)}, fPlains))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(ctx) })
	plains := MustNewRepo(rt, fPlains)
	title := kandra.MustFieldOf(fPlains, func(c *fPlain) *string { return &c.Title })
	key := &fPlain{Board: "b", Pos: 1}
	fields := []Column{title}
	get := func() {
		if _, ts, err := plains.GetTimes(ctx, key, fields); err != nil || len(ts) != 1 {
			t.Fatalf("GetTimes: %v, %d times", err, len(ts))
		}
	}
	get()
	if n := testing.AllocsPerRun(200, get); n != 3 {
		t.Errorf("a GetTimes allocates %v times, want 3 (the entity, its times, its fields' columns)", n)
	}
}
