package kandra

// The Go → CQL type mapping of README's table, and the checks a CQL type
// given with AsType or a CQLTyper must pass. They live apart from the
// CQLType value because only registration needs them.

import (
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// collectionProblem says why a server rejects t, or "" when it accepts it:
// durations cannot be set elements or map keys (they have no total order),
// and counters cannot live inside collections.
func (t CQLType) collectionProblem() string {
	if t.n == nil || t.n.kind == KindNative {
		return ""
	}
	if t.n.kind == KindVector {
		return t.vectorProblem()
	}
	if t.n.kind == KindUDT {
		return t.udtProblem()
	}
	if t.n.elem.holdsVector() || t.n.kind == KindMap && t.n.key.holdsVector() {
		return "a vector cannot be inside a collection in kandra (it maps [N]float32 as a column's own value, where an ANN index can read it); store the vectors in rows of their own"
	}
	switch t.n.kind {
	case KindSet:
		if t.n.elem.contains(CQLDuration) {
			return "a duration cannot be a set element (servers reject it: durations have no order)"
		}
	case KindMap:
		if t.n.key.contains(CQLDuration) {
			return "a duration cannot be a map key (servers reject it: durations have no order)"
		}
		if p := t.n.key.collectionProblem(); p != "" {
			return p
		}
	}
	if t.n.elem.contains(cqlCounter) || (t.n.kind == KindMap && t.n.key.contains(cqlCounter)) {
		return "a counter cannot be inside a collection"
	}
	return t.n.elem.collectionProblem()
}

// MaxVectorDim is the largest vector dimension kandra accepts on a
// ScyllaDB 2026 target (cql3_type::MAX_VECTOR_DIMENSION, from 2026.2);
// Cassandra 5.0 has no limit unless its vector_dimensions_fail_threshold
// guardrail sets one.
const MaxVectorDim = 16000

// vectorProblem says why kandra refuses the vector type t, or "".
func (t CQLType) vectorProblem() string {
	switch {
	case !t.n.elem.Equal(CQLFloat):
		return "kandra maps a vector only as VECTOR<FLOAT, N>, from a [N]float32 (the type ANN indexes read), not " + t.brief()
	case t.n.dim < 1:
		return "a vector's dimension must be above 0 (\"vectors may only have positive dimensions; given " + strconv.Itoa(t.n.dim) + "\")"
	}
	return ""
}

// holdsVector reports whether t is or holds a vector.
func (t CQLType) holdsVector() bool {
	if t.n == nil || t.n.kind == KindNative {
		return false
	}
	for _, f := range t.n.fields {
		if f.Type.holdsVector() {
			return true
		}
	}
	return t.n.kind == KindVector || t.n.elem.holdsVector() || t.n.key.holdsVector()
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
	typeBool     = reflect.TypeFor[bool]()
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
	if p := t.sizeProblem(); p != "" {
		return p
	}
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
	case t.n.kind == KindNative:
		return true
	case t.n.kind == KindMap:
		return t.n.key.valid() && t.n.elem.valid()
	case t.n.kind == KindUDT:
		for _, f := range t.n.fields {
			if !f.Type.valid() {
				return false
			}
		}
		return true
	}
	return t.n.elem.valid() // a list, set or vector
}

// userType returns the CQL type a CQLTyper names, with a value or a
// pointer receiver.
// A panic in the method is reported as the field's problem rather than
// unwinding through Register: the method is the user's code, called on a
// zero value it may not expect.
func userType(t reflect.Type) (ct CQLType, problem string, ok bool) {
	if t.Kind() == reflect.Pointer || t.Kind() == reflect.Interface {
		return CQLType{}, "", false
	}
	var v CQLTyper
	switch {
	case t.Implements(typeCQLTyper):
		v = reflect.Zero(t).Interface().(CQLTyper)
	case reflect.PointerTo(t).Implements(typeCQLTyper):
		v = reflect.New(t).Interface().(CQLTyper)
	default:
		return CQLType{}, "", false
	}
	defer func() {
		if r := recover(); r != nil {
			ct, ok, problem = CQLType{}, true, fmt.Sprintf("%s.CQLType() panicked on the zero value (%v); it must return the type without reading the value", t, r)
		}
	}()
	return v.CQLType(), "", true
}

// MaxTypeDepth is the deepest nesting of collections kandra accepts in a
// column type (list<list<...>> counts one level per collection), and
// MaxTypeNodes the most types one column type may hold. Real schemas stay
// far below both; past a few hundred levels servers fail with a stack
// overflow, and a type built by sharing (MapOf(t, t) repeated) can be
// exponentially large once written out.
const (
	MaxTypeDepth = 16
	MaxTypeNodes = 256
)

