package integration

import (
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"time"

	"github.com/gocql/gocql"
	"pgregory.net/rapid"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/internal/catalog"
)

// "Accepted means writable" (issue 10, finding 18): a CREATE alone proves
// nothing about writes (a table whose default TTL passes 2038 is created,
// and then refuses every INSERT). checkWritable writes one row with every
// column set into a created table through the statements a runtime sends
// (catalog.Build), with each TTL option of the table in use, and
// reads it back.

// writeProblem is one failure of checkWritable, with the physical table
// (primary or lookup) it concerns.
type writeProblem struct {
	table string
	msg   string
}

func (p writeProblem) String() string { return p.table + ": " + p.msg }

type writeResult struct {
	problems []writeProblem
	done     []string // what was written and read back, for the log
}

func (w *writeResult) fail(table, format string, args ...any) {
	w.problems = append(w.problems, writeProblem{table, fmt.Sprintf(format, args...)})
}

func (w *writeResult) summary() string {
	if len(w.problems) > 0 {
		return fmt.Sprintf("%d write problems", len(w.problems))
	}
	return "wrote and read back: " + strings.Join(w.done, ", ")
}

// checkWritable writes into table ts of keyspace ks (created) a row in
// which every column holds a value (no nulls, no empty collections):
//
//   - a counter table gets every counter incremented (kandra's Counter
//     statements), any other table kandra's Insert;
//   - the row is read back with SelectByKey and compared column by column
//     (with the normalisations of TestValues);
//   - a table with a DefaultTTL: the row's TTL is in (0, ttl], as the
//     table's default makes it without a USING TTL;
//   - a table with SoftDelete: kandra's soft-delete write (every column
//     USING TTL n, the marker true) is sent too, read back, and its TTL is
//     in (0, n];
//   - every lookup table gets its row (kandra's lookup Insert), and its
//     Select gives back the primary key, which finds the row.
//
// seed picks the values (rapid's generators, deterministic per seed).
func checkWritable(s *gocql.Session, ks string, ts *kandra.TableSchema, seed int) *writeResult {
	res := &writeResult{}
	table := ts.Name()
	st, err := catalog.Build(ts, ks)
	if err != nil {
		res.fail(table, "BuildStatements: %v", err)
		return res
	}
	codec, err := kgocql.NewCodec(ts.Columns())
	if err != nil {
		res.fail(table, "%v", err)
		return res
	}
	in, err := fullEntity(ts, seed)
	if err != nil {
		res.fail(table, "%v", err)
		return res
	}
	ptrs := pointersOf(ts, in.Interface())
	opaque, err := opaqueValues(ts, seed)
	if err != nil {
		res.fail(table, "%v", err)
		return res
	}
	vals := opaque.bind(codec.BindValues(ptrs))
	exec := func(what string, stmt *adapter.Statement, extra func(p adapter.Param) any) bool {
		args := bindArgs(stmt, vals, extra)
		if err := s.Query(stmt.CQL(), args...).Exec(); err != nil {
			res.fail(stmt.TableName(), "%s refused: %s\n-> %v", what, stmt.CQL(), err)
			return false
		}
		return true
	}
	if ts.IsCounterTable() {
		for _, c := range ts.Columns() {
			if !c.IsCounter() {
				continue
			}
			delta := reflect.ValueOf(ptrs[c.Position()]).Elem().Int()
			if !exec("counter update", st.Counter(c), func(adapter.Param) any { return delta }) {
				return res
			}
		}
		res.done = append(res.done, "counters")
	} else if !exec("INSERT", st.Insert(0), nil) {
		return res
	}
	ttlD, _ := ts.DefaultTTL()
	if !readBack(s, st, ts, codec, opaque, in, vals, res, "row", int(ttlD/time.Second), int(ttlD/time.Second)) {
		return res
	}
	if ttl, ok := ts.DefaultTTL(); ok && ttl >= shortTTL*time.Second {
		if checkTTL(s, ks, ts, vals, int(ttl/time.Second), res, "default TTL") {
			res.done = append(res.done, fmt.Sprintf("DefaultTTL(%d)", ttl))
		}
	}
	if sd := ts.SoftDelete(); sd != nil {
		if sd.Marker != nil {
			p, err := sd.Marker.Pointer(in.Interface())
			if err != nil {
				res.fail(table, "marker: %v", err)
				return res
			}
			reflect.ValueOf(p).Elem().SetBool(true)
			vals = opaque.bind(codec.BindValues(ptrs))
		}
		if !exec("soft-delete write", st.SoftDelete(), nil) {
			return res
		}
		if sdTTL := int(sd.TTL / time.Second); readBack(s, st, ts, codec, opaque, in, vals, res, "soft-deleted row", sdTTL, int(ttlD/time.Second)) && (sdTTL < shortTTL || checkTTL(s, ks, ts, vals, sdTTL, res, "soft-delete TTL")) {
			res.done = append(res.done, fmt.Sprintf("SoftDelete(%v)", sd.TTL))
		}
	}
	for _, ls := range st.Lookups() {
		l := ls.Lookup()
		ins, extra := ls.Insert(), func(adapter.Param) any { return nil }
		if l.IsUnique() {
			// A unique lookup's rows are claims, with a token.
			ins, extra = ls.Claim(), func(adapter.Param) any { return int64(1) }
		}
		if !exec("lookup INSERT", ins, extra) {
			continue
		}
		sel := ls.Select()
		out := reflect.New(ts.EntityType())
		outPtrs := pointersOf(ts, out.Interface())
		targets, finish := codec.ScanTargets(outPtrs)
		targets, got := opaque.scan(targets)
		scan := make([]any, sel.NumResult())
		for i := range scan {
			scan[i] = targets[sel.Result(i).Position()]
		}
		if err := s.Query(sel.CQL(), bindArgs(sel, vals, nil)...).Scan(scan...); err != nil {
			res.fail(l.Name(), "lookup SELECT: %s\n-> %v", sel.CQL(), err)
			continue
		}
		if err := finish(); err != nil {
			res.fail(l.Name(), "converting the lookup's key: %v", err)
			continue
		}
		same := true
		for i := 0; i < sel.NumResult(); i++ {
			c := sel.Result(i)
			n, _ := nodeOf(c.Type())
			want, have := fieldOf(failer{res, l.Name()}, c, in), fieldOf(failer{res, l.Name()}, c, out)
			if w, ok := opaque.wrote[c.Position()]; ok {
				want, have = w, got[c.Position()].Elem()
			}
			if why := sameValue(want, have, n); why != "" {
				res.fail(l.Name(), "the lookup gives back %s different from the row's: %s", c.Name(), why)
				same = false
			}
		}
		if same {
			res.done = append(res.done, "lookup "+l.Suffix())
		}
	}
	return res
}

