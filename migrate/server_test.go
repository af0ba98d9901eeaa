package migrate

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

// serverKS is applyUsersV1 and applyTodos (no LWT, counter or index) in
// keyspace app, replicated to three nodes of dc1, on targets.
func serverKS(t *testing.T, targets kandra.Target) *kandra.Keyspace {
	t.Helper()
	ks, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "app", Targets: targets,
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3})}, applyUsersV1, applyTodos)
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

// TestReadServer: the migrator tells Cassandra from ScyllaDB, and reads the
// targets the server may be, through plain CQL.
func TestReadServer(t *testing.T) {
	for _, c := range []struct {
		scylla  string
		product string
		targets kandra.Target
	}{
		{"", "Cassandra", kandra.Cassandra5 | kandra.Cassandra5Latest},
		{"2025.1.14-0.20260614.abcdef012345", "ScyllaDB", kandra.Scylla2025 | kandra.Scylla2025Tablets},
		{"2026.2.5-0.20261020.0123456789ab", "ScyllaDB", kandra.Scylla2026 | kandra.Scylla2026Tablets},
		{"?", "ScyllaDB", kandra.Scylla2025 | kandra.Scylla2025Tablets | kandra.Scylla2026 | kandra.Scylla2026Tablets},
		{"2024.2.0-0.20240801.0123456789ab", "ScyllaDB", 0},
	} {
		f := newFake(nil, serverKS(t, kandra.AllTargets))
		f.scylla = c.scylla
		s, err := readServer(context.Background(), f)
		if err != nil || s.Product != c.product || s.Targets != c.targets {
			t.Errorf("%q: %+v, %v; want %s on %s", c.scylla, s, err, c.product, c.targets)
		}
	}
}

// TestPlanStatesTheServersDistribution: the create-keyspace step, and the
// CREATE KEYSPACE Apply runs, carry the tablets option the server needs:
// none on Cassandra, vnodes on ScyllaDB 2025.x for a keyspace that must
// not be a 2025.x tablets keyspace. ScyllaDB gets no WITH ID.
func TestPlanStatesTheServersDistribution(t *testing.T) {
	ks := serverKS(t, kandra.AllTargets&^kandra.Scylla2025Tablets)
	for _, c := range []struct{ scylla, option string }{
		{"", ""},
		{"2025.3.1-0.20250901.0123456789ab", " AND tablets = {'enabled': false}"},
	} {
		f := newFake(nil, ks)
		f.scylla = c.scylla
		p, err := PlanFor(context.Background(), f, ks)
		if err != nil {
			t.Fatal(err)
		}
		want := "CREATE KEYSPACE IF NOT EXISTS app WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3}" + c.option + ";"
		if p.Steps[0].Kind != StepCreateKeyspace || p.Steps[0].CQL != want {
			t.Fatalf("server %q: step %+v, want CQL %q", c.scylla, p.Steps[0], want)
		}
		if _, err := Apply(context.Background(), f, ks, ApplyOptions{Owner: "me"}); err != nil {
			t.Fatal(err)
		}
		if f.schema[0] != strings.TrimSuffix(want, ";") {
			t.Fatalf("server %q: ran %q first", c.scylla, f.schema[0])
		}
		withID := slices.ContainsFunc(f.schema, func(s string) bool { return strings.Contains(s, " WITH ID = ") })
		if withID != (c.scylla == "") {
			t.Fatalf("server %q: WITH ID used %v: %q", c.scylla, withID, f.schema)
		}
	}
}

