package adaptertest

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
)

// geoPoint is a user-defined type of two doubles, nested in others, in a
// partition key, a set, a map's keys and a map's values, and a lookup.
type geoPoint struct {
	Lat, Lon float64
}

// address is a user-defined type with a nullable field, a set, a map, a
// list, a nested type, a timestamp, and a field left out.
type address struct {
	Street string
	Zip    *string `kandra:"zip_code"`
	Tags   map[string]struct{}
	Codes  map[string]int32
	Where  geoPoint
	Lines  []string
	Since  time.Time
	Note   string `kandra:"-"` // not stored
}

// contact is a user-defined type whose fields may all be null.
type contact struct {
	Email *string
	Phone *string
}

// customer holds user-defined types in every non-key position: a column
// of its own (not frozen) as a struct and as a pointer, in a list, a set,
// a map's keys and values, and a unique lookup on one.
type customer struct {
	ID      uuid.UUID
	Home    address
	Work    *address
	Contact *contact
	Past    []address
	Places  map[geoPoint]struct{}
	Named   map[geoPoint]string
	ByCode  map[string]geoPoint
	Pin     geoPoint
}

// Describe implements kandra's description.
func (c *customer) Describe(s *kandra.Schema[customer]) {
	s.Table("udt_customers")
	kandra.Bind(s, &c.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &c.Pin, kandra.Lookup("by_pin", kandra.LookupUnique))
}

// waypoint is a user-defined type in a descending clustering key: its
// set of points must be sent in the server's order, or one value would
// be several keys.
type waypoint struct {
	Seq   int32
	Tags  map[string]struct{}
	Stops map[geoPoint]struct{}
	At    *geoPoint
}

// route is partitioned by a user-defined type and clustered by another,
// newest first, with a static one.
type route struct {
	From  geoPoint
	Leg   waypoint
	Depot *address
	Note  string
}

