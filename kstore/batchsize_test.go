package kstore

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
)

// fSpot is a user-defined type with a nullable field and a field left out.
type fSpot struct {
	Name  string
	Seats *int32
	At    time.Time
	Note  string `kandra:"-"`
}

// fBag has a BATCH lookup and a value of every shape.
type fBag struct {
	ID     string
	Tag    string
	Nums   []int64
	Set    map[string]struct{}
	Attrs  map[string]int32
	Spot   *fSpot
	Spots  []fSpot
	Nested [][]int64
	Whole  fSpot
	Day    time.Time
	Big    *big.Int
	Names  []string
	Fixed  []string
}

func (b *fBag) Describe(s *kandra.Schema[fBag]) {
	s.Table("fbags")
	kandra.Bind(s, &b.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &b.Tag, kandra.Lookup("by_tag", kandra.LookupBatch))
	kandra.Bind(s, &b.Whole, kandra.Frozen())
	kandra.Bind(s, &b.Day, kandra.AsType(kandra.CQLDate))
	kandra.Bind(s, &b.Fixed, kandra.Frozen())
}

var (
	fBags = kandra.MustRegister[fBag]()
	bagKS = kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5, Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3})}, fBags)
	// bagKSAll also targets ScyllaDB, whose cells kandra does not model.
	bagKSAll = kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5 | kandra.Scylla2026, Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3})}, fBags)
	bagCols  = func() map[string]*kandra.ColumnSchema {
		m := map[string]*kandra.ColumnSchema{}
		for _, c := range fBags.Schema().Columns() {
			m[c.GoName()] = c
		}
		return m
	}()
)

// TestBatchSizeValueBytes: every shape of value is counted by the bytes
// of its values, without the framing the server does not keep in every
// form (lengths, counts), so the estimate is a lower bound of the
// server's count whatever the freezing.
func TestBatchSizeValueBytes(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	one := int32(1)
	for _, c := range []struct {
		col   string
		v     any
		want  int // the values' bytes
		cells int // with Cassandra's cells, as a regular column
	}{
		{"Tag", ptrTo("héllo"), 6, 16 + 6},
		{"Nums", &[]int64{1, 2, 3}, 24, 3 * (16 + 16 + 8)},
		{"Nums", ptrTo(make([]int64, 8000)), 64000, 8000 * 40},
		{"Nums", &[]int64{}, 0, 0},                                             // not frozen: null
		{"Nested", &[][]int64{{}, {7}, {8, 9}}, 24, 3*32 + 24},                 // frozen inside: an empty list is a value
		{"Whole", &fSpot{Name: "ab", Seats: &one, At: at}, 2 + 4 + 8, 16 + 14}, // frozen: one cell
		{"Set", &map[string]struct{}{"a": {}, "bb": {}}, 3, 2*16 + 3},
		{"Attrs", &map[string]int32{"a": 1, "bcd": 2}, 1 + 4 + 3 + 4, 2*16 + 12},
		{"Spot", ptrTo(&fSpot{Name: "xyz", At: at, Note: strings.Repeat("n", 100)}), 3 + 8, 2*16 + 11}, // a cell a non-null field
		{"Spot", ptrTo((*fSpot)(nil)), 0, 0},
		{"Spots", &[]fSpot{{Name: "ab", Seats: &one, At: at}, {Name: "c", At: at}}, 2 + 4 + 8 + 1 + 8, 2*32 + 23},
		{"Spots", ptrTo([]fSpot{{Name: strings.Repeat("x", 60000), At: at}}), 60008, 32 + 60008},
		{"Day", &at, 4, 16 + 4},
		{"Big", ptrTo(big.NewInt(300)), 2, 16 + 2},
		{"Big", ptrTo((*big.Int)(nil)), 0, 0},
	} {
		col := bagCols[c.col]
		var sz batchSizer
		if got := sz.valueBytes(col, c.v, true); got != c.want {
			t.Errorf("%s %T: %d bytes, want %d", c.col, c.v, got, c.want)
		}
		sz.cells = true
		if got := sz.valueBytes(col, c.v, false); got != c.want {
			t.Errorf("%s %T in a key: %d bytes, want %d", c.col, c.v, got, c.want)
		}
		if got := sz.valueBytes(col, c.v, true); got != c.cells {
			t.Errorf("%s %T with Cassandra's cells: %d bytes, want %d", c.col, c.v, got, c.cells)
		}
		if b, err := col.AppendStored(nil, c.v); err != nil || len(b) < c.want {
			t.Errorf("%s: the stored form (%d bytes, %v) is shorter than the count %d", c.col, len(b), err, c.want)
		}
	}
}

