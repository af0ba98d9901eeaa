package adaptertest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
	"github.com/kandra-go/kandra/migrate"
)

// A Version added to a table that has rows: the migration history on the
// node, then the versioned entity over the rows written without one.

// docV1 is a soft-deleted document as it was before it had a Version.
type docV1 struct {
	Shelf   string
	DocID   string
	Title   string
	Deleted bool
}

// Describe implements kandra's description.
func (d *docV1) Describe(s *kandra.Schema[docV1]) {
	s.Table("docs", kandra.SoftDelete(2*time.Second, &d.Deleted))
	kandra.Bind(s, &d.Shelf, kandra.PartitionKey(0))
	kandra.Bind(s, &d.DocID, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &d.Title, kandra.Lookup("by_title", kandra.LookupBatch))
}

// docV2 is docV1 with a Version: the same table, one more column.
type docV2 struct {
	Shelf   string
	DocID   string
	Title   string
	Deleted bool
	Version int64
}

// Describe implements kandra's description.
func (d *docV2) Describe(s *kandra.Schema[docV2]) {
	s.Table("docs", kandra.SoftDelete(2*time.Second, &d.Deleted))
	kandra.Bind(s, &d.Shelf, kandra.PartitionKey(0))
	kandra.Bind(s, &d.DocID, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &d.Title, kandra.Lookup("by_title", kandra.LookupBatch))
	kandra.Version(s, &d.Version)
}

var (
	docsV1   *kandra.Table[docV1]
	docsV2   *kandra.Table[docV2]
	docTitle kandra.Field[docV2, string]
)

