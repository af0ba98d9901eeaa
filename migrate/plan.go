package migrate

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

// Plan is the difference between a kandra.Keyspace and the live keyspace,
// as ordered steps. Build it with NewPlan; render it with Script (a .cql
// file for review) or String (a table); check it with Err.
type Plan struct {
	// Keyspace is the keyspace's name.
	Keyspace string
	// Steps are in dependency order: the keyspace, user-defined types and
	// their added fields (each type after the types it holds), primary
	// tables, lookup tables, added columns, indexes, table options,
	// backfills (each after its lookup table exists), then the impossible
	// steps.
	Steps []Step
	// Extra lists what the live keyspace has and the model does not
	// ("table users_old", "column users.legacy", "index users_x_idx on
	// users", "type address", "field address.old", "mask mask_null() of
	// column users_by_email.id", "function ks.f(int)", "aggregate
	// ks.total(bigint)"): reported, never dropped. The migrator's own tables (kandra_*) are not listed. A
	// field only live has stays in its type (no server drops a field):
	// the runtime writes a user-defined type's whole value, so each write
	// of a value of the type sets that field to null.
	Extra []string
	// Notes are what the planner matched without a step, and how the
	// model could say it as live does: a live index of another name that
	// is the model's index ("index idx_email on users.email is the model's
	// index users_email_idx under the name the keyspace gave it: ...").
	Notes []string
}

// ownTablePrefix starts the names of the migrator's own tables (history,
// lease, backfill progress), which live in the target keyspace.
const ownTablePrefix = "kandra_"

// The phases steps are ordered by.
const (
	phaseKeyspace = iota
	phaseType
	phaseTable
	phaseLookup
	phaseColumn
	phaseIndex
	phaseOptions
	phaseBackfill
	phaseImpossible
	phases
)

// planner collects the steps of one NewPlan by phase.
type planner struct {
	ks      *kandra.Keyspace
	live    *Live
	qks     string // the keyspace's name as written in CQL
	targets kandra.Target
	steps   [phases][]Step
	extra   []string
	notes   []string
	adopted map[string]bool // live indexes of other names taken as the model's
}

// NewPlan compares the model ks with the live keyspace and returns the
// steps that bring live to ks. It never plans a drop: what only live has
// is listed in Plan.Extra. A nil Live.Keyspace (the keyspace does not
// exist) plans the keyspace and everything in it; an existing keyspace
// with no tables plans the same minus the keyspace. It reads nothing: a
// backfill still pending is planned from live.PendingBackfills, which Read
// fills, so NewPlan on the Live that Read returned is the plan PlanFor
// makes (PlanFor also checks that ks's rules were checked for the server).
//
// The error is only for input NewPlan cannot compare: a nil ks or live,
// or a live keyspace of another name.
func NewPlan(ks *kandra.Keyspace, live *Live) (*Plan, error) {
	if ks == nil {
		return nil, &kerrors.MigrationError{Message: "NewPlan: nil *kandra.Keyspace; build the model with kandra.NewKeyspace"}
	}
	if live == nil {
		return nil, &kerrors.MigrationError{Message: "NewPlan: nil *Live for keyspace " + strconv.Quote(ks.Name()) + "; read it with Read (a missing keyspace is a Live with a nil Keyspace)"}
	}
	if live.Keyspace != nil && live.Keyspace.Name != ks.Name() {
		return nil, &kerrors.MigrationError{Message: fmt.Sprintf("NewPlan: the live schema is of keyspace %q, the model of keyspace %q; read the model's keyspace", live.Keyspace.Name, ks.Name())}
	}
	p := &planner{ks: ks, live: live, qks: kandra.QuoteIdent(ks.Name()), targets: ks.Spec().Targets, adopted: map[string]bool{}}
	p.keyspace()
	p.types()
	for _, t := range ks.Tables() {
		p.table(t)
	}
	p.extras()
	p.routines()
	plan := &Plan{Keyspace: ks.Name(), Extra: p.extra, Notes: p.notes}
	for _, s := range p.steps {
		plan.Steps = append(plan.Steps, s...)
	}
	return plan, nil
}

func (p *planner) add(phase int, s Step) { p.steps[phase] = append(p.steps[phase], s) }

// impossible adds an impossible step.
func (p *planner) impossible(k StepKind, object, table, column, reason, manual string) {
	p.add(phaseImpossible, Step{ID: stepID(k, object), Class: Impossible, Kind: k, Table: table, Column: column, Reason: reason, Manual: manual})
}

// qualified is a table's name qualified with the keyspace's, as in CQL.
func (p *planner) qualified(cqlTable string) string { return p.qks + "." + cqlTable }

// mustCQL is for the Keyspace DDL writers called with the keyspace's own
// tables and columns: they fail only for a table or column of another
// keyspace, which NewPlan never passes.
func mustCQL(s string, err error) string {
	if err != nil {
		panic("migrate: a kandra DDL writer refused the keyspace's own table: " + err.Error())
	}
	return s
}

