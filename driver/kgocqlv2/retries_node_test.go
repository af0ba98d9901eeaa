package kgocqlv2_test

import (
	"context"
	"net"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/kandra-go/kandra/adapter/adaptertest"
	"github.com/kandra-go/kandra/driver/kgocqlv2"
)

// retryHere retries a failed statement on the same host, up to NumRetries
// times: the retry the driver makes of an idempotent statement with the
// stock SimpleRetryPolicy, which on one node has no next host to go to.
type retryHere struct{ NumRetries int }

func (p retryHere) Attempt(q gocql.RetryableQuery) bool { return q.Attempts() <= p.NumRetries }
func (retryHere) GetRetryType(error) gocql.RetryType    { return gocql.Retry }

// TestRetries: issue 33's finding 1 through this adapter, with the node's
// answers held past the client timeout by a proxy on loopback, a session
// retry policy and every statement idempotent by default
// (adaptertest.RunRetries).
func TestRetries(t *testing.T) {
	direct := session(t)
	p := adaptertest.StartProxy(t, net.JoinHostPort(envOr("KANDRA_CASSANDRA_HOST", "127.0.0.1"), envOr("KANDRA_CASSANDRA_PORT", "9042")))
	cl := gocql.NewCluster("127.0.0.1")
	cl.Port = p.Port()
	cl.ProtoVersion = 5
	cl.DisableInitialHostLookup = true
	cl.Consistency = gocql.One
	cl.Timeout, cl.ConnectTimeout = adaptertest.RetryTimeout, 15*time.Second
	cl.NumConns = 1
	cl.RetryPolicy = retryHere{NumRetries: 3}
	cl.DefaultIdempotence = true
	cl.Logger = gocql.NewLogger(gocql.LogLevelNone)
	s, err := cl.CreateSession()
	if err != nil {
		t.Fatalf("real-server test cannot run: session through the proxy: %v", err)
	}
	t.Cleanup(s.Close)
	adaptertest.RunRetries(t, adaptertest.RetryNode{
		Name:   "gocqlv2",
		Proxy:  p,
		Driver: kgocqlv2.New(s),
		Direct: kgocqlv2.New(direct),
		Exec: func(ctx context.Context, cql string, args ...any) error {
			return direct.Query(cql, args...).ExecContext(ctx)
		},
		Scan: func(ctx context.Context, cql string, args []any, dest ...any) error {
			return direct.Query(cql, args...).ScanContext(ctx, dest...)
		},
	})
}
