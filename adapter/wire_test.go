package adapter

import (
	"encoding/binary"
	"math"
	"reflect"
	"testing"
)

// TestVectorBitForBit: a vector keeps every float as it is, a signalling
// NaN included (through reflect's Float it would turn quiet), written from
// an addressable array or a copy, and read back.
func TestVectorBitForBit(t *testing.T) {
	type vec [3]float32
	bits := []uint32{0x7f800001, 0xffa00000, 0x80000000} // signalling NaNs, -0
	var v vec
	for i, b := range bits {
		v[i] = math.Float32frombits(b)
	}
	for _, rv := range []reflect.Value{reflect.ValueOf(&v).Elem(), reflect.ValueOf(v)} {
		data := vectorBytes(rv)
		for i, b := range bits {
			if got := binary.BigEndian.Uint32(data[4*i:]); got != b {
				t.Fatalf("vectorBytes (addressable %v): component %d is %#x, want %#x", rv.CanAddr(), i, got, b)
			}
		}
		back, err := vectorValue(reflect.TypeFor[vec](), data)
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range bits {
			if got := math.Float32bits(back.Interface().(vec)[i]); got != b {
				t.Fatalf("vectorValue: component %d is %#x, want %#x", i, got, b)
			}
		}
	}
}
