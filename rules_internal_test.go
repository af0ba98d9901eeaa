package kandra

// Table-driven tests of the rules of ruleTable, through buildSchema: a
// describe closure, no Describe method, no cache, no global names.
//
//   - TestRules: failing cases, at least one per entity rule and one per
//     branch of its check; TestRulesHaveCases keeps it complete.
//   - TestRulesAccept: schemas at the edge of a rule that register.
//   - TestFirstRuleWins: an entity breaking several rules reports the first.
//   - TestOptionPairs: every pair of field options on one field.
//   - TestNativeOverrides, TestAsTypePairs: the table of allowed AsType
//     pairs, and every native Go type with every native CQL type.
//   - TestKeyspaceRules: the keyspace rows, through NewKeyspace and
//     CreateKeyspace, with the TTL cap rule's clock fixed (fixClock);
//     TestKeyspaceAccepts: their edges, and the rules a keyspace's targets
//     leave out.
//   - TestBadInputNeverPanics, TestRecursiveTypeDoesNotCrash.
//
// The end-to-end Register cases (value receivers, a panicking Describe,
// the per-type cache) are in rules_test.go.

import (
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"math/big"
	"net"
	"net/netip"
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
	"github.com/kandra-go/kandra/kerrors"
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
	return brokenChecks(typ, describeResult{probe: probe, tableCalls: s.tableCalls, table: s.tableName, opts: s.tableOpts, binds: s.binds})
}

