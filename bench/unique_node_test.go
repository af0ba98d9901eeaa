package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/kstore"
)

// What a unique claim costs a Save, on the node: the same user with its
// email as a non-unique BATCH lookup (one LOGGED BATCH: the row and the
// lookup row) and as a LookupUnique (a lightweight transaction claiming
// the email, then the row). On request: KANDRA_BENCH_UNIQUE=1.

type batchEmailUser struct {
	ID    uuid.UUID
	Email string
	Name  string
}

func (u *batchEmailUser) Describe(s *kandra.Schema[batchEmailUser]) {
	s.Table("bench_batch_users")
	kandra.Bind(s, &u.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Email, kandra.Lookup("by_email", kandra.LookupBatch))
	kandra.Bind(s, &u.Name)
}

type uniqueEmailUser struct {
	ID    uuid.UUID
	Email string
	Name  string
}

func (u *uniqueEmailUser) Describe(s *kandra.Schema[uniqueEmailUser]) {
	s.Table("bench_unique_users")
	kandra.Bind(s, &u.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Email, kandra.Lookup("by_email", kandra.LookupUnique))
	kandra.Bind(s, &u.Name)
}

// TestUniqueClaimCost prints, for interleaved rounds of each kind:
//
//	real-server: unique-claim save-throughput batch=<ops/s> unique=<ops/s> ratio=<median unique/batch> [<min>, <max>]
//	real-server: unique-claim save-latency batch p50=<> p99=<> unique p50=<> p99=<>
//
// Throughput: 16 goroutines, 8 pairs of rounds (KANDRA_BENCH_ROUND each,
// default 500ms), alternating which kind goes first. Latency: one
// goroutine, 8 pairs of blocks of 200 Saves. Every Save writes a new user
// with a new email, so no claim is ever refused.
func TestUniqueClaimCost(t *testing.T) {
	if os.Getenv("KANDRA_BENCH_UNIQUE") != "1" {
		t.Skip("on request: KANDRA_BENCH_UNIQUE=1")
	}
	s := nodeSession(t)
	ctx := context.Background()
	batchT, uniqueT := kandra.MustRegister[batchEmailUser](), kandra.MustRegister[uniqueEmailUser]()
	var rb [4]byte
	_, _ = rand.Read(rb[:])
	ks := "kbench_unique_" + hex.EncodeToString(rb[:])
	k, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: ks, Replication: kandra.SimpleStrategy(1), Targets: kandra.Cassandra5}, batchT, uniqueT)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range k.Statements() {
		if err := s.Query(st).WithContext(ctx).Exec(); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	t.Cleanup(func() { _ = s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })
	rt, err := kstore.New(kgocql.New(s), k, kstore.WithConsistency(kandra.ConsistencyLocalQuorum))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rt.Close(ctx) }()
	batchRepo, uniqueRepo := kstore.MustNewRepo(rt, batchT), kstore.MustNewRepo(rt, uniqueT)
	var seq atomic.Int64
	email := func() string { return fmt.Sprintf("u%d-%s@x.io", seq.Add(1), hex.EncodeToString(rb[:])) }
	saveBatch := func(int, int) error {
		return batchRepo.Save(ctx, &batchEmailUser{ID: uuid.New(), Email: email(), Name: "n"})
	}
	saveUnique := func(int, int) error {
		return uniqueRepo.Save(ctx, &uniqueEmailUser{ID: uuid.New(), Email: email(), Name: "n"})
	}
	noFinish := func() error { return nil }
	d := roundTime(t)
	var timeouts atomic.Int64
	round(t, d, nodeWorkers, &timeouts, saveBatch, noFinish) // warm-up
	round(t, d, nodeWorkers, &timeouts, saveUnique, noFinish)
	var bs, us, ratios []float64
	for p := 0; p < 8; p++ {
		var b, u float64
		if p%2 == 0 {
			b, u = round(t, d, nodeWorkers, &timeouts, saveBatch, noFinish).rate, round(t, d, nodeWorkers, &timeouts, saveUnique, noFinish).rate
		} else {
			u, b = round(t, d, nodeWorkers, &timeouts, saveUnique, noFinish).rate, round(t, d, nodeWorkers, &timeouts, saveBatch, noFinish).rate
		}
		bs, us, ratios = append(bs, b), append(us, u), append(ratios, u/b)
	}
	slices.Sort(bs)
	slices.Sort(us)
	slices.Sort(ratios)
	fmt.Printf("real-server: unique-claim save-throughput batch=%.0f unique=%.0f ratio=%.2f [%.2f, %.2f] timeouts=%d\n",
		quantile(bs, 0.5), quantile(us, 0.5), quantile(ratios, 0.5), ratios[0], ratios[len(ratios)-1], timeouts.Load())

	block := func(save func(int, int) error, into *[]float64) {
		for i := 0; i < 200; i++ {
			start := time.Now()
			if err := save(0, i); err != nil {
				t.Fatal(err)
			}
			*into = append(*into, float64(time.Since(start).Microseconds()))
		}
	}
	var bl, ul []float64
	for p := 0; p < 8; p++ {
		if p%2 == 0 {
			block(saveBatch, &bl)
			block(saveUnique, &ul)
		} else {
			block(saveUnique, &ul)
			block(saveBatch, &bl)
		}
	}
	slices.Sort(bl)
	slices.Sort(ul)
	fmt.Printf("real-server: unique-claim save-latency batch p50=%.0fµs p99=%.0fµs unique p50=%.0fµs p99=%.0fµs\n",
		quantile(bl, 0.5), quantile(bl, 0.99), quantile(ul, 0.5), quantile(ul, 0.99))
}
