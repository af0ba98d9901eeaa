package kandra

// Table-driven tests of the rules of ruleTable, through buildSchema: a
// describe closure, no Describe method, no cache, no global names.
//
//   - TestRules: failing cases, at least one per entity rule and one per
//     branch of its check; TestRulesHaveCases keeps it complete.
//   - TestRulesAccept: schemas at the edge of a rule that register.
//   - TestFirstRuleWins: an entity breaking several rules reports the first.
//   - TestOptionPairs: every pair of field options on one field.
//   - TestKeyspaceRules: the keyspace rows, through NewKeyspace and
//     CreateKeyspace.
//   - TestBadInputNeverPanics, TestRecursiveTypeDoesNotCrash.
//
// The end-to-end Register cases (value receivers, a panicking Describe,
// the per-type cache) are in rules_test.go.

import (
	"errors"
	"maps"
	"math"
	"os"
	"os/exec"
	"reflect"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	kerrors "github.com/kandra-go/kandra/errors"
)

// try builds the schema describe declares and returns the error.
func try[T any](describe func(*T, *Schema[T])) error {
	_, _, err := buildSchema(describe)
	return err
}

// outcome is what building an entity gave.
type outcome struct {
	entity string // the entity's type name
	err    error  // buildSchema's error
	broken []Rule // every rule it breaks (brokenRules)
}

// built is a deferred build, run by a test case.
type built func() outcome

// of defers building what describe declares.
func of[T any](describe func(*T, *Schema[T])) built {
	return func() outcome { return outcome{reflect.TypeFor[T]().String(), try(describe), brokenRules(describe)} }
}

// run runs b and fails the test if it panics.
func (b built) run(t *testing.T) (o outcome) {
	t.Helper()
	noPanic(t, func() error { o = b(); return nil })
	return o
}

// brokenRules runs every entity check of ruleTable on what describe
// declares, going on past a failing check (build stops at the first), and
// returns the rules whose checks failed, in order; a check that reports
// another rule than its own shows as "row->rule". It mirrors buildSchema
// and build.
func brokenRules[T any](describe func(*T, *Schema[T])) []Rule {
	typ, probe, s := reflect.TypeFor[T](), new(T), &Schema[T]{}
	if typ.Kind() == reflect.Struct {
		describe(probe, s)
	}
	d := describeResult{probe: probe, tableCalls: s.tableCalls, table: s.tableName, opts: s.tableOpts, binds: s.binds}
	b := &builder{entity: typ, name: typ.String(), d: d, table: d.table, opts: d.opts, marker: -1}
	var broken []Rule
	for _, r := range ruleTable {
		if r.entity == nil {
			continue
		}
		if err := r.entity(b); err != nil {
			if se, ok := err.(*SchemaError); !ok || se.Rule != r.Rule {
				broken = append(broken, r.Rule+"->"+Rule(err.Error()))
				continue
			}
			broken = append(broken, r.Rule)
		}
	}
	return broken
}

// accept builds the schema describe declares and fails the test on error.
func accept[T any](t *testing.T, describe func(*T, *Schema[T])) *TableSchema {
	t.Helper()
	var ts *TableSchema
	err := noPanic(t, func() (err error) { ts, _, err = buildSchema(describe); return err })
	if err != nil {
		t.Fatalf("buildSchema[%v]: %v", reflect.TypeFor[T](), err)
	}
	return ts
}

// noPanic runs fn and fails the test if it panics: bad input must come
// back as an error.
func noPanic(t *testing.T, fn func() error) (err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panicked: %v\n%s", r, debug.Stack())
		}
	}()
	return fn()
}

// wantSchemaError checks that err is a *SchemaError of entity with the rule
// and field, that its Detail contains every "|"-separated part of detail,
// and that its text has the documented format.
func wantSchemaError(t *testing.T, err error, rule Rule, field, detail, entity string) {
	t.Helper()
	var se *SchemaError
	if !errors.As(err, &se) {
		t.Fatalf("error = %v (%T), want a *SchemaError [%s] on %q", err, err, rule, field)
	}
	if se.Rule != rule || se.Field != field {
		t.Errorf("rule, field = %q, %q; want %q, %q (%v)", se.Rule, se.Field, rule, field, err)
	}
	if se.Entity != entity {
		t.Errorf("Entity = %q, want %q", se.Entity, entity)
	}
	for _, s := range strings.Split(detail, "|") {
		if !strings.Contains(se.Detail, s) {
			t.Errorf("Detail %q lacks %q", se.Detail, s)
		}
	}
	if !errors.Is(err, kerrors.ErrSchema) || !errors.Is(err, kerrors.ErrKandra) {
		t.Errorf("%v does not match ErrSchema and ErrKandra", err)
	}
	where := se.Entity
	if se.Field != "" {
		where += "." + se.Field
	}
	if want := "kandra: schema " + where + " [" + string(se.Rule) + "]: " + se.Detail; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}

// Package-level variables that bindings wrongly point to.
var (
	rulesGlobalID   string
	rulesGlobalFlag bool
)

// rulesValueRecv declares Describe with a value receiver: it is refused
// whatever describe closure builds it.
type rulesValueRecv struct{ ID string }

func (rulesValueRecv) Describe(*Schema[rulesValueRecv]) {}

// rulesValueInt is not a struct, and has a value-receiver Describe.
type rulesValueInt int

func (rulesValueInt) Describe(*Schema[rulesValueInt]) {}

// rulesUT is an entity with a partition key ID and a field X of type V.
type rulesUT[V any] struct {
	ID string
	X  V
}

// The schemas of rulesUT for the Go types of the roles.
type (
	utStr  = Schema[rulesUT[string]]
	utTime = Schema[rulesUT[time.Time]]
	utInt  = Schema[rulesUT[int64]]
	utUUID = Schema[rulesUT[uuid.UUID]]
)

// onX builds rulesUT[V] in table "t" with the partition key ID, then runs
// bind on X.
func onX[V any](bind func(s *Schema[rulesUT[V]], x *V)) built {
	return of(func(e *rulesUT[V], s *Schema[rulesUT[V]]) {
		s.Table("t")
		Bind(s, &e.ID, PartitionKey(0))
		bind(s, &e.X)
	})
}

// withX builds rulesUT[V] in table "t" with X bound with opts.
func withX[V any](opts ...FieldOption) built {
	return onX(func(s *Schema[rulesUT[V]], x *V) { Bind(s, x, opts...) })
}

// withTable builds an entity with a partition key ID and table options.
func withTable(opts ...TableOption) built {
	return of(func(e *rulesUT[string], s *Schema[rulesUT[string]]) {
		s.Table("t", opts...)
		Bind(s, &e.ID, PartitionKey(0))
	})
}

func tableNamed(name string) built {
	return of(func(e *rulesUT[string], s *Schema[rulesUT[string]]) {
		s.Table(name)
		Bind(s, &e.ID, PartitionKey(0))
	})
}

type ruleCase struct {
	name   string
	rule   Rule
	field  string // the Go field path, "" for a table rule
	detail string // "|"-separated parts of the Detail: what is wrong and the way out
	run    built
}

var (
	name40 = strings.Repeat("n", 40)
	name48 = strings.Repeat("m", 48)
	name49 = strings.Repeat("o", 49)
)

