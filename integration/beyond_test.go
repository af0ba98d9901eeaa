package integration

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/migrate"
)

// TestBeyondTables prints "real-server: beyond-tables functions=1
// aggregates=1 views=1 listed=<n> untouched=<bool>": a keyspace holding,
// beside its table, a user-defined function, an aggregate over it and a
// materialized view (the node runs with user_defined_functions_enabled
// and materialized_views_enabled, scripts/cassandra.sh). kandra models
// none of them: a plan of the table's model lists the three as extra and
// plans no step; an import lists them as unexpressed, the same from the
// node and from the file's text; and the imported model's apply leaves
// them as they were (the aggregate still sums, the view still reads).
// A trigger needs a class on the node's classpath, which the node has
// not: triggers are shown on the file's reading and the fake drivers.
func TestBeyondTables(t *testing.T) {
	s := session(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	d := kgocql.New(s)
	ks := keyspaceName("beyond")
	trackKeyspace(ks)
	listed, untouched := 0, false
	defer func() {
		summary("beyond", fmt.Sprintf("real-server: beyond-tables functions=1 aggregates=1 views=1 listed=%d untouched=%v", listed, untouched))
	}()
	stmts := []string{
		fmt.Sprintf("CREATE KEYSPACE %s WITH replication = {'class': 'NetworkTopologyStrategy', '%s': 1}", ks, nodeDC),
		"CREATE TABLE " + ks + ".scores (player text, game text, points int, PRIMARY KEY (player, game))",
		"CREATE FUNCTION " + ks + ".plus(acc int, v int) CALLED ON NULL INPUT RETURNS int LANGUAGE java\n" +
			"    AS 'return (acc == null ? 0 : acc) + (v == null ? 0 : v);'",
		"CREATE AGGREGATE " + ks + ".total(int) SFUNC plus STYPE int INITCOND 0",
		"CREATE MATERIALIZED VIEW " + ks + ".scores_by_game AS SELECT * FROM " + ks + ".scores\n" +
			"    WHERE game IS NOT NULL AND player IS NOT NULL PRIMARY KEY (game, player)",
	}
	for _, stmt := range stmts {
		if err := execDDL(s, stmt); err != nil {
			t.Fatalf("%s\n-> %v (the node needs user_defined_functions_enabled and materialized_views_enabled: start it with scripts/cassandra.sh)", stmt, err)
		}
	}
	file := strings.Join(stmts, ";\n") + ";\n" // the function's body holds a semicolon too
	for _, p := range []string{"a", "b"} {
		if err := s.Query("INSERT INTO "+ks+".scores (player, game, points) VALUES (?, 'chess', ?)", p, len(p)+40).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"function " + ks + ".plus(int, int)", "aggregate " + ks + ".total(int)", "materialized view " + ks + ".scores_by_game of table scores"}

	// The table's model: the three are extra, and no step is planned.
	scores := mustBuild(t, specOf("scores", nil, f[string]("Player", pk0), f[string]("Game", kandra.ClusteringKey(0, kandra.ClusteringAsc)), f[int32]("Points")))
	model, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: ks, Replication: testReplication(), Targets: serverTarget()}, scores)
	if err != nil {
		t.Fatal(err)
	}
	p, err := migrate.PlanFor(ctx, d, model)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if slices.Contains(p.Extra, w) {
			listed++
		} else {
			t.Errorf("the plan's extra %q lacks %q", p.Extra, w)
		}
	}
	if !p.Empty() {
		t.Errorf("the model of the table plans steps:\n%s", p)
	}

	// Import, from the node and from the file: the same code, the three
	// listed.
	im, err := migrate.Import(ctx, d, ks, migrate.ImportOptions{Package: "beyond", Targets: serverTarget()})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"user function plus(int, int): ", "user aggregate total(int): ", "materialized view scores_by_game on scores: "} {
		if !slices.ContainsFunc(im.Unexpressed, func(u string) bool { return strings.HasPrefix(u, w) }) {
			t.Errorf("the import's unexpressed %q lacks %q", im.Unexpressed, w)
		}
	}
	// A file names no server: the node's reading, its server cleared.
	live, err := migrate.Read(ctx, d, model)
	if err != nil {
		t.Fatal(err)
	}
	live.Server = migrate.Server{}
	fromNode, err := migrate.GenerateEntities(live, migrate.ImportOptions{Package: "beyond", Targets: serverTarget()})
	if err != nil {
		t.Fatal(err)
	}
	fromFile, err := migrate.ImportFile([]byte(file), ks, migrate.ImportOptions{Package: "beyond", Targets: serverTarget()})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fromFile.Source, fromNode.Source) || !slices.Equal(fromFile.Unexpressed, fromNode.Unexpressed) {
		t.Errorf("the file's import differs from the node's:\n--- node\n%s\n%q\n--- file\n%s\n%q", fromNode.Source, fromNode.Unexpressed, fromFile.Source, fromFile.Unexpressed)
	}

	// The imported model plans nothing and its apply leaves the three be.
	importRoundTrip(t, s, []string{ks}, nil)
	var sum int
	if err := s.Query("SELECT " + ks + ".total(points) FROM " + ks + ".scores WHERE player = 'b'").Scan(&sum); err != nil || sum != 41 {
		t.Errorf("the aggregate after the import's apply: %d, %v; want 41", sum, err)
	}
	var player string
	if err := s.Query("SELECT player FROM " + ks + ".scores_by_game WHERE game = 'chess' LIMIT 1").Scan(&player); err != nil || player != "a" {
		t.Errorf("the view after the import's apply: %q, %v; want a", player, err)
	}
	p, err = migrate.PlanFor(ctx, d, model)
	if err != nil {
		t.Fatal(err)
	}
	untouched = !t.Failed() && p.Empty() && len(p.Extra) == len(want)
}
