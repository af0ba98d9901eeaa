// Command todoapp is the tutorial service on the kandra
// runtime: users with a unique email lookup and an EVENTUAL ticketRef
// lookup, todos paged newest first and soft-deleted, a counter table and a
// versioned entity. store.go is its whole data layer.
//
//	scripts/cassandra.sh start && go run ./examples/todoapp
//
// (from the repository root; the example is its own module, so from
// examples/todoapp it is go run .). KANDRA_CASSANDRA_HOST and
// KANDRA_CASSANDRA_PORT choose the node (default 127.0.0.1:9042).
//
// # Its schema
//
// The service's tables are its entities (Keyspace); the app mounts the
// migrator's command line (package migrate/cli) as its schema subcommand,
// so the model it checks is the one compiled into it:
//
//	todoapp [-keyspace K] [-rf N] schema plan [--cql]
//	todoapp [-keyspace K] [-rf N] schema validate
//	todoapp [-keyspace K] [-rf N] schema apply [--approve ID,...|all]
//	todoapp [-keyspace K] [-rf N] schema backfill LOOKUP_TABLE
//	todoapp [-keyspace K] [-rf N] schema history
//
// -keyspace (or KANDRA_KEYSPACE) names the keyspace, default todoapp; -rf
// (or KANDRA_RF) is its replication, NetworkTopologyStrategy with that
// many replicas in datacenter1, default 1. The app's flags come before
// schema; the command's own flags after it.
//
// At start-up (without schema) the app does not run CREATE ... IF NOT
// EXISTS, which keeps an old table as it is and fails later on a missing
// column. It brings the keyspace to its model with migrate.Apply, safe
// steps only: creating what is missing and adding columns, under a lease,
// so that instances starting together do it once. It refuses to start,
// listing them, when steps remain: ones that need approval (a backfill, an
// option change: run todoapp schema apply --approve ... after review) or
// that are impossible in place (each with its manual path). With
// -startup check (or KANDRA_STARTUP=check), for deployments where CI
// applies the schema, it changes nothing and refuses to start on any
// difference that migrate.Check reports.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	gocql "github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
	"github.com/kandra-go/kandra/migrate"
	"github.com/kandra-go/kandra/migrate/cli"
	"github.com/kandra-go/kandra/otelkandra"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Keyspace is the service's schema, replicated once in datacenter1.
func Keyspace(name string) (*kandra.Keyspace, error) { return keyspaceRF(name, 1) }

// keyspaceRF is the service's schema with rf replicas in datacenter1.
func keyspaceRF(name string, rf int) (*kandra.Keyspace, error) {
	return kandra.NewKeyspace(kandra.KeyspaceSpec{Name: name, Targets: kandra.Cassandra5,
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"datacenter1": rf})},
		Users, Todos, Stats, Preferences)
}

func envOr(k, d string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return d
}

// session opens a session on the node KANDRA_CASSANDRA_HOST/PORT name,
// changing nothing.
func session() (*gocql.Session, error) {
	cl := gocql.NewCluster(envOr("KANDRA_CASSANDRA_HOST", "127.0.0.1"))
	port, err := strconv.Atoi(envOr("KANDRA_CASSANDRA_PORT", "9042"))
	if err != nil {
		return nil, fmt.Errorf("KANDRA_CASSANDRA_PORT: %w", err)
	}
	cl.Port, cl.ProtoVersion, cl.DisableInitialHostLookup = port, 4, true
	cl.Consistency = gocql.LocalQuorum
	cl.Timeout, cl.ConnectTimeout = 15*time.Second, 10*time.Second
	s, err := cl.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("no node on %s:%d (start one with scripts/cassandra.sh start): %w", cl.Hosts[0], port, err)
	}
	return s, nil
}

