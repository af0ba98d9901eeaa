package kstore

import (
	"context"
	"encoding/binary"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
	"pgregory.net/rapid"
)

// fBucketed is a time-bucketed row: newest first in its bucket.
type fBucketed struct {
	Bucket int32
	At     int64
	Seq    int32
	Body   string
}

func (b *fBucketed) Describe(s *kandra.Schema[fBucketed]) {
	s.Table("fbucketed")
	kandra.Bind(s, &b.Bucket, kandra.PartitionKey(0))
	kandra.Bind(s, &b.At, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.Bind(s, &b.Seq, kandra.ClusteringKey(1, kandra.ClusteringAsc))
}

var fBucketeds = kandra.MustRegister[fBucketed]()

// bucketFake serves one-partition SELECTs of fbucketed as a node does:
// the bucket's rows in clustering order (At descending, then Seq), or its
// reverse with ORDER BY, paged by an offset; short pages when short is
// set, as a server returns under a page's byte limit.
type bucketFake struct {
	fake
	rows  map[int32][]*fBucketed
	short bool
}

func (f *bucketFake) Query(ctx context.Context, q *adapter.Query) (adapter.Rows, error) {
	b := *q.Values[0].(*int32)
	rows := slices.Clone(f.rows[b])
	slices.SortFunc(rows, func(x, y *fBucketed) int {
		if x.At != y.At {
			return compareInt(y.At, x.At)
		}
		return compareInt(int64(x.Seq), int64(y.Seq))
	})
	if strings.Contains(q.Statement.CQL(), "ORDER BY") {
		slices.Reverse(rows)
	}
	off := 0
	if len(q.PageState) > 0 {
		off = int(binary.BigEndian.Uint32(q.PageState))
	}
	n := q.PageSize
	if f.short && n > 1 {
		n /= 2
	}
	end := min(off+n, len(rows))
	out := &fakeRows{}
	for _, r := range rows[off:end] {
		var row []any
		for _, c := range q.Statement.ResultColumns() {
			p, _ := c.Pointer(r)
			row = append(row, reflect.ValueOf(p).Elem().Interface())
		}
		out.rows = append(out.rows, row)
	}
	if end < len(rows) {
		out.state = binary.BigEndian.AppendUint32(nil, uint32(end))
	}
	return out, nil
}

// ListMerged lists the rows of the buckets given in the listing's order
// (ties in the order of the buckets), page by page through its cursors
// (through their strings), each row once, every page full but the last.
func TestPropertyListMergedIsTheMerge(t *testing.T) {
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5,
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3})}, fBucketeds)
	rapid.Check(t, func(t *rapid.T) {
		f := &bucketFake{fake: fake{applied: true}, rows: map[int32][]*fBucketed{}, short: rapid.Bool().Draw(t, "short pages")}
		nb := rapid.IntRange(1, 6).Draw(t, "buckets")
		var parts []*fBucketed
		for b := range int32(nb) {
			parts = append(parts, &fBucketed{Bucket: b})
			for i := range rapid.IntRange(0, 30).Draw(t, "rows") {
				f.rows[b] = append(f.rows[b], &fBucketed{Bucket: b, At: rapid.Int64Range(-5, 5).Draw(t, "at"), Seq: int32(i), Body: "x"})
			}
		}
		rapid.Permutation(parts).Draw(t, "order")
		reversed := rapid.Bool().Draw(t, "reversed")
		pageSize := rapid.IntRange(1, 12).Draw(t, "page size")
		rt, err := New(f, ks)
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Close(context.Background())
		repo := MustNewRepo(rt, fBucketeds)

		idx := map[int32]int{}
		var want []*fBucketed
		for i, p := range parts {
			idx[p.Bucket] = i
			want = append(want, f.rows[p.Bucket]...)
		}
		slices.SortStableFunc(want, func(x, y *fBucketed) int {
			c := compareInt(y.At, x.At)
			if c == 0 {
				c = compareInt(int64(x.Seq), int64(y.Seq))
			}
			if reversed {
				c = -c
			}
			if c == 0 {
				c = idx[x.Bucket] - idx[y.Bucket]
			}
			return c
		})

		var got []*fBucketed
		opts := []ListOption{PageSize(pageSize)}
		if reversed {
			opts = append(opts, Reversed())
		}
		for pages := 0; ; pages++ {
			if pages > len(want)+2 {
				t.Fatalf("more pages than rows")
			}
			it := repo.ListMerged(context.Background(), parts, opts...)
			page, err := it.All()
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, page...)
			if it.Cursor().IsZero() {
				break
			}
			if len(page) != pageSize {
				t.Fatalf("page %d has %d rows, not the page size %d, and a cursor", pages, len(page), pageSize)
			}
			c, err := ParseCursor(it.Cursor().String())
			if err != nil {
				t.Fatal(err)
			}
			if reversed {
				opts = []ListOption{PageSize(pageSize), Reversed(), After(c)}
			} else {
				opts = []ListOption{PageSize(pageSize), After(c)}
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%d rows listed, want %d", len(got), len(want))
		}
		for i := range want {
			if *got[i] != *want[i] {
				t.Fatalf("row %d: %+v, want %+v", i, *got[i], *want[i])
			}
		}
	})
}

// The same partition twice, none, and another query's cursor are refused.
func TestListMergedRefusals(t *testing.T) {
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5,
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3})}, fBucketeds)
	f := &bucketFake{fake: fake{applied: true}, rows: map[int32][]*fBucketed{1: {{Bucket: 1, At: 1}, {Bucket: 1, At: 2}}, 2: {{Bucket: 2, At: 3}}}}
	rt, err := New(f, ks)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(context.Background())
	repo := MustNewRepo(rt, fBucketeds)
	ctx := context.Background()
	it := repo.ListMerged(ctx, []*fBucketed{{Bucket: 1}, {Bucket: 2}}, PageSize(1))
	if rows, err := it.All(); err != nil || len(rows) != 1 || rows[0].At != 3 || it.Cursor().IsZero() {
		t.Fatalf("first page: %v, %v", rows, err)
	}
	for name, err := range map[string]error{
		"twice":         repo.ListMerged(ctx, []*fBucketed{{Bucket: 1}, {Bucket: 1}}).Err(),
		"none":          repo.ListMerged(ctx, nil).Err(),
		"other buckets": repo.ListMerged(ctx, []*fBucketed{{Bucket: 1}, {Bucket: 3}}, PageSize(1), After(it.Cursor())).Err(),
		"other order":   repo.ListMerged(ctx, []*fBucketed{{Bucket: 1}, {Bucket: 2}}, PageSize(1), Reversed(), After(it.Cursor())).Err(),
		"a List's turn": repo.List(ctx, &fBucketed{Bucket: 1}, PageSize(1), After(it.Cursor())).Err(),
		"nil partition": repo.ListMerged(ctx, []*fBucketed{{Bucket: 1}, nil}).Err(),
	} {
		if !errors.Is(err, kerrors.ErrArgument) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
