package kstore

import (
	"encoding/binary"
	"fmt"
	"math"
	"net/netip"
	"reflect"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kerrors"
)

// The checks every call makes before it sends anything: a bad argument is
// a *kerrors.ArgumentError naming the call, the table, the argument and
// what is valid, and nothing is written.

// MaxPageSize is the largest PageSize: the protocol carries a page size as
// a 32-bit signed integer, and a larger one would be cut.
const MaxPageSize = math.MaxInt32

// DefaultMaxTimestampAhead is the default of WithMaxTimestampAhead.
const DefaultMaxTimestampAhead = time.Minute

func (r *Repo[T]) argErr(op, arg, msg string) error {
	return &kerrors.ArgumentError{Op: op + " on " + r.ts.Name(), Arg: arg, Message: msg}
}

// checkEntity refuses a nil entity.
func (r *Repo[T]) checkEntity(op, arg string, e *T) error {
	if e == nil {
		return r.argErr(op, arg, "a nil *"+r.typeName)
	}
	return nil
}

// checkKey refuses the key values the servers refuse: null in any key
// column (a nil value, or one sent as null: the zero UUID in a TIMEUUID,
// an empty net.IP), and an empty value in a partition key of one column.
// cols is r.key or r.partition. insert skips the columns an insert stamps
// when they are zero (a generated id, CreatedAt).
func (r *Repo[T]) checkKey(op string, e *T, cols []*kandra.ColumnSchema, insert bool) error {
	for _, c := range cols {
		if insert && (c.IsCreatedAt() || generated(c)) || c.Position() < 64 && r.keySafe&(1<<c.Position()) != 0 {
			continue
		}
		p, _ := c.Pointer(e)
		if msg := keyProblem(p, c.IsPartitionKey() && r.lonePartition); msg != "" {
			return r.argErr(op, "field "+c.GoName(), "key column "+c.Name()+" "+msg)
		}
		if c.SentAsNull(p) {
			return r.argErr(op, "field "+c.GoName(), "key column "+c.Name()+" holds a value sent as null ("+c.Type().String()+"): the servers refuse a null key value")
		}
		if err := c.CheckValue(p); err != nil {
			return err
		}
	}
	return nil
}

// generated reports a column given GeneratedUUID.
func generated(c *kandra.ColumnSchema) bool {
	_, ok := c.GeneratedUUID()
	return ok
}

// keySafe reports a key column none of whose values keyProblem or
// CheckValue refuses (a UUID, an integer, a bool, a float), which checkKey
// skips: most keys are such, and every call checks its key.
func keySafe(c *kandra.ColumnSchema) bool {
	if c.ChecksValues() {
		return false
	}
	switch c.GoType() {
	case reflect.TypeFor[uuid.UUID](), reflect.TypeFor[int64](), reflect.TypeFor[int](), reflect.TypeFor[int32](),
		reflect.TypeFor[int16](), reflect.TypeFor[int8](), reflect.TypeFor[bool](), reflect.TypeFor[float64](), reflect.TypeFor[float32]():
		return true
	}
	return false
}

// checkValues refuses a value of e's other columns that its column cannot
// hold exactly (a *kerrors.ValueError, see kandra.ColumnSchema.CheckValue),
// before anything is sent. checkKey checks the key columns.
func (r *Repo[T]) checkValues(e *T) error {
	for _, c := range r.checked {
		p, _ := c.Pointer(e)
		if err := c.CheckValue(p); err != nil {
			return err
		}
	}
	return nil
}

// keyProblem says why the key value at p cannot be sent, or "". lone is a
// partition key of one column, which may not be empty either.
func keyProblem(p any, lone bool) string {
	const (
		null  = "is nil, which is sent as null: the servers refuse a null key value"
		empty = "is empty: the servers refuse an empty partition key (\"Key may not be empty\")"
	)
	switch x := p.(type) {
	case *uuid.UUID, *int64, *int, *int32, *int16, *int8, *bool, *float64, *float32:
		return ""
	case *string:
		if lone && *x == "" {
			return empty
		}
		return ""
	case *[]byte:
		if *x == nil {
			return null
		}
		if lone && len(*x) == 0 {
			return empty
		}
		return ""
	case *time.Time:
		return "" // the zero time.Time is the instant 0001-01-01T00:00:00Z
	case *netip.Addr:
		if !x.IsValid() {
			return "is the zero netip.Addr, which is sent as null: the servers refuse a null key value"
		}
		return ""
	}
	v := reflect.ValueOf(p).Elem()
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
		if v.IsNil() {
			return null
		}
	case reflect.String:
		if lone && v.Len() == 0 {
			return empty
		}
	}
	return ""
}

