package kstore

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/kandra-go/kandra/adapter"
	_ "github.com/kandra-go/kandra/internal/rapidseed" // property tests draw from a fixed seed
	"pgregory.net/rapid"
)

// TestUnitSendsWhatSingleCallsSend: for random unconditional units of
// saves (with a BATCH lookup row), partial writes, deletes and range
// deletes, the unit's batch holds exactly the statements, with the same
// values, that the steps' single calls send one by one; it is UNLOGGED
// exactly when every statement writes one partition of one table; and a
// unit the planner refuses (two values of one cell, a write and a delete
// of one row, a range and its partition) sends nothing.
func TestUnitSendsWhatSingleCallsSend(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		ctx := context.Background()
		unitD, unitS := newUnitRecorder(t)
		oneD, oneS := newUnitRecorder(t)
		posts, plains := MustNewRepo(unitS, fPosts), MustNewRepo(unitS, fPlains)
		posts1, plains1 := MustNewRepo(oneS, fPosts), MustNewRepo(oneS, fPlains)
		u := unitS.Unit()
		type row struct {
			table string
			part  string
			key   string
			del   bool   // a row delete
			col   string // a column written, "" for none
			val   string // its value, "?" when not one value
			rng   bool
		}
		var rows []row
		clash := false
		n := rapid.IntRange(1, 6).Draw(rt, "steps")
		for i := range n {
			board := rapid.SampledFrom([]string{"a", "b"}).Draw(rt, fmt.Sprint("board", i))
			pos := rapid.IntRange(1, 2).Draw(rt, fmt.Sprint("pos", i))
			var r row
			switch op := rapid.IntRange(0, 4).Draw(rt, fmt.Sprint("op", i)); op {
			case 0:
				author := rapid.SampledFrom([]string{"", "ann"}).Draw(rt, fmt.Sprint("author", i))
				p := fPost{Board: board, PostID: int64(pos), Author: author}
				posts.In(u).Save(&p)
				if err := posts1.Save(ctx, &p); err != nil {
					rt.Fatal(err)
				}
				r = row{table: "fposts", part: board, key: fmt.Sprint(board, pos), col: "author", val: author}
			case 1:
				p := fPost{Board: board, PostID: int64(pos)}
				posts.In(u).Delete(&p)
				if err := posts1.HardDelete(ctx, &p); err != nil {
					rt.Fatal(err)
				}
				r = row{table: "fposts", part: board, key: fmt.Sprint(board, pos), del: true}
			case 2, 3:
				k := fPlain{Board: board, Pos: int32(pos)}
				title := rapid.SampledFrom([]string{"t", "u"}).Draw(rt, fmt.Sprint("title", i))
				p, col, val := Set(pTitle, title), "title", title
				if op == 3 {
					p, col, val = Append(pTags, "x"), "tags", "?"
				}
				plains.In(u).Patch(&k, p, Upsert())
				if _, err := plains1.Patch(ctx, &k, p, Upsert()); err != nil {
					rt.Fatal(err)
				}
				r = row{table: "fplain", part: board, key: fmt.Sprint(board, pos), col: col, val: val}
			case 4:
				k := fPlain{Board: board}
				plains.In(u).DeleteRange(&k)
				if err := plains1.DeleteRange(ctx, &k); err != nil {
					rt.Fatal(err)
				}
				r = row{table: "fplain", part: board, rng: true}
			}
			for _, o := range rows {
				if o.table != r.table || o.part != r.part {
					continue
				}
				// Saves also write the tag, always "": one value.
				clash = clash || o.rng || r.rng || o.key == r.key && (o.del || r.del || o.col == r.col && (o.val != r.val || r.val == "?"))
			}
			rows = append(rows, r)
		}
		applied, err := u.Apply(ctx)
		got, want := unitD.sent(), oneD.sent()
		if clash {
			if err == nil || len(got) != 0 {
				rt.Fatalf("a clashing unit: %v, sent %v", err, got)
			}
			return
		}
		if err != nil || !applied {
			rt.Fatalf("%v %v", applied, err)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			rt.Fatalf("the unit sent\n%v\nthe single calls\n%v", got, want)
		}
		onePart := true
		for _, r := range rows {
			onePart = onePart && r.table == rows[0].table && r.part == rows[0].part
		}
		for _, s := range got {
			onePart = onePart && !slices.Contains([]string{"INSERT INTO ks.fposts_by_author", "DELETE FROM ks.fposts_by_author"}, s[:min(len(s), 31)])
		}
		if b := unitD.batches; len(got) > 1 && (len(b) != 1 || b[0] != onePart) {
			rt.Fatalf("batches %v (unlogged?), want one, unlogged %t", b, onePart)
		}
	})
}

// unitRecorder records every statement sent, with its values as they
// were when sent, and whether each batch was UNLOGGED.
type unitRecorder struct {
	valRecorder
	texts   []string
	batches []bool
}

func newUnitRecorder(t *testing.T) (*unitRecorder, *Store) {
	d := &unitRecorder{valRecorder: valRecorder{applied: true}}
	rt, err := New(d, unitKS, WithClock(func() time.Time { return clock }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	return d, rt
}

// note records q as it is now.
func (d *unitRecorder) note(q *adapter.Query) {
	s := q.Statement.CQL()
	for _, v := range q.Values {
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
			v = rv.Elem().Interface()
		}
		s += fmt.Sprintf(" | %v", v)
	}
	d.mu.Lock()
	d.texts = append(d.texts, s)
	d.mu.Unlock()
}

func (d *unitRecorder) Exec(ctx context.Context, q *adapter.Query) (bool, error) {
	d.note(q)
	return d.valRecorder.Exec(ctx, q)
}

func (d *unitRecorder) Batch(_ context.Context, b *adapter.Batch) (bool, error) {
	d.mu.Lock()
	d.batches = append(d.batches, b.Unlogged)
	d.mu.Unlock()
	for _, e := range b.Entries {
		d.note(e)
	}
	return true, nil
}

func (d *unitRecorder) sent() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.texts)
}
