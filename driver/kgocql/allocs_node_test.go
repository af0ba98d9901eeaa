package kgocql_test

import (
	"context"
	"testing"
	"time"

	gocql "github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/kstore"
)

// allocRow has the matrix's column types (bench's shapes): text, bigint,
// timestamp, list<text>, uuid.
type allocRow struct {
	Part uuid.UUID
	Seq  int64
	F0   string
	F1   int64
	F2   time.Time
	F3   []string
	F4   uuid.UUID
}

func (e *allocRow) Describe(s *kandra.Schema[allocRow]) {
	s.Table("alloc_rows")
	kandra.Bind(s, &e.Part, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Seq, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &e.F0)
	kandra.Bind(s, &e.F1)
	kandra.Bind(s, &e.F2)
	kandra.Bind(s, &e.F3)
	kandra.Bind(s, &e.F4)
}

// TestNodeAllocations: through the adapter, against a real node, a Save,
// a Get and a Delete allocate no more than the same statements written
// by hand on the gocql session (bench's matrix measures the client side
// on a wire without connections; this is the whole call, the driver's
// connection and frames included). It logs both counts.
func TestNodeAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops what is put back at random: a pooled call allocates by chance")
	}
	s := session(t)
	ctx := context.Background()
	tbl := kandra.MustRegister[allocRow]()
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "kandra_allocs", Targets: kandra.Cassandra5, Replication: kandra.SimpleStrategy(1)}, tbl)
	for _, st := range ks.Statements() { // CREATE ... IF NOT EXISTS
		if err := s.Query(st).WithContext(ctx).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	rt, err := kstore.New(kgocql.New(s), ks)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rt.Close(ctx) }()
	repo := kstore.MustNewRepo(rt, tbl)
	e := &allocRow{Part: uuid.New(), Seq: 1, F0: "text", F1: 5, F2: time.Now().UTC().Truncate(time.Millisecond), F3: []string{"a", "b"}, F4: uuid.New()}
	const (
		insert = "INSERT INTO kandra_allocs.alloc_rows (part, seq, f0, f1, f2, f3, f4) VALUES (?, ?, ?, ?, ?, ?, ?)"
		sel    = "SELECT part, seq, f0, f1, f2, f3, f4 FROM kandra_allocs.alloc_rows WHERE part = ? AND seq = ?"
		del    = "DELETE FROM kandra_allocs.alloc_rows WHERE part = ? AND seq = ?"
	)
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
		{"Save", func() { must(repo.Save(ctx, e)) }, func() {
			must(s.Query(insert, gocql.UUID(e.Part), e.Seq, e.F0, e.F1, e.F2, e.F3, gocql.UUID(e.F4)).WithContext(ctx).Exec())
		}},
		{"Get", func() { _, err := repo.Get(ctx, e); must(err) }, func() {
			var g allocRow
			var part, f4 gocql.UUID
			must(s.Query(sel, gocql.UUID(e.Part), e.Seq).WithContext(ctx).Scan(&part, &g.Seq, &g.F0, &g.F1, &g.F2, &g.F3, &f4))
		}},
		{"Delete", func() { must(repo.Delete(ctx, e)) }, func() {
			must(s.Query(del, gocql.UUID(e.Part), e.Seq).WithContext(ctx).Exec())
		}},
	} {
		must(repo.Save(ctx, e)) // the row Get reads
		k := testing.AllocsPerRun(500, c.kandra)
		must(repo.Save(ctx, e))
		h := testing.AllocsPerRun(500, c.handWritten)
		t.Logf("%s: kandra %.1f allocations, hand-written %.1f", c.op, k, h)
		if k > h {
			t.Errorf("%s allocates %.1f times through kandra, %.1f written by hand", c.op, k, h)
		}
	}
}
