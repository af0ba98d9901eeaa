package kstore

import (
	"fmt"

	"github.com/kandra-go/kandra"
)

// The store's one notion of "the same value" is the stored form: two Go
// values are the same when the server would hold the same bytes for them
// (kandra.ColumnSchema.SameStored). One stored value has many Go forms (a
// time in another zone or with sub-millisecond parts, net.ParseIP's
// 16-byte IPv4, a UDT with a `kandra:"-"` field set, a key reached through
// another pointer), and the server compares bytes: a claim's holder, a
// lookup's move, Find's check and a batch's one-row guard judged by Go
// values would disagree with the rows they guard.

// sameLookup reports whether a and b hold one stored value of lookup i.
func (r *Repo[T]) sameLookup(i int, a, b *T) bool {
	col := r.lookups[i].IndexColumn()
	pa, _ := col.Pointer(a)
	pb, _ := col.Pointer(b)
	return col.SameStored(pa, pb)
}

// sameKey reports whether a and b are one stored row (the same primary
// key).
func (r *Repo[T]) sameKey(a, b *T) bool { return sameColumns(r.key, a, b) }

// samePartition reports whether a and b are in one stored partition.
func (r *Repo[T]) samePartition(a, b *T) bool { return sameColumns(r.partition, a, b) }

func sameColumns[T any](cols []*kandra.ColumnSchema, a, b *T) bool {
	for _, c := range cols {
		pa, _ := c.Pointer(a)
		pb, _ := c.Pointer(b)
		if !c.SameStored(pa, pb) {
			return false
		}
	}
	return true
}

// appendStoredKey appends the stored form of e's primary key: equal for
// two entities exactly when they are one row. A value with no stored form
// kandra knows (a CQLTyper's) is appended as its Go value, behind a
// length no stored value has, as SameStored compares it.
func (r *Repo[T]) appendStoredKey(dst []byte, e *T) []byte {
	for _, c := range r.key {
		p, _ := c.Pointer(e)
		out, err := c.AppendStored(dst, p)
		if err != nil {
			out = fmt.Appendf(append(dst, 0xff, 0xff, 0xff, 0xfe), "%#v\x00", derefAny(p))
		}
		dst = out
	}
	return dst
}
