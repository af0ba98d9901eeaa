package kstore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

// fPair has a partition key of two text columns, whose stored forms
// could run into each other.
type fPair struct {
	A, B string
	N    int32
}

func (p *fPair) Describe(s *kandra.Schema[fPair]) {
	s.Table("fpairs")
	kandra.Bind(s, &p.A, kandra.PartitionKey(0))
	kandra.Bind(s, &p.B, kandra.PartitionKey(1))
	kandra.Bind(s, &p.N)
}

var (
	fPairs = kandra.MustRegister[fPair]()
	unitKS = kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5,
		Replication: kandra.SimpleStrategy(1)}, fUsers, fPosts, fPlains, fHitsT, fPairs)
	fHitsN = kandra.MustFieldOf(fHitsT, func(h *fHits) *int64 { return &h.N })
)

// TestUnitBatches: a unit's writes go as one batch, UNLOGGED for one
// partition of one table, LOGGED across partitions or tables with the
// BATCH lookup rows, EVENTUAL ones after; a unit of one write sends it
// alone; a counter unit is a COUNTER batch.
func TestUnitBatches(t *testing.T) {
	ctx := context.Background()
	f, users, rt, _ := newFakeIn(t, unitKS)
	posts := MustNewRepo(rt, fPosts)
	plain := MustNewRepo(rt, fPlains)

	u := rt.Unit()
	posts.In(u).Save(&fPost{Board: "a", PostID: 1})
	posts.In(u).Save(&fPost{Board: "a", PostID: 2})
	plainKey := &fPlain{Board: "a", Pos: 1}
	if applied, err := u.Apply(ctx); err != nil || !applied {
		t.Fatalf("one partition: %v %v", applied, err)
	}
	log := f.sent()
	if len(log) != 1 || len(log[0].batch) != 2 || !log[0].unlogged {
		t.Fatalf("one partition: %+v, want one UNLOGGED batch of 2", log)
	}

	f.clear()
	u = rt.Unit()
	user := &fUser{Email: "e@x", Ticket: "T"}
	users.In(u).Save(user)
	posts.In(u).Save(&fPost{Board: "b", PostID: 1, Author: "ann"})
	plain.In(u).Patch(plainKey, Set(pTitle, "t"), Upsert())
	if applied, err := u.Apply(ctx); err == nil || !applied {
		// fUser is versioned: its Save is conditional, and a conditional
		// unit holds one partition of one table.
		if !errors.Is(err, kerrors.ErrArgument) || !strings.Contains(err.Error(), "one partition of one table") {
			t.Fatalf("a versioned Save with other tables: %v, want the partition rule", err)
		}
	}
	if len(f.sent()) != 0 || user.ID != [16]byte{} {
		t.Fatalf("a refused unit sent %+v, stamped %v", f.sent(), user.ID)
	}

	u = rt.Unit()
	posts.In(u).Save(&fPost{Board: "b", PostID: 1, Author: "ann"}) // no EVENTUAL row: the log holds the unit alone
	plain.In(u).Patch(plainKey, Set(pTitle, "t"), Upsert())
	if applied, err := u.Apply(ctx); err != nil || !applied {
		t.Fatal(applied, err)
	}
	log = f.sent()
	if len(log) < 1 || len(log[0].batch) != 3 || log[0].unlogged {
		t.Fatalf("two tables: %+v, want one LOGGED batch of the post, its lookup row and the patch", log)
	}

	f.clear()
	u = rt.Unit()
	plain.In(u).Patch(plainKey, Set(pTitle, "t"), Upsert())
	if _, err := u.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	if log := f.sent(); len(log) != 1 || log[0].batch != nil {
		t.Fatalf("one write: %+v, want it alone", log)
	}

	hits := MustNewRepo(rt, fHitsT)
	n := MustCounterOf(hits, fHitsN)
	f.clear()
	u = rt.Unit()
	hits.In(u).Increment(n, &fHits{Page: "a"}, 1)
	hits.In(u).Increment(n, &fHits{Page: "b"}, 2)
	if _, err := u.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	if log := f.sent(); len(log) != 1 || !log[0].counter || len(log[0].batch) != 2 {
		t.Fatalf("counters: %+v, want one COUNTER batch", log)
	}
}

