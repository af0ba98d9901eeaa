package kandra_test

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
	"pgregory.net/rapid"
)

// cqlpNatives are the natives a field can have, by upper-case name.
var cqlpNatives = map[string]kandra.CQLType{
	"ASCII": kandra.CQLAscii, "BIGINT": kandra.CQLBigint, "BLOB": kandra.CQLBlob, "BOOLEAN": kandra.CQLBoolean,
	"DATE": kandra.CQLDate, "DECIMAL": kandra.CQLDecimal, "DOUBLE": kandra.CQLDouble, "DURATION": kandra.CQLDuration,
	"FLOAT": kandra.CQLFloat, "INET": kandra.CQLInet, "INT": kandra.CQLInt, "SMALLINT": kandra.CQLSmallint,
	"TEXT": kandra.CQLText, "TIME": kandra.CQLTime, "TIMESTAMP": kandra.CQLTimestamp, "TIMEUUID": kandra.CQLTimeUUID,
	"TINYINT": kandra.CQLTinyint, "UUID": kandra.CQLUUID, "VARCHAR": kandra.CQLVarchar, "VARINT": kandra.CQLVarint,
}

func TestParseCQLType(t *testing.T) {
	mapTextListInt := kandra.MapOf(kandra.CQLText, kandra.ListOf(kandra.CQLInt))
	cases := []struct {
		in   string
		want kandra.CQLType
	}{
		{"frozen<map<text, frozen<list<int>>>>", mapTextListInt},
		{"map<text, frozen<list<int>>>", mapTextListInt},
		{"MAP<TEXT, FROZEN<LIST<INT>>>", mapTextListInt},
		{"FROZEN<MAP<TEXT, FROZEN<LIST<INT>>>>", mapTextListInt},
		{"Map<Text,List<Int>>", mapTextListInt},
		{" \tmap <\ntext ,list < int > >\r\n", mapTextListInt},
		{"map<frozen<set<text>>, int>", kandra.MapOf(kandra.SetOf(kandra.CQLText), kandra.CQLInt)},
		{"list<frozen<set<timeuuid>>>", kandra.ListOf(kandra.SetOf(kandra.CQLTimeUUID))},
		{"set<uuid>", kandra.SetOf(kandra.CQLUUID)},
		{"frozen<frozen<int>>", kandra.CQLInt},
		{"frozen<list<frozen<frozen<list<blob>>>>>", kandra.ListOf(kandra.ListOf(kandra.CQLBlob))},
		{"varchar", kandra.CQLVarchar},
		{"list<VarChar>", kandra.ListOf(kandra.CQLVarchar)},
		{"vector<float, 3>", kandra.VectorOf(kandra.CQLFloat, 3)},
		{"frozen<VECTOR< FLOAT ,768 >>", kandra.VectorOf(kandra.CQLFloat, 768)},
		{"frozen<address>", kandra.UDTOf("address")},
		{"Address", kandra.UDTOf("address")},
		{"timestamps", kandra.UDTOf("timestamps")},
		{`frozen<"Geo ""Point""">`, kandra.UDTOf(`Geo "Point"`)},
		{"map<text, frozen<geo_point>>", kandra.MapOf(kandra.CQLText, kandra.UDTOf("geo_point"))},
	}
	for _, c := range cases {
		got, err := kandra.ParseCQLType(c.in)
		if err != nil {
			t.Errorf("ParseCQLType(%q): %v", c.in, err)
			continue
		}
		if !got.Equal(c.want) {
			t.Errorf("ParseCQLType(%q) = %v, want %v", c.in, got, c.want)
		}
	}
	for name, want := range cqlpNatives {
		for _, in := range []string{name, strings.ToLower(name)} {
			// The very values kandra exports, not look-alikes.
			if got, err := kandra.ParseCQLType(in); err != nil || got != want {
				t.Errorf("ParseCQLType(%q) = %v, %v; want %v", in, got, err, want)
			}
		}
	}
	if got, _ := kandra.ParseCQLType("varchar"); got.Equal(kandra.CQLText) {
		t.Error("varchar parses as TEXT; it must stay VARCHAR")
	}
	for _, in := range []string{"counter", "COUNTER"} {
		got, err := kandra.ParseCQLType(in)
		if err != nil || got.Kind() != kandra.KindNative || got.Name() != "COUNTER" {
			t.Errorf("ParseCQLType(%q) = %v (%v), %v; want COUNTER", in, got, got.Kind(), err)
		}
	}
}

