package kandra

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/kandra-go/kandra/kerrors"
	"pgregory.net/rapid"
)

var allConsistencies = []struct {
	c      Consistency
	code   uint16
	name   string
	serial bool
}{
	{ConsistencyAny, 0x00, "ANY", false},
	{ConsistencyOne, 0x01, "ONE", false},
	{ConsistencyTwo, 0x02, "TWO", false},
	{ConsistencyThree, 0x03, "THREE", false},
	{ConsistencyQuorum, 0x04, "QUORUM", false},
	{ConsistencyAll, 0x05, "ALL", false},
	{ConsistencyLocalQuorum, 0x06, "LOCAL_QUORUM", false},
	{ConsistencyEachQuorum, 0x07, "EACH_QUORUM", false},
	{ConsistencySerial, 0x08, "SERIAL", true},
	{ConsistencyLocalSerial, 0x09, "LOCAL_SERIAL", true},
	{ConsistencyLocalOne, 0x0A, "LOCAL_ONE", false},
}

func TestConsistencyLevels(t *testing.T) {
	if len(allConsistencies) != 11 {
		t.Fatalf("table has %d levels, want 11", len(allConsistencies))
	}
	for _, tt := range allConsistencies {
		t.Run(tt.name, func(t *testing.T) {
			if uint16(tt.c) != tt.code {
				t.Errorf("code = %#04x, want %#04x (native protocol)", uint16(tt.c), tt.code)
			}
			if got := tt.c.String(); got != tt.name {
				t.Errorf("String() = %q, want %q", got, tt.name)
			}
			if !tt.c.IsValid() {
				t.Errorf("IsValid() = false")
			}
			if got := tt.c.IsSerial(); got != tt.serial {
				t.Errorf("IsSerial() = %v, want %v", got, tt.serial)
			}
			for _, in := range []string{tt.name, strings.ToLower(tt.name), mixedCase(tt.name)} {
				got, err := ParseConsistency(in)
				if err != nil || got != tt.c {
					t.Errorf("ParseConsistency(%q) = %v, %v; want %v", in, got, err, tt.c)
				}
			}
			text, err := tt.c.MarshalText()
			if err != nil || string(text) != tt.name {
				t.Errorf("MarshalText() = %q, %v; want %q", text, err, tt.name)
			}
			var back Consistency
			if err := back.UnmarshalText(text); err != nil || back != tt.c {
				t.Errorf("UnmarshalText(%q) = %v, %v; want %v", text, back, err, tt.c)
			}
		})
	}
}

// mixedCase lowers every other letter: "LoCaL_QuOrUm".
func mixedCase(s string) string {
	b := []byte(s)
	for i := range b {
		if i%2 == 1 && 'A' <= b[i] && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}

func TestConsistencyParseErrors(t *testing.T) {
	for _, in := range []string{
		"", "QUORUMS", "LOCAL-QUORUM", "LOCALQUORUM", " ONE", "ONE ", "one\n",
		"NODE_LOCAL", "6", "0x06", "ſerial", "LOCAL_ONE\x00", "ＯＮＥ",
	} {
		t.Run(in, func(t *testing.T) {
			got, err := ParseConsistency(in)
			if err == nil {
				t.Fatalf("ParseConsistency(%q) = %v, want an error", in, got)
			}
			if !errors.Is(err, kerrors.ErrArgument) || !errors.Is(err, kerrors.ErrKandra) {
				t.Errorf("ParseConsistency(%q): %v is not an *kerrors.ArgumentError of the family", in, err)
			}
			msg := err.Error()
			for _, want := range []string{
				"unknown consistency level " + strconv.Quote(in),
				"ANY, ONE, TWO, THREE, QUORUM, ALL, LOCAL_QUORUM, EACH_QUORUM, SERIAL, LOCAL_SERIAL, LOCAL_ONE",
			} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not contain %q", msg, want)
				}
			}
			c := ConsistencyQuorum
			if err := c.UnmarshalText([]byte(in)); err == nil || c != ConsistencyQuorum {
				t.Errorf("UnmarshalText(%q): err %v, value %v; want an error and the value unchanged", in, err, c)
			}
		})
	}
}

