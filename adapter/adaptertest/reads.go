package adaptertest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
)

// Whole-table reads on the node (issue 37): a scan by token ranges, its
// resumption after a stop, counts, projections and truncation.

// shelved is one row of an archive: 10 rows a shelf, a BATCH lookup by
// slug, a blob a listing does not need, and soft delete.
type shelved struct {
	Shelf   int32
	Seq     int32
	Slug    string
	Title   string
	Body    []byte
	Deleted bool
}

// Describe implements kandra's description.
func (a *shelved) Describe(s *kandra.Schema[shelved]) {
	s.Table("shelved", kandra.SoftDelete(time.Hour, &a.Deleted))
	kandra.Bind(s, &a.Shelf, kandra.PartitionKey(0))
	kandra.Bind(s, &a.Seq, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &a.Slug, kandra.Lookup("by_slug", kandra.LookupBatch))
}

var (
	shelvedTable *kandra.Table[shelved]
	shelvedSeq   kandra.Field[shelved, int32]
	shelvedSlug  kandra.Field[shelved, string]
	shelvedTitle kandra.Field[shelved, string]
)

func registerReads() {
	registerSliced()
	registerStocked()
	bucketedTable = kandra.MustRegister[bucketed]()
	bucketedAt = kandra.MustFieldOf(bucketedTable, func(b *bucketed) *time.Time { return &b.At })
	bucketedName = kandra.MustFieldOf(bucketedTable, func(b *bucketed) *string { return &b.Name })
	shelvedTable = kandra.MustRegister[shelved]()
	shelvedSeq = kandra.MustFieldOf(shelvedTable, func(a *shelved) *int32 { return &a.Seq })
	shelvedSlug = kandra.MustFieldOf(shelvedTable, func(a *shelved) *string { return &a.Slug })
	shelvedTitle = kandra.MustFieldOf(shelvedTable, func(a *shelved) *string { return &a.Title })
}

