package reflectx

import (
	"math"
	"reflect"
	"testing"
	"time"
	"unsafe"
)

type inner struct {
	A int16
	B string
}

type outer struct {
	X  int8
	In inner
	Z  []byte
	E  struct{}
	T  time.Time
}

// TestEfaceLayout checks the interface layout everything here relies on:
// a value packed from a type word and an address reads back as the
// ordinary interface holding that pointer.
func TestEfaceLayout(t *testing.T) {
	var o outer
	w, d := Unpack(&o)
	if w != PointerWordOf(reflect.TypeFor[outer]()) || w != PointerWord[outer]() {
		t.Fatalf("type words disagree: Unpack %v, PointerWordOf %v, PointerWord %v", w, PointerWordOf(reflect.TypeFor[outer]()), PointerWord[outer]())
	}
	if got := d.PackAt(w, 0); got != any(&o) {
		t.Fatalf("PackAt(w, 0) = %v, want %p", got, &o)
	}
	if WordOf(reflect.TypeFor[int]()) == WordOf(reflect.TypeFor[int64]()) {
		t.Fatal("distinct types share a word")
	}
	var nilIface any
	if w, d := Unpack(nilIface); !w.IsZero() || !d.IsNil() {
		t.Fatal("a nil interface unpacks to non-zero words")
	}
}

// TestFieldAccess goes through every field, nested and zero-size ones
// included, by the offsets Fields computes.
func TestFieldAccess(t *testing.T) {
	o := &outer{X: 7, In: inner{A: 300, B: "b"}, Z: []byte("z"), T: time.Unix(5, 0)}
	fields, err := Fields(reflect.TypeFor[outer]())
	if err != nil {
		t.Fatal(err)
	}
	rv := reflect.ValueOf(o).Elem()
	for _, f := range fields {
		want := rv.FieldByIndex(f.Index).Addr().Interface()
		got := PackField(PointerWordOf(f.Type), o, f.Offset)
		if got != want {
			t.Errorf("%s: PackField = %#v, want %#v", f.Path, got, want)
		}
		off, ok := OffsetIn(o, want, reflect.TypeFor[outer]().Size())
		if !ok || off != f.Offset {
			t.Errorf("%s: OffsetIn = %d, %v; want %d", f.Path, off, ok, f.Offset)
		}
	}
	*FieldAt[string](o, reflect.TypeFor[outer]().Field(1).Offset+reflect.TypeFor[inner]().Field(1).Offset) = "set"
	if o.In.B != "set" {
		t.Fatalf("FieldAt wrote elsewhere: %+v", o)
	}
}

// TestSameMemory compares a field's bytes only: what lies around it does
// not count.
func TestSameMemory(t *testing.T) {
	a := &outer{X: 7, In: inner{A: 300, B: "b"}, Z: []byte("z"), T: time.Unix(5, 0)}
	b := *a
	typ := reflect.TypeFor[outer]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !SameMemory(a, &b, f.Offset, f.Type.Size()) {
			t.Errorf("%s: a copy is not the same", f.Name)
		}
	}
	b.Z = append(make([]byte, 0, 1), 'z') // equal bytes, another array: another slice header
	b.X = 8
	for i := range typ.NumField() {
		f := typ.Field(i)
		want := f.Name != "Z" && f.Name != "X"
		if got := SameMemory(a, &b, f.Offset, f.Type.Size()); got != want {
			t.Errorf("%s: SameMemory = %v, want %v", f.Name, got, want)
		}
	}
}

func TestOffsetInRefusesOutsiders(t *testing.T) {
	o, other := &outer{}, &outer{}
	size := reflect.TypeFor[outer]().Size()
	for name, field := range map[string]any{
		"another value": &other.X, "nil pointer": (*int8)(nil), "not a pointer": 3, "nil": nil,
	} {
		if _, ok := OffsetIn(o, field, size); ok {
			t.Errorf("%s: OffsetIn reports a field of o", name)
		}
	}
	if _, ok := OffsetIn(3, &o.X, size); ok {
		t.Error("a non-pointer base is accepted")
	}
}

func TestFloat32sKeepsSignallingNaN(t *testing.T) {
	type myFloat float32
	var a [2]myFloat
	xs := Float32s(reflect.ValueOf(&a).Elem())
	const snan = 0x7f800001 // a signalling NaN: through float64 it turns quiet (0x7fc00001)
	xs[1] = math.Float32frombits(snan)
	if got := math.Float32bits(float32(a[1])); got != snan || len(xs) != 2 {
		t.Fatalf("Float32s wrote %#x, want %#x", got, snan)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Float32s of an unaddressable array did not panic")
		}
	}()
	Float32s(reflect.ValueOf(a))
}

func TestStringBytes(t *testing.T) {
	s := string([]byte("héllo"))
	b := StringBytes(s)
	if string(b) != s || len(b) != len(s) || cap(b) != len(s) {
		t.Fatalf("%q (len %d, cap %d), want %q", b, len(b), cap(b), s)
	}
	if &b[0] != unsafe.StringData(s) {
		t.Error("the bytes are a copy")
	}
	if b := StringBytes(""); b == nil || len(b) != 0 {
		t.Errorf("the empty string gives %#v, want an empty slice that is not nil", b)
	}
	if n := testing.AllocsPerRun(100, func() { b = StringBytes(s) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}
