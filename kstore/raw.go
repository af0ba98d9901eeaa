package kstore

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
	"github.com/kandra-go/kandra/internal/cqlstmt"
	"github.com/kandra-go/kandra/kerrors"
)

// Raw is a CQL statement written by hand against a repository's table:
// the query the typed calls do not express (an IN list, a token range, a
// read of some columns), bound and scanned through the adapter's codec like
// the store's own statements, so that a uuid.UUID, a time.Time or a set
// goes over the wire exactly as Save writes it. Make one with Prepare,
// once, and run it many times; it is safe for concurrent use.
type Raw[T any] struct {
	r      *Repo[T]
	st     *adapter.Statement
	params []RawParam
	op     string
}

// RawParam says what a bind marker (?) of a Raw statement takes: a value
// of a column's Go type (Arg), or a plain value the driver binds as it is
// (Plain: a LIMIT, a TTL, a token).
type RawParam struct{ col *kandra.ColumnSchema }

// Arg is a marker bound with a value of field f's Go type (a V or a *V),
// converted for f's column as the store converts it.
func Arg[T, V any](f kandra.Field[T, V]) RawParam { return RawParam{f.Column()} }

// Plain is a marker bound with a value the driver marshals as it is: an
// int for LIMIT ? or USING TTL ?, an int64 for a token or a timestamp.
func Plain() RawParam { return RawParam{} }

// Prepare checks a hand-written statement against r's table and returns
// it ready to run: a SELECT, INSERT, UPDATE or DELETE of r's table (named
// with or without the keyspace), with one RawParam per positional marker
// (?). A SELECT's columns must be columns of the table, by name (quoted
// where the table's DDL quotes them), or *, which Prepare replaces with
// every column in the table's order: each row is scanned into a T, the
// columns not selected left zero. Anything else (a function, an alias,
// JSON, named markers, another table) is a *kerrors.ArgumentError that says
// what to write instead. Prepare sends nothing.
func Prepare[T any](r *Repo[T], cql string, params ...RawParam) (*Raw[T], error) {
	if r == nil {
		panic("kandra/kstore: Prepare: nil Repo")
	}
	const op = "Prepare"
	toks, err := cqlstmt.Tokens(cql)
	if err != nil {
		return nil, r.argErr(op, "cql", err.Error())
	}
	if n := len(toks); n > 0 && toks[n-1].Kind == cqlstmt.Symbol && toks[n-1].Text == ";" {
		cql = strings.TrimRight(cql[:toks[n-1].Pos], " \t\r\n")
		toks = toks[:n-1]
	}
	if len(toks) == 0 {
		return nil, r.argErr(op, "cql", "the statement is empty")
	}
	markers := 0
	for _, t := range toks {
		switch t.Kind {
		case cqlstmt.Named:
			return nil, r.argErr(op, "cql", "named marker "+t.Text+": use positional markers (?), one RawParam each")
		case cqlstmt.Marker:
			markers++
		}
	}
	if markers != len(params) {
		return nil, r.argErr(op, "params", fmt.Sprintf("the statement has %d markers (?) and %d RawParams; give one per marker, in order", markers, len(params)))
	}
	for i, p := range params {
		if p.col != nil && p.col.Table() != r.ts {
			return nil, r.argErr(op, "params["+strconv.Itoa(i)+"]", "field "+p.col.GoName()+" is not a field of "+r.ts.Name())
		}
	}
	q := &Raw[T]{r: r, params: params}
	var result []*kandra.ColumnSchema
	text := cql
	first := toks[0]
	switch {
	case first.Is("SELECT"):
		q.op = kandra.OpGet
		result, text, err = r.selectList(toks, cql)
	case first.Is("INSERT"), first.Is("UPDATE"), first.Is("DELETE"):
		q.op = kandra.OpUpdate
		text, err = r.rawTarget(toks, cql)
	default:
		err = r.argErr(op, "cql", "a Raw statement is a SELECT, INSERT, UPDATE or DELETE; run schema changes through the migrator")
	}
	if err != nil {
		return nil, err
	}
	ps := make([]adapter.Param, len(params))
	for i, p := range params {
		ps[i] = adapter.Param{Kind: adapter.ParamRaw, Column: p.col}
	}
	q.st = catalog.Raw(r.ts, text, ps, result)
	return q, nil
}

// MustPrepare is Prepare that panics on error, for statements fixed in the
// program's source.
func MustPrepare[T any](r *Repo[T], cql string, params ...RawParam) *Raw[T] {
	q, err := Prepare(r, cql, params...)
	if err != nil {
		panic(err)
	}
	return q
}