// failer lets fieldOf report into a writeResult.
type failer struct {
	res   *writeResult
	table string
}

func (f failer) Fatalf(format string, args ...any) { f.res.fail(f.table, format, args...) }

// bindArgs is the statement's bind values: a column's (converted) value
// from vals by the column's position, the others from extra.
func bindArgs(st *adapter.Statement, vals []any, extra func(adapter.Param) any) []any {
	args := make([]any, st.NumParams())
	for i := range args {
		p := st.Param(i)
		switch p.Kind {
		case adapter.ParamColumn, adapter.ParamExpected:
			args[i] = vals[p.Column.Position()]
		default:
			args[i] = extra(p)
		}
	}
	return args
}

// shortTTL: a row written with a TTL under this many seconds may expire
// before it is read back; then not finding it is no failure.
const shortTTL = 10

// readBack reads the row by its key (SelectByKey) and compares every
// column with in. ttl is the row's TTL (0: none), staticTTL the static
// columns' (the INSERT's: a soft delete rewrites the row only), which
// may have expired, read as their zero value, while the row has not.
func readBack(s *gocql.Session, st *catalog.Table, ts *kandra.TableSchema, codec *kgocql.Codec, opaque *opaqueRow, in reflect.Value, vals []any, res *writeResult, what string, ttl, staticTTL int) bool {
	sel := st.SelectByKey()
	out := reflect.New(ts.EntityType())
	outPtrs := pointersOf(ts, out.Interface())
	targets, finish := codec.ScanTargets(outPtrs)
	targets, got := opaque.scan(targets)
	scan := make([]any, sel.NumResult())
	for i := range scan {
		scan[i] = targets[sel.Result(i).Position()]
	}
	if err := s.Query(sel.CQL(), bindArgs(sel, vals, nil)...).Scan(scan...); err != nil {
		if errors.Is(err, gocql.ErrNotFound) && ttl > 0 && ttl < shortTTL {
			res.done = append(res.done, fmt.Sprintf("%s (expired before the read: TTL %d s)", what, ttl))
			return true
		}
		res.fail(ts.Name(), "reading the %s back: %s\n-> %v", what, sel.CQL(), err)
		return false
	}
	if err := finish(); err != nil {
		res.fail(ts.Name(), "converting the %s back: %v", what, err)
		return false
	}
	ok := true
	for _, c := range ts.Columns() {
		n, _ := nodeOf(c.Type())
		f := failer{res, ts.Name()}
		want, have := fieldOf(f, c, in), fieldOf(f, c, out)
		if w, isOpaque := opaque.wrote[c.Position()]; isOpaque {
			want, have = w, got[c.Position()].Elem()
		}
		if c.IsStatic() && staticTTL > 0 && staticTTL < shortTTL && have.IsZero() {
			continue // expired since the INSERT (seed 148605189 on a loaded machine: a default TTL of 1 s)
		}
		if why := sameValue(want, have, n); why != "" {
			res.fail(ts.Name(), "%s column %s (%s as %s): wrote %#v, read %#v: %s", what, c.Name(), c.GoType(), c.Decl(), want.Interface(), have.Interface(), why)
			ok = false
		}
	}
	if ok {
		res.done = append(res.done, what)
	}
	return ok
}

