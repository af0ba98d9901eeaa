package gocqlv2

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"net/netip"
	"reflect"
	"sort"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/auth"
	kerrors "github.com/kandra-go/kandra/errors"
)

type authEvents struct {
	kandra.NopEventListener
	failed    []string
	refreshed int
}

func (a *authEvents) OnEventualWriteFailed(string, any, error) {}
func (a *authEvents) OnAuthFailed(cp string, err error)        { a.failed = append(a.failed, cp) }
func (a *authEvents) OnCredentialRefreshed()                   { a.refreshed++ }

func TestAuthenticatorRotationAndFailure(t *testing.T) {
	pw := "one"
	fail := false
	p := auth.ProviderFunc(func(context.Context) (auth.Credentials, error) {
		if fail {
			return auth.Credentials{}, errors.New("vault down")
		}
		return auth.Credentials{Username: "app", Password: pw}, nil
	})
	l := &authEvents{}
	f := Authenticator(p, l)
	a, err := f(nil)
	if err != nil || a.(gocql.PasswordAuthenticator).Password != "one" || len(a.(gocql.PasswordAuthenticator).AllowedAuthenticators) == 0 {
		t.Fatalf("%#v %v", a, err)
	}
	pw = "two" // rotated: the next connection uses it
	if a, _ = f(nil); a.(gocql.PasswordAuthenticator).Password != "two" || l.refreshed != 1 {
		t.Fatalf("rotation: %d", l.refreshed)
	}
	fail = true
	_, err = f(nil)
	var ae *kerrors.AuthError
	if !errors.As(err, &ae) || len(l.failed) != 1 {
		t.Fatalf("%v %v", err, l.failed)
	}
}

type At time.Time
type ID uuid.UUID

func TestCodecNamedTypes(t *testing.T) {
	cases := []struct {
		v    any
		cql  string
		wire any
	}{
		{uuid.MustParse("6ba7b810-9dad-11d1-80b4-00c04fd430c8"), "uuid", gocql.UUID{}},
		{ID(uuid.MustParse("6ba7b810-9dad-11d1-80b4-00c04fd430c8")), "uuid", gocql.UUID{}},
		{At(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)), "timestamp", time.Time{}},
		{netip.MustParseAddr("10.1.2.3"), "inet", nil},
	}
	for _, c := range cases {
		rt := reflect.TypeOf(c.v)
		cv := planConv(rt, cqlNode{name: c.cql}, true)
		if cv == nil {
			t.Fatalf("%T: no conversion", c.v)
		}
		w := cv.toWire(reflect.ValueOf(c.v))
		if c.wire != nil && w.Type() != reflect.TypeOf(c.wire) {
			t.Fatalf("%T: wire %s", c.v, w.Type())
		}
		back, err := cv.fromWire(w)
		if err != nil || !reflect.DeepEqual(back.Interface(), c.v) {
			t.Fatalf("%T: round trip %v %v", c.v, back, err)
		}
	}
	if planConv(reflect.TypeFor[[16]byte](), cqlNode{name: "uuid"}, true) != nil {
		t.Error("[16]byte converted")
	}
}

func TestSortedValueOrdersAndRepeats(t *testing.T) {
	info := gocql.NewNativeType(5, gocql.TypeSet, "int")
	set := map[int32]struct{}{}
	for i := int32(-40); i < 40; i += 7 {
		set[i*1000003] = struct{}{}
	}
	c := planConv(reflect.TypeFor[map[int32]struct{}](), cqlNode{name: "set", args: []cqlNode{{name: "int"}}}, true)
	if c == nil {
		t.Fatal("a set<int> of int32 is bound unsorted")
	}
	if m := planConv(reflect.TypeFor[map[string]int32](), cqlNode{name: "map", args: []cqlNode{{name: "text"}, {name: "int"}}}, true); m == nil || !m.sortOnly {
		t.Fatalf("a map<text, int> of map[string]int32: plan %+v, want sorted only", m)
	}
	first, err := gocql.Marshal(info, c.toWire(reflect.ValueOf(set)).Interface())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		if b, _ := gocql.Marshal(info, c.toWire(reflect.ValueOf(set)).Interface()); !bytes.Equal(b, first) {
			t.Fatal("one set marshals to different bytes")
		}
	}
	var got []int32
	if err := gocql.Unmarshal(info, first, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(set) || !sort.SliceIsSorted(got, func(i, j int) bool { return got[i] < got[j] }) {
		t.Fatalf("read back %v: not the %d elements in ascending order", got, len(set))
	}
	var nilSet map[int32]struct{}
	if b, err := gocql.Marshal(info, c.toWire(reflect.ValueOf(nilSet)).Interface()); err != nil || b != nil {
		t.Fatalf("a nil set: %v %v, want null", b, err)
	}
}

