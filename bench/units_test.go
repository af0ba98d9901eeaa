package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"reflect"
	"testing"

	gocqlv2 "github.com/apache/cassandra-gocql-driver/v2"
	gocql "github.com/gocql/gocql"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/driver/kgocqlv2"
)

// The unit cells: a kstore.Unit of N Saves (store.Unit(), repo.In(u).Save
// of each row, u.Apply) against the batch a careful engineer writes by
// hand on the same driver, on both adapters, with the matrix's method
// (measureCell: interleaved blocks, one P, the collector charged per
// byte; bench/README.md, "Method").
//
// The rows are C12L0's (12 columns, no lookups, nothing stamped): N of one
// partition, which the unit sends as an UNLOGGED BATCH, and N of N
// partitions, which it sends as a LOGGED BATCH. A unit of one write sends
// it alone, and so does the hand-written code: a batch of one statement
// is that statement.
//
// The client side is the write cells' (writeDriver: every statement bound
// as the adapters' Driver binds it, adapter.Plans.Of then Plan.Values by
// reference), with Batch made as driver/kgocql's and driver/kgocqlv2's
// newBatch make it: the driver's Batch of the unit's kind (gocql's
// NewBatch(kind).WithContext(ctx) with its consistency, the Apache
// driver's Batch(kind).Consistency(...)), each entry added with its
// argument list and its values marshalled. The hand-written code makes
// the same Batch with the same calls on the driver, with literal argument
// lists. The frame and the network are left out, as everywhere in the
// matrix.
//
// TestUnitsAgree checks that each cell compares like with like (the same
// statements, the same bytes, the same kind of batch); TestUnits measures
// them (KANDRA_MATRIX=1):
//
//	go test -c -o /tmp/bench.test .
//	KANDRA_MATRIX=1 /tmp/bench.test -test.run '^TestUnits$' -matrix.rounds 30 -units.out /tmp/units.md
//
// BenchmarkUnits runs each contender alone, for profiles.

var unitsOut = flag.String("units.out", "", "TestUnits: write the table (markdown) to this file")

// unitSizes are the units' sizes: one write (sent alone), 4 and 16.
var unitSizes = []int{1, 4, 16}

// cqlUnitInsert is the hand-written statement of the unit cells: C12L0's
// row (TestUnitsAgree checks that kandra sends the same).
const cqlUnitInsert = "INSERT INTO app.c12l0 (part, seq, f0, f1, f2, f3, f4, f5, f6, f7, f8, f9) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

// unitSent is what a contender sent for a unit: a batch of n statements
// of a kind (LOGGED, UNLOGGED), or one statement alone ("single").
type unitSent struct {
	kind string
	n    int
}

// batchKind names a batch type of either driver (both number them as the
// protocol does).
func batchKind(t byte) string {
	switch t {
	case byte(gocql.LoggedBatch):
		return "LOGGED"
	case byte(gocql.UnloggedBatch):
		return "UNLOGGED"
	case byte(gocql.CounterBatch):
		return "COUNTER"
	}
	return fmt.Sprintf("batch type %d", t)
}

// unitLog keeps what a contender sent while its marshaller records (in
// TestUnitsAgree only).
type unitLog struct{ sent []unitSent }

func (l *unitLog) add(m interface{ recording() bool }, kind string, n int) {
	if m.recording() {
		l.sent = append(l.sent, unitSent{kind, n})
	}
}

func (m *marshaller[I]) recording() bool { return m.record != nil }

// umarsh is the hand-written code's session for the unit cells: the
// matrix's marshaller, the statement, the call's context.
type umarsh[I any] struct {
	m   *marshaller[I]
	ins *wstmt[I]
	ctx context.Context
	log unitLog
}

// executed is the driver's ExecuteBatch of a batch of n statements of
// kind, whose values were marshalled as they were added (as the matrix's
// handBatch and clientDriver.Batch do): with no server, nothing more is
// done but note it when recording.
func (h *umarsh[I]) executed(kind byte, n int) error {
	h.log.add(h.m, batchKind(kind), n)
	return nil
}

