package bench

import (
	"context"
	"flag"
	"fmt"
	"testing"

	gocqlv2 "github.com/apache/cassandra-gocql-driver/v2"
	gocql "github.com/gocql/gocql"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kstore"
)

// The count cells: kstore.Repo.Count of a partition, and of a clustering
// range of it (From and To), against the SELECT COUNT(*) a careful
// engineer writes by hand on the same driver and scans into an int64, on
// both adapters, with the matrix's method (measureCell; bench/README.md,
// "Method"). The server counts: what crosses the client is the key and
// one BIGINT, so these cells are the per-call cost of a read and little
// else. The client side is the matrix's (clientDriver, wire_test.go).
//
// The count-all cells (countAllCell, scan_test.go) count the scan cells'
// table of 10,000 rows: Repo.CountAll over the even cut of 16 token
// ranges, 4 at a time, against the hand-written count of each range on 4
// goroutines, summed.
//
// TestCountsAgree checks that each cell compares like with like;
// TestCounts measures them (KANDRA_MATRIX=1):
//
//	go test -c -o /tmp/bench.test .
//	KANDRA_MATRIX=1 /tmp/bench.test -test.run '^TestCounts$' -matrix.rounds 20
//
// BenchmarkCounts runs each contender alone, for profiles and benchstat.

var countsOut = flag.String("counts.out", "", "TestCounts: write the table (markdown) to this file")

// The hand-written statements of the count cells (TestCountsAgree checks
// that kandra sends the same).
const (
	cqlCount      = "SELECT COUNT(*) FROM app.write_row WHERE part = ?"
	cqlCountRange = "SELECT COUNT(*) FROM app.write_row WHERE part = ? AND seq >= ? AND seq < ?"
)

// countRows is the count the fake server returns.
const countRows = 4321

// countHand is the hand-written code of the count cells on one driver:
// the count of a partition, and of the rows of seq in [from, to).
type countHand[I any] struct {
	count      func(m *marshaller[I], s *hstmt[I], part *WriteRow) (int64, error)
	countRange func(m *marshaller[I], s *hstmt[I], part *WriteRow, from, to int64) (int64, error)
}

// scanCount reads the one row of a count.
func scanCount[I any](m *marshaller[I], s *hstmt[I], rows [][][]byte) (int64, error) {
	if len(rows) != 1 {
		return 0, fmt.Errorf("bench: %s: %d rows", s.cql, len(rows))
	}
	var n int64
	err := unmarshalRow(m.w, s.result, rows[0], []any{&n})
	return n, err
}

var countHandGocql = countHand[gocql.TypeInfo]{
	count: func(m *marshaller[gocql.TypeInfo], s *hstmt[gocql.TypeInfo], part *WriteRow) (int64, error) {
		rows, err := m.query(s.cql, s.infos, []any{gocql.UUID(part.Part)}, 0)
		if err != nil {
			return 0, err
		}
		return scanCount(m, s, rows)
	},
	countRange: func(m *marshaller[gocql.TypeInfo], s *hstmt[gocql.TypeInfo], part *WriteRow, from, to int64) (int64, error) {
		rows, err := m.query(s.cql, s.infos, []any{gocql.UUID(part.Part), from, to}, 0)
		if err != nil {
			return 0, err
		}
		return scanCount(m, s, rows)
	},
}

var countHandV2 = countHand[gocqlv2.TypeInfo]{
	count: func(m *marshaller[gocqlv2.TypeInfo], s *hstmt[gocqlv2.TypeInfo], part *WriteRow) (int64, error) {
		rows, err := m.query(s.cql, s.infos, []any{gocqlv2.UUID(part.Part)}, 0)
		if err != nil {
			return 0, err
		}
		return scanCount(m, s, rows)
	},
	countRange: func(m *marshaller[gocqlv2.TypeInfo], s *hstmt[gocqlv2.TypeInfo], part *WriteRow, from, to int64) (int64, error) {
		rows, err := m.query(s.cql, s.infos, []any{gocqlv2.UUID(part.Part), from, to}, 0)
		if err != nil {
			return 0, err
		}
		return scanCount(m, s, rows)
	},
}

