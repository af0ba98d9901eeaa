package adaptertest

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kstore"
)

// AllocRow is the entity of [RunAllocations], with the column types of
// bench's matrix: text, bigint, timestamp, list<text>, uuid.
type AllocRow struct {
	Part uuid.UUID
	Seq  int64
	F0   string
	F1   int64
	F2   time.Time
	F3   []string
	F4   uuid.UUID
}

// Describe implements kandra's entity contract.
func (e *AllocRow) Describe(s *kandra.Schema[AllocRow]) {
	s.Table("alloc_rows")
	kandra.Bind(s, &e.Part, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Seq, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &e.F0)
	kandra.Bind(s, &e.F1)
	kandra.Bind(s, &e.F2)
	kandra.Bind(s, &e.F3)
	kandra.Bind(s, &e.F4)
}

// HandWritten is the code [RunAllocations] measures an adapter against:
// each runs the statement cql (the suite's text, its markers in the
// order of AllocRow's fields, a TTL last) on the adapter's own session,
// as an application written without kandra would, with the driver's own
// UUID type and scanning into the fields.
type HandWritten struct {
	Insert    func(ctx context.Context, cql string, e *AllocRow) error
	InsertTTL func(ctx context.Context, cql string, e *AllocRow, ttlSeconds int) error
	Select    func(ctx context.Context, cql string, key *AllocRow) error
	Delete    func(ctx context.Context, cql string, key *AllocRow) error
}

// RunAllocations proves that, against a real node, a Save (and one with
// a TTL), a Get and a Delete through the adapter allocate no more than
// the same statements written by hand (bench's matrix measures the client
// side on a wire without connections; this is the whole call, the
// driver's connection and frames included). It logs both counts, on a
// keyspace kandra_allocs_<n.Name>, and is skipped under the race
// detector, whose sync.Pool drops what is put back at random.
func RunAllocations(t *testing.T, n Node, hand HandWritten) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops what is put back at random: a pooled call allocates by chance")
	}
	d, _ := n.Open(t)
	tbl := kandra.MustRegister[AllocRow]()
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "kandra_allocs_" + n.Name, Targets: kandra.Cassandra5,
		Replication: kandra.SimpleStrategy(1)}, tbl)
	for _, st := range ks.Statements() { // CREATE ... IF NOT EXISTS
		if err := n.Exec(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	rt, err := kstore.New(d, ks)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rt.Close(ctx) }()
	repo := kstore.MustNewRepo(rt, tbl)
	e := &AllocRow{Part: uuid.New(), Seq: 1, F0: "text", F1: 5, F2: time.Now().UTC().Truncate(time.Millisecond), F3: []string{"a", "b"}, F4: uuid.New()}
	table := ks.Name() + ".alloc_rows"
	var (
		insert = "INSERT INTO " + table + " (part, seq, f0, f1, f2, f3, f4) VALUES (?, ?, ?, ?, ?, ?, ?)"
		insTTL = insert + " USING TTL ?"
		sel    = "SELECT part, seq, f0, f1, f2, f3, f4 FROM " + table + " WHERE part = ? AND seq = ?"
		del    = "DELETE FROM " + table + " WHERE part = ? AND seq = ?"
	)
	ttl := []kstore.WriteOption{kstore.TTL(time.Hour)} // made once: the option's own allocation is not the call's
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		op          string
		kandra      func()
		handWritten func()
	}{
		{"Save", func() { must(repo.Save(ctx, e)) }, func() { must(hand.Insert(ctx, insert, e)) }},
		{"Save with a TTL", func() { must(repo.Save(ctx, e, ttl...)) }, func() { must(hand.InsertTTL(ctx, insTTL, e, 3600)) }},
		{"Get", func() { _, err := repo.Get(ctx, e); must(err) }, func() { must(hand.Select(ctx, sel, e)) }},
		{"Delete", func() { must(repo.Delete(ctx, e)) }, func() { must(hand.Delete(ctx, del, e)) }},
	} {
		// AllocsPerRun counts the whole process's allocations, the driver's
		// own goroutines' too (a refresh of its metadata after the CREATE
		// TABLE, ...): background work only adds, so the lower of two runs
		// of each, after a warm-up of both, is the call's.
		must(repo.Save(ctx, e)) // the row Get reads
		for range 100 {
			c.kandra()
			c.handWritten()
		}
		must(repo.Save(ctx, e))
		k := min(testing.AllocsPerRun(300, c.kandra), testing.AllocsPerRun(300, c.kandra))
		must(repo.Save(ctx, e))
		h := min(testing.AllocsPerRun(300, c.handWritten), testing.AllocsPerRun(300, c.handWritten))
		t.Logf("%s: kandra %.1f allocations, hand-written %.1f", c.op, k, h)
		if k > h {
			t.Errorf("%s allocates %.1f times through kandra, %.1f written by hand", c.op, k, h)
		}
	}
}