func TestParseCQLTypeErrors(t *testing.T) {
	cases := []struct {
		in      string
		offset  int
		problem string
	}{
		{"", 0, "expected a type name"},
		{"  ", 2, "expected a type name"},
		{"map<text", 8, "expected ','"},
		{"MAP<TEXT INT>", 9, "expected ','"},
		{"map<,int>", 4, "expected a type name, found ','"},
		{"map<text, int, int>", 13, "expected '>'"},
		{"list<", 5, "expected a type name"},
		{"list<int", 8, "expected '>'"},
		{"list<int>>", 9, "unexpected '>' after the type"},
		{"TEXT>", 4, "unexpected '>' after the type"},
		{"text text", 5, "unexpected 't' after the type"},
		{"list", 4, "expected '<'"},
		{"frozen", 6, "expected '<'"},
		{"frozen int", 7, "expected '<'"},
		{"int<text>", 3, "INT takes no type parameters"},
		{"list<1nt>", 5, "expected a type name, found '1'"},
		{"list<\xff>", 5, "expected a type name, found byte 0xff"},
		{"tuple<int, text>", 0, "tuple types are not supported yet"},
		{"frozen<TUPLE<int>>", 7, "tuple types are not supported yet"},
		{"vector<float>", 12, "expected ','"},
		{"vector<float, >", 14, "expected a vector dimension of 1 to 9 digits"},
		{"vector<float, 1234567890>", 14, "expected a vector dimension of 1 to 9 digits"},
		{"vector<float, 3", 15, "expected '>'"},
		{"frozen<macaddr>", 7, `"macaddr" is a reserved type name, not a user-defined type`},
		{"list<Interval>", 5, `"Interval" is a reserved type name, not a user-defined type`},
		{"address<int>", 7, "the user-defined type address takes no type parameters"},
		{strings.Repeat("a", 49), 0, "a user-defined type name is at most 48 characters"},
		{`frozen<"">`, 7, "a quoted user-defined type name is 1 to 48 characters"},
		{`frozen<"Address>`, 7, "unterminated quoted name"},
		{"'org.apache.cassandra.db.marshal.DynamicCompositeType'", 0, "custom types are not supported yet"},
	}
	for _, c := range cases {
		got, err := kandra.ParseCQLType(c.in)
		var te *kandra.CQLTypeError
		if !errors.As(err, &te) {
			t.Errorf("ParseCQLType(%q) = %v, %v; want a *CQLTypeError", c.in, got, err)
			continue
		}
		if !got.IsZero() {
			t.Errorf("ParseCQLType(%q) returned %v with its error", c.in, got)
		}
		if te.Input != c.in || te.Offset != c.offset || te.Problem != c.problem {
			t.Errorf("ParseCQLType(%q): got {%q %d %q}, want offset %d, %q", c.in, te.Input, te.Offset, te.Problem, c.offset, c.problem)
		}
		if !errors.Is(err, kerrors.ErrKandra) || !errors.Is(err, kerrors.ErrSchema) || errors.Is(err, kerrors.ErrQuery) {
			t.Errorf("ParseCQLType(%q): %v matches the wrong sentinels", c.in, err)
		}
	}
	_, err := kandra.ParseCQLType("map<text")
	if want := `kandra: CQL type "map<text": offset 8: expected ','`; err == nil || err.Error() != want {
		t.Errorf("Error() = %v, want %s", err, want)
	}
}

func TestParseCQLTypeHostileInput(t *testing.T) {
	nest := func(open string, n int) string {
		return strings.Repeat(open, n) + "int" + strings.Repeat(">", n)
	}
	// 64 levels are read, FROZEN<> included; the 65th is an error at its name.
	// 64 type levels; FROZEN<> is no level, but its brackets are capped at
	// 2*64+1, what String and Frozen write around 64 levels.
	for open, most := range map[string]int{"list<": 64, "frozen<": 129} {
		in := nest(open, most)
		typ, err := kandra.ParseCQLType(in)
		if err != nil {
			t.Fatalf("%d levels of %s: %v", most, open, err)
		}
		depth := 0
		for ; typ.Kind() == kandra.KindList; typ = typ.Elem() {
			depth++
		}
		if typ.Name() != "INT" || depth != 64 && open == "list<" || depth != 0 && open == "frozen<" {
			t.Errorf("%d levels of %s: %d lists around %v", most, open, depth, typ)
		}
		for _, again := range []string{typ.String(), typ.Frozen()} { // found by fuzzing: 32 lists printed 64 brackets deep
			if back, err := kandra.ParseCQLType(again); err != nil || !back.Equal(typ) {
				t.Errorf("%d levels of %s print as %.40s..., which reads back as %v, %v", most, open, again, back, err)
			}
		}
		_, err = kandra.ParseCQLType(nest(open, most+1))
		var te *kandra.CQLTypeError
		if !errors.As(err, &te) || te.Offset != most*len(open) || te.Problem != "nested more than 64 levels deep" {
			t.Errorf("%d levels of %s: %v", most+1, open, err)
		}
	}
	// Megabytes of nesting or of one word are refused without a deep
	// stack or a long message.
	for _, in := range []string{
		strings.Repeat("list<", 1<<20),
		strings.Repeat("map<int,", 1<<18),
		strings.Repeat("frozen<", 1<<18) + "int" + strings.Repeat(">", 1<<18),
		strings.Repeat("a", 1<<20),
		"list<" + strings.Repeat(" ", 1<<20),
	} {
		_, err := kandra.ParseCQLType(in)
		if err == nil {
			t.Errorf("input of %d bytes parses", len(in))
		} else if msg := err.Error(); len(msg) > 300 {
			t.Errorf("input of %d bytes: error of %d bytes: %.300s", len(in), len(msg), msg)
		}
	}
}

