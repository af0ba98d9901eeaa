package kandra

// The package's own tests build run-time schemas (internal/dynamic)
// without the kandra_dynamic tag.
func init() { installDynamic() }
