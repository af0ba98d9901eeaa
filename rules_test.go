package kandra_test

// One test per schema rule in kandra.Rules(), each covering the sub-cases of
// the check in build.go (or registry.go for RuleNameTaken), plus the
// first-rule-wins order, the "a failed registration registers nothing"
// promise, and "bad input never panics".
//
// Registration is global to the test binary, so every table name used here
// starts with "kr_" and is used by one entity type only. A failed
// registration registers nothing, so entities that must fail may share a
// name; entities that must succeed never do.

import (
	"errors"
	"math"
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
	"github.com/kandra-go/kandra"
	kerrors "github.com/kandra-go/kandra/errors"
)

// ---------------------------------------------------------------------------
// Helpers.

// registerNoPanic calls kandra.Register[T] and fails the test if it panics:
// bad input must come back as an error, never as a panic.
func registerNoPanic[T any, PT kandra.Entity[T]](t *testing.T) (tbl *kandra.Table[T], err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("kandra.Register[%v] panicked: %v\n%s", reflect.TypeFor[T](), r, debug.Stack())
		}
	}()
	return kandra.Register[T, PT]()
}

// mustRegisterOK registers T and fails the test on any error.
func mustRegisterOK[T any, PT kandra.Entity[T]](t *testing.T) *kandra.Table[T] {
	t.Helper()
	tbl, err := registerNoPanic[T, PT](t)
	if err != nil {
		t.Fatalf("kandra.Register[%v]: unexpected error: %v", reflect.TypeFor[T](), err)
	}
	if tbl == nil {
		t.Fatalf("kandra.Register[%v] returned a nil table and no error", reflect.TypeFor[T]())
	}
	return tbl
}

// registeredTableNames lists kandra.All() by table name.
func registeredTableNames() []string {
	var out []string
	for _, s := range kandra.All() {
		out = append(out, s.Name())
	}
	return out
}

// expectRuleError registers T, which must fail with a *kerrors.SchemaError
// naming T, the Go field path field ("" for a table-level rule) and rule,
// whose text names the field and the rule and contains every string of
// inMessage. It also checks that the failure registered nothing.
func expectRuleError[T any, PT kandra.Entity[T]](t *testing.T, rule kerrors.Rule, field string, inMessage ...string) *kerrors.SchemaError {
	t.Helper()
	typ := reflect.TypeFor[T]()
	before := registeredTableNames()
	tbl, err := registerNoPanic[T, PT](t)
	if err == nil {
		t.Fatalf("kandra.Register[%v] succeeded (table %q, DDL %q); want a [%s] error on field %q",
			typ, tbl.Name(), tbl.Statements(), rule, field)
	}
	if tbl != nil {
		t.Errorf("kandra.Register[%v] returned a table together with the error %v", typ, err)
	}
	var se *kerrors.SchemaError
	if !errors.As(err, &se) {
		t.Fatalf("kandra.Register[%v] error %T (%v) is not a *errors.SchemaError", typ, err, err)
	}
	if se.Entity != typ.String() || !strings.HasPrefix(se.Entity, "kandra_test.") {
		t.Errorf("SchemaError.Entity = %q, want %q", se.Entity, typ.String())
	}
	if se.Rule != rule {
		t.Errorf("SchemaError.Rule = %q, want %q (error: %v)", se.Rule, rule, err)
	}
	if se.Field != field {
		t.Errorf("SchemaError.Field = %q, want %q (error: %v)", se.Field, field, err)
	}
	if !errors.Is(err, kerrors.ErrSchema) {
		t.Errorf("errors.Is(err, ErrSchema) = false for %v", err)
	}
	if !errors.Is(err, kerrors.ErrKandra) {
		t.Errorf("errors.Is(err, ErrKandra) = false for %v", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "["+string(rule)+"]") {
		t.Errorf("error text %q does not name the rule %q", msg, rule)
	}
	if !strings.Contains(msg, typ.String()) {
		t.Errorf("error text %q does not name the entity %q", msg, typ.String())
	}
	if field != "" && !strings.Contains(msg, field) {
		t.Errorf("error text %q does not name the field %q", msg, field)
	}
	for _, s := range inMessage {
		if !strings.Contains(msg, s) {
			t.Errorf("error text %q does not contain %q", msg, s)
		}
	}
	if _, ok := kandra.Get[T](); ok {
		t.Errorf("kandra.Get[%v] reports a registration after Register failed", typ)
	}
	if _, ok := kandra.SchemaOf(typ); ok {
		t.Errorf("kandra.SchemaOf(%v) reports a registration after Register failed", typ)
	}
	if after := registeredTableNames(); !slices.Equal(before, after) {
		t.Errorf("kandra.All() changed after a failed registration:\nbefore %q\nafter  %q", before, after)
	}
	return se
}

func ruleIndex(t *testing.T, r kerrors.Rule) int {
	t.Helper()
	i := slices.Index(kandra.Rules(), r)
	if i < 0 {
		t.Fatalf("rule %q is not in kandra.Rules()", r)
	}
	return i
}

// Package-level variables that Describe methods wrongly bind.
var (
	ruleGlobalID   string
	ruleGlobalFlag bool
)

// ---------------------------------------------------------------------------
// The rule list itself.

func TestRulesOrder(t *testing.T) {
	want := []kerrors.Rule{
		kandra.RuleNotStruct, kandra.RuleTableMissing, kandra.RuleBinding, kandra.RuleConflict,
		kandra.RuleTimestampType, kandra.RuleNoPartitionKey, kandra.RuleDuplicatePartitionIndex,
		kandra.RuleDuplicateLookupTable, kandra.RuleCounterMix, kandra.RuleDuplicateTimestamp,
		kandra.RuleDuplicateVersion, kandra.RuleVersionType, kandra.RuleSoftDeleteMarker,
		kandra.RuleKeyConflict, kandra.RuleInvalidName, kandra.RuleDuplicateColumn,
		kandra.RuleDuplicateClusteringIndex, kandra.RuleUnsupportedType, kandra.RuleKeyType,
		kandra.RuleCounterTable, kandra.RuleLookup, kandra.RuleSecondaryIndex,
		kandra.RuleOptionRange, kandra.RuleNameTaken,
	}
	got := kandra.Rules()
	if !slices.Equal(got, want) {
		t.Fatalf("kandra.Rules() =\n%q\nwant\n%q", got, want)
	}
	seen := map[kerrors.Rule]bool{}
	for _, r := range got {
		if r == "" || seen[r] {
			t.Errorf("rule %q is empty or listed twice", r)
		}
		seen[r] = true
	}
	// The Kotlin checks keep their relative order (1..10).
	kotlin := []kerrors.Rule{kandra.RuleTableMissing, kandra.RuleTimestampType, kandra.RuleNoPartitionKey,
		kandra.RuleDuplicatePartitionIndex, kandra.RuleDuplicateLookupTable, kandra.RuleCounterMix,
		kandra.RuleDuplicateTimestamp, kandra.RuleDuplicateVersion, kandra.RuleVersionType, kandra.RuleSoftDeleteMarker}
	for i := 1; i < len(kotlin); i++ {
		if ruleIndex(t, kotlin[i-1]) >= ruleIndex(t, kotlin[i]) {
			t.Errorf("Kotlin rule %q does not come before %q", kotlin[i-1], kotlin[i])
		}
	}
	// Rules returns a copy.
	got[0] = "mutated"
	if kandra.Rules()[0] != kandra.RuleNotStruct {
		t.Errorf("mutating the slice Rules returned changed the rule order")
	}
}

// ---------------------------------------------------------------------------
// RuleNotStruct.

type ruleNotStructInt int

func (e *ruleNotStructInt) Describe(s *kandra.Schema[ruleNotStructInt]) { s.Table("kr_not_struct") }

type ruleNotStructSlice []string

func (e *ruleNotStructSlice) Describe(s *kandra.Schema[ruleNotStructSlice]) {
	s.Table("kr_not_struct")
}

type ruleNotStructFunc func()

func (e *ruleNotStructFunc) Describe(s *kandra.Schema[ruleNotStructFunc]) { s.Table("kr_not_struct") }

type RuleAmbA struct{ Name string }
type RuleAmbB struct{ Name string }

type ruleAmbiguous struct {
	ID string
	RuleAmbA
	RuleAmbB
}

func (e *ruleAmbiguous) Describe(s *kandra.Schema[ruleAmbiguous]) {
	s.Table("kr_ambiguous")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

// ruleShadowed is the control: a shallower field hides the deeper ones, as
// in encoding/json, so there is no ambiguity.
type ruleShadowed struct {
	ID   string
	Name string
	RuleAmbA
	RuleAmbB
}

func (e *ruleShadowed) Describe(s *kandra.Schema[ruleShadowed]) {
	s.Table("kr_shadowed")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type RuleEmbP struct{ X string }

type ruleEmbeddedPtr struct {
	ID string
	*RuleEmbP
}

func (e *ruleEmbeddedPtr) Describe(s *kandra.Schema[ruleEmbeddedPtr]) {
	s.Table("kr_embedded_ptr")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

func TestRuleNotStruct(t *testing.T) {
	t.Run("int", func(t *testing.T) {
		expectRuleError[ruleNotStructInt](t, kandra.RuleNotStruct, "", "int")
	})
	t.Run("slice", func(t *testing.T) {
		expectRuleError[ruleNotStructSlice](t, kandra.RuleNotStruct, "", "slice")
	})
	t.Run("func", func(t *testing.T) {
		expectRuleError[ruleNotStructFunc](t, kandra.RuleNotStruct, "", "func")
	})
	t.Run("ambiguous embedded promotion", func(t *testing.T) {
		expectRuleError[ruleAmbiguous](t, kandra.RuleNotStruct, "RuleAmbA.Name", "Name", "RuleAmbB.Name", "ambiguous")
	})
	t.Run("embedded pointer to struct", func(t *testing.T) {
		expectRuleError[ruleEmbeddedPtr](t, kandra.RuleNotStruct, "RuleEmbP", "pointer")
	})
	t.Run("control: shallower field hides deeper ones", func(t *testing.T) {
		tbl := mustRegisterOK[ruleShadowed](t)
		var names []string
		for _, c := range tbl.Schema().Columns() {
			names = append(names, c.GoName()+"="+c.Name())
		}
		if want := []string{"ID=id", "Name=name"}; !slices.Equal(names, want) {
			t.Errorf("columns = %q, want %q", names, want)
		}
	})
}

// ---------------------------------------------------------------------------
// RuleTableMissing.

type ruleNoTable struct{ ID string }

func (e *ruleNoTable) Describe(s *kandra.Schema[ruleNoTable]) {
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type ruleEmptyTable struct{ ID string }

func (e *ruleEmptyTable) Describe(s *kandra.Schema[ruleEmptyTable]) {
	s.Table("")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type ruleBlankTable struct{ ID string }

func (e *ruleBlankTable) Describe(s *kandra.Schema[ruleBlankTable]) {
	s.Table(" \t ")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

func TestRuleTableMissing(t *testing.T) {
	t.Run("Table not called", func(t *testing.T) {
		expectRuleError[ruleNoTable](t, kandra.RuleTableMissing, "", "Table")
	})
	t.Run("empty name", func(t *testing.T) {
		expectRuleError[ruleEmptyTable](t, kandra.RuleTableMissing, "")
	})
	t.Run("blank name", func(t *testing.T) {
		expectRuleError[ruleBlankTable](t, kandra.RuleTableMissing, "", "blank")
	})
}

// ---------------------------------------------------------------------------
// RuleBinding.

// ruleBindGlobalOnly binds a package-level variable and nothing else. Its
// Describe has a pointer receiver, so the binding cannot be a field.
type ruleBindGlobalOnly struct {
	ID string
	N  int64
}

func (e *ruleBindGlobalOnly) Describe(s *kandra.Schema[ruleBindGlobalOnly]) {
	s.Table("kr_bind_global_only")
	kandra.Bind(s, &ruleGlobalID, kandra.PartitionKey(0))
}

type ruleBindGlobalMixed struct {
	ID    string
	Email string
}

func (e *ruleBindGlobalMixed) Describe(s *kandra.Schema[ruleBindGlobalMixed]) {
	s.Table("kr_bind_global_mixed")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &ruleGlobalID, kandra.Lookup("by_email", kandra.LookupBatch))
}

type ruleBindUnexported struct {
	ID     string
	secret string
}

func (e *ruleBindUnexported) Describe(s *kandra.Schema[ruleBindUnexported]) {
	s.Table("kr_bind_unexported")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.secret, kandra.Sensitive())
}

type RuleAddress struct {
	City string
	Zip  string
}

type ruleBindNested struct {
	ID   string
	Addr RuleAddress
}

func (e *ruleBindNested) Describe(s *kandra.Schema[ruleBindNested]) {
	s.Table("kr_bind_nested")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Addr.Zip, kandra.Sensitive())
}

// ruleBindNestedFirst binds the first field of a non-embedded struct: same
// offset as the struct field itself, different type.
type ruleBindNestedFirst struct {
	ID   string
	Addr RuleAddress
}

func (e *ruleBindNestedFirst) Describe(s *kandra.Schema[ruleBindNestedFirst]) {
	s.Table("kr_bind_nested_first")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Addr.City, kandra.Sensitive())
}

type ruleBindOther struct {
	ID    string
	Email string
}

func (e *ruleBindOther) Describe(s *kandra.Schema[ruleBindOther]) {
	s.Table("kr_bind_other")
	other := new(ruleBindOther)
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &other.Email, kandra.Sensitive())
}

type ruleBindNil struct{ ID string }

func (e *ruleBindNil) Describe(s *kandra.Schema[ruleBindNil]) {
	s.Table("kr_bind_nil")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind[ruleBindNil, string](s, nil, kandra.Sensitive())
}

func TestRuleBinding(t *testing.T) {
	t.Run("pointer to a global variable (only binding)", func(t *testing.T) {
		expectRuleError[ruleBindGlobalOnly](t, kandra.RuleBinding, "")
	})
	t.Run("pointer to a global variable (with a field binding)", func(t *testing.T) {
		expectRuleError[ruleBindGlobalMixed](t, kandra.RuleBinding, "", "*string")
	})
	t.Run("pointer to an unexported field", func(t *testing.T) {
		expectRuleError[ruleBindUnexported](t, kandra.RuleBinding, "secret", "unexported")
	})
	t.Run("pointer to a field of a non-embedded struct", func(t *testing.T) {
		expectRuleError[ruleBindNested](t, kandra.RuleBinding, "Addr.Zip", "non-embedded")
	})
	t.Run("pointer to the first field of a non-embedded struct", func(t *testing.T) {
		expectRuleError[ruleBindNestedFirst](t, kandra.RuleBinding, "Addr.City", "non-embedded")
	})
	t.Run("pointer to a field of another value", func(t *testing.T) {
		expectRuleError[ruleBindOther](t, kandra.RuleBinding, "")
	})
	t.Run("nil pointer", func(t *testing.T) {
		expectRuleError[ruleBindNil](t, kandra.RuleBinding, "")
	})
}

// ---------------------------------------------------------------------------
// Value receivers.

type ruleValueRecv struct {
	ID     string
	Email  string
	Visits int64
	Note   string
}

func (e ruleValueRecv) Describe(s *kandra.Schema[ruleValueRecv]) {
	s.Table("kr_value_recv")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Email, kandra.Lookup("by_email", kandra.LookupEventual), kandra.Column("mail"))
	kandra.Bind(s, &e.Note, kandra.Transient())
}

// ruleValueTwoStrings binds only the second of two string fields through a
// value receiver: kandra must still find which one it is.
type ruleValueTwoStrings struct {
	A string
	B string
}

func (e ruleValueTwoStrings) Describe(s *kandra.Schema[ruleValueTwoStrings]) {
	s.Table("kr_value_two_strings")
	kandra.Bind(s, &e.B, kandra.PartitionKey(0))
}

// ruleValueAmbiguousBool's only binding is one of two bool fields through a
// value receiver: a bool cannot carry a value that tells the fields apart,
// so the copy Describe ran on cannot be located.
type ruleValueAmbiguousBool struct {
	Active  bool
	Deleted bool
	Name    string
}

func (e ruleValueAmbiguousBool) Describe(s *kandra.Schema[ruleValueAmbiguousBool]) {
	s.Table("kr_value_ambiguous_bool")
	kandra.Bind(s, &e.Deleted, kandra.PartitionKey(0))
}

// ruleValueAmbiguousAddr: the same with two netip.Addr fields.
type ruleValueAmbiguousAddr struct {
	From netip.Addr
	To   netip.Addr
}

func (e ruleValueAmbiguousAddr) Describe(s *kandra.Schema[ruleValueAmbiguousAddr]) {
	s.Table("kr_value_ambiguous_addr")
	kandra.Bind(s, &e.To, kandra.PartitionKey(0))
}

// ruleValueGlobal binds a package-level variable through a value receiver.
type ruleValueGlobal struct {
	ID    string
	Email string
}

func (e ruleValueGlobal) Describe(s *kandra.Schema[ruleValueGlobal]) {
	s.Table("kr_value_global")
	kandra.Bind(s, &ruleGlobalID, kandra.PartitionKey(0))
}

func TestRuleValueReceiverResolvesFields(t *testing.T) {
	tbl := mustRegisterOK[ruleValueRecv](t)
	ts := tbl.Schema()
	var cols []string
	for _, c := range ts.Columns() {
		cols = append(cols, c.GoName()+"="+c.Name()+":"+c.Role().String())
	}
	want := []string{"ID=id:partition key", "Email=mail:regular", "Visits=visits:regular"}
	if !slices.Equal(cols, want) {
		t.Fatalf("columns = %q, want %q", cols, want)
	}
	lts := ts.LookupTables()
	if len(lts) != 1 || lts[0].Name() != "kr_value_recv_by_email" || lts[0].IndexColumn().GoName() != "Email" ||
		lts[0].Consistency() != kandra.LookupEventual {
		t.Fatalf("lookup tables = %v, want kr_value_recv_by_email on Email (EVENTUAL)", lts)
	}
	email, err := kandra.FieldOf(tbl, func(e *ruleValueRecv) *string { return &e.Email })
	if err != nil {
		t.Fatalf("FieldOf(Email): %v", err)
	}
	e := ruleValueRecv{ID: "k", Email: "a@b"}
	if email.Name() != "mail" || email.Get(&e) != "a@b" {
		t.Errorf("FieldOf(Email) = %q/%q, want mail/a@b", email.Name(), email.Get(&e))
	}
	if _, err := kandra.FieldOf(tbl, func(e *ruleValueRecv) *string { return &e.Note }); err == nil {
		t.Errorf("FieldOf(Note) succeeded for a Transient field")
	}
}

func TestRuleValueReceiverAmbiguousBinding(t *testing.T) {
	t.Run("two string fields are told apart", func(t *testing.T) {
		ts := mustRegisterOK[ruleValueTwoStrings](t).Schema()
		if pk := ts.PartitionKeys(); len(pk) != 1 || pk[0].GoName() != "B" {
			t.Errorf("partition key = %v, want B", pk)
		}
	})
	t.Run("two bool fields", func(t *testing.T) {
		expectRuleError[ruleValueAmbiguousBool](t, kandra.RuleBinding, "", "value receiver")
	})
	t.Run("two netip.Addr fields", func(t *testing.T) {
		expectRuleError[ruleValueAmbiguousAddr](t, kandra.RuleBinding, "", "value receiver")
	})
	t.Run("global variable", func(t *testing.T) {
		expectRuleError[ruleValueGlobal](t, kandra.RuleBinding, "")
	})
}

// ---------------------------------------------------------------------------
// RuleConflict.

type ruleConflictTableTwice struct{ ID string }

func (e *ruleConflictTableTwice) Describe(s *kandra.Schema[ruleConflictTableTwice]) {
	s.Table("kr_conflict_table")
	s.Table("kr_conflict_table")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type ruleConflictColumns struct {
	ID    string
	Email string
}

func (e *ruleConflictColumns) Describe(s *kandra.Schema[ruleConflictColumns]) {
	s.Table("kr_conflict_columns")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Email, kandra.Column("mail"))
	kandra.Bind(s, &e.Email, kandra.Column("email_address"))
}

type ruleConflictTransientKey struct {
	ID    string
	Other string
}

func (e *ruleConflictTransientKey) Describe(s *kandra.Schema[ruleConflictTransientKey]) {
	s.Table("kr_conflict_transient")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Other, kandra.Transient(), kandra.PartitionKey(1))
}

