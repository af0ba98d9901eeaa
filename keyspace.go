package kandra

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Replication is a keyspace's replication strategy, built with
// SimpleStrategy or NetworkTopologyStrategy.
type Replication struct {
	simple int
	dcs    map[string]int
	nts    bool // NetworkTopologyStrategy, even with an empty map
}

// SimpleStrategy places factor replicas on consecutive nodes of the ring,
// ignoring datacenters: for a single-datacenter or test cluster.
func SimpleStrategy(factor int) Replication { return Replication{simple: factor} }

// NetworkTopologyStrategy sets a replication factor per datacenter, for
// production clusters. Cassandra 4.0 and later reject a datacenter name the
// cluster does not know.
func NetworkTopologyStrategy(factors map[string]int) Replication {
	return Replication{dcs: maps.Clone(factors), nts: true}
}

// IsNetworkTopology reports a NetworkTopologyStrategy replication.
func (r Replication) IsNetworkTopology() bool { return r.nts }

// SimpleFactor is the replication factor of a SimpleStrategy replication
// (0 for NetworkTopologyStrategy).
func (r Replication) SimpleFactor() int { return r.simple }

// Datacenters returns the replication factor per datacenter of a
// NetworkTopologyStrategy replication (a fresh map; nil for SimpleStrategy).
func (r Replication) Datacenters() map[string]int { return maps.Clone(r.dcs) }

// Equal reports whether r and o replicate alike: the same strategy and
// factors.
func (r Replication) Equal(o Replication) bool {
	return r.nts == o.nts && r.simple == o.simple && maps.Equal(r.dcs, o.dcs)
}

// String renders the replication for messages: "SimpleStrategy
// replication_factor=3", "NetworkTopologyStrategy dc1=3 dc2=2".
func (r Replication) String() string {
	if !r.nts {
		return "SimpleStrategy replication_factor=" + strconv.Itoa(r.simple)
	}
	out := "NetworkTopologyStrategy"
	for _, dc := range slices.Sorted(maps.Keys(r.dcs)) {
		out += " " + dc + "=" + strconv.Itoa(r.dcs[dc])
	}
	return out
}

// ParseReplication reads a replication map as system_schema.keyspaces
// stores it ({"class": "org.apache.cassandra.locator.SimpleStrategy",
// "replication_factor": "3"}; the class with or without its package) into
// a Replication. A map no Replication describes is an error that says
// why: another strategy (LocalStrategy, EverywhereStrategy), an option a
// strategy does not take, or a factor that is not a whole number of
// replicas (transient replication's "3/1").
func ParseReplication(m map[string]string) (Replication, error) {
	class := m["class"]
	short := class[strings.LastIndexByte(class, '.')+1:]
	factor := func(k, v string) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return 0, fmt.Errorf("kandra: replication factor %s=%q is not a whole number of replicas (transient replication, \"3/1\", has no Replication)", k, v)
		}
		return n, nil
	}
	switch short {
	case "SimpleStrategy":
		for k := range m {
			if k != "class" && k != "replication_factor" {
				return Replication{}, fmt.Errorf("kandra: SimpleStrategy replication with option %q, which no Replication holds", k)
			}
		}
		n, err := factor("replication_factor", m["replication_factor"])
		if err != nil {
			return Replication{}, err
		}
		return SimpleStrategy(n), nil
	case "NetworkTopologyStrategy":
		dcs := map[string]int{}
		for k, v := range m {
			if k == "class" {
				continue
			}
			n, err := factor(k, v)
			if err != nil {
				return Replication{}, err
			}
			dcs[k] = n
		}
		return NetworkTopologyStrategy(dcs), nil
	}
	return Replication{}, fmt.Errorf("kandra: replication class %q is neither SimpleStrategy nor NetworkTopologyStrategy, the two a KeyspaceSpec declares", class)
}

// KeyspaceSpec says what a keyspace is, apart from its tables.
type KeyspaceSpec struct {
	// Name is the keyspace's name.
	Name string
	// Replication is how the keyspace's data is replicated.
	Replication Replication
	// Targets are the servers the keyspace must work on; the zero value
	// means AllTargets, the strictest promise. A Cassandra-only keyspace
	// (Cassandra5 | Cassandra5Latest) may, for example, use index names
	// over 48 characters and SimpleStrategy.
	Targets Target
	// Tablets renders ScyllaDB's tablets option; TabletsUnset renders
	// none. It narrows the ScyllaDB targets to those it selects (vnodes or
	// tablets) and needs ScyllaDB-only Targets, since Cassandra refuses it.
	Tablets Tablets
}

