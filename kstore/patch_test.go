package kstore

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
)

// fCard has one column of each collection kind, a soft-delete marker
// and UpdatedAt.
type fCard struct {
	Board   string
	Pos     int32
	Title   string
	Score   int32
	Note    *string
	Tags    []string
	Labels  map[string]struct{}
	Attrs   map[string]int32
	Deleted bool
	Updated time.Time
}

func (c *fCard) Describe(s *kandra.Schema[fCard]) {
	s.Table("fcards", kandra.SoftDelete(time.Hour, &c.Deleted))
	kandra.Bind(s, &c.Board, kandra.PartitionKey(0))
	kandra.Bind(s, &c.Pos, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &c.Title)
	kandra.Bind(s, &c.Score)
	kandra.Bind(s, &c.Note)
	kandra.Bind(s, &c.Tags)
	kandra.Bind(s, &c.Labels)
	kandra.Bind(s, &c.Attrs)
	kandra.UpdatedAt(s, &c.Updated)
}

// fPlain is fCard's shape without soft delete: the IF EXISTS guard.
type fPlain struct {
	Board string
	Pos   int32
	Title string
	Tags  []string
	Note  *string
}

func (c *fPlain) Describe(s *kandra.Schema[fPlain]) {
	s.Table("fplain")
	kandra.Bind(s, &c.Board, kandra.PartitionKey(0))
	kandra.Bind(s, &c.Pos, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &c.Title)
	kandra.Bind(s, &c.Tags)
	kandra.Bind(s, &c.Note)
}

var (
	fCards   = kandra.MustRegister[fCard]()
	fPlains  = kandra.MustRegister[fPlain]()
	cTitle   = kandra.MustFieldOf(fCards, func(c *fCard) *string { return &c.Title })
	cScore   = kandra.MustFieldOf(fCards, func(c *fCard) *int32 { return &c.Score })
	cNote    = kandra.MustFieldOf(fCards, func(c *fCard) **string { return &c.Note })
	cTags    = kandra.MustFieldOf(fCards, func(c *fCard) *[]string { return &c.Tags })
	cLabels  = kandra.MustFieldOf(fCards, func(c *fCard) *map[string]struct{} { return &c.Labels })
	cAttrs   = kandra.MustFieldOf(fCards, func(c *fCard) *map[string]int32 { return &c.Attrs })
	cPos     = kandra.MustFieldOf(fCards, func(c *fCard) *int32 { return &c.Pos })
	cDeleted = kandra.MustFieldOf(fCards, func(c *fCard) *bool { return &c.Deleted })
	cUpdated = kandra.MustFieldOf(fCards, func(c *fCard) *time.Time { return &c.Updated })
	pTitle   = kandra.MustFieldOf(fPlains, func(c *fPlain) *string { return &c.Title })
	pTags    = kandra.MustFieldOf(fPlains, func(c *fPlain) *[]string { return &c.Tags })
	pNote    = kandra.MustFieldOf(fPlains, func(c *fPlain) **string { return &c.Note })
	fBio     = kandra.MustFieldOf(fUsers, func(u *fUser) *string { return &u.Bio })
	fEmail   = kandra.MustFieldOf(fUsers, func(u *fUser) *string { return &u.Email })
	patchKS  = kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5,
		Replication: kandra.SimpleStrategy(1)}, fCards, fPlains, fUsers)
)

// valRecorder is a Driver that records each statement with its values and
// answers a conditional one with applied.
type valRecorder struct {
	noMigrator
	mu      sync.Mutex
	qs      []*adapter.Query
	applied bool
}

func (d *valRecorder) Exec(_ context.Context, q *adapter.Query) (bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	cp := *q
	cp.Values = append([]any(nil), q.Values...)
	d.qs = append(d.qs, &cp)
	if len(q.Values) != q.Statement.NumParams() {
		return false, errors.New("wrong number of values")
	}
	return !q.Statement.IsConditional() || d.applied, nil
}
func (d *valRecorder) Query(context.Context, *adapter.Query) (adapter.Rows, error) {
	return emptyRows{}, nil
}
func (d *valRecorder) Batch(_ context.Context, b *adapter.Batch) (bool, error) {
	for _, e := range b.Entries {
		if _, err := d.Exec(context.Background(), e); err != nil {
			return false, err
		}
	}
	return true, nil
}
func (d *valRecorder) AwaitSchemaAgreement(context.Context) error { return nil }
func (d *valRecorder) last() *adapter.Query {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.qs[len(d.qs)-1]
}