// brokenChecks is brokenRules for what a Describe call on struct type typ
// collected.
func brokenChecks(typ reflect.Type, d describeResult) []Rule {
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

// rulesUserID and rulesAt are named types of the special types: they map
// as uuid.UUID and time.Time do.
type (
	rulesUserID uuid.UUID
	rulesAt     time.Time
)

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
	name48  = strings.Repeat("m", 48)
	name49  = strings.Repeat("o", 49)
	name192 = strings.Repeat("q", 192)
	name193 = strings.Repeat("r", 193)
	name214 = strings.Repeat("n", 214)
	name222 = strings.Repeat("w", 222)
	name223 = strings.Repeat("z", 223)
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
	type Date struct{ Day int }
	type hidden struct{ city string }
	_ = hidden{}.city // the field is the point: a type cannot store it
	type Link struct {
		To   string
		Next *Link
	}
	type withVec struct{ V [3]float32 }
	type twice struct {
		A string `kandra:"b"`
		B string
	}
	type allSkipped struct {
		A string `kandra:"-"`
	}
	type Span struct{ D time.Duration }
	type staticAddr struct {
		ID, Body string
		At       time.Time
		Addr     Address
	}
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
	// staticRow is a partition ID of rows At with a regular column Body
	// and the candidates for Static.
	type staticRow struct {
		ID, Body string
		At, Made time.Time
		S        string
		Rev      int64
		Gone     bool
		Ref      uuid.UUID
	}
	static := func(bind func(e *staticRow, s *Schema[staticRow])) built {
		return of(func(e *staticRow, s *Schema[staticRow]) {
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.At, ClusteringKey(0, ClusteringAsc))
			bind(e, s)
			if s.tableCalls == 0 {
				s.Table("t")
			}
		})
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
			s.Table("t", SoftDelete(60*time.Second, &e.Deleted))
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
		{"Table called twice", RuleConflictingOptions, "", "2 times|call it once", of(func(e *rulesUT[string], s *utStr) { keyed(e, s); s.Table("t") })},
		{"DefaultTTL twice", RuleConflictingOptions, "", "DefaultTTL is set twice", withTable(DefaultTTL(10*time.Second), DefaultTTL(20*time.Second))},
		{"GCGrace twice", RuleConflictingOptions, "", "GCGrace is set twice", withTable(GCGrace(1*time.Second), GCGrace(2*time.Second))},
		{"ReadConsistency twice", RuleConflictingOptions, "", "ReadConsistency is set twice", withTable(ReadConsistency(ConsistencyOne), ReadConsistency(ConsistencyQuorum))},
		{"WriteConsistency twice", RuleConflictingOptions, "", "WriteConsistency is set twice", withTable(WriteConsistency(ConsistencyOne), WriteConsistency(ConsistencyAll))},
		{"SoftDelete twice", RuleConflictingOptions, "", "SoftDelete is set twice", withTable(SoftDelete(10*time.Second, nil), SoftDelete(10*time.Second, nil))},
		// conflicting-options on one field
		{"two Column names", RuleConflictingOptions, "X", `two names, "mail" and "email_address"`, onX(func(s *utStr, x *string) {
			Bind(s, x, Column("mail"))
			Bind(s, x, Column("email_address"))
		})},
		{"two index kinds", RuleConflictingOptions, "X", "SecondaryIndex is given two index kinds (sai and legacy); give one of UsingSAI and UsingLegacy", withX[string](SecondaryIndex(UsingSAI(), UsingLegacy()))},
		{"two index targets", RuleConflictingOptions, "X", "SecondaryIndex is given two targets (keys and values)", withX[map[string]string](SecondaryIndex(IndexKeys(), IndexValues()))},
		{"SecondaryIndex twice, other options", RuleConflictingOptions, "X", "SecondaryIndex is given twice with different options", withX[string](SecondaryIndex(), SecondaryIndex(UsingSAI()))},
		{"a zero IndexOption", RuleConflictingOptions, "X", "a zero IndexOption", withX[string](SecondaryIndex(IndexOption{}))},
		{"two masks", RuleConflictingOptions, "X", "Masked is given twice, with mask_null() and mask_default(); a column has one mask", withX[string](Masked(MaskNull()), Masked(MaskDefault()))},
		{"the zero Mask", RuleConflictingOptions, "X", "Masked is given the zero Mask; build one with kandra.MaskNull", withX[string](Masked(Mask{}))},
		{"Transient and Masked", RuleConflictingOptions, "X", "it cannot also take Masked", withX[string](Transient(), Masked(MaskNull()))},
		{"two PartitionKey indexes", RuleConflictingOptions, "X", "PartitionKey is given twice, with indexes 1 and 2", withX[string](PartitionKey(1), PartitionKey(2))},
		{"two ClusteringKey orders", RuleConflictingOptions, "X", "ClusteringKey is given twice", withX[time.Time](ClusteringKey(0, ClusteringAsc), ClusteringKey(0, ClusteringDesc))},
		{"two lookups", RuleConflictingOptions, "X", "at most one lookup table", withX[string](Lookup("by_email", LookupBatch), Lookup("by_mail", LookupBatch))},
		{"Transient with PartitionKey", RuleConflictingOptions, "X", "Transient excludes the field|cannot also take PartitionKey", withX[string](Transient(), PartitionKey(1))},
		{"Transient with Sensitive, in two Binds", RuleConflictingOptions, "X", "cannot also take Sensitive", onX(func(s *utStr, x *string) {
			Bind(s, x, Sensitive())
			Bind(s, x, Transient())
		})},
		{"Transient with a blank Column", RuleConflictingOptions, "X", "cannot also take Column", withX[string](Transient(), Column(" "))},
		{"Transient with a role", RuleConflictingOptions, "X", "cannot also take CreatedAt", onX(func(s *utTime, x *time.Time) { CreatedAt(s, x, Transient()) })},
		{"CreatedAt and UpdatedAt", RuleConflictingOptions, "X", "contradict each other|bind two fields", onX(func(s *utTime, x *time.Time) { CreatedAt(s, x); UpdatedAt(s, x) })},
		{"Version and CreatedAt", RuleConflictingOptions, "X", "cannot also be a CreatedAt or UpdatedAt", onX(func(s *utTime, x *time.Time) { Version(s, x); CreatedAt(s, x) })},
		{"Version and UpdatedAt", RuleConflictingOptions, "X", "cannot also be a CreatedAt or UpdatedAt", onX(func(s *utTime, x *time.Time) { UpdatedAt(s, x); Version(s, x) })},
		{"Version on the counter (was counter-table)", RuleConflictingOptions, "X", "a field cannot be both", onX(func(s *utInt, x *int64) { Counter(s, x); Version(s, x) })},
		{"Version on a key of a counter table (was counter-table)", RuleConflictingOptions, "Rev", "use a regular column", of(func(e *counted, s *Schema[counted]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			Version(s, &e.Rev, ClusteringKey(0, ClusteringAsc))
			Counter(s, &e.Hits)
			Bind(s, &e.Made, Transient())
		})},
		{"UpdatedAt on a partition key", RuleConflictingOptions, "X", "a primary-key column can never be updated; stamp a regular column", onX(func(s *utTime, x *time.Time) {
			UpdatedAt(s, x, PartitionKey(1))
		})},
		{"UpdatedAt on a clustering key", RuleConflictingOptions, "X", "stamp a regular column", onX(func(s *utTime, x *time.Time) { UpdatedAt(s, x, ClusteringKey(0, ClusteringAsc)) })},
		{"Version on a partition key", RuleConflictingOptions, "X", "use a regular column", onX(func(s *utInt, x *int64) { Version(s, x, PartitionKey(1)) })},
		{"Counter with AsType", RuleConflictingOptions, "X", "AsType cannot change it", onX(func(s *utInt, x *int64) { Counter(s, x, AsType(CQLBigint)) })},
		{"Version int64 with AsType(VARINT)", RuleConflictingOptions, "X", "Version column must keep its exact type|AsType(VARINT) cannot change it", onX(func(s *utInt, x *int64) { Version(s, x, AsType(CQLVarint)) })},
		{"Version int64 with AsType of its own type", RuleConflictingOptions, "X", "AsType(BIGINT) cannot change it", onX(func(s *utInt, x *int64) { Version(s, x); Bind(s, x, AsType(CQLBigint)) })},
		{"Version time.Time with AsType(DATE)", RuleConflictingOptions, "X", "two versions could compare equal|AsType(DATE)", onX(func(s *utTime, x *time.Time) { Version(s, x, AsType(CQLDate)) })},
		{"CreatedAt with AsType(TEXT)", RuleConflictingOptions, "X", "TIMESTAMP or DATE; AsType(TEXT) cannot hold it", onX(func(s *utTime, x *time.Time) { CreatedAt(s, x, AsType(CQLText)) })},
		{"UpdatedAt with AsType(BIGINT)", RuleConflictingOptions, "X", "AsType(BIGINT) cannot hold it", onX(func(s *utTime, x *time.Time) { Bind(s, x, AsType(CQLBigint)); UpdatedAt(s, x) })},
		{"CreatedAt with AsType(LIST<TIMESTAMP>)", RuleConflictingOptions, "X", "AsType(LIST<TIMESTAMP>) cannot hold it", onX(func(s *utTime, x *time.Time) { CreatedAt(s, x, AsType(ListOf(CQLTimestamp))) })},
		{"AsType twice with different types", RuleConflictingOptions, "X", "AsType is given twice, with ASCII and TEXT", withX[string](AsType(CQLAscii), AsType(CQLText))},
		{"GeneratedUUID with two strategies", RuleConflictingOptions, "X", "bound twice, with UUIDTimeOrdered and UUIDRandom", onX(func(s *utUUID, x *uuid.UUID) {
			GeneratedUUID(s, x, UUIDTimeOrdered)
			GeneratedUUID(s, x, UUIDRandom)
		})},
		{"GeneratedUUID as TIMEUUID", RuleConflictingOptions, "X", "AsType(TIMEUUID) cannot hold them", onX(func(s *utUUID, x *uuid.UUID) {
			GeneratedUUID(s, x, UUIDTimeOrdered, AsType(CQLTimeUUID))
		})},
		{"GeneratedUUID as TEXT", RuleConflictingOptions, "X", "AsType(TEXT) cannot hold them", onX(func(s *utUUID, x *uuid.UUID) {
			GeneratedUUID(s, x, UUIDRandom, AsType(CQLText))
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
			s.Table("t", SoftDelete(60*time.Second, &e.deleted))
			Bind(s, &e.ID, PartitionKey(0))
		})},
		{"marker is a global variable", RuleSoftDeleteMarker, "", "not the address of a bool field", of(func(e *marked, s *Schema[marked]) {
			s.Table("t", SoftDelete(60*time.Second, &rulesGlobalFlag))
			Bind(s, &e.ID, PartitionKey(0))
		})},
		{"marker in a non-embedded struct", RuleSoftDeleteMarker, "Flags.Deleted", "non-embedded", of(func(e *markedNested, s *Schema[markedNested]) {
			s.Table("t", SoftDelete(60*time.Second, &e.Flags.Deleted))
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
		{"marker with AsType(TEXT) (was unsupported-type)", RuleSoftDeleteMarker, "Deleted", "the soft-delete marker is a BOOLEAN|AsType(TEXT) cannot change it", marker(func(e *marked, s *Schema[marked]) {
			Bind(s, &e.Deleted, AsType(CQLText))
		})},
		{"marker with AsType(TINYINT)", RuleSoftDeleteMarker, "Deleted", "AsType(TINYINT)", marker(func(e *marked, s *Schema[marked]) {
			Bind(s, &e.Deleted, AsType(CQLTinyint))
		})},

		// key-conflict
		{"partition and clustering key", RuleKeyConflict, "X", "both a partition key and a clustering key", withX[time.Time](PartitionKey(1), ClusteringKey(0, ClusteringDesc))},

		// invalid-name
		{"table name of 223 characters", RuleInvalidName, "", `"` + name223 + `" is 223 characters long; the limit is 222`, tableNamed(name223)},
		{`table name "t-dash"`, RuleInvalidName, "", `contains '-'; only ASCII letters, digits and _ are allowed`, tableNamed("t-dash")},
		{`table name "t space"`, RuleInvalidName, "", `contains ' '`, tableNamed("t space")},
		{`table name "naïve"`, RuleInvalidName, "", `contains 'ï'`, tableNamed("naïve")},
		{`table name "ks.t"`, RuleInvalidName, "", `contains '.'`, tableNamed("ks.t")},
		{`table name "t$"`, RuleInvalidName, "", `contains '$'`, tableNamed("t$")},
		{`table name "t\"q"`, RuleInvalidName, "", `contains '"'`, tableNamed(`t"q`)},
		{"lookup table name too long", RuleInvalidName, "X", `"` + name214 + `_by_xyzab" is 223 characters`, of(func(e *rulesUT[string], s *utStr) {
			s.Table(name214)
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.X, Lookup("by_xyzab", LookupBatch))
		})},
		{"blank lookup suffix", RuleInvalidName, "X", "suffix is blank", withX[string](Lookup("  ", LookupBatch))},
		{"empty lookup suffix", RuleInvalidName, "X", "suffix is blank", withX[string](Lookup("", LookupBatch))},
		{"lookup suffix with a dash", RuleInvalidName, "X", `"t_by-x" contains '-'`, withX[string](Lookup("by-x", LookupBatch))},
		{"index name too long", RuleInvalidName, "Email", `"` + name214 + `_email_idx" is 224 characters|shorten the table or column name`, of(func(e *two, s *Schema[two]) {
			s.Table(name214)
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.Email, SecondaryIndex())
		})},
		{"composed index name too long", RuleInvalidName, "X", `"` + name214 + `_e_x_` + "|" + `_idx" is 231 characters`, of(func(e *rulesUT[string], s *utStr) {
			s.Table(name214)
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.X, Column("e x"), SecondaryIndex()) // {table}_e_x_{8 hex}_idx
		})},
		{"column name not UTF-8", RuleInvalidName, "X", "not valid UTF-8", withX[string](Column("na\xffme"))},
		{"column name of 1025 bytes", RuleInvalidName, "X", "column name is 1025 bytes long; the limit is 1024 (MaxColumnNameBytes)", withX[string](Column(strings.Repeat("c", MaxColumnNameBytes+1)))},
		{"column name of 1025 bytes, multi-byte", RuleInvalidName, "X", "1025 bytes long", withX[string](Column("x" + strings.Repeat("é", MaxColumnNameBytes/2)))},
		{"column name [applied]", RuleInvalidName, "X", `"[applied]" is the column servers add to the result of a lightweight transaction|rename it with kandra.Column`, withX[string](Column("[applied]"))},
		{"key column named [applied]", RuleInvalidName, "ID", `"[applied]"`, of(func(e *two, s *Schema[two]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0), Column("[applied]"))
		})},

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
		{"a struct with an unexported field", RuleUnsupportedType, "X", "unexported field kandra.hidden.city would not be stored|tag it `kandra:\"-\"`", withX[hidden]()},
		{"an anonymous struct", RuleUnsupportedType, "X", "anonymous struct has no name|named struct type", withX[struct{ A int }]()},
		{"a recursive struct", RuleUnsupportedType, "X", "recursive type kandra.Link", withX[Link]()},
		{"a struct named after a type", RuleUnsupportedType, "X", `"date" (of kandra.Date)|Invalid (reserved) user type name|UDTName`, withX[Date]()},
		{"a vector in a struct", RuleUnsupportedType, "X", `field "v" is a vector`, withX[withVec]()},
		{"two fields of one name", RuleUnsupportedType, "X", `two fields are named "b"`, withX[twice]()},
		{"a struct with every field left out", RuleUnsupportedType, "X", "has no field to store", withX[allSkipped]()},
		{"a struct holding a duration as a map key", RuleUnsupportedType, "X", "duration cannot be a map key", withX[map[Span]string]()},
		{"a struct holding a duration in a key", RuleKeyType, "X", "cannot hold a duration", withX[Span](ClusteringKey(0, ClusteringAsc))},
		{"chan", RuleUnsupportedType, "X", "type chan int|Transient|AsType", withX[chan int]()},
		{"func", RuleUnsupportedType, "X", "type func()|Transient|AsType", withX[func()]()},
		{"complex128", RuleUnsupportedType, "X", "type complex128|Transient|AsType", withX[complex128]()},
		{"interface", RuleUnsupportedType, "X", "type interface {}|Transient|AsType", withX[any]()},
		{"array", RuleUnsupportedType, "X", "type [4]uint8|Transient|AsType", withX[[4]byte]()},
		{"[]uint16", RuleUnsupportedType, "X", "type []uint16|Transient|AsType", withX[[]uint16]()},
		{"[]*string", RuleUnsupportedType, "X", "(*string)|collections cannot hold nulls|Transient|AsType", withX[[]*string]()},
		{"**string", RuleUnsupportedType, "X", "type **string|pointer to a pointer|Transient|AsType", withX[**string]()},
		{"map with a duration key", RuleUnsupportedType, "X", "time.Duration|map key|Transient|AsType", withX[map[time.Duration]string]()},
		{"set of durations", RuleUnsupportedType, "X", "time.Duration|set element|Transient|AsType", withX[map[time.Duration]struct{}]()},
		{"list of sets of durations", RuleUnsupportedType, "X", "time.Duration|set element|Transient|AsType", withX[[]map[time.Duration]struct{}]()},
		{"AsType of the zero CQLType", RuleUnsupportedType, "X", "zero CQLType", withX[string](AsType(CQLType{}))},
		{"AsType of a set of durations", RuleUnsupportedType, "X", "AsType(SET<DURATION>)|set element", withX[[]time.Duration](AsType(SetOf(CQLDuration)))},
		// unsupported-type: AsType pairs NativeOverrides does not list
		{"string as DECIMAL", RuleUnsupportedType, "X", "AsType(DECIMAL): a field of type string cannot be stored as DECIMAL: the driver marshals it to TEXT or VARCHAR, ASCII; change the field's Go type, or drop AsType", withX[string](AsType(CQLDecimal))},
		{"int64 as INT", RuleUnsupportedType, "X", "a field of type int64 cannot be stored as INT: the driver marshals it to BIGINT or VARINT", withX[int64](AsType(CQLInt))},
		{"bool as TEXT", RuleUnsupportedType, "X", "a field of type bool cannot be stored as TEXT: the driver marshals it to BOOLEAN only", withX[bool](AsType(CQLText))},
		{"uuid.UUID as TEXT", RuleUnsupportedType, "X", "a field of type uuid.UUID cannot be stored as TEXT|UUID or TIMEUUID", withX[uuid.UUID](AsType(CQLText))},
		{"time.Time as TIME", RuleUnsupportedType, "X", "a field of type time.Time cannot be stored as TIME|TIMESTAMP or DATE", withX[time.Time](AsType(CQLTime))},
		{"*int32 as SMALLINT", RuleUnsupportedType, "X", "a field of type *int32 cannot be stored as SMALLINT|INT or BIGINT, VARINT", withX[*int32](AsType(CQLSmallint))},
		{"list as set", RuleUnsupportedType, "X", "a field of type []string cannot be stored as SET<TEXT>", withX[[]string](AsType(SetOf(CQLText)))},
		{"list of BIGINT as list of INT", RuleUnsupportedType, "X", "LIST<INT>", withX[[]int64](AsType(ListOf(CQLInt)))},
		{"native as a collection", RuleUnsupportedType, "X", "a field of type string cannot be stored as LIST<TEXT>", withX[string](AsType(ListOf(CQLText)))},
		{"collection as a native", RuleUnsupportedType, "X", "cannot be stored as BLOB", withX[[]string](AsType(CQLBlob))},
		{"map with a refused key", RuleUnsupportedType, "X", "MAP<BLOB, BIGINT>", withX[map[string]int64](AsType(MapOf(CQLBlob, CQLBigint)))},
		{"map with a refused value", RuleUnsupportedType, "X", "MAP<TEXT, FLOAT>", withX[map[string]float64](AsType(MapOf(CQLText, CQLFloat)))},
		{"named uuid as TEXT", RuleUnsupportedType, "X", "a field of type kandra.rulesUserID cannot be stored as TEXT", withX[rulesUserID](AsType(CQLText))},

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

		// static
		{"static without clustering columns", RuleStatic, "S", "no clustering columns|Static columns are only useful|add a ClusteringKey", of(func(e *staticRow, s *Schema[staticRow]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.S, Static())
		})},
		{"static lookup", RuleStatic, "S", "a lookup table maps a value to one row's key|drop Static", static(func(e *staticRow, s *Schema[staticRow]) {
			Bind(s, &e.S, Static(), Lookup("by_s", LookupBatch))
		})},
		{"static CreatedAt", RuleStatic, "Made", "CreatedAt is stamped when a row is first written|drop Static", static(func(e *staticRow, s *Schema[staticRow]) {
			CreatedAt(s, &e.Made, Static())
		})},
		{"static Version", RuleStatic, "Rev", "a Version column guards one row's updates", static(func(e *staticRow, s *Schema[staticRow]) {
			Version(s, &e.Rev, Static())
		})},
		{"static soft-delete marker", RuleStatic, "Gone", "the soft-delete marker records one row's deletion", static(func(e *staticRow, s *Schema[staticRow]) {
			s.Table("t", SoftDelete(time.Minute, &e.Gone))
			Bind(s, &e.Gone, Static())
		})},
		{"static GeneratedUUID", RuleStatic, "Ref", "GeneratedUUID fills one row's id", static(func(e *staticRow, s *Schema[staticRow]) {
			GeneratedUUID(s, &e.Ref, UUIDTimeOrdered, Static())
		})},
		{"every non-key column static", RuleStatic, "Body", "every non-key column of the table is static|add a regular column", static(func(e *staticRow, s *Schema[staticRow]) {
			for _, p := range []any{&e.Body, &e.Made, &e.S, &e.Rev, &e.Gone, &e.Ref} {
				s.bind(p, reflect.TypeOf(p).Elem(), []FieldOption{Static()}, nil)
			}
		})},

		// counter-table
		{"default TTL", RuleCounterTable, "", "cannot have a default TTL", counterTable(DefaultTTL(60 * time.Second))},
		{"soft delete", RuleCounterTable, "", "cannot use SoftDelete", counterTable(SoftDelete(60*time.Second, nil))},
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
		{"lookup on the only partition key", RuleLookup, "ID", `the only partition-key column cannot have a lookup table|a read of its partition; query by the key instead`, of(func(e *two, s *Schema[two]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0), Lookup("by_id", LookupBatch))
		})},
		{"lookup on the only partition key, with clustering keys", RuleLookup, "ID", "the only partition-key column", of(func(e *three, s *Schema[three]) {
			s.Table("t")
			Bind(s, &e.ID, Lookup("by_id", LookupEventual), PartitionKey(0))
			Bind(s, &e.A, ClusteringKey(0, ClusteringAsc), Lookup("by_a", LookupBatch))
		})},
		{"a key column named like a unique lookup's claim column", RuleLookup, "A", `has the name of a unique lookup table's claim column`, of(func(e *three, s *Schema[three]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.A, ClusteringKey(0, ClusteringAsc), Column("kandra_claim"))
			Bind(s, &e.B, Lookup("by_b", LookupUnique))
		})},

		// secondary-index
		{"index on the only partition key", RuleSecondaryIndex, "ID", "only partition-key column|query by the key instead", of(func(e *two, s *Schema[two]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0), SecondaryIndex())
		})},
		{"index on a duration", RuleSecondaryIndex, "X", "holding a duration", withX[time.Duration](SecondaryIndex())},
		{"index on a map holding durations", RuleSecondaryIndex, "X", "holding a duration", withX[map[string]time.Duration](SecondaryIndex())},
		{"IndexKeys on a text column", RuleSecondaryIndex, "X", `IndexKeys indexes part of a collection, and column "x" (TEXT) is not one|drop IndexKeys`, withX[string](SecondaryIndex(IndexKeys()))},
		{"IndexEntries on a list", RuleSecondaryIndex, "X", `IndexEntries indexes a map, and column "x" (LIST<TEXT>) is not one|use IndexValues`, withX[[]string](SecondaryIndex(IndexEntries()))},
		{"IndexFull on a regular list", RuleSecondaryIndex, "X", `IndexFull indexes a frozen collection whole, and column "x" (LIST<TEXT>) is not frozen|full() indexes can only be created on frozen collections`, withX[[]string](SecondaryIndex(IndexFull()))},
		{"IndexValues on a list in the key", RuleSecondaryIndex, "X", `is a key column, so its collection is frozen and indexed whole|use IndexFull`, withX[[]string](ClusteringKey(0, ClusteringAsc), SecondaryIndex(IndexValues()))},
		{"IndexValues on a Frozen set", RuleSecondaryIndex, "X", `column "x" (SET<TEXT>) is frozen (kandra.Frozen) and indexed whole ("Frozen collections are immutable and must be fully indexed"); drop IndexValues, or use IndexFull, or drop kandra.Frozen (a schema change) to index its parts`, withX[map[string]struct{}](Frozen(), SecondaryIndex(IndexValues()))},
		{"IndexKeys on a Frozen map", RuleSecondaryIndex, "X", `is frozen (kandra.Frozen) and indexed whole`, withX[map[string]int32](Frozen(), SecondaryIndex(IndexKeys()))},

		// sai
		{"UsingSAI on a blob", RuleSAI, "X", `the index is an SAI index (UsingSAI) on BLOB, and SAI refuses blob values ("Unsupported type: blob"); or give it kandra.UsingLegacy()`, withX[[]byte](SecondaryIndex(UsingSAI()))},
		{"UsingSAI on a column named with a space", RuleSAI, "X", `SAI refuses a column whose name|rename the column with kandra.Column`, withX[int32](Column("odd name"), SecondaryIndex(UsingSAI()))},
		{"analysis without UsingSAI", RuleSAI, "X", `are options of an SAI index; add kandra.UsingSAI()`, withX[string](SecondaryIndex(SAICaseInsensitive()))},
		{"analysis on a clustering column", RuleSAI, "X", `cannot be on a primary-key column ("Analysis options are not supported on primary key columns")`, withX[string](ClusteringKey(0, ClusteringAsc), SecondaryIndex(UsingSAI(), SAINormalize()))},
		{"analysis on an int", RuleSAI, "X", `apply to text, and the index holds INT ("CQL type int cannot be analyzed.")`, withX[int32](SecondaryIndex(UsingSAI(), SAIASCII()))},
		{"analysis on a map's int keys", RuleSAI, "X", `the index holds INT`, withX[map[int32]string](SecondaryIndex(UsingSAI(), IndexKeys(), SAICaseInsensitive()))},
		{"analysis on a map's entries", RuleSAI, "X", `the index holds a collection's entries`, withX[map[string]string](SecondaryIndex(UsingSAI(), IndexEntries(), SAICaseInsensitive()))},
		// udt
		{"an index on a struct", RuleUDT, "X", `user-defined type address is not frozen|Cannot create index on non-frozen UDT column`, withX[Address](SecondaryIndex())},
		{"Frozen on a string", RuleUDT, "X", `Frozen applies to a column of a user-defined type (a struct field) or of a collection (a slice or a map), and this column is TEXT ("frozen<> is only allowed on collections, tuples, and user-defined types"); drop Frozen`, withX[string](Frozen())},
		{"Frozen on a blob", RuleUDT, "X", `this column is BLOB`, withX[[]byte](Frozen())},
		{"Frozen on a vector", RuleUDT, "X", `this column is VECTOR<FLOAT, 3>`, withX[[3]float32](Frozen())},
		{"an index on a static struct", RuleUDT, "Addr", `not frozen`, of(func(e *staticAddr, s *Schema[staticAddr]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.At, ClusteringKey(0, ClusteringAsc))
			Bind(s, &e.Addr, Static(), SecondaryIndex())
		})},
		// mask: on a column the runtime filters by or reads back
		{"a masked clustering key", RuleMask, "X", `the column is masked with mask_null(), and it is a clustering key: every read by the key filters by it, which a role without the UNMASK or SELECT_MASKED permission is refused|mask another column, or drop Masked`, withX[string](ClusteringKey(0, ClusteringAsc), Masked(MaskNull()))},
		{"a masked lookup column", RuleMask, "X", `it is the column of a lookup: Find checks that the row still holds the value`, withX[string](Lookup("by_x", LookupBatch), Masked(MaskDefault()))},
		{"a masked indexed column", RuleMask, "X", `it is indexed`, withX[string](SecondaryIndex(), Masked(MaskInner(1, 1)))},
		{"a masked Version", RuleMask, "X", `it is the Version column`, onX(func(s *utInt, x *int64) { Version(s, x, Masked(MaskDefault())) })},
		{"a masked soft-delete marker", RuleMask, "X", `it is the soft-delete marker`, of(func(e *rulesUT[bool], s *Schema[rulesUT[bool]]) {
			s.Table("t", SoftDelete(time.Hour, &e.X))
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.X, Masked(MaskNull()))
		})},
		// mask: a mask the column's type does not take
		{"mask_inner on an int", RuleMask, "X", `mask_inner masks text, and the column is INT ("Function system.mask_inner requires an argument of type [text|varchar|ascii]"); use MaskDefault, MaskNull or MaskReplace`, withX[int32](Masked(MaskInner(1, 2)))},
		{"mask_outer on a list", RuleMask, "X", `mask_outer masks text, and the column is LIST<TEXT>`, withX[[]string](Masked(MaskOuter(1, 2)))},
		{"a non-ASCII padding on ASCII", RuleMask, "X", `pads the ASCII column with 'é'`, withX[string](AsType(CQLAscii), Masked(MaskInner(1, 2, 'é')))},
		{"mask_hash on text", RuleMask, "X", `mask_hash returns a blob, and the column is TEXT|"Masking function mask_hash() return type is blob.|hash only a BLOB column`, withX[string](Masked(MaskHash()))},
		{"mask_replace of a string on an int", RuleMask, "X", `MaskReplace's 'x' is not a value of the column's type INT; give a value of its type`, withX[int32](Masked(MaskReplace("x")))},
		{"mask_replace of an int on text", RuleMask, "X", `MaskReplace's 5 is not a value of the column's type TEXT`, withX[string](Masked(MaskReplace(5)))},
		{"mask_replace out of a TINYINT", RuleMask, "X", `MaskReplace's 300 is outside the range of the column's type TINYINT (-128 to 127)`, withX[int8](Masked(MaskReplace(300)))},
		{"mask_replace of a non-ASCII string on ASCII", RuleMask, "X", `is not ASCII, and the column is ASCII ("Invalid ASCII character in string literal")`, withX[string](AsType(CQLAscii), Masked(MaskReplace("é")))},
		{"mask_replace past a FLOAT", RuleMask, "X", `is past the largest FLOAT`, withX[float32](Masked(MaskReplace(1e300)))},
		{"mask_replace of a version 4 UUID on a TIMEUUID", RuleMask, "X", `is a version 4 UUID, and the column is TIMEUUID ("TimeUUID supports only version 1 UUIDs")`, withX[uuid.UUID](AsType(CQLTimeUUID), Masked(MaskReplace(uuid.MustParse("6ba7b810-9dad-41d1-80b4-00c04fd430c8"))))},
		{"mask_replace of a bool on a blob", RuleMask, "X", `MaskReplace's true is not a value of the column's type BLOB`, withX[[]byte](Masked(MaskReplace(true)))},
		// mask: an argument no server takes
		{"a negative count", RuleMask, "X", `MaskInner is given -1 characters to keep; give 0 or more`, withX[string](Masked(MaskInner(-1, 2)))},
		{"a count past an int", RuleMask, "X", `MaskOuter is given 2147483648 characters; the server's count is an int`, withX[string](Masked(MaskOuter(0, math.MaxInt32+1)))},
		{"two paddings", RuleMask, "X", `MaskInner takes at most one padding character, and is given 2`, withX[string](Masked(MaskInner(1, 2, '#', '$')))},
		{"a padding of two UTF-16 units", RuleMask, "X", `is two UTF-16 units, and every read of the column fails`, withX[string](Masked(MaskInner(1, 2, '😀')))},
		{"a quote as padding", RuleMask, "X", `the server cannot read a single quote back`, withX[string](Masked(MaskOuter(1, 2, '\'')))},
		{"an unknown hash", RuleMask, "X", `MaskHash is given the algorithm "SHA-999"|"Hash algorithm not found"|use one of MD2, MD5, SHA-1`, withX[[]byte](Masked(MaskHash("SHA-999")))},
		{"two hashes", RuleMask, "X", `MaskHash takes at most one algorithm, and is given 2`, withX[[]byte](Masked(MaskHash("MD5", "SHA-1")))},
		{"a replacement with a quote", RuleMask, "X", `with a single quote, which the server cannot read back from its schema ("Failed parsing CQL term")`, withX[string](Masked(MaskReplace("it's")))},
		{"a NaN replacement", RuleMask, "X", `MaskReplace is given NaN; give a finite number`, withX[float64](Masked(MaskReplace(math.NaN())))},
		{"a nil replacement", RuleMask, "X", `MaskReplace is given nil; to mask as null use MaskNull`, withX[string](Masked(MaskReplace(nil)))},
		{"a struct replacement", RuleMask, "X", `MaskReplace is given a struct {}; it takes a string, bool, integer, float, []byte, uuid.UUID or time.Time`, withX[string](Masked(MaskReplace(struct{}{})))},
		{"a replacement time in nanoseconds", RuleMask, "X", `a timestamp holds whole milliseconds`, withX[time.Time](Masked(MaskReplace(time.Unix(0, 1))))},
		{"a replacement past uint64's int64", RuleMask, "X", `past the largest integer kandra compares`, withX[int64](Masked(MaskReplace(uint64(math.MaxUint64))))},
		{"a replacement that is not UTF-8", RuleMask, "X", `which is not valid UTF-8`, withX[string](Masked(MaskReplace("\xff")))},
		{"a vector clustering key", RuleVector, "X", `a vector cannot be a clustering key in kandra|key the row by an id`, withX[[3]float32](ClusteringKey(0, ClusteringAsc))},
		{"a vector with a lookup", RuleVector, "X", `a vector cannot have a lookup table`, withX[[3]float32](Lookup("by_v", LookupBatch))},
		{"a SecondaryIndex on a vector", RuleVector, "X", `through an ANN index: bind it with kandra.VectorIndex(kandra.SimilarityCosine)`, withX[[3]float32](SecondaryIndex())},
		{"VectorIndex on text", RuleVector, "X", `VectorIndex is an ANN index on a vector, and column "x" holds TEXT`, withX[string](VectorIndex(SimilarityCosine))},
		{"VectorIndex without a similarity", RuleVector, "X", `VectorIndex is given Similarity(0)`, withX[[3]float32](VectorIndex(0))},
		{"cosine on one dimension", RuleVector, "X", `("Cosine similarity is not supported for single-dimension vectors")`, withX[*[1]float32](VectorIndex(SimilarityCosine))},
		{"VectorIndex on an odd name", RuleVector, "X", `SAI refuses a column whose name`, withX[[2]float32](Column("odd name"), VectorIndex(SimilarityEuclidean))},

		// option-range on the table
		{"TTL -1", RuleOptionRange, "", "DefaultTTL -1s is outside 0..175200h0m0s (630720000 s)", withTable(DefaultTTL(-1 * time.Second))},
		{"TTL 630720001", RuleOptionRange, "", "DefaultTTL 175200h0m1s is outside 0..175200h0m0s (630720000 s)", withTable(DefaultTTL(MaxTTL + time.Second))},
		{"Leveled with a negative size", RuleOptionRange, "", "SSTableSizeMB is for Leveled only, and at least 1", withTable(Compaction(Leveled(-1)))},
		{"TimeWindow without a unit", RuleOptionRange, "", "TimeWindow takes kandra.WindowMinutes, WindowHours or WindowDays", withTable(Compaction(TimeWindow(0, 2)))},
		{"TimeWindow with an unknown unit", RuleOptionRange, "", "TimeWindow takes kandra.WindowMinutes", withTable(Compaction(TimeWindow(9, 2)))},
		{"an unknown compaction", RuleOptionRange, "", "Compaction is given CompactionKind(0)", withTable(Compaction(CompactionStrategy{}))},
		{"scaling parameters off Unified", RuleOptionRange, "", "ScalingParameters are for Unified only", withTable(Compaction(CompactionStrategy{Kind: CompactionLeveled, ScalingParameters: "T4"}))},
		{"bad scaling parameters", RuleOptionRange, "", `scaling parameter "fast" is not N, L<n>, T<n> or a signed number`, withTable(Compaction(Unified("fast")))},
		{"a chunk of 3 KB", RuleOptionRange, "", "chunk length 3 KB is not a power of two", withTable(Compression(LZ4Compressor, 3))},
		{"an unknown compressor", RuleOptionRange, "", "Compression is given Compressor(7)", withTable(Compression(7, 0))},
		{"bloom filter chance 0", RuleOptionRange, "", "BloomFilterFPChance 0 is outside (6.71e-05, 1]", withTable(BloomFilterFPChance(0))},
		{"bloom filter chance at Cassandra's least", RuleOptionRange, "", "BloomFilterFPChance 6.71e-05 is outside", withTable(BloomFilterFPChance(6.71e-5))},
		{"speculative retry of 1.5ms", RuleOptionRange, "", "a whole <n>ms (it stores 1.5ms as 1ms)", withTable(SpeculativeRetry("1.5ms"))},
		{"speculative retry with 5 decimals", RuleOptionRange, "", "Cassandra stores 99.99999p as 100p", withTable(SpeculativeRetry("99.99999p"))},
		{"bloom filter chance 1.5", RuleOptionRange, "", "BloomFilterFPChance 1.5 is outside", withTable(BloomFilterFPChance(1.5))},
		{"speculative retry sometimes", RuleOptionRange, "", `SpeculativeRetry: "sometimes" is none of`, withTable(SpeculativeRetry("sometimes"))},
		{"speculative retry at 100p", RuleOptionRange, "", `"100p" is a percentile outside (0, 100)`, withTable(SpeculativeRetry("100p"))},
		{"MIN of NONE", RuleOptionRange, "", "MIN and MAX take a percentile and a time", withTable(SpeculativeRetry("MIN(NONE,50ms)"))},
		{"caching rows -2", RuleOptionRange, "", "rows per partition is -2", withTable(Caching(true, -2))},
		{"a memtable named with a dash", RuleOptionRange, "", `Memtable "a-b" names no memtable configuration`, withTable(Memtable("a-b"))},
		{"an unknown tombstone_gc mode", RuleOptionRange, "", "TombstoneGC is given TombstoneGCMode(9)", withTable(TombstoneGC(9))},
		{"a rate limit of nothing", RuleOptionRange, "", "PerPartitionRateLimit takes reads and writes", withTable(PerPartitionRateLimit(0, 0))},
		{"a comment that is not UTF-8", RuleOptionRange, "", "Comment is not valid UTF-8", withTable(Comment("\xff"))},
		// What the node refuses past the values' forms (issue 33, finding 8).
		{"Leveled at 2^31 MB", RuleOptionRange, "", `Leveled's SSTableSizeMB 2147483648 is above 87960|At most 9223372036854775807 bytes may be in a compaction level|use at most 87960`, withTable(Compaction(Leveled(1 << 31)))},
		{"Leveled at 87961 MB", RuleOptionRange, "", `Leveled's SSTableSizeMB 87961 is above 87960`, withTable(Compaction(Leveled(87961)))},
		{"TimeWindow of 2^31", RuleOptionRange, "", `TimeWindow's WindowSize 2147483648 is above 2147483647|compaction_window_size is a 32-bit int on the servers|is not a parsable int`, withTable(Compaction(TimeWindow(WindowDays, 1<<31)))},
		{"caching 2^31 rows", RuleOptionRange, "", `Caching's rows per partition 2147483648 is above 2147483647|a 32-bit int on the servers`, withTable(Caching(true, 1<<31))},
		{"scaling parameter T", RuleOptionRange, "", `Unified's scaling parameter "T" is not N, L<n>, T<n> or a signed number|Scaling parameter ... must match N|L[0-9]+|T[0-9]+`, withTable(Compaction(Unified("T")))},
		{"scaling parameter N5", RuleOptionRange, "", `Unified's scaling parameter "N5" is not N, L<n>, T<n> or a signed number`, withTable(Compaction(Unified("N5")))},
		{"scaling parameter T1", RuleOptionRange, "", `Unified's scaling parameter "T1" has a fan factor under 2|Fan factor cannot be lower than 2|use T2 or more`, withTable(Compaction(Unified("T1")))},
		{"scaling parameter L0", RuleOptionRange, "", `Unified's scaling parameter "L0" has a fan factor under 2`, withTable(Compaction(Unified("T4, L0")))},
		{"scaling parameter T99999999999", RuleOptionRange, "", `Unified's scaling parameter "T99999999999" is above 2147483647`, withTable(Compaction(Unified("T99999999999")))},
		{"scaling parameter +2147483648", RuleOptionRange, "", `Unified's scaling parameter "+2147483648" is outside -2147483648..2147483647`, withTable(Compaction(Unified("N,+2147483648")))},
		{"scaling parameter t4", RuleOptionRange, "", `Unified's scaling parameter "t4" is not N, L<n>, T<n>`, withTable(Compaction(Unified("t4")))},
		{"a comment of 1 MiB and a byte", RuleOptionRange, "", `Comment is 1048577 bytes, more than 1048576 (MaxCommentBytes)|Request is too big|keep the comment short`, withTable(Comment(strings.Repeat("x", MaxCommentBytes+1)))},
		{"compaction twice", RuleConflictingOptions, "", "Compaction is set twice with different values", withTable(Compaction(SizeTiered()), Compaction(Leveled(0)))},
		{"gc grace -1", RuleOptionRange, "", "GCGrace -1s is outside 0..596523h14m7s (2147483647 s)", withTable(GCGrace(-1 * time.Second))},
		{"soft-delete TTL -1", RuleOptionRange, "", "the SoftDelete TTL -1s is outside 0..175200h0m0s", withTable(SoftDelete(-1*time.Second, nil))},
		{"soft-delete TTL 630720001", RuleOptionRange, "", "the SoftDelete TTL 175200h0m1s is outside", withTable(SoftDelete(MaxTTL+time.Second, nil))},
		{"TTL 1.5s", RuleOptionRange, "", "DefaultTTL 1.5s is not a whole number of seconds, which is what CQL stores; use 1s", withTable(DefaultTTL(1500 * time.Millisecond))},
		{"gc grace 1ns", RuleOptionRange, "", "GCGrace 1ns is not a whole number of seconds", withTable(GCGrace(time.Nanosecond))},
		{"soft-delete TTL 1ms", RuleOptionRange, "", "the SoftDelete TTL 1ms is not a whole number of seconds", withTable(SoftDelete(time.Millisecond, nil))},
		{"read consistency 11", RuleOptionRange, "", "ReadConsistency is given an unknown level", withTable(ReadConsistency(Consistency(11)))},
		{"write consistency 0xFFFF", RuleOptionRange, "", "WriteConsistency is given an unknown level", withTable(WriteConsistency(Consistency(0xFFFF)))},
		// option-range on the enums a field option carries, naming the field
		{"ClusteringOrder(5)", RuleOptionRange, "X", "ClusteringOrder(5); use kandra.ClusteringAsc or kandra.ClusteringDesc", withX[time.Time](ClusteringKey(0, ClusteringOrder(5)))},
		{"LookupKind(9)", RuleOptionRange, "X", "LookupKind(9); use kandra.LookupBatch, kandra.LookupEventual or kandra.LookupUnique", withX[string](Lookup("by_x", LookupKind(9)))},
		{"UUIDStrategy(7)", RuleOptionRange, "X", "UUIDStrategy(7); use kandra.UUIDTimeOrdered or kandra.UUIDRandom", onX(func(s *utUUID, x *uuid.UUID) { GeneratedUUID(s, x, UUIDStrategy(7)) })},
		// schema-size: the table, then a lookup table (TestSchemaSizeEdge
		// has both edges).
		{"5,600 columns with 1,000-byte names", RuleSchemaSize, "", `table "wide" makes a schema mutation of an estimated|(5601 columns), over 16777216 (MaxSchemaMutationBytes)|"Rejected an oversized mutation"|use fewer columns or shorter column names`,
			wideSpec{table: "wide", regular: 5600, nameLen: 1000}.built()},
		{"a lookup table carrying 5,000 key columns under a 202-byte name", RuleSchemaSize, "F5001", `lookup table "t_` + strings.Repeat("s", 200) + `" makes a schema mutation of an estimated|(5002 columns)|use fewer or shorter primary-key column names, or a shorter lookup suffix`,
			wideSpec{table: "t", keys: 5000, regular: 1, nameLen: 1000, lookup: strings.Repeat("s", 200)}.built()},
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
			o := withTable(GCGrace((math.MaxInt32 + 1) * time.Second)).run(t)
			wantSchemaError(t, o.err, RuleOptionRange, "", "GCGrace 596523h14m8s is outside 0..596523h14m7s (2147483647 s)", o.entity)
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
		RuleNotStruct, RuleDescribe, RuleTableMissing, RuleBinding, RuleConflictingOptions,
		RuleNoPartitionKey, RuleDuplicatePartitionIndex, RuleDuplicateLookupTable, RuleCounterMix,
		RuleDuplicateTimestamp, RuleDuplicateVersion, RuleSoftDeleteMarker, RuleKeyConflict,
		RuleInvalidName, RuleDuplicateColumn, RuleDuplicateClusteringIndex, RuleUnsupportedType,
		RuleKeyType, RuleStatic, RuleCounterTable, RuleLookup, RuleSecondaryIndex, RuleSAI, RuleVector, RuleUDT, RuleMask, RuleOptionRange, RuleSchemaSize,
		RuleKeyspaceName, RuleTargets, RuleReplication, RuleNameTaken, RuleNameLength, RuleTTLCap, RuleTablets, RuleSAIIndex,
		RuleIndexKind, RuleVectorTarget, RuleMaskTarget, RuleOptionTarget, RuleUDTName,
	}
	// The servers each rule serves: the keyspace rules of one server's
	// refusals name it; every other rule serves all.
	wantTargets := map[Rule]Target{
		RuleTTLCap:       Cassandra5,
		RuleTablets:      Scylla2025Tablets | Scylla2026Tablets,
		RuleSAIIndex:     Cassandra5Latest,
		RuleIndexKind:    scyllaTargets,
		RuleVectorTarget: scyllaTargets,
		RuleMaskTarget:   scyllaTargets,
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
		targets, ok := wantTargets[ri.Rule]
		if !ok {
			targets = AllTargets
		}
		if ri.Targets != targets || !ri.Targets.IsValid() {
			t.Errorf("rule %q serves %v, want %v", ri.Rule, ri.Targets, targets)
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
			s.Table("t", GCGrace(60*time.Second), GCGrace(60*time.Second), DefaultTTL(5*time.Second), DefaultTTL(5*time.Second))
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
			s.Table("t", SoftDelete(60*time.Second, &e.Deleted))
			Bind(s, &e.ID, PartitionKey(0))
		})
		sd := ts.SoftDelete()
		if sd == nil || sd.TTL != time.Minute || sd.Marker == nil || sd.Marker.GoName() != "Deleted" || !sd.Marker.IsSoftDeleteMarker() {
			t.Errorf("SoftDelete() = %+v, want TTL 60 with marker Deleted", sd)
		}
	})
	t.Run("invalid-name: names of 222 characters", func(t *testing.T) {
		ts := accept(t, func(e *rulesUT[string], s *Schema[rulesUT[string]]) {
			s.Table(name222)
			Bind(s, &e.ID, PartitionKey(0))
		})
		if ts.Name() != name222 {
			t.Errorf("table name = %q", ts.Name())
		}
		table212 := strings.Repeat("t", 212)
		ts = accept(t, func(e *rulesUT[string], s *Schema[rulesUT[string]]) {
			s.Table(table212)
			Bind(s, &e.ID, PartitionKey(0), Column("id"))
			Bind(s, &e.X, Column("email"), Lookup("by_emails", LookupBatch), SecondaryIndex())
		})
		if l := ts.LookupTables()[0].Name(); len(l) != 222 {
			t.Errorf("lookup table %q has %d characters, want 222", l, len(l))
		}
		if n := ts.IndexName(ts.ColumnByName("email")); n != table212+"_email_idx" || len(n) != 222 {
			t.Errorf("index name %q, want %d characters", n, 222)
		}
	})
	t.Run("invalid-name: column names of MaxColumnNameBytes", func(t *testing.T) {
		ascii := strings.Repeat("c", MaxColumnNameBytes)
		multi := strings.Repeat("日", MaxColumnNameBytes/3) + "x" // 1023 + 1 bytes
		ts := accept(t, func(e *rulesUT[string], s *Schema[rulesUT[string]]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0), Column(ascii))
			Bind(s, &e.X, Column(multi))
		})
		wantColumns(t, ts, "ID="+ascii, "X="+multi)
		type near struct{ A, B, C string }
		ts = accept(t, func(e *near, s *Schema[near]) {
			s.Table("t")
			Bind(s, &e.A, PartitionKey(0), Column("applied"))
			Bind(s, &e.B, Column("[applied] "))
			Bind(s, &e.C, Column("[Applied]"))
		})
		wantColumns(t, ts, "A=applied", "B=[applied] ", "C=[Applied]")
	})
	t.Run("invalid-name: index names of columns that are not all word characters", func(t *testing.T) {
		type odd struct{ ID, A, B, C, D, E, F string }
		ts := accept(t, func(e *odd, s *Schema[odd]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.A, Column("Größe"), SecondaryIndex())
			Bind(s, &e.B, Column("Gr__e"), SecondaryIndex()) // all word characters: the plain name
			Bind(s, &e.C, Column("Mixed Case"), SecondaryIndex())
			Bind(s, &e.D, Column("a b"), SecondaryIndex())
			Bind(s, &e.E, Column("a-b"), SecondaryIndex()) // sanitizes as "a b" does
			Bind(s, &e.F, Column(`say "hi"`), SecondaryIndex())
		})
		fnv32a := func(s string) string {
			h := fnv.New32a()
			h.Write([]byte(s))
			return fmt.Sprintf("%08x", h.Sum32())
		}
		want := map[string]string{
			"Größe":      "t_Gr__e_" + fnv32a("Größe") + "_idx",
			"Gr__e":      "t_Gr__e_idx",
			"Mixed Case": "t_Mixed_Case_" + fnv32a("Mixed Case") + "_idx",
			"a b":        "t_a_b_" + fnv32a("a b") + "_idx",
			"a-b":        "t_a_b_" + fnv32a("a-b") + "_idx",
			`say "hi"`:   "t_say__hi__" + fnv32a(`say "hi"`) + "_idx",
		}
		seen := map[string]string{}
		ks := MustNewKeyspace(on(Cassandra5|Scylla2026), ts) // indexes: no ScyllaDB 2025.x with tablets
		for col, name := range want {
			c := ts.ColumnByName(col)
			if got := ts.IndexName(c); got != name {
				t.Errorf("IndexName(%q) = %q, want %q", col, got, name)
			}
			if p := nameCharsProblem(name); p != "" {
				t.Errorf("index name %q %s", name, p)
			}
			if prev, dup := seen[name]; dup {
				t.Errorf("columns %q and %q have one index name %q", prev, col, name)
			}
			seen[name] = col
			stmt, err := ks.CreateIndex(ts, c)
			if want := "CREATE INDEX IF NOT EXISTS " + QuoteIdent(name) + " ON ks.t (" + c.CQLName() + ");"; err != nil || stmt != want {
				t.Errorf("CreateIndex(%q) = %q, %v; want %q", col, stmt, err, want)
			}
		}
		if fnv32a("a b") == fnv32a("a-b") {
			t.Errorf("the hashes of %q and %q are equal", "a b", "a-b")
		}
	})
	t.Run("lookup: on a clustering column and on a partition-key component", func(t *testing.T) {
		type keyed struct {
			A, B string
			At   time.Time
			Seq  int64
			Note string
		}
		ts := accept(t, func(e *keyed, s *Schema[keyed]) {
			s.Table("t")
			Bind(s, &e.A, PartitionKey(0), Lookup("by_a", LookupBatch))
			Bind(s, &e.B, PartitionKey(1))
			Bind(s, &e.At, ClusteringKey(0, ClusteringDesc), Lookup("by_at", LookupEventual))
			Bind(s, &e.Seq, ClusteringKey(1, ClusteringAsc))
			Bind(s, &e.Note, Lookup("by_note", LookupBatch))
		})
		lookups := ts.LookupTables()
		if len(lookups) != 3 {
			t.Fatalf("%d lookup tables, want 3", len(lookups))
		}
		ks := MustNewKeyspace(on(0), ts) // lookups alone: every target
		want := []struct {
			name, index string
			columns     []string
			ddl         string
		}{
			{"t_by_a", "a", []string{"a", "b", "at", "seq"}, "CREATE TABLE IF NOT EXISTS ks.t_by_a (\n    a TEXT,\n    b TEXT,\n    at TIMESTAMP,\n    seq BIGINT,\n    PRIMARY KEY ((a), b, at, seq)\n);"},
			{"t_by_at", "at", []string{"at", "a", "b", "seq"}, "CREATE TABLE IF NOT EXISTS ks.t_by_at (\n    at TIMESTAMP,\n    a TEXT,\n    b TEXT,\n    seq BIGINT,\n    PRIMARY KEY ((at), a, b, seq)\n);"},
			{"t_by_note", "note", []string{"note", "a", "b", "at", "seq"}, "CREATE TABLE IF NOT EXISTS ks.t_by_note (\n    note TEXT,\n    a TEXT,\n    b TEXT,\n    at TIMESTAMP,\n    seq BIGINT,\n    PRIMARY KEY ((note), a, b, at, seq)\n);"},
		}
		colNames := func(cs []*ColumnSchema) []string {
			var out []string
			for _, c := range cs {
				out = append(out, c.Name())
			}
			return out
		}
		for i, w := range want {
			l := lookups[i]
			if l.Name() != w.name || l.IndexColumn().Name() != w.index || l.IndexColumn().Lookup() != l || l.Table() != ts {
				t.Errorf("lookup %d: %q on %q", i, l.Name(), l.IndexColumn().Name())
			}
			if got := colNames(l.Columns()); !slices.Equal(got, w.columns) {
				t.Errorf("%s: Columns() = %q, want %q", w.name, got, w.columns)
			}
			if got := colNames(l.PartitionKeys()); !slices.Equal(got, []string{"a", "b"}) {
				t.Errorf("%s: PartitionKeys() = %q, want the full partition key", w.name, got)
			}
			if got := colNames(l.ClusteringKeys()); !slices.Equal(got, []string{"at", "seq"}) {
				t.Errorf("%s: ClusteringKeys() = %q, want the full clustering key", w.name, got)
			}
			if got, err := ks.CreateLookupTable(l); err != nil || got != w.ddl {
				t.Errorf("%s: CreateLookupTable =\n%s\n%v; want\n%s", w.name, got, err, w.ddl)
			}
		}
	})
	t.Run("unsupported-type: named types of the special types", func(t *testing.T) {
		type peer netip.Addr
		type special struct {
			ID     rulesUserID
			At     rulesAt
			Peer   peer
			Raw    [16]byte
			MaybeA *rulesAt
			IDs    []rulesUserID
			Seen   map[rulesUserID]rulesAt
			Day    rulesAt
			Run    rulesUserID
		}
		ts := accept(t, func(e *special, s *Schema[special]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.At, ClusteringKey(0, ClusteringAsc))
			Bind(s, &e.Day, AsType(CQLDate))
			Bind(s, &e.Run, AsType(CQLTimeUUID))
		})
		want := map[string]string{
			"id": "UUID", "at": "TIMESTAMP", "peer": "INET", "raw": "UUID", "maybe_a": "TIMESTAMP",
			"ids": "LIST<UUID>", "seen": "MAP<UUID, TIMESTAMP>", "day": "DATE", "run": "TIMEUUID",
		}
		for _, c := range ts.Columns() {
			if w, ok := want[c.Name()]; !ok || c.Decl() != w {
				t.Errorf("column %s (%v) is %s, want %s", c.Name(), c.GoType(), c.Decl(), w)
			}
		}
		if len(ts.Columns()) != len(want) {
			t.Errorf("%d columns, want %d", len(ts.Columns()), len(want))
		}
	})
	t.Run("binding: two struct{} fields at one offset, bound Transient once", func(t *testing.T) {
		type twins struct {
			ID   string
			A, B struct{}
		}
		if a, b := reflect.TypeFor[twins]().Field(1).Offset, reflect.TypeFor[twins]().Field(2).Offset; a != b {
			t.Fatalf("A and B lie at %d and %d", a, b)
		}
		for name, bind := range map[string]func(e *twins, s *Schema[twins]){
			"A":    func(e *twins, s *Schema[twins]) { Bind(s, &e.A, Transient()) },
			"B":    func(e *twins, s *Schema[twins]) { Bind(s, &e.B, Transient()) },
			"both": func(e *twins, s *Schema[twins]) { Bind(s, &e.A, Transient()); Bind(s, &e.B, Transient()) },
		} {
			ts := accept(t, func(e *twins, s *Schema[twins]) {
				s.Table("t")
				Bind(s, &e.ID, PartitionKey(0))
				bind(e, s)
			})
			if ts.NumColumns() != 1 {
				t.Errorf("Transient on %s: columns %v, want id only", name, ts.Columns())
			}
		}
		// Unbound, the first struct{} field has no CQL type.
		o := of(func(e *twins, s *Schema[twins]) { s.Table("t"); Bind(s, &e.ID, PartitionKey(0)) }).run(t)
		wantSchemaError(t, o.err, RuleUnsupportedType, "A", "type struct {}", o.entity)
	})
	t.Run("counter-table: TTL 0 and a timestamp clustering key", func(t *testing.T) {
		type counters struct {
			ID          string
			Day         time.Time
			Hits, Bytes int64
		}
		ts := accept(t, func(e *counters, s *Schema[counters]) {
			s.Table("t", DefaultTTL(0*time.Second), GCGrace(3600*time.Second))
			Bind(s, &e.ID, PartitionKey(0))
			CreatedAt(s, &e.Day, ClusteringKey(0, ClusteringDesc))
			Counter(s, &e.Hits)
			Counter(s, &e.Bytes)
		})
		if !ts.IsCounterTable() {
			t.Errorf("IsCounterTable() = false")
		}
		// A counter table: Cassandra 5.0 takes it (ScyllaDB 2025.x with
		// tablets would not).
		ddl, err := MustNewKeyspace(on(Cassandra5), ts).CreateTable(ts)
		if err != nil {
			t.Fatal(err)
		}
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
			"CREATE INDEX IF NOT EXISTS t_a_idx ON ks.t (a);",
			"CREATE INDEX IF NOT EXISTS t_at_idx ON ks.t (at);",
			"CREATE INDEX IF NOT EXISTS t_tags_idx ON ks.t (tags);",
		}
		// Indexes on non-blob columns: every target but ScyllaDB 2025.x
		// with tablets.
		if stmts := MustNewKeyspace(on(AllTargets&^Scylla2025Tablets), ts).Statements(); len(stmts) != 5 || !slices.Equal(stmts[2:], want) {
			t.Errorf("statements = %q, want the keyspace, the table, then %q", stmts, want)
		}
	})
	t.Run("option-range: the edges of every range", func(t *testing.T) {
		type edges struct {
			ID      string
			At      time.Time
			Deleted bool
		}
		ts := accept(t, func(e *edges, s *Schema[edges]) {
			s.Table("t", DefaultTTL(MaxTTL), GCGrace(math.MaxInt32*time.Second), SoftDelete(MaxTTL, &e.Deleted),
				ReadConsistency(ConsistencyLocalOne), WriteConsistency(ConsistencyAny))
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.At, ClusteringKey(0, ClusteringDesc))
		})
		if ttl, ok := ts.DefaultTTL(); !ok || ttl != MaxTTL {
			t.Errorf("DefaultTTL() = %v, %v", ttl, ok)
		}
		if gc, ok := ts.GCGrace(); !ok || gc != math.MaxInt32*time.Second {
			t.Errorf("GCGrace() = %v, %v", gc, ok)
		}
		if r, ok := ts.ReadConsistency(); !ok || r != ConsistencyLocalOne {
			t.Errorf("ReadConsistency() = %v, %v", r, ok)
		}
		if w, ok := ts.WriteConsistency(); !ok || w != ConsistencyAny {
			t.Errorf("WriteConsistency() = %v, %v", w, ok)
		}
		if sd := ts.SoftDelete(); sd == nil || sd.TTL != MaxTTL {
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
			s.Table("t", DefaultTTL(-5*time.Second))
			Bind(s, &e.ID, PartitionKey(0))
			Counter(s, &e.Hits)
		})},
		{"duration key, index on the only key and TTL range", []Rule{RuleKeyType, RuleSecondaryIndex, RuleOptionRange}, of(func(e *durationKey, s *Schema[durationKey]) {
			s.Table("t", DefaultTTL(-1*time.Second))
			Bind(s, &e.ID, PartitionKey(0), SecondaryIndex())
		})},
		{"Table twice and no partition key", []Rule{RuleConflictingOptions, RuleNoPartitionKey}, of(func(e *rulesUT[string], s *utStr) {
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
			s.Table("t", SoftDelete(60*time.Second, &e.deleted))
		})},
		{"unexported marker and Table twice", []Rule{RuleConflictingOptions, RuleSoftDeleteMarker}, of(func(e *marked, s *Schema[marked]) {
			s.Table("t", SoftDelete(60*time.Second, &e.deleted))
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
		})},
		{"Transient marker and no partition key", []Rule{RuleNoPartitionKey, RuleSoftDeleteMarker}, of(func(e *marked, s *Schema[marked]) {
			s.Table("t", SoftDelete(60*time.Second, &e.Deleted))
			Bind(s, &e.Deleted, Transient())
		})},
		{"ambiguous embedding and no Table", []Rule{RuleNotStruct, RuleTableMissing, RuleNoPartitionKey, RuleInvalidName}, of(func(*ambiguous, *Schema[ambiguous]) {})},
		{"not a struct, with a value-receiver Describe", []Rule{RuleNotStruct, RuleDescribe, RuleTableMissing, RuleNoPartitionKey, RuleInvalidName}, of(func(*rulesValueInt, *Schema[rulesValueInt]) {})},
		{"value receiver and no Table", []Rule{RuleDescribe, RuleTableMissing, RuleNoPartitionKey, RuleInvalidName}, of(func(*rulesValueRecv, *Schema[rulesValueRecv]) {})},
		{"Transient with Sensitive and no partition key", []Rule{RuleConflictingOptions, RuleNoPartitionKey}, of(func(e *rulesUT[string], s *utStr) {
			s.Table("t")
			Bind(s, &e.X, Transient(), Sensitive())
		})},
		{"unsupported type on a later field than a duration key", []Rule{RuleUnsupportedType, RuleKeyType}, of(func(e *typeBeforeKey, s *Schema[typeBeforeKey]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
		})},
		{"lookup and index on the only key, gc grace range", []Rule{RuleLookup, RuleSecondaryIndex, RuleOptionRange}, of(func(e *rulesUT[string], s *utStr) {
			s.Table("t", GCGrace(-1*time.Second))
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
		{"Version on a key of a counter table", []Rule{RuleConflictingOptions, RuleCounterTable}, of(func(e *counterVersion, s *Schema[counterVersion]) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0))
			Version(s, &e.Rev, ClusteringKey(0, ClusteringAsc))
			Counter(s, &e.Hits)
		})},
		{"AsType twice, the last a duration in a key", []Rule{RuleConflictingOptions, RuleKeyType}, withX[time.Duration](PartitionKey(1), AsType(ListOf(CQLDuration)), AsType(CQLDuration))},
		{"invalid ClusteringOrder on a duration clustering key", []Rule{RuleKeyType, RuleOptionRange}, withX[time.Duration](ClusteringKey(0, ClusteringOrder(5)))},
		{"a refused AsType pair and a lookup on the only key", []Rule{RuleUnsupportedType, RuleLookup}, of(func(e *rulesUT[string], s *utStr) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0), Lookup("by_id", LookupBatch), AsType(CQLInt))
		})},
		{"Version with a refused AsType pair", []Rule{RuleConflictingOptions, RuleUnsupportedType}, onX(func(s *utInt, x *int64) { Version(s, x, AsType(CQLInt)) })},
		{"CreatedAt with AsType(TEXT), also a refused pair", []Rule{RuleConflictingOptions, RuleUnsupportedType}, onX(func(s *utTime, x *time.Time) { CreatedAt(s, x, AsType(CQLText)) })},
		{"the marker as TEXT, also a refused pair", []Rule{RuleSoftDeleteMarker, RuleUnsupportedType}, of(func(e *marked, s *Schema[marked]) {
			s.Table("t", SoftDelete(60*time.Second, &e.Deleted))
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.Deleted, AsType(CQLText))
		})},
		{"a 223-character name and a lookup on the only key", []Rule{RuleInvalidName, RuleLookup}, of(func(e *rulesUT[string], s *utStr) {
			s.Table(name223)
			Bind(s, &e.ID, PartitionKey(0), Lookup("by_id", LookupBatch))
		})},
		{"invalid LookupKind on a key", []Rule{RuleLookup, RuleOptionRange}, of(func(e *rulesUT[string], s *utStr) {
			s.Table("t")
			Bind(s, &e.ID, PartitionKey(0), Lookup("by_id", LookupKind(9)))
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

// asTypeOn builds rulesUT[V] with AsType(ct) on X.
func asTypeOn[V any](ct CQLType) (*TableSchema, error) {
	ts, _, err := buildSchema(func(e *rulesUT[V], s *Schema[rulesUT[V]]) {
		s.Table("t")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.X, AsType(ct))
	})
	return ts, err
}

// nativeTypes are the native CQL types (COUNTER aside: only Counter gives it).
var nativeTypes = []CQLType{
	CQLAscii, CQLBigint, CQLBlob, CQLBoolean, CQLDate, CQLDecimal, CQLDouble, CQLDuration, CQLFloat, CQLInet,
	CQLInt, CQLSmallint, CQLText, CQLTime, CQLTimestamp, CQLTimeUUID, CQLTinyint, CQLUUID, CQLVarchar, CQLVarint,
}

// TestNativeOverrides: the table of allowed AsType pairs is the one the
// documentation gives, the derived type first.
func TestNativeOverrides(t *testing.T) {
	want := map[string][]string{
		"TEXT":      {"TEXT", "VARCHAR", "ASCII"},
		"TINYINT":   {"TINYINT", "SMALLINT", "INT", "BIGINT", "VARINT"},
		"SMALLINT":  {"SMALLINT", "INT", "BIGINT", "VARINT"},
		"INT":       {"INT", "BIGINT", "VARINT"},
		"BIGINT":    {"BIGINT", "VARINT"},
		"TIMESTAMP": {"TIMESTAMP", "DATE"},
		"DURATION":  {"DURATION", "TIME"},
		"UUID":      {"UUID", "TIMEUUID", "BLOB"}, // every Go type deriving UUID is a 16-byte array
		// The other derived types take only themselves.
		"BOOLEAN": {"BOOLEAN"}, "FLOAT": {"FLOAT"}, "DOUBLE": {"DOUBLE"}, "BLOB": {"BLOB"}, "INET": {"INET"}, "VARINT": {"VARINT"},
	}
	for _, n := range nativeTypes {
		var got []string
		for _, o := range NativeOverrides(n) {
			got = append(got, o.String())
		}
		// No Go type derives ASCII, DATE, DECIMAL, TIME, TIMEUUID or
		// VARCHAR: they have no row.
		if !slices.Equal(got, want[n.String()]) {
			t.Errorf("NativeOverrides(%v) = %q, want %q", n, got, want[n.String()])
		}
	}
	for _, c := range []CQLType{{}, ListOf(CQLText), SetOf(CQLInt), MapOf(CQLText, CQLText), cqlCounter} {
		if got := NativeOverrides(c); len(got) != 0 {
			t.Errorf("NativeOverrides(%v) = %v, want none", c, got)
		}
	}
	got := NativeOverrides(CQLText)
	got[0] = CQLBlob
	if NativeOverrides(CQLText)[0] != CQLText {
		t.Errorf("NativeOverrides returns the table itself, not a copy")
	}
}

// rulesOpaque has no CQL type kandra derives (a struct kind), and
// rulesTyperDecimal names its own: both take any override.
type (
	rulesOpaque       struct{ _ int64 }
	rulesTyperDecimal struct{ _ int64 }
	rulesCode         string
)

func (rulesTyperDecimal) CQLType() CQLType { return CQLDecimal }

// TestAsTypePairs goes through every native Go type kandra maps and every
// native CQL type: AsType is accepted exactly when NativeOverrides lists
// the pair, and refused under unsupported-type otherwise.
func TestAsTypePairs(t *testing.T) {
	goTypes := []struct {
		goType reflect.Type
		try    func(CQLType) (*TableSchema, error)
	}{
		{reflect.TypeFor[string](), asTypeOn[string]},
		{reflect.TypeFor[rulesCode](), asTypeOn[rulesCode]},
		{reflect.TypeFor[*string](), asTypeOn[*string]},
		{reflect.TypeFor[bool](), asTypeOn[bool]},
		{reflect.TypeFor[int8](), asTypeOn[int8]},
		{reflect.TypeFor[int16](), asTypeOn[int16]},
		{reflect.TypeFor[int32](), asTypeOn[int32]},
		{reflect.TypeFor[int](), asTypeOn[int]},
		{reflect.TypeFor[int64](), asTypeOn[int64]},
		{reflect.TypeFor[*int64](), asTypeOn[*int64]},
		{reflect.TypeFor[float32](), asTypeOn[float32]},
		{reflect.TypeFor[float64](), asTypeOn[float64]},
		{reflect.TypeFor[[]byte](), asTypeOn[[]byte]},
		{typeTime, asTypeOn[time.Time]},
		{reflect.TypeFor[rulesAt](), asTypeOn[rulesAt]},
		{typeDuration, asTypeOn[time.Duration]},
		{typeUUID, asTypeOn[uuid.UUID]},
		{reflect.TypeFor[rulesUserID](), asTypeOn[rulesUserID]},
		{reflect.TypeFor[[16]byte](), asTypeOn[[16]byte]},
		{typeNetIP, asTypeOn[net.IP]},
		{typeNetipAdd, asTypeOn[netip.Addr]},
		{typeBigInt, asTypeOn[*big.Int]},
	}
	accepted := 0
	for _, g := range goTypes {
		derived, p := goToCQL(g.goType)
		if p != "" || derived.Kind() != KindNative {
			t.Fatalf("%v: derived %v, %q", g.goType, derived, p)
		}
		allowed := NativeOverrides(derived)
		if len(allowed) == 0 || !allowed[0].Equal(derived) {
			t.Errorf("%v: NativeOverrides(%v) = %v, want it first", g.goType, derived, allowed)
		}
		for _, ct := range nativeTypes {
			var ts *TableSchema
			err := noPanic(t, func() (err error) { ts, err = g.try(ct); return err })
			if slices.ContainsFunc(allowed, ct.Equal) {
				accepted++
				if err != nil {
					t.Errorf("%v as %v: %v; NativeOverrides allows it", g.goType, ct, err)
				} else if got := ts.ColumnByName("x").Type(); !got.Equal(ct) {
					t.Errorf("%v as %v: the column is %v", g.goType, ct, got)
				}
				continue
			}
			var se *SchemaError
			if !errors.As(err, &se) || se.Rule != RuleUnsupportedType || se.Field != "X" ||
				!strings.Contains(se.Detail, "a field of type "+g.goType.String()+" cannot be stored as "+ct.String()+": the driver marshals it to "+derived.String()) {
				t.Errorf("%v as %v: error %v; want unsupported-type on X naming the pair", g.goType, ct, err)
			}
		}
	}
	if want := 49; accepted != want { // 22 Go types take their own type; 27 pairs more
		t.Errorf("%d pairs accepted, want %d", accepted, want)
	}

	// Collections: the same kind, and every element (and key) allowed for
	// its Go element type.
	collections := []struct {
		name string
		try  func(CQLType) (*TableSchema, error)
		as   CQLType
		ok   bool
	}{
		{"[]string as LIST<ASCII>", asTypeOn[[]string], ListOf(CQLAscii), true},
		{"[]string as LIST<TEXT>", asTypeOn[[]string], ListOf(CQLText), true},
		{"[]string as SET<TEXT>", asTypeOn[[]string], SetOf(CQLText), false},
		{"[]string as LIST<INT>", asTypeOn[[]string], ListOf(CQLInt), false},
		{"[]string as TEXT", asTypeOn[[]string], CQLText, false},
		{"[]time.Time as LIST<DATE>", asTypeOn[[]time.Time], ListOf(CQLDate), true},
		{"[]*big.Int as LIST<VARINT>: no pointer in a collection, no derived type", asTypeOn[[]*big.Int], ListOf(CQLVarint), true},
		{"[][]int8 as LIST<LIST<VARINT>>", asTypeOn[[][]int8], ListOf(ListOf(CQLVarint)), true},
		{"[][]int8 as LIST<SET<INT>>", asTypeOn[[][]int8], ListOf(SetOf(CQLInt)), false},
		{"[][]int32 as LIST<LIST<SMALLINT>>", asTypeOn[[][]int32], ListOf(ListOf(CQLSmallint)), false},
		{"map[int16]struct{} as SET<VARINT>", asTypeOn[map[int16]struct{}], SetOf(CQLVarint), true},
		{"map[int16]struct{} as SET<TINYINT>", asTypeOn[map[int16]struct{}], SetOf(CQLTinyint), false},
		{"map[int16]struct{} as LIST<SMALLINT>", asTypeOn[map[int16]struct{}], ListOf(CQLSmallint), false},
		{"map[string]int32 as MAP<VARCHAR, BIGINT>", asTypeOn[map[string]int32], MapOf(CQLVarchar, CQLBigint), true},
		{"map[string]int32 as MAP<TEXT, SMALLINT>", asTypeOn[map[string]int32], MapOf(CQLText, CQLSmallint), false},
		{"map[string]int32 as MAP<INT, INT>", asTypeOn[map[string]int32], MapOf(CQLInt, CQLInt), false},
		{"map[uuid.UUID]time.Duration as MAP<TIMEUUID, TIME>", asTypeOn[map[uuid.UUID]time.Duration], MapOf(CQLTimeUUID, CQLTime), true},
		{"map[uuid.UUID][]time.Time as MAP<UUID, LIST<DATE>>", asTypeOn[map[uuid.UUID][]time.Time], MapOf(CQLUUID, ListOf(CQLDate)), true},
		{"map[uuid.UUID][]time.Time as MAP<UUID, SET<DATE>>", asTypeOn[map[uuid.UUID][]time.Time], MapOf(CQLUUID, SetOf(CQLDate)), false},
		{"map[rulesUserID]rulesAt as MAP<TIMEUUID, DATE>", asTypeOn[map[rulesUserID]rulesAt], MapOf(CQLTimeUUID, CQLDate), true},
		{"*[]string as LIST<VARCHAR>", asTypeOn[*[]string], ListOf(CQLVarchar), true},
		// A Go type with no derived CQL type (a duration map key) is the
		// user's declaration.
		{"map[time.Duration]string as MAP<TIME, TEXT>", asTypeOn[map[time.Duration]string], MapOf(CQLTime, CQLText), true},
	}
	for _, c := range collections {
		ts, err := c.try(c.as)
		switch {
		case c.ok && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.ok && !ts.ColumnByName("x").Type().Equal(c.as):
			t.Errorf("%s: the column is %v", c.name, ts.ColumnByName("x").Type())
		case !c.ok:
			var se *SchemaError
			if !errors.As(err, &se) || se.Rule != RuleUnsupportedType || !strings.Contains(se.Detail, "cannot be stored as "+c.as.String()) {
				t.Errorf("%s: error %v; want unsupported-type", c.name, err)
			}
		}
	}

	// A type kandra derives no CQL type for, or one that names its own,
	// takes any override, native or collection.
	for _, ct := range append(slices.Clone(nativeTypes), ListOf(CQLText), SetOf(CQLBlob), MapOf(CQLAscii, ListOf(CQLDecimal))) {
		if _, err := asTypeOn[rulesOpaque](ct); err != nil {
			t.Errorf("rulesOpaque as %v: %v", ct, err)
		}
		if _, err := asTypeOn[rulesTyperDecimal](ct); err != nil {
			t.Errorf("rulesTyperDecimal as %v: %v", ct, err)
		}
	}
	if _, err := asTypeOn[rulesOpaque](SetOf(CQLDuration)); err == nil {
		t.Errorf("rulesOpaque as SET<DURATION>: accepted a type servers refuse")
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
			s.Table("t", DefaultTTL(-3*time.Second), GCGrace(-3*time.Second), SoftDelete(-3*time.Second, &e.Del), ReadConsistency(Consistency(0xFFFF)))
			Bind(s, &e.ID, PartitionKey(-1), ClusteringKey(-1, ClusteringOrder(9)), Lookup("", LookupKind(9)), AsType(CQLType{}), Column("\x00"))
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
			s.Table("t", nil, GCGrace(5*time.Second), nil)
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
	name   string
	rule   Rule
	detail string // "|"-separated parts of the Detail
	spec   KeyspaceSpec
	tables []SchemaSource
	// create is what CreateKeyspace(spec), which checks no table, reports:
	// same (the same error), "" (it accepts the spec: the tables break the
	// rule) or another rule.
	create Rule
}

// same says that CreateKeyspace reports the same error as NewKeyspace.
const same Rule = "(same)"

// ttlNow is the clock of the TTL cap cases, and ttlLatest the longest TTL
// Cassandra5 accepts at ttlNow: writes with it still succeed TTLHorizon
// later, on the last second before 2038-01-19T03:14:06Z.
var (
	ttlNow    = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	ttlLatest = int(time.Date(2038, 1, 19, 3, 14, 6, 0, time.UTC).Sub(ttlNow.Add(365*24*time.Hour)) / time.Second)
)

// fixClock sets the clock of the TTL cap rule to ttlNow for the test.
func fixClock(t *testing.T) {
	t.Helper()
	saved := timeNow
	timeNow = func() time.Time { return ttlNow }
	t.Cleanup(func() { timeNow = saved })
}

// nts1 is NetworkTopologyStrategy with one replica: every target takes it.
var nts1 = NetworkTopologyStrategy(map[string]int{"dc1": 1})

// on is a keyspace spec named ks with replication nts1 for targets.
func on(targets Target) KeyspaceSpec {
	return KeyspaceSpec{Name: "ks", Replication: nts1, Targets: targets}
}

// named is a keyspace spec for every target with replication r.
func named(name string, r Replication) KeyspaceSpec { return KeyspaceSpec{Name: name, Replication: r} }

// ksHomeA and ksHomeB are two Go types that name one user-defined type.
type ksHomeA struct{ City string }

func (ksHomeA) UDTName() string { return "home" }

type ksHomeB struct{ City string }

func (ksHomeB) UDTName() string { return "home" }

// keyspaceTables are the tables of the keyspace cases.
type keyspaceTables struct {
	usersA, usersB, owner, victim, idxA, idxB, viewIdx, viewTable, own                                                    *TableSchema
	long48, long49, long159, long160, long181, long182, long192, long193, long222, lookup197, lookup49, index49, index193 *TableSchema
	lookup182, index182, index183, sai183, legacy222                                                                      *TableSchema
	counter, versioned, indexed, blobIdx, blobListIdx, blobMapIdx                                                         *TableSchema
	saiIdx, legacyIdx, legacyBlobIdx, annIdx, vec20k                                                                      *TableSchema
	homeA, homeB, homeA2, masked                                                                                          *TableSchema
	unified, trieMem, tombstone, compressed, cdcOn, minMax                                                                *TableSchema
	ttlLatest, ttlOver, softOver, ttlMax                                                                                  *TableSchema
}

func newKeyspaceTables(t *testing.T) keyspaceTables {
	type usersA struct{ ID string }
	type usersB struct{ ID string }
	type lookupOwner struct{ ID, Email string }
	type lookupVictim struct{ ID string }
	type idxA struct{ ID, BC string }
	type idxB struct{ ID, C string }
	type viewIdx struct{ ID, V string }
	type viewTable struct{ ID string }
	type own struct{ ID, X, Y string }
	type long struct{ ID, X string }
	type counted struct {
		ID   string
		Hits int64
	}
	type versioned struct {
		ID  string
		Rev int64
	}
	type indexed struct{ ID, Note string }
	type blobs struct {
		ID   string
		Data []byte
	}
	type blobList struct {
		ID    string
		Parts [][]byte
	}
	type blobMap struct {
		ID   string
		Docs map[string][]byte
	}
	type ttlTable struct {
		ID      string
		Deleted bool
	}
	plain := func(name string) func(e *long, s *Schema[long]) {
		return func(e *long, s *Schema[long]) { s.Table(name); Bind(s, &e.ID, PartitionKey(0)) }
	}
	ttl := func(opt TableOption) func(e *ttlTable, s *Schema[ttlTable]) {
		return func(e *ttlTable, s *Schema[ttlTable]) { s.Table("ttl", opt); Bind(s, &e.ID, PartitionKey(0)) }
	}
	var k keyspaceTables
	k.usersA = accept(t, func(e *usersA, s *Schema[usersA]) { s.Table("users"); Bind(s, &e.ID, PartitionKey(0)) })
	k.usersB = accept(t, func(e *usersB, s *Schema[usersB]) { s.Table("users"); Bind(s, &e.ID, PartitionKey(0)) })
	k.owner = accept(t, func(e *lookupOwner, s *Schema[lookupOwner]) {
		s.Table("people")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.Email, Lookup("by_email", LookupBatch))
	})
	k.victim = accept(t, func(e *lookupVictim, s *Schema[lookupVictim]) {
		s.Table("people_by_email")
		Bind(s, &e.ID, PartitionKey(0))
	})
	k.idxA = accept(t, func(e *idxA, s *Schema[idxA]) {
		s.Table("ti_a")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.BC, Column("b_c"), SecondaryIndex()) // ti_a_b_c_idx
	})
	k.idxB = accept(t, func(e *idxB, s *Schema[idxB]) {
		s.Table("ti_a_b")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.C, SecondaryIndex()) // ti_a_b_c_idx
	})
	k.viewIdx = accept(t, func(e *viewIdx, s *Schema[viewIdx]) {
		s.Table("tv")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.V, SecondaryIndex()) // tv_v_idx, viewed by ScyllaDB as tv_v_idx_index
	})
	k.viewTable = accept(t, func(e *viewTable, s *Schema[viewTable]) { s.Table("tv_v_idx_index"); Bind(s, &e.ID, PartitionKey(0)) })
	k.own = accept(t, func(e *own, s *Schema[own]) {
		s.Table("to")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.X, SecondaryIndex())                   // to_x_idx
		Bind(s, &e.Y, Lookup("x_idx_index", LookupBatch)) // to_x_idx_index
	})
	k.long48 = accept(t, plain(name48))
	k.long49 = accept(t, plain(name49))
	k.long159 = accept(t, plain(strings.Repeat("p", 159)))
	k.long160 = accept(t, plain(strings.Repeat("s", 160)))
	k.long181 = accept(t, plain(strings.Repeat("a", 181)))
	k.long182 = accept(t, plain(strings.Repeat("b", 182)))
	k.long192 = accept(t, plain(name192))
	k.long193 = accept(t, plain(name193))
	index := func(n int, opts ...IndexOption) *TableSchema { // an index named {table of n}_x_idx
		return accept(t, func(e *long, s *Schema[long]) {
			s.Table("v" + strings.Repeat("i", n-1))
			Bind(s, &e.ID, PartitionKey(0))
			Bind(s, &e.X, Column("x"), SecondaryIndex(opts...))
		})
	}
	k.index182 = index(176)                 // 182 characters
	k.index183 = index(177)                 // 183 characters
	k.sai183 = index(177, UsingSAI())       // 183 characters, storage-attached everywhere
	k.legacy222 = index(175, UsingLegacy()) // 181 characters: the longest a table of 175 leaves
	k.long222 = accept(t, plain(name222))
	k.lookup197 = accept(t, func(e *long, s *Schema[long]) {
		s.Table(name192)
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.X, Lookup("by_x", LookupBatch)) // 197 characters
	})
	k.lookup182 = accept(t, func(e *long, s *Schema[long]) {
		s.Table(strings.Repeat("y", 100))
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.X, Lookup(strings.Repeat("l", 81), LookupUnique)) // yyy..._lll...: 182 characters
	})
	k.lookup49 = accept(t, func(e *long, s *Schema[long]) {
		s.Table("t")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.X, Lookup(strings.Repeat("l", 47), LookupBatch)) // t_lll...: 49 characters
	})
	k.index49 = accept(t, func(e *long, s *Schema[long]) {
		s.Table("u")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.X, Column(strings.Repeat("c", 43)), SecondaryIndex()) // u_ccc..._idx: 49 characters
	})
	k.index193 = accept(t, func(e *long, s *Schema[long]) {
		s.Table("u")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.X, Column(strings.Repeat("c", 187)), SecondaryIndex()) // u_ccc..._idx: 193 characters
	})
	k.counter = accept(t, func(e *counted, s *Schema[counted]) {
		s.Table("hits")
		Bind(s, &e.ID, PartitionKey(0))
		Counter(s, &e.Hits)
	})
	k.versioned = accept(t, func(e *versioned, s *Schema[versioned]) {
		s.Table("docs")
		Bind(s, &e.ID, PartitionKey(0))
		Version(s, &e.Rev)
	})
	k.indexed = accept(t, func(e *indexed, s *Schema[indexed]) {
		s.Table("notes")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.Note, SecondaryIndex())
	})
	k.blobIdx = accept(t, func(e *blobs, s *Schema[blobs]) {
		s.Table("blobs")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.Data, SecondaryIndex())
	})
	k.blobListIdx = accept(t, func(e *blobList, s *Schema[blobList]) {
		s.Table("blob_lists")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.Parts, SecondaryIndex())
	})
	k.blobMapIdx = accept(t, func(e *blobMap, s *Schema[blobMap]) {
		s.Table("blob_maps")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.Docs, SecondaryIndex())
	})
	k.unified = accept(t, ttl(Compaction(Unified("T4"))))
	k.trieMem = accept(t, ttl(Memtable("trie")))
	k.tombstone = accept(t, ttl(TombstoneGC(TombstoneGCRepair)))
	k.compressed = accept(t, ttl(Compression(ZstdCompressor, 16)))
	k.cdcOn = accept(t, ttl(CDC(true)))
	k.minMax = accept(t, ttl(SpeculativeRetry("MIN(99p,50ms)")))
	k.saiIdx = accept(t, func(e *indexed, s *Schema[indexed]) {
		s.Table("sai_notes")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.Note, SecondaryIndex(UsingSAI(), SAICaseInsensitive()))
	})
	k.annIdx = accept(t, func(e *rulesUT[[4]float32], s *Schema[rulesUT[[4]float32]]) {
		s.Table("ann")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.X, VectorIndex(SimilarityDotProduct))
	})
	k.masked = accept(t, func(e *rulesUT[string], s *Schema[rulesUT[string]]) {
		s.Table("masked")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.X, Masked(MaskInner(1, 2, '#')))
	})
	k.homeA = accept(t, func(e *rulesUT[ksHomeA], s *Schema[rulesUT[ksHomeA]]) {
		s.Table("homes_a")
		Bind(s, &e.ID, PartitionKey(0))
	})
	k.homeA2 = accept(t, func(e *rulesUT[[]ksHomeA], s *Schema[rulesUT[[]ksHomeA]]) {
		s.Table("homes_a2")
		Bind(s, &e.ID, PartitionKey(0))
	})
	k.homeB = accept(t, func(e *rulesUT[ksHomeB], s *Schema[rulesUT[ksHomeB]]) {
		s.Table("homes_b")
		Bind(s, &e.ID, PartitionKey(0))
	})
	k.vec20k = accept(t, func(e *rulesUT[[20000]float32], s *Schema[rulesUT[[20000]float32]]) {
		s.Table("wide")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.X)
	})
	k.legacyIdx = accept(t, func(e *indexed, s *Schema[indexed]) {
		s.Table("legacy_notes")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.Note, SecondaryIndex(UsingLegacy()))
	})
	k.legacyBlobIdx = accept(t, func(e *blobs, s *Schema[blobs]) {
		s.Table("legacy_blobs")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.Data, SecondaryIndex(UsingLegacy()))
	})
	k.ttlLatest = accept(t, ttl(DefaultTTL(time.Duration(ttlLatest)*time.Second)))
	k.ttlOver = accept(t, ttl(DefaultTTL(time.Duration(ttlLatest+1)*time.Second)))
	k.softOver = accept(t, func(e *ttlTable, s *Schema[ttlTable]) {
		s.Table("soft", SoftDelete(time.Duration(ttlLatest+1)*time.Second, &e.Deleted))
		Bind(s, &e.ID, PartitionKey(0))
	})
	k.ttlMax = accept(t, ttl(DefaultTTL(MaxTTL)))
	return k
}

