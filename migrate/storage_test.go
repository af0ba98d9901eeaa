package migrate

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
	"pgregory.net/rapid"
)

func ptr[V any](v V) *V { return &v }

// TestLiveStorageOptions: the live options are read into kandra's values
// as the servers store them, and what kandra has no value for is listed.
func TestLiveStorageOptions(t *testing.T) {
	for _, c := range []struct {
		name   string
		live   map[string]string
		want   kandra.StorageOptions
		unread []string
	}{
		{"Cassandra's defaults", map[string]string{
			"compaction.class": "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy", "compaction.max_threshold": "32", "compaction.min_threshold": "4",
			"compression.class": "org.apache.cassandra.io.compress.LZ4Compressor", "compression.chunk_length_in_kb": "16",
			"caching.keys": "ALL", "caching.rows_per_partition": "NONE", "comment": "", "speculative_retry": "99p", "bloom_filter_fp_chance": "0.01",
		}, kandra.StorageOptions{
			Compaction: ptr(kandra.SizeTiered()), Compression: &kandra.CompressionSpec{Compressor: kandra.LZ4Compressor, ChunkLengthKB: 16},
			Caching: &kandra.CachingSpec{Keys: true}, Comment: ptr(""), SpeculativeRetry: ptr("99p"), BloomFilterFPChance: ptr(0.01),
		}, nil},
		{"a time window, no compression, rows cached, trie", map[string]string{
			"compaction.class": "org.apache.cassandra.db.compaction.TimeWindowCompactionStrategy", "compaction.compaction_window_unit": "HOURS", "compaction.compaction_window_size": "6",
			"compression.enabled": "false", "caching.keys": "NONE", "caching.rows_per_partition": "ALL", "memtable": "trie", "cdc": "false",
		}, kandra.StorageOptions{
			Compaction: ptr(kandra.TimeWindow(kandra.WindowHours, 6)), Compression: &kandra.CompressionSpec{Off: true},
			Caching: &kandra.CachingSpec{RowsPerPartition: kandra.CachingAllRows}, Memtable: ptr("trie"), CDC: ptr(false),
		}, nil},
		{"ScyllaDB's forms", map[string]string{
			"compaction.class": "IncrementalCompactionStrategy", "compression.sstable_compression": "org.apache.cassandra.io.compress.ZstdCompressor",
			"caching.keys": "ALL", "caching.rows_per_partition": "ALL", "caching.enabled": "false", "speculative_retry": "95.0PERCENTILE",
		}, kandra.StorageOptions{
			Compaction: ptr(kandra.Incremental()), Compression: &kandra.CompressionSpec{Compressor: kandra.ZstdCompressor},
			Caching: &kandra.CachingSpec{Keys: true, RowsPerPartition: kandra.CachingAllRows}, ScyllaCaching: ptr(false), SpeculativeRetry: ptr("95.0PERCENTILE"),
		}, nil},
		{"settings kandra has no form for", map[string]string{
			"compaction.class": "org.apache.cassandra.db.compaction.LeveledCompactionStrategy", "compaction.sstable_size_in_mb": "200", "compaction.tombstone_threshold": "0.3",
			"compaction.max_threshold": "64", "compression.class": "ZstdCompressor", "compression.compression_level": "5", "caching.rows_per_partition": "many",
		}, kandra.StorageOptions{
			Compaction: ptr(kandra.Leveled(200)), Compression: &kandra.CompressionSpec{Compressor: kandra.ZstdCompressor}, Caching: &kandra.CachingSpec{Keys: true},
		}, []string{
			`compaction LeveledCompactionStrategy: its setting max_threshold = "64" has no kandra form`,
			`compaction LeveledCompactionStrategy: its setting tombstone_threshold = "0.3" has no kandra form`,
			`compression: its setting compression_level = "5" has no kandra form`,
			`caching: its rows_per_partition "many" is none of NONE, ALL and a count`,
		}},
		{"classes kandra does not declare", map[string]string{
			"compaction.class": "com.example.MyCompaction", "compression.class": "com.example.MyCompressor", "bloom_filter_fp_chance": "often",
		}, kandra.StorageOptions{}, []string{
			`compaction: the class "com.example.MyCompaction" is none kandra declares`,
			`compression: the compressor "com.example.MyCompressor" is none kandra declares`,
			`bloom_filter_fp_chance "often" is not a number`,
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, unread := (&LiveTable{Options: c.live}).StorageOptions()
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("read %s, want %s", storageString(got), storageString(c.want))
			}
			if len(unread) != len(c.unread) {
				t.Fatalf("unread %q, want %d entries like %q", unread, len(c.unread), c.unread)
			}
			for i, w := range c.unread {
				if !strings.HasPrefix(unread[i], w) {
					t.Errorf("unread[%d] %q, want %q", i, unread[i], w)
				}
			}
		})
	}
}

