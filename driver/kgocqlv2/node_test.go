package kgocqlv2_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/adapter/adaptertest"
	"github.com/kandra-go/kandra/driver/kgocqlv2"
)

// The conformance suite (adapter/adaptertest) through this adapter: the
// runtime's scenarios and the migrator's. It skips without a node on
// KANDRA_CASSANDRA_HOST:KANDRA_CASSANDRA_PORT (default 127.0.0.1:9042),
// unless KANDRA_REQUIRE_CASSANDRA=1.

func envOr(k, d string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return d
}

func session(t *testing.T) *gocql.Session {
	t.Helper()
	host, port := envOr("KANDRA_CASSANDRA_HOST", "127.0.0.1"), envOr("KANDRA_CASSANDRA_PORT", "9042")
	c, err := net.DialTimeout("tcp", net.JoinHostPort(host, port), 3*time.Second)
	if err != nil {
		msg := fmt.Sprintf("no Cassandra node on %s:%s; start one with scripts/cassandra.sh start", host, port)
		if os.Getenv("KANDRA_REQUIRE_CASSANDRA") == "1" {
			t.Fatal("real-server test cannot run: " + msg)
		}
		t.Skip("skipping real-server test: " + msg)
	}
	_ = c.Close()
	cl := gocql.NewCluster(host)
	fmt.Sscan(port, &cl.Port)
	cl.ProtoVersion = 5
	cl.DisableInitialHostLookup = true
	cl.Consistency = gocql.One
	cl.Timeout, cl.ConnectTimeout, cl.WriteTimeout = 15*time.Second, 15*time.Second, 15*time.Second
	cl.MaxWaitSchemaAgreement = 60 * time.Second
	cl.NumConns = 2
	cl.Logger = gocql.NewLogger(gocql.LogLevelNone)
	s, err := cl.CreateSession()
	if err != nil {
		t.Fatalf("real-server test cannot run: session: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestNode runs adaptertest.Run: TestNode/Runtime/... on one session,
// TestNode/Migrator/... on a session per scenario.
func TestNode(t *testing.T) {
	adaptertest.Run(t, node(session(t)))
}

// node is the node of session s, for the conformance suites.
func node(s *gocql.Session) adaptertest.Node {
	return adaptertest.Node{
		Name: "gocqlv2",
		Open: func(t *testing.T) (adapter.Driver, func()) {
			fresh := session(t)
			return kgocqlv2.New(fresh), fresh.Close
		},
		Exec: func(ctx context.Context, cql string, args ...any) error {
			return s.Query(cql, args...).ExecContext(ctx)
		},
		Scan: func(ctx context.Context, cql string, args []any, dest ...any) error {
			return s.Query(cql, args...).ScanContext(ctx, dest...)
		},
	}
}