// exec is the driver's Query of one statement (marshaller.exec), noted
// when recording.
func (h *umarsh[I]) exec(vals []any) error {
	h.log.add(h.m, "single", 1)
	return h.m.exec(h.ins.cql, h.ins.infos, vals)
}

// unitHand is the hand-written code of the unit cells on one driver:
// save writes rows atomically (one statement alone, or one batch:
// LOGGED when logged, the rows of several partitions; else UNLOGGED),
// newBatch is how its driver's Batch is made, for kandra's side.
type unitHand[I any] struct {
	save     func(h *umarsh[I], rows []*C12L0, logged bool) error
	newBatch func(ctx context.Context, unlogged bool) (sessionBatch, byte)
}

// The sessions of the wires: a Session with no connections of each
// driver, which builds its batches as a connected one does.
var (
	gocqlUnitSession = gocqlWire.session.(gocqlSession).s
	v2UnitSession    = v2Wire.session.(v2Session).s
)

var unitHandGocql = unitHand[gocql.TypeInfo]{
	save: func(h *umarsh[gocql.TypeInfo], rows []*C12L0, logged bool) error {
		if len(rows) == 1 {
			e := rows[0]
			return h.exec([]any{gocql.UUID(e.Part), e.Seq, e.F0, gocql.UUID(e.F1), e.F2, e.F3, e.F4, e.F5, e.F6, e.F7, e.F8, e.F9})
		}
		kind := gocql.UnloggedBatch
		if logged {
			kind = gocql.LoggedBatch
		}
		b := gocqlUnitSession.NewBatch(kind).WithContext(h.ctx)
		b.SetConsistency(gocql.LocalQuorum)
		for _, e := range rows {
			args := []any{gocql.UUID(e.Part), e.Seq, e.F0, gocql.UUID(e.F1), e.F2, e.F3, e.F4, e.F5, e.F6, e.F7, e.F8, e.F9}
			b.Query(h.ins.cql, args...)
			if err := h.m.row(h.ins.cql, h.ins.infos, args); err != nil {
				return err
			}
		}
		return h.executed(byte(b.Type), len(b.Entries))
	},
	newBatch: func(ctx context.Context, unlogged bool) (sessionBatch, byte) {
		kind := gocql.LoggedBatch
		if unlogged {
			kind = gocql.UnloggedBatch
		}
		b := gocqlUnitSession.NewBatch(kind).WithContext(ctx)
		b.SetConsistency(gocql.LocalQuorum)
		return gocqlBatch{b}, byte(b.Type)
	},
}

var unitHandV2 = unitHand[gocqlv2.TypeInfo]{
	save: func(h *umarsh[gocqlv2.TypeInfo], rows []*C12L0, logged bool) error {
		if len(rows) == 1 {
			e := rows[0]
			return h.exec([]any{gocqlv2.UUID(e.Part), e.Seq, e.F0, gocqlv2.UUID(e.F1), e.F2, e.F3, e.F4, e.F5, e.F6, e.F7, e.F8, e.F9})
		}
		kind := gocqlv2.UnloggedBatch
		if logged {
			kind = gocqlv2.LoggedBatch
		}
		b := v2UnitSession.Batch(kind).Consistency(gocqlv2.LocalQuorum)
		for _, e := range rows {
			args := []any{gocqlv2.UUID(e.Part), e.Seq, e.F0, gocqlv2.UUID(e.F1), e.F2, e.F3, e.F4, e.F5, e.F6, e.F7, e.F8, e.F9}
			b.Query(h.ins.cql, args...)
			if err := h.m.row(h.ins.cql, h.ins.infos, args); err != nil {
				return err
			}
		}
		return h.executed(byte(b.Type), len(b.Entries))
	},
	newBatch: func(_ context.Context, unlogged bool) (sessionBatch, byte) {
		kind := gocqlv2.LoggedBatch
		if unlogged {
			kind = gocqlv2.UnloggedBatch
		}
		b := v2UnitSession.Batch(kind).Consistency(gocqlv2.LocalQuorum)
		return v2Batch{b}, byte(b.Type)
	},
}

