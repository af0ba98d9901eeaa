package migrate

// The generator of GenerateEntities: what each live table, column,
// index, lookup table and type becomes, before it is written out
// (import_render.go).

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

// gen is one GenerateEntities.
type gen struct {
	live       *Live
	ks         *LiveKeyspace
	opts       ImportOptions
	pkg        string
	targets    kandra.Target // the spec's Targets; 0 leaves them unset
	fromServer bool          // targets are the server's, narrowed by what the keyspace holds
	// scylla says the storage options are written in ScyllaDB's dialect
	// (the targets have no Cassandra target), as the planner compares them.
	scylla bool
	// onlyLatest says a table holds what Cassandra5 (the shipped yaml)
	// refuses: the server's targets narrow to Cassandra5Latest.
	onlyLatest []string
	now        time.Time

	top         *namer
	imports     map[string]bool
	entities    []*entity
	byTable     map[string]*entity
	entityNames map[string]string
	udts        map[string]*udtStruct // by CQL name
	helpers     map[string]*helperType
	lookups     []*lookupMatch

	unexp []string
	notes []string
}

// entity is a table's struct.
type entity struct {
	goName    string
	table     *LiveTable
	fields    []*goField
	byColumn  map[string]*goField
	tableOpts []string // Go expressions of the TableOptions
	names     *namer
}

// goField is one column's field.
type goField struct {
	name    string
	col     *LiveColumn
	typ     string
	opts    []string // Go expressions of the FieldOptions
	counter bool
	indexed bool
	lookup  bool
}

// udtStruct is a user-defined type's struct.
type udtStruct struct {
	goName  string
	lt      *LiveType
	fields  []udtField
	used    bool
	problem string // why it cannot be written, or ""
	// comparable reports a struct Go can use as a map key.
	comparable bool
	mapped     bool // fields mapped (mapUDT ran)
	// open is a field live declares a collection without FROZEN (which
	// the struct's field declares frozen, the same bytes inside a frozen
	// value), or "": a column of the type of its own, not frozen, cannot
	// be declared.
	open string
}

type udtField struct {
	name, typ, tag string
}

// helperType is a type the generated file declares for a CQL type no Go
// type of kandra's table maps to, or one a user-defined type's field
// needs (a field takes no AsType): a kandra.CQLTyper.
type helperType struct {
	goName, underlying, cql, doc string
	comparable                   bool
	imports                      []string
	used                         bool
}

// lookupMatch is a live table taken as a lookup table.
type lookupMatch struct {
	table   *LiveTable
	primary *LiveTable
	column  string // the indexed column of the primary table
	suffix  string
	unique  bool
}

func newGen(live *Live, opts ImportOptions, pkg string) *gen {
	return &gen{live: live, ks: live.Keyspace, opts: opts, pkg: pkg, now: time.Now(),
		top: newNamer("Keyspace"), imports: map[string]bool{}, byTable: map[string]*entity{}, entityNames: map[string]string{},
		udts: map[string]*udtStruct{}, helpers: map[string]*helperType{}}
}

func (g *gen) unexpressed(s string) { g.unexp = append(g.unexp, oneLine(s)) }
func (g *gen) note(s string)        { g.notes = append(g.notes, oneLine(s)) }
func (g *gen) use(pkg string)       { g.imports[pkg] = true }

