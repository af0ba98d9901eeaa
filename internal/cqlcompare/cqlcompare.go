// Package cqlcompare orders serialized CQL values as Cassandra 5.0's
// comparators do, and writes the protocol's collection and user-defined
// type forms. It knows neither kandra's types nor a driver, so that
// package kandra itself (its stored forms, stored.go) and internal/cqlorder,
// which marshals through a driver, share one comparator.
package cqlcompare

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"math/big"
	"strings"
)

// Type is a CQL type as the comparators see it: a lower-case native name
// ("int", "text", "timeuuid", ...) with no Args, or "list", "set" or
// "vector" with one Arg (the element type) or "map" with two (key, value),
// or "udt", a user-defined type, with one Arg per field, in declaration
// order, the fields' names in Fields and the type's name in UDT. A
// vector's dimension is not kept: its values are never ordered here.
// FROZEN<> is dropped: it does not change the values or their order.
type Type struct {
	Name string
	Args []Type
	// Fields are a user-defined type's field names, one per Arg.
	Fields []string
	// UDT is a user-defined type's name.
	UDT string
}

// HoldsSetOrMap reports whether t is, or holds at any depth, a set or a
// map: whether a value of t needs sorting before it is sent.
func (t Type) HoldsSetOrMap() bool {
	if t.Name == "set" || t.Name == "map" {
		return true
	}
	for _, a := range t.Args {
		if a.HoldsSetOrMap() {
			return true
		}
	}
	return false
}

// String returns t in CQL syntax, lower case, without FROZEN; a
// user-defined type as its name and its fields in braces
// (address{street text, zip int}).
func (t Type) String() string {
	if t.Name == "udt" {
		parts := make([]string, len(t.Args))
		for i, a := range t.Args {
			name := ""
			if i < len(t.Fields) {
				name = t.Fields[i] + " "
			}
			parts[i] = name + a.String()
		}
		return t.UDT + "{" + strings.Join(parts, ", ") + "}"
	}
	if len(t.Args) == 0 {
		return t.Name
	}
	parts := make([]string, len(t.Args))
	for i, a := range t.Args {
		parts[i] = a.String()
	}
	return t.Name + "<" + strings.Join(parts, ", ") + ">"
}

// Compare orders two serialized values of CQL type t as Cassandra 5.0's
// comparator for t does: negative when a sorts first, zero when the
// server holds them equal. The orders: text, ascii, blob, inet, boolean
// and date by their bytes; the integer types, timestamp and time as
// signed numbers; float and double as Java's Float.compare and
// Double.compare; varint and decimal by value (1.0 equals 1.00); uuid by
// version, then by time for version 1, then by unsigned bytes; timeuuid by
// time, then by signed bytes; a frozen collection element by element (a
// map's key, then its value), then the shorter first; a user-defined type
// field by field, a null field before any value, and a value with fewer
// fields (written before ALTER TYPE ... ADD) as if its missing fields were
// null (Cassandra 5.0.8's TupleType.compareCustom). The empty value
// sorts first in every type. A value that is not well formed for t falls
// back to byte order, so Compare never fails.
func Compare(t Type, a, b []byte) int {
	if len(a) == 0 || len(b) == 0 {
		return cmp.Compare(len(a), len(b))
	}
	switch t.Name {
	case "tinyint", "smallint", "int", "bigint", "counter", "timestamp", "time":
		if len(a) == len(b) {
			if c := cmp.Compare(int8(a[0]), int8(b[0])); c != 0 {
				return c
			}
			return bytes.Compare(a[1:], b[1:])
		}
		return Varint(a).Cmp(Varint(b))
	case "float":
		if len(a) == 4 && len(b) == 4 {
			return compareFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(a))), float64(math.Float32frombits(binary.BigEndian.Uint32(b))))
		}
	case "double":
		if len(a) == 8 && len(b) == 8 {
			return compareFloat(math.Float64frombits(binary.BigEndian.Uint64(a)), math.Float64frombits(binary.BigEndian.Uint64(b)))
		}
	case "varint":
		return Varint(a).Cmp(Varint(b))
	case "decimal":
		if len(a) > 4 && len(b) > 4 {
			return compareDecimal(int32(binary.BigEndian.Uint32(a)), Varint(a[4:]), int32(binary.BigEndian.Uint32(b)), Varint(b[4:]))
		}
	case "uuid", "timeuuid":
		if len(a) == 16 && len(b) == 16 {
			return compareUUID(t.Name == "timeuuid", a, b)
		}
	case "list", "set", "map":
		if c, ok := compareCollections(t, a, b); ok {
			return c
		}
	case "udt":
		if c, ok := compareUDT(t, a, b); ok {
			return c
		}
	}
	return bytes.Compare(a, b) // ascii, text, varchar, blob, boolean, inet, date
}

