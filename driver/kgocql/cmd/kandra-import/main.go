// Command kandra-import writes the kandra entities of a live keyspace: a
// Go file whose Keyspace function builds a model that plans no step
// against the keyspace it came from (migrate.Import), for a team that has
// a keyspace and no Go model of it yet.
//
//	go run github.com/kandra-go/kandra/driver/kgocql/cmd/kandra-import \
//	    -hosts 10.0.0.1,10.0.0.2 -keyspace shop -package model -o model/schema.go
//
// The file goes to stdout, or to -o's path; what the model does not
// express (a tuple column, a materialized view, ...) and the choices the
// import made go to stderr. A program that has a model mounts the same
// command as "schema import" (package migrate/cli). The password of
// -username is read from the environment variable KANDRA_IMPORT_PASSWORD.
//
// With -file, the keyspace is read from a .cql schema file instead
// (migrate.ImportFile: the CREATE KEYSPACE, TYPE, TABLE and INDEX
// statements an application publishes), and no server is contacted:
//
//	go run github.com/kandra-go/kandra/driver/kgocql/cmd/kandra-import \
//	    -file schema.cql -keyspace shop -package model -o model/schema.go
//
// -keyspace may then be left out when the file names one keyspace.
//
// Exit status: 0 the model says everything; 1 something is not expressed
// (the file is written all the same); 2 usage, or a keyspace that does not
// exist or cannot be modelled, or a schema file that cannot be read; 3 an
// error talking to the server.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	gocql "github.com/gocql/gocql"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/migrate"
)

// The exit statuses, as package migrate/cli's.
const (
	exitOK          = 0
	exitUnexpressed = 1
	exitUsage       = 2
	exitError       = 3
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kandra-import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	hosts := fs.String("hosts", "127.0.0.1", "contact points, comma-separated")
	port := fs.Int("port", 9042, "the native protocol port")
	keyspace := fs.String("keyspace", "", "the keyspace to import (required, but with -file for a file that names one keyspace)")
	file := fs.String("file", "", "read the keyspace from this .cql schema file; no server is contacted")
	pkg := fs.String("package", "", "the generated file's package clause (default schema)")
	out := fs.String("o", "", "write the Go file there instead of to stdout")
	user := fs.String("username", "", "the role to log in as; its password is read from KANDRA_IMPORT_PASSWORD")
	timeout := fs.Duration("timeout", time.Minute, "how long the import may take")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if *keyspace == "" && *file == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "kandra-import: give -keyspace NAME (or -file PATH.cql), and no arguments")
		fs.Usage()
		return exitUsage
	}
	var imp *migrate.Imported
	var err error
	if *file != "" {
		imp, err = importFile(*file, keyspace, *pkg)
	} else {
		imp, err = importServer(*hosts, *port, *user, *timeout, *keyspace, *pkg)
	}
	if err != nil {
		fmt.Fprintf(stderr, "kandra-import: %v\n", err)
		if me := (*kerrors.MigrationError)(nil); errors.As(err, &me) && me.Cause == nil || errors.Is(err, os.ErrNotExist) {
			return exitUsage
		}
		return exitError
	}
	return report(imp, *keyspace, *out, stdout, stderr)
}

// importServer imports keyspace from the cluster at hosts.
func importServer(hosts string, port int, user string, timeout time.Duration, keyspace, pkg string) (*migrate.Imported, error) {
	cluster := gocql.NewCluster(strings.Split(hosts, ",")...)
	cluster.Port = port
	cluster.Consistency = gocql.One
	cluster.Timeout, cluster.ConnectTimeout = 15*time.Second, 15*time.Second
	if user != "" {
		cluster.Authenticator = gocql.PasswordAuthenticator{Username: user, Password: os.Getenv("KANDRA_IMPORT_PASSWORD")}
	}
	session, err := cluster.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("connecting to %s:%d: %w", hosts, port, err)
	}
	defer session.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return migrate.Import(ctx, kgocql.New(session), keyspace, migrate.ImportOptions{Package: pkg})
}

// importFile imports the keyspace of the schema file path, naming it in
// *keyspace when the file names one and the flag none. The server is
// unknown, so the spec's Targets are left unset (a note says so).
func importFile(path string, keyspace *string, pkg string) (*migrate.Imported, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if *keyspace == "" {
		if sf, err := migrate.ParseSchemaFile(src, ""); err == nil && sf.Live.Keyspace != nil {
			*keyspace = sf.Live.Keyspace.Name
		}
	}
	return migrate.ImportFile(src, *keyspace, migrate.ImportOptions{Package: pkg})
}

// report writes imp's file to stdout or out, and what it does not
// express to stderr, and returns the exit status.
func report(imp *migrate.Imported, keyspace, out string, stdout, stderr io.Writer) int {
	if out == "" {
		if _, err := stdout.Write(imp.Source); err != nil {
			fmt.Fprintf(stderr, "kandra-import: %v\n", err)
			return exitError
		}
	} else if err := os.WriteFile(out, imp.Source, 0o644); err != nil {
		fmt.Fprintf(stderr, "kandra-import: %v\n", err)
		return exitError
	} else {
		fmt.Fprintf(stderr, "kandra-import: keyspace %s written to %s: %d entities (%s), %d user-defined types\n",
			keyspace, out, len(imp.Entities), strings.Join(imp.Entities, ", "), len(imp.Types))
	}
	for _, n := range imp.Notes {
		fmt.Fprintf(stderr, "note: %s\n", n)
	}
	for _, u := range imp.Unexpressed {
		fmt.Fprintf(stderr, "not expressed: %s\n", u)
	}
	if len(imp.Unexpressed) > 0 {
		fmt.Fprintf(stderr, "kandra-import: %d thing(s) of keyspace %s are not in the model (listed above): the keyspace keeps them\n", len(imp.Unexpressed), keyspace)
		return exitUnexpressed
	}
	return exitOK
}
