package migrate

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kandra-go/kandra"
)

// liveFromRows builds the live model of keyspace from the system_schema
// rows the migrator read over the driver's QueryCQL (session.SchemaRows;
// adapter.Driver.QueryCQL says the value conventions): it is how Read
// turns them into a Live. Rows of other keyspaces are skipped, and so are
// columns of tables that system_schema.tables does not list (a
// materialized view's). No keyspaces row for keyspace means the keyspace
// does not exist: Live.Keyspace is nil, and any other row of it is an
// error.
//
// Types are parsed with kandra.ParseCQLType (FROZEN<...> is dropped by
// the parser; a descending clustering column comes with clustering_order
// "desc" and its plain type). A user-defined type is read from
// system_schema.types: its fields' types are parsed in turn, and a
// column's or a field's reference to it (frozen<address>) is resolved to
// the whole type (LiveType.Type). A type kandra cannot parse (a tuple, a
// custom type) is kept as RawType with the zero Type, and a plan that
// touches the column reports an impossible step rather than guess.
//
// A column's mask (system_schema.column_masks) is read into LiveColumn.Mask
// (readMask), the user-defined functions and aggregates into
// LiveKeyspace.Functions and Aggregates, the materialized views and
// triggers into Views and Triggers, and a table's legacy form from its
// flags into LiveTable.Legacy.
//
// A row whose values do not follow the conventions (a missing name, a
// position that is not an integer, an unknown column kind) is an error
// naming the table, the row and the column.
func liveFromRows(keyspace string, r *schemaRows) (*Live, error) {
	if r == nil {
		return nil, errors.New("migrate: no system_schema rows were read for keyspace " + strconv.Quote(keyspace))
	}
	rd := rowReader{keyspace: keyspace}
	ks := rd.keyspaceRow(r.Keyspaces)
	if rd.err != nil {
		return nil, rd.err
	}
	if ks == nil {
		for _, rows := range [][]map[string]any{r.Tables, r.Columns, r.Indexes, r.Types, r.DroppedColumns, r.ColumnMasks, r.Functions, r.Aggregates, r.Views, r.Triggers} {
			for i, row := range rows {
				if rd.mine(row) {
					return nil, fmt.Errorf("migrate: system_schema rows of keyspace %q: row %d of a table (%v) without a row in system_schema.keyspaces; read the schema again", keyspace, i, row["table_name"])
				}
			}
		}
		return &Live{}, nil
	}
	rd.tables(ks, r.Tables)
	rd.columns(ks, r.Columns)
	rd.indexes(ks, r.Indexes)
	rd.types(ks, r.Types)
	rd.dropped(ks, r.DroppedColumns)
	rd.masks(ks, r.ColumnMasks)
	ks.Functions = rd.functions("functions", "function_name", r.Functions)
	ks.Aggregates = rd.functions("aggregates", "aggregate_name", r.Aggregates)
	rd.viewsAndTriggers(ks, r.Views, r.Triggers)
	if rd.err != nil {
		return nil, rd.err
	}
	resolveTypes(ks)
	for _, t := range ks.Tables {
		sortColumns(t.Columns)
		slices.SortFunc(t.Indexes, func(a, b *LiveIndex) int { return strings.Compare(a.Name, b.Name) })
	}
	return &Live{Keyspace: ks}, nil
}

