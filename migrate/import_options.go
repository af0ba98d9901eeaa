package migrate

// The table options GenerateEntities declares: the live values
// (LiveTable.StorageOptions) that are not the server's defaults, written
// so that the planner's comparison (sameStorage) finds them equal.

import (
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kandra-go/kandra"
)

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// defaultGCGrace is the servers' gc_grace_seconds: ten days.
const defaultGCGrace = 864000 * time.Second

// expirationCap2038 is the latest expiry Cassandra 5.0 takes under the
// shipped cassandra.yaml (storage_compatibility_mode CASSANDRA_4).
var expirationCap2038 = time.Date(2038, 1, 19, 3, 14, 6, 0, time.UTC)

// tableOptions are the Go expressions of t's TableOptions, from the
// values LiveTable.StorageOptions reads (what it cannot read is listed
// unexpressed, with the option).
func (g *gen) tableOptions(t *LiveTable) []string {
	var out []string
	secs := func(d time.Duration) string {
		g.use("time")
		return strconv.FormatInt(int64(d/time.Second), 10) + " * time.Second"
	}
	if ttl := t.DefaultTTL; ttl != 0 {
		out = append(out, "kandra.DefaultTTL("+secs(ttl)+")")
		if ttl > expirationCap2038.Sub(g.now)-kandra.TTLHorizon {
			g.onlyLatest = append(g.onlyLatest, "table "+t.Name+"'s default TTL of "+strconv.FormatInt(int64(ttl/time.Second), 10)+" s passes 2038 within kandra.TTLHorizon")
		}
	}
	if t.GCGrace != defaultGCGrace {
		out = append(out, "kandra.GCGrace("+secs(t.GCGrace)+")")
	}
	o, unread := t.StorageOptions()
	what := "table " + t.Name
	for _, u := range unread {
		g.unexpressed(what + ": " + u + "; the table keeps it, the model declares the option without it")
	}
	out = append(out, g.compaction(what, o.Compaction)...)
	out = append(out, g.compression(what, o.Compression)...)
	out = append(out, g.caching(what, o)...)
	if c := o.Comment; c != nil && *c != "" {
		out = append(out, "kandra.Comment("+strconv.Quote(*c)+")")
	}
	if r := o.SpeculativeRetry; r != nil && normRetry(*r) != defaultRetry {
		if s, why := g.retry(*r); why != "" {
			g.unexpressed(what + ": speculative_retry " + strconv.Quote(*r) + " " + why + "; the table keeps it, a table created from the model has the server's default")
		} else {
			out = append(out, "kandra.SpeculativeRetry("+strconv.Quote(s)+")")
		}
	}
	if p := o.BloomFilterFPChance; p != nil {
		lcs := o.Compaction != nil && o.Compaction.Kind == kandra.CompactionLeveled
		switch {
		case *p <= 6.71e-5 || *p > 1:
			g.unexpressed(what + ": bloom_filter_fp_chance " + strconv.FormatFloat(*p, 'g', -1, 64) + " is outside what kandra.BloomFilterFPChance takes, (6.71e-05, 1]")
		case *p == defaultBloom && !lcs, *p == defaultLeveledBloom && lcs:
			// The server's default for the compaction.
		default:
			out = append(out, "kandra.BloomFilterFPChance("+strconv.FormatFloat(*p, 'g', -1, 64)+")")
		}
	}
	if m := o.Memtable; m != nil && *m != "default" {
		switch {
		case !g.allTargets(kandra.Cassandra5 | kandra.Cassandra5Latest):
			g.unexpressed(what + ": memtable " + strconv.Quote(*m) + ": kandra.Memtable is for Cassandra targets alone; import for Cassandra targets (ImportOptions.Targets)")
		case *m == "skiplist" || *m == "trie":
			out = append(out, "kandra.Memtable("+strconv.Quote(*m)+")")
			g.onlyLatest = append(g.onlyLatest, "table "+t.Name+"'s memtable "+strconv.Quote(*m))
		default:
			g.unexpressed(what + ": memtable " + strconv.Quote(*m) + " is none of the configurations kandra knows (default, skiplist, trie of cassandra_latest.yaml)")
		}
	}
	if c := o.CDC; c != nil && *c && !g.scylla {
		g.unexpressed(what + ": cdc = true, which kandra refuses on Cassandra (it needs cdc_enabled in cassandra.yaml, which neither shipped file sets); the table keeps it")
	}
	return out
}

// mapOption returns the entries of the map option prefix ("compaction")
// of o, without the prefix.
func mapOption(o map[string]string, prefix string) map[string]string {
	out := map[string]string{}
	for k, v := range o {
		if rest, ok := strings.CutPrefix(k, prefix+"."); ok {
			out[rest] = v
		}
	}
	return out
}

func lastName(class string) string { return class[strings.LastIndexByte(class, '.')+1:] }