// keyspaceCases is one failing case per branch of every keyspace rule. It
// fixes the TTL cap rule's clock at ttlNow for the test.
func keyspaceCases(t *testing.T) []keyspaceCase {
	fixClock(t)
	k := newKeyspaceTables(t)
	tables := func(ts ...*TableSchema) []SchemaSource {
		out := make([]SchemaSource, len(ts))
		for i, x := range ts {
			out[i] = x
		}
		return out
	}
	noIndexTablets := AllTargets &^ Scylla2025Tablets
	const cassandraCap = "Cassandra 5.0 (storage_compatibility_mode CASSANDRA_4, its default) refuses every write whose expiry lies past 2038-01-19T03:14:06Z"
	return []keyspaceCase{
		// keyspace-name (also checked by CreateKeyspace)
		{"empty name", RuleKeyspaceName, "the keyspace name is empty", named("", nts1), nil, same},
		{"name with a dash", RuleKeyspaceName, "contains '-'; only ASCII letters, digits and _", named("my-app", nts1), nil, same},
		{"qualified name", RuleKeyspaceName, "contains '.'", named("ks.app", nts1), nil, same},
		{"name of 49 characters", RuleKeyspaceName, "the keyspace name is 49 characters long; Cassandra 5.0 accepts at most 48", named(name49, nts1), tables(k.usersA), same},
		{"name of 49 characters on ScyllaDB 2025.x", RuleKeyspaceName, "49 characters long; ScyllaDB 2025.x accepts at most 48", KeyspaceSpec{Name: name49, Replication: nts1, Targets: Scylla2025 | Scylla2026}, nil, same},
		{"name of 193 characters on ScyllaDB 2026.x", RuleKeyspaceName, "193 characters long; ScyllaDB 2026.x accepts at most 192", KeyspaceSpec{Name: name193, Replication: nts1, Targets: Scylla2026}, nil, same},
		{"name of 223 characters", RuleKeyspaceName, "is 223 characters long; the limit is 222", KeyspaceSpec{Name: name223, Replication: nts1, Targets: Scylla2026}, nil, same},
		{"system", RuleKeyspaceName, `"system" is a system keyspace's (system or system_*, compared without case)|pick another name`, named("system", nts1), nil, same},
		{"System, in another case", RuleKeyspaceName, `"System" is a system keyspace's`, named("System", nts1), nil, same},
		{"system_auth", RuleKeyspaceName, `"system_auth" is a system keyspace's`, named("system_auth", nts1), nil, same},
		{"SYSTEM_SCHEMA", RuleKeyspaceName, `"SYSTEM_SCHEMA" is a system keyspace's`, on(Scylla2026).withName("SYSTEM_SCHEMA"), nil, same},
		{"system_ with anything after it", RuleKeyspaceName, "system keyspace", named("system_mine", nts1), nil, same},
		// targets (also checked by CreateKeyspace)
		{"a target bit that names no server", RuleTargets, "Targets holds Target(64), which names no known server", on(Target(1 << 6)), nil, same},
		{"a known target and an unknown bit", RuleTargets, "Targets holds Cassandra 5.0, Target(32768), which names no known server", on(Cassandra5 | 1<<15), nil, same},
		{"an unknown Tablets value", RuleTargets, "Tablets is Tablets(3); use kandra.TabletsUnset, TabletsDisabled or TabletsEnabled", KeyspaceSpec{Name: "ks", Replication: nts1, Targets: Scylla2026, Tablets: 3}, nil, same},
		{"Tablets with the default targets", RuleTargets, "Tablets disabled renders the tablets option, which Cassandra refuses as an unknown property; set Targets to ScyllaDB targets only", KeyspaceSpec{Name: "ks", Replication: nts1, Tablets: TabletsDisabled}, nil, same},
		{"Tablets with a Cassandra target", RuleTargets, "Tablets enabled renders the tablets option, which Cassandra refuses", KeyspaceSpec{Name: "ks", Replication: nts1, Targets: Cassandra5Latest | Scylla2026Tablets, Tablets: TabletsEnabled}, nil, same},
		{"TabletsDisabled on tablets targets only", RuleTargets, "Tablets disabled leaves none of the targets ScyllaDB 2025.x with tablets, ScyllaDB 2026.x with tablets", KeyspaceSpec{Name: "ks", Replication: nts1, Targets: Scylla2025Tablets | Scylla2026Tablets, Tablets: TabletsDisabled}, nil, same},
		{"TabletsEnabled on vnodes targets only", RuleTargets, "Tablets enabled leaves none of the targets ScyllaDB 2026.x", KeyspaceSpec{Name: "ks", Replication: nts1, Targets: Scylla2026, Tablets: TabletsEnabled}, nil, same},
		// replication (also checked by CreateKeyspace)
		{"SimpleStrategy(0)", RuleReplication, "SimpleStrategy needs a replication factor from 1 to 64 (MaxReplicationFactor), not 0", named("app", SimpleStrategy(0)), nil, same},
		{"SimpleStrategy(-1)", RuleReplication, "from 1 to 64 (MaxReplicationFactor), not -1", KeyspaceSpec{Name: "app", Replication: SimpleStrategy(-1), Targets: Cassandra5}, nil, same},
		{"SimpleStrategy(65)", RuleReplication, "not 65; servers run out of memory on huge factors", KeyspaceSpec{Name: "app", Replication: SimpleStrategy(MaxReplicationFactor + 1), Targets: Cassandra5}, nil, same},
		{"SimpleStrategy(MaxInt32)", RuleReplication, "not 2147483647", KeyspaceSpec{Name: "app", Replication: SimpleStrategy(math.MaxInt32), Targets: Cassandra5}, nil, same},
		{"no datacenter", RuleReplication, "at least one datacenter with a replica", named("app", NetworkTopologyStrategy(nil)), nil, same},
		{"no replica", RuleReplication, "at least one datacenter with a replica", named("app", NetworkTopologyStrategy(map[string]int{"dc1": 0, "dc2": 0})), nil, same},
		{"negative factor", RuleReplication, `datacenter "dc2" has replication factor -1; it must be from 0 to 64 (MaxReplicationFactor)`, named("app", NetworkTopologyStrategy(map[string]int{"dc1": 3, "dc2": -1})), nil, same},
		{"factor of 65", RuleReplication, `datacenter "dc1" has replication factor 65`, named("app", NetworkTopologyStrategy(map[string]int{"dc1": 65})), nil, same},
		{"empty datacenter name", RuleReplication, "a datacenter name is empty", named("app", NetworkTopologyStrategy(map[string]int{"": 1})), nil, same},
		{"datacenter name with a newline", RuleReplication, `"dc\n" contains a control character`, named("app", NetworkTopologyStrategy(map[string]int{"dc\n": 1})), nil, same},
		{"datacenter name not UTF-8", RuleReplication, `"dc\xff" is not valid UTF-8`, named("app", NetworkTopologyStrategy(map[string]int{"dc\xff": 1})), nil, same},
		{`datacenter "class"`, RuleReplication, `a datacenter cannot be named "class": it is the replication map's strategy key`, named("app", NetworkTopologyStrategy(map[string]int{"class": 1, "dc1": 1})), nil, same},
		{`datacenter "Class"`, RuleReplication, `cannot be named "Class"`, named("app", NetworkTopologyStrategy(map[string]int{"Class": 1})), nil, same},
		{`datacenter "replication_factor"`, RuleReplication, `a datacenter cannot be named "replication_factor": servers read it as the factor of every datacenter`, named("app", NetworkTopologyStrategy(map[string]int{"dc1": 1, "replication_factor": 3})), nil, same},
		{`datacenter "REPLICATION_FACTOR"`, RuleReplication, `cannot be named "REPLICATION_FACTOR"`, named("app", NetworkTopologyStrategy(map[string]int{"REPLICATION_FACTOR": 1})), nil, same},
		// name-taken
		{"two types, one table name", RuleNameTaken, `table name "users" of kandra.usersB is already the table name of kandra.usersA; names are unique per keyspace`, named("app", nts1), tables(k.usersA, k.usersB), ""},
		{"a table given twice", RuleNameTaken, `table "users" of kandra.usersA is given twice`, named("app", nts1), tables(k.usersA, k.owner, k.usersA), ""},
		{"a lookup table named like another type's table", RuleNameTaken, `lookup table name "people_by_email" of kandra.lookupOwner.Email is already the table name of kandra.lookupVictim`, named("app", nts1), tables(k.victim, k.owner), ""},
		{"a table named like another type's lookup table", RuleNameTaken, `table name "people_by_email" of kandra.lookupVictim is already the lookup table name of kandra.lookupOwner`, named("app", nts1), tables(k.owner, k.victim), ""},
		{"an index name used twice", RuleNameTaken, `index name "ti_a_b_c_idx" of kandra.idxB.C is already the index name of kandra.idxA`, on(noIndexTablets), tables(k.idxA, k.idxB), ""},
		{`a table named "{index}_index", after the index`, RuleNameTaken, `ScyllaDB view of index name "tv_v_idx_index" of kandra.viewIdx.V is already the table name of kandra.viewTable`, on(noIndexTablets), tables(k.viewIdx, k.viewTable), ""},
		{`a table named "{index}_index", before the index`, RuleNameTaken, `"tv_v_idx_index" of kandra.viewIdx.V is already the table name of kandra.viewTable`, on(noIndexTablets), tables(k.viewTable, k.viewIdx), ""},
		{`an own lookup named "{own index}_index"`, RuleNameTaken, `"to_x_idx_index" of kandra.own.X is already the lookup table name of kandra.own`, on(noIndexTablets), tables(k.own), ""},
		// name-length
		{"table name of 49 characters", RuleNameLength, `table name "` + name49 + `" of kandra.long is 49 characters long; ScyllaDB 2025.x accepts at most 48: it answers "Table names shouldn't be more than 48 characters long" (set Targets to servers that accept it, or shorten it)`, named("ks", nts1), tables(k.long49), ""},
		{"table name of 49 characters, tablets", RuleNameLength, "is 49 characters long; ScyllaDB 2025.x with tablets accepts at most 48", on(Scylla2025Tablets), tables(k.usersA, k.long49), ""},
		{"table name of 193 characters", RuleNameLength, "is 193 characters long; ScyllaDB 2026.x accepts at most 192", on(Scylla2026), tables(k.long193), ""},
		{"table name of 182 characters on Cassandra", RuleNameLength, `is 182 characters long; Cassandra 5.0 accepts at most 181: with the keyspace's name (2 characters) it passes 183, past which the file of a lightweight transaction's Paxos state for the table (system/_paxos_repair_state/`, on(Cassandra5 | Scylla2026), tables(k.long182), ""},
		{"table name of 182 characters on Cassandra5Latest", RuleNameLength, `is 182 characters long; Cassandra 5.0 (cassandra_latest.yaml) accepts at most 181`, on(Cassandra5Latest), tables(k.long182), ""},
		{"table name of 160 characters with a keyspace name of 24", RuleNameLength, `is 160 characters long; Cassandra 5.0 accepts at most 159: with the keyspace's name (24 characters)`, KeyspaceSpec{Name: strings.Repeat("k", 24), Replication: nts1, Targets: Cassandra5}, tables(k.long160), ""},
		{"index name of 183 characters, storage-attached by default", RuleNameLength, `index name "viii|is 183 characters long; Cassandra 5.0 (cassandra_latest.yaml) accepts at most 182: the index is storage-attached there, and past 182 characters the names of its files`, on(Cassandra5Latest), tables(k.index183), ""},
		{"index name of 183 characters, UsingSAI", RuleNameLength, `is 183 characters long; Cassandra 5.0 accepts at most 182: the index is storage-attached there`, on(Cassandra5), tables(k.sai183), ""},
		{"table name of 193 characters, tablets", RuleNameLength, "ScyllaDB 2026.x with tablets accepts at most 192", on(Scylla2026Tablets), tables(k.long193), ""},
		{"lookup table name of 197 characters", RuleNameLength, `lookup table name "` + name192 + `_by_x" of kandra.long is 197 characters long; ScyllaDB 2026.x accepts at most 192`, on(Scylla2026), tables(k.lookup197), ""},
		{"lookup table name of 182 characters on Cassandra", RuleNameLength, `lookup table name "yyy|is 182 characters long; Cassandra 5.0 accepts at most 181`, on(Cassandra5), tables(k.lookup182), ""},
		{"lookup table name of 49 characters", RuleNameLength, `lookup table name "t_lllllllll`, on(Scylla2025), tables(k.lookup49), ""},
		{"index name of 193 characters", RuleNameLength, `index name "u_ccccccccc|is 193 characters long; ScyllaDB 2025.x accepts at most 192: it answers "index names shouldn't be more than 192 characters long"`, on(Scylla2025), tables(k.index193), ""},
		// ttl-cap (Cassandra5 only), at the fixed clock ttlNow
		{"DefaultTTL one second past the cap", RuleTTLCap, "DefaultTTL of kandra.ttlTable is " + strconv.Itoa(ttlLatest+1) + " s: " + cassandraCap + "|writes with it fail from 2027-11-30|365 days from now|Use a TTL of at most " + strconv.Itoa(ttlLatest) + " s|Targets: kandra.Cassandra5Latest", on(Cassandra5), tables(k.ttlOver), ""},
		{"the SoftDelete TTL one second past the cap", RuleTTLCap, "the SoftDelete TTL of kandra.ttlTable is " + strconv.Itoa(ttlLatest+1) + " s", on(Cassandra5 | Scylla2026), tables(k.softOver), ""},
		{"MaxTTL under the default targets", RuleTTLCap, "DefaultTTL of kandra.ttlTable is 630720000 s|writes with it fail already", named("ks", nts1), tables(k.ttlMax), ""},
		// tablets (tablet targets only)
		{"SimpleStrategy under the default targets", RuleTablets, "ScyllaDB 2025.x with tablets supports only NetworkTopologyStrategy in a keyspace with tablets; use kandra.NetworkTopologyStrategy, or a vnodes keyspace (Tablets: kandra.TabletsDisabled with ScyllaDB-only Targets)", named("ks", SimpleStrategy(1)), nil, same},
		{"SimpleStrategy on ScyllaDB 2026.x with tablets", RuleTablets, "ScyllaDB 2026.x with tablets supports only NetworkTopologyStrategy", KeyspaceSpec{Name: "ks", Replication: SimpleStrategy(3), Targets: Cassandra5 | Scylla2026Tablets}, nil, same},
		{"SimpleStrategy with TabletsEnabled", RuleTablets, "ScyllaDB 2026.x with tablets supports only NetworkTopologyStrategy", KeyspaceSpec{Name: "ks", Replication: SimpleStrategy(1), Targets: Scylla2026 | Scylla2026Tablets, Tablets: TabletsEnabled}, nil, same},
		{"a counter table on ScyllaDB 2025.x with tablets", RuleTablets, `kandra.counted is a counter table; ScyllaDB 2025.x with tablets refuses counters in a tablets keyspace ("Counters are not yet supported with tablets"; 2026.1 lifts it); target ScyllaDB 2026.x, or use a vnodes keyspace`, on(Scylla2025Tablets), tables(k.usersA, k.counter), ""},
		{"a Version column on ScyllaDB 2025.x with tablets", RuleTablets, `kandra.versioned has a Version column, which the runtime updates with a lightweight transaction; ScyllaDB 2025.x with tablets refuses lightweight transactions in a tablets keyspace ("LWT is not yet supported with tablets"; 2025.4 lifts it once every node has the lwt_with_tablets feature, 2026.1 always)`, on(Scylla2025Tablets | Scylla2026Tablets), tables(k.versioned), ""},
		{"an index on ScyllaDB 2025.x with tablets", RuleTablets, "kandra.indexed has a secondary index on note; ScyllaDB 2025.x with tablets builds them in a tablets keyspace only as an experimental feature", named("ks", nts1), tables(k.indexed), ""},
		// sai-index (Cassandra5Latest only)
		{"an index on a blob", RuleSAIIndex, `the index on kandra.blobs.Data (BLOB) would be a storage-attached index on Cassandra 5.0 (cassandra_latest.yaml) (default_secondary_index: sai), and SAI refuses blob values ("Unsupported type: blob"); give the index kandra.UsingLegacy(), or target Cassandra5 only`, on(Cassandra5Latest), tables(k.blobIdx), ""},
		{"an index on a list of blobs", RuleSAIIndex, "kandra.blobList.Parts (LIST<BLOB>)", on(noIndexTablets), tables(k.blobListIdx), ""},
		{"an index on a map to blobs", RuleSAIIndex, "kandra.blobMap.Docs (MAP<TEXT, BLOB>)", on(Cassandra5 | Cassandra5Latest), tables(k.blobMapIdx), ""},
		// index-kind (ScyllaDB targets only)
		{"an SAI index with a ScyllaDB target", RuleIndexKind, "the index on kandra.indexed.Note asks for a sai index, which only Cassandra has, and the keyspace targets ScyllaDB 2026.x; drop the kind option to get each server's default index, or target Cassandra only", on(Cassandra5Latest | Scylla2026), tables(k.saiIdx), ""},
		{"a legacy index on every target", RuleIndexKind, "asks for a legacy index", on(noIndexTablets), tables(k.usersA, k.legacyIdx), ""},
		// vector-target (ScyllaDB targets only)
		{"a vector on ScyllaDB 2025.x", RuleVectorTarget, "is VECTOR<FLOAT, 20000>, and the keyspace targets ScyllaDB 2025.x: ScyllaDB 2025.1 has no vector type", on(Cassandra5 | Scylla2025), tables(k.vec20k), ""},
		{"20000 dimensions on ScyllaDB 2026.x", RuleVectorTarget, "ScyllaDB 2026.2 takes at most 16000 dimensions (MaxVectorDim)", on(Scylla2026), tables(k.vec20k), ""},
		{"an ANN index on ScyllaDB 2026.x", RuleVectorTarget, "Vector Search service|target Cassandra only", on(Cassandra5Latest | Scylla2026Tablets), tables(k.annIdx), ""},
		// mask-target (ScyllaDB targets only)
		{"a mask on ScyllaDB 2026.x", RuleMaskTarget, `kandra.rulesUT[string].X is masked with mask_inner(1, 2, '#'), and the keyspace targets ScyllaDB 2026.x, which has no column masks|target Cassandra only (Targets: kandra.Cassandra5 | kandra.Cassandra5Latest), or drop Masked`, on(Cassandra5 | Scylla2026), tables(k.masked), ""},
		{"a mask under the default targets", RuleMaskTarget, "has no column masks", named("ks", nts1), tables(k.masked), ""},
		// udt-name
		{"two Go types of one type name", RuleUDTName, `the user-defined type home is two types: Go type kandra.ksHomeA (at |.X) and Go type kandra.ksHomeB (at |use one Go type for both, or give one a UDTName method`, named("app", nts1), tables(k.homeA, k.homeB), ""},
		// option-target
		{"Unified compaction with a ScyllaDB target", RuleOptionTarget, "table ttl of kandra.ttlTable: Unified compaction is Cassandra 5.0's (ScyllaDB: \"Unable to find compaction strategy class 'UnifiedCompactionStrategy'\"), and the keyspace targets ScyllaDB 2026.x", on(Cassandra5 | Scylla2026), tables(k.unified), ""},
		{"the trie memtable on the shipped yaml", RuleOptionTarget, `Memtable "trie" is not a configuration of the shipped cassandra.yaml|target Cassandra5Latest`, on(Cassandra5 | Cassandra5Latest), tables(k.trieMem), ""},
		{"tombstone_gc on Cassandra", RuleOptionTarget, "TombstoneGC is ScyllaDB's option", on(Cassandra5Latest), tables(k.tombstone), ""},
		{"compression with targets of both servers", RuleOptionTarget, "Cassandra and ScyllaDB write differently", on(Cassandra5 | Scylla2026), tables(k.compressed), ""},
		{"CDC on Cassandra", RuleOptionTarget, "CDC(true) needs cdc_enabled", on(Cassandra5), tables(k.cdcOn), ""},
		{"MIN speculative retry on ScyllaDB", RuleOptionTarget, "MIN and MAX are Cassandra's", on(Scylla2026), tables(k.minMax), ""},
		// the first rule wins
		{"bad name, bad replication, a taken name", RuleKeyspaceName, "contains ' '", named("my app", SimpleStrategy(0)), tables(k.usersA, k.usersB), same},
		{"bad targets, bad replication", RuleTargets, "Target(64)", KeyspaceSpec{Name: "app", Replication: SimpleStrategy(0), Targets: 1 << 6}, nil, same},
		{"bad replication, a taken name", RuleReplication, "from 1 to 64", named("app", SimpleStrategy(0)), tables(k.usersA, k.usersB), same},
		{"a taken name, a long name", RuleNameTaken, `"users"`, named("app", nts1), tables(k.long49, k.usersA, k.usersB), ""},
		{"a long name, a TTL past the cap, SimpleStrategy", RuleNameLength, "ScyllaDB 2025.x accepts at most 48", named("app", SimpleStrategy(1)), tables(k.ttlMax, k.long49), RuleTablets},
		{"a TTL past the cap, SimpleStrategy, a counter", RuleTTLCap, "DefaultTTL", named("app", SimpleStrategy(1)), tables(k.counter, k.ttlMax), RuleTablets},
		{"SimpleStrategy and a blob index", RuleTablets, "supports only NetworkTopologyStrategy", named("app", SimpleStrategy(1)), tables(k.blobIdx), same},
		{"a counter and a blob index", RuleTablets, "counter table", named("app", nts1), tables(k.counter, k.blobIdx), ""},
	}
}