// sortColumns puts columns in key order: partition keys by position,
// clustering columns by position, then the others by name.
func sortColumns(cs []*LiveColumn) {
	rank := func(k ColumnKind) int {
		switch k {
		case ColumnPartitionKey:
			return 0
		case ColumnClustering:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(cs, func(a, b *LiveColumn) int {
		if d := rank(a.Kind) - rank(b.Kind); d != 0 {
			return d
		}
		if rank(a.Kind) < 2 && a.Position != b.Position {
			return a.Position - b.Position
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// rowReader reads rows, keeping the first error.
type rowReader struct {
	keyspace string
	err      error
}

// mine reports whether row belongs to the keyspace: a row without a
// keyspace_name is taken as the keyspace's, as adapters filter by it.
func (rd *rowReader) mine(row map[string]any) bool {
	v, ok := row["keyspace_name"]
	if !ok || v == nil {
		return true
	}
	s, isString := v.(string)
	return isString && s == rd.keyspace
}

func (rd *rowReader) fail(table string, i int, col, problem string) {
	if rd.err == nil {
		rd.err = fmt.Errorf("migrate: system_schema.%s of keyspace %q, row %d: column %s %s", table, rd.keyspace, i, col, problem)
	}
}

// str reads a text column; required says whether null is an error.
func (rd *rowReader) str(table string, i int, row map[string]any, col string, required bool) string {
	v := row[col]
	if v == nil {
		if required {
			rd.fail(table, i, col, "is missing or null")
		}
		return ""
	}
	s, ok := v.(string)
	if !ok {
		rd.fail(table, i, col, fmt.Sprintf("is a %T, want a string", v))
		return ""
	}
	if required && s == "" {
		rd.fail(table, i, col, "is empty")
	}
	return s
}

// num reads an int column; null reads as def.
func (rd *rowReader) num(table string, i int, row map[string]any, col string, def int) int {
	v := row[col]
	switch n := v.(type) {
	case nil:
		return def
	case int:
		return n
	case int8:
		return int(n)
	case int16:
		return int(n)
	case int32:
		return int(n)
	case int64:
		if int64(int(n)) == n {
			return int(n)
		}
	}
	rd.fail(table, i, col, fmt.Sprintf("is %T %v, want an int", v, v))
	return def
}

func (rd *rowReader) boolean(table string, i int, row map[string]any, col string) bool {
	switch b := row[col].(type) {
	case nil:
		return false
	case bool:
		return b
	}
	rd.fail(table, i, col, fmt.Sprintf("is a %T, want a bool", row[col]))
	return false
}

func (rd *rowReader) strMap(table string, i int, row map[string]any, col string) map[string]string {
	switch m := row[col].(type) {
	case nil:
		return map[string]string{}
	case map[string]string:
		out := make(map[string]string, len(m))
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	rd.fail(table, i, col, fmt.Sprintf("is a %T, want a map[string]string", row[col]))
	return nil
}

func (rd *rowReader) strings(table string, i int, row map[string]any, col string) []string {
	switch s := row[col].(type) {
	case nil:
		return nil
	case []string:
		return slices.Clone(s)
	}
	rd.fail(table, i, col, fmt.Sprintf("is a %T, want a []string", row[col]))
	return nil
}

func (rd *rowReader) keyspaceRow(rows []map[string]any) *LiveKeyspace {
	var ks *LiveKeyspace
	for i, row := range rows {
		if !rd.mine(row) {
			continue
		}
		if ks != nil {
			rd.fail("keyspaces", i, "keyspace_name", "repeats "+strconv.Quote(rd.keyspace))
			return nil
		}
		ks = &LiveKeyspace{
			Name:          rd.keyspace,
			Replication:   rd.strMap("keyspaces", i, row, "replication"),
			DurableWrites: rd.boolean("keyspaces", i, row, "durable_writes"),
			Tables:        map[string]*LiveTable{},
			Types:         map[string]*LiveType{},
		}
	}
	return ks
}

func (rd *rowReader) tables(ks *LiveKeyspace, rows []map[string]any) {
	const tab = "tables"
	for i, row := range rows {
		if !rd.mine(row) {
			continue
		}
		name := rd.str(tab, i, row, "table_name", true)
		if rd.err != nil {
			return
		}
		if ks.Tables[name] != nil {
			rd.fail(tab, i, "table_name", "repeats "+strconv.Quote(name))
			return
		}
		ks.Tables[name] = &LiveTable{
			Name:       name,
			ID:         rd.str(tab, i, row, "id", false),
			Dropped:    map[string]*LiveDropped{},
			DefaultTTL: time.Duration(rd.num(tab, i, row, "default_time_to_live", 0)) * time.Second,
			GCGrace:    time.Duration(rd.num(tab, i, row, "gc_grace_seconds", 0)) * time.Second,
			Flags:      rd.strings(tab, i, row, "flags"),
			Options:    rd.storage(tab, i, row),
		}
		ks.Tables[name].Legacy = legacyForm(row, ks.Tables[name].Flags)
	}
}

// storageColumns are the storage options of system_schema.tables the
// planner compares: maps, then scalars.
var storageColumns = [...]string{"compaction", "compression", "caching", "comment", "speculative_retry", "bloom_filter_fp_chance", "memtable", "cdc"}

// storage reads a table row's storage options as LiveTable.Options says.
func (rd *rowReader) storage(tab string, i int, row map[string]any) map[string]string {
	out := map[string]string{}
	for _, col := range storageColumns {
		switch v := row[col].(type) {
		case nil:
		case map[string]string:
			for k, x := range v {
				out[col+"."+k] = x
			}
		case string:
			out[col] = v
		case bool:
			out[col] = strconv.FormatBool(v)
		case float64:
			out[col] = strconv.FormatFloat(v, 'g', -1, 64)
		case float32:
			out[col] = strconv.FormatFloat(float64(v), 'g', -1, 32)
		default:
			rd.fail(tab, i, col, fmt.Sprintf("is a %T, want a map, text, boolean or double", v))
		}
	}
	return out
}

// kind reads a column kind; required says whether null is an error.
func (rd *rowReader) kind(table string, i int, row map[string]any) ColumnKind {
	s := rd.str(table, i, row, "kind", false)
	switch k := ColumnKind(strings.ToLower(s)); k {
	case ColumnPartitionKey, ColumnClustering, ColumnRegular, ColumnStatic:
		return k
	case "":
		return ColumnRegular
	}
	rd.fail(table, i, "kind", "is "+strconv.Quote(s)+", want partition_key, clustering, regular or static")
	return ""
}

// parseType parses a live type; one kandra cannot read stays raw, with
// the zero CQLType.
func parseType(raw string) kandra.CQLType {
	t, err := kandra.ParseCQLType(raw)
	if err != nil {
		return kandra.CQLType{}
	}
	return t
}

func (rd *rowReader) columns(ks *LiveKeyspace, rows []map[string]any) {
	const tab = "columns"
	for i, row := range rows {
		if !rd.mine(row) {
			continue
		}
		tname := rd.str(tab, i, row, "table_name", true)
		name := rd.str(tab, i, row, "column_name", true)
		raw := rd.str(tab, i, row, "type", true)
		kind := rd.kind(tab, i, row)
		order := strings.ToLower(rd.str(tab, i, row, "clustering_order", false))
		pos := rd.num(tab, i, row, "position", -1)
		if rd.err != nil {
			return
		}
		t := ks.Tables[tname]
		if t == nil {
			continue // a view's column, or a table dropped meanwhile
		}
		if t.Column(name) != nil {
			rd.fail(tab, i, "column_name", "repeats "+strconv.Quote(name)+" in table "+strconv.Quote(tname))
			return
		}
		if order == "" {
			order = "none"
		}
		switch kind {
		case ColumnPartitionKey, ColumnClustering:
			if pos < 0 {
				rd.fail(tab, i, "position", fmt.Sprintf("is %d for key column %q of table %q, want 0 or more", pos, name, tname))
				return
			}
		default:
			pos = -1
		}
		t.Columns = append(t.Columns, &LiveColumn{Name: name, Kind: kind, Position: pos, Order: order, Type: parseType(raw), RawType: raw})
	}
}

func (rd *rowReader) indexes(ks *LiveKeyspace, rows []map[string]any) {
	const tab = "indexes"
	for i, row := range rows {
		if !rd.mine(row) {
			continue
		}
		tname := rd.str(tab, i, row, "table_name", true)
		name := rd.str(tab, i, row, "index_name", true)
		kind := rd.str(tab, i, row, "kind", false)
		opts := rd.strMap(tab, i, row, "options")
		if rd.err != nil {
			return
		}
		if t := ks.Tables[tname]; t != nil {
			t.Indexes = append(t.Indexes, &LiveIndex{Name: name, Kind: kind, Options: opts})
		}
	}
}

func (rd *rowReader) types(ks *LiveKeyspace, rows []map[string]any) {
	const tab = "types"
	for i, row := range rows {
		if !rd.mine(row) {
			continue
		}
		name := rd.str(tab, i, row, "type_name", true)
		lt := &LiveType{Name: name, FieldNames: rd.strings(tab, i, row, "field_names"), FieldTypes: rd.strings(tab, i, row, "field_types")}
		if rd.err != nil {
			return
		}
		switch {
		case ks.Types[name] != nil:
			rd.fail(tab, i, "type_name", "repeats "+strconv.Quote(name))
			return
		case len(lt.FieldNames) != len(lt.FieldTypes):
			rd.fail(tab, i, "field_types", fmt.Sprintf("has %d types for %d field names of type %q", len(lt.FieldTypes), len(lt.FieldNames), name))
			return
		}
		for j, fn := range lt.FieldNames {
			if fn == "" {
				rd.fail(tab, i, "field_names", fmt.Sprintf("has an empty name at %d in type %q", j, name))
				return
			}
			if slices.Contains(lt.FieldNames[:j], fn) {
				rd.fail(tab, i, "field_names", "repeats "+strconv.Quote(fn)+" in type "+strconv.Quote(name))
				return
			}
			lt.Fields = append(lt.Fields, kandra.UDTField{Name: fn, Type: parseType(lt.FieldTypes[j])})
		}
		ks.Types[name] = lt
	}
}

// resolveTypes fills each live type's Type, and resolves the
// user-defined types that the columns' and the dropped columns' types
// name.
func resolveTypes(ks *LiveKeyspace) {
	r := typeResolver{types: ks.Types, done: map[string]kandra.CQLType{}, busy: map[string]bool{}}
	for _, name := range slices.Sorted(maps.Keys(ks.Types)) {
		ks.Types[name].Type = r.udt(name)
	}
	for _, t := range ks.Tables {
		for _, c := range t.Columns {
			c.Type = r.resolve(c.Type, false)
		}
		for _, d := range t.Dropped {
			d.Type = r.resolve(d.Type, false)
		}
	}
}

// typeResolver resolves references to user-defined types (kandra.UDTOf
// with no fields, as ParseCQLType reads a type's name) to the live
// types, each once.
type typeResolver struct {
	types map[string]*LiveType
	done  map[string]kandra.CQLType // resolved types; the zero CQLType for one that cannot be
	busy  map[string]bool           // being resolved: a type that holds itself (never on a server)
}

// udt resolves the live type name: the zero CQLType when the keyspace
// lacks it, one of its fields cannot be read or resolved, or it holds
// itself.
func (r *typeResolver) udt(name string) kandra.CQLType {
	if t, ok := r.done[name]; ok {
		return t
	}
	lt := r.types[name]
	if lt == nil || r.busy[name] {
		return kandra.CQLType{}
	}
	r.busy[name] = true
	fields := make([]kandra.UDTField, len(lt.Fields))
	var out kandra.CQLType
	for i, f := range lt.Fields {
		ft := r.resolve(f.Type, true)
		if ft.IsZero() {
			fields = nil
			break
		}
		fields[i] = kandra.UDTField{Name: f.Name, Type: ft}
	}
	if fields != nil {
		out = kandra.UDTOf(name, fields...)
	}
	delete(r.busy, name)
	r.done[name] = out
	return out
}

// resolve replaces the references in t by the types they name. A
// reference that cannot be resolved makes the whole type zero when
// strict is set (a type's field), and is kept as it is otherwise (a
// column's type, which the planner compares by name).
func (r *typeResolver) resolve(t kandra.CQLType, strict bool) kandra.CQLType {
	switch t.Kind() {
	case kandra.KindUDT:
		if len(t.Fields()) > 0 {
			return t
		}
		if u := r.udt(t.Name()); !u.IsZero() || strict {
			return u
		}
		return t
	case kandra.KindList, kandra.KindSet, kandra.KindVector:
		e := r.resolve(t.Elem(), strict)
		switch {
		case e.IsZero():
			return kandra.CQLType{}
		case t.Kind() == kandra.KindList:
			return kandra.ListOf(e)
		case t.Kind() == kandra.KindSet:
			return kandra.SetOf(e)
		}
		return kandra.VectorOf(e, t.Dim())
	case kandra.KindMap:
		k, v := r.resolve(t.Key(), strict), r.resolve(t.Elem(), strict)
		if k.IsZero() || v.IsZero() {
			return kandra.CQLType{}
		}
		return kandra.MapOf(k, v)
	}
	return t // a native, or the zero CQLType
}

func (rd *rowReader) dropped(ks *LiveKeyspace, rows []map[string]any) {
	const tab = "dropped_columns"
	for i, row := range rows {
		if !rd.mine(row) {
			continue
		}
		tname := rd.str(tab, i, row, "table_name", true)
		name := rd.str(tab, i, row, "column_name", true)
		raw := rd.str(tab, i, row, "type", false)
		kind := rd.kind(tab, i, row)
		var at time.Time
		switch v := row["dropped_time"].(type) {
		case nil:
		case time.Time:
			at = v
		default:
			rd.fail(tab, i, "dropped_time", fmt.Sprintf("is a %T, want a time.Time", v))
		}
		if rd.err != nil {
			return
		}
		t := ks.Tables[tname]
		if t == nil {
			continue
		}
		// A name dropped twice keeps its latest drop, as the server does.
		if d := t.Dropped[name]; d == nil || at.After(d.DroppedAt) {
			t.Dropped[name] = &LiveDropped{Name: name, Type: parseType(raw), RawType: raw, Kind: kind, DroppedAt: at}
		}
	}
}
