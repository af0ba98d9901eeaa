package adaptertest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
)

// testSaveAllDeleteAll proves SaveAll and DeleteAll on the node: rows of
// one partition (an UNLOGGED batch) and of several, with their BATCH and
// EVENTUAL lookup rows, written and deleted together; a versioned table
// refused before sending. It prints "real-server: batch adapter=<Name>
// ok=<bool>".
func testSaveAllDeleteAll(t *testing.T, h *harness) {
	ok := false
	defer func() { fmt.Printf("real-server: batch adapter=%s ok=%t\n", h.n.Name, ok && !t.Failed()) }()
	e := h.env(t)
	stream := uniq("s")
	evs := []*event{{Stream: stream, Seq: 1}, {Stream: stream, Seq: 2}, {Stream: stream, Seq: 3}}
	if err := e.events.SaveAll(ctx, evs); err != nil {
		t.Fatal(err)
	}
	got, err := e.events.List(ctx, &event{Stream: stream}).All()
	if err != nil || len(got) != 3 || got[0].Seq != 1 || got[2].Seq != 3 {
		t.Fatalf("List after SaveAll: %+v, %v", got, err)
	}
	if err := e.events.DeleteAll(ctx, evs[:2]); err != nil {
		t.Fatal(err)
	}
	if got, err := e.events.List(ctx, &event{Stream: stream}).All(); err != nil || len(got) != 1 || got[0].Seq != 3 {
		t.Fatalf("List after DeleteAll of two: %+v, %v", got, err)
	}

	// Users in two partitions, with a BATCH and an EVENTUAL lookup each.
	us := []*user{{Email: uniq("a") + "@x", TicketRef: uniq("T"), DisplayName: "A"}, {Email: uniq("b") + "@x", TicketRef: uniq("T"), DisplayName: "B"}}
	if err := e.users.SaveAll(ctx, us); err != nil {
		t.Fatal(err)
	}
	if err := e.rt.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	byEmail, byTicket := kstore.MustLookupOf(e.users, userEmail), kstore.MustLookupOf(e.users, userTicket)
	for _, u := range us {
		if f, err := byEmail.Find(ctx, u.Email); err != nil || f.UserID != u.UserID {
			t.Fatalf("Find by email after SaveAll: %+v, %v", f, err)
		}
		if f, err := byTicket.Find(ctx, u.TicketRef); err != nil || f.UserID != u.UserID {
			t.Fatalf("Find by ticket after SaveAll: %+v, %v", f, err)
		}
	}
	if err := e.users.DeleteAll(ctx, us); err != nil {
		t.Fatal(err)
	}
	for _, u := range us {
		if _, err := e.users.Get(ctx, u); !errors.Is(err, kerrors.ErrNotFound) {
			t.Fatalf("Get after DeleteAll: %v", err)
		}
		if n := h.rows(t, "users_by_email", "email = ?", u.Email); n != 0 {
			t.Fatalf("%d email lookup rows left after DeleteAll", n)
		}
		if n := h.rows(t, "users_by_ticket_ref", "ticket_ref = ?", u.TicketRef); n != 0 {
			t.Fatalf("%d ticket lookup rows left after DeleteAll", n)
		}
	}
	var ae *kerrors.ArgumentError
	if err := e.wallets.SaveAll(ctx, []*wallet{{WalletID: uniq("w")}}); !errors.As(err, &ae) {
		t.Fatalf("SaveAll on a versioned table: %v, want an *kerrors.ArgumentError", err)
	}
	ok = true
}
