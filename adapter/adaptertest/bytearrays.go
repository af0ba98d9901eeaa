package adaptertest

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
)

// sha256Sum is a named fixed-size hash, stored as a BLOB of its 32 bytes.
type sha256Sum [32]byte

// blobKeyed keeps fixed-size ids and hashes as BLOBs of exactly their
// length, as live keyspaces do: a SHA-256 partition key, a 16-byte id
// clustering key that is a BLOB, not a UUID, a 16-byte owner found by a
// lookup, a 32-byte body with a legacy index (SAI refuses blobs), a
// nullable one, and byte arrays inside collections.
type blobKeyed struct {
	Digest sha256Sum
	Part   [16]byte
	Owner  [16]byte
	Body   [32]byte
	Prev   *[32]byte
	Chunks [][8]byte
	Names  map[[4]byte]string
}

// Describe implements kandra's description.
func (b *blobKeyed) Describe(s *kandra.Schema[blobKeyed]) {
	s.Table("blob_keyed")
	kandra.Bind(s, &b.Digest, kandra.PartitionKey(0), kandra.AsType(kandra.CQLBlob))
	kandra.Bind(s, &b.Part, kandra.ClusteringKey(0, kandra.ClusteringAsc), kandra.AsType(kandra.CQLBlob))
	kandra.Bind(s, &b.Owner, kandra.AsType(kandra.CQLBlob), kandra.Lookup("by_owner", kandra.LookupBatch))
	kandra.Bind(s, &b.Body, kandra.AsType(kandra.CQLBlob), kandra.SecondaryIndex(kandra.UsingLegacy()))
	kandra.Bind(s, &b.Prev, kandra.AsType(kandra.CQLBlob))
	kandra.Bind(s, &b.Chunks, kandra.AsType(kandra.ListOf(kandra.CQLBlob)))
	kandra.Bind(s, &b.Names, kandra.AsType(kandra.MapOf(kandra.CQLBlob, kandra.CQLText)))
}

// random16 and random32 are random byte arrays.
func random16() (a [16]byte) { _, _ = rand.Read(a[:]); return a }
func random32() (a [32]byte) { _, _ = rand.Read(a[:]); return a }