// CQL is the statement as it is sent (a * replaced with the columns).
func (q *Raw[T]) CQL() string { return q.st.CQL() }

// selectList resolves the columns of a SELECT and returns the statement's
// text with * replaced.
func (r *Repo[T]) selectList(toks []cqlstmt.Token, cql string) ([]*kandra.ColumnSchema, string, error) {
	const op = "Prepare"
	i := 1
	if i < len(toks) && toks[i].Is("JSON") {
		return nil, "", r.argErr(op, "cql", "SELECT JSON returns one text column; select the columns instead, and Raw scans them into the entity")
	}
	if i < len(toks) && toks[i].Is("DISTINCT") {
		i++
	}
	var result []*kandra.ColumnSchema
	var star *cqlstmt.Token
	for ; i < len(toks) && !toks[i].Is("FROM"); i++ {
		t := toks[i]
		switch {
		case t.Text == "*" && t.Kind == cqlstmt.Symbol && len(result) == 0:
			result, star = r.ts.Columns(), &toks[i]
			if i+1 < len(toks) && !toks[i+1].Is("FROM") {
				return nil, "", r.argErr(op, "cql", "select * alone, or a list of columns")
			}
		case t.Kind == cqlstmt.Word || t.Kind == cqlstmt.Quoted:
			c := r.ts.ColumnByName(t.Ident())
			if c == nil || i+1 < len(toks) && toks[i+1].Text == "(" {
				return nil, "", r.argErr(op, "cql", "selects "+strconv.Quote(cql[t.Pos:t.End])+", which is not a column of "+r.ts.Name()+": a Raw SELECT names columns (quoted as the table's DDL quotes them) so that each row scans into the entity; compute functions in Go, or run them through the driver")
			}
			result = append(result, c)
			switch {
			case i+1 < len(toks) && toks[i+1].Text == ",":
				i++ // the comma
			case i+1 < len(toks) && !toks[i+1].Is("FROM"):
				return nil, "", r.argErr(op, "cql", "column "+c.Name()+" is followed by "+strconv.Quote(toks[i+1].Text)+": a Raw SELECT names columns without aliases or expressions")
			}
		default:
			return nil, "", r.argErr(op, "cql", "unexpected "+strconv.Quote(t.Text)+" in the column list")
		}
	}
	if i >= len(toks) || len(result) == 0 {
		return nil, "", r.argErr(op, "cql", "a SELECT needs a column list and FROM "+r.ts.Name())
	}
	text, err := r.rawTable(toks[i+1:], cql)
	if err != nil {
		return nil, "", err
	}
	if star != nil { // before the table name: its offset holds
		names := make([]string, len(result))
		for j, c := range result {
			names[j] = c.CQLName()
		}
		text = text[:star.Pos] + strings.Join(names, ", ") + text[star.End:]
	}
	return result, text, nil
}

// rawTarget checks that an INSERT, UPDATE or DELETE writes r's table, and
// returns cql with the table qualified.
func (r *Repo[T]) rawTarget(toks []cqlstmt.Token, cql string) (string, error) {
	if toks[0].Is("UPDATE") {
		return r.rawTable(toks[1:], cql)
	}
	for i, t := range toks {
		if t.Is("INTO") || t.Is("FROM") {
			return r.rawTable(toks[i+1:], cql)
		}
	}
	return "", r.argErr("Prepare", "cql", "the statement names no table")
}

// rawTable checks that toks start with r's table, qualified or not, and
// returns cql with the store's keyspace before an unqualified name, as the
// store qualifies its own statements.
func (r *Repo[T]) rawTable(toks []cqlstmt.Token, cql string) (string, error) {
	name := ""
	if len(toks) > 0 {
		name = toks[0].Ident()
	}
	qualified := len(toks) > 2 && toks[1].Text == "."
	if qualified {
		if name != r.rt.keyspace {
			return "", r.argErr("Prepare", "cql", "names keyspace "+strconv.Quote(name)+"; a Raw statement reads or writes its repository's table, "+r.rt.keyspace+"."+r.ts.Name())
		}
		name = toks[2].Ident()
	}
	if name != r.ts.Name() {
		return "", r.argErr("Prepare", "cql", "names table "+strconv.Quote(name)+"; a Raw statement reads or writes its repository's table, "+r.ts.Name()+" (prepare it on the other table's repository)")
	}
	if qualified {
		return cql, nil
	}
	return cql[:toks[0].Pos] + kandra.QuoteIdent(r.rt.keyspace) + "." + cql[toks[0].Pos:], nil
}

