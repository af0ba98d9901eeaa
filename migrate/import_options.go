package migrate

// The table options GenerateEntities declares: the live values that are
// not the server's defaults, written so that the planner's comparison
// (options, storageDiff) finds them equal.

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

// tableOptions are the Go expressions of t's TableOptions.
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
	o := t.Options
	what := "table " + t.Name
	out = append(out, g.compaction(what, o)...)
	out = append(out, g.compression(what, o)...)
	out = append(out, g.caching(what, o)...)
	if c := o["comment"]; c != "" {
		out = append(out, "kandra.Comment("+strconv.Quote(c)+")")
	}
	if r, ok := o["speculative_retry"]; ok && normRetry(r) != "99p" {
		if s, why := g.retry(r); why != "" {
			g.unexpressed(what + ": speculative_retry " + strconv.Quote(r) + " " + why + "; the table keeps it, a table created from the model has the server's default")
		} else {
			out = append(out, "kandra.SpeculativeRetry("+strconv.Quote(s)+")")
		}
	}
	if v, ok := o["bloom_filter_fp_chance"]; ok {
		p, err := strconv.ParseFloat(v, 64)
		lcs := strings.HasSuffix(o["compaction.class"], "LeveledCompactionStrategy")
		switch {
		case err != nil || p <= 6.71e-5 || p > 1:
			g.unexpressed(what + ": bloom_filter_fp_chance " + strconv.Quote(v) + " is outside what kandra.BloomFilterFPChance takes, (6.71e-05, 1]")
		case p == 0.01 && !lcs, p == 0.1 && lcs:
			// The server's default for the compaction.
		default:
			out = append(out, "kandra.BloomFilterFPChance("+strconv.FormatFloat(p, 'g', -1, 64)+")")
		}
	}
	if m := o["memtable"]; m != "" && m != "default" {
		switch {
		case !g.allTargets(kandra.Cassandra5 | kandra.Cassandra5Latest):
			g.unexpressed(what + ": memtable " + strconv.Quote(m) + ": kandra.Memtable is for Cassandra targets alone; import for Cassandra targets (ImportOptions.Targets)")
		case m == "skiplist" || m == "trie":
			out = append(out, "kandra.Memtable("+strconv.Quote(m)+")")
			g.onlyLatest = append(g.onlyLatest, "table "+t.Name+"'s memtable "+strconv.Quote(m))
		default:
			g.unexpressed(what + ": memtable " + strconv.Quote(m) + " is none of the configurations kandra knows (default, skiplist, trie of cassandra_latest.yaml)")
		}
	}
	if o["cdc"] == "true" && !g.scylla {
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
// servers' default (size-tiered with its own settings).
func (g *gen) compaction(what string, o map[string]string) []string {
	m := mapOption(o, "compaction")
	if len(m) == 0 {
		return nil
	}
	what += ": compaction " + lastName(m["class"])
	known := map[string]string{"class": "", "max_threshold": "32", "min_threshold": "4"}
	var expr string
	intOf := func(k string) (int, bool) {
		n, err := strconv.Atoi(m[k])
		if err != nil || n < 1 {
			g.unexpressed(what + ": its " + k + " " + strconv.Quote(m[k]) + " is not a count kandra takes")
			return 0, false
		}
		known[k] = m[k]
		return n, true
	}
	switch lastName(m["class"]) {
	case "SizeTieredCompactionStrategy":
		expr = "kandra.SizeTiered()"
	case "LeveledCompactionStrategy":
		size := 0
		if _, ok := m["sstable_size_in_mb"]; ok {
			n, ok := intOf("sstable_size_in_mb")
			if !ok {
				return nil
			}
			size = n
		}
		expr = "kandra.Leveled(" + strconv.Itoa(size) + ")"
	case "TimeWindowCompactionStrategy":
		unit, size := "", 0
		if u, ok := m["compaction_window_unit"]; ok {
			unit = map[string]string{"MINUTES": "kandra.WindowMinutes", "HOURS": "kandra.WindowHours", "DAYS": "kandra.WindowDays"}[u]
			if unit == "" {
				g.unexpressed(what + ": its compaction_window_unit " + strconv.Quote(u) + " is none of MINUTES, HOURS and DAYS, as kandra writes them")
				return nil
			}
			known["compaction_window_unit"] = u
		}
		if _, ok := m["compaction_window_size"]; ok {
			n, ok := intOf("compaction_window_size")
			if !ok {
				return nil
			}
			size = n
		}
		if (unit == "") != (size == 0) {
			g.unexpressed(what + ": kandra.TimeWindow takes a window's unit and size together, and the table has one of them")
			return nil
		}
		if unit == "" {
			unit = "0"
		}
		expr = "kandra.TimeWindow(" + unit + ", " + strconv.Itoa(size) + ")"
	case "UnifiedCompactionStrategy":
		if !g.allTargets(kandra.Cassandra5 | kandra.Cassandra5Latest) {
			g.unexpressed(what + ": kandra.Unified is for Cassandra targets alone")
			return nil
		}
		sp, ok := m["scaling_parameters"]
		if ok {
			known["scaling_parameters"] = sp
		}
		expr = "kandra.Unified(" + strconv.Quote(sp) + ")"
	case "IncrementalCompactionStrategy":
		if !g.scylla {
			g.unexpressed(what + ": kandra.Incremental is for ScyllaDB targets alone")
			return nil
		}
		expr = "kandra.Incremental()"
	default:
		g.unexpressed(what + ": the class " + strconv.Quote(m["class"]) + " is none kandra declares (SizeTiered, Leveled, TimeWindow, Unified, Incremental); the table keeps it, a table created from the model has the server's default")
		return nil
	}
	for _, k := range sortedKeys(m) {
		if want, ok := known[k]; !ok || want != "" && want != m[k] {
			g.unexpressed(what + ": its setting " + k + " = " + strconv.Quote(m[k]) + " has no kandra form: the model declares the compaction without it")
		}
	}
	if expr == "kandra.SizeTiered()" {
		return nil // the servers' default
	}
	return []string{"kandra.Compaction(" + expr + ")"}
}

// compressors are the Go names of the compressors kandra declares.
var compressors = map[string]string{"LZ4Compressor": "kandra.LZ4Compressor", "SnappyCompressor": "kandra.SnappyCompressor", "DeflateCompressor": "kandra.DeflateCompressor", "ZstdCompressor": "kandra.ZstdCompressor"}

// compression is the kandra.Compression of a compression that is not the
// server's default (LZ4 in chunks of 16 KB on Cassandra, 4 KB on
// ScyllaDB), or kandra.NoCompression.
func (g *gen) compression(what string, o map[string]string) []string {
	m := mapOption(o, "compression")
	if len(m) == 0 {
		return nil
	}
	what += ": compression"
	if g.targets == 0 || !g.scylla && !g.allTargets(kandra.Cassandra5|kandra.Cassandra5Latest) {
		if !(lastName(m["class"]) == "LZ4Compressor" && (m["chunk_length_in_kb"] == "16" || m["chunk_length_in_kb"] == "")) {
			g.unexpressed(what + " " + describeMap(m) + ": kandra.Compression is written differently by Cassandra and ScyllaDB, so it needs targets of one server (ImportOptions.Targets)")
		}
		return nil
	}
	classKey, defChunk := "class", "16"
	if g.scylla {
		classKey, defChunk = "sstable_compression", "4"
	}
	known := map[string]bool{classKey: true, "chunk_length_in_kb": true}
	class, hasClass := m[classKey]
	off := m["enabled"] == "false" || g.scylla && hasClass && class == ""
	if m["enabled"] == "false" || m["enabled"] == "true" {
		known["enabled"] = true
	}
	for _, k := range sortedKeys(m) {
		if !known[k] && !off {
			g.unexpressed(what + ": its setting " + k + " = " + strconv.Quote(m[k]) + " has no kandra form: the model declares the compression without it")
		}
	}
	if off {
		return []string{"kandra.NoCompression()"}
	}
	c := compressors[lastName(class)]
	if c == "" {
		if hasClass {
			g.unexpressed(what + ": the compressor " + strconv.Quote(class) + " is none kandra declares (LZ4, Snappy, Deflate, Zstd)")
		}
		return nil
	}
	chunk := 0
	if v, ok := m["chunk_length_in_kb"]; ok && v != defChunk {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n&(n-1) != 0 || g.scylla && n > 128 {
			g.unexpressed(what + ": its chunk_length_in_kb " + strconv.Quote(v) + " is not a chunk kandra takes")
			return nil
		}
		chunk = n
	}
	if c == "kandra.LZ4Compressor" && chunk == 0 {
		return nil // the server's default
	}
	return []string{"kandra.Compression(" + c + ", " + strconv.Itoa(chunk) + ")"}
}

// describeMap renders a map option's entries, sorted.
func describeMap(m map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, k+"="+m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// caching is Cassandra's kandra.Caching of a caching that is not its
// default (keys ALL, no rows), or ScyllaDB's kandra.ScyllaCaching(false).
func (g *gen) caching(what string, o map[string]string) []string {
	m := mapOption(o, "caching")
	what += ": caching " + describeMap(m)
	if g.scylla {
		if m["enabled"] == "false" {
			return []string{"kandra.ScyllaCaching(false)"}
		}
		return nil
	}
	keys, rows := m["keys"], m["rows_per_partition"]
	if (keys == "" || keys == "ALL") && (rows == "" || rows == "NONE") {
		return nil
	}
	if !g.allTargets(kandra.Cassandra5 | kandra.Cassandra5Latest) {
		g.unexpressed(what + ": kandra.Caching is Cassandra's, and the targets are not all Cassandra's (ImportOptions.Targets)")
		return nil
	}
	n := 0
	switch rows {
	case "", "NONE":
	case "ALL":
		n = kandra.CachingAllRows
	default:
		v, err := strconv.Atoi(rows)
		if err != nil || v < 1 {
			g.unexpressed(what + ": rows_per_partition " + strconv.Quote(rows) + " is none of NONE, ALL and a count")
			return nil
		}
		n = v
	}
	if keys != "" && keys != "ALL" && keys != "NONE" {
		g.unexpressed(what + ": keys " + strconv.Quote(keys) + " is neither ALL nor NONE")
		return nil
	}
	rowsExpr := strconv.Itoa(n)
	if n == kandra.CachingAllRows {
		rowsExpr = "kandra.CachingAllRows"
	}
	return []string{"kandra.Caching(" + strconv.FormatBool(keys != "NONE") + ", " + rowsExpr + ")"}
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
