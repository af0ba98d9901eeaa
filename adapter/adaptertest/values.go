package adaptertest

import (
	"math"
	"math/rand/v2"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kstore"
)

// The adapters' conversions on the node: named types of the special types,
// and sets and maps sent in the server's comparator order.

// namedUUID, namedTimeUUID, namedTime and namedAddr are named types of
// the special types, which kandra maps as the special type and the
// adapters convert; namedVarint is an int64 stored as a varint.
type (
	namedUUID     uuid.UUID
	namedTimeUUID uuid.UUID
	namedTime     time.Time
	namedAddr     netip.Addr
	namedVarint   int64
)

// namedTypes holds named special types in every place a column can have them.
type namedTypes struct {
	ID    namedUUID
	Stamp namedTimeUUID
	Seen  namedTime
	Day   namedTime
	Addr  namedAddr
	Ptr   *namedUUID
	IDs   []namedUUID
	When  map[namedUUID]namedTime
	Addrs map[namedAddr]struct{}
}

// Describe implements kandra's description.
func (n *namedTypes) Describe(s *kandra.Schema[namedTypes]) {
	s.Table("named_types")
	kandra.Bind(s, &n.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &n.Stamp, kandra.AsType(kandra.CQLTimeUUID))
	kandra.Bind(s, &n.Day, kandra.AsType(kandra.CQLDate))
}

// sorted is one element type E in a frozen set and a frozen map that are
// descending clustering columns (the server keeps them in the order they
// are sent) and in a set and a map that are regular columns (the server
// sorts them).
type sorted[E comparable] struct {
	K    string
	CSet map[E]struct{}
	CMap map[E]int32
	RSet map[E]struct{}
	RMap map[E]int32
}

// sortedElems: per element type, the table's name word and the element's
// CQL type when it is not the one kandra derives.
var sortedElems = map[reflect.Type]struct {
	word string
	cql  kandra.CQLType
}{
	reflect.TypeFor[int8]():          {"tinyint", kandra.CQLType{}},
	reflect.TypeFor[int16]():         {"smallint", kandra.CQLType{}},
	reflect.TypeFor[int32]():         {"int", kandra.CQLType{}},
	reflect.TypeFor[int64]():         {"bigint", kandra.CQLType{}},
	reflect.TypeFor[namedVarint]():   {"varint", kandra.CQLVarint},
	reflect.TypeFor[float32]():       {"float", kandra.CQLType{}},
	reflect.TypeFor[float64]():       {"double", kandra.CQLType{}},
	reflect.TypeFor[string]():        {"text", kandra.CQLType{}},
	reflect.TypeFor[bool]():          {"boolean", kandra.CQLType{}},
	reflect.TypeFor[uuid.UUID]():     {"uuid", kandra.CQLType{}},
	reflect.TypeFor[namedTimeUUID](): {"timeuuid", kandra.CQLTimeUUID},
	reflect.TypeFor[time.Time]():     {"timestamp", kandra.CQLType{}},
	reflect.TypeFor[namedTime]():     {"date", kandra.CQLDate},
	reflect.TypeFor[netip.Addr]():    {"inet", kandra.CQLType{}},
}

// Describe implements kandra's description.
func (r *sorted[E]) Describe(s *kandra.Schema[sorted[E]]) {
	e := sortedElems[reflect.TypeFor[E]()]
	s.Table("sorted_" + e.word)
	var setOpt, mapOpt []kandra.FieldOption
	if !e.cql.IsZero() {
		setOpt = []kandra.FieldOption{kandra.AsType(kandra.SetOf(e.cql))}
		mapOpt = []kandra.FieldOption{kandra.AsType(kandra.MapOf(e.cql, kandra.CQLInt))}
	}
	kandra.Bind(s, &r.K, kandra.PartitionKey(0))
	kandra.Bind(s, &r.CSet, append(setOpt, kandra.ClusteringKey(0, kandra.ClusteringDesc))...)
	kandra.Bind(s, &r.CMap, append(mapOpt, kandra.ClusteringKey(1, kandra.ClusteringDesc))...)
	kandra.Bind(s, &r.RSet, setOpt...)
	kandra.Bind(s, &r.RMap, mapOpt...)
}

// extraRepo creates table in the suite's keyspace and returns its
// repository on a runtime of its own, closed when t ends.
func extraRepo[T any](t *testing.T, h *harness, table *kandra.Table[T]) *kstore.Repo[T] {
	t.Helper()
	k, err := kandra.NewKeyspace(kandra.KeyspaceSpec{
		Name:        h.ks,
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"datacenter1": 1}),
		Targets:     kandra.Cassandra5,
	}, table)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range k.Statements() {
		if err := h.n.Exec(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	rt, err := kstore.New(h.d, k)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(ctx) })
	return kstore.MustNewRepo(rt, table)
}

