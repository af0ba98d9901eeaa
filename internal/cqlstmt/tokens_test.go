package cqlstmt

import (
	"strings"
	"testing"
)

func TestTokens(t *testing.T) {
	toks, err := Tokens(`SELECT "Weird ""x""", a, * FROM ks.t -- c ? 
	WHERE b = '?''s' AND c IN (?, ?) /* ? */ AND d = $$?$$ AND e = :name LIMIT 10;`)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, tk := range toks {
		switch tk.Kind {
		case Quoted:
			kinds = append(kinds, "Q:"+tk.Text)
		case String:
			kinds = append(kinds, "S:"+tk.Text)
		case Marker:
			kinds = append(kinds, "?")
		case Named:
			kinds = append(kinds, "N:"+tk.Text)
		}
	}
	if got, want := strings.Join(kinds, " "), `Q:Weird "x" S:?'s ? ? S:? N::name`; got != want {
		t.Fatalf("tokens %q, want %q", got, want)
	}
	if toks[0].Ident() != "select" || !toks[0].Is("select") || toks[1].Ident() != `Weird "x"` {
		t.Fatalf("idents %q %q", toks[0].Ident(), toks[1].Ident())
	}
	for _, bad := range []string{`SELECT 'x`, `SELECT "x`, `/* x`, `$$x`} {
		if _, err := Tokens(bad); err == nil {
			t.Errorf("Tokens(%q) = nil error", bad)
		}
	}
}

// FuzzTokens: Tokens never panics, and every token's offsets lie within
// the statement, in order, its text the source between them for a word,
// a number, a marker or a symbol.
func FuzzTokens(f *testing.F) {
	for _, s := range []string{"SELECT * FROM t WHERE a = ?", `"a""b" 'c''d' $$e$$`, "-- x\n/* y */ :z", "1-2 a.b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks, err := Tokens(s)
		if err != nil {
			return
		}
		end := 0
		for _, tk := range toks {
			if tk.Pos < end || tk.End <= tk.Pos || tk.End > len(s) {
				t.Fatalf("token %+v out of order or bounds in %q", tk, s)
			}
			if (tk.Kind == Word || tk.Kind == Number || tk.Kind == Marker || tk.Kind == Symbol || tk.Kind == Named) && s[tk.Pos:tk.End] != tk.Text {
				t.Fatalf("token %+v is not its source %q", tk, s[tk.Pos:tk.End])
			}
			end = tk.End
		}
	})
}

func TestTokensReviewCases(t *testing.T) {
	count := func(stmt string) int {
		toks, err := Tokens(stmt)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, tk := range toks {
			if tk.Kind == Marker {
				n++
			}
			if tk.Kind == Named {
				t.Errorf("%q: a named marker %q", stmt, tk.Text)
			}
		}
		return n
	}
	if n := count("UPDATE t SET m = {'a':1, 'b':true} WHERE k = ?"); n != 1 {
		t.Errorf("map literal: %d markers", n)
	}
	if n := count("SELECT * FROM t WHERE k = ? LIMIT 10-- max ?\n"); n != 1 {
		t.Errorf("a number before a comment: %d markers", n)
	}
	if HasIF("UPDATE t SET note = 'call if late' WHERE k = ?") || HasIF("DELETE FROM t WHERE k = ? -- if any") || !HasIF("UPDATE t SET a = 1 WHERE k = ? if a = 0") || HasIF("CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY)") {
		t.Error("HasIF misreads a literal, a comment, a condition or DDL")
	}
}