// storageString shows the options that are set, dereferenced.
func storageString(o kandra.StorageOptions) string {
	var parts []string
	v := reflect.ValueOf(o)
	for i := range v.NumField() {
		if f := v.Field(i); !f.IsNil() {
			parts = append(parts, fmt.Sprintf("%s=%+v", v.Type().Field(i).Name, f.Elem().Interface()))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// TestStorageDefaults: a setting the model leaves to the server is the
// server's default, compared as such with what live stores, and an ALTER
// says which of live's settings without a kandra form it resets.
func TestStorageDefaults(t *testing.T) {
	leveled := kandra.StorageOptions{Compaction: ptr(kandra.Leveled(0))}
	live := func(m map[string]string) kandra.StorageOptions {
		o, _ := (&LiveTable{Options: m}).StorageOptions()
		return o
	}
	lcs := func(size string) map[string]string {
		return map[string]string{"compaction.class": "org.apache.cassandra.db.compaction.LeveledCompactionStrategy", "compaction.sstable_size_in_mb": size}
	}
	if got, want, differs := sameStorage("compaction", leveled, live(lcs("160")), false); differs {
		t.Errorf("Leveled(0) against a stored 160: %s in live, %s in the model, want equal", got, want)
	}
	if got, want, differs := sameStorage("compaction", leveled, live(lcs("200")), false); !differs ||
		got != "class=LeveledCompactionStrategy sstable_size_in_mb=200" || want != "class=LeveledCompactionStrategy sstable_size_in_mb=160" {
		t.Errorf("Leveled(0) against a stored 200: %q, %q, %v", got, want, differs)
	}
	tw := kandra.StorageOptions{Compaction: ptr(kandra.TimeWindow(kandra.WindowDays, 1))}
	if _, _, differs := sameStorage("compaction", tw, live(map[string]string{"compaction.class": "TimeWindowCompactionStrategy"}), false); differs {
		t.Error("TimeWindow(days, 1) differs from a time window without settings")
	}
	ucs := kandra.StorageOptions{Compaction: ptr(kandra.Unified("T4, L10"))}
	if _, _, differs := sameStorage("compaction", ucs, live(map[string]string{"compaction.class": "UnifiedCompactionStrategy", "compaction.scaling_parameters": "T4,L10"}), false); differs {
		t.Error(`Unified("T4, L10") differs from a stored "T4,L10"`)
	}
	lz4 := kandra.StorageOptions{Compression: &kandra.CompressionSpec{Compressor: kandra.LZ4Compressor}}
	for _, c := range []struct {
		live   map[string]string
		scylla bool
		differ bool
	}{
		{map[string]string{"compression.class": "LZ4Compressor", "compression.chunk_length_in_kb": "16"}, false, false},
		{map[string]string{"compression.class": "LZ4Compressor", "compression.chunk_length_in_kb": "64"}, false, true},
		{map[string]string{"compression.sstable_compression": "LZ4Compressor", "compression.chunk_length_in_kb": "4"}, true, false},
		{map[string]string{"compression.sstable_compression": "LZ4Compressor"}, true, false},
		{map[string]string{}, true, true}, // ScyllaDB's empty map is no compression
	} {
		if got, want, differs := sameStorage("compression", lz4, live(c.live), c.scylla); differs != c.differ {
			t.Errorf("LZ4 against %v (scylla %v): %s in live, %s in the model, differs %v", c.live, c.scylla, got, want, differs)
		}
	}
	bloom := kandra.StorageOptions{BloomFilterFPChance: ptr(0.1)}
	if _, _, differs := sameStorage("bloom_filter_fp_chance", bloom, live(lcs("160")), false); differs {
		t.Error("0.1 differs from a leveled table's unstored default")
	}
	if _, _, differs := sameStorage("bloom_filter_fp_chance", bloom, live(nil), false); !differs {
		t.Error("0.1 is taken as a size-tiered table's default")
	}

	// The planner's step names the setting its ALTER resets.
	ts := kandra.MustRegister[stored]()
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 1}), Targets: kandra.Cassandra5}, ts)
	r := rowsOf(ks)
	r.Tables[0]["compaction"] = map[string]string{"class": "org.apache.cassandra.db.compaction.LeveledCompactionStrategy", "sstable_size_in_mb": "100", "tombstone_threshold": "0.3"}
	s := stepOf(t, mustPlan(t, ks, mustLive(t, r)), "options:stored")
	if !strings.Contains(s.Reason, "compaction is class=LeveledCompactionStrategy sstable_size_in_mb=100 in live, class=LeveledCompactionStrategy sstable_size_in_mb=80 in the model; "+
		`the step resets live's compaction LeveledCompactionStrategy: its setting tombstone_threshold = "0.3" has no kandra form`) {
		t.Fatalf("step %+v", s)
	}

	// A class kandra does not declare is never the model's: neither
	// taken as the server's default nor left alone (on either server's
	// form of compression).
	for _, form := range []map[string]string{
		{"class": "org.apache.cassandra.io.compress.NoopCompressor"},
		{"sstable_compression": "com.example.MyCompressor"},
	} {
		r = rowsOf(ks)
		r.Tables[0]["compaction"] = map[string]string{"class": "com.example.MyCompaction"}
		r.Tables[0]["compression"] = form
		s = stepOf(t, mustPlan(t, ks, mustLive(t, r)), "options:stored")
		for _, want := range []string{`compaction is the class "com.example.MyCompaction" in live`, `compression is the class "` + form["class"] + form["sstable_compression"] + `" in live`} {
			if !strings.Contains(s.Reason, want) || !strings.Contains(s.CQL, "compaction") || !strings.Contains(s.CQL, "compression") {
				t.Errorf("%v: step %+v, want %q", form, s, want)
			}
		}
	}
}

