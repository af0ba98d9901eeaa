package kstore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
)

// fDoc is versioned and soft-deleted.
type fDoc struct {
	ID      uuid.UUID
	Title   string
	Deleted bool
	Version int64
}

func (d *fDoc) Describe(s *kandra.Schema[fDoc]) {
	s.Table("fdocs", kandra.SoftDelete(3600*time.Second, &d.Deleted))
	kandra.Bind(s, &d.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &d.Title)
	kandra.Bind(s, &d.Deleted)
	kandra.Version(s, &d.Version)
}

var fDocs = kandra.MustRegister[fDoc]()

var fStamps = kandra.MustRegister[fStamp]()

// TestVersionedWritePaths: on a versioned table every write is
// conditional on the caller's version; a refused one is an
// OptimisticLockError that leaves the entity as it was.
func TestVersionedWritePaths(t *testing.T) {
	f, users, rt, _ := newFake(t)
	docs := MustNewRepo(rt, fDocs)
	ctx := context.Background()
	last := func() sent { l := f.sent(); return l[len(l)-1] }

	u := &fUser{Email: "a@b"}
	if err := users.Save(ctx, u); err != nil {
		t.Fatal(err)
	}
	log := f.sent()
	if u.Version != 1 || len(log) != 2 || !strings.HasPrefix(log[1].cql, "UPDATE ks.fusers SET") || !strings.HasSuffix(log[1].cql, "IF version IN (null, 0)") ||
		log[1].serial != kandra.ConsistencySerial || !strings.HasPrefix(log[0].cql, "INSERT INTO ks.fusers_by_email") {
		t.Fatalf("first Save: version %d, sent %+v", u.Version, log)
	}
	if err := users.Save(ctx, u); err != nil {
		t.Fatal(err)
	}
	if u.Version != 2 || !strings.HasSuffix(f.sent()[3].cql, "IF version = ?") {
		t.Fatalf("second Save: version %d, sent %+v", u.Version, f.sent()[2:])
	}

	// Refused: nothing else is sent and the entity is unchanged.
	f.applied = false
	for name, call := range map[string]func(*fUser) error{
		"Save of a stale copy": func(e *fUser) error { return users.Save(ctx, e) },
		"Save of a new entity": func(e *fUser) error { e.Version = 0; return users.Save(ctx, e) },
		"HardDelete":           func(e *fUser) error { return users.HardDelete(ctx, e) },
	} {
		e := *u
		if name == "Save of a new entity" {
			e.Version = 0
		}
		want := e
		n := len(f.sent())
		err := call(&e)
		var ol *kerrors.OptimisticLockError
		if !errors.As(err, &ol) || ol.Key != u.ID {
			t.Errorf("%s: %v", name, err)
		}
		if e != want {
			t.Errorf("%s changed the entity: %+v, was %+v", name, e, want)
		}
		// Nothing after the refused LWT; before it, only lookup rows of
		// the new values (rows whose entity does not hold them).
		got := f.sent()[n:]
		if len(got) == 0 || !got[len(got)-1].serial.IsSerial() {
			t.Errorf("%s sent %+v", name, got)
		}
		for _, s := range got[:len(got)-1] {
			if !strings.HasPrefix(s.cql, "INSERT INTO ks.fusers_by_") {
				t.Errorf("%s wrote before its LWT: %+v", name, s)
			}
		}
	}
	f.applied = true

	// A timestamp cannot join a conditional write.
	if err := users.Save(ctx, u, Timestamp(clock)); !errors.Is(err, kerrors.ErrArgument) {
		t.Fatalf("versioned Save with a timestamp: %v", err)
	}
	if err := users.HardDelete(ctx, &fUser{ID: u.ID}, Timestamp(clock)); !errors.Is(err, kerrors.ErrArgument) {
		t.Fatalf("versioned HardDelete with a timestamp: %v", err)
	}
	n := len(f.sent())
	if err := users.HardDelete(ctx, u); err != nil {
		t.Fatal(err)
	}
	// The conditional DELETE, then the lookup rows of its values (one
	// statement alone, no batch).
	if got := f.sent()[n:]; len(got) != 2 || got[0].cql != "DELETE FROM ks.fusers WHERE id = ? IF version = ?" ||
		got[1].cql != "DELETE FROM ks.fusers_by_email USING TIMESTAMP ? WHERE email = ? AND id = ?" {
		t.Fatalf("HardDelete sent %+v", got)
	}

	// The forced forms are the unconditional writes; ForceSave is an
	// UPDATE, which leaves no row marker.
	if err := users.ForceSave(ctx, &fUser{ID: u.ID, Version: 7}); err != nil ||
		last().cql != "UPDATE ks.fusers SET email = ?, ticket = ?, bio = ?, updated_at = ?, version = ? WHERE id = ?" {
		t.Fatalf("ForceSave: %v %+v", err, last())
	}
	if err := users.ForceSave(ctx, &fUser{ID: u.ID, Email: "f@b", Version: 7}, TTL(time.Minute), Timestamp(clock)); err != nil ||
		len(last().batch) != 2 || !strings.HasPrefix(last().batch[0], "UPDATE ks.fusers USING TTL ? AND TIMESTAMP ? SET ") || strings.Contains(last().batch[0], " IF ") {
		t.Fatalf("ForceSave with a lookup row: %v %+v", err, last())
	}
	if err := users.ForceDelete(ctx, &fUser{ID: u.ID}); err != nil || !strings.HasPrefix(last().cql, "DELETE FROM ks.fusers WHERE id = ?") || strings.Contains(last().cql, " IF ") {
		t.Fatalf("ForceDelete: %v %+v", err, last())
	}

	// SoftDelete: the conditional rewrite with the TTL, at the next version.
	d := &fDoc{ID: uuid.New(), Title: "t", Version: 4}
	// It rewrites the row marker with the TTL too, in one conditional
	// batch of the row, so the row vanishes whole.
	if err := docs.SoftDelete(ctx, d); err != nil || !d.Deleted || d.Version != 5 ||
		last().cql != "BEGIN UNLOGGED BATCH INSERT INTO ks.fdocs (id) VALUES (?) USING TTL 3600; UPDATE ks.fdocs USING TTL 3600 SET title = ?, deleted = ?, version = ? WHERE id = ? IF version = ? APPLY BATCH" {
		t.Fatalf("SoftDelete: %v %+v %+v", err, d, last())
	}
	f.applied = false
	d2 := &fDoc{ID: d.ID, Title: "t", Version: 4}
	if err := docs.Delete(ctx, d2); !errors.Is(err, kerrors.ErrOptimisticLock) || d2.Deleted || d2.Version != 4 {
		t.Fatalf("stale SoftDelete: %v %+v", err, d2)
	}
}

