package cqlvalue

import "slices"

// TextSet is a set of text given by its elements: distinct, in the
// server's order (the bytes', as Go compares strings). It is the value a
// set change (kstore's Add and Remove) binds on a set of text, which the
// adapters write as the drivers write a []string: the call builds no map,
// and the adapter neither walks nor sorts one.
type TextSet []string

// NewTextSet is the TextSet of ks: a sorted copy without duplicates (ks is
// left as it was). It is never nil: no element is the empty set, not
// null.
func NewTextSet(ks []string) TextSet {
	s := make(TextSet, len(ks))
	copy(s, ks)
	slices.Sort(s)
	return slices.Compact(s)
}
