// Package cli is the migrator's command line, for a program to mount as a
// subcommand. The entities compile into the program, so the program, not a
// separate tool, knows the keyspace to migrate:
//
//	if len(os.Args) > 1 && os.Args[1] == "schema" {
//		os.Exit(cli.Run(ctx, driver, keyspace, os.Args[2:], os.Stdout, os.Stderr))
//	}
//
// The commands are plan [--cql], validate, apply [--approve ID,...|all],
// backfill LOOKUP_TABLE, history, and import [--keyspace NAME] [--package
// NAME] [--file PATH.cql] [-o FILE], which writes Go entities of a live
// keyspace, or of the keyspace a .cql schema file creates (--file, read
// with migrate.ImportFile: no server is needed), for a program that has
// none yet: it needs no *kandra.Keyspace, only --keyspace; -h or --help
// prints the usage. Results
// go to stdout, progress and errors to stderr. The exit status is one of
// ExitOK, ExitDifferences, ExitUsage and ExitError, for CI to act on.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/migrate"
)

// The exit statuses of Run.
const (
	// ExitOK: the command did what was asked; the keyspace is in sync
	// (validate) or the plan can be applied (plan).
	ExitOK = 0
	// ExitDifferences: validate found differences, the plan has steps
	// that are impossible in place, apply refused (impossible steps,
	// another applier's lease held past --lease-wait) or left steps that
	// need approval, or a backfill's verification count did not match.
	ExitDifferences = 1
	// ExitUsage: the arguments were wrong; the usage is printed.
	ExitUsage = 2
	// ExitError: talking to the server failed, including no schema
	// agreement in time (*kerrors.AgreementError).
	ExitError = 3
)

// backend is what the commands call in package migrate; tests replace
// parts of it to drive paths a fake driver cannot reach.
type backend struct {
	planFor  func(context.Context, adapter.Driver, *kandra.Keyspace) (*migrate.Plan, error)
	apply    func(context.Context, adapter.Driver, *kandra.Keyspace, migrate.ApplyOptions) (*migrate.Result, error)
	backfill func(context.Context, adapter.Driver, *kandra.Keyspace, *kandra.LookupTableSchema, migrate.BackfillOptions) (*migrate.BackfillResult, error)
	history  func(context.Context, adapter.Driver, *kandra.Keyspace) ([]migrate.HistoryRecord, error)
	imports  func(context.Context, adapter.Driver, string, migrate.ImportOptions) (*migrate.Imported, error)
}

var migrateBackend = backend{
	planFor:  migrate.PlanFor,
	apply:    migrate.Apply,
	backfill: migrate.Backfill,
	history:  migrate.History,
	imports:  migrate.Import,
}

// Run runs one migration command on keyspace ks through d: args are the
// command and its flags (os.Args after the subcommand's own name). It
// writes results to stdout, progress and errors to stderr, and returns
// the exit status (ExitOK, ExitDifferences, ExitUsage or ExitError).
// Backfill progress is a redrawn bar when stderr is a terminal, plain
// lines otherwise. The usage text calls the command "PROGRAM schema",
// after os.Args[0]: an application mounts Run as its "schema" subcommand.
func Run(ctx context.Context, d adapter.Driver, ks *kandra.Keyspace, args []string, stdout, stderr io.Writer) int {
	c := &command{
		ctx: ctx, d: d, ks: ks, be: migrateBackend,
		stdout: stdout, stderr: stderr,
		prog: filepath.Base(os.Args[0]) + " schema",
		term: isTerminal(stderr), width: termWidth(),
		now: time.Now,
	}
	return c.run(args)
}

// command is one invocation of Run.
type command struct {
	ctx            context.Context
	d              adapter.Driver
	ks             *kandra.Keyspace
	be             backend
	stdout, stderr io.Writer
	prog           string
	term           bool
	width          int
	now            func() time.Time
}

func (c *command) printf(w io.Writer, f string, a ...any) { _, _ = fmt.Fprintf(w, f, a...) }

// usage is the whole usage text.
func (c *command) usage() string {
	ks := "the program's keyspace"
	if c.ks != nil {
		ks = "keyspace " + c.ks.Name()
	}
	return strings.NewReplacer("PROG", c.prog, "KS", ks).Replace(usageText)
}

