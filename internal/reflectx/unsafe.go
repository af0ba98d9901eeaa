package reflectx

import (
	"reflect"
	"unsafe"
)

// This file is the whole of kandra's unsafe code. Everything here works on
// offsets that Fields computed from reflect, once per type, so the per-row
// paths need neither reflection nor allocation.

// eface is the runtime layout of an empty interface. It has been stable
// since Go 1.0 and is relied on by widely used libraries; TestEfaceLayout
// checks it on every run.
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// TypeWord is the runtime type word of an interface value: two interfaces
// holding values of one dynamic type have the same word. It is comparable,
// so it can key a map, and cheaper to hash than a reflect.Type.
type TypeWord struct{ p unsafe.Pointer }

// IsZero reports the word of no type (a nil interface).
func (w TypeWord) IsZero() bool { return w.p == nil }

// WordOf returns the type word of t.
func WordOf(t reflect.Type) TypeWord {
	v := reflect.Zero(t).Interface()
	return TypeWord{(*eface)(unsafe.Pointer(&v)).typ}
}

// PointerWordOf returns the type word of *t.
func PointerWordOf(t reflect.Type) TypeWord { return WordOf(reflect.PointerTo(t)) }

// PointerWord returns the type word of *T, the word PointerWordOf returns
// for T's reflect.Type, without reflection: the compiler knows it, so the
// call costs a load.
func PointerWord[T any]() TypeWord {
	w, _ := Unpack((*T)(nil))
	return w
}

// Data is the data word of an interface that holds a pointer: the pointer
// itself, kept opaque so that only this package does arithmetic on it.
type Data struct{ p unsafe.Pointer }

// IsNil reports a nil pointer.
func (d Data) IsNil() bool { return d.p == nil }

// Unpack returns the type word and data word of v. For a pointer value the
// data word is the pointer.
func Unpack(v any) (TypeWord, Data) {
	e := (*eface)(unsafe.Pointer(&v))
	return TypeWord{e.typ}, Data{e.data}
}

// PackAt returns an interface of dynamic type w (a pointer type's word)
// holding the address d+off: the field at offset off of the struct d
// points to. It neither allocates nor reflects. The caller guarantees that
// w is the word of a pointer to the field's type.
func (d Data) PackAt(w TypeWord, off uintptr) any {
	var v any
	e := (*eface)(unsafe.Pointer(&v))
	e.typ, e.data = w.p, unsafe.Add(d.p, off)
	return v
}

// PackField is PackAt for a typed base pointer.
func PackField[T any](w TypeWord, base *T, off uintptr) any {
	return Data{unsafe.Pointer(base)}.PackAt(w, off)
}

// WordSize is the size of the words Word reads: a pointer's.
const WordSize = unsafe.Sizeof(uintptr(0))

// Word returns the i-th word of *base. The caller guarantees that T is
// aligned to WordSize and that the word lies within it.
func Word[T any](base *T, i int) uintptr {
	return *(*uintptr)(unsafe.Add(unsafe.Pointer(base), uintptr(i)*WordSize))
}

// SameMemory reports whether the size bytes at offset off of *a and *b
// are equal: the same field holding bitwise the same value (the same
// string, slice or map header, the same time.Time, the same pointer).
func SameMemory[T any](a, b *T, off, size uintptr) bool {
	p := (*byte)(unsafe.Add(unsafe.Pointer(a), off))
	q := (*byte)(unsafe.Add(unsafe.Pointer(b), off))
	return unsafe.String(p, size) == unsafe.String(q, size)
}

// StringBytes returns s's own bytes, not a copy, as a slice that must
// never be written (a literal's bytes are read-only memory); an empty s
// gives an empty slice that is not nil.
func StringBytes(s string) []byte {
	if len(s) == 0 {
		return []byte{}
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// FieldAt returns the address of the V at offset off in *base. The caller
// guarantees that a field of type V lies there (Fields computed off).
func FieldAt[V, T any](base *T, off uintptr) *V {
	return (*V)(unsafe.Add(unsafe.Pointer(base), off))
}

// OffsetIn returns where the pointer field lies inside the struct that the
// pointer base points to, whose size is size: field - base, and whether it
// lies inside at all. Both must be pointers (interfaces holding pointers);
// anything else reports false.
func OffsetIn(base, field any, size uintptr) (uintptr, bool) {
	bw, b := Unpack(base)
	fw, f := Unpack(field)
	if bw.IsZero() || fw.IsZero() || b.p == nil || f.p == nil {
		return 0, false
	}
	if reflect.TypeOf(base).Kind() != reflect.Pointer || reflect.TypeOf(field).Kind() != reflect.Pointer {
		return 0, false
	}
	bp, fp := uintptr(b.p), uintptr(f.p)
	if fp < bp || fp-bp >= size && !(size == 0 && fp == bp) {
		return 0, false
	}
	return fp - bp, true
}

// Float32s is the addressable array v, of any array type whose elements
// are of kind float32 ([N]float32, [N]MyFloat), as a []float32 over the
// same memory: its elements read and set bit for bit, where reflect's
// Float and SetFloat pass through float64, which quiets a signalling NaN.
func Float32s(v reflect.Value) []float32 {
	if v.Kind() != reflect.Array || v.Type().Elem().Kind() != reflect.Float32 || !v.CanAddr() {
		panic("reflectx: Float32s of a " + v.Type().String() + " that is not an addressable array of float32")
	}
	return unsafe.Slice((*float32)(v.Addr().UnsafePointer()), v.Len())
}