func newRecorder(t *testing.T, targets ...kandra.Target) (*valRecorder, *Store) {
	d := &valRecorder{applied: true}
	ks := patchKS
	if len(targets) > 0 {
		ks = kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: targets[0],
			Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 1})}, fPlains)
	}
	rt, err := New(d, ks, WithClock(func() time.Time { return clock }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	return d, rt
}

// TestPatchStatements: each change and condition sends the CQL the
// servers take, with one value per marker, idempotent only when a retry
// cannot add twice nor apply a condition twice.
func TestPatchStatements(t *testing.T) {
	d, rt := newRecorder(t)
	cards, plains := MustNewRepo(rt, fCards), MustNewRepo(rt, fPlains)
	key := &fCard{Board: "b", Pos: 1}
	const tail = ", updated = ? WHERE board = ? AND pos = ? IF deleted = ?"
	for _, c := range []struct {
		p          Patch[fCard]
		cql        string
		idempotent bool
	}{
		{Set(cTitle, "t"), "UPDATE ks.fcards SET title = ?" + tail, false},
		{Clear(cNote).And(Set(cScore, 2)), "UPDATE ks.fcards SET note = ?, score = ?" + tail, false},
		{Append(cTags, "a", "b"), "UPDATE ks.fcards SET tags = tags + ?" + tail, false},
		{Prepend(cTags, "a"), "UPDATE ks.fcards SET tags = ? + tags" + tail, false},
		{SetAt(cTags, 2, "x"), "UPDATE ks.fcards SET tags[?] = ?" + tail, false},
		{RemoveValues(cTags, "a"), "UPDATE ks.fcards SET tags = tags - ?" + tail, false},
		{Add(cLabels, "x"), "UPDATE ks.fcards SET labels = labels + ?" + tail, false},
		{Remove(cLabels, "x"), "UPDATE ks.fcards SET labels = labels - ?" + tail, false},
		{Put(cAttrs, "k", 1), "UPDATE ks.fcards SET attrs[?] = ?" + tail, false},
		{PutAll(cAttrs, map[string]int32{"k": 1}), "UPDATE ks.fcards SET attrs = attrs + ?" + tail, false},
		{RemoveKeys(cAttrs, "k", "j"), "UPDATE ks.fcards SET attrs = attrs - ?" + tail, false},
		{Add(cLabels, "x").And(Remove(cLabels, "y")), "UPDATE ks.fcards SET labels = labels + ?, labels = labels - ?" + tail, false},
		{Set(cTitle, "t").If(Eq(cScore, 1).And(Lt(cScore, 3))), "UPDATE ks.fcards SET title = ?" + tail + " AND score = ? AND score < ?", false},
		{Set(cTitle, "t").If(In(cScore, 1, 2, 3)), "UPDATE ks.fcards SET title = ?" + tail + " AND score IN (?, ?, ?)", false},
		{Set(cTitle, "t").If(EqAt(cAttrs, "k", 2).And(IsNull(cNote))), "UPDATE ks.fcards SET title = ?" + tail + " AND attrs[?] = ? AND note = null", false},
	} {
		if _, err := cards.Patch(context.Background(), key, c.p); err != nil {
			t.Fatalf("%s: %v", c.p, err)
		}
		q := d.last()
		if got := q.Statement.CQL(); got != c.cql {
			t.Errorf("%s:\n got %s\nwant %s", c.p, got, c.cql)
		}
		if q.Statement.IsIdempotent() != c.idempotent {
			t.Errorf("%s: idempotent %t, want %t", c.p, q.Statement.IsIdempotent(), c.idempotent)
		}
	}
	// Upsert: no condition; idempotent but for a list's append.
	pk := &fPlain{Board: "b", Pos: 1}
	for _, c := range []struct {
		p          Patch[fPlain]
		cql        string
		idempotent bool
	}{
		{Set(pTitle, "t"), "UPDATE ks.fplain SET title = ? WHERE board = ? AND pos = ?", true},
		{Append(pTags, "t"), "UPDATE ks.fplain SET tags = tags + ? WHERE board = ? AND pos = ?", false},
	} {
		if _, err := plains.Patch(context.Background(), pk, c.p, Upsert()); err != nil {
			t.Fatal(err)
		}
		if q := d.last(); q.Statement.CQL() != c.cql || q.Statement.IsIdempotent() != c.idempotent {
			t.Errorf("%s Upsert: %s idempotent %t", c.p, q.Statement.CQL(), q.Statement.IsIdempotent())
		}
	}
	// At a client timestamp, a whole list written twice holds its
	// elements twice: sent once.
	for _, c := range []struct {
		p          Patch[fPlain]
		cql        string
		idempotent bool
	}{
		{Set(pTitle, "t"), "UPDATE ks.fplain USING TIMESTAMP ? SET title = ? WHERE board = ? AND pos = ?", true},
		{Set(pTags, []string{"t"}), "UPDATE ks.fplain USING TIMESTAMP ? SET tags = ? WHERE board = ? AND pos = ?", false},
	} {
		if _, err := plains.Patch(context.Background(), pk, c.p, Upsert(), Timestamp(clock)); err != nil {
			t.Fatal(err)
		}
		if q := d.last(); q.Statement.CQL() != c.cql || q.Statement.IsIdempotent() != c.idempotent {
			t.Errorf("%s Upsert: %s idempotent %t", c.p, q.Statement.CQL(), q.Statement.IsIdempotent())
		}
	}
	// The default guard of a plain table: IF EXISTS, or conditions that
	// imply the row.
	if _, err := plains.Patch(context.Background(), pk, Set(pTitle, "t")); err != nil {
		t.Fatal(err)
	}
	if got := d.last().Statement.CQL(); got != "UPDATE ks.fplain SET title = ? WHERE board = ? AND pos = ? IF EXISTS" {
		t.Errorf("guard: %s", got)
	}
	if _, err := plains.Patch(context.Background(), pk, Set(pTitle, "t").If(Eq(pTitle, "s"))); err != nil {
		t.Fatal(err)
	}
	if got := d.last().Statement.CQL(); got != "UPDATE ks.fplain SET title = ? WHERE board = ? AND pos = ? IF title = ?" {
		t.Errorf("conditions: %s", got)
	}
	if _, err := plains.Patch(context.Background(), pk, Set(pTitle, "t").If(NotNull(pNote))); err != nil {
		t.Fatal(err) // a missing row does not meet it: it implies the row
	}
	if got := d.last().Statement.CQL(); got != "UPDATE ks.fplain SET title = ? WHERE board = ? AND pos = ? IF note != null" {
		t.Errorf("NotNull: %s", got)
	}
	// The stamp is given back once the write applied.
	if key.Updated.IsZero() {
		t.Error("UpdatedAt not stamped into the key")
	}
}

// TestPatchRefused: what the servers refuse, or kandra could not keep
// right, is refused before anything is sent, naming the way out.
func TestPatchRefused(t *testing.T) {
	d, rt := newRecorder(t)
	cards, plains, users := MustNewRepo(rt, fCards), MustNewRepo(rt, fPlains), MustNewRepo(rt, fUsers)
	ctx := context.Background()
	key := &fCard{Board: "b", Pos: 1}
	for _, c := range []struct {
		p    Patch[fCard]
		opts []PatchOption
		want string
	}{
		{Patch[fCard]{}, nil, "no change"},
		{Set(cPos, 2), nil, "immutable"},
		{Set(cDeleted, true), nil, "SoftDelete sets it"},
		{Set(cUpdated, time.Now()), nil, "stamped by kandra"},
		{Set(cTitle, "t").If(Lt(cTags, []string{"a"})), nil, "compare it with Eq"},
		{Set(cTitle, "t").If(Eq(cPos, 1)), nil, "primary key"},
		{Set(cTitle, "t").If(In(cScore)), nil, "no row"},
		{Set(cTitle, "t").If(Exists[fCard]()), nil, "not soft-deleted implies"},
		{Set(cTitle, "t"), []PatchOption{Upsert()}, "soft-deleted row back"},
		{Set(cTitle, "t"), []PatchOption{Timestamp(clock)}, "client timestamp"},
		{SetAt(cTags, -1, "a"), nil, "at least 0"},
		{Set(cTags, []string{"a"}).And(Append(cTags, "b")), nil, "Multiple incompatible"},
		{Set(cTitle, "a").And(Clear(cTitle)), nil, "Multiple incompatible"},
	} {
		_, err := cards.Patch(ctx, key, c.p, c.opts...)
		var ae *kerrors.ArgumentError
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an *kerrors.ArgumentError saying %q", c.p, err, c.want)
		}
	}
	pk := &fPlain{Board: "b", Pos: 1}
	var ae *kerrors.ArgumentError
	if _, err := plains.Patch(ctx, pk, Set(pTitle, "t").If(IsNull(pNote))); !errors.As(err, &ae) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("IsNull alone: %v", err)
	}
	if _, err := plains.Patch(ctx, pk, Set(pTitle, "t").If(Exists[fPlain]().And(Eq(pTitle, "s")))); !errors.As(err, &ae) {
		t.Errorf("Exists with another condition: %v", err)
	}
	if _, err := plains.Patch(ctx, pk, Set(pTitle, "t").If(Exists[fPlain]()), Upsert()); !errors.As(err, &ae) {
		t.Errorf("Exists with Upsert: %v", err)
	}
	u := &fUser{Email: "e"}
	u.Version = 3
	if _, err := users.Patch(ctx, u, Set(fEmail, "x")); !errors.As(err, &ae) || !strings.Contains(err.Error(), "Update") {
		t.Errorf("a lookup column: %v", err)
	}
	if _, err := users.Patch(ctx, &fUser{ID: u.ID}, Set(fBio, "x")); !errors.As(err, &ae) || !strings.Contains(err.Error(), "zero") {
		t.Errorf("a zero version: %v", err)
	}
	_, tablets := newRecorder(t, kandra.Scylla2025Tablets)
	if _, err := MustNewRepo(tablets, fPlains).Patch(ctx, pk, Set(pTitle, "t")); !errors.As(err, &ae) || !strings.Contains(err.Error(), "Upsert") {
		t.Errorf("a tablets keyspace: %v", err)
	}
	if n := len(d.qs); n != 0 {
		t.Errorf("%d statements sent by refused calls", n)
	}
}