// cqlpCase is a type kandra writes and a way a server or a person might
// spell it.
type cqlpCase struct {
	typ      kandra.CQLType
	spelling string
}

// cqlpType generates types like those kandra writes: natives (COUNTER only
// as the whole type) and lists, sets and maps nested up to four levels.
var cqlpType = rapid.Custom(func(t *rapid.T) kandra.CQLType {
	if rapid.IntRange(0, 19).Draw(t, "counter") == 7 { // rapid favours the ends of a range
		c, err := kandra.ParseCQLType("counter")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	return cqlpTree(t, 4)
})

// cqlpNativeNames is sorted, so that a seed always draws the same native.
var cqlpNativeNames = slices.Sorted(maps.Keys(cqlpNatives))

func cqlpTree(t *rapid.T, depth int) kandra.CQLType {
	kind := kandra.KindNative
	if depth > 0 {
		kind = rapid.SampledFrom([]kandra.CQLKind{kandra.KindNative, kandra.KindNative, kandra.KindList, kandra.KindSet, kandra.KindMap}).Draw(t, "kind")
	}
	switch kind {
	case kandra.KindList:
		return kandra.ListOf(cqlpTree(t, depth-1))
	case kandra.KindSet:
		return kandra.SetOf(cqlpTree(t, depth-1))
	case kandra.KindMap:
		return kandra.MapOf(cqlpTree(t, depth-1), cqlpTree(t, depth-1))
	}
	return cqlpNatives[rapid.SampledFrom(cqlpNativeNames).Draw(t, "native")]
}

// cqlpSpell writes typ with random letter case, random whitespace between
// tokens and random extra FROZEN<> around any type.
func cqlpSpell(t *rapid.T, typ kandra.CQLType) string {
	var b strings.Builder
	space := func() {
		b.WriteString(rapid.SampledFrom([]string{"", "", " ", "\t", "\n  ", "\r\n"}).Draw(t, "space"))
	}
	word := func(w string) {
		for _, c := range strings.ToLower(w) {
			if rapid.Bool().Draw(t, "upper") {
				c -= 'a' - 'A'
			}
			b.WriteRune(c)
		}
	}
	var spell func(kandra.CQLType)
	spell = func(typ kandra.CQLType) {
		frozen := rapid.IntRange(0, 2).Draw(t, "frozen")
		for range frozen {
			space()
			word("frozen")
			space()
			b.WriteByte('<')
		}
		space()
		if typ.Kind() == kandra.KindNative {
			word(typ.Name())
		} else {
			word(typ.Kind().String())
			space()
			b.WriteByte('<')
			if typ.Kind() == kandra.KindMap {
				spell(typ.Key())
				b.WriteByte(',')
			}
			spell(typ.Elem())
			b.WriteByte('>')
		}
		space()
		for range frozen {
			b.WriteByte('>')
			space()
		}
	}
	spell(typ)
	return b.String()
}

// cqlpRebuild copies typ into new nodes through the accessors, so that
// Equal is checked on trees that share nothing.
func cqlpRebuild(typ kandra.CQLType) kandra.CQLType {
	switch typ.Kind() {
	case kandra.KindList:
		return kandra.ListOf(cqlpRebuild(typ.Elem()))
	case kandra.KindSet:
		return kandra.SetOf(cqlpRebuild(typ.Elem()))
	case kandra.KindMap:
		return kandra.MapOf(cqlpRebuild(typ.Key()), cqlpRebuild(typ.Elem()))
	}
	return typ
}

// The property tests draw from fixed seeds, so that every run checks the
// same cases: a failure reproduces, and a pass stays a pass.
const cqlpSeeds = 2000

func TestPropertyCQLTypeRoundTrip(t *testing.T) {
	gen := rapid.Custom(func(t *rapid.T) cqlpCase {
		typ := cqlpType.Draw(t, "type")
		return cqlpCase{typ, cqlpSpell(t, typ)}
	})
	kinds := map[kandra.CQLKind]int{}
	for seed := range cqlpSeeds {
		c := gen.Example(seed)
		kinds[c.typ.Kind()]++
		for _, in := range []string{
			c.typ.String(),
			c.typ.Frozen(),
			strings.ToLower(c.typ.String()), // as system_schema.columns.type has it
			strings.ToLower(c.typ.Frozen()),
			c.spelling,
		} {
			got, err := kandra.ParseCQLType(in)
			if err != nil || !got.Equal(c.typ) {
				t.Fatalf("seed %d: ParseCQLType(%q) = %v, %v; want %v", seed, in, got, err, c.typ)
			}
		}
	}
	for _, k := range []kandra.CQLKind{kandra.KindNative, kandra.KindList, kandra.KindSet, kandra.KindMap} {
		if kinds[k] < cqlpSeeds/20 {
			t.Errorf("only %d of %d cases are %v", kinds[k], cqlpSeeds, k)
		}
	}
}

func TestPropertyCQLTypeEqual(t *testing.T) {
	gen := rapid.Custom(func(t *rapid.T) [2]kandra.CQLType {
		return [2]kandra.CQLType{cqlpType.Draw(t, "a"), cqlpType.Draw(t, "b")}
	})
	same := 0
	for seed := range cqlpSeeds {
		p := gen.Example(seed)
		a, b := p[0], p[1]
		if !a.Equal(a) || !a.Equal(cqlpRebuild(a)) || !cqlpRebuild(a).Equal(a) {
			t.Fatalf("seed %d: %v is not Equal to itself or its copy", seed, a)
		}
		// Rendering is unambiguous, so trees are equal exactly when their
		// renderings are.
		want := a.String() == b.String()
		if a.Equal(b) != want || b.Equal(a) != want {
			t.Fatalf("seed %d: %v.Equal(%v) = %v", seed, a, b, a.Equal(b))
		}
		if want {
			same++
		}
		// Trees that differ in one child only: Equal looks at every child.
		var swapped []kandra.CQLType
		switch a.Kind() {
		case kandra.KindList:
			swapped = append(swapped, kandra.ListOf(b))
		case kandra.KindSet:
			swapped = append(swapped, kandra.SetOf(b))
		case kandra.KindMap:
			swapped = append(swapped, kandra.MapOf(b, a.Elem()), kandra.MapOf(a.Key(), b))
		}
		for _, c := range swapped {
			if want := a.String() == c.String(); a.Equal(c) != want {
				t.Fatalf("seed %d: %v.Equal(%v) = %v", seed, a, c, a.Equal(c))
			}
		}
	}
	if same == 0 || same == cqlpSeeds {
		t.Errorf("%d of %d pairs are equal: the generator does not exercise both answers", same, cqlpSeeds)
	}
}

func FuzzParseCQLType(f *testing.F) {
	for _, s := range []string{
		"", "int", "TEXT", "counter", "varchar",
		"frozen<map<text, frozen<list<int>>>>",
		"MAP<FROZEN<SET<TEXT>>, INT>",
		" list < frozen < set < uuid > > > ",
		"map<text", "list<int>>", "int<text>", "tuple<int, text>", "vector<float, 3>",
		`frozen<"Address">`, "frozen<address>", "'org.apache.cassandra.db.marshal.BytesType'",
		strings.Repeat("list<", 70) + "int" + strings.Repeat(">", 70),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		typ, err := kandra.ParseCQLType(s)
		if err != nil {
			var te *kandra.CQLTypeError
			if !errors.As(err, &te) || te.Input != s || te.Offset < 0 || te.Offset > len(s) || te.Problem == "" {
				t.Fatalf("ParseCQLType(%q): bad error %#v", s, err)
			}
			if !typ.IsZero() {
				t.Fatalf("ParseCQLType(%q) returned %v with its error", s, typ)
			}
			return
		}
		if typ.Kind() == kandra.KindInvalid {
			t.Fatalf("ParseCQLType(%q) returned the zero CQLType without an error", s)
		}
		ins := []string{typ.String(), typ.Frozen()}
		if !strings.Contains(typ.String(), `"`) { // a quoted name keeps its case
			ins = append(ins, strings.ToLower(typ.String()))
		}
		for _, in := range ins {
			again, err := kandra.ParseCQLType(in)
			if err != nil || !again.Equal(typ) {
				t.Fatalf("ParseCQLType(%q) = %v, but ParseCQLType(%q) = %v, %v", s, typ, in, again, err)
			}
		}
	})
}
