package gocqlv2

import (
	"bytes"
	"context"
	"errors"
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
	"github.com/kandra-go/kandra/internal/cqlvalue"
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
		{At(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)), "timestamp", cqlvalue.Timestamp[gocql.TypeInfo]{}},
		{netip.MustParseAddr("10.1.2.3"), "inet", nil},
	}
	for _, c := range cases {
		rt := reflect.TypeOf(c.v)
		cv := planConv(rt, cqlNode{Name: c.cql}, true)
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
	if planConv(reflect.TypeFor[[16]byte](), cqlNode{Name: "uuid"}, true) != nil {
		t.Error("[16]byte converted")
	}
}

func TestSortedValueOrdersAndRepeats(t *testing.T) {
	info := gocql.NewNativeType(5, gocql.TypeSet, "int")
	set := map[int32]struct{}{}
	for i := int32(-40); i < 40; i += 7 {
		set[i*1000003] = struct{}{}
	}
	c := planConv(reflect.TypeFor[map[int32]struct{}](), cqlNode{Name: "set", Args: []cqlNode{{Name: "int"}}}, true)
	if c == nil {
		t.Fatal("a set<int> of int32 is bound unsorted")
	}
	if m := planConv(reflect.TypeFor[map[string]int32](), cqlNode{Name: "map", Args: []cqlNode{{Name: "text"}, {Name: "int"}}}, true); m == nil || !m.sortOnly {
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