// checkWrite checks the Timestamp and TTL options of a write.
func (r *Repo[T]) checkWrite(op string, c *call) error {
	if !c.hasTS && !c.hasTTL {
		return nil
	}
	now := r.now()
	if c.hasTS {
		if c.tsAt.Before(epoch) || c.tsAt.After(maxMicros) {
			return r.argErr(op, "Timestamp", c.tsAt.Format(time.RFC3339Nano)+" lies before the Unix epoch: a write timestamp is microseconds since 1970-01-01T00:00:00Z")
		}
		ahead := r.rt.cfg.ahead
		if limit := now.Add(ahead); c.tsAt.After(limit) {
			return r.argErr(op, "Timestamp", fmt.Sprintf("%s lies %s past the runtime's clock, more than WithMaxTimestampAhead (%s): a write from the future wins over every later write of the same row until that time comes",
				c.tsAt.Format(time.RFC3339Nano), aheadOf(c.tsAt, now), ahead))
		}
	}
	if c.hasTTL {
		max := kandra.MaxWriteTTL(r.rt.ks.Targets(), now)
		switch {
		case c.ttl < 0 || c.ttl > max:
			why := "kandra.MaxTTL, 20 years, is the servers' limit"
			if max < kandra.MaxTTL {
				why = "on " + kandra.Cassandra5.String() + " (storage_compatibility_mode CASSANDRA_4, its default) an expiry past 2038-01-19T03:14:06Z is refused; with storage_compatibility_mode NONE everywhere, say so in the keyspace's Targets (kandra.Cassandra5Latest)"
			}
			return r.argErr(op, "TTL", fmt.Sprintf("%v is not in 0 (no expiry) to %v (%d s): %s", c.ttl, max, max/time.Second, why))
		case c.ttl%time.Second != 0:
			return r.argErr(op, "TTL", fmt.Sprintf("%v is not a whole number of seconds, which is what CQL stores; use %v", c.ttl, c.ttl.Truncate(time.Second)))
		}
	}
	return nil
}

// epoch and maxMicros bound the times a write timestamp can carry.
var (
	epoch     = time.Unix(0, 0)
	maxMicros = time.UnixMicro(math.MaxInt64)
)

// aheadOf renders how far t lies past now.
func aheadOf(t, now time.Time) string {
	d := t.Sub(now) // saturates at about 292 years
	const year = 365.25 * 24 * time.Hour
	if d >= year {
		return fmt.Sprintf("%.0f years", float64(t.Year()-now.Year()))
	}
	return d.Round(time.Second).String()
}

// checkConsistency refuses the levels the servers refuse for the kind of
// statement: SERIAL and LOCAL_SERIAL for a write (they are for reads and
// for SerialConsistency), ANY for a read and for a counter update.
func (r *Repo[T]) checkConsistency(op string, cons kandra.Consistency, read, counter bool) error {
	if !cons.IsValid() {
		return r.argErr(op, "Consistency", "invalid consistency "+cons.String())
	}
	switch {
	case read && cons == kandra.ConsistencyAny:
		return r.argErr(op, "Consistency", "ANY is for writes only; the servers refuse it for a read")
	case !read && cons.IsSerial():
		return r.argErr(op, "Consistency", cons.String()+" is not a write consistency: the servers take it for reads and as the SerialConsistency of a conditional write")
	case counter && cons == kandra.ConsistencyAny:
		return r.argErr(op, "Consistency", "ANY is refused for a counter update")
	}
	return nil
}

// checkRange checks List's PageSize, bounds and cursor. fp is the
// fingerprint of the query (see fingerprint).
func (r *Repo[T]) checkRange(op string, c *call) error {
	if c.hasPageSize && (c.pageSize < 1 || c.pageSize > MaxPageSize) {
		return r.argErr(op, "PageSize", fmt.Sprintf("%d is not in 1 to %d", c.pageSize, MaxPageSize))
	}
	if err := r.sortPrefix(op, c); err != nil {
		return err
	}
	if c.lowerCol == nil && c.upperCol == nil && c.lowerTuple == nil && c.upperTuple == nil {
		return nil // no bound: most reads
	}
	k := len(c.prefix)
	for _, b := range []struct {
		name  string
		col   *kandra.ColumnSchema
		tuple []prefixValue
	}{{"From", c.lowerCol, c.lowerTuple}, {"To", c.upperCol, c.upperTuple}} {
		if b.tuple != nil {
			b.name += "Tuple"
			if len(b.tuple) == 0 {
				return r.argErr(op, b.name, "no value: give At(field, value) for each clustering column the tuple bounds")
			}
			for i, v := range b.tuple {
				if k+i >= len(r.clustering) || v.col != r.clustering[k+i] {
					want := "past the clustering columns"
					if k+i < len(r.clustering) {
						want = r.clustering[k+i].GoName()
					}
					return r.argErr(op, b.name, fmt.Sprintf("value %d is of field %s; a tuple bounds the clustering columns in order from the first one Equal does not fix, so it is %s (servers refuse another order without ALLOW FILTERING)", i, v.col.GoName(), want))
				}
			}
		}
		if b.col == nil {
			continue
		}
		switch {
		case len(r.clustering) == 0:
			return r.argErr(op, b.name, "the table has no clustering column to bound")
		case k == len(r.clustering):
			return r.argErr(op, b.name, "bounds field "+b.col.GoName()+", but Equal fixes every clustering column already")
		case b.col != r.clustering[k]:
			after := "the first clustering column, " + r.clustering[0].GoName()
			if k > 0 {
				after = "the clustering column after those Equal fixes, " + r.clustering[k].GoName()
			}
			return r.argErr(op, b.name, "bounds field "+b.col.GoName()+"; a range bounds "+after+" (servers refuse a range on a later column without ALLOW FILTERING)")
		}
	}
	return nil
}