// targets is the set of targets the spec's rules are checked against:
// Targets (all when zero), narrowed by the tablets choice.
func (s KeyspaceSpec) targets() Target {
	t := s.Targets
	if t == 0 {
		t = AllTargets
	}
	switch s.Tablets {
	case TabletsDisabled:
		t &^= tabletTargets
	case TabletsEnabled:
		t &^= scyllaTargets &^ tabletTargets
	}
	return t
}

// Keyspace is one keyspace: its spec (name, replication, targets) and the
// tables in it. It is the unit the keyspace-wide rules apply to (a table
// or index name is used once per keyspace; what the targets refuse) and
// the unit a schema is created or migrated in. Build it with NewKeyspace;
// it is immutable. One registered type may be in several keyspaces, and
// two types may share a table name in different keyspaces.
type Keyspace struct {
	spec   KeyspaceSpec
	tables []*TableSchema
	types  []CQLType // the user-defined types, each after the types it holds
}

// SchemaSource is what NewKeyspace and the Keyspace's DDL methods take a
// table from: a *Table[T] from Register, or a *TableSchema. Only those two
// implement it.
type SchemaSource interface {
	tableSchema() *TableSchema
}

func (t *TableSchema) tableSchema() *TableSchema { return t }
func (t *Table[T]) tableSchema() *TableSchema    { return t.schema }

// NewKeyspace checks the keyspace rules (see Rules) on the spec and the
// tables, in the order given, against the spec's targets, and returns the
// keyspace. A broken rule is a *SchemaError that names the rule, the
// target that refuses and, for a name used twice, both entity types. A nil
// table is a programmer error: NewKeyspace panics, naming it.
//
//	app, err := kandra.NewKeyspace(kandra.KeyspaceSpec{
//		Name:        "app",
//		Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3}),
//	}, Users, Todos)
func NewKeyspace(spec KeyspaceSpec, tables ...SchemaSource) (*Keyspace, error) {
	k := &keyspaceBuilder{spec: spec, targets: spec.targets()}
	k.spec.Replication.dcs = maps.Clone(spec.Replication.dcs)
	for i, src := range tables {
		if src == nil || src.tableSchema() == nil {
			panic("kandra: NewKeyspace: table " + strconv.Itoa(i) + " is nil")
		}
		k.tables = append(k.tables, src.tableSchema())
	}
	if err := k.check(); err != nil {
		return nil, err
	}
	return &Keyspace{spec: k.spec, tables: k.tables, types: k.types}, nil
}

// MustNewKeyspace is NewKeyspace for keyspaces fixed in the program; it
// panics with the schema error.
func MustNewKeyspace(spec KeyspaceSpec, tables ...SchemaSource) *Keyspace {
	k, err := NewKeyspace(spec, tables...)
	if err != nil {
		panic(err)
	}
	return k
}

// Name is the keyspace's name.
func (k *Keyspace) Name() string { return k.spec.Name }

// Spec returns the keyspace's spec, with Targets made explicit.
func (k *Keyspace) Spec() KeyspaceSpec {
	s := k.spec
	s.Replication.dcs = maps.Clone(s.Replication.dcs)
	if s.Targets == 0 {
		s.Targets = AllTargets
	}
	return s
}

// Targets are the servers the keyspace's rules were checked against: the
// spec's Targets (AllTargets when zero), narrowed by its Tablets choice.
func (k *Keyspace) Targets() Target { return k.spec.targets() }

// Replication is the keyspace's replication.
func (k *Keyspace) Replication() Replication { return k.Spec().Replication }

// Tables returns the keyspace's tables in the order given to NewKeyspace
// (a fresh slice).
func (k *Keyspace) Tables() []*TableSchema { return clone(k.tables) }

// Has reports whether t is one of the keyspace's tables (the very schema
// given to NewKeyspace, not just one with its name).
func (k *Keyspace) Has(t SchemaSource) bool {
	return t != nil && t.tableSchema() != nil && slices.Contains(k.tables, t.tableSchema())
}