func (p *planner) keyspace() {
	lks := p.live.Keyspace
	name := p.ks.Name()
	if lks == nil {
		// The tablets option as the server needs it.
		p.add(phaseKeyspace, Step{ID: stepID(StepCreateKeyspace, name), Class: Safe, Kind: StepCreateKeyspace, CQL: p.ks.CreateKeyspaceOn(p.live.Server.Targets),
			Reason: "keyspace " + strconv.Quote(name) + " does not exist"})
		return
	}
	want := p.ks.Replication()
	got, err := kandra.ParseReplication(lks.Replication)
	if err == nil && got.Equal(want) {
		return
	}
	what := got.String()
	if err != nil {
		what = describeReplication(lks.Replication) + " (" + err.Error() + ")"
	}
	p.impossible(StepChangeReplication, name, "", "",
		"keyspace "+strconv.Quote(name)+" is replicated "+what+", the model says "+want.String(),
		"changing replication moves data between nodes, which only a repair completes, so the migrator leaves it to you: "+
			"run "+p.ks.AlterKeyspace()+" then a full repair (nodetool repair -full) on every node before relying on the new factors; "+
			"or change the model's KeyspaceSpec.Replication to what the cluster has")
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// describeReplication renders a live replication map that no
// kandra.Replication describes, for a message: the class without its
// package, then the other options sorted, "LocalStrategy".
func describeReplication(m map[string]string) string {
	class := m["class"]
	parts := []string{class[strings.LastIndexByte(class, '.')+1:]}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k != "class" {
			parts = append(parts, k+"="+m[k])
		}
	}
	return strings.Join(parts, " ")
}

func (p *planner) table(t *kandra.TableSchema) {
	lt := p.live.Table(t.Name())
	if lt == nil {
		p.add(phaseTable, Step{ID: stepID(StepCreateTable, t.Name()), Class: Safe, Kind: StepCreateTable, Table: t.Name(),
			CQL: mustCQL(p.ks.CreateTable(t)), Reason: "table " + strconv.Quote(t.Name()) + " does not exist"})
	} else {
		p.diffTable(t, lt)
	}
	for _, l := range t.LookupTables() {
		p.lookup(l, lt != nil)
	}
	for _, c := range t.SecondaryIndexes() {
		p.index(t, lt, c)
	}
	p.hidden(t, lt)
}

// wantColumn is a column as the model declares it, in a primary or a
// lookup table.
type wantColumn struct {
	name   string
	typ    kandra.CQLType
	frozen bool // a collection declared FROZEN<...>
	kind   ColumnKind
	order  string // "asc" or "desc" for a clustering column, else "none"
}

// decl renders the model's type as servers spell types in
// system_schema (lower case but for quoted names), so that it reads beside
// the live one.
func (w wantColumn) decl() string {
	if w.frozen {
		return serverCase(w.typ.Frozen())
	}
	return serverCase(w.typ.String())
}

// serverCase lower-cases a rendered type outside its quoted names.
func serverCase(s string) string {
	b := []byte(s)
	quoted := false
	for i, c := range b {
		switch {
		case c == '"':
			quoted = !quoted
		case !quoted && 'A' <= c && c <= 'Z':
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// freezable reports a type whose freezing is part of its declaration: a
// collection or a user-defined type, frozen or not at the top of a
// column's type (a vector is frozen implicitly, a native never).
func freezable(t kandra.CQLType) bool { return t.IsCollection() || t.Kind() == kandra.KindUDT }

func modelColumn(c *kandra.ColumnSchema) wantColumn {
	w := wantColumn{name: c.Name(), typ: c.Type(), kind: ColumnRegular, order: "none"}
	switch {
	case c.IsPartitionKey():
		w.kind = ColumnPartitionKey
	case c.IsClusteringKey():
		w.kind = ColumnClustering
		w.order = strings.ToLower(c.ClusteringOrder().String())
	case c.IsStatic():
		w.kind = ColumnStatic
	}
	// kandra freezes a collection or a user-defined type in a key
	// position, and a user-defined type given kandra.Frozen, and nothing
	// else at the top level (nested ones are always frozen).
	w.frozen = c.IsFrozen()
	return w
}

// typeMismatch says how live column lc differs in type from w, or "".
func typeMismatch(w wantColumn, lc *LiveColumn) string {
	if lc.Type.IsZero() {
		return "kandra cannot read its live type " + strconv.Quote(lc.RawType) + " (a tuple or custom type), so it cannot be compared with the model's " + w.decl()
	}
	if !sameType(w.typ, lc.Type) || freezable(w.typ) && outerFrozen(lc.RawType) != w.frozen {
		return "its type is " + lc.RawType + " in live, " + w.decl() + " in the model"
	}
	return ""
}

// sameType compares two type trees as a server does: VARCHAR is TEXT, and
// user-defined types match by name (a column's type names its type; the
// planner compares each type's fields apart). Freezing is not in the
// trees; typeMismatch compares the outer one.
func sameType(a, b kandra.CQLType) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case kandra.KindInvalid:
		return true
	case kandra.KindNative:
		return nativeName(a) == nativeName(b)
	case kandra.KindMap:
		return sameType(a.Key(), b.Key()) && sameType(a.Elem(), b.Elem())
	case kandra.KindVector:
		return a.Dim() == b.Dim() && sameType(a.Elem(), b.Elem())
	case kandra.KindUDT:
		return a.Name() == b.Name()
	}
	return sameType(a.Elem(), b.Elem())
}

func nativeName(t kandra.CQLType) string {
	if n := t.Name(); n != "VARCHAR" {
		return n
	}
	return "TEXT"
}

// outerFrozen reports whether a live type is written frozen<...> at the
// top. Servers write every nested collection and user-defined type
// frozen, so the top is the only place freezing can differ for the same
// tree.
func outerFrozen(raw string) bool {
	s := strings.TrimSpace(raw)
	return len(s) >= 7 && strings.EqualFold(s[:6], "frozen") && strings.HasPrefix(strings.TrimLeft(s[6:], " \t\r\n\f\v"), "<")
}

// keyColumns returns live's columns of kind k, by position.
func keyColumns(lt *LiveTable, k ColumnKind) []*LiveColumn {
	var out []*LiveColumn
	for _, c := range lt.Columns {
		if c.Kind == k {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b *LiveColumn) int { return a.Position - b.Position })
	return out
}

func liveNames(cs []*LiveColumn) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return "(" + strings.Join(names, ", ") + ")"
}

