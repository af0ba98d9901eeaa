package kstore

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

// fPost has a BATCH and an EVENTUAL lookup, and no version.
type fPost struct {
	Board  string
	PostID int64
	Author string
	Tag    string
}

func (p *fPost) Describe(s *kandra.Schema[fPost]) {
	s.Table("fposts")
	kandra.Bind(s, &p.Board, kandra.PartitionKey(0))
	kandra.Bind(s, &p.PostID, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &p.Author, kandra.Lookup("by_author", kandra.LookupBatch))
	kandra.Bind(s, &p.Tag, kandra.Lookup("by_tag", kandra.LookupEventual))
}

var fPosts = kandra.MustRegister[fPost]()

func TestSaveAllAndDeleteAllBatches(t *testing.T) {
	f, _, rt, _ := newFake(t)
	posts := MustNewRepo(rt, fPosts)
	ctx := context.Background()

	// One partition, no lookup values: the rows alone, UNLOGGED.
	if err := posts.SaveAll(ctx, []*fPost{{Board: "a", PostID: 1}, {Board: "a", PostID: 2}}); err != nil {
		t.Fatal(err)
	}
	// Two partitions, or lookup rows: LOGGED; EVENTUAL rows after it.
	if err := posts.SaveAll(ctx, []*fPost{{Board: "a", PostID: 3}, {Board: "b", PostID: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := posts.SaveAll(ctx, []*fPost{{Board: "a", PostID: 4, Author: "ann", Tag: "go"}, {Board: "a", PostID: 5}}); err != nil {
		t.Fatal(err)
	}
	if err := rt.Wait(ctx); err != nil { // the EVENTUAL row, before the next call
		t.Fatal(err)
	}
	if err := posts.DeleteAll(ctx, []*fPost{{Board: "a", PostID: 4, Author: "ann"}, {Board: "a", PostID: 5}}); err != nil {
		t.Fatal(err)
	}
	if err := posts.SaveAll(ctx, []*fPost{{Board: "c", PostID: 1}}); err != nil { // one entity: one statement
		t.Fatal(err)
	}
	if err := posts.SaveAll(ctx, nil); err != nil { // nothing: nothing sent
		t.Fatal(err)
	}
	if err := rt.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	log := f.sent()
	want := []struct {
		n        int
		unlogged bool
		first    string
	}{{2, true, "INSERT INTO ks.fposts "}, {2, false, "INSERT INTO ks.fposts "}, {3, false, "INSERT INTO ks.fposts "},
		{0, false, "INSERT INTO ks.fposts_by_tag"}, {3, false, "DELETE FROM ks.fposts "}, {0, false, "INSERT INTO ks.fposts "}}
	if len(log) != len(want) {
		t.Fatalf("sent %d statements or batches, want %d: %+v", len(log), len(want), log)
	}
	for i, w := range want {
		first := log[i].cql
		if w.n > 0 {
			first = log[i].batch[0]
		}
		if len(log[i].batch) != w.n || log[i].unlogged != w.unlogged || !strings.HasPrefix(first, w.first) {
			t.Errorf("send %d: %+v, want %d entries (unlogged %v) starting %q", i, log[i], w.n, w.unlogged, w.first)
		}
	}
	if !strings.HasPrefix(log[2].batch[1], "INSERT INTO ks.fposts_by_author") || !strings.HasPrefix(log[4].batch[1], "DELETE FROM ks.fposts_by_author") {
		t.Errorf("the BATCH lookup rows are not in the batches: %q, %q", log[2].batch, log[4].batch)
	}
}

func TestSaveAllRefusals(t *testing.T) {
	f, users, rt, _ := newFake(t)
	posts := MustNewRepo(rt, fPosts)
	ctx := context.Background()
	var ae *kerrors.ArgumentError
	for name, err := range map[string]error{
		"versioned":          users.SaveAll(ctx, []*fUser{{Email: "a"}}),
		"versioned delete":   users.DeleteAll(ctx, []*fUser{{Email: "a"}}),
		"nil entity":         posts.SaveAll(ctx, []*fPost{{Board: "a"}, nil}),
		"too many entities":  posts.SaveAll(ctx, make([]*fPost, MaxBatchEntities+1)),
		"null key component": posts.DeleteAll(ctx, []*fPost{{Board: ""}}),
	} {
		if !errors.As(err, &ae) {
			t.Errorf("%s: %v, want an *kerrors.ArgumentError", name, err)
		}
	}
	big := strings.Repeat("x", 40<<10)
	err := posts.SaveAll(ctx, []*fPost{{Board: "a", PostID: 1, Author: big}, {Board: "a", PostID: 2, Author: big}})
	if !errors.Is(err, kerrors.ErrBatchTooLarge) {
		t.Errorf("a batch over the limit: %v, want ErrBatchTooLarge", err)
	}
	if log := f.sent(); len(log) != 0 {
		t.Fatalf("refused calls sent %+v", log)
	}
}

// A SaveAll of one entity leaves the pooled scratch as it found it: the
// next Save's batch of a row and its lookup row stays LOGGED.
func TestSaveAllLeavesNoUnloggedBatch(t *testing.T) {
	f, _, rt, _ := newFake(t)
	posts := MustNewRepo(rt, fPosts)
	ctx := context.Background()
	for i := 0; i < 50; i++ {
		if err := posts.SaveAll(ctx, []*fPost{{Board: "c", PostID: 1}}); err != nil {
			t.Fatal(err)
		}
		if err := posts.Save(ctx, &fPost{Board: "d", PostID: 1, Author: "ann"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range f.sent() {
		if s.unlogged {
			t.Fatalf("a batch went out UNLOGGED: %+v", s)
		}
	}
}

func TestSaveAllRefusesOneKeyTwice(t *testing.T) {
	f, _, rt, _ := newFake(t)
	posts := MustNewRepo(rt, fPosts)
	var ae *kerrors.ArgumentError
	err := posts.SaveAll(context.Background(), []*fPost{{Board: "a", PostID: 1, Tag: "x"}, {Board: "b", PostID: 1}, {Board: "a", PostID: 1, Tag: "y"}})
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "entities[2]") || !strings.Contains(err.Error(), "entities[0]") {
		t.Fatalf("%v, want an *kerrors.ArgumentError naming entities[2] and entities[0]", err)
	}
	if err := posts.DeleteAll(context.Background(), []*fPost{{Board: "a", PostID: 1}, {Board: "a", PostID: 1}}); !errors.As(err, &ae) {
		t.Fatalf("DeleteAll of one key twice: %v", err)
	}
	if len(f.sent()) != 0 {
		t.Fatalf("sent %+v", f.sent())
	}
}

// A batch under the estimate that the server refuses as too large (the
// estimate is a lower bound) matches ErrBatchTooLarge all the same.
func TestServerRefusedBatchIsTooLarge(t *testing.T) {
	f, _, rt, _ := newFake(t)
	posts := MustNewRepo(rt, fPosts)
	f.batchErr = errors.New("Batch too large")
	err := posts.SaveAll(context.Background(), []*fPost{{Board: "a", PostID: 1}, {Board: "b", PostID: 1}})
	if !errors.Is(err, kerrors.ErrBatchTooLarge) || !errors.Is(err, kerrors.ErrQuery) {
		t.Fatalf("server's batch refusal: %v, want ErrBatchTooLarge and ErrQuery", err)
	}
	f.batchErr = errors.New("unavailable")
	if err := posts.SaveAll(context.Background(), []*fPost{{Board: "a", PostID: 1}, {Board: "b", PostID: 1}}); errors.Is(err, kerrors.ErrBatchTooLarge) {
		t.Fatalf("another batch error matches ErrBatchTooLarge: %v", err)
	}
}
