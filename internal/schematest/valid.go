package schematest

import (
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/dynamic"
)

// Valid drafts: every entity rule accepts them, and so does name-taken in a
// keyspace of their own.

type gen struct {
	t       *rapid.T
	d       *draft
	goNames map[string]bool
	snakes  map[string]bool
	budget  int // top-level fields still allowed (at most 12 in all)
	// room is the table-name length every composed name leaves room for:
	// 16, or the table name's length when it is longer (Model.Room).
	room int
	// blobIndex: an index on a column holding a BLOB, which
	// Cassandra5Latest refuses; no name may then pass 192 characters, so
	// that ScyllaDB 2026.x still accepts the table.
	blobIndex bool
}

// fits reports whether a name composed from the table name and rest
// ("_" + suffix, say) stays within limit with a table name of g.room
// characters.
func (g *gen) fits(rest string, limit int) bool { return g.room+len(rest) <= limit }

// indexFits reports whether the index name of column col stays within
// limit with a table name of g.room characters.
func (g *gen) indexFits(col string, limit int) bool {
	return len(IndexName(strings.Repeat("t", g.room), col)) <= limit
}

// percent draws 0..99 uniformly: rapid's integers lean towards small
// values, which would make every "chance" much likelier than it says.
var percent = rapid.Custom(func(t *rapid.T) int {
	v := 0
	for i := 0; i < 7; i++ {
		v <<= 1
		if rapid.Bool().Draw(t, "bit") {
			v |= 1
		}
	}
	return v * 100 / 128
})

// chance is true with probability pct%; it shrinks towards false.
func chance(t *rapid.T, pct int, label string) bool {
	return percent.Draw(t, label) >= 100-pct
}

func (g *gen) feature(s string) { g.d.features = append(g.d.features, s) }

// addField adds an exported field of type typ with fresh Go and column
// names and returns its index.
func (g *gen) addField(typ reflect.Type) int {
	var name, snake string
	for i := 0; ; i++ {
		if i < 20 {
			name, snake = drawGoName(g.t)
		} else {
			// Fall back to a numbered name; snake case keeps the digits
			// with the word before them.
			n := strconv.Itoa(len(g.goNames) + i)
			name, snake = "Field"+n, "field"+n
		}
		if !g.goNames[name] && !g.snakes[snake] {
			break
		}
	}
	g.goNames[name], g.snakes[snake] = true, true
	g.d.fields = append(g.d.fields, field{name: name, typ: typ, snake: snake, exported: true})
	g.budget--
	return len(g.d.fields) - 1
}

func (g *gen) addUnexported(typ reflect.Type) int {
	name := "hidden" + strconv.Itoa(len(g.d.fields))
	g.goNames[name] = true
	g.d.fields = append(g.d.fields, field{name: name, typ: typ})
	g.budget--
	return len(g.d.fields) - 1
}

func (g *gen) addEmbedded() int {
	for i, f := range g.d.fields {
		if f.embedded {
			return i
		}
	}
	g.d.fields = append(g.d.fields, field{name: "Audit", typ: tAudit, embedded: true, exported: true})
	g.goNames["Audit"] = true
	g.budget--
	return len(g.d.fields) - 1
}

func typeFeature(typ reflect.Type) string {
	c := CQLOf(typ)
	switch {
	case typ.Kind() == reflect.Pointer && typ != tBigInt:
		return "go:*" + typ.Elem().String()
	case c != nil && c.Kind == UDT:
		return "go:udt"
	case c != nil && c.Kind == Vector:
		return "go:vector"
	case c != nil && c.Kind != Native:
		k := map[CQLKind]string{List: "list", Set: "set", Map: "map"}[c.Kind]
		if c.Elem.IsCollection() || (c.Kind == Map && c.Key.IsCollection()) {
			return "go:nested " + k
		}
		return "go:" + k
	}
	return "go:" + typ.String()
}

