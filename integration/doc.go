// Package integration proves kandra against a real Cassandra 5.0 node with
// the gocql v1.7.0 driver; see README.md. Its one non-test type, Codec, is
// the per-column conversion a gocql-based runtime needs for the Go types
// gocql v1.7.0 cannot take as kandra hands them over.
package integration
