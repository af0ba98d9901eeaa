package kandra_test

import (
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

type (
	edgeAt   time.Time
	edgeKind string
)

// edgeRow has a column of every Go type whose values CheckValue checks.
type edgeRow struct {
	ID     int64
	Seen   time.Time
	Day    time.Time
	AtPtr  *time.Time
	Named  edgeAt
	Tod    time.Duration
	Addr   netip.Addr
	IP     net.IP
	Addrs  []netip.Addr
	Code   string
	Name   string
	Secret string
	Stamp  uuid.UUID
	Stamps []uuid.UUID
	Whens  map[string]time.Time
	Plain  int32
	Tags   []string
	Codes  []string
	Labels map[string]struct{}
	Marks  map[string]struct{}
	Attrs  map[string]string
	Counts []int64
	Nick   *string
	Kinds  []edgeKind
	Bag    map[edgeKind]struct{}
}

func (r *edgeRow) Describe(s *kandra.Schema[edgeRow]) {
	s.Table("edge_rows")
	kandra.Bind(s, &r.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &r.Day, kandra.AsType(kandra.CQLDate))
	kandra.Bind(s, &r.Tod, kandra.AsType(kandra.CQLTime))
	kandra.Bind(s, &r.Code, kandra.AsType(kandra.CQLAscii))
	kandra.Bind(s, &r.Secret, kandra.Sensitive())
	kandra.Bind(s, &r.Stamp, kandra.AsType(kandra.CQLTimeUUID))
	kandra.Bind(s, &r.Stamps, kandra.AsType(kandra.ListOf(kandra.CQLTimeUUID)))
	kandra.Bind(s, &r.Codes, kandra.AsType(kandra.ListOf(kandra.CQLAscii)))
	kandra.Bind(s, &r.Marks, kandra.AsType(kandra.SetOf(kandra.CQLAscii)))
	kandra.Bind(s, &r.Attrs, kandra.AsType(kandra.MapOf(kandra.CQLAscii, kandra.CQLText)))
}

// edgeColumn returns edgeRow's column by name.
func edgeColumn(t *testing.T) func(name string) *kandra.ColumnSchema {
	ts := kandra.MustRegister[edgeRow]().Schema()
	return func(name string) *kandra.ColumnSchema {
		t.Helper()
		c := ts.ColumnByName(name)
		if c == nil {
			t.Fatalf("no column %s", name)
		}
		return c
	}
}

func TestCheckValue(t *testing.T) {
	col := edgeColumn(t)
	far := time.Date(300_000_000, 1, 1, 0, 0, 0, 0, time.UTC)
	v1 := uuid.Must(uuid.NewUUID())
	refused := []struct {
		col    string
		v      any
		reason string
	}{
		{"seen", &far, "TIMESTAMP holds milliseconds"},
		{"day", ptr(time.Date(6_000_000, 1, 1, 0, 0, 0, 0, time.UTC)), "DATE holds days"},
		{"at_ptr", ptr(&far), "TIMESTAMP"},
		{"named", ptr(edgeAt(far)), "TIMESTAMP"},
		{"tod", ptr(24 * time.Hour), "time of day"},
		{"tod", ptr(-time.Nanosecond), "time of day"},
		{"addr", ptr(netip.MustParseAddr("fe80::1%eth0")), "zone"},
		{"ip", ptr(net.IP{1, 2, 3}), "4 or 16 bytes"},
		{"addrs", ptr([]netip.Addr{netip.MustParseAddr("10.0.0.1"), {}}), "cannot hold null"},
		{"addrs", ptr([]netip.Addr{netip.MustParseAddr("::ffff:10.0.0.1")}), "IPv4-mapped"},
		{"code", ptr("naïve"), "ASCII"},
		{"name", ptr("a\xffb"), "UTF-8"},
		{"secret", ptr("a\xffb"), "UTF-8"},
		{"stamp", ptr(uuid.New()), "version 1"},
		{"stamps", ptr([]uuid.UUID{v1, {}}), "cannot hold null"},
		{"whens", ptr(map[string]time.Time{"x": far}), "TIMESTAMP"},
		{"tags", ptr([]string{"ok", "a\xffb"}), "UTF-8"},
		{"codes", ptr([]string{"plain", "naïve"}), "ASCII"},
		{"labels", ptr(map[string]struct{}{"ok": {}, "a\xffb": {}}), "UTF-8"},
		{"marks", ptr(map[string]struct{}{"naïve": {}}), "ASCII"},
		{"nick", ptr(ptr("a\xffb")), "UTF-8"},
	}
	for _, r := range refused {
		err := col(r.col).CheckValue(r.v)
		var ve *kerrors.ValueError
		if !errors.As(err, &ve) || !errors.Is(err, kerrors.ErrValue) {
			t.Errorf("%s: %v, want a *ValueError", r.col, err)
			continue
		}
		if ve.Table != "edge_rows" || ve.Column != r.col || !strings.Contains(ve.Reason, r.reason) || ve.Read {
			t.Errorf("%s: %+v, want the column and %q", r.col, ve, r.reason)
		}
		if (r.col == "secret") != (ve.Value == "<redacted>") {
			t.Errorf("%s: value %q", r.col, ve.Value)
		}
	}
	accepted := []struct {
		col string
		v   any
	}{
		{"seen", ptr(time.Time{})},
		{"seen", ptr(time.Date(1969, 12, 31, 12, 0, 0, 123456789, time.UTC))},
		{"day", ptr(time.Time{})},
		{"at_ptr", new(*time.Time)},
		{"tod", ptr(time.Duration(86_399_999_999_999))},
		{"addr", ptr(netip.Addr{})}, // null
		{"addr", ptr(netip.MustParseAddr("::ffff:10.0.0.1"))},
		{"ip", ptr(net.IP(nil))},
		{"code", ptr("plain")},
		{"name", ptr("héllo \x00 😀")},
		{"stamp", ptr(uuid.UUID{})}, // null
		{"stamp", ptr(v1)},
		{"tags", ptr([]string{"héllo", ""})},
		{"tags", ptr([]string(nil))},
		{"codes", ptr([]string{"plain"})},
		{"labels", ptr(map[string]struct{}{"héllo": {}, "": {}})},
		{"labels", ptr(map[string]struct{}(nil))},
		{"marks", ptr(map[string]struct{}{"plain": {}})},
		{"nick", new(*string)},
		{"nick", ptr(ptr("héllo"))},
	}
	for _, a := range accepted {
		if err := col(a.col).CheckValue(a.v); err != nil {
			t.Errorf("%s %v: %v", a.col, a.v, err)
		}
	}
	for _, name := range []string{"id", "plain"} {
		if col(name).ChecksValues() {
			t.Errorf("%s: checked, though every value has an exact form", name)
		}
	}
	for _, c := range []struct {
		col string
		p   any
	}{{"seen", new(int)}, {"name", new(*string)}, {"seen", new(*time.Time)}, {"nick", new(*int)},
		{"tags", ptr(map[string]struct{}{"x": {}})}, {"bag", ptr(map[string]struct{}{"x": {}})}} {
		if err := col(c.col).CheckValue(c.p); err == nil || errors.Is(err, kerrors.ErrValue) {
			t.Errorf("%s: a pointer of another type (%T): %v", c.col, c.p, err)
		}
	}
}

// TestCheckPart: an element or a map key bound on its own (a Patch's Add,
// Put, Append) is checked by an element's rules, as part of its column's
// value would be; a part of another Go type is an argument error, and a
// column that is not a collection has no parts to check.
func TestCheckPart(t *testing.T) {
	col := edgeColumn(t)
	type part struct {
		col    string
		v      any
		key    bool
		reason string // "" accepted
	}
	for _, p := range []part{
		{"labels", "a\xffb", false, "UTF-8"},
		{"labels", "héllo", false, ""},
		{"marks", "naïve", false, "ASCII"},
		{"marks", "plain", false, ""},
		{"tags", "a\xffb", false, "UTF-8"},
		{"codes", "naïve", false, "ASCII"},
		{"attrs", "naïve", true, "ASCII"}, // the key is ASCII
		{"attrs", "naïve", false, ""},     // the value TEXT
		{"attrs", "a\xffb", false, "UTF-8"},
		{"whens", time.Date(300_000_000, 1, 1, 0, 0, 0, 0, time.UTC), false, "TIMESTAMP"},
		{"whens", time.Now(), false, ""},
		{"stamps", uuid.New(), false, "version 1"},
		{"counts", int64(-1), false, ""},
		{"name", "a\xffb", false, ""}, // not a collection: nothing to check
	} {
		err := col(p.col).CheckPart(p.v, p.key)
		var ve *kerrors.ValueError
		switch {
		case p.reason == "" && err != nil:
			t.Errorf("%s %q (key %v): %v", p.col, p.v, p.key, err)
		case p.reason != "" && (!errors.As(err, &ve) || ve.Column != p.col || !strings.Contains(ve.Reason, p.reason)):
			t.Errorf("%s %q (key %v): %v, want a *ValueError with %q", p.col, p.v, p.key, err, p.reason)
		}
	}
	var ae *kerrors.ArgumentError
	for _, p := range []part{{"labels", 3, false, ""}, {"tags", []string{"x"}, false, ""}, {"attrs", 1, true, ""}, {"counts", "x", false, ""}, {"labels", nil, false, ""},
		{"kinds", "x", false, ""}} { // a string where the elements are of a named string type
		if err := col(p.col).CheckPart(p.v, p.key); !errors.As(err, &ae) {
			t.Errorf("%s %T: %v, want an *ArgumentError", p.col, p.v, err)
		}
	}
}

func TestStoredForm(t *testing.T) {
	ts := kandra.MustRegister[edgeRow]().Schema()
	for _, c := range ts.Columns() {
		switch c.Name() {
		case "seen":
			v := time.Date(1969, 12, 31, 12, 0, 0, 123456789, time.FixedZone("z", 3600))
			c.StoredForm(&v)
			if want := time.Date(1969, 12, 31, 11, 0, 0, 123000000, time.UTC); v != want {
				t.Errorf("TIMESTAMP: %v, want %v", v, want)
			}
		case "day":
			v := time.Date(1969, 12, 31, 12, 30, 0, 0, time.UTC)
			c.StoredForm(&v)
			if want := time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC); v != want {
				t.Errorf("DATE: %v, want %v", v, want)
			}
		case "name":
			v := "kept"
			c.StoredForm(&v)
			if v != "kept" {
				t.Errorf("TEXT changed: %q", v)
			}
		}
	}
}

func ptr[V any](v V) *V { return &v }

func TestSentAsNull(t *testing.T) {
	ts := kandra.MustRegister[edgeRow]().Schema()
	for _, c := range ts.Columns() {
		var null, value any
		switch c.Name() {
		case "addr":
			null, value = ptr(netip.Addr{}), ptr(netip.MustParseAddr("10.0.0.1"))
		case "ip":
			null, value = ptr(net.IP{}), ptr(net.IP{10, 0, 0, 1})
		case "stamp":
			null, value = ptr(uuid.UUID{}), ptr(uuid.Must(uuid.NewUUID()))
		case "name":
			null, value = nil, ptr("")
		default:
			continue
		}
		if null != nil && !c.SentAsNull(null) {
			t.Errorf("%s: %v is not sent as null", c.Name(), null)
		}
		if c.SentAsNull(value) {
			t.Errorf("%s: %v is sent as null", c.Name(), value)
		}
	}
}
