package kandra

import (
	"encoding/hex"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Mask is a column mask of Cassandra 5.0's dynamic data masking: a native
// masking function the server applies to the column's values in the
// results of every SELECT run by a role without the UNMASK permission
// (a superuser, and the anonymous user when authentication is off, read
// the values as they are). It changes what users read, not what is stored.
// Build one with MaskNull, MaskDefault, MaskReplace, MaskInner, MaskOuter
// or MaskHash and give it to a field with Masked; the zero Mask is no
// mask. Masks are values: compare two with Equal.
//
// Only Cassandra 5.0 has masks, and only with dynamic_data_masking_enabled:
// true in cassandra.yaml (off in the shipped file; the server otherwise
// answers "Cannot mask columns because dynamic data masking is not
// enabled"). RuleMask and RuleMaskTarget say where kandra takes one.
type Mask struct {
	fn        maskFunc
	begin     int64     // mask_inner, mask_outer: the characters kept (or masked) at the start
	end       int64     // and at the end
	padding   rune      // mask_inner, mask_outer: 0 when none is given (the server's '*')
	algorithm string    // mask_hash: the canonical name, "" when none is given (SHA-256)
	value     maskValue // mask_replace
	problem   string    // what the constructor was given that no server takes
}

// maskFunc is the masking function of a Mask.
type maskFunc uint8

const (
	maskNone maskFunc = iota
	maskNullFn
	maskDefaultFn
	maskReplaceFn
	maskInnerFn
	maskOuterFn
	maskHashFn
)

var maskFuncNames = [...]string{"", "mask_null", "mask_default", "mask_replace", "mask_inner", "mask_outer", "mask_hash"}

// maskClass is the kind of value a MaskReplace holds.
type maskClass uint8

const (
	maskNoClass maskClass = iota
	maskText
	maskInteger
	maskBoolean
	maskFloat
	maskBlob
	maskUUID
	maskTimestamp
)

// maskValue is MaskReplace's value, comparable: one field per class.
type maskValue struct {
	class   maskClass
	s       string    // text; a blob's bytes
	i       int64     // integer; a timestamp's Unix milliseconds
	f       float64   // float
	b       bool      // boolean
	u       uuid.UUID // uuid
	float32 bool      // a float32: rendered with float32's shortest digits
}

// defaultPadding is the character mask_inner and mask_outer pad with when
// none is given; defaultHash the algorithm mask_hash uses.
const (
	defaultPadding = '*'
	defaultHash    = "SHA-256"
)

// hashAlgorithms are the message digests of the SUN provider of Java 11
// and 17, which every Cassandra 5.0 node has, by their standard names.
// mask_hash looks its algorithm up only when it masks a value, so an
// unknown one fails every read of the column ("Hash algorithm not found").
var hashAlgorithms = []string{"MD2", "MD5", "SHA-1", "SHA-224", "SHA-256", "SHA-384", "SHA-512", "SHA-512/224", "SHA-512/256",
	"SHA3-224", "SHA3-256", "SHA3-384", "SHA3-512"}

// MaskNull masks a value as null (mask_null): the column reads as absent.
// It takes a column of any type.
func MaskNull() Mask { return Mask{fn: maskNullFn} }

// MaskDefault masks a value as a fixed value of its type (mask_default):
// '****' for text, 0 for numbers, false for booleans, the epoch for times,
// an empty collection. It takes a column of any type.
func MaskDefault() Mask { return Mask{fn: maskDefaultFn} }

// MaskReplace masks a value as value (mask_replace(value)), which must be
// a value of the column's type: a string for TEXT, VARCHAR or ASCII (ASCII
// characters only), a bool for BOOLEAN, an integer for TINYINT, SMALLINT,
// INT, BIGINT or VARINT (within the column's range), a float32 or float64
// for FLOAT or DOUBLE (finite; rounded to float32 for FLOAT), a []byte for
// BLOB, a uuid.UUID for UUID (a version 1 one for TIMEUUID), a time.Time
// in whole milliseconds for TIMESTAMP. Named types of those kinds are
// taken. Register refuses another value or a value of another type
// (RuleMask); a column of another type takes MaskDefault or MaskNull. A
// string may not hold a single quote: Cassandra cannot read such a
// replacement back ("Failed parsing CQL term").
func MaskReplace(value any) Mask {
	m := Mask{fn: maskReplaceFn}
	m.value, m.problem = replacement(value)
	return m
}

// MaskInner masks the characters of a text value (TEXT, VARCHAR or
// ASCII) except its first begin and last end ones (mask_inner): with
// MaskInner(1, 2) 'Alice' reads 'A**ce'. Each masked character becomes
// padding, one character, '*' when none is given. begin and end are 0 to
// 2147483647 (the server reads a negative one as 0).
func MaskInner(begin, end int, padding ...rune) Mask {
	return partial(maskInnerFn, begin, end, padding)
}

// MaskOuter masks the first begin and last end characters of a text
// value (TEXT, VARCHAR or ASCII), keeping the others (mask_outer): with
// MaskOuter(1, 2) 'Alice' reads '*li**'. Its arguments are MaskInner's.
func MaskOuter(begin, end int, padding ...rune) Mask {
	return partial(maskOuterFn, begin, end, padding)
}

// MaskHash masks a value as its hash (mask_hash), a BLOB: it takes only a
// BLOB column, as the server requires a masking function to return the
// column's type ("Masking function mask_hash() return type is blob").
// algorithm, at most one, is a Java message digest: MD2, MD5, SHA-1,
// SHA-224, SHA-256 (the default), SHA-384, SHA-512, SHA-512/224,
// SHA-512/256, SHA3-224, SHA3-256, SHA3-384 or SHA3-512, in any case. The
// server looks the algorithm up only when it masks a value, so kandra
// refuses others: with an unknown one, every read of the column fails.
func MaskHash(algorithm ...string) Mask {
	m := Mask{fn: maskHashFn}
	switch {
	case len(algorithm) > 1:
		m.problem = "MaskHash takes at most one algorithm, and is given " + strconv.Itoa(len(algorithm))
	case len(algorithm) == 1:
		for _, a := range hashAlgorithms {
			if strings.EqualFold(a, algorithm[0]) {
				m.algorithm = a
				return m
			}
		}
		m.algorithm = algorithm[0]
		m.problem = "MaskHash is given the algorithm " + strconv.Quote(algorithm[0]) + ", which is not a message digest of every Java that runs Cassandra 5.0 (the server looks it up at each read: \"Hash algorithm not found\"); use one of " + strings.Join(hashAlgorithms, ", ")
	}
	return m
}

func partial(fn maskFunc, begin, end int, padding []rune) Mask {
	m := Mask{fn: fn, begin: int64(begin), end: int64(end)}
	name := map[maskFunc]string{maskInnerFn: "MaskInner", maskOuterFn: "MaskOuter"}[fn]
	for _, n := range []int{begin, end} {
		switch {
		case n < 0:
			m.problem = name + " is given " + strconv.Itoa(n) + " characters to keep; give 0 or more (the server reads a negative count as 0)"
		case int64(n) > math.MaxInt32:
			m.problem = name + " is given " + strconv.Itoa(n) + " characters; the server's count is an int, at most 2147483647"
		}
	}
	switch {
	case len(padding) > 1:
		m.problem = name + " takes at most one padding character, and is given " + strconv.Itoa(len(padding))
	case len(padding) == 1:
		m.padding = padding[0]
		if p := paddingProblem(padding[0]); p != "" {
			m.problem = name + " is given the padding " + strconv.QuoteRune(padding[0]) + ": " + p
		}
	}
	return m
}

// paddingProblem says why the servers cannot pad with r, or "": the
// padding is one Java char, checked only when a value is masked ("The
// padding argument ... should be single-character"), and the server
// cannot read a quote back in the mask's stored form.
func paddingProblem(r rune) string {
	switch {
	case r == '\'':
		return "the server cannot read a single quote back from its schema (\"Failed parsing CQL term\")"
	case !utf8.ValidRune(r):
		return "it is not a Unicode character"
	case r > 0xFFFF:
		return "it is two UTF-16 units, and every read of the column fails (\"The padding argument ... should be single-character\"); use a character of the Basic Multilingual Plane"
	}
	return ""
}

// replacement reads MaskReplace's value into its class.
func replacement(v any) (maskValue, string) {
	switch x := v.(type) {
	case uuid.UUID:
		return maskValue{class: maskUUID, u: x}, ""
	case time.Time:
		if x.Nanosecond()%int(time.Millisecond) != 0 {
			return maskValue{}, "MaskReplace is given the time " + x.Format(time.RFC3339Nano) + ", and a timestamp holds whole milliseconds; truncate it (t.Truncate(time.Millisecond))"
		}
		if y := x.UTC().Year(); y < 1 || y > 9999 {
			return maskValue{}, "MaskReplace is given the time " + x.String() + ", outside the years 1 to 9999 a timestamp literal takes"
		}
		return maskValue{class: maskTimestamp, i: x.UnixMilli()}, ""
	case nil:
		return maskValue{}, "MaskReplace is given nil; to mask as null use MaskNull"
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		s := rv.String()
		switch {
		case !utf8.ValidString(s):
			return maskValue{}, "MaskReplace is given the string " + strconv.Quote(s) + ", which is not valid UTF-8"
		case strings.ContainsRune(s, '\''):
			return maskValue{}, "MaskReplace is given the string " + strconv.Quote(s) + ", with a single quote, which the server cannot read back from its schema (\"Failed parsing CQL term\")"
		}
		return maskValue{class: maskText, s: s}, ""
	case reflect.Bool:
		return maskValue{class: maskBoolean, b: rv.Bool()}, ""
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return maskValue{class: maskInteger, i: rv.Int()}, ""
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if rv.Uint() > math.MaxInt64 {
			return maskValue{}, "MaskReplace is given " + strconv.FormatUint(rv.Uint(), 10) + ", past the largest integer kandra compares (9223372036854775807)"
		}
		return maskValue{class: maskInteger, i: int64(rv.Uint())}, ""
	case reflect.Float32, reflect.Float64:
		f := rv.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return maskValue{}, "MaskReplace is given " + strconv.FormatFloat(f, 'g', -1, 64) + "; give a finite number (NaN equals no value, so the migrator could never see the mask in place)"
		}
		return maskValue{class: maskFloat, f: f, float32: rv.Kind() == reflect.Float32}, ""
	case reflect.Slice:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			return maskValue{class: maskBlob, s: string(rv.Bytes())}, ""
		}
	}
	return maskValue{}, "MaskReplace is given a " + reflect.TypeOf(v).String() + "; it takes a string, bool, integer, float, []byte, uuid.UUID or time.Time of the column's type (for a column of another type, use MaskDefault or MaskNull)"
}

