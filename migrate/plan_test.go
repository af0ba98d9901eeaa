package migrate

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/dynamic"
	"github.com/kandra-go/kandra/internal/schematest"
	"pgregory.net/rapid"
)

// serverType writes t as system_schema.columns.type holds it: lower case,
// every nested collection frozen<...>, the top one too when frozen, and
// varchar as text. It is written apart from kandra's own rendering, so
// that the round trip checks one against the other.
func serverType(t kandra.CQLType, frozen bool) string {
	var s string
	switch t.Kind() {
	case kandra.KindNative:
		s = strings.ToLower(t.Name())
		if s == "varchar" {
			s = "text"
		}
		return s
	case kandra.KindList:
		s = "list<" + serverType(t.Elem(), true) + ">"
	case kandra.KindSet:
		s = "set<" + serverType(t.Elem(), true) + ">"
	case kandra.KindMap:
		s = "map<" + serverType(t.Key(), true) + ", " + serverType(t.Elem(), true) + ">"
	default:
		panic("serverType: invalid type")
	}
	if frozen {
		s = "frozen<" + s + ">"
	}
	return s
}

// rowsOf builds the system_schema rows a server holds after running
// ks.Statements(): the keyspace row, one table row per primary and lookup
// table (server defaults for what the statements leave out), a column row
// per column with its kind, position, clustering order and type as the
// server spells it, and an index row per secondary index.
func rowsOf(ks *kandra.Keyspace) *SchemaRows {
	name := ks.Name()
	r := &SchemaRows{}
	repl := map[string]string{}
	if rp := ks.Replication(); rp.IsNetworkTopology() {
		repl["class"] = "org.apache.cassandra.locator.NetworkTopologyStrategy"
		for dc, n := range rp.Datacenters() {
			repl[dc] = strconv.Itoa(n)
		}
	} else {
		repl["class"] = "org.apache.cassandra.locator.SimpleStrategy"
		repl["replication_factor"] = strconv.Itoa(rp.SimpleFactor())
	}
	r.Keyspaces = append(r.Keyspaces, map[string]any{"keyspace_name": name, "durable_writes": true, "replication": repl})
	table := func(tn string, ttl, gc int, counter bool) {
		flags := []string{"compound"}
		if counter {
			flags = append(flags, "counter")
		}
		r.Tables = append(r.Tables, map[string]any{"keyspace_name": name, "table_name": tn, "id": uuid.NewString(),
			"default_time_to_live": ttl, "gc_grace_seconds": gc, "flags": flags})
	}
	column := func(tn, cn string, kind ColumnKind, pos int, order, typ string) {
		r.Columns = append(r.Columns, map[string]any{"keyspace_name": name, "table_name": tn, "column_name": cn,
			"kind": string(kind), "position": pos, "clustering_order": order, "type": typ})
	}
	for _, t := range ks.Tables() {
		ttl, _ := t.DefaultTTL()
		gc, ok := t.GCGraceSeconds()
		if !ok {
			gc = 864000
		}
		table(t.Name(), ttl, gc, t.IsCounterTable())
		for _, c := range t.Columns() {
			switch {
			case c.IsPartitionKey():
				column(t.Name(), c.Name(), PartitionKey, c.KeyIndex(), "none", serverType(c.Type(), c.Type().IsCollection()))
			case c.IsClusteringKey():
				column(t.Name(), c.Name(), Clustering, c.KeyIndex(), strings.ToLower(c.ClusteringOrder().String()), serverType(c.Type(), c.Type().IsCollection()))
			default:
				column(t.Name(), c.Name(), Regular, -1, "none", serverType(c.Type(), false))
			}
		}
		for _, l := range t.LookupTables() {
			table(l.Name(), 0, 864000, false)
			for i, c := range l.Columns() {
				if i == 0 {
					column(l.Name(), c.Name(), PartitionKey, 0, "none", serverType(c.Type(), c.Type().IsCollection()))
				} else {
					column(l.Name(), c.Name(), Regular, -1, "none", serverType(c.Type(), c.Type().IsCollection()))
				}
			}
		}
		for _, c := range t.SecondaryIndexes() {
			target := kandra.QuoteIdent(c.Name())
			switch {
			case c.Type().IsCollection() && (c.IsPartitionKey() || c.IsClusteringKey()):
				target = "full(" + target + ")"
			case c.Type().IsCollection():
				target = "values(" + target + ")"
			}
			r.Indexes = append(r.Indexes, map[string]any{"keyspace_name": name, "table_name": t.Name(), "index_name": t.IndexName(c),
				"kind": "COMPOSITES", "options": map[string]string{"target": target}})
		}
	}
	return r
}

