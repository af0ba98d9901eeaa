package adaptertest

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
)

var userID kandra.Field[user, uuid.UUID]

// ticket has a secondary index on its status.
type ticket struct {
	Queue    string
	TicketID int64
	Status   string
	Title    string
}

// Describe implements kandra's description.
func (k *ticket) Describe(s *kandra.Schema[ticket]) {
	s.Table("tickets")
	kandra.Bind(s, &k.Queue, kandra.PartitionKey(0))
	kandra.Bind(s, &k.TicketID, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &k.Status, kandra.SecondaryIndex())
}

var (
	ticketsTable *kandra.Table[ticket]
	ticketStatus kandra.Field[ticket, string]
	ticketTitle  kandra.Field[ticket, string]
)

// testRawAndGetMany proves the typed escape hatch and the multi-get on the
// node: an IN query over uuid.UUID keys (which raw gocql cannot bind), a
// projection of two columns, a conditional UPDATE, a Plain LIMIT, an
// argument of the wrong type refused before sending, and GetMany, aligned
// with its keys. It times GetMany's fan-out against one IN query of the
// same 50 keys, in interleaved rounds, and prints "real-server: queries
// adapter=<Name> kinds=<n> ok=<n>" and "real-server: multiget
// adapter=<Name> keys=50 rounds=<n> fanout_median=<d> in_median=<d>".
func testRawAndGetMany(t *testing.T, h *harness) {
	kinds, passed := 0, 0
	defer func() {
		fmt.Printf("real-server: queries adapter=%s kinds=%d ok=%d\n", h.n.Name, kinds, passed)
	}()
	check := func(name string, fn func() error) {
		t.Helper()
		kinds++
		if err := fn(); err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		passed++
	}
	e := h.env(t)
	var us []*user
	for i := 0; i < 50; i++ {
		us = append(us, &user{Email: uniq("q") + "@x", DisplayName: fmt.Sprintf("u%02d", i), Bio: "b"})
	}
	if err := e.users.SaveAll(ctx, us[:25]); err != nil {
		t.Fatal(err)
	}
	if err := e.users.SaveAll(ctx, us[25:]); err != nil {
		t.Fatal(err)
	}
	in := kstore.MustPrepare(e.users, "SELECT * FROM users WHERE user_id IN (?, ?, ?)", kstore.Arg(userID), kstore.Arg(userID), kstore.Arg(userID))
	check("IN over uuid.UUID keys", func() error {
		rows, err := in.Query(ctx, []any{us[0].UserID, &us[1].UserID, uuid.New()}).All()
		if err != nil {
			return err
		}
		var names []string
		for _, r := range rows {
			names = append(names, r.DisplayName)
		}
		sort.Strings(names)
		if !slices.Equal(names, []string{"u00", "u01"}) || rows[0].Email == "" || rows[0].CreatedAt.IsZero() {
			return fmt.Errorf("rows %v: want u00 and u01, every column read", names)
		}
		return nil
	})
	check("a projection of two columns", func() error {
		q := kstore.MustPrepare(e.users, `SELECT "user_id", display_name FROM `+h.ks+`.users WHERE user_id = ?`, kstore.Arg(userID))
		rows, err := q.Query(ctx, []any{us[2].UserID}).All()
		if err != nil || len(rows) != 1 || rows[0].DisplayName != "u02" || rows[0].UserID != us[2].UserID || rows[0].Email != "" {
			return fmt.Errorf("%+v, %v: want the id and the name, the rest zero", rows, err)
		}
		return nil
	})
	check("a conditional UPDATE", func() error {
		bio := kandra.MustFieldOf(usersTable, func(u *user) *string { return &u.Bio })
		q := kstore.MustPrepare(e.users, "UPDATE users SET bio = ? WHERE user_id = ? IF bio = ?", kstore.Arg(bio), kstore.Arg(userID), kstore.Arg(bio))
		if applied, err := q.Exec(ctx, []any{"new", us[3].UserID, "other"}); err != nil || applied {
			return fmt.Errorf("a false condition: applied %v, %v", applied, err)
		}
		if applied, err := q.Exec(ctx, []any{"new", us[3].UserID, "b"}); err != nil || !applied {
			return fmt.Errorf("a true condition: applied %v, %v", applied, err)
		}
		got, err := e.users.Get(ctx, us[3])
		if err != nil || got.Bio != "new" {
			return fmt.Errorf("after it: %+v, %v", got, err)
		}
		return nil
	})
	check("a Plain LIMIT and paging", func() error {
		q := kstore.MustPrepare(e.users, "SELECT user_id FROM users WHERE user_id IN (?, ?, ?) LIMIT ?", kstore.Arg(userID), kstore.Arg(userID), kstore.Arg(userID), kstore.Plain())
		rows, err := q.Query(ctx, []any{us[4].UserID, us[5].UserID, us[6].UserID, 2}).All()
		if err != nil || len(rows) != 2 {
			return fmt.Errorf("%d rows, %v: want the LIMIT's 2", len(rows), err)
		}
		return nil
	})
	check("refusals before sending", func() error {
		var ae *kerrors.ArgumentError
		if _, err := in.Query(ctx, []any{us[0].UserID.String(), us[1].UserID, us[2].UserID}).All(); !errors.As(err, &ae) {
			return fmt.Errorf("a string for a uuid column: %v", err)
		}
		for _, bad := range []string{"SELECT writetime(bio) FROM users", "SELECT * FROM devices", "SELECT JSON * FROM users", "SELECT bio AS b FROM users", "SELECT bio FROM users WHERE user_id = :id"} {
			if _, err := kstore.Prepare(e.users, bad); !errors.As(err, &ae) {
				return fmt.Errorf("Prepare(%q): %v, want an *errors.ArgumentError", bad, err)
			}
		}
		return nil
	})
	check("equality through a secondary index, paged", func() error {
		tickets := kstore.MustNewRepo(e.rt, ticketsTable)
		status := uniq("open")
		for i, q := range []string{"a", "b", "c", "a"} {
			if err := tickets.Save(ctx, &ticket{Queue: q + status, TicketID: int64(i), Status: status, Title: "t"}); err != nil {
				return err
			}
		}
		if err := tickets.Save(ctx, &ticket{Queue: "a" + status, TicketID: 9, Status: "closed"}); err != nil {
			return err
		}
		byStatus := kstore.MustIndexOf(tickets, ticketStatus)
		var n int
		var cur kstore.Cursor
		for page := 0; page < 4; page++ {
			opts := []kstore.ListOption{kstore.PageSize(3)}
			if !cur.IsZero() {
				opts = append(opts, kstore.After(cur))
			}
			it := byStatus.Find(ctx, status, opts...)
			rows, err := it.All()
			if err != nil {
				return err
			}
			for _, r := range rows {
				if r.Status != status {
					return fmt.Errorf("the index returned a %q ticket", r.Status)
				}
			}
			n += len(rows)
			if cur = it.Cursor(); cur.IsZero() {
				break
			}
		}
		if n != 4 {
			return fmt.Errorf("found %d tickets, want 4", n)
		}
		var se *kandra.SchemaError
		if _, err := kstore.IndexOf(tickets, ticketTitle); !errors.As(err, &se) || !strings.Contains(err.Error(), "kandra.SecondaryIndex()") {
			return fmt.Errorf("IndexOf an unindexed field: %v, want a *kandra.SchemaError naming the option", err)
		}
		return nil
	})
	check("GetMany, aligned with its keys", func() error {
		keys := []*user{us[7], {UserID: uuid.New()}, us[8]}
		got, err := e.users.GetMany(ctx, keys)
		if err != nil || len(got) != 3 || got[0].DisplayName != "u07" || got[1] != nil || got[2].DisplayName != "u08" {
			return fmt.Errorf("%+v, %v", got, err)
		}
		return nil
	})

	// GetMany's fan-out against one IN query of the same 50 keys, in
	// interleaved rounds (the order swapped every round).
	marks := make([]string, len(us))
	ps := make([]kstore.RawParam, len(us))
	args := make([]any, len(us))
	for i, u := range us {
		marks[i], ps[i], args[i] = "?", kstore.Arg(userID), u.UserID
	}
	in50 := kstore.MustPrepare(e.users, "SELECT * FROM users WHERE user_id IN ("+strings.Join(marks, ", ")+")", ps...)
	fan := func() error {
		got, err := e.users.GetMany(ctx, us)
		if err == nil && slices.Contains(got, nil) {
			err = errors.New("GetMany missed a row")
		}
		return err
	}
	inq := func() error {
		rows, err := in50.Query(ctx, args, kstore.PageSize(100)).All()
		if err == nil && len(rows) != len(us) {
			err = fmt.Errorf("IN read %d rows", len(rows))
		}
		return err
	}
	const rounds = 21
	var tf, ti []time.Duration
	run := func(isFan bool) {
		fn, to := inq, &ti
		if isFan {
			fn, to = fan, &tf
		}
		start := time.Now()
		if err := fn(); err != nil {
			t.Fatal(err)
		}
		*to = append(*to, time.Since(start))
	}
	for r := 0; r < rounds; r++ {
		run(r%2 == 0)
		run(r%2 == 1)
	}
	fmt.Printf("real-server: multiget adapter=%s keys=%d rounds=%d fanout_median=%v in_median=%v\n", h.n.Name, len(us), rounds, median(tf), median(ti))
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