type ruleConflictTwoPK struct{ ID string }

func (e *ruleConflictTwoPK) Describe(s *kandra.Schema[ruleConflictTwoPK]) {
	s.Table("kr_conflict_two_pk")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.ID, kandra.PartitionKey(1))
}

type ruleConflictTwoCK struct {
	ID string
	At time.Time
}

func (e *ruleConflictTwoCK) Describe(s *kandra.Schema[ruleConflictTwoCK]) {
	s.Table("kr_conflict_two_ck")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.At, kandra.ClusteringKey(0, kandra.Asc))
	kandra.Bind(s, &e.At, kandra.ClusteringKey(0, kandra.Desc))
}

type ruleConflictTwoLookups struct {
	ID    string
	Email string
}

func (e *ruleConflictTwoLookups) Describe(s *kandra.Schema[ruleConflictTwoLookups]) {
	s.Table("kr_conflict_two_lookups")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Email, kandra.Lookup("by_email", kandra.LookupBatch), kandra.Lookup("by_mail", kandra.LookupBatch))
}

type ruleConflictCounterAsType struct {
	ID   string
	Hits int64
}

func (e *ruleConflictCounterAsType) Describe(s *kandra.Schema[ruleConflictCounterAsType]) {
	s.Table("kr_conflict_counter_astype")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Counter(s, &e.Hits, kandra.AsType(kandra.CQLBigint))
}

type ruleConflictTTLTwice struct{ ID string }

