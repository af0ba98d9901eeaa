package integration

import (
	"fmt"
	mrand "math/rand/v2"
	"testing"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The suite's CQL type parser (no server), and the adapter's sorting of
// nested collections on the node. The Codec's own tests are in
// driver/kgocql.

func TestParseCQLType(t *testing.T) {
	for in, want := range map[string]string{
		"TEXT":                                  "text",
		"LIST<FROZEN<LIST<INT>>>":               "list<list<int>>",
		"MAP<UUID, FROZEN<SET<DURATION>>>":      "map<uuid, set<duration>>",
		"FROZEN<MAP<TEXT, FROZEN<LIST<INET>>>>": "map<text, list<inet>>",
	} {
		n, err := parseCQLType(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, n.String(), in)
	}
	for _, bad := range []string{"", "LIST<", "MAP<TEXT INT>", "TEXT>"} {
		_, err := parseCQLType(bad)
		assert.Error(t, err, bad)
	}
}

// TestSortedNested: sets whose elements are frozen collections (lists,
// sets, maps), sent through kgocql.Sorted into a descending clustering
// column, where the server keeps the order it is sent, and into a regular
// column, where it sorts: toJson shows both in the same order, so the
// adapter sorts nested collections as the server's comparator does. Each
// value is written 3 times and stays one row.
func TestSortedNested(t *testing.T) {
	s := session(t)
	ks := newKeyspace(t, s, "nested")
	r := mrand.New(mrand.NewPCG(20261201, 5)) // fixed: CI never draws by chance
	small := func() int32 { return int32(r.IntN(7) - 3) }
	cases := []struct {
		cql string
		gen func() any
	}{
		{"set<frozen<list<int>>>", func() any {
			v := make([][]int32, 8)
			for i := range v {
				v[i] = make([]int32, r.IntN(3))
				for j := range v[i] {
					v[i][j] = small()
				}
			}
			return v
		}},
		{"set<frozen<set<bigint>>>", func() any {
			v := make([]map[int64]struct{}, 8)
			for i := range v {
				v[i] = map[int64]struct{}{}
				for j := r.IntN(4); j > 0; j-- {
					v[i][int64(small())<<40] = struct{}{}
				}
			}
			return v
		}},
		{"set<frozen<map<text, int>>>", func() any {
			v := make([]map[string]int32, 8)
			for i := range v {
				v[i] = map[string]int32{}
				for j := r.IntN(3); j > 0; j-- {
					v[i][string(rune('a'+r.IntN(3)))] = small()
				}
			}
			return v
		}},
	}
	for i, c := range cases {
		table := qualified(ks, fmt.Sprintf("nested_%d", i))
		ddl := "CREATE TABLE IF NOT EXISTS " + table + " (k int, c frozen<" + c.cql + ">, r " + c.cql + ", PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)"
		if err := execDDL(s, ddl); err != nil {
			t.Fatal(err)
		}
		ct, err := kandra.ParseCQLType(c.cql)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 10; k++ {
			sv, err := kgocql.Sorted(ct, c.gen())
			if err != nil {
				t.Fatal(err)
			}
			for w := 0; w < 3; w++ {
				if err := s.Query("INSERT INTO "+table+" (k, c, r) VALUES (?, ?, ?)", k, sv, sv).Exec(); err != nil {
					t.Fatalf("%s: %v", c.cql, err)
				}
			}
			var cj, rj string
			var n int
			if err := s.Query("SELECT toJson(c), toJson(r) FROM "+table+" WHERE k = ?", k).Scan(&cj, &rj); err != nil {
				t.Fatal(err)
			}
			if err := s.Query("SELECT count(*) FROM "+table+" WHERE k = ?", k).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if cj != rj || n != 1 {
				t.Fatalf("%s: %d rows; sent %s, the server's order %s", c.cql, n, cj, rj)
			}
		}
	}
}