// ttlColumn is a regular, single-cell, non-counter column whose TTL the
// server reports as one number, or nil (a table of keys and multi-cell
// columns only). A collection, or a user-defined type that is not frozen,
// has a cell per element or field: Cassandra 5.0 reports a list of TTLs
// for it (found by a draw of TestRandomSchemas, seed 148605189, once the
// draws changed).
func ttlColumn(ts *kandra.TableSchema) *kandra.ColumnSchema {
	for _, c := range ts.Columns() {
		multiCell := c.Type().IsCollection() || c.Type().Kind() == kandra.KindUDT && !c.IsFrozen()
		// A static column's TTL is the partition's, which a soft delete's
		// never reaches.
		if c.Role() == kandra.RegularColumn && !c.IsCounter() && !c.IsStatic() && !multiCell {
			return c
		}
	}
	return nil
}

// checkTTL reads TTL() of a regular column of the row: it must be in
// (0, ttl] for a positive ttl, null for 0.
func checkTTL(s *gocql.Session, ks string, ts *kandra.TableSchema, vals []any, ttl int, res *writeResult, what string) bool {
	c := ttlColumn(ts)
	if c == nil {
		return true // nothing carries a TTL the server reports
	}
	pk := ts.PrimaryKey()
	where := make([]string, len(pk))
	args := make([]any, len(pk))
	for i, k := range pk {
		where[i] = k.CQLName() + " = ?"
		args[i] = vals[k.Position()]
	}
	q := "SELECT TTL(" + c.CQLName() + ") FROM " + qualified(ks, ts.CQLName()) + " WHERE " + strings.Join(where, " AND ")
	var got *int
	if err := s.Query(q, args...).Scan(&got); err != nil {
		res.fail(ts.Name(), "%s: %s\n-> %v", what, q, err)
		return false
	}
	switch {
	case ttl == 0 && got != nil:
		res.fail(ts.Name(), "%s 0, but the server reports TTL %d on %s", what, *got, c.Name())
		return false
	case ttl > 0 && (got == nil || *got <= 0 || *got > ttl):
		res.fail(ts.Name(), "%s %d, but the server reports TTL %v on %s", what, ttl, derefInt(got), c.Name())
		return false
	}
	return true
}

