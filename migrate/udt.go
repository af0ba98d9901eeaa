package migrate

// The planner's user-defined types: created when missing, their new
// fields added, a changed field reported with its manual path.

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kandra-go/kandra"
)

// types plans the keyspace's user-defined types in Keyspace.Types order
// (each after the types it holds), before the tables that use them: a
// type live lacks is created, a field its live type lacks is added
// (ALTER TYPE ... ADD, which servers append after the last field), and a
// field whose live type differs is impossible in place. Fields only live
// has are extra: no server drops a field.
func (p *planner) types() {
	var live map[string]*LiveType
	if p.live.Keyspace != nil {
		live = p.live.Keyspace.Types
	}
	keyed, indexed := p.keyedTypes(), p.indexedTypes()
	for _, t := range p.ks.Types() {
		name := t.Name()
		lt := live[name]
		if lt == nil {
			cql, _ := p.ks.CreateType(name)
			p.add(phaseType, Step{ID: stepID(StepCreateType, name), Class: Safe, Kind: StepCreateType, UDT: name, CQL: cql,
				Reason: "type " + strconv.Quote(name) + " does not exist"})
			continue
		}
		p.diffType(t, lt, keyed[name], indexed[name])
	}
}

// diffType compares the model's type t with its live type lt, held by
// the partition keys of the live tables keyedBy and by the values of the
// indexes indexedBy.
func (p *planner) diffType(t kandra.CQLType, lt *LiveType, keyedBy []string, indexedBy []indexUse) {
	name := t.Name()
	model := map[string]bool{}
	for _, f := range t.Fields() {
		model[f.Name] = true
		object := name + "." + f.Name
		i := slices.IndexFunc(lt.Fields, func(l kandra.UDTField) bool { return l.Name == f.Name })
		w := wantColumn{name: f.Name, typ: f.Type, frozen: freezable(f.Type), kind: ColumnRegular, order: "none"}
		if i < 0 {
			if len(keyedBy) > 0 {
				p.impossibleField(StepChangeKeyType, name, f.Name,
					"type "+strconv.Quote(name)+" has no field "+strconv.Quote(f.Name)+", and servers add no field to a type that a partition key holds (here of "+strings.Join(keyedBy, ", ")+
						`; "Cannot add new field ... as the type is being used in partition key")`,
					p.keyTypeManual(name, f.Name, keyedBy))
				continue
			}
			s := Step{ID: stepID(StepAddField, object), Class: Safe, Kind: StepAddField, UDT: name, Field: f.Name, CQL: p.alterTypeAdd(t, f),
				Reason: "type " + strconv.Quote(name) + " has no field " + strconv.Quote(f.Name) + " (" + w.decl() + "); it is added after the type's last field"}
			if len(indexedBy) > 0 {
				s.Class = NeedsApproval
				s.Reason += "; " + p.indexedCost(name, f.Name, indexedBy)
			}
			p.add(phaseType, s)
			continue
		}
		lf := &LiveColumn{Name: f.Name, Kind: ColumnRegular, Position: -1, Order: "none", Type: lt.Fields[i].Type, RawType: lt.FieldTypes[i]}
		if f.Type.IsCollection() && sameType(f.Type, lf.Type) && !outerFrozen(lf.RawType) {
			// A collection field live declares without FROZEN, which kandra
			// always writes frozen: inside a frozen value the two are the
			// same bytes, so only a use of the type that is not frozen
			// tells them apart, and servers refuse that use.
			p.openField(name, f.Name, lf.RawType, w.decl())
			continue
		}
		if m := typeMismatch(w, lf); m != "" {
			p.impossibleField(StepChangeFieldType, name, f.Name, "field "+strconv.Quote(f.Name)+" of type "+strconv.Quote(name)+": "+m,
				"servers alter no field's type (\"Altering field types is no longer supported\") and drop no field: add the field under a new name with the new type "+
					"(a `kandra:\"new_name\"` tag on the Go field: the plan adds it), copy each row's value over (write the whole value again), then stop using the old field, "+
					"which stays in the type, null in each value written since; or rename the live field by hand (ALTER TYPE "+p.qks+"."+kandra.QuoteTypeName(name)+
					" RENAME "+kandra.QuoteIdent(f.Name)+" TO "+kandra.QuoteIdent(f.Name+"_old")+";) so that the plan adds the field anew, empty in the existing values, and copy the values over")
		}
	}
	for _, f := range lt.Fields {
		if !model[f.Name] {
			p.extra = append(p.extra, "field "+name+"."+f.Name)
		}
	}
}

