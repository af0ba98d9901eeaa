package adaptertest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
)

// embedding holds one vector per similarity function, each with its ANN
// index, and a vector without an index (which takes any float).
type embedding struct {
	Topic string
	ID    int32
	Cos   [3]float32
	Euc   [3]float32
	Dot   *[3]float32 // nil: null, which the index skips
	Raw   [2]float32
}

// Describe implements kandra's description.
func (e *embedding) Describe(s *kandra.Schema[embedding]) {
	s.Table("embeddings")
	kandra.Bind(s, &e.Topic, kandra.PartitionKey(0))
	kandra.Bind(s, &e.ID, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &e.Cos, kandra.VectorIndex(kandra.SimilarityCosine))
	kandra.Bind(s, &e.Euc, kandra.VectorIndex(kandra.SimilarityEuclidean))
	kandra.Bind(s, &e.Dot, kandra.VectorIndex(kandra.SimilarityDotProduct))
}

var (
	embeddingsTable *kandra.Table[embedding]
	embeddingCos    kandra.Field[embedding, [3]float32]
	embeddingEuc    kandra.Field[embedding, [3]float32]
	embeddingDot    kandra.Field[embedding, *[3]float32]
)

// testVectors writes vectors through the adapter, reads them back bit for
// bit, and reads the nearest rows through each similarity function's ANN
// index, in the order the function ranks them. It prints
// "real-server: vector functions=3 nearest-first=<bool> adapter=<Name>".
func testVectors(t *testing.T, h *harness) {
	functions, nearestFirst := 0, true
	defer func() {
		fmt.Printf("real-server: vector functions=%d nearest-first=%v adapter=%s\n", functions, nearestFirst && functions == 3, h.n.Name)
	}()
	e := h.env(t)
	repo := kstore.MustNewRepo(e.rt, embeddingsTable)
	topic := uniq("v")
	// The query is [1, 0, 0]. By cosine: A, B, C, D, E; by distance: A, C,
	// D, E, B; by dot product: B, A, C, D (E has no dot vector).
	vecs := map[int32][3]float32{1: {1, 0, 0}, 2: {10, 1, 0}, 3: {0.5, 0.5, 0}, 4: {0, 1, 0}, 5: {-1, 0, 0}}
	nan := math.Float32frombits(0x7fc00001) // a NaN with a payload, unindexed
	for id, v := range vecs {
		row := &embedding{Topic: topic, ID: id, Cos: v, Euc: v, Raw: [2]float32{nan, float32(math.Inf(-1))}}
		if id != 5 {
			d := v
			row.Dot = &d
		}
		if err := repo.Save(ctx, row); err != nil {
			t.Fatalf("save %d: %v", id, err)
		}
	}
	got, err := repo.Get(ctx, &embedding{Topic: topic, ID: 2})
	switch {
	case err != nil:
		t.Fatal(err)
	case got.Cos != vecs[2] || got.Euc != vecs[2] || got.Dot == nil || *got.Dot != vecs[2] ||
		math.Float32bits(got.Raw[0]) != 0x7fc00001 || !math.IsInf(float64(got.Raw[1]), -1):
		t.Errorf("row 2 reads back as %+v (Dot %v, Raw bits %#x)", got, got.Dot, math.Float32bits(got.Raw[0]))
	}
	if got, err := repo.Get(ctx, &embedding{Topic: topic, ID: 5}); err != nil || got.Dot != nil {
		t.Errorf("row 5: %+v, %v; want a nil Dot", got, err)
	}
	q := [3]float32{1, 0, 0}
	order := func(it *kstore.Iter[embedding]) ([]int32, error) {
		rows, err := it.All()
		var ids []int32
		for _, r := range rows {
			ids = append(ids, r.ID)
		}
		return ids, err
	}
	for _, c := range []struct {
		name string
		it   *kstore.Iter[embedding]
		want []int32
	}{
		{"cosine", kstore.MustIndexOf(repo, embeddingCos).Nearest(ctx, q, 5), []int32{1, 2, 3, 4, 5}},
		{"euclidean", kstore.MustIndexOf(repo, embeddingEuc).Nearest(ctx, q, 5), []int32{1, 3, 4, 5, 2}},
		{"dot product", kstore.MustIndexOf(repo, embeddingDot).Nearest(ctx, &q, 5, kstore.Consistency(kandra.ConsistencyLocalOne)), []int32{2, 1, 3, 4}},
	} {
		ids, err := order(c.it)
		if err != nil || !slices.Equal(ids, c.want) {
			t.Errorf("%s: nearest %v, %v; want %v", c.name, ids, err, c.want)
			nearestFirst = false
			continue
		}
		functions++
	}
	if ids, err := order(kstore.MustIndexOf(repo, embeddingEuc).Nearest(ctx, q, 2)); err != nil || !slices.Equal(ids, []int32{1, 3}) {
		t.Errorf("euclidean, limit 2: %v, %v; want [1 3]", ids, err)
		nearestFirst = false
	}

	// Refused before sending: values an ANN index cannot rank, and reads
	// the server refuses.
	var ve *kerrors.ValueError
	for name, row := range map[string]*embedding{
		"a zero cosine vector":      {Topic: topic, ID: 10, Cos: [3]float32{}, Euc: q},
		"a near-zero cosine vector": {Topic: topic, ID: 11, Cos: [3]float32{1e-30, 0, 0}, Euc: q},
		"a NaN":                     {Topic: topic, ID: 12, Cos: q, Euc: [3]float32{float32(math.NaN()), 1, 0}},
		"a component past 1e17":     {Topic: topic, ID: 13, Cos: q, Euc: [3]float32{1e18, 1, 0}},
	} {
		if err := repo.Save(ctx, row); !errors.As(err, &ve) {
			t.Errorf("save %s: %v; want an *kerrors.ValueError", name, err)
		}
		if _, err := repo.Get(ctx, &embedding{Topic: topic, ID: row.ID}); !errors.Is(err, kerrors.ErrNotFound) {
			t.Errorf("after the refused save of %s: %v; want nothing written", name, err)
		}
	}
	cos := kstore.MustIndexOf(repo, embeddingCos)
	var ae *kerrors.ArgumentError
	for name, it := range map[string]*kstore.Iter[embedding]{
		"limit 0":          cos.Nearest(ctx, q, 0),
		"limit 1001":       cos.Nearest(ctx, q, kstore.MaxNearest+1),
		"a serial read":    cos.Nearest(ctx, q, 3, kstore.Consistency(kandra.ConsistencySerial)),
		"Find on a vector": cos.Find(ctx, q),
	} {
		if _, err := it.All(); !errors.As(err, &ae) {
			t.Errorf("%s: %v; want an *kerrors.ArgumentError", name, err)
		}
	}
	for name, qv := range map[string][3]float32{"a zero query": {}, "an infinite query": {float32(math.Inf(1)), 0, 0}} {
		if _, err := cos.Nearest(ctx, qv, 3).All(); !errors.As(err, &ve) {
			t.Errorf("%s: %v; want an *kerrors.ValueError", name, err)
		}
	}
}
