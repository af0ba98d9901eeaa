package adapter

import (
	"fmt"
	"reflect"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/cqlorder"
	"github.com/kandra-go/kandra/internal/reflectx"
)

// Codec adapts kandra's per-row accessors (Table.Pointers,
// TableSchema.Pointers, ColumnSchema.Pointer) to what a driver whose type
// info is I (D: see TypeSystem) can marshal. kandra hands out the addresses of
// an entity's fields; for most Go types a driver takes them as they are.
// For the types below it does not, and the codec converts them, per
// column (the real-server suites, adapter/adaptertest and integration/,
// prove each against Cassandra 5.0 through both gocql drivers):
//
//   - uuid.UUID (github.com/google/uuid), and any other 16-byte array
//     type but [16]byte and the driver's own UUID (type UserID
//     uuid.UUID): the gocql drivers marshal and scan only their own UUID
//     type, [16]byte, []byte and string in a uuid column. Bound and
//     scanned as its 16 bytes, over the field's memory, also inside
//     collections and behind pointers. In a TIMEUUID column of its own,
//     the zero UUID (version 0, which Cassandra refuses there: "Invalid
//     version for TimeUUID type") is sent as null, and null reads back as
//     zero.
//   - time.Time (TIMESTAMP and DATE), time.Duration in a TIME, netip.Addr
//     and net.IP (INET), []byte (BLOB), and an integer field in a wider
//     CQL integer type: encoded by kandra's value rules (docs/types.md,
//     "Values at the edges") over the field's own memory. The gocql drivers write
//     the zero time as an empty value, round pre-1970 dates toward zero
//     (v1), wrap a time past the type's range, send a TIME outside a day,
//     turn an IPv4-mapped address into IPv4, cannot bind a netip.Addr at
//     all, read an empty blob as nil, and fail a whole row on an integer
//     its field cannot hold.
//   - a byte array ([32]byte, type Hash [32]byte, uuid.UUID) given
//     AsType(BLOB): the drivers marshal a blob from slices and strings
//     only. Bound as a copy of its bytes, never null; scanned back only
//     at its length (null is the zero array; a stored blob of another
//     length, the empty one included, fails the read with an
//     *kerrors.ValueError naming the column, the length and the Go
//     type), also behind pointers and inside collections (as a string
//     there, so that it can be a map key). A type with its own MarshalCQL
//     is left to the driver.
//   - time.Duration in a DURATION column: the drivers marshal it but
//     unmarshal a duration only into their own Duration. Scanned as the
//     protocol's months, days and nanoseconds and converted back (months
//     and days are never set by a Go value; a server value that has them
//     cannot be a time.Duration: the read fails with an *kerrors.ValueError
//     naming the column).
//   - map[K]struct{} (a CQL set): the drivers marshal it but cannot
//     unmarshal a set into a map. Scanned into []K and turned back into a
//     map.
//   - a named type of one of these special types (type At time.Time; a
//     struct type convertible to netip.Addr), which kandra maps as the
//     special type: the drivers' type switches see only the special types,
//     so binding one fails ("can not marshal main.At into timestamp").
//     Converted as the special type.
//   - a Go struct kandra maps to a user-defined type, also behind a
//     pointer, inside collections, as a map key and nested: the drivers
//     match a struct's fields by their Go names (or cql tags), where
//     kandra names them in snake case (or by kandra tags), and send null
//     for the others. Encoded by the core in the protocol's form, each
//     field as a column of the field's Go and CQL type would be (these
//     rules, sorted sets and maps), matched by name to the fields of the
//     type the server describes: a field the struct lacks is null, one the
//     server lacks is a *kerrors.UDTFieldError (nothing is sent), and a stored
//     value with fewer fields (written before ALTER TYPE ... ADD) reads
//     the others as null.
//
// A column whose CQL type holds a set or a map (at any depth) is bound as
// a SortedValue, which sends the elements of every set and the entries of
// every map in the server's order. A driver sends a Go map in its random
// iteration order, and Cassandra 5.0 keeps a frozen set or map in the
// order it was sent when it is a clustering column in descending order
// (it sorts it everywhere else): unsorted, the same Go value would be a
// different key on every write, and differ from the key another client
// writes. Sorting is not a conversion for Converted.
//
// A column whose Go type needs none of this is passed through: the address
// kandra gave is what the driver reads and writes. For the plain native
// types (string, int32, int64, int, float64, bool), []string and the
// driver's own UUID, AppendBindRefs and the scan targets turn the address
// into a reference to the field (the adapter's own, TypeSystem.Ref, or the
// core's) that writes or reads its bytes itself, exactly as the driver
// does (the adapter's tests prove it), and hands every other CQL type to
// the driver: the same bytes and values, without the driver's reflection
// or the boxing of each value.
type Codec[I any, D TypeSystem[I]] struct {
	convs []*conv // per column; nil = pass through
	cols  []*kandra.ColumnSchema
}