// compaction is the kandra.Compaction of a compaction that is not the
// servers' default (size-tiered).
func (g *gen) compaction(what string, c *kandra.CompactionStrategy) []string {
	if c == nil {
		return nil
	}
	what += ": compaction " + c.Kind.String()
	var expr string
	switch c.Kind {
	case kandra.CompactionSizeTiered:
		return nil // the servers' default
	case kandra.CompactionLeveled:
		expr = "kandra.Leveled(" + strconv.Itoa(c.SSTableSizeMB) + ")"
	case kandra.CompactionTimeWindow:
		unit := "0"
		if c.WindowSize > 0 && c.WindowUnit == 0 {
			c.WindowUnit = kandra.WindowDays // the server's unit; TimeWindow takes a size with its unit
		}
		if c.WindowUnit != 0 {
			unit = "kandra.Window" + strings.ToUpper(c.WindowUnit.String()[:1]) + strings.ToLower(c.WindowUnit.String()[1:])
		}
		expr = "kandra.TimeWindow(" + unit + ", " + strconv.Itoa(c.WindowSize) + ")"
	case kandra.CompactionUnified:
		if !g.allTargets(kandra.Cassandra5 | kandra.Cassandra5Latest) {
			g.unexpressed(what + ": kandra.Unified is for Cassandra targets alone")
			return nil
		}
		expr = "kandra.Unified(" + strconv.Quote(c.ScalingParameters) + ")"
	case kandra.CompactionIncremental:
		if !g.scylla {
			g.unexpressed(what + ": kandra.Incremental is for ScyllaDB targets alone")
			return nil
		}
		expr = "kandra.Incremental()"
	}
	return []string{"kandra.Compaction(" + expr + ")"}
}

// compressors are the Go names of the compressors kandra declares.
var compressors = map[kandra.Compressor]string{kandra.LZ4Compressor: "kandra.LZ4Compressor", kandra.SnappyCompressor: "kandra.SnappyCompressor", kandra.DeflateCompressor: "kandra.DeflateCompressor", kandra.ZstdCompressor: "kandra.ZstdCompressor"}

// compression is the kandra.Compression of a compression that is not the
// server's default (LZ4 in chunks of 16 KB on Cassandra, 4 KB on
// ScyllaDB), or kandra.NoCompression.
func (g *gen) compression(what string, c *kandra.CompressionSpec) []string {
	if c == nil {
		return nil
	}
	what += ": compression"
	e := effectiveCompression(c, g.scylla)
	if g.targets == 0 || !g.scylla && !g.allTargets(kandra.Cassandra5|kandra.Cassandra5Latest) {
		if e != (kandra.CompressionSpec{Compressor: kandra.LZ4Compressor, ChunkLengthKB: cassandraChunkKB}) {
			g.unexpressed(what + " " + describeCompression(e) + ": kandra.Compression is written differently by Cassandra and ScyllaDB, so it needs targets of one server (ImportOptions.Targets)")
		}
		return nil
	}
	if e.Off {
		return []string{"kandra.NoCompression()"}
	}
	if e == effectiveCompression(&kandra.CompressionSpec{}, g.scylla) {
		return nil // the server's default: LZ4 in its chunks
	}
	if g.scylla && e.ChunkLengthKB > 128 {
		g.unexpressed(what + ": its chunk_length_in_kb " + strconv.Itoa(e.ChunkLengthKB) + " is above ScyllaDB's 128")
		return nil
	}
	chunk := c.ChunkLengthKB
	if chunk == effectiveCompression(&kandra.CompressionSpec{Compressor: e.Compressor}, g.scylla).ChunkLengthKB {
		chunk = 0
	}
	return []string{"kandra.Compression(" + compressors[e.Compressor] + ", " + strconv.Itoa(chunk) + ")"}
}

// caching is Cassandra's kandra.Caching of a caching that is not its
// default (keys ALL, no rows), or ScyllaDB's kandra.ScyllaCaching(false).
func (g *gen) caching(what string, o kandra.StorageOptions) []string {
	if g.scylla {
		if o.ScyllaCaching != nil && !*o.ScyllaCaching {
			return []string{"kandra.ScyllaCaching(false)"}
		}
		return nil
	}
	c := o.Caching
	if c == nil || *c == (kandra.CachingSpec{Keys: true}) {
		return nil
	}
	keys, rows := c.Values()
	if !g.allTargets(kandra.Cassandra5 | kandra.Cassandra5Latest) {
		g.unexpressed(what + ": caching {keys=" + keys + ", rows_per_partition=" + rows + "}: kandra.Caching is Cassandra's, and the targets are not all Cassandra's (ImportOptions.Targets)")
		return nil
	}
	rowsExpr := strconv.Itoa(c.RowsPerPartition)
	if c.RowsPerPartition == kandra.CachingAllRows {
		rowsExpr = "kandra.CachingAllRows"
	}
	return []string{"kandra.Caching(" + strconv.FormatBool(c.Keys) + ", " + rowsExpr + ")"}
}

var (
	cassandraRetry = regexp.MustCompile(`(?i)^(none|always|never|\d+(\.\d{1,4})?(percentile|p)|\d+ms|(min|max)\([^\s,()]+\s*,\s*[^\s,()]+\))$`)
	percentRetry   = regexp.MustCompile(`^(\d+(\.\d)?)p$`)
)

// retry is the SpeculativeRetry policy of the live value v as the
// targets take it (ScyllaDB's forms, which Cassandra takes too, when a
// target is ScyllaDB's), or why kandra cannot say it.
func (g *gen) retry(v string) (string, string) {
	if g.allTargets(kandra.Cassandra5 | kandra.Cassandra5Latest) {
		if !cassandraRetry.MatchString(v) {
			return "", "is not a policy kandra.SpeculativeRetry takes"
		}
		return v, ""
	}
	switch n := normRetry(v); {
	case n == "never":
		return "NONE", ""
	case n == "always":
		return "ALWAYS", ""
	case strings.HasSuffix(n, "ms") && !strings.ContainsAny(n, ".("):
		return n, ""
	case percentRetry.MatchString(n):
		return strings.TrimSuffix(n, "p") + "PERCENTILE", ""
	}
	return "", "is not a policy kandra.SpeculativeRetry takes for a ScyllaDB target (NONE, ALWAYS, <n>PERCENTILE with one decimal, <n>ms)"
}
