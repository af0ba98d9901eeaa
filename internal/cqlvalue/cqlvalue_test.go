package cqlvalue

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"net"
	"net/netip"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"pgregory.net/rapid"
)

// TestTimestampFloorsAndRoundTrips: any instant in range is its
// milliseconds floored, before 1970 too, and a stored TIMESTAMP reads back
// as the instant it holds.
func TestTimestampFloorsAndRoundTrips(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ms := rapid.Int64().Draw(t, "ms")
		sub := time.Duration(rapid.Int64Range(0, 999_999).Draw(t, "sub"))
		in := time.UnixMilli(ms).Add(sub)
		if ms == math.MaxInt64 && sub > 0 {
			in = time.UnixMilli(ms) // the last instant of the range
		}
		got, err := TimestampMillis(in)
		if err != nil || got != ms {
			t.Fatalf("%v: %d %v, want %d", in, got, err, ms)
		}
		b, err := AppendTimestamp(nil, in)
		if err != nil {
			t.Fatal(err)
		}
		back, ok, err := DecodeTimestamp(b)
		if err != nil || !ok || !back.Equal(time.UnixMilli(ms)) || back.Location() != time.UTC {
			t.Fatalf("%d: read %v %v %v", ms, back, ok, err)
		}
	})
}

func TestTimestampEdges(t *testing.T) {
	if ms, err := TimestampMillis(time.Time{}); err != nil || ms != -62135596800000 {
		t.Fatalf("zero time: %d %v", ms, err)
	}
	if back := TimeFromMillis(-62135596800000); back != (time.Time{}) {
		t.Fatalf("year 1 reads as %#v, not the zero time.Time", back)
	}
	if ms, err := TimestampMillis(time.Date(1969, 12, 31, 23, 59, 59, 999_999_999, time.UTC)); err != nil || ms != -1 {
		t.Fatalf("a nanosecond before 1970: %d %v, want -1", ms, err)
	}
	for _, far := range []time.Time{time.Date(300_000_000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-300_000_000, 1, 1, 0, 0, 0, 0, time.UTC)} {
		if _, err := TimestampMillis(far); err == nil {
			t.Errorf("%v: no error", far)
		}
	}
	for _, data := range [][]byte{nil, {}} {
		if v, ok, err := DecodeTimestamp(data); err != nil || ok || !v.IsZero() {
			t.Errorf("%#v: %v %v %v", data, v, ok, err)
		}
	}
	if _, _, err := DecodeTimestamp([]byte{1, 2, 3}); err == nil {
		t.Error("3 bytes decoded")
	}
}

// TestDateIsTheUTCDay: every instant of a day is that day, before 1970
// too; a DATE reads back as midnight UTC of its day.
func TestDateIsTheUTCDay(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		days := rapid.Int64Range(math.MinInt32, math.MaxInt32).Draw(t, "days")
		into := time.Duration(rapid.Int64Range(0, 24*int64(time.Hour)-1).Draw(t, "into"))
		in := TimeFromDays(days).Add(into).In(time.FixedZone("z", rapid.IntRange(-14*3600, 14*3600).Draw(t, "zone")))
		b, err := AppendDate(nil, in)
		if err != nil {
			t.Fatal(err)
		}
		if u := int64(binary.BigEndian.Uint32(b)) - 1<<31; u != days {
			t.Fatalf("%v: day %d, want %d", in, u, days)
		}
		back, ok, err := DecodeDate(b)
		if err != nil || !ok || !back.Equal(TimeFromDays(days)) {
			t.Fatalf("%v: read %v %v", in, back, err)
		}
	})
}

func TestDateEdges(t *testing.T) {
	if d, err := DateDays(time.Date(1969, 12, 31, 12, 0, 0, 0, time.UTC)); err != nil || d != -1 {
		t.Fatalf("1969-12-31T12:00Z: day %d %v, want -1", d, err)
	}
	if d, err := DateDays(time.Time{}); err != nil || TimeFromDays(d) != (time.Time{}) {
		t.Fatalf("zero time: day %d %v", d, err)
	}
	if _, err := DateDays(time.Date(6_000_000, 1, 1, 0, 0, 0, 0, time.UTC)); err == nil {
		t.Error("year 6,000,000: no error")
	}
	if _, err := DateDays(TimeFromDays(math.MinInt32).Add(-time.Nanosecond)); err == nil {
		t.Error("a day before the first DATE: no error")
	}
}

func TestTimeOfDay(t *testing.T) {
	for ns, ok := range map[int64]bool{0: true, MaxTimeOfDay: true, -1: false, MaxTimeOfDay + 1: false, math.MinInt64: false} {
		if err := CheckTimeOfDay(ns); (err == nil) != ok {
			t.Errorf("%d: %v", ns, err)
		}
	}
}

