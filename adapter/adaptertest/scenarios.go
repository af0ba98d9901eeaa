package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
)

func testSaveStampsAndGet(t *testing.T, h *harness) {
	e := h.env(t)
	u := &user{Email: uniq("a") + "@x.io", DisplayName: "Ann"}
	if err := e.users.Save(ctx, u); err != nil {
		t.Fatal(err)
	}
	if u.UserID == (uuid.UUID{}) || u.CreatedAt.IsZero() || u.UpdatedAt.IsZero() {
		t.Fatalf("not stamped: %+v", u)
	}
	got, err := e.users.Get(ctx, &user{UserID: u.UserID})
	if err != nil {
		t.Fatal(err)
	}
	if *got != *u {
		t.Fatalf("read back %+v, wrote %+v", got, u)
	}
	// A caller's id is kept, and CreatedAt is not restamped.
	id := uuid.New()
	at := time.Date(2020, 1, 2, 3, 4, 5, 6e6, time.UTC)
	u2 := &user{UserID: id, Email: uniq("b") + "@x.io", CreatedAt: at}
	if err := e.users.Save(ctx, u2); err != nil {
		t.Fatal(err)
	}
	if u2.UserID != id || !u2.CreatedAt.Equal(at) {
		t.Fatalf("overwrote caller's values: %+v", u2)
	}
	if _, err := e.users.Get(ctx, &user{UserID: uuid.New()}); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatalf("Get of a missing key: %v", err)
	}
	if e.count("users/save") < 2 || e.count("users/get") < 2 {
		t.Errorf("metrics: save %d get %d", e.count("users/save"), e.count("users/get"))
	}
}

func testSaveValidation(t *testing.T, h *harness) {
	e := h.env(t)
	email := uniq("v") + "@x.io"
	err := e.users.Save(ctx, &user{Email: email, DisplayName: " bad"})
	var ve *kerrors.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v", err)
	}
	if n := h.rows(t, "users_by_email", "email = ?", email); n != 0 {
		t.Fatalf("a lookup row was written")
	}
}

func testSaveTTLAndTimestamp(t *testing.T, h *harness) {
	e := h.env(t)
	u := &user{Email: uniq("ttl") + "@x.io"}
	at := time.Now().Add(-time.Hour)
	ts := at.UnixMicro()
	if err := e.users.Save(ctx, u, kstore.TTL(10*time.Minute), kstore.Timestamp(at)); err != nil {
		t.Fatal(err)
	}
	var ttl, wt int64
	if err := h.n.Scan(ctx, "SELECT TTL(display_name), WRITETIME(display_name) FROM "+h.ks+".users WHERE user_id = ?", []any{u.UserID.String()}, &ttl, &wt); err != nil {
		t.Fatal(err)
	}
	if ttl <= 0 || ttl > 600 || wt != ts {
		t.Fatalf("ttl %d writetime %d (want <=600, %d)", ttl, wt, ts)
	}
}

func testSaveIfNotExists(t *testing.T, h *harness) {
	e := h.env(t)
	u := &user{Email: uniq("ine") + "@x.io"}
	ok, err := e.users.SaveIfNotExists(ctx, u)
	if err != nil || !ok {
		t.Fatalf("first: %v %v", ok, err)
	}
	again := &user{UserID: u.UserID, Email: uniq("other") + "@x.io"}
	if ok, err = e.users.SaveIfNotExists(ctx, again); err != nil || ok {
		t.Fatalf("second: %v %v", ok, err)
	}
	// Its lookup row went before the LWT (a conditional write cannot share
	// the batch): it points to a user that does not hold the value, and
	// Find does not return it.
	if _, err := kstore.MustLookupOf(e.users, userEmail).Find(ctx, again.Email); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatalf("the refused insert is found by its email: %v", err)
	}
	if f, err := kstore.MustLookupOf(e.users, userEmail).Find(ctx, u.Email); err != nil || f.UserID != u.UserID {
		t.Fatalf("lookup of the LWT insert: %v %v", f, err)
	}
	_, err = e.users.SaveIfNotExists(ctx, &user{}, kstore.SerialConsistency(kandra.ConsistencyQuorum))
	if !errors.Is(err, kerrors.ErrArgument) {
		t.Fatalf("non-serial serial consistency: %v", err)
	}
}

