package integration

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gocql/gocql"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/examples/todos/model"
	"github.com/kandra-go/kandra/examples/todos/recipe"
	"github.com/kandra-go/kandra/kerrors"
)

// registerCatalogue registers the catalogue entities of the node's target
// (Limits, whose TTL passes 2038, only on the latest node). The recipe's User
// uses the table name "users" as the tutorial's does: both register (the
// cache knows no keyspaces), and registerRecipe's goes into a keyspace of
// its own.
func registerCatalogue() ([]*kandra.TableSchema, error) {
	var out []*kandra.TableSchema
	regs := []func() (*kandra.TableSchema, error){
		schemaOf[model.User],
		schemaOf[model.Todo],
		schemaOf[model.SafeTodo],
		schemaOf[AllTypes],
		schemaOf[Event],
		schemaOf[Reading],
		schemaOf[Bucket],
		schemaOf[PageViews],
		schemaOf[Account],
		schemaOf[Message],
		schemaOf[CappedLimits],
		schemaOf[KeyOnly],
		schemaOf[Topic],
		schemaOf[Product],
		schemaOf[Shipment],
	}
	if latestMode() {
		// Past 2038: writable only with storage_compatibility_mode NONE.
		regs = append(regs, schemaOf[Limits])
	}
	for _, reg := range regs {
		src, err := reg()
		if err != nil {
			return nil, err
		}
		out = append(out, src)
	}
	return out, nil
}

// schemaOf registers T and returns its schema.
func schemaOf[T any, PT kandra.Entity[T]]() (*kandra.TableSchema, error) {
	t, err := kandra.Register[T, PT]()
	if err != nil {
		return nil, err
	}
	return t.Schema(), nil
}

func registerRecipe() (*kandra.TableSchema, error) {
	t, err := kandra.Register[recipe.User]()
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

// checkTables creates the keyspace k from k.Statements() and compares
// system_schema with each of its tables, then writes a row with every
// column set into each (and its lookup tables) and reads it back
// (checkWritable). It returns the number of physical tables and of those
// that were created, match and took their row; every problem is reported
// on t.
func checkTables(t *testing.T, s *gocql.Session, k *kandra.Keyspace) (tables, ok int) {
	t.Helper()
	errs := createKeyspace(t, s, k, 1)
	for i, ts := range k.Tables() {
		names := physicalTables(ts)
		tables += len(names)
		if errs[i] != nil {
			t.Errorf("%s: the server rejected kandra's DDL (kandra bug: Register accepted a schema the server rejects):\n%v", ts.EntityType(), errs[i])
			continue
		}
		diffs, err := compareSchema(s, k.Name(), ts)
		if err != nil {
			t.Errorf("%s: reading system_schema: %v", ts.Name(), err)
			continue
		}
		bad := map[string]bool{}
		for _, d := range diffs {
			t.Errorf("%s (%s): system_schema differs: %s", ts.EntityType(), k.Name(), d)
			bad[strings.SplitN(d, ":", 2)[0]] = true
		}
		w := checkWritable(s, k.Name(), ts, i)
		for _, p := range w.problems {
			t.Errorf("%s (%s): accepted but not writable: %s", ts.EntityType(), k.Name(), p)
			bad[p.table] = true
		}
		t.Logf("%s: %s", ts.Name(), w.summary())
		for _, n := range names {
			if !bad[n] {
				ok++
			}
		}
	}
	return tables, ok
}

// TestCatalogue: the tutorial, recipe and catalogue entities' DDL is
// accepted, system_schema (tables, columns, indexes) matches the
// registered schemas, in keyspace-qualified form, and every table takes a
// row with every column set and gives it back (accepted means writable).
func TestCatalogue(t *testing.T) {
	s := session(t)
	schemas, err := registerCatalogue()
	if err != nil {
		t.Fatalf("registering the catalogue: %v", err)
	}
	sources := make([]kandra.SchemaSource, len(schemas))
	for i, ts := range schemas {
		sources[i] = ts
	}
	cat := buildKeyspace(t, "cat", sources...)
	tables, ok := checkTables(t, s, cat)
	indexes := 0
	for _, ts := range schemas {
		indexes += len(ts.SecondaryIndexes())
	}

	rec, err := registerRecipe()
	if err != nil {
		t.Fatalf("registering the recipe: %v", err)
	}
	recipe := buildKeyspace(t, "recipe", rec)
	n, k := checkTables(t, s, recipe)
	tables, ok = tables+n, ok+k
	// Imported back, both keyspaces plan nothing and converge.
	importRoundTrip(t, s, []string{cat.Name(), recipe.Name()}, nil)

	// The two "users" tables register side by side; only one keyspace
	// holding both is refused, naming both types.
	tutorial, found := kandra.SchemaOf(reflect.TypeFor[model.User]())
	if !found {
		t.Fatal("SchemaOf(model.User) after Register: not found")
	}
	_, err = kandra.NewKeyspace(keyspaceSpec(keyspaceName("both")), tutorial, rec)
	var se *kandra.SchemaError
	if !errors.As(err, &se) || se.Rule != kandra.RuleNameTaken ||
		!strings.Contains(err.Error(), tutorial.EntityType().String()) || !strings.Contains(err.Error(), rec.EntityType().String()) {
		t.Errorf("NewKeyspace with the tutorial's and the recipe's users tables: got %v, want a %s error naming %s and %s",
			err, kandra.RuleNameTaken, tutorial.EntityType(), rec.EntityType())
	}

	// ALTER TABLE ... ADD: every catalogue table created with its key
	// columns only (plus one counter for a counter table: the server never
	// adds a counter to a table without one), then grown column by column
	// with the keyspace's AlterTableAdd, must end up as system_schema
	// shows the full table.
	alter := buildKeyspace(t, "alter", sources...)
	ks3 := alter.Name()
	if err := execDDL(s, alter.CreateKeyspace()); err != nil {
		t.Fatalf("%s\n-> %v", alter.CreateKeyspace(), err)
	}
	trackKeyspace(ks3)
	for _, u := range alter.Types() {
		stmt, _ := alter.CreateType(u.Name())
		if err := execDDL(s, stmt); err != nil {
			t.Fatalf("%s\n-> %v", stmt, err)
		}
	}
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
			stmt, err := alter.AlterTableAdd(ts, c)
			if err != nil {
				t.Errorf("AlterTableAdd(%s.%s): %v", ts.Name(), c.Name(), err)
				continue
			}
			if err := execDDL(s, stmt); err != nil {
				t.Errorf("the server rejected kandra's ALTER TABLE ADD: %s\n-> %v", stmt, err)
				continue
			}
			added++
		}
		var rest []string
		for _, l := range ts.LookupTables() {
			rest = append(rest, mustStmt(t, "CreateLookupTable", l.Name())(alter.CreateLookupTable(l)))
		}
		for _, c := range ts.SecondaryIndexes() {
			rest = append(rest, mustStmt(t, "CreateIndex", c.Name())(alter.CreateIndex(ts, c)))
		}
		for _, stmt := range rest {
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
			// Servers cannot add a key column to a table: a migration error.
			stmt, err := alter.AlterTableAdd(ts, c)
			var me *kerrors.MigrationError
			if stmt != "" || !errors.As(err, &me) {
				t.Errorf("AlterTableAdd for key column %s.%s: got %q, %v; want no statement and a *kerrors.MigrationError", ts.Name(), c.Name(), stmt, err)
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
		t.Errorf("only %d of %d catalogue tables match system_schema and take their row", ok, tables)
	}
}
