package migrate

// Column masks (Cassandra 5.0's dynamic data masking): read from
// system_schema.column_masks into LiveColumn.Mask, and planned as one
// StepChangeMask per column whose live mask is not the model's.

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
)

// masks reads system_schema.column_masks into the columns' Mask. A row of
// a table or column the keyspace's rows lack (a view's, or one dropped
// meanwhile) is skipped; a row whose lists do not match, or a second mask
// of one column, is an error.
func (rd *rowReader) masks(ks *LiveKeyspace, rows []map[string]any) {
	const tab = "column_masks"
	for i, row := range rows {
		if !rd.mine(row) {
			continue
		}
		tname := rd.str(tab, i, row, "table_name", true)
		cname := rd.str(tab, i, row, "column_name", true)
		m := &LiveMask{
			FunctionKeyspace: rd.str(tab, i, row, "function_keyspace", false),
			FunctionName:     rd.str(tab, i, row, "function_name", true),
			ArgumentTypes:    rd.strings(tab, i, row, "function_argument_types"),
			ArgumentValues:   rd.strings(tab, i, row, "function_argument_values"),
			ArgumentNulls:    rd.bools(tab, i, row, "function_argument_nulls"),
		}
		if rd.err != nil {
			return
		}
		switch {
		case len(m.ArgumentValues) != len(m.ArgumentTypes):
			rd.fail(tab, i, "function_argument_values", fmt.Sprintf("has %d values for %d argument types of the mask of %s.%s", len(m.ArgumentValues), len(m.ArgumentTypes), tname, cname))
			return
		case m.ArgumentNulls != nil && len(m.ArgumentNulls) != len(m.ArgumentTypes):
			rd.fail(tab, i, "function_argument_nulls", fmt.Sprintf("has %d entries for %d argument types of the mask of %s.%s", len(m.ArgumentNulls), len(m.ArgumentTypes), tname, cname))
			return
		}
		t := ks.Tables[tname]
		if t == nil {
			continue
		}
		c := t.Column(cname)
		if c == nil {
			continue
		}
		if c.Mask != nil {
			rd.fail(tab, i, "column_name", "repeats "+strconv.Quote(cname)+" in table "+strconv.Quote(tname))
			return
		}
		m.Mask, m.Unread = readMask(m)
		c.Mask = m
	}
}

// bools reads a list<boolean> column; null reads as nil.
func (rd *rowReader) bools(table string, i int, row map[string]any, col string) []bool {
	switch b := row[col].(type) {
	case nil:
		return nil
	case []bool:
		return append([]bool(nil), b...)
	}
	rd.fail(table, i, col, fmt.Sprintf("is a %T, want a []bool", row[col]))
	return nil
}

// readMask models a live mask as a kandra.Mask: one of Cassandra's own
// functions with arguments kandra reads, as the server applies it (a null
// or negative count is 0, a null padding or algorithm the default). It
// returns the zero Mask and why for another.
func readMask(m *LiveMask) (kandra.Mask, string) {
	if m.FunctionKeyspace != "" && m.FunctionKeyspace != "system" {
		return kandra.Mask{}, "it is the user-defined function " + m.FunctionKeyspace + "." + m.FunctionName + ", and kandra models Cassandra's own masking functions only"
	}
	n := len(m.ArgumentTypes)
	null := func(i int) bool { return i < len(m.ArgumentNulls) && m.ArgumentNulls[i] }
	args := func(min, max int) string {
		if n < min || n > max {
			return fmt.Sprintf("%s has %d arguments after the column's value, and kandra knows it with %d to %d", m.FunctionName, n, min, max)
		}
		return ""
	}
	var out kandra.Mask
	check := kandra.CQLText // a type the mask takes, to surface a constructor's refusal
	switch m.FunctionName {
	case "mask_null", "mask_default":
		if why := args(0, 0); why != "" {
			return kandra.Mask{}, why
		}
		if m.FunctionName == "mask_null" {
			return kandra.MaskNull(), ""
		}
		return kandra.MaskDefault(), ""
	case "mask_inner", "mask_outer":
		if why := args(2, 3); why != "" {
			return kandra.Mask{}, why
		}
		var counts [2]int
		for i := range counts {
			if null(i) {
				continue // the server reads a null count as 0
			}
			v, err := strconv.ParseInt(m.ArgumentValues[i], 10, 32)
			if err != nil {
				return kandra.Mask{}, "its argument " + strconv.Quote(m.ArgumentValues[i]) + " is not an int"
			}
			counts[i] = int(max(v, 0)) // and a negative one as 0
		}
		var padding []rune
		if n == 3 && !null(2) {
			r := []rune(m.ArgumentValues[2])
			if len(r) != 1 {
				return kandra.Mask{}, "its padding " + strconv.Quote(m.ArgumentValues[2]) + " is not one character (every read of the column fails)"
			}
			padding = r
		}
		if m.FunctionName == "mask_inner" {
			out = kandra.MaskInner(counts[0], counts[1], padding...)
		} else {
			out = kandra.MaskOuter(counts[0], counts[1], padding...)
		}
	case "mask_hash":
		if why := args(0, 1); why != "" {
			return kandra.Mask{}, why
		}
		out, check = kandra.MaskHash(), kandra.CQLBlob
		if n == 1 && !null(0) {
			out = kandra.MaskHash(m.ArgumentValues[0])
		}
	case "mask_replace":
		if why := args(1, 1); why != "" {
			return kandra.Mask{}, why
		}
		if null(0) {
			return kandra.Mask{}, "it replaces the value by null, which kandra writes as MaskNull"
		}
		v, t, why := replacementOf(m.ArgumentTypes[0], m.ArgumentValues[0])
		if why != "" {
			return kandra.Mask{}, why
		}
		out, check = kandra.MaskReplace(v), t
	default:
		return kandra.Mask{}, "kandra does not know the masking function " + m.FunctionName
	}
	if err := out.Check(check); err != nil {
		return kandra.Mask{}, err.Error()
	}
	return out, ""
}

