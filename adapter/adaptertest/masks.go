// The migrator's column masks on the node (Cassandra 5.0's dynamic data
// masking, which needs dynamic_data_masking_enabled: true; the node of
// scripts/cassandra.sh sets it).

package adaptertest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/migrate"
)

// migPatientV1 is created with masks of every function; migPatientV2
// changes some, drops one, keeps one and adds a masked column;
// migPatientV3 masks nothing.
type migPatientV1 struct {
	ID    string
	Name  string
	Email string
	Score float32
	Born  time.Time
	Tags  []string
	Scan  []byte
	Nick  string
}

func (p *migPatientV1) Describe(s *kandra.Schema[migPatientV1]) {
	s.Table("patients")
	kandra.Bind(s, &p.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &p.Name, kandra.Masked(kandra.MaskInner(1, 0)))
	kandra.Bind(s, &p.Email, kandra.Masked(kandra.MaskReplace("redacted")))
	kandra.Bind(s, &p.Score, kandra.Masked(kandra.MaskReplace(0.1)))
	kandra.Bind(s, &p.Born, kandra.Masked(kandra.MaskReplace(time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC))))
	kandra.Bind(s, &p.Tags, kandra.Masked(kandra.MaskNull()))
	kandra.Bind(s, &p.Scan, kandra.Masked(kandra.MaskHash("SHA-512")))
	kandra.Bind(s, &p.Nick, kandra.Transient())
}

type migPatientV2 migPatientV1

func (p *migPatientV2) Describe(s *kandra.Schema[migPatientV2]) {
	s.Table("patients")
	kandra.Bind(s, &p.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &p.Name, kandra.Masked(kandra.MaskOuter(2, 1, '#')))
	kandra.Bind(s, &p.Email, kandra.Masked(kandra.MaskDefault()))
	kandra.Bind(s, &p.Born, kandra.Masked(kandra.MaskReplace(time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC))))
	kandra.Bind(s, &p.Tags, kandra.Masked(kandra.MaskNull()))
	kandra.Bind(s, &p.Scan, kandra.Masked(kandra.MaskHash()))
	kandra.Bind(s, &p.Nick, kandra.Masked(kandra.MaskInner(0, 1, 'é')))
}

type migPatientV3 migPatientV1

func (p *migPatientV3) Describe(s *kandra.Schema[migPatientV3]) {
	s.Table("patients")
	kandra.Bind(s, &p.ID, kandra.PartitionKey(0))
}

// testMigratorMasks: the migrator creates a table with column masks,
// reads them back from system_schema.column_masks as the model's (a
// second plan is empty), changes, drops and adds masks on the live table
// (ALTER TABLE ... ALTER c MASKED WITH / DROP MASKED, ADD c ... MASKED
// WITH), converging each time, and drops every mask. It skips on a node
// without dynamic_data_masking_enabled, and prints "real-server:
// mask-migrate adapter=<Name> steps=<n> converged=<n>/3 ok=<bool>".
func testMigratorMasks(t *testing.T, n Node) {
	ok, steps, converged := false, 0, 0
	d, _ := n.Open(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rows, err := d.QueryCQL(ctx, "SELECT value FROM system_views.settings WHERE name = 'dynamic_data_masking_enabled'", nil, kandra.ConsistencyOne)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0]["value"] != "true" {
		fmt.Printf("real-server: mask-migrate adapter=%s skipped (dynamic_data_masking_enabled is not true on the node)\n", n.Name)
		t.Skip("the node masks no column: start it with scripts/cassandra.sh, whose cassandra.yaml sets dynamic_data_masking_enabled: true")
	}
	defer func() {
		fmt.Printf("real-server: mask-migrate adapter=%s steps=%d converged=%d/3 ok=%t\n", n.Name, steps, converged, ok && !t.Failed())
	}()
	keyspace := scratch(t, d, "mask", n, kandra.Cassandra5|kandra.Cassandra5Latest)
	// masks reads the live masks of the table, rendered, by column.
	masks := func(ks *kandra.Keyspace) map[string]string {
		live, err := migrate.Read(ctx, d, ks)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, c := range live.Table("patients").Columns {
			if c.Mask != nil {
				if c.Mask.Unread != "" {
					t.Errorf("column %s: the live mask %s does not read: %s", c.Name, c.Mask, c.Mask.Unread)
				}
				out[c.Name] = c.Mask.String()
			}
		}
		return out
	}
	for i, v := range []struct {
		ks    *kandra.Keyspace
		kinds []migrate.StepKind
		masks string
	}{
		{keyspace(kandra.MustRegister[migPatientV1]()), []migrate.StepKind{migrate.StepCreateTable},
			"born=mask_replace('1970-01-01T00:00:00.000Z') email=mask_replace('redacted') name=mask_inner(1, 0) scan=mask_hash('SHA-512') score=mask_replace(0.1) tags=mask_null()"},
		{keyspace(kandra.MustRegister[migPatientV2]()), []migrate.StepKind{migrate.StepAddColumn, migrate.StepChangeMask, migrate.StepChangeMask, migrate.StepChangeMask, migrate.StepChangeMask},
			"born=mask_replace('1970-01-01T00:00:00.000Z') email=mask_default() name=mask_outer(2, 1, '#') nick=mask_inner(0, 1, 'é') scan=mask_hash() tags=mask_null()"},
		{keyspace(kandra.MustRegister[migPatientV3]()), []migrate.StepKind{migrate.StepChangeMask, migrate.StepChangeMask, migrate.StepChangeMask, migrate.StepChangeMask, migrate.StepChangeMask, migrate.StepChangeMask}, ""},
	} {
		res, err := migrate.Apply(ctx, d, v.ks, migrate.ApplyOptions{Approve: []string{"all"}})
		if err != nil {
			t.Fatalf("v%d: %v", i+1, err)
		}
		var kinds []migrate.StepKind
		for _, s := range res.Applied {
			if s.Kind == migrate.StepCreateKeyspace {
				continue
			}
			kinds = append(kinds, s.Kind)
			steps++
		}
		if !slices.Equal(kinds, v.kinds) {
			t.Fatalf("v%d applied %v, want %v:\n%v", i+1, kinds, v.kinds, res.Plan)
		}
		again, err := migrate.Apply(ctx, d, v.ks, migrate.ApplyOptions{Approve: []string{"all"}})
		if err != nil || !again.Plan.Empty() {
			t.Fatalf("v%d again: the live masks do not read back as the model's:\n%v, %v", i+1, again.Plan, err)
		}
		if err := migrate.Check(ctx, d, v.ks); err != nil {
			t.Fatalf("v%d: Check: %v", i+1, err)
		}
		converged++
		got := masks(v.ks)
		var parts []string
		for c, m := range got {
			parts = append(parts, c+"="+m)
		}
		slices.Sort(parts)
		if s := strings.Join(parts, " "); s != v.masks {
			t.Errorf("v%d: live masks %s, want %s", i+1, s, v.masks)
		}
	}
	ok = true
}
