package bench

import (
	"context"
	"flag"
	"fmt"
	"testing"
	"time"

	gocqlv2 "github.com/apache/cassandra-gocql-driver/v2"
	gocql "github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kstore"
)

// The write-time cells: kstore.Repo.GetTimes of a row of C12L0 with the
// write time and TTL of its F0, against the hand-written SELECT of the
// row's columns with WRITETIME(f0) and TTL(f0), scanned into the entity
// and two integers and converted to a time and a duration, on both
// adapters, with the matrix's method (measureCell; bench/README.md,
// "Method"). The client side is the matrix's (clientDriver,
// wire_test.go): the fake server answers with entity 0's row and its
// cell's times.
//
// TestTimesAgree checks that each cell compares like with like;
// TestTimes measures them (KANDRA_MATRIX=1):
//
//	go test -c -o /tmp/bench.test .
//	KANDRA_MATRIX=1 /tmp/bench.test -test.run '^TestTimes$' -matrix.rounds 20
//
// BenchmarkTimes runs each contender alone, for profiles.

var timesOut = flag.String("times.out", "", "TestTimes: write the table (markdown) to this file")

// The times the fake server gives F0's cell: written at timesWrite (in
// microseconds), timesTTL seconds left.
const (
	timesWrite = int64(1_765_000_000_123_456)
	timesTTL   = int32(3600)
)

// timesGet is the hand-written read of a row and its F0's times on one
// driver: the matrix's Get of C12L0 with two more targets.
type timesGet[I any] func(m *marshaller[I], s *hstmt[I], key *C12L0) (*C12L0, kstore.CellTime, error)

// cellTimeOf is what the hand-written code makes of a WRITETIME and a
// TTL, as a caller wants them: a time (none for a cell without a value)
// and a duration.
func cellTimeOf(wt int64, ttl int32) kstore.CellTime {
	var c kstore.CellTime
	if wt != 0 {
		c.WriteTime = time.UnixMicro(wt).UTC()
	}
	c.TTL = time.Duration(ttl) * time.Second
	return c
}

// timesGetOf is the hand-written read on the driver whose UUID type is U
// (gocql's or the Apache driver v2's): the matrix's Get of C12L0, and the
// WRITETIME and TTL into an int64 and an int32.
func timesGetOf[I any, U ~[16]byte](m *marshaller[I], s *hstmt[I], key *C12L0) (*C12L0, kstore.CellTime, error) {
	rows, err := m.query(s.cql, s.infos, []any{U(key.Part), key.Seq}, 0)
	if err != nil {
		return nil, kstore.CellTime{}, err
	}
	if len(rows) == 0 {
		return nil, kstore.CellTime{}, errNoRow
	}
	e := new(C12L0)
	var uPart, uF1 U
	var wt int64
	var ttl int32
	if err := unmarshalRow(m.w, s.result, rows[0], []any{&uPart, &e.Seq, &e.F0, &uF1, &e.F2, &e.F3, &e.F4, &e.F5, &e.F6, &e.F7, &e.F8, &e.F9, &wt, &ttl}); err != nil {
		return nil, kstore.CellTime{}, err
	}
	e.Part, e.F1 = uuid.UUID(uPart), uuid.UUID(uF1)
	return e, cellTimeOf(wt, ttl), nil
}

// timesCell is the write-time cell on wire w: ops the matrix's
// hand-written code of C12L0 (its row), get the hand-written read.
func timesCell[I any](w *wire[I], ops handOps[C12L0, I], get timesGet[I]) (*cell, error) {
	r, err := newC12Rig(w)
	if err != nil {
		return nil, err
	}
	f0 := kandra.MustFieldOf(r.k.table, func(e *C12L0) *string { return &e.F0 })
	var buf [128]byte
	s, err := newHstmt(w, r.st.Timed(r.st.SelectByKey(), []*kandra.ColumnSchema{f0.Column()}, buf[:0]))
	if err != nil {
		return nil, err
	}
	s.result = append(s.result, w.bigint, w.int32)
	if err := r.serve(s.cql, s.result, append(ops.row(newC12L0(0)), timesWrite, timesTTL)); err != nil {
		return nil, err
	}
	d, hm, k := r.d, r.hm, r.k
	key := newC12L0(0)
	ctx := context.Background()
	type got struct {
		e *C12L0
		t kstore.CellTime
	}
	var kGot, hGot got
	want := got{newC12L0(0), cellTimeOf(timesWrite, timesTTL)}
	return newCell(cellDef[I]{adapter: w.name, shape: "C12L0", op: "get-times", target: 1.1,
		d: d, open: k.open, close: k.close, hm: hm, hand: &hand[I]{},
		kop: func() error {
			e, ts, err := k.repo.GetTimes(ctx, key, []kstore.Column{f0})
			if err == nil && len(ts) != 1 {
				return fmt.Errorf("%d times, want 1", len(ts))
			}
			if err == nil {
				kGot = got{e, ts[0]}
			}
			return err
		},
		hop: func() (err error) {
			hGot.e, hGot.t, err = get(hm, &s, key)
			return err
		},
		check: func() error { return sameAs(kGot, hGot, want) }}), nil
}

// timesCells is the write-time cells of both adapters.
func timesCells() ([]*cell, error) {
	return cellPerAdapter(func() (*cell, error) {
		return timesCell(gocqlWire, handGocql.c12L0, timesGetOf[gocql.TypeInfo, gocql.UUID])
	},
		func() (*cell, error) {
			return timesCell(v2Wire, handV2.c12L0, timesGetOf[gocqlv2.TypeInfo, gocqlv2.UUID])
		})
}

// TestTimesAgree checks that every write-time cell compares like with
// like: kandra and the hand-written code send the same statement with the
// same bytes, and read the same row and times.
func TestTimesAgree(t *testing.T) { agreeAll(t, timesCells) }

// TestTimes measures the write-time cells with the matrix's method
// (KANDRA_MATRIX=1; -matrix.rounds, -matrix.block and -matrix.run as for
// TestMatrix), one line per cell, and with -times.out the markdown table.
func TestTimes(t *testing.T) {
	measureTable(t, "write-time", timesCells, *timesOut)
}

// BenchmarkTimes runs every write-time cell's contenders as the testing
// package's benchmarks, at GOMAXPROCS=1, for profiles; the figures to
// publish are TestTimes'.
func BenchmarkTimes(b *testing.B) {
	cells, err := timesCells()
	if err != nil {
		b.Fatal(err)
	}
	benchCells(b, cells)
}
