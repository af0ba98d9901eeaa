package adaptertest

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
)

// Stored equality on the node: the server compares the bytes it
// stores, and one stored value has many Go forms (a time in another zone
// or with sub-millisecond parts, net.ParseIP's 16-byte IPv4, a NaN, a UDT
// with a `kandra:"-"` field set or a field reached through another
// pointer). Every decision the runtime makes about "the same value" or
// "the same row" must agree with the server's.

// slot is a user-defined type whose fields each have several Go forms of
// one stored value.
type slot struct {
	Room  string
	Start time.Time
	Seats *int32
	Host  net.IP
	Memo  string `kandra:"-"` // not stored
}

// booking has unique lookups on a UDT, a timestamp, an inet and a double
// (pointers, so that an entity without the value claims nothing).
type booking struct {
	BookingID uuid.UUID
	Slot      *slot
	At        *time.Time
	Addr      net.IP
	Score     *float64
}

// Describe implements kandra's description.
func (b *booking) Describe(s *kandra.Schema[booking]) {
	s.Table("eq_bookings")
	kandra.GeneratedUUID(s, &b.BookingID, kandra.UUIDRandom, kandra.PartitionKey(0))
	kandra.Bind(s, &b.Slot, kandra.Lookup("by_slot", kandra.LookupUnique))
	kandra.Bind(s, &b.At, kandra.Lookup("by_at", kandra.LookupUnique))
	kandra.Bind(s, &b.Addr, kandra.Lookup("by_addr", kandra.LookupUnique))
	kandra.Bind(s, &b.Score, kandra.Lookup("by_score", kandra.LookupUnique))
}

// shift has a BATCH and an EVENTUAL lookup on each of a timestamp, an inet
// and a UDT.
type shift struct {
	ShiftID uuid.UUID
	Start   time.Time
	End     time.Time
	Host    net.IP
	Peer    net.IP
	Slot    slot
	Spot    slot
}

// Describe implements kandra's description.
func (f *shift) Describe(s *kandra.Schema[shift]) {
	s.Table("eq_shifts")
	kandra.GeneratedUUID(s, &f.ShiftID, kandra.UUIDRandom, kandra.PartitionKey(0))
	kandra.Bind(s, &f.Start, kandra.Lookup("by_start", kandra.LookupBatch))
	kandra.Bind(s, &f.End, kandra.Lookup("by_end", kandra.LookupEventual))
	kandra.Bind(s, &f.Host, kandra.Lookup("by_host", kandra.LookupBatch))
	kandra.Bind(s, &f.Peer, kandra.Lookup("by_peer", kandra.LookupEventual))
	kandra.Bind(s, &f.Slot, kandra.Lookup("by_slot", kandra.LookupBatch))
	kandra.Bind(s, &f.Spot, kandra.Lookup("by_spot", kandra.LookupEventual))
}

// sitting has a timestamp in its primary key and a unique lookup.
type sitting struct {
	Room  string
	Start time.Time
	Guest string
}

