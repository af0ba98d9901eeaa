package adapter

import (
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/kandra-go/kandra/internal/cqlorder"
	"github.com/kandra-go/kandra/internal/reflectx"
)

// The references: for the plain native types (string, int32, int64, int,
// float64, bool) and a list of text ([]string), a pointer type to the
// field's own memory whose MarshalCQL writes the field's bytes when the
// driver marshals the statement, and whose UnmarshalCQL decodes a column
// into the field. An interface holds one without allocating (a pointer),
// where boxing a string or an int64 allocates, and both drivers call a
// Marshaler or an Unmarshaler before any reflection of theirs.
//
// Each encodes and decodes itself only the CQL types and the values whose
// form the protocol fixes and on which both drivers agree (a text's
// bytes, a big-endian integer of the type's width, null and the empty
// value as zero), and hands everything else to the driver's Marshal or
// Unmarshal with the field's own type: the bytes, the nulls and the
// errors are the driver's own. The adapters' tests prove each against
// their driver's marshalling.
type (
	textRef[I any, D TypeSystem[I]]   string
	int32Ref[I any, D TypeSystem[I]]  int32
	int64Ref[I any, D TypeSystem[I]]  int64
	intRef[I any, D TypeSystem[I]]    int
	doubleRef[I any, D TypeSystem[I]] float64
	boolRef[I any, D TypeSystem[I]]   bool
	// textListRef is a []string in a list or set of text (or ascii or
	// blob); the drivers marshal and unmarshal it through reflect,
	// element by element.
	textListRef[I any, D TypeSystem[I]] []string
)

// deref is the value behind a field address of a common type, which the
// drivers marshal through their typed cases; given the address, they
// dereference it through reflect first. Any other value is returned as it
// is.
func deref(p any) any {
	switch x := p.(type) {
	case *string:
		return *x
	case *[]byte:
		return *x
	case *int32:
		return *x
	case *int64:
		return *x
	case *int:
		return *x
	case *float64:
		return *x
	case *bool:
		return *x
	case *time.Time:
		return *x
	case *[]string:
		return *x
	case **string: // a nullable column's (see nullableRef): null, or a copy of the value
		return valueOrNull(*x)
	case **int32:
		return valueOrNull(*x)
	case **int64:
		return valueOrNull(*x)
	case **int:
		return valueOrNull(*x)
	case **float64:
		return valueOrNull(*x)
	case **bool:
		return valueOrNull(*x)
	}
	return p
}

// refOf is the reference to the field at p, if its type has one.
func refOf[I any, D TypeSystem[I]](p any) (any, bool) {
	switch x := p.(type) {
	case *string:
		return (*textRef[I, D])(x), true
	case *int32:
		return (*int32Ref[I, D])(x), true
	case *int64:
		return (*int64Ref[I, D])(x), true
	case *int:
		return (*intRef[I, D])(x), true
	case *float64:
		return (*doubleRef[I, D])(x), true
	case *bool:
		return (*boolRef[I, D])(x), true
	case *[]string:
		return (*textListRef[I, D])(x), true
	case *Present:
		return (*presentRef[I, D])(x), true
	}
	return nil, false
}

// Present is a scan target that records whether a column's value was
// there (not null), whatever the column's type: the rows of a partition
// SELECT of a table with static columns end with the first clustering
// column as one (Statement.HasPresence), which is null only in the row a
// partition with static values but no rows returns.
type Present bool

// presentRef is a Present as the driver's Unmarshaler.
type presentRef[I any, D TypeSystem[I]] Present

// UnmarshalCQL implements the driver's Unmarshaler: a null value is
// absent, any other (an empty one too) present.
func (r *presentRef[I, D]) UnmarshalCQL(_ I, data []byte) error {
	*r = data != nil
	return nil
}

// MarshalCQL implements the driver's Marshaler; a Present is never bound.
func (r *presentRef[I, D]) MarshalCQL(I) ([]byte, error) {
	return nil, errors.New("kandra: an adapter.Present is a scan target only")
}

