package migrate

// The statements of a .cql file, run against keyspaces held in memory as
// a server would hold them: each statement either changes them, is left
// out with the reason a server refuses it, or is listed as what kandra
// does not model. The keyspaces end as system_schema rows (fileRows),
// which liveFromRows reads like those of a node.

import (
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kandra-go/kandra"
)

// fileKeyspace is a keyspace as the statements of the file left it.
type fileKeyspace struct {
	name    string
	created bool // by a CREATE KEYSPACE of the file
	dropped bool // by a DROP KEYSPACE of the file, and not created again
	repl    map[string]string
	durable bool
	tablets bool
	tables  map[string]*fileTable
	types   map[string]*fileType
	indexes map[string]*fileTable // by index name (unique per keyspace), its table
	funcs   []*fileFunc
	aggs    []*fileFunc
	views   map[string]string  // materialized views by name, their base tables
	trigs   map[[2]string]bool // triggers by table and name
	unexp   []string           // what the Live cannot hold, and the statements left out
}

type fileTable struct {
	name    string
	cols    []*fileColumn
	row     map[string]any // the system_schema.tables row, but for names
	indexes []*fileIndex
}

type fileColumn struct {
	name  string
	kind  ColumnKind
	pos   int
	order string
	typ   *ftype
	mask  map[string]any // the system_schema.column_masks row, or nil
}

type fileIndex struct {
	name, kind string
	options    map[string]string
}

type fileType struct {
	name   string
	fields []string
	types  []*ftype
}

type fileFunc struct {
	name string
	args []string
	ret  string
}

// fileParser runs the statements of one file.
type fileParser struct {
	// cur is the keyspace of unqualified names: the one the caller names,
	// else the only one the file creates, until a USE names another.
	cur string
	// why says why cur is "" (for the error of an unqualified name).
	why     string
	kss     map[string]*fileKeyspace
	general []string // entries of statements of no keyspace (data, roles)
	// latest: the node runs cassandra_latest.yaml's settings
	// (ParseSchemaFileFor).
	latest bool
}

// latestCompaction is the compaction a node with cassandra_latest.yaml's
// settings gives a table created without one (its default_compaction),
// as it stores it.
var latestCompaction = map[string]string{
	"class": "org.apache.cassandra.db.compaction.UnifiedCompactionStrategy", "scaling_parameters": "T4",
	"max_sstables_to_compact": "64", "min_sstable_size": "100MiB", "sstable_growth": "0.3333333333333333", "target_sstable_size": "1GiB",
}

// ks is the keyspace named name, from now on named by the file.
func (fp *fileParser) ks(name string) *fileKeyspace {
	k := fp.kss[name]
	if k == nil {
		k = &fileKeyspace{name: name, durable: true, tables: map[string]*fileTable{}, types: map[string]*fileType{},
			indexes: map[string]*fileTable{}, views: map[string]string{}, trigs: map[[2]string]bool{}}
		fp.kss[name] = k
	}
	return k
}

// syntaxError is a statement the parser cannot read; refusal is one it
// reads and a server refuses. Both stop the statement (panic, recovered
// by run), before it changes anything.
type syntaxError struct{ problem string }
type refusal struct {
	ks  *fileKeyspace // nil when not known yet
	why string
}

// stmtParser reads one statement.
type stmtParser struct {
	fp   *fileParser
	st   statement
	toks []cqlToken
	i    int
	ks   *fileKeyspace // the keyspace the statement changes, once read
}

func (p *stmtParser) peek() cqlToken {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return cqlToken{line: p.st.line}
}

func (p *stmtParser) next() cqlToken {
	t := p.peek()
	if p.i < len(p.toks) {
		p.i++
	}
	return t
}

func (p *stmtParser) done() bool { return p.i >= len(p.toks) }

// accept consumes the keywords words, in order, if they come next.
func (p *stmtParser) accept(words ...string) bool {
	for j, w := range words {
		if p.i+j >= len(p.toks) || !p.toks[p.i+j].is(w) {
			return false
		}
	}
	p.i += len(words)
	return true
}

func (p *stmtParser) acceptPunct(c string) bool {
	if p.peek().isPunct(c) {
		p.i++
		return true
	}
	return false
}

func (p *stmtParser) syntax(problem string) { panic(syntaxError{problem}) }

// syntaxAt fails at t, which is not the want the statement needs there.
func (p *stmtParser) syntaxAt(t cqlToken, want string) {
	if t.kind == 0 {
		p.syntax("the statement ends where " + want + " should come; fix the statement")
	}
	at := ""
	if t.line != p.st.line {
		at = "line " + itoa(t.line) + ": "
	}
	p.syntax(at + "found " + t.describe() + " where " + want + " should come; fix the statement")
}

func (p *stmtParser) expectPunct(c, why string) {
	if t := p.next(); !t.isPunct(c) {
		p.syntaxAt(t, "'"+c+"' "+why)
	}
}

func (p *stmtParser) expect(words ...string) {
	for _, w := range words {
		if t := p.next(); !t.is(w) {
			p.syntaxAt(t, strings.ToUpper(w))
		}
	}
}

func (p *stmtParser) end() {
	if !p.done() {
		p.syntaxAt(p.peek(), "the end of the statement")
	}
}

func (p *stmtParser) refuse(why string) { panic(refusal{ks: p.ks, why: why}) }

