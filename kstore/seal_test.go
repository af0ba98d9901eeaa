package kstore

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
)

// fDiary is partitioned by a Sensitive column, with a Sensitive lookup and
// an index: every read of it pages rows whose key is Sensitive.
type fDiary struct {
	Owner string
	At    time.Time
	Code  string
	Mood  string
}

func (d *fDiary) Describe(s *kandra.Schema[fDiary]) {
	s.Table("fdiaries")
	kandra.Bind(s, &d.Owner, kandra.PartitionKey(0), kandra.Sensitive())
	kandra.Bind(s, &d.At, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &d.Code, kandra.Lookup("by_code", kandra.LookupBatch), kandra.Sensitive())
	kandra.Bind(s, &d.Mood, kandra.SecondaryIndex())
}

// fLog has no Sensitive column: its cursors are not sealed.
type fLog struct {
	Stream string
	At     time.Time
	Host   net.IP
	Line   string
}

func (l *fLog) Describe(s *kandra.Schema[fLog]) {
	s.Table("flogs")
	kandra.Bind(s, &l.Stream, kandra.PartitionKey(0))
	kandra.Bind(s, &l.At, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &l.Host, kandra.SecondaryIndex())
}

var (
	fDiaries  = kandra.MustRegister[fDiary]()
	fLogs     = kandra.MustRegister[fLog]()
	diaryCode = kandra.MustFieldOf(fDiaries, func(d *fDiary) *string { return &d.Code })
	diaryMood = kandra.MustFieldOf(fDiaries, func(d *fDiary) *string { return &d.Mood })
	logAt     = kandra.MustFieldOf(fLogs, func(l *fLog) *time.Time { return &l.At })
	logHost   = kandra.MustFieldOf(fLogs, func(l *fLog) *net.IP { return &l.Host })
	sealKS    = kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Targets: kandra.Cassandra5,
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3})}, fDiaries, fLogs)
)

// stateFake answers every SELECT with no rows and the page state state,
// as a server holding the last row's key (a Sensitive value) would, and
// records the page state each query was sent with.
type stateFake struct {
	fake
	state []byte
	smu   sync.Mutex
	got   [][]byte
}

func (f *stateFake) Query(ctx context.Context, q *adapter.Query) (adapter.Rows, error) {
	f.smu.Lock()
	f.got = append(f.got, append([]byte(nil), q.PageState...))
	f.smu.Unlock()
	return stateRows{f.state}, nil
}

func (f *stateFake) last() []byte {
	f.smu.Lock()
	defer f.smu.Unlock()
	return f.got[len(f.got)-1]
}

type stateRows struct{ state []byte }

func (stateRows) Next([]any) bool     { return false }
func (r stateRows) PageState() []byte { return r.state }
func (stateRows) Close() error        { return nil }