func derefInt(p *int) any {
	if p == nil {
		return "null"
	}
	return *p
}

// fullEntity is a new entity of ts's type with every column set: a value
// that is not null on the wire (no nil pointer, no empty collection, no
// zero time, UUID or address) and not empty for a text or blob; counters
// are positive increments; generated UUIDs are made by their strategy.
func fullEntity(ts *kandra.TableSchema, seed int) (reflect.Value, error) {
	e := reflect.New(ts.EntityType())
	for _, c := range ts.Columns() {
		p, err := c.Pointer(e.Interface())
		if err != nil {
			return e, fmt.Errorf("%s.Pointer: %w", c.Name(), err)
		}
		f := reflect.ValueOf(p).Elem()
		if strategy, ok := c.GeneratedUUID(); ok {
			f.Set(reflect.ValueOf(strategy.New()).Convert(f.Type()))
			continue
		}
		if c.IsCounter() {
			f.SetInt(int64(seed%1000 + 1))
			continue
		}
		if opaqueWire(c) != nil {
			continue // written by opaqueValues
		}
		v, err := fullValue(c, seed)
		if err != nil {
			return e, err
		}
		f.Set(v)
	}
	return e, nil
}

func fullValue(c *kandra.ColumnSchema, seed int) (reflect.Value, error) {
	n, err := nodeOf(c.Type())
	if err != nil {
		return reflect.Value{}, err
	}
	g := rapid.Custom(func(t *rapid.T) reflect.Value { return genValue(t, c.GoType(), n, true) })
	for i := 0; i < 200; i++ {
		v := g.Example(seed*1000 + i)
		if isSet(v) {
			return v, nil
		}
	}
	return reflect.Value{}, fmt.Errorf("no value with every part set drawn for %s (%s)", c.Name(), c.GoType())
}

// isSet reports a value that is a value on the wire, and not an empty
// one: booleans and numbers always are.
func isSet(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Invalid:
		return false
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	case reflect.Pointer:
		return !v.IsNil() && isSet(v.Elem())
	case reflect.Slice, reflect.Map:
		return v.Len() > 0
	case reflect.Struct:
		if v.Type().ConvertibleTo(typeTime) || v.Type().ConvertibleTo(typeAddr) {
			return !v.IsZero()
		}
		for i := range v.NumField() { // a user-defined type: every field set
			if f := v.Type().Field(i); f.IsExported() && f.Tag.Get(kandra.UDTTag) != "-" && !isSet(v.Field(i)) {
				return false
			}
		}
		return true
	}
	return !v.IsZero()
}

// Opaque columns: a Go type kandra derives no CQL type for (a struct
// that is none of the special types, say) takes any AsType, the
// application's word for what its driver marshals the type to. gocql
// cannot marshal such a type by itself, so the suite writes in its place
// a value of the declared CQL type, as the application's marshaller would,
// and reads that back.

var unmarshalerType = reflect.TypeFor[gocql.Unmarshaler]()

// opaqueWire is the Go type the suite writes for an opaque column c (one
// gocql marshals for c's CQL type), or nil when c is not opaque.
func opaqueWire(c *kandra.ColumnSchema) reflect.Type {
	if !isOpaque(c.GoType()) {
		return nil
	}
	n, err := nodeOf(c.Type())
	if err != nil {
		return nil
	}
	return wireFor(n)
}