// sizeProblem says why t is too deep or too large, or "". It stops as soon
// as a limit is passed, so it is cheap on any input, shared or not.
func (t CQLType) sizeProblem() string {
	nodes := 0
	var walk func(t CQLType, depth int) string
	walk = func(t CQLType, depth int) string {
		if t.n == nil {
			return ""
		}
		if nodes++; nodes > MaxTypeNodes {
			return "the CQL type holds more than " + strconv.Itoa(MaxTypeNodes) + " types (MaxTypeNodes)"
		}
		if t.n.kind == KindNative {
			return ""
		}
		if depth+1 > MaxTypeDepth {
			return "the CQL type nests collections more than " + strconv.Itoa(MaxTypeDepth) + " levels deep (MaxTypeDepth); servers overflow their stack on deep types"
		}
		for _, f := range t.n.fields {
			if p := walk(f.Type, depth+1); p != "" {
				return p
			}
		}
		if p := walk(t.n.key, depth+1); p != "" {
			return p
		}
		return walk(t.n.elem, depth+1)
	}
	return walk(t, 0)
}

// mapGoType does the mapping. nested is true for collection elements, where
// pointers are not accepted; path holds the collection types being mapped,
// so that a recursive type (type L []L) is an error, not a stack overflow.
func mapGoType(t reflect.Type, nested bool, path []reflect.Type) (CQLType, string) {
	return mapGoTypeAs(t, nested, path, false)
}

// isByteArray reports an array type of bytes ([32]byte, type Hash
// [32]byte, uuid.UUID): one kandra stores as a BLOB of exactly its length
// when asked (AsType(CQLBlob)). An array of a named byte type ([4]B) is
// not one: it converts to no []byte.
func isByteArray(t reflect.Type) bool {
	return t.Kind() == reflect.Array && t.Elem() == typeByte
}

var typeByte = reflect.TypeFor[byte]()

// byteArrayProblem is why kandra derives no CQL type for the byte array t
// on its own (any but a [16]byte, which is a UUID).
func byteArrayProblem(t reflect.Type) string {
	if t.Len() == 0 {
		return "a [0]byte holds no bytes (its BLOB would always be empty); use a []byte, or give the array a length"
	}
	return "kandra stores a byte array other than [16]byte only when told to: bind the field with kandra.AsType(kandra.CQLBlob) to store its " + strconv.Itoa(t.Len()) + " bytes as a BLOB, read back only at that length (in a collection, give the collection's type with kandra.CQLBlob for the array, as kandra.ListOf(kandra.CQLBlob))"
}

