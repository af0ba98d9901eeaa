package bench

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gocqlv2 "github.com/apache/cassandra-gocql-driver/v2"
	gocql "github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/driver/kgocqlv2"
	"github.com/kandra-go/kandra/kstore"
)

// The write cells: the partial writes of kstore.Repo.Patch (Set with
// Upsert, with a condition, with the default IF EXISTS guard; a list's
// Append, a set's Add, a map's Put), DeleteRange of a clustering range,
// and Save with OmitNulls of a sparse entity, each against the code a
// careful engineer writes by hand on the same driver, on both adapters,
// with the matrix's method (measureCell: interleaved blocks, one P, the
// collector charged per byte; bench/README.md, "Method").
//
// The client side is the matrix's wire (wire_test.go): the driver's own
// Query on a Session with no connections, and its Marshal of every bound
// value. What differs is the binding on kandra's side. clientDriver binds
// field addresses through the adapter's Codec; these calls also bind the
// values the call gives (SET c = ?, a condition's or a bound's value), a
// map's key and value on their own (m[?] = ?), and OmitNulls' unset
// markers, which the Codec's AppendBindRefs does not take. writeDriver
// binds as the adapters' Driver does for every statement
// (adapter.Plans.Of, then Plan.Values(vals, true): driver/kgocql's and
// driver/kgocqlv2's Driver.query), and gives each marker the type info of
// what it binds (a map's key or value type for m[?] = ?). An unset value
// is not marshalled, as the drivers send it (marshalQueryValue): the
// hand-written code goes through the same wireRow.
//
// TestWritesAgree checks that each cell compares like with like;
// TestWrites measures them (KANDRA_MATRIX=1):
//
//	go test -c -o /tmp/bench.test .
//	KANDRA_MATRIX=1 /tmp/bench.test -test.run '^TestWrites$' -matrix.rounds 30
//
// BenchmarkWrites runs each contender alone, for profiles and benchstat.

var writesOut = flag.String("writes.out", "", "TestWrites: write the table (markdown) to this file")

// WriteRow is the entity of the Patch and DeleteRange cells: a key, two
// plain columns, and a list, a set and a map.
type WriteRow struct {
	Part   uuid.UUID
	Seq    int64
	Title  string
	Done   bool
	Tags   []string
	Labels map[string]struct{}
	Attrs  map[string]string
}

func (e *WriteRow) Describe(s *kandra.Schema[WriteRow]) {
	s.Table("write_row")
	kandra.Bind(s, &e.Part, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Seq, kandra.ClusteringKey(0, kandra.ClusteringAsc))
}

// SparseRow is the entity of the OmitNulls cells: a key, one plain
// column and ten nullable ones, of which newSparseRow sets one.
type SparseRow struct {
	Part     uuid.UUID
	Seq      int64
	Title    string
	Note     *string
	Email    *string
	City     *string
	Score    *float64
	Hits     *int64
	Priority *int32
	Flag     *bool
	SeenAt   *time.Time
	RefID    *uuid.UUID
	Tags     []string
}

func (e *SparseRow) Describe(s *kandra.Schema[SparseRow]) {
	s.Table("sparse_row")
	kandra.Bind(s, &e.Part, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Seq, kandra.ClusteringKey(0, kandra.ClusteringAsc))
}

func newSparseRow() *SparseRow {
	hits := int64(1234)
	return &SparseRow{Part: matrixPart, Seq: 7, Title: "a sparse row", Hits: &hits}
}

// The hand-written statements: the CQL an engineer writes (TestWritesAgree
// checks kandra sends the same), and the markers' types, which a driver
// reads from the prepared statement's metadata.
const (
	cqlPatchUpsert  = "UPDATE app.write_row SET title = ? WHERE part = ? AND seq = ?"
	cqlPatchIf      = "UPDATE app.write_row SET title = ? WHERE part = ? AND seq = ? IF done = ?"
	cqlPatchExists  = "UPDATE app.write_row SET title = ? WHERE part = ? AND seq = ? IF EXISTS"
	cqlAppend       = "UPDATE app.write_row SET tags = tags + ? WHERE part = ? AND seq = ?"
	cqlAddSet       = "UPDATE app.write_row SET labels = labels + ? WHERE part = ? AND seq = ?"
	cqlPutMap       = "UPDATE app.write_row SET attrs[?] = ? WHERE part = ? AND seq = ?"
	cqlDeleteRange  = "DELETE FROM app.write_row WHERE part = ? AND seq >= ? AND seq < ?"
	cqlSparseAll    = "INSERT INTO app.sparse_row (part, seq, title, note, email, city, score, hits, priority, flag, seen_at, ref_id, tags) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
	cqlSparsePartly = "INSERT INTO app.sparse_row (part, seq, title, hits) VALUES (?, ?, ?, ?)"
)

