package kandra

import (
	"strconv"
	"strings"
)

// IndexKind is the implementation a secondary index asks the server for.
type IndexKind uint8

const (
	// IndexDefault renders CREATE INDEX without USING, so the server picks
	// its default kind: Cassandra's legacy index under the shipped
	// cassandra.yaml, a storage-attached index (SAI) under
	// cassandra_latest.yaml, a global index on ScyllaDB. It is the only
	// kind every target accepts.
	IndexDefault IndexKind = iota
	// IndexSAI renders USING 'sai': a storage-attached index, whatever the
	// server's default. Cassandra only (ScyllaDB takes SAI on vectors
	// alone). It reads ranges of numbers, dates, times, timestamps,
	// timeuuids and inets, and its text analysis options
	// (SAICaseInsensitive, SAINormalize, SAIASCII) match text loosely.
	IndexSAI
	// IndexLegacy renders USING 'legacy_local_table': Cassandra's original
	// index, whatever the server's default. Cassandra only. It indexes a
	// blob, which SAI refuses, and reads by equality only.
	IndexLegacy
	// IndexVector is an ANN index on a vector column (VectorIndex), read
	// by kstore.Index.Nearest: USING 'sai' with the similarity function on
	// Cassandra 5.0.
	IndexVector
)

// String returns "default", "sai", "legacy" or "vector", or "IndexKind(n)".
func (k IndexKind) String() string {
	switch k {
	case IndexDefault:
		return "default"
	case IndexSAI:
		return "sai"
	case IndexLegacy:
		return "legacy"
	case IndexVector:
		return "vector"
	}
	return invalidEnum("IndexKind", uint64(k))
}

// Similarity is the function an ANN index (VectorIndex) ranks vectors by.
type Similarity uint8

const (
	// SimilarityCosine ranks by the angle between vectors, whatever their
	// length. It cannot index or query a zero vector, and needs a
	// dimension above 1.
	SimilarityCosine Similarity = iota + 1
	// SimilarityEuclidean ranks by the distance between the vectors'
	// points.
	SimilarityEuclidean
	// SimilarityDotProduct ranks by the dot product: the cosine for unit
	// vectors, at less cost. Give it normalized vectors.
	SimilarityDotProduct
)

// String returns the server's name, "COSINE", "EUCLIDEAN" or
// "DOT_PRODUCT", or "Similarity(n)".
func (s Similarity) String() string {
	switch s {
	case SimilarityCosine:
		return "COSINE"
	case SimilarityEuclidean:
		return "EUCLIDEAN"
	case SimilarityDotProduct:
		return "DOT_PRODUCT"
	}
	return invalidEnum("Similarity", uint64(s))
}

// IsValid reports whether s is one of the three functions.
func (s Similarity) IsValid() bool { return s >= SimilarityCosine && s <= SimilarityDotProduct }

// IndexTarget is what of a column its index holds: the value of a column
// that is not a collection, or a collection's values, keys, entries or
// whole value.
type IndexTarget uint8

const (
	// IndexTargetColumn indexes the column's value; it is the target of a
	// column that is not a collection. As an option (no target option
	// given) it means the column's natural target: a collection column's
	// values, a frozen collection (a key column, or one given Frozen)
	// whole.
	IndexTargetColumn IndexTarget = iota
	// IndexTargetValues indexes a collection's elements (a map's values),
	// read with CONTAINS: VALUES(c).
	IndexTargetValues
	// IndexTargetKeys indexes a map's keys, read with CONTAINS KEY: KEYS(m).
	IndexTargetKeys
	// IndexTargetEntries indexes a map's entries, read with m[k] = v:
	// ENTRIES(m).
	IndexTargetEntries
	// IndexTargetFull indexes a frozen collection whole, read by equality
	// of the whole value: FULL(c). In kandra a collection is frozen in a
	// key column, or given Frozen.
	IndexTargetFull
)

// String returns "column", "values", "keys", "entries" or "full", or
// "IndexTarget(n)".
func (t IndexTarget) String() string {
	switch t {
	case IndexTargetColumn:
		return "column"
	case IndexTargetValues:
		return "values"
	case IndexTargetKeys:
		return "keys"
	case IndexTargetEntries:
		return "entries"
	case IndexTargetFull:
		return "full"
	}
	return invalidEnum("IndexTarget", uint64(t))
}

// IndexOption configures the index SecondaryIndex creates.
type IndexOption struct {
	name  string
	apply func(*indexSpec) string // returns a contradiction, or ""
}

// String returns the option's name, "UsingSAI".
func (o IndexOption) String() string { return o.name }