// IsZero reports the zero Mask: no mask.
func (m Mask) IsZero() bool { return m == Mask{} }

// Function is the name of the mask's function, "mask_inner", or "" for
// the zero Mask.
func (m Mask) Function() string { return maskFuncNames[m.fn] }

// String renders the mask as CREATE TABLE writes it after MASKED WITH:
// its function and the arguments after the column's value,
// "mask_inner(1, 2, '#')", "mask_null()", "mask_replace('redacted')",
// "mask_hash('SHA-512')". The zero Mask renders "".
func (m Mask) String() string {
	if m.fn == maskNone {
		return ""
	}
	var args []string
	switch m.fn {
	case maskInnerFn, maskOuterFn:
		args = []string{strconv.FormatInt(m.begin, 10), strconv.FormatInt(m.end, 10)}
		if m.padding != 0 {
			args = append(args, quoteLiteral(string(m.padding)))
		}
	case maskHashFn:
		if m.algorithm != "" {
			args = []string{quoteLiteral(m.algorithm)}
		}
	case maskReplaceFn:
		args = []string{m.value.literal()}
	}
	return m.Function() + "(" + strings.Join(args, ", ") + ")"
}

// literal renders the value as a CQL literal.
func (v maskValue) literal() string {
	switch v.class {
	case maskText:
		return quoteLiteral(v.s)
	case maskInteger:
		return strconv.FormatInt(v.i, 10)
	case maskBoolean:
		return strconv.FormatBool(v.b)
	case maskFloat:
		bits := 64
		if v.float32 {
			bits = 32
		}
		return strconv.FormatFloat(v.f, 'g', -1, bits)
	case maskBlob:
		return "0x" + hex.EncodeToString([]byte(v.s))
	case maskUUID:
		return v.u.String()
	case maskTimestamp:
		return quoteLiteral(time.UnixMilli(v.i).UTC().Format("2006-01-02T15:04:05.000Z"))
	}
	return "?"
}

