package kandra

import (
	"slices"
	"strconv"
	"strings"
)

// CQLType is a CQL column type: a native type, a list, set or map of CQL
// types, a vector of floats, or a user-defined type. Values are immutable;
// build them from the CQL* natives and ListOf, SetOf, MapOf, VectorOf and
// UDTOf, or read one with ParseCQLType. Freezing is not part of the
// value: kandra writes FROZEN<...> where a server requires it (a
// collection or user-defined type nested in a collection or in a
// user-defined type, or in any primary-key position) and nowhere else.
// The zero CQLType is invalid.
//
// Inspect a CQLType with Kind, Elem, Key and Name, and compare two with
// Equal: == compares identities, not trees.
type CQLType struct{ n *typeNode }

// CQLKind is the shape of a CQLType, as reflect.Kind is of a Go type.
type CQLKind uint8

// The kinds of CQLType.
const (
	// KindInvalid is the kind of the zero CQLType.
	KindInvalid CQLKind = iota
	// KindNative is a native type such as TEXT; Name says which.
	KindNative
	// KindList is LIST<Elem>.
	KindList
	// KindSet is SET<Elem>.
	KindSet
	// KindMap is MAP<Key, Elem>.
	KindMap
	// KindVector is VECTOR<Elem, Dim>: a fixed number of floats (Cassandra
	// 5.0, ScyllaDB 2025.2 and later), never null inside, implicitly
	// frozen. It is not a collection (IsCollection).
	KindVector
	// KindUDT is a user-defined type: a name (Name) and named fields
	// (Fields), declared in the keyspace by CREATE TYPE. kandra maps a Go
	// struct to one (see Register).
	KindUDT
)

// String returns "invalid", "native", "list", "set", "map", "vector" or "udt", and
// CQLKind(n) for a value that is none of the constants.
func (k CQLKind) String() string {
	switch k {
	case KindInvalid:
		return "invalid"
	case KindNative:
		return "native"
	case KindList:
		return "list"
	case KindSet:
		return "set"
	case KindMap:
		return "map"
	case KindVector:
		return "vector"
	case KindUDT:
		return "udt"
	}
	return "CQLKind(" + strconv.Itoa(int(k)) + ")"
}

type typeNode struct {
	kind   CQLKind
	name   string     // upper-case native name; a UDT's name as it is given
	elem   CQLType    // list/set element, map value
	key    CQLType    // map key
	dim    int        // vector dimension
	fields []UDTField // a UDT's fields, in declaration order
	goType string     // the Go type a UDT was derived from, for messages; not compared
	size   int        // a fixed-size native's value length (FixedSize), else 0
}

// UDTField is one field of a user-defined type.
type UDTField struct {
	// Name is the field's CQL name, as the server stores it.
	Name string
	// Type is the field's CQL type.
	Type CQLType
}

func native(name string) CQLType {
	return CQLType{&typeNode{kind: KindNative, name: name, size: nativeSizes[name]}}
}

// nativeSizes is the length of every value of each fixed-size native type
// in the native protocol (and in the server's cells).
var nativeSizes = map[string]int{
	"BOOLEAN": 1, "TINYINT": 1, "SMALLINT": 2, "INT": 4, "FLOAT": 4, "DATE": 4,
	"BIGINT": 8, "COUNTER": 8, "DOUBLE": 8, "TIMESTAMP": 8, "TIME": 8,
	"UUID": 16, "TIMEUUID": 16,
}

// The native CQL types a field can be given with AsType. COUNTER is not
// among them: counters come from the Counter binder, which checks the Go
// type.
//
// CQLVarchar and CQLText are distinct values, as kandra renders what it is
// given, but servers treat VARCHAR as an alias of TEXT and report such a
// column's type as text.
var (
	CQLAscii     = native("ASCII")
	CQLBigint    = native("BIGINT")
	CQLBlob      = native("BLOB")
	CQLBoolean   = native("BOOLEAN")
	CQLDate      = native("DATE")
	CQLDecimal   = native("DECIMAL")
	CQLDouble    = native("DOUBLE")
	CQLDuration  = native("DURATION")
	CQLFloat     = native("FLOAT")
	CQLInet      = native("INET")
	CQLInt       = native("INT")
	CQLSmallint  = native("SMALLINT")
	CQLText      = native("TEXT")
	CQLTime      = native("TIME")
	CQLTimestamp = native("TIMESTAMP")
	CQLTimeUUID  = native("TIMEUUID")
	CQLTinyint   = native("TINYINT")
	CQLUUID      = native("UUID")
	CQLVarchar   = native("VARCHAR")
	CQLVarint    = native("VARINT")

	cqlCounter = native("COUNTER")
)

