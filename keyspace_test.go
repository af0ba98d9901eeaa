package kandra_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type ksOrder struct {
	ID    uuid.UUID
	Email string
	Note  string
}

func (e *ksOrder) Describe(s *kandra.Schema[ksOrder]) {
	s.Table("ks_orders")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Email, kandra.Lookup("by_email", kandra.LookupBatch))
	kandra.Bind(s, &e.Note, kandra.SecondaryIndex())
}

type ksItem struct {
	ID  uuid.UUID
	SKU string
}

func (e *ksItem) Describe(s *kandra.Schema[ksItem]) {
	s.Table("ks_items")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.SKU, kandra.Lookup("by_sku", kandra.LookupEventual), kandra.SecondaryIndex())
}

// TestKeyspaceStatementsOrder: the keyspace first, then every table, then
// every lookup table, then every index, each qualified; and the same
// statements as the keyspace's per-statement writers give. SimpleStrategy
// and the indexes need targets without ScyllaDB's tablets: Cassandra 5.0
// and ScyllaDB 2026.x vnodes keyspaces take both.
func TestKeyspaceStatementsOrder(t *testing.T) {
	orders, items := kandra.MustRegister[ksOrder](), kandra.MustRegister[ksItem]()
	spec := kandra.KeyspaceSpec{Name: "shop", Replication: kandra.SimpleStrategy(3), Targets: kandra.Cassandra5 | kandra.Scylla2026}
	ks := kandra.MustNewKeyspace(spec, orders, items.Schema())
	ot, it := orders.Schema(), items.Schema()
	want := []string{
		kandra.MustNewKeyspace(spec).CreateKeyspace(),
		noErr(ks.CreateTable(ot)),
		noErr(ks.CreateTable(items)),
		noErr(ks.CreateLookupTable(ot.LookupTables()[0])),
		noErr(ks.CreateLookupTable(it.LookupTables()[0])),
		noErr(ks.CreateIndex(ot, ot.ColumnByName("note"))),
		noErr(ks.CreateIndex(items, it.ColumnByName("sku"))),
	}
	assert.Equal(t, want, ks.Statements())
	assert.Equal(t, want[0], ks.CreateKeyspace())
	assert.Contains(t, want[1], "CREATE TABLE IF NOT EXISTS shop.ks_orders (")
	assert.Equal(t, "CREATE TABLE IF NOT EXISTS shop.ks_items_by_sku (\n    sku TEXT,\n    id UUID,\n    PRIMARY KEY ((sku), id)\n);", want[4])
	assert.Equal(t, "CREATE INDEX IF NOT EXISTS ks_orders_note_idx ON shop.ks_orders (note);", want[5])

	assert.Equal(t, "shop", ks.Name())
	assert.Equal(t, []*kandra.TableSchema{ot, it}, ks.Tables())
	assert.Same(t, it, ks.Table("ks_items"))
	assert.Nil(t, ks.Table("ks_items_by_sku"), "Table finds primary tables only")
	tables := ks.Tables()
	tables[0] = nil
	assert.Same(t, ot, ks.Tables()[0], "Tables returns a copy")
	r := ks.Replication()
	assert.False(t, r.IsNetworkTopology())
	assert.Equal(t, 3, r.SimpleFactor())
	assert.Equal(t, spec, ks.Spec())
}

// TestKeyspaceSpec: Spec makes the default targets explicit and keeps its
// own copy of the datacenters.
func TestKeyspaceSpec(t *testing.T) {
	dcs := map[string]int{"dc1": 3}
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "plain", Replication: kandra.NetworkTopologyStrategy(dcs)})
	spec := ks.Spec()
	assert.Equal(t, kandra.AllTargets, spec.Targets)
	assert.Equal(t, kandra.TabletsUnset, spec.Tablets)
	assert.True(t, spec.Replication.IsNetworkTopology())
	assert.Equal(t, 0, spec.Replication.SimpleFactor())
	assert.Nil(t, kandra.SimpleStrategy(1).Datacenters())
	dcs["dc2"] = 1
	got := spec.Replication.Datacenters()
	got["dc3"] = 1
	assert.Equal(t, map[string]int{"dc1": 3}, ks.Spec().Replication.Datacenters())
}