// Describe implements kandra's description.
func (s *sitting) Describe(sc *kandra.Schema[sitting]) {
	sc.Table("eq_sittings")
	kandra.Bind(sc, &s.Room, kandra.PartitionKey(0))
	kandra.Bind(sc, &s.Start, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(sc, &s.Guest, kandra.Lookup("by_guest", kandra.LookupUnique))
}

// stay is clustered by a timestamp and a UDT, for SaveAll's one-row guard.
type stay struct {
	Hotel string
	At    time.Time
	Slot  slot
	Guest string
}

// Describe implements kandra's description.
func (s *stay) Describe(sc *kandra.Schema[stay]) {
	sc.Table("eq_stays")
	kandra.Bind(sc, &s.Hotel, kandra.PartitionKey(0))
	kandra.Bind(sc, &s.At, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(sc, &s.Slot, kandra.ClusteringKey(1, kandra.ClusteringAsc))
}

var (
	bookingsTable *kandra.Table[booking]
	shiftsTable   *kandra.Table[shift]
	sittingsTable *kandra.Table[sitting]
	staysTable    *kandra.Table[stay]

	bookingSlot  kandra.Field[booking, *slot]
	bookingAt    kandra.Field[booking, *time.Time]
	bookingAddr  kandra.Field[booking, net.IP]
	bookingScore kandra.Field[booking, *float64]
	shiftStart   kandra.Field[shift, time.Time]
	shiftEnd     kandra.Field[shift, time.Time]
	shiftHost    kandra.Field[shift, net.IP]
	shiftPeer    kandra.Field[shift, net.IP]
	shiftSlot    kandra.Field[shift, slot]
	shiftSpot    kandra.Field[shift, slot]
)

// cest is a zone other than UTC: a time in it is stored as its instant.
var cest = time.FixedZone("CEST", 2*60*60)

// msTime is a random instant at a whole millisecond, in UTC (its stored
// form), distinct across the suite's runs and calls.
func msTime() time.Time {
	return time.UnixMilli(time.Now().UnixMilli() - rand.Int64N(1e12)).UTC()
}

// subMs is t with a sub-millisecond part: the same stored timestamp.
func subMs(t time.Time) time.Time { return t.Add(417 * time.Microsecond) }

// nowSubMs is time.Now(), as a caller takes it, made sure to carry a
// sub-millisecond part.
func nowSubMs() time.Time {
	t := time.Now()
	if t.Nanosecond()%int(time.Millisecond) == 0 {
		t = t.Add(417 * time.Microsecond)
	}
	return t
}

// ipv4 is a random IPv4 address in text.
func ipv4() string {
	return net.IPv4(10, byte(rand.IntN(256)), byte(rand.IntN(256)), byte(1+rand.IntN(254))).String()
}

// nan is a quiet NaN with a random payload: each call is another stored
// value, and one value is the same bytes in every Go copy.
func nan() float64 { return math.Float64frombits(0x7ff8000000000000 | (1 + rand.Uint64N(1<<50))) }

// testStoredEqUniqueClaims (finding 1): a unique value whose holder saved
// it in a Go form other than the stored one stays its holder's after the
// claim grace; a second entity saving the same stored value is refused
// with an *kerrors.UniqueError naming the holder, writes nothing, and Find
// returns the holder.
func testStoredEqUniqueClaims(t *testing.T, h *harness) {
	const grace = 1500 * time.Millisecond
	e := h.env(t, kstore.WithClaimGrace(grace))
	bookings := kstore.MustNewRepo(e.rt, bookingsTable)
	bySlot, byAt := kstore.MustLookupOf(bookings, bookingSlot), kstore.MustLookupOf(bookings, bookingAt)
	byAddr, byScore := kstore.MustLookupOf(bookings, bookingAddr), kstore.MustLookupOf(bookings, bookingScore)
	type tc struct {
		name string
		set  func(*booking)           // the value, in one Go form, on A and on B
		find func() (*booking, error) // Find by the value in its stored form
		a    *booking
	}
	slotCase := func(name string, form func(s *slot)) tc {
		stored := slot{Room: uniq("room"), Start: msTime(), Host: net.ParseIP(ipv4()).To4()}
		mine := stored
		form(&mine)
		return tc{name: name,
			set:  func(b *booking) { s := mine; b.Slot = &s },
			find: func() (*booking, error) { s := stored; return bySlot.Find(ctx, &s) }}
	}
	at, atCEST := nowSubMs(), msTime()
	addr := ipv4()
	score := nan()
	cases := []tc{
		slotCase("UDT time in CEST", func(s *slot) { s.Start = s.Start.In(cest) }),
		slotCase("UDT time sub-ms", func(s *slot) { s.Start = subMs(s.Start) }),
		slotCase("UDT kandra:\"-\" field set", func(s *slot) { s.Memo = "not stored" }),
		slotCase("UDT parsed IPv4", func(s *slot) { s.Host = s.Host.To16() }),
		{name: "time.Now() sub-ms",
			set:  func(b *booking) { b.At = ptr(at) },
			find: func() (*booking, error) { return byAt.Find(ctx, ptr(at.UTC().Truncate(time.Millisecond))) }},
		{name: "time in CEST",
			set:  func(b *booking) { b.At = ptr(atCEST.In(cest)) },
			find: func() (*booking, error) { return byAt.Find(ctx, ptr(atCEST)) }},
		{name: "parsed IPv4",
			set:  func(b *booking) { b.Addr = net.ParseIP(addr) },
			find: func() (*booking, error) { return byAddr.Find(ctx, net.ParseIP(addr).To4()) }},
		{name: "NaN",
			set:  func(b *booking) { b.Score = ptr(score) },
			find: func() (*booking, error) { return byScore.Find(ctx, ptr(score)) }},
	}
	for i := range cases {
		c := &cases[i]
		c.a = &booking{}
		c.set(c.a)
		if err := bookings.Save(ctx, c.a); err != nil {
			t.Fatalf("%s: Save of the first holder: %v", c.name, err)
		}
	}
	time.Sleep(grace + 700*time.Millisecond) // every claim is older than the grace
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := &booking{}
			c.set(b)
			err := bookings.Save(ctx, b)
			var ue *kerrors.UniqueError
			if !errors.As(err, &ue) || ue.Holder != any(c.a.BookingID) || ue.Pending {
				t.Errorf("Save of a value A holds, after the grace: %v (want a UniqueError naming %s)", err, c.a.BookingID)
			}
			if _, err := bookings.Get(ctx, &booking{BookingID: b.BookingID}); b.BookingID != (uuid.UUID{}) && !errors.Is(err, kerrors.ErrNotFound) {
				t.Errorf("the refused Save wrote its row: %v", err)
			}
			if got, err := c.find(); err != nil || got.BookingID != c.a.BookingID {
				var id any
				if got != nil {
					id = got.BookingID
				}
				t.Errorf("Find = %v, %v; want A (%s)", id, err, c.a.BookingID)
			}
		})
	}
}