func wantNames(ws []wantColumn) string {
	names := make([]string, len(ws))
	for i, w := range ws {
		names[i] = w.name
	}
	return "(" + strings.Join(names, ", ") + ")"
}

// keyDiff compares one part of the primary key (the partition key or the
// clustering columns): it returns how the columns or their types differ,
// and separately how only the clustering order differs.
func keyDiff(what string, want []wantColumn, live []*LiveColumn) (key, order string) {
	if len(want) != len(live) {
		return what + " is " + liveNames(live) + " in live, " + wantNames(want) + " in the model", ""
	}
	for i, w := range want {
		if live[i].Name != w.name {
			return what + " is " + liveNames(live) + " in live, " + wantNames(want) + " in the model", ""
		}
	}
	for i, w := range want {
		if m := typeMismatch(w, live[i]); m != "" {
			return what + " column " + strconv.Quote(w.name) + " differs: " + m, ""
		}
	}
	for i, w := range want {
		if live[i].Order != w.order {
			return "", "clustering column " + strconv.Quote(w.name) + " is sorted " + live[i].Order + " in live, " + w.order + " in the model"
		}
	}
	return "", ""
}

func isCounterLive(lt *LiveTable) bool {
	if slices.Contains(lt.Flags, "counter") {
		return true
	}
	return slices.ContainsFunc(lt.Columns, func(c *LiveColumn) bool { return c.Type.Name() == "COUNTER" })
}

// newTableManual is the manual path for a change no ALTER can make to a
// primary table.
func (p *planner) newTableManual(t *kandra.TableSchema) string {
	return "create a new table with the model's definition under another name, copy the rows from " + p.qualified(t.CQLName()) +
		" (with a token-range scan or DSBulk), switch the application to it, then drop the old table; the table's lookup tables and indexes follow it"
}

func (p *planner) diffTable(t *kandra.TableSchema, lt *LiveTable) {
	name := t.Name()
	if model, live := t.IsCounterTable(), isCounterLive(lt); model != live {
		kind := map[bool]string{true: "a counter table", false: "a table without counters"}
		p.impossible(StepChangeCounterKind, name, name, "", "table "+strconv.Quote(name)+" is "+kind[live]+" in live and "+kind[model]+" in the model",
			"a table is a counter table or not for good: "+p.newTableManual(t)+" (counter values are copied by adding them to the new counters)")
		p.extraColumns(name, lt, t.Columns())
		return
	}
	var pk, ck []wantColumn
	for _, c := range t.PartitionKeys() {
		pk = append(pk, modelColumn(c))
	}
	for _, c := range t.ClusteringKeys() {
		ck = append(ck, modelColumn(c))
	}
	if why, _ := keyDiff("the partition key", pk, keyColumns(lt, ColumnPartitionKey)); why != "" {
		p.impossible(StepChangeKey, name, name, "", "table "+strconv.Quote(name)+": "+why, "a primary key is fixed when a table is created: "+p.newTableManual(t))
	} else if why, order := keyDiff("the clustering key", ck, keyColumns(lt, ColumnClustering)); why != "" {
		p.impossible(StepChangeKey, name, name, "", "table "+strconv.Quote(name)+": "+why, "a primary key is fixed when a table is created: "+p.newTableManual(t))
	} else if order != "" {
		p.impossible(StepChangeClusteringOrder, name, name, "", "table "+strconv.Quote(name)+": "+order,
			"the clustering order is fixed when a table is created: "+p.newTableManual(t))
	}
	for _, c := range t.Columns() {
		if c.IsPartitionKey() || c.IsClusteringKey() {
			continue
		}
		p.column(t, lt, c)
	}
	p.extraColumns(name, lt, t.Columns())
	p.options(t, lt)
}