// ruleCases is one failing case per branch of every entity rule's check.
func ruleCases() []ruleCase {
	type AmbA struct{ Name string }
	type AmbB struct{ Name string }
	type ambiguous struct {
		ID string
		AmbA
		AmbB
	}
	type EmbP struct{ X string }
	type embeddedPtr struct {
		ID string
		*EmbP
	}
	type two struct{ ID, Email string }
	type three struct{ ID, A, B string }
	type unexported struct {
		ID     string
		secret string
	}
	type Address struct{ City, Zip string }
	type nested struct {
		ID   string
		Addr Address
	}
	type timed struct {
		ID      string
		At, At2 time.Time
	}
	type counted struct {
		ID        string
		Rev, Hits int64
		Made      time.Time
	}
	type counterKeys struct {
		A, B string
		Hits int64
	}
	type Audit struct{ Created, Updated time.Time }
	type audited struct {
		ID   string
		Made time.Time
		Audit
	}
	type versioned struct {
		ID    string
		Rev   int64
		Stamp time.Time
	}
	type marked struct {
		ID      string
		Deleted bool
		deleted bool
	}
	type Flags struct{ Deleted bool }
	type markedNested struct {
		ID    string
		Flags Flags
	}
	type mix struct {
		ID   string
		Hits int64
		Note string
	}
	type dupColumn struct {
		ID     string
		UserID string
		UserId string //nolint:revive // snake-cases like UserID
	}
	type durationKey struct{ ID time.Duration }
	keyed := func(e *rulesUT[string], s *utStr) { s.Table("t"); Bind(s, &e.ID, PartitionKey(0)) }
	marker := func(bind func(e *marked, s *Schema[marked])) built {
		return of(func(e *marked, s *Schema[marked]) {
			s.Table("t", SoftDelete(60, &e.Deleted))
			Bind(s, &e.ID, PartitionKey(0))
			bind(e, s)
		})
	}

	return []ruleCase{
		// not-a-struct
		{"int", RuleNotStruct, "", "must be a struct type, not int", of(func(*int, *Schema[int]) {})},
		{"slice", RuleNotStruct, "", "not slice", of(func(*[]string, *Schema[[]string]) {})},
		{"func", RuleNotStruct, "", "not func", of(func(*func(), *Schema[func()]) {})},
		{"ambiguous embedded promotion", RuleNotStruct, "AmbA.Name", `"Name" is ambiguous|AmbB.Name`, of(func(e *ambiguous, s *Schema[ambiguous]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
		})},
		{"embedded pointer to a struct", RuleNotStruct, "EmbP", "embedded pointer|by value", of(func(e *embeddedPtr, s *Schema[embeddedPtr]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
		})},

		// describe (a panicking Describe is in rules_test.go: Register recovers it)
		{"value receiver", RuleDescribe, "", "value receiver|declare it on the pointer: func (e *rulesValueRecv) Describe(s *kandra.Schema[rulesValueRecv])", of(func(e *rulesValueRecv, s *Schema[rulesValueRecv]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
		})},

		// table-missing
		{"Table not called", RuleTableMissing, "", "s.Table(name)", of(func(e *two, s *Schema[two]) { Bind(s, &e.ID, PartitionKey(0)) })},
		{"empty table name", RuleTableMissing, "", "blank", tableNamed("")},
		{"blank table name", RuleTableMissing, "", "blank", tableNamed(" \t ")},

		// binding
		{"global variable, the only binding", RuleBinding, "", "use &e.Field on Describe's receiver", of(func(e *two, s *Schema[two]) {
			s.Table("t")
			Bind(s, &rulesGlobalID, PartitionKey(0))
		})},
		{"global variable beside a field", RuleBinding, "", "a *string binding|use &e.Field", onX(func(s *utStr, _ *string) {
			Bind(s, &rulesGlobalID, Lookup("by_email", LookupBatch))
		})},
		{"unexported field", RuleBinding, "secret", "unexported", of(func(e *unexported, s *Schema[unexported]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.secret, Sensitive())
		})},
		{"field of a non-embedded struct", RuleBinding, "Addr.Zip", "non-embedded", of(func(e *nested, s *Schema[nested]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.Addr.Zip, Sensitive())
		})},
		{"first field of a non-embedded struct (same offset)", RuleBinding, "Addr.City", "non-embedded", of(func(e *nested, s *Schema[nested]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.Addr.City, Sensitive())
		})},
		{"field of another value", RuleBinding, "", "not the address of a field", onX(func(s *utStr, _ *string) {
			Bind(s, &new(rulesUT[string]).X, Sensitive())
		})},
		{"nil pointer", RuleBinding, "", "not the address of a field", onX(func(s *utStr, _ *string) { Bind[rulesUT[string], string](s, nil) })},

		// conflicting-options on the table
		{"Table called twice", RuleConflict, "", "2 times|call it once", of(func(e *rulesUT[string], s *utStr) { keyed(e, s); s.Table("t") })},
		{"DefaultTTL twice", RuleConflict, "", "DefaultTTL is set twice", withTable(DefaultTTL(10), DefaultTTL(20))},
		{"GCGraceSeconds twice", RuleConflict, "", "GCGraceSeconds is set twice", withTable(GCGraceSeconds(1), GCGraceSeconds(2))},
		{"ReadConsistency twice", RuleConflict, "", "ReadConsistency is set twice", withTable(ReadConsistency(ConsistencyOne), ReadConsistency(ConsistencyQuorum))},
		{"WriteConsistency twice", RuleConflict, "", "WriteConsistency is set twice", withTable(WriteConsistency(ConsistencyOne), WriteConsistency(ConsistencyAll))},
		{"CacheResult twice", RuleConflict, "", "CacheResult is set twice", withTable(CacheResult(1, 1), CacheResult(1, 2))},
		{"SoftDelete twice", RuleConflict, "", "SoftDelete is set twice", withTable(SoftDelete(10, nil), SoftDelete(10, nil))},
		// conflicting-options on one field
		{"two Column names", RuleConflict, "X", `two names, "mail" and "email_address"`, onX(func(s *utStr, x *string) {
			Bind(s, x, Column("mail"))
			Bind(s, x, Column("email_address"))
		})},
		{"two PartitionKey indexes", RuleConflict, "X", "PartitionKey is given twice, with indexes 1 and 2", withX[string](PartitionKey(1), PartitionKey(2))},
		{"two ClusteringKey orders", RuleConflict, "X", "ClusteringKey is given twice", withX[time.Time](ClusteringKey(0, ClusteringAsc), ClusteringKey(0, ClusteringDesc))},
		{"two lookups", RuleConflict, "X", "at most one lookup table", withX[string](Lookup("by_email", LookupBatch), Lookup("by_mail", LookupBatch))},
		{"Transient with PartitionKey", RuleConflict, "X", "Transient excludes the field|cannot also take PartitionKey", withX[string](Transient(), PartitionKey(1))},
		{"Transient with Sensitive, in two Binds", RuleConflict, "X", "cannot also take Sensitive", onX(func(s *utStr, x *string) {
			Bind(s, x, Sensitive())
			Bind(s, x, Transient())
		})},
		{"Transient with a blank Column", RuleConflict, "X", "cannot also take Column", withX[string](Transient(), Column(" "))},
		{"Transient with a role", RuleConflict, "X", "cannot also take CreatedAt", onX(func(s *utTime, x *time.Time) { CreatedAt(s, x, Transient()) })},
		{"CreatedAt and UpdatedAt", RuleConflict, "X", "contradict each other|bind two fields", onX(func(s *utTime, x *time.Time) { CreatedAt(s, x); UpdatedAt(s, x) })},
		{"Version and CreatedAt", RuleConflict, "X", "cannot also be a CreatedAt or UpdatedAt", onX(func(s *utTime, x *time.Time) { Version(s, x); CreatedAt(s, x) })},
		{"Version and UpdatedAt", RuleConflict, "X", "cannot also be a CreatedAt or UpdatedAt", onX(func(s *utTime, x *time.Time) { UpdatedAt(s, x); Version(s, x) })},
		{"Version on the counter (was counter-table)", RuleConflict, "X", "a field cannot be both", onX(func(s *utInt, x *int64) { Counter(s, x); Version(s, x) })},
		{"Version on a key of a counter table (was counter-table)", RuleConflict, "Rev", "use a regular column", of(func(e *counted, s *Schema[counted]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			Version(s, &e.Rev, ClusteringKey(0, ClusteringAsc))
			Counter(s, &e.Hits)
			Bind(s, &e.Made, Transient())
		})},
		{"UpdatedAt on a partition key", RuleConflict, "X", "a primary-key column can never be updated; stamp a regular column", onX(func(s *utTime, x *time.Time) {
			UpdatedAt(s, x, PartitionKey(1))
		})},
		{"UpdatedAt on a clustering key", RuleConflict, "X", "stamp a regular column", onX(func(s *utTime, x *time.Time) { UpdatedAt(s, x, ClusteringKey(0, ClusteringAsc)) })},
		{"Version on a partition key", RuleConflict, "X", "use a regular column", onX(func(s *utInt, x *int64) { Version(s, x, PartitionKey(1)) })},
		{"Counter with AsType", RuleConflict, "X", "AsType cannot change it", onX(func(s *utInt, x *int64) { Counter(s, x, AsType(CQLBigint)) })},
		{"AsType twice with different types", RuleConflict, "X", "AsType is given twice, with ASCII and TEXT", withX[string](AsType(CQLAscii), AsType(CQLText))},
		{"GeneratedUUID with two strategies", RuleConflict, "X", "bound twice, with UUIDTimeOrdered and UUIDRandom", onX(func(s *utUUID, x *uuid.UUID) {
			GeneratedUUID(s, x, UUIDTimeOrdered)
			GeneratedUUID(s, x, UUIDRandom)
		})},
		{"GeneratedUUID as TIMEUUID", RuleConflict, "X", "AsType(TIMEUUID) cannot hold them", onX(func(s *utUUID, x *uuid.UUID) {
			GeneratedUUID(s, x, UUIDTimeOrdered, AsType(CQLTimeUUID))
		})},

		// no-partition-key
		{"nothing bound", RuleNoPartitionKey, "", "bind one with kandra.PartitionKey(0)", of(func(e *two, s *Schema[two]) { s.Table("t") })},
		{"only a clustering key", RuleNoPartitionKey, "", "kandra.PartitionKey(0)", of(func(e *timed, s *Schema[timed]) {
			s.Table("t")
			Bind(s, &e.At, ClusteringKey(0, ClusteringDesc))
		})},

		// duplicate-partition-index
		{"two partition keys share an index", RuleDuplicatePartitionIndex, "X", "PartitionKey(0) is also given to ID|its own index", withX[string](PartitionKey(0))},

		// duplicate-lookup-table
		{"two lookups compose one name", RuleDuplicateLookupTable, "B", `"t_by_x" is also the lookup table of A`, of(func(e *three, s *Schema[three]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.A, Lookup("by_x", LookupBatch))
			Bind(s, &e.B, Lookup("by_x", LookupEventual))
		})},

		// counter-mix
		{"counter beside a text column", RuleCounterMix, "Note", "Hits is a Counter|servers reject", of(func(e *mix, s *Schema[mix]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			Counter(s, &e.Hits)
		})},

		// duplicate-timestamp
		{"CreatedAt twice, the second embedded", RuleDuplicateTimestamp, "Audit.Created", "CreatedAt is already bound to Made; an entity has at most one", of(func(e *audited, s *Schema[audited]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			CreatedAt(s, &e.Made)
			CreatedAt(s, &e.Created)
		})},
		{"UpdatedAt twice", RuleDuplicateTimestamp, "At2", "UpdatedAt is already bound to At", of(func(e *timed, s *Schema[timed]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			UpdatedAt(s, &e.At)
			UpdatedAt(s, &e.At2)
		})},

		// duplicate-version
		{"Version twice", RuleDuplicateVersion, "Stamp", "Version is already bound to Rev; an entity has at most one", of(func(e *versioned, s *Schema[versioned]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			Version(s, &e.Rev)
			Version(s, &e.Stamp)
		})},

		// soft-delete-marker
		{"marker is unexported", RuleSoftDeleteMarker, "deleted", "must be an exported bool field", of(func(e *marked, s *Schema[marked]) {
			s.Table("t", SoftDelete(60, &e.deleted))
			Bind(s, &e.ID, PartitionKey(0))
		})},
		{"marker is a global variable", RuleSoftDeleteMarker, "", "not the address of a bool field", of(func(e *marked, s *Schema[marked]) {
			s.Table("t", SoftDelete(60, &rulesGlobalFlag))
			Bind(s, &e.ID, PartitionKey(0))
		})},
		{"marker in a non-embedded struct", RuleSoftDeleteMarker, "Flags.Deleted", "non-embedded", of(func(e *markedNested, s *Schema[markedNested]) {
			s.Table("t", SoftDelete(60, &e.Flags.Deleted))
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.Flags, Transient())
		})},
		{"marker is Transient (was conflicting-options)", RuleSoftDeleteMarker, "Deleted", "Transient; it must be a column", marker(func(e *marked, s *Schema[marked]) {
			Bind(s, &e.Deleted, Transient())
		})},
		{"marker is a partition key", RuleSoftDeleteMarker, "Deleted", "is a partition key|a key column can never be updated", marker(func(e *marked, s *Schema[marked]) {
			Bind(s, &e.Deleted, PartitionKey(1))
		})},
		{"marker is a clustering key", RuleSoftDeleteMarker, "Deleted", "is a clustering key|can never be updated", marker(func(e *marked, s *Schema[marked]) {
			Bind(s, &e.Deleted, ClusteringKey(0, ClusteringAsc))
		})},

		// key-conflict
		{"partition and clustering key", RuleKeyConflict, "X", "both a partition key and a clustering key", withX[time.Time](PartitionKey(1), ClusteringKey(0, ClusteringDesc))},

		// invalid-name
		{"table name of 49 characters", RuleInvalidName, "", `"` + name49 + `" is 49 characters long; the limit is 48`, tableNamed(name49)},
		{`table name "t-dash"`, RuleInvalidName, "", `contains '-'; only ASCII letters, digits and _ are allowed`, tableNamed("t-dash")},
		{`table name "t space"`, RuleInvalidName, "", `contains ' '`, tableNamed("t space")},
		{`table name "naïve"`, RuleInvalidName, "", `contains 'ï'`, tableNamed("naïve")},
		{`table name "ks.t"`, RuleInvalidName, "", `contains '.'`, tableNamed("ks.t")},
		{`table name "t$"`, RuleInvalidName, "", `contains '$'`, tableNamed("t$")},
		{`table name "t\"q"`, RuleInvalidName, "", `contains '"'`, tableNamed(`t"q`)},
		{"lookup table name too long", RuleInvalidName, "X", `"` + name40 + `_by_xyzab" is 49 characters`, of(func(e *rulesUT[string], s *utStr) {
			s.Table(name40)
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.X, Lookup("by_xyzab", LookupBatch))
		})},
		{"blank lookup suffix", RuleInvalidName, "X", "suffix is blank", withX[string](Lookup("  ", LookupBatch))},
		{"empty lookup suffix", RuleInvalidName, "X", "suffix is blank", withX[string](Lookup("", LookupBatch))},
		{"lookup suffix with a dash", RuleInvalidName, "X", `"t_by-x" contains '-'`, withX[string](Lookup("by-x", LookupBatch))},
		{"index name too long", RuleInvalidName, "Email", `"` + name40 + `_email_idx" is 50 characters|shorten the table or column name`, of(func(e *two, s *Schema[two]) {
			s.Table(name40)
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.Email, SecondaryIndex())
		})},
		{"index name with a space", RuleInvalidName, "X", `"t_e x_idx" contains ' '`, withX[string](Column("e x"), SecondaryIndex())},
		{"column name not UTF-8", RuleInvalidName, "X", "not valid UTF-8", withX[string](Column("na\xffme"))},

		// duplicate-column
		{"same name after snake-casing", RuleDuplicateColumn, "UserId", `"user_id" is also the column name of UserID; rename one with kandra.Column`, of(func(e *dupColumn, s *Schema[dupColumn]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
		})},
		{"override equals a derived name", RuleDuplicateColumn, "B", `"b" is also the column name of A`, of(func(e *three, s *Schema[three]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.A, Column("b"))
		})},

		// duplicate-clustering-index
		{"two clustering keys share an index", RuleDuplicateClusteringIndex, "At2", "ClusteringKey(0, ...) is also given to At|its own index", of(func(e *timed, s *Schema[timed]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.At, ClusteringKey(0, ClusteringAsc))
			Bind(s, &e.At2, ClusteringKey(0, ClusteringDesc))
		})},

		// unsupported-type: the Detail names the Go type and both ways out.
		{"uint32", RuleUnsupportedType, "X", "type uint32|kandra.Bind(s, &e.X, kandra.Transient())|kandra.AsType(...)", withX[uint32]()},
		{"uint", RuleUnsupportedType, "X", "type uint:|Transient|AsType", withX[uint]()},
		{"uint64", RuleUnsupportedType, "X", "type uint64|Transient|AsType", withX[uint64]()},
		{"uint8", RuleUnsupportedType, "X", "type uint8|Transient|AsType", withX[uint8]()},
		{"struct", RuleUnsupportedType, "X", "type kandra.Address|Transient|AsType", withX[Address]()},
		{"chan", RuleUnsupportedType, "X", "type chan int|Transient|AsType", withX[chan int]()},
		{"func", RuleUnsupportedType, "X", "type func()|Transient|AsType", withX[func()]()},
		{"complex128", RuleUnsupportedType, "X", "type complex128|Transient|AsType", withX[complex128]()},
		{"interface", RuleUnsupportedType, "X", "type interface {}|Transient|AsType", withX[any]()},
		{"array", RuleUnsupportedType, "X", "type [4]uint8|Transient|AsType", withX[[4]byte]()},
		{"[]uint16", RuleUnsupportedType, "X", "type []uint16|Transient|AsType", withX[[]uint16]()},
		{"map with a struct key", RuleUnsupportedType, "X", "type map[kandra.Address]string|Transient|AsType", withX[map[Address]string]()},
		{"[]*string", RuleUnsupportedType, "X", "(*string)|collections cannot hold nulls|Transient|AsType", withX[[]*string]()},
		{"**string", RuleUnsupportedType, "X", "type **string|pointer to a pointer|Transient|AsType", withX[**string]()},
		{"map with a duration key", RuleUnsupportedType, "X", "time.Duration|map key|Transient|AsType", withX[map[time.Duration]string]()},
		{"set of durations", RuleUnsupportedType, "X", "time.Duration|set element|Transient|AsType", withX[map[time.Duration]struct{}]()},
		{"list of sets of durations", RuleUnsupportedType, "X", "time.Duration|set element|Transient|AsType", withX[[]map[time.Duration]struct{}]()},
		{"AsType of the zero CQLType", RuleUnsupportedType, "X", "zero CQLType", withX[string](AsType(CQLType{}))},
		{"AsType of a set of durations", RuleUnsupportedType, "X", "AsType(SET<DURATION>)|set element", withX[[]time.Duration](AsType(SetOf(CQLDuration)))},

		// key-type
		{"duration partition key", RuleKeyType, "ID", "partition key cannot hold a duration|PRIMARY KEY", of(func(e *durationKey, s *Schema[durationKey]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
		})},
		{"counter partition key", RuleKeyType, "X", "partition key cannot hold a counter", onX(func(s *utInt, x *int64) { Counter(s, x, PartitionKey(1)) })},
		{"counter clustering key", RuleKeyType, "X", "clustering key cannot hold a counter", onX(func(s *utInt, x *int64) { Counter(s, x, ClusteringKey(0, ClusteringAsc)) })},
		{"duration clustering key", RuleKeyType, "X", "clustering key cannot hold a duration", withX[time.Duration](ClusteringKey(0, ClusteringAsc))},
		{"list of durations in a clustering key", RuleKeyType, "X", "a duration (type LIST<DURATION>)", withX[[]time.Duration](ClusteringKey(0, ClusteringAsc))},
		{"map holding durations in a partition key", RuleKeyType, "X", "a duration (type MAP<TEXT, DURATION>)", withX[map[string]time.Duration](PartitionKey(1))},
		{"duration lookup column", RuleKeyType, "X", "lookup column is its lookup table's primary key and cannot hold a duration", withX[time.Duration](Lookup("by_x", LookupBatch))},
		{"counter lookup column", RuleKeyType, "X", "lookup column|cannot hold a counter", onX(func(s *utInt, x *int64) { Counter(s, x, Lookup("by_x", LookupBatch)) })},

		// counter-table
		{"default TTL", RuleCounterTable, "", "cannot have a default TTL", counterTable(DefaultTTL(60))},
		{"soft delete", RuleCounterTable, "", "cannot use SoftDelete", counterTable(SoftDelete(60, nil))},
		{"CreatedAt", RuleCounterTable, "Made", "non-counter timestamp column", of(func(e *counted, s *Schema[counted]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			Counter(s, &e.Hits)
			Counter(s, &e.Rev)
			CreatedAt(s, &e.Made)
		})},
		{"UpdatedAt", RuleCounterTable, "Made", "non-counter timestamp column", of(func(e *counted, s *Schema[counted]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			Counter(s, &e.Hits)
			Counter(s, &e.Rev)
			UpdatedAt(s, &e.Made)
		})},
		{"lookup on a key", RuleCounterTable, "B", "cannot have lookup tables", counterTable(nil, Lookup("by_b", LookupBatch))},
		{"index on a key", RuleCounterTable, "B", "cannot have secondary indexes", counterTable(nil, SecondaryIndex())},
		{"index on the counter", RuleCounterTable, "X", "cannot have secondary indexes", onX(func(s *utInt, x *int64) { Counter(s, x, SecondaryIndex()) })},

		// lookup
		{"lookup on the partition key", RuleLookup, "ID", `partition key cannot have a lookup table|declare "id" twice`, of(func(e *two, s *Schema[two]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0), Lookup("by_id", LookupBatch))
		})},
		{"lookup on a clustering key", RuleLookup, "X", "clustering key cannot have a lookup table", withX[time.Time](ClusteringKey(0, ClusteringAsc), Lookup("by_x", LookupEventual))},

		// secondary-index
		{"index on the only partition key", RuleSecondaryIndex, "ID", "only partition-key column|query by the key instead", of(func(e *two, s *Schema[two]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0), SecondaryIndex())
		})},
		{"index on a duration", RuleSecondaryIndex, "X", "holding a duration", withX[time.Duration](SecondaryIndex())},
		{"index on a map holding durations", RuleSecondaryIndex, "X", "holding a duration", withX[map[string]time.Duration](SecondaryIndex())},

		// option-range on the table
		{"TTL -1", RuleOptionRange, "", "DefaultTTL(-1) is outside 0..630720000 seconds", withTable(DefaultTTL(-1))},
		{"TTL 630720001", RuleOptionRange, "", "DefaultTTL(630720001) is outside 0..630720000", withTable(DefaultTTL(MaxTTL + 1))},
		{"gc grace -1", RuleOptionRange, "", "GCGraceSeconds(-1) is outside 0..2147483647", withTable(GCGraceSeconds(-1))},
		{"soft-delete TTL -1", RuleOptionRange, "", "SoftDelete TTL -1 is outside", withTable(SoftDelete(-1, nil))},
		{"soft-delete TTL 630720001", RuleOptionRange, "", "SoftDelete TTL 630720001", withTable(SoftDelete(MaxTTL+1, nil))},
		{"cache TTL -1", RuleOptionRange, "", "CacheResult needs a TTL and a maximum size of at least 0", withTable(CacheResult(-1, 100))},
		{"cache size -1", RuleOptionRange, "", "CacheResult", withTable(CacheResult(60, -1))},
		{"read consistency 11", RuleOptionRange, "", "ReadConsistency is given an unknown level", withTable(ReadConsistency(Consistency(11)))},
		{"write consistency 0xFFFF", RuleOptionRange, "", "WriteConsistency is given an unknown level", withTable(WriteConsistency(Consistency(0xFFFF)))},
		// option-range on the enums a field option carries, naming the field
		{"ClusteringOrder(5)", RuleOptionRange, "X", "ClusteringOrder(5); use kandra.ClusteringAsc or kandra.ClusteringDesc", withX[time.Time](ClusteringKey(0, ClusteringOrder(5)))},
		{"LookupConsistency(9)", RuleOptionRange, "X", "LookupConsistency(9); use kandra.LookupBatch or kandra.LookupEventual", withX[string](Lookup("by_x", LookupConsistency(9)))},
		{"UUIDStrategy(7)", RuleOptionRange, "X", "UUIDStrategy(7); use kandra.UUIDTimeOrdered or kandra.UUIDRandom", onX(func(s *utUUID, x *uuid.UUID) { GeneratedUUID(s, x, UUIDStrategy(7)) })},
	}
}

