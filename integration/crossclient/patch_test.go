package crossclient

// CrossClientValues for partial writes (see the comment at the top of
// crossclient_test.go), the directions
//
//	patch go→py    Repo.Patch through the adapter, each element change
//	               (Set, Clear, Append, Prepend, SetAt, RemoveValues;
//	               Add, Remove; Put, PutAll, RemoveKeys) on a column whose
//	               elements or keys the rules convert, with values at the
//	               edges, in three ways: with kstore.Upsert on a saved
//	               row (u), with the default guard (IF EXISTS) on a saved
//	               row (g), and with Upsert on a key without a row (n; not
//	               SetAt, which the server refuses on a missing list).
//	               The expected value of the column is computed in Go: the
//	               saved entity and the change's values, each as it reads
//	               back once stored by the rules (their round trip through
//	               the canonical form: a time floored to its millisecond
//	               or day, ...), the change applied (a set's and a map's
//	               keys equal by their stored form, a list's values
//	               removed by it); Python reads the row by its key and
//	               must print the canonical form of that value, and the
//	               other columns as saved (one check for them).
//	patch refuse   a change holding a value the rules refuse (as an
//	               element, a key, a value of a map, or the column's own):
//	               Patch fails with a *ValueError naming the column, and
//	               Python reads the row as it was.
//	patch cond     a conditional Patch or DeleteIf on converted columns
//	               (Eq and In on a timestamp, Eq on an inet and a
//	               duration, EqAt on a map<text, timestamp> and a
//	               map<date, text>, Eq on a whole map<uuid, timestamp>),
//	               with the guard: whether it applied, as the rules say of
//	               the stored values (a time equal to the millisecond, an
//	               IPv4-mapped inet not equal to its IPv4, a date key by
//	               its day), and the row Python reads after it. EqAt on
//	               the map<uuid, timestamp> meets a bug of Cassandra 5.0.8
//	               (xpServerBug): the write fails with the server's error,
//	               and Python reads the row as it was.
//	patch current  of a conditional write that did not apply: each of its
//	               conditions' columns in Outcome.Current (the row the
//	               server returned, scanned by the adapter) is, in Go, what
//	               the rules read the value Python reads from the row as.
//
// The elements, keys and values of a change are bound on their own
// (adapter.ParamElement, ParamMapKey, ParamKeys, ParamValue), so their
// rules are those of a collection's parts, not of a column's own value:
// the zero Addr, an IPv4-mapped address and the zero TIMEUUID are
// refused, and a nil []byte is the empty value.

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/cqlorder"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
)

// CrossPatch has collection columns whose elements and keys the rules
// convert, and columns of converted types of their own.
type CrossPatch struct {
	K        string
	Stamps   []time.Time             // list<timestamp>
	IDs      map[uuid.UUID]struct{}  // set<uuid>
	Addrs    map[netip.Addr]struct{} // set<inet>
	TimeIDs  map[uuid.UUID]struct{}  // set<timeuuid>
	Days     map[time.Time]string    // map<date, text>
	Seen     map[uuid.UUID]time.Time // map<uuid, timestamp>
	Until    map[string]time.Time    // map<text, timestamp>
	Cards    []XcCard                // list<frozen<xc_card>>
	TimeList []uuid.UUID             // list<timeuuid>
	Hosts    map[string]netip.Addr   // map<text, inet>
	ByAddr   map[netip.Addr]string   // map<inet, text>
	Blobs    map[string][]byte       // map<text, blob>
	Marks    map[At]IPAddr           // map<timestamp, inet>, named types
	TS       time.Time
	Addr     netip.Addr
	Dur      time.Duration
}

// Describe implements kandra's description.
func (p *CrossPatch) Describe(s *kandra.Schema[CrossPatch]) {
	s.Table("cross_patches")
	kandra.Bind(s, &p.K, kandra.PartitionKey(0))
	kandra.Bind(s, &p.TimeIDs, kandra.AsType(kandra.SetOf(kandra.CQLTimeUUID)))
	kandra.Bind(s, &p.Days, kandra.AsType(kandra.MapOf(kandra.CQLDate, kandra.CQLText)))
	kandra.Bind(s, &p.TimeList, kandra.AsType(kandra.ListOf(kandra.CQLTimeUUID)))
}

var crossPatches = kandra.MustRegister[CrossPatch]()

