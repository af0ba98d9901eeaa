package migrate

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
	"pgregory.net/rapid"
)

// drawPlan plans a random keyspace against a random part of its own live
// schema, with some column types changed: plans of every class.
func drawPlan(t *rapid.T) (*kandra.Keyspace, *Plan) {
	ks, _ := drawKeyspace(t)
	if rapid.IntRange(0, 9).Draw(t, "fresh") == 0 {
		return ks, mustPlan(t, ks, &Live{})
	}
	r := rowsOf(ks)
	r.Tables = slices.DeleteFunc(r.Tables, func(map[string]any) bool { return rapid.IntRange(0, 3).Draw(t, "drop table") == 0 })
	r.Columns = slices.DeleteFunc(r.Columns, func(m map[string]any) bool {
		return m["kind"] == "regular" && rapid.IntRange(0, 3).Draw(t, "drop column") == 0
	})
	r.Indexes = slices.DeleteFunc(r.Indexes, func(map[string]any) bool { return rapid.Bool().Draw(t, "drop index") })
	r.Types = slices.DeleteFunc(r.Types, func(map[string]any) bool { return rapid.IntRange(0, 3).Draw(t, "drop type") == 0 })
	for _, ty := range r.Types {
		for _, f := range ty["field_names"].([]string) {
			switch rapid.IntRange(0, 5).Draw(t, "change field") {
			case 0:
				dropField(ty, f)
			case 1:
				types := slices.Clone(ty["field_types"].([]string))
				types[fieldIndex(ty, f)] = otherType(types[fieldIndex(ty, f)])
				ty["field_types"] = types
			}
		}
	}
	for _, c := range r.Columns {
		if rapid.IntRange(0, 5).Draw(t, "change type") == 0 {
			c["type"] = otherType(c["type"].(string))
		}
	}
	for _, tb := range r.Tables {
		if rapid.IntRange(0, 5).Draw(t, "change ttl") == 0 {
			tb["default_time_to_live"] = 7
		}
	}
	return ks, mustPlan(t, ks, mustLive(t, r))
}

// phaseOf is the phase a step belongs in.
func phaseOf(s Step) int {
	if s.Class == Impossible {
		return phaseImpossible
	}
	return map[StepKind]int{StepCreateKeyspace: phaseKeyspace, StepCreateType: phaseType, StepAddField: phaseType, StepCreateTable: phaseTable, StepCreateLookupTable: phaseLookup,
		StepAddColumn: phaseColumn, StepCreateIndex: phaseIndex, StepAlterOptions: phaseOptions, StepBackfillLookup: phaseBackfill}[s.Kind]
}

var hexHash = regexp.MustCompile(`^[0-9a-f]{32}$`)

