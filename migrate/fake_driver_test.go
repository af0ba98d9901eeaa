package migrate

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
)

// fakeDriver is a Driver over an in-memory cluster of one keyspace: its
// schema is the tables of an initial model plus what the statements the
// migrator ran created (recognised by the CQL of the target model's plan),
// and it answers the migrator's own statements (lease, history, backfill
// progress) and the runtime's token-range scans and lookup inserts.
type fakeDriver struct {
	mu      sync.Mutex
	target  *kandra.Keyspace
	exists  bool                           // the keyspace
	tables  map[string]*kandra.TableSchema // table name -> the model it was created from
	lookups map[string]*kandra.LookupTableSchema
	added   map[string]bool              // "table.column" added by ALTER
	types   map[string][]kandra.UDTField // user-defined type -> its fields, as created and altered
	masks   map[string]*kandra.Mask      // "table.column" -> the mask an ALTER gave it (nil: dropped); setMask
	indexes map[string]map[string]any    // index name -> its system_schema.indexes row (rowsOf's)
	own     map[string]bool              // the migrator's tables created
	schema  []string                     // schema statements run, in order
	writes  int                          // ExecCQL calls

	leaseOwner  string
	leaseExpiry time.Time
	renewals    int // lease renewals applied
	history     []map[string]any
	bfStatus    map[string]string
	bfRanges    map[string]int
	bfDone      map[string]map[int64]int64 // lookup → range_start → range_end of the ranges recorded done

	rows       map[string][][]any         // primary table -> rows, in column order of the target model
	lookupRows map[string]map[string]bool // lookup table -> index values

	agreement error // what AwaitSchemaAgreement returns

	// The server: Cassandra 5.0.8 unless scylla is set to a ScyllaDB
	// version ("?" for one this role may not read); tablets says whether
	// the existing keyspace uses tablets.
	scylla  string
	tablets bool

	onSchema func(ctx context.Context, stmt string) error // runs before a schema statement, if set
	onExec   func(stmt string)                            // runs before an ExecCQL, if set
}

func newFake(initial, target *kandra.Keyspace) *fakeDriver {
	f := &fakeDriver{target: target, tables: map[string]*kandra.TableSchema{}, lookups: map[string]*kandra.LookupTableSchema{},
		added: map[string]bool{}, own: map[string]bool{}, types: map[string][]kandra.UDTField{}, bfStatus: map[string]string{}, bfRanges: map[string]int{},
		bfDone: map[string]map[int64]int64{}, rows: map[string][][]any{}, lookupRows: map[string]map[string]bool{},
		indexes: map[string]map[string]any{}}
	if initial != nil {
		f.exists = true
		for _, row := range rowsOf(initial).Indexes {
			f.indexes[row["index_name"].(string)] = row
		}
		for _, t := range initial.Types() {
			f.types[t.Name()] = t.Fields()
		}
		for _, t := range initial.Tables() {
			f.tables[t.Name()] = t
			for _, l := range t.LookupTables() {
				f.lookups[l.Name()] = l
			}
		}
	}
	return f
}

// liveType is the type of a column as system_schema holds it: frozen in
// a key when it is a collection or a user-defined type.
func liveType(t kandra.CQLType, key bool) string { return serverType(t, key && freezable(t)) }

