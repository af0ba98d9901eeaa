package cqlorder

import (
	"math/big"

	"github.com/kandra-go/kandra/internal/cqlcompare"
)

// Compare orders two serialized values of CQL type t as Cassandra 5.0's
// comparator for t does (see cqlcompare.Compare).
func Compare(t Type, a, b []byte) int { return cqlcompare.Compare(t, a, b) }

// AppendCollection appends a collection in the form of protocol 3 and
// later (see cqlcompare.AppendCollection).
func AppendCollection(out []byte, count int, elems [][]byte) []byte {
	return cqlcompare.AppendCollection(out, count, elems)
}

// AppendUDT appends a user-defined type's value (see cqlcompare.AppendUDT).
func AppendUDT(out []byte, fields [][]byte) []byte { return cqlcompare.AppendUDT(out, fields) }

// varint decodes a big-endian two's complement integer, for the tests.
func varint(b []byte) *big.Int { return cqlcompare.Varint(b) }

// splitCollection reads a serialized collection's values, for the tests.
func splitCollection(b []byte, isMap bool) ([][]byte, bool) {
	return cqlcompare.SplitCollection(b, isMap)
}
