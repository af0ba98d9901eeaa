package kgocql

import (
	"math"
	"reflect"
	"strconv"

	gocql "github.com/gocql/gocql"
	"github.com/kandra-go/kandra/adapter"
)

// The adapter's own references (adapter.Driver's Ref): for the plain
// native types (string, int32, int64, int, float64, bool), a list of text
// ([]string) and gocql.UUID (and so uuid.UUID, over the same memory), a
// type over the field's own memory whose pointer is a gocql.Marshaler and
// gocql.Unmarshaler. The core's generic references do the same for any
// driver; these are gocql v1.7.0's, written for its types, without the
// cost of a generic method's call to the driver on every value. Bound by
// reference, a UUID marshals through the core's uuidRefWire instead, which
// gives the field's own 16 bytes; uuidRef is its value form and scan
// target.
//
// Each writes its field's bytes itself only for the CQL types whose
// encoding in gocql v1.7.0's marshal.go is a plain copy or a big-endian
// integer (the same expression gocql uses), and hands the value to
// gocql.Marshal for every other type, so that the bytes, the nulls and
// the errors are gocql's own. Their UnmarshalCQL methods do the same the
// other way: they decode exactly what gocql's unmarshal functions decode
// for those types into a pointer of the field's type (null and an empty
// value included), and call gocql.Unmarshal for any other type and for
// the values on which gocql v1.7.0 and ScyllaDB's fork of gocql differ:
// a value of the wrong length (gocql v1.7.0 reads it as zero, the fork
// refuses it and leaves the field as it was) and an ascii value with a
// byte above 127 (the fork refuses it).
type (
	textRef   string
	int32Ref  int32
	int64Ref  int64
	intRef    int
	doubleRef float64
	boolRef   bool
	uuidRef   gocql.UUID

	// textListRef marshals and unmarshals a list or set of text (or
	// ascii or blob) from and to a []string; gocql does it through
	// reflect, element by element.
	textListRef []string
)

// refs are the reference types, by the Go type of their fields.
var refs = map[reflect.Type]reflect.Type{
	reflect.TypeFor[string]():     reflect.TypeFor[textRef](),
	reflect.TypeFor[int32]():      reflect.TypeFor[int32Ref](),
	reflect.TypeFor[int64]():      reflect.TypeFor[int64Ref](),
	reflect.TypeFor[int]():        reflect.TypeFor[intRef](),
	reflect.TypeFor[float64]():    reflect.TypeFor[doubleRef](),
	reflect.TypeFor[bool]():       reflect.TypeFor[boolRef](),
	reflect.TypeFor[gocql.UUID](): reflect.TypeFor[uuidRef](),
	reflect.TypeFor[[]string]():   reflect.TypeFor[textListRef](),
}

// isText: gocql's marshalVarchar, which sends a string's or a []byte's
// bytes as they are (an empty one as an empty value, not null).
func isText(t gocql.Type) bool {
	return t == gocql.TypeVarchar || t == gocql.TypeText || t == gocql.TypeAscii || t == gocql.TypeBlob
}

func (r textRef) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	if isText(info.Type()) {
		return adapter.TextBytes(string(r)), nil // gocql only copies them into the frame
	}
	return gocql.Marshal(info, string(r))
}

func (r int32Ref) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	if info.Type() == gocql.TypeInt {
		return be32(int32(r)), nil
	}
	return gocql.Marshal(info, int32(r))
}

func (r int64Ref) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	switch info.Type() {
	case gocql.TypeBigInt, gocql.TypeCounter, gocql.TypeTimestamp:
		return be64(int64(r)), nil
	}
	return gocql.Marshal(info, int64(r))
}

func (r intRef) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	switch info.Type() {
	case gocql.TypeBigInt, gocql.TypeCounter:
		return be64(int64(r)), nil
	}
	return gocql.Marshal(info, int(r)) // INT checks the range
}

func (r doubleRef) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	if info.Type() == gocql.TypeDouble {
		return be64(int64(math.Float64bits(float64(r)))), nil
	}
	return gocql.Marshal(info, float64(r))
}

func (r boolRef) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	if info.Type() == gocql.TypeBoolean {
		if r {
			return []byte{1}, nil
		}
		return []byte{0}, nil
	}
	return gocql.Marshal(info, bool(r))
}

func (r uuidRef) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	switch info.Type() {
	case gocql.TypeUUID, gocql.TypeTimeUUID:
		b := make([]byte, 16) // r is the method's own copy: its bytes cannot be handed out
		copy(b, r[:])
		return b, nil
	}
	return gocql.Marshal(info, gocql.UUID(r))
}

// textList reports whether info is a list or set of text elements at a
// protocol whose sizes are 4 bytes (3 and later), the only form
// textListRef encodes itself.
func textList(info gocql.TypeInfo) bool {
	ci, ok := info.(gocql.CollectionType)
	return ok && (ci.Type() == gocql.TypeList || ci.Type() == gocql.TypeSet) &&
		ci.Version() > 2 && ci.Elem != nil && isText(ci.Elem.Type())
}

