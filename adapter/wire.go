package adapter

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"net"
	"net/netip"
	"reflect"
	"time"

	"github.com/kandra-go/kandra/internal/cqlvalue"
	"github.com/kandra-go/kandra/internal/reflectx"
)

// The wire types: each is a Go type kandra maps, redeclared with the
// MarshalCQL and UnmarshalCQL methods both gocql drivers call before
// their own conversions, so that the bytes follow kandra's value rules
// (internal/cqlvalue). I is the driver's type info: with it,
// timestampWire[gocql.TypeInfo] implements that driver's gocql.Marshaler
// and *timestampWire[gocql.TypeInfo] its gocql.Unmarshaler, from one
// definition. The info is not read, but by the UUID types, which hand a
// type other than UUID or TIMEUUID to the driver (D): the core uses each
// wire type only for the CQL type it is named after. Each has the
// underlying type of its Go type, so that a field's address converts to
// a pointer of the wire type to the same memory (no copy, no temporary).
type (
	// timestampWire is a time.Time in a TIMESTAMP column.
	timestampWire[I any] time.Time
	// dateWire is a time.Time in a DATE column.
	dateWire[I any] time.Time
	// timeOfDayWire is a time.Duration (any int64 type) in a TIME column:
	// 8 bytes of nanoseconds, refused outside a day.
	timeOfDayWire[I any] int64
	// inetWire is a netip.Addr in an INET column; the zero Addr is null.
	inetWire[I any] netip.Addr
	// inetElemWire is a netip.Addr inside a collection: never null (the
	// zero Addr is refused), and an IPv4-mapped address is refused
	// (cqlvalue.InetElemProblem).
	inetElemWire[I any] netip.Addr
	// netIPWire is a net.IP in an INET column; nil is null.
	netIPWire[I any] net.IP
	// blobWire is a column's own []byte in a BLOB: nil is null, an empty
	// slice an empty value, and an empty value reads back as []byte{}.
	blobWire[I any] []byte
	// blobElemWire is a []byte inside a collection, which cannot hold
	// null: nil is an empty value, and every element reads back non-nil.
	blobElemWire[I any] []byte
	// byteArrayWire is a column's own [N]byte (any array type of bytes)
	// in a BLOB, which the drivers do not marshal (their blob cases take
	// slices and strings only): a copy of its N bytes, never null when
	// bound. Scanned, nil is null (the zero array) and an empty value a
	// non-nil empty slice, which the conv refuses with any other length
	// but N (cqlvalue.ByteArrayProblem), so that the error names the
	// column.
	byteArrayWire[I any] []byte
	// byteArrayElemWire is a [N]byte inside a collection, as a set
	// element or a map key too: a string, so that it is comparable. A
	// collection holds no null; the conv refuses any length but N.
	byteArrayElemWire[I any] string
	// integerWire is a stored integer of a CQL type wider than its Go
	// field: it keeps the cell's bytes, which cqlvalue.NarrowInt decodes
	// into the field's kind, so that a value the field cannot hold is an
	// error naming the column, not a driver's failure of the whole row.
	integerWire[I any] struct{ data []byte }
	// uuidWire is a 16-byte array type (uuid.UUID, the driver's UUID) in
	// a UUID or TIMEUUID column: its 16 bytes, null and an empty value
	// reading back as the zero UUID, as both drivers read them.
	uuidWire[I any, D TypeSystem[I]] [16]byte
	// uuidRefWire is uuidWire bound by reference (Codec.AppendBindRefs):
	// a pointer to the field, whose MarshalCQL gives the field's own 16
	// bytes rather than a copy.
	uuidRefWire[I any, D TypeSystem[I]] [16]byte
	// timeUUIDWire is a UUID in a TIMEUUID column of its own: the zero
	// UUID (version 0, which Cassandra refuses there: "Invalid version for
	// TimeUUID type") is sent as null, and null reads back as zero.
	timeUUIDWire[I any, D TypeSystem[I]] [16]byte
	// vectorWire is a [N]float32 in a VECTOR<FLOAT, N> column: N
	// big-endian IEEE 754 floats, the protocol's form, which gocql
	// v1.7.0 (no vector type: the column is a custom type to it) and the
	// v2 driver both send through MarshalCQL as they are. data is nil for
	// null.
	vectorWire[I any] struct{ data []byte }
	// durationWire is a DURATION: months, days and nanoseconds as the
	// protocol's three signed vints. A time.Duration sets the nanoseconds
	// only; a stored value with months or days is no time.Duration
	// (cqlvalue.DurationProblem).
	durationWire[I any] struct {
		months, days int32
		nanos        int64
	}
)

