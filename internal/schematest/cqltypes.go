package schematest

import (
	"reflect"

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
)

// CQL is an expected CQL type: a native type or a collection of CQL types.
type CQL struct {
	Kind CQLKind
	Name string // upper-case native name
	Elem *CQL   // list/set element, map value
	Key  *CQL   // map key
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
	}
	return c.Elem.Contains(name)
}

// IsCollection reports a list, set or map.
func (c *CQL) IsCollection() bool { return c.Kind != Native }

// rejected reports a type servers reject anywhere: a duration as a set
// element or map key (at any depth), a counter inside a collection.
func (c *CQL) rejected() bool {
	switch c.Kind {
	case Native:
		return false
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
