package integration

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/migrate"
)

// TestImportFile: the schema files of TestImportApps (Temporal's and
// Jaeger's, verbatim) and the catalogue's DDL (kandra's own Statements),
// each applied to the node statement by statement and read back from it
// (migrate.Read), and read from the file alone (migrate.ParseSchemaFileFor
// the node's target, whose configuration decides a plain CREATE INDEX's
// kind and a table's default compaction):
// the entities GenerateEntities writes of the two are the same bytes,
// for an unknown server and for Cassandra targets. The node's Server is
// cleared for the comparison, as a file names no server; the rest of
// the Live is what the node holds, server defaults and all. The
// statement the node refuses (Temporal's table of the types binary and
// int64) is the one the file's reading leaves out and lists.
func TestImportFile(t *testing.T) {
	s := session(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	d := kgocql.New(s)
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	apply := func(ks string, stmts []string, bind bool) {
		c := newCluster()
		if bind {
			c.Keyspace = ks
		}
		as, err := c.CreateSession()
		if err != nil {
			t.Fatalf("a session on %s: %v", ks, err)
		}
		defer as.Close()
		for _, stmt := range stmts {
			if err := execDDL(as, stmt); err != nil {
				t.Logf("%s: the node refuses the statement (left out):\n%s\n-> %v", ks, stmt, err)
			}
		}
	}
	type app struct {
		name, ks, file string
		refused        int // statements the node refuses, which the reading lists
	}
	var apps []app

	// Temporal's file creates no keyspace: it is applied into one, whose
	// CREATE KEYSPACE the file's reading is given too.
	temporal := keyspaceName("impf_temporal")
	trackKeyspace(temporal)
	createTemporal := fmt.Sprintf("CREATE KEYSPACE %s WITH replication = {'class': 'NetworkTopologyStrategy', '%s': 1}", temporal, nodeDC)
	if err := execDDL(s, createTemporal); err != nil {
		t.Fatal(err)
	}
	tfile := read("testdata/apps/temporal/schema.cql")
	apply(temporal, cqlStatements(tfile), true)
	apps = append(apps, app{"temporal", temporal, createTemporal + ";\n" + tfile, 1})

	jaeger := keyspaceName("impf_jaeger")
	trackKeyspace(jaeger)
	jfile := strings.NewReplacer("${keyspace}", jaeger, "${replication}", fmt.Sprintf("{'class': 'NetworkTopologyStrategy', '%s': '1'}", nodeDC),
		"${trace_ttl}", "172800", "${dependencies_ttl}", "0").Replace(read("testdata/apps/jaeger/v004.cql.tmpl"))
	apply(jaeger, cqlStatements(jfile), false)
	apps = append(apps, app{"jaeger", jaeger, jfile, 0})

	// The catalogue's entities, as kandra's own DDL writes them.
	schemas, err := registerCatalogue()
	if err != nil {
		t.Fatalf("registering the catalogue: %v", err)
	}
	sources := make([]kandra.SchemaSource, len(schemas))
	for i, ts := range schemas {
		sources[i] = ts
	}
	cat := buildKeyspace(t, "impf_cat", sources...)
	trackKeyspace(cat.Name())
	for _, err := range createKeyspace(t, s, cat, 2) {
		if err != nil {
			t.Fatalf("creating the catalogue: %v", err)
		}
	}
	apps = append(apps, app{"catalogue", cat.Name(), strings.Join(cat.Statements(), ";\n") + ";\n", 0})

	identical := 0
	for _, a := range apps {
		k, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: a.ks, Replication: testReplication()})
		if err != nil {
			t.Fatal(err)
		}
		node, err := migrate.Read(ctx, d, k)
		if err != nil {
			t.Fatalf("%s: reading the keyspace from the node: %v", a.name, err)
		}
		node.Server = migrate.Server{}
		sf, err := migrate.ParseSchemaFileFor([]byte(a.file), a.ks, serverTarget())

		if err != nil {
			t.Errorf("%s: ParseSchemaFile: %v", a.name, err)
			continue
		}
		refused := 0
		for _, u := range sf.Unexpressed {
			t.Logf("%s: the file's reading lists: %s", a.name, u)
			if strings.Contains(u, "is left out, as a server refuses it") {
				refused++
			}
		}
		if refused != a.refused {
			t.Errorf("%s: the file's reading leaves out %d statements as refused; the node refuses %d", a.name, refused, a.refused)
		}
		same := true
		for _, targets := range []kandra.Target{0, kandra.Cassandra5 | kandra.Cassandra5Latest} {
			opts := migrate.ImportOptions{Package: "app", Targets: targets}
			fromNode, err := migrate.GenerateEntities(node, opts)
			if err != nil {
				t.Fatalf("%s: GenerateEntities of the node's keyspace: %v", a.name, err)
			}
			fromFile, err := migrate.GenerateEntities(sf.Live, opts)
			if err != nil {
				t.Errorf("%s: GenerateEntities of the file's keyspace: %v", a.name, err)
				same = false
				continue
			}
			if !bytes.Equal(fromNode.Source, fromFile.Source) {
				same = false
				t.Errorf("%s (targets %v): the entities of the file differ from the node's:\n%s", a.name, targets, lineDiff(string(fromNode.Source), string(fromFile.Source)))
			}
		}
		// The file-read keyspace plans nothing against the node's: the
		// same tables, columns, types and indexes, compared as the
		// planner compares them.
		if d := liveDiff(node, sf.Live); d != "" {
			same = false
			t.Errorf("%s: the file's Live differs from the node's: %s", a.name, d)
		}
		if same {
			identical++
		}
	}
	summary("import-file", fmt.Sprintf("real-server: import-file apps=%d identical=%d (temporal, jaeger, catalogue: GenerateEntities of the file's reading = of the node's)", len(apps), identical))
}