func (p *planner) column(t *kandra.TableSchema, lt *LiveTable, c *kandra.ColumnSchema) {
	tn, cn := t.Name(), c.Name()
	object := tn + "." + cn
	w := modelColumn(c)
	lc := lt.Column(cn)
	if lc == nil {
		reason := "table " + strconv.Quote(tn) + " has no column " + strconv.Quote(cn)
		if d := lt.Dropped[cn]; d != nil {
			if refused := p.reAddRefused(d, w); refused != "" {
				p.impossible(StepReAddDropped, object, tn, cn, "column "+strconv.Quote(cn)+" of table "+strconv.Quote(tn)+" was dropped"+droppedWhen(d)+" as "+d.RawType+"; "+refused,
					"give the field another column name (kandra.Column), or declare it with the dropped type "+d.RawType)
				return
			}
			reason += "; it was dropped" + droppedWhen(d) + " with the same type, and rows written before the drop stay hidden"
		}
		p.add(phaseColumn, Step{ID: stepID(StepAddColumn, object), Class: Safe, Kind: StepAddColumn, Table: tn, Column: cn,
			CQL: p.alterTableAdd(t, c), Reason: reason})
		return
	}
	switch lc.Kind {
	case ColumnRegular, ColumnStatic:
		if lc.Kind != w.kind {
			p.impossible(StepChangeColumnKind, object, tn, cn, "column "+strconv.Quote(cn)+" of table "+strconv.Quote(tn)+" is "+string(lc.Kind)+" in live, "+string(w.kind)+" in the model",
				"a column's kind cannot be altered: add a column under a new name (kandra.Column) and copy the values over, or "+p.newTableManual(t))
			return
		}
	default:
		// A key column in live that the model has as a regular one: the
		// key sets differ, so a StepChangeKey step says so already.
		return
	}
	if m := typeMismatch(w, lc); m != "" {
		p.impossible(StepChangeType, object, tn, cn, "column "+strconv.Quote(cn)+" of table "+strconv.Quote(tn)+": "+m,
			"servers no longer alter column types: add a column under a new name with the new type (kandra.Column), copy the values over, then stop using the old one; or "+p.newTableManual(t))
	}
}

// scyllaTargets are the ScyllaDB targets, whose grammar has no ALTER
// TABLE ... ADD IF NOT EXISTS.
const scyllaTargets = kandra.Scylla2025 | kandra.Scylla2025Tablets | kandra.Scylla2026 | kandra.Scylla2026Tablets

// alterTableAdd renders the ADD of column c: Keyspace.AlterTableAdd, with
// IF NOT EXISTS when every target is Cassandra (4.1 and later take it),
// so that a statement run twice, by a retry or another runner of the
// script, is a no-op there too.
func (p *planner) alterTableAdd(t *kandra.TableSchema, c *kandra.ColumnSchema) string {
	stmt := mustCQL(p.ks.AlterTableAdd(t, c))
	if p.targets&scyllaTargets == 0 {
		// Keyspace and table names are \w+, so the first " ADD " is the
		// keyword.
		stmt = strings.Replace(stmt, " ADD ", " ADD IF NOT EXISTS ", 1)
	}
	return stmt
}

func droppedWhen(d *LiveDropped) string {
	if d.DroppedAt.IsZero() {
		return ""
	}
	return " at " + d.DroppedAt.UTC().Format("2006-01-02T15:04:05Z")
}

// reAddRefused says why the keyspace's targets refuse to add column w
// back after d was dropped, or "".
func (p *planner) reAddRefused(d *LiveDropped, w wantColumn) string {
	if d.Type.IsZero() {
		if holdsUDT(w.typ) && strings.Contains(strings.ToLower(d.RawType), "tuple") {
			// Found on Cassandra 5.0: "Cannot add a column 'past' of type
			// list<frozen<addr>>, incompatible with previously dropped
			// column 'past' of type list<frozen<tuple<...>>>".
			return "the server recorded the dropped column's user-defined type as a tuple, and refuses to add it back as " + w.decl() + " (\"incompatible with previously dropped column\")"
		}
		return "kandra cannot read the dropped type, so it cannot tell whether the server takes the column back as " + w.decl()
	}
	if d.Type.Name() == "COUNTER" || w.typ.Name() == "COUNTER" {
		return "servers refuse to add a counter column back in place of a dropped column"
	}
	dk := d.Kind
	if dk == "" {
		dk = ColumnRegular
	}
	// Freezing is part of the type: Cassandra 5.0 refuses list<int> back
	// as frozen<list<int>> ("incompatible with previously dropped column").
	sameFreezing := !freezable(w.typ) || outerFrozen(d.RawType) == w.frozen
	if sameType(d.Type, w.typ) && sameFreezing && dk == w.kind {
		return ""
	}
	const cassandra = kandra.Cassandra5 | kandra.Cassandra5Latest
	if p.targets&cassandra != 0 {
		return "Cassandra refuses to add it back with another type or kind (" + w.decl() + ", " + string(w.kind) + ")"
	}
	if d.Type.IsCollection() || w.typ.IsCollection() {
		return "ScyllaDB refuses to add a collection back with another type (" + w.decl() + ")"
	}
	if dk != w.kind {
		return "it was a " + string(dk) + " column, and the model's is " + string(w.kind)
	}
	return ""
}

