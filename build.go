package kandra

import (
	"cmp"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	kerrors "github.com/kandra-go/kandra/errors"
	"github.com/kandra-go/kandra/internal/reflectx"
)

// builder turns what Describe collected into a TableSchema, checking the
// rules in the documented order (rules.go). It is used once per type.
type builder struct {
	entity  reflect.Type
	name    string // entity type name for errors
	fields  []reflectx.Field
	specs   []*fieldSpec // per field, nil when never bound
	slab    []fieldSpec  // backing store of bound fields' specs, never grown
	unbound fieldSpec    // the spec of every field never bound; never written
	table   string
	opts    tableSpec
	marker  int // field index of the soft-delete marker, -1 if none
	// markerErr is a soft-delete marker that resolved to no column; it is
	// reported in Kotlin rule 10's place, not with the bindings.
	markerErr error
	cols      []*ColumnSchema
	byField   []*ColumnSchema // per field index, nil for excluded fields
}

func (b *builder) fail(field string, rule kerrors.Rule, detail string) error {
	return &kerrors.SchemaError{Entity: b.name, Field: field, Rule: rule, Detail: detail}
}

// buildSchema runs describe on a fresh probe value and validates the result.
func buildSchema[T any](describe func(*T, *Schema[T])) (*TableSchema, []Validator[T], error) {
	typ := reflect.TypeFor[T]()
	if typ.Kind() != reflect.Struct {
		return nil, nil, &kerrors.SchemaError{Entity: typ.String(), Rule: RuleNotStruct,
			Detail: "an entity must be a struct type, not " + typ.Kind().String()}
	}
	probe := new(T)
	s := &Schema[T]{binds: make([]bindRecord, 0, min(typ.NumField(), 8))}
	var canaries []reflect.Value
	if _, valueReceiver := typ.MethodByName("Describe"); valueReceiver {
		// Describe will run on a copy; mark the fields so the bindings
		// can be traced back to them (see resolveBindings).
		if fields, err := reflectx.Fields(typ); err == nil {
			canaries = reflectx.SetCanaries(unsafe.Pointer(probe), fields)
		}
	}
	describe(probe, s)
	ts, err := build(typ, unsafe.Pointer(probe), describeResult{
		tableCalls: s.tableCalls, table: s.tableName, opts: s.tableOpts, binds: s.binds,
		canaries: canaries,
	})
	if err != nil {
		return nil, nil, err
	}
	return ts, s.validators, nil
}

// describeResult is what a Describe call collected, independent of T.
type describeResult struct {
	tableCalls int
	table      string
	opts       tableSpec
	binds      []bindRecord
	// canaries is non-nil when Describe has a value receiver: the values
	// the probe's fields held when Describe copied it (reflectx.SetCanaries).
	canaries []reflect.Value
	// roleErrs are roles bound to fields of the wrong Go type, which only
	// run-time struct types (internal/dynamic) can do; each is reported in
	// its rule's place.
	roleErrs []*kerrors.SchemaError
}