// wstmt is a hand-written statement: its text and its markers' types.
type wstmt[I any] struct {
	cql   string
	infos []I
}

type writeStmts[I any] struct {
	patchUpsert, patchIf, patchExists, appendList, addSet, putMap, deleteRange wstmt[I]
	sparseAll, sparsePartly                                                    wstmt[I]
}

func newWriteStmts[I any](w *wire[I], rows, sparse *kandra.TableSchema) (*writeStmts[I], error) {
	var errs []error
	typ := func(ts *kandra.TableSchema, name string) kandra.CQLType {
		for _, c := range ts.Columns() {
			if c.Name() == name {
				return c.Type()
			}
		}
		errs = append(errs, fmt.Errorf("%s has no column %s", ts.Name(), name))
		return kandra.CQLType{}
	}
	mk := func(cql string, types ...kandra.CQLType) wstmt[I] {
		s := wstmt[I]{cql: cql}
		for _, t := range types {
			info, err := w.info(t)
			errs = append(errs, err)
			s.infos = append(s.infos, info)
		}
		return s
	}
	r := func(name string) kandra.CQLType { return typ(rows, name) }
	sp := func(names ...string) []kandra.CQLType {
		out := make([]kandra.CQLType, len(names))
		for i, n := range names {
			out[i] = typ(sparse, n)
		}
		return out
	}
	part, seq := r("part"), r("seq")
	s := &writeStmts[I]{
		patchUpsert: mk(cqlPatchUpsert, r("title"), part, seq),
		patchIf:     mk(cqlPatchIf, r("title"), part, seq, r("done")),
		patchExists: mk(cqlPatchExists, r("title"), part, seq),
		appendList:  mk(cqlAppend, r("tags"), part, seq),
		addSet:      mk(cqlAddSet, r("labels"), part, seq),
		putMap:      mk(cqlPutMap, r("attrs").Key(), r("attrs").Elem(), part, seq),
		deleteRange: mk(cqlDeleteRange, part, seq, seq),
		sparseAll: mk(cqlSparseAll, sp("part", "seq", "title", "note", "email", "city", "score", "hits", "priority",
			"flag", "seen_at", "ref_id", "tags")...),
		sparsePartly: mk(cqlSparsePartly, sp("part", "seq", "title", "hits")...),
	}
	return s, errors.Join(errs...)
}

// unsetMark is what a record holds for an unset value (never marshalled).
var unsetMark = []byte("<unset>")

