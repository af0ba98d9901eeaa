package kgocql_test

import (
	"testing"

	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/migrate/migratetest"
)

// The migrator's real-server suite (migrate/migratetest) through this
// adapter, one session per scenario; it skips as TestNode does.
func TestMigratorNode(t *testing.T) {
	migratetest.Run(t, migratetest.Node{
		Name: "gocql",
		Open: func(t *testing.T) (adapter.Driver, func()) {
			s := session(t)
			return kgocql.New(s), s.Close
		},
	})
}
