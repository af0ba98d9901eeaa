package kandra

import (
	"fmt"
	"strings"
	"time"
)

// Target is a server, in a configuration, that a keyspace must work on.
// Targets combine with |: a keyspace's targets are the set of servers its
// statements and writes must be accepted by. Each rule of the rule table
// says which targets it serves (RuleInfo.Targets); a keyspace is checked
// against the rules of its targets only.
//
// The zero value means AllTargets: a keyspace that works on every server
// kandra knows, which is the strictest promise.
type Target uint16

const (
	// Cassandra5 is Apache Cassandra 5.0 with the shipped cassandra.yaml:
	// storage_compatibility_mode CASSANDRA_4 (expirations capped at
	// 2038-01-19T03:14:06Z) and legacy secondary indexes by default.
	Cassandra5 Target = 1 << iota
	// Cassandra5Latest is Apache Cassandra 5.0 with the settings of
	// cassandra_latest.yaml: storage_compatibility_mode NONE (expirations
	// capped at 2106-02-07) and default_secondary_index sai.
	Cassandra5Latest
	// Scylla2025 is ScyllaDB 2025.1 to 2025.4 with a keyspace that does not
	// use tablets (vnodes).
	Scylla2025
	// Scylla2025Tablets is ScyllaDB 2025.1 to 2025.4 with a keyspace that
	// uses tablets, the default for new keyspaces.
	Scylla2025Tablets
	// Scylla2026 is ScyllaDB 2026.1 to 2026.3 with a keyspace that does not
	// use tablets.
	Scylla2026
	// Scylla2026Tablets is ScyllaDB 2026.1 to 2026.3 with a keyspace that
	// uses tablets, the default for new keyspaces.
	Scylla2026Tablets

	// AllTargets is every target: the default.
	AllTargets = Cassandra5 | Cassandra5Latest | Scylla2025 | Scylla2025Tablets | Scylla2026 | Scylla2026Tablets

	cassandraTargets = Cassandra5 | Cassandra5Latest
	scyllaTargets    = Scylla2025 | Scylla2025Tablets | Scylla2026 | Scylla2026Tablets
	tabletTargets    = Scylla2025Tablets | Scylla2026Tablets
)

var targetNames = []struct {
	t    Target
	name string
}{
	{Cassandra5, "Cassandra 5.0"},
	{Cassandra5Latest, "Cassandra 5.0 (cassandra_latest.yaml)"},
	{Scylla2025, "ScyllaDB 2025.x"},
	{Scylla2025Tablets, "ScyllaDB 2025.x with tablets"},
	{Scylla2026, "ScyllaDB 2026.x"},
	{Scylla2026Tablets, "ScyllaDB 2026.x with tablets"},
}

// Has reports whether every target of u is in t.
func (t Target) Has(u Target) bool { return t&u == u && u != 0 }

// String lists the targets, "Cassandra 5.0, ScyllaDB 2025.x", or "every
// target" for AllTargets; bits that name no target print as Target(n).
func (t Target) String() string {
	if t == AllTargets {
		return "every target"
	}
	var names []string
	rest := t
	for _, n := range targetNames {
		if t&n.t != 0 {
			names = append(names, n.name)
			rest &^= n.t
		}
	}
	if rest != 0 || t == 0 {
		names = append(names, invalidEnum("Target", uint64(rest)))
	}
	return strings.Join(names, ", ")
}

// IsValid reports whether t is a non-empty set of known targets.
func (t Target) IsValid() bool { return t != 0 && t&^AllTargets == 0 }

// Tablets is a keyspace's choice of ScyllaDB data distribution, rendered
// as the keyspace's tablets option.
type Tablets uint8

const (
	// TabletsUnset renders no tablets option: ScyllaDB then uses its
	// default, which is tablets for new keyspaces.
	TabletsUnset Tablets = iota
	// TabletsDisabled renders AND tablets = {'enabled': false}: a vnodes
	// keyspace on ScyllaDB. Cassandra refuses the option, so the
	// keyspace's targets must all be ScyllaDB targets.
	TabletsDisabled
	// TabletsEnabled renders AND tablets = {'enabled': true}.
	TabletsEnabled
)

// IsValid reports whether t is one of the three choices.
func (t Tablets) IsValid() bool { return t <= TabletsEnabled }

// String returns "unset", "disabled" or "enabled", or "Tablets(n)".
func (t Tablets) String() string {
	switch t {
	case TabletsUnset:
		return "unset"
	case TabletsDisabled:
		return "disabled"
	case TabletsEnabled:
		return "enabled"
	}
	return invalidEnum("Tablets", uint64(t))
}

