package schematest

import (
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kandra-go/kandra"
)

// The oracle: which rules a draft breaks, decided from the rules'
// documentation. It repeats no code of build.go on purpose; where the two
// disagree, the property tests fail and one of them is wrong.

// maxName is the longest table, lookup-table or index name the entity rule
// invalid-name accepts: 222 characters, Cassandra 5.0's limit; each
// target's own limit is the keyspace rule name-length (targets.go).
const maxName = 222

// nameOK is the entity rule for table, lookup-table and index names:
// ^[A-Za-z0-9_]{1,222}$.
func nameOK(s string) bool { return len(s) <= maxName && wordChars(s) }

// wordChars reports a non-empty name of ASCII letters, digits and _ only.
func wordChars(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// columnNameOK is the entity rule for column names: valid UTF-8, at most
// MaxColumnNameBytes bytes, and not "[applied]" (the column a lightweight
// transaction's result adds).
func columnNameOK(s string) bool {
	return utf8.ValidString(s) && len(s) <= kandra.MaxColumnNameBytes && s != "[applied]"
}

// countDistinct counts the distinct values of xs by eq.
func countDistinct[E any](xs []E, eq func(a, b E) bool) int {
	var seen []E
next:
	for _, x := range xs {
		for _, s := range seen {
			if eq(s, x) {
				continue next
			}
		}
		seen = append(seen, x)
	}
	return len(seen)
}

func equal[E comparable](a, b E) bool { return a == b }

func sameCK(a, b fieldOpt) bool { return a.index == b.index && a.order == b.order }

func sameLookup(a, b fieldOpt) bool { return a.suffix == b.suffix && a.lookupKind == b.lookupKind }

func sameAs(a, b fieldOpt) bool { return same(a.as, b.as) }

func nonBlank(ns []string) []string {
	var out []string
	for _, n := range ns {
		if strings.TrimSpace(n) != "" {
			out = append(out, n)
		}
	}
	return out
}

// entityRules are the rules Register checks, in kandra.Rules() order. The
// order is kandra's documented contract, not a decision the oracle makes,
// so it is the one thing taken from kandra's rule table.
func entityRules() []kandra.Rule {
	var out []kandra.Rule
	for _, r := range kandra.Rules() {
		if r.Scope == kandra.EntityScope {
			out = append(out, r.Rule)
		}
	}
	return out
}

// broken returns every rule d breaks, in kandra.Rules() order. A rule's
// verdict only has to be right when every earlier rule holds: the builder
// stops at the first broken rule, so later verdicts are never compared.
func (d *draft) broken() []kandra.Rule {
	b := map[kandra.Rule]bool{}
	d.check(b)
	var out []kandra.Rule
	for _, r := range entityRules() {
		if b[r] {
			out = append(out, r)
			delete(b, r)
		}
	}
	for r := range b {
		// A rule the oracle decides but kandra no longer checks on entities
		// would silently never be expected.
		panic("schematest: the oracle decides " + string(r) + ", which is not an entity rule of kandra.Rules()")
	}
	return out
}

func (d *draft) check(b map[kandra.Rule]bool) {
	// not-a-struct: the entity type is not a struct.
	if d.notStruct {
		b[kandra.RuleNotStruct] = true
		return
	}
	// describe: a run-time struct type has no methods, so no Describe with
	// a value receiver, and no panic to recover.

	// table-missing: s.Table never called, or given a blank name.
	if strings.TrimSpace(d.table) == "" {
		b[kandra.RuleTableMissing] = true
	}
	// binding: a binding that is not the address of a column field (an
	// unexported field, or the embedded struct itself).
	for _, f := range d.fields {
		if len(f.binds) > 0 && (!f.exported || f.embedded) {
			b[kandra.RuleBinding] = true
		}
	}
	cols := d.columns()
	// conflicting-options: a table option set twice with different values;
	// a field with contradicting options.
	for _, k := range []tableOptKind{tTTL, tGC, tRead, tWrite} {
		var vals []tableOpt
		for _, o := range d.topts {
			if o.kind == k {
				vals = append(vals, o)
			}
		}
		if countDistinct(vals, equal) > 1 {
			b[kandra.RuleConflictingOptions] = true
		}
	}
	for _, c := range cols {
		if c.embedded {
			continue
		}
		if fieldConflict(c) {
			b[kandra.RuleConflictingOptions] = true
		}
	}
	var live, pks, cks, regular []*column
	for _, c := range cols {
		if c.transient {
			continue
		}
		live = append(live, c)
		switch {
		case c.isPK():
			pks = append(pks, c)
		case c.isCK():
			cks = append(cks, c)
		default:
			regular = append(regular, c)
		}
	}
	// no-partition-key.
	if len(pks) == 0 {
		b[kandra.RuleNoPartitionKey] = true
	}
	// duplicate-partition-index.
	pkIdx := map[int]bool{}
	for _, c := range pks {
		if pkIdx[c.pk[0]] {
			b[kandra.RuleDuplicatePartitionIndex] = true
		}
		pkIdx[c.pk[0]] = true
	}
	// duplicate-lookup-table: two lookups compose the same table name. A
	// field bound several times with the same Lookup has one lookup.
	lookupNames := map[string]bool{}
	for _, c := range live {
		for _, l := range uniqueLookups(c.lookups) {
			n := d.table + "_" + l.suffix
			if lookupNames[n] {
				b[kandra.RuleDuplicateLookupTable] = true
			}
			lookupNames[n] = true
		}
	}
	// counter-mix: counter and non-counter non-key columns, created/updated
	// timestamps aside.
	var counters, plain int
	for _, c := range regular {
		if c.created || c.updated {
			continue
		}
		if c.counter {
			counters++
		} else {
			plain++
		}
	}
	if counters > 0 && plain > 0 {
		b[kandra.RuleCounterMix] = true
	}
	// duplicate-timestamp; duplicate-version.
	var created, updated, versions int
	for _, c := range live {
		if c.created {
			created++
		}
		if c.updated {
			updated++
		}
		if c.version {
			versions++
		}
	}
	if created > 1 || updated > 1 {
		b[kandra.RuleDuplicateTimestamp] = true
	}
	if versions > 1 {
		b[kandra.RuleDuplicateVersion] = true
	}
	// soft-delete-marker: the marker is not a non-key BOOLEAN column of
	// the entity: Transient, a key, or given AsType of another type. (An
	// unexported, embedded or non-bool marker breaks it too, but cannot be
	// generated: SoftDelete takes a *bool, and internal/dynamic cannot take
	// the address of an unexported field.)
	if d.softDelete && d.marker >= 0 {
		f := d.fields[d.marker]
		if !f.exported || f.embedded || f.typ != tBool {
			b[kandra.RuleSoftDeleteMarker] = true
		}
		for _, c := range cols {
			if c.field == d.marker && !c.embedded && (c.transient || c.isKey() || len(c.as) > 0 && !same(c.lastAs(), nat("BOOLEAN"))) {
				b[kandra.RuleSoftDeleteMarker] = true
			}
		}
	}
	// key-conflict: both partition and clustering key.
	for _, c := range live {
		if len(c.pk) > 0 && len(c.ck) > 0 {
			b[kandra.RuleKeyConflict] = true
		}
	}
	// invalid-name: table, lookup-table and index names; blank lookup
	// suffixes; column names.
	if !nameOK(d.table) {
		b[kandra.RuleInvalidName] = true
	}
	for _, c := range live {
		if !columnNameOK(c.name()) {
			b[kandra.RuleInvalidName] = true
		}
		for _, l := range c.lookups {
			if strings.TrimSpace(l.suffix) == "" || !nameOK(d.table+"_"+l.suffix) {
				b[kandra.RuleInvalidName] = true
			}
		}
		if c.index && !nameOK(IndexName(d.table, c.name())) {
			b[kandra.RuleInvalidName] = true
		}
	}
	// duplicate-column: two columns with the same name.
	names := map[string]bool{}
	for _, c := range live {
		if names[c.name()] {
			b[kandra.RuleDuplicateColumn] = true
		}
		names[c.name()] = true
	}
	// duplicate-clustering-index.
	ckIdx := map[int]bool{}
	for _, c := range cks {
		if ckIdx[c.ck[0].index] {
			b[kandra.RuleDuplicateClusteringIndex] = true
		}
		ckIdx[c.ck[0].index] = true
	}
	// unsupported-type: no CQL type, the zero AsType, a type servers
	// reject (a duration as a set element or map key), or an AsType pair
	// the table of allowed overrides does not list.
	types := map[*column]*CQL{}
	for _, c := range live {
		t := c.cql()
		if t == nil || t.rejected() || !c.counter && len(c.as) > 0 && !overrideAllowed(CQLOf(c.goType), t) {
			b[kandra.RuleUnsupportedType] = true
			continue
		}
		types[c] = t
	}
	keyProblem := func(c *column) bool {
		t := types[c]
		return t != nil && (t.Contains("COUNTER") || t.Contains("DURATION"))
	}
	// key-type: a counter or duration in a key, or in a lookup column.
	for _, c := range live {
		if (c.isKey() || len(c.lookups) > 0) && keyProblem(c) {
			b[kandra.RuleKeyType] = true
		}
	}
	// static: a static column in a table without clustering columns, with
	// a lookup or a per-row role (CreatedAt, Version, the soft-delete
	// marker, a generated id), or a table whose non-key columns are all
	// static.
	clustering, statics, rowCols := 0, 0, 0
	for _, c := range live {
		switch {
		case c.isCK():
			clustering++
		case c.isKey():
		case c.static:
			statics++
			marker := d.softDelete && d.marker == c.field && !c.embedded
			if len(c.lookups) > 0 || c.created || c.version || marker || len(c.uuidRoles) > 0 {
				b[kandra.RuleStatic] = true
			}
		default:
			rowCols++
		}
	}
	if statics > 0 && (clustering == 0 || rowCols == 0) {
		b[kandra.RuleStatic] = true
	}
	// counter-table: a table with a counter column cannot have a non-zero
	// default TTL, soft delete, a version column, a (non-key) timestamp
	// column, a lookup or a secondary index.
	isCounter := false
	for _, c := range live {
		isCounter = isCounter || c.counter
	}
	if isCounter {
		if o, ok := d.lastOpt(tTTL); ok && o.n != 0 {
			b[kandra.RuleCounterTable] = true
		}
		if d.softDelete {
			b[kandra.RuleCounterTable] = true
		}
		for _, c := range live {
			if c.version || ((c.created || c.updated) && !c.isKey()) || len(c.lookups) > 0 || c.index {
				b[kandra.RuleCounterTable] = true
			}
		}
	}
	// lookup: a lookup on the only partition-key column (a lookup by it is
	// a read of its partition). A lookup on a clustering column or on one
	// component of a composite partition key is a lookup like any other.
	for _, c := range live {
		if len(c.lookups) > 0 && c.isPK() && len(pks) == 1 {
			b[kandra.RuleLookup] = true
		}
	}
	// secondary-index: on the only partition-key column, on a duration, or
	// on a collection whose column name has a line break (Cassandra cannot
	// parse its index target back).
	// Or a target the column's type does not have: KEYS and ENTRIES on a
	// map, VALUES on a collection, each only on one that is not frozen;
	// FULL only on a frozen one (a collection in a key, or given Frozen:
	// "Frozen collections are immutable and must be fully indexed").
	for _, c := range live {
		if c.index && ((c.isPK() && len(pks) == 1) || (types[c] != nil && types[c].Contains("DURATION")) ||
			(types[c] != nil && types[c].Kind != Native && types[c].Kind != UDT && lineBreak(c.name())) || (types[c] != nil && badTarget(c, types[c]))) {
			b[kandra.RuleSecondaryIndex] = true
		}
	}
	// sai: an explicit SAI index on a blob or an odd column name; text
	// analysis without UsingSAI, on a key column, or on what is not text.
	for _, c := range live {
		if c.index && types[c] != nil && saiBroken(c, types[c]) {
			b[kandra.RuleSAI] = true
		}
	}
	// vector: a vector in a key or with a lookup, or indexed by anything
	// but VectorIndex (which the generator does not draw).
	for _, c := range live {
		if types[c] != nil && types[c].Kind == Vector && (c.isKey() || len(c.lookups) > 0 || c.index) {
			b[kandra.RuleVector] = true
		}
	}
	// udt: an index on a column of a user-defined type of its own not
	// given Frozen; Frozen on a column whose type is neither a
	// user-defined type nor a collection (a native type, a counter, a
	// vector: "frozen<> is only allowed on collections, tuples, and
	// user-defined types"), in a key or not.
	for _, c := range live {
		t := types[c]
		if t == nil {
			continue
		}
		if c.index && t.Kind == UDT && !c.isKey() && !c.frozen {
			b[kandra.RuleUDT] = true
		}
		if c.frozen && t.Kind != UDT && !t.IsCollection() {
			b[kandra.RuleUDT] = true
		}
	}
	// mask: a mask on a key column, a lookup's or an index's column, the
	// Version column or the soft-delete marker, or one the column's type
	// does not take (mask_inner and mask_outer on text only, mask_hash on
	// a blob only, mask_replace a value of the type).
	for _, c := range live {
		if len(c.masks) == 0 || types[c] == nil {
			continue
		}
		marker := d.softDelete && d.marker == c.field && !c.embedded
		if c.isKey() || len(c.lookups) > 0 || c.index || c.version || marker || !maskTakes(c.masks[len(c.masks)-1], types[c]) {
			b[kandra.RuleMask] = true
		}
	}
	// option-range: numbers outside their range, and enum values that are
	// none of the named constants; a storage option out of range.
	if d.storage.broken() {
		b[kandra.RuleOptionRange] = true
	}
	if o, ok := d.lastOpt(tTTL); ok && (o.n < 0 || o.n > maxTTLSeconds) {
		b[kandra.RuleOptionRange] = true
	}
	if o, ok := d.lastOpt(tGC); ok && (o.n < 0 || int64(o.n) > math.MaxInt32) {
		b[kandra.RuleOptionRange] = true
	}
	if d.softDelete && (d.softTTL < 0 || d.softTTL > maxTTLSeconds) {
		b[kandra.RuleOptionRange] = true
	}
	for _, k := range []tableOptKind{tRead, tWrite} {
		// The protocol's levels are ANY (0) to LOCAL_ONE (10).
		if o, ok := d.lastOpt(k); ok && (o.n < 0 || o.n > 10) {
			b[kandra.RuleOptionRange] = true
		}
	}
	for _, c := range live {
		for _, o := range c.ck {
			if o.order != kandra.ClusteringAsc && o.order != kandra.ClusteringDesc {
				b[kandra.RuleOptionRange] = true
			}
		}
		for _, o := range c.lookups {
			if !o.lookupKind.IsValid() {
				b[kandra.RuleOptionRange] = true
			}
		}
	}
	// schema-size: the CREATE TABLE of the table, or of a lookup table
	// (its key, then the primary key's other columns), makes a schema
	// mutation over kandra.MaxSchemaMutationBytes. A column costs about
	// three times its name's length, twice the table name's, its type's
	// text and some 40 bytes; a table some 7 KiB with the allowances. This
	// rough reading decides because no draft comes near the limit: valid
	// drafts hold a few dozen columns, and the mutation that breaks the
	// rule adds thousands of 1,024-byte names, 2% past it.
	size := func(table string, cols []*column) int {
		n := 7 << 10
		for _, c := range cols {
			typ := 8
			if t := types[c]; t != nil {
				typ = len(t.Render(c.frozenTop(t)))
			}
			n += 3*len(c.name()) + 2*len(table) + typ + 40
		}
		return n
	}
	if size(d.table, live) > kandra.MaxSchemaMutationBytes {
		b[kandra.RuleSchemaSize] = true
	}
	keys := append(append([]*column(nil), pks...), cks...)
	for _, c := range live {
		for _, l := range uniqueLookups(c.lookups) {
			cols := []*column{c}
			for _, k := range keys {
				if k != c {
					cols = append(cols, k)
				}
			}
			if size(d.table+"_"+l.suffix, cols) > kandra.MaxSchemaMutationBytes {
				b[kandra.RuleSchemaSize] = true
			}
		}
	}
}

// fieldConflict reports options of one field that contradict each other:
// conflicting-options on the field.
// maskTakes says whether a column of type t takes mask m, as Masked
// documents it: mask_null and mask_default any type, mask_inner and
// mask_outer text (TEXT, VARCHAR, ASCII), mask_hash a BLOB, mask_replace
// a value of the type (the generator's are ASCII strings: text).
func maskTakes(m kandra.Mask, t *CQL) bool {
	text := t.Kind == Native && (t.Name == "TEXT" || t.Name == "VARCHAR" || t.Name == "ASCII")
	switch m.Function() {
	case "mask_null", "mask_default":
		return true
	case "mask_inner", "mask_outer", "mask_replace":
		return text
	case "mask_hash":
		return t.Kind == Native && t.Name == "BLOB"
	}
	return false
}

func fieldConflict(c *column) bool {
	key := c.isKey()
	uuidRole := len(c.uuidRoles) > 0
	switch {
	// Transient excludes the field, so every other option is a
	// contradiction, even one that would be harmless (Sensitive, a blank
	// Column).
	case c.transient && c.others > 0:
	// One option given twice with different values.
	case countDistinct(c.pk, equal) > 1, countDistinct(c.ck, sameCK) > 1,
		countDistinct(nonBlank(c.names), equal) > 1, countDistinct(c.lookups, sameLookup) > 1,
		countDistinct(c.uuidRoles, equal) > 1, countDistinct(c.as, sameAs) > 1, countDistinct(c.ixs, equal) > 1,
		countDistinct(c.masks, equal) > 1:
	// Masked of the zero Mask.
	case slices.ContainsFunc(c.masks, kandra.Mask.IsZero):
	// Roles that exclude each other: stamped once or on every write, a
	// conditional lock value or increments only.
	case c.created && c.updated, c.version && (c.created || c.updated || c.counter):
	// A key column is never updated, so it cannot be stamped on update or
	// hold a lock value.
	case key && (c.updated || c.version || c.static):
	// The type is fixed by the role: COUNTER, UUID for generated ids, the
	// Go type's own for a Version (BIGINT or TIMESTAMP: two versions must
	// never compare equal), a point in time for the timestamps.
	case c.counter && len(c.as) > 0:
	case uuidRole && len(c.as) > 0 && !same(c.lastAs(), nat("UUID")):
	case c.version && len(c.as) > 0:
	case (c.created || c.updated) && len(c.as) > 0 && !same(c.lastAs(), nat("TIMESTAMP")) && !same(c.lastAs(), nat("DATE")):
	default:
		return false
	}
	return true
}

// IndexName is the name of the secondary index on column col of table, as
// TableSchema.IndexName documents it: "{table}_{col}_idx" when col is all
// ASCII letters, digits and _; otherwise every other rune of col becomes _
// and the FNV-32a hash of col, in 8 hex digits, keeps two such names apart:
// "{table}_{sanitized}_{hash}_idx".
func IndexName(table, col string) string {
	if wordChars(col) {
		return table + "_" + col + "_idx"
	}
	var b strings.Builder
	for _, r := range col {
		if r < utf8.RuneSelf && wordChars(string(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	h := fnv.New32a()
	h.Write([]byte(col))
	return fmt.Sprintf("%s_%s_%08x_idx", table, b.String(), h.Sum32())
}

// TakenNames are the names m's table claims in its keyspace: the table,
// its lookup tables, its indexes, and for each index the view ScyllaDB
// creates behind it ({index}_index).
func (m Model) TakenNames() []string {
	out := []string{m.Table}
	for _, l := range m.Lookups {
		out = append(out, l.Table)
	}
	for _, c := range m.Indexes {
		n := IndexName(m.Table, c)
		out = append(out, n, n+"_index")
	}
	return out
}

// NamesCollide reports whether the tables of ms break name-taken when they
// are put in one keyspace: a name that two of them claim, or one claims
// twice (see TakenNames).
func NamesCollide(ms ...Model) bool {
	seen := map[string]bool{}
	for _, m := range ms {
		for _, n := range m.TakenNames() {
			if seen[n] {
				return true
			}
			seen[n] = true
		}
	}
	return false
}

// badTarget reports an index target the column's type does not have.
func badTarget(c *column, ty *CQL) bool {
	frozen := c.frozenCollection(ty)
	switch c.ixs[0].target {
	case kandra.IndexTargetValues:
		return !ty.IsCollection() || frozen
	case kandra.IndexTargetKeys, kandra.IndexTargetEntries:
		return ty.Kind != Map || frozen
	case kandra.IndexTargetFull:
		return !frozen
	}
	return false
}

// saiBroken reports what SAI refuses of the column's index options.
func saiBroken(c *column, ty *CQL) bool {
	x := c.ixs[0]
	if x.kind == kandra.IndexSAI && (ty.Contains("BLOB") || !plainName(c.name())) {
		return true
	}
	if !x.analysis() {
		return false
	}
	if x.kind != kandra.IndexSAI || c.isKey() {
		return true
	}
	held := ty
	switch {
	case x.target == kandra.IndexTargetEntries || x.target == kandra.IndexTargetFull:
		return true
	case x.target == kandra.IndexTargetColumn && c.frozenCollection(ty):
		return true // a frozen collection's index holds it whole (FULL)
	case x.target == kandra.IndexTargetKeys:
		held = ty.Key
	case ty.IsCollection():
		held = ty.Elem
	}
	return held.Kind != Native || (held.Name != "TEXT" && held.Name != "ASCII" && held.Name != "VARCHAR")
}
