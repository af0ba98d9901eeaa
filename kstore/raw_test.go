package kstore

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
)

func TestPrepareResolvesAndQualifies(t *testing.T) {
	f, users, rt, _ := newFake(t)
	posts := MustNewRepo(rt, fPosts)
	id := kandra.MustFieldOf(fUsers, func(u *fUser) *uuid.UUID { return &u.ID })
	board := kandra.MustFieldOf(fPosts, func(p *fPost) *string { return &p.Board })
	for _, c := range []struct {
		repo    func() (string, error)
		cql     string
		columns int
	}{
		{func() (string, error) {
			q, err := Prepare(users, "select * FROM fusers WHERE id IN (?, ?);", Arg(id), Arg(id))
			return cqlOf(q, err)
		}, "select id, email, ticket, bio, updated_at, version FROM ks.fusers WHERE id IN (?, ?)", 6},
		{func() (string, error) {
			q, err := Prepare(posts, `SELECT "author", post_id FROM ks.fposts WHERE board = ? LIMIT ?`, Arg(board), Plain())
			return cqlOf(q, err)
		}, `SELECT "author", post_id FROM ks.fposts WHERE board = ? LIMIT ?`, 2},
		{func() (string, error) {
			q, err := Prepare(posts, "DELETE FROM fposts WHERE board = ? IF EXISTS", Arg(board))
			if err == nil && !q.st.IsConditional() {
				err = errors.New("not conditional")
			}
			return cqlOf(q, err)
		}, "DELETE FROM ks.fposts WHERE board = ? IF EXISTS", 0},
		{func() (string, error) {
			q, err := Prepare(posts, "UPDATE fposts SET tag = 'x' WHERE board = ? AND post_id = 1", Arg(board))
			return cqlOf(q, err)
		}, "UPDATE ks.fposts SET tag = 'x' WHERE board = ? AND post_id = 1", 0},
	} {
		got, err := c.repo()
		if err != nil || got != c.cql {
			t.Errorf("Prepare = %q, %v; want %q", got, err, c.cql)
		}
	}
	var ae *kerrors.ArgumentError
	for cql, want := range map[string]string{
		"SELECT count(*) FROM fposts":                "not a column",
		"SELECT author AS a FROM fposts":             "without aliases",
		"SELECT author FROM fusers":                  `names table "fusers"`,
		"SELECT author FROM other.fposts":            `names keyspace "other"`,
		"SELECT author FROM fposts WHERE board = :b": "named marker",
		"SELECT author FROM fposts WHERE board = ?":  "1 markers (?) and 0 RawParams",
		"CREATE TABLE fposts (a int PRIMARY KEY)":    "migrator",
		"SELECT JSON * FROM fposts":                  "SELECT JSON",
		"SELECT * , author FROM fposts":              "select * alone",
		"SELECT 'unterminated FROM fposts":           "unterminated string",
		"":                                           "empty",
	} {
		if _, err := Prepare(posts, cql); !errors.As(err, &ae) || !strings.Contains(err.Error(), want) {
			t.Errorf("Prepare(%q): %v, want an *kerrors.ArgumentError saying %q", cql, err, want)
		}
	}
	if _, err := Prepare(posts, "SELECT author FROM fposts WHERE board = ?", Arg(id)); !errors.As(err, &ae) {
		t.Errorf("a field of another table: %v", err)
	}
	q := MustPrepare(posts, "SELECT author FROM fposts WHERE board = ?", Arg(board))
	if _, err := q.Query(context.Background(), []any{42}).All(); !errors.As(err, &ae) || !strings.Contains(err.Error(), "a int for column board") {
		t.Errorf("an int for a text column: %v", err)
	}
	if _, err := q.Exec(context.Background(), []any{"a"}); !errors.As(err, &ae) {
		t.Errorf("Exec of a SELECT: %v", err)
	}
	if len(f.sent()) != 0 {
		t.Fatalf("refused calls sent %+v", f.sent())
	}
}

func cqlOf[T any](q *Raw[T], err error) (string, error) {
	if err != nil {
		return "", err
	}
	return q.CQL(), nil
}