// mapGoTypeAs is mapGoType; with byteArrays, a byte array of any length
// but 0 and 16 maps to BLOB, as AsType may give it (overrideDerived).
func mapGoTypeAs(t reflect.Type, nested bool, path []reflect.Type, byteArrays bool) (CQLType, string) {
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
	if ct, p, ok := userType(t); ok {
		if p != "" {
			return CQLType{}, p
		}
		if p := overrideProblem(ct); p != "" {
			return CQLType{}, t.String() + ".CQLType(): " + p
		}
		return ct, ""
	}
	// Named types of the special types (type UserID uuid.UUID, type At
	// time.Time) share their underlying type, and map as they do; a
	// driver adapter converts them. A [16]byte is a UUID's underlying type,
	// so every [16]byte array maps to UUID (AsType(CQLBlob) stores it as a
	// BLOB). Any other byte array maps to nothing of itself: a fixed-size
	// id or hash is a BLOB only when AsType says so, so that a [16]byte
	// and a [32]byte field read alike (both AsType(CQLBlob)).
	switch {
	case t.Kind() == reflect.Array && t.ConvertibleTo(typeUUID):
		return CQLUUID, ""
	case isByteArray(t):
		if byteArrays && t.Len() > 0 {
			return CQLBlob, ""
		}
		return CQLType{}, byteArrayProblem(t)
	case t.Kind() == reflect.Struct && t.ConvertibleTo(typeTime):
		return CQLTimestamp, ""
	case t.Kind() == reflect.Struct && t.ConvertibleTo(typeNetipAdd):
		return CQLInet, ""
	case t.Kind() == reflect.Array && t.Elem().Kind() == reflect.Float32:
		if nested {
			return CQLType{}, "a vector (" + t.String() + ") cannot be inside a collection in kandra; store the vectors in rows of their own"
		}
		if t.Len() == 0 {
			return CQLType{}, "a vector's dimension must be above 0 (\"vectors may only have positive dimensions; given 0\"); give the array a length"
		}
		return VectorOf(CQLFloat, t.Len()), ""
	case t.Kind() == reflect.Struct && t.NumField() > 0:
		return mapStruct(t, path)
	}
	if len(path) > MaxTypeDepth {
		return CQLType{}, "collections nest more than " + strconv.Itoa(MaxTypeDepth) + " levels deep (MaxTypeDepth); servers overflow their stack on deep types"
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
		return mapGoTypeAs(t.Elem(), false, path, byteArrays)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return CQLBlob, ""
		}
		e, p := mapGoTypeAs(t.Elem(), true, append(path, t), byteArrays)
		if p != "" {
			return CQLType{}, p
		}
		return ListOf(e), ""
	case reflect.Map:
		k, p := mapGoTypeAs(t.Key(), true, append(path, t), byteArrays)
		if p != "" {
			return CQLType{}, p
		}
		if v := t.Elem(); v.Kind() == reflect.Struct && v.NumField() == 0 {
			return SetOf(k), ""
		}
		v, p := mapGoTypeAs(t.Elem(), true, append(path, t), byteArrays)
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

// brief renders t for an error message: in full, unless it is too large to
// write out (see sizeProblem).
func (t CQLType) brief() string {
	if t.sizeProblem() != "" {
		return "a type too large to print"
	}
	return t.String()
}

// nativeOverrides lists, for each CQL type kandra derives from a Go type,
// the CQL types AsType may give the column instead: the types the drivers
// (through the adapters' conversions) write that Go type to without loss.
// Every Go type kandra derives UUID for is a 16-byte array, stored as a
// BLOB of its 16 bytes when asked. A byte array of another length takes
// BLOB only (overrideDerived). A Go type kandra derives no CQL type for
// (a user decimal type, say) may take any override; the type must then
// be one the driver can marshal (for gocql, a gocql.Marshaler).
var nativeOverrides = map[string][]CQLType{
	"TEXT":      {CQLText, CQLVarchar, CQLAscii},
	"BOOLEAN":   {CQLBoolean},
	"TINYINT":   {CQLTinyint, CQLSmallint, CQLInt, CQLBigint, CQLVarint},
	"SMALLINT":  {CQLSmallint, CQLInt, CQLBigint, CQLVarint},
	"INT":       {CQLInt, CQLBigint, CQLVarint},
	"BIGINT":    {CQLBigint, CQLVarint},
	"FLOAT":     {CQLFloat},
	"DOUBLE":    {CQLDouble},
	"BLOB":      {CQLBlob},
	"TIMESTAMP": {CQLTimestamp, CQLDate},
	"DURATION":  {CQLDuration, CQLTime},
	"UUID":      {CQLUUID, CQLTimeUUID, CQLBlob},
	"INET":      {CQLInet},
	"VARINT":    {CQLVarint},
}

// NativeOverrides returns the CQL types AsType may give a column whose Go
// type kandra maps to the native type derived (CQLText, say), the type
// itself first: the table of allowed pairs. A collection takes an override
// of the same kind whose element (and key) types are allowed for the Go
// element types.
func NativeOverrides(derived CQLType) []CQLType {
	return slices.Clone(nativeOverrides[derived.Name()])
}

// overridePairProblem says why a column of Go type t cannot be given the
// CQL type ct with AsType, or "".
func overridePairProblem(t reflect.Type, ct CQLType) string {
	if p := emptyByteArrayProblem(t); p != "" {
		return p
	}
	derived, p := overrideDerived(t)
	if p != "" {
		return "" // no derived type: the override is the user's declaration
	}
	if _, _, ok := userType(t); ok {
		return "" // the type names its own CQL type and marshals itself
	}
	if derived.Kind() == KindUDT && ct.Kind() != KindUDT {
		return "" // a struct with its own marshalling (a decimal type, say), declared by the override
	}
	if !pairOK(t, derived, ct) {
		return "a field of type " + t.String() + " cannot be stored as " + ct.brief() + ": the driver marshals it to " + derived.String() + describeOverrides(derived) + "; change the field's Go type, or drop AsType"
	}
	return ""
}

// overrideDerived is the CQL type an override of a column of Go type t is
// checked against: goToCQL's, with a byte array of any length above 0
// (which kandra maps to nothing of itself) as a BLOB, the one type it
// may be given.
func overrideDerived(t reflect.Type) (CQLType, string) {
	ct, problem := mapGoTypeAs(t, false, nil, true)
	if problem == "" {
		problem = ct.collectionProblem()
	}
	return ct, problem
}

// emptyByteArrayProblem refuses a [0]byte, behind pointers or in a
// collection: it has no bytes to store, whatever the override.
func emptyByteArrayProblem(t reflect.Type) string {
	for depth := 0; depth <= MaxTypeDepth; depth++ {
		switch {
		case isByteArray(t) && t.Len() == 0:
			return byteArrayProblem(t)
		case t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice:
			t = t.Elem()
		case t.Kind() == reflect.Map:
			if p := emptyByteArrayProblem(t.Key()); p != "" {
				return p
			}
			t = t.Elem()
		default:
			return ""
		}
	}
	return ""
}

func describeOverrides(derived CQLType) string {
	alts := nativeOverrides[derived.Name()]
	if len(alts) < 2 {
		return " only"
	}
	names := make([]string, 0, len(alts)-1)
	for _, a := range alts[1:] {
		names = append(names, a.String())
	}
	return " or " + strings.Join(names, ", ")
}

// pairOK walks the Go type and the override together.
func pairOK(t reflect.Type, derived, ct CQLType) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if derived.Kind() != ct.Kind() {
		return false
	}
	switch derived.Kind() {
	case KindNative:
		return slices.ContainsFunc(nativeOverrides[derived.Name()], ct.Equal)
	case KindList:
		return pairOK(t.Elem(), derived.Elem(), ct.Elem())
	case KindSet:
		return pairOK(t.Key(), derived.Elem(), ct.Elem())
	case KindMap:
		return pairOK(t.Key(), derived.Key(), ct.Key()) && pairOK(t.Elem(), derived.Elem(), ct.Elem())
	case KindVector, KindUDT:
		return derived.Equal(ct)
	}
	return false
}
