package kandra

import (
	"math/bits"
	"strconv"
)

// MaxSchemaMutationBytes is the largest schema mutation kandra lets one
// CREATE TABLE make: Cassandra 5.0's max_mutation_size, which defaults to
// half of commitlog_segment_size (32 MiB). Cassandra writes the rows a
// CREATE TABLE adds to system_schema (one per column in
// system_schema.columns and one in system_schema.column_masks, besides the
// table's and the keyspace's own) as one mutation, and refuses the
// statement when that mutation is larger: "Rejected an oversized mutation
// (N/16777216) for keyspace: system_schema". RuleSchemaSize holds every
// table and lookup table to it.
//
// ScyllaDB writes schema changes to a commit log of its own whose
// segments are 128 MiB (schema_commitlog_segment_size_in_mb,
// scylladb#14704, 2023), which takes mutations of 64 MiB, four times
// Cassandra's limit, and newer releases write one across segments
// (scylladb#22021); how it encodes the same rows was not measured. The
// limit that binds is Cassandra's, and the rule holds it for every target,
// since Register does not know the targets.
const MaxSchemaMutationBytes = 16 << 20

// The size of a CREATE TABLE's schema mutation, as Cassandra 5.0
// serializes it (SchemaKeyspace.makeCreateTableMutation, Mutation.
// serializedSize, plus the commit log's 12-byte entry header, which the
// check "Rejected an oversized mutation" counts). The mutation holds one
// partition update per schema table, keyed by the keyspace name, of
// system_schema.keyspaces (the replication), tables (the options), columns
// and column_masks (a row deletion per column).
//
// Calibrated on Cassandra 5.0.8 with the default cassandra.yaml, whose
// refusal prints the exact size; the per-column cost is read from the
// serializers (UnfilteredSerializer, ClusteringPrefix, Cell) and matches
// every measurement to the byte (TestSchemaMutationCalibration lists them).
const (
	// schemaTableBytes is what a table costs besides its names and
	// columns: the keyspaces row with a NetworkTopologyStrategy map of one
	// datacenter ("datacenter1": 1), the tables row with the default
	// options, the four partition headers and the commit-log header.
	schemaTableBytes = 1017
	// schemaColumnBytes is what a column costs besides its names and type:
	// in its system_schema.columns row the row and cell flags, the
	// clustering header, the timestamp, position (an int) and the lengths
	// of kind and clustering_order; in its column_masks row the flags, the
	// clustering header and the deletion time.
	schemaColumnBytes = 18
	// schemaKeyspacePartitions is how many times the keyspace name is
	// written: once per partition update.
	schemaKeyspacePartitions = 4
)

// What Register cannot know, allowed for so that the estimate never falls
// short of what a server counts.
const (
	// schemaKeyspaceNameBytes is the longest keyspace name a target takes
	// (ScyllaDB 2026.x; Cassandra takes 48).
	schemaKeyspaceNameBytes = 192
	// schemaReplicationBytes covers a replication map larger than the one
	// measured: about 100 more datacenters of 30-byte names.
	schemaReplicationBytes = 4096
	// schemaConfigBytes covers table options a server's configuration
	// adds to the tables row: cassandra_latest.yaml's
	// UnifiedCompactionStrategy parameters (about 250 bytes), cdc, a
	// non-default memtable.
	schemaConfigBytes = 1024
)

// vintBytes is the length of Cassandra's unsigned variable-length
// encoding of n (VIntCoding.computeUnsignedVIntSize): 1 byte up to 127, one
// more per 7 bits.
func vintBytes(n int) int {
	magnitude := bits.LeadingZeros64(uint64(n) | 1)
	return (639 - magnitude*9) >> 6
}

// schemaMutation adds up the size of one table's schema mutation.
type schemaMutation struct {
	table   int // bytes of the table name
	columns int
	bytes   int
}

// newSchemaMutation starts the size of table's mutation in a keyspace
// whose name is keyspace bytes long: what the table costs before its
// columns (the table name is written once in the tables row).
func newSchemaMutation(keyspace int, table string) schemaMutation {
	return schemaMutation{table: len(table), bytes: schemaTableBytes +
		schemaKeyspacePartitions*(keyspace+vintBytes(keyspace)) + len(table) + vintBytes(len(table))}
}

