package kgocqlv2

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/netip"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/auth"
	"github.com/kandra-go/kandra/internal/cqlvalue"
	"github.com/kandra-go/kandra/internal/dynamic"
	"github.com/kandra-go/kandra/kerrors"
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

type (
	At time.Time
	ID uuid.UUID
)

// column is the column V of a table whose Go type is typ and CQL type
// cql (AsType; "" for kandra's own).
func column(typ reflect.Type, cql string) (*kandra.ColumnSchema, error) {
	fields := []reflect.StructField{{Name: "ID", Type: reflect.TypeFor[string]()}, {Name: "V", Type: typ}}
	sp := dynamic.Spec{Type: reflect.StructOf(fields), Table: "t", MarkerField: -1,
		Binds: []dynamic.Bind{{Field: 0, Options: []any{kandra.PartitionKey(0)}}}}
	if cql != "" {
		ct, err := kandra.ParseCQLType(cql)
		if err != nil {
			return nil, err
		}
		sp.Binds = append(sp.Binds, dynamic.Bind{Field: 1, Options: []any{kandra.AsType(ct)}})
	}
	ts, err := dynamic.Build(sp)
	if err != nil {
		return nil, err
	}
	return ts.(*kandra.TableSchema).Column(1), nil
}

// codecOf is the codec of the one column V.
func codecOf(t testing.TB, typ reflect.Type, cql string) *Codec {
	t.Helper()
	col, err := column(typ, cql)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCodec([]*kandra.ColumnSchema{col})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// roundTrip binds the field at p through c (by value and by reference),
// marshals it as the driver does, and scans the bytes back into a new
// field: the value read, or the first error.
func roundTrip(c *Codec, info gocql.TypeInfo, p any) (any, error) {
	b, err := gocql.Marshal(info, c.BindValues([]any{p})[0])
	if err != nil {
		return nil, err
	}
	if r, err := gocql.Marshal(info, c.AppendBindRefs(nil, []any{p})[0]); err != nil || !bytes.Equal(r, b) {
		return nil, fmt.Errorf("by reference: %x %v, by value %x", r, err, b)
	}
	back := reflect.New(reflect.TypeOf(p).Elem())
	targets, finish := c.ScanTargets([]any{back.Interface()})
	if err := gocql.Unmarshal(info, b, targets[0]); err != nil {
		return nil, err
	}
	err = finish()
	return back.Elem().Interface(), err
}

func TestCodecNamedTypes(t *testing.T) {
	u := uuid.MustParse("6ba7b810-9dad-11d1-80b4-00c04fd430c8")
	cases := []struct {
		v   any
		cql string
	}{
		{u, "uuid"},
		{ID(u), "uuid"},
		{ID(u), "timeuuid"},
		{gocql.UUID(u), "uuid"},
		{At(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)), "timestamp"},
		{netip.MustParseAddr("10.1.2.3"), "inet"},
		{time.Duration(90 * time.Minute), "duration"},
	}
	for _, c := range cases {
		codec := codecOf(t, reflect.TypeOf(c.v), strings.ToUpper(c.cql))
		info := gocql.NewNativeType(5, 0, c.cql)
		p := reflect.New(reflect.TypeOf(c.v))
		p.Elem().Set(reflect.ValueOf(c.v))
		back, err := roundTrip(codec, info, p.Interface())
		if err != nil || !reflect.DeepEqual(back, c.v) {
			t.Fatalf("%T as %s: round trip %v %v", c.v, c.cql, back, err)
		}
		if _, isDriverUUID := c.v.(gocql.UUID); codec.Converted(0) == isDriverUUID {
			t.Errorf("%T as %s: Converted %v", c.v, c.cql, codec.Converted(0))
		}
	}
	if codecOf(t, reflect.TypeFor[[16]byte](), "UUID").Converted(0) {
		t.Error("[16]byte converted")
	}
}