func (e *ruleConflictTTLTwice) Describe(s *kandra.Schema[ruleConflictTTLTwice]) {
	s.Table("kr_conflict_ttl", kandra.DefaultTTL(10), kandra.DefaultTTL(20))
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type ruleConflictSoftDeleteTwice struct {
	ID      string
	Deleted bool
}

func (e *ruleConflictSoftDeleteTwice) Describe(s *kandra.Schema[ruleConflictSoftDeleteTwice]) {
	s.Table("kr_conflict_sd", kandra.SoftDelete(10, &e.Deleted), kandra.SoftDelete(10, &e.Deleted))
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type ruleConflictUUIDStrategies struct{ ID uuid.UUID }

func (e *ruleConflictUUIDStrategies) Describe(s *kandra.Schema[ruleConflictUUIDStrategies]) {
	s.Table("kr_conflict_uuid")
	kandra.GeneratedUUID(s, &e.ID, kandra.TimeOrdered, kandra.PartitionKey(0))
	kandra.GeneratedUUID(s, &e.ID, kandra.Random)
}

type ruleConflictTransientMarker struct {
	ID      string
	Deleted bool
}

func (e *ruleConflictTransientMarker) Describe(s *kandra.Schema[ruleConflictTransientMarker]) {
	s.Table("kr_conflict_marker", kandra.SoftDelete(10, &e.Deleted))
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Deleted, kandra.Transient())
}

// ruleConflictMerged repeats identical options: they merge, no conflict.
type ruleConflictMerged struct {
	ID    string
	Email string
}

func (e *ruleConflictMerged) Describe(s *kandra.Schema[ruleConflictMerged]) {
	s.Table("kr_conflict_merged", kandra.GCGrace(60), kandra.GCGrace(60))
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0), kandra.Column("ident"))
	kandra.Bind(s, &e.Email, kandra.Column("mail"), kandra.Column(" "))
	kandra.Bind(s, &e.Email, kandra.Column("mail"))
}

func TestRuleConflict(t *testing.T) {
	t.Run("Table called twice", func(t *testing.T) {
		expectRuleError[ruleConflictTableTwice](t, kandra.RuleConflict, "", "2 times")
	})
	t.Run("two Column names", func(t *testing.T) {
		expectRuleError[ruleConflictColumns](t, kandra.RuleConflict, "Email", `"mail"`, `"email_address"`)
	})
	t.Run("Transient with PartitionKey", func(t *testing.T) {
		expectRuleError[ruleConflictTransientKey](t, kandra.RuleConflict, "Other", "Transient")
	})
	t.Run("two PartitionKey indexes on one field", func(t *testing.T) {
		expectRuleError[ruleConflictTwoPK](t, kandra.RuleConflict, "ID", "PartitionKey", "0", "1")
	})
	t.Run("two ClusteringKey orders on one field", func(t *testing.T) {
		expectRuleError[ruleConflictTwoCK](t, kandra.RuleConflict, "At", "ClusteringKey")
	})
	t.Run("two lookups on one field", func(t *testing.T) {
		expectRuleError[ruleConflictTwoLookups](t, kandra.RuleConflict, "Email", "Lookup")
	})
	t.Run("Counter with AsType", func(t *testing.T) {
		expectRuleError[ruleConflictCounterAsType](t, kandra.RuleConflict, "Hits", "AsType")
	})
	t.Run("DefaultTTL twice", func(t *testing.T) {
		expectRuleError[ruleConflictTTLTwice](t, kandra.RuleConflict, "", "DefaultTTL")
	})
	t.Run("SoftDelete twice", func(t *testing.T) {
		expectRuleError[ruleConflictSoftDeleteTwice](t, kandra.RuleConflict, "", "SoftDelete")
	})
	t.Run("GeneratedUUID with two strategies", func(t *testing.T) {
		expectRuleError[ruleConflictUUIDStrategies](t, kandra.RuleConflict, "ID", "GeneratedUUID")
	})
	t.Run("Transient soft-delete marker", func(t *testing.T) {
		// Both RuleConflict and RuleSoftDeleteMarker apply; RuleConflict
		// comes first in Rules().
		expectRuleError[ruleConflictTransientMarker](t, kandra.RuleConflict, "Deleted", "Transient")
	})
	t.Run("control: identical options merge", func(t *testing.T) {
		tbl := mustRegisterOK[ruleConflictMerged](t)
		if c := tbl.Schema().ColumnByName("ident"); c == nil || !c.IsPartitionKey() {
			t.Errorf("column ident missing or not the partition key")
		}
		if c := tbl.Schema().ColumnByName("mail"); c == nil || c.GoName() != "Email" {
			t.Errorf("column mail missing")
		}
	})
}

// ---------------------------------------------------------------------------
// Blank Column overrides fall back to the derived name.

type ruleBlankColumn struct {
	ID          string
	DisplayName string
	HomePage    string
	NickName    string
}

func (e *ruleBlankColumn) Describe(s *kandra.Schema[ruleBlankColumn]) {
	s.Table("kr_blank_column")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.DisplayName, kandra.Column("  "))
	kandra.Bind(s, &e.HomePage, kandra.Column(""), kandra.Column("\t\n"))
	kandra.Bind(s, &e.NickName, kandra.Column(" "), kandra.Column("nick"))
}

func TestBlankColumnFallsBackToDerivedName(t *testing.T) {
	tbl := mustRegisterOK[ruleBlankColumn](t)
	var got []string
	for _, c := range tbl.Schema().Columns() {
		got = append(got, c.GoName()+"="+c.Name())
	}
	want := []string{"ID=id", "DisplayName=display_name", "HomePage=home_page", "NickName=nick"}
	if !slices.Equal(got, want) {
		t.Errorf("columns = %q, want %q", got, want)
	}
}

// ---------------------------------------------------------------------------
// The compile-time rules.

type ruleSig struct{ ID string }

// Compile-time proof that the typed binders only take the right field types;
// the compile-fail test lives elsewhere (compile_test.go).
var (
	_ func(*kandra.Schema[ruleSig], *time.Time, ...kandra.FieldOption) = kandra.CreatedAt[ruleSig]
	_ func(*kandra.Schema[ruleSig], *time.Time, ...kandra.FieldOption) = kandra.UpdatedAt[ruleSig]
	_ func(*kandra.Schema[ruleSig], *int64, ...kandra.FieldOption)     = kandra.Version[ruleSig, int64]
	_ func(*kandra.Schema[ruleSig], *time.Time, ...kandra.FieldOption) = kandra.Version[ruleSig, time.Time]
	_ func(*kandra.Schema[ruleSig], *int64, ...kandra.FieldOption)     = kandra.Counter[ruleSig]
)

// TestRuleTimestampType: CreatedAt/UpdatedAt on a non-time.Time field does
// not compile (their pointer parameter is *time.Time), so no entity can
// fail this rule at run time. The rule keeps its place in the order list.
func TestRuleTimestampType(t *testing.T) {
	i := ruleIndex(t, kandra.RuleTimestampType)
	if i != ruleIndex(t, kandra.RuleConflict)+1 || i != ruleIndex(t, kandra.RuleNoPartitionKey)-1 {
		t.Errorf("RuleTimestampType is at %d, want between RuleConflict and RuleNoPartitionKey", i)
	}
	if kandra.RuleTimestampType != "timestamp-type" {
		t.Errorf("RuleTimestampType = %q", kandra.RuleTimestampType)
	}
}

// TestRuleVersionType: Version's type parameter is constrained to int64 |
// time.Time, so a Version on another type does not compile. The rule keeps
// its place (Kotlin 9) in the order list.
func TestRuleVersionType(t *testing.T) {
	i := ruleIndex(t, kandra.RuleVersionType)
	if i != ruleIndex(t, kandra.RuleDuplicateVersion)+1 || i != ruleIndex(t, kandra.RuleSoftDeleteMarker)-1 {
		t.Errorf("RuleVersionType is at %d, want between RuleDuplicateVersion and RuleSoftDeleteMarker", i)
	}
	if kandra.RuleVersionType != "version-type" {
		t.Errorf("RuleVersionType = %q", kandra.RuleVersionType)
	}
}

// ---------------------------------------------------------------------------
// RuleNoPartitionKey.

type ruleNoPK struct {
	ID   string
	Name string
}

func (e *ruleNoPK) Describe(s *kandra.Schema[ruleNoPK]) { s.Table("kr_no_pk") }

type ruleOnlyCK struct {
	ID string
	At time.Time
}

func (e *ruleOnlyCK) Describe(s *kandra.Schema[ruleOnlyCK]) {
	s.Table("kr_only_ck")
	kandra.Bind(s, &e.At, kandra.ClusteringKey(0, kandra.Desc))
}

func TestRuleNoPartitionKey(t *testing.T) {
	t.Run("nothing bound", func(t *testing.T) {
		expectRuleError[ruleNoPK](t, kandra.RuleNoPartitionKey, "", "PartitionKey")
	})
	t.Run("only a clustering key", func(t *testing.T) {
		expectRuleError[ruleOnlyCK](t, kandra.RuleNoPartitionKey, "")
	})
}

// ---------------------------------------------------------------------------
// RuleDuplicatePartitionIndex.

type ruleDupPK struct {
	A string
	B string
}

func (e *ruleDupPK) Describe(s *kandra.Schema[ruleDupPK]) {
	s.Table("kr_dup_pk")
	kandra.Bind(s, &e.A, kandra.PartitionKey(0))
	kandra.Bind(s, &e.B, kandra.PartitionKey(0))
}

func TestRuleDuplicatePartitionIndex(t *testing.T) {
	expectRuleError[ruleDupPK](t, kandra.RuleDuplicatePartitionIndex, "B", "PartitionKey(0)", "A")
}

// ---------------------------------------------------------------------------
// RuleDuplicateLookupTable.

type ruleDupLookup struct {
	ID string
	A  string
	B  string
}

func (e *ruleDupLookup) Describe(s *kandra.Schema[ruleDupLookup]) {
	s.Table("kr_dup_lookup")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.A, kandra.Lookup("by_x", kandra.LookupBatch))
	kandra.Bind(s, &e.B, kandra.Lookup("by_x", kandra.LookupEventual))
}

func TestRuleDuplicateLookupTable(t *testing.T) {
	expectRuleError[ruleDupLookup](t, kandra.RuleDuplicateLookupTable, "B", "kr_dup_lookup_by_x")
}

// ---------------------------------------------------------------------------
// RuleCounterMix.

type ruleCounterMix struct {
	ID   string
	Hits int64
	Note string
}

func (e *ruleCounterMix) Describe(s *kandra.Schema[ruleCounterMix]) {
	s.Table("kr_counter_mix")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Counter(s, &e.Hits)
}

func TestRuleCounterMix(t *testing.T) {
	expectRuleError[ruleCounterMix](t, kandra.RuleCounterMix, "Note", "Hits")
}

// ---------------------------------------------------------------------------
// RuleDuplicateTimestamp.

type RuleAudit struct {
	Created time.Time
	Updated time.Time
}

type ruleDupCreated struct {
	ID   string
	Made time.Time
	RuleAudit
}

func (e *ruleDupCreated) Describe(s *kandra.Schema[ruleDupCreated]) {
	s.Table("kr_dup_created")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.CreatedAt(s, &e.Made)
	kandra.CreatedAt(s, &e.Created)
}

type ruleDupUpdated struct {
	ID string
	U1 time.Time
	U2 time.Time
}

func (e *ruleDupUpdated) Describe(s *kandra.Schema[ruleDupUpdated]) {
	s.Table("kr_dup_updated")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.UpdatedAt(s, &e.U1)
	kandra.UpdatedAt(s, &e.U2)
}

func TestRuleDuplicateTimestamp(t *testing.T) {
	t.Run("CreatedAt twice, second in an embedded struct", func(t *testing.T) {
		expectRuleError[ruleDupCreated](t, kandra.RuleDuplicateTimestamp, "RuleAudit.Created", "CreatedAt", "Made")
	})
	t.Run("UpdatedAt twice", func(t *testing.T) {
		expectRuleError[ruleDupUpdated](t, kandra.RuleDuplicateTimestamp, "U2", "UpdatedAt", "U1")
	})
}

// ---------------------------------------------------------------------------
// RuleDuplicateVersion.

