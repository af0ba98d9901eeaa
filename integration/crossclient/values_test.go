package crossclient

// The values of CrossClientValues: fixed, no random draw.

import (
	"bytes"
	"math"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"strings"
	"time"

	"github.com/google/uuid"
)

var (
	xcV1a  = uuid.MustParse("c232ab00-9414-11ec-b3c8-9f6bdeced846") // version 1
	xcV1b  = uuid.MustParse("00000000-0000-1000-8000-000000000000") // version 1, time 0
	xcV1c  = uuid.MustParse("ffffffff-ffff-1fff-bfff-ffffffffffff") // version 1, the last time, high bytes
	xcV4   = uuid.MustParse("f47ac10b-58cc-4372-a567-0e02b2c3d479")
	xcV7   = uuid.MustParse("01890a5d-ac96-774b-bcce-b302099a8057")
	xcUMax = uuid.MustParse("ffffffff-ffff-ffff-ffff-ffffffffffff")

	// Times. Floor to the millisecond and to the UTC day; Python's datetime
	// holds years 1..9999.
	xcPre        = time.Date(1969, 12, 31, 12, 0, 0, 123456789, time.UTC) // -43199877 ms, day -1
	xcPreWhole   = time.Date(1969, 7, 20, 20, 17, 40, 0, time.UTC)
	xcJustBefore = time.Date(1969, 12, 31, 23, 59, 59, 999999999, time.UTC) // -1 ms, day -1
	xcJustAfter  = time.Unix(0, 1).UTC()                                    // 0 ms
	xcFar        = time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC)     // 253402300799999 ms
	xcFarSub     = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
	xcYear1Sub   = time.Date(1, 1, 1, 0, 0, 0, 500000, time.UTC) // the zero time's millisecond
	xcYear1Noon  = time.Date(1, 1, 1, 12, 0, 0, 0, time.UTC)
	xcZoned      = time.Date(2024, 5, 6, 7, 8, 9, 123e6, time.FixedZone("IST", 5*3600+1800))
	xcZoneDay    = time.Date(2024, 1, 1, 1, 0, 0, 0, time.FixedZone("+05", 5*3600)) // UTC day 2023-12-31
	xcMaxMs      = time.UnixMilli(math.MaxInt64)                                    // beyond Python's datetime
	xcMinMs      = time.UnixMilli(math.MinInt64)
	xcMaxMsSub   = time.UnixMilli(math.MaxInt64).Add(999999) // floors to MaxInt64
	xcYear0      = time.Date(0, 12, 31, 23, 59, 59, 0, time.UTC)
	xcYear10000  = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	xcMinDay     = time.Unix(-(1<<31)*86400, 0).UTC() // day -2^31
	xcMinDayLate = xcMinDay.Add(24*time.Hour - 1)
	xcMaxDay     = time.Unix((1<<31-1)*86400, 0).UTC() // day 2^31-1
	xcMaxDayLast = xcMaxDay.Add(24*time.Hour - 1)
	// Refused.
	xcTooLate      = time.Date(300000000, 1, 1, 0, 0, 0, 0, time.UTC)
	xcTooEarly     = time.Date(-300000000, 1, 1, 0, 0, 0, 0, time.UTC)
	xcJustTooEarly = time.UnixMilli(math.MinInt64).Add(-1) // floors below MinInt64
	xcDayTooLate   = xcMaxDay.Add(24 * time.Hour)
	xcDayTooEarly  = xcMinDay.Add(-1)

	xcA4       = netip.AddrFrom4([4]byte{10, 0, 0, 1})
	xcA4in6    = netip.AddrFrom16(xcA4.As16()) // ::ffff:10.0.0.1, 16 bytes
	xcALoop    = netip.MustParseAddr("::1")
	xcA6       = netip.MustParseAddr("2001:db8:85a3::8a2e:370:7334")
	xcAZoned   = netip.MustParseAddr("fe80::1%eth0")
	xcA4Zero   = netip.AddrFrom4([4]byte{})
	xcA6Zero   = netip.IPv6Unspecified()
	xcA4Max    = netip.AddrFrom4([4]byte{255, 255, 255, 255})
	xcA6Max    = netip.MustParseAddr("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")
	xcA2001db8 = netip.MustParseAddr("2001:db8::1")
)

