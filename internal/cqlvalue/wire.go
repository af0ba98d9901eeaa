package cqlvalue

import (
	"encoding/binary"
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"strings"
	"time"
)

// The wire types: each is a Go type kandra maps, redeclared with the
// MarshalCQL and UnmarshalCQL methods both gocql drivers call before
// their own conversions, so that the bytes follow the rules above. I is
// the driver's TypeInfo type (gocql.TypeInfo of v1 or of v2): with it,
// Timestamp[gocql.TypeInfo] implements that driver's gocql.Marshaler and
// *Timestamp[gocql.TypeInfo] its gocql.Unmarshaler, from one definition.
// The info is not read: an adapter uses each wire type only for the CQL
// type it is named after. Each has the underlying type of its Go type, so
// that a field's address converts to a pointer of the wire type to the
// same memory (no copy, no temporary).
type (
	// Timestamp is a time.Time in a TIMESTAMP column (see
	// TimestampMillis and DecodeTimestamp).
	Timestamp[I any] time.Time
	// Date is a time.Time in a DATE column (see DateDays and DecodeDate).
	Date[I any] time.Time
	// TimeOfDay is a time.Duration (any int64 type) in a TIME column: 8
	// bytes of nanoseconds, refused outside a day (CheckTimeOfDay).
	TimeOfDay[I any] int64
	// Inet is a netip.Addr in an INET column (see InetBytes and
	// DecodeInet); the zero Addr is null.
	Inet[I any] netip.Addr
	// NetIP is a net.IP in an INET column (see NetIPBytes and
	// DecodeNetIP); nil is null.
	NetIP[I any] net.IP
	// Blob is a column's own []byte in a BLOB: nil is null, an empty
	// slice an empty value, and an empty value reads back as []byte{}.
	Blob[I any] []byte
	// BlobElem is a []byte inside a collection, which cannot hold null:
	// nil is an empty value, and every element reads back non-nil.
	BlobElem[I any] []byte
)

// MarshalCQL implements the driver's Marshaler.
func (w Timestamp[I]) MarshalCQL(I) ([]byte, error) { return AppendTimestamp(nil, time.Time(w)) }

// UnmarshalCQL implements the driver's Unmarshaler.
func (w *Timestamp[I]) UnmarshalCQL(_ I, data []byte) error {
	t, _, err := DecodeTimestamp(data)
	if err != nil {
		return err
	}
	*w = Timestamp[I](t)
	return nil
}

// MarshalCQL implements the driver's Marshaler.
func (w Date[I]) MarshalCQL(I) ([]byte, error) { return AppendDate(nil, time.Time(w)) }

// UnmarshalCQL implements the driver's Unmarshaler.
func (w *Date[I]) UnmarshalCQL(_ I, data []byte) error {
	t, _, err := DecodeDate(data)
	if err != nil {
		return err
	}
	*w = Date[I](t)
	return nil
}

// MarshalCQL implements the driver's Marshaler.
func (w TimeOfDay[I]) MarshalCQL(I) ([]byte, error) {
	if err := CheckTimeOfDay(int64(w)); err != nil {
		return nil, err
	}
	return binary.BigEndian.AppendUint64(nil, uint64(w)), nil
}

// UnmarshalCQL implements the driver's Unmarshaler: 8 bytes, or 0 for
// null and an empty value.
func (w *TimeOfDay[I]) UnmarshalCQL(_ I, data []byte) error {
	switch len(data) {
	case 0:
		*w = 0
	case 8:
		*w = TimeOfDay[I](binary.BigEndian.Uint64(data))
	default:
		return sizeErr("TIME", 8, len(data))
	}
	return nil
}

// MarshalCQL implements the driver's Marshaler.
func (w Inet[I]) MarshalCQL(I) ([]byte, error) { return InetBytes(netip.Addr(w)) }

// UnmarshalCQL implements the driver's Unmarshaler.
func (w *Inet[I]) UnmarshalCQL(_ I, data []byte) error {
	a, err := DecodeInet(data)
	if err != nil {
		return err
	}
	*w = Inet[I](a)
	return nil
}

// MarshalCQL implements the driver's Marshaler.
func (w NetIP[I]) MarshalCQL(I) ([]byte, error) { return NetIPBytes(net.IP(w)) }