type ruleDupVersion struct {
	ID    string
	Rev   int64
	Stamp time.Time
}

func (e *ruleDupVersion) Describe(s *kandra.Schema[ruleDupVersion]) {
	s.Table("kr_dup_version")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Version(s, &e.Rev)
	kandra.Version(s, &e.Stamp)
}

func TestRuleDuplicateVersion(t *testing.T) {
	expectRuleError[ruleDupVersion](t, kandra.RuleDuplicateVersion, "Stamp", "Version", "Rev")
}

// ---------------------------------------------------------------------------
// RuleSoftDeleteMarker.

type ruleMarkerUnexported struct {
	ID      string
	deleted bool
}

func (e *ruleMarkerUnexported) Describe(s *kandra.Schema[ruleMarkerUnexported]) {
	s.Table("kr_marker_unexported", kandra.SoftDelete(60, &e.deleted))
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type ruleMarkerGlobal struct {
	ID      string
	Deleted bool
}

func (e *ruleMarkerGlobal) Describe(s *kandra.Schema[ruleMarkerGlobal]) {
	s.Table("kr_marker_global", kandra.SoftDelete(60, &ruleGlobalFlag))
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type RuleFlags struct{ Deleted bool }

type ruleMarkerNested struct {
	ID    string
	Flags RuleFlags
}

func (e *ruleMarkerNested) Describe(s *kandra.Schema[ruleMarkerNested]) {
	s.Table("kr_marker_nested", kandra.SoftDelete(60, &e.Flags.Deleted))
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Flags, kandra.Transient())
}

type ruleMarkerOK struct {
	ID      string
	Deleted bool
}

func (e *ruleMarkerOK) Describe(s *kandra.Schema[ruleMarkerOK]) {
	s.Table("kr_marker_ok", kandra.SoftDelete(60, &e.Deleted))
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

func TestRuleSoftDeleteMarker(t *testing.T) {
	t.Run("unexported field", func(t *testing.T) {
		expectRuleError[ruleMarkerUnexported](t, kandra.RuleSoftDeleteMarker, "deleted", "marker")
	})
	t.Run("global variable", func(t *testing.T) {
		expectRuleError[ruleMarkerGlobal](t, kandra.RuleSoftDeleteMarker, "", "marker")
	})
	t.Run("field of a non-embedded struct", func(t *testing.T) {
		expectRuleError[ruleMarkerNested](t, kandra.RuleSoftDeleteMarker, "Flags.Deleted", "marker")
	})
	t.Run("control: exported bool column", func(t *testing.T) {
		tbl := mustRegisterOK[ruleMarkerOK](t)
		sd := tbl.Schema().SoftDelete()
		if sd == nil || sd.TTLSeconds != 60 || sd.Marker == nil || sd.Marker.GoName() != "Deleted" || !sd.Marker.IsSoftDeleteMarker() {
			t.Errorf("SoftDelete() = %+v, want TTL 60 with marker Deleted", sd)
		}
	})
}

// ---------------------------------------------------------------------------
// RuleKeyConflict.

type ruleKeyConflict struct {
	ID string
	At time.Time
}

func (e *ruleKeyConflict) Describe(s *kandra.Schema[ruleKeyConflict]) {
	s.Table("kr_key_conflict")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.At, kandra.PartitionKey(1), kandra.ClusteringKey(0, kandra.Desc))
}

func TestRuleKeyConflict(t *testing.T) {
	expectRuleError[ruleKeyConflict](t, kandra.RuleKeyConflict, "At", "partition key", "clustering key")
}

// ---------------------------------------------------------------------------
// RuleInvalidName.

var (
	ruleName40 = "kr_" + strings.Repeat("n", 37) // 40 characters
	ruleName48 = "kr_" + strings.Repeat("m", 45) // 48 characters: the limit
	ruleName49 = "kr_" + strings.Repeat("o", 46) // 49 characters
)

type ruleNameTooLong struct{ ID string }

func (e *ruleNameTooLong) Describe(s *kandra.Schema[ruleNameTooLong]) {
	s.Table(ruleName49)
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type ruleNameMaxLength struct{ ID string }

func (e *ruleNameMaxLength) Describe(s *kandra.Schema[ruleNameMaxLength]) {
	s.Table(ruleName48)
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

// ruleBadTableName takes its table name from ruleBadTableNameValue; it never
// registers, so Describe runs again for every sub-test.
var ruleBadTableNameValue string

type ruleBadTableName struct{ ID string }

func (e *ruleBadTableName) Describe(s *kandra.Schema[ruleBadTableName]) {
	s.Table(ruleBadTableNameValue)
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type ruleLookupTooLong struct {
	ID    string
	Email string
}

func (e *ruleLookupTooLong) Describe(s *kandra.Schema[ruleLookupTooLong]) {
	s.Table(ruleName40)
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Email, kandra.Lookup("by_email", kandra.LookupBatch)) // 40+1+8 = 49
}

type ruleLookupBlank struct {
	ID    string
	Email string
}

func (e *ruleLookupBlank) Describe(s *kandra.Schema[ruleLookupBlank]) {
	s.Table("kr_lookup_blank")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Email, kandra.Lookup("  ", kandra.LookupBatch))
}

type ruleLookupEmpty struct {
	ID    string
	Email string
}

func (e *ruleLookupEmpty) Describe(s *kandra.Schema[ruleLookupEmpty]) {
	s.Table("kr_lookup_empty")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Email, kandra.Lookup("", kandra.LookupBatch))
}

type ruleLookupBadChars struct {
	ID    string
	Email string
}

func (e *ruleLookupBadChars) Describe(s *kandra.Schema[ruleLookupBadChars]) {
	s.Table("kr_lookup_bad_chars")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Email, kandra.Lookup("by-email", kandra.LookupBatch))
}

type ruleIndexTooLong struct {
	ID    string
	Email string
}

func (e *ruleIndexTooLong) Describe(s *kandra.Schema[ruleIndexTooLong]) {
	s.Table(ruleName40)
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Email, kandra.SecondaryIndex()) // 40+1+5+4 = 50
}

type ruleIndexBadChars struct {
	ID    string
	Email string
}

func (e *ruleIndexBadChars) Describe(s *kandra.Schema[ruleIndexBadChars]) {
	s.Table("kr_index_bad_chars")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Email, kandra.Column("e mail"), kandra.SecondaryIndex())
}

type ruleColumnBadUTF8 struct {
	ID   string
	Name string
}

func (e *ruleColumnBadUTF8) Describe(s *kandra.Schema[ruleColumnBadUTF8]) {
	s.Table("kr_column_bad_utf8")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Name, kandra.Column("na\xffme"))
}

func TestRuleInvalidName(t *testing.T) {
	t.Run("table name of 49 characters", func(t *testing.T) {
		expectRuleError[ruleNameTooLong](t, kandra.RuleInvalidName, "", ruleName49, "49", "48")
	})
	for _, name := range []string{"kr-dash", "kr space", "kr_naïve", "ks.kr_dot", "kr$", `kr"q`} {
		t.Run("table name "+strconv.Quote(name), func(t *testing.T) {
			ruleBadTableNameValue = name
			expectRuleError[ruleBadTableName](t, kandra.RuleInvalidName, "")
		})
	}
	t.Run("lookup table name too long", func(t *testing.T) {
		expectRuleError[ruleLookupTooLong](t, kandra.RuleInvalidName, "Email", ruleName40+"_by_email", "49")
	})
	t.Run("blank lookup suffix", func(t *testing.T) {
		expectRuleError[ruleLookupBlank](t, kandra.RuleInvalidName, "Email", "blank")
	})
	t.Run("empty lookup suffix", func(t *testing.T) {
		expectRuleError[ruleLookupEmpty](t, kandra.RuleInvalidName, "Email")
	})
	t.Run("lookup suffix with a dash", func(t *testing.T) {
		expectRuleError[ruleLookupBadChars](t, kandra.RuleInvalidName, "Email", "kr_lookup_bad_chars_by-email")
	})
	t.Run("index name too long", func(t *testing.T) {
		expectRuleError[ruleIndexTooLong](t, kandra.RuleInvalidName, "Email", ruleName40+"_email_idx", "50")
	})
	t.Run("index name with a space", func(t *testing.T) {
		expectRuleError[ruleIndexBadChars](t, kandra.RuleInvalidName, "Email", "kr_index_bad_chars_e mail_idx")
	})
	t.Run("column name not UTF-8", func(t *testing.T) {
		expectRuleError[ruleColumnBadUTF8](t, kandra.RuleInvalidName, "Name", "UTF-8")
	})
	t.Run("control: table name of 48 characters", func(t *testing.T) {
		tbl := mustRegisterOK[ruleNameMaxLength](t)
		if tbl.Name() != ruleName48 || len(tbl.Name()) != 48 {
			t.Errorf("table name = %q", tbl.Name())
		}
	})
}

// ---------------------------------------------------------------------------
// RuleDuplicateColumn.

type ruleDupColumn struct {
	ID     string
	UserID string
	UserId string //nolint:revive // deliberately snake-cases like UserID
}

func (e *ruleDupColumn) Describe(s *kandra.Schema[ruleDupColumn]) {
	s.Table("kr_dup_column")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type ruleDupColumnOverride struct {
	ID string
	A  string
	B  string
}

func (e *ruleDupColumnOverride) Describe(s *kandra.Schema[ruleDupColumnOverride]) {
	s.Table("kr_dup_column_override")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.A, kandra.Column("b"))
}

func TestRuleDuplicateColumn(t *testing.T) {
	t.Run("after snake-casing", func(t *testing.T) {
		expectRuleError[ruleDupColumn](t, kandra.RuleDuplicateColumn, "UserId", `"user_id"`, "UserID")
	})
	t.Run("override equals a derived name", func(t *testing.T) {
		expectRuleError[ruleDupColumnOverride](t, kandra.RuleDuplicateColumn, "B", `"b"`, "A")
	})
}

// ---------------------------------------------------------------------------
// RuleDuplicateClusteringIndex.

type ruleDupCK struct {
	ID string
	A  time.Time
	B  time.Time
}

func (e *ruleDupCK) Describe(s *kandra.Schema[ruleDupCK]) {
	s.Table("kr_dup_ck")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.A, kandra.ClusteringKey(0, kandra.Asc))
	kandra.Bind(s, &e.B, kandra.ClusteringKey(0, kandra.Desc))
}

func TestRuleDuplicateClusteringIndex(t *testing.T) {
	expectRuleError[ruleDupCK](t, kandra.RuleDuplicateClusteringIndex, "B", "ClusteringKey(0", "A")
}

// ---------------------------------------------------------------------------
// RuleUnsupportedType.

// ruleUT is an entity whose field X has type V and no options.
type ruleUT[V any] struct {
	ID string
	X  V
}

func (e *ruleUT[V]) Describe(s *kandra.Schema[ruleUT[V]]) {
	s.Table("kr_unsupported")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type ruleUTZeroAsType struct {
	ID string
	X  string
}

func (e *ruleUTZeroAsType) Describe(s *kandra.Schema[ruleUTZeroAsType]) {
	s.Table("kr_unsupported_zero")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.X, kandra.AsType(kandra.CQLType{}))
}

type ruleUTAsSetOfDurations struct {
	ID string
	X  []time.Duration
}

