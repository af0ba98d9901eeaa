package kandra_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/kandra-go/kandra"
)

// TestParseReplication: the maps servers store read into the
// Replication a KeyspaceSpec declares; the others are errors that say why.
func TestParseReplication(t *testing.T) {
	for _, c := range []struct {
		m    map[string]string
		want kandra.Replication
		err  string
	}{
		{map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "3"}, kandra.SimpleStrategy(3), ""},
		{map[string]string{"class": "SimpleStrategy", "replication_factor": "1"}, kandra.SimpleStrategy(1), ""},
		{map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "dc1": "3", "dc2": "2"}, kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3, "dc2": 2}), ""},
		{map[string]string{"class": "NetworkTopologyStrategy"}, kandra.NetworkTopologyStrategy(nil), ""},
		{map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "dc1": "3/1"}, kandra.Replication{}, `dc1="3/1" is not a whole number`},
		{map[string]string{"class": "org.apache.cassandra.locator.LocalStrategy"}, kandra.Replication{}, `class "org.apache.cassandra.locator.LocalStrategy" is neither`},
		{map[string]string{"class": "SimpleStrategy", "replication_factor": "1", "dc1": "1"}, kandra.Replication{}, `option "dc1"`},
	} {
		got, err := kandra.ParseReplication(c.m)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%v: err %v, want %q", c.m, err, c.err)
		case c.err == "" && (err != nil || !got.Equal(c.want)):
			t.Errorf("%v: %v, %v; want %v", c.m, got, err, c.want)
		}
	}
	if kandra.SimpleStrategy(1).Equal(kandra.NetworkTopologyStrategy(nil)) || kandra.SimpleStrategy(1).Equal(kandra.SimpleStrategy(2)) ||
		kandra.NetworkTopologyStrategy(map[string]int{"a": 1}).Equal(kandra.NetworkTopologyStrategy(map[string]int{"a": 2})) {
		t.Fatal("Equal takes different replications for one")
	}
}

// TestReplicationRoundTrip: a Replication rendered by CREATE KEYSPACE,
// stored as a server stores it, reads back Equal; String names it.
func TestReplicationRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var r kandra.Replication
		stored := map[string]string{}
		if rapid.Bool().Draw(t, "nts") {
			dcs := rapid.MapOfN(rapid.StringMatching(`[a-z][a-z0-9_-]{0,8}`), rapid.IntRange(1, 9), 1, 4).Draw(t, "dcs")
			r = kandra.NetworkTopologyStrategy(dcs)
			stored["class"] = "org.apache.cassandra.locator.NetworkTopologyStrategy"
			for dc, n := range dcs {
				stored[dc] = strconv.Itoa(n)
			}
		} else {
			n := rapid.IntRange(1, 9).Draw(t, "rf")
			r = kandra.SimpleStrategy(n)
			stored["class"], stored["replication_factor"] = "org.apache.cassandra.locator.SimpleStrategy", strconv.Itoa(n)
		}
		got, err := kandra.ParseReplication(stored)
		if err != nil || !got.Equal(r) || got.String() != r.String() {
			t.Fatalf("%v read back as %v, %v; want %v", stored, got, err, r)
		}
		ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Replication: r, Targets: kandra.Cassandra5})
		create, alter := ks.CreateKeyspace(), ks.AlterKeyspace()
		if !strings.HasPrefix(alter, "ALTER KEYSPACE ks WITH replication = ") ||
			strings.TrimPrefix(alter, "ALTER KEYSPACE ks") != strings.TrimPrefix(create, "CREATE KEYSPACE IF NOT EXISTS ks") {
			t.Fatalf("ALTER %q and CREATE %q disagree", alter, create)
		}
	})
}

type optioned struct {
	ID string
}

func (o *optioned) Describe(s *kandra.Schema[optioned]) {
	s.Table("optioned", kandra.DefaultTTL(time.Hour), kandra.Compaction(kandra.Leveled(160)), kandra.Comment("it's"))
	kandra.Bind(s, &o.ID, kandra.PartitionKey(0))
}

// TestAlterTableOptions: the statement sets the named options as CREATE
// TABLE does; an option the model does not set is an error.
func TestAlterTableOptions(t *testing.T) {
	tab := kandra.MustRegister[optioned]()
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Replication: kandra.SimpleStrategy(1), Targets: kandra.Cassandra5}, tab)
	got, err := ks.AlterTableOptions(tab, "default_time_to_live", "comment", "compaction")
	want := "ALTER TABLE ks.optioned WITH default_time_to_live = 3600 AND comment = 'it''s' AND compaction = {'class': 'LeveledCompactionStrategy', 'sstable_size_in_mb': '160'};"
	if err != nil || got != want {
		t.Fatalf("got %q, %v\nwant %q", got, err, want)
	}
	create, _ := ks.CreateTable(tab)
	if !strings.Contains(create, "compaction = {'class': 'LeveledCompactionStrategy', 'sstable_size_in_mb': '160'}") {
		t.Fatalf("CREATE TABLE writes the option otherwise: %s", create)
	}
	for _, bad := range []string{"gc_grace_seconds", "caching", "nonsense"} {
		if _, err := ks.AlterTableOptions(tab, bad); err == nil || !strings.Contains(err.Error(), strconv.Quote("optioned")) {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if _, err := ks.AlterTableOptions(tab); err == nil {
		t.Error("no option: no error")
	}
}