// Equal reports whether m and o mask values the same way: the same
// function with the same arguments, a padding or algorithm left out being
// the one the server uses ('*', SHA-256), an algorithm's name in any case.
// Two zero Masks are equal.
func (m Mask) Equal(o Mask) bool {
	if m.fn != o.fn || m.problem != "" || o.problem != "" {
		return m == o
	}
	switch m.fn {
	case maskInnerFn, maskOuterFn:
		return m.begin == o.begin && m.end == o.end && m.pad() == o.pad()
	case maskHashFn:
		return strings.EqualFold(m.hash(), o.hash())
	case maskReplaceFn:
		a, b := m.value, o.value
		a.float32, b.float32 = false, false
		return a == b
	}
	return true
}

func (m Mask) pad() rune {
	if m.padding == 0 {
		return defaultPadding
	}
	return m.padding
}

func (m Mask) hash() string {
	if m.algorithm == "" {
		return defaultHash
	}
	return m.algorithm
}

// Check reports whether Cassandra 5.0 takes m on a column of type t, and
// reads the column with it: nil, or an error saying why not (the zero
// Mask, a constructor's argument no server takes, a function the type
// does not take: mask_inner and mask_outer take text, mask_hash a blob,
// mask_replace a value of the column's type). Register makes the same
// check on a Masked field (RuleMask).
func (m Mask) Check(t CQLType) error {
	if p := m.typeProblem(t); p != "" {
		return errors.New(p)
	}
	return nil
}

