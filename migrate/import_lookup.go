package migrate

// The live tables GenerateEntities takes as kandra lookup tables of
// other live tables, and the indexes it declares.

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kandra-go/kandra"
)

// findLookups finds the tables shaped as kandra shapes a lookup table of
// another of tables (lookupShape). A table that is itself taken as a
// lookup table is no primary table; a table shaped as the lookup of two
// tables is taken as the one of the longest name (users_by_x of users
// rather than of users_by), said in a note; one whose lookup kandra's
// rules refuse stays a table, said in a note.
func (g *gen) findLookups(tables []*LiveTable) []*lookupMatch {
	cands := map[string][]*lookupMatch{}
	for _, l := range tables {
		for _, p := range tables {
			if p == l || !strings.HasPrefix(l.Name, p.Name+"_") || len(l.Name) == len(p.Name)+1 {
				continue
			}
			if m := lookupShape(l, p); m != nil {
				cands[l.Name] = append(cands[l.Name], m)
			}
		}
	}
	var out []*lookupMatch
	for _, l := range tables {
		ms := slices.DeleteFunc(cands[l.Name], func(m *lookupMatch) bool { return len(cands[m.primary.Name]) > 0 })
		if len(ms) == 0 {
			continue
		}
		slices.SortFunc(ms, func(a, b *lookupMatch) int { return len(b.primary.Name) - len(a.primary.Name) })
		m := ms[0]
		if len(ms) > 1 {
			var others []string
			for _, o := range ms[1:] {
				others = append(others, "the lookup "+o.suffix+" of "+o.primary.Name)
			}
			g.note("table " + l.Name + " is shaped as " + strings.Join(others, " and ") + " too; it is taken as the lookup of the table of the longest name")
		}
		if why := g.lookupRefused(m); why != "" {
			g.note("table " + l.Name + " is shaped as the lookup " + m.suffix + " of " + m.primary.Name + "." + m.column + ", which kandra refuses (" + why + "): it is imported as a table of its own")
			continue
		}
		out = append(out, m)
	}
	return out
}

// lookupShape reports l as a lookup table of p when its shape is the one
// kandra gives one (ddl.go's createLookupTable, the planner's diffLookup):
// keyed by one column of p alone, frozen where freezable, then either the
// claim column and p's other key columns as regular columns (a unique
// lookup), or p's other key columns, in key order, as ascending clustering
// columns (a non-unique one), and nothing else: no default TTL, no index.
func lookupShape(l, p *LiveTable) *lookupMatch {
	if legacyTable(l) != "" || legacyTable(p) != "" || l.DefaultTTL != 0 || len(l.Indexes) > 0 {
		return nil
	}
	pks := keyColumns(l, ColumnPartitionKey)
	if len(pks) != 1 {
		return nil
	}
	ix := pks[0]
	pc := p.Column(ix.Name)
	if pc == nil || ix.Type.IsZero() || !sameType(ix.Type, pc.Type) || freezable(ix.Type) && !outerFrozen(ix.RawType) {
		return nil
	}
	var carried []*LiveColumn
	for _, c := range append(keyColumns(p, ColumnPartitionKey), keyColumns(p, ColumnClustering)...) {
		if c.Name != ix.Name {
			carried = append(carried, c)
		}
	}
	same := func(lc, pc *LiveColumn) bool {
		return lc != nil && !lc.Type.IsZero() && sameType(lc.Type, pc.Type) && (!freezable(lc.Type) || outerFrozen(lc.RawType))
	}
	claim := l.Column(kandra.ClaimColumn)
	clustering := keyColumns(l, ColumnClustering)
	m := &lookupMatch{table: l, primary: p, column: ix.Name, suffix: l.Name[len(p.Name)+1:], unique: claim != nil}
	if claim != nil {
		if len(clustering) > 0 || claim.Kind != ColumnRegular || claim.Type.Kind() != kandra.KindNative || claim.Type.Name() != "BIGINT" || len(l.Columns) != len(carried)+2 {
			return nil
		}
		for _, c := range carried {
			if lc := l.Column(c.Name); !same(lc, c) || lc.Kind != ColumnRegular {
				return nil
			}
		}
		return m
	}
	if len(clustering) != len(carried) || len(l.Columns) != len(carried)+1 {
		return nil
	}
	for i, c := range carried {
		if lc := clustering[i]; lc.Name != c.Name || !same(lc, c) || lc.Order != "asc" {
			return nil
		}
	}
	return m
}

