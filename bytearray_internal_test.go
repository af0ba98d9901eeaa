package kandra

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// Fixed-size byte arrays: a [16]byte is a UUID unless AsType makes it a
// BLOB; any other [N]byte is a BLOB only when AsType says so.

// baDigest is a named fixed-size hash.
type baDigest [32]byte

// baRow keys a row by a 32-byte hash and holds byte arrays in every place
// a column can hold them.
type baRow struct {
	Hash  baDigest
	ID    [16]byte
	Ref   uuid.UUID
	Raw   uuid.UUID
	Tag   *[20]byte
	Parts [][8]byte
	Seen  map[[4]byte]struct{}
	Names map[[4]byte]string
}

func describeBARow(b *baRow, s *Schema[baRow]) {
	s.Table("blobbed")
	Bind(s, &b.Hash, PartitionKey(0), AsType(CQLBlob))
	Bind(s, &b.ID, ClusteringKey(0, ClusteringDesc), AsType(CQLBlob))
	Bind(s, &b.Raw, AsType(CQLBlob), Lookup("by_raw", LookupBatch))
	Bind(s, &b.Tag, AsType(CQLBlob), SecondaryIndex(UsingLegacy()))
	Bind(s, &b.Parts, AsType(ListOf(CQLBlob)))
	Bind(s, &b.Seen, AsType(SetOf(CQLBlob)))
	Bind(s, &b.Names, AsType(MapOf(CQLBlob, CQLText)))
}

func TestByteArraysAsBlob(t *testing.T) {
	ts, _, err := buildSchema(describeBARow)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"hash": "BLOB", "id": "BLOB", "ref": "UUID", "raw": "BLOB", "tag": "BLOB",
		"parts": "LIST<BLOB>", "seen": "SET<BLOB>", "names": "MAP<BLOB, TEXT>",
	} {
		if got := ts.ColumnByName(name).Type().String(); got != want {
			t.Errorf("column %s is %s, want %s", name, got, want)
		}
	}
	k, err := NewKeyspace(KeyspaceSpec{Name: "ks", Replication: SimpleStrategy(1), Targets: Cassandra5}, ts)
	if err != nil {
		t.Fatal(err)
	}
	ddl := strings.Join(k.Statements(), "\n")
	for _, want := range []string{
		"hash BLOB,", "id BLOB,", "ref UUID,", "raw BLOB,", "tag BLOB,", "parts LIST<BLOB>,", "seen SET<BLOB>,",
		"names MAP<BLOB, TEXT>,", "PRIMARY KEY (hash, id)", "CREATE TABLE IF NOT EXISTS ks.blobbed_by_raw (\n    raw BLOB,",
		"CREATE INDEX IF NOT EXISTS blobbed_tag_idx ON ks.blobbed (tag)",
	} {
		if !strings.Contains(ddl, want) {
			t.Errorf("the DDL lacks %q:\n%s", want, ddl)
		}
	}
}

// baUT is an entity whose field X, of type V, takes the options a test
// gives.
type baUT[V any] struct {
	ID string
	X  V
}

func buildBA[V any](opts ...FieldOption) error {
	_, _, err := buildSchema(func(e *baUT[V], s *Schema[baUT[V]]) {
		s.Table("t")
		Bind(s, &e.ID, PartitionKey(0))
		Bind(s, &e.X, opts...)
	})
	return err
}

