package kstore

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

// TestOneEntry: every call refuses the same thing with the same error
// kind, whatever the call: a nil context is an ArgumentError, a closed
// store a QueryError matching ErrClosed, a write of rows to a counter
// table an ArgumentError naming the table and the way out; nothing
// reaches the driver.
func TestOneEntry(t *testing.T) {
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5, Replication: kandra.SimpleStrategy(1)}, fUsers, fHitsT)
	f := &fake{applied: true}
	rt, err := New(f, ks)
	if err != nil {
		t.Fatal(err)
	}
	users, hits := MustNewRepo(rt, fUsers), MustNewRepo(rt, fHitsT)
	byEmail := MustLookupOf(users, kandra.MustFieldOf(fUsers, func(u *fUser) *string { return &u.Email }))
	counter := MustCounterOf(hits, hitsN)
	ctx := context.Background()
	u := &fUser{Email: "a@b"}
	calls := map[string]func(context.Context) error{
		"Save":            func(ctx context.Context) error { return users.Save(ctx, u) },
		"SaveIfNotExists": func(ctx context.Context) error { _, err := users.SaveIfNotExists(ctx, u); return err },
		"Update":          func(ctx context.Context) error { v := *u; return users.Update(ctx, u, &v) },
		"Delete":          func(ctx context.Context) error { return users.Delete(ctx, u) },
		"SaveAll":         func(ctx context.Context) error { return users.SaveAll(ctx, []*fUser{u}) },
		"DeleteAll":       func(ctx context.Context) error { return users.DeleteAll(ctx, []*fUser{u}) },
		"Get":             func(ctx context.Context) error { _, err := users.Get(ctx, u); return err },
		"GetMany":         func(ctx context.Context) error { _, err := users.GetMany(ctx, []*fUser{u}); return err },
		"List":            func(ctx context.Context) error { return users.List(ctx, u).Err() },
		"Find":            func(ctx context.Context) error { _, err := byEmail.Find(ctx, "a@b"); return err },
		"FindAll":         func(ctx context.Context) error { return byEmail.FindAll(ctx, "a@b").Err() },
		"Increment":       func(ctx context.Context) error { return counter.Increment(ctx, &fHits{Page: "p"}, 1) },
	}
	for name, call := range calls {
		if err := call(nil); !errors.Is(err, kerrors.ErrArgument) || !strings.Contains(err.Error(), "ctx") {
			t.Errorf("%s with a nil context: %v, want an ArgumentError naming ctx", name, err)
		}
	}
	for name, write := range map[string]func() error{
		"Save":            func() error { return hits.Save(ctx, &fHits{Page: "p"}) },
		"SaveIfNotExists": func() error { _, err := hits.SaveIfNotExists(ctx, &fHits{Page: "p"}); return err },
		"Update":          func() error { return hits.Update(ctx, &fHits{Page: "p"}, &fHits{Page: "p", N: 1}) },
		"SaveAll":         func() error { return hits.SaveAll(ctx, []*fHits{{Page: "p"}}) },
	} {
		err := write()
		if !errors.Is(err, kerrors.ErrArgument) || !strings.Contains(err.Error(), "fhits is a counter table") || !strings.Contains(err.Error(), "Increment") {
			t.Errorf("%s on a counter table: %v, want the one ArgumentError", name, err)
		}
	}
	if err := rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for name, call := range calls {
		if err := call(ctx); !errors.Is(err, kerrors.ErrClosed) || !errors.Is(err, kerrors.ErrQuery) {
			t.Errorf("%s on a closed store: %v, want a QueryError matching ErrClosed", name, err)
		}
	}
	if sent := f.sent(); len(sent) != 0 {
		t.Fatalf("sent %v", sent)
	}
}

// TestSkipDeletedRefusedWhereItCannotApply: GetStatic and Raw.Query take
// the read options, but have no row to judge: SkipDeleted there is an
// ArgumentError naming it, never silently ignored.
func TestSkipDeletedRefusedWhereItCannotApply(t *testing.T) {
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "app", Replication: kandra.SimpleStrategy(1), Targets: kandra.Cassandra5}, fPersons, fUsers)
	f := &fake{applied: true}
	rt, err := New(f, ks)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	ctx := context.Background()
	_, err = MustNewRepo(rt, fPersons).GetStatic(ctx, &fPerson{ID: "a"}, SkipDeleted())
	if !errors.Is(err, kerrors.ErrArgument) || !strings.Contains(err.Error(), "SkipDeleted") {
		t.Errorf("GetStatic with SkipDeleted: %v", err)
	}
	q := MustPrepare(MustNewRepo(rt, fUsers), "SELECT * FROM fusers")
	if err := q.Query(ctx, nil, SkipDeleted()).Err(); !errors.Is(err, kerrors.ErrArgument) || !strings.Contains(err.Error(), "SkipDeleted") {
		t.Errorf("Raw.Query with SkipDeleted: %v", err)
	}
	if sent := f.sent(); len(sent) != 0 {
		t.Fatalf("sent %v", sent)
	}
}
