package integration

import (
	"fmt"
	"strings"

	"github.com/gocql/gocql"
)

// The settings of Cassandra 5.0's cassandra_latest.yaml that
// scripts/cassandra.sh start --latest sets, as system_views.settings
// shows them, and what a default node shows instead ("" is unset: the
// built-in default, CASSANDRA_4 for storage_compatibility_mode).
var latestSettings = []struct{ name, latest, dflt string }{
	{"storage_compatibility_mode", "NONE", ""},
	{"default_secondary_index", "sai", "legacy_local_table"},
	{"default_secondary_index_enabled", "true", "true"},
	{"sstable.selected_format", "bti", "big"},
	{"memtable.configurations", "{default=trie+, skiplist=SkipListMemtable, trie=TrieMemtable}", ""},
	{"default_compaction.class_name", "UnifiedCompactionStrategy", ""},
	{"column_index_size", "4KiB", ""},
}

// checkConfig reads the node's settings and fails unless they are the
// ones KANDRA_CASSANDRA_LATEST says: a latest run against a default node
// (or the reverse) would test the wrong target. It records the summary
// line.
func checkConfig(s *gocql.Session) error {
	names := make([]string, len(latestSettings))
	for i, x := range latestSettings {
		names[i] = x.name
	}
	iter := s.Query("SELECT name, value FROM system_views.settings WHERE name IN ?", names).Iter()
	got := map[string]string{}
	var name, value string
	for iter.Scan(&name, &value) {
		got[name] = value
	}
	if err := iter.Close(); err != nil {
		return fmt.Errorf("reading system_views.settings: %w", err)
	}
	var parts, wrong []string
	for _, x := range latestSettings {
		want := x.dflt
		if latestMode() {
			want = x.latest
		}
		v, ok := got[x.name]
		if !ok || v != want {
			wrong = append(wrong, fmt.Sprintf("%s=%q (want %q)", x.name, v, want))
		}
		if v == "" {
			v = "unset"
		}
		parts = append(parts, x.name+"="+v)
	}
	if len(wrong) > 0 {
		if latestMode() {
			return fmt.Errorf("KANDRA_CASSANDRA_LATEST=1 but the node does not run cassandra_latest.yaml's settings (start it with scripts/cassandra.sh start --latest): %s", strings.Join(wrong, ", "))
		}
		return fmt.Errorf("the node does not run the default cassandra.yaml (a node started with --latest needs KANDRA_CASSANDRA_LATEST=1): %s", strings.Join(wrong, ", "))
	}
	config := "default-config"
	if latestMode() {
		config = "latest-config"
	}
	summary("config", fmt.Sprintf("real-server: %s target=%q %s", config, serverTarget().String(), strings.Join(parts, " ")))
	return nil
}
