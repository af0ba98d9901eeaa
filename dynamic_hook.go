//go:build kandra_dynamic

package kandra

// Tests outside package kandra (the migrator's, the adapters', the
// integration suite, the benchmarks) build run-time schemas through
// internal/dynamic; they are built with this tag, which no user sets.
func init() { installDynamic() }