// TestUnitRefusals: what the servers refuse, or would merge, is refused
// before anything is sent, naming the step and the rule.
func TestUnitRefusals(t *testing.T) {
	ctx := context.Background()
	f, _, rt, _ := newFakeIn(t, unitKS)
	posts := MustNewRepo(rt, fPosts)
	plain := MustNewRepo(rt, fPlains)
	hits := MustNewRepo(rt, fHitsT)
	n := MustCounterOf(hits, fHitsN)
	k := &fPlain{Board: "a", Pos: 1}
	for _, tc := range []struct {
		name string
		fill func(u *Unit)
		want string
	}{
		{"conditional across partitions", func(u *Unit) {
			plain.In(u).Patch(k, Set(pTitle, "t"))
			plain.In(u).Patch(&fPlain{Board: "b", Pos: 1}, Set(pTitle, "t"), Upsert())
		}, "step 1 (Patch on fplain): a conditional unit writes one partition"},
		{"counter with a write", func(u *Unit) {
			hits.In(u).Increment(n, &fHits{Page: "a"}, 1)
			plain.In(u).Patch(k, Set(pTitle, "t"), Upsert())
		}, "counter updates go only with counter updates"},
		{"two saves of a row", func(u *Unit) {
			posts.In(u).Save(&fPost{Board: "a", PostID: 1})
			posts.In(u).Save(&fPost{Board: "a", PostID: 1, Author: "x"})
		}, "a second write of author, which step 0 writes in the same row"},
		{"one column twice", func(u *Unit) {
			plain.In(u).Patch(k, Set(pTitle, "t"), Upsert())
			plain.In(u).Patch(k, Set(pTitle, "u"), Upsert())
		}, "a second write of title"},
		{"a range and its partition", func(u *Unit) {
			plain.In(u).DeleteRange(&fPlain{Board: "a"})
			plain.In(u).Patch(k, Set(pTitle, "t"), Upsert())
		}, "a range delete and another write of its partition"},
		{"a timestamp in a conditional unit", func(u *Unit) {
			plain.In(u).Patch(k, Set(pTitle, "t"))
			plain.In(u).Patch(&fPlain{Board: "a", Pos: 2}, Set(pTitle, "t"), Upsert(), Timestamp(clock))
		}, "a Timestamp in a conditional unit"},
		{"IF EXISTS and a condition on one row (seed 20261236)", func(u *Unit) {
			plain.In(u).Patch(k, Set(pTitle, "t"))
			plain.In(u).Patch(k, Append(pTags, "x").If(Eq(pTitle, "u")))
		}, "are on one row, which the servers refuse"},
		{"a list read on a row without a condition (seed 7731)", func(u *Unit) {
			plain.In(u).Patch(k, Set(pTitle, "t"))
			plain.In(u).Patch(&fPlain{Board: "a", Pos: 2}, SetAt(pTags, 0, "x"), Upsert())
		}, "a list's SetAt or RemoveValues in a conditional unit, on a row no condition"},
		{"a step's consistency", func(u *Unit) {
			plain.In(u).Patch(k, Set(pTitle, "t"), Upsert(), Consistency(1))
		}, "pass it to Unit.Apply"},
	} {
		f.clear()
		u := rt.Unit()
		tc.fill(u)
		_, err := u.Apply(ctx)
		if !errors.Is(err, kerrors.ErrArgument) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an ArgumentError with %q", tc.name, err, tc.want)
		}
		if len(f.sent()) != 0 {
			t.Errorf("%s: sent %+v", tc.name, f.sent())
		}
	}
	// A null written twice (a Save's nil note, a Clear) is one value.
	u := rt.Unit()
	plain.In(u).Save(&fPlain{Board: "c", Pos: 1, Title: "t"})
	plain.In(u).Patch(&fPlain{Board: "c", Pos: 1}, Clear(pNote), Upsert())
	if _, err := u.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	// A list read on a row with a condition is read by the server.
	u = rt.Unit()
	plain.In(u).Patch(k, Set(pTitle, "t"))
	plain.In(u).Patch(k, RemoveValues(pTags, "x"))
	if _, err := u.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	// Two changes of other columns of one row are one row's write.
	u = rt.Unit()
	plain.In(u).Patch(k, Set(pTitle, "t"))
	plain.In(u).Patch(k, Append(pTags, "x"))
	if _, err := u.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := u.Apply(ctx); err == nil {
		t.Fatal("a unit applied twice")
	}
}

