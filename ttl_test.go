package kandra

import (
	"testing"
	"time"
)

func TestMaxWriteTTL(t *testing.T) {
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	left := time.Date(2038, 1, 19, 3, 14, 6, 0, time.UTC).Sub(at)
	for _, tt := range []struct {
		targets Target
		now     time.Time
		want    time.Duration
	}{
		{AllTargets, at, left},
		{Cassandra5, at, left},
		{0, at, left}, // invalid: every target
		{Cassandra5Latest, at, MaxTTL},
		{Scylla2026 | Cassandra5Latest, at, MaxTTL},
		{Cassandra5, time.Date(2039, 1, 1, 0, 0, 0, 0, time.UTC), 0},
		{Cassandra5, time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC), MaxTTL},
	} {
		if got := MaxWriteTTL(tt.targets, tt.now); got != tt.want {
			t.Errorf("MaxWriteTTL(%v, %v) = %v, want %v", tt.targets, tt.now, got, tt.want)
		}
	}
}