// wireRow is marshaller.row as the driver marshals a statement's values
// (marshalQueryValue): an unset value (the driver's UnsetValue) is not
// marshalled, it is sent as such.
func wireRow[I any](m *marshaller[I], unset any, cql string, infos []I, vals []any) error {
	if len(vals) != len(infos) {
		return fmt.Errorf("bench: %s: %d values for %d markers", cql, len(vals), len(infos))
	}
	var kept [][]byte
	if m.record != nil {
		kept = make([][]byte, len(vals))
	}
	n := 0
	for i, v := range vals {
		if v == unset {
			if kept != nil {
				kept[i] = unsetMark
			}
			continue
		}
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

// wmarsh is the hand-written code's session: a marshaller with its
// driver's UnsetValue.
type wmarsh[I any] struct {
	m     *marshaller[I]
	unset any
}

// exec runs a statement: the driver's Query, then its values marshalled.
func (h *wmarsh[I]) exec(s *wstmt[I], vals []any) error {
	h.m.w.session.query(s.cql, vals)
	return wireRow(h.m, h.unset, s.cql, s.infos, vals)
}

// cas runs a lightweight transaction, which the fake server always
// applies (as marshaller.cas, the matrix's SaveIfNotExists).
func (h *wmarsh[I]) cas(s *wstmt[I], vals []any) (bool, error) {
	return true, h.exec(s, vals)
}

// writeDriver is clientDriver (its marshaller, floor tape, Query and
// Batch) with Exec binding as the adapters' Driver binds (see above).
type writeDriver[I any, D adapter.TypeSystem[I]] struct {
	*clientDriver[I]
	unset any
	ps    adapter.Plans[I, D]
	plans sync.Map // *adapter.Statement -> *writePlan[I, D]
}

// writePlan is the adapter's plan of a statement and its markers' types.
type writePlan[I any, D adapter.TypeSystem[I]] struct {
	p     *adapter.Plan[I, D]
	infos []I
}

// newWriteDriver is a writeDriver on w; codec (nil) names the adapter's
// type system, D.
func newWriteDriver[I any, D adapter.TypeSystem[I]](w *wire[I], _ *adapter.Codec[I, D]) *writeDriver[I, D] {
	var d D
	return &writeDriver[I, D]{clientDriver: newClientDriver(w), unset: d.Unset()}
}

func (d *writeDriver[I, D]) plan(s *adapter.Statement) (*writePlan[I, D], error) {
	// As adapter.Plans.Of finds one: the statement's slot, then the map.
	if p, ok := s.Cached(d).(*writePlan[I, D]); ok {
		return p, nil
	}
	if p, ok := d.plans.Load(s); ok {
		s.Cache(d, p)
		return p.(*writePlan[I, D]), nil
	}
	ap, err := d.ps.Of(s)
	if err != nil {
		return nil, err
	}
	w := d.m.w
	p := &writePlan[I, D]{p: ap}
	for i := 0; i < s.NumParams(); i++ {
		pm := s.Param(i)
		var info I
		switch {
		case pm.Kind == adapter.ParamTimestamp || pm.Kind == adapter.ParamDelta:
			info = w.bigint
		case pm.Kind == adapter.ParamTTL || pm.Kind == adapter.ParamLimit || pm.Kind == adapter.ParamIndex:
			info = w.int32
		case pm.Column == nil:
			return nil, fmt.Errorf("bench: %s: marker %s: not in the write cells", s, pm)
		case pm.Kind == adapter.ParamMapKey:
			info, err = w.info(pm.Column.Type().Key())
		case pm.Kind == adapter.ParamElement:
			info, err = w.info(pm.Column.Type().Elem())
		default:
			info, err = w.info(pm.Column.Type())
		}
		if err != nil {
			return nil, err
		}
		p.infos = append(p.infos, info)
	}
	if s.NumResult() > 0 && !s.IsConditional() {
		return nil, fmt.Errorf("bench: %s: writeDriver runs writes only", s)
	}
	v, _ := d.plans.LoadOrStore(s, p)
	s.Cache(d, v)
	return v.(*writePlan[I, D]), nil
}

// Exec implements adapter.Driver: a lightweight transaction always
// applies (the fake server's answer, as clientDriver's).
func (d *writeDriver[I, D]) Exec(_ context.Context, q *adapter.Query) (bool, error) {
	p, err := d.plan(q.Statement)
	if err != nil {
		return false, err
	}
	args := adapter.NewArgs() // as the adapters bind: a pooled list, released once sent
	defer args.Release()
	vals := p.p.Bind(args, q.Values, true)
	d.m.w.session.query(q.Statement.CQL(), vals)
	err = wireRow(&d.m, d.unset, q.Statement.CQL(), p.infos, vals)
	if d.tape != nil {
		d.tape.add(q.Statement.CQL(), p.infos, p.p.Values(q.Values, false))
	}
	return err == nil, err
}

// writeHand is the hand-written code of the write cells on one driver.
type writeHand[I any] struct {
	patchUpsert func(h *wmarsh[I], s *writeStmts[I], key *WriteRow, title string) error
	patchIf     func(h *wmarsh[I], s *writeStmts[I], key *WriteRow, title string, done bool) (bool, error)
	patchExists func(h *wmarsh[I], s *writeStmts[I], key *WriteRow, title string) (bool, error)
	appendList  func(h *wmarsh[I], s *writeStmts[I], key *WriteRow, tag string) error
	addSet      func(h *wmarsh[I], s *writeStmts[I], key *WriteRow, label string) error
	putMap      func(h *wmarsh[I], s *writeStmts[I], key *WriteRow, k, v string) error
	deleteRange func(h *wmarsh[I], s *writeStmts[I], part *WriteRow, from, to int64) error
	saveUnset   func(h *wmarsh[I], s *writeStmts[I], e *SparseRow) error // every column, the nulls unset
	savePartly  func(h *wmarsh[I], s *writeStmts[I], e *SparseRow) error // the columns of SparseRow's non-null fields
}

// orUnset is *p, or unset for a nil p.
func orUnset[V any](p *V, unset any) any {
	if p == nil {
		return unset
	}
	return *p
}

var writeHandGocql = writeHand[gocql.TypeInfo]{
	patchUpsert: func(h *wmarsh[gocql.TypeInfo], s *writeStmts[gocql.TypeInfo], key *WriteRow, title string) error {
		return h.exec(&s.patchUpsert, []any{title, gocql.UUID(key.Part), key.Seq})
	},
	patchIf: func(h *wmarsh[gocql.TypeInfo], s *writeStmts[gocql.TypeInfo], key *WriteRow, title string, done bool) (bool, error) {
		return h.cas(&s.patchIf, []any{title, gocql.UUID(key.Part), key.Seq, done})
	},
	patchExists: func(h *wmarsh[gocql.TypeInfo], s *writeStmts[gocql.TypeInfo], key *WriteRow, title string) (bool, error) {
		return h.cas(&s.patchExists, []any{title, gocql.UUID(key.Part), key.Seq})
	},
	appendList: func(h *wmarsh[gocql.TypeInfo], s *writeStmts[gocql.TypeInfo], key *WriteRow, tag string) error {
		return h.exec(&s.appendList, []any{[]string{tag}, gocql.UUID(key.Part), key.Seq})
	},
	addSet: func(h *wmarsh[gocql.TypeInfo], s *writeStmts[gocql.TypeInfo], key *WriteRow, label string) error {
		return h.exec(&s.addSet, []any{[]string{label}, gocql.UUID(key.Part), key.Seq})
	},
	putMap: func(h *wmarsh[gocql.TypeInfo], s *writeStmts[gocql.TypeInfo], key *WriteRow, k, v string) error {
		return h.exec(&s.putMap, []any{k, v, gocql.UUID(key.Part), key.Seq})
	},
	deleteRange: func(h *wmarsh[gocql.TypeInfo], s *writeStmts[gocql.TypeInfo], part *WriteRow, from, to int64) error {
		return h.exec(&s.deleteRange, []any{gocql.UUID(part.Part), from, to})
	},
	saveUnset: func(h *wmarsh[gocql.TypeInfo], s *writeStmts[gocql.TypeInfo], e *SparseRow) error {
		u := h.unset
		ref, tags := u, u
		if e.RefID != nil {
			ref = gocql.UUID(*e.RefID)
		}
		if len(e.Tags) > 0 {
			tags = e.Tags
		}
		return h.exec(&s.sparseAll, []any{gocql.UUID(e.Part), e.Seq, e.Title, orUnset(e.Note, u), orUnset(e.Email, u),
			orUnset(e.City, u), orUnset(e.Score, u), orUnset(e.Hits, u), orUnset(e.Priority, u), orUnset(e.Flag, u),
			orUnset(e.SeenAt, u), ref, tags})
	},
	savePartly: func(h *wmarsh[gocql.TypeInfo], s *writeStmts[gocql.TypeInfo], e *SparseRow) error {
		return h.exec(&s.sparsePartly, []any{gocql.UUID(e.Part), e.Seq, e.Title, *e.Hits})
	},
}

var writeHandV2 = writeHand[gocqlv2.TypeInfo]{
	patchUpsert: func(h *wmarsh[gocqlv2.TypeInfo], s *writeStmts[gocqlv2.TypeInfo], key *WriteRow, title string) error {
		return h.exec(&s.patchUpsert, []any{title, gocqlv2.UUID(key.Part), key.Seq})
	},
	patchIf: func(h *wmarsh[gocqlv2.TypeInfo], s *writeStmts[gocqlv2.TypeInfo], key *WriteRow, title string, done bool) (bool, error) {
		return h.cas(&s.patchIf, []any{title, gocqlv2.UUID(key.Part), key.Seq, done})
	},
	patchExists: func(h *wmarsh[gocqlv2.TypeInfo], s *writeStmts[gocqlv2.TypeInfo], key *WriteRow, title string) (bool, error) {
		return h.cas(&s.patchExists, []any{title, gocqlv2.UUID(key.Part), key.Seq})
	},
	appendList: func(h *wmarsh[gocqlv2.TypeInfo], s *writeStmts[gocqlv2.TypeInfo], key *WriteRow, tag string) error {
		return h.exec(&s.appendList, []any{[]string{tag}, gocqlv2.UUID(key.Part), key.Seq})
	},
	addSet: func(h *wmarsh[gocqlv2.TypeInfo], s *writeStmts[gocqlv2.TypeInfo], key *WriteRow, label string) error {
		return h.exec(&s.addSet, []any{[]string{label}, gocqlv2.UUID(key.Part), key.Seq})
	},
	putMap: func(h *wmarsh[gocqlv2.TypeInfo], s *writeStmts[gocqlv2.TypeInfo], key *WriteRow, k, v string) error {
		return h.exec(&s.putMap, []any{k, v, gocqlv2.UUID(key.Part), key.Seq})
	},
	deleteRange: func(h *wmarsh[gocqlv2.TypeInfo], s *writeStmts[gocqlv2.TypeInfo], part *WriteRow, from, to int64) error {
		return h.exec(&s.deleteRange, []any{gocqlv2.UUID(part.Part), from, to})
	},
	saveUnset: func(h *wmarsh[gocqlv2.TypeInfo], s *writeStmts[gocqlv2.TypeInfo], e *SparseRow) error {
		u := h.unset
		ref, tags := u, u
		if e.RefID != nil {
			ref = gocqlv2.UUID(*e.RefID)
		}
		if len(e.Tags) > 0 {
			tags = e.Tags
		}
		return h.exec(&s.sparseAll, []any{gocqlv2.UUID(e.Part), e.Seq, e.Title, orUnset(e.Note, u), orUnset(e.Email, u),
			orUnset(e.City, u), orUnset(e.Score, u), orUnset(e.Hits, u), orUnset(e.Priority, u), orUnset(e.Flag, u),
			orUnset(e.SeenAt, u), ref, tags})
	},
	savePartly: func(h *wmarsh[gocqlv2.TypeInfo], s *writeStmts[gocqlv2.TypeInfo], e *SparseRow) error {
		return h.exec(&s.sparsePartly, []any{gocqlv2.UUID(e.Part), e.Seq, e.Title, *e.Hits})
	},
}

// wrig is a store and a Repo of T on a driver, opened by a cell's first
// block and kept for the others, each block ending with the store's Wait
// timed with its operations, as the matrix's rig.
type wrig[T any] struct {
	d     adapter.Driver
	ks    *kandra.Keyspace
	table *kandra.Table[T]
	rt    *kstore.Store
	repo  *kstore.Repo[T]
}

func (k *wrig[T]) open() (err error) {
	if k.rt != nil {
		return nil // the cell's store, still open (see rig)
	}
	if k.rt, err = kstore.New(k.d, k.ks); err != nil {
		return err
	}
	k.repo, err = kstore.NewRepo(k.rt, k.table)
	return err
}

func (k *wrig[T]) close() error { return k.rt.Wait(context.Background()) }

func wrigOf[T any](d adapter.Driver, register func() (*kandra.Table[T], error)) (*wrig[T], error) {
	table, ks, _, err := tableOf(register)
	if err != nil {
		return nil, err
	}
	return &wrig[T]{d: d, ks: ks, table: table}, nil
}

// writeCells is the write cells on wire w; codec (nil) names the adapter's
// type system, h is the hand-written code.
func writeCells[I any, D adapter.TypeSystem[I]](w *wire[I], codec *adapter.Codec[I, D], h writeHand[I]) ([]*cell, error) {
	d := newWriteDriver(w, codec)
	k, err := wrigOf(d, kandra.Register[WriteRow])
	if err != nil {
		return nil, err
	}
	ks, err := wrigOf(d, kandra.Register[SparseRow])
	if err != nil {
		return nil, err
	}
	st, err := newWriteStmts(w, k.table.Schema(), ks.table.Schema())
	if err != nil {
		return nil, err
	}
	var (
		title  = kandra.MustFieldOf(k.table, func(e *WriteRow) *string { return &e.Title })
		done   = kandra.MustFieldOf(k.table, func(e *WriteRow) *bool { return &e.Done })
		tags   = kandra.MustFieldOf(k.table, func(e *WriteRow) *[]string { return &e.Tags })
		labels = kandra.MustFieldOf(k.table, func(e *WriteRow) *map[string]struct{} { return &e.Labels })
		attrs  = kandra.MustFieldOf(k.table, func(e *WriteRow) *map[string]string { return &e.Attrs })
		seq    = kandra.MustFieldOf(k.table, func(e *WriteRow) *int64 { return &e.Seq })
	)
	ctx := context.Background()
	hm := &wmarsh[I]{m: &marshaller[I]{w: w}, unset: d.unset}
	// The call's values, the same for both contenders (variables, as a
	// program's are: boxing a constant costs nothing).
	key := &WriteRow{Part: matrixPart, Seq: 7}
	newTitle, wasDone, tag, label, ak, av := "a new title", false, "urgent", "blue", "colour", "green"
	from, to := int64(10), int64(20)
	sparse := newSparseRow()
	applied := func(out kstore.Outcome[WriteRow], err error) error {
		if err == nil && !out.Applied {
			err = errors.New("not applied")
		}
		return err
	}
	appliedH := func(ok bool, err error) error {
		if err == nil && !ok {
			err = errors.New("not applied")
		}
		return err
	}
	type opDef struct {
		shape, op string
		r         interface{ open() error }
		close     func() error
		k, h      func() error
	}
	defs := []opDef{
		{"write", "patch-upsert", k, k.close,
			func() error {
				_, err := k.repo.Patch(ctx, key, kstore.Set(title, newTitle), kstore.Upsert())
				return err
			},
			func() error { return h.patchUpsert(hm, st, key, newTitle) }},
		{"write", "patch-if", k, k.close,
			func() error {
				return applied(k.repo.Patch(ctx, key, kstore.Set(title, newTitle).If(kstore.Eq(done, wasDone))))
			},
			func() error { return appliedH(h.patchIf(hm, st, key, newTitle, wasDone)) }},
		{"write", "patch-exists", k, k.close,
			func() error { return applied(k.repo.Patch(ctx, key, kstore.Set(title, newTitle))) },
			func() error { return appliedH(h.patchExists(hm, st, key, newTitle)) }},
		{"write", "append", k, k.close,
			func() error {
				_, err := k.repo.Patch(ctx, key, kstore.Append(tags, tag), kstore.Upsert())
				return err
			},
			func() error { return h.appendList(hm, st, key, tag) }},
		{"write", "add-to-set", k, k.close,
			func() error {
				_, err := k.repo.Patch(ctx, key, kstore.Add(labels, label), kstore.Upsert())
				return err
			},
			func() error { return h.addSet(hm, st, key, label) }},
		{"write", "put-map-entry", k, k.close,
			func() error {
				_, err := k.repo.Patch(ctx, key, kstore.Put(attrs, ak, av), kstore.Upsert())
				return err
			},
			func() error { return h.putMap(hm, st, key, ak, av) }},
		{"write", "delete-range", k, k.close,
			func() error {
				return k.repo.DeleteRange(ctx, key, kstore.From(seq, from, true), kstore.To(seq, to, false))
			},
			func() error { return h.deleteRange(hm, st, key, from, to) }},
		{"sparse", "save-omit-nulls", ks, ks.close,
			func() error { return ks.repo.Save(ctx, sparse, kstore.OmitNulls()) },
			func() error { return h.savePartly(hm, st, sparse) }},
		{"sparse", "save-omit-nulls-unset", ks, ks.close,
			func() error { return ks.repo.Save(ctx, sparse, kstore.OmitNulls()) },
			func() error { return h.saveUnset(hm, st, sparse) }},
	}
	var cells []*cell
	for _, def := range defs {
		cd := cellDef[I]{adapter: w.name, shape: def.shape, op: def.op, target: 1.1,
			d: d.clientDriver, open: def.r.open, close: def.close, kop: def.k,
			hm: hm.m, hand: &hand[I]{}, hop: def.h}
		c := newCell(cd)
		if def.op == "save-omit-nulls" {
			c.agree = func() error { return agreePartly(cd, st.sparsePartly.cql) }
		}
		cells = append(cells, c)
	}
	return cells, nil
}

// writeCellSets is the write cells of both adapters.
func writeCellSets() ([]*cell, error) {
	a, err := writeCells(gocqlWire, (*kgocql.Codec)(nil), writeHandGocql)
	if err != nil {
		return nil, fmt.Errorf("kgocql: %w", err)
	}
	b, err := writeCells(v2Wire, (*kgocqlv2.Codec)(nil), writeHandV2)
	if err != nil {
		return nil, fmt.Errorf("kgocqlv2: %w", err)
	}
	return append(a, b...), nil
}

// recordBoth runs kandra's operation once on a fresh store and the
// hand-written one once, and returns what each marshalled.
func recordBoth[I any](def cellDef[I]) (k, h map[string][][][]byte, err error) {
	def.d.m.record = map[string][][][]byte{}
	defer func() { def.d.m.record = nil }()
	if err := def.open(); err != nil {
		return nil, nil, err
	}
	if err := errors.Join(def.kop(), def.close()); err != nil {
		return nil, nil, fmt.Errorf("kandra: %w", err)
	}
	def.hm.record = map[string][][][]byte{}
	defer func() { def.hm.record = nil }()
	if err := def.hop(); err != nil {
		return nil, nil, fmt.Errorf("hand-written: %w", err)
	}
	return def.d.m.record, def.hm.record, nil
}

// agreePartly is the check of the save-omit-nulls cell, whose contenders
// send different statements by design: kandra the table's INSERT of every
// column with the null ones unset, the hand-written code an INSERT of the
// other columns (partly). The columns kandra does not leave unset must be
// partly's, in its order, with the same bytes.
func agreePartly[I any](def cellDef[I], partly string) error {
	k, h, err := recordBoth(def)
	if err != nil {
		return err
	}
	if len(k) != 1 || len(h) != 1 || len(h[partly]) != 1 {
		return fmt.Errorf("kandra sent %v, the hand-written code %v: want one INSERT each", k, h)
	}
	var cql string
	var row [][]byte
	for c, rows := range k {
		if len(rows) != 1 {
			return fmt.Errorf("kandra sent %s %d times", c, len(rows))
		}
		cql, row = c, rows[0]
	}
	all, ok := insertColumns(cql)
	want, ok2 := insertColumns(partly)
	if !ok || !ok2 || len(all) != len(row) {
		return fmt.Errorf("kandra sent %q, the hand-written code %q", cql, partly)
	}
	var sent []string
	var vals [][]byte
	for i, b := range row {
		if !slices.Equal(b, unsetMark) {
			sent, vals = append(sent, all[i]), append(vals, b)
		}
	}
	if !slices.Equal(sent, want) {
		return fmt.Errorf("kandra sends columns %v (the others unset), the hand-written code %v", sent, want)
	}
	if !reflect.DeepEqual(vals, h[partly][0]) {
		return fmt.Errorf("the contenders marshal different values:\nkandra: %v\nhand-written: %v", vals, h[partly][0])
	}
	return nil
}

// insertColumns is the column list of an INSERT's text.
func insertColumns(cql string) ([]string, bool) {
	_, rest, ok := strings.Cut(cql, " (")
	if !ok || !strings.HasPrefix(cql, "INSERT INTO ") {
		return nil, false
	}
	list, _, ok := strings.Cut(rest, ")")
	return strings.Split(list, ", "), ok
}

// TestWritesAgree checks that every write cell compares like with like:
// kandra and the hand-written code send the same statement text with the
// same bytes (the unset values at the same markers), but for
// save-omit-nulls, where kandra's unset columns are the ones the
// hand-written INSERT leaves out (agreePartly).
func TestWritesAgree(t *testing.T) {
	cells, err := writeCellSets()
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 2*9 {
		t.Fatalf("%d cells", len(cells))
	}
	for _, c := range cells {
		if err := c.agree(); err != nil {
			t.Errorf("%s: %v", c.name(), err)
		}
	}
}

// TestWrites measures the write cells with the matrix's method (KANDRA_MATRIX=1;
// -matrix.rounds, -matrix.block and -matrix.run as for TestMatrix), one
// line per cell, and with -writes.out the markdown table.
func TestWrites(t *testing.T) {
	measureTable(t, "write", writeCellSets, *writesOut)
}

// BenchmarkWrites runs every write cell's contenders as the testing
// package's benchmarks (BenchmarkWrites/<adapter>/<shape>/<op>/<contender>),
// at GOMAXPROCS=1, for profiles and benchstat; the figures to publish are
// TestWrites'.
func BenchmarkWrites(b *testing.B) {
	cells, err := writeCellSets()
	if err != nil {
		b.Fatal(err)
	}
	benchCells(b, cells)
}
