package migrate

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/tokenscan"
	"github.com/kandra-go/kandra/kerrors"
)

// BackfillOptions tune Backfill.
type BackfillOptions struct {
	// Concurrency is how many token ranges are scanned at once (default 4).
	Concurrency int
	// Ranges, if set, cuts the token ring into that many even pieces. By
	// default the ring is cut where the live ring is (each node's vnode
	// tokens, or ScyllaDB's tablets of the table), into at least 4 ×
	// Concurrency pieces. A resumed backfill reads what the ranges an
	// earlier run finished leave, whatever cut that run made.
	Ranges int
	// PageSize is the rows of one page of a scan (default 1000), at most
	// maxPageSize: the protocol carries it as a 32-bit int.
	PageSize int
	// OnProgress, if set, is called after each page and each finished
	// range, from the scanning goroutines one at a time.
	OnProgress func(BackfillProgress)
	// Observer, if set, sees every statement the backfill sends (see
	// kandra.Observer): its scans and lookup rows (operation
	// kandra.OpBackfill) and its bookkeeping (kandra.OpMigrate).
	Observer kandra.Observer
}

// BackfillProgress is where a backfill stands.
type BackfillProgress struct {
	// Lookup is the lookup table being filled.
	Lookup string
	// Rows is the primary rows scanned so far in this run.
	Rows int64
	// RangesDone of Ranges are finished (including those a resumed run
	// skipped).
	RangesDone, Ranges int
	// Elapsed is the time since this run started; Remaining estimates the
	// time left from the rate of the ranges finished in this run (0 until
	// one finished).
	Elapsed, Remaining time.Duration
	// RowsPerSecond is Rows over Elapsed.
	RowsPerSecond float64
}

// String renders "users_by_email: 5000 rows, 3/16 ranges, 2500 rows/s, 4s left".
func (p BackfillProgress) String() string {
	s := fmt.Sprintf("%s: %d rows, %d/%d ranges, %.0f rows/s", p.Lookup, p.Rows, p.RangesDone, p.Ranges, p.RowsPerSecond)
	if p.Remaining > 0 {
		s += ", " + p.Remaining.Round(time.Second).String() + " left"
	}
	return s
}

// BackfillResult is what a backfill did and found.
type BackfillResult struct {
	// Lookup is the lookup table filled.
	Lookup string
	// Rows is the primary rows scanned in this run; Written the lookup
	// rows written (rows with an empty value get none).
	Rows, Written int64
	// Valued is the primary rows with a non-empty value, counted by the
	// verification; LookupRows the rows of the lookup table.
	Valued, LookupRows int64
	// Verified reports Valued == LookupRows.
	Verified bool
	// Mismatch says what differs when not Verified.
	Mismatch string
	// Resumed reports that finished ranges of an earlier run were skipped.
	Resumed bool
}

func (o *BackfillOptions) defaults() {
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.PageSize <= 0 {
		o.PageSize = 1000
	}
}

// check refuses what the defaults leave out of range: a page size the
// protocol cannot carry would be cut to its low 32 bits.
func (o *BackfillOptions) check() error {
	if o.PageSize > maxPageSize {
		return &kerrors.MigrationError{Message: fmt.Sprintf("BackfillOptions.PageSize %d is more than the protocol carries (a 32-bit int, %d); "+
			"use a page size of 1 to %[2]d, or 0 for the default 1000", o.PageSize, maxPageSize)}
	}
	return nil
}

func qualified(keyspace, table string) string {
	return kandra.QuoteIdent(keyspace) + "." + table
}

// Backfill fills lookup, a lookup table of ks (ks.LookupTable(name), or
// TableSchema.LookupTables of one of ks's tables), from its primary table:
// it scans the primary table by token ranges (opts.Ranges pieces, at most
// opts.Concurrency at a time, paged), writes each row's lookup row
// through the lookup's own insert statement and the adapter's conversions (as
// Save does, none for an empty value), records each finished range in
// kandra_backfill, and ends with a verification: the primary rows with a
// non-empty value against the lookup table's rows. A run that stopped
// (error, cancellation, kill) is resumed by the next: the finished ranges
// are skipped (Resumed). Backfill takes no lease: the rows it writes are
// what Save writes, so it can run beside the app and beside itself.
//
// A nil lookup, or one that is not ks's (of a table not given to
// kandra.NewKeyspace for ks), is a *kerrors.MigrationError.
func Backfill(ctx context.Context, d adapter.Driver, ks *kandra.Keyspace, lookup *kandra.LookupTableSchema, opts BackfillOptions) (*BackfillResult, error) {
	return backfillWith(ctx, wrap(d), ks, lookup, opts)
}

