package crossclient

// The canonical forms of CrossClientValues (documented in crossclient_test.go):
// what the rules say a Go value is stored as (xcWrite), what a stored
// value reads back as in Go (xcRead), and an equality that compares
// floats by their bits (xcEqual). These are the rules as the scenario
// states them, written independently of the adapters' codecs.

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra/internal/cqlorder"
)

var (
	xcTypeTime     = reflect.TypeFor[time.Time]()
	xcTypeAddr     = reflect.TypeFor[netip.Addr]()
	xcTypeNetIP    = reflect.TypeFor[net.IP]()
	xcTypeBig      = reflect.TypeFor[*big.Int]()
	xcTypeUUID     = reflect.TypeFor[uuid.UUID]()
	xcTypeDuration = reflect.TypeFor[time.Duration]()
	xcTypeFloat32  = reflect.TypeFor[float32]()
)

// The limits of the rules.
const (
	xcMaxTimeOfDay = 86399999999999 // TIME: nanoseconds in [0, this]
	xcYear1Millis  = -62135596800000
)

// xcEmpty is the canonical form of an empty value (zero bytes) of a type
// other than text and blob, where it is not the empty string: the Python
// side prints it for a stored empty value, and writes one for it.
var xcEmpty = map[string]any{"$empty": true}

func isEmptyCanon(c any) bool {
	m, ok := c.(map[string]any)
	return ok && m["$empty"] == true
}

// xcSpecial is the special type a named one (type At time.Time, type
// IPAddr netip.Addr, a 16-byte array type) is mapped as, or nil.
func xcSpecial(t reflect.Type) reflect.Type {
	switch {
	case t.Kind() == reflect.Struct && t.ConvertibleTo(xcTypeTime):
		return xcTypeTime
	case t.Kind() == reflect.Struct && t.ConvertibleTo(xcTypeAddr):
		return xcTypeAddr
	case t.Kind() == reflect.Array && t.Len() == 16 && t.Elem().Kind() == reflect.Uint8:
		return xcTypeUUID
	}
	return nil
}

func num(n int64) json.Number { return json.Number(strconv.FormatInt(n, 10)) }

// floorMillis is the TIMESTAMP rule: milliseconds since the epoch,
// floored; ok is false outside int64.
func floorMillis(tm time.Time) (int64, bool) {
	ms := new(big.Int).Mul(big.NewInt(tm.Unix()), big.NewInt(1000)) // Unix floors to the second
	ms.Add(ms, big.NewInt(int64(tm.Nanosecond())/1e6))
	return ms.Int64(), ms.IsInt64()
}

// floorDays is the DATE rule: the UTC calendar day of the instant.
func floorDays(tm time.Time) int64 {
	s := tm.Unix()
	d := s / 86400
	if s%86400 < 0 {
		d--
	}
	return d
}

// varintBytes is a varint's serialized form: minimal two's complement.
func varintBytes(x *big.Int) []byte {
	if x.Sign() >= 0 {
		b := x.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	n := 1
	for x.Cmp(new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), uint(8*n-1)))) < 0 {
		n++
	}
	return new(big.Int).Add(x, new(big.Int).Lsh(big.NewInt(1), uint(8*n))).Bytes()
}

func intWire(cql string, n int64) []byte {
	switch cql {
	case "tinyint":
		return []byte{byte(n)}
	case "smallint":
		return binary.BigEndian.AppendUint16(nil, uint16(n))
	case "int":
		return binary.BigEndian.AppendUint32(nil, uint32(n))
	case "varint":
		return varintBytes(big.NewInt(n))
	}
	return binary.BigEndian.AppendUint64(nil, uint64(n))
}

func float32Bits(v reflect.Value) uint32 {
	if v.Type() == xcTypeFloat32 {
		return math.Float32bits(v.Interface().(float32)) // not through float64: that quiets a signalling NaN
	}
	return math.Float32bits(float32(v.Float()))
}

