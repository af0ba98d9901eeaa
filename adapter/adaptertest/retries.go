package adaptertest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
)

// Retries on the node: a write that must not be sent
// twice (a lightweight transaction, a counter update) is sent once
// whatever the session's retry policy, and an answer lost after the node
// applied it is an unknown outcome (kerrors.ErrUnknownOutcome), never a
// conflict, never "not written", and the unique values it claimed stay
// claimed.

const (
	// RetryTimeout is the client timeout (ClusterConfig.Timeout) of the
	// session RunRetries writes through.
	RetryTimeout = time.Second
	// retryHold is how long the proxy holds the node's answers, from just
	// before the statement under test is sent: the first attempt times out
	// after the node applied it, and a retry sent in the last second of
	// the hold (the third attempt, sent at 2 s) gets the node's answer to
	// it, "not applied" (or a second increment), when the hold ends. Half
	// a timeout of margin on each side.
	retryHold = 2500 * time.Millisecond
	// maxHold bounds a Hold, so that a proxy left holding stops by itself.
	maxHold = 10 * time.Second
)

// Proxy is a TCP proxy on loopback in front of a node, for a session whose
// answers a test delays: Hold keeps the answers the node sends for a
// while, so that the client's timeout expires on statements the node has
// applied. Make one with StartProxy; t's cleanup closes it.
//
// The answers of the first connection are never held: it is the
// session's control connection (both gocql drivers open it first), whose
// heartbeat, timed out, makes the driver reconnect it and drop the node
// from the pool for a while, which is not the case under test.
type Proxy struct {
	ln     net.Listener
	target string
	until  atomic.Int64 // UnixNano until which answers are held
	held   atomic.Int64 // reads from the node that were held
	done   chan struct{}
	once   sync.Once
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

// StartProxy listens on a free port of 127.0.0.1 and forwards each
// connection to target (host:port), until t's cleanup closes it.
func StartProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("proxy: %v", err)
	}
	p := &Proxy{ln: ln, target: target, done: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.Close)
	return p
}

// Port is the port the proxy listens on, on 127.0.0.1.
func (p *Proxy) Port() int { return p.ln.Addr().(*net.TCPAddr).Port }

// Hold keeps every answer the node sends from now for d (at most 10 s):
// they reach the client, in order, once d has passed.
func (p *Proxy) Hold(d time.Duration) {
	if d <= 0 || d > maxHold {
		panic("adaptertest: Proxy.Hold: " + d.String() + " is not in (0, " + maxHold.String() + "]")
	}
	p.until.Store(time.Now().Add(d).UnixNano())
}

// Held is the number of reads from the node the proxy has held so far.
func (p *Proxy) Held() int64 { return p.held.Load() }

// released waits until the hold is over and the answers it kept had time
// to reach the client.
func (p *Proxy) released() {
	if wait := time.Until(time.Unix(0, p.until.Load())); wait > 0 {
		time.Sleep(wait)
	}
	time.Sleep(200 * time.Millisecond)
}

