package kandra

import (
	"strings"
	"time"

	"github.com/kandra-go/kandra/kerrors"
)

// Rule names a schema rule. Every *SchemaError carries the Rule it broke.
// The rules Register and NewKeyspace check are the rows of ruleTable below
// (listed by Rules); RuleNotInKeyspace is checked where a table is used
// with a keyspace.
type Rule string

// RuleNotInKeyspace: a table (or a lookup table of one) used with a
// keyspace is not one of the tables given to its NewKeyspace, whose rules
// were checked: Keyspace.CreateTable and the other DDL writers, a store's
// NewRepo and the migrator's backfills refuse it. It is checked where the
// table is used, not by Register or NewKeyspace, so Rules does not list it.
const RuleNotInKeyspace Rule = "not-in-keyspace"

// The rules Register and NewKeyspace check. Their order is the order of
// ruleTable: when an entity breaks several, the error names the first.
const (
	// RuleNotStruct: the entity type is not a struct, or its fields cannot
	// be flattened unambiguously (embedded pointer, ambiguous promotion).
	RuleNotStruct Rule = "not-a-struct"
	// RuleDescribe: Describe has a value receiver (declare it on *T), or
	// registration panicked.
	RuleDescribe Rule = "describe"
	// RuleTableMissing: Describe did not call Schema.Table, or gave a blank
	// name.
	RuleTableMissing Rule = "table-missing"
	// RuleBinding: a binding's pointer is not the address of a column field
	// of the entity Describe was called on.
	RuleBinding Rule = "binding"
	// RuleConflictingOptions: one field or the table was given contradicting options
	// (Transient with any column option, two column names, Table called
	// twice, UpdatedAt on a key, ...).
	RuleConflictingOptions Rule = "conflicting-options"
	// RuleNoPartitionKey: no field is a partition key.
	RuleNoPartitionKey Rule = "no-partition-key"
	// RuleDuplicatePartitionIndex: two partition keys share an index.
	RuleDuplicatePartitionIndex Rule = "duplicate-partition-index"
	// RuleDuplicateLookupTable: two lookups compose the same table name.
	RuleDuplicateLookupTable Rule = "duplicate-lookup-table"
	// RuleCounterMix: counter and non-counter columns among the non-key
	// columns (created/updated timestamps aside; RuleCounterTable catches
	// those).
	RuleCounterMix Rule = "counter-mix"
	// RuleDuplicateTimestamp: more than one CreatedAt or UpdatedAt.
	RuleDuplicateTimestamp Rule = "duplicate-timestamp"
	// RuleDuplicateVersion: more than one Version.
	RuleDuplicateVersion Rule = "duplicate-version"
	// RuleSoftDeleteMarker: SoftDelete's marker is not a non-key bool
	// column of the entity.
	RuleSoftDeleteMarker Rule = "soft-delete-marker"
	// RuleKeyConflict: a field is both a partition key and a clustering key.
	RuleKeyConflict Rule = "key-conflict"
	// RuleInvalidName: a table, lookup-table or index name is not 1 to 222
	// ASCII letters, digits or underscores (RuleNameLength applies each
	// target's own limit), a lookup suffix is blank, or a column name is
	// not valid UTF-8, is longer than MaxColumnNameBytes or is "[applied]".
	RuleInvalidName Rule = "invalid-name"
	// RuleDuplicateColumn: two fields map to the same CQL column name.
	RuleDuplicateColumn Rule = "duplicate-column"
	// RuleDuplicateClusteringIndex: two clustering keys share an index.
	RuleDuplicateClusteringIndex Rule = "duplicate-clustering-index"
	// RuleUnsupportedType: a field's Go type has no CQL type, or the CQL
	// type is one servers reject (a duration as a set element or map key).
	RuleUnsupportedType Rule = "unsupported-type"
	// RuleKeyType: a counter or duration in a primary-key position,
	// including a lookup table's key.
	RuleKeyType Rule = "key-type"
	// RuleStatic: a static column in a table without clustering columns,
	// with a lookup, as the CreatedAt, Version, soft-delete marker or
	// GeneratedUUID column, or a table whose non-key columns are all
	// static.
	RuleStatic Rule = "static"
	// RuleCounterTable: a counter table with a default TTL, soft delete, a
	// version column, a timestamp column, a lookup or a secondary index.
	RuleCounterTable Rule = "counter-table"
	// RuleLookup: a lookup on the only partition-key column (a lookup by
	// it is a read of its partition).
	RuleLookup Rule = "lookup"
	// RuleSecondaryIndex: a secondary index on the only partition-key
	// column or on a column holding a duration.
	RuleSecondaryIndex Rule = "secondary-index"
	// RuleOptionRange: an option value outside its range: a TTL outside
	// 0..MaxTTL, a negative gc grace, an unknown
	// consistency level, clustering order, lookup kind or UUID strategy.
	RuleOptionRange Rule = "option-range"
	// RuleSchemaSize: a table or lookup table whose CREATE TABLE would make
	// a schema mutation over MaxSchemaMutationBytes, as Register estimates
	// it (never below what Cassandra 5.0 counts): roughly three bytes per
	// byte of column name, so thousands of columns with long names.
	RuleSchemaSize Rule = "schema-size"
	// RuleKeyspaceName: a keyspace name servers reject.
	RuleKeyspaceName Rule = "keyspace-name"
	// RuleReplication: a replication setting servers reject.
	RuleReplication Rule = "replication"
	// RuleTargets: a keyspace's Targets or Tablets setting that names no
	// server, or contradicts the targets.
	RuleTargets Rule = "targets"
	// RuleNameTaken: two tables of one keyspace use one table or index name
	// (index names are unique per keyspace), or an index name plus "_index"
	// is a table name (ScyllaDB backs an index with a view of that name).
	RuleNameTaken Rule = "name-taken"
	// RuleNameLength: a table, lookup-table or index name longer than a
	// target accepts: table names 48 on ScyllaDB 2025.1 and 192 from
	// 2025.2, index names 192 from 2025.2. Cassandra 5.0 checks no length,
	// but fails to write files named after them: a table's name and its
	// keyspace's together past 183 (the Paxos state file of a
	// lightweight transaction on the table), a storage-attached index's
	// name past 182 and a legacy index's past 222.
	RuleNameLength Rule = "name-length"
	// RuleTTLCap: a default or soft-delete TTL whose writes Cassandra 5.0
	// refuses within TTLHorizon under its default
	// storage_compatibility_mode, which caps expirations at 2038-01-19.
	RuleTTLCap Rule = "ttl-cap"
	// RuleTablets: what a ScyllaDB keyspace with tablets refuses:
	// SimpleStrategy; on 2025.x also counters, lightweight transactions
	// (a Version column, a unique lookup's claims) and secondary indexes.
	// The migrator reports under it what a server refuses in a tablets
	// keyspace that no schema shows (RF-rack validity, cluster features).
	RuleTablets Rule = "tablets"
	// RuleSAIIndex: an index a storage-attached index cannot be, on a
	// target where CREATE INDEX makes one: on a blob, or on a column whose
	// name is not 1 to 48 ASCII letters, digits or underscores.
	RuleSAIIndex Rule = "sai-index"
	// RuleSAI: an explicit SAI index (UsingSAI) on a blob or on a column
	// whose name is not 1 to 48 ASCII letters, digits or underscores; or
	// text analysis options (SAICaseInsensitive, SAINormalize, SAIASCII)
	// without UsingSAI, on a key column, or on a value that is not text.
	RuleSAI Rule = "sai"
	// RuleVector: a vector column (a [N]float32 field) outside a regular
	// or static column (a key, a lookup), indexed otherwise than by
	// VectorIndex; a VectorIndex off a vector, with no valid similarity,
	// with cosine on one dimension, or on a column SAI refuses by name.
	RuleVector Rule = "vector"
	// RuleVectorTarget: a vector on a ScyllaDB 2025.x target (2025.1 has
	// no vector type), one over MaxVectorDim on ScyllaDB 2026.x, and an
	// ANN index (VectorIndex) on any ScyllaDB target.
	RuleVectorTarget Rule = "vector-target"
	// RuleIndexKind: an index kind only Cassandra has (UsingSAI,
	// UsingLegacy) in a keyspace with a ScyllaDB target.
	RuleIndexKind Rule = "index-kind"
	// RuleOptionTarget: a storage option a target of the keyspace lacks
	// (Unified compaction or Memtable off Cassandra, TombstoneGC off
	// ScyllaDB, ...), or one written differently by the two servers
	// (Compression, CDC) in a keyspace with targets of both.
	RuleOptionTarget Rule = "option-target"
	// RuleUDT: a user-defined type (a Go struct field) where servers
	// refuse one: indexed as a column of its own without Frozen; and
	// Frozen on a column that is neither of a user-defined type nor a
	// collection.
	RuleUDT Rule = "udt"
	// RuleUDTName: two different user-defined types of one name in a
	// keyspace (two Go types, or two definitions).
	RuleUDTName Rule = "udt-name"
	// RuleMask: a column mask (Masked) the column's type does not take
	// (MaskInner and MaskOuter on a column that is not text, MaskHash on
	// one that is not a blob, a MaskReplace value of another type or out
	// of its range), a constructor's argument no server takes, or a mask
	// on a column the runtime filters by or reads back to decide: a key
	// column, a lookup's or an index's column, the Version column, the
	// soft-delete marker.
	RuleMask Rule = "mask"
	// RuleMaskTarget: a Masked column in a keyspace with a ScyllaDB
	// target: only Cassandra 5.0 has column masks.
	RuleMaskTarget Rule = "mask-target"
)