func testLookupsBatchAndEventual(t *testing.T, h *harness) {
	e := h.env(t)
	byEmail, byTicket := kstore.MustLookupOf(e.users, userEmail), kstore.MustLookupOf(e.users, userTicket)
	u := &user{Email: uniq("l") + "@x.io", TicketRef: uniq("T")}
	if err := e.users.Save(ctx, u); err != nil {
		t.Fatal(err)
	}
	// BATCH: findable as soon as Save returns.
	if f, err := byEmail.Find(ctx, u.Email); err != nil || f.UserID != u.UserID {
		t.Fatalf("find by email: %v %v", f, err)
	}
	if err := e.rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if f, err := byTicket.Find(ctx, u.TicketRef); !errors.Is(err, kerrors.ErrClosed) {
		t.Fatalf("Find after Close: %v %v", f, err)
	}
	// EVENTUAL: written once Close returned.
	e2 := h.env(t)
	if f, err := kstore.MustLookupOf(e2.users, userTicket).Find(ctx, u.TicketRef); err != nil || f.UserID != u.UserID {
		t.Fatalf("find by ticket after Close: %v %v", f, err)
	}
	if e2.count("users_by_ticket_ref/find") != 1 || e2.count("users/find") != 1 {
		t.Errorf("find metrics: lookup %d primary %d", e2.count("users_by_ticket_ref/find"), e2.count("users/find"))
	}
}

func testEmptyLookupValue(t *testing.T, h *harness) {
	e := h.env(t)
	u := &user{DisplayName: "no email"}
	if err := e.users.Save(ctx, u); err != nil {
		t.Fatalf("Save with empty lookup values: %v", err)
	}
	nu := *u
	nu.Email = uniq("late") + "@x.io"
	if err := e.users.Update(ctx, u, &nu); err != nil {
		t.Fatalf("Update away from an empty value: %v", err)
	}
	if err := e.rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if fs := e.fails.list(); len(fs) != 0 {
		t.Fatalf("eventual failures: %v", fs)
	}
	e2 := h.env(t)
	if _, err := kstore.MustLookupOf(e2.users, userEmail).Find(ctx, ""); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatalf("Find(\"\"): %v", err)
	}
	if f, err := kstore.MustLookupOf(e2.users, userEmail).Find(ctx, nu.Email); err != nil || f.UserID != u.UserID {
		t.Fatalf("Find after the update: %v %v", f, err)
	}
}

func testBatchTooLarge(t *testing.T, h *harness) {
	e := h.env(t)
	big := strings.Repeat("x", 60_000)
	u := &user{Email: uniq("big") + "@x.io", Bio: big}
	err := e.users.Save(ctx, u)
	var qe *kerrors.QueryError
	if !errors.As(err, &qe) || !errors.Is(err, kerrors.ErrBatchTooLarge) {
		t.Fatalf("err = %v", err)
	}
	if _, err := e.users.Get(ctx, u); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatalf("row was written: %v", err)
	}
	// Without the check the server refuses it too ("Batch too large").
	e2 := h.env(t, kstore.WithMaxBatchBytes(-1))
	err = e2.users.Save(ctx, &user{Email: uniq("big2") + "@x.io", Bio: big})
	if !errors.As(err, &qe) || !strings.Contains(strings.ToLower(err.Error()), "batch too large") {
		t.Fatalf("server: %v", err)
	}
	// No BATCH lookup row (empty email): a single INSERT, no limit.
	if err := e.users.Save(ctx, &user{Bio: big}); err != nil {
		t.Fatalf("single insert of a 60 KB row: %v", err)
	}
}

