package kandra

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"pgregory.net/rapid"
)

// cassandraUUIDCompare is the order Cassandra's UUIDType and Scylla's
// uuid_type_impl give a plain uuid column, written from the rule (notes,
// section 7): the version nibble (b[6]>>4)&0xf is compared first, then all
// 16 bytes as an unsigned big-endian number. Version 1 values get a
// reordered-timestamp comparison on the servers instead; kandra never makes
// them, so the comparator is only used on other versions.
func cassandraUUIDCompare(a, b uuid.UUID) int {
	va, vb := (a[6]>>4)&0xf, (b[6]>>4)&0xf
	if va != vb {
		return cmp.Compare(va, vb)
	}
	return bytes.Compare(a[:], b[:])
}

// cassandraUUIDCompareJava is the same rule in the shape of Cassandra's
// UUIDType.compareCustom (msb/lsb longs, version from msb, unsigned long
// comparisons), to cross-check cassandraUUIDCompare.
func cassandraUUIDCompareJava(a, b uuid.UUID) int {
	msb1, lsb1 := binary.BigEndian.Uint64(a[:8]), binary.BigEndian.Uint64(a[8:])
	msb2, lsb2 := binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])
	v1, v2 := int((msb1>>12)&0xf), int((msb2>>12)&0xf)
	if v1 != v2 {
		return v1 - v2
	}
	if c := cmp.Compare(msb1, msb2); c != 0 {
		return c
	}
	return cmp.Compare(lsb1, lsb2)
}

func sign(x int) int { return cmp.Compare(x, 0) }

// msPrefix is the 48-bit unix_ts_ms field of a UUIDv7.
func msPrefix(id uuid.UUID) uint64 {
	var b [8]byte
	copy(b[2:], id[:6])
	return binary.BigEndian.Uint64(b[:])
}

func checkV7(t *testing.T, id uuid.UUID) {
	t.Helper()
	if id.Version() != 7 || id.Variant() != uuid.RFC4122 {
		t.Fatalf("id %s: version %d variant %s, want version 7, variant RFC4122", id, id.Version(), id.Variant())
	}
}

func TestUUIDTimeOrderedStrictlyIncreasingTightLoop(t *testing.T) {
	const n = 100_000
	ids := make([]uuid.UUID, n)
	for i := range ids {
		ids[i] = NewTimeOrderedUUID()
	}
	sameMs := 0
	for i, id := range ids {
		checkV7(t, id)
		if i == 0 {
			continue
		}
		prev := ids[i-1]
		if cassandraUUIDCompare(prev, id) >= 0 {
			t.Fatalf("ids[%d]=%s is not greater than ids[%d]=%s", i, id, i-1, prev)
		}
		if msPrefix(prev) == msPrefix(id) {
			sameMs++
		}
	}
	// The interesting case is ids made within one millisecond: make sure the
	// loop really produced many of them, so the check above covered it.
	if sameMs < 1000 {
		t.Fatalf("only %d of %d consecutive pairs share a millisecond; the same-millisecond case was not exercised", sameMs, n-1)
	}
	t.Logf("%d of %d consecutive pairs share a millisecond", sameMs, n-1)
}

func TestUUIDTimeOrderedConcurrentGoroutines(t *testing.T) {
	const (
		workers = 8
		perG    = 100_000
	)
	seqs := make([][]uuid.UUID, workers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for w := range seqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids := make([]uuid.UUID, perG)
			<-start
			for i := range ids {
				ids[i] = NewTimeOrderedUUID()
			}
			seqs[w] = ids
		}()
	}
	close(start)
	wg.Wait()

	all := make([]uuid.UUID, 0, workers*perG)
	for w, ids := range seqs {
		for i, id := range ids {
			checkV7(t, id)
			if i > 0 && cassandraUUIDCompare(ids[i-1], id) >= 0 {
				t.Fatalf("goroutine %d: ids[%d]=%s is not greater than ids[%d]=%s", w, i, id, i-1, ids[i-1])
			}
		}
		all = append(all, ids...)
	}
	// Sorting and finding no equal neighbours proves all ids are distinct.
	slices.SortFunc(all, cassandraUUIDCompare)
	for i := 1; i < len(all); i++ {
		if cassandraUUIDCompare(all[i-1], all[i]) == 0 {
			t.Fatalf("duplicate id %s", all[i])
		}
	}
}

