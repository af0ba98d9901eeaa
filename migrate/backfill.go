package migrate

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
)

// BackfillOptions tune Backfill.
type BackfillOptions struct {
	// Concurrency is how many token ranges are scanned at once (default 4).
	Concurrency int
	// Ranges is how many pieces the token ring is split into (default 4 ×
	// Concurrency). A resumed backfill keeps the split it started with.
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
	if o.Ranges <= 0 {
		o.Ranges = 4 * o.Concurrency
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

// tokenRange is (Start, End] of the Murmur3 ring.
type tokenRange struct{ Start, End int64 }

// splitRing splits the whole Murmur3 ring, (MinInt64, MaxInt64], into n
// contiguous ranges of near-equal width. MinInt64 itself is no token (the
// partitioner maps it to MaxInt64), so the first range's exclusive start
// loses nothing.
func splitRing(n int) []tokenRange {
	if n < 1 {
		n = 1
	}
	width := math.MaxUint64 / uint64(n)
	out := make([]tokenRange, n)
	start := int64(math.MinInt64)
	for i := range out {
		end := int64(uint64(start) + width) // wraps from negative to positive on purpose
		if i == n-1 {
			end = math.MaxInt64
		}
		out[i] = tokenRange{start, end}
		start = end
	}
	return out
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

	// Resume or start.
	rows, err := d.QueryCQL(ctx, "SELECT range_start, done_at, status, ranges FROM "+bt+" WHERE lookup = ?", []any{lookupTable}, kandra.ConsistencyQuorum)
	if err != nil {
		return fail("reading "+bt, err)
	}
	done := map[int64]bool{}
	n := 0
	if len(rows) > 0 && str(rows[0]["status"]) != "done" {
		n = toInt(rows[0]["ranges"])
		for _, r := range rows {
			if _, ok := r["done_at"].(time.Time); ok {
				done[toInt64(r["range_start"])] = true
			}
		}
	}
	if n > 0 {
		res.Resumed = len(done) > 0
	} else {
		n = opts.Ranges
		done = map[int64]bool{}
		if _, err := d.ExecCQL(ctx, "DELETE FROM "+bt+" WHERE lookup = ?", []any{lookupTable}, kandra.ConsistencyQuorum); err != nil {
			return fail("clearing "+bt, err)
		}
		if _, err := d.ExecCQL(ctx, "INSERT INTO "+bt+" (lookup, status, ranges) VALUES (?, 'running', ?)", []any{lookupTable, n}, kandra.ConsistencyQuorum); err != nil {
			return fail("writing "+bt, err)
		}
	}
	ranges := splitRing(n)

	// Fill.
	start := time.Now()
	var scanned, written atomic.Int64
	var mu sync.Mutex
	rangesDone, doneThisRun := len(done), 0
	report := func() {
		if opts.OnProgress == nil {
			return
		}
		el := time.Since(start)
		p := BackfillProgress{Lookup: lookupTable, Rows: scanned.Load(), RangesDone: rangesDone, Ranges: n, Elapsed: el}
		if s := el.Seconds(); s > 0 {
			p.RowsPerSecond = float64(p.Rows) / s
		}
		if doneThisRun > 0 {
			p.Remaining = time.Duration(float64(el) * float64(n-rangesDone) / float64(doneThisRun))
		}
		opts.OnProgress(p)
	}
	err = forRanges(ctx, ranges, opts.Concurrency, func(ctx context.Context, r tokenRange) error {
		if done[r.Start] {
			return nil
		}
		st, err := lb.Fill(ctx, r.Start, r.End, opts.PageSize, kandra.ConsistencyQuorum, func(page int64) {
			scanned.Add(page)
			mu.Lock()
			report()
			mu.Unlock()
		})
		written.Add(st.Valued)
		if err != nil {
			return err
		}
		if _, err := d.ExecCQL(ctx, "INSERT INTO "+bt+" (lookup, range_start, range_end, rows, done_at) VALUES (?, ?, ?, ?, ?)",
			[]any{lookupTable, r.Start, r.End, st.Rows, time.Now().UTC()}, kandra.ConsistencyQuorum); err != nil {
			return fmt.Errorf("recording range (%d, %d] in %s: %w", r.Start, r.End, bt, err)
		}
		mu.Lock()
		rangesDone++
		doneThisRun++
		report()
		mu.Unlock()
		return nil
	})
	res.Rows, res.Written = scanned.Load(), written.Load()
	if err != nil {
		return fail(fmt.Sprintf("stopped after %d of %d ranges (run it again to resume)", rangesDone, n), err)
	}

	// Verify.
	var valued, lookupRows atomic.Int64
	// A lookup table's partition key is the indexed column alone.
	tok := "token(" + l.IndexColumn().CQLName() + ")"
	count := "SELECT COUNT(*) AS n FROM " + qualified(ks.Name(), l.CQLName()) + " WHERE " + tok + " > ? AND " + tok + " <= ?"
	err = forRanges(ctx, ranges, opts.Concurrency, func(ctx context.Context, r tokenRange) error {
		st, err := lb.Count(ctx, r.Start, r.End, opts.PageSize, kandra.ConsistencyQuorum)
		if err != nil {
			return err
		}
		valued.Add(st.Valued)
		rows, err := d.QueryCQL(ctx, count, []any{r.Start, r.End}, kandra.ConsistencyQuorum)
		if err != nil {
			return fmt.Errorf("counting %s: %w", lookupTable, err)
		}
		if len(rows) > 0 {
			lookupRows.Add(toInt64(rows[0]["n"]))
		}
		return nil
	})
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

// forRanges runs fn on every range, at most conc at a time; the first
// error cancels the others and is returned.
func forRanges(ctx context.Context, ranges []tokenRange, conc int, fn func(context.Context, tokenRange) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sem := make(chan struct{}, conc)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for _, r := range ranges {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func(r tokenRange) {
			defer wg.Done()
			defer func() { <-sem }()
			if err := fn(ctx, r); err != nil {
				once.Do(func() { first = err; cancel(err) })
			}
		}(r)
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return context.Cause(ctx)
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

func toInt(v any) int { return int(toInt64(v)) }
