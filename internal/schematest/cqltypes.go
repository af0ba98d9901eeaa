package schematest

import (
	"reflect"
	"slices"
	"strconv"

	"pgregory.net/rapid"

	"github.com/kandra-go/kandra"
)

// CQL types, written from DESIGN.md's "Go → CQL types" table.

// CQLKind is the shape of a CQL type.
type CQLKind uint8

// The shapes.
const (
	Native CQLKind = iota
	List
	Set
	Map
	Vector
	UDT
)

// CQL is an expected CQL type: a native type or a collection of CQL types.
type CQL struct {
	Kind CQLKind
	Name string // upper-case native name
	Elem *CQL   // list/set element, map value
	Key  *CQL   // map key
	Dim  int    // vector dimension
	// Fields are a user-defined type's fields (Name is its name).
	Fields []UDTField
}

// UDTField is a field of an expected user-defined type.
type UDTField struct {
	Name string
	Type *CQL
}

func nat(name string) *CQL { return &CQL{Kind: Native, Name: name} }

// Render writes the type as DESIGN.md says: upper case, collections inside
// collections frozen, and the whole type frozen when frozen is true (a
// collection in any primary-key position, including a lookup table's key).
func (c *CQL) Render(frozen bool) string {
	var s string
	switch c.Kind {
	case Native:
		return c.Name
	case Vector: // implicitly frozen: never written FROZEN
		return "VECTOR<" + c.Elem.Render(true) + ", " + strconv.Itoa(c.Dim) + ">"
	case UDT:
		s = c.Name
		if frozen {
			return "FROZEN<" + s + ">"
		}
		return s
	case List:
		s = "LIST<" + c.Elem.Render(true) + ">"
	case Set:
		s = "SET<" + c.Elem.Render(true) + ">"
	case Map:
		s = "MAP<" + c.Key.Render(true) + ", " + c.Elem.Render(true) + ">"
	}
	if frozen {
		return "FROZEN<" + s + ">"
	}
	return s
}

// Contains reports whether c is or contains the native type name.
func (c *CQL) Contains(name string) bool {
	switch c.Kind {
	case Native:
		return c.Name == name
	case Map:
		return c.Key.Contains(name) || c.Elem.Contains(name)
	case UDT:
		return slices.ContainsFunc(c.Fields, func(f UDTField) bool { return f.Type.Contains(name) })
	}
	return c.Elem.Contains(name)
}

// udts appends the names of the user-defined types c is or holds to out,
// each after the types it holds.
func (c *CQL) udts(out []string) []string {
	if c == nil {
		return out
	}
	for _, f := range c.Fields {
		out = f.Type.udts(out)
	}
	out = c.Key.udts(out)
	out = c.Elem.udts(out)
	if c.Kind == UDT {
		out = append(out, c.Name)
	}
	return out
}

// IsCollection reports a list, set or map (not a vector).
func (c *CQL) IsCollection() bool { return c.Kind != Native && c.Kind != Vector && c.Kind != UDT }

// rejected reports a type servers reject anywhere: a duration as a set
// element or map key (at any depth), a counter inside a collection.
func (c *CQL) rejected() bool {
	switch c.Kind {
	case Native:
		return false
	case UDT:
		return slices.ContainsFunc(c.Fields, func(f UDTField) bool { return f.Type.rejected() })
	case Set:
		if c.Elem.Contains("DURATION") {
			return true
		}
	case Map:
		if c.Key.Contains("DURATION") || c.Key.Contains("COUNTER") || c.Key.rejected() {
			return true
		}
	}
	return c.Elem.Contains("COUNTER") || c.Elem.rejected()
}

// nativeOverrides is the table of allowed AsType pairs (rules.go,
// kandra.NativeOverrides' documentation): for each native type a Go type
// maps to, the types AsType may give it instead. A type with no row takes
// only itself.
var nativeOverrides = map[string][]string{
	"TEXT":      {"TEXT", "VARCHAR", "ASCII"},
	"TINYINT":   {"TINYINT", "SMALLINT", "INT", "BIGINT", "VARINT"},
	"SMALLINT":  {"SMALLINT", "INT", "BIGINT", "VARINT"},
	"INT":       {"INT", "BIGINT", "VARINT"},
	"BIGINT":    {"BIGINT", "VARINT"},
	"TIMESTAMP": {"TIMESTAMP", "DATE"},
	"DURATION":  {"DURATION", "TIME"},
	"UUID":      {"UUID", "TIMEUUID", "BLOB"},
}