// build validates what Describe collected for struct type typ, whose probe
// value Describe ran on, and builds the TableSchema. Register and the
// property tests' reflect.StructOf types both come through here.
func build(typ reflect.Type, probe unsafe.Pointer, d describeResult) (*TableSchema, error) {
	b := &builder{entity: typ, name: typ.String(), marker: -1}
	if typ.Kind() != reflect.Struct {
		return nil, b.fail("", RuleNotStruct, "an entity must be a struct type, not "+typ.Kind().String())
	}
	fields, err := reflectx.Fields(typ)
	if err != nil {
		fe, _ := err.(*reflectx.FlattenError)
		path, why := "", err.Error()
		if fe != nil {
			path, why = fe.Path, fe.Reason
		}
		return nil, b.fail(path, RuleNotStruct, why)
	}
	b.fields = fields
	b.specs = make([]*fieldSpec, len(fields))

	// Kotlin rule 1.
	if d.tableCalls == 0 {
		return nil, b.fail("", RuleTableMissing, "Describe must name the table with s.Table(name)")
	}
	if strings.TrimSpace(d.table) == "" {
		return nil, b.fail("", RuleTableMissing, "the table name given to s.Table is blank")
	}
	b.table, b.opts = d.table, d.opts

	if err := b.resolveBindings(probe, typ.Size(), d.binds, d.canaries); err != nil {
		return nil, err
	}
	if err := b.checkConflicts(d.tableCalls); err != nil {
		return nil, err
	}
	roleErr := func(rule kerrors.Rule) func() error {
		return func() error {
			for _, e := range d.roleErrs {
				if e.Rule == rule {
					return e
				}
			}
			return nil
		}
	}
	b.buildColumns()
	for _, check := range []func() error{
		roleErr(RuleTimestampType),   // Kotlin 2 (compile time for Register)
		b.checkPartitionKeys,         // Kotlin 3, 4
		b.checkLookupNames,           // Kotlin 5
		b.checkCounterMix,            // Kotlin 6
		b.checkSingletons,            // Kotlin 7, 8
		roleErr(RuleVersionType),     // Kotlin 9 (compile time for Register)
		b.checkSoftDeleteMarker,      // Kotlin 10
		b.checkKeyConflict,           // both partition and clustering key
		b.checkNames,                 // table, lookup, index and column names
		b.checkDuplicateColumns,      // after snake-casing and overrides
		b.checkClusteringIndexes,     // duplicate clustering index
		roleErr(RuleUnsupportedType), // Counter or GeneratedUUID on a wrong type
		b.checkTypes,                 // Go type to CQL type
		b.checkKeyTypes,              // counters and durations in keys
		b.checkCounterTable,          // what a counter table cannot have
		b.checkLookupColumns,         // lookups on key columns
		b.checkIndexes,               // secondary index targets
		b.checkRanges,                // TTL, gc grace, cache, consistency
	} {
		if err := check(); err != nil {
			return nil, err
		}
	}
	return b.assemble(), nil
}

// resolveBindings maps every bound pointer to a field. With a pointer
// receiver Describe runs on the probe, and every pointer must lie inside it.
// With a value receiver (canaries != nil) Describe runs on a copy whose
// address is unknown: a pointer is attributed to a field of its type whose
// canary it points at, and the copy's base is the one address all bindings
// agree on. A binding kandra cannot verify that way (a bool, say) only
// counts once another binding has fixed the base.
func (b *builder) resolveBindings(probe unsafe.Pointer, size uintptr, binds []bindRecord, canaries []reflect.Value) error {
	type ptrRef struct {
		ptr unsafe.Pointer // kept as a pointer: checkptr forbids rebuilding one from p
		p   uintptr
		typ reflect.Type
		rec int // index in binds, -1 for the soft-delete marker
	}
	refs := make([]ptrRef, 0, len(binds)+1)
	b.slab = make([]fieldSpec, 0, len(binds)) // at most one spec per binding
	for i, r := range binds {
		refs = append(refs, ptrRef{r.ptr, uintptr(r.ptr), r.typ, i})
	}
	if sd := b.opts.softDelete; sd != nil && sd.marker != nil {
		refs = append(refs, ptrRef{sd.marker, uintptr(sd.marker), reflect.TypeFor[bool](), -1})
	}
	if len(refs) == 0 {
		return nil
	}
	base := uintptr(probe)
	if canaries != nil {
		var common map[uintptr]bool
		anchored := false
		for _, r := range refs {
			if r.p == 0 {
				continue
			}
			cands := map[uintptr]bool{}
			verified := true
			for i, f := range b.fields {
				if f.Type != r.typ || r.p < f.Offset {
					continue
				}
				if canaries[i].IsValid() {
					if !reflectx.HoldsCanary(r.ptr, r.typ, canaries[i]) {
						continue
					}
				} else {
					verified = false
				}
				if c := r.p - f.Offset; common == nil || common[c] {
					cands[c] = true
				}
			}
			anchored = anchored || verified && len(cands) > 0
			common = cands
		}
		switch {
		case len(common) == 1 && anchored:
			for c := range common {
				base = c
			}
		case len(common) > 1 || len(common) == 1 && !anchored:
			return b.fail("", RuleBinding, "Describe has a value receiver and its bindings cannot be traced to single fields; declare Describe on *"+b.entity.Name())
		default:
			// No base fits: report the bindings against the probe, where
			// none of them lies, so the first is named.
		}
	}
	for _, r := range refs {
		idx := -1
		if r.p != 0 && r.p >= base && r.p < base+size {
			off := r.p - base
			for i, f := range b.fields {
				if f.Offset == off && f.Type == r.typ {
					idx = i
					break
				}
			}
			if idx < 0 {
				what := describeOffset(b.entity, off)
				if r.rec < 0 {
					b.markerErr = b.fail(what, RuleSoftDeleteMarker, "the soft-delete marker must be an exported bool field that is a column; "+what+" is not one (unexported, or inside a non-embedded struct)")
					continue
				}
				return b.fail(what, RuleBinding, "the binding points to "+what+", which cannot be a column: it is unexported or inside a non-embedded struct")
			}
		}
		if idx < 0 {
			if r.rec < 0 {
				b.markerErr = b.fail("", RuleSoftDeleteMarker, "the soft-delete marker is not the address of a bool field of the entity Describe was called on")
				continue
			}
			return b.fail("", RuleBinding, "a *"+r.typ.String()+" binding is not the address of a field of the entity Describe was called on (use &e.Field on Describe's receiver)")
		}
		if r.rec < 0 {
			b.marker = idx
			continue
		}
		spec := b.specs[idx]
		if spec == nil {
			b.slab = append(b.slab, fieldSpec{}) // within capacity: spec pointers stay valid
			spec = &b.slab[len(b.slab)-1]
			b.specs[idx] = spec
		}
		for _, o := range binds[r.rec].opts {
			if o != nil {
				o.applyField(spec)
			}
		}
		if role := binds[r.rec].role; role != nil {
			role(spec)
		}
	}
	return nil
}