func TestPropertyRender(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		_, p := drawPlan(t)
		seen := map[string]bool{}
		for i, s := range p.Steps {
			if seen[s.ID] {
				t.Fatalf("step ID %s twice: %q", s.ID, ids(p.Steps))
			}
			seen[s.ID] = true
			if !strings.HasPrefix(s.ID, s.Kind.String()+":") || s.Reason == "" {
				t.Fatalf("step %+v", s)
			}
			if i > 0 && phaseOf(p.Steps[i-1]) > phaseOf(s) {
				t.Fatalf("step %s after %s: out of dependency order", s.ID, p.Steps[i-1].ID)
			}
		}
		if n := len(p.Select(Safe)) + len(p.Select(NeedsApproval)) + len(p.Select(Impossible)); n != len(p.Steps) {
			t.Fatalf("Select splits %d steps into %d", len(p.Steps), n)
		}

		// The script's statements are exactly the runnable steps' CQL.
		script := p.Script()
		var got, want []string
		for _, line := range strings.Split(script, "\n") {
			if line != "" && !strings.HasPrefix(line, "--") {
				got = append(got, line)
			}
			if f := strings.Fields(line); strings.HasPrefix(line, "--") && (len(f) < 2 || len(line) > scriptWidth && len(f) > 2 && !strings.HasPrefix(line, "-- [")) {
				t.Fatalf("comment line %q: empty, or wrapped past %d bytes", line, scriptWidth)
			}
		}
		for _, s := range p.Steps {
			if s.CQL != "" {
				want = append(want, strings.Split(s.CQL, "\n")...)
			}
			if !strings.Contains(script, "-- ["+s.Class.String()+"] "+strings.Join(strings.Fields(s.ID), " ")+":") || !strings.Contains(p.String(), strings.Join(strings.Fields(s.ID), " ")) {
				t.Fatalf("step %s is missing from the script or the table:\n%s\n%s", s.ID, script, p)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("the script runs\n%s\nwant the steps' statements\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if !strings.Contains(script, p.Hash()) {
			t.Fatal("the script does not carry the hash")
		}

		// The hash is of IDs and CQL only.
		h := p.Hash()
		if !hexHash.MatchString(h) {
			t.Fatalf("hash %q", h)
		}
		q := *p
		q.Steps = slices.Clone(p.Steps)
		for i := range q.Steps {
			q.Steps[i].Reason += " (reworded)"
		}
		if q.Hash() != h {
			t.Fatal("the hash depends on the reasons")
		}
		if len(q.Steps) > 0 {
			i := rapid.IntRange(0, len(q.Steps)-1).Draw(t, "step")
			q.Steps[i].CQL += " "
			if q.Hash() == h {
				t.Fatal("the hash ignores a step's CQL")
			}
			q.Steps = slices.Delete(q.Steps, i, i+1)
			if q.Hash() == h {
				t.Fatal("the hash ignores a missing step")
			}
		}

		// Err lists every step, and is nil only for an empty plan.
		err := p.Err()
		if p.Empty() != (err == nil) {
			t.Fatalf("Empty %v, Err %v", p.Empty(), err)
		}
		if err == nil {
			return
		}
		var me *kerrors.MigrationError
		if !errors.As(err, &me) || !errors.Is(err, kerrors.ErrMigration) {
			t.Fatalf("Err is %T, want a *kerrors.MigrationError", err)
		}
		for _, s := range p.Steps {
			if !strings.Contains(me.Message, s.ID+" ["+s.Class.String()+"]: "+s.Reason) || !strings.Contains(me.Message, s.Manual) {
				t.Fatalf("Err does not list step %s with its class, reason and manual path:\n%s", s.ID, me.Message)
			}
		}
	})
}

func TestEmptyPlan(t *testing.T) {
	p := &Plan{Keyspace: "ks", Extra: []string{"table old"}}
	if p.Err() != nil || !p.Empty() {
		t.Fatalf("Err of a plan with only extras: %v", p.Err())
	}
	if s := p.Script(); !strings.Contains(s, "-- no steps") || !strings.Contains(s, "--   table old") {
		t.Fatalf("script of an empty plan:\n%s", s)
	}
	if s := p.String(); !strings.Contains(s, "no steps") || !strings.Contains(s, "only in live (kept): table old") {
		t.Fatalf("table of an empty plan:\n%s", s)
	}
	// The hash of no steps is SHA-256 of nothing.
	if h := p.Hash(); h != "e3b0c44298fc1c149afbf4c8996fb924" {
		t.Fatalf("hash %s", h)
	}
}

func TestNewPlanInput(t *testing.T) {
	users := kandra.MustRegister[fuzzUser]()
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 1})}, users)
	if _, err := NewPlan(nil, &Live{}); err == nil {
		t.Fatal("NewPlan of a nil keyspace")
	}
	if _, err := NewPlan(ks, nil); err == nil || !strings.Contains(err.Error(), `"ks"`) {
		t.Fatalf("NewPlan of a nil live: %v", err)
	}
	if _, err := NewPlan(ks, &Live{Keyspace: &LiveKeyspace{Name: "other"}}); err == nil || !strings.Contains(err.Error(), `"other"`) {
		t.Fatalf("NewPlan of another keyspace: %v", err)
	}
	if err := Validate(ks, nil); err == nil {
		t.Fatal("Validate of a nil live")
	}
}

func TestClassAndKindStrings(t *testing.T) {
	for c, want := range map[Class]string{Safe: "safe", NeedsApproval: "needs approval", Impossible: "impossible", 9: "Class(9)"} {
		if c.String() != want {
			t.Errorf("Class %d: %q, want %q", c, c.String(), want)
		}
	}
	seen := map[string]bool{}
	for k := StepCreateKeyspace; k <= StepLegacyTable; k++ {
		s := k.String()
		if s == "" || strings.HasPrefix(s, "StepKind(") || seen[s] {
			t.Errorf("StepKind %d: %q", k, s)
		}
		seen[s] = true
	}
	if s := (StepLegacyTable + 1).String(); s != "StepKind(22)" {
		t.Errorf("an unknown kind: %q", s)
	}
}
