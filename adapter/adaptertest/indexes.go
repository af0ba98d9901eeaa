package adaptertest

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
)

// listing has an index of every kind and target kandra renders: SAI with
// text analysis, SAI ranges on a number and a timestamp, the default index
// on a list's and a set's values, a legacy index on a map's keys, entries
// and values, and a legacy index on a blob (which SAI refuses).
type listing struct {
	Region    string
	ListingID int64
	Title     string
	Price     int64
	ListedAt  time.Time
	Tags      tagList
	Labels    map[string]struct{}
	Attrs     map[string]string
	Specs     map[string]int32
	Scores    map[string]int32
	Photo     []byte
}

// Describe implements kandra's description.
func (l *listing) Describe(s *kandra.Schema[listing]) {
	s.Table("listings")
	kandra.Bind(s, &l.Region, kandra.PartitionKey(0))
	kandra.Bind(s, &l.ListingID, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &l.Title, kandra.SecondaryIndex(kandra.UsingSAI(), kandra.SAICaseInsensitive(), kandra.SAINormalize(), kandra.SAIASCII()))
	kandra.Bind(s, &l.Price, kandra.SecondaryIndex(kandra.UsingSAI()))
	kandra.Bind(s, &l.ListedAt, kandra.SecondaryIndex(kandra.UsingSAI()))
	kandra.Bind(s, &l.Tags, kandra.SecondaryIndex(kandra.UsingSAI()))
	kandra.Bind(s, &l.Labels, kandra.SecondaryIndex())
	kandra.Bind(s, &l.Attrs, kandra.SecondaryIndex(kandra.UsingLegacy(), kandra.IndexKeys()))
	kandra.Bind(s, &l.Specs, kandra.SecondaryIndex(kandra.UsingSAI(), kandra.IndexEntries()))
	kandra.Bind(s, &l.Scores, kandra.SecondaryIndex(kandra.UsingLegacy(), kandra.IndexValues()))
	kandra.Bind(s, &l.Photo, kandra.SecondaryIndex(kandra.UsingLegacy()))
}

// tagList is a named list type: the index reads take it as they take
// []string.
type tagList []string

var (
	listingsTable  *kandra.Table[listing]
	listingTitle   kandra.Field[listing, string]
	listingPrice   kandra.Field[listing, int64]
	listingListed  kandra.Field[listing, time.Time]
	listingTags    kandra.Field[listing, tagList]
	listingLabels  kandra.Field[listing, map[string]struct{}]
	listingAttrs   kandra.Field[listing, map[string]string]
	listingSpecs   kandra.Field[listing, map[string]int32]
	listingScores  kandra.Field[listing, map[string]int32]
	listingPhoto   kandra.Field[listing, []byte]
	listingsRegion kandra.Field[listing, string]
)