// replacementOf reads a stored mask_replace value of CQL type typ (as the
// type prints it: "1.5", "cafe", "2020-01-01T00:00:00.000Z") into the Go
// value MaskReplace takes, with a type of that class to check it on.
func replacementOf(typ, v string) (any, kandra.CQLType, string) {
	bad := func(err error) (any, kandra.CQLType, string) {
		return nil, kandra.CQLType{}, "its " + typ + " replacement " + strconv.Quote(v) + " does not read: " + err.Error()
	}
	switch strings.ToLower(typ) {
	case "text", "varchar":
		return v, kandra.CQLText, ""
	case "ascii":
		return v, kandra.CQLAscii, ""
	case "tinyint", "smallint", "int", "bigint", "varint":
		i, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return bad(err)
		}
		return i, kandra.CQLBigint, ""
	case "boolean":
		b, err := strconv.ParseBool(v)
		if err != nil {
			return bad(err)
		}
		return b, kandra.CQLBoolean, ""
	case "float":
		f, err := strconv.ParseFloat(v, 32)
		if err != nil {
			return bad(err)
		}
		return float32(f), kandra.CQLFloat, ""
	case "double":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return bad(err)
		}
		return f, kandra.CQLDouble, ""
	case "blob":
		b, err := hex.DecodeString(strings.TrimPrefix(v, "0x"))
		if err != nil {
			return bad(err)
		}
		return b, kandra.CQLBlob, ""
	case "uuid", "timeuuid":
		u, err := uuid.Parse(v)
		if err != nil {
			return bad(err)
		}
		return u, kandra.CQLUUID, ""
	case "timestamp":
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return bad(err)
		}
		return t, kandra.CQLTimestamp, ""
	}
	return nil, kandra.CQLType{}, "kandra does not read a replacement of type " + typ
}

// quotedType reports a type whose values CQL writes quoted.
func quotedType(typ string) bool {
	switch strings.ToLower(typ) {
	case "text", "varchar", "ascii", "timestamp", "date", "time", "inet":
		return true
	}
	return false
}

// masks plans the masks of table t's columns that live table lt has: a
// column the model masks and live does not, or masks otherwise, or that
// live masks and the model does not, is a StepChangeMask step (ALTER
// TABLE ... ALTER c MASKED WITH, or DROP MASKED) that needs approval: it
// changes no data, but what every role without UNMASK reads from then on
// (dropping a mask shows them the values; adding one may break an
// application that reads them). A column live lacks is added
// with its mask (StepAddColumn), and one whose live type or kind is not
// the model's has its impossible step already: neither gets one here.
func (p *planner) masks(t *kandra.TableSchema, lt *LiveTable) {
	for _, c := range t.Columns() {
		lc := lt.Column(c.Name())
		if lc == nil {
			continue
		}
		w := modelColumn(c)
		if lc.Kind != w.kind || typeMismatch(w, lc) != "" {
			continue
		}
		want, masked := c.Mask()
		if !masked && lc.Mask == nil || masked && lc.Mask != nil && want.Equal(lc.Mask.Mask) {
			continue
		}
		column := "column " + strconv.Quote(c.Name()) + " of table " + strconv.Quote(t.Name())
		var reason string
		switch {
		case lc.Mask == nil:
			reason = column + " has no mask in live, and the model masks it with " + want.String() + ": roles without the UNMASK permission read its values masked from then on"
		case !masked:
			reason = column + " is masked with " + lc.Mask.String() + " in live, and the model has no mask: roles without the UNMASK permission read its values unmasked from then on"
		default:
			reason = column + " is masked with " + lc.Mask.String() + " in live, " + want.String() + " in the model"
			if lc.Mask.Unread != "" {
				reason += " (kandra cannot compare the live mask: " + lc.Mask.Unread + ")"
			}
		}
		p.add(phaseColumn, Step{ID: stepID(StepChangeMask, t.Name()+"."+c.Name()), Class: NeedsApproval, Kind: StepChangeMask, Table: t.Name(), Column: c.Name(),
			CQL: mustCQL(p.ks.AlterColumnMask(t, c)), Reason: reason})
	}
}
