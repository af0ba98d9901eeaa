package schematest

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/dynamic"
)

// Model is a valid spec with what kandra must make of it, derived from the
// documented rules (DDL order, naming, type mapping).
type Model struct {
	Spec  dynamic.Spec
	Table string
	// Columns in DDL order: partition keys by index, clustering keys by
	// index, then the rest in struct order (embedded fields flattened).
	Columns []ColumnModel
	// Lookups, one per column with a Lookup, in struct order.
	Lookups []LookupModel
	// Indexes are the names of the columns with a secondary index, in DDL
	// column order.
	Indexes []string
	TTL     *int
	GCGrace *int
	// SoftDeleteTTL is the SoftDelete TTL, nil without SoftDelete.
	SoftDeleteTTL *int
	Counter       bool
	// Version reports a Version column.
	Version bool
	// Types are the user-defined types the columns hold, each after the
	// types it holds, in DDL column order.
	Types []string
	// Features are coverage labels: the types and options drawn.
	Features []string
	storage  storageDraft
}

// ColumnModel is a column as the model expects it.
type ColumnModel struct {
	GoName string
	Name   string // raw column name
	// Type is the type as declared in the primary table (frozen in a key
	// position or given Frozen, COUNTER for counters); KeyType as a
	// lookup-table key.
	Type    string
	KeyType string
	// Frozen reports a declaration frozen at the top
	// (kandra.ColumnSchema.IsFrozen): a collection or user-defined type in
	// a key, or given Frozen. A frozen collection's index holds it whole
	// (FULL).
	Frozen   bool
	Role     kandra.KeyRole
	KeyIndex int
	Order    kandra.ClusteringOrder
	Indexed  bool
	// IndexKind is the kind SecondaryIndex asked for, IndexTarget the
	// target option (IndexTargetColumn for none), IndexAnalysis the WITH
	// OPTIONS its analysis options render (nil for none).
	IndexKind     kandra.IndexKind
	IndexTarget   kandra.IndexTarget
	IndexAnalysis map[string]string
	Static        bool
}

// LookupModel is an expected lookup table.
type LookupModel struct {
	Table  string // {table}_{suffix}
	Column string // raw name of the indexed column
	Unique bool   // LookupUnique: its values are claimed by lightweight transactions
}

func (d *draft) model(sp dynamic.Spec) Model {
	m := Model{Spec: sp, Table: d.table, Features: d.features, storage: d.storage}
	var pks, cks, regular []ColumnModel
	types := map[string]*CQL{}
	for _, c := range d.live() {
		ty := c.cql()
		types[c.goName] = ty
		cm := ColumnModel{GoName: c.goName, Name: c.name(), Type: ty.Render(c.frozenTop(ty)), KeyType: ty.Render(true), Frozen: c.frozenTop(ty),
			Indexed: c.index, Static: c.static && !c.isKey()}
		if c.index {
			x := c.ixs[0]
			cm.IndexKind, cm.IndexTarget = x.kind, x.target
			if x.analysis() {
				cm.IndexAnalysis = map[string]string{}
				if x.ci {
					cm.IndexAnalysis["case_sensitive"] = "false"
				}
				if x.normalize {
					cm.IndexAnalysis["normalize"] = "true"
				}
				if x.asci {
					cm.IndexAnalysis["ascii"] = "true"
				}
			}
		}
		switch {
		case c.isPK():
			cm.Role, cm.KeyIndex, cm.Type = kandra.PartitionKeyColumn, c.pk[0], ty.Render(true)
			pks = append(pks, cm)
		case c.isCK():
			cm.Role, cm.KeyIndex, cm.Type, cm.Order = kandra.ClusteringKeyColumn, c.ck[0].index, ty.Render(true), c.ck[0].order
			cks = append(cks, cm)
		default:
			regular = append(regular, cm)
		}
		m.Counter = m.Counter || c.counter
		m.Version = m.Version || c.version
		for _, l := range uniqueLookups(c.lookups) {
			m.Lookups = append(m.Lookups, LookupModel{Table: d.table + "_" + l.suffix, Column: c.name(), Unique: l.lookupKind == kandra.LookupUnique})
		}
	}
	byIndex := func(cs []ColumnModel) {
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].KeyIndex < cs[j].KeyIndex })
	}
	byIndex(pks)
	byIndex(cks)
	m.Columns = append(append(append(m.Columns, pks...), cks...), regular...)
	for _, c := range m.Columns {
		for _, u := range types[c.GoName].udts(nil) {
			if !slices.Contains(m.Types, u) {
				m.Types = append(m.Types, u)
			}
		}
	}
	for _, c := range m.Columns {
		if c.Indexed {
			m.Indexes = append(m.Indexes, c.Name)
		}
	}
	if o, ok := d.lastOpt(tTTL); ok {
		n := o.n
		m.TTL = &n
	}
	if o, ok := d.lastOpt(tGC); ok {
		n := o.n
		m.GCGrace = &n
	}
	if d.softDelete {
		n := d.softTTL
		m.SoftDeleteTTL = &n
	}
	return m
}

// WithTable returns m with the table renamed to table (for sending many
// schemas to one keyspace). The name must be 1 to Room() ASCII letters,
// digits or underscores: every lookup-table and index name then stays
// within the 222 characters of the entity rule invalid-name. Names of up
// to 16 characters always fit, and so does any name no longer than m's
// table name. The targets that accept m (Targets) may change with the
// lengths of the names.
func (m Model) WithTable(table string) Model {
	if len(table) > m.Room() || !nameOK(table) {
		panic("schematest: table name " + strconv.Quote(table) + " is not 1 to " + strconv.Itoa(m.Room()) + " letters, digits or underscores")
	}
	out := m
	out.Spec.Table, out.Table = table, table
	out.Lookups = make([]LookupModel, len(m.Lookups))
	for i, l := range m.Lookups {
		out.Lookups[i] = LookupModel{Table: table + strings.TrimPrefix(l.Table, m.Table), Column: l.Column, Unique: l.Unique}
	}
	return out
}

// Room is the longest table name WithTable takes: the longer of 16 and the
// model's table name.
func (m Model) Room() int { return max(maxTable, len(m.Table)) }

// maxTTLSeconds is kandra.MaxTTL in the seconds the generators count in.
const maxTTLSeconds = int(kandra.MaxTTL / time.Second)
