package adapter

import (
	"errors"
	"reflect"
	"sync"

	"github.com/kandra-go/kandra"
)

// Plans holds the Plan of every statement a driver has run, made on first
// use. The zero value is ready; it is safe for concurrent use.
type Plans[I any, D TypeSystem[I]] struct {
	m sync.Map // *Statement -> *Plan[I, D]
}

// Of is s's plan. It fails for a column whose CQL type the core does not
// know (a tuple, or a user-defined type without its fields).
func (ps *Plans[I, D]) Of(s *Statement) (*Plan[I, D], error) {
	if p, ok := s.Cached(ps).(*Plan[I, D]); ok {
		return p, nil
	}
	if p, ok := ps.m.Load(s); ok {
		s.Cache(ps, p)
		return p.(*Plan[I, D]), nil
	}
	p, err := newPlan[I, D](s)
	if err != nil {
		return nil, err
	}
	v, _ := ps.m.LoadOrStore(s, p)
	s.Cache(ps, v)
	return v.(*Plan[I, D]), nil
}

// Plan is the conversions of one Statement, as Codec plans them
// for a row's columns: per marker and per result column, nil where the
// driver takes the value as it is.
type Plan[I any, D TypeSystem[I]] struct {
	params []*conv
	goType []reflect.Type
	result []*conv
	cols   []*kandra.ColumnSchema // the result columns, for read errors
	scans  bool                   // some result column converts or scans through a reference
	rows   sync.Pool              // *PlanRows[I, D] closed, with their scan targets, for the next page
}

// newPlan plans s. It fails for a column whose CQL type the core does not
// know (a tuple, or a user-defined type without its fields).
func newPlan[I any, D TypeSystem[I]](s *Statement) (*Plan[I, D], error) {
	p := &Plan[I, D]{params: make([]*conv, s.NumParams()), goType: make([]reflect.Type, s.NumParams()), result: make([]*conv, s.NumResult()), cols: make([]*kandra.ColumnSchema, s.NumResult())}
	for i := 0; i < s.NumParams(); i++ {
		c := s.Param(i).Column
		if c == nil {
			continue
		}
		switch k := s.Param(i).Kind; k {
		case ParamField:
			cv, t, err := planField[I, D](c, s.Param(i).Field)
			if err != nil {
				return nil, err
			}
			p.params[i], p.goType[i] = cv, t
			continue
		case ParamKeys:
			cv, t, err := planKeys[I, D](c)
			if err != nil {
				return nil, err
			}
			p.params[i], p.goType[i] = cv, t
			continue
		case ParamElement, ParamMapKey:
			cv, t, err := planPart[I, D](c, k == ParamMapKey)
			if err != nil {
				return nil, err
			}
			p.params[i], p.goType[i] = cv, t
			continue
		}
		cv, err := planColumn[I, D](c)
		if err != nil {
			return nil, err
		}
		p.params[i], p.goType[i] = cv, c.GoType()
	}
	p.scans = s.HasPresence()
	for i := 0; i < s.NumResult(); i++ {
		c := s.Result(i)
		cv, err := planColumn[I, D](c)
		if err != nil {
			return nil, err
		}
		p.result[i], p.cols[i] = cv, c
		if cv != nil {
			p.scans = true
		}
	}
	return p, nil
}

// Values converts vals, the values of a Query or of a batch entry
// of the plan's statement, for the driver: a *V or a V of a converted
// column becomes its wire value; everything else passes through.
//
// The result is always a new slice: the driver's query keeps it, and the
// runtime reuses vals once the call returns. With byRef, the address of a
// plain native type, and of a type the core encodes over the field's
// memory (uuid.UUID, time.Time, ...), becomes a reference that marshals
// the field when the driver runs the statement (see Codec.AppendBindRefs):
// no boxing. Bind by reference only a statement the driver runs before
// the call returns, retries included: neither gocql driver runs one after
// but in a speculative execution, which it starts only for a query given
// a SpeculativeExecutionPolicy of its own (and never for one that is not
// idempotent). Otherwise the address of a common type becomes its value,
// so that marshalling takes the driver's typed cases instead of reflect.
func (p *Plan[I, D]) Values(vals []any, byRef bool) []any {
	return p.appendValues(make([]any, 0, len(vals)), vals, byRef)
}

