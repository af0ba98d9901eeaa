package kandra

import (
	"strconv"
	"strings"

	"github.com/kandra-go/kandra/kerrors"
)

// maxCQLTypeDepth caps the type levels ParseCQLType follows (collections
// and vectors). FROZEN<> is no level of its own: CQLType.String writes one
// around every inner collection, so a type of n levels prints with up to
// 2n+1 brackets and must read back. The parser recurses once per bracket,
// and the brackets are capped too (maxCQLTypeBrackets), so that a hostile
// type string cannot exhaust the stack. Servers nest far less.
const (
	maxCQLTypeDepth    = 64
	maxCQLTypeBrackets = 2*maxCQLTypeDepth + 1
)

// CQLTypeError reports a type string ParseCQLType cannot read.
type CQLTypeError struct {
	// Input is the whole string given to ParseCQLType.
	Input string
	// Offset is the byte offset in Input where reading failed.
	Offset int
	// Problem says what was expected or is not supported.
	Problem string
}

// Error renders `kandra: CQL type "map<text": offset 8: expected ','`. An
// Input over 128 bytes is shortened, so that hostile input does not flood
// a log; the Input field keeps all of it.
func (e *CQLTypeError) Error() string {
	in := e.Input
	if len(in) > 128 {
		in = in[:128] + "..."
	}
	return "kandra: CQL type " + strconv.Quote(in) + ": offset " + strconv.Itoa(e.Offset) + ": " + e.Problem
}

// Is makes a CQLTypeError match kerrors.ErrKandra and kerrors.ErrSchema: a
// type that cannot be read is a schema problem.
func (e *CQLTypeError) Is(target error) bool {
	return target == kerrors.ErrKandra || target == kerrors.ErrSchema
}

// cqlNatives maps lower-case names to the natives ParseCQLType returns.
var cqlNatives = map[string]CQLType{
	"ascii": CQLAscii, "bigint": CQLBigint, "blob": CQLBlob, "boolean": CQLBoolean,
	"counter": cqlCounter, "date": CQLDate, "decimal": CQLDecimal, "double": CQLDouble,
	"duration": CQLDuration, "float": CQLFloat, "inet": CQLInet, "int": CQLInt,
	"smallint": CQLSmallint, "text": CQLText, "time": CQLTime, "timestamp": CQLTimestamp,
	"timeuuid": CQLTimeUUID, "tinyint": CQLTinyint, "uuid": CQLUUID, "varchar": CQLVarchar,
	"varint": CQLVarint,
}

// ParseCQLType reads a CQL type as servers write it in
// system_schema.columns.type ("frozen<map<text, frozen<list<int>>>>") and
// as CQLType.String and CQLType.Frozen render it ("MAP<TEXT,
// FROZEN<LIST<INT>>>"), so that the migration planner can compare type
// trees with CQLType.Equal rather than strings.
//
// Names are case-insensitive and whitespace between tokens is optional.
// FROZEN<...> is accepted anywhere and dropped, as freezing is not part of
// a CQLType. The natives are kandra's CQL* values and COUNTER. VARCHAR
// reads as CQLVarchar, not CQLText, though a server reports a column
// declared VARCHAR as text. The result is what the string says: it is not
// checked against what a server accepts (SET<DURATION> parses).
//
// Any other name is a user-defined type, read as a reference without its
// fields (UDTOf(name)): system_schema.columns names a column's type and
// system_schema.types holds its fields. An unquoted name is folded to
// lower case, as servers fold it; a quoted one ("MyType") is kept as it
// is. Tuples and custom types are not supported yet. Any failure is a
// *CQLTypeError.
func ParseCQLType(s string) (CQLType, error) {
	p := cqlParser{in: s}
	t := p.typ(0, 0)
	if p.err == nil {
		if p.skipSpace(); p.pos < len(s) {
			p.fail("unexpected " + quoteByte(s[p.pos]) + " after the type")
		}
	}
	if p.err != nil {
		return CQLType{}, p.err
	}
	return t, nil
}

// cqlParser is a recursive-descent reader that looks at each byte once,
// so parsing is linear in the input. After the first error every step
// returns at once.
type cqlParser struct {
	in  string
	pos int
	err *CQLTypeError
}

func (p *cqlParser) fail(problem string) {
	if p.err == nil {
		p.err = &CQLTypeError{Input: p.in, Offset: p.pos, Problem: problem}
	}
}

func (p *cqlParser) skipSpace() {
	for p.pos < len(p.in) {
		switch p.in[p.pos] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			p.pos++
		default:
			return
		}
	}
}

// expect consumes c, after optional whitespace, or fails.
func (p *cqlParser) expect(c byte) bool {
	if p.err != nil {
		return false
	}
	p.skipSpace()
	if p.pos < len(p.in) && p.in[p.pos] == c {
		p.pos++
		return true
	}
	p.fail("expected " + quoteByte(c))
	return false
}

