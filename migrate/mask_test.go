package migrate

import (
	"context"
	"encoding/hex"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/dynamic"
	"github.com/kandra-go/kandra/kerrors"
)

// The rows of system_schema.column_masks as Cassandra 5.0 writes them,
// written here from the CQL a mask is declared with (Mask.String), as the
// server reads it: the function, then per argument its type
// (function_argument_types), its value as the type prints it
// (AbstractType.getString: text as is, a blob in hex without 0x, a double
// as Java's Double.toString, a timestamp in ISO 8601 with milliseconds)
// and whether it is null.

// serverMaskRow is the row of column col (of type typ) of table tn masked
// with m.
func serverMaskRow(keyspace, tn, col string, typ kandra.CQLType, m kandra.Mask) map[string]any {
	s := m.String()
	fn, rest, _ := strings.Cut(s, "(")
	args := splitArgs(strings.TrimSuffix(rest, ")"))
	types, values, nulls := []string{}, []string{}, []bool{}
	for i, a := range args {
		var t string
		switch fn {
		case "mask_inner", "mask_outer":
			t = [...]string{"int", "int", "text"}[i]
		case "mask_hash":
			t = "text"
		case "mask_replace":
			t = serverType(typ, false)
		}
		types, nulls = append(types, t), append(nulls, a == "null")
		values = append(values, serverValue(t, a))
	}
	return map[string]any{"keyspace_name": keyspace, "table_name": tn, "column_name": col, "function_keyspace": "system", "function_name": fn,
		"function_argument_types": types, "function_argument_values": values, "function_argument_nulls": nulls}
}

// splitArgs splits a CQL argument list at its top-level commas.
func splitArgs(s string) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\'':
			quoted = !quoted
		case s[i] == ',' && !quoted:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" || len(out) > 0 {
		out = append(out, rest)
	}
	return out
}

// serverValue is a literal of type t as the server prints the value.
func serverValue(t, lit string) string {
	switch {
	case lit == "null":
		return ""
	case strings.HasPrefix(lit, "'"):
		return strings.ReplaceAll(lit[1:len(lit)-1], "''", "'")
	case strings.HasPrefix(lit, "0x"):
		return strings.ToLower(lit[2:])
	case t == "double" || t == "float":
		f, _ := strconv.ParseFloat(lit, 64)
		return javaFloat(f, t == "float")
	}
	return lit
}

// javaFloat is Java's Double.toString (Float.toString for a float): a
// decimal with a fraction from 10^-3 to 10^7, else d.dddE±n.
func javaFloat(f float64, float32 bool) string {
	bits := 64
	if float32 {
		bits = 32
	}
	if a := math.Abs(f); a == 0 || a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'E', -1, bits) // 1E+10, 1.5E-07
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	n, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(n)
}

// maskRows are the column_masks rows of model table t's masked columns.
func maskRows(keyspace string, t *kandra.TableSchema, cols []*kandra.ColumnSchema, masks map[string]*kandra.Mask) []map[string]any {
	var out []map[string]any
	for _, c := range cols {
		m, ok := c.Mask()
		if over, set := masks[t.Name()+"."+c.Name()]; set {
			m, ok = kandra.Mask{}, over != nil
			if ok {
				m = *over
			}
		}
		if ok {
			out = append(out, serverMaskRow(keyspace, t.Name(), c.Name(), c.Type(), m))
		}
	}
	return out
}

// setFakeMask records what a StepChangeMask step did on the fake server.
func (f *fakeDriver) setMask(s Step) {
	if f.masks == nil {
		f.masks = map[string]*kandra.Mask{}
	}
	var m *kandra.Mask
	if got, ok := f.target.Table(s.Table).ColumnByName(s.Column).Mask(); ok {
		m = &got
	}
	f.masks[s.Table+"."+s.Column] = m
}

func TestServerMaskRows(t *testing.T) {
	// The helper writes what the node wrote (scripts/cassandra.sh's node,
	// Cassandra 5.0.8, SELECT * FROM system_schema.column_masks).
	for _, c := range []struct {
		typ    kandra.CQLType
		m      kandra.Mask
		types  string
		values string
	}{
		{kandra.CQLText, kandra.MaskInner(1, 2, '#'), "int int text", "1 2 #"},
		{kandra.CQLBlob, kandra.MaskHash("SHA-512"), "text", "SHA-512"},
		{kandra.CQLDouble, kandra.MaskReplace(2.0), "double", "2.0"},
		{kandra.CQLDouble, kandra.MaskReplace(1e6), "double", "1000000.0"},
		{kandra.CQLFloat, kandra.MaskReplace(float32(3.4028235e38)), "float", "3.4028235E38"},
		{kandra.CQLDouble, kandra.MaskReplace(1e-4), "double", "1.0E-4"},
		{kandra.CQLBlob, kandra.MaskReplace([]byte{0xca, 0xfe}), "blob", "cafe"},
		{kandra.CQLTimestamp, kandra.MaskReplace(time.Date(2020, 1, 1, 0, 0, 0, 123e6, time.UTC)), "timestamp", "2020-01-01T00:00:00.123Z"},
		{kandra.CQLVarchar, kandra.MaskReplace("redacted"), "text", "redacted"},
		{kandra.CQLInt, kandra.MaskDefault(), "", ""},
	} {
		row := serverMaskRow("ks", "t", "c", c.typ, c.m)
		if got := strings.Join(row["function_argument_types"].([]string), " "); got != c.types {
			t.Errorf("%v: types %q, want %q", c.m, got, c.types)
		}
		if got := strings.Join(row["function_argument_values"].([]string), " "); got != c.values {
			t.Errorf("%v: values %q, want %q", c.m, got, c.values)
		}
	}
}