// describeOffset names the field of t (exported or not) at offset off.
func describeOffset(t reflect.Type, off uintptr) string {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if off >= f.Offset && off < f.Offset+f.Type.Size() || off == f.Offset {
			if f.Type.Kind() == reflect.Struct && f.Type.NumField() > 0 {
				if inner := describeOffset(f.Type, off-f.Offset); inner != "" {
					return f.Name + "." + inner
				}
			}
			return f.Name
		}
	}
	return "offset " + strconv.Itoa(int(off))
}

func (b *builder) checkConflicts(tableCalls int) error {
	if tableCalls > 1 {
		return b.fail("", RuleConflict, "s.Table is called "+strconv.Itoa(tableCalls)+" times; call it once with every table option")
	}
	if len(b.opts.conflicts) > 0 {
		return b.fail("", RuleConflict, b.opts.conflicts[0])
	}
	for i, s := range b.specs {
		if s == nil {
			continue
		}
		path := b.fields[i].Path
		if len(s.conflicts) > 0 {
			return b.fail(path, RuleConflict, s.conflicts[0])
		}
		if s.transient && (len(s.partition) > 0 || len(s.clustering) > 0 || len(s.lookups) > 0 || s.counter ||
			s.createdAt || s.updatedAt || s.version > 0 || s.index || s.generated || s.hasAsType || len(nonBlank(s.names)) > 0 || b.marker == i) {
			return b.fail(path, RuleConflict, "a Transient field is not a column and cannot take other column options")
		}
		if p := distinct(s.partition); len(p) > 1 {
			return b.fail(path, RuleConflict, "PartitionKey is given twice, with indexes "+strconv.Itoa(p[0])+" and "+strconv.Itoa(p[1]))
		}
		if c := distinct(s.clustering); len(c) > 1 {
			return b.fail(path, RuleConflict, "ClusteringKey is given twice with different index or order")
		}
		if n := distinct(nonBlank(s.names)); len(n) > 1 {
			return b.fail(path, RuleConflict, "Column gives two names, "+strconv.Quote(n[0])+" and "+strconv.Quote(n[1]))
		}
		if l := distinct(s.lookups); len(l) > 1 {
			return b.fail(path, RuleConflict, "Lookup is given twice with different suffix or consistency; a field has at most one lookup table")
		} else {
			s.lookups = l // the same Lookup bound twice is one lookup table
			for j := range s.lookups {
				s.lookups[j].name = b.table + "_" + s.lookups[j].suffix // composed once
			}
		}
		if s.generated && s.hasAsType && !s.asType.is(CQLUUID) {
			return b.fail(path, RuleConflict, "a GeneratedUUID column holds UUIDv7 or UUIDv4 ids, so its type is UUID; AsType("+s.asType.String()+") cannot hold them (a TIMEUUID column accepts only version-1 ids)")
		}
		if s.counter && s.hasAsType {
			return b.fail(path, RuleConflict, "a Counter column's type is COUNTER; AsType cannot change it")
		}
	}
	return nil
}