// Bind is Values into a's list: it appends vals converted and returns
// them, a slice of the list that ends at their last one (so that an append
// to it cannot reach the values a later Bind adds). A driver binds every
// statement of a query or a batch into one Args, and releases it once the
// statement ran (see Args): no list allocated per statement.
func (p *Plan[I, D]) Bind(a *Args, vals []any, byRef bool) []any {
	at := len(a.vals)
	a.vals = p.appendValues(a.vals, vals, byRef)
	return a.vals[at:len(a.vals):len(a.vals)]
}

func (p *Plan[I, D]) appendValues(out, vals []any, byRef bool) []any {
	for i, v := range vals {
		cv := p.params[i]
		_, isUnset := v.(unset) // Unset, by its type: one comparison of a word
		switch {
		case v == nil:
			out = append(out, nil)
			continue
		case isUnset:
			var d D
			out = append(out, d.Unset())
			continue
		case cv == nil:
			out = append(out, bind[I, D](nil, v, byRef))
			continue
		}
		if cv.fast != nil {
			if w, ok := cv.fast(v); ok {
				out = append(out, w)
				continue
			}
		}
		if a, ok := cv.alias(v, byRef); ok {
			out = append(out, aliased[I, D](cv, v, a, byRef))
			continue
		}
		rv := reflect.ValueOf(v)
		if rv.Type() != p.goType[i] && rv.Kind() == reflect.Pointer && rv.Type().Elem() == p.goType[i] {
			rv = rv.Elem()
		}
		out = append(out, cv.toWire(rv).Interface())
	}
	return out
}

// Args is the argument lists of one query or batch a driver runs, taken
// from a pool (NewArgs) and filled by Plan.Bind. The driver hands each
// statement's values to its query, and calls Release once the query ran,
// retries included, and nothing of the driver reads them any more: both
// gocql drivers read a query's values only while it runs, before Exec,
// Iter or ExecuteBatch returns, but in a speculative execution (see
// Plan.Values). The list is reused by the next query, where a list made
// per statement was one allocation of 16 bytes a value.
type Args struct{ vals []any }

var argsPool = sync.Pool{New: func() any { return &Args{vals: make([]any, 0, 16)} }}

// NewArgs is an empty Args from the pool.
func NewArgs() *Args { return argsPool.Get().(*Args) }

// Release clears a's values, so that the pool keeps no entity alive, and
// gives a back to the pool. Neither a's values nor those Bind returned
// may be read after. A nil a is a no-op.
func (a *Args) Release() {
	if a == nil {
		return
	}
	if cap(a.vals) > 1024 {
		return // a rare large batch's list is not kept
	}
	clear(a.vals)
	a.vals = a.vals[:0]
	argsPool.Put(a)
}

// Iter is a driver's page of rows, as Rows reads it: the *Iter of both
// gocql drivers.
type Iter interface {
	Scan(dest ...any) bool
	PageState() []byte
	Close() error
	// NumRows is the number of rows of the page.
	NumRows() int
}

// Page is the Rows of it, a page of the plan's statement as the driver
// fetched it: the page when it has rows or is not the last; else, closed,
// its error (one to make again, see Send) or an empty last page.
func (p *Plan[I, D]) Page(it Iter) (Rows, error) {
	if it.NumRows() > 0 || len(it.PageState()) > 0 {
		return p.Rows(it), nil
	}
	if err := it.Close(); err != nil {
		return nil, err
	}
	return p.Rows(noRows{}), nil
}

// noRows is a page without rows, the last.
type noRows struct{}

func (noRows) Scan(...any) bool  { return false }
func (noRows) PageState() []byte { return nil }
func (noRows) Close() error      { return nil }
func (noRows) NumRows() int      { return 0 }

