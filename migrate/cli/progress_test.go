package cli

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kandra-go/kandra/migrate"
	"pgregory.net/rapid"
)

func TestRender(t *testing.T) {
	p := migrate.BackfillProgress{Lookup: "users_by_email", Rows: 5000, RangesDone: 16, Ranges: 32,
		Elapsed: 4 * time.Second, Remaining: 4 * time.Second, RowsPerSecond: 1250}
	for _, tc := range []struct {
		p     migrate.BackfillProgress
		width int
		want  string
	}{
		{p, 80, "users_by_email [#########---------]  50% 16/32 ranges 5,000 rows 1,250/s 4s left"},
		// Narrower: the name goes first, then the bar, then the figures are cut.
		{p, 60, "[######-------]  50% 16/32 ranges 5,000 rows 1,250/s 4s left"},
		{p, 50, " 50% 16/32 ranges 5,000 rows 1,250/s 4s left      "},
		{p, 20, " 50% 16/32 ranges 5,"},
		{migrate.BackfillProgress{Lookup: "t", Ranges: 8}, 50, "t [-----------]   0% 0/8 ranges 0 rows 0/s  ? left"},
		{migrate.BackfillProgress{Lookup: "t", Rows: 1234567, RangesDone: 8, Ranges: 8, RowsPerSecond: 99999.6}, 70,
			"t [#################] 100% 8/8 ranges 1,234,567 rows 100,000/s 0s left"},
		// Before the ranges are split, Ranges is 0: no progress, no division.
		{migrate.BackfillProgress{Lookup: "t"}, 47, "[----------]   0% 0/0 ranges 0 rows 0/s  ? left"},
		{p, 0, ""},
	} {
		got := render(tc.p, tc.width)
		if got != tc.want {
			t.Errorf("render(%+v, %d) =\n%q\nwant\n%q", tc.p, tc.width, got, tc.want)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 123456: "123,456", 1234567: "1,234,567", -4500: "-4,500",
		math.MinInt64: "-9,223,372,036,854,775,808"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
	if rate(math.NaN()) != "?" || rate(-1) != "?" || rate(2.5) != "3" {
		t.Errorf("rate: %q %q %q", rate(math.NaN()), rate(-1), rate(2.5))
	}
}

// Properties of the bar: exactly width columns; the filled part is the
// finished share of the ranges, never more, and grows with it.
func TestRenderProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ranges := rapid.IntRange(0, 1<<20).Draw(t, "ranges")
		done := rapid.IntRange(0, ranges).Draw(t, "done")
		p := migrate.BackfillProgress{
			Lookup:        rapid.StringMatching(`[a-z_é]{0,30}`).Draw(t, "lookup"),
			Rows:          rapid.Int64Range(0, 1<<50).Draw(t, "rows"),
			RangesDone:    done,
			Ranges:        ranges,
			Remaining:     time.Duration(rapid.Int64Range(-1, int64(time.Hour*1000)).Draw(t, "remaining")),
			RowsPerSecond: rapid.Float64Range(-1, 1e9).Draw(t, "rate"),
		}
		width := rapid.IntRange(0, 300).Draw(t, "width")
		got := render(p, width)
		if n := utf8.RuneCountInString(got); n != width || strings.ContainsAny(got, "\r\n") {
			t.Fatalf("render is %d columns wide, want %d: %q", n, width, got)
		}
		filled, bar := barOf(got)
		if bar == 0 {
			return
		}
		want := 0
		if ranges > 0 {
			want = int(float64(done) / float64(ranges) * float64(bar))
		}
		if filled != want {
			t.Fatalf("%d of %d filled for %d/%d ranges, want %d: %q", filled, bar, done, ranges, want, got)
		}
		if done < ranges {
			p.RangesDone++
			if more, _ := barOf(render(p, width)); more < filled {
				t.Fatalf("the bar shrank from %d to %d as a range finished", filled, more)
			}
		}
	})
}

// barOf counts the filled and total cells of a rendered bar (0, 0 without one).
func barOf(line string) (filled, cells int) {
	i, j := strings.Index(line, "["), strings.Index(line, "]")
	if i < 0 || j < i {
		return 0, 0
	}
	cells = j - i - 1
	return strings.Count(line[i+1:j], "#"), cells
}

