package kstore

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
)

// oAccount is versioned, with a unique lookup; oHits is a counter table.
type oAccount struct {
	ID      uuid.UUID
	Handle  string
	Nick    string
	Version int64
}

func (a *oAccount) Describe(s *kandra.Schema[oAccount]) {
	s.Table("oaccounts")
	kandra.Bind(s, &a.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &a.Handle, kandra.Lookup("by_handle", kandra.LookupUnique))
	kandra.Bind(s, &a.Nick, kandra.Lookup("by_nick", kandra.LookupEventual))
	kandra.Version(s, &a.Version)
}

type oHits struct {
	Page string
	N    int64
}

func (h *oHits) Describe(s *kandra.Schema[oHits]) {
	s.Table("ohits")
	kandra.Bind(s, &h.Page, kandra.PartitionKey(0))
	kandra.Counter(s, &h.N)
}

var (
	oAccounts = kandra.MustRegister[oAccount]()
	oHitsT    = kandra.MustRegister[oHits]()
	oHitsN    = kandra.MustFieldOf(oHitsT, func(h *oHits) *int64 { return &h.N })
)

// lostAnswer is the fake driver whose statements containing on lose their
// answer after they applied, as an adapter reports it
// (adapter.UnknownOutcome).
type lostAnswer struct {
	noMigrator
	*fake
	on string
}

func (d *lostAnswer) Exec(ctx context.Context, q *adapter.Query) (bool, error) {
	applied, err := d.fake.Exec(ctx, q)
	if err == nil && strings.Contains(q.Statement.CQL(), d.on) {
		return false, adapter.UnknownOutcome(errors.New("gocql: no response received from cassandra within timeout period"))
	}
	return applied, err
}

func newLostAnswer(t *testing.T, on string) (*lostAnswer, *Store) {
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5,
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3})}, oAccounts, oHitsT)
	d := &lostAnswer{fake: &fake{applied: true}, on: on}
	rt, err := New(d, ks)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	return d, rt
}

// unknownOutcome checks err: a *kerrors.QueryError matching
// ErrUnknownOutcome, never a conflict, whose message says how to resolve
// it.
func unknownOutcome(t *testing.T, err error) {
	t.Helper()
	var qe *kerrors.QueryError
	if !errors.As(err, &qe) || !errors.Is(err, kerrors.ErrUnknownOutcome) || errors.Is(err, kerrors.ErrOptimisticLock) {
		t.Fatalf("err = %v, want a *kerrors.QueryError matching ErrUnknownOutcome and not ErrOptimisticLock", err)
	}
	if !strings.Contains(qe.Message, "may have applied") || !strings.Contains(qe.Message, "kstore.Consistency(kandra.ConsistencySerial)") {
		t.Errorf("the message does not say how to resolve it: %q", qe.Message)
	}
}

// released reports whether a claim of lookup table lt was released (a
// DELETE ... IF of the claim).
func released(d *lostAnswer, lt string) bool {
	for _, s := range d.sent() {
		if strings.HasPrefix(s.cql, "DELETE FROM ks."+lt) {
			return true
		}
	}
	return false
}

// TestUnknownOutcomeKeepsClaims: a conditional write whose answer is lost
// is an unknown outcome, never "not written" or a conflict, and the
// unique values the call claimed are not given back: the write may hold
// them.
func TestUnknownOutcomeKeepsClaims(t *testing.T) {
	ctx := context.Background()
	t.Run("SaveIfNotExists", func(t *testing.T) {
		d, rt := newLostAnswer(t, "INSERT INTO ks.oaccounts ")
		a := &oAccount{ID: uuid.New(), Handle: "h"}
		ok, err := MustNewRepo(rt, oAccounts).SaveIfNotExists(ctx, a)
		if ok {
			t.Fatal("written though the answer was lost")
		}
		unknownOutcome(t, err)
		if released(d, "oaccounts_by_handle") {
			t.Error("the claim was given back though the write may have applied")
		}
	})
	t.Run("Save", func(t *testing.T) {
		d, rt := newLostAnswer(t, "UPDATE ks.oaccounts ")
		unknownOutcome(t, MustNewRepo(rt, oAccounts).Save(ctx, &oAccount{ID: uuid.New(), Handle: "h"}))
		if released(d, "oaccounts_by_handle") {
			t.Error("the claim was given back though the write may have applied")
		}
	})
	t.Run("Update", func(t *testing.T) {
		d, rt := newLostAnswer(t, "UPDATE ks.oaccounts ")
		old := &oAccount{ID: uuid.New(), Handle: "h", Version: 3}
		nw := *old
		nw.Handle = "h2"
		unknownOutcome(t, MustNewRepo(rt, oAccounts).Update(ctx, old, &nw))
		if released(d, "oaccounts_by_handle") {
			t.Error("a claim was given back though the write may have applied")
		}
	})
	t.Run("Increment", func(t *testing.T) {
		_, rt := newLostAnswer(t, "UPDATE ks.ohits ")
		unknownOutcome(t, MustCounterOf(MustNewRepo(rt, oHitsT), oHitsN).Increment(ctx, &oHits{Page: "/"}, 1))
	})
}

// TestUnknownOutcomeQueuesEventualRows: a Save whose answer is lost may
// have applied, and then its EVENTUAL lookup rows are due; written for a
// write that did not apply, they point to an entity that does not hold
// their value, which reads skip.
func TestUnknownOutcomeQueuesEventualRows(t *testing.T) {
	for _, call := range []string{"Save", "SaveIfNotExists"} {
		d, rt := newLostAnswer(t, "UPDATE ks.oaccounts SET")
		if call == "SaveIfNotExists" {
			d.on = "INSERT INTO ks.oaccounts "
		}
		accounts := MustNewRepo(rt, oAccounts)
		a := &oAccount{ID: uuid.New(), Handle: "h-" + call, Nick: "n-" + call}
		var err error
		if call == "Save" {
			err = accounts.Save(context.Background(), a)
		} else {
			_, err = accounts.SaveIfNotExists(context.Background(), a)
		}
		unknownOutcome(t, err)
		if err := rt.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, s := range d.sent() {
			found = found || strings.HasPrefix(s.cql, "INSERT INTO ks.oaccounts_by_nick")
		}
		if !found {
			t.Errorf("%s with a lost answer queued no EVENTUAL lookup row: %+v", call, d.sent())
		}
	}
}
