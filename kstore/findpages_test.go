package kstore

import (
	"context"
	"testing"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
)

// pagesDriver serves a lookup whose first page holds only stale rows (their
// posts moved to another author) and whose second page holds the one post
// that still has the author, and records the lookup queries it was sent.
type pagesDriver struct {
	valuesDriver
	author  string
	lookups []pageCall
}

// pageCall is one lookup query: its page state and its bound value.
type pageCall struct {
	state string
	value string
}

func (d *pagesDriver) Query(_ context.Context, q *adapter.Query) (adapter.Rows, error) {
	st := q.Statement
	if st.TableName() != "fposts" {
		d.lookups = append(d.lookups, pageCall{state: string(q.PageState), value: *q.Values[0].(*string)})
		if q.PageState == nil {
			ids := make([]int64, findPage)
			for i := range ids {
				ids[i] = int64(i)
			}
			return &pageRows{st: st, ids: ids, state: []byte("p2")}, nil
		}
		return &pageRows{st: st, ids: []int64{99}}, nil
	}
	id := *q.Values[1].(*int64)
	author := "someone else"
	if id == 99 {
		author = d.author
	}
	return &pageRows{st: st, ids: []int64{id}, author: author}, nil
}

// pageRows is one page of rows of st, one per id: board "b", the id, and
// author.
type pageRows struct {
	st     *adapter.Statement
	ids    []int64
	author string
	state  []byte
	closed bool // an adapter may reuse closed rows (adapter.Rows)
}

func (r *pageRows) Next(dst []any) bool {
	if r.closed {
		panic("Next after Close")
	}
	if len(r.ids) == 0 {
		return false
	}
	for i, t := range dst {
		switch r.st.Result(i).Name() {
		case "board":
			*t.(*string) = "b"
		case "post_id":
			*t.(*int64) = r.ids[0]
		case "author":
			*t.(*string) = r.author
		}
	}
	r.ids = r.ids[1:]
	return true
}

func (r *pageRows) PageState() []byte {
	if r.closed {
		panic("PageState after Close")
	}
	return r.state
}

func (r *pageRows) Close() error {
	if r.closed {
		panic("Close twice")
	}
	r.closed = true
	return nil
}

// TestFindPages: Find reads a non-unique value's lookup rows page by page,
// the next page from the cursor of the last, each with the value it was
// given, until an entity still holds the value.
func TestFindPages(t *testing.T) {
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5, Replication: kandra.SimpleStrategy(1)}, fPosts)
	d := &pagesDriver{author: "ann"}
	rt, err := New(d, ks)
	if err != nil {
		t.Fatal(err)
	}
	byAuthor := MustLookupOf(MustNewRepo(rt, fPosts), kandra.MustFieldOf(fPosts, func(p *fPost) *string { return &p.Author }))
	p, err := byAuthor.Find(context.Background(), "ann")
	if err != nil {
		t.Fatal(err)
	}
	if p.PostID != 99 || p.Author != "ann" || p.Board != "b" {
		t.Fatalf("found %+v, want post 99 of ann", p)
	}
	want := []pageCall{{"", "ann"}, {"p2", "ann"}}
	if len(d.lookups) != len(want) || d.lookups[0] != want[0] || d.lookups[1] != want[1] {
		t.Fatalf("lookup queries %+v, want %+v", d.lookups, want)
	}
}

// holderDriver serves one lookup row, of post 7, and post 7 of ann, from
// rows it reuses: a Find through it allocates only what the store does.
type holderDriver struct {
	quietDriver
	rows pageRows
	id   [1]int64
}

func (d *holderDriver) Query(_ context.Context, q *adapter.Query) (adapter.Rows, error) {
	d.id[0] = 7
	d.rows = pageRows{st: q.Statement, ids: d.id[:], author: "ann"}
	return &d.rows, nil
}

// TestFindAllocations: a Find of a non-unique value held by one entity
// allocates that entity, into which the lookup row's key is read, and the
// value (whose address the column's checks take). The room for a next
// row comes from the Repo's pool and goes back to it (a new entity was
// allocated for it, and dropped, on every Find), and the holder's check
// takes the value's address (it copied the value to the heap again).
func TestFindAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops what is put back at random: a pooled call allocates by chance")
	}
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5, Replication: kandra.SimpleStrategy(1)}, fPosts)
	rt, err := New(&holderDriver{}, ks)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rt.Close(context.Background()) }()
	byAuthor := MustLookupOf(MustNewRepo(rt, fPosts), kandra.MustFieldOf(fPosts, func(p *fPost) *string { return &p.Author }))
	find := func() {
		p, err := byAuthor.Find(context.Background(), "ann")
		if err != nil || p.PostID != 7 {
			t.Fatalf("Find: %+v, %v; want post 7", p, err)
		}
	}
	find()
	if n := testing.AllocsPerRun(200, find); n != 2 {
		t.Errorf("a Find of a value one entity holds allocates %v times, want 2 (the entity and the value)", n)
	}
}
