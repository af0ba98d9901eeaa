package kandra

import (
	"fmt"
	"hash/fnv"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kandra-go/kandra/internal/reflectx"
)

// ClusteringOrder is the on-disk sort order of a clustering column, fixed
// when the table is created.
type ClusteringOrder uint8

const (
	// ClusteringAsc sorts a clustering column ascending (the server's
	// default).
	ClusteringAsc ClusteringOrder = iota
	// ClusteringDesc sorts a clustering column descending.
	ClusteringDesc
)

// IsValid reports whether o is ClusteringAsc or ClusteringDesc.
// Registration rejects any other value (RuleOptionRange).
func (o ClusteringOrder) IsValid() bool { return o <= ClusteringDesc }

// String returns "ASC" or "DESC", or "ClusteringOrder(n)" for an invalid
// value.
func (o ClusteringOrder) String() string {
	switch o {
	case ClusteringAsc:
		return "ASC"
	case ClusteringDesc:
		return "DESC"
	}
	return invalidEnum("ClusteringOrder", uint64(o))
}

// LookupKind is the kind of a lookup: whether a value is unique, and how
// the runtime keeps the lookup table in step with its primary table. The
// schema only records the choice.
//
// LookupBatch and LookupEventual are non-unique: many entities may hold a
// value, and the lookup table has one row per value and holder (its key is
// the value, then the primary key), so every holder is found. LookupUnique
// claims each value for one entity.
type LookupKind uint8

const (
	// LookupBatch writes the lookup row in the same LOGGED BATCH as the
	// primary row: atomic, at a latency cost. Non-unique.
	LookupBatch LookupKind = iota
	// LookupEventual writes the lookup row asynchronously after the primary
	// write: cheaper, with a window in which the lookup lags. Non-unique.
	LookupEventual
	// LookupUnique claims the value for one entity with a lightweight
	// transaction before the primary write: taking a value another live
	// entity holds fails. The lookup table's key is the value alone, and
	// it is written by lightweight transactions only.
	LookupUnique
)

// IsValid reports whether k is LookupBatch, LookupEventual or
// LookupUnique. Registration rejects any other value (RuleOptionRange).
func (k LookupKind) IsValid() bool { return k <= LookupUnique }

// String returns "BATCH", "EVENTUAL" or "UNIQUE", or
// "LookupKind(n)" for an invalid value.
func (k LookupKind) String() string {
	switch k {
	case LookupBatch:
		return "BATCH"
	case LookupEventual:
		return "EVENTUAL"
	case LookupUnique:
		return "UNIQUE"
	}
	return invalidEnum("LookupKind", uint64(k))
}

// KeyRole is a column's part in the primary key.
type KeyRole uint8

const (
	// RegularColumn is not part of the primary key.
	RegularColumn KeyRole = iota
	// PartitionKeyColumn is a component of the partition key.
	PartitionKeyColumn
	// ClusteringKeyColumn is a clustering column.
	ClusteringKeyColumn
)

// IsValid reports whether r is one of the three roles.
func (r KeyRole) IsValid() bool { return r <= ClusteringKeyColumn }

// String returns "regular", "partition key" or "clustering key", or
// "KeyRole(n)" for an invalid value.
func (r KeyRole) String() string {
	switch r {
	case RegularColumn:
		return "regular"
	case PartitionKeyColumn:
		return "partition key"
	case ClusteringKeyColumn:
		return "clustering key"
	}
	return invalidEnum("KeyRole", uint64(r))
}

// invalidEnum renders an out-of-range enum value the way the standard
// library's stringers do, "Type(n)", so that it never passes for a valid one.
func invalidEnum(typ string, n uint64) string {
	return typ + "(" + strconv.FormatUint(n, 10) + ")"
}

// ColumnSchema describes one column of a registered table. It is immutable.
type ColumnSchema struct {
	goName   string // field path, "Audit.CreatedAt"
	name     string // raw CQL name
	cqlName  string // name as written in CQL (QuoteIdent)
	typ      CQLType
	goType   reflect.Type
	offset   uintptr
	ptrType  reflectx.TypeWord // type word of *goType, for per-row interfaces
	position int
	table    *TableSchema

	role     KeyRole
	keyIndex int // partition or clustering index
	order    ClusteringOrder
	lookup   *LookupTableSchema
	check    valueCheck   // nil: every value of goType has an exact form (see CheckValue)
	parts    [2]partCheck // CheckPart's: an element's, a map key's
	stored   storedState  // AppendStored's plan, built on first use (stored.go)
	columnFlags
}

