package kandra_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
)

func TestMaskString(t *testing.T) {
	at := time.Date(2020, 1, 2, 3, 4, 5, 6e6, time.FixedZone("x", 3600))
	for _, c := range []struct {
		m    kandra.Mask
		want string
	}{
		{kandra.MaskNull(), "mask_null()"},
		{kandra.MaskDefault(), "mask_default()"},
		{kandra.MaskInner(1, 2), "mask_inner(1, 2)"},
		{kandra.MaskInner(1, 2, '#'), "mask_inner(1, 2, '#')"},
		{kandra.MaskOuter(0, 3, 'é'), "mask_outer(0, 3, 'é')"},
		{kandra.MaskHash(), "mask_hash()"},
		{kandra.MaskHash("sha-512"), "mask_hash('SHA-512')"},
		{kandra.MaskReplace("redacted"), "mask_replace('redacted')"},
		{kandra.MaskReplace(""), "mask_replace('')"},
		{kandra.MaskReplace(-1), "mask_replace(-1)"},
		{kandra.MaskReplace(uint16(7)), "mask_replace(7)"},
		{kandra.MaskReplace(true), "mask_replace(true)"},
		{kandra.MaskReplace(2.0), "mask_replace(2)"},
		{kandra.MaskReplace(float32(0.1)), "mask_replace(0.1)"},
		{kandra.MaskReplace(1e6), "mask_replace(1e+06)"},
		{kandra.MaskReplace([]byte{0xca, 0xfe}), "mask_replace(0xcafe)"},
		{kandra.MaskReplace([]byte{}), "mask_replace(0x)"},
		{kandra.MaskReplace(uuid.Nil), "mask_replace(00000000-0000-0000-0000-000000000000)"},
		{kandra.MaskReplace(at), "mask_replace('2020-01-02T02:04:05.006Z')"},
		{kandra.Mask{}, ""},
	} {
		if got := c.m.String(); got != c.want {
			t.Errorf("%#v: String() = %q, want %q", c.m, got, c.want)
		}
	}
	type status string
	if got := kandra.MaskReplace(status("gone")).String(); got != "mask_replace('gone')" {
		t.Errorf("a named string type: %q", got)
	}
	if f := kandra.MaskInner(1, 2).Function(); f != "mask_inner" || (kandra.Mask{}).Function() != "" || !(kandra.Mask{}).IsZero() || kandra.MaskNull().IsZero() {
		t.Errorf("Function %q, IsZero", f)
	}
}

func TestMaskEqual(t *testing.T) {
	same := [][2]kandra.Mask{
		{kandra.MaskNull(), kandra.MaskNull()},
		{kandra.MaskInner(1, 2), kandra.MaskInner(1, 2, '*')}, // the server's padding
		{kandra.MaskHash(), kandra.MaskHash("SHA-256")},       // and algorithm
		{kandra.MaskHash("sha-1"), kandra.MaskHash("SHA-1")},
		{kandra.MaskReplace(int8(5)), kandra.MaskReplace(int64(5))},
		{kandra.MaskReplace(float32(1.5)), kandra.MaskReplace(1.5)},
		{kandra.MaskReplace([]byte("ab")), kandra.MaskReplace([]byte("ab"))},
		{kandra.Mask{}, kandra.Mask{}},
	}
	for _, p := range same {
		if !p[0].Equal(p[1]) || !p[1].Equal(p[0]) {
			t.Errorf("%v and %v: not Equal", p[0], p[1])
		}
	}
	differ := [][2]kandra.Mask{
		{kandra.MaskNull(), kandra.MaskDefault()},
		{kandra.MaskInner(1, 2), kandra.MaskOuter(1, 2)},
		{kandra.MaskInner(1, 2), kandra.MaskInner(2, 1)},
		{kandra.MaskInner(1, 2, '#'), kandra.MaskInner(1, 2)},
		{kandra.MaskHash("MD5"), kandra.MaskHash()},
		{kandra.MaskReplace("5"), kandra.MaskReplace(5)},
		{kandra.MaskReplace(5), kandra.MaskReplace(5.0)},
		{kandra.MaskReplace("a"), kandra.MaskReplace([]byte("a"))},
		{kandra.MaskNull(), kandra.Mask{}},
		{kandra.MaskHash("nope"), kandra.MaskHash("NOPE")}, // refused masks compare as given
	}
	for _, p := range differ {
		if p[0].Equal(p[1]) || p[1].Equal(p[0]) {
			t.Errorf("%v and %v: Equal", p[0], p[1])
		}
	}
}