func overridesOf(native string) []string {
	if o, ok := nativeOverrides[native]; ok {
		return o
	}
	return []string{native}
}

// overrideAllowed reports whether AsType(as) may be given to a column whose
// type the mapping table derives as derived: the same shape, and every
// native part allowed for the derived one. A Go type with no derived type
// (nil, or one servers reject) takes any override.
func overrideAllowed(derived, as *CQL) bool {
	if derived == nil || derived.rejected() {
		return true
	}
	if derived.Kind == UDT && (as == nil || as.Kind != UDT) {
		return true // a struct with its own marshalling, declared by the override
	}
	return pairAllowed(derived, as)
}

func pairAllowed(derived, as *CQL) bool {
	if as == nil || derived.Kind != as.Kind {
		return false
	}
	switch derived.Kind {
	case Native:
		return slices.Contains(overridesOf(derived.Name), as.Name)
	case Map:
		return pairAllowed(derived.Key, as.Key) && pairAllowed(derived.Elem, as.Elem)
	case UDT:
		return same(derived, as)
	}
	return pairAllowed(derived.Elem, as.Elem)
}

// drawOverride draws an override allowed for the derived type, often
// another type than it.
func drawOverride(t *rapid.T, derived *CQL, label string) *CQL {
	switch derived.Kind {
	case UDT, Vector:
		return derived
	case Native:
		return nat(rapid.SampledFrom(overridesOf(derived.Name)).Draw(t, label))
	case Map:
		return &CQL{Kind: Map, Key: drawOverride(t, derived.Key, label+" key"), Elem: drawOverride(t, derived.Elem, label+" value")}
	}
	return &CQL{Kind: derived.Kind, Elem: drawOverride(t, derived.Elem, label+" elem")}
}

