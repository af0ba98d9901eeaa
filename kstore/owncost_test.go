package kstore

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
)

// The store's own cost per call, on a Driver that does nothing: what
// remains of a call's time once the driver's is taken out. bench/'s matrix
// measures the whole call against hand-written code; this is what to
// profile when a cell of it misses. Run:
//
//	go test -run '^$' -bench OwnCost -benchmem ./kstore

// ocRow is the matrix's 4-column shape (bench's C4L0).
type ocRow struct {
	Part uuid.UUID
	Seq  int64
	F0   string
	F1   uuid.UUID
}

func (e *ocRow) Describe(s *kandra.Schema[ocRow]) {
	s.Table("oc_rows")
	kandra.Bind(s, &e.Part, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Seq, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &e.F0)
	kandra.Bind(s, &e.F1)
}

// rowDriver runs nothing; its Query returns one row, scanned into
// nothing.
type rowDriver struct {
	noMigrator
	rows oneRow
}

func (d *rowDriver) Exec(context.Context, *adapter.Query) (bool, error)  { return true, nil }
func (d *rowDriver) Batch(context.Context, *adapter.Batch) (bool, error) { return true, nil }
func (d *rowDriver) Query(context.Context, *adapter.Query) (adapter.Rows, error) {
	d.rows = oneRow{}
	return &d.rows, nil
}

type oneRow struct{ done bool }

func (r *oneRow) Next([]any) bool {
	n := !r.done
	r.done = true
	return n
}
func (*oneRow) PageState() []byte { return nil }
func (*oneRow) Close() error      { return nil }

func BenchmarkOwnCost(b *testing.B) {
	table := kandra.MustRegister[ocRow]()
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5,
		Replication: kandra.SimpleStrategy(1)}, table)
	rt, err := New(&rowDriver{}, ks)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = rt.Close(context.Background()) }()
	repo := MustNewRepo(rt, table)
	ctx := context.Background()
	e := &ocRow{Part: uuid.New(), Seq: 7, F0: "some text", F1: uuid.New()}
	moved := *e // the matrix's update: F0 changed
	moved.F0 = "moved to another value"
	f0 := kandra.MustFieldOf(table, func(e *ocRow) *string { return &e.F0 })
	seq := kandra.MustFieldOf(table, func(e *ocRow) *int64 { return &e.Seq })
	for _, c := range []struct {
		name string
		op   func() error
	}{
		{"save", func() error { return repo.Save(ctx, e) }},
		{"saveIfNotExists", func() error { _, err := repo.SaveIfNotExists(ctx, e); return err }},
		{"get", func() error { _, err := repo.Get(ctx, e); return err }},
		{"delete", func() error { return repo.Delete(ctx, e) }},
		{"update", func() error { return repo.Update(ctx, e, &moved) }},
		{"patch-upsert", func() error { _, err := repo.Patch(ctx, e, Set(f0, "new text"), Upsert()); return err }},
		{"patch-if", func() error { _, err := repo.Patch(ctx, e, Set(f0, "new text").If(Eq(f0, "some text"))); return err }},
		{"delete-range", func() error { return repo.DeleteRange(ctx, e, From(seq, 1, true), To(seq, 9, false)) }},
		{"count", func() error { _, err := repo.Count(ctx, e); return err }},
		{"count-range", func() error { _, err := repo.Count(ctx, e, From(seq, 1, true), To(seq, 9, false)); return err }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if err := c.op(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