func TestMaskCheck(t *testing.T) {
	ok := []struct {
		m kandra.Mask
		t kandra.CQLType
	}{
		{kandra.MaskNull(), kandra.MapOf(kandra.CQLText, kandra.CQLInt)},
		{kandra.MaskDefault(), kandra.VectorOf(kandra.CQLFloat, 3)},
		{kandra.MaskInner(1, 2), kandra.CQLVarchar},
		{kandra.MaskOuter(1, 2, '#'), kandra.CQLAscii},
		{kandra.MaskHash("SHA3-512"), kandra.CQLBlob},
		{kandra.MaskReplace("x"), kandra.CQLAscii},
		{kandra.MaskReplace(-128), kandra.CQLTinyint},
		{kandra.MaskReplace(int64(1) << 40), kandra.CQLVarint},
		{kandra.MaskReplace(0.1), kandra.CQLFloat},
		{kandra.MaskReplace(uuid.MustParse("6ba7b810-9dad-11d1-80b4-00c04fd430c8")), kandra.CQLTimeUUID},
		{kandra.MaskReplace(time.UnixMilli(1)), kandra.CQLTimestamp},
	}
	for _, c := range ok {
		if err := c.m.Check(c.t); err != nil {
			t.Errorf("%v on %v: %v", c.m, c.t, err)
		}
	}
	bad := []struct {
		m    kandra.Mask
		t    kandra.CQLType
		want string
	}{
		{kandra.Mask{}, kandra.CQLText, "the Mask is zero"},
		{kandra.MaskInner(1, 2), kandra.CQLInt, "mask_inner masks text, and the column is INT"},
		{kandra.MaskHash(), kandra.CQLText, "mask_hash returns a blob"},
		{kandra.MaskReplace(32768), kandra.CQLSmallint, "outside the range of the column's type SMALLINT (-32768 to 32767)"},
		{kandra.MaskReplace(time.UnixMilli(5)), kandra.CQLDate, "is not a value of the column's type DATE"},
		{kandra.MaskHash("whirlpool"), kandra.CQLBlob, `MaskHash is given the algorithm "whirlpool"`},
	}
	for _, c := range bad {
		if err := c.m.Check(c.t); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v on %v: %v, want an error containing %q", c.m, c.t, err, c.want)
		}
	}
}

type maskedPatient struct {
	ID        uuid.UUID
	Visit     time.Time
	Name      string
	Note      string
	Ward      string
	Score     float32
	Scan      []byte
	Born      time.Time
	Plain     string
	Tags      []string
	Allergies string
}

func (p *maskedPatient) Describe(s *kandra.Schema[maskedPatient]) {
	s.Table("patients")
	kandra.Bind(s, &p.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &p.Visit, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.Bind(s, &p.Name, kandra.Masked(kandra.MaskInner(1, 0)))
	kandra.Bind(s, &p.Note, kandra.Masked(kandra.MaskReplace("redacted")))
	kandra.Bind(s, &p.Ward, kandra.Static(), kandra.Masked(kandra.MaskDefault()))
	kandra.Bind(s, &p.Score, kandra.Masked(kandra.MaskReplace(0.1)))
	kandra.Bind(s, &p.Scan, kandra.Masked(kandra.MaskHash("SHA-512")))
	kandra.Bind(s, &p.Born, kandra.Masked(kandra.MaskReplace(time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC))))
	kandra.Bind(s, &p.Tags, kandra.Masked(kandra.MaskNull()))
	kandra.Bind(s, &p.Allergies, kandra.Masked(kandra.MaskOuter(0, 0)), kandra.Masked(kandra.MaskOuter(0, 0))) // the same mask twice is one
}

