package kstore

import (
	"context"
	"errors"
	"math"
	mrand "math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
	"github.com/kandra-go/kandra/kerrors"
)

// Lookups keep one invariant: once the EVENTUAL writes are done, every
// live entity is found through every lookup by every value it holds, and
// a read through a lookup never returns an entity that does not hold the
// value.
//
// A non-unique lookup (LookupBatch, LookupEventual) has one row per value
// and holder, keyed (value, primary key...). A write inserts the rows of
// the entity's values; a move deletes exactly the entity's own row of the
// old value. Both carry the same client timestamp (the call's Timestamp,
// or the time of the call), so two moves of one entity applied out of
// order still leave the later one's rows; nothing is read first, and no
// other entity's row is ever touched.
//
// A unique lookup (LookupUnique) has one row per value, the claim, written
// by lightweight transactions only:
//
//   - a write claims each value before the primary write (INSERT IF NOT
//     EXISTS); when another entity holds the claim, it reads the holder's
//     row: a live holder that has the value refuses the write with an
//     *kerrors.UniqueError and nothing is written;
//   - a claim whose holder does not exist or no longer has the value (a
//     writer that died between its claim and its primary write, a value a
//     Save moved away from) is taken over, UPDATE ... IF holder = the
//     stale holder, so never by two entities at once; but only once the
//     claim is older than WithClaimGrace, so that a writer between its
//     claim and its primary write is not overtaken (a writer whose claims
//     took longer than half the grace gives them up instead of writing);
//   - a move releases the old value after the primary write, DELETE ... IF
//     holder = this entity, so a value another entity has taken since is
//     never released; a delete releases every value it knows of.

// DefaultClaimGrace is the default of WithClaimGrace.
const DefaultClaimGrace = 30 * time.Second

// claimTries bounds the rounds of claim, read, take over: each lost round
// means another writer changed the claim in between.
const claimTries = 4

// lookupTS is the client timestamp of a call's non-unique lookup rows.
func lookupTS(c *call) int64 {
	if c.hasTS {
		return c.ts
	}
	return time.Now().UnixMicro()
}

// eventualTS is the timestamp of a write's EVENTUAL lookup rows, read
// before the write (see eventualInserts); 0 on a table without EVENTUAL
// lookups, whose writes need no clock reading for them.
func (r *Repo[T]) eventualTS(c *call) int64 {
	if len(r.eventual) == 0 {
		return 0
	}
	return lookupTS(c)
}

// noTS asks lookupInsertIn for a row without an explicit timestamp: the
// driver stamps it when it is sent, no earlier than the call (a Save's
// rows; a move needs one timestamp for its delete and its insert).
const noTS = -1

// insertTS is the timestamp of a write's new lookup rows: the call's
// Timestamp, or none.
func insertTS(c *call) int64 {
	if c.hasTS {
		return c.ts
	}
	return noTS
}

// lookupInsertIn is the Insert of e's row of lookup i, USING TIMESTAMP ts
// unless ts is noTS, in sc (nil: a new Query).
func (r *Repo[T]) lookupInsertIn(sc *scratch, i int, e *T, ts int64) *adapter.Query {
	s := r.st.Lookup(i).InsertAt()
	if ts == noTS {
		s = r.st.Lookup(i).Insert()
	}
	var q *adapter.Query
	var vals []any
	if sc != nil {
		q, vals = sc.query(s), sc.values(s.NumParams())
	} else {
		q, vals = &adapter.Query{Statement: s}, make([]any, 0, s.NumParams())
	}
	q.Values = catalog.AppendColumns(r.t, s, e, vals)
	if ts != noTS {
		q.Values = append(q.Values, sc.timestamp(ts))
	}
	return q
}

// lookupDeleteAt is the DeleteAt of e's row of lookup i.
func (r *Repo[T]) lookupDeleteAt(i int, e *T, ts int64) *adapter.Query {
	return r.lookupDeleteIn(nil, i, e, ts)
}

