package adaptertest

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
)

// The write-integrity scenarios: each was a hole on the node
// (a stale copy overwriting a newer version, Update(u, u), writes after
// Close, unit mistakes in options) and each is now refused or defined.

// testStaleCopyRefused: no write path overwrites or deletes a version
// other than the caller's copy.
func testStaleCopyRefused(t *testing.T, h *harness) {
	e := h.env(t)
	w := &wallet{WalletID: uniq("w"), Owner: uniq("o"), Balance: 10}
	if err := e.wallets.Save(ctx, w); err != nil || w.Version != 1 {
		t.Fatalf("Save: %v, version %d", err, w.Version)
	}
	stale := *w
	nw := *w
	nw.Balance = 20
	if err := e.wallets.Update(ctx, w, &nw); err != nil || nw.Version != 2 {
		t.Fatalf("Update: %v, version %d", err, nw.Version)
	}
	lock := func(what string, err error) {
		t.Helper()
		var ol *kerrors.OptimisticLockError
		if !errors.As(err, &ol) || ol.Key != w.WalletID {
			t.Fatalf("%s: %v, want an *kerrors.OptimisticLockError", what, err)
		}
	}
	before := stale
	stale.Balance = 999
	edited := stale
	lock("Save of the stale copy", e.wallets.Save(ctx, &stale))
	if stale != edited {
		t.Fatalf("the refused Save changed its argument: %+v", stale)
	}
	lock("HardDelete of the stale copy", e.wallets.HardDelete(ctx, &before))
	lock("Save of a new entity under a taken key", e.wallets.Save(ctx, &wallet{WalletID: w.WalletID, Owner: uniq("o"), Balance: 1}))
	got, err := e.wallets.Get(ctx, w)
	if err != nil || got.Version != 2 || got.Balance != 20 {
		t.Fatalf("the row after the refused writes: %+v %v", got, err)
	}
	// The current copy saves (at the next version) and deletes.
	got.Balance = 30
	if err := e.wallets.Save(ctx, got); err != nil || got.Version != 3 {
		t.Fatalf("Save of the current copy: %v, version %d", err, got.Version)
	}
	if err := e.wallets.HardDelete(ctx, got); err != nil {
		t.Fatal(err)
	}
	if _, err := e.wallets.Get(ctx, w); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatalf("after HardDelete: %v", err)
	}
	if n := h.rows(t, "wallets_by_owner", "owner = ?", w.Owner); n != 0 {
		t.Fatalf("the lookup row survives the delete")
	}
	// ForceSave overwrites whatever version is there, as its name says.
	if err := e.wallets.Save(ctx, &wallet{WalletID: w.WalletID, Owner: w.Owner, Balance: 5}); err != nil {
		t.Fatal(err)
	}
	if err := e.wallets.ForceSave(ctx, &wallet{WalletID: w.WalletID, Owner: w.Owner, Balance: 6, Version: 9}); err != nil {
		t.Fatal(err)
	}
	if got, err := e.wallets.Get(ctx, w); err != nil || got.Version != 9 || got.Balance != 6 {
		t.Fatalf("after ForceSave: %+v %v", got, err)
	}
}

// testUpdateOnePointer: Update(u, u) and a key change are refused before
// anything is sent; the row and the argument are unchanged.
func testUpdateOnePointer(t *testing.T, h *harness) {
	e := h.env(t)
	w := &wallet{WalletID: uniq("w"), Owner: uniq("o"), Balance: 10}
	if err := e.wallets.Save(ctx, w); err != nil {
		t.Fatal(err)
	}
	w.Owner = uniq("o2") // an in-place edit
	before := *w
	if err := e.wallets.Update(ctx, w, w); !errors.Is(err, kerrors.ErrArgument) || *w != before {
		t.Fatalf("Update(w, w): %v, %+v", err, *w)
	}
	moved := *w
	moved.WalletID = uniq("w")
	if err := e.wallets.Update(ctx, w, &moved); !errors.Is(err, kerrors.ErrArgument) || !strings.Contains(err.Error(), "immutable") {
		t.Fatalf("key change: %v", err)
	}
	if got, err := e.wallets.Get(ctx, w); err != nil || got.Version != 1 || got.Owner == w.Owner {
		t.Fatalf("row: %+v %v", got, err)
	}
}