// UnmarshalCQL implements the driver's Unmarshaler.
func (w *NetIP[I]) UnmarshalCQL(_ I, data []byte) error {
	ip, err := DecodeNetIP(data)
	if err != nil {
		return err
	}
	*w = NetIP[I](ip)
	return nil
}

// MarshalCQL implements the driver's Marshaler.
func (w Blob[I]) MarshalCQL(I) ([]byte, error) { return []byte(w), nil }

// UnmarshalCQL implements the driver's Unmarshaler, reusing the field's
// array as the drivers do.
func (w *Blob[I]) UnmarshalCQL(_ I, data []byte) error {
	*w = DecodeBlob(*w, data)
	return nil
}

// MarshalCQL implements the driver's Marshaler: the bytes, never null.
func (w BlobElem[I]) MarshalCQL(I) ([]byte, error) {
	if w == nil {
		return []byte{}, nil
	}
	return []byte(w), nil
}

// UnmarshalCQL implements the driver's Unmarshaler: a copy, never nil.
func (w *BlobElem[I]) UnmarshalCQL(_ I, data []byte) error {
	*w = append(BlobElem[I]{}, data...)
	return nil
}

// DecodeBlob is a top-level BLOB into dst's array: null is nil, an empty
// value an empty, non-nil slice.
func DecodeBlob[B ~[]byte](dst B, data []byte) B {
	if data == nil {
		return nil
	}
	if dst == nil {
		dst = B{}
	}
	return append(dst[:0], data...)
}

var (
	typeTime = reflect.TypeFor[time.Time]()
	typeAddr = reflect.TypeFor[netip.Addr]()
	typeIP   = reflect.TypeFor[net.IP]()
)

// WireType is the wire type, for a driver whose TypeInfo is I, that
// encodes Go type t in the CQL type named cql (lower case, as the
// protocol names it) by the rules above, if one does: a time-like struct
// in a TIMESTAMP or DATE, an int64 type in a TIME, an Addr-like struct or
// a net.IP in an INET, and a []byte type in a BLOB (Blob for a column's
// own value, top, BlobElem inside a collection).
// A named type of one of these (type At time.Time) takes the same wire
// type: they share the underlying type.
func WireType[I any](t reflect.Type, cql string, top bool) (reflect.Type, bool) {
	switch {
	case t.Kind() == reflect.Struct && t.ConvertibleTo(typeTime) && cql == "timestamp":
		return reflect.TypeFor[Timestamp[I]](), true
	case t.Kind() == reflect.Struct && t.ConvertibleTo(typeTime) && cql == "date":
		return reflect.TypeFor[Date[I]](), true
	case t.Kind() == reflect.Int64 && cql == "time":
		return reflect.TypeFor[TimeOfDay[I]](), true
	case t.Kind() == reflect.Struct && t.ConvertibleTo(typeAddr) && cql == "inet":
		if !top {
			return reflect.TypeFor[InetElem[I]](), true
		}
		return reflect.TypeFor[Inet[I]](), true
	case t == typeIP && cql == "inet":
		return reflect.TypeFor[NetIP[I]](), true
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && cql == "blob":
		if top {
			return reflect.TypeFor[Blob[I]](), true
		}
		return reflect.TypeFor[BlobElem[I]](), true
	}
	return nil, false
}

// Alias returns, for p the address of a field of Go type t, a pointer of
// type *wire (WireType's) to the same memory, which the driver reads and
// writes in place; false when p is not a *t.
func Alias[I any](p any, t, wire reflect.Type) (any, bool) {
	switch x := p.(type) { // the common fields, without reflect
	case *time.Time:
		if wire == reflect.TypeFor[Timestamp[I]]() {
			return (*Timestamp[I])(x), true
		}
		if wire == reflect.TypeFor[Date[I]]() {
			return (*Date[I])(x), true
		}
	case *netip.Addr:
		return (*Inet[I])(x), true
	case *[]byte:
		if wire == reflect.TypeFor[Blob[I]]() {
			return (*Blob[I])(x), true
		}
	}
	v := reflect.ValueOf(p)
	if v.Type() != reflect.PointerTo(t) {
		return nil, false
	}
	return v.Convert(reflect.PointerTo(wire)).Interface(), true
}

