// Package cqlvalue holds the value rules kandra applies where Go and CQL
// disagree, written once for the schema's checks and every driver
// adapter: the exact wire form of the CQL types whose Go counterparts
// have another range or another notion of "no value" (timestamps, dates,
// times of day, inet addresses), and the checks that refuse a value that
// has no exact form instead of letting a driver wrap, truncate or drop it.
// Every function says why a value is refused in a sentence an error can
// carry after the column's name.
package cqlvalue

import (
	"encoding/binary"
	"fmt"
	"math"
	"net"
	"net/netip"
	"strconv"
	"time"
	"unicode/utf8"
)

// MaxTimeOfDay is the largest CQL TIME: one nanosecond before midnight.
const MaxTimeOfDay = 86_399_999_999_999

var (
	minTimestamp = time.UnixMilli(math.MinInt64)
	// The last instant whose milliseconds are MaxInt64, floored.
	maxTimestamp = time.UnixMilli(math.MaxInt64).Add(time.Millisecond - 1)
)

// TimestampMillis is t as a CQL TIMESTAMP: milliseconds since the Unix
// epoch, floored (a sub-millisecond part is dropped, toward the past also
// before 1970). The zero time.Time is the instant 0001-01-01T00:00:00Z,
// a TIMESTAMP like any other. A time whose milliseconds do not fit in 64
// bits is refused rather than wrapped.
func TimestampMillis(t time.Time) (int64, error) {
	if t.Before(minTimestamp) || t.After(maxTimestamp) {
		return 0, problemf("a TIMESTAMP holds milliseconds since 1970 in 64 bits (%s to %s); this time is outside it", minTimestamp.UTC().Format(time.RFC3339), maxTimestamp.UTC().Format(time.RFC3339))
	}
	return t.UnixMilli(), nil
}

// TimeFromMillis is the TIMESTAMP ms as a UTC time.Time; the zero
// time.Time for 0001-01-01T00:00:00Z.
func TimeFromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// AppendTimestamp appends t's 8-byte TIMESTAMP encoding to dst.
func AppendTimestamp(dst []byte, t time.Time) ([]byte, error) {
	ms, err := TimestampMillis(t)
	if err != nil {
		return dst, err
	}
	return binary.BigEndian.AppendUint64(dst, uint64(ms)), nil
}

// DecodeTimestamp reads a TIMESTAMP: null and an empty value are the zero
// time.Time (ok false for both), 8 bytes a UTC time.
func DecodeTimestamp(data []byte) (t time.Time, ok bool, err error) {
	switch len(data) {
	case 0:
		return time.Time{}, false, nil
	case 8:
		return TimeFromMillis(int64(binary.BigEndian.Uint64(data))), true, nil
	}
	return time.Time{}, false, sizeErr("TIMESTAMP", 8, len(data))
}

// DateDays is the CQL DATE of t: the number of days since 1970-01-01 of
// t's calendar day in UTC (1969-12-31T12:00Z is day -1), which the wire
// carries as an unsigned number centred on 2^31. A day outside the 32 bits
// is refused.
func DateDays(t time.Time) (int64, error) {
	sec := t.Unix()
	days := sec / 86400
	if sec%86400 < 0 {
		days-- // floor: the day a pre-1970 instant falls in
	}
	if days < math.MinInt32 || days > math.MaxInt32 {
		return 0, problemf("a DATE holds days since 1970 in 32 bits (%s to %s); this day is outside it", TimeFromDays(math.MinInt32).Format(time.DateOnly), TimeFromDays(math.MaxInt32).Format(time.DateOnly))
	}
	return days, nil
}

// TimeFromDays is midnight UTC of the DATE days since 1970-01-01.
func TimeFromDays(days int64) time.Time { return time.Unix(days*86400, 0).UTC() }

// AppendDate appends t's 4-byte DATE encoding to dst.
func AppendDate(dst []byte, t time.Time) ([]byte, error) {
	d, err := DateDays(t)
	if err != nil {
		return dst, err
	}
	return binary.BigEndian.AppendUint32(dst, uint32(d+1<<31)), nil
}

// DecodeDate reads a DATE: null and an empty value are the zero time.Time
// (ok false), 4 bytes midnight UTC of the day.
func DecodeDate(data []byte) (t time.Time, ok bool, err error) {
	switch len(data) {
	case 0:
		return time.Time{}, false, nil
	case 4:
		return TimeFromDays(int64(binary.BigEndian.Uint32(data)) - 1<<31), true, nil
	}
	return time.Time{}, false, sizeErr("DATE", 4, len(data))
}

// CheckTimeOfDay refuses a CQL TIME outside a day: 0 to MaxTimeOfDay
// nanoseconds.
func CheckTimeOfDay(ns int64) error {
	if ns < 0 || ns > MaxTimeOfDay {
		return problemf("a TIME is a time of day, 0 to 23:59:59.999999999 (0 to %d ns)", int64(MaxTimeOfDay))
	}
	return nil
}

// InetBytes is a as a CQL INET: 4 bytes for an IPv4 address, 16 for every
// IPv6 address, an IPv4-mapped one (::ffff:10.0.0.1) included, so that
// the two forms stay apart. The zero Addr is null (nil). An address with a
// zone is refused: an INET has no zone.
func InetBytes(a netip.Addr) ([]byte, error) {
	switch {
	case !a.IsValid():
		return nil, nil
	case a.Zone() != "":
		return nil, problemf("an INET has no zone; this address has zone %q (drop it with WithZone(\"\"))", a.Zone())
	case a.Is4():
		b := a.As4()
		return b[:], nil
	}
	b := a.As16()
	return b[:], nil
}

