package adaptertest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
	"github.com/kandra-go/kandra/migrate"
)

// thread is a partition of posts sharing a static title and tags, soft
// deleted with a TTL of 2 s, with a BATCH lookup by author.
type thread struct {
	ThreadID string
	PostID   int64
	Author   string
	Body     string
	Title    string
	Tags     []string
	Deleted  bool
}

// Describe implements kandra's description.
func (p *thread) Describe(s *kandra.Schema[thread]) {
	s.Table("threads", kandra.SoftDelete(2*time.Second, &p.Deleted))
	kandra.Bind(s, &p.ThreadID, kandra.PartitionKey(0))
	kandra.Bind(s, &p.PostID, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &p.Author, kandra.Lookup("by_author", kandra.LookupBatch))
	kandra.Bind(s, &p.Title, kandra.Static())
	kandra.Bind(s, &p.Tags, kandra.Static())
}

// threadHits counts a thread's views (a static counter) and each post's
// likes.
type threadHits struct {
	ThreadID string
	PostID   int64
	Views    int64
	Likes    int64
}

// Describe implements kandra's description.
func (h *threadHits) Describe(s *kandra.Schema[threadHits]) {
	s.Table("thread_hits")
	kandra.Bind(s, &h.ThreadID, kandra.PartitionKey(0))
	kandra.Bind(s, &h.PostID, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Counter(s, &h.Views, kandra.Static())
	kandra.Counter(s, &h.Likes)
}

var (
	threadsTable    *kandra.Table[thread]
	threadHitsTable *kandra.Table[threadHits]
	threadView      kandra.Field[threadHits, int64]
	threadLike      kandra.Field[threadHits, int64]
	threadAuth      kandra.Field[thread, string]
)

// testStatic proves the static columns on the node: a row's Save writes
// them for the whole partition, SaveStatic and GetStatic write and read
// them by the partition key alone, a soft delete's TTL and a hard delete
// leave them, List skips the row a partition with statics and no rows
// returns, a backfill writes no lookup row for it, and a static counter
// counts per partition. It prints "real-server: static adapter=<Name>
// ok=<bool>".
func testStatic(t *testing.T, h *harness) {
	ok := false
	defer func() { fmt.Printf("real-server: static adapter=%s ok=%t\n", h.n.Name, ok && !t.Failed()) }()
	rt, err := kstore.New(h.d, h.keyspace)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(ctx) })
	threads := kstore.MustNewRepo(rt, threadsTable)
	id := uniq("t")
	for i, body := range []string{"a", "b"} {
		if err := threads.Save(ctx, &thread{ThreadID: id, PostID: int64(i + 1), Author: "ann", Body: body, Title: "first"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := threads.SaveStatic(ctx, &thread{ThreadID: id, PostID: 99, Body: "ignored", Title: "renamed", Tags: []string{"go", "cql"}}); err != nil {
		t.Fatal(err)
	}
	for _, post := range []int64{1, 2} {
		got, err := threads.Get(ctx, &thread{ThreadID: id, PostID: post})
		if err != nil || got.Title != "renamed" || !slices.Equal(got.Tags, []string{"go", "cql"}) {
			t.Fatalf("post %d after SaveStatic: %+v, %v; want the partition's new title and tags", post, got, err)
		}
	}
	if h.rows(t, "threads", "thread_id = ? AND post_id = 99", id) != 0 {
		t.Fatal("SaveStatic wrote a row for the entity's clustering key")
	}
	st, err := threads.GetStatic(ctx, &thread{ThreadID: id})
	if err != nil || st.ThreadID != id || st.Title != "renamed" || st.PostID != 0 || st.Body != "" {
		t.Fatalf("GetStatic = %+v, %v; want the partition key and the statics only", st, err)
	}

	// A soft delete rewrites the row with its TTL, never the statics.
	if err := threads.SoftDelete(ctx, &thread{ThreadID: id, PostID: 1, Author: "ann", Body: "a", Title: "renamed"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	if _, err := threads.Get(ctx, &thread{ThreadID: id, PostID: 1}); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatalf("the soft-deleted post after its TTL: %v, want not found", err)
	}
	if st, err := threads.GetStatic(ctx, &thread{ThreadID: id}); err != nil || st.Title != "renamed" {
		t.Fatalf("the statics after a soft delete's TTL passed: %+v, %v; want them kept", st, err)
	}

	// The last row deleted, the partition keeps its statics: the server
	// returns one row of them with a null post_id, which is no entity.
	if err := threads.HardDelete(ctx, &thread{ThreadID: id, PostID: 2, Author: "ann"}); err != nil {
		t.Fatal(err)
	}
	if n := h.rows(t, "threads", "thread_id = ?", id); n != 1 {
		t.Fatalf("the server returns %d rows for a partition of statics only, want 1", n)
	}
	if rows, err := threads.List(ctx, &thread{ThreadID: id}).All(); err != nil || len(rows) != 0 {
		t.Fatalf("List of a partition with statics and no rows = %+v, %v; want no entity", rows, err)
	}
	if rows, err := threads.List(ctx, &thread{ThreadID: id}, kstore.Reversed(), kstore.PageSize(1)).All(); err != nil || len(rows) != 0 {
		t.Fatalf("List (reversed, one per page) of it = %+v, %v; want no entity", rows, err)
	}
	if st, err := threads.GetStatic(ctx, &thread{ThreadID: id}); err != nil || st.Title != "renamed" {
		t.Fatalf("GetStatic of a partition without rows = %+v, %v", st, err)
	}

	// Statics written first, to a partition with no rows yet.
	fresh := uniq("t")
	if err := threads.SaveStatic(ctx, &thread{ThreadID: fresh, Title: "empty"}, kstore.TTL(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if st, err := threads.GetStatic(ctx, &thread{ThreadID: fresh}); err != nil || st.Title != "empty" {
		t.Fatalf("GetStatic of statics written alone = %+v, %v", st, err)
	}
	if _, err := threads.Get(ctx, &thread{ThreadID: fresh, PostID: 0}); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatalf("Get of a row never written, in a partition of statics only: %v, want not found", err)
	}
	if _, err := threads.GetStatic(ctx, &thread{ThreadID: uniq("none")}); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatalf("GetStatic of a partition never written: %v, want not found", err)
	}

	// A backfill scans the table: the partitions of statics only (id's
	// and fresh's) hold no entity, so it counts and fills other's row
	// alone.
	other := uniq("t")
	if err := threads.Save(ctx, &thread{ThreadID: other, PostID: 7, Author: "bob", Title: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := h.n.Exec(ctx, "TRUNCATE "+h.ks+".threads_by_author"); err != nil {
		t.Fatal(err)
	}
	stats, err := migrate.Backfill(ctx, h.d, h.keyspace, threadsTable.Schema().LookupTables()[0], migrate.BackfillOptions{PageSize: 100})
	if err != nil || stats.Rows != 1 || stats.Valued != 1 || !stats.Verified {
		t.Fatalf("backfill over the table: %+v, %v; want 1 row (the partitions of statics only are no entities)", stats, err)
	}
	holders, err := kstore.MustLookupOf(threads, threadAuth).FindAll(ctx, "bob").All()
	if err != nil || len(holders) != 1 || holders[0].ThreadID != other {
		t.Fatalf("after the backfill, bob's posts = %+v, %v; want the one saved", holders, err)
	}

	// A static counter counts per partition, incremented by the partition
	// key alone.
	hits := kstore.MustNewRepo(rt, threadHitsTable)
	views, likes := kstore.MustCounterOf(hits, threadView), kstore.MustCounterOf(hits, threadLike)
	tid := uniq("t")
	for _, post := range []int64{5, 6} {
		if err := likes.Increment(ctx, &threadHits{ThreadID: tid, PostID: post}, 1); err != nil {
			t.Fatal(err)
		}
		if err := views.Increment(ctx, &threadHits{ThreadID: tid, PostID: post}, 1); err != nil {
			t.Fatal(err)
		}
	}
	for _, post := range []int64{5, 6} {
		got, err := hits.Get(ctx, &threadHits{ThreadID: tid, PostID: post})
		if err != nil || got.Views != 2 || got.Likes != 1 {
			t.Fatalf("post %d: %+v, %v; want the thread's 2 views and its own like", post, got, err)
		}
	}

	// A table without statics, a counter table's statics: refused before
	// sending.
	var ae *kerrors.ArgumentError
	if err := kstore.MustNewRepo(rt, usersTable).SaveStatic(ctx, &user{}); !errors.As(err, &ae) {
		t.Fatalf("SaveStatic on a table without static columns: %v, want an *kerrors.ArgumentError", err)
	}
	if err := hits.SaveStatic(ctx, &threadHits{ThreadID: tid}); !errors.As(err, &ae) {
		t.Fatalf("SaveStatic on a counter table: %v, want an *kerrors.ArgumentError", err)
	}
	ok = true
}