// TestUnitConditional: a conditional unit's lookup rows go before it, its
// versions move only when it applied, and an entity of a unit that did
// not apply is left as it was.
func TestUnitConditional(t *testing.T) {
	ctx := context.Background()
	f, users, rt, _ := newFakeIn(t, unitKS)
	a := &fUser{Email: "a@x"} // no EVENTUAL row: the log holds the unit alone
	if err := users.Save(ctx, a); err != nil {
		t.Fatal(err)
	}
	f.clear()
	f.applied = false
	was := *a
	u := rt.Unit()
	s := users.In(u).Save(a)
	applied, err := u.Apply(ctx)
	if err != nil || applied {
		t.Fatalf("%v %v, want not applied", applied, err)
	}
	if *a != was || s.Outcome().Applied {
		t.Fatalf("a unit that did not apply changed the entity: %+v -> %+v", was, *a)
	}
	log := f.sent()
	// The conditional write goes as a batch of one, whose answer names
	// the row's key.
	if len(log) != 2 || !strings.Contains(log[0].cql, "fusers_by_email") || len(log[1].batch) != 1 || !strings.Contains(log[1].batch[0], "IF version = ?") || log[1].serial == 0 {
		t.Fatalf("sent %+v, want the lookup row, then the conditional write", log)
	}
	f.applied = true
	u = rt.Unit()
	s = users.In(u).Save(a)
	if applied, err := u.Apply(ctx); err != nil || !applied {
		t.Fatal(applied, err)
	}
	if a.Version != was.Version+1 || !s.Outcome().Applied {
		t.Fatalf("version %d after the unit applied, want %d", a.Version, was.Version+1)
	}
}