// extraColumns reports live regular and static columns the model lacks;
// key columns it lacks are in a StepChangeKey step already.
func (p *planner) extraColumns(table string, lt *LiveTable, model []*kandra.ColumnSchema, also ...string) {
	have := map[string]bool{}
	for _, c := range model {
		have[c.Name()] = true
	}
	for _, n := range also {
		have[n] = true
	}
	for _, c := range lt.Columns {
		if (c.Kind == ColumnRegular || c.Kind == ColumnStatic) && !have[c.Name] {
			p.extra = append(p.extra, "column "+table+"."+c.Name)
		}
	}
}

func (p *planner) options(t *kandra.TableSchema, lt *LiveTable) {
	var set, why []string
	// No default TTL in the model means none (0), as the runtime writes
	// expect; gc_grace_seconds unset leaves whatever the cluster has.
	// The options count whole seconds (Register refuses other durations).
	secs := func(d time.Duration) string { return strconv.FormatInt(int64(d/time.Second), 10) }
	if ttl, _ := t.DefaultTTL(); lt.DefaultTTL != ttl {
		set = append(set, "default_time_to_live")
		why = append(why, "default_time_to_live is "+secs(lt.DefaultTTL)+" in live, "+secs(ttl)+" in the model")
	}
	if gc, ok := t.GCGrace(); ok && lt.GCGrace != gc {
		set = append(set, "gc_grace_seconds")
		why = append(why, "gc_grace_seconds is "+secs(lt.GCGrace)+" in live, "+secs(gc)+" in the model")
	}
	expiry := len(set) > 0
	items, _ := p.ks.StorageOptionItems(t)
	live, unread := lt.StorageOptions()
	// The server's defaults are ScyllaDB's when live was read from one,
	// or when the model targets ScyllaDB only.
	scylla := p.live.Server.Product == "ScyllaDB" || p.live.Server.Product == "" && p.ks.Targets()&(kandra.Cassandra5|kandra.Cassandra5Latest) == 0
	for _, item := range items {
		name, _, _ := strings.Cut(item, " = ")
		if class := unknownClass(name, lt.Options, live); class != "" {
			// A class kandra has no value for is none the model declares;
			// the ALTER replaces it whole.
			set = append(set, name)
			why = append(why, name+" is the class "+strconv.Quote(class)+" in live, which kandra does not declare; the model's replaces it")
			continue
		}
		if got, want, differs := sameStorage(name, t.StorageOptions(), live, scylla); differs {
			set = append(set, name)
			why = append(why, name+" is "+got+" in live, "+want+" in the model")
			// The ALTER writes the option whole: say what of live's it resets.
			for _, u := range unread {
				if strings.HasPrefix(u, name+" ") || strings.HasPrefix(u, name+":") {
					why = append(why, "the step resets live's "+u)
				}
			}
		}
	}
	if len(set) == 0 {
		return
	}
	effect := " (it changes how the table's rows are stored and read)"
	if expiry {
		effect = " (it changes how existing and new rows expire)"
	}
	p.add(phaseOptions, Step{ID: stepID(StepAlterOptions, t.Name()), Class: NeedsApproval, Kind: StepAlterOptions, Table: t.Name(),
		CQL:    mustCQL(p.ks.AlterTableOptions(t, set...)),
		Reason: "table " + strconv.Quote(t.Name()) + ": " + strings.Join(why, "; ") + effect})
}

// lookup plans lookup table l of a primary table that exists in live or
// is created by the plan.
func (p *planner) lookup(l *kandra.LookupTableSchema, primaryExists bool) {
	name := l.Name()
	lt := p.live.Table(name)
	if lt != nil {
		p.diffLookup(l, lt)
		if slices.Contains(p.live.PendingBackfills, name) {
			p.add(phaseBackfill, Step{ID: stepID(StepBackfillLookup, name), Class: NeedsApproval, Kind: StepBackfillLookup, Table: name, Lookup: l,
				Reason: "lookup table " + name + " is not backfilled: an earlier apply created it and its backfill was not approved, or a backfill stopped part-way " +
					"(kandra_backfill records it as pending); it misses the rows of " + strconv.Quote(l.Table().Name()) + " written before it existed"})
		}
		return
	}
	p.add(phaseLookup, Step{ID: stepID(StepCreateLookupTable, name), Class: Safe, Kind: StepCreateLookupTable, Table: name,
		CQL: mustCQL(p.ks.CreateLookupTable(l)), Reason: "lookup table " + strconv.Quote(name) + " of table " + strconv.Quote(l.Table().Name()) + " does not exist"})
	if primaryExists {
		p.add(phaseBackfill, Step{ID: stepID(StepBackfillLookup, name), Class: NeedsApproval, Kind: StepBackfillLookup, Table: name, Lookup: l,
			Reason: "table " + strconv.Quote(l.Table().Name()) + " exists, so new lookup table " + strconv.Quote(name) +
				" must be filled from its rows before lookups by " + strconv.Quote(l.IndexColumn().Name()) + " find the rows written earlier; it reads the whole table"})
	}
}

