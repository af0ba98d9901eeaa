package schematest

import (
	"strings"
	"time"

	"github.com/kandra-go/kandra"
)

// The keyspace oracle: which keyspace rules the tables of valid models
// break when they are put in one keyspace, for the keyspace's targets.
// Like the entity oracle it is written from the rules' documentation
// (rules.go, target.go, the API notes), not from keyspace.go; only the rule
// order is taken from kandra.Rules().
//
// It judges keyspaces whose own settings every rule accepts: a keyspace
// name KeyspaceName, NetworkTopologyStrategy with a replica, no Tablets
// option. The tables' rules are then name-taken, name-length, ttl-cap,
// tablets and sai-index.

// targetList is every target, in a fixed order.
var targetList = []kandra.Target{
	kandra.Cassandra5, kandra.Cassandra5Latest, kandra.Scylla2025, kandra.Scylla2025Tablets,
	kandra.Scylla2026, kandra.Scylla2026Tablets,
}

// KeyspaceName is the keyspace name the oracle judges with: Cassandra's
// table-name limit counts the keyspace's name too.
const KeyspaceName = "ks"

// Cassandra 5.0's name limits are where the file names it makes pass 255
// bytes: the Paxos state file of a table's lightweight transactions,
// {keyspace}-{table}-{36-character id}-{generation of up to 19
// digits}.paxos.crc.tmp, and a storage-attached index's files,
// {sstable of up to 36 characters}-SAI+aa+{index}+{component of up to
// 22}.db, with room for a .tmp suffix. A legacy index's files are named
// after the table's directory (222).
const (
	cassandraTableAndKeyspace = 255 - 3 - 36 - 19 - 14 // 183
	cassandraSAIIndex         = 255 - 36 - 8 - 22 - 3 - 4
)

// nameLimit is the longest table or lookup-table name target accepts in
// keyspace ks: on Cassandra 5.0 183 with the keyspace's name, on ScyllaDB
// 48 on 2025.x, 192 on 2026.x.
func nameLimit(target kandra.Target, ks string) int {
	switch target {
	case kandra.Cassandra5, kandra.Cassandra5Latest:
		return min(maxName, cassandraTableAndKeyspace-len(ks))
	case kandra.Scylla2025, kandra.Scylla2025Tablets:
		return 48
	}
	return 192
}

// indexNameLimit is the longest name target accepts for an index of kind:
// ScyllaDB checks index names only from 2025.2, against 192; on Cassandra
// an index that is storage-attached there (UsingSAI, or the default kind on
// Cassandra5Latest) has 182, a legacy one 222.
func indexNameLimit(target kandra.Target, kind kandra.IndexKind) int {
	switch {
	case target != kandra.Cassandra5 && target != kandra.Cassandra5Latest:
		return 192
	case kind == kandra.IndexSAI || kind == kandra.IndexVector || kind == kandra.IndexDefault && target == kandra.Cassandra5Latest:
		return cassandraSAIIndex
	}
	return maxName
}

// longestTableName is the longest table or lookup-table name of m.
func (m Model) longestTableName() int {
	n := len(m.Table)
	for _, l := range m.Lookups {
		n = max(n, len(l.Table))
	}
	return n
}

// indexNameTooLong reports an index of m whose name target refuses.
func (m Model) indexNameTooLong(target kandra.Target) bool {
	for _, c := range m.Columns {
		if c.Indexed && len(IndexName(m.Table, c.Name)) > indexNameLimit(target, c.IndexKind) {
			return true
		}
	}
	return false
}

// TTLMargin is how close to the ttl-cap boundary a TTL may lie before the
// oracle is unsure of Cassandra5's verdict: kandra reads its own clock, a
// little later than the caller's now.
const TTLMargin = time.Hour

// cap2038 is the latest expiration Cassandra 5.0 accepts under its default
// storage_compatibility_mode CASSANDRA_4.
var cap2038 = time.Date(2038, 1, 19, 3, 14, 6, 0, time.UTC)

// ttlCapped says whether Cassandra5 refuses a TTL of ttl seconds at now:
// writes with it must keep working kandra.TTLHorizon from now. sure is
// false within TTLMargin of the boundary.
func ttlCapped(ttl int, now time.Time) (refused, sure bool) {
	expiry := now.Add(kandra.TTLHorizon + time.Duration(ttl)*time.Second)
	d := expiry.Sub(cap2038)
	return d > 0, d > TTLMargin || d < -TTLMargin
}

// names are every table, lookup-table and index name of m.
func (m Model) names() []string {
	out := []string{m.Table}
	for _, l := range m.Lookups {
		out = append(out, l.Table)
	}
	for _, c := range m.Indexes {
		out = append(out, IndexName(m.Table, c))
	}
	return out
}

// LongestName is the length of the longest table, lookup-table or index
// name of m.
func (m Model) LongestName() int {
	n := 0
	for _, s := range m.names() {
		n = max(n, len(s))
	}
	return n
}

// saiRefused reports an index a storage-attached index cannot be: on a
// column whose type is or holds a BLOB, or whose name is not 1 to 48 ASCII
// letters, digits or underscores.
func (m Model) saiRefused() bool {
	for _, c := range m.Columns {
		if c.Indexed && c.IndexKind == kandra.IndexDefault && (strings.Contains(c.Type, "BLOB") || !plainName(c.Name)) {
			return true
		}
	}
	return false
}

