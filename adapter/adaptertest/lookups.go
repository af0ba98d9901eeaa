package adaptertest

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
)

// The lookup invariant on the node: every live entity is found through
// every lookup by every value it holds, and no read returns an entity that
// does not hold the value.

// testNonUniqueThousand: 1,000 entities share one EVENTUAL value; FindAll
// pages through all of them, and moving one away removes exactly its row.
func testNonUniqueThousand(t *testing.T, h *harness) {
	e := h.env(t)
	ref := uniq("shared")
	ids := map[uuid.UUID]bool{}
	var first *user
	for i := 0; i < 1000; i++ {
		u := &user{Email: uniq("m") + "@x.io", TicketRef: ref}
		if err := e.users.Save(ctx, u); err != nil {
			t.Fatal(err)
		}
		ids[u.UserID] = true
		if first == nil {
			first = u
		}
	}
	if err := e.rt.Close(ctx); err != nil { // the EVENTUAL rows are written
		t.Fatal(err)
	}
	e = h.env(t)
	byRef := kstore.MustLookupOf(e.users, userTicket)
	count := func() int {
		t.Helper()
		n, pages := 0, 0
		var opts []kstore.ListOption
		for {
			it := byRef.FindAll(ctx, ref, append(opts, kstore.PageSize(100))...)
			rows, err := it.All()
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range rows {
				if !ids[u.UserID] || u.TicketRef != ref {
					t.Fatalf("FindAll returned %+v", u)
				}
			}
			n += len(rows)
			pages++
			if it.Cursor().IsZero() {
				break
			}
			opts = []kstore.ListOption{kstore.After(it.Cursor())}
		}
		if pages < 10 {
			t.Fatalf("%d pages of 100 for %d rows", pages, n)
		}
		return n
	}
	if n := count(); n != 1000 {
		t.Fatalf("FindAll found %d of 1000", n)
	}
	moved := *first
	moved.TicketRef = uniq("own")
	if err := e.users.Update(ctx, first, &moved); err != nil {
		t.Fatal(err)
	}
	if err := e.rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	e = h.env(t)
	byRef = kstore.MustLookupOf(e.users, userTicket)
	delete(ids, first.UserID)
	if n := count(); n != 999 {
		t.Fatalf("after one moved away FindAll found %d of 999", n)
	}
	if n := h.rows(t, "users_by_ticket_ref", "ticket_ref = ?", ref); n != 999 {
		t.Fatalf("%d lookup rows for 999 holders", n)
	}
	if got, err := byRef.Find(ctx, moved.TicketRef); err != nil || got.UserID != first.UserID {
		t.Fatalf("Find of the moved value: %+v %v", got, err)
	}
}