// sortPrefix puts c's Equal values in clustering order and refuses those
// that are not a prefix of the clustering key, or whose value the column
// cannot hold.
func (r *Repo[T]) sortPrefix(op string, c *call) error {
	if len(c.prefix) == 0 {
		return nil
	}
	sorted := make([]prefixValue, len(c.prefix))
	for _, p := range c.prefix {
		i := slices.Index(r.clustering, p.col)
		switch {
		case i < 0:
			return r.argErr(op, "Equal", "field "+p.col.GoName()+" is not a clustering column of "+r.ts.Name())
		case i >= len(sorted):
			return r.argErr(op, "Equal", "fixes "+p.col.GoName()+" without the clustering columns before it, "+r.clustering[0].GoName()+" first: servers refuse it without ALLOW FILTERING; add an Equal for each")
		case sorted[i].col != nil:
			return r.argErr(op, "Equal", "fixes "+p.col.GoName()+" twice")
		}
		if msg := keyProblem(p.v, false); msg != "" {
			return r.argErr(op, "Equal", "the value of "+p.col.GoName()+" "+msg)
		}
		if err := p.col.CheckValue(p.v); err != nil {
			return err
		}
		sorted[i] = p
	}
	c.prefix = sorted
	return nil
}

// ptrTo is a pointer to a copy of v, for the checks that take a field's
// address.
func ptrTo(v any) any {
	p := reflect.New(reflect.TypeOf(v))
	p.Elem().Set(reflect.ValueOf(v))
	return p.Interface()
}

// fingerprint identifies a List query: the statement (table, bounds,
// order), the partition key values, the Equal values and the bounds. A
// Cursor carries the fingerprint of the query that made it, so that it is
// not used with another: a driver's paging state only makes sense for its
// own query (the state of a single-partition read holds no partition key:
// another partition's List would resume past the same clustering key and
// skip rows).
func (r *Repo[T]) fingerprint(st *adapter.Statement, partition *T, c *call) uint64 {
	q := r.newPrint(st.CQL())
	for _, col := range r.partition {
		p, _ := col.Pointer(partition)
		q.add(col, p)
	}
	for _, p := range c.prefix {
		q.add(p.col, p.v)
	}
	q.addBounds(c)
	return q.sum(r.rt)
}

// addBounds adds c's clustering bounds: From's and To's, or each value
// of a tuple bound, framed by the tuple's length.
func (q *queryPrint) addBounds(c *call) {
	for _, b := range []struct {
		col   *kandra.ColumnSchema
		v     any
		tuple []prefixValue
	}{{c.lowerCol, c.lower, c.lowerTuple}, {c.upperCol, c.upper, c.upperTuple}} {
		if b.tuple != nil {
			q.b = binary.BigEndian.AppendUint32(append(q.b, 2), uint32(len(b.tuple)))
			for _, v := range b.tuple {
				q.add(v.col, v.v)
			}
			continue
		}
		if b.col != nil {
			q.add(b.col, b.v)
		}
	}
}

// fingerprint identifies a FindAll query (see Repo.fingerprint): the
// lookup and the value.
func (l *Lookup[T, V]) fingerprint(st *adapter.Statement, v V) uint64 {
	q := l.repo.newPrint(st.CQL())
	q.add(l.repo.lookups[l.idx].IndexColumn(), &v)
	return q.sum(l.repo.rt)
}

// indexFingerprint identifies an index read (see Repo.fingerprint): the
// statement and its values, each a pointer to a value of col or to an
// element, key or value of it.
func (r *Repo[T]) indexFingerprint(st *adapter.Statement, col *kandra.ColumnSchema, vals []any) uint64 {
	q := r.newPrint(st.CQL())
	for _, v := range vals {
		q.add(col, v)
	}
	return q.sum(r.rt)
}

