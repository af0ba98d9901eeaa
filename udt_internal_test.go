package kandra

import (
	"net/netip"
	"reflect"
	"testing"

	"github.com/google/uuid"
)

// TestFieldsSentAsNull: a value whose every field is a nil pointer, slice
// or map, a nil []byte or net.IP, the zero netip.Addr, or the zero UUID
// in a TIMEUUID field is sent with every field null; any field set, even
// to an empty value, is not.
func TestFieldsSentAsNull(t *testing.T) {
	type inner struct {
		A *int32
		B []string
		C map[string]int32
		D []byte
		E netip.Addr
	}
	type outer struct {
		Inner *inner
		Skip  int `kandra:"-"`
	}
	ct := UDTOf("inner", UDTField{Name: "a", Type: CQLInt}, UDTField{Name: "b", Type: ListOf(CQLText)},
		UDTField{Name: "c", Type: MapOf(CQLText, CQLInt)}, UDTField{Name: "d", Type: CQLBlob},
		UDTField{Name: "e", Type: CQLInet})
	one := int32(1)
	for _, c := range []struct {
		v    inner
		want bool
	}{
		{inner{}, true},
		{inner{A: &one}, false},
		{inner{B: []string{}}, false},
		{inner{D: []byte{}}, false},
		{inner{E: netip.MustParseAddr("::1")}, false},
		{inner{C: map[string]int32{}}, false},
	} {
		if got := fieldsSentAsNull(reflect.ValueOf(c.v), ct); got != c.want {
			t.Errorf("%#v: %v, want %v", c.v, got, c.want)
		}
	}
	uct := UDTOf("outer", UDTField{Name: "inner", Type: ct})
	if !fieldsSentAsNull(reflect.ValueOf(outer{Skip: 3}), uct) || fieldsSentAsNull(reflect.ValueOf(outer{Inner: &inner{}}), uct) {
		t.Error("a nested type: null only when the pointer is nil")
	}
	tu := UDTOf("t", UDTField{Name: "u", Type: CQLTimeUUID})
	if !fieldsSentAsNull(reflect.ValueOf(struct{ U uuid.UUID }{}), tu) || fieldsSentAsNull(reflect.ValueOf(struct{ U uuid.UUID }{}), UDTOf("t", UDTField{Name: "u", Type: CQLUUID})) {
		t.Error("the zero UUID is null in a TIMEUUID only")
	}
}
