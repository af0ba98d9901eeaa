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

// Invalid drafts: a valid draft with one or more mutations applied, each
// meant to break one rule. Which rules the result breaks is still the
// oracle's decision: mutations combine, and may break other rules too.

// Invalid is a spec that breaks at least one rule.
type Invalid struct {
	Spec dynamic.Spec
	// Rule is the rule the builder must report: the first of Broken in
	// kandra.Rules() order ("" when Broken is empty, which only Mutate
	// returns, and only for a broken mutation).
	Rule kandra.Rule
	// Broken are all the rules the spec breaks, in order.
	Broken []kandra.Rule
	// Mutations name what was done to a valid spec, and Targets the rule
	// each of them means to break.
	Mutations []string
	Targets   []kandra.Rule
}

type mutation struct {
	name   string
	target kandra.Rule
	apply  func(g *gen) bool // false when it does not apply to this draft
}

// pickColumn draws one of the live columns that satisfy ok.
func (g *gen) pickColumn(label string, ok func(c *column) bool) *column {
	var cands []*column
	for _, c := range g.d.live() {
		if !c.embedded && ok(c) {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	return rapid.SampledFrom(cands).Draw(g.t, label)
}

func anyColumn(*column) bool { return true }

func notRenamed(c *column) bool { return len(nonBlank(c.names)) == 0 }

// setOption replaces the table options of o's kind with o.
func (d *draft) setOption(o tableOpt) {
	var keep []tableOpt
	for _, x := range d.topts {
		if x.kind != o.kind {
			keep = append(keep, x)
		}
	}
	d.topts = append(keep, o)
}

func (g *gen) freshIndex(ck bool) int {
	used := map[int]bool{}
	for _, c := range g.d.live() {
		for _, i := range c.pk {
			if !ck {
				used[i] = true
			}
		}
		for _, o := range c.ck {
			if ck {
				used[o.index] = true
			}
		}
	}
	for i := 0; ; i++ {
		if !used[i] {
			return i
		}
	}
}

func (g *gen) pkCount() int {
	n := 0
	for _, c := range g.d.live() {
		if c.isPK() {
			n++
		}
	}
	return n
}

func (g *gen) isCounterTable() bool {
	for _, c := range g.d.live() {
		if c.counter {
			return true
		}
	}
	return false
}

// roleField adds a field of a Go type role's typed binder takes, with the
// role: a wrong-typed role does not compile through the typed API, and
// internal/dynamic panics on one.
func (g *gen) roleField(r dynamic.Role) int {
	typ := tInt64
	switch r {
	case dynamic.CreatedAt, dynamic.UpdatedAt:
		typ = tTime
	case dynamic.Version:
		typ = rapid.SampledFrom([]reflect.Type{tInt64, tTime}).Draw(g.t, "version type")
	case dynamic.UUIDTimeOrdered, dynamic.UUIDRandom:
		typ = tUUID
	}
	i := g.addField(typ)
	g.d.fields[i].setRole(r)
	return i
}

var allRoles = []dynamic.Role{dynamic.CreatedAt, dynamic.UpdatedAt, dynamic.Version, dynamic.Counter, dynamic.UUIDTimeOrdered, dynamic.UUIDRandom}

// Binding an unexported field (binding) and an unexported soft-delete
// marker (soft-delete-marker) are not among the mutations: both are legal
// through the typed API, but internal/dynamic takes field addresses with
// reflect.Value.Interface, which panics on unexported fields. A non-bool or
// embedded marker, and a role on a field of the wrong type, do not compile
// through the typed API, so they are not mutations either. An invalid
// UUIDStrategy (option-range) cannot be expressed by a dynamic.Role.
var mutations = []mutation{
	{"not a struct", kandra.RuleNotStruct, func(g *gen) bool { g.d.notStruct = true; return true }},
	{"table missing", kandra.RuleTableMissing, func(g *gen) bool {
		g.d.table = rapid.SampledFrom([]string{"", " ", "\t \n"}).Draw(g.t, "blank table")
		return true
	}},
	{"bind the embedded struct", kandra.RuleBinding, func(g *gen) bool {
		i := g.addEmbedded()
		g.d.fields[i].add(rapid.SampledFrom([]fieldOpt{{kind: oSensitive}, {kind: oColumn, name: "audit"}, {kind: oTransient}}).Draw(g.t, "option"))
		return true
	}},
	{"table option twice", kandra.RuleConflictingOptions, func(g *gen) bool {
		k := rapid.SampledFrom([]tableOptKind{tTTL, tGC, tRead, tWrite}).Draw(g.t, "option kind")
		a := rapid.IntRange(0, 10).Draw(g.t, "first value")
		g.d.topts = append(g.d.topts, tableOpt{kind: k, n: a, m: 1}, tableOpt{kind: k, n: a + 1, m: 1})
		return true
	}},
	{"partition key twice", kandra.RuleConflictingOptions, func(g *gen) bool {
		c := g.pickColumn("column", anyColumn)
		if c == nil {
			return false
		}
		i := rapid.IntRange(0, 5).Draw(g.t, "index")
		g.d.fields[c.field].add(fieldOpt{kind: oPK, index: i})
		g.d.fields[c.field].add(fieldOpt{kind: oPK, index: i + 1})
		return true
	}},
	{"clustering key twice", kandra.RuleConflictingOptions, func(g *gen) bool {
		c := g.pickColumn("column", anyColumn)
		if c == nil {
			return false
		}
		i := rapid.IntRange(0, 5).Draw(g.t, "index")
		g.d.fields[c.field].add(fieldOpt{kind: oCK, index: i, order: kandra.ClusteringAsc})
		g.d.fields[c.field].add(fieldOpt{kind: oCK, index: i, order: kandra.ClusteringDesc})
		return true
	}},
	{"two column names", kandra.RuleConflictingOptions, func(g *gen) bool {
		c := g.pickColumn("column", anyColumn)
		if c == nil {
			return false
		}
		g.d.fields[c.field].add(fieldOpt{kind: oColumn, name: "first_name"})
		g.d.fields[c.field].add(fieldOpt{kind: oColumn, name: "second_name"})
		return true
	}},
	{"two lookups on a field", kandra.RuleConflictingOptions, func(g *gen) bool {
		c := g.pickColumn("column", anyColumn)
		if c == nil {
			return false
		}
		g.d.fields[c.field].add(fieldOpt{kind: oLookup, suffix: "by_one", lookupKind: kandra.LookupBatch})
		g.d.fields[c.field].add(fieldOpt{kind: oLookup, suffix: "by_one", lookupKind: kandra.LookupEventual})
		return true
	}},
	{"transient with another option", kandra.RuleConflictingOptions, func(g *gen) bool {
		if rapid.IntRange(0, 4).Draw(g.t, "transient role") == 0 {
			i := g.roleField(rapid.SampledFrom(allRoles).Draw(g.t, "role"))
			g.d.fields[i].add(fieldOpt{kind: oTransient})
			return true
		}
		c := g.pickColumn("column", anyColumn)
		if c == nil {
			return false
		}
		f := &g.d.fields[c.field]
		f.add(fieldOpt{kind: oTransient})
		switch rapid.IntRange(0, 8).Draw(g.t, "other option") {
		case 0:
			f.add(fieldOpt{kind: oPK, index: g.freshIndex(false)})
		case 1:
			f.add(fieldOpt{kind: oCK, index: g.freshIndex(true)})
		case 2:
			f.add(fieldOpt{kind: oLookup, suffix: "by_transient"})
		case 3:
			f.add(fieldOpt{kind: oIndex})
		case 4:
			f.add(fieldOpt{kind: oColumn, name: "renamed"})
		case 5:
			f.add(fieldOpt{kind: oAsType, as: nat("TEXT")})
		case 6:
			// Harmless on a column, but there is no column to mark.
			f.add(fieldOpt{kind: oSensitive})
		case 7:
			// Also on a collection, where it is a column's option.
			f.add(fieldOpt{kind: oFrozen})
		default:
			// A blank name falls back to the derived one: still an option.
			f.add(fieldOpt{kind: oColumn, name: " "})
		}
		return true
	}},
	{"counter with AsType", kandra.RuleConflictingOptions, func(g *gen) bool {
		i := g.roleField(dynamic.Counter)
		g.d.fields[i].add(fieldOpt{kind: oAsType, as: nat("BIGINT")})
		return true
	}},
	{"two uuid strategies", kandra.RuleConflictingOptions, func(g *gen) bool {
		i := g.roleField(dynamic.UUIDTimeOrdered)
		g.d.fields[i].setRole(dynamic.UUIDRandom)
		return true
	}},
	{"generated uuid with AsType", kandra.RuleConflictingOptions, func(g *gen) bool {
		i := g.roleField(rapid.SampledFrom([]dynamic.Role{dynamic.UUIDTimeOrdered, dynamic.UUIDRandom}).Draw(g.t, "strategy"))
		as := rapid.SampledFrom([]*CQL{nat("TIMEUUID"), nat("TEXT"), nat("BLOB"), nil}).Draw(g.t, "as type")
		g.d.fields[i].add(fieldOpt{kind: oAsType, as: as})
		return true
	}},
	{"two AsTypes", kandra.RuleConflictingOptions, func(g *gen) bool {
		pairs := []struct {
			typ     reflect.Type
			as, as2 *CQL
		}{
			{tString, nat("ASCII"), nat("VARCHAR")},
			{tString, nil, nat("TEXT")},
			{tTime, nat("DATE"), nat("TIMESTAMP")},
			{tDuration, nat("TIME"), nat("DURATION")},
			{reflect.TypeFor[[]time.Time](), &CQL{Kind: List, Elem: nat("DATE")}, &CQL{Kind: Set, Elem: nat("DATE")}},
		}
		p := pairs[uniform(g.t, len(pairs), "pair")]
		i := g.addField(p.typ)
		g.d.fields[i].add(fieldOpt{kind: oAsType, as: p.as})
		g.d.fields[i].add(fieldOpt{kind: oAsType, as: p.as2})
		return true
	}},
	{"CreatedAt and UpdatedAt on one field", kandra.RuleConflictingOptions, func(g *gen) bool {
		i := g.roleField(dynamic.CreatedAt)
		g.d.fields[i].setRole(dynamic.UpdatedAt)
		return true
	}},
	{"role with an AsType it refuses", kandra.RuleConflictingOptions, func(g *gen) bool {
		switch rapid.IntRange(0, 2).Draw(g.t, "role") {
		case 0:
			// A Version keeps its exact type, even when AsType names it.
			i := g.roleField(dynamic.Version)
			as := rapid.SampledFrom([]*CQL{nat("BIGINT"), nat("VARINT"), nat("TIMESTAMP"), nat("DATE"), nat("TEXT"), nil}).Draw(g.t, "as type")
			g.d.fields[i].add(fieldOpt{kind: oAsType, as: as})
		default:
			// A timestamp is a TIMESTAMP or a DATE.
			i := g.roleField(rapid.SampledFrom([]dynamic.Role{dynamic.CreatedAt, dynamic.UpdatedAt}).Draw(g.t, "timestamp"))
			as := rapid.SampledFrom([]*CQL{nat("TEXT"), nat("BIGINT"), nat("TIME"), {Kind: List, Elem: nat("TIMESTAMP")}, nil}).Draw(g.t, "as type")
			g.d.fields[i].add(fieldOpt{kind: oAsType, as: as})
		}
		return true
	}},
	{"Version with another role", kandra.RuleConflictingOptions, func(g *gen) bool {
		switch rapid.IntRange(0, 2).Draw(g.t, "other role") {
		case 0:
			g.d.fields[g.roleField(dynamic.CreatedAt)].setRole(dynamic.Version)
		case 1:
			g.d.fields[g.roleField(dynamic.UpdatedAt)].setRole(dynamic.Version)
		default:
			g.d.fields[g.roleField(dynamic.Counter)].setRole(dynamic.Version)
		}
		return true
	}},
	{"UpdatedAt or Version on a key", kandra.RuleConflictingOptions, func(g *gen) bool {
		i := g.roleField(rapid.SampledFrom([]dynamic.Role{dynamic.UpdatedAt, dynamic.Version}).Draw(g.t, "role"))
		if rapid.Bool().Draw(g.t, "partition key") {
			g.d.fields[i].add(fieldOpt{kind: oPK, index: g.freshIndex(false)})
		} else {
			g.d.fields[i].add(fieldOpt{kind: oCK, index: g.freshIndex(true)})
		}
		return true
	}},
	{"no partition key", kandra.RuleNoPartitionKey, func(g *gen) bool {
		for i := range g.d.fields {
			for j := range g.d.fields[i].binds {
				b := &g.d.fields[i].binds[j]
				var keep []fieldOpt
				for _, o := range b.opts {
					if o.kind != oPK {
						keep = append(keep, o)
					}
				}
				b.opts = keep
			}
		}
		return true
	}},
	{"duplicate partition index", kandra.RuleDuplicatePartitionIndex, func(g *gen) bool {
		p := g.pickColumn("partition key", (*column).isPK)
		c := g.pickColumn("column", func(c *column) bool { return !c.isKey() })
		if p == nil || c == nil {
			return false
		}
		g.d.fields[c.field].add(fieldOpt{kind: oPK, index: p.pk[0]})
		return true
	}},
	{"duplicate lookup table", kandra.RuleDuplicateLookupTable, func(g *gen) bool {
		c1 := g.pickColumn("first", func(c *column) bool { return !c.isKey() && len(c.lookups) == 0 })
		c2 := g.pickColumn("second", func(c *column) bool { return !c.isKey() && len(c.lookups) == 0 })
		if c1 == nil || c2 == nil || c1.field == c2.field {
			return false
		}
		g.d.fields[c1.field].add(fieldOpt{kind: oLookup, suffix: "by_dup"})
		lk := rapid.SampledFrom([]kandra.LookupKind{kandra.LookupBatch, kandra.LookupEventual, kandra.LookupUnique}).Draw(g.t, "lookup kind")
		g.d.fields[c2.field].add(fieldOpt{kind: oLookup, suffix: "by_dup", lookupKind: lk})
		return true
	}},
	{"counter mix", kandra.RuleCounterMix, func(g *gen) bool {
		if !g.isCounterTable() {
			g.roleField(dynamic.Counter)
		}
		g.addField(tString)
		return true
	}},
	{"duplicate timestamp", kandra.RuleDuplicateTimestamp, func(g *gen) bool {
		r := rapid.SampledFrom([]dynamic.Role{dynamic.CreatedAt, dynamic.UpdatedAt}).Draw(g.t, "role")
		g.roleField(r)
		g.roleField(r)
		return true
	}},
	{"duplicate version", kandra.RuleDuplicateVersion, func(g *gen) bool {
		g.roleField(dynamic.Version)
		g.roleField(dynamic.Version)
		return true
	}},
	{"bad soft-delete marker", kandra.RuleSoftDeleteMarker, func(g *gen) bool {
		i := g.addField(tBool)
		switch rapid.IntRange(0, 3).Draw(g.t, "marker kind") {
		case 0:
			g.d.fields[i].add(fieldOpt{kind: oTransient})
		case 1:
			g.d.fields[i].add(fieldOpt{kind: oPK, index: g.freshIndex(false)})
		case 2:
			g.d.fields[i].add(fieldOpt{kind: oCK, index: g.freshIndex(true)})
		default:
			// The runtime sets the marker to true: it stays a BOOLEAN.
			as := rapid.SampledFrom([]*CQL{nat("TEXT"), nat("TINYINT"), {Kind: List, Elem: nat("BOOLEAN")}, nil}).Draw(g.t, "as type")
			g.d.fields[i].add(fieldOpt{kind: oAsType, as: as})
		}
		g.d.softDelete, g.d.marker = true, i
		return true
	}},
	{"partition and clustering key", kandra.RuleKeyConflict, func(g *gen) bool {
		c := g.pickColumn("key", (*column).isKey)
		if c == nil {
			return false
		}
		if c.isPK() {
			g.d.fields[c.field].add(fieldOpt{kind: oCK, index: g.freshIndex(true)})
		} else {
			g.d.fields[c.field].add(fieldOpt{kind: oPK, index: g.freshIndex(false)})
		}
		return true
	}},
	{"invalid table name", kandra.RuleInvalidName, func(g *gen) bool {
		g.d.table = rapid.SampledFrom([]string{"bad name", "bad-name", "a.b", strings.Repeat("t", maxName+1), "tàble", "x;drop", `"quoted"`, " users"}).Draw(g.t, "bad table")
		return true
	}},
	{"invalid lookup suffix", kandra.RuleInvalidName, func(g *gen) bool {
		c := g.pickColumn("column", func(c *column) bool { return !c.isKey() && len(c.lookups) == 0 })
		if c == nil {
			return false
		}
		s := rapid.SampledFrom([]string{"", "  ", "by email", "by-email", strings.Repeat("s", maxName), "ü"}).Draw(g.t, "bad suffix")
		g.d.fields[c.field].add(fieldOpt{kind: oLookup, suffix: s})
		return true
	}},
	{"invalid index name", kandra.RuleInvalidName, func(g *gen) bool {
		c := g.pickColumn("column", func(c *column) bool { return !c.isPK() && notRenamed(c) })
		if c == nil {
			return false
		}
		g.d.fields[c.field].add(fieldOpt{kind: oIndex})
		if rapid.Bool().Draw(g.t, "plain") {
			// "_" + 218 + "_idx" leaves no room for a table name.
			g.d.fields[c.field].add(fieldOpt{kind: oColumn, name: strings.Repeat("c", maxName-4)})
		} else {
			// Sanitized and hashed, the name is still too long.
			g.d.fields[c.field].add(fieldOpt{kind: oColumn, name: rapid.SampledFrom([]string{"first name ", "a-b", "naïve", `q"uote`}).Draw(g.t, "name") + strings.Repeat("x", maxName-14)})
		}
		return true
	}},
	{"column name not UTF-8", kandra.RuleInvalidName, func(g *gen) bool {
		c := g.pickColumn("column", notRenamed)
		if c == nil {
			return false
		}
		g.d.fields[c.field].add(fieldOpt{kind: oColumn, name: "bad\xff"})
		return true
	}},
	{"column name [applied] or too long", kandra.RuleInvalidName, func(g *gen) bool {
		c := g.pickColumn("column", notRenamed)
		if c == nil {
			return false
		}
		n := rapid.SampledFrom([]string{"[applied]", strings.Repeat("c", kandra.MaxColumnNameBytes+1), "x" + strings.Repeat("é", kandra.MaxColumnNameBytes/2)}).Draw(g.t, "name")
		g.d.fields[c.field].add(fieldOpt{kind: oColumn, name: n})
		return true
	}},
	{"duplicate column", kandra.RuleDuplicateColumn, func(g *gen) bool {
		c1 := g.pickColumn("first", anyColumn)
		if c1 == nil {
			return false
		}
		if rapid.Bool().Draw(g.t, "by override") {
			c2 := g.pickColumn("second", func(c *column) bool { return c.field != c1.field && notRenamed(c) })
			if c2 == nil {
				return false
			}
			g.d.fields[c2.field].add(fieldOpt{kind: oColumn, name: c1.name()})
			return true
		}
		// Two fields whose derived names are the same: TTL and Ttl.
		for _, pair := range [][3]string{{"TTL", "Ttl", "ttl"}, {"UserID", "UserId", "user_id"}, {"APIKey", "ApiKey", "api_key"}, {"HTTPServer", "HttpServer", "http_server"}} {
			if g.goNames[pair[0]] || g.goNames[pair[1]] {
				continue
			}
			for _, n := range pair[:2] {
				g.goNames[n] = true
				g.d.fields = append(g.d.fields, field{name: n, typ: tString, snake: pair[2], exported: true})
			}
			return true
		}
		return false
	}},
	{"duplicate clustering index", kandra.RuleDuplicateClusteringIndex, func(g *gen) bool {
		i := g.freshIndex(true)
		g.d.fields[g.addField(tInt64)].add(fieldOpt{kind: oCK, index: i, order: kandra.ClusteringAsc})
		g.d.fields[g.addField(tString)].add(fieldOpt{kind: oCK, index: i, order: kandra.ClusteringDesc})
		return true
	}},
	{"refused AsType pair", kandra.RuleUnsupportedType, func(g *gen) bool {
		typ := drawType(g.t, false, "refused")
		as := drawRefused(g.t, CQLOf(typ), "refused override")
		if as == nil {
			return false
		}
		g.d.fields[g.addField(typ)].add(fieldOpt{kind: oAsType, as: as})
		return true
	}},
	{"unsupported type", kandra.RuleUnsupportedType, func(g *gen) bool {
		how := rapid.IntRange(0, 4).Draw(g.t, "how")
		if how == 4 && slices.ContainsFunc(g.d.fields, func(f field) bool { return f.typ == tEmpty }) {
			// A zero-size field added after the draft's zero-size twins
			// shares their offset, and so their Transient binding: add
			// an unsupported type instead (rapid seed shift of the storage
			// draws showed it).
			how = 0
		}
		switch how {
		case 4:
			// A zero-size field, not bound Transient.
			g.addField(tEmpty)
		case 0, 1:
			g.addField(rapid.SampledFrom(unsupported).Draw(g.t, "type"))
		case 2:
			g.d.fields[g.addField(tString)].add(fieldOpt{kind: oAsType, as: nil})
		default:
			as := rapid.SampledFrom([]*CQL{
				{Kind: Set, Elem: nat("DURATION")},
				{Kind: Map, Key: nat("DURATION"), Elem: nat("TEXT")},
				{Kind: List, Elem: &CQL{Kind: Set, Elem: nat("DURATION")}},
			}).Draw(g.t, "as type")
			g.d.fields[g.addField(reflect.TypeFor[[]string]())].add(fieldOpt{kind: oAsType, as: as})
		}
		return true
	}},
	{"duration or counter in a key", kandra.RuleKeyType, func(g *gen) bool {
		switch rapid.IntRange(0, 4).Draw(g.t, "how") {
		case 0:
			g.d.fields[g.addField(tDuration)].add(fieldOpt{kind: oPK, index: g.freshIndex(false)})
		case 1:
			typ := rapid.SampledFrom([]reflect.Type{tDuration, reflect.TypeFor[[]time.Duration](), reflect.TypeFor[map[string]time.Duration](), reflect.TypeFor[*time.Duration]()}).Draw(g.t, "type")
			g.d.fields[g.addField(typ)].add(fieldOpt{kind: oCK, index: g.freshIndex(true)})
		case 2:
			g.d.fields[g.addField(tDuration)].add(fieldOpt{kind: oLookup, suffix: "by_duration"})
		case 3:
			// A type without a mapping takes any AsType, a duration too.
			i := g.addField(tOpaque)
			g.d.fields[i].add(fieldOpt{kind: oCK, index: g.freshIndex(true)})
			g.d.fields[i].add(fieldOpt{kind: oAsType, as: rapid.SampledFrom([]*CQL{nat("DURATION"), {Kind: List, Elem: nat("DURATION")}}).Draw(g.t, "as type")})
		default:
			i := g.roleField(dynamic.Counter)
			g.d.fields[i].add(fieldOpt{kind: oCK, index: g.freshIndex(true)})
		}
		return true
	}},
	{counterTableMutation, kandra.RuleCounterTable, func(g *gen) bool {
		if !g.isCounterTable() {
			return false
		}
		switch rapid.IntRange(0, 5).Draw(g.t, "what") {
		case 0:
			g.d.topts = append(g.d.topts, tableOpt{kind: tTTL, n: rapid.IntRange(1, maxTTLSeconds).Draw(g.t, "ttl")})
		case 1:
			g.d.softDelete, g.d.marker = true, -1
		case 2:
			c := g.pickColumn("key", (*column).isKey)
			if c == nil {
				return false
			}
			g.d.fields[c.field].add(fieldOpt{kind: oLookup, suffix: "by_key"})
		case 3:
			c := g.pickColumn("key", func(c *column) bool { return c.isCK() })
			if c == nil {
				return false
			}
			g.d.fields[c.field].add(fieldOpt{kind: oIndex})
		case 4:
			g.roleField(dynamic.CreatedAt)
		default:
			g.roleField(dynamic.Version)
		}
		return true
	}},
	{"lookup on the only partition key", kandra.RuleLookup, func(g *gen) bool {
		if g.pkCount() != 1 {
			return false
		}
		c := g.pickColumn("key", (*column).isPK)
		g.d.fields[c.field].add(fieldOpt{kind: oLookup, suffix: "by_key"})
		return true
	}},
	{"index on the only partition key", kandra.RuleSecondaryIndex, func(g *gen) bool {
		if g.pkCount() != 1 {
			return false
		}
		c := g.pickColumn("key", (*column).isPK)
		g.d.fields[c.field].add(fieldOpt{kind: oIndex})
		return true
	}},
	{"index on a duration", kandra.RuleSecondaryIndex, func(g *gen) bool {
		typ := rapid.SampledFrom([]reflect.Type{tDuration, reflect.TypeFor[[]time.Duration](), reflect.TypeFor[map[int32]time.Duration]()}).Draw(g.t, "type")
		i := g.addField(typ)
		g.d.fields[i].add(fieldOpt{kind: oIndex})
		g.d.fields[i].add(fieldOpt{kind: oColumn, name: "dur"})
		return true
	}},
	{"index target the type lacks", kandra.RuleSecondaryIndex, func(g *gen) bool {
		i := 0
		var x ixDraft
		switch rapid.IntRange(0, 2).Draw(g.t, "which") {
		case 0:
			i, x.target = g.addField(tString), rapid.SampledFrom([]kandra.IndexTarget{kandra.IndexTargetValues, kandra.IndexTargetKeys, kandra.IndexTargetEntries, kandra.IndexTargetFull}).Draw(g.t, "target")
		case 1:
			i, x.target = g.addField(reflect.TypeFor[[]string]()), rapid.SampledFrom([]kandra.IndexTarget{kandra.IndexTargetKeys, kandra.IndexTargetEntries}).Draw(g.t, "target")
		default:
			i, x.target = g.addField(reflect.TypeFor[map[string]int32]()), kandra.IndexTargetFull
		}
		g.d.fields[i].add(fieldOpt{kind: oIndex, ix: x})
		g.d.fields[i].add(fieldOpt{kind: oColumn, name: "tgt"})
		return true
	}},
	{"SAI option SAI refuses", kandra.RuleSAI, func(g *gen) bool {
		i := 0
		var x ixDraft
		switch rapid.IntRange(0, 2).Draw(g.t, "which") {
		case 0:
			i, x.kind = g.addField(reflect.TypeFor[[]byte]()), kandra.IndexSAI
		case 1:
			i, x.kind, x.ci = g.addField(tString), rapid.SampledFrom([]kandra.IndexKind{kandra.IndexDefault, kandra.IndexLegacy}).Draw(g.t, "kind"), true
		default:
			i, x.kind, x.normalize = g.addField(reflect.TypeFor[int32]()), kandra.IndexSAI, true
		}
		g.d.fields[i].add(fieldOpt{kind: oIndex, ix: x})
		g.d.fields[i].add(fieldOpt{kind: oColumn, name: "sai"})
		return true
	}},
	{"vector indexed by SecondaryIndex", kandra.RuleVector, func(g *gen) bool {
		typ := rapid.SampledFrom([]reflect.Type{reflect.TypeFor[[2]float32](), reflect.TypeFor[[3]float32](), reflect.TypeFor[*[8]float32]()}).Draw(g.t, "vector")
		i := g.addField(typ)
		g.d.fields[i].add(fieldOpt{kind: oIndex, ix: ixDraft{kind: rapid.SampledFrom([]kandra.IndexKind{kandra.IndexDefault, kandra.IndexLegacy}).Draw(g.t, "kind")}})
		return true
	}},
	{"user-defined type indexed", kandra.RuleUDT, func(g *gen) bool {
		typ := rapid.SampledFrom([]reflect.Type{reflect.TypeFor[GeoPoint](), reflect.TypeFor[*GeoPoint]()}).Draw(g.t, "udt")
		i := g.addField(typ)
		g.d.fields[i].add(fieldOpt{kind: oIndex, ix: ixDraft{kind: rapid.SampledFrom([]kandra.IndexKind{kandra.IndexDefault, kandra.IndexLegacy}).Draw(g.t, "kind")}})
		return true
	}},
	{"index target a Frozen collection lacks", kandra.RuleSecondaryIndex, func(g *gen) bool {
		// A frozen collection is indexed whole: VALUES, KEYS and ENTRIES
		// are refused ("Frozen collections are immutable and must be fully
		// indexed").
		typ := rapid.SampledFrom([]reflect.Type{reflect.TypeFor[[]string](), reflect.TypeFor[map[int32]struct{}](), reflect.TypeFor[map[string]int32](), reflect.TypeFor[map[string][]int64]()}).Draw(g.t, "collection")
		x := ixDraft{kind: rapid.SampledFrom([]kandra.IndexKind{kandra.IndexDefault, kandra.IndexSAI, kandra.IndexLegacy}).Draw(g.t, "kind"), target: kandra.IndexTargetValues}
		if typ.Kind() == reflect.Map && typ.Elem() != tEmpty {
			x.target = rapid.SampledFrom([]kandra.IndexTarget{kandra.IndexTargetValues, kandra.IndexTargetKeys, kandra.IndexTargetEntries}).Draw(g.t, "target")
		}
		i := g.addField(typ)
		g.d.fields[i].add(fieldOpt{kind: oFrozen})
		g.d.fields[i].add(fieldOpt{kind: oIndex, ix: x})
		g.d.fields[i].add(fieldOpt{kind: oColumn, name: "ftgt"})
		return true
	}},
	{"SAI analysis on a Frozen collection", kandra.RuleSAI, func(g *gen) bool {
		// Indexed whole (FULL, with or without IndexFull), a frozen
		// collection of text is not text to analyse.
		typ := rapid.SampledFrom([]reflect.Type{reflect.TypeFor[[]string](), reflect.TypeFor[map[string]struct{}](), reflect.TypeFor[map[string]string]()}).Draw(g.t, "collection")
		x := ixDraft{kind: kandra.IndexSAI, ci: true}
		if rapid.Bool().Draw(g.t, "IndexFull") {
			x.target = kandra.IndexTargetFull
		}
		i := g.addField(typ)
		g.d.fields[i].add(fieldOpt{kind: oFrozen})
		g.d.fields[i].add(fieldOpt{kind: oIndex, ix: x})
		g.d.fields[i].add(fieldOpt{kind: oColumn, name: "fsai"})
		return true
	}},
	{"Frozen on a type that is no collection", kandra.RuleUDT, func(g *gen) bool {
		// Servers freeze collections, tuples and user-defined types only
		// ("frozen<> is only allowed on collections, tuples, and
		// user-defined types"); a vector is frozen of itself.
		var i int
		switch rapid.IntRange(0, 3).Draw(g.t, "which") {
		case 0:
			i = g.addField(rapid.SampledFrom(nativeScalars).Draw(g.t, "scalar"))
		case 1:
			i = g.addField(rapid.SampledFrom(append(slices.Clone(pointers), vectors...)).Draw(g.t, "pointer or vector"))
		case 2:
			// A type without a mapping, declared a native type.
			i = g.addField(tOpaque)
			g.d.fields[i].add(fieldOpt{kind: oAsType, as: rapid.SampledFrom([]*CQL{nat("DECIMAL"), nat("TEXT"), nat("BLOB")}).Draw(g.t, "as type")})
		default:
			// A column of the draft, a key or a counter too: Frozen
			// freezes nothing native in a key either.
			c := g.pickColumn("column", func(c *column) bool {
				ty := c.cql()
				return ty != nil && !ty.IsCollection() && ty.Kind != UDT
			})
			if c == nil {
				return false
			}
			i = c.field
		}
		g.d.fields[i].add(fieldOpt{kind: oFrozen})
		return true
	}},
	{"mask the column refuses", kandra.RuleMask, func(g *gen) bool {
		var i int
		var m kandra.Mask
		switch rapid.IntRange(0, 3).Draw(g.t, "which") {
		case 0: // text masks on a number
			i, m = g.addField(reflect.TypeFor[int32]()), rapid.SampledFrom([]kandra.Mask{kandra.MaskInner(1, 2), kandra.MaskOuter(0, 3, '#'), kandra.MaskReplace("x")}).Draw(g.t, "mask")
		case 1: // a hash, a blob, on text
			i, m = g.addField(tString), kandra.MaskHash()
		case 2: // a mask on an indexed column
			i, m = g.addField(tString), kandra.MaskNull()
			g.d.fields[i].add(fieldOpt{kind: oIndex})
		default: // a mask on a lookup's column
			i, m = g.addField(tString), kandra.MaskDefault()
			g.d.fields[i].add(fieldOpt{kind: oLookup, suffix: "by_masked", lookupKind: kandra.LookupBatch})
		}
		g.d.fields[i].add(fieldOpt{kind: oMasked, mask: m})
		return true
	}},
	{"storage option out of range", kandra.RuleOptionRange, func(g *gen) bool {
		g.badStorage()
		return true
	}},
	{"option out of range", kandra.RuleOptionRange, func(g *gen) bool {
		switch rapid.IntRange(0, 4).Draw(g.t, "which") {
		case 0:
			g.d.setOption(tableOpt{kind: tTTL, n: rapid.SampledFrom([]int{-1, maxTTLSeconds + 1, math.MinInt32}).Draw(g.t, "ttl")})
		case 1:
			g.d.setOption(tableOpt{kind: tGC, n: rapid.SampledFrom([]int{-1, math.MinInt32, math.MaxInt32 + 1}).Draw(g.t, "gc")})
		case 2:
			g.d.softDelete = true
			g.d.softTTL = rapid.SampledFrom([]int{-1, maxTTLSeconds + 1}).Draw(g.t, "soft ttl")
		default:
			k := rapid.SampledFrom([]tableOptKind{tRead, tWrite}).Draw(g.t, "which consistency")
			g.d.setOption(tableOpt{kind: k, n: rapid.IntRange(11, 0xffff).Draw(g.t, "level")})
		}
		return true
	}},
	{"schema too large", kandra.RuleSchemaSize, func(g *gen) bool {
		// Columns of 1,024-byte names cost over 3,100 bytes each, so this
		// many pass the limit by over 2% with any table name.
		n := kandra.MaxSchemaMutationBytes/(3*kandra.MaxColumnNameBytes) + rapid.IntRange(60, 300).Draw(g.t, "columns past the limit")
		for i := 0; n > 0; i++ {
			name := "Wide" + strconv.Itoa(i)
			if g.goNames[name] || g.snakes[kandra.SnakeCase(name)] {
				continue
			}
			g.goNames[name] = true
			col := "wide" + strconv.Itoa(i) + "_"
			f := field{name: name, typ: tString, snake: kandra.SnakeCase(name), exported: true}
			f.add(fieldOpt{kind: oColumn, name: col + strings.Repeat("w", kandra.MaxColumnNameBytes-len(col))})
			g.d.fields = append(g.d.fields, f)
			n--
		}
		return true
	}},
	{"invalid enum value", kandra.RuleOptionRange, func(g *gen) bool {
		if rapid.Bool().Draw(g.t, "clustering order") {
			order := kandra.ClusteringOrder(rapid.IntRange(int(kandra.ClusteringDesc)+1, math.MaxUint8).Draw(g.t, "order"))
			g.d.fields[g.addField(tInt64)].add(fieldOpt{kind: oCK, index: g.freshIndex(true), order: order})
		} else {
			lk := kandra.LookupKind(rapid.IntRange(int(kandra.LookupUnique)+1, math.MaxUint8).Draw(g.t, "lookup kind"))
			g.d.fields[g.addField(tString)].add(fieldOpt{kind: oLookup, suffix: "by_range", lookupKind: lk})
		}
		return true
	}},
	{"static off the row", kandra.RuleStatic, func(g *gen) bool {
		if g.isCounterTable() {
			return false
		}
		clustering := false
		for _, c := range g.d.live() {
			clustering = clustering || c.isCK()
		}
		i := g.addField(tString)
		g.d.fields[i].add(fieldOpt{kind: oStatic})
		if clustering {
			// A static column cannot have a lookup table: the lookup row
			// names one row, the value is the partition's.
			g.d.fields[i].add(fieldOpt{kind: oLookup, suffix: "by_static", lookupKind: kandra.LookupBatch})
		}
		return true
	}},
}

const counterTableMutation = "counter table with a forbidden option"

// Mutations names every mutation, in the fixed order InvalidCase draws
// them from.
func Mutations() []string {
	out := make([]string, len(mutations))
	for i, m := range mutations {
		out[i] = m.name
	}
	return out
}

// Mutate draws a valid spec and applies the named mutation alone. ok is
// false when the mutation does not apply to the draft drawn (a mutation of
// a key column on a draft with no such key, say). It panics on an unknown
// name.
func Mutate(t *rapid.T, name string) (c Invalid, ok bool) {
	m := mutationNamed(name)
	g := newValid(t, counterFor(m))
	g.d.features = nil
	if !m.apply(g) {
		return Invalid{}, false
	}
	return g.invalid([]mutation{m}), true
}

func mutationNamed(name string) mutation {
	for _, m := range mutations {
		if m.name == name {
			return m
		}
	}
	panic("schematest: no mutation " + name)
}

// InvalidCase draws a spec that breaks one or more rules, with the rule
// the builder must report.
func InvalidCase(t *rapid.T) Invalid {
	for attempt := 0; ; attempt++ {
		n := 1
		switch k := percent.Draw(t, "mutations") / 5; {
		case k >= 17:
			n = 3
		case k >= 12:
			n = 2
		}
		var chosen []mutation
		counter := -1
		for len(chosen) < n {
			m := mutations[uniform(t, len(mutations), "mutation")]
			if m.name == "not a struct" && rapid.IntRange(0, 3).Draw(t, "allow not a struct") != 0 {
				continue
			}
			if c := counterFor(m); c >= 0 {
				counter = c
			}
			chosen = append(chosen, m)
		}
		g := newValid(t, counter)
		g.d.features = nil
		var applied []mutation
		for _, m := range chosen {
			if m.apply(g) {
				applied = append(applied, m)
			}
		}
		if len(g.d.broken()) == 0 {
			if attempt < 50 {
				continue
			}
			// Nothing applied, or the mutations undid each other.
			g.d.table = ""
			applied = append(applied, mutationNamed("table missing"))
		}
		return g.invalid(applied)
	}
}

// counterFor is newValid's counter argument for a draft m is applied to.
func counterFor(m mutation) int {
	if m.name == counterTableMutation {
		return 1
	}
	return -1
}

func (g *gen) invalid(applied []mutation) Invalid {
	c := Invalid{Broken: g.d.broken(), Spec: g.d.spec(g.t)}
	if len(c.Broken) > 0 {
		c.Rule = c.Broken[0]
	}
	for _, m := range applied {
		c.Mutations = append(c.Mutations, m.name)
		c.Targets = append(c.Targets, m.target)
	}
	return c
}

// InvalidSpec draws a spec that breaks one or more rules on purpose and
// returns the rule the builder must report first.
func InvalidSpec(t *rapid.T) (dynamic.Spec, kandra.Rule) {
	c := InvalidCase(t)
	return c.Spec, c.Rule
}
