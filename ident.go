package kandra

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kandra-go/kandra/kerrors"
)

// reservedWords is the union of the words Cassandra (4.1, 5.0) and ScyllaDB
// (5.2 to 2026.x) reserve, plus true and false, which lex as literals. A name
// in this set must be quoted to be used as an identifier. Source: the
// reserved keywords of the servers' CQL grammars.
var reservedWords = func() map[string]struct{} {
	words := strings.Fields(`add allow alter and ann apply asc authorize batch begin by cast
		columnfamily concurrency create default delete desc describe drop entries execute
		from full grant if in index infinity insert into is keyspace limit materialized
		modify nan norecursive not null of on or order primary rename replace revoke schema
		scylla_clustering_bound scylla_counter_shard_list scylla_timeuuid_list_index select
		set similarity_cosine similarity_dot_product similarity_euclidean table
		text_search_indexing to token truncate unlogged unset update use using
		vector_search_indexing view where with true false`)
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}()

// IsReserved reports whether name, compared case-insensitively, is a word
// that Cassandra or ScyllaDB reserves (or true/false), so that it cannot be
// written as a bare identifier.
func IsReserved(name string) bool {
	_, ok := reservedWords[strings.ToLower(name)]
	return ok
}

// QuoteIdent writes a non-empty name as a CQL identifier that every
// supported server reads back as exactly name. (No identifier is empty:
// Register rejects empty names before any DDL is written.) It is bare only when name matches
// ^[a-z][a-z0-9_]*$ and is not reserved; otherwise it is wrapped in double
// quotes with each embedded double quote doubled, which preserves case and
// any character. Every identifier kandra writes into DDL goes through here
// (a type name through QuoteTypeName, which quotes more).
func QuoteIdent(name string) string {
	if isBareIdent(name) && !IsReserved(name) {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// typeNameKeywords are the words both servers take bare as a column name
// but not as a type name: their grammars name a user-defined type with
// non_type_ident, which leaves out of the unreserved keywords the native
// type names (which kandra refuses as type names, reservedTypeNames) and
// ttl, count, writetime, maxwritetime, cast, json and distinct (Cassandra
// 5.0's Parser.g; ScyllaDB's Cql.g leaves out ttl, count and writetime).
// Bare, CREATE TYPE ks.count fails with "no viable alternative at input
// 'count'".
var typeNameKeywords = map[string]struct{}{
	"ttl": {}, "count": {}, "writetime": {}, "maxwritetime": {}, "cast": {}, "json": {}, "distinct": {},
}

// QuoteTypeName writes a user-defined type's name as CQL: QuoteIdent, and
// quoted also when it is one of the words both servers take bare as a
// column name but not as a type name (ttl, count, writetime,
// maxwritetime, cast, json, distinct). Every type name kandra writes
// (CREATE TYPE, ALTER TYPE, FROZEN<...>, a column's type) goes through
// here.
func QuoteTypeName(name string) string {
	if _, ok := typeNameKeywords[strings.ToLower(name)]; ok {
		return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	}
	return QuoteIdent(name)
}

func isBareIdent(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// MaxNameLength is the longest keyspace, table or index name every target
// accepts: ScyllaDB up to 2025.1 and Cassandra's keyspaces stop at 48
// characters, so 48 is the portable limit (ValidateName). A keyspace
// whose targets accept longer names may use them (RuleNameLength).
const MaxNameLength = 48

// nameProblem says why s cannot be a keyspace, table or index name on
// every target (the portable rule, MaxNameLength), or "" when it can.
// Both servers check ^\w+$ (ASCII) on the final name even when it is
// quoted.
func nameProblem(s string) string { return nameProblemUpTo(s, MaxNameLength) }

// maxNameAnyTarget is the longest table or index name any target accepts
// (Cassandra 5.0); RuleNameLength applies each target's own limit.
const maxNameAnyTarget = 222

// nameCharsProblem says why s cannot be a table or index name on any
// target, or "": it must be 1 to 222 ASCII letters, digits or underscores.
func nameCharsProblem(s string) string { return nameProblemUpTo(s, maxNameAnyTarget) }

func nameProblemUpTo(s string, limit int) string {
	switch {
	case s == "":
		return "is empty"
	case len(s) > limit:
		return "is " + strconv.Itoa(len(s)) + " characters long; the limit is " + strconv.Itoa(limit)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			r, _ := utf8.DecodeRuneInString(s[i:])
			return "contains " + strconv.QuoteRune(r) + "; only ASCII letters, digits and _ are allowed"
		}
	}
	return ""
}

// ValidateName checks a keyspace, table or index name against the rule both
// servers enforce: 1 to 48 ASCII letters, digits or underscores.
func ValidateName(name string) error {
	if p := nameProblem(name); p != "" {
		return &NameError{Name: name, Problem: p}
	}
	return nil
}

// NameError reports a keyspace, table or index name that servers reject.
// It matches kerrors.ErrSchema and kerrors.ErrKandra with errors.Is.
type NameError struct {
	Name    string // the name as given
	Problem string // why servers reject it
}

// Error renders `kandra: name "x y" contains ' '; ...`.
func (e *NameError) Error() string {
	return "kandra: name " + strconv.Quote(e.Name) + " " + e.Problem
}

// Is matches kerrors.ErrSchema and kerrors.ErrKandra.
func (e *NameError) Is(target error) bool {
	return target == kerrors.ErrKandra || target == kerrors.ErrSchema
}