// TestZeroVersionWritePaths: a copy at version zero (read from a row
// whose version is null, or never read) is written and deleted IF version
// IN (null, 0), moves to version 1, and is refused, unchanged, when the
// row has a version.
func TestZeroVersionWritePaths(t *testing.T) {
	f, users, rt, _ := newFake(t)
	docs := MustNewRepo(rt, fDocs)
	ctx := context.Background()
	last := func() sent { l := f.sent(); return l[len(l)-1] }
	id := uuid.New()

	old := &fUser{ID: id, Email: "a@b"}
	nw := *old
	nw.Bio = "edited"
	if err := users.Update(ctx, old, &nw); err != nil || nw.Version != 1 || old.Version != 0 {
		t.Fatalf("Update of a zero copy: %v, new %+v", err, nw)
	}
	if got := last(); got.cql != "UPDATE ks.fusers SET email = ?, ticket = ?, bio = ?, updated_at = ?, version = ? WHERE id = ? IF version IN (null, 0)" || !got.serial.IsSerial() {
		t.Fatalf("Update of a zero copy sent %+v", got)
	}
	n := len(f.sent())
	if err := users.HardDelete(ctx, &fUser{ID: id}); err != nil {
		t.Fatalf("HardDelete of a zero copy: %v", err)
	}
	if got := f.sent()[n:]; len(got) != 1 || got[0].cql != "DELETE FROM ks.fusers WHERE id = ? IF version IN (null, 0)" || !got[0].serial.IsSerial() {
		t.Fatalf("HardDelete of a zero copy sent %+v", got)
	}
	d := &fDoc{ID: id, Title: "t"}
	if err := docs.SoftDelete(ctx, d); err != nil || !d.Deleted || d.Version != 1 ||
		last().cql != "BEGIN UNLOGGED BATCH INSERT INTO ks.fdocs (id) VALUES (?) USING TTL 3600; UPDATE ks.fdocs USING TTL 3600 SET title = ?, deleted = ?, version = ? WHERE id = ? IF version IN (null, 0) APPLY BATCH" {
		t.Fatalf("SoftDelete of a zero copy: %v %+v %+v", err, d, last())
	}
	// SaveIfNotExists refuses any row, one without a version too: it is
	// the INSERT ... IF NOT EXISTS of every table.
	if ok, err := users.SaveIfNotExists(ctx, &fUser{ID: id}); err != nil || !ok || !strings.HasPrefix(last().cql, "INSERT INTO ks.fusers (") || !strings.HasSuffix(last().cql, " IF NOT EXISTS") {
		t.Fatalf("SaveIfNotExists: %v %v %+v", ok, err, last())
	}

	// The row has a version: each is refused and leaves its argument.
	f.applied = false
	old = &fUser{ID: id, Email: "a@b"}
	nw = *old
	nw.Bio = "edited"
	want := nw
	var ol *kerrors.OptimisticLockError
	if err := users.Update(ctx, old, &nw); !errors.As(err, &ol) || !strings.Contains(ol.Message, "no version (version null or 0) expected") || nw != want {
		t.Fatalf("refused Update of a zero copy: %v, new %+v", err, nw)
	}
	if err := users.HardDelete(ctx, &fUser{ID: id}); !errors.As(err, &ol) || !strings.Contains(ol.Message, "nothing was deleted") {
		t.Fatalf("refused HardDelete of a zero copy: %v", err)
	}
	d = &fDoc{ID: id, Title: "t"}
	if err := docs.SoftDelete(ctx, d); !errors.Is(err, kerrors.ErrOptimisticLock) || d.Deleted || d.Version != 0 {
		t.Fatalf("refused SoftDelete of a zero copy: %v %+v", err, d)
	}
	if err := users.Save(ctx, &fUser{ID: id}); !errors.As(err, &ol) || !strings.Contains(ol.Message, "has a version") {
		t.Fatalf("refused Save of a new entity: %v", err)
	}
}

