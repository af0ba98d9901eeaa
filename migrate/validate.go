package migrate

import "github.com/kandra-go/kandra"

// Validate checks, without changing anything, that the live keyspace is
// what the model ks describes: it returns nil when the plan is empty, and
// otherwise the plan's *kerrors.MigrationError, which lists every
// difference (see Plan.Err). Use it for a fail-fast start-up and in CI.
func Validate(ks *kandra.Keyspace, live *Live) error {
	p, err := NewPlan(ks, live)
	if err != nil {
		return err
	}
	return p.Err()
}
