package catalog_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/internal/catalog"
	_ "github.com/kandra-go/kandra/internal/rapidseed"
	"pgregory.net/rapid"
)

// shapeRow has a column of each kind a partial write changes.
type shapeRow struct {
	P       string
	C1, C2  int32
	A, B    string
	L       []string
	S       map[string]struct{}
	M       map[string]int32
	Version int64
}

func (r *shapeRow) Describe(s *kandra.Schema[shapeRow]) {
	s.Table("shapes")
	kandra.Bind(s, &r.P, kandra.PartitionKey(0))
	kandra.Bind(s, &r.C1, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &r.C2, kandra.ClusteringKey(1, kandra.ClusteringAsc))
	kandra.Bind(s, &r.A)
	kandra.Bind(s, &r.B)
	kandra.Bind(s, &r.L)
	kandra.Bind(s, &r.S)
	kandra.Bind(s, &r.M)
	kandra.Version(s, &r.Version)
}

// render is a statement as the shape cache must tell it apart: its text
// and its bind plan.
func render(st *adapter.Statement) string {
	if st == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%s %v %v %t %t", st.CQL(), st.Params(), st.ResultColumns(), st.IsConditional(), st.IsIdempotent())
}

// TestShapesCacheTellsShapesApart: whatever order shapes are asked in,
// each call returns the statement of its own shape (as a table that never
// saw another shape renders it), and two shapes share a statement only
// when they are the same shape: the cache's keys never collide.
func TestShapesCacheTellsShapesApart(t *testing.T) {
	ts := kandra.MustRegister[shapeRow]().Schema()
	var regular, clustering []*kandra.ColumnSchema
	for _, c := range ts.Columns() {
		if c.Role() == kandra.RegularColumn {
			regular = append(regular, c)
		}
	}
	clustering = ts.ClusteringKeys()
	// A small space of shapes, so that a run asks for shapes that differ
	// in one part only: the ones a key that leaves a part out confuses.
	few := regular[:3]
	rapid.Check(t, func(rt *rapid.T) {
		shared, err := catalog.Build(ts, "ks")
		if err != nil {
			rt.Fatal(err)
		}
		byText := map[string]string{} // statement -> the shape that asked for it
		var prev *catalog.PatchSpec
		for i, n := 0, rapid.IntRange(10, 40).Draw(rt, "calls"); i < n; i++ {
			var shape string
			var ask, askShared func(*catalog.Table) *adapter.Statement
			switch rapid.IntRange(0, 3).Draw(rt, "kind") {
			case 0:
				spec := &catalog.PatchSpec{Using: catalog.Using(rapid.IntRange(0, 3).Draw(rt, "using"))}
				for j, k := 0, rapid.IntRange(1, 2).Draw(rt, "sets"); j < k; j++ {
					spec.Sets = append(spec.Sets, catalog.Set{Col: rapid.SampledFrom(few).Draw(rt, "setcol"), Op: catalog.SetOp(rapid.IntRange(0, 6).Draw(rt, "op"))})
				}
				if rapid.Bool().Draw(rt, "exists") {
					spec.IfExists = true
				} else {
					for j, k := 0, rapid.IntRange(0, 2).Draw(rt, "conds"); j < k; j++ {
						spec.Conds = append(spec.Conds, catalog.Cond{Col: rapid.SampledFrom(few).Draw(rt, "condcol"),
							Op: catalog.CondOp(rapid.IntRange(0, 8).Draw(rt, "condop")), Key: rapid.Bool().Draw(rt, "key"), N: rapid.IntRange(1, 3).Draw(rt, "n")})
					}
				}
				if prev != nil && rapid.Bool().Draw(rt, "variant") {
					// The previous shape with one part changed.
					v := *prev
					v.Sets, v.Conds = append([]catalog.Set(nil), prev.Sets...), append([]catalog.Cond(nil), prev.Conds...)
					switch part := rapid.IntRange(0, 4).Draw(rt, "part"); {
					case part == 0 || len(v.Conds) == 0:
						v.Sets[0].Op = catalog.SetOp(rapid.IntRange(0, 6).Draw(rt, "op"))
					case part == 1:
						v.Conds[0].Op = catalog.CondOp(rapid.IntRange(0, 8).Draw(rt, "condop"))
					case part == 2:
						v.Conds[0].Key = !v.Conds[0].Key
					case part == 3:
						v.Conds[0].Op, v.Conds[0].N = catalog.In, rapid.IntRange(1, 3).Draw(rt, "n")
					default:
						v.Using ^= catalog.UsingTTL
					}
					spec = &v
				}
				for j := range spec.Conds {
					if spec.Conds[j].Op != catalog.In {
						spec.Conds[j].N = 1 // N counts IN's values only
					}
				}
				prev = spec
				shape = fmt.Sprintf("patch %v", *spec)
				ask = func(tb *catalog.Table) *adapter.Statement { return tb.Patch(spec, make([]byte, 0, 8)) }
				if set := spec.Sets[0]; len(spec.Sets) == 1 && len(spec.Conds) == 0 && rapid.Bool().Draw(rt, "patchone") {
					// kstore's most common Patch: the shared table is
					// asked by PatchOne, the fresh one by the spec.
					askShared = func(tb *catalog.Table) *adapter.Statement {
						return tb.PatchOne(set.Col, set.Op, spec.IfExists, spec.Using)
					}
				} else if rapid.Bool().Draw(rt, "cached") {
					// kstore's plain Patch: the shared table is asked by
					// PatchCached first, the fresh one by Patch.
					askShared = func(tb *catalog.Table) *adapter.Statement {
						if st := tb.PatchCached(spec); st != nil {
							return st
						}
						return tb.Patch(spec, nil)
					}
				}
			case 1:
				spec := &catalog.DeleteSpec{Using: catalog.Using(rapid.IntRange(0, 1).Draw(rt, "ts")) * catalog.UsingTimestamp}
				if rapid.Bool().Draw(rt, "row") {
					spec.Row, spec.IfExists = true, rapid.Bool().Draw(rt, "exists")
				} else {
					spec.Prefix = rapid.IntRange(0, len(clustering)).Draw(rt, "prefix")
					if spec.Prefix < len(clustering) {
						spec.Lower = catalog.Bound(rapid.IntRange(0, 2).Draw(rt, "lower"))
						spec.Upper = catalog.Bound(rapid.IntRange(0, 2).Draw(rt, "upper"))
					}
				}
				shape = fmt.Sprintf("delete %v", *spec)
				ask = func(tb *catalog.Table) *adapter.Statement { return tb.DeleteWhere(spec, nil) }
			case 2:
				// A count ignores the order and the limit: they are not
				// part of its shape.
				var r catalog.Range
				r.Prefix = rapid.IntRange(0, len(clustering)).Draw(rt, "prefix")
				if n := len(clustering) - r.Prefix; n > 0 {
					r.Lower = catalog.Bound(rapid.IntRange(0, 2).Draw(rt, "lower"))
					r.Upper = catalog.Bound(rapid.IntRange(0, 2).Draw(rt, "upper"))
					if n > 1 && r.Lower != catalog.Unbounded && rapid.Bool().Draw(rt, "lowertuple") {
						r.LowerN = rapid.IntRange(2, n).Draw(rt, "lowern")
					}
					if n > 1 && r.Upper != catalog.Unbounded && rapid.Bool().Draw(rt, "uppertuple") {
						r.UpperN = rapid.IntRange(2, n).Draw(rt, "uppern")
					}
				}
				shape = fmt.Sprintf("count %v", r)
				r.Reversed, r.Limit = rapid.Bool().Draw(rt, "reversed"), rapid.Bool().Draw(rt, "limit")
				ask = func(tb *catalog.Table) *adapter.Statement { return tb.CountPartition(r) }
			default:
				var cols []*kandra.ColumnSchema
				for _, c := range regular {
					if rapid.Bool().Draw(rt, "col") {
						cols = append(cols, c)
					}
				}
				if len(cols) == 0 {
					cols = regular[:1]
				}
				u, v := catalog.Using(rapid.IntRange(0, 3).Draw(rt, "using")), rapid.Bool().Draw(rt, "ifversion")
				shape = fmt.Sprintf("update %v %d %t", names(cols), u, v)
				ask = func(tb *catalog.Table) *adapter.Statement { return tb.UpdateColumns(cols, u, v, nil) }
			}
			fresh, err := catalog.Build(ts, "ks")
			if err != nil {
				rt.Fatal(err)
			}
			if askShared == nil {
				askShared = ask
			}
			got, want := render(askShared(shared)), render(ask(fresh))
			if got != want {
				rt.Fatalf("%s: the cache returned\n%s\nwhere the shape renders\n%s", shape, got, want)
			}
			if prev, ok := byText[got]; ok && prev != shape {
				rt.Fatalf("two shapes, one statement %s:\n%s\n%s", got, prev, shape)
			}
			byText[got] = shape
		}
	})
}

func names(cols []*kandra.ColumnSchema) string {
	var b strings.Builder
	for _, c := range cols {
		b.WriteString(c.Name() + ",")
	}
	return b.String()
}
