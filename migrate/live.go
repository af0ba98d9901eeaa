package migrate

import (
	"time"

	"github.com/kandra-go/kandra"
)

// Live is the schema one keyspace has on a cluster, as system_schema
// records it. Types are parsed trees (kandra.CQLType), compared with
// Equal, never as strings.
type Live struct {
	// Keyspace is nil when the keyspace does not exist.
	Keyspace *LiveKeyspace
	// Server is the server the schema was read from (Read fills it).
	Server Server
	// PendingBackfills names, sorted, the lookup tables whose backfill the
	// keyspace's kandra_backfill table records as owed or unfinished: an
	// earlier Apply created them without their (unapproved) backfill, or a
	// Backfill stopped part-way. Read fills it; the system_schema tables
	// cannot show it, since such a lookup table exists like a filled one.
	// NewPlan plans the backfill of each one that is a lookup table of the
	// model and exists live, and Validate reports it.
	PendingBackfills []string
}

// LiveKeyspace is a row of system_schema.keyspaces and what it holds.
type LiveKeyspace struct {
	Name string
	// Replication is the replication map as stored, for example
	// {"class": "org.apache.cassandra.locator.SimpleStrategy",
	// "replication_factor": "1"}.
	Replication   map[string]string
	DurableWrites bool
	// Tablets reports a ScyllaDB keyspace that uses tablets.
	Tablets bool
	// Tables by name (the CQL name as stored: unquoted).
	Tables map[string]*LiveTable
	// Types are the user-defined types, by name.
	Types map[string]*LiveType
}

// ColumnKind is the kind of a live column (system_schema.columns.kind).
type ColumnKind string

// The kinds of column.
const (
	ColumnPartitionKey ColumnKind = "partition_key"
	ColumnClustering   ColumnKind = "clustering"
	ColumnRegular      ColumnKind = "regular"
	ColumnStatic       ColumnKind = "static"
)

// LiveTable is a row of system_schema.tables with its columns, indexes and
// dropped columns.
type LiveTable struct {
	Name string
	// ID is the table id (system_schema.tables.id), in canonical UUID form.
	ID string
	// Columns in key order: partition keys by position, clustering
	// columns by position, then the rest by name.
	Columns []*LiveColumn
	Indexes []*LiveIndex
	// Dropped are system_schema.dropped_columns rows, by name.
	Dropped map[string]*LiveDropped
	// DefaultTTL is default_time_to_live (0 = none).
	DefaultTTL time.Duration
	// GCGrace is gc_grace_seconds.
	GCGrace time.Duration
	// Flags are system_schema.tables.flags, for example "compound" or
	// "counter".
	Flags []string
	// Options are the storage options of system_schema.tables as text: a
	// map option's entries under "name.key" ("compaction.class",
	// "caching.keys"), the others under their name ("comment",
	// "speculative_retry", "bloom_filter_fp_chance", "memtable", "cdc").
	// An option the server does not have is absent.
	Options map[string]string
}

// LiveColumn is a row of system_schema.columns.
type LiveColumn struct {
	Name string
	Kind ColumnKind
	// Position is the key position (-1 for regular and static columns).
	Position int
	// Order is "asc" or "desc" for a clustering column, "none" otherwise.
	Order string
	// Type is the parsed type; RawType the text system_schema holds. A
	// user-defined type in it is resolved from LiveKeyspace.Types (see
	// LiveType.Type), or left a reference by name (kandra.UDTOf(name))
	// when the keyspace lacks it or its fields cannot be read; compare
	// with kandra.CQLType.SameName to match user-defined types by name.
	Type    kandra.CQLType
	RawType string
}

// LiveIndex is a row of system_schema.indexes.
type LiveIndex struct {
	Name string
	// Kind is COMPOSITES, KEYS or CUSTOM.
	Kind string
	// Options are the index options; "target" names the indexed column,
	// "class_name" a custom index's class.
	Options map[string]string
}

// LiveDropped is a row of system_schema.dropped_columns.
type LiveDropped struct {
	Name      string
	Type      kandra.CQLType
	RawType   string
	Kind      ColumnKind
	DroppedAt time.Time
}

// LiveType is a row of system_schema.types: a user-defined type.
type LiveType struct {
	// Name is the type's name as stored (unquoted: "address", "MyType").
	Name string
	// FieldNames and FieldTypes are the fields in declaration order, the
	// types as system_schema holds them ("text", "frozen<list<text>>",
	// "frozen<geo_point>").
	FieldNames []string
	FieldTypes []string
	// Fields are the fields with their types parsed (the FieldTypes in
	// FieldNames' order): a user-defined type in a field is a reference by
	// name (kandra.UDTOf(name), no fields), and a type kandra cannot parse
	// (a tuple, a custom type) is the zero CQLType.
	Fields []kandra.UDTField
	// Type is the whole type, kandra.UDTOf(Name, fields...) with the types
	// its fields hold resolved from the keyspace's other types; the zero
	// CQLType when a field's type cannot be read, or names a type the
	// keyspace lacks.
	Type kandra.CQLType
}

// Table returns the live table named name, or nil.
func (l *Live) Table(name string) *LiveTable {
	if l == nil || l.Keyspace == nil {
		return nil
	}
	return l.Keyspace.Tables[name]
}

// Column returns the live column named name, or nil.
func (t *LiveTable) Column(name string) *LiveColumn {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}
