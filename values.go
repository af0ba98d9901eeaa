package kandra

// The value checks: a Go value that has no exact form in its column's CQL
// type is refused before anything is sent, with the column, the type, the
// value and the range, instead of being wrapped, truncated or dropped by a
// driver. The rules are the type table of docs/types.md ("Values at the edges"); the
// adapters encode by the same rules (package adapter, on internal/cqlvalue).

import (
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"reflect"
	"strconv"
	"time"

	"github.com/kandra-go/kandra/internal/cqlvalue"
	"github.com/kandra-go/kandra/internal/reflectx"
	"github.com/kandra-go/kandra/kerrors"
)

// valueCheck reports the part of v (the value itself, or an element of
// it) that has no exact form in the column's CQL type, and why; a zero
// Value and "" when it has one.
type valueCheck func(v reflect.Value) (bad reflect.Value, problem string)

// CheckValue reports, as an *kerrors.ValueError naming the table, the
// column, the CQL type and the range, a value at p (a pointer to a value
// of the column's Go type, as Pointer gives it) that the column cannot
// hold exactly: a time outside a TIMESTAMP's or DATE's range, a TIME
// outside a day, an inet address with a zone, a string a TEXT or ASCII
// column refuses, a UUID a TIMEUUID refuses, a value a collection
// would have to hold as null, or a non-nil pointer to a user-defined type
// whose every field is null in a column that is not frozen (it would read
// back nil). A user-defined type's fields are checked as columns of their
// types are. It returns nil for every other value, and
// at once for a column whose Go type has no such values. The runtime
// calls it before every write; nothing has been sent when it fails.
func (c *ColumnSchema) CheckValue(p any) error {
	if c.check == nil {
		return nil
	}
	field := p
	switch x := p.(type) { // a pointer field of a common type: nil is null, else its value is checked
	case **string:
		if c.goType == typePtrString {
			if *x == nil {
				return nil
			}
			p = *x
		}
	case **time.Time:
		if c.goType == typePtrTime {
			if *x == nil {
				return nil
			}
			p = *x
		}
	}
	if s, ok := p.(*string); ok && c.typ.Kind() == KindNative { // the common case, without reflect
		if problem := stringProblem(*s, c.typ.n.name); problem != "" {
			return c.valueErr(reflect.ValueOf(*s), problem)
		}
		return nil
	}
	if ss, ok := p.(*[]string); ok && (c.typ.Kind() == KindList || c.typ.Kind() == KindSet) && c.typ.n.elem.Kind() == KindNative {
		// A list or set of text, element by element as the general check
		// does, without reflect.
		for _, s := range *ss {
			if problem := stringProblem(s, c.typ.n.elem.n.name); problem != "" {
				return c.valueErr(reflect.ValueOf(s), problem)
			}
		}
		return nil
	}
	if ss, ok := p.(*map[string]struct{}); ok && c.goType == typeTextSet && c.typ.Kind() == KindSet && c.typ.n.elem.Kind() == KindNative {
		// A set of text, the same without reflect.
		for s := range *ss {
			if problem := stringProblem(s, c.typ.n.elem.n.name); problem != "" {
				return c.valueErr(reflect.ValueOf(s), problem)
			}
		}
		return nil
	}
	if tp, ok := p.(*time.Time); ok && c.typ.Kind() == KindNative && (c.typ.n.name == "TIMESTAMP" || c.typ.n.name == "DATE") {
		// The other common case: reflect would allocate.
		enc := cqlvalue.TimestampMillis
		if c.typ.n.name == "DATE" {
			enc = cqlvalue.DateDays
		}
		if _, err := enc(*tp); err != nil {
			return c.valueErr(reflect.ValueOf(*tp), err.Error())
		}
		return nil
	}
	v := reflect.ValueOf(field)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Type() != c.goType {
		return &kerrors.ArgumentError{Op: "CheckValue on " + c.table.Name() + "." + c.name, Arg: "p",
			Message: fmt.Sprintf("want a non-nil *%s, got %T", c.goType, field)}
	}
	if bad, problem := c.check(v.Elem()); problem != "" {
		return c.valueErr(bad, problem)
	}
	return nil
}