// MarshalCQL writes gocql's marshalList of a []string
// (adapter.AppendTextList): nil is null.
func (r textListRef) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	v := []string(r)
	if !textList(info) {
		return gocql.Marshal(info, v)
	}
	if v == nil {
		return nil, nil
	}
	if b, ok := adapter.AppendTextList(nil, v); ok {
		return b, nil
	}
	return gocql.Marshal(info, v) // gocql's error
}

// UnmarshalCQL reads what gocql's unmarshalList reads into a *[]string
// (adapter.DecodeTextList): null is a nil slice. Data that is not well
// formed is gocql's error, "unmarshal list: unexpected eof", and the field
// is left as it was.
func (r *textListRef) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	if !textList(info) {
		return gocql.Unmarshal(info, data, (*[]string)(r))
	}
	if data == nil {
		*r = nil
		return nil
	}
	v, ok := adapter.DecodeTextList(data)
	if !ok {
		return errListEOF
	}
	if info.(gocql.CollectionType).Elem.Type() == gocql.TypeAscii && !allASCII(v) {
		// Well formed (so gocql allocates no more than the data holds):
		// gocql v1.7.0 reads it as v, the fork refuses it.
		return gocql.Unmarshal(info, data, (*[]string)(r))
	}
	*r = v
	return nil
}

func (r *textRef) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	if t := info.Type(); isText(t) && (t != gocql.TypeAscii || isASCII(data)) {
		*r = textRef(data)
		return nil
	}
	return gocql.Unmarshal(info, data, (*string)(r))
}

func (r *int32Ref) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	if info.Type() == gocql.TypeInt && sized(data, 4) {
		*r = int32Ref(dec64(data, 4))
		return nil
	}
	return gocql.Unmarshal(info, data, (*int32)(r))
}

func (r *int64Ref) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	switch info.Type() {
	case gocql.TypeBigInt, gocql.TypeCounter, gocql.TypeTimestamp:
		if sized(data, 8) {
			*r = int64Ref(dec64(data, 8))
			return nil
		}
	}
	return gocql.Unmarshal(info, data, (*int64)(r))
}

func (r *intRef) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	switch info.Type() {
	case gocql.TypeBigInt, gocql.TypeCounter:
		if strconv.IntSize == 64 && sized(data, 8) { // else gocql checks the range
			*r = intRef(dec64(data, 8))
			return nil
		}
	case gocql.TypeInt:
		if sized(data, 4) {
			*r = intRef(int32(dec64(data, 4)))
			return nil
		}
	}
	return gocql.Unmarshal(info, data, (*int)(r))
}

func (r *doubleRef) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	if info.Type() == gocql.TypeDouble && sized(data, 8) {
		*r = doubleRef(math.Float64frombits(uint64(dec64(data, 8))))
		return nil
	}
	return gocql.Unmarshal(info, data, (*float64)(r))
}

func (r *boolRef) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	if info.Type() == gocql.TypeBoolean && sized(data, 1) {
		*r = len(data) > 0 && data[0] != 0
		return nil
	}
	return gocql.Unmarshal(info, data, (*bool)(r))
}

func (r *uuidRef) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	switch info.Type() {
	case gocql.TypeUUID, gocql.TypeTimeUUID:
		switch len(data) {
		case 0:
			*r = uuidRef{}
			return nil
		case 16:
			copy(r[:], data)
			return nil
		}
	}
	return gocql.Unmarshal(info, data, (*gocql.UUID)(r)) // and its error for another length
}

// sized reports whether data is null, empty or n bytes long: the values
// of a type of n bytes that gocql v1.7.0 and the fork read alike (null and
// empty as zero). The fork refuses any other length, which gocql v1.7.0
// reads as zero (or, for a boolean, by its first byte).
func sized(data []byte, n int) bool { return len(data) == 0 || len(data) == n }

// isASCII reports whether every byte of s is 127 or below: the ascii
// values the fork reads (gocql v1.7.0 reads any bytes).
func isASCII[S ~string | ~[]byte](s S) bool {
	for i := 0; i < len(s); i++ {
		if s[i] > 127 {
			return false
		}
	}
	return true
}

// allASCII reports whether every string of v isASCII.
func allASCII(v []string) bool {
	for _, s := range v {
		if !isASCII(s) {
			return false
		}
	}
	return true
}

// dec64 is gocql's decInt (n = 4) or decBigInt (n = 8): the big-endian
// integer, or 0 when data is not n bytes long.
func dec64(data []byte, n int) int64 {
	if len(data) != n {
		return 0
	}
	var x int64
	for _, b := range data {
		x = x<<8 | int64(b)
	}
	if n == 4 {
		return int64(int32(x))
	}
	return x
}

func be32(x int32) []byte {
	return []byte{byte(x >> 24), byte(x >> 16), byte(x >> 8), byte(x)}
}

func be64(x int64) []byte {
	return []byte{byte(x >> 56), byte(x >> 48), byte(x >> 40), byte(x >> 32),
		byte(x >> 24), byte(x >> 16), byte(x >> 8), byte(x)}
}