// drawRefused draws an override that is not allowed for derived (which is
// not nil), or nil when it found none.
func drawRefused(t *rapid.T, derived *CQL, label string) *CQL {
	if derived.Kind == UDT {
		return nil // only another user-defined type, which the generator has not
	}
	var cands []*CQL
	for _, n := range nativeNames {
		if c := nat(n); !pairAllowed(derived, c) {
			cands = append(cands, c)
		}
	}
	if derived.Kind != Native {
		// Another shape, or the same shape with a refused part.
		other := &CQL{Kind: List, Elem: derived.Elem}
		if derived.Kind == List {
			other.Kind = Set
		}
		if derived.Kind == Map {
			other.Elem = derived.Key
		}
		cands = append(cands, other)
		if inner := drawRefused(t, derived.Elem, label+" elem"); inner != nil {
			c := *derived
			c.Elem = inner
			cands = append(cands, &c)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	return rapid.SampledFrom(cands).Draw(t, label)
}

// nativeNames are the native CQL types AsType may name, in a fixed order.
var nativeNames = []string{"ASCII", "BIGINT", "BLOB", "BOOLEAN", "DATE", "DECIMAL", "DOUBLE", "DURATION", "FLOAT", "INET",
	"INT", "SMALLINT", "TEXT", "TIME", "TIMESTAMP", "TIMEUUID", "TINYINT", "UUID", "VARCHAR", "VARINT"}

// same reports whether two AsType arguments are the same type; nil (the
// zero CQLType) is only the same as nil.
func same(a, b *CQL) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Render(false) == b.Render(false)
}

var kandraNatives = map[string]kandra.CQLType{
	"ASCII": kandra.CQLAscii, "BIGINT": kandra.CQLBigint, "BLOB": kandra.CQLBlob, "BOOLEAN": kandra.CQLBoolean,
	"DATE": kandra.CQLDate, "DECIMAL": kandra.CQLDecimal, "DOUBLE": kandra.CQLDouble, "DURATION": kandra.CQLDuration,
	"FLOAT": kandra.CQLFloat, "INET": kandra.CQLInet, "INT": kandra.CQLInt, "SMALLINT": kandra.CQLSmallint,
	"TEXT": kandra.CQLText, "TIME": kandra.CQLTime, "TIMESTAMP": kandra.CQLTimestamp, "TIMEUUID": kandra.CQLTimeUUID,
	"TINYINT": kandra.CQLTinyint, "UUID": kandra.CQLUUID, "VARCHAR": kandra.CQLVarchar, "VARINT": kandra.CQLVarint,
}

// kandraType converts c to the kandra.CQLType given to AsType; nil is the
// zero CQLType.
func kandraType(c *CQL) kandra.CQLType {
	if c == nil {
		return kandra.CQLType{}
	}
	switch c.Kind {
	case List:
		return kandra.ListOf(kandraType(c.Elem))
	case Set:
		return kandra.SetOf(kandraType(c.Elem))
	case Map:
		return kandra.MapOf(kandraType(c.Key), kandraType(c.Elem))
	case Vector:
		return kandra.VectorOf(kandraType(c.Elem), c.Dim)
	case UDT:
		fields := make([]kandra.UDTField, len(c.Fields))
		for i, f := range c.Fields {
			fields[i] = kandra.UDTField{Name: f.Name, Type: kandraType(f.Type)}
		}
		return kandra.UDTOf(c.Name, fields...)
	}
	return kandraNatives[c.Name]
}

// CQLOf is the CQL type DESIGN.md's table gives a Go type, or nil when the
// table has none (unsigned integers, arrays, structs, channels, ...).
func CQLOf(t reflect.Type) *CQL { return cqlOf(t, false) }

func cqlOf(t reflect.Type, nested bool) *CQL {
	switch t {
	case tTime:
		return nat("TIMESTAMP")
	case tDuration:
		return nat("DURATION")
	case tUUID:
		return nat("UUID")
	case tNetIP, tAddr:
		return nat("INET")
	case tBigInt:
		return nat("VARINT")
	}
	// Named types of the special types map like them: every [16]byte
	// array (a UUID's underlying type), a struct type with time.Time's or
	// netip.Addr's underlying type.
	switch {
	case t.Kind() == reflect.Array && t.Len() == 16 && t.Elem().Kind() == reflect.Uint8:
		return nat("UUID")
	case t.Kind() == reflect.Struct && t.ConvertibleTo(tTime):
		return nat("TIMESTAMP")
	case t.Kind() == reflect.Struct && t.ConvertibleTo(tAddr):
		return nat("INET")
	case t == tGeoPoint:
		// The generator's one struct: a user-defined type (udt.go).
		return &CQL{Kind: UDT, Name: "geo_point", Fields: []UDTField{{"lat", nat("DOUBLE")}, {"lon", nat("DOUBLE")}}}
	case t.Kind() == reflect.Array && t.Elem().Kind() == reflect.Float32:
		// [N]float32 is VECTOR<FLOAT, N>, a column's own value only.
		if nested || t.Len() == 0 {
			return nil
		}
		return &CQL{Kind: Vector, Elem: nat("FLOAT"), Dim: t.Len()}
	}
	switch t.Kind() {
	case reflect.String:
		return nat("TEXT")
	case reflect.Bool:
		return nat("BOOLEAN")
	case reflect.Int8:
		return nat("TINYINT")
	case reflect.Int16:
		return nat("SMALLINT")
	case reflect.Int32:
		return nat("INT")
	case reflect.Int, reflect.Int64:
		return nat("BIGINT")
	case reflect.Float32:
		return nat("FLOAT")
	case reflect.Float64:
		return nat("DOUBLE")
	case reflect.Pointer:
		// *V is V, nullable. The generators never put a pointer (other
		// than *big.Int) inside a collection, nor a pointer to a pointer.
		if nested || t.Elem().Kind() == reflect.Pointer {
			return nil
		}
		return cqlOf(t.Elem(), false)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nat("BLOB")
		}
		if e := cqlOf(t.Elem(), true); e != nil {
			return &CQL{Kind: List, Elem: e}
		}
	case reflect.Map:
		k := cqlOf(t.Key(), true)
		if k == nil {
			return nil
		}
		if t.Elem() == tEmpty {
			return &CQL{Kind: Set, Elem: k}
		}
		if v := cqlOf(t.Elem(), true); v != nil {
			return &CQL{Kind: Map, Key: k, Elem: v}
		}
	}
	return nil
}
