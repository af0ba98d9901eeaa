package kstore

import (
	"sync"

	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
)

// scratch is the memory of one call's statements: the Query structs, one
// backing array for their values, the entries of a batch and the Batch,
// and the call's options. A Driver keeps nothing of a Query or a Batch
// after it returns (see Driver), so the call gives the scratch back to
// scratchPool when it returns and the next call reuses it.
type scratch struct {
	c       call
	qs      [4]adapter.Query
	nq      int
	more    []*adapter.Query // past len(qs)
	entries []*adapter.Query
	vals    []any
	batch   adapter.Batch
	// A partial write's or a conditional delete's (patch.go): its shape,
	// conditions, stamps, the guard's value and the shape's cache key.
	patch    catalog.PatchSpec
	del      catalog.DeleteSpec
	conds    []cond
	stamps   []any
	guardVal [1]any
	key      []byte
	rowKey   []byte // a unit step's partition and row (Step.setKeys)
	sized    []byte // the stored values a unit's batch-size estimate encodes (Unit.checkSize)
	shaped   bool   // a call filled them (set before it does): release clears them
	// The USING TIMESTAMP and TTL values its statements bind, by address
	// (timestamp, ttl): an int64 or an int put in an interface is a heap
	// allocation unless it is below 256.
	nums  [4]int64
	nnum  int
	secs  int32
	count int64 // a count's result (countIn), scanned by address
	// A GetTimes' WRITETIME and TTL targets, for up to 4 fields: values
	// only, nothing for release to clear.
	timeWT  [4]int64
	timeTTL [4]int32
}

var scratchPool = sync.Pool{New: func() any { return &scratch{entries: make([]*adapter.Query, 0, 4), vals: make([]any, 0, 32)} }}

// shapeKey is sc's buffer for the key of a statement's shape (patch.go),
// made on first use: most calls never need one.
func (sc *scratch) shapeKey() []byte {
	if sc.key == nil {
		sc.key = make([]byte, 0, 128)
	}
	return sc.key[:0]
}

// getScratch takes a scratch from the pool, with opts applied to its call.
func getScratch[O option](opts []O) *scratch {
	sc := scratchPool.Get().(*scratch)
	for _, o := range opts {
		o.apply(&sc.c)
	}
	return sc
}

// release clears what the call put in sc (so that the pool holds no
// entity alive) and gives it back.
func (sc *scratch) release() {
	sc.c = call{}
	sc.rewind()
	if sc.batch.Entries != nil || sc.batch.Unlogged {
		sc.batch = adapter.Batch{}
	}
	if sc.shaped {
		sc.shaped = false
		clear(sc.patch.Sets)
		clear(sc.patch.Conds)
		clear(sc.conds)
		clear(sc.stamps)
		sc.patch = catalog.PatchSpec{Sets: sc.patch.Sets[:0], Conds: sc.patch.Conds[:0]}
		sc.del = catalog.DeleteSpec{Conds: sc.del.Conds[:0]}
		sc.conds, sc.stamps, sc.guardVal = sc.conds[:0], sc.stamps[:0], [1]any{}
	}
	scratchPool.Put(sc)
}

// rewind forgets the statements sc holds and their values, for statements
// that follow them in the same call once they are done (Find's next page).
func (sc *scratch) rewind() {
	for i := range sc.qs[:sc.nq] {
		sc.qs[i] = adapter.Query{} // inline stores: clear's runtime call costs more than the 1 or 2 Queries of a call
	}
	sc.nq = 0
	if sc.more != nil { // the stores are skipped when there is nothing to clear: each costs a write barrier
		sc.more = nil
		clear(sc.entries) // else they point into sc.qs, which keep nothing alive
	}
	sc.entries = sc.entries[:0]
	clear(sc.vals)
	sc.vals = sc.vals[:0]
	sc.nnum = 0
}

// timestamp is ts as a value of sc's statements: the address of a copy
// in sc, valid as long as they are; ts itself without sc or past its
// room. A batch's statements share one timestamp, and its copy.
func (sc *scratch) timestamp(ts int64) any {
	switch {
	case sc == nil:
		return ts
	case sc.nnum > 0 && sc.nums[sc.nnum-1] == ts:
		return &sc.nums[sc.nnum-1]
	case sc.nnum == len(sc.nums):
		return ts
	}
	p := &sc.nums[sc.nnum]
	*p = ts
	sc.nnum++
	return p
}

// ttl is a TTL in seconds (at most kandra.MaxTTL, checked with the call's
// options) as a value of sc's statements, as timestamp is: the TTL of
// every statement of a call is its option's.
func (sc *scratch) ttl(secs int) any {
	if sc == nil {
		return secs
	}
	sc.secs = int32(secs)
	return &sc.secs
}

// query returns a cleared Query for s, appended to sc.entries.
func (sc *scratch) query(s *adapter.Statement) *adapter.Query {
	var q *adapter.Query
	if sc.nq < len(sc.qs) {
		q = &sc.qs[sc.nq]
		sc.nq++
	} else {
		q = new(adapter.Query)
		sc.more = append(sc.more, q)
	}
	q.Statement = s
	sc.entries = append(sc.entries, q)
	return q
}

// values returns an empty slice with room for n values, in sc's backing
// array. Its capacity is n, so that appending past n cannot overwrite the
// next statement's values.
func (sc *scratch) values(n int) []any {
	if cap(sc.vals)-len(sc.vals) < n {
		// The earlier statements keep the old array; release clears only
		// this one, and the old one is garbage once they are.
		sc.vals = make([]any, 0, max(2*cap(sc.vals), n))
	}
	l := len(sc.vals)
	sc.vals = sc.vals[:l+n]
	return sc.vals[l : l : l+n]
}