func sign(x int) int { return cmp.Compare(x, 0) }

func be64(x int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(x)) }

// FuzzCompareValues: the comparator agrees with Go's order of the values
// for every numeric type, and is antisymmetric for UUIDs.
func FuzzCompareValues(f *testing.F) {
	f.Add(int64(-1), int64(1), int8(0), int8(2), 1.5, math.Copysign(0, -1), []byte("0123456789abcdef"), []byte("fedcba9876543210"))
	f.Add(int64(math.MinInt64), int64(math.MaxInt64), int8(-3), int8(3), math.Inf(1), math.NaN(), make([]byte, 16), make([]byte, 16))
	f.Fuzz(func(t *testing.T, a, b int64, sa, sb int8, x, y float64, u, v []byte) {
		node := func(name string) cqlNode { return cqlNode{name: name} }
		if got, want := sign(compareValues(node("bigint"), be64(a), be64(b))), cmp.Compare(a, b); got != want {
			t.Errorf("bigint %d vs %d: %d, want %d", a, b, got, want)
		}
		ia, ib := binary.BigEndian.AppendUint32(nil, uint32(int32(a))), binary.BigEndian.AppendUint32(nil, uint32(int32(b)))
		if got, want := sign(compareValues(node("int"), ia, ib)), cmp.Compare(int32(a), int32(b)); got != want {
			t.Errorf("int %d vs %d: %d, want %d", int32(a), int32(b), got, want)
		}
		varint := gocql.NewNativeType(5, gocql.TypeVarint, "")
		va, _ := gocql.Marshal(varint, big.NewInt(a))
		vb, _ := gocql.Marshal(varint, new(big.Int).Mul(big.NewInt(b), big.NewInt(int64(sb))))
		if got, want := sign(compareValues(node("varint"), va, vb)), big.NewInt(a).Cmp(new(big.Int).Mul(big.NewInt(b), big.NewInt(int64(sb)))); got != want {
			t.Errorf("varint %x vs %x: %d, want %d", va, vb, got, want)
		}
		// decimal: a × 10^-sa against b × 10^-sb.
		dec := func(unscaled int64, scale int8) ([]byte, *big.Rat) {
			raw, _ := gocql.Marshal(varint, big.NewInt(unscaled))
			r := new(big.Rat).SetInt64(unscaled)
			p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(scale, -scale))), nil))
			if scale >= 0 {
				r.Quo(r, p)
			} else {
				r.Mul(r, p)
			}
			return append(binary.BigEndian.AppendUint32(nil, uint32(int32(scale))), raw...), r
		}
		da, ra := dec(a, sa)
		db, rb := dec(b, sb)
		if got, want := sign(compareValues(node("decimal"), da, db)), ra.Cmp(rb); got != want {
			t.Errorf("decimal %s vs %s: %d, want %d", ra.FloatString(20), rb.FloatString(20), got, want)
		}
		fa, fb := binary.BigEndian.AppendUint64(nil, math.Float64bits(x)), binary.BigEndian.AppendUint64(nil, math.Float64bits(y))
		got := sign(compareValues(node("double"), fa, fb))
		if !math.IsNaN(x) && !math.IsNaN(y) && (x < y && got != -1 || x > y && got != 1) {
			t.Errorf("double %g vs %g: %d", x, y, got)
		}
		if back := sign(compareValues(node("double"), fb, fa)); back != -got {
			t.Errorf("double %g vs %g: %d one way, %d the other", x, y, got, back)
		}
		if len(u) >= 16 && len(v) >= 16 {
			for _, name := range []string{"uuid", "timeuuid"} {
				ab, ba := compareValues(node(name), u[:16], v[:16]), compareValues(node(name), v[:16], u[:16])
				if sign(ab) != -sign(ba) || (sign(ab) == 0) != bytes.Equal(u[:16], v[:16]) {
					t.Errorf("%s %x vs %x: %d one way, %d the other", name, u[:16], v[:16], ab, ba)
				}
			}
		}
	})
}
