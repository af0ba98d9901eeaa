package kandra_test

import (
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var describeCalls [8]atomic.Int32

type Conc0 struct{ ID uuid.UUID }
type Conc1 struct{ ID uuid.UUID }
type Conc2 struct{ ID uuid.UUID }
type Conc3 struct{ ID uuid.UUID }

func (e *Conc0) Describe(s *kandra.Schema[Conc0]) { concDescribe(s, &e.ID, 0, "conc0") }
func (e *Conc1) Describe(s *kandra.Schema[Conc1]) { concDescribe(s, &e.ID, 1, "conc1") }
func (e *Conc2) Describe(s *kandra.Schema[Conc2]) { concDescribe(s, &e.ID, 2, "conc2") }
func (e *Conc3) Describe(s *kandra.Schema[Conc3]) { concDescribe(s, &e.ID, 3, "conc3") }

func concDescribe[T any](s *kandra.Schema[T], id *uuid.UUID, n int, table string) {
	describeCalls[n].Add(1)
	s.Table(table)
	kandra.Bind(s, id, kandra.PartitionKey(0))
}

// TestRegisterConcurrentDescribesOnce registers four types from 64
// goroutines at once: each Describe runs exactly once and every caller of a
// type gets the same *Table.
func TestRegisterConcurrentDescribesOnce(t *testing.T) {
	for i := range describeCalls {
		describeCalls[i].Store(0)
	}
	const goroutines = 64
	var (
		start sync.WaitGroup
		done  sync.WaitGroup
		got   [goroutines][4]any
	)
	start.Add(1)
	for g := 0; g < goroutines; g++ {
		done.Add(1)
		go func(g int) {
			defer done.Done()
			start.Wait()
			got[g][0] = kandra.MustRegister[Conc0]()
			got[g][1] = kandra.MustRegister[Conc1]()
			got[g][2] = kandra.MustRegister[Conc2]()
			got[g][3] = kandra.MustRegister[Conc3]()
		}(g)
	}
	start.Done()
	done.Wait()
	for i := 0; i < 4; i++ {
		assert.Equal(t, int32(1), describeCalls[i].Load(), "Describe of Conc%d", i)
		for g := 1; g < goroutines; g++ {
			require.Same(t, got[0][i], got[g][i])
		}
	}
	again, err := kandra.Register[Conc0]()
	require.NoError(t, err)
	require.Same(t, got[0][0], again)
	assert.Equal(t, int32(1), describeCalls[0].Load())
}

type RegA struct{ ID uuid.UUID }
type RegB struct{ ID uuid.UUID }

func (e *RegA) Describe(s *kandra.Schema[RegA]) {
	s.Table("reg_a")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}
func (e *RegB) Describe(s *kandra.Schema[RegB]) {
	s.Table("reg_a") // the same table name as RegA: the cache does not care
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

// TestTableOfAndSchemaOf: nothing is known of a type before Register, and
// both lookups find it after. Two types with one table name both register.
func TestTableOfAndSchemaOf(t *testing.T) {
	_, ok := kandra.TableOf[RegA]()
	require.False(t, ok)
	_, ok = kandra.SchemaOf(reflect.TypeFor[RegA]())
	require.False(t, ok)
	a := kandra.MustRegister[RegA]()
	b := kandra.MustRegister[RegB]()
	assert.Equal(t, a.Name(), b.Name())
	got, ok := kandra.TableOf[RegA]()
	require.True(t, ok)
	require.Same(t, a, got)
	ts, ok := kandra.SchemaOf(reflect.TypeFor[RegB]())
	require.True(t, ok)
	require.Same(t, b.Schema(), ts)
	_, ok = kandra.SchemaOf(nil)
	require.False(t, ok)
	_, ok = kandra.SchemaOf(reflect.TypeFor[*RegA]())
	require.False(t, ok, "SchemaOf takes the struct type, not a pointer to it")
}

func TestTableOfDoesNotAllocate(t *testing.T) {
	kandra.MustRegister[RegA]()
	allocs := testing.AllocsPerRun(1000, func() {
		if _, ok := kandra.TableOf[RegA](); !ok {
			t.Fatal("not registered")
		}
	})
	require.Zero(t, allocs)
	allocs = testing.AllocsPerRun(1000, func() {
		if _, err := kandra.Register[RegA](); err != nil {
			t.Fatal(err)
		}
	})
	require.Zero(t, allocs, "a cached Register does not allocate")
}

// ValueRecv has a Describe with a value receiver, which runs on a copy:
// Register refuses it and says how to fix it.
type ValueRecv struct {
	Owner uuid.UUID
	Note  string
}

func (v ValueRecv) Describe(s *kandra.Schema[ValueRecv]) {
	s.Table("value_recv")
	kandra.Bind(s, &v.Owner, kandra.PartitionKey(0))
}

func TestValueReceiverDescribeIsRefused(t *testing.T) {
	expectRuleError[ValueRecv](t, kandra.RuleDescribe, "", "declare it on the pointer", "func (e *ValueRecv) Describe")
}

var panicCalls atomic.Int32

// Panicky's Describe panics; Register reports it as a schema error, to
// every caller, and never runs Describe again.
type Panicky struct{ ID uuid.UUID }

func (p *Panicky) Describe(s *kandra.Schema[Panicky]) {
	panicCalls.Add(1)
	panic("boom")
}

func TestPanickingDescribe(t *testing.T) {
	const goroutines = 16
	errs := make([]error, goroutines)
	var wg sync.WaitGroup
	for g := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[g] = registerNoPanic[Panicky](t)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		var se *kandra.SchemaError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, kandra.RuleDescribe, se.Rule)
		assert.Contains(t, se.Detail, "boom")
	}
	expectRuleError[Panicky](t, kandra.RuleDescribe, "", "registration panicked: boom")
	assert.Equal(t, int32(1), panicCalls.Load(), "Describe runs once per type, also when it fails")
	assert.Panics(t, func() { kandra.MustRegister[Panicky]() })
}