// ref is the reference that marshals the field at p, and deref(p) for a
// type without one.
func ref[I any, D TypeSystem[I]](p any) any {
	if r, ok := refOf[I, D](p); ok {
		return r
	}
	if r, ok := nullableRef[I, D](p); ok {
		return r
	}
	return deref(p)
}

// nullableRef is the bound value of the field at p when it is a pointer
// to a plain native type (a nullable column: *string, *int64...): null
// for a nil pointer, else the reference to the value it points to. The
// drivers, given the field's address, would dereference it twice through
// reflect. Only for binding: a scan must set the field itself.
func nullableRef[I any, D TypeSystem[I]](p any) (any, bool) {
	switch x := p.(type) {
	case **string:
		return nullOr(*x, (*textRef[I, D])(*x)), true
	case **int32:
		return nullOr(*x, (*int32Ref[I, D])(*x)), true
	case **int64:
		return nullOr(*x, (*int64Ref[I, D])(*x)), true
	case **int:
		return nullOr(*x, (*intRef[I, D])(*x)), true
	case **float64:
		return nullOr(*x, (*doubleRef[I, D])(*x)), true
	case **bool:
		return nullOr(*x, (*boolRef[I, D])(*x)), true
	}
	return nil, false
}

// nullOr is null (an untyped nil) when p is nil, else v.
func nullOr[V any](p *V, v any) any {
	if p == nil {
		return nil
	}
	return v
}

// valueOrNull is null when p is nil, else a copy of *p.
func valueOrNull[V any](p *V) any {
	if p == nil {
		return nil
	}
	return *p
}

// scanRef is the scan target for the field at p: its reference, or p.
func scanRef[I any, D TypeSystem[I]](p any) any {
	if r, ok := refOf[I, D](p); ok {
		return r
	}
	return p
}

// refType is the reference type of a field of type t, if it has one.
func refType[I any, D TypeSystem[I]](t reflect.Type) (reflect.Type, bool) {
	r, ok := refOf[I, D](reflect.New(t).Interface())
	if !ok {
		return nil, false
	}
	return reflect.TypeOf(r).Elem(), true
}

// isText: the types whose value is a string's or a []byte's bytes as they
// are (an empty one an empty value, not null).
func isText(t Type) bool {
	return t == TypeVarchar || t == TypeText || t == TypeASCII || t == TypeBlob
}

// MarshalCQL implements the driver's Marshaler.
func (r *textRef[I, D]) MarshalCQL(info I) ([]byte, error) {
	var d D
	if isText(d.Type(info)) {
		return TextBytes(string(*r)), nil
	}
	return d.Marshal(info, string(*r))
}

// UnmarshalCQL implements the driver's Unmarshaler.
func (r *textRef[I, D]) UnmarshalCQL(info I, data []byte) error {
	var d D
	if isText(d.Type(info)) {
		*r = textRef[I, D](data)
		return nil
	}
	return d.Unmarshal(info, data, (*string)(r))
}

// MarshalCQL implements the driver's Marshaler.
func (r *int32Ref[I, D]) MarshalCQL(info I) ([]byte, error) {
	var d D
	if d.Type(info) == TypeInt {
		return be32(uint32(*r)), nil
	}
	return d.Marshal(info, int32(*r))
}

// UnmarshalCQL implements the driver's Unmarshaler.
func (r *int32Ref[I, D]) UnmarshalCQL(info I, data []byte) error {
	var d D
	if d.Type(info) == TypeInt {
		switch len(data) {
		case 0:
			*r = 0
			return nil
		case 4:
			*r = int32Ref[I, D](binary.BigEndian.Uint32(data))
			return nil
		}
	}
	return d.Unmarshal(info, data, (*int32)(r))
}

// be32 and be64 are a new value's big-endian bytes: made at their size,
// where appending to nil grows a slice (about a third slower per value,
// and a statement marshals many).
func be32(v uint32) []byte {
	b := make([]byte, 4)
	binary.BigEndian.PutUint32(b, v)
	return b
}