// testSwapStorm: the trap of the old single-row lookup. A and B share an
// email, then two goroutines swap two users' emails 200 times; at the end
// every user is found by the email it holds, and only by it.
func testSwapStorm(t *testing.T, h *harness) {
	e := h.env(t)
	byEmail := kstore.MustLookupOf(e.users, userEmail)
	x := uniq("x") + "@x.io"
	a := &user{Email: x, DisplayName: "a"}
	b := &user{Email: x, DisplayName: "b"}
	for _, u := range []*user{a, b} {
		if err := e.users.Save(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	nb := *b
	nb.Email = uniq("y") + "@x.io"
	if err := e.users.Update(ctx, b, &nb); err != nil {
		t.Fatal(err)
	}
	if got, err := byEmail.Find(ctx, x); err != nil || got.UserID != a.UserID {
		t.Fatalf("A is stranded after B moved away from their shared email: %+v %v", got, err)
	}

	// Two users, two emails, swapped back and forth by two goroutines.
	u1 := &user{Email: uniq("s1") + "@x.io"}
	u2 := &user{Email: uniq("s2") + "@x.io"}
	for _, u := range []*user{u1, u2} {
		if err := e.users.Save(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	emails := []string{u1.Email, u2.Email}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed atomic.Int32
	cur := map[uuid.UUID]*user{u1.UserID: u1, u2.UserID: u2}
	for g, u := range []*user{u1, u2} {
		wg.Add(1)
		go func(g int, id uuid.UUID) {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				mu.Lock()
				old := cur[id]
				nw := *old
				nw.Email = emails[(g+i+1)%2]
				mu.Unlock()
				if err := e.users.Update(ctx, old, &nw); err != nil {
					failed.Add(1)
					t.Error(err)
					return
				}
				mu.Lock()
				cur[id] = &nw
				mu.Unlock()
			}
		}(g, u.UserID)
	}
	wg.Wait()
	if failed.Load() > 0 {
		t.FailNow()
	}
	for _, u := range cur {
		found := false
		it := byEmail.FindAll(ctx, u.Email)
		rows, err := it.All()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if r.Email != u.Email {
				t.Fatalf("FindAll(%s) returned a user holding %s", u.Email, r.Email)
			}
			found = found || r.UserID == u.UserID
		}
		if !found {
			t.Fatalf("user %s holds %s and is not found by it", u.UserID, u.Email)
		}
		other := emails[0]
		if other == u.Email {
			other = emails[1]
		}
		if n := h.rows(t, "users_by_email", "email = ? AND user_id = ?", other, u.UserID.String()); n != 0 {
			t.Fatalf("user %s keeps a row of the email it left", u.UserID)
		}
	}
}

// testUniqueClaims: a unique value is held by one entity; taking it is an
// *kerrors.UniqueError naming the holder, with nothing written; moving away
// or deleting releases it; of 8 concurrent takers exactly one wins.
func testUniqueClaims(t *testing.T, h *harness) {
	e := h.env(t)
	byHandle := kstore.MustLookupOf(e.members, memberHandle)
	hd := uniq("h")
	a := &member{Handle: hd, Recovery: uniq("secret-a"), Name: "a"}
	if err := e.members.Save(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := e.members.Save(ctx, a); err != nil { // its own value again
		t.Fatalf("re-Save of the holder: %v", err)
	}
	b := &member{Handle: hd, Recovery: uniq("secret-b"), Name: "b"}
	err := e.members.Save(ctx, b)
	var ue *kerrors.UniqueError
	if !errors.As(err, &ue) || !errors.Is(err, kerrors.ErrKandra) || ue.Holder != a.MemberID || ue.Pending || ue.Lookup != "members_by_handle" {
		t.Fatalf("Save of a taken handle: %v", err)
	}
	if n := h.rows(t, "members", "member_id = ?", b.MemberID.String()); n != 0 {
		t.Fatal("the refused Save wrote its row")
	}
	c := &member{Handle: uniq("c"), Recovery: a.Recovery}
	if err := e.members.Save(ctx, c); !errors.As(err, &ue) || strings.Contains(err.Error(), a.Recovery) {
		t.Fatalf("a Sensitive unique value is printed or not refused: %v", err)
	}
	if n := h.rows(t, "members_by_handle", "handle = ?", c.Handle); n != 0 {
		t.Fatal("the refused Save kept its claim of its other unique value")
	}
	// A moves away: the handle is free.
	na := *a
	na.Handle = uniq("h2")
	if err := e.members.Update(ctx, a, &na); err != nil {
		t.Fatal(err)
	}
	if err := e.members.Save(ctx, b); err != nil {
		t.Fatalf("the released handle: %v", err)
	}
	if got, err := byHandle.Find(ctx, hd); err != nil || got.MemberID != b.MemberID {
		t.Fatalf("Find(handle) = %+v %v", got, err)
	}
	if got, err := byHandle.Find(ctx, na.Handle); err != nil || got.MemberID != a.MemberID {
		t.Fatalf("Find(new handle) = %+v %v", got, err)
	}
	// B is deleted: its handle is free.
	if err := e.members.HardDelete(ctx, b); err != nil {
		t.Fatal(err)
	}
	if n := h.rows(t, "members_by_handle", "handle = ?", hd); n != 0 {
		t.Fatal("HardDelete kept the claim")
	}
	// Eight new members race for one fresh handle.
	race := uniq("race")
	var won, lost atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			err := e.members.Save(ctx, &member{Handle: race, Recovery: uniq(fmt.Sprint("r", i))})
			switch {
			case err == nil:
				won.Add(1)
			case errors.Is(err, kerrors.ErrUnique):
				lost.Add(1)
			default:
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if won.Load() != 1 || lost.Load() != 7 {
		t.Fatalf("%d won and %d lost one handle", won.Load(), lost.Load())
	}
	if got, err := byHandle.FindAll(ctx, race).All(); err != nil || len(got) != 1 {
		t.Fatalf("holders of the raced handle: %d %v", len(got), err)
	}
}

// testUniqueStaleClaim: the claim of a writer that died between its claim
// and its primary write is refused while younger than the claim grace
// (the writer might still be on its way), then taken over.
func testUniqueStaleClaim(t *testing.T, h *harness) {
	const grace = 1500 * time.Millisecond
	e := h.env(t, kstore.WithClaimGrace(grace))
	byHandle := kstore.MustLookupOf(e.members, memberHandle)
	hd := uniq("stale")
	dead := uuid.New() // claimed, never written
	// The claim as a writer that died right after it left it.
	if err := h.n.Exec(ctx, "INSERT INTO "+h.ks+".members_by_handle (handle, member_id, kandra_claim) VALUES (?, ?, 42) IF NOT EXISTS", hd, dead.String()); err != nil {
		t.Fatal(err)
	}
	claimedAt := time.Now()
	m := &member{Handle: hd, Recovery: uniq("r")}
	err := e.members.Save(ctx, m)
	var ue *kerrors.UniqueError
	if time.Since(claimedAt) < grace-200*time.Millisecond && (!errors.As(err, &ue) || !ue.Pending || ue.Holder != dead) {
		t.Fatalf("a fresh claim of a missing holder: %v", err)
	}
	if _, err := byHandle.Find(ctx, hd); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatalf("Find of a claim without a holder: %v", err)
	}
	time.Sleep(time.Until(claimedAt.Add(grace + 200*time.Millisecond)))
	if err := e.members.Save(ctx, m); err != nil {
		t.Fatalf("the stale claim was not taken over: %v", err)
	}
	if got, err := byHandle.Find(ctx, hd); err != nil || got.MemberID != m.MemberID {
		t.Fatalf("Find after the takeover: %+v %v", got, err)
	}
	// A value a Save moved away from (no Update, so no release) is a stale
	// claim of a live holder: taken over at once, since the claim is old.
	old := &member{Handle: uniq("moved"), Recovery: uniq("r")}
	if err := e.members.Save(ctx, old); err != nil {
		t.Fatal(err)
	}
	first := old.Handle
	time.Sleep(grace + 100*time.Millisecond)
	old.Handle = uniq("moved2")
	if err := e.members.Save(ctx, old); err != nil {
		t.Fatal(err)
	}
	taker := &member{Handle: first, Recovery: uniq("r")}
	if err := e.members.Save(ctx, taker); err != nil {
		t.Fatalf("taking a value its claimant no longer holds: %v", err)
	}
	if got, err := byHandle.Find(ctx, first); err != nil || got.MemberID != taker.MemberID {
		t.Fatalf("Find after taking over a moved-away value: %+v %v", got, err)
	}
	// Another runtime (another process) saved the member a moment ago: a
	// move of this one leaves the old claim alone (that Save might still
	// be on its way), so the old value stays taken until the grace passes.
	other := h.env(t, kstore.WithClaimGrace(grace))
	p := &member{Handle: uniq("p"), Recovery: uniq("r")}
	if err := other.members.Save(ctx, p); err != nil {
		t.Fatal(err)
	}
	pOld := p.Handle
	moved := *p
	moved.Handle = uniq("p2")
	if err := e.members.Update(ctx, p, &moved); err != nil {
		t.Fatal(err)
	}
	if n := h.rows(t, "members_by_handle", "handle = ?", pOld); n != 1 {
		t.Fatalf("the old claim, renewed by another runtime within the grace, was released")
	}
	q := &member{Handle: pOld, Recovery: uniq("r")}
	if err := e.members.Save(ctx, q); !errors.As(err, &ue) || !ue.Pending {
		t.Fatalf("the old value within the grace: %v", err)
	}
	time.Sleep(grace + 200*time.Millisecond)
	if err := e.members.Save(ctx, q); err != nil {
		t.Fatalf("the old value after the grace: %v", err)
	}
	// Within one runtime, a move right after a Save releases at once.
	s1 := &member{Handle: uniq("s"), Recovery: uniq("r")}
	if err := e.members.Save(ctx, s1); err != nil {
		t.Fatal(err)
	}
	s1Old := s1.Handle
	s2 := *s1
	s2.Handle = uniq("s2")
	if err := e.members.Update(ctx, s1, &s2); err != nil {
		t.Fatal(err)
	}
	if err := e.members.Save(ctx, &member{Handle: s1Old, Recovery: uniq("r")}); err != nil {
		t.Fatalf("a value this runtime's own landed write renewed is released at once: %v", err)
	}
}