// testWholeTableReads: 3,000 rows on 300 shelves, 50 of them soft-deleted.
// A scan hands on each live row once over the live ring's ranges; a scan
// stopped after 1,000 rows resumes from the position its progress saved
// (through its string) and hands on the rest; counts of a shelf, a range
// of it and the table agree with what was written; projections read the
// key and the columns asked for; Truncate empties the table and its
// lookup table.
func testWholeTableReads(t *testing.T, h *harness) {
	e := h.env(t)
	repo, err := kstore.NewRepo(e.rt, shelvedTable)
	if err != nil {
		t.Fatal(err)
	}
	slugs, err := kstore.LookupOf(repo, shelvedSlug)
	if err != nil {
		t.Fatal(err)
	}
	const shelves, per, deleted = 300, 10, 50
	body := make([]byte, 2048)
	for s := range shelves {
		var rows []*shelved
		for i := range per {
			rows = append(rows, &shelved{Shelf: int32(s), Seq: int32(i), Slug: fmt.Sprintf("s%d-%d", s, i), Title: fmt.Sprintf("title %d/%d", s, i), Body: body})
		}
		if err := repo.SaveAll(ctx, rows); err != nil {
			t.Fatal(err)
		}
	}
	for s := range deleted {
		if err := repo.SoftDelete(ctx, &shelved{Shelf: int32(s), Seq: 3}); err != nil {
			t.Fatal(err)
		}
	}
	const live = shelves*per - deleted

	// The whole table, once each.
	var mu sync.Mutex
	seen := map[[2]int32]int{}
	each := func(a *shelved) error {
		mu.Lock()
		defer mu.Unlock()
		seen[[2]int32{a.Shelf, a.Seq}]++
		if a.Deleted || len(a.Body) != len(body) || a.Title == "" {
			return fmt.Errorf("row %d/%d read as %+v", a.Shelf, a.Seq, a)
		}
		return nil
	}
	res, err := repo.Scan(ctx, each, kstore.SkipDeleted(), kstore.Concurrency(4), kstore.PageSize(100))
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != live || len(seen) != live || res.Ring != "vnodes" || res.Ranges < 16 || !res.Position.Done() {
		t.Fatalf("scan: %+v, %d rows seen", res, len(seen))
	}
	whole := res
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("row %v handed on %d times", k, n)
		}
	}

	// Stopped after 1,000 rows, resumed from the saved position.
	clear(seen)
	stop := errors.New("stop")
	var saved string
	var last kstore.ScanProgress
	handed := 0
	_, err = repo.Scan(ctx, func(a *shelved) error {
		mu.Lock()
		if handed == 1000 {
			mu.Unlock()
			return stop
		}
		handed++
		mu.Unlock()
		return each(a)
	}, kstore.SkipDeleted(), kstore.Concurrency(3), kstore.PageSize(50), kstore.OnProgress(func(p kstore.ScanProgress) {
		last, saved = p, p.Position.String()
	}))
	if !errors.Is(err, stop) || saved == "" || last.RangesDone >= last.Ranges {
		t.Fatalf("stopped scan: %v, last progress %v", err, last)
	}
	pos, err := kstore.ParseScanPosition(saved)
	if err != nil {
		t.Fatal(err)
	}
	resumed, err := repo.Scan(ctx, each, kstore.ResumeFrom(pos), kstore.SkipDeleted(), kstore.Concurrency(3), kstore.PageSize(50))
	if err != nil || !resumed.Resumed || !resumed.Position.Done() {
		t.Fatalf("resumed scan: %+v, %v", resumed, err)
	}
	again := 0
	for s := range shelves {
		for i := range per {
			n := seen[[2]int32{int32(s), int32(i)}]
			switch {
			case s < deleted && i == 3:
				if n != 0 {
					t.Fatalf("deleted row %d/%d handed on", s, i)
				}
			case n == 0:
				t.Fatalf("row %d/%d skipped by the resumed scan", s, i)
			case n == 2:
				again++
			case n > 2:
				t.Fatalf("row %d/%d handed on %d times", s, i, n)
			}
		}
	}
	if again > 3*50 {
		t.Fatalf("%d rows handed on twice: more than the pages in flight", again)
	}

	// Counts.
	counts := map[string][2]int64{}
	count := func(name string, want int64, n int64, err error) {
		t.Helper()
		if err != nil || n != want {
			t.Fatalf("%s = %d, %v; want %d", name, n, err, want)
		}
		counts[name] = [2]int64{n, want}
	}
	n, err := repo.Count(ctx, &shelved{Shelf: 7})
	count("Count(shelf 7)", per, n, err)
	n, err = repo.Count(ctx, &shelved{Shelf: 7}, kstore.From(shelvedSeq, 2, true), kstore.To(shelvedSeq, 6, false))
	count("Count(shelf 7, 2 <= seq < 6)", 4, n, err)
	n, err = repo.Count(ctx, &shelved{Shelf: 7}, kstore.SkipDeleted())
	count("Count(shelf 7, SkipDeleted)", per-1, n, err)
	n, err = repo.Count(ctx, &shelved{Shelf: shelves + 1})
	count("Count(empty shelf)", 0, n, err)
	n, err = repo.CountAll(ctx)
	count("CountAll", shelves*per, n, err)
	n, err = repo.CountAll(ctx, kstore.SkipDeleted(), kstore.Concurrency(2))
	count("CountAll(SkipDeleted)", live, n, err)

	// Projections: the key and the columns asked for, the blob not read.
	got, err := repo.Get(ctx, &shelved{Shelf: 9, Seq: 4}, kstore.Columns(shelvedTitle))
	if err != nil || got.Title != "title 9/4" || got.Slug != "" || got.Body != nil || got.Shelf != 9 || got.Seq != 4 {
		t.Fatalf("Get with Columns: %+v, %v", got, err)
	}
	page, err := repo.List(ctx, &shelved{Shelf: 200}, kstore.Columns(shelvedSlug), kstore.PageSize(4)).All()
	if err != nil || len(page) != 4 || page[3].Slug != "s200-3" || page[3].Body != nil || page[3].Title != "" {
		t.Fatalf("List with Columns: %d rows, %v", len(page), err)
	}
	found, err := slugs.Find(ctx, "s9-5", kstore.Columns(shelvedTitle))
	if err != nil || found.Title != "title 9/5" || found.Body != nil || found.Seq != 5 {
		t.Fatalf("Find with Columns: %+v, %v", found, err)
	}
	var projected, withBody int
	for a, err := range repo.ScanAll(ctx, kstore.Columns(shelvedSlug), kstore.SkipDeleted()) {
		if err != nil {
			t.Fatal(err)
		}
		projected++
		if a.Body != nil || a.Title != "" {
			withBody++
		}
	}
	if projected != live || withBody != 0 {
		t.Fatalf("ScanAll with Columns: %d rows, %d with unasked columns", projected, withBody)
	}
	if _, err := repo.Get(ctx, &shelved{Shelf: 9, Seq: 4}, kstore.Columns(userEmail)); !errors.Is(err, kerrors.ErrArgument) {
		t.Fatalf("Columns of another table: %v", err)
	}

	// Truncate: the table and its lookup table.
	if err := repo.Truncate(ctx); err != nil {
		t.Fatal(err)
	}
	n, err = repo.CountAll(ctx)
	count("CountAll after Truncate", 0, n, err)
	if _, err := slugs.Find(ctx, "s9-5"); !errors.Is(err, kerrors.ErrNotFound) {
		t.Fatalf("Find after Truncate: %v", err)
	}
	if n := h.rows(t, "shelved_by_slug", "slug = ?", "s9-5"); n != 0 {
		t.Fatalf("%d lookup rows after Truncate", n)
	}
	fmt.Printf("real-server: scan adapter=%s rows=%d ranges=%d ring=%s resumed=%t handed-twice=%d ok=true\n", h.n.Name, whole.Rows, whole.Ranges, whole.Ring, resumed.Resumed, again)
	fmt.Printf("real-server: counts adapter=%s checked=%d ok=true\n", h.n.Name, len(counts))
}

