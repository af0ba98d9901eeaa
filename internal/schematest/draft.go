package schematest

import (
	"reflect"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/dynamic"
)

// The draft: what a Describe call says, before it becomes a dynamic.Spec.
// The oracle reads drafts, never specs, so that its verdicts do not depend
// on how kandra resolves a spec.

type optKind uint8

const (
	oPK optKind = iota
	oCK
	oLookup
	oColumn
	oTransient
	oIndex
	oSensitive
	oAsType
	oStatic
	oMasked
	oFrozen
)

type fieldOpt struct {
	kind       optKind
	index      int
	order      kandra.ClusteringOrder // any value, valid or not
	suffix     string
	lookupKind kandra.LookupKind // any value, valid or not
	name       string
	as         *CQL // AsType's type; nil is the zero CQLType
	ix         ixDraft
	mask       kandra.Mask // Masked's
}

// ixDraft is SecondaryIndex's options: a kind, a target, text analysis.
type ixDraft struct {
	kind                kandra.IndexKind
	target              kandra.IndexTarget // IndexTargetColumn: no target option
	ci, normalize, asci bool
}

func (x ixDraft) analysis() bool { return x.ci || x.normalize || x.asci }

func (x ixDraft) options() []kandra.IndexOption {
	var out []kandra.IndexOption
	switch x.kind {
	case kandra.IndexSAI:
		out = append(out, kandra.UsingSAI())
	case kandra.IndexLegacy:
		out = append(out, kandra.UsingLegacy())
	}
	switch x.target {
	case kandra.IndexTargetValues:
		out = append(out, kandra.IndexValues())
	case kandra.IndexTargetKeys:
		out = append(out, kandra.IndexKeys())
	case kandra.IndexTargetEntries:
		out = append(out, kandra.IndexEntries())
	case kandra.IndexTargetFull:
		out = append(out, kandra.IndexFull())
	}
	if x.ci {
		out = append(out, kandra.SAICaseInsensitive())
	}
	if x.normalize {
		out = append(out, kandra.SAINormalize())
	}
	if x.asci {
		out = append(out, kandra.SAIASCII())
	}
	return out
}

func (o fieldOpt) option() kandra.FieldOption {
	switch o.kind {
	case oPK:
		return kandra.PartitionKey(o.index)
	case oCK:
		return kandra.ClusteringKey(o.index, o.order)
	case oLookup:
		return kandra.Lookup(o.suffix, o.lookupKind)
	case oColumn:
		return kandra.Column(o.name)
	case oTransient:
		return kandra.Transient()
	case oIndex:
		return kandra.SecondaryIndex(o.ix.options()...)
	case oSensitive:
		return kandra.Sensitive()
	case oStatic:
		return kandra.Static()
	case oMasked:
		return kandra.Masked(o.mask)
	case oFrozen:
		return kandra.Frozen()
	}
	return kandra.AsType(kandraType(o.as))
}

// bind is one binding call: options and at most one typed binder's role.
type bind struct {
	opts []fieldOpt
	role dynamic.Role
}

type field struct {
	name     string
	typ      reflect.Type
	snake    string // derived column name
	exported bool
	embedded bool // an embedded Audit
	binds    []bind
}

func (f *field) add(o fieldOpt) {
	if len(f.binds) == 0 {
		f.binds = append(f.binds, bind{})
	}
	f.binds[0].opts = append(f.binds[0].opts, o)
}

func (f *field) setRole(r dynamic.Role) {
	f.binds = append(f.binds, bind{role: r})
}

type tableOptKind uint8

const (
	tTTL tableOptKind = iota
	tGC
	tRead
	tWrite
)

type tableOpt struct {
	kind tableOptKind
	n    int
	m    int64
}

func (o tableOpt) option() kandra.TableOption {
	switch o.kind {
	case tTTL:
		return kandra.DefaultTTL(time.Duration(o.n) * time.Second)
	case tGC:
		return kandra.GCGrace(time.Duration(o.n) * time.Second)
	case tRead:
		return kandra.ReadConsistency(kandra.Consistency(o.n))
	}
	return kandra.WriteConsistency(kandra.Consistency(o.n))
}

