package migrate

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
)

// bfUser is a table with a BATCH and an EVENTUAL lookup.
type bfUser struct {
	ID     uuid.UUID
	Email  string
	Ticket string
}

func (u *bfUser) Describe(s *kandra.Schema[bfUser]) {
	s.Table("bfusers")
	kandra.Bind(s, &u.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Email, kandra.Lookup("by_email", kandra.LookupBatch))
	kandra.Bind(s, &u.Ticket, kandra.Lookup("by_ticket", kandra.LookupEventual))
}

// bfNote is a table of another keyspace.
type bfNote struct{ ID uuid.UUID }

func (n *bfNote) Describe(s *kandra.Schema[bfNote]) {
	s.Table("bfnotes")
	kandra.Bind(s, &n.ID, kandra.PartitionKey(0))
}

var (
	bfUsers    = kandra.MustRegister[bfUser]()
	bfNotes    = kandra.MustRegister[bfNote]()
	bfKeyspace = kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "app", Targets: kandra.Cassandra5,
		Replication: kandra.SimpleStrategy(1)}, bfUsers)
)

// bfDriver serves token-range pages of fixed rows and records inserts.
type bfDriver struct {
	adapter.Driver // the migrator's calls: not made
	mu             sync.Mutex
	rows           []bfUser
	pages          [][2]int64 // the token bounds of each page asked for
	inserts        [][]any    // the values of each insert, dereferenced
	failIns        bool
}

func (d *bfDriver) Exec(ctx context.Context, q *adapter.Query) (bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.failIns {
		return false, errors.New("write timeout")
	}
	vals := make([]any, len(q.Values))
	for i, v := range q.Values {
		vals[i] = reflect.ValueOf(v).Elem().Interface()
	}
	d.inserts = append(d.inserts, vals)
	return true, nil
}

func (d *bfDriver) Query(ctx context.Context, q *adapter.Query) (adapter.Rows, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pages = append(d.pages, [2]int64{q.Values[0].(int64), q.Values[1].(int64)})
	off := 0
	if len(q.PageState) > 0 {
		off = int(q.PageState[0])
	}
	end := min(len(d.rows), off+q.PageSize)
	r := &bfRows{rows: d.rows[off:end]}
	if end < len(d.rows) {
		r.state = []byte{byte(end)}
	}
	return r, nil
}

func (d *bfDriver) Batch(context.Context, *adapter.Batch) (bool, error) {
	return false, errors.New("no batch")
}

type bfRows struct {
	rows  []bfUser
	state []byte
}

func (r *bfRows) Next(dst []any) bool {
	if len(r.rows) == 0 {
		return false
	}
	u := r.rows[0]
	r.rows = r.rows[1:]
	src := bfUsers.Pointers(&u, nil)
	for i := range dst {
		reflect.ValueOf(dst[i]).Elem().Set(reflect.ValueOf(src[i]).Elem())
	}
	return true
}

func (r *bfRows) PageState() []byte { return r.state }
func (r *bfRows) Close() error      { return nil }

func TestLookupFill(t *testing.T) {
	d := &bfDriver{}
	for i := 0; i < 7; i++ {
		u := bfUser{ID: uuid.New(), Email: "u" + string(rune('a'+i)) + "@x", Ticket: "T" + string(rune('a'+i))}
		if i == 2 || i == 5 {
			u.Email = "" // no lookup row, as Save writes none
		}
		d.rows = append(d.rows, u)
	}
	b, err := newLookupFill(d, bfKeyspace, bfKeyspace.LookupTable("bfusers_by_email"))
	if err != nil {
		t.Fatal(err)
	}
	if b.Lookup().Name() != "bfusers_by_email" {
		t.Fatal(b.Lookup().Name())
	}
	var pages []int64
	st, err := b.Fill(context.Background(), -10, 10, 3, kandra.ConsistencyQuorum, func(n int64) { pages = append(pages, n) })
	if err != nil {
		t.Fatal(err)
	}
	if st.Rows != 7 || st.Valued != 5 || len(d.inserts) != 5 || !reflect.DeepEqual(pages, []int64{3, 3, 1}) {
		t.Fatalf("stats %+v, inserts %d, pages %v", st, len(d.inserts), pages)
	}
	for _, p := range d.pages {
		if p != [2]int64{-10, 10} {
			t.Fatalf("page bounds %v", p)
		}
	}
	seen := map[string]uuid.UUID{}
	for _, v := range d.inserts {
		seen[v[0].(string)] = v[1].(uuid.UUID)
	}
	for _, u := range d.rows {
		if u.Email != "" && seen[u.Email] != u.ID {
			t.Fatalf("lookup row of %s points to %v, want %v", u.Email, seen[u.Email], u.ID)
		}
	}

	d.inserts, d.pages = nil, nil
	st, err = b.Count(context.Background(), 0, 1, 100, kandra.ConsistencyOne)
	if err != nil || st.Rows != 7 || st.Valued != 5 || len(d.inserts) != 0 || len(d.pages) != 1 {
		t.Fatalf("count: %+v, %v, %d inserts", st, err, len(d.inserts))
	}

	// A page size the protocol cannot carry is refused, not cut to 32 bits.
	for _, n := range []int{-1, maxPageSize + 1, 1<<32 + 3} {
		d.inserts, d.pages = nil, nil
		if _, err := b.Fill(context.Background(), 0, 1, n, kandra.ConsistencyOne, nil); !errors.Is(err, kerrors.ErrArgument) ||
			!strings.Contains(err.Error(), "pageSize: "+strconv.Itoa(n)+" is not in 0 (no paging) to 2147483647") || len(d.pages) != 0 {
			t.Fatalf("Fill with page size %d: %v, %d pages", n, err, len(d.pages))
		}
		if _, err := b.Count(context.Background(), 0, 1, n, kandra.ConsistencyOne); !errors.Is(err, kerrors.ErrArgument) || len(d.pages) != 0 {
			t.Fatalf("Count with page size %d: %v", n, err)
		}
	}

	d.failIns = true
	if _, err := b.Fill(context.Background(), 0, 1, 100, kandra.ConsistencyOne, nil); err == nil || !strings.Contains(err.Error(), "backfill of bfusers_by_email: insert failed") {
		t.Fatalf("err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Fill(ctx, 0, 1, 100, kandra.ConsistencyOne, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

// TestLookupFillOutsideKeyspace: a lookup table of a table that is
// not in the keyspace is refused, naming it.
func TestLookupFillOutsideKeyspace(t *testing.T) {
	other := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "app", Targets: kandra.Cassandra5,
		Replication: kandra.SimpleStrategy(1)}, bfNotes)
	_, err := newLookupFill(&bfDriver{}, other, bfKeyspace.LookupTable("bfusers_by_email"))
	var se *kandra.SchemaError
	if !errors.As(err, &se) || se.Rule != kandra.RuleNotInKeyspace || !strings.Contains(err.Error(), "lookup table bfusers_by_email is not in the keyspace") {
		t.Fatalf("err = %v", err)
	}
}
