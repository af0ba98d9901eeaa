package bench

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// The GetMany cells: kstore.Repo.GetMany of 50 keys of C12L0 against the
// hand-written reads of the same keys on 16 goroutines taking them in
// turn (GetMany's concurrency), each read the matrix's hand-written Get,
// on both adapters, with the matrix's method (measureCell; bench/README.md,
// "Method"). The client side is the matrix's (clientDriver, wire_test.go):
// the fake server answers every read with the row of entity 0, so the 50
// keys are entity 0's, and what is measured is the client's cost of 50
// concurrent reads and of starting their goroutines.
//
// TestGetManyAgree checks that each cell compares like with like;
// TestGetMany measures them (KANDRA_MATRIX=1):
//
//	go test -c -o /tmp/bench.test .
//	KANDRA_MATRIX=1 /tmp/bench.test -test.run '^TestGetMany$' -matrix.rounds 20
//
// BenchmarkGetMany runs each contender alone, for profiles.

var getManyOut = flag.String("getmany.out", "", "TestGetMany: write the table (markdown) to this file")

const (
	getManyKeys = 50 // keys a GetMany cell reads
	getManyConc = 16 // the hand-written code's goroutines: GetMany's concurrency
)

// handGetMany is the hand-written GetMany: getManyConc goroutines taking
// the keys in turn, each read by get; the rows aligned with the keys.
func handGetMany[I any](m *marshaller[I], h *hand[I], get func(*marshaller[I], *hand[I], *C12L0) (*C12L0, error), keys []*C12L0) ([]*C12L0, error) {
	out := make([]*C12L0, len(keys))
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for range min(getManyConc, len(keys)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(keys) {
					return
				}
				e, err := get(m, h, keys[i])
				if err != nil {
					once.Do(func() { first = err })
					return
				}
				out[i] = e
			}
		}()
	}
	wg.Wait()
	return out, first
}

// getManyCell is the GetMany cell on wire w, ops the hand-written code of
// C12L0.
func getManyCell[I any](w *wire[I], ops handOps[C12L0, I]) (*cell, error) {
	r, err := newC12Rig(w)
	if err != nil {
		return nil, err
	}
	if err := r.serve(r.h.get.cql, r.h.get.result, ops.row(newC12L0(0))); err != nil {
		return nil, err
	}
	h, hm, k := r.h, r.hm, r.k
	keys := make([]*C12L0, getManyKeys)
	for i := range keys {
		keys[i] = newC12L0(0)
	}
	ctx := context.Background()
	var kGot, hGot []*C12L0
	return newCell(cellDef[I]{adapter: w.name, shape: "C12L0", op: fmt.Sprintf("getmany-%d", getManyKeys), target: 1.1,
		d: r.d, open: k.open, close: k.close, hm: hm, hand: h,
		kop:   func() (err error) { kGot, err = k.repo.GetMany(ctx, keys); return err },
		hop:   func() (err error) { hGot, err = handGetMany(hm, h, ops.get, keys); return err },
		check: func() error { return sameAs(kGot, hGot, keys) }}), nil
}

// getManyCells is the GetMany cells of both adapters.
func getManyCells() ([]*cell, error) {
	return cellPerAdapter(func() (*cell, error) { return getManyCell(gocqlWire, handGocql.c12L0) },
		func() (*cell, error) { return getManyCell(v2Wire, handV2.c12L0) })
}

// TestGetManyAgree checks that every GetMany cell compares like with
// like: kandra and the hand-written code send the same statements with
// the same bytes, and read the same rows.
func TestGetManyAgree(t *testing.T) { agreeAll(t, getManyCells) }

// TestGetMany measures the GetMany cells with the matrix's method
// (KANDRA_MATRIX=1; -matrix.rounds, -matrix.block and -matrix.run as for
// TestMatrix), one line per cell, and with -getmany.out the markdown
// table.
func TestGetMany(t *testing.T) {
	measureTable(t, "getmany", getManyCells, *getManyOut)
}

// BenchmarkGetMany runs every GetMany cell's contenders as the testing
// package's benchmarks, at GOMAXPROCS=1, for profiles; the figures to
// publish are TestGetMany's.
func BenchmarkGetMany(b *testing.B) {
	cells, err := getManyCells()
	if err != nil {
		b.Fatal(err)
	}
	benchCells(b, cells)
}
