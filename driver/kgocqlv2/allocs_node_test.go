package kgocqlv2_test

import (
	"context"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/kandra-go/kandra/adapter/adaptertest"
)

// TestNodeAllocations runs adaptertest.RunAllocations: kandra's calls
// through this adapter against the same statements written by hand on the
// driver's session, on the node.
func TestNodeAllocations(t *testing.T) {
	s := session(t)
	adaptertest.RunAllocations(t, node(s), adaptertest.HandWritten{
		Insert: func(ctx context.Context, cql string, e *adaptertest.AllocRow) error {
			return s.Query(cql, gocql.UUID(e.Part), e.Seq, e.F0, e.F1, e.F2, e.F3, gocql.UUID(e.F4)).ExecContext(ctx)
		},
		InsertTTL: func(ctx context.Context, cql string, e *adaptertest.AllocRow, ttl int) error {
			return s.Query(cql, gocql.UUID(e.Part), e.Seq, e.F0, e.F1, e.F2, e.F3, gocql.UUID(e.F4), ttl).ExecContext(ctx)
		},
		Select: func(ctx context.Context, cql string, key *adaptertest.AllocRow) error {
			var g adaptertest.AllocRow
			var part, f4 gocql.UUID
			return s.Query(cql, gocql.UUID(key.Part), key.Seq).ScanContext(ctx, &part, &g.Seq, &g.F0, &g.F1, &g.F2, &g.F3, &f4)
		},
		Delete: func(ctx context.Context, cql string, key *adaptertest.AllocRow) error {
			return s.Query(cql, gocql.UUID(key.Part), key.Seq).ExecContext(ctx)
		},
	})
}
