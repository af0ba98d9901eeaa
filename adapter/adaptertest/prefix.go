package adaptertest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
)

// reading is one sensor reading, clustered by day, then newest first.
type reading struct {
	Sensor string
	Day    string
	At     time.Time
	Value  float64
}

// Describe implements kandra's description.
func (r *reading) Describe(s *kandra.Schema[reading]) {
	s.Table("readings")
	kandra.Bind(s, &r.Sensor, kandra.PartitionKey(0))
	kandra.Bind(s, &r.Day, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &r.At, kandra.ClusteringKey(1, kandra.ClusteringDesc))
}

var (
	readingsTable *kandra.Table[reading]
	readingDay    kandra.Field[reading, string]
	readingAt     kandra.Field[reading, time.Time]
)

// testPrefixRanges proves List over a prefix of the clustering key on the
// node: one day (Equal on the first clustering column) newest first, a
// range of times within it on the descending column, Reversed, every
// clustering column fixed, and paging with a cursor; the ranges servers
// refuse without ALLOW FILTERING are refused before sending. It prints
// "real-server: prefix adapter=<Name> ok=<bool>".
func testPrefixRanges(t *testing.T, h *harness) {
	ok := false
	defer func() { fmt.Printf("real-server: prefix adapter=%s ok=%t\n", h.n.Name, ok && !t.Failed()) }()
	rt, err := kstore.New(h.d, h.keyspace)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(ctx) })
	readings := kstore.MustNewRepo(rt, readingsTable)
	sensor := uniq("s")
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var all []*reading
	for _, day := range []string{"2026-12-01", "2026-12-02"} {
		for h := 0; h < 4; h++ {
			all = append(all, &reading{Sensor: sensor, Day: day, At: t0.Add(time.Duration(h) * time.Hour), Value: float64(h)})
		}
	}
	if err := readings.SaveAll(ctx, all); err != nil {
		t.Fatal(err)
	}
	hours := func(rows []*reading) []int {
		out := make([]int, len(rows))
		for i, r := range rows {
			out[i] = r.At.Hour()
		}
		return out
	}
	list := func(want []int, opts ...kstore.ListOption) {
		t.Helper()
		rows, err := readings.List(ctx, &reading{Sensor: sensor}, opts...).All()
		if err != nil || fmt.Sprint(hours(rows)) != fmt.Sprint(want) {
			t.Fatalf("List = hours %v, %v; want %v", hours(rows), err, want)
		}
		for _, r := range rows {
			if r.Day != "2026-12-02" {
				t.Fatalf("List returned a row of day %s", r.Day)
			}
		}
	}
	day := kstore.Equal(readingDay, "2026-12-02")
	list([]int{3, 2, 1, 0}, day)
	list([]int{2, 1}, day, kstore.From(readingAt, t0.Add(time.Hour), true), kstore.To(readingAt, t0.Add(2*time.Hour), true))
	list([]int{1, 2}, day, kstore.From(readingAt, t0.Add(time.Hour), true), kstore.To(readingAt, t0.Add(3*time.Hour), false), kstore.Reversed())
	list([]int{2}, kstore.Equal(readingAt, t0.Add(2*time.Hour)), day) // in any order of the options

	// Pages of one row through the prefix, resumed by cursor.
	var got []int
	var cur kstore.Cursor
	for page := 0; page < 5; page++ {
		opts := []kstore.ListOption{day, kstore.PageSize(1)}
		if !cur.IsZero() {
			opts = append(opts, kstore.After(cur))
		}
		it := readings.List(ctx, &reading{Sensor: sensor}, opts...)
		rows, err := it.All()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, hours(rows)...)
		if cur = it.Cursor(); cur.IsZero() {
			break
		}
	}
	if fmt.Sprint(got) != "[3 2 1 0]" {
		t.Fatalf("paged prefix: %v", got)
	}

	var ae *kerrors.ArgumentError
	for name, opts := range map[string][]kstore.ListOption{
		"a range on the second clustering column without the first fixed": {kstore.From(readingAt, t0, true)},
		"the second clustering column fixed without the first":            {kstore.Equal(readingAt, t0)},
		"a range on the first with the first fixed":                       {day, kstore.To(readingDay, "x", true)},
	} {
		if _, err := readings.List(ctx, &reading{Sensor: sensor}, opts...).All(); !errors.As(err, &ae) {
			t.Fatalf("%s: %v, want an *kerrors.ArgumentError", name, err)
		}
	}
	ok = true
}
