package cqlorder

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"math/big"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// genType draws a CQL type of up to depth levels of collections.
func genType(depth int) *rapid.Generator[Type] {
	return rapid.Custom(func(t *rapid.T) Type {
		natives := []string{"tinyint", "smallint", "int", "bigint", "timestamp", "float", "double", "varint", "decimal", "uuid", "timeuuid", "text", "boolean"}
		if depth == 0 || rapid.IntRange(0, 2).Draw(t, "native") > 0 {
			return Type{Name: rapid.SampledFrom(natives).Draw(t, "name")}
		}
		switch rapid.SampledFrom([]string{"list", "set", "map", "udt"}).Draw(t, "kind") {
		case "udt":
			n := rapid.IntRange(1, 3).Draw(t, "fields")
			u := Type{Name: "udt", UDT: "u"}
			for i := range n {
				u.Args = append(u.Args, genType(depth-1).Draw(t, "field"))
				u.Fields = append(u.Fields, string(rune('a'+i)))
			}
			return u
		case "list":
			return Type{Name: "list", Args: []Type{genType(depth-1).Draw(t, "elem")}}
		case "set":
			return Type{Name: "set", Args: []Type{genType(depth-1).Draw(t, "elem")}}
		}
		return Type{Name: "map", Args: []Type{genType(depth-1).Draw(t, "key"), genType(depth-1).Draw(t, "value")}}
	})
}

// genValue draws a well-formed serialized value of typ (sometimes the
// empty value, which every type allows).
func genValue(typ Type) *rapid.Generator[[]byte] {
	return rapid.Custom(func(t *rapid.T) []byte {
		if rapid.IntRange(0, 19).Draw(t, "empty") == 0 {
			return []byte{}
		}
		fixed := func(n int) []byte { return rapid.SliceOfN(rapid.Byte(), n, n).Draw(t, "bytes") }
		switch typ.Name {
		case "tinyint", "boolean":
			return fixed(1)
		case "smallint":
			return fixed(2)
		case "int", "float":
			return fixed(4)
		case "bigint", "timestamp", "double":
			return fixed(8)
		case "uuid":
			u := fixed(16)
			u[6] = u[6]&0x0f | rapid.SampledFrom([]byte{0x10, 0x40, 0x00, 0x70}).Draw(t, "version")
			return u
		case "timeuuid":
			u := fixed(16)
			u[6] = u[6]&0x0f | 0x10
			return u
		case "varint":
			return encodeVarint(big.NewInt(rapid.Int64().Draw(t, "varint")))
		case "decimal":
			scale := rapid.Int32Range(-40, 40).Draw(t, "scale")
			return append(be32(scale), encodeVarint(big.NewInt(rapid.Int64Range(-1000, 1000).Draw(t, "unscaled")))...)
		case "text":
			return []byte(rapid.StringN(0, 4, -1).Draw(t, "text"))
		}
		if typ.Name == "udt" {
			// Up to every field (fewer: a value written before ALTER TYPE
			// ADD), each null or a value.
			var fields [][]byte
			for i := range rapid.IntRange(1, len(typ.Args)).Draw(t, "n") {
				if rapid.IntRange(0, 3).Draw(t, "null") == 0 {
					fields = append(fields, nil)
					continue
				}
				fields = append(fields, genValue(typ.Args[i]).Draw(t, "field"))
			}
			return AppendUDT(nil, fields)
		}
		per := 1
		if typ.Name == "map" {
			per = 2
		}
		n := rapid.IntRange(0, 3).Draw(t, "n")
		var elems [][]byte
		for i := 0; i < n*per; i++ {
			elems = append(elems, genValue(typ.Args[i%per]).Draw(t, "elem"))
		}
		return AppendCollection(nil, n, elems)
	})
}

// decode reads a numeric value as a rational, the reference order; ok is
// false for the types that have none (or the NaNs).
func decode(typ string, b []byte) (*big.Rat, bool) {
	switch typ {
	case "tinyint", "smallint", "int", "bigint", "timestamp", "varint":
		return new(big.Rat).SetInt(varint(b)), true
	case "float":
		f := float64(math.Float32frombits(binary.BigEndian.Uint32(b)))
		return new(big.Rat).SetFloat64(f), !math.IsNaN(f) && !math.IsInf(f, 0)
	case "double":
		f := math.Float64frombits(binary.BigEndian.Uint64(b))
		return new(big.Rat).SetFloat64(f), !math.IsNaN(f) && !math.IsInf(f, 0)
	case "decimal":
		r := new(big.Rat).SetInt(varint(b[4:]))
		scale := int64(int32(binary.BigEndian.Uint32(b)))
		p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(max(scale, -scale)), nil))
		if scale >= 0 {
			return r.Quo(r, p), true
		}
		return r.Mul(r, p), true
	}
	return nil, false
}