// The fields of CrossPatch, for the changes and conditions.
var (
	xpStamps   = kandra.MustFieldOf(crossPatches, func(p *CrossPatch) *[]time.Time { return &p.Stamps })
	xpIDs      = kandra.MustFieldOf(crossPatches, func(p *CrossPatch) *map[uuid.UUID]struct{} { return &p.IDs })
	xpAddrs    = kandra.MustFieldOf(crossPatches, func(p *CrossPatch) *map[netip.Addr]struct{} { return &p.Addrs })
	xpTimeIDs  = kandra.MustFieldOf(crossPatches, func(p *CrossPatch) *map[uuid.UUID]struct{} { return &p.TimeIDs })
	xpDays     = kandra.MustFieldOf(crossPatches, func(p *CrossPatch) *map[time.Time]string { return &p.Days })
	xpSeen     = kandra.MustFieldOf(crossPatches, func(p *CrossPatch) *map[uuid.UUID]time.Time { return &p.Seen })
	xpUntil    = kandra.MustFieldOf(crossPatches, func(p *CrossPatch) *map[string]time.Time { return &p.Until })
	xpCards    = kandra.MustFieldOf(crossPatches, func(p *CrossPatch) *[]XcCard { return &p.Cards })
	xpTimeList = kandra.MustFieldOf(crossPatches, func(p *CrossPatch) *[]uuid.UUID { return &p.TimeList })
	xpHosts    = kandra.MustFieldOf(crossPatches, func(p *CrossPatch) *map[string]netip.Addr { return &p.Hosts })
	xpByAddr   = kandra.MustFieldOf(crossPatches, func(p *CrossPatch) *map[netip.Addr]string { return &p.ByAddr })
	xpBlobs    = kandra.MustFieldOf(crossPatches, func(p *CrossPatch) *map[string][]byte { return &p.Blobs })
	xpMarks    = kandra.MustFieldOf(crossPatches, func(p *CrossPatch) *map[At]IPAddr { return &p.Marks })
	xpTS       = kandra.MustFieldOf(crossPatches, func(p *CrossPatch) *time.Time { return &p.TS })
	xpAddr     = kandra.MustFieldOf(crossPatches, func(p *CrossPatch) *netip.Addr { return &p.Addr })
	xpDur      = kandra.MustFieldOf(crossPatches, func(p *CrossPatch) *time.Duration { return &p.Dur })
)

// xpSaved is the row every change starts from (but the n way): values at
// the edges in every column.
func xpSaved(k string) *CrossPatch {
	return &CrossPatch{
		K:        k,
		Stamps:   []time.Time{{}, xcPre, xcFar},
		IDs:      map[uuid.UUID]struct{}{xcV4: {}, uuid.Nil: {}},
		Addrs:    map[netip.Addr]struct{}{xcA4: {}, xcA6: {}},
		TimeIDs:  map[uuid.UUID]struct{}{xcV1a: {}},
		Days:     map[time.Time]string{xcPre: "pre", {}: "zero"},
		Seen:     map[uuid.UUID]time.Time{xcV4: xcPre, uuid.Nil: {}, xcUMax: xcFar},
		Until:    map[string]time.Time{"pre": xcPre, "zero": {}, "far": xcFar, "max": xcMaxMs, "min": xcMinMs},
		Cards:    []XcCard{xcCardFull, xcCardEmpty},
		TimeList: []uuid.UUID{xcV1a, xcV1b},
		Hosts:    map[string]netip.Addr{"a": xcA4, "b": xcA6},
		ByAddr:   map[netip.Addr]string{xcA4: "a", xcALoop: "loop"},
		Blobs:    map[string][]byte{"x": {1, 2}, "e": {}},
		Marks:    map[At]IPAddr{At(xcPre): IPAddr(xcA4)},
		TS:       xcPre,
		Addr:     xcA4in6,
		Dur:      -1,
	}
}

// xpPart is the part of a column a value is: the column's own value, an
// element (of a list or a set, or a map's value), or a map's key.
type xpPart uint8

const (
	xpWhole xpPart = iota
	xpElem
	xpKey
)

// xpNorm is v, a value of part of column col, as it reads back once
// stored by the rules (xcWrite, then xcRead), or why the rules refuse it.
func xpNorm(col *kandra.ColumnSchema, part xpPart, v reflect.Value) (reflect.Value, string) {
	ct, err := cqlorder.Of(col.Type())
	if err != nil {
		panic(err)
	}
	pt := ct
	switch {
	case part == xpKey:
		pt = ct.Args[0]
	case part == xpElem && ct.Name == "map":
		pt = ct.Args[1]
	case part == xpElem:
		pt = ct.Args[0]
	}
	c, _, r := xcWrite(v, pt, part == xpWhole)
	if r != "" {
		return reflect.Value{}, r
	}
	n, r, err := xcRead(v.Type(), pt, normCanon(c), part == xpWhole)
	if r != "" || err != nil {
		panic(fmt.Sprintf("crossclient: %s %v reads back refused (%q) or malformed (%v)", col.Name(), xcShow(v), r, err))
	}
	return n, ""
}

// xpNorms is xpNorm of each of vs; refused names the first refused.
func xpNorms[E any](col *kandra.ColumnSchema, part xpPart, vs []E) (out []E, refused string) {
	for _, v := range vs {
		n, r := xpNorm(col, part, reflect.ValueOf(&v).Elem())
		if r != "" {
			return nil, xcShow(reflect.ValueOf(&v).Elem()) + ": " + r
		}
		out = append(out, n.Interface().(E))
	}
	return out, ""
}

// xpNormEntity is e with each column as it reads back once stored.
func xpNormEntity(e *CrossPatch) *CrossPatch {
	out := *e
	cols := crossPatches.Schema().Columns()
	for i, p := range crossPatches.Pointers(&out, nil) {
		v := reflect.ValueOf(p).Elem()
		col := cols[i]
		n, r := xpNorm(col, xpWhole, v)
		if r != "" {
			panic("crossclient: scenario bug: " + col.Name() + ": " + r)
		}
		v.Set(n)
	}
	return &out
}