// TestApplyRefusesWhatItWasNotCheckedFor: a server the keyspace does not
// target, a live tablets keyspace whose targets have no tablets keyspace,
// and a lease the server would refuse are each a *kerrors.MigrationError
// naming the rule, with nothing sent.
func TestApplyRefusesWhatItWasNotCheckedFor(t *testing.T) {
	const v2025_1, v2025_4, v2026 = "2025.1.14-0.20260614.abcdef012345", "2025.4.0-0.20251201.abcdef012345", "2026.1.2-0.20260301.abcdef012345"
	for _, c := range []struct {
		name    string
		targets kandra.Target
		scylla  string
		exists  bool
		tablets bool
		rule    string // "" when Apply goes ahead
		words   string
	}{
		{"Cassandra keyspace on ScyllaDB", kandra.Cassandra5, v2026, false, false, "targets", "this server is ScyllaDB 2026.1.2"},
		{"ScyllaDB keyspace on Cassandra", kandra.Scylla2026, "", false, false, "targets", "this server is Cassandra 5.0.8"},
		{"a release kandra does not target", kandra.AllTargets, "2024.2.0-0.20240801.0123456789ab", false, false, "targets", "a release kandra does not target"},
		{"live tablets keyspace, vnodes targets", kandra.Scylla2026, v2026, true, true, "tablets", "uses tablets on this server"},
		{"live tablets keyspace, tablets target", kandra.Scylla2026Tablets, v2026, true, true, "", ""},
		{"lease in a new 2025.1 tablets keyspace", kandra.Scylla2025Tablets, v2025_1, false, false, "tablets", "LWT is not yet supported with tablets"},
		{"lease in a live 2025.1 tablets keyspace", kandra.Scylla2025 | kandra.Scylla2025Tablets, v2025_1, true, true, "tablets", "Apply takes its schema lease"},
		{"lease in a 2025.4 tablets keyspace: tried", kandra.Scylla2025Tablets, v2025_4, false, false, "", ""},
		{"2025.x, both allowed: vnodes, leased", kandra.Scylla2025 | kandra.Scylla2025Tablets, v2025_1, false, false, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ks := serverKS(t, c.targets)
			var initial *kandra.Keyspace
			if c.exists { // with users only, so that the plan has todos to create
				initial = kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "app", Targets: c.targets,
					Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3})}, applyUsersV1)
			}
			f := newFake(initial, ks)
			f.scylla, f.tablets = c.scylla, c.tablets
			_, err := Apply(context.Background(), f, ks, ApplyOptions{Owner: "me"})
			var me *kerrors.MigrationError
			switch {
			case c.rule == "" && err != nil:
				t.Fatalf("Apply: %v", err)
			case c.rule == "":
				return
			case !errors.As(err, &me) || me.Rule != c.rule || !strings.Contains(err.Error(), c.words):
				t.Fatalf("err = %v (rule %q), want rule %q with %q", err, ruleOf(err), c.rule, c.words)
			case len(f.schema) != 0 || f.writes != 0:
				t.Fatalf("sent %q and %d writes before refusing", f.schema, f.writes)
			}
		})
	}
}

func ruleOf(err error) string {
	var me *kerrors.MigrationError
	if errors.As(err, &me) {
		return me.Rule
	}
	return ""
}

// TestServerRefusalNamesTheRule: a step the server refuses for a reason
// no schema shows (a ScyllaDB keyspace that is not RF-rack-valid, a
// cluster feature not yet on every node) fails under the rule it belongs
// to; another refusal names none.
func TestServerRefusalNamesTheRule(t *testing.T) {
	for msg, rule := range map[string]string{
		"Materialized views and secondary indexes are not supported on the keyspace 'app': The keyspace 'app' is required to be RF-rack-valid. That condition is violated for DC 'dc1': RF=3 vs. rack count=2.": "tablets",
		"Cannot use the 'counter' type for table app.hits: Counters are not yet supported with tablets":                                                                                                         "tablets",
		"line 1:7 no viable alternative at input 'TABLE'": "",
	} {
		ks := serverKS(t, kandra.Scylla2026|kandra.Scylla2026Tablets)
		f := newFake(nil, ks)
		f.scylla = "2026.1.2-0.20260301.abcdef012345"
		f.onSchema = func(_ context.Context, stmt string) error {
			if strings.HasPrefix(stmt, "CREATE TABLE IF NOT EXISTS app.users") {
				return errors.New(msg)
			}
			return nil
		}
		_, err := Apply(context.Background(), f, ks, ApplyOptions{Owner: "me"})
		if err == nil || ruleOf(err) != rule {
			t.Errorf("%q: err %v, rule %q; want rule %q", msg, err, ruleOf(err), rule)
		}
	}
}
