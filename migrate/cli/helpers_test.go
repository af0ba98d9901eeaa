package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/migrate"
)

// Account is the test keyspace's one entity, with a lookup to backfill.
type Account struct {
	ID    uuid.UUID
	Email string
	Name  string
}

func (a *Account) Describe(s *kandra.Schema[Account]) {
	s.Table("accounts")
	kandra.Bind(s, &a.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &a.Email, kandra.Lookup("by_email", kandra.LookupUnique))
}

var testKeyspace = kandra.MustNewKeyspace(kandra.KeyspaceSpec{
	Name: "shop", Targets: kandra.Cassandra5,
	Replication: kandra.NetworkTopologyStrategy(map[string]int{"datacenter1": 1}),
}, kandra.MustRegister[Account]())

// fakeDriver is a adapter.Driver with no server behind it: an empty
// system_schema (a fresh cluster) unless rows is set, and err, if set,
// from every call. On a fresh cluster, the keyspace and the tables of
// testKeyspace its schema statements create show in system_schema, so
// that Apply sees each step's effect.
type fakeDriver struct {
	rows *schemaRows
	err  error

	mu      sync.Mutex
	created map[string]bool // "keyspace", and the tables created
}

func (f *fakeDriver) Exec(context.Context, *adapter.Query) (bool, error) { return f.err == nil, f.err }
func (f *fakeDriver) Query(context.Context, *adapter.Query) (adapter.Rows, error) {
	return nil, errors.New("fakeDriver: no rows")
}
func (f *fakeDriver) Batch(context.Context, *adapter.Batch) (bool, error) { return false, f.err }
func (f *fakeDriver) SchemaRows(context.Context, string) (*schemaRows, error) {
	if f.err != nil {
		return nil, f.err
	}
	if f.rows != nil {
		return f.rows, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := &schemaRows{}
	if !f.created["keyspace"] {
		return out, nil
	}
	all := liveRows("text")
	out.Keyspaces = all.Keyspaces
	for _, r := range all.Tables {
		if f.created[r["table_name"].(string)] {
			out.Tables = append(out.Tables, r)
		}
	}
	for _, r := range all.Columns {
		if f.created[r["table_name"].(string)] {
			out.Columns = append(out.Columns, r)
		}
	}
	return out, nil
}
func (f *fakeDriver) ExecSchema(_ context.Context, stmt string) error {
	if f.err != nil {
		return f.err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.created == nil {
		f.created = map[string]bool{}
	}
	switch {
	case strings.HasPrefix(stmt, "CREATE KEYSPACE"):
		f.created["keyspace"] = true
	case strings.HasPrefix(stmt, "CREATE TABLE IF NOT EXISTS shop.accounts ("):
		f.created["accounts"] = true
	case strings.HasPrefix(stmt, "CREATE TABLE IF NOT EXISTS shop.accounts_by_email ("):
		f.created["accounts_by_email"] = true
	}
	return nil
}
func (f *fakeDriver) AwaitSchemaAgreement(context.Context) error { return f.err }
func (f *fakeDriver) ExecCQL(context.Context, string, []any, kandra.Consistency) (bool, error) {
	return f.err == nil, f.err
}
func (f *fakeDriver) QueryCQL(context.Context, string, []any, kandra.Consistency) ([]map[string]any, error) {
	return nil, f.err
}

// schemaRows are the system_schema rows of one keyspace, by table, as a
// fake holds them.
type schemaRows struct {
	Keyspaces, Tables, Columns, Indexes, Types, DroppedColumns []map[string]any
}

// schemaFake is a fake that keeps the live schema as rows and takes
// schema statements whole: viaCQL serves the migrator's reads of
// system_schema and its schema statements from them.
type schemaFake interface {
	adapter.Driver
	SchemaRows(ctx context.Context, keyspace string) (*schemaRows, error)
	ExecSchema(ctx context.Context, stmt string) error
}

// viaCQL answers the migrator's CQL as a node would from a schemaFake.
type viaCQL struct{ schemaFake }

func (v viaCQL) QueryCQL(ctx context.Context, stmt string, vals []any, c kandra.Consistency) ([]map[string]any, error) {
	table, ok := strings.CutPrefix(stmt, "SELECT * FROM system_schema.")
	if !ok {
		return v.schemaFake.QueryCQL(ctx, stmt, vals, c)
	}
	r, err := v.SchemaRows(ctx, vals[0].(string))
	if err != nil {
		return nil, err
	}
	by := map[string][]map[string]any{"keyspaces": r.Keyspaces, "tables": r.Tables, "columns": r.Columns,
		"indexes": r.Indexes, "types": r.Types, "dropped_columns": r.DroppedColumns}
	return by[strings.Fields(table)[0]], nil
}

func (v viaCQL) ExecCQL(ctx context.Context, stmt string, vals []any, c kandra.Consistency) (bool, error) {
	if w := strings.Fields(stmt); len(w) > 0 && (w[0] == "CREATE" || w[0] == "ALTER" || w[0] == "DROP") {
		return true, v.ExecSchema(ctx, stmt)
	}
	return v.schemaFake.ExecCQL(ctx, stmt, vals, c)
}

// result is one Run's outcome.
type result struct {
	code           int
	stdout, stderr string
}

// fakeClock advances by step on every reading.
type fakeClock struct {
	t    time.Time
	step time.Duration
}

func (c *fakeClock) now() time.Time { c.t = c.t.Add(c.step); return c.t }

// runWith runs args through be (nil fields: package migrate's) on d.
func runWith(t *testing.T, d adapter.Driver, be backend, term bool, args ...string) result {
	t.Helper()
	if be.planFor == nil {
		be.planFor = migrateBackend.planFor
	}
	if be.apply == nil {
		be.apply = migrateBackend.apply
	}
	if be.backfill == nil {
		be.backfill = migrateBackend.backfill
	}
	if be.history == nil {
		be.history = migrateBackend.history
	}
	var out, errb bytes.Buffer
	clk := &fakeClock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), step: 300 * time.Millisecond}
	if f, ok := d.(schemaFake); ok {
		d = viaCQL{f}
	}
	c := &command{ctx: context.Background(), d: d, ks: testKeyspace, be: be,
		stdout: &out, stderr: &errb, prog: "app schema", term: term, width: 60, now: clk.now}
	code := c.run(args)
	return result{code, out.String(), errb.String()}
}

