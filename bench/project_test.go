package bench

import (
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	gocqlv2 "github.com/apache/cassandra-gocql-driver/v2"
	gocql "github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kstore"
)

// The projection cells: a Get and a List (a page of 100 rows) of Doc, an
// entity with a 64 KiB blob, reading two small columns only
// (kstore.Columns(title, size)), against the projected SELECT a careful
// engineer writes by hand on the same driver; and the same reads of every
// column, against the hand-written full SELECT, on both adapters, with
// the matrix's method (bench/README.md, "Method"). Each projection is
// measured in the same rounds as its full read (measureCells), so that
// what the projection saves is a ratio from interleaved rounds too.
//
// The client side is the matrix's (clientDriver, wire_test.go): the
// driver's Query, its Marshal of the key, and its Unmarshal of every
// column the fake server returns. There is no network and no server, so
// what a projection saves here is the client's share only: decoding and
// copying the blob (gocql copies a blob out of the frame into the
// field). Against a node it also saves the node's read of the blob and
// its bytes on the wire.
//
// TestProjectionsAgree checks that each cell compares like with like;
// TestProjections measures them (KANDRA_MATRIX=1):
//
//	go test -c -o /tmp/bench.test .
//	KANDRA_MATRIX=1 /tmp/bench.test -test.run '^TestProjections$' -matrix.rounds 20 -projections.out /tmp/projections.md
//
// BenchmarkProjections runs each contender alone, for profiles.

var projectionsOut = flag.String("projections.out", "", "TestProjections: write the tables (markdown) to this file")

// Doc is the entity of the projection cells: a key, three small columns
// and a large blob.
type Doc struct {
	Part    uuid.UUID
	Seq     int64
	Title   string
	Kind    string
	Size    int32
	Created time.Time
	Body    []byte
}

func (e *Doc) Describe(s *kandra.Schema[Doc]) {
	s.Table("docs")
	kandra.Bind(s, &e.Part, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Seq, kandra.ClusteringKey(0, kandra.ClusteringAsc))
}

// docBody is the size of a Doc's Body.
const docBody = 64 << 10

func newDoc(seq int64) *Doc {
	body := make([]byte, docBody)
	for i := range body {
		body[i] = byte(int(seq) + i)
	}
	return &Doc{Part: matrixPart, Seq: seq, Title: fmt.Sprintf("document %d", seq), Kind: "report",
		Size: docBody, Created: matrixTime.Add(time.Duration(seq) * time.Minute), Body: body}
}

// projected is d as a read with Columns(title, size) returns it: the key
// and those two.
func projected(d *Doc) *Doc {
	return &Doc{Part: d.Part, Seq: d.Seq, Title: d.Title, Size: d.Size}
}

// The hand-written statements of the projection cells (TestProjectionsAgree
// checks that kandra sends the same).
const (
	cqlDocGet         = "SELECT part, seq, title, kind, size, created, body FROM app.docs WHERE part = ? AND seq = ?"
	cqlDocGetColumns  = "SELECT part, seq, title, size FROM app.docs WHERE part = ? AND seq = ?"
	cqlDocList        = "SELECT part, seq, title, kind, size, created, body FROM app.docs WHERE part = ?"
	cqlDocListColumns = "SELECT part, seq, title, size FROM app.docs WHERE part = ?"
)

// docStmts are the hand-written code's statements: their text and the
// types of their markers and columns.
type docStmts[I any] struct {
	get, getColumns, list, listColumns hstmt[I]
}

func newDocStmts[I any](w *wire[I], s *kandra.TableSchema) (*docStmts[I], error) {
	byName := map[string]*kandra.ColumnSchema{}
	for _, c := range s.Columns() {
		byName[c.CQLName()] = c
	}
	infos := func(names ...string) ([]I, error) {
		var cols []*kandra.ColumnSchema
		for _, n := range names {
			c := byName[n]
			if c == nil {
				return nil, fmt.Errorf("bench: docs has no column %s", n)
			}
			cols = append(cols, c)
		}
		return w.infos(cols)
	}
	var errs []error
	mk := func(cql string, keys ...string) hstmt[I] {
		sel := strings.TrimPrefix(cql[:strings.Index(cql, " FROM ")], "SELECT ")
		h := hstmt[I]{cql: cql}
		var err error
		if h.infos, err = infos(keys...); err != nil {
			errs = append(errs, err)
		}
		if h.result, err = infos(strings.Split(sel, ", ")...); err != nil {
			errs = append(errs, err)
		}
		return h
	}
	st := &docStmts[I]{
		get:         mk(cqlDocGet, "part", "seq"),
		getColumns:  mk(cqlDocGetColumns, "part", "seq"),
		list:        mk(cqlDocList, "part"),
		listColumns: mk(cqlDocListColumns, "part"),
	}
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return st, nil
}