// Compare is a total preorder on the well-formed values of every type:
// reflexive, antisymmetric and transitive; and on the numeric types it is
// the numbers' order.
func TestCompareIsAnOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		typ := genType(2).Draw(t, "type")
		a, b, c := genValue(typ).Draw(t, "a"), genValue(typ).Draw(t, "b"), genValue(typ).Draw(t, "c")
		ab, ba, bc, ac := sign(Compare(typ, a, b)), sign(Compare(typ, b, a)), sign(Compare(typ, b, c)), sign(Compare(typ, a, c))
		if Compare(typ, a, a) != 0 {
			t.Fatalf("%s %x vs itself: not equal", typ, a)
		}
		if ab != -ba {
			t.Fatalf("%s %x vs %x: %d one way, %d the other", typ, a, b, ab, ba)
		}
		if ab <= 0 && bc <= 0 && ac > 0 || ab >= 0 && bc >= 0 && ac < 0 {
			t.Fatalf("%s not transitive: a %x, b %x, c %x: a?b %d, b?c %d, a?c %d", typ, a, b, c, ab, bc, ac)
		}
		if len(a) == 0 || len(b) == 0 {
			return
		}
		if ra, ok := decode(typ.Name, a); ok {
			if rb, ok := decode(typ.Name, b); ok && ra.Cmp(rb) != ab && !(ra.Sign() == 0 && rb.Sign() == 0) {
				t.Fatalf("%s %s vs %s: %d, want %d", typ, ra.RatString(), rb.RatString(), ab, ra.Cmp(rb))
			}
		}
	})
}

// Marshal sends a set the same bytes whatever the order of its Go value,
// ascending without repeats, each distinct element once.
func TestMarshalSetIsCanonical(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		elems := rapid.SliceOfN(rapid.Int32Range(-20, 20), 0, 12).Draw(t, "elems")
		shuffled := slices.Clone(elems)
		for i := len(shuffled) - 1; i > 0; i-- {
			j := rapid.IntRange(0, i).Draw(t, "j")
			shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
		}
		typ, inf := Type{Name: "set", Args: []Type{{Name: "int"}}}, coll(Set, nil, native)
		a, err := Marshal[*info](&testDriver{}, inf, typ, reflect.ValueOf(elems))
		if err != nil {
			t.Fatal(err)
		}
		b, err := Marshal[*info](&testDriver{}, inf, typ, reflect.ValueOf(shuffled))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Fatalf("%v and %v marshal to %x and %x", elems, shuffled, a, b)
		}
		got, ok := splitCollection(a, false)
		if !ok {
			t.Fatalf("not a collection: %x", a)
		}
		want := slices.Clone(elems)
		slices.Sort(want)
		want = slices.Compact(want)
		if len(got) != len(want) || int(binary.BigEndian.Uint32(a)) != len(want) {
			t.Fatalf("%v: %d elements, want %d", elems, len(got), len(want))
		}
		for i, w := range want {
			if cmp.Compare(int32(binary.BigEndian.Uint32(got[i])), w) != 0 {
				t.Fatalf("%v: element %d is %x, want %d", elems, i, got[i], w)
			}
		}
	})
}

// Marshal sends a map in key order, and its entries are the map's.
func TestMarshalMapInKeyOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := rapid.MapOfN(rapid.StringN(0, 3, -1), rapid.Int64(), 0, 8).Draw(t, "map")
		typ := Type{Name: "map", Args: []Type{{Name: "text"}, {Name: "bigint"}}}
		out, err := Marshal[*info](&testDriver{}, coll(Map, native, native), typ, reflect.ValueOf(m))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := splitCollection(out, true)
		if !ok || len(got) != 2*len(m) {
			t.Fatalf("%v: %x is not a map of %d entries", m, out, len(m))
		}
		for i := 0; i < len(got); i += 2 {
			if i > 0 && bytes.Compare(got[i-2], got[i]) >= 0 {
				t.Fatalf("%v: key %q not after %q", m, got[i], got[i-2])
			}
			if v, ok := m[string(got[i])]; !ok || !bytes.Equal(be64(v), got[i+1]) {
				t.Fatalf("%v: entry %q = %x is not the map's", m, got[i], got[i+1])
			}
		}
	})
}
