package integration

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/gocql/gocql"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/examples/todos/model"
	"github.com/kandra-go/kandra/examples/todos/recipe"
)

// registerCatalogue registers the catalogue entities (kandra.Reset first).
// The recipe's User claims the table name "users" as the tutorial's does,
// so it is registered separately by registerRecipe, after another Reset.
func registerCatalogue() ([]*kandra.TableSchema, error) {
	kandra.Reset()
	var out []*kandra.TableSchema
	add := func(ts *kandra.TableSchema, err error) error {
		if err != nil {
			return err
		}
		out = append(out, ts)
		return nil
	}
	for _, reg := range []func() (*kandra.TableSchema, error){
		func() (*kandra.TableSchema, error) { t, err := kandra.Register[model.User](); return schemaOf(t, err) },
		func() (*kandra.TableSchema, error) { t, err := kandra.Register[model.Todo](); return schemaOf(t, err) },
		func() (*kandra.TableSchema, error) { t, err := kandra.Register[AllTypes](); return schemaOf(t, err) },
		func() (*kandra.TableSchema, error) { t, err := kandra.Register[Event](); return schemaOf(t, err) },
		func() (*kandra.TableSchema, error) { t, err := kandra.Register[Reading](); return schemaOf(t, err) },
		func() (*kandra.TableSchema, error) { t, err := kandra.Register[Bucket](); return schemaOf(t, err) },
		func() (*kandra.TableSchema, error) { t, err := kandra.Register[PageViews](); return schemaOf(t, err) },
		func() (*kandra.TableSchema, error) { t, err := kandra.Register[Account](); return schemaOf(t, err) },
		func() (*kandra.TableSchema, error) { t, err := kandra.Register[Message](); return schemaOf(t, err) },
		func() (*kandra.TableSchema, error) { t, err := kandra.Register[Limits](); return schemaOf(t, err) },
		func() (*kandra.TableSchema, error) { t, err := kandra.Register[KeyOnly](); return schemaOf(t, err) },
	} {
		if err := add(reg()); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func registerRecipe() (*kandra.TableSchema, error) {
	kandra.Reset()
	t, err := kandra.Register[recipe.User]()
	return schemaOf(t, err)
}

type schemaHolder interface{ Schema() *kandra.TableSchema }

func schemaOf[H schemaHolder](t H, err error) (*kandra.TableSchema, error) {
	if err != nil {
		return nil, err
	}
	return t.Schema(), nil
}

// physicalTables is the primary table plus its lookup tables.
func physicalTables(ts *kandra.TableSchema) []string {
	out := []string{ts.Name()}
	for _, l := range ts.LookupTables() {
		out = append(out, l.Name())
	}
	return out
}

// checkTables creates every table of schemas in ks and compares
// system_schema with them. It returns the number of physical tables and of
// those that were created and match; every problem is reported on t.
func checkTables(t *testing.T, s *gocql.Session, ks string, schemas []*kandra.TableSchema) (tables, ok int) {
	t.Helper()
	for _, ts := range schemas {
		names := physicalTables(ts)
		tables += len(names)
		if err := createAll(s, ks, ts); err != nil {
			t.Errorf("%s: the server rejected kandra's DDL (kandra bug: Register accepted a schema the server rejects):\n%v", ts.EntityType(), err)
			continue
		}
		diffs, err := compareSchema(s, ks, ts)
		if err != nil {
			t.Errorf("%s: reading system_schema: %v", ts.Name(), err)
			continue
		}
		bad := map[string]bool{}
		for _, d := range diffs {
			t.Errorf("%s (%s): system_schema differs: %s", ts.EntityType(), ks, d)
			bad[strings.SplitN(d, ":", 2)[0]] = true
		}
		for _, n := range names {
			if !bad[n] {
				ok++
			}
		}
	}
	return tables, ok
}

// TestCatalogue: the tutorial, recipe and catalogue entities' DDL is
// accepted, and system_schema (tables, columns, indexes) matches the
// registered schemas, in keyspace-qualified form.
func TestCatalogue(t *testing.T) {
	s := session(t)
	schemas, err := registerCatalogue()
	if err != nil {
		t.Fatalf("registering the catalogue: %v", err)
	}
	ks := newKeyspace(t, s, "cat")
	tables, ok := checkTables(t, s, ks, schemas)
	indexes := 0
	for _, ts := range schemas {
		indexes += len(ts.SecondaryIndexes())
	}

	rec, err := registerRecipe()
	if err != nil {
		t.Fatalf("registering the recipe: %v", err)
	}
	ks2 := newKeyspace(t, s, "recipe")
	n, k := checkTables(t, s, ks2, []*kandra.TableSchema{rec})
	tables, ok = tables+n, ok+k

	// ALTER TABLE ... ADD: every catalogue table created with its key
	// columns only (plus one counter for a counter table: the server never
	// adds a counter to a table without one), then grown column by column
	// with kandra.AlterTableAdd, must end up as system_schema shows the
	// full table.
	ks3 := newKeyspace(t, s, "alter")
	added := 0
	for _, ts := range schemas {
		base := mirrorOf(ts)
		keep := len(ts.PrimaryKey())
		if ts.IsCounterTable() {
			keep++
		}
		base.cols = base.cols[:keep]
		if err := execDDL(s, base.render(ks3)); err != nil {
			t.Errorf("%s: creating the key-only table: %v", ts.Name(), err)
			continue
		}
		for _, c := range ts.Columns()[keep:] {
			stmt := kandra.AlterTableAdd(ts, c, kandra.MustInKeyspace(ks3))
			if err := execDDL(s, stmt); err != nil {
				t.Errorf("the server rejected kandra's ALTER TABLE ADD: %s\n-> %v", stmt, err)
				continue
			}
			added++
		}
		for _, stmt := range kandra.Statements(ts, kandra.MustInKeyspace(ks3))[1:] {
			if err := execDDL(s, stmt); err != nil {
				t.Errorf("%s\n-> %v", stmt, err)
			}
		}
		diffs, err := compareSchema(s, ks3, ts)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range diffs {
			t.Errorf("after ALTER TABLE ADD, system_schema differs: %s", d)
		}
		for _, c := range ts.PrimaryKey() {
			if stmt := kandra.AlterTableAdd(ts, c); stmt != "" {
				t.Errorf("AlterTableAdd returns %q for key column %s; servers cannot add key columns", stmt, c.Name())
			}
		}
	}
	t.Logf("ALTER TABLE ADD: %d columns added to key-only tables, every table then matches system_schema", added)

	var names []string
	for _, ts := range append(schemas, rec) {
		names = append(names, ts.Name())
	}
	sort.Strings(names)
	t.Logf("catalogue: %d entities (%s), %d physical tables, %d secondary indexes", len(names), strings.Join(names, ", "), tables, indexes)
	summary("catalogue", fmt.Sprintf("real-server: catalogue tables=%d ok=%d", tables, ok))
	if ok != tables {
		t.Errorf("only %d of %d catalogue tables match system_schema", ok, tables)
	}
}
