package kandra

import (
	"reflect"
	"time"

	"github.com/google/uuid"
)

// FieldOption adds to what a field binding says about its column.
type FieldOption interface{ applyField(*fieldSpec) }

// fieldOption is a named FieldOption: the name is what conflict errors
// show ("Transient excludes the field; it cannot also take SecondaryIndex").
type fieldOption struct {
	name  string
	apply func(*fieldSpec)
}

func (o fieldOption) applyField(s *fieldSpec) {
	s.given = append(s.given, o.name)
	o.apply(s)
}

// columnFlags are the roles and marks a binding gives a column. The field
// spec collects them while Describe's bindings are resolved, and the
// ColumnSchema carries the very same value: one description of a field.
type columnFlags struct {
	counter          bool         // Counter: a COUNTER column
	createdAt        bool         // CreatedAt: stamped once, on insert
	updatedAt        bool         // UpdatedAt: stamped on every write
	version          bool         // Version: the optimistic-lock column
	index            bool         // SecondaryIndex
	indexOpts        indexSpec    // SecondaryIndex's options
	sensitive        bool         // Sensitive: masked by logging layers
	generated        bool         // GeneratedUUID
	uuid             UUIDStrategy // GeneratedUUID's strategy
	softDeleteMarker bool         // SoftDelete's marker
	static           bool         // Static: one value per partition
	frozen           bool         // Frozen: a user-defined type or collection declared FROZEN
	mask             Mask         // Masked: the column's mask
	hasMask          bool         // Masked was given
}

// fieldSpec is what the bindings of one field declared.
type fieldSpec struct {
	columnFlags
	partition  []int
	clustering []clusteringSpec
	lookups    []lookupSpec
	names      []string
	asType     CQLType // zero unless AsType was given
	hasAsType  bool
	transient  bool
	given      []string // the options applied, by name, in order
	conflicts  []string // contradictions found while applying them
}

type clusteringSpec struct {
	index int
	order ClusteringOrder
}

type lookupSpec struct {
	suffix string
	kind   LookupKind
	name   string // "{table}_{suffix}", set once the table name is known
}

// PartitionKey makes the field a partition-key component. Components are
// ordered by index; give each a distinct one for a composite key.
func PartitionKey(index int) FieldOption {
	return fieldOption{"PartitionKey", func(s *fieldSpec) { s.partition = append(s.partition, index) }}
}

// ClusteringKey makes the field a clustering column, ordered among the
// clustering columns by index, stored in the given order.
func ClusteringKey(index int, order ClusteringOrder) FieldOption {
	return fieldOption{"ClusteringKey", func(s *fieldSpec) {
		s.clustering = append(s.clustering, clusteringSpec{index, order})
	}}
}

// Lookup gives the field a denormalized lookup table named
// "{table}_{suffix}", by which the runtime finds entities by this column's
// value. With LookupBatch or LookupEventual the value is not unique: the
// table holds one row per value and entity, and every holder is found.
// With LookupUnique each value is claimed by one entity, and taking a value
// another entity holds fails. Changing a lookup's kind changes its table's
// key: give the lookup a new suffix, so that a migration creates the new
// table and backfills it.
func Lookup(suffix string, kind LookupKind) FieldOption {
	return fieldOption{"Lookup", func(s *fieldSpec) {
		s.lookups = append(s.lookups, lookupSpec{suffix: suffix, kind: kind})
	}}
}

// Column overrides the column name derived from the Go name. A blank name
// (empty or only spaces) falls back to the derived name. Any other name is
// used exactly, quoted in CQL where needed.
func Column(name string) FieldOption {
	return fieldOption{"Column", func(s *fieldSpec) { s.names = append(s.names, name) }}
}

// Transient excludes an exported field from the table. It takes no other
// option: every other option describes a column.
func Transient() FieldOption {
	return fieldOption{"Transient", func(s *fieldSpec) { s.transient = true }}
}