// MarshalCQL implements the driver's Marshaler.
func (w timestampWire[I]) MarshalCQL(I) ([]byte, error) {
	return cqlvalue.AppendTimestamp(nil, time.Time(w))
}

// UnmarshalCQL implements the driver's Unmarshaler.
func (w *timestampWire[I]) UnmarshalCQL(_ I, data []byte) error {
	t, _, err := cqlvalue.DecodeTimestamp(data)
	if err != nil {
		return err
	}
	*w = timestampWire[I](t)
	return nil
}

// MarshalCQL implements the driver's Marshaler.
func (w dateWire[I]) MarshalCQL(I) ([]byte, error) { return cqlvalue.AppendDate(nil, time.Time(w)) }

// UnmarshalCQL implements the driver's Unmarshaler.
func (w *dateWire[I]) UnmarshalCQL(_ I, data []byte) error {
	t, _, err := cqlvalue.DecodeDate(data)
	if err != nil {
		return err
	}
	*w = dateWire[I](t)
	return nil
}

// MarshalCQL implements the driver's Marshaler.
func (w timeOfDayWire[I]) MarshalCQL(I) ([]byte, error) {
	if err := cqlvalue.CheckTimeOfDay(int64(w)); err != nil {
		return nil, err
	}
	return be64(uint64(w)), nil
}

// UnmarshalCQL implements the driver's Unmarshaler: 8 bytes, or 0 for
// null and an empty value.
func (w *timeOfDayWire[I]) UnmarshalCQL(_ I, data []byte) error {
	switch len(data) {
	case 0:
		*w = 0
	case 8:
		*w = timeOfDayWire[I](binary.BigEndian.Uint64(data))
	default:
		return sizeErr("TIME", "8", len(data))
	}
	return nil
}

// MarshalCQL implements the driver's Marshaler.
func (w inetWire[I]) MarshalCQL(I) ([]byte, error) { return cqlvalue.InetBytes(netip.Addr(w)) }

// UnmarshalCQL implements the driver's Unmarshaler.
func (w *inetWire[I]) UnmarshalCQL(_ I, data []byte) error {
	a, err := cqlvalue.DecodeInet(data)
	if err != nil {
		return err
	}
	*w = inetWire[I](a)
	return nil
}

// MarshalCQL implements the driver's Marshaler.
func (w inetElemWire[I]) MarshalCQL(I) ([]byte, error) {
	if err := cqlvalue.InetElemProblem(netip.Addr(w)); err != nil {
		return nil, err
	}
	return cqlvalue.InetBytes(netip.Addr(w))
}

// UnmarshalCQL implements the driver's Unmarshaler.
func (w *inetElemWire[I]) UnmarshalCQL(_ I, data []byte) error {
	a, err := cqlvalue.DecodeInet(data)
	if err != nil {
		return err
	}
	*w = inetElemWire[I](a)
	return nil
}

// MarshalCQL implements the driver's Marshaler.
func (w netIPWire[I]) MarshalCQL(I) ([]byte, error) { return cqlvalue.NetIPBytes(net.IP(w)) }

// UnmarshalCQL implements the driver's Unmarshaler.
func (w *netIPWire[I]) UnmarshalCQL(_ I, data []byte) error {
	ip, err := cqlvalue.DecodeNetIP(data)
	if err != nil {
		return err
	}
	*w = netIPWire[I](ip)
	return nil
}

// MarshalCQL implements the driver's Marshaler.
func (w blobWire[I]) MarshalCQL(I) ([]byte, error) { return []byte(w), nil }

// UnmarshalCQL implements the driver's Unmarshaler, reusing the field's
// array as the drivers do.
func (w *blobWire[I]) UnmarshalCQL(_ I, data []byte) error {
	*w = cqlvalue.DecodeBlob(*w, data)
	return nil
}

// MarshalCQL implements the driver's Marshaler: the bytes, never null.
func (w blobElemWire[I]) MarshalCQL(I) ([]byte, error) {
	if w == nil {
		return []byte{}, nil
	}
	return []byte(w), nil
}