// planBackend returns p (or err) from planFor.
func planBackend(p *migrate.Plan, err error) backend {
	return backend{planFor: func(context.Context, adapter.Driver, *kandra.Keyspace) (*migrate.Plan, error) { return p, err }}
}

// steps of every class, for plans made by hand.
var (
	stepTable    = migrate.Step{ID: "create-table:accounts", Class: migrate.Safe, Kind: migrate.StepCreateTable, Table: "accounts", CQL: "CREATE TABLE IF NOT EXISTS shop.accounts (id UUID PRIMARY KEY)", Reason: "the table does not exist"}
	stepBackfill = migrate.Step{ID: "backfill:accounts_by_email", Class: migrate.NeedsApproval, Table: "accounts_by_email", Reason: "the lookup table is new on a table that has rows"}
	stepType     = migrate.Step{ID: "change-type:accounts.name", Class: migrate.Impossible, Kind: migrate.StepChangeType, Table: "accounts", Column: "name", Reason: "name is int live, text in the model", Manual: "create a new table, copy, switch"}
)

// liveRows are the system_schema rows of testKeyspace as a server holds
// them after applying it, with accounts.name of type nameType ("" leaves
// the column out).
func liveRows(nameType string) *schemaRows {
	r := &schemaRows{Keyspaces: []map[string]any{{"keyspace_name": "shop", "durable_writes": true,
		"replication": map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "datacenter1": "1"}}}}
	for _, tn := range []string{"accounts", "accounts_by_email"} {
		r.Tables = append(r.Tables, map[string]any{"keyspace_name": "shop", "table_name": tn, "id": uuid.NewString(),
			"default_time_to_live": 0, "gc_grace_seconds": 864000, "flags": []string{"compound"}})
	}
	col := func(tn, cn, kind string, pos int, typ string) {
		r.Columns = append(r.Columns, map[string]any{"keyspace_name": "shop", "table_name": tn, "column_name": cn,
			"kind": kind, "position": pos, "clustering_order": "none", "type": typ})
	}
	col("accounts", "id", "partition_key", 0, "uuid")
	col("accounts", "email", "regular", -1, "text")
	if nameType != "" {
		col("accounts", "name", "regular", -1, nameType)
	}
	col("accounts_by_email", "email", "partition_key", 0, "text")
	col("accounts_by_email", "id", "regular", -1, "uuid")
	col("accounts_by_email", "kandra_claim", "regular", -1, "bigint")
	return r
}
