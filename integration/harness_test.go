package integration

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/kandra-go/kandra"
)

// Environment:
//
//	KANDRA_CASSANDRA_HOST     node address (default 127.0.0.1)
//	KANDRA_CASSANDRA_PORT     CQL port (default 9042)
//	KANDRA_REQUIRE_CASSANDRA  1 = a missing or unusable node fails the tests instead of skipping them
//	KANDRA_CASSANDRA_AUTH     1 = the node runs PasswordAuthenticator (scripts/cassandra.sh start --auth):
//	                          only the Auth tests run, every other test skips
//	KANDRA_CASSANDRA_LATEST   1 = the node runs the settings of cassandra_latest.yaml
//	                          (scripts/cassandra.sh start --latest): keyspaces target
//	                          kandra.Cassandra5Latest, and the latest-only demonstrations run
const startHint = "start one with: scripts/cassandra.sh start (start --latest with KANDRA_CASSANDRA_LATEST=1 for the cassandra_latest.yaml run; start --auth with KANDRA_CASSANDRA_AUTH=1 for the Auth tests)"

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func envTrue(name string) bool {
	v := strings.ToLower(os.Getenv(name))
	return v == "1" || v == "true" || v == "yes"
}

func serverHost() string { return envOr("KANDRA_CASSANDRA_HOST", "127.0.0.1") }

func serverPort() int {
	p, err := strconv.Atoi(envOr("KANDRA_CASSANDRA_PORT", "9042"))
	if err != nil {
		return 9042
	}
	return p
}

func requireServer() bool { return envTrue("KANDRA_REQUIRE_CASSANDRA") }
func authMode() bool      { return envTrue("KANDRA_CASSANDRA_AUTH") }
func latestMode() bool    { return envTrue("KANDRA_CASSANDRA_LATEST") }

// serverTarget is the kandra target the node is: Cassandra 5.0 with its
// default cassandra.yaml, or with the settings of cassandra_latest.yaml.
// Every keyspace of the suite targets exactly the node it runs on.
func serverTarget() kandra.Target {
	if latestMode() {
		return kandra.Cassandra5Latest
	}
	return kandra.Cassandra5
}

// otherTarget is the Cassandra configuration the node is not.
func otherTarget() kandra.Target {
	if latestMode() {
		return kandra.Cassandra5
	}
	return kandra.Cassandra5Latest
}

// nodeDC is the datacenter of a node started by scripts/cassandra.sh
// (SimpleSnitch); session checks it. Test keyspaces replicate once there
// with NetworkTopologyStrategy, which every target accepts.
const nodeDC = "datacenter1"

func testReplication() kandra.Replication {
	return kandra.NetworkTopologyStrategy(map[string]int{nodeDC: 1})
}

// keyspaceSpec is the spec of every keyspace the suite creates: one
// replica in the node's datacenter, the node's target.
func keyspaceSpec(name string) kandra.KeyspaceSpec {
	return kandra.KeyspaceSpec{Name: name, Replication: testReplication(), Targets: serverTarget()}
}

// The superuser scripts/cassandra.sh creates in auth mode.
const (
	superUser = "cassandra"
	superPass = "cassandra"
)

// newCluster is the one place the gocql configuration lives: protocol 4
// (gocql v1.7.0 cannot speak v5 to Cassandra 5.0), no peer discovery (one
// node), consistency ONE (RF 1), generous timeouts because schema changes on
// a 2-core machine are slow.
func newCluster() *gocql.ClusterConfig {
	c := gocql.NewCluster(serverHost())
	c.Port = serverPort()
	c.ProtoVersion = 4
	c.DisableInitialHostLookup = true
	c.Consistency = gocql.One
	c.Timeout = 15 * time.Second
	c.ConnectTimeout = 15 * time.Second
	c.WriteTimeout = 15 * time.Second
	c.MaxWaitSchemaAgreement = 60 * time.Second
	c.NumConns = 2
	c.ReconnectInterval = 0
	c.Logger = quietLogger{}
	return c
}

// quietLogger drops gocql's own log lines (reconnect chatter); errors
// reach the tests through return values.
type quietLogger struct{}