// UnmarshalCQL implements the driver's Unmarshaler: a copy, never nil.
func (w *blobElemWire[I]) UnmarshalCQL(_ I, data []byte) error {
	*w = append(blobElemWire[I]{}, data...)
	return nil
}

// MarshalCQL implements the driver's Marshaler: the array's bytes (a
// copy, made by the conv).
func (w byteArrayWire[I]) MarshalCQL(I) ([]byte, error) { return []byte(w), nil }

// UnmarshalCQL implements the driver's Unmarshaler: a copy of the stored
// bytes (the driver's buffer is not kept), nil for null.
func (w *byteArrayWire[I]) UnmarshalCQL(_ I, data []byte) error {
	if data == nil {
		*w = nil
		return nil
	}
	*w = append(make(byteArrayWire[I], 0, len(data)), data...)
	return nil
}

// MarshalCQL implements the driver's Marshaler.
func (w byteArrayElemWire[I]) MarshalCQL(I) ([]byte, error) { return []byte(w), nil }

// UnmarshalCQL implements the driver's Unmarshaler.
func (w *byteArrayElemWire[I]) UnmarshalCQL(_ I, data []byte) error {
	*w = byteArrayElemWire[I](data)
	return nil
}

// byteArrayBytes is a copy of the bytes of v, a value of a byte array
// type: over the array's memory where v is addressable (a field), else
// through reflect.Copy (a map key, a value passed by value).
func byteArrayBytes(v reflect.Value) []byte {
	b := make([]byte, v.Len())
	if v.CanAddr() {
		copy(b, v.Bytes())
	} else {
		reflect.Copy(reflect.ValueOf(b), v)
	}
	return b
}

// byteArrayValue is a new value of the byte array type t holding src (a
// slice or a string of bytes), refused by cqlvalue.ByteArrayProblem
// unless it has t's length.
func byteArrayValue(t reflect.Type, src reflect.Value) (reflect.Value, error) {
	if src.Len() != t.Len() {
		var data []byte
		if src.Kind() == reflect.String {
			data = []byte(src.String())
		} else {
			data = src.Bytes()
		}
		return reflect.Value{}, cqlvalue.ByteArrayProblem(data, t.Len(), t.String())
	}
	out := reflect.New(t).Elem()
	reflect.Copy(out, src)
	return out, nil
}

// MarshalCQL implements the driver's Marshaler: the bytes
// cqlvalue.IntegerBytes encoded.
func (w integerWire[I]) MarshalCQL(I) ([]byte, error) { return w.data, nil }

// UnmarshalCQL implements the driver's Unmarshaler.
func (w *integerWire[I]) UnmarshalCQL(_ I, data []byte) error {
	w.data = append(w.data[:0], data...)
	return nil
}

// isUUID reports the CQL types uuidWire encodes itself.
func isUUID(t Type) bool { return t == TypeUUID || t == TypeTimeUUID }

// MarshalCQL implements the driver's Marshaler: a copy of the 16 bytes,
// since w is the method's own copy of the value (bound by reference, a
// UUID is a uuidRefWire, which gives the field's bytes).
func (w uuidWire[I, D]) MarshalCQL(info I) ([]byte, error) {
	var d D
	if !isUUID(d.Type(info)) {
		return d.Marshal(info, [16]byte(w))
	}
	b := make([]byte, 16)
	copy(b, w[:])
	return b, nil
}

// MarshalCQL implements the driver's Marshaler: the field's own 16 bytes,
// not a copy. Both drivers copy a value's bytes into the request's frame,
// which they build in the caller's goroutine before sending it, on every
// attempt (gocql v1.7.0's and the Apache driver v2.1.2's Conn.exec): they
// keep no marshalled value past that, and a field bound by reference
// holds still while the call runs.
func (w *uuidRefWire[I, D]) MarshalCQL(info I) ([]byte, error) {
	var d D
	if !isUUID(d.Type(info)) {
		return d.Marshal(info, [16]byte(*w))
	}
	return w[:], nil
}

// UnmarshalCQL implements the driver's Unmarshaler: 16 bytes, the zero
// UUID for null and an empty value, and the driver's own error for any
// other length.
func (w *uuidWire[I, D]) UnmarshalCQL(info I, data []byte) error {
	var d D
	if isUUID(d.Type(info)) {
		switch len(data) {
		case 0:
			*w = uuidWire[I, D]{}
			return nil
		case 16:
			copy(w[:], data)
			return nil
		}
	}
	return d.Unmarshal(info, data, reflect.ValueOf(w).Convert(reflect.PointerTo(d.UUID())).Interface())
}

