package kandra_test

import (
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

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
	kandra.Reset()
	t.Cleanup(kandra.Reset)
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
	s.Table("reg_b_first")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}
func (e *RegB) Describe(s *kandra.Schema[RegB]) {
	s.Table("reg_a_second")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
}

func TestGetAllReset(t *testing.T) {
	kandra.Reset()
	t.Cleanup(kandra.Reset)
	_, ok := kandra.Get[RegA]()
	require.False(t, ok)
	a := kandra.MustRegister[RegA]()
	b := kandra.MustRegister[RegB]()
	got, ok := kandra.Get[RegA]()
	require.True(t, ok)
	require.Same(t, a, got)
	ts, ok := kandra.SchemaOf(reflect.TypeFor[RegB]())
	require.True(t, ok)
	require.Same(t, b.Schema(), ts)

	all := kandra.All()
	require.Len(t, all, 2)
	assert.Equal(t, "reg_a_second", all[0].Name(), "All is ordered by table name")
	assert.Equal(t, "reg_b_first", all[1].Name())
	all[0] = nil // a copy: the registry is untouched
	assert.NotNil(t, kandra.All()[0])

	kandra.Reset()
	_, ok = kandra.Get[RegA]()
	require.False(t, ok)
	require.Empty(t, kandra.All())
}

func TestGetDoesNotAllocate(t *testing.T) {
	kandra.Reset()
	t.Cleanup(kandra.Reset)
	kandra.MustRegister[RegA]()
	allocs := testing.AllocsPerRun(1000, func() {
		if _, ok := kandra.Get[RegA](); !ok {
			t.Fatal("not registered")
		}
	})
	require.Zero(t, allocs)
}

// ValueRecv has a Describe with a value receiver; Register must accept it
// and resolve the bindings to the right fields.
type ValueRecv struct {
	Owner   uuid.UUID
	Item    uuid.UUID
	Note    string
	Comment string
}

func (v ValueRecv) Describe(s *kandra.Schema[ValueRecv]) {
	s.Table("value_recv")
	kandra.Bind(s, &v.Owner, kandra.PartitionKey(0))
	kandra.Bind(s, &v.Item, kandra.ClusteringKey(0, kandra.Desc))
	kandra.Bind(s, &v.Comment, kandra.Column("remark"))
}

func TestValueReceiverDescribe(t *testing.T) {
	kandra.Reset()
	t.Cleanup(kandra.Reset)
	tbl, err := kandra.Register[ValueRecv]()
	require.NoError(t, err)
	ts := tbl.Schema()
	require.Equal(t, "owner", ts.PartitionKeys()[0].Name())
	require.Equal(t, "item", ts.ClusteringKeys()[0].Name())
	require.Equal(t, kandra.Desc, ts.ClusteringKeys()[0].ClusteringOrder())
	require.NotNil(t, ts.ColumnByName("remark"))
	require.Equal(t, "Comment", ts.ColumnByName("remark").GoName())
	require.NotNil(t, ts.ColumnByName("note"))
}