// LookupTable returns the lookup table with the given name (its
// LookupTableSchema.Table is the table it belongs to), or nil.
func (k *Keyspace) LookupTable(name string) *LookupTableSchema {
	for _, t := range k.tables {
		for _, l := range t.lookups {
			if l.name == name {
				return l
			}
		}
	}
	return nil
}

// Table returns the table with the given name, or nil.
func (k *Keyspace) Table(name string) *TableSchema {
	for _, t := range k.tables {
		if t.name == name {
			return t
		}
	}
	return nil
}

// Statements returns every statement that creates the keyspace, in
// dependency order: CREATE KEYSPACE, then every primary table, then every
// lookup table, then every secondary index, each table in the order given
// to NewKeyspace and qualified with the keyspace's name. Each statement is
// IF NOT EXISTS, so running them again changes nothing; a changed schema
// needs a migration, not these.
//
// The CREATE KEYSPACE is CreateKeyspace's: for a keyspace whose targets
// mix Cassandra and ScyllaDB it is Cassandra's form, without ScyllaDB's
// tablets option; on ScyllaDB use StatementsOn (migrate.Apply does).
func (k *Keyspace) Statements() []string { return k.statements(k.CreateKeyspace()) }

// StatementsOn is Statements with the CREATE KEYSPACE of CreateKeyspaceOn
// for the server that serves the targets server.
func (k *Keyspace) StatementsOn(server Target) []string {
	return k.statements(k.CreateKeyspaceOn(server))
}

func (k *Keyspace) statements(create string) []string {
	s := k.ddl()
	out := []string{create}
	for _, t := range k.types {
		out = append(out, createType(t, s))
	}
	for _, t := range k.tables {
		out = append(out, createTable(t, s))
	}
	for _, t := range k.tables {
		for _, l := range t.lookups {
			out = append(out, createLookupTable(l, s))
		}
	}
	for _, t := range k.tables {
		for _, c := range t.indexes {
			out = append(out, createIndex(t, c, s))
		}
	}
	return out
}

// Which data distribution a ScyllaDB server gives a new keyspace is the
// server's configuration (tablets_mode_for_new_keyspaces, "enabled" in the
// shipped scylla.yaml, so tablets by default), not something a spec may
// leave unset: kandra renders the tablets option whenever the targets
// allow only one distribution on the server, so that the keyspace is what
// its rules were checked for.

// TabletsOn is the tablets choice CreateKeyspaceOn(server) states, server
// being the set of targets one server may be (see CreateKeyspaceOn):
// TabletsUnset when the statement leaves it to the server (always on
// Cassandra).
func (k *Keyspace) TabletsOn(server Target) Tablets {
	if k.spec.Tablets != TabletsUnset || server&cassandraTargets != 0 {
		return k.spec.Tablets // Cassandra refuses the option (NewKeyspace saw to it)
	}
	s := k.Targets() & server & scyllaTargets
	switch {
	case s == 0:
		return TabletsUnset // not a target: the migrator refuses it first
	case s&tabletTargets == 0:
		return TabletsDisabled // vnodes only: say so, the server would pick tablets
	case s&^tabletTargets == 0:
		return TabletsEnabled // tablets only: say so, whatever the server's default
	case s&Scylla2025 != 0:
		// Both are checked, and 2025.x refuses lightweight transactions in
		// a tablets keyspace (the migrator's lease is one): vnodes.
		return TabletsDisabled
	}
	return TabletsUnset // 2026.x, both checked: the server's own choice
}

// CreateKeyspace renders the keyspace's CREATE KEYSPACE IF NOT EXISTS for
// every target at once, when one statement can serve them all: with the
// tablets option on ScyllaDB-only targets (see CreateKeyspaceOn), without
// it when a target is Cassandra, which refuses the option. A keyspace
// whose targets mix the two needs CreateKeyspaceOn on ScyllaDB.
func (k *Keyspace) CreateKeyspace() string {
	if k.Targets()&cassandraTargets != 0 {
		return renderKeyspace(k.spec, k.spec.Tablets)
	}
	return renderKeyspace(k.spec, k.TabletsOn(scyllaTargets))
}