const usageText = `Usage: PROG <command> [flags]

Brings KS to the schema the program's entities describe.

Commands:
  plan [--cql]           the steps that would bring the live keyspace to the
                         model, as a table, or with --cql as a .cql script
                         to review
  validate               compare without changing anything; list every
                         difference
  apply [flags]          run the safe steps and the approved ones, in order,
                         under a lease that keeps other appliers waiting
    --approve ID,...|all   steps needing approval to run (repeatable);
                           "all" approves every one
    --owner S              lease owner, recorded in the history
                           (default host:pid:random)
    --lease-ttl D          lease expiry, renewed while working (default 30s)
    --lease-wait D         how long to wait for another applier (default 10m)
  backfill LOOKUP_TABLE  fill a lookup table from its primary table, by token
                         ranges; resumes where an earlier run stopped and
                         ends with a verification count
  history                what apply has recorded, oldest first
  import [flags]         write the Go entities of a live keyspace, as a kandra
                         model that plans no step against it; what it cannot
                         say is listed on stderr (exit 1)
    --keyspace NAME        the keyspace to read (default: the program's; with
                           --file, the only keyspace the file names)
    --file PATH.cql        read the keyspace from a .cql schema file (CREATE
                           KEYSPACE, TYPE, TABLE, INDEX ...) instead of the
                           server, which is not contacted; the model targets
                           the program's keyspace's targets
    --package NAME         the generated file's package (default schema)
    -o FILE                write the file there (default: stdout)

apply and backfill also take --concurrency N, --ranges N and --page-size N
for the backfill scan (defaults from package migrate).

Exit status: 0 ok or in sync; 1 differences, impossible steps, apply refused
(impossible steps, or another applier's lease held past --lease-wait) or
steps left unapproved, or a failed verification, or (import) something the
model does not express; 2 usage, or (import) a keyspace that does not exist
or cannot be modelled, or a schema file that cannot be read; 3 error talking to the server (including no schema
agreement in time).
`

// run dispatches args to a command.
func (c *command) run(args []string) int {
	if len(args) == 0 {
		c.printf(c.stderr, "%s: no command given\n\n%s", c.prog, c.usage())
		return ExitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help", "help":
		c.printf(c.stdout, "%s", c.usage())
		return ExitOK
	}
	cmd, ok := map[string]func([]string) int{
		"plan":     c.plan,
		"validate": c.validate,
		"apply":    c.apply,
		"backfill": c.backfillCmd,
		"history":  c.historyCmd,
		"import":   c.importCmd,
	}[name]
	if !ok {
		c.printf(c.stderr, "%s: unknown command %q (want plan, validate, apply, backfill, history or import)\n\n%s", c.prog, name, c.usage())
		return ExitUsage
	}
	if (c.ks == nil || c.d == nil) && name != "import" {
		// A mounting mistake, not the user's: say so plainly.
		c.printf(c.stderr, "%s: cli.Run needs a driver and a *kandra.Keyspace; the program passed nil\n", c.prog)
		return ExitError
	}
	return cmd(rest)
}

