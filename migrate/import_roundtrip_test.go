package migrate

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
	"pgregory.net/rapid"
)

// The round trip, compiled: the entities GenerateEntities writes for a
// live keyspace, built into a kandra.Keyspace by their own Keyspace
// function in a program of their own, plan no step against the system_schema
// rows they came from (read through migrate.Read, as PlanFor reads them).

// roundTripCase is one generated package of the program.
type roundTripCase struct {
	name   string // the package's name, ks00
	rows   *schemaRows
	source []byte
	// clean: the model says everything (no Unexpressed), so the plan has
	// no extras either.
	clean bool
}

// goValue writes v, a value of a system_schema row, as a Go expression of
// its dynamic type.
func goValue(t testing.TB, v any) string {
	switch v := v.(type) {
	case nil:
		return "nil"
	case string:
		return strconv.Quote(v)
	case int:
		return strconv.Itoa(v)
	case int64:
		return "int64(" + strconv.FormatInt(v, 10) + ")"
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return "float64(" + strconv.FormatFloat(v, 'g', -1, 64) + ")"
	case map[string]string:
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(v)) {
			parts = append(parts, strconv.Quote(k)+": "+strconv.Quote(v[k]))
		}
		return "map[string]string{" + strings.Join(parts, ", ") + "}"
	case []string:
		var parts []string
		for _, s := range v {
			parts = append(parts, strconv.Quote(s))
		}
		return "[]string{" + strings.Join(parts, ", ") + "}"
	case []bool:
		var parts []string
		for _, b := range v {
			parts = append(parts, strconv.FormatBool(b))
		}
		return "[]bool{" + strings.Join(parts, ", ") + "}"
	case time.Time:
		return "time.Unix(0, " + strconv.FormatInt(v.UnixNano(), 10) + ").UTC()"
	}
	t.Fatalf("goValue: a system_schema value of type %T", v)
	return ""
}