func TestPlainProgressThrottle(t *testing.T) {
	var b strings.Builder
	clk := &fakeClock{t: time.Unix(0, 0), step: 0}
	c := &command{stderr: &b, now: clk.now, width: 80}
	pr := c.progress()
	show := func(done int, after time.Duration) {
		clk.t = clk.t.Add(after)
		pr.update(migrate.BackfillProgress{Lookup: "l", RangesDone: done, Ranges: 10})
	}
	show(0, 0)                    // the first: shown
	show(0, 5*time.Second)        // no range finished: not shown
	show(1, 100*time.Millisecond) // shown: a range finished, 5.1s after the last line
	show(2, 200*time.Millisecond) // within a second of the last line: not shown
	show(3, 900*time.Millisecond) // shown
	show(10, 10*time.Millisecond) // the last: always shown
	show(10, 10*time.Second)      // repeated: not shown
	pr.interrupt()                // nothing drawn: no newline
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{"backfill l: 0/10 ranges", "backfill l: 1/10 ranges", "backfill l: 3/10 ranges", "backfill l: 10/10 ranges"}
	if len(lines) != len(want) {
		t.Fatalf("lines:\n%s", b.String())
	}
	for i := range want {
		if !strings.HasPrefix(lines[i], want[i]) {
			t.Fatalf("line %d = %q, want %q...", i, lines[i], want[i])
		}
	}
}

func TestTerminalProgress(t *testing.T) {
	var b strings.Builder
	clk := &fakeClock{t: time.Unix(0, 0), step: 0}
	c := &command{stderr: &b, now: clk.now, width: 40, term: true}
	pr := c.progress()
	for i, after := range []time.Duration{0, 10 * time.Millisecond, 200 * time.Millisecond, 0} {
		clk.t = clk.t.Add(after)
		pr.update(migrate.BackfillProgress{Lookup: "l", RangesDone: []int{1, 2, 3, 4}[i], Ranges: 4})
	}
	pr.interrupt()
	pr.interrupt() // a second call adds nothing
	// The second update came within 100ms of the first and is skipped; the
	// last finishes the scan and is always drawn.
	got := strings.Split(b.String(), "\r")
	if len(got) != 4 || got[0] != "" || !strings.HasSuffix(b.String(), "\n") || strings.Count(b.String(), "\n") != 1 {
		t.Fatalf("terminal output: %q", b.String())
	}
	for i, done := range []string{"1/4", "3/4", "4/4"} {
		if line := strings.TrimSuffix(got[i+1], "\n"); utf8.RuneCountInString(line) != 39 || !strings.Contains(line, done+" ranges") {
			t.Fatalf("redraw %d: %q", i, line)
		}
	}
}

func TestIsTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(w) || isTerminal(f) || isTerminal(&strings.Builder{}) {
		t.Fatal("a pipe, a file or a buffer taken for a terminal")
	}
	// A character device is what the check looks for (/dev/null is one:
	// a bar drawn there costs nothing).
	if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
		defer null.Close()
		if !isTerminal(null) {
			t.Fatal("a character device not taken for a terminal")
		}
	}
}

func TestTermWidth(t *testing.T) {
	for v, want := range map[string]int{"": 80, "132": 132, "abc": 80, "5": 80} {
		t.Setenv("COLUMNS", v)
		if got := termWidth(); got != want {
			t.Errorf("COLUMNS=%q: width %d, want %d", v, got, want)
		}
	}
}

// TestRenderBarNeverShrinks is the case rapid's seed 1758786172104233792
// found: at 99 of 128 ranges, width 64, the figures grew by a digit as
// the hundredth range finished and took a cell from the bar.
func TestRenderBarNeverShrinks(t *testing.T) {
	p := migrate.BackfillProgress{RangesDone: 99, Ranges: 128, RowsPerSecond: 1}
	before, _ := barOf(render(p, 64))
	p.RangesDone++
	if after, _ := barOf(render(p, 64)); after < before {
		t.Fatalf("the bar shrank from %d to %d as a range finished", before, after)
	}
}

// TestRenderBarStaysAtTheLastRange is the case rapid's seed 1853130179
// found (explore.sh's seed 1851266764): at 2 of 3 ranges, width 46, with
// no estimate, the time left went from "?" to "0s" as the last range
// finished, and the figures took the bar's last cell.
func TestRenderBarStaysAtTheLastRange(t *testing.T) {
	p := migrate.BackfillProgress{RangesDone: 2, Ranges: 3, RowsPerSecond: 1}
	before, _ := barOf(render(p, 46))
	p.RangesDone++
	if after, _ := barOf(render(p, 46)); after < before {
		t.Fatalf("the bar shrank from %d to %d as the last range finished", before, after)
	}
}
