package bench

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gocql "github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/jmoiron/sqlx/reflectx"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/store"
)

// The client-side benchmarks: everything a Save or a Get does on the
// client, up to and including gocql's own marshalling of every bound value
// (gocql.Marshal with the column's TypeInfo) and unmarshalling of every
// column (gocql.Unmarshal), with no network.
//
// Contenders:
//   - kandra: store.Repo.Save / Get on clientDriver, a store.Driver that
//     converts values with driver/kgocql's exported Codec (the adapter's
//     conversions: uuid.UUID to gocql.UUID and so on) and then marshals
//     them as gocql does before sending. Nothing of the runtime is skipped:
//     validation, stamping, the LOGGED BATCH of the row and its BATCH
//     lookup, the EVENTUAL lookup on a runtime goroutine, metrics hooks.
//   - reflectx: the gocqlx way, binding a struct by column names with
//     sqlx's reflectx (TraversalsByName, then each field boxed), on
//     gocqlEvent, the struct a gocqlx user has (gocql.UUID where gocql needs
//     it).
//   - handwritten: the same statements with a literal argument list, the
//     uuid.UUID fields converted to gocql.UUID by hand.
//   - marshal: the floor, gocql.Marshal/Unmarshal alone of exactly the
//     values the kandra driver hands gocql (pre-converted outside the
//     loop): the allocations every contender's driver makes in any case.
//
// All run with GOMAXPROCS=1 so that the EVENTUAL lookup write, which the
// runtime does on its own goroutine, is timed with the Save that caused it
// (on two Ps it would run beside the loop, for free); the kandra runtime is
// closed inside the timer, so every write is counted.

const protoVersion = 4

// typeInfo is the gocql TypeInfo of a kandra CQL type at protocol 4, as a
// prepared statement's metadata gives it to gocql (TEXT is reported as
// varchar).
func typeInfo(t kandra.CQLType) (gocql.TypeInfo, error) {
	switch t.Kind() {
	case kandra.KindNative:
		typ, ok := nativeTypes[t.Name()]
		if !ok {
			return nil, fmt.Errorf("bench: CQL type %s has no gocql type here; add it to nativeTypes", t)
		}
		return gocql.NewNativeType(protoVersion, typ, ""), nil
	case kandra.KindList, kandra.KindSet:
		elem, err := typeInfo(t.Elem())
		if err != nil {
			return nil, err
		}
		typ := gocql.TypeList
		if t.Kind() == kandra.KindSet {
			typ = gocql.TypeSet
		}
		return gocql.CollectionType{NativeType: gocql.NewNativeType(protoVersion, typ, ""), Elem: elem}, nil
	case kandra.KindMap:
		key, err := typeInfo(t.Key())
		if err != nil {
			return nil, err
		}
		elem, err := typeInfo(t.Elem())
		if err != nil {
			return nil, err
		}
		return gocql.CollectionType{NativeType: gocql.NewNativeType(protoVersion, gocql.TypeMap, ""), Key: key, Elem: elem}, nil
	}
	return nil, fmt.Errorf("bench: CQL type %s has kind %s", t, t.Kind())
}

var nativeTypes = map[string]gocql.Type{
	"ASCII": gocql.TypeAscii, "BIGINT": gocql.TypeBigInt, "BLOB": gocql.TypeBlob,
	"BOOLEAN": gocql.TypeBoolean, "COUNTER": gocql.TypeCounter, "DATE": gocql.TypeDate,
	"DECIMAL": gocql.TypeDecimal, "DOUBLE": gocql.TypeDouble, "DURATION": gocql.TypeDuration,
	"FLOAT": gocql.TypeFloat, "INET": gocql.TypeInet, "INT": gocql.TypeInt,
	"SMALLINT": gocql.TypeSmallInt, "TEXT": gocql.TypeVarchar, "TIME": gocql.TypeTime,
	"TIMESTAMP": gocql.TypeTimestamp, "TIMEUUID": gocql.TypeTimeUUID, "TINYINT": gocql.TypeTinyInt,
	"UUID": gocql.TypeUUID, "VARCHAR": gocql.TypeVarchar, "VARINT": gocql.TypeVarint,
}