// newValid draws a valid draft. counter forces (1) or forbids (0) a
// counter table; -1 lets the draw decide.
func newValid(t *rapid.T, counter int) *gen {
	g := &gen{t: t, d: &draft{marker: -1}, goNames: map[string]bool{"Audit": true}, snakes: map[string]bool{"audit_note": true, "audit_rev": true}, budget: 12}
	d := g.d
	d.table = drawTable(t)
	g.room = max(maxTable, len(d.table))
	switch n := len(d.table); {
	case n > 192:
		g.feature("table name over 192")
	case n > cassandraTableAndKeyspace-len(KeyspaceName):
		g.feature("table name over " + strconv.Itoa(cassandraTableAndKeyspace-len(KeyspaceName)))
	case n > 48:
		g.feature("table name over 48")
	}
	isCounter := counter == 1 || (counter < 0 && chance(t, 15, "counter table"))
	if isCounter {
		g.feature("counter table")
	}
	nPK := rapid.IntRange(1, 3).Draw(t, "partition keys")
	nCK := rapid.IntRange(0, 3).Draw(t, "clustering keys")
	pkIdx := rapid.Permutation([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}).Draw(t, "partition indexes")
	ckIdx := rapid.Permutation([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}).Draw(t, "clustering indexes")
	g.feature("partition keys: " + strconv.Itoa(nPK))
	g.feature("clustering keys: " + strconv.Itoa(nCK))
	haveCreated := false

	keyField := func(label string) int {
		var i int
		switch k := percent.Draw(t, label+" special") / 5; {
		case k == 0:
			i = g.addField(tDuration)
			d.fields[i].add(fieldOpt{kind: oAsType, as: nat("TIME")})
			g.feature("AsType TIME on a key duration")
		case k == 1:
			i = g.addField(tTime)
			d.fields[i].add(fieldOpt{kind: oAsType, as: nat("DATE")})
			g.feature("AsType DATE")
		case k == 2:
			i = g.addField(tString)
			d.fields[i].add(fieldOpt{kind: oAsType, as: nat("ASCII")})
			g.feature("AsType ASCII")
		case k < 5:
			i = g.addField(tUUID)
			role := rapid.SampledFrom([]dynamic.Role{dynamic.UUIDTimeOrdered, dynamic.UUIDRandom}).Draw(t, "uuid strategy")
			d.fields[i].setRole(role)
			g.feature("GeneratedUUID on a key")
		case k == 5:
			// An override the table of allowed pairs lists for the key's
			// type (never a duration: key types hold none).
			i = g.addField(drawType(t, true, label))
			as := drawOverride(t, CQLOf(d.fields[i].typ), label+" override")
			d.fields[i].add(fieldOpt{kind: oAsType, as: as})
			g.feature("AsType on a key")
		default:
			i = g.addField(drawType(t, true, label))
		}
		g.feature("key " + typeFeature(d.fields[i].typ))
		return i
	}
	for k := 0; k < nPK; k++ {
		i := keyField("partition key")
		// The option first, so that AsType and roles come after it.
		d.fields[i].binds = append([]bind{{opts: []fieldOpt{{kind: oPK, index: pkIdx[k]}}}}, d.fields[i].binds...)
	}
	for k := 0; k < nCK; k++ {
		i := keyField("clustering key")
		order := kandra.ClusteringAsc
		if rapid.Bool().Draw(t, "desc") {
			order = kandra.ClusteringDesc
		}
		d.fields[i].binds = append([]bind{{opts: []fieldOpt{{kind: oCK, index: ckIdx[k], order: order}}}}, d.fields[i].binds...)
		if order == kandra.ClusteringDesc {
			g.feature("clustering DESC")
		} else {
			g.feature("clustering ASC")
		}
		if !isCounter && !haveCreated && d.fields[i].typ == tTime && len(d.fields[i].binds) == 1 && chance(t, 30, "created at on key") {
			d.fields[i].setRole(dynamic.CreatedAt)
			haveCreated = true
			g.feature("CreatedAt on a clustering key")
		}
	}
	if isCounter {
		n := rapid.IntRange(1, min(4, g.budget)).Draw(t, "counters")
		for k := 0; k < n; k++ {
			i := g.addField(tInt64)
			d.fields[i].setRole(dynamic.Counter)
		}
		g.feature("counter columns")
	} else {
		n := rapid.IntRange(0, min(6, g.budget)).Draw(t, "regular columns")
		for k := 0; k < n; k++ {
			typ := drawType(t, false, "regular")
			i := g.addField(typ)
			g.feature(typeFeature(typ))
			switch {
			case typ == tTime && chance(t, 15, "AsType DATE"):
				d.fields[i].add(fieldOpt{kind: oAsType, as: nat("DATE")})
				g.feature("AsType DATE")
			case typ == tDuration && chance(t, 30, "AsType TIME"):
				d.fields[i].add(fieldOpt{kind: oAsType, as: nat("TIME")})
				g.feature("AsType TIME")
			case typ == tString && chance(t, 15, "AsType VARCHAR"):
				d.fields[i].add(fieldOpt{kind: oAsType, as: nat("VARCHAR")})
				g.feature("AsType VARCHAR")
			case typ == reflect.TypeFor[[]time.Time]() && chance(t, 30, "AsType LIST<DATE>"):
				d.fields[i].add(fieldOpt{kind: oAsType, as: &CQL{Kind: List, Elem: nat("DATE")}})
				g.feature("AsType LIST<DATE>")
			case typ == tUUID && chance(t, 30, "generated uuid"):
				d.fields[i].setRole(rapid.SampledFrom([]dynamic.Role{dynamic.UUIDTimeOrdered, dynamic.UUIDRandom}).Draw(t, "uuid strategy"))
				g.feature("GeneratedUUID")
			case chance(t, 10, "AsType allowed pair"):
				as := drawOverride(t, CQLOf(typ), "override")
				d.fields[i].add(fieldOpt{kind: oAsType, as: as})
				if as.Render(false) != CQLOf(typ).Render(false) {
					g.feature("AsType to another allowed type")
				} else {
					g.feature("AsType of the derived type")
				}
			}
		}
		if g.budget > 0 && chance(t, 8, "opaque") {
			// A Go type kandra derives no CQL type for takes any AsType.
			i := g.addField(tOpaque)
			d.fields[i].add(fieldOpt{kind: oAsType, as: rapid.SampledFrom(opaqueTypes).Draw(t, "opaque type")})
			g.feature("AsType on a type without a mapping")
		}
		if !haveCreated && g.budget > 0 && chance(t, 25, "created at") {
			d.fields[g.addField(tTime)].setRole(dynamic.CreatedAt)
			g.feature("CreatedAt")
		}
		if g.budget > 0 && chance(t, 25, "updated at") {
			d.fields[g.addField(tTime)].setRole(dynamic.UpdatedAt)
			g.feature("UpdatedAt")
		}
		if g.budget > 0 && chance(t, 25, "version") {
			typ := rapid.SampledFrom([]reflect.Type{tInt64, tTime}).Draw(t, "version type")
			d.fields[g.addField(typ)].setRole(dynamic.Version)
			g.feature("Version " + typ.String())
		}
		if chance(t, 20, "soft delete") {
			d.softDelete = true
			d.softTTL = drawRange(t, 0, maxTTLSeconds, "soft delete ttl")
			g.feature("SoftDelete")
			if g.budget > 0 && chance(t, 70, "marker") {
				d.marker = g.addField(tBool)
				g.feature("SoftDelete marker")
			}
		}
		if g.budget > 0 && chance(t, 15, "embedded") {
			g.addEmbedded()
			g.feature("embedded struct")
		}
	}
	if g.budget > 0 && chance(t, 15, "transient") {
		var typ reflect.Type
		if rapid.Bool().Draw(t, "transient unsupported") {
			typ = rapid.SampledFrom(unsupported).Draw(t, "transient type")
		} else {
			typ = drawType(t, false, "transient")
		}
		d.fields[g.addField(typ)].add(fieldOpt{kind: oTransient})
		g.feature("Transient")
	}
	if g.budget > 0 && chance(t, 15, "unexported") {
		g.addUnexported(rapid.SampledFrom(scalars).Draw(t, "unexported type"))
		g.feature("unexported field")
	}

	cols := d.live()
	// Lookups on columns whose type can be a key, but not on the only
	// partition-key column.
	indexed := map[int]bool{}
	longestLookup := 0
	if !isCounter {
		var cands []*column
		for _, c := range cols {
			if !c.embedded && !(c.isPK() && nPK == 1) {
				if ty := c.cql(); ty != nil && !ty.Contains("DURATION") && ty.Kind != Vector {
					cands = append(cands, c)
				}
			}
		}
		n := rapid.IntRange(0, min(2, len(cands))).Draw(t, "lookups")
		if g.room > maxName-22 {
			n = 0 // no room for a suffix
		}
		if n > 0 {
			cands = rapid.Permutation(cands).Draw(t, "lookup columns")
		}
		suffixes := map[string]bool{}
		for _, c := range cands[:n] {
			s := g.drawSuffix(suffixes)
			suffixes[s] = true
			longestLookup = max(longestLookup, g.room+1+len(s))
			lk := rapid.SampledFrom([]kandra.LookupKind{kandra.LookupBatch, kandra.LookupEventual, kandra.LookupUnique}).Draw(t, "lookup kind")
			d.fields[c.field].add(fieldOpt{kind: oLookup, suffix: s, lookupKind: lk})
			g.feature("Lookup " + typeFeature(c.goType))
			switch {
			case c.isPK():
				g.feature("lookup on a partition-key component")
			case c.isCK():
				g.feature("lookup on a clustering key")
			}
			for _, limit := range nameLimits {
				if len(d.table)+1+len(s) == limit {
					g.feature("lookup name of " + strconv.Itoa(limit))
				}
			}
		}
		// Secondary indexes: not the only partition key, no duration, and
		// an index name within the limit. An index on a blob only while
		// every name stays within 192 characters, so that ScyllaDB 2026.x
		// takes what Cassandra5Latest refuses.
		cands = nil
		for _, c := range cols {
			ty := c.cql()
			if c.embedded || ty == nil || ty.Contains("DURATION") || (c.isPK() && nPK == 1) || !g.indexFits(c.snake, maxName) {
				continue
			}
			if ty.Kind == UDT && !c.isKey() || ty.Kind == Vector {
				continue // a user-defined type of its own is not frozen (udt); a vector takes VectorIndex only (vector)
			}
			if ty.Contains("BLOB") && (g.room > 192 || longestLookup > 192 || !g.indexFits(c.snake, 192)) {
				continue
			}
			if ty.IsCollection() && lineBreak(c.snake) {
				continue // Cassandra cannot parse the index target back (secondary-index; rapid seed 1835492326 drew one)
			}
			cands = append(cands, c)
		}
		n = rapid.IntRange(0, min(2, len(cands))).Draw(t, "indexes")
		if n > 0 {
			cands = rapid.Permutation(cands).Draw(t, "index columns")
		}
		chosen := cands[:n]
		if slices.ContainsFunc(chosen, func(c *column) bool { return c.cql().Contains("BLOB") }) &&
			slices.ContainsFunc(chosen, func(c *column) bool { return !g.indexFits(c.snake, 192) }) {
			// A blob index, and an index name over 192: keep the long name.
			chosen = slices.DeleteFunc(slices.Clone(chosen), func(c *column) bool { return c.cql().Contains("BLOB") })
		}
		for _, c := range chosen {
			d.fields[c.field].add(fieldOpt{kind: oIndex})
			indexed[c.field] = true
			if c.cql().Contains("BLOB") {
				g.blobIndex = true
				g.feature("index on a blob")
			}
			if !wordChars(c.snake) {
				g.feature("index on a column name that is not all word characters")
			}
			switch {
			case c.isKey() && c.cql().IsCollection():
				g.feature("index FULL on a key collection")
			case c.isPK():
				g.feature("index on a partition-key component")
			case c.isCK():
				g.feature("index on a clustering key")
			default:
				g.feature("index " + typeFeature(c.goType))
			}
		}
	}
	// Column overrides.
	names := map[string]bool{}
	for _, c := range cols {
		names[c.name()] = true
	}
	for _, c := range cols {
		if c.embedded || !chance(t, map[bool]int{false: 25, true: 50}[indexed[c.field]], "override") {
			continue
		}
		var n string
		switch {
		case indexed[c.field]:
			n = rapid.StringMatching(`[a-z][a-z0-9_]{0,9}`).Draw(t, "simple override")
			switch {
			case chance(t, 50, "longest index name"):
				// As long as {table}_{col}_idx may be with a table name of
				// g.room characters: one of nameLimits.
				var limits []int
				for _, l := range nameLimits {
					if l-g.room-6 >= 0 && (l <= 192 || !g.blobIndex) {
						limits = append(limits, l)
					}
				}
				if len(limits) == 0 {
					break
				}
				limit := rapid.SampledFrom(limits).Draw(t, "index name limit")
				n = "i" + strings.Repeat("x", limit-g.room-6)
				if len(d.table) == g.room {
					g.feature("index name of " + strconv.Itoa(limit))
				}
			case chance(t, 30, "fancy index override"):
				// Not all word characters: the index name is sanitized and
				// hashed.
				if f := rapid.SampledFrom(fancyNames).Draw(t, "fancy index override"); g.indexFits(f, 192) && !(c.cql().IsCollection() && lineBreak(f)) {
					n = f
					if !wordChars(f) {
						g.feature("index on an override that is not all word characters")
					}
				}
			}
		case chance(t, 15, "blank override"):
			n = rapid.SampledFrom([]string{"", " ", "  \t"}).Draw(t, "blank override")
			d.fields[c.field].add(fieldOpt{kind: oColumn, name: n})
			g.feature("blank override")
			continue
		case chance(t, 5, "column name of MaxColumnNameBytes"):
			n = rapid.SampledFrom(longColumnNames).Draw(t, "long override")
			g.feature("column name of 1024 bytes")
		case chance(t, 70, "fancy"):
			n = rapid.SampledFrom(fancyNames).Draw(t, "fancy override")
		default:
			n = rapid.StringMatching(`[a-z][a-z0-9_]{0,9}`).Draw(t, "simple override")
		}
		if names[n] {
			continue
		}
		if limit := map[bool]int{false: maxName, true: 192}[g.blobIndex]; indexed[c.field] && !g.indexFits(n, limit) {
			continue // the override would make the index name too long
		}
		delete(names, c.snake)
		names[n] = true
		d.fields[c.field].add(fieldOpt{kind: oColumn, name: n})
		if c.isKey() {
			g.feature("override on a key")
		}
		if kandra.QuoteIdent(n) != n {
			g.feature("override that needs quoting")
		} else {
			g.feature("override")
		}
	}
	for _, c := range cols {
		if !c.embedded && chance(t, 10, "sensitive") {
			d.fields[c.field].add(fieldOpt{kind: oSensitive})
			g.feature("Sensitive")
		}
	}
	// Table options.
	if !isCounter && chance(t, 30, "ttl") {
		d.topts = append(d.topts, tableOpt{kind: tTTL, n: drawRange(t, 0, maxTTLSeconds, "ttl")})
		g.feature("DefaultTTL")
	}
	if chance(t, 30, "gc grace") {
		d.topts = append(d.topts, tableOpt{kind: tGC, n: drawRange(t, 0, math.MaxInt32, "gc grace")})
		g.feature("GCGrace")
	}
	if chance(t, 15, "read consistency") {
		d.topts = append(d.topts, tableOpt{kind: tRead, n: rapid.IntRange(0, 10).Draw(t, "read")})
		g.feature("ReadConsistency")
	}
	if chance(t, 15, "write consistency") {
		d.topts = append(d.topts, tableOpt{kind: tWrite, n: rapid.IntRange(0, 10).Draw(t, "write")})
		g.feature("WriteConsistency")
	}
	if len(d.topts) > 0 && chance(t, 10, "repeat table option") {
		d.topts = append(d.topts, rapid.SampledFrom(d.topts).Draw(t, "repeated table option"))
		g.feature("table option repeated with the same value")
	}
	g.shuffleAndSplit()
	if g.budget > 0 && chance(t, 10, "zero-size twins") {
		// Two struct{} fields at the end share an offset: binding one
		// Transient binds both (neither has a CQL type).
		a, b := g.addField(tEmpty), g.addField(tEmpty)
		switch rapid.IntRange(0, 2).Draw(t, "which twin") {
		case 0:
			d.fields[a].add(fieldOpt{kind: oTransient})
		case 1:
			d.fields[b].add(fieldOpt{kind: oTransient})
		default:
			d.fields[a].add(fieldOpt{kind: oTransient})
			d.fields[b].add(fieldOpt{kind: oTransient})
		}
		g.feature("zero-size twins")
	}
	if !isCounter {
		g.static()
		g.indexOptions()
	}
	g.drawStorage()
	if !isCounter {
		g.frozen()
	}
	return g
}