// Facts of the targets, used by the keyspace rules.
var (
	// expirationCap2038 is the latest expiration Cassandra 5.0 accepts
	// under storage_compatibility_mode CASSANDRA_4 (its default): writes
	// whose now + TTL lies past it fail, a table's default TTL included.
	expirationCap2038 = time.Date(2038, 1, 19, 3, 14, 6, 0, time.UTC)
	// Under storage_compatibility_mode NONE the cap is 2106-02-07, which no
	// TTL up to MaxTTL reaches before 2086: no rule needs it.
)

// TTLHorizon is how long a TTL accepted today must keep working on a
// target whose expirations are capped at a date: a write with a TTL fails
// once now + TTL passes the cap, so a TTL is accepted only when writes
// with it still succeed TTLHorizon after the keyspace is built. A TTL
// that passes this check can still start failing later, on the cap's
// date minus the TTL; RuleTTLCap says when, and how to avoid it.
const TTLHorizon = 365 * 24 * time.Hour

// timeNow is the clock of the TTL cap rule; tests replace it.
var timeNow = time.Now

// nameKind is what a name checked by RuleNameLength names: the file names a
// server makes from it differ.
type nameKind uint8

const (
	tableName    nameKind = iota // a table or a lookup table
	indexName                    // an index Cassandra keeps in a table of its own, or any index on ScyllaDB
	saiIndexName                 // a storage-attached index (SAI) on Cassandra
)

// fileNameMax is the longest file name the file systems a server runs on
// take (NAME_MAX, 255 bytes on ext4 and XFS).
const fileNameMax = 255

// paxosNamesMax is the longest keyspace and table name together that
// Cassandra 5.0 can name a table's Paxos state file with. After a
// lightweight transaction on the table, the node writes the state to
// system/_paxos_repair_state/{keyspace}-{table}-{table id}-{generation}.paxos,
// first as that name plus .crc.tmp: three dashes, a 36-character id, a
// generation of up to 19 digits (a long) and 14 more characters. Past it the
// flush of that state fails with "File name too long" on every try, and the
// commit log segments that hold it are never recycled.
const paxosNamesMax = fileNameMax - 3 - 36 - 19 - len(".paxos.crc.tmp") // 183

// saiIndexNameMax is the longest name of a storage-attached index whose
// files Cassandra 5.0 can write. Each SSTable of the table gets per index
// {version}-{id}-{format}-SAI+aa+{index}+{component}.db: up to 36
// characters before "-SAI" (an SSTable id is up to 28 characters with
// uuid_sstable_identifiers_enabled), 8 for "SAI+aa+" and "+", and room here
// for the longest SAI component name (22), ".db" and a ".tmp" suffix. Past
// it the index's flush fails with "File name too long" and the index
// misses what was flushed.
const saiIndexNameMax = fileNameMax - 36 - 8 - 22 - len(".db") - len(".tmp") // 182

// nameLimit is the longest name of kind that target accepts in the
// keyspace ks, counted in bytes as the servers count them, and why a
// longer one fails there. ScyllaDB's schema::NAME_LENGTH is 48 through
// 2025.1 and 192 from 2025.2.0 (schema/schema.hh); index names have a
// check only from 2025.2.0 (create_index_statement.cc), against the same
// 192. Cassandra 5.0 checks no length at all: its limits are where the
// file names it makes from the names pass fileNameMax.
func nameLimit(t Target, kind nameKind, ks string) (limit int, why string) {
	switch {
	case t&cassandraTargets != 0 && kind == tableName:
		// Below CASSANDRA-20389's 222 for any keyspace name (1 to 48).
		return paxosNamesMax - len(ks), fmt.Sprintf("with the keyspace's name (%d characters) it passes %d, past which the file of a lightweight transaction's Paxos state for the table (system/_paxos_repair_state/{keyspace}-{table}-{id}-{generation}.paxos.crc.tmp) is longer than the file system's %d bytes: the node then fails every flush of that state (\"File name too long\") and never recycles the commit log segments holding it", len(ks), paxosNamesMax, fileNameMax)
	case t&cassandraTargets != 0 && kind == saiIndexName:
		return saiIndexNameMax, fmt.Sprintf("the index is storage-attached there, and past %d characters the names of its files ({sstable}-SAI+aa+{index}+{component}.db) pass the file system's %d bytes: the node fails the index's flushes (\"File name too long\") and the index misses what was flushed", saiIndexNameMax, fileNameMax)
	case t&cassandraTargets != 0:
		return 222, "past 222 characters its file names break on the file system (CASSANDRA-20389)"
	case kind != tableName:
		return 192, "it answers \"index names shouldn't be more than 192 characters long\""
	case t&(Scylla2025|Scylla2025Tablets) != 0:
		return 48, "it answers \"Table names shouldn't be more than 48 characters long\""
	}
	return 192, "it answers \"Table names shouldn't be more than 192 characters long\""
}

func keyspaceLimit(t Target) int {
	if t&cassandraTargets != 0 || t&(Scylla2025|Scylla2025Tablets) != 0 {
		return 48
	}
	return 192
}
