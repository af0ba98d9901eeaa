package kandra

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// The sizes Cassandra 5.0.8 (default cassandra.yaml, a keyspace with
// NetworkTopologyStrategy {'datacenter1': 1}) printed when it refused these
// CREATE TABLE statements: "Rejected an oversized mutation (N/16777216)
// for keyspace: system_schema". Every column is TEXT but where typ says;
// the key is "p" TEXT; names are padded to their length. To measure one
// again, send such a statement to a node and read N from the error, as
// integration's TestRules/schema-size does for a kandra table.
var schemaMeasurements = []struct {
	what          string
	keyspace      string
	table         string
	clustering    int // DESC clustering columns of 1,000-byte names
	regular       int // regular columns of 1,000-byte names, of type typ
	typ           string
	short         int // regular TEXT columns of 100-byte names
	measuredBytes int
}{
	{"5,600 columns", "kprobe", "t", 0, 5600, "text", 0, 17047497},
	{"5,700 columns", "kprobe", "t", 0, 5700, "text", 0, 17351897},
	{"48-byte keyspace, 200-byte table name", "kprobe_" + strings.Repeat("a", 41), strings.Repeat("t", 200), 0, 5600, "text", 0, 19288265},
	{"clustering columns, a map type, short names", "kprobe", "t2", 3, 5400, "map<text, bigint>", 3000, 17557847},
}

// TestSchemaMutationCalibration: the size model is exact for every
// measured table, and the estimate Register compares is above it by the
// allowances only, whatever the keyspace's name.
func TestSchemaMutationCalibration(t *testing.T) {
	for _, c := range schemaMeasurements {
		t.Run(c.what, func(t *testing.T) {
			build := func(keyspace int) schemaMutation {
				m := newSchemaMutation(keyspace, c.table)
				m.column(1, "partition_key", "none", len("text"))
				for i := 0; i < c.clustering; i++ {
					m.column(1000, "clustering", "desc", len("text"))
				}
				for i := 0; i < c.regular; i++ {
					m.column(1000, "regular", "none", len(c.typ))
				}
				for i := 0; i < c.short; i++ {
					m.column(100, "regular", "none", len("text"))
				}
				return m
			}
			if got := build(len(c.keyspace)).bytes; got != c.measuredBytes {
				t.Errorf("model: %d bytes, Cassandra counted %d (%+d)", got, c.measuredBytes, got-c.measuredBytes)
			}
			est := build(schemaKeyspaceNameBytes).estimate()
			if slack := est - c.measuredBytes; slack < 0 || slack > 6*1024 {
				t.Errorf("estimate %d is %d bytes above the measured %d; want 0 to 6 KiB", est, slack, c.measuredBytes)
			}
		})
	}
}

