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

// maxTable is the longest short table name drawn: the lookup suffixes and
// index column names of a table of up to 16 characters leave room for any
// table name of 16 characters (Model.WithTable). A longer table name
// leaves room for its own length.
const maxTable = 16

// longTables are lengths of long table names around the targets' limits
// (48, 181 on Cassandra in keyspace KeyspaceName, 192, and the entity
// rule's 222).
var longTables = []int{17, 47, 48, 49, 100, 180, 181, 182, 191, 192, 193, 205, 221, 222}

func drawTable(t *rapid.T) string {
	switch p := percent.Draw(t, "table kind"); {
	case p < 25:
		return rapid.SampledFrom(tableNames).Draw(t, "table")
	case p < 45:
		return rapid.StringMatching(`[a-z][a-z0-9_]{15}`).Draw(t, "table")
	case p < 90:
		return rapid.StringMatching(`[a-z][a-z0-9_]{1,15}`).Draw(t, "table")
	}
	n := rapid.SampledFrom(longTables).Draw(t, "long table length")
	return "l" + rapid.StringOfN(rapid.RuneFrom([]rune("abcxyz0129_")), n-1, n-1, -1).Draw(t, "long table")
}

// fancyNames need quoting: mixed case, spaces, quotes, reserved words,
// punctuation, non-ASCII letters, leading digits, words of the grammar.
var fancyNames = []string{"UserName", "eMail", "ID", "first name", " lead", "trail ", `say "hi"`, `"`, `""x""`,
	"select", "from", "token", "order", "table", "primary", "key", "true", "false", "NULL", "naïve", "日本語",
	"a,b", "x(y)", "a-b", "a.b", "semi;colon", "<lt>", "1st", "_private", "PRIMARY KEY", "WITH", "AND x",
	"tab\there", "line\nbreak", "ttl", "writetime", "P1D", "PT", "Order", "Key", "in", "KEY",
	"applied", "[Applied]", "[applied] ", "Größe", "Mixed Case"}