// flags makes the flag set of one command; synopsis is its usage line.
func (c *command) flags(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(c.prog+" "+name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() {
		c.printf(c.stderr, "Usage: %s %s\n", c.prog, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args with fs, allowing flags after positional arguments
// (the flag package stops at the first one), and returns the positional
// arguments. done is non-negative when the command must end with that
// status: ExitOK after -h, ExitUsage after a bad flag or argument count.
func (c *command) parse(fs *flag.FlagSet, args []string, positional int) (pos []string, done int) {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, ExitOK
			}
			return nil, ExitUsage // the flag package has printed the error and usage
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != positional {
		if positional == 0 {
			c.printf(c.stderr, "%s: unexpected argument %q\n", fs.Name(), pos[0])
		} else {
			c.printf(c.stderr, "%s: want %d argument(s), got %d\n", fs.Name(), positional, len(pos))
		}
		fs.Usage()
		return nil, ExitUsage
	}
	return pos, -1
}

// fail reports err from the server side and returns its status.
func (c *command) fail(what string, err error) int {
	c.printf(c.stderr, "%s %s: %v\n", c.prog, what, err)
	return ExitError
}

// counts summarises a plan's classes.
func counts(p *migrate.Plan) string {
	return fmt.Sprintf("%d safe, %d need approval, %d impossible",
		len(p.Select(migrate.Safe)), len(p.Select(migrate.NeedsApproval)), len(p.Select(migrate.Impossible)))
}

// extras notes the live things the model lacks (reported, never
// dropped) and the plan's notes.
func (c *command) extras(w io.Writer, p *migrate.Plan) {
	for _, n := range p.Notes {
		c.printf(w, "note: %s\n", n)
	}
	if len(p.Extra) == 0 {
		return
	}
	c.printf(w, "not in the model (kept, never dropped): %s\n", strings.Join(p.Extra, ", "))
}

func (c *command) plan(args []string) int {
	fs := c.flags("plan", "plan [--cql]")
	cql := fs.Bool("cql", false, "print the plan as a .cql script to review, with each step's class as a comment")
	if _, done := c.parse(fs, args, 0); done >= 0 {
		return done
	}
	p, err := c.be.planFor(c.ctx, c.d, c.ks)
	if err != nil {
		return c.fail("plan", err)
	}
	empty := fmt.Sprintf("keyspace %s matches the model: nothing to do\n", c.ks.Name())
	switch {
	case *cql:
		// The script alone on stdout, so that it can be redirected to a
		// file; the summary goes to the terminal.
		c.printf(c.stdout, "%s", p.Script())
		if p.Empty() {
			c.printf(c.stderr, "%s", empty)
		} else {
			c.printf(c.stderr, "keyspace %s: plan %s: %s\n", c.ks.Name(), p.Hash(), counts(p))
		}
		c.extras(c.stderr, p)
	case p.Empty():
		c.printf(c.stdout, "%s", empty)
		c.extras(c.stdout, p)
	default:
		// The table's header names the keyspace, the hash and the counts.
		c.printf(c.stdout, "%s", withNewline(p.String()))
		c.extras(c.stdout, p)
	}
	if imp := p.Select(migrate.Impossible); len(imp) > 0 {
		c.printf(c.stderr, "%s plan: %d step(s) cannot be done in place; apply will refuse: %s\n",
			c.prog, len(imp), strings.Join(stepIDs(imp), ", "))
		return ExitDifferences
	}
	return ExitOK
}

func (c *command) validate(args []string) int {
	fs := c.flags("validate", "validate")
	if _, done := c.parse(fs, args, 0); done >= 0 {
		return done
	}
	// PlanFor and Err rather than Check, to tell a difference (exit 1)
	// from a failure to read the live schema (exit 3) without guessing
	// from the error.
	p, err := c.be.planFor(c.ctx, c.d, c.ks)
	if err != nil {
		return c.fail("validate", err)
	}
	if err := p.Err(); err != nil {
		// The error lists every difference with its class and reason.
		c.printf(c.stdout, "%s\n", err)
		c.extras(c.stdout, p)
		c.printf(c.stderr, "%s validate: keyspace %s differs from the model; see the steps with %s plan\n", c.prog, c.ks.Name(), c.prog)
		return ExitDifferences
	}
	c.printf(c.stdout, "keyspace %s matches the model\n", c.ks.Name())
	c.extras(c.stdout, p)
	return ExitOK
}

// approvals is the repeatable, comma-separated --approve flag.
type approvals []string

func (a *approvals) String() string { return strings.Join(*a, ",") }

func (a *approvals) Set(v string) error {
	n := 0
	for _, id := range strings.Split(v, ",") {
		if id = strings.TrimSpace(id); id != "" {
			*a = append(*a, id)
			n++
		}
	}
	if n == 0 {
		return errors.New(`want step IDs separated by commas, or "all"`)
	}
	return nil
}

// scanFlags are the backfill scan's tuning flags, shared by apply and
// backfill.
func scanFlags(fs *flag.FlagSet) func() (migrate.BackfillOptions, error) {
	conc := fs.Int("concurrency", 0, "token ranges scanned at once by a backfill (0: migrate's default)")
	ranges := fs.Int("ranges", 0, "token ranges a backfill splits the ring into (0: migrate's default)")
	page := fs.Int("page-size", 0, "rows per page of a backfill scan (0: migrate's default)")
	return func() (migrate.BackfillOptions, error) {
		for name, v := range map[string]int{"concurrency": *conc, "ranges": *ranges, "page-size": *page} {
			if v < 0 {
				return migrate.BackfillOptions{}, fmt.Errorf("--%s %d: want 0 (the default) or more", name, v)
			}
		}
		// The protocol carries a page size as a 32-bit int.
		if *page > math.MaxInt32 {
			return migrate.BackfillOptions{}, fmt.Errorf("--page-size %d: want at most %d (the protocol's 32-bit page size), or 0 for the default", *page, math.MaxInt32)
		}
		return migrate.BackfillOptions{Concurrency: *conc, Ranges: *ranges, PageSize: *page}, nil
	}
}

func (c *command) apply(args []string) int {
	fs := c.flags("apply", "apply [--approve ID,...|all] [--owner S] [--lease-ttl D] [--lease-wait D]")
	var approve approvals
	fs.Var(&approve, "approve", `IDs of steps needing approval to run, comma-separated; "all" approves every one`)
	owner := fs.String("owner", "", "lease owner, recorded in the history (default host:pid:random)")
	ttl := fs.Duration("lease-ttl", 0, "lease expiry, renewed every third of it while working (0: 30s)")
	wait := fs.Duration("lease-wait", 0, "how long to wait for another applier's lease (0: 10m)")
	scan := scanFlags(fs)
	if _, done := c.parse(fs, args, 0); done >= 0 {
		return done
	}
	bo, err := scan()
	switch {
	case err != nil:
	case *ttl < 0 || *wait < 0:
		err = errors.New("--lease-ttl and --lease-wait want a positive duration, or 0 for the default")
	case *ttl != 0 && *ttl < time.Second:
		// The lease row's TTL counts whole seconds (migrate.ApplyOptions.LeaseTTL).
		err = fmt.Errorf("--lease-ttl %s: want 1s or more (the lease's TTL counts whole seconds), or 0 for the default 30s", *ttl)
	}
	if err != nil {
		c.printf(c.stderr, "%s apply: %v\n", c.prog, err)
		fs.Usage()
		return ExitUsage
	}
	bar := c.progress()
	opts := migrate.ApplyOptions{
		Approve: approve, Owner: *owner, LeaseTTL: *ttl, LeaseWait: *wait,
		Backfill: bo,
		OnEvent: func(ev migrate.Event) {
			// Apply calls this from its own goroutine and from the
			// backfill's: one line or redraw at a time.
			bar.mu.Lock()
			defer bar.mu.Unlock()
			if ev.Backfill != nil {
				bar.update(*ev.Backfill)
				return
			}
			bar.interrupt()
			c.printf(c.stderr, "%s\n", eventLine(ev))
		},
	}
	res, err := c.be.apply(c.ctx, c.d, c.ks, opts)
	bar.interrupt()
	if err != nil {
		c.printf(c.stderr, "%s apply: %v\n", c.prog, err)
		if refused(err, res) {
			return ExitDifferences
		}
		return ExitError
	}
	c.warnUnknownApprovals(approve, res.Plan)
	switch {
	case len(res.Applied) == 0 && len(res.Unapproved) == 0:
		c.printf(c.stdout, "keyspace %s matches the model: nothing to apply\n", c.ks.Name())
	case len(res.Applied) > 0:
		// The hash the history records (plan prints the same one for the
		// same steps), or, with no record, the plan's.
		var hash string
		switch {
		case res.Record != nil:
			hash = res.Record.PlanHash
		case res.Plan != nil:
			hash = res.Plan.Hash()
		}
		c.printf(c.stdout, "applied %d step(s) to keyspace %s (plan %s):\n", len(res.Applied), c.ks.Name(), hash)
		for _, s := range res.Applied {
			c.printf(c.stdout, "  %s\n", s.ID)
		}
		if r := res.Record; r != nil {
			c.printf(c.stdout, "recorded in %s.kandra_schema_history: owner %s at %s\n",
				c.ks.Name(), r.Owner, r.AppliedAt.UTC().Format(time.RFC3339))
		}
	}
	if len(res.Unapproved) > 0 {
		c.printf(c.stdout, "not applied, %d step(s) need approval:\n", len(res.Unapproved))
		for _, s := range res.Unapproved {
			c.printf(c.stdout, "  %s: %s\n", s.ID, s.Reason)
		}
		c.printf(c.stdout, "review them with %s plan, then run %s apply --approve %s\n",
			c.prog, c.prog, strings.Join(stepIDs(res.Unapproved), ","))
		return ExitDifferences
	}
	return ExitOK
}

// refused tells apply's refusal (impossible steps: nothing was changed)
// from a failure talking to the server.
func refused(err error, res *migrate.Result) bool {
	if ae := (*kerrors.AgreementError)(nil); errors.As(err, &ae) {
		return false
	}
	if res != nil && res.Plan != nil && len(res.Plan.Select(migrate.Impossible)) > 0 {
		return true
	}
	// A backfill whose verification did not match is a difference, even
	// wrapped in the step's error.
	if res != nil && slices.ContainsFunc(res.Backfills, func(b *migrate.BackfillResult) bool { return b.Mismatch != "" }) {
		return true
	}
	// The refusal is a *MigrationError of its own, with no cause; a server
	// failure carries the driver's error as its cause.
	me := (*kerrors.MigrationError)(nil)
	return errors.As(err, &me) && me.Cause == nil
}

// warnUnknownApprovals says which --approve IDs named no step of the plan:
// most likely a typo, and the step it meant stayed unapproved.
func (c *command) warnUnknownApprovals(approve []string, p *migrate.Plan) {
	if p == nil {
		return
	}
	for _, id := range approve {
		if id == "all" || slices.ContainsFunc(p.Steps, func(s migrate.Step) bool { return s.ID == id }) {
			continue
		}
		c.printf(c.stderr, "%s apply: --approve %s: no such step in plan %s (the plan's steps: %s)\n",
			c.prog, id, p.Hash(), strings.Join(stepIDs(p.Steps), ", "))
	}
}

// eventLine is one apply event as a line of progress.
func eventLine(ev migrate.Event) string {
	switch {
	case ev.Step != nil && ev.Kind == migrate.EventStepStarted:
		return "apply: " + ev.Step.ID + " ..."
	case ev.Step != nil && ev.Kind == migrate.EventStepDone:
		return "apply: " + ev.Step.ID + " done"
	case ev.Step != nil && !strings.Contains(ev.Message, ev.Step.ID):
		return "apply: " + ev.Step.ID + ": " + ev.Message
	}
	return "apply: " + ev.Message
}

func (c *command) backfillCmd(args []string) int {
	fs := c.flags("backfill", "backfill [--concurrency N] [--ranges N] [--page-size N] LOOKUP_TABLE")
	scan := scanFlags(fs)
	pos, done := c.parse(fs, args, 1)
	if done >= 0 {
		return done
	}
	bo, err := scan()
	if err != nil {
		c.printf(c.stderr, "%s backfill: %v\n", c.prog, err)
		fs.Usage()
		return ExitUsage
	}
	lookup, known := lookupTable(c.ks, pos[0])
	if lookup == nil {
		if len(known) == 0 {
			c.printf(c.stderr, "%s backfill: keyspace %s has no lookup tables to backfill\n", c.prog, c.ks.Name())
		} else {
			c.printf(c.stderr, "%s backfill: %q is not a lookup table of keyspace %s (its lookup tables: %s)\n",
				c.prog, pos[0], c.ks.Name(), strings.Join(known, ", "))
		}
		return ExitUsage
	}
	bar := c.progress()
	bo.OnProgress = func(p migrate.BackfillProgress) {
		bar.mu.Lock()
		defer bar.mu.Unlock()
		bar.update(p)
	}
	res, err := c.be.backfill(c.ctx, c.d, c.ks, lookup, bo)
	bar.interrupt()
	if err != nil {
		return c.fail("backfill", err)
	}
	resumed := ""
	if res.Resumed {
		resumed = " (resumed an earlier run)"
	}
	c.printf(c.stdout, "backfill %s%s: %s primary rows scanned, %s lookup rows written\n",
		res.Lookup, resumed, thousands(res.Rows), thousands(res.Written))
	if !res.Verified {
		// Valued is counted by the verification over the whole table;
		// Rows is only what this run scanned (none, when a finished run is
		// verified again). The mismatch says which way it differs and why.
		c.printf(c.stdout, "verification failed: %s lookup rows for %s primary rows with a value\n",
			thousands(res.LookupRows), thousands(res.Valued))
		c.printf(c.stderr, "%s backfill: %s\n", c.prog, res.Mismatch)
		return ExitDifferences
	}
	c.printf(c.stdout, "verified: %s lookup rows\n", thousands(res.LookupRows))
	return ExitOK
}

func (c *command) historyCmd(args []string) int {
	fs := c.flags("history", "history")
	if _, done := c.parse(fs, args, 0); done >= 0 {
		return done
	}
	recs, err := c.be.history(c.ctx, c.d, c.ks)
	if err != nil {
		return c.fail("history", err)
	}
	if len(recs) == 0 {
		c.printf(c.stdout, "keyspace %s: no migrations recorded\n", c.ks.Name())
		return ExitOK
	}
	slices.SortStableFunc(recs, func(a, b migrate.HistoryRecord) int { return a.AppliedAt.Compare(b.AppliedAt) })
	c.printf(c.stdout, "%s", historyTable(recs))
	return ExitOK
}

// lookupTable resolves name, as given on the command line, to ks's
// lookup table of that name (ks.LookupTable; the CQL spelling, quoted,
// is taken too), or returns nil and the names of ks's lookup tables.
func lookupTable(ks *kandra.Keyspace, name string) (*kandra.LookupTableSchema, []string) {
	if l := ks.LookupTable(name); l != nil {
		return l, nil
	}
	var known []string
	for _, t := range ks.Tables() {
		for _, l := range t.LookupTables() {
			if l.CQLName() == name {
				return l, nil
			}
			known = append(known, l.Name())
		}
	}
	return nil, known
}

// stepIDs lists the steps' IDs.
func stepIDs(steps []migrate.Step) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = s.ID
	}
	return out
}

func withNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// importCmd writes the Go entities of a live keyspace (migrate.Import):
// the source to stdout or -o's file, what it does not express and its
// notes to stderr. Something not expressed is exit 1: the model is
// written, and the keyspace keeps what it lacks.
func (c *command) importCmd(args []string) int {
	fs := c.flags("import", "import [--keyspace NAME] [--package NAME] [--file PATH.cql] [-o FILE]")
	keyspace := fs.String("keyspace", "", "the keyspace to read (default: the program's; with --file, the only one the file names)")
	pkg := fs.String("package", "", "the generated file's package clause (default schema)")
	file := fs.String("file", "", "read the keyspace from this .cql schema file instead of the server")
	out := fs.String("o", "", "write the Go file there instead of to stdout")
	if _, done := c.parse(fs, args, 0); done >= 0 {
		return done
	}
	if *keyspace == "" && c.ks != nil {
		*keyspace = c.ks.Name()
	}
	if *keyspace == "" && *file == "" {
		c.printf(c.stderr, "%s import: no keyspace to read; give --keyspace NAME\n", c.prog)
		fs.Usage()
		return ExitUsage
	}
	var imp *migrate.Imported
	var err error
	if *file != "" {
		// The file alone: no server to ask, so the model targets what
		// the program's keyspace targets (every target without one).
		src, rerr := os.ReadFile(*file)
		if rerr != nil {
			c.printf(c.stderr, "%s import: %v\n", c.prog, rerr)
			return ExitUsage
		}
		opts := migrate.ImportOptions{Package: *pkg}
		if c.ks != nil {
			opts.Targets = c.ks.Targets()
		}
		if *keyspace == "" {
			// The file's only keyspace, named for the messages below.
			if sf, perr := migrate.ParseSchemaFile(src, ""); perr == nil && sf.Live.Keyspace != nil {
				*keyspace = sf.Live.Keyspace.Name
			}
		}
		imp, err = migrate.ImportFile(src, *keyspace, opts)
	} else {
		if c.d == nil {
			c.printf(c.stderr, "%s: cli.Run needs a driver; the program passed nil (import --file reads a schema file without one)\n", c.prog)
			return ExitError
		}
		imports := c.be.imports
		if imports == nil { // a backend made before import (the tests')
			imports = migrate.Import
		}
		imp, err = imports(c.ctx, c.d, *keyspace, migrate.ImportOptions{Package: *pkg})
	}
	if err != nil {
		var me *kerrors.MigrationError
		if errors.As(err, &me) && me.Cause == nil {
			// Nothing to import (a missing keyspace, a bad package name):
			// the user's to fix, not the server's.
			c.printf(c.stderr, "%s import: %v\n", c.prog, err)
			return ExitUsage
		}
		return c.fail("import", err)
	}
	if *out == "" {
		if _, err := c.stdout.Write(imp.Source); err != nil {
			return c.fail("import", err)
		}
	} else {
		if err := os.WriteFile(*out, imp.Source, 0o644); err != nil {
			return c.fail("import", err)
		}
		c.printf(c.stderr, "%s import: keyspace %s written to %s: %d entities (%s), %d user-defined types\n",
			c.prog, *keyspace, *out, len(imp.Entities), strings.Join(imp.Entities, ", "), len(imp.Types))
	}
	for _, n := range imp.Notes {
		c.printf(c.stderr, "note: %s\n", n)
	}
	for _, u := range imp.Unexpressed {
		c.printf(c.stderr, "not expressed: %s\n", u)
	}
	if len(imp.Unexpressed) > 0 {
		c.printf(c.stderr, "%s import: %d thing(s) of keyspace %s are not in the model (listed above): the keyspace keeps them, and a plan of the model lists its tables and columns among its extras\n",
			c.prog, len(imp.Unexpressed), *keyspace)
		return ExitDifferences
	}
	return ExitOK
}