// connect opens a session and brings keyspace ks (one replica) to the
// model, as the app's start-up does.
func connect(ks string) (*gocql.Session, error) {
	k, err := Keyspace(ks)
	if err != nil {
		return nil, err
	}
	s, err := session()
	if err != nil {
		return nil, err
	}
	if err := startSchema(context.Background(), kgocql.New(s), k, "apply", io.Discard); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// startSchema is the start-up policy of the doc comment: mode "apply"
// runs the safe steps and refuses to go on while others remain; "check"
// changes nothing and refuses on any difference. Applied steps are
// reported to logw.
func startSchema(ctx context.Context, d adapter.Driver, ks *kandra.Keyspace, mode string, logw io.Writer) error {
	switch mode {
	case "check":
		if err := migrate.Check(ctx, d, ks); err != nil {
			return fmt.Errorf("not starting: %w\n(see the steps with todoapp schema plan; apply them with todoapp schema apply)", err)
		}
		return nil
	case "apply":
	default:
		return fmt.Errorf("-startup %q: want apply (run the safe schema steps, then start) or check (change nothing, refuse on a difference)", mode)
	}
	res, err := migrate.Apply(ctx, d, ks, migrate.ApplyOptions{})
	if err != nil {
		return fmt.Errorf("not starting: %w", err)
	}
	for _, s := range res.Applied {
		_, _ = fmt.Fprintf(logw, "schema: applied %s\n", s.ID)
	}
	if len(res.Unapproved) > 0 {
		var b strings.Builder
		ids := make([]string, len(res.Unapproved))
		for i, s := range res.Unapproved {
			ids[i] = s.ID
			fmt.Fprintf(&b, "\n  %s: %s", s.ID, s.Reason)
		}
		return fmt.Errorf("not starting: keyspace %s has %d schema step(s) that need approval:%s\n"+
			"review them with todoapp schema plan, then run todoapp schema apply --approve %s",
			ks.Name(), len(ids), b.String(), strings.Join(ids, ","))
	}
	return nil
}

func main() {
	// Ctrl-C or SIGTERM cancels the context rather than killing the
	// process, so that an apply in progress releases its lease and records
	// the steps it ran (the next apply does the rest).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole program: the schema subcommand, or the tutorial.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("todoapp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	keyspace := fs.String("keyspace", envOr("KANDRA_KEYSPACE", "todoapp"), "the keyspace (env KANDRA_KEYSPACE)")
	rfDefault, err := strconv.Atoi(envOr("KANDRA_RF", "1"))
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "todoapp: KANDRA_RF=%q: want a number of replicas\n", os.Getenv("KANDRA_RF"))
		return cli.ExitUsage
	}
	rf := fs.Int("rf", rfDefault, "replicas in datacenter1, NetworkTopologyStrategy (env KANDRA_RF)")
	startup := fs.String("startup", envOr("KANDRA_STARTUP", "apply"), "schema at start-up: apply (safe steps) or check (env KANDRA_STARTUP)")
	traced := fs.Bool("trace", os.Getenv("KANDRA_TRACE") == "stdout", "write an OpenTelemetry span of every statement to stdout, as JSON (env KANDRA_TRACE=stdout)")
	fs.Usage = func() {
		_, _ = fmt.Fprintf(stderr, "Usage: todoapp [flags]              run the tutorial\n"+
			"       todoapp [flags] schema ...   the schema commands (todoapp schema --help)\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cli.ExitOK
		}
		return cli.ExitUsage
	}
	schema := fs.NArg() > 0 && fs.Arg(0) == "schema"
	if fs.NArg() > 0 && !schema {
		_, _ = fmt.Fprintf(stderr, "todoapp: unknown command %q\n", fs.Arg(0))
		fs.Usage()
		return cli.ExitUsage
	}
	ks, err := keyspaceRF(*keyspace, *rf)
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "todoapp: %v\n", err)
		return cli.ExitUsage
	}
	if schema && (fs.NArg() == 1 || isHelp(fs.Arg(1))) {
		// Help needs no node.
		return cli.Run(ctx, nil, ks, fs.Args()[1:], stdout, stderr)
	}
	s, err := session()
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "todoapp: %v\n", err)
		return cli.ExitError
	}
	defer s.Close()
	// snippet: schemacmd
	d := kgocql.New(s)
	if schema { // todoapp schema plan | validate | apply | backfill | history
		return cli.Run(ctx, d, ks, fs.Args()[1:], stdout, stderr)
	}
	// end snippet
	logger := log.New(stderr, "todoapp: ", 0)
	if err := startSchema(ctx, d, ks, *startup, stderr); err != nil {
		logger.Print(err)
		return 1
	}
	var opts []kstore.Option
	if *traced {
		tp, err := stdoutTracer(stdout)
		if err != nil {
			logger.Print(err)
			return 1
		}
		defer func() { _ = tp.Shutdown(context.WithoutCancel(ctx)) }()
		// snippet: otel
		obs, err := otelkandra.New(otelkandra.WithTracerProvider(tp)) // otelkandra.New(): the global providers
		if err != nil {
			logger.Print(err)
			return 1
		}
		opts = append(opts, kstore.WithObserver(obs)) // and migrate.ApplyOptions{Observer: obs}
		// end snippet
	}
	rt, err := kstore.New(d, ks, opts...)
	if err != nil {
		logger.Print(err)
		return 1
	}
	defer func() { _ = rt.Close(ctx) }()
	if err := demo(ctx, NewStore(rt), func(s string) (int, error) { return io.WriteString(stdout, s) }); err != nil {
		logger.Print(err)
		return 1
	}
	return 0
}

