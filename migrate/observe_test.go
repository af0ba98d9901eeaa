package migrate

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kandra-go/kandra"
)

type obsRecorder struct {
	mu   sync.Mutex
	seen []kandra.Observation
	open int
}

func (r *obsRecorder) Start(ctx context.Context, o *kandra.Observation) context.Context {
	r.mu.Lock()
	r.open++
	r.mu.Unlock()
	return ctx
}

func (r *obsRecorder) End(_ context.Context, o *kandra.Observation) {
	r.mu.Lock()
	r.open--
	r.seen = append(r.seen, *o)
	r.mu.Unlock()
}

// TestApplyObserved: an Apply with an Observer shows it every schema
// change (SchemaStatement, with its CQL), the lease's lightweight transactions
// (conditional, applied), the failed probes for ScyllaDB as errors, and
// nothing but operation migrate; the statements are the driver's.
func TestApplyObserved(t *testing.T) {
	ks := applyKS(t, applyUsersV1)
	f := newFake(nil, ks)
	rec := &obsRecorder{}
	if _, err := Apply(context.Background(), f, ks, ApplyOptions{Owner: "me", Observer: rec}); err != nil {
		t.Fatal(err)
	}
	var schema []string
	lwt := 0
	for _, o := range rec.seen {
		probe := strings.Contains(o.Statement, "scylla") // Cassandra refuses the ScyllaDB probes: an error, and observed as one
		if o.Operation != kandra.OpMigrate || o.Keyspace != "app" || o.Attempt != 1 || (o.Err != nil) != probe || o.Duration < 0 {
			t.Errorf("observation %+v", o)
		}
		if !slices.Contains(kandra.Operations(), o.Operation) {
			t.Errorf("operation %q is not in kandra.Operations", o.Operation)
		}
		if o.Kind == kandra.SchemaStatement && strings.HasPrefix(o.Statement, "CREATE") {
			schema = append(schema, o.Statement)
		}
		if o.Conditional && o.Applied {
			lwt++
		}
	}
	if !slices.Equal(schema, f.schema) {
		t.Errorf("observed schema changes\n%s\nthe driver ran\n%s", strings.Join(schema, "\n"), strings.Join(f.schema, "\n"))
	}
	if lwt == 0 || rec.open != 0 {
		t.Errorf("%d applied lightweight transactions observed (the lease's), %d left open", lwt, rec.open)
	}
}