func TestConsistencyInvalidValues(t *testing.T) {
	tests := []struct {
		c    Consistency
		want string
	}{
		{0x0B, "Consistency(0x0b)"},
		{0x0C, "Consistency(0x0c)"},
		{0xFF, "Consistency(0xff)"},
		{0x1234, "Consistency(0x1234)"},
		{0xFFFF, "Consistency(0xffff)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if tt.c.IsValid() {
				t.Errorf("IsValid() = true")
			}
			if tt.c.IsSerial() {
				t.Errorf("IsSerial() = true")
			}
			if got := tt.c.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			text, err := tt.c.MarshalText()
			if err == nil || text != nil {
				t.Errorf("MarshalText() = %q, %v; want nil and an error", text, err)
			} else if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("MarshalText error %q does not name %s", err, tt.want)
			}
			if _, err := json.Marshal(tt.c); err == nil {
				t.Errorf("json.Marshal accepted an invalid level")
			}
		})
	}
}

func TestConsistencyJSON(t *testing.T) {
	type config struct {
		Read  Consistency            `json:"read"`
		Write Consistency            `json:"write"`
		PerDC map[string]Consistency `json:"per_dc"`
	}
	in := config{
		Read:  ConsistencyLocalOne,
		Write: ConsistencyEachQuorum,
		PerDC: map[string]Consistency{"eu": ConsistencyLocalQuorum},
	}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"read":"LOCAL_ONE","write":"EACH_QUORUM","per_dc":{"eu":"LOCAL_QUORUM"}}`
	if string(data) != want {
		t.Fatalf("json = %s, want %s", data, want)
	}
	var out config
	if err := json.Unmarshal([]byte(`{"read":"local_one","write":"EACH_QUORUM","per_dc":{"eu":"Local_Quorum"}}`), &out); err != nil {
		t.Fatal(err)
	}
	if out.Read != in.Read || out.Write != in.Write || out.PerDC["eu"] != ConsistencyLocalQuorum {
		t.Fatalf("decoded %+v, want %+v", out, in)
	}
	if err := json.Unmarshal([]byte(`{"read":"FAST"}`), &out); err == nil || !strings.Contains(err.Error(), `"FAST"`) {
		t.Fatalf("decoding an unknown level: err = %v, want one naming \"FAST\"", err)
	}
	// A number is not a name: configuration must use the CQL names.
	if err := json.Unmarshal([]byte(`{"read":6}`), &out); err == nil {
		t.Fatalf("decoding a numeric level succeeded")
	}
}

func TestConsistencyRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := Consistency(rapid.Uint16().Draw(t, "c"))
		text, err := c.MarshalText()
		if !c.IsValid() {
			if err == nil {
				t.Fatalf("MarshalText(%v) succeeded", c)
			}
			if _, err := ParseConsistency(c.String()); err == nil {
				t.Fatalf("String() of invalid %d parses", uint16(c))
			}
			return
		}
		if err != nil {
			t.Fatalf("MarshalText(%v): %v", c, err)
		}
		// Any ASCII casing of the name parses back to the same level.
		b := []byte(string(text))
		for i := range b {
			if rapid.Bool().Draw(t, "lower") && 'A' <= b[i] && b[i] <= 'Z' {
				b[i] += 'a' - 'A'
			}
		}
		var back Consistency
		if err := back.UnmarshalText(b); err != nil || back != c {
			t.Fatalf("UnmarshalText(%q) = %v, %v; want %v", b, back, err, c)
		}
	})
}

func FuzzParseConsistency(f *testing.F) {
	for _, tt := range allConsistencies {
		f.Add(tt.name)
		f.Add(strings.ToLower(tt.name))
	}
	for _, s := range []string{"", "local-quorum", "ſerial", "Consistency(0x0b)", "\xff", "LOCAL_QUORUM "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseConsistency(s)
		if err != nil {
			if !strings.Contains(err.Error(), "LOCAL_QUORUM") {
				t.Fatalf("error %q does not list the valid names", err)
			}
			return
		}
		if !c.IsValid() {
			t.Fatalf("ParseConsistency(%q) returned invalid %v", s, c)
		}
		if !strings.EqualFold(s, c.String()) || len(s) != len(c.String()) {
			t.Fatalf("ParseConsistency(%q) = %v, which is not the same name", s, c)
		}
		back, err := ParseConsistency(c.String())
		if err != nil || back != c {
			t.Fatalf("round trip of %v through String: %v, %v", c, back, err)
		}
	})
}