// testStoredEqLookupMoves (finding 2): an Update whose new entity holds
// the old one's lookup value in another Go form leaves the entity found by
// that value, through a BATCH and an EVENTUAL lookup alike.
func testStoredEqLookupMoves(t *testing.T, h *harness) {
	e := h.env(t)
	shifts := kstore.MustNewRepo(e.rt, shiftsTable)
	byStart, byEnd := kstore.MustLookupOf(shifts, shiftStart), kstore.MustLookupOf(shifts, shiftEnd)
	byHost, byPeer := kstore.MustLookupOf(shifts, shiftHost), kstore.MustLookupOf(shifts, shiftPeer)
	bySlot, bySpot := kstore.MustLookupOf(shifts, shiftSlot), kstore.MustLookupOf(shifts, shiftSpot)
	wait := func(t *testing.T) {
		t.Helper()
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := e.rt.Wait(wctx); err != nil {
			t.Fatalf("EVENTUAL writes: %v", err)
		}
	}
	slot := func() slot { return slot{Room: uniq("room"), Start: msTime(), Host: net.ParseIP(ipv4()).To4()} }
	cases := []struct {
		name   string
		old    func(*shift)
		other  func(*shift) // the same stored values in another Go form
		batch  func(*shift) (*shift, error)
		evtual func(*shift) (*shift, error)
	}{
		{"timestamp sub-ms",
			func(f *shift) { f.Start, f.End = msTime(), msTime() },
			func(f *shift) { f.Start, f.End = subMs(f.Start), subMs(f.End) },
			func(f *shift) (*shift, error) { return byStart.Find(ctx, f.Start) },
			func(f *shift) (*shift, error) { return byEnd.Find(ctx, f.End) }},
		{"parsed IPv4",
			func(f *shift) { f.Host, f.Peer = net.ParseIP(ipv4()).To4(), net.ParseIP(ipv4()).To4() },
			func(f *shift) { f.Host, f.Peer = f.Host.To16(), f.Peer.To16() },
			func(f *shift) (*shift, error) { return byHost.Find(ctx, f.Host) },
			func(f *shift) (*shift, error) { return byPeer.Find(ctx, f.Peer) }},
		{"UDT time in CEST",
			func(f *shift) { f.Slot, f.Spot = slot(), slot() },
			func(f *shift) { f.Slot.Start, f.Spot.Start = f.Slot.Start.In(cest), f.Spot.Start.In(cest) },
			func(f *shift) (*shift, error) { return bySlot.Find(ctx, f.Slot) },
			func(f *shift) (*shift, error) { return bySpot.Find(ctx, f.Spot) }},
		{"UDT kandra:\"-\" field set",
			func(f *shift) { f.Slot, f.Spot = slot(), slot() },
			func(f *shift) { f.Slot.Memo, f.Spot.Memo = "not stored", "not stored" },
			func(f *shift) (*shift, error) { return bySlot.Find(ctx, f.Slot) },
			func(f *shift) (*shift, error) { return bySpot.Find(ctx, f.Spot) }},
		{"UDT parsed IPv4",
			func(f *shift) { f.Slot, f.Spot = slot(), slot() },
			func(f *shift) { f.Slot.Host, f.Spot.Host = f.Slot.Host.To16(), f.Spot.Host.To16() },
			func(f *shift) (*shift, error) { return bySlot.Find(ctx, f.Slot) },
			func(f *shift) (*shift, error) { return bySpot.Find(ctx, f.Spot) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &shift{}
			c.old(s)
			if err := shifts.Save(ctx, s); err != nil {
				t.Fatal(err)
			}
			wait(t) // the Save's EVENTUAL rows land before the Update's move
			old := *s
			nw := old
			c.other(&nw)
			if err := shifts.Update(ctx, &old, &nw); err != nil {
				t.Fatal(err)
			}
			wait(t)
			if got, err := c.batch(s); err != nil || got.ShiftID != s.ShiftID {
				t.Errorf("BATCH lookup after the Update: %v, %v; want %s", idOf(got), err, s.ShiftID)
			}
			if got, err := c.evtual(s); err != nil || got.ShiftID != s.ShiftID {
				t.Errorf("EVENTUAL lookup after the Update: %v, %v; want %s", idOf(got), err, s.ShiftID)
			}
		})
	}
}