// TestPatchVersioned: a versioned row's Patch is conditional on the key's
// version and moves it only when it applied.
func TestPatchVersioned(t *testing.T) {
	d, rt := newRecorder(t)
	users := MustNewRepo(rt, fUsers)
	u := &fUser{}
	u.ID[0], u.Version = 1, 4
	if _, err := users.Patch(context.Background(), u, Set(fBio, "x")); err != nil {
		t.Fatal(err)
	}
	q := d.last()
	if want := "UPDATE ks.fusers SET bio = ?, updated_at = ?, version = ? WHERE id = ? IF version = ?"; q.Statement.CQL() != want {
		t.Fatalf("got %s, want %s", q.Statement.CQL(), want)
	}
	if u.Version != 5 || u.UpdatedAt.IsZero() {
		t.Fatalf("key after the write: version %d, updated %v", u.Version, u.UpdatedAt)
	}
	d.applied = false
	var ol *kerrors.OptimisticLockError
	if _, err := users.Patch(context.Background(), u, Set(fBio, "y")); !errors.As(err, &ol) || u.Version != 5 {
		t.Fatalf("a conflict: %v, version %d (want 5, unmoved)", err, u.Version)
	}
}

// TestDeleteRangeAndIf: the statements, and the refusals.
func TestDeleteRangeAndIf(t *testing.T) {
	d, rt := newRecorder(t)
	plains, users, cards := MustNewRepo(rt, fPlains), MustNewRepo(rt, fUsers), MustNewRepo(rt, fCards)
	ctx := context.Background()
	pPos := kandra.MustFieldOf(fPlains, func(c *fPlain) *int32 { return &c.Pos })
	for _, c := range []struct {
		opts []RangeOption
		cql  string
	}{
		{nil, "DELETE FROM ks.fplain WHERE board = ?"},
		{[]RangeOption{Equal(pPos, 3)}, "DELETE FROM ks.fplain WHERE board = ? AND pos = ?"},
		{[]RangeOption{From(pPos, 1, true), To(pPos, 4, false)}, "DELETE FROM ks.fplain WHERE board = ? AND pos >= ? AND pos < ?"},
		{[]RangeOption{To(pPos, 4, true), Timestamp(clock)}, "DELETE FROM ks.fplain USING TIMESTAMP ? WHERE board = ? AND pos <= ?"},
	} {
		if err := plains.DeleteRange(ctx, &fPlain{Board: "b"}, c.opts...); err != nil {
			t.Fatal(err)
		}
		if got := d.last().Statement.CQL(); got != c.cql {
			t.Errorf("got %s, want %s", got, c.cql)
		}
	}
	var ae *kerrors.ArgumentError
	if err := users.DeleteRange(ctx, &fUser{}); !errors.As(err, &ae) || !strings.Contains(err.Error(), "DeleteAll") {
		t.Errorf("lookups: %v", err)
	}
	if err := cards.DeleteRange(ctx, &fCard{Board: "b"}); !errors.As(err, &ae) {
		t.Errorf("SoftDelete: %v", err)
	}
	if err := plains.DeleteRange(ctx, &fPlain{Board: "b"}, PageSize(3)); !errors.As(err, &ae) {
		t.Errorf("PageSize: %v", err)
	}
	if err := plains.DeleteRange(ctx, &fPlain{Board: "b"}, From(kandra.MustFieldOf(fPlains, func(c *fPlain) *string { return &c.Title }), "a", true)); !errors.As(err, &ae) {
		t.Errorf("a bound on a regular column: %v", err)
	}
	if _, err := plains.DeleteIf(ctx, &fPlain{Board: "b", Pos: 1}, Eq(pTitle, "t")); err != nil {
		t.Fatal(err)
	}
	if got := d.last().Statement.CQL(); got != "DELETE FROM ks.fplain WHERE board = ? AND pos = ? IF title = ?" {
		t.Errorf("DeleteIf: %s", got)
	}
	if _, err := plains.DeleteIf(ctx, &fPlain{Board: "b", Pos: 1}, Cond[fPlain]{}); !errors.As(err, &ae) || !strings.Contains(err.Error(), "HardDelete") {
		t.Errorf("DeleteIf without a condition: %v", err)
	}
}