// explicitIndexKind reports an index that asks for SAI or the legacy
// kind, which only Cassandra has.
func (m Model) explicitIndexKind() bool {
	for _, c := range m.Columns {
		if c.Indexed && c.IndexKind != kandra.IndexDefault {
			return true
		}
	}
	return false
}

// hasVector reports a vector column.
func (m Model) hasVector() bool {
	for _, c := range m.Columns {
		if strings.HasPrefix(c.Type, "VECTOR<") {
			return true
		}
	}
	return false
}

// plainName reports a name of 1 to 48 ASCII letters, digits or underscores.
func plainName(s string) bool {
	if s == "" || len(s) > 48 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// refuses says whether the rule refuses m on target: false for a rule that
// does not serve target.
func (m Model) refuses(rule kandra.Rule, target kandra.Target, now time.Time) (refused, sure bool) {
	switch rule {
	case kandra.RuleNameLength:
		return m.longestTableName() > nameLimit(target, KeyspaceName) || m.indexNameTooLong(target), true
	case kandra.RuleTTLCap:
		if target != kandra.Cassandra5 {
			return false, true
		}
		sure = true
		for _, ttl := range []*int{m.TTL, m.SoftDeleteTTL} {
			if ttl == nil {
				continue
			}
			r, s := ttlCapped(*ttl, now)
			if r && s {
				return true, true
			}
			refused, sure = refused || r, sure && s
		}
		return refused, sure
	case kandra.RuleTablets:
		// With NetworkTopologyStrategy, only ScyllaDB 2025.x with tablets
		// refuses anything: counters, lightweight transactions (a Version
		// column, a unique lookup's claims) and secondary indexes.
		unique := false
		for _, l := range m.Lookups {
			unique = unique || l.Unique
		}
		return target == kandra.Scylla2025Tablets && (m.Counter || m.Version || unique || len(m.Indexes) > 0), true
	case kandra.RuleSAIIndex:
		return target == kandra.Cassandra5Latest && m.saiRefused(), true
	case kandra.RuleIndexKind:
		return target&scyllaTargets != 0 && m.explicitIndexKind(), true
	case kandra.RuleVectorTarget:
		// ScyllaDB 2025.1 has no vector type; the generator's vectors
		// are far below 2026.x's limit, and it draws no ANN index.
		return (target == kandra.Scylla2025 || target == kandra.Scylla2025Tablets) && m.hasVector(), true
	}
	return false, true
}

// KeyspaceRule is the rule NewKeyspace must report for the tables of ms,
// in that order, in a keyspace for targets (which must be valid) at clock
// now: the first keyspace rule in kandra.Rules() order that one of the
// targets refuses, or "" when the keyspace is accepted. sure is false when
// the answer hangs on a TTL within TTLMargin of Cassandra5's cap.
func KeyspaceRule(targets kandra.Target, now time.Time, ms ...Model) (rule kandra.Rule, sure bool) {
	if !targets.IsValid() {
		panic("schematest: KeyspaceRule needs valid targets, not " + targets.String())
	}
	sure = true
	for _, r := range kandra.Rules() {
		if r.Scope != kandra.KeyspaceScope {
			continue
		}
		if r.Rule == kandra.RuleNameTaken {
			if NamesCollide(ms...) {
				return r.Rule, sure
			}
			continue
		}
		if r.Rule == kandra.RuleOptionTarget {
			// An option a target lacks; compression and CDC are
			// spelled per server, so they take targets of one.
			for _, m := range ms {
				if m.dialectOptions() && targets&cassandraTargets != 0 && targets&scyllaTargets != 0 {
					return r.Rule, sure
				}
				for _, t := range targetList {
					if targets&t != 0 && m.storage.refusedOn(t) {
						return r.Rule, sure
					}
				}
			}
			continue
		}
		for _, t := range targetList {
			if targets&t == 0 {
				continue
			}
			for _, m := range ms {
				refused, s := m.refuses(r.Rule, t, now)
				if !s {
					sure = false // this rule, or a later one
					continue
				}
				if refused {
					return r.Rule, sure
				}
			}
		}
	}
	return "", sure
}

// Targets is every target that accepts the tables of ms in one keyspace at
// clock now (KeyspaceRule is ""), leaving out those the oracle is unsure
// of. It is 0 when no target accepts them. A keyspace with these targets
// (and NetworkTopologyStrategy) must accept the tables: the keyspaces of
// valid models should be built with it. ValidModel draws models that at
// least Scylla2026 or Cassandra5Latest accepts.
func Targets(now time.Time, ms ...Model) kandra.Target {
	var out kandra.Target
	for _, t := range targetList {
		if r, sure := KeyspaceRule(t, now, ms...); r == "" && sure {
			out |= t
		}
	}
	// Compression is spelled per server: one server's targets, Cassandra's
	// where any takes the tables.
	for _, m := range ms {
		if m.dialectOptions() && out&cassandraTargets != 0 {
			return out & cassandraTargets
		}
	}
	return out
}

const (
	cassandraTargets = kandra.Cassandra5 | kandra.Cassandra5Latest
	scyllaTargets    = kandra.Scylla2025 | kandra.Scylla2025Tablets | kandra.Scylla2026 | kandra.Scylla2026Tablets
)

// Targets is Targets(now, m).
func (m Model) Targets(now time.Time) kandra.Target { return Targets(now, m) }
