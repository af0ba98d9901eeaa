package catalog_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
)

var updateGolden = flag.Bool("update-statements", false, "rewrite testdata/statements.golden")

type stmtUser struct {
	UserID    uuid.UUID
	Email     string
	TicketRef string
	Name      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

func (u *stmtUser) Describe(s *kandra.Schema[stmtUser]) {
	s.Table("users")
	kandra.GeneratedUUID(s, &u.UserID, kandra.UUIDRandom, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Email, kandra.Lookup("by_email", kandra.LookupUnique))
	kandra.Bind(s, &u.TicketRef, kandra.Lookup("by_ticket_ref", kandra.LookupEventual))
	kandra.CreatedAt(s, &u.CreatedAt)
	kandra.UpdatedAt(s, &u.UpdatedAt)
}

type stmtTodo struct {
	OwnerID uuid.UUID
	Day     string
	TodoID  uuid.UUID
	Title   string
	Order   int
	Deleted bool
}

func (t *stmtTodo) Describe(s *kandra.Schema[stmtTodo]) {
	s.Table("Todos", kandra.SoftDelete(3600*time.Second, &t.Deleted))
	kandra.Bind(s, &t.OwnerID, kandra.PartitionKey(0))
	kandra.Bind(s, &t.Day, kandra.PartitionKey(1))
	kandra.GeneratedUUID(s, &t.TodoID, kandra.UUIDTimeOrdered, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.Bind(s, &t.Title, kandra.Lookup("by_title", kandra.LookupBatch))
}

type stmtWallet struct {
	WalletID string
	Balance  int64
	Version  int64
}

func (w *stmtWallet) Describe(s *kandra.Schema[stmtWallet]) {
	s.Table("wallets")
	kandra.Bind(s, &w.WalletID, kandra.PartitionKey(0))
	kandra.Version(s, &w.Version)
}

// stmtNote is versioned by a timestamp and soft-deleted, with a
// clustering key: the soft delete is one conditional batch of the row.
type stmtNote struct {
	Board   string
	NoteID  uuid.UUID
	Body    string
	Deleted bool
	Version time.Time
}

func (n *stmtNote) Describe(s *kandra.Schema[stmtNote]) {
	s.Table("notes", kandra.SoftDelete(600*time.Second, &n.Deleted))
	kandra.Bind(s, &n.Board, kandra.PartitionKey(0))
	kandra.Bind(s, &n.NoteID, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Version(s, &n.Version)
}

type stmtHits struct {
	Page  string
	Hits  int64
	Views int64
}

func (h *stmtHits) Describe(s *kandra.Schema[stmtHits]) {
	s.Table("hits")
	kandra.Bind(s, &h.Page, kandra.PartitionKey(0))
	kandra.Counter(s, &h.Hits)
	kandra.Counter(s, &h.Views)
}

// stmtThread has static columns, a versioned soft delete and a static
// counter's twin table (stmtThreadHits).
type stmtThread struct {
	ThreadID string
	PostID   int64
	Body     string
	Title    string
	Tags     []string
	Deleted  bool
	Version  int64
}

func (p *stmtThread) Describe(s *kandra.Schema[stmtThread]) {
	s.Table("threads", kandra.SoftDelete(60*time.Second, &p.Deleted))
	kandra.Bind(s, &p.ThreadID, kandra.PartitionKey(0))
	kandra.Bind(s, &p.PostID, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &p.Title, kandra.Static())
	kandra.Bind(s, &p.Tags, kandra.Static())
	kandra.Version(s, &p.Version)
}

// stmtReading is clustered by (day, at DESC): prefix ranges.
type stmtReading struct {
	Sensor string
	Day    string
	At     time.Time
	Value  float64
}

func (r *stmtReading) Describe(s *kandra.Schema[stmtReading]) {
	s.Table("readings")
	kandra.Bind(s, &r.Sensor, kandra.PartitionKey(0))
	kandra.Bind(s, &r.Day, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &r.At, kandra.ClusteringKey(1, kandra.ClusteringDesc))
}

type stmtThreadHits struct {
	ThreadID string
	PostID   int64
	Views    int64
	Likes    int64
}

func (h *stmtThreadHits) Describe(s *kandra.Schema[stmtThreadHits]) {
	s.Table("thread_hits")
	kandra.Bind(s, &h.ThreadID, kandra.PartitionKey(0))
	kandra.Bind(s, &h.PostID, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Counter(s, &h.Views, kandra.Static())
	kandra.Counter(s, &h.Likes)
}

func renderStmt(b *strings.Builder, name string, s *adapter.Statement) {
	b.WriteString("-- ")
	b.WriteString(name)
	b.WriteString("\n")
	if s == nil {
		b.WriteString("(none)\n\n")
		return
	}
	b.WriteString(s.CQL())
	b.WriteString("\n   bind:")
	for _, p := range s.Params() {
		b.WriteString(" ")
		b.WriteString(p.String())
	}
	if s.NumResult() > 0 {
		b.WriteString("\n   result:")
		for i := 0; i < s.NumResult(); i++ {
			b.WriteString(" ")
			b.WriteString(s.Result(i).Name())
		}
	}
	if s.HasWriteTime() {
		b.WriteString("\n   + writetime")
	}
	if s.HasPresence() {
		b.WriteString("\n   + presence")
	}
	if s.IsConditional() {
		b.WriteString("\n   conditional")
	}
	if !s.IsIdempotent() {
		b.WriteString("\n   not idempotent")
	}
	b.WriteString("\n\n")
}

func renderTable(t *testing.T, b *strings.Builder, ts *kandra.TableSchema, ks string) {
	t.Helper()
	st, err := catalog.Build(ts, ks)
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString("==== " + ts.Name() + " (keyspace " + ks + ")\n\n")
	usings := []struct {
		n string
		u catalog.Using
	}{{"", 0}, {" ttl", catalog.UsingTTL}, {" timestamp", catalog.UsingTimestamp}, {" ttl+timestamp", catalog.UsingTTL | catalog.UsingTimestamp}}
	for _, u := range usings {
		renderStmt(b, "insert"+u.n, st.Insert(u.u))
	}
	renderStmt(b, "insert if not exists", st.InsertIfNotExists(0))
	renderStmt(b, "insert if not exists ttl", st.InsertIfNotExists(catalog.UsingTTL))
	renderStmt(b, "select by key", st.SelectByKey())
	renderStmt(b, "select partition", st.SelectPartition(catalog.Range{}))
	renderStmt(b, "select partition > <= reversed limit", st.SelectPartition(catalog.Range{Lower: catalog.Exclusive, Upper: catalog.Inclusive, Reversed: true, Limit: true}))
	renderStmt(b, "select partition >= < limit", st.SelectPartition(catalog.Range{Lower: catalog.Inclusive, Upper: catalog.Exclusive, Limit: true}))
	for k := 1; k <= len(ts.ClusteringKeys()); k++ {
		r := catalog.Range{Prefix: k, Reversed: true}
		if k < len(ts.ClusteringKeys()) {
			r.Lower, r.Upper = catalog.Inclusive, catalog.Exclusive
		}
		renderStmt(b, fmt.Sprintf("select partition prefix %d", k), st.SelectPartition(r))
	}
	for _, u := range usings {
		renderStmt(b, "update"+u.n, st.Update(u.u))
	}
	renderStmt(b, "delete", st.Delete(0))
	renderStmt(b, "delete timestamp", st.Delete(catalog.UsingTimestamp))
	renderStmt(b, "soft delete", st.SoftDelete())
	renderStmt(b, "update if no version", st.UpdateIfNoVersion(0))
	renderStmt(b, "update if no version ttl", st.UpdateIfNoVersion(catalog.UsingTTL))
	renderStmt(b, "delete if version", st.DeleteIfVersion())
	renderStmt(b, "delete if no version", st.DeleteIfNoVersion())
	renderStmt(b, "soft delete if version", st.SoftDeleteIfVersion())
	renderStmt(b, "soft delete if no version", st.SoftDeleteIfNoVersion())
	for _, u := range usings {
		renderStmt(b, "force update"+u.n, st.ForceUpdate(u.u))
	}
	renderStmt(b, "token range", st.TokenRange())
	renderStmt(b, "count token range", st.CountTokenRange())
	renderStmt(b, "count partition", st.CountPartition(catalog.Range{}))
	for i, t := range st.Truncate() {
		renderStmt(b, fmt.Sprintf("truncate %d", i), t)
	}
	if cols := ts.ClusteringKeys(); len(cols) > 1 {
		renderStmt(b, "select partition tuple >= and < tuple", st.SelectPartition(catalog.Range{Lower: catalog.Inclusive, Upper: catalog.Exclusive, LowerN: len(cols), UpperN: 2}))
		renderStmt(b, "count partition tuple > reversed", st.CountPartition(catalog.Range{Lower: catalog.Exclusive, LowerN: len(cols), Reversed: true}))
	}
	key := st.Schema().PrimaryKey()
	renderStmt(b, "project the key", st.Project(st.SelectByKey(), key, nil))
	for _, c := range ts.Columns() {
		if c.Role() == kandra.RegularColumn && !c.IsCounter() {
			renderStmt(b, "times of "+c.Name(), st.Timed(st.SelectPartition(catalog.Range{}), []*kandra.ColumnSchema{c}, nil))
			break
		}
	}
	for _, c := range ts.Columns() {
		if x, ok := c.Index(); ok && x.Kind != kandra.IndexVector {
			op := map[kandra.IndexTarget]catalog.IndexOp{kandra.IndexTargetValues: catalog.IndexContains, kandra.IndexTargetKeys: catalog.IndexContainsKey, kandra.IndexTargetEntries: catalog.IndexEntry}[x.Target]
			spec := catalog.WhereSpec{Partition: true, Preds: []catalog.Pred{{Col: c, Op: op}}}
			renderStmt(b, "where "+c.Name(), st.Where(spec, nil))
			spec.Count = true
			renderStmt(b, "count where "+c.Name(), st.Where(spec, nil))
		}
	}
	if st.SelectStatic() != nil {
		for _, u := range usings {
			renderStmt(b, "update static"+u.n, st.UpdateStatic(u.u))
		}
		renderStmt(b, "select static", st.SelectStatic())
	}
	for _, c := range ts.Columns() {
		if c.IsCounter() {
			renderStmt(b, "counter "+c.Name(), st.Counter(c))
		}
	}
	for _, l := range st.Lookups() {
		n := "lookup " + l.Lookup().Name() + " "
		renderStmt(b, n+"insert", l.Insert())
		renderStmt(b, n+"select", l.Select())
		renderStmt(b, n+"delete", l.Delete())
		renderStmt(b, n+"select owner", l.SelectOwner())
		renderStmt(b, n+"delete at", l.DeleteAt())
		renderStmt(b, n+"insert at", l.InsertAt())
		renderStmt(b, n+"claim", l.Claim())
		renderStmt(b, n+"reclaim", l.Reclaim())
		renderStmt(b, n+"takeover", l.Takeover())
		renderStmt(b, n+"release", l.Release())
	}
}

func TestStatementsGolden(t *testing.T) {
	var b strings.Builder
	renderTable(t, &b, kandra.MustRegister[stmtUser]().Schema(), "app")
	renderTable(t, &b, kandra.MustRegister[stmtTodo]().Schema(), "TodoApp")
	renderTable(t, &b, kandra.MustRegister[stmtWallet]().Schema(), "")
	renderTable(t, &b, kandra.MustRegister[stmtHits]().Schema(), "app")
	renderTable(t, &b, kandra.MustRegister[stmtNote]().Schema(), "app")
	renderTable(t, &b, kandra.MustRegister[stmtThread]().Schema(), "app")
	renderTable(t, &b, kandra.MustRegister[stmtThreadHits]().Schema(), "app")
	renderTable(t, &b, kandra.MustRegister[stmtReading]().Schema(), "app")
	path := filepath.Join("testdata", "statements.golden")
	if *updateGolden {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestStatementsGolden -update-statements)", err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("statements differ from %s (rerun with -update-statements and review the diff):\n%s", path, got)
	}
}

// TestRawStatementIdempotence: a hand-written SELECT is idempotent, a
// conditional statement is not, and a plain write is unless its table
// has counters or a list that is not frozen, whose updates the text may
// add to.
func TestRawStatementIdempotence(t *testing.T) {
	users := kandra.MustRegister[stmtUser]().Schema()
	hits := kandra.MustRegister[stmtHits]().Schema()
	threads := kandra.MustRegister[stmtThread]().Schema() // Tags []string: list<text>
	for _, tt := range []struct {
		table *kandra.TableSchema
		cql   string
		want  bool
	}{
		{users, "SELECT name FROM users WHERE user_id = ?", true},
		{users, "  select name FROM users WHERE user_id = ?", true},
		{users, "UPDATE users SET name = ? WHERE user_id = ?", true},
		{users, "INSERT INTO users (user_id, name) VALUES (?, ?) USING TIMESTAMP ?", true},
		{users, "DELETE FROM users WHERE user_id = ?", true},
		{users, "UPDATE users SET name = ? WHERE user_id = ? IF name = ?", false},
		{users, "INSERT INTO users (user_id, name) VALUES (?, ?) IF NOT EXISTS", false},
		{users, "DELETE FROM users WHERE user_id = ? IF EXISTS", false},
		{hits, "SELECT hits FROM hits WHERE page = ?", true},
		{hits, "UPDATE hits SET hits = hits + 1 WHERE page = ?", false},
		{hits, "DELETE FROM hits WHERE page = ?", false},
		{threads, "SELECT tags FROM threads WHERE thread_id = ?", true},
		{threads, "UPDATE threads SET tags = tags + ? WHERE thread_id = ?", false},
		{threads, "UPDATE threads SET title = ? WHERE thread_id = ?", false},
	} {
		if got := catalog.Raw(tt.table, tt.cql, nil, nil).IsIdempotent(); got != tt.want {
			t.Errorf("%s on %s: IsIdempotent() = %v, want %v", tt.cql, tt.table.Name(), got, tt.want)
		}
	}
}

func TestBuildStatementsBadKeyspace(t *testing.T) {
	if _, err := catalog.Build(kandra.MustRegister[stmtWallet]().Schema(), strings.Repeat("k", 60)); err == nil {
		t.Fatal("a 60-character keyspace name was accepted")
	}
}

func TestAppendColumnsNoAlloc(t *testing.T) {
	users := kandra.MustRegister[stmtUser]()
	st, err := catalog.Build(users.Schema(), "app")
	if err != nil {
		t.Fatal(err)
	}
	u := &stmtUser{Email: "a@b.c"}
	buf := make([]any, 0, 16)
	ins := st.Insert(catalog.UsingTTL)
	allocs := testing.AllocsPerRun(100, func() {
		buf = catalog.AppendColumns(users, ins, u, buf[:0])
	})
	if allocs != 0 {
		t.Errorf("AppendColumns allocates %v times", allocs)
	}
	if len(buf) != users.Schema().NumColumns() || buf[ins.ColumnsOffset()+1].(*string) != &u.Email {
		t.Errorf("AppendColumns = %v", buf)
	}
}
