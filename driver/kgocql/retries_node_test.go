package kgocql_test

import (
	"context"
	"net"
	"testing"
	"time"

	gocql "github.com/gocql/gocql"
	"github.com/kandra-go/kandra/adapter/adaptertest"
	"github.com/kandra-go/kandra/driver/kgocql"
)

// retryHere retries a failed statement on the same host, up to NumRetries
// times, whatever the statement: the retry gocql v1.7.0 makes with the
// stock SimpleRetryPolicy, which on one node has no next host to go to.
type retryHere struct{ NumRetries int }

func (p retryHere) Attempt(q gocql.RetryableQuery) bool { return q.Attempts() <= p.NumRetries }
func (retryHere) GetRetryType(error) gocql.RetryType    { return gocql.Retry }

// TestRetries: issue 33's finding 1 through this adapter, with the node's
// answers held past the client timeout by a proxy on loopback and a
// session retry policy (adaptertest.RunRetries).
func TestRetries(t *testing.T) {
	direct := session(t)
	p := adaptertest.StartProxy(t, net.JoinHostPort(envOr("KANDRA_CASSANDRA_HOST", "127.0.0.1"), envOr("KANDRA_CASSANDRA_PORT", "9042")))
	cl := gocql.NewCluster("127.0.0.1")
	cl.Port = p.Port()
	cl.ProtoVersion = 4
	cl.DisableInitialHostLookup = true
	cl.Consistency = gocql.One
	cl.Timeout, cl.ConnectTimeout = adaptertest.RetryTimeout, 15*time.Second
	cl.NumConns = 1
	cl.RetryPolicy = retryHere{NumRetries: 3}
	cl.Logger = quiet{}
	s, err := cl.CreateSession()
	if err != nil {
		t.Fatalf("real-server test cannot run: session through the proxy: %v", err)
	}
	t.Cleanup(s.Close)
	adaptertest.RunRetries(t, adaptertest.RetryNode{
		Name:   "gocql",
		Proxy:  p,
		Driver: kgocql.New(s),
		Direct: kgocql.New(direct),
		Exec: func(ctx context.Context, cql string, args ...any) error {
			return direct.Query(cql, args...).WithContext(ctx).Exec()
		},
		Scan: func(ctx context.Context, cql string, args []any, dest ...any) error {
			return direct.Query(cql, args...).WithContext(ctx).Scan(dest...)
		},
	})
}
