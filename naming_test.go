package kandra_test

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/kandra-go/kandra"
	"pgregory.net/rapid"
)

// ---------------------------------------------------------------------------
// SnakeCase.

var snakeCases = []struct{ in, want string }{
	// Required by DESIGN.md.
	{"UserID", "user_id"},
	{"ID", "id"},
	{"HTTPServer", "http_server"},
	{"APIKey", "api_key"},
	{"UserIDs", "user_ids"},
	{"IPv4Addr", "ipv4_addr"},
	{"OAuth2Token", "oauth2_token"},
	{"CreatedAt", "created_at"},
	{"TTL", "ttl"},
	{"Base64Data", "base64_data"},
	// More.
	{"", ""},
	{"A", "a"},
	{"a", "a"},
	{"Email", "email"},
	{"URLs", "urls"},
	{"IDs", "ids"},
	{"APIs", "apis"},
	{"MyAPIs", "my_apis"},
	{"URLsList", "urls_list"},
	{"UserIDsCount", "user_ids_count"},
	{"JSONData", "json_data"},
	{"HTTPSProxy", "https_proxy"},
	{"MyOAuthToken", "my_oauth_token"},
	{"OAuth", "oauth"},
	{"IPv6Addr", "ipv6_addr"},
	{"IPv4", "ipv4"},
	{"ServerIPv6", "server_ipv6"},
	{"MD5Hash", "md5_hash"},
	{"V2API", "v2_api"},
	{"ID2", "id2"},
	{"Id", "id"},
	{"userID", "user_id"},
	{"displayName", "display_name"},
	{"DisplayName", "display_name"},
	{"user_id", "user_id"},
	{"X_Y", "x_y"},
	{"User_ID", "user_id"},
	{"_ID", "_id"},
	{"ID_", "id_"},
	{"A_B_C", "a_b_c"},
	{"From", "from"},
	{"Token", "token"},
	{"Order", "order"},
	{"Select", "select"},
	{"Key", "key"},
	{"Ttl", "ttl"},
	{"Größe", "größe"},
	{"ÜberName", "über_name"},
}

