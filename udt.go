package kandra

// User-defined types: how a Go struct maps to one, what servers refuse in
// one, and the CREATE TYPE statement.

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kandra-go/kandra/internal/reflectx"
)

// UDTNamer is implemented by a Go struct type that names its own
// user-defined type; without it the type is named by SnakeCase of the Go
// type's name (Address is address, GeoPoint geo_point). kandra calls
// UDTName on the zero value once, at registration.
type UDTNamer interface {
	UDTName() string
}

// UDTTag is the struct tag key that names a user-defined type's field:
// `kandra:"zip"` stores the field as zip instead of its SnakeCase name,
// and `kandra:"-"` leaves the field out of the type (its value is not
// stored).
const UDTTag = reflectx.UDTTag

var typeUDTNamer = reflect.TypeFor[UDTNamer]()

// reservedTypeNames are the names servers refuse for a user-defined type
// ("Invalid (reserved) user type name"): the native type names, and the
// names both grammars keep for types to come.
var reservedTypeNames = func() map[string]struct{} {
	m := map[string]struct{}{}
	for n := range cqlNatives {
		m[n] = struct{}{}
	}
	for _, n := range []string{"byte", "complex", "enum", "date", "interval", "macaddr", "bitstring", "smallint"} {
		m[n] = struct{}{}
	}
	return m
}()

// mapStruct maps a named struct type to a user-defined type: each
// exported field, in order, is a field of the type, named by its tag or
// SnakeCase. A field may be a pointer (a null field); collections and
// user-defined types inside are frozen, as servers require.
func mapStruct(t reflect.Type, path []reflect.Type) (CQLType, string) {
	if t.Name() == "" {
		return CQLType{}, "an anonymous struct has no name for its user-defined type; declare a named struct type"
	}
	if len(path) > MaxTypeDepth {
		return CQLType{}, "types nest more than " + strconv.Itoa(MaxTypeDepth) + " levels deep (MaxTypeDepth); servers overflow their stack on deep types"
	}
	for _, p := range path {
		if p == t {
			return CQLType{}, "the recursive type " + t.String() + " has no CQL equivalent: a user-defined type cannot hold itself"
		}
	}
	name, problem := udtName(t)
	if problem != "" {
		return CQLType{}, problem
	}
	path = append(path, t)
	var fields []UDTField
	for _, i := range reflectx.StoredFields(t) {
		f := t.Field(i)
		tag, tagged := f.Tag.Lookup(UDTTag)
		switch {
		case f.Anonymous:
			return CQLType{}, "the embedded field " + t.String() + "." + f.Name + " cannot be part of a user-defined type; give it a field name, or tag it `kandra:\"-\"`"
		case !f.IsExported():
			return CQLType{}, "the unexported field " + t.String() + "." + f.Name + " would not be stored in the user-defined type " + name + "; export it, or tag it `kandra:\"-\"` to leave it out"
		case tagged && tag == "":
			return CQLType{}, "the field " + t.String() + "." + f.Name + " has an empty `kandra` tag; give it a name, or \"-\" to leave it out"
		}
		fname := SnakeCase(f.Name)
		if tagged {
			fname = tag
		}
		ft, p := mapGoType(f.Type, false, path)
		if p != "" {
			return CQLType{}, "field " + t.String() + "." + f.Name + ": " + p
		}
		fields = append(fields, UDTField{Name: fname, Type: ft})
	}
	if len(fields) == 0 {
		return CQLType{}, "the struct " + t.String() + " has no field to store: a user-defined type needs at least one"
	}
	return udtOf(name, t.String(), fields), ""
}