func distinct[E comparable](xs []E) []E {
	if len(xs) < 2 {
		return xs // nothing to remove; callers only read the result
	}
	var out []E
	for _, x := range xs {
		dup := false
		for _, y := range out {
			dup = dup || x == y
		}
		if !dup {
			out = append(out, x)
		}
	}
	return out
}

func nonBlank(names []string) []string {
	if len(names) == 0 {
		return nil
	}
	var out []string
	for _, n := range names {
		if strings.TrimSpace(n) != "" {
			out = append(out, n)
		}
	}
	return out
}

// buildColumns creates a column for every field that is not Transient, in
// struct order. Types are resolved later (checkTypes) so that the Kotlin
// rules keep their place in the order.
func (b *builder) buildColumns() {
	b.byField = make([]*ColumnSchema, len(b.fields))
	b.cols = make([]*ColumnSchema, 0, len(b.fields))
	cols := make([]ColumnSchema, len(b.fields)) // one allocation for all columns
	for i, f := range b.fields {
		s := b.specs[i]
		if s == nil {
			s = &b.unbound
			b.specs[i] = s
		}
		if s.transient {
			continue
		}
		var name string
		if n := nonBlank(s.names); len(n) > 0 {
			name = n[0]
		} else {
			name = SnakeCase(f.Name)
		}
		c := &cols[i]
		*c = ColumnSchema{
			goName: f.Path, name: name, cqlName: QuoteIdent(name), goType: f.Type, offset: f.Offset,
			ptrType: reflectx.PointerTypeWord(f.Type), counter: s.counter, createdAt: s.createdAt,
			updatedAt: s.updatedAt, version: s.version > 0, index: s.index, sensitive: s.sensitive,
			generated: s.generated, uuidKind: s.uuidKind, softDeleted: b.marker == i,
		}
		if len(s.partition) > 0 {
			c.role, c.keyIndex = PartitionKeyColumn, s.partition[0]
		} else if len(s.clustering) > 0 {
			c.role, c.keyIndex, c.order = ClusteringKeyColumn, s.clustering[0].index, s.clustering[0].order
		}
		b.cols = append(b.cols, c)
		b.byField[i] = c
	}
}

// each calls fn for every column with its spec, in struct order, and stops
// at the first error.
func (b *builder) each(fn func(c *ColumnSchema, s *fieldSpec) error) error {
	for i, c := range b.byField {
		if c == nil {
			continue
		}
		if err := fn(c, b.specs[i]); err != nil {
			return err
		}
	}
	return nil
}

func (b *builder) checkPartitionKeys() error {
	seen := map[int]*ColumnSchema{}
	found := false
	var dup error
	_ = b.each(func(c *ColumnSchema, s *fieldSpec) error {
		if len(s.partition) == 0 {
			return nil
		}
		found = true
		if prev, ok := seen[s.partition[0]]; ok && dup == nil {
			dup = b.fail(c.goName, RuleDuplicatePartitionIndex, "PartitionKey("+strconv.Itoa(s.partition[0])+") is also given to "+prev.goName+"; give each partition-key component its own index")
		}
		seen[s.partition[0]] = c
		return nil
	})
	if !found {
		return b.fail("", RuleNoPartitionKey, "no field is a partition key; bind one with kandra.PartitionKey(0)")
	}
	return dup
}

func (b *builder) lookupName(s lookupSpec) string { return s.name }

func (b *builder) checkLookupNames() error {
	seen := map[string]string{}
	return b.each(func(c *ColumnSchema, s *fieldSpec) error {
		for _, l := range s.lookups {
			name := b.lookupName(l)
			if prev, ok := seen[name]; ok {
				return b.fail(c.goName, RuleDuplicateLookupTable, "its lookup table "+strconv.Quote(name)+" is also the lookup table of "+prev)
			}
			seen[name] = c.goName
		}
		return nil
	})
}

func (b *builder) checkCounterMix() error {
	var counter, plain *ColumnSchema
	for _, c := range b.cols {
		if c.role != RegularColumn || c.createdAt || c.updatedAt {
			continue
		}
		if c.counter && counter == nil {
			counter = c
		}
		if !c.counter && plain == nil {
			plain = c
		}
	}
	if counter != nil && plain != nil {
		return b.fail(plain.goName, RuleCounterMix, "the table mixes counter and non-counter columns ("+counter.goName+" is a Counter); servers reject a counter table with other non-key columns")
	}
	return nil
}