type draft struct {
	notStruct  bool
	table      string
	topts      []tableOpt
	softDelete bool
	softTTL    int
	marker     int // index in fields of the soft-delete marker, -1 for none
	fields     []field
	features   []string
	storage    storageDraft
}

// column is a column candidate (a flattened exported field) with the
// options of all its bindings merged.
type column struct {
	field     int // index in draft.fields
	goName    string
	goType    reflect.Type
	snake     string
	embedded  bool // flattened from the embedded Audit
	pk        []int
	ck        []fieldOpt
	lookups   []fieldOpt
	names     []string
	transient bool
	others    int // options and roles other than Transient
	counter   bool
	created   bool
	updated   bool
	version   bool
	index     bool
	ixs       []ixDraft // SecondaryIndex's options, per binding
	sensitive bool
	static    bool
	frozen    bool // Frozen given
	uuidRoles []dynamic.Role
	as        []fieldOpt
	masks     []kandra.Mask // Masked's, per binding
}

func (c *column) isPK() bool  { return len(c.pk) > 0 }
func (c *column) isCK() bool  { return len(c.ck) > 0 && len(c.pk) == 0 }
func (c *column) isKey() bool { return len(c.pk) > 0 || len(c.ck) > 0 }

// name is the column name: the first non-blank Column override, else the
// derived name (a blank override falls back to it).
func (c *column) name() string {
	for _, n := range c.names {
		if strings.TrimSpace(n) != "" {
			return n
		}
	}
	return c.snake
}

// cql is the column's type: COUNTER for a counter, the (last) AsType
// type, or the mapping table's; nil when there is none.
func (c *column) cql() *CQL {
	switch {
	case c.counter:
		return nat("COUNTER")
	case len(c.as) > 0:
		return c.lastAs()
	}
	return CQLOf(c.goType)
}

// frozenCollection reports a column whose type ty (its cql()) is a
// collection declared FROZEN at the top: in a key position, or given
// Frozen (a collection outside the key is frozen only then). Such a
// collection is indexed whole (FULL), never by its parts.
func (c *column) frozenCollection(ty *CQL) bool {
	return ty != nil && ty.IsCollection() && (c.isKey() || c.frozen)
}

// frozenTop reports a column declared FROZEN<...> at the top, as
// kandra.ColumnSchema.IsFrozen documents it: a collection or user-defined
// type in a key position, or given Frozen.
func (c *column) frozenTop(ty *CQL) bool {
	return ty != nil && (ty.IsCollection() || ty.Kind == UDT) && (c.isKey() || c.frozen)
}

// lastAs is the type of the last AsType given: the one that stays.
func (c *column) lastAs() *CQL { return c.as[len(c.as)-1].as }

// twins returns the fields of st whose bindings apply to field i: i itself and,
// when it is zero-size, every field of its type at its offset (a binding
// of one cannot tell them apart, so it binds them all).
func twins(st reflect.Type, i int) []int {
	f := st.Field(i)
	if f.Type.Size() != 0 {
		return []int{i}
	}
	var out []int
	for j := 0; j < st.NumField(); j++ {
		if g := st.Field(j); g.Offset == f.Offset && g.Type == f.Type {
			out = append(out, j)
		}
	}
	return out
}