func TestByteArraysRefused(t *testing.T) {
	for _, c := range []struct {
		name   string
		err    error
		rule   Rule
		detail string
	}{
		{"a [32]byte without AsType", buildBA[[32]byte](), RuleUnsupportedType,
			"type [32]uint8: kandra stores a byte array other than [16]byte only when told to: bind the field with kandra.AsType(kandra.CQLBlob) to store its 32 bytes as a BLOB|Transient()"},
		{"a named [32]byte without AsType", buildBA[baDigest](), RuleUnsupportedType, "type kandra.baDigest: kandra stores a byte array|kandra.AsType(kandra.CQLBlob)"},
		{"a [1]byte without AsType", buildBA[[1]byte](), RuleUnsupportedType, "its 1 bytes as a BLOB"},
		{"a list of [8]byte without AsType", buildBA[[][8]byte](), RuleUnsupportedType, "kandra.AsType(kandra.CQLBlob)|kandra.ListOf(kandra.CQLBlob)"},
		{"a [0]byte", buildBA[[0]byte](), RuleUnsupportedType, "a [0]byte holds no bytes"},
		{"a [32]byte as TEXT", buildBA[[32]byte](AsType(CQLText)), RuleUnsupportedType,
			"AsType(TEXT): a field of type [32]uint8 cannot be stored as TEXT: the driver marshals it to BLOB only"},
		{"a *[32]byte as UUID", buildBA[*[32]byte](AsType(CQLUUID)), RuleUnsupportedType, "cannot be stored as UUID"},
		{"a [16]byte as TEXT", buildBA[[16]byte](AsType(CQLText)), RuleUnsupportedType,
			"a field of type [16]uint8 cannot be stored as TEXT: the driver marshals it to UUID or TIMEUUID, BLOB"},
		{"a list of [8]byte as LIST<TEXT>", buildBA[[][8]byte](AsType(ListOf(CQLText))), RuleUnsupportedType, "cannot be stored as LIST<TEXT>"},
		{"a list of [8]byte as BLOB", buildBA[[][8]byte](AsType(CQLBlob)), RuleUnsupportedType, "cannot be stored as BLOB"},
		{"a [0]byte as BLOB", buildBA[[0]byte](AsType(CQLBlob)), RuleUnsupportedType, "a [0]byte holds no bytes"},
		{"a list of [0]byte as LIST<BLOB>", buildBA[[][0]byte](AsType(ListOf(CQLBlob))), RuleUnsupportedType, "a [0]byte holds no bytes"},
		{"an SAI index on a [32]byte", buildBA[[32]byte](AsType(CQLBlob), SecondaryIndex(UsingSAI())), RuleSAI, "blob"},
	} {
		var se *SchemaError
		if !errors.As(c.err, &se) || se.Rule != c.rule || se.Field != "X" {
			t.Errorf("%s: %v; want %s on X", c.name, c.err, c.rule)
			continue
		}
		for _, part := range strings.Split(c.detail, "|") {
			if !strings.Contains(se.Detail, part) {
				t.Errorf("%s: the detail %q lacks %q", c.name, se.Detail, part)
			}
		}
	}
	// Accepted: every byte array as a BLOB, [16]byte and its named types
	// included, and a [16]byte's own UUID and TIMEUUID.
	for name, err := range map[string]error{
		"[1]byte":          buildBA[[1]byte](AsType(CQLBlob)),
		"[16]byte":         buildBA[[16]byte](AsType(CQLBlob)),
		"[16]byte as UUID": buildBA[[16]byte](),
		"uuid.UUID":        buildBA[uuid.UUID](AsType(CQLBlob)),
		"a named uuid":     buildBA[rulesUserID](AsType(CQLBlob)),
		"*[32]byte":        buildBA[*[32]byte](AsType(CQLBlob)),
		"[32]byte key":     buildBA[[32]byte](AsType(CQLBlob), ClusteringKey(0, ClusteringAsc)),
		"[64]byte lookup":  buildBA[[64]byte](AsType(CQLBlob), Lookup("by_x", LookupUnique)),
		"a legacy index":   buildBA[[32]byte](AsType(CQLBlob), SecondaryIndex(UsingLegacy())),
		"map of lists":     buildBA[map[[2]byte][][3]byte](AsType(MapOf(CQLBlob, ListOf(CQLBlob)))),
	} {
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestByteArraysStored: a byte array is stored as exactly its bytes,
// never null (the zero array too), ordered and compared as unsigned bytes,
// in a column, behind a pointer and inside collections.
func TestByteArraysStored(t *testing.T) {
	ts, _, err := buildSchema(describeBARow)
	if err != nil {
		t.Fatal(err)
	}
	framed := func(b ...byte) []byte { return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...) }
	hash := ts.ColumnByName("hash")
	h := baDigest{0: 0xff, 31: 1}
	if got, err := hash.AppendStored(nil, &h); err != nil || !bytes.Equal(got, framed(h[:]...)) {
		t.Errorf("AppendStored(%x) = %x, %v", h, got, err)
	}
	var zero baDigest
	if got, err := hash.AppendStored(nil, &zero); err != nil || !bytes.Equal(got, framed(make([]byte, 32)...)) {
		t.Errorf("the zero array: %x, %v; want 32 zero bytes", got, err)
	}
	if hash.SentAsNull(&zero) || hash.CheckValue(&zero) != nil {
		t.Errorf("the zero array is sent as null or refused")
	}
	low := baDigest{0: 0x7f}
	if c, err := hash.CompareStored(&low, &h); err != nil || c != -1 {
		t.Errorf("CompareStored(0x7f..., 0xff...) = %d, %v; want -1 (unsigned bytes)", c, err)
	}
	h2 := h
	if !hash.SameStored(&h, &h2) || hash.SameStored(&h, &low) {
		t.Errorf("SameStored")
	}
	id := ts.ColumnByName("id")
	u := [16]byte(uuid.New())
	if got, err := id.AppendStored(nil, &u); err != nil || !bytes.Equal(got, framed(u[:]...)) {
		t.Errorf("a [16]byte BLOB: %x, %v", got, err)
	}
	tag := ts.ColumnByName("tag")
	var nilTag *[20]byte
	if got, err := tag.AppendStored(nil, &nilTag); err != nil || !bytes.Equal(got, []byte{0xff, 0xff, 0xff, 0xff}) {
		t.Errorf("a nil *[20]byte: %x, %v; want null", got, err)
	}
	// A set in the server's order (unsigned bytes), each element framed.
	seen := map[[4]byte]struct{}{{9, 0, 0, 0}: {}, {0x80, 1, 2, 3}: {}, {1, 2, 3, 4}: {}}
	want := binary.BigEndian.AppendUint32(nil, 3)
	for _, e := range [][]byte{{1, 2, 3, 4}, {9, 0, 0, 0}, {0x80, 1, 2, 3}} {
		want = append(want, framed(e...)...)
	}
	if got, err := ts.ColumnByName("seen").AppendStored(nil, &seen); err != nil || !bytes.Equal(got, framed(want...)) {
		t.Errorf("a set of [4]byte: %x, %v; want %x", got, err, framed(want...))
	}
	// Through reflect, an array that is not addressable (a map's key, a
	// value): the same bytes.
	enc, problem := planStored(reflect.TypeFor[[3]byte](), CQLBlob, storedCtx{top: true})
	if problem != "" {
		t.Fatal(problem)
	}
	got, null, fail := enc(nil, reflect.ValueOf([3]byte{1, 2, 3}))
	if fail != nil || null || !bytes.Equal(got, []byte{1, 2, 3}) {
		t.Errorf("an unaddressable [3]byte: %x %v %v", got, null, fail)
	}
}