// Close stops the proxy and closes its connections.
func (p *Proxy) Close() {
	p.once.Do(func() {
		close(p.done)
		_ = p.ln.Close()
		p.mu.Lock()
		for c := range p.conns {
			_ = c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
}

// track records c for Close; false when the proxy is closed (c is closed).
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.done:
		_ = c.Close()
		return false
	default:
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	accepted := 0
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		node, err := net.DialTimeout("tcp", p.target, 5*time.Second)
		if err != nil {
			_ = client.Close()
			continue
		}
		if !p.track(client) || !p.track(node) {
			_ = client.Close()
			_ = node.Close()
			return
		}
		holdable := accepted > 0
		accepted++
		p.wg.Add(2)
		go func() { // requests pass as they come
			defer p.wg.Done()
			_, _ = io.Copy(node, client)
			_ = node.Close()
			_ = client.Close()
		}()
		go func() {
			defer p.wg.Done()
			p.answers(client, node, holdable)
			_ = node.Close()
			_ = client.Close()
		}()
	}
}

// answers forwards the node's bytes to the client; when holdable, each
// read is held until the hold in force when it arrived is over.
func (p *Proxy) answers(client, node net.Conn, holdable bool) {
	buf := make([]byte, 64<<10)
	for {
		n, err := node.Read(buf)
		if n > 0 {
			if wait := time.Until(time.Unix(0, p.until.Load())); holdable && wait > 0 {
				p.held.Add(1)
				timer := time.NewTimer(wait)
				select {
				case <-timer.C:
				case <-p.done:
					timer.Stop()
					return
				}
			}
			if _, err := client.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// RetryNode is what RunRetries needs of an adapter: its driver on a
// session through a Proxy, with a retry policy, and a direct session for
// the fixtures and for reading what the node holds.
type RetryNode struct {
	// Name goes into the keyspace name and the summary line ("gocql",
	// "gocqlv2").
	Name string
	// Proxy is the proxy in front of the node that Driver's session
	// connects through.
	Proxy *Proxy
	// Driver is the adapter under test on a session through Proxy, with
	// ClusterConfig.Timeout = RetryTimeout and a RetryPolicy that retries
	// a failed statement 3 times on the same host (the stock
	// SimpleRetryPolicy retries on the next host, which one node does not
	// have; on a cluster it is another coordinator, to the same effect),
	// and on the v2 driver ClusterConfig.DefaultIdempotence = true.
	Driver adapter.Driver
	// Direct is the adapter on a session to the node itself.
	Direct adapter.Driver
	// Exec and Scan run raw CQL on a direct session, as Node's do.
	Exec func(ctx context.Context, cql string, args ...any) error
	Scan func(ctx context.Context, cql string, args []any, dest ...any) error
}

// holdingDriver starts the proxy's hold just before it sends the armed
// statement: the next Exec of a statement of table (a conditional one
// only, with cond).
type holdingDriver struct {
	adapter.Driver
	p     *Proxy
	mu    sync.Mutex
	table string // "" = not armed
	cond  bool
}

func (d *holdingDriver) arm(table string, cond bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.table, d.cond = table, cond
}

// Exec implements adapter.Driver.
func (d *holdingDriver) Exec(ctx context.Context, q *adapter.Query) (bool, error) {
	d.mu.Lock()
	if d.table != "" && q.Statement.TableName() == d.table && (!d.cond || q.Statement.IsConditional()) {
		d.table = ""
		d.p.Hold(retryHold)
	}
	d.mu.Unlock()
	return d.Driver.Exec(ctx, q)
}

// Batch implements adapter.Driver, as Exec: a batch holding a statement
// of the armed table.
func (d *holdingDriver) Batch(ctx context.Context, b *adapter.Batch) (bool, error) {
	d.mu.Lock()
	for _, q := range b.Entries {
		if d.table != "" && q.Statement.TableName() == d.table && (!d.cond || q.Statement.IsConditional()) {
			d.table = ""
			d.p.Hold(retryHold)
		}
	}
	d.mu.Unlock()
	return d.Driver.Batch(ctx, b)
}

// retryCounts are what RunRetries measures: each must stay 0.
type retryCounts struct {
	lwt, counters int
	// falseConflicts are conditional writes the node applied that the
	// call reported as a conflict or as not written.
	falseConflicts int
	// doubleCounts are the increments applied beyond the one asked for.
	doubleCounts int64
	// doubleHeld are unique values another entity could take while the
	// entity whose write applied holds them.
	doubleHeld int
}

// RunRetries runs, on its own keyspace, each kind of write that must not
// be sent twice with the node's answer held past the client timeout: a
// versioned Update, a SaveIfNotExists with unique lookups, an Increment, a
// conditional unit of work.
// It reads what the node holds through the direct session, counts the
// breaches, prints "real-server: retries adapter=<Name> lwt=<n>
// counters=<n> false-conflicts=<n> double-counts=<n> double-held=<n>" and
// fails unless every count of breaches is 0. Each call must return an
// error matching kerrors.ErrUnknownOutcome.
func RunRetries(t *testing.T, n RetryNode) {
	register()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	k, err := kandra.NewKeyspace(kandra.KeyspaceSpec{
		Name:        "krr_" + n.Name + "_" + hex.EncodeToString(b),
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"datacenter1": 1}),
		Targets:     kandra.Cassandra5,
	}, walletsTable, membersTable, hitsTable, cardsTable)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range k.Statements() {
		if err := n.Exec(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	t.Cleanup(func() { _ = n.Exec(ctx, "DROP KEYSPACE IF EXISTS "+k.Name()) })
	hd := &holdingDriver{Driver: n.Driver, p: n.Proxy}
	through, err := kstore.New(hd, k)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = through.Close(context.Background()) })
	direct, err := kstore.New(n.Direct, k)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = direct.Close(context.Background()) })
	r := &retries{n: n, ks: k.Name(), hd: hd, through: through, direct: direct}
	t.Run("VersionedUpdate", r.versionedUpdate)
	t.Run("SaveIfNotExistsUnique", r.saveIfNotExists)
	t.Run("Increment", r.increment)
	t.Run("ConditionalUnit", r.conditionalUnit)
	c := r.counts
	fmt.Printf("real-server: retries adapter=%s lwt=%d counters=%d false-conflicts=%d double-counts=%d double-held=%d\n",
		n.Name, c.lwt, c.counters, c.falseConflicts, c.doubleCounts, c.doubleHeld)
	if c.falseConflicts != 0 || c.doubleCounts != 0 || c.doubleHeld != 0 {
		t.Errorf("a write whose answer was lost was sent again or misreported: false-conflicts=%d double-counts=%d double-held=%d",
			c.falseConflicts, c.doubleCounts, c.doubleHeld)
	}
}