// GoName is the Go field path the column comes from ("Email",
// "Audit.CreatedAt").
func (c *ColumnSchema) GoName() string { return c.goName }

// Name is the column's name as stored by the server (derived by SnakeCase
// or given with Column).
func (c *ColumnSchema) Name() string { return c.name }

// CQLName is the column's name as it must appear in a CQL statement:
// Name, quoted where a server needs it (see QuoteIdent).
func (c *ColumnSchema) CQLName() string { return c.cqlName }

// Type is the column's CQL type.
func (c *ColumnSchema) Type() CQLType { return c.typ }

// Decl renders the column's type as declared in its table: frozen in a
// primary-key position or given Frozen, COUNTER for counters.
func (c *ColumnSchema) Decl() string {
	var b strings.Builder
	c.writeDecl(&b)
	return b.String()
}

// Table is the table the column belongs to.
func (c *ColumnSchema) Table() *TableSchema { return c.table }

// writeDecl writes Decl to b, for DDL rendering without a string per
// column.
func (c *ColumnSchema) writeDecl(b *strings.Builder) {
	c.typ.write(b, c.role != RegularColumn || c.frozen) // frozen in a key or by Frozen, as CQLType.Frozen
}

// IsFrozen reports whether the column's declaration is frozen at the top:
// a collection or user-defined type in a key, or one given Frozen.
func (c *ColumnSchema) IsFrozen() bool {
	k := c.typ.Kind()
	return (k == KindUDT || c.typ.IsCollection()) && (c.role != RegularColumn || c.frozen)
}

// GoType is the Go type of the field.
func (c *ColumnSchema) GoType() reflect.Type { return c.goType }

// Position is the column's index in TableSchema.Columns.
func (c *ColumnSchema) Position() int { return c.position }

// Role is the column's part in the primary key.
func (c *ColumnSchema) Role() KeyRole { return c.role }

// IsPartitionKey reports whether the column is a partition-key component.
func (c *ColumnSchema) IsPartitionKey() bool { return c.role == PartitionKeyColumn }

// IsClusteringKey reports whether the column is a clustering column.
func (c *ColumnSchema) IsClusteringKey() bool { return c.role == ClusteringKeyColumn }

// KeyIndex is the index given to PartitionKey or ClusteringKey; it is
// meaningful only for key columns.
func (c *ColumnSchema) KeyIndex() int { return c.keyIndex }

// ClusteringOrder is the sort order of a clustering column (ClusteringAsc
// for other columns).
func (c *ColumnSchema) ClusteringOrder() ClusteringOrder { return c.order }

// Lookup returns the lookup table this column indexes, or nil.
func (c *ColumnSchema) Lookup() *LookupTableSchema { return c.lookup }

// IsCounter reports a COUNTER column.
func (c *ColumnSchema) IsCounter() bool { return c.counter }

// IsCreatedAt reports the column the runtime stamps on insert.
func (c *ColumnSchema) IsCreatedAt() bool { return c.createdAt }

// IsUpdatedAt reports the column the runtime stamps on every write.
func (c *ColumnSchema) IsUpdatedAt() bool { return c.updatedAt }

// IsVersion reports the optimistic-lock column.
func (c *ColumnSchema) IsVersion() bool { return c.version }

// IsSecondaryIndex reports a column with a native secondary index.
func (c *ColumnSchema) IsSecondaryIndex() bool { return c.index }

// IsStatic reports whether the column is static (Static): one value per
// partition.
func (c *ColumnSchema) IsStatic() bool { return c.static }

// IsSensitive reports a column that logging layers must mask.
func (c *ColumnSchema) IsSensitive() bool { return c.sensitive }

// IsSoftDeleteMarker reports the boolean column that records soft deletion.
func (c *ColumnSchema) IsSoftDeleteMarker() bool { return c.softDeleteMarker }

// GeneratedUUID reports whether the runtime fills the column with a new
// UUID on insert, and with which strategy.
func (c *ColumnSchema) GeneratedUUID() (UUIDStrategy, bool) { return c.uuid, c.generated }

