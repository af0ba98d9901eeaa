package migrate

import (
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
	"pgregory.net/rapid"
)

var natives = []kandra.CQLType{kandra.CQLAscii, kandra.CQLBigint, kandra.CQLBlob, kandra.CQLBoolean, kandra.CQLDate,
	kandra.CQLDecimal, kandra.CQLDouble, kandra.CQLDuration, kandra.CQLFloat, kandra.CQLInet, kandra.CQLInt,
	kandra.CQLSmallint, kandra.CQLText, kandra.CQLTime, kandra.CQLTimestamp, kandra.CQLTimeUUID, kandra.CQLTinyint,
	kandra.CQLUUID, kandra.CQLVarchar, kandra.CQLVarint}

// udtNames are the user-defined types drawCQLType draws: a few, so that
// two draws often share one, and a quoted mixed-case name among them.
var udtNames = []string{"address", "geo", "MyType", "mytype"}

// drawCQLType draws a native type, a collection or a user-defined type
// (by name, with or without fields: types compare by name).
func drawCQLType(t *rapid.T, depth int) kandra.CQLType {
	k := 0
	if depth < 3 {
		k = rapid.IntRange(0, 4).Draw(t, "kind")
	}
	switch k {
	case 4:
		name := rapid.SampledFrom(udtNames).Draw(t, "udt")
		if rapid.Bool().Draw(t, "with fields") {
			return kandra.UDTOf(name, kandra.UDTField{Name: "f", Type: drawCQLType(t, depth+1)})
		}
		return kandra.UDTOf(name)
	case 1:
		return kandra.ListOf(drawCQLType(t, depth+1))
	case 2:
		return kandra.SetOf(drawCQLType(t, depth+1))
	case 3:
		return kandra.MapOf(drawCQLType(t, depth+1), drawCQLType(t, depth+1))
	}
	return rapid.SampledFrom(natives).Draw(t, "native")
}

// upperOutsideQuotes upper-cases a type's text but its quoted names, as
// a server reads it alike.
func upperOutsideQuotes(s string) string {
	b := []byte(s)
	quoted := false
	for i, c := range b {
		switch {
		case c == '"':
			quoted = !quoted
		case !quoted && 'a' <= c && c <= 'z':
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// TestPropertyTypeCompare: a model type equals the live type a server
// writes for it, frozen where kandra declares it frozen, whatever the
// spelling (case, spaces, varchar); two types are the same exactly when
// a server spells them alike (user-defined types by name: their fields
// are compared per type).
func TestPropertyTypeCompare(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := drawCQLType(t, 0), drawCQLType(t, 0)
		frozen := freezable(a) && rapid.Bool().Draw(t, "frozen")
		raw := serverType(a, frozen)
		switch rapid.IntRange(0, 2).Draw(t, "spelling") {
		case 1:
			raw = upperOutsideQuotes(raw)
		case 2:
			raw = " " + strings.ReplaceAll(strings.ReplaceAll(raw, "<", " < "), ",", " ,") + "\t"
		}
		live := &LiveColumn{Name: "c", Type: parseType(raw), RawType: raw}
		w := wantColumn{name: "c", typ: a, frozen: frozen}
		if m := typeMismatch(w, live); m != "" {
			t.Fatalf("%s (frozen %v) against its own live spelling %q: %s", a, frozen, raw, m)
		}
		if freezable(a) {
			w.frozen = !frozen
			if typeMismatch(w, live) == "" {
				t.Fatalf("%s frozen %v equals live %q", a, w.frozen, raw)
			}
		}
		if got, want := sameType(a, b), serverType(a, false) == serverType(b, false); got != want {
			t.Fatalf("sameType(%s, %s) = %v, want %v", a, b, got, want)
		}
		if sameType(a, b) != sameType(b, a) {
			t.Fatalf("sameType is not symmetric for %s, %s", a, b)
		}
	})
}

// FuzzTypeCompare compares two fuzzed live type strings: the comparison
// never panics, is reflexive and symmetric, and agrees with the parsed
// trees' renderings (VARCHAR read as TEXT).
func FuzzTypeCompare(f *testing.F) {
	f.Add("frozen<map<text, frozen<list<int>>>>", "map<varchar,frozen<list<int>>>")
	f.Add("FROZEN <set<blob>>", "set<blob>")
	f.Add("tuple<int, text>", "int")
	f.Add("frozen", "frozen<")
	f.Add("frozen<address>", "address")
	f.Add(`list<frozen<"MyType">>`, "list<frozen<mytype>>")
	f.Add("map<frozen<Geo>, int>", `map<frozen<"geo">, int>`)
	f.Fuzz(func(t *testing.T, a, b string) {
		ta, tb := parseType(a), parseType(b)
		canon := func(x kandra.CQLType) string { return strings.ReplaceAll(x.String(), "VARCHAR", "TEXT") }
		if !sameType(ta, ta) || sameType(ta, tb) != sameType(tb, ta) {
			t.Fatalf("sameType is not reflexive and symmetric on %q, %q", a, b)
		}
		if !ta.IsZero() && !tb.IsZero() && sameType(ta, tb) != (canon(ta) == canon(tb)) {
			t.Fatalf("sameType(%q, %q) = %v; renderings %s, %s", a, b, sameType(ta, tb), canon(ta), canon(tb))
		}
		// outerFrozen agrees with the first word of a readable type.
		if !ta.IsZero() && freezable(ta) {
			first := strings.FieldsFunc(a, func(r rune) bool {
				return r == '<' || r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v'
			})
			if want := len(first) > 0 && strings.EqualFold(first[0], "frozen"); outerFrozen(a) != want {
				t.Fatalf("outerFrozen(%q) = %v, want %v", a, outerFrozen(a), want)
			}
		}
		live := &LiveColumn{Name: "c", Type: tb, RawType: b}
		if m := typeMismatch(wantColumn{name: "c", typ: ta, frozen: outerFrozen(a)}, live); !ta.IsZero() && (m == "") != (sameType(ta, tb) && !tb.IsZero() && (!freezable(ta) || outerFrozen(a) == outerFrozen(b))) {
			t.Fatalf("typeMismatch(%q, live %q) = %q", a, b, m)
		}
	})
}