// xpChange is one change of a Patch, the expected effect of it on an
// entity whose columns read as stored (xpNormEntity), and why the rules
// refuse a value of it ("" if they do not).
type xpChange struct {
	p       kstore.Patch[CrossPatch]
	col     *kandra.ColumnSchema
	what    string
	apply   func(e *CrossPatch)
	refused string
	index   bool // SetAt: the server refuses it on a missing list
	null    bool // Clear: the column is null (the zero time.Time is a value)
}

func xpSet[V any](f kandra.Field[CrossPatch, V], v V) xpChange {
	n, r := xpNorm(f.Column(), xpWhole, reflect.ValueOf(&v).Elem())
	return xpChange{p: kstore.Set(f, v), col: f.Column(), what: "Set(" + xcShow(reflect.ValueOf(&v).Elem()) + ")", refused: r,
		apply: func(e *CrossPatch) { reflect.ValueOf(f.Pointer(e)).Elem().Set(n) }}
}

func xpClear[V any](f kandra.Field[CrossPatch, V]) xpChange {
	return xpChange{p: kstore.Clear(f), col: f.Column(), what: "Clear()", null: true, apply: func(e *CrossPatch) { var z V; f.Set(e, z) }}
}

func xpShowAll[E any](vs []E) string {
	parts := make([]string, len(vs))
	for i := range vs {
		parts[i] = xcShow(reflect.ValueOf(&vs[i]).Elem())
	}
	return strings.Join(parts, ", ")
}

func xpAppend[L ~[]E, E any](f kandra.Field[CrossPatch, L], vs ...E) xpChange {
	ns, r := xpNorms(f.Column(), xpElem, vs)
	return xpChange{p: kstore.Append(f, vs...), col: f.Column(), what: "Append(" + xpShowAll(vs) + ")", refused: r,
		apply: func(e *CrossPatch) { f.Set(e, append(slices.Clone(f.Get(e)), ns...)) }}
}

func xpPrepend[L ~[]E, E any](f kandra.Field[CrossPatch, L], vs ...E) xpChange {
	ns, r := xpNorms(f.Column(), xpElem, vs)
	return xpChange{p: kstore.Prepend(f, vs...), col: f.Column(), what: "Prepend(" + xpShowAll(vs) + ")", refused: r,
		apply: func(e *CrossPatch) { f.Set(e, append(L(ns), f.Get(e)...)) }}
}

func xpSetAt[L ~[]E, E any](f kandra.Field[CrossPatch, L], i int, v E) xpChange {
	ns, r := xpNorms(f.Column(), xpElem, []E{v})
	return xpChange{p: kstore.SetAt(f, i, v), col: f.Column(), what: fmt.Sprintf("SetAt(%d, %s)", i, xpShowAll([]E{v})), refused: r, index: true,
		apply: func(e *CrossPatch) { l := slices.Clone(f.Get(e)); l[i] = ns[0]; f.Set(e, l) }}
}

// xpStoredKey is the canonical form of a part as stored, which the
// server compares: a list's values are removed by it.
func xpStoredKey(col *kandra.ColumnSchema, v reflect.Value) string {
	ct, _ := cqlorder.Of(col.Type())
	c, _, _ := xcWrite(v, ct.Args[0], false)
	return canonJSON(normCanon(c))
}

func xpRemoveValues[L ~[]E, E any](f kandra.Field[CrossPatch, L], vs ...E) xpChange {
	ns, r := xpNorms(f.Column(), xpElem, vs)
	return xpChange{p: kstore.RemoveValues(f, vs...), col: f.Column(), what: "RemoveValues(" + xpShowAll(vs) + ")", refused: r,
		apply: func(e *CrossPatch) {
			gone := map[string]bool{}
			for i := range ns {
				gone[xpStoredKey(f.Column(), reflect.ValueOf(&ns[i]).Elem())] = true
			}
			var out L
			for _, x := range f.Get(e) {
				if !gone[xpStoredKey(f.Column(), reflect.ValueOf(&x).Elem())] {
					out = append(out, x)
				}
			}
			f.Set(e, out)
		}}
}

func xpAdd[S ~map[K]struct{}, K comparable](f kandra.Field[CrossPatch, S], ks ...K) xpChange {
	ns, r := xpNorms(f.Column(), xpElem, ks)
	return xpChange{p: kstore.Add(f, ks...), col: f.Column(), what: "Add(" + xpShowAll(ks) + ")", refused: r,
		apply: func(e *CrossPatch) {
			m := maps.Clone(f.Get(e))
			if m == nil {
				m = S{}
			}
			for _, k := range ns {
				m[k] = struct{}{}
			}
			f.Set(e, m)
		}}
}

func xpRemove[S ~map[K]struct{}, K comparable](f kandra.Field[CrossPatch, S], ks ...K) xpChange {
	ns, r := xpNorms(f.Column(), xpElem, ks)
	return xpChange{p: kstore.Remove(f, ks...), col: f.Column(), what: "Remove(" + xpShowAll(ks) + ")", refused: r,
		apply: func(e *CrossPatch) {
			m := maps.Clone(f.Get(e))
			for _, k := range ns {
				delete(m, k)
			}
			f.Set(e, m)
		}}
}