func testUpdateMovesAndHijack(t *testing.T, h *harness) {
	e := h.env(t)
	byEmail := kstore.MustLookupOf(e.users, userEmail)
	x, y := uniq("x")+"@x.io", uniq("y")+"@x.io"
	a := &user{Email: x, DisplayName: "A"}
	if err := e.users.Save(ctx, a); err != nil {
		t.Fatal(err)
	}
	// B takes A's email.
	b := &user{Email: x, DisplayName: "B"}
	if err := e.users.Save(ctx, b); err != nil {
		t.Fatal(err)
	}
	// A moves to y: B's lookup row must survive.
	na := *a
	na.Email = y
	before := a.UpdatedAt
	time.Sleep(2 * time.Millisecond)
	if err := e.users.Update(ctx, a, &na); err != nil {
		t.Fatal(err)
	}
	if !na.UpdatedAt.After(before) {
		t.Errorf("UpdatedAt not stamped")
	}
	if f, err := byEmail.Find(ctx, x); err != nil || f.UserID != b.UserID {
		t.Fatalf("B by x: %v %v", f, err)
	}
	if f, err := byEmail.Find(ctx, y); err != nil || f.UserID != a.UserID {
		t.Fatalf("A by y: %v %v", f, err)
	}
	// B moves away from x: its own row goes.
	nb := *b
	nb.Email = uniq("z") + "@x.io"
	if err := e.users.Update(ctx, b, &nb); err != nil {
		t.Fatal(err)
	}
	if n := h.rows(t, "users_by_email", "email = ?", x); n != 0 {
		t.Fatalf("B's old row survives the move")
	}
	// A stale lookup row is not found, never the wrong entity: point x's
	// row at A by hand while A's row carries y.
	if err := h.n.Exec(ctx, "INSERT INTO "+h.ks+".users_by_email (email, user_id) VALUES (?, ?)", x, a.UserID.String()); err != nil {
		t.Fatal(err)
	}
	if f, err := byEmail.Find(ctx, x); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatalf("stale row returned %v %v", f, err)
	}
}

func testVersionedConflict(t *testing.T, h *harness) {
	e := h.env(t)
	w := &wallet{WalletID: uniq("w"), Owner: uniq("o"), Balance: 10}
	if err := e.wallets.Save(ctx, w); err != nil {
		t.Fatal(err)
	}
	if w.Version != 1 {
		t.Fatalf("initial version %d", w.Version)
	}
	var applied, conflicts atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			nw := *w
			nw.Balance = int64(100 + i)
			nw.Owner = uniq("o")
			err := e.wallets.Update(ctx, w, &nw)
			var ol *kerrors.OptimisticLockError
			switch {
			case err == nil:
				applied.Add(1)
			case errors.As(err, &ol):
				if ol.EntityType != "adaptertest.wallet" || ol.Key != w.WalletID {
					t.Errorf("conflict error fields: %+v", ol)
				}
				conflicts.Add(1)
			default:
				t.Errorf("update: %v", err)
			}
		}(i)
	}
	wg.Wait()
	if applied.Load() != 1 || conflicts.Load() != 7 {
		t.Fatalf("applied %d conflicts %d", applied.Load(), conflicts.Load())
	}
	got, err := e.wallets.Get(ctx, w)
	if err != nil || got.Version != 2 {
		t.Fatalf("after: %+v %v", got, err)
	}
	// The winner's new owner is findable, the old one is not.
	byOwner := kstore.MustLookupOf(e.wallets, walletOwn)
	if f, err := byOwner.Find(ctx, got.Owner); err != nil || f.WalletID != w.WalletID {
		t.Fatalf("by new owner: %v %v", f, err)
	}
	if _, err := byOwner.Find(ctx, w.Owner); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatalf("by old owner: %v", err)
	}
	if n := h.rows(t, "wallets_by_owner", "owner = ?", w.Owner); n != 0 {
		t.Fatalf("old owner row survives")
	}
}

func testHardDelete(t *testing.T, h *harness) {
	e := h.env(t)
	u := &user{Email: uniq("d") + "@x.io", TicketRef: uniq("TD")}
	if err := e.users.Save(ctx, u); err != nil {
		t.Fatal(err)
	}
	if err := e.rt.Close(ctx); err != nil { // the eventual row is written
		t.Fatal(err)
	}
	e = h.env(t)
	if err := e.users.Delete(ctx, u); err != nil {
		t.Fatal(err)
	}
	if n := h.rows(t, "users_by_email", "email = ?", u.Email); n != 0 {
		t.Fatalf("email row survives")
	}
	if n := h.rows(t, "users_by_ticket_ref", "ticket_ref = ?", u.TicketRef); n != 0 {
		t.Fatalf("ticket row survives")
	}
	if _, err := e.users.Get(ctx, u); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatalf("row survives: %v", err)
	}
	// One LOGGED BATCH: the primary delete and both lookup deletes, each
	// of this user's own row; nothing is read first.
	if e.count("users/delete") != 1 || e.count("users_by_email/delete") != 0 || e.count("users_by_ticket_ref/delete") != 0 {
		t.Errorf("metrics: batch %d, reads %d %d", e.count("users/delete"), e.count("users_by_email/delete"), e.count("users_by_ticket_ref/delete"))
	}
}

