package kandra

import (
	"testing"
	"time"
)

func TestTimestampOfKeepsMicroseconds(t *testing.T) {
	tests := []struct {
		name string
		t    time.Time
		want int64
	}{
		{"sub-millisecond digits kept", time.Unix(1_700_000_000, 123_456_789), 1_700_000_000_123_456},
		{"nanoseconds truncated", time.Unix(1_700_000_000, 999), 1_700_000_000_000_000},
		{"epoch", time.Unix(0, 0), 0},
		{"one microsecond", time.Unix(0, 1_000), 1},
		{"before the epoch floors", time.Unix(-1, 999_999_000), -1},
		{"zone does not matter", time.Date(2024, 5, 6, 7, 8, 9, 123_456_000, time.FixedZone("X", 5*3600)), time.Date(2024, 5, 6, 2, 8, 9, 123_456_000, time.UTC).UnixMicro()},
		{"monotonic reading ignored", time.Unix(1_700_000_000, 123_456_000).Add(0), 1_700_000_000_123_456},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TimestampOf(tt.t)
			if got != tt.want {
				t.Fatalf("TimestampOf(%v) = %d, want %d", tt.t, got, tt.want)
			}
		})
	}
	// The explicit check the Kotlin version fails: 123456 µs keeps its 456.
	ts := TimestampOf(time.Date(2025, 1, 2, 3, 4, 5, 123_456_000, time.UTC))
	if ts%1_000_000 != 123_456 || ts%1000 != 456 {
		t.Fatalf("TimestampOf lost sub-millisecond precision: %d", ts)
	}
}

func TestTimestampNow(t *testing.T) {
	before := time.Now().UnixMicro()
	now := TimestampNow()
	after := time.Now().UnixMicro()
	if now < before || now > after {
		t.Fatalf("TimestampNow() = %d, not within [%d, %d]", now, before, after)
	}
	// Real microsecond precision: within a short while some reading must
	// have non-zero microseconds below the millisecond (a ms clock * 1000
	// never would).
	deadline := time.Now().Add(time.Second)
	for TimestampNow()%1000 == 0 {
		if time.Now().After(deadline) {
			t.Fatal("TimestampNow() was a whole number of milliseconds for a full second")
		}
	}
}

func TestMaxWriteTTL(t *testing.T) {
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	left := int(time.Date(2038, 1, 19, 3, 14, 6, 0, time.UTC).Sub(at) / time.Second)
	for _, tt := range []struct {
		targets Target
		now     time.Time
		want    int
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
			t.Errorf("MaxWriteTTL(%v, %v) = %d, want %d", tt.targets, tt.now, got, tt.want)
		}
	}
}
