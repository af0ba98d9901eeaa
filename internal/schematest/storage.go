package schematest

import (
	"math"
	"strconv"
	"strings"

	"github.com/kandra-go/kandra"
	"pgregory.net/rapid"
)

// Storage options: drawn from what every target has (compaction STCS,
// LCS or TWCS, comment, a single speculative retry policy, bloom filter
// chance) and compression, which the servers spell differently, so that
// its keyspace takes targets of one server. The expected WITH items are
// rendered here from the drawn values, apart from kandra's renderer.

// storageDraft is the storage options a draft sets; nil or zero for none.
type storageDraft struct {
	compaction string // "STCS", "LCS", "TWCS" or ""
	lcsMB      int
	twcsUnit   string // MINUTES, HOURS, DAYS
	twcsSize   int
	compressor string // "LZ4Compressor", ... or "" for none; "off" for NoCompression
	chunkKB    int
	comment    *string
	retry      string
	bloom      float64    // 0 for none
	caching    *[2]string // Cassandra's keys and rows_per_partition, as rendered
	rows       int        // Caching's rowsPerPartition
	memtable   bool       // Memtable("default")
	cdcOff     bool       // CDC(false)
}

func (s storageDraft) options() []any {
	var out []any
	switch s.compaction {
	case "STCS":
		out = append(out, kandra.Compaction(kandra.SizeTiered()))
	case "LCS":
		out = append(out, kandra.Compaction(kandra.Leveled(s.lcsMB)))
	case "TWCS":
		unit := map[string]kandra.TimeWindowUnit{"MINUTES": kandra.WindowMinutes, "HOURS": kandra.WindowHours, "DAYS": kandra.WindowDays}[s.twcsUnit]
		out = append(out, kandra.Compaction(kandra.TimeWindow(unit, s.twcsSize)))
	}
	switch s.compressor {
	case "":
	case "off":
		out = append(out, kandra.NoCompression())
	default:
		c := map[string]kandra.Compressor{"LZ4Compressor": kandra.LZ4Compressor, "SnappyCompressor": kandra.SnappyCompressor, "DeflateCompressor": kandra.DeflateCompressor, "ZstdCompressor": kandra.ZstdCompressor}[s.compressor]
		out = append(out, kandra.Compression(c, s.chunkKB))
	}
	if s.comment != nil {
		out = append(out, kandra.Comment(*s.comment))
	}
	if s.retry != "" {
		out = append(out, kandra.SpeculativeRetry(s.retry))
	}
	if s.bloom != 0 {
		out = append(out, kandra.BloomFilterFPChance(s.bloom))
	}
	if s.caching != nil {
		out = append(out, kandra.Caching(s.caching[0] == "ALL", s.rows))
	}
	if s.memtable {
		out = append(out, kandra.Memtable("default"))
	}
	if s.cdcOff {
		out = append(out, kandra.CDC(false))
	}
	return out
}

// StorageItems are the WITH items CREATE TABLE must write for the model's
// storage options, in a keyspace of ScyllaDB targets (scylla) or of
// Cassandra's.
func (m Model) StorageItems(scylla bool) []string {
	s := m.storage
	lit := func(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }
	var out []string
	switch s.compaction {
	case "STCS":
		out = append(out, "compaction = {'class': 'SizeTieredCompactionStrategy'}")
	case "LCS":
		item := "compaction = {'class': 'LeveledCompactionStrategy'"
		if s.lcsMB > 0 {
			item += ", 'sstable_size_in_mb': '" + strconv.Itoa(s.lcsMB) + "'"
		}
		out = append(out, item+"}")
	case "TWCS":
		out = append(out, "compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': '"+s.twcsUnit+"', 'compaction_window_size': '"+strconv.Itoa(s.twcsSize)+"'}")
	}
	if s.compressor != "" {
		key, class := "class", s.compressor
		if scylla {
			key = "sstable_compression"
		}
		item := "compression = {'" + key + "': '" + class + "'"
		if class == "off" {
			item = "compression = {'enabled': 'false'"
			if scylla {
				item = "compression = {'sstable_compression': ''"
			}
		}
		if s.chunkKB > 0 {
			item += ", 'chunk_length_in_kb': '" + strconv.Itoa(s.chunkKB) + "'"
		}
		out = append(out, item+"}")
	}
	if s.caching != nil {
		out = append(out, "caching = {'keys': '"+s.caching[0]+"', 'rows_per_partition': '"+s.caching[1]+"'}")
	}
	if s.comment != nil {
		out = append(out, "comment = "+lit(*s.comment))
	}
	if s.retry != "" {
		out = append(out, "speculative_retry = "+lit(s.retry))
	}
	if s.bloom != 0 {
		out = append(out, "bloom_filter_fp_chance = "+strconv.FormatFloat(s.bloom, 'g', -1, 64))
	}
	if s.memtable {
		out = append(out, "memtable = 'default'")
	}
	if s.cdcOff {
		if scylla {
			out = append(out, "cdc = {'enabled': 'false'}")
		} else {
			out = append(out, "cdc = false")
		}
	}
	return out
}