// docHand is the hand-written code of the projection cells on one driver:
// the row of a Doc as the server sends it (full), a Get of every column
// or of the projection, a List of a page of 100, of every column or of
// the projection.
type docHand[I any] struct {
	row               func(d *Doc) []any
	get, getColumns   func(m *marshaller[I], s *docStmts[I], key *Doc) (*Doc, error)
	list, listColumns func(m *marshaller[I], s *docStmts[I], part *Doc) ([]*Doc, error)
}

var docHandGocql = docHand[gocql.TypeInfo]{
	row: func(d *Doc) []any {
		return []any{gocql.UUID(d.Part), d.Seq, d.Title, d.Kind, d.Size, d.Created, d.Body}
	},
	get: func(m *marshaller[gocql.TypeInfo], s *docStmts[gocql.TypeInfo], key *Doc) (*Doc, error) {
		st := &s.get
		rows, err := m.query(st.cql, st.infos, []any{gocql.UUID(key.Part), key.Seq}, 0)
		if err != nil {
			return nil, err
		}
		if len(rows) == 0 {
			return nil, errNoRow
		}
		d := new(Doc)
		var uPart gocql.UUID
		if err := unmarshalRow(m.w, st.result, rows[0], []any{&uPart, &d.Seq, &d.Title, &d.Kind, &d.Size, &d.Created, &d.Body}); err != nil {
			return nil, err
		}
		d.Part = uuid.UUID(uPart)
		return d, nil
	},
	getColumns: func(m *marshaller[gocql.TypeInfo], s *docStmts[gocql.TypeInfo], key *Doc) (*Doc, error) {
		st := &s.getColumns
		rows, err := m.query(st.cql, st.infos, []any{gocql.UUID(key.Part), key.Seq}, 0)
		if err != nil {
			return nil, err
		}
		if len(rows) == 0 {
			return nil, errNoRow
		}
		d := new(Doc)
		var uPart gocql.UUID
		if err := unmarshalRow(m.w, st.result, rows[0], []any{&uPart, &d.Seq, &d.Title, &d.Size}); err != nil {
			return nil, err
		}
		d.Part = uuid.UUID(uPart)
		return d, nil
	},
	list: func(m *marshaller[gocql.TypeInfo], s *docStmts[gocql.TypeInfo], part *Doc) ([]*Doc, error) {
		st := &s.list
		rows, err := m.query(st.cql, st.infos, []any{gocql.UUID(part.Part)}, 100)
		if err != nil {
			return nil, err
		}
		out := make([]*Doc, 0, len(rows))
		for _, row := range rows {
			d := new(Doc)
			var uPart gocql.UUID
			if err := unmarshalRow(m.w, st.result, row, []any{&uPart, &d.Seq, &d.Title, &d.Kind, &d.Size, &d.Created, &d.Body}); err != nil {
				return nil, err
			}
			d.Part = uuid.UUID(uPart)
			out = append(out, d)
		}
		return out, nil
	},
	listColumns: func(m *marshaller[gocql.TypeInfo], s *docStmts[gocql.TypeInfo], part *Doc) ([]*Doc, error) {
		st := &s.listColumns
		rows, err := m.query(st.cql, st.infos, []any{gocql.UUID(part.Part)}, 100)
		if err != nil {
			return nil, err
		}
		out := make([]*Doc, 0, len(rows))
		for _, row := range rows {
			d := new(Doc)
			var uPart gocql.UUID
			if err := unmarshalRow(m.w, st.result, row, []any{&uPart, &d.Seq, &d.Title, &d.Size}); err != nil {
				return nil, err
			}
			d.Part = uuid.UUID(uPart)
			out = append(out, d)
		}
		return out, nil
	},
}

