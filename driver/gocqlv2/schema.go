package gocqlv2

import (
	"context"
	"errors"
	"net"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/migrate"
)

// The migrator's side of the adapter: system_schema, schema statements
// with agreement, and plain statements for the migrator's own tables.

var _ migrate.Driver = (*Driver)(nil)

// schemaTables are the system_schema tables SchemaRows reads, in the
// order of migrate.SchemaRows' fields.
var schemaTables = [...]string{"keyspaces", "tables", "columns", "indexes", "types", "dropped_columns"}

// SchemaRows implements migrate.Driver: every row of
// system_schema.{keyspaces,tables,columns,indexes,types,dropped_columns}
// of keyspace, with uuids as canonical strings.
func (d *Driver) SchemaRows(ctx context.Context, keyspace string) (*migrate.SchemaRows, error) {
	out := &migrate.SchemaRows{}
	dst := [...]*[]map[string]any{&out.Keyspaces, &out.Tables, &out.Columns, &out.Indexes, &out.Types, &out.DroppedColumns}
	for i, t := range schemaTables {
		rows, err := d.QueryCQL(ctx, "SELECT * FROM system_schema."+t+" WHERE keyspace_name = ?", []any{keyspace}, kandra.ConsistencyOne)
		if err != nil {
			return nil, err
		}
		*dst[i] = rows
	}
	return out, nil
}

// ExecSchema implements migrate.Driver: it runs stmt, then waits for
// schema agreement.
func (d *Driver) ExecSchema(ctx context.Context, stmt string) error {
	if err := d.s.Query(stmt).Consistency(gocql.One).ExecContext(ctx); err != nil {
		return err
	}
	err := d.AwaitSchemaAgreement(ctx)
	var ae *migrate.AgreementError
	if errors.As(err, &ae) {
		ae.Statement = stmt
	}
	return err
}

// AwaitSchemaAgreement implements migrate.Driver with the session's
// AwaitSchemaAgreement (ClusterConfig.MaxWaitSchemaAgreement bounds it);
// a failure becomes a *migrate.AgreementError with the versions seen.
func (d *Driver) AwaitSchemaAgreement(ctx context.Context) error {
	start := time.Now()
	err := d.s.AwaitSchemaAgreement(ctx)
	if err == nil {
		return nil
	}
	vctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	versions, _ := d.SchemaVersions(vctx)
	return &migrate.AgreementError{Versions: versions, Waited: time.Since(start), Cause: err}
}

// SchemaVersions implements migrate.Driver: the coordinator's
// system.local and system.peers, by host address.
func (d *Driver) SchemaVersions(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	local, err := d.QueryCQL(ctx, "SELECT broadcast_address, listen_address, schema_version FROM system.local WHERE key = 'local'", nil, kandra.ConsistencyOne)
	if err != nil {
		return nil, err
	}
	for _, r := range local {
		host, _ := r["broadcast_address"].(string)
		if host == "" {
			host, _ = r["listen_address"].(string)
		}
		out[host], _ = r["schema_version"].(string)
	}
	peers, err := d.QueryCQL(ctx, "SELECT peer, schema_version FROM system.peers", nil, kandra.ConsistencyOne)
	if err != nil {
		return nil, err
	}
	for _, r := range peers {
		host, _ := r["peer"].(string)
		out[host], _ = r["schema_version"].(string)
	}
	return out, nil
}

// ExecCQL implements migrate.Driver. A conditional INSERT, UPDATE or
// DELETE (with an IF clause) runs at serial consistency SERIAL and reports
// whether it applied.
func (d *Driver) ExecCQL(ctx context.Context, stmt string, values []any, c kandra.Consistency) (bool, error) {
	q := d.s.Query(stmt, values...).Consistency(gocql.Consistency(c))
	if isConditional(stmt) {
		return q.SerialConsistency(gocql.Serial).MapScanCASContext(ctx, map[string]any{})
	}
	return true, q.ExecContext(ctx)
}

// QueryCQL implements migrate.Driver: every row (pages fetched as they
// come), with uuids as canonical strings.
func (d *Driver) QueryCQL(ctx context.Context, stmt string, values []any, c kandra.Consistency) ([]map[string]any, error) {
	it := d.s.Query(stmt, values...).Consistency(gocql.Consistency(c)).IterContext(ctx)
	var out []map[string]any
	for {
		m := map[string]any{}
		if !it.MapScan(m) {
			break
		}
		for k, v := range m {
			m[k] = plainValue(v)
		}
		out = append(out, m)
	}
	return out, it.Close()
}

// plainValue turns the driver's own types into the plain values of
// migrate.SchemaRows.
func plainValue(v any) any {
	switch x := v.(type) {
	case gocql.UUID:
		return x.String()
	case []gocql.UUID:
		s := make([]string, len(x))
		for i, u := range x {
			s[i] = u.String()
		}
		return s
	case net.IP:
		return x.String()
	}
	return v
}

// isConditional reports a lightweight transaction: an INSERT, UPDATE or
// DELETE with an IF clause.
func isConditional(stmt string) bool {
	u := strings.ToUpper(strings.TrimSpace(stmt))
	if !strings.HasPrefix(u, "INSERT") && !strings.HasPrefix(u, "UPDATE") && !strings.HasPrefix(u, "DELETE") {
		return false
	}
	for _, f := range strings.Fields(u) {
		if f == "IF" {
			return true
		}
	}
	return false
}
