package kgocqlv2

import (
	"net"
	"reflect"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/kandra-go/kandra/adapter"
)

// oneRow is an iterator of one row, as the driver's MapScan gives it.
type oneRow struct{ row map[string]any }

func (r *oneRow) MapScan(m map[string]any) bool {
	if r.row == nil {
		return false
	}
	for k, v := range r.row {
		m[k] = v
	}
	r.row = nil
	return true
}

func (r *oneRow) Close() error { return nil }

// TestPlainValues: the driver's own types in a row the migrator reads are
// plain values.
func TestPlainValues(t *testing.T) {
	u := gocql.TimeUUID()
	rows, err := adapter.MapRows(&oneRow{map[string]any{"u": u, "us": []gocql.UUID{u}, "ip": net.IPv4(10, 0, 0, 1),
		"m": map[string]string{"a": "b"}, "n": int64(3)}})
	if err != nil || len(rows) != 1 {
		t.Fatal(rows, err)
	}
	want := map[string]any{"u": u.String(), "us": []string{u.String()}, "ip": "10.0.0.1", "m": map[string]string{"a": "b"}, "n": int64(3)}
	if !reflect.DeepEqual(rows[0], want) {
		t.Fatalf("%#v, want %#v", rows[0], want)
	}
}
