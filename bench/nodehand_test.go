package bench

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	gocqlv2 "github.com/apache/cassandra-gocql-driver/v2"
	gocql "github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/catalog"
)

// The hand-written contender of TestRealServerThroughput: Save, Get,
// Update and a partial write (Patch) of Event as a programmer writes them
// on a driver, with kandra's CQL. The logic is written once
// (nodeHandCode), on handDriver, the few calls that differ between the
// two drivers.

// nodeCQL is Event's statements, as kandra renders them.
type nodeCQL struct {
	insert, get, update string
	patch               string // the partial write of the title, as Repo.Patch with Upsert sends it
	byID, byIDAt        string // the BATCH lookup's insert, and at a timestamp
	byEmailAt           string // the EVENTUAL lookup's insert at a timestamp
	byEmailDelAt        string // and its delete at one
}

func newNodeCQL(st *catalog.Table) nodeCQL {
	c := nodeCQL{insert: st.Insert(0).CQL(), get: st.SelectByKey().CQL()}
	for _, col := range st.Schema().Columns() {
		if col.Name() == "email" { // the update rounds change the email only: the statement sets it
			c.update = st.UpdateColumns([]*kandra.ColumnSchema{col}, catalog.UsingTimestamp, false, nil).CQL()
		}
		if col.Name() == "title" { // the patch rounds: kstore.Set(title, v) with Upsert, no USING
			c.patch = st.Patch(&catalog.PatchSpec{Sets: []catalog.Set{{Col: col, Op: catalog.Assign}}}, nil).CQL()
		}
	}
	for i := 0; i < st.NumLookups(); i++ {
		switch l := st.Lookup(i); l.Insert().Param(0).Column.Name() {
		case "event_id":
			c.byID, c.byIDAt = l.Insert().CQL(), l.InsertAt().CQL()
		case "email":
			c.byEmailAt, c.byEmailDelAt = l.InsertAt().CQL(), l.DeleteAt().CQL()
		}
	}
	return c
}

// nodeHand is the hand-written contender's calls.
type nodeHand interface {
	save(ctx context.Context, e *Event) error
	get(ctx context.Context, key *Event) (*Event, error)
	update(ctx context.Context, old, nw *Event) error
	patch(ctx context.Context, key *Event, title string) error
	wait() error // for the EVENTUAL writes in flight, and their first failure
}

// handDriver is what the hand-written code calls on a driver, at
// LOCAL_QUORUM: a statement, a LOGGED BATCH (each entry its CQL, then its
// values), a one-row read scanned into dest, and the driver's UUID type.
type handDriver interface {
	exec(ctx context.Context, cql string, args ...any) error
	batch(ctx context.Context, entries ...[]any) error
	scan(ctx context.Context, cql string, args []any, dest ...any) error
	uuid(u uuid.UUID) any
	uuidTarget() (target any, get func() uuid.UUID)
}

// nodeHandCode is Save as the store does it (the row and its BATCH
// lookup in one LOGGED BATCH, then the EVENTUAL lookup on a goroutine, at
// most 16 at a time, so that both keep the same number of statements in
// flight), Get, and Update with a move of the EVENTUAL lookup (the row
// and the BATCH lookup's row again at one timestamp, in one LOGGED BATCH;
// then the EVENTUAL row of the old email deleted and the new one written
// at that timestamp, on a goroutine), and the partial write of the title
// (one plain UPDATE).
type nodeHandCode struct {
	s   handDriver
	c   nodeCQL
	sem chan struct{}
	wg  sync.WaitGroup
	mu  sync.Mutex
	err error
}

func newNodeHand(s handDriver, c nodeCQL) *nodeHandCode {
	return &nodeHandCode{s: s, c: c, sem: make(chan struct{}, 16)}
}

func (h *nodeHandCode) save(ctx context.Context, e *Event) error {
	tid, eid := h.s.uuid(e.TenantID), h.s.uuid(e.EventID)
	if err := h.s.batch(ctx,
		[]any{h.c.insert, tid, e.Day, e.OccurredAt, eid, e.Email, e.Kind, e.Title, e.Priority, e.Score, e.Done, e.Tags, e.Payload},
		[]any{h.c.byID, eid, tid, e.Day, e.OccurredAt}); err != nil {
		return err
	}
	if e.Email == "" {
		return nil
	}
	email, day, at, ts := e.Email, e.Day, e.OccurredAt, time.Now().UnixMicro()
	h.async(func() error { return h.s.exec(ctx, h.c.byEmailAt, email, tid, day, at, ts) })
	return nil
}

func (h *nodeHandCode) get(ctx context.Context, key *Event) (*Event, error) {
	e := new(Event)
	tid, tidOf := h.s.uuidTarget()
	eid, eidOf := h.s.uuidTarget()
	if err := h.s.scan(ctx, h.c.get, []any{h.s.uuid(key.TenantID), key.Day, key.OccurredAt},
		tid, &e.Day, &e.OccurredAt, eid, &e.Email, &e.Kind, &e.Title, &e.Priority, &e.Score, &e.Done, &e.Tags, &e.Payload); err != nil {
		return nil, err
	}
	e.TenantID, e.EventID = tidOf(), eidOf()
	return e, nil
}

