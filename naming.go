package kandra

import (
	"strings"
	"unicode"
)

// SnakeCase derives a CQL column name from a Go field name. It knows Go's
// initialisms, so UserID becomes user_id, HTTPServer http_server, UserIDs
// user_ids, IPv4Addr ipv4_addr and OAuth2Token oauth2_token (a rule that
// splits at every capital would give user_i_d). Digits stay with the word before them.
// Only case changes and underscores are introduced: removing the
// underscores from the result gives the lower-cased input without its own
// underscores.
func SnakeCase(name string) string {
	var b strings.Builder
	b.Grow(len(name) + 4)
	rs := []rune(name)
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