// udtCheck is the value check of a struct t stored as the user-defined
// type ct: each field's, the fields being nullable as a column's own
// value is. It is nil when no field has a check, or when t is not the
// struct ct was derived from (a type that marshals itself).
func udtCheck(t reflect.Type, ct CQLType) valueCheck {
	if t.Kind() == reflect.Pointer {
		return pointerCheck(t, ct, true)
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	index := reflectx.StoredFields(t)
	if len(index) != len(ct.n.fields) {
		return nil
	}
	checks := make([]valueCheck, len(index))
	any := false
	for j, i := range index {
		checks[j] = planCheck(t.Field(i).Type, ct.n.fields[j].Type, true)
		any = any || checks[j] != nil
	}
	if !any {
		return nil
	}
	return func(v reflect.Value) (reflect.Value, string) {
		for j, i := range index {
			if checks[j] == nil {
				continue
			}
			if bad, p := checks[j](v.Field(i)); p != "" {
				return bad, "field " + ct.n.fields[j].Name + ": " + p
			}
		}
		return reflect.Value{}, ""
	}
}

// allNullCheck is the value check of a column of its own of the
// user-defined type ct, not frozen, whose Go type is a pointer to a
// struct: a non-nil pointer whose every field is sent null is refused
// (the server keeps a non-frozen value's fields as cells, keeps none for
// such a value, and reads the column back as null: found on Cassandra
// 5.0.8), then inner, the check of the fields (nil for none).
func allNullCheck(ct CQLType, inner valueCheck) valueCheck {
	return func(v reflect.Value) (reflect.Value, string) {
		if !v.IsNil() && fieldsSentAsNull(v.Elem(), ct) {
			return v, "every field of this " + v.Type().Elem().String() + " is null, and a column of a user-defined type of its own is not frozen: the server keeps no field of it and reads the column back as null, so the pointer would read back nil; store nil, set a field, or declare the column kandra.Frozen() (a frozen value keeps its null fields)"
		}
		if inner == nil {
			return reflect.Value{}, ""
		}
		return inner(v)
	}
}

// fieldsSentAsNull reports whether every field of v, a struct stored as
// the user-defined type ct, is sent null: a nil pointer, slice or map, or
// a value zeroSentAsNull (the zero netip.Addr, an empty net.IP, the zero
// UUID in a TIMEUUID).
func fieldsSentAsNull(v reflect.Value, ct CQLType) bool {
	stored := reflectx.StoredFields(v.Type())
	if len(stored) == 0 || len(stored) != len(ct.n.fields) {
		return false
	}
	for j, i := range stored {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			if !f.IsNil() && !zeroSentAsNull(f, ct.n.fields[j].Type) {
				return false
			}
		default:
			if !zeroSentAsNull(f, ct.n.fields[j].Type) {
				return false
			}
		}
	}
	return true
}

// udtName is the name of t's user-defined type: its UDTName, or SnakeCase
// of its Go name.
func udtName(t reflect.Type) (name, problem string) {
	var v UDTNamer
	switch {
	case t.Implements(typeUDTNamer):
		v = reflect.Zero(t).Interface().(UDTNamer)
	case reflect.PointerTo(t).Implements(typeUDTNamer):
		v = reflect.New(t).Interface().(UDTNamer)
	default:
		return SnakeCase(t.Name()), ""
	}
	defer func() {
		if r := recover(); r != nil {
			name, problem = "", fmt.Sprintf("%s.UDTName() panicked on the zero value (%v); it must return the name without reading the value", t, r)
		}
	}()
	return v.UDTName(), ""
}

// udtProblem says why servers refuse the user-defined type t, or why
// kandra does, or "".
func (t CQLType) udtProblem() string {
	name := t.n.name
	where := "the user-defined type " + strconv.Quote(name)
	if t.n.goType != "" {
		where += " (of " + t.n.goType + ")"
	}
	if p := nameProblem(name); p != "" {
		return where + ": its name " + p + "; name it with a UDTName method"
	}
	if _, ok := reservedTypeNames[strings.ToLower(name)]; ok {
		return where + ": servers reserve the name for types (\"Invalid (reserved) user type name\"); name it with a UDTName method"
	}
	if len(t.n.fields) == 0 {
		return where + " has no fields: CREATE TYPE needs at least one"
	}
	seen := make(map[string]bool, len(t.n.fields))
	for _, f := range t.n.fields {
		switch {
		case f.Name == "":
			return where + ": a field name is empty"
		case !utf8.ValidString(f.Name):
			return where + ": field name " + strconv.Quote(f.Name) + " is not valid UTF-8"
		case len(f.Name) > MaxColumnNameBytes:
			return where + ": field name is " + strconv.Itoa(len(f.Name)) + " bytes long; the limit is " + strconv.Itoa(MaxColumnNameBytes) + " (MaxColumnNameBytes)"
		case seen[f.Name]:
			return where + ": two fields are named " + strconv.Quote(f.Name) + "; rename one with a `kandra:\"name\"` tag"
		case !f.Type.valid():
			return where + ": field " + strconv.Quote(f.Name) + " has the zero CQLType"
		case f.Type.holdsVector():
			return where + ": field " + strconv.Quote(f.Name) + " is a vector, which kandra keeps in a column of its own (where an ANN index can read it)"
		case f.Type.contains(cqlCounter):
			return where + ": field " + strconv.Quote(f.Name) + " is a counter (\"A user type cannot contain counters\")"
		}
		seen[f.Name] = true
		if p := f.Type.collectionProblem(); p != "" {
			return where + ", field " + strconv.Quote(f.Name) + ": " + p
		}
	}
	return ""
}