// dialectOptions reports options the servers spell differently.
func (m Model) dialectOptions() bool { return m.storage.compressor != "" || m.storage.cdcOff }

// refusedOn reports an option the target lacks: Cassandra's caching map,
// memtable and MIN/MAX retries on ScyllaDB, which also takes neither the
// <n>p spelling nor NEVER.
func (s storageDraft) refusedOn(t kandra.Target) bool {
	if t&scyllaTargets == 0 {
		return false
	}
	l := strings.ToLower(s.retry)
	return s.caching != nil || s.memtable || strings.HasPrefix(l, "min(") || strings.HasPrefix(l, "max(") ||
		l == "never" || strings.HasSuffix(l, "p") && !strings.HasSuffix(l, "percentile")
}

var storageComments = []string{"", "events of the day", "it's 'quoted'", "two\nlines", "Größe ✓", "{'not': 'a map'}"}

// drawStorage gives the draft some storage options, each rarely.
func (g *gen) drawStorage() {
	t, s := g.t, &g.d.storage
	if chance(t, 15, "compaction") {
		s.compaction = rapid.SampledFrom([]string{"STCS", "LCS", "TWCS"}).Draw(t, "compaction kind")
		switch s.compaction {
		case "LCS":
			s.lcsMB = rapid.SampledFrom([]int{0, 1, 80, 160, 512}).Draw(t, "lcs size")
		case "TWCS":
			s.twcsUnit = rapid.SampledFrom([]string{"MINUTES", "HOURS", "DAYS"}).Draw(t, "twcs unit")
			s.twcsSize = rapid.IntRange(1, 30).Draw(t, "twcs size")
		}
		g.feature("Compaction " + s.compaction)
	}
	if chance(t, 10, "compression") {
		s.compressor = rapid.SampledFrom([]string{"LZ4Compressor", "SnappyCompressor", "DeflateCompressor", "ZstdCompressor", "off"}).Draw(t, "compressor")
		if s.compressor != "off" {
			s.chunkKB = rapid.SampledFrom([]int{0, 1, 4, 16, 64}).Draw(t, "chunk")
		}
		g.feature("Compression")
	}
	if chance(t, 10, "comment") {
		c := rapid.SampledFrom(storageComments).Draw(t, "comment")
		s.comment = &c
		g.feature("Comment")
	}
	if chance(t, 10, "speculative retry") {
		switch rapid.IntRange(0, 3).Draw(t, "retry form") {
		case 0:
			s.retry = rapid.SampledFrom([]string{"NONE", "ALWAYS", "none", "NEVER"}).Draw(t, "retry word")
		case 1:
			s.retry = strconv.Itoa(rapid.IntRange(1, 99).Draw(t, "percentile")) + "PERCENTILE"
		case 2:
			s.retry = strconv.Itoa(rapid.IntRange(1, 99).Draw(t, "percentile")) + "p"
		default:
			s.retry = strconv.Itoa(rapid.IntRange(0, 1000).Draw(t, "ms")) + "ms"
		}
		g.feature("SpeculativeRetry")
	}
	if chance(t, 10, "bloom") {
		s.bloom = rapid.SampledFrom([]float64{0.01, 0.05, 0.1, 0.5, 1}).Draw(t, "bloom chance")
		g.feature("BloomFilterFPChance")
	}
	if chance(t, 8, "caching") {
		keys := rapid.SampledFrom([]string{"ALL", "NONE"}).Draw(t, "caching keys")
		s.rows = rapid.SampledFrom([]int{0, kandra.CachingAllRows, 1, 100}).Draw(t, "caching rows")
		rows := map[int]string{0: "NONE", kandra.CachingAllRows: "ALL"}[s.rows]
		if rows == "" {
			rows = strconv.Itoa(s.rows)
		}
		s.caching = &[2]string{keys, rows}
		g.feature("Caching")
	}
	if chance(t, 5, "memtable") {
		s.memtable = true
		g.feature("Memtable")
	}
	if chance(t, 5, "cdc") {
		s.cdcOff = true
		g.feature("CDC")
	}
	if s.retry == "" && chance(t, 5, "MIN or MAX retry") {
		s.retry = rapid.SampledFrom([]string{"MIN(99p,50ms)", "MAX(25ms,90.5p)", "min(95PERCENTILE, 10ms)"}).Draw(t, "min max")
		g.feature("SpeculativeRetry MIN or MAX")
	}
}