func idOf(f *shift) any {
	if f == nil {
		return nil
	}
	return f.ShiftID
}

// testStoredEqFindHolders (finding 3): Find and FindAll return the entity
// saved with a value, when given the value in the Go form it was saved in.
func testStoredEqFindHolders(t *testing.T, h *harness) {
	e := h.env(t)
	bookings := kstore.MustNewRepo(e.rt, bookingsTable)
	shifts := kstore.MustNewRepo(e.rt, shiftsTable)
	bySlot, byAddr, byScore := kstore.MustLookupOf(bookings, bookingSlot), kstore.MustLookupOf(bookings, bookingAddr), kstore.MustLookupOf(bookings, bookingScore)
	byHost, byShiftSlot := kstore.MustLookupOf(shifts, shiftHost), kstore.MustLookupOf(shifts, shiftSlot)
	check := func(t *testing.T, what string, id uuid.UUID, find func() (uuid.UUID, error), findAll func() ([]uuid.UUID, error)) {
		t.Helper()
		if got, err := find(); err != nil || got != id {
			t.Errorf("%s: Find = %v, %v; want %s", what, got, err, id)
		}
		ids, err := findAll()
		if err != nil || len(ids) != 1 || ids[0] != id {
			t.Errorf("%s: FindAll = %v, %v; want [%s]", what, ids, err, id)
		}
	}
	bookingIDs := func(bs []*booking, err error) ([]uuid.UUID, error) {
		var ids []uuid.UUID
		for _, b := range bs {
			ids = append(ids, b.BookingID)
		}
		return ids, err
	}
	shiftIDs := func(fs []*shift, err error) ([]uuid.UUID, error) {
		var ids []uuid.UUID
		for _, f := range fs {
			ids = append(ids, f.ShiftID)
		}
		return ids, err
	}
	bookingID := func(b *booking, err error) (uuid.UUID, error) {
		if b == nil {
			return uuid.UUID{}, err
		}
		return b.BookingID, err
	}
	shiftID := func(f *shift, err error) (uuid.UUID, error) {
		if f == nil {
			return uuid.UUID{}, err
		}
		return f.ShiftID, err
	}

	t.Run("parsed IPv4", func(t *testing.T) {
		addr := ipv4()
		b := &booking{Addr: net.ParseIP(addr)}
		if err := bookings.Save(ctx, b); err != nil {
			t.Fatal(err)
		}
		check(t, "unique", b.BookingID,
			func() (uuid.UUID, error) { return bookingID(byAddr.Find(ctx, net.ParseIP(addr))) },
			func() ([]uuid.UUID, error) { return bookingIDs(byAddr.FindAll(ctx, net.ParseIP(addr)).All()) })
		f := &shift{Host: net.ParseIP(addr)}
		if err := shifts.Save(ctx, f); err != nil {
			t.Fatal(err)
		}
		check(t, "BATCH", f.ShiftID,
			func() (uuid.UUID, error) { return shiftID(byHost.Find(ctx, net.ParseIP(addr))) },
			func() ([]uuid.UUID, error) { return shiftIDs(byHost.FindAll(ctx, net.ParseIP(addr)).All()) })
	})
	t.Run("NaN", func(t *testing.T) {
		v := nan()
		b := &booking{Score: &v}
		if err := bookings.Save(ctx, b); err != nil {
			t.Fatal(err)
		}
		check(t, "unique", b.BookingID,
			func() (uuid.UUID, error) { return bookingID(byScore.Find(ctx, ptr(v))) },
			func() ([]uuid.UUID, error) { return bookingIDs(byScore.FindAll(ctx, ptr(v)).All()) })
	})
	t.Run("UDT kandra:\"-\" field set", func(t *testing.T) {
		s := slot{Room: uniq("room"), Start: msTime(), Memo: "not stored"}
		b := &booking{Slot: ptr(s)}
		if err := bookings.Save(ctx, b); err != nil {
			t.Fatal(err)
		}
		check(t, "unique", b.BookingID,
			func() (uuid.UUID, error) { return bookingID(bySlot.Find(ctx, ptr(s))) },
			func() ([]uuid.UUID, error) { return bookingIDs(bySlot.FindAll(ctx, ptr(s)).All()) })
		f := &shift{Slot: s}
		if err := shifts.Save(ctx, f); err != nil {
			t.Fatal(err)
		}
		check(t, "BATCH", f.ShiftID,
			func() (uuid.UUID, error) { return shiftID(byShiftSlot.Find(ctx, s)) },
			func() ([]uuid.UUID, error) { return shiftIDs(byShiftSlot.FindAll(ctx, s).All()) })
	})
}