// bucketed is an event in one of ten time buckets, newest first.
type bucketed struct {
	Bucket int32
	At     time.Time
	Seq    int32
	Name   string
}

// Describe implements kandra's description.
func (b *bucketed) Describe(s *kandra.Schema[bucketed]) {
	s.Table("bucketed")
	kandra.Bind(s, &b.Bucket, kandra.PartitionKey(0))
	kandra.Bind(s, &b.At, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.Bind(s, &b.Seq, kandra.ClusteringKey(1, kandra.ClusteringAsc))
}

var (
	bucketedTable *kandra.Table[bucketed]
	bucketedAt    kandra.Field[bucketed, time.Time]
	bucketedName  kandra.Field[bucketed, string]
)

// testMergedBuckets: 600 events over ten buckets, listed as one
// listing newest first (and oldest first), 25 a page, through the
// cursors' strings: the pages together are every event once, in order;
// bounded by From and To, the same holds.
func testMergedBuckets(t *testing.T, h *harness) {
	e := h.env(t)
	repo, err := kstore.NewRepo(e.rt, bucketedTable)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var all []*bucketed
	for i := range 600 {
		ev := &bucketed{Bucket: int32(i % 10), At: base.Add(time.Duration(i*7%600) * time.Second), Seq: int32(i), Name: fmt.Sprint("ev", i)}
		if err := repo.Save(ctx, ev); err != nil {
			t.Fatal(err)
		}
		all = append(all, ev)
	}
	var buckets []*bucketed
	for b := range int32(10) {
		buckets = append(buckets, &bucketed{Bucket: b})
	}
	newestFirst := func(a, b *bucketed) int {
		if c := b.At.Compare(a.At); c != 0 {
			return c
		}
		return int(a.Seq - b.Seq)
	}
	list := func(opts ...kstore.ListOption) []*bucketed {
		t.Helper()
		var out []*bucketed
		var after []kstore.ListOption
		for pages := 0; ; pages++ {
			it := repo.ListMerged(ctx, buckets, append(append([]kstore.ListOption{kstore.PageSize(25)}, opts...), after...)...)
			page, err := it.All()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, page...)
			if it.Cursor().IsZero() {
				return out
			}
			if len(page) != 25 || pages > 30 {
				t.Fatalf("page %d: %d rows with a cursor", pages, len(page))
			}
			c, err := kstore.ParseCursor(it.Cursor().String())
			if err != nil {
				t.Fatal(err)
			}
			after = []kstore.ListOption{kstore.After(c)}
		}
	}
	same := func(what string, got, want []*bucketed) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
		}
		for i := range want {
			if got[i].Seq != want[i].Seq || !got[i].At.Equal(want[i].At) || got[i].Name != want[i].Name {
				t.Fatalf("%s: row %d is %+v, want %+v", what, i, got[i], want[i])
			}
		}
	}
	want := slices.SortedFunc(slices.Values(all), newestFirst)
	same("newest first", list(), want)
	oldest := slices.Clone(want)
	slices.Reverse(oldest)
	same("oldest first", list(kstore.Reversed()), oldest)

	from, to := base.Add(100*time.Second), base.Add(200*time.Second)
	var window []*bucketed
	for _, ev := range want {
		if !ev.At.Before(from) && ev.At.Before(to) {
			window = append(window, ev)
		}
	}
	same("a window", list(kstore.From(bucketedAt, from, true), kstore.To(bucketedAt, to, false)), window)

	fmt.Printf("real-server: merged adapter=%s partitions=10 rows=%d pages=%d ok=true\n", h.n.Name, len(want), (len(want)+24)/25)
}

