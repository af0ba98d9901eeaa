package crossclient

// CrossClientValues: what kandra writes through the adapter under test is
// exactly what an independent client, the Apache Cassandra Python driver
// (cassandra-driver 3.30.1, run as $KANDRA_PYTHON crossclient.py; see
// scripts/pyclient.sh), reads, and what that client writes is what kandra
// reads, for every Go type kandra maps (README's type table), at the
// edges of each.
//
// Directions, each check counted:
//
//	go→py        Repo.Save through the adapter; Python SELECTs the row by
//	             its key and prints each column's canonical form, compared
//	             with the canonical form the rules give the Go value.
//	py→go        Python INSERTs rows from canonical forms (prepared
//	             statements, the driver's own types); Repo.Get through the
//	             adapter, compared with the Go value the rules give the
//	             stored value (reflect.DeepEqual, floats by bits).
//	py→py        the control: Python reads back each row it wrote and
//	             finds the canonical forms it was given, so that a py→go
//	             failure is the Go side's.
//	refuse-write a value the rules refuse: Save fails with a *ValueError
//	             (kerrors.ErrValue) naming the column, and Python sees no row
//	             (and no lookup row).
//	refuse-read  a cell Python writes that the field's Go type cannot hold
//	             (a DURATION with months): Get fails with a *ValueError,
//	             Read true, naming the column, and returns no entity.
//	lookup go→py the lookup rows kandra writes, as Python reads them: the
//	             value column holds the exact inet bytes or timestamp ms.
//	lookup py→go Lookup.FindAll through the adapter finds the entities
//	             whose main and lookup rows Python wrote (and kandra's).
//	counter      increments through the runtime read by Python, and
//	             Python's read by Repo.Get.
//	patch        partial writes (patch_test.go): Repo.Patch's element
//	             changes through the adapter on collections whose elements
//	             and keys the rules convert, read by Python (patch go→py),
//	             refused (patch refuse), conditional writes and DeleteIf
//	             on converted columns (patch cond), and the current row of
//	             one that did not apply, Outcome.Current, against what
//	             Python reads (patch current).
//
// The canonical form of a value, as JSON: null is null; the integer types
// and varint are decimal strings; float and double the lowercase hex of
// the IEEE bits (8 and 16 digits); boolean a boolean; text, varchar and
// ascii the string; blob lowercase hex ("" is the empty value); timestamp
// an integer, milliseconds since the epoch; date an integer, days since
// the epoch (cassandra.util.Date.days_from_epoch); time an integer,
// nanoseconds since midnight; duration [months, days, nanoseconds]; inet
// the hex of the 4 or 16 bytes (ipaddress.ip_address(x).packed); uuid and
// timeuuid the lowercase string; a list an array; a set an array in the
// server's order; a map an array of [key, value] pairs in the server's
// order. An empty value of another type than text and blob is
// {"$empty": true}. A user-defined type's value is a JSON object of field
// name → the field's canonical form (null for a null field; a field a
// stored value lacks, written before ALTER TYPE ... ADD, is null). A
// vector is an array of its floats' canonical forms (the 8-hex-digit
// IEEE bits).
//
// The rules the adapters implement, which "expected" means here:
//   - TIMESTAMP ← time.Time: milliseconds since the epoch, floored (toward
//     the past before 1970); the zero time.Time is 0001-01-01T00:00:00Z
//     (-62135596800000 ms) everywhere (a column, a pointer, a collection,
//     a key, a lookup); outside int64 milliseconds refused. Read: null and
//     empty → the zero time.Time (nil for a pointer); else
//     time.UnixMilli(ms).UTC().
//   - DATE ← time.Time: the UTC calendar day of the instant (floored);
//     days outside [-2^31, 2^31-1] refused. Read: midnight UTC of the day;
//     null → the zero time.
//   - TIME ← time.Duration: nanoseconds in [0, 86399999999999], else
//     refused. DURATION ← time.Duration: [0, 0, ns]; a stored duration
//     with months or days fails the read (Read true), no entity returned.
//   - INET ← netip.Addr: IPv4 4 bytes, every IPv6 (a mapped ::ffff:a.b.c.d
//     too) 16; a zone refused; the zero Addr is null in a column, has no
//     lookup row, and is refused in a collection. Read: 4 bytes →
//     AddrFrom4, 16 → AddrFrom16, null or empty → the zero Addr. INET ←
//     net.IP: nil or empty → null; 4-byte and mapped 16-byte → 4 bytes,
//     other 16-byte → 16. Read: 4 bytes → 4-byte net.IP, 16 → 16-byte,
//     null or empty → nil. The server (Cassandra 5.0) itself stores an
//     IPv4-mapped address inside a collection of a regular column as 4
//     bytes (it deserializes a bound collection into java.net.InetAddress):
//     there the expected values are the server's (xcServerStored, each
//     such cell logged under "server:"), and cross_inet_keys, whose inet
//     collections are descending clustering columns that the server keeps
//     as sent, shows what the adapter sends.
//   - BLOB ← []byte: nil → null, empty → the empty value; read null →
//     nil, empty → []byte{}; *[]byte nil ↔ null, empty → &[]byte{}; in a
//     collection nil or empty is the empty value and reads as []byte{}.
//   - TEXT, VARCHAR ← string: "" is the empty value, null reads as "";
//     invalid UTF-8 refused. ASCII: a byte above 127 refused.
//   - UUID: any 16 bytes (the zero UUID is 16 zero bytes). TIMEUUID: the
//     zero UUID is null in a column (and refused in a collection), any
//     other non-version-1 UUID refused; null reads as the zero UUID.
//   - Collections: nil and a non-frozen empty collection are null and read
//     back nil; sets and maps go in the server's order.
//   - Integers and floats exact (float bits compared); a stored integer
//     outside the Go field's type fails the read (Read true).
//   - User-defined types (a named struct; udt_test.go): each field
//     by the rules of a column's own value of its type (a nil pointer,
//     slice, map, []byte or net.IP, the zero netip.Addr are null; an
//     IPv4-mapped netip.Addr is 16 bytes), except that a field's
//     collections are frozen: an empty one is a value, [], and reads back
//     empty, not nil; sets and maps in the server's order; a field tagged
//     "-" is not stored. A column of its own is not frozen: the server
//     keeps each field as a cell, so a value whose every field is null is
//     stored as nothing and reads back null (the zero struct; in the log
//     under "server:"), and a non-nil *struct whose every field is null is
//     refused (refuse-write); kandra.Frozen() keeps such a value. A field
//     refused by its rules refuses the column; a field Go cannot hold (a
//     DURATION with months) fails the read (Read true), wherever the type
//     is (a column, a pointer, a list). Python reads a type's value by the
//     server's fields: a field Go lacks (added by ALTER TYPE ... ADD) is
//     skipped, a field missing from a shorter stored value reads null.
//     The server keeps a set inside a user-defined type in the order the
//     client sent it (it sorts it in no position), so every client must
//     send it in the server's order. User-defined types appear as columns
//     (CrossValues: own, Frozen, a pointer, a list, a set, a map's
//     values, nested), in a partition key and a descending clustering key
//     (cross_udt_keys), and through ALTER TYPE ... ADD run by Python in a
//     keyspace of the scenario's own (cross_evolve, see crossUDTEvolve).
//   - VECTOR<FLOAT, N> ← [N]float32 (no index): every float bit for bit,
//     NaN payloads and signalling NaNs included; a nil *[N]float32 is
//     null, and null reads as the zero vector (nil for a pointer).
//
// DECIMAL is not covered: kandra maps no Go type to it (a user type that
// implements CQLTyper names it, and the driver marshals that type itself,
// not the adapter); the patch directions take a map<date, text> for a map
// whose keys convert.
//
// Where the Python driver cannot hold a value it is read or written a raw
// way (crossclient.py says how) and the check is counted under
// client_limit, with the reason in the log: timestamps outside Python's
// datetime (years 1..9999), float32 signalling NaNs (a Python float is a
// C double, and the float → double conversion quiets them; in a column
// written with blobAsFloat, in a vector or a user-defined type as the
// bits given to FloatType.serialize, and read raw), and sets written into
// a descending clustering column or inside a user-defined type (a Python
// set iterates in hash order, and there the server keeps the order sent:
// they go as a list in the server's order).
//
// The Python driver and these types: it decodes a user-defined type as a
// namedtuple of the server's fields (a field name that is no Python
// identifier, the keyword pass of XcOpt, becomes field_<i>_, so
// crossclient.py reads a field by name, else by position), pads a
// shorter stored value with None, and writes an object whose attributes
// it reads by the server's field names (crossclient.py's UDTValue: the
// way of a class given to register_user_type, which needs the schema
// metadata the script leaves off); a field the object lacks is null. It
// decodes a vector through Python floats: quiet NaN payloads, -0, ±Inf
// and subnormals survive (float32 → double → float32 is exact), a
// signalling NaN does not (client_limit, read raw).
//
// The run prints one line, "real-server: crossclient adapter=<name>
// client=python-cassandra-driver-3.30.1 checks=N ok=M client_limit=K
// patch=P": N checks, M of them passed, K of them (passed or not) with a
// raw way on the Python side, P of the N those of the patch directions;
// each failing check is a test error naming the direction,
// table[key].column, what was expected and what was got.

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/cqlorder"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
)