func f32(bits uint32) float32 { return math.Float32frombits(bits) }
func f64(bits uint64) float64 { return math.Float64frombits(bits) }

func bigPow2(n uint, neg bool, add int64) *big.Int {
	b := new(big.Int).Lsh(big.NewInt(1), n)
	if neg {
		b.Neg(b)
	}
	return b.Add(b, big.NewInt(add))
}

func ptr[T any](v T) *T { return &v }

// xcFields are the values of CrossValues's fields, by Go field name: row
// i (from 1) has the i-th value of every field that has one, and the zero
// value elsewhere; row 0 is the zero entity.
var xcFields = map[string][]any{
	"Text": {"a", "nul\x00byte", "\x00", "emoji 😀👍🏽", "日本語", "é", strings.Repeat("0123456789", 100), " leading space",
		"quote ' and \"", "\u2028\u2029\ufeff"},
	"Varchar":   {"varchar ✓", "\x00"},
	"ASCIIText": {"plain ascii", "\x00\x7f", "~"},
	"Bool":      {true, false},

	"Tiny":          {int8(math.MinInt8), int8(math.MaxInt8), int8(-1), int8(1)},
	"Small":         {int16(math.MinInt16), int16(math.MaxInt16), int16(-1), int16(1)},
	"Int32":         {int32(math.MinInt32), int32(math.MaxInt32), int32(-1)},
	"Int64":         {int64(math.MinInt64), int64(math.MaxInt64), int64(-1)},
	"GoInt":         {int(math.MinInt), int(math.MaxInt)},
	"TinyAsSmall":   {int8(math.MinInt8), int8(math.MaxInt8)},
	"TinyAsInt":     {int8(math.MinInt8), int8(math.MaxInt8)},
	"TinyAsBig":     {int8(math.MinInt8), int8(math.MaxInt8)},
	"TinyAsVarint":  {int8(math.MinInt8), int8(math.MaxInt8), int8(-1), int8(1)},
	"SmallAsInt":    {int16(math.MinInt16), int16(math.MaxInt16)},
	"SmallAsBig":    {int16(math.MinInt16), int16(math.MaxInt16)},
	"SmallAsVarint": {int16(math.MinInt16), int16(math.MaxInt16)},
	"IntAsBig":      {int32(math.MinInt32), int32(math.MaxInt32)},
	"IntAsVarint":   {int32(math.MinInt32), int32(math.MaxInt32)},
	"BigAsVarint":   {int64(math.MinInt64), int64(math.MaxInt64)},
	"GoIntAsVarint": {int(math.MinInt), int(math.MaxInt)},

	"F32": {f32(0x7fc00000), f32(0xffc00000), f32(0x7fc00001), f32(0x7f800000), f32(0xff800000), f32(0x80000000),
		f32(0x00000001), f32(0x007fffff), f32(0x00800000), f32(0x7f7fffff), f32(0xff7fffff), f32(0x3fc00000),
		f32(0x7f800001)}, // the last: a signalling NaN
	"F64": {f64(0x7ff8000000000000), f64(0xfff8000000000000), f64(0x7ff8000000000001), f64(0x7ff0000000000001),
		f64(0x7ff0000000000000), f64(0xfff0000000000000), f64(0x8000000000000000), f64(0x0000000000000001),
		f64(0x000fffffffffffff), f64(0x0010000000000000), f64(0x7fefffffffffffff), f64(0xffefffffffffffff),
		f64(0x3fb999999999999a)},

	"Blob":    {[]byte{}, []byte{0}, []byte{0xff, 0, 0x7f}, bytes.Repeat([]byte{0xab}, 1000)},
	"BlobPtr": {ptr([]byte{}), ptr([]byte{1, 2, 3})},

	"TS": {xcPre, xcJustBefore, xcJustAfter, xcFar, xcFarSub, xcYear1Sub, xcZoned, xcPreWhole, xcMaxMs, xcMinMs,
		xcMaxMsSub, xcYear0, xcYear10000},
	"Day": {xcPre, xcJustBefore, xcJustAfter, xcFar, xcYear1Noon, xcZoneDay, xcMinDay, xcMinDayLate, xcMaxDay,
		xcMaxDayLast},
	"TSPtr":   {ptr(time.Time{}), ptr(xcPre), ptr(xcFar), ptr(xcMaxMs)},
	"DayPtr":  {ptr(time.Time{}), ptr(xcPre), ptr(xcMaxDay)},
	"Seen":    {At(xcPre), At(time.Time{}), At(xcFar), At(xcMinMs)},
	"SeenDay": {At(xcPre), At(xcZoneDay), At(xcMinDay)},

	"Dur":    {time.Duration(-1), time.Duration(math.MinInt64), time.Duration(math.MaxInt64), time.Duration(1), 25*time.Hour + 1, -24 * time.Hour},
	"DurPtr": {ptr(time.Duration(0)), ptr(-5 * time.Second), ptr(time.Duration(math.MaxInt64))},
	"Clock":  {time.Duration(xcMaxTimeOfDay), time.Duration(1), 12 * time.Hour},

	"ID":     {xcV1a, xcV4, xcV7, xcUMax, xcV1c},
	"TimeID": {xcV1a, xcV1b, xcV1c},
	"IDPtr":  {ptr(uuid.Nil), ptr(xcV4)},
	"Digest": {Digest(xcUMax), Digest{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}},
	"User":   {UserID(xcV4), UserID(xcUMax)},

	"Addr":      {xcA4, xcA4in6, xcALoop, xcA6, xcA4Zero, xcA6Zero, xcA4Max, xcA6Max},
	"AddrPtr":   {ptr(xcA4), ptr(xcA4in6), ptr(netip.Addr{})},
	"NamedAddr": {IPAddr(xcA4in6), IPAddr(xcA4), IPAddr(xcALoop)},
	"IP":        {net.IPv4(10, 0, 0, 1), net.IP{10, 0, 0, 1}, net.ParseIP("::1"), net.ParseIP("2001:db8::1"), net.IP{}},

	"Big": {bigPow2(200, false, 0), bigPow2(200, true, 0), big.NewInt(0), big.NewInt(-1), bigPow2(63, false, 0),
		bigPow2(63, true, -1), big.NewInt(127), big.NewInt(128), big.NewInt(-128), big.NewInt(-129), big.NewInt(255), big.NewInt(256)},

	"StrPtr":  {ptr(""), ptr("x\x00y"), ptr("😀")},
	"I32Ptr":  {ptr(int32(0)), ptr(int32(math.MinInt32))},
	"I64Ptr":  {ptr(int64(math.MaxInt64)), ptr(int64(0))},
	"BoolPtr": {ptr(false), ptr(true)},
	"F32Ptr":  {ptr(f32(0x80000000)), ptr(f32(0x7f800000)), ptr(f32(0x7fc00000))},
	"F64Ptr":  {ptr(f64(0x7ff8000000000000)), ptr(f64(0x8000000000000000)), ptr(f64(0x7fefffffffffffff))},

	"Tags":    {[]string{}, []string{"", "a", "a"}, []string{"z", "a", "😀", "nul\x00"}},
	"Labels":  {map[string]struct{}{}, map[string]struct{}{"b": {}, "a": {}, "": {}}, map[string]struct{}{"é": {}, "e": {}, "z": {}, "E": {}}},
	"Counts":  {map[string]int32{}, map[string]int32{"b": math.MinInt32, "a": math.MaxInt32, "": 0}},
	"Stamps":  {[]time.Time{}, []time.Time{{}, xcPre, xcFar, xcZoned}, []time.Time{xcMaxMs, xcMinMs}},
	"Addrs":   {map[netip.Addr]struct{}{}, map[netip.Addr]struct{}{xcA4: {}, xcALoop: {}, xcA2001db8: {}, xcA4Zero: {}, xcA4Max: {}}},
	"Blobs":   {map[string][]byte{}, map[string][]byte{"nil": nil, "empty": {}, "x": {1, 2}}},
	"Days":    {[]time.Time{}, []time.Time{{}, xcPre, xcMaxDay, xcMinDay}},
	"Grid":    {[][]int32{}, [][]int32{{1, 2}, {math.MinInt32}, {3}}},
	"Groups":  {map[string][]string{"b": {"x", "y"}, "a": {"z"}, "": {""}}},
	"Bags":    {[]map[int32]struct{}{{3: {}, 1: {}, 2: {}, -1: {}}, {math.MinInt32: {}}}},
	"Durs":    {[]time.Duration{-1, math.MaxInt64, 0, math.MinInt64}},
	"Clocks":  {[]time.Duration{0, xcMaxTimeOfDay, 1}},
	"UUIDs":   {map[uuid.UUID]struct{}{xcV1a: {}, xcV1b: {}, xcV4: {}, xcV7: {}, uuid.Nil: {}, xcUMax: {}}},
	"TimeIDs": {[]uuid.UUID{xcV1a, xcV1b, xcV1c}},
	"IPs":     {[]net.IP{{10, 0, 0, 1}, net.IPv4(10, 0, 0, 2), net.ParseIP("::1")}},
	"Bigs":    {[]*big.Int{bigPow2(200, false, 0), bigPow2(200, true, 0), big.NewInt(0)}},
	"When":    {map[string]At{"zero": {}, "pre": At(xcPre), "far": At(xcFar)}},
	"F64s":    {[]float64{f64(0x7ff8000000000000), f64(0x8000000000000000), math.Inf(1), f64(1), f64(0x7ff0000000000001)}},

	// User-defined types (udt_test.go).
	"Card":       {xcCardFull, xcCardEmpty, xcCardEdge, XcCard{Name: "only a name"}},
	"CardFrozen": {xcCardEdge, xcCardFull, XcCard{}, xcCardEmpty},
	"CardPtr":    {&xcCardEmpty, (*XcCard)(nil), &xcCardFull},
	"Opt":        {&XcOpt{A: ptr("x")}, &XcOpt{B: ptr(int64(math.MinInt64))}, (*XcOpt)(nil), &XcOpt{C: &XcPoint{}}},
	"OptFrozen":  {&XcOpt{}, &XcOpt{A: ptr("")}, (*XcOpt)(nil)},
	"OptVal":     {XcOpt{}, XcOpt{B: ptr(int64(1)), C: &XcPoint{X: 1}}},
	"Cards":      {[]XcCard{xcCardFull, xcCardEmpty}, []XcCard{{}}, []XcCard{}, []XcCard{xcCardEdge, {Name: "b"}}},
	"Points": {map[XcPoint]struct{}{{X: 1, Y: 2}: {}, {X: f32(0x80000000)}: {}, {}: {}, {X: -1, Y: 5}: {}, {X: f32(0x7f800000), Y: -1}: {},
		{X: f32(0x7fc00000), Y: 3}: {}, {X: f32(0x00000001)}: {}, {X: 1, Y: f64(0x8000000000000000)}: {}}, map[XcPoint]struct{}{}},
	"ByName": {map[string]XcPoint{"b": {X: 1, Y: 1}, "a": {}, "": {X: f32(0xff800000), Y: f64(0x7ff8000000000001)}}},
	// Vectors: NaN payloads, -0, ±Inf, subnormals, the largest finite;
	// 0x7f800001 and 0x7fa00000 are signalling NaNs.
	"Vec": {[4]float32{f32(0x7fc00001), f32(0xffc00000), f32(0x80000000), f32(0x7f800000)},
		[4]float32{f32(0xff800000), f32(0x00000001), f32(0x807fffff), f32(0x7f7fffff)},
		[4]float32{f32(0x7f800001), f32(0x3fc00000), 0, f32(0x00800000)},
		[4]float32{f32(0x7fffffff), f32(0xffffffff), f32(0x7fc12345), f32(0xff7fffff)}},
	"VecPtr": {ptr([3]float32{1, 2, 3}), (*[3]float32)(nil), ptr([3]float32{f32(0x80000000), f32(0x7fa00000), f32(0x80000001)}), ptr([3]float32{})},
	"Vec1":   {[1]float32{f32(0x7fc00000)}, [1]float32{f32(0x80000000)}},
}