func (e *ruleUTAsSetOfDurations) Describe(s *kandra.Schema[ruleUTAsSetOfDurations]) {
	s.Table("kr_unsupported_as_set")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.X, kandra.AsType(kandra.SetOf(kandra.CQLDuration)))
}

// expectUnsupported checks that field X of type V is rejected, and that the
// error's Detail (not only the entity name, which contains V for these
// generic entities) names a Go type (V itself, or one of also: the element
// type that has no CQL equivalent) and both ways out.
func expectUnsupported[V any](also ...string) func(*testing.T) {
	return func(t *testing.T) {
		t.Helper()
		se := expectRuleError[ruleUT[V]](t, kandra.RuleUnsupportedType, "X")
		if se == nil {
			return
		}
		types := append([]string{reflect.TypeFor[V]().String()}, also...)
		named := false
		for _, ty := range types {
			named = named || strings.Contains(se.Detail, ty)
		}
		if !named {
			t.Errorf("Detail %q names none of the Go types %q", se.Detail, types)
		}
		for _, way := range []string{"Transient", "AsType"} {
			if !strings.Contains(se.Detail, way) {
				t.Errorf("Detail %q does not name the way out %s", se.Detail, way)
			}
		}
	}
}

func TestRuleUnsupportedType(t *testing.T) {
	t.Run("uint32", expectUnsupported[uint32]())
	t.Run("uint", expectUnsupported[uint]())
	t.Run("uint64", expectUnsupported[uint64]())
	t.Run("uint8", expectUnsupported[uint8]())
	t.Run("struct field", expectUnsupported[RuleAddress]())
	t.Run("chan", expectUnsupported[chan int]())
	t.Run("func", expectUnsupported[func()]())
	t.Run("complex128", expectUnsupported[complex128]())
	t.Run("interface", expectUnsupported[any]())
	t.Run("array", expectUnsupported[[4]byte]())
	t.Run("[]uint16", expectUnsupported[[]uint16]("uint16"))
	t.Run("map with struct key", expectUnsupported[map[RuleAddress]string]("kandra_test.RuleAddress"))
	t.Run("[]*string", expectUnsupported[[]*string]("*string"))
	t.Run("**string", expectUnsupported[**string]("*string"))
	t.Run("map with duration key", expectUnsupported[map[time.Duration]string]("time.Duration"))
	t.Run("set of durations", expectUnsupported[map[time.Duration]struct{}]("time.Duration"))
	t.Run("list of sets of durations", expectUnsupported[[]map[time.Duration]struct{}]("time.Duration"))
	t.Run("AsType zero CQLType", func(t *testing.T) {
		expectRuleError[ruleUTZeroAsType](t, kandra.RuleUnsupportedType, "X", "zero CQLType")
	})
	t.Run("AsType set of durations", func(t *testing.T) {
		expectRuleError[ruleUTAsSetOfDurations](t, kandra.RuleUnsupportedType, "X", "SET<DURATION>", "duration")
	})
}

// ---------------------------------------------------------------------------
// RuleKeyType.

type ruleKeyDurationPK struct{ ID time.Duration }

func (e *ruleKeyDurationPK) Describe(s *kandra.Schema[ruleKeyDurationPK]) {
	s.Table("kr_key_duration_pk")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type ruleKeyCounterPK struct {
	ID   string
	Hits int64
}

func (e *ruleKeyCounterPK) Describe(s *kandra.Schema[ruleKeyCounterPK]) {
	s.Table("kr_key_counter_pk")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Counter(s, &e.Hits, kandra.PartitionKey(1))
}

type ruleKeyCounterCK struct {
	ID   string
	Hits int64
}

func (e *ruleKeyCounterCK) Describe(s *kandra.Schema[ruleKeyCounterCK]) {
	s.Table("kr_key_counter_ck")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Counter(s, &e.Hits, kandra.ClusteringKey(0, kandra.Asc))
}

type ruleKeyDurationCK struct {
	ID string
	D  time.Duration
}

func (e *ruleKeyDurationCK) Describe(s *kandra.Schema[ruleKeyDurationCK]) {
	s.Table("kr_key_duration_ck")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.D, kandra.ClusteringKey(0, kandra.Asc))
}

type ruleKeyDurationListCK struct {
	ID string
	D  []time.Duration
}

func (e *ruleKeyDurationListCK) Describe(s *kandra.Schema[ruleKeyDurationListCK]) {
	s.Table("kr_key_duration_list_ck")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.D, kandra.ClusteringKey(0, kandra.Asc))
}

type ruleKeyDurationMapPK struct {
	ID string
	M  map[string]time.Duration
}

func (e *ruleKeyDurationMapPK) Describe(s *kandra.Schema[ruleKeyDurationMapPK]) {
	s.Table("kr_key_duration_map_pk")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.M, kandra.PartitionKey(1))
}

type ruleKeyLookupDuration struct {
	ID string
	D  time.Duration
}

func (e *ruleKeyLookupDuration) Describe(s *kandra.Schema[ruleKeyLookupDuration]) {
	s.Table("kr_key_lookup_duration")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.D, kandra.Lookup("by_d", kandra.LookupBatch))
}

type ruleKeyLookupCounter struct {
	ID   string
	Hits int64
}

func (e *ruleKeyLookupCounter) Describe(s *kandra.Schema[ruleKeyLookupCounter]) {
	s.Table("kr_key_lookup_counter")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Counter(s, &e.Hits, kandra.Lookup("by_hits", kandra.LookupBatch))
}

func TestRuleKeyType(t *testing.T) {
	t.Run("duration in partition key", func(t *testing.T) {
		expectRuleError[ruleKeyDurationPK](t, kandra.RuleKeyType, "ID", "duration", "partition key")
	})
	t.Run("counter in partition key", func(t *testing.T) {
		expectRuleError[ruleKeyCounterPK](t, kandra.RuleKeyType, "Hits", "counter", "partition key")
	})
	t.Run("counter in clustering key", func(t *testing.T) {
		expectRuleError[ruleKeyCounterCK](t, kandra.RuleKeyType, "Hits", "counter", "clustering key")
	})
	t.Run("duration in clustering key", func(t *testing.T) {
		expectRuleError[ruleKeyDurationCK](t, kandra.RuleKeyType, "D", "duration", "clustering key")
	})
	t.Run("list of durations in clustering key", func(t *testing.T) {
		expectRuleError[ruleKeyDurationListCK](t, kandra.RuleKeyType, "D", "duration")
	})
	t.Run("map with duration values in partition key", func(t *testing.T) {
		expectRuleError[ruleKeyDurationMapPK](t, kandra.RuleKeyType, "M", "duration")
	})
	t.Run("duration lookup column", func(t *testing.T) {
		expectRuleError[ruleKeyLookupDuration](t, kandra.RuleKeyType, "D", "lookup", "duration")
	})
	t.Run("counter lookup column", func(t *testing.T) {
		expectRuleError[ruleKeyLookupCounter](t, kandra.RuleKeyType, "Hits", "lookup", "counter")
	})
}

// ---------------------------------------------------------------------------
// RuleCounterTable.

type ruleCtrTTL struct {
	ID   string
	Hits int64
}

func (e *ruleCtrTTL) Describe(s *kandra.Schema[ruleCtrTTL]) {
	s.Table("kr_ctr_ttl", kandra.DefaultTTL(60))
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Counter(s, &e.Hits)
}

type ruleCtrSoftDelete struct {
	ID   string
	Hits int64
}

func (e *ruleCtrSoftDelete) Describe(s *kandra.Schema[ruleCtrSoftDelete]) {
	s.Table("kr_ctr_soft_delete", kandra.SoftDelete(60, nil))
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Counter(s, &e.Hits)
}

type ruleCtrVersionKey struct {
	ID   string
	Rev  int64
	Hits int64
}

func (e *ruleCtrVersionKey) Describe(s *kandra.Schema[ruleCtrVersionKey]) {
	s.Table("kr_ctr_version_key")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Version(s, &e.Rev, kandra.ClusteringKey(0, kandra.Asc))
	kandra.Counter(s, &e.Hits)
}

type ruleCtrVersionCounter struct {
	ID   string
	Hits int64
}

func (e *ruleCtrVersionCounter) Describe(s *kandra.Schema[ruleCtrVersionCounter]) {
	s.Table("kr_ctr_version_counter")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Counter(s, &e.Hits)
	kandra.Version(s, &e.Hits)
}

type ruleCtrCreated struct {
	ID   string
	Hits int64
	Made time.Time
}

func (e *ruleCtrCreated) Describe(s *kandra.Schema[ruleCtrCreated]) {
	s.Table("kr_ctr_created")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Counter(s, &e.Hits)
	kandra.CreatedAt(s, &e.Made)
}

type ruleCtrUpdated struct {
	ID      string
	Hits    int64
	Changed time.Time
}

func (e *ruleCtrUpdated) Describe(s *kandra.Schema[ruleCtrUpdated]) {
	s.Table("kr_ctr_updated")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Counter(s, &e.Hits)
	kandra.UpdatedAt(s, &e.Changed)
}

type ruleCtrLookup struct {
	A    string
	B    string
	Hits int64
}

func (e *ruleCtrLookup) Describe(s *kandra.Schema[ruleCtrLookup]) {
	s.Table("kr_ctr_lookup")
	kandra.Bind(s, &e.A, kandra.PartitionKey(0))
	kandra.Bind(s, &e.B, kandra.PartitionKey(1), kandra.Lookup("by_b", kandra.LookupBatch))
	kandra.Counter(s, &e.Hits)
}

type ruleCtrIndex struct {
	ID   string
	Hits int64
}

func (e *ruleCtrIndex) Describe(s *kandra.Schema[ruleCtrIndex]) {
	s.Table("kr_ctr_index")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Counter(s, &e.Hits, kandra.SecondaryIndex())
}

type ruleCtrKeyIndex struct {
	A    string
	B    string
	Hits int64
}

func (e *ruleCtrKeyIndex) Describe(s *kandra.Schema[ruleCtrKeyIndex]) {
	s.Table("kr_ctr_key_index")
	kandra.Bind(s, &e.A, kandra.PartitionKey(0))
	kandra.Bind(s, &e.B, kandra.PartitionKey(1), kandra.SecondaryIndex())
	kandra.Counter(s, &e.Hits)
}

type ruleCtrOK struct {
	ID    string
	Day   time.Time
	Hits  int64
	Bytes int64
}

func (e *ruleCtrOK) Describe(s *kandra.Schema[ruleCtrOK]) {
	s.Table("kr_ctr_ok", kandra.DefaultTTL(0), kandra.GCGrace(3600))
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.CreatedAt(s, &e.Day, kandra.ClusteringKey(0, kandra.Desc))
	kandra.Counter(s, &e.Hits)
	kandra.Counter(s, &e.Bytes)
}