//go:embed crossclient.py
var crossClientPy []byte

// crossClientName is the client this scenario compares against.
const crossClientName = "python-cassandra-driver-3.30.1"

// Digest is a named 16-byte array, which kandra maps to UUID.
type Digest [16]byte

// CrossValues has a column of every Go type kandra maps, and every
// override AsType allows.
type CrossValues struct {
	K string

	Text      string
	Varchar   string
	ASCIIText string
	Bool      bool

	Tiny          int8
	Small         int16
	Int32         int32
	Int64         int64
	GoInt         int
	TinyAsSmall   int8
	TinyAsInt     int8
	TinyAsBig     int8
	TinyAsVarint  int8
	SmallAsInt    int16
	SmallAsBig    int16
	SmallAsVarint int16
	IntAsBig      int32
	IntAsVarint   int32
	BigAsVarint   int64
	GoIntAsVarint int

	F32 float32
	F64 float64

	Blob    []byte
	BlobPtr *[]byte

	TS      time.Time
	Day     time.Time
	TSPtr   *time.Time
	DayPtr  *time.Time
	Seen    At
	SeenDay At

	Dur    time.Duration
	DurPtr *time.Duration
	Clock  time.Duration

	ID     uuid.UUID
	TimeID uuid.UUID
	IDPtr  *uuid.UUID
	Digest Digest
	User   UserID

	Addr      netip.Addr
	AddrPtr   *netip.Addr
	NamedAddr IPAddr
	IP        net.IP

	Big *big.Int

	StrPtr  *string
	I32Ptr  *int32
	I64Ptr  *int64
	BoolPtr *bool
	F32Ptr  *float32
	F64Ptr  *float64

	Tags    []string
	Labels  map[string]struct{}
	Counts  map[string]int32
	Stamps  []time.Time
	Addrs   map[netip.Addr]struct{}
	Blobs   map[string][]byte
	Days    []time.Time
	Grid    [][]int32
	Groups  map[string][]string
	Bags    []map[int32]struct{}
	Durs    []time.Duration
	Clocks  []time.Duration
	UUIDs   map[uuid.UUID]struct{}
	TimeIDs []uuid.UUID
	IPs     []net.IP
	Bigs    []*big.Int
	When    map[string]At
	F64s    []float64

	// User-defined types (udt_test.go) and vectors.
	Card       XcCard
	CardFrozen XcCard
	CardPtr    *XcCard
	Opt        *XcOpt
	OptFrozen  *XcOpt
	OptVal     XcOpt
	Cards      []XcCard
	Points     map[XcPoint]struct{}
	ByName     map[string]XcPoint
	Vec        [4]float32
	VecPtr     *[3]float32
	Vec1       [1]float32
}

// Describe implements kandra's description.
func (v *CrossValues) Describe(s *kandra.Schema[CrossValues]) {
	s.Table("cross_values")
	kandra.Bind(s, &v.K, kandra.PartitionKey(0))
	kandra.Bind(s, &v.Varchar, kandra.AsType(kandra.CQLVarchar))
	kandra.Bind(s, &v.ASCIIText, kandra.AsType(kandra.CQLAscii))
	kandra.Bind(s, &v.TinyAsSmall, kandra.AsType(kandra.CQLSmallint))
	kandra.Bind(s, &v.TinyAsInt, kandra.AsType(kandra.CQLInt))
	kandra.Bind(s, &v.TinyAsBig, kandra.AsType(kandra.CQLBigint))
	kandra.Bind(s, &v.TinyAsVarint, kandra.AsType(kandra.CQLVarint))
	kandra.Bind(s, &v.SmallAsInt, kandra.AsType(kandra.CQLInt))
	kandra.Bind(s, &v.SmallAsBig, kandra.AsType(kandra.CQLBigint))
	kandra.Bind(s, &v.SmallAsVarint, kandra.AsType(kandra.CQLVarint))
	kandra.Bind(s, &v.IntAsBig, kandra.AsType(kandra.CQLBigint))
	kandra.Bind(s, &v.IntAsVarint, kandra.AsType(kandra.CQLVarint))
	kandra.Bind(s, &v.BigAsVarint, kandra.AsType(kandra.CQLVarint))
	kandra.Bind(s, &v.GoIntAsVarint, kandra.AsType(kandra.CQLVarint))
	kandra.Bind(s, &v.Day, kandra.AsType(kandra.CQLDate))
	kandra.Bind(s, &v.DayPtr, kandra.AsType(kandra.CQLDate))
	kandra.Bind(s, &v.SeenDay, kandra.AsType(kandra.CQLDate))
	kandra.Bind(s, &v.Clock, kandra.AsType(kandra.CQLTime))
	kandra.Bind(s, &v.TimeID, kandra.AsType(kandra.CQLTimeUUID))
	kandra.Bind(s, &v.Days, kandra.AsType(kandra.ListOf(kandra.CQLDate)))
	kandra.Bind(s, &v.Clocks, kandra.AsType(kandra.ListOf(kandra.CQLTime)))
	kandra.Bind(s, &v.TimeIDs, kandra.AsType(kandra.ListOf(kandra.CQLTimeUUID)))
	kandra.Bind(s, &v.CardFrozen, kandra.Frozen())
	kandra.Bind(s, &v.OptFrozen, kandra.Frozen())
}

