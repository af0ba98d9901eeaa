package kstore_test

import (
	"context"
	"fmt"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kstore"
)

// ShardRow is one row of a shard's partition, where a workflow engine
// keeps several kinds of rows so that one conditional batch can fence
// them: the fence row (Kind 0) with the owner's range id, the state row
// (Kind 1), and task rows (Kind 2).
//
// snippet: shardrow
type ShardRow struct {
	Shard   string // partition key
	Kind    int32  // clustering: 0 the fence row, 1 the state row, 2 a task row
	ID      int64  // clustering: a task's id, 0 for the others
	RangeID int64  // the fence row's
	State   string // the state row's
	Payload string // a task row's
}

// end snippet

func (r *ShardRow) Describe(s *kandra.Schema[ShardRow]) {
	s.Table("shard_rows")
	kandra.Bind(s, &r.Shard, kandra.PartitionKey(0))
	kandra.Bind(s, &r.Kind, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &r.ID, kandra.ClusteringKey(1, kandra.ClusteringAsc))
}

var (
	ShardRows  = kandra.MustRegister[ShardRow]()
	rangeID    = kandra.MustFieldOf(ShardRows, func(r *ShardRow) *int64 { return &r.RangeID })
	shardState = kandra.MustFieldOf(ShardRows, func(r *ShardRow) *string { return &r.State })
	// Engine is the keyspace of the shard rows and the accounts.
	// Its targets leave out ScyllaDB 2025's tablets, which refuse
	// lightweight transactions.
	Engine = kandra.MustNewKeyspace(kandra.KeyspaceSpec{
		Name:        "engine",
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3}),
		Targets:     kandra.AllTargets &^ kandra.Scylla2025Tablets,
	}, ShardRows, Accounts)
)

// A unit of work sends writes of several tables as one batch: LOGGED, so
// that all of them land even if the coordinator fails midway, with the
// account's BATCH lookup row in it.
func ExampleUnit() {
	ctx := context.Background()
	rt, _ := kstore.New(printer{}, Engine)
	defer rt.Close(ctx)
	accounts := kstore.MustNewRepo(rt, Accounts)
	shards := kstore.MustNewRepo(rt, ShardRows)

	// snippet: unit
	u := rt.Unit()
	accounts.In(u).Save(&Account{Email: "ada@example.com", Name: "Ada"})
	shards.In(u).Save(&ShardRow{Shard: "s1", Kind: 2, ID: 7, Payload: "welcome mail"})
	applied, err := u.Apply(ctx) // one LOGGED BATCH: both rows and the account's email lookup row
	// end snippet
	fmt.Println(applied, err)
	// Output:
	// BEGIN BATCH
	//   INSERT INTO engine.accounts (id, email, name) VALUES (?, ?, ?)
	//   INSERT INTO engine.accounts_by_email (email, id) VALUES (?, ?)
	//   INSERT INTO engine.shard_rows (shard, kind, id, range_id, state, payload) VALUES (?, ?, ?, ?, ?, ?)
	// APPLY BATCH
	// true <nil>
}

// fenced is a driver whose conditional batches do not apply: another
// owner moved the shard's range id to 8. It returns the fence row, as
// Cassandra returns each conditioned row that exists.
type fenced struct{ printer }

func (fenced) Batch(_ context.Context, b *adapter.Batch) (bool, error) {
	dst := b.Current(0)
	for i, col := range b.CurrentOf.ResultColumns() {
		switch col.Name() {
		case "shard":
			*dst[i].(*string) = "s1"
		case "range_id":
			*dst[i].(*int64) = 8
		}
	}
	b.Returned = 1
	return false, nil
}

// A conditional unit fences the writes of one partition: the task row is
// written and the state moves only if the fence row still has the range
// id this owner holds. When it does not apply, the step of the fence row
// holds the row the server returned: here, the range id that beat it.
func ExampleUnit_conditional() {
	ctx := context.Background()
	rt, _ := kstore.New(fenced{}, Engine)
	defer rt.Close(ctx)
	shards := kstore.MustNewRepo(rt, ShardRows)

	const mine = 7
	// snippet: unitfence
	u := rt.Unit()
	fence := shards.In(u).Patch(&ShardRow{Shard: "s1", Kind: 0}, // the fence row
		kstore.Set(rangeID, mine).If(kstore.Eq(rangeID, mine)))
	shards.In(u).Patch(&ShardRow{Shard: "s1", Kind: 1}, kstore.Set(shardState, "running"))
	shards.In(u).Save(&ShardRow{Shard: "s1", Kind: 2, ID: 8, Payload: "next task"})
	applied, err := u.Apply(ctx)
	if err != nil {
		return // ErrUnknownOutcome too: a conditional unit is sent once; read before trying again
	}
	if out := fence.Outcome(); !applied && out.Exists {
		fmt.Println("fenced off: the shard's range id is", out.Current.RangeID)
	}
	// end snippet
	// Output:
	// fenced off: the shard's range id is 8
}