func isText(t CQLType) bool {
	return t.Kind() == KindNative && (t.Name() == "TEXT" || t.Name() == "VARCHAR" || t.Name() == "ASCII")
}

// typeProblem is Check's reason, or "".
func (m Mask) typeProblem(t CQLType) string {
	switch {
	case m.fn == maskNone:
		return "the Mask is zero; build one with kandra.MaskNull, MaskDefault, MaskReplace, MaskInner, MaskOuter or MaskHash"
	case m.problem != "":
		return m.problem
	}
	switch m.fn {
	case maskInnerFn, maskOuterFn:
		if !isText(t) {
			return m.Function() + " masks text, and the column is " + t.brief() + " (\"Function system." + m.Function() + " requires an argument of type [text|varchar|ascii]\"); use MaskDefault, MaskNull or MaskReplace"
		}
		if t.Name() == "ASCII" && m.padding > 0x7F {
			return m.Function() + " pads the ASCII column with " + strconv.QuoteRune(m.padding) + ", which is not ASCII: the masked value would not be one; use an ASCII padding"
		}
	case maskHashFn:
		if t.Kind() != KindNative || t.Name() != "BLOB" {
			return "mask_hash returns a blob, and the column is " + t.brief() + ": the server takes a mask only of the column's own type (\"Masking function mask_hash() return type is blob. This is different to the type of the masked column\"); hash only a BLOB column, or use MaskDefault, MaskNull or MaskReplace"
		}
	case maskReplaceFn:
		return m.value.typeProblem(t)
	}
	return ""
}

// integerRanges are the integer types' ranges; a VARINT's is kandra's,
// an int64's.
var integerRanges = map[string][2]int64{"TINYINT": {math.MinInt8, math.MaxInt8}, "SMALLINT": {math.MinInt16, math.MaxInt16},
	"INT": {math.MinInt32, math.MaxInt32}, "BIGINT": {math.MinInt64, math.MaxInt64}, "VARINT": {math.MinInt64, math.MaxInt64}}

// typeProblem says why the replacement is not a value of type t, or "".
func (v maskValue) typeProblem(t CQLType) string {
	name := ""
	if t.Kind() == KindNative {
		name = t.Name()
	}
	what := "MaskReplace's " + v.literal()
	wrong := what + " is not a value of the column's type " + t.brief() + "; give a value of its type (see MaskReplace), or use MaskDefault or MaskNull"
	switch v.class {
	case maskText:
		switch name {
		case "TEXT", "VARCHAR":
		case "ASCII":
			for i := 0; i < len(v.s); i++ {
				if v.s[i] > 0x7F {
					return what + " is not ASCII, and the column is ASCII (\"Invalid ASCII character in string literal\")"
				}
			}
		default:
			return wrong
		}
	case maskInteger:
		r, ok := integerRanges[name]
		switch {
		case !ok:
			return wrong
		case v.i < r[0] || v.i > r[1]:
			return what + " is outside the range of the column's type " + t.brief() + " (" + strconv.FormatInt(r[0], 10) + " to " + strconv.FormatInt(r[1], 10) + ")"
		}
	case maskBoolean:
		if name != "BOOLEAN" {
			return wrong
		}
	case maskFloat:
		switch name {
		case "DOUBLE":
		case "FLOAT":
			if math.Abs(v.f) > math.MaxFloat32 {
				return what + " is past the largest FLOAT (3.4028235e+38)"
			}
		default:
			return wrong
		}
	case maskBlob:
		if name != "BLOB" {
			return wrong
		}
	case maskUUID:
		switch name {
		case "UUID":
		case "TIMEUUID":
			if v.u.Version() != 1 {
				return what + " is a version " + strconv.Itoa(int(v.u.Version())) + " UUID, and the column is TIMEUUID (\"TimeUUID supports only version 1 UUIDs\")"
			}
		default:
			return wrong
		}
	case maskTimestamp:
		if name != "TIMESTAMP" {
			return wrong
		}
	default:
		return wrong
	}
	return ""
}

