package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
	"github.com/kandra-go/kandra/migrate"
)

// A keyspace an application created by hand with frozen collections
// outside the key, and Jaeger's user-defined types: collection fields
// declared without FROZEN (log.fields, process.tags), the types used only
// frozen. frozenShelf is what migrate.Import generates for it.

type frozenKV struct {
	Key   string
	Value string
}

func (frozenKV) UDTName() string { return "keyvalue" }

type frozenLog struct {
	TS     int64 `kandra:"ts"`
	Fields []frozenKV
}

func (frozenLog) UDTName() string { return "log" }

type frozenProcess struct {
	ServiceName string
	Tags        []frozenKV
}

func (frozenProcess) UDTName() string { return "process" }

type frozenShelf struct {
	ID      string
	Slot    int32
	Labels  map[string]struct{}
	Logs    []frozenLog
	Plain   []string
	Process frozenProcess
	Sizes   map[string][]int32
	Tags    []string
}

func (s *frozenShelf) Describe(sc *kandra.Schema[frozenShelf]) {
	sc.Table("shelf")
	kandra.Bind(sc, &s.ID, kandra.PartitionKey(0))
	kandra.Bind(sc, &s.Slot, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(sc, &s.Labels, kandra.Frozen(), kandra.SecondaryIndex(kandra.UsingLegacy()))
	kandra.Bind(sc, &s.Process, kandra.Frozen())
	kandra.Bind(sc, &s.Sizes, kandra.Frozen())
	kandra.Bind(sc, &s.Tags, kandra.Frozen())
}

// frozenShelfLoose declares process as a column of its own, not frozen,
// which servers refuse for a type with a collection field not frozen.
type frozenShelfLoose frozenShelf

func (s *frozenShelfLoose) Describe(sc *kandra.Schema[frozenShelfLoose]) {
	sc.Table("shelf")
	kandra.Bind(sc, &s.ID, kandra.PartitionKey(0))
	kandra.Bind(sc, &s.Slot, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(sc, &s.Labels, kandra.Frozen(), kandra.SecondaryIndex(kandra.UsingLegacy()))
	kandra.Bind(sc, &s.Sizes, kandra.Frozen())
	kandra.Bind(sc, &s.Tags, kandra.Frozen())
}

// testMigratorFrozen: a table created by hand with frozen collections
// (a list, a set with a FULL index, a map of lists) and Jaeger's types
// (collection fields without FROZEN, used only frozen) is imported with
// nothing unexpressed, and the imported model plans no step (Check
// passes); the model with the type's column not frozen plans an
// impossible step, as the node refuses such a column. Rows written
// through kandra read back with an empty frozen collection empty and a
// nil one nil (a non-frozen empty one nil), as hand CQL sees them
// (writetime, the FULL index's read of the empty set), and rows written by
// hand CQL read back so through kandra; an in-place change of a frozen
// collection is refused before sending, as the node refuses it. It
// prints "real-server: frozen-collections adapter=<Name> zero-step=<bool>
// empty-kept=<bool> refused=<n> ok=<bool>".
func testMigratorFrozen(t *testing.T, n Node) {
	ok, zero, kept, refused := false, false, false, 0
	d, _ := n.Open(t) // skips without a node: then no summary line
	defer func() {
		fmt.Printf("real-server: frozen-collections adapter=%s zero-step=%t empty-kept=%t refused=%d ok=%t\n", n.Name, zero, kept, refused, ok && !t.Failed())
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	keyspace := scratch(t, d, "frozen", n, kandra.Cassandra5|kandra.Cassandra5Latest)
	shelves, loose := kandra.MustRegister[frozenShelf](), kandra.MustRegister[frozenShelfLoose]()
	ks := keyspace(shelves)
	q := ks.Name()
	for _, stmt := range []string{
		"CREATE KEYSPACE " + q + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TYPE " + q + ".keyvalue (key text, value text)",
		"CREATE TYPE " + q + ".log (ts bigint, fields list<frozen<keyvalue>>)",
		"CREATE TYPE " + q + ".process (service_name text, tags list<frozen<keyvalue>>)",
		"CREATE TABLE " + q + ".shelf (id text, slot int, tags frozen<list<text>>, labels frozen<set<text>>, sizes frozen<map<text, frozen<list<int>>>>, " +
			"logs list<frozen<log>>, process frozen<process>, plain list<text>, PRIMARY KEY (id, slot))",
		"CREATE INDEX shelf_labels_idx ON " + q + ".shelf (full(labels))",
	} {
		if err := execSchema(ctx, d, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	// The node's rule the planner reports: no column of the type not
	// frozen.
	if err := execSchema(ctx, d, "ALTER TABLE "+q+".shelf ADD loose process"); err == nil || !strings.Contains(err.Error(), "Non-frozen UDTs with nested non-frozen collections are not supported") {
		t.Fatalf("a column of process not frozen: %v", err)
	}

	im, err := migrate.Import(ctx, d, q, migrate.ImportOptions{Package: "shelf"})
	if err != nil {
		t.Fatal(err)
	}
	src := string(im.Source)
	if len(im.Unexpressed) > 0 {
		t.Fatalf("the import leaves out:\n  %s", strings.Join(im.Unexpressed, "\n  "))
	}
	for _, want := range []string{
		"kandra.Bind(s, &e.Labels, kandra.Frozen(), kandra.SecondaryIndex(kandra.UsingLegacy()))",
		"kandra.Bind(s, &e.Process, kandra.Frozen())", "kandra.Bind(s, &e.Sizes, kandra.Frozen())", "kandra.Bind(s, &e.Tags, kandra.Frozen())",
		"\tLogs    []Log\n", "\tPlain   []string\n", "\tFields []Keyvalue\n", "\tTags        []Keyvalue\n",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the imported source lacks %q:\n%s", want, src)
		}
	}
	// The import's model, written as frozenShelf.
	if p, err := migrate.PlanFor(ctx, d, ks); err != nil || !p.Empty() || len(p.Extra) > 0 {
		t.Fatalf("the imported model: want no step:\n%v, %v", p, err)
	}
	if err := migrate.Check(ctx, d, ks); err != nil {
		t.Fatal(err)
	}
	zero = true
	p, err := migrate.PlanFor(ctx, d, keyspace(loose))
	if err != nil {
		t.Fatal(err)
	}
	var field *migrate.Step
	for i, s := range p.Steps {
		if s.ID == "change-field-type:process.tags" {
			field = &p.Steps[i]
		}
	}
	if field == nil || field.Class != migrate.Impossible || !strings.Contains(field.Reason, "Non-frozen UDTs with nested non-frozen collections") || strings.Contains(p.String(), "log.fields") {
		t.Fatalf("the model's process not frozen: want an impossible step on process.tags, none on log.fields:\n%v", p)
	}

	rt, err := kstore.New(d, ks)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rt.Close(context.Background()) }()
	repo := kstore.MustNewRepo(rt, shelves)
	tags := kandra.MustFieldOf(shelves, func(s *frozenShelf) *[]string { return &s.Tags })
	labels := kandra.MustFieldOf(shelves, func(s *frozenShelf) *map[string]struct{} { return &s.Labels })
	sizes := kandra.MustFieldOf(shelves, func(s *frozenShelf) *map[string][]int32 { return &s.Sizes })
	id := uniq("shelf")
	empty := &frozenShelf{ID: id, Slot: 1, Tags: []string{}, Labels: map[string]struct{}{}, Sizes: map[string][]int32{}, Plain: []string{},
		Logs:    []frozenLog{{TS: 7, Fields: []frozenKV{{Key: "k", Value: "v"}}}, {TS: 8, Fields: []frozenKV{}}},
		Process: frozenProcess{ServiceName: "svc", Tags: []frozenKV{{Key: "host", Value: "h1"}}}}
	null := &frozenShelf{ID: id, Slot: 2}
	full := &frozenShelf{ID: id, Slot: 3, Tags: []string{"b", "a"}, Labels: map[string]struct{}{"x": {}}, Sizes: map[string][]int32{"s": {1, 2}, "e": {}}}
	for _, e := range []*frozenShelf{empty, null, full} {
		if err := repo.Save(ctx, e); err != nil {
			t.Fatalf("Save %d: %v", e.Slot, err)
		}
	}
	get := func(slot int32) *frozenShelf {
		t.Helper()
		e, err := repo.Get(ctx, &frozenShelf{ID: id, Slot: slot})
		if err != nil {
			t.Fatalf("Get %d: %v", slot, err)
		}
		return e
	}
	want := *empty
	want.Plain = nil // a non-frozen empty list is no cell
	if got := get(1); !reflect.DeepEqual(got, &want) {
		t.Fatalf("the empty frozen collections read back %#v, want %#v", got, &want)
	}
	if got := get(2); !reflect.DeepEqual(got, null) {
		t.Fatalf("the nil collections read back %#v", got)
	}
	if got := get(3); !reflect.DeepEqual(got, full) {
		t.Fatalf("the frozen collections read back %#v, want %#v", got, full)
	}
	// The node holds a cell for the empty frozen ones, none for nil or
	// the non-frozen empty one.
	for _, c := range []struct {
		slot int
		col  string
		cell bool
	}{{1, "tags", true}, {1, "labels", true}, {1, "sizes", true}, {1, "plain", false}, {2, "tags", false}, {2, "labels", false}} {
		rows, err := d.QueryCQL(ctx, fmt.Sprintf("SELECT writetime(%s) AS w FROM %s.shelf WHERE id = '%s' AND slot = %d", c.col, q, id, c.slot), nil, kandra.ConsistencyOne)
		if err != nil || len(rows) != 1 {
			t.Fatalf("writetime(%s) of row %d: %v, %v", c.col, c.slot, rows, err)
		}
		w, _ := rows[0]["w"].(int64)
		if (w > 0) != c.cell {
			t.Fatalf("row %d: writetime(%s) = %v; want a cell %t", c.slot, c.col, rows[0]["w"], c.cell)
		}
	}
	rows, err := d.QueryCQL(ctx, fmt.Sprintf("SELECT process.service_name AS s FROM %s.shelf WHERE id = '%s' AND slot = 1", q, id), nil, kandra.ConsistencyOne)
	if err != nil || len(rows) != 1 || rows[0]["s"] != "svc" {
		t.Fatalf("the process's service_name by hand: %v, %v", rows, err)
	}
	// The FULL index finds the empty set's row (and only it) and the full
	// one's; nil is refused as a null key.
	idx := kstore.MustIndexOf(repo, labels)
	for v, slot := range map[string]int32{"": 1, "x": 3} {
		set := map[string]struct{}{}
		if v != "" {
			set[v] = struct{}{}
		}
		var found []*frozenShelf
		for range 20 { // an index answers once built
			if found, err = idx.Find(ctx, set).All(); err == nil {
				break
			}
			time.Sleep(250 * time.Millisecond)
		}
		if err != nil || len(found) != 1 || found[0].Slot != slot {
			t.Fatalf("Find(%v): %d rows, %v; want row %d", set, len(found), err, slot)
		}
	}
	if _, err := idx.Find(ctx, nil).All(); err == nil {
		t.Fatal("Find(nil) through the FULL index is not refused")
	}
	kept = true

	// A row written by hand CQL: an empty list, a null set.
	if _, err := d.ExecCQL(ctx, fmt.Sprintf("INSERT INTO %s.shelf (id, slot, tags, sizes) VALUES ('%s', 4, [], {'z': []})", q, id), nil, kandra.ConsistencyOne); err != nil {
		t.Fatal(err)
	}
	if got := get(4); got.Tags == nil || len(got.Tags) != 0 || got.Labels != nil || !reflect.DeepEqual(got.Sizes, map[string][]int32{"z": {}}) {
		t.Fatalf("the hand-written row reads back tags %#v, labels %#v, sizes %#v", got.Tags, got.Labels, got.Sizes)
	}

	// In-place changes: refused by kandra before sending, as the node
	// refuses them.
	key := &frozenShelf{ID: id, Slot: 3}
	for _, p := range []kstore.Patch[frozenShelf]{kstore.Append(tags, "c"), kstore.Add(labels, "y"), kstore.Put(sizes, "n", []int32{3})} {
		_, err := repo.Patch(ctx, key, p)
		var ae *kerrors.ArgumentError
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), "set it with kstore.Set") {
			t.Fatalf("%s: %v, want an argument error", p, err)
		}
		refused++
	}
	for _, stmt := range []string{"UPDATE %s.shelf SET tags = tags + ['c'] WHERE id = '%s' AND slot = 3", "UPDATE %s.shelf SET sizes['n'] = [3] WHERE id = '%s' AND slot = 3"} {
		if _, err := d.ExecCQL(ctx, fmt.Sprintf(stmt, q, id), nil, kandra.ConsistencyOne); err == nil || !strings.Contains(err.Error(), "for frozen collection column") {
			t.Fatalf("the node takes %q: %v", stmt, err)
		}
	}
	if _, err := repo.Patch(ctx, key, kstore.Set(tags, []string{"c"})); err != nil {
		t.Fatal(err)
	}
	if got := get(3); !reflect.DeepEqual(got.Tags, []string{"c"}) {
		t.Fatalf("Set of the frozen list: %#v", got.Tags)
	}
	// Stored equality tells an empty frozen collection from nil, as the
	// node does.
	if c := shelves.Schema().ColumnByName("tags"); c.SameStored(&empty.Tags, &null.Tags) || !c.SameStored(&empty.Tags, &[]string{}) {
		t.Fatal("SameStored of the frozen list: empty and nil alike, or empty and empty apart")
	}
	ok = true
}