// The XcCard values of the user-defined type columns.
var (
	xcCardFull = XcCard{Name: "card ✓", Note: ptr("note"), At: xcPre, Addr: xcA4in6, IP: net.IPv4(10, 0, 0, 1), ID: xcV4,
		Bytes: []byte{}, Wait: -1, Big: bigPow2(70, true, 0), F32: f32(0x7fc00001), F64: f64(0x8000000000000000),
		Tags: []string{"", "b", "a"}, Set: map[string]struct{}{"z": {}, "a": {}, "é": {}}, Counts: map[string]int32{"x": math.MinInt32, "a": 1},
		Stamps: []time.Time{{}, xcFar, xcZoned}, Addrs: map[netip.Addr]struct{}{xcA6: {}, xcA4: {}, xcALoop: {}},
		Pin: XcPoint{X: f32(0x80000000), Y: math.Inf(-1)}, PinPtr: &XcPoint{X: 1, Y: 2}, Pins: []XcPoint{{}, {X: 1}}, Left: "not stored"}
	// Empty frozen collections inside a type stay empty (not null).
	xcCardEmpty = XcCard{Tags: []string{}, Set: map[string]struct{}{}, Counts: map[string]int32{}, Stamps: []time.Time{},
		Addrs: map[netip.Addr]struct{}{}, Pins: []XcPoint{}, PinPtr: &XcPoint{}, IP: net.IP{}, Addr: xcA4Zero}
	// At the edges: a timestamp past Python's datetime, a signalling NaN,
	// the largest duration, a zero UUID, IPv6.
	xcCardEdge = XcCard{Name: "\x00", At: xcMaxMs, Addr: xcA6, IP: net.ParseIP("2001:db8::1"), ID: uuid.Nil, Bytes: []byte{0, 0xff},
		Wait: math.MaxInt64, Big: big.NewInt(0), F32: f32(0x7f800001), F64: f64(0x7ff0000000000001), Stamps: []time.Time{xcMinMs},
		Pins: []XcPoint{{X: f32(0x00000001), Y: f64(0x0000000000000001)}}}
)

