package migrate

import (
	"context"
	"strconv"
	"strings"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

// Server is what the migrator reads of the server it talks to, through
// plain CQL: which product and version it is, and so which of kandra's
// targets it may be. A ScyllaDB node has system.local columns Cassandra
// has not (scylla_nr_shards) and reports its own version in
// system.versions; its system.local release_version is always 3.0.8.
type Server struct {
	// Product is "Cassandra" or "ScyllaDB"; "" when it was not read (a
	// Live built by hand).
	Product string
	// Version is the version the server reports ("5.0.8",
	// "2025.1.14-0.20260614.abcdef012345"), or "" when it cannot be read
	// (ScyllaDB lets only a superuser or a role granted SELECT on
	// system.versions read it).
	Version string
	// Targets are the kandra targets the server may be:
	// Cassandra5|Cassandra5Latest for a Cassandra 5.0 node (its
	// storage_compatibility_mode is not visible to a client),
	// Scylla2025|Scylla2025Tablets for ScyllaDB 2025.x,
	// Scylla2026|Scylla2026Tablets for 2026.x, every ScyllaDB target when
	// its version is unknown, and 0 for a release kandra does not target.
	Targets kandra.Target
}

// String is "Cassandra 5.0.8", "ScyllaDB 2025.1.14-…" or "ScyllaDB (version
// unknown)".
func (s Server) String() string {
	switch {
	case s.Product == "":
		return "an unknown server"
	case s.Version == "":
		return s.Product + " (version unknown)"
	}
	return s.Product + " " + s.Version
}

// IsScylla reports a ScyllaDB server.
func (s Server) IsScylla() bool { return s.Product == scyllaProduct }

const (
	cassandraProduct = "Cassandra"
	scyllaProduct    = "ScyllaDB"
)

// readServer asks the server what it is.
func readServer(ctx context.Context, d driver) (Server, error) {
	local, err := d.QueryCQL(ctx, "SELECT scylla_nr_shards FROM system.local WHERE key = 'local'", nil, kandra.ConsistencyOne)
	if err == nil && len(local) == 0 {
		return Server{}, nil // every node has its row: a driver that cannot tell
	}
	if err != nil {
		if !strings.Contains(strings.ToLower(err.Error()), "undefined column name") {
			return Server{}, &kerrors.MigrationError{Message: "reading which server this is from system.local failed", Cause: err}
		}
		rows, err := d.QueryCQL(ctx, "SELECT release_version FROM system.local WHERE key = 'local'", nil, kandra.ConsistencyOne)
		if err != nil || len(rows) == 0 {
			return Server{}, &kerrors.MigrationError{Message: "reading the Cassandra version from system.local failed", Cause: err}
		}
		s := Server{Product: cassandraProduct, Version: str(rows[0]["release_version"])}
		if s.Version == "5.0" || strings.HasPrefix(s.Version, "5.0.") {
			s.Targets = kandra.Cassandra5 | kandra.Cassandra5Latest
		}
		return s, nil
	}
	s := Server{Product: scyllaProduct, Targets: scyllaTargets}
	rows, err := d.QueryCQL(ctx, "SELECT version FROM system.versions WHERE key = 'local'", nil, kandra.ConsistencyOne)
	if err != nil || len(rows) == 0 {
		return s, nil // not readable by this role: any ScyllaDB target
	}
	s.Version = str(rows[0]["version"])
	switch {
	case strings.HasPrefix(s.Version, "2025."):
		s.Targets = kandra.Scylla2025 | kandra.Scylla2025Tablets
	case strings.HasPrefix(s.Version, "2026."):
		s.Targets = kandra.Scylla2026 | kandra.Scylla2026Tablets
	default:
		s.Targets = 0
	}
	return s, nil
}

// readTablets reports whether an existing ScyllaDB keyspace uses tablets:
// system_schema.scylla_keyspaces holds initial_tablets for one that does
// (0 for automatic sizing), and a vnodes keyspace usually has no row.
func readTablets(ctx context.Context, d driver, keyspace string) (bool, error) {
	rows, err := d.QueryCQL(ctx, "SELECT initial_tablets FROM system_schema.scylla_keyspaces WHERE keyspace_name = ?", []any{keyspace}, kandra.ConsistencyOne)
	if err != nil {
		return false, &kerrors.MigrationError{Message: "reading whether keyspace " + keyspace + " uses tablets (system_schema.scylla_keyspaces) failed", Cause: err}
	}
	return len(rows) > 0 && rows[0]["initial_tablets"] != nil, nil
}

// checkServer refuses to plan for a server the keyspace does not target,
// or for a live ScyllaDB keyspace whose distribution its targets do not
// include: the rules that make its statements and writes work there were
// never checked.
func checkServer(ks *kandra.Keyspace, live *Live) error {
	s := live.Server
	if s.Product == "" {
		return nil
	}
	if s.Targets == 0 {
		return &kerrors.MigrationError{Rule: string(kandra.RuleTargets), Message: "nothing was planned for keyspace " + ks.Name() + ": this server is " + s.String() +
			", a release kandra does not target (Cassandra 5.0, ScyllaDB 2025.x and 2026.x)"}
	}
	if ks.Targets()&s.Targets == 0 {
		return &kerrors.MigrationError{Rule: string(kandra.RuleTargets), Message: "nothing was planned for keyspace " + ks.Name() + ": its targets are " + ks.Targets().String() +
			", and this server is " + s.String() + ", which may be " + s.Targets.String() + ": add that to KeyspaceSpec.Targets (its rules are then checked), or migrate on a server the keyspace targets"}
	}
	if k := live.Keyspace; k != nil && k.Tablets && ks.Targets()&s.Targets&tabletTargets == 0 {
		return &kerrors.MigrationError{Rule: string(kandra.RuleTablets), Message: "nothing was planned for keyspace " + ks.Name() + ": it uses tablets on this server (" + s.String() +
			"), and its targets (" + ks.Targets().String() + ") include no tablets keyspace of it, so the rules of one were never checked: add " + (s.Targets & tabletTargets).String() +
			" to KeyspaceSpec.Targets, or move the data to a keyspace created with tablets = {'enabled': false}"}
	}
	return nil
}

// tabletTargets are ScyllaDB's tablets keyspaces.
const tabletTargets = kandra.Scylla2025Tablets | kandra.Scylla2026Tablets

// checkLease refuses an Apply whose lease, a lightweight transaction in
// the keyspace, the server refuses: ScyllaDB 2025.1 to 2025.3 in a
// tablets keyspace. 2025.4 takes it once every node has the
// lwt_with_tablets feature, which a client cannot see; the server's own
// refusal is then reported under the rule (serverRule). A keyspace that
// does not exist yet gets the distribution its CREATE KEYSPACE states.
func checkLease(ks *kandra.Keyspace, live *Live) error {
	s := live.Server
	if !s.IsScylla() || s.Targets != kandra.Scylla2025|kandra.Scylla2025Tablets {
		return nil
	}
	tablets := live.Keyspace != nil && live.Keyspace.Tablets
	if live.Keyspace == nil {
		tablets = ks.TabletsOn(s.Targets) == kandra.TabletsEnabled
	}
	minor, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(s.Version, "2025."), ".", 2)[0])
	if !tablets || minor >= 4 {
		return nil
	}
	return &kerrors.MigrationError{Rule: string(kandra.RuleTablets), Message: "nothing was changed in keyspace " + ks.Name() +
		": Apply takes its schema lease with a lightweight transaction in the keyspace, and " + s.String() +
		" refuses them in a tablets keyspace (\"LWT is not yet supported with tablets\"; 2025.4 lifts it once every node has the lwt_with_tablets feature, 2026.1 always): " +
		"upgrade, or create the keyspace with tablets = {'enabled': false} (Tablets: kandra.TabletsDisabled, or Targets without kandra.Scylla2025Tablets)"}
}

// serverRule is the kandra rule a server's refusal falls under, when the
// migrator recognises it: ScyllaDB's refusals in a tablets keyspace, of
// LWTs, counters and indexes, and of keyspaces that are not RF-rack-valid
// (each datacenter's replication factor 0, 1 or its rack count), which no
// schema can show.
func serverRule(err error) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	for _, s := range []string{"not yet supported with tablets", "not supported on base tables with tablets", "RF-rack-valid", "rf_rack_valid_keyspaces", "tablets are enforced"} {
		if strings.Contains(msg, s) {
			return string(kandra.RuleTablets)
		}
	}
	return ""
}
