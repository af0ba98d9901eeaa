package kandra

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kandra-go/kandra/internal/reflectx"
)

// builder turns what Describe collected into a TableSchema. It runs the
// entity rows of ruleTable in order, each check reporting its own rule,
// then assembles the schema. It is used once per type.
type builder struct {
	entity reflect.Type
	name   string // entity type name for errors
	d      describeResult
	fields []reflectx.Field
	specs  []*fieldSpec // per field; nil until bound, then the unbound spec
	table  string
	opts   tableSpec
	marker int // field index of the soft-delete marker, -1 if none
	// cols and byField exist from the first check that reads columns on
	// (see columns): the rules before it decide what a column is.
	cols    []*ColumnSchema
	byField []*ColumnSchema // per field index, nil for excluded fields
}

// describeResult is what a Describe call collected, independent of T.
type describeResult struct {
	probe      any // *T, the value Describe ran on
	tableCalls int
	table      string
	opts       tableSpec
	binds      []bindRecord
}

func (b *builder) fail(field string, rule Rule, detail string) error {
	return &SchemaError{Entity: b.name, Field: field, Rule: rule, Detail: detail}
}

// buildSchema runs describe on a fresh probe value and validates the result.
func buildSchema[T any](describe func(*T, *Schema[T])) (*TableSchema, []Validator[T], error) {
	probe := new(T)
	s := &Schema[T]{}
	if reflect.TypeFor[T]().Kind() == reflect.Struct {
		describe(probe, s)
	}
	ts, err := build(reflect.TypeFor[T](), describeResult{
		probe: probe, tableCalls: s.tableCalls, table: s.tableName, opts: s.tableOpts, binds: s.binds,
	})
	if err != nil {
		return nil, nil, err
	}
	return ts, s.validators, nil
}

// build validates what Describe collected for struct type typ and builds
// the TableSchema. Register and the run-time struct types of the tests
// (internal/dynamic) both come through here.
func build(typ reflect.Type, d describeResult) (*TableSchema, error) {
	b := &builder{entity: typ, name: typ.String(), d: d, table: d.table, opts: d.opts, marker: -1}
	for _, r := range ruleTable {
		if r.entity == nil {
			continue
		}
		if err := r.entity(b); err != nil {
			return nil, err
		}
	}
	return b.assemble(), nil
}

func (b *builder) checkStruct() error {
	if b.entity.Kind() != reflect.Struct {
		return b.fail("", RuleNotStruct, "an entity must be a struct type, not "+b.entity.Kind().String())
	}
	fields, err := reflectx.Fields(b.entity)
	if err != nil {
		path, why := "", err.Error()
		if fe, ok := err.(*reflectx.FlattenError); ok {
			path, why = fe.Path, fe.Reason
		}
		return b.fail(path, RuleNotStruct, why)
	}
	b.fields = fields
	b.specs = make([]*fieldSpec, len(fields))
	return nil
}

func (b *builder) checkDescribe() error {
	// A value receiver runs on a copy of the probe whose address kandra
	// cannot know, so its bindings could only be guessed at; refuse, as
	// ozzo-validation refuses non-pointers.
	if _, ok := b.entity.MethodByName("Describe"); ok {
		return b.fail("", RuleDescribe, "Describe has a value receiver, so its bindings point into a copy; declare it on the pointer: func (e *"+b.entity.Name()+") Describe(s *kandra.Schema["+b.entity.Name()+"])")
	}
	return nil
}

func (b *builder) checkTable() error {
	if b.d.tableCalls == 0 {
		return b.fail("", RuleTableMissing, "Describe must name the table with s.Table(name)")
	}
	if strings.TrimSpace(b.table) == "" {
		return b.fail("", RuleTableMissing, "the table name given to s.Table is blank")
	}
	return nil
}

