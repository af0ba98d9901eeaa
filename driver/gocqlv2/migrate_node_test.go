package gocqlv2_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	kgocql "github.com/kandra-go/kandra/driver/gocqlv2"
	"github.com/kandra-go/kandra/migrate"
	"github.com/kandra-go/kandra/runtime"
)

type migAccountV1 struct {
	ID      uuid.UUID
	Region  string
	Handle  string
	Joined  time.Time
	Credits int64
}

func (a *migAccountV1) Describe(s *kandra.Schema[migAccountV1]) {
	s.Table("accounts")
	kandra.Bind(s, &a.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &a.Region, kandra.PartitionKey(1))
}

type migAccountV2 struct {
	ID      uuid.UUID
	Region  string
	Handle  string
	Joined  time.Time
	Credits int64
}

func (a *migAccountV2) Describe(s *kandra.Schema[migAccountV2]) {
	s.Table("accounts")
	kandra.Bind(s, &a.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &a.Region, kandra.PartitionKey(1))
	kandra.Bind(s, &a.Handle, kandra.Lookup("by_handle", kandra.LookupBatch))
}

var (
	migAccountsV1 = kandra.MustRegister[migAccountV1]()
	migAccountsV2 = kandra.MustRegister[migAccountV2]()
)

// Apply and Backfill through this adapter: a composite partition key, a
// uuid and a timestamp in every scanned row, the lookup rows written with
// the adapter's conversions.
func TestMigrateNode(t *testing.T) {
	s := session(t)
	d := kgocql.New(s)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "kandra_adapter_migrate_" + hex.EncodeToString(b)
	t.Cleanup(func() { _ = d.ExecSchema(context.Background(), "DROP KEYSPACE IF EXISTS "+name) })
	keyspace := func(src kandra.SchemaSource) *kandra.Keyspace {
		ks, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: name, Targets: kandra.Cassandra5, Replication: kandra.SimpleStrategy(1)}, src)
		if err != nil {
			t.Fatal(err)
		}
		return ks
	}
	v1, v2 := keyspace(migAccountsV1), keyspace(migAccountsV2)
	if res, err := migrate.Apply(ctx, d, v1, migrate.ApplyOptions{}); err != nil || len(res.Applied) != 1 {
		t.Fatalf("v1: %+v, %v", res, err)
	}
	rt, err := runtime.New(d, name)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rt.Close(context.Background()) }()
	accounts := runtime.MustNewRepo(rt, migAccountsV1)
	const n = 300
	joined := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := 0; i < n; i++ {
		a := &migAccountV1{ID: uuid.New(), Region: []string{"eu", "us"}[i%2], Handle: fmt.Sprintf("h%03d", i), Joined: joined, Credits: int64(i)}
		if i%3 == 0 {
			a.Handle = ""
		}
		if err := accounts.Save(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	res, err := migrate.Apply(ctx, d, v2, migrate.ApplyOptions{Approve: []string{"all"}, Backfill: migrate.BackfillOptions{Concurrency: 2, PageSize: 50}})
	if err != nil || len(res.Backfills) != 1 {
		t.Fatalf("v2: %+v, %v", res, err)
	}
	if r := res.Backfills[0]; !r.Verified || r.Rows != n || r.Valued != n*2/3 || r.LookupRows != r.Valued {
		t.Fatalf("backfill: %+v", r)
	}
	if err := migrate.Check(ctx, d, v2); err != nil {
		t.Fatal(err)
	}
	byHandle := runtime.MustLookupOf(runtime.MustNewRepo(rt, migAccountsV2), kandra.MustFieldOf(migAccountsV2, func(a *migAccountV2) *string { return &a.Handle }))
	a, err := byHandle.Find(ctx, "h007")
	if err != nil || a.Credits != 7 || !a.Joined.Equal(joined) || a.Region != "us" {
		t.Fatalf("Find h007 = %+v, %v", a, err)
	}
	if res, err := migrate.Apply(ctx, d, v2, migrate.ApplyOptions{}); err != nil || !res.Plan.Empty() || res.Record != nil {
		t.Fatalf("again: %+v, %v", res, err)
	}
	if h, err := migrate.History(ctx, d, name); err != nil || len(h) != 2 {
		t.Fatalf("history %+v, %v", h, err)
	}
}