func maskRow(table, col, fn string, types, values []string, nulls []bool) map[string]any {
	return map[string]any{"keyspace_name": "ks", "table_name": table, "column_name": col, "function_keyspace": "system", "function_name": fn,
		"function_argument_types": types, "function_argument_values": values, "function_argument_nulls": nulls}
}

func TestLiveFromRowsMasks(t *testing.T) {
	cols := []map[string]any{}
	for _, c := range []struct{ name, typ string }{{"k", "int"}, {"a", "text"}, {"b", "text"}, {"c", "ascii"}, {"d", "int"}, {"e", "blob"}, {"f", "blob"},
		{"g", "text"}, {"h", "int"}, {"i", "text"}, {"j", "text"}, {"l", "text"}, {"m", "counter"}, {"n", "list<text>"}, {"o", "text"},
		{"p", "timestamp"}, {"q", "float"}, {"r", "uuid"}, {"s", "boolean"}, {"u", "text"}, {"v", "text"}, {"w", "blob"}, {"x", "text"}, {"y", "double"}} {
		kind := "regular"
		if c.name == "k" {
			kind = "partition_key"
		}
		cols = append(cols, map[string]any{"table_name": "t", "column_name": c.name, "kind": kind, "position": 0, "type": c.typ})
	}
	none := []string{}
	// Rows as the node wrote them (probe of Cassandra 5.0.8).
	r := &schemaRows{Keyspaces: []map[string]any{ksRow()}, Tables: []map[string]any{{"table_name": "t", "flags": []string{"compound"}}}, Columns: cols,
		ColumnMasks: []map[string]any{
			maskRow("t", "a", "mask_outer", []string{"int", "int"}, []string{"0", "0"}, []bool{false, false}),
			maskRow("t", "b", "mask_inner", []string{"int", "int", "text"}, []string{"1", "", "#"}, []bool{false, true, false}),
			maskRow("t", "c", "mask_outer", []string{"int", "int"}, []string{"-1", "2"}, nil),
			maskRow("t", "d", "mask_default", none, none, []bool{}),
			maskRow("t", "e", "mask_hash", none, none, nil),
			maskRow("t", "f", "mask_hash", []string{"text"}, []string{"sha-512"}, []bool{false}),
			maskRow("t", "g", "mask_replace", []string{"text"}, []string{"redacted"}, []bool{false}),
			maskRow("t", "h", "mask_replace", []string{"int"}, []string{"-1"}, []bool{false}),
			maskRow("t", "i", "mask_null", none, none, nil),
			maskRow("t", "j", "mask_inner", []string{"int", "int", "text"}, []string{"1", "2", "##"}, []bool{false, false, false}),
			maskRow("t", "l", "mask_replace", []string{"text"}, []string{""}, []bool{true}),
			maskRow("t", "m", "mask_replace", []string{"counter"}, []string{"0000000000000005"}, []bool{false}),
			maskRow("t", "n", "mask_replace", []string{"list<text>"}, []string{"000000010000000178"}, []bool{false}),
			{"keyspace_name": "ks", "table_name": "t", "column_name": "o", "function_keyspace": "ks", "function_name": "redact",
				"function_argument_types": []string{"text"}, "function_argument_values": []string{"x"}},
			maskRow("t", "p", "mask_replace", []string{"timestamp"}, []string{"2020-01-01T00:00:00.000Z"}, []bool{false}),
			maskRow("t", "q", "mask_replace", []string{"float"}, []string{"0.1"}, []bool{false}),
			maskRow("t", "r", "mask_replace", []string{"uuid"}, []string{"00000000-0000-0000-0000-000000000000"}, []bool{false}),
			maskRow("t", "s", "mask_replace", []string{"boolean"}, []string{"true"}, []bool{false}),
			maskRow("t", "u", "mask_inner", []string{"int", "int", "text"}, []string{"1", "2", "😀"}, []bool{false, false, false}),
			maskRow("t", "v", "mask_sparkle", none, none, nil),
			maskRow("t", "w", "mask_hash", []string{"text"}, []string{"nope"}, []bool{false}),
			maskRow("t", "x", "mask_default", []string{"int"}, []string{"1"}, []bool{false}),
			maskRow("t", "k", "mask_null", none, none, nil),
			maskRow("t", "y", "mask_replace", []string{"double"}, []string{"4.9E-324"}, []bool{false}), // Java's form of the least double
			maskRow("t", "gone", "mask_null", none, none, nil),                                         // a column dropped meanwhile
			maskRow("a_view", "a", "mask_null", none, none, nil),                                       // a view's
			maskRow("other_ks", "a", "mask_null", none, none, nil),                                     // not a table of the keyspace
		}}
	r.ColumnMasks[len(r.ColumnMasks)-1]["keyspace_name"] = "other"
	live, err := liveFromRows("ks", r)
	if err != nil {
		t.Fatal(err)
	}
	lt := live.Table("t")
	for _, c := range []struct {
		col    string
		want   kandra.Mask
		unread string
	}{
		{"a", kandra.MaskOuter(0, 0), ""},
		{"b", kandra.MaskInner(1, 0, '#'), ""}, // a null count is 0
		{"c", kandra.MaskOuter(0, 2), ""},      // and a negative one
		{"d", kandra.MaskDefault(), ""},
		{"e", kandra.MaskHash(), ""},
		{"f", kandra.MaskHash("SHA-512"), ""},
		{"g", kandra.MaskReplace("redacted"), ""},
		{"h", kandra.MaskReplace(-1), ""},
		{"i", kandra.MaskNull(), ""},
		{"j", kandra.Mask{}, `its padding "##" is not one character`},
		{"l", kandra.Mask{}, "it replaces the value by null"},
		{"m", kandra.Mask{}, "kandra does not read a replacement of type counter"},
		{"n", kandra.Mask{}, "of type list<text>"},
		{"o", kandra.Mask{}, "it is the user-defined function ks.redact"},
		{"p", kandra.MaskReplace(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)), ""},
		{"q", kandra.MaskReplace(float32(0.1)), ""},
		{"r", kandra.MaskReplace(uuid.Nil), ""},
		{"s", kandra.MaskReplace(true), ""},
		{"u", kandra.Mask{}, "is two UTF-16 units"},
		{"v", kandra.Mask{}, "kandra does not know the masking function mask_sparkle"},
		{"w", kandra.Mask{}, `MaskHash is given the algorithm "nope"`},
		{"x", kandra.Mask{}, "mask_default has 1 arguments after the column's value"},
		{"k", kandra.MaskNull(), ""},
		{"y", kandra.MaskReplace(5e-324), ""},
	} {
		lc := lt.Column(c.col)
		if lc.Mask == nil {
			t.Errorf("column %s: no mask", c.col)
			continue
		}
		if !lc.Mask.Mask.Equal(c.want) || c.want.IsZero() != lc.Mask.Mask.IsZero() || !strings.Contains(lc.Mask.Unread, c.unread) || (c.unread == "") != (lc.Mask.Unread == "") {
			t.Errorf("column %s: mask %v (unread %q), want %v (unread %q)", c.col, lc.Mask.Mask, lc.Mask.Unread, c.want, c.unread)
		}
	}
	if s := lt.Column("o").Mask.String(); s != "ks.redact('x')" {
		t.Errorf("an unread mask renders %q", s)
	}
	if s := lt.Column("l").Mask.String(); s != "mask_replace(null)" {
		t.Errorf("a null argument renders %q", s)
	}
	if s := lt.Column("b").Mask.String(); s != "mask_inner(1, 0, '#')" {
		t.Errorf("a read mask renders %q", s)
	}

	for _, c := range []struct {
		name string
		row  map[string]any
		want string
	}{
		{"no function", map[string]any{"table_name": "t", "column_name": "a"}, "column function_name is missing"},
		{"fewer values than types", maskRow("t", "a", "mask_inner", []string{"int", "int"}, []string{"1"}, nil), "has 1 values for 2 argument types of the mask of t.a"},
		{"fewer nulls than types", maskRow("t", "a", "mask_inner", []string{"int", "int"}, []string{"1", "2"}, []bool{false}), "has 1 entries for 2 argument types"},
		{"nulls as text", map[string]any{"table_name": "t", "column_name": "a", "function_name": "mask_null", "function_argument_nulls": "no"}, "column function_argument_nulls is a string, want a []bool"},
	} {
		bad := *r
		bad.ColumnMasks = []map[string]any{c.row}
		if _, err := liveFromRows("ks", &bad); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "column_masks") {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
	twice := *r
	twice.ColumnMasks = append(twice.ColumnMasks, maskRow("t", "a", "mask_null", none, none, nil))
	if _, err := liveFromRows("ks", &twice); err == nil || !strings.Contains(err.Error(), `repeats "a" in table "t"`) {
		t.Errorf("two masks of a column: %v", err)
	}
	orphan := &schemaRows{ColumnMasks: []map[string]any{maskRow("t", "a", "mask_null", none, none, nil)}}
	if _, err := liveFromRows("ks", orphan); err == nil || !strings.Contains(err.Error(), "system_schema.keyspaces") {
		t.Errorf("a mask without its keyspace row: %v", err)
	}
}

