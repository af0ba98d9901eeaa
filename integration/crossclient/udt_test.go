package crossclient

// CrossClientValues for user-defined types and vectors (see the comment at
// the top of crossclient_test.go): the types, their canonical forms, a table
// with user-defined types in its key, and a type that gains a field under
// ALTER TYPE ... ADD in a scratch keyspace.

import (
	"context"
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/cqlorder"
	"github.com/kandra-go/kandra/internal/reflectx"
	"github.com/kandra-go/kandra/kstore"
)

// XcPoint is a user-defined type of two floats: in a set, a map's values,
// nested in XcCard, and in a partition key.
type XcPoint struct {
	X float32
	Y float64
}

// XcOpt is a user-defined type whose fields may all be null; its first
// field is named pass, a Python keyword, which the Python driver's
// namedtuple cannot take as a field name.
type XcOpt struct {
	A *string `kandra:"pass"`
	B *int64
	C *XcPoint
}

// XcCard is a user-defined type holding kandra's value rules: a timestamp,
// an inet, a net.IP, a uuid, a blob, a duration, a varint, floats, frozen
// collections (a list, a set, a map, a list of timestamps, a set of inet),
// a nested type as a value, a pointer and a list, a null field, and a
// field left out.
type XcCard struct {
	Name   string
	Note   *string
	At     time.Time
	Addr   netip.Addr
	IP     net.IP
	ID     uuid.UUID
	Bytes  []byte
	Wait   time.Duration
	Big    *big.Int
	F32    float32
	F64    float64
	Tags   []string
	Set    map[string]struct{}
	Counts map[string]int32
	Stamps []time.Time
	Addrs  map[netip.Addr]struct{}
	Pin    XcPoint
	PinPtr *XcPoint
	Pins   []XcPoint
	Left   string `kandra:"-"` // not stored
}

// XcLeg is a user-defined type in a descending clustering key, with a
// set inside (kept in the order sent there) and a null field.
type XcLeg struct {
	Seq  int32
	Tags map[string]struct{}
	At   *XcPoint
	When time.Time
}

// CrossUDTKey is partitioned by a string and a user-defined type and
// clustered by another, newest first.
type CrossUDTKey struct {
	K   string
	Pt  XcPoint
	Leg XcLeg
	Opt *XcOpt
}

// Describe implements kandra's description.
func (k *CrossUDTKey) Describe(s *kandra.Schema[CrossUDTKey]) {
	s.Table("cross_udt_keys")
	kandra.Bind(s, &k.K, kandra.PartitionKey(0))
	kandra.Bind(s, &k.Pt, kandra.PartitionKey(1))
	kandra.Bind(s, &k.Leg, kandra.ClusteringKey(0, kandra.ClusteringDesc))
}

// XcBadge and XcBadgeV2 are one user-defined type, xc_badge, before and
// after Python adds the field extra (ALTER TYPE ... ADD) in the scratch
// keyspace of crossUDTEvolve.
type (
	XcBadge struct {
		Name  string
		Score *int32
	}
	XcBadgeV2 struct {
		Name  string
		Score *int32
		Extra *string
	}
)

// UDTName names both versions' type.
func (XcBadge) UDTName() string { return "xc_badge" }

// UDTName names both versions' type.
func (XcBadgeV2) UDTName() string { return "xc_badge" }

// CrossEvolve and CrossEvolveV2 are one table before and after xc_badge
// gains the field extra: a column of its own, a Frozen one and a list.
type (
	CrossEvolve struct {
		K    string
		Main XcBadge
		Fro  XcBadge
		List []XcBadge
	}
	CrossEvolveV2 struct {
		K    string
		Main XcBadgeV2
		Fro  XcBadgeV2
		List []XcBadgeV2
	}
)

// Describe implements kandra's description.
func (e *CrossEvolve) Describe(s *kandra.Schema[CrossEvolve]) {
	s.Table("cross_evolve")
	kandra.Bind(s, &e.K, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Fro, kandra.Frozen())
}

// Describe implements kandra's description.
func (e *CrossEvolveV2) Describe(s *kandra.Schema[CrossEvolveV2]) {
	s.Table("cross_evolve")
	kandra.Bind(s, &e.K, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Fro, kandra.Frozen())
}

var (
	crossUDTKeys  = kandra.MustRegister[CrossUDTKey]()
	crossEvolve   = kandra.MustRegister[CrossEvolve]()
	crossEvolveV2 = kandra.MustRegister[CrossEvolveV2]()
)

