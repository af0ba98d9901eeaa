package kandra_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
)

// Shelf keeps frozen collections outside its key: a list, a set indexed
// whole (a legacy index), a map of lists indexed whole by SAI, a static
// one, with a non-frozen list beside them, and a lookup on a frozen set.
type Shelf struct {
	ID      string
	Slot    int32
	Tags    []string
	Labels  map[string]struct{}
	Sizes   map[string][]int32
	Common  []string
	Plain   []string
	Aliases map[string]struct{}
}

func (s *Shelf) Describe(sc *kandra.Schema[Shelf]) {
	sc.Table("shelves")
	kandra.Bind(sc, &s.ID, kandra.PartitionKey(0))
	kandra.Bind(sc, &s.Slot, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(sc, &s.Tags, kandra.Frozen())
	kandra.Bind(sc, &s.Labels, kandra.Frozen(), kandra.SecondaryIndex(kandra.UsingLegacy()))
	kandra.Bind(sc, &s.Sizes, kandra.Frozen(), kandra.SecondaryIndex(kandra.UsingSAI(), kandra.IndexFull()))
	kandra.Bind(sc, &s.Common, kandra.Frozen(), kandra.Static())
	kandra.Bind(sc, &s.Aliases, kandra.Frozen(), kandra.Lookup("by_aliases", kandra.LookupBatch))
}

const goldenShelves = `CREATE TABLE IF NOT EXISTS shop.shelves (
    id TEXT,
    slot INT,
    tags FROZEN<LIST<TEXT>>,
    labels FROZEN<SET<TEXT>>,
    sizes FROZEN<MAP<TEXT, FROZEN<LIST<INT>>>>,
    common FROZEN<LIST<TEXT>> STATIC,
    plain LIST<TEXT>,
    aliases FROZEN<SET<TEXT>>,
    PRIMARY KEY (id, slot)
)
WITH CLUSTERING ORDER BY (slot ASC);`

// TestFrozenCollections: Frozen on a collection column declares it
// FROZEN<...> in CREATE TABLE, reports it through IsFrozen and Decl,
// indexes it whole (FULL, with or without IndexFull), and keys its lookup
// table by it as any lookup's.
func TestFrozenCollections(t *testing.T) {
	tab, err := kandra.Register[Shelf]()
	if err != nil {
		t.Fatal(err)
	}
	ts := tab.Schema()
	for name, decl := range map[string]string{"tags": "FROZEN<LIST<TEXT>>", "labels": "FROZEN<SET<TEXT>>", "sizes": "FROZEN<MAP<TEXT, FROZEN<LIST<INT>>>>", "common": "FROZEN<LIST<TEXT>>", "aliases": "FROZEN<SET<TEXT>>"} {
		c := ts.ColumnByName(name)
		if !c.IsFrozen() || c.Decl() != decl || c.Type().String() != strings.TrimSuffix(strings.TrimPrefix(decl, "FROZEN<"), ">") {
			t.Errorf("%s: IsFrozen %v, Decl %q, Type %s; want frozen %s", name, c.IsFrozen(), c.Decl(), c.Type(), decl)
		}
	}
	if c := ts.ColumnByName("plain"); c.IsFrozen() || c.Decl() != "LIST<TEXT>" {
		t.Errorf("plain: IsFrozen %v, Decl %q", c.IsFrozen(), c.Decl())
	}
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "shop", Replication: kandra.SimpleStrategy(1), Targets: kandra.Cassandra5}, tab)
	if got := noErr(ks.CreateTable(tab)); got != goldenShelves {
		t.Errorf("CREATE TABLE:\n%s\nwant:\n%s", got, goldenShelves)
	}
	for col, want := range map[string]string{
		"labels": "CREATE INDEX IF NOT EXISTS shelves_labels_idx ON shop.shelves (FULL(labels)) USING 'legacy_local_table';",
		"sizes":  "CREATE INDEX IF NOT EXISTS shelves_sizes_idx ON shop.shelves (FULL(sizes)) USING 'sai';",
	} {
		if got := noErr(ks.CreateIndex(tab, ts.ColumnByName(col))); got != want {
			t.Errorf("CreateIndex(%s) = %s, want %s", col, got, want)
		}
		if spec, _ := ts.ColumnByName(col).Index(); spec.Target != kandra.IndexTargetFull {
			t.Errorf("%s: index target %s, want full", col, spec.Target)
		}
	}
	lt := ts.LookupTables()[0]
	if got, want := noErr(ks.CreateLookupTable(lt)), "    aliases FROZEN<SET<TEXT>>,\n"; !strings.Contains(got, want) {
		t.Errorf("the lookup table on a frozen set:\n%s\nlacks %q", got, want)
	}
}

// TestFrozenCollectionStored: an empty frozen collection is a value, not
// null, as the server stores it; nil is null. In a non-frozen column both
// are null (no cell).
func TestFrozenCollectionStored(t *testing.T) {
	ts := kandra.MustRegister[Shelf]().Schema()
	tags, plain := ts.ColumnByName("tags"), ts.ColumnByName("plain")
	empty, null := []string{}, []string(nil)
	if tags.SameStored(&empty, &null) {
		t.Error("a frozen list: an empty list and nil are stored alike")
	}
	if !plain.SameStored(&empty, &null) {
		t.Error("a list that is not frozen: an empty list and nil are stored apart")
	}
	for _, c := range []struct {
		col  *kandra.ColumnSchema
		v    []string
		want []byte
	}{
		{tags, empty, []byte{0, 0, 0, 4, 0, 0, 0, 0}},
		{tags, null, []byte{0xff, 0xff, 0xff, 0xff}},
		{plain, empty, []byte{0xff, 0xff, 0xff, 0xff}},
	} {
		if got, err := c.col.AppendStored(nil, &c.v); err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("%s: AppendStored(%#v) = %x, %v; want %x", c.col.Name(), c.v, got, err, c.want)
		}
	}
	labels := ts.ColumnByName("labels")
	es, ns := map[string]struct{}{}, map[string]struct{}(nil)
	if labels.SameStored(&es, &ns) || labels.SentAsNull(&es) {
		t.Error("a frozen set: an empty set is stored as nil is, or sent as null")
	}
}

// TestFrozenCollectionRefused: a frozen collection's index holds it
// whole; a values index on it is refused, naming the way out.
func TestFrozenCollectionRefused(t *testing.T) {
	_, err := kandra.Register[frozenValues]()
	var se *kandra.SchemaError
	if !errors.As(err, &se) || se.Rule != kandra.RuleSecondaryIndex || se.Field != "Tags" ||
		!strings.Contains(err.Error(), `column "tags" (LIST<TEXT>) is frozen (kandra.Frozen) and indexed whole`) || !strings.Contains(err.Error(), "use IndexFull") {
		t.Fatalf("IndexValues on a Frozen list: %v", err)
	}
}

type frozenValues struct {
	ID   string
	Tags []string
}

func (f *frozenValues) Describe(s *kandra.Schema[frozenValues]) {
	s.Table("frozen_values")
	kandra.Bind(s, &f.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &f.Tags, kandra.Frozen(), kandra.SecondaryIndex(kandra.IndexValues()))
}
