package kandra_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
)

// Passage is a chunk of a document with its embedding, found by meaning
// through an ANN index.
type Passage struct {
	DocID     uuid.UUID
	Chunk     int32
	Text      string
	Embedding [4]float32
}

func (p *Passage) Describe(s *kandra.Schema[Passage]) {
	s.Table("passages")
	kandra.Bind(s, &p.DocID, kandra.PartitionKey(0))
	kandra.Bind(s, &p.Chunk, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &p.Embedding, kandra.VectorIndex(kandra.SimilarityCosine))
}

func ExampleVectorIndex() {
	passages := kandra.MustRegister[Passage]()
	// An ANN index is Cassandra's: target Cassandra 5.0 (either yaml).
	search := kandra.MustNewKeyspace(kandra.KeyspaceSpec{
		Name:        "search",
		Replication: kandra.SimpleStrategy(1),
		Targets:     kandra.Cassandra5 | kandra.Cassandra5Latest,
	}, passages)
	for _, stmt := range search.Statements()[1:] {
		fmt.Println(stmt)
	}
	// Output:
	// CREATE TABLE IF NOT EXISTS search.passages (
	//     doc_id UUID,
	//     chunk INT,
	//     text TEXT,
	//     embedding VECTOR<FLOAT, 4>,
	//     PRIMARY KEY (doc_id, chunk)
	// )
	// WITH CLUSTERING ORDER BY (chunk ASC);
	// CREATE INDEX IF NOT EXISTS passages_embedding_idx ON search.passages (embedding) USING 'sai' WITH OPTIONS = {'similarity_function': 'COSINE'};
}

func TestVectorTypes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want kandra.CQLType
	}{
		{"vector<float, 3>", kandra.VectorOf(kandra.CQLFloat, 3)},
		{"VECTOR<FLOAT, 3>", kandra.VectorOf(kandra.CQLFloat, 3)},
	} {
		got, err := kandra.ParseCQLType(c.in)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("ParseCQLType(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	v := kandra.VectorOf(kandra.CQLFloat, 768)
	if v.Kind() != kandra.KindVector || v.Dim() != 768 || !v.Elem().Equal(kandra.CQLFloat) || v.IsCollection() {
		t.Errorf("VectorOf(FLOAT, 768): kind %v dim %d elem %v collection %v", v.Kind(), v.Dim(), v.Elem(), v.IsCollection())
	}
	if v.Equal(kandra.VectorOf(kandra.CQLFloat, 767)) || v.String() != "VECTOR<FLOAT, 768>" || v.Frozen() != "VECTOR<FLOAT, 768>" {
		t.Errorf("VectorOf: %s / %s, or equal across dimensions", v, v.Frozen())
	}
}

type vecKey struct {
	V  [3]float32
	ID int64
}

func (e *vecKey) Describe(s *kandra.Schema[vecKey]) {
	s.Table("vk")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.V, kandra.ClusteringKey(0, kandra.ClusteringAsc))
}

type vecSecondary struct {
	ID int64
	V  [3]float32
}

func (e *vecSecondary) Describe(s *kandra.Schema[vecSecondary]) {
	s.Table("vs")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.V, kandra.SecondaryIndex())
}

type vecOnText struct {
	ID int64
	T  string
}

func (e *vecOnText) Describe(s *kandra.Schema[vecOnText]) {
	s.Table("vt")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.T, kandra.VectorIndex(kandra.SimilarityEuclidean))
}

type vecCosine1 struct {
	ID int64
	V  [1]float32
}

func (e *vecCosine1) Describe(s *kandra.Schema[vecCosine1]) {
	s.Table("v1")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.V, kandra.VectorIndex(kandra.SimilarityCosine))
}

type vecNoSim struct {
	ID int64
	V  [2]float32
}

func (e *vecNoSim) Describe(s *kandra.Schema[vecNoSim]) {
	s.Table("vn")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.V, kandra.VectorIndex(0))
}

type vecZero struct {
	ID int64
	V  [0]float32
}