// NewCodec plans the conversions for cols (in the order the pointers will
// come in, normally TableSchema.Columns()).
func NewCodec[I any, D TypeSystem[I]](cols []*kandra.ColumnSchema) (*Codec[I, D], error) {
	c := &Codec[I, D]{convs: make([]*conv, len(cols)), cols: cols}
	for i, col := range cols {
		cv, err := planColumn[I, D](col)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", col.Name(), err)
		}
		c.convs[i] = cv
	}
	return c, nil
}

// planColumn is the conv of a column's Go type in its CQL type.
func planColumn[I any, D TypeSystem[I]](col *kandra.ColumnSchema) (*conv, error) {
	n, err := cqlorder.Of(col.Type())
	if err != nil {
		return nil, err
	}
	return planTop[I, D](col.GoType(), n), nil
}

// planPart plans a value of one part of collection column col, bound on
// its own: a map's key (key), or an element (a list's or set's element, a
// map's value), and returns its Go type. A set's Go type is map[E]struct{}:
// its element is the map's key type.
func planPart[I any, D TypeSystem[I]](col *kandra.ColumnSchema, key bool) (*conv, reflect.Type, error) {
	n, err := cqlorder.Of(col.Type())
	if err != nil {
		return nil, nil, err
	}
	t := col.GoType()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	// The Go type must have the CQL type's shape: a CQLTyper or AsType
	// collection on another Go kind has no part to bind on its own.
	want := map[kandra.CQLKind]reflect.Kind{kandra.KindList: reflect.Slice, kandra.KindSet: reflect.Map, kandra.KindMap: reflect.Map}[col.Type().Kind()]
	if want == reflect.Invalid || t.Kind() != want || key && col.Type().Kind() != kandra.KindMap {
		return nil, nil, fmt.Errorf("column %s: Go type %s holds no %s part to bind on its own", col.Name(), col.GoType(), col.Type())
	}
	var part cqlorder.Type
	switch {
	case key:
		t, part = t.Key(), n.Args[0]
	case col.Type().Kind() == kandra.KindSet:
		t, part = t.Key(), n.Args[0]
	case col.Type().Kind() == kandra.KindMap:
		t, part = t.Elem(), n.Args[1]
	default:
		t, part = t.Elem(), n.Args[0]
	}
	// An element's rules, not a column's: an element cannot be null, and
	// Cassandra stores an IPv4-mapped address inside a collection as
	// IPv4 (planRules).
	return planSorted[I, D](t, part, false, true), t, nil
}

// planKeys plans a set of keys of map column col, bound on its own (m =
// m - ?), and returns its Go type, map[K]struct{} of the map's key type.
func planKeys[I any, D TypeSystem[I]](col *kandra.ColumnSchema) (*conv, reflect.Type, error) {
	t := col.GoType()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if col.Type().Kind() != kandra.KindMap || t.Kind() != reflect.Map {
		return nil, nil, fmt.Errorf("column %s: Go type %s holds no map keys to bind on their own", col.Name(), col.GoType())
	}
	n, err := cqlorder.Of(kandra.SetOf(col.Type().Key()))
	if err != nil {
		return nil, nil, err
	}
	t = reflect.MapOf(t.Key(), reflect.TypeFor[struct{}]())
	return planTop[I, D](t, n), t, nil
}

// planField plans field k of the user-defined type column col, bound on
// its own (u.f = ?), and returns its Go type: the type of the Go struct's
// k-th stored field (kandra's mapping keeps them in the type's order).
func planField[I any, D TypeSystem[I]](col *kandra.ColumnSchema, k int) (*conv, reflect.Type, error) {
	t := col.GoType()
	n, err := cqlorder.Of(col.Type())
	if err != nil {
		return nil, nil, err
	}
	stored := reflectx.StoredFields(t)
	if col.Type().Kind() != kandra.KindUDT || t.Kind() != reflect.Struct || k < 0 || k >= len(stored) || k >= len(n.Args) {
		return nil, nil, fmt.Errorf("column %s: Go type %s has no field %d of a user-defined type to bind on its own", col.Name(), col.GoType(), k)
	}
	ft := t.Field(stored[k]).Type
	return planTop[I, D](ft, n.Args[k]), ft, nil
}