func (quietLogger) Print(...any)          {}
func (quietLogger) Printf(string, ...any) {}
func (quietLogger) Println(...any)        {}

// ---------------------------------------------------------------------------
// Reaching the node.

var (
	serverOnce    sync.Once
	serverSession *gocql.Session
	serverErr     error
	serverVersion string
)

// tcpReachable tells "nothing listens" apart from "something listens but
// gocql cannot use it", which is never a reason to skip.
func tcpReachable() bool {
	c, err := net.DialTimeout("tcp", net.JoinHostPort(serverHost(), strconv.Itoa(serverPort())), 3*time.Second)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}

// session returns the shared session for the non-auth tests, skipping (or
// failing, with KANDRA_REQUIRE_CASSANDRA=1) when there is no node.
func session(t testing.TB) *gocql.Session {
	t.Helper()
	if authMode() {
		t.Skip("KANDRA_CASSANDRA_AUTH=1: the node runs with PasswordAuthenticator, so only the Auth tests run; start a node without --auth for this test")
	}
	serverOnce.Do(func() {
		addr := net.JoinHostPort(serverHost(), strconv.Itoa(serverPort()))
		if !tcpReachable() {
			serverErr = fmt.Errorf("no Cassandra node answers on %s (KANDRA_CASSANDRA_HOST/KANDRA_CASSANDRA_PORT); %s", addr, startHint)
			return
		}
		var err error
		for attempt := 0; attempt < 3; attempt++ {
			serverSession, err = newCluster().CreateSession()
			if err == nil {
				break
			}
			time.Sleep(2 * time.Second)
		}
		if err != nil {
			serverErr = fmt.Errorf("a node listens on %s but gocql cannot open a session: %w (a node started with --auth needs KANDRA_CASSANDRA_AUTH=1)", addr, err)
			serverErrUsable = true
			return
		}
		var dc string
		if err := serverSession.Query("SELECT release_version, data_center FROM system.local").Scan(&serverVersion, &dc); err != nil {
			serverErr = fmt.Errorf("node on %s does not answer SELECT release_version: %w", addr, err)
			serverErrUsable = true
			return
		}
		if dc != nodeDC {
			serverErr = fmt.Errorf("node on %s is in datacenter %q; the suite's keyspaces replicate to %q (a node started by scripts/cassandra.sh)", addr, dc, nodeDC)
			serverErrUsable = true
			return
		}
		if err := checkConfig(serverSession); err != nil {
			serverErr = fmt.Errorf("node on %s: %w", addr, err)
			serverErrUsable = true
		}
	})
	if serverErr != nil {
		if requireServer() || serverErrUsable {
			t.Fatalf("real-server test cannot run: %v", serverErr)
		}
		t.Skipf("skipping real-server test: %v", serverErr)
	}
	return serverSession
}

// serverErrUsable marks a node that is there but unusable: that is a
// failure even without KANDRA_REQUIRE_CASSANDRA, not a reason to skip.
var serverErrUsable bool

// ---------------------------------------------------------------------------
// Summary lines: collected while the tests run, printed by TestMain after
// m.Run at column 0, so they are visible in `go test -v` output (and in
// non-verbose output when the package fails).

var (
	summaryMu    sync.Mutex
	summaryLines = map[string]string{}
)

var summaryOrder = []string{"config", "catalogue", "random", "rules", "values", "overrides", "ordering", "names", "type-names", "accepted", "todos", "frozen", "static", "table-options", "auth", "import", "import-apps", "import-file", "beyond"}

func summary(part, line string) {
	summaryMu.Lock()
	defer summaryMu.Unlock()
	summaryLines[part] = line
}

// Open findings: what the node refuses and kandra does not prevent. A
// test that meets one records it here (so that one finding does not stop
// the test from showing the rest); TestMain prints them and the count, and
// fails the run when there is any (README.md, "Open findings"): CI does
// not tolerate one. When kandra refuses such a schema, the test that met
// it counts it as shown instead.
var (
	openMu       sync.Mutex
	openFindings = map[string][]string{}
)

func openFinding(key, detail string) {
	openMu.Lock()
	defer openMu.Unlock()
	openFindings[key] = append(openFindings[key], detail)
}