// lookupRefused says which kandra rule refuses lookup m, or "".
func (g *gen) lookupRefused(m *lookupMatch) string {
	pc := m.primary.Column(m.column)
	switch {
	case isCounterLive(m.primary):
		return "a counter table has no lookup tables"
	case pc.Kind == ColumnStatic:
		return "a static column has no lookup table"
	case pc.Kind == ColumnPartitionKey && len(keyColumns(m.primary, ColumnPartitionKey)) == 1:
		return "a lookup by the only partition-key column is a read of its partition"
	case pc.Type.Kind() == kandra.KindVector:
		return "a vector is no lookup key"
	case m.unique && g.targets&kandra.Scylla2025Tablets != 0:
		return "a unique lookup claims values with lightweight transactions, which ScyllaDB 2025.x refuses in a tablets keyspace"
	}
	return ""
}

// attachLookup gives m's column the kandra.Lookup option, or imports m's
// table as a table of its own when its primary table or column is not in
// the model.
func (g *gen) attachLookup(m *lookupMatch) {
	e := g.byTable[m.primary.Name]
	var f *goField
	if e != nil {
		f = e.byColumn[m.column]
	}
	if f == nil {
		g.note("table " + m.table.Name + " is shaped as the lookup " + m.suffix + " of " + m.primary.Name + "." + m.column + ", which the model cannot have (the table or the column is not imported): it is imported as a table of its own")
		g.table(m.table)
		return
	}
	kind := "kandra.LookupBatch"
	how := "(BATCH: the schema cannot tell BATCH from EVENTUAL, which differ in how the application writes it; make it kandra.LookupEventual if it writes the lookup rows after the row)"
	if m.unique {
		kind, how = "kandra.LookupUnique", "(UNIQUE: one holder per value, claimed in its kandra_claim column)"
	}
	f.lookup = true
	f.opts = append(f.opts, "kandra.Lookup("+strconv.Quote(m.suffix)+", "+kind+")")
	g.note("table " + m.table.Name + " taken as the lookup " + m.suffix + " of " + m.primary.Name + " " + how + ", on field " + e.goName + "." + f.name)
}

// indexes gives e's fields the live indexes of its table.
func (g *gen) indexes(e *entity) {
	ixs := slices.Clone(e.table.Indexes)
	slices.SortFunc(ixs, func(a, b *LiveIndex) int { return strings.Compare(a.Name, b.Name) })
	for _, ix := range ixs {
		g.index(e, ix)
	}
}

// similarities are the Go names of the ANN similarity functions.
var similarities = map[string]string{"COSINE": "kandra.SimilarityCosine", "EUCLIDEAN": "kandra.SimilarityEuclidean", "DOT_PRODUCT": "kandra.SimilarityDotProduct"}

