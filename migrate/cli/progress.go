package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/kandra-go/kandra/migrate"
)

// isTerminal reports whether w is a character device (a terminal), where
// a redrawn bar reads well; in a log file or a pipe it would be noise.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// termWidth is the terminal's width from COLUMNS, which shells export,
// else 80: asking the terminal itself would need a dependency.
func termWidth() int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n >= 20 {
		return n
	}
	return 80
}

// progress shows backfill progress on stderr: a bar redrawn in place on a
// terminal, otherwise a plain line per finished token range (at most one
// a second), so that logs stay readable.
type progress struct {
	mu       sync.Mutex // held by the callers of update and interrupt that run concurrently
	c        *command
	drawn    bool      // a bar is on the current line
	last     time.Time // when the last line or bar was written
	lastDone int       // RangesDone of the last plain line
}

func (c *command) progress() *progress { return &progress{c: c, lastDone: -1} }

// update shows p.
func (b *progress) update(p migrate.BackfillProgress) {
	now := b.c.now()
	finished := p.Ranges > 0 && p.RangesDone >= p.Ranges
	if b.c.term {
		// Redrawing more than ten times a second only costs the scan time.
		if b.drawn && !finished && now.Sub(b.last) < 100*time.Millisecond {
			return
		}
		// One column short of the width: writing the last column wraps
		// the line on some terminals, and \r then redraws the wrong one.
		b.c.printf(b.c.stderr, "\r%s", render(p, b.c.width-1))
		b.drawn, b.last = true, now
		return
	}
	if p.RangesDone == b.lastDone {
		return
	}
	if !finished && now.Sub(b.last) < time.Second && b.lastDone >= 0 {
		return
	}
	b.c.printf(b.c.stderr, "%s\n", plainLine(p))
	b.last, b.lastDone = now, p.RangesDone
}

// interrupt ends a drawn bar's line, before other output or at the end.
func (b *progress) interrupt() {
	if b.drawn {
		b.c.printf(b.c.stderr, "\n")
		b.drawn = false
	}
}

// plainLine is p as one line for a log.
func plainLine(p migrate.BackfillProgress) string {
	return fmt.Sprintf("backfill %s: %d/%d ranges, %s rows, %s rows/s, %s left",
		p.Lookup, p.RangesDone, p.Ranges, thousands(p.Rows), rate(p.RowsPerSecond), left(p))
}

// render draws p as a bar line exactly width columns wide (padded with
// spaces), for example
//
//	users_by_email [##########----------]  50% 16/32 ranges 5,000 rows 1,250/s 4s left
//
// The figures come first: when the width is short the name goes, then the
// bar, then the figures are cut.
func render(p migrate.BackfillProgress, width int) string {
	if width <= 0 {
		return ""
	}
	frac := 0.0
	if p.Ranges > 0 {
		frac = min(max(float64(p.RangesDone)/float64(p.Ranges), 0), 1)
	}
	// RangesDone is padded to the width of Ranges, and the time left to
	// the width of "0s" (from "?" when the last range finishes), so that
	// the figures do not grow as ranges finish and take cells from the
	// bar.
	total := strconv.Itoa(p.Ranges)
	info := fmt.Sprintf("%3d%% %*d/%s ranges %s rows %s/s %2s left",
		int(frac*100), len(total), p.RangesDone, total, thousands(p.Rows), rate(p.RowsPerSecond), left(p))
	const minBar = 10
	room := width - utf8.RuneCountInString(info) - 3 // the brackets and a space
	label := p.Lookup + " "
	if room-utf8.RuneCountInString(label) >= minBar {
		room -= utf8.RuneCountInString(label)
	} else {
		label = ""
	}
	var line string
	if room >= minBar {
		filled := int(frac * float64(room))
		line = label + "[" + strings.Repeat("#", filled) + strings.Repeat("-", room-filled) + "] " + info
	} else {
		line = info
	}
	if n := utf8.RuneCountInString(line); n < width {
		return line + strings.Repeat(" ", width-n)
	}
	return string([]rune(line)[:width])
}

// left is the estimated time left, "?" before there is an estimate.
func left(p migrate.BackfillProgress) string {
	if p.Ranges > 0 && p.RangesDone >= p.Ranges {
		return "0s"
	}
	if p.Remaining <= 0 {
		return "?"
	}
	return p.Remaining.Round(time.Second).String()
}

// rate is rows per second, rounded.
func rate(r float64) string {
	if r < 0 || r != r { // a negative or NaN rate is no estimate
		return "?"
	}
	return thousands(int64(r + 0.5))
}

// thousands writes n with comma separators: 1,234,567.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// historyTable lays out history records as aligned columns.
func historyTable(recs []migrate.HistoryRecord) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	_, _ = fmt.Fprintln(tw, "APPLIED AT (UTC)\tOWNER\tPLAN\tSTEPS")
	for _, r := range recs {
		_, _ = fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.AppliedAt.UTC().Format("2006-01-02 15:04:05"),
			r.Owner, r.PlanHash, strings.Join(r.Steps, ", "))
	}
	_ = tw.Flush()
	return b.String()
}