func TestSortedValueOrdersAndRepeats(t *testing.T) {
	info := gocql.NewNativeType(5, gocql.TypeSet, "int")
	set := map[int32]struct{}{}
	for i := int32(-40); i < 40; i += 7 {
		set[i*1000003] = struct{}{}
	}
	c := codecOf(t, reflect.TypeFor[map[int32]struct{}](), "FROZEN<SET<INT>>")
	if m := codecOf(t, reflect.TypeFor[map[string]int32](), "MAP<TEXT, INT>"); m.Converted(0) {
		t.Fatal("a map<text, int> of map[string]int32 is converted, not only sorted")
	} else if _, sorted := m.BindValues([]any{&map[string]int32{}})[0].(SortedValue); !sorted {
		t.Fatal("a map<text, int> of map[string]int32 is bound unsorted")
	}
	first, err := gocql.Marshal(info, c.BindValues([]any{&set})[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		if b, _ := gocql.Marshal(info, c.BindValues([]any{&set})[0]); !bytes.Equal(b, first) {
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
	if b, err := gocql.Marshal(info, c.BindValues([]any{&nilSet})[0]); err != nil || b != nil {
		t.Fatalf("a nil set: %v %v, want null", b, err)
	}
}

// TestTextSetAsSorted: a set of text or ascii held in a map[string]struct{}
// is bound without reflect, as its sorted elements, to the bytes the
// general SortedValue marshals (the server's order, each element once),
// by value and by reference; nil stays null. So is a *cqlvalue.TextSet
// of its elements (kstore's Add and Remove). Marshalling it allocates
// only the bytes (the driver's own list of a []string boxes and copies
// each element).
func TestTextSetAsSorted(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 5))
	for _, cql := range []string{"SET<TEXT>", "FROZEN<SET<TEXT>>", "SET<ASCII>"} {
		ct, err := kandra.ParseCQLType(cql)
		if err != nil {
			t.Fatal(err)
		}
		info := gocql.NewNativeType(5, gocql.TypeSet, "varchar")
		c := codecOf(t, reflect.TypeFor[map[string]struct{}](), cql)
		for range 500 {
			var set map[string]struct{}
			if r.IntN(10) > 0 {
				set = map[string]struct{}{}
				for range r.IntN(8) {
					set[string(drawBytes(r, 4))] = struct{}{} // shared prefixes, bytes past 0x7f
				}
			}
			sorted, err := Sorted(ct, set)
			if err != nil {
				t.Fatal(err)
			}
			want, err := gocql.Marshal(info, sorted)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range []any{c.BindValues([]any{&set})[0], c.AppendBindRefs(nil, []any{&set})[0]} {
				if _, general := v.(SortedValue); general != (set == nil) {
					t.Fatalf("%s %q bound as %T", cql, set, v)
				}
				if got, err := gocql.Marshal(info, v); err != nil || !bytes.Equal(got, want) || (got == nil) != (set == nil) {
					t.Fatalf("%s %q: %x %v, the general path's %x", cql, set, got, err, want)
				}
			}
			if set == nil {
				continue
			}
			// kstore's Add and Remove bind the elements given, in any
			// order and repeated, as a TextSet: the same bytes.
			given := slices.Collect(maps.Keys(set))
			given = append(given, given...)
			ts := cqlvalue.NewTextSet(given)
			for _, v := range []any{c.BindValues([]any{&ts})[0], c.AppendBindRefs(nil, []any{&ts})[0]} {
				if got, err := gocql.Marshal(info, v); err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%s %q as a TextSet (%T): %x %v, the general path's %x", cql, given, v, got, err, want)
				}
			}
		}
	}
	set := map[string]struct{}{"b": {}, "a": {}, "c": {}}
	v := codecOf(t, reflect.TypeFor[map[string]struct{}](), "SET<TEXT>").AppendBindRefs(nil, []any{&set})[0]
	var info gocql.TypeInfo = gocql.NewNativeType(5, gocql.TypeCustom, "set<varchar>").(gocql.CollectionType)
	want, err := gocql.Marshal(info, []string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := gocql.Marshal(info, v); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the driver's set of text: %x %v, want %x", got, err, want)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = gocql.Marshal(info, v) }); n != 1 {
		t.Errorf("marshalling a bound set of 3 strings allocates %v times, want 1 (its bytes)", n)
	}
}
