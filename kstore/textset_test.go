package kstore

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/cqlvalue"
	"github.com/kandra-go/kandra/kerrors"
)

// TestSetChangesOfText: Add and Remove on a set of text bind the elements
// given, sorted and without duplicates, as a *cqlvalue.TextSet (which the
// adapters write as a []string), and leave the caller's slice as it was;
// an element the column refuses is refused before anything is sent.
func TestSetChangesOfText(t *testing.T) {
	d, rt := newRecorder(t)
	cards := MustNewRepo(rt, fCards)
	key := &fCard{Board: "b", Pos: 1}
	ctx := context.Background()
	for _, c := range []struct {
		name string
		p    func(ks ...string) Patch[fCard]
	}{
		{"Add", func(ks ...string) Patch[fCard] { return Add(cLabels, ks...) }},
		{"Remove", func(ks ...string) Patch[fCard] { return Remove(cLabels, ks...) }},
	} {
		for _, in := range [][]string{{"b", "a", "b", "c", "a"}, {"x"}, {}, {"é", "e", "z"}} {
			given := slices.Clone(in)
			if _, err := cards.Patch(ctx, key, c.p(given...)); err != nil {
				t.Fatalf("%s%q: %v", c.name, in, err)
			}
			if !slices.Equal(given, in) {
				t.Errorf("%s%q changed the caller's slice to %q", c.name, in, given)
			}
			want := slices.Compact(slices.Sorted(slices.Values(in)))
			ts, ok := d.last().Values[0].(*cqlvalue.TextSet)
			if !ok || ts == nil || *ts == nil || !slices.Equal(*ts, want) {
				t.Errorf("%s%q bound %#v, want the TextSet %q (never nil: none is the empty set)", c.name, in, d.last().Values[0], want)
			}
		}
		sent := len(d.qs)
		_, err := cards.Patch(ctx, key, c.p("fine", "bad \xff"))
		var ve *kerrors.ValueError
		if !errors.As(err, &ve) || ve.Column != "labels" || !strings.Contains(ve.Reason, "UTF-8") {
			t.Errorf("%s of text that is not UTF-8: %v, want a *kerrors.ValueError on labels", c.name, err)
		}
		if len(d.qs) != sent {
			t.Errorf("%s of text that is not UTF-8 sent %d statements", c.name, len(d.qs)-sent)
		}
	}
}

// TestUnitSetChangesOfText: in a unit, each element Add or Remove binds is
// a cell of its own (two changes of one element of a row clash, of two
// elements do not), and the elements count toward the batch's size.
func TestUnitSetChangesOfText(t *testing.T) {
	ctx := context.Background()
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5,
		Replication: kandra.SimpleStrategy(1)}, fCards, fUsers)
	f, _, rt, _ := newFakeIn(t, ks, WithMaxBatchBytes(300))
	cards := MustNewRepo(rt, fCards)
	k := &fCard{Board: "a", Pos: 1}
	u := rt.Unit()
	cards.In(u).Patch(k, Add(cLabels, "x", "y"))
	cards.In(u).Patch(k, Remove(cLabels, "z", "y"))
	if _, err := u.Apply(ctx); err == nil || !strings.Contains(err.Error(), "a second write of an element of labels") {
		t.Errorf("Add and Remove of one element of a row: %v, want the clash of that element", err)
	}
	u = rt.Unit()
	cards.In(u).Patch(k, Add(cLabels, "x", "y"))
	cards.In(u).Patch(k, Remove(cLabels, "z"))
	if _, err := u.Apply(ctx); err != nil {
		t.Errorf("Add and Remove of other elements of a row: %v", err)
	}
	long := strings.Repeat("x", 200)
	f.clear()
	u = rt.Unit()
	cards.In(u).Patch(k, Add(cLabels, long))
	cards.In(u).Patch(&fCard{Board: "a", Pos: 2}, Add(cLabels, long[:199], "y"))
	if _, err := u.Apply(ctx); !errors.Is(err, kerrors.ErrBatchTooLarge) {
		t.Fatalf("two 200-byte elements under a 300-byte limit: %v, want ErrBatchTooLarge", err)
	}
	if len(f.sent()) != 0 {
		t.Fatalf("sent %+v", f.sent())
	}
}