// run decides everything the file says.
func (g *gen) run() error {
	g.decideTargets()
	if err := g.checkKeyspace(); err != nil {
		return err
	}
	var own, plain []*LiveTable
	for _, name := range slices.Sorted(maps.Keys(g.ks.Tables)) {
		t := g.ks.Tables[name]
		if strings.HasPrefix(name, ownTablePrefix) {
			own = append(own, t)
			continue
		}
		plain = append(plain, t)
	}
	if len(own) > 0 {
		var names []string
		for _, t := range own {
			names = append(names, t.Name)
		}
		g.note("the migrator's own tables (" + strings.Join(names, ", ") + ") are not entities: they are left out, and the migrator keeps them")
	}
	// Lookup tables first, so that they are not entities of their own;
	// one whose primary table or column cannot be written becomes a table
	// again.
	g.lookups = g.findLookups(plain)
	isLookup := map[string]bool{}
	for _, m := range g.lookups {
		isLookup[m.table.Name] = true
	}
	g.nameUDTs()
	for _, t := range plain {
		if !isLookup[t.Name] {
			g.entityName(t.Name)
		}
	}
	for _, t := range plain {
		if !isLookup[t.Name] {
			g.table(t)
		}
	}
	for _, m := range g.lookups {
		g.attachLookup(m)
	}
	for _, e := range g.entities {
		g.masks(e)
	}
	for _, f := range g.ks.Functions {
		g.unexpressed("user function " + f.Signature() + ": kandra declares no function; keep its CREATE FUNCTION in a .cql file of its own")
	}
	for _, f := range g.ks.Aggregates {
		g.unexpressed("user aggregate " + f.Signature() + ": kandra declares no aggregate; keep its CREATE AGGREGATE in a .cql file of its own")
	}
	for _, v := range g.ks.Views {
		g.unexpressed("materialized view " + v.Name + " on " + v.BaseTable + ": " + viewWhy)
	}
	for _, t := range g.ks.Triggers {
		g.unexpressed("trigger " + t.Name + " on " + t.Table + ": " + triggerWhy)
	}
	g.markUsedUDTs()
	for _, name := range slices.Sorted(maps.Keys(g.udts)) {
		u := g.udts[name]
		switch {
		case u.used:
		case u.mapped && u.problem != "":
			g.unexpressed("type " + name + ": kandra cannot declare it: " + u.problem + "; keep its CREATE TYPE by hand")
		default:
			g.unexpressed("type " + name + ": no imported column holds it, and kandra declares a user-defined type through the columns that hold it; declare a field of its struct in an entity, or keep its CREATE TYPE by hand")
		}
	}
	g.finishTargets()
	return nil
}

// decideTargets sets the spec's targets and the options' dialect.
func (g *gen) decideTargets() {
	const cassandra = kandra.Cassandra5 | kandra.Cassandra5Latest
	const tablets = kandra.Scylla2025Tablets | kandra.Scylla2026Tablets
	switch s := g.live.Server; {
	case g.opts.Targets != 0:
		g.targets = g.opts.Targets
	case s.Product == "":
		g.note("the server is not known (Live.Server is empty): the spec gives no Targets, which means every target kandra knows; set ImportOptions.Targets to the servers the keyspace runs on")
	case s.Targets == 0:
		g.note("the server is " + s.String() + ", a release kandra does not target: the spec gives no Targets (every target); the migrator refuses to plan on this server")
	default:
		g.targets, g.fromServer = s.Targets, true
		if s.IsScylla() {
			if g.ks.Tablets {
				g.targets &= tablets
				g.note("the keyspace uses tablets on " + s.String() + ": its targets are " + g.targets.String())
			} else {
				g.targets &^= tablets
				g.note("the keyspace uses vnodes on " + s.String() + ": its targets are " + g.targets.String())
			}
		}
	}
	g.scylla = g.targets != 0 && g.targets&cassandra == 0
}

// finishTargets narrows the server's Cassandra targets to
// Cassandra5Latest when a table needs it.
func (g *gen) finishTargets() {
	if !g.fromServer || len(g.onlyLatest) == 0 || g.targets&kandra.Cassandra5Latest == 0 || g.targets&kandra.Cassandra5 == 0 {
		return
	}
	g.targets &^= kandra.Cassandra5
	g.note("the targets are Cassandra5Latest alone, as the keyspace holds what the shipped cassandra.yaml refuses: " + strings.Join(g.onlyLatest, "; "))
}

// allTargets reports whether every target of the spec is in set (false
// when the spec gives none: every target).
func (g *gen) allTargets(set kandra.Target) bool { return g.targets != 0 && g.targets&^set == 0 }

