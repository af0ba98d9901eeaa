package cqlvalue

import (
	"bytes"
	"math/big"
	"testing"

	"pgregory.net/rapid"
)

// TestAppendBigIntIsTheShortestTwosComplement: a *big.Int's VARINT is an
// int64's (IntegerBytes) where it fits, and reads back as the same
// integer in the fewest bytes anywhere.
func TestAppendBigIntIsTheShortestTwosComplement(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := new(big.Int).SetBytes(rapid.SliceOfN(rapid.Byte(), 0, 20).Draw(t, "magnitude"))
		if rapid.Bool().Draw(t, "negative") {
			x.Neg(x)
		}
		b := AppendBigInt([]byte{9}, x)[1:]
		if x.IsInt64() && !bytes.Equal(b, IntegerBytes(x.Int64(), "varint")) {
			t.Fatalf("%v: %x, IntegerBytes %x", x, b, IntegerBytes(x.Int64(), "varint"))
		}
		back := new(big.Int).SetBytes(b)
		if b[0]&0x80 != 0 {
			back.Sub(back, new(big.Int).Lsh(big.NewInt(1), uint(len(b))*8))
		}
		if back.Cmp(x) != 0 {
			t.Fatalf("%v: %x reads back as %v", x, b, back)
		}
		if len(b) > 1 && (b[0] == 0 && b[1]&0x80 == 0 || b[0] == 0xff && b[1]&0x80 != 0) {
			t.Fatalf("%v: %x is not the shortest", x, b)
		}
	})
}