// CrossLookup has non-unique BATCH lookups on an inet and a timestamp,
// and a timestamp clustering key.
type CrossLookup struct {
	ID   string
	At   time.Time
	Addr netip.Addr
	Seen time.Time
}

// Describe implements kandra's description.
func (l *CrossLookup) Describe(s *kandra.Schema[CrossLookup]) {
	s.Table("cross_lookups")
	kandra.Bind(s, &l.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &l.At, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &l.Addr, kandra.Lookup("by_addr", kandra.LookupBatch))
	kandra.Bind(s, &l.Seen, kandra.Lookup("by_seen", kandra.LookupBatch))
}

// CrossHits is a counter table.
type CrossHits struct {
	Page string
	Hits int64
}

// Describe implements kandra's description.
func (h *CrossHits) Describe(s *kandra.Schema[CrossHits]) {
	s.Table("cross_hits")
	kandra.Bind(s, &h.Page, kandra.PartitionKey(0))
	kandra.Counter(s, &h.Hits)
}

// CrossInetKey has inet collections as descending clustering columns,
// the one place Cassandra 5.0 stores a collection's inet elements as sent
// (see xcServerStored): what Python reads there is what the adapter sent.
type CrossInetKey struct {
	K     string
	Addrs map[netip.Addr]struct{}
	List  []netip.Addr
	IPs   []net.IP
}

