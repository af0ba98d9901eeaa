package kgocql_test

import (
	"fmt"
	"testing"
	"time"

	gocql "github.com/gocql/gocql"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter/adaptertest"
	"github.com/kandra-go/kandra/auth"
	"github.com/kandra-go/kandra/driver/kgocql"
)

// The adapter's authenticator on a node started with
// `scripts/cassandra.sh start --auth`: adaptertest.RunAuth, through
// sessions of gocql v1.7.0. It runs only when KANDRA_CASSANDRA_AUTH=1.
func TestAuthNode(t *testing.T) {
	adaptertest.RunAuth(t, adaptertest.AuthNode{Name: "gocql", Login: authLogin})
}

// authLogin builds one authenticator and opens sessions through it.
func authLogin(p auth.Provider, l kandra.EventListener) func() (adaptertest.AuthSession, error) {
	af := kgocql.Authenticator(p, l)
	return func() (adaptertest.AuthSession, error) {
		cl := gocql.NewCluster(envOr("KANDRA_CASSANDRA_HOST", "127.0.0.1"))
		fmt.Sscan(envOr("KANDRA_CASSANDRA_PORT", "9042"), &cl.Port)
		cl.ProtoVersion = 4
		cl.DisableInitialHostLookup = true
		cl.Consistency = gocql.One
		cl.Timeout, cl.ConnectTimeout = 15*time.Second, 15*time.Second
		cl.NumConns = 1
		cl.Logger = quiet{}
		cl.AuthProvider = af
		s, err := cl.CreateSession()
		if err != nil {
			return nil, err
		}
		var v string
		if err := s.Query("SELECT release_version FROM system.local").Scan(&v); err != nil {
			s.Close()
			return nil, err
		}
		return authSession{s}, nil
	}
}

// authSession is a gocql session as adaptertest.RunAuth uses it.
type authSession struct{ *gocql.Session }

func (s authSession) Exec(cql string) error { return s.Query(cql).Exec() }
