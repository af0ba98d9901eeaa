package adapter

import (
	"reflect"

	"github.com/kandra-go/kandra/internal/cqlorder"
)

// TypeSystem is a driver's type system as the core sees it. I is the driver's type info,
// what it hands a Marshaler (gocql.TypeInfo in both gocql drivers): the
// core's wire types and references implement the driver's Marshaler and
// Unmarshaler for it.
//
// An adapter implements TypeSystem on an empty struct type D and instantiates
// the core with it (Codec[gocql.TypeInfo, D]); the core calls the methods
// of D's zero value, so that a wire type the driver calls with nothing
// but a type info reaches the driver all the same.
type TypeSystem[I any] interface {
	// Type is info's CQL type, as the native protocol numbers it. The
	// core never asks it of a nil info.
	Type(info I) Type
	// Collection reports whether info is a collection's (a list's, a
	// set's or a map's: Type says which) and, if so, the type info of its
	// keys (a map's; the zero I otherwise) and of its elements (a map's
	// values). err stops the marshalling of a SortedValue: a driver
	// returns one when it cannot send a collection as the core writes it,
	// with 4-byte sizes (a protocol before 3).
	Collection(info I) (key, elem I, ok bool, err error)
	// UDT reports whether info is a user-defined type's and, if so, the
	// keyspace and name the server gives it and how many fields it has.
	// The core encodes a user-defined type's values itself, matching the
	// Go struct's fields to the server's by name (UDTField).
	UDT(info I) (keyspace, name string, fields int, ok bool)
	// UDTField is field i (0 <= i < the count UDT reports) of the
	// user-defined type info: its name and type info, in the server's
	// order.
	UDTField(info I, i int) (name string, field I)
	// Marshal is the driver's own marshalling (gocql.Marshal), which the
	// core hands every value it does not encode itself.
	Marshal(info I, v any) ([]byte, error)
	// Unmarshal is the driver's own unmarshalling (gocql.Unmarshal), which
	// the core hands every value it does not decode itself.
	Unmarshal(info I, data []byte, v any) error
	// UUID is the driver's own UUID type (gocql.UUID), which it binds and
	// scans as it is: a field of it is bound and scanned by reference but
	// not converted (Codec.Converted). Every other 16-byte array type but
	// [16]byte (uuid.UUID, a type UserID uuid.UUID) is converted.
	UUID() reflect.Type
	// Ref is the adapter's own reference type for a field of Go type t,
	// or nil for none: a type with t's underlying type whose pointer is
	// the driver's Marshaler and Unmarshaler over the field's memory, as
	// the core's references are (see Codec), written for the driver's
	// own types without the cost of the core's generic ones. The core
	// binds and scans a field of t through it, and a uuid.UUID through
	// the Ref of the driver's UUID.
	Ref(t reflect.Type) reflect.Type
	// Unset is the driver's own unset value (gocql.UnsetValue), which
	// Plan.Values sends for Unset.
	Unset() any
}

// Type is a CQL type as the native protocol numbers it (the [option] of
// a column's metadata), the numbers both gocql drivers' Type constants
// have.
type Type int

// The native protocol's types.
const (
	TypeCustom    Type = 0x0000
	TypeASCII     Type = 0x0001
	TypeBigInt    Type = 0x0002
	TypeBlob      Type = 0x0003
	TypeBoolean   Type = 0x0004
	TypeCounter   Type = 0x0005
	TypeDecimal   Type = 0x0006
	TypeDouble    Type = 0x0007
	TypeFloat     Type = 0x0008
	TypeInt       Type = 0x0009
	TypeText      Type = 0x000A
	TypeTimestamp Type = 0x000B
	TypeUUID      Type = 0x000C
	TypeVarchar   Type = 0x000D
	TypeVarint    Type = 0x000E
	TypeTimeUUID  Type = 0x000F
	TypeInet      Type = 0x0010
	TypeDate      Type = 0x0011
	TypeTime      Type = 0x0012
	TypeSmallInt  Type = 0x0013
	TypeTinyInt   Type = 0x0014
	TypeDuration  Type = 0x0015
	TypeList      Type = 0x0020
	TypeMap       Type = 0x0021
	TypeSet       Type = 0x0022
	TypeUDT       Type = 0x0030
	TypeTuple     Type = 0x0031
)

// order is D as internal/cqlorder's Marshal sees a driver.
type order[I any, D TypeSystem[I]] struct{}

func (order[I, D]) Collection(info I) (cqlorder.Kind, I, I, error) {
	return collection[I, D](info)
}

// collection is info's collection kind, with the type info of its keys
// and elements.
func collection[I any, D TypeSystem[I]](info I) (kind cqlorder.Kind, key, elem I, err error) {
	var d D
	if any(info) == nil {
		return cqlorder.NotCollection, key, elem, nil
	}
	key, elem, ok, err := d.Collection(info)
	if !ok || err != nil {
		return cqlorder.NotCollection, key, elem, err
	}
	switch d.Type(info) {
	case TypeList:
		return cqlorder.List, key, elem, nil
	case TypeSet:
		return cqlorder.Set, key, elem, nil
	case TypeMap:
		return cqlorder.Map, key, elem, nil
	}
	return cqlorder.NotCollection, key, elem, nil
}

func (order[I, D]) Marshal(info I, v any) ([]byte, error) {
	var d D
	return d.Marshal(info, v)
}