func testHardDeleteHijacked(t *testing.T, h *harness) {
	e := h.env(t)
	byEmail := kstore.MustLookupOf(e.users, userEmail)
	x := uniq("h") + "@x.io"
	a := &user{Email: x}
	b := &user{Email: x}
	if err := e.users.Save(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := e.users.Save(ctx, b); err != nil { // B takes x
		t.Fatal(err)
	}
	if err := e.users.HardDelete(ctx, a); err != nil {
		t.Fatal(err)
	}
	if f, err := byEmail.Find(ctx, x); err != nil || f.UserID != b.UserID {
		t.Fatalf("B after A's delete: %v %v", f, err)
	}
	// Two EVENTUAL moves of one user applied out of order (the first one's
	// writes held back at the driver): each move's rows carry its call's
	// timestamp, so the later move wins whatever the order.
	d := &holdFirst{Driver: h.d, table: "users_by_ticket_ref", held: make(chan struct{})}
	e = h.envOn(t, d)
	c := &user{Email: uniq("r") + "@x.io", TicketRef: uniq("R1")}
	if err := e.users.ForceSave(ctx, c); err != nil {
		t.Fatal(err)
	}
	<-d.held // the Save's row: held, then written
	r1, r2 := c.TicketRef, uniq("R2")
	c2 := *c
	c2.TicketRef = r2
	if err := e.users.Update(ctx, c, &c2); err != nil { // r1 -> r2, held back
		t.Fatal(err)
	}
	c3 := c2
	c3.TicketRef = r1
	time.Sleep(5 * time.Millisecond)
	if err := e.users.Update(ctx, &c2, &c3); err != nil { // r2 -> r1, runs first
		t.Fatal(err)
	}
	if err := e.rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := h.rows(t, "users_by_ticket_ref", "ticket_ref = ?", r1); n != 1 {
		t.Fatalf("the user holds %s and has %d rows of it", r1, n)
	}
	if n := h.rows(t, "users_by_ticket_ref", "ticket_ref = ?", r2); n != 0 {
		t.Fatalf("the user left %s and keeps its row", r2)
	}
	if !d.reordered() {
		t.Fatalf("the moves were not applied out of order: %v", d.order)
	}
}

// holdFirst holds back for 300 ms the first write of the first Update's
// EVENTUAL move on table (the table's second write: the first is the
// Save's), so that the second Update's move runs before it; it records the
// order in which the writes reached the server.
type holdFirst struct {
	adapter.Driver
	table string
	held  chan struct{}
	mu    sync.Mutex
	n     int
	order []int
}

func (d *holdFirst) Exec(ctx context.Context, q *adapter.Query) (bool, error) {
	if q.Statement.TableName() == d.table {
		d.mu.Lock()
		d.n++
		n := d.n
		d.mu.Unlock()
		if n == 2 {
			time.Sleep(300 * time.Millisecond)
		}
		d.mu.Lock()
		d.order = append(d.order, n)
		d.mu.Unlock()
		if n == 1 {
			defer close(d.held)
		}
	}
	return d.Driver.Exec(ctx, q)
}

// reordered reports that the held write reached the server after a write
// of the later move.
func (d *holdFirst) reordered() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.order) == 5 && d.order[1] != 2
}