// backfillWith is Backfill on the migrator's driver.
func backfillWith(ctx context.Context, d driver, ks *kandra.Keyspace, lookup *kandra.LookupTableSchema, opts BackfillOptions) (*BackfillResult, error) {
	opts.defaults()
	if err := opts.check(); err != nil {
		return nil, err
	}
	if ks == nil {
		return nil, &kerrors.MigrationError{Message: "backfill: nil *kandra.Keyspace; build the model with kandra.NewKeyspace"}
	}
	if lookup == nil {
		return nil, &kerrors.MigrationError{Message: "backfill: nil *kandra.LookupTableSchema; pass one of keyspace " + ks.Name() +
			"'s lookup tables (ks.LookupTable(name), for example users_by_email)"}
	}
	d = observing(d, ks.Name(), opts.Observer)
	lookupTable := lookup.Name()
	if err := notOf(ks, lookup); err != nil {
		return nil, err
	}
	l := lookup
	lb, err := newLookupFill(d, ks, l)
	if err != nil {
		return nil, err
	}
	live, err := Read(ctx, d, ks)
	if err != nil {
		return nil, err
	}
	if live.Table(lookupTable) == nil {
		return nil, &kerrors.MigrationError{Message: "backfill: lookup table " + ks.Name() + "." + lookupTable + " does not exist; run apply first"}
	}
	if live.Table(BackfillTable) == nil {
		if err := ensureInfra(ctx, d, ks, live.Server); err != nil {
			return nil, err
		}
	}
	res := &BackfillResult{Lookup: lookupTable}
	bt := qualified(ks.Name(), BackfillTable)
	fail := func(what string, err error) (*BackfillResult, error) {
		return res, &kerrors.MigrationError{Message: "backfill of " + lookupTable + ": " + what, Cause: err}
	}

	// Resume or start: the ranges an earlier run finished are left out of
	// the ring, whatever cut that run made.
	rows, err := d.QueryCQL(ctx, "SELECT range_start, range_end, done_at, status FROM "+bt+" WHERE lookup = ?", []any{lookupTable}, kandra.ConsistencyQuorum)
	if err != nil {
		return fail("reading "+bt, err)
	}
	var done []tokenscan.Range
	started := len(rows) > 0 && str(rows[0]["status"]) != "done"
	if started {
		for _, r := range rows {
			if _, ok := r["done_at"].(time.Time); ok {
				done = append(done, tokenscan.Range{Start: toInt64(r["range_start"]), End: toInt64(r["range_end"])})
			}
		}
	}
	ring, _ := tokenscan.Plan(ctx, d, ks.Name(), l.Table().Name(), opts.Ranges, 4*opts.Concurrency)
	todo := tokenscan.Minus(ring, done)
	n := len(done) + len(todo)
	if started {
		res.Resumed = len(done) > 0
	} else {
		if _, err := d.ExecCQL(ctx, "DELETE FROM "+bt+" WHERE lookup = ?", []any{lookupTable}, kandra.ConsistencyQuorum); err != nil {
			return fail("clearing "+bt, err)
		}
		if _, err := d.ExecCQL(ctx, "INSERT INTO "+bt+" (lookup, status, ranges) VALUES (?, 'running', ?)", []any{lookupTable, n}, kandra.ConsistencyQuorum); err != nil {
			return fail("writing "+bt, err)
		}
	}

	// Fill.
	pieces := tokenscan.Pieces(todo)
	rangeRows := make(map[tokenscan.Range]*atomic.Int64, len(todo)) // read-only once made
	for _, r := range todo {
		rangeRows[r] = new(atomic.Int64)
	}
	var scanned, written atomic.Int64
	meter := tokenscan.NewMeter(n, len(done))
	report := func() {
		if opts.OnProgress == nil {
			return
		}
		m := meter.Read()
		opts.OnProgress(BackfillProgress{Lookup: lookupTable, Rows: m.Rows, RangesDone: m.RangesDone, Ranges: m.Ranges,
			Elapsed: m.Elapsed, Remaining: m.Remaining, RowsPerSecond: m.RowsPerSecond})
	}
	err = tokenscan.Run(ctx, pieces, opts.Concurrency, func(ctx context.Context, r tokenscan.Range, state []byte) ([]byte, int64, error) {
		next, st, err := lb.page(ctx, r, state, opts.PageSize, kandra.ConsistencyQuorum, true)
		written.Add(st.Valued)
		scanned.Add(st.Rows)
		total := rangeRows[r].Add(st.Rows)
		if err != nil || len(next) > 0 {
			return next, st.Rows, err
		}
		if _, err := d.ExecCQL(ctx, "INSERT INTO "+bt+" (lookup, range_start, range_end, rows, done_at) VALUES (?, ?, ?, ?, ?)",
			[]any{lookupTable, r.Start, r.End, total, time.Now().UTC()}, kandra.ConsistencyQuorum); err != nil {
			return nil, st.Rows, fmt.Errorf("recording range (%d, %d] in %s: %w", r.Start, r.End, bt, err)
		}
		return nil, st.Rows, nil
	}, func(_ int, p tokenscan.Piece, rows int64) {
		meter.Add(rows, p.Done)
		report()
	})
	res.Rows, res.Written = scanned.Load(), written.Load()
	if err != nil {
		return fail(fmt.Sprintf("stopped after %d of %d ranges (run it again to resume)", meter.Read().RangesDone, n), err)
	}

	// Verify.
	var valued, lookupRows atomic.Int64
	// A lookup table's partition key is the indexed column alone.
	tok := "token(" + l.IndexColumn().CQLName() + ")"
	count := "SELECT COUNT(*) AS n FROM " + qualified(ks.Name(), l.CQLName()) + " WHERE " + tok + " > ? AND " + tok + " <= ?"
	err = tokenscan.Run(ctx, tokenscan.Pieces(ring), opts.Concurrency, func(ctx context.Context, r tokenscan.Range, _ []byte) ([]byte, int64, error) {
		st, err := lb.Count(ctx, r.Start, r.End, opts.PageSize, kandra.ConsistencyQuorum)
		if err != nil {
			return nil, 0, err
		}
		valued.Add(st.Valued)
		rows, err := d.QueryCQL(ctx, count, []any{r.Start, r.End}, kandra.ConsistencyQuorum)
		if err != nil {
			return nil, 0, fmt.Errorf("counting %s: %w", lookupTable, err)
		}
		if len(rows) > 0 {
			lookupRows.Add(toInt64(rows[0]["n"]))
		}
		return nil, st.Rows, nil
	}, nil)
	if err != nil {
		return fail("verification failed to run", err)
	}
	res.Valued, res.LookupRows = valued.Load(), lookupRows.Load()
	res.Verified = res.Valued == res.LookupRows
	if !res.Verified {
		idx := l.IndexColumn().Name()
		res.Mismatch = fmt.Sprintf("%s has %d rows with a non-empty %s, %s has %d rows", l.Table().Name(), res.Valued, idx, lookupTable, res.LookupRows)
		if res.LookupRows < res.Valued {
			res.Mismatch += " (fewer: rows that share one value have one lookup row between them, which no backfill can change: make the values unique or drop the lookup; or rows were written while verifying: run it again)"
		} else {
			res.Mismatch += " (more: lookup rows of values that moved or were deleted before the backfill, which Find skips as stale; or rows were deleted while verifying: run it again)"
		}
		return res, nil
	}
	if _, err := d.ExecCQL(ctx, "INSERT INTO "+bt+" (lookup, status) VALUES (?, 'done')", []any{lookupTable}, kandra.ConsistencyQuorum); err != nil {
		return fail("recording completion in "+bt, err)
	}
	return res, nil
}

