package kstore

import (
	"context"
	"reflect"
	"testing"

	"github.com/kandra-go/kandra"
)

// TestCountBoundsKeepTheirShape: Counts of one partition with a bound on
// one clustering column and with a tuple bound, in either order, each
// send their own statement with their own values. The statements' cache
// once keyed a count by its bounds' kinds only, so the second of two such
// Counts got the first's statement and counted another range.
func TestCountBoundsKeepTheirShape(t *testing.T) {
	ctx := context.Background()
	at := kandra.MustFieldOf(fBucketeds, func(b *fBucketed) *int64 { return &b.At })
	seq := kandra.MustFieldOf(fBucketeds, func(b *fBucketed) *int32 { return &b.Seq })
	const (
		single = "SELECT COUNT(*) FROM ks.fbucketed WHERE bucket = ? AND at <= ?"
		tuple  = "SELECT COUNT(*) FROM ks.fbucketed WHERE bucket = ? AND (at, seq) <= (?, ?)"
	)
	type count struct {
		opt  ListOption
		cql  string
		vals []any
	}
	one := count{To(at, 500, true), single, []any{int32(3), int64(500)}}
	two := count{ToTuple(true, At(at, int64(500)), At(seq, int32(9))), tuple, []any{int32(3), int64(500), int32(9)}}
	for _, order := range [][]count{{one, two}, {two, one}} {
		d := &valuesDriver{}
		rt, err := New(d, kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5,
			Replication: kandra.SimpleStrategy(1)}, fBucketeds))
		if err != nil {
			t.Fatal(err)
		}
		repo := MustNewRepo(rt, fBucketeds)
		for _, c := range order {
			if _, err := repo.Count(ctx, &fBucketed{Bucket: 3}, c.opt); err != nil {
				t.Fatal(err)
			}
		}
		_ = rt.Close(ctx)
		if len(d.cql) != 2 {
			t.Fatalf("sent %q, want two counts", d.cql)
		}
		for i, c := range order {
			var got []any
			for _, v := range d.val[i] {
				got = append(got, reflect.ValueOf(v).Elem().Interface()) // the fields' and bounds' addresses
			}
			if d.cql[i] != c.cql || !reflect.DeepEqual(got, c.vals) {
				t.Errorf("count %d of %d: sent %s with %v, want %s with %v", i+1, len(order), d.cql[i], got, c.cql, c.vals)
			}
		}
	}
}