// xcWriteUDT is xcWrite for a struct stored as the user-defined type ct:
// a JSON object of field name → the field's canonical form. Each field is
// as a column's own value (nil, the zero Addr, a nil []byte or net.IP are
// null), except that its collections are frozen: an empty one is a value,
// []. The serialized form is the type's, a null field of length -1.
func xcWriteUDT(v reflect.Value, ct cqlorder.Type) (any, []byte, string) {
	if ct.Name != "udt" {
		panic(fmt.Sprintf("crossclient: a struct %s as %s", v.Type(), ct))
	}
	idx := reflectx.StoredFields(v.Type())
	if len(idx) != len(ct.Args) {
		panic(fmt.Sprintf("crossclient: %s has %d stored fields, %s %d", v.Type(), len(idx), ct, len(ct.Args)))
	}
	obj := make(map[string]any, len(idx))
	wires := make([][]byte, len(idx))
	for i, j := range idx {
		c, w, r := xcWriteField(v.Field(j), ct.Args[i])
		if r != "" {
			return nil, nil, "field " + ct.Fields[i] + ": " + r
		}
		obj[ct.Fields[i]] = c
		if c != nil && w == nil {
			w = []byte{}
		}
		wires[i] = w
	}
	return obj, cqlorder.AppendUDT(nil, wires), ""
}

// xcWriteField is the canonical form of a field of a user-defined type.
func xcWriteField(v reflect.Value, ct cqlorder.Type) (any, []byte, string) {
	t := v.Type()
	isColl := (t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8) || t.Kind() == reflect.Map
	switch {
	case isColl && v.IsNil():
		return nil, nil, ""
	case isColl:
		return xcWrite(v, ct, false) // frozen: empty is a value
	}
	return xcWrite(v, ct, true)
}

// xcReadUDT is xcRead for a struct from the canonical object c of the
// user-defined type ct: each field by name; a field c lacks (a value
// stored before the type gained it) reads as null, and a field of c the
// struct lacks is skipped.
func xcReadUDT(t reflect.Type, ct cqlorder.Type, c any) (reflect.Value, string, error) {
	m, ok := c.(map[string]any)
	if !ok || ct.Name != "udt" {
		return reflect.Value{}, "", fmt.Errorf("want an object of %s, got %T %v", ct, c, c)
	}
	idx := reflectx.StoredFields(t)
	if len(idx) != len(ct.Args) {
		return reflect.Value{}, "", fmt.Errorf("%s has %d stored fields, %s %d", t, len(idx), ct, len(ct.Args))
	}
	out := reflect.New(t).Elem()
	for i, j := range idx {
		x, r, err := xcRead(t.Field(j).Type, ct.Args[i], m[ct.Fields[i]], true)
		if r != "" || err != nil {
			if r != "" {
				r = "field " + ct.Fields[i] + ": " + r
			}
			return reflect.Value{}, r, err
		}
		out.Field(j).Set(x)
	}
	return out, "", nil
}

// xcAllNull reports whether c is the canonical object of a user-defined
// type value whose every field is null.
func xcAllNull(c any) bool {
	m, ok := c.(map[string]any)
	if !ok || len(m) == 0 {
		return false
	}
	for _, f := range m {
		if f != nil {
			return false
		}
	}
	return true
}

// xcNullUDTColumn reports whether column c is a user-defined type of its
// own that is not frozen: the server keeps its fields as cells, and a
// value whose every field is null as none (it reads back null).
func xcNullUDTColumn(c xcCol) bool {
	return c.typ.Name == "udt" && !c.c.IsFrozen()
}

// The values of cross_udt_keys, written by Go (a-) and again by Python
// (b-): one row a partition.
var xcUDTKeyRows = []*CrossUDTKey{
	{K: "a-u1", Pt: XcPoint{X: f32(0x80000000), Y: 1}, Leg: XcLeg{Seq: 1, Tags: map[string]struct{}{"b": {}, "a": {}, "é": {}, "": {}}, When: xcPre}},
	{K: "a-u2", Pt: XcPoint{X: f32(0x7f800000), Y: f64(0x8000000000000000)}, Leg: XcLeg{Seq: -1, At: &XcPoint{X: 1, Y: -1}, When: xcFar}, Opt: &XcOpt{A: ptr("opt")}},
	{K: "a-u3", Pt: XcPoint{}, Leg: XcLeg{Tags: map[string]struct{}{}}, Opt: &XcOpt{C: &XcPoint{}}},
}

// goUDTKeys saves xcUDTKeyRows; Python reads each by its partition key.
func (x *crossRun) goUDTKeys() {
	for _, e := range xcUDTKeyRows {
		want, refused := canonOf(crossUDTKeys, x.ucols, e)
		if len(refused) > 0 {
			x.t.Fatalf("scenario bug: %s: %v", e.K, refused)
		}
		err := x.udtKeys.Save(ctx, e)
		x.op(map[string]any{"op": "select", "table": "cross_udt_keys", "columns": xcTypes(x.ucols), "where": xcWhere(x.ucols, want[0], want[1])},
			func(res pyResult) { x.compareRow("go→py", "cross_udt_keys", e.K, x.ucols, want, res, err) })
	}
}