// diffLookup compares an existing lookup table with the model's: its
// partition key is the indexed column, frozen, and it carries the primary
// key's other columns, declared as in the primary table: as regular
// columns for a unique lookup, as its clustering columns (in key order,
// ascending) for a non-unique one. A lookup whose kind changed has another
// key: the manual path says how to move it.
func (p *planner) diffLookup(l *kandra.LookupTableSchema, lt *LiveTable) {
	name := l.Name()
	manual := "a lookup table holds only copies: drop it by hand (DROP TABLE " + p.qualified(l.CQLName()) +
		";), then plan again: it is created anew, and its backfill is planned"
	ix := l.IndexColumn()
	key := wantColumn{name: ix.Name(), typ: ix.Type(), frozen: freezable(ix.Type()), kind: ColumnPartitionKey, order: "none"}
	if why, _ := keyDiff("the key", []wantColumn{key}, keyColumns(lt, ColumnPartitionKey)); why != "" {
		p.impossible(StepChangeKey, name, name, "", "lookup table "+strconv.Quote(name)+": "+why, manual)
		return
	}
	// A unique lookup's table holds the claim column and no clustering
	// column; a non-unique one's, the primary key as clustering columns. A
	// table of the other kind's shape is a kind change; one of neither is
	// left to the checks below.
	claim, clustered := lt.Column(kandra.ClaimColumn) != nil, len(keyColumns(lt, ColumnClustering)) > 0
	if liveUnique := claim && !clustered; claim != clustered && liveUnique != l.IsUnique() {
		kinds := [2]string{"a non-unique lookup's (BATCH or EVENTUAL: the value, then the primary key as clustering columns)", "a UNIQUE lookup's (the value alone as its key, with the claim column)"}
		live, model := kinds[0], kinds[1]
		if liveUnique {
			live, model = model, live
		}
		p.impossible(StepChangeLookupKind, name, name, "", "lookup table "+strconv.Quote(name)+" is "+live+" in live, and "+model+" in the model: the lookup's kind changed, and its table's key with it",
			"give the lookup a new suffix (kandra.Lookup(\"by_...\") with another name): the migrator creates its table and plans its backfill while the old table stays; once the backfill is verified, drop the old table by hand (DROP TABLE "+p.qualified(l.CQLName())+";)")
		return
	}
	cols := l.Columns()
	var clustering []wantColumn
	kind := ColumnRegular
	if !l.IsUnique() {
		kind = ColumnClustering
		for _, c := range cols[1:] {
			clustering = append(clustering, wantColumn{name: c.Name(), typ: c.Type(), frozen: freezable(c.Type()), kind: ColumnClustering, order: "asc"})
		}
	}
	if why, _ := keyDiff("the clustering key", clustering, keyColumns(lt, ColumnClustering)); why != "" {
		p.impossible(StepChangeKey, name, name, "", "lookup table "+strconv.Quote(name)+": "+why, manual)
		return
	}
	for _, c := range cols[1:] {
		w := wantColumn{name: c.Name(), typ: c.Type(), frozen: freezable(c.Type()), kind: kind, order: "none"}
		if kind == ColumnClustering {
			w.order = "asc"
		}
		lc := lt.Column(c.Name())
		switch {
		case lc == nil:
			p.impossible(StepChangeKey, name, name, "", "lookup table "+strconv.Quote(name)+" lacks column "+strconv.Quote(c.Name())+" of its primary table's key", manual)
			return
		case lc.Kind != kind:
			p.impossible(StepChangeColumnKind, name+"."+c.Name(), name, c.Name(), "column "+strconv.Quote(c.Name())+" of lookup table "+strconv.Quote(name)+" is "+string(lc.Kind)+" in live, "+string(kind)+" in the model", manual)
			return
		}
		if m := typeMismatch(w, lc); m != "" {
			p.impossible(StepChangeType, name+"."+c.Name(), name, c.Name(), "column "+strconv.Quote(c.Name())+" of lookup table "+strconv.Quote(name)+": "+m, manual)
			return
		}
	}
	if !l.IsUnique() {
		p.extraColumns(name, lt, cols)
		return
	}
	// A unique lookup's table also holds the claim token.
	switch lc := lt.Column(kandra.ClaimColumn); {
	case lc == nil:
		p.impossible(StepChangeKey, name, name, "", "lookup table "+strconv.Quote(name)+" lacks its claim column "+strconv.Quote(kandra.ClaimColumn), manual)
		return
	case lc.Kind != ColumnRegular || typeMismatch(wantColumn{name: kandra.ClaimColumn, typ: kandra.CQLBigint, kind: ColumnRegular, order: "none"}, lc) != "":
		p.impossible(StepChangeColumnKind, name+"."+kandra.ClaimColumn, name, kandra.ClaimColumn, "column "+strconv.Quote(kandra.ClaimColumn)+" of lookup table "+strconv.Quote(name)+" is not a regular bigint", manual)
		return
	}
	p.extraColumns(name, lt, cols, kandra.ClaimColumn)
}