// fStamp is versioned by a timestamp.
type fStamp struct {
	ID      uuid.UUID
	Body    string
	Version time.Time
}

func (s *fStamp) Describe(sc *kandra.Schema[fStamp]) {
	sc.Table("fstamps")
	kandra.Bind(sc, &s.ID, kandra.PartitionKey(0))
	kandra.Version(sc, &s.Version)
}

// TestZeroTimeVersion: a zero time.Time version conditions on IF version
// = null (a timestamp read as zero was null) and moves to the clock.
func TestZeroTimeVersion(t *testing.T) {
	f, _, rt, _ := newFake(t)
	stamps := MustNewRepo(rt, fStamps)
	ctx := context.Background()
	old := &fStamp{ID: uuid.New(), Body: "a"}
	nw := *old
	nw.Body = "b"
	if err := stamps.Update(ctx, old, &nw); err != nil || !nw.Version.Equal(clock.Truncate(time.Millisecond)) {
		t.Fatalf("Update: %v %+v", err, nw)
	}
	l := f.sent()
	if got := l[len(l)-1].cql; got != "UPDATE ks.fstamps SET body = ?, version = ? WHERE id = ? IF version = null" {
		t.Fatalf("Update sent %q", got)
	}
	if err := stamps.HardDelete(ctx, &fStamp{ID: old.ID}); err != nil {
		t.Fatal(err)
	}
	l = f.sent()
	if got := l[len(l)-1].cql; got != "DELETE FROM ks.fstamps WHERE id = ? IF version = null" {
		t.Fatalf("HardDelete sent %q", got)
	}
}

// versionlessRows answers every SELECT with one row whose every non-key
// column is null, as the adapters scan it: zero values.
type versionlessRows struct{ done bool }

func (g *versionlessRows) Next(dst []any) bool {
	if g.done {
		return false
	}
	g.done = true
	*dst[0].(*uuid.UUID) = uuid.MustParse("00000000-0000-4000-8000-000000000002")
	return true
}
func (g *versionlessRows) PageState() []byte { return nil }
func (g *versionlessRows) Close() error      { return nil }

type versionlessFake struct{ fake }

func (f *versionlessFake) Query(ctx context.Context, q *adapter.Query) (adapter.Rows, error) {
	return &versionlessRows{}, nil
}

// TestVersionlessRowReadsAtVersionZero: a row of a versioned table read
// without a version (written before the table had one, or by another
// client) is a live row at version zero: Get and List, with SkipDeleted
// or not, return it.
func TestVersionlessRowReadsAtVersionZero(t *testing.T) {
	rt, _ := New(&versionlessFake{}, testKeyspace, WithClock(func() time.Time { return clock }))
	docs := MustNewRepo(rt, fDocs)
	ctx := context.Background()
	key := &fDoc{ID: uuid.New()}
	for name, get := range map[string]func() (*fDoc, error){
		"Get":             func() (*fDoc, error) { return docs.Get(ctx, key) },
		"Get SkipDeleted": func() (*fDoc, error) { return docs.Get(ctx, key, SkipDeleted()) },
	} {
		if d, err := get(); err != nil || d.Version != 0 || d.ID == (uuid.UUID{}) {
			t.Fatalf("%s: %+v %v", name, d, err)
		}
	}
	for name, it := range map[string]*Iter[fDoc]{"List": docs.List(ctx, key), "List SkipDeleted": docs.List(ctx, key, SkipDeleted())} {
		if rows, err := it.All(); err != nil || len(rows) != 1 || rows[0].Version != 0 {
			t.Fatalf("%s: %v %v", name, rows, err)
		}
	}
}