// TestOneTypeInTwoKeyspaces: a keyspace holds schemas, it does not own
// them; the same type may be in several.
func TestOneTypeInTwoKeyspaces(t *testing.T) {
	orders := kandra.MustRegister[ksOrder]()
	dcs := map[string]int{"dc1": 3, "dc2": 2}
	// ksOrder has an index: no ScyllaDB 2025.x keyspace with tablets.
	a := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "shop_a", Replication: kandra.NetworkTopologyStrategy(dcs), Targets: indexTargets}, orders)
	b := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "shop_b", Replication: kandra.SimpleStrategy(1), Targets: kandra.Cassandra5}, orders)
	assert.Contains(t, a.Statements()[1], "shop_a.ks_orders")
	assert.Contains(t, b.Statements()[1], "shop_b.ks_orders")
	dcs["dc1"] = 9 // the keyspace kept its own copy
	assert.Equal(t, map[string]int{"dc1": 3, "dc2": 2}, a.Replication().Datacenters())
	got := a.Replication().Datacenters()
	got["dc3"] = 1
	assert.Equal(t, map[string]int{"dc1": 3, "dc2": 2}, a.Replication().Datacenters())
}

func TestNewKeyspacePanicsOnNilTable(t *testing.T) {
	assert.PanicsWithValue(t, "kandra: NewKeyspace: table 1 is nil", func() {
		_, _ = kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "shop", Replication: oneDC}, kandra.MustRegister[ksOrder](), nil)
	})
}

// TestErrorFamily: every error the root package returns matches ErrKandra
// and the sentinel of its kind.
func TestErrorFamily(t *testing.T) {
	orders := kandra.MustRegister[ksOrder]()
	ts := orders.Schema()
	_, cqlErr := kandra.ParseCQLType("map<text")
	nameErr := kandra.ValidateName("my-app")
	_, ksErr := createKeyspace(kandra.KeyspaceSpec{Name: "ok", Replication: kandra.SimpleStrategy(0)})
	_, dupErr := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "ok", Replication: oneDC, Targets: indexTargets}, orders, orders)
	_, targetErr := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "ok", Replication: oneDC}, orders) // an index, and ScyllaDB 2025.x with tablets
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ok", Replication: oneDC, Targets: indexTargets}, orders)
	_, ptrErr := ts.ColumnByName("email").Pointer(&ksItem{})
	_, fieldErr := kandra.FieldOf(orders, func(o *ksOrder) *string { return new(string) })
	_, indexErr := ks.CreateIndex(ts, ts.ColumnByName("email"))
	_, alterErr := ks.AlterTableAdd(ts, ts.ColumnByName("id"))
	_, memberErr := ks.CreateTable(kandra.MustRegister[ksItem]())
	_, regErr := kandra.Register[FailsOnce]()
	for name, c := range map[string]struct {
		err  error
		kind error
	}{
		"ParseCQLType": {cqlErr, kerrors.ErrSchema}, "ValidateName": {nameErr, kerrors.ErrSchema},
		"CreateKeyspace": {ksErr, kerrors.ErrSchema}, "NewKeyspace": {dupErr, kerrors.ErrSchema},
		"NewKeyspace (targets)": {targetErr, kerrors.ErrSchema}, "Keyspace.CreateTable": {memberErr, kerrors.ErrSchema},
		"ColumnSchema.Pointer": {ptrErr, kerrors.ErrSchema},
		"FieldOf":              {fieldErr, kerrors.ErrSchema}, "CreateIndex": {indexErr, kerrors.ErrSchema},
		"AlterTableAdd": {alterErr, kerrors.ErrMigration}, "Register": {regErr, kerrors.ErrSchema},
	} {
		require.Error(t, c.err, name)
		assert.True(t, errors.Is(c.err, kerrors.ErrKandra), "%s: %v does not match ErrKandra", name, c.err)
		assert.True(t, errors.Is(c.err, c.kind), "%s: %v does not match its kind %v", name, c.err, c.kind)
	}
	var se *kandra.SchemaError
	require.ErrorAs(t, ptrErr, &se)
	assert.Equal(t, kandra.RuleBinding, se.Rule)
	require.ErrorAs(t, dupErr, &se)
	assert.Equal(t, kandra.RuleNameTaken, se.Rule)
	assert.Contains(t, se.Detail, "given twice")
	require.ErrorAs(t, targetErr, &se)
	assert.Equal(t, kandra.RuleTablets, se.Rule)
	require.ErrorAs(t, indexErr, &se)
	assert.Equal(t, kandra.RuleSecondaryIndex, se.Rule)
	require.ErrorAs(t, memberErr, &se)
	assert.Equal(t, kandra.RuleNotInKeyspace, se.Rule)
	var ne *kandra.NameError
	require.ErrorAs(t, nameErr, &ne)
}