// TestMaskRowsRoundTrip: every mask kandra takes, stored by the server on a
// column of a type that takes it, reads back as the same mask; and rows
// of arbitrary values never panic, and a mask read from one is one the
// argument types take.
func TestMaskRowsRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		typ, m := drawMask(t)
		if err := m.Check(typ); err != nil {
			t.Fatalf("drawn %v on %v: %v", m, typ, err)
		}
		row := serverMaskRow("ks", "t", "c", typ, m)
		r := &schemaRows{Keyspaces: []map[string]any{ksRow()}, Tables: []map[string]any{{"table_name": "t", "flags": []string{"compound"}}},
			Columns:     []map[string]any{{"table_name": "t", "column_name": "c", "kind": "regular", "type": serverType(typ, false)}},
			ColumnMasks: []map[string]any{row}}
		live, err := liveFromRows("ks", r)
		if err != nil {
			t.Fatal(err)
		}
		got := live.Table("t").Column("c").Mask
		if got == nil || got.Unread != "" || !got.Mask.Equal(m) {
			t.Fatalf("%v on %v, stored as %v, reads back as %+v", m, typ, row, got)
		}
	})
	rapid.Check(t, func(t *rapid.T) {
		fn := rapid.SampledFrom([]string{"mask_null", "mask_default", "mask_inner", "mask_outer", "mask_hash", "mask_replace", "mask_x"}).Draw(t, "function")
		n := rapid.IntRange(0, 4).Draw(t, "arguments")
		types := rapid.SliceOfN(rapid.SampledFrom([]string{"int", "text", "ascii", "bigint", "float", "double", "blob", "uuid", "timeuuid", "timestamp", "boolean", "varint", "date", "list<int>"}), n, n).Draw(t, "types")
		values := rapid.SliceOfN(rapid.OneOf(rapid.String(), rapid.SampledFrom([]string{"1", "-1", "2147483648", "#", "##", "'", "SHA-1", "cafe", "0x", "NaN", "Infinity", "1.0E10", "true",
			"2020-01-01T00:00:00.000Z", "6ba7b810-9dad-11d1-80b4-00c04fd430c8", ""})), n, n).Draw(t, "values")
		nulls := rapid.SliceOfN(rapid.Bool(), n, n).Draw(t, "nulls")
		r := &schemaRows{Keyspaces: []map[string]any{ksRow()}, Tables: []map[string]any{{"table_name": "t"}},
			Columns:     []map[string]any{{"table_name": "t", "column_name": "c", "kind": "regular", "type": "text"}},
			ColumnMasks: []map[string]any{maskRow("t", "c", fn, types, values, nulls)}}
		live, err := liveFromRows("ks", r)
		if err != nil {
			t.Fatalf("well-formed rows: %v", err)
		}
		lm := live.Table("t").Column("c").Mask
		if lm.Mask.IsZero() == (lm.Unread == "") {
			t.Fatalf("mask %v with unread %q", lm.Mask, lm.Unread)
		}
		_ = lm.String()
	})
}