// notOf is the error of Backfill for a lookup table that is not one of
// ks's (under kandra.RuleNotInKeyspace): named, with the lookup tables ks
// has and the way to get one.
func notOf(ks *kandra.Keyspace, lookup *kandra.LookupTableSchema) error {
	name := lookup.Name()
	l := ks.LookupTable(name)
	if l == lookup && ks.Has(lookup.Table()) {
		return nil
	}
	var known []string
	for _, t := range ks.Tables() {
		for _, l := range t.LookupTables() {
			known = append(known, l.Name())
		}
	}
	has := "it has none"
	if len(known) > 0 {
		has = "its lookup tables: " + strings.Join(known, ", ")
	}
	msg := "backfill: keyspace " + ks.Name() + " has no lookup table " + name + " (" + has + "); pass one of ks.LookupTable(name)"
	if l != nil {
		// Same name, other schema: a lookup of another keyspace value
		// (another version of the model) than the one being migrated.
		msg = "backfill: lookup table " + name + " is not keyspace " + ks.Name() + "'s: its table " + lookup.Table().Name() +
			" is not the schema given to kandra.NewKeyspace for it (another version of the model?); pass ks.LookupTable(" + strconv.Quote(name) + ")"
	}
	return &kerrors.MigrationError{Message: msg, Rule: string(kandra.RuleNotInKeyspace)}
}

// markPending records in kandra_backfill that the backfill of lookupTable
// is owed (planned but not approved).
func markPending(ctx context.Context, d driver, keyspace, lookupTable string) error {
	_, err := d.ExecCQL(ctx, "INSERT INTO "+qualified(keyspace, BackfillTable)+" (lookup, status) VALUES (?, 'pending')", []any{lookupTable}, kandra.ConsistencyQuorum)
	if err != nil {
		return &kerrors.MigrationError{Message: "recording the pending backfill of " + lookupTable + " in " + keyspace + "." + BackfillTable + " failed", Cause: err}
	}
	return nil
}

// pendingBackfills names, sorted, the lookup tables of keyspace whose
// backfill kandra_backfill records as owed or unfinished (none when live
// has no such table): Live.PendingBackfills.
func pendingBackfills(ctx context.Context, d driver, keyspace string, live *Live) ([]string, error) {
	if live.Table(BackfillTable) == nil {
		return nil, nil
	}
	rows, err := d.QueryCQL(ctx, "SELECT DISTINCT lookup, status FROM "+qualified(keyspace, BackfillTable), nil, kandra.ConsistencyQuorum)
	if err != nil {
		return nil, &kerrors.MigrationError{Message: "reading " + keyspace + "." + BackfillTable + " failed", Cause: err}
	}
	var out []string
	for _, r := range rows {
		if name := str(r["lookup"]); name != "" && str(r["status"]) != "done" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func str(v any) string { s, _ := v.(string); return s }

func toInt64(v any) int64 {
	switch x := v.(type) {
	case int:
		return int64(x)
	case int64:
		return x
	case int32:
		return int64(x)
	}
	return 0
}
