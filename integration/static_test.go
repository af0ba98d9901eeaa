package integration

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/kstore"
)

// TestStaticIndex: an index on a static column (Topic.Title) is a legacy
// index on the default node and a storage-attached one on the latest; on
// both, the runtime's writes (Save and SaveStatic) are found through it,
// by a raw SELECT and by kstore.Index.Find, every row of the matching
// partition once and no row of another. It
// prints "real-server: static index=<kind> ok=<bool>".
func TestStaticIndex(t *testing.T) {
	s := session(t)
	topics := kandra.MustRegister[Topic]()
	k := buildKeyspace(t, "static", topics)
	for i, err := range createKeyspace(t, s, k, 1) {
		if err != nil {
			t.Fatalf("%s: %v", k.Tables()[i].Name(), err)
		}
	}
	ok := false
	kind := "legacy"
	if latestMode() {
		kind = "sai"
	}
	defer func() { summary("static", fmt.Sprintf("real-server: static index=%s ok=%t", kind, ok && !t.Failed())) }()
	rt, err := kstore.New(kgocql.New(s), k)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rt.Close(context.Background()) }()
	repo := kstore.MustNewRepo(rt, topics)
	ctx := context.Background()
	for _, p := range []Topic{{TopicID: "a", Reply: 1, Body: "x"}, {TopicID: "a", Reply: 2, Body: "y"}, {TopicID: "b", Reply: 1, Body: "z", Title: "rust"}} {
		if err := repo.Save(ctx, &p); err != nil {
			t.Fatal(err)
		}
	}
	if err := repo.SaveStatic(ctx, &Topic{TopicID: "a", Title: "go", Pinned: true}); err != nil {
		t.Fatal(err)
	}
	var got []string
	it := s.Query("SELECT topic_id, reply FROM "+qualified(k.Name(), "topics")+" WHERE title = ?", "go").Iter()
	var id string
	var reply int64
	for it.Scan(&id, &reply) {
		got = append(got, fmt.Sprintf("%s/%d", id, reply))
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	if fmt.Sprint(got) != "[a/1 a/2]" {
		t.Fatalf("rows with title go through the %s index on a static column: %v, want [a/1 a/2]", kind, got)
	}
	// The same through the runtime's typed index read.
	title := kandra.MustFieldOf(topics, func(p *Topic) *string { return &p.Title })
	rows, err := kstore.MustIndexOf(repo, title).Find(ctx, "go").All()
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, r := range rows {
		if r.Title != "go" || !r.Pinned {
			t.Fatalf("Index.Find row %+v: want the partition's statics", r)
		}
		got = append(got, fmt.Sprintf("%s/%d", r.TopicID, r.Reply))
	}
	sort.Strings(got)
	if fmt.Sprint(got) != "[a/1 a/2]" {
		t.Fatalf("Index.Find(title go) through the %s index: %v, want [a/1 a/2]", kind, got)
	}
	ok = true
}