type retries struct {
	n               RetryNode
	ks              string
	hd              *holdingDriver
	through, direct *kstore.Store
	counts          retryCounts
}

// held runs call with the answer to the armed statement held past the
// client timeout, and waits for the hold to end.
func (r *retries) held(t *testing.T, table string, cond bool, call func()) {
	t.Helper()
	before := r.n.Proxy.Held()
	r.hd.arm(table, cond)
	start := time.Now()
	call()
	took := time.Since(start)
	r.hd.arm("", false)
	r.n.Proxy.released()
	if r.n.Proxy.Held() == before {
		t.Fatalf("the proxy held no answer: the session does not connect through it")
	}
	t.Logf("the call returned after %v (client timeout %v, hold %v)", took.Round(time.Millisecond), RetryTimeout, retryHold)
}

// unknown checks that err says the outcome is unknown.
func unknown(t *testing.T, call string, err error) {
	t.Helper()
	switch {
	case err == nil:
		t.Errorf("%s returned no error though its answer was held past the client timeout", call)
	case !errors.Is(err, kerrors.ErrUnknownOutcome) || !errors.Is(err, kerrors.ErrQuery):
		t.Errorf("%s: %v, want a *kerrors.QueryError matching kerrors.ErrUnknownOutcome", call, err)
	default:
		t.Logf("%s: %v", call, err)
	}
}