// bind checks args against the statement's RawParams and returns the
// values to send.
func (q *Raw[T]) bind(op string, args []any) ([]any, error) {
	if len(args) != len(q.params) {
		return nil, q.r.argErr(op, "args", fmt.Sprintf("%d values for %d markers", len(args), len(q.params)))
	}
	for i, p := range q.params {
		if p.col == nil {
			continue
		}
		t := reflect.TypeOf(args[i])
		if t != p.col.GoType() && (t == nil || t.Kind() != reflect.Pointer || t.Elem() != p.col.GoType()) {
			return nil, q.r.argErr(op, "args["+strconv.Itoa(i)+"]", fmt.Sprintf("a %v for column %s, which takes a %v (or a pointer to one)", t, p.col.Name(), p.col.GoType()))
		}
	}
	out := make([]any, len(args))
	for i, a := range args {
		if v := reflect.ValueOf(a); a != nil && v.Kind() == reflect.Pointer && v.IsNil() {
			continue // a nil pointer binds null
		}
		out[i] = a
	}
	return out, nil
}

// fingerprint identifies a query by its text and values, as a cursor
// carries it (see Repo.fingerprint): a field's value in its stored form,
// whether given as a value or a pointer; a Sensitive one seals the
// cursor.
func (q *Raw[T]) fingerprint(vals []any) uint64 {
	fp := q.r.newPrint(q.st.CQL())
	for i, v := range vals {
		c := q.params[i].col
		if rv := reflect.ValueOf(v); c != nil && v != nil && rv.Kind() != reflect.Pointer {
			v = ptrTo(v)
		}
		fp.add(c, v)
	}
	return fp.sum(q.r.rt)
}

// Query runs a SELECT with args, one per marker, and returns one page of
// rows scanned into new entities (the columns not selected zero), with
// the cursor of the next page. Options: PageSize (default 100), After,
// Consistency; the range options are the typed List's. A write statement
// is a *kerrors.ArgumentError (use Exec).
func (q *Raw[T]) Query(ctx context.Context, args []any, opts ...ListOption) *Iter[T] {
	const op = "Raw.Query"
	r := q.r
	it := &Iter[T]{}
	c := applyCall(opts)
	cons, _, err := r.enter(ctx, entry{op: op, kind: reads}, &c)
	if err != nil {
		it.err = err
		return it
	}
	defer r.rt.leave()
	if q.st.NumResult() == 0 {
		it.err = r.argErr(op, "cql", "the statement is a write; run it with Exec")
		return it
	}
	if c.lowerCol != nil || c.upperCol != nil || c.lowerTuple != nil || c.upperTuple != nil || c.reversed || len(c.prefix) > 0 {
		it.err = r.argErr(op, "Equal, From, To, Reversed", "a Raw statement says its own WHERE and ORDER BY")
		return it
	}
	if c.skipDeleted {
		it.err = r.argErr(op, "SkipDeleted", "a Raw statement selects what it says; filter the soft-deleted rows in its WHERE (through an index) or in the loop")
		return it
	}
	if it.err = r.checkRange(op, &c); it.err != nil {
		return it
	}
	if !c.hasPageSize {
		c.pageSize = defaultPageSize
	}
	vals, err := q.bind(op, args)
	if err != nil {
		it.err = err
		return it
	}
	fp := q.fingerprint(vals)
	if !c.cursor.IsZero() && !r.rt.resume(&c.cursor, fp) {
		it.err = r.argErr(op, "After", refusedCursor(c.cursor, "the cursor was made by another query; a cursor resumes only the query that returned it"))
		return it
	}
	query := &adapter.Query{Statement: q.st, Values: vals, Consistency: cons, PageSize: c.pageSize, PageState: c.cursor.state}
	octx, w := r.rt.observe(ctx, r.ts.Name(), q.op, kandra.SingleStatement, q.st.CQL(), 1, cons, false)
	rows, err := r.rt.d.Query(octx, query)
	if err != nil {
		r.rt.observed(octx, w, r.ts.Name(), q.op, 0, err)
		it.err = queryErr(op+" on "+r.ts.Name()+" failed ("+q.st.CQL()+")", err)
		return it
	}
	dst := make([]any, 0, q.st.NumResult())
	for {
		e := new(T)
		if !rows.Next(catalog.AppendResult(r.t, q.st, e, dst[:0])) {
			break
		}
		it.rows = append(it.rows, e)
	}
	state := rows.PageState()
	err = rows.Close()
	r.rt.observed(octx, w, r.ts.Name(), q.op, len(it.rows), err)
	if err != nil {
		it.err = queryErr(op+" on "+r.ts.Name()+" failed ("+q.st.CQL()+")", err)
		return it
	}
	if len(state) > 0 {
		it.cursor = r.rt.cursor(state, fp)
	}
	return it
}