// testByteArrays writes byte arrays given AsType(BLOB) through the
// adapter, as keys, a lookup column, an indexed column and regular
// columns, reads them back equal (Get, List in the bytes' order, the
// lookup, the index), reads the row with plain CQL to prove the server
// holds BLOBs of exactly their length, and reads a cell of another length
// (written by plain CQL) as an error naming the column. It prints
// "real-server: byte-arrays adapter=<Name> rows=<n> exact=<bool>
// lookup=<bool> index=<bool> ok=<bool>".
func testByteArrays(t *testing.T, h *harness) {
	table := kandra.MustRegister[blobKeyed]()
	owner := kandra.MustFieldOf(table, func(b *blobKeyed) *[16]byte { return &b.Owner })
	body := kandra.MustFieldOf(table, func(b *blobKeyed) *[32]byte { return &b.Body })
	repo := extraRepo(t, h, table)
	rows, exact, lookup, index := 0, false, false, false
	defer func() {
		fmt.Printf("real-server: byte-arrays adapter=%s rows=%d exact=%v lookup=%v index=%v ok=%v\n", h.n.Name, rows, exact, lookup, index, !t.Failed() && exact && lookup && index)
	}()

	digest := sha256Sum(sha256.Sum256([]byte(uniq("doc"))))
	prev := random32()
	a := &blobKeyed{Digest: digest, Part: random16(), Owner: random16(), Body: random32(),
		Prev: &prev, Chunks: [][8]byte{{1, 2, 3, 4, 5, 6, 7, 8}, {}}, Names: map[[4]byte]string{{0xff, 0, 0, 1}: "high", {1, 2, 3, 4}: "low"}}
	// The zero arrays are values (16 and 32 zero bytes), not null.
	b := &blobKeyed{Digest: digest, Part: random16()}
	for _, e := range []*blobKeyed{a, b} {
		if err := repo.Save(ctx, e); err != nil {
			t.Fatalf("Save: %v", err)
		}
		rows++
	}
	for _, e := range []*blobKeyed{a, b} {
		got, err := repo.Get(ctx, &blobKeyed{Digest: e.Digest, Part: e.Part})
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if !reflect.DeepEqual(got, e) {
			t.Errorf("read back %+v\nwrote %+v", got, e)
		}
	}
	// The partition in the clustering column's order: unsigned bytes.
	all, err := repo.List(ctx, &blobKeyed{Digest: digest}).All()
	if err != nil || len(all) != 2 {
		t.Fatalf("List: %d rows, %v", len(all), err)
	}
	if bytes.Compare(all[0].Part[:], all[1].Part[:]) >= 0 {
		t.Errorf("List: %x before %x, not in byte order", all[0].Part, all[1].Part)
	}
	// Found by the lookup and by the legacy index.
	if got, err := kstore.MustLookupOf(repo, owner).Find(ctx, a.Owner); err != nil || got.Part != a.Part {
		t.Errorf("Find by owner: %+v, %v", got, err)
	} else {
		lookup = true
	}
	if got, err := kstore.MustLookupOf(repo, owner).Find(ctx, [16]byte{}); err != nil || got.Part != b.Part {
		t.Errorf("Find by the zero owner: %+v, %v", got, err)
		lookup = false
	}
	if got, err := kstore.MustIndexOf(repo, body).Find(ctx, a.Body).All(); err != nil || len(got) != 1 || got[0].Part != a.Part {
		t.Errorf("index Find by body: %d rows, %v", len(got), err)
	} else {
		index = true
	}
	// An owner moved: the old value is found no more, the new one is.
	moved := *a
	moved.Owner = random16()
	if err := repo.Update(ctx, a, &moved); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if _, err := kstore.MustLookupOf(repo, owner).Find(ctx, a.Owner); !errors.Is(err, kerrors.ErrNotFound) {
		t.Errorf("Find by the old owner after the move: %v", err)
		lookup = false
	}
	if got, err := kstore.MustLookupOf(repo, owner).Find(ctx, moved.Owner); err != nil || got.Part != a.Part {
		t.Errorf("Find by the new owner: %+v, %v", got, err)
		lookup = false
	}

	// Plain CQL, without kandra: the server holds BLOBs of exactly 32 and
	// 16 bytes (toJson renders a blob as 0x and its hex digits), the zero
	// arrays as zero bytes, and the nil pointer as null.
	hexOf := func(b []byte) string { return `"0x` + hex.EncodeToString(b) + `"` }
	from := " FROM " + h.ks + ".blob_keyed WHERE digest = ? AND part = ?"
	var jd, jp, jo, jb, jv string
	if err := h.n.Scan(ctx, "SELECT toJson(digest), toJson(part), toJson(owner), toJson(body), toJson(prev)"+from, []any{digest[:], a.Part[:]}, &jd, &jp, &jo, &jb, &jv); err != nil {
		t.Fatalf("plain SELECT: %v", err)
	}
	exact = jd == hexOf(digest[:]) && jp == hexOf(a.Part[:]) && jo == hexOf(moved.Owner[:]) && jb == hexOf(a.Body[:]) && jv == hexOf(prev[:])
	if !exact {
		t.Errorf("the server holds digest %s part %s owner %s body %s prev %s", jd, jp, jo, jb, jv)
	}
	var rawBody []byte
	if err := h.n.Scan(ctx, "SELECT toJson(owner), toJson(body), toJson(prev), body"+from, []any{digest[:], b.Part[:]}, &jo, &jb, &jv, &rawBody); err != nil {
		t.Fatalf("plain SELECT: %v", err)
	}
	if jo != hexOf(make([]byte, 16)) || jb != hexOf(make([]byte, 32)) || jv != "null" || len(rawBody) != 32 {
		t.Errorf("the zero arrays are held as owner %s body %s (%d bytes), prev %s", jo, jb, len(rawBody), jv)
		exact = false
	}
	// The same row through the adapter's plain rows (the migrator's
	// QueryCQL): the driver's own []byte of 32 bytes.
	maps, err := h.d.QueryCQL(ctx, "SELECT digest, body"+from, []any{digest[:], a.Part[:]}, kandra.ConsistencyOne)
	if err != nil || len(maps) != 1 {
		t.Fatalf("QueryCQL: %v, %v", maps, err)
	}
	if d, _ := maps[0]["digest"].([]byte); !bytes.Equal(d, digest[:]) {
		t.Errorf("QueryCQL reads digest %#v", maps[0]["digest"])
		exact = false
	}

	// A cell another client wrote: null reads as the zero array, a blob
	// of another length fails the read naming the column.
	part := random16()
	if err := h.n.Exec(ctx, "INSERT INTO "+h.ks+".blob_keyed (digest, part) VALUES (?, ?)", digest[:], part[:]); err != nil {
		t.Fatal(err)
	}
	got, err := repo.Get(ctx, &blobKeyed{Digest: digest, Part: part})
	if err != nil || got.Owner != ([16]byte{}) || got.Body != ([32]byte{}) || got.Prev != nil {
		t.Errorf("a row of nulls reads as %+v, %v; want zero arrays and a nil Prev", got, err)
	}
	if err := h.n.Exec(ctx, "UPDATE "+h.ks+".blob_keyed SET body = ? WHERE digest = ? AND part = ?", make([]byte, 31), digest[:], part[:]); err != nil {
		t.Fatal(err)
	}
	var ve *kerrors.ValueError
	_, err = repo.Get(ctx, &blobKeyed{Digest: digest, Part: part})
	if !errors.As(err, &ve) || !ve.Read || ve.Column != "body" || !strings.Contains(ve.Reason, "31 bytes long") || !strings.Contains(ve.Reason, "[32]uint8 holds exactly 32") {
		t.Errorf("a 31-byte body: %v; want a read *kerrors.ValueError naming body, 31 bytes and [32]uint8", err)
	}
	if _, err := repo.List(ctx, &blobKeyed{Digest: digest}).All(); !errors.As(err, &ve) || ve.Column != "body" {
		t.Errorf("List over the 31-byte body: %v; want the read error", err)
	}
}