// frozen gives some collection columns outside the key, regular or
// static, kandra.Frozen() (a collection in a key is frozen anyway), drawn
// after everything else so that the draws before keep their seeds. The
// servers index a frozen collection whole (FULL): an indexed collection is
// frozen only when its index asks for none of its parts (no IndexValues,
// IndexKeys or IndexEntries, no text analysis), and then sometimes names
// its target, IndexFull.
func (g *gen) frozen() {
	t, d := g.t, g.d
	for _, c := range d.live() {
		ty := c.cql()
		if c.embedded || c.isKey() || ty == nil || !ty.IsCollection() {
			continue
		}
		if c.index && (c.ixs[0].target != kandra.IndexTargetColumn || c.ixs[0].analysis()) {
			continue
		}
		// Half the indexed ones, which are fewer: most of their indexes
		// name a target.
		if !chance(t, map[bool]int{false: 25, true: 50}[c.index], "Frozen") {
			continue
		}
		f := &d.fields[c.field]
		switch {
		case chance(t, 15, "Frozen in a binding of its own"):
			f.binds = append(f.binds, bind{opts: []fieldOpt{{kind: oFrozen}}})
			g.feature("Frozen in a binding of its own")
		case chance(t, 10, "Frozen twice"):
			f.add(fieldOpt{kind: oFrozen})
			f.add(fieldOpt{kind: oFrozen})
			g.feature("Frozen twice")
		default:
			f.add(fieldOpt{kind: oFrozen})
		}
		g.feature("Frozen " + map[CQLKind]string{List: "list", Set: "set", Map: "map"}[ty.Kind])
		if c.static {
			g.feature("Frozen static")
		}
		if !c.index {
			continue
		}
		g.feature("index on a Frozen collection")
		if !chance(t, 50, "IndexFull on Frozen") {
			continue
		}
		// Every SecondaryIndex of the field, as bindings split them.
		for _, b := range f.binds {
			for oi, o := range b.opts {
				if o.kind == oIndex {
					b.opts[oi].ix.target = kandra.IndexTargetFull
				}
			}
		}
		g.feature("IndexFull on a Frozen collection")
	}
}