var docHandV2 = docHand[gocqlv2.TypeInfo]{
	row: func(d *Doc) []any {
		return []any{gocqlv2.UUID(d.Part), d.Seq, d.Title, d.Kind, d.Size, d.Created, d.Body}
	},
	get: func(m *marshaller[gocqlv2.TypeInfo], s *docStmts[gocqlv2.TypeInfo], key *Doc) (*Doc, error) {
		st := &s.get
		rows, err := m.query(st.cql, st.infos, []any{gocqlv2.UUID(key.Part), key.Seq}, 0)
		if err != nil {
			return nil, err
		}
		if len(rows) == 0 {
			return nil, errNoRow
		}
		d := new(Doc)
		var uPart gocqlv2.UUID
		if err := unmarshalRow(m.w, st.result, rows[0], []any{&uPart, &d.Seq, &d.Title, &d.Kind, &d.Size, &d.Created, &d.Body}); err != nil {
			return nil, err
		}
		d.Part = uuid.UUID(uPart)
		return d, nil
	},
	getColumns: func(m *marshaller[gocqlv2.TypeInfo], s *docStmts[gocqlv2.TypeInfo], key *Doc) (*Doc, error) {
		st := &s.getColumns
		rows, err := m.query(st.cql, st.infos, []any{gocqlv2.UUID(key.Part), key.Seq}, 0)
		if err != nil {
			return nil, err
		}
		if len(rows) == 0 {
			return nil, errNoRow
		}
		d := new(Doc)
		var uPart gocqlv2.UUID
		if err := unmarshalRow(m.w, st.result, rows[0], []any{&uPart, &d.Seq, &d.Title, &d.Size}); err != nil {
			return nil, err
		}
		d.Part = uuid.UUID(uPart)
		return d, nil
	},
	list: func(m *marshaller[gocqlv2.TypeInfo], s *docStmts[gocqlv2.TypeInfo], part *Doc) ([]*Doc, error) {
		st := &s.list
		rows, err := m.query(st.cql, st.infos, []any{gocqlv2.UUID(part.Part)}, 100)
		if err != nil {
			return nil, err
		}
		out := make([]*Doc, 0, len(rows))
		for _, row := range rows {
			d := new(Doc)
			var uPart gocqlv2.UUID
			if err := unmarshalRow(m.w, st.result, row, []any{&uPart, &d.Seq, &d.Title, &d.Kind, &d.Size, &d.Created, &d.Body}); err != nil {
				return nil, err
			}
			d.Part = uuid.UUID(uPart)
			out = append(out, d)
		}
		return out, nil
	},
	listColumns: func(m *marshaller[gocqlv2.TypeInfo], s *docStmts[gocqlv2.TypeInfo], part *Doc) ([]*Doc, error) {
		st := &s.listColumns
		rows, err := m.query(st.cql, st.infos, []any{gocqlv2.UUID(part.Part)}, 100)
		if err != nil {
			return nil, err
		}
		out := make([]*Doc, 0, len(rows))
		for _, row := range rows {
			d := new(Doc)
			var uPart gocqlv2.UUID
			if err := unmarshalRow(m.w, st.result, row, []any{&uPart, &d.Seq, &d.Title, &d.Size}); err != nil {
				return nil, err
			}
			d.Part = uuid.UUID(uPart)
			out = append(out, d)
		}
		return out, nil
	},
}

// projectionPair is a projection cell and the cell of the same read of
// every column, measured in the same rounds.
type projectionPair struct{ full, cols *cell }

