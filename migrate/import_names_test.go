package migrate

import (
	gotoken "go/token"
	"testing"
	"unicode/utf8"

	"github.com/kandra-go/kandra"
)

// TestGoNameOf: CQL names become the Go names kandra.SnakeCase reads back
// where it can.
func TestGoNameOf(t *testing.T) {
	for _, c := range []struct {
		cql, ident string
		exact      bool
	}{
		{"user_id", "UserID", true},
		{"user_ids", "UserIDs", true},
		{"id_url", "IdUrl", true},
		{"http_server", "HTTPServer", true},
		{"display_name", "DisplayName", true},
		{"Mixed Case", "MixedCase", false},
		{"größe", "Größe", true},
		{"2fa", "X2fa", false},
		{"日本", "X日本", false},
		{"", "X", false},
		{"UserID", "UserID", false},
		{"address2", "Address2", true},
		{"e\u0301t\u00e9", "ETé", false}, // the combining accent is no identifier character
	} {
		if ident, exact := goNameOf(c.cql); ident != c.ident || exact != c.exact {
			t.Errorf("goNameOf(%q) = %q, %v; want %q, %v", c.cql, ident, exact, c.ident, c.exact)
		}
	}
	n := newNamer("Describe")
	for _, c := range []struct{ cql, ident string }{{"describe", "Describe2"}, {"user_id", "UserID"}, {"UserID", "UserID2"}, {"userid", "Userid"}} {
		if ident, _ := n.name(c.cql); ident != c.ident {
			t.Errorf("name(%q) = %q, want %q", c.cql, ident, c.ident)
		}
	}
}

// FuzzGoName: whatever the CQL names, the namer gives each an exported Go
// identifier of at most maxGoNameRunes runes, none twice nor a reserved
// one, the same ones for the same names in the same order, and says a
// name reads back (kandra.SnakeCase) only when it does.
func FuzzGoName(f *testing.F) {
	f.Add("user_id", "UserID", "describe")
	f.Add("Mixed Case", "mixed_case", "MixedCase")
	f.Add("日本", "", "2fa")
	f.Add("id_url", "IDURL", "idurl")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		names := []string{a, b, c, a + "_" + b, c + "2", b + "2"}
		give := func() []string {
			n := newNamer("Describe")
			var out []string
			for _, name := range names {
				ident, exact := n.name(name)
				switch {
				case !gotoken.IsIdentifier(ident) || !gotoken.IsExported(ident):
					t.Fatalf("%q: %q is not an exported identifier", name, ident)
				case utf8.RuneCountInString(ident) > maxGoNameRunes:
					t.Fatalf("%q: %q is over %d runes", name, ident, maxGoNameRunes)
				case ident == "Describe":
					t.Fatalf("%q: the reserved Describe was given", name)
				case exact && kandra.SnakeCase(ident) != name:
					t.Fatalf("%q: %q is said to read back, and reads %q", name, ident, kandra.SnakeCase(ident))
				}
				for i, prev := range out {
					if prev == ident {
						t.Fatalf("%q and %q both get %q", names[i], name, ident)
					}
				}
				out = append(out, ident)
			}
			return out
		}
		first, second := give(), give()
		for i := range first {
			if first[i] != second[i] {
				t.Fatalf("%q gets %q, then %q", names[i], first[i], second[i])
			}
		}
	})
}
