package kstore

import (
	"encoding/binary"
	"reflect"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/cqlvalue"
)

// The batch limit (batch_size_fail_threshold) is on the size the server
// gives the batch's rows, not on the bytes sent: for each row, its
// clustering key and its cells, each cell its value plus the cell's own
// overhead (timestamp, TTL, deletion time), an element of a collection
// that is not frozen a cell of its own (with its cell path: a list's is a
// timeuuid), a field of a user-defined type that is not frozen too, a
// frozen value one cell of its serialized bytes; the partition keys are
// not counted (nor is a batch of one partition checked, which kandra
// checks all the same). estimateSize counts a lower bound of that, so
// that a batch over the limit by its count is over it for the server:
//
//   - on every target, the values' bytes without their framing (the
//     lengths and counts of the native protocol's form), which any server
//     keeps at least, whatever the value's shape and freezing;
//   - on a keyspace whose targets are all Cassandra, also the cells'
//     overhead as Cassandra counts it, at least cassandraCell bytes a
//     cell (20 on Cassandra 5.0: a list of bigints is refused past about
//     1,160 elements, 44 bytes each), and a list element's path.

// cassandraCell is the least Cassandra counts for a cell beside its value
// and path: its timestamp (8 bytes), TTL (4) and local deletion time (4,
// 8 on 5.0).
const cassandraCell = 16

// cassandraListPath is a list element's cell path in Cassandra, a
// timeuuid.
const cassandraListPath = 16

// batchSizer measures the values of one batch: a scratch buffer for their
// stored forms, and the fields of the user-defined types met. cells counts
// Cassandra's cell overheads too (every target is Cassandra).
type batchSizer struct {
	buf    []byte
	fields map[kandra.CQLType][]kandra.UDTField
	cells  bool
}

// valueBytes is the least the server counts of the value v of column col
// (a field's address, as a statement binds it): its bytes without their
// framing, and when cell (a regular or static column of the row, not a
// key) and s.cells, its cells' overhead. It is 0 for null, and for a
// value whose bytes kandra leaves to the driver (a CQLTyper), of which
// nothing is known.
func (s *batchSizer) valueBytes(col *kandra.ColumnSchema, v any, cell bool) int {
	over := 0
	if cell && s.cells {
		over = cassandraCell
	}
	switch x := v.(type) { // the common cases, without copying the value
	case nil:
		return 0
	case *string:
		return over + len(*x)
	case string:
		return over + len(x)
	case *[]byte:
		if *x == nil {
			return 0
		}
		return over + len(*x)
	case []byte:
		if x == nil {
			return 0
		}
		return over + len(x)
	case *cqlvalue.TextSet: // Add's or Remove's elements: measured as the set they stand for
		return s.storedBytes(col, columnValue(col, x), over)
	}
	if n, ok := fixedBytes(col, v); ok {
		if n == 0 {
			return 0 // null
		}
		return over + n
	}
	if n, ok := textListBytes(col, v, over); ok {
		return n
	}
	return s.storedBytes(col, v, over)
}

// textListBytes is valueBytes of a []string in a list of text, counted
// from the strings (ok false for any other value). A value the column
// refuses (text that is not UTF-8) is refused before a batch is measured.
func textListBytes(col *kandra.ColumnSchema, v any, over int) (n int, ok bool) {
	x, ok := v.(*[]string)
	ct := col.Type()
	if !ok || ct.Kind() != kandra.KindList || !textElems(ct) {
		return 0, false
	}
	if *x == nil {
		return 0, true // null
	}
	for _, e := range *x {
		n += len(e)
	}
	switch {
	case over == 0: // the leaves only
		return n, true
	case col.IsFrozen(): // one cell
		return over + n, true
	}
	return n + len(*x)*(cassandraCell+cassandraListPath), true // a cell per element; none for an empty list (null)
}

// storedBytes is valueBytes of any value, measured on its stored form.
func (s *batchSizer) storedBytes(col *kandra.ColumnSchema, v any, over int) int {
	p := v
	if reflect.ValueOf(v).Kind() != reflect.Pointer {
		p = ptrTo(v)
	}
	out, err := col.AppendStored(s.buf[:0], p)
	if err != nil {
		return 0
	}
	s.buf = out
	if over == 0 {
		n, _ := s.leaves(out, col.Type())
		return n
	}
	return s.cellBytes(out, col)
}

