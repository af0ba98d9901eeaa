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

func drawCQLType(t *rapid.T, depth int) kandra.CQLType {
	k := 0
	if depth < 3 {
		k = rapid.IntRange(0, 3).Draw(t, "kind")
	}
	switch k {
	case 1:
		return kandra.ListOf(drawCQLType(t, depth+1))
	case 2:
		return kandra.SetOf(drawCQLType(t, depth+1))
	case 3:
		return kandra.MapOf(drawCQLType(t, depth+1), drawCQLType(t, depth+1))
	}
	return rapid.SampledFrom(natives).Draw(t, "native")
}

// TestPropertyTypeCompare: a model type equals the live type a server
// writes for it, frozen where kandra declares it frozen, whatever the
// spelling (case, spaces, varchar); two types are the same exactly when
// a server spells them alike.
func TestPropertyTypeCompare(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := drawCQLType(t, 0), drawCQLType(t, 0)
		frozen := a.IsCollection() && rapid.Bool().Draw(t, "frozen")
		raw := serverType(a, frozen)
		switch rapid.IntRange(0, 2).Draw(t, "spelling") {
		case 1:
			raw = strings.ToUpper(raw)
		case 2:
			raw = " " + strings.ReplaceAll(strings.ReplaceAll(raw, "<", " < "), ",", " ,") + "\t"
		}
		live := &LiveColumn{Name: "c", Type: parseType(raw), RawType: raw}
		w := wantColumn{name: "c", typ: a, frozen: frozen}
		if m := typeMismatch(w, live); m != "" {
			t.Fatalf("%s (frozen %v) against its own live spelling %q: %s", a, frozen, raw, m)
		}
		if a.IsCollection() {
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
		if !ta.IsZero() && ta.IsCollection() {
			first := strings.FieldsFunc(a, func(r rune) bool {
				return r == '<' || r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v'
			})
			if want := len(first) > 0 && strings.EqualFold(first[0], "frozen"); outerFrozen(a) != want {
				t.Fatalf("outerFrozen(%q) = %v, want %v", a, outerFrozen(a), want)
			}
		}
		live := &LiveColumn{Name: "c", Type: tb, RawType: b}
		if m := typeMismatch(wantColumn{name: "c", typ: ta, frozen: outerFrozen(a)}, live); !ta.IsZero() && (m == "") != (sameType(ta, tb) && !tb.IsZero() && (!ta.IsCollection() || outerFrozen(a) == outerFrozen(b))) {
			t.Fatalf("typeMismatch(%q, live %q) = %q", a, b, m)
		}
	})
}
