package kgocqlv2

import (
	"context"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
)

// The migrator's calls: schema statements and its own tables. Package
// migrate reads system_schema and the schema versions through them.

// AwaitSchemaAgreement implements adapter.Driver with the session's
// AwaitSchemaAgreement (ClusterConfig.MaxWaitSchemaAgreement bounds it).
func (d *Driver) AwaitSchemaAgreement(ctx context.Context) error {
	return d.s.AwaitSchemaAgreement(ctx)
}

// ExecCQL implements adapter.Driver. A conditional INSERT, UPDATE or
// DELETE (with an IF clause) runs at serial consistency SERIAL and reports
// whether it applied.
func (d *Driver) ExecCQL(ctx context.Context, stmt string, values []any, c kandra.Consistency) (bool, error) {
	q := d.s.Query(stmt, values...).Consistency(gocql.Consistency(c))
	if adapter.IsConditional(stmt) {
		return q.SerialConsistency(gocql.Serial).MapScanCASContext(ctx, map[string]any{})
	}
	return true, q.ExecContext(ctx)
}

// QueryCQL implements adapter.Driver: every row (pages fetched as they
// come), with plain values (adapter.MapRows: uuids and inets as strings).
func (d *Driver) QueryCQL(ctx context.Context, stmt string, values []any, c kandra.Consistency) ([]map[string]any, error) {
	return adapter.MapRows(d.s.Query(stmt, values...).Consistency(gocql.Consistency(c)).IterContext(ctx))
}
