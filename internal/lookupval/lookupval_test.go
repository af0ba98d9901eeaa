package lookupval_test

import (
	"net"
	"net/netip"
	"testing"

	"github.com/google/uuid"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/lookupval"
)

// lv holds a lookup value of each shape: the runtime and the backfill
// write no lookup row for the values the servers store as null or refuse
// as a key.
type lv struct {
	ID      string
	Name    string
	PName   *string
	Blob    []byte
	Tags    []string
	FTags   []string
	PFTags  *[]string
	FLabels map[string]struct{}
	PAddr   *netip.Addr
	PIP     *net.IP
	PRun    *uuid.UUID
}

func (e *lv) Describe(s *kandra.Schema[lv]) {
	s.Table("lv")
	kandra.Bind(s, &e.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.FTags, kandra.Frozen())
	kandra.Bind(s, &e.PFTags, kandra.Frozen())
	kandra.Bind(s, &e.FLabels, kandra.Frozen())
	kandra.Bind(s, &e.PRun, kandra.AsType(kandra.CQLTimeUUID))
}

func TestEmpty(t *testing.T) {
	ts := kandra.MustRegister[lv]()
	col := func(name string) *kandra.ColumnSchema {
		c := ts.Schema().ColumnByName(name)
		if c == nil {
			t.Fatalf("no column %s", name)
		}
		return c
	}
	empty, some := "", "x"
	none, zero, one := []string(nil), []string{}, []string{"a"}
	for _, c := range []struct {
		col  string
		p    any
		want bool
	}{
		{"name", &empty, true},
		{"name", &some, false},
		{"p_name", new(*string), true},
		{"p_name", ptr(&empty), true}, // the pointer is followed: "" is refused as a key
		{"p_name", ptr(&some), false},
		{"blob", &[]byte{}, true},
		{"blob", &[]byte{0}, false},
		{"tags", &none, true},
		{"tags", &zero, true}, // not frozen: stored as null
		{"tags", &one, false},
		{"f_tags", &none, true},
		{"f_tags", &zero, false}, // frozen: an empty value
		{"pf_tags", new(*[]string), true},
		{"pf_tags", ptr(&none), true},
		{"pf_tags", ptr(&zero), false},
		{"f_labels", new(map[string]struct{}), true},
		{"f_labels", &map[string]struct{}{}, false},
		{"p_addr", ptr(&netip.Addr{}), true}, // sent as null, behind a pointer too
		{"p_addr", ptr(ptr(netip.MustParseAddr("10.0.0.1"))), false},
		{"pip", ptr(&net.IP{}), true},
		{"p_run", ptr(&uuid.UUID{}), true},
		{"p_run", ptr(ptr(uuid.MustParse("0a0eebc9-9c0b-11ef-bb6d-6bb9bd380a11"))), false},
	} {
		if got := lookupval.Empty(col(c.col), c.p); got != c.want {
			t.Errorf("%s %#v: Empty %v, want %v", c.col, c.p, got, c.want)
		}
	}
}

func ptr[V any](v V) *V { return &v }