// counterTable builds a counter table keyed by A and B, with table option
// topt (if not nil) and key B bound with bopts.
func counterTable(topt TableOption, bopts ...FieldOption) built {
	type counter struct {
		A, B string
		Hits int64
	}
	return of(func(e *counter, s *Schema[counter]) {
		s.Table("t", topt)
		Bind(s, &e.A, PartitionKey(0))
		Bind(s, &e.B, append(bopts, PartitionKey(1))...)
		Counter(s, &e.Hits)
	})
}

func TestRules(t *testing.T) {
	if strconv.IntSize == 64 {
		t.Run("gc grace 2147483648", func(t *testing.T) {
			o := withTable(GCGraceSeconds(int(int64(math.MaxInt32) + 1))).run(t)
			wantSchemaError(t, o.err, RuleOptionRange, "", "GCGraceSeconds(2147483648)", o.entity)
		})
	}
	for _, c := range ruleCases() {
		t.Run(string(c.rule)+"/"+c.name, func(t *testing.T) {
			o := c.run.run(t)
			wantSchemaError(t, o.err, c.rule, c.field, c.detail, o.entity)
			if len(o.broken) == 0 || o.broken[0] != c.rule || slices.ContainsFunc(o.broken, func(r Rule) bool { return strings.Contains(string(r), "->") }) {
				t.Errorf("the checks fail with %q; want %q first, each check reporting its own rule", o.broken, c.rule)
			}
		})
	}
}

