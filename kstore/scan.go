package kstore

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"sync/atomic"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
	"github.com/kandra-go/kandra/internal/tokenscan"
	"github.com/kandra-go/kandra/kerrors"
)

// The whole-table read: every row of a table, by token ranges, on the
// engine the migrator's backfill runs on (internal/tokenscan).

// Scan defaults and bounds.
const (
	// DefaultScanConcurrency is the ranges a Scan reads at once by default.
	DefaultScanConcurrency = 4
	// MaxScanConcurrency is the most ranges a Scan reads at once.
	MaxScanConcurrency = 256
	// DefaultScanPageSize is the rows of one page of a Scan by default.
	DefaultScanPageSize = 1000
	// maxScanRanges bounds Ranges: a position holds each range.
	maxScanRanges = 1 << 20
)

// ScanTuning is the option Concurrency, Ranges, ResumeFrom and OnProgress
// return: a Scan's own.
type ScanTuning struct {
	kind uint8
	n    int
	pos  ScanPosition
	fn   func(ScanProgress)
}

const (
	tuneConcurrency uint8 = iota + 1
	tuneRanges
	tuneResume
	tuneProgress
)

// scanTuning is what the ScanTunings of a call set.
type scanTuning struct {
	conc, ranges int
	hasConc      bool
	hasRanges    bool
	from         *ScanPosition
	progress     func(ScanProgress)
}

func (o ScanTuning) apply(c *call) {
	if c.scan == nil {
		c.scan = &scanTuning{}
	}
	switch o.kind {
	case tuneConcurrency:
		c.scan.conc, c.scan.hasConc = o.n, true
	case tuneRanges:
		c.scan.ranges, c.scan.hasRanges = o.n, true
	case tuneResume:
		c.scan.from = &o.pos
	case tuneProgress:
		c.scan.progress = o.fn
	}
}
func (ScanTuning) scanOption() {}

// Concurrency sets how many token ranges a Scan reads at once: 1 to
// MaxScanConcurrency, DefaultScanConcurrency when not given. Each is one
// query in flight on the cluster.
func Concurrency(n int) ScanTuning { return ScanTuning{kind: tuneConcurrency, n: n} }

// Ranges cuts the token ring into n even ranges (at least 1), instead of
// where the live ring is cut (each node's vnode tokens, or ScyllaDB's
// tablets of the table), which a Scan does by default, into at least 4 ×
// Concurrency ranges.
func Ranges(n int) ScanTuning { return ScanTuning{kind: tuneRanges, n: n} }

// ResumeFrom resumes the Scan that returned p (ScanResult.Position, or
// ScanProgress.Position saved by OnProgress, through its String and
// ParseScanPosition): the ranges it finished are skipped and the others
// resume at the page they stood at. A position of another scan (another
// table, or other Columns) is a *kerrors.ArgumentError.
func ResumeFrom(p ScanPosition) ScanTuning { return ScanTuning{kind: tuneResume, pos: p} }

// OnProgress calls fn after each page a Scan reads, one call at a time,
// with where the scan stands: save its Position to resume after a crash.
func OnProgress(fn func(ScanProgress)) ScanTuning { return ScanTuning{kind: tuneProgress, fn: fn} }

// ScanProgress is where a Scan stands.
type ScanProgress struct {
	// Table is the table scanned.
	Table string
	// Rows is the rows read so far in this run (soft-deleted ones too).
	Rows int64
	// RangesDone of Ranges are finished, including those an earlier run
	// finished.
	RangesDone, Ranges int
	// Elapsed is the time since this run started; Remaining estimates the
	// time left at the rate of the ranges finished in this run (0 until
	// one is).
	Elapsed, Remaining time.Duration
	// RowsPerSecond is Rows over Elapsed.
	RowsPerSecond float64
	// Position resumes the scan from here (ResumeFrom): every row before
	// it has been handed to the callback.
	Position ScanPosition
}

// String renders "todos: 5000 rows, 3/16 ranges, 2500 rows/s, 4s left".
func (p ScanProgress) String() string {
	s := fmt.Sprintf("%s: %d rows, %d/%d ranges, %.0f rows/s", p.Table, p.Rows, p.RangesDone, p.Ranges, p.RowsPerSecond)
	if p.Remaining > 0 {
		s += ", " + p.Remaining.Round(time.Second).String() + " left"
	}
	return s
}

