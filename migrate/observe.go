package migrate

import (
	"context"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
)

// observing is d with every call shown to o (ApplyOptions.Observer,
// BackfillOptions.Observer): the schema changes and agreement waits as
// SchemaStatement, the reads and writes of the schema, the history and the
// lease as statements, all with operation kandra.OpMigrate, and a
// backfill's scans and lookup rows (the adapter.Driver calls Exec, Query and Batch) with
// kandra.OpBackfill.
func observing(d driver, keyspace string, o kandra.Observer) driver {
	if o == nil {
		return d
	}
	if od, ok := d.(*observedDriver); ok && od.o == o {
		return d
	}
	return &observedDriver{d: d, ks: keyspace, o: o}
}

type observedDriver struct {
	d  driver
	ks string
	o  kandra.Observer
}

// start and end are one observed call.
func (od *observedDriver) start(ctx context.Context, table, op string, kind kandra.StatementKind, stmt string, cons kandra.Consistency, background bool) (context.Context, *kandra.Observation, time.Time) {
	ob := &kandra.Observation{Keyspace: od.ks, Table: table, Operation: op, Kind: kind, Statement: stmt, Statements: 1,
		Consistency: cons, Attempt: 1, Background: background}
	ctx = od.o.Start(ctx, ob)
	return ctx, ob, time.Now()
}

func (od *observedDriver) end(ctx context.Context, ob *kandra.Observation, t0 time.Time, rows int, err error) {
	ob.Duration, ob.Rows, ob.Err = time.Since(t0), rows, err
	od.o.End(ctx, ob)
}

func (od *observedDriver) SchemaRows(ctx context.Context, keyspace string) (*schemaRows, error) {
	ctx, ob, t0 := od.start(ctx, "", kandra.OpMigrate, kandra.SingleStatement, "SELECT ... FROM system_schema.* WHERE keyspace_name = ?", kandra.ConsistencyOne, false)
	rows, err := od.d.SchemaRows(ctx, keyspace)
	n := 0
	if rows != nil {
		n = len(rows.Keyspaces) + len(rows.Tables) + len(rows.Columns) + len(rows.Indexes)
	}
	od.end(ctx, ob, t0, n, err)
	return rows, err
}

func (od *observedDriver) ExecSchema(ctx context.Context, stmt string) error {
	ctx, ob, t0 := od.start(ctx, "", kandra.OpMigrate, kandra.SchemaStatement, stmt, 0, false)
	err := od.d.ExecSchema(ctx, stmt)
	od.end(ctx, ob, t0, 0, err)
	return err
}

func (od *observedDriver) AwaitSchemaAgreement(ctx context.Context) error {
	ctx, ob, t0 := od.start(ctx, "", kandra.OpMigrate, kandra.SchemaStatement, "(schema agreement)", 0, false)
	err := od.d.AwaitSchemaAgreement(ctx)
	od.end(ctx, ob, t0, 0, err)
	return err
}

func (od *observedDriver) SchemaVersions(ctx context.Context) (map[string]string, error) {
	ctx, ob, t0 := od.start(ctx, "", kandra.OpMigrate, kandra.SingleStatement, "SELECT schema_version FROM system.local, system.peers", kandra.ConsistencyOne, false)
	v, err := od.d.SchemaVersions(ctx)
	od.end(ctx, ob, t0, len(v), err)
	return v, err
}

func (od *observedDriver) ExecCQL(ctx context.Context, stmt string, values []any, c kandra.Consistency) (bool, error) {
	ctx, ob, t0 := od.start(ctx, "", kandra.OpMigrate, kandra.SingleStatement, stmt, c, false)
	applied, err := od.d.ExecCQL(ctx, stmt, values, c)
	if adapter.IsConditional(stmt) {
		ob.Conditional, ob.Applied = true, applied && err == nil
	}
	od.end(ctx, ob, t0, 0, err)
	return applied, err
}

func (od *observedDriver) QueryCQL(ctx context.Context, stmt string, values []any, c kandra.Consistency) ([]map[string]any, error) {
	ctx, ob, t0 := od.start(ctx, "", kandra.OpMigrate, kandra.SingleStatement, stmt, c, false)
	rows, err := od.d.QueryCQL(ctx, stmt, values, c)
	od.end(ctx, ob, t0, len(rows), err)
	return rows, err
}

// Exec, Query and Batch are a backfill's.

func (od *observedDriver) Exec(ctx context.Context, q *adapter.Query) (bool, error) {
	ctx, ob, t0 := od.start(ctx, q.Statement.TableName(), kandra.OpBackfill, kandra.SingleStatement, q.Statement.CQL(), q.Consistency, false)
	applied, err := od.d.Exec(ctx, q)
	if q.Statement.IsConditional() {
		ob.Conditional, ob.Applied = true, applied && err == nil
	}
	od.end(ctx, ob, t0, 0, err)
	return applied, err
}

func (od *observedDriver) Batch(ctx context.Context, b *adapter.Batch) (bool, error) {
	table, stmt := "", ""
	if len(b.Entries) > 0 {
		table, stmt = b.Entries[0].Statement.TableName(), b.Entries[0].Statement.CQL()
	}
	ctx, ob, t0 := od.start(ctx, table, kandra.OpBackfill, kandra.BatchStatement, stmt, b.Consistency, false)
	ob.Statements = len(b.Entries)
	applied, err := od.d.Batch(ctx, b)
	if b.IsConditional() {
		ob.Conditional, ob.Applied = true, applied && err == nil
	}
	od.end(ctx, ob, t0, 0, err)
	return applied, err
}

func (od *observedDriver) Query(ctx context.Context, q *adapter.Query) (adapter.Rows, error) {
	ctx, ob, t0 := od.start(ctx, q.Statement.TableName(), kandra.OpBackfill, kandra.SingleStatement, q.Statement.CQL(), q.Consistency, false)
	rows, err := od.d.Query(ctx, q)
	if err != nil {
		od.end(ctx, ob, t0, 0, err)
		return nil, err
	}
	return &observedRows{Rows: rows, end: func(n int, err error) { od.end(ctx, ob, t0, n, err) }}, nil
}

// observedRows counts the rows read and ends the observation at Close.
type observedRows struct {
	adapter.Rows
	n   int
	end func(n int, err error)
}

func (r *observedRows) Next(dst []any) bool {
	ok := r.Rows.Next(dst)
	if ok {
		r.n++
	}
	return ok
}

func (r *observedRows) Close() error {
	err := r.Rows.Close()
	r.end(r.n, err)
	return err
}