// tb is what the helpers need of *testing.T and *rapid.T.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}

// liveOf is the Live a server holds after running ks.Statements(), read
// back through LiveFromRows.
func liveOf(t tb, ks *kandra.Keyspace) *Live {
	t.Helper()
	live, err := LiveFromRows(ks.Name(), rowsOf(ks))
	if err != nil {
		t.Fatalf("LiveFromRows of the rows of keyspace %q: %v", ks.Name(), err)
	}
	return live
}

// drawKeyspace draws a valid random table (schematest.ValidModel) and puts
// it alone in keyspace "ks" for the targets that accept it.
func drawKeyspace(t *rapid.T) (*kandra.Keyspace, *kandra.TableSchema) {
	m := schematest.ValidModel(t)
	v, err := dynamic.Build(m.Spec)
	if err != nil {
		t.Fatalf("a valid spec is rejected: %v", err)
	}
	ts := v.(*kandra.TableSchema)
	targets := m.Targets(time.Now())
	repl := kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3})
	if targets&(kandra.Cassandra5|kandra.Cassandra5Latest) == targets && rapid.Bool().Draw(t, "simple") {
		repl = kandra.SimpleStrategy(rapid.IntRange(1, 3).Draw(t, "rf"))
	}
	ks, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "ks", Replication: repl, Targets: targets}, ts)
	if err != nil {
		t.Fatalf("NewKeyspace for %v: %v", targets, err)
	}
	return ks, ts
}

func mustPlan(t tb, ks *kandra.Keyspace, live *Live) *Plan {
	t.Helper()
	p, err := NewPlan(ks, live)
	if err != nil {
		t.Fatalf("NewPlan: %v", err)
	}
	return p
}

func ids(steps []Step) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = s.ID
	}
	return out
}

// TestPropertyRoundTrip: the live schema a server holds after running a
// keyspace's statements plans nothing, and nothing is extra.
func TestPropertyRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ks, _ := drawKeyspace(t)
		p := mustPlan(t, ks, liveOf(t, ks))
		if !p.Empty() || len(p.Extra) > 0 {
			t.Fatalf("the live schema of the keyspace's own statements plans steps %q, extra %q:\n%s\nstatements:\n%s",
				ids(p.Steps), p.Extra, p, strings.Join(ks.Statements(), "\n"))
		}
		if err := Validate(ks, liveOf(t, ks)); err != nil {
			t.Fatalf("Validate of an identical live schema: %v", err)
		}
	})
}

// TestPropertyFresh: a missing keyspace plans exactly ks.Statements(), in
// their order, each safe; an existing one with no tables the same without
// the keyspace.
func TestPropertyFresh(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ks, _ := drawKeyspace(t)
		p := mustPlan(t, ks, &Live{})
		var got []string
		for _, s := range p.Steps {
			if s.Class != Safe {
				t.Fatalf("step %s of a fresh keyspace is %v: %s", s.ID, s.Class, s.Reason)
			}
			got = append(got, s.CQL)
		}
		if want := ks.Statements(); !slices.Equal(got, want) {
			t.Fatalf("fresh plan:\n%s\nwant the keyspace's statements:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		rows := rowsOf(ks)
		empty, err := LiveFromRows("ks", &SchemaRows{Keyspaces: rows.Keyspaces})
		if err != nil {
			t.Fatal(err)
		}
		p2 := mustPlan(t, ks, empty)
		if want := ks.Statements()[1:]; !slices.Equal(cqlOf(p2.Steps), want) {
			t.Fatalf("plan for a keyspace without tables:\n%s\nwant:\n%s", strings.Join(cqlOf(p2.Steps), "\n"), strings.Join(want, "\n"))
		}
	})
}

func cqlOf(steps []Step) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = s.CQL
	}
	return out
}

var _ = fmt.Sprint
var _ = maps.Keys[map[string]int]
