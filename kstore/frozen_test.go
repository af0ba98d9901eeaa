package kstore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
)

// fShelf keeps frozen collections of each kind outside its key.
type fShelf struct {
	ID     string
	Tags   []string
	Labels map[string]struct{}
	Attrs  map[string]int32
}

func (s *fShelf) Describe(sc *kandra.Schema[fShelf]) {
	sc.Table("fshelves")
	kandra.Bind(sc, &s.ID, kandra.PartitionKey(0))
	kandra.Bind(sc, &s.Tags, kandra.Frozen())
	kandra.Bind(sc, &s.Labels, kandra.Frozen())
	kandra.Bind(sc, &s.Attrs, kandra.Frozen())
}

var (
	fShelves = kandra.MustRegister[fShelf]()
	sTags    = kandra.MustFieldOf(fShelves, func(s *fShelf) *[]string { return &s.Tags })
	sLabels  = kandra.MustFieldOf(fShelves, func(s *fShelf) *map[string]struct{} { return &s.Labels })
	sAttrs   = kandra.MustFieldOf(fShelves, func(s *fShelf) *map[string]int32 { return &s.Attrs })
)

// TestFrozenCollectionPatch: the in-place changes of a collection are
// refused on a frozen one before anything is sent, naming the column and
// the way out (write it whole); Set writes it whole, an empty one as an
// empty value; an element condition is refused; OmitNulls leaves an empty
// frozen collection written (it is a value, not null).
func TestFrozenCollectionPatch(t *testing.T) {
	d := &valRecorder{applied: true}
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5, Replication: kandra.SimpleStrategy(1)}, fShelves)
	rt, err := New(d, ks, WithClock(func() time.Time { return clock }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	shelves := MustNewRepo(rt, fShelves)
	ctx := context.Background()
	key := &fShelf{ID: "s"}
	for _, p := range []Patch[fShelf]{
		Append(sTags, "a"), Prepend(sTags, "a"), SetAt(sTags, 0, "a"), RemoveValues(sTags, "a"),
		Add(sLabels, "a"), Remove(sLabels, "a"),
		Put(sAttrs, "a", 1), PutAll(sAttrs, map[string]int32{"a": 1}), RemoveKeys(sAttrs, "a"),
	} {
		_, err := shelves.Patch(ctx, key, p)
		var ae *kerrors.ArgumentError
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), "is frozen (FROZEN<") || !strings.Contains(err.Error(), "write it whole only") || !strings.Contains(err.Error(), "set it with kstore.Set") {
			t.Errorf("%s: %v, want an *kerrors.ArgumentError naming the frozen column and kstore.Set", p, err)
		}
	}
	if _, err := shelves.Patch(ctx, key, Set(sTags, []string{"x"}).If(EqAt(sAttrs, "a", 1))); err == nil || !strings.Contains(err.Error(), "is frozen: compare it whole with Eq") {
		t.Errorf("an element condition on a frozen map: %v", err)
	}
	if n := len(d.qs); n != 0 {
		t.Fatalf("%d statements sent by refused calls", n)
	}
	if _, err := shelves.Patch(ctx, key, Set(sTags, []string{})); err != nil {
		t.Fatal(err)
	}
	if got := d.last().Statement.CQL(); !strings.Contains(got, "tags = ?") {
		t.Errorf("Set of a frozen list: %s", got)
	}
	if err := shelves.Save(ctx, &fShelf{ID: "s", Tags: []string{}, Labels: map[string]struct{}{}}, OmitNulls()); err != nil {
		t.Fatal(err)
	}
	unset := 0
	for _, v := range d.last().Values {
		if v == adapter.Unset {
			unset++
		}
	}
	if unset != 1 { // attrs, nil; the empty list and set are values
		t.Errorf("Save OmitNulls of empty frozen collections: %d unset values, want 1", unset)
	}
}

// pShelf keeps collections behind pointers.
type pShelf struct {
	ID     string
	Tags   *[]string
	Plain  *[]string
	Labels *map[string]struct{}
}

func (s *pShelf) Describe(sc *kandra.Schema[pShelf]) {
	sc.Table("pshelves")
	kandra.Bind(sc, &s.ID, kandra.PartitionKey(0))
	kandra.Bind(sc, &s.Tags, kandra.Frozen())
	kandra.Bind(sc, &s.Labels, kandra.Frozen())
}

// TestPointerToCollectionNull: a pointer to a collection is null as the
// collection is (nil; empty and not frozen), so OmitNulls leaves it unset
// instead of writing a tombstone; an empty frozen one is a value.
func TestPointerToCollectionNull(t *testing.T) {
	d := &valRecorder{applied: true}
	ts := kandra.MustRegister[pShelf]()
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5, Replication: kandra.SimpleStrategy(1)}, ts)
	rt, err := New(d, ks, WithClock(func() time.Time { return clock }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	shelves := MustNewRepo(rt, ts)
	var none []string
	for _, c := range []struct {
		e     pShelf
		unset int
	}{
		{pShelf{ID: "a", Tags: &none, Plain: &none}, 3},
		{pShelf{ID: "b", Tags: &[]string{}, Plain: &[]string{}, Labels: &map[string]struct{}{}}, 1}, // plain: empty, not frozen
		{pShelf{ID: "c", Tags: &[]string{"x"}, Plain: &[]string{"y"}}, 1},
	} {
		if err := shelves.Save(context.Background(), &c.e, OmitNulls()); err != nil {
			t.Fatal(err)
		}
		unset := 0
		for _, v := range d.last().Values {
			if v == adapter.Unset {
				unset++
			}
		}
		if unset != c.unset {
			t.Errorf("%s: %d unset values, want %d", c.e.ID, unset, c.unset)
		}
	}
}