// withName is the spec with another keyspace name.
func (s KeyspaceSpec) withName(name string) KeyspaceSpec { s.Name = name; return s }

func TestKeyspaceRules(t *testing.T) {
	for _, c := range keyspaceCases(t) {
		t.Run(string(c.rule)+"/"+c.name, func(t *testing.T) {
			entity := "keyspace " + strconv.Quote(c.spec.Name)
			var k *Keyspace
			err := noPanic(t, func() (err error) { k, err = NewKeyspace(c.spec, c.tables...); return err })
			if k != nil {
				t.Errorf("NewKeyspace returned a keyspace with the error")
			}
			wantSchemaError(t, err, c.rule, "", c.detail, entity)
			stmt, cerr := createKeyspace(c.spec)
			switch c.create {
			case "":
				if cerr != nil || stmt == "" {
					t.Errorf("CreateKeyspace = %q, %v; it checks no table", stmt, cerr)
				}
				return
			case same:
				wantSchemaError(t, cerr, c.rule, "", c.detail, entity)
			default:
				wantSchemaError(t, cerr, c.create, "", "", entity)
			}
			if stmt != "" {
				t.Errorf("CreateKeyspace returned %q with the error", stmt)
			}
			func() {
				defer func() {
					if err, _ := recover().(error); !errors.Is(err, kerrors.ErrSchema) {
						t.Errorf("MustNewKeyspace panicked with %v, want the schema error", err)
					}
				}()
				MustNewKeyspace(c.spec).CreateKeyspace()
			}()
		})
	}
}