// A nil pointer binds null; a pointer's cursor resumes with another
// pointer to the same value.
func TestRawNilPointerAndCursor(t *testing.T) {
	_, _, rt, _ := newFake(t)
	posts := MustNewRepo(rt, fPosts)
	board := kandra.MustFieldOf(fPosts, func(p *fPost) *string { return &p.Board })
	q := MustPrepare(posts, "SELECT author FROM fposts WHERE board = ?", Arg(board))
	vals, err := q.bind("test", []any{(*string)(nil)})
	if err != nil || vals[0] != nil {
		t.Fatalf("a nil *string: %v, %v; want an untyped nil", vals, err)
	}
	a, b := "x", "x"
	if q.fingerprint([]any{&a}) != q.fingerprint([]any{&b}) || q.fingerprint([]any{&a}) != q.fingerprint([]any{"x"}) {
		t.Fatal("the fingerprint depends on the pointer, not the value")
	}
}

// keyFake answers a Get of fUser by its key: a row for a key in present
// (its Bio names the key), none for another; a key in broken fails. It
// notes how many reads ran at once.
type keyFake struct {
	fake
	present, broken map[uuid.UUID]bool
	mu              sync.Mutex
	reads           map[uuid.UUID]int
	active, most    atomic.Int64
}

func (f *keyFake) Query(ctx context.Context, q *adapter.Query) (adapter.Rows, error) {
	now := f.active.Add(1)
	defer f.active.Add(-1)
	for m := f.most.Load(); now > m && !f.most.CompareAndSwap(m, now); m = f.most.Load() {
	}
	runtime.Gosched() // let the others in while this one reads
	id := *q.Values[0].(*uuid.UUID)
	f.mu.Lock()
	f.reads[id]++
	f.mu.Unlock()
	switch {
	case f.broken[id]:
		return nil, errors.New("injected")
	case f.present[id]:
		return &keyRow{id: id}, nil
	}
	return emptyRows{}, nil
}

// keyRow is the one row of id: its key, and its Bio naming it.
type keyRow struct {
	id   uuid.UUID
	done bool
}

func (r *keyRow) Next(dst []any) bool {
	if r.done {
		return false
	}
	r.done = true
	for _, d := range dst {
		switch d := d.(type) {
		case *uuid.UUID:
			*d = r.id
		case *string:
			*d = "bio of " + r.id.String()
		}
	}
	return true
}
func (*keyRow) PageState() []byte { return nil }
func (*keyRow) Close() error      { return nil }

// GetMany reads every key once, at most getManyConcurrency at a time, and
// returns the rows aligned with the keys, nil for a key without one; a
// failed read fails the call.
func TestGetManyReadsEachKeyOnce(t *testing.T) {
	f := &keyFake{present: map[uuid.UUID]bool{}, broken: map[uuid.UUID]bool{}, reads: map[uuid.UUID]int{}}
	rt, err := New(f, testKeyspace)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	users := MustNewRepo(rt, fUsers)
	keys := make([]*fUser, 100)
	for i := range keys {
		keys[i] = &fUser{ID: uuid.New()}
		if i%3 != 0 {
			f.present[keys[i].ID] = true
		}
	}
	got, err := users.GetMany(context.Background(), keys)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		switch {
		case f.reads[k.ID] != 1:
			t.Errorf("key %d read %d times", i, f.reads[k.ID])
		case !f.present[k.ID] && got[i] != nil:
			t.Errorf("key %d has no row, got %+v", i, got[i])
		case f.present[k.ID] && (got[i] == nil || got[i].ID != k.ID || got[i].Bio != "bio of "+k.ID.String()):
			t.Errorf("key %d: got %+v", i, got[i])
		}
	}
	if m := f.most.Load(); m > getManyConcurrency {
		t.Errorf("%d reads at once, over %d", m, getManyConcurrency)
	}
	f.broken[keys[50].ID] = true
	if _, err := users.GetMany(context.Background(), keys); !errors.Is(err, kerrors.ErrQuery) {
		t.Errorf("a failed read: err = %v, want a query error", err)
	}
}