// countCells is the count cells on wire w, h the hand-written code.
func countCells[I any](w *wire[I], h countHand[I]) ([]*cell, error) {
	d := newClientDriver(w)
	k, err := wrigOf(d, kandra.Register[WriteRow])
	if err != nil {
		return nil, err
	}
	var part, seq *kandra.ColumnSchema
	for _, c := range k.table.Schema().Columns() {
		switch c.Name() {
		case "part":
			part = c
		case "seq":
			seq = c
		}
	}
	if part == nil || seq == nil {
		return nil, fmt.Errorf("bench: write_row has no part or seq column")
	}
	mk := func(cql string, keys ...*kandra.ColumnSchema) (hstmt[I], error) {
		s := hstmt[I]{cql: cql, result: []I{w.bigint}}
		var err error
		s.infos, err = w.infos(keys)
		return s, err
	}
	all, err := mk(cqlCount, part)
	if err != nil {
		return nil, err
	}
	rng, err := mk(cqlCountRange, part, seq, seq)
	if err != nil {
		return nil, err
	}
	// The fake server's answer to both: one row, the count.
	srv := marshaller[I]{w: w, record: map[string][][][]byte{}}
	for _, s := range []*hstmt[I]{&all, &rng} {
		if err := srv.row(s.cql, s.result, []any{int64(countRows)}); err != nil {
			return nil, err
		}
		d.m.rows[s.cql] = srv.record[s.cql]
	}
	hm := &marshaller[I]{w: w, rows: d.m.rows}
	ctx := context.Background()
	seqF := kandra.MustFieldOf(k.table, func(e *WriteRow) *int64 { return &e.Seq })
	key := &WriteRow{Part: matrixPart}
	from, to := int64(10), int64(20)
	var kGot, hGot int64
	mk2 := func(op string, kop, hop func() error) *cell {
		return newCell(cellDef[I]{adapter: w.name, shape: "write", op: op, target: 1.1,
			d: d, open: k.open, close: k.close, kop: kop, hm: hm, hand: &hand[I]{}, hop: hop,
			check: func() error { return sameAs(kGot, hGot, int64(countRows)) }})
	}
	return []*cell{
		mk2("count",
			func() (err error) { kGot, err = k.repo.Count(ctx, key); return err },
			func() (err error) { hGot, err = h.count(hm, &all, key); return err }),
		mk2("count-range",
			func() (err error) {
				kGot, err = k.repo.Count(ctx, key, kstore.From(seqF, from, true), kstore.To(seqF, to, false))
				return err
			},
			func() (err error) { hGot, err = h.countRange(hm, &rng, key, from, to); return err }),
	}, nil
}

// countCellSets is the count cells of both adapters.
func countCellSets() ([]*cell, error) {
	a, err := countCells(gocqlWire, countHandGocql)
	if err != nil {
		return nil, fmt.Errorf("kgocql: %w", err)
	}
	b, err := countCells(v2Wire, countHandV2)
	if err != nil {
		return nil, fmt.Errorf("kgocqlv2: %w", err)
	}
	ac, err := countAllCell(gocqlWire, handGocql.c12L0.row, scanRowGocql)
	if err != nil {
		return nil, fmt.Errorf("kgocql: %w", err)
	}
	bc, err := countAllCell(v2Wire, handV2.c12L0.row, scanRowV2)
	if err != nil {
		return nil, fmt.Errorf("kgocqlv2: %w", err)
	}
	return append(append(a, ac), append(b, bc)...), nil
}

// TestCountsAgree checks that every count cell compares like with like:
// kandra and the hand-written code send the same statement with the same
// bytes, and read the same count.
func TestCountsAgree(t *testing.T) {
	cells, err := countCellSets()
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 2*3 {
		t.Fatalf("%d cells", len(cells))
	}
	for _, c := range cells {
		if err := c.agree(); err != nil {
			t.Errorf("%s: %v", c.name(), err)
		}
	}
}

// TestCounts measures the count cells with the matrix's method
// (KANDRA_MATRIX=1; -matrix.rounds, -matrix.block and -matrix.run as for
// TestMatrix), one line per cell, and with -counts.out the markdown
// table.
func TestCounts(t *testing.T) {
	measureTable(t, "count", countCellSets, *countsOut)
}

// BenchmarkCounts runs every count cell's contenders as the testing
// package's benchmarks, at GOMAXPROCS=1, for profiles and benchstat; the
// figures to publish are TestCounts'.
func BenchmarkCounts(b *testing.B) {
	cells, err := countCellSets()
	if err != nil {
		b.Fatal(err)
	}
	benchCells(b, cells)
}