// testStoredEqResaveOwnKey (finding 4): Save again of an entity held in
// memory, whose primary key has a sub-millisecond time and which has a
// unique lookup, is its own claim, not a UniqueError naming itself.
func testStoredEqResaveOwnKey(t *testing.T, h *harness) {
	e := h.env(t)
	sittings := kstore.MustNewRepo(e.rt, sittingsTable)
	for _, c := range []struct {
		name  string
		start time.Time
	}{{"time.Now() sub-ms", nowSubMs()}, {"sub-ms in CEST", subMs(msTime()).In(cest)}} {
		t.Run(c.name, func(t *testing.T) {
			s := &sitting{Room: uniq("room"), Start: c.start, Guest: uniq("guest")}
			if err := sittings.Save(ctx, s); err != nil {
				t.Fatal(err)
			}
			if err := sittings.Save(ctx, s); err != nil {
				t.Errorf("Save again of the entity in memory: %v", err)
			}
		})
	}
}

// testStoredEqSaveAllOneRow (finding 5): SaveAll of two entities whose
// keys are one stored row is refused before sending, whatever Go forms the
// keys take, and nothing is written.
func testStoredEqSaveAllOneRow(t *testing.T, h *harness) {
	e := h.env(t)
	stays := kstore.MustNewRepo(e.rt, staysTable)
	for _, c := range []struct {
		name  string
		other func(*stay)
	}{
		{"timestamp sub-ms", func(s *stay) { s.At = subMs(s.At) }},
		{"timestamp in CEST", func(s *stay) { s.At = s.At.In(cest) }},
		{"UDT field through another pointer", func(s *stay) { n := *s.Slot.Seats; s.Slot.Seats = &n }},
		{"UDT time in CEST", func(s *stay) { s.Slot.Start = s.Slot.Start.In(cest) }},
		{"UDT kandra:\"-\" field set", func(s *stay) { s.Slot.Memo = "not stored" }},
		{"UDT parsed IPv4", func(s *stay) { s.Slot.Host = s.Slot.Host.To16() }},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := &stay{Hotel: uniq("hotel"), At: msTime(),
				Slot: slot{Room: uniq("room"), Start: msTime(), Seats: ptr(int32(rand.IntN(100))), Host: net.ParseIP(ipv4()).To4()}, Guest: "a"}
			b := *a
			b.Guest = "b"
			c.other(&b)
			err := stays.SaveAll(ctx, []*stay{a, &b})
			if !errors.Is(err, kerrors.ErrArgument) {
				t.Errorf("SaveAll of one stored row twice: %v (want an ArgumentError)", err)
			}
			if n := h.rows(t, "eq_stays", "hotel = ?", a.Hotel); n != 0 {
				t.Errorf("%d rows written", n)
			}
		})
	}
}

