package migrate

// The column masks GenerateEntities declares (kandra.Masked).

import (
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
)

// masks gives e's fields the masks of their live columns, where kandra
// takes one: a column the runtime neither filters by nor reads back
// (RuleMask), in a keyspace of Cassandra targets (RuleMaskTarget), with a
// mask kandra models (LiveMask.Mask).
func (g *gen) masks(e *entity) {
	for _, f := range e.fields {
		m := f.col.Mask
		if m == nil {
			continue
		}
		what := "the mask " + m.String() + " of column " + e.table.Name + "." + f.col.Name
		key := f.col.Kind == ColumnPartitionKey || f.col.Kind == ColumnClustering
		var why string
		switch {
		case m.Mask.IsZero():
			why = "kandra cannot model it: " + m.Unread
		case m.Mask.Check(f.col.Type) != nil:
			why = m.Mask.Check(f.col.Type).Error()
		case key || f.indexed || f.lookup:
			why = "kandra takes no mask on a key, indexed or lookup column, which the runtime filters by (RuleMask)"
		case !g.allTargets(kandra.Cassandra5 | kandra.Cassandra5Latest):
			why = "only Cassandra has masks, and the targets are not all Cassandra's (RuleMaskTarget)"
		}
		expr := ""
		if why == "" {
			if expr = g.maskExpr(m); expr == "" {
				why = "kandra has no Go form of its arguments"
			}
		}
		if why != "" {
			g.unexpressed(what + ": " + why + "; the model declares the column without it, and a plan of the model drops the mask (a change-mask step): do not apply that step while the keyspace needs the mask")
			continue
		}
		f.opts = append(f.opts, "kandra.Masked("+expr+")")
	}
}

// maskExpr is the Go expression of the kandra.Mask of m, which kandra
// models (m.Mask is not zero), or "".
func (g *gen) maskExpr(m *LiveMask) string {
	null := func(i int) bool { return i < len(m.ArgumentNulls) && m.ArgumentNulls[i] }
	switch fn := m.Mask.Function(); fn {
	case "mask_null":
		return "kandra.MaskNull()"
	case "mask_default":
		return "kandra.MaskDefault()"
	case "mask_inner", "mask_outer":
		args := make([]string, 2, 3)
		for i := range 2 {
			n := int64(0)
			if !null(i) {
				n, _ = strconv.ParseInt(m.ArgumentValues[i], 10, 32)
			}
			args[i] = strconv.FormatInt(max(n, 0), 10)
		}
		if len(m.ArgumentValues) == 3 && !null(2) {
			if r := []rune(m.ArgumentValues[2]); len(r) == 1 {
				args = append(args, strconv.QuoteRune(r[0]))
			}
		}
		name := map[string]string{"mask_inner": "kandra.MaskInner(", "mask_outer": "kandra.MaskOuter("}[fn]
		expr := name + args[0] + ", " + args[1]
		if len(args) == 3 {
			expr += ", " + args[2]
		}
		return expr + ")"
	case "mask_hash":
		if len(m.ArgumentValues) == 1 && !null(0) {
			return "kandra.MaskHash(" + strconv.Quote(m.ArgumentValues[0]) + ")"
		}
		return "kandra.MaskHash()"
	case "mask_replace":
		v, _, why := replacementOf(m.ArgumentTypes[0], m.ArgumentValues[0])
		if why != "" {
			return ""
		}
		var lit string
		switch v := v.(type) {
		case string:
			lit = strconv.Quote(v)
		case int64:
			lit = "int64(" + strconv.FormatInt(v, 10) + ")"
		case bool:
			lit = strconv.FormatBool(v)
		case float32:
			lit = "float32(" + strconv.FormatFloat(float64(v), 'g', -1, 32) + ")"
		case float64:
			lit = "float64(" + strconv.FormatFloat(v, 'g', -1, 64) + ")"
		case []byte:
			lit = "[]byte(" + strconv.Quote(string(v)) + ")"
		case uuid.UUID:
			g.use("github.com/google/uuid")
			lit = "uuid.MustParse(" + strconv.Quote(v.String()) + ")"
		case time.Time:
			g.use("time")
			lit = "time.UnixMilli(" + strconv.FormatInt(v.UnixMilli(), 10) + ").UTC()"
		default:
			return ""
		}
		return "kandra.MaskReplace(" + lit + ")"
	}
	return ""
}