func (h *nodeHandCode) update(ctx context.Context, old, nw *Event) error {
	ts := time.Now().UnixMicro()
	tid := h.s.uuid(nw.TenantID)
	// The rounds move the email only: the careful statement sets that
	// column (as kandra's Update, which writes what changed), and the
	// BATCH lookup's value (the event id) did not move, so its row is not
	// written again.
	if err := h.s.exec(ctx, h.c.update, ts, nw.Email, tid, nw.Day, nw.OccurredAt); err != nil {
		return err
	}
	oldEmail, email, day, at := old.Email, nw.Email, nw.Day, nw.OccurredAt
	h.async(func() error {
		if oldEmail != email && oldEmail != "" {
			if err := h.s.exec(ctx, h.c.byEmailDelAt, ts, oldEmail, tid, day, at); err != nil {
				return err
			}
		}
		if email == "" {
			return nil
		}
		return h.s.exec(ctx, h.c.byEmailAt, email, tid, day, at, ts)
	})
	return nil
}

// patch is the partial write of one column: UPDATE ... SET title = ?
// WHERE <key> = ?, with no USING (the title has no lookup, so it is a
// plain write; kandra's Patch with Upsert sends the same statement).
func (h *nodeHandCode) patch(ctx context.Context, key *Event, title string) error {
	return h.s.exec(ctx, h.c.patch, title, h.s.uuid(key.TenantID), key.Day, key.OccurredAt)
}

// async runs write on a goroutine, at most 16 at once, retrying a server
// timeout up to 3 times; wait reports the first failure.
func (h *nodeHandCode) async(write func() error) {
	h.sem <- struct{}{}
	h.wg.Add(1)
	go func() {
		defer func() { <-h.sem; h.wg.Done() }()
		err := write()
		for try := 0; try < 3 && err != nil && serverTimeout(err); try++ {
			err = write()
		}
		if err != nil {
			h.mu.Lock()
			if h.err == nil {
				h.err = err
			}
			h.mu.Unlock()
		}
	}()
}

func (h *nodeHandCode) wait() error {
	h.wg.Wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// gocqlNode is handDriver on gocql v1.7.0.
type gocqlNode struct{ s *gocql.Session }

func newGocqlHand(s *gocql.Session, c nodeCQL) nodeHand { return newNodeHand(gocqlNode{s}, c) }

func (g gocqlNode) exec(ctx context.Context, cql string, args ...any) error {
	return g.s.Query(cql, args...).WithContext(ctx).Consistency(gocql.LocalQuorum).Exec()
}

func (g gocqlNode) batch(ctx context.Context, entries ...[]any) error {
	b := g.s.NewBatch(gocql.LoggedBatch).WithContext(ctx)
	b.Cons = gocql.LocalQuorum
	for _, e := range entries {
		b.Query(e[0].(string), e[1:]...)
	}
	return g.s.ExecuteBatch(b)
}

func (g gocqlNode) scan(ctx context.Context, cql string, args []any, dest ...any) error {
	return g.s.Query(cql, args...).WithContext(ctx).Consistency(gocql.LocalQuorum).Scan(dest...)
}

func (gocqlNode) uuid(u uuid.UUID) any { return gocql.UUID(u) }

func (gocqlNode) uuidTarget() (any, func() uuid.UUID) {
	u := new(gocql.UUID)
	return u, func() uuid.UUID { return uuid.UUID(*u) }
}

// v2Node is handDriver on the Apache driver v2.
type v2Node struct{ s *gocqlv2.Session }

func newV2Hand(s *gocqlv2.Session, c nodeCQL) nodeHand { return newNodeHand(v2Node{s}, c) }

func (g v2Node) exec(ctx context.Context, cql string, args ...any) error {
	return g.s.Query(cql, args...).Consistency(gocqlv2.LocalQuorum).ExecContext(ctx)
}

func (g v2Node) batch(ctx context.Context, entries ...[]any) error {
	b := g.s.Batch(gocqlv2.LoggedBatch).Consistency(gocqlv2.LocalQuorum)
	for _, e := range entries {
		b.Query(e[0].(string), e[1:]...)
	}
	return b.ExecContext(ctx)
}

func (g v2Node) scan(ctx context.Context, cql string, args []any, dest ...any) error {
	return g.s.Query(cql, args...).Consistency(gocqlv2.LocalQuorum).ScanContext(ctx, dest...)
}

func (v2Node) uuid(u uuid.UUID) any { return gocqlv2.UUID(u) }

func (v2Node) uuidTarget() (any, func() uuid.UUID) {
	u := new(gocqlv2.UUID)
	return u, func() uuid.UUID { return uuid.UUID(*u) }
}

// nodeSessionV2 connects with the Apache driver v2 as driver/kgocqlv2's
// node test does; nodeSession has already skipped when there is no node.
func nodeSessionV2(t *testing.T) *gocqlv2.Session {
	t.Helper()
	cl := gocqlv2.NewCluster(envOr("KANDRA_CASSANDRA_HOST", "127.0.0.1"))
	var err error
	if cl.Port, err = strconv.Atoi(envOr("KANDRA_CASSANDRA_PORT", "9042")); err != nil {
		t.Fatal(err)
	}
	cl.ProtoVersion = 5
	cl.DisableInitialHostLookup = true
	cl.Consistency = gocqlv2.LocalQuorum
	cl.Timeout, cl.ConnectTimeout, cl.WriteTimeout = 15*time.Second, 15*time.Second, 15*time.Second
	cl.NumConns = 2
	cl.Logger = gocqlv2.NewLogger(gocqlv2.LogLevelNone)
	s, err := cl.CreateSession()
	if err != nil {
		t.Fatalf("real-server test cannot run: the Apache driver v2's session: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}
