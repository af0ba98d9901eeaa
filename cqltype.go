package kandra

import (
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"strings"
	"time"

	"github.com/google/uuid"
)

// CQLType is a CQL column type: a native type, or a list, set or map of
// CQL types. Values are immutable; build them from the CQL* natives and
// ListOf, SetOf and MapOf. Freezing is not part of the value: kandra writes
// FROZEN<...> where a server requires it (a collection nested in another, or
// in any primary-key position) and nowhere else. The zero CQLType is
// invalid.
type CQLType struct{ n *typeNode }

type typeKind uint8

const (
	kindNative typeKind = iota + 1
	kindList
	kindSet
	kindMap
)

type typeNode struct {
	kind typeKind
	name string  // upper-case native name
	elem CQLType // list/set element, map value
	key  CQLType // map key
}

func native(name string) CQLType { return CQLType{&typeNode{kind: kindNative, name: name}} }

// The native CQL types a field can be given with AsType. COUNTER is not
// among them: counters come from the Counter binder, which checks the Go
// type.
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
func ListOf(elem CQLType) CQLType { return CQLType{&typeNode{kind: kindList, elem: elem}} }

// SetOf is SET<elem>.
func SetOf(elem CQLType) CQLType { return CQLType{&typeNode{kind: kindSet, elem: elem}} }

// MapOf is MAP<key, value>.
func MapOf(key, value CQLType) CQLType {
	return CQLType{&typeNode{kind: kindMap, key: key, elem: value}}
}

// IsZero reports whether t is the invalid zero CQLType.
func (t CQLType) IsZero() bool { return t.n == nil }

// String renders t as it is declared for a regular column: collections
// nested in collections are frozen, the outer one is not.
func (t CQLType) String() string { return t.render(false) }