// listSep reads the ',' after an item of a list in parentheses, or sees
// the ')' that closes it (which the list's loop reads).
func (p *stmtParser) listSep(what string) {
	if !p.acceptPunct(",") && !p.peek().isPunct(")") {
		p.syntaxAt(p.peek(), "',' or ')' in "+what)
	}
}

// ident reads a name: unquoted, folded to lower case as servers fold it;
// quoted, as it is.
func (p *stmtParser) ident(what string) string {
	t := p.next()
	switch t.kind {
	case tWord:
		return strings.ToLower(t.text)
	case tQuoted:
		return t.text
	}
	p.syntaxAt(t, what)
	return ""
}

// qname reads [keyspace.]name and returns the keyspace it is in.
func (p *stmtParser) qname(what string) (*fileKeyspace, string) {
	first := p.ident(what)
	if p.acceptPunct(".") {
		return p.fp.ks(first), p.ident(what + " after its keyspace")
	}
	return p.unqualified(), first
}

// unqualified is the keyspace of an unqualified name.
func (p *stmtParser) unqualified() *fileKeyspace {
	if p.fp.cur == "" {
		p.syntax("it names no keyspace, and " + p.fp.why + ": qualify the name (ks.name), add a USE statement before it, or name the keyspace the file is applied to")
	}
	return p.fp.ks(p.fp.cur)
}

// ifNotExists reads IF NOT EXISTS.
func (p *stmtParser) ifNotExists() bool { return p.accept("IF", "NOT", "EXISTS") }

// createKeyspace reads CREATE KEYSPACE: its replication (the class by its
// full name, as stored), durable_writes and ScyllaDB's tablets.
func (p *stmtParser) createKeyspace() {
	ifNot := p.ifNotExists()
	name := p.ident("the keyspace's name")
	p.ks = p.fp.ks(name)
	props := p.properties(false)
	p.end()
	if p.ks.created {
		if ifNot {
			return
		}
		p.refuse("keyspace " + name + " exists already (created before in the file); write IF NOT EXISTS or create it once")
	}
	repl := map[string]string{}
	durable, tablets := true, false
	for _, pr := range props {
		switch pr.name {
		case "replication":
			if pr.m == nil {
				p.refuse("replication is not a map")
			}
			for k, v := range pr.m {
				repl[k] = v
			}
			if c := repl["class"]; c != "" && !strings.Contains(c, ".") {
				repl["class"] = "org.apache.cassandra.locator." + c
			}
		case "durable_writes":
			durable = !strings.EqualFold(pr.val, "false")
		case "tablets":
			// ScyllaDB turns tablets on for enabled true, or for an
			// initial count without enabled false.
			_, initial := pr.m["initial"]
			tablets = strings.EqualFold(pr.m["enabled"], "true") || initial && !strings.EqualFold(pr.m["enabled"], "false")
		default:
			p.refuse("keyspace " + name + ": " + pr.name + " is no keyspace property a server knows (replication, durable_writes, tablets)")
		}
	}
	if repl["class"] == "" {
		p.refuse("keyspace " + name + " has no replication class; write WITH replication = {'class': ...}")
	}
	k := p.ks
	k.created, k.dropped, k.repl, k.durable, k.tablets = true, false, repl, durable, tablets
}

// property is one property of a WITH clause: name = value, or a map.
type property struct {
	name string
	val  string            // a constant's text ("" for a map)
	m    map[string]string // a map's entries, nil for a constant
	line int
	// order and compact are a table's CLUSTERING ORDER BY and COMPACT
	// STORAGE.
	order   [][2]string
	compact bool
}

// properties reads WITH p [AND p]..., or nothing; a table's (table set)
// may hold CLUSTERING ORDER BY and COMPACT STORAGE.
func (p *stmtParser) properties(table bool) []property {
	if !p.accept("WITH") {
		return nil
	}
	var out []property
	seen := map[string]bool{}
	for {
		t := p.peek()
		switch {
		case table && p.accept("CLUSTERING", "ORDER", "BY"):
			pr := property{name: "clustering order", line: t.line}
			p.expectPunct("(", "after CLUSTERING ORDER BY")
			for {
				c := p.ident("a clustering column's name")
				dir := "asc"
				switch {
				case p.accept("ASC"):
				case p.accept("DESC"):
					dir = "desc"
				}
				pr.order = append(pr.order, [2]string{c, dir})
				if !p.acceptPunct(",") {
					break
				}
			}
			p.expectPunct(")", "to close CLUSTERING ORDER BY (")
			out = append(out, pr)
		case table && p.accept("COMPACT", "STORAGE"):
			out = append(out, property{name: "compact storage", compact: true, line: t.line})
		default:
			name := p.ident("a property's name")
			if seen[name] {
				p.refuse("the property " + name + " is given twice, which the servers refuse (\"Multiple definition for property\")")
			}
			seen[name] = true
			p.expectPunct("=", "after the property "+name)
			pr := property{name: name, line: t.line}
			if p.peek().isPunct("{") {
				pr.m = p.mapLiteral()
			} else {
				pr.val = p.constant("the value of " + name)
			}
			out = append(out, pr)
		}
		if !p.accept("AND") {
			return out
		}
	}
}

// constant reads a constant as system_schema stores its text: a string's
// content, a number or word as written (true, false, NONE), -1.
func (p *stmtParser) constant(what string) string {
	t := p.next()
	switch {
	case t.kind == tString, t.kind == tNumber:
		return t.text
	case t.kind == tWord:
		return t.text // an unquoted word: true, NONE
	case t.isPunct("-") || t.isPunct("+"):
		n := p.next()
		if n.kind != tNumber && n.kind != tWord {
			p.syntaxAt(n, what)
		}
		return t.text + n.text
	}
	p.syntaxAt(t, what)
	return ""
}