// unitDriver is writeDriver with Batch made as the adapters make it (see
// above), and the statements sent noted when recording.
type unitDriver[I any, D adapter.TypeSystem[I]] struct {
	*writeDriver[I, D]
	newBatch func(ctx context.Context, unlogged bool) (sessionBatch, byte)
	log      unitLog
}

// Exec implements adapter.Driver: writeDriver's, noted.
func (d *unitDriver[I, D]) Exec(ctx context.Context, q *adapter.Query) (bool, error) {
	d.log.add(&d.m, "single", 1)
	return d.writeDriver.Exec(ctx, q)
}

// Batch implements adapter.Driver, for the unconditional batches of the
// unit cells: the driver's Batch of b's kind, each entry bound as the
// adapters' Plans.Batch binds it, added and marshalled.
func (d *unitDriver[I, D]) Batch(ctx context.Context, b *adapter.Batch) (bool, error) {
	if b.Counter || b.IsConditional() {
		return false, errors.New("bench: unitDriver sends unconditional LOGGED and UNLOGGED batches only")
	}
	sb, kind := d.newBatch(ctx, b.Unlogged)
	args := adapter.NewArgs() // as the adapters' Plans.Batch: one pooled list, released once sent
	defer args.Release()
	for _, e := range b.Entries {
		p, err := d.plan(e.Statement)
		if err != nil {
			return false, err
		}
		cql := e.Statement.CQL()
		vals := p.p.Bind(args, e.Values, true)
		sb.add(cql, vals)
		if err := wireRow(&d.m, d.unset, cql, p.infos, vals); err != nil {
			return false, err
		}
		if d.tape != nil {
			d.tape.add(cql, p.infos, p.p.Values(e.Values, false))
		}
	}
	d.log.add(&d.m, batchKind(kind), len(b.Entries))
	return true, nil
}

// unitRows is the n rows of a unit: of one partition (clustering keys 0
// to n-1), or, with spread, of n partitions.
func unitRows(n int, spread bool) []*C12L0 {
	rows := make([]*C12L0, n)
	for i := range rows {
		rows[i] = newC12L0(int64(i))
		if spread {
			rows[i].Part[13] = byte(i + 1)
		}
	}
	return rows
}

// unitCells is the unit cells on wire w; codec (nil) names the adapter's
// type system, h is the hand-written code.
func unitCells[I any, D adapter.TypeSystem[I]](w *wire[I], codec *adapter.Codec[I, D], h unitHand[I]) ([]*cell, error) {
	d := &unitDriver[I, D]{writeDriver: newWriteDriver(w, codec), newBatch: h.newBatch}
	k, err := wrigOf(d, kandra.Register[C12L0])
	if err != nil {
		return nil, err
	}
	var infos []I
	for _, c := range k.table.Schema().Columns() {
		info, err := w.info(c.Type())
		if err != nil {
			return nil, err
		}
		infos = append(infos, info)
	}
	ctx := context.Background()
	hm := &umarsh[I]{m: &marshaller[I]{w: w}, ins: &wstmt[I]{cql: cqlUnitInsert, infos: infos}, ctx: ctx}
	var cells []*cell
	for _, n := range unitSizes {
		for _, spread := range []bool{false, true} {
			if n == 1 && spread {
				continue // one row is one partition
			}
			rows := unitRows(n, spread)
			op, want := fmt.Sprintf("unit-%d", n), unitSent{"single", 1}
			switch {
			case n == 1:
			case spread:
				op, want = fmt.Sprintf("unit-%d-logged", n), unitSent{"LOGGED", n}
			default:
				op, want = fmt.Sprintf("unit-%d-unlogged", n), unitSent{"UNLOGGED", n}
			}
			kop := func() error {
				u := k.rt.Unit()
				in := k.repo.In(u)
				for _, e := range rows {
					in.Save(e)
				}
				applied, err := u.Apply(ctx)
				if err == nil && !applied {
					err = errors.New("not applied")
				}
				return err
			}
			hop := func() error { return h.save(hm, rows, spread) }
			cd := cellDef[I]{adapter: w.name, shape: "C12L0", op: op, target: 1.1,
				d: d.clientDriver, open: k.open, close: k.close, kop: kop,
				hm: hm.m, hand: &hand[I]{insert: hstmt[I]{cql: cqlUnitInsert, infos: infos}}, hop: hop}
			c := newCell(cd)
			// The batches sent, besides the statements and bytes that
			// newCell's agree compares: the log of what each sent during
			// agree (cleared before it).
			check := c.agree
			c.agree = func() error {
				d.log.sent, hm.log.sent = nil, nil
				if err := check(); err != nil {
					return err
				}
				return sameSent(d.log.sent, hm.log.sent, want)
			}
			cells = append(cells, c)
		}
	}
	return cells, nil
}