// indexOptions gives some indexes a kind, a target and text analysis that
// the servers take, drawn last so that the draws before keep their seeds.
func (g *gen) indexOptions() {
	t := g.t
	for _, c := range g.d.live() {
		if !c.index {
			continue
		}
		ty := c.cql()
		frozen := c.frozenCollection(ty)
		var x ixDraft
		switch {
		case frozen && chance(t, 40, "IndexFull"):
			x.target = kandra.IndexTargetFull
		case !frozen && ty.Kind == Map && chance(t, 80, "map index target"):
			x.target = rapid.SampledFrom([]kandra.IndexTarget{kandra.IndexTargetValues, kandra.IndexTargetKeys, kandra.IndexTargetEntries, kandra.IndexTargetEntries}).Draw(t, "map target")
		case !frozen && ty.IsCollection() && chance(t, 40, "IndexValues"):
			x.target = kandra.IndexTargetValues
		}
		switch {
		case !ty.Contains("BLOB") && plainName(c.name()) && chance(t, 25, "UsingSAI"):
			x.kind = kandra.IndexSAI
		case chance(t, 15, "UsingLegacy"):
			x.kind = kandra.IndexLegacy
		}
		held := ty
		switch {
		case x.target == kandra.IndexTargetKeys:
			held = ty.Key
		case x.target == kandra.IndexTargetEntries || frozen:
			held = nil
		case ty.IsCollection():
			held = ty.Elem
		}
		if x.kind == kandra.IndexSAI && !c.isKey() && held != nil && held.Kind == Native &&
			(held.Name == "TEXT" || held.Name == "ASCII" || held.Name == "VARCHAR") && chance(t, 80, "analysis") {
			x.ci, x.normalize, x.asci = rapid.Bool().Draw(t, "case"), rapid.Bool().Draw(t, "normalize"), rapid.Bool().Draw(t, "ascii")
			if !x.analysis() {
				x.ci = true
			}
			g.feature("SAI analysis")
		}
		if x == (ixDraft{}) {
			continue
		}
		g.feature("index kind " + x.kind.String())
		g.feature("index target " + x.target.String())
		// Every SecondaryIndex of the field, as bindings split them.
		for _, b := range g.d.fields[c.field].binds {
			for oi, o := range b.opts {
				if o.kind == oIndex {
					b.opts[oi].ix = x
				}
			}
		}
	}
}

