package kandra_test

import (
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	kerrors "github.com/kandra-go/kandra/errors"
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
// statements as the per-table writers give.
func TestKeyspaceStatementsOrder(t *testing.T) {
	orders, items := kandra.MustRegister[ksOrder](), kandra.MustRegister[ksItem]()
	ks := kandra.MustNewKeyspace("shop", kandra.SimpleStrategy(3), orders, items.Schema())
	in := kandra.MustInKeyspace("shop")
	ot, it := orders.Schema(), items.Schema()
	want := []string{
		kandra.MustCreateKeyspace("shop", kandra.SimpleStrategy(3)),
		kandra.CreateTable(ot, in),
		kandra.CreateTable(it, in),
		kandra.CreateLookupTable(ot.LookupTables()[0], in),
		kandra.CreateLookupTable(it.LookupTables()[0], in),
		noErr(kandra.CreateIndex(ot, ot.ColumnByName("note"), in)),
		noErr(kandra.CreateIndex(it, it.ColumnByName("sku"), in)),
	}
	assert.Equal(t, want, ks.Statements())
	assert.Contains(t, want[1], "CREATE TABLE IF NOT EXISTS shop.ks_orders (")

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
}

// TestOneTypeInTwoKeyspaces: a keyspace holds schemas, it does not own
// them; the same type may be in several.
func TestOneTypeInTwoKeyspaces(t *testing.T) {
	orders := kandra.MustRegister[ksOrder]()
	dcs := map[string]int{"dc1": 3, "dc2": 2}
	a := kandra.MustNewKeyspace("shop_a", kandra.NetworkTopologyStrategy(dcs), orders)
	b := kandra.MustNewKeyspace("shop_b", kandra.SimpleStrategy(1), orders)
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
		kandra.NewKeyspace("shop", kandra.SimpleStrategy(1), kandra.MustRegister[ksOrder](), nil)
	})
}

// TestErrorFamily: every error the root package returns matches ErrKandra
// and the sentinel of its kind.
func TestErrorFamily(t *testing.T) {
	orders := kandra.MustRegister[ksOrder]()
	ts := orders.Schema()
	_, cqlErr := kandra.ParseCQLType("map<text")
	_, nameErr := kandra.InKeyspace("my-app")
	_, ksErr := kandra.CreateKeyspace("ok", kandra.SimpleStrategy(0))
	_, dupErr := kandra.NewKeyspace("ok", kandra.SimpleStrategy(1), orders, orders)
	_, ptrErr := ts.ColumnByName("email").Pointer(&ksItem{})
	_, ptrsErr := ts.Pointers(ksOrder{}, nil)
	_, fieldErr := kandra.FieldOf(orders, func(o *ksOrder) *string { return new(string) })
	_, indexErr := kandra.CreateIndex(ts, ts.ColumnByName("email"))
	_, alterErr := kandra.AlterTableAdd(ts, ts.ColumnByName("id"))
	_, regErr := kandra.Register[FailsOnce]()
	for name, c := range map[string]struct {
		err  error
		kind error
	}{
		"ParseCQLType": {cqlErr, kerrors.ErrSchema}, "InKeyspace": {nameErr, kerrors.ErrSchema},
		"CreateKeyspace": {ksErr, kerrors.ErrSchema}, "NewKeyspace": {dupErr, kerrors.ErrSchema},
		"ColumnSchema.Pointer": {ptrErr, kerrors.ErrSchema}, "TableSchema.Pointers": {ptrsErr, kerrors.ErrSchema},
		"FieldOf": {fieldErr, kerrors.ErrSchema}, "CreateIndex": {indexErr, kerrors.ErrSchema},
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
}