// xcWrite is the canonical form the rules give Go value v stored as CQL
// type ct (top: a column's own value, which may be null), its serialized
// form (for the server's order of set elements and map keys), and, for a
// value the rules refuse, why.
func xcWrite(v reflect.Value, ct cqlorder.Type, top bool) (c any, wire []byte, refused string) {
	t := v.Type()
	if t == xcTypeBig {
		if v.IsNil() {
			if top {
				return nil, nil, ""
			}
			return nil, nil, "a nil *big.Int in a collection (not in the rules; not tested)"
		}
		b := v.Interface().(*big.Int)
		return b.String(), varintBytes(b), ""
	}
	if t.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, nil, ""
		}
		return xcWrite(v.Elem(), ct, top)
	}
	if base := xcSpecial(t); base != nil && t != base {
		return xcWrite(v.Convert(base), ct, top)
	}
	switch t {
	case xcTypeTime:
		tm := v.Interface().(time.Time)
		switch ct.Name {
		case "timestamp":
			ms, ok := floorMillis(tm)
			if !ok {
				return nil, nil, "outside a TIMESTAMP's int64 milliseconds"
			}
			return num(ms), binary.BigEndian.AppendUint64(nil, uint64(ms)), ""
		case "date":
			d := floorDays(tm)
			if d < math.MinInt32 || d > math.MaxInt32 {
				return nil, nil, "outside a DATE's days"
			}
			return num(d), binary.BigEndian.AppendUint32(nil, uint32(d+1<<31)), ""
		}
	case xcTypeDuration:
		ns := v.Int()
		switch ct.Name {
		case "duration":
			return []any{num(0), num(0), num(ns)}, nil, ""
		case "time":
			if ns < 0 || ns > xcMaxTimeOfDay {
				return nil, nil, "outside a TIME's day"
			}
			return num(ns), binary.BigEndian.AppendUint64(nil, uint64(ns)), ""
		}
	case xcTypeUUID:
		u := v.Interface().(uuid.UUID)
		if ct.Name == "timeuuid" {
			if u == (uuid.UUID{}) {
				if top {
					return nil, nil, ""
				}
				return nil, nil, "the zero UUID in a TIMEUUID collection (it would have to be null)"
			}
			if u.Version() != 1 {
				return nil, nil, fmt.Sprintf("a version %d UUID in a TIMEUUID", u.Version())
			}
		}
		return u.String(), u[:], ""
	case xcTypeAddr:
		a := v.Interface().(netip.Addr)
		switch {
		case !a.IsValid() && top:
			return nil, nil, ""
		case !a.IsValid():
			return nil, nil, "the zero Addr in a collection"
		case a.Zone() != "":
			return nil, nil, "an address with a zone"
		case a.Is4In6() && !top:
			return nil, nil, "an IPv4-mapped address in a collection (the server would store it as IPv4)"
		}
		b := a.AsSlice() // 4 bytes for IPv4, 16 for every IPv6 (a mapped one too)
		return hex.EncodeToString(b), b, ""
	case xcTypeNetIP:
		ip := v.Interface().(net.IP)
		var b []byte
		switch {
		case len(ip) == 0 && top:
			return nil, nil, ""
		case len(ip) == 0:
			return nil, nil, "an empty net.IP in a collection (not in the rules; not tested)"
		case ip.To4() != nil:
			b = ip.To4()
		case len(ip) == 16:
			b = ip
		default:
			return nil, nil, "a net.IP of " + strconv.Itoa(len(ip)) + " bytes (not in the rules; not tested)"
		}
		return hex.EncodeToString(b), slices.Clone(b), ""
	}
	switch t.Kind() {
	case reflect.String:
		s := v.String()
		if ct.Name == "ascii" {
			for i := 0; i < len(s); i++ {
				if s[i] > 127 {
					return nil, nil, "a byte above 127 in an ASCII"
				}
			}
		} else if !utf8.ValidString(s) {
			return nil, nil, "invalid UTF-8 in a TEXT"
		}
		return s, []byte(s), ""
	case reflect.Bool:
		if v.Bool() {
			return true, []byte{1}, ""
		}
		return false, []byte{0}, ""
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		return strconv.FormatInt(v.Int(), 10), intWire(ct.Name, v.Int()), ""
	case reflect.Float32:
		bits := float32Bits(v)
		return fmt.Sprintf("%08x", bits), binary.BigEndian.AppendUint32(nil, bits), ""
	case reflect.Float64:
		bits := math.Float64bits(v.Float())
		return fmt.Sprintf("%016x", bits), binary.BigEndian.AppendUint64(nil, bits), ""
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 { // BLOB
			if v.IsNil() && top {
				return nil, nil, ""
			}
			b := v.Bytes() // in a collection nil is the empty value
			return hex.EncodeToString(b), slices.Clone(b), ""
		}
		if v.IsNil() && !top {
			return nil, nil, "a nil collection inside a collection (not in the rules; not tested)"
		}
		if v.Len() == 0 && top {
			return nil, nil, "" // a non-frozen empty collection is null
		}
		elems, wires := make([]any, v.Len()), make([][]byte, v.Len())
		for i := range v.Len() {
			var r string
			if elems[i], wires[i], r = xcWrite(v.Index(i), ct.Args[0], false); r != "" {
				return nil, nil, "element " + strconv.Itoa(i) + ": " + r
			}
		}
		return elems, cqlorder.AppendCollection(nil, len(wires), wires), ""
	case reflect.Map:
		if v.IsNil() && !top {
			return nil, nil, "a nil collection inside a collection (not in the rules; not tested)"
		}
		if v.Len() == 0 && top {
			return nil, nil, ""
		}
		type entry struct {
			k, x   any
			kw, xw []byte
		}
		set := ct.Name == "set"
		var entries []entry
		it := v.MapRange()
		for it.Next() {
			var e entry
			var r string
			if e.k, e.kw, r = xcWrite(it.Key(), ct.Args[0], false); r != "" {
				return nil, nil, "key " + xcShow(it.Key()) + ": " + r
			}
			if !set {
				if e.x, e.xw, r = xcWrite(it.Value(), ct.Args[1], false); r != "" {
					return nil, nil, "value of " + xcShow(it.Key()) + ": " + r
				}
			}
			entries = append(entries, e)
		}
		sort.SliceStable(entries, func(i, j int) bool {
			if c := cqlorder.Compare(ct.Args[0], entries[i].kw, entries[j].kw); c != 0 {
				return c < 0
			}
			return bytes.Compare(entries[i].kw, entries[j].kw) < 0 // ties do not occur in the data
		})
		out := make([]any, len(entries))
		var wires [][]byte
		for i, e := range entries {
			if set {
				out[i] = e.k
				wires = append(wires, e.kw)
			} else {
				out[i] = []any{e.k, e.x}
				wires = append(wires, e.kw, e.xw)
			}
		}
		return out, cqlorder.AppendCollection(nil, len(entries), wires), ""
	case reflect.Struct:
		return xcWriteUDT(v, ct)
	case reflect.Array:
		if t.Elem().Kind() == reflect.Float32 && ct.Name == "vector" {
			elems, wire := make([]any, v.Len()), []byte{}
			for i := range v.Len() {
				bits := float32Bits(v.Index(i))
				elems[i] = fmt.Sprintf("%08x", bits)
				wire = binary.BigEndian.AppendUint32(wire, bits)
			}
			return elems, wire, ""
		}
	}
	panic(fmt.Sprintf("crossclient: no canonical form for %s as %s", t, ct))
}