// rowsLiteral writes r as a Go map from system_schema table names to rows.
func rowsLiteral(t testing.TB, r *schemaRows) string {
	var b strings.Builder
	b.WriteString("map[string][]map[string]any{\n")
	rv := reflect.ValueOf(r).Elem()
	for i := range rv.NumField() {
		rows := rv.Field(i).Interface().([]map[string]any)
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\t%q: {\n", kandra.SnakeCase(rv.Type().Field(i).Name))
		for _, row := range rows {
			b.WriteString("\t\t{")
			for _, k := range slices.Sorted(maps.Keys(row)) {
				fmt.Fprintf(&b, "%q: %s, ", k, goValue(t, row[k]))
			}
			b.WriteString("},\n")
		}
		b.WriteString("\t},\n")
	}
	b.WriteString("}")
	return b.String()
}

// roundTripMain is the program: a driver that answers system_schema's
// SELECTs from the rows, and for each package its plan's counts.
const roundTripMain = `package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/migrate"
%s)

var _ = time.Unix

type rows = map[string][]map[string]any

// schemaDriver answers the migrator's reads of system_schema; system.local
// has no row, as of a driver that cannot tell the server.
type schemaDriver struct{ rows rows }

var errNone = errors.New("the round trip only reads system_schema")

func (d schemaDriver) QueryCQL(_ context.Context, stmt string, _ []any, _ kandra.Consistency) ([]map[string]any, error) {
	if _, rest, ok := strings.Cut(stmt, "FROM system_schema."); ok {
		return d.rows[strings.Fields(rest)[0]], nil
	}
	return nil, nil
}
func (schemaDriver) Exec(context.Context, *adapter.Query) (bool, error)           { return false, errNone }
func (schemaDriver) Query(context.Context, *adapter.Query) (adapter.Rows, error)  { return nil, errNone }
func (schemaDriver) Batch(context.Context, *adapter.Batch) (bool, error)          { return false, errNone }
func (schemaDriver) AwaitSchemaAgreement(context.Context) error                   { return nil }
func (schemaDriver) ExecCQL(context.Context, string, []any, kandra.Consistency) (bool, error) {
	return false, errNone
}

var cases = []struct {
	name     string
	keyspace func() (*kandra.Keyspace, error)
	rows     rows
}{
%s}

func main() {
	for _, c := range cases {
		ks, err := c.keyspace()
		if err != nil {
			fmt.Printf("%%s: Keyspace: %%v\n", c.name, err)
			continue
		}
		p, err := migrate.PlanFor(context.Background(), schemaDriver{c.rows}, ks)
		if err != nil {
			fmt.Printf("%%s: PlanFor: %%v\n", c.name, err)
			continue
		}
		fmt.Printf("%%s: %%d steps, %%d extra, %%d notes\n", c.name, len(p.Steps), len(p.Extra), len(p.Notes))
		if !p.Empty() || len(p.Extra)+len(p.Notes) > 0 {
			fmt.Println(strings.ReplaceAll(p.String(), "\n", "\n\t"))
		}
	}
	os.Exit(0)
}
`

// runRoundTrip writes the cases as packages of one program under
// testdata (which ./... never sees), vets it, runs it, and checks each
// case's plan: no step, and no extra for a clean case.
func runRoundTrip(t *testing.T, cases []roundTripCase) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to compile the generated entities")
	}
	dir, err := os.MkdirTemp("testdata", "import-roundtrip-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	var imports, entries strings.Builder
	for _, c := range cases {
		pkg := filepath.Join(dir, c.name)
		if err := os.Mkdir(pkg, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pkg, "model.go"), c.source, 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&imports, "\t%s %q\n", c.name, "github.com/kandra-go/kandra/migrate/"+filepath.ToSlash(pkg))
		fmt.Fprintf(&entries, "\t{%q, %s.Keyspace, %s},\n", c.name, c.name, rowsLiteral(t, c.rows))
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), fmt.Appendf(nil, roundTripMain, imports.String(), entries.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		cmd := exec.Command("go", args...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("vet", "./"+filepath.ToSlash(dir)+"/...")
	out := run("run", "./"+filepath.ToSlash(dir))
	got := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if name, rest, ok := strings.Cut(line, ": "); ok && !strings.HasPrefix(line, "\t") {
			got[name] = rest
		}
	}
	for _, c := range cases {
		want := "0 steps, 0 extra, 0 notes"
		switch r := got[c.name]; {
		case c.clean && r != want, !c.clean && !strings.HasPrefix(r, "0 steps,"):
			t.Errorf("%s: %s, want %s; its model:\n%s", c.name, r, want, c.source)
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("the program's output:\n%s", out)
	}
}

// importCase generates the entities of rows (keyspace name) for targets.
func importCase(t testing.TB, name string, r *schemaRows, keyspace string, targets kandra.Target) roundTripCase {
	t.Helper()
	imp, err := GenerateEntities(liveNamed(t, r, keyspace), ImportOptions{Package: name, Targets: targets})
	if err != nil {
		t.Fatalf("%s: GenerateEntities: %v", name, err)
	}
	checkSource(t, imp.Source)
	return roundTripCase{name: name, rows: r, source: imp.Source, clean: len(imp.Unexpressed) == 0}
}

// liveCase generates the entities of live, read from rows r.
func liveCase(t testing.TB, name string, r *schemaRows, live *Live) roundTripCase {
	t.Helper()
	imp, err := GenerateEntities(live, ImportOptions{Package: name})
	if err != nil {
		t.Fatalf("%s: GenerateEntities: %v", name, err)
	}
	checkSource(t, imp.Source)
	return roundTripCase{name: name, rows: r, source: imp.Source, clean: len(imp.Unexpressed) == 0}
}

// roundTripSchemas is how many random schemas the compiled round trip
// takes (schematest.ValidModel, seeds 0 to n-1): one program for all.
const roundTripSchemas = 24

// TestImportRoundTripCompiled compiles and runs the generated entities of
// random schemas (schematest's, through drawKeyspace, from fixed seeds)
// and of impKeyspace: each plans no step against the rows it came from.
func TestImportRoundTripCompiled(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a program: not in -short")
	}
	draw := rapid.Custom(func(t *rapid.T) *kandra.Keyspace {
		ks, _ := drawKeyspace(t)
		return ks
	})
	var cases []roundTripCase
	for seed := range roundTripSchemas {
		ks := draw.Example(seed)
		c := importCase(t, fmt.Sprintf("ks%02d", seed), rowsOf(ks), ks.Name(), ks.Targets())
		if !c.clean {
			t.Errorf("seed %d: a schema kandra made is not all expressed:\n%s", seed, c.source)
		}
		cases = append(cases, c)
	}
	cases = append(cases, importCase(t, "shop", impRows(t), "shop", kandra.Cassandra5|kandra.Cassandra5Latest))
	// The hand-written keyspaces, with the targets of their servers.
	odd := liveNamed(t, oddRows().r, "odd")
	odd.Server = cassandra508
	cases = append(cases, liveCase(t, "odd", oddRows().r, odd))
	sc := liveNamed(t, scyllaRows().r, "sc")
	sc.Server, sc.Keyspace.Tablets = Server{Product: scyllaProduct, Version: "2026.1.2", Targets: kandra.Scylla2026 | kandra.Scylla2026Tablets}, true
	cases = append(cases, liveCase(t, "sc", scyllaRows().r, sc))
	runRoundTrip(t, cases)
}