// sameSent checks that kandra and the hand-written code sent the unit as
// want: one batch of the same kind and size, or one statement alone.
func sameSent(k, h []unitSent, want unitSent) error {
	if !reflect.DeepEqual(k, h) {
		return fmt.Errorf("kandra sent %v, the hand-written code %v", k, h)
	}
	if len(k) != 1 || k[0] != want {
		return fmt.Errorf("sent %v, want %v", k, want)
	}
	return nil
}

// unitCellSets is the unit cells of both adapters.
func unitCellSets() ([]*cell, error) {
	a, err := unitCells(gocqlWire, (*kgocql.Codec)(nil), unitHandGocql)
	if err != nil {
		return nil, fmt.Errorf("kgocql: %w", err)
	}
	b, err := unitCells(v2Wire, (*kgocqlv2.Codec)(nil), unitHandV2)
	if err != nil {
		return nil, fmt.Errorf("kgocqlv2: %w", err)
	}
	return append(a, b...), nil
}

// TestUnitsAgree checks that every unit cell compares like with like:
// kandra and the hand-written code send the same statement text with the
// same bytes, row by row in the same order, and the unit as the same kind
// of batch of the same size (or the one statement alone).
func TestUnitsAgree(t *testing.T) {
	cells, err := unitCellSets()
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 2*5 {
		t.Fatalf("%d cells", len(cells))
	}
	for _, c := range cells {
		if err := c.agree(); err != nil {
			t.Errorf("%s: %v", c.name(), err)
		}
	}
}

// TestUnitsSpread checks the rows of the cells: those of one partition
// share it, those of a LOGGED unit are of as many partitions as rows.
func TestUnitsSpread(t *testing.T) {
	for _, spread := range []bool{false, true} {
		parts := map[[16]byte]bool{}
		keys := map[[16]byte]map[int64]bool{}
		rows := unitRows(16, spread)
		for _, e := range rows {
			parts[e.Part] = true
			if keys[e.Part] == nil {
				keys[e.Part] = map[int64]bool{}
			}
			keys[e.Part][e.Seq] = true
		}
		want := 1
		if spread {
			want = len(rows)
		}
		if len(parts) != want {
			t.Errorf("spread %v: %d partitions, want %d", spread, len(parts), want)
		}
		n := 0
		for _, k := range keys {
			n += len(k)
		}
		if n != len(rows) {
			t.Errorf("spread %v: %d distinct rows of %d", spread, n, len(rows))
		}
	}
}

// TestUnits measures the unit cells with the matrix's method
// (KANDRA_MATRIX=1; -matrix.rounds, -matrix.block and -matrix.run as for
// TestMatrix), one line per cell, and with -units.out the markdown table.
func TestUnits(t *testing.T) {
	measureTable(t, "unit", unitCellSets, *unitsOut)
}

// BenchmarkUnits runs every unit cell's contenders as the testing
// package's benchmarks (BenchmarkUnits/<adapter>/<shape>/<op>/<contender>),
// at GOMAXPROCS=1, for profiles and benchstat; the figures to publish are
// TestUnits'.
func BenchmarkUnits(b *testing.B) {
	cells, err := unitCellSets()
	if err != nil {
		b.Fatal(err)
	}
	benchCells(b, cells)
}
