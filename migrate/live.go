package migrate

import (
	"strings"
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
	// Functions are the user-defined functions (system_schema.functions)
	// and Aggregates the user-defined aggregates
	// (system_schema.aggregates), sorted by name, then argument types.
	// kandra declares neither: a plan lists them in Plan.Extra and never
	// touches them.
	Functions  []*LiveFunction
	Aggregates []*LiveFunction
	// Views are the materialized views (system_schema.views), ScyllaDB's
	// views that back its secondary indexes left out, and Triggers the
	// triggers (system_schema.triggers), both sorted by name. kandra
	// declares neither: a plan lists them in Plan.Extra and never touches
	// them, and import lists them as unexpressed.
	Views    []*LiveView
	Triggers []*LiveTrigger
}

// LiveView is a materialized view: its name and its base table.
type LiveView struct {
	Name, BaseTable string
}

// LiveTrigger is a trigger: its name, its table and its class (the
// options' "class", "" when the row has none).
type LiveTrigger struct {
	Name, Table, Class string
}

// LiveFunction is a row of system_schema.functions or
// system_schema.aggregates: a user-defined function or aggregate, by its
// signature (a name is overloaded by its argument types).
type LiveFunction struct {
	Name string
	// ArgumentTypes are the argument types as system_schema holds them
	// ("int", "frozen<list<text>>").
	ArgumentTypes []string
	// ReturnType is the return type as system_schema holds it ("" when
	// the row has none).
	ReturnType string
}

// Signature is the function's name and argument types, "fname(int,
// text)".
func (f *LiveFunction) Signature() string {
	return f.Name + "(" + strings.Join(f.ArgumentTypes, ", ") + ")"
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
	// An option the server does not have is absent. StorageOptions reads
	// them into kandra's values, as the planner and the importer compare
	// and write them.
	Options map[string]string
	// Legacy names the legacy form of a table that is not a CQL table,
	// read from its Flags: LegacySuper, LegacyDense or LegacyNotCompound,
	// all COMPACT STORAGE tables of Thrift days (which ScyllaDB still
	// holds, and no Cassandra 5.0 can create); "" for a CQL table, and
	// for a row without flags. kandra plans nothing against such a table:
	// NewPlan reports it as an impossible StepLegacyTable step.
	Legacy string
}

// The legacy forms of LiveTable.Legacy.
const (
	// LegacySuper is a super column family (flags hold "super").
	LegacySuper = "COMPACT STORAGE, a super column family"
	// LegacyDense is a COMPACT STORAGE table with clustering columns
	// (flags hold "dense").
	LegacyDense = "COMPACT STORAGE, dense"
	// LegacyNotCompound is a COMPACT STORAGE table without clustering
	// columns (flags lack "compound").
	LegacyNotCompound = "COMPACT STORAGE, not compound"
)

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
	// Mask is the column's mask (system_schema.column_masks, Cassandra
	// 5.0), or nil when the column has none or the server has no masks.
	Mask *LiveMask
}

// LiveMask is a row of system_schema.column_masks: the mask Cassandra 5.0
// applies to a column's values for a role without the UNMASK permission.
type LiveMask struct {
	// FunctionKeyspace and FunctionName name the masking function:
	// "system" and "mask_inner" for one of Cassandra's, the keyspace's
	// name for a user-defined function.
	FunctionKeyspace string
	FunctionName     string
	// ArgumentTypes, ArgumentValues and ArgumentNulls are the arguments
	// after the column's value, as the server stores them: the types in
	// CQL ("int", "text"), the values as their type prints them ("1",
	// "#", "2020-01-01T00:00:00.000Z"), and whether each is null.
	ArgumentTypes  []string
	ArgumentValues []string
	ArgumentNulls  []bool
	// Mask is the mask as kandra models it, compared with the model's
	// with kandra.Mask.Equal; the zero Mask when kandra cannot model it,
	// and Unread then says why (a user-defined function, an argument
	// kandra cannot read).
	Mask   kandra.Mask
	Unread string
}

// String renders the mask as CQL writes it after MASKED WITH, from the
// stored arguments: "mask_inner(1, 2, '#')", "ks.redact()".
func (m *LiveMask) String() string {
	if !m.Mask.IsZero() {
		return m.Mask.String()
	}
	name := m.FunctionName
	if m.FunctionKeyspace != "" && m.FunctionKeyspace != "system" {
		name = m.FunctionKeyspace + "." + name
	}
	args := make([]string, len(m.ArgumentValues))
	for i, v := range m.ArgumentValues {
		switch {
		case i < len(m.ArgumentNulls) && m.ArgumentNulls[i]:
			args[i] = "null"
		case i < len(m.ArgumentTypes) && quotedType(m.ArgumentTypes[i]):
			args[i] = quoteLiteral(v)
		default:
			args[i] = v
		}
	}
	return name + "(" + strings.Join(args, ", ") + ")"
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
