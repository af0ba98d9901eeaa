package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/migrate"
)

// FuzzRun feeds arbitrary argument lists (split on NUL) to Run: it must
// never panic, must answer with one of the four statuses, and a usage
// error must explain itself on stderr without touching the server.
func FuzzRun(f *testing.F) {
	for _, s := range []string{"", "plan", "plan\x00--cql", "validate", "apply\x00--approve\x00a,b\x00--lease-ttl\x0010s",
		"apply\x00--approve=all\x00--owner\x00x", "backfill\x00accounts_by_email\x00--ranges\x002", "history", "-h",
		"apply\x00--approve\x00,", "backfill\x00--\x00accounts_by_email", "plan\x00-cql=false\x00x", "apply\x00--page-size\x00-3"} {
		f.Add(s)
	}
	plan := &migrate.Plan{Keyspace: "shop", Steps: []migrate.Step{stepTable, stepBackfill}}
	f.Fuzz(func(t *testing.T, s string) {
		var args []string
		if s != "" {
			args = strings.Split(s, "\x00")
		}
		called := false
		be := backend{
			planFor: func(context.Context, adapter.Driver, *kandra.Keyspace) (*migrate.Plan, error) {
				called = true
				return plan, nil
			},
			apply: func(_ context.Context, _ adapter.Driver, _ *kandra.Keyspace, o migrate.ApplyOptions) (*migrate.Result, error) {
				called = true
				return &migrate.Result{Plan: plan, Applied: plan.Steps[:1], Unapproved: plan.Steps[1:]}, nil
			},
			backfill: func(_ context.Context, _ adapter.Driver, _ *kandra.Keyspace, l *kandra.LookupTableSchema, o migrate.BackfillOptions) (*migrate.BackfillResult, error) {
				called = true
				o.OnProgress(migrate.BackfillProgress{Lookup: l.Name(), Ranges: o.Ranges, RangesDone: o.Ranges})
				return &migrate.BackfillResult{Lookup: l.Name(), Verified: true}, nil
			},
			history: func(context.Context, adapter.Driver, *kandra.Keyspace) ([]migrate.HistoryRecord, error) {
				called = true
				return nil, nil
			},
		}
		r := runWith(t, &fakeDriver{}, be, false, args...)
		switch r.code {
		case ExitOK, ExitDifferences, ExitError:
		case ExitUsage:
			if called || r.stderr == "" || r.stdout != "" {
				t.Fatalf("%q: usage error: called=%v %+v", args, called, r)
			}
		default:
			t.Fatalf("%q: exit %d", args, r.code)
		}
	})
}