// Describe implements kandra's description.
func (k *CrossInetKey) Describe(s *kandra.Schema[CrossInetKey]) {
	s.Table("cross_inet_keys")
	kandra.Bind(s, &k.K, kandra.PartitionKey(0))
	kandra.Bind(s, &k.Addrs, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.Bind(s, &k.List, kandra.ClusteringKey(1, kandra.ClusteringDesc))
	kandra.Bind(s, &k.IPs, kandra.ClusteringKey(2, kandra.ClusteringDesc))
}

var (
	crossInetKeys = kandra.MustRegister[CrossInetKey]()
	crossValues   = kandra.MustRegister[CrossValues]()
	crossLookups  = kandra.MustRegister[CrossLookup]()
	crossHits     = kandra.MustRegister[CrossHits]()
)

// xcCol is a column with its CQL type as the comparators (and the Python
// side) see it.
type xcCol struct {
	c   *kandra.ColumnSchema
	typ cqlorder.Type
}

func xcColumns(t *testing.T, cols []*kandra.ColumnSchema) []xcCol {
	out := make([]xcCol, len(cols))
	for i, c := range cols {
		typ, err := cqlorder.Of(c.Type())
		if err != nil {
			t.Fatal(err)
		}
		if c.IsCounter() {
			typ = cqlorder.Type{Name: "counter"}
		}
		out[i] = xcCol{c, typ}
	}
	return out
}

func xcTypes(cols []xcCol) [][2]string {
	out := make([][2]string, len(cols))
	for i, c := range cols {
		out[i] = [2]string{c.c.CQLName(), c.typ.String()}
	}
	return out
}

// xcFind is the index of the column named name, or -1.
func xcFind(cols []xcCol, name string) int {
	for i, x := range cols {
		if x.c.Name() == name {
			return i
		}
	}
	return -1
}

// crossCheck is one counted comparison.
type crossCheck struct {
	dir, where, want, got string
	ok                    bool
	limit                 string // why the Python side went a raw way, or ""
}

// pyResult is the Python side's answer to one operation.
type pyResult struct {
	ID          string            `json:"id"`
	Rows        [][]any           `json:"rows"`
	ClientLimit map[string]string `json:"client_limit"`
	Error       string            `json:"error"`
}

type crossRun struct {
	t        *testing.T
	h        *harness
	values   *kstore.Repo[CrossValues]
	lookups  *kstore.Repo[CrossLookup]
	hits     *kstore.Repo[CrossHits]
	inetKeys *kstore.Repo[CrossInetKey]
	udtKeys  *kstore.Repo[CrossUDTKey]
	patches  *kstore.Repo[CrossPatch]
	ucols    []xcCol
	vcols    []xcCol
	lcols    []xcCol
	hcols    []xcCol
	kcols    []xcCol
	pcols    []xcCol
	server   map[string]string // where → what the server stores instead of what was sent

	ops    []map[string]any
	then   []func(pyResult) // per op, after Python ran
	after  []func()         // Go reads, after every then
	checks []crossCheck
}

func (x *crossRun) check(dir, where string, ok bool, want, got, limit string) {
	x.checks = append(x.checks, crossCheck{dir: dir, where: where, want: want, got: got, ok: ok, limit: limit})
}

// op queues a Python operation and what to do with its result.
func (x *crossRun) op(op map[string]any, then func(pyResult)) {
	op["id"] = fmt.Sprintf("%d:%s", len(x.ops), op["op"])
	x.ops = append(x.ops, op)
	x.then = append(x.then, then)
}

func xcWhere(cols []xcCol, keys ...any) [][3]any {
	var out [][3]any
	for i, k := range keys {
		out = append(out, [3]any{cols[i].c.CQLName(), cols[i].typ.String(), normCanon(k)})
	}
	return out
}

// canonOf is the canonical form of every column of e, and the refusals.
func canonOf[T any](table *kandra.Table[T], cols []xcCol, e *T) (canon []any, refused map[string]string) {
	refused = map[string]string{}
	for i, p := range table.Pointers(e, nil) {
		v := reflect.ValueOf(p).Elem()
		c, _, r := xcWrite(v, cols[i].typ, true)
		if r == "" && v.Kind() == reflect.Pointer && xcNullUDTColumn(cols[i]) && xcAllNull(c) {
			r = "a non-nil *struct whose every field is null in a column of a user-defined type of its own, not frozen (the server would read it back null)"
		}
		if r != "" {
			refused[cols[i].c.Name()] = r
		}
		canon = append(canon, normCanon(c))
	}
	return canon, refused
}

// stored is what the server keeps of canon, a row of regular columns
// (see xcServerStored); where it differs from what was sent, the log says
// so under "server:".
func (x *crossRun) stored(table string, cols []xcCol, canon []any) []any {
	out := make([]any, len(canon))
	for i, c := range cols {
		out[i] = normCanon(xcServerStored(c.typ, canon[i], false))
		if xcNullUDTColumn(c) && xcAllNull(out[i]) {
			out[i] = nil // no cell: the column reads back null
		}
		if !reflect.DeepEqual(out[i], canon[i]) {
			x.server[table+"["+canon[0].(string)+"]."+c.c.Name()] = "sent " + canonJSON(canon[i]) + ", stored " + canonJSON(out[i])
		}
	}
	return out
}

func testCrossClient(t *testing.T, h *harness) {
	py := os.Getenv("KANDRA_PYTHON")
	if py == "" {
		msg := "KANDRA_PYTHON is not set; KANDRA_PYTHON=$(bash scripts/pyclient.sh) prepares the Python driver this scenario compares with"
		if os.Getenv("KANDRA_REQUIRE_CASSANDRA") == "1" {
			t.Fatal("CrossClientValues cannot run: " + msg)
		}
		t.Skip("skipping CrossClientValues: " + msg)
	}
	x := &crossRun{t: t, h: h, server: map[string]string{}}
	x.setup()
	x.goValues()
	x.goRefusals()
	x.goLookups()
	x.goCounters()
	x.goInetKeys()
	x.goUDTKeys()
	x.goPatches()
	x.pyValues()
	x.pyReadRefusals()
	x.pyLookups()
	x.pyCounters()
	x.pyInetKeys()
	x.pyUDTKeys()
	x.crossUDTEvolve()
	x.runPython(py)
	for _, f := range x.after {
		f()
	}
	x.report()
}

// setup creates the scenario's tables in the test's keyspace (not the
// keyspace: the harness created it) and the repositories on a runtime of
// their own.
func (x *crossRun) setup() {
	t, h := x.t, x.h
	k, err := kandra.NewKeyspace(kandra.KeyspaceSpec{
		Name:        h.ks,
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"datacenter1": 1}),
		Targets:     kandra.Cassandra5,
	}, crossValues, crossLookups, crossHits, crossInetKeys, crossUDTKeys, crossPatches)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range k.Statements() {
		if strings.HasPrefix(st, "CREATE KEYSPACE") {
			continue
		}
		if err := h.n.Exec(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	rt, err := kstore.New(h.d, k)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	x.values = kstore.MustNewRepo(rt, crossValues)
	x.lookups = kstore.MustNewRepo(rt, crossLookups)
	x.hits = kstore.MustNewRepo(rt, crossHits)
	x.inetKeys = kstore.MustNewRepo(rt, crossInetKeys)
	x.udtKeys = kstore.MustNewRepo(rt, crossUDTKeys)
	x.patches = kstore.MustNewRepo(rt, crossPatches)
	x.ucols = xcColumns(t, crossUDTKeys.Schema().Columns())
	x.kcols = xcColumns(t, crossInetKeys.Schema().Columns())
	x.vcols = xcColumns(t, crossValues.Schema().Columns())
	x.lcols = xcColumns(t, crossLookups.Schema().Columns())
	x.hcols = xcColumns(t, crossHits.Schema().Columns())
	x.pcols = xcColumns(t, crossPatches.Schema().Columns())
}

// compareRow counts one check per column of a row Python read against
// the canonical forms Go expects.
func (x *crossRun) compareRow(dir, table, key string, cols []xcCol, want []any, res pyResult, saveErr error) {
	for i, c := range cols {
		where := table + "[" + key + "]." + c.c.Name()
		limit := res.ClientLimit[c.c.CQLName()]
		w := canonJSON(want[i])
		switch {
		case saveErr != nil:
			x.check(dir, where, false, w, "Save failed: "+saveErr.Error(), limit)
		case res.Error != "":
			x.check(dir, where, false, w, "Python: "+res.Error, limit)
		case len(res.Rows) != 1:
			x.check(dir, where, false, w, fmt.Sprintf("%d rows", len(res.Rows)), limit)
		default:
			got := res.Rows[0][i]
			x.check(dir, where, reflect.DeepEqual(want[i], got), w, canonJSON(got), limit)
		}
	}
}

// (a) cross_values through the runtime, read by Python.
func (x *crossRun) goValues() {
	for _, e := range crossRows() {
		want, refused := canonOf(crossValues, x.vcols, e)
		if len(refused) > 0 {
			x.t.Fatalf("scenario bug: row %s holds values the rules refuse: %v", e.K, refused)
		}
		want = x.stored("cross_values", x.vcols, want)
		err := x.values.Save(ctx, e)
		x.op(map[string]any{"op": "select", "table": "cross_values", "columns": xcTypes(x.vcols), "where": xcWhere(x.vcols, e.K)},
			func(res pyResult) { x.compareRow("go→py", "cross_values", e.K, x.vcols, want, res, err) })
	}
}

// (c) values the rules refuse: an error naming the column, and no row.
func (x *crossRun) goRefusals() {
	for i, r := range xcRefused {
		e := &CrossValues{K: "c-" + twoDigits(i)}
		setField(e, r.field, r.value)
		col := xcFind(x.vcols, goFieldColumn(crossValues.Schema(), r.field))
		if _, refused := canonOf(crossValues, x.vcols, e); refused[x.vcols[col].c.Name()] == "" {
			x.t.Fatalf("scenario bug: %s = %s is not refused by the rules", r.field, xcShow(reflect.ValueOf(r.value)))
		}
		name := x.vcols[col].c.Name()
		where := "cross_values[" + e.K + "]." + name
		want := fmt.Sprintf("*ValueError{Table: cross_values, Column: %s, Read: false} for %s", name, xcShow(reflect.ValueOf(r.value)))
		x.wantValueError("refuse-write", where, want, "cross_values", name, false, x.values.Save(ctx, e))
		x.op(map[string]any{"op": "select", "table": "cross_values", "columns": xcTypes(x.vcols[:1]), "where": xcWhere(x.vcols, e.K)},
			func(res pyResult) { x.noRows("refuse-write", where+" (Python sees no row)", res) })
	}
}

// goFieldColumn is the column name of Go field f.
func goFieldColumn(ts *kandra.TableSchema, f string) string {
	for _, c := range ts.Columns() {
		if c.GoName() == f {
			return c.Name()
		}
	}
	panic("crossclient: no column for field " + f)
}

func (x *crossRun) wantValueError(dir, where, want, table, column string, read bool, err error) {
	var ve *kerrors.ValueError
	ok := errors.As(err, &ve) && errors.Is(err, kerrors.ErrValue) && ve.Table == table && ve.Column == column && ve.Read == read
	got := "nil"
	if err != nil {
		got = fmt.Sprintf("%T: %v", err, err)
		if ve != nil {
			got = fmt.Sprintf("*ValueError{Table: %s, Column: %s, Type: %s, Value: %s, Read: %v}: %v", ve.Table, ve.Column, ve.Type, ve.Value, ve.Read, err)
		}
	}
	x.check(dir, where, ok, want, got, "")
}

func (x *crossRun) noRows(dir, where string, res pyResult) {
	got := fmt.Sprintf("%d rows", len(res.Rows))
	if res.Error != "" {
		got = "Python: " + res.Error
	} else if len(res.Rows) > 0 {
		got += ": " + canonJSON(res.Rows)
	}
	x.check(dir, where, res.Error == "" && len(res.Rows) == 0, "no row", got, "")
}

// lookupRows selects the rows of lookup table l that carry id.
func (x *crossRun) lookupRows(l *kandra.LookupTableSchema, id string, then func(cols []xcCol, res pyResult)) {
	cols := xcColumns(x.t, l.Columns())
	idCol := slices.IndexFunc(cols, func(c xcCol) bool { return c.c.Name() == "id" })
	x.op(map[string]any{"op": "select", "table": l.Name(), "columns": xcTypes(cols), "allow_filtering": true,
		"where": [][3]any{{cols[idCol].c.CQLName(), "text", id}}}, func(res pyResult) { then(cols, res) })
}

// (a) and (c) for lookups: kandra's main and lookup rows as Python reads
// them; refused values write neither.
func (x *crossRun) goLookups() {
	es := []*CrossLookup{
		{ID: "a-l1", At: time.Time{}, Addr: xcA4, Seen: xcPre},
		{ID: "a-l2", At: xcFar, Addr: xcA4in6, Seen: time.Time{}},
		{ID: "a-l3", At: xcPre, Addr: netip.Addr{}, Seen: xcPreWhole},
		{ID: "a-l4", At: xcMaxMs, Addr: xcA6, Seen: xcMaxMs},
		{ID: "a-l5", At: xcJustBefore, Addr: xcALoop, Seen: xcMinMs},
	}
	for _, e := range es {
		want, refused := canonOf(crossLookups, x.lcols, e)
		if len(refused) > 0 {
			x.t.Fatalf("scenario bug: %s: %v", e.ID, refused)
		}
		err := x.lookups.Save(ctx, e)
		x.op(map[string]any{"op": "select", "table": "cross_lookups", "columns": xcTypes(x.lcols), "where": xcWhere(x.lcols, e.ID)},
			func(res pyResult) { x.compareRow("go→py", "cross_lookups", e.ID, x.lcols, want, res, err) })
		for _, l := range crossLookups.Schema().LookupTables() {
			x.lookupRows(l, e.ID, func(cols []xcCol, res pyResult) {
				// The expected lookup row: the indexed value and the key, or
				// none for the zero Addr.
				wantRows := []any{}
				if !(l.IndexColumn().Name() == "addr" && !e.Addr.IsValid()) {
					row := make([]any, len(cols))
					for i, c := range cols {
						row[i] = want[slices.IndexFunc(x.lcols, func(m xcCol) bool { return m.c.Name() == c.c.Name() })]
					}
					wantRows = append(wantRows, row)
				}
				got := any(res.Rows)
				if res.Error != "" {
					got = "Python: " + res.Error
				}
				limit := ""
				for _, why := range res.ClientLimit {
					limit = why
				}
				if err != nil {
					got = "Save failed: " + err.Error()
				}
				x.check("lookup go→py", l.Name()+"[id="+e.ID+"]", err == nil && res.Error == "" && reflect.DeepEqual(normCanon(wantRows), normCanon(res.Rows)),
					canonJSON(wantRows), canonJSON(got), limit)
			})
		}
	}
	refused := []struct {
		e     *CrossLookup
		field string
	}{
		{&CrossLookup{ID: "c-l1", Addr: xcAZoned}, "addr"},
		{&CrossLookup{ID: "c-l2", Seen: xcTooLate}, "seen"},
		{&CrossLookup{ID: "c-l3", At: xcTooEarly}, "at"},
	}
	for _, r := range refused {
		w := "cross_lookups[" + r.e.ID + "]." + r.field
		x.wantValueError("refuse-write", w, "*ValueError{Table: cross_lookups, Column: "+r.field+", Read: false}", "cross_lookups", r.field, false, x.lookups.Save(ctx, r.e))
		x.op(map[string]any{"op": "select", "table": "cross_lookups", "columns": xcTypes(x.lcols[:1]), "where": xcWhere(x.lcols, r.e.ID)},
			func(res pyResult) { x.noRows("refuse-write", w+" (Python sees no row)", res) })
		for _, l := range crossLookups.Schema().LookupTables() {
			x.lookupRows(l, r.e.ID, func(_ []xcCol, res pyResult) {
				x.noRows("refuse-write", w+" (Python sees no "+l.Name()+" row)", res)
			})
		}
	}
}

// Counters through the runtime, read by Python.
func (x *crossRun) goCounters() {
	c := kstore.MustCounterOf(x.hits, kandra.MustFieldOf(crossHits, func(h *CrossHits) *int64 { return &h.Hits }))
	steps := []struct {
		page   string
		deltas []int64
		want   string
	}{
		{"go", []int64{5, -2}, "3"},
		{"go-max", []int64{math.MaxInt64}, "9223372036854775807"},
		{"go-min", []int64{-math.MaxInt64, -1}, "-9223372036854775808"},
	}
	for _, s := range steps {
		var err error
		for _, d := range s.deltas {
			if d >= 0 {
				err = errors.Join(err, c.Increment(ctx, &CrossHits{Page: s.page}, d))
			} else {
				err = errors.Join(err, c.Decrement(ctx, &CrossHits{Page: s.page}, -d))
			}
		}
		x.op(map[string]any{"op": "select", "table": "cross_hits", "columns": xcTypes(x.hcols), "where": xcWhere(x.hcols, s.page)},
			func(res pyResult) {
				x.compareRow("counter go→py", "cross_hits", s.page, x.hcols, []any{s.page, s.want}, res, err)
			})
	}
}

// (b) every row of goValues again, written by Python from the canonical
// forms, and the rows only Python writes; Get compares after Python ran.
func (x *crossRun) pyValues() {
	zero, _ := canonOf(crossValues, x.vcols, &CrossValues{})
	for _, e := range crossRows() {
		canon, _ := canonOf(crossValues, x.vcols, e)
		canon[0] = "b-" + strings.TrimPrefix(e.K, "a-")
		x.pyRow(canon, nil)
	}
	for _, p := range xcPyOnly {
		canon := slices.Clone(zero)
		canon[0] = "b-" + p.name
		var only []int
		for name, c := range p.columns {
			i := xcFind(x.vcols, name)
			if i < 0 {
				x.t.Fatalf("scenario bug: no column %s", name)
			}
			canon[i] = normCanon(c)
			only = append(only, i)
		}
		sort.Ints(only)
		x.pyRow(canon, only)
	}
}

// pyRow has Python insert canon into cross_values, then compares Get's
// entity with what the rules read canon as, column by column (only the
// columns in only, when given).
func (x *crossRun) pyRow(canon []any, only []int) {
	key := canon[0].(string)
	var insErr string
	var limits map[string]string
	sent := canon
	x.op(map[string]any{"op": "insert", "table": "cross_values", "columns": xcTypes(x.vcols), "values": sent},
		func(res pyResult) { insErr, limits = res.Error, res.ClientLimit })
	canon = x.stored("cross_values", x.vcols, canon)
	x.pyControl("cross_values", x.vcols, canon)
	x.after = append(x.after, func() {
		got, err := x.values.Get(ctx, &CrossValues{K: key})
		var ptrs []any
		if got != nil {
			ptrs = crossValues.Pointers(got, nil)
		}
		for i, c := range x.vcols {
			if only != nil && !slices.Contains(only, i) {
				continue
			}
			where := "cross_values[" + key + "]." + c.c.Name()
			want, refused, werr := xcRead(c.c.GoType(), c.typ, canon[i], true)
			if werr != nil || refused != "" {
				x.t.Fatalf("scenario bug: %s: %q %v", where, refused, werr)
			}
			limit := limits[c.c.CQLName()]
			switch {
			case insErr != "":
				x.check("py→go", where, false, xcShow(want), "Python insert: "+insErr, limit)
			case err != nil:
				x.check("py→go", where, false, xcShow(want), "Get: "+err.Error(), limit)
			default:
				v := reflect.ValueOf(ptrs[i]).Elem()
				x.check("py→go", where, xcEqual(want, v), xcShow(want), xcShow(v), limit)
			}
		}
	})
}

// pyControl has Python read back the row it wrote with canon (the key
// first): one check per row, that the client wrote what it was given, so
// that a py→go failure is the Go side's.
func (x *crossRun) pyControl(table string, cols []xcCol, canon []any) {
	x.pyControlKeys(table, cols, canon, 1)
}

// pyControlKeys is pyControl for a table whose partition key has keys
// columns, the first ones of canon.
func (x *crossRun) pyControlKeys(table string, cols []xcCol, canon []any, keys int) {
	key := canon[0].(string)
	x.op(map[string]any{"op": "select", "table": table, "columns": xcTypes(cols), "where": xcWhere(cols, canon[:keys]...)}, func(res pyResult) {
		where := table + "[" + key + "] (the row as Python wrote it)"
		switch {
		case res.Error != "":
			x.check("py→py", where, false, "the canonical forms written", "Python: "+res.Error, "")
		case len(res.Rows) != 1:
			x.check("py→py", where, false, "one row", fmt.Sprintf("%d rows", len(res.Rows)), "")
		default:
			var diff []string
			for i, c := range cols {
				if !reflect.DeepEqual(canon[i], res.Rows[0][i]) {
					diff = append(diff, c.c.Name()+": wrote "+canonJSON(canon[i])+", read "+canonJSON(res.Rows[0][i]))
				}
			}
			x.check("py→py", where, len(diff) == 0, "the canonical forms written", strings.Join(diff, "; "), "")
		}
	})
}

// (c) cells Go cannot hold: Get fails with a *ValueError, Read true.
func (x *crossRun) pyReadRefusals() {
	zero, _ := canonOf(crossValues, x.vcols, &CrossValues{})
	byName := map[string]any{}
	for i, c := range x.vcols {
		byName[c.c.Name()] = zero[i]
	}
	for n, r := range xcReadRefused {
		i := xcFind(x.vcols, r.column)
		if i < 0 {
			x.t.Fatalf("scenario bug: no column %s", r.column)
		}
		c := x.vcols[i]
		canon := slices.Clone(zero)
		key := "r-" + twoDigits(n)
		rc := r.canon
		if f, ok := rc.(func(map[string]any) any); ok {
			rc = f(byName)
		}
		canon[0], canon[i] = key, normCanon(rc)
		if _, refused, err := xcRead(c.c.GoType(), c.typ, canon[i], true); refused == "" || err != nil {
			x.t.Fatalf("scenario bug: %s %v is not refused on a read (%v)", r.column, r.canon, err)
		}
		var insErr string
		x.op(map[string]any{"op": "insert", "table": "cross_values", "columns": xcTypes(x.vcols), "values": canon},
			func(res pyResult) { insErr = res.Error })
		x.pyControl("cross_values", x.vcols, x.stored("cross_values", x.vcols, canon))
		x.after = append(x.after, func() {
			where := "cross_values[" + key + "]." + r.column
			want := fmt.Sprintf("*ValueError{Table: cross_values, Column: %s, Read: true} for %s, no entity", r.column, canonJSON(canon[i]))
			if insErr != "" {
				x.check("refuse-read", where, false, want, "Python insert: "+insErr, "")
				return
			}
			got, err := x.values.Get(ctx, &CrossValues{K: key})
			if got != nil && err == nil {
				err = fmt.Errorf("no error, entity %s = %s", r.column, xcShow(reflect.ValueOf(crossValues.Pointers(got, nil)[i]).Elem()))
			}
			x.wantValueError("refuse-read", where, want, "cross_values", r.column, true, err)
			if got != nil && err != nil {
				x.check("refuse-read", where+" (no entity)", false, "nil entity", "an entity with the error", "")
			}
		})
	}
}

// (b) for lookups: Python writes main and lookup rows; FindAll through
// the adapter finds them, with kandra's own, by the same values.
func (x *crossRun) pyLookups() {
	ps := []*CrossLookup{
		{ID: "p-l1", At: xcPre, Addr: netip.AddrFrom4([4]byte{10, 0, 0, 9}), Seen: xcPre},
		{ID: "p-l2", At: time.Time{}, Addr: netip.AddrFrom16(netip.AddrFrom4([4]byte{10, 0, 0, 9}).As16()), Seen: time.Time{}},
		{ID: "p-l3", At: xcFar, Addr: netip.MustParseAddr("2001:db8::9"), Seen: xcMaxMs},
	}
	for _, p := range ps {
		canon, _ := canonOf(crossLookups, x.lcols, p)
		var insErr []string
		x.op(map[string]any{"op": "insert", "table": "cross_lookups", "columns": xcTypes(x.lcols), "values": canon},
			func(res pyResult) { insErr = append(insErr, res.Error) })
		x.pyControl("cross_lookups", x.lcols, canon)
		for _, l := range crossLookups.Schema().LookupTables() {
			cols := xcColumns(x.t, l.Columns())
			vals := make([]any, len(cols))
			for i, c := range cols {
				vals[i] = canon[slices.IndexFunc(x.lcols, func(m xcCol) bool { return m.c.Name() == c.c.Name() })]
			}
			x.op(map[string]any{"op": "insert", "table": l.Name(), "columns": xcTypes(cols), "values": vals},
				func(res pyResult) { insErr = append(insErr, res.Error) })
		}
		// The main row as Get reads it.
		x.after = append(x.after, func() {
			key := &CrossLookup{ID: p.ID}
			at, _, _ := xcRead(x.lcols[1].c.GoType(), x.lcols[1].typ, canon[1], true)
			key.At = at.Interface().(time.Time)
			got, err := x.lookups.Get(ctx, key)
			for i, c := range x.lcols {
				where := "cross_lookups[" + p.ID + "]." + c.c.Name()
				want, _, _ := xcRead(c.c.GoType(), c.typ, canon[i], true)
				if e := strings.Join(insErr, ""); e != "" {
					x.check("py→go", where, false, xcShow(want), "Python insert: "+e, "")
					continue
				}
				if err != nil {
					x.check("py→go", where, false, xcShow(want), "Get: "+err.Error(), "")
					continue
				}
				v := reflect.ValueOf(crossLookups.Pointers(got, nil)[i]).Elem()
				x.check("py→go", where, xcEqual(want, v), xcShow(want), xcShow(v), "")
			}
		})
	}
	byAddr := kstore.MustLookupOf(x.lookups, kandra.MustFieldOf(crossLookups, func(l *CrossLookup) *netip.Addr { return &l.Addr }))
	bySeen := kstore.MustLookupOf(x.lookups, kandra.MustFieldOf(crossLookups, func(l *CrossLookup) *time.Time { return &l.Seen }))
	x.after = append(x.after, func() {
		for _, f := range []struct {
			addr netip.Addr
			want []string
		}{
			{xcA4, []string{"a-l1"}},
			{xcA4in6, []string{"a-l2"}},
			{ps[0].Addr, []string{"p-l1"}},
			{ps[1].Addr, []string{"p-l2"}},
			{ps[2].Addr, []string{"p-l3"}},
		} {
			x.findAll("cross_lookups_by_addr["+xcShow(reflect.ValueOf(f.addr))+"]", f.want, byAddr.FindAll(ctx, f.addr))
		}
		for _, f := range []struct {
			seen time.Time
			want []string
		}{
			{xcPre, []string{"a-l1", "p-l1"}},
			{time.Time{}, []string{"a-l2", "p-l2"}},
			{xcMaxMs, []string{"a-l4", "p-l3"}},
			{xcPreWhole, []string{"a-l3"}},
			{xcMinMs, []string{"a-l5"}},
		} {
			x.findAll("cross_lookups_by_seen["+xcShow(reflect.ValueOf(f.seen))+"]", f.want, bySeen.FindAll(ctx, f.seen))
		}
	})
}

func (x *crossRun) findAll(where string, want []string, it *kstore.Iter[CrossLookup]) {
	all, err := it.All()
	var got []string
	for _, e := range all {
		got = append(got, e.ID)
	}
	sort.Strings(got)
	g := fmt.Sprint(got)
	if err != nil {
		g = "FindAll: " + err.Error()
	}
	x.check("lookup py→go", where, err == nil && slices.Equal(got, want), fmt.Sprint(want), g, "")
}

// Counters incremented by Python, read through the runtime.
func (x *crossRun) pyCounters() {
	adds := []struct {
		page  string
		delta int64
	}{{"go", 4}, {"py", 10}, {"py", -3}, {"py-min", math.MinInt64}}
	var errs []string
	for _, a := range adds {
		x.op(map[string]any{"op": "add", "table": "cross_hits", "column": x.hcols[1].c.CQLName(), "delta": fmt.Sprint(a.delta),
			"where": xcWhere(x.hcols, a.page)}, func(res pyResult) {
			if res.Error != "" {
				errs = append(errs, res.Error)
			}
		})
	}
	x.after = append(x.after, func() {
		for _, w := range []struct {
			page string
			want int64
		}{{"go", 7}, {"py", 7}, {"py-min", math.MinInt64}} {
			where := "cross_hits[" + w.page + "].hits"
			got, err := x.hits.Get(ctx, &CrossHits{Page: w.page})
			switch {
			case len(errs) > 0:
				x.check("counter py→go", where, false, fmt.Sprint(w.want), "Python: "+strings.Join(errs, "; "), "")
			case err != nil:
				x.check("counter py→go", where, false, fmt.Sprint(w.want), "Get: "+err.Error(), "")
			default:
				x.check("counter py→go", where, got.Hits == w.want, fmt.Sprint(w.want), fmt.Sprint(got.Hits), "")
			}
		}
	})
}

// The inet collections as descending clustering columns, where the server
// keeps what a client sent, in the order sent (the adapter's sort). kandra
// refuses an IPv4-mapped address in any collection (the server would
// store it as IPv4 in a regular one), so only Python writes those here.
var xcInetKeyRows = []*CrossInetKey{
	{K: "a-k1", Addrs: map[netip.Addr]struct{}{xcA4: {}, xcALoop: {}, xcA2001db8: {}, xcA4Max: {}},
		List: []netip.Addr{xcA4, xcALoop, xcA6}, IPs: []net.IP{net.IPv4(10, 0, 0, 1), net.ParseIP("::1"), {10, 0, 0, 2}}},
	{K: "a-k2", Addrs: map[netip.Addr]struct{}{xcA6: {}}, List: []netip.Addr{xcA6Zero, xcA4Zero}, IPs: []net.IP{net.ParseIP("2001:db8::1")}},
}

func (x *crossRun) goInetKeys() {
	// A mapped address in a key's collection is refused, nothing written.
	bad := &CrossInetKey{K: "a-k9", Addrs: map[netip.Addr]struct{}{xcA4in6: {}}, List: []netip.Addr{xcA4}, IPs: []net.IP{{10, 0, 0, 1}}}
	x.wantValueError("refuse-write", "cross_inet_keys[a-k9].addrs", "*ValueError{Table: cross_inet_keys, Column: addrs}", "cross_inet_keys", "addrs", false, x.inetKeys.Save(ctx, bad))
	x.op(map[string]any{"op": "select", "table": "cross_inet_keys", "columns": xcTypes(x.kcols[:1]), "where": xcWhere(x.kcols, "a-k9")},
		func(res pyResult) { x.noRows("refuse", "cross_inet_keys[a-k9] (Python sees no row)", res) })

	for _, e := range xcInetKeyRows {
		want, refused := canonOf(crossInetKeys, x.kcols, e)
		if len(refused) > 0 {
			x.t.Fatalf("scenario bug: %s: %v", e.K, refused)
		}
		err := x.inetKeys.Save(ctx, e)
		x.op(map[string]any{"op": "select", "table": "cross_inet_keys", "columns": xcTypes(x.kcols), "where": xcWhere(x.kcols, e.K)},
			func(res pyResult) { x.compareRow("go→py", "cross_inet_keys", e.K, x.kcols, want, res, err) })
	}
}

// pyInetKeys: Python writes the rows of goInetKeys again, and one with
// 16-byte IPv4-mapped netip.Addr elements; List through the adapter reads
// them, and Get by the full key finds the first.
func (x *crossRun) pyInetKeys() {
	var rows [][]any
	for _, e := range xcInetKeyRows {
		canon, _ := canonOf(crossInetKeys, x.kcols, e)
		canon[0] = "b-" + strings.TrimPrefix(e.K, "a-")
		rows = append(rows, canon)
	}
	// Mapped addresses another client wrote, which the server keeps here:
	// a netip.Addr reads them mapped.
	rows = append(rows, []any{"b-k3", normCanon([]any{"00000000000000000000ffff0a000009"}), normCanon([]any{"00000000000000000000ffff0a000009", "0a000009"}),
		normCanon([]any{"0a000009"})})
	for n, canon := range rows {
		key := canon[0].(string)
		var insErr string
		var limits map[string]string
		x.op(map[string]any{"op": "insert", "table": "cross_inet_keys", "columns": xcTypes(x.kcols), "values": canon, "ordered_sets": true},
			func(res pyResult) { insErr, limits = res.Error, res.ClientLimit })
		x.pyControl("cross_inet_keys", x.kcols, canon)
		x.after = append(x.after, func() {
			want := make([]reflect.Value, len(x.kcols))
			for i, c := range x.kcols {
				var r string
				var err error
				if want[i], r, err = xcRead(c.c.GoType(), c.typ, canon[i], true); r != "" || err != nil {
					x.t.Fatalf("scenario bug: %s: %q %v", key, r, err)
				}
			}
			all, err := x.inetKeys.List(ctx, &CrossInetKey{K: key}).All()
			if err == nil && len(all) != 1 {
				err = fmt.Errorf("%d rows", len(all))
			}
			for i, c := range x.kcols {
				where := "cross_inet_keys[" + key + "]." + c.c.Name()
				switch {
				case insErr != "":
					x.check("py→go", where, false, xcShow(want[i]), "Python insert: "+insErr, limits[c.c.CQLName()])
				case err != nil:
					x.check("py→go", where, false, xcShow(want[i]), "List: "+err.Error(), limits[c.c.CQLName()])
				default:
					v := reflect.ValueOf(crossInetKeys.Pointers(all[0], nil)[i]).Elem()
					x.check("py→go", where, xcEqual(want[i], v), xcShow(want[i]), xcShow(v), limits[c.c.CQLName()])
				}
			}
			if n == 0 { // Get binds the key: the inet collections as the server keeps them
				k := &CrossInetKey{K: key}
				for i, p := range crossInetKeys.Pointers(k, nil) {
					reflect.ValueOf(p).Elem().Set(want[i])
				}
				got, err := x.inetKeys.Get(ctx, k)
				g := "found"
				if err != nil {
					g = "Get: " + err.Error()
				} else if got == nil {
					g = "nil"
				}
				x.check("py→go", "cross_inet_keys["+key+"] (Get by the full key)", err == nil && got != nil, "found", g, "")
			}
		})
	}
}

// runPython runs every queued operation in one Python process and hands
// each result to its handler.
func (x *crossRun) runPython(py string) {
	t := x.t
	dir := t.TempDir()
	script := filepath.Join(dir, "crossclient.py")
	if err := os.WriteFile(script, crossClientPy, 0o644); err != nil {
		t.Fatal(err)
	}
	req, err := json.Marshal(map[string]any{
		"host":     envOr("KANDRA_CASSANDRA_HOST", "127.0.0.1"),
		"port":     envOr("KANDRA_CASSANDRA_PORT", "9042"),
		"keyspace": x.h.ks,
		"protocol": 5,
		"ops":      x.ops,
	})
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, py, script)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(req)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstderr:\n%s", py, script, err, stderr.String())
	}
	d := json.NewDecoder(&stdout)
	d.UseNumber()
	var out struct {
		Driver  string     `json:"driver"`
		Results []pyResult `json:"results"`
	}
	if err := d.Decode(&out); err != nil {
		t.Fatalf("Python's answer: %v\nstderr:\n%s", err, stderr.String())
	}
	if out.Driver != crossClientName || len(out.Results) != len(x.ops) {
		t.Fatalf("Python answered as %q with %d results for %d operations\nstderr:\n%s", out.Driver, len(out.Results), len(x.ops), stderr.String())
	}
	t.Logf("%s: %d operations in %v", out.Driver, len(x.ops), time.Since(start).Round(time.Millisecond))
	for i, r := range out.Results {
		if r.ID != x.ops[i]["id"] {
			t.Fatalf("result %d is for operation %s, want %s", i, r.ID, x.ops[i]["id"])
		}
		x.then[i](r)
	}
}