// indexSpec is what SecondaryIndex's options asked for; comparable, so
// that the same SecondaryIndex bound twice is one index.
type indexSpec struct {
	kind            IndexKind
	target          IndexTarget // IndexTargetColumn: the column's natural target
	caseInsensitive bool
	normalize       bool
	ascii           bool
	similarity      Similarity // IndexVector's
	name            string     // IndexNamed's; "" for the derived name
}

func (s *indexSpec) hasAnalysis() bool { return s.caseInsensitive || s.normalize || s.ascii }

func kindOption(name string, k IndexKind) IndexOption {
	return IndexOption{name, func(s *indexSpec) string {
		if s.kind != IndexDefault && s.kind != k {
			return "SecondaryIndex is given two index kinds (" + s.kind.String() + " and " + k.String() + "); give one of UsingSAI and UsingLegacy"
		}
		s.kind = k
		return ""
	}}
}

func targetOption(name string, t IndexTarget) IndexOption {
	return IndexOption{name, func(s *indexSpec) string {
		if s.target != IndexTargetColumn && s.target != t {
			return "SecondaryIndex is given two targets (" + s.target.String() + " and " + t.String() + "); an index has one target, and a column one index"
		}
		s.target = t
		return ""
	}}
}

// UsingSAI makes the index a storage-attached index (USING 'sai'); see
// IndexSAI. A keyspace with a ScyllaDB target refuses it (RuleIndexKind).
func UsingSAI() IndexOption { return kindOption("UsingSAI", IndexSAI) }

// UsingLegacy makes the index Cassandra's legacy index (USING
// 'legacy_local_table'); see IndexLegacy. A keyspace with a ScyllaDB
// target refuses it (RuleIndexKind).
func UsingLegacy() IndexOption { return kindOption("UsingLegacy", IndexLegacy) }

// IndexValues indexes a collection column's elements (a map's values),
// which is also what an index on a collection holds without a target
// option.
func IndexValues() IndexOption { return targetOption("IndexValues", IndexTargetValues) }

// IndexKeys indexes a map column's keys.
func IndexKeys() IndexOption { return targetOption("IndexKeys", IndexTargetKeys) }

// IndexEntries indexes a map column's entries (key and value together).
func IndexEntries() IndexOption { return targetOption("IndexEntries", IndexTargetEntries) }

// IndexFull indexes a frozen collection whole (a collection in a key
// column, or one given Frozen), which is also what its index holds
// without a target option.
func IndexFull() IndexOption { return targetOption("IndexFull", IndexTargetFull) }

// IndexNamed gives the index the name name instead of the derived
// "{table}_{column}_idx": the name an existing keyspace's index already
// has, so that the migrator plans nothing for it (an index of another
// name on the same column would be refused as a duplicate, or taken as a
// no-op). The name is 1 to 48 ASCII letters, digits or underscores
// (RuleInvalidName, RuleNameLength), unique in the keyspace like every
// table and index name (RuleNameCollision). SecondaryIndex and
// VectorIndex both take it.
func IndexNamed(name string) IndexOption {
	return IndexOption{"IndexNamed", func(s *indexSpec) string {
		if s.name != "" && s.name != name {
			return "SecondaryIndex is given two names (" + strconv.Quote(s.name) + " and " + strconv.Quote(name) + "); an index has one name"
		}
		s.name = name
		return ""
	}}
}

func analysisOption(name string, set func(*indexSpec)) IndexOption {
	return IndexOption{name, func(s *indexSpec) string { set(s); return "" }}
}

// SAICaseInsensitive makes an SAI index on text match regardless of case
// ('case_sensitive': 'false'): Find("hello") finds "Hello". It needs
// UsingSAI, and a text value that is not a key column (RuleSAI).
func SAICaseInsensitive() IndexOption {
	return analysisOption("SAICaseInsensitive", func(s *indexSpec) { s.caseInsensitive = true })
}

// SAINormalize makes an SAI index on text match Unicode-equivalent
// spellings ('normalize': 'true', NFC): "é" as one code point or as e and
// a combining accent. It needs UsingSAI, and a text value that is not a
// key column (RuleSAI).
func SAINormalize() IndexOption {
	return analysisOption("SAINormalize", func(s *indexSpec) { s.normalize = true })
}

// SAIASCII makes an SAI index on text fold accented letters to ASCII
// ('ascii': 'true'): "café" matches "cafe". It needs UsingSAI, and a text
// value that is not a key column (RuleSAI).
func SAIASCII() IndexOption {
	return analysisOption("SAIASCII", func(s *indexSpec) { s.ascii = true })
}