// pyUDTKeys: Python writes the rows of goUDTKeys again (sets as lists in
// the server's order: a descending clustering column keeps the order
// sent); List by the partition key through the adapter reads them, and
// Get by the full key finds each.
func (x *crossRun) pyUDTKeys() {
	for _, e := range xcUDTKeyRows {
		canon, _ := canonOf(crossUDTKeys, x.ucols, e)
		key := "b-" + strings.TrimPrefix(e.K, "a-")
		canon[0] = key
		var insErr string
		var limits map[string]string
		x.op(map[string]any{"op": "insert", "table": "cross_udt_keys", "columns": xcTypes(x.ucols), "values": canon, "ordered_sets": true},
			func(res pyResult) { insErr, limits = res.Error, res.ClientLimit })
		x.pyControlKeys("cross_udt_keys", x.ucols, canon, 2)
		x.after = append(x.after, func() {
			want := make([]reflect.Value, len(x.ucols))
			for i, c := range x.ucols {
				var r string
				var err error
				if want[i], r, err = xcRead(c.c.GoType(), c.typ, canon[i], true); r != "" || err != nil {
					x.t.Fatalf("scenario bug: %s: %q %v", key, r, err)
				}
			}
			k := &CrossUDTKey{K: key, Pt: want[1].Interface().(XcPoint)}
			all, err := x.udtKeys.List(ctx, k).All()
			if err == nil && len(all) != 1 {
				err = fmt.Errorf("%d rows", len(all))
			}
			for i, c := range x.ucols {
				where := "cross_udt_keys[" + key + "]." + c.c.Name()
				switch {
				case insErr != "":
					x.check("py→go", where, false, xcShow(want[i]), "Python insert: "+insErr, limits[c.c.CQLName()])
				case err != nil:
					x.check("py→go", where, false, xcShow(want[i]), "List: "+err.Error(), limits[c.c.CQLName()])
				default:
					v := reflect.ValueOf(crossUDTKeys.Pointers(all[0], nil)[i]).Elem()
					x.check("py→go", where, xcEqual(want[i], v), xcShow(want[i]), xcShow(v), limits[c.c.CQLName()])
				}
			}
			k.Leg = want[2].Interface().(XcLeg)
			got, err := x.udtKeys.Get(ctx, k)
			g := "found"
			if err != nil {
				g = "Get: " + err.Error()
			} else if got == nil {
				g = "nil"
			}
			x.check("py→go", "cross_udt_keys["+key+"] (Get by the full key)", err == nil && got != nil, "found", g, "")
		})
	}
}

// evolveRun is the scratch keyspace of crossUDTEvolve.
type evolveRun struct {
	ks          string
	v1          *kstore.Repo[CrossEvolve]
	v2          *kstore.Repo[CrossEvolveV2]
	cols, cols2 []xcCol
}