// fieldAt returns the index of the field that ptr (a pointer of type typ)
// addresses in the probe, or -1, and the offset it lies at (ok false when
// it lies outside the probe).
func (b *builder) fieldAt(ptr any, typ reflect.Type) (idx int, off uintptr, ok bool) {
	off, ok = reflectx.OffsetIn(b.d.probe, ptr, b.entity.Size())
	if !ok {
		return -1, 0, false
	}
	for i, f := range b.fields {
		// Match the type too: an embedded struct and its first field share
		// an offset, and so do zero-size fields.
		if f.Offset == off && f.Type == typ {
			return i, off, true
		}
	}
	return -1, off, true
}

// checkBindings maps every bound pointer to its field and applies the
// binding's options to the field's spec.
func (b *builder) checkBindings() error {
	for _, r := range b.d.binds {
		idx, off, inside := b.fieldAt(r.ptr, r.typ)
		if !inside {
			return b.fail("", RuleBinding, "a *"+r.typ.String()+" binding is not the address of a field of the entity Describe was called on (use &e.Field on Describe's receiver)")
		}
		if idx < 0 {
			what := describeOffset(b.entity, off)
			return b.fail(what, RuleBinding, "the binding points to "+what+", which cannot be a column: it is unexported or inside a non-embedded struct")
		}
		for _, i := range b.twins(idx) {
			spec := b.specs[i]
			if spec == nil {
				spec = new(fieldSpec)
				b.specs[i] = spec
			}
			for _, o := range r.opts {
				if o != nil {
					o.applyField(spec)
				}
			}
			if r.role != nil {
				r.role.applyField(spec)
			}
		}
	}
	return nil
}