// indexTarget is the column a live index's target option names:
// "email", "values(tags)", "full(k)", "\"Mixed\"".
func indexTarget(target string) string {
	t := strings.TrimSpace(target)
	if i := strings.IndexByte(t, '('); i > 0 && strings.HasSuffix(t, ")") && !strings.HasPrefix(t, `"`) {
		t = strings.TrimSpace(t[i+1 : len(t)-1])
	}
	if len(t) >= 2 && t[0] == '"' && t[len(t)-1] == '"' {
		return strings.ReplaceAll(t[1:len(t)-1], `""`, `"`)
	}
	return t
}

// liveIndex finds the live index of a name anywhere in the keyspace, as
// index names are per keyspace.
func (p *planner) liveIndex(name string) (*LiveTable, *LiveIndex) {
	if p.live.Keyspace == nil {
		return nil, nil
	}
	for _, tn := range slices.Sorted(maps.Keys(p.live.Keyspace.Tables)) {
		lt := p.live.Keyspace.Tables[tn]
		for _, ix := range lt.Indexes {
			if ix.Name == name {
				return lt, ix
			}
		}
	}
	return nil, nil
}

func (p *planner) index(t *kandra.TableSchema, lt *LiveTable, c *kandra.ColumnSchema) {
	name := t.IndexName(c)
	spec, _ := c.Index()
	on, ix := p.liveIndex(name)
	if ix == nil {
		if p.indexOfAnotherName(t, lt, c, spec) {
			return
		}
		p.add(phaseIndex, Step{ID: stepID(StepCreateIndex, name), Class: Safe, Kind: StepCreateIndex, Table: t.Name(), Column: c.Name(),
			CQL: mustCQL(p.ks.CreateIndex(t, c)), Reason: "index " + strconv.Quote(name) + " on " + t.Name() + "." + c.Name() + " does not exist"})
		return
	}
	manual := "drop the live index by hand (DROP INDEX " + p.qks + "." + kandra.QuoteIdent(name) + ";), then plan again: it is created as the model says; reads through it fail or miss rows until it is built"
	if target := indexTarget(ix.Options["target"]); on != lt || target != c.Name() {
		p.impossible(StepChangeIndex, name, t.Name(), c.Name(),
			"index "+strconv.Quote(name)+" is on "+on.Name+"."+target+" in live, on "+t.Name()+"."+c.Name()+" in the model", manual)
		return
	}
	// CREATE INDEX IF NOT EXISTS of a taken name does nothing, so an index
	// of another kind, target or analysis would stay as it is unless the
	// plan says so.
	if got, custom := liveIndexSpec(ix, c); !sameIndex(spec, got, custom) {
		p.impossible(StepChangeIndex, name, t.Name(), c.Name(),
			"index "+strconv.Quote(name)+" on "+t.Name()+"."+c.Name()+" is "+describeLiveIndex(got, custom)+" in live, "+describeIndex(spec)+" in the model", manual)
	}
}

// indexOfAnotherName handles a model index whose name no live index has
// while the live table indexes the column under another name (an index
// the application created with a name of its own), and reports whether it
// did. A second index on the column is no way out: Cassandra refuses a
// second SAI index on a column ("Cannot create more than one
// storage-attached index on the same column") and takes CREATE INDEX IF
// NOT EXISTS of a legacy index that duplicates one as a no-op, so the
// plan would never converge. The same index under another name is the
// model's index: no step, and a note with the option that names it as
// live does (no server renames an index). Another index is an impossible
// step naming both.
func (p *planner) indexOfAnotherName(t *kandra.TableSchema, lt *LiveTable, c *kandra.ColumnSchema, spec kandra.IndexSpec) bool {
	if lt == nil {
		return false
	}
	for _, ix := range lt.Indexes {
		if indexTarget(ix.Options["target"]) != c.Name() || p.claimedIndex(ix.Name) {
			continue
		}
		got, custom := liveIndexSpec(ix, c)
		if sameIndex(spec, got, custom) {
			p.adopted[ix.Name] = true
			p.notes = append(p.notes, "index "+ix.Name+" on "+t.Name()+"."+c.Name()+" is the model's index "+spec.Name+
				" under the name the keyspace gave it: nothing to do (bind kandra.IndexNamed("+strconv.Quote(ix.Name)+") to name it as live does)")
			return true
		}
		p.impossible(StepChangeIndex, spec.Name, t.Name(), c.Name(),
			"column "+t.Name()+"."+c.Name()+" has index "+strconv.Quote(ix.Name)+" ("+describeLiveIndex(got, custom)+") in live, and the model asks for "+
				strconv.Quote(spec.Name)+" ("+describeIndex(spec)+"); a server refuses a second index on the column, or takes it as a no-op",
			"either bind the model's index as the live one is (kandra.IndexNamed("+strconv.Quote(ix.Name)+") with its kind, target and options), "+
				"or drop the live index by hand (DROP INDEX "+p.qks+"."+kandra.QuoteIdent(ix.Name)+";) and plan again: reads through it fail or miss rows until the new one is built")
		return true
	}
	return false
}

// claimedIndex reports whether a model index has the live index's name:
// that index is the model's, whatever column it is on.
func (p *planner) claimedIndex(name string) bool {
	for _, t := range p.ks.Tables() {
		for _, c := range t.SecondaryIndexes() {
			if t.IndexName(c) == name {
				return true
			}
		}
	}
	return false
}