var (
	typePtrString = reflect.TypeFor[*string]()
	typePtrTime   = reflect.TypeFor[*time.Time]()
	typeTextSet   = reflect.TypeFor[map[string]struct{}]()
)

// CheckPart is CheckValue for one part of the collection column's value
// bound on its own: v, a value of the Go type of an element (a list's or
// a set's element, a map's value) or, with key, of a map's key, checked
// by an element's rules (an element cannot be null). A partial write
// (kstore's Patch) checks each element and key it sends with it. It
// returns nil for a column that is not a collection.
func (c *ColumnSchema) CheckPart(v any, key bool) error {
	pc := &c.parts[0]
	if key {
		pc = &c.parts[1]
	}
	if pc.t == nil {
		return nil
	}
	if s, ok := v.(string); ok && pc.t == typeString && pc.native != "" { // the common case, without reflect
		if problem := stringProblem(s, pc.native); problem != "" {
			return c.valueErr(reflect.ValueOf(s), problem)
		}
		return nil
	}
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || rv.Type() != pc.t {
		return &kerrors.ArgumentError{Op: "CheckPart on " + c.table.Name() + "." + c.name, Arg: "v",
			Message: fmt.Sprintf("want a %s, got %T", pc.t, v)}
	}
	if pc.check != nil {
		if bad, problem := pc.check(rv); problem != "" {
			return c.valueErr(bad, problem)
		}
	}
	return nil
}

// partCheck is how CheckPart checks one kind of part of a collection
// column (its elements, or its map's keys), planned with the column.
type partCheck struct {
	t      reflect.Type // the part's Go type; nil: not a collection
	check  valueCheck
	native string // the part's CQL type's name when it is text or ascii (checked as CheckValue checks a string)
}

// planParts plans CheckPart for c: parts[0] an element (a list's or a
// set's, a map's value), parts[1] a map's key.
func (c *ColumnSchema) planParts() {
	t := c.goType
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	plan := func(et reflect.Type, ct CQLType) partCheck {
		pc := partCheck{t: et, check: planCheck(et, ct, false)}
		if n := ct.n.name; ct.Kind() == KindNative && (n == "TEXT" || n == "VARCHAR" || n == "ASCII") {
			pc.native = n
		}
		return pc
	}
	switch {
	case c.typ.Kind() == KindList && t.Kind() == reflect.Slice:
		c.parts[0] = plan(t.Elem(), c.typ.n.elem)
	case c.typ.Kind() == KindSet && t.Kind() == reflect.Map:
		c.parts[0] = plan(t.Key(), c.typ.n.elem)
	case c.typ.Kind() == KindMap && t.Kind() == reflect.Map:
		c.parts[0], c.parts[1] = plan(t.Elem(), c.typ.n.elem), plan(t.Key(), c.typ.n.key)
	}
}

// ChecksValues reports whether CheckValue can refuse a value of the
// column's Go type, that is whether the type has values without an exact
// form in the column's CQL type.
func (c *ColumnSchema) ChecksValues() bool { return c.check != nil }

func (c *ColumnSchema) valueErr(bad reflect.Value, problem string) error {
	shown := "<redacted>"
	if !c.sensitive {
		shown = fmt.Sprintf("%v", bad.Interface())
		if len(shown) > 80 {
			shown = shown[:77] + "..."
		}
	}
	table := ""
	if c.table != nil {
		table = c.table.Name()
	}
	return &kerrors.ValueError{Table: table, Column: c.name, Type: c.typ.brief(), Value: shown, Reason: problem}
}

var typeNetIPAddr = reflect.TypeFor[netip.Addr]()