// typ reads one type nested depth levels and brackets brackets deep.
func (p *cqlParser) typ(depth, brackets int) CQLType {
	if p.err != nil {
		return CQLType{}
	}
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.in) && isCQLWordByte(p.in[p.pos], p.pos == start) {
		p.pos++
	}
	if p.pos == start {
		switch {
		case p.pos == len(p.in):
			p.fail("expected a type name")
		case p.in[p.pos] == '"':
			return p.quotedUDT()
		case p.in[p.pos] == '\'':
			p.fail("custom types are not supported yet")
		default:
			p.fail("expected a type name, found " + quoteByte(p.in[p.pos]))
		}
		return CQLType{}
	}
	word := p.in[start:p.pos]
	name := ""
	if len(word) <= len("timestamp") { // no longer name is known: don't copy hostile words
		name = strings.ToLower(word)
	}
	kind := KindInvalid // stays so for frozen
	switch name {
	case "frozen":
	case "list":
		kind = KindList
	case "set":
		kind = KindSet
	case "map":
		kind = KindMap
	case "vector":
		kind = KindVector
	case "tuple":
		p.pos = start
		p.fail(name + " types are not supported yet")
		return CQLType{}
	default:
		t, ok := cqlNatives[name]
		if !ok {
			// A user-defined type, by name: unquoted, the server folds it
			// to lower case.
			if len(word) > MaxNameLength {
				p.pos = start
				p.fail("a user-defined type name is at most " + strconv.Itoa(MaxNameLength) + " characters")
				return CQLType{}
			}
			if _, reserved := reservedTypeNames[strings.ToLower(word)]; reserved {
				p.pos = start
				p.fail(strconv.Quote(word) + " is a reserved type name, not a user-defined type")
				return CQLType{}
			}
			if p.skipSpace(); p.pos < len(p.in) && p.in[p.pos] == '<' {
				p.fail("the user-defined type " + strings.ToLower(word) + " takes no type parameters")
			}
			return UDTOf(strings.ToLower(word))
		}
		if p.skipSpace(); p.pos < len(p.in) && p.in[p.pos] == '<' {
			p.fail(t.n.name + " takes no type parameters")
		}
		return t
	}
	if brackets >= maxCQLTypeBrackets || kind != KindInvalid && depth >= maxCQLTypeDepth {
		p.pos = start
		p.fail("nested more than " + strconv.Itoa(maxCQLTypeDepth) + " levels deep")
		return CQLType{}
	}
	if !p.expect('<') {
		return CQLType{}
	}
	var t CQLType
	switch kind {
	case KindInvalid: // frozen<t> is t, at t's level
		t = p.typ(depth, brackets+1)
	case KindList:
		t = ListOf(p.typ(depth+1, brackets+1))
	case KindSet:
		t = SetOf(p.typ(depth+1, brackets+1))
	case KindMap:
		k := p.typ(depth+1, brackets+1)
		p.expect(',')
		t = MapOf(k, p.typ(depth+1, brackets+1))
	case KindVector:
		e := p.typ(depth+1, brackets+1)
		p.expect(',')
		t = VectorOf(e, p.dimension())
	}
	if !p.expect('>') {
		return CQLType{}
	}
	return t
}

// quotedUDT reads a quoted user-defined type name, "" standing for one
// double quote inside it.
func (p *cqlParser) quotedUDT() CQLType {
	start := p.pos
	p.pos++ // the opening quote
	var b strings.Builder
	for p.pos < len(p.in) {
		c := p.in[p.pos]
		p.pos++
		if c != '"' {
			b.WriteByte(c)
			continue
		}
		if p.pos < len(p.in) && p.in[p.pos] == '"' {
			b.WriteByte('"')
			p.pos++
			continue
		}
		if name := b.String(); name != "" && len(name) <= MaxNameLength {
			return UDTOf(name)
		}
		p.pos = start
		p.fail("a quoted user-defined type name is 1 to " + strconv.Itoa(MaxNameLength) + " characters")
		return CQLType{}
	}
	p.pos = start
	p.fail("unterminated quoted name")
	return CQLType{}
}

// dimension reads a vector's dimension: decimal digits, at most 9 (no
// server takes more than a few thousand).
func (p *cqlParser) dimension() int {
	if p.err != nil {
		return 0
	}
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.in) && '0' <= p.in[p.pos] && p.in[p.pos] <= '9' {
		p.pos++
	}
	if p.pos == start || p.pos-start > 9 {
		p.pos = start
		p.fail("expected a vector dimension of 1 to 9 digits")
		return 0
	}
	n, _ := strconv.Atoi(p.in[start:p.pos])
	return n
}

// isCQLWordByte reports whether c can be in an unquoted CQL name; a name
// does not start with a digit.
func isCQLWordByte(c byte, first bool) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', c == '_':
		return true
	case '0' <= c && c <= '9':
		return !first
	}
	return false
}

func quoteByte(c byte) string {
	if c < 0x80 {
		return strconv.QuoteRune(rune(c))
	}
	return "byte 0x" + strconv.FormatUint(uint64(c), 16)
}