// openField plans field of type udt, a collection live declares without
// FROZEN (liveDecl) and the model frozen (modelDecl): nothing while every
// use of the type the model declares is frozen, in the model and in live
// (a column's own type, FROZEN; inside a collection or another type it
// always is), and an impossible step naming each use that is not, which servers refuse
// ("Non-frozen UDTs with nested non-frozen collections are not
// supported") or which kandra cannot write.
func (p *planner) openField(udt, field, liveDecl, modelDecl string) {
	var model, live []string
	declared := map[[2]string]bool{} // the model's columns, by table and name
	for _, t := range p.ks.Tables() {
		for _, c := range t.Columns() {
			declared[[2]string{t.Name(), c.Name()}] = true
			if c.Type().Kind() == kandra.KindUDT && c.Type().Name() == udt && !c.IsFrozen() {
				model = append(model, t.Name()+"."+c.Name())
			}
		}
	}
	if lks := p.live.Keyspace; lks != nil {
		for _, tn := range slices.Sorted(maps.Keys(lks.Tables)) {
			for _, c := range lks.Tables[tn].Columns {
				// A live column the model does not declare is one kandra
				// never writes (listed as extra): it blocks nothing.
				if c.Type.Kind() == kandra.KindUDT && c.Type.Name() == udt && !outerFrozen(c.RawType) && declared[[2]string{tn, c.Name}] {
					live = append(live, tn+"."+c.Name)
				}
			}
		}
	}
	if len(model)+len(live) == 0 {
		return
	}
	reason := "field " + strconv.Quote(field) + " of type " + strconv.Quote(udt) + ": its type is " + liveDecl + " in live, " + modelDecl +
		" in the model, the same bytes inside a frozen value; but"
	var manual []string
	if len(model) > 0 {
		reason += " the model holds the type in a column of its own, not frozen (" + strings.Join(model, ", ") +
			"), which servers refuse while the type has a collection field not frozen (\"Non-frozen UDTs with nested non-frozen collections are not supported\")"
		manual = append(manual, "give "+strings.Join(model, ", ")+" kandra.Frozen(), as every use of the type in live is")
	}
	if len(live) > 0 {
		if len(model) > 0 {
			reason += "; and"
		}
		reason += " live holds it in a column not frozen (" + strings.Join(live, ", ") +
			"; the field was added by ALTER TYPE after the column), whose field kandra would write frozen, a value where the server keeps cells"
		manual = append(manual, "copy the values of "+strings.Join(live, ", ")+" into a new column of frozen<"+kandra.QuoteTypeName(udt)+
			"> (kandra.Frozen()) and drop the old one, or leave the field out of the Go struct by giving it a type of its own (another UDTName)")
	}
	p.impossibleField(StepChangeFieldType, udt, field, reason, strings.Join(manual, "; "))
}

// impossibleField adds an impossible step about field of type udt.
func (p *planner) impossibleField(k StepKind, udt, field, reason, manual string) {
	p.add(phaseImpossible, Step{ID: stepID(k, udt+"."+field), Class: Impossible, Kind: k, UDT: udt, Field: field, Reason: reason, Manual: manual})
}

// keyTypeManual is the manual path for a field a type held by the
// partition keys of the live tables keyedBy cannot take.
func (p *planner) keyTypeManual(name, field string, keyedBy []string) string {
	var lookups, primaries []string
	for _, tn := range keyedBy {
		if p.ks.LookupTable(tn) != nil {
			lookups = append(lookups, tn)
		} else {
			primaries = append(primaries, tn)
		}
	}
	var parts []string
	if len(lookups) > 0 {
		drops := make([]string, len(lookups))
		for i, tn := range lookups {
			drops[i] = "DROP TABLE " + p.qks + "." + kandra.QuoteIdent(tn) + ";"
		}
		parts = append(parts, "a lookup table holds only copies: drop "+strings.Join(lookups, ", ")+" by hand ("+strings.Join(drops, " ")+
			"), then plan again: the field is added, and the lookup table is created anew and backfilled")
	}
	if len(primaries) > 0 {
		parts = append(parts, "a table keyed by the type ("+strings.Join(primaries, ", ")+") keeps it as it is: create a new table under another name, copy the rows over, "+
			"switch the application to it and drop the old one before the field can be added")
	}
	parts = append(parts, "or keep the type as it is: leave field "+strconv.Quote(field)+" out of the Go struct, or give the struct with the field another UDTName (a new type)")
	return "a new field would change the bytes, and so the token, of every key that holds the type: " + strings.Join(parts, "; ")
}

