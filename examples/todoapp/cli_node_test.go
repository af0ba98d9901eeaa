package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The built todoapp binary on a real node (skipped without one, unless
// KANDRA_REQUIRE_CASSANDRA=1): its schema subcommand through plan, apply,
// validate and history, then two drifts of the live keyspace, and the
// start-up policy of main.go's doc comment.
func TestSchemaCommandOnNode(t *testing.T) {
	needNode(t)
	start := time.Now()
	bin := filepath.Join(t.TempDir(), "todoapp")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	ks := "todoapp_cli_" + hex.EncodeToString(b)
	s, err := session()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec(); s.Close() })

	type run struct {
		code           int
		stdout, stderr string
	}
	todoapp := func(args ...string) run {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "KANDRA_KEYSPACE="+ks, "KANDRA_RF=1", "KANDRA_STARTUP=")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("todoapp %v: %v", args, err)
		}
		r := run{cmd.ProcessState.ExitCode(), out.String(), errb.String()}
		t.Logf("todoapp %s -> %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		return r
	}
	expect := func(r run, code int, stdout ...string) {
		t.Helper()
		if r.code != code {
			t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
		}
		for _, w := range stdout {
			if !strings.Contains(r.stdout, w) {
				t.Fatalf("stdout lacks %q:\n%s", w, r.stdout)
			}
		}
	}
	cql := func(stmt string) {
		t.Helper()
		if err := s.Query(stmt).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}

	// A fresh keyspace: validate lists what is missing; plan shows it.
	expect(todoapp("schema", "validate"), 1, "create-keyspace:"+ks+" [safe]", "create-table:users [safe]")
	expect(todoapp("schema", "plan"), 0, "create-table:users ", "create-lookup-table:users_by_email ")
	r := todoapp("-keyspace", ks, "schema", "plan", "--cql")
	expect(r, 0, "CREATE KEYSPACE IF NOT EXISTS "+ks, "CREATE TABLE IF NOT EXISTS "+ks+".users (")
	if !regexp.MustCompile(`plan hash: [0-9a-f]{32}`).MatchString(r.stdout) {
		t.Fatalf("no plan hash in the script:\n%s", r.stdout)
	}

	// Apply, then in sync; a second apply does nothing. Apply creates the
	// keyspace before it takes the lease (the lease lives in it) and
	// records that step with the rest, so the record holds the very steps
	// and hash plan printed.
	r = todoapp("schema", "apply", "--owner", "cli-test")
	expect(r, 0, "applied 7 step(s) to keyspace "+ks+" (plan ", "  create-keyspace:"+ks+"\n", "  create-table:users\n", "  create-lookup-table:users_by_ticket_ref\n",
		"recorded in "+ks+".kandra_schema_history: owner cli-test")
	if !strings.Contains(r.stderr, "apply: lease acquired") || !strings.Contains(r.stderr, "apply: create-table:users done") {
		t.Fatalf("apply's events:\n%s", r.stderr)
	}
	hash := regexp.MustCompile(`\(plan ([0-9a-f]{32})\)`).FindStringSubmatch(r.stdout)
	if hash == nil {
		t.Fatalf("no plan hash in apply's output:\n%s", r.stdout)
	}
	expect(todoapp("schema", "validate"), 0, "keyspace "+ks+" matches the model")
	expect(todoapp("schema", "apply"), 0, "keyspace "+ks+" matches the model: nothing to apply")
	r = todoapp("schema", "history")
	expect(r, 0, "cli-test", hash[1], "create-table:users")
	if n := strings.Count(r.stdout, "\n"); n != 2 {
		t.Fatalf("history: want a header and one record, got %d lines", n)
	}

	// The tutorial starts on the keyspace; a backfill of its lookup finds
	// its rows (the demo's user, whose email changed once).
	expect(todoapp(), 0, "stale theme change refused")
	r = todoapp("schema", "backfill", "users_by_email", "--ranges", "8")
	expect(r, 0, "backfill users_by_email: 1 primary rows scanned", "verified: 1 lookup rows")
	if !strings.Contains(r.stderr, "backfill users_by_email: 8/8 ranges") || strings.Contains(r.stderr, "\r") {
		t.Fatalf("backfill progress, not a terminal: want plain lines:\n%s", r.stderr)
	}

	// Drift 1: an option changed behind the app's back. A difference that
	// needs approval: validate and apply exit 1, the app refuses to start,
	// until apply --approve.
	cql("ALTER TABLE " + ks + ".users WITH default_time_to_live = 3600")
	expect(todoapp("schema", "validate"), 1, "options:users [needs approval]", "default_time_to_live is 3600 in live, 0 in the model")
	expect(todoapp("schema", "apply"), 1, "not applied, 1 step(s) need approval:\n  options:users", "apply --approve options:users")
	r = todoapp()
	if r.code != 1 || !strings.Contains(r.stderr, "not starting: keyspace "+ks+" has 1 schema step(s) that need approval") {
		t.Fatalf("start-up on a keyspace with an unapproved step: %+v", r)
	}
	expect(todoapp("schema", "apply", "--approve", "options:users"), 0, "  options:users\n")
	expect(todoapp("schema", "validate"), 0, "matches the model")

	// Drift 2: a column dropped. -startup check refuses to start; the
	// default start-up adds it back (a safe step) and runs.
	cql("ALTER TABLE " + ks + ".users DROP name")
	expect(todoapp("schema", "validate"), 1, "add-column:users.name [safe]")
	r = todoapp("-startup", "check")
	if r.code != 1 || !strings.Contains(r.stderr, "not starting: ") || !strings.Contains(r.stderr, "add-column:users.name") {
		t.Fatalf("-startup check on a drifted keyspace: %+v", r)
	}
	r = todoapp()
	expect(r, 0, "stale theme change refused")
	if !strings.Contains(r.stderr, "schema: applied add-column:users.name") {
		t.Fatalf("start-up did not report the step it applied:\n%s", r.stderr)
	}
	expect(todoapp("schema", "validate"), 0, "matches the model")
	r = todoapp("schema", "history")
	expect(r, 0, "options:users", "add-column:users.name")
	if n := strings.Count(r.stdout, "\n"); n != 4 {
		t.Fatalf("history: want a header and three records, got %d lines", n)
	}

	// Usage: exit 2 without touching the node.
	r = todoapp("schema", "apply", "--approve")
	if r.code != 2 || !strings.Contains(r.stderr, "flag needs an argument") {
		t.Fatalf("usage error: %+v", r)
	}
	if r := todoapp("schema", "--help"); r.code != 0 || !strings.Contains(r.stdout, "Usage: todoapp schema <command>") {
		t.Fatalf("help: %+v", r)
	}
	t.Logf("real-server: todoapp schema command ok in %s", time.Since(start).Round(time.Millisecond))
}
