package migrate

// What a live keyspace holds that the rest of the planner does not see:
// legacy (COMPACT STORAGE) tables, column masks, user-defined functions
// and aggregates, materialized views and triggers.

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/kandra-go/kandra"
)

// hidden plans what live table lt of model table t holds beyond its
// columns, keys, indexes and options: a legacy form of it or of one of
// its lookup tables is an impossible StepLegacyTable step (and no mask is
// planned against it), its columns' masks are planned (masks), and a
// mask on a live lookup table's column, which kandra never declares, is
// listed in Plan.Extra ("mask mask_null() of column users_by_email.id").
func (p *planner) hidden(t *kandra.TableSchema, lt *LiveTable) {
	for _, l := range t.LookupTables() {
		llt := p.live.Table(l.Name())
		if llt == nil {
			continue
		}
		if llt.Legacy != "" {
			p.legacy(llt, "lookup table", "a lookup table holds only copies: drop it by hand (DROP TABLE "+p.qualified(l.CQLName())+
				";), then plan again: it is created anew as a CQL table, and its backfill is planned")
			continue
		}
		// kandra masks no lookup table's column (its lookups read them
		// back): a live one is reported, never dropped.
		for _, c := range llt.Columns {
			if c.Mask != nil {
				p.extra = append(p.extra, "mask "+c.Mask.String()+" of column "+llt.Name+"."+c.Name)
			}
		}
	}
	if lt == nil {
		return
	}
	if lt.Legacy != "" {
		p.legacy(lt, "table", p.newTableManual(t)+"; or, on a server that has it (Cassandra 3.x and 4.x), ALTER TABLE "+p.qualified(t.CQLName())+" DROP COMPACT STORAGE, then plan again")
		return
	}
	p.masks(t, lt)
}

// legacy adds the impossible step of a live table of a legacy form.
func (p *planner) legacy(lt *LiveTable, what, manual string) {
	p.impossible(StepLegacyTable, lt.Name, lt.Name, "", what+" "+strconv.Quote(lt.Name)+" is a legacy table in live ("+lt.Legacy+"; flags "+strings.Join(lt.Flags, ", ")+
		"), not a CQL table: kandra reads and writes CQL tables only, and plans nothing against it", manual)
}

// routines lists the live user-defined functions and aggregates,
// materialized views and triggers in Plan.Extra: kandra declares none
// and never touches them.
func (p *planner) routines() {
	lks := p.live.Keyspace
	if lks == nil {
		return
	}
	for _, f := range lks.Functions {
		p.extra = append(p.extra, "function "+lks.Name+"."+f.Signature())
	}
	for _, a := range lks.Aggregates {
		p.extra = append(p.extra, "aggregate "+lks.Name+"."+a.Signature())
	}
	for _, v := range lks.Views {
		p.extra = append(p.extra, "materialized view "+lks.Name+"."+v.Name+" of table "+v.BaseTable)
	}
	for _, t := range lks.Triggers {
		p.extra = append(p.extra, "trigger "+t.Name+" on table "+t.Table)
	}
}

// viewsAndTriggers reads system_schema.views and system_schema.triggers
// into ks, after its tables and indexes: a ScyllaDB view that backs one
// of its secondary indexes ("{index}_index") is the index's, not a view
// of its own.
func (rd *rowReader) viewsAndTriggers(ks *LiveKeyspace, views, triggers []map[string]any) {
	indexes := map[string]bool{}
	for _, t := range ks.Tables {
		for _, ix := range t.Indexes {
			indexes[ix.Name] = true
		}
	}
	for i, row := range views {
		if !rd.mine(row) {
			continue
		}
		v := &LiveView{Name: rd.str("views", i, row, "view_name", true), BaseTable: rd.str("views", i, row, "base_table_name", false)}
		if name, ok := strings.CutSuffix(v.Name, "_index"); rd.err != nil || ok && indexes[name] {
			continue
		}
		ks.Views = append(ks.Views, v)
	}
	for i, row := range triggers {
		if !rd.mine(row) {
			continue
		}
		t := &LiveTrigger{Name: rd.str("triggers", i, row, "trigger_name", true), Table: rd.str("triggers", i, row, "table_name", false)}
		if o, ok := row["options"].(map[string]string); ok {
			t.Class = o["class"]
		}
		ks.Triggers = append(ks.Triggers, t)
	}
	slices.SortFunc(ks.Views, func(a, b *LiveView) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(ks.Triggers, func(a, b *LiveTrigger) int {
		return cmp.Or(strings.Compare(a.Table, b.Table), strings.Compare(a.Name, b.Name))
	})
}

// legacyForm reads a table's legacy form from its flags (see
// LiveTable.Legacy): "" when the row has no flags column.
func legacyForm(row map[string]any, flags []string) string {
	if _, ok := row["flags"]; !ok {
		return ""
	}
	has := func(f string) bool {
		return slices.ContainsFunc(flags, func(x string) bool { return strings.EqualFold(x, f) })
	}
	switch {
	case has("super"):
		return LegacySuper
	case has("dense"):
		return LegacyDense
	case !has("compound"):
		return LegacyNotCompound
	}
	return ""
}

// functions reads system_schema.functions or system_schema.aggregates
// (table), whose rows name their routine in the column name, sorted by
// name, then argument types.
func (rd *rowReader) functions(table, name string, rows []map[string]any) []*LiveFunction {
	var out []*LiveFunction
	for i, row := range rows {
		if !rd.mine(row) {
			continue
		}
		f := &LiveFunction{Name: rd.str(table, i, row, name, true), ArgumentTypes: rd.strings(table, i, row, "argument_types"),
			ReturnType: rd.str(table, i, row, "return_type", false)}
		if rd.err != nil {
			return nil
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b *LiveFunction) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), slices.Compare(a.ArgumentTypes, b.ArgumentTypes))
	})
	return out
}