func TestVintBytes(t *testing.T) {
	for _, c := range []struct{ n, want int }{
		{0, 1}, {1, 1}, {127, 1}, {128, 2}, {1000, 2}, {16383, 2}, {16384, 3}, {1<<21 - 1, 3}, {1 << 21, 4}, {1<<28 - 1, 4}, {1 << 28, 5},
	} {
		if got := vintBytes(c.n); got != c.want {
			t.Errorf("vintBytes(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

// TestSchemaSizeMonotonic: a longer name, table name or type, or one more
// column, never makes the estimate smaller; each makes it larger.
func TestSchemaSizeMonotonic(t *testing.T) {
	type col struct {
		name, typ   int
		kind, order string
	}
	drawCol := func(t *rapid.T, label string) col {
		return col{
			name:  rapid.IntRange(1, MaxColumnNameBytes).Draw(t, label+" name"),
			typ:   rapid.IntRange(3, 4096).Draw(t, label+" type"),
			kind:  rapid.SampledFrom([]string{"partition_key", "clustering", "regular"}).Draw(t, label+" kind"),
			order: rapid.SampledFrom([]string{"none", "asc", "desc"}).Draw(t, label+" order"),
		}
	}
	size := func(table int, cols []col) int {
		m := newSchemaMutation(schemaKeyspaceNameBytes, strings.Repeat("t", table))
		for _, c := range cols {
			m.column(c.name, c.kind, c.order, c.typ)
		}
		return m.estimate()
	}
	rapid.Check(t, func(t *rapid.T) {
		table := rapid.IntRange(1, 222).Draw(t, "table")
		cols := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) col { return drawCol(t, "col") }), 1, 40).Draw(t, "cols")
		before := size(table, cols)
		grown := append([]col(nil), cols...)
		i := rapid.IntRange(0, len(cols)-1).Draw(t, "which")
		switch what := rapid.IntRange(0, 3).Draw(t, "grow"); what {
		case 0:
			grown = append(grown, drawCol(t, "added"))
		case 1:
			grown[i].name += rapid.IntRange(1, 4096).Draw(t, "longer name")
		case 2:
			grown[i].typ += rapid.IntRange(1, 4096).Draw(t, "longer type")
		default:
			table += rapid.IntRange(1, 222).Draw(t, "longer table")
		}
		if after := size(table, grown); after <= before {
			t.Fatalf("grown from %d to %d bytes", before, after)
		}
	})
}

// wideSpec is what Describe would collect for a struct of string fields:
// ID, the partition key, then keys more partition-key columns and regular
// regular columns, each named with Column by a distinct name of nameLen
// bytes; lookup, when set, is the suffix of a lookup on the first regular
// column.
type wideSpec struct {
	table         string
	keys, regular int
	nameLen       int
	lookup        string
	comment       *string // the table's Comment
}

func (w wideSpec) describe() (reflect.Type, describeResult) {
	n := 1 + w.keys + w.regular
	fields := make([]reflect.StructField, n)
	fields[0] = reflect.StructField{Name: "ID", Type: stringType}
	for i := 1; i < n; i++ {
		fields[i] = reflect.StructField{Name: "F" + strconv.Itoa(i), Type: stringType}
	}
	typ := reflect.StructOf(fields)
	probe := reflect.New(typ)
	d := describeResult{probe: probe.Interface(), table: w.table, tableCalls: 1}
	d.opts.storage.Comment = w.comment
	for i := 0; i < n; i++ {
		var opts []FieldOption
		switch {
		case i == 0:
			opts = []FieldOption{PartitionKey(0)}
		case i <= w.keys:
			opts = []FieldOption{PartitionKey(i), Column(w.name(i))}
		default:
			opts = []FieldOption{Column(w.name(i))}
			if i == w.keys+1 && w.lookup != "" {
				opts = append(opts, Lookup(w.lookup, LookupBatch))
			}
		}
		d.binds = append(d.binds, bindRecord{ptr: probe.Elem().Field(i).Addr().Interface(), typ: stringType, opts: opts})
	}
	return typ, d
}

func (w wideSpec) name(i int) string {
	s := "c" + strconv.Itoa(i) + "_"
	return s + strings.Repeat("x", w.nameLen-len(s))
}

// built builds w for a rule case.
func (w wideSpec) built() built {
	return func() outcome {
		typ, d := w.describe()
		_, err := build(typ, d)
		typ2, d2 := w.describe()
		return outcome{typ.String(), err, brokenChecks(typ2, d2)}
	}
}

// estimates are the estimates Register makes for w's table and its lookup
// table, written from the layout kandra renders.
func (w wideSpec) estimates() (table, lookup int) {
	m := newSchemaMutation(schemaKeyspaceNameBytes, w.table)
	m.column(2, "partition_key", "none", len("TEXT"))
	for i := 1; i <= w.keys; i++ {
		m.column(w.nameLen, "partition_key", "none", len("TEXT"))
	}
	for i := 0; i < w.regular; i++ {
		m.column(w.nameLen, "regular", "none", len("TEXT"))
	}
	m.comment(w.comment)
	l := newSchemaMutation(schemaKeyspaceNameBytes, w.table+"_"+w.lookup)
	l.column(w.nameLen, "partition_key", "none", len("TEXT"))
	l.column(2, "regular", "none", len("TEXT"))
	for i := 1; i <= w.keys; i++ {
		l.column(w.nameLen, "regular", "none", len("TEXT"))
	}
	return m.estimate(), l.estimate()
}

// largest returns the largest n for which grow(n)'s estimate fits, with
// grow's estimate growing in n.
func largest(grow func(n int) int) int {
	lo, hi := 0, 1
	for grow(hi) <= MaxSchemaMutationBytes {
		hi *= 2
	}
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if grow(mid) <= MaxSchemaMutationBytes {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// TestSchemaSizeEdge: the widest table whose estimate fits registers, and
// one more column is refused, naming the estimate; likewise for a lookup
// table, which carries the primary key under a longer name and can pass
// the limit while its table does not.
func TestSchemaSizeEdge(t *testing.T) {
	t.Run("table", func(t *testing.T) {
		w := wideSpec{table: "wide", nameLen: 1000}
		w.regular = largest(func(n int) int { w.regular = n; e, _ := w.estimates(); return e })
		typ, d := w.describe()
		ts, err := build(typ, d)
		if err != nil {
			t.Fatalf("%d regular columns (estimate %d): %v", w.regular, first(w.estimates()), err)
		}
		if got, want := len(ts.Columns()), 1+w.regular; got != want {
			t.Fatalf("%d columns, want %d", got, want)
		}
		w.regular++
		o := w.built().run(t)
		est, _ := w.estimates()
		wantSchemaError(t, o.err, RuleSchemaSize, "", fmt.Sprintf(`table "wide" makes a schema mutation of an estimated %d bytes (%d columns), over 16777216 (MaxSchemaMutationBytes)`, est, 1+w.regular), o.entity)
	})
	t.Run("lookup table", func(t *testing.T) {
		w := wideSpec{table: "t", regular: 1, nameLen: 1000, lookup: strings.Repeat("s", 200)}
		w.keys = largest(func(n int) int { w.keys = n; _, e := w.estimates(); return e })
		typ, d := w.describe()
		if _, err := build(typ, d); err != nil {
			t.Fatalf("%d key columns (lookup estimate %d): %v", w.keys, second(w.estimates()), err)
		}
		w.keys++
		table, lookup := w.estimates()
		if table > MaxSchemaMutationBytes {
			t.Fatalf("the table itself is over the limit (%d): the case shows nothing about lookup tables", table)
		}
		o := w.built().run(t)
		wantSchemaError(t, o.err, RuleSchemaSize, "F"+strconv.Itoa(w.keys+1), fmt.Sprintf(`lookup table "t_%s" makes a schema mutation of an estimated %d bytes (%d columns)|a shorter lookup suffix`, w.lookup, lookup, w.keys+2), o.entity)
	})
}

var stringType = reflect.TypeFor[string]()

func first(a, _ int) int  { return a }
func second(_, b int) int { return b }

// TestSchemaMutationCountsTheComment: the comment is in the tables row.
// Measured on Cassandra 5.0 (default cassandra.yaml): CREATE TABLE
// kandra_it_e68ebf0b_probec.c1 (k int PRIMARY KEY, v text) WITH a comment
// of 16,777,000 bytes: "Rejected an oversized mutation
// (16778223/16777216) for keyspace: system_schema". The model of this
// table is 2 bytes above it (the measurements above are of wide tables);
// the estimate is never below it.
func TestSchemaMutationCountsTheComment(t *testing.T) {
	const measured = 16778223
	model := func(keyspace int) schemaMutation {
		m := newSchemaMutation(keyspace, "c1")
		m.column(1, "partition_key", "none", len("int"))
		m.column(1, "regular", "none", len("text"))
		c := strings.Repeat("c", 16777000)
		m.comment(&c)
		return m
	}
	if got := model(len("kandra_it_e68ebf0b_probec")).bytes; got < measured || got > measured+2 {
		t.Errorf("model: %d bytes, Cassandra counted %d (%+d)", got, measured, got-measured)
	}
	if est := model(schemaKeyspaceNameBytes).estimate(); est < measured || est > measured+6*1024 {
		t.Errorf("estimate %d, measured %d", est, measured)
	}
	// Register counts it: the widest table that fits without a comment
	// is refused with one.
	w := wideSpec{table: "wide", nameLen: 1000}
	w.regular = largest(func(n int) int { w.regular = n; e, _ := w.estimates(); return e })
	typ, d := w.describe()
	if _, err := build(typ, d); err != nil {
		t.Fatalf("without a comment: %v", err)
	}
	c := strings.Repeat("c", MaxCommentBytes)
	w.comment = &c
	est, _ := w.estimates()
	o := w.built().run(t)
	wantSchemaError(t, o.err, RuleSchemaSize, "", fmt.Sprintf(`table "wide" makes a schema mutation of an estimated %d bytes`, est), o.entity)
}