// checkKeyspace checks what of the keyspace's own settings the spec can
// say.
func (g *gen) checkKeyspace() error {
	if n := strings.ToLower(g.ks.Name); n == "system" || strings.HasPrefix(n, "system_") {
		return &kerrors.MigrationError{Message: "GenerateEntities: keyspace " + strconv.Quote(g.ks.Name) + " is one of the server's own, which kandra refuses to model (RuleKeyspaceName); import an application's keyspace"}
	}
	if _, _, err := g.replication(); err != nil {
		return err
	}
	if !g.ks.DurableWrites && g.ks.Replication != nil {
		g.unexpressed("keyspace " + g.ks.Name + ": durable_writes = false: kandra's KeyspaceSpec has no such setting and the migrator does not compare it; the keyspace keeps it, a keyspace created from the model has it true")
	}
	return nil
}

// replication renders the live replication, read into the model's value
// (kandra.ParseReplication, as the planner reads it), as a
// kandra.Replication expression, with its class for messages.
func (g *gen) replication() (expr, class string, err error) {
	m := g.ks.Replication
	class = m["class"]
	r, perr := kandra.ParseReplication(m)
	if perr != nil {
		return "", class, &kerrors.MigrationError{Message: "GenerateEntities: keyspace " + strconv.Quote(g.ks.Name) + " is replicated " + describeReplication(m) +
			": " + strings.TrimPrefix(perr.Error(), "kandra: ") + "; kandra.KeyspaceSpec declares SimpleStrategy(factor) or NetworkTopologyStrategy(factors): change the keyspace's replication (ALTER KEYSPACE, then a full repair) and import again"}
	}
	if !r.IsNetworkTopology() {
		return "kandra.SimpleStrategy(" + strconv.Itoa(r.SimpleFactor()) + ")", class, nil
	}
	dcs := r.Datacenters()
	var parts []string
	for _, dc := range slices.Sorted(maps.Keys(dcs)) {
		parts = append(parts, strconv.Quote(dc)+": "+strconv.Itoa(dcs[dc]))
	}
	return "kandra.NetworkTopologyStrategy(map[string]int{" + strings.Join(parts, ", ") + "})", class, nil
}

// table makes the entity of live table t, or lists why it cannot.
func (g *gen) table(t *LiveTable) *entity {
	if why := legacyTable(t); why != "" {
		g.unexpressed("table " + t.Name + ": " + why)
		return nil
	}
	e := &entity{table: t, byColumn: map[string]*goField{}, names: newNamer("Describe")}
	counter := isCounterLive(t)
	var skipped []string
	rows, statics := 0, 0
	for _, c := range t.Columns {
		key := c.Kind == ColumnPartitionKey || c.Kind == ColumnClustering
		f, why := g.column(t, c, counter)
		if why != "" {
			if key {
				g.unexpressed("table " + t.Name + ": its key column " + strconv.Quote(c.Name) + " " + why + "; the table cannot be written without its key")
				return nil
			}
			skipped = append(skipped, "column "+t.Name+"."+c.Name+" ("+c.RawType+"): "+why)
			continue
		}
		switch c.Kind {
		case ColumnRegular:
			rows++
		case ColumnStatic:
			statics++
		}
		e.fields = append(e.fields, f)
		e.byColumn[c.Name] = f
	}
	if statics > 0 && rows == 0 {
		g.unexpressed("table " + t.Name + ": every non-key column kandra can write is static, and kandra keeps a regular column beside static ones (a row of only static columns cannot be updated by its key): add a regular column to the table (ALTER TABLE ... ADD) and import again")
		return nil
	}
	for _, s := range skipped {
		g.unexpressed(s)
	}
	e.goName = g.entityName(t.Name)
	for _, f := range e.fields {
		var exact bool
		f.name, exact = e.names.name(f.col.Name)
		if !exact {
			f.opts = append([]string{"kandra.Column(" + strconv.Quote(f.col.Name) + ")"}, f.opts...)
		}
	}
	e.tableOpts = g.tableOptions(t)
	g.indexes(e)
	g.entities = append(g.entities, e)
	g.byTable[t.Name] = e
	return e
}

// legacyTable says why t is a table kandra cannot declare (a COMPACT
// STORAGE table, LiveTable.Legacy), or "".
func legacyTable(t *LiveTable) string {
	if t.Legacy == "" {
		return ""
	}
	return "a table of the legacy form " + t.Legacy + ", which kandra cannot declare (nor plan against): make it a CQL table first (Cassandra 4.x: ALTER TABLE ... DROP COMPACT STORAGE; otherwise copy its rows into a new table), then import again"
}