// testWriteTimesAndTTLs: the write time and TTL of a cell, typed, read
// by GetTimes, List and ListMerged with WithTimes: a row written at a
// given timestamp with a TTL reads back that timestamp and what is left
// of the TTL, the same the server's own WRITETIME and TTL select; a row
// without a TTL reads 0; a key column is refused before sending.
func testWriteTimesAndTTLs(t *testing.T, h *harness) {
	e := h.env(t)
	repo, err := kstore.NewRepo(e.rt, bucketedTable)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 2, 3, 4, 5, 0, time.UTC)
	stamp := time.Now().Add(-time.Hour).Truncate(time.Microsecond).UTC()
	timed := &bucketed{Bucket: 100, At: at, Seq: 1, Name: "timed"}
	if err := repo.Save(ctx, timed, kstore.TTL(time.Hour), kstore.Timestamp(stamp)); err != nil {
		t.Fatal(err)
	}
	plain := &bucketed{Bucket: 100, At: at, Seq: 2, Name: "plain"}
	before := time.Now().Truncate(time.Microsecond)
	if err := repo.Save(ctx, plain); err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	got, times, err := repo.GetTimes(ctx, timed, []kstore.Column{bucketedName})
	if err != nil || got.Name != "timed" || len(times) != 1 || !times[0].WriteTime.Equal(stamp) || times[0].TTL <= 59*time.Minute || times[0].TTL > time.Hour {
		t.Fatalf("GetTimes of the timed row: %+v %+v, %v (written at %s with a TTL of 1h)", got, times, err, stamp)
	}
	var wt int64
	var ttl int
	if err := h.n.Scan(ctx, "SELECT WRITETIME(name), TTL(name) FROM "+h.ks+".bucketed WHERE bucket = ? AND at = ? AND seq = ?", []any{100, at, 1}, &wt, &ttl); err != nil {
		t.Fatal(err)
	}
	if wt != stamp.UnixMicro() || ttl <= 3540 || ttl > 3600 {
		t.Fatalf("the server's WRITETIME and TTL: %d, %d", wt, ttl)
	}
	it := repo.List(ctx, &bucketed{Bucket: 100}, kstore.WithTimes(bucketedName))
	var seen int
	for it.Next() {
		ct := it.Times()[0]
		switch it.Value().Seq {
		case 1:
			if !ct.WriteTime.Equal(stamp) || ct.TTL <= 59*time.Minute {
				t.Fatalf("List's times of the timed row: %+v", ct)
			}
		case 2:
			if ct.WriteTime.Before(before) || ct.WriteTime.After(after) || ct.TTL != 0 || !ct.IsSet() {
				t.Fatalf("List's times of the plain row: %+v (written between %s and %s, no TTL)", ct, before, after)
			}
		}
		seen++
	}
	if it.Err() != nil || seen != 2 {
		t.Fatalf("List with times: %d rows, %v", seen, it.Err())
	}
	merged := repo.ListMerged(ctx, []*bucketed{{Bucket: 100}, {Bucket: 101}}, kstore.WithTimes(bucketedName))
	if rows, err := merged.All(); err != nil || len(rows) != 2 || !merged.Next() || !merged.Times()[0].WriteTime.Equal(stamp) {
		t.Fatalf("ListMerged with times: %v, %v", rows, err)
	}
	if _, _, err := repo.GetTimes(ctx, timed, []kstore.Column{bucketedAt}); !errors.Is(err, kerrors.ErrArgument) {
		t.Fatalf("the times of a key column: %v", err)
	}
	fmt.Printf("real-server: write-times adapter=%s ttl-left=%s same-as-server=true ok=true\n", h.n.Name, times[0].TTL)
}