// planCheck is the check of Go type t stored as ct, or nil when every
// value of t has an exact form. top is a column's own value, which may be
// null; a collection's elements may not.
func planCheck(t reflect.Type, ct CQLType, top bool) valueCheck {
	if ct.n == nil || ct.n.name == cqlCounter.n.name {
		return nil
	}
	if _, _, ok := userType(t); ok {
		return nil // it marshals itself
	}
	switch ct.n.kind {
	case KindUDT:
		return udtCheck(t, ct)
	case KindList, KindSet:
		var elem reflect.Type
		switch t.Kind() {
		case reflect.Slice:
			elem = t.Elem()
		case reflect.Map:
			elem = t.Key()
		default:
			return pointerCheck(t, ct, top)
		}
		inner := planCheck(elem, ct.n.elem, false)
		if inner == nil {
			return nil
		}
		return func(v reflect.Value) (reflect.Value, string) {
			if v.Kind() == reflect.Map {
				for it := v.MapRange(); it.Next(); {
					if bad, p := inner(it.Key()); p != "" {
						return bad, p
					}
				}
				return reflect.Value{}, ""
			}
			for i := 0; i < v.Len(); i++ {
				if bad, p := inner(v.Index(i)); p != "" {
					return bad, p
				}
			}
			return reflect.Value{}, ""
		}
	case KindMap:
		if t.Kind() != reflect.Map {
			return pointerCheck(t, ct, top)
		}
		key, val := planCheck(t.Key(), ct.n.key, false), planCheck(t.Elem(), ct.n.elem, false)
		if key == nil && val == nil {
			return nil
		}
		return func(v reflect.Value) (reflect.Value, string) {
			for it := v.MapRange(); it.Next(); {
				if key != nil {
					if bad, p := key(it.Key()); p != "" {
						return bad, p
					}
				}
				if val != nil {
					if bad, p := val(it.Value()); p != "" {
						return bad, p
					}
				}
			}
			return reflect.Value{}, ""
		}
	}
	if t.Kind() == reflect.Pointer {
		return pointerCheck(t, ct, top)
	}
	name := ct.n.name
	switch {
	case t.Kind() == reflect.Struct && t.ConvertibleTo(typeTime) && (name == "TIMESTAMP" || name == "DATE"):
		enc := cqlvalue.TimestampMillis
		if name == "DATE" {
			enc = cqlvalue.DateDays
		}
		return func(v reflect.Value) (reflect.Value, string) {
			if _, err := enc(v.Convert(typeTime).Interface().(time.Time)); err != nil {
				return v, err.Error()
			}
			return reflect.Value{}, ""
		}
	case t.Kind() == reflect.Int64 && name == "TIME":
		return func(v reflect.Value) (reflect.Value, string) {
			if err := cqlvalue.CheckTimeOfDay(v.Int()); err != nil {
				return v, err.Error()
			}
			return reflect.Value{}, ""
		}
	case t.Kind() == reflect.Struct && t.ConvertibleTo(typeNetIPAddr):
		return func(v reflect.Value) (reflect.Value, string) {
			a := v.Convert(typeNetIPAddr).Interface().(netip.Addr)
			if !top {
				if err := cqlvalue.InetElemProblem(a); err != nil {
					return v, err.Error()
				}
			} else if !a.IsValid() {
				return reflect.Value{}, "" // null
			}
			if _, err := cqlvalue.InetBytes(a); err != nil {
				return v, err.Error()
			}
			return reflect.Value{}, ""
		}
	case t == typeNetIP:
		return func(v reflect.Value) (reflect.Value, string) {
			ip := v.Interface().(net.IP)
			if len(ip) == 0 && !top {
				return v, "an empty net.IP is null, and a collection cannot hold null"
			}
			if _, err := cqlvalue.NetIPBytes(ip); err != nil {
				return v, err.Error()
			}
			return reflect.Value{}, ""
		}
	case t.Kind() == reflect.Array && name == "TIMEUUID":
		return func(v reflect.Value) (reflect.Value, string) {
			var u [16]byte
			reflect.Copy(reflect.ValueOf(&u).Elem(), v)
			if u == ([16]byte{}) {
				if top {
					return reflect.Value{}, "" // null
				}
				return v, "the zero UUID is null in a TIMEUUID, and a collection cannot hold null"
			}
			if err := cqlvalue.CheckTimeUUID(u); err != nil {
				return v, err.Error()
			}
			return reflect.Value{}, ""
		}
	case t.Kind() == reflect.String && (name == "TEXT" || name == "VARCHAR" || name == "ASCII"):
		return func(v reflect.Value) (reflect.Value, string) {
			if p := stringProblem(v.String(), name); p != "" {
				return v, p
			}
			return reflect.Value{}, ""
		}
	}
	return nil
}