// Frozen renders t as it is declared in a primary-key position, where a
// collection must be frozen.
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
	if t.n.kind == kindNative {
		b.WriteString(t.n.name)
		return
	}
	if frozen {
		b.WriteString("FROZEN<")
	}
	switch t.n.kind {
	case kindList:
		b.WriteString("LIST<")
		t.n.elem.write(b, true)
	case kindSet:
		b.WriteString("SET<")
		t.n.elem.write(b, true)
	case kindMap:
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

// IsCollection reports whether t is a list, set or map.
func (t CQLType) IsCollection() bool { return t.n != nil && t.n.kind != kindNative }

func (t CQLType) is(n CQLType) bool {
	return t.n != nil && t.n.kind == kindNative && t.n.name == n.n.name
}

// contains reports whether t is or contains the native type n.
func (t CQLType) contains(n CQLType) bool {
	if t.n == nil {
		return false
	}
	switch t.n.kind {
	case kindNative:
		return t.is(n)
	case kindMap:
		return t.n.key.contains(n) || t.n.elem.contains(n)
	default:
		return t.n.elem.contains(n)
	}
}

// collectionProblem says why a server rejects t, or "" when it accepts it:
// durations cannot be set elements or map keys (they have no total order),
// and counters cannot live inside collections.
func (t CQLType) collectionProblem() string {
	if t.n == nil || t.n.kind == kindNative {
		return ""
	}
	switch t.n.kind {
	case kindSet:
		if t.n.elem.contains(CQLDuration) {
			return "a duration cannot be a set element (servers reject it: durations have no order)"
		}
	case kindMap:
		if t.n.key.contains(CQLDuration) {
			return "a duration cannot be a map key (servers reject it: durations have no order)"
		}
		if p := t.n.key.collectionProblem(); p != "" {
			return p
		}
	}
	if t.n.elem.contains(cqlCounter) || (t.n.kind == kindMap && t.n.key.contains(cqlCounter)) {
		return "a counter cannot be inside a collection"
	}
	return t.n.elem.collectionProblem()
}

// CQLTyper is implemented by a Go type that names its own CQL type, for
// example a decimal type that maps to DECIMAL. kandra calls CQLType on the
// zero value once, at registration. The type must also be one the driver
// can marshal to that CQL type (for gocql, implement gocql.Marshaler and
// gocql.Unmarshaler).
type CQLTyper interface {
	CQLType() CQLType
}

var (
	typeTime     = reflect.TypeFor[time.Time]()
	typeDuration = reflect.TypeFor[time.Duration]()
	typeUUID     = reflect.TypeFor[uuid.UUID]()
	typeNetIP    = reflect.TypeFor[net.IP]()
	typeNetipAdd = reflect.TypeFor[netip.Addr]()
	typeBigInt   = reflect.TypeFor[*big.Int]()
	typeCQLTyper = reflect.TypeFor[CQLTyper]()
)

// goToCQL maps a Go type to its CQL type, following the table in the
// README. On failure it returns a zero CQLType and a sentence that names
// the Go type and says why.
func goToCQL(t reflect.Type) (CQLType, string) {
	ct, problem := mapGoType(t, false, nil)
	if problem != "" {
		return CQLType{}, "type " + t.String() + ": " + problem
	}
	if p := ct.collectionProblem(); p != "" {
		return CQLType{}, "type " + t.String() + " (" + ct.String() + "): " + p
	}
	return ct, ""
}

// overrideProblem says why a CQL type given with AsType or a CQLTyper
// cannot be used, or "" when it can.
func overrideProblem(t CQLType) string {
	if !t.valid() {
		return "the CQL type " + t.String() + " is built from the zero CQLType"
	}
	return t.collectionProblem()
}

// valid reports whether t and every type inside it are non-zero.
func (t CQLType) valid() bool {
	switch {
	case t.n == nil:
		return false
	case t.n.kind == kindNative:
		return true
	case t.n.kind == kindMap:
		return t.n.key.valid() && t.n.elem.valid()
	}
	return t.n.elem.valid()
}

// userType returns the CQL type a CQLTyper names, with a value or a
// pointer receiver.
func userType(t reflect.Type) (CQLType, bool) {
	if t.Kind() == reflect.Pointer || t.Kind() == reflect.Interface {
		return CQLType{}, false
	}
	if t.Implements(typeCQLTyper) {
		return reflect.Zero(t).Interface().(CQLTyper).CQLType(), true
	}
	if reflect.PointerTo(t).Implements(typeCQLTyper) {
		return reflect.New(t).Interface().(CQLTyper).CQLType(), true
	}
	return CQLType{}, false
}

// mapGoType does the mapping. nested is true for collection elements, where
// pointers are not accepted; path holds the collection types being mapped,
// so that a recursive type (type L []L) is an error, not a stack overflow.
func mapGoType(t reflect.Type, nested bool, path []reflect.Type) (CQLType, string) {
	// These come first: their packages cannot implement CQLTyper (a method
	// lives in its type's package), and the method-set walk is costly.
	switch t {
	case typeTime:
		return CQLTimestamp, ""
	case typeDuration:
		return CQLDuration, ""
	case typeUUID:
		return CQLUUID, ""
	case typeNetIP, typeNetipAdd:
		return CQLInet, ""
	case typeBigInt:
		return CQLVarint, ""
	}
	if ct, ok := userType(t); ok {
		if p := overrideProblem(ct); p != "" {
			return CQLType{}, t.String() + ".CQLType(): " + p
		}
		return ct, ""
	}
	for _, p := range path {
		if p == t {
			return CQLType{}, "the recursive type " + t.String() + " has no CQL equivalent"
		}
	}
	switch t.Kind() {
	case reflect.String:
		return CQLText, ""
	case reflect.Bool:
		return CQLBoolean, ""
	case reflect.Int8:
		return CQLTinyint, ""
	case reflect.Int16:
		return CQLSmallint, ""
	case reflect.Int32:
		return CQLInt, ""
	case reflect.Int, reflect.Int64:
		return CQLBigint, ""
	case reflect.Float32:
		return CQLFloat, ""
	case reflect.Float64:
		return CQLDouble, ""
	case reflect.Pointer:
		if nested {
			return CQLType{}, "a pointer inside a collection (" + t.String() + ") has no CQL equivalent: collections cannot hold nulls"
		}
		if t.Elem().Kind() == reflect.Pointer {
			return CQLType{}, "a pointer to a pointer has no CQL equivalent"
		}
		return mapGoType(t.Elem(), false, path)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return CQLBlob, ""
		}
		e, p := mapGoType(t.Elem(), true, append(path, t))
		if p != "" {
			return CQLType{}, p
		}
		return ListOf(e), ""
	case reflect.Map:
		k, p := mapGoType(t.Key(), true, append(path, t))
		if p != "" {
			return CQLType{}, p
		}
		if v := t.Elem(); v.Kind() == reflect.Struct && v.NumField() == 0 {
			return SetOf(k), ""
		}
		v, p := mapGoType(t.Elem(), true, append(path, t))
		if p != "" {
			return CQLType{}, p
		}
		return MapOf(k, v), ""
	}
	if t.String() != t.Kind().String() {
		return CQLType{}, "its kind, " + t.Kind().String() + ", has no CQL equivalent"
	}
	return CQLType{}, "it has no CQL equivalent"
}