// indexUse is an index whose values hold a user-defined type.
type indexUse struct {
	index, table, column string
	// liveSAI: a storage-attached index that exists: after ALTER TYPE ...
	// ADD it finds no row at all, old or new, until it is built again
	// (Cassandra 5.0.8; a legacy index misses only the rows written
	// before).
	liveSAI bool
}

func (u indexUse) String() string { return "index " + u.index + " on " + u.table + "." + u.column }

// indexedCost is what adding field to type name costs when the indexes
// indexedBy hold its values, and the ways out. A clustering column
// compares a value field by field (a value with fewer fields equals one
// whose extra fields are null); an index compares the serialized bytes,
// and kandra sends every field the model has.
func (p *planner) indexedCost(name, field string, indexedBy []indexUse) string {
	all := make([]string, len(indexedBy))
	var sai, drops []string
	for i, u := range indexedBy {
		all[i] = u.String()
		if u.liveSAI {
			sai = append(sai, u.index)
			drops = append(drops, "DROP INDEX "+p.qks+"."+kandra.QuoteIdent(u.index)+";")
		}
	}
	s := strings.Join(all, ", ") + " compare the stored bytes of the values that hold " + strconv.Quote(name) +
		": once the field is added, kandra sends each value with " + strconv.Quote(field) + ", so reads through them " +
		"(Index.Find, and any WHERE on the column) no longer find the rows written before, until each is written again"
	way := "approve the step, then "
	if len(sai) > 0 {
		s += "; and the storage-attached index " + strings.Join(sai, ", ") + " finds no row at all, old or new, until it is built again (the node's behaviour)"
		way += "drop the storage-attached index by hand (" + strings.Join(drops, " ") + ") and apply again, which creates it anew from the stored rows; then "
	}
	return s + ". While the step waits, kandra refuses to write the type's values (the server's type lacks the field). " +
		"To take it, " + way + "write every such row again (a whole-value write, such as Save of each entity, stores the value with the field); " +
		"or keep the type as it is: leave " + strconv.Quote(field) + " out of the Go struct, or give the struct with it another UDTName (a new type)"
}

// indexedTypes maps each live user-defined type to the indexes whose
// values hold it, directly or inside a collection or another type: the
// live indexes, and the model's indexes on live columns that the plan
// creates (they index the rows there now). A keys index on a map holds
// its keys only, a values index its values.
func (p *planner) indexedTypes() map[string][]indexUse {
	lks := p.live.Keyspace
	if lks == nil {
		return nil
	}
	out := map[string][]indexUse{}
	add := func(u indexUse, lc *LiveColumn, target string) {
		held := map[string]bool{}
		heldTypes(indexedPart(lc.Type, target), lks.Types, held)
		for n := range held {
			out[n] = append(out[n], u)
		}
	}
	live := map[string]bool{}
	for _, tn := range slices.Sorted(maps.Keys(lks.Tables)) {
		lt := lks.Tables[tn]
		for _, ix := range lt.Indexes {
			live[ix.Name] = true
			target := ix.Options["target"]
			if lc := lt.Column(indexTarget(target)); lc != nil {
				add(indexUse{index: ix.Name, table: tn, column: lc.Name, liveSAI: isSAI(ix)}, lc, targetFunction(target))
			}
		}
	}
	for _, t := range p.ks.Tables() {
		lt := lks.Tables[t.Name()]
		if lt == nil {
			continue // a new table holds no rows
		}
		for _, c := range t.SecondaryIndexes() {
			name := t.IndexName(c)
			lc := lt.Column(c.Name())
			if live[name] || lc == nil { // a new column holds no values
				continue
			}
			spec, _ := c.Index()
			add(indexUse{index: name, table: t.Name(), column: lc.Name}, lc, spec.Target.String())
		}
	}
	for n := range out {
		slices.SortFunc(out[n], func(a, b indexUse) int { return strings.Compare(a.String(), b.String()) })
	}
	return out
}