// TestInetKeepsBothForms: any 4- or 16-byte INET reads into a netip.Addr
// that writes back the same bytes, an IPv4-mapped address included.
func TestInetKeepsBothForms(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.SampledFrom([]int{4, 16}).Draw(t, "len")
		data := rapid.SliceOfN(rapid.Byte(), n, n).Draw(t, "data")
		if n == 16 && rapid.Bool().Draw(t, "mapped") {
			copy(data, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff})
		}
		a, err := DecodeInet(data)
		if err != nil {
			t.Fatal(err)
		}
		b, err := InetBytes(a)
		if err != nil || !bytes.Equal(b, data) {
			t.Fatalf("%x read as %v writes %x %v", data, a, b, err)
		}
		ip, err := DecodeNetIP(data)
		if err != nil || !bytes.Equal(ip, data) {
			t.Fatalf("%x read as net.IP %v %v", data, ip, err)
		}
	})
}

func TestInetEdges(t *testing.T) {
	if b, err := InetBytes(netip.MustParseAddr("::ffff:10.0.0.1")); err != nil || len(b) != 16 {
		t.Fatalf("IPv4-mapped: %x %v, want 16 bytes", b, err)
	}
	if b, err := InetBytes(netip.MustParseAddr("10.0.0.1")); err != nil || len(b) != 4 {
		t.Fatalf("IPv4: %x %v, want 4 bytes", b, err)
	}
	if _, err := InetBytes(netip.MustParseAddr("fe80::1%eth0")); err == nil {
		t.Fatal("a zone: no error")
	}
	if b, err := InetBytes(netip.Addr{}); err != nil || b != nil {
		t.Fatalf("zero Addr: %x %v, want null", b, err)
	}
	if b, err := NetIPBytes(net.ParseIP("10.0.0.1")); err != nil || len(b) != 4 {
		t.Fatalf("net.IP 10.0.0.1 (16 bytes): %x %v, want 4 bytes", b, err)
	}
	if _, err := NetIPBytes(net.IP{1, 2, 3}); err == nil {
		t.Fatal("a 3-byte net.IP: no error")
	}
	for _, data := range [][]byte{nil, {}} {
		if a, err := DecodeInet(data); err != nil || a.IsValid() {
			t.Errorf("%#v: %v %v", data, a, err)
		}
	}
	if _, err := DecodeInet(make([]byte, 5)); err == nil {
		t.Error("5 bytes decoded")
	}
}

func TestStrings(t *testing.T) {
	if CheckText("héllo \x00 😀") != nil || CheckText("a\xffb") == nil {
		t.Error("CheckText")
	}
	if CheckASCII("plain \x00\x7f") != nil || CheckASCII("é") == nil {
		t.Error("CheckASCII")
	}
}

// textAgrees checks ValidText and IsASCII against the standard library
// and a byte-by-byte reading, and CheckASCII's error against IsASCII.
func textAgrees(t interface{ Fatalf(string, ...any) }, s string) {
	ascii := true
	for i := 0; i < len(s); i++ {
		ascii = ascii && s[i] < 0x80
	}
	if got := IsASCII(s); got != ascii {
		t.Fatalf("IsASCII(%q) = %v, want %v", s, got, ascii)
	}
	if got, want := ValidText(s), utf8.ValidString(s); got != want {
		t.Fatalf("ValidText(%q) = %v, want %v", s, got, want)
	}
	if (CheckASCII(s) == nil) != ascii {
		t.Fatalf("CheckASCII(%q) = %v, ASCII %v", s, CheckASCII(s), ascii)
	}
}

// TestValidText draws ASCII strings of every length around the 8-byte
// steps, with up to two bytes at or above 0x80 anywhere and maybe a valid
// rune of two or three bytes, so that each position of the word loop and
// of its tail is tried.
func TestValidText(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := rapid.SliceOfN(rapid.ByteRange(0, 0x7f), 0, 40).Draw(t, "ascii")
		if n := rapid.IntRange(0, 2).Draw(t, "high bytes"); len(b) > 0 {
			for range n {
				b[rapid.IntRange(0, len(b)-1).Draw(t, "at")] = rapid.ByteRange(0x80, 0xff).Draw(t, "byte")
			}
		}
		if r := rapid.RuneFrom(nil, unicode.Latin, unicode.Han).Draw(t, "rune"); len(b) > 0 && rapid.Bool().Draw(t, "valid rune") {
			at := rapid.IntRange(0, len(b)).Draw(t, "rune at")
			b = append(b[:at:at], append(utf8.AppendRune(nil, r), b[at:]...)...)
		}
		textAgrees(t, string(b))
	})
}

