package kstore

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

// fSlot's key and lookups hold values with many Go forms per stored
// value: times (zones, sub-millisecond parts) and IPv4 addresses (4 or 16
// bytes in Go, 4 stored).
type fSlot struct {
	Room  string
	Start time.Time
	Addr  net.IP
	At    time.Time
	Note  string
}

func (s *fSlot) Describe(sc *kandra.Schema[fSlot]) {
	sc.Table("fslots")
	kandra.Bind(sc, &s.Room, kandra.PartitionKey(0))
	kandra.Bind(sc, &s.Start, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(sc, &s.Addr, kandra.Lookup("by_addr", kandra.LookupBatch))
	kandra.Bind(sc, &s.At, kandra.Lookup("by_at", kandra.LookupEventual))
}

var fSlots = kandra.MustRegister[fSlot]()

var (
	cest   = time.FixedZone("CEST", 2*3600)
	tenUTC = time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
)

// otherForms are fSlot values of one stored row and lookup values, in
// other Go forms.
func otherForms() (a, b *fSlot) {
	a = &fSlot{Room: "r1", Start: tenUTC, Addr: net.IP{10, 0, 0, 1}, At: tenUTC}
	b = &fSlot{Room: "r1", Start: tenUTC.In(cest).Add(400 * time.Microsecond), Addr: net.ParseIP("10.0.0.1"), At: tenUTC.In(cest), Note: "b"}
	return a, b
}

func TestSaveAllRefusesOneStoredRowInTwoGoForms(t *testing.T) {
	_, _, rt, _ := newFake(t)
	slots := MustNewRepo(rt, fSlots)
	a, b := otherForms()
	for _, call := range []func() error{
		func() error { return slots.SaveAll(context.Background(), []*fSlot{a, b}) },
		func() error { return slots.DeleteAll(context.Background(), []*fSlot{a, b}) },
	} {
		err := call()
		if !errors.Is(err, kerrors.ErrArgument) || !strings.Contains(err.Error(), "entities[1]") {
			t.Fatalf("one stored row twice in a batch: %v, want an ArgumentError naming entities[1]", err)
		}
	}
	// One partition in two Go forms is one partition: the rows alone go
	// UNLOGGED.
	f, _, rt2, _ := newFake(t)
	slots2 := MustNewRepo(rt2, fSlots)
	c := &fSlot{Room: "r1", Start: tenUTC.Add(time.Hour)}
	d := &fSlot{Room: "r1", Start: tenUTC.Add(2 * time.Hour).In(cest)}
	if err := slots2.SaveAll(context.Background(), []*fSlot{c, d}); err != nil {
		t.Fatal(err)
	}
	// The EVENTUAL lookup rows are written after the batch, by the
	// store's worker, whenever it runs: only the batch is looked at.
	if log := f.sent(); len(log) == 0 || len(log[0].batch) != 2 || !log[0].unlogged {
		t.Fatalf("one partition's rows: %+v, want one UNLOGGED batch first", log)
	}
}

func TestUpdateKeepsALookupValueGivenInAnotherGoForm(t *testing.T) {
	f, _, rt, _ := newFake(t)
	slots := MustNewRepo(rt, fSlots)
	old, nw := otherForms()
	// nw's key is old's, in another zone and with sub-ms parts: the same
	// row, so the Update is no key change.
	if err := slots.Update(context.Background(), old, nw); err != nil {
		t.Fatal(err)
	}
	if err := rt.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, s := range f.sent() {
		for _, cql := range append([]string{s.cql}, s.batch...) {
			// Deleting a lookup row and writing it again at one timestamp
			// leaves the tombstone: the entity would be unfindable.
			if strings.HasPrefix(cql, "DELETE FROM ks.fslots_by_") {
				t.Errorf("Update with unchanged stored lookup values sent %q", cql)
			}
		}
	}
	// A value that is stored differently still moves.
	moved := *nw
	moved.Addr = net.ParseIP("10.0.0.2")
	f.log = nil
	if err := slots.Update(context.Background(), nw, &moved); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range f.sent() {
		for _, cql := range s.batch {
			found = found || strings.HasPrefix(cql, "DELETE FROM ks.fslots_by_addr")
		}
	}
	if !found {
		t.Errorf("a moved address deleted no lookup row: %+v", f.sent())
	}
}

// sCode names its own CQL type: kandra leaves its bytes to the driver.
type sCode struct{ V string }

func (sCode) CQLType() kandra.CQLType { return kandra.CQLAscii }

type fCoded struct {
	Code sCode
	Note string
}

func (c *fCoded) Describe(s *kandra.Schema[fCoded]) {
	s.Table("fcoded")
	kandra.Bind(s, &c.Code, kandra.PartitionKey(0))
}

// TestSaveAllRefusesOneKeyWithNoStoredForm: a key kandra cannot encode
// is compared as a Go value, as SameStored does: two equal ones are one
// row.
func TestSaveAllRefusesOneKeyWithNoStoredForm(t *testing.T) {
	coded := kandra.MustRegister[fCoded]()
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5,
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3})}, coded)
	rt, err := New(&fake{applied: true}, ks)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	repo := MustNewRepo(rt, coded)
	err = repo.SaveAll(context.Background(), []*fCoded{{Code: sCode{"a"}}, {Code: sCode{"a"}, Note: "b"}})
	if !errors.Is(err, kerrors.ErrArgument) {
		t.Fatalf("two equal keys with no stored form: %v, want an ArgumentError", err)
	}
	if err := repo.SaveAll(context.Background(), []*fCoded{{Code: sCode{"a"}}, {Code: sCode{"b"}}}); err != nil {
		t.Fatal(err)
	}
}