// stdoutTracer is a TracerProvider that writes every span to w as JSON,
// as it ends.
func stdoutTracer(w io.Writer) (*sdktrace.TracerProvider, error) {
	exp, err := stdouttrace.New(stdouttrace.WithWriter(w))
	if err != nil {
		return nil, err
	}
	return sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp)), nil
}

func isHelp(a string) bool { return a == "-h" || a == "-help" || a == "--help" || a == "help" }

// demo walks through the service once.
func demo(ctx context.Context, st *Store, out func(string) (int, error)) error {
	say := func(f string, a ...any) { _, _ = out(fmt.Sprintf(f+"\n", a...)) }
	tag := uuid.NewString()[:8]
	u, err := st.SignUp(ctx, "ann-"+tag+"@example.com", "Ann", "TICKET-"+tag)
	if err != nil {
		return err
	}
	say("signed up %s as %s", u.Email, u.UserID)
	if u, err = st.LogIn(ctx, u.Email); err != nil {
		return err
	}
	say("logged in by email: %s", u.Name)
	if u, err = st.ChangeEmail(ctx, u, "ann.b-"+tag+"@example.com"); err != nil {
		return err
	}
	if _, err := st.LogIn(ctx, "ann-"+tag+"@example.com"); !errors.Is(err, kerrors.ErrNotFound) {
		return fmt.Errorf("old email still logs in: %v", err)
	}
	say("email changed to %s", u.Email)
	for i := 1; i <= 5; i++ {
		if _, err := st.AddTodo(ctx, u.UserID, fmt.Sprintf("todo %d", i)); err != nil {
			return err
		}
	}
	page, next, err := st.Todos(ctx, u.UserID, "", 3)
	if err != nil {
		return err
	}
	say("newest todos: %s, %s, %s (more: %v)", page[0].Title, page[1].Title, page[2].Title, next != "")
	if err := st.DeleteTodo(ctx, page[0]); err != nil {
		return err
	}
	page, _, err = st.Todos(ctx, u.UserID, "", 10)
	if err != nil {
		return err
	}
	c, err := st.Stats(ctx, u.UserID)
	if err != nil {
		return err
	}
	say("after deleting one: %d live todos, %d created", len(page), c.Created)
	p := &Prefs{UserID: u.UserID, Theme: "light"}
	if err := st.SavePrefs(ctx, p); err != nil {
		return err
	}
	if _, err := st.SetTheme(ctx, p, "dark"); err != nil {
		return err
	}
	_, err = st.SetTheme(ctx, p, "blue") // p is stale now
	var ol *kerrors.OptimisticLockError
	if !errors.As(err, &ol) {
		return fmt.Errorf("stale update: %v", err)
	}
	say("stale theme change refused: %v", err)
	return nil
}
