package migrate

import (
	"context"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kstore"
)

// Driver is what the migrator needs from a CQL driver: the runtime's
// Driver (Backfill writes lookup rows through it, with the adapter's
// conversions), plus reading system_schema, running schema statements
// with agreement, and plain statements for the migrator's own tables.
// The adapter modules implement it (driver/kgocql, driver/kgocqlv2); an
// app passes theirs (kgocql.New(session)) and need not call the methods
// itself: Read, PlanFor, Check, Apply, Backfill and History do.
//
// For adapter authors, package adapter holds the driver-neutral half of
// these methods (adapter.ReadSchemaRows, ReadSchemaVersions,
// AwaitAgreement, ExecSchemaThen), and SchemaRows is the one hook of the
// live model: the migrator builds its Live from the rows it returns.
type Driver interface {
	kstore.Driver
	// SchemaRows reads the system_schema rows of keyspace (every slice
	// empty when it does not exist), with the value conventions of
	// adapter.SchemaRows.
	SchemaRows(ctx context.Context, keyspace string) (*adapter.SchemaRows, error)
	// ExecSchema runs one schema statement, then waits for schema
	// agreement as AwaitSchemaAgreement does.
	ExecSchema(ctx context.Context, stmt string) error
	// AwaitSchemaAgreement waits until every live node reports the same
	// schema version, up to the adapter's timeout or ctx's deadline. It
	// returns a *AgreementError when they do not agree in time.
	AwaitSchemaAgreement(ctx context.Context) error
	// SchemaVersions reports each node's schema version, by host, from
	// system.local and system.peers.
	SchemaVersions(ctx context.Context) (map[string]string, error)
	// ExecCQL runs one statement with plain values (string, int, int64,
	// bool, time.Time, []byte) at consistency c. For a conditional
	// statement (IF ...) it reports whether it applied, at serial
	// consistency SERIAL; otherwise applied is true when err is nil.
	ExecCQL(ctx context.Context, stmt string, values []any, c kandra.Consistency) (applied bool, err error)
	// QueryCQL runs a SELECT with plain values and returns every row,
	// with the value conventions of adapter.SchemaRows.
	QueryCQL(ctx context.Context, stmt string, values []any, c kandra.Consistency) ([]map[string]any, error)
}
