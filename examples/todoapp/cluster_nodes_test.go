package main

// Helpers of the 3-node cluster tests (cluster_test.go): sessions bound to
// one node, what each node says about the schema, the nodes' data
// directories, and the applier processes.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	gocql "github.com/gocql/gocql"
)

// The cluster of scripts/cassandra.sh start --cluster: node i on 127.0.0.i.
var clusterHosts = []string{"127.0.0.1", "127.0.0.2", "127.0.0.3"}

func clusterPort() int {
	p, err := strconv.Atoi(envOr("KANDRA_CASSANDRA_PORT", "9042"))
	if err != nil {
		return 9042
	}
	return p
}

// requireCluster skips unless KANDRA_CASSANDRA_CLUSTER=1, and then fails
// (KANDRA_REQUIRE_CASSANDRA=1) or skips when a node does not answer.
func requireCluster(t *testing.T) {
	t.Helper()
	if os.Getenv("KANDRA_CASSANDRA_CLUSTER") != "1" {
		t.Skip("skipping cluster test: set KANDRA_CASSANDRA_CLUSTER=1 and start the cluster with scripts/cassandra.sh start --cluster")
	}
	for _, h := range clusterHosts {
		addr := net.JoinHostPort(h, strconv.Itoa(clusterPort()))
		c, err := net.DialTimeout("tcp", addr, 3*time.Second)
		if err != nil {
			msg := fmt.Sprintf("no cluster node on %s; start the cluster with scripts/cassandra.sh start --cluster", addr)
			if os.Getenv("KANDRA_REQUIRE_CASSANDRA") == "1" {
				t.Fatal("cluster test cannot run: " + msg)
			}
			t.Skip("skipping cluster test: " + msg)
		}
		_ = c.Close()
	}
}

type quietLogger struct{}

func (quietLogger) Print(...any)          {}
func (quietLogger) Printf(string, ...any) {}
func (quietLogger) Println(...any)        {}

// hostSession opens a session whose every statement goes to host: the
// driver learns the ring, and a filter keeps the other nodes out of its
// pool. Node status and topology events are off: the session has no use
// for them, and with DisableInitialHostLookup instead of the filter, the
// ring refresh that node 3's return triggers left a session to node 1
// with "no hosts available in the pool" for minutes. The driver waits up
// to agreement for schema agreement after each schema statement (and
// fails the statement when it times out).
func hostSession(host string, agreement time.Duration) (*gocql.Session, error) {
	cl := gocql.NewCluster(host)
	cl.Port = clusterPort()
	cl.ProtoVersion = 4
	cl.HostFilter = gocql.WhiteListHostFilter(host)
	cl.Events.DisableNodeStatusEvents, cl.Events.DisableTopologyEvents = true, true
	cl.Consistency = gocql.LocalQuorum
	cl.Timeout, cl.ConnectTimeout, cl.WriteTimeout = 60*time.Second, 10*time.Second, 60*time.Second
	cl.MaxWaitSchemaAgreement = agreement
	cl.NumConns = 1
	cl.ReconnectInterval = time.Second // a restarted node is back in the pool at once
	cl.Logger = quietLogger{}
	s, err := cl.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("session to %s:%d: %w", host, cl.Port, err)
	}
	return s, nil
}

// nodeView is what one node reports about schema versions: its own, and
// the last it heard from each peer (system.peers keeps a down peer's).
type nodeView struct {
	Host  string
	Local string
	Peers map[string]string
}

func (v nodeView) String() string {
	peers := make([]string, 0, len(v.Peers))
	for p, sv := range v.Peers {
		peers = append(peers, p+"="+short(sv))
	}
	sort.Strings(peers)
	return fmt.Sprintf("%s: local=%s peers[%s]", v.Host, short(v.Local), strings.Join(peers, " "))
}

func short(v string) string {
	if len(v) > 8 {
		return v[:8]
	}
	return v
}

func schemaView(ctx context.Context, host string, s *gocql.Session) (nodeView, error) {
	v := nodeView{Host: host, Peers: map[string]string{}}
	var local gocql.UUID
	if err := s.Query("SELECT schema_version FROM system.local WHERE key = 'local'").WithContext(ctx).
		Consistency(gocql.One).Scan(&local); err != nil {
		return v, fmt.Errorf("%s: system.local: %w", host, err)
	}
	v.Local = local.String()
	it := s.Query("SELECT peer, schema_version FROM system.peers").WithContext(ctx).Consistency(gocql.One).Iter()
	var peer net.IP
	var sv gocql.UUID
	for it.Scan(&peer, &sv) {
		v.Peers[peer.String()] = sv.String()
	}
	if err := it.Close(); err != nil {
		return v, fmt.Errorf("%s: system.peers: %w", host, err)
	}
	return v, nil
}