// Exec runs an INSERT, UPDATE or DELETE with args, one per marker. For a
// conditional statement (IF ...) it reports whether the server applied it;
// otherwise applied is true when err is nil. The store's stamps, lookup
// rows and version checks are not made: the statement is what it says.
// Options: Consistency, SerialConsistency. A SELECT is a
// *kerrors.ArgumentError (use Query).
func (q *Raw[T]) Exec(ctx context.Context, args []any, opts ...DeleteOption) (applied bool, err error) {
	const op = "Raw.Exec"
	r := q.r
	c := applyCall(opts)
	cons, serial, err := r.enter(ctx, entry{op: op, kind: writesAny, serial: q.st.IsConditional()}, &c)
	if err != nil {
		return false, err
	}
	defer r.rt.leave()
	if q.st.NumResult() > 0 {
		return false, r.argErr(op, "cql", "the statement is a SELECT; run it with Query")
	}
	if c.hasTS {
		return false, r.argErr(op, "Timestamp", "write USING TIMESTAMP into the statement, with a Plain marker")
	}
	vals, err := q.bind(op, args)
	if err != nil {
		return false, err
	}
	query := &adapter.Query{Statement: q.st, Values: vals, Consistency: cons}
	if q.st.IsConditional() {
		query.SerialConsistency = serial
	}
	return r.exec(ctx, q.op, query)
}

// MaxGetMany bounds the keys of one GetMany.
const MaxGetMany = 1000

// getManyConcurrency is how many of a GetMany's reads run at once.
const getManyConcurrency = 16

// GetMany reads the rows of keys' primary keys, as Get does for each, and
// returns them aligned with keys: got[i] is the row of keys[i], nil when
// there is none. The reads run concurrently, at most 16 at once: one
// statement per key, each routed to a replica of its own partition, where
// one SELECT ... WHERE key IN (...) makes its coordinator gather every
// partition itself. On the single test node neither was reliably faster
// for 50 keys (interleaved medians within 25% either way, across runs and
// adapters: the conformance suite's line "real-server: multiget"); a Raw statement
// writes the IN query when one round trip matters more. More than
// MaxGetMany keys, or a nil or invalid key, is a *kerrors.ArgumentError
// before anything is sent. Options: Consistency.
func (r *Repo[T]) GetMany(ctx context.Context, keys []*T, opts ...ReadOption) ([]*T, error) {
	const op = "GetMany"
	c := applyCall(opts)
	cons, _, err := r.enter(ctx, entry{op: op, kind: reads, takes: takesColumns}, &c)
	if err != nil {
		return nil, err
	}
	defer r.rt.leave()
	if len(keys) > MaxGetMany {
		return nil, r.argErr(op, "keys", strconv.Itoa(len(keys))+" keys, over MaxGetMany ("+strconv.Itoa(MaxGetMany)+"): read them in smaller groups")
	}
	for i, k := range keys {
		if err := r.checkArg(op, &arg[T]{name: "keys[" + strconv.Itoa(i) + "]", e: k, key: r.key}); err != nil {
			return nil, err
		}
	}
	out := make([]*T, len(keys))
	errs := make([]error, len(keys))
	// The goroutines take the keys in turn: a goroutine per key started
	// one, and grew its stack, for every read.
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(getManyConcurrency, len(keys)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(keys) {
					return
				}
				out[i], errs[i] = r.getOne(ctx, keys[i], opts, cons)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err // the first: the others are most often the same
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, queryErr("GetMany on "+r.ts.Name()+": context done", err)
	}
	return out, nil
}

// getOne is one read of GetMany: the row of key, or nil when there is
// none.
func (r *Repo[T]) getOne(ctx context.Context, key *T, opts []ReadOption, cons kandra.Consistency) (*T, error) {
	sc := getScratch(opts)
	defer sc.release()
	e, err := r.getIn(ctx, kandra.OpGet, sc, &sc.c, key, cons, false)
	if errors.Is(err, kerrors.ErrNotFound) {
		return nil, nil
	}
	return e, err
}