// lookupDeleteIn is lookupDeleteAt in sc (nil: a new Query).
func (r *Repo[T]) lookupDeleteIn(sc *scratch, i int, e *T, ts int64) *adapter.Query {
	s := r.st.Lookup(i).DeleteAt()
	var q *adapter.Query
	var vals []any
	if sc != nil {
		q, vals = sc.query(s), sc.values(s.NumParams())
	} else {
		q, vals = &adapter.Query{Statement: s}, make([]any, 0, s.NumParams())
	}
	q.Values = catalog.AppendColumns(r.t, s, e, append(vals, sc.timestamp(ts)))
	return q
}

// claims are the unique values one call newly claimed, with their
// tokens, to give back when the call's write is known not to have
// happened (refused, or never sent). After a write whose outcome is
// unknown they are kept: a claim whose holder does not have the value is
// taken over after the grace anyway, while releasing the claim of a write
// that did land would let a second entity take its value.
type claims[T any] struct {
	start   time.Time
	idx     []int
	e       []*T
	token   []int64
	renewed []int64 // the tokens of the claims e held already, renewed
}

// landed records, once the call's write is known to have landed, the
// tokens of every claim it took or renewed (see doneClaims).
func (r *Repo[T]) landed(got *claims[T]) {
	if got == nil {
		return
	}
	r.rt.done.add(got.token, r.rt.cfg.grace)
	r.rt.done.add(got.renewed, r.rt.cfg.grace)
}

// doneClaims are the claim tokens of this store's writes that landed,
// for the last grace period. A claim read with one of these tokens is in
// the state such a write left it: no writer of this process is on its way
// with it, and one of another process would have renewed it (changing the
// token) first. So a move or a delete may release it at once, where a
// claim renewed within the grace by anyone else is left to go stale.
type doneClaims struct {
	mu    sync.Mutex
	at    map[int64]time.Time
	prune time.Time
}

func (d *doneClaims) add(tokens []int64, grace time.Duration) {
	if len(tokens) == 0 {
		return
	}
	now := time.Now()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.at == nil {
		d.at = map[int64]time.Time{}
	}
	for _, t := range tokens {
		d.at[t] = now
	}
	if now.Sub(d.prune) > grace {
		for t, at := range d.at {
			if now.Sub(at) > grace {
				delete(d.at, t)
			}
		}
		d.prune = now
	}
}

func (d *doneClaims) has(token int64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.at[token]
	return ok
}

// newToken draws a claim token; never 0, which means none.
func newToken() int64 { return mrand.Int64N(math.MaxInt64) + 1 }

// metricOp is the documented operation name (kandra.OpSave ...) under which the
// statements of call op are recorded.
func metricOp(op string) string {
	switch op {
	case "Save", "ForceSave":
		return kandra.OpSave
	case "SaveIfNotExists":
		return kandra.OpSaveIfNotExists
	case "Update":
		return kandra.OpUpdate
	case "SoftDelete":
		return kandra.OpSoftDelete
	case "Delete", "HardDelete", "ForceDelete":
		return kandra.OpDelete
	}
	return kandra.OpFind
}

// tokenArg binds a token read from a claim: 0 is a claim without one (a
// row written by another client), matched as null.
func tokenArg(tok int64) any {
	if tok == 0 {
		return nil
	}
	return tok
}

// claimAll claims e's value of each unique lookup in idx (all of them when
// idx is nil). On failure it gives back what it took: the call's write was
// not sent.
func (r *Repo[T]) claimAll(ctx context.Context, op string, e *T, idx []int, c *call, cons kandra.Consistency) (*claims[T], error) {
	if idx == nil {
		idx = r.unique
	}
	if len(idx) == 0 {
		return nil, nil
	}
	serial, err := r.serialCons(op, c)
	if err != nil {
		return nil, err
	}
	got := &claims[T]{start: time.Now()}
	for _, i := range idx {
		if r.emptyAt(i, r.lookupValue(i, e)) {
			continue
		}
		newly, tok, err := r.claim(ctx, op, i, e, cons, serial)
		if err != nil {
			r.releaseClaims(ctx, op, got, cons, serial)
			return nil, err
		}
		if newly {
			got.idx, got.e, got.token = append(got.idx, i), append(got.e, e), append(got.token, tok)
		} else {
			got.renewed = append(got.renewed, tok)
		}
	}
	return got, nil
}