type ksVersioned struct {
	ID  string
	Ver int64
}

func (e *ksVersioned) Describe(s *kandra.Schema[ksVersioned]) {
	s.Table("ks_versioned")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Version(s, &e.Ver)
}

// TestDefaultTargetsNameTheWayOut: a Version in a keyspace that gives no
// Targets is refused for ScyllaDB 2025.x tablets, and the error says how a
// Cassandra keyspace says so; with Targets: Cassandra5 it is accepted.
func TestDefaultTargetsNameTheWayOut(t *testing.T) {
	tbl := kandra.MustRegister[ksVersioned]()
	_, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "app", Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3})}, tbl)
	if err == nil || !strings.Contains(err.Error(), "Targets: kandra.Cassandra5") || !strings.Contains(err.Error(), "LWT is not yet supported with tablets") {
		t.Fatalf("err = %v", err)
	}
	if _, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "app", Targets: kandra.Cassandra5, Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3})}, tbl); err != nil {
		t.Fatal(err)
	}
}

// TestTabletsRendered: a keyspace's CREATE KEYSPACE states ScyllaDB's data
// distribution whenever its targets on the server allow only one, since a
// ScyllaDB server picks tablets for a keyspace that says nothing; Cassandra
// never gets the option, which it refuses.
func TestTabletsRendered(t *testing.T) {
	nts := kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3})
	const (
		none     = ""
		vnodes   = " AND tablets = {'enabled': false}"
		tablets  = " AND tablets = {'enabled': true}"
		scylla25 = kandra.Scylla2025 | kandra.Scylla2025Tablets
		scylla26 = kandra.Scylla2026 | kandra.Scylla2026Tablets
		cass     = kandra.Cassandra5 | kandra.Cassandra5Latest
	)
	for _, c := range []struct {
		name    string
		targets kandra.Target
		tablets kandra.Tablets
		// want is the option of CreateKeyspace, then on a Cassandra node,
		// a ScyllaDB 2025.x node, a 2026.x node and one of unknown version.
		want [5]string
	}{
		{"vnodes only", kandra.Scylla2025 | kandra.Scylla2026, kandra.TabletsUnset, [5]string{vnodes, none, vnodes, vnodes, vnodes}},
		{"tablets only", kandra.Scylla2026Tablets, kandra.TabletsUnset, [5]string{tablets, none, none, tablets, tablets}},
		{"both on 2025.x: vnodes, which keep LWTs", scylla25, kandra.TabletsUnset, [5]string{vnodes, none, vnodes, none, vnodes}},
		{"both on 2026.x: the server's choice", scylla26, kandra.TabletsUnset, [5]string{none, none, none, none, none}},
		{"every target", kandra.AllTargets, kandra.TabletsUnset, [5]string{none, none, vnodes, none, vnodes}},
		{"Cassandra and ScyllaDB 2025.x vnodes", kandra.Cassandra5 | kandra.Scylla2025, kandra.TabletsUnset, [5]string{none, none, vnodes, none, vnodes}},
		{"the spec's choice wins", scylla26, kandra.TabletsDisabled, [5]string{vnodes, vnodes, vnodes, vnodes, vnodes}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "app", Replication: nts, Targets: c.targets, Tablets: c.tablets})
			base := "CREATE KEYSPACE IF NOT EXISTS app WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3}"
			got := []string{ks.CreateKeyspace(), ks.CreateKeyspaceOn(cass), ks.CreateKeyspaceOn(scylla25), ks.CreateKeyspaceOn(scylla26), ks.CreateKeyspaceOn(scylla25 | scylla26)}
			for i, w := range c.want {
				if got[i] != base+w+";" {
					t.Errorf("form %d = %q, want the option %q", i, got[i], w)
				}
			}
			if s := ks.StatementsOn(scylla25); s[0] != got[2] {
				t.Errorf("StatementsOn's CREATE KEYSPACE %q, want %q", s[0], got[2])
			}
			if s := ks.Statements(); s[0] != got[0] {
				t.Errorf("Statements' CREATE KEYSPACE %q, want %q", s[0], got[0])
			}
		})
	}
}
