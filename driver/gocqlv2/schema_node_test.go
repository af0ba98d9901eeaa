package gocqlv2_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	kgocql "github.com/kandra-go/kandra/driver/gocqlv2"
	kerrors "github.com/kandra-go/kandra/errors"
	"github.com/kandra-go/kandra/migrate"
)

// The migrator's side of the adapter on the node: system_schema rows,
// schema statements with agreement, fixed table ids, LWTs.
func TestSchemaNode(t *testing.T) {
	d := kgocql.New(session(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const ks = "kandra_adapter_schema_v2"
	if err := d.ExecSchema(ctx, "DROP KEYSPACE IF EXISTS "+ks); err != nil {
		t.Fatal(err)
	}
	rows, err := d.SchemaRows(ctx, ks)
	if err != nil || len(rows.Keyspaces)+len(rows.Tables)+len(rows.Columns) != 0 {
		t.Fatalf("missing keyspace: rows %+v, err %v", rows, err)
	}
	if err := d.ExecSchema(ctx, "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"); err != nil {
		t.Fatal(err)
	}
	id := uuid.NewSHA1(uuid.NameSpaceOID, []byte(ks+".t"))
	for i := 0; i < 2; i++ { // the second create is a no-op, as concurrent ones converge
		if err := d.ExecSchema(ctx, "CREATE TABLE IF NOT EXISTS "+ks+".t (k text, c int, v list<text>, m map<text, int>, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC) AND ID = "+id.String()); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.ExecSchema(ctx, "CREATE INDEX t_v_idx ON "+ks+".t (v)"); err != nil {
		t.Fatal(err)
	}
	if err := d.ExecSchema(ctx, "CREATE TYPE "+ks+".addr (street text, zip int)"); err != nil {
		t.Fatal(err)
	}
	if err := d.ExecSchema(ctx, "ALTER TABLE "+ks+".t ADD gone text"); err != nil {
		t.Fatal(err)
	}
	if err := d.ExecSchema(ctx, "ALTER TABLE "+ks+".t DROP gone"); err != nil {
		t.Fatal(err)
	}
	rows, err = d.SchemaRows(ctx, ks)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows.Keyspaces) != 1 || len(rows.Tables) != 1 || len(rows.Columns) != 4 || len(rows.Indexes) != 1 || len(rows.Types) != 1 || len(rows.DroppedColumns) != 1 {
		t.Fatalf("rows: %d keyspaces, %d tables, %d columns, %d indexes, %d types, %d dropped", len(rows.Keyspaces), len(rows.Tables), len(rows.Columns), len(rows.Indexes), len(rows.Types), len(rows.DroppedColumns))
	}
	if got := rows.Tables[0]["id"]; got != id.String() {
		t.Fatalf("table id %v (%T), want the fixed %s", got, got, id)
	}
	live, err := migrate.LiveFromRows(ks, rows)
	if err != nil {
		t.Fatal(err)
	}
	lt := live.Table("t")
	if lt == nil || lt.ID != id.String() || len(lt.Columns) != 4 || lt.Columns[1].Order != "desc" || lt.Dropped["gone"] == nil || len(lt.Indexes) != 1 {
		t.Fatalf("live table: %+v", lt)
	}
	if live.Keyspace.Types["addr"] == nil || live.Keyspace.Replication["replication_factor"] != "1" {
		t.Fatalf("live keyspace: %+v", live.Keyspace)
	}

	versions, err := d.SchemaVersions(ctx)
	if err != nil || len(versions) != 1 {
		t.Fatalf("versions %v, err %v", versions, err)
	}
	if err := d.AwaitSchemaAgreement(ctx); err != nil {
		t.Fatal(err)
	}

	// LWTs and plain statements.
	ins := "INSERT INTO " + ks + ".t (k, c, v) VALUES (?, ?, ?) IF NOT EXISTS USING TTL ?"
	for i, want := range []bool{true, false} {
		applied, err := d.ExecCQL(ctx, ins, []any{"a", 1, []string{"x"}, 60}, kandra.ConsistencyQuorum)
		if err != nil || applied != want {
			t.Fatalf("insert %d: applied %v, err %v; want %v", i, applied, err, want)
		}
	}
	if applied, err := d.ExecCQL(ctx, "UPDATE "+ks+".t SET v = ? WHERE k = ? AND c = ? IF v = ?", []any{[]string{"y"}, "a", 1, []string{"nope"}}, kandra.ConsistencyQuorum); err != nil || applied {
		t.Fatalf("conditional update on a wrong value: applied %v, err %v", applied, err)
	}
	if applied, err := d.ExecCQL(ctx, "INSERT INTO "+ks+".t (k, c) VALUES (?, ?)", []any{"b", int64(2)}, kandra.ConsistencyOne); err != nil || !applied {
		t.Fatalf("plain insert: applied %v, err %v", applied, err)
	}
	got, err := d.QueryCQL(ctx, "SELECT k, c, v, TTL(v) AS ttl FROM "+ks+".t WHERE k = ?", []any{"a"}, kandra.ConsistencySerial)
	if err != nil || len(got) != 1 || got[0]["c"] != 1 || strings.Join(got[0]["v"].([]string), ",") != "x" {
		t.Fatalf("query: %v, err %v", got, err)
	}
	if ttl, _ := got[0]["ttl"].([]int); len(ttl) != 1 || ttl[0] <= 0 || ttl[0] > 60 { // 5.0: one TTL per cell of a collection
		t.Fatalf("TTL %v", got[0]["ttl"])
	}
	cnt, err := d.QueryCQL(ctx, "SELECT COUNT(*) AS n FROM "+ks+".t", nil, kandra.ConsistencyOne)
	if err != nil || cnt[0]["n"] != int64(2) {
		t.Fatalf("count: %v, err %v", cnt, err)
	}
	if err := d.ExecSchema(ctx, "CREATE TABLE "+ks+".t (k text PRIMARY KEY)"); err == nil || !strings.Contains(err.Error(), "already existing table") {
		t.Fatalf("creating an existing table: %v", err)
	}
	if err := d.ExecSchema(ctx, "DROP KEYSPACE "+ks); err != nil {
		t.Fatal(err)
	}
}

// A failed wait for agreement is a typed error, never only a log line.
func TestAgreementErrorNode(t *testing.T) {
	s := session(t)
	d := kgocql.New(s)
	s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := d.AwaitSchemaAgreement(ctx)
	var ae *migrate.AgreementError
	if !errors.As(err, &ae) || ae.Cause == nil || !errors.Is(err, kerrors.ErrMigration) {
		t.Fatalf("err = %v (%T)", err, err)
	}
	err = d.ExecSchema(ctx, "CREATE KEYSPACE IF NOT EXISTS kandra_never WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	if err == nil {
		t.Fatal("ExecSchema on a closed session succeeded")
	}
}