// fresh refuses to go on to the primary write once the call's claims are
// older than half of WithClaimGrace: another writer could take them over
// before the write lands. The write was not sent, so the claims go back.
func (r *Repo[T]) fresh(ctx context.Context, op string, got *claims[T], c *call, cons kandra.Consistency) error {
	grace := r.rt.cfg.grace
	if got == nil || time.Since(got.start) <= grace/2 {
		return nil
	}
	r.giveBack(ctx, op, got, c, cons)
	return queryErr(op+" on "+r.ts.Name()+": claiming the unique values took longer than half of WithClaimGrace ("+grace.String()+"), so another writer could take them over before this write; nothing was written, retry", nil)
}

// claim makes e the holder of its value of unique lookup i: newly reports
// a claim this call took (it was not e's already), token the claim's
// token now.
func (r *Repo[T]) claim(ctx context.Context, op string, i int, e *T, cons, serial kandra.Consistency) (newly bool, token int64, err error) {
	ls := r.st.Lookup(i)
	for try := 0; try < claimTries; try++ {
		tok := newToken()
		cl := ls.Claim()
		vals := append(catalog.AppendColumns(r.t, cl, e, make([]any, 0, cl.NumParams())), tok)
		applied, err := r.exec(ctx, metricOp(op), &adapter.Query{Statement: cl, Values: vals, Consistency: cons, SerialConsistency: serial})
		if err != nil {
			return false, 0, err
		}
		if applied {
			return true, tok, nil
		}
		holder, held, claimed, found, err := r.holderOf(ctx, op, i, e, serial)
		if err != nil {
			return false, 0, err
		}
		if !found {
			continue // released meanwhile: claim again
		}
		if r.sameKey(holder, e) {
			// Already e's: renew the token, so that a takeover decided on
			// the old one (while e did not hold the value) cannot apply.
			rc := ls.Reclaim()
			vals := catalog.AppendColumns(r.t, rc, e, append(make([]any, 0, rc.NumParams()), tok))
			vals = catalog.AppendExpected(r.t, rc, e, vals)
			applied, err := r.exec(ctx, metricOp(op), &adapter.Query{Statement: rc, Values: vals, Consistency: cons, SerialConsistency: serial})
			if err != nil {
				return false, 0, err
			}
			if applied {
				return false, tok, nil
			}
			continue // taken over meanwhile: look again
		}
		live, err := r.holds(ctx, op, i, holder, e, serial)
		if err != nil {
			return false, 0, err
		}
		if live || time.Since(claimed) < r.rt.cfg.grace {
			return false, 0, r.uniqueErr(i, e, holder, !live)
		}
		tk := ls.Takeover()
		vals = catalog.AppendColumns(r.t, tk, e, append(make([]any, 0, tk.NumParams()), tok))
		vals = append(catalog.AppendExpected(r.t, tk, holder, vals), tokenArg(held))
		applied, err = r.exec(ctx, metricOp(op), &adapter.Query{Statement: tk, Values: vals, Consistency: cons, SerialConsistency: serial})
		if err != nil {
			return false, 0, err
		}
		if applied {
			return true, tok, nil
		}
	}
	return false, 0, queryErr(op+" on "+r.ts.Name()+": the claim of a value of "+r.lookups[i].Name()+" changed hands on every try; nothing was written, retry", nil)
}

