package kstore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

// fWide has six regular columns: 64 sets of them an Update can change,
// more than Repo.updates has slots.
type fWide struct {
	ID               string
	A, B, C, D, E, F int64
}

func (w *fWide) Describe(s *kandra.Schema[fWide]) {
	s.Table("fwide")
	kandra.Bind(s, &w.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &w.A)
	kandra.Bind(s, &w.B)
	kandra.Bind(s, &w.C)
	kandra.Bind(s, &w.D)
	kandra.Bind(s, &w.E)
	kandra.Bind(s, &w.F)
}

// recordedRepo is table's Repo on a store whose driver records what it
// sends.
func recordedRepo[T any](t *testing.T, table *kandra.Table[T]) (*Repo[T], *valRecorder) {
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5,
		Replication: kandra.SimpleStrategy(1)}, table)
	d := &valRecorder{applied: true}
	rt, err := New(d, ks)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	return MustNewRepo(rt, table), d
}

// TestUpdateShapes: every set of changed columns, with and without a
// Timestamp, sends the UPDATE of exactly those columns and their new
// values, the first time (its statement built) and the second (found in
// the Repo's slots or the table's cache), whichever came before.
func TestUpdateShapes(t *testing.T) {
	repo, d := recordedRepo(t, kandra.MustRegister[fWide]())
	names := []string{"a", "b", "c", "d", "e", "f"}
	ctx := context.Background()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for pass := 0; pass < 2; pass++ {
		for _, stamped := range []bool{false, true} {
			for set := 1; set < 1<<len(names); set++ {
				old := &fWide{ID: "k"}
				nw := *old
				fields := []*int64{&nw.A, &nw.B, &nw.C, &nw.D, &nw.E, &nw.F}
				var sets []string
				var want []int64
				for i := range names {
					if set&(1<<i) != 0 {
						*fields[i] = int64(100*set + i)
						sets = append(sets, names[i]+" = ?")
						want = append(want, *fields[i])
					}
				}
				var opts []WriteOption
				using := ""
				if stamped {
					opts, using = append(opts, Timestamp(at)), " USING TIMESTAMP ?"
				}
				if err := repo.Update(ctx, old, &nw, opts...); err != nil {
					t.Fatal(err)
				}
				q := d.last()
				wantCQL := "UPDATE ks.fwide" + using + " SET " + strings.Join(sets, ", ") + " WHERE id = ?"
				if got := q.Statement.CQL(); got != wantCQL {
					t.Fatalf("pass %d, columns %06b, timestamp %v: sent %q, want %q", pass, set, stamped, got, wantCQL)
				}
				vals := q.Values
				if stamped {
					vals = vals[1:]
				}
				for i, w := range want {
					if v, ok := vals[i].(*int64); !ok || *v != w {
						t.Fatalf("pass %d, columns %06b: value %d is %v, want %d", pass, set, i, vals[i], w)
					}
				}
			}
		}
	}
}

// TestUpdateShapesCollide: two sets of columns of one slot each get
// their own statement, whichever holds the slot.
func TestUpdateShapesCollide(t *testing.T) {
	repo, _ := recordedRepo(t, kandra.MustRegister[fWide]())
	// 63 sets of columns, 16 slots: two of them share one.
	var m1, m2 uint64
	first := map[int]uint64{}
	for m := uint64(1); m < 1<<len(repo.regular) && m2 == 0; m++ {
		if prev, ok := first[updSlot(m, 0)]; ok {
			m1, m2 = prev, m
		}
		first[updSlot(m, 0)] = m
	}
	cols := func(mask uint64) []*kandra.ColumnSchema {
		var out []*kandra.ColumnSchema
		for i, c := range repo.regular {
			if mask&(1<<i) != 0 {
				out = append(out, c)
			}
		}
		return out
	}
	want := map[uint64]string{}
	for _, m := range []uint64{m1, m2} {
		var buf [64]byte
		want[m] = repo.st.UpdateColumns(cols(m), 0, false, buf[:0]).CQL()
	}
	for _, m := range []uint64{m1, m2, m1, m2} {
		if got := repo.updateColumns(cols(m), m, 0, false).CQL(); got != want[m] {
			t.Fatalf("columns %06b (slot %d): %q, want %q", m, updSlot(m, 0), got, want[m])
		}
	}
}

// fMid has its UpdatedAt between two regular columns.
type fMid struct {
	ID      string
	A       int64
	Updated time.Time
	B       int64
}

func (m *fMid) Describe(s *kandra.Schema[fMid]) {
	s.Table("fmid")
	kandra.Bind(s, &m.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &m.A)
	kandra.UpdatedAt(s, &m.Updated)
	kandra.Bind(s, &m.B)
}

// TestUpdateStampInOrder: the stamp goes among the changed columns in
// column order, whichever of them changed.
func TestUpdateStampInOrder(t *testing.T) {
	repo, d := recordedRepo(t, kandra.MustRegister[fMid]())
	for _, c := range []struct {
		edit func(*fMid)
		want string
	}{
		{func(m *fMid) {}, "updated = ?"},
		{func(m *fMid) { m.A = 1 }, "a = ?, updated = ?"},
		{func(m *fMid) { m.B = 1 }, "updated = ?, b = ?"},
		{func(m *fMid) { m.A, m.B = 1, 1 }, "a = ?, updated = ?, b = ?"},
	} {
		old := &fMid{ID: "k"}
		nw := *old
		c.edit(&nw)
		if err := repo.Update(context.Background(), old, &nw); err != nil {
			t.Fatal(err)
		}
		if got, want := d.last().Statement.CQL(), "UPDATE ks.fmid SET "+c.want+" WHERE id = ?"; got != want {
			t.Errorf("sent %q, want %q", got, want)
		}
	}
}

// TestUpdateRefusesAKeyChange: an Update whose new has another key is an
// *kerrors.ArgumentError naming the field, and sends nothing.
func TestUpdateRefusesAKeyChange(t *testing.T) {
	repo, d := recordedRepo(t, kandra.MustRegister[fWide]())
	old := &fWide{ID: "k", A: 1}
	nw := *old
	nw.ID, nw.A = "other", 2
	err := repo.Update(context.Background(), old, &nw)
	var ae *kerrors.ArgumentError
	if !errors.As(err, &ae) || ae.Arg != "field ID" || !strings.Contains(err.Error(), "key column id") {
		t.Fatalf("Update with another key: %v", err)
	}
	if len(d.qs) != 0 {
		t.Errorf("sent %d statements", len(d.qs))
	}
}