// column maps live column c of table t, or says why it cannot.
func (g *gen) column(t *LiveTable, c *LiveColumn, counterTable bool) (*goField, string) {
	switch {
	case !utf8.ValidString(c.Name) || c.Name == "":
		return nil, "has a name kandra cannot use (empty or not UTF-8)"
	case len(c.Name) > kandra.MaxColumnNameBytes:
		return nil, "has a name of " + strconv.Itoa(len(c.Name)) + " bytes, over kandra.MaxColumnNameBytes (" + strconv.Itoa(kandra.MaxColumnNameBytes) + "); rename it (ALTER TABLE ... RENAME works on key columns only, so copy a regular one)"
	case c.Name == "[applied]":
		return nil, "is named [applied], the column servers add to a lightweight transaction's result, which kandra refuses"
	case c.Type.IsZero():
		return nil, "is of a type kandra has no Go type for (a tuple, a custom type, or a user-defined type the keyspace cannot resolve); keep the column, or copy its values into a column of a type kandra maps"
	}
	if why := typeSize(c.Type); why != "" {
		return nil, why
	}
	f := &goField{col: c}
	key := c.Kind == ColumnPartitionKey || c.Kind == ColumnClustering
	switch c.Kind {
	case ColumnPartitionKey:
		f.opts = append(f.opts, "kandra.PartitionKey("+strconv.Itoa(c.Position)+")")
	case ColumnClustering:
		order := "kandra.ClusteringAsc"
		if c.Order == "desc" {
			order = "kandra.ClusteringDesc"
		}
		f.opts = append(f.opts, "kandra.ClusteringKey("+strconv.Itoa(c.Position)+", "+order+")")
	case ColumnStatic:
		f.opts = append(f.opts, "kandra.Static()")
	}
	if c.Type.Name() == "COUNTER" && c.Type.Kind() == kandra.KindNative {
		if key || c.Kind == ColumnStatic {
			return nil, "is a counter outside a table's regular columns, which kandra cannot declare"
		}
		f.typ, f.counter = "int64", true
	} else {
		if c.Type.Kind() == kandra.KindVector && key {
			return nil, "is a vector in the primary key, which kandra refuses (a vector is a column's own value; it compares by its bytes)"
		}
		typ, asType, why := g.columnType(c.Type)
		if why != "" {
			return nil, why
		}
		f.typ = typ
		if asType != "" {
			f.opts = append(f.opts, "kandra.AsType("+asType+")")
		}
	}
	if counterTable && !key && !f.counter {
		return nil, "is not a counter in a counter table"
	}
	if !key && freezable(c.Type) && outerFrozen(c.RawType) {
		f.opts = append(f.opts, "kandra.Frozen()")
	} else if u := g.udts[c.Type.Name()]; !key && c.Type.Kind() == kandra.KindUDT && u != nil && u.open != "" {
		// Servers refuse such a column ("Non-frozen UDTs with nested
		// non-frozen collections are not supported") unless the field was
		// added after it; its cells are not the frozen value kandra writes.
		return nil, "is of the user-defined type " + strconv.Quote(c.Type.Name()) + ", not frozen, whose field " + strconv.Quote(u.open) +
			" is a collection not frozen (added by ALTER TYPE after the column), which kandra declares frozen, a value where the server keeps cells; copy its values into a column of frozen<" + kandra.QuoteTypeName(c.Type.Name()) + ">"
	}
	return f, ""
}

// typeSize says why kandra refuses t for its size (MaxTypeDepth,
// MaxTypeNodes), or "".
func typeSize(t kandra.CQLType) string {
	nodes := 0
	var walk func(t kandra.CQLType, depth int) bool
	walk = func(t kandra.CQLType, depth int) bool {
		if t.IsZero() {
			return true
		}
		if nodes++; nodes > kandra.MaxTypeNodes {
			return false
		}
		if t.Kind() == kandra.KindNative {
			return true
		}
		if depth+1 > kandra.MaxTypeDepth {
			return false
		}
		for _, f := range t.Fields() {
			if !walk(f.Type, depth+1) {
				return false
			}
		}
		return walk(t.Key(), depth+1) && walk(t.Elem(), depth+1)
	}
	if !walk(t, 0) {
		return "has a type deeper than kandra.MaxTypeDepth or larger than kandra.MaxTypeNodes, which kandra refuses"
	}
	return ""
}