// liveIndexSpec reads a live index into the model's value for column c
// (its Name, Kind, Target, analysis options and Similarity; Ranges is
// left false). custom is the class of a custom index that is neither SAI
// nor legacy, which no IndexKind describes, and "" otherwise.
func liveIndexSpec(ix *LiveIndex, c *kandra.ColumnSchema) (s kandra.IndexSpec, custom string) {
	s.Name, s.Kind = ix.Name, kandra.IndexLegacy
	if ix.Kind == "CUSTOM" {
		class := ix.Options["class_name"]
		switch class[strings.LastIndexByte(class, '.')+1:] {
		case "sai", "StorageAttachedIndex":
			s.Kind = kandra.IndexSAI
		default:
			custom = class
		}
	}
	s.Target = kandra.IndexTargetColumn
	t := strings.TrimSpace(ix.Options["target"])
	if i := strings.IndexByte(t, '('); i > 0 && !strings.HasPrefix(t, `"`) {
		switch strings.ToLower(t[:i]) {
		case "values":
			s.Target = kandra.IndexTargetValues
		case "keys":
			s.Target = kandra.IndexTargetKeys
		case "entries":
			s.Target = kandra.IndexTargetEntries
		case "full":
			s.Target = kandra.IndexTargetFull
		}
	} else if c.Type().IsCollection() {
		// A bare collection target is its values (its whole value when frozen).
		s.Target = map[bool]kandra.IndexTarget{false: kandra.IndexTargetValues, true: kandra.IndexTargetFull}[c.IsFrozen()]
	}
	opt := func(key string) string { return strings.ToLower(strings.TrimSpace(ix.Options[key])) }
	// An ANN index is SAI with a similarity function.
	if sim, ok := ix.Options["similarity_function"]; ok && s.Kind == kandra.IndexSAI {
		s.Kind = kandra.IndexVector
		for _, f := range []kandra.Similarity{kandra.SimilarityCosine, kandra.SimilarityEuclidean, kandra.SimilarityDotProduct} {
			if strings.EqualFold(strings.TrimSpace(sim), f.String()) {
				s.Similarity = f
			}
		}
		if s.Similarity == 0 {
			custom = "sai with similarity_function " + sim
		}
		return s, custom
	}
	s.CaseInsensitive = opt("case_sensitive") == "false"
	s.Normalize = opt("normalize") == "true"
	s.ASCII = opt("ascii") == "true"
	return s, custom
}

// sameIndex reports whether the live index (liveIndexSpec's) is the one
// the model asks for, names aside: a default kind in the model matches
// either kind a server makes by default (legacy or SAI on Cassandra,
// global on ScyllaDB).
func sameIndex(model, live kandra.IndexSpec, custom string) bool {
	kind := model.Kind == live.Kind || model.Kind == kandra.IndexDefault && (live.Kind == kandra.IndexSAI || live.Kind == kandra.IndexLegacy)
	return custom == "" && kind && model.Target == live.Target && model.Similarity == live.Similarity &&
		model.CaseInsensitive == live.CaseInsensitive && model.Normalize == live.Normalize && model.ASCII == live.ASCII
}

// describeIndex renders what the model asks of an index: its kind, its
// target and its analysis options, "sai index on keys, case_sensitive=false".
// A default kind is whatever the server made.
func describeIndex(s kandra.IndexSpec) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(s.AnalysisOptions())) {
		parts = append(parts, k+"="+s.AnalysisOptions()[k])
	}
	out := s.Kind.String() + " index on " + s.Target.String()
	if len(parts) > 0 {
		out += ", " + strings.Join(parts, ", ")
	}
	return out
}

// describeLiveIndex renders a live index (liveIndexSpec's) as
// describeIndex renders the model's.
func describeLiveIndex(s kandra.IndexSpec, custom string) string {
	if custom != "" {
		return "custom " + custom + " index on " + s.Target.String()
	}
	return describeIndex(s)
}

// extras lists the live tables, indexes and types the model does not have.
func (p *planner) extras() {
	lks := p.live.Keyspace
	if lks == nil {
		return
	}
	tables := map[string]bool{}
	indexes := map[string]bool{}
	for _, t := range p.ks.Tables() {
		tables[t.Name()] = true
		for _, l := range t.LookupTables() {
			tables[l.Name()] = true
		}
		for _, c := range t.SecondaryIndexes() {
			indexes[t.IndexName(c)] = true
		}
	}
	for _, tn := range slices.Sorted(maps.Keys(lks.Tables)) {
		if strings.HasPrefix(tn, ownTablePrefix) {
			continue
		}
		if !tables[tn] {
			p.extra = append(p.extra, "table "+tn)
		}
		for _, ix := range lks.Tables[tn].Indexes {
			if !indexes[ix.Name] && !p.adopted[ix.Name] {
				p.extra = append(p.extra, "index "+ix.Name+" on "+tn)
			}
		}
	}
	types := map[string]bool{}
	for _, t := range p.ks.Types() {
		types[t.Name()] = true
	}
	for _, tn := range slices.Sorted(maps.Keys(lks.Types)) {
		if !types[tn] {
			p.extra = append(p.extra, "type "+tn)
		}
	}
}