// twins returns field idx and, when it is zero-size, every other field of
// its type at its offset: their addresses are equal, so a binding cannot
// tell them apart and binds them all (two struct{} fields bound Transient
// are both excluded).
func (b *builder) twins(idx int) []int {
	f := b.fields[idx]
	if f.Type.Size() != 0 {
		return []int{idx}
	}
	var out []int
	for i, g := range b.fields {
		if g.Offset == f.Offset && g.Type == f.Type {
			out = append(out, i)
		}
	}
	return out
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

func (b *builder) checkConflicts() error {
	if b.d.tableCalls > 1 {
		return b.fail("", RuleConflictingOptions, "s.Table is called "+strconv.Itoa(b.d.tableCalls)+" times; call it once with every table option")
	}
	if len(b.opts.conflicts) > 0 {
		return b.fail("", RuleConflictingOptions, b.opts.conflicts[0])
	}
	for i, s := range b.specs {
		if s == nil {
			continue
		}
		if detail := s.conflict(); detail != "" {
			return b.fail(b.fields[i].Path, RuleConflictingOptions, detail)
		}
		s.lookups = distinct(s.lookups) // the same Lookup bound twice is one lookup table
		for j := range s.lookups {
			s.lookups[j].name = b.table + "_" + s.lookups[j].suffix
		}
	}
	return nil
}

// conflict says which of the field's options contradict each other, or ""
// when they agree. Every pair of options is either meaningful together or
// refused here (or by a later rule that says why a server refuses it);
// TestOptionPairs goes through every pair.
func (s *fieldSpec) conflict() string {
	if len(s.conflicts) > 0 {
		return s.conflicts[0]
	}
	if s.transient {
		for _, o := range s.given {
			if o != "Transient" {
				return "Transient excludes the field from the table; it cannot also take " + o
			}
		}
	}
	if p := distinct(s.partition); len(p) > 1 {
		return "PartitionKey is given twice, with indexes " + strconv.Itoa(p[0]) + " and " + strconv.Itoa(p[1])
	}
	if c := distinct(s.clustering); len(c) > 1 {
		return "ClusteringKey is given twice with different index or order"
	}
	if n := distinct(nonBlank(s.names)); len(n) > 1 {
		return "Column gives two names, " + strconv.Quote(n[0]) + " and " + strconv.Quote(n[1])
	}
	if l := distinct(s.lookups); len(l) > 1 {
		return "Lookup is given twice with different suffix or kind; a field has at most one lookup table"
	}
	key := len(s.partition) > 0 || len(s.clustering) > 0
	switch {
	case s.createdAt && s.updatedAt:
		return "CreatedAt and UpdatedAt contradict each other: one is stamped once, the other on every write; bind two fields"
	case s.version && (s.createdAt || s.updatedAt):
		return "a Version column holds the optimistic-lock value the runtime sets; it cannot also be a CreatedAt or UpdatedAt timestamp"
	case s.version && s.counter:
		return "a Version column is written with a condition and a Counter column only by increments; a field cannot be both"
	case key && s.updatedAt:
		return "UpdatedAt is stamped on every update, but a primary-key column can never be updated; stamp a regular column"
	case key && s.version:
		return "a Version column changes on every update, but a primary-key column can never be updated; use a regular column"
	case key && s.static:
		return "a static column holds one value per partition, outside the primary key; a key column cannot be static"
	case s.generated && s.hasAsType && !s.asType.Equal(CQLUUID):
		return "a GeneratedUUID column holds UUIDv7 or UUIDv4 ids, so its type is UUID; AsType(" + s.asType.brief() + ") cannot hold them (a TIMEUUID column accepts only version-1 ids)"
	case s.counter && s.hasAsType:
		return "a Counter column's type is COUNTER; AsType cannot change it"
	case s.version && s.hasAsType:
		return "a Version column must keep its exact type (BIGINT, or TIMESTAMP for a time.Time), or two versions could compare equal; AsType(" + s.asType.brief() + ") cannot change it"
	case (s.createdAt || s.updatedAt) && s.hasAsType && !sameType(s.asType, CQLTimestamp) && !sameType(s.asType, CQLDate):
		return "a CreatedAt or UpdatedAt column is a point in time, TIMESTAMP or DATE; AsType(" + s.asType.brief() + ") cannot hold it"
	}
	return ""
}

func distinct[E comparable](xs []E) []E {
	var out []E
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func nonBlank(names []string) []string {
	var out []string
	for _, n := range names {
		if strings.TrimSpace(n) != "" {
			out = append(out, n)
		}
	}
	return out
}

// columns returns the columns in struct order, creating them on first use:
// one for every field that is not Transient. Types are resolved later
// (checkTypes), so that a field of an unsupported type is reported under
// the rules checked before RuleUnsupportedType when it breaks one of them
// too, in ruleTable's order.
func (b *builder) columns() []*ColumnSchema {
	if b.byField != nil {
		return b.cols
	}
	b.byField = make([]*ColumnSchema, len(b.fields))
	for i, f := range b.fields {
		s := b.specs[i]
		if s == nil {
			s = new(fieldSpec)
			b.specs[i] = s
		}
		if s.transient {
			continue
		}
		name := SnakeCase(f.Name)
		if n := nonBlank(s.names); len(n) > 0 {
			name = n[0]
		}
		c := &ColumnSchema{
			goName: f.Path, name: name, cqlName: QuoteIdent(name), goType: f.Type, offset: f.Offset,
			ptrType: reflectx.PointerWordOf(f.Type), columnFlags: s.columnFlags,
		}
		if len(s.partition) > 0 {
			c.role, c.keyIndex = PartitionKeyColumn, s.partition[0]
		} else if len(s.clustering) > 0 {
			c.role, c.keyIndex, c.order = ClusteringKeyColumn, s.clustering[0].index, s.clustering[0].order
		}
		b.cols = append(b.cols, c)
		b.byField[i] = c
	}
	return b.cols
}

// each calls fn for every column with its spec, in struct order, and stops
// at the first error.
// allLookups is every lookup the fields declare.
func (b *builder) allLookups() []lookupSpec {
	var out []lookupSpec
	for _, s := range b.specs {
		if s != nil {
			out = append(out, s.lookups...)
		}
	}
	return out
}

func (b *builder) each(fn func(c *ColumnSchema, s *fieldSpec) error) error {
	b.columns()
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

func (b *builder) checkHasPartitionKey() error {
	for _, c := range b.columns() {
		if c.role == PartitionKeyColumn {
			return nil
		}
	}
	return b.fail("", RuleNoPartitionKey, "no field is a partition key; bind one with kandra.PartitionKey(0)")
}

func (b *builder) checkPartitionIndexes() error {
	seen := map[int]*ColumnSchema{}
	for _, c := range b.columns() {
		if c.role != PartitionKeyColumn {
			continue
		}
		if prev, ok := seen[c.keyIndex]; ok {
			return b.fail(c.goName, RuleDuplicatePartitionIndex, "PartitionKey("+strconv.Itoa(c.keyIndex)+") is also given to "+prev.goName+"; give each partition-key component its own index")
		}
		seen[c.keyIndex] = c
	}
	return nil
}

func (b *builder) checkLookupNames() error {
	seen := map[string]string{}
	return b.each(func(c *ColumnSchema, s *fieldSpec) error {
		for _, l := range s.lookups {
			if prev, ok := seen[l.name]; ok {
				return b.fail(c.goName, RuleDuplicateLookupTable, "its lookup table "+strconv.Quote(l.name)+" is also the lookup table of "+prev)
			}
			seen[l.name] = c.goName
		}
		return nil
	})
}

func (b *builder) checkCounterMix() error {
	var counter, plain *ColumnSchema
	for _, c := range b.columns() {
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

// checkTimestamps allows one CreatedAt and one UpdatedAt over the whole
// entity.
func (b *builder) checkTimestamps() error {
	var created, updated *ColumnSchema
	for _, c := range b.columns() {
		switch {
		case c.createdAt && created != nil:
			return b.fail(c.goName, RuleDuplicateTimestamp, "CreatedAt is already bound to "+created.goName+"; an entity has at most one")
		case c.updatedAt && updated != nil:
			return b.fail(c.goName, RuleDuplicateTimestamp, "UpdatedAt is already bound to "+updated.goName+"; an entity has at most one")
		case c.createdAt:
			created = c
		case c.updatedAt:
			updated = c
		}
	}
	return nil
}

func (b *builder) checkVersion() error {
	var version *ColumnSchema
	for _, c := range b.columns() {
		if !c.version {
			continue
		}
		if version != nil {
			return b.fail(c.goName, RuleDuplicateVersion, "Version is already bound to "+version.goName+"; an entity has at most one")
		}
		version = c
	}
	return nil
}

// checkSoftDeleteMarker resolves SoftDelete's marker to its column.
func (b *builder) checkSoftDeleteMarker() error {
	sd := b.opts.softDelete
	if sd == nil || sd.marker == nil {
		return nil
	}
	idx, off, inside := b.fieldAt(sd.marker, typeBool)
	switch {
	case !inside:
		return b.fail("", RuleSoftDeleteMarker, "the soft-delete marker is not the address of a bool field of the entity Describe was called on")
	case idx < 0:
		what := describeOffset(b.entity, off)
		return b.fail(what, RuleSoftDeleteMarker, "the soft-delete marker must be an exported bool field that is a column; "+what+" is not one (unexported, or inside a non-embedded struct)")
	}
	c := b.byField[idx]
	switch {
	case c == nil:
		return b.fail(b.fields[idx].Path, RuleSoftDeleteMarker, "the soft-delete marker is Transient; it must be a column, or no query could see it")
	case c.role != RegularColumn:
		return b.fail(c.goName, RuleSoftDeleteMarker, "the soft-delete marker is a "+c.role.String()+"; a soft delete sets it to true, and a key column can never be updated")
	}
	if s := b.specs[idx]; s.hasAsType && !sameType(s.asType, CQLBoolean) {
		return b.fail(c.goName, RuleSoftDeleteMarker, "the soft-delete marker is a BOOLEAN, which the runtime sets to true; AsType("+s.asType.brief()+") cannot change it")
	}
	b.marker = idx
	c.softDeleteMarker = true
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
	if p := nameCharsProblem(b.table); p != "" {
		return b.fail("", RuleInvalidName, "table name "+strconv.Quote(b.table)+" "+p)
	}
	return b.each(func(c *ColumnSchema, s *fieldSpec) error {
		switch {
		case !utf8.ValidString(c.name):
			return b.fail(c.goName, RuleInvalidName, "column name "+strconv.Quote(c.name)+" is not valid UTF-8")
		case len(c.name) > MaxColumnNameBytes:
			return b.fail(c.goName, RuleInvalidName, "column name is "+strconv.Itoa(len(c.name))+" bytes long; the limit is "+strconv.Itoa(MaxColumnNameBytes)+" (MaxColumnNameBytes): past 65,535 the native protocol cannot carry it")
		case c.name == lwtAppliedColumn:
			return b.fail(c.goName, RuleInvalidName, "column name \"[applied]\" is the column servers add to the result of a lightweight transaction, so it could not be read back; rename it with kandra.Column")
		}
		for _, l := range s.lookups {
			if strings.TrimSpace(l.suffix) == "" {
				return b.fail(c.goName, RuleInvalidName, "the lookup suffix is blank")
			}
			if p := nameCharsProblem(l.name); p != "" {
				return b.fail(c.goName, RuleInvalidName, "lookup table name "+strconv.Quote(l.name)+" "+p)
			}
		}
		if c.index {
			if n := c.indexName(b.table); nameCharsProblem(n) != "" {
				return b.fail(c.goName, RuleInvalidName, "secondary index name "+strconv.Quote(n)+" "+nameCharsProblem(n)+map[bool]string{false: "; shorten the table or column name, or name the index with kandra.IndexNamed", true: "; give kandra.IndexNamed a name of ASCII letters, digits and _"}[c.indexOpts.name != ""])
			}
		}
		return nil
	})
}

// MaxColumnNameBytes is the longest column name kandra accepts, in bytes.
// The native protocol writes names with a 16-bit length, so a name past
// 65,535 bytes breaks the connection. Long names also swell the schema
// mutation, about three bytes per byte of name, which RuleSchemaSize holds
// to MaxSchemaMutationBytes. No real schema comes close.
const MaxColumnNameBytes = 1024

// lwtAppliedColumn is the column a server adds to the rows a lightweight
// transaction returns.
const lwtAppliedColumn = "[applied]"

func (b *builder) checkDuplicateColumns() error {
	seen := make(map[string]*ColumnSchema, len(b.columns()))
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
	for _, c := range b.columns() {
		if c.role != ClusteringKeyColumn {
			continue
		}
		if prev, ok := seen[c.keyIndex]; ok {
			return b.fail(c.goName, RuleDuplicateClusteringIndex, "ClusteringKey("+strconv.Itoa(c.keyIndex)+", ...) is also given to "+prev.goName+"; give each clustering column its own index")
		}
		seen[c.keyIndex] = c
	}
	return nil
}

func (b *builder) checkTypes() error {
	return b.each(func(c *ColumnSchema, s *fieldSpec) error {
		switch {
		case s.counter:
			c.typ = cqlCounter
		case s.hasAsType:
			if p := overrideProblem(s.asType); p != "" {
				return b.fail(c.goName, RuleUnsupportedType, "AsType("+s.asType.brief()+"): "+p)
			}
			if p := overridePairProblem(c.goType, s.asType); p != "" {
				return b.fail(c.goName, RuleUnsupportedType, "AsType("+s.asType.brief()+"): "+p)
			}
			c.typ = s.asType
		default:
			t, problem := goToCQL(c.goType)
			if problem != "" {
				return b.fail(c.goName, RuleUnsupportedType, problem+"; exclude the field with kandra.Bind(s, &e."+c.goName+", kandra.Transient()) or give it a CQL type with kandra.AsType(...)")
			}
			c.typ = t
		}
		c.check = planCheck(c.goType, c.typ, true)
		c.planParts()
		if c.index && c.indexOpts.kind == IndexVector && c.typ.Kind() == KindVector {
			c.check = vectorCheck(c.indexOpts.similarity)
		}
		if c.typ.Kind() == KindUDT && c.role == RegularColumn && !s.frozen && c.goType.Kind() == reflect.Pointer {
			c.check = allNullCheck(c.typ, c.check)
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

// checkStatic refuses what servers or the runtime cannot do with a static
// column: one in a table without clustering columns (servers: "Static
// columns are only useful (and thus allowed) if the table has at least one
// clustering column"), a per-row role on one, and a table whose non-key
// columns are all static, whose rows could not be updated by key ("Invalid
// restrictions on clustering columns since the UPDATE statement modifies
// only static columns").
func (b *builder) checkStatic() error {
	clustering, statics, regular := 0, 0, 0
	for _, c := range b.columns() {
		switch {
		case c.role == ClusteringKeyColumn:
			clustering++
		case c.role == RegularColumn && c.static:
			statics++
		case c.role == RegularColumn:
			regular++
		}
	}
	if statics == 0 {
		return nil
	}
	err := b.each(func(c *ColumnSchema, s *fieldSpec) error {
		if !c.static {
			return nil
		}
		why := ""
		switch {
		case clustering == 0:
			return b.fail(c.goName, RuleStatic, "a static column is shared by the rows of a partition, and this table has no clustering columns, so each partition is one row (servers refuse it: \"Static columns are only useful (and thus allowed) if the table has at least one clustering column\"); drop Static, or add a ClusteringKey")
		case len(s.lookups) > 0:
			why = "a lookup table maps a value to one row's key, and a static column's value belongs to every row of its partition"
		case c.createdAt:
			why = "CreatedAt is stamped when a row is first written, and a static column is shared by every row of the partition"
		case c.version:
			why = "a Version column guards one row's updates, and a static column is shared by every row of the partition"
		case c.softDeleteMarker:
			why = "the soft-delete marker records one row's deletion, and a static column is shared by every row of the partition"
		case c.generated:
			why = "GeneratedUUID fills one row's id on insert, and a static column is shared by every row of the partition"
		default:
			return nil
		}
		return b.fail(c.goName, RuleStatic, why+"; drop Static, or use a regular column")
	})
	if err != nil {
		return err
	}
	if regular == 0 {
		for _, c := range b.columns() {
			if c.static {
				return b.fail(c.goName, RuleStatic, "every non-key column of the table is static, so a row holds nothing but its key and cannot be updated by it (servers refuse an UPDATE of only static columns that names the clustering columns); add a regular column, or make one of these regular")
			}
		}
	}
	return nil
}

func (b *builder) isCounterTable() bool {
	return slices.ContainsFunc(b.columns(), func(c *ColumnSchema) bool { return c.counter })
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
	partitionKeys := 0
	for _, c := range b.columns() {
		if c.role == PartitionKeyColumn {
			partitionKeys++
		}
	}
	return b.each(func(c *ColumnSchema, s *fieldSpec) error {
		if len(s.lookups) > 0 && c.role == PartitionKeyColumn && partitionKeys == 1 {
			return b.fail(c.goName, RuleLookup, "the only partition-key column cannot have a lookup table: a lookup by it is a read of its partition; query by the key instead")
		}
		if c.role != RegularColumn && c.name == ClaimColumn {
			for _, l := range b.allLookups() {
				if l.kind == LookupUnique {
					return b.fail(c.goName, RuleLookup, "key column "+strconv.Quote(c.name)+" has the name of a unique lookup table's claim column; rename it (kandra.Column)")
				}
			}
		}
		return nil
	})
}

func (b *builder) checkIndexes() error {
	partitionKeys := 0
	for _, c := range b.columns() {
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
		if c.typ.IsCollection() && strings.ContainsAny(c.name, lineTerminators) {
			return b.fail(c.goName, RuleSecondaryIndex, "a secondary index on a collection column cannot have a line break in the column's name ("+strconv.Quote(c.name)+"): Cassandra writes the target as values(name) or full(name) and cannot parse it back (\"Unable to parse targets for index\"); rename the column with Column(...)")
		}
		if p := c.indexTargetProblem(); p != "" {
			return b.fail(c.goName, RuleSecondaryIndex, p)
		}
		return nil
	})
}

func (b *builder) checkSAI() error {
	return b.each(func(c *ColumnSchema, _ *fieldSpec) error {
		if !c.index {
			return nil
		}
		if c.indexOpts.kind == IndexSAI {
			if p := c.saiProblem(); p != "" {
				return b.fail(c.goName, RuleSAI, "the index is an SAI index (UsingSAI) on "+c.typ.brief()+", and "+p+"; or give it kandra.UsingLegacy()")
			}
		}
		if p := c.analysisProblem(); p != "" {
			return b.fail(c.goName, RuleSAI, p)
		}
		return nil
	})
}

// checkVectors refuses a vector where kandra does not take one, and an
// index on a vector other than VectorIndex. A vector in a primary key or
// lookup is refused though Cassandra takes it: a float vector as an
// identity compares by its bytes, so -0 and 0, or two NaNs, are other keys
// than they look.
func (b *builder) checkVectors() error {
	return b.each(func(c *ColumnSchema, s *fieldSpec) error {
		if c.typ.Kind() == KindVector {
			switch {
			case c.role != RegularColumn:
				return b.fail(c.goName, RuleVector, "a vector cannot be a "+c.role.String()+" in kandra: a float vector compares by its bytes, so -0 and 0 or two NaNs are different keys; key the row by an id and keep the vector a regular column")
			case len(s.lookups) > 0:
				return b.fail(c.goName, RuleVector, "a vector cannot have a lookup table: it would be the lookup table's key; read it with VectorIndex and Index.Nearest")
			}
		}
		if c.index {
			if p := c.vectorIndexProblem(); p != "" {
				return b.fail(c.goName, RuleVector, p)
			}
		}
		return nil
	})
}

// lineTerminators are the characters Java's regular expressions end a
// line at, which Cassandra's index target parser ('.' without DOTALL)
// does not match.
const lineTerminators = "\n\r\u0085\u2028\u2029"

// maxGCGrace is the largest gc_grace_seconds: the servers keep it in a
// 32-bit int.
const maxGCGrace = (1<<31 - 1) * time.Second

// checkSeconds refuses a duration option the servers cannot hold exactly:
// negative, past max, or not a whole number of seconds (the CQL options
// count seconds; rounding would change what the user asked for).
func (b *builder) checkSeconds(what string, d, max time.Duration) error {
	switch {
	case d < 0 || d > max:
		return b.fail("", RuleOptionRange, fmt.Sprintf("%s %v is outside 0..%v (%d s)", what, d, max, max/time.Second))
	case d%time.Second != 0:
		return b.fail("", RuleOptionRange, fmt.Sprintf("%s %v is not a whole number of seconds, which is what CQL stores; use %v", what, d, d.Truncate(time.Second)))
	}
	return nil
}

// checkOptionValues checks that every option value is in its range: the
// table's numbers and levels, and every enum a field option carries, so
// that no invalid value is kept or silently rendered as a valid one.
func (b *builder) checkOptionValues() error {
	o := b.opts
	if o.ttl != nil {
		if err := b.checkSeconds("DefaultTTL", *o.ttl, MaxTTL); err != nil {
			return err
		}
	}
	if o.gcGrace != nil {
		if err := b.checkSeconds("GCGrace", *o.gcGrace, maxGCGrace); err != nil {
			return err
		}
	}
	if sd := o.softDelete; sd != nil {
		if err := b.checkSeconds("the SoftDelete TTL", sd.ttl, MaxTTL); err != nil {
			return err
		}
	}
	if c := o.read; c != nil && !c.IsValid() {
		return b.fail("", RuleOptionRange, "ReadConsistency is given an unknown level "+c.String())
	}
	if c := o.write; c != nil && !c.IsValid() {
		return b.fail("", RuleOptionRange, "WriteConsistency is given an unknown level "+c.String())
	}
	if p := o.storage.problem(); p != "" {
		return b.fail("", RuleOptionRange, p)
	}
	return b.each(func(c *ColumnSchema, s *fieldSpec) error {
		for _, cl := range s.clustering {
			if !cl.order.IsValid() {
				return b.fail(c.goName, RuleOptionRange, "ClusteringKey is given "+cl.order.String()+"; use kandra.ClusteringAsc or kandra.ClusteringDesc")
			}
		}
		for _, l := range s.lookups {
			if !l.kind.IsValid() {
				return b.fail(c.goName, RuleOptionRange, "Lookup is given "+l.kind.String()+"; use kandra.LookupBatch, kandra.LookupEventual or kandra.LookupUnique")
			}
		}
		if s.generated && !s.uuid.IsValid() {
			return b.fail(c.goName, RuleOptionRange, "GeneratedUUID is given "+s.uuid.String()+"; use kandra.UUIDTimeOrdered or kandra.UUIDRandom")
		}
		return nil
	})
}

// assemble orders the columns and builds the immutable TableSchema.
func (b *builder) assemble() *TableSchema {
	t := &TableSchema{
		entity: b.entity, ptrType: reflectx.PointerWordOf(b.entity),
		name: b.table, cqlName: QuoteIdent(b.table), counter: b.isCounterTable(),
	}
	// Columns in DDL order: partition keys by index, clustering keys by
	// index, then the rest in struct order.
	byRole := func(r KeyRole) []*ColumnSchema {
		var out []*ColumnSchema
		for _, c := range b.cols {
			if c.role == r {
				out = append(out, c)
			}
		}
		slices.SortStableFunc(out, func(x, y *ColumnSchema) int { return cmp.Compare(x.keyIndex, y.keyIndex) })
		return out
	}
	t.partition = byRole(PartitionKeyColumn)
	t.clustering = byRole(ClusteringKeyColumn)
	t.columns = slices.Concat(t.partition, t.clustering, byRole(RegularColumn))
	for i, c := range t.columns {
		c.position, c.table = i, t
		if c.createdAt {
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
			lt := &LookupTableSchema{name: l.name, cqlName: QuoteIdent(l.name), suffix: l.suffix, index: c,
				partition: t.partition, clustering: t.clustering, kind: l.kind}
			c.lookup = lt
			t.lookups = append(t.lookups, lt)
		}
	}
	o := b.opts
	if o.ttl != nil {
		t.ttl, t.hasTTL = int(*o.ttl/time.Second), true
	}
	if o.gcGrace != nil {
		t.gcGrace, t.hasGCGrace = int(*o.gcGrace/time.Second), true
	}
	if o.read != nil {
		t.read, t.hasRead = *o.read, true
	}
	if o.write != nil {
		t.write, t.hasWrite = *o.write, true
	}
	t.omitNulls = o.omitNulls
	t.storage = o.storage // the spec is Describe's own; StorageOptions hands out copies
	if sd := o.softDelete; sd != nil {
		t.softDelete = &SoftDeleteConfig{TTL: sd.ttl}
		if b.marker >= 0 {
			t.softDelete.Marker = b.byField[b.marker]
		}
	}
	return t
}
