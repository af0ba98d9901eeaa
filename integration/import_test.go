package integration

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/migrate"
)

// The import round trip: a live keyspace is imported (migrate.Import),
// the generated Go is compiled into a program with a main of the test's,
// and that program registers the generated entities, plans them against
// the keyspace they came from (PlanFor), applies the plan and checks it
// (Check). Each keyspace counts towards the summary line
// "real-server: import keyspaces=N zero-step=N converged=N": zero-step when
// the first plan has no step, converged when Check passes after Apply.

// importTally adds up the round trips of every test that runs one.
var importTally struct {
	sync.Mutex
	keyspaces, zeroStep, converged int
}

// importResult is what the generated program reports of one keyspace.
type importResult struct {
	Keyspace  string   `json:"keyspace"`
	Steps     []string `json:"steps"`
	Plan      string   `json:"plan"`
	Converged bool     `json:"converged"`
	Err       string   `json:"err"`
	Saved     []string `json:"saved"` // the entities a row was saved through (writeRows)
}

// importRoundTrip imports each keyspace, compiles the generated code with
// one program, runs it against the node and returns what it reports, by
// keyspace. writeRows lists the keyspaces through whose entities the
// program also saves one row each (fillRow's values), for the
// application's own statements to read back.
func importRoundTrip(t *testing.T, s *gocql.Session, keyspaces []string, writeRows map[string]bool) map[string]importResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	d := kgocql.New(s)
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	run := "importrun-" + hex.EncodeToString(b)
	dir := filepath.Join("testdata", run)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = os.RemoveAll(dir)
		_ = os.Remove("testdata") // when empty
	})
	var imports, calls strings.Builder
	for i, ks := range keyspaces {
		pkg := fmt.Sprintf("k%d", i)
		im, err := migrate.Import(ctx, d, ks, migrate.ImportOptions{Package: pkg})
		if err != nil {
			t.Fatalf("Import of %s: %v", ks, err)
		}
		for _, u := range im.Unexpressed {
			t.Logf("%s: unexpressed: %s", ks, u)
		}
		if err := os.MkdirAll(filepath.Join(dir, pkg), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, pkg, "entities.go"), im.Source, 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&imports, "\t%s %q\n", pkg, "github.com/kandra-go/kandra/integration/testdata/"+run+"/"+pkg)
		fmt.Fprintf(&calls, "\troundTrip(ctx, d, %s.Keyspace, func(st *kstore.Store) []string {\n\t\tvar saved []string\n", pkg)
		if writeRows[ks] {
			for _, e := range im.Entities {
				fmt.Fprintf(&calls, "\t\tsaved = append(saved, save[%s.%s](ctx, st, %q))\n", pkg, e, e)
			}
		}
		calls.WriteString("\t\treturn saved\n\t})\n")
	}
	main := strings.Replace(strings.Replace(importMain, "\t// IMPORTS\n", imports.String(), 1), "\t// CALLS\n", calls.String(), 1)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.CommandContext(ctx, "go", "vet", "./"+dir+"/...").CombinedOutput(); err != nil {
		t.Fatalf("go vet of the generated code: %v\n%s", err, out)
	}
	cmd := exec.CommandContext(ctx, "go", "run", "./"+dir)
	cmd.Env = append(os.Environ(), "KANDRA_IMPORT_HOST="+serverHost(), fmt.Sprintf("KANDRA_IMPORT_PORT=%d", serverPort()))
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("running the generated program: %v\n%s\n%s", err, out, stderr)
	}
	results := map[string]importResult{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var r importResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("the generated program printed %q: %v", sc.Text(), err)
		}
		results[r.Keyspace] = r
	}
	importTally.Lock()
	defer importTally.Unlock()
	for _, ks := range keyspaces {
		r, ok := results[ks]
		switch {
		case !ok:
			t.Errorf("import of %s: the generated program reported nothing of it", ks)
		case r.Err != "":
			t.Errorf("import of %s: %s", ks, r.Err)
		case len(r.Steps) > 0:
			t.Errorf("import of %s: the generated entities plan %d steps against the keyspace they came from:\n%s", ks, len(r.Steps), r.Plan)
		}
		importTally.keyspaces++
		if ok && r.Err == "" && len(r.Steps) == 0 {
			importTally.zeroStep++
		}
		if ok && r.Converged {
			importTally.converged++
		} else if ok {
			t.Errorf("import of %s: Check fails after Apply", ks)
		}
	}
	summary("import", fmt.Sprintf("real-server: import keyspaces=%d zero-step=%d converged=%d", importTally.keyspaces, importTally.zeroStep, importTally.converged))
	return results
}