// compareFloat is Java's Double.compare (Float.compare agrees on every
// float32): -0 before +0, NaN after +Inf, all NaNs equal.
func compareFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	bits := func(f float64) int64 {
		if math.IsNaN(f) {
			return 0x7ff8000000000000
		}
		return int64(math.Float64bits(f))
	}
	return cmp.Compare(bits(x), bits(y))
}

// Varint decodes a big-endian two's complement integer.
func Varint(b []byte) *big.Int {
	x := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(len(b))*8))
	}
	return x
}

// compareDecimal compares unscaledA × 10^-scaleA with unscaledB ×
// 10^-scaleB by value, as Java's BigDecimal.compareTo (1.0 equals 1.00).
func compareDecimal(scaleA int32, a *big.Int, scaleB int32, b *big.Int) int {
	if c := cmp.Compare(a.Sign(), b.Sign()); c != 0 || a.Sign() == 0 {
		return c
	}
	// Different magnitudes (digits before the point) decide without
	// scaling, which keeps a far-off scale from building a huge power.
	mag := func(x *big.Int, scale int32) int64 { return int64(len(new(big.Int).Abs(x).String())) - int64(scale) }
	if c := cmp.Compare(mag(a, scaleA), mag(b, scaleB)); c != 0 {
		return c * a.Sign()
	}
	ten := big.NewInt(10)
	x, y := new(big.Int).Set(a), new(big.Int).Set(b)
	if scaleA < scaleB {
		x.Mul(x, new(big.Int).Exp(ten, big.NewInt(int64(scaleB)-int64(scaleA)), nil))
	} else {
		y.Mul(y, new(big.Int).Exp(ten, big.NewInt(int64(scaleA)-int64(scaleB)), nil))
	}
	return x.Cmp(y)
}

// compareUUID is Cassandra's UUIDType (timeuuid false) or TimeUUIDType
// comparator on two 16-byte values.
func compareUUID(timeuuid bool, a, b []byte) int {
	va, vb := a[6]>>4, b[6]>>4
	if !timeuuid && va != vb {
		return cmp.Compare(va, vb)
	}
	if timeuuid || va == 1 {
		// The 60-bit timestamp: time_hi, time_mid, time_low.
		ts := func(u []byte) uint64 {
			msb := binary.BigEndian.Uint64(u)
			return msb<<48 | msb<<16&0xffff00000000 | msb>>32
		}
		if c := cmp.Compare(ts(a), ts(b)); c != 0 {
			return c
		}
	} else if c := bytes.Compare(a[:8], b[:8]); c != 0 {
		return c
	}
	if !timeuuid {
		return bytes.Compare(a[8:], b[8:])
	}
	for i := 8; i < 16; i++ { // TimeUUIDType: signed bytes, kept for compatibility
		if c := cmp.Compare(int8(a[i]), int8(b[i])); c != 0 {
			return c
		}
	}
	return 0
}

// compareCollections orders two frozen collections of type t: value by
// value (a map's key, then its value), then the shorter first. ok is
// false when either is not a well-formed collection.
func compareCollections(t Type, a, b []byte) (c int, ok bool) {
	ea, okA := SplitCollection(a, t.Name == "map")
	eb, okB := SplitCollection(b, t.Name == "map")
	if !okA || !okB || len(t.Args) == 0 {
		return 0, false
	}
	for i := 0; i < len(ea) && i < len(eb); i++ {
		if c := Compare(t.Args[i%len(t.Args)], ea[i], eb[i]); c != 0 {
			return c, true
		}
	}
	return cmp.Compare(len(ea), len(eb)), true
}