func be64(v uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, v)
	return b
}

// bigInt reports the CQL types whose value is an int64's 8 bytes.
func bigInt(t Type) bool { return t == TypeBigInt || t == TypeCounter }

// MarshalCQL implements the driver's Marshaler.
func (r *int64Ref[I, D]) MarshalCQL(info I) ([]byte, error) {
	var d D
	if t := d.Type(info); bigInt(t) || t == TypeTimestamp {
		return be64(uint64(*r)), nil
	}
	return d.Marshal(info, int64(*r))
}

// UnmarshalCQL implements the driver's Unmarshaler.
func (r *int64Ref[I, D]) UnmarshalCQL(info I, data []byte) error {
	var d D
	if t := d.Type(info); bigInt(t) || t == TypeTimestamp {
		switch len(data) {
		case 0:
			*r = 0
			return nil
		case 8:
			*r = int64Ref[I, D](binary.BigEndian.Uint64(data))
			return nil
		}
	}
	return d.Unmarshal(info, data, (*int64)(r))
}

// MarshalCQL implements the driver's Marshaler; an INT is the driver's,
// which checks the range.
func (r *intRef[I, D]) MarshalCQL(info I) ([]byte, error) {
	var d D
	if bigInt(d.Type(info)) {
		return be64(uint64(*r)), nil
	}
	return d.Marshal(info, int(*r))
}

// UnmarshalCQL implements the driver's Unmarshaler; a BIGINT into a
// 32-bit int is the driver's, which checks the range.
func (r *intRef[I, D]) UnmarshalCQL(info I, data []byte) error {
	var d D
	switch t := d.Type(info); {
	case bigInt(t) && strconv.IntSize == 64:
		switch len(data) {
		case 0:
			*r = 0
			return nil
		case 8:
			*r = intRef[I, D](int64(binary.BigEndian.Uint64(data)))
			return nil
		}
	case t == TypeInt:
		switch len(data) {
		case 0:
			*r = 0
			return nil
		case 4:
			*r = intRef[I, D](int32(binary.BigEndian.Uint32(data)))
			return nil
		}
	}
	return d.Unmarshal(info, data, (*int)(r))
}

// MarshalCQL implements the driver's Marshaler.
func (r *doubleRef[I, D]) MarshalCQL(info I) ([]byte, error) {
	var d D
	if d.Type(info) == TypeDouble {
		return be64(math.Float64bits(float64(*r))), nil
	}
	return d.Marshal(info, float64(*r))
}

// UnmarshalCQL implements the driver's Unmarshaler.
func (r *doubleRef[I, D]) UnmarshalCQL(info I, data []byte) error {
	var d D
	if d.Type(info) == TypeDouble {
		switch len(data) {
		case 0:
			*r = 0
			return nil
		case 8:
			*r = doubleRef[I, D](math.Float64frombits(binary.BigEndian.Uint64(data)))
			return nil
		}
	}
	return d.Unmarshal(info, data, (*float64)(r))
}

// MarshalCQL implements the driver's Marshaler.
func (r *boolRef[I, D]) MarshalCQL(info I) ([]byte, error) {
	var d D
	if d.Type(info) == TypeBoolean {
		if *r {
			return []byte{1}, nil
		}
		return []byte{0}, nil
	}
	return d.Marshal(info, bool(*r))
}

// UnmarshalCQL implements the driver's Unmarshaler.
func (r *boolRef[I, D]) UnmarshalCQL(info I, data []byte) error {
	var d D
	if d.Type(info) == TypeBoolean && len(data) <= 1 {
		*r = len(data) == 1 && data[0] != 0
		return nil
	}
	return d.Unmarshal(info, data, (*bool)(r))
}

// textList reports whether info is a list or set of text elements that
// the driver sends with 4-byte sizes, the only form textListRef encodes
// itself.
func textList[I any, D TypeSystem[I]](info I) bool {
	var d D
	kind, _, elem, err := collection[I, D](info)
	return err == nil && (kind == cqlorder.List || kind == cqlorder.Set) && any(elem) != nil && isText(d.Type(elem))
}