// CreateKeyspaceOn renders the CREATE KEYSPACE IF NOT EXISTS for the server
// that serves the targets server: Cassandra5|Cassandra5Latest for a
// Cassandra node, Scylla2025|Scylla2025Tablets or
// Scylla2026|Scylla2026Tablets for a ScyllaDB node of that year (or both
// years' when its version is unknown); 0, a server not known, is
// CreateKeyspace. On ScyllaDB it states the
// distribution whenever the keyspace's targets on that server allow only
// one, and prefers vnodes on 2025.x when they allow both (2025.x refuses
// lightweight transactions in a tablets keyspace); the Tablets of the spec
// wins when set.
func (k *Keyspace) CreateKeyspaceOn(server Target) string {
	if server == 0 {
		return k.CreateKeyspace()
	}
	return renderKeyspace(k.spec, k.TabletsOn(server))
}

func renderKeyspace(spec KeyspaceSpec, tablets Tablets) string {
	r := spec.Replication
	var b strings.Builder
	b.WriteString("CREATE KEYSPACE IF NOT EXISTS ")
	b.WriteString(QuoteIdent(spec.Name))
	writeReplication(&b, r)
	switch tablets {
	case TabletsDisabled:
		b.WriteString(" AND tablets = {'enabled': false}")
	case TabletsEnabled:
		b.WriteString(" AND tablets = {'enabled': true}")
	}
	b.WriteString(";")
	return b.String()
}

// writeReplication writes " WITH replication = {...}" for r.
func writeReplication(b *strings.Builder, r Replication) {
	b.WriteString(" WITH replication = {'class': ")
	if !r.nts {
		b.WriteString("'SimpleStrategy', 'replication_factor': ")
		b.WriteString(strconv.Itoa(r.simple))
	} else {
		b.WriteString("'NetworkTopologyStrategy'")
		for _, dc := range slices.Sorted(maps.Keys(r.dcs)) { // deterministic output
			b.WriteString(", ")
			b.WriteString(quoteLiteral(dc))
			b.WriteString(": ")
			b.WriteString(strconv.Itoa(r.dcs[dc]))
		}
	}
	b.WriteString("}")
}

// AlterKeyspace renders the ALTER KEYSPACE ... WITH replication statement
// that gives the live keyspace the model's replication. The migrator never
// runs it (it moves data between nodes, which only a full repair
// completes): its plan names it in an impossible step's manual path.
func (k *Keyspace) AlterKeyspace() string {
	var b strings.Builder
	b.WriteString("ALTER KEYSPACE ")
	b.WriteString(QuoteIdent(k.spec.Name))
	writeReplication(&b, k.spec.Replication)
	b.WriteString(";")
	return b.String()
}

// keyspaceBuilder runs the keyspace rows of ruleTable.
type keyspaceBuilder struct {
	spec    KeyspaceSpec
	targets Target // spec.targets()
	tables  []*TableSchema
	types   []CQLType // set by checkTypeNames
}

func (k *keyspaceBuilder) check() error {
	for _, r := range ruleTable {
		if r.keyspace == nil || r.Targets&k.targets == 0 && k.targets.IsValid() {
			continue
		}
		if err := r.keyspace(k); err != nil {
			return err
		}
	}
	return nil
}

func (k *keyspaceBuilder) fail(rule Rule, detail string) error {
	return &SchemaError{Entity: "keyspace " + strconv.Quote(k.spec.Name), Rule: rule, Detail: detail}
}

// each calls fn for every target of the keyspace that is also in among,
// in a fixed order, and stops at the first error.
func (k *keyspaceBuilder) each(among Target, fn func(t Target) error) error {
	for _, n := range targetNames {
		if k.targets&among&n.t != 0 {
			if err := fn(n.t); err != nil {
				return err
			}
		}
	}
	return nil
}

// isSystemKeyspace reports the names servers keep for themselves. Cassandra
// compares them case-insensitively ("System keyspace 'System' is not
// user-modifiable"); every one starts with system_ or is system.
func isSystemKeyspace(name string) bool {
	l := strings.ToLower(name)
	return l == "system" || strings.HasPrefix(l, "system_")
}

func (k *keyspaceBuilder) checkName() error {
	name := k.spec.Name
	if p := nameCharsProblem(name); p != "" {
		return k.fail(RuleKeyspaceName, "the keyspace name "+p)
	}
	if isSystemKeyspace(name) {
		return k.fail(RuleKeyspaceName, "the keyspace name "+strconv.Quote(name)+" is a system keyspace's (system or system_*, compared without case); servers do not let users create tables there: pick another name")
	}
	return k.each(AllTargets, func(t Target) error {
		if n := keyspaceLimit(t); len(name) > n {
			return k.fail(RuleKeyspaceName, "the keyspace name is "+strconv.Itoa(len(name))+" characters long; "+t.String()+" accepts at most "+strconv.Itoa(n))
		}
		return nil
	})
}

