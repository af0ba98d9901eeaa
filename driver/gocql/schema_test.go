package gocql

import (
	"strings"
	"testing"

	gocql "github.com/gocql/gocql"
)

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