// crossUDTEvolve follows xc_badge through ALTER TYPE ... ADD run by
// Python, in a keyspace of its own (the test's keeps its types as the
// model has them): Go (a-) and Python (p-1) write values of two fields;
// Python adds the field extra, and writes p-2 with it. Python then reads
// every row with the three fields (extra null where it was not written:
// a frozen value stored before the ALTER is shorter than the type, which
// the driver reads as null), Get through the adapter with the old struct
// (XcBadge) skips extra, and with the new one (XcBadgeV2) reads it, null
// where the stored value is shorter.
func (x *crossRun) crossUDTEvolve() {
	t, h := x.t, x.h
	spec := kandra.KeyspaceSpec{Name: h.ks + "_xe", Replication: kandra.NetworkTopologyStrategy(map[string]int{"datacenter1": 1}), Targets: kandra.Cassandra5}
	k1, err := kandra.NewKeyspace(spec, crossEvolve)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := kandra.NewKeyspace(spec, crossEvolveV2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.n.Exec(context.Background(), "DROP KEYSPACE IF EXISTS "+spec.Name) })
	for _, st := range k1.Statements() {
		if err := h.n.Exec(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	rt1, err := kstore.New(h.d, k1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt1.Close(context.Background()) })
	rt2, err := kstore.New(h.d, k2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt2.Close(context.Background()) })
	e := &evolveRun{ks: spec.Name, v1: kstore.MustNewRepo(rt1, crossEvolve), v2: kstore.MustNewRepo(rt2, crossEvolveV2),
		cols: xcColumns(t, crossEvolve.Schema().Columns()), cols2: xcColumns(t, crossEvolveV2.Schema().Columns())}

	// Before the ALTER: Go's row, and Python's, of two fields.
	goRow := &CrossEvolve{K: "a-1", Main: XcBadge{Name: "go", Score: ptr(int32(-7))}, Fro: XcBadge{Name: "go frozen"},
		List: []XcBadge{{Name: "x", Score: ptr(int32(1))}, {}}}
	goCanon, refused := canonOf(crossEvolve, e.cols, goRow)
	if len(refused) > 0 {
		t.Fatalf("scenario bug: %v", refused)
	}
	goErr := e.v1.Save(ctx, goRow)
	pyRow := &CrossEvolve{K: "p-1", Main: XcBadge{Name: "py", Score: ptr(int32(3))}, Fro: XcBadge{Score: ptr(int32(4))},
		List: []XcBadge{{Name: "y"}}}
	pyCanon, _ := canonOf(crossEvolve, e.cols, pyRow)
	var insErr []string
	collect := func(res pyResult) {
		if res.Error != "" {
			insErr = append(insErr, res.Error)
		}
	}
	x.op(map[string]any{"op": "insert", "keyspace": e.ks, "table": "cross_evolve", "columns": xcTypes(e.cols), "values": pyCanon}, collect)
	x.op(map[string]any{"op": "exec", "cql": "ALTER TYPE " + e.ks + ".xc_badge ADD extra text"}, collect)

	// After: the type has three fields, as Python sends and reads them.
	types3 := xcTypes(e.cols2)
	var with func(c any, extra any) any
	with = func(c any, extra any) any { // c's badge objects with extra
		switch v := c.(type) {
		case map[string]any:
			m := map[string]any{"extra": extra}
			for k, f := range v {
				m[k] = f
			}
			return m
		case []any:
			out := make([]any, len(v))
			for i, b := range v {
				out[i] = with(b, extra)
			}
			return out
		}
		return c
	}
	withAll := func(row []any, extra any) []any {
		out := slices.Clone(row)
		for i := 1; i < len(out); i++ {
			out[i] = normCanon(with(out[i], extra))
		}
		return out
	}
	p2 := withAll(pyCanon, "py only")
	p2[0] = "p-2"
	x.op(map[string]any{"op": "insert", "keyspace": e.ks, "table": "cross_evolve", "columns": types3, "values": p2, "fresh": true}, collect)
	rows := map[string][]any{"a-1": withAll(goCanon, nil), "p-1": withAll(pyCanon, nil), "p-2": p2}
	for _, key := range []string{"a-1", "p-1", "p-2"} {
		want := rows[key]
		x.op(map[string]any{"op": "select", "keyspace": e.ks, "table": "cross_evolve", "columns": types3, "where": xcWhere(e.cols2, key)},
			func(res pyResult) {
				dir := "py→py"
				if key == "a-1" {
					dir = "go→py"
				}
				var err error
				if key == "a-1" {
					err = goErr
				}
				x.compareRow(dir, "cross_evolve(after ALTER TYPE ADD)", key, e.cols2, want, res, err)
			})
	}
	x.after = append(x.after, func() {
		for _, key := range []string{"a-1", "p-1", "p-2"} {
			canon := rows[key]
			got1, err1 := e.v1.Get(ctx, &CrossEvolve{K: key})
			got2, err2 := e.v2.Get(ctx, &CrossEvolveV2{K: key})
			for i := range e.cols {
				for _, r := range []struct {
					ver  string
					col  xcCol
					err  error
					ptrs func() []any
				}{
					{"XcBadge", e.cols[i], err1, func() []any { return crossEvolve.Pointers(got1, nil) }},
					{"XcBadgeV2", e.cols2[i], err2, func() []any { return crossEvolveV2.Pointers(got2, nil) }},
				} {
					where := "cross_evolve[" + key + "]." + r.col.c.Name() + " as " + r.ver
					want, refused, werr := xcRead(r.col.c.GoType(), r.col.typ, canon[i], true)
					if refused != "" || werr != nil {
						t.Fatalf("scenario bug: %s: %q %v", where, refused, werr)
					}
					dir := "py→go"
					if key == "a-1" {
						dir = "go→go"
					}
					switch {
					case len(insErr) > 0:
						x.check(dir, where, false, xcShow(want), "Python: "+strings.Join(insErr, "; "), "")
					case r.err != nil:
						x.check(dir, where, false, xcShow(want), "Get: "+r.err.Error(), "")
					default:
						v := reflect.ValueOf(r.ptrs()[i]).Elem()
						x.check(dir, where, xcEqual(want, v), xcShow(want), xcShow(v), "")
					}
				}
			}
		}
	})
}
