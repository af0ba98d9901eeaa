package migrate

// The Go names GenerateEntities gives CQL names: exported identifiers
// that kandra.SnakeCase reads back as the CQL name wherever it can, and
// a kandra.Column (or a `kandra:"name"` tag) where it cannot.

import (
	gotoken "go/token"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kandra-go/kandra"
)

// maxGoNameRunes bounds a derived Go name: a longer CQL name (up to 1024
// bytes) is cut, and given with kandra.Column.
const maxGoNameRunes = 64

// goInitialisms are the words a Go name spells in capitals and
// kandra.SnakeCase reads back as one word (UserID is user_id).
var goInitialisms = map[string]string{
	"id": "ID", "ids": "IDs", "url": "URL", "urls": "URLs", "uri": "URI", "api": "API", "apis": "APIs",
	"http": "HTTP", "https": "HTTPS", "json": "JSON", "xml": "XML", "sql": "SQL", "ip": "IP", "ips": "IPs",
	"uuid": "UUID", "uuids": "UUIDs", "ttl": "TTL", "cpu": "CPU", "html": "HTML", "tcp": "TCP", "udp": "UDP",
	"dns": "DNS", "ssh": "SSH", "tls": "TLS", "utc": "UTC", "uid": "UID", "sku": "SKU", "vm": "VM",
}

// goNameOf derives an exported Go identifier from the CQL name name, and
// reports whether kandra.SnakeCase reads it back as name. Words are split
// at underscores and at every character a Go identifier cannot hold;
// each word starts with a capital, and the known initialisms are
// capitalised whole (user_id is UserID, unless that does not read back,
// as id_url, which is IdUrl). A name that starts with no capital letter
// once so written (a digit, a letter without case) is prefixed with X.
func goNameOf(name string) (ident string, exact bool) {
	words := splitWords(name)
	withInit, plain := camel(words, true), camel(words, false)
	for _, c := range []string{withInit, plain} {
		if kandra.SnakeCase(c) == name {
			return c, true
		}
	}
	return withInit, false
}

// splitWords splits name at the characters a Go identifier cannot hold
// and at underscores.
func splitWords(name string) []string {
	return strings.FieldsFunc(name, func(r rune) bool {
		return r == '_' || r == utf8.RuneError || !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// camel joins words into an exported identifier of at most
// maxGoNameRunes runes.
func camel(words []string, initialisms bool) string {
	var b strings.Builder
	for _, w := range words {
		if up, ok := goInitialisms[w]; ok && initialisms {
			b.WriteString(up)
			continue
		}
		r, n := utf8.DecodeRuneInString(w)
		b.WriteRune(unicode.ToUpper(r))
		b.WriteString(w[n:])
	}
	s := b.String()
	if r, _ := utf8.DecodeRuneInString(s); s == "" || !unicode.IsUpper(r) {
		s = "X" + s
	}
	if utf8.RuneCountInString(s) > maxGoNameRunes {
		s = string([]rune(s)[:maxGoNameRunes])
	}
	return s
}

// namer hands out unique Go identifiers in one scope (the package's
// types and functions, or one struct's fields), in the order asked:
// the first to derive a name gets it, the next ones get it with 2, 3, ...
// appended. The same calls in the same order give the same names.
type namer struct{ taken map[string]bool }

// newNamer is a namer whose scope already holds reserved (a method's
// name, a declared function).
func newNamer(reserved ...string) *namer {
	n := &namer{taken: map[string]bool{}}
	for _, r := range reserved {
		n.taken[r] = true
	}
	return n
}

// name returns a unique exported identifier for the CQL name cql, and
// whether kandra.SnakeCase reads it back as cql (otherwise the CQL name
// must be given: kandra.Column, a `kandra:"..."` tag or UDTName).
func (n *namer) name(cql string) (ident string, exact bool) {
	base, exact := goNameOf(cql)
	ident = base
	for i := 2; n.taken[ident] || !gotoken.IsIdentifier(ident); i++ {
		suffix := strconv.Itoa(i)
		r := []rune(base)
		if len(r)+len(suffix) > maxGoNameRunes {
			r = r[:maxGoNameRunes-len(suffix)]
		}
		ident = string(r) + suffix
		exact = false
	}
	n.taken[ident] = true
	return ident, exact && kandra.SnakeCase(ident) == cql
}

// take reserves ident as it is and reports whether it was free.
func (n *namer) take(ident string) bool {
	if n.taken[ident] {
		return false
	}
	n.taken[ident] = true
	return true
}