func canonInt(c any) (*big.Int, error) {
	var s string
	switch x := c.(type) {
	case json.Number:
		s = x.String()
	case string:
		s = x
	default:
		return nil, fmt.Errorf("want an integer, got %T %v", c, c)
	}
	b, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return nil, fmt.Errorf("not an integer: %q", s)
	}
	return b, nil
}

func canonInt64(c any) (int64, error) {
	b, err := canonInt(c)
	if err != nil {
		return 0, err
	}
	if !b.IsInt64() {
		return 0, fmt.Errorf("%s is outside int64", b)
	}
	return b.Int64(), nil
}

func canonHex(c any) ([]byte, error) {
	s, ok := c.(string)
	if !ok {
		return nil, fmt.Errorf("want a hex string, got %T %v", c, c)
	}
	b, err := hex.DecodeString(s)
	if b == nil {
		b = []byte{}
	}
	return b, err
}

// xcRead is the Go value of type t the rules say a stored value with
// canonical form c (of CQL type ct) reads back as; refused says why the
// rules refuse to read it (the call fails with a *ValueError, Read true).
// err is a malformed canonical form (a bug of the scenario).
func xcRead(t reflect.Type, ct cqlorder.Type, c any, top bool) (v reflect.Value, refused string, err error) {
	if t == xcTypeBig {
		if c == nil {
			return reflect.Zero(t), "", nil
		}
		b, err := canonInt(c)
		return reflect.ValueOf(b), "", err
	}
	if t.Kind() == reflect.Pointer {
		if c == nil {
			return reflect.Zero(t), "", nil
		}
		x, r, err := xcRead(t.Elem(), ct, c, top)
		if r != "" || err != nil {
			return reflect.Value{}, r, err
		}
		p := reflect.New(t.Elem())
		p.Elem().Set(x)
		return p, "", nil
	}
	if base := xcSpecial(t); base != nil && t != base {
		x, r, err := xcRead(base, ct, c, top)
		if r != "" || err != nil {
			return reflect.Value{}, r, err
		}
		return x.Convert(t), "", nil
	}
	if c == nil {
		return reflect.Zero(t), "", nil // null: the zero value, nil for a blob, a net.IP and a collection
	}
	if isEmptyCanon(c) {
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && t != xcTypeNetIP {
			return reflect.MakeSlice(t, 0, 0), "", nil
		}
		return reflect.Zero(t), "", nil
	}
	switch t {
	case xcTypeTime:
		n, err := canonInt64(c)
		if err != nil {
			return reflect.Value{}, "", err
		}
		if ct.Name == "date" {
			return reflect.ValueOf(time.Unix(n*86400, 0).UTC()), "", nil
		}
		return reflect.ValueOf(time.UnixMilli(n).UTC()), "", nil
	case xcTypeDuration:
		if ct.Name == "time" {
			n, err := canonInt64(c)
			return reflect.ValueOf(time.Duration(n)), "", err
		}
		a, ok := c.([]any)
		if !ok || len(a) != 3 {
			return reflect.Value{}, "", fmt.Errorf("want [months, days, ns], got %v", c)
		}
		var mdn [3]int64
		for i := range a {
			if mdn[i], err = canonInt64(a[i]); err != nil {
				return reflect.Value{}, "", err
			}
		}
		if mdn[0] != 0 || mdn[1] != 0 {
			return reflect.Value{}, fmt.Sprintf("a duration of %d months %d days: not a time.Duration", mdn[0], mdn[1]), nil
		}
		return reflect.ValueOf(time.Duration(mdn[2])), "", nil
	case xcTypeUUID:
		s, _ := c.(string)
		u, err := uuid.Parse(s)
		return reflect.ValueOf(u), "", err
	case xcTypeAddr:
		b, err := canonHex(c)
		if err != nil {
			return reflect.Value{}, "", err
		}
		a, ok := netip.AddrFromSlice(b) // 4 bytes: AddrFrom4, 16: AddrFrom16 (a mapped one stays mapped)
		if !ok {
			return reflect.Value{}, "", fmt.Errorf("inet of %d bytes", len(b))
		}
		return reflect.ValueOf(a), "", nil
	case xcTypeNetIP:
		b, err := canonHex(c)
		if len(b) == 16 && bytes.HasPrefix(b, xcMappedPrefix) {
			return reflect.Value{}, "a 16-byte IPv4-mapped inet into a net.IP, which would write it back as 4 bytes", err
		}
		return reflect.ValueOf(net.IP(b)), "", err
	}
	switch t.Kind() {
	case reflect.String:
		s, ok := c.(string)
		if !ok {
			return reflect.Value{}, "", fmt.Errorf("want a string, got %T", c)
		}
		return reflect.ValueOf(s).Convert(t), "", nil
	case reflect.Bool:
		b, ok := c.(bool)
		if !ok {
			return reflect.Value{}, "", fmt.Errorf("want a bool, got %T", c)
		}
		return reflect.ValueOf(b).Convert(t), "", nil
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		b, err := canonInt(c)
		if err != nil {
			return reflect.Value{}, "", err
		}
		bits := uint(t.Bits())
		lo := new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), bits-1))
		hi := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), bits-1), big.NewInt(1))
		if b.Cmp(lo) < 0 || b.Cmp(hi) > 0 {
			return reflect.Value{}, fmt.Sprintf("%s does not fit in %s", b, t), nil
		}
		x := reflect.New(t).Elem()
		x.SetInt(b.Int64())
		return x, "", nil
	case reflect.Float32:
		b, err := canonHex(c)
		if err != nil || len(b) != 4 {
			return reflect.Value{}, "", fmt.Errorf("float %v: %v", c, err)
		}
		f := math.Float32frombits(binary.BigEndian.Uint32(b))
		if t == xcTypeFloat32 {
			return reflect.ValueOf(f), "", nil
		}
		return reflect.ValueOf(f).Convert(t), "", nil
	case reflect.Float64:
		b, err := canonHex(c)
		if err != nil || len(b) != 8 {
			return reflect.Value{}, "", fmt.Errorf("double %v: %v", c, err)
		}
		return reflect.ValueOf(math.Float64frombits(binary.BigEndian.Uint64(b))).Convert(t), "", nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			b, err := canonHex(c) // "" is the empty value: []byte{}, not nil
			return reflect.ValueOf(b).Convert(t), "", err
		}
		a, ok := c.([]any)
		if !ok {
			return reflect.Value{}, "", fmt.Errorf("want a list, got %T", c)
		}
		out := reflect.MakeSlice(t, len(a), len(a))
		for i, e := range a {
			x, r, err := xcRead(t.Elem(), ct.Args[0], e, false)
			if r != "" || err != nil {
				return reflect.Value{}, r, err
			}
			out.Index(i).Set(x)
		}
		return out, "", nil
	case reflect.Struct:
		return xcReadUDT(t, ct, c)
	case reflect.Array:
		a, ok := c.([]any)
		if !ok || len(a) != t.Len() || t.Elem().Kind() != reflect.Float32 {
			return reflect.Value{}, "", fmt.Errorf("want a vector of %d floats, got %v", t.Len(), c)
		}
		out := reflect.New(t).Elem()
		for i, e := range a {
			x, r, err := xcRead(t.Elem(), cqlorder.Type{Name: "float"}, e, false)
			if r != "" || err != nil {
				return reflect.Value{}, r, err
			}
			out.Index(i).Set(x)
		}
		return out, "", nil
	case reflect.Map:
		a, ok := c.([]any)
		if !ok {
			return reflect.Value{}, "", fmt.Errorf("want a set or map, got %T", c)
		}
		out := reflect.MakeMapWithSize(t, len(a))
		for _, e := range a {
			if ct.Name == "set" {
				k, r, err := xcRead(t.Key(), ct.Args[0], e, false)
				if r != "" || err != nil {
					return reflect.Value{}, r, err
				}
				out.SetMapIndex(k, reflect.Zero(t.Elem()))
				continue
			}
			kv, ok := e.([]any)
			if !ok || len(kv) != 2 {
				return reflect.Value{}, "", fmt.Errorf("want a [key, value] pair, got %v", e)
			}
			k, r, err := xcRead(t.Key(), ct.Args[0], kv[0], false)
			if r != "" || err != nil {
				return reflect.Value{}, r, err
			}
			x, r, err := xcRead(t.Elem(), ct.Args[1], kv[1], false)
			if r != "" || err != nil {
				return reflect.Value{}, r, err
			}
			out.SetMapIndex(k, x)
		}
		return out, "", nil
	}
	return reflect.Value{}, "", fmt.Errorf("no Go value of %s for %s", t, ct)
}