// ScanResult is what a Scan read.
type ScanResult struct {
	// Rows is the rows handed to the callback in this run.
	Rows int64
	// Ranges is the token ranges of the scan; Ring says where their cut
	// came from: "vnodes", "tablets", "even" (Ranges, or a ring that
	// could not be read), or "resumed" (the position's).
	Ranges int
	Ring   string
	// Resumed reports a run that ResumeFrom started.
	Resumed bool
	// Position is where the scan stopped: Done after a whole scan, else
	// what ResumeFrom resumes.
	Position ScanPosition
}

// ScanPosition is where a Scan stands: each token range of its cut, done
// or at the paging state of its next page. It is opaque; String encodes
// it for a file or a table, ParseScanPosition reads it back. A position
// of a table whose partition key has a Sensitive column is sealed with
// the store's cursor key, as a Cursor is (WithCursorKey).
type ScanPosition struct {
	query  uint64
	pieces []tokenscan.Piece // states sealed when query says so
}

// IsZero reports the zero ScanPosition, which no Scan returns.
func (p ScanPosition) IsZero() bool { return len(p.pieces) == 0 }

// Done reports a position every range of which is read.
func (p ScanPosition) Done() bool {
	for _, x := range p.pieces {
		if !x.Done {
			return false
		}
	}
	return len(p.pieces) > 0
}

const positionVersion = 1