// MarshalCQL implements the driver's Marshaler.
func (w timeUUIDWire[I, D]) MarshalCQL(info I) ([]byte, error) {
	if w == (timeUUIDWire[I, D]{}) {
		return nil, nil
	}
	return uuidWire[I, D](w).MarshalCQL(info)
}

// UnmarshalCQL implements the driver's Unmarshaler.
func (w *timeUUIDWire[I, D]) UnmarshalCQL(info I, data []byte) error {
	return (*uuidWire[I, D])(w).UnmarshalCQL(info, data)
}

// MarshalCQL implements the driver's Marshaler: the three vints, as both
// drivers write a gocql.Duration.
func (w durationWire[I]) MarshalCQL(I) ([]byte, error) {
	b := appendVint(nil, int64(w.months))
	b = appendVint(b, int64(w.days))
	return appendVint(b, w.nanos), nil
}

// UnmarshalCQL implements the driver's Unmarshaler: null and an empty
// value are zero, as in both drivers.
func (w *durationWire[I]) UnmarshalCQL(_ I, data []byte) error {
	if len(data) == 0 {
		*w = durationWire[I]{}
		return nil
	}
	months, rest, err := vint(data)
	if err == nil {
		var days int64
		if days, rest, err = vint(rest); err == nil {
			var nanos int64
			if nanos, _, err = vint(rest); err == nil {
				*w = durationWire[I]{months: int32(months), days: int32(days), nanos: nanos}
				return nil
			}
		}
	}
	return fmt.Errorf("a stored DURATION value is not three vints: %w", err)
}

// appendVint appends x as the protocol's signed vint
// (cqlvalue.AppendVint).
func appendVint(dst []byte, x int64) []byte { return cqlvalue.AppendVint(dst, x) }

var errVintEOF = errors.New("unexpected end of data")

// vint reads a signed vint from the front of data.
func vint(data []byte) (int64, []byte, error) {
	if len(data) == 0 {
		return 0, nil, errVintEOF
	}
	extra := bits.LeadingZeros8(^data[0])
	if len(data) < 1+extra {
		return 0, nil, errVintEOF
	}
	u := uint64(data[0] & (0xff >> uint(extra)))
	for _, b := range data[1 : 1+extra] {
		u = u<<8 | uint64(b)
	}
	return int64(u>>1) ^ -int64(u&1), data[1+extra:], nil
}

func sizeErr(typ, want string, got int) error {
	return fmt.Errorf("a stored %s value is %s bytes long; this one is %d", typ, want, got)
}

// MarshalCQL implements the driver's Marshaler.
func (w vectorWire[I]) MarshalCQL(I) ([]byte, error) { return w.data, nil }

// UnmarshalCQL implements the driver's Unmarshaler.
func (w *vectorWire[I]) UnmarshalCQL(_ I, data []byte) error {
	if data == nil {
		w.data = nil
		return nil
	}
	w.data = append(w.data[:0:0], data...)
	return nil
}

// vectorBytes encodes the [N]float32 value v (any array type of a
// float32 kind) as the protocol's N big-endian floats, bit for bit: a
// signalling NaN stays one (through reflect's Float it would be quieted).
func vectorBytes(v reflect.Value) []byte {
	if !v.CanAddr() {
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		v = c
	}
	xs := reflectx.Float32s(v)
	out := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.BigEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}

// vectorValue decodes data, a stored vector, into a new value of the
// array type t, bit for bit; null is the zero vector.
func vectorValue(t reflect.Type, data []byte) (reflect.Value, error) {
	out := reflect.New(t).Elem()
	if data == nil {
		return out, nil
	}
	if len(data) != 4*t.Len() {
		return reflect.Value{}, fmt.Errorf("the stored vector has %d bytes, and a %s holds %d floats (%d bytes)", len(data), t, t.Len(), 4*t.Len())
	}
	xs := reflectx.Float32s(out)
	for i := range xs {
		xs[i] = math.Float32frombits(binary.BigEndian.Uint32(data[4*i:]))
	}
	return out, nil
}