// xcEqual is reflect.DeepEqual, except that floats compare by their bits
// and *big.Int by value.
func xcEqual(a, b reflect.Value) bool {
	if a.IsValid() != b.IsValid() {
		return false
	}
	if !a.IsValid() {
		return true
	}
	if a.Type() != b.Type() {
		return false
	}
	t := a.Type()
	switch {
	case t == xcTypeBig:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return a.Interface().(*big.Int).Cmp(b.Interface().(*big.Int)) == 0
	case t.Kind() == reflect.Float32:
		return float32Bits(a) == float32Bits(b)
	case t.Kind() == reflect.Float64:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	case t.Kind() == reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return xcEqual(a.Elem(), b.Elem())
	case t.Kind() == reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !xcEqual(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case t.Kind() == reflect.Array && t.Elem().Kind() == reflect.Float32:
		for i := range a.Len() {
			if !xcEqual(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case t.Kind() == reflect.Struct && xcSpecial(t) == nil:
		for i := range a.NumField() {
			if !xcEqual(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case t.Kind() == reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		it := a.MapRange()
		for it.Next() {
			y := b.MapIndex(it.Key())
			if !y.IsValid() { // a key holding a NaN is no map key of another map: by bits
				for jt := b.MapRange(); jt.Next(); {
					if xcEqual(it.Key(), jt.Key()) {
						y = jt.Value()
						break
					}
				}
			}
			if !y.IsValid() || !xcEqual(it.Value(), y) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// xcShow renders a Go value for a failure message, telling apart what
// the rules tell apart (nil and empty, 4- and 16-byte addresses, float
// bits, a time's location).
func xcShow(v reflect.Value) string {
	if !v.IsValid() {
		return "<nothing>"
	}
	t := v.Type()
	switch {
	case t == xcTypeBig:
		if v.IsNil() {
			return "(*big.Int)(nil)"
		}
		return v.Interface().(*big.Int).String()
	case t.Kind() == reflect.Pointer:
		if v.IsNil() {
			return "nil"
		}
		return "&" + xcShow(v.Elem())
	case xcSpecial(t) != nil && t != xcSpecial(t):
		return t.String() + "(" + xcShow(v.Convert(xcSpecial(t))) + ")"
	case t == xcTypeTime:
		tm := v.Interface().(time.Time)
		s := tm.Format(time.RFC3339Nano)
		if tm.Location() != time.UTC {
			s += " loc=" + tm.Location().String()
		}
		if tm.IsZero() {
			s += " (zero)"
		}
		return s
	case t == xcTypeAddr:
		a := v.Interface().(netip.Addr)
		if !a.IsValid() {
			return "netip.Addr{}"
		}
		return fmt.Sprintf("%s (%d bytes)", a, a.BitLen()/8)
	case t == xcTypeNetIP:
		ip := v.Interface().(net.IP)
		if ip == nil {
			return "net.IP(nil)"
		}
		return fmt.Sprintf("net.IP{%x} (%d bytes)", []byte(ip), len(ip))
	case t == xcTypeDuration:
		return fmt.Sprintf("%dns", v.Int())
	case t.Kind() == reflect.Float32:
		return fmt.Sprintf("%v (bits %08x)", v.Float(), float32Bits(v))
	case t.Kind() == reflect.Float64:
		return fmt.Sprintf("%v (bits %016x)", v.Float(), math.Float64bits(v.Float()))
	case t.Kind() == reflect.String:
		return strconv.Quote(v.String())
	case t.Kind() == reflect.Array && t.Elem().Kind() == reflect.Float32:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = fmt.Sprintf("%08x", float32Bits(v.Index(i)))
		}
		return t.String() + "{bits " + strings.Join(parts, " ") + "}"
	case t.Kind() == reflect.Struct && xcSpecial(t) == nil:
		parts := make([]string, 0, v.NumField())
		for i := range v.NumField() {
			parts = append(parts, t.Field(i).Name+": "+xcShow(v.Field(i)))
		}
		return t.Name() + "{" + strings.Join(parts, ", ") + "}"
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		if v.IsNil() {
			return "[]byte(nil)"
		}
		return fmt.Sprintf("[]byte{%x}", v.Bytes())
	case t.Kind() == reflect.Slice:
		if v.IsNil() {
			return "nil"
		}
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = xcShow(v.Index(i))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case t.Kind() == reflect.Map:
		if v.IsNil() {
			return "nil"
		}
		var parts []string
		it := v.MapRange()
		for it.Next() {
			if t.Elem().Kind() == reflect.Struct && t.Elem().NumField() == 0 {
				parts = append(parts, xcShow(it.Key()))
			} else {
				parts = append(parts, xcShow(it.Key())+": "+xcShow(it.Value()))
			}
		}
		sort.Strings(parts)
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprintf("%v", v.Interface())
}

// canonJSON renders a canonical form compactly.
func canonJSON(c any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// normCanon puts a canonical form built in Go into the shape JSON
// decoding with UseNumber gives the Python side's.
func normCanon(c any) any {
	b, err := json.Marshal(c)
	if err != nil {
		panic(err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out any
	if err := d.Decode(&out); err != nil {
		panic(err)
	}
	return out
}

// xcMappedPrefix is the first 12 bytes of an IPv4-mapped IPv6 address.
var xcMappedPrefix = []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}

// xcServerStored is what Cassandra 5.0 stores for canonical form c sent
// for a column of type ct that is not a descending clustering column: it
// deserializes every element of a bound collection into a
// java.net.InetAddress, which makes an IPv4-mapped address (::ffff:a.b.c.d,
// 16 bytes) an Inet4Address, stored as 4 bytes; a set or a map that then
// holds an address twice holds it once. A column's own inet value is
// stored as sent, and so is a frozen collection in a descending
// clustering column (the server does not see it as a collection there).
func xcServerStored(ct cqlorder.Type, c any, inCollection bool) any {
	if c == nil || isEmptyCanon(c) {
		return c
	}
	switch ct.Name {
	case "inet":
		if s, ok := c.(string); ok && inCollection {
			if b, err := hex.DecodeString(s); err == nil && len(b) == 16 && bytes.HasPrefix(b, xcMappedPrefix) {
				return hex.EncodeToString(b[12:])
			}
		}
		return c
	case "list":
		a, _ := c.([]any)
		out := make([]any, len(a))
		for i, e := range a {
			out[i] = xcServerStored(ct.Args[0], e, true)
		}
		return out
	case "set", "map":
		a, _ := c.([]any)
		var out []any
		seen := map[string]bool{}
		for _, e := range a {
			k, x := e, any(nil)
			if ct.Name == "map" {
				kv := e.([]any)
				k, x = kv[0], xcServerStored(ct.Args[1], kv[1], true)
			}
			k = xcServerStored(ct.Args[0], k, true)
			if seen[canonJSON(k)] {
				continue // the server holds it once (maps in the data have no such pair)
			}
			seen[canonJSON(k)] = true
			if ct.Name == "map" {
				out = append(out, []any{k, x})
			} else {
				out = append(out, k)
			}
		}
		if ct.Args[0].Name == "inet" { // the server's order of inet: by bytes
			key := func(e any) []byte {
				if ct.Name == "map" {
					e = e.([]any)[0]
				}
				b, _ := hex.DecodeString(e.(string))
				return b
			}
			sort.SliceStable(out, func(i, j int) bool { return cqlorder.Compare(ct.Args[0], key(out[i]), key(out[j])) < 0 })
		}
		return out
	}
	return c
}
