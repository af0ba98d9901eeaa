package integration

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/migrate"
)

// The storage options on the node: tables with every option the node's
// target has are created by the migrator, written, and read back from
// system_schema.tables as the model says (a second plan is empty); a
// changed option is one ALTER TABLE ... WITH step needing approval, after
// which the plan is empty again.

// optionsCase is one table: its options, and those of the next model,
// which changes one of them.
type optionsCase struct {
	name   string
	v1, v2 []any
}

func optionCases() []optionsCase {
	memtable := "default"
	if latestMode() {
		memtable = "trie"
	}
	comment, retry := kandra.Comment("it's a 'quoted' comment\nover two lines"), kandra.SpeculativeRetry("99PERCENTILE")
	rest := []any{kandra.Compression(kandra.ZstdCompressor, 16), kandra.Caching(true, 10), comment, retry, kandra.BloomFilterFPChance(0.05), kandra.Memtable(memtable), kandra.CDC(false)}
	window := []any{kandra.DefaultTTL(24 * time.Hour), kandra.Compression(kandra.LZ4Compressor, 64), kandra.Caching(false, -1), kandra.SpeculativeRetry("MIN(99p,50ms)")}
	return []optionsCase{
		{"o_leveled", append([]any{kandra.Compaction(kandra.Leveled(80))}, rest...), append([]any{kandra.Compaction(kandra.Leveled(160))}, rest...)},
		{"o_window", append([]any{kandra.Compaction(kandra.TimeWindow(kandra.WindowHours, 6))}, window...), append([]any{kandra.Compaction(kandra.TimeWindow(kandra.WindowDays, 1))}, window...)},
		{"o_unified", []any{kandra.Compaction(kandra.Unified("T4")), kandra.NoCompression(), kandra.SpeculativeRetry("NONE"), kandra.BloomFilterFPChance(1)},
			[]any{kandra.Compaction(kandra.Unified("T4")), kandra.Compression(kandra.LZ4Compressor, 0), kandra.SpeculativeRetry("NONE"), kandra.BloomFilterFPChance(1)}},
		{"o_tiered", []any{kandra.Compaction(kandra.SizeTiered()), kandra.Compression(kandra.SnappyCompressor, 0), kandra.SpeculativeRetry("25ms"), kandra.Comment("")},
			[]any{kandra.Compaction(kandra.SizeTiered()), kandra.Compression(kandra.SnappyCompressor, 0), kandra.SpeculativeRetry("25ms"), kandra.Comment("now with a comment")}},
		{"o_deflate", []any{kandra.Compression(kandra.DeflateCompressor, 4), kandra.SpeculativeRetry("99.95p")},
			[]any{kandra.Compression(kandra.DeflateCompressor, 4), kandra.SpeculativeRetry("99.95p"), kandra.BloomFilterFPChance(0.1)}},
	}
}