// fixedBytes is the length of the common fixed-size values, by the
// column's CQL type, without encoding them (a Save measures a handful of
// them on every call); 0 for null; ok is false for any other value.
func fixedBytes(col *kandra.ColumnSchema, v any) (n int, ok bool) {
	ct := col.Type()
	switch x := v.(type) {
	case *int64, *int, *int32, *int16, *int8, *bool, *float64, *float32, *time.Time:
		n = ct.FixedSize() // 0 for VARINT, measured by the stored form
	case *uuid.UUID:
		if n = ct.FixedSize(); n > 0 && *x == (uuid.UUID{}) && ct.Name() == "TIMEUUID" {
			return 0, true // sent as null
		}
	}
	return n, n > 0
}

// cellBytes is Cassandra's least count of the cells of a regular column
// col holding b (its framed stored value): one cell of a frozen or native
// value, a cell per element of a collection or per non-null field of a
// user-defined type that is not frozen.
func (s *batchSizer) cellBytes(b []byte, col *kandra.ColumnSchema) int {
	ct := col.Type()
	if int32(binary.BigEndian.Uint32(b)) < 0 {
		return 0 // null: a tombstone, counted as nothing
	}
	if col.IsFrozen() || !ct.IsCollection() && ct.Kind() != kandra.KindUDT {
		n, _ := s.leaves(b, ct)
		return cassandraCell + n
	}
	body := b[4:]
	n := 0
	if ct.Kind() == kandra.KindUDT {
		for _, f := range s.udtFields(ct) {
			if len(body) < 4 {
				break
			}
			null := int32(binary.BigEndian.Uint32(body)) < 0
			var k int
			k, body = s.leaves(body, f.Type)
			if !null {
				n += cassandraCell + k
			}
		}
		return n
	}
	if len(body) < 4 {
		return 0
	}
	count := binary.BigEndian.Uint32(body)
	body = body[4:]
	for i := uint32(0); i < count && len(body) > 0; i++ {
		n += cassandraCell
		if ct.Kind() == kandra.KindList {
			n += cassandraListPath
		}
		var k int
		if ct.Kind() == kandra.KindMap {
			k, body = s.leaves(body, ct.Key())
			n += k
		}
		k, body = s.leaves(body, ct.Elem())
		n += k
	}
	return n
}

// udtFields is ct's fields, kept for the batch.
func (s *batchSizer) udtFields(ct kandra.CQLType) []kandra.UDTField {
	fields, ok := s.fields[ct]
	if !ok {
		if s.fields == nil {
			s.fields = map[kandra.CQLType][]kandra.UDTField{}
		}
		fields = ct.Fields()
		s.fields[ct] = fields
	}
	return fields
}

// leaves is the bytes of the values in b, one value of type ct in the
// framed form AppendStored appends ([int32 length][bytes], the length -1
// for null), without the lengths and counts: a native value's bytes, a
// collection's elements' (a map's keys' and values'), a user-defined
// type's fields'. rest is what follows the value in b.
func (s *batchSizer) leaves(b []byte, ct kandra.CQLType) (n int, rest []byte) {
	if len(b) < 4 {
		return 0, nil
	}
	l := int32(binary.BigEndian.Uint32(b))
	b = b[4:]
	if l < 0 || int(l) > len(b) {
		return 0, b
	}
	body, rest := b[:l], b[l:]
	switch ct.Kind() {
	case kandra.KindList, kandra.KindSet, kandra.KindMap:
		if len(body) < 4 {
			return 0, rest
		}
		count := binary.BigEndian.Uint32(body)
		body = body[4:]
		for i := uint32(0); i < count && len(body) > 0; i++ {
			var k int
			if ct.Kind() == kandra.KindMap {
				k, body = s.leaves(body, ct.Key())
				n += k
			}
			k, body = s.leaves(body, ct.Elem())
			n += k
		}
		return n, rest
	case kandra.KindUDT:
		for _, f := range s.udtFields(ct) {
			if len(body) == 0 {
				break
			}
			var k int
			k, body = s.leaves(body, f.Type)
			n += k
		}
		return n, rest
	}
	return int(l), rest // a native value or a vector: its bytes
}