// badStorage is a storage option out of range (RuleOptionRange).
func (g *gen) badStorage() {
	t, s := g.t, &g.d.storage
	switch rapid.IntRange(0, 5).Draw(t, "bad storage") {
	case 0:
		s.compressor, s.chunkKB = "LZ4Compressor", rapid.SampledFrom([]int{3, 6, 100, -4}).Draw(t, "bad chunk")
	case 1:
		s.bloom = rapid.SampledFrom([]float64{-0.5, 1.5, math.Inf(1)}).Draw(t, "bad bloom")
	case 2:
		s.retry = rapid.SampledFrom([]string{"sometimes", "100p", "0p", "99 ms"}).Draw(t, "bad retry")
	case 3:
		// Past the servers' ints: Cassandra's largest LCS size, 2^31.
		s.compaction, s.lcsMB = "LCS", rapid.SampledFrom([]int{-1, maxLeveledMB + 1, math.MaxInt32 + 1}).Draw(t, "bad lcs size")
	case 4:
		s.compaction, s.twcsUnit, s.twcsSize = "TWCS", "DAYS", math.MaxInt32+1
	default:
		s.rows, s.caching = math.MaxInt32+1, &[2]string{"ALL", strconv.Itoa(math.MaxInt32 + 1)}
	}
}

// maxLeveledMB is Cassandra 5.0's largest sstable_size_in_mb (its ninth
// level of 10^8 sstables must fit in 2^63-1 bytes).
const maxLeveledMB = 87960

// storageBroken reports an option out of range, for the oracle.
func (s storageDraft) broken() bool {
	switch {
	case s.compressor != "" && s.compressor != "off" && (s.chunkKB < 0 || s.chunkKB&(s.chunkKB-1) != 0):
		return true
	case s.bloom != 0 && (s.bloom < 0 || s.bloom > 1 || math.IsInf(s.bloom, 0)):
		return true
	case s.compaction == "LCS" && (s.lcsMB < 0 || s.lcsMB > maxLeveledMB):
		return true
	case s.compaction == "TWCS" && s.twcsSize > math.MaxInt32:
		return true
	case s.caching != nil && s.rows > math.MaxInt32:
		return true
	}
	if s.retry == "" {
		return false
	}
	l := strings.ToLower(s.retry)
	if l == "none" || l == "always" || l == "never" || strings.HasPrefix(l, "min(") || strings.HasPrefix(l, "max(") {
		return false // the drawn MIN and MAX are valid ones
	}
	num := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(l, "percentile"), "p"), "ms")
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return true
	}
	percent := strings.HasSuffix(l, "p") || strings.HasSuffix(l, "percentile")
	return percent && (n <= 0 || n >= 100)
}