func envOr(k, d string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return d
}

// report prints the summary line, logs the client-limit checks and fails
// the test once per failing check.
func (x *crossRun) report() {
	t := x.t
	ok, limit := 0, 0
	for _, c := range x.checks {
		if c.ok {
			ok++
		}
		if c.limit != "" {
			limit++
			t.Logf("client_limit: %s %s: %s", c.dir, c.where, c.limit)
		}
	}
	if len(x.server) > 0 {
		t.Logf("server: %d cells expect what Cassandra 5.0 stores, not what was sent: an IPv4-mapped inet inside a collection of a regular column is stored as 4 bytes (it deserializes a bound collection into java.net.InetAddress), and a user-defined type of a column of its own (not frozen) whose every field is null as nothing (it reads back null)", len(x.server))
		var ws []string
		for w := range x.server {
			ws = append(ws, w)
		}
		sort.Strings(ws)
		for _, w := range ws {
			t.Logf("server: %s: %s", w, x.server[w])
		}
	}
	for _, c := range x.checks {
		if !c.ok {
			t.Errorf("%s %s:\n\twant %s\n\tgot  %s", c.dir, c.where, c.want, c.got)
		}
	}
	all := map[string]int{}
	for _, c := range x.checks {
		all[c.dir]++
	}
	t.Logf("checks by direction: %v", all)
	if n := len(x.checks) - ok; n > 0 {
		by := map[string]int{}
		for _, c := range x.checks {
			if !c.ok {
				by[c.dir]++
			}
		}
		t.Logf("failing checks by direction: %v", by)
	}
	patch := 0
	for _, c := range x.checks {
		if strings.HasPrefix(c.dir, "patch") {
			patch++
		}
	}
	fmt.Printf("real-server: crossclient adapter=%s client=%s checks=%d ok=%d client_limit=%d patch=%d\n",
		x.h.n.Name, crossClientName, len(x.checks), ok, limit, patch)
}