// stocked is an item of a shop's catalogue: SAI indexes on its category,
// price and tags, and an ANN index on its embedding.
type stocked struct {
	Shop     string
	ID       int32
	Category string
	Price    int64
	Tags     []string
	Vec      [3]float32
}

// Describe implements kandra's description.
func (s *stocked) Describe(sc *kandra.Schema[stocked]) {
	sc.Table("stocked")
	kandra.Bind(sc, &s.Shop, kandra.PartitionKey(0))
	kandra.Bind(sc, &s.ID, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(sc, &s.Category, kandra.SecondaryIndex(kandra.UsingSAI()))
	kandra.Bind(sc, &s.Price, kandra.SecondaryIndex(kandra.UsingSAI()))
	kandra.Bind(sc, &s.Tags, kandra.SecondaryIndex(kandra.UsingSAI()))
	kandra.Bind(sc, &s.Vec, kandra.VectorIndex(kandra.SimilarityCosine))
}

var (
	stockedTable    *kandra.Table[stocked]
	stockedCategory kandra.Field[stocked, string]
	stockedPrice    kandra.Field[stocked, int64]
	stockedTags     kandra.Field[stocked, []string]
	stockedVec      kandra.Field[stocked, [3]float32]
)

func registerStocked() {
	stockedTable = kandra.MustRegister[stocked]()
	stockedCategory = kandra.MustFieldOf(stockedTable, func(s *stocked) *string { return &s.Category })
	stockedPrice = kandra.MustFieldOf(stockedTable, func(s *stocked) *int64 { return &s.Price })
	stockedTags = kandra.MustFieldOf(stockedTable, func(s *stocked) *[]string { return &s.Tags })
	stockedVec = kandra.MustFieldOf(stockedTable, func(s *stocked) *[3]float32 { return &s.Vec })
}

// testPredicatesAndFilteredNearest: 90 items of three shops. Several SAI
// predicates at once (a category, a tag, a price range), paged through
// their cursors, read exactly the items that hold them all, and count
// them; within a shop, only its items; ANN restricted by a predicate or
// to a shop ranks only those, nearest first, each with the cosine
// similarity the server computes; what servers would need ALLOW
// FILTERING for is refused before sending.
func testPredicatesAndFilteredNearest(t *testing.T, h *harness) {
	e := h.env(t)
	repo, err := kstore.NewRepo(e.rt, stockedTable)
	if err != nil {
		t.Fatal(err)
	}
	cats := []string{"books", "music", "games"}
	var all []*stocked
	for i := range int32(90) {
		it := &stocked{Shop: fmt.Sprint("shop", i%3), ID: i, Category: cats[(i/3)%3], Price: int64(i) * 10,
			Vec: [3]float32{float32(i%7) + 1, float32(i % 5), float32(i%3) - 1}}
		if i%4 == 0 {
			it.Tags = []string{"sale", "new"}
		} else if i%4 == 1 {
			it.Tags = []string{"new"}
		}
		if err := repo.Save(ctx, it); err != nil {
			t.Fatal(err)
		}
		all = append(all, it)
	}
	ids := func(rows []*stocked) []int32 {
		var out []int32
		for _, r := range rows {
			out = append(out, r.ID)
		}
		slices.Sort(out)
		return out
	}
	match := func(keep func(*stocked) bool) []int32 {
		var out []*stocked
		for _, it := range all {
			if keep(it) {
				out = append(out, it)
			}
		}
		return ids(out)
	}
	listAll := func(q *kstore.Query[stocked]) []*stocked {
		t.Helper()
		var out []*stocked
		var after []kstore.ListOption
		for range 100 {
			it := q.List(ctx, append([]kstore.ListOption{kstore.PageSize(4)}, after...)...)
			page, err := it.All()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, page...)
			if it.Cursor().IsZero() {
				return out
			}
			after = []kstore.ListOption{kstore.After(it.Cursor())}
		}
		t.Fatal("no end of pages")
		return nil
	}
	checked := 0
	check := func(what string, q *kstore.Query[stocked], keep func(*stocked) bool) {
		t.Helper()
		got, want := ids(listAll(q)), match(keep)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Fatalf("%s: %v, want %v", what, got, want)
		}
		n, err := q.Count(ctx)
		if err != nil || int(n) != len(want) {
			t.Fatalf("%s: Count = %d, %v; want %d", what, n, err, len(want))
		}
		checked++
	}
	hasTag := func(s *stocked, tag string) bool { return slices.Contains(s.Tags, tag) }
	check("books on sale", repo.Where(kstore.Eq(stockedCategory, "books"), kstore.ListHas(stockedTags, "sale")),
		func(s *stocked) bool { return s.Category == "books" && hasTag(s, "sale") })
	check("music from 200 to under 600", repo.Where(kstore.Eq(stockedCategory, "music"), kstore.Ge(stockedPrice, 200), kstore.Lt(stockedPrice, 600)),
		func(s *stocked) bool { return s.Category == "music" && s.Price >= 200 && s.Price < 600 })
	check("new games over 100", repo.Where(kstore.ListHas(stockedTags, "new"), kstore.Eq(stockedCategory, "games"), kstore.Gt(stockedPrice, 100)),
		func(s *stocked) bool { return s.Category == "games" && hasTag(s, "new") && s.Price > 100 })
	check("shop1's books", repo.Where(kstore.Eq(stockedCategory, "books")).Within(&stocked{Shop: "shop1"}),
		func(s *stocked) bool { return s.Category == "books" && s.Shop == "shop1" })

	// ANN with a predicate, and within a shop, with the server's scores.
	q := [3]float32{1, 0, 0}
	cosine := func(v [3]float32) float64 {
		dot, n := float64(v[0]), math.Sqrt(float64(v[0]*v[0]+v[1]*v[1]+v[2]*v[2]))
		return (1 + dot/n) / 2 // Cassandra's similarity_cosine maps [-1, 1] to [0, 1]
	}
	for name, c := range map[string]struct {
		q    *kstore.Query[stocked]
		keep func(*stocked) bool
	}{
		"games, nearest": {repo.Where(kstore.Eq(stockedCategory, "games")), func(s *stocked) bool { return s.Category == "games" }},
		"shop2, nearest": {repo.Where().Within(&stocked{Shop: "shop2"}), func(s *stocked) bool { return s.Shop == "shop2" }},
	} {
		it := c.q.Nearest(ctx, kstore.NearTo(stockedVec, q), 5, kstore.WithScores())
		n, last := 0, 2.0
		for it.Next() {
			row, score := it.Value(), float64(it.Score())
			if !c.keep(row) {
				t.Fatalf("%s: item %d does not hold the predicate", name, row.ID)
			}
			if math.Abs(score-cosine(row.Vec)) > 1e-5 || score > last+1e-6 {
				t.Fatalf("%s: item %d scored %f (cosine %f), after %f", name, row.ID, score, cosine(row.Vec), last)
			}
			last = score
			n++
		}
		if it.Err() != nil || n != 5 {
			t.Fatalf("%s: %d rows, %v", name, n, it.Err())
		}
		checked++
	}
	for name, err := range map[string]error{
		"two equalities of one field": repo.Where(kstore.Eq(stockedCategory, "books"), kstore.Eq(stockedCategory, "music")).List(ctx).Err(),
		"Ne":                          repo.Where(kstore.Ne(stockedCategory, "books")).List(ctx).Err(),
		"no predicate":                repo.Where().List(ctx).Err(),
		"a vector as a predicate":     repo.Where(kstore.Eq(stockedVec, q)).List(ctx).Err(),
	} {
		if !errors.Is(err, kerrors.ErrArgument) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	fmt.Printf("real-server: predicates adapter=%s queries=%d same-rows=%d ann-filtered=2 ok=true\n", h.n.Name, checked, checked)
}