// checkSingletons enforces Kotlin rules 7 (one CreatedAt, one UpdatedAt)
// and then 8 (one Version), each over the whole entity, so that rule 7 is
// reported first whatever the field order.
func (b *builder) checkSingletons() error {
	var created, updated *ColumnSchema
	for _, c := range b.cols {
		switch {
		case c.createdAt && created != nil:
			return b.fail(c.goName, RuleDuplicateTimestamp, "CreatedAt is already bound to "+created.goName+"; an entity has at most one")
		case c.updatedAt && updated != nil:
			return b.fail(c.goName, RuleDuplicateTimestamp, "UpdatedAt is already bound to "+updated.goName+"; an entity has at most one")
		}
		if c.createdAt {
			created = c
		}
		if c.updatedAt {
			updated = c
		}
	}
	var version *ColumnSchema
	for _, c := range b.cols {
		if c.version {
			if version != nil {
				return b.fail(c.goName, RuleDuplicateVersion, "Version is already bound to "+version.goName+"; an entity has at most one")
			}
			version = c
		}
	}
	return nil
}

func (b *builder) checkSoftDeleteMarker() error {
	if b.markerErr != nil {
		return b.markerErr
	}
	return nil
}

func (b *builder) checkKeyConflict() error {
	return b.each(func(c *ColumnSchema, s *fieldSpec) error {
		if len(s.partition) > 0 && len(s.clustering) > 0 {
			return b.fail(c.goName, RuleKeyConflict, "a field cannot be both a partition key and a clustering key")
		}
		return nil
	})
}

func (b *builder) checkNames() error {
	if p := nameProblem(b.table); p != "" {
		return b.fail("", RuleInvalidName, "table name "+strconv.Quote(b.table)+" "+p)
	}
	return b.each(func(c *ColumnSchema, s *fieldSpec) error {
		if !utf8.ValidString(c.name) {
			return b.fail(c.goName, RuleInvalidName, "column name "+strconv.Quote(c.name)+" is not valid UTF-8")
		}
		for _, l := range s.lookups {
			if strings.TrimSpace(l.suffix) == "" {
				return b.fail(c.goName, RuleInvalidName, "the lookup suffix is blank")
			}
			if p := nameProblem(b.lookupName(l)); p != "" {
				return b.fail(c.goName, RuleInvalidName, "lookup table name "+strconv.Quote(b.lookupName(l))+" "+p)
			}
		}
		if s.index {
			if n := c.indexName(b.table); nameProblem(n) != "" {
				return b.fail(c.goName, RuleInvalidName, "secondary index name "+strconv.Quote(n)+" "+nameProblem(n)+"; shorten the table or column name")
			}
		}
		return nil
	})
}

func (b *builder) checkDuplicateColumns() error {
	if len(b.cols) <= 32 {
		// Few columns: comparing pairs is cheaper than a map. b.cols is in
		// struct order, as each visits them.
		for i, c := range b.cols {
			for _, prev := range b.cols[:i] {
				if prev.name == c.name {
					return b.fail(c.goName, RuleDuplicateColumn, "its column name "+strconv.Quote(c.name)+" is also the column name of "+prev.goName+"; rename one with kandra.Column")
				}
			}
		}
		return nil
	}
	seen := make(map[string]*ColumnSchema, len(b.cols))
	return b.each(func(c *ColumnSchema, _ *fieldSpec) error {
		if prev, ok := seen[c.name]; ok {
			return b.fail(c.goName, RuleDuplicateColumn, "its column name "+strconv.Quote(c.name)+" is also the column name of "+prev.goName+"; rename one with kandra.Column")
		}
		seen[c.name] = c
		return nil
	})
}

func (b *builder) checkClusteringIndexes() error {
	seen := map[int]*ColumnSchema{}
	return b.each(func(c *ColumnSchema, _ *fieldSpec) error {
		if c.role != ClusteringKeyColumn {
			return nil
		}
		if prev, ok := seen[c.keyIndex]; ok {
			return b.fail(c.goName, RuleDuplicateClusteringIndex, "ClusteringKey("+strconv.Itoa(c.keyIndex)+", ...) is also given to "+prev.goName+"; give each clustering column its own index")
		}
		seen[c.keyIndex] = c
		return nil
	})
}