func testListAndSoftDelete(t *testing.T, h *harness) {
	e := h.env(t)
	owner := uuid.New()
	var ids []uuid.UUID
	for i := 0; i < 25; i++ {
		td := &todo{OwnerID: owner, Title: fmt.Sprint(i)}
		if err := e.todos.Save(ctx, td); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, td.TodoID)
	}
	// Pages of 10, newest first, resumed through the cursor's string form.
	var got []uuid.UUID
	var cur kstore.Cursor
	for pages := 0; ; pages++ {
		it := e.todos.List(ctx, &todo{OwnerID: owner}, kstore.PageSize(10), kstore.After(cur))
		n := 0
		for it.Next() {
			got = append(got, it.Value().TodoID)
			n++
		}
		if it.Err() != nil {
			t.Fatal(it.Err())
		}
		if n > 10 {
			t.Fatalf("page of %d rows", n)
		}
		if it.Cursor().IsZero() || pages > 5 {
			break
		}
		var err error
		if cur, err = kstore.ParseCursor(it.Cursor().String()); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 25 {
		t.Fatalf("%d rows", len(got))
	}
	for i := range got {
		if got[i] != ids[24-i] {
			t.Fatalf("row %d out of order", i)
		}
	}
	// Range and reversed order.
	rows, err := e.todos.List(ctx, &todo{OwnerID: owner}, kstore.From(todoID, ids[5], true), kstore.To(todoID, ids[9], false), kstore.Reversed()).All()
	if err != nil || len(rows) != 4 || rows[0].TodoID != ids[5] {
		t.Fatalf("range: %d rows %v", len(rows), err)
	}
	// Soft-delete 15 of them; List with SkipDeleted fills pages anyway.
	for i := 0; i < 15; i++ {
		td, err := e.todos.Get(ctx, &todo{OwnerID: owner, TodoID: ids[24-i]})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.todos.Delete(ctx, td); err != nil {
			t.Fatal(err)
		}
	}
	var ttl int64
	if err := h.n.Scan(ctx, "SELECT TTL(title) FROM "+h.ks+".todos WHERE owner_id = ? AND todo_id = ?", []any{owner.String(), ids[24].String()}, &ttl); err != nil || ttl <= 0 || ttl > 3600 {
		t.Fatalf("soft-delete TTL %d %v", ttl, err)
	}
	// A row whose marker is null counts as live.
	if err := h.n.Exec(ctx, "UPDATE "+h.ks+".todos SET deleted = null WHERE owner_id = ? AND todo_id = ?", owner.String(), ids[0].String()); err != nil {
		t.Fatal(err)
	}
	page, err := e.todos.List(ctx, &todo{OwnerID: owner}, kstore.SkipDeleted(), kstore.PageSize(4)).All()
	if err != nil || len(page) != 4 || page[0].TodoID != ids[9] {
		t.Fatalf("List (SkipDeleted): %d %v", len(page), err)
	}
	if _, err := e.todos.Get(ctx, &todo{OwnerID: owner, TodoID: ids[24]}, kstore.SkipDeleted()); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatalf("Get (SkipDeleted) of a soft-deleted row: %v", err)
	}
	if _, err := e.todos.Get(ctx, &todo{OwnerID: owner, TodoID: ids[0]}, kstore.SkipDeleted()); err != nil {
		t.Fatalf("Get (SkipDeleted) of a null-marker row: %v", err)
	}
	all, _ := e.todos.List(ctx, &todo{OwnerID: owner}, kstore.SkipDeleted(), kstore.PageSize(100)).All()
	if len(all) != 10 {
		t.Fatalf("List (SkipDeleted) all: %d", len(all))
	}
}

func testCounters(t *testing.T, h *harness) {
	e := h.env(t)
	c := kstore.MustCounterOf(e.hits, hitsField)
	key := &pageHits{Page: uniq("/p")}
	if err := c.Increment(ctx, key, 5); err != nil {
		t.Fatal(err)
	}
	if err := c.Decrement(ctx, key, 2); err != nil {
		t.Fatal(err)
	}
	got, err := e.hits.Get(ctx, key)
	if err != nil || got.Hits != 3 {
		t.Fatalf("%+v %v", got, err)
	}
	if err := e.hits.Save(ctx, key); err == nil {
		t.Fatal("Save on a counter table succeeded")
	}
}

