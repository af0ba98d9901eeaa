package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	kerrors "github.com/kandra-go/kandra/errors"
)

// fDoc is versioned and soft-deleted.
type fDoc struct {
	ID      uuid.UUID
	Title   string
	Deleted bool
	Version int64
}

func (d *fDoc) Describe(s *kandra.Schema[fDoc]) {
	s.Table("fdocs", kandra.SoftDelete(3600, &d.Deleted))
	kandra.Bind(s, &d.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &d.Title)
	kandra.Bind(s, &d.Deleted)
	kandra.Version(s, &d.Version)
}

var fDocs = kandra.MustRegister[fDoc]()

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
	if u.Version != 1 || len(log) != 2 || !strings.HasPrefix(log[1].cql, "UPDATE ks.fusers SET") || !strings.HasSuffix(log[1].cql, "IF version = null") ||
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

	// A delete needs a version to check.
	if err := users.HardDelete(ctx, &fUser{ID: u.ID}); !errors.Is(err, kerrors.ErrArgument) {
		t.Fatalf("HardDelete without a version: %v", err)
	}
	if err := users.Update(ctx, &fUser{ID: u.ID}, &fUser{ID: u.ID}); !errors.Is(err, kerrors.ErrArgument) {
		t.Fatalf("Update of a copy without a version: %v", err)
	}
	if err := users.Save(ctx, u, Timestamp(clock.UnixMicro())); !errors.Is(err, kerrors.ErrArgument) {
		t.Fatalf("versioned Save with a timestamp: %v", err)
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

	// The forced forms are the unconditional writes.
	if err := users.ForceSave(ctx, &fUser{ID: u.ID, Version: 7}); err != nil || !strings.HasPrefix(last().cql, "INSERT INTO ks.fusers (") {
		t.Fatalf("ForceSave: %v %+v", err, last())
	}
	if err := users.ForceDelete(ctx, &fUser{ID: u.ID}); err != nil || !strings.HasPrefix(last().cql, "DELETE FROM ks.fusers WHERE id = ?") || strings.Contains(last().cql, " IF ") {
		t.Fatalf("ForceDelete: %v %+v", err, last())
	}

	// SoftDelete: the conditional rewrite with the TTL, at the next version.
	d := &fDoc{ID: uuid.New(), Title: "t", Version: 4}
	if err := docs.SoftDelete(ctx, d); err != nil || !d.Deleted || d.Version != 5 ||
		last().cql != "UPDATE ks.fdocs USING TTL 3600 SET title = ?, deleted = ?, version = ? WHERE id = ? IF version = ?" {
		t.Fatalf("SoftDelete: %v %+v %+v", err, d, last())
	}
	f.applied = false
	d2 := &fDoc{ID: d.ID, Title: "t", Version: 4}
	if err := docs.Delete(ctx, d2); !errors.Is(err, kerrors.ErrOptimisticLock) || d2.Deleted || d2.Version != 4 {
		t.Fatalf("stale SoftDelete: %v %+v", err, d2)
	}
}

// ghostRows answers every SELECT with one row whose version is null.
type ghostRows struct{ done bool }

func (g *ghostRows) Next(dst []any) bool {
	if g.done {
		return false
	}
	g.done = true
	*dst[0].(*uuid.UUID) = uuid.MustParse("00000000-0000-4000-8000-000000000002")
	return true
}
func (g *ghostRows) PageState() []byte { return nil }
func (g *ghostRows) Close() error      { return nil }

type ghostFake struct{ fake }

func (f *ghostFake) Query(ctx context.Context, q *Query) (Rows, error) { return &ghostRows{}, nil }

// TestVersionlessRowIsNotFound: a row of a versioned table read without
// a version (the key of a ForceSave outliving its expired cells) is not
// found by Get and is skipped by List.
func TestVersionlessRowIsNotFound(t *testing.T) {
	rt, _ := New(&ghostFake{}, "ks", WithClock(func() time.Time { return clock }))
	docs := MustNewRepo(rt, fDocs)
	if _, err := docs.Get(context.Background(), &fDoc{ID: uuid.New()}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get: %v", err)
	}
	if rows, err := docs.List(context.Background(), &fDoc{ID: uuid.New()}).All(); err != nil || len(rows) != 0 {
		t.Fatalf("List: %v %v", rows, err)
	}
}
