package migrate

// A live table's storage options read into kandra's own values, and the
// planner's comparison of those values with the model's. The importer
// reads them through the same StorageOptions.

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/kandra-go/kandra"
)

// StorageOptions reads the table's storage options (Options) into
// kandra's values, as the server stored them: an option the server did
// not store is nil, a compaction or compressor class is known by its
// last name ("org.apache...LeveledCompactionStrategy" is
// kandra.CompactionLeveled), a setting kandra has no value for is left
// out, and SpeculativeRetry is the stored text. Both servers' forms are
// read: Cassandra's caching (keys, rows_per_partition) into Caching,
// ScyllaDB's enabled into ScyllaCaching, ScyllaDB's sstable_compression
// as Cassandra's class.
//
// unread lists what kandra has no value for, each entry naming the
// option and why ("compaction LeveledCompactionStrategy: its setting
// tombstone_threshold = \"0.3\" has no kandra form"): an ALTER of that
// option from a model resets it to the server's default.
func (t *LiveTable) StorageOptions() (o kandra.StorageOptions, unread []string) {
	live := t.Options
	if c, why := liveCompaction(mapOption(live, "compaction")); c != nil || len(why) > 0 {
		o.Compaction, unread = c, append(unread, why...)
	}
	if c, why := liveCompression(mapOption(live, "compression")); c != nil || len(why) > 0 {
		o.Compression, unread = c, append(unread, why...)
	}
	m := mapOption(live, "caching")
	if keys, rows := m["keys"], m["rows_per_partition"]; keys != "" || rows != "" {
		c, why := liveCaching(keys, rows)
		o.Caching, unread = c, append(unread, why...)
	}
	if v, ok := m["enabled"]; ok {
		if b, err := strconv.ParseBool(v); err == nil {
			o.ScyllaCaching = &b
		} else {
			unread = append(unread, "caching: its enabled "+strconv.Quote(v)+" is neither true nor false")
		}
	}
	if v, ok := live["comment"]; ok {
		o.Comment = &v
	}
	if v, ok := live["speculative_retry"]; ok {
		o.SpeculativeRetry = &v
	}
	if v, ok := live["bloom_filter_fp_chance"]; ok {
		if p, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(p) {
			o.BloomFilterFPChance = &p
		} else {
			unread = append(unread, "bloom_filter_fp_chance "+strconv.Quote(v)+" is not a number")
		}
	}
	if v, ok := live["memtable"]; ok && v != "" {
		o.Memtable = &v
	}
	if v, ok := live["cdc"]; ok {
		if b, err := strconv.ParseBool(v); err == nil {
			o.CDC = &b
		} else {
			unread = append(unread, "cdc "+strconv.Quote(v)+" is neither true nor false")
		}
	}
	return o, unread
}

// compactionKinds are the compaction kinds by class name.
var compactionKinds = func() map[string]kandra.CompactionKind {
	out := map[string]kandra.CompactionKind{}
	for k := kandra.CompactionSizeTiered; k <= kandra.CompactionIncremental; k++ {
		out[k.String()] = k
	}
	return out
}()

// compactionThresholds are the settings every compaction map holds at
// the servers' defaults; kandra declares neither.
var compactionThresholds = map[string]string{"max_threshold": "32", "min_threshold": "4"}