// printOpenFindings prints the open findings and their count, and
// returns the count.
func printOpenFindings() int {
	openMu.Lock()
	defer openMu.Unlock()
	if serverSession == nil {
		return 0
	}
	keys := make([]string, 0, len(openFindings))
	for k := range openFindings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	n := 0
	var parts []string
	for _, k := range keys {
		n += len(openFindings[k])
		parts = append(parts, fmt.Sprintf("%s=%d", k, len(openFindings[k])))
		for i, d := range openFindings[k] {
			if i == 3 {
				fmt.Printf("open finding %s: ... and %d more\n", k, len(openFindings[k])-3)
				break
			}
			fmt.Printf("open finding %s: %s\n", k, d)
		}
	}
	fmt.Printf("real-server: open-findings=%d %s\n", n, strings.Join(parts, " "))
	return n
}

func TestMain(m *testing.M) {
	code := m.Run()
	dropKeyspaces()
	summaryMu.Lock()
	for _, part := range summaryOrder {
		if l, ok := summaryLines[part]; ok {
			fmt.Println(l)
		}
	}
	summaryMu.Unlock()
	if n := printOpenFindings(); n > 0 && code == 0 {
		fmt.Printf("FAIL: %d open finding(s): the node refuses what kandra accepts; make the rule refuse it (README.md, \"Open findings\")\n", n)
		code = 1
	}
	if serverSession != nil {
		serverSession.Close()
	}
	os.Exit(code)
}

// ---------------------------------------------------------------------------
// Keyspaces and statements.

var runID = func() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}()

var (
	keyspacesMu sync.Mutex
	keyspaces   []string // created by this run, dropped by TestMain
)

// dropKeyspaces drops this run's keyspaces after the last test. Dropping
// costs ~80 ms per table on 2 cores and holds the node's schema lock, so it
// is done at the end rather than while other tests change the schema, on a
// session with a long timeout. KANDRA_KEEP_KEYSPACES=1 keeps them for a
// look with cqlsh.
func dropKeyspaces() {
	if serverSession == nil || len(keyspaces) == 0 {
		return
	}
	if envTrue("KANDRA_KEEP_KEYSPACES") {
		fmt.Fprintf(os.Stderr, "KANDRA_KEEP_KEYSPACES: keeping %s\n", strings.Join(keyspaces, ", "))
		return
	}
	c := newCluster()
	c.Timeout = 180 * time.Second
	s, err := c.CreateSession()
	if err != nil {
		fmt.Fprintf(os.Stderr, "dropping keyspaces: %v\n", err)
		return
	}
	defer s.Close()
	for _, ks := range keyspaces {
		if err := execDDL(s, "DROP KEYSPACE IF EXISTS "+kandra.QuoteIdent(ks)); err != nil {
			fmt.Fprintf(os.Stderr, "dropping keyspace %s: %v\n", ks, err)
		}
	}
}

// keyspaceName is this run's keyspace for a part of the suite:
// kandra_it_<run>_<part>. trackKeyspace has TestMain drop it after the
// last test.
func keyspaceName(part string) string { return "kandra_it_" + runID + "_" + part }

func trackKeyspace(ks string) {
	keyspacesMu.Lock()
	keyspaces = append(keyspaces, ks)
	keyspacesMu.Unlock()
}

// newKeyspace creates an empty keyspace for a part with
// kandra.CreateKeyspace, for tests that send hand-written DDL into it.
func newKeyspace(t testing.TB, s *gocql.Session, part string) string {
	t.Helper()
	ks := keyspaceName(part)
	stmt, err := specKeyspace(keyspaceSpec(ks))
	if err != nil {
		t.Fatalf("CreateKeyspace(%q): %v", ks, err)
	}
	if err := execDDL(s, stmt); err != nil {
		t.Fatalf("%s\n-> %v", stmt, err)
	}
	trackKeyspace(ks)
	return ks
}

// buildKeyspace puts tables into the part's keyspace with
// kandra.NewKeyspace, which checks the keyspace rules (a name used once,
// what the node's target refuses).
func buildKeyspace(t testing.TB, part string, tables ...kandra.SchemaSource) *kandra.Keyspace {
	t.Helper()
	k, err := kandra.NewKeyspace(keyspaceSpec(keyspaceName(part)), tables...)
	if err != nil {
		t.Fatalf("NewKeyspace(%s): %v", part, err)
	}
	return k
}

