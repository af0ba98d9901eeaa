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

// nameLimit is the longest table or index name a target accepts, and
// keyspaceLimit the longest keyspace name.
// nameLimit is the longest table (index false) or index name target
// accepts, counted in bytes as the servers count them. ScyllaDB's
// schema::NAME_LENGTH is 48 through 2025.1 and 192 from 2025.2.0
// (schema/schema.hh); index names have a check only from 2025.2.0
// (create_index_statement.cc), against the same 192.
func nameLimit(t Target, index bool) int {
	switch {
	case t&cassandraTargets != 0:
		return 222 // CASSANDRA-20389: 255 - 32 - 1; longer names break on the file system
	case t&(Scylla2025|Scylla2025Tablets) != 0 && !index:
		return 48
	}
	return 192
}

// nameRefusal is what target says of a table or index name over its limit.
func nameRefusal(t Target, index bool, limit int) string {
	switch {
	case t&cassandraTargets != 0:
		return "past 222 characters its file names break on the file system (CASSANDRA-20389)"
	case index:
		return fmt.Sprintf("it answers \"index names shouldn't be more than %d characters long\"", limit)
	}
	return fmt.Sprintf("it answers \"Table names shouldn't be more than %d characters long\"", limit)
}

func keyspaceLimit(t Target) int {
	if t&cassandraTargets != 0 || t&(Scylla2025|Scylla2025Tablets) != 0 {
		return 48
	}
	return 192
}