// isOpaque reports a struct type that is none of the special types, and
// does not marshal itself for gocql.
func isOpaque(t reflect.Type) bool {
	if t.Kind() != reflect.Struct || t == typeTime || t == typeAddr || reflect.PointerTo(t).Implements(unmarshalerType) {
		return false
	}
	_, special := drawBase(t)
	if special {
		return false
	}
	ct, err := derivedType(t)
	return err != nil || ct.Kind() != kandra.KindUDT // a user-defined type is kandra's to marshal
}

// wireFor is a Go type gocql marshals and unmarshals for CQL type n (a
// set as a slice), or nil.
func wireFor(n cqlNode) reflect.Type {
	switch n.Name {
	case "ascii", "text", "varchar":
		return reflect.TypeFor[string]()
	case "blob":
		return reflect.TypeFor[[]byte]()
	case "varint":
		return reflect.TypeFor[*big.Int]()
	case "decimal":
		return reflect.TypeFor[Money]()
	case "time":
		return typeDuration
	case "date", "timestamp":
		return typeTime
	case "inet":
		return typeNetIP
	case "boolean":
		return reflect.TypeFor[bool]()
	case "tinyint":
		return reflect.TypeFor[int8]()
	case "smallint":
		return reflect.TypeFor[int16]()
	case "int":
		return reflect.TypeFor[int32]()
	case "bigint":
		return reflect.TypeFor[int64]()
	case "float":
		return reflect.TypeFor[float32]()
	case "double":
		return reflect.TypeFor[float64]()
	case "uuid", "timeuuid":
		return typeGocqlUUID
	case "list", "set":
		if e := wireFor(n.Args[0]); e != nil {
			return reflect.SliceOf(e)
		}
	case "map":
		k, v := wireFor(n.Args[0]), wireFor(n.Args[1])
		if k != nil && v != nil {
			return reflect.MapOf(k, v)
		}
	}
	return nil
}

// opaqueRow holds the values written for a row's opaque columns, by
// column position.
type opaqueRow struct {
	wrote map[int]reflect.Value
	wire  map[int]reflect.Type
	types map[int]kandra.CQLType
}

func opaqueValues(ts *kandra.TableSchema, seed int) (*opaqueRow, error) {
	o := &opaqueRow{wrote: map[int]reflect.Value{}, wire: map[int]reflect.Type{}, types: map[int]kandra.CQLType{}}
	for _, c := range ts.Columns() {
		if !isOpaque(c.GoType()) {
			continue
		}
		w := opaqueWire(c)
		if w == nil {
			return nil, fmt.Errorf("column %s (%s): no Go type to write a %s with", c.Name(), c.GoType(), c.Type())
		}
		n, _ := nodeOf(c.Type())
		g := rapid.Custom(func(t *rapid.T) reflect.Value { return genValue(t, w, n, true) })
		var v reflect.Value
		for i := 0; i < 200 && !isSet(v); i++ {
			v = g.Example(seed*1000 + i)
		}
		if !isSet(v) {
			return nil, fmt.Errorf("column %s: no %s value with every part set drawn", c.Name(), c.Type())
		}
		o.wrote[c.Position()], o.wire[c.Position()], o.types[c.Position()] = v, w, c.Type()
	}
	return o, nil
}

// bind puts the opaque columns' values into vals (by column position),
// sets and maps in the server's order as Codec sends them.
func (o *opaqueRow) bind(vals []any) []any {
	for pos, v := range o.wrote {
		if sv, err := kgocql.Sorted(o.types[pos], v.Interface()); err == nil && o.types[pos].IsCollection() {
			vals[pos] = sv
			continue
		}
		vals[pos] = v.Interface()
	}
	return vals
}

// scan replaces the opaque columns' scan targets by fresh values of
// their wire types, returned by position.
func (o *opaqueRow) scan(targets []any) ([]any, map[int]reflect.Value) {
	got := map[int]reflect.Value{}
	for pos, w := range o.wire {
		p := reflect.New(w)
		targets[pos] = p.Interface()
		got[pos] = p
	}
	return targets, got
}