// TestTextListBytes: a list of text is counted from its strings as its
// stored form counts it, frozen or not, as a key or a regular column,
// with Cassandra's cells or without.
func TestTextListBytes(t *testing.T) {
	lists := [][]string{nil, {}, {""}, {"", ""}, {"a"}, {"héllo", "", "xyz"}, {strings.Repeat("x", 70000)}}
	for i := range 50 {
		l := make([]string, i%7)
		for j := range l {
			l[j] = strings.Repeat("é", (i*j)%5)
		}
		lists = append(lists, l)
	}
	for _, name := range []string{"Names", "Fixed"} {
		col := bagCols[name]
		for _, l := range lists {
			for _, cells := range []bool{false, true} {
				for _, cell := range []bool{false, true} {
					sz := batchSizer{cells: cells}
					over := 0
					if cell && cells {
						over = cassandraCell
					}
					fast, ok := textListBytes(col, &l, over)
					if want := sz.storedBytes(col, &l, over); !ok || fast != want {
						t.Errorf("%s %q (cell %v, cells %v): %d bytes (%v), the stored form's count %d", name, l, cell, cells, fast, ok, want)
					}
				}
			}
		}
	}
	if _, ok := textListBytes(bagCols["Nums"], &[]int64{1}, 0); ok {
		t.Error("a list of numbers counted as text")
	}
}

// TestBatchSizeEveryShape (issue 33, finding 11): a Save with a BATCH
// lookup is refused before sending when a list of numbers, a set, a map
// or a user-defined type takes it over the limit; a lookup value is not
// counted twice (the lookup row's partition key is not counted by the
// server), and the limit is exact.
func TestBatchSizeEveryShape(t *testing.T) {
	ctx := context.Background()
	for name, b := range map[string]*fBag{
		"8,000 bigints":       {Nums: make([]int64, 8000)},
		"nested lists":        {Nested: [][]int64{make([]int64, 4000), make([]int64, 4000)}},
		"a frozen UDT":        {Whole: fSpot{Name: strings.Repeat("x", 60000)}},
		"a UDT":               {Spot: &fSpot{Name: strings.Repeat("x", 60000)}},
		"a list of UDTs":      {Spots: make([]fSpot, 8000)}, // a timestamp each
		"a set":               {Set: manyKeys(6000, func(m map[string]struct{}, k string) { m[k] = struct{}{} })},
		"a map of int values": {Attrs: manyKeys(6000, func(m map[string]int32, k string) { m[k] = 1 })},
	} {
		f := &fake{applied: true}
		rt, err := New(f, bagKS)
		if err != nil {
			t.Fatal(err)
		}
		b.ID, b.Tag = "k", "t"
		if err := MustNewRepo(rt, fBags).Save(ctx, b); !errors.Is(err, kerrors.ErrBatchTooLarge) || len(f.sent()) != 0 {
			t.Errorf("%s: %v, sent %d", name, err, len(f.sent()))
		}
	}

	// The lookup value is a column of the row (counted) and the lookup
	// row's partition key (not counted): 30,000 bytes, under the limit.
	f := &fake{applied: true}
	rt, _ := New(f, bagKS)
	if err := MustNewRepo(rt, fBags).Save(ctx, &fBag{ID: "k", Tag: strings.Repeat("t", 30000)}); err != nil || len(f.sent()) != 1 {
		t.Errorf("a 30,000-byte lookup value: %v, sent %d", err, len(f.sent()))
	}

	// Exact: the row's tag (1), 100 bigints (800), its day (4), its whole
	// spot's zero time (8; the rest is empty), and the lookup row's key of
	// the row (1); not its partition key, nor the lookup row's. With only
	// Cassandra targets, each of the row's 3 cells (tag, day, spot) counts
	// 16 bytes more, and each list element 16 more and its 16-byte path.
	for _, c := range []struct {
		ks   *kandra.Keyspace
		want int
	}{{bagKSAll, 1 + 800 + 4 + 8 + 1}, {bagKS, 1 + 800 + 4 + 8 + 1 + 3*16 + 100*32}} {
		for limit, ok := range map[int]bool{c.want: true, c.want - 1: false} {
			f := &fake{applied: true}
			rt, _ := New(f, c.ks, WithMaxBatchBytes(limit))
			err := MustNewRepo(rt, fBags).Save(ctx, &fBag{ID: "k", Tag: "t", Nums: make([]int64, 100)})
			if ok != (err == nil) || !ok && !errors.Is(err, kerrors.ErrBatchTooLarge) {
				t.Errorf("%s, limit %d: %v", c.ks.Targets(), limit, err)
			}
		}
	}
}