func (k *keyspaceBuilder) checkTargets() error {
	sp := k.spec
	switch {
	case sp.Targets&^AllTargets != 0:
		return k.fail(RuleTargets, "Targets holds "+sp.Targets.String()+", which names no known server")
	case !sp.Tablets.IsValid():
		return k.fail(RuleTargets, "Tablets is "+sp.Tablets.String()+"; use kandra.TabletsUnset, TabletsDisabled or TabletsEnabled")
	case sp.Tablets != TabletsUnset && sp.targets()&cassandraTargets != 0:
		return k.fail(RuleTargets, "Tablets "+sp.Tablets.String()+" renders the tablets option, which Cassandra refuses as an unknown property; set Targets to ScyllaDB targets only")
	case k.targets == 0:
		return k.fail(RuleTargets, "Tablets "+sp.Tablets.String()+" leaves none of the targets "+sp.Targets.String())
	}
	return nil
}

// MaxReplicationFactor is the largest replication factor kandra accepts,
// per datacenter. Servers accept far larger ones and then fail: a
// keyspace with factor 2147483647 makes Cassandra 5.0 end with an
// OutOfMemoryError at the first CREATE TABLE. No real cluster needs more.
const MaxReplicationFactor = 64

func (k *keyspaceBuilder) checkReplication() error {
	r := k.spec.Replication
	if !r.nts {
		if r.simple < 1 || r.simple > MaxReplicationFactor {
			return k.fail(RuleReplication, "SimpleStrategy needs a replication factor from 1 to "+strconv.Itoa(MaxReplicationFactor)+" (MaxReplicationFactor), not "+strconv.Itoa(r.simple)+"; servers run out of memory on huge factors")
		}
		return nil
	}
	total := 0
	for _, dc := range slices.Sorted(maps.Keys(r.dcs)) {
		if p := datacenterProblem(dc); p != "" {
			return k.fail(RuleReplication, p)
		}
		f := r.dcs[dc]
		if f < 0 || f > MaxReplicationFactor {
			return k.fail(RuleReplication, "datacenter "+strconv.Quote(dc)+" has replication factor "+strconv.Itoa(f)+"; it must be from 0 to "+strconv.Itoa(MaxReplicationFactor)+" (MaxReplicationFactor)")
		}
		total += f
	}
	if total == 0 {
		return k.fail(RuleReplication, "NetworkTopologyStrategy needs at least one datacenter with a replica: a keyspace with none accepts no write")
	}
	return nil
}

// checkNamesTaken claims every table and index name of the keyspace, in
// the order the tables were given: a name may be claimed once, and an
// index's name plus "_index" is claimed for the view ScyllaDB creates
// behind it.
func (k *keyspaceBuilder) checkNamesTaken() error {
	type claim struct {
		owner *TableSchema
		what  string // "table", "lookup table", "index", "view of index"
	}
	claims := map[string]claim{}
	take := func(t *TableSchema, field, name, what string) error {
		if prev, ok := claims[name]; ok {
			if prev.owner == t && prev.what == "table" && what == "table" {
				return k.fail(RuleNameTaken, "table "+strconv.Quote(name)+" of "+t.entity.String()+" is given twice")
			}
			return k.fail(RuleNameTaken, fmt.Sprintf("%s name %q of %s is already the %s name of %s; names are unique per keyspace", what, name, describeOwner(t, field), prev.what, prev.owner.entity))
		}
		claims[name] = claim{t, what}
		return nil
	}
	for _, t := range k.tables {
		if err := take(t, "", t.name, "table"); err != nil {
			return err
		}
		for _, l := range t.lookups {
			if err := take(t, l.index.goName, l.name, "lookup table"); err != nil {
				return err
			}
		}
	}
	for _, t := range k.tables {
		for _, c := range t.indexes {
			n := t.IndexName(c)
			if err := take(t, c.goName, n, "index"); err != nil {
				return err
			}
			if err := take(t, c.goName, n+"_index", "ScyllaDB view of index"); err != nil {
				return err
			}
		}
	}
	return nil
}

func describeOwner(t *TableSchema, field string) string {
	if field == "" {
		return t.entity.String()
	}
	return t.entity.String() + "." + field
}