func xpPut[M ~map[K]V, K comparable, V any](f kandra.Field[CrossPatch, M], k K, v V) xpChange {
	nk, r := xpNorms(f.Column(), xpKey, []K{k})
	nv, r2 := xpNorms(f.Column(), xpElem, []V{v})
	if r == "" {
		r = r2
	}
	return xpChange{p: kstore.Put(f, k, v), col: f.Column(), what: "Put(" + xpShowAll([]K{k}) + ", " + xpShowAll([]V{v}) + ")", refused: r,
		apply: func(e *CrossPatch) {
			m := maps.Clone(f.Get(e))
			if m == nil {
				m = M{}
			}
			m[nk[0]] = nv[0]
			f.Set(e, m)
		}}
}

func xpPutAll[M ~map[K]V, K comparable, V any](f kandra.Field[CrossPatch, M], in M) xpChange {
	type kv struct {
		k K
		v V
	}
	var entries []kv
	refused := ""
	var shown []string
	for k, v := range in {
		nk, r := xpNorms(f.Column(), xpKey, []K{k})
		nv, r2 := xpNorms(f.Column(), xpElem, []V{v})
		if refused == "" {
			refused = r + r2
		}
		shown = append(shown, xpShowAll([]K{k})+": "+xpShowAll([]V{v}))
		if r == "" && r2 == "" {
			entries = append(entries, kv{nk[0], nv[0]})
		}
	}
	slices.Sort(shown)
	return xpChange{p: kstore.PutAll(f, in), col: f.Column(), what: "PutAll({" + strings.Join(shown, ", ") + "})", refused: refused,
		apply: func(e *CrossPatch) {
			m := maps.Clone(f.Get(e))
			if m == nil {
				m = M{}
			}
			for _, x := range entries {
				m[x.k] = x.v
			}
			f.Set(e, m)
		}}
}

func xpRemoveKeys[M ~map[K]V, K comparable, V any](f kandra.Field[CrossPatch, M], ks ...K) xpChange {
	nk, r := xpNorms(f.Column(), xpKey, ks)
	return xpChange{p: kstore.RemoveKeys(f, ks...), col: f.Column(), what: "RemoveKeys(" + xpShowAll(ks) + ")", refused: r,
		apply: func(e *CrossPatch) {
			m := maps.Clone(f.Get(e))
			for _, k := range nk {
				delete(m, k)
			}
			f.Set(e, m)
		}}
}

// xpAt is a time 400µs after t: the same millisecond as t when t's
// sub-millisecond part is below 600µs (xcPre's is 456789ns).
func xpAt(t time.Time) time.Time { return t.Add(400 * time.Microsecond) }