// An id made after another goroutine's id was received (a happens-before
// edge) must be greater: across goroutines, order follows the order in which
// the generator handed the ids out. The test goroutine and 8 workers form a
// chain; a token carrying the last id travels it, and every hop makes a new
// id and compares it with the one it received.
func TestUUIDTimeOrderedCausalOrderAcrossGoroutines(t *testing.T) {
	const (
		workers = 8
		rounds  = 5_000
	)
	type token struct {
		id  uuid.UUID
		err string
	}
	chans := make([]chan token, workers+1)
	for i := range chans {
		chans[i] = make(chan token)
	}
	for w := range workers {
		go func() {
			for tok := range chans[w] {
				if tok.err == "" {
					next := NewTimeOrderedUUID()
					if cassandraUUIDCompare(tok.id, next) >= 0 {
						tok.err = "worker made " + next.String() + " after receiving " + tok.id.String()
					}
					tok.id = next
				}
				chans[w+1] <- tok
			}
			close(chans[w+1])
		}()
	}
	defer func() {
		close(chans[0])
		for range chans[workers] {
		}
	}()
	last := NewTimeOrderedUUID()
	for range rounds {
		chans[0] <- token{id: last}
		tok := <-chans[workers]
		if tok.err != "" {
			t.Fatal(tok.err)
		}
		if cassandraUUIDCompare(last, tok.id) >= 0 {
			t.Fatalf("round trip returned %s, not greater than %s", tok.id, last)
		}
		last = NewTimeOrderedUUID()
		if cassandraUUIDCompare(tok.id, last) >= 0 {
			t.Fatalf("test goroutine made %s after receiving %s", last, tok.id)
		}
	}
}

func TestUUIDRandomIsV4(t *testing.T) {
	seen := make(map[uuid.UUID]struct{}, 10_000)
	for range 10_000 {
		id := NewRandomUUID()
		if id.Version() != 4 || id.Variant() != uuid.RFC4122 {
			t.Fatalf("id %s: version %d variant %s, want version 4, variant RFC4122", id, id.Version(), id.Variant())
		}
		if _, dup := seen[id]; dup {
			t.Fatalf("duplicate random id %s", id)
		}
		seen[id] = struct{}{}
	}
}

func TestUUIDStrategy(t *testing.T) {
	var zero UUIDStrategy
	if zero != UUIDTimeOrdered {
		t.Fatalf("zero UUIDStrategy is %v, want UUIDTimeOrdered", zero)
	}
	tests := []struct {
		s       UUIDStrategy
		name    string
		version uuid.Version
		valid   bool
	}{
		{UUIDTimeOrdered, "UUIDTimeOrdered", 7, true},
		{UUIDRandom, "UUIDRandom", 4, true},
		{UUIDStrategy(2), "UUIDStrategy(2)", 0, false},
		{UUIDStrategy(255), "UUIDStrategy(255)", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.String(); got != tt.name {
				t.Errorf("String() = %q, want %q", got, tt.name)
			}
			if got := tt.s.IsValid(); got != tt.valid {
				t.Errorf("IsValid() = %v, want %v", got, tt.valid)
			}
			if !tt.valid {
				defer func() {
					r := recover()
					msg, _ := r.(string)
					if !strings.Contains(msg, tt.name) {
						t.Errorf("New() on invalid strategy: recovered %v, want a panic naming %s", r, tt.name)
					}
				}()
			}
			id := tt.s.New()
			if id.Version() != tt.version || id.Variant() != uuid.RFC4122 {
				t.Errorf("New() = %s: version %d variant %s, want version %d", id, id.Version(), id.Variant(), tt.version)
			}
		})
	}
}

func genUUID(versions ...byte) *rapid.Generator[uuid.UUID] {
	return rapid.Custom(func(t *rapid.T) uuid.UUID {
		var id uuid.UUID
		copy(id[:], rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "bytes"))
		if len(versions) > 0 {
			v := rapid.SampledFrom(versions).Draw(t, "version")
			id[6] = id[6]&0x0f | v<<4
		}
		return id
	})
}