// static makes some row columns static, when the draft has clustering
// columns, keeping at least one row column: a plain column (no lookup,
// role, index or soft-delete marker) of a field of its own.
func (g *gen) static() {
	d := g.d
	var cands []*column
	rows, clustering := 0, false
	for _, c := range d.live() {
		switch {
		case c.isCK():
			clustering = true
		case c.isKey():
		default:
			rows++
			plain := !c.embedded && len(c.lookups) == 0 && !c.index && !c.created && !c.updated && !c.version && !c.counter &&
				len(c.uuidRoles) == 0 && !(d.softDelete && d.marker == c.field)
			if plain && len(twins(d.fieldsType(), c.field)) == 1 {
				cands = append(cands, c)
			}
		}
	}
	if !clustering || len(cands) == 0 || rows < 2 || !chance(g.t, 25, "static") {
		return
	}
	n := rapid.IntRange(1, min(len(cands), rows-1)).Draw(g.t, "static columns")
	for _, i := range rapid.Permutation(seq(len(cands))).Draw(g.t, "static order")[:n] {
		d.fields[cands[i].field].add(fieldOpt{kind: oStatic})
	}
	g.feature("Static")
}

// nameLimits are the targets' name limits (name-length): ScyllaDB 2025.x;
// Cassandra 5.0's for a table in keyspace KeyspaceName and for a
// storage-attached index; ScyllaDB 2026.x; the entity rule's, which only
// Cassandra's legacy indexes reach.
var nameLimits = []int{48, cassandraTableAndKeyspace - len(KeyspaceName), cassandraSAIIndex, 192, maxName}