// pointerCheck checks the value behind a pointer; nil is null.
func pointerCheck(t reflect.Type, ct CQLType, top bool) valueCheck {
	if t.Kind() != reflect.Pointer {
		return nil
	}
	inner := planCheck(t.Elem(), ct, top)
	if inner == nil {
		return nil
	}
	return func(v reflect.Value) (reflect.Value, string) {
		if v.IsNil() {
			return reflect.Value{}, ""
		}
		return inner(v.Elem())
	}
}

// stringProblem says why a TEXT, VARCHAR or ASCII column refuses s.
func stringProblem(s, name string) string {
	switch name {
	case "ASCII":
		if err := cqlvalue.CheckASCII(s); err != nil {
			return err.Error()
		}
	case "TEXT", "VARCHAR":
		if !cqlvalue.ValidText(s) {
			return cqlvalue.CheckText(s).Error()
		}
	}
	return ""
}

// StoredForm sets the value at p (as for CheckValue) to the value a read
// of it returns where the column's CQL type is coarser than its Go type:
// a time in a TIMESTAMP floored to the millisecond, one in a DATE to
// midnight of its UTC day, both in UTC, so that a value compared with a
// stored one (a lookup's Find) compares as stored. The fields of a
// user-defined type are set likewise, nested types included. Any other
// value, and a value CheckValue refuses, is left as it is.
func (c *ColumnSchema) StoredForm(p any) {
	k := c.typ.Kind()
	if k != KindUDT && (k != KindNative || (c.typ.n.name != "TIMESTAMP" && c.typ.n.name != "DATE")) {
		return
	}
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return
	}
	storedForm(v.Elem(), c.typ)
}

func storedForm(v reflect.Value, ct CQLType) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	switch ct.Kind() {
	case KindUDT:
		if v.Kind() != reflect.Struct {
			return
		}
		j := 0
		for i := range v.NumField() {
			if !reflectx.Stored(v.Type().Field(i)) {
				continue
			}
			if j == len(ct.n.fields) {
				return
			}
			storedForm(v.Field(i), ct.n.fields[j].Type)
			j++
		}
	case KindNative:
		name := ct.n.name
		if name != "TIMESTAMP" && name != "DATE" || v.Kind() != reflect.Struct || !v.Type().ConvertibleTo(typeTime) || !v.CanSet() {
			return
		}
		t := v.Convert(typeTime).Interface().(time.Time)
		if name == "DATE" {
			if d, err := cqlvalue.DateDays(t); err == nil {
				t = cqlvalue.TimeFromDays(d)
			}
		} else if ms, err := cqlvalue.TimestampMillis(t); err == nil {
			t = cqlvalue.TimeFromMillis(ms)
		}
		v.Set(reflect.ValueOf(t).Convert(v.Type()))
	}
}

// ReadError is the error a driver adapter returns when a stored cell of
// the column cannot be read into its Go type: an *kerrors.ValueError with
// Read set, naming the table and the column, the cell's value redacted
// for a Sensitive column. err is the decoder's failure.
func (c *ColumnSchema) ReadError(err error) error {
	e := &kerrors.ValueError{Column: c.name, Type: c.typ.brief(), Value: "<stored cell>", Reason: err.Error(), Read: true}
	if c.table != nil {
		e.Table = c.table.Name()
	}
	var re *cqlvalue.ReadError
	if errors.As(err, &re) {
		e.Reason, e.Value = re.Reason, re.Value
		if c.sensitive {
			e.Value = "<redacted>"
		}
	}
	return e
}