// versionedUpdate: an Update of a versioned wallet whose answer is lost
// applied once, and is reported as unknown, which a read at SERIAL
// resolves; never as a conflict.
func (r *retries) versionedUpdate(t *testing.T) {
	r.counts.lwt++
	wallets := kstore.MustNewRepo(r.through, walletsTable)
	// The statements are prepared before the hold: a PREPARE held is not
	// the case under test.
	warm := &wallet{WalletID: uniq("warm"), Owner: uniq("o"), Balance: 1}
	if err := wallets.Save(ctx, warm); err != nil {
		t.Fatal(err)
	}
	warmNew := *warm
	warmNew.Balance = 2
	if err := wallets.Update(ctx, warm, &warmNew); err != nil {
		t.Fatal(err)
	}
	w := &wallet{WalletID: uniq("w"), Owner: uniq("o"), Balance: 10}
	if err := wallets.Save(ctx, w); err != nil {
		t.Fatal(err)
	}
	nw := *w
	nw.Balance = 20
	next := w.Version + 1 // nw's version is put back when Update fails
	var err error
	r.held(t, "wallets", true, func() { err = wallets.Update(ctx, w, &nw) })
	var balance, version int64
	if err := r.n.Scan(ctx, "SELECT balance, version FROM "+r.ks+".wallets WHERE wallet_id = ?", []any{w.WalletID}, &balance, &version); err != nil {
		t.Fatal(err)
	}
	if balance != nw.Balance || version != next {
		t.Fatalf("the node holds balance %d at version %d, want %d at %d: the held UPDATE did not apply", balance, version, nw.Balance, next)
	}
	if errors.Is(err, kerrors.ErrOptimisticLock) {
		r.counts.falseConflicts++
		t.Errorf("Update reported a conflict, but the node holds its write: %v", err)
		return
	}
	unknown(t, "Update", err)
	// The way out the docs give: read at SERIAL, then decide.
	got, gerr := kstore.MustNewRepo(r.direct, walletsTable).Get(ctx, w, kstore.Consistency(kandra.ConsistencySerial))
	if gerr != nil || got.Version != next || got.Balance != nw.Balance {
		t.Errorf("the read at SERIAL after an unknown outcome: %+v, %v; want version %d", got, gerr, next)
	}
}

// saveIfNotExists: a SaveIfNotExists whose answer is lost wrote the
// entity once, is reported as unknown (never as not written), and keeps
// its unique values: no other entity can save them.
func (r *retries) saveIfNotExists(t *testing.T) {
	r.counts.lwt++
	members := kstore.MustNewRepo(r.through, membersTable)
	warm := &member{Handle: uniq("warm"), Recovery: uniq("warm")}
	if ok, err := members.SaveIfNotExists(ctx, warm); !ok || err != nil {
		t.Fatalf("warm-up SaveIfNotExists: %v, %v", ok, err)
	}
	// The id is set here: a SaveIfNotExists that reports "not written"
	// puts back the zero id it generated.
	m := &member{MemberID: uuid.New(), Handle: uniq("h"), Recovery: uniq("r"), Name: "first"}
	var ok bool
	var err error
	r.held(t, "members", true, func() { ok, err = members.SaveIfNotExists(ctx, m) })
	var rows int64
	if err := r.n.Scan(ctx, "SELECT COUNT(*) FROM "+r.ks+".members WHERE member_id = ?", []any{m.MemberID.String()}, &rows); err != nil {
		t.Fatal(err)
	}
	if rows != 1 {
		t.Fatalf("the node holds %d rows of the member: the held INSERT did not apply", rows)
	}
	switch {
	case err == nil && !ok:
		r.counts.falseConflicts++
		t.Errorf("SaveIfNotExists reported (false, nil), but the node holds its row")
	default:
		unknown(t, "SaveIfNotExists", err)
	}
	for _, claim := range []struct{ table, col, value string }{
		{"members_by_handle", "handle", m.Handle}, {"members_by_recovery", "recovery", m.Recovery},
	} {
		var holder string
		err := r.n.Scan(ctx, "SELECT member_id FROM "+r.ks+"."+claim.table+" WHERE "+claim.col+" = ?", []any{claim.value}, &holder)
		if err != nil || holder != m.MemberID.String() {
			t.Errorf("the claim of %s is held by %q (%v), want the member whose row the node holds, %s", claim.table, holder, err, m.MemberID)
		}
	}
	// Another entity must not get the values (through a session without
	// the proxy, so that only the claims decide).
	others := kstore.MustNewRepo(r.direct, membersTable)
	for _, o := range []*member{
		{MemberID: uuid.New(), Handle: m.Handle, Recovery: uniq("r2"), Name: "second"},
		{MemberID: uuid.New(), Handle: uniq("h2"), Recovery: m.Recovery, Name: "third"},
	} {
		err := others.Save(ctx, o)
		switch {
		case err == nil:
			r.counts.doubleHeld++
			t.Errorf("another member saved a unique value of the member whose row the node holds: %+v", o)
		case !errors.Is(err, kerrors.ErrUnique):
			t.Errorf("Save of another member with the same unique value: %v, want an ErrUnique", err)
		}
	}
}