// column adds one column. kind and order are how system_schema.columns
// spells them ("partition_key", "clustering", "regular"; "asc", "desc",
// "none"); typeBytes is the length of the column's CQL type as kandra
// declares it, which is never shorter than the server's spelling (the same
// text in lower case, VARCHAR as text).
func (m *schemaMutation) column(name int, kind, order string, typeBytes int) {
	m.columns++
	m.bytes += 3*(name+vintBytes(name)) + // column_name in both rows' clustering, column_name_bytes
		2*(m.table+vintBytes(m.table)) + // table_name in both rows' clustering
		len(kind) + len(order) + typeBytes + vintBytes(typeBytes) + schemaColumnBytes
}

// comment adds the table's comment, held by its tables row: its bytes and
// their length (schemaTableBytes has the default, empty one, whose cell
// carries no length).
func (m *schemaMutation) comment(c *string) {
	if c != nil && *c != "" {
		m.bytes += len(*c) + vintBytes(len(*c))
	}
}

// estimate is the size with the allowances for the keyspace and the
// server's configuration: never below what Cassandra 5.0 counts, and at
// most about 6 KiB above it.
func (m schemaMutation) estimate() int {
	return m.bytes + schemaReplicationBytes + schemaConfigBytes
}

// columnKind is how system_schema.columns names a column's kind.
func columnKind(r KeyRole) string {
	switch r {
	case PartitionKeyColumn:
		return "partition_key"
	case ClusteringKeyColumn:
		return "clustering"
	}
	return "regular"
}

// columnOrder is how system_schema.columns names a column's clustering
// order.
func columnOrder(c *ColumnSchema) string {
	if c.role != ClusteringKeyColumn {
		return "none"
	}
	if c.order == ClusteringDesc {
		return "desc"
	}
	return "asc"
}

// checkSchemaSize estimates the schema mutation of the table's CREATE
// TABLE and of each lookup table's, and refuses one over
// MaxSchemaMutationBytes.
func (b *builder) checkSchemaSize() error {
	m := newSchemaMutation(schemaKeyspaceNameBytes, b.table)
	for _, c := range b.columns() {
		m.column(len(c.name), columnKind(c.role), columnOrder(c), len(c.Decl()))
	}
	m.comment(b.opts.storage.Comment)
	if est := m.estimate(); est > MaxSchemaMutationBytes {
		return b.fail("", RuleSchemaSize, "table "+strconv.Quote(b.table)+schemaSizeDetail(est, m.columns)+
			"use fewer columns or shorter column names (a column costs about three times its name's length, plus twice the table name's)")
	}
	var keys []*ColumnSchema
	for _, c := range b.columns() {
		if c.role != RegularColumn {
			keys = append(keys, c)
		}
	}
	return b.each(func(c *ColumnSchema, s *fieldSpec) error {
		for _, l := range s.lookups {
			// A lookup table holds the lookup column as its partition key
			// and the primary key's other columns as regular columns
			// (createLookupTable), under a longer table name.
			m := newSchemaMutation(schemaKeyspaceNameBytes, l.name)
			m.column(len(c.name), columnKind(PartitionKeyColumn), "none", len(c.typ.Frozen()))
			for _, k := range keys {
				if k != c {
					m.column(len(k.name), columnKind(RegularColumn), "none", len(k.Decl()))
				}
			}
			if est := m.estimate(); est > MaxSchemaMutationBytes {
				return b.fail(c.goName, RuleSchemaSize, "lookup table "+strconv.Quote(l.name)+schemaSizeDetail(est, m.columns)+
					"use fewer or shorter primary-key column names, or a shorter lookup suffix (a column costs about three times its name's length, plus twice the table name's)")
			}
		}
		return nil
	})
}

func schemaSizeDetail(est, columns int) string {
	return " makes a schema mutation of an estimated " + strconv.Itoa(est) + " bytes (" + strconv.Itoa(columns) +
		" columns), over " + strconv.Itoa(MaxSchemaMutationBytes) + " (MaxSchemaMutationBytes): Cassandra 5.0 refuses a CREATE TABLE whose schema mutation passes max_mutation_size (\"Rejected an oversized mutation\"); "
}