// testVersionAdded: rows written by the runtime before the table had a
// Version are live rows at version zero once a migration adds one: they
// are read, updated (IF version IN (null, 0), to version 1) and deleted
// (hard and soft, the soft-deleted one vanishing whole at its TTL, row
// marker included), a stale version-zero copy is refused, and a new
// entity still cannot overwrite a row that has a version. A version 0
// written by another client is "no version yet" too.
func testVersionAdded(t *testing.T, h *harness) {
	d := h.d
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	name := h.ks + "_ver"
	t.Cleanup(func() { _ = h.n.Exec(context.Background(), "DROP KEYSPACE IF EXISTS "+name) })
	keyspace := func(src kandra.SchemaSource) *kandra.Keyspace {
		ks, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: name, Targets: kandra.Cassandra5,
			Replication: kandra.NetworkTopologyStrategy(map[string]int{"datacenter1": 1})}, src)
		if err != nil {
			t.Fatal(err)
		}
		return ks
	}
	count := func(where string, args ...any) int64 {
		t.Helper()
		var n int64
		if err := h.n.Scan(ctx, "SELECT COUNT(*) FROM "+name+".docs WHERE "+where, args, &n); err != nil {
			t.Fatalf("count: %v", err)
		}
		return n
	}

	// v1: the table without a Version, and rows written by the runtime
	// (INSERTs, each with its row marker).
	ks1, ks2 := keyspace(docsV1), keyspace(docsV2)
	if res, err := migrate.Apply(ctx, d, ks1, migrate.ApplyOptions{}); err != nil || len(res.Applied) == 0 {
		t.Fatalf("v1: %+v, %v", res, err)
	}
	rt, err := kstore.New(h.d, ks1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	v1 := kstore.MustNewRepo(rt, docsV1)
	const shelf = "s"
	for _, id := range []string{"a", "b", "c", "d"} {
		if err := v1.Save(ctx, &docV1{Shelf: shelf, DocID: id, Title: "title " + id}); err != nil {
			t.Fatal(err)
		}
	}

	// v2: the migration adds the version column, recorded in the history.
	res, err := migrate.Apply(ctx, d, ks2, migrate.ApplyOptions{})
	if err != nil || len(res.Applied) != 1 || res.Applied[0].ID != "add-column:docs.version" {
		t.Fatalf("v2: %+v, %v", res, err)
	}
	if err := migrate.Check(ctx, d, ks2); err != nil {
		t.Fatal(err)
	}
	hist, err := migrate.History(ctx, d, ks2)
	if err != nil || len(hist) != 2 || !slices.Contains(hist[1].Steps, "add-column:docs.version") {
		t.Fatalf("history %+v, %v", hist, err)
	}
	var versioned int64
	if err := h.n.Scan(ctx, "SELECT COUNT(version) FROM "+name+".docs WHERE shelf = ?", []any{shelf}, &versioned); err != nil || versioned != 0 {
		t.Fatalf("%d rows have a version before any versioned write (%v)", versioned, err)
	}

	// The v2 app: a runtime of its own on the migrated keyspace.
	rt2, err := kstore.New(h.d, ks2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt2.Close(context.Background()) })
	docs := kstore.MustNewRepo(rt2, docsV2)
	key := func(id string) *docV2 { return &docV2{Shelf: shelf, DocID: id} }

	// Read: every row, at version zero.
	a0, err := docs.Get(ctx, key("a"))
	if err != nil || a0.Version != 0 || a0.Title != "title a" {
		t.Fatalf("Get of a row without a version: %+v, %v", a0, err)
	}
	if all, err := docs.List(ctx, key("")).All(); err != nil || len(all) != 4 || all[3].DocID != "d" || all[3].Version != 0 {
		t.Fatalf("List: %+v, %v", all, err)
	}
	byTitle := kstore.MustLookupOf(docs, docTitle)
	if f, err := byTitle.Find(ctx, "title b"); err != nil || f.DocID != "b" || f.Version != 0 {
		t.Fatalf("Find: %+v, %v", f, err)
	}

	// Update of the copy read at zero: IF version IN (null, 0), to 1.
	a1 := *a0
	a1.Title = "title a, edited"
	if err := docs.Update(ctx, a0, &a1); err != nil || a1.Version != 1 {
		t.Fatalf("Update of a zero copy: %v, %+v", err, a1)
	}
	if got, err := docs.Get(ctx, key("a")); err != nil || got.Version != 1 || got.Title != a1.Title {
		t.Fatalf("Get after the Update: %+v, %v", got, err)
	}
	// The stale zero copy is refused, and so is a delete of it.
	stale := *a0
	stale.Title = "lost"
	before := stale
	if err := docs.Update(ctx, a0, &stale); !isLock(err) || stale != before {
		t.Fatalf("Update of the stale zero copy: %v, %+v", err, stale)
	}
	if err := docs.HardDelete(ctx, a0); !isLock(err) {
		t.Fatalf("HardDelete of the stale zero copy: %v", err)
	}
	if err := docs.Delete(ctx, a0); !isLock(err) || a0.Deleted || a0.Version != 0 {
		t.Fatalf("SoftDelete of the stale zero copy: %v, %+v", err, a0)
	}
	// A new entity cannot overwrite the row that has a version, by Save or
	// SaveIfNotExists; SaveIfNotExists refuses a row without one too.
	if err := docs.Save(ctx, &docV2{Shelf: shelf, DocID: "a", Title: "new"}); !isLock(err) {
		t.Fatalf("Save of a new entity over a versioned row: %v", err)
	}
	for _, id := range []string{"a", "d"} {
		if ok, err := docs.SaveIfNotExists(ctx, &docV2{Shelf: shelf, DocID: id, Title: "new"}); err != nil || ok {
			t.Fatalf("SaveIfNotExists over %s: %v, %v", id, ok, err)
		}
	}
	if got, err := docs.Get(ctx, key("a")); err != nil || got.Version != 1 || got.Title != a1.Title {
		t.Fatalf("a after the refused writes: %+v, %v", got, err)
	}
	if got, err := docs.Get(ctx, key("d")); err != nil || got.Version != 0 || got.Title != "title d" {
		t.Fatalf("d after the refused SaveIfNotExists: %+v, %v", got, err)
	}

	// HardDelete of another row read at zero.
	b0, err := docs.Get(ctx, key("b"))
	if err != nil {
		t.Fatal(err)
	}
	if err := docs.HardDelete(ctx, b0); err != nil {
		t.Fatalf("HardDelete of a zero copy: %v", err)
	}
	if _, err := docs.Get(ctx, key("b")); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatalf("Get after the HardDelete: %v", err)
	}
	if _, err := byTitle.Find(ctx, "title b"); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatalf("Find after the HardDelete: %v", err)
	}

	// SoftDelete of another: at version 1, then gone whole at its TTL,
	// the row marker of its pre-version INSERT included (no ghost).
	c0, err := docs.Get(ctx, key("c"))
	if err != nil {
		t.Fatal(err)
	}
	if err := docs.Delete(ctx, c0); err != nil || !c0.Deleted || c0.Version != 1 {
		t.Fatalf("SoftDelete of a zero copy: %v, %+v", err, c0)
	}
	if _, err := docs.Get(ctx, key("c"), kstore.SkipDeleted()); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatalf("Get (SkipDeleted) of the soft-deleted row: %v", err)
	}

	// Save of the copy read at zero takes the row too (to version 1).
	d0, err := docs.Get(ctx, key("d"))
	if err != nil {
		t.Fatal(err)
	}
	d0.Title = "title d, saved"
	if err := docs.Save(ctx, d0); err != nil || d0.Version != 1 {
		t.Fatalf("Save of a zero copy: %v, %+v", err, d0)
	}

	// A version 0 written by another client is "no version yet" as well.
	if err := h.n.Exec(ctx, "INSERT INTO "+name+".docs (shelf, doc_id, title, deleted, version) VALUES (?, ?, ?, ?, ?)", shelf, "e", "raw", false, 0); err != nil {
		t.Fatal(err)
	}
	e0, err := docs.Get(ctx, key("e"))
	if err != nil || e0.Version != 0 {
		t.Fatalf("Get of a version written as 0: %+v, %v", e0, err)
	}
	e1 := *e0
	e1.Title = "raw, edited"
	if err := docs.Update(ctx, e0, &e1); err != nil || e1.Version != 1 {
		t.Fatalf("Update of a version written as 0: %v, %+v", err, e1)
	}

	time.Sleep(3 * time.Second) // the soft-delete TTL is 2 s
	if n := count("shelf = ? AND doc_id = ?", shelf, "c"); n != 0 {
		t.Fatalf("the soft-deleted row survives its TTL (%d rows): its pre-version row marker is left", n)
	}
	if _, err := docs.Get(ctx, key("c")); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatalf("Get after the TTL: %v", err)
	}
	all, err := docs.List(ctx, key("")).All()
	if err != nil || len(all) != 3 {
		t.Fatalf("List at the end: %+v, %v", all, err)
	}
	for _, x := range all {
		if x.Version != 1 {
			t.Fatalf("List at the end: %+v", all)
		}
	}
}

func isLock(err error) bool {
	var ol *kerrors.OptimisticLockError
	return errors.As(err, &ol)
}
