package bench

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
	"github.com/kandra-go/kandra/kstore"
)

// The benchmark matrix: every operation of the store, on entities of 4,
// 12 and 48 columns with 0, 1, 2 and 4 lookups (BATCH or EVENTUAL), on
// both adapters, each cell against the code a careful engineer writes by
// hand on that driver (matrix_hand_*_gen_test.go), and the marshalling
// floor. All on the client, with no network (see wire_test.go); the
// method is in bench/README.md ("Method"). TestMatrixAgree checks every
// cell compares like with like; TestMatrix measures (KANDRA_MATRIX=1).

var (
	matrixRounds = flag.Int("matrix.rounds", 40, "TestMatrix: rounds (blocks per contender) of every cell")
	matrixBlock  = flag.Duration("matrix.block", 5*time.Millisecond, "TestMatrix: the time a block takes, about (its operations are fixed per cell)")
	matrixRun    = flag.String("matrix.run", "", "TestMatrix: only the cells whose adapter/shape/op matches this regexp")
	matrixOut    = flag.String("matrix.out", "", "TestMatrix: write the table (markdown) to this file")
)

//go:generate go run ./internal/genmatrix

var (
	matrixPart = uuid.MustParse("0190f0a8-1d2c-7a3b-8c4d-5e6f7a8b9c0d")
	matrixTime = time.Date(2025, 6, 1, 12, 30, 0, 0, time.UTC)
	errNoRow   = errors.New("bench: no row")
)

// matrixUUID is the i-th UUID of a matrix entity.
func matrixUUID(i int) uuid.UUID {
	u := matrixPart
	u[15] = byte(i)
	u[14] = 0xee
	return u
}

// MatrixCounter is the counter table of the matrix.
type MatrixCounter struct {
	Part  uuid.UUID
	Seq   int64
	Hits  int64
	Views int64
}