// liveCompaction reads a compaction map (without its prefix); nil for an
// empty map or a class kandra does not declare.
func liveCompaction(m map[string]string) (*kandra.CompactionStrategy, []string) {
	if len(m) == 0 {
		return nil, nil
	}
	class := lastName(m["class"])
	kind, ok := compactionKinds[class]
	if !ok {
		return nil, []string{"compaction: the class " + strconv.Quote(m["class"]) + " is none kandra declares (SizeTiered, Leveled, TimeWindow, Unified, Incremental)"}
	}
	c := &kandra.CompactionStrategy{Kind: kind}
	var unread []string
	what := "compaction " + class
	count := func(k string) int {
		n, err := strconv.Atoi(m[k])
		if err != nil || n < 1 {
			unread = append(unread, what+": its "+k+" "+strconv.Quote(m[k])+" is not a count kandra takes")
			return 0
		}
		return n
	}
	units := map[string]kandra.TimeWindowUnit{"MINUTES": kandra.WindowMinutes, "HOURS": kandra.WindowHours, "DAYS": kandra.WindowDays}
	for _, k := range sortedKeys(m) {
		v := m[k]
		switch {
		case k == "class", compactionThresholds[k] == v:
		case k == "sstable_size_in_mb" && kind == kandra.CompactionLeveled:
			c.SSTableSizeMB = count(k)
		case k == "compaction_window_size" && kind == kandra.CompactionTimeWindow:
			c.WindowSize = count(k)
		case k == "compaction_window_unit" && kind == kandra.CompactionTimeWindow:
			if c.WindowUnit = units[v]; c.WindowUnit == 0 {
				unread = append(unread, what+": its compaction_window_unit "+strconv.Quote(v)+" is none of MINUTES, HOURS and DAYS, as kandra writes them")
			}
		case k == "scaling_parameters" && kind == kandra.CompactionUnified:
			c.ScalingParameters = v
		default:
			unread = append(unread, what+": its setting "+k+" = "+strconv.Quote(v)+" has no kandra form")
		}
	}
	return c, unread
}

// unknownClass is the class of live's compaction or compression (option
// name) when StorageOptions could not read it into a kandra value, and ""
// otherwise: live stores a class kandra does not declare.
func unknownClass(name string, options map[string]string, live kandra.StorageOptions) string {
	switch {
	case name == "compaction" && live.Compaction == nil:
		return mapOption(options, name)["class"]
	case name == "compression" && live.Compression == nil:
		m := mapOption(options, name)
		if c, ok := m["sstable_compression"]; ok {
			return c
		}
		return m["class"]
	}
	return ""
}

// compressorsByClass are the compressors by class name.
var compressorsByClass = map[string]kandra.Compressor{"LZ4Compressor": kandra.LZ4Compressor, "SnappyCompressor": kandra.SnappyCompressor, "DeflateCompressor": kandra.DeflateCompressor, "ZstdCompressor": kandra.ZstdCompressor}

// liveCompression reads a compression map (without its prefix), in
// Cassandra's form (class; enabled false when off) or ScyllaDB's
// (sstable_compression, empty when off); nil for an empty map, which
// ScyllaDB stores for no compression and sameStorage reads so.
func liveCompression(m map[string]string) (*kandra.CompressionSpec, []string) {
	if len(m) == 0 {
		return nil, nil
	}
	class, hasClass := m["class"]
	if s, ok := m["sstable_compression"]; ok {
		class, hasClass = s, true
	}
	if m["enabled"] == "false" || hasClass && class == "" {
		return &kandra.CompressionSpec{Off: true}, nil
	}
	c := &kandra.CompressionSpec{}
	var unread []string
	if hasClass {
		if c.Compressor = compressorsByClass[lastName(class)]; c.Compressor == 0 {
			return nil, []string{"compression: the compressor " + strconv.Quote(class) + " is none kandra declares (LZ4, Snappy, Deflate, Zstd)"}
		}
	}
	for _, k := range sortedKeys(m) {
		switch v := m[k]; k {
		case "class", "sstable_compression":
		case "enabled":
			if v != "true" {
				unread = append(unread, "compression: its enabled "+strconv.Quote(v)+" is neither true nor false")
			}
		case "chunk_length_in_kb":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n&(n-1) != 0 {
				unread = append(unread, "compression: its chunk_length_in_kb "+strconv.Quote(v)+" is not a chunk kandra takes (a power of two)")
				continue
			}
			c.ChunkLengthKB = n
		default:
			unread = append(unread, "compression: its setting "+k+" = "+strconv.Quote(v)+" has no kandra form")
		}
	}
	return c, unread
}

