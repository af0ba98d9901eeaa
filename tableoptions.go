package kandra

import (
	"errors"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The storage options of a table: compaction, compression, caching and
// the rest of CREATE TABLE's WITH clause that servers spell differently.
// Each is a TableOption of the primary table (its lookup tables keep the
// server's defaults); RuleOptionRange checks the values, RuleOptionTarget
// that the keyspace's targets have the option, and the DDL renders it in
// the targets' dialect.

// CompactionKind is a compaction strategy.
type CompactionKind uint8

const (
	// CompactionSizeTiered is SizeTieredCompactionStrategy (STCS), both servers.
	CompactionSizeTiered CompactionKind = iota + 1
	// CompactionLeveled is LeveledCompactionStrategy (LCS), both servers.
	CompactionLeveled
	// CompactionTimeWindow is TimeWindowCompactionStrategy (TWCS), both servers.
	CompactionTimeWindow
	// CompactionUnified is UnifiedCompactionStrategy (UCS), Cassandra 5.0 only.
	CompactionUnified
	// CompactionIncremental is IncrementalCompactionStrategy (ICS), ScyllaDB only.
	CompactionIncremental
)

var compactionClasses = map[CompactionKind]string{
	CompactionSizeTiered: "SizeTieredCompactionStrategy", CompactionLeveled: "LeveledCompactionStrategy",
	CompactionTimeWindow: "TimeWindowCompactionStrategy", CompactionUnified: "UnifiedCompactionStrategy",
	CompactionIncremental: "IncrementalCompactionStrategy",
}

// String returns the strategy's class name, "LeveledCompactionStrategy",
// or "CompactionKind(n)".
func (k CompactionKind) String() string {
	if c, ok := compactionClasses[k]; ok {
		return c
	}
	return invalidEnum("CompactionKind", uint64(k))
}

// TimeWindowUnit is the unit of a time-window compaction's windows.
type TimeWindowUnit uint8

const (
	// WindowMinutes is compaction_window_unit MINUTES.
	WindowMinutes TimeWindowUnit = iota + 1
	// WindowHours is compaction_window_unit HOURS.
	WindowHours
	// WindowDays is compaction_window_unit DAYS.
	WindowDays
)

// String returns "MINUTES", "HOURS" or "DAYS", or "TimeWindowUnit(n)".
func (u TimeWindowUnit) String() string {
	switch u {
	case WindowMinutes:
		return "MINUTES"
	case WindowHours:
		return "HOURS"
	case WindowDays:
		return "DAYS"
	}
	return invalidEnum("TimeWindowUnit", uint64(u))
}

// CompactionStrategy is a table's compaction: a kind and its settings, a
// zero setting leaving the server's default. Make one with SizeTiered,
// Leveled, TimeWindow, Unified or Incremental.
type CompactionStrategy struct {
	// Kind is the strategy.
	Kind CompactionKind
	// SSTableSizeMB is LCS's sstable_size_in_mb (0: the server's 160).
	SSTableSizeMB int
	// WindowUnit and WindowSize are TWCS's window (0: the server's 1 day).
	WindowUnit TimeWindowUnit
	WindowSize int
	// ScalingParameters is UCS's scaling_parameters, "T4", "L10", "N",
	// or several separated by commas ("": the server's T4).
	ScalingParameters string
}

// SizeTiered is size-tiered compaction (STCS), the servers' default.
func SizeTiered() CompactionStrategy { return CompactionStrategy{Kind: CompactionSizeTiered} }

// Leveled is leveled compaction (LCS) with sstables of sizeMB megabytes
// (0 for the server's default, at most 87960: Cassandra's largest).
func Leveled(sizeMB int) CompactionStrategy {
	return CompactionStrategy{Kind: CompactionLeveled, SSTableSizeMB: sizeMB}
}

// TimeWindow is time-window compaction (TWCS), for rows written in time
// order and expired by TTL: one sstable per window of size units.
func TimeWindow(unit TimeWindowUnit, size int) CompactionStrategy {
	return CompactionStrategy{Kind: CompactionTimeWindow, WindowUnit: unit, WindowSize: size}
}

// Unified is Cassandra 5.0's unified compaction (UCS) with its
// scaling_parameters ("" for the server's default).
func Unified(scaling string) CompactionStrategy {
	return CompactionStrategy{Kind: CompactionUnified, ScalingParameters: scaling}
}

// Incremental is ScyllaDB's incremental compaction (ICS).
func Incremental() CompactionStrategy { return CompactionStrategy{Kind: CompactionIncremental} }

// Compressor is an sstable compression algorithm, the same class names on
// both servers.
type Compressor uint8

const (
	// LZ4Compressor is LZ4Compressor, the servers' default.
	LZ4Compressor Compressor = iota + 1
	// SnappyCompressor is SnappyCompressor.
	SnappyCompressor
	// DeflateCompressor is DeflateCompressor.
	DeflateCompressor
	// ZstdCompressor is ZstdCompressor.
	ZstdCompressor
)

// String returns the compressor's class name, "LZ4Compressor", or
// "Compressor(n)".
func (c Compressor) String() string {
	switch c {
	case LZ4Compressor:
		return "LZ4Compressor"
	case SnappyCompressor:
		return "SnappyCompressor"
	case DeflateCompressor:
		return "DeflateCompressor"
	case ZstdCompressor:
		return "ZstdCompressor"
	}
	return invalidEnum("Compressor", uint64(c))
}

// CompressionSpec is a table's sstable compression.
type CompressionSpec struct {
	// Off is no compression at all; the other fields are then zero.
	Off bool
	// Compressor is the algorithm.
	Compressor Compressor
	// ChunkLengthKB is chunk_length_in_kb, a power of two (0: the
	// server's default).
	ChunkLengthKB int
}

// CachingSpec is Cassandra's caching map.
type CachingSpec struct {
	// Keys caches the partition keys (keys 'ALL'), or not ('NONE').
	Keys bool
	// RowsPerPartition is how many rows of a partition the row cache
	// holds: 0 none, CachingAllRows all, or a count.
	RowsPerPartition int
}

// CachingAllRows is Caching's rowsPerPartition for every row of a
// partition (rows_per_partition 'ALL').
const CachingAllRows = -1

// Values are the caching map's values as Cassandra writes them: keys
// "ALL" or "NONE", rows_per_partition "NONE", "ALL" or the count.
func (c CachingSpec) Values() (keys, rowsPerPartition string) {
	keys, rowsPerPartition = "NONE", "NONE"
	if c.Keys {
		keys = "ALL"
	}
	switch {
	case c.RowsPerPartition == CachingAllRows:
		rowsPerPartition = "ALL"
	case c.RowsPerPartition > 0:
		rowsPerPartition = strconv.Itoa(c.RowsPerPartition)
	}
	return keys, rowsPerPartition
}

// TombstoneGCMode is ScyllaDB's tombstone_gc mode.
type TombstoneGCMode uint8

const (
	// TombstoneGCTimeout drops tombstones after gc_grace_seconds.
	TombstoneGCTimeout TombstoneGCMode = iota + 1
	// TombstoneGCRepair drops tombstones once repair has covered them.
	TombstoneGCRepair
	// TombstoneGCDisabled never drops tombstones.
	TombstoneGCDisabled
	// TombstoneGCImmediate drops tombstones at once (for tables without
	// deletes racing writes, such as single-replica data).
	TombstoneGCImmediate
)

// String returns "timeout", "repair", "disabled" or "immediate", or
// "TombstoneGCMode(n)".
func (m TombstoneGCMode) String() string {
	switch m {
	case TombstoneGCTimeout:
		return "timeout"
	case TombstoneGCRepair:
		return "repair"
	case TombstoneGCDisabled:
		return "disabled"
	case TombstoneGCImmediate:
		return "immediate"
	}
	return invalidEnum("TombstoneGCMode", uint64(m))
}

// RateLimit is ScyllaDB's per_partition_rate_limit.
type RateLimit struct {
	// ReadsPerSecond and WritesPerSecond are the operations per second on
	// one partition above which the server rejects some (0: no limit).
	ReadsPerSecond, WritesPerSecond int
}

// StorageOptions are a table's storage options as Register resolved them:
// nil for an option the entity does not set (the server's default, or
// what the table has, applies).
type StorageOptions struct {
	Compaction          *CompactionStrategy // Compaction
	Compression         *CompressionSpec    // Compression or NoCompression
	Caching             *CachingSpec        // Caching, Cassandra's caching map
	ScyllaCaching       *bool               // ScyllaCaching: ScyllaDB's caching enabled
	Comment             *string             // Comment
	SpeculativeRetry    *string             // SpeculativeRetry, as given
	BloomFilterFPChance *float64            // BloomFilterFPChance
	Memtable            *string             // Memtable: the configuration's name
	CDC                 *bool               // CDC
	TombstoneGC         *TombstoneGCMode    // TombstoneGC
	RateLimit           *RateLimit          // PerPartitionRateLimit
}

func (o StorageOptions) isZero() bool { return o == StorageOptions{} }

// Compaction sets the table's compaction strategy.
func Compaction(c CompactionStrategy) TableOption {
	return tableOptionFunc(func(s *tableSpec) { setOnce(&s.storage.Compaction, c, "Compaction", &s.conflicts) })
}

// Compression compresses the table's sstables with c in chunks of chunkKB
// kilobytes, a power of two (0 for the server's default). Cassandra writes
// it {'class': ...}, ScyllaDB {'sstable_compression': ...}: the keyspace's
// targets must all be of one server (RuleOptionTarget).
func Compression(c Compressor, chunkKB int) TableOption {
	spec := CompressionSpec{Compressor: c, ChunkLengthKB: chunkKB}
	return tableOptionFunc(func(s *tableSpec) { setOnce(&s.storage.Compression, spec, "Compression", &s.conflicts) })
}

// NoCompression stores the table's sstables uncompressed.
func NoCompression() TableOption {
	return tableOptionFunc(func(s *tableSpec) {
		setOnce(&s.storage.Compression, CompressionSpec{Off: true}, "Compression", &s.conflicts)
	})
}

// Caching sets Cassandra's caching: keys cached or not, and the rows per
// partition (0 none, CachingAllRows, or a count). Cassandra only:
// ScyllaDB has ScyllaCaching.
func Caching(keys bool, rowsPerPartition int) TableOption {
	spec := CachingSpec{Keys: keys, RowsPerPartition: rowsPerPartition}
	return tableOptionFunc(func(s *tableSpec) { setOnce(&s.storage.Caching, spec, "Caching", &s.conflicts) })
}

// ScyllaCaching turns ScyllaDB's row cache on or off for the table.
// ScyllaDB only.
func ScyllaCaching(enabled bool) TableOption {
	return tableOptionFunc(func(s *tableSpec) { setOnce(&s.storage.ScyllaCaching, enabled, "ScyllaCaching", &s.conflicts) })
}

// Comment sets the table's comment, any valid UTF-8 text of at most
// MaxCommentBytes.
func Comment(text string) TableOption {
	return tableOptionFunc(func(s *tableSpec) { setOnce(&s.storage.Comment, text, "Comment", &s.conflicts) })
}

// SpeculativeRetry sets when a read retries on another replica: "NONE"
// (which Cassandra stores as NEVER), "ALWAYS", "99PERCENTILE" (or "99p",
// at most 4 decimals), a whole "50ms", and on Cassandra also
// "MIN(99p,50ms)" and "MAX(...)".
func SpeculativeRetry(policy string) TableOption {
	return tableOptionFunc(func(s *tableSpec) { setOnce(&s.storage.SpeculativeRetry, policy, "SpeculativeRetry", &s.conflicts) })
}

// BloomFilterFPChance sets the bloom filter's false-positive chance, above
// 6.71e-05 (Cassandra's least) and at most 1 (1 turns the filter off).
func BloomFilterFPChance(p float64) TableOption {
	return tableOptionFunc(func(s *tableSpec) { setOnce(&s.storage.BloomFilterFPChance, p, "BloomFilterFPChance", &s.conflicts) })
}

// Memtable picks one of the memtable configurations of Cassandra 5.0's
// cassandra.yaml by name: "default" in the shipped file, "default",
// "skiplist" and "trie" in cassandra_latest.yaml. Cassandra only.
func Memtable(name string) TableOption {
	return tableOptionFunc(func(s *tableSpec) { setOnce(&s.storage.Memtable, name, "Memtable", &s.conflicts) })
}

// CDC turns change data capture on or off for the table. Cassandra needs
// cdc_enabled in cassandra.yaml, which neither shipped file sets (without
// it the server takes cdc = true and keeps nothing), so only CDC(false) is
// accepted for a Cassandra target; ScyllaDB takes both.
func CDC(enabled bool) TableOption {
	return tableOptionFunc(func(s *tableSpec) { setOnce(&s.storage.CDC, enabled, "CDC", &s.conflicts) })
}

// TombstoneGC sets ScyllaDB's tombstone_gc mode. ScyllaDB only.
func TombstoneGC(mode TombstoneGCMode) TableOption {
	return tableOptionFunc(func(s *tableSpec) { setOnce(&s.storage.TombstoneGC, mode, "TombstoneGC", &s.conflicts) })
}

// PerPartitionRateLimit sets ScyllaDB's per-partition rate limit, reads
// and writes per second (0: no limit on that side). ScyllaDB only.
func PerPartitionRateLimit(reads, writes int) TableOption {
	spec := RateLimit{ReadsPerSecond: reads, WritesPerSecond: writes}
	return tableOptionFunc(func(s *tableSpec) { setOnce(&s.storage.RateLimit, spec, "PerPartitionRateLimit", &s.conflicts) })
}

// StorageOptions returns the table's storage options (fresh copies).
func (t *TableSchema) StorageOptions() StorageOptions { return t.storage.clone() }

func (o StorageOptions) clone() StorageOptions {
	return StorageOptions{
		Compaction: clonePtr(o.Compaction), Compression: clonePtr(o.Compression), Caching: clonePtr(o.Caching),
		ScyllaCaching: clonePtr(o.ScyllaCaching), Comment: clonePtr(o.Comment), SpeculativeRetry: clonePtr(o.SpeculativeRetry),
		BloomFilterFPChance: clonePtr(o.BloomFilterFPChance), Memtable: clonePtr(o.Memtable), CDC: clonePtr(o.CDC),
		TombstoneGC: clonePtr(o.TombstoneGC), RateLimit: clonePtr(o.RateLimit),
	}
}

func clonePtr[V any](p *V) *V {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// speculativeRetryForm is one speculative_retry value: NONE, ALWAYS,
// NEVER, a percentile (99PERCENTILE, 99.5p) or milliseconds (50ms).
var speculativeRetryForm = regexp.MustCompile(`(?i)^(none|always|never|\d+(\.\d{1,4})?(percentile|p)|\d+ms)$`)

// speculativeRetryMinMax is Cassandra's MIN(a,b) or MAX(a,b): spaces only
// around the comma, as its parser takes them.
var speculativeRetryMinMax = regexp.MustCompile(`(?i)^(min|max)\(([^\s,()]+)\s*,\s*([^\s,()]+)\)$`)

// scyllaRetryForm is the speculative_retry ScyllaDB takes.
var scyllaRetryForm = regexp.MustCompile(`(?i)^(none|always|\d+(\.\d)?percentile|\d+ms)$`)

// speculativeRetryProblem says why the servers refuse p, or "".
func speculativeRetryProblem(p string) string {
	one := func(s string) string {
		if !speculativeRetryForm.MatchString(s) {
			return strconv.Quote(s) + " is none of NONE, ALWAYS, NEVER, <n>PERCENTILE, <n>p (at most 4 decimals: Cassandra stores 99.99999p as 100p) or a whole <n>ms (it stores 1.5ms as 1ms)"
		}
		l := strings.ToLower(s)
		if strings.HasSuffix(l, "p") || strings.HasSuffix(l, "percentile") {
			n, _ := strconv.ParseFloat(strings.TrimRight(strings.TrimSuffix(l, "percentile"), "p"), 64)
			if n <= 0 || n >= 100 {
				return strconv.Quote(s) + " is a percentile outside (0, 100)"
			}
		}
		return ""
	}
	if m := speculativeRetryMinMax.FindStringSubmatch(p); m != nil {
		ms := 0
		for _, s := range m[2:] {
			if strings.EqualFold(s, "none") || strings.EqualFold(s, "always") || strings.EqualFold(s, "never") {
				return strconv.Quote(p) + ": MIN and MAX take a percentile and a time"
			}
			if why := one(s); why != "" {
				return why
			}
			if strings.HasSuffix(strings.ToLower(s), "ms") {
				ms++
			}
		}
		if ms != 1 {
			return strconv.Quote(p) + ": MIN and MAX take a percentile and a time, one of each (\"MIN()/MAX() arguments should be of different types\")"
		}
		return ""
	}
	if strings.ContainsAny(p, "()") {
		return strconv.Quote(p) + " is not MIN(a,b) or MAX(a,b) (no spaces inside the parentheses but around the comma)"
	}
	return one(p)
}

// storageProblem says which storage option value the servers refuse, or
// "" (RuleOptionRange).
func (o StorageOptions) problem() string {
	if c := o.Compaction; c != nil {
		switch {
		case compactionClasses[c.Kind] == "":
			return "Compaction is given " + c.Kind.String() + "; use kandra.SizeTiered, Leveled, TimeWindow, Unified or Incremental"
		case c.SSTableSizeMB < 0 || c.Kind != CompactionLeveled && c.SSTableSizeMB != 0:
			return "Compaction's SSTableSizeMB is for Leveled only, and at least 1 (0 for the server's default)"
		case c.Kind == CompactionTimeWindow && (c.WindowSize < 0 || c.WindowSize > 0 && c.WindowUnit == 0 || c.WindowUnit != 0 && c.WindowUnit.String() == invalidEnum("TimeWindowUnit", uint64(c.WindowUnit))):
			return "TimeWindow takes kandra.WindowMinutes, WindowHours or WindowDays and a size of at least 1 (\"compaction_window_size must be greater than 1\")"
		case c.Kind != CompactionTimeWindow && (c.WindowSize != 0 || c.WindowUnit != 0):
			return "Compaction's WindowUnit and WindowSize are for TimeWindow only"
		case c.Kind != CompactionUnified && c.ScalingParameters != "":
			return "Compaction's ScalingParameters are for Unified only"
		case c.Kind == CompactionLeveled && c.SSTableSizeMB > maxLeveledSSTableMB:
			return "Leveled's SSTableSizeMB " + strconv.Itoa(c.SSTableSizeMB) + " is above " + strconv.Itoa(maxLeveledSSTableMB) +
				": Cassandra sizes LCS's ninth level at 10^8 sstables and refuses a size whose level tops 2^63-1 bytes (\"At most 9223372036854775807 bytes may be in a compaction level\"); use at most " +
				strconv.Itoa(maxLeveledSSTableMB) + " (the server's default is 160)"
		case c.Kind == CompactionTimeWindow && c.WindowSize > math.MaxInt32:
			return "TimeWindow's WindowSize " + strconv.Itoa(c.WindowSize) + " is above 2147483647: compaction_window_size is a 32-bit int on the servers (\"is not a parsable int\"); use a larger unit"
		}
		if c.Kind == CompactionUnified && c.ScalingParameters != "" {
			if why := scalingProblem(c.ScalingParameters); why != "" {
				return why
			}
		}
	}
	if c := o.Compression; c != nil && !c.Off {
		switch {
		case c.Compressor < LZ4Compressor || c.Compressor > ZstdCompressor:
			return "Compression is given " + c.Compressor.String() + "; use kandra.LZ4Compressor, SnappyCompressor, DeflateCompressor or ZstdCompressor"
		case c.ChunkLengthKB < 0 || c.ChunkLengthKB > 0 && c.ChunkLengthKB&(c.ChunkLengthKB-1) != 0:
			return "Compression's chunk length " + strconv.Itoa(c.ChunkLengthKB) + " KB is not a power of two (\"chunk_length_in_kb must be a power of 2\")"
		case c.ChunkLengthKB > maxChunkKB:
			return "Compression's chunk length " + strconv.Itoa(c.ChunkLengthKB) + " KB is above " + strconv.Itoa(maxChunkKB) + " KB (1 GiB), which no server reads in one chunk"
		}
	}
	if c := o.Caching; c != nil && c.RowsPerPartition < -1 {
		return "Caching's rows per partition is " + strconv.Itoa(c.RowsPerPartition) + "; give 0 for none, -1 for all, or a count"
	}
	if c := o.Caching; c != nil && c.RowsPerPartition > math.MaxInt32 {
		return "Caching's rows per partition " + strconv.Itoa(c.RowsPerPartition) + " is above 2147483647: rows_per_partition is a 32-bit int on the servers (\"NumberFormatException\"); give at most 2147483647, or CachingAllRows for every row"
	}
	if p := o.SpeculativeRetry; p != nil {
		if why := speculativeRetryProblem(*p); why != "" {
			return "SpeculativeRetry: " + why
		}
	}
	if p := o.BloomFilterFPChance; p != nil && (math.IsNaN(*p) || *p <= minBloomFPChance || *p > 1) {
		return "BloomFilterFPChance " + strconv.FormatFloat(*p, 'g', -1, 64) + " is outside (6.71e-05, 1] (\"bloom_filter_fp_chance must be larger than 6.71E-5 and less than or equal to 1.0\")"
	}
	if m := o.Memtable; m != nil && !memtableForm.MatchString(*m) {
		return "Memtable " + strconv.Quote(*m) + " names no memtable configuration (a name of letters, digits and _)"
	}
	if m := o.TombstoneGC; m != nil && (*m < TombstoneGCTimeout || *m > TombstoneGCImmediate) {
		return "TombstoneGC is given " + m.String() + "; use kandra.TombstoneGCTimeout, Repair, Disabled or Immediate"
	}
	if r := o.RateLimit; r != nil && (r.ReadsPerSecond < 0 || r.WritesPerSecond < 0 || *r == RateLimit{}) {
		return "PerPartitionRateLimit takes reads and writes per second of at least 0, one of them above 0"
	}
	if c := o.Comment; c != nil && !utf8.ValidString(*c) {
		return "Comment is not valid UTF-8"
	}
	if c := o.Comment; c != nil && len(*c) > MaxCommentBytes {
		return "Comment is " + strconv.Itoa(len(*c)) + " bytes, more than " + strconv.Itoa(MaxCommentBytes) + " (MaxCommentBytes): the servers refuse a CREATE or ALTER TABLE " +
			"whose request or schema mutation tops 16 MiB (\"Request is too big\", \"Rejected an oversized mutation\"), and every driver reads the comment with the schema; " +
			"keep the comment short and the documentation elsewhere"
	}
	return ""
}

// scalingProblem says why Cassandra refuses one of UCS's comma-separated
// scaling parameters, or "": each is N, L<n> or T<n> with n a 32-bit int
// of at least 2 (the fan factor), or a signed 32-bit int
// (UnifiedCompactionStrategy.parseScalingParameter: the pattern
// N|L(\d+)|T(\d+)|([+-]?\d+), Integer.parseInt, "Fan factor cannot be lower
// than 2").
func scalingProblem(params string) string {
	for _, p := range strings.Split(params, ",") {
		// Cassandra trims each parameter (String.trim: every byte up to
		// the space); kandra takes the ASCII spaces of \s.
		p = strings.Trim(p, " \t\n\f\r")
		what := "Unified's scaling parameter " + strconv.Quote(p)
		if m := scalingFanout.FindStringSubmatch(p); m != nil {
			n, err := strconv.ParseInt(m[2], 10, 64)
			switch {
			case err != nil || n > math.MaxInt32:
				return what + " is above 2147483647, the servers' 32-bit int (\"NumberFormatException\"); use a fan factor of 2 to 2147483647"
			case n < 2:
				return what + " has a fan factor under 2 (\"Fan factor cannot be lower than 2\"); use " + m[1] + "2 or more, or N"
			}
			continue
		}
		if scalingSigned.MatchString(p) {
			if n, err := strconv.ParseInt(p, 10, 64); err != nil || n < math.MinInt32 || n > math.MaxInt32 {
				return what + " is outside -2147483648..2147483647, the servers' 32-bit int (\"NumberFormatException\"); use a smaller number, or T<n> or L<n>"
			}
			continue
		}
		if p != "N" {
			return what + " is not N, L<n>, T<n> or a signed number (\"Scaling parameter ... must match N|L[0-9]+|T[0-9]+|[+-]?[0-9]+\"); write them as in \"T4, L10, N, -2\""
		}
	}
	return ""
}

// maxChunkKB bounds a compression chunk (1 GiB); ScyllaDB takes at most
// scyllaMaxChunkKB.
const (
	maxChunkKB       = 1 << 20
	scyllaMaxChunkKB = 128
)

// minBloomFPChance is the smallest chance Cassandra refuses: it takes
// only larger ones.
const minBloomFPChance = 6.71e-5

// maxLeveledSSTableMB is the largest sstable_size_in_mb Cassandra 5.0
// takes: LeveledCompactionStrategy sizes its ninth level (level 8) as
// 10^8 sstables (fanout_size 10) and refuses a size for which that level
// passes 2^63-1 bytes; 87960 MiB × 10^8 fits, 87961 does not (shown on the
// node).
const maxLeveledSSTableMB = 87960

// MaxCommentBytes is the longest table Comment kandra writes. The servers
// refuse a schema change whose request (native_transport_max_frame_size)
// or system_schema mutation (max_mutation_size, half a commit-log
// segment) tops 16 MiB, comment and the rest of the table's schema
// together, and less with smaller segments; 1 MiB leaves the rest room.
const MaxCommentBytes = 1 << 20

var (
	scalingFanout = regexp.MustCompile(`^([TL])(\d+)$`)
	scalingSigned = regexp.MustCompile(`^[+-]?\d+$`)
	memtableForm  = regexp.MustCompile(`^[A-Za-z0-9_]+$`)
)

// latestMemtables are the memtable configurations of cassandra_latest.yaml;
// the shipped cassandra.yaml has only "default".
var latestMemtables = []string{"default", "skiplist", "trie"}

// targetProblem says which option the target t lacks, or "" (RuleOptionTarget).
func (o StorageOptions) targetProblem(t Target) string {
	cassandra := t&cassandraTargets != 0
	switch {
	case o.Compaction != nil && o.Compaction.Kind == CompactionUnified && !cassandra:
		return "Unified compaction is Cassandra 5.0's (ScyllaDB: \"Unable to find compaction strategy class 'UnifiedCompactionStrategy'\")"
	case o.Compaction != nil && o.Compaction.Kind == CompactionIncremental && cassandra:
		return "Incremental compaction is ScyllaDB's (Cassandra: \"Unable to find compaction strategy class 'IncrementalCompactionStrategy'\")"
	case o.Caching != nil && !cassandra:
		return "Caching(keys, rows) is Cassandra's caching map; ScyllaDB's is ScyllaCaching(enabled)"
	case o.ScyllaCaching != nil && cassandra:
		return "ScyllaCaching is ScyllaDB's caching map; Cassandra's is Caching(keys, rows)"
	case o.Memtable != nil && !cassandra:
		return "Memtable is Cassandra 5.0's option; ScyllaDB has none"
	case o.Memtable != nil && t == Cassandra5 && *o.Memtable != "default":
		return "Memtable " + strconv.Quote(*o.Memtable) + " is not a configuration of the shipped cassandra.yaml, which has only \"default\" (\"Memtable configuration ... not found\"); target Cassandra5Latest, whose yaml has default, skiplist and trie"
	case o.Memtable != nil && t == Cassandra5Latest && !slices.Contains(latestMemtables, *o.Memtable):
		return "Memtable " + strconv.Quote(*o.Memtable) + " is not a configuration of cassandra_latest.yaml (default, skiplist, trie)"
	case o.CDC != nil && *o.CDC && cassandra:
		return "CDC(true) needs cdc_enabled: true in cassandra.yaml, which neither shipped file sets; without it Cassandra 5.0 takes cdc = true and keeps nothing of it (system_schema.tables.cdc stays null), so the option would be lost"
	case o.TombstoneGC != nil && cassandra:
		return "TombstoneGC is ScyllaDB's option; Cassandra has only gc_grace_seconds (GCGrace)"
	case o.RateLimit != nil && cassandra:
		return "PerPartitionRateLimit is ScyllaDB's option"
	case o.SpeculativeRetry != nil && speculativeRetryMinMax.MatchString(*o.SpeculativeRetry) && !cassandra:
		return "SpeculativeRetry's MIN and MAX are Cassandra's; ScyllaDB takes a single policy"
	case o.SpeculativeRetry != nil && !cassandra && !scyllaRetryForm.MatchString(*o.SpeculativeRetry):
		return "SpeculativeRetry " + strconv.Quote(*o.SpeculativeRetry) + " is not one of ScyllaDB's forms: NONE, ALWAYS, <n>PERCENTILE (one decimal at most, as it stores them) or <n>ms"
	case o.Compression != nil && !cassandra && o.Compression.ChunkLengthKB > scyllaMaxChunkKB:
		return "a compression chunk of " + strconv.Itoa(o.Compression.ChunkLengthKB) + " KB is above ScyllaDB's 128 (\"chunk_length_in_kb must be 128 or less\")"
	}
	return ""
}

// renderStorage writes the options' WITH items for a keyspace whose
// targets are all ScyllaDB's (scylla) or all Cassandra's; the keyspace
// rules have refused options the targets lack.
func (o StorageOptions) render(scylla bool) []string {
	var out []string
	if c := o.Compaction; c != nil {
		m := [][2]string{{"class", c.Kind.String()}}
		if c.SSTableSizeMB > 0 {
			m = append(m, [2]string{"sstable_size_in_mb", strconv.Itoa(c.SSTableSizeMB)})
		}
		if c.WindowUnit != 0 {
			m = append(m, [2]string{"compaction_window_unit", c.WindowUnit.String()})
		}
		if c.WindowSize > 0 {
			m = append(m, [2]string{"compaction_window_size", strconv.Itoa(c.WindowSize)})
		}
		if c.ScalingParameters != "" {
			m = append(m, [2]string{"scaling_parameters", c.ScalingParameters})
		}
		out = append(out, "compaction = "+cqlMap(m))
	}
	if c := o.Compression; c != nil {
		var m [][2]string
		switch {
		case c.Off && scylla:
			m = [][2]string{{"sstable_compression", ""}}
		case c.Off:
			m = [][2]string{{"enabled", "false"}}
		case scylla:
			m = [][2]string{{"sstable_compression", c.Compressor.String()}}
		default:
			m = [][2]string{{"class", c.Compressor.String()}}
		}
		if c.ChunkLengthKB > 0 {
			m = append(m, [2]string{"chunk_length_in_kb", strconv.Itoa(c.ChunkLengthKB)})
		}
		out = append(out, "compression = "+cqlMap(m))
	}
	if c := o.Caching; c != nil {
		keys, rows := c.Values()
		out = append(out, "caching = "+cqlMap([][2]string{{"keys", keys}, {"rows_per_partition", rows}}))
	}
	if c := o.ScyllaCaching; c != nil {
		out = append(out, "caching = "+cqlMap([][2]string{{"enabled", strconv.FormatBool(*c)}}))
	}
	if c := o.Comment; c != nil {
		out = append(out, "comment = "+quoteLiteral(*c))
	}
	if p := o.SpeculativeRetry; p != nil {
		out = append(out, "speculative_retry = "+quoteLiteral(*p))
	}
	if p := o.BloomFilterFPChance; p != nil {
		out = append(out, "bloom_filter_fp_chance = "+strconv.FormatFloat(*p, 'g', -1, 64))
	}
	if m := o.Memtable; m != nil {
		out = append(out, "memtable = "+quoteLiteral(*m))
	}
	if c := o.CDC; c != nil {
		if scylla {
			out = append(out, "cdc = "+cqlMap([][2]string{{"enabled", strconv.FormatBool(*c)}}))
		} else {
			out = append(out, "cdc = "+strconv.FormatBool(*c))
		}
	}
	if m := o.TombstoneGC; m != nil {
		out = append(out, "tombstone_gc = "+cqlMap([][2]string{{"mode", m.String()}}))
	}
	if r := o.RateLimit; r != nil {
		var m [][2]string
		if r.ReadsPerSecond > 0 {
			m = append(m, [2]string{"max_reads_per_second", strconv.Itoa(r.ReadsPerSecond)})
		}
		if r.WritesPerSecond > 0 {
			m = append(m, [2]string{"max_writes_per_second", strconv.Itoa(r.WritesPerSecond)})
		}
		out = append(out, "per_partition_rate_limit = "+cqlMap(m))
	}
	return out
}

// cqlMap renders {'k': 'v', ...} in the given order.
func cqlMap(kv [][2]string) string {
	parts := make([]string, len(kv))
	for i, p := range kv {
		parts[i] = quoteLiteral(p[0]) + ": " + quoteLiteral(p[1])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// AlterTableOptions renders the ALTER TABLE ... WITH statement that gives
// live table t the model's values of the named options: any of
// "default_time_to_live" (0 when the model sets none), "gc_grace_seconds"
// (which the model must set) and the storage options the model sets,
// named as StorageOptionItems names them ("compaction", "caching", ...),
// in the order given. A name the model does not set, and a table that is
// not in the keyspace, are errors.
func (k *Keyspace) AlterTableOptions(t SchemaSource, options ...string) (string, error) {
	ts, err := k.member("AlterTableOptions", t)
	if err != nil {
		return "", err
	}
	if len(options) == 0 {
		return "", errors.New("kandra: AlterTableOptions of table " + strconv.Quote(ts.name) + " is given no option to set")
	}
	storage := map[string]string{}
	for _, item := range ts.storage.render(k.ddl().scylla) {
		name, _, _ := strings.Cut(item, " = ")
		storage[name] = item
	}
	items := make([]string, 0, len(options))
	for _, name := range options {
		switch item, ok := storage[name]; {
		case name == "default_time_to_live":
			ttl, _ := ts.DefaultTTL()
			items = append(items, name+" = "+strconv.FormatInt(int64(ttl/time.Second), 10))
		case name == "gc_grace_seconds":
			gc, set := ts.GCGrace()
			if !set {
				return "", errors.New("kandra: AlterTableOptions: table " + strconv.Quote(ts.name) + " sets no gc_grace_seconds (kandra.GCGrace)")
			}
			items = append(items, name+" = "+strconv.FormatInt(int64(gc/time.Second), 10))
		case ok:
			items = append(items, item)
		default:
			return "", errors.New("kandra: AlterTableOptions: table " + strconv.Quote(ts.name) + " sets no option " + strconv.Quote(name) + " for the keyspace's targets")
		}
	}
	var b strings.Builder
	b.WriteString("ALTER TABLE ")
	k.ddl().qualify(&b, ts.cqlName)
	b.WriteString(" WITH ")
	b.WriteString(strings.Join(items, " AND "))
	b.WriteString(";")
	return b.String(), nil
}