// xcRefused are values the rules refuse on a write: Save fails with a
// *ValueError naming the column, and nothing is written.
var xcRefused = []struct {
	field string
	value any
}{
	{"TS", xcTooLate},
	{"TS", xcTooEarly},
	{"TS", xcJustTooEarly},
	{"TSPtr", ptr(xcTooLate)},
	{"Seen", At(xcTooLate)},
	{"Stamps", []time.Time{xcPre, xcTooLate}},
	{"When", map[string]At{"x": At(xcTooEarly)}},
	{"Day", xcDayTooLate},
	{"Day", xcDayTooEarly},
	{"DayPtr", ptr(xcDayTooLate)},
	{"SeenDay", At(xcDayTooEarly)},
	{"Days", []time.Time{xcDayTooLate}},
	{"Clock", time.Duration(-1)},
	{"Clock", time.Duration(xcMaxTimeOfDay + 1)},
	{"Clocks", []time.Duration{24 * time.Hour}},
	{"Addr", xcAZoned},
	{"AddrPtr", ptr(xcAZoned)},
	{"NamedAddr", IPAddr(xcAZoned)},
	{"Addrs", map[netip.Addr]struct{}{xcAZoned: {}}},
	{"Addrs", map[netip.Addr]struct{}{{}: {}, xcA4: {}}},
	{"Addrs", map[netip.Addr]struct{}{xcA4in6: {}, xcA4: {}}}, // Cassandra would store it as IPv4 and keep one
	{"Text", "\xff"},
	{"Varchar", "a\xc0"},
	{"ASCIIText", "é"},
	{"ASCIIText", "\x80"},
	{"StrPtr", ptr("\xff")},
	{"Tags", []string{"ok", "\xff"}},
	{"Labels", map[string]struct{}{"\xfe": {}}},
	{"Counts", map[string]int32{"\xff": 1}},
	{"Groups", map[string][]string{"k": {"\xff"}}},
	{"TimeID", xcV4},
	{"TimeID", xcV7},
	{"TimeID", xcUMax},
	{"TimeIDs", []uuid.UUID{xcV1a, xcV4}},
	{"TimeIDs", []uuid.UUID{uuid.Nil}},
	// In user-defined types: a field's own rules, and a non-frozen column
	// of a *struct whose every field is null (it would read back nil).
	{"Opt", &XcOpt{}},
	{"Card", XcCard{Name: "\xff"}},
	{"Card", XcCard{Addr: xcAZoned}},
	{"CardFrozen", XcCard{Stamps: []time.Time{xcTooLate}}},
	{"CardPtr", &XcCard{Addrs: map[netip.Addr]struct{}{xcA4in6: {}}}},
	{"Cards", []XcCard{{Tags: []string{"\xff"}}}},
}