// TestRulesHaveCases fails when an entity rule of ruleTable has no failing
// case in ruleCases, or a keyspace rule none in keyspaceCases, so that a new
// rule cannot come without a test.
func TestRulesHaveCases(t *testing.T) {
	covered := map[Rule]bool{}
	for _, c := range ruleCases() {
		covered[c.rule] = true
	}
	for _, c := range keyspaceCases(t) {
		covered[c.rule] = true
	}
	for _, r := range ruleTable {
		if !covered[r.Rule] {
			t.Errorf("rule %q (%s) has no case", r.Rule, r.Scope)
		}
		if (r.Scope == EntityScope) != (r.entity != nil) || (r.Scope == KeyspaceScope) != (r.keyspace != nil) {
			t.Errorf("rule %q: scope %s does not match its check", r.Rule, r.Scope)
		}
	}
}

func TestRulesOrder(t *testing.T) {
	want := []Rule{
		RuleNotStruct, RuleDescribe, RuleTableMissing, RuleBinding, RuleConflict,
		RuleNoPartitionKey, RuleDuplicatePartitionIndex, RuleDuplicateLookupTable, RuleCounterMix,
		RuleDuplicateTimestamp, RuleDuplicateVersion, RuleSoftDeleteMarker, RuleKeyConflict,
		RuleInvalidName, RuleDuplicateColumn, RuleDuplicateClusteringIndex, RuleUnsupportedType,
		RuleKeyType, RuleCounterTable, RuleLookup, RuleSecondaryIndex, RuleOptionRange,
		RuleKeyspaceName, RuleReplication, RuleNameTaken,
	}
	infos := Rules()
	var got []Rule
	for i, ri := range infos {
		got = append(got, ri.Rule)
		scope := EntityScope
		if i >= slices.Index(want, RuleKeyspaceName) {
			scope = KeyspaceScope
		}
		if ri.Scope != scope || ri.Summary == "" {
			t.Errorf("rule %q: scope %s, summary %q; want scope %s and a summary", ri.Rule, ri.Scope, ri.Summary, scope)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Rules() =\n%q\nwant\n%q", got, want)
	}
	// The Kotlin library's checks keep their relative order.
	kotlin := []Rule{RuleTableMissing, RuleNoPartitionKey, RuleDuplicatePartitionIndex, RuleDuplicateLookupTable,
		RuleCounterMix, RuleDuplicateTimestamp, RuleDuplicateVersion, RuleSoftDeleteMarker}
	for i := 1; i < len(kotlin); i++ {
		if slices.Index(got, kotlin[i-1]) >= slices.Index(got, kotlin[i]) {
			t.Errorf("Kotlin rule %q does not come before %q", kotlin[i-1], kotlin[i])
		}
	}
	// The compile-time rules have no row.
	for _, gone := range []Rule{"timestamp-type", "version-type"} {
		if slices.Contains(got, gone) {
			t.Errorf("Rules() lists %q, a compile-time rule", gone)
		}
	}
	if s := Scope(9).String(); s != "Scope(9)" {
		t.Errorf("Scope(9).String() = %q", s)
	}
	infos[0].Rule = "mutated"
	if Rules()[0].Rule != RuleNotStruct {
		t.Errorf("mutating the slice Rules returned changed the rule order")
	}
}

// Compile-time proof that the typed binders take only the field types their
// rules allow (the compile-fail half is compile_test.go).
var (
	_ func(*Schema[rulesValueRecv], *time.Time, ...FieldOption) = CreatedAt[rulesValueRecv]
	_ func(*Schema[rulesValueRecv], *time.Time, ...FieldOption) = UpdatedAt[rulesValueRecv]
	_ func(*Schema[rulesValueRecv], *int64, ...FieldOption)     = Version[rulesValueRecv, int64]
	_ func(*Schema[rulesValueRecv], *time.Time, ...FieldOption) = Version[rulesValueRecv, time.Time]
	_ func(*Schema[rulesValueRecv], *int64, ...FieldOption)     = Counter[rulesValueRecv]
)

// TestRulesAccept: the schemas at the edge of a rule register, with the
// columns, options and DDL they declare.
func TestRulesAccept(t *testing.T) {
	t.Run("not-a-struct: a shallower field hides deeper ones", func(t *testing.T) {
		type AmbA struct{ Name string }
		type AmbB struct{ Name string }
		type shadowed struct {
			ID, Name string
			AmbA
			AmbB
		}
		ts := accept(t, func(e *shadowed, s *Schema[shadowed]) { s.Table("t"); Bind(s, &e.ID, PartitionKey(0)) })
		wantColumns(t, ts, "ID=id", "Name=name")
	})
	t.Run("conflicting-options: identical options merge", func(t *testing.T) {
		type merged struct{ ID, Email, Note string }
		ts := accept(t, func(e *merged, s *Schema[merged]) {
			s.Table("t", GCGraceSeconds(60), GCGraceSeconds(60), DefaultTTL(5), DefaultTTL(5))
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.ID, PartitionKey(0), Column("ident"))
			Bind(s, &e.Email, Column("mail"), Column(" "), Lookup("by_mail", LookupBatch))
			Bind(s, &e.Email, Column("mail"), Lookup("by_mail", LookupBatch), AsType(CQLAscii), AsType(CQLAscii))
			Bind(s, &e.Note, Transient(), Transient())
		})
		wantColumns(t, ts, "ID=ident", "Email=mail")
		if c := ts.ColumnByName("ident"); c == nil || !c.IsPartitionKey() {
			t.Errorf("ident is not the partition key")
		}
		if l := ts.LookupTables(); len(l) != 1 || l[0].Name() != "t_by_mail" || !ts.ColumnByName("mail").Type().Equal(CQLAscii) {
			t.Errorf("lookups %v, mail %v; want one lookup t_by_mail on an ASCII column", l, ts.ColumnByName("mail").Type())
		}
	})
	t.Run("conflicting-options: a blank Column falls back to the derived name", func(t *testing.T) {
		type blank struct{ ID, DisplayName, HomePage, NickName string }
		ts := accept(t, func(e *blank, s *Schema[blank]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.DisplayName, Column("  "))
			Bind(s, &e.HomePage, Column(""), Column("\t\n"))
			Bind(s, &e.NickName, Column(" "), Column("nick"))
		})
		wantColumns(t, ts, "ID=id", "DisplayName=display_name", "HomePage=home_page", "NickName=nick")
	})
	t.Run("conflicting-options: GeneratedUUID as UUID", func(t *testing.T) {
		type gen struct{ ID uuid.UUID }
		ts := accept(t, func(e *gen, s *Schema[gen]) {
			s.Table("t")
			GeneratedUUID(s, &e.ID, UUIDRandom, PartitionKey(0), AsType(CQLUUID))
		})
		if st, ok := ts.Column(0).GeneratedUUID(); !ok || st != UUIDRandom || !ts.Column(0).Type().Equal(CQLUUID) {
			t.Errorf("GeneratedUUID() = %v, %v; type %v", st, ok, ts.Column(0).Type())
		}
	})
	t.Run("soft-delete-marker: an exported bool column", func(t *testing.T) {
		type marked struct {
			ID      string
			Deleted bool
		}
		ts := accept(t, func(e *marked, s *Schema[marked]) {
			s.Table("t", SoftDelete(60, &e.Deleted))
			Bind(s, &e.ID, PartitionKey(0))
		})
		sd := ts.SoftDelete()
		if sd == nil || sd.TTLSeconds != 60 || sd.Marker == nil || sd.Marker.GoName() != "Deleted" || !sd.Marker.IsSoftDeleteMarker() {
			t.Errorf("SoftDelete() = %+v, want TTL 60 with marker Deleted", sd)
		}
	})
	t.Run("invalid-name: a table name of 48 characters", func(t *testing.T) {
		ts := accept(t, func(e *rulesUT[string], s *Schema[rulesUT[string]]) { s.Table(name48); Bind(s, &e.ID, PartitionKey(0)) })
		if ts.Name() != name48 {
			t.Errorf("table name = %q", ts.Name())
		}
	})
	t.Run("counter-table: TTL 0 and a timestamp clustering key", func(t *testing.T) {
		type counters struct {
			ID          string
			Day         time.Time
			Hits, Bytes int64
		}
		ts := accept(t, func(e *counters, s *Schema[counters]) {
			s.Table("t", DefaultTTL(0), GCGraceSeconds(3600))
			Bind(s, &e.ID, PartitionKey(0))
			CreatedAt(s, &e.Day, ClusteringKey(0, ClusteringDesc))
			Counter(s, &e.Hits)
			Counter(s, &e.Bytes)
		})
		if !ts.IsCounterTable() {
			t.Errorf("IsCounterTable() = false")
		}
		ddl := CreateTable(ts)
		for _, want := range []string{"    hits COUNTER,\n", "    bytes COUNTER,\n", "default_time_to_live = 0", "CLUSTERING ORDER BY (day DESC)"} {
			if !strings.Contains(ddl, want) {
				t.Errorf("DDL %q lacks %q", ddl, want)
			}
		}
	})
	t.Run("secondary-index: composite partition key, clustering key, collection", func(t *testing.T) {
		type indexed struct {
			A, B string
			At   time.Time
			Tags []string
		}
		ts := accept(t, func(e *indexed, s *Schema[indexed]) {
			s.Table("t")
			Bind(s, &e.A, PartitionKey(0), SecondaryIndex())
			Bind(s, &e.B, PartitionKey(1))
			Bind(s, &e.At, ClusteringKey(0, ClusteringDesc), SecondaryIndex())
			Bind(s, &e.Tags, SecondaryIndex())
		})
		want := []string{
			"CREATE INDEX IF NOT EXISTS t_a_idx ON t (a);",
			"CREATE INDEX IF NOT EXISTS t_at_idx ON t (at);",
			"CREATE INDEX IF NOT EXISTS t_tags_idx ON t (tags);",
		}
		if stmts := Statements(ts); len(stmts) != 4 || !slices.Equal(stmts[1:], want) {
			t.Errorf("statements = %q, want the table then %q", stmts, want)
		}
	})
	t.Run("option-range: the edges of every range", func(t *testing.T) {
		type edges struct {
			ID      string
			At      time.Time
			Deleted bool
		}
		ts := accept(t, func(e *edges, s *Schema[edges]) {
			s.Table("t", DefaultTTL(MaxTTL), GCGraceSeconds(math.MaxInt32), SoftDelete(MaxTTL, &e.Deleted), CacheResult(0, 0),
				ReadConsistency(ConsistencyLocalOne), WriteConsistency(ConsistencyAny))
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.At, ClusteringKey(0, ClusteringDesc))
		})
		if ttl, ok := ts.DefaultTTL(); !ok || ttl != MaxTTL {
			t.Errorf("DefaultTTL() = %d, %v", ttl, ok)
		}
		if gc, ok := ts.GCGraceSeconds(); !ok || gc != math.MaxInt32 {
			t.Errorf("GCGraceSeconds() = %d, %v", gc, ok)
		}
		if r, ok := ts.ReadConsistency(); !ok || r != ConsistencyLocalOne {
			t.Errorf("ReadConsistency() = %v, %v", r, ok)
		}
		if w, ok := ts.WriteConsistency(); !ok || w != ConsistencyAny {
			t.Errorf("WriteConsistency() = %v, %v", w, ok)
		}
		if c := ts.CacheResult(); c == nil || c.TTLSeconds != 0 || c.MaxSize != 0 {
			t.Errorf("CacheResult() = %+v", c)
		}
		if sd := ts.SoftDelete(); sd == nil || sd.TTLSeconds != MaxTTL {
			t.Errorf("SoftDelete() = %+v", sd)
		}
	})
}

