package adaptertest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
)

// Units of work on the node (issue 36): typed writes across tables in one
// batch, and conditional units on one partition that holds several kinds
// of rows, as a workflow engine keeps its state machine.

// shardRow is one row of a shard's partition, as a workflow engine
// stores its executions: the fence row (Kind fenceRow) holds the range id
// of the shard's owner, the state row (Kind stateRow) the workflow's
// state and the rounds it finished, each task row (Kind taskRow) one
// task. One table, so that one conditional batch can fence them all.
type shardRow struct {
	Shard   string
	Kind    int32
	TaskID  int64
	RangeID int64
	State   string
	Done    map[int32]string // stateRow: round -> its winner
	Owner   string           // taskRow: the writer that made it
	Round   int32            // taskRow: its round
}

// The kinds of rows of a shard's partition.
const (
	fenceRow int32 = iota
	stateRow
	taskRow
)

// Describe implements kandra's description.
func (r *shardRow) Describe(s *kandra.Schema[shardRow]) {
	s.Table("shard_rows")
	kandra.Bind(s, &r.Shard, kandra.PartitionKey(0))
	kandra.Bind(s, &r.Kind, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &r.TaskID, kandra.ClusteringKey(1, kandra.ClusteringAsc))
	kandra.Bind(s, &r.RangeID)
	kandra.Bind(s, &r.State)
	kandra.Bind(s, &r.Done)
	kandra.Bind(s, &r.Owner)
	kandra.Bind(s, &r.Round)
}

var (
	shardRowsTable *kandra.Table[shardRow]
	shardRange     kandra.Field[shardRow, int64]
	shardState     kandra.Field[shardRow, string]
	shardDone      kandra.Field[shardRow, map[int32]string]
)

func registerUnits() {
	shardRowsTable = kandra.MustRegister[shardRow]()
	shardRange = kandra.MustFieldOf(shardRowsTable, func(r *shardRow) *int64 { return &r.RangeID })
	shardState = kandra.MustFieldOf(shardRowsTable, func(r *shardRow) *string { return &r.State })
	shardDone = kandra.MustFieldOf(shardRowsTable, func(r *shardRow) *map[int32]string { return &r.Done })
}