// sliced has three clustering columns, the second descending.
type sliced struct {
	P       int32
	A, B, C int32
	V       string
}

// Describe implements kandra's description.
func (s *sliced) Describe(sc *kandra.Schema[sliced]) {
	sc.Table("sliced")
	kandra.Bind(sc, &s.P, kandra.PartitionKey(0))
	kandra.Bind(sc, &s.A, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(sc, &s.B, kandra.ClusteringKey(1, kandra.ClusteringDesc))
	kandra.Bind(sc, &s.C, kandra.ClusteringKey(2, kandra.ClusteringAsc))
}

var (
	slicedTable      *kandra.Table[sliced]
	slicedA, slicedB kandra.Field[sliced, int32]
	slicedC          kandra.Field[sliced, int32]
)

func registerSliced() {
	slicedTable = kandra.MustRegister[sliced]()
	slicedA = kandra.MustFieldOf(slicedTable, func(s *sliced) *int32 { return &s.A })
	slicedB = kandra.MustFieldOf(slicedTable, func(s *sliced) *int32 { return &s.B })
	slicedC = kandra.MustFieldOf(slicedTable, func(s *sliced) *int32 { return &s.C })
}

// testTupleSlices: a partition of 4×4×4 rows listed by multi-column
// slices ((a, b, c) >= (x, y, z), with an upper tuple of another length,
// after an Equal prefix, mixed with a single-column bound, reversed),
// page by page through cursors, and counted: each the rows a comparison
// of value tuples keeps, in the table's clustering order (b descending),
// as servers slice them.
func testTupleSlices(t *testing.T, h *harness) {
	e := h.env(t)
	repo, err := kstore.NewRepo(e.rt, slicedTable)
	if err != nil {
		t.Fatal(err)
	}
	var rows []*sliced
	for a := range int32(4) {
		for b := range int32(4) {
			for c := range int32(4) {
				r := &sliced{P: 1, A: a, B: b, C: c, V: fmt.Sprint(a, b, c)}
				if err := repo.Save(ctx, r); err != nil {
					t.Fatal(err)
				}
				rows = append(rows, r)
			}
		}
	}
	// The table's order: a ascending, b descending, c ascending.
	slices.SortFunc(rows, func(x, y *sliced) int {
		if x.A != y.A {
			return int(x.A - y.A)
		}
		if x.B != y.B {
			return int(y.B - x.B)
		}
		return int(x.C - y.C)
	})
	cmp := func(r *sliced, tuple ...int32) int { // r's (a, b, c) prefix against tuple, by value
		for i, v := range tuple {
			if got := [3]int32{r.A, r.B, r.C}[i]; got != v {
				return int(got - v)
			}
		}
		return 0
	}
	cases := []struct {
		name     string
		opts     []kstore.ListOption
		keep     func(*sliced) bool
		reversed bool
	}{
		{"(a, b, c) >= (1, 1, 1)", []kstore.ListOption{kstore.FromTuple(true, kstore.At(slicedA, int32(1)), kstore.At(slicedB, int32(1)), kstore.At(slicedC, int32(1)))},
			func(r *sliced) bool { return cmp(r, 1, 1, 1) >= 0 }, false},
		// The bound of the case above on one column: a count of it once
		// got the tuple's statement, cached under the same bounds' kinds.
		{"a >= 1", []kstore.ListOption{kstore.From(slicedA, 1, true)},
			func(r *sliced) bool { return r.A >= 1 }, false},
		{"(a, b, c) > (1, 1, 1) and (a, b) < (2, 2)", []kstore.ListOption{kstore.FromTuple(false, kstore.At(slicedA, int32(1)), kstore.At(slicedB, int32(1)), kstore.At(slicedC, int32(1))), kstore.ToTuple(false, kstore.At(slicedA, int32(2)), kstore.At(slicedB, int32(2)))},
			func(r *sliced) bool { return cmp(r, 1, 1, 1) > 0 && cmp(r, 2, 2) < 0 }, false},
		{"(a, b) >= (1, 2) and a <= 2", []kstore.ListOption{kstore.FromTuple(true, kstore.At(slicedA, int32(1)), kstore.At(slicedB, int32(2))), kstore.To(slicedA, 2, true)},
			func(r *sliced) bool { return cmp(r, 1, 2) >= 0 && r.A <= 2 }, false},
		{"a = 2 and (b, c) >= (1, 3), reversed", []kstore.ListOption{kstore.Equal(slicedA, 2), kstore.FromTuple(true, kstore.At(slicedB, int32(1)), kstore.At(slicedC, int32(3))), kstore.Reversed()},
			func(r *sliced) bool { return r.A == 2 && cmp(&sliced{A: r.B, B: r.C}, 1, 3) >= 0 }, true},
	}
	for _, c := range cases {
		var want []*sliced
		for _, r := range rows {
			if c.keep(r) {
				want = append(want, r)
			}
		}
		if c.reversed {
			slices.Reverse(want)
		}
		var got []*sliced
		var after []kstore.ListOption
		for range 100 {
			it := repo.List(ctx, &sliced{P: 1}, append(append([]kstore.ListOption{kstore.PageSize(5)}, c.opts...), after...)...)
			page, err := it.All()
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			got = append(got, page...)
			if it.Cursor().IsZero() {
				break
			}
			after = []kstore.ListOption{kstore.After(it.Cursor())}
		}
		if len(want) == 0 || len(got) != len(want) {
			t.Fatalf("%s: %d rows, want %d", c.name, len(got), len(want))
		}
		for i := range want {
			if *got[i] != *want[i] {
				t.Fatalf("%s: row %d is %+v, want %+v", c.name, i, got[i], want[i])
			}
		}
		n, err := repo.Count(ctx, &sliced{P: 1}, c.opts[:len(c.opts)-boolInt(c.reversed)]...)
		if err != nil || int(n) != len(want) {
			t.Fatalf("%s: Count = %d, %v; want %d", c.name, n, err, len(want))
		}
	}
	for name, err := range map[string]error{
		"(b, c) without a":    repo.List(ctx, &sliced{P: 1}, kstore.FromTuple(true, kstore.At(slicedB, int32(1)), kstore.At(slicedC, int32(1)))).Err(),
		"(a, c)":              repo.List(ctx, &sliced{P: 1}, kstore.FromTuple(true, kstore.At(slicedA, int32(1)), kstore.At(slicedC, int32(1)))).Err(),
		"an empty tuple":      repo.List(ctx, &sliced{P: 1}, kstore.ToTuple[sliced](true)).Err(),
		"a tuple DeleteRange": repo.DeleteRange(ctx, &sliced{P: 1}, kstore.FromTuple(true, kstore.At(slicedA, int32(1)), kstore.At(slicedB, int32(1)))),
	} {
		if !errors.Is(err, kerrors.ErrArgument) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	fmt.Printf("real-server: tuple-slices adapter=%s slices=%d same-rows=%d ok=true\n", h.n.Name, len(cases), len(cases))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