// xpChanges are the element changes, each applied in the ways u, g and n.
func xpChanges() []xpChange {
	return []xpChange{
		// list<timestamp>: the zero time, pre-1970 sub-millisecond times,
		// beyond Python's datetime; values removed by their millisecond.
		xpAppend(xpStamps, xcJustBefore, time.Time{}, xcYear1Sub),
		xpPrepend(xpStamps, xcPreWhole, xcFarSub),
		xpSetAt(xpStamps, 1, xcJustAfter),
		xpSetAt(xpStamps, 2, xcMaxMs),
		xpSetAt(xpStamps, 0, xcZoned),
		xpRemoveValues(xpStamps, xpAt(xcPre)),
		xpRemoveValues(xpStamps, xcYear1Sub),
		xpSet(xpStamps, []time.Time{xcMinMs, xcZoned}),
		xpClear(xpStamps),
		xpAppend(xpStamps, xcTooLate),
		xpPrepend(xpStamps, xcJustTooEarly),
		xpSetAt(xpStamps, 0, xcTooLate),
		// set<uuid>: the zero UUID, all ones.
		xpAdd(xpIDs, uuid.Nil, xcUMax, xcV7),
		xpRemove(xpIDs, xcV4, uuid.Nil),
		xpSet(xpIDs, map[uuid.UUID]struct{}{}),
		// set<inet>: 0.0.0.0, ::, the largest of each; the refused.
		xpAdd(xpAddrs, xcA4Zero, xcA6Zero, xcA4Max, xcA6Max, xcALoop),
		xpRemove(xpAddrs, xcA4),
		xpAdd(xpAddrs, xcA4in6),
		xpAdd(xpAddrs, netip.Addr{}),
		xpAdd(xpAddrs, xcAZoned),
		xpRemove(xpAddrs, xcA4in6),
		// set<timeuuid>.
		xpAdd(xpTimeIDs, xcV1b, xcV1c),
		xpRemove(xpTimeIDs, xcV1a),
		xpAdd(xpTimeIDs, uuid.Nil),
		xpAdd(xpTimeIDs, xcV4),
		// map<date, text>: keys are days (xcJustBefore is xcPre's day,
		// xcYear1Noon the zero time's).
		xpPut(xpDays, xcJustBefore, "just before"),
		xpPut(xpDays, xcMinDay, "min"),
		xpPut(xpDays, xcZoneDay, "zone"),
		xpPutAll(xpDays, map[time.Time]string{xcMaxDayLast: "max", xcYear1Noon: "noon"}),
		xpRemoveKeys(xpDays, time.Date(1969, 12, 31, 1, 0, 0, 0, time.UTC)),
		xpPut(xpDays, xcDayTooLate, "late"),
		xpPutAll(xpDays, map[time.Time]string{xcDayTooEarly: "early"}),
		xpRemoveKeys(xpDays, xcDayTooLate),
		// map<uuid, timestamp>.
		xpPut(xpSeen, uuid.Nil, xcJustBefore),
		xpPut(xpSeen, xcV7, time.Time{}),
		xpPut(xpSeen, xcV1a, xcMaxMs),
		xpPutAll(xpSeen, map[uuid.UUID]time.Time{xcV4: xcYear1Sub, xcV1c: xcPreWhole}),
		xpRemoveKeys(xpSeen, xcV4, uuid.Nil),
		xpPut(xpSeen, xcV7, xcTooLate),
		xpPutAll(xpSeen, map[uuid.UUID]time.Time{xcV7: xcTooEarly}),
		// map<text, timestamp>.
		xpPut(xpUntil, "pre", xcJustBefore),
		xpPut(xpUntil, "new", xcYear1Sub),
		xpRemoveKeys(xpUntil, "max", "zero"),
		// list<frozen<xc_card>>: a value removed by its stored form.
		xpAppend(xpCards, xcCardEdge),
		xpPrepend(xpCards, XcCard{Name: "first", At: xcPreWhole, Addr: xcA4in6}),
		xpSetAt(xpCards, 1, XcCard{Stamps: []time.Time{{}}, Addrs: map[netip.Addr]struct{}{xcA6Zero: {}, xcA4: {}}}),
		xpRemoveValues(xpCards, xcCardFull),
		xpAppend(xpCards, XcCard{Addr: xcAZoned}),
		xpSetAt(xpCards, 0, XcCard{Name: "\xff"}),
		// list<timeuuid>.
		xpSetAt(xpTimeList, 0, xcV1c),
		xpAppend(xpTimeList, xcV1c),
		xpRemoveValues(xpTimeList, xcV1a),
		xpSetAt(xpTimeList, 1, uuid.Nil),
		xpSetAt(xpTimeList, 0, xcV4),
		xpAppend(xpTimeList, uuid.Nil),
		// map<text, inet>: a value bound on its own.
		xpPut(xpHosts, "c", xcA4Max),
		xpPut(xpHosts, "a", xcA6Zero),
		xpPutAll(xpHosts, map[string]netip.Addr{"d": xcALoop}),
		xpRemoveKeys(xpHosts, "b"),
		xpPut(xpHosts, "m", xcA4in6),
		xpPut(xpHosts, "a", netip.Addr{}),
		xpPutAll(xpHosts, map[string]netip.Addr{"m": xcA4in6}),
		// map<inet, text>: a key bound on its own.
		xpPut(xpByAddr, xcA6Max, "max"),
		xpRemoveKeys(xpByAddr, xcA4),
		xpPut(xpByAddr, xcA4in6, "mapped"),
		xpPut(xpByAddr, xcAZoned, "zoned"),
		xpRemoveKeys(xpByAddr, xcA4in6),
		// map<text, blob>: nil is the empty value in a collection.
		xpPut(xpBlobs, "n", []byte(nil)),
		xpPut(xpBlobs, "x", []byte(nil)),
		xpPut(xpBlobs, "x", []byte{}),
		xpPut(xpBlobs, "y", []byte{0xff, 0}),
		// map<timestamp, inet> of named types.
		xpPut(xpMarks, At(xcJustBefore), IPAddr(xcA6)),
		xpPut(xpMarks, At(time.Time{}), IPAddr(xcA4Zero)),
		xpPut(xpMarks, At(xpAt(xcPre)), IPAddr(xcALoop)),
		xpPut(xpMarks, At(xcTooLate), IPAddr(xcA4)),
		xpPut(xpMarks, At(xcPre), IPAddr(xcA4in6)),
		// Columns of their own.
		xpSet(xpTS, xcJustBefore),
		xpSet(xpTS, time.Time{}),
		xpSet(xpTS, xcMaxMs),
		xpClear(xpTS),
		xpSet(xpTS, xcTooLate),
		xpSet(xpAddr, xcA4),
		xpSet(xpAddr, xcA4in6),
		xpSet(xpAddr, netip.Addr{}),
		xpSet(xpAddr, xcAZoned),
		xpSet(xpDur, time.Duration(math.MinInt64)),
		xpSet(xpDur, 0),
		xpSet(xpDur, time.Duration(math.MaxInt64)),
	}
}

// xpCondCase is a conditional write on a saved row (xpSaved): applies is
// what the rules say of the stored values; fields are the Go fields of
// the conditions' columns. server, when set, is the error Cassandra
// fails the write with instead (see xpServerBug).
type xpCondCase struct {
	name    string
	change  *xpChange // nil: DeleteIf
	cond    kstore.Cond[CrossPatch]
	fields  []string
	applies bool
	server  string
}