// Deref is the value behind a pointer Alias returned: a copy, for a driver
// that reads it after the call.
func Deref[I any](a any) any {
	switch x := a.(type) {
	case *Timestamp[I]:
		return *x
	case *Inet[I]:
		return *x
	case *Blob[I]:
		return *x
	}
	return reflect.ValueOf(a).Elem().Interface()
}

// InetElem is a netip.Addr inside a collection: 4 or 16 bytes like Inet,
// but never null (the zero Addr is refused: a collection holds no null),
// and an IPv4-mapped address is refused, because Cassandra turns it into
// IPv4 inside a collection (it reads the elements as Java InetAddresses),
// so that it would not read back as written and a set holding both forms
// would lose one.
type InetElem[I any] netip.Addr

// MarshalCQL implements the driver's Marshaler.
func (w InetElem[I]) MarshalCQL(I) ([]byte, error) {
	if err := InetElemProblem(netip.Addr(w)); err != nil {
		return nil, err
	}
	return InetBytes(netip.Addr(w))
}

// UnmarshalCQL implements the driver's Unmarshaler.
func (w *InetElem[I]) UnmarshalCQL(_ I, data []byte) error {
	a, err := DecodeInet(data)
	if err != nil {
		return err
	}
	*w = InetElem[I](a)
	return nil
}

// InetElemProblem refuses an address a collection cannot hold as it is:
// the zero Addr (null) and an IPv4-mapped one (see InetElem).
func InetElemProblem(a netip.Addr) error {
	switch {
	case !a.IsValid():
		return fmt.Errorf("the zero netip.Addr is null, and a collection cannot hold null")
	case a.Is4In6():
		return fmt.Errorf("an IPv4-mapped address inside a collection is stored by Cassandra as IPv4, so it would not read back as written; store a.Unmap(), or keep the address in a column of its own")
	}
	return nil
}

// NetIPProblem refuses a stored INET a net.IP cannot give back: an
// IPv4-mapped IPv6 address, which net.IP holds as IPv4 and so would write
// back as 4 bytes.
func NetIPProblem(ip net.IP) *ReadError {
	if len(ip) == net.IPv6len && ip.To4() != nil {
		return &ReadError{Value: ip.String() + " (16 bytes)", Reason: "a net.IP cannot keep an IPv4-mapped IPv6 address apart from IPv4 (it would be written back as 4 bytes); read the column into a netip.Addr"}
	}
	return nil
}

// Integer is a stored integer of a CQL type wider than its Go field (an
// int8 field stored as SMALLINT, an int64 as VARINT): it keeps the cell's
// bytes, and NarrowInt decodes them into the field's kind, so that a
// value the field cannot hold is an error naming the column, not a
// driver's failure of the whole row.
type Integer[I any] struct{ Data []byte }

// MarshalCQL implements the driver's Marshaler: the bytes IntegerOf
// encoded.
func (w Integer[I]) MarshalCQL(I) ([]byte, error) { return w.Data, nil }

// IntegerOf encodes x as the CQL integer type named cql: 1, 2, 4 or 8
// bytes, or a VARINT's shortest two's complement. x is in the type's range
// (the type is at least as wide as the field's).
func IntegerOf[I any](x int64, cql string) Integer[I] {
	b := binary.BigEndian.AppendUint64(nil, uint64(x))
	switch cql {
	case "tinyint":
		return Integer[I]{b[7:]}
	case "smallint":
		return Integer[I]{b[6:]}
	case "int":
		return Integer[I]{b[4:]}
	case "varint":
		for len(b) > 1 && (b[0] == 0 && b[1]&0x80 == 0 || b[0] == 0xff && b[1]&0x80 != 0) {
			b = b[1:]
		}
	}
	return Integer[I]{b}
}

// UnmarshalCQL implements the driver's Unmarshaler.
func (w *Integer[I]) UnmarshalCQL(_ I, data []byte) error {
	w.Data = append(w.Data[:0], data...)
	return nil
}