// importMain is the generated program's main: for each keyspace, plan,
// apply, check and, when asked, save a row through each entity; one JSON
// line each.
const importMain = `package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/gocql/gocql"
	"github.com/google/uuid"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/kstore"
	"github.com/kandra-go/kandra/migrate"
	// IMPORTS
)

type result struct {
	Keyspace  string   ` + "`json:\"keyspace\"`" + `
	Steps     []string ` + "`json:\"steps\"`" + `
	Plan      string   ` + "`json:\"plan\"`" + `
	Converged bool     ` + "`json:\"converged\"`" + `
	Err       string   ` + "`json:\"err\"`" + `
	Saved     []string ` + "`json:\"saved\"`" + `
}

func main() {
	c := gocql.NewCluster(net.JoinHostPort(os.Getenv("KANDRA_IMPORT_HOST"), os.Getenv("KANDRA_IMPORT_PORT")))
	c.ProtoVersion = 4
	c.DisableInitialHostLookup = true
	c.Consistency = gocql.One
	c.Timeout, c.ConnectTimeout = 30*time.Second, 30*time.Second
	s, err := c.CreateSession()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer s.Close()
	d := kgocql.New(s)
	ctx := context.Background()
	// CALLS
}

func roundTrip(ctx context.Context, d *kgocql.Driver, keyspace func() (*kandra.Keyspace, error), rows func(*kstore.Store) []string) {
	var r result
	defer func() {
		b, _ := json.Marshal(r)
		fmt.Println(string(b))
	}()
	ks, err := keyspace()
	if err != nil {
		r.Err = "Keyspace(): " + err.Error()
		return
	}
	r.Keyspace = ks.Name()
	p, err := migrate.PlanFor(ctx, d, ks)
	if err != nil {
		r.Err = "PlanFor: " + err.Error()
		return
	}
	for _, s := range p.Steps {
		r.Steps = append(r.Steps, s.ID)
	}
	r.Plan = p.String()
	if _, err := migrate.Apply(ctx, d, ks, migrate.ApplyOptions{}); err != nil {
		r.Err = "Apply: " + err.Error()
		return
	}
	if err := migrate.Check(ctx, d, ks); err != nil {
		r.Err = "Check: " + err.Error()
		return
	}
	r.Converged = true
	st, err := kstore.New(d, ks)
	if err != nil {
		r.Err = "kstore.New: " + err.Error()
		return
	}
	for _, s := range rows(st) {
		if strings.HasPrefix(s, "error: ") {
			r.Err = s
			return
		}
		r.Saved = append(r.Saved, s)
	}
}

// save saves one row of T filled by fill, and names it; a counter table
// takes no Save and is left out.
func save[T any](ctx context.Context, st *kstore.Store, name string) string {
	tab, ok := kandra.TableOf[T]()
	if !ok {
		return "error: " + name + " is not registered"
	}
	if tab.Schema().IsCounterTable() {
		return name + " (counter table, not saved)"
	}
	repo, err := kstore.NewRepo(st, tab)
	if err != nil {
		return "error: kstore.NewRepo of " + name + ": " + err.Error()
	}
	var v T
	fill(reflect.ValueOf(&v).Elem())
	if err := repo.Save(ctx, &v); err != nil {
		return "error: Save of " + name + ": " + err.Error()
	}
	return name
}

// The values fill gives every field, which the test's reads expect.
var (
	fillUUID = uuid.MustParse("8a1b3c4d-1234-11f0-8000-0242ac120002")
	fillTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
)

func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("v")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.Type() == reflect.TypeFor[time.Duration]() {
			v.SetInt(int64(time.Second))
			return
		}
		v.SetInt(7)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[net.IP]() {
			v.Set(reflect.ValueOf(net.ParseIP("127.0.0.1")))
			return
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte{1, 2, 3})
			return
		}
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e)
		v.Set(reflect.Append(reflect.MakeSlice(v.Type(), 0, 1), e))
	case reflect.Map:
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(e)
		m := reflect.MakeMap(v.Type())
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Array:
		switch {
		case v.Type() == reflect.TypeFor[uuid.UUID]():
			v.Set(reflect.ValueOf(fillUUID))
		case v.Type().Elem().Kind() == reflect.Float32:
			for i := range v.Len() {
				v.Index(i).SetFloat(0.5)
			}
		default:
			for i := range v.Len() {
				fill(v.Index(i))
			}
		}
	case reflect.Struct:
		switch v.Type() {
		case reflect.TypeFor[time.Time]():
			v.Set(reflect.ValueOf(fillTime))
			return
		case reflect.TypeFor[netip.Addr]():
			v.Set(reflect.ValueOf(netip.MustParseAddr("127.0.0.1")))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	}
}
`