// liveCaching reads Cassandra's caching map.
func liveCaching(keys, rows string) (*kandra.CachingSpec, []string) {
	c := &kandra.CachingSpec{Keys: true}
	var unread []string
	switch keys {
	case "", "ALL":
	case "NONE":
		c.Keys = false
	default:
		unread = append(unread, "caching: its keys "+strconv.Quote(keys)+" is neither ALL nor NONE")
	}
	switch rows {
	case "", "NONE":
	case "ALL":
		c.RowsPerPartition = kandra.CachingAllRows
	default:
		n, err := strconv.Atoi(rows)
		if err != nil || n < 1 {
			unread = append(unread, "caching: its rows_per_partition "+strconv.Quote(rows)+" is none of NONE, ALL and a count")
			break
		}
		c.RowsPerPartition = n
	}
	return c, unread
}

// The servers' defaults of the options, as a table created without them
// holds them.
const (
	defaultLeveledMB    = 160
	defaultScaling      = "T4"
	cassandraChunkKB    = 16
	scyllaChunkKB       = 4
	defaultBloom        = 0.01
	defaultLeveledBloom = 0.1
	defaultRetry        = "99p"
)

// effectiveCompaction is c with the server's defaults for what it leaves
// unset (size-tiered for none).
func effectiveCompaction(c *kandra.CompactionStrategy) kandra.CompactionStrategy {
	if c == nil {
		return kandra.SizeTiered()
	}
	e := *c
	switch e.Kind {
	case kandra.CompactionLeveled:
		if e.SSTableSizeMB == 0 {
			e.SSTableSizeMB = defaultLeveledMB
		}
	case kandra.CompactionTimeWindow:
		if e.WindowUnit == 0 {
			e.WindowUnit = kandra.WindowDays
		}
		if e.WindowSize == 0 {
			e.WindowSize = 1
		}
	case kandra.CompactionUnified:
		e.ScalingParameters = normScaling(e.ScalingParameters)
	}
	return e
}

// normScaling spells UCS's scaling parameters without the spaces the
// server trims, "" as its default.
func normScaling(s string) string {
	if strings.TrimSpace(s) == "" {
		return defaultScaling
	}
	parts := strings.Split(s, ",")
	for i, p := range parts {
		parts[i] = strings.Trim(p, " \t\n\f\r")
	}
	return strings.Join(parts, ",")
}

func describeCompaction(c kandra.CompactionStrategy) string {
	s := "class=" + c.Kind.String()
	switch c.Kind {
	case kandra.CompactionLeveled:
		s += " sstable_size_in_mb=" + strconv.Itoa(c.SSTableSizeMB)
	case kandra.CompactionTimeWindow:
		s += " compaction_window_unit=" + c.WindowUnit.String() + " compaction_window_size=" + strconv.Itoa(c.WindowSize)
	case kandra.CompactionUnified:
		s += " scaling_parameters=" + c.ScalingParameters
	}
	return s
}

// effectiveCompression is c with the server's defaults: LZ4 in chunks of
// 16 KB on Cassandra; on ScyllaDB 4 KB, and none for an empty map.
func effectiveCompression(c *kandra.CompressionSpec, scylla bool) kandra.CompressionSpec {
	switch {
	case c == nil && scylla:
		return kandra.CompressionSpec{Off: true}
	case c == nil:
		return kandra.CompressionSpec{Compressor: kandra.LZ4Compressor, ChunkLengthKB: cassandraChunkKB}
	case c.Off:
		return kandra.CompressionSpec{Off: true}
	}
	e := *c
	if e.Compressor == 0 {
		e.Compressor = kandra.LZ4Compressor
	}
	if e.ChunkLengthKB == 0 {
		e.ChunkLengthKB = cassandraChunkKB
		if scylla {
			e.ChunkLengthKB = scyllaChunkKB
		}
	}
	return e
}

func describeCompression(c kandra.CompressionSpec) string {
	if c.Off {
		return "off"
	}
	return c.Compressor.String() + " in chunks of " + strconv.Itoa(c.ChunkLengthKB) + " KB"
}