// xpServerBug is what Cassandra 5.0.8 answers IF m[?] = ? on a map whose
// key type is uuid: ColumnCondition.ElementAccessBound.appliesTo compares
// the map's value with the key type (mapType.getKeysType(), not
// getValuesType()), and UUIDType.compareCustom asserts 16 bytes, so the
// write fails with a server error (code 0x0000, which leaves the outcome
// of a lightweight transaction open) and is not applied. The same
// condition written by hand through the Python driver fails the same way.
// kstore refuses such a condition before sending it.
const xpServerBug = "java.lang.AssertionError"

func xpCondCases() []xpCondCase {
	ch := func(c xpChange) *xpChange { return &c }
	seenAt := map[uuid.UUID]time.Time{xcV4: xpAt(xcPre), uuid.Nil: {}, xcUMax: xcFar} // xpSaved's, to the millisecond
	return []xpCondCase{
		// Met: the value sent is the stored one by the rules.
		{name: "Eq(ts, xcPre+400µs), the same millisecond", change: ch(xpSet(xpAddr, xcA6)), cond: kstore.Eq(xpTS, xpAt(xcPre)), fields: []string{"TS"}, applies: true},
		{name: "EqAt(until, pre, xcPre+400µs)", change: ch(xpSet(xpTS, xcFar)), cond: kstore.EqAt(xpUntil, "pre", xpAt(xcPre)), fields: []string{"Until"}, applies: true},
		{name: "EqAt(until, zero, the zero time)", change: ch(xpPut(xpUntil, "zero", xcJustAfter)), cond: kstore.EqAt(xpUntil, "zero", time.Time{}), fields: []string{"Until"}, applies: true},
		{name: "EqAt(until, max, beyond Python's datetime)", change: ch(xpRemoveKeys(xpUntil, "max")), cond: kstore.EqAt(xpUntil, "max", xcMaxMsSub), fields: []string{"Until"}, applies: true},
		{name: "Eq(seen, the saved map to the millisecond)", change: ch(xpSet(xpTS, xcFar)), cond: kstore.Eq(xpSeen, seenAt), fields: []string{"Seen"}, applies: true},
		{name: "Eq(addr, ::ffff:10.0.0.1)", change: ch(xpSet(xpDur, 5)), cond: kstore.Eq(xpAddr, xcA4in6), fields: []string{"Addr"}, applies: true},
		{name: "In(dur, -1, min)", change: ch(xpAdd(xpAddrs, xcA6Max)), cond: kstore.In(xpDur, -1, time.Duration(math.MinInt64)), fields: []string{"Dur"}, applies: true},
		{name: "EqAt(days, xcJustBefore (xcPre's day), pre)", change: ch(xpAppend(xpStamps, xcPreWhole)), cond: kstore.EqAt(xpDays, xcJustBefore, "pre"), fields: []string{"Days"}, applies: true},
		{name: "DeleteIf Eq(ts, xcPre+400µs)", cond: kstore.Eq(xpTS, xpAt(xcPre)), fields: []string{"TS"}, applies: true},
		// Not met: the row comes back in Outcome.Current.
		{name: "EqAt(until, pre, xcJustAfter)", change: ch(xpSet(xpTS, xcFar)), cond: kstore.EqAt(xpUntil, "pre", xcJustAfter), fields: []string{"Until"}},
		{name: "EqAt(until, far, xcFar-1ms)", change: ch(xpPut(xpUntil, "far", time.Time{})), cond: kstore.EqAt(xpUntil, "far", xcFar.Add(-time.Millisecond)), fields: []string{"Until"}},
		{name: "Eq(seen, {xcV4: xcPre})", change: ch(xpSet(xpTS, xcFar)), cond: kstore.Eq(xpSeen, map[uuid.UUID]time.Time{xcV4: xcPre}), fields: []string{"Seen"}},
		{name: "Eq(ts, xcJustBefore)", change: ch(xpSet(xpAddr, xcA6)), cond: kstore.Eq(xpTS, xcJustBefore), fields: []string{"TS"}},
		{name: "Eq(ts, the zero time) on xcPre", change: ch(xpSet(xpAddr, xcA6)), cond: kstore.Eq(xpTS, time.Time{}), fields: []string{"TS"}},
		{name: "In(ts, xcFar, xcJustAfter)", change: ch(xpSet(xpDur, 1)), cond: kstore.In(xpTS, xcFar, xcJustAfter), fields: []string{"TS"}},
		{name: "Eq(addr, 10.0.0.1) on ::ffff:10.0.0.1", change: ch(xpSet(xpTS, xcFar)), cond: kstore.Eq(xpAddr, xcA4), fields: []string{"Addr"}},
		{name: "Eq(dur, 1)", change: ch(xpSet(xpTS, xcFar)), cond: kstore.Eq(xpDur, 1), fields: []string{"Dur"}},
		{name: "EqAt(until) and Eq(seen) and Eq(ts) and Eq(addr)", change: ch(xpSet(xpDur, 7)),
			cond:   kstore.EqAt(xpUntil, "min", xcMinMs).And(kstore.Eq(xpSeen, seenAt)).And(kstore.Eq(xpTS, xcPre)).And(kstore.Eq(xpAddr, xcA4)),
			fields: []string{"Until", "Seen", "TS", "Addr"}},
		{name: "EqAt(days, the zero time, pre)", change: ch(xpSet(xpAddr, xcA6)), cond: kstore.EqAt(xpDays, time.Time{}, "pre"), fields: []string{"Days"}},
		{name: "DeleteIf EqAt(until, pre, xcFar)", cond: kstore.EqAt(xpUntil, "pre", xcFar), fields: []string{"Until"}},
		{name: "DeleteIf Eq(seen, {the zero UUID: the zero time})", cond: kstore.Eq(xpSeen, map[uuid.UUID]time.Time{uuid.Nil: {}}), fields: []string{"Seen"}},
		// EqAt on the map<uuid, timestamp>: the server's bug.
		{name: "EqAt(seen, xcV4, xcPre+400µs)", change: ch(xpSet(xpTS, xcFar)), cond: kstore.EqAt(xpSeen, xcV4, xpAt(xcPre)), fields: []string{"Seen"}, server: xpServerBug},
		{name: "EqAt(seen, xcV4, xcJustAfter)", change: ch(xpSet(xpTS, xcFar)), cond: kstore.EqAt(xpSeen, xcV4, xcJustAfter), fields: []string{"Seen"}, server: xpServerBug},
	}
}

