package kgocql_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"
	"time"

	gocql "github.com/gocql/gocql"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/kstore"
)

// sparse is a row most of whose columns are usually null, as the workflow
// engine's execution rows are: 3 set, 27 optional.
type sparse struct {
	ID                                                string
	Kind                                              string
	State                                             int32
	O1, O2, O3, O4, O5, O6, O7, O8, O9, O10, O11, O12 *string
	O13, O14, O15, O16, O17, O18, O19, O20, O21, O22  *int64
	O23, O24, O25, O26, O27                           *time.Time
}

// Describe implements kandra's description.
func (e *sparse) Describe(s *kandra.Schema[sparse]) {
	s.Table("sparse_rows", kandra.OmitNulls())
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Kind)
	kandra.Bind(s, &e.State)
	for _, p := range []**string{&e.O1, &e.O2, &e.O3, &e.O4, &e.O5, &e.O6, &e.O7, &e.O8, &e.O9, &e.O10, &e.O11, &e.O12} {
		kandra.Bind(s, p)
	}
	for _, p := range []**int64{&e.O13, &e.O14, &e.O15, &e.O16, &e.O17, &e.O18, &e.O19, &e.O20, &e.O21, &e.O22} {
		kandra.Bind(s, p)
	}
	for _, p := range []**time.Time{&e.O23, &e.O24, &e.O25, &e.O26, &e.O27} {
		kandra.Bind(s, p)
	}
}

// traceID records the id of a traced query.
type traceID struct{ id []byte }

func (t *traceID) Trace(id []byte) { t.id = id }

var tombstoneCells = regexp.MustCompile(`Read (\d+) live rows and (\d+) tombstone cells`)

// tombstonesRead reads the row of id with tracing on, and returns the
// tombstone cells the node says the read met (from its trace events,
// which it writes in the background: polled for up to 10 s).
func tombstonesRead(t *testing.T, s *gocql.Session, ks, id string) int {
	t.Helper()
	tr := &traceID{}
	if err := s.Query("SELECT * FROM "+ks+".sparse_rows WHERE id = ?", id).Trace(tr).Exec(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		it := s.Query("SELECT activity FROM system_traces.events WHERE session_id = ?", gocql.UUID(tr.id)).Iter()
		var activity string
		for it.Scan(&activity) {
			if m := tombstoneCells.FindStringSubmatch(activity); m != nil {
				_ = it.Close()
				n, _ := strconv.Atoi(m[2])
				return n
			}
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no tombstone count in the trace of the read of %s", id)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestNodeSparseSaveTombstones counts, on the node, the null cells
// (tombstones) one write of a sparse row leaves: kandra's Save on a table
// declared with kandra.OmitNulls, the hand-written INSERT of the set
// columns only, and a Save with kstore.WriteNulls (a full replace, nulls
// as null, every table's default). It prints "real-server: tombstones
// sparse-save kandra=<n> hand=<n> full-replace=<n>".
func TestNodeSparseSaveTombstones(t *testing.T) {
	s := session(t)
	ctx := context.Background()
	table := kandra.MustRegister[sparse]()
	b := make([]byte, 4)
	for i := range b {
		b[i] = byte(rand.IntN(256))
	}
	ks, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "ktomb_" + hex.EncodeToString(b),
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"datacenter1": 1}), Targets: kandra.Cassandra5}, table)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range ks.Statements() {
		if err := s.Query(st).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = s.Query("DROP KEYSPACE IF EXISTS " + ks.Name()).Exec() })
	rt, err := kstore.New(kgocql.New(s), ks)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	repo := kstore.MustNewRepo(rt, table)
	if err := repo.Save(ctx, &sparse{ID: "kandra", Kind: "k", State: 1}); err != nil {
		t.Fatal(err)
	}
	if err := repo.Save(ctx, &sparse{ID: "full", Kind: "k", State: 1}, kstore.WriteNulls()); err != nil {
		t.Fatal(err)
	}
	if err := s.Query("INSERT INTO "+ks.Name()+".sparse_rows (id, kind, state) VALUES (?, ?, ?)", "hand", "k", 1).Exec(); err != nil {
		t.Fatal(err)
	}
	kan, hand, full := tombstonesRead(t, s, ks.Name(), "kandra"), tombstonesRead(t, s, ks.Name(), "hand"), tombstonesRead(t, s, ks.Name(), "full")
	fmt.Printf("real-server: tombstones sparse-save kandra=%d hand=%d full-replace=%d\n", kan, hand, full)
	if kan != hand || hand != 0 || full != 27 {
		t.Fatalf("tombstones: Save %d, hand-written %d (want 0), WriteNulls %d (want 27, one per null column)", kan, hand, full)
	}
	// The row kandra wrote reads back as the hand-written one does.
	got, err := repo.Get(ctx, &sparse{ID: "kandra"})
	if err != nil || got.Kind != "k" || got.State != 1 || got.O1 != nil {
		t.Fatalf("the row: %+v %v", got, err)
	}
}