// String encodes the position ("" for the zero ScanPosition).
func (p ScanPosition) String() string {
	if p.IsZero() {
		return ""
	}
	b := binary.BigEndian.AppendUint64([]byte{positionVersion}, p.query)
	b = binary.AppendUvarint(b, uint64(len(p.pieces)))
	for _, x := range p.pieces {
		b = binary.AppendVarint(b, x.Start)
		b = binary.AppendVarint(b, x.End)
		if x.Done {
			b = append(b, 1)
			continue
		}
		b = append(b, 0)
		b = binary.AppendUvarint(b, uint64(len(x.State)))
		b = append(b, x.State...)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// ParseScanPosition decodes a ScanPosition.String; a string no
// ScanPosition.String made is a *kerrors.ArgumentError.
func ParseScanPosition(s string) (ScanPosition, error) {
	bad := func(why string) (ScanPosition, error) {
		return ScanPosition{}, &kerrors.ArgumentError{Op: "ParseScanPosition", Arg: "s", Message: "not a scan position: " + why}
	}
	if s == "" {
		return ScanPosition{}, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return bad(err.Error())
	}
	if len(b) < 9 || b[0] != positionVersion {
		return bad("unknown version or too short")
	}
	p := ScanPosition{query: binary.BigEndian.Uint64(b[1:9])}
	b = b[9:]
	n, k := binary.Uvarint(b)
	if k <= 0 || n == 0 || n > uint64(len(b)) {
		return bad("no ranges")
	}
	b = b[k:]
	for range n {
		var x tokenscan.Piece
		var k1, k2 int
		x.Start, k1 = binary.Varint(b)
		if k1 <= 0 {
			return bad("cut short")
		}
		x.End, k2 = binary.Varint(b[k1:])
		if k2 <= 0 || len(b) < k1+k2+1 || x.End <= x.Start {
			return bad("cut short, or an empty range")
		}
		b = b[k1+k2:]
		x.Done, b = b[0] == 1, b[1:]
		if !x.Done {
			l, k := binary.Uvarint(b)
			if k <= 0 || l > uint64(len(b)-k) {
				return bad("cut short")
			}
			if l > 0 {
				x.State = bytes.Clone(b[k : k+int(l)])
			}
			b = b[k+int(l):]
		}
		p.pieces = append(p.pieces, x)
	}
	if len(b) != 0 {
		return bad("trailing bytes")
	}
	return p, nil
}

// Scan reads every row of the table, by token ranges, and hands each to
// each: Concurrency ranges at once (each range's rows in the server's
// order, by token), PageSize rows a page (DefaultScanPageSize when not
// given). Options: Concurrency, Ranges, PageSize, ResumeFrom, OnProgress,
// Columns, SkipDeleted, Consistency (the table's read consistency when
// not given).
//
// each is called from up to Concurrency goroutines at once and must be
// safe for that. With Concurrency(1) the ranges are read one after
// another in the ring's order, so the rows come in token order, as a
// SELECT of the whole table returns them. An error from each stops the scan and is returned as
// it is; so is the end of ctx, as a *kerrors.QueryError matching its
// error. Either way ScanResult.Position is where it stopped: the rows of
// a page are handed on before the page counts as read, so a resumed scan
// hands on again the rows of the pages in flight when it stopped (at
// least once, never skipped).
//
// A scan reads every replica set once; it is what a nightly job or an
// export does. A store's Close waits for a scan in progress: cancel its
// context first.
func (r *Repo[T]) Scan(ctx context.Context, each func(e *T) error, opts ...ScanOption) (ScanResult, error) {
	const op = "Scan"
	c := applyCall(opts)
	cons, _, err := r.enter(ctx, entry{op: op, kind: reads, takes: takesColumns}, &c)
	if err != nil {
		return ScanResult{}, err
	}
	defer r.rt.leave()
	if each == nil {
		return ScanResult{}, r.argErr(op, "each", "nil: give the function each row is handed to")
	}
	return r.scan(ctx, op, cons, &c, func(_ context.Context, e *T) error { return each(e) })
}

// ScanAll is Scan as one stream: the rows of every range, in no order
// across ranges, on the caller's goroutine. Breaking out of the loop
// stops the scan; an error ends the stream as its last pair. It takes
// Scan's options; resume with Scan, whose position counts only the rows
// handed on.
func (r *Repo[T]) ScanAll(ctx context.Context, opts ...ScanOption) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		rows := make(chan *T, 64)
		errc := make(chan error, 1)
		go func() {
			defer close(rows)
			_, err := r.Scan(ctx, func(e *T) error {
				select {
				case rows <- e:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			}, opts...)
			errc <- err
		}()
		for e := range rows {
			if !yield(e, nil) {
				cancel()
				for range rows {
				}
				<-errc
				return
			}
		}
		if err := <-errc; err != nil {
			yield(nil, err)
		}
	}
}

// scan runs a Scan past enter.
func (r *Repo[T]) scan(ctx context.Context, op string, cons kandra.Consistency, c *call, each func(context.Context, *T) error) (ScanResult, error) {
	t, err := r.checkScan(op, c)
	if err != nil {
		return ScanResult{}, err
	}
	st, err := r.project(op, r.st.TokenRange(), c)
	if err != nil {
		return ScanResult{}, err
	}
	fp := r.newPrint(st.CQL()).sum(r.rt)
	pieces, res, err := r.scanPieces(ctx, op, fp, t)
	if err != nil {
		return res, err
	}
	done := 0
	for _, p := range pieces {
		if p.Done {
			done++
		}
	}
	meter := tokenscan.NewMeter(len(pieces), done)
	var handed atomic.Int64
	err = tokenscan.Run(ctx, pieces, t.conc, func(ctx context.Context, rg tokenscan.Range, state []byte) ([]byte, int64, error) {
		return r.scanPage(ctx, st, rg, state, cons, c, each, &handed)
	}, func(_ int, p tokenscan.Piece, rows int64) {
		meter.Add(rows, p.Done)
		if t.progress != nil {
			m := meter.Read()
			t.progress(ScanProgress{Table: r.ts.Name(), Rows: m.Rows, RangesDone: m.RangesDone, Ranges: m.Ranges, Elapsed: m.Elapsed,
				Remaining: m.Remaining, RowsPerSecond: m.RowsPerSecond, Position: r.position(fp, pieces)})
		}
	})
	res.Rows, res.Position = handed.Load(), r.position(fp, pieces)
	var qe *kerrors.QueryError
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		if !errors.As(err, &qe) {
			err = queryErr(op+" on "+r.ts.Name()+" stopped: context done (resume it with ResumeFrom(result.Position))", err)
		}
	}
	return res, err
}

// checkScan checks a Scan's options and fills in their defaults.
func (r *Repo[T]) checkScan(op string, c *call) (scanTuning, error) {
	var t scanTuning
	if c.scan != nil {
		t = *c.scan
	}
	if c.hasCursor || len(c.prefix) > 0 || c.lowerCol != nil || c.upperCol != nil || c.lowerTuple != nil || c.upperTuple != nil || c.reversed {
		return t, r.argErr(op, "options", "a Scan reads every row by token ranges: After, Equal, From, To and Reversed belong to List; resume a Scan with ResumeFrom")
	}
	if c.hasPageSize && (c.pageSize < 1 || c.pageSize > MaxPageSize) {
		return t, r.argErr(op, "PageSize", fmt.Sprintf("%d is not in 1 to %d", c.pageSize, MaxPageSize))
	}
	if !c.hasPageSize {
		c.pageSize = DefaultScanPageSize
	}
	if t.hasConc && (t.conc < 1 || t.conc > MaxScanConcurrency) {
		return t, r.argErr(op, "Concurrency", fmt.Sprintf("%d is not in 1 to %d", t.conc, MaxScanConcurrency))
	}
	if t.conc == 0 {
		t.conc = DefaultScanConcurrency
	}
	if t.ranges < 0 || t.ranges > maxScanRanges || t.ranges == 0 && c.scan != nil && c.scan.hasRanges {
		return t, r.argErr(op, "Ranges", fmt.Sprintf("%d is not in 1 to %d", t.ranges, maxScanRanges))
	}
	if t.from != nil && t.ranges > 0 {
		return t, r.argErr(op, "Ranges", "a resumed scan keeps the ranges of its position; leave Ranges out with ResumeFrom")
	}
	return t, nil
}