// createKeyspace sends k.Statements() as they come: CREATE KEYSPACE, then
// every table, every lookup table, every index. Nothing inside one of
// those groups depends on another statement of the group, so with
// workers > 1 a group is sent concurrently (schema changes are the slow
// part); the groups themselves stay in order, so the server gets nothing
// before what Statements says it depends on. It returns the first error
// per table of k.Tables() (nil: all of its statements were accepted) and
// fails t when CREATE KEYSPACE is rejected or Statements is not that
// order of what the keyspace's single-statement writers render.
func createKeyspace(t testing.TB, s *gocql.Session, k *kandra.Keyspace, workers int) []error {
	t.Helper()
	tables := k.Tables()
	// Per group, each statement Statements must return there and the
	// table (index in tables) it belongs to.
	type group struct {
		want   []string
		owners []int
	}
	groups := make([]group, 3)
	for i, ts := range tables {
		groups[0].want = append(groups[0].want, mustStmt(t, "CreateTable", ts.Name())(k.CreateTable(ts)))
		groups[0].owners = append(groups[0].owners, i)
		for _, l := range ts.LookupTables() {
			groups[1].want = append(groups[1].want, mustStmt(t, "CreateLookupTable", l.Name())(k.CreateLookupTable(l)))
			groups[1].owners = append(groups[1].owners, i)
		}
		for _, c := range ts.SecondaryIndexes() {
			groups[2].want = append(groups[2].want, mustStmt(t, "CreateIndex", ts.Name()+"."+c.Name())(k.CreateIndex(ts, c)))
			groups[2].owners = append(groups[2].owners, i)
		}
	}
	want := []string{k.CreateKeyspace()}
	// The types, one at a time: each after the types it holds.
	var types []string
	for _, u := range k.Types() {
		stmt, ok := k.CreateType(u.Name())
		if !ok {
			t.Fatalf("Types() of %s lists %s, which CreateType does not know", k.Name(), u.Name())
		}
		types = append(types, stmt)
	}
	want = append(want, types...)
	for _, g := range groups {
		want = append(want, g.want...)
	}
	stmts := k.Statements()
	if !slices.Equal(stmts, want) {
		t.Fatalf("Statements() of %s is not CREATE KEYSPACE, the types, the tables, the lookup tables, the indexes:\n%s\nwant:\n%s", k.Name(), strings.Join(stmts, "\n"), strings.Join(want, "\n"))
	}
	if err := execDDL(s, stmts[0]); err != nil {
		t.Fatalf("%s\n-> %v", stmts[0], err)
	}
	trackKeyspace(k.Name())
	errs := make([]error, len(tables))
	for i, stmt := range types {
		if err := execDDL(s, stmt); err != nil {
			// Every table holding the type fails with it.
			name := k.Types()[i].Name()
			for j, ts := range tables {
				for _, c := range ts.Columns() {
					if errs[j] == nil && strings.Contains(strings.ToLower(c.Decl()), strings.ToLower(kandra.QuoteTypeName(name))) {
						errs[j] = fmt.Errorf("%s\n-> %w", stmt, err)
					}
				}
			}
		}
	}
	var mu sync.Mutex
	for _, g := range groups {
		work := make(chan int)
		var wg sync.WaitGroup
		for w := 0; w < max(workers, 1); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range work {
					if err := execDDL(s, g.want[i]); err != nil {
						mu.Lock()
						if errs[g.owners[i]] == nil {
							errs[g.owners[i]] = fmt.Errorf("%s\n-> %w", g.want[i], err)
						}
						mu.Unlock()
					}
				}
			}()
		}
		for i := range g.want {
			work <- i
		}
		close(work)
		wg.Wait()
	}
	return errs
}

// execDDL runs one schema statement. A client-side timeout is retried: the
// statements are IF [NOT] EXISTS, and on 2 cores a slow schema change can
// outlast the timeout while still succeeding.
func execDDL(s *gocql.Session, stmt string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		err = s.Query(stmt).Exec()
		if err == nil || !isTimeout(err) {
			return err
		}
		time.Sleep(time.Second)
	}
	return err
}