// agreed reports whether the views show one version only, over the hosts
// that are asked (others, such as a stopped node, are left out of both the
// views and the peers).
func agreed(views []nodeView, hosts []string) bool {
	seen := map[string]bool{}
	for _, v := range views {
		seen[v.Local] = true
		for p, sv := range v.Peers {
			if slices.Contains(hosts, p) {
				seen[sv] = true
			}
		}
		if len(v.Peers) < len(hosts)-1 {
			return false
		}
	}
	return len(seen) == 1
}

// awaitAgreement polls each host until all of them report one schema
// version, for themselves and for each other, or within expires.
func awaitAgreement(ctx context.Context, sessions map[string]*gocql.Session, hosts []string, within time.Duration) (time.Duration, []nodeView, error) {
	start := time.Now()
	var views []nodeView
	for {
		views = views[:0]
		var err error
		for _, h := range hosts {
			var v nodeView
			if v, err = schemaView(ctx, h, sessions[h]); err != nil {
				break
			}
			views = append(views, v)
		}
		if err == nil && agreed(views, hosts) {
			return time.Since(start), views, nil
		}
		if time.Since(start) > within {
			if err != nil {
				return time.Since(start), views, err
			}
			return time.Since(start), views, fmt.Errorf("no schema agreement among %v after %s: %v", hosts, within, views)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// tableIDs is the id of each table of ks in system_schema.tables on the
// node the session talks to.
func tableIDs(ctx context.Context, s *gocql.Session, ks string) (map[string]string, error) {
	it := s.Query("SELECT table_name, id FROM system_schema.tables WHERE keyspace_name = ?", ks).
		WithContext(ctx).Consistency(gocql.One).Iter()
	out := map[string]string{}
	var name string
	var id gocql.UUID
	for it.Scan(&name, &id) {
		out[name] = id.String()
	}
	return out, it.Close()
}

// dataDirIDs lists, per table of ks, the table ids that node has a data
// directory for (<table>-<id without dashes>): a node that created a table
// under one id and then learnt another keeps both. It returns nil when
// KANDRA_CASSANDRA_HOME (default: the script's) does not hold that node's
// files.
func dataDirIDs(node int, ks string) (map[string][]string, error) {
	home := os.Getenv("KANDRA_CASSANDRA_HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil, nil
		}
		home = filepath.Join(h, ".cache", "kandra-cassandra")
	}
	dir := filepath.Join(home, fmt.Sprintf("node%d", node), "run", "data", ks)
	if _, err := os.Stat(filepath.Dir(dir)); err != nil {
		return nil, nil
	}
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return map[string][]string{}, nil
	} else if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, e := range ents {
		i := strings.LastIndexByte(e.Name(), '-')
		if !e.IsDir() || i < 0 || len(e.Name())-i-1 != 32 {
			continue
		}
		h := e.Name()[i+1:]
		id := h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
		out[e.Name()[:i]] = append(out[e.Name()[:i]], id)
	}
	return out, nil
}

// idReport compares the table ids of ks across the nodes: in
// system_schema.tables of each node and in each node's data directories.
// It returns one line per table that is not the same single id everywhere,
// and the ids, by table, as node 1 has them.
func idReport(ctx context.Context, sessions map[string]*gocql.Session, hosts []string, ks string) (problems []string, ids map[string]string, err error) {
	byNode := map[string]map[string]string{}
	tables := map[string]bool{}
	for _, h := range hosts {
		m, err := tableIDs(ctx, sessions[h], ks)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: system_schema.tables: %w", h, err)
		}
		byNode[h] = m
		for t := range m {
			tables[t] = true
		}
	}
	ids = byNode[hosts[0]]
	for _, t := range slices.Sorted(maps.Keys(tables)) {
		var seen []string
		var where []string
		for i, h := range hosts {
			id, ok := byNode[h][t]
			if !ok {
				where = append(where, h+": no such table")
				continue
			}
			if !slices.Contains(seen, id) {
				seen = append(seen, id)
			}
			where = append(where, h+"="+short(id))
			dirs, err := dataDirIDs(nodeOf(h, i), ks)
			if err != nil {
				return nil, nil, err
			}
			if dirs != nil {
				for _, d := range dirs[t] {
					if d != id {
						where = append(where, fmt.Sprintf("%s has a data directory for id %s", h, short(d)))
						if !slices.Contains(seen, d) {
							seen = append(seen, d)
						}
					}
				}
				if len(dirs[t]) == 0 {
					where = append(where, h+" has no data directory")
				}
			}
		}
		if len(seen) != 1 || len(where) != len(hosts) {
			problems = append(problems, fmt.Sprintf("%s.%s: %d ids (%s)", ks, t, len(seen), strings.Join(where, ", ")))
		}
	}
	return problems, ids, nil
}

// nodeOf is the node number of host 127.0.0.N.
func nodeOf(host string, fallback int) int {
	if n, err := strconv.Atoi(host[strings.LastIndexByte(host, '.')+1:]); err == nil {
		return n
	}
	return fallback + 1
}

