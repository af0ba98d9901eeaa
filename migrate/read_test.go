package migrate

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kandra-go/kandra/kerrors"
)

// TestReadCarriesPendingBackfills: the Live that Read returns records the
// backfills kandra_backfill records as pending, so that NewPlan and
// Validate on it report a pending backfill as PlanFor and Check do: the
// same Live gives the same plan.
func TestReadCarriesPendingBackfills(t *testing.T) {
	f := backfillFake(t, 10)
	ks := applyKS(t, applyUsersV2)
	ctx := context.Background()
	f.bfStatus["users_by_email"] = "pending"
	f.bfStatus["users_by_old"] = "pending" // no lookup table of the model: not planned
	f.bfStatus["users_by_done"] = "done"

	live, err := Read(ctx, f, ks)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"users_by_email", "users_by_old"}; !slices.Equal(live.PendingBackfills, want) {
		t.Fatalf("Live.PendingBackfills = %q, want %q", live.PendingBackfills, want)
	}

	const bf = "backfill:users_by_email"
	offline, err := NewPlan(ks, live)
	if err != nil || ids2(offline.Steps) != bf || offline.Steps[0].Class != NeedsApproval || offline.Steps[0].Lookup != ks.LookupTable("users_by_email") {
		t.Fatalf("NewPlan: %+v, %v", offline, err)
	}
	online, err := PlanFor(ctx, f, ks)
	if err != nil {
		t.Fatal(err)
	}
	if offline.Hash() != online.Hash() || offline.String() != online.String() {
		t.Fatalf("NewPlan on Read's Live differs from PlanFor:\n%s\n%s", offline, online)
	}

	verr, cerr := Validate(ks, live), Check(ctx, f, ks)
	for name, err := range map[string]error{"Validate": verr, "Check": cerr} {
		if !errors.Is(err, kerrors.ErrMigration) || !strings.Contains(err.Error(), "users_by_email is not backfilled") ||
			!strings.Contains(err.Error(), bf) || strings.Contains(err.Error(), "users_by_old") {
			t.Errorf("%s = %v", name, err)
		}
	}
	if verr == nil || cerr == nil || verr.Error() != cerr.Error() {
		t.Errorf("Validate and Check differ:\n%v\n%v", verr, cerr)
	}

	// Once the backfill is done, neither plans it.
	f.bfStatus["users_by_email"] = "done"
	if live, err = Read(ctx, f, ks); err != nil {
		t.Fatal(err)
	}
	if p, err := NewPlan(ks, live); err != nil || !p.Empty() {
		t.Fatalf("NewPlan after the backfill: %+v, %v", p, err)
	}
	if err := Validate(ks, live); err != nil {
		t.Fatal(err)
	}
	if err := Check(ctx, f, ks); err != nil {
		t.Fatal(err)
	}
}

// TestNewPlanPendingBackfillOfAMissingLookupTable: a pending backfill is
// planned only for a lookup table that exists live; one the plan creates
// gets its backfill from the create step's planning, once.
func TestNewPlanPendingBackfillOfAMissingLookupTable(t *testing.T) {
	f := backfillFake(t, 10)
	ks := applyKS(t, applyUsersV2)
	live, err := Read(context.Background(), f, ks)
	if err != nil {
		t.Fatal(err)
	}
	delete(live.Keyspace.Tables, "users_by_email")
	live.PendingBackfills = []string{"users_by_email"}
	p, err := NewPlan(ks, live)
	if err != nil || ids2(p.Steps) != "create-lookup-table:users_by_email,backfill:users_by_email" {
		t.Fatalf("plan %s, %v", ids2(p.Steps), err)
	}
}
