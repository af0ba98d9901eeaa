package schematest

import (
	"slices"
	"strings"

	"pgregory.net/rapid"
)

// Names: Go field names with their expected column names, table names, and
// column overrides that need quoting.

// Field names are built from tokens whose snake-cased form is known: a
// token is written lower case, tokens are joined by "_" (DESIGN.md's naming
// rules: UserID→user_id, HTTPServer→http_server, UserIDs→user_ids,
// IPv4Addr→ipv4_addr, Base64Data→base64_data, TTL→ttl).
var (
	nameWords = []string{"User", "Email", "Name", "Owner", "Item", "Order", "Select", "Token", "Key", "Ttl",
		"From", "Value", "Score", "Tag", "Data", "Addr", "Count", "Created", "Updated", "At", "Title", "Done",
		"Base64", "V2", "Note", "Kind", "Total", "Where", "Limit", "Group", "Server", "Status", "Ñandu", "Émile"}
	nameAcronyms = []string{"ID", "HTTP", "API", "URL", "TTL", "IP", "UUID", "JSON", "IDs", "URLs"}
	nameMixed    = []string{"IPv4", "IPv6", "OAuth"}
)

func isAcronym(s string) bool { return slices.Contains(nameAcronyms, s) }

func isMixed(s string) bool { return slices.Contains(nameMixed, s) }

// drawGoName draws an exported Go field name and its expected column name.
func drawGoName(t *rapid.T) (string, string) {
	n := rapid.IntRange(1, 3).Draw(t, "name tokens")
	var goName strings.Builder
	var snake []string
	prev := ""
	for i := 0; i < n; i++ {
		var tok string
		switch rapid.IntRange(0, 9).Draw(t, "token class") {
		case 0, 1, 2:
			tok = rapid.SampledFrom(nameAcronyms).Draw(t, "acronym")
		case 3:
			tok = rapid.SampledFrom(nameMixed).Draw(t, "mixed initialism")
		default:
			tok = rapid.SampledFrom(nameWords).Draw(t, "word")
		}
		// An acronym followed by an upper-case letter that is not the start
		// of a capitalised word merges with it (IDHTTP, IDIPv4, IDV2).
		if isAcronym(prev) && (isAcronym(tok) || isMixed(tok) || tok == "V2") {
			continue
		}
		goName.WriteString(tok)
		snake = append(snake, strings.ToLower(tok))
		prev = tok
	}
	return goName.String(), strings.Join(snake, "_")
}

var tableNames = []string{"users", "orders", "order", "select", "Events", "UserProfiles", "_hidden", "9lives",
	"ttl", "key", "T", "x_1", "token", "Table", "from"}

// maxTable is the longest table name drawn: lookup suffixes and index
// column names leave room for any table name of this length.
const maxTable = 16

func drawTable(t *rapid.T) string {
	switch rapid.IntRange(0, 3).Draw(t, "table from list") {
	case 0:
		return rapid.SampledFrom(tableNames).Draw(t, "table")
	case 1:
		return rapid.StringMatching(`[a-z][a-z0-9_]{15}`).Draw(t, "table")
	}
	return rapid.StringMatching(`[a-z][a-z0-9_]{1,15}`).Draw(t, "table")
}

// fancyNames need quoting: mixed case, spaces, quotes, reserved words,
// punctuation, non-ASCII letters, leading digits, words of the grammar.
var fancyNames = []string{"UserName", "eMail", "ID", "first name", " lead", "trail ", `say "hi"`, `"`, `""x""`,
	"select", "from", "token", "order", "table", "primary", "key", "true", "false", "NULL", "naïve", "日本語",
	"a,b", "x(y)", "a-b", "a.b", "semi;colon", "<lt>", "1st", "_private", "PRIMARY KEY", "WITH", "AND x",
	"tab\there", "line\nbreak", "ttl", "writetime", "P1D", "PT", "Order", "Key", "in", "KEY"}
