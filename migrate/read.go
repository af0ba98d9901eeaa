package migrate

import (
	"context"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
)

// Read reads the live schema of ks's keyspace through d (system_schema)
// and models it. A keyspace that does not exist is a Live with a nil
// Keyspace, not an error.
func Read(ctx context.Context, ad adapter.Driver, ks *kandra.Keyspace) (*Live, error) {
	d := wrap(ad)
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
	return live, nil
}

// readLive reads and models the live schema of the keyspace named
// keyspace: the adapter hook's rows (Driver.SchemaRows) through
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

// PlanFor reads the live schema of ks's keyspace and plans the difference
// (NewPlan). It also plans the backfill of every lookup table an earlier
// Apply created without its (unapproved) backfill, which the live schema
// alone cannot show: kandra_backfill records them as pending.
func PlanFor(ctx context.Context, ad adapter.Driver, ks *kandra.Keyspace) (*Plan, error) {
	d := wrap(ad)
	live, err := Read(ctx, d, ks)
	if err != nil {
		return nil, err
	}
	return planChecked(ctx, d, ks, live)
}

// planOn is PlanFor on the server s, read already.
func planOn(ctx context.Context, d driver, ks *kandra.Keyspace, s Server) (*Plan, error) {
	live, err := readOn(ctx, d, ks, s)
	if err != nil {
		return nil, err
	}
	return planChecked(ctx, d, ks, live)
}

// planChecked plans live after checking that the keyspace's rules were
// checked for its server (checkServer).
func planChecked(ctx context.Context, d driver, ks *kandra.Keyspace, live *Live) (*Plan, error) {
	if err := checkServer(ks, live); err != nil {
		return nil, err
	}
	return planLive(ctx, d, ks, live)
}

func planLive(ctx context.Context, d driver, ks *kandra.Keyspace, live *Live) (*Plan, error) {
	p, err := NewPlan(ks, live)
	if err != nil {
		return nil, err
	}
	pending, err := pendingBackfills(ctx, d, ks, live)
	if err != nil {
		return nil, err
	}
	for _, l := range pending {
		if planned(p, backfillID(l.Name())) {
			continue
		}
		p.Steps = append(p.Steps, backfillStep(l, "the lookup table was created by an earlier apply whose backfill was not approved; kandra_backfill records it as pending"))
	}
	return p, nil
}

// Check reads the live schema of ks's keyspace and compares it with ks
// without changing anything (Validate). A lookup table whose backfill is
// still pending is a difference too: it exists but misses the rows
// written before it.
func Check(ctx context.Context, ad adapter.Driver, ks *kandra.Keyspace) error {
	d := wrap(ad)
	live, err := Read(ctx, d, ks)
	if err != nil {
		return err
	}
	if err := Validate(ks, live); err != nil {
		return err
	}
	pending, err := pendingBackfills(ctx, d, ks, live)
	if err != nil {
		return err
	}
	if len(pending) > 0 {
		msg := "keyspace " + ks.Name() + ": "
		for i, l := range pending {
			if i > 0 {
				msg += "; "
			}
			msg += "lookup table " + l.Name() + " is not backfilled (apply --approve " + backfillID(l.Name()) + ", or backfill " + l.Name() + ")"
		}
		return &kerrors.MigrationError{Message: msg}
	}
	return nil
}

func planned(p *Plan, id string) bool {
	for _, s := range p.Steps {
		if s.ID == id {
			return true
		}
	}
	return false
}

func backfillID(lookupTable string) string { return "backfill:" + lookupTable }

func backfillStep(l *kandra.LookupTableSchema, reason string) Step {
	return Step{ID: backfillID(l.Name()), Class: NeedsApproval, Kind: BackfillLookup, Table: l.Name(),
		Reason: reason, Lookup: l}
}