// TestKeyspaceAccepts: the edges of the keyspace rules that keyspaces
// accept, rules that the keyspace's targets leave out, and the statements
// such keyspaces write.
func TestKeyspaceAccepts(t *testing.T) {
	fixClock(t)
	k := newKeyspaceTables(t)
	tables := func(ts ...*TableSchema) []SchemaSource {
		out := make([]SchemaSource, len(ts))
		for i, x := range ts {
			out[i] = x
		}
		return out
	}
	vnodes := KeyspaceSpec{Name: "ks", Replication: SimpleStrategy(1), Targets: Scylla2025 | Scylla2025Tablets | Scylla2026 | Scylla2026Tablets, Tablets: TabletsDisabled}
	tabletsOn := KeyspaceSpec{Name: "ks", Replication: nts1, Targets: Scylla2026 | Scylla2026Tablets, Tablets: TabletsEnabled}
	cases := []struct {
		name   string
		spec   KeyspaceSpec
		tables []SchemaSource
		create string // the CREATE KEYSPACE, when the case shows it
	}{
		{"a name of 48 characters", named(name48, nts1), tables(k.usersA), ""},
		{"a name of 192 characters on ScyllaDB 2026.x", KeyspaceSpec{Name: name192, Replication: nts1, Targets: Scylla2026 | Scylla2026Tablets}, nil, ""},
		{"names that start like system", named("systems", nts1), nil, ""},
		{"a name that ends in system", named("my_system", nts1), nil, ""},
		{"SimpleStrategy(64) on Cassandra 5.0", KeyspaceSpec{Name: "ks", Replication: SimpleStrategy(MaxReplicationFactor), Targets: Cassandra5}, nil,
			"CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 64};"},
		{"factors 64 and 0", named("ks", NetworkTopologyStrategy(map[string]int{"dc1": MaxReplicationFactor, "dc2": 0})), nil,
			"CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 64, 'dc2': 0};"},
		{"datacenter names close to the strategy keys", named("ks", NetworkTopologyStrategy(map[string]int{"classic": 1, "replication_factor_2": 1, "DC 1": 1, "zürich": 1})), nil,
			"CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'NetworkTopologyStrategy', 'DC 1': 1, 'classic': 1, 'replication_factor_2': 1, 'zürich': 1};"},
		{"a table name of 48 characters everywhere", named("ks", nts1), tables(k.long48), ""},
		{"a table name of 192 characters on ScyllaDB 2026.x", on(Scylla2026 | Scylla2026Tablets), tables(k.long192), ""},
		{"a table name of 181 characters on Cassandra, in a keyspace of 2", on(Cassandra5 | Cassandra5Latest | Scylla2026), tables(k.long181), ""},
		{"a table name of 159 characters on Cassandra, in a keyspace of 24", KeyspaceSpec{Name: strings.Repeat("k", 24), Replication: nts1, Targets: Cassandra5 | Cassandra5Latest}, tables(k.long159), ""},
		{"an index name of 182 characters, storage-attached by default", on(Cassandra5Latest | Scylla2026), tables(k.index182), ""},
		{"an index name of 183 characters, legacy by default", on(Cassandra5), tables(k.index183), ""},
		{"a legacy index name of 222 characters on Cassandra", on(Cassandra5 | Cassandra5Latest), tables(k.legacy222), ""},
		{"lookup and index names of 49 on ScyllaDB 2026.x", on(Scylla2026), tables(k.lookup49, k.index49), ""},
		{"an index name of 49 on ScyllaDB 2025.x, whose index names may have 192", on(Scylla2025), tables(k.index49), ""},
		{"the longest TTL at the cap, on Cassandra 5.0", on(Cassandra5), tables(k.ttlLatest), ""},
		{"TTLs past the 2038 cap without Cassandra5", on(Cassandra5Latest | Scylla2025 | Scylla2026Tablets), tables(k.ttlMax, k.softOver), ""},
		{"counters, Version and indexes in a vnodes keyspace, with SimpleStrategy", vnodes, tables(k.counter, k.versioned, k.indexed),
			"CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1} AND tablets = {'enabled': false};"},
		{"counters, Version and indexes on ScyllaDB 2026.x with tablets", tabletsOn, tables(k.counter, k.versioned, k.indexed),
			"CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 1} AND tablets = {'enabled': true};"},
		{"one Go type of a type name in two tables", named("ks", nts1), tables(k.homeA, k.homeA2), ""},
		{"blob indexes without Cassandra5Latest", on(Cassandra5 | Scylla2025 | Scylla2026 | Scylla2026Tablets), tables(k.blobIdx, k.blobListIdx, k.blobMapIdx), ""},
		{"ScyllaDB vnodes targets: the option says vnodes, which the server would not pick", KeyspaceSpec{Name: "ks", Replication: nts1, Targets: Scylla2025 | Scylla2026}, nil,
			"CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 1} AND tablets = {'enabled': false};"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ks *Keyspace
			err := noPanic(t, func() (err error) { ks, err = NewKeyspace(c.spec, c.tables...); return err })
			if err != nil {
				t.Fatalf("NewKeyspace: %v", err)
			}
			stmt, err := createKeyspace(c.spec)
			if err != nil {
				t.Fatalf("CreateKeyspace: %v", err)
			}
			all := ks.Statements()
			if all[0] != stmt || ks.CreateKeyspace() != stmt || MustNewKeyspace(c.spec).CreateKeyspace() != stmt {
				t.Errorf("CREATE KEYSPACE: Statements %q, CreateKeyspace %q, Keyspace.CreateKeyspace %q", all[0], stmt, ks.CreateKeyspace())
			}
			if c.create != "" && stmt != c.create {
				t.Errorf("CREATE KEYSPACE = %q, want %q", stmt, c.create)
			}
			n := 1 + len(ks.Types())
			for _, src := range c.tables {
				ts := src.tableSchema()
				n += 1 + len(ts.LookupTables()) + len(ts.SecondaryIndexes())
				if ks.Table(ts.Name()) != ts {
					t.Errorf("Table(%q) is not the table given", ts.Name())
				}
			}
			if len(all) != n {
				t.Errorf("%d statements, want %d: %q", len(all), n, all)
			}
			want := c.spec
			if want.Targets == 0 {
				want.Targets = AllTargets
			}
			if got := ks.Spec(); !reflect.DeepEqual(got, want) {
				t.Errorf("Spec() = %+v, want %+v", got, want)
			}
		})
	}

	// Two types with one table name register, and live in two keyspaces
	// (one keyspace refuses them: TestKeyspaceRules).
	type usersA struct{ ID, Email string }
	type usersB struct{ ID string }
	a := accept(t, func(e *usersA, s *Schema[usersA]) {
		s.Table("users")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.Email, Lookup("by_email", LookupBatch), SecondaryIndex())
	})
	b := accept(t, func(e *usersB, s *Schema[usersB]) { s.Table("users"); Bind(s, &e.ID, PartitionKey(0)) })
	// a has an index: not for ScyllaDB 2025.x with tablets.
	ka, err := NewKeyspace(KeyspaceSpec{Name: "a", Replication: SimpleStrategy(1), Targets: Cassandra5 | Scylla2025}, a)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := NewKeyspace(KeyspaceSpec{Name: "b", Replication: NetworkTopologyStrategy(map[string]int{"dc1": 3, "dc2": 0})}, b)
	if err != nil {
		t.Fatal(err)
	}
	if ka.Table("users") != a || kb.Table("users") != b {
		t.Errorf("Table(users) = %p, %p; want %p, %p", ka.Table("users"), kb.Table("users"), a, b)
	}
	if got, want := kb.Statements(), []string{kb.CreateKeyspace(), "CREATE TABLE IF NOT EXISTS b.users (\n    id TEXT,\n    PRIMARY KEY (id)\n);"}; !slices.Equal(got, want) {
		t.Errorf("b.Statements() = %q, want %q", got, want)
	}
	if got := ka.Statements(); len(got) != 4 || got[3] != "CREATE INDEX IF NOT EXISTS users_email_idx ON a.users (email);" {
		t.Errorf("a.Statements() = %q", got)
	}
	defer func() {
		err, _ := recover().(error)
		wantSchemaError(t, err, RuleNameTaken, "", `"users"|kandra.usersA|kandra.usersB`, `keyspace "app"`)
	}()
	MustNewKeyspace(KeyspaceSpec{Name: "app", Replication: nts1, Targets: Cassandra5}, a, b)
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

