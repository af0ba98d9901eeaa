package kgocqlv2

import (
	"context"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/migrate"
)

// The migrator's side of the adapter: system_schema, schema statements
// with agreement, and plain statements for the migrator's own tables.

var _ migrate.Driver = (*Driver)(nil)

// SchemaRows implements migrate.Driver: every row of
// system_schema.{keyspaces,tables,columns,indexes,types,dropped_columns}
// of keyspace, with uuids as canonical strings.
func (d *Driver) SchemaRows(ctx context.Context, keyspace string) (*adapter.SchemaRows, error) {
	return adapter.ReadSchemaRows(ctx, d.QueryCQL, keyspace)
}

// ExecSchema implements migrate.Driver: it runs stmt, then waits for
// schema agreement.
func (d *Driver) ExecSchema(ctx context.Context, stmt string) error {
	return adapter.ExecSchemaThen(ctx, stmt, func(ctx context.Context, stmt string) error {
		return d.s.Query(stmt).Consistency(gocql.One).ExecContext(ctx)
	}, d.AwaitSchemaAgreement)
}

// AwaitSchemaAgreement implements migrate.Driver with the session's
// AwaitSchemaAgreement (ClusterConfig.MaxWaitSchemaAgreement bounds it);
// a failure becomes a *migrate.AgreementError with the versions seen.
func (d *Driver) AwaitSchemaAgreement(ctx context.Context) error {
	return adapter.AwaitAgreement(ctx, d.s.AwaitSchemaAgreement, d.SchemaVersions)
}

// SchemaVersions implements migrate.Driver: the coordinator's
// system.local and system.peers, by host address.
func (d *Driver) SchemaVersions(ctx context.Context) (map[string]string, error) {
	return adapter.ReadSchemaVersions(ctx, d.QueryCQL)
}

// ExecCQL implements migrate.Driver. A conditional INSERT, UPDATE or
// DELETE (with an IF clause) runs at serial consistency SERIAL and reports
// whether it applied.
func (d *Driver) ExecCQL(ctx context.Context, stmt string, values []any, c kandra.Consistency) (bool, error) {
	q := d.s.Query(stmt, values...).Consistency(gocql.Consistency(c))
	if adapter.IsConditional(stmt) {
		return q.SerialConsistency(gocql.Serial).MapScanCASContext(ctx, map[string]any{})
	}
	return true, q.ExecContext(ctx)
}

// QueryCQL implements migrate.Driver: every row (pages fetched as they
// come), with uuids as canonical strings.
func (d *Driver) QueryCQL(ctx context.Context, stmt string, values []any, c kandra.Consistency) ([]map[string]any, error) {
	return adapter.MapRows(d.s.Query(stmt, values...).Consistency(gocql.Consistency(c)).IterContext(ctx))
}
