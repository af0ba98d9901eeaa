package integration

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/google/uuid"
)

// cqlStatements splits a schema file into its statements as a schema
// tool runs them: at each ";", dropping the pieces that hold only
// comments and blank lines.
func cqlStatements(text string) []string {
	var out []string
	for _, piece := range strings.Split(text, ";") {
		code := false
		for _, line := range strings.Split(piece, "\n") {
			l := strings.TrimSpace(line)
			if l != "" && !strings.HasPrefix(l, "--") && !strings.HasPrefix(l, "//") {
				code = true
			}
		}
		if code {
			out = append(out, strings.TrimSpace(piece))
		}
	}
	return out
}

// The values the import program's fill writes, as the applications bind
// them (integration/import_test.go's importMain).
var (
	fillUUID = uuid.MustParse("8a1b3c4d-1234-11f0-8000-0242ac120002")
	fillTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
)

// TestImportApps: two public applications' published schema files
// (testdata/apps/README.md names them and their commits) applied to the
// node statement by statement, as their tools apply them; each keyspace
// imported, the generated entities compiled, planned (no step), applied
// and checked (converged); a row saved through every generated entity;
// and the applications' own read statements (verbatim from their sources,
// as jaeger_test.go and temporal_test.go quote them) read those rows back.
func TestImportApps(t *testing.T) {
	s := session(t)
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
				// A statement the node refuses is the application's own
				// problem on Cassandra 5.0; its table is then not there
				// to import, and the test says so.
				t.Logf("%s: the node refuses the application's statement (left out):\n%s\n-> %v", ks, stmt, err)
			}
		}
	}
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	temporal := keyspaceName("imp_temporal")
	trackKeyspace(temporal)
	if err := execDDL(s, fmt.Sprintf("CREATE KEYSPACE IF NOT EXISTS %s WITH replication = {'class': 'NetworkTopologyStrategy', '%s': 1}", temporal, nodeDC)); err != nil {
		t.Fatal(err)
	}
	apply(temporal, cqlStatements(read("testdata/apps/temporal/schema.cql")), true)

	jaeger := keyspaceName("imp_jaeger")
	trackKeyspace(jaeger)
	tmpl := strings.NewReplacer("${keyspace}", jaeger, "${replication}", fmt.Sprintf("{'class': 'NetworkTopologyStrategy', '%s': '1'}", nodeDC),
		"${trace_ttl}", "172800", "${dependencies_ttl}", "0").Replace(read("testdata/apps/jaeger/v004.cql.tmpl"))
	apply(jaeger, cqlStatements(tmpl), false)

	results := importRoundTrip(t, s, []string{temporal, jaeger}, map[string]bool{temporal: true, jaeger: true})
	for _, ks := range []string{temporal, jaeger} {
		t.Logf("%s: rows saved through %s", ks, strings.Join(results[ks].Saved, ", "))
	}

	// The applications' statements read the rows back.
	session := func(ks string) *gocql.Session {
		c := newCluster()
		c.Keyspace = ks
		as, err := c.CreateSession()
		if err != nil {
			t.Fatalf("a session on %s: %v", ks, err)
		}
		t.Cleanup(as.Close)
		return as
	}
	reads := 0
	ts := session(temporal)
	var shard []byte
	var enc string
	if err := ts.Query(tcqlGetShardQuery, int32(7), int32(7), gocql.UUID(fillUUID), "v", gocql.UUID(fillUUID), fillTime, int64(7)).Scan(&shard, &enc); err != nil {
		t.Errorf("Temporal's GetShard query on the row saved through the generated Executions: %v", err)
	} else if !slices.Equal(shard, []byte{1, 2, 3}) || enc != "v" {
		t.Errorf("Temporal's GetShard query reads shard %v, encoding %q; want [1 2 3], \"v\"", shard, enc)
	} else {
		reads++
	}

	js := session(jaeger)
	n, operation, spanID, dur := 0, "", int64(0), int64(0)
	// logs (list<frozen<log>>) and process (frozen<process>) hold types
	// whose collection fields Jaeger declares without FROZEN: the import
	// declares them, and fill's row holds one log of one field and a
	// process of one tag.
	var logs, process string
	it := js.Query(jcqlQuerySpanByTraceID, []byte{1, 2, 3}).Iter()
	for row := map[string]any{}; it.MapScan(row); row = map[string]any{} {
		n++
		operation, _ = row["operation_name"].(string)
		spanID, _ = row["span_id"].(int64)
		dur, _ = row["duration"].(int64)
		logs, process = fmt.Sprint(row["logs"]), fmt.Sprint(row["process"])
	}
	const wantLogs = "[map[fields:[map[key:v value_binary:[1 2 3] value_bool:true value_double:0.5 value_long:7 value_string:v value_type:v]] ts:7]]"
	const wantProcess = "map[service_name:v tags:[map[key:v value_binary:[1 2 3] value_bool:true value_double:0.5 value_long:7 value_string:v value_type:v]]]"
	if err := it.Close(); err != nil || n != 1 || operation != "v" || spanID != 7 || dur != 7 || logs != wantLogs || process != wantProcess {
		t.Errorf("Jaeger's querySpanByTraceID on the span saved through the generated Traces: %d rows, operation %q, span %d, duration %d, logs %s, process %s, %v", n, operation, spanID, dur, logs, process, err)
	} else {
		reads++
	}
	var names []string
	it = js.Query(jcqlQueryServiceNames).Iter()
	var name string
	for it.Scan(&name) {
		names = append(names, name)
	}
	if err := it.Close(); err != nil || !slices.Equal(names, []string{"v"}) {
		t.Errorf("Jaeger's queryServiceNames: %q, %v; want [v]", names, err)
	} else {
		reads++
	}
	var kind, op string
	if err := js.Query(jcqlQueryOperationsByKind, "v", "v").Scan(&kind, &op); err != nil || kind != "v" || op != "v" {
		t.Errorf("Jaeger's queryByKindStmt: %q %q, %v", kind, op, err)
	} else {
		reads++
	}
	summary("import-apps", fmt.Sprintf("real-server: import-apps apps=2 keyspaces=temporal@0b71548,jaeger@3969321 statements-read-back=%d", reads))
	if reads != 4 {
		t.Errorf("%d of 4 application statements read the rows back", reads)
	}
}