func (c *MatrixCounter) Describe(s *kandra.Schema[MatrixCounter]) {
	s.Table("matrix_counter")
	kandra.Bind(s, &c.Part, kandra.PartitionKey(0))
	kandra.Bind(s, &c.Seq, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Counter(s, &c.Hits)
	kandra.Counter(s, &c.Views)
}

// hstmt is a statement as the hand-written code runs it: kandra's CQL
// text (every contender sends the same), the type info of each marker and
// result column, and which markers are a USING TIMESTAMP (a call's clock:
// equal in kind, not in value, when contenders are compared).
type hstmt[I any] struct {
	cql    string
	infos  []I
	result []I
	ts     []int
}

func newHstmt[I any](w *wire[I], s *adapter.Statement) (hstmt[I], error) {
	if s == nil {
		return hstmt[I]{}, nil
	}
	h := hstmt[I]{cql: s.CQL()}
	for i := 0; i < s.NumParams(); i++ {
		p := s.Param(i)
		switch {
		case p.Column != nil:
			info, err := w.info(p.Column.Type())
			if err != nil {
				return h, err
			}
			h.infos = append(h.infos, info)
		case p.Kind == adapter.ParamTimestamp:
			h.infos, h.ts = append(h.infos, w.bigint), append(h.ts, i)
		case p.Kind == adapter.ParamDelta:
			h.infos = append(h.infos, w.bigint)
		case p.Kind == adapter.ParamTTL || p.Kind == adapter.ParamLimit:
			h.infos = append(h.infos, w.int32)
		default:
			return h, fmt.Errorf("bench: %s: marker %s: not in the matrix", s, p)
		}
	}
	for i := 0; i < s.NumResult(); i++ {
		info, err := w.info(s.Result(i).Type())
		if err != nil {
			return h, err
		}
		h.result = append(h.result, info)
	}
	return h, nil
}

// hand is the statements of one table for the hand-written code.
type hand[I any] struct {
	insert, insertIfNotExists, get, list hstmt[I]
	update, updatePlain, delete          hstmt[I] // update USING TIMESTAMP, and without
	lookups                              []handLookup[I]
}

type handLookup[I any] struct{ insert, insertAt, deleteAt, sel hstmt[I] }

func newHand[I any](w *wire[I], st *catalog.Table) (*hand[I], error) {
	h := &hand[I]{}
	var errs []error
	mk := func(s *adapter.Statement) hstmt[I] {
		x, err := newHstmt(w, s)
		errs = append(errs, err)
		return x
	}
	h.insert = mk(st.Insert(0))
	h.insertIfNotExists = mk(st.InsertIfNotExists(0))
	h.get = mk(st.SelectByKey())
	// The update cell changes F0 only, the first column after the key: the
	// statement a careful engineer writes sets that one (as kandra's
	// Update, which writes what changed).
	f0 := []*kandra.ColumnSchema{st.Schema().Columns()[len(st.Schema().PrimaryKey())]}
	h.update = mk(st.UpdateColumns(f0, catalog.UsingTimestamp, false, nil))
	h.updatePlain = mk(st.UpdateColumns(f0, 0, false, nil))
	h.delete = mk(st.Delete(0))
	h.list = mk(st.SelectPartition(catalog.Range{}))
	for i := 0; i < st.NumLookups(); i++ {
		l := st.Lookup(i)
		h.lookups = append(h.lookups, handLookup[I]{mk(l.Insert()), mk(l.InsertAt()), mk(l.DeleteAt()), mk(l.Select())})
	}
	return h, errors.Join(errs...)
}

// all is every statement of h.
func (h *hand[I]) all() []*hstmt[I] {
	out := []*hstmt[I]{&h.insert, &h.insertIfNotExists, &h.get, &h.update, &h.updatePlain, &h.delete, &h.list}
	for i := range h.lookups {
		l := &h.lookups[i]
		out = append(out, &l.insert, &l.insertAt, &l.deleteAt, &l.sel)
	}
	return out
}

// handOps is the hand-written code of one shape on one driver.
type handOps[T, I any] struct {
	row, key        func(*T) []any // the server's row of an entity; its key
	save            func(*marshaller[I], *hand[I], *T) error
	saveIfNotExists func(*marshaller[I], *hand[I], *T) (bool, error)
	get             func(*marshaller[I], *hand[I], *T) (*T, error)
	update          func(*marshaller[I], *hand[I], *T, *T) error
	delete          func(*marshaller[I], *hand[I], *T) error
	find            func(*marshaller[I], *hand[I], string) (*T, error)
	list            func(*marshaller[I], *hand[I], *T) ([]*T, error)
}

// contender is one side of a cell. Before each block, setup runs
// untimed; run(n) is timed: n operations and whatever finishes them (a
// store's Close, which waits for its EVENTUAL writes).
type contender struct {
	name  string
	setup func() error
	run   func(n int) error
}

// cell is one operation on one shape and adapter: kandra, the
// hand-written code and the floor, with the check that kandra and the
// hand-written code do the same work.
type cell struct {
	adapter, shape, op  string
	kandra, hand, floor contender
	agree               func() error
	target              float64 // the time ratio kandra/hand to meet
}

func (c *cell) name() string { return c.adapter + "/" + c.shape + "/" + c.op }

// cellSet is a shape's cells; make builds them.
type cellSet struct {
	shape string
	make  func() ([]*cell, error)
}

// rig is kandra on a client driver for one table: one Store and Repo for
// every block of a cell, as a service keeps them, opened by the first
// block's setup; each block ends with the Store's Wait for the EVENTUAL
// writes its calls queued, timed with its operations (close).
type rig[T, I any] struct {
	d     *clientDriver[I]
	ks    *kandra.Keyspace
	table *kandra.Table[T]
	f0    func(*T) *string
	rt    *kstore.Store
	repo  *kstore.Repo[T]
	find  *kstore.Lookup[T, string]
	opts  []kstore.Option // more options of the store (an observer)
	mu    sync.Mutex
	fail  error
}

func (k *rig[T, I]) open() error {
	if k.rt != nil {
		return nil // the cell's store, still open
	}
	l := kandra.EventListenerFunc(func(table string, _ any, err error) {
		k.mu.Lock()
		defer k.mu.Unlock()
		if k.fail == nil {
			k.fail = fmt.Errorf("EVENTUAL write to %s: %w", table, err)
		}
	})
	rt, err := kstore.New(k.d, k.ks, append([]kstore.Option{kstore.WithEventListener(l)}, k.opts...)...)
	if err != nil {
		return err
	}
	k.rt = rt
	if k.repo, err = kstore.NewRepo(rt, k.table); err != nil {
		return err
	}
	if k.f0 != nil && len(k.table.Schema().LookupTables()) > 0 {
		f, err := kandra.FieldOf(k.table, k.f0)
		if err != nil {
			return err
		}
		if k.find, err = kstore.LookupOf(k.repo, f); err != nil {
			return err
		}
	}
	return nil
}

func (k *rig[T, I]) close() error {
	err := k.rt.Wait(context.Background())
	k.mu.Lock()
	defer k.mu.Unlock()
	return errors.Join(err, k.fail)
}

var matrixKeyspace = kandra.KeyspaceSpec{Name: "app", Replication: kandra.SimpleStrategy(1), Targets: kandra.Cassandra5}

// tableOf registers a matrix table (register is kandra.Register of its
// type) and builds its keyspace and statements.
func tableOf[T any](register func() (*kandra.Table[T], error)) (*kandra.Table[T], *kandra.Keyspace, *catalog.Table, error) {
	table, err := register()
	if err != nil {
		return nil, nil, nil, err
	}
	ks, err := kandra.NewKeyspace(matrixKeyspace, table)
	if err != nil {
		return nil, nil, nil, err
	}
	st, err := catalog.Build(table.Schema(), ks.Name())
	return table, ks, st, err
}

// c12Rig is what a cell of C12L0 outside the matrix stands on (GetMany,
// merged, write times): the table's statements and the hand-written
// code's, the client driver, the marshaller of the hand-written code
// (serving the driver's rows), and kandra's store and Repo.
type c12Rig[I any] struct {
	st *catalog.Table
	h  *hand[I]
	d  *clientDriver[I]
	hm *marshaller[I]
	k  *wrig[C12L0]
}

func newC12Rig[I any](w *wire[I]) (*c12Rig[I], error) {
	table, ks, st, err := tableOf(kandra.Register[C12L0])
	if err != nil {
		return nil, err
	}
	h, err := newHand(w, st)
	if err != nil {
		return nil, err
	}
	d := newClientDriver(w)
	return &c12Rig[I]{st: st, h: h, d: d, hm: &marshaller[I]{w: w, rows: d.m.rows}, k: &wrig[C12L0]{d: d, ks: ks, table: table}}, nil
}

// serve makes rows, each a row's values marshalled by result, the fake
// server's answer to cql.
func (r *c12Rig[I]) serve(cql string, result []I, rows ...[]any) error {
	srv := marshaller[I]{w: r.d.m.w, record: map[string][][][]byte{}}
	for _, row := range rows {
		if err := srv.row(cql, result, row); err != nil {
			return err
		}
	}
	r.d.m.rows[cql] = srv.record[cql]
	return nil
}

// times runs op n times, then finish.
func times(op, finish func() error) func(n int) error {
	return func(n int) error {
		for i := 0; i < n; i++ {
			if err := op(); err != nil {
				return err
			}
		}
		return finish()
	}
}

func none() error { return nil }

// cellDef is what a cell is made of: kandra's operation kop on a store
// that open opens and close closes (on driver d), the hand-written hop on
// marshaller hm, and check, which looks at what both returned after one
// of each (nil: nothing returned).
type cellDef[I any] struct {
	adapter, shape, op string
	target             float64
	d                  *clientDriver[I]
	open, close        func() error
	kop                func() error
	hm                 *marshaller[I]
	hand               *hand[I] // its statements, for sameWrites
	hop                func() error
	check              func() error
}

func newCell[I any](def cellDef[I]) *cell {
	var tape *floorTape[I]
	fm := &marshaller[I]{w: def.hm.w}
	// once runs kop once on a fresh store.
	once := func() error {
		if err := def.open(); err != nil {
			return err
		}
		return errors.Join(def.kop(), def.close())
	}
	c := &cell{adapter: def.adapter, shape: def.shape, op: def.op, target: def.target,
		kandra: contender{name: "kandra", setup: def.open, run: times(def.kop, def.close)},
		hand:   contender{name: "hand", setup: none, run: times(def.hop, none)},
		floor: contender{name: "floor", setup: func() error {
			if tape != nil {
				return nil
			}
			def.d.tape = &floorTape[I]{}
			err := once()
			tape, def.d.tape = def.d.tape, nil
			return err
		}, run: times(func() error { return tape.replay(fm) }, none)},
	}
	c.agree = func() error {
		def.d.m.record = map[string][][][]byte{}
		err := once()
		got := def.d.m.record
		def.d.m.record = nil
		if err != nil {
			return fmt.Errorf("kandra: %w", err)
		}
		def.hm.record = map[string][][][]byte{}
		defer func() { def.hm.record = nil }()
		if err := def.hop(); err != nil {
			return fmt.Errorf("hand-written: %w", err)
		}
		if err := sameWrites(def.hand, got, def.hm.record); err != nil {
			return err
		}
		if def.check != nil {
			return def.check()
		}
		return nil
	}
	return c
}

// shapeCells is the cells of shape T (registered by register) on wire w: newT(seq) is the entity
// of clustering key seq, f0 selects its first non-key field (a string,
// the first lookup's), ops the hand-written code.
func shapeCells[T, I any](w *wire[I], register func() (*kandra.Table[T], error), cols, lookups int, mode string, newT func(int64) *T, f0 func(*T) *string, ops handOps[T, I]) *cellSet {
	name := fmt.Sprintf("C%dL%d%s", cols, lookups, mode)
	return &cellSet{shape: name, make: func() ([]*cell, error) {
		table, ks, st, err := tableOf(register)
		if err != nil {
			return nil, err
		}
		h, err := newHand(w, st)
		if err != nil {
			return nil, err
		}
		d := newClientDriver(w)
		// The fake server's rows: entity 0 by key, a page of 100 of its
		// partition, and its key in the first lookup's table.
		srv := marshaller[I]{w: w, record: map[string][][][]byte{}}
		if err := srv.row(h.get.cql, h.get.result, ops.row(newT(0))); err != nil {
			return nil, err
		}
		for i := int64(0); i < 100; i++ {
			if err := srv.row(h.list.cql, h.list.result, ops.row(newT(i))); err != nil {
				return nil, err
			}
		}
		d.m.rows[h.get.cql] = srv.record[h.get.cql]
		d.m.rows[h.list.cql] = srv.record[h.list.cql]
		if lookups > 0 {
			l := h.lookups[0].sel
			if err := srv.row(l.cql, l.result, ops.key(newT(0))); err != nil {
				return nil, err
			}
			d.m.rows[l.cql] = srv.record[l.cql]
		}
		hm := &marshaller[I]{w: w, rows: d.m.rows}
		k := &rig[T, I]{d: d, ks: ks, table: table, f0: f0}
		ctx := context.Background()

		e0, e1 := newT(0), newT(1)
		moved := *e0
		*f0(&moved) = "moved to another value"
		want100 := make([]*T, 100)
		for i := range want100 {
			want100[i] = newT(int64(i))
		}
		type opDef struct {
			name  string
			k     func() error // kandra's, once
			h     func() error // the hand-written, once
			check func() error // what both returned, after one of each
		}
		var kGot, hGot any
		defs := []opDef{
			{"save", func() error { return k.repo.Save(ctx, e1) }, func() error { return ops.save(hm, h, e1) }, nil},
			{"saveIfNotExists", func() error {
				ok, err := k.repo.SaveIfNotExists(ctx, e1)
				if err == nil && !ok {
					err = errors.New("not applied")
				}
				return err
			}, func() error {
				ok, err := ops.saveIfNotExists(hm, h, e1)
				if err == nil && !ok {
					err = errors.New("not applied")
				}
				return err
			}, nil},
			{"get", func() (err error) { kGot, err = k.repo.Get(ctx, e0); return err },
				func() (err error) { hGot, err = ops.get(hm, h, e0); return err },
				func() error { return sameAs(kGot, hGot, e0) }},
			{"update", func() error { return k.repo.Update(ctx, e0, &moved) }, func() error { return ops.update(hm, h, e0, &moved) }, nil},
			{"delete", func() error { return k.repo.Delete(ctx, e0) }, func() error { return ops.delete(hm, h, e0) }, nil},
			{"list", func() error {
				it := k.repo.List(ctx, e0, kstore.PageSize(100))
				var err error
				kGot, err = it.All()
				return err
			}, func() (err error) { hGot, err = ops.list(hm, h, e0); return err },
				func() error { return sameAs(kGot, hGot, want100) }},
		}
		if lookups > 0 {
			defs = append(defs, opDef{"find", func() (err error) { kGot, err = k.find.Find(ctx, *f0(e0)); return err },
				func() (err error) { hGot, err = ops.find(hm, h, *f0(e0)); return err },
				func() error { return sameAs(kGot, hGot, e0) }})
		}
		var cells []*cell
		for _, def := range defs {
			def := def
			target := 1.1
			if cols == 12 && lookups == 0 && (def.name == "save" || def.name == "get") {
				target = 1.0 // kandra's references replace the driver's reflection
			}
			c := newCell(cellDef[I]{adapter: w.name, shape: name, op: def.name, target: target,
				d: d, open: k.open, close: k.close, kop: def.k, hm: hm, hand: h, hop: def.h, check: def.check})
			cells = append(cells, c)
		}
		return cells, nil
	}}
}

// counterCells is the counter increment on wire w; inc is the
// hand-written one.
func counterCells[I any](w *wire[I], inc func(*marshaller[I], *hstmt[I], *MatrixCounter, int64) error) *cellSet {
	return &cellSet{shape: "counter", make: func() ([]*cell, error) {
		table, ks, st, err := tableOf(kandra.Register[MatrixCounter])
		if err != nil {
			return nil, err
		}
		hits, err := kandra.FieldOf(table, func(c *MatrixCounter) *int64 { return &c.Hits })
		if err != nil {
			return nil, err
		}
		hs, err := newHstmt(w, st.Counter(hits.Column()))
		if err != nil {
			return nil, err
		}
		k := &rig[MatrixCounter, I]{d: newClientDriver(w), ks: ks, table: table}
		var ctr *kstore.Counter[MatrixCounter]
		open := func() (err error) {
			if err = k.open(); err == nil {
				ctr, err = kstore.CounterOf(k.repo, hits)
			}
			return err
		}
		ctx := context.Background()
		key := &MatrixCounter{Part: matrixPart, Seq: 7}
		hm := &marshaller[I]{w: w}
		return []*cell{newCell(cellDef[I]{adapter: w.name, shape: "counter", op: "increment", target: 1.1,
			d: k.d, open: open, close: k.close, kop: func() error { return ctr.Increment(ctx, key, 3) },
			hm: hm, hand: &hand[I]{insert: hs}, hop: func() error { return inc(hm, &hs, key, 3) }})}, nil
	}}
}

// sameAs checks that kandra and the hand-written code read the same
// entities, and the ones expected.
func sameAs(k, h, want any) error {
	if !reflect.DeepEqual(k, h) {
		return fmt.Errorf("kandra read %+v, the hand-written code %+v", k, h)
	}
	if w := reflect.ValueOf(want); w.Kind() == reflect.Slice {
		kv := reflect.ValueOf(k)
		if kv.Len() != w.Len() {
			return fmt.Errorf("read %d rows, want %d", kv.Len(), w.Len())
		}
		for i := 0; i < w.Len(); i++ {
			if !reflect.DeepEqual(kv.Index(i).Interface(), w.Index(i).Interface()) {
				return fmt.Errorf("row %d: read %+v, want %+v", i, kv.Index(i).Interface(), w.Index(i).Interface())
			}
		}
		return nil
	}
	if !reflect.DeepEqual(k, want) {
		return fmt.Errorf("read %+v, want %+v", k, want)
	}
	return nil
}

// sameWrites checks that kandra and the hand-written code marshalled the
// same statements to the same bytes, but for the value of a USING
// TIMESTAMP (each takes its own clock's).
func sameWrites[I any](h *hand[I], k, hw map[string][][][]byte) error {
	ts := map[string][]int{}
	for _, s := range h.all() {
		ts[s.cql] = s.ts
	}
	blank := func(rec map[string][][][]byte) map[string][][][]byte {
		out := map[string][][][]byte{}
		for cql, rows := range rec {
			for _, row := range rows {
				row = slices.Clone(row)
				for _, i := range ts[cql] {
					if len(row[i]) != 8 {
						return map[string][][][]byte{"timestamp not 8 bytes in " + cql: nil}
					}
					row[i] = nil
				}
				out[cql] = append(out[cql], row)
			}
		}
		return out
	}
	if kb, hb := blank(k), blank(hw); !reflect.DeepEqual(kb, hb) {
		return fmt.Errorf("the contenders marshal different statements or values:\nkandra: %v\nhand-written: %v", kb, hb)
	}
	return nil
}

// cellSets is every shape's cells on both adapters, not yet built.
func cellSets() []*cellSet {
	var sets []*cellSet
	sets = append(sets, matrixShapes(gocqlWire, handGocql)...)
	sets = append(sets, counterCells(gocqlWire, handGocql.counter))
	sets = append(sets, matrixShapes(v2Wire, handV2)...)
	return append(sets, counterCells(v2Wire, handV2.counter))
}

// eachCell builds the shapes one at a time and calls f with each cell
// whose name keep accepts (nil: all). One shape's rows at a time are in
// the heap: every block starts with a collection, whose cost grows with
// the heap.
func eachCell(keep func(string) bool, f func(*cell) error) error {
	for _, s := range cellSets() {
		cs, err := s.make()
		if err != nil {
			return fmt.Errorf("shape %s: %w", s.shape, err)
		}
		for _, c := range cs {
			if keep != nil && !keep(c.name()) {
				continue
			}
			if err := f(c); err != nil {
				return fmt.Errorf("%s: %w", c.name(), err)
			}
		}
	}
	return nil
}

// TestMatrixAgree checks that every cell of the matrix compares like with
// like: kandra and the hand-written code marshal the same statements to
// the same bytes, and read the same entities (the ones expected).
func TestMatrixAgree(t *testing.T) {
	n := 0
	err := eachCell(nil, func(c *cell) error {
		n++
		if err := c.agree(); err != nil {
			t.Errorf("%s: %v", c.name(), err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 2*(19*6+16+1) { // per adapter: six operations of 19 shapes, Find of the 16 with lookups, the counter
		t.Fatalf("%d cells", n)
	}
}

// sample is one block of one contender, per operation: its time (with
// gc, the collector's charge for its bytes), allocations and bytes.
type sample struct{ ns, gc, allocs, bytes float64 }

// measureCell runs the contenders of c in interleaved blocks: rounds
// rounds, each one block of n operations per contender (the order
// reversed every other round), at GOMAXPROCS=1, so that the store's
// EVENTUAL worker is timed with the calls that gave it work.
//
// The collector is accounted for, not left to chance. A block runs with
// collection off, after a forced collection (so every block starts from
// the same heap), and is charged, on top of its own time, gcPerByte for
// every byte it allocated: the cost of a collection of this process's
// live heap (the forced collections, timed) over the bytes a service
// allocates between two collections at the default GOGC. A block shorter
// than a collection cycle would otherwise pay for none, or for a whole
// one, by chance: the spread of the per-round ratios was ±60% that way.
func measureCell(c *cell, rounds int, block time.Duration) (k, h, f []sample, n int, err error) {
	ms, err := measureCells([]*cell{c}, rounds, block)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	return ms[0].k, ms[0].h, ms[0].f, ms[0].n, nil
}

// measured is one cell's blocks, as measureCells ran them: each
// contender's samples, one per round, of n operations each.
type measured struct {
	k, h, f []sample
	n       int
}

// measureCells is measureCell for several cells whose ratios to one
// another are wanted too (a projection and the full read): every round
// runs one block of every contender of every cell, in the order the cells
// and their contenders are given, reversed every other round. Each
// cell's blocks have their own n, sized from its own slowest contender,
// so that each takes about block; the collector's charge per byte is one
// for all.
func measureCells(cells []*cell, rounds int, block time.Duration) ([]measured, error) {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var cs []*contender
	var ns []int // per contender: its cell's n
	var gc gcCost
	for _, c := range cells {
		own := []*contender{&c.kandra, &c.hand, &c.floor}
		// Warm up (plans, pools), and size the cell's block from its
		// slowest contender's last warm-up block.
		var slowest time.Duration
		for _, x := range own {
			var s sample
			var err error
			for i := 0; i < 3; i++ {
				if s, err = runBlock(x, 50, &gc); err != nil {
					return nil, fmt.Errorf("%s: %w", x.name, err)
				}
			}
			slowest = max(slowest, time.Duration(s.ns))
		}
		n := int(min(max(block/max(slowest, 1), 10), 100000))
		cs = append(cs, own...)
		ns = append(ns, n, n, n)
	}
	out := make([][]sample, len(cs))
	gc = gcCost{}
	for r := 0; r < rounds; r++ {
		for j := range cs {
			i := j
			if r%2 == 1 {
				i = len(cs) - 1 - j
			}
			s, err := runBlock(cs[i], ns[i], &gc)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", cs[i].name, err)
			}
			out[i] = append(out[i], s)
		}
	}
	perByte := gc.perByte()
	for _, o := range out {
		for i := range o {
			o[i].gc = o[i].bytes * perByte
			o[i].ns += o[i].gc
		}
	}
	ms := make([]measured, len(cells))
	for i := range ms {
		ms[i] = measured{k: out[3*i], h: out[3*i+1], f: out[3*i+2], n: ns[3*i]}
	}
	return ms, nil
}

// gcCost collects the forced collections' durations and live heaps.
type gcCost struct {
	dur  []float64 // ns
	live []float64 // bytes
}

// collect runs a collection and records it.
func (g *gcCost) collect() {
	t0 := time.Now()
	runtime.GC()
	dt := time.Since(t0)
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	g.dur, g.live = append(g.dur, float64(dt.Nanoseconds())), append(g.live, float64(m.HeapAlloc))
}

// perByte is the collector's cost per allocated byte at GOGC=100: a
// collection of the live heap (the median forced one) every time the
// heap grows from live to its goal, twice the live heap but at least
// the runtime's 4 MiB.
func (g *gcCost) perByte() float64 {
	live := quantileOf(g.live, .5)
	between := max(4<<20, 2*live) - live
	return quantileOf(g.dur, .5) / between
}

// runBlock times x.run(n) after x.setup and a collection (collection is
// off during the block), with the allocations it made.
func runBlock(x *contender, n int, gc *gcCost) (sample, error) {
	if err := x.setup(); err != nil {
		return sample{}, err
	}
	gc.collect()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	t0 := time.Now()
	err := x.run(n)
	dt := time.Since(t0)
	runtime.ReadMemStats(&m1)
	return sample{
		ns:     float64(dt.Nanoseconds()) / float64(n),
		allocs: float64(m1.Mallocs-m0.Mallocs) / float64(n),
		bytes:  float64(m1.TotalAlloc-m0.TotalAlloc) / float64(n),
	}, err
}

// mean is the mean of xs.
func mean(xs []float64) float64 {
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

// quantileOf is the q-quantile of xs, in any order (quantile, of
// node_test.go, takes them sorted).
func quantileOf(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return quantile(s, q)
}

// result is a cell's figures: each contender's mean time and
// allocations per operation over the rounds (every block has the same
// operations: the mean is total time over total operations, and counts
// the collections a block happened to run), the ratio of the means
// kandra/hand, and the spread of the per-round ratios (10th and 90th
// percentiles, min and max).
type result struct {
	c               *cell
	k, h, f         float64 // ns/op
	ka, ha, fa      float64 // allocs/op
	kb, hb          float64 // bytes/op
	kgc, hgc        float64 // the collector's charge, ns/op (in k and h)
	ratio, p10, p90 float64
	lo, hi          float64
	rounds, ops     int // rounds; operations per block
}

func summarize(c *cell, k, h, f []sample, n int) result {
	col := func(s []sample, g func(sample) float64) []float64 {
		out := make([]float64, len(s))
		for i := range s {
			out[i] = g(s[i])
		}
		return out
	}
	ns := func(s sample) float64 { return s.ns }
	al := func(s sample) float64 { return s.allocs }
	by := func(s sample) float64 { return s.bytes }
	gc := func(s sample) float64 { return s.gc }
	ratios := make([]float64, len(k))
	for i := range k {
		ratios[i] = k[i].ns / h[i].ns
	}
	km, hm := mean(col(k, ns)), mean(col(h, ns))
	return result{c: c,
		k: km, h: hm, f: mean(col(f, ns)),
		ka: mean(col(k, al)), ha: mean(col(h, al)), fa: mean(col(f, al)),
		kb: mean(col(k, by)), hb: mean(col(h, by)),
		kgc: mean(col(k, gc)), hgc: mean(col(h, gc)),
		ratio: km / hm, p10: quantileOf(ratios, .1), p90: quantileOf(ratios, .9),
		lo: slices.Min(ratios), hi: slices.Max(ratios), rounds: len(k), ops: n}
}

// verdict says whether r meets its cell's targets: time (the median
// ratio) and allocations (no more than the hand-written code's).
func (r result) verdict() string {
	var miss []string
	if r.ratio > r.c.target {
		miss = append(miss, fmt.Sprintf("time %.2f > %.2f", r.ratio, r.c.target))
	}
	if math.Round(r.ka) > math.Round(r.ha) {
		miss = append(miss, fmt.Sprintf("allocs %.0f > %.0f", r.ka, r.ha))
	}
	if len(miss) == 0 {
		return "met"
	}
	return "missed: " + strings.Join(miss, ", ")
}

// updateReason is why an Update misses: it finds what changed, where the
// hand-written code knows it.
const updateReason = "Update finds what changed itself (a bitwise screen of old and new, the as-stored comparison of the columns that differ, the checks of the changed values); the hand-written code writes the one column it knows changed, and a call that knows it too is Patch"

// reason is why a cell misses its time target, as the profiles show it
// (bench/README.md, "Where a miss comes from"); "" when it meets it.
func (r result) reason() string {
	switch {
	case r.ratio <= r.c.target:
		return ""
	case r.c.op == "find":
		return "two statements (the lookup rows, then the entity), each with the per-call cost"
	case r.c.op == "update":
		return updateReason
	case r.c.op == "get-columns":
		return "the per-call cost (checks, pooled statements, binding by reference) and the projection's column list, on a statement of four small columns that costs the driver little"
	case r.c.op == "list-columns":
		return "each row scanned through the adapter's Codec (scan targets, references) where the hand-written row is one literal, on four small columns that cost the driver little"
	case strings.HasSuffix(r.c.shape, "E") && r.c.op != "get" && r.c.op != "list" && r.c.op != "delete":
		return "the EVENTUAL rows go through the store's worker queue, which the hand-written code writes inline; and the per-call cost"
	}
	return "the per-call cost (checks, pooled statements, binding by reference) on statements that cost the driver little"
}

func (r result) line() string {
	return fmt.Sprintf("matrix: adapter=%s shape=%s op=%s kandra=%s hand=%s floor=%s ratio=%.2f p10-p90=%.2f-%.2f min-max=%.2f-%.2f allocs=%.0f/%.0f/%.0f bytes=%.0f/%.0f gc=%s/%s blocks=%dx%d target=%.1f %s",
		r.c.adapter, r.c.shape, r.c.op, fmtNs(r.k), fmtNs(r.h), fmtNs(r.f), r.ratio, r.p10, r.p90, r.lo, r.hi, r.ka, r.ha, r.fa, r.kb, r.hb, fmtNs(r.kgc), fmtNs(r.hgc), r.rounds, r.ops, r.c.target, r.verdict())
}

func fmtNs(ns float64) string {
	if ns >= 1e6 {
		return fmt.Sprintf("%.2fms", ns/1e6)
	}
	if ns >= 1000 {
		return fmt.Sprintf("%.2fµs", ns/1000)
	}
	return fmt.Sprintf("%.0fns", ns)
}

// TestMatrix measures the matrix (KANDRA_MATRIX=1; see bench/README.md
// for the command and the method), one line per cell, and with
// -matrix.out the markdown table.
func TestMatrix(t *testing.T) {
	if os.Getenv("KANDRA_MATRIX") != "1" {
		t.Skip("the benchmark matrix runs with KANDRA_MATRIX=1 (bench/README.md)")
	}
	var keep func(string) bool
	if *matrixRun != "" {
		keep = regexp.MustCompile(*matrixRun).MatchString
	}
	var results []result
	err := eachCell(keep, func(c *cell) error {
		k, h, f, n, err := measureCell(c, *matrixRounds, *matrixBlock)
		if err != nil {
			return err
		}
		r := summarize(c, k, h, f, n)
		results = append(results, r)
		fmt.Println(r.line())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if *matrixOut != "" {
		if err := os.WriteFile(*matrixOut, []byte(matrixTable(results)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// cellPerAdapter is the cells of gocql (a) and of the Apache driver v2
// (b), each built by its own function.
func cellPerAdapter(a, b func() (*cell, error)) ([]*cell, error) {
	ca, err := a()
	if err != nil {
		return nil, fmt.Errorf("kgocql: %w", err)
	}
	cb, err := b()
	if err != nil {
		return nil, fmt.Errorf("kgocqlv2: %w", err)
	}
	return []*cell{ca, cb}, nil
}

// agreeAll fails t for every cell that does not compare like with like
// (cell.agree).
func agreeAll(t *testing.T, cells func() ([]*cell, error)) {
	cs, err := cells()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if err := c.agree(); err != nil {
			t.Errorf("%s: %v", c.name(), err)
		}
	}
}

// measureTable measures cells (what names them in the skip message:
// "write", "unit") as TestMatrix measures the matrix: KANDRA_MATRIX=1,
// -matrix.rounds, -matrix.block and -matrix.run, one line per cell, and
// the markdown table written to out unless it is empty.
func measureTable(t *testing.T, what string, cells func() ([]*cell, error), out string) {
	if os.Getenv("KANDRA_MATRIX") != "1" {
		t.Skipf("the %s cells are measured with KANDRA_MATRIX=1 (bench/README.md)", what)
	}
	cs, err := cells()
	if err != nil {
		t.Fatal(err)
	}
	var keep func(string) bool
	if *matrixRun != "" {
		keep = regexp.MustCompile(*matrixRun).MatchString
	}
	var results []result
	for _, c := range cs {
		if keep != nil && !keep(c.name()) {
			continue
		}
		k, h, f, n, err := measureCell(c, *matrixRounds, *matrixBlock)
		if err != nil {
			t.Fatalf("%s: %v", c.name(), err)
		}
		r := summarize(c, k, h, f, n)
		results = append(results, r)
		fmt.Println(r.line())
	}
	if out != "" {
		if err := os.WriteFile(out, []byte(matrixTable(results)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// matrixTable is results as a markdown table.
func matrixTable(rs []result) string {
	var b strings.Builder
	b.WriteString("| adapter | shape | op | kandra | hand-written | floor | ratio (p10–p90; min–max) | allocs kandra/hand/floor | target | verdict | why missed |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %.2f (%.2f–%.2f; %.2f–%.2f) | %.0f / %.0f / %.0f | ≤ %.1f | %s | %s |\n",
			r.c.adapter, r.c.shape, r.c.op, fmtNs(r.k), fmtNs(r.h), fmtNs(r.f), r.ratio, r.p10, r.p90, r.lo, r.hi, r.ka, r.ha, r.fa, r.c.target, r.verdict(), r.reason())
	}
	return b.String()
}

// BenchmarkMatrix runs every cell's contenders as the testing package's
// benchmarks (BenchmarkMatrix/<adapter>/<shape>/<op>/<contender>), at
// GOMAXPROCS=1, for profiling one cell (-cpuprofile, -memprofile) and
// for benchstat. Its figures are blocks, not interleaved: the published
// ones are TestMatrix's.
func BenchmarkMatrix(b *testing.B) {
	var cells []*cell
	if err := eachCell(nil, func(c *cell) error { cells = append(cells, c); return nil }); err != nil {
		b.Fatal(err)
	}
	benchCells(b, cells)
}

// TestMatrixMeasures runs the measurement of one cell briefly, so that CI
// knows TestMatrix works: every block timed, the hand-written Save's
// allocations counted (it boxes its argument lists), the ratio and
// quantiles computed from the blocks.
func TestMatrixMeasures(t *testing.T) {
	var cells []*cell
	err := eachCell(regexp.MustCompile(`^kgocql/C12L1E/save$`).MatchString, func(c *cell) error { cells = append(cells, c); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 1 {
		t.Fatalf("%d cells", len(cells))
	}
	k, h, f, n, err := measureCell(cells[0], 3, 200*time.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(k) != 3 || len(h) != 3 || len(f) != 3 || n < 10 {
		t.Fatalf("%d, %d, %d blocks of %d", len(k), len(h), len(f), n)
	}
	for i := range k {
		if k[i].ns <= 0 || h[i].ns <= 0 || f[i].ns <= 0 || h[i].allocs < 1 {
			t.Fatalf("round %d: %+v %+v %+v", i, k[i], h[i], f[i])
		}
	}
	r := summarize(cells[0], k, h, f, n)
	if r.lo > r.p10 || r.p10 > r.p90 || r.p90 > r.hi || r.ratio <= 0 {
		t.Fatalf("quantiles out of order: %s", r.line())
	}
	if got := quantileOf([]float64{4, 1, 3, 2}, .5); got != 2.5 {
		t.Fatalf("median of 1..4 = %v", got)
	}
}

// TestMatrixGenerated checks that the generated files are the generator's
// output (go generate after changing it).
func TestMatrixGenerated(t *testing.T) {
	dir := t.TempDir()
	out, err := exec.Command("go", "run", "./internal/genmatrix", "-dir", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("genmatrix: %v\n%s", err, out)
	}
	for _, f := range []string{"matrix_shapes_gen_test.go", "matrix_hand_gocql_gen_test.go", "matrix_hand_v2_gen_test.go"} {
		want, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what ./internal/genmatrix writes: run go generate in bench/", f)
		}
	}
}

// benchCells runs each contender of cells as a sub-benchmark
// (<cell>/<contender>) at GOMAXPROCS=1.
func benchCells(b *testing.B, cells []*cell) {
	for _, c := range cells {
		for _, x := range []*contender{&c.kandra, &c.hand, &c.floor} {
			b.Run(c.name()+"/"+x.name, func(b *testing.B) {
				oneP(b)
				if err := x.setup(); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				if err := x.run(b.N); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}