func (e *env) shardRows(t *testing.T) *kstore.Repo[shardRow] {
	t.Helper()
	r, err := kstore.NewRepo(e.rt, shardRowsTable)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// testUnitsAcrossTables: a unit of writes of three tables (a user with
// its BATCH lookup row, a card's partial write, a todo) lands whole, its
// EVENTUAL lookup row after it; a unit of one partition lands whole; a
// counter unit adds each delta once.
func testUnitsAcrossTables(t *testing.T, h *harness) {
	e := h.env(t)
	cards := e.cards(t)
	board := uniq("ut")
	u := e.rt.Unit()
	usr := &user{Email: uniq("unit") + "@x", TicketRef: uniq("tk")}
	e.users.In(u).Save(usr)
	e.todos.In(u).Save(&todo{OwnerID: uuid.New(), Title: "t"})
	cards.In(u).Patch(&card{Board: board, Pos: 1}, kstore.Set(cardTitle, "from a unit"), kstore.Upsert())
	if applied, err := u.Apply(ctx); err != nil || !applied {
		t.Fatalf("unit: %v %v", applied, err)
	}
	got, err := e.users.Get(ctx, usr)
	if err != nil || got == nil || got.Email != usr.Email {
		t.Fatalf("the unit's user: %+v %v", got, err)
	}
	if n := h.rows(t, "users_by_email", "email = ?", usr.Email); n != 1 {
		t.Fatalf("%d email lookup rows, want 1", n)
	}
	c, err := cards.Get(ctx, &card{Board: board, Pos: 1})
	if err != nil || c == nil || c.Title != "from a unit" {
		t.Fatalf("the unit's card: %+v %v", c, err)
	}
	if err := e.rt.Close(ctx); err != nil { // the EVENTUAL rows are written
		t.Fatal(err)
	}
	e = h.env(t)
	cards = e.cards(t)
	if n := h.rows(t, "users_by_ticket_ref", "ticket_ref = ?", usr.TicketRef); n != 1 {
		t.Fatalf("%d ticket lookup rows after the unit, want 1", n)
	}

	// A conditional unit of one write is sent alone, and its step holds
	// the row that failed its condition.
	u = e.rt.Unit()
	st := cards.In(u).Patch(&card{Board: board, Pos: 1}, kstore.Set(cardScore, 1).If(kstore.Eq(cardTitle, "another title")))
	if applied, err := u.Apply(ctx); err != nil || applied {
		t.Fatalf("a unit of one unmet condition: %v %v", applied, err)
	}
	if out := st.Outcome(); !out.Exists || out.Current == nil || out.Current.Title != "from a unit" || out.Current.Board != board {
		t.Fatalf("its step's outcome: %+v", out)
	}

	// A unique value is claimed before the unit is sent: a unit whose
	// member takes a handle another member holds is a UniqueError, and
	// none of its writes is made.
	handle := uniq("h")
	u = e.rt.Unit()
	e.members.In(u).Save(&member{Handle: handle, Name: "first"})
	if _, err := u.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	u = e.rt.Unit()
	second := &member{Handle: handle, Name: "second"}
	e.members.In(u).Save(second)
	cards.In(u).Patch(&card{Board: board, Pos: 9}, kstore.Set(cardTitle, "never"), kstore.Upsert())
	if _, err := u.Apply(ctx); !errors.Is(err, kerrors.ErrUnique) {
		t.Fatalf("a unit taking a held handle: %v, want a UniqueError", err)
	}
	if n := h.rows(t, "cards", "board = ? AND pos = 9", board); n != 0 || second.MemberID != [16]byte{} {
		t.Fatalf("a unit refused by its claim wrote %d rows, stamped %v", n, second.MemberID)
	}

	// A versioned Save makes the unit conditional: a stale copy is not
	// applied, its step holds the row's version, and the copy is left as
	// it was.
	w := &wallet{WalletID: uniq("w"), Owner: uniq("o"), Balance: 1}
	u = e.rt.Unit()
	e.wallets.In(u).Save(w)
	if applied, err := u.Apply(ctx); err != nil || !applied || w.Version != 1 {
		t.Fatalf("a new wallet in a unit: %v %v, version %d", applied, err, w.Version)
	}
	stale := *w
	w.Balance = 2
	if err := e.wallets.Save(ctx, w); err != nil {
		t.Fatal(err)
	}
	stale.Balance = 3
	u = e.rt.Unit()
	sw := e.wallets.In(u).Save(&stale)
	if applied, err := u.Apply(ctx); err != nil || applied {
		t.Fatalf("a stale wallet in a unit: %v %v", applied, err)
	}
	if out := sw.Outcome(); !out.Exists || out.Current.Version != 2 || stale.Version != 1 {
		t.Fatalf("the stale step's outcome %+v (copy at version %d), want the row's version 2", out.Current, stale.Version)
	}

	// A counter unit: each delta once.
	page := uniq("pg")
	u = e.rt.Unit()
	hits := kstore.MustCounterOf(e.hits, hitsField)
	e.hits.In(u).Increment(hits, &pageHits{Page: page}, 2)
	e.hits.In(u).Increment(hits, &pageHits{Page: page + "b"}, 3)
	if _, err := u.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.hits.Get(ctx, &pageHits{Page: page}); got == nil || got.Hits != 2 {
		t.Fatalf("counter after a unit: %+v", got)
	}

	// A conditional unit across partitions is refused before sending.
	u = e.rt.Unit()
	cards.In(u).Patch(&card{Board: board, Pos: 1}, kstore.Set(cardTitle, "x"))
	cards.In(u).Patch(&card{Board: board + "x", Pos: 1}, kstore.Set(cardTitle, "x"), kstore.Upsert())
	if _, err := u.Apply(ctx); !errors.Is(err, kerrors.ErrArgument) {
		t.Fatalf("a conditional unit across partitions: %v", err)
	}
	if n := h.rows(t, "cards", "board = ?", board+"x"); n != 0 {
		t.Fatalf("a refused unit wrote %d rows", n)
	}
}

// testUnitFence: the fence of a workflow engine. N writers race, round
// after round, each with one conditional unit on the shard's partition:
// move the fence row's range id from the one it read, record its round in
// the state row (a map element), and write its task rows (one IF NOT
// EXISTS, one plain). Exactly one unit applies per round; every loser
// gets the fence row back, with the range id that beat it; and the audit
// finds every task row's round won by its writer.
func testUnitFence(t *testing.T, h *harness) {
	e := h.env(t)
	rows := e.shardRows(t)
	shard := uniq("shard")
	const writers, rounds = 4, 12
	fence := &shardRow{Shard: shard, Kind: fenceRow, RangeID: 1}
	state := &shardRow{Shard: shard, Kind: stateRow, State: "created"}
	u := e.rt.Unit()
	rows.In(u).SaveIfNotExists(fence)
	rows.In(u).SaveIfNotExists(state)
	if applied, err := u.Apply(ctx); err != nil || !applied {
		t.Fatalf("the shard's first rows: %v %v", applied, err)
	}
	applied, explained := 0, 0
	defer func() {
		fmt.Printf("real-server: units adapter=%s rounds=%d applied=%d exactly-one=%t explained=%d\n",
			h.n.Name, rounds, applied, applied == rounds && explained == rounds*(writers-1), explained)
	}()
	for round := int32(1); round <= rounds; round++ {
		// Every writer read the fence at the round's range id.
		read := int64(round)
		var wg sync.WaitGroup
		won := make([]bool, writers)
		lost := make([]kstore.Outcome[shardRow], writers)
		errs := make([]error, writers)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				me := fmt.Sprintf("w%d", w)
				u := e.rt.Unit()
				f := rows.In(u).Patch(&shardRow{Shard: shard, Kind: fenceRow}, kstore.Set(shardRange, read+1).If(kstore.Eq(shardRange, read)))
				rows.In(u).Patch(&shardRow{Shard: shard, Kind: stateRow}, kstore.Set(shardState, "round "+me).And(kstore.Put(shardDone, round, me)))
				base := int64(round)*1000 + int64(w)*10
				rows.In(u).SaveIfNotExists(&shardRow{Shard: shard, Kind: taskRow, TaskID: base, Owner: me, Round: round})
				rows.In(u).Save(&shardRow{Shard: shard, Kind: taskRow, TaskID: base + 1, Owner: me, Round: round})
				ok, err := u.Apply(ctx)
				won[w], errs[w], lost[w] = ok, err, f.Outcome()
			}()
		}
		wg.Wait()
		n := 0
		for w := range writers {
			if errs[w] != nil {
				t.Fatalf("round %d writer %d: %v", round, w, errs[w])
			}
			if won[w] {
				n++
				continue
			}
			if out := lost[w]; out.Exists && out.Current != nil && out.Current.RangeID == read+1 {
				explained++
			} else {
				t.Errorf("round %d: writer %d lost without the fence row that beat it: %+v", round, w, out)
			}
		}
		if n != 1 {
			t.Fatalf("round %d: %d units applied, want exactly one", round, n)
		}
		applied++
	}
	// The audit: every task row's round was won by its writer.
	all, err := rows.List(ctx, &shardRow{Shard: shard}).All()
	if err != nil {
		t.Fatal(err)
	}
	var st *shardRow
	for _, r := range all {
		if r.Kind == stateRow {
			st = r
		}
	}
	if st == nil || len(st.Done) != rounds {
		t.Fatalf("state row %+v, want %d rounds done", st, rounds)
	}
	tasks := 0
	for _, r := range all {
		if r.Kind != taskRow {
			continue
		}
		tasks++
		if st.Done[r.Round] != r.Owner {
			t.Errorf("task row %d of %s in round %d, which %q won: a task row without its state", r.TaskID, r.Owner, r.Round, st.Done[r.Round])
		}
	}
	if tasks != 2*rounds {
		t.Errorf("%d task rows, want %d", tasks, 2*rounds)
	}
}