// clusterScript runs scripts/cassandra.sh with args (stop-node 3, ...).
func clusterScript(t *testing.T, args ...string) {
	t.Helper()
	start := time.Now()
	cmd := exec.Command(filepath.Join("..", "..", "scripts", "cassandra.sh"), args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/cassandra.sh %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("scripts/cassandra.sh %s (%s): %s", strings.Join(args, " "), time.Since(start).Round(100*time.Millisecond), bytes.TrimSpace(out))
}

func randomSuffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// The applier processes: the test binary run again with
// -test.run=^TestClusterApplierProcess$ and these variables.
const (
	envApplierHost    = "KANDRA_CLUSTER_APPLIER_HOST"    // the coordinator, 127.0.0.N
	envApplierKS      = "KANDRA_CLUSTER_APPLIER_KS"      // the keyspace name
	envApplierMode    = "KANDRA_CLUSTER_APPLIER_MODE"    // "migrate" or "plain"
	envApplierVariant = "KANDRA_CLUSTER_APPLIER_VARIANT" // "base" or "more" (the keyspace value)
	envApplierBarrier = "KANDRA_CLUSTER_APPLIER_BARRIER" // a directory: ready-<n> files, then go
	envApplierIndex   = "KANDRA_CLUSTER_APPLIER_INDEX"
	resultPrefix      = "cluster-applier-result: "
)

// applierResult is what an applier process reports on its stdout.
type applierResult struct {
	Index     int
	Host      string
	Mode      string
	Started   time.Time // when it left the barrier
	Elapsed   time.Duration
	Err       string   // Apply's error, or the plain statements' errors
	Applied   []string // step IDs this applier ran (migrate)
	Recorded  bool     // it wrote the history record (migrate)
	PlanSteps int      // steps in the plan it found once it held the lease
	Events    []string // lease and step events, briefly
}

// runAppliers starts n applier processes, the i-th coordinated by
// hosts[i%len(hosts)], waits until each is connected and at the barrier,
// releases them at once and returns what each reported.
func runAppliers(t *testing.T, n int, hosts []string, ks, mode, variant string) []applierResult {
	t.Helper()
	barrier := t.TempDir()
	type proc struct {
		cmd *exec.Cmd
		out *bytes.Buffer
	}
	procs := make([]proc, n)
	for i := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestClusterApplierProcess$", "-test.v", "-test.timeout=5m")
		cmd.Env = append(os.Environ(),
			envApplierHost+"="+hosts[i%len(hosts)], envApplierKS+"="+ks, envApplierMode+"="+mode,
			envApplierVariant+"="+variant, envApplierBarrier+"="+barrier, envApplierIndex+"="+strconv.Itoa(i))
		out := &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatalf("applier %d: %v", i, err)
		}
		procs[i] = proc{cmd, out}
	}
	done := make(chan error, n)
	for i := range procs {
		go func(p proc) { done <- p.cmd.Wait() }(procs[i])
	}
	// Everyone connected and waiting, then go: they leave within a
	// millisecond of each other (they poll for the file every 200µs).
	deadline := time.Now().Add(2 * time.Minute)
	for {
		ready, _ := filepath.Glob(filepath.Join(barrier, "ready-*"))
		if len(ready) == n {
			break
		}
		if time.Now().After(deadline) {
			for _, p := range procs {
				_ = p.cmd.Process.Kill()
			}
			t.Fatalf("only %d of %d appliers reached the barrier in 2m", len(ready), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := os.WriteFile(filepath.Join(barrier, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for range procs {
		<-done
	}
	results := make([]applierResult, n)
	for i, p := range procs {
		var found bool
		sc := bufio.NewScanner(bytes.NewReader(p.out.Bytes()))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if line, ok := strings.CutPrefix(sc.Text(), resultPrefix); ok {
				if err := json.Unmarshal([]byte(line), &results[i]); err != nil {
					t.Fatalf("applier %d: %v in %q", i, err, line)
				}
				found = true
			}
		}
		if !found || !p.cmd.ProcessState.Success() {
			t.Fatalf("applier %d (%s) failed (%v):\n%s", i, hosts[i%len(hosts)], p.cmd.ProcessState, p.out.Bytes())
		}
	}
	return results
}

// waitBarrier says this applier is ready, then waits for the go file.
func waitBarrier(t *testing.T, dir string, index string) time.Time {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "ready-"+index), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go")); err == nil {
			return time.Now()
		}
		if time.Now().After(deadline) {
			t.Fatal("no go from the parent test in 3m")
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// startSpread is the time between the first and the last applier leaving
// the barrier.
func startSpread(rs []applierResult) time.Duration {
	lo, hi := rs[0].Started, rs[0].Started
	for _, r := range rs {
		if r.Started.Before(lo) {
			lo = r.Started
		}
		if r.Started.After(hi) {
			hi = r.Started
		}
	}
	return hi.Sub(lo)
}
