package kstore

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

type fContact struct {
	Email *string
	Phone *string
}

type fPerson struct {
	ID      string
	Seq     int32
	Contact *fContact
	Home    fContact
	Desk    *fContact
	Card    *fContact
}

func (p *fPerson) Describe(s *kandra.Schema[fPerson]) {
	s.Table("fpersons")
	kandra.Bind(s, &p.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &p.Seq, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &p.Desk, kandra.Static())
	kandra.Bind(s, &p.Card, kandra.Frozen())
}

var fPersons = kandra.MustRegister[fPerson]()

// TestNullUDTRefused: a non-nil pointer whose fields are all null, in a
// column of a user-defined type of its own (not frozen), would read back
// nil; every write refuses it before sending anything.
func TestNullUDTRefused(t *testing.T) {
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "app", Replication: kandra.SimpleStrategy(1), Targets: kandra.Cassandra5}, fPersons)
	f := &fake{applied: true}
	rt, err := New(f, ks)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	r := MustNewRepo(rt, fPersons)
	ctx := context.Background()
	x := "x"
	refused := func(what, column string, err error) {
		t.Helper()
		var ve *kerrors.ValueError
		if !errors.As(err, &ve) || ve.Column != column || !strings.Contains(ve.Reason, "reads the column back as null") {
			t.Errorf("%s: %v; want an *kerrors.ValueError on %s", what, err, column)
		}
	}
	refused("Save", "contact", r.Save(ctx, &fPerson{ID: "a", Contact: &fContact{}}))
	refused("Save of a static", "desk", r.Save(ctx, &fPerson{ID: "a", Desk: &fContact{}}))
	refused("SaveAll", "contact", r.SaveAll(ctx, []*fPerson{{ID: "a"}, {ID: "b", Contact: &fContact{}}}))
	refused("Update", "contact", r.Update(ctx, &fPerson{ID: "a"}, &fPerson{ID: "a", Contact: &fContact{}}))
	refused("SaveStatic", "desk", r.SaveStatic(ctx, &fPerson{ID: "a", Desk: &fContact{}}))
	if _, err := r.SaveIfNotExists(ctx, &fPerson{ID: "a", Contact: &fContact{}}); err == nil {
		t.Error("SaveIfNotExists: no error")
	}
	if got := f.sent(); len(got) != 0 {
		t.Fatalf("sent %v", got)
	}
	// A nil pointer, a field set, a struct (never a pointer) and a Frozen
	// column (one value, its null fields kept) are sent.
	for _, p := range []*fPerson{{ID: "a"}, {ID: "a", Contact: &fContact{Email: &x}, Desk: &fContact{Phone: &x}}, {ID: "a", Home: fContact{}}, {ID: "a", Card: &fContact{}}} {
		if err := r.Save(ctx, p); err != nil {
			t.Errorf("%+v: %v", p, err)
		}
	}
}