// lz4Stored declares the servers' usual compression, LZ4 in 16 KB chunks.
type lz4Stored struct{ ID string }

func (s *lz4Stored) Describe(sc *kandra.Schema[lz4Stored]) {
	sc.Table("lz4_stored", kandra.Compression(kandra.LZ4Compressor, 16))
	kandra.Bind(sc, &s.ID, kandra.PartitionKey(0))
}

// TestStorageDefaultsOfTheServerRead: a table without stored compression
// is compressed with LZ4 on Cassandra and not at all on ScyllaDB (which
// stores {} for none): the server live was read from decides, over the
// model's targets.
func TestStorageDefaultsOfTheServerRead(t *testing.T) {
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5, Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 1})}, kandra.MustRegister[lz4Stored]())
	for product, steps := range map[string]int{"Cassandra": 0, "ScyllaDB": 1} {
		r := rowsOf(ks)
		r.Tables[0]["compression"] = map[string]string{}
		live := mustLive(t, r)
		live.Server.Product = product
		p := mustPlan(t, ks, live)
		if len(p.Steps) != steps {
			t.Errorf("read from %s: %d steps, want %d:\n%s", product, len(p.Steps), steps, p)
		}
	}
}

// TestPropertyStoredOptionsEqual: every storage option a model may set,
// stored as the servers store it and read back, compares equal to the
// model's, with nothing unread; and one changed setting compares unequal.
func TestPropertyStoredOptionsEqual(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		scylla := rapid.Bool().Draw(rt, "scylla")
		o := drawStorage(rt, scylla)
		row := map[string]any{}
		storedOptions(row, o, scylla)
		rd := &rowReader{keyspace: "ks"}
		lt := &LiveTable{Options: rd.storage("tables", 0, row)}
		if rd.err != nil {
			rt.Fatal(rd.err)
		}
		live, unread := lt.StorageOptions()
		if len(unread) > 0 {
			rt.Fatalf("unread %q of %v", unread, lt.Options)
		}
		for _, name := range []string{"compaction", "compression", "caching", "comment", "speculative_retry", "bloom_filter_fp_chance", "memtable", "cdc"} {
			if !modelSets(o, name) {
				continue
			}
			if got, want, differs := sameStorage(name, o, live, scylla); differs {
				rt.Fatalf("%s is %s in live (%v), %s in the model", name, got, lt.Options, want)
			}
		}
		if c := o.Compaction; c != nil && c.Kind == kandra.CompactionLeveled {
			other := o
			other.Compaction = ptr(kandra.Leveled(effectiveCompaction(c).SSTableSizeMB + 1))
			if _, _, differs := sameStorage("compaction", other, live, scylla); !differs {
				rt.Fatal("a larger sstable size compares equal")
			}
		}
	})
}