// refOnlyConv is the conv of a field of type t the driver takes as it is,
// bound and scanned by its reference of type r.
func refOnlyConv(t, r reflect.Type) *conv {
	c := converting(t, r)
	c.only, c.toWire, c.fromWire = refOnly, identity, identityBack
	return c
}

// Converted reports whether column i's Go type needs a conversion (see
// Codec); a column that is only sorted, or only bound by reference, is not
// converted.
func (c *Codec[I, D]) Converted(i int) bool {
	return c.convs[i] != nil && c.convs[i].only == converts
}

// BindValues replaces, in ptrs (field addresses from kandra), the entries
// the driver cannot marshal (or would send unsorted) by converted values,
// and the addresses of common types by their values (which the driver
// marshals without reflect). It returns a new slice.
func (c *Codec[I, D]) BindValues(ptrs []any) []any {
	return c.AppendBindValues(make([]any, 0, len(ptrs)), ptrs)
}

// AppendBindValues is BindValues appending to dst, so that a caller can
// reuse one buffer for every statement.
func (c *Codec[I, D]) AppendBindValues(dst, ptrs []any) []any {
	for i, p := range ptrs {
		dst = append(dst, bind[I, D](c.convs[i], p, false))
	}
	return dst
}

// AppendBindRefs is AppendBindValues, except that the value of a field of
// a plain native type (string, int32, int64, int, float64, bool,
// []string), of the driver's UUID and of a type the codec encodes over the
// field's memory (time.Time, uuid.UUID, ...) is bound as a reference to
// the field: a Marshaler holding only the field's address, which an
// interface holds without allocating, and which writes the field's bytes
// when the driver marshals it, the same bytes the driver writes for the
// value. The fields are read when the driver marshals the statement, not
// now: keep them unchanged until the statement has run, and do not bind
// refs to a query that may run after its call returns (a speculative
// execution of an idempotent query may); bind values there.
func (c *Codec[I, D]) AppendBindRefs(dst, ptrs []any) []any {
	for i, p := range ptrs {
		dst = append(dst, bind[I, D](c.convs[i], p, true))
	}
	return dst
}

// AppendBindParams appends the values of markers that are not a
// column's (a TTL, a timestamp, a counter's delta, a bound's value: see
// Driver) as Plan.Bind binds them: with byRef, the address of a plain
// native type (the runtime binds a TTL and a timestamp by address) as its
// reference, as AppendBindRefs binds a field, else the value behind it;
// any other value as it is. For an adapter that binds through a Codec.
func (c *Codec[I, D]) AppendBindParams(dst, vals []any, byRef bool) []any {
	for _, v := range vals {
		dst = append(dst, bind[I, D](nil, v, byRef))
	}
	return dst
}

// bind is the value the driver is given for the field address p of a
// column converted by cv: with byRef, the field's reference, or a pointer
// of the wire type to its memory; else p's value for a common type, a
// copy of the field as its wire type; or the converted value.
func bind[I any, D TypeSystem[I]](cv *conv, p any, byRef bool) any {
	if cv == nil {
		if byRef {
			return ref[I, D](p)
		}
		return deref(p)
	}
	if cv.fast != nil {
		if w, ok := cv.fast(p); ok {
			return w
		}
	}
	if a, ok := cv.alias(p, byRef); ok {
		return aliased[I, D](cv, p, a, byRef)
	}
	return cv.toWire(reflect.ValueOf(p).Elem()).Interface()
}

// aliased is what bind gives for the field at p, aliased by cv as a: a
// itself with byRef, else a copy of the value (p's own for a type the
// driver takes as it is).
func aliased[I any, D TypeSystem[I]](cv *conv, p, a any, byRef bool) any {
	switch {
	case byRef:
		return a
	case cv.only == refOnly:
		return deref(p)
	}
	return derefWire[I, D](a) // a copy: values are read later
}

// derefWire is the value behind a pointer alias returned: a copy, for a
// driver that reads it after the call.
func derefWire[I any, D TypeSystem[I]](a any) any {
	switch x := a.(type) { // the common ones, without reflect
	case *timestampWire[I]:
		return *x
	case *uuidWire[I, D]:
		return *x
	case *timeUUIDWire[I, D]:
		return *x
	case *inetWire[I]:
		return *x
	case *blobWire[I]:
		return *x
	}
	return reflect.ValueOf(a).Elem().Interface()
}

