package kgocql

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"

	gocql "github.com/gocql/gocql"
	"pgregory.net/rapid"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/storedgen"
)

// Stored equality against gocql: the bytes kandra.ColumnSchema.AppendStored
// gives a value are the bytes this adapter sends for it (through the
// codec and gocql's Marshal, with the type info a server describes), and
// SameStored holds exactly when those are equal, for every column
// storedgen draws. The one difference is by design: an empty collection
// in a column that is not frozen is sent as an empty value, which the
// server keeps as no cell (null), and AppendStored gives null.

// storedInfo is gocql's type info of ct, as the server describes it.
func storedInfo(t *rapid.T, ct kandra.CQLType) gocql.TypeInfo {
	switch ct.Kind() {
	case kandra.KindList:
		return gocql.CollectionType{NativeType: nativeType(4, gocql.TypeList), Elem: storedInfo(t, ct.Elem())}
	case kandra.KindSet:
		return gocql.CollectionType{NativeType: nativeType(4, gocql.TypeSet), Elem: storedInfo(t, ct.Elem())}
	case kandra.KindMap:
		return gocql.CollectionType{NativeType: nativeType(4, gocql.TypeMap), Key: storedInfo(t, ct.Key()), Elem: storedInfo(t, ct.Elem())}
	case kandra.KindUDT:
		u := gocql.UDTTypeInfo{NativeType: nativeType(4, gocql.TypeUDT), KeySpace: "ks", Name: ct.Name()}
		for _, f := range ct.Fields() {
			u.Elements = append(u.Elements, gocql.UDTField{Name: f.Name, Type: storedInfo(t, f.Type)})
		}
		return u
	case kandra.KindVector:
		return nativeType(4, gocql.TypeCustom) // gocql v1.7.0 has no vector type; the core encodes it
	}
	switch ct.Name() {
	case "VARCHAR":
		return nativeType(4, gocql.TypeVarchar)
	case "ASCII":
		return nativeType(4, gocql.TypeAscii)
	}
	typ, ok := udtNatives[ct.Name()]
	if !ok {
		t.Fatalf("no type info for %s", ct)
	}
	return nativeType(4, typ)
}

// sentStored is what the adapter sends for the field at p, as the server
// stores it, in the [bytes] form AppendStored gives.
func sentStored(t *rapid.T, codec *Codec, info gocql.TypeInfo, col *kandra.ColumnSchema, p any) []byte {
	b, err := gocql.Marshal(info, codec.BindValues([]any{p})[0])
	if err != nil {
		t.Fatalf("gocql.Marshal(%#v): %v", reflect.ValueOf(p).Elem(), err)
	}
	if b == nil || col.Type().IsCollection() && !col.IsFrozen() && bytes.Equal(b, []byte{0, 0, 0, 0}) {
		return []byte{0xff, 0xff, 0xff, 0xff}
	}
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

func TestStoredAsGocql(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := storedgen.Draw(t)
		col, err := c.Column()
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		codec, err := NewCodec([]*kandra.ColumnSchema{col})
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		info := storedInfo(t, col.Type())
		a := c.Value(t, "a")
		var b any
		if rapid.Bool().Draw(t, "other form") {
			b = c.Other(t, a, "b")
		} else {
			b = c.Value(t, "b")
		}
		for _, p := range []any{a, b} {
			got, err := col.AppendStored(nil, p)
			if err != nil {
				t.Fatalf("%s: AppendStored(%#v): %v", c, reflect.ValueOf(p).Elem(), err)
			}
			if sent := sentStored(t, codec, info, col, p); !bytes.Equal(got, sent) {
				t.Fatalf("%s (%s): %#v: AppendStored %x, the adapter sends %x", c, col.Decl(), reflect.ValueOf(p).Elem(), got, sent)
			}
		}
		sa, sb := sentStored(t, codec, info, col, a), sentStored(t, codec, info, col, b)
		if same := col.SameStored(a, b); same != bytes.Equal(sa, sb) {
			t.Fatalf("%s: SameStored(%#v, %#v) = %v; the adapter sends %x and %x", c, reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem(), same, sa, sb)
		}
	})
}

// TestStoredDriverUUID: the driver's own UUID type (which storedgen, in
// package kandra's module, cannot draw) is stored as its 16 bytes, as the
// adapter sends them; the zero UUID in a TIMEUUID is null (SentAsNull),
// as the adapter sends it (16 zero bytes are refused by servers).
func TestStoredDriverUUID(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cql := rapid.SampledFrom([]string{"UUID", "TIMEUUID"}).Draw(t, "type")
		col, err := column(reflect.TypeFor[gocql.UUID](), cql)
		if err != nil {
			t.Fatal(err)
		}
		codec, err := NewCodec([]*kandra.ColumnSchema{col})
		if err != nil {
			t.Fatal(err)
		}
		var u gocql.UUID
		copy(u[:], rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "uuid"))
		if rapid.IntRange(0, 4).Draw(t, "zero") == 0 {
			u = gocql.UUID{}
		} else if cql == "TIMEUUID" {
			u[6], u[8] = u[6]&0x0f|0x10, u[8]&0x3f|0x80
		}
		got, err := col.AppendStored(nil, &u)
		if err != nil {
			t.Fatal(err)
		}
		if sent := sentStored(t, codec, storedInfo(t, col.Type()), col, &u); !bytes.Equal(got, sent) {
			t.Fatalf("%s in %s: AppendStored %x, the adapter sends %x", u, cql, got, sent)
		}
	})
}