// goType is a Go type for a CQL type.
type goType struct {
	expr       string
	derived    kandra.CQLType // the type kandra derives from expr
	typer      bool           // it holds a struct or a CQLTyper: AsType cannot be given around it
	comparable bool           // a Go map key
}

// columnType is a column's Go type, with the AsType expression it
// needs ("" for none).
func (g *gen) columnType(t kandra.CQLType) (typ, asType, why string) {
	gt, why := g.goTypeOf(t, false, false)
	if why != "" {
		if strings.Contains(why, noGoMapKey) && opaqueable(t) {
			// A set of blobs, a map keyed by a collection: no Go type
			// kandra maps holds it, and a type it maps from nothing takes
			// any AsType.
			h := g.helper("opaque")
			return h.expr, cqlTypeExpr(t), ""
		}
		return "", "", why
	}
	if sameType(gt.derived, t) {
		return gt.expr, "", ""
	}
	if !gt.typer {
		return gt.expr, cqlTypeExpr(t), ""
	}
	// A struct or a CQLTyper inside: AsType's pairs do not reach them, so
	// every type of the tree is one of its own.
	gt, why = g.goTypeOf(t, true, false)
	if why != "" {
		return "", "", why
	}
	return gt.expr, "", ""
}

// noGoMapKey says a set's element or a map's key has no Go map key type.
const noGoMapKey = "Go has no map keyed by"

// opaqueable reports a type cqlTypeExpr writes (natives and collections of
// them), which a column of the Opaque helper type can declare with AsType.
func opaqueable(t kandra.CQLType) bool {
	switch t.Kind() {
	case kandra.KindNative:
		return cqlNativeExprs[t.Name()] != ""
	case kandra.KindList, kandra.KindSet:
		return opaqueable(t.Elem())
	case kandra.KindMap:
		return opaqueable(t.Key()) && opaqueable(t.Elem())
	}
	return false
}