// ListOf is LIST<elem>.
func ListOf(elem CQLType) CQLType { return CQLType{&typeNode{kind: KindList, elem: elem}} }

// SetOf is SET<elem>.
func SetOf(elem CQLType) CQLType { return CQLType{&typeNode{kind: KindSet, elem: elem}} }

// MapOf is MAP<key, value>.
func MapOf(key, value CQLType) CQLType {
	return CQLType{&typeNode{kind: KindMap, key: key, elem: value}}
}

// VectorOf is VECTOR<elem, dim>. kandra maps a [N]float32 to
// VectorOf(CQLFloat, N), and takes no other element type: a vector of
// anything else is refused at registration, as is a dimension below 1.
func VectorOf(elem CQLType, dim int) CQLType {
	return CQLType{&typeNode{kind: KindVector, elem: elem, dim: dim}}
}

// UDTOf is the user-defined type name with fields, in the order CREATE
// TYPE declares them. kandra maps a Go struct type to one, named by
// SnakeCase of the type's name (see Register); UDTOf is for AsType and
// for reading a live schema. A UDTOf with no fields is a reference to the
// type by name, as ParseCQLType reads a column's type from
// system_schema.columns, where the fields are not written.
func UDTOf(name string, fields ...UDTField) CQLType {
	return CQLType{&typeNode{kind: KindUDT, name: name, fields: slices.Clone(fields)}}
}

// udtOf is UDTOf for a type derived from the Go type goType.
func udtOf(name, goType string, fields []UDTField) CQLType {
	return CQLType{&typeNode{kind: KindUDT, name: name, fields: fields, goType: goType}}
}

// Fields returns a copy of a user-defined type's fields, in declaration
// order, and nil for any other kind.
func (t CQLType) Fields() []UDTField {
	if t.n == nil {
		return nil
	}
	return slices.Clone(t.n.fields)
}

// GoType is the Go type a user-defined type was derived from at
// registration ("shop.Address"), and "" for a type built with UDTOf or
// read with ParseCQLType, and for any other kind.
func (t CQLType) GoType() string {
	if t.n == nil {
		return ""
	}
	return t.n.goType
}

// IsZero reports whether t is the invalid zero CQLType.
func (t CQLType) IsZero() bool { return t.n == nil }

// Kind reports whether t is a native, a list, a set, a map, a vector or a
// user-defined type, and
// KindInvalid for the zero CQLType.
func (t CQLType) Kind() CQLKind {
	if t.n == nil {
		return KindInvalid
	}
	return t.n.kind
}

// Elem returns the element type of a list, set or vector, or the value
// type of a map. It returns the zero CQLType for a native or the zero CQLType, so
// that a walk needs no separate kind check to stop.
func (t CQLType) Elem() CQLType {
	if t.n == nil {
		return CQLType{}
	}
	return t.n.elem
}

// Dim returns a vector's dimension, and 0 for any other kind.
func (t CQLType) Dim() int {
	if t.n == nil {
		return 0
	}
	return t.n.dim
}

// Key returns the key type of a map, and the zero CQLType for any other
// kind.
func (t CQLType) Key() CQLType {
	if t.n == nil {
		return CQLType{}
	}
	return t.n.key
}

// FixedSize returns the length in bytes of every non-null value of a
// fixed-size native type (BOOLEAN and TINYINT 1, SMALLINT 2, INT, FLOAT and
// DATE 4, BIGINT, COUNTER, DOUBLE, TIMESTAMP and TIME 8, UUID and TIMEUUID
// 16), and 0 for every other type: the natives whose values vary in
// length, and collections, vectors, tuples and user-defined types. It is
// known without encoding a value, as when a value's size is estimated.
func (t CQLType) FixedSize() int {
	if t.n == nil {
		return 0
	}
	return t.n.size
}

// Name returns the upper-case name of a native type, such as "TEXT", the
// name of a user-defined type as it was given ("address"), and "" for a
// collection, a vector or the zero CQLType.
func (t CQLType) Name() string {
	if t.n == nil {
		return ""
	}
	return t.n.name
}