// diary is partitioned by a Sensitive column and has an index, for the
// cursors that must not show it.
type diary struct {
	Owner string
	At    time.Time
	Mood  string
}

// Describe implements kandra's description.
func (d *diary) Describe(s *kandra.Schema[diary]) {
	s.Table("eq_diaries")
	kandra.Bind(s, &d.Owner, kandra.PartitionKey(0), kandra.Sensitive())
	kandra.Bind(s, &d.At, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &d.Mood, kandra.SecondaryIndex())
}

var (
	diariesTable *kandra.Table[diary]
	diaryAt      kandra.Field[diary, time.Time]
	diaryMood    kandra.Field[diary, string]
)

// testSensitiveCursors (finding 9): the cursor of a partition whose key is
// Sensitive resumes only that partition's List, and neither its String
// nor an index read's shows the key; a runtime with the same
// WithCursorKey resumes it, and a bound in another Go form of one stored
// value is the same query.
func testSensitiveCursors(t *testing.T, h *harness) {
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(rand.IntN(256))
	}
	e := h.env(t, kstore.WithCursorKey(key))
	diaries := kstore.MustNewRepo(e.rt, diariesTable)
	p1, p2, mood := uniq("owner-secret"), uniq("owner-secret"), uniq("mood")
	t0 := msTime()
	for _, owner := range []string{p1, p2} {
		for i := range 5 {
			if err := diaries.Save(ctx, &diary{Owner: owner, At: t0.Add(time.Duration(i) * time.Second), Mood: mood}); err != nil {
				t.Fatal(err)
			}
		}
	}
	shows := func(c kstore.Cursor) bool {
		b, err := base64.RawURLEncoding.DecodeString(c.String())
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Contains(b, []byte(p1)) || bytes.Contains(b, []byte(p2))
	}
	// all pages through read from the first page, each cursor through its
	// String, and returns the rows' times.
	all := func(t *testing.T, read func(...kstore.ListOption) *kstore.Iter[diary]) []time.Time {
		t.Helper()
		var got []time.Time
		var opts []kstore.ListOption
		for page := 0; page < 20; page++ {
			it := read(opts...)
			rows, err := it.All()
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range rows {
				got = append(got, d.At)
			}
			c := it.Cursor()
			if c.IsZero() {
				return got
			}
			if shows(c) {
				t.Errorf("page %d: the cursor %s shows a Sensitive partition key", page, c)
			}
			parsed, err := kstore.ParseCursor(c.String())
			if err != nil {
				t.Fatal(err)
			}
			opts = []kstore.ListOption{kstore.After(parsed)}
		}
		t.Fatal("more than 20 pages")
		return nil
	}

	t.Run("List", func(t *testing.T) {
		got := all(t, func(opts ...kstore.ListOption) *kstore.Iter[diary] {
			return diaries.List(ctx, &diary{Owner: p1}, append(opts, kstore.PageSize(2))...)
		})
		if len(got) != 5 {
			t.Errorf("List through String cursors read %d of 5 rows", len(got))
		}
		it := diaries.List(ctx, &diary{Owner: p1}, kstore.PageSize(2))
		if _, err := it.All(); err != nil || it.Cursor().IsZero() {
			t.Fatalf("%v %v", err, it.Cursor())
		}
		if rows, err := diaries.List(ctx, &diary{Owner: p2}, kstore.After(it.Cursor())).All(); !errors.Is(err, kerrors.ErrArgument) {
			t.Errorf("another partition's List took the cursor: %d rows of 5, %v", len(rows), err)
		}
		other := h.env(t, kstore.WithCursorKey(key))
		if rows, err := kstore.MustNewRepo(other.rt, diariesTable).List(ctx, &diary{Owner: p1}, kstore.After(it.Cursor())).All(); err != nil || len(rows) != 3 {
			t.Errorf("a runtime with the same WithCursorKey: %d rows of 3, %v", len(rows), err)
		}
	})
	t.Run("bound in another Go form", func(t *testing.T) {
		it := diaries.List(ctx, &diary{Owner: p1}, kstore.From(diaryAt, t0.In(cest), true), kstore.PageSize(2))
		if _, err := it.All(); err != nil || it.Cursor().IsZero() {
			t.Fatalf("%v %v", err, it.Cursor())
		}
		rows, err := diaries.List(ctx, &diary{Owner: p1}, kstore.From(diaryAt, subMs(t0), true), kstore.After(it.Cursor())).All()
		if err != nil || len(rows) != 3 {
			t.Errorf("the same stored bound in another Go form: %d rows of 3, %v", len(rows), err)
		}
	})
	t.Run("Index.Find", func(t *testing.T) {
		got := all(t, func(opts ...kstore.ListOption) *kstore.Iter[diary] {
			return kstore.MustIndexOf(diaries, diaryMood).Find(ctx, mood, append(opts, kstore.PageSize(3))...)
		})
		if len(got) != 10 {
			t.Errorf("Index.Find through String cursors read %d of 10 rows", len(got))
		}
	})
}