func (b *builder) checkTypes() error {
	return b.each(func(c *ColumnSchema, s *fieldSpec) error {
		switch {
		case s.counter:
			c.typ = cqlCounter
		case s.hasAsType:
			if p := overrideProblem(s.asType); p != "" {
				return b.fail(c.goName, RuleUnsupportedType, "AsType("+s.asType.String()+"): "+p)
			}
			c.typ = s.asType
		default:
			t, problem := goToCQL(c.goType)
			if problem != "" {
				return b.fail(c.goName, RuleUnsupportedType, problem+"; exclude the field with kandra.Bind(s, &e."+c.goName+", kandra.Transient()) or give it a CQL type with kandra.AsType(...)")
			}
			c.typ = t
		}
		return nil
	})
}

func keyTypeProblem(t CQLType) string {
	switch {
	case t.contains(cqlCounter):
		return "a counter"
	case t.contains(CQLDuration):
		return "a duration"
	}
	return ""
}

func (b *builder) checkKeyTypes() error {
	return b.each(func(c *ColumnSchema, s *fieldSpec) error {
		if c.role != RegularColumn {
			if p := keyTypeProblem(c.typ); p != "" {
				return b.fail(c.goName, RuleKeyType, "a "+c.role.String()+" cannot hold "+p+" (type "+c.typ.String()+"); servers reject it in the PRIMARY KEY")
			}
		}
		if len(s.lookups) > 0 {
			if p := keyTypeProblem(c.typ); p != "" {
				return b.fail(c.goName, RuleKeyType, "a lookup column is its lookup table's primary key and cannot hold "+p+" (type "+c.typ.String()+")")
			}
		}
		return nil
	})
}

func (b *builder) isCounterTable() bool {
	for _, c := range b.cols {
		if c.counter {
			return true
		}
	}
	return false
}

func (b *builder) checkCounterTable() error {
	if !b.isCounterTable() {
		return nil
	}
	const why = "; servers reject it on a counter table"
	if t := b.opts.ttl; t != nil && *t != 0 {
		return b.fail("", RuleCounterTable, "a counter table cannot have a default TTL"+why)
	}
	if b.opts.softDelete != nil {
		return b.fail("", RuleCounterTable, "a counter table cannot use SoftDelete: counters cannot be written with a TTL")
	}
	return b.each(func(c *ColumnSchema, s *fieldSpec) error {
		switch {
		case c.version:
			return b.fail(c.goName, RuleCounterTable, "a counter table cannot have a Version column: counter updates cannot be conditional")
		case (c.createdAt || c.updatedAt) && c.role == RegularColumn:
			return b.fail(c.goName, RuleCounterTable, "a counter table cannot have a non-counter timestamp column"+why)
		case len(s.lookups) > 0:
			return b.fail(c.goName, RuleCounterTable, "a counter table cannot have lookup tables: a lookup row cannot be kept in step with counter increments")
		case c.index:
			return b.fail(c.goName, RuleCounterTable, "a counter table cannot have secondary indexes"+why)
		}
		return nil
	})
}

func (b *builder) checkLookupColumns() error {
	return b.each(func(c *ColumnSchema, s *fieldSpec) error {
		if len(s.lookups) > 0 && c.role != RegularColumn {
			return b.fail(c.goName, RuleLookup, "a "+c.role.String()+" cannot have a lookup table: the lookup table already carries the primary key, so it would declare "+strconv.Quote(c.name)+" twice")
		}
		return nil
	})
}

func (b *builder) checkIndexes() error {
	partitionKeys := 0
	for _, c := range b.cols {
		if c.role == PartitionKeyColumn {
			partitionKeys++
		}
	}
	return b.each(func(c *ColumnSchema, _ *fieldSpec) error {
		if !c.index {
			return nil
		}
		if c.role == PartitionKeyColumn && partitionKeys == 1 {
			return b.fail(c.goName, RuleSecondaryIndex, "a secondary index cannot be on the only partition-key column; servers reject it (query by the key instead)")
		}
		if c.typ.contains(CQLDuration) {
			return b.fail(c.goName, RuleSecondaryIndex, "a secondary index cannot be on a column holding a duration; servers reject it")
		}
		return nil
	})
}