// drawMask draws a mask kandra takes and a column type that takes it.
func drawMask(t *rapid.T) (kandra.CQLType, kandra.Mask) {
	text := rapid.SampledFrom([]kandra.CQLType{kandra.CQLText, kandra.CQLVarchar, kandra.CQLAscii}).Draw(t, "text")
	count := rapid.IntRange(0, math.MaxInt32)
	pad := rapid.Rune().Filter(func(r rune) bool { return r != '\'' && r <= 0xFFFF && r != 0xFFFD && (r < 0xD800 || r > 0xDFFF) })
	padding := func() []rune {
		if !rapid.Bool().Draw(t, "padded") {
			return nil
		}
		r := pad.Draw(t, "padding")
		if text.Name() == "ASCII" {
			r = rune(rapid.IntRange(0x20, 0x7E).Filter(func(n int) bool { return n != '\'' }).Draw(t, "ascii padding"))
		}
		return []rune{r}
	}
	str := rapid.StringMatching(`[^']*`)
	switch rapid.IntRange(0, 12).Draw(t, "which") {
	case 0:
		return rapid.SampledFrom([]kandra.CQLType{kandra.CQLInt, kandra.ListOf(kandra.CQLText), kandra.CQLBlob}).Draw(t, "type"), kandra.MaskNull()
	case 1:
		return kandra.CQLTimestamp, kandra.MaskDefault()
	case 2:
		return text, kandra.MaskInner(count.Draw(t, "begin"), count.Draw(t, "end"), padding()...)
	case 3:
		return text, kandra.MaskOuter(count.Draw(t, "begin"), count.Draw(t, "end"), padding()...)
	case 4:
		alg := rapid.SampledFrom([]string{"", "MD5", "sha-256", "SHA3-512", "SHA-512/224"}).Draw(t, "algorithm")
		if alg == "" {
			return kandra.CQLBlob, kandra.MaskHash()
		}
		return kandra.CQLBlob, kandra.MaskHash(alg)
	case 5:
		s := str.Filter(func(s string) bool { return strings.IndexFunc(s, func(r rune) bool { return r == 0xFFFD }) < 0 }).Draw(t, "text")
		return kandra.CQLText, kandra.MaskReplace(s)
	case 6:
		typ := rapid.SampledFrom([]kandra.CQLType{kandra.CQLTinyint, kandra.CQLSmallint, kandra.CQLInt, kandra.CQLBigint, kandra.CQLVarint}).Draw(t, "integer type")
		lim := map[string]int64{"TINYINT": math.MaxInt8, "SMALLINT": math.MaxInt16, "INT": math.MaxInt32, "BIGINT": math.MaxInt64, "VARINT": math.MaxInt64}[typ.Name()]
		return typ, kandra.MaskReplace(rapid.Int64Range(-lim-1, lim).Draw(t, "integer"))
	case 7:
		return kandra.CQLBoolean, kandra.MaskReplace(rapid.Bool().Draw(t, "bool"))
	case 8:
		f := rapid.Float64().Filter(func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }).Draw(t, "double")
		return kandra.CQLDouble, kandra.MaskReplace(f)
	case 9:
		f := rapid.Float32().Filter(func(f float32) bool { return !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) }).Draw(t, "float")
		return kandra.CQLFloat, kandra.MaskReplace(f)
	case 10:
		return kandra.CQLBlob, kandra.MaskReplace(rapid.SliceOf(rapid.Byte()).Draw(t, "bytes"))
	case 11:
		var u uuid.UUID
		copy(u[:], rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "uuid"))
		return kandra.CQLUUID, kandra.MaskReplace(u)
	}
	ms := rapid.Int64Range(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli(), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).UnixMilli()).Draw(t, "millis")
	return kandra.CQLTimestamp, kandra.MaskReplace(time.UnixMilli(ms))
}