func TestRuleCounterTable(t *testing.T) {
	t.Run("default TTL", func(t *testing.T) {
		expectRuleError[ruleCtrTTL](t, kandra.RuleCounterTable, "", "TTL")
	})
	t.Run("soft delete", func(t *testing.T) {
		expectRuleError[ruleCtrSoftDelete](t, kandra.RuleCounterTable, "", "SoftDelete")
	})
	t.Run("version on a key column", func(t *testing.T) {
		expectRuleError[ruleCtrVersionKey](t, kandra.RuleCounterTable, "Rev", "Version")
	})
	t.Run("version on the counter", func(t *testing.T) {
		expectRuleError[ruleCtrVersionCounter](t, kandra.RuleCounterTable, "Hits", "Version")
	})
	t.Run("created-at", func(t *testing.T) {
		expectRuleError[ruleCtrCreated](t, kandra.RuleCounterTable, "Made", "timestamp")
	})
	t.Run("updated-at", func(t *testing.T) {
		expectRuleError[ruleCtrUpdated](t, kandra.RuleCounterTable, "Changed", "timestamp")
	})
	t.Run("lookup", func(t *testing.T) {
		expectRuleError[ruleCtrLookup](t, kandra.RuleCounterTable, "B", "lookup")
	})
	t.Run("index on the counter", func(t *testing.T) {
		expectRuleError[ruleCtrIndex](t, kandra.RuleCounterTable, "Hits", "secondary index")
	})
	t.Run("index on a key column", func(t *testing.T) {
		expectRuleError[ruleCtrKeyIndex](t, kandra.RuleCounterTable, "B", "secondary index")
	})
	t.Run("control: TTL 0 and a timestamp key", func(t *testing.T) {
		tbl := mustRegisterOK[ruleCtrOK](t)
		if !tbl.Schema().IsCounterTable() {
			t.Errorf("IsCounterTable() = false")
		}
		ddl := kandra.CreateTable(tbl.Schema())
		for _, want := range []string{"    hits COUNTER,\n", "    bytes COUNTER,\n", "default_time_to_live = 0"} {
			if !strings.Contains(ddl, want) {
				t.Errorf("DDL %q lacks %q", ddl, want)
			}
		}
	})
}

// ---------------------------------------------------------------------------
// RuleLookup.

type ruleLookupOnPK struct {
	ID    string
	Email string
}

func (e *ruleLookupOnPK) Describe(s *kandra.Schema[ruleLookupOnPK]) {
	s.Table("kr_lookup_on_pk")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0), kandra.Lookup("by_id", kandra.LookupBatch))
}

type ruleLookupOnCK struct {
	ID string
	At time.Time
}

func (e *ruleLookupOnCK) Describe(s *kandra.Schema[ruleLookupOnCK]) {
	s.Table("kr_lookup_on_ck")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.At, kandra.ClusteringKey(0, kandra.Asc), kandra.Lookup("by_at", kandra.LookupEventual))
}

func TestRuleLookup(t *testing.T) {
	t.Run("partition key", func(t *testing.T) {
		expectRuleError[ruleLookupOnPK](t, kandra.RuleLookup, "ID", "partition key")
	})
	t.Run("clustering key", func(t *testing.T) {
		expectRuleError[ruleLookupOnCK](t, kandra.RuleLookup, "At", "clustering key")
	})
}

// ---------------------------------------------------------------------------
// RuleSecondaryIndex.

type ruleIdxSolePK struct {
	ID string
	N  int64
}

func (e *ruleIdxSolePK) Describe(s *kandra.Schema[ruleIdxSolePK]) {
	s.Table("kr_idx_sole_pk")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0), kandra.SecondaryIndex())
}

type ruleIdxDuration struct {
	ID string
	D  time.Duration
}

func (e *ruleIdxDuration) Describe(s *kandra.Schema[ruleIdxDuration]) {
	s.Table("kr_idx_duration")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.D, kandra.SecondaryIndex())
}

type ruleIdxDurationMap struct {
	ID string
	M  map[string]time.Duration
}

func (e *ruleIdxDurationMap) Describe(s *kandra.Schema[ruleIdxDurationMap]) {
	s.Table("kr_idx_duration_map")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.M, kandra.SecondaryIndex())
}

type ruleIdxOK struct {
	A    string
	B    string
	At   time.Time
	Tags []string
}

func (e *ruleIdxOK) Describe(s *kandra.Schema[ruleIdxOK]) {
	s.Table("kr_idx_ok")
	kandra.Bind(s, &e.A, kandra.PartitionKey(0), kandra.SecondaryIndex())
	kandra.Bind(s, &e.B, kandra.PartitionKey(1))
	kandra.Bind(s, &e.At, kandra.ClusteringKey(0, kandra.Desc), kandra.SecondaryIndex())
	kandra.Bind(s, &e.Tags, kandra.SecondaryIndex())
}

func TestRuleSecondaryIndex(t *testing.T) {
	t.Run("sole partition key", func(t *testing.T) {
		expectRuleError[ruleIdxSolePK](t, kandra.RuleSecondaryIndex, "ID", "only partition-key column")
	})
	t.Run("duration", func(t *testing.T) {
		expectRuleError[ruleIdxDuration](t, kandra.RuleSecondaryIndex, "D", "duration")
	})
	t.Run("map holding durations", func(t *testing.T) {
		expectRuleError[ruleIdxDurationMap](t, kandra.RuleSecondaryIndex, "M", "duration")
	})
	t.Run("control: composite partition key, clustering key, collection", func(t *testing.T) {
		tbl := mustRegisterOK[ruleIdxOK](t)
		stmts := tbl.Statements()
		want := []string{
			"CREATE INDEX IF NOT EXISTS kr_idx_ok_a_idx ON kr_idx_ok (a);",
			"CREATE INDEX IF NOT EXISTS kr_idx_ok_at_idx ON kr_idx_ok (at);",
			"CREATE INDEX IF NOT EXISTS kr_idx_ok_tags_idx ON kr_idx_ok (tags);",
		}
		if len(stmts) != 4 || !slices.Equal(stmts[1:], want) {
			t.Errorf("statements = %q, want the table then %q", stmts, want)
		}
	})
}

// ---------------------------------------------------------------------------
// RuleOptionRange.

// ruleOpt takes its table options from ruleOptCurrent. It never registers
// (every case here must fail), so Describe runs again for each sub-test.
var ruleOptCurrent []kandra.TableOption

type ruleOpt struct {
	ID      string
	Deleted bool
}

func (e *ruleOpt) Describe(s *kandra.Schema[ruleOpt]) {
	s.Table("kr_opt", ruleOptCurrent...)
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type ruleOptEdges struct {
	ID      string
	Deleted bool
}

func (e *ruleOptEdges) Describe(s *kandra.Schema[ruleOptEdges]) {
	s.Table("kr_opt_edges", kandra.DefaultTTL(kandra.MaxTTL), kandra.GCGrace(0),
		kandra.SoftDelete(kandra.MaxTTL, &e.Deleted), kandra.CacheResult(0, 0),
		kandra.ReadConsistency(kandra.ConsistencyLocalOne), kandra.WriteConsistency(kandra.ConsistencyAny))
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

func TestRuleOptionRange(t *testing.T) {
	if kandra.MaxTTL != 630720000 {
		t.Fatalf("MaxTTL = %d, want 630720000", kandra.MaxTTL)
	}
	cases := []struct {
		name string
		opts []kandra.TableOption
		msg  []string
	}{
		{"TTL -1", []kandra.TableOption{kandra.DefaultTTL(-1)}, []string{"DefaultTTL(-1)"}},
		{"TTL 630720001", []kandra.TableOption{kandra.DefaultTTL(630720001)}, []string{"630720001", "630720000"}},
		{"gc grace -1", []kandra.TableOption{kandra.GCGrace(-1)}, []string{"GCGrace(-1)"}},
		{"soft-delete TTL -1", []kandra.TableOption{kandra.SoftDelete(-1, nil)}, []string{"SoftDelete", "-1"}},
		{"soft-delete TTL 630720001", []kandra.TableOption{kandra.SoftDelete(630720001, nil)}, []string{"SoftDelete", "630720001"}},
		{"cache TTL negative", []kandra.TableOption{kandra.CacheResult(-1, 100)}, []string{"CacheResult"}},
		{"cache size negative", []kandra.TableOption{kandra.CacheResult(60, -1)}, []string{"CacheResult"}},
		{"invalid read consistency", []kandra.TableOption{kandra.ReadConsistency(kandra.Consistency(11))}, []string{"ReadConsistency"}},
		{"invalid write consistency", []kandra.TableOption{kandra.WriteConsistency(kandra.Consistency(0xFFFF))}, []string{"WriteConsistency"}},
	}
	if strconv.IntSize == 64 {
		big := int64(math.MaxInt32) + 1
		cases = append(cases, struct {
			name string
			opts []kandra.TableOption
			msg  []string
		}{"gc grace 2147483648", []kandra.TableOption{kandra.GCGrace(int(big))}, []string{"2147483648"}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ruleOptCurrent = c.opts
			t.Cleanup(func() { ruleOptCurrent = nil })
			expectRuleError[ruleOpt](t, kandra.RuleOptionRange, "", c.msg...)
		})
	}
	t.Run("control: the edges of every range", func(t *testing.T) {
		ts := mustRegisterOK[ruleOptEdges](t).Schema()
		if ttl, ok := ts.DefaultTTL(); !ok || ttl != kandra.MaxTTL {
			t.Errorf("DefaultTTL() = %d, %v", ttl, ok)
		}
		if gc, ok := ts.GCGraceSeconds(); !ok || gc != 0 {
			t.Errorf("GCGraceSeconds() = %d, %v", gc, ok)
		}
		if r, ok := ts.ReadConsistency(); !ok || r != kandra.ConsistencyLocalOne {
			t.Errorf("ReadConsistency() = %v, %v", r, ok)
		}
		if w, ok := ts.WriteConsistency(); !ok || w != kandra.ConsistencyAny {
			t.Errorf("WriteConsistency() = %v, %v", w, ok)
		}
	})
}

// ---------------------------------------------------------------------------
// RuleNameTaken.

type ruleTakenA struct{ ID string }

func (e *ruleTakenA) Describe(s *kandra.Schema[ruleTakenA]) {
	s.Table("kr_taken")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type ruleTakenB struct{ ID string }

func (e *ruleTakenB) Describe(s *kandra.Schema[ruleTakenB]) {
	s.Table("kr_taken")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type ruleTakenLookupTarget struct{ ID string }

func (e *ruleTakenLookupTarget) Describe(s *kandra.Schema[ruleTakenLookupTarget]) {
	s.Table("kr_taken_lk_by_email")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type ruleTakenLookup struct {
	ID    string
	Email string
}

func (e *ruleTakenLookup) Describe(s *kandra.Schema[ruleTakenLookup]) {
	s.Table("kr_taken_lk")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Email, kandra.Lookup("by_email", kandra.LookupBatch))
}

type ruleTakenLookupOwner struct {
	ID string
	X  string
}

func (e *ruleTakenLookupOwner) Describe(s *kandra.Schema[ruleTakenLookupOwner]) {
	s.Table("kr_tk2")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.X, kandra.Lookup("by_x", kandra.LookupBatch))
}

type ruleTakenLookupVictim struct{ ID string }

func (e *ruleTakenLookupVictim) Describe(s *kandra.Schema[ruleTakenLookupVictim]) {
	s.Table("kr_tk2_by_x")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type ruleTakenIdxA struct {
	ID string
	BC string
}

func (e *ruleTakenIdxA) Describe(s *kandra.Schema[ruleTakenIdxA]) {
	s.Table("kr_ti_a")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.BC, kandra.Column("b_c"), kandra.SecondaryIndex()) // kr_ti_a_b_c_idx
}

type ruleTakenIdxB struct {
	ID string
	C  string
}

func (e *ruleTakenIdxB) Describe(s *kandra.Schema[ruleTakenIdxB]) {
	s.Table("kr_ti_a_b")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.C, kandra.SecondaryIndex()) // kr_ti_a_b_c_idx
}

type ruleTakenViewIdx struct {
	ID string
	V  string
}

func (e *ruleTakenViewIdx) Describe(s *kandra.Schema[ruleTakenViewIdx]) {
	s.Table("kr_tv")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.V, kandra.SecondaryIndex()) // kr_tv_v_idx, view kr_tv_v_idx_index
}

type ruleTakenViewTable struct{ ID string }

func (e *ruleTakenViewTable) Describe(s *kandra.Schema[ruleTakenViewTable]) {
	s.Table("kr_tv_v_idx_index")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type ruleTakenViewTableFirst struct{ ID string }

func (e *ruleTakenViewTableFirst) Describe(s *kandra.Schema[ruleTakenViewTableFirst]) {
	s.Table("kr_tw_w_idx_index")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type ruleTakenViewIdxSecond struct {
	ID string
	W  string
}

func (e *ruleTakenViewIdxSecond) Describe(s *kandra.Schema[ruleTakenViewIdxSecond]) {
	s.Table("kr_tw")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.W, kandra.SecondaryIndex()) // kr_tw_w_idx, view kr_tw_w_idx_index
}

type ruleTakenViewOwn struct {
	ID string
	X  string
	Y  string
}

func (e *ruleTakenViewOwn) Describe(s *kandra.Schema[ruleTakenViewOwn]) {
	s.Table("kr_to")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.X, kandra.SecondaryIndex())                          // kr_to_x_idx
	kandra.Bind(s, &e.Y, kandra.Lookup("x_idx_index", kandra.LookupBatch)) // kr_to_x_idx_index
}

func TestRuleNameTaken(t *testing.T) {
	t.Run("two types claim one table name", func(t *testing.T) {
		mustRegisterOK[ruleTakenA](t)
		expectRuleError[ruleTakenB](t, kandra.RuleNameTaken, "", `"kr_taken"`, "ruleTakenA")
	})
	t.Run("lookup table named like another type's table", func(t *testing.T) {
		mustRegisterOK[ruleTakenLookupTarget](t)
		expectRuleError[ruleTakenLookup](t, kandra.RuleNameTaken, "Email", `"kr_taken_lk_by_email"`)
	})
	t.Run("table named like another type's lookup table", func(t *testing.T) {
		mustRegisterOK[ruleTakenLookupOwner](t)
		expectRuleError[ruleTakenLookupVictim](t, kandra.RuleNameTaken, "", `"kr_tk2_by_x"`)
	})
	t.Run("index names are unique across tables", func(t *testing.T) {
		a := mustRegisterOK[ruleTakenIdxA](t)
		if got := a.Schema().IndexName(a.Schema().ColumnByName("b_c")); got != "kr_ti_a_b_c_idx" {
			t.Fatalf("index name = %q", got)
		}
		expectRuleError[ruleTakenIdxB](t, kandra.RuleNameTaken, "C", `"kr_ti_a_b_c_idx"`)
	})
	t.Run(`table named "<index>_index" after the index`, func(t *testing.T) {
		mustRegisterOK[ruleTakenViewIdx](t)
		expectRuleError[ruleTakenViewTable](t, kandra.RuleNameTaken, "", `"kr_tv_v_idx_index"`)
	})
	t.Run(`index whose "<index>_index" is an existing table`, func(t *testing.T) {
		mustRegisterOK[ruleTakenViewTableFirst](t)
		expectRuleError[ruleTakenViewIdxSecond](t, kandra.RuleNameTaken, "W", `"kr_tw_w_idx_index"`)
	})
	t.Run(`own lookup named "<own index>_index"`, func(t *testing.T) {
		expectRuleError[ruleTakenViewOwn](t, kandra.RuleNameTaken, "X", `"kr_to_x_idx_index"`)
	})
}

// ---------------------------------------------------------------------------
// The first rule in Rules() order wins.

type ruleMultiKotlinServer struct{ ID string }

func (e *ruleMultiKotlinServer) Describe(s *kandra.Schema[ruleMultiKotlinServer]) {
	s.Table("kr-multi") // server rule: invalid name; Kotlin rule: no partition key
}

type ruleMultiDupColType struct {
	ID     string
	X      uint32
	UserID string
	UserId string //nolint:revive
}

func (e *ruleMultiDupColType) Describe(s *kandra.Schema[ruleMultiDupColType]) {
	s.Table("kr_multi_dup_col_type")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type ruleMultiCounter struct {
	ID   string
	Hits int64
	Note string
}

func (e *ruleMultiCounter) Describe(s *kandra.Schema[ruleMultiCounter]) {
	s.Table("kr_multi_counter", kandra.DefaultTTL(-5))
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Counter(s, &e.Hits)
}

type ruleMultiKeyRange struct{ ID time.Duration }

func (e *ruleMultiKeyRange) Describe(s *kandra.Schema[ruleMultiKeyRange]) {
	s.Table("kr_multi_key_range", kandra.DefaultTTL(-1))
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0), kandra.SecondaryIndex())
}