func testNamedSpecialTypes(t *testing.T, h *harness) {
	repo := extraRepo(t, h, kandra.MustRegister[namedTypes]())

	v1, _ := uuid.NewUUID()
	other := namedUUID(uuid.New())
	in := &namedTypes{
		ID:    namedUUID(uuid.New()),
		Stamp: namedTimeUUID(v1),
		Seen:  namedTime(time.Date(2024, 5, 6, 7, 8, 9, 123e6, time.UTC)),
		Day:   namedTime(time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC)),
		Addr:  namedAddr(netip.MustParseAddr("2001:db8::1")),
		Ptr:   &other,
		IDs:   []namedUUID{namedUUID(uuid.New()), namedUUID(uuid.New())},
		When:  map[namedUUID]namedTime{other: namedTime(time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC))},
		Addrs: map[namedAddr]struct{}{namedAddr(netip.MustParseAddr("10.0.0.1")): {}, namedAddr(netip.MustParseAddr("::1")): {}},
	}
	if err := repo.Save(ctx, in); err != nil {
		t.Fatalf("Save: %v", err)
	}
	got, err := repo.Get(ctx, &namedTypes{ID: in.ID})
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if why := sameNamed(in, got); why != "" {
		t.Fatalf("read back differs: %s\nwrote %+v\nread  %+v", why, in, got)
	}
	// The zero values: null in the TIMEUUID, DATE and INET columns, and
	// back as zero.
	zero := &namedTypes{ID: namedUUID(uuid.New())}
	if err := repo.Save(ctx, zero); err != nil {
		t.Fatalf("Save of zero values: %v", err)
	}
	if got, err = repo.Get(ctx, &namedTypes{ID: zero.ID}); err != nil {
		t.Fatalf("Get of zero values: %v", err)
	}
	if why := sameNamed(zero, got); why != "" {
		t.Fatalf("zero values read back differ: %s\nread %+v", why, got)
	}
	var text string
	if err := h.n.Scan(ctx, "SELECT toJson(stamp) FROM "+h.ks+".named_types WHERE id = ?", []any{uuid.UUID(zero.ID).String()}, &text); err != nil || text != "null" {
		t.Fatalf("the zero namedTimeUUID is stored as %q (%v), want null", text, err)
	}
}

func sameNamed(a, b *namedTypes) string {
	eqTime := func(x, y namedTime) bool { return time.Time(x).Equal(time.Time(y)) }
	switch {
	case a.ID != b.ID, a.Stamp != b.Stamp, a.Addr != b.Addr:
		return "id, stamp or addr"
	case !eqTime(a.Seen, b.Seen), !eqTime(a.Day, b.Day):
		return "seen or day"
	case (a.Ptr == nil) != (b.Ptr == nil), a.Ptr != nil && *a.Ptr != *b.Ptr:
		return "ptr"
	case len(a.IDs) != len(b.IDs), len(a.When) != len(b.When), !reflect.DeepEqual(a.Addrs, b.Addrs) && len(a.Addrs)+len(b.Addrs) > 0:
		return "a collection"
	}
	for i := range a.IDs {
		if a.IDs[i] != b.IDs[i] {
			return "ids"
		}
	}
	for k, v := range a.When {
		if w, ok := b.When[k]; !ok || !eqTime(v, w) {
			return "when"
		}
	}
	return ""
}

