package cqlvalue

import (
	"encoding/binary"
	"net"
	"net/netip"
	"reflect"
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