// Rows returns the rows of it, a page of the plan's statement, as the
// runtime reads them (it implements Rows). They come from the plan's pool
// and go back to it at Close, with their scan targets: a read allocates
// none of them.
func (p *Plan[I, D]) Rows(it Iter) *PlanRows[I, D] {
	r, _ := p.rows.Get().(*PlanRows[I, D])
	if r == nil {
		r = &PlanRows[I, D]{p: p}
	}
	r.it = it
	return r
}

// PlanRows is a page of rows that scans each into the fields the runtime
// gives, through the plan's references, aliases and temporaries.
type PlanRows[I any, D TypeSystem[I]] struct {
	it      Iter
	p       *Plan[I, D]
	targets []any
	tmps    []reflect.Value
	err     error
}

// Next implements Rows.
func (r *PlanRows[I, D]) Next(dst []any) bool {
	if !r.p.scans {
		return r.it.Scan(dst...)
	}
	if len(r.targets) != len(dst) {
		r.targets = make([]any, len(dst))
		r.tmps = make([]reflect.Value, len(dst))
	}
	for i, t := range dst {
		var cv *conv
		if i < len(r.p.result) { // past the columns: the WRITETIME of Statement.HasWriteTime, the Present of HasPresence
			cv = r.p.result[i]
		}
		r.targets[i], r.tmps[i] = scanTarget[I, D](cv, t)
	}
	if !r.it.Scan(r.targets...) {
		return false
	}
	for i, t := range dst {
		if r.tmps[i].IsValid() {
			v, err := r.p.result[i].fromWire(r.tmps[i].Elem())
			if err != nil {
				r.err = r.p.cols[i].ReadError(err)
				return false
			}
			reflect.ValueOf(t).Elem().Set(v)
		}
	}
	return true
}

// PageState implements Rows.
func (r *PlanRows[I, D]) PageState() []byte { return r.it.PageState() }

// Close implements Rows: the driver's error, or the first read
// error. It gives r back to its plan for another page: nothing of r may
// be used after (see Rows).
func (r *PlanRows[I, D]) Close() error {
	err := r.it.Close()
	if err == nil {
		err = r.err
	}
	clear(r.targets) // the fields read into: the pool keeps no entity alive
	clear(r.tmps)
	r.it, r.err = nil, nil
	r.p.rows.Put(r)
	return err
}

// Batch plans each statement of b, in order, and hands add the text to
// send (texts.CQL), its values bound by reference into a (Plan.Bind) and
// its idempotence: the entries of a driver's batch. The driver releases a
// once the batch ran. It returns what is sent, for Send.
func (ps *Plans[I, D]) Batch(b *Batch, texts *Texts, a *Args, add func(text string, values []any, idempotent bool)) (Sent, error) {
	sent := Sent{Statements: make([]*Statement, len(b.Entries)), Texts: make([]string, len(b.Entries))}
	for i, e := range b.Entries {
		p, err := ps.Of(e.Statement)
		if err != nil {
			return Sent{}, err
		}
		sent.Statements[i], sent.Texts[i] = e.Statement, texts.CQL(e.Statement)
		add(sent.Texts[i], p.Bind(a, e.Values, true), e.Statement.IsIdempotent())
	}
	return sent, nil
}

// scanCurrent scans the row of a conditional statement of the plan that
// did not apply into q.Current, for ReadCAS: names are the row's columns
// as the server returned them, [applied] first. It returns the scan
// targets, one per column (nil for a column Current has no target for,
// which both gocql drivers skip), and finish, to call after the driver's
// Scan: it converts what needs converting into Current and sets
// q.Returned.
func (p *Plan[I, D]) scanCurrent(q *Query, names []string, applied *bool) (targets []any, finish func() error) {
	if len(names) == 0 {
		return []any{applied}, func() error { return nil }
	}
	targets = make([]any, len(names))
	tmps := make([]reflect.Value, len(names))
	at := make([]int, len(names))
	targets[0] = applied
	n := 0
	for j := 1; j < len(names); j++ {
		at[j] = -1
		for i := 0; i < q.Statement.NumResult() && i < len(q.Current); i++ {
			if q.Statement.Result(i).Name() == names[j] && q.Current[i] != nil {
				targets[j], tmps[j] = scanTarget[I, D](p.result[i], q.Current[i])
				at[j] = i
				n++
				break
			}
		}
	}
	return targets, func() error {
		for j, tmp := range tmps {
			if !tmp.IsValid() {
				continue
			}
			i := at[j]
			v, err := p.result[i].fromWire(tmp.Elem())
			if err != nil {
				return p.cols[i].ReadError(err)
			}
			reflect.ValueOf(q.Current[i]).Elem().Set(v)
		}
		q.Returned = n
		return nil
	}
}