// testOptionsRefused: the unit mistakes and out-of-range options that the
// server took (and then ignored every later write, or cut) are refused
// before sending, and the row stays writable.
func testOptionsRefused(t *testing.T, h *harness) {
	e := h.env(t)
	u := &user{Email: uniq("ts") + "@x.io", DisplayName: "a"}
	if err := e.users.Save(ctx, u); err != nil {
		t.Fatal(err)
	}
	for name, ts := range map[string]time.Time{"a year ahead": time.Now().AddDate(1, 0, 0), "year 300000": time.Date(300000, 1, 1, 0, 0, 0, 0, time.UTC), "zero": {}} {
		u.DisplayName = name
		if err := e.users.Save(ctx, u, kstore.Timestamp(ts)); !errors.Is(err, kerrors.ErrArgument) {
			t.Fatalf("Timestamp %s: %v", name, err)
		}
		if err := e.users.HardDelete(ctx, u, kstore.Timestamp(ts)); !errors.Is(err, kerrors.ErrArgument) {
			t.Fatalf("HardDelete Timestamp %s: %v", name, err)
		}
	}
	u.DisplayName = "later"
	if err := e.users.Save(ctx, u); err != nil {
		t.Fatal(err)
	}
	if got, err := e.users.Get(ctx, u); err != nil || got.DisplayName != "later" {
		t.Fatalf("a later Save does not count: %+v %v", got, err)
	}
	if err := e.users.Save(ctx, u, kstore.TTL(kandra.MaxWriteTTL(kandra.Cassandra5, time.Now())+time.Hour)); !errors.Is(err, kerrors.ErrArgument) {
		t.Fatalf("TTL past 2038: %v", err)
	}
	owner := uuid.New()
	for i := 0; i < 3; i++ {
		if err := e.todos.Save(ctx, &todo{OwnerID: owner, Title: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []int{0, 1 << 31, 1<<32 + 2} {
		if err := e.todos.List(ctx, &todo{OwnerID: owner}, kstore.PageSize(n)).Err(); !errors.Is(err, kerrors.ErrArgument) {
			t.Fatalf("PageSize(%d): %v", n, err)
		}
	}
	it := e.todos.List(ctx, &todo{OwnerID: owner}, kstore.PageSize(2))
	if it.Err() != nil || it.Cursor().IsZero() {
		t.Fatalf("first page: %v", it.Err())
	}
	if err := e.todos.List(ctx, &todo{OwnerID: uuid.New()}, kstore.After(it.Cursor())).Err(); !errors.Is(err, kerrors.ErrArgument) {
		t.Fatalf("a cursor of another partition: %v", err)
	}
	if rows, err := e.todos.List(ctx, &todo{OwnerID: owner}, kstore.PageSize(2), kstore.After(it.Cursor())).All(); err != nil || len(rows) != 1 {
		t.Fatalf("its own query: %d rows, %v", len(rows), err)
	}
	hits := kstore.MustCounterOf(e.hits, hitsField)
	page := &pageHits{Page: uniq("p")}
	if err := hits.Decrement(ctx, page, math.MinInt64); !errors.Is(err, kerrors.ErrArgument) {
		t.Fatalf("Decrement(MinInt64): %v", err)
	}
	if err := hits.Increment(ctx, &pageHits{}, 1); !errors.Is(err, kerrors.ErrArgument) {
		t.Fatalf("an empty partition key: %v", err)
	}
	if err := e.wallets.Save(ctx, &wallet{Owner: "x"}); !errors.Is(err, kerrors.ErrArgument) {
		t.Fatalf("an empty text partition key: %v", err)
	}
	var nilCtx context.Context
	if err := e.users.Save(nilCtx, u); !errors.Is(err, kerrors.ErrArgument) {
		t.Fatalf("a nil context: %v", err)
	}
	if err := e.users.Save(ctx, nil); !errors.Is(err, kerrors.ErrArgument) {
		t.Fatalf("a nil entity: %v", err)
	}
}

// testSaveIfNotExistsBatchFirst: lookup rows over the batch limit fail
// SaveIfNotExists before its LWT, so no row exists that its lookups
// cannot find.
func testSaveIfNotExistsBatchFirst(t *testing.T, h *harness) {
	e := h.env(t)
	u := &user{Email: uniq("big") + strings.Repeat("e", 60<<10), DisplayName: "b"}
	if _, err := e.users.SaveIfNotExists(ctx, u); !errors.Is(err, kerrors.ErrBatchTooLarge) {
		t.Fatalf("SaveIfNotExists: %v", err)
	}
	if u.UserID != (uuid.UUID{}) {
		if n := h.rows(t, "users", "user_id = ?", u.UserID.String()); n != 0 {
			t.Fatalf("the row was written")
		}
	}
	if e.count("users/"+kandra.OpSaveIfNotExists) != 0 {
		t.Fatal("the LWT was sent")
	}
}

// slowBatch delays every LOGGED BATCH, so that a Save is in progress when
// Close is called.
type slowBatch struct {
	adapter.Driver
	entered chan struct{}
	once    sync.Once
}

func (s *slowBatch) Batch(ctx context.Context, b *adapter.Batch) (bool, error) {
	s.once.Do(func() { close(s.entered) })
	time.Sleep(200 * time.Millisecond)
	return s.Driver.Batch(ctx, b)
}

// testCloseWaitsForSave: Close called while a Save is at the driver
// returns after the Save's EVENTUAL lookup row is on the server.
func testCloseWaitsForSave(t *testing.T, h *harness) {
	d := &slowBatch{Driver: h.d, entered: make(chan struct{})}
	e := h.envOn(t, d)
	u := &user{Email: uniq("c") + "@x.io", TicketRef: uniq("TC")}
	saved := make(chan error, 1)
	go func() { saved <- e.users.Save(ctx, u) }()
	<-d.entered
	if err := e.rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-saved:
		if err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatal("Close returned before the Save")
	}
	if n := h.rows(t, "users_by_ticket_ref", "ticket_ref = ?", u.TicketRef); n != 1 {
		t.Fatalf("the EVENTUAL lookup row is not written when Close returns")
	}
	if err := e.users.Save(ctx, &user{Email: uniq("late")}); !errors.Is(err, kerrors.ErrClosed) || !errors.Is(err, kerrors.ErrKandra) {
		t.Fatalf("after Close: %v", err)
	}
}

// testVersionedSoftDelete: a versioned soft delete checks the version and
// moves to the next one; a stale one is refused; the soft-deleted row,
// written by UPDATEs only (no row marker), vanishes whole when its TTL
// passes, and a row a ForceSave (an INSERT) left behind reads as not found.
func testVersionedSoftDelete(t *testing.T, h *harness) {
	e := h.env(t)
	n := &note{NoteID: uniq("n"), Body: "b"}
	if err := e.notes.Save(ctx, n); err != nil || n.Version != 1 {
		t.Fatalf("Save: %v, version %d", err, n.Version)
	}
	stale := *n
	if err := e.notes.Delete(ctx, n); err != nil || !n.Deleted || n.Version != 2 {
		t.Fatalf("SoftDelete: %v %+v", err, n)
	}
	before := stale
	if err := e.notes.Delete(ctx, &stale); !errors.Is(err, kerrors.ErrOptimisticLock) || stale != before {
		t.Fatalf("stale SoftDelete: %v %+v", err, stale)
	}
	if _, err := e.notes.Get(ctx, n, kstore.SkipDeleted()); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatalf("Get (SkipDeleted) of a soft-deleted note: %v", err)
	}
	forced := &note{NoteID: uniq("f"), Body: "b"}
	if err := e.notes.ForceSave(ctx, forced); err != nil {
		t.Fatal(err)
	}
	if err := e.notes.Delete(ctx, forced); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // the soft-delete TTL is 2 s
	if c := h.rows(t, "notes", "note_id = ?", n.NoteID); c != 0 {
		t.Fatalf("the soft-deleted row survives its TTL (%d rows)", c)
	}
	if _, err := e.notes.Get(ctx, n); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatalf("Get after the TTL: %v", err)
	}
	// ForceSave is an UPDATE too, and the soft delete rewrites the row
	// marker with its TTL: nothing of the row is left.
	if c := h.rows(t, "notes", "note_id = ?", forced.NoteID); c != 0 {
		t.Fatalf("the ForceSaved, soft-deleted row survives its TTL (%d rows)", c)
	}
	if _, err := e.notes.Get(ctx, forced); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatalf("Get of the ForceSaved row after the TTL: %v", err)
	}
	if err := e.notes.Save(ctx, &note{NoteID: forced.NoteID, Body: "again"}); err != nil {
		t.Fatalf("a new note under the left key: %v", err)
	}
}