func TestSnakeCase(t *testing.T) {
	for _, c := range snakeCases {
		if got := kandra.SnakeCase(c.in); got != c.want {
			t.Errorf("SnakeCase(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// lowerNoUnderscore is the documented invariant's right-hand side: the
// lower-cased input without its own underscores.
func lowerNoUnderscore(s string) string {
	return strings.Map(unicode.ToLower, strings.ReplaceAll(s, "_", ""))
}

// alreadySnake reports input SnakeCase has nothing to change in: no
// upper-case letter and no rune whose lower case differs from it.
func alreadySnake(s string) bool {
	for _, r := range s {
		if unicode.IsUpper(r) || unicode.ToLower(r) != r {
			return false
		}
	}
	return true
}

func checkSnakeCase(t interface {
	Helper()
	Fatalf(string, ...any)
}, in string) {
	t.Helper()
	out := kandra.SnakeCase(in)
	if again := kandra.SnakeCase(in); again != out {
		t.Fatalf("SnakeCase(%q) is not deterministic: %q then %q", in, out, again)
	}
	// Documented: "Only case changes and underscores are introduced:
	// removing the underscores from the result gives the lower-cased input
	// without its own underscores."
	if got, want := strings.ReplaceAll(out, "_", ""), lowerNoUnderscore(in); got != want {
		t.Fatalf("SnakeCase(%q) = %q: without underscores %q, want %q", in, out, got, want)
	}
	if strings.Count(out, "_") < strings.Count(in, "_") {
		t.Fatalf("SnakeCase(%q) = %q dropped an underscore", in, out)
	}
	for _, r := range out {
		if unicode.ToLower(r) != r {
			t.Fatalf("SnakeCase(%q) = %q keeps %q, which has a lower-case form", in, out, r)
		}
	}
	if alreadySnake(in) && out != in {
		t.Fatalf("SnakeCase(%q) = %q changed input that is already snake case", in, out)
	}
}

func FuzzSnakeCase(f *testing.F) {
	for _, c := range snakeCases {
		f.Add(c.in)
	}
	for _, s := range []string{"already_snake_case", "a1_b2", "__", "ǅϒ", "ϒϒs", "AǅB", "İstanbul", "ẞtraße", "ΣΑΣ", "ℂx", "ⅠⅡ", "a\u0301B", "OAuthx", "IPv4s", "IPV4Addr"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !utf8.ValidString(in) {
			return // the promise is about valid UTF-8
		}
		checkSnakeCase(t, in)
	})
}

// ---------------------------------------------------------------------------
// Reserved words and QuoteIdent.

// cqlReservedUnion is the union of the words Cassandra 4.1/5.0 and every
// ScyllaDB release from 5.2 to master reserve (notes/cql-server-rules.md
// §2), plus true and false, which lex as literals. It is copied here from the
// notes, independently of naming.go.
var cqlReservedUnion = strings.Fields(`add allow alter and ann apply asc authorize batch begin by cast
columnfamily concurrency create default delete desc describe drop entries execute from full grant
if in index infinity insert into is keyspace limit materialized modify nan norecursive not null of
on or order primary rename replace revoke schema scylla_clustering_bound scylla_counter_shard_list
scylla_timeuuid_list_index select set similarity_cosine similarity_dot_product similarity_euclidean
table text_search_indexing to token truncate unlogged unset update use using vector_search_indexing
view where with true false`)

// cassandraUnreserved is Cassandra 5.0's list of unreserved keywords (§2).
var cassandraUnreserved = strings.Fields(`access aggregate aggregates all ann as ascii bigint blob boolean
called cast cidrs cluster clustering columnfamilies compact contains count counter custom datacenters
date decimal default distinct double duration exists filtering finalfunc float frozen function
functions group hashed identity inet initcond input int internals json key keys keyspaces language
like list login map masked maxwritetime mbean mbeans nologin nosuperuser only options partition
password per permission permissions replace returns role roles select_masked sfunc smallint static
storage stype superuser tables text time timestamp timeuuid tinyint trigger ttl tuple type types
unmask unset user users uuid values varchar varint vector writetime`)

var cqlReservedSet = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range cqlReservedUnion {
		m[w] = true
	}
	return m
}()

func TestReservedWordList(t *testing.T) {
	if len(cqlReservedUnion) != 73 {
		t.Fatalf("test list has %d words, want 71 + true/false", len(cqlReservedUnion))
	}
	for _, w := range cqlReservedUnion {
		for _, v := range []string{w, strings.ToUpper(w), strings.ToUpper(w[:1]) + w[1:]} {
			if !kandra.IsReserved(v) {
				t.Errorf("IsReserved(%q) = false", v)
			}
		}
	}
	// Every other Cassandra keyword is usable bare on both servers, unless
	// ScyllaDB reserves it (cast, default, replace, unset, ann: in the union).
	for _, w := range cassandraUnreserved {
		if got := kandra.IsReserved(w); got != cqlReservedSet[w] {
			t.Errorf("IsReserved(%q) = %v, want %v", w, got, cqlReservedSet[w])
		}
	}
	for _, w := range []string{"user_id", "users", "email", "", "from_", "xfrom", "tokens", "truthy"} {
		if kandra.IsReserved(w) {
			t.Errorf("IsReserved(%q) = true", w)
		}
	}
}

func TestQuoteIdent(t *testing.T) {
	cases := []struct{ in, want string }{
		{"user_id", "user_id"},
		{"a", "a"},
		{"a1_", "a1_"},
		// Go fields From, Token, Order, Select, Key, Ttl snake-case to these.
		{"from", `"from"`},
		{"token", `"token"`},
		{"order", `"order"`},
		{"select", `"select"`},
		{"key", "key"}, // unreserved in both servers
		{"ttl", "ttl"}, // unreserved in both servers
		// Reserved in one server only.
		{"desc", `"desc"`},
		{"describe", `"describe"`},
		{"execute", `"execute"`},
		{"cast", `"cast"`},
		{"default", `"default"`},
		{"replace", `"replace"`},
		{"unset", `"unset"`},
		// Native type names and collection keywords are not reserved.
		{"text", "text"},
		{"list", "list"},
		{"map", "map"},
		{"frozen", "frozen"},
		{"timestamp", "timestamp"},
		// Mixed case is quoted (quoting preserves case).
		{"UserID", `"UserID"`},
		{"userId", `"userId"`},
		{"From", `"From"`},
		{"A", `"A"`},
		// Embedded quotes are doubled.
		{`a"b`, `"a""b"`},
		{`"`, `""""`},
		{`""`, `""""""`},
		// Literals.
		{"true", `"true"`},
		{"false", `"false"`},
		{"TRUE", `"TRUE"`},
		{"nan", `"nan"`},
		{"infinity", `"infinity"`},
		// Leading digit or underscore.
		{"1abc", `"1abc"`},
		{"9", `"9"`},
		{"_a", `"_a"`},
		// Anything else.
		{"user id", `"user id"`},
		{"e-mail", `"e-mail"`},
		{"größe", `"größe"`},
		{"a.b", `"a.b"`},
	}
	for _, c := range cases {
		if got := kandra.QuoteIdent(c.in); got != c.want {
			t.Errorf("QuoteIdent(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// namingReserved has fields named after CQL keywords; the DDL must quote
// the reserved ones and only those.
type namingReserved struct {
	ID     string
	From   string
	Token  string
	Order  int32
	Select bool
	Key    string
	Ttl    int64 //nolint:revive // the point is the name
	Desc   string
	List   []string
	UserID string
}

func (e *namingReserved) Describe(s *kandra.Schema[namingReserved]) {
	s.Table("kn_reserved")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Order, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.Bind(s, &e.From, kandra.SecondaryIndex())
}

func TestReservedFieldNamesInDDL(t *testing.T) {
	tbl := mustRegisterOK[namingReserved](t)
	ts := tbl.Schema()
	want := map[string]string{
		"ID": "id", "From": `"from"`, "Token": `"token"`, "Order": `"order"`, "Select": `"select"`,
		"Key": "key", "Ttl": "ttl", "Desc": `"desc"`, "List": "list", "UserID": "user_id",
	}
	for _, c := range ts.Columns() {
		if c.CQLName() != want[c.GoName()] {
			t.Errorf("column %s: CQLName = %s, want %s", c.GoName(), c.CQLName(), want[c.GoName()])
		}
		if c.CQLName() != kandra.QuoteIdent(c.Name()) {
			t.Errorf("column %s: CQLName %s is not QuoteIdent(%q)", c.GoName(), c.CQLName(), c.Name())
		}
	}
	// The table has an index on a TEXT column: indexTargets take it.
	ks := newKeyspace(t, "ks", indexTargets, tbl)
	ddl := noErr(ks.CreateTable(ts))
	for _, line := range []string{
		"CREATE TABLE IF NOT EXISTS ks.kn_reserved (\n",
		"    id TEXT,\n", "    \"order\" INT,\n", "    \"from\" TEXT,\n", "    \"token\" TEXT,\n",
		"    \"select\" BOOLEAN,\n", "    key TEXT,\n", "    ttl BIGINT,\n", "    \"desc\" TEXT,\n",
		"    list LIST<TEXT>,\n", "    user_id TEXT,\n",
		"    PRIMARY KEY (id, \"order\")\n", "WITH CLUSTERING ORDER BY (\"order\" DESC);",
	} {
		if !strings.Contains(ddl, line) {
			t.Errorf("CREATE TABLE lacks %q:\n%s", line, ddl)
		}
	}
	from := ts.ColumnByName("from")
	if got, want := noErr(ks.CreateIndex(ts, from)), `CREATE INDEX IF NOT EXISTS kn_reserved_from_idx ON ks.kn_reserved ("from");`; got != want {
		t.Errorf("CreateIndex = %s, want %s", got, want)
	}
	if got, want := noErr(ks.AlterTableAdd(ts, ts.ColumnByName("token"))), `ALTER TABLE ks.kn_reserved ADD "token" TEXT;`; got != want {
		t.Errorf("AlterTableAdd = %s, want %s", got, want)
	}
}

// readCQLIdent reads one CQL identifier at the start of s the way both
// servers' lexers do (notes §1): an unquoted IDENT [A-Za-z][A-Za-z0-9_]* is
// folded to lower case and must not be a reserved word (or true/false); a
// QUOTED_NAME '"' (~'"' | '""')+ '"' keeps its case, with "" standing for
// one quote, and is never empty. It returns the name and the rest of s.
func readCQLIdent(s string) (name, rest string, ok bool) {
	if s == "" {
		return "", s, false
	}
	isLetter := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	if s[0] == '"' {
		var b strings.Builder
		i := 1
		for {
			if i >= len(s) {
				return "", s, false // unterminated
			}
			if s[i] == '"' {
				if i+1 < len(s) && s[i+1] == '"' {
					b.WriteByte('"')
					i += 2
					continue
				}
				i++
				break
			}
			b.WriteByte(s[i])
			i++
		}
		if b.Len() == 0 {
			return "", s, false // "" is not a DDL identifier
		}
		return b.String(), s[i:], true
	}
	if !isLetter(s[0]) {
		return "", s, false
	}
	j := 1
	for j < len(s) && (isLetter(s[j]) || isDigit(s[j]) || s[j] == '_') {
		j++
	}
	word := strings.ToLower(s[:j])
	if cqlReservedSet[word] {
		return "", s, false
	}
	return word, s[j:], true
}

var bareIdent = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// checkQuoteIdent asserts that a server reads QuoteIdent(name) back as
// exactly name, consuming all of it, and that the bare form is used exactly
// when QuoteIdent's documentation says.
func checkQuoteIdent(t interface {
	Helper()
	Fatalf(string, ...any)
}, name string) {
	t.Helper()
	q := kandra.QuoteIdent(name)
	got, rest, ok := readCQLIdent(q)
	if !ok || rest != "" || got != name {
		t.Fatalf("QuoteIdent(%q) = %s reads back as (%q, rest %q, ok %v)", name, q, got, rest, ok)
	}
	bare := !strings.HasPrefix(q, `"`)
	if bare {
		if cqlReservedSet[q] || !bareIdent.MatchString(q) {
			t.Fatalf("QuoteIdent(%q) = %s is bare but reserved or not ^[a-z][a-z0-9_]*$", name, q)
		}
	}
	if wantBare := bareIdent.MatchString(name) && !cqlReservedSet[name]; bare != wantBare {
		t.Fatalf("QuoteIdent(%q) = %s: bare = %v, want %v", name, q, bare, wantBare)
	}
}

func FuzzQuoteIdent(f *testing.F) {
	for _, s := range []string{"user_id", "UserID", "from", "FROM", "From", "key", "ttl", `a"b`, `"`, `""`, `"a"`,
		"true", "False", "1abc", "_", "a b", "größe", "\x00", "a\nb", "select_masked", "nan", "NaN", "P1D", "p1d"} {
		f.Add(s)
	}
	for _, w := range cqlReservedUnion {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if name == "" || !utf8.ValidString(name) {
			return // not a name QuoteIdent promises anything for
		}
		checkQuoteIdent(t, name)
	})
}

// mixedCaseReserved draws a reserved word with a random mix of upper- and
// lower-case letters, optionally with a prefix or suffix.
var mixedCaseReserved = rapid.Custom(func(t *rapid.T) string {
	w := rapid.SampledFrom(cqlReservedUnion).Draw(t, "word")
	upper := rapid.SliceOfN(rapid.Bool(), len(w), len(w)).Draw(t, "upper")
	b := []byte(w)
	for i := range b {
		if upper[i] {
			b[i] = byte(unicode.ToUpper(rune(b[i])))
		}
	}
	affix := rapid.SampledFrom([]string{"", "", "", "_", "1", `"`, "x", " "}).Draw(t, "affix")
	if rapid.Bool().Draw(t, "prefix") {
		return affix + string(b)
	}
	return string(b) + affix
})

func TestQuoteIdentRoundTripRapid(t *testing.T) {
	gen := rapid.OneOf(
		rapid.String(),
		rapid.StringMatching(`[a-z][a-z0-9_]{0,12}`),
		rapid.StringMatching(`[A-Za-z0-9_" .-]{1,12}`),
		mixedCaseReserved,
	).Filter(func(s string) bool { return s != "" })
	rapid.Check(t, func(t *rapid.T) {
		name := gen.Draw(t, "name")
		checkQuoteIdent(t, name)
		if kandra.IsReserved(name) != cqlReservedSet[strings.ToLower(name)] {
			t.Fatalf("IsReserved(%q) = %v", name, kandra.IsReserved(name))
		}
	})
	// Every reserved word, in any case, is quoted.
	rapid.Check(t, func(t *rapid.T) {
		w := rapid.SampledFrom(cqlReservedUnion).Draw(t, "word")
		upper := rapid.SliceOfN(rapid.Bool(), len(w), len(w)).Draw(t, "upper")
		b := []byte(w)
		for i := range b {
			if upper[i] {
				b[i] -= 'a' - 'A'
			}
		}
		if q := kandra.QuoteIdent(string(b)); q != `"`+string(b)+`"` {
			t.Fatalf("QuoteIdent(%q) = %s, want it quoted", b, q)
		}
	})
}

// ---------------------------------------------------------------------------
// ValidateName.

var validName = regexp.MustCompile(`^[A-Za-z0-9_]{1,48}$`)

func TestValidateName(t *testing.T) {
	cases := []struct {
		name string
		ok   bool
	}{
		{"users", true},
		{"Users", true},
		{"user_events_2024", true},
		{"_x", true},
		{"1abc", true},
		{"a", true},
		{strings.Repeat("a", 48), true},
		{strings.Repeat("a", 49), false},
		{"", false},
		{"a-b", false},
		{"a b", false},
		{"a.b", false},
		{"naïve", false},
		{"ключ", false},
		{"a$", false},
		{`"quoted"`, false},
		{"tab\t", false},
		{"\x00", false},
		{"\xff", false},
	}
	for _, c := range cases {
		err := kandra.ValidateName(c.name)
		if (err == nil) != c.ok {
			t.Errorf("ValidateName(%q) = %v, want ok=%v", c.name, err, c.ok)
			continue
		}
		if err != nil {
			var ne *kandra.NameError
			if !errors.As(err, &ne) || ne.Name != c.name || ne.Problem == "" {
				t.Errorf("ValidateName(%q) error %#v is not a *NameError naming the input", c.name, err)
			}
			if !strings.Contains(err.Error(), ne.Problem) {
				t.Errorf("ValidateName(%q) error text %q lacks the problem", c.name, err.Error())
			}
		}
	}
}

func FuzzValidateName(f *testing.F) {
	for _, s := range []string{"users", "", "a-b", strings.Repeat("a", 48), strings.Repeat("a", 49), "naïve", "\xff", "A_1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		err := kandra.ValidateName(name)
		if want := validName.MatchString(name); (err == nil) != want {
			t.Fatalf("ValidateName(%q) = %v, want valid=%v", name, err, want)
		}
		if err != nil {
			var ne *kandra.NameError
			if !errors.As(err, &ne) || ne.Name != name {
				t.Fatalf("ValidateName(%q) error %#v does not name the input", name, err)
			}
		}
	})
}

// typeNameKeywordsCassandra is what Cassandra 5.0's Parser.g takes bare as
// a column name (unreserved_keyword) but not as a type name
// (non_type_ident: basic_unreserved_keyword and key), the native types
// aside (kandra refuses those as type names); ScyllaDB's Cql.g leaves
// out ttl, count and writetime of these.
var typeNameKeywordsCassandra = strings.Fields(`ttl count writetime maxwritetime cast json distinct`)

// TestQuoteTypeName: a type name is quoted where the servers' grammars
// refuse it bare, in every case, and otherwise as QuoteIdent writes it;
// every statement and type rendering that names a type uses it.
func TestQuoteTypeName(t *testing.T) {
	for _, w := range typeNameKeywordsCassandra {
		for _, v := range []string{w, strings.ToUpper(w), strings.ToUpper(w[:1]) + w[1:]} {
			if got := kandra.QuoteTypeName(v); got != `"`+v+`"` {
				t.Errorf("QuoteTypeName(%q) = %s", v, got)
			}
		}
	}
	for _, w := range append(cassandraUnreserved, "address", "geo_point", "key", "Mixed", `a"b`, "select", "counts", "ttl_x") {
		if slices.Contains(typeNameKeywordsCassandra, w) {
			continue
		}
		if got, want := kandra.QuoteTypeName(w), kandra.QuoteIdent(w); got != want {
			t.Errorf("QuoteTypeName(%q) = %s, want QuoteIdent's %s", w, got, want)
		}
	}
	count := kandra.UDTOf("count", kandra.UDTField{Name: "n", Type: kandra.CQLInt})
	for got, want := range map[string]string{
		count.String():                               `"count"`,
		count.Frozen():                               `FROZEN<"count">`,
		kandra.ListOf(count).String():                `LIST<FROZEN<"count">>`,
		kandra.MapOf(kandra.CQLText, count).String(): `MAP<TEXT, FROZEN<"count">>`,
		kandra.AlterTypeAdd("app", count, kandra.UDTField{Name: "m", Type: kandra.CQLText}): `ALTER TYPE app."count" ADD m TEXT;`,
	} {
		if got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}

// Count is the user-defined type count; Counted holds it.
type Count struct{ N int32 }

type Counted struct {
	ID Count
	C  []Count
}

func (c *Counted) Describe(s *kandra.Schema[Counted]) {
	s.Table("counted")
	kandra.Bind(s, &c.ID, kandra.PartitionKey(0))
}

func TestTypeNamedByAKeywordInDDL(t *testing.T) {
	k := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "app", Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3})}, kandra.MustRegister[Counted]())
	got := strings.Join(k.Statements()[1:], "\n")
	want := `CREATE TYPE IF NOT EXISTS app."count" (
    n INT
);
CREATE TABLE IF NOT EXISTS app.counted (
    id FROZEN<"count">,
    c LIST<FROZEN<"count">>,
    PRIMARY KEY (id)
);`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