// increment: an Increment(1) whose answer is lost adds 1, once, and is
// reported as unknown.
func (r *retries) increment(t *testing.T) {
	r.counts.counters++
	hits := kstore.MustCounterOf(kstore.MustNewRepo(r.through, hitsTable), hitsField)
	if err := hits.Increment(ctx, &pageHits{Page: uniq("/warm")}, 1); err != nil {
		t.Fatal(err)
	}
	key := &pageHits{Page: uniq("/p")}
	var err error
	r.held(t, "page_hits", false, func() { err = hits.Increment(ctx, key, 1) })
	var n int64
	if err := r.n.Scan(ctx, "SELECT hits FROM "+r.ks+".page_hits WHERE page = ?", []any{key.Page}, &n); err != nil {
		t.Fatal(err)
	}
	if n < 1 {
		t.Fatalf("the counter is %d: the held increment did not apply", n)
	}
	if n > 1 {
		r.counts.doubleCounts += n - 1
		t.Errorf("Increment(1) added %d: the update was applied %d times", n, n)
	}
	unknown(t, "Increment", err)
}

// conditionalUnit: a conditional unit of work (two guarded partial writes
// of one partition, one a list append) whose answer is lost applied once,
// and is reported as unknown: the driver never sends a conditional batch
// twice.
func (r *retries) conditionalUnit(t *testing.T) {
	r.counts.lwt++
	cards := kstore.MustNewRepo(r.through, cardsTable)
	board := uniq("b")
	for pos := range int32(2) {
		if err := cards.Save(ctx, &card{Board: board, Pos: pos}); err != nil {
			t.Fatal(err)
		}
	}
	unit := func(board string) *kstore.Unit {
		u := r.through.Unit()
		cards.In(u).Patch(&card{Board: board, Pos: 0}, kstore.Set(cardScore, 7))
		cards.In(u).Patch(&card{Board: board, Pos: 1}, kstore.Append(cardTags, "once"))
		return u
	}
	// The statements are prepared first, so that the held answer is the
	// batch's, not a PREPARE's.
	if _, err := unit(uniq("warm")).Apply(ctx); err != nil {
		t.Fatal(err)
	}
	var err error
	r.held(t, "cards", true, func() { _, err = unit(board).Apply(ctx) })
	direct := kstore.MustNewRepo(r.direct, cardsTable)
	got, gerr := direct.Get(ctx, &card{Board: board, Pos: 1})
	if gerr != nil {
		t.Fatal(gerr)
	}
	first, gerr := direct.Get(ctx, &card{Board: board, Pos: 0})
	if gerr != nil {
		t.Fatal(gerr)
	}
	switch {
	case len(got.Tags) == 0 || first.Score != 7:
		t.Fatalf("the held unit did not apply: tags %v, score %d", got.Tags, first.Score)
	case len(got.Tags) > 1:
		r.counts.doubleCounts += int64(len(got.Tags) - 1)
		t.Errorf("the unit's append is there %d times: the batch was sent again", len(got.Tags))
	}
	if err != nil && !errors.Is(err, kerrors.ErrUnknownOutcome) {
		r.counts.falseConflicts++
	}
	unknown(t, "Unit.Apply", err)
}