// datacenterProblem says why servers refuse dc as a datacenter name, or "".
func datacenterProblem(dc string) string {
	switch l := strings.ToLower(dc); {
	case dc == "":
		return "a datacenter name is empty"
	case l == "class":
		return "a datacenter cannot be named " + strconv.Quote(dc) + ": it is the replication map's strategy key (\"Multiple definition for property class\")"
	case l == "replication_factor":
		return "a datacenter cannot be named " + strconv.Quote(dc) + ": servers read it as the factor of every datacenter, not as a datacenter"
	case !utf8.ValidString(dc):
		return "datacenter name " + strconv.Quote(dc) + " is not valid UTF-8"
	}
	for _, r := range dc {
		if unicode.IsControl(r) {
			return "datacenter name " + strconv.Quote(dc) + " contains a control character"
		}
	}
	return ""
}

// quoteLiteral writes s as a CQL string literal: single quotes, with each
// embedded single quote doubled.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// checkNameLengths checks every table, lookup-table and index name of the
// keyspace against the limit of each target (nameLimit).
func (k *keyspaceBuilder) checkNameLengths() error {
	return k.each(AllTargets, func(target Target) error {
		check := func(t *TableSchema, what, name string, kind nameKind) error {
			if limit, why := nameLimit(target, kind, k.spec.Name); len(name) > limit {
				return k.fail(RuleNameLength, fmt.Sprintf("%s name %q of %s is %d characters long; %s accepts at most %d: %s (set Targets to servers that accept it, or shorten it)",
					what, name, t.entity, len(name), target, limit, why))
			}
			return nil
		}
		for _, t := range k.tables {
			if err := check(t, "table", t.name, tableName); err != nil {
				return err
			}
			for _, l := range t.lookups {
				if err := check(t, "lookup table", l.name, tableName); err != nil {
					return err
				}
			}
			for _, c := range t.indexes {
				kind := indexName
				if c.saiOn(target) {
					kind = saiIndexName
				}
				if err := check(t, "index", t.IndexName(c), kind); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// checkTTLCap refuses a TTL whose writes would fail within TTLHorizon on
// Cassandra 5.0 under storage_compatibility_mode CASSANDRA_4, which refuses
// every write whose now + TTL passes 2038-01-19T03:14:06Z.
func (k *keyspaceBuilder) checkTTLCap() error {
	now := timeNow()
	latest := expirationCap2038.Sub(now) - TTLHorizon
	for _, t := range k.tables {
		type namedTTL struct {
			what string
			ttl  int // seconds
		}
		var ttls []namedTTL
		if t.hasTTL {
			ttls = append(ttls, namedTTL{"DefaultTTL", t.ttl})
		}
		if sd := t.softDelete; sd != nil {
			ttls = append(ttls, namedTTL{"the SoftDelete TTL", int(sd.TTL / time.Second)})
		}
		for _, x := range ttls {
			if x.ttl == 0 {
				continue // no expiry at all
			}
			if d := time.Duration(x.ttl) * time.Second; d > latest {
				when := "from " + expirationCap2038.Add(-d).Format(time.DateOnly)
				if !expirationCap2038.Add(-d).After(now) {
					when = "already"
				}
				return k.fail(RuleTTLCap, fmt.Sprintf("%s of %s is %d s: %s (storage_compatibility_mode CASSANDRA_4, its default) refuses every write whose expiry lies past %s, so writes with it fail %s; kandra accepts TTLs that still work %d days from now. Use a TTL of at most %d s, or target Cassandra 5.0 with storage_compatibility_mode NONE (Targets: kandra.Cassandra5Latest ...)",
					x.what, t.entity, x.ttl, Cassandra5, expirationCap2038.Format(time.RFC3339), when, int(TTLHorizon.Hours()/24), max(int(latest/time.Second), 0)))
			}
		}
	}
	return nil
}

// checkTablets refuses what a keyspace that uses tablets cannot have.
func (k *keyspaceBuilder) checkTablets() error {
	return k.each(tabletTargets, func(target Target) error {
		if !k.spec.Replication.nts {
			return k.fail(RuleTablets, target.String()+" supports only NetworkTopologyStrategy in a keyspace with tablets; use kandra.NetworkTopologyStrategy, or a vnodes keyspace (Tablets: kandra.TabletsDisabled with ScyllaDB-only Targets)")
		}
		if target != Scylla2025Tablets {
			return nil
		}
		way := "; target ScyllaDB 2026.x, or use a vnodes keyspace (Tablets: kandra.TabletsDisabled with ScyllaDB-only Targets)"
		if k.spec.Targets == 0 {
			// The default promise is every server; a Cassandra team's way
			// out is to say which server it runs.
			way = ". The keyspace gives no Targets, so it must work on every server (kandra.AllTargets): for every server but a tablets keyspace of ScyllaDB 2025.x (kandra then makes it a vnodes keyspace there), say Targets: kandra.AllTargets &^ kandra.Scylla2025Tablets; for a keyspace on Cassandra only, Targets: kandra.Cassandra5 (or Cassandra5Latest)"
		}
		// The releases that lift each refusal are ScyllaDB's (its
		// storage_proxy.cc, create_table_statement.cc, db/view/view.cc):
		// the refusals hold until every node of the cluster runs them.
		const lwt = "refuses lightweight transactions in a tablets keyspace (\"LWT is not yet supported with tablets\"; 2025.4 lifts it once every node has the lwt_with_tablets feature, 2026.1 always)"
		for _, t := range k.tables {
			var unique *LookupTableSchema
			for _, l := range t.lookups {
				if l.kind == LookupUnique {
					unique = l
					break
				}
			}
			switch {
			case t.counter:
				return k.fail(RuleTablets, fmt.Sprintf("%s is a counter table; %s refuses counters in a tablets keyspace (\"Counters are not yet supported with tablets\"; 2026.1 lifts it)%s", t.entity, target, way))
			case t.version != nil:
				return k.fail(RuleTablets, fmt.Sprintf("%s has a Version column, which the runtime updates with a lightweight transaction; %s %s%s", t.entity, target, lwt, way))
			case unique != nil:
				return k.fail(RuleTablets, fmt.Sprintf("%s has the unique lookup %s, whose values the runtime claims with lightweight transactions; %s %s%s", t.entity, unique.name, target, lwt, way))
			case len(t.indexes) > 0:
				return k.fail(RuleTablets, fmt.Sprintf("%s has a secondary index on %s; %s builds them in a tablets keyspace only as an experimental feature (views-with-tablets; 2025.4 with rf_rack_valid_keyspaces)%s", t.entity, t.indexes[0].name, target, way))
			}
		}
		return nil
	})
}

// checkSAIIndexes refuses index targets that a storage-attached index
// cannot have, on a target where CREATE INDEX makes one by default. An
// explicit kind is not the default: UsingLegacy is the way out, and
// RuleSAI checked UsingSAI at Register.
func (k *keyspaceBuilder) checkSAIIndexes() error {
	for _, t := range k.tables {
		for _, c := range t.indexes {
			if c.indexOpts.kind != IndexDefault {
				continue
			}
			if p := c.saiProblem(); p != "" {
				return k.fail(RuleSAIIndex, fmt.Sprintf("the index on %s.%s (%s) would be a storage-attached index on %s (default_secondary_index: sai), and %s; give the index kandra.UsingLegacy(), or target Cassandra5 only", t.entity, c.goName, c.typ.brief(), Cassandra5Latest, p))
			}
		}
	}
	return nil
}

// checkIndexKinds refuses an explicit index kind on a ScyllaDB target:
// ScyllaDB has neither Cassandra's legacy class nor SAI off vectors.
func (k *keyspaceBuilder) checkIndexKinds() error {
	for _, t := range k.tables {
		for _, c := range t.indexes {
			if kind := c.indexOpts.kind; kind != IndexDefault && kind != IndexVector { // vectors: RuleVectorTarget
				return k.fail(RuleIndexKind, fmt.Sprintf("the index on %s.%s asks for a %s index, which only Cassandra has, and the keyspace targets %s; drop the kind option to get each server's default index, or target Cassandra only (Targets: kandra.Cassandra5 | kandra.Cassandra5Latest)", t.entity, c.goName, kind, k.targets&scyllaTargets))
			}
		}
	}
	return nil
}

// checkVectorTargets refuses what the ScyllaDB targets lack for vectors.
func (k *keyspaceBuilder) checkVectorTargets() error {
	for _, t := range k.tables {
		for _, c := range t.columns {
			if c.typ.Kind() != KindVector {
				continue
			}
			var p string
			switch {
			case k.targets&(Scylla2025|Scylla2025Tablets) != 0:
				p = "ScyllaDB 2025.1 has no vector type (it came in 2025.2)"
			case c.typ.Dim() > MaxVectorDim:
				p = "ScyllaDB 2026.2 takes at most " + strconv.Itoa(MaxVectorDim) + " dimensions (MaxVectorDim)"
			case c.index:
				p = "an ANN index on ScyllaDB is a vector_index, served only by ScyllaDB Cloud's Vector Search service, which kandra has not proven; drop VectorIndex, or target Cassandra"
			default:
				continue
			}
			return k.fail(RuleVectorTarget, fmt.Sprintf("%s.%s is %s, and the keyspace targets %s: %s; target Cassandra only (Targets: kandra.Cassandra5 | kandra.Cassandra5Latest)", t.entity, c.goName, c.typ.brief(), k.targets&scyllaTargets, p))
		}
	}
	return nil
}

// checkOptionTargets refuses a storage option a target of the keyspace
// lacks, and one the two servers write differently when the targets are
// of both.
func (k *keyspaceBuilder) checkOptionTargets() error {
	for _, t := range k.tables {
		o := t.storage
		if o.isZero() {
			continue
		}
		err := k.each(AllTargets, func(target Target) error {
			if p := o.targetProblem(target); p != "" {
				return k.fail(RuleOptionTarget, fmt.Sprintf("table %s of %s: %s, and the keyspace targets %s; drop the option, or set Targets to the servers that have it", t.name, t.entity, p, target))
			}
			return nil
		})
		if err != nil {
			return err
		}
		if (o.Compression != nil || o.CDC != nil) && k.targets&cassandraTargets != 0 && k.targets&scyllaTargets != 0 {
			return k.fail(RuleOptionTarget, fmt.Sprintf("table %s of %s sets Compression or CDC, which Cassandra and ScyllaDB write differently (compression's class or sstable_compression, cdc true or a map), and the keyspace targets both; give each server its own keyspace value (Targets: kandra.Cassandra5 | kandra.Cassandra5Latest, or the ScyllaDB targets), or drop the option", t.name, t.entity))
		}
	}
	return nil
}

// Types returns the keyspace's user-defined types, each after the types
// it holds (the order CREATE TYPE needs): every type a column of one of
// its tables is or holds, once.
func (k *Keyspace) Types() []CQLType { return clone(k.types) }

// CreateType renders the CREATE TYPE IF NOT EXISTS statement of the
// keyspace's user-defined type named name, and "", false when it has
// none of that name. Statements holds it, before the tables.
func (k *Keyspace) CreateType(name string) (string, bool) {
	for _, t := range k.types {
		if t.Name() == name {
			return createType(t, k.ddl()), true
		}
	}
	return "", false
}

// checkTypeNames collects the user-defined types of the keyspace's
// tables, and refuses two that share a name: the keyspace owns its types,
// so one name is one type. One Go type used by two tables is one type;
// two Go types are two, even with the same fields, as either may change
// without the other. A type given with AsType (UDTOf, no Go type) is the
// same as any of its name and fields.
func (k *keyspaceBuilder) checkTypeNames() error {
	type owner struct {
		t     CQLType
		where string
	}
	seen := map[string]owner{}
	for _, t := range k.tables {
		for _, c := range t.columns {
			var err error
			c.typ.udts(func(u CQLType) {
				if err != nil {
					return
				}
				where := t.entity.String() + "." + c.goName
				prev, ok := seen[u.Name()]
				if !ok {
					seen[u.Name()] = owner{u, where}
					k.types = append(k.types, u)
					return
				}
				if !prev.t.Equal(u) || prev.t.GoType() != "" && u.GoType() != "" && prev.t.GoType() != u.GoType() {
					err = k.fail(RuleUDTName, fmt.Sprintf("the user-defined type %s is two types: %s (at %s) and %s (at %s); a keyspace holds one type of a name: use one Go type for both, or give one a UDTName method", QuoteTypeName(u.Name()), describeUDT(prev.t), prev.where, describeUDT(u), where))
				}
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func describeUDT(t CQLType) string {
	if t.GoType() != "" {
		return "Go type " + t.GoType()
	}
	var b strings.Builder
	b.WriteString("UDTOf(")
	for i, f := range t.n.fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.Name + " " + f.Type.brief())
	}
	b.WriteByte(')')
	return b.String()
}
