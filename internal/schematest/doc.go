// Package schematest is test support for kandra's schema builder: it draws
// random schemas, and says what kandra must make of them without asking
// kandra.
//
// A schema is a struct type made at run time with reflect.StructOf and the
// dynamic.Spec (the content of a Describe call) that describes it; a spec
// goes through internal/dynamic into the very builder Register uses.
//
//   - ValidModel draws a spec that every entity rule accepts, with the
//     columns, lookup tables and indexes kandra must build for it.
//   - InvalidCase draws a spec that breaks one or more rules on purpose, and
//     Mutate applies one named mutation; both say which rules are broken and
//     which one the builder must report.
//   - NamesCollide says whether tables put in one keyspace break the
//     keyspace rule name-taken, and KeyspaceRule which keyspace rule a
//     keyspace of given targets refuses them under (name-taken,
//     name-length, ttl-cap, tablets, sai-index); Targets is the targets
//     that accept them.
//
// Which rules a spec breaks is decided by an oracle written here from the
// documented rules (rules.go, target.go, DESIGN.md,
// notes/cql-server-rules.md), never by the builder's code: an independent
// second reading is what lets the property tests catch a wrong check. Only
// facts that are not decisions are taken from kandra: the rule order
// (kandra.Rules), maxTTLSeconds, kandra.MaxColumnNameBytes,
// kandra.MaxSchemaMutationBytes and kandra.TTLHorizon.
//
// The package was called schemagen. In the Cassandra world that name means
// gocqlx's keyspace-to-Go code generator, which this is not.
//
// It is not a _test package so that the integration module can send random
// valid schemas to a real server. Valid models use what the entity rules
// allow and some target takes: table and lookup-table names of up to 192
// characters (the entity rules allow 222, which no target takes for a
// table), index names of up to 222 (a legacy index on Cassandra), counters, Version columns, indexes on blobs, TTLs past 2038, frozen
// collections outside the key (kandra.Frozen, indexed whole). No one
// target accepts them all, so a keyspace of valid models must be built
// for the targets that accept them (Targets), with NetworkTopologyStrategy;
// each valid model is accepted by ScyllaDB 2026.x or Cassandra5Latest at
// least. A table name of up to 16 characters leaves room for any other of
// up to 16 (and a longer one for any as long), so Model.WithTable can
// rename a table to keep names unique in a keyspace.
package schematest
