package cqlstmt

import (
	"errors"
	"strconv"
	"strings"
)

// TokenKind is the kind of a Token.
type TokenKind uint8

const (
	Word   TokenKind = iota // a keyword or an unquoted identifier
	Quoted                  // a quoted identifier, "Name"
	String                  // a string literal, 'x' or $$x$$
	Number                  // a numeric literal (or a UUID, a blob)
	Marker                  // a positional bind marker, ?
	Named                   // a named bind marker, :name
	Symbol                  // anything else, one character
)

// Token is one token of a CQL statement: Text is its source text (the
// name unquoted for a Quoted token), Pos its byte offset.
type Token struct {
	Kind TokenKind
	Text string
	Pos  int
	End  int
}

// Tokens splits stmt into tokens, skipping spaces and comments (--, //,
// /* */). An unterminated string, quoted identifier or comment is an
// error naming its offset.
func Tokens(stmt string) ([]Token, error) {
	var out []Token
	i := 0
	for i < len(stmt) {
		c := stmt[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case strings.HasPrefix(stmt[i:], "--") || strings.HasPrefix(stmt[i:], "//"):
			for i < len(stmt) && stmt[i] != '\n' {
				i++
			}
		case strings.HasPrefix(stmt[i:], "/*"):
			end := strings.Index(stmt[i+2:], "*/")
			if end < 0 {
				return nil, errors.New("unterminated comment at offset " + strconv.Itoa(i))
			}
			i += 2 + end + 2
		case c == '\'' || c == '"':
			var b strings.Builder
			j := i + 1
			for {
				if j >= len(stmt) {
					return nil, errors.New("unterminated " + map[byte]string{'\'': "string", '"': "quoted identifier"}[c] + " at offset " + strconv.Itoa(i))
				}
				if stmt[j] == c {
					if j+1 < len(stmt) && stmt[j+1] == c { // doubled: an escaped quote
						b.WriteByte(c)
						j += 2
						continue
					}
					break
				}
				b.WriteByte(stmt[j])
				j++
			}
			kind := String
			if c == '"' {
				kind = Quoted
			}
			out = append(out, Token{Kind: kind, Text: b.String(), Pos: i, End: j + 1})
			i = j + 1
		case strings.HasPrefix(stmt[i:], "$$"):
			end := strings.Index(stmt[i+2:], "$$")
			if end < 0 {
				return nil, errors.New("unterminated string at offset " + strconv.Itoa(i))
			}
			out = append(out, Token{Kind: String, Text: stmt[i+2 : i+2+end], Pos: i, End: i + 2 + end + 2})
			i += 2 + end + 2
		case c == '?':
			out = append(out, Token{Kind: Marker, Text: "?", Pos: i, End: i + 1})
			i++
		case c == ':' && i+1 < len(stmt) && isNameStart(stmt[i+1]) && !afterValue(out): // :name; {'a':1} and {'b':true} are map literals
			j := i + 1
			for j < len(stmt) && isWordByte(stmt[j]) {
				j++
			}
			out = append(out, Token{Kind: Named, Text: stmt[i:j], Pos: i, End: j})
			i = j
		case isWordByte(c):
			j := i
			// A number may hold '-' (a UUID literal), never "--", a comment.
			for j < len(stmt) && (isWordByte(stmt[j]) || stmt[j] == '-' && c >= '0' && c <= '9' && !strings.HasPrefix(stmt[j:], "--")) {
				j++
			}
			kind := Word
			if c >= '0' && c <= '9' {
				kind = Number
			}
			out = append(out, Token{Kind: kind, Text: stmt[i:j], Pos: i, End: j})
			i = j
		default:
			out = append(out, Token{Kind: Symbol, Text: stmt[i : i+1], Pos: i, End: i + 1})
			i++
		}
	}
	return out, nil
}

// afterValue reports whether the last token ends a value, after which a
// colon separates a map literal's key from its value.
func afterValue(toks []Token) bool {
	if len(toks) == 0 {
		return false
	}
	t := toks[len(toks)-1]
	return t.Kind == String || t.Kind == Number || t.Kind == Quoted || t.Kind == Symbol && (t.Text == "}" || t.Text == "]" || t.Text == ")")
}

func isNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// HasIF reports a statement whose tokens hold the word IF outside strings,
// quoted names and comments: for an INSERT, UPDATE or DELETE, a
// lightweight transaction.
func HasIF(stmt string) bool {
	toks, err := Tokens(stmt)
	if err != nil || len(toks) == 0 || !(toks[0].Is("INSERT") || toks[0].Is("UPDATE") || toks[0].Is("DELETE")) {
		return false
	}
	for _, t := range toks {
		if t.Is("IF") {
			return true
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// Is reports whether t is the keyword w (in any case).
func (t Token) Is(w string) bool { return t.Kind == Word && strings.EqualFold(t.Text, w) }

// Ident is t as the column or table name it denotes: a Word folded to
// lower case (CQL folds unquoted names), a Quoted token as written; ""
// for another kind.
func (t Token) Ident() string {
	switch t.Kind {
	case Word:
		return strings.ToLower(t.Text)
	case Quoted:
		return t.Text
	}
	return ""
}