// mapLiteral reads {'k': v, ...} into text entries.
func (p *stmtParser) mapLiteral() map[string]string {
	p.expectPunct("{", "to open a map")
	m := map[string]string{}
	if p.acceptPunct("}") {
		return m
	}
	for {
		k := p.constant("a map's key")
		p.expectPunct(":", "after the map key "+strconv.Quote(short(k)))
		if p.peek().isPunct("{") {
			p.syntax("the map key " + strconv.Quote(short(k)) + " holds a map, which no option takes")
		}
		m[k] = p.constant("the value of the map key " + strconv.Quote(short(k)))
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct("}", "to close the map")
	return m
}

// createType reads CREATE TYPE.
func (p *stmtParser) createType() {
	ifNot := p.ifNotExists()
	var name string
	p.ks, name = p.qname("the type's name")
	p.expectPunct("(", "to open the type's fields")
	ft := &fileType{name: name}
	for !p.acceptPunct(")") {
		if p.acceptPunct(",") {
			continue // a trailing or doubled comma, which both servers take
		}
		f := p.ident("a field's name")
		typ := p.typ(0)
		p.listSep("the type's fields")
		if slices.Contains(ft.fields, f) {
			p.refuse("type " + name + " repeats the field " + strconv.Quote(f))
		}
		ft.fields, ft.types = append(ft.fields, f), append(ft.types, typ)
	}
	p.end()
	if p.ks.types[name] != nil {
		if ifNot {
			return
		}
		p.refuse("type " + name + " exists already; write IF NOT EXISTS or create it once")
	}
	if len(ft.fields) == 0 {
		p.refuse("type " + name + " has no field")
	}
	for i, t := range ft.types {
		if t.kind == "udt" && !t.frozen {
			p.refuse("type " + name + ": field " + strconv.Quote(ft.fields[i]) + " holds the type " + t.name + " not frozen; write frozen<" + t.name + ">")
		}
		if t.uses(name) {
			p.refuse("type " + name + " holds itself")
		}
		if t.kind == "native" && t.name == "counter" {
			p.refuse("type " + name + ": field " + strconv.Quote(ft.fields[i]) + " is a counter, which no server takes in a type (\"A user type cannot contain counters\")")
		}
		if why := t.check(p.ks, false, false); why != "" {
			p.refuse("type " + name + ": field " + strconv.Quote(ft.fields[i]) + ": " + why)
		}
	}
	p.ks.types[name] = ft
}

// tableOptionDefaults are the table options of Cassandra 5.0 and
// ScyllaDB that kandra neither declares nor the planner compares, with
// the value the servers default them to: a file that states the default
// (DESCRIBE writes every option) says nothing kandra misses.
var tableOptionDefaults = map[string]string{
	"additional_write_policy": "99p", "allow_auto_snapshot": "true", "crc_check_chance": "1", "extensions": "{}",
	"incremental_backups": "true", "max_index_interval": "2048", "min_index_interval": "128", "memtable_flush_period_in_ms": "0",
	"read_repair": "BLOCKING", "dclocal_read_repair_chance": "0", "read_repair_chance": "0", "paxos_grace_seconds": "864000",
	"tombstone_gc": "{mode=timeout, propagation_delay_in_seconds=3600}", "synchronous_updates": "false",
	"per_partition_rate_limit": "{}", "index_interval": "128", "populate_io_cache_on_flush": "false",
	"replicate_on_write": "true", "transactional_mode": "off", "transactional_migration_from": "none",
	"tablets": "{}",
}

// createTable reads CREATE TABLE.
func (p *stmtParser) createTable() {
	ifNot := p.ifNotExists()
	var name string
	p.ks, name = p.qname("the table's name")
	p.expectPunct("(", "to open the table's columns")
	t := &fileTable{name: name, row: map[string]any{}}
	var pk [][]string // the PRIMARY KEY: partition key columns, then each clustering column
	pkCount := 0
	byName := map[string]*fileColumn{}
	statics := 0
	for !p.acceptPunct(")") {
		if p.acceptPunct(",") {
			continue
		}
		if p.accept("PRIMARY", "KEY") {
			pkCount++
			pk = p.primaryKey()
			p.listSep("the table's columns")
			continue
		}
		c := &fileColumn{name: p.ident("a column's name"), kind: ColumnRegular, pos: -1, order: "none"}
		c.typ = p.typ(0)
		for {
			switch {
			case p.accept("STATIC"):
				c.kind = ColumnStatic
				statics++
				continue
			case p.accept("PRIMARY", "KEY"):
				pkCount++
				pk = [][]string{{c.name}}
				continue
			case p.accept("MASKED", "WITH"):
				c.mask = p.mask(c)
				continue
			}
			break
		}
		p.listSep("the table's columns")
		if byName[c.name] != nil {
			p.refuse("table " + name + " repeats the column " + strconv.Quote(c.name))
		}
		byName[c.name] = c
		t.cols = append(t.cols, c)
	}
	props := p.properties(true)
	p.end()
	what := "table " + name
	if p.ks.tables[name] != nil {
		if ifNot {
			return
		}
		p.refuse(what + " exists already; write IF NOT EXISTS or create it once")
	}
	switch {
	case pkCount == 0:
		p.refuse(what + " has no PRIMARY KEY")
	case pkCount > 1:
		p.refuse(what + " has more than one PRIMARY KEY")
	}
	seen := map[string]bool{}
	for i, group := range pk {
		for j, n := range group {
			c := byName[n]
			switch {
			case c == nil:
				p.refuse(what + ": the PRIMARY KEY names " + strconv.Quote(n) + ", which is no column of it")
			case seen[n]:
				p.refuse(what + ": the PRIMARY KEY repeats " + strconv.Quote(n))
			case c.kind == ColumnStatic:
				p.refuse(what + ": the static column " + strconv.Quote(n) + " is in the PRIMARY KEY")
			case c.typ.kind == "native" && c.typ.name == "counter":
				p.refuse(what + ": the counter " + strconv.Quote(n) + " is in the PRIMARY KEY")
			case (c.typ.collection() || c.typ.kind == "udt") && !c.typ.frozen:
				p.refuse(what + ": the key column " + strconv.Quote(n) + " is a " + c.typ.kind + " not frozen; write frozen<...>")
			}
			seen[n] = true
			if i == 0 {
				c.kind, c.pos = ColumnPartitionKey, j
			} else {
				c.kind, c.pos, c.order = ColumnClustering, i-1, "asc"
			}
		}
	}
	clustering := len(pk) - 1
	if statics > 0 && clustering == 0 {
		p.refuse(what + " has a static column and no clustering column")
	}
	counters, others := 0, 0
	for _, c := range t.cols {
		if why := c.typ.check(p.ks, false, false); why != "" {
			p.refuse(what + ": column " + strconv.Quote(c.name) + ": " + why)
		}
		if c.kind == ColumnRegular || c.kind == ColumnStatic {
			if c.typ.kind == "native" && c.typ.name == "counter" {
				counters++
			} else {
				others++
			}
		}
	}
	if counters > 0 && others > 0 {
		p.refuse(what + " mixes counter and non-counter columns outside its PRIMARY KEY")
	}
	flags := []string{"compound"}
	t.row["gc_grace_seconds"] = int(defaultGCGrace.Seconds())
	t.row["default_time_to_live"] = 0
	for _, pr := range props {
		p.tableOption(t, pr, byName, pk)
		if pr.compact {
			flags = nil
			if clustering > 0 {
				flags = []string{"dense"}
			}
		}
	}
	if counters > 0 {
		flags = append(flags, "counter")
		if t.row["default_time_to_live"] != 0 {
			p.refuse(what + " has counters and a default_time_to_live, which no server takes")
		}
	}
	t.row["flags"] = flags
	if _, ok := t.row["compaction"]; !ok && p.fp.latest {
		t.row["compaction"] = maps.Clone(latestCompaction)
	}
	for _, c := range t.cols {
		if c.mask != nil {
			c.mask["table_name"] = name
		}
	}
	p.ks.tables[name] = t
}

// primaryKey reads ((a, b), c, d) or (a, c, d) after PRIMARY KEY.
func (p *stmtParser) primaryKey() [][]string {
	p.expectPunct("(", "after PRIMARY KEY")
	var out [][]string
	if p.acceptPunct("(") {
		var part []string
		for {
			part = append(part, p.ident("a partition key column"))
			if !p.acceptPunct(",") {
				break
			}
		}
		p.expectPunct(")", "to close the partition key")
		out = append(out, part)
	} else {
		out = append(out, []string{p.ident("a partition key column")})
	}
	for p.acceptPunct(",") {
		out = append(out, []string{p.ident("a clustering column")})
	}
	p.expectPunct(")", "to close PRIMARY KEY (")
	return out
}

// maskArgTypes are the argument types of Cassandra 5.0's masking
// functions after the column's value, as system_schema.column_masks
// stores them; "" stands for the column's own type.
var maskArgTypes = map[string][]string{
	"mask_null": nil, "mask_default": nil, "mask_inner": {"int", "int", "text"}, "mask_outer": {"int", "int", "text"},
	"mask_hash": {"text"}, "mask_replace": {""},
}

// mask reads MASKED WITH DEFAULT or a masking function's call into the
// system_schema.column_masks row it makes.
func (p *stmtParser) mask(c *fileColumn) map[string]any {
	fks, fname := "system", ""
	if p.accept("DEFAULT") {
		fname = "mask_default"
	} else {
		fname = p.ident("a masking function")
		if p.acceptPunct(".") {
			fks, fname = fname, p.ident("a masking function after its keyspace")
		}
	}
	var types, values []string
	var nulls []bool
	if fname != "mask_default" || p.peek().isPunct("(") {
		p.expectPunct("(", "to open the masking function's arguments")
		for !p.acceptPunct(")") {
			if len(values) > 0 {
				p.expectPunct(",", "between arguments")
			}
			if p.accept("null") {
				values, nulls = append(values, ""), append(nulls, true)
			} else {
				values, nulls = append(values, p.constant("an argument of "+fname)), append(nulls, false)
			}
		}
	}
	want, known := maskArgTypes[fname]
	for i := range values {
		switch {
		case known && i < len(want) && want[i] == "":
			types = append(types, c.typ.raw(false))
		case known && i < len(want):
			types = append(types, want[i])
		default:
			types = append(types, "text")
		}
	}
	if fks == "system" && !known {
		p.refuse("column " + strconv.Quote(c.name) + " is masked with " + fname + ", which is none of the system masking functions (mask_null, mask_default, mask_inner, mask_outer, mask_hash, mask_replace); qualify a user-defined function with its keyspace")
	}
	if types == nil {
		types, values, nulls = []string{}, []string{}, []bool{}
	}
	return map[string]any{"column_name": c.name, "function_keyspace": fks, "function_name": fname,
		"function_argument_types": types, "function_argument_values": values, "function_argument_nulls": nulls}
}

// retryForm reads a speculative_retry policy in the spelling
// normRetry leaves ("never", "min(90p,50ms)").
var retryForm = regexp.MustCompile(`^(never|always|\d+(\.\d+)?p|\d+(\.\d+)?ms|(min|max)\(\d+(\.\d+)?p,\d+(\.\d+)?ms\))$`)

// tableOption sets the option pr of table t as system_schema.tables
// stores it (LiveTable.Options), or lists what kandra does not model.
func (p *stmtParser) tableOption(t *fileTable, pr property, cols map[string]*fileColumn, pk [][]string) {
	what := "table " + t.name
	num := func() int {
		n, err := strconv.Atoi(pr.val)
		if err != nil || n < 0 || pr.m != nil {
			p.refuse(what + ": " + pr.name + " = " + strconv.Quote(short(pr.val)) + " is not a whole number of seconds, 0 or more")
		}
		return n
	}
	needMap := func() {
		if pr.m == nil {
			p.refuse(what + ": " + pr.name + " is not a map")
		}
	}
	switch pr.name {
	case "clustering order":
		if len(pr.order) > len(pk)-1 {
			p.refuse(what + ": CLUSTERING ORDER BY names more columns than the table's clustering columns")
		}
		for i, o := range pr.order {
			if pk[i+1][0] != o[0] {
				p.refuse(what + ": CLUSTERING ORDER BY names " + strconv.Quote(o[0]) + " where the clustering column " + strconv.Quote(pk[i+1][0]) + " is (it lists them in order)")
			}
			cols[o[0]].order = o[1]
		}
	case "compact storage":
	case "default_time_to_live":
		if n := num(); n > 630720000 {
			p.refuse(what + ": default_time_to_live " + pr.val + " is over the servers' maximum, 630720000 (20 years)")
		} else {
			t.row[pr.name] = n
		}
	case "gc_grace_seconds":
		t.row[pr.name] = num()
	case "id":
		t.row["id"] = strings.ToLower(pr.val)
	case "compaction":
		needMap()
		m := maps.Clone(pr.m)
		class := m["class"]
		if class == "" {
			p.refuse(what + ": compaction has no class")
		}
		if !strings.Contains(class, ".") {
			m["class"] = "org.apache.cassandra.db.compaction." + class
		}
		switch lastName(class) {
		case "SizeTieredCompactionStrategy", "LeveledCompactionStrategy", "TimeWindowCompactionStrategy":
			// Cassandra stores the thresholds with every other strategy
			// but the unified one.
			for k, v := range map[string]string{"max_threshold": "32", "min_threshold": "4"} {
				if _, ok := m[k]; !ok {
					m[k] = v
				}
			}
		}
		t.row[pr.name] = m
	case "compression":
		needMap()
		m := maps.Clone(pr.m)
		if len(m) == 0 || strings.EqualFold(m["enabled"], "false") {
			m = map[string]string{"enabled": "false"} // as Cassandra stores no compression
		}
		if c, ok := m["sstable_compression"]; ok && c == "" {
			m = map[string]string{} // ScyllaDB's spelling of none, which it stores as an empty map
		}
		if v, ok := m["chunk_length_kb"]; ok {
			delete(m, "chunk_length_kb") // the spelling before Cassandra 3.0
			m["chunk_length_in_kb"] = v
		}
		for _, k := range []string{"class", "sstable_compression"} {
			if c := m[k]; c != "" && !strings.Contains(c, ".") {
				m[k] = "org.apache.cassandra.io.compress." + c
			}
		}
		if strings.EqualFold(m["enabled"], "true") {
			delete(m, "enabled") // Cassandra stores an enabled compression by its class alone
		}
		t.row[pr.name] = m
	case "caching":
		needMap()
		m := maps.Clone(pr.m)
		_, keys := m["keys"]
		_, rows := m["rows_per_partition"]
		if keys || rows {
			// Cassandra stores both, each NONE unless stated.
			for _, k := range []string{"keys", "rows_per_partition"} {
				switch v := strings.ToUpper(m[k]); v {
				case "", "NONE":
					m[k] = "NONE"
				case "ALL":
					m[k] = v
				}
			}
		}
		t.row[pr.name] = m
	case "comment", "memtable":
		t.row[pr.name] = pr.val
	case "speculative_retry":
		v := normRetry(pr.val)
		if !retryForm.MatchString(v) {
			p.refuse(what + ": speculative_retry " + strconv.Quote(short(pr.val)) + " is no policy a server reads (NONE, ALWAYS, 99p, 99PERCENTILE, 50ms, MIN(99p,50ms))")
		}
		// Cassandra's spelling: NEVER, ALWAYS, MIN(...) in upper case.
		t.row[pr.name] = strings.NewReplacer("never", "NEVER", "always", "ALWAYS", "min", "MIN", "max", "MAX").Replace(v)
	case "bloom_filter_fp_chance":
		f, err := strconv.ParseFloat(pr.val, 64)
		if err != nil || pr.m != nil {
			p.refuse(what + ": bloom_filter_fp_chance " + strconv.Quote(short(pr.val)) + " is not a number")
		}
		t.row[pr.name] = f
	case "cdc":
		if pr.m != nil {
			// ScyllaDB's CDC options, which it keeps outside
			// system_schema.tables: the planner cannot see them.
			if strings.EqualFold(pr.m["enabled"], "true") {
				p.ks.unexp = append(p.ks.unexp, what+": cdc = "+mapText(pr.m)+": ScyllaDB's CDC, which kandra does not declare and the planner cannot see; the table keeps it if created from the file")
			}
			return
		}
		t.row[pr.name] = strings.EqualFold(pr.val, "true")
	default:
		def, known := tableOptionDefaults[pr.name]
		if !known {
			p.refuse(what + ": " + pr.name + " is no table option Cassandra or ScyllaDB knows")
		}
		v := pr.val
		if pr.m != nil {
			v = mapText(pr.m)
		}
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			v = strconv.FormatFloat(f, 'g', -1, 64)
		}
		if !strings.EqualFold(v, def) && !(pr.m != nil && len(pr.m) == 0 && def == "{}") {
			p.ks.unexp = append(p.ks.unexp, what+": "+pr.name+" = "+short(v)+" (line "+itoa(pr.line)+"): kandra declares no such option and the planner does not compare it; a table created from the model has the server's default")
		}
	}
}