// testIndexKinds reads through every index of listing on the node, each
// read returning exactly the rows that match, and refuses before sending
// the reads servers would need ALLOW FILTERING for. It prints
// "real-server: sai kinds=<n> ok=<n> adapter=<Name>".
func testIndexKinds(t *testing.T, h *harness) {
	kinds, passed := 0, 0
	defer func() {
		fmt.Printf("real-server: sai kinds=%d ok=%d adapter=%s\n", kinds, passed, h.n.Name)
	}()
	e := h.env(t)
	listings := kstore.MustNewRepo(e.rt, listingsTable)
	// One region per run keeps the rows of earlier runs out: every read
	// below filters its result to the region.
	region := uniq("r")
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	rows := []*listing{
		{ListingID: 1, Title: "Café Crème", Price: 120, ListedAt: base, Tags: tagList{"sofa", "blue"}, Labels: map[string]struct{}{"new": {}},
			Attrs: map[string]string{"color": "blue"}, Specs: map[string]int32{"seats": 3}, Scores: map[string]int32{"q": 7}, Photo: []byte{1, 2}},
		{ListingID: 2, Title: "cafe creme", Price: 80, ListedAt: base.Add(time.Hour), Tags: tagList{"chair"}, Labels: map[string]struct{}{"sale": {}},
			Attrs: map[string]string{"size": "s"}, Specs: map[string]int32{"seats": 1}, Scores: map[string]int32{"q": 9}, Photo: []byte{3}},
		// "Café" with a combining accent: the same text, normalized.
		{ListingID: 3, Title: "Cafe\u0301 Cre\u0300me", Price: 300, ListedAt: base.Add(2 * time.Hour), Tags: tagList{"sofa"},
			Attrs: map[string]string{"color": "red"}, Specs: map[string]int32{"seats": 3}, Scores: map[string]int32{"q": 7}},
		{ListingID: 4, Title: "Lamp", Price: 15, ListedAt: base.Add(3 * time.Hour)},
	}
	for _, l := range rows {
		l.Region = region
		if err := listings.Save(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(it *kstore.Iter[listing]) ([]int64, error) {
		got, err := it.All()
		var out []int64
		for _, l := range got {
			if l.Region == region {
				out = append(out, l.ListingID)
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
		return out, err
	}
	read := func(name string, it func() *kstore.Iter[listing], want ...int64) {
		t.Helper()
		kinds++
		got, err := ids(it())
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: rows %v, %v; want %v", name, got, err, want)
			return
		}
		passed++
	}
	title := kstore.MustIndexOf(listings, listingTitle)
	read("SAI equality, case-insensitive, normalized, ASCII-folded", func() *kstore.Iter[listing] { return title.Find(ctx, "CAFE CREME") }, 1, 2, 3)
	price := kstore.MustIndexOf(listings, listingPrice)
	read("SAI range on a bigint", func() *kstore.Iter[listing] {
		return price.Range(ctx, kstore.From(listingPrice, 80, true), kstore.To(listingPrice, 300, false))
	}, 1, 2)
	read("SAI range, lower bound only", func() *kstore.Iter[listing] { return price.Range(ctx, kstore.From(listingPrice, 120, false)) }, 3)
	listed := kstore.MustIndexOf(listings, listingListed)
	read("SAI range on a timestamp", func() *kstore.Iter[listing] {
		return listed.Range(ctx, kstore.From(listingListed, base.Add(time.Hour), true), kstore.To(listingListed, base.Add(3*time.Hour), false))
	}, 2, 3)
	read("SAI equality on a timestamp", func() *kstore.Iter[listing] { return listed.Find(ctx, base) }, 1)
	read("SAI CONTAINS on a list", func() *kstore.Iter[listing] {
		return kstore.Contains(ctx, kstore.MustIndexOf(listings, listingTags), "sofa")
	}, 1, 3)
	read("default-index CONTAINS on a set", func() *kstore.Iter[listing] {
		return kstore.SetContains(ctx, kstore.MustIndexOf(listings, listingLabels), "sale")
	}, 2)
	read("legacy CONTAINS KEY on a map", func() *kstore.Iter[listing] {
		return kstore.ContainsKey(ctx, kstore.MustIndexOf(listings, listingAttrs), "color")
	}, 1, 3)
	read("SAI entry of a map", func() *kstore.Iter[listing] {
		return kstore.HasEntry(ctx, kstore.MustIndexOf(listings, listingSpecs), "seats", 3)
	}, 1, 3)
	read("legacy CONTAINS on a map's values", func() *kstore.Iter[listing] {
		return kstore.ContainsValue(ctx, kstore.MustIndexOf(listings, listingScores), 7)
	}, 1, 3)
	read("legacy equality on a blob", func() *kstore.Iter[listing] {
		return kstore.MustIndexOf(listings, listingPhoto).Find(ctx, []byte{3})
	}, 2)

	kinds++
	refusals := func() error {
		var ae *kerrors.ArgumentError
		for name, it := range map[string]*kstore.Iter[listing]{
			"Range on a text index":           title.Range(ctx, kstore.From(listingTitle, "a", true)),
			"Range on a legacy blob index":    kstore.MustIndexOf(listings, listingPhoto).Range(ctx, kstore.From(listingPhoto, []byte{0}, true)),
			"Range without a bound":           price.Range(ctx),
			"Range bounding another field":    price.Range(ctx, kstore.From(listingsRegion, "a", true)),
			"Find on a values index":          kstore.MustIndexOf(listings, listingTags).Find(ctx, []string{"sofa"}),
			"ContainsValue on a keys index":   kstore.ContainsValue(ctx, kstore.MustIndexOf(listings, listingAttrs), "blue"),
			"ContainsValue on a set":          kstore.ContainsValue(ctx, kstore.MustIndexOf(listings, listingLabels), struct{}{}),
			"HasEntry on a values index":      kstore.HasEntry(ctx, kstore.MustIndexOf(listings, listingScores), "q", 7),
			"Find with a bound":               price.Find(ctx, 80, kstore.From(listingPrice, 1, true)),
			"ContainsKey on an entries index": kstore.ContainsKey(ctx, kstore.MustIndexOf(listings, listingSpecs), "seats"),
		} {
			_, err := it.All()
			if !errors.As(err, &ae) {
				return fmt.Errorf("%s: %v, want an *errors.ArgumentError before sending", name, err)
			}
			if name == "Range on a text index" && !strings.Contains(err.Error(), "ALLOW FILTERING") {
				return fmt.Errorf("%s: %v, want the reason (ALLOW FILTERING)", name, err)
			}
		}
		return nil
	}
	if err := refusals(); err != nil {
		t.Error(err)
	} else {
		passed++
	}
}