// goTypeOf maps the CQL type t to a Go type: the one kandra derives t
// from, or with helpers the generated kandra.CQLTyper types for ascii,
// date, time and timeuuid, which a user-defined type's field needs. nested
// is set inside a collection or a user-defined type.
func (g *gen) goTypeOf(t kandra.CQLType, helpers, nested bool) (goType, string) {
	nat := func(expr string, d kandra.CQLType) (goType, string) {
		return goType{expr: expr, derived: d, comparable: true}, ""
	}
	switch t.Kind() {
	case kandra.KindNative:
		switch t.Name() {
		case "ASCII":
			if helpers {
				return g.helper("ascii"), ""
			}
			return nat("string", kandra.CQLText)
		case "BIGINT":
			return nat("int64", kandra.CQLBigint)
		case "BLOB":
			return goType{expr: "[]byte", derived: kandra.CQLBlob}, ""
		case "BOOLEAN":
			return nat("bool", kandra.CQLBoolean)
		case "DATE":
			if helpers {
				return g.helper("date"), ""
			}
			g.use("time")
			return nat("time.Time", kandra.CQLTimestamp)
		case "DECIMAL":
			return g.helper("decimal"), ""
		case "DOUBLE":
			return nat("float64", kandra.CQLDouble)
		case "DURATION":
			g.use("time")
			return nat("time.Duration", kandra.CQLDuration)
		case "FLOAT":
			return nat("float32", kandra.CQLFloat)
		case "INET":
			g.use("net/netip")
			return nat("netip.Addr", kandra.CQLInet)
		case "INT":
			return nat("int32", kandra.CQLInt)
		case "SMALLINT":
			return nat("int16", kandra.CQLSmallint)
		case "TEXT", "VARCHAR":
			return nat("string", kandra.CQLText)
		case "TIME":
			if helpers {
				return g.helper("time"), ""
			}
			g.use("time")
			return nat("time.Duration", kandra.CQLDuration)
		case "TIMESTAMP":
			g.use("time")
			return nat("time.Time", kandra.CQLTimestamp)
		case "TIMEUUID":
			if helpers {
				return g.helper("timeuuid"), ""
			}
			g.use("github.com/google/uuid")
			return nat("uuid.UUID", kandra.CQLUUID)
		case "TINYINT":
			return nat("int8", kandra.CQLTinyint)
		case "UUID":
			g.use("github.com/google/uuid")
			return nat("uuid.UUID", kandra.CQLUUID)
		case "VARINT":
			g.use("math/big")
			return nat("*big.Int", kandra.CQLVarint)
		case "COUNTER":
			return goType{}, "holds a counter inside a collection or a type, which no server takes"
		}
		return goType{}, "is of the type " + t.Name() + ", which kandra has no Go type for"
	case kandra.KindList, kandra.KindSet:
		e, why := g.goTypeOf(t.Elem(), helpers, true)
		if why != "" {
			return goType{}, why
		}
		if t.Kind() == kandra.KindList {
			return goType{expr: "[]" + e.expr, derived: kandra.ListOf(e.derived), typer: e.typer}, ""
		}
		if !e.comparable {
			return goType{}, "is a set of " + strings.ToLower(t.Elem().String()) + ", and " + noGoMapKey + " " + e.expr + " for kandra's map[K]struct{} of a set"
		}
		return goType{expr: "map[" + e.expr + "]struct{}", derived: kandra.SetOf(e.derived), typer: e.typer}, ""
	case kandra.KindMap:
		k, why := g.goTypeOf(t.Key(), helpers, true)
		if why != "" {
			return goType{}, why
		}
		if !k.comparable {
			return goType{}, "is a map keyed by " + strings.ToLower(t.Key().String()) + ", and " + noGoMapKey + " " + k.expr
		}
		v, why := g.goTypeOf(t.Elem(), helpers, true)
		if why != "" {
			return goType{}, why
		}
		return goType{expr: "map[" + k.expr + "]" + v.expr, derived: kandra.MapOf(k.derived, v.derived), typer: k.typer || v.typer}, ""
	case kandra.KindVector:
		switch {
		case nested:
			return goType{}, "holds a vector inside a collection or a type, which kandra refuses (it maps [N]float32 as a column's own value)"
		case t.Elem().Kind() != kandra.KindNative || t.Elem().Name() != "FLOAT" || t.Dim() < 1:
			return goType{}, "is a vector of " + strings.ToLower(t.Elem().String()) + ", and kandra maps only vector<float, N> ([N]float32)"
		}
		return goType{expr: "[" + strconv.Itoa(t.Dim()) + "]float32", derived: t, comparable: true}, ""
	case kandra.KindUDT:
		u := g.udts[t.Name()]
		if u == nil {
			return goType{}, "holds the user-defined type " + strconv.Quote(t.Name()) + ", which the keyspace does not have"
		}
		if !g.mapUDT(u) {
			return goType{}, "holds the user-defined type " + strconv.Quote(t.Name()) + ", which kandra cannot declare: " + u.problem
		}
		return goType{expr: u.goName, derived: kandra.UDTOf(t.Name()), typer: true, comparable: u.comparable}, ""
	}
	return goType{}, "is of a type kandra cannot read"
}