func FuzzValidText(f *testing.F) {
	for _, s := range []string{"", "a", "some text", "0123456\x80", "héllo \x00 😀", "a\xffb", "01234567\xc3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { textAgrees(t, s) })
}

func TestDecodeBlob(t *testing.T) {
	if b := DecodeBlob([]byte(nil), []byte{}); b == nil || len(b) != 0 {
		t.Errorf("an empty value reads as %#v, want []byte{}", b)
	}
	if b := DecodeBlob([]byte{1, 2}, nil); b != nil {
		t.Error("null reads as non-nil")
	}
}

func TestTimeUUID(t *testing.T) {
	v1 := [16]byte{6: 0x11}
	v4 := [16]byte{6: 0x41}
	if CheckTimeUUID(v1) != nil || CheckTimeUUID(v4) == nil {
		t.Error("CheckTimeUUID")
	}
}

// TestNarrowIntMatchesBigInt: any stored integer of any width decodes to
// its value when the field holds it, and is a *ReadError when not.
func TestNarrowIntMatchesBigInt(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cql := rapid.SampledFrom([]string{"smallint", "int", "bigint", "varint"}).Draw(t, "cql")
		n := map[string]int{"smallint": 2, "int": 4, "bigint": 8}[cql]
		if n == 0 {
			n = rapid.IntRange(1, 12).Draw(t, "varint len")
		}
		data := rapid.SliceOfN(rapid.Byte(), n, n).Draw(t, "data")
		bits := rapid.SampledFrom([]int{8, 16, 32, 64}).Draw(t, "bits")
		want := new(big.Int).SetBytes(data)
		if data[0]&0x80 != 0 {
			want.Sub(want, new(big.Int).Lsh(big.NewInt(1), uint(n*8)))
		}
		got, err := NarrowInt(data, cql, bits)
		fits := want.BitLen() < bits || (want.Sign() < 0 && new(big.Int).Add(want, big.NewInt(1)).BitLen() < bits)
		var re *ReadError
		switch {
		case fits && (err != nil || got != want.Int64()):
			t.Fatalf("%x as %s into %d bits: %d %v, want %s", data, cql, bits, got, err, want)
		case !fits && !errors.As(err, &re):
			t.Fatalf("%x as %s into %d bits: %d %v, want a *ReadError (%s does not fit)", data, cql, bits, got, err, want)
		}
	})
	if v, err := NarrowInt(nil, "smallint", 8); v != 0 || err != nil {
		t.Errorf("null: %d %v", v, err)
	}
	if _, err := NarrowInt([]byte{1, 2, 3}, "smallint", 8); err == nil {
		t.Error("a 3-byte SMALLINT decoded")
	}
}

func TestInetInCollections(t *testing.T) {
	if InetElemProblem(netip.MustParseAddr("::ffff:10.0.0.1")) == nil || InetElemProblem(netip.Addr{}) == nil {
		t.Error("a mapped or zero address accepted in a collection")
	}
	if InetElemProblem(netip.MustParseAddr("10.0.0.1")) != nil || InetElemProblem(netip.MustParseAddr("::1")) != nil {
		t.Error("a plain address refused in a collection")
	}
	if NetIPProblem(net.ParseIP("10.0.0.1")) == nil { // 16 bytes, mapped
		t.Error("a 16-byte IPv4-mapped net.IP read without a problem")
	}
	if NetIPProblem(net.IP{10, 0, 0, 1}) != nil || NetIPProblem(net.ParseIP("::1")) != nil {
		t.Error("a net.IP it can give back refused")
	}
}

// TestIntegerOfRoundTrips: every int64 encodes as each type wide enough
// for it and decodes back; a VARINT is its shortest form.
func TestIntegerOfRoundTrips(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := rapid.OneOf(rapid.Int64(), rapid.SampledFrom([]int64{-129, -128, -1, 0, 127, 128, math.MinInt64, math.MaxInt64})).Draw(t, "x")
		for cql, bits := range map[string]int{"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64, "varint": 64} {
			if bits < 64 && (x < -1<<(bits-1) || x >= 1<<(bits-1)) {
				continue
			}
			w := IntegerBytes(x, cql)
			got, err := NarrowInt(w, cql, 64)
			if err != nil || got != x {
				t.Fatalf("%d as %s: %x reads %d %v", x, cql, w, got, err)
			}
			if cql == "varint" {
				y := x
				if y < 0 {
					y = -(y + 1) // the magnitude a negative number needs: -128 is one byte
				}
				if want := (new(big.Int).SetInt64(y).BitLen() + 8) / 8; len(w) != want {
					t.Fatalf("%d as varint: %x, want %d bytes", x, w, want)
				}
			}
		}
	})
}