// NarrowInt decodes data, a stored integer of the CQL type named cql
// (tinyint, smallint, int, bigint, varint), into an integer of bits bits
// (8 to 64): null and an empty value are 0, a value out of the range is a
// *ReadError.
func NarrowInt(data []byte, cql string, bits int) (int64, error) {
	if len(data) == 0 {
		return 0, nil
	}
	size := map[string]int{"tinyint": 1, "smallint": 2, "int": 4, "bigint": 8, "counter": 8}[cql]
	var x *big.Int
	if size == 0 { // varint: two's complement, any length
		x = new(big.Int).SetBytes(data)
		if data[0]&0x80 != 0 {
			x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(len(data))*8))
		}
	} else {
		if len(data) != size {
			return 0, sizeErr(strings.ToUpper(cql), size, len(data))
		}
		var v int64
		for _, b := range data {
			v = v<<8 | int64(b)
		}
		shift := 64 - 8*size
		x = big.NewInt(v << shift >> shift)
	}
	limit := new(big.Int).Lsh(big.NewInt(1), uint(bits-1))
	if x.Cmp(limit) >= 0 || x.Cmp(new(big.Int).Neg(limit)) < 0 {
		return 0, &ReadError{Value: x.String(), Reason: fmt.Sprintf("the field holds %d-bit integers (%s to %s); widen the field's Go type", bits, new(big.Int).Neg(limit), new(big.Int).Sub(limit, big.NewInt(1)))}
	}
	return x.Int64(), nil
}

// Conv is how an adapter binds and scans a Go type that kandra encodes by
// the rules above (see Plan): Wire is the type a scan decodes into (a
// temporary of it, or, with Alias, the field's own memory), ToWire the
// value a bind gives the driver, FromWire the field's value from a
// decoded Wire, failing with a *ReadError for a cell the field cannot
// hold. Alias, when set, turns a field's address into a pointer of type
// *Wire to the same memory (no temporary, no FromWire); it reports false
// for another value.
type Conv struct {
	Wire     reflect.Type
	ToWire   func(reflect.Value) reflect.Value
	FromWire func(reflect.Value) (reflect.Value, error)
	Alias    func(p any) (any, bool)
}

var intBits = map[reflect.Kind]int{reflect.Int8: 8, reflect.Int16: 16, reflect.Int32: 32, reflect.Int64: 64, reflect.Int: 64}
var cqlIntBits = map[string]int{"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64, "varint": 1 << 30}

// Plan is the Conv of Go type t in the CQL type named cql for a driver
// whose TypeInfo is I, when kandra's rules encode it (WireType), when t
// cannot give back every stored value (an IPv4-mapped address in a
// net.IP), or when the CQL integer type is wider than t (a column's own
// value, or behind its pointer: inside a collection the driver's range
// check stands). ok is false for every other type.
func Plan[I any](t reflect.Type, cql string, top bool) (c Conv, ok bool) {
	if bits, isInt := intBits[t.Kind()]; isInt && top && cqlIntBits[cql] > bits {
		return Conv{
			Wire:   reflect.TypeFor[Integer[I]](),
			ToWire: func(v reflect.Value) reflect.Value { return reflect.ValueOf(IntegerOf[I](v.Int(), cql)) },
			FromWire: func(v reflect.Value) (reflect.Value, error) {
				x, err := NarrowInt(v.Interface().(Integer[I]).Data, cql, bits)
				if err != nil {
					return reflect.Value{}, err
				}
				out := reflect.New(t).Elem()
				out.SetInt(x)
				return out, nil
			},
		}, true
	}
	wire, ok := WireType[I](t, cql, top)
	if !ok {
		return Conv{}, false
	}
	c = Conv{
		Wire:     wire,
		ToWire:   func(v reflect.Value) reflect.Value { return v.Convert(wire) },
		FromWire: func(v reflect.Value) (reflect.Value, error) { return v.Convert(t), nil },
		Alias:    func(p any) (any, bool) { return Alias[I](p, t, wire) },
	}
	if t == typeIP {
		// Through a temporary, so that FromWire sees every stored value.
		c.Alias = nil
		c.FromWire = func(v reflect.Value) (reflect.Value, error) {
			ip := net.IP(v.Convert(typeIP).Interface().(net.IP))
			if p := NetIPProblem(ip); p != nil {
				return reflect.Value{}, p
			}
			return v.Convert(t), nil
		}
	}
	return c, true
}