// The plans.

type maskPerson struct {
	ID    string
	Name  string
	Email string
	Born  time.Time
	Score float32
	Odd   int32
}

// maskKeyspace is a keyspace of maskPerson with Name, Email, Born and
// Score masked as given (the zero Mask: none).
func maskKeyspace(t *testing.T, name, email, born, score kandra.Mask) *kandra.Keyspace {
	t.Helper()
	spec := dynamic.Spec{Type: reflect.TypeFor[maskPerson](), Table: "people", MarkerField: -1, Binds: []dynamic.Bind{{Field: 0, Options: []any{kandra.PartitionKey(0)}}}}
	for i, m := range []kandra.Mask{name, email, born, score} {
		if !m.IsZero() {
			spec.Binds = append(spec.Binds, dynamic.Bind{Field: i + 1, Options: []any{kandra.Masked(m)}})
		}
	}
	v, err := dynamic.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	tbl := v.(*kandra.TableSchema)
	return kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Replication: kandra.SimpleStrategy(1), Targets: kandra.Cassandra5}, tbl)
}

func TestPlanMasks(t *testing.T) {
	none := kandra.Mask{}
	at := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	model := maskKeyspace(t, kandra.MaskInner(1, 0), kandra.MaskReplace("x"), kandra.MaskReplace(at), kandra.MaskReplace(0.1))
	// The model against itself: nothing to do (a FLOAT's replacement
	// reads back as float32, a timestamp as its milliseconds).
	if p, err := NewPlan(model, liveOf(t, model)); err != nil || len(p.Steps) != 0 {
		t.Fatalf("the model against itself: %v, %v", p, err)
	}
	// A live keyspace with other masks: added, changed, dropped, kept.
	live := liveOf(t, maskKeyspace(t, none, kandra.MaskDefault(), kandra.MaskReplace(at), kandra.MaskNull()))
	target := maskKeyspace(t, kandra.MaskInner(1, 0, '#'), kandra.MaskDefault(), kandra.MaskReplace(at), none)
	p, err := NewPlan(target, live)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ cql, reason string }{
		"change-mask:people.name": {"ALTER TABLE ks.people ALTER name MASKED WITH mask_inner(1, 0, '#');",
			`column "name" of table "people" has no mask in live, and the model masks it with mask_inner(1, 0, '#'): roles without the UNMASK permission read its values masked from then on`},
		"change-mask:people.score": {"ALTER TABLE ks.people ALTER score DROP MASKED;",
			`column "score" of table "people" is masked with mask_null() in live, and the model has no mask: roles without the UNMASK permission read its values unmasked from then on`},
	}
	if len(p.Steps) != len(want) {
		t.Fatalf("steps %v, want %d", p, len(want))
	}
	for _, s := range p.Steps {
		w, ok := want[s.ID]
		if !ok || s.Kind != StepChangeMask || s.Class != NeedsApproval || s.CQL != w.cql || s.Reason != w.reason || s.Table != "people" || s.Column != strings.TrimPrefix(s.ID, "change-mask:people.") {
			t.Errorf("step %+v, want %+v", s, w)
		}
	}
	changed := liveOf(t, maskKeyspace(t, kandra.MaskInner(1, 0), kandra.MaskReplace("y"), kandra.MaskReplace(at), kandra.MaskReplace(0.1)))
	p, _ = NewPlan(model, changed)
	if len(p.Steps) != 1 || p.Steps[0].Reason != `column "email" of table "people" is masked with mask_replace('y') in live, mask_replace('x') in the model` ||
		p.Steps[0].CQL != "ALTER TABLE ks.people ALTER email MASKED WITH mask_replace('x');" {
		t.Fatalf("a changed mask: %v", p)
	}
	// Validate sees a mask's difference, and only that.
	err = Validate(model, changed)
	var me *kerrors.MigrationError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "change-mask:people.email") {
		t.Fatalf("Validate: %v", err)
	}
	// A live mask kandra cannot read (a user-defined function) is replaced
	// by the model's, and the reason says why.
	udf := liveOf(t, model)
	udf.Table("people").Column("email").Mask = &LiveMask{FunctionKeyspace: "ks", FunctionName: "redact", Unread: "it is the user-defined function ks.redact"}
	p, _ = NewPlan(model, udf)
	if len(p.Steps) != 1 || !strings.Contains(p.Steps[0].Reason, "masked with ks.redact() in live, mask_replace('x') in the model (kandra cannot compare the live mask: it is the user-defined function ks.redact)") {
		t.Fatalf("a user-defined mask: %v", p)
	}
	// A column whose live type differs has its impossible step, and no
	// mask step against the other type.
	odd := liveOf(t, model)
	odd.Table("people").Column("name").Type, odd.Table("people").Column("name").RawType = kandra.CQLInt, "int"
	odd.Table("people").Column("name").Mask = nil
	p, _ = NewPlan(model, odd)
	if len(p.Steps) != 1 || p.Steps[0].Kind != StepChangeType {
		t.Fatalf("a column of another type: %v", p)
	}
	// A new table is created with its masks, a new column added with its
	// own: no mask step after them.
	empty := &Live{Keyspace: &LiveKeyspace{Name: "ks", Replication: map[string]string{"class": "SimpleStrategy", "replication_factor": "1"}, Tables: map[string]*LiveTable{}, Types: map[string]*LiveType{}}}
	p, _ = NewPlan(model, empty)
	if len(p.Steps) != 1 || !strings.Contains(p.Steps[0].CQL, "    name TEXT MASKED WITH mask_inner(1, 0),\n") {
		t.Fatalf("a new table: %v", p)
	}
	missing := liveOf(t, model)
	lt := missing.Table("people")
	lt.Columns = slicesDelete(lt.Columns, lt.Column("email"))
	p, _ = NewPlan(model, missing)
	if len(p.Steps) != 1 || p.Steps[0].Kind != StepAddColumn || p.Steps[0].CQL != "ALTER TABLE ks.people ADD IF NOT EXISTS email TEXT MASKED WITH mask_replace('x');" {
		t.Fatalf("a new masked column: %v", p)
	}
}

