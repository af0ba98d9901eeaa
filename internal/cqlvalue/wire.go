package cqlvalue

import (
	"encoding/binary"
	"fmt"
	"math/big"
	"math/bits"
	"net"
	"net/netip"
	"strings"
)

// The wire forms the adapter core's wire types (package adapter) write
// and read, where they are more than one of the functions of cqlvalue.go.

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

// ByteArrayProblem refuses a stored BLOB that the Go byte array type
// goType, which holds exactly n bytes, cannot hold: one of another
// length, the empty value included. Null is no problem (the zero array),
// and is not passed here. The value is shown in hex, its first 32 bytes.
func ByteArrayProblem(data []byte, n int, goType string) *ReadError {
	if len(data) == n {
		return nil
	}
	shown := data
	if len(shown) > 32 {
		shown = shown[:32]
	}
	value := fmt.Sprintf("0x%x", shown)
	if len(shown) < len(data) {
		value += "..."
	}
	return &ReadError{
		Value: fmt.Sprintf("%s (%d bytes)", value, len(data)),
		Reason: fmt.Sprintf("the stored blob is %d bytes long, and the field's type %s holds exactly %d: it is neither cut nor padded; read the column into a []byte, or rewrite the cell",
			len(data), goType, n),
	}
}

// InetElemProblem refuses an address a collection cannot hold as it is:
// the zero Addr (null) and an IPv4-mapped one, which Cassandra turns into
// IPv4 inside a collection (it reads the elements as Java InetAddresses),
// so that it would not read back as written and a set holding both forms
// would lose one.
func InetElemProblem(a netip.Addr) error {
	switch {
	case !a.IsValid():
		return problemf("the zero netip.Addr is null, and a collection cannot hold null")
	case a.Is4In6():
		return problemf("an IPv4-mapped address inside a collection is stored by Cassandra as IPv4, so it would not read back as written; store a.Unmap(), or keep the address in a column of its own")
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

// IntegerBytes encodes x as the CQL integer type named cql: 1, 2, 4 or 8
// bytes, or a VARINT's shortest two's complement. x is in the type's range
// (the type is at least as wide as the field's).
func IntegerBytes(x int64, cql string) []byte {
	b := binary.BigEndian.AppendUint64(nil, uint64(x))
	switch cql {
	case "tinyint":
		return b[7:]
	case "smallint":
		return b[6:]
	case "int":
		return b[4:]
	case "varint":
		for len(b) > 1 && (b[0] == 0 && b[1]&0x80 == 0 || b[0] == 0xff && b[1]&0x80 != 0) {
			b = b[1:]
		}
	}
	return b
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

// AppendVint appends x as the protocol's signed vint (a DURATION's parts):
// zigzag, then Cassandra's unsigned vint (the count of extra bytes as
// leading ones of the first byte, then the value, big-endian).
func AppendVint(dst []byte, x int64) []byte {
	u := uint64(x>>63) ^ uint64(x<<1)
	n := (639 - bits.LeadingZeros64(u)*9) >> 6 // bytes, 1 to 9
	if n <= 1 {
		return append(dst, byte(u))
	}
	var b [9]byte
	for i := n - 1; i >= 0; i-- {
		b[i] = byte(u)
		u >>= 8
	}
	b[0] |= ^byte(0xff >> uint(n-1))
	return append(dst, b[:n]...)
}

// AppendBigInt appends x as a VARINT: its shortest big-endian two's
// complement, as both gocql drivers write a *big.Int.
func AppendBigInt(dst []byte, x *big.Int) []byte {
	switch x.Sign() {
	case 0:
		return append(dst, 0)
	case 1:
		b := x.Bytes()
		if b[0]&0x80 != 0 {
			dst = append(dst, 0)
		}
		return append(dst, b...)
	}
	// x < 0: the bytes of -x-1, inverted, with a sign byte where the top
	// bit would read positive.
	b := new(big.Int).Not(x).Bytes() // ^x = -x-1 >= 0
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		dst = append(dst, 0xff)
	}
	return append(dst, b...)
}
