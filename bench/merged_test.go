package bench

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"sync"
	"testing"
)

// The merged cells: kstore.Repo.ListMerged of 10 partitions of C12L0 (a
// page of 100 rows, the time buckets' read), against the hand-written
// merge: the first 100 rows of each partition read on a goroutine of its
// own, then merged by the clustering key, ties in the order of the
// partitions, on both adapters, with the matrix's method (measureCell;
// bench/README.md, "Method"). The client side is the matrix's
// (clientDriver, wire_test.go): the fake server answers every partition
// with the matrix's page of 100 rows (seq 0 to 99), so the merged page is
// seq 0 to 9, each ten times.
//
// TestMergedAgree checks that each cell compares like with like;
// TestMerged measures them (KANDRA_MATRIX=1):
//
//	go test -c -o /tmp/bench.test .
//	KANDRA_MATRIX=1 /tmp/bench.test -test.run '^TestMerged$' -matrix.rounds 20
//
// BenchmarkMerged runs each contender alone, for profiles.

var mergedOut = flag.String("merged.out", "", "TestMerged: write the table (markdown) to this file")

const (
	mergedParts = 10  // partitions a merged cell reads
	mergedPage  = 100 // its page: rows listed, and rows read of each partition
)

// handMerged is the hand-written merged listing: each partition's first
// mergedPage rows read by list on a goroutine of its own, then the least
// row of the partitions' heads taken mergedPage times (the first
// partition's on a tie). pos is where each partition stands, for the
// next page.
func handMerged[I any](m *marshaller[I], h *hand[I], list func(*marshaller[I], *hand[I], *C12L0) ([]*C12L0, error), parts []*C12L0) (page []*C12L0, pos []int, err error) {
	rows := make([][]*C12L0, len(parts))
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i, p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rows[i], errs[i] = list(m, h, p)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	pos = make([]int, len(parts))
	page = make([]*C12L0, 0, mergedPage)
	for len(page) < mergedPage {
		best := -1
		for i := range rows {
			if pos[i] < len(rows[i]) && (best < 0 || rows[i][pos[i]].Seq < rows[best][pos[best]].Seq) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		page = append(page, rows[best][pos[best]])
		pos[best]++
	}
	return page, pos, nil
}

// mergedCell is the merged cell on wire w, ops the hand-written code of
// C12L0.
func mergedCell[I any](w *wire[I], ops handOps[C12L0, I]) (*cell, error) {
	r, err := newC12Rig(w)
	if err != nil {
		return nil, err
	}
	page := make([][]any, mergedPage)
	for i := range page {
		page[i] = ops.row(newC12L0(int64(i)))
	}
	if err := r.serve(r.h.list.cql, r.h.list.result, page...); err != nil {
		return nil, err
	}
	d, h, hm, k := r.d, r.h, r.hm, r.k
	parts := make([]*C12L0, mergedParts)
	for i := range parts {
		parts[i] = newC12L0(0)
		binary.BigEndian.PutUint32(parts[i].Part[10:14], uint32(i+1))
	}
	var want []*C12L0
	for s := int64(0); len(want) < mergedPage; s++ {
		for range mergedParts {
			want = append(want, newC12L0(s))
		}
	}
	ctx := context.Background()
	var kGot, hGot []*C12L0
	kop := func() (err error) { kGot, err = k.repo.ListMerged(ctx, parts).All(); return err }
	hop := func() (err error) { hGot, _, err = handMerged(hm, h, ops.list, parts); return err }
	c := newCell(cellDef[I]{adapter: w.name, shape: "C12L0", op: fmt.Sprintf("merged-%dx%d", mergedParts, mergedPage), target: 1.1,
		d: d, open: k.open, close: k.close, kop: kop, hm: hm, hand: h, hop: hop,
		check: func() error { return sameAs(kGot, hGot, want) }})
	// The partitions are read concurrently, so each contender's queries
	// are compared in any order (sameRows), not in newCell's.
	c.agree = func() error {
		d.m.record = map[string][][][]byte{}
		err := k.open()
		if err == nil {
			err = errors.Join(kop(), k.close())
		}
		kRec := d.m.record
		d.m.record = nil
		if err != nil {
			return fmt.Errorf("kandra: %w", err)
		}
		hm.record = map[string][][][]byte{}
		err = hop()
		hRec := hm.record
		hm.record = nil
		if err != nil {
			return fmt.Errorf("hand-written: %w", err)
		}
		if err := sameRows(kRec, hRec); err != nil {
			return err
		}
		if len(kRec) != 1 || len(kRec[h.list.cql]) != mergedParts {
			return fmt.Errorf("kandra sent %d statements, %d of %q; want that one alone, once per partition (%d)", len(kRec), len(kRec[h.list.cql]), h.list.cql, mergedParts)
		}
		return sameAs(kGot, hGot, want)
	}
	return c, nil
}

// mergedCells is the merged cells of both adapters.
func mergedCells() ([]*cell, error) {
	return cellPerAdapter(func() (*cell, error) { return mergedCell(gocqlWire, handGocql.c12L0) },
		func() (*cell, error) { return mergedCell(v2Wire, handV2.c12L0) })
}

// TestMergedAgree checks that every merged cell compares like with like:
// kandra and the hand-written code send the same statement once per
// partition, with the same bytes, and list the same page.
func TestMergedAgree(t *testing.T) { agreeAll(t, mergedCells) }

// TestMerged measures the merged cells with the matrix's method
// (KANDRA_MATRIX=1; -matrix.rounds, -matrix.block and -matrix.run as for
// TestMatrix), one line per cell, and with -merged.out the markdown
// table.
func TestMerged(t *testing.T) {
	measureTable(t, "merged", mergedCells, *mergedOut)
}

// BenchmarkMerged runs every merged cell's contenders as the testing
// package's benchmarks, at GOMAXPROCS=1, for profiles; the figures to
// publish are TestMerged's.
func BenchmarkMerged(b *testing.B) {
	cells, err := mergedCells()
	if err != nil {
		b.Fatal(err)
	}
	benchCells(b, cells)
}