// TestTableOptions prints "real-server: table-options <n> ok=<n>": n
// tables, and how many were created, read back, written, altered and read
// back again as the model says.
func TestTableOptions(t *testing.T) {
	s := session(t)
	ks := keyspaceName("options")
	t.Cleanup(func() { _ = execDDL(s, "DROP KEYSPACE IF EXISTS "+ks) })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	d := kgocql.New(s)
	keyspace := func(second bool) *kandra.Keyspace {
		var tables []kandra.SchemaSource
		for _, c := range optionCases() {
			o := c.v1
			if second {
				o = c.v2
			}
			tables = append(tables, mustBuild(t, specOf(c.name, o, f[string]("K", pk0), f[string]("V"))))
		}
		k, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: ks, Replication: testReplication(), Targets: serverTarget()}, tables...)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	n, ok := len(optionCases()), 0
	defer func() { summary("table-options", fmt.Sprintf("real-server: table-options %d ok=%d", n, ok)) }()

	v1 := keyspace(false)
	if _, err := migrate.Apply(ctx, d, v1, migrate.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, st := range v1.Statements() {
		if strings.Contains(st, "compaction") {
			t.Logf("sent: %s", st)
		}
	}
	if res, err := migrate.Apply(ctx, d, v1, migrate.ApplyOptions{}); err != nil || !res.Plan.Empty() {
		t.Fatalf("the options did not read back as the model's:\n%v, %v", res.Plan, err)
	}
	for _, ts := range v1.Tables() {
		if w := checkWritable(s, ks, ts, 3); len(w.problems) > 0 {
			t.Errorf("%s: not writable: %v", ts.Name(), w.problems)
		}
	}
	v2 := keyspace(true) // one option of each table changes
	p, err := migrate.Apply(ctx, d, v2, migrate.ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Applied) != 0 || len(p.Plan.Steps) != n {
		t.Fatalf("v2 without approval: applied %d, planned:\n%v\nwant %d option steps waiting for approval", len(p.Applied), p.Plan, n)
	}
	for _, st := range p.Plan.Steps {
		if st.Kind != migrate.StepAlterOptions || st.Class != migrate.NeedsApproval {
			t.Errorf("v2 step %s: %v %v, want an options step needing approval", st.ID, st.Kind, st.Class)
		}
	}
	if _, err := migrate.Apply(ctx, d, v2, migrate.ApplyOptions{Approve: []string{"all"}}); err != nil {
		t.Fatal(err)
	}
	res, err := migrate.Apply(ctx, d, v2, migrate.ApplyOptions{})
	if err != nil || !res.Plan.Empty() {
		t.Fatalf("after the approved ALTER the options differ from the model:\n%v, %v", res.Plan, err)
	}
	// A table made by hand, with settings kandra leaves to the server
	// given explicitly and one it has no form for: the importer declares
	// what it can, lists the rest, and the imported model plans nothing
	// against the table (its Leveled(160) and Compression(LZ4, 16) are the
	// server's defaults, compared as values).
	if err := execDDL(s, "CREATE TABLE "+ks+".o_by_hand (k text PRIMARY KEY, v text) WITH compaction = {'class': 'LeveledCompactionStrategy', "+
		"'sstable_size_in_mb': '160', 'tombstone_threshold': '0.3'} AND compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': '16'} "+
		"AND caching = {'keys': 'ALL', 'rows_per_partition': 'NONE'} AND speculative_retry = '99PERCENTILE' AND bloom_filter_fp_chance = 0.1"); err != nil {
		t.Fatal(err)
	}
	im, err := migrate.Import(ctx, d, ks, migrate.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var unexp []string
	for _, u := range im.Unexpressed {
		// cassandra_latest.yaml's default_compaction, which such a node
		// stores, settings and all, on a table created without one.
		if latestMode() && latestDefaultCompaction.MatchString(u) {
			continue
		}
		unexp = append(unexp, u)
	}
	if len(unexp) != 1 || !strings.Contains(unexp[0], `table o_by_hand: compaction LeveledCompactionStrategy: its setting tombstone_threshold = "0.3" has no kandra form`) {
		t.Errorf("unexpressed %q, want the tombstone_threshold alone", im.Unexpressed)
	}
	if src := string(im.Source); !strings.Contains(src, `s.Table("o_by_hand", kandra.Compaction(kandra.Leveled(160)))`) {
		t.Errorf("the generated o_by_hand declares more or less than its compaction:\n%s", src)
	}
	importRoundTrip(t, s, []string{ks}, nil)
	if !t.Failed() {
		ok = n
	}
}

// latestDefaultCompaction is an unexpressed entry of a setting of
// cassandra_latest.yaml's default_compaction.
var latestDefaultCompaction = regexp.MustCompile(`: compaction UnifiedCompactionStrategy: its setting (max_sstables_to_compact = "64"|min_sstable_size = "100MiB"|sstable_growth = "0.3333333333333333"|target_sstable_size = "1GiB") has no kandra form`)
