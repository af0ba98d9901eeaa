package kstore_test

import (
	"context"
	"fmt"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kstore"
)

// Product is the read examples' entity: a shop's catalogue, with SAI
// indexes on its category, price and tags, an ANN index on its
// embedding, and a photo a listing does not need.
type Product struct {
	Shop     string
	ID       int64
	Category string
	Price    int64
	Tags     []string
	Vec      [3]float32
	Photo    []byte
}

func (p *Product) Describe(s *kandra.Schema[Product]) {
	s.Table("products")
	kandra.Bind(s, &p.Shop, kandra.PartitionKey(0))
	kandra.Bind(s, &p.ID, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &p.Category, kandra.SecondaryIndex(kandra.UsingSAI()))
	kandra.Bind(s, &p.Price, kandra.SecondaryIndex(kandra.UsingSAI()))
	kandra.Bind(s, &p.Tags, kandra.SecondaryIndex(kandra.UsingSAI()))
	kandra.Bind(s, &p.Vec, kandra.VectorIndex(kandra.SimilarityCosine))
}

// Event is an event in one of ten time buckets, newest first.
type Event struct {
	Bucket int32
	At     time.Time
	Name   string
}

func (e *Event) Describe(s *kandra.Schema[Event]) {
	s.Table("events")
	kandra.Bind(s, &e.Bucket, kandra.PartitionKey(0))
	kandra.Bind(s, &e.At, kandra.ClusteringKey(0, kandra.ClusteringDesc))
}

var (
	Products        = kandra.MustRegister[Product]()
	productCategory = kandra.MustFieldOf(Products, func(p *Product) *string { return &p.Category })
	productPrice    = kandra.MustFieldOf(Products, func(p *Product) *int64 { return &p.Price })
	productTags     = kandra.MustFieldOf(Products, func(p *Product) *[]string { return &p.Tags })
	productVec      = kandra.MustFieldOf(Products, func(p *Product) *[3]float32 { return &p.Vec })
	Events          = kandra.MustRegister[Event]()
	eventAt         = kandra.MustFieldOf(Events, func(e *Event) *time.Time { return &e.At })
	eventName       = kandra.MustFieldOf(Events, func(e *Event) *string { return &e.Name })
	taskKind        = kandra.MustFieldOf(ShardRows, func(r *ShardRow) *int32 { return &r.Kind })
	taskID          = kandra.MustFieldOf(ShardRows, func(r *ShardRow) *int64 { return &r.ID })
	// Shop is the keyspace of the read examples, on Cassandra (whose SAI
	// indexes combine predicates).
	Shop = kandra.MustNewKeyspace(kandra.KeyspaceSpec{
		Name:        "shop",
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3}),
		Targets:     kandra.Cassandra5,
	}, Products, Events, ShardRows)
)

// A scan reads every row of a table by token ranges, a few at once, and
// reports where it stands; the position it stopped at resumes it. The
// printer has no ring to read, so the ring is cut evenly here; on a node
// the cut follows its vnodes or tablets.
func ExampleRepo_Scan() {
	ctx := context.Background()
	rt, _ := kstore.New(printer{}, Shop)
	defer rt.Close(ctx)
	products := kstore.MustNewRepo(rt, Products)

	// snippet: scan
	res, err := products.Scan(ctx, func(p *Product) error {
		return nil // each row, from up to Concurrency goroutines at once
	}, kstore.Concurrency(1), kstore.Ranges(2), kstore.Columns(productCategory),
		kstore.OnProgress(func(p kstore.ScanProgress) {
			_ = p.Position.String() // save it to resume with kstore.ResumeFrom after a crash
		}))
	// end snippet
	fmt.Println(res.Rows, res.Ranges, res.Ring, res.Position.Done(), err)
	// Output:
	// SELECT shop, id, category FROM shop.products WHERE token(shop) > ? AND token(shop) <= ?
	// SELECT shop, id, category FROM shop.products WHERE token(shop) > ? AND token(shop) <= ?
	// 0 2 even true <nil>
}