// tally has a BATCH lookup and values of every shape, for the batch limit.
type tally struct {
	TallyID string
	Tag     string
	Note    string
	Nums    []int64
	Keys    map[int64]struct{}
	Amounts map[string]int32
	Spot    *slot
	Spots   []slot
}

// Describe implements kandra's description.
func (y *tally) Describe(s *kandra.Schema[tally]) {
	s.Table("eq_tallies")
	kandra.Bind(s, &y.TallyID, kandra.PartitionKey(0))
	kandra.Bind(s, &y.Tag, kandra.Lookup("by_tag", kandra.LookupBatch))
}

var (
	talliesTable *kandra.Table[tally]
	tallyTag     kandra.Field[tally, string]
)

// testBatchEstimate (finding 11): for each shape of value, the largest one
// the node takes in a Save with a BATCH lookup (found with the check off)
// is not refused by kandra's estimate, which is a lower bound of the
// server's count, and the largest tried (8,000 bigints, say) is refused
// before sending with an error matching kerrors.ErrBatchTooLarge, nothing
// written. A lookup value is not counted twice. It prints, per shape,
// "real-server: batch-estimate adapter=<Name> shape=<shape>
// server-max=<n> kandra-max=<n>".
func testBatchEstimate(t *testing.T, h *harness) {
	e := h.env(t)
	tallies := kstore.MustNewRepo(e.rt, talliesTable)
	unchecked := kstore.MustNewRepo(h.env(t, kstore.WithMaxBatchBytes(-1)).rt, talliesTable)
	// The server's refusal of a batch kandra sent ("Batch too large").
	serverRefused := func(err error) bool {
		var qe *kerrors.QueryError
		return errors.As(err, &qe) && strings.Contains(strings.ToLower(err.Error()), "batch too large")
	}
	// kandra's refusal before sending: ErrBatchTooLarge, and no batch
	// reached the driver (the metrics count each one sent).
	refused := func(save func() error) (bool, error) {
		sent := e.count("eq_tallies/" + kandra.OpSave)
		err := save()
		return errors.Is(err, kerrors.ErrBatchTooLarge) && e.count("eq_tallies/"+kandra.OpSave) == sent, err
	}
	for _, s := range []struct {
		name string
		make func(n int) *tally
		max  int
	}{
		{"text", func(n int) *tally { return &tally{Note: strings.Repeat("x", n)} }, 60000},
		{"list<bigint>", func(n int) *tally { return &tally{Nums: make([]int64, n)} }, 8000},
		{"set<bigint>", func(n int) *tally {
			m := make(map[int64]struct{}, n)
			for i := range n {
				m[int64(i)] = struct{}{}
			}
			return &tally{Keys: m}
		}, 8000},
		{"map<text,int>", func(n int) *tally {
			m := make(map[string]int32, n)
			for i := range n {
				m[fmt.Sprintf("k%05d", i)] = int32(i)
			}
			return &tally{Amounts: m}
		}, 8000},
		{"UDT", func(n int) *tally { return &tally{Spot: &slot{Room: strings.Repeat("r", n)}} }, 60000},
		{"list<frozen<UDT>>", func(n int) *tally { return &tally{Spots: make([]slot, n)} }, 8000},
	} {
		t.Run(s.name, func(t *testing.T) {
			id := uniq("tally")
			save := func(r *kstore.Repo[tally], n int) error {
				y := s.make(n)
				y.TallyID, y.Tag = id, uniq("tag")
				return r.Save(ctx, y)
			}
			// The largest n the server takes, by bisection.
			if err := save(unchecked, s.max); !serverRefused(err) {
				t.Fatalf("the server took %d: %v", s.max, err)
			}
			lo, hi := 0, s.max
			for lo+1 < hi {
				mid := (lo + hi) / 2
				switch err := save(unchecked, mid); {
				case err == nil:
					lo = mid
				case serverRefused(err):
					hi = mid
				default:
					t.Fatal(err)
				}
			}
			serverMax := lo
			if err := save(tallies, serverMax); err != nil {
				t.Errorf("kandra refuses %d, which the server takes: %v", serverMax, err)
			}
			// kandra's own limit: the largest n it sends.
			lo, hi = 0, s.max
			for lo+1 < hi {
				mid := (lo + hi) / 2
				if ok, _ := refused(func() error { return save(tallies, mid) }); ok {
					hi = mid
				} else {
					lo = mid
				}
			}
			fmt.Printf("real-server: batch-estimate adapter=%s shape=%s server-max=%d kandra-max=%d\n", h.n.Name, s.name, serverMax, lo)
			fresh := s.make(s.max)
			fresh.TallyID, fresh.Tag = uniq("tally"), uniq("tag")
			var qe *kerrors.QueryError
			if ok, err := refused(func() error { return tallies.Save(ctx, fresh) }); !ok || !errors.As(err, &qe) {
				t.Errorf("%d: %v (want an ErrBatchTooLarge before sending)", s.max, err)
			}
			if _, err := tallies.Get(ctx, &tally{TallyID: fresh.TallyID}); !errors.Is(err, kerrors.ErrNotFound) {
				t.Errorf("the refused Save wrote its row: %v", err)
			}
		})
	}
	// A lookup value is the row's column (counted) and the lookup row's
	// partition key (not counted by the server): 30,000 bytes fit.
	y := &tally{TallyID: uniq("tally"), Tag: strings.Repeat("t", 30000)}
	if err := tallies.Save(ctx, y); err != nil {
		t.Errorf("a 30,000-byte BATCH lookup value: %v", err)
	} else if got, err := kstore.MustLookupOf(tallies, tallyTag).Find(ctx, y.Tag); err != nil || got.TallyID != y.TallyID {
		t.Errorf("Find by the 30,000-byte value: %v", err)
	}
}