// goPatches runs the changes and the conditional writes through the
// adapter; Python reads each row by its key.
func (x *crossRun) goPatches() {
	for i, ch := range xpChanges() {
		for _, way := range []string{"u", "g", "n"} {
			if way == "n" && ch.index {
				continue // SetAt on a missing list: the server refuses it
			}
			key := "p-" + twoDigits(i) + "-" + way
			var before *CrossPatch
			var err error
			if way != "n" {
				before = xpSaved(key)
				err = x.patches.Save(ctx, before)
				before = xpNormEntity(before)
			} else {
				before = xpNormEntity(&CrossPatch{K: key})
			}
			if err != nil {
				x.t.Fatalf("Save %s: %v", key, err)
			}
			var out kstore.Outcome[CrossPatch]
			if way == "g" {
				out, err = x.patches.Patch(ctx, &CrossPatch{K: key}, ch.p)
			} else {
				out, err = x.patches.Patch(ctx, &CrossPatch{K: key}, ch.p, kstore.Upsert())
			}
			where := "cross_patches[" + key + "]." + ch.col.Name() + " " + ch.what
			after := before
			if ch.refused != "" {
				want := fmt.Sprintf("*ValueError{Table: cross_patches, Column: %s, Read: false} (%s)", ch.col.Name(), ch.refused)
				x.wantValueError("patch refuse", where, want, "cross_patches", ch.col.Name(), false, err)
				err = nil
			} else {
				after = xpApply(before, ch)
				if err == nil && !out.Applied {
					err = fmt.Errorf("not applied (Exists %v)", out.Exists)
				}
			}
			x.xpRead("patch go→py", key, where, ch.col, after, way == "n", ch.null || way == "n" && ch.refused != "", err)
		}
	}
	// The guard keeps a missing row dead.
	key := "p-guard"
	out, err := x.patches.Patch(ctx, &CrossPatch{K: key}, kstore.Set(xpTS, xcPre).And(kstore.Append(xpStamps, xcPre)))
	x.check("patch cond", "cross_patches["+key+"] Patch without a row", err == nil && !out.Applied && !out.Exists && out.Current == nil,
		"Applied false, Exists false, Current nil", fmt.Sprintf("Applied %v, Exists %v, Current %v, err %v", out.Applied, out.Exists, out.Current != nil, err), "")
	x.op(map[string]any{"op": "select", "table": "cross_patches", "columns": xcTypes(x.pcols[:1]), "where": xcWhere(x.pcols, key)},
		func(res pyResult) { x.noRows("patch cond", "cross_patches["+key+"] (Python sees no row)", res) })

	for i, c := range xpCondCases() {
		key := "p-c" + twoDigits(i)
		e := xpSaved(key)
		if err := x.patches.Save(ctx, e); err != nil {
			x.t.Fatalf("Save %s: %v", key, err)
		}
		before := xpNormEntity(e)
		var out kstore.Outcome[CrossPatch]
		var err error
		if c.change != nil {
			out, err = x.patches.Patch(ctx, &CrossPatch{K: key}, c.change.p.If(c.cond))
		} else {
			out, err = x.patches.DeleteIf(ctx, &CrossPatch{K: key}, c.cond)
		}
		where := "cross_patches[" + key + "] " + c.name
		wantOut := fmt.Sprintf("Applied %v, Exists %v, Current set %v", c.applies, !c.applies, !c.applies)
		gotOut := fmt.Sprintf("Applied %v, Exists %v, Current set %v", out.Applied, out.Exists, out.Current != nil)
		if err != nil {
			gotOut = "error: " + err.Error()
		}
		if c.server != "" {
			// Cassandra 5.0.8 fails IF m[?] = ? on a map<uuid, ...> (see
			// xpServerBug): kandra refuses it before sending, naming it.
			wantOut = "an *kerrors.ArgumentError naming the server's failure, nothing sent"
			var ae *kerrors.ArgumentError
			x.check("patch cond", where, errors.As(err, &ae) && strings.Contains(err.Error(), "keyed by UUIDs"), wantOut, gotOut, "")
		} else {
			x.check("patch cond", where, err == nil && gotOut == wantOut, wantOut, gotOut, "")
		}
		col := c.change.colOr(crossPatches.Schema(), c.fields[0])
		switch {
		case c.applies && c.change == nil:
			x.op(map[string]any{"op": "select", "table": "cross_patches", "columns": xcTypes(x.pcols[:1]), "where": xcWhere(x.pcols, key)},
				func(res pyResult) { x.noRows("patch cond", where+" (Python sees no row)", res) })
		case c.applies && c.server == "":
			x.xpRead("patch cond", key, where+": "+col.Name(), col, xpApply(before, *c.change), false, c.change.null, nil)
		default:
			x.xpRead("patch cond", key, where+": "+col.Name()+" (not applied)", col, before, false, false, nil)
		}
		if !c.applies && c.server == "" && out.Current != nil {
			x.xpCurrent(key, where, c.fields, out.Current)
		}
	}
}