// manyKeys is a map of n distinct 9-byte keys, filled by set.
func manyKeys[M ~map[string]V, V any](n int, set func(M, string)) M {
	m := make(M, n)
	for i := range n {
		set(m, fmt.Sprintf("key-%05d", i))
	}
	return m
}

// fTrack has a key of fixed-size columns and two non-unique lookups, one
// of a text value: a HardDelete's batch has a bound (deleteBound).
type fTrack struct {
	ID   uuid.UUID
	Seq  int64
	Name string
	Tag  string
	Note string
}

func (r *fTrack) Describe(s *kandra.Schema[fTrack]) {
	s.Table("ftracks")
	kandra.Bind(s, &r.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &r.Seq, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &r.Name, kandra.Lookup("by_name", kandra.LookupBatch))
	kandra.Bind(s, &r.Tag, kandra.Lookup("by_tag", kandra.LookupBatch))
}

var fTracks = kandra.MustRegister[fTrack]()

// batchCapture keeps a copy of every batch's entries.
type batchCapture struct {
	valuesDriver
	batches [][]adapter.Query
}

func (d *batchCapture) Batch(_ context.Context, b *adapter.Batch) (bool, error) {
	var qs []adapter.Query
	for _, e := range b.Entries {
		q := *e
		q.Values = append([]any(nil), e.Values...)
		qs = append(qs, q)
	}
	d.batches = append(d.batches, qs)
	return true, nil
}

// TestDeleteBound: the bound a HardDelete's batch is not measured under
// holds whatever the lookup values (the lookup rows' own values are their
// partition keys, not counted), and a limit below it has the batch
// measured again (and refused when it is over).
func TestDeleteBound(t *testing.T) {
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5, Replication: kandra.SimpleStrategy(1)}, fTracks)
	ctx := context.Background()
	d := &batchCapture{}
	rt, err := New(d, ks)
	if err != nil {
		t.Fatal(err)
	}
	repo := MustNewRepo(rt, fTracks)
	if want := 3 * (16 + 8); repo.deleteBound != want || !repo.deleteFits() {
		t.Fatalf("deleteBound = %d (fits %v), want %d: the row and two lookup rows of a 16-byte and an 8-byte key", repo.deleteBound, repo.deleteFits(), want)
	}
	e := &fTrack{ID: uuid.New(), Seq: 7, Name: strings.Repeat("n", 40000), Tag: strings.Repeat("t", 40000), Note: "x"}
	if err := repo.HardDelete(ctx, e); err != nil {
		t.Fatal(err)
	}
	if len(d.batches) != 1 || len(d.batches[0]) != 3 {
		t.Fatalf("batches %v, want one of the row and two lookup rows", d.batches)
	}
	var entries []*adapter.Query
	for i := range d.batches[0] {
		entries = append(entries, &d.batches[0][i])
	}
	for _, limit := range []int{repo.deleteBound, repo.deleteBound - 1} {
		rt2, _ := New(&batchCapture{}, ks, WithMaxBatchBytes(limit))
		r2 := MustNewRepo(rt2, fTracks)
		if err := r2.checkBatchSize("HardDelete", entries); err != nil && limit == repo.deleteBound {
			t.Fatalf("the batch counts more than its bound %d: %v", limit, err)
		}
		if r2.deleteFits() != (limit >= repo.deleteBound) {
			t.Fatalf("limit %d: deleteFits = %v", limit, r2.deleteFits())
		}
	}
	// Under a limit below the bound the batch is measured: a limit of 8
	// bytes is under the row's clustering key and the lookup rows' keys.
	rt3, _ := New(&batchCapture{}, ks, WithMaxBatchBytes(8))
	if err := MustNewRepo(rt3, fTracks).HardDelete(ctx, e); !errors.Is(err, kerrors.ErrBatchTooLarge) {
		t.Fatalf("HardDelete under an 8-byte limit: %v, want ErrBatchTooLarge", err)
	}
	// A key of text has no bound.
	if b := deleteBound(fPosts.Schema().PrimaryKey(), fPosts.Schema().LookupTables()); b != -1 {
		t.Fatalf("deleteBound of a text key = %d, want -1", b)
	}
}
