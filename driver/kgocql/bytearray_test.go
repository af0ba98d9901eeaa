package kgocql

import (
	"encoding/binary"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	gocql "github.com/gocql/gocql"
	"pgregory.net/rapid"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

// Fixed-size byte arrays given AsType(BLOB), which gocql v1.7.0 does not
// marshal (its blob case takes slices and strings only): the codec sends
// their bytes and reads them back only at their length.

type hash32 [32]byte

// byteArrayCases are the Go types and BLOB types of the round trips.
var byteArrayCases = []struct {
	typ reflect.Type
	cql string
}{
	{reflect.TypeFor[[1]byte](), "BLOB"},
	{reflect.TypeFor[[16]byte](), "BLOB"},
	{reflect.TypeFor[hash32](), "BLOB"},
	{reflect.TypeFor[*[32]byte](), "BLOB"},
	{reflect.TypeFor[[][4]byte](), "LIST<BLOB>"},
	{reflect.TypeFor[map[[4]byte]struct{}](), "SET<BLOB>"},
	{reflect.TypeFor[map[[2]byte][16]byte](), "MAP<BLOB, BLOB>"},
}

// drawByteArrays fills the byte arrays of v (a new value of its type) with
// drawn bytes, the zero array among them.
func drawByteArrays(t *rapid.T, typ reflect.Type, label string) reflect.Value {
	v := reflect.New(typ).Elem()
	switch typ.Kind() {
	case reflect.Array:
		if rapid.IntRange(0, 4).Draw(t, label+" zero") > 0 {
			reflect.Copy(v, reflect.ValueOf(rapid.SliceOfN(rapid.Byte(), typ.Len(), typ.Len()).Draw(t, label)))
		}
	case reflect.Pointer:
		if rapid.IntRange(0, 3).Draw(t, label+" nil") > 0 {
			v.Set(reflect.New(typ.Elem()))
			v.Elem().Set(drawByteArrays(t, typ.Elem(), label))
		}
	case reflect.Slice:
		n := rapid.IntRange(0, 4).Draw(t, label+" len")
		v.Set(reflect.MakeSlice(typ, n, n))
		for i := range n {
			v.Index(i).Set(drawByteArrays(t, typ.Elem(), label+"[]"))
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(typ))
		for range rapid.IntRange(1, 4).Draw(t, label+" len") {
			v.SetMapIndex(drawByteArrays(t, typ.Key(), label+" key"), drawByteArrays(t, typ.Elem(), label+" value"))
		}
	}
	return v
}

// TestByteArraysRoundTrip: a byte array in a BLOB (a column's own, behind
// a pointer, in a list, a set and a map) is scanned back equal through
// gocql's Marshal and Unmarshal. (That the bytes sent are those
// kandra.ColumnSchema.AppendStored gives is TestStoredAsGocql's, which
// storedgen draws byte arrays for.)
func TestByteArraysRoundTrip(t *testing.T) {
	codecs := make([]*Codec, len(byteArrayCases))
	cols := make([]*kandra.ColumnSchema, len(byteArrayCases))
	for i, c := range byteArrayCases {
		col, err := column(c.typ, c.cql)
		if err != nil {
			t.Fatalf("%s as %s: %v", c.typ, c.cql, err)
		}
		codecs[i], cols[i] = codecOf(t, c.typ, c.cql), col
		if !codecs[i].Converted(0) {
			t.Errorf("%s as %s is not converted", c.typ, c.cql)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		i := rapid.IntRange(0, len(byteArrayCases)-1).Draw(t, "case")
		typ, codec, col := byteArrayCases[i].typ, codecs[i], cols[i]
		info := storedInfo(t, col.Type())
		in := reflect.New(typ)
		in.Elem().Set(drawByteArrays(t, typ, "v"))
		b, err := gocql.Marshal(info, codec.BindValues([]any{in.Interface()})[0])
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		back := reflect.New(typ)
		targets, finish := codec.ScanTargets([]any{back.Interface()})
		if err := gocql.Unmarshal(info, b, targets[0]); err != nil {
			t.Fatalf("%s: unmarshal %x: %v", typ, b, err)
		}
		if err := finish(); err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		if !reflect.DeepEqual(back.Elem().Interface(), in.Elem().Interface()) {
			t.Fatalf("%s: wrote %v, read back %v", typ, in.Elem(), back.Elem())
		}
	})
}

// TestByteArraysReadExactly: null reads as the zero array; a stored blob
// of any other length (the empty value too), in a column or inside a
// collection, fails the read with an *kerrors.ValueError naming the
// column, the length and the field's Go type: never cut, never padded.
func TestByteArraysReadExactly(t *testing.T) {
	blob := nativeType(4, gocql.TypeBlob)
	codec := codecOf(t, reflect.TypeFor[hash32](), "BLOB")
	read := func(data []byte) (hash32, error) {
		h := hash32{1, 2, 3}
		targets, finish := codec.ScanTargets([]any{&h})
		if err := gocql.Unmarshal(blob, data, targets[0]); err != nil {
			return h, err
		}
		return h, finish()
	}
	if h, err := read(nil); err != nil || h != (hash32{}) {
		t.Errorf("null reads as %x, %v; want the zero array", h, err)
	}
	for _, n := range []int{0, 1, 31, 33, 64} {
		h, err := read(make([]byte, n))
		var ve *kerrors.ValueError
		if !errors.As(err, &ve) || !ve.Read || ve.Column != "v" || ve.Table != "t" ||
			!strings.Contains(ve.Reason, "the stored blob is "+strconv.Itoa(n)+" bytes long, and the field's type kgocql.hash32 holds exactly 32") ||
			!strings.Contains(ve.Value, "("+strconv.Itoa(n)+" bytes)") {
			t.Errorf("a %d-byte blob: %v (%+v)", n, err, ve)
		}
		if h != (hash32{1, 2, 3}) {
			t.Errorf("a %d-byte blob changed the field to %x", n, h)
		}
	}
	// Inside a collection.
	list := codecOf(t, reflect.TypeFor[[][4]byte](), "LIST<BLOB>")
	var got [][4]byte
	targets, finish := list.ScanTargets([]any{&got})
	data := binary.BigEndian.AppendUint32(nil, 2)
	data = append(binary.BigEndian.AppendUint32(data, 4), 1, 2, 3, 4)
	data = append(binary.BigEndian.AppendUint32(data, 3), 5, 6, 7)
	info := gocql.CollectionType{NativeType: nativeType(4, gocql.TypeList), Elem: blob}
	if err := gocql.Unmarshal(info, data, targets[0]); err != nil {
		t.Fatal(err)
	}
	var ve *kerrors.ValueError
	if err := finish(); !errors.As(err, &ve) || ve.Column != "v" || !strings.Contains(ve.Reason, "3 bytes long, and the field's type [4]uint8 holds exactly 4") {
		t.Errorf("a 3-byte element of a list of [4]byte: %v", err)
	}
	// gocql v1.7.0 does not marshal an array into a blob (the codec's
	// reason to convert); ScyllaDB's fork neither.
	if _, err := gocql.Marshal(blob, [4]byte{1}); err == nil {
		t.Error("gocql marshals a [4]byte into a blob: the conversion may be redundant")
	}
}
