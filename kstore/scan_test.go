package kstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
)

// ringFake serves a table's rows by token range, paged, as a node does:
// each row has a token (a hash of its id), a range's rows come in token
// order, and a page state is the offset of the next row.
type ringFake struct {
	fake
	rows    []*fUser
	tokens  []string // system.local's
	mu      sync.Mutex
	queries []string
}

func tokenOf(u *fUser) int64 {
	h := fnv.New64a()
	h.Write(u.ID[:])
	return int64(h.Sum64())
}

func (f *ringFake) QueryCQL(_ context.Context, stmt string, _ []any, _ kandra.Consistency) ([]map[string]any, error) {
	switch stmt {
	case "SELECT tokens FROM system.local":
		return []map[string]any{{"tokens": f.tokens}}, nil
	case "SELECT tokens FROM system.peers":
		return nil, nil
	}
	return nil, errors.New("no such table") // system_schema.tables: no tablets here
}

func (f *ringFake) Query(ctx context.Context, q *adapter.Query) (adapter.Rows, error) {
	cql := q.Statement.CQL()
	f.mu.Lock()
	f.queries = append(f.queries, cql)
	f.mu.Unlock()
	if !strings.Contains(cql, "token(") {
		return f.fake.Query(ctx, q)
	}
	start, end := q.Values[0].(int64), q.Values[1].(int64)
	var in []*fUser
	for _, u := range f.rows {
		if t := tokenOf(u); t > start && t <= end {
			in = append(in, u)
		}
	}
	slices.SortFunc(in, func(a, b *fUser) int { return compareInt(tokenOf(a), tokenOf(b)) })
	if strings.HasPrefix(cql, "SELECT COUNT(") {
		return &fakeRows{rows: [][]any{{int64(len(in))}}}, nil
	}
	off := 0
	if len(q.PageState) > 0 {
		off = int(binary.BigEndian.Uint32(q.PageState))
	}
	end2 := min(off+q.PageSize, len(in))
	var rows [][]any
	for _, u := range in[off:end2] {
		var row []any
		for _, c := range q.Statement.ResultColumns() {
			p, _ := c.Pointer(u)
			row = append(row, reflect.ValueOf(p).Elem().Interface())
		}
		rows = append(rows, row)
	}
	var next []byte
	if end2 < len(in) {
		next = binary.BigEndian.AppendUint32(nil, uint32(end2))
	}
	return &fakeRows{rows: rows, state: next}, nil
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// fakeRows hands out its rows, each value set into the target at its
// place.
type fakeRows struct {
	rows   [][]any
	i      int
	state  []byte
	closed bool // an adapter may reuse closed rows (adapter.Rows)
}

func (r *fakeRows) Next(dst []any) bool {
	if r.closed {
		panic("Next after Close")
	}
	if r.i >= len(r.rows) {
		return false
	}
	for j, v := range r.rows[r.i] {
		reflect.ValueOf(dst[j]).Elem().Set(reflect.ValueOf(v))
	}
	r.i++
	return true
}
func (r *fakeRows) PageState() []byte {
	if r.closed {
		panic("PageState after Close")
	}
	return r.state
}

func (r *fakeRows) Close() error {
	if r.closed {
		panic("Close twice")
	}
	r.closed = true
	return nil
}

func newRingFake(t *testing.T, n int) (*ringFake, *Repo[fUser]) {
	f := &ringFake{fake: fake{applied: true}, tokens: []string{"-4611686018427387904", "0", "4611686018427387904"}}
	for i := range n {
		f.rows = append(f.rows, &fUser{ID: uuid.NewSHA1(uuid.NameSpaceOID, []byte(fmt.Sprint(i))), Email: fmt.Sprintf("u%d@x", i), Bio: "bio", Version: 1})
	}
	rt, err := New(f, testKeyspace)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	return f, MustNewRepo(rt, fUsers)
}

// A scan hands on every row once, over ranges cut at the ring's tokens;
// stopped part way, it resumes from its position (through its string)
// and hands on the rest, none skipped.
func TestScanEveryRowOnceAndResumes(t *testing.T) {
	f, repo := newRingFake(t, 500)
	ctx := context.Background()
	var mu sync.Mutex
	seen := map[uuid.UUID]int{}
	each := func(u *fUser) error {
		mu.Lock()
		defer mu.Unlock()
		seen[u.ID]++
		return nil
	}
	res, err := repo.Scan(ctx, each, Concurrency(3), PageSize(7))
	if err != nil || res.Rows != 500 || res.Ring != "vnodes" || res.Ranges < 12 || !res.Position.Done() {
		t.Fatalf("scan: %+v, %v", res, err)
	}
	for _, u := range f.rows {
		if seen[u.ID] != 1 {
			t.Fatalf("row %s handed on %d times", u.ID, seen[u.ID])
		}
	}

	// Stop after 200 rows, keep the last position OnProgress gave.
	clear(seen)
	stop := errors.New("stop")
	var saved string
	var progress []ScanProgress
	n := 0
	res, err = repo.Scan(ctx, func(u *fUser) error {
		mu.Lock()
		defer mu.Unlock()
		if n == 200 {
			return stop
		}
		n++
		seen[u.ID]++
		return nil
	}, Concurrency(2), PageSize(9), Ranges(10), OnProgress(func(p ScanProgress) { progress = append(progress, p); saved = p.Position.String() }))
	if !errors.Is(err, stop) || res.Position.Done() || res.Ranges != 10 || res.Ring != "even" {
		t.Fatalf("stopped scan: %+v, %v", res, err)
	}
	if len(progress) == 0 || progress[len(progress)-1].Table != "fusers" || progress[len(progress)-1].Ranges != 10 {
		t.Fatalf("progress: %+v", progress)
	}
	pos, err := ParseScanPosition(saved)
	if err != nil {
		t.Fatal(err)
	}
	res, err = repo.Scan(ctx, each, ResumeFrom(pos), Concurrency(2), PageSize(9))
	if err != nil || !res.Resumed || res.Ring != "resumed" || !res.Position.Done() {
		t.Fatalf("resumed scan: %+v, %v", res, err)
	}
	again := 0
	for _, u := range f.rows {
		switch seen[u.ID] {
		case 0:
			t.Fatalf("row %s skipped by the resumed scan", u.ID)
		case 2:
			again++ // a page in flight when it stopped
		case 1:
		default:
			t.Fatalf("row %s handed on %d times", u.ID, seen[u.ID])
		}
	}
	if again > 2*9 {
		t.Fatalf("%d rows handed on again: more than the pages in flight", again)
	}

	// A position resumes only its own scan.
	_, err = repo.Scan(ctx, each, ResumeFrom(pos), Columns(fUserEmail))
	if !errors.Is(err, kerrors.ErrArgument) || !strings.Contains(err.Error(), "another scan") {
		t.Fatalf("position of another scan: %v", err)
	}
}

var fUserEmail = kandra.MustFieldOf(fUsers, func(u *fUser) *string { return &u.Email })

// Columns reads the key and the columns asked for; the others are zero.
func TestScanColumnsAndCountAll(t *testing.T) {
	f, repo := newRingFake(t, 50)
	ctx := context.Background()
	var got []*fUser
	var mu sync.Mutex
	if _, err := repo.Scan(ctx, func(u *fUser) error { mu.Lock(); got = append(got, u); mu.Unlock(); return nil }, Columns(fUserEmail)); err != nil {
		t.Fatal(err)
	}
	if len(got) != 50 || got[0].Email == "" || got[0].ID == (uuid.UUID{}) || got[0].Bio != "" || got[0].Version != 0 {
		t.Fatalf("%d rows, first %+v", len(got), got[0])
	}
	if !slices.ContainsFunc(f.queries, func(q string) bool {
		return strings.HasPrefix(q, "SELECT id, email FROM ks.fusers WHERE token(id) > ?")
	}) {
		t.Fatalf("queries: %q", f.queries[:1])
	}
	n, err := repo.CountAll(ctx, Concurrency(2))
	if err != nil || n != 50 {
		t.Fatalf("CountAll = %d, %v", n, err)
	}
	var rows int
	for u, err := range repo.ScanAll(ctx, PageSize(4)) {
		if err != nil || u == nil {
			t.Fatal(err)
		}
		if rows++; rows == 20 {
			break // stops the scan
		}
	}
	if rows != 20 {
		t.Fatalf("%d rows", rows)
	}
	for name, err := range map[string]error{
		"nil each":       func() error { _, err := repo.Scan(ctx, nil); return err }(),
		"Concurrency(0)": func() error { _, err := repo.Scan(ctx, func(*fUser) error { return nil }, Concurrency(0)); return err }(),
		"Ranges(0)":      func() error { _, err := repo.Scan(ctx, func(*fUser) error { return nil }, Ranges(0)); return err }(),
		"PageSize(0)":    func() error { _, err := repo.Scan(ctx, func(*fUser) error { return nil }, PageSize(0)); return err }(),
		"After": func() error {
			_, err := repo.Scan(ctx, func(*fUser) error { return nil }, After(Cursor{state: []byte{1}}))
			return err
		}(),
		"Columns()":        func() error { _, err := repo.Scan(ctx, func(*fUser) error { return nil }, Columns()); return err }(),
		"CountAll Resume":  func() error { _, err := repo.CountAll(ctx, ResumeFrom(ScanPosition{})); return err }(),
		"CountAll Columns": func() error { _, err := repo.CountAll(ctx, Columns(fUserEmail)); return err }(),
		"Get WithScores":   func() error { _, err := repo.Get(ctx, &fUser{ID: uuid.New()}, WithScores()); return err }(),
		"Count WithTimes":  func() error { _, err := repo.Count(ctx, &fUser{ID: uuid.New()}, WithTimes(fUserEmail)); return err }(),
	} {
		if !errors.Is(err, kerrors.ErrArgument) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := ParseScanPosition("AAAA"); !errors.Is(err, kerrors.ErrArgument) {
		t.Fatalf("ParseScanPosition(junk): %v", err)
	}
}