func (f *fakeDriver) SchemaRows(ctx context.Context, keyspace string) (*schemaRows, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := &schemaRows{}
	if !f.exists {
		return r, nil
	}
	ks := f.target
	repl := map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": strconv.Itoa(ks.Replication().SimpleFactor())}
	if r := ks.Replication(); r.IsNetworkTopology() {
		repl = map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy"}
		for dc, n := range r.Datacenters() {
			repl[dc] = strconv.Itoa(n)
		}
	}
	r.Keyspaces = append(r.Keyspaces, map[string]any{"keyspace_name": keyspace, "durable_writes": true, "replication": repl})
	table := func(name string, ttl, gc int, counter bool) {
		flags := []string{"compound"}
		if counter {
			flags = append(flags, "counter")
		}
		r.Tables = append(r.Tables, map[string]any{"keyspace_name": keyspace, "table_name": name, "id": uuid.NewString(),
			"default_time_to_live": ttl, "gc_grace_seconds": gc, "flags": flags})
	}
	col := func(tn, cn string, kind ColumnKind, pos int, order, typ string) {
		r.Columns = append(r.Columns, map[string]any{"keyspace_name": keyspace, "table_name": tn, "column_name": cn,
			"kind": string(kind), "position": pos, "clustering_order": order, "type": typ})
	}
	for name, t := range f.tables {
		ttl, _ := t.DefaultTTL()
		gc, ok := t.GCGrace()
		if !ok {
			gc = 864000 * time.Second
		}
		table(name, int(ttl/time.Second), int(gc/time.Second), t.IsCounterTable())
		cols := t.Columns()
		if tt := ks.Table(name); tt != nil {
			for _, c := range tt.Columns() {
				if f.added[name+"."+c.Name()] {
					cols = append(cols, c)
				}
			}
		}
		r.ColumnMasks = append(r.ColumnMasks, maskRows(keyspace, t, cols, f.masks)...)
		for _, c := range cols {
			switch {
			case c.IsPartitionKey():
				col(name, c.Name(), ColumnPartitionKey, c.KeyIndex(), "none", liveType(c.Type(), true))
			case c.IsClusteringKey():
				col(name, c.Name(), ColumnClustering, c.KeyIndex(), strings.ToLower(c.ClusteringOrder().String()), liveType(c.Type(), true))
			default:
				col(name, c.Name(), ColumnRegular, -1, "none", serverType(c.Type(), c.IsFrozen()))
			}
		}
	}
	for name, l := range f.lookups {
		table(name, 0, 864000, false)
		for i, c := range l.Columns() {
			if i == 0 {
				col(name, c.Name(), ColumnPartitionKey, 0, "none", liveType(c.Type(), true))
			} else if l.IsUnique() {
				col(name, c.Name(), ColumnRegular, -1, "none", liveType(c.Type(), true))
			} else {
				col(name, c.Name(), ColumnClustering, i-1, "asc", liveType(c.Type(), true))
			}
		}
		if l.IsUnique() {
			col(name, kandra.ClaimColumn, ColumnRegular, -1, "none", "bigint")
		}
	}
	for name := range f.own {
		table(name, 0, 864000, false)
		col(name, "k", ColumnPartitionKey, 0, "none", "text")
	}
	for name, fields := range f.types {
		r.Types = append(r.Types, typeRow(keyspace, name, fields))
	}
	for _, row := range f.indexes {
		r.Indexes = append(r.Indexes, row)
	}
	return r, nil
}