var failCalls atomic.Int32

// FailsOnce has no partition key. Its failure is remembered: Describe is
// not run again by a second Register.
type FailsOnce struct{ ID uuid.UUID }

func (f *FailsOnce) Describe(s *kandra.Schema[FailsOnce]) {
	failCalls.Add(1)
	s.Table("fails_once")
}

func TestFailedRegistrationIsCached(t *testing.T) {
	first := expectRuleError[FailsOnce](t, kandra.RuleNoPartitionKey, "")
	second := expectRuleError[FailsOnce](t, kandra.RuleNoPartitionKey, "")
	assert.Same(t, first, second)
	assert.Equal(t, int32(1), failCalls.Load())
}

// SelfRegistering registers its own type inside Describe; CycleA and
// CycleB register each other. Both would wait for themselves forever.
type SelfRegistering struct{ ID uuid.UUID }

func (e *SelfRegistering) Describe(s *kandra.Schema[SelfRegistering]) {
	s.Table("self_registering")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.MustRegister[SelfRegistering]()
}

type CycleA struct{ ID uuid.UUID }
type CycleB struct{ ID uuid.UUID }

func (e *CycleA) Describe(s *kandra.Schema[CycleA]) {
	s.Table("cycle_a")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.MustRegister[CycleB]()
}

func (e *CycleB) Describe(s *kandra.Schema[CycleB]) {
	s.Table("cycle_b")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.MustRegister[CycleA]()
}

// TestRegisterInsideDescribeFails: a Describe that registers its own type,
// directly or through a cycle, fails with RuleDescribe instead of blocking.
// The timeout turns a regression (a deadlock) into a failure.
func TestRegisterInsideDescribeFails(t *testing.T) {
	done := make(chan [2]error, 1)
	go func() {
		_, self := kandra.Register[SelfRegistering]()
		_, cycle := kandra.Register[CycleA]()
		done <- [2]error{self, cycle}
	}()
	select {
	case errs := <-done:
		for i, err := range errs {
			var se *kandra.SchemaError
			require.ErrorAs(t, err, &se, "case %d", i)
			assert.Equal(t, kandra.RuleDescribe, se.Rule)
			assert.Contains(t, se.Detail, "already under way in this goroutine")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Register inside Describe blocked")
	}
}