// The comparator is a total order and agrees with Cassandra's msb/lsb form.
func TestUUIDComparatorProperties(t *testing.T) {
	// Draw from few versions so that equal versions (the byte comparison)
	// and different versions both happen often.
	gen := genUUID(0, 4, 6, 7, 8)
	rapid.Check(t, func(t *rapid.T) {
		a, b, c := gen.Draw(t, "a"), gen.Draw(t, "b"), gen.Draw(t, "c")
		if cassandraUUIDCompare(a, a) != 0 {
			t.Fatalf("compare(a, a) != 0")
		}
		if sign(cassandraUUIDCompare(a, b)) != -sign(cassandraUUIDCompare(b, a)) {
			t.Fatalf("not antisymmetric: %s %s", a, b)
		}
		if (cassandraUUIDCompare(a, b) == 0) != (a == b) {
			t.Fatalf("compare(a, b) == 0 disagrees with a == b: %s %s", a, b)
		}
		if sign(cassandraUUIDCompare(a, b)) != sign(cassandraUUIDCompareJava(a, b)) {
			t.Fatalf("byte form and msb/lsb form disagree on %s %s", a, b)
		}
		s := []uuid.UUID{a, b, c}
		slices.SortFunc(s, cassandraUUIDCompare)
		if cassandraUUIDCompare(s[0], s[2]) > 0 {
			t.Fatalf("not transitive: %s <= %s <= %s but first > last", s[0], s[1], s[2])
		}
		if va, vb := a.Version(), b.Version(); va < vb && cassandraUUIDCompare(a, b) >= 0 {
			t.Fatalf("version %d id %s does not sort before version %d id %s", va, a, vb, b)
		}
	})
}

// Any v4 id sorts before any v7 id: mixing strategies in one column does not
// interleave them.
func TestUUIDComparatorV4BeforeV7(t *testing.T) {
	v4, v7 := genUUID(4), genUUID(7)
	rapid.Check(t, func(t *rapid.T) {
		a, b := v4.Draw(t, "v4"), v7.Draw(t, "v7")
		if cassandraUUIDCompare(a, b) >= 0 {
			t.Fatalf("v4 %s does not sort before v7 %s", a, b)
		}
	})
}

// With the UUIDv7 layout, (millisecond, sub-millisecond sequence) order is
// uuid order, whatever the random bits: this is why v7 keys sort by time.
func TestUUIDComparatorV7LayoutIsChronological(t *testing.T) {
	build := func(t *rapid.T, label string, ms uint64, seq uint16) uuid.UUID {
		var id uuid.UUID
		copy(id[:], rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, label))
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], ms)
		copy(id[:6], b[2:])
		id[6] = 0x70 | byte(seq>>8)&0x0f
		id[7] = byte(seq)
		id[8] = id[8]&0x3f | 0x80
		return id
	}
	rapid.Check(t, func(t *rapid.T) {
		ms1 := rapid.Uint64Range(0, 1<<48-1).Draw(t, "ms1")
		// Same millisecond half the time: that is the case that matters.
		ms2 := rapid.OneOf(rapid.Just(ms1), rapid.Uint64Range(ms1, 1<<48-1)).Draw(t, "ms2")
		seq1 := rapid.Uint16Range(0, 0xfff).Draw(t, "seq1")
		seq2 := rapid.Uint16Range(0, 0xfff).Draw(t, "seq2")
		if ms1 == ms2 && seq1 >= seq2 {
			return
		}
		a, b := build(t, "rand1", ms1, seq1), build(t, "rand2", ms2, seq2)
		if a.Version() != 7 || a.Variant() != uuid.RFC4122 {
			t.Fatalf("built id %s is not a v7", a)
		}
		if cassandraUUIDCompare(a, b) >= 0 {
			t.Fatalf("(%d,%d) < (%d,%d) but %s does not sort before %s", ms1, seq1, ms2, seq2, a, b)
		}
	})
}

func BenchmarkNewTimeOrderedUUID(b *testing.B) {
	for range b.N {
		_ = NewTimeOrderedUUID()
	}
}

func BenchmarkGoogleNewV7(b *testing.B) {
	for range b.N {
		_, _ = uuid.NewV7()
	}
}

func BenchmarkNewRandomUUID(b *testing.B) {
	for range b.N {
		_ = NewRandomUUID()
	}
}