func (f *fakeDriver) ExecSchema(ctx context.Context, stmt string) error {
	if f.onSchema != nil {
		if err := f.onSchema(ctx, stmt); err != nil {
			return err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.schema = append(f.schema, stmt)
	switch {
	case strings.HasPrefix(stmt, "CREATE KEYSPACE"):
		f.exists = true
		return nil
	case strings.Contains(stmt, ".kandra_"):
		for _, n := range []string{LeaseTable, HistoryTable, BackfillTable} {
			if strings.Contains(stmt, "."+n+" ") {
				f.own[n] = true
			}
		}
		return nil
	}
	// A step of the target's plan against the current state.
	f.mu.Unlock()
	rows, _ := f.SchemaRows(ctx, f.target.Name())
	f.mu.Lock()
	live, err := liveFromRows(f.target.Name(), rows)
	if err != nil {
		return err
	}
	p, err := NewPlan(f.target, live)
	if err != nil {
		return err
	}
	for _, s := range p.Steps {
		if strings.TrimSuffix(strings.TrimSpace(s.CQL), ";") != stmt {
			continue
		}
		switch s.Kind {
		case StepCreateTable:
			f.tables[s.Table] = f.target.Table(s.Table)
		case StepCreateLookupTable:
			f.lookups[s.Table] = f.target.LookupTable(s.Table)
		case StepAddColumn:
			f.added[s.Table+"."+s.Column] = true
		case StepChangeMask:
			f.setMask(s)
		case StepCreateIndex:
			for _, row := range rowsOf(f.target).Indexes {
				if stepID(StepCreateIndex, row["index_name"].(string)) == s.ID {
					f.indexes[row["index_name"].(string)] = row
				}
			}
		case StepCreateType:
			f.types[s.UDT] = udtOf(f.target, s.UDT).Fields()
		case StepAddField:
			for _, fl := range udtOf(f.target, s.UDT).Fields() {
				if fl.Name == s.Field {
					f.types[s.UDT] = append(f.types[s.UDT], fl)
				}
			}
		}
		return nil
	}
	return fmt.Errorf("fake: unknown schema statement %q", stmt)
}

// udtOf returns the user-defined type name of ks.
func udtOf(ks *kandra.Keyspace, name string) kandra.CQLType {
	for _, t := range ks.Types() {
		if t.Name() == name {
			return t
		}
	}
	return kandra.CQLType{}
}

func (f *fakeDriver) AwaitSchemaAgreement(context.Context) error { return f.agreement }

func (f *fakeDriver) SchemaVersions(context.Context) (map[string]string, error) {
	return map[string]string{"127.0.0.1": "v"}, nil
}

func (f *fakeDriver) ExecCQL(ctx context.Context, stmt string, v []any, c kandra.Consistency) (bool, error) {
	if f.onExec != nil {
		f.onExec(stmt)
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes++
	now := time.Now()
	switch {
	case strings.Contains(stmt, LeaseTable) && strings.HasPrefix(stmt, "INSERT"):
		if f.leaseOwner != "" && now.Before(f.leaseExpiry) {
			return false, nil
		}
		f.leaseOwner, f.leaseExpiry = v[1].(string), now.Add(time.Duration(v[3].(int))*time.Second)
		return true, nil
	case strings.Contains(stmt, LeaseTable) && strings.HasPrefix(stmt, "UPDATE"):
		if f.leaseOwner != v[3].(string) || !now.Before(f.leaseExpiry) {
			return false, nil
		}
		f.leaseExpiry = now.Add(time.Duration(v[0].(int)) * time.Second)
		f.renewals++
		return true, nil
	case strings.Contains(stmt, LeaseTable) && strings.HasPrefix(stmt, "DELETE"):
		if f.leaseOwner != v[1].(string) {
			return false, nil
		}
		f.leaseOwner = ""
		return true, nil
	case strings.Contains(stmt, HistoryTable):
		f.history = append(f.history, map[string]any{"plan_hash": v[0], "applied_at": v[1], "steps": v[2], "owner": v[3]})
		return true, nil
	case strings.Contains(stmt, BackfillTable) && strings.HasPrefix(stmt, "DELETE"):
		l := v[0].(string)
		delete(f.bfStatus, l)
		delete(f.bfRanges, l)
		delete(f.bfDone, l)
		return true, nil
	case strings.Contains(stmt, BackfillTable) && strings.Contains(stmt, "(lookup, status, ranges)"):
		f.bfStatus[v[0].(string)], f.bfRanges[v[0].(string)] = "running", v[1].(int)
		return true, nil
	case strings.Contains(stmt, BackfillTable) && strings.Contains(stmt, "(lookup, status)"):
		f.bfStatus[v[0].(string)] = strings.Split(strings.Split(stmt, "'")[1], "'")[0]
		return true, nil
	case strings.Contains(stmt, BackfillTable) && strings.Contains(stmt, "range_start"):
		l := v[0].(string)
		if f.bfDone[l] == nil {
			f.bfDone[l] = map[int64]int64{}
		}
		f.bfDone[l][v[1].(int64)] = v[2].(int64)
		return true, nil
	}
	return false, fmt.Errorf("fake: unknown statement %q", stmt)
}

func (f *fakeDriver) QueryCQL(ctx context.Context, stmt string, v []any, c kandra.Consistency) ([]map[string]any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case strings.Contains(stmt, "scylla_nr_shards FROM system.local"):
		if f.scylla == "" {
			return nil, errors.New("Undefined column name scylla_nr_shards in table system.local")
		}
		return []map[string]any{{"scylla_nr_shards": 2}}, nil
	case strings.Contains(stmt, "release_version FROM system.local"):
		return []map[string]any{{"release_version": "5.0.8"}}, nil
	case strings.Contains(stmt, "FROM system.versions"):
		if f.scylla == "?" {
			return nil, errors.New("User app has no SELECT permission on <table system.versions> or any of its parents")
		}
		return []map[string]any{{"version": f.scylla}}, nil
	case strings.Contains(stmt, "system_schema.scylla_keyspaces"):
		if !f.tablets {
			return nil, nil
		}
		return []map[string]any{{"initial_tablets": 0}}, nil
	case strings.Contains(stmt, LeaseTable):
		if f.leaseOwner == "" || !time.Now().Before(f.leaseExpiry) {
			return nil, nil
		}
		return []map[string]any{{"owner": f.leaseOwner, "ttl": int(time.Until(f.leaseExpiry).Seconds())}}, nil
	case strings.Contains(stmt, HistoryTable):
		return f.history, nil
	case strings.HasPrefix(stmt, "SELECT DISTINCT lookup, status"):
		var out []map[string]any
		for l, s := range f.bfStatus {
			out = append(out, map[string]any{"lookup": l, "status": s})
		}
		return out, nil
	case strings.Contains(stmt, BackfillTable):
		l := v[0].(string)
		st, ok := f.bfStatus[l]
		if !ok {
			return nil, nil
		}
		out := []map[string]any{{"status": st, "ranges": f.bfRanges[l]}}
		for start, end := range f.bfDone[l] {
			out = append(out, map[string]any{"status": st, "ranges": f.bfRanges[l], "range_start": start, "range_end": end, "done_at": time.Now()})
		}
		return out, nil
	case strings.HasPrefix(stmt, "SELECT COUNT(*)"):
		for name, vals := range f.lookupRows {
			if strings.Contains(stmt, "."+name+" ") {
				n := int64(0)
				for val := range vals {
					if tk := token(val); tk > v[0].(int64) && tk <= v[1].(int64) {
						n++
					}
				}
				return []map[string]any{{"n": n}}, nil
			}
		}
		return []map[string]any{{"n": int64(0)}}, nil
	case strings.HasSuffix(stmt, " LIMIT 1"):
		for name, rows := range f.rows {
			if strings.Contains(stmt, "."+name+" ") && len(rows) > 0 {
				return []map[string]any{{"k": "x"}}, nil
			}
		}
		return nil, nil
	}
	return nil, fmt.Errorf("fake: unknown query %q", stmt)
}

// token is the fake partitioner: FNV-1a of the key's text, never MinInt64.
func token(key string) int64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	t := int64(h.Sum64())
	if t == math.MinInt64 {
		t = math.MaxInt64
	}
	return t
}

// The runtime side: token-range scans of a primary table, lookup inserts.

func (f *fakeDriver) Exec(ctx context.Context, q *adapter.Query) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	name := q.Statement.TableName()
	if f.lookupRows[name] == nil {
		f.lookupRows[name] = map[string]bool{}
	}
	f.lookupRows[name][fmt.Sprint(reflect.ValueOf(q.Values[0]).Elem().Interface())] = true
	return true, nil
}