// Describe implements kandra's description.
func (r *route) Describe(s *kandra.Schema[route]) {
	s.Table("udt_routes")
	kandra.Bind(s, &r.From, kandra.PartitionKey(0))
	kandra.Bind(s, &r.Leg, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.Bind(s, &r.Depot, kandra.Static())
}

var (
	customersTable *kandra.Table[customer]
	routesTable    *kandra.Table[route]
	customPin      kandra.Field[customer, geoPoint]
)

// profileV1 and profileV2 are one user-defined type, profile, before and
// after it gains a field, for testUDTs' migration.
type (
	profileV1 struct {
		Name  string
		Score *int32
	}
	profileV2 struct {
		Name  string
		Score *int32
		Badge *string
	}
)

// UDTName names both versions' type.
func (profileV1) UDTName() string { return "profile" }

// UDTName names both versions' type.
func (profileV2) UDTName() string { return "profile" }

// accountV1 and accountV2 are one table, accounts, before and after its
// type gains a field, with the type in a clustering key (ALTER TYPE ...
// ADD is refused for a type in a partition key: "Cannot add new field ...
// as the type is being used in partition key", Cassandra 5.0.8).
type (
	accountV1 struct {
		ID   string
		Main profileV1
		Old  []profileV1
	}
	accountV2 struct {
		ID   string
		Main profileV2
		Old  []profileV2
	}
)

// Describe implements kandra's description.
func (a *accountV1) Describe(s *kandra.Schema[accountV1]) {
	s.Table("accounts")
	kandra.Bind(s, &a.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &a.Main, kandra.ClusteringKey(0, kandra.ClusteringAsc))
}

// Describe implements kandra's description.
func (a *accountV2) Describe(s *kandra.Schema[accountV2]) {
	s.Table("accounts")
	kandra.Bind(s, &a.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &a.Main, kandra.ClusteringKey(0, kandra.ClusteringAsc))
}

var (
	accountsV1Table *kandra.Table[accountV1]
	accountsV2Table *kandra.Table[accountV2]
)

// set is a set of the given elements, inserted in a shuffled order.
func set[K comparable](ks ...K) map[K]struct{} {
	m := make(map[K]struct{}, len(ks))
	for _, i := range randPerm(len(ks)) {
		m[ks[i]] = struct{}{}
	}
	return m
}

func randPerm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	u := uuid.New()
	for i := n - 1; i > 0; i-- {
		j := int(u[i%16]) % (i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// testUDTs writes user-defined types through the adapter in every
// position kandra maps one to (a column of its own, a pointer, a list, a
// set, a map's keys and values, a partition key, a descending clustering
// key, a static column, a lookup, nested, with null fields, sets and maps
// inside), reads them back (Get, a lookup's Find, List, GetStatic) equal,
// checks the server's order of a clustering type against kandra's
// comparator, refuses a non-nil pointer whose fields are all null in a
// column of its own (the server reads it back as null: shown by a raw
// write), and follows a type through ALTER TYPE ... ADD: a field the
// server lacks is a write error, one the struct lacks is null, and a value
// stored before the type gained a field reads it as null. It prints
// "real-server: udt types=<shapes> ok=<shapes passed> adapter=<Name>".
func testUDTs(t *testing.T, h *harness) {
	shapes := map[string]bool{"geo_point": true, "address": true, "contact": true, "waypoint": true, "profile": true}
	fail := func(shape, format string, args ...any) {
		t.Helper()
		shapes[shape] = false
		t.Errorf(shape+": "+format, args...)
	}
	defer func() {
		ok := 0
		for _, v := range shapes {
			if v {
				ok++
			}
		}
		if t.Failed() && ok == len(shapes) {
			ok-- // a failure not tied to a shape
		}
		fmt.Printf("real-server: udt types=%d ok=%d adapter=%s\n", len(shapes), ok, h.n.Name)
	}()
	rt, err := kstore.New(h.d, h.keyspace)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(ctx) })
	customers := kstore.MustNewRepo(rt, customersTable)
	since := time.UnixMilli(1700000000123).UTC()

	// Every position, and back equal.
	full := &customer{
		ID: uuid.New(),
		Home: address{Street: "1 rue de la Paix", Zip: ptr("75002"), Tags: set("b", "a", "c"), Codes: map[string]int32{"door": 1234, "gate": -1},
			Where: geoPoint{48.8686, 2.3314}, Lines: []string{"2nd floor", ""}, Since: since, Note: "left out"},
		Work:    &address{Street: "", Tags: map[string]struct{}{}, Codes: map[string]int32{}, Lines: []string{}, Where: geoPoint{-1, 1}},
		Contact: &contact{Email: ptr("a@example.com")},
		Past:    []address{{Street: "old", Tags: set("x", "y", "z", "w")}, {}},
		Places:  set(geoPoint{2, 1}, geoPoint{1, 9}, geoPoint{1, -9}, geoPoint{-4, 0}),
		Named:   map[geoPoint]string{{3, 3}: "c", {0, 0}: "z", {-1, 5}: "m"},
		ByCode:  map[string]geoPoint{"paris": {48.85, 2.35}, "lima": {-12.04, -77.04}},
		Pin:     geoPoint{float64(time.Now().UnixNano() % 1000000), 7.5},
	}
	if err := customers.Save(ctx, full); err != nil {
		t.Fatal(err)
	}
	want := *full
	want.Home.Note = "" // not stored
	got, err := customers.Get(ctx, &customer{ID: full.ID})
	if err != nil {
		t.Fatal(err)
	}
	diffCustomer(t, fail, "get", got, &want)
	found, err := kstore.MustLookupOf(customers, customPin).Find(ctx, full.Pin)
	if err != nil || found.ID != full.ID {
		fail("geo_point", "find by pin: %v, %v", found, err)
	} else {
		diffCustomer(t, fail, "find by pin", found, &want)
	}
	if _, err := kstore.MustLookupOf(customers, customPin).Find(ctx, geoPoint{full.Pin.Lat, 7.25}); !errors.Is(err, kerrors.ErrNotFound) {
		fail("geo_point", "find by another pin: %v, want not found", err)
	}

	// Nulls: a nil pointer, null fields, a zero struct.
	bare := &customer{ID: uuid.New(), Pin: geoPoint{full.Pin.Lat, -1}}
	if err := customers.Save(ctx, bare); err != nil {
		t.Fatal(err)
	}
	if got, err := customers.Get(ctx, &customer{ID: bare.ID}); err != nil {
		t.Fatal(err)
	} else {
		diffCustomer(t, fail, "bare", got, bare)
	}

	// Update: every field changes.
	next := want
	next.Home = address{Street: "2 rue", Tags: set("q"), Where: geoPoint{1, 2}}
	next.Work, next.Past, next.Places = nil, []address{want.Home}, set(geoPoint{0, 0})
	next.Contact = &contact{Phone: ptr("+33 1")}
	next.Pin = geoPoint{full.Pin.Lat, 8.5}
	if err := customers.Update(ctx, full, &next); err != nil {
		t.Fatal(err)
	}
	if got, err := customers.Get(ctx, &customer{ID: full.ID}); err != nil {
		t.Fatal(err)
	} else {
		diffCustomer(t, fail, "updated", got, &next)
	}
	if f, err := kstore.MustLookupOf(customers, customPin).Find(ctx, next.Pin); err != nil || f.ID != full.ID {
		fail("geo_point", "find by the new pin: %v, %v", f, err)
	}

	// A non-nil *contact whose fields are all null: the server would read
	// the column back as null; refused before anything is sent.
	allNull := &customer{ID: uuid.New(), Contact: &contact{}, Pin: geoPoint{full.Pin.Lat, -2}}
	var ve *kerrors.ValueError
	if err := customers.Save(ctx, allNull); !errors.As(err, &ve) || ve.Column != "contact" {
		fail("contact", "save with an all-null *Contact: %v; want an *kerrors.ValueError on contact", err)
	}
	if _, err := customers.Get(ctx, &customer{ID: allNull.ID}); !errors.Is(err, kerrors.ErrNotFound) {
		fail("contact", "after the refused save: %v; want nothing written", err)
	}
	// What the refusal prevents, by a raw write: the column reads back null.
	if err := h.n.Exec(ctx, "UPDATE "+h.ks+".udt_customers SET contact = {email: null, phone: null} WHERE id = ?", bare.ID.String()); err != nil {
		t.Fatal(err)
	}
	readsNull := false
	if got, err := customers.Get(ctx, &customer{ID: bare.ID}); err != nil {
		t.Fatal(err)
	} else {
		readsNull = got.Contact == nil
	}
	fmt.Printf("real-server: udt all-null-fields non-frozen column reads back null=%t adapter=%s\n", readsNull, h.n.Name)
	if !readsNull {
		fail("contact", "a non-frozen column written with every field null reads back as a value: the refusal is not needed")
	}

	testUDTKeys(t, h, rt, fail, since)
	testUDTMigration(t, h, fail)
}

// diffCustomer reports the fields of got that differ from want.
func diffCustomer(t *testing.T, fail func(string, string, ...any), what string, got, want *customer) {
	t.Helper()
	gv, wv := reflect.ValueOf(got).Elem(), reflect.ValueOf(want).Elem()
	for i := range gv.NumField() {
		if !reflect.DeepEqual(gv.Field(i).Interface(), wv.Field(i).Interface()) {
			shape := map[string]string{"Home": "address", "Work": "address", "Past": "address", "Contact": "contact"}[gv.Type().Field(i).Name]
			if shape == "" {
				shape = "geo_point"
			}
			fail(shape, "%s: %s reads back as %#v, want %#v", what, gv.Type().Field(i).Name, gv.Field(i).Interface(), wv.Field(i).Interface())
		}
	}
}

// testUDTKeys: a partition key and a descending clustering key of
// user-defined types, and a static one. List reads the rows in the
// server's order of the clustering type, which is kandra's comparator's
// (field by field, null first, a set by its elements); one value saved
// again and again, its sets built in another order each time, is one row.
func testUDTKeys(t *testing.T, h *harness, rt *kstore.Store, fail func(string, string, ...any), since time.Time) {
	routes := kstore.MustNewRepo(rt, routesTable)
	from := geoPoint{float64(time.Now().UnixNano()%1000000) / 7, -2}
	depot := &address{Street: "depot", Tags: set("t1", "t2"), Since: since}
	// Ascending in the server's order: by Seq; at Seq 1, a null Tags first,
	// then the sets by their elements ({a} < {a, b} < {b}); at {b}, a null
	// namedTime before a value.
	legs := []waypoint{
		{Seq: -1, Tags: set("z")},
		{Seq: 1},
		{Seq: 1, Tags: set("a")},
		{Seq: 1, Tags: set("a", "b"), Stops: set(geoPoint{1, 1}, geoPoint{0, 5}, geoPoint{0, -5}, geoPoint{-3, 2}, geoPoint{9, 9})},
		{Seq: 1, Tags: set("b")},
		{Seq: 1, Tags: set("b"), At: &geoPoint{0, 0}},
		{Seq: 2, Tags: map[string]struct{}{}},
	}
	for i, l := range legs {
		r := &route{From: from, Leg: l, Depot: depot, Note: fmt.Sprint(i)} // a nil Depot would write the static column null
		if err := routes.Save(ctx, r); err != nil {
			t.Fatalf("leg %d: %v", i, err)
		}
	}
	// The same leg, its sets built anew in another order, again and again.
	for range 8 {
		l := legs[3]
		l.Tags, l.Stops = set("b", "a"), set(geoPoint{-3, 2}, geoPoint{9, 9}, geoPoint{0, -5}, geoPoint{0, 5}, geoPoint{1, 1})
		if err := routes.Save(ctx, &route{From: from, Leg: l, Depot: depot, Note: "3"}); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := routes.List(ctx, &route{From: from}).All()
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, r := range rows {
		notes = append(notes, r.Note)
	}
	if wantNotes := []string{"6", "5", "4", "3", "2", "1", "0"}; !slices.Equal(notes, wantNotes) {
		fail("waypoint", "the partition lists %v (by Note), want %v: the server's order of the type is not kandra's, or a leg was saved twice", notes, wantNotes)
	}
	for _, r := range rows {
		var i int
		fmt.Sscan(r.Note, &i)
		if i >= len(legs) {
			continue
		}
		if !reflect.DeepEqual(r.Leg, legs[i]) || r.From != from {
			fail("waypoint", "leg %d reads back as %+v, want %+v", i, r.Leg, legs[i])
		}
		if !reflect.DeepEqual(r.Depot, depot) {
			fail("address", "the static depot reads back as %+v on leg %d, want %+v", r.Depot, i, depot)
		}
	}
	if n := h.rows(t, "udt_routes", `"from" = ?`, map[string]any{"lat": from.Lat, "lon": from.Lon}); n != len(legs) {
		fail("waypoint", "%d rows in the partition, want %d", n, len(legs))
	}
	got, err := routes.Get(ctx, &route{From: from, Leg: legs[5]})
	if err != nil || got.Note != "5" || !reflect.DeepEqual(got.Leg, legs[5]) {
		fail("waypoint", "get by the full key: %+v, %v", got, err)
	}
	depot2 := &address{Street: "new depot", Zip: ptr("1000"), Where: geoPoint{5, 5}}
	if err := routes.SaveStatic(ctx, &route{From: from, Depot: depot2}); err != nil {
		t.Fatal(err)
	}
	if got, err := routes.GetStatic(ctx, &route{From: from}); err != nil || !reflect.DeepEqual(got.Depot, depot2) {
		fail("address", "the static depot after SaveStatic: %+v, %v; want %+v", got, err, depot2)
	}
}

// testUDTMigration follows profile through ALTER TYPE ... ADD in a
// keyspace of its own: before it, a struct with the new field cannot be
// written or read by (nothing is sent); after it, in the same session,
// whose driver prepared those statements before the type changed (and
// would marshal by the old type: kgocql and kgocqlv2 prepare them anew),
// the new struct is written (an insert, one with a TTL, a batch) and read
// by, the old struct writes the field as null and reads past it, and the
// values stored before (in the clustering key, the column and the list)
// read the field as null.
func testUDTMigration(t *testing.T, h *harness, fail func(string, string, ...any)) {
	spec := kandra.KeyspaceSpec{Name: h.ks + "_udt", Replication: kandra.NetworkTopologyStrategy(map[string]int{"datacenter1": 1}), Targets: kandra.Cassandra5}
	v1ks, err := kandra.NewKeyspace(spec, accountsV1Table)
	if err != nil {
		t.Fatal(err)
	}
	v2ks, err := kandra.NewKeyspace(spec, accountsV2Table)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range v1ks.Statements() {
		if err := h.n.Exec(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	t.Cleanup(func() { _ = h.n.Exec(ctx, "DROP KEYSPACE IF EXISTS "+spec.Name) })
	open := func(ks *kandra.Keyspace) *kstore.Store {
		rt, err := kstore.New(h.d, ks)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = rt.Close(ctx) })
		return rt
	}
	v1 := kstore.MustNewRepo(open(v1ks), accountsV1Table)
	v2 := kstore.MustNewRepo(open(v2ks), accountsV2Table)

	id := uniq("a")
	old := &accountV1{ID: id, Main: profileV1{Name: "ann", Score: ptr(int32(3))}, Old: []profileV1{{Name: "x"}, {Name: "y", Score: ptr(int32(-1))}}}
	if err := v1.Save(ctx, old); err != nil {
		t.Fatal(err)
	}
	gold := &accountV2{ID: id, Main: profileV2{Name: "bob", Badge: ptr("gold")}, Old: []profileV2{{Name: "z", Badge: ptr("silver")}}}
	silver := &accountV2{ID: id, Main: profileV2{Name: "cid", Badge: ptr("silver")}}
	bronze := &accountV2{ID: id, Main: profileV2{Name: "dan", Badge: ptr("bronze")}}
	lacks := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), "no field badge") || !strings.Contains(err.Error(), "migration") {
			fail("profile", "%s with a field the server's type lacks: %v; want an error naming badge and the migration", what, err)
		}
	}
	lacks("an insert", v2.Save(ctx, gold))
	lacks("an insert with a TTL", v2.Save(ctx, silver, kstore.TTL(time.Hour)))
	_, err = v2.Get(ctx, gold)
	lacks("a read by key", err)
	if rows, err := v1.List(ctx, &accountV1{ID: id}).All(); err != nil || len(rows) != 1 {
		fail("profile", "after the refused writes: %d rows, %v; want the one written before", len(rows), err)
	}

	if err := h.n.Exec(ctx, "ALTER TYPE "+spec.Name+".profile ADD badge text"); err != nil {
		t.Fatal(err)
	}
	// The statements prepared before, again: a batch, an insert with a
	// TTL, a read by key.
	if err := v2.SaveAll(ctx, []*accountV2{gold}); err != nil {
		fail("profile", "a batch after ALTER TYPE: %v", err)
	}
	if err := v2.Save(ctx, silver, kstore.TTL(time.Hour)); err != nil {
		fail("profile", "an insert with a TTL after ALTER TYPE: %v", err)
	}
	if got, err := v2.Get(ctx, gold); err != nil || !reflect.DeepEqual(got, gold) {
		fail("profile", "the new struct reads back %+v, %v; want %+v", got, err, gold)
	}
	if err := v2.Save(ctx, bronze); err != nil {
		fail("profile", "an insert after ALTER TYPE: %v", err)
	}
	// The value stored before: the new field null, in the key, the list's
	// shorter values and the column.
	wantOld := &accountV2{ID: id, Main: profileV2{Name: "ann", Score: ptr(int32(3))}, Old: []profileV2{{Name: "x"}, {Name: "y", Score: ptr(int32(-1))}}}
	if got, err := v2.Get(ctx, &accountV2{ID: id, Main: wantOld.Main}); err != nil || !reflect.DeepEqual(got, wantOld) {
		fail("profile", "a value stored before ALTER TYPE read with the new field: %+v, %v; want %+v", got, err, wantOld)
	}
	rows, err := v2.List(ctx, &accountV2{ID: id}).All()
	var names []string
	for _, r := range rows {
		names = append(names, r.Main.Name)
	}
	if err != nil || !slices.Equal(names, []string{"ann", "bob", "cid", "dan"}) {
		fail("profile", "the partition lists %v, %v; want ann, bob, cid, dan", names, err)
	}
	// The old struct reads past the field, and writes it as null. (It
	// cannot name a row whose key has the field: {bob, null} is not {bob,
	// null, gold}.)
	eve := &accountV2{ID: id, Main: profileV2{Name: "eve"}, Old: []profileV2{{Name: "z", Badge: ptr("silver")}}}
	if err := v2.Save(ctx, eve); err != nil {
		t.Fatal(err)
	}
	if _, err := v1.Get(ctx, &accountV1{ID: id, Main: profileV1{Name: "bob"}}); !errors.Is(err, kerrors.ErrNotFound) {
		fail("profile", "the old struct reads a key with the new field set: %v; want not found", err)
	}
	past, err := v1.Get(ctx, &accountV1{ID: id, Main: profileV1{Name: "eve"}})
	if err != nil || len(past.Old) != 1 || past.Old[0].Name != "z" {
		fail("profile", "the old struct reads %+v, %v", past, err)
	} else if err := v1.Save(ctx, past); err != nil {
		fail("profile", "the old struct writes: %v", err)
	} else if got, err := v2.Get(ctx, eve); err != nil || got.Old[0].Badge != nil || got.Old[0].Name != "z" {
		fail("profile", "after the old struct's write, the list's new field is %+v, %v; want null", got, err)
	}
}