func wantColumns(t *testing.T, ts *TableSchema, want ...string) {
	t.Helper()
	var got []string
	for _, c := range ts.Columns() {
		got = append(got, c.GoName()+"="+c.Name())
	}
	if !slices.Equal(got, want) {
		t.Errorf("columns = %q, want %q", got, want)
	}
}

// TestFirstRuleWins: an entity that breaks several rules reports the one
// that comes first in Rules(); the checks, run on past the first failure,
// show that it does break every rule listed.
func TestFirstRuleWins(t *testing.T) {
	type dupColType struct {
		ID     string
		X      uint32
		UserID string
		UserId string //nolint:revive
	}
	type mix struct {
		ID   string
		Hits int64
		Note string
	}
	type versions struct {
		ID     string
		V1, V2 int64
		C1, C2 time.Time
	}
	type marked struct {
		ID      string
		Deleted bool
		deleted bool
	}
	type AmbA struct{ Name string }
	type AmbB struct{ Name string }
	type ambiguous struct {
		AmbA
		AmbB
	}
	type typeBeforeKey struct {
		ID time.Duration
		X  uint32
	}
	type three struct {
		A    string
		B, C time.Time
	}
	type counterVersion struct {
		ID        string
		Rev, Hits int64
	}
	type durationKey struct{ ID time.Duration }
	cases := []struct {
		name   string
		broken []Rule // every rule the entity breaks, in Rules() order
		run    built
	}{
		{"no partition key and invalid table name", []Rule{RuleNoPartitionKey, RuleInvalidName}, of(func(e *rulesUT[string], s *utStr) {
			s.Table("t-multi")
		})},
		{"duplicate column and unsupported type", []Rule{RuleDuplicateColumn, RuleUnsupportedType}, of(func(e *dupColType, s *Schema[dupColType]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
		})},
		{"counter mix, counter-table TTL and TTL range", []Rule{RuleCounterMix, RuleCounterTable, RuleOptionRange}, of(func(e *mix, s *Schema[mix]) {
			s.Table("t", DefaultTTL(-5))
			Bind(s, &e.ID, PartitionKey(0))
			Counter(s, &e.Hits)
		})},
		{"duration key, index on the only key and TTL range", []Rule{RuleKeyType, RuleSecondaryIndex, RuleOptionRange}, of(func(e *durationKey, s *Schema[durationKey]) {
			s.Table("t", DefaultTTL(-1))
			Bind(s, &e.ID, PartitionKey(0), SecondaryIndex())
		})},
		{"Table twice and no partition key", []Rule{RuleConflict, RuleNoPartitionKey}, of(func(e *rulesUT[string], s *utStr) {
			s.Table("t")
			s.Table("t")
		})},
		{"no Table and a global binding", []Rule{RuleTableMissing, RuleBinding, RuleInvalidName}, of(func(e *rulesUT[string], s *utStr) {
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &rulesGlobalID)
		})},
		{"two versions bound before two created-at timestamps", []Rule{RuleDuplicateTimestamp, RuleDuplicateVersion}, of(func(e *versions, s *Schema[versions]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			Version(s, &e.V1)
			Version(s, &e.V2)
			CreatedAt(s, &e.C1)
			CreatedAt(s, &e.C2)
		})},
		{"unexported marker and no partition key", []Rule{RuleNoPartitionKey, RuleSoftDeleteMarker}, of(func(e *marked, s *Schema[marked]) {
			s.Table("t", SoftDelete(60, &e.deleted))
		})},
		{"unexported marker and Table twice", []Rule{RuleConflict, RuleSoftDeleteMarker}, of(func(e *marked, s *Schema[marked]) {
			s.Table("t", SoftDelete(60, &e.deleted))
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
		})},
		{"Transient marker and no partition key", []Rule{RuleNoPartitionKey, RuleSoftDeleteMarker}, of(func(e *marked, s *Schema[marked]) {
			s.Table("t", SoftDelete(60, &e.Deleted))
			Bind(s, &e.Deleted, Transient())
		})},
		{"ambiguous embedding and no Table", []Rule{RuleNotStruct, RuleTableMissing, RuleNoPartitionKey, RuleInvalidName}, of(func(*ambiguous, *Schema[ambiguous]) {})},
		{"not a struct, with a value-receiver Describe", []Rule{RuleNotStruct, RuleDescribe, RuleTableMissing, RuleNoPartitionKey, RuleInvalidName}, of(func(*rulesValueInt, *Schema[rulesValueInt]) {})},
		{"value receiver and no Table", []Rule{RuleDescribe, RuleTableMissing, RuleNoPartitionKey, RuleInvalidName}, of(func(*rulesValueRecv, *Schema[rulesValueRecv]) {})},
		{"Transient with Sensitive and no partition key", []Rule{RuleConflict, RuleNoPartitionKey}, of(func(e *rulesUT[string], s *utStr) {
			s.Table("t")
			Bind(s, &e.X, Transient(), Sensitive())
		})},
		{"unsupported type on a later field than a duration key", []Rule{RuleUnsupportedType, RuleKeyType}, of(func(e *typeBeforeKey, s *Schema[typeBeforeKey]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
		})},
		{"lookup and index on the only key, gc grace range", []Rule{RuleLookup, RuleSecondaryIndex, RuleOptionRange}, of(func(e *rulesUT[string], s *utStr) {
			s.Table("t", GCGraceSeconds(-1))
			Bind(s, &e.ID, PartitionKey(0), SecondaryIndex(), Lookup("by_id", LookupBatch))
		})},
		{"duplicate lookup table with an invalid name", []Rule{RuleDuplicateLookupTable, RuleInvalidName, RuleLookup}, of(func(e *rulesUT[string], s *utStr) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0), Lookup("by-x", LookupBatch))
			Bind(s, &e.X, Lookup("by-x", LookupBatch))
		})},
		{"key conflict and duplicate clustering index", []Rule{RuleKeyConflict, RuleDuplicateClusteringIndex}, of(func(e *three, s *Schema[three]) {
			s.Table("t")
			Bind(s, &e.A, PartitionKey(0), ClusteringKey(0, ClusteringAsc))
			Bind(s, &e.B, ClusteringKey(1, ClusteringAsc))
			Bind(s, &e.C, ClusteringKey(1, ClusteringAsc))
		})},
		{"Version on a key of a counter table", []Rule{RuleConflict, RuleCounterTable}, of(func(e *counterVersion, s *Schema[counterVersion]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			Version(s, &e.Rev, ClusteringKey(0, ClusteringAsc))
			Counter(s, &e.Hits)
		})},
		{"AsType twice, the last a duration in a key", []Rule{RuleConflict, RuleKeyType}, withX[time.Duration](PartitionKey(1), AsType(ListOf(CQLDuration)), AsType(CQLDuration))},
		{"invalid ClusteringOrder on a duration clustering key", []Rule{RuleKeyType, RuleOptionRange}, withX[time.Duration](ClusteringKey(0, ClusteringOrder(5)))},
		{"invalid LookupConsistency on a key", []Rule{RuleLookup, RuleOptionRange}, of(func(e *rulesUT[string], s *utStr) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0), Lookup("by_id", LookupConsistency(9)))
		})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := c.run.run(t)
			if !slices.Equal(o.broken, c.broken) {
				t.Errorf("the entity breaks %q, want %q", o.broken, c.broken)
			}
			var se *SchemaError
			if !errors.As(o.err, &se) || se.Rule != c.broken[0] {
				t.Errorf("error = %v; want rule %q, the first of %q in Rules() order", o.err, c.broken[0], c.broken)
			}
		})
	}
}