type ruleMultiConflictNoPK struct{ ID string }

func (e *ruleMultiConflictNoPK) Describe(s *kandra.Schema[ruleMultiConflictNoPK]) {
	s.Table("kr_multi_conflict")
	s.Table("kr_multi_conflict")
}

type ruleMultiTableBinding struct{ ID string }

func (e *ruleMultiTableBinding) Describe(s *kandra.Schema[ruleMultiTableBinding]) {
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &ruleGlobalID)
}

type ruleMultiVersionTimestamp struct {
	ID string
	V1 int64
	V2 int64
	C1 time.Time
	C2 time.Time
}

func (e *ruleMultiVersionTimestamp) Describe(s *kandra.Schema[ruleMultiVersionTimestamp]) {
	s.Table("kr_multi_version_timestamp")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Version(s, &e.V1)
	kandra.Version(s, &e.V2)
	kandra.CreatedAt(s, &e.C1)
	kandra.CreatedAt(s, &e.C2)
}

type ruleMultiMarkerNoPK struct {
	ID      string
	deleted bool
}

func (e *ruleMultiMarkerNoPK) Describe(s *kandra.Schema[ruleMultiMarkerNoPK]) {
	s.Table("kr_multi_marker_no_pk", kandra.SoftDelete(60, &e.deleted))
}

type ruleMultiMarkerConflict struct {
	ID      string
	deleted bool
}

func (e *ruleMultiMarkerConflict) Describe(s *kandra.Schema[ruleMultiMarkerConflict]) {
	s.Table("kr_multi_marker_conflict", kandra.SoftDelete(60, &e.deleted))
	s.Table("kr_multi_marker_conflict")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type ruleMultiNotStructTable struct {
	RuleAmbA
	RuleAmbB
}

func (e *ruleMultiNotStructTable) Describe(s *kandra.Schema[ruleMultiNotStructTable]) {}

type ruleMultiTypeBeforeKey struct {
	ID time.Duration
	X  uint32
}

func (e *ruleMultiTypeBeforeKey) Describe(s *kandra.Schema[ruleMultiTypeBeforeKey]) {
	s.Table("kr_multi_type_before_key")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type ruleMultiLookupIndex struct {
	ID string
	N  int64
}

func (e *ruleMultiLookupIndex) Describe(s *kandra.Schema[ruleMultiLookupIndex]) {
	s.Table("kr_multi_lookup_index", kandra.GCGrace(-1))
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0), kandra.SecondaryIndex(), kandra.Lookup("by_id", kandra.LookupBatch))
}

type ruleMultiDupLookupName struct {
	ID string
	A  string
	B  string
}

func (e *ruleMultiDupLookupName) Describe(s *kandra.Schema[ruleMultiDupLookupName]) {
	s.Table("kr_multi_dup_lookup_name")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.A, kandra.Lookup("by-x", kandra.LookupBatch))
	kandra.Bind(s, &e.B, kandra.Lookup("by-x", kandra.LookupBatch))
}

type ruleMultiKeyConflictDupCK struct {
	A string
	B time.Time
	C time.Time
}

func (e *ruleMultiKeyConflictDupCK) Describe(s *kandra.Schema[ruleMultiKeyConflictDupCK]) {
	s.Table("kr_multi_key_conflict")
	kandra.Bind(s, &e.A, kandra.PartitionKey(0), kandra.ClusteringKey(0, kandra.Asc))
	kandra.Bind(s, &e.B, kandra.ClusteringKey(1, kandra.Asc))
	kandra.Bind(s, &e.C, kandra.ClusteringKey(1, kandra.Asc))
}

type ruleMultiOwner struct{ ID string }