// SecondaryIndex creates a secondary index on the column,
// "{table}_{column}_idx", read with kstore.IndexOf. Queries through it
// touch every node. Without options the index is the server's default kind
// (IndexDefault) on the column's natural target: its value, a collection's
// values, a frozen collection whole. The options choose the kind
// (UsingSAI, UsingLegacy), the target of a collection (IndexValues,
// IndexKeys, IndexEntries, IndexFull) and an SAI index's text analysis
// (SAICaseInsensitive, SAINormalize, SAIASCII). A column has one index:
// SecondaryIndex given twice must be given the same options.
func SecondaryIndex(opts ...IndexOption) FieldOption {
	return fieldOption{"SecondaryIndex", func(s *fieldSpec) {
		var spec indexSpec
		for _, o := range opts {
			if o.apply == nil {
				s.conflicts = append(s.conflicts, "SecondaryIndex is given a zero IndexOption; use the constructors (kandra.UsingSAI, kandra.IndexKeys, ...)")
				continue
			}
			if c := o.apply(&spec); c != "" {
				s.conflicts = append(s.conflicts, c)
			}
		}
		if s.index && s.indexOpts != spec {
			s.conflicts = append(s.conflicts, "SecondaryIndex is given twice with different options, or beside VectorIndex; a column has one index: give its options in one SecondaryIndex(...)")
		}
		s.index, s.indexOpts = true, spec
	}}
}

// VectorIndex creates an approximate-nearest-neighbour (ANN) index on a
// vector column (a [N]float32 field), "{table}_{column}_idx", ranking by
// sim (kandra.IndexNamed names it otherwise); kstore.IndexOf(repo,
// field).Nearest reads it. On Cassandra 5.0 it is a storage-attached
// index (USING 'sai') with the similarity_function option, whatever the
// server's default index. With the index, a vector's components must be
// finite and within ±1e17, and a cosine index refuses a vector whose
// components are all within ±1e-6: the runtime refuses such a write
// before sending (*kerrors.ValueError), where the server would fail it.
// A column has one index: VectorIndex excludes SecondaryIndex.
func VectorIndex(sim Similarity, opts ...IndexOption) FieldOption {
	return fieldOption{"VectorIndex", func(s *fieldSpec) {
		spec := indexSpec{kind: IndexVector, similarity: sim}
		for _, o := range opts {
			if o.name != "IndexNamed" {
				s.conflicts = append(s.conflicts, "VectorIndex takes kandra.IndexNamed only, and is given "+o.String()+"; an ANN index is SAI with its similarity function")
				continue
			}
			o.apply(&spec)
		}
		if s.index && s.indexOpts != spec {
			s.conflicts = append(s.conflicts, "a column has one index, and this one is given VectorIndex with a second index or another similarity; keep one")
		}
		s.index, s.indexOpts = true, spec
	}}
}

// Static makes the column static: it holds one value per partition,
// shared by every row of it (CQL's STATIC). Only a table with clustering
// columns has one, and a key column cannot be static. Save, Update and Get
// write and read it with the row like any column; Repo.SaveStatic and
// Repo.GetStatic write and read the partition's static columns by its
// partition key alone. A static column cannot have a lookup table, nor be
// the CreatedAt, Version or soft-delete marker column: each of those
// describes one row, and a static column is the partition's.
func Static() FieldOption {
	return fieldOption{"Static", func(s *fieldSpec) { s.static = true }}
}

// Frozen declares a column of a user-defined type (a struct field) or of
// a collection (a slice or a map: a list, set or map) FROZEN<...>: one
// value, written and read whole, instead of a column of its own fields or
// elements. A frozen value keeps a value whose every field is null apart
// from null, and an empty collection apart from null (a non-frozen empty
// collection is stored as no cell, read back as nil); it takes a
// secondary index on the whole value (FULL for a collection), and
// overwrites without a tombstone. A frozen collection takes no in-place
// change (kstore.Append, Add, Put, ...: "Invalid operation ... for frozen
// collection column"): it is written whole, with kstore.Set or a Save. A
// non-frozen one (the default, frozen only where servers require it) is
// what a table created by hand without FROZEN holds. Key columns are
// frozen whatever the option.
func Frozen() FieldOption {
	return fieldOption{"Frozen", func(s *fieldSpec) { s.frozen = true }}
}

// Sensitive marks the column for masking by logging layers.
func Sensitive() FieldOption {
	return fieldOption{"Sensitive", func(s *fieldSpec) { s.sensitive = true }}
}

