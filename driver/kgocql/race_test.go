//go:build race

package kgocql_test

// raceEnabled: the race detector's sync.Pool drops a quarter of what is
// put back, so a pooled call allocates by chance: allocation counts are
// not measured under it.
const raceEnabled = true