// TestBadInputNeverPanics: odd input comes back as a *SchemaError.
func TestBadInputNeverPanics(t *testing.T) {
	type empty struct{}
	type onlyUnexported struct{ id string }
	type array struct {
		ID  string
		Arr [4]string
	}
	type everything struct {
		ID   string
		Day  time.Time
		Hits int64
		Tags map[string]struct{}
		Del  bool
	}
	cases := map[string]built{
		"empty struct": of(func(e *empty, s *Schema[empty]) { s.Table("t"); Bind(s, e, PartitionKey(0)) }),
		"binding the whole struct": of(func(e *rulesUT[string], s *Schema[rulesUT[string]]) {
			s.Table("t")
			Bind(s, e, PartitionKey(0))
		}),
		"only unexported":  of(func(e *onlyUnexported, s *Schema[onlyUnexported]) { s.Table("t"); Bind(s, &e.id, PartitionKey(0)) }),
		"array element":    of(func(e *array, s *Schema[array]) { s.Table("t"); Bind(s, &e.ID, PartitionKey(0)); Bind(s, &e.Arr[2]) }),
		"non-struct func":  of(func(*func(), *Schema[func()]) {}),
		"non-struct map":   of(func(*map[string]int, *Schema[map[string]int]) {}),
		"non-struct ptr":   of(func(**rulesUT[string], *Schema[*rulesUT[string]]) {}),
		"zero AsType map":  withX[map[string]string](AsType(MapOf(CQLType{}, CQLType{}))),
		"zero AsType list": withX[[]string](AsType(ListOf(CQLType{}))),
		"everything at once": of(func(e *everything, s *Schema[everything]) {
			s.Table("t", DefaultTTL(-3), GCGraceSeconds(-3), SoftDelete(-3, &e.Del), CacheResult(-3, -3), ReadConsistency(Consistency(0xFFFF)))
			Bind(s, &e.ID, PartitionKey(-1), ClusteringKey(-1, ClusteringOrder(9)), Lookup("", LookupConsistency(9)), AsType(CQLType{}), Column("\x00"))
			Bind(s, &e.Tags, PartitionKey(-1), AsType(MapOf(CQLType{}, CQLType{})))
			Counter(s, &e.Hits, Lookup("x", LookupBatch), SecondaryIndex())
			CreatedAt(s, &e.Day, Transient())
			GeneratedUUID(s, nil, UUIDStrategy(7))
		}),
		"map of struct keys":    withX[map[struct{ A int }]struct{ B int }](),
		"pointer to func":       withX[*func()](),
		"pointer to interface":  withX[*any](),
		"pointer to pointer":    withX[***int](),
		"nested unsupported":    withX[[][]map[string][]uint](),
		"empty struct field":    withX[struct{}](),
		"uintptr":               withX[uintptr](),
		"map of empty structs":  withX[map[struct{}]struct{}](),
		"list of empty structs": withX[[]struct{}](),
		"negative key indexes": of(func(e *rulesUT[time.Time], s *Schema[rulesUT[time.Time]]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(-1), PartitionKey(-1))
			Bind(s, &e.X, ClusteringKey(-7, ClusteringDesc), ClusteringKey(-7, ClusteringOrder(200)))
		}),
	}
	for _, name := range slices.Sorted(maps.Keys(cases)) {
		t.Run(name, func(t *testing.T) {
			var se *SchemaError
			if o := cases[name].run(t); !errors.As(o.err, &se) {
				t.Errorf("error = %v (%T), want a *SchemaError", o.err, o.err)
			}
		})
	}
	t.Run("nil options are ignored", func(t *testing.T) {
		type nilOptions struct{ ID, Name string }
		ts, validators, err := buildSchema(func(e *nilOptions, s *Schema[nilOptions]) {
			s.Table("t", nil, GCGraceSeconds(5), nil)
			Bind(s, &e.ID, nil, PartitionKey(0), nil)
			Bind(s, &e.Name)
			s.Validate(nil)
		})
		if err != nil || len(validators) != 0 {
			t.Fatalf("err %v, %d validators; want nil options ignored", err, len(validators))
		}
		tbl := newTable(ts, validators)
		selectors := map[string]func(*nilOptions) *string{
			"nil":         func(*nilOptions) *string { return nil },
			"global":      func(*nilOptions) *string { return &rulesGlobalID },
			"other value": func(*nilOptions) *string { return &new(nilOptions).Name },
			"local":       func(*nilOptions) *string { s := "x"; return &s },
		}
		for name, sel := range selectors {
			if _, err := noPanicField(t, tbl, sel); err == nil {
				t.Errorf("FieldOf(%s) succeeded", name)
			}
		}
	})
}

func noPanicField[T, V any](t *testing.T, tbl *Table[T], sel func(*T) *V) (f Field[T, V], err error) {
	t.Helper()
	err = noPanic(t, func() error { f, err = FieldOf(tbl, sel); return err })
	return f, err
}

// rulesRecList and rulesRecMap are Go types with no finite CQL type.
type rulesRecList []rulesRecList

type rulesRecMap map[string]rulesRecMap

const rulesChildEnv = "KANDRA_RULES_TEST_CHILD"

// TestRecursiveTypeDoesNotCrash builds entities with a field of a
// recursive type in a child process: a stack overflow cannot be recovered.
func TestRecursiveTypeDoesNotCrash(t *testing.T) {
	if os.Getenv(rulesChildEnv) != "" {
		debug.SetMaxStack(64 << 20) // fail fast if it recurses forever
		o := withX[rulesRecList]().run(t)
		wantSchemaError(t, o.err, RuleUnsupportedType, "X", "recursive type kandra.rulesRecList", o.entity)
		o = withX[rulesRecMap]().run(t)
		wantSchemaError(t, o.err, RuleUnsupportedType, "X", "recursive type kandra.rulesRecMap", o.entity)
		return
	}
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRecursiveTypeDoesNotCrash$", "-test.count=1")
	cmd.Env = append(os.Environ(), rulesChildEnv+"=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		text := string(out)
		if i := strings.Index(text, "fatal error"); i >= 0 {
			text = text[i:min(len(text), i+600)]
		}
		t.Fatalf("building an entity with a recursive field type failed or crashed (%v):\n%s", err, text)
	}
}

// ---------------------------------------------------------------------------
// The keyspace rules.

type keyspaceCase struct {
	name     string
	rule     Rule
	detail   string // "|"-separated parts of the Detail
	keyspace string
	r        Replication
	tables   []SchemaSource
}

// keyspaceCases is one failing case per branch of every keyspace rule.
func keyspaceCases(t *testing.T) []keyspaceCase {
	type usersA struct{ ID string }
	type usersB struct{ ID string }
	type lookupOwner struct{ ID, Email string }
	type lookupVictim struct{ ID string }
	type idxA struct{ ID, BC string }
	type idxB struct{ ID, C string }
	type viewIdx struct{ ID, V string }
	type viewTable struct{ ID string }
	type own struct{ ID, X, Y string }
	a := accept(t, func(e *usersA, s *Schema[usersA]) { s.Table("users"); Bind(s, &e.ID, PartitionKey(0)) })
	b := accept(t, func(e *usersB, s *Schema[usersB]) { s.Table("users"); Bind(s, &e.ID, PartitionKey(0)) })
	owner := accept(t, func(e *lookupOwner, s *Schema[lookupOwner]) {
		s.Table("people")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.Email, Lookup("by_email", LookupBatch))
	})
	victim := accept(t, func(e *lookupVictim, s *Schema[lookupVictim]) {
		s.Table("people_by_email")
		Bind(s, &e.ID, PartitionKey(0))
	})
	ia := accept(t, func(e *idxA, s *Schema[idxA]) {
		s.Table("ti_a")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.BC, Column("b_c"), SecondaryIndex()) // ti_a_b_c_idx
	})
	ib := accept(t, func(e *idxB, s *Schema[idxB]) {
		s.Table("ti_a_b")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.C, SecondaryIndex()) // ti_a_b_c_idx
	})
	vi := accept(t, func(e *viewIdx, s *Schema[viewIdx]) {
		s.Table("tv")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.V, SecondaryIndex()) // tv_v_idx, viewed by ScyllaDB as tv_v_idx_index
	})
	vt := accept(t, func(e *viewTable, s *Schema[viewTable]) { s.Table("tv_v_idx_index"); Bind(s, &e.ID, PartitionKey(0)) })
	ow := accept(t, func(e *own, s *Schema[own]) {
		s.Table("to")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.X, SecondaryIndex())                   // to_x_idx
		Bind(s, &e.Y, Lookup("x_idx_index", LookupBatch)) // to_x_idx_index
	})
	one := SimpleStrategy(1)
	return []keyspaceCase{
		// keyspace-name (also checked by CreateKeyspace)
		{"empty name", RuleKeyspaceName, "the keyspace name is empty", "", one, nil},
		{"name with a dash", RuleKeyspaceName, "contains '-'; only ASCII letters, digits and _", "my-app", one, nil},
		{"qualified name", RuleKeyspaceName, "contains '.'", "ks.app", one, nil},
		{"name of 49 characters", RuleKeyspaceName, "is 49 characters long; the limit is 48", name49, one, []SchemaSource{a}},
		// replication (also checked by CreateKeyspace)
		{"SimpleStrategy(0)", RuleReplication, "at least 1, not 0", "app", SimpleStrategy(0), nil},
		{"SimpleStrategy(-1)", RuleReplication, "at least 1, not -1", "app", SimpleStrategy(-1), nil},
		{"no datacenter", RuleReplication, "at least one datacenter with a replica", "app", NetworkTopologyStrategy(nil), nil},
		{"no replica", RuleReplication, "at least one datacenter with a replica", "app", NetworkTopologyStrategy(map[string]int{"dc1": 0, "dc2": 0}), nil},
		{"negative factor", RuleReplication, `datacenter "dc2" has a negative replication factor -1`, "app", NetworkTopologyStrategy(map[string]int{"dc1": 3, "dc2": -1}), nil},
		{"empty datacenter name", RuleReplication, "a datacenter name is empty", "app", NetworkTopologyStrategy(map[string]int{"": 1}), nil},
		{"datacenter name with a newline", RuleReplication, `"dc\n" contains a control character`, "app", NetworkTopologyStrategy(map[string]int{"dc\n": 1}), nil},
		{"datacenter name not UTF-8", RuleReplication, `"dc\xff" is not valid UTF-8`, "app", NetworkTopologyStrategy(map[string]int{"dc\xff": 1}), nil},
		// name-taken
		{"two types, one table name", RuleNameTaken, `table name "users" of kandra.usersB is already the table name of kandra.usersA; names are unique per keyspace`, "app", one, []SchemaSource{a, b}},
		{"a table given twice", RuleNameTaken, `table "users" of kandra.usersA is given twice`, "app", one, []SchemaSource{a, owner, a}},
		{"a lookup table named like another type's table", RuleNameTaken, `lookup table name "people_by_email" of kandra.lookupOwner.Email is already the table name of kandra.lookupVictim`, "app", one, []SchemaSource{victim, owner}},
		{"a table named like another type's lookup table", RuleNameTaken, `table name "people_by_email" of kandra.lookupVictim is already the lookup table name of kandra.lookupOwner`, "app", one, []SchemaSource{owner, victim}},
		{"an index name used twice", RuleNameTaken, `index name "ti_a_b_c_idx" of kandra.idxB.C is already the index name of kandra.idxA`, "app", one, []SchemaSource{ia, ib}},
		{`a table named "{index}_index", after the index`, RuleNameTaken, `ScyllaDB view of index name "tv_v_idx_index" of kandra.viewIdx.V is already the table name of kandra.viewTable`, "app", one, []SchemaSource{vi, vt}},
		{`a table named "{index}_index", before the index`, RuleNameTaken, `"tv_v_idx_index" of kandra.viewIdx.V is already the table name of kandra.viewTable`, "app", one, []SchemaSource{vt, vi}},
		{`an own lookup named "{own index}_index"`, RuleNameTaken, `"to_x_idx_index" of kandra.own.X is already the lookup table name of kandra.own`, "app", one, []SchemaSource{ow}},
		// the first rule wins
		{"bad name, bad replication, a taken name", RuleKeyspaceName, "contains ' '", "my app", SimpleStrategy(0), []SchemaSource{a, b}},
		{"bad replication, a taken name", RuleReplication, "at least 1", "app", SimpleStrategy(0), []SchemaSource{a, b}},
	}
}

func TestKeyspaceRules(t *testing.T) {
	for _, c := range keyspaceCases(t) {
		t.Run(string(c.rule)+"/"+c.name, func(t *testing.T) {
			entity := "keyspace " + strconv.Quote(c.keyspace)
			var k *Keyspace
			err := noPanic(t, func() (err error) { k, err = NewKeyspace(c.keyspace, c.r, c.tables...); return err })
			if k != nil {
				t.Errorf("NewKeyspace returned a keyspace with the error")
			}
			wantSchemaError(t, err, c.rule, "", c.detail, entity)
			stmt, cerr := CreateKeyspace(c.keyspace, c.r)
			if c.rule == RuleNameTaken {
				if cerr != nil || stmt == "" {
					t.Errorf("CreateKeyspace = %q, %v; it checks no table", stmt, cerr)
				}
				return
			}
			wantSchemaError(t, cerr, c.rule, "", c.detail, entity)
			if stmt != "" {
				t.Errorf("CreateKeyspace returned %q with the error", stmt)
			}
		})
	}
}

