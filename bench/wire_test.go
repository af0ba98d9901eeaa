package bench

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	gocqlv2 "github.com/apache/cassandra-gocql-driver/v2"
	gocql "github.com/gocql/gocql"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/driver/kgocqlv2"
)

// The client side of a driver, with no network: what both gocql drivers
// do with a statement's bound values before they write a frame (Marshal
// each with its column's TypeInfo) and with a row's column bytes when it
// is scanned (Unmarshal each into its target). Every client-side
// contender, kandra's and the hand-written code, goes through one wire, so
// that their difference is their own code's.

// codec is the part of an adapter's Codec the client driver uses (the
// adapter's exported form of the conversions its Driver applies).
type codec interface {
	AppendBindRefs(dst, ptrs []any) []any
	AppendBindParams(dst, vals []any, byRef bool) []any
	BindValues(ptrs []any) []any
	AppendScanTargets(dst, ptrs []any) ([]any, func() error)
}

// wire is one driver's marshalling, with the adapter's Codec for it.
type wire[I any] struct {
	name      string // the adapter's
	info      func(kandra.CQLType) (I, error)
	bigint    I // a USING TIMESTAMP's
	int32     I // a TTL's or a LIMIT's
	marshal   func(I, any) ([]byte, error)
	unmarshal func(I, []byte, any) error
	codec     func([]*kandra.ColumnSchema) (codec, error)
	session   session
}

// session is the driver's own per-statement work before its frame: the
// Query it builds for a statement (from its pool, with the session's
// defaults, its context and consistency; given back after), or the Batch
// of a LOGGED BATCH. Both contenders do it for every statement, as a call
// through a real session does; the frame, the connection and the network
// are not modelled. Its values are kept by the Query or the Batch, as the
// driver keeps them: the argument list of every statement is on the heap.
type session interface {
	query(cql string, vals []any)
	batch() sessionBatch
}

type sessionBatch interface{ add(cql string, vals []any) }

// gocqlSession is gocql's: a Session with no connections builds its
// queries and batches as a connected one does.
type gocqlSession struct{ s *gocql.Session }

func (g gocqlSession) query(cql string, vals []any) {
	g.s.Query(cql, vals...).WithContext(context.Background()).Consistency(gocql.LocalQuorum).Release()
}

func (g gocqlSession) batch() sessionBatch { return gocqlBatch{g.s.NewBatch(gocql.LoggedBatch)} }

type gocqlBatch struct{ b *gocql.Batch }

func (b gocqlBatch) add(cql string, vals []any) { b.b.Query(cql, vals...) }

// v2Session is the Apache driver v2's (which takes the context at
// ExecContext: no copy of the Query).
type v2Session struct{ s *gocqlv2.Session }

func (g v2Session) query(cql string, vals []any) {
	g.s.Query(cql, vals...).Consistency(gocqlv2.LocalQuorum)
}

func (g v2Session) batch() sessionBatch { return v2Batch{g.s.Batch(gocqlv2.LoggedBatch)} }

type v2Batch struct{ b *gocqlv2.Batch }

func (b v2Batch) add(cql string, vals []any) { b.b.Query(cql, vals...) }

func (w *wire[I]) infos(cols []*kandra.ColumnSchema) ([]I, error) {
	out := make([]I, len(cols))
	for i, c := range cols {
		var err error
		if out[i], err = w.info(c.Type()); err != nil {
			return nil, fmt.Errorf("column %s: %w", c.Name(), err)
		}
	}
	return out, nil
}

// gocqlWire is gocql v1.7.0 at protocol 4, with driver/kgocql's Codec.
var gocqlWire = &wire[gocql.TypeInfo]{
	name:      "kgocql",
	info:      typeInfo,
	bigint:    gocql.NewNativeType(protoVersion, gocql.TypeBigInt, ""),
	int32:     gocql.NewNativeType(protoVersion, gocql.TypeInt, ""),
	marshal:   gocql.Marshal,
	unmarshal: gocql.Unmarshal,
	codec: func(cols []*kandra.ColumnSchema) (codec, error) {
		c, err := kgocql.NewCodec(cols)
		return c, err
	},
	session: gocqlSession{&gocql.Session{}},
}

