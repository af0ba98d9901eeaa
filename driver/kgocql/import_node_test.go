package kgocql_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/migrate"
)

// importKeyspaceCQL creates a keyspace of a bit of everything migrate.Import
// reads; %s is the keyspace's name. The statements after the first
// optional one may be refused by a node's configuration (masks, views,
// functions are off in the shipped cassandra.yaml).
var importKeyspaceCQL = []string{
	"CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
	"CREATE TYPE %s.address (street text, zip ascii, since date, \"Tags\" frozen<set<text>>)",
	`CREATE TABLE %s.users (
		user_id uuid PRIMARY KEY, email text, name text, "Display Name" text, code ascii, born date,
		seen timeuuid, lunch time, score varint, ratio decimal, home frozen<address>, work address,
		tags list<text>, attrs map<text, date>, embedding vector<float, 3>, loc tuple<int, int>, size smallint
	) WITH comment = 'the users' AND compaction = {'class': 'LeveledCompactionStrategy', 'sstable_size_in_mb': 80}
	  AND caching = {'keys': 'NONE', 'rows_per_partition': '10'} AND default_time_to_live = 3600 AND gc_grace_seconds = 7200`,
	"CREATE TABLE %s.users_by_email (email text PRIMARY KEY, user_id uuid, kandra_claim bigint)",
	`CREATE TABLE %s.events (owner uuid, day date, at timestamp, seq int, region text STATIC, payload blob,
		PRIMARY KEY ((owner, day), at, seq)) WITH CLUSTERING ORDER BY (at DESC, seq ASC) AND speculative_retry = '50ms'`,
	"CREATE TABLE %s.events_by_seq (seq int, owner uuid, day date, at timestamp, PRIMARY KEY ((seq), owner, day, at))",
	"CREATE TABLE %s.page_views (page text, day date, hits counter, PRIMARY KEY (page, day))",
	"CREATE INDEX users_name_idx ON %s.users (name) USING 'sai' WITH OPTIONS = {'case_sensitive': 'false'}",
	"CREATE INDEX by_tag ON %s.users (tags) USING 'legacy_local_table'",
	"CREATE INDEX ON %s.users (embedding) USING 'sai' WITH OPTIONS = {'similarity_function': 'EUCLIDEAN'}",
	"CREATE INDEX ON %s.users (keys(attrs)) USING 'sai'",
	"-- optional",
	`ALTER TABLE %s.users ALTER "Display Name" MASKED WITH mask_inner(1, 1)`,
	"CREATE MATERIALIZED VIEW %s.users_by_name AS SELECT * FROM %[1]s.users WHERE name IS NOT NULL AND user_id IS NOT NULL PRIMARY KEY (name, user_id)",
	"CREATE FUNCTION %s.twice (x int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return x * 2;'",
}

// importProgram plans the generated model against the node.
const importProgram = `package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	gocql "github.com/gocql/gocql"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/migrate"

	model %q
)

func main() {
	ks, err := model.Keyspace()
	if err != nil {
		fmt.Println("Keyspace:", err)
		os.Exit(1)
	}
	c := gocql.NewCluster(os.Args[1])
	c.Port, _ = strconv.Atoi(os.Args[2])
	c.DisableInitialHostLookup = true
	s, err := c.CreateSession()
	if err != nil {
		fmt.Println("session:", err)
		os.Exit(1)
	}
	defer s.Close()
	p, err := migrate.PlanFor(context.Background(), kgocql.New(s), ks)
	if err != nil {
		fmt.Println("PlanFor:", err)
		os.Exit(1)
	}
	fmt.Printf("%%d steps\n%%s\nextra: %%q\n", len(p.Steps), p, p.Extra)
}
`

// TestImportNode: a keyspace created by hand on the node, imported, is a
// model that compiles and plans no step against it.
func TestImportNode(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a program: not in -short")
	}
	s := session(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ks := fmt.Sprintf("kandra_import_%d", time.Now().UnixNano()%1e9)
	optional := false
	for _, stmt := range importKeyspaceCQL {
		if stmt == "-- optional" {
			optional = true
			continue
		}
		q := strings.ReplaceAll(stmt, "%[1]s", ks)
		q = strings.Replace(q, "%s", ks, 1)
		if err := s.Query(q).WithContext(ctx).Exec(); err != nil {
			if !optional {
				t.Fatalf("%s: %v", q, err)
			}
			t.Logf("optional statement refused by this node: %v", err)
		}
	}
	t.Cleanup(func() { _ = s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })
	imp, err := migrate.Import(ctx, kgocql.New(s), ks, migrate.ImportOptions{Package: "model"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("unexpressed: %q\nnotes: %q\n%s", imp.Unexpressed, imp.Notes, imp.Source)
	if !strings.Contains(strings.Join(imp.Unexpressed, "\n"), "column users.loc (frozen<tuple<int, int>>)") {
		t.Errorf("the tuple column is not listed: %q", imp.Unexpressed)
	}
	dir, err := os.MkdirTemp("testdata", "import-node-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	pkg := filepath.Join(dir, "model")
	if err := os.Mkdir(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "model.go"), imp.Source, 0o644); err != nil {
		t.Fatal(err)
	}
	main := fmt.Sprintf(importProgram, "github.com/kandra-go/kandra/driver/kgocql/"+filepath.ToSlash(pkg))
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(ctx, "go", "run", "./"+filepath.ToSlash(dir), envOr("KANDRA_CASSANDRA_HOST", "127.0.0.1"), envOr("KANDRA_CASSANDRA_PORT", "9042")).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "0 steps\n") {
		t.Fatalf("the imported model against the node (%v):\n%s", err, out)
	}
	t.Logf("plan of the imported model:\n%s", out)
}