// AsType gives the column a CQL type instead of the one derived from its Go
// type: DATE for a time.Time, TIME for a time.Duration, ASCII for a string,
// DECIMAL for a user decimal type, BLOB for a fixed-size byte array
// ([16]byte and uuid.UUID included, which are UUID otherwise; another
// [N]byte has no type without it), and so on. The Go type must be one the
// driver can marshal to t.
func AsType(t CQLType) FieldOption {
	return fieldOption{"AsType", func(s *fieldSpec) {
		if s.hasAsType && !sameType(s.asType, t) {
			s.conflicts = append(s.conflicts, "AsType is given twice, with "+s.asType.brief()+" and "+t.brief())
		}
		s.asType, s.hasAsType = t, true
	}}
}

// Bind declares options for the field that ptr points to. ptr must be the
// address of a field of the entity Describe was called on (&u.Email).
// Every exported field is a column without a Bind; Bind only adds to that.
// Binding one field several times merges the options.
func Bind[T, V any](s *Schema[T], ptr *V, opts ...FieldOption) {
	s.bind(ptr, reflect.TypeFor[V](), opts, nil)
}

// The roles the typed binders give. Each is a fieldOption too, so that it
// takes part in conflict checks under its binder's name.
var (
	roleCreatedAt = fieldOption{"CreatedAt", func(f *fieldSpec) { f.createdAt = true }}
	roleUpdatedAt = fieldOption{"UpdatedAt", func(f *fieldSpec) { f.updatedAt = true }}
	roleVersion   = fieldOption{"Version", func(f *fieldSpec) { f.version = true }}
	roleCounter   = fieldOption{"Counter", func(f *fieldSpec) { f.counter = true }}
)

func roleGenerated(strategy UUIDStrategy) fieldOption {
	return fieldOption{"GeneratedUUID", func(f *fieldSpec) {
		if f.generated && f.uuid != strategy {
			f.conflicts = append(f.conflicts, "GeneratedUUID is bound twice, with "+f.uuid.String()+" and "+strategy.String())
		}
		f.generated, f.uuid = true, strategy
	}}
}

// CreatedAt marks the time.Time field that the runtime stamps once, on
// insert. At most one per entity.
func CreatedAt[T any](s *Schema[T], ptr *time.Time, opts ...FieldOption) {
	s.bind(ptr, typeTime, opts, roleCreatedAt)
}

// UpdatedAt marks the time.Time field that the runtime stamps on every
// insert and update. At most one per entity, and never a key column (a key
// cannot be updated).
func UpdatedAt[T any](s *Schema[T], ptr *time.Time, opts ...FieldOption) {
	s.bind(ptr, typeTime, opts, roleUpdatedAt)
}

// VersionType is the set of Go types an optimistic-lock column may have.
type VersionType interface{ int64 | time.Time }

// Version marks the optimistic-lock column: an int64 counter or a
// time.Time. At most one per entity, and never a key column.
func Version[T any, V VersionType](s *Schema[T], ptr *V, opts ...FieldOption) {
	s.bind(ptr, reflect.TypeFor[V](), opts, roleVersion)
}

// Counter makes the int64 field a COUNTER column. A table with a counter
// column is a counter table: every non-key column must be a counter.
func Counter[T any](s *Schema[T], ptr *int64, opts ...FieldOption) {
	s.bind(ptr, reflect.TypeFor[int64](), opts, roleCounter)
}

// GeneratedUUID marks a uuid.UUID field that the runtime fills on insert
// when it is zero, with a time-ordered (UUIDv7, sortable, the default) or
// random (UUIDv4) id. It exists for keys: two rows written in the same
// millisecond never collide, unlike a timestamp key.
func GeneratedUUID[T any](s *Schema[T], ptr *uuid.UUID, strategy UUIDStrategy, opts ...FieldOption) {
	s.bind(ptr, typeUUID, opts, roleGenerated(strategy))
}

// sameType is Equal, bounded: a type too large to compare cheaply (see
// sizeProblem) equals only itself.
func sameType(a, b CQLType) bool {
	if a.sizeProblem() != "" || b.sizeProblem() != "" {
		return a.n == b.n
	}
	return a.Equal(b)
}
