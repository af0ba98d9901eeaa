package kandra

import kerrors "github.com/kandra-go/kandra/errors"

// The schema rules, in the order Register checks them: when an entity
// breaks several, the error names the first. The order is the Kotlin
// library's (its ten original checks, then the ones it added later), then
// Go-specific binding checks where they must come first, then every rule a
// real Cassandra 5.0 or ScyllaDB server enforces on the DDL kandra writes.
//
// Rules marked "compile time" cannot fail at run time in Go: the typed
// binders (CreatedAt, Version, SoftDelete's marker, ...) only accept the
// right field types, so a wrong binding does not compile. They keep their
// constants so that the numbering matches the Kotlin documentation.
const (
	// RuleNotStruct: the entity type is not a struct, or its fields cannot
	// be flattened unambiguously (embedded pointer, ambiguous promotion).
	RuleNotStruct kerrors.Rule = "not-a-struct"
	// RuleTableMissing (Kotlin 1): Describe did not call Schema.Table, or
	// gave a blank name.
	RuleTableMissing kerrors.Rule = "table-missing"
	// RuleBinding: a binding's pointer is not the address of a column field
	// of the entity Describe was called on.
	RuleBinding kerrors.Rule = "binding"
	// RuleConflict: one field or the table was given contradicting options
	// (two column names, Transient with a key role, Table called twice, ...).
	RuleConflict kerrors.Rule = "conflicting-options"
	// RuleTimestampType (Kotlin 2, compile time): CreatedAt/UpdatedAt on a
	// field that is not a time.Time.
	RuleTimestampType kerrors.Rule = "timestamp-type"
	// RuleNoPartitionKey (Kotlin 3): no field is a partition key.
	RuleNoPartitionKey kerrors.Rule = "no-partition-key"
	// RuleDuplicatePartitionIndex (Kotlin 4): two partition keys share an index.
	RuleDuplicatePartitionIndex kerrors.Rule = "duplicate-partition-index"
	// RuleDuplicateLookupTable (Kotlin 5): two lookups compose the same
	// table name.
	RuleDuplicateLookupTable kerrors.Rule = "duplicate-lookup-table"
	// RuleCounterMix (Kotlin 6): counter and non-counter columns among the
	// non-key columns (created/updated timestamps aside, as in Kotlin; the
	// counter-table rule catches those).
	RuleCounterMix kerrors.Rule = "counter-mix"
	// RuleDuplicateTimestamp (Kotlin 7): more than one CreatedAt or UpdatedAt.
	RuleDuplicateTimestamp kerrors.Rule = "duplicate-timestamp"
	// RuleDuplicateVersion (Kotlin 8): more than one Version.
	RuleDuplicateVersion kerrors.Rule = "duplicate-version"
	// RuleVersionType (Kotlin 9, compile time): Version on a field that is
	// neither int64 nor time.Time.
	RuleVersionType kerrors.Rule = "version-type"
	// RuleSoftDeleteMarker (Kotlin 10): SoftDelete's marker is not a bool
	// column of the entity.
	RuleSoftDeleteMarker kerrors.Rule = "soft-delete-marker"
	// RuleKeyConflict: a field is both a partition key and a clustering key.
	RuleKeyConflict kerrors.Rule = "key-conflict"
	// RuleInvalidName: a table, lookup-table or index name is not 1 to 48
	// ASCII letters, digits or underscores, a lookup suffix is blank, or a
	// column name is not valid UTF-8.
	RuleInvalidName kerrors.Rule = "invalid-name"
	// RuleDuplicateColumn: two fields map to the same CQL column name.
	RuleDuplicateColumn kerrors.Rule = "duplicate-column"
	// RuleDuplicateClusteringIndex: two clustering keys share an index.
	RuleDuplicateClusteringIndex kerrors.Rule = "duplicate-clustering-index"
	// RuleUnsupportedType: a field's Go type has no CQL type (or the CQL type
	// is one servers reject: a duration as a set element or map key).
	RuleUnsupportedType kerrors.Rule = "unsupported-type"
	// RuleKeyType: a counter or duration in a primary-key position,
	// including a lookup table's key.
	RuleKeyType kerrors.Rule = "key-type"
	// RuleCounterTable: a counter table with a default TTL, soft delete, a
	// version column, a timestamp column, a lookup or a secondary index.
	RuleCounterTable kerrors.Rule = "counter-table"
	// RuleLookup: a lookup on a primary-key column (its lookup table would
	// declare the column twice).
	RuleLookup kerrors.Rule = "lookup"
	// RuleSecondaryIndex: a secondary index on the only partition-key column
	// or on a column holding a duration.
	RuleSecondaryIndex kerrors.Rule = "secondary-index"
	// RuleOptionRange: a default TTL or soft-delete TTL outside
	// 0..630720000, a negative gc grace, a negative cache setting, or an
	// unknown consistency level.
	RuleOptionRange kerrors.Rule = "option-range"
	// RuleNameTaken: a table or index name is already used by another
	// registered entity (index names are unique per keyspace), or an index
	// name plus "_index" is a table name (ScyllaDB backs an index with a view
	// of that name).
	RuleNameTaken kerrors.Rule = "name-taken"
)

// Rules returns the rules in the order Register checks them.
func Rules() []kerrors.Rule { return clone(ruleOrder) }

var ruleOrder = []kerrors.Rule{
	RuleNotStruct, RuleTableMissing, RuleBinding, RuleConflict,
	RuleTimestampType, RuleNoPartitionKey, RuleDuplicatePartitionIndex, RuleDuplicateLookupTable,
	RuleCounterMix, RuleDuplicateTimestamp, RuleDuplicateVersion, RuleVersionType, RuleSoftDeleteMarker,
	RuleKeyConflict, RuleInvalidName, RuleDuplicateColumn, RuleDuplicateClusteringIndex,
	RuleUnsupportedType, RuleKeyType, RuleCounterTable, RuleLookup, RuleSecondaryIndex,
	RuleOptionRange, RuleNameTaken,
}

// MaxTTL is the largest TTL both servers accept: 20 years in seconds.
const MaxTTL = 630720000