func (f *fakeDriver) Query(ctx context.Context, q *adapter.Query) (adapter.Rows, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	start, end := q.Values[0].(int64), q.Values[1].(int64)
	var in [][]any
	for _, r := range f.rows[q.Statement.TableName()] {
		if tk := token(fmt.Sprint(r[0])); tk > start && tk <= end {
			in = append(in, r)
		}
	}
	off := 0
	if len(q.PageState) == 8 {
		off = int(binary.BigEndian.Uint64(q.PageState))
	}
	stop := min(len(in), off+q.PageSize)
	if q.PageSize == 0 {
		stop = len(in)
	}
	fr := &fakeRows{rows: in[off:stop]}
	if stop < len(in) {
		fr.state = binary.BigEndian.AppendUint64(nil, uint64(stop))
	}
	return fr, nil
}

func (f *fakeDriver) Batch(context.Context, *adapter.Batch) (bool, error) {
	return false, errors.New("fake: no batches")
}

type fakeRows struct {
	rows  [][]any
	state []byte
}

func (r *fakeRows) Next(dst []any) bool {
	if len(r.rows) == 0 {
		return false
	}
	for i, v := range r.rows[0] {
		reflect.ValueOf(dst[i]).Elem().Set(reflect.ValueOf(v))
	}
	r.rows = r.rows[1:]
	return true
}

func (r *fakeRows) PageState() []byte { return r.state }
func (r *fakeRows) Close() error      { return nil }