// SentAsNull reports whether the value at p (as for CheckValue) is sent
// as null in the column's CQL type although its Go value is not nil: the
// zero netip.Addr, an empty net.IP, the zero UUID in a TIMEUUID, also
// behind a pointer field. A lookup
// writes no row for such a value, as for an empty one.
func (c *ColumnSchema) SentAsNull(p any) bool {
	switch x := p.(type) {
	case *string, *int64, *int32, *int, *bool, *time.Time, *[]byte: // the common lookup values, without reflect
		return false
	case *netip.Addr:
		return !x.IsValid()
	}
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false
	}
	v = v.Elem()
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem() // a pointer field is stored as the value it points to
	}
	return zeroSentAsNull(v, c.typ)
}

// zeroSentAsNull reports whether v, a value of CQL type ct that is not
// nil, is sent as null by kandra's value rules: the zero netip.Addr, an
// empty net.IP, the zero UUID in a TIMEUUID.
func zeroSentAsNull(v reflect.Value, ct CQLType) bool {
	switch t := v.Type(); {
	case t.Kind() == reflect.Struct && t.ConvertibleTo(typeNetIPAddr):
		return !v.Convert(typeNetIPAddr).Interface().(netip.Addr).IsValid()
	case t == typeNetIP:
		return v.Len() == 0
	case t.Kind() == reflect.Array && t.Len() == 16 && ct.Kind() == KindNative && ct.n.name == "TIMEUUID":
		return v.IsZero()
	}
	return false
}

// The bounds Cassandra 5.0's ANN index puts on what it indexes and is
// queried by (VectorValidation): each component finite and within
// ±maxVectorComponent, "chosen to make sure dot products don't overflow";
// for cosine, some component outside ±nearZeroComponent. 5.0.8 checks
// only for an exact zero, and a vector of tiny components (1e-30) then
// fails an assertion inside the index and the write times out; later
// versions refuse those as "near-zero", which is the bound kandra keeps.
const (
	maxVectorComponent = 1e17
	nearZeroComponent  = 1e-6
)

// VectorProblem says why an ANN index ranking by sim refuses v, a vector
// written or queried, or "": a component that is not finite or is past
// ±1e17, and for cosine a vector whose components are all within ±1e-6.
func VectorProblem(v []float32, sim Similarity) string {
	i, p := vectorProblem(len(v), func(i int) float64 { return float64(v[i]) }, sim)
	if p == "" {
		return ""
	}
	if i >= 0 {
		return "component " + strconv.Itoa(i) + " is " + strconv.FormatFloat(float64(v[i]), 'g', -1, 32) + ": " + p
	}
	return p
}

func vectorProblem(n int, at func(int) float64, sim Similarity) (int, string) {
	nonZero := false
	for i := 0; i < n; i++ {
		x := at(i)
		switch {
		case math.IsNaN(x) || math.IsInf(x, 0):
			return i, "an ANN index takes finite components only (\"non-finite value at vector[i]\")"
		case math.Abs(x) > maxVectorComponent:
			return i, "an ANN index takes components within ±1e17 only (\"Out-of-bounds value at vector[i]\")"
		case math.Abs(x) > nearZeroComponent:
			nonZero = true
		}
	}
	if sim == SimilarityCosine && !nonZero {
		return -1, "a cosine ANN index cannot index or be queried by a zero or near-zero vector (every component within ±1e-6: \"Zero and near-zero vectors cannot be indexed or queried with cosine similarity\"); store a null instead (a *[N]float32 field), or rank by SimilarityEuclidean"
	}
	return -1, ""
}

// vectorCheck is the value check of a vector column with an ANN index:
// VectorProblem on the field's [N]float32, or on what its pointer holds
// (a nil pointer is null, which the index skips).
func vectorCheck(sim Similarity) valueCheck {
	return func(v reflect.Value) (reflect.Value, string) {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, ""
			}
			v = v.Elem()
		}
		i, p := vectorProblem(v.Len(), func(i int) float64 { return v.Index(i).Float() }, sim)
		switch {
		case p == "":
			return reflect.Value{}, ""
		case i >= 0:
			return v.Index(i), "component " + strconv.Itoa(i) + ": " + p
		}
		return v, p
	}
}