func isTimeout(err error) bool {
	if errors.Is(err, gocql.ErrTimeoutNoResponse) {
		return true
	}
	var rt *gocql.RequestErrWriteTimeout
	if errors.As(err, &rt) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "timeout") || strings.Contains(msg, "Timeout") || strings.Contains(msg, "timed out")
}

// mustStmt unwraps a keyspace DDL writer's result, failing t on an error:
// mustStmt(t, "CreateTable", name)(k.CreateTable(ts)).
func mustStmt(t testing.TB, writer, what string) func(string, error) string {
	return func(stmt string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatalf("Keyspace.%s(%s): %v", writer, what, err)
		}
		return stmt
	}
}

// qualified is keyspace.table as written in CQL.
func qualified(ks, cqlTable string) string { return kandra.QuoteIdent(ks) + "." + cqlTable }

// ---------------------------------------------------------------------------
// Comparing system_schema with a registered schema.

type sysColumn struct {
	kind     string
	position int
	order    string
	typ      string
}

// normType turns kandra's rendering of a CQL type into the server's:
// lower case, VARCHAR is TEXT, and the type names kandra quotes that the
// server does not (kandra.QuoteTypeName quotes words no type name may be
// bare; system_schema quotes the reserved ones only).
func normType(s string) string {
	s = strings.ToLower(s)
	s = replaceWord(s, "varchar", "text")
	for _, w := range []string{"ttl", "count", "writetime", "maxwritetime", "cast", "json", "distinct"} {
		s = strings.ReplaceAll(s, `"`+w+`"`, w)
	}
	return s
}

