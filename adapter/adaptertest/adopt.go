package adaptertest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/migrate"
)

// adoptDoc is a model of a table an application created with indexes of
// its own names (idx_docs_tag, docs_by_title): adoptDoc leaves kandra's
// names, adoptDocNamed gives the live ones, adoptDocOther asks for
// another index on title than the one live has.
type adoptDoc struct {
	ID    string
	Tag   string
	Title string
}

func (d *adoptDoc) Describe(s *kandra.Schema[adoptDoc]) {
	s.Table("docs")
	kandra.Bind(s, &d.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &d.Tag, kandra.SecondaryIndex())
	kandra.Bind(s, &d.Title, kandra.SecondaryIndex(kandra.UsingSAI(), kandra.SAICaseInsensitive()))
}

type adoptDocNamed adoptDoc

func (d *adoptDocNamed) Describe(s *kandra.Schema[adoptDocNamed]) {
	s.Table("docs")
	kandra.Bind(s, &d.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &d.Tag, kandra.SecondaryIndex(kandra.IndexNamed("idx_docs_tag")))
	kandra.Bind(s, &d.Title, kandra.SecondaryIndex(kandra.UsingSAI(), kandra.SAICaseInsensitive(), kandra.IndexNamed("docs_by_title")))
}

type adoptDocOther adoptDoc

func (d *adoptDocOther) Describe(s *kandra.Schema[adoptDocOther]) {
	s.Table("docs")
	kandra.Bind(s, &d.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &d.Tag, kandra.SecondaryIndex())
	kandra.Bind(s, &d.Title, kandra.SecondaryIndex(kandra.UsingSAI()))
}

var (
	adoptDocs      *kandra.Table[adoptDoc]
	adoptDocsNamed *kandra.Table[adoptDocNamed]
	adoptDocsOther *kandra.Table[adoptDocOther]
)

// hiddenIndex is a driver whose reads of system_schema.indexes leave out
// one index: the planner then does not see it, as a planner that matched
// indexes by name alone did not, and plans kandra's own beside it.
type hiddenIndex struct {
	adapter.Driver
	name string
}

func (h hiddenIndex) QueryCQL(ctx context.Context, stmt string, values []any, c kandra.Consistency) ([]map[string]any, error) {
	rows, err := h.Driver.QueryCQL(ctx, stmt, values, c)
	if err != nil || !strings.Contains(stmt, "system_schema.indexes") {
		return rows, err
	}
	out := rows[:0:0]
	for _, r := range rows {
		if r["index_name"] != h.name {
			out = append(out, r)
		}
	}
	return out, nil
}

// testMigratorAdopt: a keyspace an application created by hand, with
// indexes of its own names, adopted by models. The same indexes under
// kandra's names plan nothing (a note each), Apply changes nothing and
// Check passes; the live names (IndexNamed) plan nothing without a note;
// another index on an indexed column is an impossible step, where
// creating it would fail ("Cannot create more than one storage-attached
// index on the same column"). Apply reads back each step: with the app's
// index hidden from the planner, the server takes kandra's CREATE INDEX
// IF NOT EXISTS on the same column as a no-op, and Apply says so instead
// of reporting it applied. It prints "real-server: index-adopt
// adapter=<Name> zero-step=<n> refused=<n> no-op-caught=<bool> ok=<bool>".
func testMigratorAdopt(t *testing.T, n Node) {
	ok, zero, refused, caught := false, 0, 0, false
	d, _ := n.Open(t) // skips without a node: then no summary line
	defer func() {
		fmt.Printf("real-server: index-adopt adapter=%s zero-step=%d refused=%d no-op-caught=%t ok=%t\n", n.Name, zero, refused, caught, ok && !t.Failed())
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	keyspace := scratch(t, d, "adopt", n, kandra.Cassandra5|kandra.Cassandra5Latest)
	ks, named, other := keyspace(adoptDocs), keyspace(adoptDocsNamed), keyspace(adoptDocsOther)
	q := ks.Name()
	for _, stmt := range []string{
		"CREATE KEYSPACE " + q + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + q + ".docs (id text PRIMARY KEY, tag text, title text)",
		"CREATE INDEX idx_docs_tag ON " + q + ".docs (tag)",
		"CREATE INDEX docs_by_title ON " + q + ".docs (title) USING 'sai' WITH OPTIONS = {'case_sensitive': 'false'}",
	} {
		if err := execSchema(ctx, d, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	p, err := migrate.PlanFor(ctx, d, ks)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Empty() || len(p.Notes) != 2 || len(p.Extra) != 0 {
		t.Fatalf("the application's indexes under kandra's names: want no steps and two notes:\n%v", p)
	}
	zero++
	if res, err := migrate.Apply(ctx, d, ks, migrate.ApplyOptions{}); err != nil || len(res.Applied) != 0 {
		t.Fatalf("apply: %+v, %v", res, err)
	}
	if err := migrate.Check(ctx, d, ks); err != nil {
		t.Fatal(err)
	}
	if p, err := migrate.PlanFor(ctx, d, named); err != nil || !p.Empty() || len(p.Notes) != 0 {
		t.Fatalf("IndexNamed as live: %v, %v", p, err)
	}
	zero++
	p, err = migrate.PlanFor(ctx, d, other)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range p.Steps {
		if s.Kind == migrate.StepChangeIndex && s.Class == migrate.Impossible && strings.Contains(s.Reason, `has index "docs_by_title"`) {
			refused++
		}
	}
	if refused != 1 || len(p.Steps) != 1 {
		t.Fatalf("another SAI index on title: want one impossible step:\n%v", p)
	}
	if res, err := migrate.Apply(ctx, d, other, migrate.ApplyOptions{}); err == nil || len(res.Applied) != 0 {
		t.Fatalf("apply of another index: %+v, %v", res, err)
	}
	// What a planner that matched by name alone did: it planned
	// docs_tag_idx beside idx_docs_tag, the server took it as a no-op, and
	// the plan never converged.
	blind := hiddenIndex{d, "idx_docs_tag"}
	res, err := migrate.Apply(ctx, blind, ks, migrate.ApplyOptions{})
	if err == nil || !strings.Contains(err.Error(), "step create-index:docs_tag_idx ran and the server accepted it, but the live schema does not show its effect") {
		t.Fatalf("apply through the blind driver: %+v, %v", res, err)
	}
	for _, s := range res.Applied {
		if s.Kind == migrate.StepCreateIndex {
			t.Fatalf("the ignored step is reported applied: %+v", res.Applied)
		}
	}
	caught = true
	ok = zero == 2 && refused == 1
}
