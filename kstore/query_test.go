package kstore

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

// fItem has an index of each kind a Where reads through.
type fItem struct {
	Shop  string
	ID    int64
	Cat   string
	Old   string
	Price int64
	Tags  []string
	Attrs map[string]string
	Vec   [2]float32
	Plain string
}

func (i *fItem) Describe(s *kandra.Schema[fItem]) {
	s.Table("fitems")
	kandra.Bind(s, &i.Shop, kandra.PartitionKey(0))
	kandra.Bind(s, &i.ID, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &i.Cat, kandra.SecondaryIndex(kandra.UsingSAI()))
	kandra.Bind(s, &i.Old, kandra.SecondaryIndex(kandra.UsingLegacy()))
	kandra.Bind(s, &i.Price, kandra.SecondaryIndex(kandra.UsingSAI()))
	kandra.Bind(s, &i.Tags, kandra.SecondaryIndex(kandra.UsingSAI()))
	kandra.Bind(s, &i.Attrs, kandra.SecondaryIndex(kandra.UsingSAI(), kandra.IndexKeys()))
	kandra.Bind(s, &i.Vec, kandra.VectorIndex(kandra.SimilarityEuclidean))
}

var (
	fItems    = kandra.MustRegister[fItem]()
	itemCat   = kandra.MustFieldOf(fItems, func(i *fItem) *string { return &i.Cat })
	itemOld   = kandra.MustFieldOf(fItems, func(i *fItem) *string { return &i.Old })
	itemPrice = kandra.MustFieldOf(fItems, func(i *fItem) *int64 { return &i.Price })
	itemTags  = kandra.MustFieldOf(fItems, func(i *fItem) *[]string { return &i.Tags })
	itemAttrs = kandra.MustFieldOf(fItems, func(i *fItem) *map[string]string { return &i.Attrs })
	itemVec   = kandra.MustFieldOf(fItems, func(i *fItem) *[2]float32 { return &i.Vec })
	itemPlain = kandra.MustFieldOf(fItems, func(i *fItem) *string { return &i.Plain })
)

// Where sends one statement of the predicates, in the table's order of
// their fields, a range's two bounds together; what a server would need
// ALLOW FILTERING for is refused before sending, naming the way out.
func TestWhere(t *testing.T) {
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5,
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3})}, fItems)
	f := &fake{applied: true}
	rt, err := New(f, ks)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(context.Background())
	items := MustNewRepo(rt, fItems)
	ctx := context.Background()

	sent := func(run func()) string {
		f.clear()
		run()
		log := f.sent()
		if len(log) != 1 {
			t.Fatalf("%d statements sent", len(log))
		}
		return log[0].cql
	}
	for want, run := range map[string]func(){
		"SELECT shop, id, cat, old, price, tags, attrs, vec, plain FROM ks.fitems WHERE cat = ? AND price >= ? AND price < ? AND tags CONTAINS ?": func() {
			_ = items.Where(Lt(itemPrice, 9), ListHas(itemTags, "x"), Eq(itemCat, "a"), Ge(itemPrice, 1)).List(ctx).Err()
		},
		"SELECT COUNT(*) FROM ks.fitems WHERE shop = ? AND old = ?": func() {
			_, _ = items.Where(Eq(itemOld, "o")).Within(&fItem{Shop: "s"}).Count(ctx)
		},
		"SELECT shop, id, cat, old, price, tags, attrs, vec, plain FROM ks.fitems WHERE attrs CONTAINS KEY ?": func() {
			_ = items.Where(MapHasKey(itemAttrs, "k")).List(ctx).Err()
		},
		"SELECT shop, id, vec, similarity_euclidean(vec, ?) FROM ks.fitems WHERE shop = ? ORDER BY vec ANN OF ? LIMIT ?": func() {
			_ = items.Where().Within(&fItem{Shop: "s"}).Nearest(ctx, NearTo(itemVec, [2]float32{1, 2}), 3, Columns(itemVec), WithScores()).Err()
		},
	} {
		if got := sent(run); got != want {
			t.Errorf("sent %s\nwant %s", got, want)
		}
	}

	for name, c := range map[string]struct {
		err  error
		says string
	}{
		"a legacy index with another":    {items.Where(Eq(itemOld, "o"), Eq(itemCat, "a")).List(ctx).Err(), "need an SAI index on each field"},
		"a legacy index with ANN":        {items.Where(Eq(itemOld, "o")).Nearest(ctx, NearTo(itemVec, [2]float32{1, 2}), 3).Err(), "need an SAI index"},
		"Ne":                             {items.Where(Ne(itemCat, "a")).List(ctx).Err(), "ALLOW FILTERING"},
		"In":                             {items.Where(In(itemCat, "a", "b")).List(ctx).Err(), "ALLOW FILTERING"},
		"no index":                       {items.Where(Eq(itemPlain, "p")).List(ctx).Err(), "no secondary index"},
		"a range of a legacy index":      {items.Where(Gt(itemOld, "a")).List(ctx).Err(), "does not read ranges"},
		"CONTAINS of a keys index":       {items.Where(MapHasValue(itemAttrs, "v")).List(ctx).Err(), "ContainsKey"},
		"two lower bounds":               {items.Where(Gt(itemPrice, 1), Ge(itemPrice, 2)).List(ctx).Err(), "second bound"},
		"two equalities":                 {items.Where(Eq(itemCat, "a"), Eq(itemCat, "b")).List(ctx).Err(), "second predicate"},
		"nothing":                        {items.Where().List(ctx).Err(), "Scan"},
		"an ANN index as a predicate":    {items.Where(Eq(itemVec, [2]float32{1, 2})).List(ctx).Err(), "ANN index"},
		"Nearest by a field without ANN": {items.Where(Eq(itemCat, "a")).Nearest(ctx, NearTo(itemPrice, 3), 3).Err(), "no ANN index"},
		"Count SkipDeleted":              {func() error { _, err := items.Where(Eq(itemCat, "a")).Count(ctx, SkipDeleted()); return err }(), "soft-deleted"},
		"Exists":                         {items.Where(Exists[fItem]()).List(ctx).Err(), "write's condition"},
	} {
		if !errors.Is(c.err, kerrors.ErrArgument) || !strings.Contains(c.err.Error(), c.says) {
			t.Errorf("%s: %v (want an argument error saying %q)", name, c.err, c.says)
		}
	}
	f.clear()
	_ = items.Where(Eq(itemOld, "o"), Eq(itemCat, "a")).List(ctx).Err()
	if n := len(f.sent()); n != 0 {
		t.Fatalf("a refused query sent %d statements", n)
	}
}
