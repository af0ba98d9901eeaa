package integration

import (
	"net"
	"net/netip"
	"reflect"
	"time"

	"github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/cqlorder"
)

// The suite binds and scans entities through the gocql adapter's Codec
// (github.com/kandra-go/kandra/driver/kgocql). What stays here is for the
// suite's own generators and comparisons: a CQL type as a tree of lower-
// case names, and the Go types they switch on.

var (
	typeUUID      = reflect.TypeFor[uuid.UUID]()
	typeByte16    = reflect.TypeFor[[16]byte]()
	typeGocqlUUID = reflect.TypeFor[gocql.UUID]()
	typeAddr      = reflect.TypeFor[netip.Addr]()
	typeNetIP     = reflect.TypeFor[net.IP]()
	typeDuration  = reflect.TypeFor[time.Duration]()
	typeTime      = reflect.TypeFor[time.Time]()
)

// specialBase is the special type a named type of one is drawn and
// compared as: kandra maps every 16-byte array type (type UserID
// uuid.UUID) as UUID, a struct type convertible to time.Time or
// netip.Addr as that type (the adapter's Codec converts them likewise).
// ok is false for every other type, for the special types themselves, and
// for gocql.UUID and [16]byte, which gocql takes as they are.
func specialBase(t reflect.Type) (base reflect.Type, ok bool) {
	if t == typeGocqlUUID || t == typeByte16 {
		return nil, false
	}
	for _, base := range []reflect.Type{typeUUID, typeTime, typeAddr} {
		if t != base && t.Kind() == base.Kind() && t.ConvertibleTo(base) {
			return base, true
		}
	}
	return nil, false
}

func isSetElem(t reflect.Type) bool { return t.Kind() == reflect.Struct && t.NumField() == 0 }

// cqlNode is a parsed CQL type, as the adapters' set and map ordering
// sees it: a lower-case native name, or list/set/map with arguments.
type cqlNode = cqlorder.Type

// nodeOf walks a kandra.CQLType into a cqlNode.
var nodeOf = cqlorder.Of

// parseCQLType reads a CQL type string (kandra's rendering or a server's)
// into a cqlNode, for tests that start from text.
func parseCQLType(s string) (cqlNode, error) {
	t, err := kandra.ParseCQLType(s)
	if err != nil {
		return cqlNode{}, err
	}
	return nodeOf(t)
}