// compareUDT orders two values of the user-defined type t as Cassandra
// 5.0.8's TupleType.compareCustom (UserType's comparator) does: field by
// field by the field's type, a null field (length -1) before any value
// and equal to another null; then, when one value has fields left over
// (the other was written before the type gained them), equal if those are
// all null, else the longer after. An empty field is a value, not null.
// ok is false when either is not a well-formed value of t (cut short, or
// more fields than t has).
func compareUDT(t Type, a, b []byte) (c int, ok bool) {
	fa, okA := splitUDT(a, len(t.Args))
	fb, okB := splitUDT(b, len(t.Args))
	if !okA || !okB {
		return 0, false
	}
	n := min(len(fa), len(fb))
	for i := 0; i < n; i++ {
		switch x, y := fa[i], fb[i]; {
		case x == nil && y == nil:
			continue
		case x == nil:
			return -1, true
		case y == nil:
			return 1, true
		}
		if c := Compare(t.Args[i], fa[i], fb[i]); c != 0 {
			return c, true
		}
	}
	allNull := func(rest [][]byte) bool {
		for _, f := range rest {
			if f != nil {
				return false
			}
		}
		return true
	}
	switch {
	case allNull(fa[n:]) && allNull(fb[n:]):
		return 0, true
	case len(fa) == n:
		return -1, true
	}
	return 1, true
}

// splitUDT reads a serialized user-defined type's fields, each [int32
// length][bytes] (a negative length is null, a nil field): at most max,
// and possibly fewer (a value written before the type gained fields).
func splitUDT(b []byte, max int) ([][]byte, bool) {
	var out [][]byte
	for len(b) > 0 {
		if len(b) < 4 || len(out) == max {
			return nil, false
		}
		l := int(int32(binary.BigEndian.Uint32(b)))
		b = b[4:]
		if l < 0 {
			out = append(out, nil)
			continue
		}
		if l > len(b) {
			return nil, false
		}
		out = append(out, b[:l:l])
		b = b[l:]
	}
	return out, true
}

// AppendUDT appends a user-defined type's value: each field's length and
// bytes, a nil field null (length -1).
func AppendUDT(out []byte, fields [][]byte) []byte {
	for _, f := range fields {
		if f == nil {
			out = binary.BigEndian.AppendUint32(out, math.MaxUint32)
			continue
		}
		out = binary.BigEndian.AppendUint32(out, uint32(len(f)))
		out = append(out, f...)
	}
	return out
}

// SplitCollection reads a serialized collection's values (a map's keys
// and values interleaved).
func SplitCollection(b []byte, isMap bool) ([][]byte, bool) {
	if len(b) < 4 {
		return nil, false
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	if isMap {
		n *= 2
	}
	if n < 0 || n > len(b) {
		return nil, false
	}
	b = b[4:]
	out := make([][]byte, 0, n)
	for i := 0; i < n; i++ {
		if len(b) < 4 {
			return nil, false
		}
		l := int(int32(binary.BigEndian.Uint32(b)))
		b = b[4:]
		if l < 0 {
			out = append(out, nil)
			continue
		}
		if l > len(b) {
			return nil, false
		}
		out = append(out, b[:l])
		b = b[l:]
	}
	return out, len(b) == 0
}

// AppendCollection appends a collection in the form of protocol 3 and
// later: the count, then each value with its length (a nil value is
// null, length -1). For a map, elems holds keys and values interleaved
// and count is the number of entries.
func AppendCollection(out []byte, count int, elems [][]byte) []byte {
	out = binary.BigEndian.AppendUint32(out, uint32(count))
	for _, e := range elems {
		if e == nil {
			out = binary.BigEndian.AppendUint32(out, math.MaxUint32)
			continue
		}
		out = binary.BigEndian.AppendUint32(out, uint32(len(e)))
		out = append(out, e...)
	}
	return out
}