func slicesDelete(cs []*LiveColumn, c *LiveColumn) []*LiveColumn {
	var out []*LiveColumn
	for _, x := range cs {
		if x != c {
			out = append(out, x)
		}
	}
	return out
}

// TestApplyMasks: Apply on the fake server adds, changes and drops masks,
// and converges: a plan after it is empty.
func TestApplyMasks(t *testing.T) {
	none := kandra.Mask{}
	v1 := maskKeyspace(t, kandra.MaskInner(1, 0), none, none, kandra.MaskDefault())
	v2 := maskKeyspace(t, kandra.MaskOuter(2, 2, '-'), kandra.MaskReplace("x"), kandra.MaskDefault(), none)
	f := newFake(v1, v2)
	// Each change of a mask waits for approval: it changes what roles
	// without UNMASK read.
	res, err := Apply(context.Background(), f, v2, ApplyOptions{})
	if err != nil || len(res.Applied) != 0 || len(res.Unapproved) != 4 {
		t.Fatalf("unapproved apply: %+v, %v", res, err)
	}
	res, err = Apply(context.Background(), f, v2, ApplyOptions{Approve: []string{"all"}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range res.Applied {
		ids = append(ids, s.ID)
	}
	if got := strings.Join(ids, " "); got != "change-mask:people.name change-mask:people.email change-mask:people.born change-mask:people.score" {
		t.Fatalf("applied %s", got)
	}
	if p, err := PlanFor(context.Background(), f, v2); err != nil || len(p.Steps) != 0 {
		t.Fatalf("after Apply: %v, %v", p, err)
	}
}

// The legacy tables, functions and tuples a live keyspace may hold.

func TestLegacyTables(t *testing.T) {
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"compound"}, ""},
		{[]string{"compound", "counter"}, ""},
		{[]string{"dense"}, LegacyDense},
		{[]string{"compound", "dense"}, LegacyDense},
		{[]string{"super", "dense"}, LegacySuper},
		{[]string{}, LegacyNotCompound},
		{nil, LegacyNotCompound},
		{[]string{"counter"}, LegacyNotCompound},
	} {
		r := &schemaRows{Keyspaces: []map[string]any{ksRow()}, Tables: []map[string]any{{"table_name": "t", "flags": c.flags}}}
		live, err := liveFromRows("ks", r)
		if err != nil || live.Table("t").Legacy != c.want {
			t.Errorf("flags %q: legacy %q, %v; want %q", c.flags, live.Table("t").Legacy, err, c.want)
		}
	}
	// A row without the column says nothing.
	live, _ := liveFromRows("ks", &schemaRows{Keyspaces: []map[string]any{ksRow()}, Tables: []map[string]any{{"table_name": "t"}}})
	if live.Table("t").Legacy != "" {
		t.Errorf("no flags column: legacy %q", live.Table("t").Legacy)
	}

	// The planner plans nothing against a legacy table: an impossible
	// step names its form, and its masks are not planned.
	model := maskKeyspace(t, kandra.MaskNull(), kandra.Mask{}, kandra.Mask{}, kandra.Mask{})
	l := liveOf(t, model)
	lt := l.Table("people")
	lt.Flags, lt.Legacy = []string{"dense"}, LegacyDense
	lt.Column("name").Mask = nil
	p, err := NewPlan(model, l)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Steps) != 1 || p.Steps[0].ID != "legacy-table:people" || p.Steps[0].Class != Impossible ||
		p.Steps[0].Reason != `table "people" is a legacy table in live (COMPACT STORAGE, dense; flags dense), not a CQL table: kandra reads and writes CQL tables only, and plans nothing against it` ||
		!strings.Contains(p.Steps[0].Manual, "ALTER TABLE ks.people DROP COMPACT STORAGE") || !strings.Contains(p.Steps[0].Manual, "create a new table with the model's definition") {
		t.Fatalf("a legacy table: %v", p)
	}
	if err := Validate(model, l); err == nil || !strings.Contains(err.Error(), "legacy-table:people") {
		t.Fatalf("Validate: %v", err)
	}
	// A lookup table of a legacy form.
	lk := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Replication: kandra.SimpleStrategy(1), Targets: kandra.Cassandra5}, kandra.MustRegister[fuzzUser]())
	l = liveOf(t, lk)
	l.Table("users_by_email").Legacy = LegacyNotCompound
	p, _ = NewPlan(lk, l)
	found := false
	for _, s := range p.Steps {
		if s.ID == "legacy-table:users_by_email" && s.Class == Impossible && strings.Contains(s.Reason, `lookup table "users_by_email" is a legacy table in live (COMPACT STORAGE, not compound`) &&
			strings.Contains(s.Manual, "DROP TABLE ks.users_by_email;") {
			found = true
		}
	}
	if !found {
		t.Fatalf("a legacy lookup table: %v", p)
	}
	// A mask on a lookup table's column is reported, never dropped.
	l = liveOf(t, lk)
	l.Table("users_by_email").Column("email").Mask = &LiveMask{FunctionKeyspace: "system", FunctionName: "mask_null", Mask: kandra.MaskNull()}
	p, _ = NewPlan(lk, l)
	if len(p.Steps) != 0 || !strings.Contains(strings.Join(p.Extra, "\n"), "mask mask_null() of column users_by_email.email") {
		t.Fatalf("a masked lookup column: %v, extra %q", p, p.Extra)
	}
}

