package crossclient

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"os"
	"testing"
	"time"

	gocql2 "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/driver/kgocqlv2"
)

// Environment, as the rest of the integration module reads it:
//
//	KANDRA_CASSANDRA_HOST, KANDRA_CASSANDRA_PORT  the node (default 127.0.0.1:9042)
//	KANDRA_REQUIRE_CASSANDRA=1  a missing node or a missing KANDRA_PYTHON fails the test instead of skipping it
//	KANDRA_PYTHON               the Python with cassandra-driver 3.30.1 (KANDRA_PYTHON=$(bash scripts/pyclient.sh))
//	KANDRA_CASSANDRA_AUTH=1, KANDRA_CASSANDRA_LATEST=1  a node started with --auth or --latest: the test skips (it runs
//	                            on a default node, as the adapters' suites do)

var ctx = context.Background()

// node is an adapter's session on the node, as the scenario uses it.
type node struct {
	// Name goes into the keyspace name and the summary line.
	Name string
	// Exec runs one raw CQL statement (the scenario's DDL).
	Exec func(ctx context.Context, cql string, args ...any) error
}

// harness is one keyspace on the node and the adapter's driver.
type harness struct {
	n  node
	d  adapter.Driver
	ks string
}

// TestCrossClientValues runs the scenario through each adapter, on a
// keyspace of its own: TestCrossClientValues/gocql (gocql v1.7.0,
// protocol 4) and TestCrossClientValues/gocqlv2 (the Apache driver v2,
// protocol 5). Each prints "real-server: crossclient adapter=<name>
// client=python-cassandra-driver-3.30.1 checks=N ok=M client_limit=K
// patch=P".
func TestCrossClientValues(t *testing.T) {
	for _, mode := range []string{"KANDRA_CASSANDRA_AUTH", "KANDRA_CASSANDRA_LATEST"} {
		if v := os.Getenv(mode); v == "1" || v == "true" || v == "yes" {
			t.Skipf("%s is set: the cross-client values are proved on a node started with scripts/cassandra.sh start", mode)
		}
	}
	host, port := reachable(t)
	t.Run("gocql", func(t *testing.T) {
		c := gocql.NewCluster(host)
		fmt.Sscan(port, &c.Port)
		c.ProtoVersion = 4
		c.DisableInitialHostLookup = true
		c.Consistency = gocql.One
		c.Timeout, c.ConnectTimeout, c.WriteTimeout = 15*time.Second, 15*time.Second, 15*time.Second
		c.MaxWaitSchemaAgreement = 60 * time.Second
		c.NumConns = 2
		c.Logger = quiet{}
		s, err := c.CreateSession()
		if err != nil {
			t.Fatalf("real-server test cannot run: session: %v", err)
		}
		t.Cleanup(s.Close)
		run(t, kgocql.New(s), node{Name: "gocql", Exec: func(ctx context.Context, cql string, args ...any) error {
			return s.Query(cql, args...).WithContext(ctx).Exec()
		}})
	})
	t.Run("gocqlv2", func(t *testing.T) {
		c := gocql2.NewCluster(host)
		fmt.Sscan(port, &c.Port)
		c.ProtoVersion = 5
		c.DisableInitialHostLookup = true
		c.Consistency = gocql2.One
		c.Timeout, c.ConnectTimeout, c.WriteTimeout = 15*time.Second, 15*time.Second, 15*time.Second
		c.MaxWaitSchemaAgreement = 60 * time.Second
		c.NumConns = 2
		c.Logger = gocql2.NewLogger(gocql2.LogLevelNone)
		s, err := c.CreateSession()
		if err != nil {
			t.Fatalf("real-server test cannot run: session: %v", err)
		}
		t.Cleanup(s.Close)
		run(t, kgocqlv2.New(s), node{Name: "gocqlv2", Exec: func(ctx context.Context, cql string, args ...any) error {
			return s.Query(cql, args...).ExecContext(ctx)
		}})
	})
}

// run creates the keyspace, runs the scenario through d and drops the
// keyspace.
func run(t *testing.T, d adapter.Driver, n node) {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	k, err := kandra.NewKeyspace(kandra.KeyspaceSpec{
		Name:        "kxc_" + n.Name + "_" + hex.EncodeToString(b),
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"datacenter1": 1}),
		Targets:     kandra.Cassandra5,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range k.Statements() {
		if err := n.Exec(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	t.Cleanup(func() { _ = n.Exec(context.Background(), "DROP KEYSPACE IF EXISTS "+k.Name()) })
	testCrossClient(t, &harness{n: n, d: d, ks: k.Name()})
}

// reachable returns the node's host and port, skipping (or failing, with
// KANDRA_REQUIRE_CASSANDRA=1) when nothing listens there.
func reachable(t *testing.T) (host, port string) {
	t.Helper()
	host, port = envOr("KANDRA_CASSANDRA_HOST", "127.0.0.1"), envOr("KANDRA_CASSANDRA_PORT", "9042")
	c, err := net.DialTimeout("tcp", net.JoinHostPort(host, port), 3*time.Second)
	if err != nil {
		msg := fmt.Sprintf("no Cassandra node on %s:%s; start one with scripts/cassandra.sh start", host, port)
		if os.Getenv("KANDRA_REQUIRE_CASSANDRA") == "1" {
			t.Fatal("real-server test cannot run: " + msg)
		}
		t.Skip("skipping real-server test: " + msg)
	}
	_ = c.Close()
	return host, port
}

// quiet drops gocql's own log lines (reconnect chatter).
type quiet struct{}

func (quiet) Print(...any)          {}
func (quiet) Printf(string, ...any) {}
func (quiet) Println(...any)        {}

// The named types of the special types CrossValues holds, which kandra
// maps as the special type and the adapters convert.
type (
	UserID uuid.UUID
	At     time.Time
	IPAddr netip.Addr
)