// v2Proto is the protocol of the Apache driver v2 here, as kgocqlv2's.
const v2Proto = 5

// v2Wire is the Apache driver v2 (v2.1.2) at protocol 5, with
// driver/kgocqlv2's Codec.
var v2Wire = &wire[gocqlv2.TypeInfo]{
	name: "kgocqlv2",
	info: func(t kandra.CQLType) (gocqlv2.TypeInfo, error) {
		// The driver's own parser of a CQL type, as it reads a prepared
		// statement's metadata.
		return gocqlv2.NewNativeType(v2Proto, gocqlv2.TypeCustom, strings.ToLower(t.String())), nil
	},
	bigint:    gocqlv2.NewNativeType(v2Proto, gocqlv2.TypeBigInt, ""),
	int32:     gocqlv2.NewNativeType(v2Proto, gocqlv2.TypeInt, ""),
	marshal:   gocqlv2.Marshal,
	unmarshal: gocqlv2.Unmarshal,
	codec: func(cols []*kandra.ColumnSchema) (codec, error) {
		c, err := kgocqlv2.NewCodec(cols)
		return c, err
	},
	session: v2Session{&gocqlv2.Session{}},
}

// marshaller marshals rows of bound values as the driver does before it
// writes a frame, and keeps the byte count so that the work is not
// discarded. When record is set (tests only), it keeps every marshalled
// row by CQL text. rows are the fake server's: the column bytes of the
// rows a query of a CQL text returns.
type marshaller[I any] struct {
	w      *wire[I]
	bytes  atomic.Int64
	mu     sync.Mutex
	record map[string][][][]byte
	rows   map[string][][][]byte
}

func (m *marshaller[I]) row(cql string, infos []I, vals []any) error {
	if len(vals) != len(infos) {
		return fmt.Errorf("bench: %s: %d values for %d markers", cql, len(vals), len(infos))
	}
	var kept [][]byte
	if m.record != nil {
		kept = make([][]byte, len(vals))
	}
	n := 0
	for i, v := range vals {
		b, err := m.w.marshal(infos[i], v)
		if err != nil {
			return fmt.Errorf("bench: %s: marker %d: %w", cql, i, err)
		}
		n += len(b)
		if kept != nil {
			// A copy, as a driver copies a value into its frame: a
			// reference's bytes are its field's own (a UUID, a string).
			kept[i] = bytes.Clone(b)
		}
	}
	m.bytes.Add(int64(n))
	if kept != nil {
		m.mu.Lock()
		m.record[cql] = append(m.record[cql], kept)
		m.mu.Unlock()
	}
	return nil
}

// The hand-written code's calls, as it makes them on a session: a
// statement run (Exec), a lightweight transaction (MapScanCAS: the fake
// server always applies it), a query of one page (its rows), a LOGGED
// BATCH of statements.

func (m *marshaller[I]) exec(cql string, infos []I, vals []any) error {
	m.w.session.query(cql, vals)
	return m.row(cql, infos, vals)
}

func (m *marshaller[I]) cas(cql string, infos []I, vals []any) (bool, error) {
	return true, m.exec(cql, infos, vals)
}

func (m *marshaller[I]) query(cql string, infos []I, vals []any, pageSize int) ([][][]byte, error) {
	if err := m.exec(cql, infos, vals); err != nil {
		return nil, err
	}
	rows := m.rows[cql]
	if pageSize > 0 && len(rows) > pageSize {
		rows = rows[:pageSize]
	}
	return rows, nil
}

// handBatch is a LOGGED BATCH being built: the driver's Batch, and its
// entries marshalled as they are added.
type handBatch[I any] struct {
	m   *marshaller[I]
	b   sessionBatch
	err error
}

func (m *marshaller[I]) batch() handBatch[I] { return handBatch[I]{m: m, b: m.w.session.batch()} }

func (b *handBatch[I]) query(cql string, infos []I, vals []any) {
	b.b.add(cql, vals)
	if b.err == nil {
		b.err = b.m.row(cql, infos, vals)
	}
}

