package kandra_test

// End-to-end Register cases for the rules that need a named type with a
// Describe method: value receivers, a panicking Describe, and "a failed
// registration is cached and registers nothing". Every other rule is
// tested table-driven through buildSchema in rules_internal_test.go. The
// helpers (registerNoPanic, mustRegisterOK, expectRuleError) are in
// helpers_test.go.

import (
	"net/netip"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/kandra-go/kandra"
)

// ruleValueRecv's value-receiver Describe used to be traced through its
// copy of the probe and registered; value receivers are now refused.
type ruleValueRecv struct {
	ID     string
	Email  string
	Visits int64
	Note   string
}

func (e ruleValueRecv) Describe(s *kandra.Schema[ruleValueRecv]) {
	s.Table("rule_value_recv")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Email, kandra.Lookup("by_email", kandra.LookupEventual), kandra.Column("mail"))
	kandra.Bind(s, &e.Note, kandra.Transient())
}

// ruleValueAmbiguous's bindings fitted several layouts (two netip.Addr
// fields), which used to be a binding error; it is refused the same way.
type ruleValueAmbiguous struct {
	From netip.Addr
	To   netip.Addr
}

func (e ruleValueAmbiguous) Describe(s *kandra.Schema[ruleValueAmbiguous]) {
	s.Table("rule_value_ambiguous")
	kandra.Bind(s, &e.To, kandra.PartitionKey(0))
}

func TestRuleDescribeValueReceiver(t *testing.T) {
	expectRuleError[ruleValueRecv](t, kandra.RuleDescribe, "", "declare it on the pointer",
		"func (e *ruleValueRecv) Describe(s *kandra.Schema[ruleValueRecv])")
	expectRuleError[ruleValueAmbiguous](t, kandra.RuleDescribe, "", "declare it on the pointer")
}

var rulePanicCalls atomic.Int32

// rulePanicsMidway binds a valid schema, then panics with a runtime error.
type rulePanicsMidway struct{ ID, Email string }

func (e *rulePanicsMidway) Describe(s *kandra.Schema[rulePanicsMidway]) {
	rulePanicCalls.Add(1)
	s.Table("rule_panics")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	var m map[string]int
	m[e.ID]++ //lint:ignore SA5000 the panic is the point: a runtime error in Describe
}

func TestRuleDescribePanic(t *testing.T) {
	first := expectRuleError[rulePanicsMidway](t, kandra.RuleDescribe, "",
		"registration panicked: assignment to entry in nil map", "Describe must only bind fields")
	second := expectRuleError[rulePanicsMidway](t, kandra.RuleDescribe, "")
	if first != second || rulePanicCalls.Load() != 1 {
		t.Errorf("errors %p, %p after %d Describe calls; want one call and one cached error", first, second, rulePanicCalls.Load())
	}
	defer func() {
		if err, _ := recover().(error); err != error(first) {
			t.Errorf("MustRegister panicked with %v, want the cached error", err)
		}
	}()
	kandra.MustRegister[rulePanicsMidway]()
}

var ruleClaimCalls atomic.Int32

// ruleClaimBad and ruleClaimGood use one table name; ruleClaimBad has no
// partition key.
type ruleClaimBad struct{ ID, Email string }

func (e *ruleClaimBad) Describe(s *kandra.Schema[ruleClaimBad]) {
	ruleClaimCalls.Add(1)
	s.Table("rule_claim")
	kandra.Bind(s, &e.Email, kandra.Lookup("by_email", kandra.LookupBatch), kandra.SecondaryIndex())
}

type ruleClaimGood struct{ ID, Email string }

func (e *ruleClaimGood) Describe(s *kandra.Schema[ruleClaimGood]) {
	s.Table("rule_claim")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Email, kandra.Lookup("by_email", kandra.LookupBatch), kandra.SecondaryIndex())
}

func TestRuleFailedRegistrationIsCachedAndRegistersNothing(t *testing.T) {
	// expectRuleError also checks that TableOf and SchemaOf report nothing.
	first := expectRuleError[ruleClaimBad](t, kandra.RuleNoPartitionKey, "", "kandra.PartitionKey(0)")

	// The failure claimed no name: a type with the same table, lookup and
	// index names registers, and only it is reported.
	good := mustRegisterOK[ruleClaimGood](t)
	if got, ok := kandra.TableOf[ruleClaimGood](); !ok || got != good {
		t.Errorf("TableOf[ruleClaimGood] = %p, %v; want %p", got, ok, good)
	}
	if ts, ok := kandra.SchemaOf(reflect.TypeFor[ruleClaimGood]()); !ok || ts != good.Schema() {
		t.Errorf("SchemaOf(ruleClaimGood) = %p, %v; want %p", ts, ok, good.Schema())
	}
	if again := mustRegisterOK[ruleClaimGood](t); again != good {
		t.Errorf("a second Register returned another table")
	}

	// The failure is cached: the same error, without running Describe again.
	second := expectRuleError[ruleClaimBad](t, kandra.RuleNoPartitionKey, "")
	if first != second || ruleClaimCalls.Load() != 1 {
		t.Errorf("errors %p, %p after %d Describe calls; want one call and one cached error", first, second, ruleClaimCalls.Load())
	}
}
