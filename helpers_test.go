package kandra_test

// Helpers shared by the external tests of package kandra.

import (
	"errors"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

// registerNoPanic calls kandra.Register[T] and fails the test if it panics:
// bad input must come back as an error, never as a panic.
func registerNoPanic[T any, PT kandra.Entity[T]](t *testing.T) (tbl *kandra.Table[T], err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("kandra.Register[%v] panicked: %v\n%s", reflect.TypeFor[T](), r, debug.Stack())
		}
	}()
	return kandra.Register[T, PT]()
}

// mustRegisterOK registers T and fails the test on any error.
func mustRegisterOK[T any, PT kandra.Entity[T]](t *testing.T) *kandra.Table[T] {
	t.Helper()
	tbl, err := registerNoPanic[T, PT](t)
	if err != nil {
		t.Fatalf("kandra.Register[%v]: unexpected error: %v", reflect.TypeFor[T](), err)
	}
	if tbl == nil {
		t.Fatalf("kandra.Register[%v] returned a nil table and no error", reflect.TypeFor[T]())
	}
	return tbl
}

// expectRuleError registers T, which must fail with a *kandra.SchemaError
// naming T, the Go field path field ("" for a table-level rule) and rule,
// whose text names the field and the rule and contains every string of
// inMessage. It also checks that the failure left nothing behind: TableOf
// and SchemaOf do not report T.
func expectRuleError[T any, PT kandra.Entity[T]](t *testing.T, rule kandra.Rule, field string, inMessage ...string) *kandra.SchemaError {
	t.Helper()
	typ := reflect.TypeFor[T]()
	tbl, err := registerNoPanic[T, PT](t)
	if err == nil {
		t.Fatalf("kandra.Register[%v] succeeded (table %q); want a [%s] error on field %q",
			typ, tbl.Name(), rule, field)
	}
	if tbl != nil {
		t.Errorf("kandra.Register[%v] returned a table together with the error %v", typ, err)
	}
	var se *kandra.SchemaError
	if !errors.As(err, &se) {
		t.Fatalf("kandra.Register[%v] error %T (%v) is not a *kandra.SchemaError", typ, err, err)
	}
	if se.Entity != typ.String() {
		t.Errorf("SchemaError.Entity = %q, want %q", se.Entity, typ.String())
	}
	if se.Rule != rule {
		t.Errorf("SchemaError.Rule = %q, want %q (error: %v)", se.Rule, rule, err)
	}
	if se.Field != field {
		t.Errorf("SchemaError.Field = %q, want %q (error: %v)", se.Field, field, err)
	}
	if !errors.Is(err, kerrors.ErrSchema) || !errors.Is(err, kerrors.ErrKandra) {
		t.Errorf("errors.Is(err, ErrSchema/ErrKandra) = false for %v", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "["+string(rule)+"]") {
		t.Errorf("error text %q does not name the rule %q", msg, rule)
	}
	if field != "" && !strings.Contains(msg, field) {
		t.Errorf("error text %q does not name the field %q", msg, field)
	}
	for _, s := range inMessage {
		if !strings.Contains(msg, s) {
			t.Errorf("error text %q does not contain %q", msg, s)
		}
	}
	if _, ok := kandra.TableOf[T](); ok {
		t.Errorf("kandra.TableOf[%v] reports a registration after Register failed", typ)
	}
	if _, ok := kandra.SchemaOf(typ); ok {
		t.Errorf("kandra.SchemaOf(%v) reports a registration after Register failed", typ)
	}
	return se
}

// columnNames lists the columns of ts as "name TYPE", for failure messages.
func columnNames(ts *kandra.TableSchema) []string {
	var out []string
	for _, c := range ts.Columns() {
		out = append(out, c.Name()+" "+c.Decl())
	}
	return out
}

// oneDC is the replication of the test keyspaces: NetworkTopologyStrategy,
// which every target accepts (ScyllaDB keyspaces with tablets refuse
// SimpleStrategy).
var oneDC = kandra.NetworkTopologyStrategy(map[string]int{"dc1": 1})

// newKeyspace builds keyspace name of the tables with replication oneDC for
// targets (0 is AllTargets), failing the test on error. Each caller says
// why its targets accept its tables.
func newKeyspace(t testing.TB, name string, targets kandra.Target, tables ...kandra.SchemaSource) *kandra.Keyspace {
	t.Helper()
	ks, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: name, Replication: oneDC, Targets: targets}, tables...)
	if err != nil {
		t.Fatalf("NewKeyspace(%q, %v): %v", name, targets, err)
	}
	return ks
}

// indexTargets are the targets of test keyspaces whose tables have
// secondary indexes (on non-blob columns), counters or Version columns:
// every target but ScyllaDB 2025.x with tablets, which refuses all three.
const indexTargets = kandra.AllTargets &^ kandra.Scylla2025Tablets

// noErr returns v, and panics (failing the test) on err: for DDL writers
// whose error the test does not expect.
func noErr[V any](v V, err error) V {
	if err != nil {
		panic(err)
	}
	return v
}

// createKeyspace renders the CREATE KEYSPACE of a keyspace with no tables,
// which checks the rules that need none.
func createKeyspace(spec kandra.KeyspaceSpec) (string, error) {
	k, err := kandra.NewKeyspace(spec)
	if err != nil {
		return "", err
	}
	return k.CreateKeyspace(), nil
}
