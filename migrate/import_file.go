package migrate

// Import from a file: the Go entities of the keyspace a .cql schema file
// creates, for a team that publishes its schema as CQL and has no node at
// hand (or no kandra model yet).

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

// SchemaFile is a .cql schema file as ParseSchemaFile reads it: the
// keyspace it makes, and what of it a Live cannot hold.
type SchemaFile struct {
	// Live is the keyspace as system_schema would hold it after the
	// file's statements ran on a server that holds nothing else, read as
	// Read reads a node (GenerateEntities takes it as it takes a node's).
	// Its Server is unknown (the zero Server): ImportOptions.Targets say
	// which servers the generated model targets. Its Keyspace is nil when
	// the file drops the keyspace and does not create it again. Its
	// materialized views and triggers are in LiveKeyspace.Views and
	// Triggers, as a node's read holds them.
	Live *Live
	// Keyspaces names every keyspace the file creates or names, sorted.
	Keyspaces []string
	// Unexpressed lists what the file holds for the keyspace that Live
	// cannot hold, each with why and the way out: data and role
	// statements and cqlsh commands, table options kandra neither declares nor
	// compares, set to other than the servers' defaults, and every
	// statement left out because a server refuses it (a type the file
	// never creates, a table created twice), naming its line.
	// ImportFile lists them in Imported.Unexpressed.
	Unexpressed []string
	// Notes are the choices the reading made that the file does not say:
	// the replication of a keyspace the file does not create, the other
	// keyspaces left out. ImportFile lists them in Imported.Notes.
	Notes []string
}

// ParseSchemaFile reads a .cql schema file (the CREATE KEYSPACE, CREATE
// TYPE, CREATE TABLE and CREATE [CUSTOM] INDEX statements applications
// publish, or what DESCRIBE KEYSPACE prints) into the schema of the
// keyspace named keyspace, as a server that ran the file's statements in
// order on an empty cluster would hold it in system_schema: a
// SchemaFile whose Live is what Read would read from that server. The
// name is as stored: unquoted names are lower case. "" takes the only
// keyspace the file names, and is an error, listing them, when it names
// several.
//
// Statements end at each semicolon outside strings and comments (--, //
// and /* */). Unquoted names fold to lower case and quoted ones keep
// theirs; a name qualified with a keyspace is in that keyspace, and an
// unqualified one in the keyspace of the last USE, else in keyspace (the
// keyspace the file is applied to), else in the one keyspace the file
// creates. IF NOT EXISTS and IF EXISTS are honoured, as are DROP
// KEYSPACE, TABLE, TYPE, INDEX, MATERIALIZED VIEW, TRIGGER, FUNCTION and
// AGGREGATE.
//
// The Live holds what system_schema would: column kinds, key positions
// and clustering orders; types in the servers' spelling (lower case,
// varchar as text, frozen<...> around every collection, tuple and type
// nested in another); indexes with the name a server derives
// ({table}_{column}_idx) when none is given, their kind (COMPOSITES, or
// CUSTOM with USING) and options as stored (target: "v", "keys(m)",
// "full(f)", "values(l)" for a collection; class_name as written);
// column masks; user functions and aggregates by signature; table
// options as LiveTable.Options holds them (full class names, Cassandra's
// spelling of speculative_retry, the thresholds Cassandra adds to a
// compaction, a caching map's unstated half as NONE), with
// gc_grace_seconds 864000 and no default TTL where the file states none.
// An option the file does not state is absent, where a node would hold
// its own default: the defaults are the server's (Cassandra's and
// ScyllaDB's differ), which GenerateEntities leaves out of the code
// anyway, so the code is the same as a node's import.
//
// A statement the file holds that a server refuses, for a reason the
// parser sees (a type no statement created before it, a table created
// twice, an index on a column the table lacks), is left out, as a server
// leaves it out, and listed in Unexpressed with its line. ALTER
// statements, and statements the parser cannot read, are an error
// naming the line and the statement: the reading would be wrong without
// them.
//
// A file is read as a node with the servers' default configuration would
// create it; ParseSchemaFileFor reads it as a node of another
// configuration would.
func ParseSchemaFile(src []byte, keyspace string) (*SchemaFile, error) {
	return ParseSchemaFileFor(src, keyspace, 0)
}