// longColumnNames are column names of MaxColumnNameBytes bytes.
var longColumnNames = []string{
	strings.Repeat("c", kandra.MaxColumnNameBytes),
	strings.Repeat("é", kandra.MaxColumnNameBytes/2),
	strings.Repeat("日", kandra.MaxColumnNameBytes/3) + "x",
}

// opaqueTypes are the AsType types drawn for Opaque fields, which take any.
var opaqueTypes = []*CQL{
	nat("DECIMAL"), nat("TEXT"), nat("BLOB"), nat("VARINT"), nat("TIME"), nat("DATE"), nat("INET"),
	{Kind: List, Elem: nat("DECIMAL")}, {Kind: Set, Elem: nat("ASCII")}, {Kind: Map, Key: nat("TEXT"), Elem: nat("DECIMAL")},
}

// shuffleAndSplit permutes the fields (so that keys are not always first),
// and sometimes splits a field's options over several bindings or repeats
// an option (bindings merge).
func (g *gen) shuffleAndSplit() {
	t, d := g.t, g.d
	if len(d.fields) > 1 {
		perm := rapid.Permutation(seq(len(d.fields))).Draw(t, "field order")
		fields := make([]field, len(perm))
		marker := -1
		for to, from := range perm {
			fields[to] = d.fields[from]
			if from == d.marker {
				marker = to
			}
		}
		d.fields, d.marker = fields, marker
	}
	for i := range d.fields {
		f := &d.fields[i]
		if len(f.binds) == 0 || !f.exported || f.embedded {
			continue
		}
		var opts []fieldOpt
		var roles []dynamic.Role
		for _, b := range f.binds {
			opts = append(opts, b.opts...)
			if b.role != dynamic.NoRole {
				roles = append(roles, b.role)
			}
		}
		if len(opts) > 0 && chance(t, 10, "repeat option") {
			o := rapid.SampledFrom(opts).Draw(t, "repeated option")
			opts = append(opts, o)
			g.feature("option repeated")
		}
		if chance(t, 20, "split binds") && len(opts)+len(roles) > 1 {
			opts = rapid.Permutation(opts).Draw(t, "option order")
			cut := rapid.IntRange(0, len(opts)).Draw(t, "split")
			// opts[:cut:cut], so that adding to the first binding (field.add)
			// cannot overwrite the second's options.
			f.binds = []bind{{opts: opts[:cut:cut]}, {opts: opts[cut:]}}
			for k, r := range roles {
				if k < 2 {
					f.binds[k].role = r
				} else {
					f.binds = append(f.binds, bind{role: r})
				}
			}
			g.feature("options over several bindings")
			continue
		}
		f.binds = []bind{{opts: opts}}
		for k, r := range roles {
			if k == 0 {
				f.binds[0].role = r
			} else {
				f.binds = append(f.binds, bind{role: r})
			}
		}
	}
	if chance(t, 10, "empty bind") && len(d.fields) > 0 {
		i := rapid.IntRange(0, len(d.fields)-1).Draw(t, "empty bind field")
		if d.fields[i].exported && !d.fields[i].embedded {
			d.fields[i].binds = append(d.fields[i].binds, bind{})
			g.feature("binding without options")
		}
	}
}