// IndexSpec describes a column's secondary index as Register resolved it.
type IndexSpec struct {
	// Name is the index's name: IndexNamed's, else "{table}_{column}_idx"
	// (TableSchema.IndexName).
	Name string
	// Kind is the implementation the index asks for.
	Kind IndexKind
	// Target is what the index holds, resolved: IndexTargetColumn for a
	// column that is not a collection, never for one that is.
	Target IndexTarget
	// CaseInsensitive, Normalize and ASCII are an SAI index's text
	// analysis options.
	CaseInsensitive, Normalize, ASCII bool
	// Similarity is an ANN index's function (Kind IndexVector), zero for
	// every other kind.
	Similarity Similarity
	// Ranges reports an index that reads ranges (<, <=, >, >=) without
	// ALLOW FILTERING: an SAI index (UsingSAI) on a number, a date, a time,
	// a timestamp, a timeuuid or an inet. Text, uuid, boolean and
	// collections are read by equality only, as is every legacy index.
	Ranges bool
}

// Index returns the column's secondary index, and false when it has none.
func (c *ColumnSchema) Index() (IndexSpec, bool) {
	if !c.index {
		return IndexSpec{}, false
	}
	s := c.indexOpts
	return IndexSpec{Name: c.indexName(c.table.name), Kind: s.kind, Target: c.indexTarget(),
		CaseInsensitive: s.caseInsensitive, Normalize: s.normalize, ASCII: s.ascii, Similarity: s.similarity,
		Ranges: s.kind == IndexSAI && c.saiRanges()}, true
}

// AnalysisOptions are the index's WITH OPTIONS map as kandra renders it,
// nil when there are none: SAI's text analysis, or an ANN index's
// similarity_function.
func (s IndexSpec) AnalysisOptions() map[string]string {
	if s.Kind == IndexVector {
		return map[string]string{"similarity_function": s.Similarity.String()}
	}
	if !s.CaseInsensitive && !s.Normalize && !s.ASCII {
		return nil
	}
	m := map[string]string{}
	if s.CaseInsensitive {
		m["case_sensitive"] = "false"
	}
	if s.Normalize {
		m["normalize"] = "true"
	}
	if s.ASCII {
		m["ascii"] = "true"
	}
	return m
}

// isFrozenCollection reports whether the column's collection type is
// frozen, as it is in a key column or given Frozen.
func (c *ColumnSchema) isFrozenCollection() bool {
	return c.typ.IsCollection() && c.IsFrozen()
}

// indexTarget resolves the target option against the column's type.
func (c *ColumnSchema) indexTarget() IndexTarget {
	t := c.indexOpts.target
	if t != IndexTargetColumn || !c.typ.IsCollection() {
		return t
	}
	if c.isFrozenCollection() {
		return IndexTargetFull
	}
	return IndexTargetValues
}

// indexed is the type of what the index holds: the column's type, or a
// collection's element or key type.
func (c *ColumnSchema) indexed() CQLType {
	switch c.indexTarget() {
	case IndexTargetValues:
		return c.typ.Elem()
	case IndexTargetKeys:
		return c.typ.Key()
	}
	return c.typ
}

// indexTargetProblem says why a server refuses the index's target on the
// column, or "".
func (c *ColumnSchema) indexTargetProblem() string {
	want := c.indexOpts.target
	if want == IndexTargetColumn {
		return ""
	}
	opt := map[IndexTarget]string{IndexTargetValues: "IndexValues", IndexTargetKeys: "IndexKeys", IndexTargetEntries: "IndexEntries", IndexTargetFull: "IndexFull"}[want]
	what := "column " + strconv.Quote(c.name) + " (" + c.typ.brief() + ")"
	switch {
	case !c.typ.IsCollection():
		return opt + " indexes part of a collection, and " + what + " is not one (\"Non-collection columns only support simple indexes\"); drop " + opt
	case want == IndexTargetFull && !c.isFrozenCollection():
		return "IndexFull indexes a frozen collection whole, and " + what + " is not frozen (\"full() indexes can only be created on frozen collections\"); drop IndexFull to index its values, or give the column kandra.Frozen() (a schema change) to index it whole"
	case want != IndexTargetFull && c.isFrozenCollection():
		why, out := "is a key column, so its collection is frozen", ""
		if c.role == RegularColumn {
			why, out = "is frozen (kandra.Frozen)", ", or drop kandra.Frozen (a schema change) to index its parts"
		}
		return what + " " + why + " and indexed whole (\"Frozen collections are immutable and must be fully indexed\"); drop " + opt + ", or use IndexFull" + out
	case (want == IndexTargetKeys || want == IndexTargetEntries) && c.typ.Kind() != KindMap:
		return opt + " indexes a map, and " + what + " is not one (\"Cannot create index on " + map[IndexTarget]string{IndexTargetKeys: "keys", IndexTargetEntries: "entries"}[want] + " of column ... with non-map type\"); use IndexValues, or drop " + opt
	}
	return ""
}