// Scope says what a rule is checked on.
type Scope uint8

const (
	// EntityScope rules are checked by Register, on one entity type.
	EntityScope Scope = iota + 1
	// KeyspaceScope rules are checked by NewKeyspace, on the tables and
	// replication of one keyspace.
	KeyspaceScope
)

// String returns "entity" or "keyspace", or "Scope(n)".
func (s Scope) String() string {
	switch s {
	case EntityScope:
		return "entity"
	case KeyspaceScope:
		return "keyspace"
	}
	return invalidEnum("Scope", uint64(s))
}

// RuleInfo describes one rule: what it refuses and where it is checked.
type RuleInfo struct {
	Rule    Rule
	Scope   Scope
	Targets Target // the servers whose refusal the rule prevents; AllTargets for every one
	Summary string // one line: what the rule requires
	// Server is what Cassandra 5.0 or ScyllaDB does with a schema that
	// breaks the rule (its error message, or a silent misbehaviour); ""
	// for rules that guard kandra's own contract rather than a server's.
	Server string
}

// ruleRow is one row of the rule table: the rule and its one check.
// Exactly one of entity and keyspace is set.
type ruleRow struct {
	RuleInfo
	entity   func(*builder) error
	keyspace func(*keyspaceBuilder) error
}

// ruleTable is every rule, in the order they are checked: entity rules by
// Register, then keyspace rules by NewKeyspace. Each check reports only its
// own rule, and the first failing check wins. Rules(), the README's rule
// table and the tests are derived from it.
//
// The order starts with what Describe did (the entity is a struct,
// Describe returned, named the table, and bound fields of its receiver
// without contradicting options), because every later check reads what the
// bindings resolved to; then come the keys, names and roles of the
// columns, their types and what each type allows, option ranges and the
// schema's size; then the keyspace rules. A timestamp role on a field that
// is not a time and a Version on a field that is neither int64 nor
// time.Time have no row: they are compile errors in Go, proven by
// compile_test.go.
var ruleTable = []ruleRow{
	{RuleInfo{RuleNotStruct, EntityScope, AllTargets, "the entity is a struct whose fields flatten unambiguously",
		""}, (*builder).checkStruct, nil},
	{RuleInfo{RuleDescribe, EntityScope, AllTargets, "Describe has a pointer receiver and returns normally",
		""}, (*builder).checkDescribe, nil},
	{RuleInfo{RuleTableMissing, EntityScope, AllTargets, "Describe names the table with s.Table, not blank",
		""}, (*builder).checkTable, nil},
	{RuleInfo{RuleBinding, EntityScope, AllTargets, "every binding is the address of a column field of Describe's receiver",
		""}, (*builder).checkBindings, nil},
	{RuleInfo{RuleConflictingOptions, EntityScope, AllTargets, "no field or table takes contradicting options; Transient takes no other",
		""}, (*builder).checkConflicts, nil},
	{RuleInfo{RuleNoPartitionKey, EntityScope, AllTargets, "at least one field is a partition key",
		`"No PRIMARY KEY specified"`}, (*builder).checkHasPartitionKey, nil},
	{RuleInfo{RuleDuplicatePartitionIndex, EntityScope, AllTargets, "partition-key indexes are distinct",
		""}, (*builder).checkPartitionIndexes, nil},
	{RuleInfo{RuleDuplicateLookupTable, EntityScope, AllTargets, "lookup table names are distinct",
		"the second CREATE TABLE IF NOT EXISTS is a silent no-op"}, (*builder).checkLookupNames, nil},
	{RuleInfo{RuleCounterMix, EntityScope, AllTargets, "counter and non-counter columns are not mixed",
		`"Cannot mix counter and non counter columns in the same table"`}, (*builder).checkCounterMix, nil},
	{RuleInfo{RuleDuplicateTimestamp, EntityScope, AllTargets, "at most one CreatedAt and one UpdatedAt",
		""}, (*builder).checkTimestamps, nil},
	{RuleInfo{RuleDuplicateVersion, EntityScope, AllTargets, "at most one Version",
		""}, (*builder).checkVersion, nil},
	{RuleInfo{RuleSoftDeleteMarker, EntityScope, AllTargets, "the soft-delete marker is a non-key bool column",
		""}, (*builder).checkSoftDeleteMarker, nil},
	{RuleInfo{RuleKeyConflict, EntityScope, AllTargets, "no field is both a partition and a clustering key",
		`"Duplicate column 'x' in PRIMARY KEY clause"`}, (*builder).checkKeyConflict, nil},
	{RuleInfo{RuleInvalidName, EntityScope, AllTargets, "table, lookup and index names are 1-222 of [A-Za-z0-9_]; column names are UTF-8, at most 1024 bytes, not [applied]",
		`both reject names outside \w+ even quoted; a 65,536-byte column name breaks the native protocol; [applied] is the LWT result column`}, (*builder).checkNames, nil},
	{RuleInfo{RuleDuplicateColumn, EntityScope, AllTargets, "column names are distinct after snake-casing and overrides",
		`"Duplicate column 'x' declaration" (Cassandra), "Multiple definition of identifier x" (ScyllaDB)`}, (*builder).checkDuplicateColumns, nil},
	{RuleInfo{RuleDuplicateClusteringIndex, EntityScope, AllTargets, "clustering indexes are distinct",
		""}, (*builder).checkClusteringIndexes, nil},
	{RuleInfo{RuleUnsupportedType, EntityScope, AllTargets, "every column's Go type has a CQL type servers accept",
		`"Durations are not allowed inside sets" / "as map keys"`}, (*builder).checkTypes, nil},
	{RuleInfo{RuleKeyType, EntityScope, AllTargets, "no counter or duration in a primary key or lookup key",
		`"counter type is not supported for PRIMARY KEY column", "duration type is not supported for PRIMARY KEY column"`}, (*builder).checkKeyTypes, nil},
	{RuleInfo{RuleStatic, EntityScope, AllTargets, "a static column is in a table with clustering columns, has no lookup or per-row role, and the table keeps a regular column",
		`"Static columns are only useful (and thus allowed) if the table has at least one clustering column"; "Invalid restrictions on clustering columns since the UPDATE statement modifies only static columns"`}, (*builder).checkStatic, nil},
	{RuleInfo{RuleCounterTable, EntityScope, AllTargets, "a counter table has no TTL, soft delete, version, timestamp, lookup or index",
		`"Cannot set default_time_to_live on a table with counters", "Secondary indexes on counter tables aren't supported"`}, (*builder).checkCounterTable, nil},
	{RuleInfo{RuleLookup, EntityScope, AllTargets, "no lookup on the only partition-key column",
		""}, (*builder).checkLookupColumns, nil},
	{RuleInfo{RuleSecondaryIndex, EntityScope, AllTargets, "no index on the only partition-key column or on a duration, nor on a collection whose column name has a line break; KEYS and ENTRIES on a map, VALUES on a collection, FULL on a frozen one",
		`"Cannot create secondary index on the only partition key column", "Secondary indexes are not supported on duration columns", "Unable to parse targets for index", "Cannot create index on keys of column l with non-map type", "full() indexes can only be created on frozen collections"`}, (*builder).checkIndexes, nil},
	{RuleInfo{RuleSAI, EntityScope, AllTargets, "an explicit SAI index is on no blob and a column named 1-48 of [A-Za-z0-9_]; text analysis options only with UsingSAI, on a regular column's text value",
		`"Unsupported type: blob"; "Analysis options are not supported on primary key columns"; "CQL type int cannot be analyzed."`}, (*builder).checkSAI, nil},
	{RuleInfo{RuleVector, EntityScope, AllTargets, "a vector is a regular or static column, indexed only by VectorIndex; VectorIndex is on a vector, with a similarity, cosine above one dimension",
		`"Cosine similarity is not supported for single-dimension vectors"; "Cannot create more than one storage-attached index on the same column"`}, (*builder).checkVectors, nil},
	{RuleInfo{RuleUDT, EntityScope, AllTargets, "a user-defined type column (a struct field) takes a secondary index only with Frozen, which applies to such columns and collections only",
		`"Cannot create index on non-frozen UDT column" (Cassandra), "Cannot create secondary index on UDT column" (ScyllaDB), "frozen<> is only allowed on collections, tuples, and user-defined types"`}, (*builder).checkUDTs, nil},
	{RuleInfo{RuleMask, EntityScope, AllTargets, "a mask is one the column's type takes (mask_inner and mask_outer on text, mask_hash on a blob, mask_replace a value of the type), on no key, lookup, index, Version or soft-delete marker column",
		`"Function system.mask_inner requires an argument of type [text|varchar|ascii]"; "Masking function mask_hash() return type is blob. This is different to the type of the masked column"; an unknown hash algorithm or a padding of two characters fails every read of the column`}, (*builder).checkMasks, nil},
	{RuleInfo{RuleOptionRange, EntityScope, AllTargets, "TTLs, gc grace and every enum value are in range",
		`"default_time_to_live must be less than or equal to 630720000", "gc_grace_seconds must be greater than or equal to 0"`}, (*builder).checkOptionValues, nil},
	{RuleInfo{RuleSchemaSize, EntityScope, AllTargets, "each table's and lookup table's schema mutation, about 3 bytes per byte of column name, fits in 16 MiB",
		`"Rejected an oversized mutation (N/16777216) for keyspace: system_schema" (Cassandra 5.0's max_mutation_size)`}, (*builder).checkSchemaSize, nil},
	{RuleInfo{RuleKeyspaceName, KeyspaceScope, AllTargets, "the keyspace name is 1-48 of [A-Za-z0-9_] (192 on ScyllaDB 2026.x only), not system or system_*",
		`"Keyspace name must not be empty, more than 48 characters long, or contain non-alphanumeric-underscore characters" (Cassandra); "Keyspace names shouldn't be more than 48 characters long (got ...)" (ScyllaDB 2025.1; 192 from 2025.2)`}, nil, (*keyspaceBuilder).checkName},
	{RuleInfo{RuleTargets, KeyspaceScope, AllTargets, "Targets names known servers; Tablets needs ScyllaDB-only targets and leaves one",
		""}, nil, (*keyspaceBuilder).checkTargets},
	{RuleInfo{RuleReplication, KeyspaceScope, AllTargets, "factors are 1-64 (SimpleStrategy) or 0-64 with one replica (per datacenter); datacenter names are printable, not class or replication_factor",
		`a factor of 2147483647 ends the node with an OutOfMemoryError; "Multiple definition for property class"; replication_factor is read as every datacenter's factor`}, nil, (*keyspaceBuilder).checkReplication},
	{RuleInfo{RuleNameTaken, KeyspaceScope, AllTargets, "table and index names are used once per keyspace, ScyllaDB's index views included",
		`IF NOT EXISTS makes a taken index name a silent no-op on Cassandra, "already exists" on ScyllaDB; "Index X cannot be created, because table X_index already exists" (ScyllaDB)`}, nil, (*keyspaceBuilder).checkNamesTaken},
	{RuleInfo{RuleNameLength, KeyspaceScope, AllTargets, "table and lookup names fit each target's limit (48 on ScyllaDB 2025.x, 192 on 2026.x; on Cassandra 183 with the keyspace's name); index names 192 on ScyllaDB, on Cassandra 182 for a storage-attached index and 222 for a legacy one",
		`"Table names shouldn't be more than 48 characters long (got ...)" (ScyllaDB 2025.1; 192 from 2025.2); "index names shouldn't be more than 192 characters long" (ScyllaDB 2025.2+); on Cassandra the table is created, then "File name too long" fails every flush of a lightweight transaction's Paxos state (system/_paxos_repair_state) or of an SAI index's files`}, nil, (*keyspaceBuilder).checkNameLengths},
	{RuleInfo{RuleTTLCap, KeyspaceScope, Cassandra5, "a TTL's writes succeed for TTLHorizon: now + TTL before 2038-01-19",
		`every write fails: "Request on table ... with default ttl of N seconds exceeds maximum supported expiration date of 2038-01-19T03:14:06+00:00"`}, nil, (*keyspaceBuilder).checkTTLCap},
	{RuleInfo{RuleTablets, KeyspaceScope, tabletTargets, "a tablets keyspace uses NetworkTopologyStrategy; on 2025.x it has no counters, Version, unique lookup or index",
		`"SimpleStrategy doesn't support tablet replication"; "Counters are not yet supported with tablets"; "LWT is not yet supported with tablets"; "Secondary indexes are not supported on base tables with tablets"`}, nil, (*keyspaceBuilder).checkTablets},
	{RuleInfo{RuleSAIIndex, KeyspaceScope, Cassandra5Latest, "where CREATE INDEX makes a storage-attached index, none on a blob or a column not named 1-48 of [A-Za-z0-9_]",
		`"Unsupported type: blob"; "... contains non-alphanumeric-underscore characters"`}, nil, (*keyspaceBuilder).checkSAIIndexes},
	{RuleInfo{RuleIndexKind, KeyspaceScope, scyllaTargets, "UsingSAI and UsingLegacy are Cassandra's: no explicit index kind on a ScyllaDB target",
		`"Non-supported custom class 'sai' provided" (to 2026.1); "StorageAttachedIndex (SAI) is only supported on vector columns" (2026.2+)`}, nil, (*keyspaceBuilder).checkIndexKinds},
	{RuleInfo{RuleVectorTarget, KeyspaceScope, scyllaTargets, "no vector on ScyllaDB 2025.x, none over MaxVectorDim (16000) on 2026.x, no VectorIndex on ScyllaDB",
		`"Vectors must have a dimension greater than 0" and no vector type before 2025.2; a 16000 maximum from 2026.2; vector_index needs ScyllaDB Cloud's Vector Search service`}, nil, (*keyspaceBuilder).checkVectorTargets},
	{RuleInfo{RuleMaskTarget, KeyspaceScope, scyllaTargets, "column masks are Cassandra 5.0's: no Masked column on a ScyllaDB target",
		"ScyllaDB has no dynamic data masking (scylladb/scylladb#24277): it refuses MASKED WITH"}, nil, (*keyspaceBuilder).checkMaskTargets},
	{RuleInfo{RuleOptionTarget, KeyspaceScope, AllTargets, "each storage option is one every target has (Memtable by each yaml's configurations, CDC(true) on none of Cassandra's); Compression and CDC with targets of one server",
		`"Unable to find compaction strategy class"; "Memtable configuration \"trie\" not found"; "Unknown property 'tombstone_gc'"; compression's class (Cassandra) and sstable_compression (ScyllaDB)`}, nil, (*keyspaceBuilder).checkOptionTargets},
	{RuleInfo{RuleUDTName, KeyspaceScope, AllTargets, "a user-defined type's name is one type in the keyspace: one Go type, one definition",
		"CREATE TYPE IF NOT EXISTS would keep the first definition and silently skip the second"}, nil, (*keyspaceBuilder).checkTypeNames},
}