func newSealStore(t *testing.T, f adapter.Driver, opts ...Option) *Store {
	t.Helper()
	rt, err := New(f, sealKS, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	return rt
}

// inClear reports whether the cursor's text shows secret.
func inClear(t *testing.T, c Cursor, secret string) bool {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(c.String())
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Contains(b, []byte(secret)) || bytes.Contains([]byte(c.String()), []byte(secret))
}

// TestSensitiveCursorsSealed (issue 33, finding 9): the cursor of a read
// of a table keyed by a Sensitive column, or by a Sensitive value, shows
// neither the value nor the page state in its String, resumes its own
// query (the driver gets the page state back as the server gave it), and
// is refused by the List of another partition, the FindAll of another
// value, a runtime with another key, and when tampered with.
func TestSensitiveCursorsSealed(t *testing.T) {
	const secret = "owner-secret-4242"
	ctx := context.Background()
	f := &stateFake{state: []byte("partition=" + secret + ";row=7")}
	key := bytes.Repeat([]byte{7}, MinCursorKeyBytes)
	rt := newSealStore(t, f, WithCursorKey(key))

	reads := map[string]func(*Store, string, ...ListOption) *Iter[fDiary]{
		"List": func(rt *Store, v string, opts ...ListOption) *Iter[fDiary] {
			return MustNewRepo(rt, fDiaries).List(ctx, &fDiary{Owner: v}, opts...)
		},
		"Lookup.FindAll": func(rt *Store, v string, opts ...ListOption) *Iter[fDiary] {
			return MustLookupOf(MustNewRepo(rt, fDiaries), diaryCode).FindAll(ctx, v, opts...)
		},
		"Index.Find": func(rt *Store, v string, opts ...ListOption) *Iter[fDiary] {
			return MustIndexOf(MustNewRepo(rt, fDiaries), diaryMood).Find(ctx, v, opts...)
		},
	}
	for name, read := range reads {
		t.Run(name, func(t *testing.T) {
			it := read(rt, secret)
			if it.Err() != nil || it.Cursor().IsZero() {
				t.Fatalf("%v %v", it.Err(), it.Cursor())
			}
			c := it.Cursor()
			if inClear(t, c, secret) || inClear(t, c, string(f.state)) {
				t.Errorf("the cursor shows the page state or the value: %s", c)
			}
			parsed, err := ParseCursor(c.String())
			if err != nil {
				t.Fatal(err)
			}
			if err := read(rt, secret, After(parsed)).Err(); err != nil {
				t.Fatalf("its own query: %v", err)
			}
			if got := f.last(); !bytes.Equal(got, f.state) {
				t.Errorf("the driver got the page state %q, want %q", got, f.state)
			}
			if name != "Index.Find" { // an index read's value is not the Sensitive one
				if err := read(rt, "another", After(parsed)).Err(); !errors.Is(err, kerrors.ErrArgument) {
					t.Errorf("another partition or value took the cursor: %v", err)
				}
			}
			same := newSealStore(t, f, WithCursorKey(key))
			if err := read(same, secret, After(parsed)).Err(); err != nil {
				t.Errorf("a runtime with the same WithCursorKey: %v", err)
			}
			for what, other := range map[string]*Store{
				"a random key": newSealStore(t, f),
				"another key":  newSealStore(t, f, WithCursorKey(bytes.Repeat([]byte{8}, MinCursorKeyBytes))),
			} {
				if err := read(other, secret, After(parsed)).Err(); !errors.Is(err, kerrors.ErrArgument) || !strings.Contains(err.Error(), "WithCursorKey") {
					t.Errorf("a runtime with %s took the cursor, or did not name WithCursorKey: %v", what, err)
				}
			}
			raw, _ := base64.RawURLEncoding.DecodeString(c.String())
			raw[len(raw)-1] ^= 1
			tampered, err := ParseCursor(base64.RawURLEncoding.EncodeToString(raw))
			if err != nil {
				t.Fatal(err)
			}
			if err := read(rt, secret, After(tampered)).Err(); !errors.Is(err, kerrors.ErrArgument) {
				t.Errorf("a tampered cursor: %v", err)
			}
		})
	}
	if _, err := New(f, sealKS, WithCursorKey(make([]byte, MinCursorKeyBytes-1))); err == nil {
		t.Error("a short WithCursorKey was taken")
	}
	if _, err := New(f, sealKS, WithCursorKey(nil)); err == nil {
		t.Error("an empty WithCursorKey was taken")
	}
}

// TestCursorFingerprintStoredForm: a query's fingerprint takes each value
// in its stored form, so the cursor of a bound in one Go form resumes the
// query with the bound in another (another zone, sub-millisecond parts, a
// 16-byte IPv4), and is refused by another stored value. A cursor of a
// table without Sensitive values is not sealed: any runtime resumes it.
func TestCursorFingerprintStoredForm(t *testing.T) {
	ctx := context.Background()
	f := &stateFake{state: []byte{1, 2, 3}}
	rt := newSealStore(t, f)
	other := newSealStore(t, f) // another random key
	logs, logs2 := MustNewRepo(rt, fLogs), MustNewRepo(other, fLogs)
	at := time.Date(2025, 5, 6, 7, 8, 9, 123_000_000, time.UTC)
	it := logs.List(ctx, &fLog{Stream: "s"}, From(logAt, at, true))
	if it.Err() != nil || it.Cursor().IsZero() {
		t.Fatalf("%v %v", it.Err(), it.Cursor())
	}
	c := it.Cursor()
	if c.query&sealedBit != 0 || !bytes.Equal(c.state, f.state) {
		t.Errorf("a cursor without Sensitive values is sealed: %+v", c)
	}
	for name, bound := range map[string]time.Time{
		"another zone":    at.In(time.FixedZone("CEST", 7200)),
		"sub-ms":          at.Add(456 * time.Microsecond),
		"zone and sub-ms": at.Add(999_999 * time.Nanosecond).In(time.FixedZone("X", -3600)),
	} {
		if err := logs.List(ctx, &fLog{Stream: "s"}, From(logAt, bound, true), After(c)).Err(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if err := logs2.List(ctx, &fLog{Stream: "s"}, From(logAt, bound, true), After(c)).Err(); err != nil {
			t.Errorf("%s, another runtime: %v", name, err)
		}
	}
	if err := logs.List(ctx, &fLog{Stream: "s"}, From(logAt, at.Add(time.Millisecond), true), After(c)).Err(); !errors.Is(err, kerrors.ErrArgument) {
		t.Errorf("another stored bound took the cursor: %v", err)
	}

	hosts := MustIndexOf(logs, logHost)
	ip := net.ParseIP("10.1.2.3") // 16 bytes; stored as 4
	it = hosts.Find(ctx, ip)
	if it.Err() != nil || it.Cursor().IsZero() {
		t.Fatalf("%v %v", it.Err(), it.Cursor())
	}
	if err := hosts.Find(ctx, ip.To4(), After(it.Cursor())).Err(); err != nil {
		t.Errorf("the 4-byte form of the address: %v", err)
	}
	if err := hosts.Find(ctx, net.ParseIP("10.1.2.4"), After(it.Cursor())).Err(); !errors.Is(err, kerrors.ErrArgument) {
		t.Errorf("another address took the cursor: %v", err)
	}
}

// TestSealRoundTrip: seal and open are inverse for one fingerprint, and
// open refuses another fingerprint, another key, a cut or a changed byte.
func TestSealRoundTrip(t *testing.T) {
	k, err := newCursorKeys(bytes.Repeat([]byte{1}, 32))
	if err != nil {
		t.Fatal(err)
	}
	k2, _ := newCursorKeys(nil)
	for _, state := range [][]byte{{0}, []byte("a page state"), bytes.Repeat([]byte{0xff}, 5000)} {
		fp := k.sum(state, true)
		if fp&sealedBit == 0 {
			t.Fatal("a sealed fingerprint without sealedBit")
		}
		s := k.seal(state, fp)
		if bytes.Contains(s, state) && len(state) > 4 {
			t.Errorf("the sealed state holds the state")
		}
		if got, ok := k.open(s, fp); !ok || !bytes.Equal(got, state) {
			t.Errorf("open(seal(%q)) = %q, %v", state, got, ok)
		}
		if !bytes.Equal(s, k.seal(state, fp)) {
			t.Error("one state of one query seals to two cursors")
		}
		if _, ok := k.open(s, fp^2); ok {
			t.Error("opened under another fingerprint")
		}
		if _, ok := k2.open(s, fp); ok {
			t.Error("opened under another key")
		}
		if _, ok := k.open(s[:len(s)-1], fp); ok {
			t.Error("opened a cut state")
		}
		b := append([]byte(nil), s...)
		b[len(b)/2] ^= 0x80
		if _, ok := k.open(b, fp); ok {
			t.Error("opened a changed state")
		}
	}
	if _, ok := k.open(nil, 3); ok {
		t.Error("opened nothing")
	}
	if k.sum([]byte("x"), false)&sealedBit != 0 {
		t.Error("a plain fingerprint with sealedBit")
	}
}