// uniform draws from 0..n-1 without rapid's bias towards small values
// (a permutation is drawn unbiased), so that every mutation is as likely.
func uniform(t *rapid.T, n int, label string) int {
	return rapid.Permutation(seq(n)).Draw(t, label)[0]
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// drawRange draws from lo..hi, often one of the bounds.
func drawRange(t *rapid.T, lo, hi int, label string) int {
	switch rapid.IntRange(0, 4).Draw(t, label+" edge") {
	case 0:
		return lo
	case 1:
		return hi
	}
	return rapid.IntRange(lo, hi).Draw(t, label)
}

func (g *gen) drawSuffix(used map[string]bool) string {
	t := g.t
	for i := 0; ; i++ {
		var s string
		switch k := rapid.IntRange(0, 5).Draw(t, "suffix kind"); {
		case i >= 10:
			s = "l" + strconv.Itoa(i)
		case k == 0:
			s = "By" + rapid.SampledFrom(nameWords).Draw(t, "suffix word")
		case k == 1:
			// As long as a target's limit allows with a table name of
			// g.room characters (exactly the limit when the table has as
			// many).
			limit := rapid.SampledFrom(nameLimits).Draw(t, "suffix limit")
			s = "s" + strings.Repeat("x", max(limit-g.room-2, 0))
		default:
			s = rapid.StringMatching(`[a-z][a-z0-9_]{0,10}`).Draw(t, "suffix")
		}
		// A suffix ending in _idx or _index could make the lookup table's
		// name that of an index of the table, or of its ScyllaDB view
		// (name-taken in any keyspace).
		if !used[s] && !strings.HasSuffix(s, "_idx") && !strings.HasSuffix(s, "_index") && wordChars(s) && g.fits("_"+s, maxName) {
			return s
		}
		used[s] = true // do not draw it again
	}
}

// ValidModel draws a valid spec and what kandra must make of it. The spec
// breaks no entity rule, and its table can be put in a keyspace alone for
// the targets that accept it (Model.Targets): always ScyllaDB 2026.x or
// Cassandra5Latest, often more. Names of up to 222 characters, counters,
// Version columns, indexes on blobs and TTLs past 2038 are drawn, so no
// one target takes every valid model.
func ValidModel(t *rapid.T) Model {
	// A draw that neither target takes (an index on a column that SAI
	// refuses, in a table with a name ScyllaDB refuses, say) is drawn
	// again; such draws are rare, so a few attempts always suffice.
	const attempts = 32
	var names []string
	for range attempts {
		g := newValid(t, -1)
		if r := g.d.broken(); len(r) > 0 {
			panic("schematest: generated an invalid spec, breaking " + joinRules(r))
		}
		m := g.d.model(g.d.spec(t))
		if NamesCollide(m) {
			panic("schematest: generated a table whose own names collide: " + strings.Join(m.TakenNames(), ", "))
		}
		// Neither target's verdict reads the clock. A target must take the
		// model as drawn and renamed to the longest table name WithTable
		// takes: limits close together (181 for a Cassandra table, 182 for
		// its SAI index, 192 on ScyllaDB) can hold the drawn names and not
		// the renamed ones.
		longest := m.WithTable(strings.Repeat("t", m.Room()))
		if Targets(time.Time{}, m)&Targets(time.Time{}, longest)&(kandra.Scylla2026|kandra.Cassandra5Latest) != 0 {
			return m
		}
		names = m.names()
	}
	panic("schematest: " + strconv.Itoa(attempts) + " draws in a row made tables that neither ScyllaDB 2026.x nor Cassandra5Latest accepts, the last: " + strings.Join(names, ", "))
}

// ValidSpec draws a spec that every rule accepts.
func ValidSpec(t *rapid.T) dynamic.Spec { return ValidModel(t).Spec }

func joinRules(rs []kandra.Rule) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = string(r)
	}
	return strings.Join(s, ", ")
}

// lineBreak reports a name with a character Java's regular expressions
// end a line at: Cassandra cannot parse back the index target of a
// collection column so named (the secondary-index rule).
func lineBreak(s string) bool { return strings.ContainsAny(s, "\n\r\u0085\u2028\u2029") }