// scanPieces are the ranges of a scan: the position's, or a cut of the
// live ring.
func (r *Repo[T]) scanPieces(ctx context.Context, op string, fp uint64, t scanTuning) ([]tokenscan.Piece, ScanResult, error) {
	var res ScanResult
	if t.from == nil {
		rs, ring := tokenscan.Plan(ctx, r.rt.d, r.st.Keyspace(), r.ts.Name(), t.ranges, 4*t.conc)
		res.Ranges, res.Ring = len(rs), string(ring)
		return tokenscan.Pieces(rs), res, nil
	}
	p := *t.from
	if p.IsZero() || p.query != fp {
		return nil, res, r.argErr(op, "ResumeFrom", "the position was made by another scan (another table, or other Columns); a position resumes only the Scan that returned it")
	}
	pieces := make([]tokenscan.Piece, len(p.pieces))
	for i, x := range p.pieces {
		if !x.Done && len(x.State) > 0 {
			c := Cursor{state: x.State, query: fp}
			if !r.rt.resume(&c, fp) {
				return nil, res, r.argErr(op, "ResumeFrom", refusedCursor(c, "the position was sealed with another cursor key"))
			}
			x.State = c.state
		}
		pieces[i] = x
	}
	res.Ranges, res.Ring, res.Resumed = len(pieces), "resumed", true
	return pieces, res, nil
}

// position is where pieces stand, their states sealed when fp says so.
func (r *Repo[T]) position(fp uint64, pieces []tokenscan.Piece) ScanPosition {
	p := ScanPosition{query: fp, pieces: make([]tokenscan.Piece, len(pieces))}
	for i, x := range pieces {
		if !x.Done && len(x.State) > 0 {
			x.State = r.rt.cursor(x.State, fp).state
		}
		p.pieces[i] = x
	}
	return p
}

// scanPage reads one page of range rg from state and hands its live rows
// to each: a tokenscan.PageFunc. It returns the rows read (soft-deleted
// ones too) and the next page's state.
func (r *Repo[T]) scanPage(ctx context.Context, st *adapter.Statement, rg tokenscan.Range, state []byte, cons kandra.Consistency, c *call,
	each func(context.Context, *T) error, handed *atomic.Int64) ([]byte, int64, error) {
	table := r.ts.Name()
	q := &adapter.Query{Statement: st, Values: []any{rg.Start, rg.End}, Consistency: cons, PageSize: c.pageSize, PageState: state}
	octx, w := r.rt.observe(ctx, table, kandra.OpScan, kandra.SingleStatement, st.CQL(), 1, cons, false)
	rows, err := r.rt.d.Query(octx, q)
	if err != nil {
		r.rt.observed(octx, w, table, kandra.OpScan, 0, err)
		return nil, 0, queryErr("scan of "+table+" failed ("+st.CQL()+")", err)
	}
	dst := make([]any, 0, st.NumResult()+1)
	var present adapter.Present
	var read int64
	var eachErr error
	for {
		e := new(T)
		dst = catalog.AppendResult(r.t, st, e, dst[:0])
		if st.HasPresence() {
			dst = append(dst, &present)
		}
		if !rows.Next(dst) {
			break
		}
		if st.HasPresence() && !bool(present) {
			continue // the static values of a partition without rows
		}
		read++
		if c.skipDeleted && r.deleted(e) {
			continue
		}
		if eachErr = each(ctx, e); eachErr != nil {
			break
		}
		handed.Add(1)
	}
	next := bytes.Clone(rows.PageState())
	err = rows.Close()
	r.rt.observed(octx, w, table, kandra.OpScan, int(read), err)
	if eachErr != nil {
		return nil, read, eachErr
	}
	if err != nil {
		return nil, read, queryErr("scan of "+table+" failed ("+st.CQL()+")", err)
	}
	return next, read, nil
}
