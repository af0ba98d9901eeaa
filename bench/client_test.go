package bench

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	gocql "github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/jmoiron/sqlx/reflectx"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/internal/catalog"
	"github.com/kandra-go/kandra/kstore"
)

// The client-side benchmarks: everything a Save or a Get does on the
// client, up to and including gocql's own marshalling of every bound value
// (gocql.Marshal with the column's TypeInfo) and unmarshalling of every
// column (gocql.Unmarshal), with no network.
//
// Contenders:
//   - kandra: kstore.Repo.Save / Get on clientDriver, a adapter.Driver that
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
func handwrittenSave(m *marshaller[gocql.TypeInfo], c *clientStatements, e *Event) error {
	tid := gocql.UUID(e.TenantID)
	b := m.batch()
	b.query(c.insert, c.insertInfo, []any{tid, e.Day, e.OccurredAt, gocql.UUID(e.EventID), e.Email,
		e.Kind, e.Title, e.Priority, e.Score, e.Done, e.Tags, e.Payload})
	b.query(c.byID, c.byIDInfo, []any{gocql.UUID(e.EventID), tid, e.Day, e.OccurredAt})
	if err := b.exec(); err != nil {
		return err
	}
	if e.Email == "" {
		return nil
	}
	return m.exec(c.byEmail, c.byEmailInfo, []any{e.Email, tid, e.Day, e.OccurredAt, time.Now().UnixMicro()})
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

func reflectxSave(m *marshaller[gocql.TypeInfo], mp *reflectx.Mapper, c *clientStatements, e *gocqlEvent) error {
	b := m.batch()
	b.query(c.insert, c.insertInfo, gocqlxBind(mp, c.insertNames, e))
	b.query(c.byID, c.byIDInfo, gocqlxBind(mp, c.byIDNames, e))
	if err := b.exec(); err != nil {
		return err
	}
	if e.Email == "" {
		return nil
	}
	return m.exec(c.byEmail, c.byEmailInfo, append(gocqlxBind(mp, c.byEmailNames, e), time.Now().UnixMicro()))
}

// newClientRepo is the kandra contender: a runtime on a clientDriver. An
// EVENTUAL write that fails is kept in failed (the runtime reports it to
// the listener, not to Save's caller).
func newClientRepo(tb testing.TB, row [][]byte) (rt *kstore.Store, repo *kstore.Repo[Event], d *clientDriver[gocql.TypeInfo], failed func() error) {
	tb.Helper()
	d = newClientDriver(gocqlWire)
	if row != nil {
		d.m.rows[eventStatements(tb).SelectByKey().CQL()] = [][][]byte{row}
	}
	var mu sync.Mutex
	var first error
	l := kandra.EventListenerFunc(func(table string, _ any, err error) {
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			first = fmt.Errorf("EVENTUAL write to %s: %w", table, err)
		}
	})
	rt, err := kstore.New(d, eventsKeyspace(tb), kstore.WithEventListener(l))
	if err != nil {
		tb.Fatal(err)
	}
	return rt, kstore.MustNewRepo(rt, events(tb)), d, func() error {
		mu.Lock()
		defer mu.Unlock()
		return first
	}
}

// kandraValues are the values the kandra driver hands gocql for stmts,
// bound from e and converted once: the marshal floor's input.
func kandraValues(tb testing.TB, e *Event, stmts ...*adapter.Statement) (cqls []string, infos [][]gocql.TypeInfo, vals [][]any) {
	tb.Helper()
	d := newClientDriver(gocqlWire)
	for _, s := range stmts {
		p, err := d.plan(s)
		if err != nil {
			tb.Fatal(err)
		}
		cqls = append(cqls, s.CQL())
		infos = append(infos, p.params)
		vals = append(vals, p.bindValues(catalog.AppendColumns(events(tb), s, e, nil)))
	}
	return cqls, infos, vals
}

// eventStatements are Event's statements in keyspace app.
func eventStatements(tb testing.TB) *catalog.Table {
	tb.Helper()
	st, err := catalog.Build(events(tb).Schema(), "app")
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
		m := marshaller[gocql.TypeInfo]{w: gocqlWire}
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
		m := marshaller[gocql.TypeInfo]{w: gocqlWire}
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
		m := marshaller[gocql.TypeInfo]{w: gocqlWire}
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
	m := marshaller[gocql.TypeInfo]{w: gocqlWire, record: map[string][][][]byte{}}
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
func handwrittenGet(m *marshaller[gocql.TypeInfo], c *clientStatements, row [][]byte, key *Event) (*Event, error) {
	if err := m.exec(c.get, c.keyInfo, []any{gocql.UUID(key.TenantID), key.Day, key.OccurredAt}); err != nil {
		return nil, err
	}
	e := new(Event)
	var tid, eid gocql.UUID
	if err := unmarshalRow(gocqlWire, c.resultInfo, row, []any{&tid, &e.Day, &e.OccurredAt, &eid, &e.Email, &e.Kind,
		&e.Title, &e.Priority, &e.Score, &e.Done, &e.Tags, &e.Payload}); err != nil {
		return nil, err
	}
	e.TenantID, e.EventID = uuid.UUID(tid), uuid.UUID(eid)
	return e, nil
}

// reflectxGet is gocqlx's Get: bind the key struct by name, then
// StructScan into a new struct.
func reflectxGet(m *marshaller[gocql.TypeInfo], mp *reflectx.Mapper, c *clientStatements, row [][]byte, key *gocqlEvent) (*gocqlEvent, error) {
	if err := m.exec(c.get, c.keyInfo, gocqlxBind(mp, c.keyNames, key)); err != nil {
		return nil, err
	}
	e := new(gocqlEvent)
	if err := unmarshalRow(gocqlWire, c.resultInfo, row, gocqlxScanTargets(mp, c.resultNames, e)); err != nil {
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
		m := marshaller[gocql.TypeInfo]{w: gocqlWire}
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
		m := marshaller[gocql.TypeInfo]{w: gocqlWire}
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
		m := marshaller[gocql.TypeInfo]{w: gocqlWire}
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
			if err := unmarshalRow(gocqlWire, c.resultInfo, row, targets); err != nil {
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
	hand := marshaller[gocql.TypeInfo]{w: gocqlWire, record: map[string][][][]byte{}}
	if err := handwrittenSave(&hand, c, NewEvent()); err != nil {
		t.Fatal(err)
	}
	rx := marshaller[gocql.TypeInfo]{w: gocqlWire, record: map[string][][][]byte{}}
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
	m := marshaller[gocql.TypeInfo]{w: gocqlWire}
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
