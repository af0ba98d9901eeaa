package kandra_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/stretchr/testify/assert"
)

// panicTyper's CQLType panics on the zero value.
type panicTyper struct{ p *string }

func (t panicTyper) CQLType() kandra.CQLType { _ = *t.p; return kandra.CQLText }

type withPanicTyper struct {
	ID uuid.UUID
	V  panicTyper
}

func (e *withPanicTyper) Describe(s *kandra.Schema[withPanicTyper]) {
	s.Table("with_panic_typer")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

// TestPanickingCQLTyperIsAFieldError: a CQLTyper that panics on its zero
// value is reported on its field, under unsupported-type.
func TestPanickingCQLTyperIsAFieldError(t *testing.T) {
	expectRuleError[withPanicTyper](t, kandra.RuleUnsupportedType, "V", "CQLType() panicked on the zero value")
}

// doubling is MapOf(t, t) n times over: 2^(n+1)-1 types once written out,
// from n+1 shared nodes.
func doubling(n int) kandra.CQLType {
	t := kandra.CQLInt
	for i := 0; i < n; i++ {
		t = kandra.MapOf(t, t)
	}
	return t
}

type withDoubling40 struct {
	ID uuid.UUID
	M  map[int32]int32
}

func (e *withDoubling40) Describe(s *kandra.Schema[withDoubling40]) {
	s.Table("with_doubling")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.M, kandra.AsType(doubling(40)))
}

type withDoubling12 struct {
	ID uuid.UUID
	M  map[int32]int32
}

func (e *withDoubling12) Describe(s *kandra.Schema[withDoubling12]) {
	s.Table("with_doubling")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.M, kandra.AsType(doubling(12)))
}

func deepList(n int) kandra.CQLType {
	t := kandra.CQLInt
	for i := 0; i < n; i++ {
		t = kandra.ListOf(t)
	}
	return t
}

type withDeep struct {
	ID uuid.UUID
	L  [][][][][][][][][][][][][][][][][]int32 // 17 levels
}

func (e *withDeep) Describe(s *kandra.Schema[withDeep]) {
	s.Table("with_deep")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

type withDeepOverride struct {
	ID uuid.UUID
	L  []int32
}

func (e *withDeepOverride) Describe(s *kandra.Schema[withDeepOverride]) {
	s.Table("with_deep_override")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.L, kandra.AsType(deepList(2000)))
}

type withMaxDepth struct {
	ID uuid.UUID
	L  [][][][][][][][][][][][][][][][]int32 // 16 levels: the limit
}

func (e *withMaxDepth) Describe(s *kandra.Schema[withMaxDepth]) {
	s.Table("with_max_depth")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

// TestTypeSizeLimits: a type built by sharing is refused at once, without
// being written out, and nesting beyond MaxTypeDepth is refused whether it
// comes from the Go type or from AsType.
func TestTypeSizeLimits(t *testing.T) {
	// Written out, these are 2^41-1 and 2^13-1 types: finishing at all
	// shows the checks stop at the limits.
	expectRuleError[withDoubling40](t, kandra.RuleUnsupportedType, "M", "MaxTypeDepth", "too large to print")
	expectRuleError[withDoubling12](t, kandra.RuleUnsupportedType, "M", "MaxTypeNodes", "too large to print")
	expectRuleError[withDeep](t, kandra.RuleUnsupportedType, "L", "MaxTypeDepth")
	expectRuleError[withDeepOverride](t, kandra.RuleUnsupportedType, "L", "MaxTypeDepth")
	ts := mustRegisterOK[withMaxDepth](t).Schema()
	assert.Equal(t, kandra.MaxTypeDepth, depth(ts.ColumnByName("l").Type()))
}

func depth(t kandra.CQLType) int {
	if t.Kind() == kandra.KindNative {
		return 0
	}
	return 1 + depth(t.Elem())
}