// createIndex reads CREATE [CUSTOM] INDEX.
func (p *stmtParser) createIndex(custom bool) {
	ifNot := p.ifNotExists()
	name := ""
	if !p.peek().is("ON") {
		name = p.ident("the index's name")
		if p.acceptPunct(".") {
			p.fp.ks(name)
			name = p.ident("the index's name after its keyspace")
		}
	}
	p.expect("ON")
	var table string
	p.ks, table = p.qname("the indexed table's name")
	p.expectPunct("(", "to open the index's target")
	type target struct{ fn, col string }
	var targets []target
	for {
		if p.peek().isPunct("(") {
			p.syntax("the target starts with '(': a ScyllaDB local index ((pk), column), which ParseSchemaFile does not read; remove the statement, apply the file to a node and import from it")
		}
		tg := target{}
		first := p.ident("the indexed column")
		if p.acceptPunct("(") {
			tg.fn = first
			tg.col = p.ident("the indexed column")
			p.expectPunct(")", "to close "+first+"(")
		} else {
			tg.col = first
		}
		targets = append(targets, tg)
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct(")", "to close the index's target")
	class, using := "", false
	if p.accept("USING") {
		using = true
		t := p.next()
		if t.kind != tString {
			p.syntaxAt(t, "the index class as a string")
		}
		class = t.text
		if strings.EqualFold(class, "legacy_local_table") {
			class = "" // Cassandra 5.0's name of the legacy index, which it stores as one made without USING
		}
	} else if p.fp.latest {
		class = "sai" // default_secondary_index: sai, stored by that name
	}
	opts := map[string]string{}
	for _, pr := range p.properties(false) {
		if pr.name != "options" || pr.m == nil {
			p.refuse("index " + name + ": " + pr.name + " is no index property (OPTIONS = {...})")
		}
		maps.Copy(opts, pr.m)
	}
	p.end()
	t := p.ks.tables[table]
	what := "index on " + table
	if name != "" {
		what = "index " + name + " on " + table
	}
	switch {
	case t == nil:
		p.refuse(what + ": table " + table + " does not exist (yet) in keyspace " + p.ks.name)
	case custom && !using:
		p.refuse(what + ": CREATE CUSTOM INDEX needs USING 'class'")
	case class == "" && len(opts) > 0:
		p.refuse(what + ": OPTIONS are for a custom index (USING 'class')")
	case len(targets) > 1:
		p.ks.unexp = append(p.ks.unexp, what+": an index on several columns, which kandra cannot declare; keep it by hand")
		return
	}
	tg := targets[0]
	var col *fileColumn
	for _, c := range t.cols {
		if c.name == tg.col {
			col = c
		}
	}
	if col == nil {
		p.refuse(what + ": the table has no column " + strconv.Quote(tg.col))
	}
	if col.kind == ColumnPartitionKey && slices.IndexFunc(t.cols, func(c *fileColumn) bool { return c != col && c.kind == ColumnPartitionKey }) < 0 {
		p.refuse(what + ": " + col.name + " is the table's only partition key column, which no server indexes")
	}
	fn := strings.ToLower(tg.fn)
	coll := col.typ.collection()
	switch {
	case fn == "" && coll && !col.typ.frozen:
		fn = "values"
	case fn == "" || fn == "values" && coll && !col.typ.frozen:
	case fn == "keys" || fn == "entries":
		if col.typ.kind != "map" || col.typ.frozen {
			p.refuse(what + ": " + fn + "() takes a map that is not frozen, and " + col.name + " is " + col.typ.raw(false))
		}
	case fn == "full":
		if !coll || !col.typ.frozen {
			p.refuse(what + ": full() takes a frozen collection, and " + col.name + " is " + col.typ.raw(false))
		}
	default:
		p.refuse(what + ": " + tg.fn + "() is none of values, keys, entries and full on " + col.typ.raw(false))
	}
	if fn == "" && coll && col.typ.frozen {
		p.refuse(what + ": " + col.name + " is a frozen collection, which is indexed whole: write full(" + col.name + ")")
	}
	tgt := kandra.QuoteIdent(col.name) // as the servers write a target
	if fn != "" {
		tgt = fn + "(" + tgt + ")"
	}
	opts["target"] = tgt
	if strings.EqualFold(class, "sai") || lastName(class) == "StorageAttachedIndex" {
		switch {
		case nonWord.MatchString(col.name):
			p.refuse(what + ": SAI refuses a column whose name is not all letters, digits and _ (\"contains non-alphanumeric-underscore characters\")")
		case p.holdsBlob(col.typ):
			p.refuse(what + ": SAI refuses blob values (\"Unsupported type: blob\")")
		}
	}
	kind := "COMPOSITES"
	if class != "" {
		kind, opts["class_name"] = "CUSTOM", class
	} else if slices.Contains(t.row["flags"].([]string), "dense") || !slices.Contains(t.row["flags"].([]string), "compound") {
		kind = "KEYS"
	}
	for _, ix := range t.indexes {
		if maps.Equal(ix.options, opts) {
			if ifNot {
				return
			}
			p.refuse(what + " is a duplicate of index " + ix.name)
		}
	}
	if name == "" {
		base := nonWord.ReplaceAllString(table+"_"+col.name+"_idx", "")
		name = base
		for i := 1; p.ks.indexes[name] != nil; i++ {
			name = base + "_" + itoa(i)
		}
	} else if p.ks.indexes[name] != nil {
		if ifNot {
			return
		}
		p.refuse("index " + name + " exists already in keyspace " + p.ks.name + " (index names are per keyspace)")
	}
	t.indexes = append(t.indexes, &fileIndex{name: name, kind: kind, options: opts})
	p.ks.indexes[name] = t
}

var nonWord = regexp.MustCompile(`\W`)

// holdsBlob reports whether t holds a blob anywhere: in a collection, a
// tuple, or a field of a type the keyspace has.
func (p *stmtParser) holdsBlob(t *ftype) bool {
	if t.kind == "native" && t.name == "blob" {
		return true
	}
	if u := p.ks.types[t.name]; t.kind == "udt" && u != nil {
		for _, f := range u.types {
			if p.holdsBlob(f) {
				return true
			}
		}
	}
	for _, a := range t.args {
		if p.holdsBlob(a) {
			return true
		}
	}
	return false
}

// createView reads CREATE MATERIALIZED VIEW as far as its name and base
// table, and lists it as Import lists a view.
func (p *stmtParser) createView() {
	p.ifNotExists()
	var name string
	p.ks, name = p.qname("the view's name")
	for !p.done() && !p.peek().is("FROM") {
		p.next()
	}
	p.expect("FROM")
	bks, base := p.qname("the view's base table")
	if bks != p.ks {
		p.refuse("materialized view " + name + " is in keyspace " + p.ks.name + " and its base table in " + bks.name)
	}
	if p.ks.tables[base] == nil {
		p.refuse("materialized view " + name + ": its base table " + base + " does not exist (yet)")
	}
	if _, ok := p.ks.views[name]; ok {
		return
	}
	p.ks.views[name] = base
}

// createTrigger reads CREATE TRIGGER into the keyspace's triggers.
func (p *stmtParser) createTrigger() {
	p.ifNotExists()
	name := p.ident("the trigger's name")
	p.expect("ON")
	var table string
	p.ks, table = p.qname("the trigger's table")
	if p.ks.tables[table] == nil {
		p.refuse("trigger " + name + ": table " + table + " does not exist (yet)")
	}
	p.ks.trigs[[2]string{table, name}] = true
}

// funcTypes reads the types of a function's arguments or an aggregate's,
// with their names for a function, frozen as the servers store them.
func (p *stmtParser) funcTypes(named bool) []string {
	p.expectPunct("(", "to open the arguments")
	out := []string{}
	for !p.acceptPunct(")") {
		if len(out) > 0 {
			p.expectPunct(",", "between arguments")
		}
		if named {
			p.ident("an argument's name")
		}
		out = append(out, p.funcType())
	}
	return out
}

// funcType reads a function's type: a collection or a type frozen, as
// servers store a function's types.
func (p *stmtParser) funcType() string {
	t := p.typ(0)
	if why := t.check(p.ks, false, true); why != "" {
		p.refuse(why)
	}
	if t.freezable() {
		t.frozen = true
	}
	return t.raw(false)
}

// createFunction reads CREATE [OR REPLACE] FUNCTION as far as its
// signature and return type.
func (p *stmtParser) createFunction(replace bool) {
	ifNot := p.ifNotExists()
	var name string
	p.ks, name = p.qname("the function's name")
	f := &fileFunc{name: name, args: p.funcTypes(true)}
	for !p.done() && !p.peek().is("RETURNS") {
		p.next()
	}
	p.expect("RETURNS")
	if p.accept("NULL", "ON", "NULL", "INPUT") {
		p.expect("RETURNS")
	}
	f.ret = p.funcType()
	p.ks.funcs = addFunc(p, p.ks.funcs, f, "function", replace, ifNot)
}

// createAggregate reads CREATE [OR REPLACE] AGGREGATE: its return type
// is the final function's, or the state type.
func (p *stmtParser) createAggregate(replace bool) {
	ifNot := p.ifNotExists()
	var name string
	p.ks, name = p.qname("the aggregate's name")
	f := &fileFunc{name: name, args: p.funcTypes(false)}
	p.expect("SFUNC")
	p.ident("the state function")
	p.expect("STYPE")
	f.ret = p.funcType()
	if p.accept("FINALFUNC") {
		final := p.ident("the final function")
		f.ret = ""
		for _, g := range p.ks.funcs {
			if g.name == final && len(g.args) == 1 {
				f.ret = g.ret
			}
		}
		if f.ret == "" {
			p.refuse("aggregate " + name + ": its final function " + final + " of one argument does not exist (yet)")
		}
	}
	p.ks.aggs = addFunc(p, p.ks.aggs, f, "aggregate", replace, ifNot)
}

// addFunc adds f to fs, replacing the one of its signature when replace.
func addFunc(p *stmtParser, fs []*fileFunc, f *fileFunc, what string, replace, ifNot bool) []*fileFunc {
	for i, g := range fs {
		if g.name == f.name && slices.Equal(g.args, f.args) {
			switch {
			case replace:
				fs[i] = f
				return fs
			case ifNot:
				return fs
			}
			p.refuse(what + " " + f.name + "(" + strings.Join(f.args, ", ") + ") exists already")
		}
	}
	return append(fs, f)
}

// drop reads DROP KEYSPACE, TABLE, TYPE, INDEX, MATERIALIZED VIEW,
// TRIGGER, FUNCTION or AGGREGATE, and drops it.
func (p *stmtParser) drop() {
	ifx := false
	ifExists := func() bool { return p.accept("IF", "EXISTS") }
	missing := func(ok bool, what string) bool {
		if ok {
			return false
		}
		if !ifx {
			p.refuse(what + " does not exist; write IF EXISTS")
		}
		return true
	}
	switch {
	case p.accept("KEYSPACE"), p.accept("SCHEMA"):
		ifx = ifExists()
		name := p.ident("the keyspace's name")
		p.end()
		k := p.fp.kss[name]
		if missing(k != nil && k.created, "keyspace "+name) {
			return
		}
		delete(p.fp.kss, name)
		p.fp.ks(name).dropped = true
	case p.accept("TABLE"), p.accept("COLUMNFAMILY"):
		ifx = ifExists()
		var name string
		p.ks, name = p.qname("the table's name")
		p.end()
		t := p.ks.tables[name]
		if missing(t != nil, "table "+name) {
			return
		}
		for v, base := range p.ks.views { // refused before anything changes
			if base == name {
				p.refuse("table " + name + " has the materialized view " + v + "; drop it first")
			}
		}
		for _, ix := range t.indexes {
			delete(p.ks.indexes, ix.name)
		}
		for k := range p.ks.trigs {
			if k[0] == name {
				delete(p.ks.trigs, k)
			}
		}
		delete(p.ks.tables, name)
	case p.accept("TYPE"):
		ifx = ifExists()
		var name string
		p.ks, name = p.qname("the type's name")
		p.end()
		if missing(p.ks.types[name] != nil, "type "+name) {
			return
		}
		for _, t := range p.ks.tables {
			for _, c := range t.cols {
				if c.typ.uses(name) {
					p.refuse("type " + name + " is still used by table " + t.name)
				}
			}
		}
		for _, u := range p.ks.types {
			for _, ft := range u.types {
				if ft.uses(name) {
					p.refuse("type " + name + " is still used by type " + u.name)
				}
			}
		}
		delete(p.ks.types, name)
	case p.accept("INDEX"):
		ifx = ifExists()
		var name string
		p.ks, name = p.qname("the index's name")
		p.end()
		t := p.ks.indexes[name]
		if missing(t != nil, "index "+name) {
			return
		}
		t.indexes = slices.DeleteFunc(t.indexes, func(ix *fileIndex) bool { return ix.name == name })
		delete(p.ks.indexes, name)
	case p.accept("MATERIALIZED", "VIEW"):
		ifx = ifExists()
		var name string
		p.ks, name = p.qname("the view's name")
		p.end()
		if _, ok := p.ks.views[name]; missing(ok, "materialized view "+name) {
			return
		}
		delete(p.ks.views, name)
	case p.accept("TRIGGER"):
		ifx = ifExists()
		name := p.ident("the trigger's name")
		p.expect("ON")
		var table string
		p.ks, table = p.qname("the trigger's table")
		p.end()
		if missing(p.ks.trigs[[2]string{table, name}], "trigger "+name) {
			return
		}
		delete(p.ks.trigs, [2]string{table, name})
	case p.accept("FUNCTION"), p.accept("AGGREGATE"):
		agg := p.toks[p.i-1].is("AGGREGATE")
		ifx = ifExists()
		var name string
		p.ks, name = p.qname("the function's name")
		var args []string
		sig := p.peek().isPunct("(")
		if sig {
			args = p.funcTypes(false)
		}
		p.end()
		fs := &p.ks.funcs
		if agg {
			fs = &p.ks.aggs
		}
		n := len(*fs)
		*fs = slices.DeleteFunc(*fs, func(f *fileFunc) bool { return f.name == name && (!sig || slices.Equal(f.args, args)) })
		missing(len(*fs) < n, "function "+name)
	default:
		p.syntax("DROP of what ParseSchemaFile does not read; DROP KEYSPACE, TABLE, TYPE, INDEX, MATERIALIZED VIEW, TRIGGER, FUNCTION and AGGREGATE are read")
	}
}

// mapText writes a map option's entries, sorted: {k=v, k2=v2}.
func mapText(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// itoa is strconv.Itoa, short.
func itoa(n int) string { return strconv.Itoa(n) }