func (e *ruleMultiOwner) Describe(s *kandra.Schema[ruleMultiOwner]) {
	s.Table("kr_multi_owner")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type ruleMultiTakenRange struct{ ID string }

func (e *ruleMultiTakenRange) Describe(s *kandra.Schema[ruleMultiTakenRange]) {
	s.Table("kr_multi_owner", kandra.DefaultTTL(-1))
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

// registerErr adapts registerNoPanic to a func returning only the error.
func registerErr[T any, PT kandra.Entity[T]](t *testing.T) error {
	t.Helper()
	_, err := registerNoPanic[T, PT](t)
	return err
}

func TestFirstRuleInOrderWins(t *testing.T) {
	cases := []struct {
		name     string
		violated []kerrors.Rule // every rule the entity breaks
		register func(*testing.T) error
	}{
		{"no partition key (Kotlin) and invalid table name (server)",
			[]kerrors.Rule{kandra.RuleNoPartitionKey, kandra.RuleInvalidName}, registerErr[ruleMultiKotlinServer]},
		{"duplicate column and unsupported type",
			[]kerrors.Rule{kandra.RuleDuplicateColumn, kandra.RuleUnsupportedType}, registerErr[ruleMultiDupColType]},
		{"counter mix, counter-table TTL and TTL range",
			[]kerrors.Rule{kandra.RuleCounterMix, kandra.RuleCounterTable, kandra.RuleOptionRange}, registerErr[ruleMultiCounter]},
		{"duration key, index on sole key and TTL range",
			[]kerrors.Rule{kandra.RuleKeyType, kandra.RuleSecondaryIndex, kandra.RuleOptionRange}, registerErr[ruleMultiKeyRange]},
		{"Table twice and no partition key",
			[]kerrors.Rule{kandra.RuleConflict, kandra.RuleNoPartitionKey}, registerErr[ruleMultiConflictNoPK]},
		{"no Table and a global binding",
			[]kerrors.Rule{kandra.RuleTableMissing, kandra.RuleBinding}, registerErr[ruleMultiTableBinding]},
		{"two versions declared before two created-at timestamps",
			[]kerrors.Rule{kandra.RuleDuplicateTimestamp, kandra.RuleDuplicateVersion}, registerErr[ruleMultiVersionTimestamp]},
		{"bad soft-delete marker and no partition key",
			[]kerrors.Rule{kandra.RuleNoPartitionKey, kandra.RuleSoftDeleteMarker}, registerErr[ruleMultiMarkerNoPK]},
		{"bad soft-delete marker and Table twice",
			[]kerrors.Rule{kandra.RuleConflict, kandra.RuleSoftDeleteMarker}, registerErr[ruleMultiMarkerConflict]},
		{"ambiguous embedding and no Table",
			[]kerrors.Rule{kandra.RuleNotStruct, kandra.RuleTableMissing, kandra.RuleNoPartitionKey}, registerErr[ruleMultiNotStructTable]},
		{"unsupported type on a later field than a duration key",
			[]kerrors.Rule{kandra.RuleUnsupportedType, kandra.RuleKeyType}, registerErr[ruleMultiTypeBeforeKey]},
		{"lookup and index on the sole key, gc grace range",
			[]kerrors.Rule{kandra.RuleLookup, kandra.RuleSecondaryIndex, kandra.RuleOptionRange}, registerErr[ruleMultiLookupIndex]},
		{"duplicate lookup table with an invalid name",
			[]kerrors.Rule{kandra.RuleDuplicateLookupTable, kandra.RuleInvalidName}, registerErr[ruleMultiDupLookupName]},
		{"key conflict and duplicate clustering index",
			[]kerrors.Rule{kandra.RuleKeyConflict, kandra.RuleDuplicateClusteringIndex}, registerErr[ruleMultiKeyConflictDupCK]},
		{"TTL range and a taken table name",
			[]kerrors.Rule{kandra.RuleOptionRange, kandra.RuleNameTaken}, func(t *testing.T) error {
				mustRegisterOK[ruleMultiOwner](t)
				return registerErr[ruleMultiTakenRange](t)
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, best := kerrors.Rule(""), len(kandra.Rules())
			for _, r := range c.violated {
				if i := ruleIndex(t, r); i < best {
					want, best = r, i
				}
			}
			err := c.register(t)
			var se *kerrors.SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("error = %v (%T), want a *SchemaError with rule %q", err, err, want)
			}
			if se.Rule != want {
				t.Errorf("rule = %q, want %q, the first of %q in Rules() order (error: %v)", se.Rule, want, c.violated, err)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// A failed registration registers nothing.

type ruleClaimBad struct {
	ID    string
	Email string
}

func (e *ruleClaimBad) Describe(s *kandra.Schema[ruleClaimBad]) {
	s.Table("kr_claim")
	kandra.Bind(s, &e.Email, kandra.Lookup("by_email", kandra.LookupBatch), kandra.SecondaryIndex())
}

type ruleClaimGood struct {
	ID    string
	Email string
}

func (e *ruleClaimGood) Describe(s *kandra.Schema[ruleClaimGood]) {
	s.Table("kr_claim")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Email, kandra.Lookup("by_email", kandra.LookupBatch), kandra.SecondaryIndex())
}

// ruleClaimClash fails on its table name, which ruleClaimGood holds; its
// lookup table name and index name must not be claimed by the failure.
type ruleClaimClash struct {
	ID string
	X  string
}

func (e *ruleClaimClash) Describe(s *kandra.Schema[ruleClaimClash]) {
	s.Table("kr_claim")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.X, kandra.Lookup("by_x", kandra.LookupBatch))
}

type ruleClaimLookupName struct {
	ID string
	X  string
}

func (e *ruleClaimLookupName) Describe(s *kandra.Schema[ruleClaimLookupName]) {
	s.Table("kr_claim_by_x")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

func TestFailedRegistrationRegistersNothing(t *testing.T) {
	// Bad first: fails with no partition key; retried, it fails again (a
	// failure is not cached as a success).
	expectRuleError[ruleClaimBad](t, kandra.RuleNoPartitionKey, "")
	expectRuleError[ruleClaimBad](t, kandra.RuleNoPartitionKey, "")

	// A fixed type claims the table name, the lookup name and the index.
	good := mustRegisterOK[ruleClaimGood](t)
	if got, ok := kandra.Get[ruleClaimGood](); !ok || got != good {
		t.Fatalf("Get[ruleClaimGood] = %p, %v; want the registered table %p", got, ok, good)
	}
	count := 0
	for _, n := range registeredTableNames() {
		if n == "kr_claim" {
			count++
		}
	}
	if count != 1 {
		t.Errorf("kr_claim appears %d times in All()", count)
	}
	again := mustRegisterOK[ruleClaimGood](t)
	if again != good {
		t.Errorf("a second Register returned a different table")
	}

	// The bad type still fails on its own first rule, not on the name.
	expectRuleError[ruleClaimBad](t, kandra.RuleNoPartitionKey, "")

	// A type that fails on the taken name claims none of its other names.
	expectRuleError[ruleClaimClash](t, kandra.RuleNameTaken, "", `"kr_claim"`)
	mustRegisterOK[ruleClaimLookupName](t)
}

// ---------------------------------------------------------------------------
// Bad input never panics.

type ruleNilOptions struct {
	ID   string
	Name string
}

func (e *ruleNilOptions) Describe(s *kandra.Schema[ruleNilOptions]) {
	s.Table("kr_nil_options", nil, kandra.GCGrace(5), nil)
	kandra.Bind(s, &e.ID, nil, kandra.PartitionKey(0), nil)
	kandra.Bind(s, &e.Name)
	s.Validate(nil)
}

type ruleEmptyStruct struct{}

func (e *ruleEmptyStruct) Describe(s *kandra.Schema[ruleEmptyStruct]) {
	s.Table("kr_empty_struct")
	kandra.Bind(s, e, kandra.PartitionKey(0))
}

type ruleWholeStruct struct{ ID string }

func (e *ruleWholeStruct) Describe(s *kandra.Schema[ruleWholeStruct]) {
	s.Table("kr_whole_struct")
	kandra.Bind(s, e, kandra.PartitionKey(0))
}

type ruleOnlyUnexported struct{ id string }

func (e *ruleOnlyUnexported) Describe(s *kandra.Schema[ruleOnlyUnexported]) {
	s.Table("kr_only_unexported")
	kandra.Bind(s, &e.id, kandra.PartitionKey(0))
}

type ruleArrayElem struct {
	ID  string
	Arr [4]string
}

func (e *ruleArrayElem) Describe(s *kandra.Schema[ruleArrayElem]) {
	s.Table("kr_array_elem")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Arr[2], kandra.Sensitive())
}

type ruleEverything struct {
	ID   string
	Day  time.Time
	Hits int64
	Tags map[string]struct{}
	Del  bool
}

func (e *ruleEverything) Describe(s *kandra.Schema[ruleEverything]) {
	s.Table("kr_everything", kandra.DefaultTTL(-3), kandra.GCGrace(-3), kandra.SoftDelete(-3, &e.Del),
		kandra.CacheResult(-3, -3), kandra.ReadConsistency(kandra.Consistency(0xFFFF)))
	kandra.Bind(s, &e.ID, kandra.PartitionKey(-1), kandra.ClusteringKey(-1, kandra.ClusteringOrder(9)),
		kandra.Lookup("", kandra.LookupConsistency(9)), kandra.AsType(kandra.CQLType{}), kandra.Column("\x00"))
	kandra.Bind(s, &e.Tags, kandra.PartitionKey(-1), kandra.AsType(kandra.MapOf(kandra.CQLType{}, kandra.CQLType{})))
	kandra.Counter(s, &e.Hits, kandra.Lookup("x", kandra.LookupBatch), kandra.SecondaryIndex())
	kandra.CreatedAt(s, &e.Day, kandra.Transient())
	kandra.GeneratedUUID(s, nil, kandra.UUIDStrategy(7))
}

func TestBadInputNeverPanics(t *testing.T) {
	cases := map[string]func(*testing.T) error{
		"nil options":           registerErr[ruleNilOptions],
		"empty struct":          registerErr[ruleEmptyStruct],
		"binding the struct":    registerErr[ruleWholeStruct],
		"only unexported":       registerErr[ruleOnlyUnexported],
		"array element":         registerErr[ruleArrayElem],
		"everything at once":    registerErr[ruleEverything],
		"non-struct func":       registerErr[ruleNotStructFunc],
		"embedded pointer":      registerErr[ruleEmbeddedPtr],
		"zero AsType":           registerErr[ruleUTZeroAsType],
		"nil binding":           registerErr[ruleBindNil],
		"map of struct keys":    registerErr[ruleUT[map[RuleAddress]RuleAddress]],
		"pointer to func":       registerErr[ruleUT[*func()]],
		"pointer to interface":  registerErr[ruleUT[*any]],
		"pointer to pointer":    registerErr[ruleUT[***int]],
		"nested unsupported":    registerErr[ruleUT[[][]map[string][]uint]],
		"empty struct field":    registerErr[ruleUT[struct{}]],
		"uintptr":               registerErr[ruleUT[uintptr]],
		"map of empty structs":  registerErr[ruleUT[map[struct{}]struct{}]],
		"list of empty structs": registerErr[ruleUT[[]struct{}]],
	}
	for name, register := range cases {
		t.Run(name, func(t *testing.T) {
			err := register(t)
			if name == "nil options" {
				if err != nil {
					t.Errorf("nil options must be ignored, got %v", err)
				}
				return
			}
			var se *kerrors.SchemaError
			if !errors.As(err, &se) {
				t.Errorf("error = %v (%T), want a *SchemaError", err, err)
			}
		})
	}
	t.Run("FieldOf with bad selectors", func(t *testing.T) {
		tbl := mustRegisterOK[ruleNilOptions](t)
		selectors := map[string]func(*ruleNilOptions) *string{
			"nil":         func(*ruleNilOptions) *string { return nil },
			"global":      func(*ruleNilOptions) *string { return &ruleGlobalID },
			"other value": func(*ruleNilOptions) *string { return &new(ruleNilOptions).Name },
			"local":       func(*ruleNilOptions) *string { s := "x"; return &s },
		}
		for name, sel := range selectors {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("FieldOf(%s) panicked: %v", name, r)
					}
				}()
				if _, err := kandra.FieldOf(tbl, sel); err == nil {
					t.Errorf("FieldOf(%s) succeeded", name)
				}
			}()
		}
	})
}

// ruleRecursiveList and ruleRecursiveMap are Go types with no finite CQL
// type. Registering them must fail with an error, not recurse forever; the
// check runs in a child process because a stack overflow cannot be
// recovered.
type ruleRecursiveList []ruleRecursiveList

type ruleRecursiveMap map[string]ruleRecursiveMap

const ruleChildEnv = "KANDRA_RULES_TEST_CHILD"

func TestRegisterRecursiveTypeDoesNotCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	for _, which := range []string{"list", "map"} {
		t.Run(which, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestRecursiveTypeChild$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), ruleChildEnv+"="+which)
			out, err := cmd.CombinedOutput()
			if err != nil {
				text := string(out)
				if i := strings.Index(text, "fatal error"); i >= 0 {
					text = text[i:min(len(text), i+600)]
				}
				t.Fatalf("registering an entity with a field of a recursive %s type crashed the process "+
					"(%v):\n%s", which, err, text)
			}
			if !strings.Contains(string(out), "CHILD-OK") {
				t.Fatalf("child did not report success:\n%s", out)
			}
		})
	}
}

// TestRecursiveTypeChild is the child process of
// TestRegisterRecursiveTypeDoesNotCrash; it does nothing in a normal run.
func TestRecursiveTypeChild(t *testing.T) {
	which := os.Getenv(ruleChildEnv)
	if which == "" {
		t.Skip("only runs as a child of TestRegisterRecursiveTypeDoesNotCrash")
	}
	debug.SetMaxStack(64 << 20) // fail fast if it recurses forever
	var err error
	switch which {
	case "list":
		err = registerErr[ruleUT[ruleRecursiveList]](t)
	case "map":
		err = registerErr[ruleUT[ruleRecursiveMap]](t)
	}
	var se *kerrors.SchemaError
	if !errors.As(err, &se) || se.Rule != kandra.RuleUnsupportedType || se.Field != "X" {
		t.Fatalf("error = %v, want a [%s] SchemaError on X", err, kandra.RuleUnsupportedType)
	}
	t.Log("CHILD-OK")
}