// udts calls fn for each user-defined type t is or holds, the types a
// type holds before it (the order CREATE TYPE needs).
func (t CQLType) udts(fn func(CQLType)) {
	if t.n == nil {
		return
	}
	for _, f := range t.n.fields {
		f.Type.udts(fn)
	}
	t.n.key.udts(fn)
	t.n.elem.udts(fn)
	if t.n.kind == KindUDT {
		fn(t)
	}
}

// createType renders CREATE TYPE IF NOT EXISTS for the user-defined type
// t: one field a line, each field's collections and types frozen (servers
// refuse a non-frozen UDT inside a UDT, and a column of a UDT that holds a
// non-frozen collection).
func createType(t CQLType, s ddlSpec) string {
	var b strings.Builder
	b.WriteString("CREATE TYPE IF NOT EXISTS ")
	s.qualify(&b, QuoteTypeName(t.n.name))
	b.WriteString(" (\n")
	for i, f := range t.n.fields {
		b.WriteString("    ")
		b.WriteString(QuoteIdent(f.Name))
		b.WriteByte(' ')
		f.Type.write(&b, true)
		if i < len(t.n.fields)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(");")
	return b.String()
}

// AlterTypeAdd renders ALTER TYPE ... ADD for field f of the user-defined
// type t, qualified with keyspace when it is not "": the migration
// planner's step for a field the live type lacks.
func AlterTypeAdd(keyspace string, t CQLType, f UDTField) string {
	var b strings.Builder
	b.WriteString("ALTER TYPE ")
	ddlSpec{keyspace: keyspace}.qualify(&b, QuoteTypeName(t.Name()))
	b.WriteString(" ADD ")
	b.WriteString(QuoteIdent(f.Name))
	b.WriteByte(' ')
	f.Type.write(&b, true)
	b.WriteByte(';')
	return b.String()
}

// checkUDTs refuses Frozen off a user-defined type or a collection
// (servers freeze nothing else: "frozen<> is only allowed on collections,
// tuples, and user-defined types", and a vector is frozen of itself), and
// an index on a column of a user-defined type that is not frozen: kandra
// declares such a column without FROZEN unless Frozen is given (servers
// require it only in keys and inside collections and types), and servers
// index no non-frozen user-defined type.
func (b *builder) checkUDTs() error {
	return b.each(func(c *ColumnSchema, s *fieldSpec) error {
		switch {
		case s.frozen && c.typ.Kind() != KindUDT && !c.typ.IsCollection():
			return b.fail(c.goName, RuleUDT, "Frozen applies to a column of a user-defined type (a struct field) or of a collection (a slice or a map), and this column is "+c.typ.brief()+" (\"frozen<> is only allowed on collections, tuples, and user-defined types\"); drop Frozen")
		case c.index && c.typ.Kind() == KindUDT && c.role == RegularColumn && !s.frozen:
			return b.fail(c.goName, RuleUDT, "a column of the user-defined type "+QuoteTypeName(c.typ.Name())+" is not frozen, and servers index none (\"Cannot create index on non-frozen UDT column\"); give it kandra.Frozen() to index the whole value, or index one of its values in a column of its own")
		}
		return nil
	})
}