func testSortedCollections(t *testing.T, h *harness) {
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 11))
	ints := func(lo, hi int64) func() int64 { return func() int64 { return lo + r.Int64N(hi-lo+1) } }
	var checked []string
	check := func(name string, f func(*testing.T, *harness) string) {
		t.Run(name, func(t *testing.T) { checked = append(checked, f(t, h)) })
	}
	check("tinyint", sortedCase(func() int8 { return int8(ints(-128, 127)()) }))
	check("smallint", sortedCase(func() int16 { return int16(ints(math.MinInt16, math.MaxInt16)()) }))
	check("int", sortedCase(func() int32 { return int32(ints(math.MinInt32, math.MaxInt32)()) }))
	check("bigint", sortedCase(func() int64 { return int64(r.Uint64()) }))
	check("varint", sortedCase(func() namedVarint { return namedVarint(int64(r.Uint64()) >> r.IntN(63)) }))
	check("float", sortedCase(func() float32 {
		return []float32{float32(math.Inf(-1)), float32(math.Inf(1)), -1.5, 2.25, 1e-30, -1e30}[r.IntN(6)] * float32(1+r.IntN(100))
	}))
	check("double", sortedCase(func() float64 { return r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20)) }))
	check("text", sortedCase(func() string {
		return string([]rune{rune(r.IntN(0x2000)), rune('a' + r.IntN(26)), rune(0x10000 + r.IntN(100))}[:1+r.IntN(3)])
	}))
	check("boolean", sortedCase(func() bool { return r.IntN(2) == 0 }))
	// Version 1 ids with one of a few random timestamps, so that the time
	// order differs from the byte order and ties fall to the other bytes.
	stamps := []uint64{r.Uint64() >> 4, r.Uint64() >> 4, r.Uint64() >> 4}
	v1 := func() uuid.UUID {
		ts := stamps[r.IntN(len(stamps))]
		var u uuid.UUID
		for i := range u {
			u[i] = byte(r.IntN(256))
		}
		u[0], u[1], u[2], u[3] = byte(ts>>24), byte(ts>>16), byte(ts>>8), byte(ts)
		u[4], u[5] = byte(ts>>40), byte(ts>>32)
		u[6], u[7] = 0x10|byte(ts>>56)&0x0f, byte(ts>>48)
		u[8] = 0x80 | byte(r.IntN(2)) // the variant; few values, so that byte 9 often decides
		return u
	}
	check("uuid", sortedCase(func() uuid.UUID {
		switch r.IntN(3) {
		case 0:
			return v1()
		case 1:
			return uuid.New()
		}
		return uuid.Must(uuid.NewV7())
	}))
	check("timeuuid", sortedCase(func() namedTimeUUID { return namedTimeUUID(v1()) }))
	check("timestamp", sortedCase(func() time.Time { return time.UnixMilli(ints(-4e12, 4e12)()).UTC() }))
	check("date", sortedCase(func() namedTime { return namedTime(time.Unix(ints(-1e6, 1e6)()*86400, 0).UTC()) }))
	check("inet", sortedCase(func() netip.Addr {
		if r.IntN(2) == 0 {
			return netip.AddrFrom4([4]byte{byte(r.IntN(256)), byte(r.IntN(256)), 0, 1})
		}
		return netip.AddrFrom16([16]byte{byte(r.IntN(256)), 0x0d, 15: byte(r.IntN(256))})
	}))
	t.Logf("in the server's order through %s: %s", h.n.Name, strings.Join(checked, ", "))
}

// sortedCase writes a set and a map of values drawn by gen into both
// clustering columns and both regular columns, through the runtime: the
// clustering columns keep the order the adapter sent, the regular ones are
// in the server's order, and toJson shows each as stored. Written 3 times
// it is one row, and Get finds it by the full key.
func sortedCase[E comparable](gen func() E) func(*testing.T, *harness) string {
	return func(t *testing.T, h *harness) string {
		table := kandra.MustRegister[sorted[E]]()
		repo := extraRepo(t, h, table)
		name := table.Schema().CQLName()
		for round := 0; round < 5; round++ {
			row := &sorted[E]{K: uniq("k"), CSet: map[E]struct{}{}, CMap: map[E]int32{}, RSet: map[E]struct{}{}, RMap: map[E]int32{}}
			for i := 0; i < 12; i++ {
				v := gen()
				row.CSet[v], row.RSet[v] = struct{}{}, struct{}{}
				row.CMap[v], row.RMap[v] = int32(i), int32(i)
			}
			for i := 0; i < 3; i++ {
				if err := repo.Save(ctx, row); err != nil {
					t.Fatalf("Save: %v", err)
				}
			}
			var cset, cmap, rset, rmap string
			if err := h.n.Scan(ctx, "SELECT toJson(c_set), toJson(c_map), toJson(r_set), toJson(r_map) FROM "+h.ks+"."+name+" WHERE k = ?", []any{row.K}, &cset, &cmap, &rset, &rmap); err != nil {
				t.Fatal(err)
			}
			if cset != rset || cmap != rmap {
				t.Fatalf("sent in another order than the server's:\nclustering set %s\nserver's order %s\nclustering map %s\nserver's order %s", cset, rset, cmap, rmap)
			}
			if n := h.rows(t, name, "k = ?", row.K); n != 1 {
				t.Fatalf("one entity written 3 times: %d rows", n)
			}
			if _, err := repo.Get(ctx, &sorted[E]{K: row.K, CSet: row.CSet, CMap: row.CMap}); err != nil {
				t.Fatalf("Get by the full key: %v", err)
			}
		}
		return name
	}
}