// holderOf reads, linearizably, the holder of e's value of unique lookup
// i, its claim token and when it was last claimed: the later of the
// token's and the holder's write times, so that a claim another client
// wrote without a token is as fresh as its holder column.
func (r *Repo[T]) holderOf(ctx context.Context, op string, i int, e *T, serial kandra.Consistency) (holder *T, token int64, claimed time.Time, found bool, err error) {
	sel := r.st.Lookup(i).SelectOwner()
	holder = new(T)
	var tokenAt, holderAt int64
	q := &adapter.Query{Statement: sel, Values: catalog.AppendColumns(r.t, sel, e, make([]any, 0, 1)), Consistency: serial}
	found, err = r.one(ctx, metricOp(op), q, func(dst []any) []any {
		return append(catalog.AppendResult(r.t, sel, holder, dst), &token, &tokenAt, &holderAt)
	})
	return holder, token, time.UnixMicro(max(tokenAt, holderAt)), found, err
}

// holds reports whether holder's row is live and has e's value of lookup
// i, read linearizably (at the serial level): a holder is judged by its
// latest write.
func (r *Repo[T]) holds(ctx context.Context, op string, i int, holder, e *T, serial kandra.Consistency) (bool, error) {
	sc := getScratch[option](nil)
	defer sc.release()
	got, err := r.getIn(ctx, metricOp(op), sc, &sc.c, holder, serial, false)
	if errors.Is(err, kerrors.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return !r.deleted(got) && r.sameLookup(i, got, e), nil
}

// giveBack releases the claims of a call whose write was refused or never
// sent.
func (r *Repo[T]) giveBack(ctx context.Context, op string, got *claims[T], c *call, cons kandra.Consistency) {
	if got == nil {
		return
	}
	if serial, err := r.serialCons(op, c); err == nil {
		r.releaseClaims(ctx, op, got, cons, serial)
	}
}

// releaseClaims gives back what claimAll took; a release that fails
// leaves a claim whose holder does not have the value, which the next
// claimant takes over.
func (r *Repo[T]) releaseClaims(ctx context.Context, op string, got *claims[T], cons, serial kandra.Consistency) {
	if got == nil {
		return
	}
	for k, i := range got.idx {
		r.release(ctx, op, i, got.e[k], got.token[k], cons, serial)
	}
}

// owned is what a write that leaves unique values reads before it: the
// token of each of e's claims among lookups idx that e holds, so that the
// release after the write gives up exactly those claims and never a newer
// one. A claim renewed within the grace by a write that has not landed
// through this store is left alone: another call for the same entity may
// be on its way to write that value (a Save, a re-creation after a
// delete), and a release now would leave it holding a value nobody claims.
// Such a claim is stale once that call is done without the value, and the
// next claimant takes it over after the grace.
type owned struct {
	idx   []int
	token []int64
}

// ownedClaims reads e's claims of the unique lookups in idx (all of them
// when idx is nil).
func (r *Repo[T]) ownedClaims(ctx context.Context, op string, e *T, idx []int, c *call) (*owned, error) {
	if idx == nil {
		idx = r.unique
	}
	if len(idx) == 0 {
		return nil, nil
	}
	serial, err := r.serialCons(op, c)
	if err != nil {
		return nil, err
	}
	o := &owned{}
	for _, i := range idx {
		if r.emptyAt(i, r.lookupValue(i, e)) {
			continue
		}
		holder, tok, claimed, found, err := r.holderOf(ctx, op, i, e, serial)
		if err != nil {
			return nil, err
		}
		if found && r.sameKey(holder, e) && (time.Since(claimed) >= r.rt.cfg.grace || r.rt.done.has(tok)) {
			o.idx, o.token = append(o.idx, i), append(o.token, tok)
		}
	}
	return o, nil
}

// releaseOwned gives up, after the write, the claims ownedClaims read.
func (r *Repo[T]) releaseOwned(ctx context.Context, op string, e *T, o *owned, c *call, cons kandra.Consistency) {
	if o == nil || len(o.idx) == 0 {
		return
	}
	serial, err := r.serialCons(op, c)
	if err != nil {
		return // checked by ownedClaims
	}
	for k, i := range o.idx {
		r.release(ctx, op, i, e, o.token[k], cons, serial)
	}
}

// release deletes the claim of e's value of lookup i if e holds it under
// token. A failure goes to the listener: the claim left behind is stale,
// and taken over by the next claimant.
func (r *Repo[T]) release(ctx context.Context, op string, i int, e *T, token int64, cons, serial kandra.Consistency) {
	rl := r.st.Lookup(i).Release()
	vals := catalog.AppendColumns(r.t, rl, e, make([]any, 0, rl.NumParams()))
	vals = append(catalog.AppendExpected(r.t, rl, e, vals), tokenArg(token))
	if _, err := r.exec(ctx, metricOp(op), &adapter.Query{Statement: rl, Values: vals, Consistency: cons, SerialConsistency: serial}); err != nil {
		cp := new(T)
		*cp = *e
		r.rt.eventualFailed(r.lookups[i].Name(), cp, err)
	}
}

func (r *Repo[T]) uniqueErr(i int, e, holder *T, pending bool) error {
	lt := r.lookups[i]
	var v any = redacted
	if !lt.IndexColumn().IsSensitive() {
		p, _ := lt.IndexColumn().Pointer(e)
		v = derefAny(p)
	}
	return &kerrors.UniqueError{Table: r.ts.Name(), Lookup: lt.Name(), Value: v, Holder: r.redactedKey(holder), Pending: pending}
}

// FindAll returns one page of the entities whose lookup column has value
// v, each read by its full key and checked to still hold v (a non-unique
// lookup has a row per holder; a unique one has at most one). Options:
// PageSize (lookup rows per page, default 100), After, SkipDeleted (which
// leaves soft-deleted holders out of the page), Consistency. The page may hold fewer entities than rows, since stale rows
// are skipped.
func (l *Lookup[T, V]) FindAll(ctx context.Context, v V, opts ...ListOption) *Iter[T] {
	const op = "FindAll"
	r := l.repo
	c := applyCall(opts)
	cons, _, err := r.enter(ctx, entry{op: op, kind: reads, takes: takesColumns}, &c)
	if err != nil {
		return &Iter[T]{err: err}
	}
	defer r.rt.leave()
	return l.findAllIn(ctx, op, v, c, cons)
}

// findAllIn is FindAll inside a call that entered.
func (l *Lookup[T, V]) findAllIn(ctx context.Context, op string, v V, c call, cons kandra.Consistency) *Iter[T] {
	r := l.repo
	it := &Iter[T]{}
	if it.err = r.checkRange(op, &c); it.err != nil {
		return it
	}
	if c.lowerCol != nil || c.upperCol != nil || c.lowerTuple != nil || c.upperTuple != nil || c.reversed || len(c.prefix) > 0 {
		it.err = r.argErr(op, "Equal, From, To, Reversed", "a lookup is read in its own order, unbounded")
		return it
	}
	if !c.hasPageSize {
		c.pageSize = defaultPageSize
	}
	col := r.lookups[l.idx].IndexColumn()
	col.StoredForm(&v)
	if err := col.CheckValue(&v); err != nil {
		it.err = err
		return it
	}
	if r.emptyAt(l.idx, &v) {
		return it
	}
	st := r.st.Lookup(l.idx).Select()
	// The fingerprint only when a cursor is given or made: hashing the
	// value's text costs more than the rest of a Find.
	var fp uint64
	if !c.cursor.IsZero() {
		fp = l.fingerprint(st, v)
	}
	if !c.cursor.IsZero() && !r.rt.resume(&c.cursor, fp) {
		it.err = r.argErr(op, "After", refusedCursor(c.cursor, "the cursor was made by another query (another lookup or value); a cursor resumes only the FindAll that returned it"))
		return it
	}
	sc := getScratch[option](nil)
	defer sc.release()
	keys, state, err := l.keysPage(ctx, op, v, &c, cons, sc, nil)
	if err != nil {
		it.err = err
		return it
	}
	if c.hasColumns {
		// The holder's value is read to tell a stale lookup row.
		c.columns = append(slices.Clone(c.columns), r.lookups[l.idx].IndexColumn())
		c.colSet = nil // another set than the option's: not its cache entry
	}
	for _, k := range keys {
		e, err := l.holder(ctx, sc, &c, k, &v, cons)
		if err != nil {
			it.err = err
			return it
		}
		if e != nil {
			it.rows = append(it.rows, e)
		}
	}
	if len(state) > 0 {
		if fp == 0 {
			fp = l.fingerprint(st, v)
		}
		it.cursor = r.rt.cursor(state, fp)
	}
	return it
}

// keysPage reads one page of lookup l's rows of v (c.pageSize of them,
// from c's cursor) and returns the keys they point to, appended to keys,
// with the page state of the next page. Its query is in sc.
func (l *Lookup[T, V]) keysPage(ctx context.Context, op string, v V, c *call, cons kandra.Consistency, sc *scratch, keys []*T) ([]*T, []byte, error) {
	r := l.repo
	st := r.st.Lookup(l.idx).Select()
	probe := new(T) // the first key, too: its key columns are scanned into it
	l.f.Set(probe, v)
	q := sc.query(st)
	q.Values = catalog.AppendColumns(r.t, st, probe, sc.values(st.NumParams()))
	q.Consistency, q.PageSize, q.PageState = cons, c.pageSize, c.cursor.state
	octx, w := r.rt.observe(ctx, st.TableName(), kandra.OpFind, kandra.SingleStatement, st.CQL(), 1, cons, false)
	rows, err := r.rt.d.Query(octx, q)
	if err != nil {
		r.rt.observed(octx, w, st.TableName(), kandra.OpFind, 0, err)
		return keys, nil, queryErr(op+" on "+st.TableName()+" failed", err)
	}
	dst := sc.values(st.NumResult())
	n := len(keys)
	k := probe
	for rows.Next(catalog.AppendResult(r.t, st, k, dst[:0])) {
		keys = append(keys, k)
		k = r.spare() // the next row's, given back after the last: a Find's page has mostly one row
	}
	state := rows.PageState() // before Close, which may give the rows back to the adapter
	err = rows.Close()
	if k != probe {
		r.unspare(k) // after Close: the rows held its fields as scan targets
	}
	r.rt.observed(octx, w, st.TableName(), kandra.OpFind, len(keys)-n, err)
	if err != nil {
		return keys, nil, queryErr(op+" on "+st.TableName()+" failed", err)
	}
	return keys, state, nil
}

// holder reads the entity of key k (a lookup row's, given up: the entity
// may be read into it) with c's options and returns it if it still holds
// *v (and is live, with SkipDeleted), or nil: a lookup row can outlive its
// value's move, or its entity.
func (l *Lookup[T, V]) holder(ctx context.Context, sc *scratch, c *call, k *T, v *V, cons kandra.Consistency) (*T, error) {
	r := l.repo
	e, err := r.getIn(ctx, kandra.OpFind, sc, c, k, cons, true)
	if errors.Is(err, kerrors.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !r.lookups[l.idx].IndexColumn().SameStored(l.f.Pointer(e), v) {
		return nil, nil
	}
	return e, nil
}

// firstHolder is a page of Find's search for a non-unique value *v (by
// address: v is on the heap already, and a copy would be too): the
// first entity among one page of v's lookup rows that still holds v
// (and is live, with SkipDeleted), or nil, with the cursor of the next
// page (zero at the end). sc is Find's: its call, and room for the
// queries of every page.
func (l *Lookup[T, V]) firstHolder(ctx context.Context, op string, v *V, sc *scratch, cons kandra.Consistency) (*T, Cursor, error) {
	r := l.repo
	c := &sc.c
	var buf [findPage]*T
	keys, state, err := l.keysPage(ctx, op, *v, c, cons, sc, buf[:0])
	if err != nil {
		return nil, Cursor{}, err
	}
	for _, k := range keys {
		if e, err := l.holder(ctx, sc, c, k, v, cons); err != nil || e != nil {
			return e, Cursor{}, err
		}
	}
	if len(state) == 0 {
		return nil, Cursor{}, nil
	}
	return nil, Cursor{state: append([]byte(nil), state...), query: l.fingerprint(r.st.Lookup(l.idx).Select(), *v)}, nil
}