// pairAsType is the AsType each Go type of X takes: a type NativeOverrides
// allows, other than the derived one where there is such a type (a bool
// keeps BOOLEAN); on a uuid.UUID it is TIMEUUID, which GeneratedUUID
// refuses.
var pairAsType = map[string]CQLType{
	"string": CQLAscii, "time.Time": CQLDate, "int64": CQLVarint, "uuid.UUID": CQLTimeUUID, "bool": CQLBoolean,
}

// pairBadAsType is an AsType each Go type of X is refused: a pair
// NativeOverrides does not allow (unsupported-type), unless a role refuses
// it first.
var pairBadAsType = map[string]CQLType{
	"string": CQLInt, "time.Time": CQLText, "int64": CQLInt, "uuid.UUID": CQLText, "bool": CQLText,
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
	pAsBad   = "AsType of a refused pair"
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
	lookup := func(k LookupKind) func(*TableSchema, *ColumnSchema, string) bool {
		return func(ts *TableSchema, x *ColumnSchema, _ string) bool {
			l := ts.LookupTables()
			return x != nil && x.Lookup() != nil && len(l) == 1 && l[0] == x.Lookup() && l[0].IndexColumn() == x &&
				l[0].Name() == "p_by_x" && l[0].Kind() == k
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
		{name: pAsBad, opt: func(goType string) FieldOption { return AsType(pairBadAsType[goType]) }, has: func(_ *TableSchema, x *ColumnSchema, goType string) bool {
			return x != nil && x.Type().Equal(pairBadAsType[goType])
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
	{pPK, pBatch, RuleLookup}, {pPK, pEvent, RuleLookup}, {pPK, pColumn, ""}, {pPK, pTrans, RuleConflictingOptions},
	{pPK, pIndex, RuleSecondaryIndex}, {pPK, pSens, ""}, {pPK, pAsType, ""},
	{pPK, pCreated, ""}, {pPK, pUpdated, RuleConflictingOptions}, {pPK, pVerTime, RuleConflictingOptions}, {pPK, pVerInt, RuleConflictingOptions},
	{pPK, pCounter, RuleKeyType}, {pPK, pUUIDv7, ""}, {pPK, pUUIDv4, ""}, {pPK, pMarker, RuleSoftDeleteMarker},

	// A lookup on a clustering column is accepted; on the only partition
	// key it is not (a lookup by it is a read of its partition).
	{pCKAsc, pCKAsc, ""}, {pCKAsc, pCKDesc, RuleConflictingOptions}, {pCKAsc, pBatch, ""}, {pCKAsc, pEvent, ""},
	{pCKAsc, pColumn, ""}, {pCKAsc, pTrans, RuleConflictingOptions}, {pCKAsc, pIndex, ""}, {pCKAsc, pSens, ""}, {pCKAsc, pAsType, ""},
	{pCKAsc, pCreated, ""}, {pCKAsc, pUpdated, RuleConflictingOptions}, {pCKAsc, pVerTime, RuleConflictingOptions}, {pCKAsc, pVerInt, RuleConflictingOptions},
	{pCKAsc, pCounter, RuleKeyType}, {pCKAsc, pUUIDv7, ""}, {pCKAsc, pUUIDv4, ""}, {pCKAsc, pMarker, RuleSoftDeleteMarker},

	{pCKDesc, pCKDesc, ""}, {pCKDesc, pBatch, ""}, {pCKDesc, pEvent, ""},
	{pCKDesc, pColumn, ""}, {pCKDesc, pTrans, RuleConflictingOptions}, {pCKDesc, pIndex, ""}, {pCKDesc, pSens, ""}, {pCKDesc, pAsType, ""},
	{pCKDesc, pCreated, ""}, {pCKDesc, pUpdated, RuleConflictingOptions}, {pCKDesc, pVerTime, RuleConflictingOptions}, {pCKDesc, pVerInt, RuleConflictingOptions},
	{pCKDesc, pCounter, RuleKeyType}, {pCKDesc, pUUIDv7, ""}, {pCKDesc, pUUIDv4, ""}, {pCKDesc, pMarker, RuleSoftDeleteMarker},

	// Lookups: the lookup column is a lookup table's key.
	{pBatch, pBatch, ""}, {pBatch, pEvent, RuleConflictingOptions}, {pBatch, pColumn, ""}, {pBatch, pTrans, RuleConflictingOptions},
	{pBatch, pIndex, ""}, {pBatch, pSens, ""}, {pBatch, pAsType, ""},
	{pBatch, pCreated, ""}, {pBatch, pUpdated, ""}, {pBatch, pVerTime, ""}, {pBatch, pVerInt, ""},
	{pBatch, pCounter, RuleKeyType}, {pBatch, pUUIDv7, ""}, {pBatch, pUUIDv4, ""}, {pBatch, pMarker, ""},

	{pEvent, pEvent, ""}, {pEvent, pColumn, ""}, {pEvent, pTrans, RuleConflictingOptions},
	{pEvent, pIndex, ""}, {pEvent, pSens, ""}, {pEvent, pAsType, ""},
	{pEvent, pCreated, ""}, {pEvent, pUpdated, ""}, {pEvent, pVerTime, ""}, {pEvent, pVerInt, ""},
	{pEvent, pCounter, RuleKeyType}, {pEvent, pUUIDv7, ""}, {pEvent, pUUIDv4, ""}, {pEvent, pMarker, ""},

	// Column, Sensitive, SecondaryIndex, AsType: marks that go with any role.
	{pColumn, pColumn, ""}, {pColumn, pTrans, RuleConflictingOptions}, {pColumn, pIndex, ""}, {pColumn, pSens, ""}, {pColumn, pAsType, ""},
	{pColumn, pCreated, ""}, {pColumn, pUpdated, ""}, {pColumn, pVerTime, ""}, {pColumn, pVerInt, ""},
	{pColumn, pCounter, ""}, {pColumn, pUUIDv7, ""}, {pColumn, pUUIDv4, ""}, {pColumn, pMarker, ""},

	{pIndex, pIndex, ""}, {pIndex, pSens, ""}, {pIndex, pAsType, ""},
	{pIndex, pCreated, ""}, {pIndex, pUpdated, ""}, {pIndex, pVerTime, ""}, {pIndex, pVerInt, ""},
	{pIndex, pCounter, RuleCounterTable}, {pIndex, pUUIDv7, ""}, {pIndex, pUUIDv4, ""}, {pIndex, pMarker, ""},

	{pSens, pSens, ""}, {pSens, pAsType, ""},
	{pSens, pCreated, ""}, {pSens, pUpdated, ""}, {pSens, pVerTime, ""}, {pSens, pVerInt, ""},
	{pSens, pCounter, ""}, {pSens, pUUIDv7, ""}, {pSens, pUUIDv4, ""}, {pSens, pMarker, ""},

	// AsType: DATE on a time.Time, VARINT on an int64, TIMEUUID on a
	// uuid.UUID, BOOLEAN on a bool (see pairAsType). A timestamp may be a
	// DATE; a Version keeps its exact type (a DATE version could not tell
	// two writes of one day apart); COUNTER and generated UUIDs are fixed.
	{pAsType, pAsType, ""},
	{pAsType, pCreated, ""}, {pAsType, pUpdated, ""}, {pAsType, pVerInt, RuleConflictingOptions}, {pAsType, pVerTime, RuleConflictingOptions},
	{pAsType, pCounter, RuleConflictingOptions}, {pAsType, pUUIDv7, RuleConflictingOptions}, {pAsType, pUUIDv4, RuleConflictingOptions}, {pAsType, pMarker, ""},

	// AsType of a pair NativeOverrides refuses (pairBadAsType: INT on a
	// string or int64, TEXT on the rest): unsupported-type, unless a role
	// refuses the override first (conflicting-options; soft-delete-marker
	// for the marker, which must stay BOOLEAN), or X is Transient.
	{pAsBad, pPK, RuleUnsupportedType}, {pAsBad, pCKAsc, RuleUnsupportedType}, {pAsBad, pCKDesc, RuleUnsupportedType},
	{pAsBad, pBatch, RuleUnsupportedType}, {pAsBad, pEvent, RuleUnsupportedType}, {pAsBad, pColumn, RuleUnsupportedType},
	{pAsBad, pTrans, RuleConflictingOptions}, {pAsBad, pIndex, RuleUnsupportedType}, {pAsBad, pSens, RuleUnsupportedType},
	{pAsBad, pAsType, RuleConflictingOptions}, {pAsBad, pAsBad, RuleUnsupportedType},
	{pAsBad, pCreated, RuleConflictingOptions}, {pAsBad, pUpdated, RuleConflictingOptions}, {pAsBad, pVerTime, RuleConflictingOptions}, {pAsBad, pVerInt, RuleConflictingOptions},
	{pAsBad, pCounter, RuleConflictingOptions}, {pAsBad, pUUIDv7, RuleConflictingOptions}, {pAsBad, pUUIDv4, RuleConflictingOptions}, {pAsBad, pMarker, RuleSoftDeleteMarker},

	// Transient excludes the field: nothing else goes with it.
	{pTrans, pTrans, ""}, {pTrans, pIndex, RuleConflictingOptions}, {pTrans, pSens, RuleConflictingOptions}, {pTrans, pAsType, RuleConflictingOptions},
	{pTrans, pCreated, RuleConflictingOptions}, {pTrans, pUpdated, RuleConflictingOptions}, {pTrans, pVerTime, RuleConflictingOptions}, {pTrans, pVerInt, RuleConflictingOptions},
	{pTrans, pCounter, RuleConflictingOptions}, {pTrans, pUUIDv7, RuleConflictingOptions}, {pTrans, pUUIDv4, RuleConflictingOptions}, {pTrans, pMarker, RuleSoftDeleteMarker},

	// Roles with roles of the same Go type.
	{pCreated, pCreated, ""}, {pCreated, pUpdated, RuleConflictingOptions}, {pCreated, pVerTime, RuleConflictingOptions},
	{pUpdated, pUpdated, ""}, {pUpdated, pVerTime, RuleConflictingOptions}, {pVerTime, pVerTime, ""},
	{pVerInt, pVerInt, ""}, {pVerInt, pCounter, RuleConflictingOptions}, {pCounter, pCounter, ""},
	{pUUIDv7, pUUIDv7, ""}, {pUUIDv7, pUUIDv4, RuleConflictingOptions}, {pUUIDv4, pUUIDv4, ""},
	{pMarker, pMarker, RuleConflictingOptions}, // SoftDelete set twice: a table conflict
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
				topts = append(topts, SoftDelete(60*time.Second, any(&e.X).(*bool)))
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

// TestIndexOnCollectionWithLineBreakRefused: Cassandra stores the target
// of an index on a collection as values(name), keys(name) or full(name)
// and parses it back with a pattern whose '.' stops at a line break
// (integration's random schemas, seed 148605189): "Unable to parse
// targets for index". A plain column's target is the name alone.
func TestIndexOnCollectionWithLineBreakRefused(t *testing.T) {
	type m struct {
		ID   string
		Tags map[string]string
	}
	_, _, err := buildSchema(func(e *m, s *Schema[m]) {
		s.Table("t")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.Tags, Column("line\nbreak"), SecondaryIndex())
	})
	var se *SchemaError
	if !errors.As(err, &se) || se.Rule != RuleSecondaryIndex || !strings.Contains(se.Detail, "line break") {
		t.Fatalf("an index on a map named with a line break: %v", err)
	}
	type p struct{ ID, Note string }
	accept(t, func(e *p, s *Schema[p]) {
		s.Table("t")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.Note, Column("line\nbreak"), SecondaryIndex())
	})
}

// createKeyspace renders the CREATE KEYSPACE of a keyspace with no tables,
// which checks the rules that need none.
func createKeyspace(spec KeyspaceSpec) (string, error) {
	k, err := NewKeyspace(spec)
	if err != nil {
		return "", err
	}
	return k.CreateKeyspace(), nil
}