// xcReadRefused are cells Python writes that the field's Go type cannot
// hold: Get fails with a *ValueError (Read true) naming the column. The
// canonical forms replace one column of the zero row.
var xcReadRefused = []struct {
	column string
	canon  any
}{
	{"dur", []any{1, 0, 0}}, // Duration(1, 0, 0): a month
	{"dur", []any{0, 1, 0}},
	{"dur", []any{-1, 0, 0}},
	{"dur_ptr", []any{0, 1, 5}},
	{"durs", []any{[]any{0, 0, 1}, []any{0, 1, 0}}},
	// Integers wider than the Go field (derived: "a stored cell the
	// field's Go type cannot hold").
	{"tiny_as_small", "128"},
	{"tiny_as_int", "-129"},
	{"tiny_as_big", "1000"},
	{"tiny_as_varint", "200"},
	{"small_as_int", "40000"},
	{"small_as_big", "-40000"},
	{"small_as_varint", "32768"},
	{"int_as_big", "2147483648"},
	{"int_as_varint", "-2147483649"},
	{"big_as_varint", "9223372036854775808"},
	{"go_int_as_varint", "-9223372036854775809"},
	// A 16-byte IPv4-mapped address into a net.IP, which would write it
	// back as 4 bytes.
	{"ip", "00000000000000000000ffff0a000001"},
	// Inside user-defined types (a func: from the zero row's canonical
	// forms, by column): a duration with months or days in a field, in a
	// column of its own, a frozen one, a pointer and a list element.
	{"card", func(z map[string]any) any { return xcWith(z["card"], "wait", []any{1, 0, 0}) }},
	{"card_frozen", func(z map[string]any) any { return xcWith(z["card_frozen"], "wait", []any{0, 1, 0}) }},
	{"card_ptr", func(z map[string]any) any { return xcWith(z["card"], "wait", []any{0, -1, -5}) }},
	{"cards", func(z map[string]any) any { return []any{z["card"], xcWith(z["card"], "wait", []any{2, 0, 0})} }},
}

