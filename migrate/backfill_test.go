package migrate

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
	"pgregory.net/rapid"
)

// TableID is deterministic per keyspace and table, distinct otherwise,
// and what the CREATE TABLE statements carry.
func TestPropertyTableID(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ks := rapid.StringMatching(`[a-z][a-z0-9_]{0,20}`).Draw(t, "ks")
		other := rapid.StringMatching(`[a-z][a-z0-9_]{0,20}`).Draw(t, "other")
		if a, b := TableID(ks, LeaseTable), TableID(strings.Clone(ks), LeaseTable); a != b {
			t.Fatal("not deterministic")
		}
		if ks != other && TableID(ks, LeaseTable) == TableID(other, LeaseTable) {
			t.Fatalf("keyspaces %q and %q share an id", ks, other)
		}
		if TableID(ks, LeaseTable) == TableID(ks, HistoryTable) {
			t.Fatal("two tables share an id")
		}
		if v := TableID(ks, BackfillTable).Version(); v != 5 {
			t.Fatalf("version %d", v)
		}
		with, without := ownTables(ks, true), ownTables(ks, false)
		for i, n := range []string{LeaseTable, HistoryTable, BackfillTable} {
			if !strings.HasSuffix(with[i], " WITH ID = "+TableID(ks, n).String()) || strings.Contains(without[i], "WITH ID") ||
				!strings.HasPrefix(without[i], "CREATE TABLE IF NOT EXISTS ") {
				t.Fatalf("statements %q / %q", with[i], without[i])
			}
			if _, err := uuid.Parse(with[i][strings.LastIndex(with[i], " ")+1:]); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func backfillFake(t *testing.T, rows int) *fakeDriver {
	t.Helper()
	v2 := applyKS(t, applyUsersV2)
	f := newFake(v2, v2)
	f.own[LeaseTable], f.own[HistoryTable], f.own[BackfillTable] = true, true, true
	for i := 0; i < rows; i++ {
		email := fmt.Sprintf("u%d@x", i)
		if i%4 == 0 {
			email = ""
		}
		f.rows["users"] = append(f.rows["users"], []any{fmt.Sprint(i), email})
	}
	return f
}

func TestBackfillResumes(t *testing.T) {
	f := backfillFake(t, 2000)
	ks := applyKS(t, applyUsersV2)
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int64
	opts := BackfillOptions{Concurrency: 2, Ranges: 10, PageSize: 37, OnProgress: func(p BackfillProgress) {
		calls.Add(1)
		if p.RangesDone >= 4 {
			cancel()
		}
	}}
	r, err := Backfill(ctx, f, ks, ks.LookupTable("users_by_email"), opts)
	if err == nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "run it again to resume") {
		t.Fatalf("interrupted: %+v, %v", r, err)
	}
	done := len(f.bfDone["users_by_email"])
	if done < 4 || done >= 10 {
		t.Fatalf("%d ranges recorded", done)
	}
	var first BackfillProgress
	opts.OnProgress = func(p BackfillProgress) {
		if calls.Add(1); first.Ranges == 0 {
			first = p
		}
	}
	opts.Ranges = 3 // another cut: the run reads what the recorded ranges leave of it
	r, err = Backfill(context.Background(), f, ks, ks.LookupTable("users_by_email"), opts)
	if err != nil || !r.Resumed || !r.Verified || r.Valued != 1500 || r.LookupRows != 1500 || r.Rows >= 2000 || r.Rows == 0 {
		t.Fatalf("resumed: %+v, %v", r, err)
	}
	recorded := f.bfDone["users_by_email"]
	if first.Ranges != len(recorded) || first.RangesDone < done || first.Lookup != "users_by_email" {
		t.Fatalf("first progress of the resumed run: %+v, %d ranges recorded", first, len(recorded))
	}
	if f.bfStatus["users_by_email"] != "done" {
		t.Fatalf("status %q", f.bfStatus["users_by_email"])
	}
	// The ranges recorded by the two runs, of two cuts, cover the ring
	// once: each starts where another ended.
	starts := slices.Sorted(maps.Keys(recorded))
	if starts[0] != math.MinInt64 {
		t.Fatalf("the ranges recorded start at %d", starts[0])
	}
	for i, s := range starts {
		want := int64(math.MaxInt64)
		if i+1 < len(starts) {
			want = starts[i+1]
		}
		if recorded[s] != want {
			t.Fatalf("range (%d, %d] recorded, the next starts at %d", s, recorded[s], want)
		}
	}
	// A backfill that finished starts over when asked again.
	r, err = Backfill(context.Background(), f, ks, ks.LookupTable("users_by_email"), BackfillOptions{Ranges: 5})
	if err != nil || r.Resumed || r.Rows != 2000 || r.Written != 1500 || !r.Verified || f.bfRanges["users_by_email"] != 5 {
		t.Fatalf("again: %+v, %v", r, err)
	}
}

func TestBackfillReportsAMismatch(t *testing.T) {
	f := backfillFake(t, 100)
	ks := applyKS(t, applyUsersV2)
	f.lookupRows["users_by_email"] = map[string]bool{"stale@x": true}
	r, err := Backfill(context.Background(), f, ks, ks.LookupTable("users_by_email"), BackfillOptions{})
	if err != nil || r.Verified || r.Valued != 75 || r.LookupRows != 76 || !strings.Contains(r.Mismatch, "users has 75 rows with a non-empty email, users_by_email has 76 rows (more:") {
		t.Fatalf("%+v, %v", r, err)
	}
	if f.bfStatus["users_by_email"] == "done" {
		t.Fatal("an unverified backfill is recorded as done")
	}
	// Through Apply, the step fails and stays planned.
	f.bfStatus["users_by_email"] = "pending"
	res, err := Apply(context.Background(), f, ks, ApplyOptions{Approve: []string{"all"}})
	if err == nil || !strings.Contains(err.Error(), "did not verify") || len(res.Applied) != 0 {
		t.Fatalf("apply: %+v, %v", res, err)
	}
}

func TestBackfillUnknownLookup(t *testing.T) {
	f := backfillFake(t, 0)
	ks := applyKS(t, applyUsersV2)
	ctx := context.Background()
	if _, err := Backfill(ctx, f, ks, nil, BackfillOptions{}); !errors.Is(err, kerrors.ErrMigration) || !strings.Contains(err.Error(), "nil *kandra.LookupTableSchema") {
		t.Fatalf("nil lookup: err = %v", err)
	}
	// A lookup table of a table outside ks.
	other := kandra.MustRegister[fuzzUser]().Schema().LookupTables()[0]
	todos := applyKS(t, applyUsersV1) // users without a lookup
	var me *kerrors.MigrationError
	if _, err := Backfill(ctx, f, todos, other, BackfillOptions{}); !errors.As(err, &me) || me.Rule != string(kandra.RuleNotInKeyspace) ||
		!strings.Contains(err.Error(), "keyspace app has no lookup table users_by_email (it has none); pass one of ks.LookupTable(name)") {
		t.Fatalf("a lookup of no table of ks: err = %v", err)
	}
	// Of the same name, but another version of the model's.
	if _, err := Backfill(ctx, f, ks, other, BackfillOptions{}); !errors.As(err, &me) || me.Rule != string(kandra.RuleNotInKeyspace) ||
		!strings.Contains(err.Error(), `lookup table users_by_email is not keyspace app's`) || !strings.Contains(err.Error(), `pass ks.LookupTable("users_by_email")`) {
		t.Fatalf("another schema's lookup: err = %v", err)
	}
	if len(f.schema) != 0 || f.writes != 0 {
		t.Fatalf("a refused backfill ran %v, %d writes", f.schema, f.writes)
	}
	f.lookups = nil
	if _, err := Backfill(ctx, f, ks, ks.LookupTable("users_by_email"), BackfillOptions{}); err == nil || !strings.Contains(err.Error(), "does not exist; run apply first") {
		t.Fatalf("err = %v", err)
	}
}

func TestBackfillProgressString(t *testing.T) {
	p := BackfillProgress{Lookup: "users_by_email", Rows: 5000, RangesDone: 3, Ranges: 16, RowsPerSecond: 2500, Remaining: 4200e6}
	if got := p.String(); got != "users_by_email: 5000 rows, 3/16 ranges, 2500 rows/s, 4s left" {
		t.Fatal(got)
	}
}

// A page size the protocol cannot carry (it is a 32-bit int) is refused
// before anything is sent, not cut to its low 32 bits.
func TestBackfillRefusesAPageSizeAboveInt32(t *testing.T) {
	f := backfillFake(t, 10)
	ks := applyKS(t, applyUsersV2)
	ctx := context.Background()
	for _, n := range []int{math.MaxInt32 + 1, 1 << 32, 1<<32 + 1000, math.MaxInt} {
		_, err := Backfill(ctx, f, ks, ks.LookupTable("users_by_email"), BackfillOptions{PageSize: n})
		if !errors.Is(err, kerrors.ErrMigration) || !strings.Contains(err.Error(), fmt.Sprintf("BackfillOptions.PageSize %d", n)) ||
			!strings.Contains(err.Error(), "2147483647") {
			t.Fatalf("PageSize %d: err = %v", n, err)
		}
		f.bfStatus["users_by_email"] = "pending"
		res, err := Apply(ctx, f, ks, ApplyOptions{Approve: []string{"all"}, Backfill: BackfillOptions{PageSize: n}})
		if !errors.Is(err, kerrors.ErrMigration) || !strings.Contains(err.Error(), "BackfillOptions.PageSize") || len(res.Applied) != 0 {
			t.Fatalf("Apply with PageSize %d: %+v, %v", n, res, err)
		}
	}
	if f.writes != 0 {
		t.Fatalf("a refused backfill wrote %d rows", f.writes)
	}
	if r, err := Backfill(ctx, f, ks, ks.LookupTable("users_by_email"), BackfillOptions{PageSize: math.MaxInt32}); err != nil || !r.Verified {
		t.Fatalf("PageSize MaxInt32: %+v, %v", r, err)
	}
}
