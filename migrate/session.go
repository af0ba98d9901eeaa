package migrate

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
)

// driver is what the migrator calls: an adapter.Driver, plus the schema
// reads and writes it makes over the driver's ExecCQL and QueryCQL
// (session), each observed when an Observer is set (observedDriver).
type driver interface {
	adapter.Driver
	// SchemaRows reads the system_schema rows of keyspace (every slice
	// empty when it does not exist).
	SchemaRows(ctx context.Context, keyspace string) (*schemaRows, error)
	// ExecSchema runs one schema statement, then waits for schema
	// agreement as AwaitSchemaAgreement does.
	ExecSchema(ctx context.Context, stmt string) error
	// SchemaVersions reports each node's schema version, by host, from
	// system.local and system.peers.
	SchemaVersions(ctx context.Context) (map[string]string, error)
}

// wrap is the migrator's driver over d: d itself when it is one already
// (observed, or a test's fake), else a session; nil for nil.
func wrap(d adapter.Driver) driver {
	switch d := d.(type) {
	case nil:
		return nil
	case driver:
		return d
	}
	return session{d}
}

// session is an adapter.Driver with the schema reads and writes the
// migrator makes, written once over its CQL calls so that an adapter has
// none of them to write.
type session struct{ adapter.Driver }

// SchemaRows reads every row of keyspace in the system_schema tables of
// readSchemaRows.
func (s session) SchemaRows(ctx context.Context, keyspace string) (*schemaRows, error) {
	return readSchemaRows(ctx, s.QueryCQL, keyspace)
}

// ExecSchema runs stmt at consistency ONE, then waits for agreement.
func (s session) ExecSchema(ctx context.Context, stmt string) error {
	return execSchemaThen(ctx, stmt, func(ctx context.Context, stmt string) error {
		_, err := s.ExecCQL(ctx, stmt, nil, kandra.ConsistencyOne)
		return err
	}, s.AwaitSchemaAgreement)
}

// AwaitSchemaAgreement is the driver's wait; a failure is a
// *kerrors.AgreementError with the versions each node reports.
func (s session) AwaitSchemaAgreement(ctx context.Context) error {
	return awaitAgreement(ctx, s.Driver.AwaitSchemaAgreement, s.SchemaVersions)
}

// SchemaVersions reads the coordinator's system.local and system.peers.
func (s session) SchemaVersions(ctx context.Context) (map[string]string, error) {
	return readSchemaVersions(ctx, s.QueryCQL)
}

// schemaRows are the system_schema rows of one keyspace, one map per row
// keyed by column name, with the plain values QueryCQL gives (see
// adapter.Driver); the migrator models them as its Live.
type schemaRows struct {
	Keyspaces      []map[string]any // system_schema.keyspaces
	Tables         []map[string]any // system_schema.tables
	Columns        []map[string]any // system_schema.columns
	Indexes        []map[string]any // system_schema.indexes
	Types          []map[string]any // system_schema.types
	DroppedColumns []map[string]any // system_schema.dropped_columns
	ColumnMasks    []map[string]any // system_schema.column_masks (none on a server without the table)
	Functions      []map[string]any // system_schema.functions
	Aggregates     []map[string]any // system_schema.aggregates
	Views          []map[string]any // system_schema.views
	Triggers       []map[string]any // system_schema.triggers (none on a server without the table)
}

// queryFunc runs one SELECT with plain values at consistency c and
// returns every row: a driver's QueryCQL.
type queryFunc func(ctx context.Context, stmt string, values []any, c kandra.Consistency) ([]map[string]any, error)

// schemaTables are the system_schema tables readSchemaRows reads, in the
// order of schemaRows' fields.
var schemaTables = [...]string{"keyspaces", "tables", "columns", "indexes", "types", "dropped_columns", "column_masks", "functions", "aggregates", "views", "triggers"}

// optionalTables are the schemaTables a server may lack: column_masks
// (ScyllaDB, Cassandra before 5.0), triggers (ScyllaDB, which has none).
var optionalTables = []string{"column_masks", "triggers"}

// readSchemaRows reads through query every row of keyspace in
// system_schema.{keyspaces,tables,columns,indexes,types,dropped_columns,
// column_masks,functions,aggregates,views,triggers}, at consistency ONE
// (system_schema is node-local). A server without column_masks (ScyllaDB,
// Cassandra before 5.0) has no masks, and one without triggers none of
// them: the refusal of those reads is no error (missingTable); any other
// error is.
func readSchemaRows(ctx context.Context, query queryFunc, keyspace string) (*schemaRows, error) {
	out := &schemaRows{}
	dst := [...]*[]map[string]any{&out.Keyspaces, &out.Tables, &out.Columns, &out.Indexes, &out.Types, &out.DroppedColumns, &out.ColumnMasks, &out.Functions, &out.Aggregates, &out.Views, &out.Triggers}
	for i, t := range schemaTables {
		rows, err := query(ctx, "SELECT * FROM system_schema."+t+" WHERE keyspace_name = ?", []any{keyspace}, kandra.ConsistencyOne)
		if err != nil {
			if slices.Contains(optionalTables, t) && missingTable(err, t) {
				continue
			}
			return nil, err
		}
		*dst[i] = rows
	}
	return out, nil
}

// missingTable reports the server's refusal of a read of a table it does
// not have, by the table's name: "unconfigured table column_masks"
// (ScyllaDB, Cassandra 4), "table column_masks does not exist"
// (Cassandra 5.0). Drivers give no code the migrator can read, so the
// message is the evidence; an error that does not name the table (a
// timeout, a refused permission) is not this.
func missingTable(err error, table string) bool {
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "unconfigured table "+table) || strings.Contains(msg, "table "+table+" does not exist")
}

// readSchemaVersions reads through query the coordinator's system.local (by broadcast_address, else
// listen_address) and system.peers (by peer). query must return inet
// values as strings (MapRows does).
func readSchemaVersions(ctx context.Context, query queryFunc) (map[string]string, error) {
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

// awaitAgreement runs the driver's own wait; a failure of wait becomes a
// *kerrors.AgreementError with the versions that versions reports (read for at most 10 seconds, even
// when ctx is done, so that the error shows where the nodes stand).
func awaitAgreement(ctx context.Context, wait func(context.Context) error, versions func(context.Context) (map[string]string, error)) error {
	start := time.Now()
	err := wait(ctx)
	if err == nil {
		return nil
	}
	vctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	seen, _ := versions(vctx)
	return &kerrors.AgreementError{Versions: seen, Waited: time.Since(start), Cause: err}
}

// execSchemaThen runs stmt with exec, then waits for agreement with
// await; a *kerrors.AgreementError from await names stmt.
func execSchemaThen(ctx context.Context, stmt string, exec func(context.Context, string) error, await func(context.Context) error) error {
	if err := exec(ctx, stmt); err != nil {
		return err
	}
	err := await(ctx)
	var ae *kerrors.AgreementError
	if errors.As(err, &ae) {
		ae.Statement = stmt
	}
	return err
}
