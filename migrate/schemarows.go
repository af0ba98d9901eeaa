package migrate

import (
	"context"
	"errors"
	"time"

	"github.com/kandra-go/kandra"
)

// The driver-neutral half of an adapter's Driver methods: the
// system_schema and system.local/peers queries, written once so that the
// adapters keep only their value conversions and their session calls.

// QueryFunc runs one SELECT with plain values at consistency c and
// returns every row, as Driver.QueryCQL does.
type QueryFunc func(ctx context.Context, stmt string, values []any, c kandra.Consistency) ([]map[string]any, error)

// schemaTables are the system_schema tables ReadSchemaRows reads, in the
// order of SchemaRows' fields.
var schemaTables = [...]string{"keyspaces", "tables", "columns", "indexes", "types", "dropped_columns"}

// ReadSchemaRows implements Driver.SchemaRows through query: every row of
// system_schema.{keyspaces,tables,columns,indexes,types,dropped_columns}
// of keyspace, at consistency ONE (system_schema is node-local).
func ReadSchemaRows(ctx context.Context, query QueryFunc, keyspace string) (*SchemaRows, error) {
	out := &SchemaRows{}
	dst := [...]*[]map[string]any{&out.Keyspaces, &out.Tables, &out.Columns, &out.Indexes, &out.Types, &out.DroppedColumns}
	for i, t := range schemaTables {
		rows, err := query(ctx, "SELECT * FROM system_schema."+t+" WHERE keyspace_name = ?", []any{keyspace}, kandra.ConsistencyOne)
		if err != nil {
			return nil, err
		}
		*dst[i] = rows
	}
	return out, nil
}

// ReadSchemaVersions implements Driver.SchemaVersions through query: the
// coordinator's system.local (by broadcast_address, else listen_address)
// and system.peers (by peer). query must return inet values as strings.
func ReadSchemaVersions(ctx context.Context, query QueryFunc) (map[string]string, error) {
	out := map[string]string{}
	local, err := query(ctx, "SELECT broadcast_address, listen_address, schema_version FROM system.local WHERE key = 'local'", nil, kandra.ConsistencyOne)
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
	peers, err := query(ctx, "SELECT peer, schema_version FROM system.peers", nil, kandra.ConsistencyOne)
	if err != nil {
		return nil, err
	}
	for _, r := range peers {
		host, _ := r["peer"].(string)
		out[host], _ = r["schema_version"].(string)
	}
	return out, nil
}

// AwaitAgreement implements Driver.AwaitSchemaAgreement around the
// driver's own wait: a failure of wait becomes a *AgreementError with the
// versions that versions reports (read for at most 10 seconds, even when
// ctx is done, so that the error shows where the nodes stand).
func AwaitAgreement(ctx context.Context, wait func(context.Context) error, versions func(context.Context) (map[string]string, error)) error {
	start := time.Now()
	err := wait(ctx)
	if err == nil {
		return nil
	}
	vctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	seen, _ := versions(vctx)
	return &AgreementError{Versions: seen, Waited: time.Since(start), Cause: err}
}

// ExecSchemaThen implements Driver.ExecSchema: exec runs stmt, then await
// waits for agreement; a *AgreementError from await names stmt.
func ExecSchemaThen(ctx context.Context, stmt string, exec func(context.Context, string) error, await func(context.Context) error) error {
	if err := exec(ctx, stmt); err != nil {
		return err
	}
	err := await(ctx)
	var ae *AgreementError
	if errors.As(err, &ae) {
		ae.Statement = stmt
	}
	return err
}
