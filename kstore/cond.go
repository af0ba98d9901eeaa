package kstore

import (
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/catalog"
)

// The conditions of a conditional Patch, DeleteIf or unit step, typed by
// their field handles, and the checks that keep them to what the servers
// take.

// Cond is the condition of a conditional Patch or DeleteIf: one of Eq,
// Ne, Lt, Le, Gt, Ge, In, IsNull, NotNull, EqAt, or Exists, joined by And.
type Cond[T any] struct {
	conds  []cond
	exists bool
}

// cond is one IF condition and its values.
type cond struct {
	col  *kandra.ColumnSchema
	op   catalog.CondOp
	k    any   // EqAt's key
	vals []any // its operands (a *V; EqAt's a V): one, In's, none for IsNull and NotNull
}

// appendCondShapes appends the shape of each of conds, as a statement's
// spec describes it (its values are bound apart).
func appendCondShapes(dst []catalog.Cond, conds []cond) []catalog.Cond {
	for _, x := range conds {
		dst = append(dst, catalog.Cond{Col: x.col, Op: x.op, Key: x.k != nil, N: len(x.vals)})
	}
	return dst
}

var condText = [...]string{" = ?", " != ?", " < ?", " <= ?", " > ?", " >= ?", " IN (...)", " = null", " != null"}

// what renders the condition as it is sent ("score < ?"), for messages.
func (x cond) what() string {
	if x.k != nil {
		return x.col.Name() + "[?] = ?"
	}
	return x.col.Name() + condText[x.op]
}

// And is c and d.
func (c Cond[T]) And(d Cond[T]) Cond[T] {
	return Cond[T]{conds: join(c.conds, d.conds), exists: c.exists || d.exists}
}

// String renders the condition ("done = ? AND tags != null").
func (c Cond[T]) String() string {
	s := ""
	if c.exists {
		s = "EXISTS"
	}
	for i, x := range c.conds {
		if i > 0 || c.exists {
			s += " AND "
		}
		s += x.what()
	}
	return s
}

func cond1[T, V any](f kandra.Field[T, V], op catalog.CondOp, vals ...any) Cond[T] {
	return Cond[T]{conds: []cond{{col: f.Column(), op: op, vals: vals}}}
}

// Eq is the condition that f's column holds v.
func Eq[T, V any](f kandra.Field[T, V], v V) Cond[T] { return cond1(f, catalog.Eq, &v) }

// Ne is the condition that f's column does not hold v (a null column does
// not hold it).
func Ne[T, V any](f kandra.Field[T, V], v V) Cond[T] { return cond1(f, catalog.Ne, &v) }

// Lt is the condition that f's column is less than v, in the order of
// its CQL type (never met by a null).
func Lt[T, V any](f kandra.Field[T, V], v V) Cond[T] { return cond1(f, catalog.Lt, &v) }

// Le is the condition that f's column is at most v.
func Le[T, V any](f kandra.Field[T, V], v V) Cond[T] { return cond1(f, catalog.Le, &v) }

// Gt is the condition that f's column is greater than v.
func Gt[T, V any](f kandra.Field[T, V], v V) Cond[T] { return cond1(f, catalog.Gt, &v) }

// Ge is the condition that f's column is at least v.
func Ge[T, V any](f kandra.Field[T, V], v V) Cond[T] { return cond1(f, catalog.Ge, &v) }

// In is the condition that f's column holds one of vs.
func In[T, V any](f kandra.Field[T, V], vs ...V) Cond[T] {
	vals := make([]any, len(vs))
	for i := range vs {
		vals[i] = &vs[i]
	}
	return cond1(f, catalog.In, vals...)
}

// IsNull is the condition that f's column is null (a missing row meets
// it: see Repo.Patch).
func IsNull[T, V any](f kandra.Field[T, V]) Cond[T] { return cond1(f, catalog.IsNull) }

// NotNull is the condition that f's column is not null.
func NotNull[T, V any](f kandra.Field[T, V]) Cond[T] { return cond1(f, catalog.NotNull) }

// EqAt is the condition that f's map holds v at key k (m[k] = v).
func EqAt[T any, M ~map[K]V, K comparable, V any](f kandra.Field[T, M], k K, v V) Cond[T] {
	return Cond[T]{conds: []cond{{col: f.Column(), op: catalog.Eq, k: k, vals: []any{v}}}}
}

// Exists is the condition that the row exists (IF EXISTS). The servers
// take it alone: joined to another condition it is refused.
func Exists[T any]() Cond[T] { return Cond[T]{exists: true} }

// impliesRow reports a condition a missing row (all null) does not meet:
// NotNull, or one comparing to a value that is not null but Ne.
func impliesRow(x cond) bool {
	switch x.op {
	case catalog.NotNull:
		return true // a missing row's column is null (seen on the node)
	case catalog.IsNull, catalog.Ne:
		return false
	}
	if x.k != nil {
		return true // an element's value is never null (CheckPart)
	}
	for _, v := range x.vals {
		if nullAt(x.col, v) {
			return false
		}
	}
	return len(x.vals) > 0
}

// checkCond refuses a condition the servers refuse.
func (r *Repo[T]) checkCond(op string, x cond) error {
	c := x.col
	switch {
	case c.Table() != r.ts:
		return r.argErr(op, "condition "+x.what(), "the field is "+c.Table().EntityType().String()+"'s, not "+r.typeName+"'s")
	case c.Role() != kandra.RegularColumn && !c.IsStatic():
		return r.argErr(op, "condition "+x.what(), c.Name()+" is in the primary key: the servers take no condition on it (the key names the row)")
	case c.IsCounter():
		return r.argErr(op, "condition "+x.what(), c.Name()+" is a counter: the servers take no condition on it")
	case x.k != nil && c.IsFrozen():
		return r.argErr(op, "condition "+x.what(), c.Name()+" is frozen: compare it whole with Eq")
	case x.op >= catalog.Lt && x.op <= catalog.Ge && (c.Type().IsCollection() || c.Type().Kind() == kandra.KindUDT || c.Type().Kind() == kandra.KindVector):
		return r.argErr(op, "condition "+x.what(), c.Name()+" is a "+c.Type().String()+": compare it with Eq, Ne or In")
	case x.op == catalog.In && len(x.vals) == 0:
		return r.argErr(op, "condition "+x.what(), "In without values is met by no row: nothing would be written")
	case x.k != nil && c.Type().Kind() == kandra.KindMap && (c.Type().Key().Equal(kandra.CQLUUID) || c.Type().Key().Equal(kandra.CQLTimeUUID)):
		// Cassandra 5.0 compares the map's value with the key type's
		// comparator (ColumnCondition's element access), which asserts a
		// UUID's length: the write fails on the server.
		return r.argErr(op, "condition "+x.what(), c.Name()+" is a "+c.Type().String()+": Cassandra 5.0 fails a condition on an element of a map keyed by UUIDs (it compares the value as a UUID); compare the whole map with Eq")
	}
	if x.k != nil {
		if err := c.CheckPart(x.k, true); err != nil {
			return err
		}
		for _, v := range x.vals {
			if err := c.CheckPart(v, false); err != nil {
				return err
			}
		}
		return nil
	}
	for _, v := range x.vals { // each a *V of the column's Go type
		if !c.ChecksValues() || nullAt(c, v) {
			continue // compared with null
		}
		if err := c.CheckValue(v); err != nil {
			return err
		}
	}
	return nil
}