func testDriverErrors(t *testing.T, h *harness) {
	e := h.env(t)
	// ANY is not a read level: the server refuses it, so the runtime
	// refuses it before sending. The read by key the server sees, written
	// by hand and sent through the adapter at ANY:
	key := &user{UserID: uuid.New()}
	cols := usersTable.Schema().Columns()
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.CQLName()
	}
	st := adapter.NewStatement(adapter.StatementSpec{
		Table:      "users",
		CQL:        "SELECT " + strings.Join(names, ", ") + " FROM " + h.ks + ".users WHERE user_id = ?",
		Params:     []adapter.Param{{Kind: adapter.ParamColumn, Column: userID.Column()}},
		Result:     cols,
		Idempotent: true,
	})
	rows, err := h.d.Query(ctx, &adapter.Query{Statement: st, Values: []any{&key.UserID}, Consistency: kandra.ConsistencyAny})
	if err == nil {
		rows.Next(usersTable.Pointers(new(user), nil))
		err = rows.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "ANY") {
		t.Fatalf("the server took a read at ANY: %v", err)
	}
	_, err = e.users.Get(ctx, key, kstore.Consistency(kandra.ConsistencyAny))
	if !errors.Is(err, kerrors.ErrArgument) || e.count("users/get") != 0 {
		t.Fatalf("Get at ANY: %v (%d sent)", err, e.count("users/get"))
	}
	// A level one node cannot give: the server's error, wrapped.
	err = e.users.Save(ctx, &user{Email: uniq("three")}, kstore.Consistency(kandra.ConsistencyThree))
	var qe *kerrors.QueryError
	if !errors.As(err, &qe) || qe.Cause == nil {
		t.Fatalf("err = %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := e.users.Save(cctx, &user{}); !errors.Is(err, context.Canceled) || !errors.As(err, &qe) {
		t.Fatalf("cancelled: %v", err)
	}
}

// testEventualDroppedTable: an EVENTUAL write to a dropped lookup table
// reaches the listener (and the observer) without failing the save.
func testEventualDroppedTable(t *testing.T, h *harness) {
	if err := h.n.Exec(ctx, "DROP TABLE "+h.ks+".devices_by_serial"); err != nil {
		t.Fatal(err)
	}
	e := h.env(t)
	d := &device{DeviceID: uniq("dev"), Serial: uniq("SN")}
	if err := e.devices.Save(ctx, d); err != nil {
		t.Fatalf("save failed: %v", err)
	}
	if err := e.rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	fs := e.fails.list()
	if len(fs) != 1 || !strings.HasPrefix(fs[0], "devices_by_serial: ") {
		t.Fatalf("failures %v", fs)
	}
	if got, ok := e.fails.entities[0].(*device); !ok || got.DeviceID != d.DeviceID {
		t.Fatalf("listener entity %#v", e.fails.entities[0])
	}
	if e.count("devices_by_serial/failed in the background") != 1 {
		t.Errorf("the observer did not see the failed EVENTUAL write once")
	}
	if _, err := h.env(t).devices.Get(ctx, d); err != nil {
		t.Fatalf("primary row: %v", err)
	}
	_ = kstore.MustLookupOf(e.devices, deviceSerial)
	t.Logf("listener got: %s", fs[0])
}

// testEventualConcurrent: 16 writers save (and half of them then move) users
// with EVENTUAL ticket lookups; after Close every current value is found,
// and no old value finds anyone.
func testEventualConcurrent(t *testing.T, h *harness) {
	const writers, each = 16, 20
	e := h.env(t, kstore.WithEventualConcurrency(8))
	var wg sync.WaitGroup
	users := make([]*user, writers*each)
	old := make([]string, writers*each)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				u := &user{TicketRef: uniq(fmt.Sprintf("C%d", w))}
				if err := e.users.Save(ctx, u); err != nil {
					t.Error(err)
					return
				}
				if i%2 == 1 {
					nu := *u
					nu.TicketRef = uniq(fmt.Sprintf("M%d", w))
					if err := e.users.Update(ctx, u, &nu); err != nil {
						t.Error(err)
						return
					}
					old[w*each+i] = u.TicketRef
					u = &nu
				}
				users[w*each+i] = u
			}
		}(w)
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if err := e.rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if fs := e.fails.list(); len(fs) != 0 {
		t.Fatalf("eventual failures: %v", fs[:min(len(fs), 3)])
	}
	e2 := h.env(t)
	byTicket := kstore.MustLookupOf(e2.users, userTicket)
	stale := 0
	for i, u := range users {
		if f, err := byTicket.Find(ctx, u.TicketRef); err != nil || f.UserID != u.UserID {
			t.Fatalf("%s: %v %v", u.TicketRef, f, err)
		}
		if old[i] == "" {
			continue
		}
		if f, err := byTicket.Find(ctx, old[i]); !errors.Is(err, kerrors.ErrNotFound) {
			t.Fatalf("old value %s found %v %v", old[i], f, err)
		}
		stale += h.rows(t, "users_by_ticket_ref", "ticket_ref = ?", old[i])
	}
	// The Save's asynchronous insert of a value and the Update's
	// asynchronous removal of it may run in either order; both carry their
	// call's timestamp, so the later call's removal wins.
	if stale != 0 {
		t.Fatalf("%d users, %d moved; %d old rows survive their removal", len(users), len(users)/2, stale)
	}
}