// lineDiff shows the first lines where a and b differ.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for i := 0; i < max(len(al), len(bl)) && len(out) < 20; i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			out = append(out, fmt.Sprintf("%4d node: %s\n%4d file: %s", i+1, x, i+1, y))
		}
	}
	return strings.Join(out, "\n")
}

// liveDiff compares what system_schema holds of two Lives' keyspaces:
// replication, tables with their columns (kind, position, order, type),
// indexes and the options the file states, and types; "" when the same.
func liveDiff(node, file *migrate.Live) string {
	a, b := node.Keyspace, file.Keyspace
	if a == nil || b == nil {
		return fmt.Sprintf("keyspace exists: node %v, file %v", a != nil, b != nil)
	}
	if fmt.Sprint(a.Replication) != fmt.Sprint(b.Replication) {
		return fmt.Sprintf("replication: node %v, file %v", a.Replication, b.Replication)
	}
	if len(a.Tables) != len(b.Tables) || len(a.Types) != len(b.Types) {
		return fmt.Sprintf("node has %d tables and %d types, file %d and %d", len(a.Tables), len(a.Types), len(b.Tables), len(b.Types))
	}
	for name, ta := range a.Tables {
		tb := b.Tables[name]
		if tb == nil {
			return "table " + name + " is not in the file's"
		}
		col := func(c *migrate.LiveColumn) string {
			return fmt.Sprintf("%s %s %d %s %s", c.Name, c.Kind, c.Position, c.Order, c.RawType)
		}
		if len(ta.Columns) != len(tb.Columns) {
			return "table " + name + ": the column counts differ"
		}
		for i := range ta.Columns {
			if col(ta.Columns[i]) != col(tb.Columns[i]) {
				return "table " + name + ": column " + col(ta.Columns[i]) + " in the node's, " + col(tb.Columns[i]) + " in the file's"
			}
		}
		ix := func(t *migrate.LiveTable) string {
			var parts []string
			for _, x := range t.Indexes {
				parts = append(parts, fmt.Sprint(x.Name, x.Kind, x.Options))
			}
			return strings.Join(parts, "; ")
		}
		if ix(ta) != ix(tb) {
			return "table " + name + ": indexes " + ix(ta) + " in the node's, " + ix(tb) + " in the file's"
		}
		if ta.DefaultTTL != tb.DefaultTTL || ta.GCGrace != tb.GCGrace || fmt.Sprint(ta.Flags) != fmt.Sprint(tb.Flags) {
			return "table " + name + ": default TTL, gc_grace_seconds or flags differ"
		}
		for k, v := range tb.Options {
			if ta.Options[k] != v {
				return fmt.Sprintf("table %s: option %s is %q in the node's, %q in the file's", name, k, ta.Options[k], v)
			}
		}
	}
	for name, ua := range a.Types {
		ub := b.Types[name]
		if ub == nil || fmt.Sprint(ua.FieldNames, ua.FieldTypes) != fmt.Sprint(ub.FieldNames, ub.FieldTypes) {
			return "type " + name + " differs"
		}
	}
	return ""
}