// TestUpdateWritesWhatChanged: Update's UPDATE sets the columns that
// changed and the stamps; with a TTL, every column.
func TestUpdateWritesWhatChanged(t *testing.T) {
	d, rt := newRecorder(t)
	users := MustNewRepo(rt, fUsers)
	old := &fUser{Email: "e", Ticket: "t", Bio: "a", Version: 2}
	old.ID[0] = 1
	nw := *old
	nw.Bio = "b"
	if err := users.Update(context.Background(), old, &nw); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, q := range d.qs {
		got = append(got, q.Statement.CQL())
	}
	if want := "UPDATE ks.fusers SET bio = ?, updated_at = ?, version = ? WHERE id = ? IF version = ?"; !containsStr(got, want) {
		t.Fatalf("sent %q, want %q among them", got, want)
	}
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// TestOmitNulls: null columns are sent as adapter.Unset with OmitNulls or
// on a table declared with it, and as null otherwise.
func TestOmitNulls(t *testing.T) {
	d, rt := newRecorder(t)
	plains := MustNewRepo(rt, fPlains)
	e := &fPlain{Board: "b", Pos: 1, Title: "t"}
	unset := func() int {
		n := 0
		for _, v := range d.last().Values {
			if v == adapter.Unset {
				n++
			}
		}
		return n
	}
	if err := plains.Save(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	if n := unset(); n != 0 {
		t.Errorf("Save: %d unset values, want 0", n)
	}
	if err := plains.Save(context.Background(), e, OmitNulls()); err != nil {
		t.Fatal(err)
	}
	if n := unset(); n != 2 { // tags and note
		t.Errorf("Save OmitNulls: %d unset values, want 2", n)
	}
	e.Tags = []string{}
	if err := plains.Save(context.Background(), e, OmitNulls()); err != nil {
		t.Fatal(err)
	}
	if n := unset(); n != 2 { // an empty list is null to the servers
		t.Errorf("Save OmitNulls of an empty list: %d unset values, want 2", n)
	}
}

type fAddr struct {
	City string
	Zip  string `kandra:"zip_code"`
}

type fHome struct {
	ID    string
	Home  fAddr
	Fixed fAddr
}

func (h *fHome) Describe(s *kandra.Schema[fHome]) {
	s.Table("fhomes")
	kandra.Bind(s, &h.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &h.Home)
	kandra.Bind(s, &h.Fixed, kandra.Frozen())
}

// TestSetField: one field of a user-defined type, by its stored name;
// a frozen column and a selector that is not a field are refused.
func TestSetField(t *testing.T) {
	homes := kandra.MustRegister[fHome]()
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5, Replication: kandra.SimpleStrategy(1)}, homes)
	d := &valRecorder{applied: true}
	rt, err := New(d, ks)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(context.Background())
	r := MustNewRepo(rt, homes)
	home := kandra.MustFieldOf(homes, func(h *fHome) *fAddr { return &h.Home })
	fixed := kandra.MustFieldOf(homes, func(h *fHome) *fAddr { return &h.Fixed })
	zip := func(a *fAddr) *string { return &a.Zip }
	if _, err := r.Patch(context.Background(), &fHome{ID: "h"}, SetField(home, zip, "75001")); err != nil {
		t.Fatal(err)
	}
	q := d.last()
	if want := "UPDATE ks.fhomes SET home.zip_code = ? WHERE id = ? IF EXISTS"; q.Statement.CQL() != want || q.Values[0] != "75001" {
		t.Fatalf("got %s %v, want %s", q.Statement.CQL(), q.Values, want)
	}
	var ae *kerrors.ArgumentError
	if _, err := r.Patch(context.Background(), &fHome{ID: "h"}, SetField(fixed, zip, "1")); !errors.As(err, &ae) || !strings.Contains(err.Error(), "frozen") {
		t.Errorf("a frozen column: %v", err)
	}
	other := "x"
	if _, err := r.Patch(context.Background(), &fHome{ID: "h"}, SetField(home, func(*fAddr) *string { return &other }, "1")); !errors.As(err, &ae) || !strings.Contains(err.Error(), "selector") {
		t.Errorf("a selector of no field: %v", err)
	}
}