// limited holds every Exec until gate of them have arrived (so that the
// saves are all stamped before any statement is sent), then bounds the
// statements in flight.
type limited struct {
	adapter.Driver
	gate    int64
	arrived *atomic.Int64
	open    chan struct{}
	sem     chan struct{}
}

func (l limited) Exec(ctx context.Context, q *adapter.Query) (bool, error) {
	if l.arrived.Add(1) == l.gate {
		close(l.open)
	}
	<-l.open
	l.sem <- struct{}{}
	defer func() { <-l.sem }()
	return l.Driver.Exec(ctx, q)
}

func v7Millis(id uuid.UUID) int64 {
	var ms int64
	for _, b := range id[:6] {
		ms = ms<<8 | int64(b)
	}
	return ms
}

// testScaleOnePartition: 10,000 saves into one partition, their
// time-ordered ids generated within a few milliseconds (all the saves are
// started at once and stamped before any is sent; then 64 statements in
// flight), read back as 10,000 rows in
// generation order. NewTimeOrderedUUID hands out strictly increasing ids
// in call order, also across goroutines within one millisecond, so
// generation order is the ids' order; Seq, given in the order the saves
// were started, shows the server returns exactly the saved rows.
func testScaleOnePartition(t *testing.T, h *harness) {
	const n = 10_000
	e := h.envOn(t, limited{Driver: h.d, gate: n, arrived: new(atomic.Int64), open: make(chan struct{}), sem: make(chan struct{}, 64)})
	stream := uniq("s")
	evs := make([]*event, n)
	errs := make(chan error, n)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range evs {
		evs[i] = &event{Stream: stream, Seq: i}
		wg.Add(1)
		go func(ev *event) {
			defer wg.Done()
			if err := e.events.Save(ctx, ev); err != nil {
				errs <- err
			}
		}(evs[i])
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	took := time.Since(start)
	lo, hi := v7Millis(evs[0].EventID), v7Millis(evs[0].EventID)
	want := make(map[uuid.UUID]int, n)
	for _, ev := range evs {
		lo, hi = min(lo, v7Millis(ev.EventID)), max(hi, v7Millis(ev.EventID))
		want[ev.EventID] = ev.Seq
	}
	if len(want) != n {
		t.Fatalf("%d distinct ids for %d saves", len(want), n)
	}
	var got []*event
	var cur kstore.Cursor
	for {
		it := e.events.List(ctx, &event{Stream: stream}, kstore.PageSize(2000), kstore.After(cur))
		page, err := it.All()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page...)
		if cur = it.Cursor(); cur.IsZero() {
			break
		}
	}
	if len(got) != n {
		t.Fatalf("%d rows, want %d", len(got), n)
	}
	for i, ev := range got {
		if seq, ok := want[ev.EventID]; !ok || seq != ev.Seq {
			t.Fatalf("row %d: %v seq %d is not a saved row", i, ev.EventID, ev.Seq)
		}
		if i > 0 && strings.Compare(string(got[i-1].EventID[:]), string(ev.EventID[:])) >= 0 {
			t.Fatalf("row %d out of generation order", i)
		}
	}
	t.Logf("%d saves in %v; ids generated within %d ms", n, took.Round(time.Millisecond), hi-lo)
}