// TestUnitBatchSize: a unit over the batch limit is refused before
// anything is sent, its partial writes' values counted too.
func TestUnitBatchSize(t *testing.T) {
	ctx := context.Background()
	f, _, rt, _ := newFakeIn(t, unitKS, WithMaxBatchBytes(300))
	plain := MustNewRepo(rt, fPlains)
	long := strings.Repeat("x", 200)
	u := rt.Unit()
	plain.In(u).Patch(&fPlain{Board: "a", Pos: 1}, Set(pTitle, long), Upsert())
	plain.In(u).Patch(&fPlain{Board: "a", Pos: 2}, Set(pTitle, long), Upsert())
	if _, err := u.Apply(ctx); !errors.Is(err, kerrors.ErrBatchTooLarge) {
		t.Fatalf("two 200-byte titles under a 300-byte limit: %v, want ErrBatchTooLarge", err)
	}
	if len(f.sent()) != 0 {
		t.Fatalf("sent %+v", f.sent())
	}
	u = rt.Unit()
	plain.In(u).Patch(&fPlain{Board: "a", Pos: 1}, Set(pTitle, long[:100]), Upsert())
	plain.In(u).Patch(&fPlain{Board: "a", Pos: 2}, Set(pTitle, long[:100]), Upsert())
	if _, err := u.Apply(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestUnitVersionedDelete: a versioned Delete makes the unit conditional,
// its lookup rows are deleted after it applied, and when that fails the
// listener hears of it while the unit reports what it did: applied.
func TestUnitVersionedDelete(t *testing.T) {
	ctx := context.Background()
	f, users, first, _ := newFakeIn(t, unitKS)
	a := &fUser{Email: "a@x", Ticket: "T"}
	if err := users.Save(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(ctx); err != nil { // its EVENTUAL row is written
		t.Fatal(err)
	}
	var lost []string
	rt, err := New(f, unitKS, WithClock(func() time.Time { return clock }), WithEventListener(kandra.EventListenerFunc(func(table string, _ any, err error) {
		lost = append(lost, table)
	})))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	users = MustNewRepo(rt, fUsers)
	f.clear()
	f.fail = "fusers_by_"
	u := rt.Unit()
	s := users.In(u).Delete(a)
	applied, err := u.Apply(ctx)
	if err != nil || !applied || !s.Outcome().Applied {
		t.Fatalf("%v %v", applied, err)
	}
	log := f.sent()
	if len(log) != 2 || len(log[0].batch) != 1 || !strings.Contains(log[0].batch[0], "IF version = ?") || len(log[1].batch) != 2 {
		t.Fatalf("sent %+v, want the conditional delete, then the lookup rows' deletes", log)
	}
	if len(lost) != 1 { // once per entity, as after a versioned HardDelete
		t.Fatalf("the listener heard of %v, want the entity once", lost)
	}
}

// TestUnitKeysDoNotRunTogether: ("x", "\x00y") and ("x\x00", "y") are two
// partitions, which a unit sends LOGGED.
func TestUnitKeysDoNotRunTogether(t *testing.T) {
	ctx := context.Background()
	f, _, rt, _ := newFakeIn(t, unitKS)
	pairs := MustNewRepo(rt, fPairs)
	u := rt.Unit()
	pairs.In(u).Save(&fPair{A: "x", B: "\x00y", N: 1})
	pairs.In(u).Save(&fPair{A: "x\x00", B: "y", N: 2})
	if _, err := u.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	if log := f.sent(); len(log) != 1 || len(log[0].batch) != 2 || log[0].unlogged {
		t.Fatalf("sent %+v, want one LOGGED batch of two partitions", log)
	}
}

// clear empties f's log.
func (f *fake) clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = nil
}

// TestUnitAllocations: a unit of Saves allocates the Unit and one Step a
// write, and nothing else (a driver that allocates nothing): its hooks
// are methods, its keys and batch in memory it reuses, and the copy of
// an entity a stamped table's step keeps is pooled.
func TestUnitAllocations(t *testing.T) {
	rt := allocStoreOf(t, kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5,
		Replication: kandra.SimpleStrategy(1)}, fPosts, fCards))
	posts := make([]fPost, 8)
	for i := range posts {
		posts[i] = fPost{Board: "b", PostID: int64(i)} // one partition, no lookup value
	}
	cards := make([]fCard, 8)
	for i := range cards {
		cards[i] = fCard{Board: "b", Pos: int32(i), Title: "t"} // UpdatedAt stamped
	}
	t.Run("unstamped", func(t *testing.T) { unitAllocs(t, rt, MustNewRepo(rt, fPosts), posts) })
	t.Run("stamped", func(t *testing.T) { unitAllocs(t, rt, MustNewRepo(rt, fCards), cards) })
}

func unitAllocs[T any](t *testing.T, rt *Store, repo *Repo[T], rows []T) {
	ctx := context.Background()
	for _, n := range []int{1, 4, 8} {
		apply := func() {
			u := rt.Unit()
			for i := range n {
				repo.In(u).Save(&rows[i])
			}
			if applied, err := u.Apply(ctx); !applied || err != nil {
				t.Fatalf("a unit of %d saves: applied %v, %v", n, applied, err)
			}
		}
		apply()
		want := float64(1 + n)
		if n > len(Unit{}.first) {
			want++ // the steps past the Unit's own array
		}
		if got := testing.AllocsPerRun(100, apply); got != want {
			t.Errorf("a unit of %d saves allocates %v times, want %v (the Unit and a Step a write)", n, got, want)
		}
	}
}