// helperTypes are the types helper declares, by the CQL type they stand
// for.
var helperTypes = map[string]helperType{
	"ascii": {goName: "ASCII", underlying: "string", cql: "kandra.CQLAscii", comparable: true,
		doc: "is text of ASCII characters: a user-defined type's field takes no kandra.AsType, so its Go type names its CQL type."},
	"date": {goName: "Date", underlying: "time.Time", cql: "kandra.CQLDate", comparable: true, imports: []string{"time"},
		doc: "is a calendar day (CQL date): a user-defined type's field takes no kandra.AsType, so its Go type names its CQL type."},
	"time": {goName: "TimeOfDay", underlying: "time.Duration", cql: "kandra.CQLTime", comparable: true, imports: []string{"time"},
		doc: "is a time of day (CQL time): a user-defined type's field takes no kandra.AsType, so its Go type names its CQL type."},
	"timeuuid": {goName: "TimeUUID", underlying: "uuid.UUID", cql: "kandra.CQLTimeUUID", comparable: true, imports: []string{"github.com/google/uuid"},
		doc: "is a version 1 UUID (CQL timeuuid): a user-defined type's field takes no kandra.AsType, so its Go type names its CQL type."},
	"opaque": {goName: "Opaque", underlying: "struct{ _ int64 }", comparable: true,
		doc: "holds a value of a CQL type no Go type kandra maps to holds (a set of blobs, a map keyed by a collection; Go has no map keyed by a slice): each column of it declares its CQL type with kandra.AsType, and the driver must marshal it before values are stored (for gocql, implement gocql.Marshaler and gocql.Unmarshaler, or replace it with a type that does)."},
	"decimal": {goName: "Decimal", underlying: "struct {\n\tUnscaled *big.Int\n\tScale    int32\n}", cql: "kandra.CQLDecimal", comparable: true, imports: []string{"math/big"},
		doc: "is a CQL decimal, Unscaled × 10^-Scale. kandra maps no Go type to decimal: this type declares the column's type, and the driver must marshal it before values are stored (for gocql, implement gocql.Marshaler and gocql.Unmarshaler, or replace it with a type that does)."},
}

// helper is the helper type for the CQL type kind, declared once.
func (g *gen) helper(kind string) goType {
	h := g.helpers[kind]
	if h == nil {
		def := helperTypes[kind]
		h = &def
		for i := 2; !g.top.take(h.goName); i++ {
			h.goName = def.goName + strconv.Itoa(i)
		}
		g.helpers[kind] = h
		if kind == "opaque" {
			g.note("columns of a set of blobs or a map keyed by a collection use the generated type " + h.goName + ", which only declares the CQL type (kandra.AsType): give it the driver's marshalling before storing values")
		}
		if kind == "decimal" {
			g.note("decimal values use the generated type " + h.goName + ", which only declares the CQL type: kandra maps no Go type to decimal, so give it the driver's marshalling before storing values")
		}
	}
	if !h.used {
		h.used = true
		for _, i := range h.imports {
			g.use(i)
		}
	}
	d := map[string]kandra.CQLType{"ascii": kandra.CQLAscii, "date": kandra.CQLDate, "time": kandra.CQLTime, "timeuuid": kandra.CQLTimeUUID, "decimal": kandra.CQLDecimal}[kind]
	return goType{expr: h.goName, derived: d, typer: true, comparable: h.comparable}
}

// cqlNativeExprs are the Go expressions of the native types.
var cqlNativeExprs = map[string]string{
	"ASCII": "kandra.CQLAscii", "BIGINT": "kandra.CQLBigint", "BLOB": "kandra.CQLBlob", "BOOLEAN": "kandra.CQLBoolean",
	"DATE": "kandra.CQLDate", "DECIMAL": "kandra.CQLDecimal", "DOUBLE": "kandra.CQLDouble", "DURATION": "kandra.CQLDuration",
	"FLOAT": "kandra.CQLFloat", "INET": "kandra.CQLInet", "INT": "kandra.CQLInt", "SMALLINT": "kandra.CQLSmallint",
	"TEXT": "kandra.CQLText", "VARCHAR": "kandra.CQLText", "TIME": "kandra.CQLTime", "TIMESTAMP": "kandra.CQLTimestamp",
	"TIMEUUID": "kandra.CQLTimeUUID", "TINYINT": "kandra.CQLTinyint", "UUID": "kandra.CQLUUID", "VARINT": "kandra.CQLVarint",
}

// cqlTypeExpr is the Go expression of t, which holds natives only (a
// type columnType gives AsType).
func cqlTypeExpr(t kandra.CQLType) string {
	switch t.Kind() {
	case kandra.KindList:
		return "kandra.ListOf(" + cqlTypeExpr(t.Elem()) + ")"
	case kandra.KindSet:
		return "kandra.SetOf(" + cqlTypeExpr(t.Elem()) + ")"
	case kandra.KindMap:
		return "kandra.MapOf(" + cqlTypeExpr(t.Key()) + ", " + cqlTypeExpr(t.Elem()) + ")"
	case kandra.KindVector:
		return "kandra.VectorOf(" + cqlTypeExpr(t.Elem()) + ", " + strconv.Itoa(t.Dim()) + ")"
	}
	return cqlNativeExprs[t.Name()]
}