func modelSets(o kandra.StorageOptions, name string) bool {
	switch name {
	case "compaction":
		return o.Compaction != nil
	case "compression":
		return o.Compression != nil
	case "caching":
		return o.Caching != nil || o.ScyllaCaching != nil
	case "comment":
		return o.Comment != nil
	case "speculative_retry":
		return o.SpeculativeRetry != nil
	case "bloom_filter_fp_chance":
		return o.BloomFilterFPChance != nil
	case "memtable":
		return o.Memtable != nil
	case "cdc":
		return o.CDC != nil
	}
	return false
}

// drawStorage draws storage options a keyspace of one server's targets
// takes.
func drawStorage(rt *rapid.T, scylla bool) kandra.StorageOptions {
	var o kandra.StorageOptions
	maybe := func(label string) bool { return rapid.Bool().Draw(rt, label) }
	if maybe("compaction") {
		kinds := []kandra.CompactionKind{kandra.CompactionSizeTiered, kandra.CompactionLeveled, kandra.CompactionTimeWindow, kandra.CompactionUnified}
		if scylla {
			kinds[3] = kandra.CompactionIncremental
		}
		switch rapid.SampledFrom(kinds).Draw(rt, "kind") {
		case kandra.CompactionSizeTiered:
			o.Compaction = ptr(kandra.SizeTiered())
		case kandra.CompactionLeveled:
			o.Compaction = ptr(kandra.Leveled(rapid.IntRange(0, 1000).Draw(rt, "mb")))
		case kandra.CompactionTimeWindow:
			unit := kandra.TimeWindowUnit(rapid.IntRange(0, 3).Draw(rt, "unit"))
			size := 0
			if unit != 0 {
				size = rapid.IntRange(0, 100).Draw(rt, "size")
			}
			o.Compaction = ptr(kandra.TimeWindow(unit, size))
		case kandra.CompactionUnified:
			o.Compaction = ptr(kandra.Unified(rapid.SampledFrom([]string{"", "T4", "L10", "T4, L10", "N", "-2"}).Draw(rt, "scaling")))
		case kandra.CompactionIncremental:
			o.Compaction = ptr(kandra.Incremental())
		}
	}
	if maybe("compression") {
		if maybe("off") {
			o.Compression = &kandra.CompressionSpec{Off: true}
		} else {
			o.Compression = &kandra.CompressionSpec{Compressor: kandra.Compressor(rapid.IntRange(1, 4).Draw(rt, "compressor")),
				ChunkLengthKB: rapid.SampledFrom([]int{0, 4, 16, 64}).Draw(rt, "chunk")}
		}
	}
	if maybe("caching") {
		if scylla {
			o.ScyllaCaching = ptr(maybe("enabled"))
		} else {
			o.Caching = &kandra.CachingSpec{Keys: maybe("keys"), RowsPerPartition: rapid.SampledFrom([]int{0, kandra.CachingAllRows, 1, 100}).Draw(rt, "rows")}
		}
	}
	if maybe("comment") {
		o.Comment = ptr(rapid.String().Draw(rt, "text"))
	}
	if maybe("retry") {
		forms := []string{"NONE", "ALWAYS", "99PERCENTILE", "99.5PERCENTILE", "50ms"}
		if !scylla {
			forms = append(forms, "NEVER", "99p", "99.25p", "MIN(99p,50ms)", "MAX(25ms, 90.5p)")
		}
		o.SpeculativeRetry = ptr(rapid.SampledFrom(forms).Draw(rt, "policy"))
	}
	if maybe("bloom") {
		o.BloomFilterFPChance = ptr(rapid.SampledFrom([]float64{0.01, 0.1, 0.05, 1, 0.001}).Draw(rt, "p"))
	}
	if !scylla && maybe("memtable") {
		o.Memtable = ptr(rapid.SampledFrom([]string{"default", "skiplist", "trie"}).Draw(rt, "memtable"))
	}
	if maybe("cdc") {
		o.CDC = ptr(scylla && maybe("on"))
	}
	return o
}
