package migrate

// Writing out what the generator decided (import_gen.go) as one Go file.

import (
	"go/format"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
)

// result renders the file and the Imported.
func (g *gen) result() (*Imported, error) {
	slices.SortFunc(g.entities, func(a, b *entity) int { return strings.Compare(a.table.Name, b.table.Name) })
	out := &Imported{Unexpressed: g.unexp, Notes: g.notes}
	for _, e := range g.entities {
		out.Entities = append(out.Entities, e.goName)
	}
	for _, name := range slices.Sorted(maps.Keys(g.udts)) {
		if u := g.udts[name]; u.used {
			out.Types = append(out.Types, u.goName)
		}
	}
	src := g.render()
	formatted, err := format.Source(src)
	if err != nil {
		return nil, &kerrors.MigrationError{Message: "GenerateEntities wrote Go that does not parse, a bug in kandra's migrate; please report it with the keyspace's schema (DESCRIBE KEYSPACE " + g.ks.Name + ")", Cause: err}
	}
	out.Source = formatted
	return out, nil
}

// render writes the file, before gofmt.
func (g *gen) render() []byte {
	var b strings.Builder
	w := func(parts ...string) {
		for _, p := range parts {
			b.WriteString(p)
		}
	}
	on := ""
	if g.live.Server.Product != "" {
		on = " on " + g.live.Server.String()
	}
	w(wrapComment("Package "+g.pkg+" is the kandra model of keyspace "+g.ks.Name+", imported from its live schema"+on+
		" by migrate.GenerateEntities: Keyspace builds it, and planned against the keyspace it came from (migrate.PlanFor) it plans no step."+
		" From now on it is the keyspace's model: edit it, and let the migrator bring the keyspace to it.", "// ", "// "))
	list := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		w("//\n", wrapComment(title, "// ", "// "), "//\n")
		for _, it := range items {
			w(wrapComment(it, "//   - ", "//     "))
		}
	}
	list("Not expressed here (the keyspace keeps them; a plan lists the tables and columns among its extras):", g.unexp)
	list("Notes:", g.notes)
	w("package ", g.pkg, "\n\n")
	g.renderImports(w)
	g.renderKeyspace(w)
	for _, e := range g.entities {
		g.renderEntity(w, e)
	}
	for _, name := range slices.Sorted(maps.Keys(g.udts)) {
		if u := g.udts[name]; u.used {
			g.renderUDT(w, u)
		}
	}
	for _, kind := range slices.Sorted(maps.Keys(g.helpers)) {
		h := g.helpers[kind]
		w(wrapComment(h.goName+" "+h.doc, "// ", "// "),
			"type ", h.goName, " ", h.underlying, "\n\n")
		if h.cql == "" {
			continue
		}
		w(
			"// CQLType gives ", h.goName, " the CQL type ", strings.ToLower(strings.TrimPrefix(h.cql, "kandra.CQL")), ".\n",
			"func (", h.goName, ") CQLType() kandra.CQLType { return ", h.cql, " }\n\n")
	}
	return []byte(b.String())
}

func (g *gen) renderImports(w func(...string)) {
	if len(g.entities) > 0 {
		g.use("errors")
	}
	var std, other []string
	for _, p := range slices.Sorted(maps.Keys(g.imports)) {
		if strings.Contains(p, ".") {
			other = append(other, p)
		} else {
			std = append(std, p)
		}
	}
	other = append(other, "github.com/kandra-go/kandra")
	slices.Sort(other)
	w("import (\n")
	for _, p := range std {
		w("\t", strconv.Quote(p), "\n")
	}
	if len(std) > 0 {
		w("\n")
	}
	for _, p := range slices.Compact(other) {
		w("\t", strconv.Quote(p), "\n")
	}
	w(")\n\n")
}

// targetExpr is the Go expression of the targets t.
func targetExpr(t kandra.Target) string {
	names := []struct {
		t    kandra.Target
		name string
	}{
		{kandra.Cassandra5, "Cassandra5"}, {kandra.Cassandra5Latest, "Cassandra5Latest"},
		{kandra.Scylla2025, "Scylla2025"}, {kandra.Scylla2025Tablets, "Scylla2025Tablets"},
		{kandra.Scylla2026, "Scylla2026"}, {kandra.Scylla2026Tablets, "Scylla2026Tablets"},
	}
	if t == kandra.AllTargets {
		return "kandra.AllTargets"
	}
	var parts []string
	for _, n := range names {
		if t&n.t != 0 {
			parts = append(parts, "kandra."+n.name)
		}
	}
	if rest := t &^ kandra.AllTargets; rest != 0 {
		parts = append(parts, "kandra.Target("+strconv.FormatUint(uint64(rest), 10)+")")
	}
	return strings.Join(parts, " | ")
}