func TestMaskedDDL(t *testing.T) {
	patients := kandra.MustRegister[maskedPatient]()
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "clinic", Replication: kandra.SimpleStrategy(1), Targets: kandra.Cassandra5 | kandra.Cassandra5Latest}, patients)
	create, err := ks.CreateTable(patients)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"    id UUID,\n",
		"    name TEXT MASKED WITH mask_inner(1, 0),\n",
		"    note TEXT MASKED WITH mask_replace('redacted'),\n",
		"    ward TEXT STATIC MASKED WITH mask_default(),\n",
		"    score FLOAT MASKED WITH mask_replace(0.1),\n",
		"    scan BLOB MASKED WITH mask_hash('SHA-512'),\n",
		"    born TIMESTAMP MASKED WITH mask_replace('1970-01-01T00:00:00.000Z'),\n",
		"    plain TEXT,\n",
		"    tags LIST<TEXT> MASKED WITH mask_null(),\n",
		"    allergies TEXT MASKED WITH mask_outer(0, 0),\n",
	} {
		if !strings.Contains(create, line) {
			t.Errorf("CREATE TABLE lacks %q:\n%s", line, create)
		}
	}
	col := func(name string) *kandra.ColumnSchema { return patients.Schema().ColumnByName(name) }
	// A FLOAT column's replacement is rounded to float32, as the server stores it.
	if m, ok := col("score").Mask(); !ok || !m.Equal(kandra.MaskReplace(float32(0.1))) || m.Equal(kandra.MaskReplace(0.1)) {
		t.Errorf("score's mask %v, %v: want float32(0.1)", m, ok)
	}
	if m, ok := col("plain").Mask(); ok || !m.IsZero() {
		t.Errorf("plain's mask %v, %v: want none", m, ok)
	}
	add, err := ks.AlterTableAdd(patients, col("ward"))
	if want := "ALTER TABLE clinic.patients ADD ward TEXT STATIC MASKED WITH mask_default();"; err != nil || add != want {
		t.Errorf("AlterTableAdd: %q, %v; want %q", add, err, want)
	}
	set, err := ks.AlterColumnMask(patients, col("name"))
	if want := "ALTER TABLE clinic.patients ALTER name MASKED WITH mask_inner(1, 0);"; err != nil || set != want {
		t.Errorf("AlterColumnMask: %q, %v; want %q", set, err, want)
	}
	drop, err := ks.AlterColumnMask(patients, col("plain"))
	if want := "ALTER TABLE clinic.patients ALTER plain DROP MASKED;"; err != nil || drop != want {
		t.Errorf("AlterColumnMask of an unmasked column: %q, %v; want %q", drop, err, want)
	}
	other := kandra.MustRegister[maskedOther]()
	var se *kandra.SchemaError
	if _, err := ks.AlterColumnMask(patients, other.Schema().ColumnByName("x")); !errors.As(err, &se) || se.Rule != kandra.RuleBinding {
		t.Errorf("a column of another table: %v", err)
	}
	if _, err := ks.AlterColumnMask(other, other.Schema().ColumnByName("x")); !errors.As(err, &se) || se.Rule != kandra.RuleNotInKeyspace {
		t.Errorf("a table of another keyspace: %v", err)
	}
	// ScyllaDB has no masks: NewKeyspace names the field and the way out.
	_, err = kandra.NewKeyspace(kandra.KeyspaceSpec{Name: "clinic", Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 1}), Targets: kandra.Cassandra5 | kandra.Scylla2025}, patients)
	if !errors.As(err, &se) || se.Rule != kandra.RuleMaskTarget || !strings.Contains(se.Detail, "kandra_test.maskedPatient.Name is masked with mask_inner(1, 0)") {
		t.Errorf("a masked column on ScyllaDB: %v", err)
	}
}

type maskedOther struct {
	ID string
	X  string
}

func (o *maskedOther) Describe(s *kandra.Schema[maskedOther]) {
	s.Table("other")
	kandra.Bind(s, &o.ID, kandra.PartitionKey(0))
}