func (b *handBatch[I]) exec() error { return b.err }

// unmarshalRow scans one row of column bytes into targets as the driver's
// Iter.Scan does.
func unmarshalRow[I any](w *wire[I], infos []I, row [][]byte, targets []any) error {
	if len(targets) != len(infos) {
		return fmt.Errorf("bench: %d scan targets for %d columns", len(targets), len(infos))
	}
	for i, t := range targets {
		if err := w.unmarshal(infos[i], row[i], t); err != nil {
			return fmt.Errorf("bench: column %d: %w", i, err)
		}
	}
	return nil
}

// clientDriver is a adapter.Driver with no network: Exec and Batch convert
// each statement's values with the adapter's Codec and marshal them;
// Query does the same with its key, and its rows (the marshaller's rows
// of its CQL) are scanned through the Codec's scan path.
//
// It binds as the adapter's Driver does (Plan.Values): a new argument
// list per statement, by reference (AppendBindRefs: the adapter's Driver
// binds so a statement the driver cannot run speculatively), handed to
// the driver's Query or Batch (see session), which keeps it.
//
// With tape set, it also records what it hands the driver (the floor's
// input: see floorTape).
type clientDriver[I any] struct {
	adapter.Driver // the migrator's calls, which the runtime never makes: nil
	m              marshaller[I]
	plans          sync.Map // *adapter.Statement -> *clientPlan[I]
	pool           sync.Pool
	tape           *floorTape[I]
}

var _ adapter.Driver = (*clientDriver[gocql.TypeInfo])(nil)

func newClientDriver[I any](w *wire[I]) *clientDriver[I] {
	d := &clientDriver[I]{}
	d.m.w = w
	d.m.rows = map[string][][][]byte{}
	return d
}

type clientPlan[I any] struct {
	bind   codec
	c0, nc int // the column markers: nc of them from marker c0; the others are plain values (USING TIMESTAMP, TTL, LIMIT)
	params []I
	scan   codec
	result []I
	cols   int  // the Result columns: result's first; the WRITETIME and TTL pairs of Extend follow
	count  bool // a SELECT COUNT: no Result column, one BIGINT scanned into the *int64 given
}

func (d *clientDriver[I]) plan(s *adapter.Statement) (*clientPlan[I], error) {
	// As adapter.Plans finds a plan: the statement's slot, then the map.
	if p, ok := s.Cached(d).(*clientPlan[I]); ok {
		return p, nil
	}
	if p, ok := d.plans.Load(s); ok {
		s.Cache(d, p)
		return p.(*clientPlan[I]), nil
	}
	w := d.m.w
	p := &clientPlan[I]{c0: -1}
	var cols []*kandra.ColumnSchema
	for i := 0; i < s.NumParams(); i++ {
		pm := s.Param(i)
		var info I
		switch {
		case pm.Column != nil:
			if p.c0 < 0 {
				p.c0 = i
			} else if p.c0+len(cols) != i {
				return nil, fmt.Errorf("bench: %s: the column markers are not in one run", s)
			}
			cols = append(cols, pm.Column)
			var err error
			if info, err = w.info(pm.Column.Type()); err != nil {
				return nil, err
			}
		case pm.Kind == adapter.ParamTimestamp || pm.Kind == adapter.ParamDelta || pm.Kind == adapter.ParamToken:
			info = w.bigint
		case pm.Kind == adapter.ParamTTL || pm.Kind == adapter.ParamLimit:
			info = w.int32
		default:
			return nil, fmt.Errorf("bench: %s: marker %s: the client driver binds column values, counter deltas, tokens and USING TIMESTAMP, TTL or LIMIT values", s, pm)
		}
		p.params = append(p.params, info)
	}
	p.c0, p.nc = max(p.c0, 0), len(cols)
	if s.HasWriteTime() {
		return nil, fmt.Errorf("bench: %s: WRITETIME is not supported by the client driver", s)
	}
	result := make([]*kandra.ColumnSchema, s.NumResult())
	for i := range result {
		result[i] = s.Result(i)
	}
	var err error
	if p.bind, err = w.codec(cols); err != nil {
		return nil, err
	}
	if p.scan, err = w.codec(result); err != nil {
		return nil, err
	}
	if p.result, err = w.infos(result); err != nil {
		return nil, err
	}
	p.cols = len(result)
	// Extend's times (kstore's WithTimes and GetTimes): each a WRITETIME, a
	// BIGINT, and a TTL, an INT, scanned into the *int64 and *int32 given.
	for range strings.Count(s.CQL(), ", WRITETIME(") {
		p.result = append(p.result, w.bigint, w.int32)
	}
	if len(result) == 0 && strings.HasPrefix(s.CQL(), "SELECT COUNT(") {
		// As the adapters scan a count: the driver into the *int64 itself.
		p.result, p.count = []I{w.bigint}, true
	}
	v, _ := d.plans.LoadOrStore(s, p)
	s.Cache(d, v)
	return v.(*clientPlan[I]), nil
}