// TestKeyspaceAccepts: two types with one table name register, and live
// in two keyspaces (one keyspace refuses them: TestKeyspaceRules).
func TestKeyspaceAccepts(t *testing.T) {
	type usersA struct{ ID, Email string }
	type usersB struct{ ID string }
	a := accept(t, func(e *usersA, s *Schema[usersA]) {
		s.Table("users")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.Email, Lookup("by_email", LookupBatch), SecondaryIndex())
	})
	b := accept(t, func(e *usersB, s *Schema[usersB]) { s.Table("users"); Bind(s, &e.ID, PartitionKey(0)) })
	ka, err := NewKeyspace("a", SimpleStrategy(1), a)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := NewKeyspace("b", NetworkTopologyStrategy(map[string]int{"dc1": 3, "dc2": 0}), b)
	if err != nil {
		t.Fatal(err)
	}
	if ka.Table("users") != a || kb.Table("users") != b {
		t.Errorf("Table(users) = %p, %p; want %p, %p", ka.Table("users"), kb.Table("users"), a, b)
	}
	if got := kb.Statements(); len(got) != 2 || got[1] != CreateTable(b, MustInKeyspace("b")) {
		t.Errorf("b.Statements() = %q", got)
	}
	defer func() {
		err, _ := recover().(error)
		wantSchemaError(t, err, RuleNameTaken, "", `"users"|kandra.usersA|kandra.usersB`, `keyspace "app"`)
	}()
	MustNewKeyspace("app", SimpleStrategy(1), a, b)
	t.Errorf("MustNewKeyspace did not panic")
}

// ---------------------------------------------------------------------------
// Every pair of field options on one field.

// pairOption is one option or role, applied to field X of rulesUT[V]. X is
// the only partition key when PartitionKey is among the pair; otherwise ID
// is.
type pairOption struct {
	name   string
	goType string                             // X's Go type the option needs; "" for any
	opt    func(goType string) FieldOption    // a plain option; nil for a role
	role   func(s, x any, opts []FieldOption) // a typed binder; nil for a plain option
	marker bool                               // SoftDelete's marker, a table option
	// has reports whether the built schema shows the option on X (nil when
	// X is not a column).
	has func(ts *TableSchema, x *ColumnSchema, goType string) bool
}

// pairAsType is the AsType each Go type of X takes: one the builder keeps
// and that differs from the derived type where there is such a type.
var pairAsType = map[string]CQLType{
	"string": CQLAscii, "time.Time": CQLDate, "int64": CQLVarint, "uuid.UUID": CQLTimeUUID, "bool": CQLBoolean,
}

const (
	pPK      = "PartitionKey"
	pCKAsc   = "ClusteringKey ASC"
	pCKDesc  = "ClusteringKey DESC"
	pBatch   = "Lookup BATCH"
	pEvent   = "Lookup EVENTUAL"
	pColumn  = "Column"
	pTrans   = "Transient"
	pIndex   = "SecondaryIndex"
	pSens    = "Sensitive"
	pAsType  = "AsType"
	pCreated = "CreatedAt"
	pUpdated = "UpdatedAt"
	pVerTime = "Version time.Time"
	pVerInt  = "Version int64"
	pCounter = "Counter"
	pUUIDv7  = "GeneratedUUID UUIDTimeOrdered"
	pUUIDv4  = "GeneratedUUID UUIDRandom"
	pMarker  = "SoftDelete marker"
)

func pairOptions() []pairOption {
	plain := func(o FieldOption) func(string) FieldOption { return func(string) FieldOption { return o } }
	col := func(f func(*ColumnSchema) bool) func(*TableSchema, *ColumnSchema, string) bool {
		return func(_ *TableSchema, x *ColumnSchema, _ string) bool { return x != nil && f(x) }
	}
	lookup := func(lc LookupConsistency) func(*TableSchema, *ColumnSchema, string) bool {
		return func(ts *TableSchema, x *ColumnSchema, _ string) bool {
			l := ts.LookupTables()
			return x != nil && x.Lookup() != nil && len(l) == 1 && l[0] == x.Lookup() && l[0].IndexColumn() == x &&
				l[0].Name() == "p_by_x" && l[0].Consistency() == lc
		}
	}
	generated := func(st UUIDStrategy) func(s, x any, o []FieldOption) {
		return func(s, x any, o []FieldOption) { GeneratedUUID(s.(*utUUID), x.(*uuid.UUID), st, o...) }
	}
	hasGenerated := func(st UUIDStrategy) func(*ColumnSchema) bool {
		return func(x *ColumnSchema) bool { got, ok := x.GeneratedUUID(); return ok && got == st }
	}
	return []pairOption{
		{name: pPK, opt: plain(PartitionKey(0)), has: func(ts *TableSchema, x *ColumnSchema, _ string) bool {
			return x != nil && x.IsPartitionKey() && x.KeyIndex() == 0 && len(ts.PartitionKeys()) == 1
		}},
		{name: pCKAsc, opt: plain(ClusteringKey(0, ClusteringAsc)), has: col(func(x *ColumnSchema) bool {
			return x.IsClusteringKey() && x.ClusteringOrder() == ClusteringAsc
		})},
		{name: pCKDesc, opt: plain(ClusteringKey(0, ClusteringDesc)), has: col(func(x *ColumnSchema) bool {
			return x.IsClusteringKey() && x.ClusteringOrder() == ClusteringDesc
		})},
		{name: pBatch, opt: plain(Lookup("by_x", LookupBatch)), has: lookup(LookupBatch)},
		{name: pEvent, opt: plain(Lookup("by_x", LookupEventual)), has: lookup(LookupEventual)},
		{name: pColumn, opt: plain(Column("x_col")), has: col(func(x *ColumnSchema) bool { return x.Name() == "x_col" })},
		{name: pTrans, opt: plain(Transient()), has: func(_ *TableSchema, x *ColumnSchema, _ string) bool { return x == nil }},
		{name: pIndex, opt: plain(SecondaryIndex()), has: func(ts *TableSchema, x *ColumnSchema, _ string) bool {
			return x != nil && x.IsSecondaryIndex() && slices.Contains(ts.SecondaryIndexes(), x)
		}},
		{name: pSens, opt: plain(Sensitive()), has: col((*ColumnSchema).IsSensitive)},
		{name: pAsType, opt: func(goType string) FieldOption { return AsType(pairAsType[goType]) }, has: func(_ *TableSchema, x *ColumnSchema, goType string) bool {
			return x != nil && x.Type().Equal(pairAsType[goType])
		}},
		{name: pCreated, goType: "time.Time", role: func(s, x any, o []FieldOption) { CreatedAt(s.(*utTime), x.(*time.Time), o...) },
			has: func(ts *TableSchema, x *ColumnSchema, _ string) bool {
				return x != nil && x.IsCreatedAt() && ts.CreatedAtColumn() == x
			}},
		{name: pUpdated, goType: "time.Time", role: func(s, x any, o []FieldOption) { UpdatedAt(s.(*utTime), x.(*time.Time), o...) },
			has: func(ts *TableSchema, x *ColumnSchema, _ string) bool {
				return x != nil && x.IsUpdatedAt() && ts.UpdatedAtColumn() == x
			}},
		{name: pVerTime, goType: "time.Time", role: func(s, x any, o []FieldOption) { Version(s.(*utTime), x.(*time.Time), o...) },
			has: func(ts *TableSchema, x *ColumnSchema, _ string) bool {
				return x != nil && x.IsVersion() && x.GoType() == typeTime && ts.VersionColumn() == x
			}},
		{name: pVerInt, goType: "int64", role: func(s, x any, o []FieldOption) { Version(s.(*utInt), x.(*int64), o...) },
			has: func(ts *TableSchema, x *ColumnSchema, _ string) bool {
				return x != nil && x.IsVersion() && x.GoType() == reflect.TypeFor[int64]() && ts.VersionColumn() == x
			}},
		{name: pCounter, goType: "int64", role: func(s, x any, o []FieldOption) { Counter(s.(*utInt), x.(*int64), o...) },
			has: func(ts *TableSchema, x *ColumnSchema, _ string) bool {
				return x != nil && x.IsCounter() && x.Type().Equal(cqlCounter) && ts.IsCounterTable()
			}},
		{name: pUUIDv7, goType: "uuid.UUID", role: generated(UUIDTimeOrdered), has: col(hasGenerated(UUIDTimeOrdered))},
		{name: pUUIDv4, goType: "uuid.UUID", role: generated(UUIDRandom), has: col(hasGenerated(UUIDRandom))},
		{name: pMarker, goType: "bool", marker: true, has: func(ts *TableSchema, x *ColumnSchema, _ string) bool {
			return x != nil && x.IsSoftDeleteMarker() && ts.SoftDelete() != nil && ts.SoftDelete().Marker == x
		}},
	}
}