// colOr is the column ch changes, or, without a change (DeleteIf), the
// column of Go field f.
func (ch *xpChange) colOr(ts *kandra.TableSchema, f string) *kandra.ColumnSchema {
	if ch != nil {
		return ch.col
	}
	for _, c := range ts.Columns() {
		if c.GoName() == f {
			return c
		}
	}
	panic("crossclient: no column for field " + f)
}

// xpApply is before with ch applied, each column as it reads back.
func xpApply(before *CrossPatch, ch xpChange) *CrossPatch {
	e := *before
	ch.apply(&e)
	return xpNormEntity(&e)
}

// xpRead has Python read the row of key, then checks the column col
// against after's canonical form (null with null), and the other columns
// too (one check); with none (nothing but the change was written), the
// other columns are null, and a row of nothing but the key does not
// exist (an UPDATE writes no row marker).
func (x *crossRun) xpRead(dir, key, where string, col *kandra.ColumnSchema, after *CrossPatch, none, null bool, werr error) {
	wantAfter, _ := canonOf(crossPatches, x.pcols, after)
	wantAfter = x.stored("cross_patches", x.pcols, wantAfter)
	ci := xcFind(x.pcols, col.Name())
	if null {
		wantAfter[ci] = nil
	}
	if none { // nothing but the change was written: the other columns are null
		for i := 1; i < len(wantAfter); i++ {
			if i != ci {
				wantAfter[i] = nil
			}
		}
	}
	noRow := none && wantAfter[ci] == nil
	x.op(map[string]any{"op": "select", "table": "cross_patches", "columns": xcTypes(x.pcols), "where": xcWhere(x.pcols, key)}, func(res pyResult) {
		limit := res.ClientLimit[x.pcols[ci].c.CQLName()]
		w := canonJSON(wantAfter[ci])
		switch {
		case werr != nil:
			x.check(dir, where, false, w, "Patch: "+werr.Error(), limit)
			return
		case res.Error != "":
			x.check(dir, where, false, w, "Python: "+res.Error, limit)
			return
		case noRow:
			x.noRows(dir, where+" (a row of only the key: none)", res)
			return
		case len(res.Rows) != 1:
			x.check(dir, where, false, w, fmt.Sprintf("%d rows", len(res.Rows)), limit)
			return
		}
		row := res.Rows[0]
		x.check(dir, where, reflect.DeepEqual(wantAfter[ci], row[ci]), w, canonJSON(row[ci]), limit)
		var diff []string
		for i, c := range x.pcols {
			if i != ci && !reflect.DeepEqual(wantAfter[i], row[i]) {
				diff = append(diff, c.c.Name()+": want "+canonJSON(wantAfter[i])+", got "+canonJSON(row[i]))
			}
		}
		x.check(dir, "cross_patches["+key+"] (the other columns)", len(diff) == 0, "as before", strings.Join(diff, "; "), "")
	})
}

// xpCurrent has Python read the row of key (unchanged: the write did not
// apply), and checks each of fields in cur, Outcome.Current, against what
// the rules read Python's value as.
func (x *crossRun) xpCurrent(key, where string, fields []string, cur *CrossPatch) {
	ptrs := crossPatches.Pointers(cur, nil)
	x.op(map[string]any{"op": "select", "table": "cross_patches", "columns": xcTypes(x.pcols), "where": xcWhere(x.pcols, key)}, func(res pyResult) {
		for _, f := range fields {
			i := xcFind(x.pcols, goFieldColumn(crossPatches.Schema(), f))
			c := x.pcols[i]
			w := where + ": Outcome.Current." + f
			limit := res.ClientLimit[c.c.CQLName()]
			got := reflect.ValueOf(ptrs[i]).Elem()
			if res.Error != "" || len(res.Rows) != 1 {
				x.check("patch current", w, false, "the row Python reads", fmt.Sprintf("Python: %d rows %s", len(res.Rows), res.Error), limit)
				continue
			}
			want, r, err := xcRead(c.c.GoType(), c.typ, res.Rows[0][i], true)
			if r != "" || err != nil {
				x.check("patch current", w, false, "a value Go holds", fmt.Sprintf("Python's %s: %q %v", canonJSON(res.Rows[0][i]), r, err), limit)
				continue
			}
			x.check("patch current", w, xcEqual(want, got), xcShow(want)+" (Python: "+canonJSON(res.Rows[0][i])+")", xcShow(got), limit)
		}
	})
}
