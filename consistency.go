package kandra

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kandra-go/kandra/kerrors"
)

// Consistency is a CQL consistency level. Its values are the native
// protocol's [consistency] codes (protocol v4 and v5), so converting to a
// driver's type is a plain conversion that needs no lookup table, for
// example gocql.Consistency(c) or gocql.SerialConsistency(c) for the serial
// levels.
//
// The zero value is [ConsistencyAny], because ANY's protocol code is 0. A
// table with no consistency override says so with a separate flag, never
// with the zero value.
//
// Consistency implements encoding.TextMarshaler and
// encoding.TextUnmarshaler with the CQL names ("LOCAL_QUORUM"), so it can be
// read from JSON, YAML, flags and environment-driven configuration.
type Consistency uint16

// The consistency levels, with their native protocol codes as values.
const (
	// ConsistencyAny (0x00) accepts a write once any node, even only a
	// hinted handoff, has it. Writes only.
	ConsistencyAny Consistency = 0x00
	// ConsistencyOne (0x01) waits for one replica.
	ConsistencyOne Consistency = 0x01
	// ConsistencyTwo (0x02) waits for two replicas.
	ConsistencyTwo Consistency = 0x02
	// ConsistencyThree (0x03) waits for three replicas.
	ConsistencyThree Consistency = 0x03
	// ConsistencyQuorum (0x04) waits for a majority of all replicas, across
	// data centres.
	ConsistencyQuorum Consistency = 0x04
	// ConsistencyAll (0x05) waits for every replica.
	ConsistencyAll Consistency = 0x05
	// ConsistencyLocalQuorum (0x06) waits for a majority of the replicas in
	// the coordinator's data centre.
	ConsistencyLocalQuorum Consistency = 0x06
	// ConsistencyEachQuorum (0x07) waits for a majority in every data
	// centre. Writes only.
	ConsistencyEachQuorum Consistency = 0x07
	// ConsistencySerial (0x08) is the Paxos phase of a lightweight
	// transaction across data centres; the protocol's default serial level.
	ConsistencySerial Consistency = 0x08
	// ConsistencyLocalSerial (0x09) is the Paxos phase of a lightweight
	// transaction within the local data centre.
	ConsistencyLocalSerial Consistency = 0x09
	// ConsistencyLocalOne (0x0A) waits for one replica in the local data
	// centre.
	ConsistencyLocalOne Consistency = 0x0A
)

// consistencyNames is indexed by protocol code.
var consistencyNames = [...]string{
	ConsistencyAny:         "ANY",
	ConsistencyOne:         "ONE",
	ConsistencyTwo:         "TWO",
	ConsistencyThree:       "THREE",
	ConsistencyQuorum:      "QUORUM",
	ConsistencyAll:         "ALL",
	ConsistencyLocalQuorum: "LOCAL_QUORUM",
	ConsistencyEachQuorum:  "EACH_QUORUM",
	ConsistencySerial:      "SERIAL",
	ConsistencyLocalSerial: "LOCAL_SERIAL",
	ConsistencyLocalOne:    "LOCAL_ONE",
}

// validConsistencyNames lists the names for error messages.
var validConsistencyNames = strings.Join(consistencyNames[:], ", ")

// IsValid reports whether c is one of the eleven protocol levels. Values
// outside them (such as Cassandra's non-standard NODE_LOCAL, 0x0B) are not.
func (c Consistency) IsValid() bool { return int(c) < len(consistencyNames) }

// IsSerial reports whether c is [ConsistencySerial] or
// [ConsistencyLocalSerial], the only levels a lightweight transaction
// accepts as its serial consistency. kandra does not enforce this itself;
// the runtime checks it before sending a conditional statement.
func (c Consistency) IsSerial() bool {
	return c == ConsistencySerial || c == ConsistencyLocalSerial
}

// String returns the CQL name ("LOCAL_QUORUM"), or "Consistency(0x0b)" for a
// value that is not a level, so that a bad value is visible in logs rather
// than mistaken for a real one.
func (c Consistency) String() string {
	if c.IsValid() {
		return consistencyNames[c]
	}
	return fmt.Sprintf("Consistency(%#02x)", uint16(c))
}

// ParseConsistency returns the level with the given CQL name. The match
// ignores ASCII case, so "local_quorum" and "LOCAL_QUORUM" are the same
// level; nothing else is accepted (no surrounding spaces, no numeric codes),
// so that a typo in configuration fails loudly instead of picking a level.
func ParseConsistency(s string) (Consistency, error) {
	for i, name := range consistencyNames {
		if equalFoldASCII(s, name) {
			return Consistency(i), nil
		}
	}
	return 0, &kerrors.ArgumentError{Op: "ParseConsistency", Arg: strconv.Quote(s),
		Message: "unknown consistency level " + strconv.Quote(s) + " (valid: " + validConsistencyNames + ")"}
}

// equalFoldASCII is strings.EqualFold restricted to ASCII. EqualFold also
// folds a few non-ASCII letters onto ASCII ones (U+017F "ſ" onto "s", the
// Kelvin sign onto "k"), which would make "ſerial" a valid level.
func equalFoldASCII(s, upper string) bool {
	if len(s) != len(upper) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c != upper[i] {
			return false
		}
	}
	return true
}

// MarshalText returns the CQL name. It fails for a value that is not a
// level, rather than writing something that [Consistency.UnmarshalText]
// would later reject.
func (c Consistency) MarshalText() ([]byte, error) {
	if !c.IsValid() {
		return nil, &kerrors.ArgumentError{Op: "Consistency.MarshalText", Arg: c.String(),
			Message: "cannot marshal invalid consistency level " + strconv.Quote(c.String())}
	}
	return []byte(consistencyNames[c]), nil
}

// UnmarshalText parses a CQL name as [ParseConsistency] does. On error c is
// left unchanged.
func (c *Consistency) UnmarshalText(text []byte) error {
	v, err := ParseConsistency(string(text))
	if err != nil {
		return err
	}
	*c = v
	return nil
}