// ParseSchemaFileFor is ParseSchemaFile for a node of the given targets,
// whose configuration decides what a statement leaves unsaid. On
// kandra.Cassandra5Latest alone (a node with the settings of
// cassandra_latest.yaml: default_secondary_index sai and a default
// compaction of its own) a CREATE INDEX without USING makes a
// storage-attached index, and a table created without compaction gets
// the yaml's UnifiedCompactionStrategy with its settings, as such a
// node stores them. Any other targets read as ParseSchemaFile.
// ImportFile reads with ImportOptions.Targets.
func ParseSchemaFileFor(src []byte, keyspace string, targets kandra.Target) (*SchemaFile, error) {
	toks, lerr := cqlLex(src)
	if lerr != nil {
		return nil, &kerrors.MigrationError{Message: "ParseSchemaFile: line " + itoa(lerr.line) + ": " + lerr.problem + "; fix the file"}
	}
	stmts := splitStatements(src, toks)
	fp := &fileParser{kss: map[string]*fileKeyspace{}, latest: targets == kandra.Cassandra5Latest}
	created := createdKeyspaces(stmts)
	switch {
	case keyspace != "":
		fp.cur = keyspace
	case len(created) == 1:
		fp.cur = created[0]
	case len(created) == 0:
		fp.why = "the file creates no keyspace"
	default:
		fp.why = "the file creates several keyspaces (" + strings.Join(created, ", ") + ")"
	}
	if keyspace != "" {
		fp.ks(keyspace)
	}
	for _, st := range stmts {
		if err := fp.run(st); err != nil {
			return nil, err
		}
	}
	names := slices.Sorted(maps.Keys(fp.kss))
	name := keyspace
	if name == "" {
		switch len(names) {
		case 0:
			return nil, &kerrors.MigrationError{Message: "ParseSchemaFile: the file names no keyspace (it holds no schema statement); name the keyspace its statements are applied to"}
		case 1:
			name = names[0]
		default:
			return nil, &kerrors.MigrationError{Message: "ParseSchemaFile: the file names the keyspaces " + strings.Join(names, ", ") + "; name the one to import"}
		}
	}
	k := fp.kss[name]
	if others := len(names) - 1; others > 0 && !k.created && !k.dropped && len(k.tables)+len(k.types)+len(k.unexp)+len(k.funcs)+len(k.aggs) == 0 {
		// The name asked for is none the file uses: a typo, or the
		// wrong file.
		return nil, &kerrors.MigrationError{Message: "ParseSchemaFile: the file holds nothing of keyspace " + strconv.Quote(name) +
			" (it names " + strings.Join(slices.DeleteFunc(names, func(n string) bool { return n == name }), ", ") + "); name one of those (names are as stored: unquoted ones are lower case)"}
	}
	out := &SchemaFile{Keyspaces: names}
	if k.dropped {
		out.Live = &Live{}
		return out, nil
	}
	if !k.created {
		k.repl = map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "1"}
		out.Notes = append(out.Notes, "the file does not create keyspace "+name+": its replication is taken as SimpleStrategy with 1 replica; edit the generated Replication, or add the keyspace's CREATE KEYSPACE to the file")
	}
	if others := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == name }); len(others) > 0 {
		out.Notes = append(out.Notes, "the file also names the keyspaces "+strings.Join(others, ", ")+", whose statements are left out")
	}
	live, err := liveFromRows(name, k.rows())
	if err != nil {
		return nil, &kerrors.MigrationError{Message: "ParseSchemaFile: the schema read from the file does not model (a bug in kandra's migrate; please report it with the file)", Cause: err}
	}
	live.Keyspace.Tablets = k.tablets
	out.Live = live
	out.Unexpressed = append(out.Unexpressed, k.unexp...)
	out.Unexpressed = append(out.Unexpressed, fp.general...)
	return out, nil
}