// index declares the live index ix on its column's field, or lists why
// it cannot.
func (g *gen) index(e *entity, ix *LiveIndex) {
	t := e.table
	target := strings.TrimSpace(ix.Options["target"])
	col := indexTarget(target)
	what := "index " + ix.Name + " on " + t.Name + "." + col
	f := e.byColumn[col]
	switch {
	case f == nil && t.Column(col) == nil:
		g.unexpressed("index " + ix.Name + " on " + t.Name + ": its target " + strconv.Quote(target) + " names no column kandra can read (a ScyllaDB local index, or an index on an expression); keep it by hand")
		return
	case f == nil:
		g.unexpressed(what + ": the model leaves its column out (see the column's entry); keep the index by hand")
		return
	case f.indexed:
		g.unexpressed(what + ": kandra gives a column one index, and the model has the column's other index; keep this one by hand, or drop one (DROP INDEX)")
		return
	}
	fn := ""
	if i := strings.IndexByte(target, '('); i > 0 && !strings.HasPrefix(target, `"`) && strings.HasSuffix(target, ")") {
		fn = strings.ToLower(strings.TrimSpace(target[:i]))
	}
	kind := "legacy"
	if ix.Kind == "CUSTOM" {
		class := ix.Options["class_name"]
		if short := class[strings.LastIndexByte(class, '.')+1:]; short != "sai" && short != "StorageAttachedIndex" {
			g.unexpressed(what + ": a custom index of class " + strconv.Quote(class) + ", which kandra cannot declare (it makes SAI and legacy indexes); keep it by hand")
			return
		}
		kind = "sai"
	}
	known := map[string]bool{"target": true, "class_name": true}
	var opts []string
	name := func() {
		if ix.Name != derivedIndexName(t.Name, col) {
			opts = append(opts, "kandra.IndexNamed("+strconv.Quote(ix.Name)+")")
		}
	}
	sim, hasSim := ix.Options["similarity_function"]
	c := f.col
	if c.Type.Kind() == kandra.KindVector {
		expr := similarities[strings.ToUpper(strings.TrimSpace(sim))]
		switch {
		case kind != "sai" || !hasSim || expr == "":
			g.unexpressed(what + ": an index on a vector that is not SAI with a similarity_function (COSINE, EUCLIDEAN or DOT_PRODUCT), and kandra's VectorIndex always states one; recreate it WITH OPTIONS = {'similarity_function': 'COSINE'} and import again")
			return
		case g.targets&scyllaTargets != 0 || g.targets == 0:
			g.unexpressed(what + ": kandra declares no ANN index for a ScyllaDB target (RuleVectorTarget); keep it by hand, or import for Cassandra targets (ImportOptions.Targets)")
			return
		}
		known["similarity_function"] = true
		opts = append(opts, expr)
		name()
		g.extraIndexOptions(what, ix, known)
		f.indexed = true
		f.opts = append(f.opts, "kandra.VectorIndex("+strings.Join(opts, ", ")+")")
		return
	}
	if hasSim {
		g.unexpressed(what + ": a similarity_function on a column that is not a vector, which kandra cannot declare; keep it by hand")
		return
	}
	// A collection in a key, or frozen by its declaration, is indexed
	// whole.
	frozen := c.Kind == ColumnPartitionKey || c.Kind == ColumnClustering || outerFrozen(c.RawType)
	natural := ""
	if c.Type.IsCollection() {
		natural = map[bool]string{false: "values", true: "full"}[frozen]
	}
	if fn == "" {
		fn = natural
	}
	if fn != natural {
		opt := map[string]string{"values": "kandra.IndexValues()", "keys": "kandra.IndexKeys()", "entries": "kandra.IndexEntries()", "full": "kandra.IndexFull()"}[fn]
		if opt == "" {
			g.unexpressed(what + ": its target " + strconv.Quote(target) + " is none kandra declares (the column, or its values, keys, entries or whole value)")
			return
		}
		opts = append(opts, opt)
	}
	cassandraOnly := g.allTargets(kandra.Cassandra5 | kandra.Cassandra5Latest)
	var analysis []string
	for _, a := range []struct{ key, off, on, expr string }{
		{"case_sensitive", "true", "false", "kandra.SAICaseInsensitive()"},
		{"normalize", "false", "true", "kandra.SAINormalize()"},
		{"ascii", "false", "true", "kandra.SAIASCII()"},
	} {
		v, ok := ix.Options[a.key]
		if !ok {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(v)) {
		case a.off:
			known[a.key] = true
		case a.on:
			known[a.key] = true
			analysis = append(analysis, a.expr)
		}
	}
	switch {
	case kind == "sai" && cassandraOnly:
		opts = append([]string{"kandra.UsingSAI()"}, opts...)
		opts = append(opts, analysis...)
	case len(analysis) > 0:
		g.unexpressed(what + ": an SAI index with text analysis, which kandra declares only with kandra.UsingSAI, for Cassandra targets alone; import for Cassandra targets (ImportOptions.Targets)")
		return
	case kind == "legacy" && cassandraOnly:
		opts = append([]string{"kandra.UsingLegacy()"}, opts...)
	}
	name()
	g.extraIndexOptions(what, ix, known)
	f.indexed = true
	f.opts = append(f.opts, "kandra.SecondaryIndex("+strings.Join(opts, ", ")+")")
}

// extraIndexOptions lists the options of ix kandra has no option for:
// the index is declared without them.
func (g *gen) extraIndexOptions(what string, ix *LiveIndex, known map[string]bool) {
	for _, k := range sortedKeys(ix.Options) {
		if !known[k] {
			g.unexpressed(what + ": its option " + k + " = " + strconv.Quote(ix.Options[k]) + " has no kandra form: the model declares the index without it, and an index created from the model lacks it")
		}
	}
}

// derivedIndexName is the name kandra gives an index on column of table
// without kandra.IndexNamed (ColumnSchema.indexName): "{table}_{column}_idx",
// or, for a column name not all ASCII letters, digits and _, its other
// characters as _ and an FNV-32a hash of the name.
func derivedIndexName(table, column string) string {
	plain := column != ""
	var b strings.Builder
	for _, r := range column {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
			plain = false
		}
	}
	if plain {
		return table + "_" + column + "_idx"
	}
	h := uint32(2166136261)
	for i := 0; i < len(column); i++ {
		h ^= uint32(column[i])
		h *= 16777619
	}
	return table + "_" + b.String() + "_" + strconv.FormatUint(uint64(h)|1<<32, 16)[1:] + "_idx"
}