// Rules returns every rule in the order it is checked: the entity rules
// Register checks, then the keyspace rules NewKeyspace checks.
func Rules() []RuleInfo {
	out := make([]RuleInfo, len(ruleTable))
	for i, r := range ruleTable {
		out[i] = r.RuleInfo
	}
	return out
}

// MaxTTL is the largest TTL both servers accept: 20 years (630,720,000 s).
const MaxTTL = 630720000 * time.Second

// SchemaError reports a schema that breaks a rule: an entity type (from
// Register or FieldOf) or a keyspace (from NewKeyspace). Nothing is
// registered or built when one is returned. It matches
// kerrors.ErrSchema and kerrors.ErrKandra with the standard errors.Is.
type SchemaError struct {
	// Entity is the Go type name of the entity ("model.User"), or
	// `keyspace "app"` for a keyspace rule.
	Entity string
	// Field is the Go field path ("Email", "Audit.CreatedAt"), or "" when
	// the rule concerns the whole table or keyspace.
	Field string
	// Rule is the rule that was broken.
	Rule Rule
	// Detail says what is wrong and how to fix it.
	Detail string
}

// Error renders "kandra: schema User.Email [rule]: detail".
func (e *SchemaError) Error() string {
	var b strings.Builder
	b.WriteString("kandra: schema ")
	b.WriteString(e.Entity)
	if e.Field != "" {
		b.WriteByte('.')
		b.WriteString(e.Field)
	}
	b.WriteString(" [")
	b.WriteString(string(e.Rule))
	b.WriteString("]: ")
	b.WriteString(e.Detail)
	return b.String()
}

// Is matches kerrors.ErrSchema and kerrors.ErrKandra.
func (e *SchemaError) Is(target error) bool {
	return target == kerrors.ErrKandra || target == kerrors.ErrSchema
}