// indexName is the name IndexNamed gave the column's index, or composes
// the name kandra gives a secondary index on the column,
// "{table}_{column}_idx", whether or not the column has one.
// A column name that is not all ASCII letters, digits and _ ("Größe",
// "Mixed Case") cannot appear in an index name as is: its other characters
// become _, and a hash of the whole name keeps two such names apart.
func (c *ColumnSchema) indexName(table string) string {
	if c.indexOpts.name != "" {
		return c.indexOpts.name
	}
	if nameProblemUpTo(c.name, len(c.name)) == "" {
		return table + "_" + c.name + "_idx"
	}
	var b strings.Builder
	for _, r := range c.name {
		if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	h := fnv.New32a()
	h.Write([]byte(c.name))
	return fmt.Sprintf("%s_%s_%08x_idx", table, b.String(), h.Sum32())
}

// LookupTableSchema describes a denormalized lookup table: the indexed
// column, then the primary table's partition and clustering columns, so a
// lookup resolves to the full primary key. A unique lookup's key is the
// indexed column alone (one holder per value); a non-unique one's is the
// indexed column as the partition key and the primary key's other columns
// as clustering columns (one row per value and holder).
type LookupTableSchema struct {
	name       string
	cqlName    string
	suffix     string
	index      *ColumnSchema
	partition  []*ColumnSchema
	clustering []*ColumnSchema
	kind       LookupKind
}

// Name is the lookup table's name, "{table}_{suffix}".
func (l *LookupTableSchema) Name() string { return l.name }

// CQLName is Name as written in CQL.
func (l *LookupTableSchema) CQLName() string { return l.cqlName }

// Suffix is the suffix given to Lookup.
func (l *LookupTableSchema) Suffix() string { return l.suffix }

// IndexColumn is the indexed column of the primary table; it is the lookup
// table's primary key.
func (l *LookupTableSchema) IndexColumn() *ColumnSchema { return l.index }

// PartitionKeys returns the primary table's partition-key columns carried
// by the lookup table (a fresh slice).
func (l *LookupTableSchema) PartitionKeys() []*ColumnSchema { return clone(l.partition) }

// ClusteringKeys returns the primary table's clustering columns carried by
// the lookup table (a fresh slice).
func (l *LookupTableSchema) ClusteringKeys() []*ColumnSchema { return clone(l.clustering) }

// Table is the primary table the lookup table indexes.
func (l *LookupTableSchema) Table() *TableSchema { return l.index.table }

// Columns returns the lookup table's columns in order: index column,
// partition keys, clustering keys (a fresh slice).
// A lookup on a key column (a component of a composite partition key, or
// a clustering column) lists that column once, as the index column.
func (l *LookupTableSchema) Columns() []*ColumnSchema {
	out := make([]*ColumnSchema, 0, 1+len(l.partition)+len(l.clustering))
	out = append(out, l.index)
	return append(out, l.carried()...)
}

// carried is the primary key's columns other than the index column: the
// columns a lookup table holds besides its key.
func (l *LookupTableSchema) carried() []*ColumnSchema {
	out := make([]*ColumnSchema, 0, len(l.partition)+len(l.clustering))
	for _, c := range slices.Concat(l.partition, l.clustering) {
		if c != l.index {
			out = append(out, c)
		}
	}
	return out
}

// Kind is the lookup's kind: LookupBatch, LookupEventual or LookupUnique.
func (l *LookupTableSchema) Kind() LookupKind { return l.kind }

// IsUnique reports a LookupUnique lookup: one holder per value.
func (l *LookupTableSchema) IsUnique() bool { return l.kind == LookupUnique }

// Carried returns the primary key's columns other than the indexed one,
// in key order: the holder's key in a lookup row (a fresh slice).
func (l *LookupTableSchema) Carried() []*ColumnSchema { return l.carried() }

// SoftDeleteConfig is the soft-delete configuration recorded with
// SoftDelete: rows are written with a TTL instead of being deleted.
type SoftDeleteConfig struct {
	// TTL is the time to live of a soft-deleted row, whole seconds.
	TTL time.Duration
	// Marker is the boolean column that records deletion, or nil.
	Marker *ColumnSchema
}

// TableSchema is the validated, immutable description of a registered
// entity's table. Accessors that return slices return fresh copies.
type TableSchema struct {
	entity     reflect.Type
	ptrType    reflectx.TypeWord // type word of *entity
	name       string
	cqlName    string
	columns    []*ColumnSchema
	partition  []*ColumnSchema
	clustering []*ColumnSchema
	lookups    []*LookupTableSchema
	indexes    []*ColumnSchema
	ttl        int
	hasTTL     bool
	gcGrace    int
	hasGCGrace bool
	counter    bool
	createdAt  *ColumnSchema
	updatedAt  *ColumnSchema
	version    *ColumnSchema
	softDelete *SoftDeleteConfig
	read       Consistency
	hasRead    bool
	write      Consistency
	hasWrite   bool
	omitNulls  bool
	storage    StorageOptions
}

// EntityType is the Go struct type the table was registered for.
func (t *TableSchema) EntityType() reflect.Type { return t.entity }

// Name is the table's name.
func (t *TableSchema) Name() string { return t.name }

// CQLName is Name as written in CQL.
func (t *TableSchema) CQLName() string { return t.cqlName }

// Columns returns every column in DDL order: partition keys by index,
// clustering keys by index, then the rest in struct order (a fresh slice).
func (t *TableSchema) Columns() []*ColumnSchema { return clone(t.columns) }

// NumColumns is len(Columns()) without the copy.
func (t *TableSchema) NumColumns() int { return len(t.columns) }

// Column returns the i-th column in DDL order.
func (t *TableSchema) Column(i int) *ColumnSchema { return t.columns[i] }

// ColumnByName returns the column with the given raw CQL name, or nil.
func (t *TableSchema) ColumnByName(name string) *ColumnSchema {
	for _, c := range t.columns {
		if c.name == name {
			return c
		}
	}
	return nil
}

// PartitionKeys returns the partition-key columns by index (a fresh slice).
func (t *TableSchema) PartitionKeys() []*ColumnSchema { return clone(t.partition) }

// ClusteringKeys returns the clustering columns by index (a fresh slice).
func (t *TableSchema) ClusteringKeys() []*ColumnSchema { return clone(t.clustering) }

// PrimaryKey returns the partition keys, then the clustering keys.
func (t *TableSchema) PrimaryKey() []*ColumnSchema {
	return append(clone(t.partition), t.clustering...)
}

// LookupTables returns the lookup tables in declaration order (a fresh slice).
func (t *TableSchema) LookupTables() []*LookupTableSchema { return clone(t.lookups) }

// StaticColumns returns the table's static columns (Static), in column
// order.
func (t *TableSchema) StaticColumns() []*ColumnSchema {
	var out []*ColumnSchema
	for _, c := range t.columns {
		if c.static {
			out = append(out, c)
		}
	}
	return out
}

// SecondaryIndexes returns the columns with a secondary index (a fresh slice).
func (t *TableSchema) SecondaryIndexes() []*ColumnSchema { return clone(t.indexes) }

// IndexName is the name of the secondary index on c: the one
// kandra.IndexNamed gives it, else "{table}_{column}_idx".
func (t *TableSchema) IndexName(c *ColumnSchema) string { return c.indexName(t.name) }

// DefaultTTL is the table's default_time_to_live, if set.
func (t *TableSchema) DefaultTTL() (time.Duration, bool) {
	return time.Duration(t.ttl) * time.Second, t.hasTTL
}

// GCGrace is the table's gc_grace_seconds, if set (otherwise the server's
// default of ten days applies).
func (t *TableSchema) GCGrace() (time.Duration, bool) {
	return time.Duration(t.gcGrace) * time.Second, t.hasGCGrace
}

// IsCounterTable reports a table whose non-key columns are all counters.
func (t *TableSchema) IsCounterTable() bool { return t.counter }

// CreatedAtColumn is the column bound with CreatedAt, or nil.
func (t *TableSchema) CreatedAtColumn() *ColumnSchema { return t.createdAt }

// UpdatedAtColumn is the column bound with UpdatedAt, or nil.
func (t *TableSchema) UpdatedAtColumn() *ColumnSchema { return t.updatedAt }

// VersionColumn is the optimistic-lock column bound with Version, or nil.
func (t *TableSchema) VersionColumn() *ColumnSchema { return t.version }

// SoftDelete returns the soft-delete configuration, or nil.
func (t *TableSchema) SoftDelete() *SoftDeleteConfig {
	if t.softDelete == nil {
		return nil
	}
	c := *t.softDelete
	return &c
}

// ReadConsistency is the table's read consistency override, if any. The
// runtime resolves: per-call value, then this, then its default.
func (t *TableSchema) ReadConsistency() (Consistency, bool) { return t.read, t.hasRead }

// WriteConsistency is the table's write consistency override, if any.
func (t *TableSchema) WriteConsistency() (Consistency, bool) { return t.write, t.hasWrite }

// OmitsNulls reports that the table's writes leave null columns unset
// (OmitNulls).
func (t *TableSchema) OmitsNulls() bool { return t.omitNulls }

func clone[E any](s []E) []E { return append([]E(nil), s...) }