// isSAI reports a storage-attached index.
func isSAI(ix *LiveIndex) bool {
	class := ix.Options["class_name"]
	class = class[strings.LastIndexByte(class, '.')+1:]
	return ix.Kind == "CUSTOM" && (class == "sai" || class == "StorageAttachedIndex")
}

// targetFunction is the function of a live index's target option, "keys"
// of "keys(m)", or "" for a plain column.
func targetFunction(target string) string {
	t := strings.TrimSpace(target)
	if i := strings.IndexByte(t, '('); i > 0 && strings.HasSuffix(t, ")") && !strings.HasPrefix(t, `"`) {
		return strings.ToLower(strings.TrimSpace(t[:i]))
	}
	return ""
}

// indexedPart is the part of a column's type t an index of target
// function fn holds: a map's keys for keys, a collection's elements for
// values, the whole value otherwise (entries, full, a plain column).
func indexedPart(t kandra.CQLType, fn string) kandra.CQLType {
	switch {
	case fn == "keys" && t.Kind() == kandra.KindMap:
		return t.Key()
	case fn == "values" && t.IsCollection():
		return t.Elem()
	}
	return t
}

// alterTypeAdd renders the ADD of field f to type t:
// kandra.AlterTypeAdd, with IF NOT EXISTS when every target is Cassandra
// (5.0 takes it; ScyllaDB's grammar has none), so that a statement run
// twice, by a retry or another runner of the script, is a no-op there
// too. The plan adds a field only when the live type lacks it.
func (p *planner) alterTypeAdd(t kandra.CQLType, f kandra.UDTField) string {
	stmt := kandra.AlterTypeAdd(p.ks.Name(), t, f)
	if p.targets&scyllaTargets == 0 {
		// Keyspace and type names are \w+, so the first " ADD " is the
		// keyword.
		stmt = strings.Replace(stmt, " ADD ", " ADD IF NOT EXISTS ", 1)
	}
	return stmt
}

// keyedTypes maps each live user-defined type to the live tables whose
// partition key holds it, directly or inside a collection or another
// type: servers refuse to add a field to such a type (Cassandra 5.0 and
// ScyllaDB both; a clustering column's type takes one).
func (p *planner) keyedTypes() map[string][]string {
	lks := p.live.Keyspace
	if lks == nil {
		return nil
	}
	out := map[string][]string{}
	for _, tn := range slices.Sorted(maps.Keys(lks.Tables)) {
		held := map[string]bool{}
		for _, c := range lks.Tables[tn].Columns {
			if c.Kind == ColumnPartitionKey {
				heldTypes(c.Type, lks.Types, held)
			}
		}
		for _, n := range slices.Sorted(maps.Keys(held)) {
			out[n] = append(out[n], tn)
		}
	}
	return out
}

// heldTypes adds to held the names of the user-defined types t is or
// holds, through the live types' fields.
func heldTypes(t kandra.CQLType, types map[string]*LiveType, held map[string]bool) {
	switch t.Kind() {
	case kandra.KindUDT:
		if held[t.Name()] {
			return
		}
		held[t.Name()] = true
		if lt := types[t.Name()]; lt != nil {
			for _, f := range lt.Fields {
				heldTypes(f.Type, types, held)
			}
		}
	case kandra.KindMap:
		heldTypes(t.Key(), types, held)
		heldTypes(t.Elem(), types, held)
	case kandra.KindList, kandra.KindSet, kandra.KindVector:
		heldTypes(t.Elem(), types, held)
	}
}

// holdsUDT reports whether t is or holds a user-defined type.
func holdsUDT(t kandra.CQLType) bool {
	switch t.Kind() {
	case kandra.KindUDT:
		return true
	case kandra.KindMap:
		return holdsUDT(t.Key()) || holdsUDT(t.Elem())
	case kandra.KindList, kandra.KindSet, kandra.KindVector:
		return holdsUDT(t.Elem())
	}
	return false
}