// queryPrint is what a query's fingerprint hashes: the statement's text,
// then each bound value in its stored form (kandra.ColumnSchema.AppendStored),
// so that one stored value in two Go forms (a time in another zone or with
// sub-millisecond parts, a 16-byte IPv4) is one query, as it is to the
// server. sealed says that the query's cursors are sealed (seal.go): it
// binds a Sensitive value, or pages a table whose key has a Sensitive
// column.
type queryPrint struct {
	b      []byte
	sealed bool
}

// newPrint starts the fingerprint of a query of cql on r's table.
func (r *Repo[T]) newPrint(cql string) *queryPrint {
	q := &queryPrint{b: append(make([]byte, 0, len(cql)+64), cql...)}
	for _, col := range r.key {
		q.sealed = q.sealed || col.IsSensitive()
	}
	return q
}

// add appends the value at p, a value of col (nil: of no column, a Raw
// statement's plain marker). Each value is tagged and framed, so that no
// two lists of values append the same bytes.
func (q *queryPrint) add(col *kandra.ColumnSchema, p any) {
	if col != nil {
		q.sealed = q.sealed || col.IsSensitive()
		if out, ok := appendStoredPart(append(q.b, 0), col, p); ok {
			q.b = out
			return
		}
	}
	// A value of no column, or one whose bytes kandra leaves to the driver
	// (a CQLTyper): its Go form.
	var v any
	if rv := reflect.ValueOf(p); rv.Kind() == reflect.Pointer && !rv.IsNil() {
		v = rv.Elem().Interface()
	} else {
		v = p
	}
	s := fmt.Sprintf("%#v", v)
	q.b = append(binary.BigEndian.AppendUint32(append(q.b, 1), uint32(len(s))), s...)
}

func (q *queryPrint) sum(rt *Store) uint64 { return rt.keys.sum(q.b, q.sealed) }

// appendStoredPart appends the stored form of the value at p: a value of
// col, or an element, a key or a value of col's collection (an index read
// by one), as the collection of that one. ok is false when p is neither,
// or has no stored form kandra knows.
func appendStoredPart(dst []byte, col *kandra.ColumnSchema, p any) ([]byte, bool) {
	if p == nil {
		return appendNullPart(dst), true
	}
	rv := reflect.ValueOf(p)
	if rv.Kind() == reflect.Pointer && rv.IsNil() {
		return appendNullPart(dst), true // a nil pointer binds null
	}
	if out, err := col.AppendStored(dst, p); err == nil {
		return out, true
	}
	t := col.GoType()
	if rv.Kind() != reflect.Pointer {
		return dst, false
	}
	x := rv.Elem()
	w := reflect.New(t)
	switch {
	case t.Kind() == reflect.Slice && t.Elem() == x.Type():
		w.Elem().Set(reflect.Append(reflect.MakeSlice(t, 0, 1), x))
	case t.Kind() == reflect.Map && t.Key() == x.Type():
		m := reflect.MakeMapWithSize(t, 1)
		m.SetMapIndex(x, reflect.Zero(t.Elem()))
		w.Elem().Set(m)
	case t.Kind() == reflect.Map && t.Elem() == x.Type():
		m := reflect.MakeMapWithSize(t, 1)
		m.SetMapIndex(reflect.Zero(t.Key()), x)
		w.Elem().Set(m)
	default:
		return dst, false
	}
	if out, err := col.AppendStored(dst, w.Interface()); err == nil {
		return out, true
	}
	return dst, false
}

// appendNullPart appends null as AppendStored does: the length -1.
func appendNullPart(dst []byte) []byte { return binary.BigEndian.AppendUint32(dst, math.MaxUint32) }

// derefAny is the value a field address points to.
func derefAny(p any) any { return reflect.ValueOf(p).Elem().Interface() }

// redactedKey is the entity's primary key for an error message: the value
// of a single key column, or a slice of the values; a Sensitive column's
// value is replaced by "<redacted>".
func (r *Repo[T]) redactedKey(e *T) any {
	vals := make([]any, 0, len(r.key))
	for _, c := range r.key {
		if c.IsSensitive() {
			vals = append(vals, redacted)
			continue
		}
		p, _ := c.Pointer(e)
		vals = append(vals, reflect.ValueOf(p).Elem().Interface())
	}
	if len(vals) == 1 {
		return vals[0]
	}
	return vals
}

const redacted = "<redacted>"

// notFound is the *kerrors.NotFoundError of a read by e's key.
func (r *Repo[T]) notFound(e *T) error {
	return &kerrors.NotFoundError{Table: r.ts.Name(), Key: r.redactedKey(e)}
}
