package migrate

import "github.com/kandra-go/kandra"

// Validate checks, without changing anything, that the live keyspace is
// what the model ks describes: it returns nil when NewPlan's plan is
// empty, and otherwise the plan's *kerrors.MigrationError, which lists
// every difference (see Plan.Err), a lookup table whose backfill
// live.PendingBackfills records as pending among them. On the Live that
// Read returned it is Check. Use it for a fail-fast start-up and in CI.
func Validate(ks *kandra.Keyspace, live *Live) error {
	p, err := NewPlan(ks, live)
	if err != nil {
		return err
	}
	return p.Err()
}
