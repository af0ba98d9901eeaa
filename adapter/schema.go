package adapter

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kandra-go/kandra"
	kerrors "github.com/kandra-go/kandra/errors"
)

// The driver-neutral half of the migrator's side of an adapter
// (migrate.Driver): the system_schema and system.local/peers queries and
// the wait for schema agreement, written once so that an adapter keeps
// only its value conversions and its session calls. They are for adapter
// authors: an app uses an adapter's migrate.Driver and package migrate,
// never these.
//
//	func (d *Driver) SchemaRows(ctx context.Context, keyspace string) (*adapter.SchemaRows, error) {
//		return adapter.ReadSchemaRows(ctx, d.QueryCQL, keyspace)
//	}

// SchemaRows are the system_schema rows of one keyspace as an adapter
// read them (migrate.Driver's SchemaRows returns them; package migrate
// models them as its Live), one map per row keyed by column name, with
// plain Go values: text as string, uuid and timeuuid as a canonical
// string, int as int, boolean as bool, timestamp as time.Time,
// map<text, text> as map[string]string, list<text> and set<text> as
// []string; a null is absent or nil. For adapter authors; ReadSchemaRows
// reads them.
type SchemaRows struct {
	Keyspaces      []map[string]any // system_schema.keyspaces
	Tables         []map[string]any // system_schema.tables
	Columns        []map[string]any // system_schema.columns
	Indexes        []map[string]any // system_schema.indexes
	Types          []map[string]any // system_schema.types
	DroppedColumns []map[string]any // system_schema.dropped_columns
}

// QueryFunc runs one SELECT with plain values at consistency c and
// returns every row, as migrate.Driver's QueryCQL does (an adapter passes
// its QueryCQL method). For adapter authors.
type QueryFunc func(ctx context.Context, stmt string, values []any, c kandra.Consistency) ([]map[string]any, error)

// schemaTables are the system_schema tables ReadSchemaRows reads, in the
// order of SchemaRows' fields.
var schemaTables = [...]string{"keyspaces", "tables", "columns", "indexes", "types", "dropped_columns"}

// ReadSchemaRows implements migrate.Driver's SchemaRows through query:
// every row of
// system_schema.{keyspaces,tables,columns,indexes,types,dropped_columns}
// of keyspace, at consistency ONE (system_schema is node-local). For
// adapter authors.
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

// ReadSchemaVersions implements migrate.Driver's SchemaVersions through
// query: the coordinator's system.local (by broadcast_address, else
// listen_address) and system.peers (by peer). query must return inet
// values as strings (MapRows does). For adapter authors.
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

// AwaitAgreement implements migrate.Driver's AwaitSchemaAgreement around
// the driver's own wait: a failure of wait becomes a *AgreementError with
// the versions that versions reports (read for at most 10 seconds, even
// when ctx is done, so that the error shows where the nodes stand). For
// adapter authors.
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

// ExecSchemaThen implements migrate.Driver's ExecSchema: exec runs stmt,
// then await waits for agreement; a *AgreementError from await names
// stmt. For adapter authors.
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

// AgreementError reports that the nodes did not agree on one schema
// version in time after a schema statement. The statement itself was
// accepted by its coordinator; the cluster has not converged yet.
//
// Apps know it as migrate.AgreementError (the same type); an adapter
// returns it from migrate.Driver's AwaitSchemaAgreement and ExecSchema,
// as AwaitAgreement and ExecSchemaThen do.
type AgreementError struct {
	// Statement is the schema statement that was waited for, if any.
	Statement string
	// Versions are the schema versions last seen, by host.
	Versions map[string]string
	// Waited is how long the adapter waited.
	Waited time.Duration
	// Cause is the driver's error, if any.
	Cause error
}

// Error names the hosts and their versions.
func (e *AgreementError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kandra: migration: no schema agreement after %s", e.Waited.Round(time.Millisecond))
	if len(e.Versions) > 0 {
		b.WriteString(" (")
		for i, h := range slices.Sorted(maps.Keys(e.Versions)) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(h + "=" + e.Versions[h])
		}
		b.WriteString(")")
	}
	if e.Statement != "" {
		b.WriteString(" after " + e.Statement)
	}
	if e.Cause != nil {
		b.WriteString(": " + e.Cause.Error())
	}
	return b.String()
}

// Is matches errors.ErrMigration and errors.ErrKandra.
func (e *AgreementError) Is(target error) bool {
	return target == kerrors.ErrMigration || target == kerrors.ErrKandra
}

// Unwrap returns the cause.
func (e *AgreementError) Unwrap() error { return e.Cause }