// projectionCells is the projection cells on wire w, h the hand-written
// code: a pair for Get and one for List.
func projectionCells[I any](w *wire[I], h docHand[I]) ([]projectionPair, error) {
	d := newClientDriver(w)
	k, err := wrigOf(d, kandra.Register[Doc])
	if err != nil {
		return nil, err
	}
	s, err := newDocStmts(w, k.table.Schema())
	if err != nil {
		return nil, err
	}
	// The fake server's rows: Doc 0 by key, a page of 100 of its
	// partition; of every column, and of the projection.
	docs := make([]*Doc, 100)
	for i := range docs {
		docs[i] = newDoc(int64(i))
	}
	srv := marshaller[I]{w: w, record: map[string][][][]byte{}}
	for _, st := range []*hstmt[I]{&s.get, &s.getColumns, &s.list, &s.listColumns} {
		n := len(docs)
		if st == &s.get || st == &s.getColumns {
			n = 1
		}
		for _, e := range docs[:n] {
			row := h.row(e)
			if len(st.result) < len(row) {
				row = []any{row[0], row[1], row[2], row[4]} // part, seq, title, size
			}
			if err := srv.row(st.cql, st.result, row); err != nil {
				return nil, err
			}
		}
		d.m.rows[st.cql] = srv.record[st.cql]
	}
	hm := &marshaller[I]{w: w, rows: d.m.rows}
	ctx := context.Background()
	title := kandra.MustFieldOf(k.table, func(e *Doc) *string { return &e.Title })
	size := kandra.MustFieldOf(k.table, func(e *Doc) *int32 { return &e.Size })
	// The projection, made once as a program keeps it.
	summary := kstore.Columns(title, size)

	key := newDoc(0)
	wantGet, wantList := docs[0], docs
	wantGetCols := projected(docs[0])
	var wantListCols []*Doc
	for _, e := range docs {
		wantListCols = append(wantListCols, projected(e))
	}
	var kGot, hGot any
	mk := func(op string, kop, hop func() error, want any) *cell {
		return newCell(cellDef[I]{adapter: w.name, shape: "doc64k", op: op, target: 1.1,
			d: d, open: k.open, close: k.close, kop: kop, hm: hm, hand: &hand[I]{}, hop: hop,
			check: func() error { return sameAs(kGot, hGot, want) }})
	}
	get := mk("get",
		func() (err error) { kGot, err = k.repo.Get(ctx, key); return err },
		func() (err error) { hGot, err = h.get(hm, s, key); return err }, wantGet)
	getCols := mk("get-columns",
		func() (err error) { kGot, err = k.repo.Get(ctx, key, summary); return err },
		func() (err error) { hGot, err = h.getColumns(hm, s, key); return err }, wantGetCols)
	list := mk("list",
		func() (err error) { kGot, err = k.repo.List(ctx, key, kstore.PageSize(100)).All(); return err },
		func() (err error) { hGot, err = h.list(hm, s, key); return err }, wantList)
	listCols := mk("list-columns",
		func() (err error) { kGot, err = k.repo.List(ctx, key, kstore.PageSize(100), summary).All(); return err },
		func() (err error) { hGot, err = h.listColumns(hm, s, key); return err }, wantListCols)
	for _, c := range []*cell{get, getCols, list, listCols} {
		for _, x := range []*contender{&c.kandra, &c.hand, &c.floor} {
			x.setup = warmHeap(x.setup)
		}
	}
	return []projectionPair{{get, getCols}, {list, listCols}}, nil
}

// warmBytes is what warmHeap allocates: more than a block of the
// projection cells allocates (the largest, of the full List, is 10 pages
// of 100 bodies, 66 MB, unless a page takes less than 0.5 ms).
const warmBytes = 96 << 20

var warmSink [][]byte

// warmHeap is setup preceded, before every block of the projection cells,
// by warmBytes of bodies allocated and freed (an untimed collection), so
// that every block finds resident pages for the bodies it reads, as a
// service's heap has them between two collections. Without it, the first
// block of a full read after blocks that allocate little (a projection's,
// the floor's) paid the page faults of fresh memory: 2.6 times the time
// of the same block run after another full read's, and always the same
// contender's block, by the rounds' order.
func warmHeap(setup func() error) func() error {
	return func() error {
		for n := 0; n < warmBytes; n += docBody {
			warmSink = append(warmSink, make([]byte, docBody))
		}
		warmSink = nil
		runtime.GC()
		return setup()
	}
}

// projectionSets is the projection cells of both adapters.
func projectionSets() ([]projectionPair, error) {
	a, err := projectionCells(gocqlWire, docHandGocql)
	if err != nil {
		return nil, fmt.Errorf("kgocql: %w", err)
	}
	b, err := projectionCells(v2Wire, docHandV2)
	if err != nil {
		return nil, fmt.Errorf("kgocqlv2: %w", err)
	}
	return append(a, b...), nil
}

// TestProjectionsAgree checks that every projection cell compares like
// with like: kandra and the hand-written code send the same statement
// (the projected SELECT, or the full one) with the same bytes, and read
// the same entities, the ones expected (of a projection: the key and the
// two columns, the other fields zero).
func TestProjectionsAgree(t *testing.T) {
	pairs, err := projectionSets()
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 2*2 {
		t.Fatalf("%d pairs", len(pairs))
	}
	for _, p := range pairs {
		for _, c := range []*cell{p.full, p.cols} {
			if err := c.agree(); err != nil {
				t.Errorf("%s: %v", c.name(), err)
			}
		}
	}
}