// ReadCAS reads the answer to a conditional statement of the plan whose
// caller wants the current row back when it does not apply (q.Current),
// for an adapter's Exec: names are the answer's columns ([applied] first),
// scan and closeIter its driver's Iter.Scan and Close. For adapter
// authors.
func (p *Plan[I, D]) ReadCAS(q *Query, names []string, scan func(...any) bool, closeIter func() error) (bool, error) {
	q.Returned = 0
	var applied bool
	if len(names) == 1 { // [applied] alone: Cassandra's answer when it applied, or when there is no row
		scan(&applied)
		return applied, closeIter()
	}
	targets, finish := p.scanCurrent(q, names, &applied)
	scanned := scan(targets...)
	if err := closeIter(); err != nil {
		return false, err
	}
	if !scanned {
		return false, errors.New("no [applied] row in the answer to a conditional statement")
	}
	if applied {
		return true, nil
	}
	return false, finish()
}

// ExecBatchCAS runs a conditional batch b through exec and reads its
// answer, for an adapter's Batch: exec runs the driver's batch with a
// map-scanning call of the first row (both gocql drivers' MapExecCAS),
// given m, whose entries are the targets of every column Current may
// read ([applied] included), so that the driver scans the first row into
// them; exec returns the answer's column names ([applied] first) and its
// Iter's Scan and Close, through which the next rows are read. When
// b.Current is nil nothing is read back. For adapter authors.
func (ps *Plans[I, D]) ExecBatchCAS(b *Batch, exec func(m map[string]any) (applied bool, names []string, scan func(...any) bool, closeIter func() error, err error)) (bool, error) {
	b.Returned = 0
	var applied bool
	m := map[string]any{"[applied]": &applied}
	var p *Plan[I, D]
	var dst []any
	var tmps []reflect.Value
	if b.Current != nil && b.CurrentOf != nil {
		var err error
		if p, err = ps.Of(b.CurrentOf); err != nil {
			return false, err
		}
		dst = b.Current(0)
		tmps = make([]reflect.Value, len(dst))
		for i, t := range dst {
			if t != nil && i < len(p.result) {
				m[b.CurrentOf.Result(i).Name()], tmps[i] = scanTarget[I, D](p.result[i], t)
			}
		}
	}
	ok, names, scan, closeIter, err := exec(m)
	if err != nil {
		if closeIter != nil {
			_ = closeIter()
		}
		return false, err
	}
	if ok || p == nil || len(names) < 2 {
		// Applied, nothing wanted, or [applied] alone: Cassandra's answer
		// when no conditioned row exists.
		return ok, closeIter()
	}
	if err := p.convert(dst, tmps); err != nil {
		_ = closeIter()
		return false, err
	}
	b.Returned = 1
	q := &Query{Statement: b.CurrentOf}
	for {
		q.Current = b.Current(b.Returned)
		var again bool
		targets, finish := p.scanCurrent(q, names, &again)
		if !scan(targets...) {
			break
		}
		if err := finish(); err != nil {
			_ = closeIter()
			return false, err
		}
		b.Returned++
	}
	return false, closeIter()
}

// convert sets each target of dst whose tmp holds a scanned value of the
// driver's form to its value of the target's form.
func (p *Plan[I, D]) convert(dst []any, tmps []reflect.Value) error {
	for i, tmp := range tmps {
		if !tmp.IsValid() {
			continue
		}
		v, err := p.result[i].fromWire(tmp.Elem())
		if err != nil {
			return p.cols[i].ReadError(err)
		}
		reflect.ValueOf(dst[i]).Elem().Set(v)
	}
	return nil
}
