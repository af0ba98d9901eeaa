package cqlorder

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"math/big"
	"testing"
)

func sign(x int) int { return cmp.Compare(x, 0) }

func bigInt(x int64) *big.Int { return big.NewInt(x) }

func be64(x int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(x)) }

// encodeVarint is the protocol's varint: big-endian two's complement in
// the fewest bytes (at least one).
func encodeVarint(x *big.Int) []byte {
	if x.Sign() >= 0 {
		b := x.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -x-1 in bytes, inverted, is x's two's complement.
	b := new(big.Int).Sub(new(big.Int).Neg(x), big.NewInt(1)).Bytes()
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		b = append([]byte{0xff}, b...)
	}
	return b
}

// FuzzCompare: the comparator agrees with Go's order of the values for
// every numeric type, and is antisymmetric for UUIDs and for any bytes
// under any type (well formed or not), where it must not panic either.
func FuzzCompare(f *testing.F) {
	f.Add(int64(-1), int64(1), int8(0), int8(2), 1.5, math.Copysign(0, -1), []byte("0123456789abcdef"), []byte("fedcba9876543210"))
	f.Add(int64(math.MinInt64), int64(math.MaxInt64), int8(-3), int8(3), math.Inf(1), math.NaN(), make([]byte, 16), make([]byte, 16))
	f.Add(int64(7), int64(-7), int8(127), int8(-128), 0.0, 5e-324, AppendCollection(nil, 1, [][]byte{{1, 2}}), AppendCollection(nil, 2, [][]byte{{1}, nil}))
	f.Add(int64(0), int64(0), int8(0), int8(0), 0.0, 0.0, AppendUDT(nil, [][]byte{{0, 0, 0, 1}, nil}), AppendUDT(nil, [][]byte{{0, 0, 0, 1}}))
	f.Fuzz(func(t *testing.T, a, b int64, sa, sb int8, x, y float64, u, v []byte) {
		node := func(name string) Type { return Type{Name: name} }
		if got, want := sign(Compare(node("bigint"), be64(a), be64(b))), cmp.Compare(a, b); got != want {
			t.Errorf("bigint %d vs %d: %d, want %d", a, b, got, want)
		}
		ia, ib := binary.BigEndian.AppendUint32(nil, uint32(int32(a))), binary.BigEndian.AppendUint32(nil, uint32(int32(b)))
		if got, want := sign(Compare(node("int"), ia, ib)), cmp.Compare(int32(a), int32(b)); got != want {
			t.Errorf("int %d vs %d: %d, want %d", int32(a), int32(b), got, want)
		}
		bigB := new(big.Int).Mul(big.NewInt(b), big.NewInt(int64(sb)))
		va, vb := encodeVarint(big.NewInt(a)), encodeVarint(bigB)
		if got, want := sign(Compare(node("varint"), va, vb)), big.NewInt(a).Cmp(bigB); got != want {
			t.Errorf("varint %x vs %x: %d, want %d", va, vb, got, want)
		}
		// decimal: a × 10^-sa against b × 10^-sb (the scale widened before it
		// is negated: -int8(-128) is -128).
		dec := func(unscaled int64, scale int8) ([]byte, *big.Rat) {
			raw := encodeVarint(big.NewInt(unscaled))
			r := new(big.Rat).SetInt64(unscaled)
			p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(max(int64(scale), -int64(scale))), nil))
			if scale >= 0 {
				r.Quo(r, p)
			} else {
				r.Mul(r, p)
			}
			return append(binary.BigEndian.AppendUint32(nil, uint32(int32(scale))), raw...), r
		}
		da, ra := dec(a, sa)
		db, rb := dec(b, sb)
		if got, want := sign(Compare(node("decimal"), da, db)), ra.Cmp(rb); got != want {
			t.Errorf("decimal %s vs %s: %d, want %d", ra.FloatString(20), rb.FloatString(20), got, want)
		}
		fa, fb := binary.BigEndian.AppendUint64(nil, math.Float64bits(x)), binary.BigEndian.AppendUint64(nil, math.Float64bits(y))
		got := sign(Compare(node("double"), fa, fb))
		if !math.IsNaN(x) && !math.IsNaN(y) && (x < y && got != -1 || x > y && got != 1) {
			t.Errorf("double %g vs %g: %d", x, y, got)
		}
		if back := sign(Compare(node("double"), fb, fa)); back != -got {
			t.Errorf("double %g vs %g: %d one way, %d the other", x, y, got, back)
		}
		if len(u) >= 16 && len(v) >= 16 {
			for _, name := range []string{"uuid", "timeuuid"} {
				ab, ba := Compare(node(name), u[:16], v[:16]), Compare(node(name), v[:16], u[:16])
				if sign(ab) != -sign(ba) || (sign(ab) == 0) != bytes.Equal(u[:16], v[:16]) {
					t.Errorf("%s %x vs %x: %d one way, %d the other", name, u[:16], v[:16], ab, ba)
				}
			}
		}
		// Any bytes, under every type: no panic, antisymmetric, and a value
		// equals itself.
		for _, typ := range fuzzTypes {
			ab, ba := sign(Compare(typ, u, v)), sign(Compare(typ, v, u))
			if ab != -ba {
				t.Errorf("%s %x vs %x: %d one way, %d the other", typ, u, v, ab, ba)
			}
			if c := Compare(typ, u, u); c != 0 {
				t.Errorf("%s %x vs itself: %d", typ, u, c)
			}
		}
	})
}

var fuzzTypes = []Type{
	{Name: "int"}, {Name: "bigint"}, {Name: "float"}, {Name: "double"}, {Name: "varint"},
	{Name: "decimal"}, {Name: "uuid"}, {Name: "timeuuid"}, {Name: "text"},
	{Name: "list", Args: []Type{{Name: "int"}}},
	{Name: "set", Args: []Type{{Name: "list", Args: []Type{{Name: "decimal"}}}}},
	{Name: "map", Args: []Type{{Name: "timeuuid"}, {Name: "set", Args: []Type{{Name: "double"}}}}},
	{Name: "udt", UDT: "u", Fields: []string{"a", "b"}, Args: []Type{{Name: "int"}, {Name: "list", Args: []Type{{Name: "text"}}}}},
	{Name: "set", Args: []Type{{Name: "udt", UDT: "u", Fields: []string{"a"}, Args: []Type{{Name: "decimal"}}}}},
}
