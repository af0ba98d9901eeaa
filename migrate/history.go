package migrate

import (
	"context"
	"slices"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
)

// HistoryRecord is one row of kandra_schema_history: what one Apply ran.
type HistoryRecord struct {
	// PlanHash is Plan.Hash of the plan Apply ran (Result.Plan, made
	// under the lease): the hash PlanFor's plan has, and the migrator's
	// command line prints, when nothing changed in between. For a
	// keyspace that did not exist, that plan starts with its
	// create-keyspace step, which Apply runs before the lease (the lease
	// lives in the keyspace) and records all the same.
	PlanHash string
	// Steps are the IDs of the steps applied, in plan order: every step
	// of the plan but those left unapproved (which PlanHash covers too),
	// and, when Apply stopped with an error, those before the error.
	Steps []string
	// Owner is the lease owner that applied them.
	Owner string
	// AppliedAt is when the record was written (millisecond precision).
	AppliedAt time.Time
}

// writeHistory inserts r once (IF NOT EXISTS, so a retried insert of the
// same record leaves one row).
func writeHistory(ctx context.Context, d driver, keyspace string, r *HistoryRecord) error {
	_, err := d.ExecCQL(ctx, "INSERT INTO "+kandra.QuoteIdent(keyspace)+"."+HistoryTable+" (plan_hash, applied_at, steps, owner) VALUES (?, ?, ?, ?) IF NOT EXISTS",
		[]any{r.PlanHash, r.AppliedAt, r.Steps, r.Owner}, kandra.ConsistencyQuorum)
	if err != nil {
		return &kerrors.MigrationError{Message: "writing the history record of plan " + r.PlanHash + " to " + keyspace + "." + HistoryTable + " failed (the steps were applied)", Cause: err}
	}
	return nil
}

// History returns the records of the kandra_schema_history of ks's
// keyspace, oldest first; none when the table does not exist.
func History(ctx context.Context, d adapter.Driver, ks *kandra.Keyspace) ([]HistoryRecord, error) {
	return historyOf(ctx, wrap(d), ks)
}

// historyOf is History on the migrator's driver.
func historyOf(ctx context.Context, d driver, ks *kandra.Keyspace) ([]HistoryRecord, error) {
	if ks == nil {
		return nil, &kerrors.MigrationError{Message: "History: nil *kandra.Keyspace; build the model with kandra.NewKeyspace"}
	}
	keyspace := ks.Name()
	live, err := readLive(ctx, d, keyspace)
	if err != nil {
		return nil, err
	}
	if live.Table(HistoryTable) == nil {
		return nil, nil
	}
	rows, err := d.QueryCQL(ctx, "SELECT plan_hash, applied_at, steps, owner FROM "+kandra.QuoteIdent(keyspace)+"."+HistoryTable, nil, kandra.ConsistencyQuorum)
	if err != nil {
		return nil, &kerrors.MigrationError{Message: "reading " + keyspace + "." + HistoryTable + " failed", Cause: err}
	}
	out := make([]HistoryRecord, 0, len(rows))
	for _, r := range rows {
		h := HistoryRecord{}
		h.PlanHash, _ = r["plan_hash"].(string)
		h.AppliedAt, _ = r["applied_at"].(time.Time)
		h.Steps, _ = r["steps"].([]string)
		h.Owner, _ = r["owner"].(string)
		out = append(out, h)
	}
	slices.SortStableFunc(out, func(a, b HistoryRecord) int { return a.AppliedAt.Compare(b.AppliedAt) })
	return out, nil
}