func TestLiveFunctions(t *testing.T) {
	r := rowsOf(kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Replication: kandra.SimpleStrategy(1), Targets: kandra.Cassandra5}, kandra.MustRegister[fuzzUser]()))
	r.Functions = []map[string]any{
		{"keyspace_name": "ks", "function_name": "fname", "argument_types": []string{"int", "text"}, "return_type": "int"},
		{"keyspace_name": "ks", "function_name": "avg_state", "argument_types": []string{"frozen<tuple<int, bigint>>", "int"}, "return_type": "frozen<tuple<int, bigint>>"},
		{"keyspace_name": "ks", "function_name": "fname", "argument_types": []string{"int"}, "return_type": "int"},
		{"keyspace_name": "ks", "function_name": "now_ish", "return_type": "timestamp"},
		{"keyspace_name": "other", "function_name": "theirs", "argument_types": []string{"int"}},
	}
	r.Aggregates = []map[string]any{{"keyspace_name": "ks", "aggregate_name": "my_avg", "argument_types": []string{"int"}, "return_type": "double"}}
	live, err := liveFromRows("ks", r)
	if err != nil {
		t.Fatal(err)
	}
	var sigs []string
	for _, f := range live.Keyspace.Functions {
		sigs = append(sigs, f.Signature())
	}
	if got := strings.Join(sigs, " "); got != "avg_state(frozen<tuple<int, bigint>>, int) fname(int) fname(int, text) now_ish()" {
		t.Fatalf("functions %s", got)
	}
	if a := live.Keyspace.Aggregates; len(a) != 1 || a[0].Signature() != "my_avg(int)" || a[0].ReturnType != "double" {
		t.Fatalf("aggregates %+v", a)
	}
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Replication: kandra.SimpleStrategy(1), Targets: kandra.Cassandra5}, kandra.MustRegister[fuzzUser]())
	p, err := NewPlan(ks, live)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"function ks.avg_state(frozen<tuple<int, bigint>>, int)", "function ks.fname(int)", "function ks.fname(int, text)", "function ks.now_ish()", "aggregate ks.my_avg(int)"}
	if strings.Join(p.Extra, "\n") != strings.Join(want, "\n") || len(p.Steps) != 0 {
		t.Fatalf("extra %q, steps %v; want %q and no step", p.Extra, p.Steps, want)
	}
	if err := Validate(ks, live); err != nil {
		t.Fatalf("functions are no difference: %v", err)
	}
	bad := *r
	bad.Functions = []map[string]any{{"keyspace_name": "ks", "argument_types": []string{"int"}}}
	if _, err := liveFromRows("ks", &bad); err == nil || !strings.Contains(err.Error(), "system_schema.functions of keyspace \"ks\", row 0: column function_name is missing") {
		t.Fatalf("a function without a name: %v", err)
	}
	bad = *r
	bad.Aggregates = []map[string]any{{"keyspace_name": "ks", "aggregate_name": "a", "argument_types": "int"}}
	if _, err := liveFromRows("ks", &bad); err == nil || !strings.Contains(err.Error(), "aggregates") {
		t.Fatalf("argument types as text: %v", err)
	}
}

