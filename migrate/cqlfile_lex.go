package migrate

// The lexer of ParseSchemaFile: a .cql file as tokens, split into
// statements at each semicolon outside strings and comments.

import (
	"strconv"
	"strings"
)

// tokKind is the kind of a token of a .cql file.
type tokKind uint8

const (
	tWord   tokKind = iota + 1 // an unquoted identifier or keyword, as written
	tQuoted                    // a "quoted identifier", its text unescaped
	tString                    // a 'string' or $$string$$, its text unescaped
	tNumber                    // a constant that starts with a digit (or -digit): 12, -1.5e3, 0xCAFE, a UUID
	tPunct                     // one character of ( ) { } [ ] < > , . ; = : + - * ? !
)

// token is one token: its text, the line it starts on (from 1) and the
// byte range of the source it covers.
type cqlToken struct {
	kind     tokKind
	text     string
	line     int
	off, end int
}

// is reports whether t is the keyword word (case-insensitive).
func (t cqlToken) is(word string) bool { return t.kind == tWord && strings.EqualFold(t.text, word) }

// isPunct reports whether t is the punctuation c.
func (t cqlToken) isPunct(c string) bool { return t.kind == tPunct && t.text == c }

// describe writes t for a message: 'WITH', '(', the string 'abc'.
func (t cqlToken) describe() string {
	switch t.kind {
	case tQuoted:
		return "the quoted name " + strconv.Quote(short(t.text))
	case tString:
		return "the string " + strconv.Quote(short(t.text))
	}
	return strconv.Quote(short(t.text))
}

// short cuts s for a message, so that hostile input does not flood it.
func short(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// lexError is a file the lexer cannot read: where and why.
type lexError struct {
	line    int
	problem string
}

// cqlLex reads src into tokens. Comments (--, // to the end of the line,
// /* to */, not nested, as both servers' lexers read them) and white
// space go; a string, a quoted name or a comment left open, or a byte no
// CQL token starts with, is an error naming its line.
func cqlLex(src []byte) ([]cqlToken, *lexError) {
	s := string(src)
	s = strings.TrimPrefix(s, "\ufeff") // a byte order mark some editors write
	base := len(src) - len(s)
	var out []cqlToken
	line := 1
	i := 0
	fail := func(problem string) ([]cqlToken, *lexError) { return nil, &lexError{line: line, problem: problem} }
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-', c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return fail("a /* comment is never closed with */")
			}
			line += strings.Count(s[i:i+2+end+2], "\n")
			i += 2 + end + 2
		case c == '\'', c == '"':
			start, startLine := i, line
			text, next, lines, ok := unquote(s, i, c)
			if !ok {
				if c == '"' {
					return fail("a name quoted with \" is never closed")
				}
				return fail("a string opened with ' is never closed")
			}
			kind := tString
			if c == '"' {
				if text == "" {
					return fail("an empty quoted name \"\", which no server takes as a name")
				}
				kind = tQuoted
			}
			line, i = line+lines, next
			out = append(out, cqlToken{kind: kind, text: text, line: startLine, off: base + start, end: base + i})
		case c == '$' && i+1 < len(s) && s[i+1] == '$':
			end := strings.Index(s[i+2:], "$$")
			if end < 0 {
				return fail("a string opened with $$ is never closed")
			}
			body := s[i+2 : i+2+end]
			out = append(out, cqlToken{kind: tString, text: body, line: line, off: base + i, end: base + i + 2 + end + 2})
			line += strings.Count(body, "\n")
			i += 2 + end + 2
		case isCQLLetter(c) && isUUIDAt(s, i):
			// A UUID that starts with a letter: a constant, not a word.
			out = append(out, cqlToken{kind: tNumber, text: s[i : i+36], line: line, off: base + i, end: base + i + 36})
			i += 36
		case isCQLLetter(c):
			start := i
			for i < len(s) && (isCQLLetter(s[i]) || isDigit(s[i]) || s[i] == '_') {
				i++
			}
			out = append(out, cqlToken{kind: tWord, text: s[start:i], line: line, off: base + start, end: base + i})
		case isDigit(c), c == '-' && i+1 < len(s) && (isDigit(s[i+1]) || s[i+1] == '.'), c == '.' && i+1 < len(s) && isDigit(s[i+1]):
			// A number, a blob, a UUID or a duration: CQL constants that
			// start with a digit (or a minus); read up to what cannot be
			// in one.
			start := i
			i++
			for i < len(s) {
				d := s[i]
				switch {
				case isDigit(d), isCQLLetter(d), d == '_', d == '.':
					i++
				case (d == '-' || d == '+') && i+1 < len(s) && (isDigit(s[i+1]) || isCQLLetter(s[i+1])):
					i++
				default:
					goto done
				}
			}
		done:
			out = append(out, cqlToken{kind: tNumber, text: s[start:i], line: line, off: base + start, end: base + i})
		case strings.IndexByte("(){}[]<>,.;=:+-*?!", c) >= 0:
			out = append(out, cqlToken{kind: tPunct, text: s[i : i+1], line: line, off: base + i, end: base + i + 1})
			i++
		default:
			return fail("the byte " + quoteByte(c) + " starts no CQL token (names outside double quotes are ASCII letters, digits and _)")
		}
	}
	return out, nil
}

// unquote reads what s quotes with q from i, where the opening q is (a
// string with ', a name with "; a doubled q stands for one): the text,
// the index past the closing q, and the newlines in between; ok is false
// when no q closes it.
func unquote(s string, i int, q byte) (text string, next, lines int, ok bool) {
	var b strings.Builder
	for i++; i < len(s); i++ {
		switch {
		case s[i] != q:
			if s[i] == '\n' {
				lines++
			}
			b.WriteByte(s[i])
		case i+1 < len(s) && s[i+1] == q:
			b.WriteByte(q)
			i++
		default:
			return b.String(), i + 1, lines, true
		}
	}
	return "", i, lines, false
}

// isUUIDAt reports whether s holds a UUID at i (8-4-4-4-12 hex digits)
// that no name character follows.
func isUUIDAt(s string, i int) bool {
	if len(s)-i < 36 {
		return false
	}
	for j := range 36 {
		c := s[i+j]
		switch j {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !isDigit(c) && !('a' <= c && c <= 'f') && !('A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return len(s) == i+36 || !isCQLLetter(s[i+36]) && !isDigit(s[i+36]) && s[i+36] != '_'
}

func isCQLLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool     { return '0' <= c && c <= '9' }

// quoteByte writes c for a message.
func quoteByte(c byte) string {
	if c < 0x80 && c >= 0x20 {
		return strconv.QuoteRune(rune(c))
	}
	return "0x" + strconv.FormatUint(uint64(c), 16)
}

// statement is one statement of the file: its tokens without the
// semicolon, and its text for messages.
type statement struct {
	toks []cqlToken
	line int
	text string // the source of the statement, on one line, cut for messages
}

// splitStatements cuts the tokens at each semicolon; a statement with no
// token (";;") is none.
func splitStatements(src []byte, toks []cqlToken) []statement {
	var out []statement
	start := 0
	flush := func(end int) {
		if end > start {
			ts := toks[start:end]
			text := oneLine(string(src[ts[0].off:ts[len(ts)-1].end]))
			if len(text) > 80 {
				text = text[:77] + "..."
			}
			out = append(out, statement{toks: ts, line: ts[0].line, text: text})
		}
		start = end + 1
	}
	for i, t := range toks {
		if t.isPunct(";") {
			flush(i)
		}
	}
	flush(len(toks))
	return out
}