// columns returns every column candidate in struct order, Transient ones
// included.
func (d *draft) columns() []*column {
	var cols []*column
	st := d.fieldsType()
	for i, f := range d.fields {
		if f.embedded {
			for _, a := range auditColumns {
				cols = append(cols, &column{field: i, goName: a.goName, goType: a.typ, snake: a.name, embedded: true})
			}
			continue
		}
		if !f.exported {
			continue
		}
		c := &column{field: i, goName: f.name, goType: f.typ, snake: f.snake}
		var binds []bind
		for _, j := range twins(st, i) {
			binds = append(binds, d.fields[j].binds...)
		}
		for _, b := range binds {
			for _, o := range b.opts {
				if o.kind != oTransient {
					c.others++
				}
				switch o.kind {
				case oPK:
					c.pk = append(c.pk, o.index)
				case oCK:
					c.ck = append(c.ck, o)
				case oLookup:
					c.lookups = append(c.lookups, o)
				case oColumn:
					c.names = append(c.names, o.name)
				case oTransient:
					c.transient = true
				case oIndex:
					c.index = true
					c.ixs = append(c.ixs, o.ix)
				case oSensitive:
					c.sensitive = true
				case oStatic:
					c.static = true
				case oFrozen:
					c.frozen = true
				case oAsType:
					c.as = append(c.as, o)
				case oMasked:
					c.masks = append(c.masks, o.mask)
				}
			}
			if b.role != dynamic.NoRole {
				c.others++
			}
			switch b.role {
			case dynamic.CreatedAt:
				c.created = true
			case dynamic.UpdatedAt:
				c.updated = true
			case dynamic.Version:
				c.version = true
			case dynamic.Counter:
				c.counter = true
			case dynamic.UUIDTimeOrdered, dynamic.UUIDRandom:
				c.uuidRoles = append(c.uuidRoles, b.role)
			}
		}
		cols = append(cols, c)
	}
	return cols
}

// live returns the columns of the table: the candidates that are not
// Transient.
func (d *draft) live() []*column {
	var out []*column
	for _, c := range d.columns() {
		if !c.transient {
			out = append(out, c)
		}
	}
	return out
}

// lastOpt returns the value of the last table option of kind k.
func (d *draft) lastOpt(k tableOptKind) (tableOpt, bool) {
	var out tableOpt
	found := false
	for _, o := range d.topts {
		if o.kind == k {
			out, found = o, true
		}
	}
	return out, found
}

type lookupKey struct {
	suffix     string
	lookupKind kandra.LookupKind
}

// uniqueLookups drops repeated Lookups: a field bound several times with
// the same Lookup has one lookup table.
func uniqueLookups(ls []fieldOpt) []fieldOpt {
	var out []fieldOpt
	seen := map[lookupKey]bool{}
	for _, l := range ls {
		k := lookupKey{l.suffix, l.lookupKind}
		if !seen[k] {
			seen[k] = true
			out = append(out, l)
		}
	}
	return out
}

// Spec building.

func (d *draft) structType() reflect.Type {
	if d.notStruct {
		return reflect.TypeFor[map[string]int]()
	}
	return d.fieldsType()
}

// fieldsType is the struct type of the draft's fields.
func (d *draft) fieldsType() reflect.Type {
	sfs := make([]reflect.StructField, len(d.fields))
	for i, f := range d.fields {
		sf := reflect.StructField{Name: f.name, Type: f.typ}
		if f.embedded {
			sf.Anonymous = true
		} else if !f.exported {
			sf.PkgPath = pkgPath
		}
		sfs[i] = sf
	}
	return reflect.StructOf(sfs)
}

func (d *draft) spec(t *rapid.T) dynamic.Spec {
	sp := dynamic.Spec{Type: d.structType(), Table: d.table, SoftDelete: d.softDelete, SoftTTL: d.softTTL, MarkerField: d.marker}
	if !d.softDelete {
		sp.MarkerField = -1
	}
	for _, o := range d.topts {
		sp.TableOptions = append(sp.TableOptions, o.option())
	}
	sp.TableOptions = append(sp.TableOptions, d.storage.options()...)
	for i, f := range d.fields {
		for _, b := range f.binds {
			opts := make([]any, len(b.opts))
			for j, o := range b.opts {
				opts[j] = o.option()
			}
			sp.Binds = append(sp.Binds, dynamic.Bind{Field: i, Options: opts, Role: b.role})
		}
	}
	if len(sp.Binds) > 1 && rapid.IntRange(0, 3).Draw(t, "permute binds") == 0 {
		sp.Binds = rapid.Permutation(sp.Binds).Draw(t, "bind order")
	}
	return sp
}