// noFinish is ScanTargets' finish when no column needs one.
func noFinish() error { return nil }

// ScanTargets returns scan targets for a row whose fields are at ptrs:
// kandra's addresses (or their references, see Codec) where the driver
// can scan directly, temporaries elsewhere. Call finish after a
// successful Scan to store the temporaries into the fields.
func (c *Codec[I, D]) ScanTargets(ptrs []any) (targets []any, finish func() error) {
	return c.AppendScanTargets(make([]any, 0, len(ptrs)), ptrs)
}

// AppendScanTargets is ScanTargets appending the targets to dst, so that
// a caller can reuse one buffer for every row.
func (c *Codec[I, D]) AppendScanTargets(dst, ptrs []any) (targets []any, finish func() error) {
	targets = dst
	type pending struct {
		cv    *conv
		tmp   reflect.Value
		field reflect.Value
		col   int
	}
	var todo []pending
	for i, p := range ptrs {
		target, tmp := scanTarget[I, D](c.convs[i], p)
		targets = append(targets, target)
		if tmp.IsValid() {
			todo = append(todo, pending{c.convs[i], tmp, reflect.ValueOf(p).Elem(), i})
		}
	}
	if len(todo) == 0 {
		return targets, noFinish
	}
	return targets, func() error {
		for _, t := range todo {
			v, err := t.cv.fromWire(t.tmp.Elem())
			if err != nil {
				return c.cols[t.col].ReadError(err)
			}
			t.field.Set(v)
		}
		return nil
	}
}

// scanTarget is the scan target for the field at p of a column converted
// by cv: the field's reference, a pointer of the wire type to its memory,
// or a new temporary of the wire type (tmp), which cv.fromWire turns into
// the field's value once scanned.
func scanTarget[I any, D TypeSystem[I]](cv *conv, p any) (target any, tmp reflect.Value) {
	if cv == nil || cv.only == sortOnly {
		return scanRef[I, D](p), reflect.Value{}
	}
	if a, ok := cv.alias(p, false); ok {
		return a, reflect.Value{}
	}
	tmp = reflect.New(cv.wire)
	return tmp.Interface(), tmp
}

// SortedValue is a value bound for a column whose CQL type holds a set or
// a map (see Codec). It marshals like Value, with the elements of every
// set and the entries of every map in it, at any depth, in the order
// Cassandra's comparator for the element (or key) type gives, the order
// in which the server stores them in any other column and in which it
// reads a CQL literal, and each element (or key) once as the server sees
// them.
type SortedValue[I any, D TypeSystem[I]] struct {
	// Value is what the driver would be given unsorted: a slice (list or
	// set), a map[K]struct{} (set) or a map, or a pointer to one.
	Value any
	typ   cqlorder.Type
}

// Sorted returns v, a value the driver marshals for a column of CQL type
// t, as a SortedValue. A Go struct of a user-defined type t holds (at any
// depth) is converted as a column's value is (see planUDT): the drivers
// would match its fields by their Go names, and send null for the
// others. It fails only for a CQL type the core does not know (a tuple,
// or a user-defined type without its fields).
func Sorted[I any, D TypeSystem[I]](t kandra.CQLType, v any) (SortedValue[I, D], error) {
	n, err := cqlorder.Of(t)
	if err != nil {
		return SortedValue[I, D]{}, err
	}
	if v != nil && holdsUDT(n) {
		if cv := planValue[I, D](reflect.TypeOf(v), n, true); cv != nil && cv.only == converts {
			v = cv.toWire(reflect.ValueOf(v)).Interface()
		}
	}
	return SortedValue[I, D]{Value: v, typ: n}, nil
}

// holdsUDT reports whether t is, or holds at any depth, a user-defined
// type.
func holdsUDT(t cqlorder.Type) bool {
	if t.Name == "udt" {
		return true
	}
	for _, a := range t.Args {
		if holdsUDT(a) {
			return true
		}
	}
	return false
}

// MarshalCQL implements the driver's Marshaler.
func (s SortedValue[I, D]) MarshalCQL(info I) ([]byte, error) {
	return cqlorder.Marshal[I](order[I, D]{}, info, s.typ, reflect.ValueOf(s.Value))
}
