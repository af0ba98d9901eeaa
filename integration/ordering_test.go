package integration

import (
	"fmt"
	mrand "math/rand/v2"
	"sync"
	"testing"

	"github.com/gocql/gocql"
	"github.com/google/uuid"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/driver/kgocql"
)

// Tick is one entry of a stream: the clustering key is a time-ordered id
// (ascending), Seq is its generation index.
type Tick struct {
	Stream string
	ID     uuid.UUID
	Seq    int32
}

func (k *Tick) Describe(s *kandra.Schema[Tick]) {
	s.Table("ticks")
	kandra.Bind(s, &k.Stream, kandra.PartitionKey(0))
	kandra.GeneratedUUID(s, &k.ID, kandra.UUIDTimeOrdered, kandra.ClusteringKey(0, kandra.ClusteringAsc))
}

const orderingIDs = 10000

// TestOrdering: 10,000 kandra.NewTimeOrderedUUID ids, generated in order
// (many fall in the same millisecond), inserted in shuffled order as the
// ascending clustering key of one partition, read back in generation order.
func TestOrdering(t *testing.T) {
	s := session(t)
	ticks, err := kandra.Register[Tick]()
	if err != nil {
		t.Fatal(err)
	}
	ts := ticks.Schema()
	if st, ok := ts.ClusteringKeys()[0].GeneratedUUID(); !ok || st != kandra.UUIDTimeOrdered {
		t.Fatalf("the clustering key is not a time-ordered generated UUID")
	}
	k := buildKeyspace(t, "order", ticks)
	ks := k.Name()
	if err := createKeyspace(t, s, k, 1)[0]; err != nil {
		t.Fatal(err)
	}
	codec, err := kgocql.NewCodec(ts.Columns())
	if err != nil {
		t.Fatal(err)
	}

	rows := make([]Tick, orderingIDs)
	for i := range rows {
		rows[i] = Tick{Stream: "s", ID: kandra.NewTimeOrderedUUID(), Seq: int32(i)}
	}
	sameMilli := 0
	for i := 1; i < len(rows); i++ {
		if [6]byte(rows[i].ID[:6]) == [6]byte(rows[i-1].ID[:6]) { // unix_ts_ms
			sameMilli++
		}
	}
	order := mrand.Perm(len(rows))

	// Unlogged batches of one partition, four at a time.
	insert := insertStmt(ks, ts)
	const batchSize = 100
	var wg sync.WaitGroup
	errs := make(chan error, len(rows)/batchSize+1)
	sem := make(chan struct{}, 4)
	for start := 0; start < len(order); start += batchSize {
		end := min(start+batchSize, len(order))
		wg.Add(1)
		go func(idx []int) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			b := s.NewBatch(gocql.UnloggedBatch)
			buf := make([]any, 0, ts.NumColumns())
			for _, i := range idx {
				b.Query(insert, codec.BindValues(ticks.Pointers(&rows[i], buf[:0]))...)
			}
			if err := s.ExecuteBatch(b); err != nil {
				errs <- err
			}
		}(order[start:end])
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("batch insert: %v", err)
	}

	// Read the partition in clustering order.
	var got Tick
	targets, finish := codec.ScanTargets(ticks.Pointers(&got, nil))
	iter := s.Query("SELECT "+columnList(ts.Columns())+" FROM "+qualified(ks, ts.CQLName())+" WHERE "+ts.PartitionKeys()[0].CQLName()+" = ?", "s").PageSize(2000).Iter()
	n, inOrder := 0, true
	for iter.Scan(targets...) {
		if err := finish(); err != nil {
			t.Fatal(err)
		}
		if n < len(rows) && (got.ID != rows[n].ID || got.Seq != int32(n)) {
			if inOrder {
				t.Errorf("row %d of the partition is id %s (generated %d-th), want %s", n, got.ID, got.Seq, rows[n].ID)
			}
			inOrder = false
		}
		n++
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if n != len(rows) {
		inOrder = false
		t.Errorf("read %d rows, want %d", n, len(rows))
	}
	t.Logf("%d ids, %d of them in the same millisecond as the previous one", len(rows), sameMilli)
	summary("ordering", fmt.Sprintf("real-server: ordering ids=%d in-order=%t", len(rows), inOrder))
}