// bindRefs appends the driver's values of vals to dst: the column values
// through the Codec's references, the plain ones (a TTL's, a timestamp's)
// as the adapters bind them.
func (p *clientPlan[I]) bindRefs(dst, vals []any) []any {
	end := p.c0 + p.nc
	dst = p.bind.AppendBindParams(dst, vals[:p.c0], true)
	dst = p.bind.AppendBindRefs(dst, vals[p.c0:end])
	return p.bind.AppendBindParams(dst, vals[end:], true)
}

// bindValues is bindRefs by value: the converted values themselves.
func (p *clientPlan[I]) bindValues(vals []any) []any {
	end := p.c0 + p.nc
	out := p.bind.AppendBindParams(nil, vals[:p.c0], false)
	out = append(out, p.bind.BindValues(vals[p.c0:end])...)
	return p.bind.AppendBindParams(out, vals[end:], false)
}

// marshal binds q's values into args, hands them to the driver's Query
// (or, with b, adds them to its Batch) and marshals them.
func (d *clientDriver[I]) marshal(q *adapter.Query, b sessionBatch, args *boundArgs) (*clientPlan[I], error) {
	p, err := d.plan(q.Statement)
	if err != nil {
		return nil, err
	}
	vals := bindInto(args, p, q.Values)
	if b != nil {
		b.add(q.Statement.CQL(), vals)
	} else {
		d.m.w.session.query(q.Statement.CQL(), vals)
	}
	err = d.m.row(q.Statement.CQL(), p.params, vals)
	if d.tape != nil {
		d.tape.add(q.Statement.CQL(), p.params, p.bindValues(q.Values))
	}
	return p, err
}

// boundArgs is the argument lists of one query or batch, bound into one
// pooled slice and released once it is sent, as the adapters bind
// (adapter.Args): its own, since the matrix binds through the Codec, which
// adapter.Plan.Bind does not take.
type boundArgs struct{ vals []any }

var boundPool = sync.Pool{New: func() any { return &boundArgs{vals: make([]any, 0, 16)} }}

func newBoundArgs() *boundArgs { return boundPool.Get().(*boundArgs) }

// bindInto appends vals bound by p to a's list and returns them, capped
// as Plan.Bind's.
func bindInto[I any](a *boundArgs, p *clientPlan[I], vals []any) []any {
	at := len(a.vals)
	a.vals = p.bindRefs(a.vals, vals)
	return a.vals[at:len(a.vals):len(a.vals)]
}

func (a *boundArgs) release() {
	clear(a.vals)
	a.vals = a.vals[:0]
	boundPool.Put(a)
}

// Exec implements adapter.Driver: a lightweight transaction always applies.
func (d *clientDriver[I]) Exec(_ context.Context, q *adapter.Query) (bool, error) {
	args := newBoundArgs()
	defer args.release()
	_, err := d.marshal(q, nil, args)
	return err == nil, err
}

// Batch implements adapter.Driver.
func (d *clientDriver[I]) Batch(_ context.Context, b *adapter.Batch) (bool, error) {
	sb := d.m.w.session.batch()
	args := newBoundArgs()
	defer args.release()
	for _, e := range b.Entries {
		if _, err := d.marshal(e, sb, args); err != nil {
			return false, err
		}
	}
	return true, nil
}

