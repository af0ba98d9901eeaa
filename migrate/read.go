package migrate

import (
	"context"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
)

// Read reads the live schema of ks's keyspace through d (system_schema)
// and models it, with the backfills the keyspace's kandra_backfill table
// records as pending (Live.PendingBackfills), so that NewPlan and Validate
// see from the Live what PlanFor and Check see. A keyspace that does not
// exist is a Live with a nil Keyspace, not an error.
func Read(ctx context.Context, d adapter.Driver, ks *kandra.Keyspace) (*Live, error) {
	return readWith(ctx, wrap(d), ks)
}

// readWith is Read on the migrator's driver.
func readWith(ctx context.Context, d driver, ks *kandra.Keyspace) (*Live, error) {
	if ks == nil {
		return nil, &kerrors.MigrationError{Message: "Read: nil *kandra.Keyspace; build the model with kandra.NewKeyspace"}
	}
	s, err := readServer(ctx, d)
	if err != nil {
		return nil, err
	}
	return readOn(ctx, d, ks, s)
}

// readOn is Read on the server s, read already: the server an Apply talks
// to does not change while it waits and applies.
func readOn(ctx context.Context, d driver, ks *kandra.Keyspace, s Server) (*Live, error) {
	live, err := readLive(ctx, d, ks.Name())
	if err != nil {
		return nil, err
	}
	live.Server = s
	if live.Keyspace != nil && s.IsScylla() {
		if live.Keyspace.Tablets, err = readTablets(ctx, d, ks.Name()); err != nil {
			return nil, err
		}
	}
	if live.PendingBackfills, err = pendingBackfills(ctx, d, ks.Name(), live); err != nil {
		return nil, err
	}
	return live, nil
}

// readLive reads and models the live schema of the keyspace named
// keyspace: its system_schema rows (session.SchemaRows) through
// liveFromRows.
func readLive(ctx context.Context, d driver, keyspace string) (*Live, error) {
	rows, err := d.SchemaRows(ctx, keyspace)
	if err != nil {
		return nil, &kerrors.MigrationError{Message: "reading the live schema of keyspace " + keyspace + " from system_schema failed", Cause: err}
	}
	live, err := liveFromRows(keyspace, rows)
	if err != nil {
		return nil, &kerrors.MigrationError{Message: "modelling the live schema of keyspace " + keyspace + " failed", Cause: err}
	}
	return live, nil
}

// PlanFor reads the live schema of ks's keyspace (Read) and plans the
// difference (NewPlan), after checking that ks's rules were checked for
// the server it reads. The plan includes the backfill of every lookup
// table an earlier Apply created without its (unapproved) backfill, which
// kandra_backfill records as pending.
func PlanFor(ctx context.Context, d adapter.Driver, ks *kandra.Keyspace) (*Plan, error) {
	return planWith(ctx, wrap(d), ks)
}

// planWith is PlanFor on the migrator's driver.
func planWith(ctx context.Context, d driver, ks *kandra.Keyspace) (*Plan, error) {
	live, err := Read(ctx, d, ks)
	if err != nil {
		return nil, err
	}
	return planChecked(ks, live)
}

// planOn is PlanFor on the server s, read already.
func planOn(ctx context.Context, d driver, ks *kandra.Keyspace, s Server) (*Plan, error) {
	live, err := readOn(ctx, d, ks, s)
	if err != nil {
		return nil, err
	}
	return planChecked(ks, live)
}

// planChecked plans live after checking that the keyspace's rules were
// checked for its server (checkServer).
func planChecked(ks *kandra.Keyspace, live *Live) (*Plan, error) {
	if err := checkServer(ks, live); err != nil {
		return nil, err
	}
	return NewPlan(ks, live)
}

// Check reads the live schema of ks's keyspace (Read) and compares it
// with ks without changing anything (Validate). A lookup table whose
// backfill is still pending is a difference too: it exists but misses the
// rows written before it.
func Check(ctx context.Context, d adapter.Driver, ks *kandra.Keyspace) error {
	return checkWith(ctx, wrap(d), ks)
}

// checkWith is Check on the migrator's driver.
func checkWith(ctx context.Context, d driver, ks *kandra.Keyspace) error {
	live, err := Read(ctx, d, ks)
	if err != nil {
		return err
	}
	return Validate(ks, live)
}

func planned(p *Plan, id string) bool {
	for _, s := range p.Steps {
		if s.ID == id {
			return true
		}
	}
	return false
}