// Equal reports whether t and u are the same type tree: the same kinds in
// the same places, natives of the same name, and user-defined types of the
// same name with the same fields in the same order (GoType is not
// compared). Two zero CQLTypes are equal. VARCHAR and TEXT are not (see
// CQLVarchar).
func (t CQLType) Equal(u CQLType) bool {
	if t.n == u.n {
		return true
	}
	if t.n == nil || u.n == nil || t.n.kind != u.n.kind || t.n.name != u.n.name || t.n.dim != u.n.dim || len(t.n.fields) != len(u.n.fields) {
		return false
	}
	for i, f := range t.n.fields {
		if f.Name != u.n.fields[i].Name || !f.Type.Equal(u.n.fields[i].Type) {
			return false
		}
	}
	return t.n.key.Equal(u.n.key) && t.n.elem.Equal(u.n.elem)
}

// SameName reports whether t and u are the same type by name: Equal for
// every kind but a user-defined type, which matches another of its name
// whatever their fields (a column's type in system_schema.columns names a
// UDT without its fields).
func (t CQLType) SameName(u CQLType) bool {
	if t.n == nil || u.n == nil || t.n.kind != u.n.kind {
		return t.n == u.n
	}
	if t.n.kind == KindUDT {
		return t.n.name == u.n.name
	}
	if t.n.name != u.n.name || t.n.dim != u.n.dim {
		return false
	}
	return t.n.key.SameName(u.n.key) && t.n.elem.SameName(u.n.elem)
}

// String renders t as it is declared for a regular column: collections
// and user-defined types nested in collections are frozen, the outer one
// is not. A user-defined type renders as its name.
func (t CQLType) String() string { return t.render(false) }

// Frozen renders t as it is declared in a primary-key position, where a
// collection or a user-defined type must be frozen.
func (t CQLType) Frozen() string { return t.render(true) }

func (t CQLType) render(frozen bool) string {
	var b strings.Builder
	t.write(&b, frozen)
	return b.String()
}

func (t CQLType) write(b *strings.Builder, frozen bool) {
	if t.n == nil {
		b.WriteString("<invalid>")
		return
	}
	switch t.n.kind {
	case KindNative:
		b.WriteString(t.n.name)
		return
	case KindVector: // implicitly frozen: servers take it as it is anywhere
		b.WriteString("VECTOR<")
		t.n.elem.write(b, true)
		b.WriteString(", ")
		b.WriteString(strconv.Itoa(t.n.dim))
		b.WriteByte('>')
		return
	case KindUDT:
		if frozen {
			b.WriteString("FROZEN<")
		}
		b.WriteString(QuoteTypeName(t.n.name))
		if frozen {
			b.WriteByte('>')
		}
		return
	}
	if frozen {
		b.WriteString("FROZEN<")
	}
	switch t.n.kind {
	case KindList:
		b.WriteString("LIST<")
		t.n.elem.write(b, true)
	case KindSet:
		b.WriteString("SET<")
		t.n.elem.write(b, true)
	case KindMap:
		b.WriteString("MAP<")
		t.n.key.write(b, true)
		b.WriteString(", ")
		t.n.elem.write(b, true)
	}
	b.WriteByte('>')
	if frozen {
		b.WriteByte('>')
	}
}

// IsCollection reports whether t is a list, set or map. A vector is not:
// it is one frozen value, never frozen by kandra or indexed by parts.
func (t CQLType) IsCollection() bool {
	return t.n != nil && (t.n.kind == KindList || t.n.kind == KindSet || t.n.kind == KindMap)
}

func (t CQLType) is(n CQLType) bool {
	return t.n != nil && t.n.kind == KindNative && t.n.name == n.n.name
}

// contains reports whether t is or contains the native type n.
func (t CQLType) contains(n CQLType) bool {
	if t.n == nil {
		return false
	}
	switch t.n.kind {
	case KindNative:
		return t.is(n)
	case KindMap:
		return t.n.key.contains(n) || t.n.elem.contains(n)
	case KindUDT:
		for _, f := range t.n.fields {
			if f.Type.contains(n) {
				return true
			}
		}
		return false
	default:
		return t.n.elem.contains(n)
	}
}