func (b *builder) checkRanges() error {
	o := b.opts
	if o.ttl != nil && (*o.ttl < 0 || *o.ttl > MaxTTL) {
		return b.fail("", RuleOptionRange, "DefaultTTL("+strconv.Itoa(*o.ttl)+") is outside 0.."+strconv.Itoa(MaxTTL)+" seconds")
	}
	if o.gcGrace != nil && (*o.gcGrace < 0 || int64(*o.gcGrace) > 1<<31-1) {
		return b.fail("", RuleOptionRange, "GCGrace("+strconv.Itoa(*o.gcGrace)+") is outside 0..2147483647 seconds")
	}
	if sd := o.softDelete; sd != nil && (sd.ttl < 0 || sd.ttl > MaxTTL) {
		return b.fail("", RuleOptionRange, "SoftDelete TTL "+strconv.Itoa(sd.ttl)+" is outside 0.."+strconv.Itoa(MaxTTL)+" seconds")
	}
	if c := o.cache; c != nil && (c.TTLSeconds < 0 || c.MaxSize < 0) {
		return b.fail("", RuleOptionRange, "CacheResult needs a TTL and a maximum size of at least 0")
	}
	if c := o.read; c != nil && !c.IsValid() {
		return b.fail("", RuleOptionRange, "ReadConsistency is given an unknown level "+c.String())
	}
	if c := o.write; c != nil && !c.IsValid() {
		return b.fail("", RuleOptionRange, "WriteConsistency is given an unknown level "+c.String())
	}
	return nil
}

// assemble orders the columns and builds the immutable TableSchema.
func (b *builder) assemble() *TableSchema {
	t := &TableSchema{
		entity: b.entity, ptrType: reflectx.PointerTypeWord(b.entity),
		name: b.table, cqlName: QuoteIdent(b.table), counter: b.isCounterTable(),
	}
	// One backing array holds the columns in DDL order; the partition and
	// clustering slices are views of it, capped so that nothing can append
	// into a neighbour (the schema is immutable and accessors copy anyway).
	var np, nc int
	for _, c := range b.cols {
		switch c.role {
		case PartitionKeyColumn:
			np++
		case ClusteringKeyColumn:
			nc++
		}
	}
	t.columns = make([]*ColumnSchema, len(b.cols))
	ip, ic, ir := 0, np, np+nc
	for _, c := range b.cols {
		switch c.role {
		case PartitionKeyColumn:
			t.columns[ip] = c
			ip++
		case ClusteringKeyColumn:
			t.columns[ic] = c
			ic++
		default:
			t.columns[ir] = c
			ir++
		}
	}
	t.partition = t.columns[:np:np]
	t.clustering = t.columns[np : np+nc : np+nc]
	byIndex := func(a, b *ColumnSchema) int { return cmp.Compare(a.keyIndex, b.keyIndex) }
	slices.SortStableFunc(t.partition, byIndex)
	slices.SortStableFunc(t.clustering, byIndex)
	for i, c := range t.columns {
		c.position = i
		c.entityPtr, c.entity = t.ptrType, t.entity
		switch {
		case c.createdAt:
			t.createdAt = c
		}
		if c.updatedAt {
			t.updatedAt = c
		}
		if c.version {
			t.version = c
		}
		if c.index {
			t.indexes = append(t.indexes, c)
		}
	}
	for i, c := range b.byField {
		if c == nil {
			continue
		}
		for _, l := range b.specs[i].lookups {
			name := b.lookupName(l)
			lt := &LookupTableSchema{name: name, cqlName: QuoteIdent(name), suffix: l.suffix, index: c,
				partition: t.partition, clustering: t.clustering, consistency: l.consistency}
			c.lookup = lt
			t.lookups = append(t.lookups, lt)
		}
	}
	o := b.opts
	if o.ttl != nil {
		t.ttl, t.hasTTL = *o.ttl, true
	}
	if o.gcGrace != nil {
		t.gcGrace, t.hasGCGrace = *o.gcGrace, true
	}
	if o.read != nil {
		t.read, t.hasRead = *o.read, true
	}
	if o.write != nil {
		t.write, t.hasWrite = *o.write, true
	}
	if o.cache != nil {
		c := *o.cache
		t.cache = &c
	}
	if sd := o.softDelete; sd != nil {
		t.softDelete = &SoftDeleteConfig{TTLSeconds: sd.ttl}
		if b.marker >= 0 {
			t.softDelete.Marker = b.byField[b.marker]
		}
	}
	return t
}