func replaceWord(s, old, repl string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], old) && (i == 0 || !isWordByte(s[i-1])) &&
			(i+len(old) == len(s) || !isWordByte(s[i+len(old)])) {
			b.WriteString(repl)
			i += len(old)
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func readColumns(s *gocql.Session, ks, table string) (map[string]sysColumn, error) {
	iter := s.Query(`SELECT column_name, kind, position, clustering_order, type FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?`, ks, table).Iter()
	out := map[string]sysColumn{}
	var name string
	var c sysColumn
	for iter.Scan(&name, &c.kind, &c.position, &c.order, &c.typ) {
		out[name] = c
	}
	return out, iter.Close()
}

// readTable returns default_time_to_live and gc_grace_seconds; found is
// false when the table does not exist.
func readTable(s *gocql.Session, ks, table string) (ttl, gc int, found bool, err error) {
	iter := s.Query(`SELECT default_time_to_live, gc_grace_seconds FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?`, ks, table).Iter()
	found = iter.Scan(&ttl, &gc)
	return ttl, gc, found, iter.Close()
}

// readIndexes maps index name to its options' target.
func readIndexes(s *gocql.Session, ks, table string) (map[string]string, error) {
	all, err := readIndexOptions(s, ks, table)
	out := map[string]string{}
	for name, opts := range all {
		out[name] = opts["target"]
	}
	return out, err
}

// readIndexOptions maps index name to its options (target, class_name,
// the analysis options).
func readIndexOptions(s *gocql.Session, ks, table string) (map[string]map[string]string, error) {
	iter := s.Query(`SELECT index_name, options FROM system_schema.indexes WHERE keyspace_name = ? AND table_name = ?`, ks, table).Iter()
	out := map[string]map[string]string{}
	var name string
	var opts map[string]string
	for iter.Scan(&name, &opts) {
		out[name] = opts
		opts = nil
	}
	return out, iter.Close()
}

// indexKindProblem says how a live index's options differ from the kind
// and analysis kandra asked for, or "": an SAI index is a custom one of
// class sai with the analysis options as given, a legacy one has no class,
// and a default one is whatever the server's default made.
func indexKindProblem(c *kandra.ColumnSchema, opts map[string]string) string {
	spec, _ := c.Index()
	class := opts["class_name"]
	switch spec.Kind {
	case kandra.IndexSAI:
		if class != "sai" && !strings.HasSuffix(class, "StorageAttachedIndex") {
			return fmt.Sprintf("class_name %q, want an SAI class", class)
		}
	case kandra.IndexLegacy:
		if class != "" {
			return fmt.Sprintf("class_name %q, want none (a legacy index)", class)
		}
	}
	for k, v := range spec.AnalysisOptions() {
		if !strings.EqualFold(opts[k], v) {
			return fmt.Sprintf("option %s = %q, want %q", k, opts[k], v)
		}
	}
	return ""
}

const serverDefaultGCGrace = 864000

// expectedColumn is what system_schema.columns must say about one column.
func expectedColumn(kind string, pos int, order string, cqlType string) sysColumn {
	return sysColumn{kind: kind, position: pos, order: order, typ: normType(cqlType)}
}

func primaryExpectation(ts *kandra.TableSchema) map[string]sysColumn {
	want := map[string]sysColumn{}
	for _, c := range ts.Columns() {
		switch c.Role() {
		case kandra.PartitionKeyColumn:
			want[c.Name()] = expectedColumn("partition_key", indexIn(ts.PartitionKeys(), c), "none", c.Decl())
		case kandra.ClusteringKeyColumn:
			want[c.Name()] = expectedColumn("clustering", indexIn(ts.ClusteringKeys(), c), strings.ToLower(c.ClusteringOrder().String()), c.Decl())
		case kandra.RegularColumn:
			kind := "regular"
			if c.IsStatic() {
				kind = "static"
			}
			want[c.Name()] = expectedColumn(kind, -1, "none", c.Decl())
		}
	}
	return want
}

// lookupExpectation: the indexed column is the lookup table's partition
// key (frozen if a collection); the primary key's other columns are
// regular columns of a unique lookup and the clustering columns, in key
// order, ascending, of a non-unique one (a lookup on a key column lists it
// once, as the key).
func lookupExpectation(l *kandra.LookupTableSchema) map[string]sysColumn {
	want := map[string]sysColumn{}
	cols := l.Columns()
	if cols[0] != l.IndexColumn() {
		want["(Columns()[0] is not the index column)"] = sysColumn{}
	}
	want[cols[0].Name()] = expectedColumn("partition_key", 0, "none", cols[0].Type().Frozen())
	for i, c := range cols[1:] {
		if l.IsUnique() {
			want[c.Name()] = expectedColumn("regular", -1, "none", c.Decl())
		} else {
			want[c.Name()] = expectedColumn("clustering", i, "asc", c.Decl())
		}
	}
	if l.IsUnique() {
		want[kandra.ClaimColumn] = expectedColumn("regular", -1, "none", "BIGINT")
	}
	return want
}

func indexIn(cols []*kandra.ColumnSchema, c *kandra.ColumnSchema) int {
	for i, x := range cols {
		if x == c {
			return i
		}
	}
	return -2
}

// indexTarget is the target system_schema.indexes records for kandra's
// index on c: full(col) for a frozen collection (a collection in a key),
// values(col) for a non-frozen collection (what a bare column means for
// one), the column otherwise. Names are compared unquoted.
func indexTarget(c *kandra.ColumnSchema) string {
	spec, _ := c.Index()
	if spec.Target == kandra.IndexTargetColumn {
		return c.Name()
	}
	return spec.Target.String() + "(" + c.Name() + ")"
}

// unquoteTarget turns the server's target (`"Mixed"`, `full("a""b")`) into
// the raw names form (`Mixed`, `full(a"b)`).
func unquoteTarget(s string) string {
	fn, arg := "", s
	if i := strings.IndexByte(s, '('); i > 0 && strings.HasSuffix(s, ")") && !strings.HasPrefix(s, `"`) {
		fn, arg = s[:i+1], s[i+1:len(s)-1]
	}
	if len(arg) >= 2 && arg[0] == '"' && arg[len(arg)-1] == '"' {
		arg = strings.ReplaceAll(arg[1:len(arg)-1], `""`, `"`)
	}
	if fn != "" {
		return fn + arg + ")"
	}
	return arg
}

// compareSchema lists every difference between system_schema and the
// registered schema ts (primary table, lookup tables, indexes) in ks.
func compareSchema(s *gocql.Session, ks string, ts *kandra.TableSchema) ([]string, error) {
	var diffs []string
	check := func(table string, want map[string]sysColumn, ttl, gc int) error {
		gotTTL, gotGC, found, err := readTable(s, ks, table)
		if err != nil {
			return err
		}
		if !found {
			diffs = append(diffs, fmt.Sprintf("%s: table missing from system_schema.tables", table))
			return nil
		}
		if gotTTL != ttl {
			diffs = append(diffs, fmt.Sprintf("%s: default_time_to_live = %d, want %d", table, gotTTL, ttl))
		}
		if gotGC != gc {
			diffs = append(diffs, fmt.Sprintf("%s: gc_grace_seconds = %d, want %d", table, gotGC, gc))
		}
		got, err := readColumns(s, ks, table)
		if err != nil {
			return err
		}
		names := make([]string, 0, len(want))
		for n := range want {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			g, ok := got[n]
			if !ok {
				diffs = append(diffs, fmt.Sprintf("%s: column %q missing", table, n))
				continue
			}
			if g != want[n] {
				diffs = append(diffs, fmt.Sprintf("%s: column %q is %+v, want %+v", table, n, g, want[n]))
			}
		}
		for n := range got {
			if _, ok := want[n]; !ok {
				diffs = append(diffs, fmt.Sprintf("%s: unexpected column %q %+v", table, n, got[n]))
			}
		}
		return nil
	}
	ttlD, _ := ts.DefaultTTL()
	ttl, gc := int(ttlD/time.Second), serverDefaultGCGrace
	if g, ok := ts.GCGrace(); ok {
		gc = int(g / time.Second)
	}
	if err := check(ts.Name(), primaryExpectation(ts), ttl, gc); err != nil {
		return nil, err
	}
	for _, l := range ts.LookupTables() {
		if err := check(l.Name(), lookupExpectation(l), 0, serverDefaultGCGrace); err != nil {
			return nil, err
		}
	}
	all, err := readIndexOptions(s, ks, ts.Name())
	if err != nil {
		return nil, err
	}
	got := map[string]string{}
	for n, opts := range all {
		got[n] = opts["target"]
	}
	want := map[string]string{}
	byName := map[string]*kandra.ColumnSchema{}
	for _, c := range ts.SecondaryIndexes() {
		want[ts.IndexName(c)], byName[ts.IndexName(c)] = indexTarget(c), c
	}
	for n, target := range want {
		g, ok := got[n]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s: index %q missing", ts.Name(), n))
		case unquoteTarget(g) != target:
			diffs = append(diffs, fmt.Sprintf("%s: index %q target %q, want %q", ts.Name(), n, g, target))
		default:
			if p := indexKindProblem(byName[n], all[n]); p != "" {
				diffs = append(diffs, fmt.Sprintf("%s: index %q: %s", ts.Name(), n, p))
			}
		}
	}
	for n, g := range got {
		if _, ok := want[n]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: unexpected index %q on %q", ts.Name(), n, g))
		}
	}
	return diffs, nil
}

// columnList renders the columns' CQL names, comma-separated.
func columnList(cols []*kandra.ColumnSchema) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.CQLName()
	}
	return strings.Join(names, ", ")
}

// insertStmt and selectStmt are built from Schema().Columns(): no
// hand-listed columns anywhere in the suite.
func insertStmt(ks string, ts *kandra.TableSchema) string {
	cols := ts.Columns()
	return "INSERT INTO " + qualified(ks, ts.CQLName()) + " (" + columnList(cols) + ") VALUES (" +
		strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
}

func selectStmt(ks string, ts *kandra.TableSchema) string {
	pk := ts.PrimaryKey()
	where := make([]string, len(pk))
	for i, c := range pk {
		where[i] = c.CQLName() + " = ?"
	}
	return "SELECT " + columnList(ts.Columns()) + " FROM " + qualified(ks, ts.CQLName()) + " WHERE " + strings.Join(where, " AND ")
}

// specKeyspace renders the CREATE KEYSPACE of a keyspace with no tables,
// which checks the rules that need none.
func specKeyspace(spec kandra.KeyspaceSpec) (string, error) {
	k, err := kandra.NewKeyspace(spec)
	if err != nil {
		return "", err
	}
	return k.CreateKeyspace(), nil
}
