package cqlstmt

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestIsConditional(t *testing.T) {
	for stmt, want := range map[string]bool{
		"INSERT INTO ks.t (a) VALUES (?) IF NOT EXISTS USING TTL ?": true,
		"update ks.t set a = ? where k = ? if a = ?":                true,
		"  DELETE FROM ks.t WHERE k = ? IF owner = ?":               true,
		"INSERT INTO ks.t (a) VALUES (?)":                           false,
		"SELECT owner FROM ks.kandra_schema_lease WHERE name = ?":   false,
		"CREATE TABLE IF NOT EXISTS ks.t (k text PRIMARY KEY)":      false,
		"DELETE FROM ks.t WHERE k = ?":                              false,
		"UPDATE ks.t SET diff = ? WHERE k = ?":                      false,
		"UPDATE ks.t SET diff = ? WHERE k = ? AND gift = ?":         false, // IF inside a word is not the clause
		"": false,
	} {
		if got := IsConditional(stmt); got != want {
			t.Errorf("IsConditional(%q) = %v, want %v", stmt, got, want)
		}
	}
}

// Built statements: a write verb, a body of words, and an IF clause or
// not; the classification follows from how the statement was built.
func TestIsConditionalBuilt(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		verb := rapid.SampledFrom([]string{"INSERT", "insert", "Update", "UPDATE", "delete", "DELETE", "SELECT", "CREATE", "ALTER", "drop"}).Draw(t, "verb")
		words := rapid.SliceOf(rapid.StringMatching(`[a-z_.(),?=]{1,8}`)).Draw(t, "words")
		cond := rapid.Bool().Draw(t, "if")
		pad := rapid.SampledFrom([]string{"", " ", "\t", "\n  "}).Draw(t, "pad")
		parts := append([]string{verb}, words...)
		if cond {
			at := rapid.IntRange(1, len(parts)).Draw(t, "at")
			kw := rapid.SampledFrom([]string{"IF", "if", "If"}).Draw(t, "kw")
			parts = append(parts[:at], append([]string{kw}, parts[at:]...)...)
		}
		stmt := pad + strings.Join(parts, " ") + pad
		write := strings.EqualFold(verb, "INSERT") || strings.EqualFold(verb, "UPDATE") || strings.EqualFold(verb, "DELETE")
		hasIf := cond
		for _, w := range words {
			hasIf = hasIf || strings.EqualFold(w, "if")
		}
		if got := IsConditional(stmt); got != (write && hasIf) {
			t.Fatalf("IsConditional(%q) = %v, want %v", stmt, got, write && hasIf)
		}
	})
}

// FuzzIsConditional: conditional exactly when a write (INSERT, UPDATE,
// DELETE) has the word IF, in any case; the answer does not depend on the
// letters' case or on surrounding blanks.
func FuzzIsConditional(f *testing.F) {
	f.Add("INSERT INTO t (a) VALUES (?) IF NOT EXISTS")
	f.Add("SELECT * FROM t")
	f.Add("update t set a = ? where k = ? if a = ?")
	f.Add("CREATE TABLE IF NOT EXISTS t (k text PRIMARY KEY)")
	f.Fuzz(func(t *testing.T, s string) {
		u := strings.ToUpper(strings.TrimSpace(s))
		write := strings.HasPrefix(u, "INSERT") || strings.HasPrefix(u, "UPDATE") || strings.HasPrefix(u, "DELETE")
		word := false
		for _, w := range strings.Fields(u) {
			word = word || w == "IF"
		}
		got := IsConditional(s)
		if got != (write && word) {
			t.Fatalf("IsConditional(%q) = %v", s, got)
		}
		if again := IsConditional(" " + strings.ToUpper(s) + "\n"); again != got {
			t.Fatalf("IsConditional(%q) = %v, but %v in upper case with blanks around", s, got, again)
		}
	})
}
