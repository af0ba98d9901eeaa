package kandra

import (
	"github.com/google/uuid"
)

// UUIDStrategy selects how a generated UUID key is made.
//
// The zero value is [UUIDTimeOrdered], so a strategy left unset gets the safe
// default for keys.
type UUIDStrategy uint8

const (
	// UUIDTimeOrdered generates UUIDv7 ids (see [NewTimeOrderedUUID]). It is the
	// zero value and the default: ids from one process sort by creation
	// time in a plain CQL uuid column, including ids made within the same
	// millisecond, so two rows written in the same millisecond never share
	// a clustering key and silently overwrite each other.
	UUIDTimeOrdered UUIDStrategy = iota
	// UUIDRandom generates UUIDv4 ids (see [NewRandomUUID]), for ids that must
	// not reveal when they were created.
	UUIDRandom
)

// String returns "UUIDTimeOrdered" or "UUIDRandom", or "UUIDStrategy(n)"
// for a value that is neither.
func (s UUIDStrategy) String() string {
	switch s {
	case UUIDTimeOrdered:
		return "UUIDTimeOrdered"
	case UUIDRandom:
		return "UUIDRandom"
	}
	return invalidEnum("UUIDStrategy", uint64(s))
}

// IsValid reports whether s is [UUIDTimeOrdered] or [UUIDRandom].
// Registration rejects any other value (RuleOptionRange), so that
// [UUIDStrategy.New] never meets one at write time.
func (s UUIDStrategy) IsValid() bool { return s <= UUIDRandom }

// New returns a new id made with the strategy.
//
// It panics if s is not a valid strategy (see [UUIDStrategy.IsValid]):
// silently falling back to another kind of id would change a table's key
// order without anyone noticing. Like [NewTimeOrderedUUID] it also panics
// if the random source fails.
func (s UUIDStrategy) New() uuid.UUID {
	switch s {
	case UUIDTimeOrdered:
		return NewTimeOrderedUUID()
	case UUIDRandom:
		return NewRandomUUID()
	}
	panic("kandra: invalid " + s.String())
}

// NewTimeOrderedUUID returns a new UUIDv7 (RFC 9562): a 48-bit Unix
// millisecond timestamp in the leading bytes, then 12 bits of sub-millisecond
// time, then random bits.
//
// Within one process the ids are strictly increasing in the order the calls
// obtain them, also within one millisecond and across goroutines: the
// generator (google/uuid's NewV7) keeps the last timestamp-plus-sequence it
// handed out under a lock and always moves past it. Because Cassandra and
// ScyllaDB compare uuid values by version nibble and then as unsigned
// big-endian bytes, these ids sort chronologically in a plain uuid column
// (timeuuid columns reject version 7). Ids from different processes or hosts
// are ordered only as well as their clocks agree.
//
// It panics only if the system's random source fails, which a program
// cannot sensibly recover from (since Go 1.24 the default crypto/rand
// source never reports failure; a reader installed with uuid.SetRand could).
// It is as fast as calling uuid.NewV7 directly.
func NewTimeOrderedUUID() uuid.UUID {
	id, err := uuid.NewV7()
	if err != nil {
		panic("kandra: cannot generate a UUIDv7: " + err.Error())
	}
	return id
}

// NewRandomUUID returns a new random UUIDv4. Use it for ids that must not
// leak their creation time; note that in a uuid column every v4 id sorts
// before every v7 id, whatever their contents.
//
// It panics only if the system's random source fails, like
// [NewTimeOrderedUUID].
func NewRandomUUID() uuid.UUID {
	id, err := uuid.NewRandom()
	if err != nil {
		panic("kandra: cannot generate a UUIDv4: " + err.Error())
	}
	return id
}
