package cli

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/migrate"
)

// cluster is the cli tests' fakeDriver with a memory: the keyspace and
// the tables its schema statements created (system_schema then shows
// them, as liveRows("text") has them), the history records written, and
// whether the accounts table holds rows.
type cluster struct {
	fakeDriver
	mu      sync.Mutex
	created map[string]bool // "shop" for the keyspace; table names
	history []map[string]any
	hasRows bool
}

var createTable = regexp.MustCompile(`^CREATE TABLE IF NOT EXISTS shop\.(\w+) `)

func (c *cluster) SchemaRows(context.Context, string) (*schemaRows, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := &schemaRows{}
	if !c.created["shop"] {
		return r, nil
	}
	all := liveRows("text")
	r.Keyspaces = all.Keyspaces
	mine := func(rows []map[string]any) (out []map[string]any) {
		for _, row := range rows {
			if c.created[row["table_name"].(string)] {
				out = append(out, row)
			}
		}
		return out
	}
	r.Tables, r.Columns = mine(all.Tables), mine(all.Columns)
	for _, own := range []string{migrate.LeaseTable, migrate.HistoryTable, migrate.BackfillTable} {
		if c.created[own] {
			r.Tables = append(r.Tables, map[string]any{"keyspace_name": "shop", "table_name": own})
		}
	}
	return r, nil
}

func (c *cluster) ExecSchema(_ context.Context, stmt string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch m := createTable.FindStringSubmatch(stmt); {
	case strings.HasPrefix(stmt, "CREATE KEYSPACE IF NOT EXISTS shop "):
		c.created["shop"] = true
	case m != nil:
		c.created[m[1]] = true
	}
	return nil
}

func (c *cluster) ExecCQL(_ context.Context, stmt string, v []any, _ kandra.Consistency) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if strings.HasPrefix(stmt, "INSERT INTO shop."+migrate.HistoryTable+" ") {
		c.history = append(c.history, map[string]any{"plan_hash": v[0], "applied_at": v[1], "steps": v[2], "owner": v[3]})
	}
	return true, nil // the lease is always free
}

func (c *cluster) QueryCQL(_ context.Context, stmt string, _ []any, _ kandra.Consistency) ([]map[string]any, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case strings.Contains(stmt, "FROM shop."+migrate.HistoryTable):
		return slices.Clone(c.history), nil
	case c.hasRows && strings.HasPrefix(stmt, "SELECT id FROM shop.accounts LIMIT 1"):
		return []map[string]any{{"id": "a"}}, nil
	}
	return nil, nil
}

// planned is what plan printed: the plan's hash and its step IDs, in
// order, from the table.
func planned(t *testing.T, stdout string) (hash string, steps []string) {
	t.Helper()
	lines := strings.Split(stdout, "\n")
	m := regexp.MustCompile(`^plan for keyspace shop \(([0-9a-f]{32})\): `).FindStringSubmatch(lines[0])
	if m == nil || !strings.HasPrefix(lines[1], "ID ") {
		t.Fatalf("not a plan table:\n%s", stdout)
	}
	step := regexp.MustCompile(`^([a-z-]+:\S+)\s`)
	for _, l := range lines[2:] {
		if s := step.FindStringSubmatch(l); s != nil {
			steps = append(steps, s[1])
		}
	}
	return m[1], steps
}

// The plan a user reviews is the plan apply records: plan's hash and
// steps (in the table and in the script) are the history record's, the
// ones apply prints and history lists, the keyspace's creation (run
// before the lease) included.
func TestPlanIsWhatApplyRecords(t *testing.T) {
	c := &cluster{created: map[string]bool{}}
	r := runWith(t, c, backend{}, false, "plan")
	if r.code != ExitOK {
		t.Fatalf("plan: %+v", r)
	}
	hash, steps := planned(t, r.stdout)
	if strings.Join(steps, ",") != "create-keyspace:shop,create-table:accounts,create-lookup-table:accounts_by_email" {
		t.Fatalf("planned %v", steps)
	}
	r = runWith(t, c, backend{}, false, "plan", "--cql")
	if !strings.Contains(r.stdout, "-- plan hash: "+hash+"\n") || !strings.Contains(r.stderr, "keyspace shop: plan "+hash+": ") {
		t.Fatalf("plan --cql shows another hash than %s: %+v", hash, r)
	}

	r = runWith(t, c, backend{}, false, "apply", "--owner", "t1")
	want := "applied 3 step(s) to keyspace shop (plan " + hash + "):\n  " + strings.Join(steps, "\n  ") + "\n"
	if r.code != ExitOK || !strings.HasPrefix(r.stdout, want) {
		t.Fatalf("apply: want stdout to start with\n%s\ngot %+v", want, r)
	}
	for _, s := range steps {
		if !strings.Contains(r.stderr, "apply: "+s+" done\n") {
			t.Fatalf("apply's progress lacks %s:\n%s", s, r.stderr)
		}
	}
	if len(c.history) != 1 || c.history[0]["plan_hash"] != hash || !slices.Equal(c.history[0]["steps"].([]string), steps) || c.history[0]["owner"] != "t1" {
		t.Fatalf("recorded %v; plan showed %s %v", c.history, hash, steps)
	}
	r = runWith(t, c, backend{}, false, "history")
	if r.code != ExitOK || !regexp.MustCompile(`\n\S+ \S+ +t1 +`+hash+` +`+regexp.QuoteMeta(strings.Join(steps, ", "))+`\n$`).MatchString(r.stdout) {
		t.Fatalf("history: %+v", r)
	}
	if r := runWith(t, c, backend{}, false, "plan"); r.code != ExitOK || !strings.HasPrefix(r.stdout, "keyspace shop matches the model") {
		t.Fatalf("plan after apply: %+v", r)
	}
}

// With a step left unapproved, the record is still of the plan reviewed
// (its hash covers every step); its steps are those applied: the plan's
// but the unapproved.
func TestPlanIsWhatApplyRecordsUnapproved(t *testing.T) {
	c := &cluster{created: map[string]bool{"shop": true, "accounts": true, migrate.LeaseTable: true, migrate.HistoryTable: true, migrate.BackfillTable: true}, hasRows: true}
	r := runWith(t, c, backend{}, false, "plan")
	hash, steps := planned(t, r.stdout)
	if r.code != ExitOK || strings.Join(steps, ",") != "create-lookup-table:accounts_by_email,backfill:accounts_by_email" {
		t.Fatalf("plan: %+v", r)
	}
	r = runWith(t, c, backend{}, false, "apply")
	if r.code != ExitDifferences || !strings.HasPrefix(r.stdout, "applied 1 step(s) to keyspace shop (plan "+hash+"):\n  create-lookup-table:accounts_by_email\n") ||
		!strings.Contains(r.stdout, "need approval:\n  backfill:accounts_by_email: ") {
		t.Fatalf("apply: %+v", r)
	}
	if len(c.history) != 1 || c.history[0]["plan_hash"] != hash || !slices.Equal(c.history[0]["steps"].([]string), steps[:1]) {
		t.Fatalf("recorded %v; plan showed %s %v", c.history, hash, steps)
	}
}