// saiProblem says why an SAI index (explicit, or the server's default
// under cassandra_latest.yaml) refuses the column, or "".
func (c *ColumnSchema) saiProblem() string {
	if p := nameProblem(c.name); p != "" {
		return "SAI refuses a column whose name " + p + " (\"contains non-alphanumeric-underscore characters\"); rename the column with kandra.Column"
	}
	if c.typ.contains(CQLBlob) {
		return "SAI refuses blob values (\"Unsupported type: blob\")"
	}
	return ""
}

// saiOn reports whether the index on c is storage-attached on target:
// asked for (UsingSAI, or an ANN index), or by default where CREATE INDEX
// makes one (Cassandra5Latest's default_secondary_index: sai).
func (c *ColumnSchema) saiOn(target Target) bool {
	if target&cassandraTargets == 0 {
		return false
	}
	switch c.indexOpts.kind {
	case IndexSAI, IndexVector:
		return true
	case IndexDefault:
		return target == Cassandra5Latest
	}
	return false
}

// analysisProblem says why SAI refuses the index's analysis options on
// the column, or "".
func (c *ColumnSchema) analysisProblem() string {
	s := c.indexOpts
	if !s.hasAnalysis() {
		return ""
	}
	if s.kind != IndexSAI {
		return "SAICaseInsensitive, SAINormalize and SAIASCII are options of an SAI index; add kandra.UsingSAI() to the SecondaryIndex (a legacy or default index would refuse them, or ignore them where the default is SAI on one server and not another)"
	}
	if c.role != RegularColumn {
		return "SAI's text analysis options cannot be on a primary-key column (\"Analysis options are not supported on primary key columns\"); drop them, or index a regular copy of the value"
	}
	switch ix := c.indexed(); {
	case c.indexTarget() == IndexTargetEntries || c.indexTarget() == IndexTargetFull:
		return "SAI's text analysis options apply to a text value, and the index holds a collection's " + c.indexTarget().String() + "; drop them"
	case !ix.Equal(CQLText) && !ix.Equal(CQLAscii) && !ix.Equal(CQLVarchar):
		return "SAI's text analysis options apply to text, and the index holds " + ix.brief() + " (\"CQL type " + strings.ToLower(ix.brief()) + " cannot be analyzed.\"); drop them"
	}
	return ""
}

// vectorIndexProblem says why the column's index is refused for its
// vector, or "": a vector column takes only an ANN index, an ANN index
// only a vector column.
func (c *ColumnSchema) vectorIndexProblem() string {
	isVector := c.typ.Kind() == KindVector
	switch {
	case isVector && c.indexOpts.kind != IndexVector:
		return "a vector column is read by its nearest neighbours, through an ANN index: bind it with kandra.VectorIndex(kandra.SimilarityCosine) (or Euclidean, DotProduct) instead of SecondaryIndex (whose default kind differs by server: an equality index on Cassandra's shipped yaml, an ANN index under cassandra_latest.yaml)"
	case !isVector && c.indexOpts.kind == IndexVector:
		return "VectorIndex is an ANN index on a vector, and column " + strconv.Quote(c.name) + " holds " + c.typ.brief() + "; give the field a [N]float32 type, or use SecondaryIndex"
	case !isVector:
		return ""
	case !c.indexOpts.similarity.IsValid():
		return "VectorIndex is given " + c.indexOpts.similarity.String() + "; give kandra.SimilarityCosine, SimilarityEuclidean or SimilarityDotProduct"
	case c.indexOpts.similarity == SimilarityCosine && c.typ.Dim() == 1:
		return "cosine similarity needs a dimension above 1 (\"Cosine similarity is not supported for single-dimension vectors\"); use SimilarityEuclidean or SimilarityDotProduct"
	}
	return c.saiProblem()
}

// saiRanges reports whether an SAI index on the column reads ranges
// (<, <=, >, >=) without ALLOW FILTERING: numbers, dates, times,
// timestamps, timeuuids and inets do; text, uuid, boolean and
// collections do not.
func (c *ColumnSchema) saiRanges() bool {
	if c.indexTarget() != IndexTargetColumn {
		return false
	}
	for _, t := range []CQLType{CQLTinyint, CQLSmallint, CQLInt, CQLBigint, CQLVarint, CQLFloat, CQLDouble, CQLDecimal, CQLDate, CQLTime, CQLTimestamp, CQLTimeUUID, CQLInet} {
		if c.typ.Equal(t) {
			return true
		}
	}
	return false
}