// fSparse omits nulls and soft-deletes.
type fSparse struct {
	ID      string
	Note    *string
	Deleted bool
}

func (e *fSparse) Describe(s *kandra.Schema[fSparse]) {
	s.Table("fsparse", kandra.OmitNulls(), kandra.SoftDelete(time.Hour, &e.Deleted))
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Note)
}

// TestOmitNullsTable: a table's OmitNulls leaves a Save's nulls unset,
// WriteNulls writes them, and neither a soft delete (a cell left would
// outlive its TTL) nor an Update under a TTL leaves one out.
func TestOmitNullsTable(t *testing.T) {
	sparse := kandra.MustRegister[fSparse]()
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5, Replication: kandra.SimpleStrategy(1)}, sparse)
	d := &valRecorder{applied: true}
	rt, err := New(d, ks)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(context.Background())
	r := MustNewRepo(rt, sparse)
	ctx := context.Background()
	unset := func() int {
		n := 0
		for _, v := range d.last().Values {
			if v == adapter.Unset {
				n++
			}
		}
		return n
	}
	e := &fSparse{ID: "a"}
	for _, c := range []struct {
		what string
		call func() error
		want int
	}{
		{"Save", func() error { return r.Save(ctx, e) }, 1},
		{"Save WriteNulls", func() error { return r.Save(ctx, e, WriteNulls()) }, 0},
		{"Update TTL", func() error { nw := *e; nw.Deleted = false; return r.Update(ctx, e, &nw, TTL(time.Hour)) }, 0},
		{"SoftDelete", func() error { return r.SoftDelete(ctx, e) }, 0},
	} {
		if err := c.call(); err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if n := unset(); n != c.want {
			t.Errorf("%s (%s): %d unset values, want %d", c.what, d.last().Statement.CQL(), n, c.want)
		}
	}
}
