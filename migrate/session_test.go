package migrate

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

// recorder is a queryFunc that answers from canned rows by statement.
type recorder struct {
	answers map[string][]map[string]any
	fail    string
	calls   []string
}

func (r *recorder) query(_ context.Context, stmt string, values []any, c kandra.Consistency) ([]map[string]any, error) {
	r.calls = append(r.calls, stmt)
	if c != kandra.ConsistencyOne {
		return nil, errors.New("consistency " + c.String())
	}
	if stmt == r.fail {
		return nil, errors.New("refused")
	}
	return r.answers[stmt], nil
}

func TestReadSchemaRows(t *testing.T) {
	r := &recorder{answers: map[string][]map[string]any{}}
	for i, tb := range schemaTables {
		r.answers["SELECT * FROM system_schema."+tb+" WHERE keyspace_name = ?"] = []map[string]any{{"table": tb, "i": i}}
	}
	rows, err := readSchemaRows(context.Background(), r.query, "ks")
	if err != nil {
		t.Fatal(err)
	}
	got := [][]map[string]any{rows.Keyspaces, rows.Tables, rows.Columns, rows.Indexes, rows.Types, rows.DroppedColumns, rows.ColumnMasks, rows.Functions, rows.Aggregates, rows.Views, rows.Triggers}
	if len(got) != len(schemaTables) {
		t.Fatalf("%d fields for %d tables", len(got), len(schemaTables))
	}
	for i, tb := range schemaTables {
		if len(got[i]) != 1 || got[i][0]["table"] != tb {
			t.Errorf("field %d: %v, want the rows of %s", i, got[i], tb)
		}
	}
	r.fail = "SELECT * FROM system_schema.indexes WHERE keyspace_name = ?"
	if rows, err := readSchemaRows(context.Background(), r.query, "ks"); err == nil || rows != nil {
		t.Fatalf("a failed query: %v, %v", rows, err)
	}
	// A server without column_masks has no masks; any other refusal of
	// that read is an error.
	masks := "SELECT * FROM system_schema.column_masks WHERE keyspace_name = ?"
	for _, c := range []struct {
		msg string
		ok  bool
	}{
		{`Error from server: code=2200 [Invalid query] message="table column_masks does not exist"`, true}, // Cassandra 5.0
		{"unconfigured table column_masks", true},                                                          // ScyllaDB, Cassandra 4
		{"Unconfigured table column_masks", true},
		{"unconfigured table columns", false},
		{"User app has no SELECT permission on <table system_schema.column_masks>", false},
		{"gocql: no response received from cassandra within timeout period", false},
	} {
		fail := &failOn{recorder: r, stmt: masks, err: errors.New(c.msg)}
		r.fail = ""
		rows, err := readSchemaRows(context.Background(), fail.query, "ks")
		switch {
		case c.ok && (err != nil || len(rows.ColumnMasks) != 0 || len(rows.Aggregates) != 1):
			t.Errorf("%q: rows %+v, %v; want no masks and the other rows", c.msg, rows, err)
		case !c.ok && (err == nil || err.Error() != c.msg):
			t.Errorf("%q: rows %+v, %v; want the error", c.msg, rows, err)
		}
	}
	// Nor has ScyllaDB triggers.
	fail := &failOn{recorder: r, stmt: "SELECT * FROM system_schema.triggers WHERE keyspace_name = ?", err: errors.New("unconfigured table triggers")}
	if rows, err := readSchemaRows(context.Background(), fail.query, "ks"); err != nil || len(rows.Triggers) != 0 || len(rows.Views) != 1 {
		t.Errorf("without triggers: rows %+v, %v; want no triggers and the other rows", rows, err)
	}
	fail.stmt = "SELECT * FROM system_schema.views WHERE keyspace_name = ?"
	fail.err = errors.New("unconfigured table views")
	if _, err := readSchemaRows(context.Background(), fail.query, "ks"); err == nil {
		t.Error("a server without views: no error; every server has them")
	}
}

// failOn is a recorder that fails one statement with err.
type failOn struct {
	*recorder
	stmt string
	err  error
}

func (f *failOn) query(ctx context.Context, stmt string, values []any, c kandra.Consistency) ([]map[string]any, error) {
	if stmt == f.stmt {
		return nil, f.err
	}
	return f.recorder.query(ctx, stmt, values, c)
}

func TestReadSchemaVersions(t *testing.T) {
	r := &recorder{answers: map[string][]map[string]any{
		"SELECT broadcast_address, listen_address, schema_version FROM system.local WHERE key = 'local'": {{"broadcast_address": nil, "listen_address": "127.0.0.1", "schema_version": "a"}},
		"SELECT peer, schema_version FROM system.peers":                                                  {{"peer": "127.0.0.2", "schema_version": "a"}, {"peer": "127.0.0.3", "schema_version": "b"}},
	}}
	v, err := readSchemaVersions(context.Background(), r.query)
	if want := map[string]string{"127.0.0.1": "a", "127.0.0.2": "a", "127.0.0.3": "b"}; err != nil || !reflect.DeepEqual(v, want) {
		t.Fatalf("versions %v, %v; want %v", v, err, want)
	}
	r.fail = "SELECT peer, schema_version FROM system.peers"
	if _, err := readSchemaVersions(context.Background(), r.query); err == nil {
		t.Fatal("a failed peers query gave no error")
	}
}

func TestAwaitAndExecSchema(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the versions are read even after ctx is done
	cause := errors.New("timed out")
	versions := func(c context.Context) (map[string]string, error) {
		if c.Err() != nil {
			return nil, c.Err()
		}
		return map[string]string{"h": "v"}, nil
	}
	if err := awaitAgreement(ctx, func(context.Context) error { return nil }, versions); err != nil {
		t.Fatal(err)
	}
	await := func(c context.Context) error {
		return awaitAgreement(c, func(context.Context) error { return cause }, versions)
	}
	var ran []string
	exec := func(_ context.Context, s string) error { ran = append(ran, s); return nil }
	err := execSchemaThen(ctx, "CREATE TABLE t", exec, await)
	var ae *kerrors.AgreementError
	if !errors.As(err, &ae) || ae.Statement != "CREATE TABLE t" || ae.Versions["h"] != "v" || !errors.Is(ae.Cause, cause) || len(ran) != 1 {
		t.Fatalf("err %v (%+v), ran %v", err, ae, ran)
	}
	refused := errors.New("refused")
	if err := execSchemaThen(ctx, "DROP", func(context.Context, string) error { return refused }, await); !errors.Is(err, refused) {
		t.Fatalf("a refused statement: %v", err)
	}
}
