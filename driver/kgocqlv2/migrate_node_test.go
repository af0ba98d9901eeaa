package kgocqlv2_test

import (
	"testing"

	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/driver/kgocqlv2"
	"github.com/kandra-go/kandra/migrate/migratetest"
)

// The migrator's real-server suite (migrate/migratetest) through this
// adapter, one session per scenario; it skips as TestNode does.
func TestMigratorNode(t *testing.T) {
	migratetest.Run(t, migratetest.Node{
		Name: "gocqlv2",
		Open: func(t *testing.T) (adapter.Driver, func()) {
			s := session(t)
			return kgocqlv2.New(s), s.Close
		},
	})
}