// entityName is the Go name of table's struct: given to the tables in
// their name order before any type's, so that a table's struct keeps its
// name when a type has the same.
func (g *gen) entityName(table string) string {
	if n, ok := g.entityNames[table]; ok {
		return n
	}
	n, _ := g.top.name(table)
	g.entityNames[table] = n
	return n
}

// markUsedUDTs marks the types the model's columns hold, and the types
// those hold: the structs the file declares.
func (g *gen) markUsedUDTs() {
	var walk func(t kandra.CQLType)
	walk = func(t kandra.CQLType) {
		if t.IsZero() {
			return
		}
		if u := g.udts[t.Name()]; t.Kind() == kandra.KindUDT && u != nil && !u.used {
			u.used = true
			for _, f := range u.lt.Type.Fields() {
				walk(f.Type)
			}
		}
		walk(t.Key())
		walk(t.Elem())
	}
	for _, e := range g.entities {
		for _, f := range e.fields {
			walk(f.col.Type)
		}
	}
}

// nameUDTs lists the live types; each struct is named when a column
// first holds it.
func (g *gen) nameUDTs() {
	for _, name := range slices.Sorted(maps.Keys(g.ks.Types)) {
		g.udts[name] = &udtStruct{lt: g.ks.Types[name]}
	}
}

// mapUDT maps the fields of u (once) and reports whether u can be
// written.
func (g *gen) mapUDT(u *udtStruct) bool {
	if u.mapped {
		return u.problem == ""
	}
	u.mapped = true
	u.problem = "it is being mapped" // a type that holds itself (no server has one)
	lt := u.lt
	if lt.Type.IsZero() {
		u.problem = "one of its fields is of a type kandra cannot read (a tuple, a custom type) or names a type the keyspace lacks"
		return false
	}
	if p := nameProblemOf(lt.Name); p != "" {
		u.problem = p
		return false
	}
	names := newNamer("UDTName")
	u.comparable = true
	var fields []udtField
	for i, f := range lt.Type.Fields() {
		switch {
		case f.Name == "-" || f.Name == "" || !utf8.ValidString(f.Name) || len(f.Name) > kandra.MaxColumnNameBytes:
			u.problem = "its field " + strconv.Quote(f.Name) + " has a name a kandra tag cannot give"
			return false
		case freezable(f.Type) && i < len(lt.FieldTypes) && !outerFrozen(lt.FieldTypes[i]):
			if !f.Type.IsCollection() { // servers refuse it: "A user type cannot contain non-frozen UDTs"
				u.problem = "its field " + strconv.Quote(f.Name) + " is " + lt.FieldTypes[i] + ", not frozen, and kandra freezes every type inside a type"
				return false
			}
			// kandra declares it frozen: the same bytes in every frozen
			// use of the type (the planner compares so).
			if u.open == "" {
				u.open = f.Name
			}
		}
		gt, why := g.goTypeOf(f.Type, true, true)
		if why != "" {
			u.problem = "its field " + strconv.Quote(f.Name) + " " + why
			return false
		}
		if f.Type.Kind() == kandra.KindVector {
			u.problem = "its field " + strconv.Quote(f.Name) + " is a vector, which kandra keeps in a column of its own"
			return false
		}
		fn, exact := names.name(f.Name)
		uf := udtField{name: fn, typ: gt.expr}
		if !exact {
			uf.tag = "kandra:" + strconv.Quote(f.Name)
		}
		fields = append(fields, uf)
		u.comparable = u.comparable && gt.comparable
	}
	u.fields, u.problem = fields, ""
	u.goName, _ = g.top.name(lt.Name)
	return true
}

// nameProblemOf says why kandra refuses name as a user-defined type's
// name, or "".
func nameProblemOf(name string) string {
	if err := kandra.ValidateName(name); err != nil {
		return "its name " + strconv.Quote(name) + " is not one kandra gives a type (ASCII letters, digits and _)"
	}
	return ""
}