// TestTupleColumns: a live column of a tuple type stays RawType with the
// zero Type; a plan that touches it is an impossible step naming the
// tuple, and one only live has is extra, never dropped.
func TestTupleColumns(t *testing.T) {
	ks := kandra.MustNewKeyspace(kandra.KeyspaceSpec{Name: "ks", Replication: kandra.SimpleStrategy(1), Targets: kandra.Cassandra5}, kandra.MustRegister[fuzzUser]())
	r := rowsOf(ks)
	for _, row := range r.Columns {
		if row["table_name"] == "users" && row["column_name"] == "email" {
			row["type"] = "frozen<tuple<int, text>>"
		}
	}
	r.Columns = append(r.Columns, map[string]any{"keyspace_name": "ks", "table_name": "users", "column_name": "pair", "kind": "regular", "position": -1, "type": "tuple<int, text>"})
	r.ColumnMasks = append(r.ColumnMasks, maskRow("users", "email", "mask_default", nil, nil, nil))
	live, err := liveFromRows("ks", r)
	if err != nil {
		t.Fatal(err)
	}
	if c := live.Table("users").Column("email"); !c.Type.IsZero() || c.RawType != "frozen<tuple<int, text>>" || c.Mask == nil {
		t.Fatalf("column email: %+v", c)
	}
	p, err := NewPlan(ks, live)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Steps) != 1 || p.Steps[0].ID != "change-type:users.email" || p.Steps[0].Class != Impossible ||
		!strings.Contains(p.Steps[0].Reason, `kandra cannot read its live type "frozen<tuple<int, text>>" (a tuple or custom type)`) {
		t.Fatalf("a tuple column the model has: %v", p)
	}
	if !strings.Contains(strings.Join(p.Extra, "\n"), "column users.pair") {
		t.Fatalf("a tuple column only live has: extra %q", p.Extra)
	}
	// In the key: the key differs.
	r = rowsOf(ks)
	for _, row := range r.Columns {
		if row["column_name"] == "id" && row["table_name"] == "users" {
			row["type"] = "frozen<tuple<text, int>>"
		}
	}
	live, _ = liveFromRows("ks", r)
	p, _ = NewPlan(ks, live)
	if len(p.Steps) == 0 || p.Steps[0].ID != "change-key:users" || !strings.Contains(p.Steps[0].Reason, "tuple<text, int>") {
		t.Fatalf("a tuple key: %v", p)
	}
}

func TestMaskHelpers(t *testing.T) {
	if got := splitArgs("1, 'a, b', 0xff"); len(got) != 3 || got[1] != "'a, b'" {
		t.Fatalf("splitArgs: %q", got)
	}
	if got := splitArgs(""); got != nil {
		t.Fatalf("splitArgs of nothing: %q", got)
	}
	for f, want := range map[float64]string{2: "2.0", 1e6: "1000000.0", 1e7: "1.0E7", 1e-3: "0.001", 1e-4: "1.0E-4", -1.5e300: "-1.5E300"} {
		if got := javaFloat(f, false); got != want {
			t.Errorf("javaFloat(%v) = %q, want %q", f, got, want)
		}
	}
	if b, _ := hex.DecodeString(serverValue("blob", "0xCAFE")); len(b) != 2 {
		t.Errorf("serverValue of a blob")
	}
}
