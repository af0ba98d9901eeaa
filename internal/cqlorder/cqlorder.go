// Package cqlorder orders the elements of CQL sets and the keys of CQL
// maps as Cassandra 5.0's comparators do, and marshals Go values with
// every set and map in that order. It serves the adapter core (package
// adapter, whose SortedValue marshals through it) and the real-server
// suite's canonical forms, and is not for users: it knows no driver, and
// works on kandra.CQLType and the protocol's serialized bytes; a driver
// supplies its own marshalling through Driver.
//
// Why the order matters: a driver sends a Go map in Go's random iteration
// order, and Cassandra 5.0 keeps a frozen set or map in the order it was
// sent when it is a clustering column in descending order (it sorts it
// everywhere else). Unsorted, the same Go value would be a different key
// on every write, and differ from the key another client writes.
package cqlorder

import (
	"fmt"
	"strings"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/cqlcompare"
)

// Type is a CQL type as the comparators see it (see cqlcompare.Type).
type Type = cqlcompare.Type

// Of walks a kandra.CQLType into a Type. It fails for a kind the
// comparators do not know (a tuple), and for a user-defined type without
// its fields (a reference by name, as kandra.ParseCQLType reads one).
func Of(t kandra.CQLType) (Type, error) {
	var children []kandra.CQLType
	switch t.Kind() {
	case kandra.KindNative:
		return Type{Name: strings.ToLower(t.Name())}, nil
	case kandra.KindList, kandra.KindSet, kandra.KindVector:
		children = []kandra.CQLType{t.Elem()}
	case kandra.KindMap:
		children = []kandra.CQLType{t.Key(), t.Elem()}
	case kandra.KindUDT:
		fields := t.Fields()
		if len(fields) == 0 {
			return Type{}, fmt.Errorf("the user-defined type %s has no fields here (a reference by name): kandra needs the type's fields to bind and order its values", t.Name())
		}
		n := Type{Name: "udt", UDT: t.Name(), Args: make([]Type, len(fields)), Fields: make([]string, len(fields))}
		for i, f := range fields {
			var err error
			if n.Args[i], err = Of(f.Type); err != nil {
				return Type{}, err
			}
			n.Fields[i] = f.Name
		}
		return n, nil
	default:
		return Type{}, fmt.Errorf("CQL type %s has kind %s, which set and map ordering does not support: use a native type, a list, set or map, or a user-defined type", t, t.Kind())
	}
	n := Type{Name: t.Kind().String(), Args: make([]Type, len(children))}
	for i, c := range children {
		var err error
		if n.Args[i], err = Of(c); err != nil {
			return Type{}, err
		}
	}
	return n, nil
}