// ImportFile reads the keyspace named keyspace from the .cql schema file
// src (ParseSchemaFile) and generates its entities (GenerateEntities),
// with what the file holds and the Live cannot among
// Imported.Unexpressed and the reading's choices among Imported.Notes.
// The server is unknown: opts.Targets say which servers the model
// targets (0 leaves the spec's Targets unset, every target, with a note).
// A file ParseSchemaFile cannot read is an error naming the statement and
// its line, as is one that drops the keyspace.
func ImportFile(src []byte, keyspace string, opts ImportOptions) (*Imported, error) {
	sf, err := ParseSchemaFileFor(src, keyspace, opts.Targets)
	if err != nil {
		return nil, err
	}
	if sf.Live.Keyspace == nil {
		return nil, &kerrors.MigrationError{Message: "ImportFile: the file drops keyspace " + strconv.Quote(keyspace) + " and does not create it again, so there is nothing to import"}
	}
	beyond := slices.Clone(sf.Unexpressed)
	for _, n := range sf.Notes {
		beyond = append(beyond, "note: "+n)
	}
	return generate(sf.Live, opts, beyond)
}

// createdKeyspaces are the names of the keyspaces the statements create,
// sorted and once each: the keyspace of unqualified names when the caller
// names none and the file creates one.
func createdKeyspaces(stmts []statement) []string {
	var out []string
	for _, st := range stmts {
		p := &stmtParser{toks: st.toks}
		if !p.accept("CREATE") || !p.accept("KEYSPACE") && !p.accept("SCHEMA") {
			continue
		}
		p.ifNotExists()
		if t := p.next(); t.kind == tWord {
			out = append(out, strings.ToLower(t.text))
		} else if t.kind == tQuoted {
			out = append(out, t.text)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// statementKinds name the statements a schema file may hold that are no
// schema kandra models, with why and the way out.
var statementKinds = []struct {
	words []string
	why   string
}{
	{[]string{"INSERT", "UPDATE", "DELETE", "BEGIN", "APPLY", "TRUNCATE", "SELECT"}, "a data statement, which is no schema: the generated code holds no rows; keep it in a script of its own"},
	{[]string{"GRANT", "REVOKE", "LIST"}, "a role or permission statement, which kandra does not declare; keep it in a script of its own"},
	{[]string{"CONSISTENCY", "SERIAL", "SOURCE", "COPY", "CAPTURE", "TRACING", "PAGING", "EXPAND", "DESCRIBE", "DESC", "SHOW", "CLEAR", "CLS", "EXIT", "QUIT", "LOGIN"}, "a cqlsh command, which is no statement a server runs"},
}

// run runs one statement: it changes the keyspaces, is listed, is left
// out (a refusal), or is an error (a syntax error, an ALTER).
func (fp *fileParser) run(st statement) (err error) {
	p := &stmtParser{fp: fp, st: st, toks: st.toks}
	where := "line " + itoa(st.line) + " (" + st.text + ")"
	defer func() {
		switch r := recover().(type) {
		case nil:
		case syntaxError:
			err = &kerrors.MigrationError{Message: "ParseSchemaFile: " + where + ": " + r.problem}
		case refusal:
			entry := where + " is left out, as a server refuses it: " + r.why
			if r.ks != nil {
				r.ks.unexp = append(r.ks.unexp, entry)
			} else {
				fp.general = append(fp.general, entry)
			}
		default:
			panic(r)
		}
	}()
	first := p.next()
	if first.kind != tWord {
		p.syntaxAt(first, "a statement (CREATE, DROP, USE ...)")
	}
	listed := func(why string) { fp.general = append(fp.general, where+": "+why) }
	auth := statementKinds[1].why
	switch {
	case first.is("CREATE"):
		switch {
		case p.accept("KEYSPACE"), p.accept("SCHEMA"):
			p.createKeyspace()
		case p.accept("TYPE"):
			p.createType()
		case p.accept("TABLE"), p.accept("COLUMNFAMILY"):
			p.createTable()
		case p.accept("INDEX"):
			p.createIndex(false)
		case p.accept("CUSTOM", "INDEX"):
			p.createIndex(true)
		case p.accept("MATERIALIZED", "VIEW"):
			p.createView()
		case p.accept("TRIGGER"):
			p.createTrigger()
		case p.accept("FUNCTION"):
			p.createFunction(false)
		case p.accept("OR", "REPLACE", "FUNCTION"):
			p.createFunction(true)
		case p.accept("AGGREGATE"):
			p.createAggregate(false)
		case p.accept("OR", "REPLACE", "AGGREGATE"):
			p.createAggregate(true)
		case p.accept("ROLE"), p.accept("USER"):
			listed(auth)
		default:
			p.syntaxAt(p.peek(), "what CREATE creates (KEYSPACE, TYPE, TABLE, INDEX, ...)")
		}
	case first.is("USE"):
		name := p.ident("the keyspace's name")
		p.end()
		fp.cur = name
		fp.ks(name)
	case first.is("DROP"):
		if p.accept("ROLE") || p.accept("USER") {
			listed(auth)
			return nil
		}
		p.drop()
	case first.is("ALTER"):
		if p.accept("ROLE") || p.accept("USER") {
			listed(auth)
			return nil
		}
		p.syntax("ParseSchemaFile reads the schema CREATE statements make and applies no ALTER: fold the change into the CREATE statement, or apply the file to a node and import from it (migrate.Import; schema import without --file)")
	default:
		for _, k := range statementKinds {
			for _, w := range k.words {
				if first.is(w) {
					listed(k.why)
					return nil
				}
			}
		}
		p.syntaxAt(first, "a statement ParseSchemaFile reads (CREATE, DROP, USE, or a data, role or cqlsh statement it lists)")
	}
	return nil
}

// rows are the system_schema rows of the keyspace, as a node's read
// gives them to liveFromRows.
func (k *fileKeyspace) rows() *schemaRows {
	r := &schemaRows{Keyspaces: []map[string]any{{"keyspace_name": k.name, "replication": maps.Clone(k.repl), "durable_writes": k.durable}}}
	row := func(m map[string]any) map[string]any {
		m["keyspace_name"] = k.name
		return m
	}
	for _, name := range slices.Sorted(maps.Keys(k.tables)) {
		t := k.tables[name]
		tr := maps.Clone(t.row)
		tr["table_name"] = name
		r.Tables = append(r.Tables, row(tr))
		for _, c := range t.cols {
			r.Columns = append(r.Columns, row(map[string]any{"table_name": name, "column_name": c.name, "kind": string(c.kind),
				"position": c.pos, "clustering_order": c.order, "type": c.typ.raw(false)}))
			if c.mask != nil {
				r.ColumnMasks = append(r.ColumnMasks, row(maps.Clone(c.mask)))
			}
		}
		for _, ix := range t.indexes {
			r.Indexes = append(r.Indexes, row(map[string]any{"table_name": name, "index_name": ix.name, "kind": ix.kind, "options": maps.Clone(ix.options)}))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(k.types)) {
		u := k.types[name]
		types := make([]string, len(u.types))
		for i, t := range u.types {
			types[i] = t.raw(false)
		}
		r.Types = append(r.Types, row(map[string]any{"type_name": name, "field_names": slices.Clone(u.fields), "field_types": types}))
	}
	for _, f := range k.funcs {
		r.Functions = append(r.Functions, row(map[string]any{"function_name": f.name, "argument_types": slices.Clone(f.args), "return_type": f.ret}))
	}
	for _, f := range k.aggs {
		r.Aggregates = append(r.Aggregates, row(map[string]any{"aggregate_name": f.name, "argument_types": slices.Clone(f.args), "return_type": f.ret}))
	}
	for _, name := range slices.Sorted(maps.Keys(k.views)) {
		r.Views = append(r.Views, row(map[string]any{"view_name": name, "base_table_name": k.views[name]}))
	}
	for _, key := range slices.SortedFunc(maps.Keys(k.trigs), func(a, b [2]string) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) }) {
		r.Triggers = append(r.Triggers, row(map[string]any{"table_name": key[0], "trigger_name": key[1]}))
	}
	return r
}

// String summarises the file's reading for a log: the keyspace, its
// tables and types, and how many entries are unexpressed.
func (sf *SchemaFile) String() string {
	if sf == nil || sf.Live == nil || sf.Live.Keyspace == nil {
		return "no keyspace"
	}
	ks := sf.Live.Keyspace
	return fmt.Sprintf("keyspace %s: %d tables, %d types, %d unexpressed", ks.Name, len(ks.Tables), len(ks.Types), len(sf.Unexpressed))
}
