package migrate

// Import: the Go entities of a live keyspace, for a team that has a
// keyspace and no kandra model of it yet.

import (
	"context"
	gotoken "go/token"
	"strconv"
	"strings"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
)

// ImportOptions configure GenerateEntities and Import.
type ImportOptions struct {
	// Package is the package clause of the generated file; "" is
	// "schema". It must be a Go identifier.
	Package string
	// Targets are the generated KeyspaceSpec's Targets, as given. 0 takes
	// the targets the server the schema was read from may be
	// (Live.Server.Targets): a ScyllaDB keyspace's own distribution
	// (tablets or vnodes), and Cassandra5Latest alone for a Cassandra
	// keyspace that holds what only cassandra_latest.yaml takes (a
	// memtable configuration, a TTL past Cassandra 5.0's 2038 cap), each
	// said in a note. A Live of no known server (Live.Server.Product "")
	// then leaves the spec's Targets unset: every target, the strictest
	// promise, which a keyspace seldom keeps; a note says so.
	Targets kandra.Target
}

// Imported is one generated Go file and what it does not say.
type Imported struct {
	// Source is the file, gofmt'ed: a struct and a Describe method per
	// table (lookup tables recognised become kandra.Lookup options of
	// their primary table's field), a struct per user-defined type the
	// tables hold, and func Keyspace() (*kandra.Keyspace, error), which
	// registers them into the keyspace with its live replication. Its
	// package comment repeats Unexpressed and Notes.
	Source []byte
	// Entities are the Go names of the table structs, in the order
	// Keyspace registers them (their tables' names sorted).
	Entities []string
	// Types are the Go names of the user-defined types' structs, sorted
	// by the types' names.
	Types []string
	// Unexpressed lists what the live keyspace holds that the generated
	// code does not say, each with why and the way out: a column of a
	// type kandra has no Go type for (a tuple, a custom type), a table
	// kandra's rules refuse, a COMPACT STORAGE table, an index of a kind
	// kandra cannot declare, a storage option setting kandra has no
	// option for, materialized views, user functions and aggregates,
	// triggers, column masks. The keyspace keeps them: a plan of the
	// generated model lists the tables and columns among its Extra and
	// never drops them, but writes through the model do not fill them.
	// Empty when the model says everything.
	Unexpressed []string
	// Notes are the choices the generation made that the schema cannot
	// prove: a table taken as a lookup table of another ("table
	// users_by_email taken as the lookup by_email of users"), the lookup
	// kind the schema cannot tell (BATCH or EVENTUAL), the targets, the
	// tables of the migrator itself left out.
	Notes []string
}

// defaultPackage is the package clause when ImportOptions.Package is "".
const defaultPackage = "schema"

// GenerateEntities writes the Go source of a kandra model of the live
// keyspace live: registered into a kandra.Keyspace by the generated
// Keyspace function, it plans no step against the keyspace it came from
// (NewPlan(ks, live) is empty). The Go names come from the CQL names
// (user_id is UserID; kandra.Column where SnakeCase does not give the
// name back); each column's Go type is the one kandra maps to its live
// type, with kandra.AsType where that is another type of the same Go type
// (text and ascii, timestamp and date, uuid and timeuuid, duration and
// time), kandra.Frozen for a frozen user-defined type, kandra.Static,
// kandra.Counter; key positions and clustering orders as live; each index
// with its kind, target, analysis options and name as live; the storage
// options whose live values are not the server's defaults.
//
// A table shaped as kandra shapes a lookup table of another live table
// (named {table}_{suffix}, keyed by one column of it, carrying its primary
// key, with the claim column of a unique lookup) is generated as a
// kandra.Lookup of that table's field and said in Notes. What the code
// cannot say is listed in Unexpressed, never dropped silently.
//
// The error is only for input it cannot write a model of: a nil live, a
// keyspace that does not exist, a package name that is not an
// identifier, a replication kandra cannot declare.
func GenerateEntities(live *Live, opts ImportOptions) (*Imported, error) {
	return generate(live, opts, nil)
}

// Import reads the live schema of the keyspace named keyspace through d
// (system_schema, the server's kind and version as Read reads them) and
// generates its entities (GenerateEntities): the generated KeyspaceSpec's
// Targets are those of the server it read, unless opts.Targets says
// otherwise. What system_schema holds beside the tables and types
// and kandra does not declare (materialized views, triggers, user
// functions and aggregates) is listed in Unexpressed.
//
// A keyspace that does not exist is an error naming it, as is a failure
// to read.
func Import(ctx context.Context, d adapter.Driver, keyspace string, opts ImportOptions) (*Imported, error) {
	if d == nil {
		return nil, &kerrors.MigrationError{Message: "Import: nil adapter.Driver; pass an adapter's driver (kgocql.New(session))"}
	}
	if keyspace == "" {
		return nil, &kerrors.MigrationError{Message: "Import: no keyspace named; give the name of the keyspace to import"}
	}
	return importWith(ctx, wrap(d), keyspace, opts)
}

// importWith is Import on the migrator's driver.
func importWith(ctx context.Context, d driver, keyspace string, opts ImportOptions) (*Imported, error) {
	s, err := readServer(ctx, d)
	if err != nil {
		return nil, err
	}
	live, err := readLive(ctx, d, keyspace)
	if err != nil {
		return nil, err
	}
	live.Server = s
	if live.Keyspace == nil {
		return nil, &kerrors.MigrationError{Message: "Import: keyspace " + strconv.Quote(keyspace) + " does not exist on " + s.String() + "; check the name (unquoted names are lower case)"}
	}
	if s.IsScylla() {
		if live.Keyspace.Tablets, err = readTablets(ctx, d, keyspace); err != nil {
			return nil, err
		}
	}
	return generate(live, opts, nil)
}

// What GenerateEntities says of a live materialized view and trigger
// (LiveKeyspace.Views, Triggers), which kandra does not model.
const (
	viewWhy    = "kandra models no materialized view (ScyllaDB's index views aside); keep creating it by hand, or read the base table through a kandra.Lookup or an index"
	triggerWhy = "kandra declares no trigger; keep its CREATE TRIGGER by hand"
)

// oneLine folds s onto one line, for a list entry.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// generate is GenerateEntities with the entries readBeyond found: each
// an Unexpressed entry, or a note when it starts with "note: ".
func generate(live *Live, opts ImportOptions, beyond []string) (*Imported, error) {
	if live == nil {
		return nil, &kerrors.MigrationError{Message: "GenerateEntities: nil *Live; read it with Read or Import"}
	}
	if live.Keyspace == nil {
		return nil, &kerrors.MigrationError{Message: "GenerateEntities: the live keyspace does not exist (Live.Keyspace is nil), so there is nothing to import; check its name"}
	}
	pkg := opts.Package
	if pkg == "" {
		pkg = defaultPackage
	}
	if !gotoken.IsIdentifier(pkg) || pkg == "_" {
		return nil, &kerrors.MigrationError{Message: "GenerateEntities: package name " + strconv.Quote(pkg) + " is not a Go identifier; give ImportOptions.Package a name such as \"schema\""}
	}
	g := newGen(live, opts, pkg)
	for _, b := range beyond {
		if n, ok := strings.CutPrefix(b, "note: "); ok {
			g.note(n)
		} else {
			g.unexpressed(b)
		}
	}
	if err := g.run(); err != nil {
		return nil, err
	}
	return g.result()
}