// sameStorage compares storage option name ("compaction", as
// StorageOptionItems names it) of the model with the live table's value,
// both with the server's defaults for what they leave unset, and returns
// both sides for a step's reason. An option the server keeps outside
// system_schema.tables (ScyllaDB's tombstone_gc, per_partition_rate_limit
// and cdc) is never reported: the planner cannot see it.
func sameStorage(name string, model, live kandra.StorageOptions, scylla bool) (got, want string, differs bool) {
	switch name {
	case "compaction":
		m, l := effectiveCompaction(model.Compaction), effectiveCompaction(live.Compaction)
		return describeCompaction(l), describeCompaction(m), m != l
	case "compression":
		m, l := effectiveCompression(model.Compression, scylla), effectiveCompression(live.Compression, scylla)
		return describeCompression(l), describeCompression(m), m != l
	case "caching":
		if model.Caching != nil {
			l := kandra.CachingSpec{Keys: true}
			if live.Caching != nil {
				l = *live.Caching
			}
			lk, lr := l.Values()
			mk, mr := model.Caching.Values()
			return "keys=" + lk + " rows_per_partition=" + lr, "keys=" + mk + " rows_per_partition=" + mr, l != *model.Caching
		}
		l := live.ScyllaCaching == nil || *live.ScyllaCaching // ScyllaDB writes enabled only when it is off
		return "enabled=" + strconv.FormatBool(l), "enabled=" + strconv.FormatBool(*model.ScyllaCaching), l != *model.ScyllaCaching
	case "comment":
		l := valueOr(live.Comment, "")
		return strconv.Quote(l), strconv.Quote(*model.Comment), l != *model.Comment
	case "speculative_retry":
		l, m := normRetry(valueOr(live.SpeculativeRetry, defaultRetry)), normRetry(*model.SpeculativeRetry)
		return strconv.Quote(l), strconv.Quote(m), l != m
	case "bloom_filter_fp_chance":
		def := defaultBloom
		if effectiveCompaction(live.Compaction).Kind == kandra.CompactionLeveled {
			def = defaultLeveledBloom
		}
		l := valueOr(live.BloomFilterFPChance, def)
		f := func(p float64) string { return strconv.FormatFloat(p, 'g', -1, 64) }
		return f(l), f(*model.BloomFilterFPChance), l != *model.BloomFilterFPChance
	case "memtable":
		l := valueOr(live.Memtable, "default") // the default configuration is stored as null
		return strconv.Quote(l), strconv.Quote(*model.Memtable), l != *model.Memtable
	case "cdc":
		if scylla {
			return "", "", false // ScyllaDB keeps it outside system_schema.tables
		}
		l := valueOr(live.CDC, false) // Cassandra stores no cdc as null
		return strconv.FormatBool(l), strconv.FormatBool(*model.CDC), l != *model.CDC
	}
	return "", "", false
}

func valueOr[V any](p *V, def V) V {
	if p == nil {
		return def
	}
	return *p
}

// normRetry spells a speculative_retry policy as Cassandra stores it, in
// lower case: "percentile" as "p", NONE as NEVER, no spaces, numbers
// without trailing zeros ("99.50p" is "99.5p", "050ms" is "50ms").
func normRetry(s string) string {
	s = strings.ToLower(strings.ReplaceAll(s, " ", ""))
	s = strings.ReplaceAll(s, "percentile", "p")
	if s == "none" {
		return "never"
	}
	// MIN and MAX are stored with the percentile first.
	if m := minMax.FindStringSubmatch(s); m != nil && strings.HasSuffix(m[2], "ms") {
		s = m[1] + "(" + m[3] + "," + m[2] + ")"
	}
	return retryNumber.ReplaceAllStringFunc(s, func(n string) string {
		f, err := strconv.ParseFloat(n, 64)
		if err != nil {
			return n
		}
		return strconv.FormatFloat(f, 'f', -1, 64)
	})
}

var (
	retryNumber = regexp.MustCompile(`\d+(\.\d+)?`)
	minMax      = regexp.MustCompile(`^(min|max)\(([^,]+),([^,]+)\)$`)
)
