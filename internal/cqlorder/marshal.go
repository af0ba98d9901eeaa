package cqlorder

import (
	"reflect"
	"sort"
)

// Kind is the collection kind of a driver's type info.
type Kind int

// The kinds Driver.Collection reports.
const (
	NotCollection Kind = iota // any type Marshal hands to the driver whole
	List
	Set
	Map
)

// Driver is what Marshal needs from a driver; I is the driver's type
// info (gocql.TypeInfo in both adapters).
type Driver[I any] interface {
	// Collection reports info's kind, and for a collection the type info
	// of its keys (a map's; zero otherwise) and of its elements (a map's
	// values). err stops the marshalling: a driver returns one when it
	// cannot send a sorted collection (a protocol before 3).
	Collection(info I) (kind Kind, key, elem I, err error)
	// Marshal serializes v as the driver does, unsorted.
	Marshal(info I, v any) ([]byte, error)
}

// Marshal serializes v for a column of driver type info and CQL type t as
// d.Marshal would, with the elements of every set and the entries of
// every map in it, at any depth, in Compare's order, and each element (or
// key) once as the server sees them: of elements or keys Compare holds
// equal (two NaNs, 1.0 and 1.00, a slice's repeats) the first is kept, as
// Cassandra keeps the first in a literal. A set may be a slice, an array
// or a map[K]struct{}; a nil pointer, slice or map is null (nil bytes).
// A value whose Go shape does not match t is left to d.Marshal whole.
func Marshal[I any](d Driver[I], info I, t Type, v reflect.Value) ([]byte, error) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil, nil
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		return nil, nil
	}
	if !t.HoldsSetOrMap() {
		return d.Marshal(info, v.Interface())
	}
	kind, keyInfo, elemInfo, err := d.Collection(info)
	if err != nil {
		return nil, err
	}
	if kind == NotCollection {
		return d.Marshal(info, v.Interface())
	}
	if (v.Kind() == reflect.Slice || v.Kind() == reflect.Map) && v.IsNil() {
		return nil, nil
	}
	var elems [][]byte // a map's keys and values, interleaved
	count := 0
	switch {
	case kind == Map && v.Kind() == reflect.Map && len(t.Args) == 2:
		type entry struct{ k, v []byte }
		entries := make([]entry, 0, v.Len())
		for it := v.MapRange(); it.Next(); {
			kb, err := Marshal(d, keyInfo, t.Args[0], it.Key())
			if err != nil {
				return nil, err
			}
			vb, err := Marshal(d, elemInfo, t.Args[1], it.Value())
			if err != nil {
				return nil, err
			}
			entries = append(entries, entry{kb, vb})
		}
		sort.SliceStable(entries, func(i, j int) bool { return Compare(t.Args[0], entries[i].k, entries[j].k) < 0 })
		for i, e := range entries {
			if i > 0 && Compare(t.Args[0], entries[i-1].k, e.k) == 0 {
				continue // keys the server holds equal (NaN, 1.0 and 1.00): the first is kept, as in a literal
			}
			elems = append(elems, e.k, e.v)
			count++
		}
	case kind == Set && v.Kind() == reflect.Map && len(t.Args) == 1: // map[K]struct{}
		for _, k := range v.MapKeys() {
			b, err := Marshal(d, elemInfo, t.Args[0], k)
			if err != nil {
				return nil, err
			}
			elems = append(elems, b)
		}
		count = len(elems)
	case (kind == Set || kind == List) && (v.Kind() == reflect.Slice || v.Kind() == reflect.Array) && len(t.Args) == 1:
		for i := 0; i < v.Len(); i++ {
			b, err := Marshal(d, elemInfo, t.Args[0], v.Index(i))
			if err != nil {
				return nil, err
			}
			elems = append(elems, b)
		}
		count = len(elems)
	default:
		return d.Marshal(info, v.Interface())
	}
	if kind == Set {
		sort.SliceStable(elems, func(i, j int) bool { return Compare(t.Args[0], elems[i], elems[j]) < 0 })
		// A set holds each element once: a slice can repeat one, and the
		// server keeps repeats in a descending clustering column.
		uniq := elems[:0]
		for i, e := range elems {
			if i == 0 || Compare(t.Args[0], elems[i-1], e) != 0 {
				uniq = append(uniq, e)
			}
		}
		elems, count = uniq, len(uniq)
	}
	return AppendCollection(nil, count, elems), nil
}