func typeInfos(cols []*kandra.ColumnSchema) ([]gocql.TypeInfo, error) {
	out := make([]gocql.TypeInfo, len(cols))
	for i, c := range cols {
		var err error
		if out[i], err = typeInfo(c.Type()); err != nil {
			return nil, fmt.Errorf("column %s: %w", c.Name(), err)
		}
	}
	return out, nil
}

// marshaller marshals rows of bound values as gocql does before it writes
// a frame, and keeps the byte count so that the work is not discarded. When
// record is set (tests only), it keeps every marshalled row by CQL text.
type marshaller struct {
	bytes  atomic.Int64
	mu     sync.Mutex
	record map[string][][][]byte
}

func (m *marshaller) row(cql string, infos []gocql.TypeInfo, vals []any) error {
	if len(vals) != len(infos) {
		return fmt.Errorf("bench: %s: %d values for %d markers", cql, len(vals), len(infos))
	}
	var kept [][]byte
	if m.record != nil {
		kept = make([][]byte, len(vals))
	}
	n := 0
	for i, v := range vals {
		b, err := gocql.Marshal(infos[i], v)
		if err != nil {
			return fmt.Errorf("bench: %s: marker %d: %w", cql, i, err)
		}
		n += len(b)
		if kept != nil {
			kept[i] = b
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

// unmarshalRow scans one row of column bytes into targets as gocql's
// Iter.Scan does.
func unmarshalRow(infos []gocql.TypeInfo, row [][]byte, targets []any) error {
	if len(targets) != len(infos) {
		return fmt.Errorf("bench: %d scan targets for %d columns", len(targets), len(infos))
	}
	for i, t := range targets {
		if err := gocql.Unmarshal(infos[i], row[i], t); err != nil {
			return fmt.Errorf("bench: column %d: %w", i, err)
		}
	}
	return nil
}

// clientDriver is a store.Driver with no network: Exec and Batch convert
// each statement's values with the gocql adapter's Codec and marshal them;
// Query does the same with its key, and its one row (row, marshalled
// column bytes) is scanned through the Codec's scan path. The Codec is the
// adapter's exported form of the conversions its Driver applies.
//
// It binds into a reused buffer (AppendBindRefs, as the adapter's Driver binds a
// statement gocql cannot run speculatively), as the hand-written
// contender's literal argument lists are on the stack here (the marshaller
// keeps nothing): with a real gocql session both pay one argument slice
// per statement, which the gocql.Query keeps. Its pooled buffers are not
// cleared when given back: a real driver's are new for every statement
// and never cleared, and clearing pointers in heap memory during a
// collection's mark phase (a third of the time at GOMAXPROCS=1 with a heap
// this small) costs write barriers that the hand-written contender's
// stack-allocated lists never pay.
type clientDriver struct {
	m     marshaller
	row   [][]byte
	plans sync.Map // *adapter.Statement -> *clientPlan
	pool  sync.Pool
	bufs  sync.Pool // *[]any
}

var _ store.Driver = (*clientDriver)(nil)

type clientPlan struct {
	bind   *kgocql.Codec
	cols   int // the column markers, first; the rest are plain values (a USING TIMESTAMP or TTL)
	params []gocql.TypeInfo
	scan   *kgocql.Codec
	result []gocql.TypeInfo
}

func (d *clientDriver) plan(s *adapter.Statement) (*clientPlan, error) {
	if p, ok := d.plans.Load(s); ok {
		return p.(*clientPlan), nil
	}
	var params []*kandra.ColumnSchema
	var plain []gocql.TypeInfo // the trailing markers without a column
	for i := 0; i < s.NumParams(); i++ {
		p := s.Param(i)
		switch {
		case p.Column != nil && plain == nil:
			params = append(params, p.Column)
		case p.Kind == adapter.ParamTimestamp:
			plain = append(plain, gocql.NewNativeType(protoVersion, gocql.TypeBigInt, ""))
		case p.Kind == adapter.ParamTTL || p.Kind == adapter.ParamLimit:
			plain = append(plain, gocql.NewNativeType(protoVersion, gocql.TypeInt, ""))
		default:
			return nil, fmt.Errorf("bench: %s: marker %s: the client driver binds column values, then USING TIMESTAMP, TTL or LIMIT values", s, p)
		}
	}
	if s.HasWriteTime() {
		return nil, fmt.Errorf("bench: %s: WRITETIME is not supported by the client driver", s)
	}
	result := make([]*kandra.ColumnSchema, s.NumResult())
	for i := range result {
		result[i] = s.Result(i)
	}
	p := &clientPlan{}
	var err error
	if p.bind, err = kgocql.NewCodec(params); err != nil {
		return nil, err
	}
	if p.params, err = typeInfos(params); err != nil {
		return nil, err
	}
	p.cols = len(params)
	p.params = append(p.params, plain...)
	if p.scan, err = kgocql.NewCodec(result); err != nil {
		return nil, err
	}
	if p.result, err = typeInfos(result); err != nil {
		return nil, err
	}
	v, _ := d.plans.LoadOrStore(s, p)
	return v.(*clientPlan), nil
}

func (d *clientDriver) marshal(q *store.Query) (*clientPlan, error) {
	p, err := d.plan(q.Statement)
	if err != nil {
		return nil, err
	}
	buf, _ := d.bufs.Get().(*[]any)
	if buf == nil {
		buf = new([]any)
	}
	vals := append(p.bind.AppendBindRefs((*buf)[:0], q.Values[:p.cols]), q.Values[p.cols:]...)
	err = d.m.row(q.Statement.CQL(), p.params, vals)
	*buf = vals[:0] // not cleared: see clientDriver
	d.bufs.Put(buf)
	return p, err
}

// Exec implements store.Driver.
func (d *clientDriver) Exec(_ context.Context, q *store.Query) (bool, error) {
	_, err := d.marshal(q)
	return err == nil, err
}

// Batch implements store.Driver.
func (d *clientDriver) Batch(_ context.Context, b *store.Batch) error {
	for _, e := range b.Entries {
		if _, err := d.marshal(e); err != nil {
			return err
		}
	}
	return nil
}

// Query implements store.Driver. Its Rows come from a pool, so that the
// fake driver's own bookkeeping does not count against the runtime (a real
// driver allocates its iterator in any case).
func (d *clientDriver) Query(_ context.Context, q *store.Query) (store.Rows, error) {
	p, err := d.marshal(q)
	if err != nil {
		return nil, err
	}
	r, _ := d.pool.Get().(*clientRows)
	if r == nil {
		r = &clientRows{d: d}
	}
	r.p, r.done, r.err = p, false, nil
	return r, nil
}

type clientRows struct {
	d       *clientDriver
	p       *clientPlan
	done    bool
	err     error
	targets []any // reused, as the adapter's rows reuse theirs
}

func (r *clientRows) Next(dst []any) bool {
	if r.done || r.d.row == nil {
		return false
	}
	r.done = true
	targets, finish := r.p.scan.AppendScanTargets(r.targets[:0], dst)
	r.targets = targets
	if r.err = unmarshalRow(r.p.result, r.d.row, targets); r.err != nil {
		return false
	}
	r.err = finish()
	return r.err == nil
}

func (r *clientRows) PageState() []byte { return nil }

func (r *clientRows) Close() error {
	err := r.err
	r.p, r.err = nil, nil // r.targets not cleared: see clientDriver
	r.d.pool.Put(r)
	return err
}

// gocqlEvent is Event as a gocqlx user declares it: gocql.UUID where
// gocql v1.7.0 cannot marshal uuid.UUID, the same fields otherwise.
type gocqlEvent struct {
	TenantID   gocql.UUID
	Day        string
	OccurredAt time.Time
	EventID    gocql.UUID
	Email      string
	Kind       string
	Title      string
	Priority   int32
	Score      float64
	Done       bool
	Tags       []string
	Payload    []byte
}

func toGocqlEvent(e *Event) *gocqlEvent {
	return &gocqlEvent{gocql.UUID(e.TenantID), e.Day, e.OccurredAt, gocql.UUID(e.EventID), e.Email, e.Kind,
		e.Title, e.Priority, e.Score, e.Done, e.Tags, e.Payload}
}

// clientStatements are Event's statements for the reflectx and
// handwritten contenders: the CQL kandra builds (so that all contenders
// send the same text), the column names a gocqlx query builder would give,
// and the TypeInfos.
type clientStatements struct {
	insert, byID, byEmail, get           string
	insertNames, byIDNames, byEmailNames []string
	keyNames, resultNames                []string
	insertInfo, byIDInfo, byEmailInfo    []gocql.TypeInfo
	keyInfo, resultInfo                  []gocql.TypeInfo
}

func newClientStatements(tb testing.TB) *clientStatements {
	tb.Helper()
	st := eventStatements(tb)
	var byID, byEmail *adapter.Statement
	for i := 0; i < st.NumLookups(); i++ {
		switch l := st.Lookup(i); l.Insert().Param(0).Column.Name() {
		case "event_id":
			byID = l.Insert()
		case "email":
			// The EVENTUAL row carries the call's timestamp, as kandra's
			// does: written later, it must not win over a later move.
			byEmail = l.InsertAt()
		}
	}
	ins, get := st.Insert(0), st.SelectByKey()
	c := &clientStatements{insert: ins.CQL(), byID: byID.CQL(), byEmail: byEmail.CQL(), get: get.CQL()}
	params := func(s *adapter.Statement) ([]string, []gocql.TypeInfo) {
		var cols []*kandra.ColumnSchema
		var names []string
		for i := 0; i < s.NumParams(); i++ {
			if c := s.Param(i).Column; c != nil {
				cols, names = append(cols, c), append(names, c.Name())
			}
		}
		infos, err := typeInfos(cols)
		if err != nil {
			tb.Fatal(err)
		}
		if s.NumParams() > len(cols) { // USING TIMESTAMP ?
			infos = append(infos, gocql.NewNativeType(protoVersion, gocql.TypeBigInt, ""))
		}
		return names, infos
	}
	c.insertNames, c.insertInfo = params(ins)
	c.byIDNames, c.byIDInfo = params(byID)
	c.byEmailNames, c.byEmailInfo = params(byEmail)
	c.keyNames, c.keyInfo = params(get)
	res := make([]*kandra.ColumnSchema, get.NumResult())
	for i := range res {
		res[i] = get.Result(i)
		c.resultNames = append(c.resultNames, res[i].Name())
	}
	var err error
	if c.resultInfo, err = typeInfos(res); err != nil {
		tb.Fatal(err)
	}
	return c
}

// handwrittenSave is the Save a programmer writes on gocql: the row and
// its BATCH lookup (one LOGGED BATCH), then the EVENTUAL lookup, each with
// a literal argument list.
func handwrittenSave(m *marshaller, c *clientStatements, e *Event) error {
	tid := gocql.UUID(e.TenantID)
	if err := m.row(c.insert, c.insertInfo, []any{tid, e.Day, e.OccurredAt, gocql.UUID(e.EventID), e.Email,
		e.Kind, e.Title, e.Priority, e.Score, e.Done, e.Tags, e.Payload}); err != nil {
		return err
	}
	if err := m.row(c.byID, c.byIDInfo, []any{gocql.UUID(e.EventID), tid, e.Day, e.OccurredAt}); err != nil {
		return err
	}
	if e.Email == "" {
		return nil
	}
	return m.row(c.byEmail, c.byEmailInfo, []any{e.Email, tid, e.Day, e.OccurredAt, time.Now().UnixMicro()})
}

// gocqlxBind is gocqlx's BindStruct: traversals by name, then each field
// read and boxed (reflectxBind for any struct).
func gocqlxBind(mp *reflectx.Mapper, names []string, arg any) []any {
	v := reflect.ValueOf(arg).Elem()
	args := make([]any, 0, len(names))
	for _, t := range mp.TraversalsByName(v.Type(), names) {
		args = append(args, reflectx.FieldByIndexesReadOnly(v, t).Interface())
	}
	return args
}

// gocqlxScanTargets is how gocqlx's StructScan prepares a row: traversals
// by column name, then each field's address.
func gocqlxScanTargets(mp *reflectx.Mapper, names []string, dest any) []any {
	v := reflect.ValueOf(dest).Elem()
	values := make([]any, len(names))
	for i, t := range mp.TraversalsByName(v.Type(), names) {
		values[i] = reflectx.FieldByIndexes(v, t).Addr().Interface()
	}
	return values
}

func reflectxSave(m *marshaller, mp *reflectx.Mapper, c *clientStatements, e *gocqlEvent) error {
	if err := m.row(c.insert, c.insertInfo, gocqlxBind(mp, c.insertNames, e)); err != nil {
		return err
	}
	if err := m.row(c.byID, c.byIDInfo, gocqlxBind(mp, c.byIDNames, e)); err != nil {
		return err
	}
	if e.Email == "" {
		return nil
	}
	return m.row(c.byEmail, c.byEmailInfo, append(gocqlxBind(mp, c.byEmailNames, e), time.Now().UnixMicro()))
}

// newClientRepo is the kandra contender: a runtime on a clientDriver. An
// EVENTUAL write that fails is kept in failed (the runtime reports it to
// the listener, not to Save's caller).
func newClientRepo(tb testing.TB, row [][]byte) (rt *store.Store, repo *store.Repo[Event], d *clientDriver, failed func() error) {
	tb.Helper()
	d = &clientDriver{row: row}
	var mu sync.Mutex
	var first error
	l := kandra.EventListenerFunc(func(table string, _ any, err error) {
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			first = fmt.Errorf("EVENTUAL write to %s: %w", table, err)
		}
	})
	rt, err := store.New(d, eventsKeyspace(tb), store.WithEventListener(l))
	if err != nil {
		tb.Fatal(err)
	}
	return rt, store.MustNewRepo(rt, events(tb)), d, func() error {
		mu.Lock()
		defer mu.Unlock()
		return first
	}
}

// kandraValues are the values the kandra driver hands gocql for stmts,
// bound from e and converted once: the marshal floor's input.
func kandraValues(tb testing.TB, e *Event, stmts ...*adapter.Statement) (cqls []string, infos [][]gocql.TypeInfo, vals [][]any) {
	tb.Helper()
	d := &clientDriver{}
	for _, s := range stmts {
		p, err := d.plan(s)
		if err != nil {
			tb.Fatal(err)
		}
		cqls = append(cqls, s.CQL())
		infos = append(infos, p.params)
		vals = append(vals, p.bind.BindValues(adapter.AppendColumns(events(tb), s, e, nil)))
	}
	return cqls, infos, vals
}

// eventStatements are Event's statements in keyspace app.
func eventStatements(tb testing.TB) *adapter.TableStatements {
	tb.Helper()
	st, err := adapter.BuildStatements(events(tb).Schema(), "app")
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// oneP runs the rest of a benchmark at GOMAXPROCS=1. It must be called in
// the sub-benchmark itself: the testing package sets GOMAXPROCS to the -cpu
// value (by default the machine's) before it runs each sub-benchmark, so a
// setting made by the parent is undone (the name's -N suffix still shows
// that value).
func oneP(b *testing.B) {
	prev := runtime.GOMAXPROCS(1)
	b.Cleanup(func() { runtime.GOMAXPROCS(prev) })
}

func BenchmarkSaveClient(b *testing.B) {
	ctx := context.Background()
	b.Run("kandra", func(b *testing.B) {
		oneP(b)
		rt, repo, d, failed := newClientRepo(b, nil)
		e := NewEvent()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := repo.Save(ctx, e); err != nil {
				b.Fatal(err)
			}
		}
		if err := rt.Close(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := failed(); err != nil {
			b.Fatal(err)
		}
		if d.m.bytes.Load() == 0 {
			b.Fatal("nothing marshalled")
		}
	})
	b.Run("reflectx", func(b *testing.B) {
		oneP(b)
		var m marshaller
		c, mp, e := newClientStatements(b), newMapper(), toGocqlEvent(NewEvent())
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := reflectxSave(&m, mp, c, e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("handwritten", func(b *testing.B) {
		oneP(b)
		var m marshaller
		c, e := newClientStatements(b), NewEvent()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := handwrittenSave(&m, c, e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("marshal", func(b *testing.B) {
		oneP(b)
		var m marshaller
		st := eventStatements(b)
		cqls, infos, vals := kandraValues(b, NewEvent(), st.Insert(0), st.Lookup(0).Insert(), st.Lookup(1).Insert())
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for j := range cqls {
				if err := m.row(cqls[j], infos[j], vals[j]); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// eventRow is NewEvent's row as the server sends it: each column
// marshalled with its TypeInfo.
func eventRow(tb testing.TB, c *clientStatements) [][]byte {
	tb.Helper()
	m := marshaller{record: map[string][][][]byte{}}
	e := NewEvent()
	if err := m.row("row", c.resultInfo, []any{gocql.UUID(e.TenantID), e.Day, e.OccurredAt, gocql.UUID(e.EventID), e.Email,
		e.Kind, e.Title, e.Priority, e.Score, e.Done, e.Tags, e.Payload}); err != nil {
		tb.Fatal(err)
	}
	return m.record["row"][0]
}

// handwrittenGet is the Get a programmer writes on gocql: the key as a
// literal argument list, then Scan into the fields, through gocql.UUID
// temporaries for the uuid.UUID fields.
func handwrittenGet(m *marshaller, c *clientStatements, row [][]byte, key *Event) (*Event, error) {
	if err := m.row(c.get, c.keyInfo, []any{gocql.UUID(key.TenantID), key.Day, key.OccurredAt}); err != nil {
		return nil, err
	}
	e := new(Event)
	var tid, eid gocql.UUID
	if err := unmarshalRow(c.resultInfo, row, []any{&tid, &e.Day, &e.OccurredAt, &eid, &e.Email, &e.Kind,
		&e.Title, &e.Priority, &e.Score, &e.Done, &e.Tags, &e.Payload}); err != nil {
		return nil, err
	}
	e.TenantID, e.EventID = uuid.UUID(tid), uuid.UUID(eid)
	return e, nil
}

// reflectxGet is gocqlx's Get: bind the key struct by name, then
// StructScan into a new struct.
func reflectxGet(m *marshaller, mp *reflectx.Mapper, c *clientStatements, row [][]byte, key *gocqlEvent) (*gocqlEvent, error) {
	if err := m.row(c.get, c.keyInfo, gocqlxBind(mp, c.keyNames, key)); err != nil {
		return nil, err
	}
	e := new(gocqlEvent)
	if err := unmarshalRow(c.resultInfo, row, gocqlxScanTargets(mp, c.resultNames, e)); err != nil {
		return nil, err
	}
	return e, nil
}

var (
	sinkEvent      *Event
	sinkGocqlEvent *gocqlEvent
)

func BenchmarkGetClient(b *testing.B) {
	ctx := context.Background()
	b.Run("kandra", func(b *testing.B) {
		oneP(b)
		rt, repo, _, _ := newClientRepo(b, eventRow(b, newClientStatements(b)))
		key := NewEvent()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			e, err := repo.Get(ctx, key)
			if err != nil {
				b.Fatal(err)
			}
			sinkEvent = e
		}
		b.StopTimer()
		if err := rt.Close(ctx); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("reflectx", func(b *testing.B) {
		oneP(b)
		var m marshaller
		c, mp, key := newClientStatements(b), newMapper(), toGocqlEvent(NewEvent())
		row := eventRow(b, c)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			e, err := reflectxGet(&m, mp, c, row, key)
			if err != nil {
				b.Fatal(err)
			}
			sinkGocqlEvent = e
		}
	})
	b.Run("handwritten", func(b *testing.B) {
		oneP(b)
		var m marshaller
		c, key := newClientStatements(b), NewEvent()
		row := eventRow(b, c)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			e, err := handwrittenGet(&m, c, row, key)
			if err != nil {
				b.Fatal(err)
			}
			sinkEvent = e
		}
	})
	b.Run("marshal", func(b *testing.B) {
		oneP(b)
		// The key as the kandra driver converts it, and the scan targets
		// the Codec gives for Event's columns: the gocql work alone.
		var m marshaller
		c, key := newClientStatements(b), NewEvent()
		row := eventRow(b, c)
		_, _, vals := kandraValues(b, key, eventStatements(b).SelectByKey())
		keyVals := vals[0]
		codec, err := kgocql.NewCodec(events(b).Schema().Columns())
		if err != nil {
			b.Fatal(err)
		}
		targets, _ := codec.ScanTargets(events(b).Pointers(new(Event), nil))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := m.row(c.get, c.keyInfo, keyVals); err != nil {
				b.Fatal(err)
			}
			if err := unmarshalRow(c.resultInfo, row, targets); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestClientContendersAgree checks that the client benchmarks compare like
// with like: for one Save, the three contenders marshal the same statements
// to the same bytes (the kandra runtime's through the adapter's Codec), and
// for one Get they read back the same entity.
func TestClientContendersAgree(t *testing.T) {
	ctx := context.Background()
	c := newClientStatements(t)
	rt, repo, d, failed := newClientRepo(t, eventRow(t, c))
	d.m.record = map[string][][][]byte{}
	if err := repo.Save(ctx, NewEvent()); err != nil {
		t.Fatal(err)
	}
	if err := rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := failed(); err != nil {
		t.Fatal(err)
	}
	hand := marshaller{record: map[string][][][]byte{}}
	if err := handwrittenSave(&hand, c, NewEvent()); err != nil {
		t.Fatal(err)
	}
	rx := marshaller{record: map[string][][][]byte{}}
	if err := reflectxSave(&rx, newMapper(), c, toGocqlEvent(NewEvent())); err != nil {
		t.Fatal(err)
	}
	if len(d.m.record) != 3 {
		t.Fatalf("kandra's Save wrote %d statements, want the row and two lookups: %v", len(d.m.record), d.m.record)
	}
	// A row's write timestamp is the time of its call: equal in kind, not
	// in value.
	noTS := func(rec map[string][][][]byte) map[string][][][]byte {
		out := map[string][][][]byte{}
		for cql, rows := range rec {
			for _, row := range rows {
				if strings.HasSuffix(cql, "USING TIMESTAMP ?") && len(row) > 0 {
					row = row[:len(row)-1]
				}
				out[cql] = append(out[cql], row)
			}
		}
		return out
	}
	for name, got := range map[string]map[string][][][]byte{"handwritten": hand.record, "reflectx": rx.record} {
		if !reflect.DeepEqual(noTS(got), noTS(d.m.record)) {
			t.Errorf("%s's Save marshals\\n%v\\nkandra's\\n%v", name, got, d.m.record)
		}
	}

	want := NewEvent()
	rt2, repo2, _, _ := newClientRepo(t, eventRow(t, c))
	defer rt2.Close(ctx)
	got, err := repo2.Get(ctx, NewEvent())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("kandra's Get reads %+v, want %+v", got, want)
	}
	row := eventRow(t, c)
	var m marshaller
	h, err := handwrittenGet(&m, c, row, want)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("handwritten Get reads %+v, want %+v", h, want)
	}
	x, err := reflectxGet(&m, newMapper(), c, row, toGocqlEvent(want))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(x, toGocqlEvent(want)) {
		t.Errorf("reflectx Get reads %+v, want %+v", x, toGocqlEvent(want))
	}
}
