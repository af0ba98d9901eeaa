package gocqlv2

import (
	"strings"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

func TestIsConditional(t *testing.T) {
	for stmt, want := range map[string]bool{
		"INSERT INTO ks.t (a) VALUES (?) IF NOT EXISTS USING TTL ?": true,
		"update ks.t set a = ? where k = ? if a = ?":                true,
		"  DELETE FROM ks.t WHERE k = ? IF owner = ?":               true,
		"INSERT INTO ks.t (a) VALUES (?)":                           false,
		"SELECT owner FROM ks.kandra_schema_lease WHERE name = ?":   false,
		"CREATE TABLE IF NOT EXISTS ks.t (k text PRIMARY KEY)":      false,
		"DELETE FROM ks.t WHERE k = ?":                              false,
		"UPDATE ks.t SET diff = ? WHERE k = ?":                      false,
	} {
		if got := isConditional(stmt); got != want {
			t.Errorf("isConditional(%q) = %v, want %v", stmt, got, want)
		}
	}
}

func FuzzIsConditional(f *testing.F) {
	f.Add("INSERT INTO t (a) VALUES (?) IF NOT EXISTS")
	f.Add("SELECT * FROM t")
	f.Add("update t set a = ? where k = ? if a = ?")
	// Conditional exactly when a write (INSERT, UPDATE, DELETE) has the
	// word IF, in any case.
	f.Fuzz(func(t *testing.T, s string) {
		u := strings.ToUpper(strings.TrimSpace(s))
		write := strings.HasPrefix(u, "INSERT") || strings.HasPrefix(u, "UPDATE") || strings.HasPrefix(u, "DELETE")
		word := false
		for _, w := range strings.Fields(u) {
			word = word || w == "IF"
		}
		if got := isConditional(s); got != (write && word) {
			t.Fatalf("isConditional(%q) = %v", s, got)
		}
	})
}

func TestPlainValue(t *testing.T) {
	u := gocql.TimeUUID()
	if got := plainValue(u); got != u.String() {
		t.Fatalf("uuid: %v", got)
	}
	if got := plainValue([]gocql.UUID{u}); !strings.EqualFold(got.([]string)[0], u.String()) {
		t.Fatalf("uuids: %v", got)
	}
	if got := plainValue(map[string]string{"a": "b"}); got.(map[string]string)["a"] != "b" {
		t.Fatalf("map: %v", got)
	}
	if got := plainValue(int64(3)); got != int64(3) {
		t.Fatalf("bigint: %v", got)
	}
}