// forType is m as a column of type t stores it: a float replacement of a
// FLOAT column rounded to float32, as the server rounds it.
func (m Mask) forType(t CQLType) Mask {
	if m.fn == maskReplaceFn && m.value.class == maskFloat && t.Kind() == KindNative && t.Name() == "FLOAT" {
		m.value.f, m.value.float32 = float64(float32(m.value.f)), true
	}
	return m
}

// Masked gives the column mask m (Cassandra 5.0 only, see Mask): CREATE
// TABLE declares the column MASKED WITH m, and the migrator adds,
// changes or drops a live column's mask to match. Register refuses a
// mask the column's type does not take, and a mask on a column the
// runtime filters by or reads back to decide (a key column, a lookup's
// or an index's column, the Version column, the soft-delete marker): a
// role without the UNMASK permission would be refused its WHERE clauses
// or read the masked value (RuleMask). NewKeyspace refuses a mask when a
// target has none (RuleMaskTarget).
func Masked(m Mask) FieldOption {
	return fieldOption{"Masked", func(s *fieldSpec) {
		switch {
		case m.IsZero():
			s.conflicts = append(s.conflicts, "Masked is given the zero Mask; build one with kandra.MaskNull, MaskDefault, MaskReplace, MaskInner, MaskOuter or MaskHash")
			return
		case s.hasMask && s.mask != m:
			s.conflicts = append(s.conflicts, "Masked is given twice, with "+s.mask.String()+" and "+m.String()+"; a column has one mask")
		}
		s.mask, s.hasMask = m, true
	}}
}

// Mask returns the column's mask and true, or the zero Mask and false for
// a column without one. A float replacement of a FLOAT column is rounded
// to float32, as the server stores it.
func (c *ColumnSchema) Mask() (Mask, bool) { return c.mask, c.hasMask }

// checkMasks is RuleMask: a mask the column's type takes, on a column the
// runtime neither filters by nor reads back to decide.
func (b *builder) checkMasks() error {
	return b.each(func(c *ColumnSchema, s *fieldSpec) error {
		if !c.hasMask {
			return nil
		}
		var why string
		switch {
		case c.role != RegularColumn:
			why = "a " + c.role.String() + ": every read by the key filters by it, which a role without the UNMASK or SELECT_MASKED permission is refused, and Get would return the masked key"
		case len(s.lookups) > 0:
			why = "the column of a lookup: Find checks that the row still holds the value it found it by, and reads the masked value"
		case c.index:
			why = "indexed: a read through the index filters by it, which a role without the UNMASK or SELECT_MASKED permission is refused"
		case c.version:
			why = "the Version column: a write checks the version it read, and would read the masked one"
		case c.softDeleteMarker:
			why = "the soft-delete marker: reads would see the masked marker, and a deleted row live"
		}
		if why != "" {
			return b.fail(c.goName, RuleMask, "the column is masked with "+c.mask.String()+", and it is "+why+"; mask another column, or drop Masked")
		}
		if p := c.mask.typeProblem(c.typ); p != "" {
			return b.fail(c.goName, RuleMask, p)
		}
		c.mask = c.mask.forType(c.typ)
		return nil
	})
}

// checkMaskTargets is RuleMaskTarget: a target without masks takes no
// Masked column.
func (k *keyspaceBuilder) checkMaskTargets() error {
	for _, t := range k.tables {
		for _, c := range t.columns {
			if c.hasMask {
				return k.fail(RuleMaskTarget, t.entity.String()+"."+c.goName+" is masked with "+c.mask.String()+", and the keyspace targets "+(k.targets&scyllaTargets).String()+
					", which has no column masks (ScyllaDB has no dynamic data masking, scylladb/scylladb#24277); target Cassandra only (Targets: kandra.Cassandra5 | kandra.Cassandra5Latest), or drop Masked")
			}
		}
	}
	return nil
}