// xcWith is the canonical object c with field f set to v.
func xcWith(c any, f string, v any) any {
	m := map[string]any{}
	for k, x := range c.(map[string]any) {
		m[k] = x
	}
	m[f] = v
	return m
}

// xcPyOnly are rows only Python writes, from canonical forms no Go value
// is written as: a 16-byte IPv4-mapped net.IP element, and empty values.
var xcPyOnly = []struct {
	name    string
	columns map[string]any
}{
	// In a list of a regular column the server stores a mapped address
	// as IPv4, so the net.IP reads 4 bytes.
	{"ip16", map[string]any{"ips": []any{"00000000000000000000ffff0a000001", "0a000001"}}},
	{"empty", map[string]any{
		"ts": xcEmpty, "seen": xcEmpty, "addr": xcEmpty, "named_addr": xcEmpty, "ip": xcEmpty,
		"blob": "", "blob_ptr": "", "text": "", "varchar": "", "ascii_text": "", "str_ptr": "",
	}},
}

// crossRows builds the rows of cross_values: the zero entity, then one
// entity per index of xcFields.
func crossRows() []*CrossValues {
	n := 0
	for _, vs := range xcFields {
		n = max(n, len(vs))
	}
	rows := []*CrossValues{{K: "a-00"}}
	for i := range n {
		e := &CrossValues{K: "a-" + twoDigits(i+1)}
		for f, vs := range xcFields {
			if i < len(vs) {
				setField(e, f, vs[i])
			}
		}
		rows = append(rows, e)
	}
	return rows
}

func twoDigits(i int) string { return string([]byte{byte('0' + i/10), byte('0' + i%10)}) }

// setField sets e's field f to v (of the field's type exactly).
func setField(e any, f string, v any) {
	fv := reflect.ValueOf(e).Elem().FieldByName(f)
	if !fv.IsValid() {
		panic("crossclient: no field " + f)
	}
	fv.Set(reflect.ValueOf(v))
}
