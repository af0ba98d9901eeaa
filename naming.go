package kandra

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SnakeCase derives a CQL column name from a Go field name. It knows Go's
// initialisms, so UserID becomes user_id, HTTPServer http_server, UserIDs
// user_ids, IPv4Addr ipv4_addr and OAuth2Token oauth2_token (the Kotlin
// library's rule gives user_i_d). Digits stay with the word before them.
// Only case changes and underscores are introduced: removing the
// underscores from the result gives the lower-cased input without its own
// underscores.
func SnakeCase(name string) string {
	var b strings.Builder
	b.Grow(len(name) + 4)
	var buf [64]rune // field names fit: no allocation for the runes
	rs := append(buf[:0], []rune(name)...)
	wordStart := true // at the start of a word: no separator needed
	runEnd := 0       // end of the current upper-case run
	for i := 0; i < len(rs); {
		// Mixed-case initialisms that the generic rule would split.
		if n := mixedInitialism(rs[i:]); n > 0 && (wordStart || boundaryBefore(rs, i)) {
			if !wordStart {
				b.WriteByte('_')
			}
			writeLower(&b, rs[i:i+n])
			i += n
			wordStart = false
			continue
		}
		r := rs[i]
		if r == '_' {
			b.WriteByte('_')
			wordStart = true
			i++
			continue
		}
		if unicode.IsUpper(r) {
			// An upper-case run followed by a plural "s" and a boundary is
			// one word: IDs, URLs, APIs.
			if !wordStart && boundaryBefore(rs, i) {
				b.WriteByte('_')
			}
			if runEnd <= i { // scan each upper-case run once, not once per capital
				runEnd = i
				for runEnd < len(rs) && unicode.IsUpper(rs[runEnd]) {
					runEnd++
				}
			}
			j := runEnd
			if j-i >= 2 && j < len(rs) && rs[j] == 's' && (j+1 == len(rs) || !unicode.IsLower(rs[j+1])) {
				writeLower(&b, rs[i:j+1])
				i = j + 1
				wordStart = false
				continue
			}
		}
		b.WriteRune(unicode.ToLower(r))
		wordStart = false
		i++
	}
	return b.String()
}

// boundaryBefore reports whether a new word starts at rs[i], which is an
// upper-case letter: after a lower-case letter or digit, or at the last
// capital of an upper-case run that a lower-case letter follows (the S of
// HTTPServer).
func boundaryBefore(rs []rune, i int) bool {
	if i == 0 {
		return false
	}
	prev := rs[i-1]
	if prev == '_' {
		return false
	}
	if unicode.IsLower(prev) || unicode.IsDigit(prev) {
		return true
	}
	return unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
}

// mixedInitialisms are initialisms whose own case pattern the generic rule
// would split (I_pv4, O_auth). They match only when a word boundary follows.
var mixedInitialisms = []string{"OAuth", "IPv4", "IPv6"}

func mixedInitialism(rs []rune) int {
	for _, m := range mixedInitialisms {
		n := len(m)
		if len(rs) < n || !hasPrefixRunes(rs, m) {
			continue
		}
		if len(rs) == n || !unicode.IsLower(rs[n]) {
			return n
		}
	}
	return 0
}

// hasPrefixRunes reports whether rs starts with the ASCII string m, without
// converting rs to a string (SnakeCase runs this at every position).
func hasPrefixRunes(rs []rune, m string) bool {
	for i := 0; i < len(m); i++ {
		if rs[i] != rune(m[i]) {
			return false
		}
	}
	return true
}

func writeLower(b *strings.Builder, rs []rune) {
	for _, r := range rs {
		b.WriteRune(unicode.ToLower(r))
	}
}

// reservedWords is the union of the words Cassandra (4.1, 5.0) and ScyllaDB
// (5.2 to 2026.x) reserve, plus true and false, which lex as literals. A name
// in this set must be quoted to be used as an identifier. Source:
// shared/notes/cql-server-rules.md §2, computed from the servers' grammars.
var reservedWords = func() map[string]struct{} {
	words := strings.Fields(`add allow alter and ann apply asc authorize batch begin by cast
		columnfamily concurrency create default delete desc describe drop entries execute
		from full grant if in index infinity insert into is keyspace limit materialized
		modify nan norecursive not null of on or order primary rename replace revoke schema
		scylla_clustering_bound scylla_counter_shard_list scylla_timeuuid_list_index select
		set similarity_cosine similarity_dot_product similarity_euclidean table
		text_search_indexing to token truncate unlogged unset update use using
		vector_search_indexing view where with true false`)
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}()

// IsReserved reports whether name, compared case-insensitively, is a word
// that Cassandra or ScyllaDB reserves (or true/false), so that it cannot be
// written as a bare identifier.
func IsReserved(name string) bool {
	_, ok := reservedWords[strings.ToLower(name)]
	return ok
}

// QuoteIdent writes a non-empty name as a CQL identifier that every
// supported server reads back as exactly name. (No identifier is empty:
// Register rejects empty names before any DDL is written.) It is bare only when name matches
// ^[a-z][a-z0-9_]*$ and is not reserved; otherwise it is wrapped in double
// quotes with each embedded double quote doubled, which preserves case and
// any character. Every identifier kandra writes into DDL goes through here.
func QuoteIdent(name string) string {
	if isBareIdent(name) && !IsReserved(name) {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

func isBareIdent(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// MaxNameLength is the longest keyspace, table or index name kandra
// accepts: ScyllaDB up to 2025.1 and Cassandra's keyspaces stop at 48
// characters, so 48 is the portable limit.
const MaxNameLength = 48

// nameProblem says why s cannot be a keyspace, table or index name, or ""
// when it can. Both servers check ^\w+$ (ASCII) on the final name even when
// it is quoted.
func nameProblem(s string) string {
	switch {
	case s == "":
		return "is empty"
	case len(s) > MaxNameLength:
		return "is " + strconv.Itoa(len(s)) + " characters long; the limit is " + strconv.Itoa(MaxNameLength)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			r, _ := utf8.DecodeRuneInString(s[i:])
			return "contains " + strconv.QuoteRune(r) + "; only ASCII letters, digits and _ are allowed"
		}
	}
	return ""
}

// ValidateName checks a keyspace, table or index name against the rule both
// servers enforce: 1 to 48 ASCII letters, digits or underscores.
func ValidateName(name string) error {
	if p := nameProblem(name); p != "" {
		return &NameError{Name: name, Problem: p}
	}
	return nil
}

// NameError reports a keyspace, table or index name that servers reject.
type NameError struct {
	Name    string
	Problem string
}

func (e *NameError) Error() string {
	return "kandra: name " + strconv.Quote(e.Name) + " " + e.Problem
}