// MarshalCQL writes both drivers' list of a []string (AppendTextList).
func (r *textListRef[I, D]) MarshalCQL(info I) ([]byte, error) {
	v := []string(*r)
	var d D
	if !textList[I, D](info) {
		return d.Marshal(info, v)
	}
	if v == nil {
		return nil, nil
	}
	if b, ok := AppendTextList(nil, v); ok {
		return b, nil
	}
	return d.Marshal(info, v) // the driver's error
}

var errTextList = errors.New("unmarshal list: unexpected eof")

// UnmarshalCQL reads what both drivers read into a *[]string
// (DecodeTextList): null is a nil slice. Data that is not well formed
// fails, as in the drivers, and leaves the field as it was.
func (r *textListRef[I, D]) UnmarshalCQL(info I, data []byte) error {
	if !textList[I, D](info) {
		var d D
		return d.Unmarshal(info, data, (*[]string)(r))
	}
	if data == nil {
		*r = nil
		return nil
	}
	v, ok := DecodeTextList(data)
	if !ok {
		return errTextList
	}
	*r = v
	return nil
}

// TextBytes is a text value's bytes for a Marshaler to return: s's own
// bytes, not a copy, which the driver must only read. Both gocql drivers
// only copy a marshalled value into the request frame they build in the
// caller's goroutine (gocql v1.7.0's and the Apache driver v2.1.2's
// Conn.exec), so a Marshaler of theirs can give them; an empty s is an
// empty value (not nil, which they send as null).
func TextBytes(s string) []byte { return reflectx.StringBytes(s) }

// AppendTextList appends v, a list or set of text, to dst as both gocql
// drivers write a []string with 4-byte sizes (protocol 3 and later): the
// count, then each element's length and bytes (an empty string is an
// empty element, not null). ok is false for an element too long for a
// 4-byte size (the driver's error to report).
func AppendTextList(dst []byte, v []string) (b []byte, ok bool) {
	n := 4
	for _, s := range v {
		if len(s) > math.MaxInt32 {
			return dst, false
		}
		n += 4 + len(s)
	}
	dst = slices.Grow(dst, n)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(v)))
	for _, s := range v {
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(s)))
		dst = append(dst, s...)
	}
	return dst, true
}

// DecodeTextList reads data, a list or set of text with 4-byte sizes, as
// both gocql drivers read one into a []string: a new slice (empty, not
// nil, for no elements), a null element "". The elements share one
// string, so that a list is two allocations, not one per element. ok is
// false for data that is not well formed (too short, a negative count, an
// element past the end), before anything is allocated: a driver would
// first allocate the slice of the count the data claims (and gocql v1.7.0
// panic on a negative one). Bytes after the last element are ignored, as
// the drivers do.
func DecodeTextList(data []byte) (v []string, ok bool) {
	n, ok := textListSize(data)
	if !ok {
		return nil, false
	}
	all := string(data[4:])
	out := make([]string, n)
	at := 0
	for i := range out {
		m := int(int32(binary.BigEndian.Uint32(data[4+at:])))
		at += 4
		if m > 0 {
			out[i] = all[at : at+m]
			at += m
		}
	}
	return out, true
}

// textListSize is the element count of a well-formed list of text in
// data, and false for anything else.
func textListSize(data []byte) (int, bool) {
	if len(data) < 4 {
		return 0, false
	}
	n := int(int32(binary.BigEndian.Uint32(data)))
	if n < 0 {
		return 0, false
	}
	rest := data[4:]
	for i := 0; i < n; i++ {
		if len(rest) < 4 {
			return 0, false
		}
		m := int(int32(binary.BigEndian.Uint32(rest)))
		rest = rest[4:]
		if m < 0 {
			continue // null: ""
		}
		if len(rest) < m {
			return 0, false
		}
		rest = rest[m:]
	}
	return n, true
}