// saving is what a projection saves on its full read, per round: the
// ratio projection/full of kandra's times and of the hand-written code's.
type saving struct {
	pair                    projectionPair
	k, kp10, kp90, klo, khi float64
	h, hp10, hp90, hlo, hhi float64
}

func savingOf(p projectionPair, full, cols measured) saving {
	per := func(a, b []sample) []float64 {
		out := make([]float64, len(a))
		for i := range a {
			out[i] = a[i].ns / b[i].ns
		}
		return out
	}
	ns := func(s []sample) float64 {
		t := 0.0
		for _, x := range s {
			t += x.ns
		}
		return t / float64(len(s))
	}
	kr, hr := per(cols.k, full.k), per(cols.h, full.h)
	return saving{pair: p,
		k: ns(cols.k) / ns(full.k), kp10: quantileOf(kr, .1), kp90: quantileOf(kr, .9), klo: slices.Min(kr), khi: slices.Max(kr),
		h: ns(cols.h) / ns(full.h), hp10: quantileOf(hr, .1), hp90: quantileOf(hr, .9), hlo: slices.Min(hr), hhi: slices.Max(hr)}
}

func (s saving) line() string {
	c := s.pair.cols
	return fmt.Sprintf("projection: adapter=%s shape=%s op=%s kandra/full=%.3f p10-p90=%.3f-%.3f min-max=%.3f-%.3f hand/full=%.3f p10-p90=%.3f-%.3f min-max=%.3f-%.3f",
		c.adapter, c.shape, c.op, s.k, s.kp10, s.kp90, s.klo, s.khi, s.h, s.hp10, s.hp90, s.hlo, s.hhi)
}

// TestProjections measures the projection cells with the matrix's method
// (KANDRA_MATRIX=1; -matrix.rounds, -matrix.block and -matrix.run as for
// TestMatrix; -matrix.run picks pairs by their projection's name), each
// projection in the same rounds as its full read: one line per cell, one
// per pair for what the projection saves, and with -projections.out the
// markdown tables.
func TestProjections(t *testing.T) {
	if os.Getenv("KANDRA_MATRIX") != "1" {
		t.Skip("the projection cells are measured with KANDRA_MATRIX=1 (see project_test.go)")
	}
	pairs, err := projectionSets()
	if err != nil {
		t.Fatal(err)
	}
	var keep func(string) bool
	if *matrixRun != "" {
		keep = regexp.MustCompile(*matrixRun).MatchString
	}
	var results []result
	var savings []saving
	for _, p := range pairs {
		if keep != nil && !keep(p.cols.name()) {
			continue
		}
		ms, err := measureCells([]*cell{p.full, p.cols}, *matrixRounds, *matrixBlock)
		if err != nil {
			t.Fatalf("%s: %v", p.cols.name(), err)
		}
		for i, c := range []*cell{p.full, p.cols} {
			r := summarize(c, ms[i].k, ms[i].h, ms[i].f, ms[i].n)
			results = append(results, r)
			fmt.Println(r.line())
		}
		s := savingOf(p, ms[0], ms[1])
		savings = append(savings, s)
		fmt.Println(s.line())
	}
	if *projectionsOut != "" {
		var b strings.Builder
		b.WriteString(matrixTable(results))
		b.WriteString("\n| adapter | projection | kandra: projection / full read (p10–p90; min–max) | hand-written: projection / full read (p10–p90; min–max) |\n|---|---|---|---|\n")
		for _, s := range savings {
			fmt.Fprintf(&b, "| %s | %s | %.3f (%.3f–%.3f; %.3f–%.3f) | %.3f (%.3f–%.3f; %.3f–%.3f) |\n", s.pair.cols.adapter, s.pair.cols.op,
				s.k, s.kp10, s.kp90, s.klo, s.khi, s.h, s.hp10, s.hp90, s.hlo, s.hhi)
		}
		if err := os.WriteFile(*projectionsOut, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkProjections runs every projection cell's contenders as the
// testing package's benchmarks
// (BenchmarkProjections/<adapter>/doc64k/<op>/<contender>), at
// GOMAXPROCS=1, for profiles; the figures to publish are
// TestProjections'.
func BenchmarkProjections(b *testing.B) {
	pairs, err := projectionSets()
	if err != nil {
		b.Fatal(err)
	}
	var cells []*cell
	for _, p := range pairs {
		cells = append(cells, p.full, p.cols)
	}
	benchCells(b, cells)
}
