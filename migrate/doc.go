// Package migrate brings a live keyspace to the schema a kandra.Keyspace
// describes: it reads the live schema (Live), plans the difference as
// ordered steps, each safe, needing approval or impossible in place
// (NewPlan), checks without changing anything (Validate), and applies the
// plan from any number of app instances at once (Apply), backfilling new
// lookup tables (Backfill).
//
// The package is driver-free: it runs through an adapter.Driver, which an
// adapter module implements (driver/kgocql, driver/kgocqlv2). Package migrate/cli mounts the whole
// flow as a subcommand of the user's program.
package migrate