// Several SAI predicates at once, listed and counted, and an ANN read
// restricted by one of them, with each row's similarity.
func ExampleRepo_Where() {
	ctx := context.Background()
	rt, _ := kstore.New(printer{}, Shop)
	defer rt.Close(ctx)
	products := kstore.MustNewRepo(rt, Products)

	// snippet: where
	q := products.Where(kstore.Eq(productCategory, "books"), kstore.ListHas(productTags, "sale"), kstore.Lt(productPrice, 2000))
	page := q.List(ctx, kstore.PageSize(50), kstore.Columns(productPrice))
	n, err := q.Count(ctx)
	near := products.Where(kstore.Eq(productCategory, "books")).
		Nearest(ctx, kstore.NearTo(productVec, [3]float32{1, 0, 0}), 5, kstore.WithScores())
	for near.Next() {
		fmt.Println(near.Value().ID, near.Score())
	}
	// end snippet
	fmt.Println(page.Err(), n, err)
	// Output:
	// SELECT shop, id, price FROM shop.products WHERE category = ? AND price < ? AND tags CONTAINS ?
	// SELECT COUNT(*) FROM shop.products WHERE category = ? AND price < ? AND tags CONTAINS ?
	// SELECT shop, id, category, price, tags, vec, photo, similarity_cosine(vec, ?) FROM shop.products WHERE category = ? ORDER BY vec ANN OF ? LIMIT ?
	// <nil> 0 <nil>
}

// Ten time buckets listed as one, newest first, with one cursor: each
// bucket is read on its own and merged, since servers refuse to page a
// SELECT with IN and ORDER BY. WithTimes reads each row's write time.
func ExampleRepo_ListMerged() {
	ctx := context.Background()
	rt, _ := kstore.New(printer{}, Shop)
	defer rt.Close(ctx)
	events := kstore.MustNewRepo(rt, Events)
	since := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

	// snippet: merged
	buckets := []*Event{{Bucket: 0}, {Bucket: 1}, {Bucket: 2}}
	it := events.ListMerged(ctx, buckets, kstore.From(eventAt, since, false), kstore.PageSize(20), kstore.WithTimes(eventName))
	for it.Next() {
		fmt.Println(it.Value().Name, it.Times()[0].WriteTime)
	}
	next := it.Cursor() // kstore.After(next) reads the next 20 of all three
	// end snippet
	fmt.Println(it.Err(), next.IsZero())
	// Output:
	// SELECT bucket, at, name, WRITETIME(name), TTL(name) FROM shop.events WHERE bucket = ? AND at > ?
	// SELECT bucket, at, name, WRITETIME(name), TTL(name) FROM shop.events WHERE bucket = ? AND at > ?
	// SELECT bucket, at, name, WRITETIME(name), TTL(name) FROM shop.events WHERE bucket = ? AND at > ?
	// <nil> true
}

// A slice on several clustering columns at once, as a workflow engine
// reads the tasks of a shard from a position: (kind, id) >= (2, 100).
func ExampleFromTuple() {
	ctx := context.Background()
	rt, _ := kstore.New(printer{}, Shop)
	defer rt.Close(ctx)
	shards := kstore.MustNewRepo(rt, ShardRows)

	// snippet: tuple
	it := shards.List(ctx, &ShardRow{Shard: "s1"},
		kstore.FromTuple(true, kstore.At(taskKind, int32(2)), kstore.At(taskID, int64(100))),
		kstore.To(taskKind, 2, true))
	n, err := shards.Count(ctx, &ShardRow{Shard: "s1"}, kstore.FromTuple(true, kstore.At(taskKind, int32(2)), kstore.At(taskID, int64(100))))
	// end snippet
	fmt.Println(it.Err(), n, err)
	// Output:
	// SELECT shard, kind, id, range_id, state, payload FROM shop.shard_rows WHERE shard = ? AND (kind, id) >= (?, ?) AND kind <= ?
	// SELECT COUNT(*) FROM shop.shard_rows WHERE shard = ? AND (kind, id) >= (?, ?)
	// <nil> 0 <nil>
}