func (e *vecZero) Describe(s *kandra.Schema[vecZero]) {
	s.Table("vz")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type vecInList struct {
	ID int64
	L  [][2]float32
}

func (e *vecInList) Describe(s *kandra.Schema[vecInList]) {
	s.Table("vl")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type vecText struct {
	ID int64
	V  [2]float32
}

func (e *vecText) Describe(s *kandra.Schema[vecText]) {
	s.Table("vx")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.V, kandra.AsType(kandra.VectorOf(kandra.CQLDouble, 2)))
}

func TestVectorRules(t *testing.T) {
	for _, c := range []struct {
		name string
		reg  func() error
		rule kandra.Rule
		want string
	}{
		{"key", func() error { _, err := kandra.Register[vecKey](); return err }, kandra.RuleVector, "cannot be a clustering key"},
		{"secondary", func() error { _, err := kandra.Register[vecSecondary](); return err }, kandra.RuleVector, "kandra.VectorIndex(kandra.SimilarityCosine)"},
		{"on text", func() error { _, err := kandra.Register[vecOnText](); return err }, kandra.RuleVector, "holds TEXT"},
		{"cosine 1", func() error { _, err := kandra.Register[vecCosine1](); return err }, kandra.RuleVector, "single-dimension"},
		{"no similarity", func() error { _, err := kandra.Register[vecNoSim](); return err }, kandra.RuleVector, "Similarity(0)"},
		{"zero dim", func() error { _, err := kandra.Register[vecZero](); return err }, kandra.RuleUnsupportedType, "positive dimensions"},
		{"in list", func() error { _, err := kandra.Register[vecInList](); return err }, kandra.RuleUnsupportedType, "inside a collection"},
		{"double", func() error { _, err := kandra.Register[vecText](); return err }, kandra.RuleUnsupportedType, "VECTOR<FLOAT, N>"},
	} {
		err := c.reg()
		var se *kandra.SchemaError
		if !errors.As(err, &se) || se.Rule != c.rule || !strings.Contains(se.Detail, c.want) {
			t.Errorf("%s: %v; want a %s error containing %q", c.name, err, c.rule, c.want)
		}
	}
}

func TestVectorTargets(t *testing.T) {
	passages := kandra.MustRegister[Passage]()
	for _, c := range []struct {
		targets kandra.Target
		want    string
	}{
		{kandra.Scylla2025, "2025.1 has no vector type"},
		{kandra.Scylla2026, "Vector Search service"},
		{kandra.Cassandra5 | kandra.Scylla2025, "2025.1 has no vector type"},
	} {
		_, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "s", Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 1}), Targets: c.targets}, passages)
		var se *kandra.SchemaError
		if !errors.As(err, &se) || se.Rule != kandra.RuleVectorTarget || !strings.Contains(se.Detail, c.want) {
			t.Errorf("targets %v: %v; want a vector-target error containing %q", c.targets, err, c.want)
		}
	}
}

func TestVectorProblem(t *testing.T) {
	for _, c := range []struct {
		v    []float32
		sim  kandra.Similarity
		want string
	}{
		{[]float32{1, 0}, kandra.SimilarityCosine, ""},
		{[]float32{0, 2e-6}, kandra.SimilarityCosine, ""},
		{[]float32{0, 1e-6}, kandra.SimilarityCosine, "near-zero"},
		{[]float32{0, 0}, kandra.SimilarityEuclidean, ""},
		{[]float32{1e17, -1e17}, kandra.SimilarityDotProduct, ""},
		{[]float32{1, 2e17}, kandra.SimilarityDotProduct, "component 1 is 2e+17"},
		{[]float32{float32(math.Inf(-1)), 1}, kandra.SimilarityEuclidean, "component 0 is -Inf: an ANN index takes finite components only"},
		{[]float32{1, float32(math.NaN())}, kandra.SimilarityCosine, "component 1 is NaN"},
	} {
		if got := kandra.VectorProblem(c.v, c.sim); c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("VectorProblem(%v, %v) = %q, want %q", c.v, c.sim, got, c.want)
		}
	}
}
