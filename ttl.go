package kandra

import "time"

// MaxWriteTTL is the largest TTL, a whole number of seconds, that a write sent at now may
// carry on every one of targets: MaxTTL (20 years, both servers' limit),
// and on Cassandra5 no more than the seconds left until 2038-01-19T03:14:06Z
// (storage_compatibility_mode CASSANDRA_4, the shipped default, refuses a
// write whose now + TTL lies past it). It is 0 once that date has passed on
// a target that has the cap. An invalid or empty targets means every
// target.
func MaxWriteTTL(targets Target, now time.Time) time.Duration {
	if !targets.IsValid() {
		targets = AllTargets
	}
	limit := MaxTTL
	if targets&Cassandra5 != 0 {
		left := expirationCap2038.Sub(now).Truncate(time.Second)
		limit = min(limit, max(left, 0))
	}
	return limit
}