func (g *gen) renderKeyspace(w func(...string)) {
	repl, _, _ := g.replication() // checked by checkKeyspace
	w(wrapComment("Keyspace registers the entities of this file into keyspace "+g.ks.Name+", replicated as the live keyspace is.", "// ", "// "),
		"func Keyspace() (*kandra.Keyspace, error) {\n",
		"\tspec := kandra.KeyspaceSpec{\n",
		"\t\tName: ", strconv.Quote(g.ks.Name), ",\n",
		"\t\tReplication: ", repl, ",\n")
	if g.targets != 0 {
		w("\t\tTargets: ", targetExpr(g.targets), ",\n")
	}
	w("\t}\n")
	if len(g.entities) == 0 {
		w("\treturn kandra.NewKeyspace(spec)\n}\n\n")
		return
	}
	w("\tvar tables []kandra.SchemaSource\n",
		"\tvar errs []error\n",
		"\tadd := func(t kandra.SchemaSource, err error) {\n",
		"\t\tif err != nil {\n\t\t\terrs = append(errs, err)\n\t\t\treturn\n\t\t}\n",
		"\t\ttables = append(tables, t)\n\t}\n")
	for _, e := range g.entities {
		w("\tadd(kandra.Register[", e.goName, "]())\n")
	}
	w("\tif err := errors.Join(errs...); err != nil {\n\t\treturn nil, err\n\t}\n",
		"\treturn kandra.NewKeyspace(spec, tables...)\n}\n\n")
}

func (g *gen) renderEntity(w func(...string), e *entity) {
	t := e.table.Name
	w("// ", e.goName, " is a row of table ", t, ".\n",
		"type ", e.goName, " struct {\n")
	for _, f := range e.fields {
		w("\t", f.name, " ", f.typ, "\n")
	}
	w("}\n\n",
		"// Describe binds ", e.goName, " to table ", t, ".\n",
		"func (e *", e.goName, ") Describe(s *kandra.Schema[", e.goName, "]) {\n")
	switch opts := e.tableOpts; {
	case len(opts) == 0:
		w("\ts.Table(", strconv.Quote(t), ")\n")
	case len(opts) == 1:
		w("\ts.Table(", strconv.Quote(t), ", ", opts[0], ")\n")
	default:
		w("\ts.Table(", strconv.Quote(t), ",\n")
		for _, o := range opts {
			w("\t\t", o, ",\n")
		}
		w("\t)\n")
	}
	for _, f := range e.fields {
		binder := "Bind"
		if f.counter {
			binder = "Counter"
		} else if len(f.opts) == 0 {
			continue
		}
		w("\tkandra.", binder, "(s, &e.", f.name)
		for _, o := range f.opts {
			w(", ", o)
		}
		w(")\n")
	}
	w("}\n\n")
}

func (g *gen) renderUDT(w func(...string), u *udtStruct) {
	name := u.lt.Name
	w("// ", u.goName, " is the user-defined type ", name, ".\n",
		"type ", u.goName, " struct {\n")
	for _, f := range u.fields {
		w("\t", f.name, " ", f.typ)
		if f.tag != "" {
			if strings.Contains(f.tag, "`") {
				w(" ", strconv.Quote(f.tag))
			} else {
				w(" `", f.tag, "`")
			}
		}
		w("\n")
	}
	w("}\n\n")
	if kandra.SnakeCase(u.goName) != name {
		w("// UDTName names the type ", u.goName, " stands for.\n",
			"func (", u.goName, ") UDTName() string { return ", strconv.Quote(name), " }\n\n")
	}
}

// commentWidth is the width generated comments are wrapped at.
const commentWidth = 76

// wrapComment writes text as comment lines of at most commentWidth
// characters where its words allow, the first line after first, the
// others after rest.
func wrapComment(text, first, rest string) string {
	var b strings.Builder
	line := first
	empty := true
	for _, word := range strings.Fields(text) {
		if !empty && len(line)+1+len(word) > commentWidth {
			b.WriteString(line + "\n")
			line, empty = rest, true
		}
		if !empty {
			line += " "
		}
		line += word
		empty = false
	}
	b.WriteString(line + "\n")
	return b.String()
}