// pairExpectations is the decision for every pair: "" registers with both
// options visible; a rule is the refusal expected. Pairs of options that
// need different Go types (Counter and CreatedAt, say) cannot meet on one
// field and are not listed.
var pairExpectations = []struct {
	a, b string
	rule Rule
}{
	// Keys. X is then the only partition key, or a clustering key after ID.
	{pPK, pPK, ""}, {pPK, pCKAsc, RuleKeyConflict}, {pPK, pCKDesc, RuleKeyConflict},
	{pPK, pBatch, RuleLookup}, {pPK, pEvent, RuleLookup}, {pPK, pColumn, ""}, {pPK, pTrans, RuleConflict},
	{pPK, pIndex, RuleSecondaryIndex}, {pPK, pSens, ""}, {pPK, pAsType, ""},
	{pPK, pCreated, ""}, {pPK, pUpdated, RuleConflict}, {pPK, pVerTime, RuleConflict}, {pPK, pVerInt, RuleConflict},
	{pPK, pCounter, RuleKeyType}, {pPK, pUUIDv7, ""}, {pPK, pUUIDv4, ""}, {pPK, pMarker, RuleSoftDeleteMarker},

	{pCKAsc, pCKAsc, ""}, {pCKAsc, pCKDesc, RuleConflict}, {pCKAsc, pBatch, RuleLookup}, {pCKAsc, pEvent, RuleLookup},
	{pCKAsc, pColumn, ""}, {pCKAsc, pTrans, RuleConflict}, {pCKAsc, pIndex, ""}, {pCKAsc, pSens, ""}, {pCKAsc, pAsType, ""},
	{pCKAsc, pCreated, ""}, {pCKAsc, pUpdated, RuleConflict}, {pCKAsc, pVerTime, RuleConflict}, {pCKAsc, pVerInt, RuleConflict},
	{pCKAsc, pCounter, RuleKeyType}, {pCKAsc, pUUIDv7, ""}, {pCKAsc, pUUIDv4, ""}, {pCKAsc, pMarker, RuleSoftDeleteMarker},

	{pCKDesc, pCKDesc, ""}, {pCKDesc, pBatch, RuleLookup}, {pCKDesc, pEvent, RuleLookup},
	{pCKDesc, pColumn, ""}, {pCKDesc, pTrans, RuleConflict}, {pCKDesc, pIndex, ""}, {pCKDesc, pSens, ""}, {pCKDesc, pAsType, ""},
	{pCKDesc, pCreated, ""}, {pCKDesc, pUpdated, RuleConflict}, {pCKDesc, pVerTime, RuleConflict}, {pCKDesc, pVerInt, RuleConflict},
	{pCKDesc, pCounter, RuleKeyType}, {pCKDesc, pUUIDv7, ""}, {pCKDesc, pUUIDv4, ""}, {pCKDesc, pMarker, RuleSoftDeleteMarker},

	// Lookups: the lookup column is a lookup table's key.
	{pBatch, pBatch, ""}, {pBatch, pEvent, RuleConflict}, {pBatch, pColumn, ""}, {pBatch, pTrans, RuleConflict},
	{pBatch, pIndex, ""}, {pBatch, pSens, ""}, {pBatch, pAsType, ""},
	{pBatch, pCreated, ""}, {pBatch, pUpdated, ""}, {pBatch, pVerTime, ""}, {pBatch, pVerInt, ""},
	{pBatch, pCounter, RuleKeyType}, {pBatch, pUUIDv7, ""}, {pBatch, pUUIDv4, ""}, {pBatch, pMarker, ""},

	{pEvent, pEvent, ""}, {pEvent, pColumn, ""}, {pEvent, pTrans, RuleConflict},
	{pEvent, pIndex, ""}, {pEvent, pSens, ""}, {pEvent, pAsType, ""},
	{pEvent, pCreated, ""}, {pEvent, pUpdated, ""}, {pEvent, pVerTime, ""}, {pEvent, pVerInt, ""},
	{pEvent, pCounter, RuleKeyType}, {pEvent, pUUIDv7, ""}, {pEvent, pUUIDv4, ""}, {pEvent, pMarker, ""},

	// Column, Sensitive, SecondaryIndex, AsType: marks that go with any role.
	{pColumn, pColumn, ""}, {pColumn, pTrans, RuleConflict}, {pColumn, pIndex, ""}, {pColumn, pSens, ""}, {pColumn, pAsType, ""},
	{pColumn, pCreated, ""}, {pColumn, pUpdated, ""}, {pColumn, pVerTime, ""}, {pColumn, pVerInt, ""},
	{pColumn, pCounter, ""}, {pColumn, pUUIDv7, ""}, {pColumn, pUUIDv4, ""}, {pColumn, pMarker, ""},

	{pIndex, pIndex, ""}, {pIndex, pSens, ""}, {pIndex, pAsType, ""},
	{pIndex, pCreated, ""}, {pIndex, pUpdated, ""}, {pIndex, pVerTime, ""}, {pIndex, pVerInt, ""},
	{pIndex, pCounter, RuleCounterTable}, {pIndex, pUUIDv7, ""}, {pIndex, pUUIDv4, ""}, {pIndex, pMarker, ""},

	{pSens, pSens, ""}, {pSens, pAsType, ""},
	{pSens, pCreated, ""}, {pSens, pUpdated, ""}, {pSens, pVerTime, ""}, {pSens, pVerInt, ""},
	{pSens, pCounter, ""}, {pSens, pUUIDv7, ""}, {pSens, pUUIDv4, ""}, {pSens, pMarker, ""},

	// AsType: DATE on a time.Time, VARINT on an int64, TIMEUUID on a
	// uuid.UUID, BOOLEAN on a bool (see pairAsType).
	{pAsType, pAsType, ""},
	{pAsType, pCreated, ""}, {pAsType, pUpdated, ""}, {pAsType, pVerTime, ""}, {pAsType, pVerInt, ""},
	{pAsType, pCounter, RuleConflict}, {pAsType, pUUIDv7, RuleConflict}, {pAsType, pUUIDv4, RuleConflict}, {pAsType, pMarker, ""},

	// Transient excludes the field: nothing else goes with it.
	{pTrans, pTrans, ""}, {pTrans, pIndex, RuleConflict}, {pTrans, pSens, RuleConflict}, {pTrans, pAsType, RuleConflict},
	{pTrans, pCreated, RuleConflict}, {pTrans, pUpdated, RuleConflict}, {pTrans, pVerTime, RuleConflict}, {pTrans, pVerInt, RuleConflict},
	{pTrans, pCounter, RuleConflict}, {pTrans, pUUIDv7, RuleConflict}, {pTrans, pUUIDv4, RuleConflict}, {pTrans, pMarker, RuleSoftDeleteMarker},

	// Roles with roles of the same Go type.
	{pCreated, pCreated, ""}, {pCreated, pUpdated, RuleConflict}, {pCreated, pVerTime, RuleConflict},
	{pUpdated, pUpdated, ""}, {pUpdated, pVerTime, RuleConflict}, {pVerTime, pVerTime, ""},
	{pVerInt, pVerInt, ""}, {pVerInt, pCounter, RuleConflict}, {pCounter, pCounter, ""},
	{pUUIDv7, pUUIDv7, ""}, {pUUIDv7, pUUIDv4, RuleConflict}, {pUUIDv4, pUUIDv4, ""},
	{pMarker, pMarker, RuleConflict}, // SoftDelete set twice: a table conflict
}

// buildPair builds rulesUT[V] with options a and b on X: in one Bind (or
// the role's binder) when split is false, in one call each when it is true.
func buildPair[V any](a, b pairOption, split bool) (*TableSchema, error) {
	ts, _, err := buildSchema(func(e *rulesUT[V], s *Schema[rulesUT[V]]) {
		goType := reflect.TypeFor[V]().String()
		var topts []TableOption
		xKey := false
		for _, o := range []pairOption{a, b} {
			if o.marker {
				topts = append(topts, SoftDelete(60, any(&e.X).(*bool)))
			}
			xKey = xKey || o.name == pPK
		}
		s.Table("p", topts...)
		if !xKey {
			Bind(s, &e.ID, PartitionKey(0))
		}
		var plain []FieldOption
		var roles []pairOption
		for _, o := range []pairOption{a, b} {
			switch {
			case o.opt != nil && split:
				Bind(s, &e.X, o.opt(goType))
			case o.opt != nil:
				plain = append(plain, o.opt(goType))
			case o.role != nil && split:
				o.role(s, &e.X, nil)
			case o.role != nil:
				roles = append(roles, o)
			}
		}
		switch {
		case split:
		case len(roles) == 0 && len(plain) > 0:
			Bind(s, &e.X, plain...)
		case len(roles) > 0:
			roles[0].role(s, &e.X, plain)
			for _, r := range roles[1:] {
				r.role(s, &e.X, nil)
			}
		}
	})
	return ts, err
}

var pairBuilders = map[string]func(a, b pairOption, split bool) (*TableSchema, error){
	"string": buildPair[string], "time.Time": buildPair[time.Time], "int64": buildPair[int64],
	"uuid.UUID": buildPair[uuid.UUID], "bool": buildPair[bool],
}

// TestOptionPairs goes through every pair of field options and roles that
// can apply to one Go type, each in both orders, in one binding call and in
// two, and checks the outcome pairExpectations gives: either the schema
// shows both options on the field (and no option it was not given), or
// registration fails with the expected rule on the field.
func TestOptionPairs(t *testing.T) {
	opts := pairOptions()
	pos := map[string]int{}
	for i, o := range opts {
		pos[o.name] = i
	}
	type key struct{ i, j int }
	expect := map[key]Rule{}
	for _, e := range pairExpectations {
		i, ok1 := pos[e.a]
		j, ok2 := pos[e.b]
		if !ok1 || !ok2 {
			t.Fatalf("expectation %q + %q names an unknown option", e.a, e.b)
		}
		k := key{min(i, j), max(i, j)}
		if _, dup := expect[k]; dup {
			t.Errorf("pair %q + %q is expected twice", e.a, e.b)
		}
		expect[k] = e.rule
	}
	used := map[key]bool{}
	pairs := 0
	for i, a := range opts {
		for j := i; j < len(opts); j++ {
			b := opts[j]
			goType := pairGoType(a.goType, b.goType)
			if a.goType != "" && b.goType != "" && a.goType != b.goType {
				continue // no Go type takes both
			}
			name := a.name + " + " + b.name
			want, ok := expect[key{i, j}]
			if !ok {
				t.Errorf("pair %s (on a %s) has no expectation in pairExpectations", name, goType)
				continue
			}
			used[key{i, j}] = true
			pairs++
			t.Run(name, func(t *testing.T) {
				for _, run := range []struct {
					first, second pairOption
					split         bool
				}{{a, b, false}, {b, a, false}, {a, b, true}, {b, a, true}} {
					how := run.first.name + " then " + run.second.name
					if run.split {
						how += ", in two calls"
					}
					var ts *TableSchema
					err := noPanic(t, func() (err error) { ts, err = pairBuilders[goType](run.first, run.second, run.split); return err })
					if want != "" {
						field := "X"
						if a.marker && b.marker {
							field = "" // SoftDelete is a table option
						}
						var se *SchemaError
						if !errors.As(err, &se) || se.Rule != want || se.Field != field {
							t.Errorf("%s: error = %v; want [%s] on %q", how, err, want, field)
						}
						continue
					}
					if err != nil {
						t.Errorf("%s: %v; want it to register", how, err)
						continue
					}
					var x *ColumnSchema
					for _, c := range ts.Columns() {
						if c.GoName() == "X" {
							x = c
						}
					}
					for _, o := range opts {
						given := o.name == a.name || o.name == b.name
						if got := o.has(ts, x, goType); got != given {
							if !given && o.name == pAsType && pairAsType[goType].Equal(mustCQL(goType)) {
								continue // AsType of the derived type shows without being given
							}
							t.Errorf("%s: the schema shows %s = %v, want %v (column %+v)", how, o.name, got, given, x)
						}
					}
				}
			})
		}
	}
	for k := range expect {
		if !used[k] {
			t.Errorf("expectation %q + %q is for a pair no Go type takes", opts[k.i].name, opts[k.j].name)
		}
	}
	if pairs != len(pairExpectations) {
		t.Errorf("%d pairs run, %d expectations", pairs, len(pairExpectations))
	}
}

// pairGoType is the Go type of X for options that need goType a and b.
func pairGoType(a, b string) string {
	switch {
	case a != "":
		return a
	case b != "":
		return b
	}
	return "string"
}

// mustCQL is the CQL type derived from the Go type named goType.
func mustCQL(goType string) CQLType {
	types := map[string]reflect.Type{
		"string": reflect.TypeFor[string](), "time.Time": typeTime, "int64": reflect.TypeFor[int64](),
		"uuid.UUID": typeUUID, "bool": typeBool,
	}
	ct, _ := goToCQL(types[goType])
	return ct
}