// DecodeInet reads an INET into a netip.Addr: 4 bytes an IPv4 address, 16
// an IPv6 one (an IPv4-mapped address stays mapped), null and an empty
// value the zero Addr.
func DecodeInet(data []byte) (netip.Addr, error) {
	switch len(data) {
	case 0:
		return netip.Addr{}, nil
	case 4:
		return netip.AddrFrom4([4]byte(data)), nil
	case 16:
		return netip.AddrFrom16([16]byte(data)), nil
	}
	return netip.Addr{}, sizeErr("INET", 4, len(data))
}

// NetIPBytes is ip as a CQL INET. net.IP does not keep IPv4 and
// IPv4-mapped IPv6 apart (net.ParseIP("10.0.0.1") is 16 bytes long), so
// every IPv4 address, in either form, is 4 bytes; any other 16-byte
// address is 16. A nil or empty net.IP is null (nil); another length is
// refused.
func NetIPBytes(ip net.IP) ([]byte, error) {
	if len(ip) == 0 {
		return nil, nil
	}
	if v4 := ip.To4(); v4 != nil {
		return append([]byte(nil), v4...), nil
	}
	if len(ip) != net.IPv6len {
		return nil, problemf("a net.IP is 4 or 16 bytes long; this one is %d", len(ip))
	}
	return append([]byte(nil), ip...), nil
}

// DecodeNetIP reads an INET into a net.IP of the same length (4 or 16
// bytes); null and an empty value are nil.
func DecodeNetIP(data []byte) (net.IP, error) {
	switch len(data) {
	case 0:
		return nil, nil
	case 4, 16:
		return append(net.IP(nil), data...), nil
	}
	return nil, sizeErr("INET", 4, len(data))
}

// CheckText refuses a string a TEXT or VARCHAR cannot hold: one that is
// not valid UTF-8 (the servers refuse it).
func CheckText(s string) error {
	if !ValidText(s) {
		return problemf("a TEXT is UTF-8; this string is not (its first invalid byte is at offset %d)", firstInvalid(s))
	}
	return nil
}

// CheckASCII refuses a string an ASCII column cannot hold: one with a byte
// above 127 (the servers refuse it).
func CheckASCII(s string) error {
	if IsASCII(s) {
		return nil
	}
	for i := 0; i < len(s); i++ {
		if s[i] > 127 {
			return problemf("an ASCII column holds bytes 0 to 127; byte %d is %#x (use TEXT for UTF-8)", i, s[i])
		}
	}
	return nil
}

// ValidText reports whether s is valid UTF-8, as utf8.ValidString does,
// with a quicker answer for the common all-ASCII string: every text value
// written is checked, and most are short, where ValidString's byte-by-byte
// tail is most of its cost.
func ValidText(s string) bool {
	return IsASCII(s) || utf8.ValidString(s)
}

// IsASCII reports whether every byte of s is below 0x80. It ORs the bytes,
// eight at a time, and tests the high bit once: no branch per byte.
func IsASCII(s string) bool {
	var acc byte
	for len(s) >= 8 {
		acc |= s[0] | s[1] | s[2] | s[3] | s[4] | s[5] | s[6] | s[7]
		s = s[8:]
	}
	for i := 0; i < len(s); i++ {
		acc |= s[i]
	}
	return acc < 0x80
}

// CheckTimeUUID refuses a UUID a TIMEUUID cannot hold: any but a version 1
// UUID (the servers refuse it: "Invalid version for TimeUUID type"). The
// zero UUID is checked by the caller, where null is allowed.
func CheckTimeUUID(u [16]byte) error {
	if v := u[6] >> 4; v != 1 {
		return problemf("a TIMEUUID holds version 1 UUIDs; this one is version %d (use a UUID column, or uuid.NewUUID for a version 1 one)", v)
	}
	return nil
}

func firstInvalid(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n <= 1 {
				return i
			}
		}
	}
	return len(s)
}

func sizeErr(typ string, want, got int) error {
	w := strconv.Itoa(want)
	if typ == "INET" {
		w = "4 or 16"
	}
	return fmt.Errorf("a stored %s value is %s bytes long; this one is %d", typ, w, got)
}

// ReadError is a stored cell a Go type cannot hold: Value renders the
// cell, Reason says why.
type ReadError struct{ Value, Reason string }

func (e *ReadError) Error() string { return e.Value + ": " + e.Reason }

// DurationProblem says why a stored DURATION of months, days and nanos is
// no time.Duration, or "".
func DurationProblem(months, days int32, nanos int64) *ReadError {
	if months == 0 && days == 0 {
		return nil
	}
	return &ReadError{
		Value:  fmt.Sprintf("%dmo%dd%dns", months, days, nanos),
		Reason: "a time.Duration holds nanoseconds only, and a month or a day has no fixed length; read the column into a type that keeps months and days (a kandra.CQLTyper), or rewrite the cell",
	}
}

// Problem is a value the CQL type has no exact form for, found while
// encoding it: nothing was sent (an adapter's marshalling fails before its
// driver writes the request).
type Problem struct{ msg string }

func (e *Problem) Error() string { return e.msg }

func problemf(format string, args ...any) error { return &Problem{fmt.Sprintf(format, args...)} }
