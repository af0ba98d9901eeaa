package kgocqlv2

import (
	"reflect"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
)

// Codec adapts kandra's per-row accessors (Table.Pointers,
// TableSchema.Pointers, ColumnSchema.Pointer) to what the Apache driver v2
// can marshal: the adapter core's codec (adapter.Codec, which lists the
// conversions) for this driver. What is the driver's own: it marshals only
// gocql.UUID, an unnamed [16]byte, []byte and string into a uuid column,
// and scans only into *gocql.UUID, *[16]byte, *[]byte and *string; it
// cannot unmarshal a set into a map[K]struct{}, and unmarshals a duration
// only into gocql.Duration; the core converts each. Its references
// (AppendBindRefs, the scan targets) write and read the bytes the driver
// writes and reads (property-tested against it).
type Codec = adapter.Codec[gocql.TypeInfo, types]

// NewCodec plans the conversions for cols (in the order the pointers will
// come in, normally TableSchema.Columns()).
func NewCodec(cols []*kandra.ColumnSchema) (*Codec, error) {
	return adapter.NewCodec[gocql.TypeInfo, types](cols)
}

// SortedValue is a value bound for a column whose CQL type holds a set or
// a map (see adapter.SortedValue): it marshals like Value, with every set
// and map in it in the server's order.
type SortedValue = adapter.SortedValue[gocql.TypeInfo, types]

// Sorted returns v, a value the driver marshals for a column of CQL type
// t, as a SortedValue. It fails only for a CQL type the adapter does not
// know.
func Sorted(t kandra.CQLType, v any) (SortedValue, error) {
	return adapter.Sorted[gocql.TypeInfo, types](t, v)
}

// types is the Apache driver v2 as the adapter core sees it. Its
// protocols (3 to 5) all write collections with 4-byte sizes.
type types struct{}

var _ adapter.TypeSystem[gocql.TypeInfo] = types{}

var typeUUID = reflect.TypeFor[gocql.UUID]()

func (types) Type(info gocql.TypeInfo) adapter.Type { return adapter.Type(info.Type()) }

func (types) Collection(info gocql.TypeInfo) (key, elem gocql.TypeInfo, ok bool, err error) {
	ci, ok := info.(gocql.CollectionType)
	return ci.Key, ci.Elem, ok, nil
}

// UDT: the driver describes a user-defined type as a gocql.UDTTypeInfo,
// its fields in the server's order.
func (types) UDT(info gocql.TypeInfo) (keyspace, name string, fields int, ok bool) {
	switch u := info.(type) {
	case gocql.UDTTypeInfo:
		return u.Keyspace, u.Name, len(u.Elements), true
	case *gocql.UDTTypeInfo:
		if u != nil {
			return u.Keyspace, u.Name, len(u.Elements), true
		}
	}
	return "", "", 0, false
}

func (types) UDTField(info gocql.TypeInfo, i int) (string, gocql.TypeInfo) {
	var e gocql.UDTField
	switch u := info.(type) {
	case gocql.UDTTypeInfo:
		e = u.Elements[i]
	case *gocql.UDTTypeInfo:
		e = u.Elements[i]
	}
	return e.Name, e.Type
}

func (types) Marshal(info gocql.TypeInfo, v any) ([]byte, error) { return gocql.Marshal(info, v) }

func (types) Unmarshal(info gocql.TypeInfo, data []byte, v any) error {
	return gocql.Unmarshal(info, data, v)
}

func (types) UUID() reflect.Type { return typeUUID }

// Ref is nil: the adapter binds and scans by the core's references.
func (types) Ref(reflect.Type) reflect.Type { return nil }

// Unset implements adapter.TypeSystem.
func (types) Unset() any { return gocql.UnsetValue }