// Query implements adapter.Driver: one page of the rows of q's CQL, at most
// q.PageSize. Its Rows come from a pool, so that the fake driver's own
// bookkeeping does not count against the runtime (a real driver allocates
// its iterator in any case).
func (d *clientDriver[I]) Query(_ context.Context, q *adapter.Query) (adapter.Rows, error) {
	args := newBoundArgs()
	p, err := d.marshal(q, nil, args)
	args.release() // the page is read (see driver/kgocql's Query)
	if err != nil {
		return nil, err
	}
	r, _ := d.pool.Get().(*clientRows[I])
	if r == nil {
		r = &clientRows[I]{d: d}
	}
	r.p, r.err = p, nil
	r.rows = d.m.rows[q.Statement.CQL()]
	if q.PageSize > 0 && len(r.rows) > q.PageSize {
		r.rows = r.rows[:q.PageSize]
	}
	return r, nil
}

type clientRows[I any] struct {
	d       *clientDriver[I]
	p       *clientPlan[I]
	rows    [][][]byte
	next    []byte // the next page's state (scanDriver's pages); nil: the last page
	err     error
	targets []any // reused, as the adapter's rows reuse theirs
}

func (r *clientRows[I]) Next(dst []any) bool {
	if len(r.rows) == 0 {
		return false
	}
	row := r.rows[0]
	r.rows = r.rows[1:]
	if r.p.count {
		if r.d.tape != nil {
			r.d.tape.scan(r.p.result, row, dst)
		}
		r.err = unmarshalRow(r.d.m.w, r.p.result, row, dst)
		return r.err == nil
	}
	targets, finish := r.p.scan.AppendScanTargets(r.targets[:0], dst[:r.p.cols])
	targets = append(targets, dst[r.p.cols:]...) // the times, into the integers given
	r.targets = targets
	if r.d.tape != nil {
		r.d.tape.scan(r.p.result, row, targets)
	}
	if r.err = unmarshalRow(r.d.m.w, r.p.result, row, targets); r.err != nil {
		return false
	}
	r.err = finish()
	return r.err == nil
}

func (r *clientRows[I]) PageState() []byte { return r.next }

func (r *clientRows[I]) Close() error {
	err := r.err
	r.p, r.err, r.rows, r.next = nil, nil, nil, nil // r.targets not cleared, as a driver's iterator's scan buffer is not
	r.d.pool.Put(r)
	return err
}

// floorTape is what a kandra call handed the driver, for the marshalling
// floor: every statement's values as the Codec converts them (by value),
// and every row scanned with the targets it was scanned into. Replaying it
// (replay) is the driver's own work on exactly kandra's values, which
// every contender pays.
type floorTape[I any] struct {
	mu    sync.Mutex
	stmts []tapeStmt[I]
	scans []tapeScan[I]
}

type tapeStmt[I any] struct {
	cql   string
	infos []I
	vals  []any
}

type tapeScan[I any] struct {
	infos   []I
	row     [][]byte
	targets []any
}

func (t *floorTape[I]) add(cql string, infos []I, vals []any) {
	t.mu.Lock()
	t.stmts = append(t.stmts, tapeStmt[I]{cql, infos, vals})
	t.mu.Unlock()
}

func (t *floorTape[I]) scan(infos []I, row [][]byte, targets []any) {
	t.mu.Lock()
	t.scans = append(t.scans, tapeScan[I]{infos, row, append([]any(nil), targets...)})
	t.mu.Unlock()
}

// replay marshals and unmarshals what t recorded, once.
func (t *floorTape[I]) replay(m *marshaller[I]) error {
	for _, s := range t.stmts {
		if err := m.row(s.cql, s.infos, s.vals); err != nil {
			return err
		}
	}
	for _, s := range t.scans {
		if err := unmarshalRow(m.w, s.infos, s.row, s.targets); err != nil {
			return err
		}
	}
	return nil
}
