// Package schemagen generates random kandra schemas for property tests:
// struct types made at run time with reflect.StructOf, and the dynamic.Spec
// (the content of a Describe call) that describes each of them.
//
// ValidSpec draws specs that every rule accepts; InvalidSpec draws specs
// that break one or more rules on purpose and says which rule the builder
// must report (the first broken one in kandra.Rules() order). Which rules a
// spec breaks is decided by an oracle written in this package from the
// documented rules (rules.go, DESIGN.md, notes/cql-server-rules.md); it never
// asks the builder.
//
// The package is not test code so that the integration module can reuse the
// generators to send random valid schemas to a real server. Every generated
// table name has at most 16 characters and the lookup-table and index names
// leave room for any such name, so Model.WithTable can rename a table (to
// keep names unique in a keyspace) without breaking the 48-character limit.
package schemagen

import (
	"math"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"github.com/kandra-go/kandra"
	kerrors "github.com/kandra-go/kandra/errors"
	"github.com/kandra-go/kandra/internal/dynamic"
)

// Named types, to cover "named types map by their underlying kind".
type (
	// Status is a named string type (TEXT).
	Status string
	// Level is a named int16 type (SMALLINT).
	Level int16
	// Flag is a named bool type (BOOLEAN); it is not a valid soft-delete
	// marker, which must be exactly bool.
	Flag bool
)

// Audit is embedded in some generated structs; its fields are flattened
// into the columns audit_note and audit_rev, in struct order.
type Audit struct {
	AuditNote string
	AuditRev  int32
}

var auditColumns = []struct {
	goName, name string
	typ          reflect.Type
}{
	{"Audit.AuditNote", "audit_note", reflect.TypeFor[string]()},
	{"Audit.AuditRev", "audit_rev", reflect.TypeFor[int32]()},
}

const pkgPath = "github.com/kandra-go/kandra/internal/schemagen"

// ---------------------------------------------------------------------------
// CQL types, written from DESIGN.md's "Go → CQL types" table.

// CQLKind is the shape of a CQL type.
type CQLKind uint8

// The shapes.
const (
	Native CQLKind = iota
	List
	Set
	Map
)

// CQL is an expected CQL type: a native type or a collection of CQL types.
type CQL struct {
	Kind CQLKind
	Name string // upper-case native name
	Elem *CQL   // list/set element, map value
	Key  *CQL   // map key
}

func nat(name string) *CQL { return &CQL{Kind: Native, Name: name} }

// Render writes the type as DESIGN.md says: upper case, collections inside
// collections frozen, and the whole type frozen when frozen is true (a
// collection in any primary-key position, including a lookup table's key).
func (c *CQL) Render(frozen bool) string {
	var s string
	switch c.Kind {
	case Native:
		return c.Name
	case List:
		s = "LIST<" + c.Elem.Render(true) + ">"
	case Set:
		s = "SET<" + c.Elem.Render(true) + ">"
	case Map:
		s = "MAP<" + c.Key.Render(true) + ", " + c.Elem.Render(true) + ">"
	}
	if frozen {
		return "FROZEN<" + s + ">"
	}
	return s
}

// Contains reports whether c is or contains the native type name.
func (c *CQL) Contains(name string) bool {
	switch c.Kind {
	case Native:
		return c.Name == name
	case Map:
		return c.Key.Contains(name) || c.Elem.Contains(name)
	}
	return c.Elem.Contains(name)
}

// IsCollection reports a list, set or map.
func (c *CQL) IsCollection() bool { return c.Kind != Native }

// rejected reports a type servers reject anywhere: a duration as a set
// element or map key (at any depth), a counter inside a collection.
func (c *CQL) rejected() bool {
	switch c.Kind {
	case Native:
		return false
	case Set:
		if c.Elem.Contains("DURATION") {
			return true
		}
	case Map:
		if c.Key.Contains("DURATION") || c.Key.Contains("COUNTER") || c.Key.rejected() {
			return true
		}
	}
	return c.Elem.Contains("COUNTER") || c.Elem.rejected()
}

var kandraNatives = map[string]kandra.CQLType{
	"ASCII": kandra.CQLAscii, "BIGINT": kandra.CQLBigint, "BLOB": kandra.CQLBlob, "BOOLEAN": kandra.CQLBoolean,
	"DATE": kandra.CQLDate, "DECIMAL": kandra.CQLDecimal, "DOUBLE": kandra.CQLDouble, "DURATION": kandra.CQLDuration,
	"FLOAT": kandra.CQLFloat, "INET": kandra.CQLInet, "INT": kandra.CQLInt, "SMALLINT": kandra.CQLSmallint,
	"TEXT": kandra.CQLText, "TIME": kandra.CQLTime, "TIMESTAMP": kandra.CQLTimestamp, "TIMEUUID": kandra.CQLTimeUUID,
	"TINYINT": kandra.CQLTinyint, "UUID": kandra.CQLUUID, "VARCHAR": kandra.CQLVarchar, "VARINT": kandra.CQLVarint,
}

// kandraType converts c to the kandra.CQLType given to AsType; nil is the
// zero CQLType.
func kandraType(c *CQL) kandra.CQLType {
	if c == nil {
		return kandra.CQLType{}
	}
	switch c.Kind {
	case List:
		return kandra.ListOf(kandraType(c.Elem))
	case Set:
		return kandra.SetOf(kandraType(c.Elem))
	case Map:
		return kandra.MapOf(kandraType(c.Key), kandraType(c.Elem))
	}
	return kandraNatives[c.Name]
}

var (
	tString   = reflect.TypeFor[string]()
	tBool     = reflect.TypeFor[bool]()
	tInt64    = reflect.TypeFor[int64]()
	tTime     = reflect.TypeFor[time.Time]()
	tDuration = reflect.TypeFor[time.Duration]()
	tUUID     = reflect.TypeFor[uuid.UUID]()
	tNetIP    = reflect.TypeFor[net.IP]()
	tAddr     = reflect.TypeFor[netip.Addr]()
	tBigInt   = reflect.TypeFor[*big.Int]()
	tEmpty    = reflect.TypeFor[struct{}]()
	tAudit    = reflect.TypeFor[Audit]()
)

// CQLOf is the CQL type DESIGN.md's table gives a Go type, or nil when the
// table has none (unsigned integers, arrays, structs, channels, ...).
func CQLOf(t reflect.Type) *CQL { return cqlOf(t, false) }

func cqlOf(t reflect.Type, nested bool) *CQL {
	switch t {
	case tTime:
		return nat("TIMESTAMP")
	case tDuration:
		return nat("DURATION")
	case tUUID:
		return nat("UUID")
	case tNetIP, tAddr:
		return nat("INET")
	case tBigInt:
		return nat("VARINT")
	}
	switch t.Kind() {
	case reflect.String:
		return nat("TEXT")
	case reflect.Bool:
		return nat("BOOLEAN")
	case reflect.Int8:
		return nat("TINYINT")
	case reflect.Int16:
		return nat("SMALLINT")
	case reflect.Int32:
		return nat("INT")
	case reflect.Int, reflect.Int64:
		return nat("BIGINT")
	case reflect.Float32:
		return nat("FLOAT")
	case reflect.Float64:
		return nat("DOUBLE")
	case reflect.Pointer:
		// *V is V, nullable. The generators never put a pointer (other
		// than *big.Int) inside a collection, nor a pointer to a pointer.
		if nested || t.Elem().Kind() == reflect.Pointer {
			return nil
		}
		return cqlOf(t.Elem(), false)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nat("BLOB")
		}
		if e := cqlOf(t.Elem(), true); e != nil {
			return &CQL{Kind: List, Elem: e}
		}
	case reflect.Map:
		k := cqlOf(t.Key(), true)
		if k == nil {
			return nil
		}
		if t.Elem() == tEmpty {
			return &CQL{Kind: Set, Elem: k}
		}
		if v := cqlOf(t.Elem(), true); v != nil {
			return &CQL{Kind: Map, Key: k, Elem: v}
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// Go types.

var (
	// scalars are the non-collection types of the mapping table.
	scalars = []reflect.Type{
		tString, tBool, reflect.TypeFor[int8](), reflect.TypeFor[int16](), reflect.TypeFor[int32](),
		reflect.TypeFor[int](), tInt64, reflect.TypeFor[float32](), reflect.TypeFor[float64](),
		reflect.TypeFor[[]byte](), tTime, tDuration, tUUID, tNetIP, tAddr, tBigInt,
		reflect.TypeFor[Status](), reflect.TypeFor[Level](), reflect.TypeFor[Flag](),
	}
	// pointers are nullable top-level columns.
	pointers = []reflect.Type{
		reflect.TypeFor[*string](), reflect.TypeFor[*int64](), reflect.TypeFor[*bool](), reflect.TypeFor[*time.Time](),
		reflect.TypeFor[*float64](), reflect.TypeFor[*uuid.UUID](), reflect.TypeFor[*time.Duration](),
		reflect.TypeFor[*Status](), reflect.TypeFor[*int32](), reflect.TypeFor[*netip.Addr](),
	}
	// comparables can be set elements and map keys (no duration).
	comparables = []reflect.Type{
		tString, tBool, reflect.TypeFor[int8](), reflect.TypeFor[int16](), reflect.TypeFor[int32](),
		reflect.TypeFor[int](), tInt64, reflect.TypeFor[float32](), reflect.TypeFor[float64](),
		tTime, tUUID, tAddr, reflect.TypeFor[Status](), reflect.TypeFor[Level](),
	}
	// unsupported have no CQL type (or one servers reject).
	unsupported = []reflect.Type{
		reflect.TypeFor[uint](), reflect.TypeFor[uint8](), reflect.TypeFor[uint16](), reflect.TypeFor[uint32](),
		reflect.TypeFor[uint64](), reflect.TypeFor[uintptr](), reflect.TypeFor[complex128](), reflect.TypeFor[chan int](),
		reflect.TypeFor[func()](), reflect.TypeFor[[4]int](), reflect.TypeFor[struct{ X int }](), reflect.TypeFor[any](),
		reflect.TypeFor[**string](), reflect.TypeFor[[]uint](), reflect.TypeFor[map[uint]string](),
		reflect.TypeFor[map[time.Duration]struct{}](), reflect.TypeFor[map[time.Duration]string](),
		reflect.TypeFor[[]map[time.Duration]struct{}](), reflect.TypeFor[map[string]map[time.Duration]int32](),
		reflect.TypeFor[big.Int](),
	}
)

func noDuration(ts []reflect.Type) []reflect.Type {
	var out []reflect.Type
	for _, t := range ts {
		if c := CQLOf(t); c != nil && !c.Contains("DURATION") {
			out = append(out, t)
		}
	}
	return out
}

var (
	keyScalars  = noDuration(scalars)
	keyPointers = noDuration(pointers)
)

// drawType draws a supported Go type. With key set it holds no duration, so
// it can be a primary-key or lookup column.
func drawType(t *rapid.T, key bool, label string) reflect.Type {
	switch k := percent.Draw(t, label+" kind") / 5; {
	case k < 10:
		if key {
			return rapid.SampledFrom(keyScalars).Draw(t, label+" scalar")
		}
		return rapid.SampledFrom(scalars).Draw(t, label+" scalar")
	case k < 12:
		if key {
			return rapid.SampledFrom(keyPointers).Draw(t, label+" pointer")
		}
		return rapid.SampledFrom(pointers).Draw(t, label+" pointer")
	default:
		return drawCollection(t, 1, key, label)
	}
}

// drawCollection draws a list, set or map whose nesting depth is at most 2.
func drawCollection(t *rapid.T, depth int, key bool, label string) reflect.Type {
	switch rapid.IntRange(0, 2).Draw(t, label+" collection") {
	case 0:
		return reflect.SliceOf(drawElem(t, depth, key, label+" list"))
	case 1:
		return reflect.MapOf(rapid.SampledFrom(comparables).Draw(t, label+" set elem"), tEmpty)
	default:
		k := rapid.SampledFrom(comparables).Draw(t, label+" map key")
		return reflect.MapOf(k, drawElem(t, depth, key, label+" map"))
	}
}

func drawElem(t *rapid.T, depth int, key bool, label string) reflect.Type {
	if depth < 2 && rapid.IntRange(0, 3).Draw(t, label+" nested") == 0 {
		return drawCollection(t, depth+1, key, label+" elem")
	}
	if key {
		return rapid.SampledFrom(keyScalars).Draw(t, label+" elem")
	}
	return rapid.SampledFrom(scalars).Draw(t, label+" elem")
}

// ---------------------------------------------------------------------------
// Names.

// Field names are built from tokens whose snake-cased form is known: a
// token is written lower case, tokens are joined by "_" (DESIGN.md's naming
// rules: UserID→user_id, HTTPServer→http_server, UserIDs→user_ids,
// IPv4Addr→ipv4_addr, Base64Data→base64_data, TTL→ttl).
var (
	nameWords = []string{"User", "Email", "Name", "Owner", "Item", "Order", "Select", "Token", "Key", "Ttl",
		"From", "Value", "Score", "Tag", "Data", "Addr", "Count", "Created", "Updated", "At", "Title", "Done",
		"Base64", "V2", "Note", "Kind", "Total", "Where", "Limit", "Group", "Server", "Status", "Ñandu", "Émile"}
	nameAcronyms = []string{"ID", "HTTP", "API", "URL", "TTL", "IP", "UUID", "JSON", "IDs", "URLs"}
	nameMixed    = []string{"IPv4", "IPv6", "OAuth"}
)

func isAcronym(s string) bool {
	for _, a := range nameAcronyms {
		if a == s {
			return true
		}
	}
	return false
}

func isMixed(s string) bool {
	for _, a := range nameMixed {
		if a == s {
			return true
		}
	}
	return false
}

// drawGoName draws an exported Go field name and its expected column name.
func drawGoName(t *rapid.T) (string, string) {
	n := rapid.IntRange(1, 3).Draw(t, "name tokens")
	var goName strings.Builder
	var snake []string
	prev := ""
	for i := 0; i < n; i++ {
		var tok string
		switch rapid.IntRange(0, 9).Draw(t, "token class") {
		case 0, 1, 2:
			tok = rapid.SampledFrom(nameAcronyms).Draw(t, "acronym")
		case 3:
			tok = rapid.SampledFrom(nameMixed).Draw(t, "mixed initialism")
		default:
			tok = rapid.SampledFrom(nameWords).Draw(t, "word")
		}
		// An acronym followed by an upper-case letter that is not the start
		// of a capitalised word merges with it (IDHTTP, IDIPv4, IDV2).
		if isAcronym(prev) && (isAcronym(tok) || isMixed(tok) || tok == "V2") {
			continue
		}
		goName.WriteString(tok)
		snake = append(snake, strings.ToLower(tok))
		prev = tok
	}
	return goName.String(), strings.Join(snake, "_")
}

var tableNames = []string{"users", "orders", "order", "select", "Events", "UserProfiles", "_hidden", "9lives",
	"ttl", "key", "T", "x_1", "token", "Table", "from"}

// maxTable is the longest table name drawn: lookup suffixes and index
// column names leave room for any table name of this length.
const maxTable = 16

func drawTable(t *rapid.T) string {
	switch rapid.IntRange(0, 3).Draw(t, "table from list") {
	case 0:
		return rapid.SampledFrom(tableNames).Draw(t, "table")
	case 1:
		return rapid.StringMatching(`[a-z][a-z0-9_]{15}`).Draw(t, "table")
	}
	return rapid.StringMatching(`[a-z][a-z0-9_]{1,15}`).Draw(t, "table")
}

// fancyNames need quoting: mixed case, spaces, quotes, reserved words,
// punctuation, non-ASCII letters, leading digits, words of the grammar.
var fancyNames = []string{"UserName", "eMail", "ID", "first name", " lead", "trail ", `say "hi"`, `"`, `""x""`,
	"select", "from", "token", "order", "table", "primary", "key", "true", "false", "NULL", "naïve", "日本語",
	"a,b", "x(y)", "a-b", "a.b", "semi;colon", "<lt>", "1st", "_private", "PRIMARY KEY", "WITH", "AND x",
	"tab\there", "line\nbreak", "ttl", "writetime", "P1D", "PT", "Order", "Key", "in", "KEY"}

// ---------------------------------------------------------------------------
// The draft: what a Describe call says, before it becomes a dynamic.Spec.

type optKind uint8

const (
	oPK optKind = iota
	oCK
	oLookup
	oColumn
	oTransient
	oIndex
	oSensitive
	oAsType
)

type fieldOpt struct {
	kind     optKind
	index    int
	desc     bool
	suffix   string
	eventual bool
	name     string
	as       *CQL // AsType's type; nil is the zero CQLType
}

func (o fieldOpt) option() kandra.FieldOption {
	switch o.kind {
	case oPK:
		return kandra.PartitionKey(o.index)
	case oCK:
		if o.desc {
			return kandra.ClusteringKey(o.index, kandra.Desc)
		}
		return kandra.ClusteringKey(o.index, kandra.Asc)
	case oLookup:
		if o.eventual {
			return kandra.Lookup(o.suffix, kandra.LookupEventual)
		}
		return kandra.Lookup(o.suffix, kandra.LookupBatch)
	case oColumn:
		return kandra.Column(o.name)
	case oTransient:
		return kandra.Transient()
	case oIndex:
		return kandra.SecondaryIndex()
	case oSensitive:
		return kandra.Sensitive()
	}
	return kandra.AsType(kandraType(o.as))
}

type bind struct {
	opts []fieldOpt
	role dynamic.Role
}

type field struct {
	name     string
	typ      reflect.Type
	snake    string // derived column name
	exported bool
	embedded bool // an embedded Audit
	binds    []bind
}

func (f *field) add(o fieldOpt) {
	if len(f.binds) == 0 {
		f.binds = append(f.binds, bind{})
	}
	f.binds[0].opts = append(f.binds[0].opts, o)
}

func (f *field) setRole(r dynamic.Role) {
	f.binds = append(f.binds, bind{role: r})
}

type tableOptKind uint8

const (
	tTTL tableOptKind = iota
	tGC
	tRead
	tWrite
	tCache
)

type tableOpt struct {
	kind tableOptKind
	n    int
	m    int64
}

func (o tableOpt) option() kandra.TableOption {
	switch o.kind {
	case tTTL:
		return kandra.DefaultTTL(o.n)
	case tGC:
		return kandra.GCGrace(o.n)
	case tRead:
		return kandra.ReadConsistency(kandra.Consistency(o.n))
	case tWrite:
		return kandra.WriteConsistency(kandra.Consistency(o.n))
	}
	return kandra.CacheResult(o.n, o.m)
}

type draft struct {
	notStruct  bool
	table      string
	topts      []tableOpt
	softDelete bool
	softTTL    int
	marker     int
	fields     []field
	features   []string
}

// column is a column candidate (a flattened exported field) with the
// options of all its bindings merged.
type column struct {
	field     int // index in draft.fields
	goName    string
	goType    reflect.Type
	snake     string
	embedded  bool // flattened from the embedded Audit
	pk        []int
	ck        []fieldOpt
	lookups   []fieldOpt
	names     []string
	transient bool
	counter   bool
	created   bool
	updated   bool
	version   int
	index     bool
	sensitive bool
	uuidRoles []dynamic.Role
	as        []fieldOpt
	roles     []dynamic.Role
}

func (c *column) isPK() bool { return len(c.pk) > 0 }
func (c *column) isCK() bool { return len(c.ck) > 0 && len(c.pk) == 0 }
func (c *column) isKey() bool {
	return len(c.pk) > 0 || len(c.ck) > 0
}

// name is the column name: the first non-blank Column override, else the
// derived name (a blank override falls back to it).
func (c *column) name() string {
	for _, n := range c.names {
		if strings.TrimSpace(n) != "" {
			return n
		}
	}
	return c.snake
}

// cql is the column's type: COUNTER for a counter, the AsType type, or the
// mapping table's; nil when there is none.
func (c *column) cql() *CQL {
	switch {
	case c.counter:
		return nat("COUNTER")
	case len(c.as) > 0:
		return c.as[0].as
	}
	return CQLOf(c.goType)
}

func (d *draft) columns() []*column {
	var cols []*column
	for i, f := range d.fields {
		if f.embedded {
			for _, a := range auditColumns {
				cols = append(cols, &column{field: i, goName: a.goName, goType: a.typ, snake: a.name, embedded: true})
			}
			continue
		}
		if !f.exported {
			continue
		}
		c := &column{field: i, goName: f.name, goType: f.typ, snake: f.snake}
		for _, b := range f.binds {
			for _, o := range b.opts {
				switch o.kind {
				case oPK:
					c.pk = append(c.pk, o.index)
				case oCK:
					c.ck = append(c.ck, o)
				case oLookup:
					c.lookups = append(c.lookups, o)
				case oColumn:
					c.names = append(c.names, o.name)
				case oTransient:
					c.transient = true
				case oIndex:
					c.index = true
				case oSensitive:
					c.sensitive = true
				case oAsType:
					c.as = append(c.as, o)
				}
			}
			switch b.role {
			case dynamic.CreatedAt:
				c.created = true
			case dynamic.UpdatedAt:
				c.updated = true
			case dynamic.Version:
				c.version++
			case dynamic.Counter:
				c.counter = true
			case dynamic.UUIDTimeOrdered, dynamic.UUIDRandom:
				c.uuidRoles = append(c.uuidRoles, b.role)
			}
			if b.role != dynamic.NoRole {
				c.roles = append(c.roles, b.role)
			}
		}
		cols = append(cols, c)
	}
	return cols
}

func (d *draft) live() []*column {
	var out []*column
	for _, c := range d.columns() {
		if !c.transient {
			out = append(out, c)
		}
	}
	return out
}

// ---------------------------------------------------------------------------
// The oracle.

// nameOK is the rule for table, lookup-table and index names:
// ^[A-Za-z0-9_]{1,48}$.
func nameOK(s string) bool {
	if len(s) == 0 || len(s) > 48 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func countDistinct[E comparable](xs []E) int {
	seen := map[E]bool{}
	for _, x := range xs {
		seen[x] = true
	}
	return len(seen)
}

type lookupKey struct {
	suffix   string
	eventual bool
}

func lookupKeys(os []fieldOpt) []lookupKey {
	var out []lookupKey
	for _, o := range os {
		out = append(out, lookupKey{o.suffix, o.eventual})
	}
	return out
}

type ckKey struct {
	index int
	desc  bool
}

func ckKeys(os []fieldOpt) []ckKey {
	var out []ckKey
	for _, o := range os {
		out = append(out, ckKey{o.index, o.desc})
	}
	return out
}

func nonBlank(ns []string) []string {
	var out []string
	for _, n := range ns {
		if strings.TrimSpace(n) != "" {
			out = append(out, n)
		}
	}
	return out
}

// lastOpt returns the value of the last table option of kind k.
func (d *draft) lastOpt(k tableOptKind) (tableOpt, bool) {
	var out tableOpt
	found := false
	for _, o := range d.topts {
		if o.kind == k {
			out, found = o, true
		}
	}
	return out, found
}

const maxTTL = 630720000

// broken returns every rule d breaks, in kandra.Rules() order. It is written
// from the rules' documentation; a rule's verdict only has to be right when
// every earlier rule holds.
func (d *draft) broken() []kerrors.Rule {
	b := map[kerrors.Rule]bool{}
	d.check(b)
	var out []kerrors.Rule
	for _, r := range kandra.Rules() {
		if b[r] {
			out = append(out, r)
		}
	}
	return out
}

func (d *draft) check(b map[kerrors.Rule]bool) {
	// not-a-struct: the entity type is not a struct.
	if d.notStruct {
		b[kandra.RuleNotStruct] = true
		return
	}
	// table-missing: s.Table never called, or given a blank name.
	if strings.TrimSpace(d.table) == "" {
		b[kandra.RuleTableMissing] = true
	}
	// binding: a binding that is not the address of a column field (an
	// unexported field, or the embedded struct itself).
	for _, f := range d.fields {
		if len(f.binds) > 0 && (!f.exported || f.embedded) {
			b[kandra.RuleBinding] = true
		}
	}
	cols := d.columns()
	// conflicting-options: a table option set twice with different values;
	// a field with contradicting options.
	for _, k := range []tableOptKind{tTTL, tGC, tRead, tWrite, tCache} {
		var vals []tableOpt
		for _, o := range d.topts {
			if o.kind == k {
				vals = append(vals, o)
			}
		}
		if countDistinct(vals) > 1 {
			b[kandra.RuleConflict] = true
		}
	}
	for _, c := range cols {
		if c.embedded {
			continue
		}
		marker := d.softDelete && d.marker == c.field
		if c.transient && (len(c.pk) > 0 || len(c.ck) > 0 || len(c.lookups) > 0 || c.counter || c.created ||
			c.updated || c.version > 0 || c.index || len(c.uuidRoles) > 0 || len(c.as) > 0 || len(c.names) > 0 || marker) {
			b[kandra.RuleConflict] = true
		}
		if countDistinct(c.pk) > 1 || countDistinct(ckKeys(c.ck)) > 1 || countDistinct(nonBlank(c.names)) > 1 ||
			countDistinct(lookupKeys(c.lookups)) > 1 || countDistinct(c.uuidRoles) > 1 || (c.counter && len(c.as) > 0) {
			b[kandra.RuleConflict] = true
		}
		// timestamp-type and version-type: the roles' Go types.
		for _, r := range c.roles {
			switch {
			case (r == dynamic.CreatedAt || r == dynamic.UpdatedAt) && c.goType != tTime:
				b[kandra.RuleTimestampType] = true
			case r == dynamic.Version && c.goType != tTime && c.goType != tInt64:
				b[kandra.RuleVersionType] = true
			}
		}
	}
	var live, pks, cks, regular []*column
	for _, c := range cols {
		if c.transient {
			continue
		}
		live = append(live, c)
		switch {
		case c.isPK():
			pks = append(pks, c)
		case c.isCK():
			cks = append(cks, c)
		default:
			regular = append(regular, c)
		}
	}
	// no-partition-key; duplicate-partition-index.
	if len(pks) == 0 {
		b[kandra.RuleNoPartitionKey] = true
	}
	pkIdx := map[int]bool{}
	for _, c := range pks {
		if pkIdx[c.pk[0]] {
			b[kandra.RuleDuplicatePartitionIndex] = true
		}
		pkIdx[c.pk[0]] = true
	}
	// duplicate-lookup-table: two lookups compose the same table name. A
	// field bound several times with the same Lookup has one lookup.
	lookupNames := map[string]bool{}
	for _, c := range live {
		for _, l := range uniqueLookups(c.lookups) {
			n := d.table + "_" + l.suffix
			if lookupNames[n] {
				b[kandra.RuleDuplicateLookupTable] = true
			}
			lookupNames[n] = true
		}
	}
	// counter-mix: counter and non-counter non-key columns, created/updated
	// timestamps aside.
	var counters, plain int
	for _, c := range regular {
		if c.created || c.updated {
			continue
		}
		if c.counter {
			counters++
		} else {
			plain++
		}
	}
	if counters > 0 && plain > 0 {
		b[kandra.RuleCounterMix] = true
	}
	// duplicate-timestamp; duplicate-version.
	var created, updated, versions int
	for _, c := range live {
		if c.created {
			created++
		}
		if c.updated {
			updated++
		}
		if c.version > 0 {
			versions++
		}
	}
	if created > 1 || updated > 1 {
		b[kandra.RuleDuplicateTimestamp] = true
	}
	if versions > 1 {
		b[kandra.RuleDuplicateVersion] = true
	}
	// soft-delete-marker: the marker is not a bool column of the entity.
	if d.softDelete && d.marker >= 0 {
		f := d.fields[d.marker]
		if !f.exported || f.embedded || f.typ != tBool || d.isTransient(d.marker) {
			b[kandra.RuleSoftDeleteMarker] = true
		}
	}
	// key-conflict: both partition and clustering key.
	for _, c := range live {
		if len(c.pk) > 0 && len(c.ck) > 0 {
			b[kandra.RuleKeyConflict] = true
		}
	}
	// invalid-name: table, lookup-table and index names; blank lookup
	// suffixes; column names that are not UTF-8.
	if !nameOK(d.table) {
		b[kandra.RuleInvalidName] = true
	}
	for _, c := range live {
		if !utf8.ValidString(c.name()) {
			b[kandra.RuleInvalidName] = true
		}
		for _, l := range c.lookups {
			if strings.TrimSpace(l.suffix) == "" || !nameOK(d.table+"_"+l.suffix) {
				b[kandra.RuleInvalidName] = true
			}
		}
		if c.index && !nameOK(d.table+"_"+c.name()+"_idx") {
			b[kandra.RuleInvalidName] = true
		}
	}
	// duplicate-column: two columns with the same name.
	names := map[string]bool{}
	for _, c := range live {
		if names[c.name()] {
			b[kandra.RuleDuplicateColumn] = true
		}
		names[c.name()] = true
	}
	// duplicate-clustering-index.
	ckIdx := map[int]bool{}
	for _, c := range cks {
		if ckIdx[c.ck[0].index] {
			b[kandra.RuleDuplicateClusteringIndex] = true
		}
		ckIdx[c.ck[0].index] = true
	}
	// unsupported-type: no CQL type, the zero AsType, or a type servers
	// reject (a duration as a set element or map key).
	types := map[*column]*CQL{}
	for _, c := range live {
		t := c.cql()
		if t == nil || t.rejected() {
			b[kandra.RuleUnsupportedType] = true
			continue
		}
		types[c] = t
	}
	keyProblem := func(c *column) bool {
		t := types[c]
		return t != nil && (t.Contains("COUNTER") || t.Contains("DURATION"))
	}
	// key-type: a counter or duration in a key, or in a lookup column.
	for _, c := range live {
		if (c.isKey() || len(c.lookups) > 0) && keyProblem(c) {
			b[kandra.RuleKeyType] = true
		}
	}
	// counter-table: a table with a counter column cannot have a non-zero
	// default TTL, soft delete, a version column, a (non-key) timestamp
	// column, a lookup or a secondary index.
	isCounter := false
	for _, c := range live {
		isCounter = isCounter || c.counter
	}
	if isCounter {
		if o, ok := d.lastOpt(tTTL); ok && o.n != 0 {
			b[kandra.RuleCounterTable] = true
		}
		if d.softDelete {
			b[kandra.RuleCounterTable] = true
		}
		for _, c := range live {
			if c.version > 0 || ((c.created || c.updated) && !c.isKey()) || len(c.lookups) > 0 || c.index {
				b[kandra.RuleCounterTable] = true
			}
		}
	}
	// lookup: a lookup on a key column.
	for _, c := range live {
		if len(c.lookups) > 0 && c.isKey() {
			b[kandra.RuleLookup] = true
		}
	}
	// secondary-index: on the only partition-key column, or on a duration.
	for _, c := range live {
		if c.index && ((c.isPK() && len(pks) == 1) || (types[c] != nil && types[c].Contains("DURATION"))) {
			b[kandra.RuleSecondaryIndex] = true
		}
	}
	// option-range.
	if o, ok := d.lastOpt(tTTL); ok && (o.n < 0 || o.n > maxTTL) {
		b[kandra.RuleOptionRange] = true
	}
	if o, ok := d.lastOpt(tGC); ok && (o.n < 0 || int64(o.n) > math.MaxInt32) {
		b[kandra.RuleOptionRange] = true
	}
	if d.softDelete && (d.softTTL < 0 || d.softTTL > maxTTL) {
		b[kandra.RuleOptionRange] = true
	}
	if o, ok := d.lastOpt(tCache); ok && (o.n < 0 || o.m < 0) {
		b[kandra.RuleOptionRange] = true
	}
	for _, k := range []tableOptKind{tRead, tWrite} {
		if o, ok := d.lastOpt(k); ok && (o.n < 0 || o.n > 10) {
			b[kandra.RuleOptionRange] = true
		}
	}
}

func uniqueLookups(ls []fieldOpt) []fieldOpt {
	var out []fieldOpt
	seen := map[lookupKey]bool{}
	for _, l := range ls {
		k := lookupKey{l.suffix, l.eventual}
		if !seen[k] {
			seen[k] = true
			out = append(out, l)
		}
	}
	return out
}

func (d *draft) isTransient(field int) bool {
	for _, b := range d.fields[field].binds {
		for _, o := range b.opts {
			if o.kind == oTransient {
				return true
			}
		}
	}
	return false
}

// ---------------------------------------------------------------------------
// Spec building.

func (d *draft) structType() reflect.Type {
	if d.notStruct {
		return reflect.TypeFor[map[string]int]()
	}
	sfs := make([]reflect.StructField, len(d.fields))
	for i, f := range d.fields {
		sf := reflect.StructField{Name: f.name, Type: f.typ}
		if f.embedded {
			sf.Anonymous = true
		} else if !f.exported {
			sf.PkgPath = pkgPath
		}
		sfs[i] = sf
	}
	return reflect.StructOf(sfs)
}

func (d *draft) spec(t *rapid.T) dynamic.Spec {
	sp := dynamic.Spec{Type: d.structType(), Table: d.table, SoftDelete: d.softDelete, SoftTTL: d.softTTL, MarkerField: d.marker}
	if !d.softDelete {
		sp.MarkerField = -1
	}
	for _, o := range d.topts {
		sp.TableOptions = append(sp.TableOptions, o.option())
	}
	for i, f := range d.fields {
		for _, b := range f.binds {
			opts := make([]any, len(b.opts))
			for j, o := range b.opts {
				opts[j] = o.option()
			}
			sp.Binds = append(sp.Binds, dynamic.Bind{Field: i, Options: opts, Role: b.role})
		}
	}
	if len(sp.Binds) > 1 && rapid.IntRange(0, 3).Draw(t, "permute binds") == 0 {
		sp.Binds = rapid.Permutation(sp.Binds).Draw(t, "bind order")
	}
	return sp
}

// ---------------------------------------------------------------------------
// Valid drafts.

type gen struct {
	t       *rapid.T
	d       *draft
	goNames map[string]bool
	snakes  map[string]bool
	budget  int // top-level fields still allowed (at most 12 in all)
}

// percent draws 0..99 uniformly: rapid's integers lean towards small
// values, which would make every "chance" much likelier than it says.
var percent = rapid.Custom(func(t *rapid.T) int {
	v := 0
	for i := 0; i < 7; i++ {
		v <<= 1
		if rapid.Bool().Draw(t, "bit") {
			v |= 1
		}
	}
	return v * 100 / 128
})

// chance is true with probability pct%; it shrinks towards false.
func chance(t *rapid.T, pct int, label string) bool {
	return percent.Draw(t, label) >= 100-pct
}

func (g *gen) feature(s string) { g.d.features = append(g.d.features, s) }

// addField adds an exported field of type typ with fresh Go and column
// names and returns its index.
func (g *gen) addField(typ reflect.Type) int {
	var name, snake string
	for i := 0; ; i++ {
		if i < 20 {
			name, snake = drawGoName(g.t)
		} else {
			// Fall back to a numbered name; snake case keeps the digits
			// with the word before them.
			n := strconv.Itoa(len(g.goNames) + i)
			name, snake = "Field"+n, "field"+n
		}
		if !g.goNames[name] && !g.snakes[snake] {
			break
		}
	}
	g.goNames[name], g.snakes[snake] = true, true
	g.d.fields = append(g.d.fields, field{name: name, typ: typ, snake: snake, exported: true})
	g.budget--
	return len(g.d.fields) - 1
}

func (g *gen) addUnexported(typ reflect.Type) int {
	name := "hidden" + strconv.Itoa(len(g.d.fields))
	g.goNames[name] = true
	g.d.fields = append(g.d.fields, field{name: name, typ: typ})
	g.budget--
	return len(g.d.fields) - 1
}

func (g *gen) addEmbedded() int {
	for i, f := range g.d.fields {
		if f.embedded {
			return i
		}
	}
	g.d.fields = append(g.d.fields, field{name: "Audit", typ: tAudit, embedded: true, exported: true})
	g.goNames["Audit"] = true
	g.budget--
	return len(g.d.fields) - 1
}

func typeFeature(typ reflect.Type) string {
	c := CQLOf(typ)
	switch {
	case typ.Kind() == reflect.Pointer && typ != tBigInt:
		return "go:*" + typ.Elem().String()
	case c != nil && c.Kind != Native:
		k := map[CQLKind]string{List: "list", Set: "set", Map: "map"}[c.Kind]
		if c.Elem.IsCollection() || (c.Kind == Map && c.Key.IsCollection()) {
			return "go:nested " + k
		}
		return "go:" + k
	}
	return "go:" + typ.String()
}

// newValid draws a valid draft. counter forces (1) or forbids (0) a
// counter table; -1 lets the draw decide.
func newValid(t *rapid.T, counter int) *gen {
	g := &gen{t: t, d: &draft{marker: -1}, goNames: map[string]bool{"Audit": true}, snakes: map[string]bool{"audit_note": true, "audit_rev": true}, budget: 12}
	d := g.d
	d.table = drawTable(t)
	isCounter := counter == 1 || (counter < 0 && chance(t, 15, "counter table"))
	if isCounter {
		g.feature("counter table")
	}
	nPK := rapid.IntRange(1, 3).Draw(t, "partition keys")
	nCK := rapid.IntRange(0, 3).Draw(t, "clustering keys")
	pkIdx := rapid.Permutation([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}).Draw(t, "partition indexes")
	ckIdx := rapid.Permutation([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}).Draw(t, "clustering indexes")
	g.feature("partition keys: " + strconv.Itoa(nPK))
	g.feature("clustering keys: " + strconv.Itoa(nCK))
	haveCreated := false

	keyField := func(label string) int {
		var i int
		switch k := percent.Draw(t, label+" special") / 5; {
		case k == 0:
			i = g.addField(tDuration)
			d.fields[i].add(fieldOpt{kind: oAsType, as: nat("TIME")})
			g.feature("AsType TIME on a key duration")
		case k == 1:
			i = g.addField(tTime)
			d.fields[i].add(fieldOpt{kind: oAsType, as: nat("DATE")})
			g.feature("AsType DATE")
		case k == 2:
			i = g.addField(tString)
			d.fields[i].add(fieldOpt{kind: oAsType, as: nat("ASCII")})
			g.feature("AsType ASCII")
		case k < 5:
			i = g.addField(tUUID)
			role := rapid.SampledFrom([]dynamic.Role{dynamic.UUIDTimeOrdered, dynamic.UUIDRandom}).Draw(t, "uuid strategy")
			d.fields[i].setRole(role)
			g.feature("GeneratedUUID on a key")
		default:
			i = g.addField(drawType(t, true, label))
		}
		g.feature("key " + typeFeature(d.fields[i].typ))
		return i
	}
	for k := 0; k < nPK; k++ {
		i := keyField("partition key")
		// The option first, so that AsType and roles come after it.
		d.fields[i].binds = append([]bind{{opts: []fieldOpt{{kind: oPK, index: pkIdx[k]}}}}, d.fields[i].binds...)
	}
	for k := 0; k < nCK; k++ {
		i := keyField("clustering key")
		desc := rapid.Bool().Draw(t, "desc")
		d.fields[i].binds = append([]bind{{opts: []fieldOpt{{kind: oCK, index: ckIdx[k], desc: desc}}}}, d.fields[i].binds...)
		if desc {
			g.feature("clustering DESC")
		} else {
			g.feature("clustering ASC")
		}
		if !isCounter && !haveCreated && d.fields[i].typ == tTime && len(d.fields[i].binds) == 1 && chance(t, 30, "created at on key") {
			d.fields[i].setRole(dynamic.CreatedAt)
			haveCreated = true
			g.feature("CreatedAt on a clustering key")
		}
	}
	if isCounter {
		n := rapid.IntRange(1, min(4, g.budget)).Draw(t, "counters")
		for k := 0; k < n; k++ {
			i := g.addField(tInt64)
			d.fields[i].setRole(dynamic.Counter)
		}
		g.feature("counter columns")
	} else {
		n := rapid.IntRange(0, min(6, g.budget)).Draw(t, "regular columns")
		for k := 0; k < n; k++ {
			typ := drawType(t, false, "regular")
			i := g.addField(typ)
			g.feature(typeFeature(typ))
			switch {
			case typ == tTime && chance(t, 15, "AsType DATE"):
				d.fields[i].add(fieldOpt{kind: oAsType, as: nat("DATE")})
				g.feature("AsType DATE")
			case typ == tDuration && chance(t, 30, "AsType TIME"):
				d.fields[i].add(fieldOpt{kind: oAsType, as: nat("TIME")})
				g.feature("AsType TIME")
			case typ == tString && chance(t, 15, "AsType VARCHAR"):
				d.fields[i].add(fieldOpt{kind: oAsType, as: nat("VARCHAR")})
				g.feature("AsType VARCHAR")
			case typ == reflect.TypeFor[[]time.Time]() && chance(t, 30, "AsType LIST<DATE>"):
				d.fields[i].add(fieldOpt{kind: oAsType, as: &CQL{Kind: List, Elem: nat("DATE")}})
				g.feature("AsType LIST<DATE>")
			case typ == tUUID && chance(t, 30, "generated uuid"):
				d.fields[i].setRole(rapid.SampledFrom([]dynamic.Role{dynamic.UUIDTimeOrdered, dynamic.UUIDRandom}).Draw(t, "uuid strategy"))
				g.feature("GeneratedUUID")
			}
		}
		if !haveCreated && g.budget > 0 && chance(t, 25, "created at") {
			d.fields[g.addField(tTime)].setRole(dynamic.CreatedAt)
			g.feature("CreatedAt")
		}
		if g.budget > 0 && chance(t, 25, "updated at") {
			d.fields[g.addField(tTime)].setRole(dynamic.UpdatedAt)
			g.feature("UpdatedAt")
		}
		if g.budget > 0 && chance(t, 25, "version") {
			typ := rapid.SampledFrom([]reflect.Type{tInt64, tTime}).Draw(t, "version type")
			d.fields[g.addField(typ)].setRole(dynamic.Version)
			g.feature("Version " + typ.String())
		}
		if chance(t, 20, "soft delete") {
			d.softDelete = true
			d.softTTL = drawRange(t, 0, maxTTL, "soft delete ttl")
			g.feature("SoftDelete")
			if g.budget > 0 && chance(t, 70, "marker") {
				d.marker = g.addField(tBool)
				g.feature("SoftDelete marker")
			}
		}
		if g.budget > 0 && chance(t, 15, "embedded") {
			g.addEmbedded()
			g.feature("embedded struct")
		}
	}
	if g.budget > 0 && chance(t, 15, "transient") {
		var typ reflect.Type
		if rapid.Bool().Draw(t, "transient unsupported") {
			typ = rapid.SampledFrom(unsupported).Draw(t, "transient type")
		} else {
			typ = drawType(t, false, "transient")
		}
		d.fields[g.addField(typ)].add(fieldOpt{kind: oTransient})
		g.feature("Transient")
	}
	if g.budget > 0 && chance(t, 15, "unexported") {
		g.addUnexported(rapid.SampledFrom(scalars).Draw(t, "unexported type"))
		g.feature("unexported field")
	}

	cols := d.live()
	// Lookups on regular columns whose type can be a key.
	indexed := map[int]bool{}
	if !isCounter {
		var cands []*column
		for _, c := range cols {
			if !c.isKey() && !c.embedded {
				if ty := c.cql(); ty != nil && !ty.Contains("DURATION") {
					cands = append(cands, c)
				}
			}
		}
		n := rapid.IntRange(0, min(2, len(cands))).Draw(t, "lookups")
		if n > 0 {
			cands = rapid.Permutation(cands).Draw(t, "lookup columns")
		}
		suffixes := map[string]bool{}
		for _, c := range cands[:n] {
			s := drawSuffix(t, d.table, suffixes)
			suffixes[s] = true
			d.fields[c.field].add(fieldOpt{kind: oLookup, suffix: s, eventual: rapid.Bool().Draw(t, "eventual")})
			g.feature("Lookup " + typeFeature(c.goType))
			if len(d.table)+1+len(s) == 48 {
				g.feature("lookup name of 48")
			}
		}
		// Secondary indexes: not the only partition key, no duration, and
		// a column name short and simple enough for {table}_{col}_idx.
		cands = nil
		for _, c := range cols {
			ty := c.cql()
			if c.embedded || ty == nil || ty.Contains("DURATION") || (c.isPK() && nPK == 1) || !nameOK(d.table+"_"+c.snake+"_idx") {
				continue
			}
			cands = append(cands, c)
		}
		n = rapid.IntRange(0, min(2, len(cands))).Draw(t, "indexes")
		if n > 0 {
			cands = rapid.Permutation(cands).Draw(t, "index columns")
		}
		for _, c := range cands[:n] {
			d.fields[c.field].add(fieldOpt{kind: oIndex})
			indexed[c.field] = true
			switch {
			case c.isKey() && c.cql().IsCollection():
				g.feature("index FULL on a key collection")
			case c.isPK():
				g.feature("index on a partition-key component")
			case c.isCK():
				g.feature("index on a clustering key")
			default:
				g.feature("index " + typeFeature(c.goType))
			}
		}
	}
	// Column overrides.
	names := map[string]bool{}
	for _, c := range cols {
		names[c.name()] = true
	}
	for _, c := range cols {
		if c.embedded || !chance(t, 25, "override") {
			continue
		}
		var n string
		switch {
		case indexed[c.field]:
			n = rapid.StringMatching(`[a-z][a-z0-9_]{0,9}`).Draw(t, "simple override")
			if chance(t, 20, "longest index name") {
				// As long as {table}_{col}_idx may be with a table name of
				// 16 characters: 48 characters.
				n = "i" + strings.Repeat("x", 48-maxTable-6)
				if len(d.table) == maxTable {
					g.feature("index name of 48")
				}
			}
		case chance(t, 15, "blank override"):
			n = rapid.SampledFrom([]string{"", " ", "  \t"}).Draw(t, "blank override")
			d.fields[c.field].add(fieldOpt{kind: oColumn, name: n})
			g.feature("blank override")
			continue
		case chance(t, 70, "fancy"):
			n = rapid.SampledFrom(fancyNames).Draw(t, "fancy override")
		default:
			n = rapid.StringMatching(`[a-z][a-z0-9_]{0,9}`).Draw(t, "simple override")
		}
		if names[n] {
			continue
		}
		delete(names, c.snake)
		names[n] = true
		d.fields[c.field].add(fieldOpt{kind: oColumn, name: n})
		if c.isKey() {
			g.feature("override on a key")
		}
		if kandra.QuoteIdent(n) != n {
			g.feature("override that needs quoting")
		} else {
			g.feature("override")
		}
	}
	for _, c := range cols {
		if !c.embedded && chance(t, 10, "sensitive") {
			d.fields[c.field].add(fieldOpt{kind: oSensitive})
			g.feature("Sensitive")
		}
	}
	// Table options.
	if !isCounter && chance(t, 30, "ttl") {
		d.topts = append(d.topts, tableOpt{kind: tTTL, n: drawRange(t, 0, maxTTL, "ttl")})
		g.feature("DefaultTTL")
	}
	if chance(t, 30, "gc grace") {
		d.topts = append(d.topts, tableOpt{kind: tGC, n: drawRange(t, 0, math.MaxInt32, "gc grace")})
		g.feature("GCGrace")
	}
	if chance(t, 15, "read consistency") {
		d.topts = append(d.topts, tableOpt{kind: tRead, n: rapid.IntRange(0, 10).Draw(t, "read")})
		g.feature("ReadConsistency")
	}
	if chance(t, 15, "write consistency") {
		d.topts = append(d.topts, tableOpt{kind: tWrite, n: rapid.IntRange(0, 10).Draw(t, "write")})
		g.feature("WriteConsistency")
	}
	if chance(t, 15, "cache") {
		d.topts = append(d.topts, tableOpt{kind: tCache, n: rapid.IntRange(0, 86400).Draw(t, "cache ttl"), m: int64(rapid.IntRange(0, 1<<20).Draw(t, "cache size"))})
		g.feature("CacheResult")
	}
	if len(d.topts) > 0 && chance(t, 10, "repeat table option") {
		d.topts = append(d.topts, rapid.SampledFrom(d.topts).Draw(t, "repeated table option"))
		g.feature("table option repeated with the same value")
	}
	g.shuffleAndSplit()
	return g
}

// shuffleAndSplit permutes the fields (so that keys are not always first),
// and sometimes splits a field's options over several bindings or repeats
// an option (bindings merge).
func (g *gen) shuffleAndSplit() {
	t, d := g.t, g.d
	if len(d.fields) > 1 {
		perm := rapid.Permutation(seq(len(d.fields))).Draw(t, "field order")
		fields := make([]field, len(perm))
		marker := -1
		for to, from := range perm {
			fields[to] = d.fields[from]
			if from == d.marker {
				marker = to
			}
		}
		d.fields, d.marker = fields, marker
	}
	for i := range d.fields {
		f := &d.fields[i]
		if len(f.binds) == 0 || !f.exported || f.embedded {
			continue
		}
		var opts []fieldOpt
		var roles []dynamic.Role
		for _, b := range f.binds {
			opts = append(opts, b.opts...)
			if b.role != dynamic.NoRole {
				roles = append(roles, b.role)
			}
		}
		if len(opts) > 0 && chance(t, 10, "repeat option") {
			o := rapid.SampledFrom(opts).Draw(t, "repeated option")
			opts = append(opts, o)
			g.feature("option repeated")
		}
		if chance(t, 20, "split binds") && len(opts)+len(roles) > 1 {
			opts = rapid.Permutation(opts).Draw(t, "option order")
			cut := rapid.IntRange(0, len(opts)).Draw(t, "split")
			f.binds = []bind{{opts: opts[:cut]}, {opts: opts[cut:]}}
			for k, r := range roles {
				if k < 2 {
					f.binds[k].role = r
				} else {
					f.binds = append(f.binds, bind{role: r})
				}
			}
			g.feature("options over several bindings")
			continue
		}
		f.binds = []bind{{opts: opts}}
		for k, r := range roles {
			if k == 0 {
				f.binds[0].role = r
			} else {
				f.binds = append(f.binds, bind{role: r})
			}
		}
	}
	if chance(t, 10, "empty bind") && len(d.fields) > 0 {
		i := rapid.IntRange(0, len(d.fields)-1).Draw(t, "empty bind field")
		if d.fields[i].exported && !d.fields[i].embedded {
			d.fields[i].binds = append(d.fields[i].binds, bind{})
			g.feature("binding without options")
		}
	}
}

// uniform draws from 0..n-1 without rapid's bias towards small values
// (a permutation is drawn unbiased), so that every mutation is as likely.
func uniform(t *rapid.T, n int, label string) int {
	return rapid.Permutation(seq(n)).Draw(t, label)[0]
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// drawRange draws from lo..hi, often one of the bounds.
func drawRange(t *rapid.T, lo, hi int, label string) int {
	switch rapid.IntRange(0, 4).Draw(t, label+" edge") {
	case 0:
		return lo
	case 1:
		return hi
	}
	return rapid.IntRange(lo, hi).Draw(t, label)
}

func drawSuffix(t *rapid.T, table string, used map[string]bool) string {
	for i := 0; ; i++ {
		var s string
		switch k := rapid.IntRange(0, 5).Draw(t, "suffix kind"); {
		case i >= 10:
			s = "l" + strconv.Itoa(i)
		case k == 0:
			s = "By" + rapid.SampledFrom(nameWords).Draw(t, "suffix word")
		case k == 1:
			// As long as the 48-character limit allows with a table name
			// of 16 characters (exactly 48 when the table has 16).
			s = "s" + strings.Repeat("x", 48-maxTable-2)
		default:
			s = rapid.StringMatching(`[a-z][a-z0-9_]{0,10}`).Draw(t, "suffix")
		}
		if !used[s] && !strings.HasSuffix(s, "_index") && nameOK(table+"_"+s) {
			return s
		}
		used[s] = true // do not draw it again
	}
}

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
	Counter bool
	// Features are coverage labels: the types and options drawn.
	Features []string
}

// ColumnModel is a column as the model expects it.
type ColumnModel struct {
	GoName string
	Name   string // raw column name
	// Type is the type as declared in the primary table (frozen in a key
	// position, COUNTER for counters); KeyType as a lookup-table key.
	Type     string
	KeyType  string
	Role     kandra.KeyRole
	KeyIndex int
	Order    kandra.ClusteringOrder
	Indexed  bool
}

// LookupModel is an expected lookup table.
type LookupModel struct {
	Table  string // {table}_{suffix}
	Column string // raw name of the indexed column
}

func (d *draft) model(sp dynamic.Spec) Model {
	m := Model{Spec: sp, Table: d.table, Features: d.features}
	var pks, cks, regular []ColumnModel
	for _, c := range d.live() {
		ty := c.cql()
		cm := ColumnModel{GoName: c.goName, Name: c.name(), Type: ty.Render(false), KeyType: ty.Render(true), Indexed: c.index}
		switch {
		case c.isPK():
			cm.Role, cm.KeyIndex, cm.Type = kandra.PartitionKeyColumn, c.pk[0], ty.Render(true)
			pks = append(pks, cm)
		case c.isCK():
			cm.Role, cm.KeyIndex, cm.Type = kandra.ClusteringKeyColumn, c.ck[0].index, ty.Render(true)
			if c.ck[0].desc {
				cm.Order = kandra.Desc
			}
			cks = append(cks, cm)
		default:
			regular = append(regular, cm)
		}
		m.Counter = m.Counter || c.counter
		for _, l := range uniqueLookups(c.lookups) {
			m.Lookups = append(m.Lookups, LookupModel{Table: d.table + "_" + l.suffix, Column: c.name()})
		}
	}
	byIndex := func(cs []ColumnModel) {
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].KeyIndex < cs[j].KeyIndex })
	}
	byIndex(pks)
	byIndex(cks)
	m.Columns = append(append(append(m.Columns, pks...), cks...), regular...)
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
	return m
}

// WithTable returns m with the table renamed to table, which must match
// ^[A-Za-z0-9_]{1,16}$ so that every lookup-table and index name stays
// within 48 characters (for sending many schemas to one keyspace).
func (m Model) WithTable(table string) Model {
	if len(table) > maxTable || !nameOK(table) {
		panic("schemagen: table name " + strconv.Quote(table) + " is not 1 to 16 letters, digits or underscores")
	}
	out := m
	out.Spec.Table, out.Table = table, table
	out.Lookups = make([]LookupModel, len(m.Lookups))
	for i, l := range m.Lookups {
		out.Lookups[i] = LookupModel{Table: table + strings.TrimPrefix(l.Table, m.Table), Column: l.Column}
	}
	return out
}

// ValidModel draws a valid spec and what kandra must make of it.
func ValidModel(t *rapid.T) Model {
	g := newValid(t, -1)
	if r := g.d.broken(); len(r) > 0 {
		panic("schemagen: generated an invalid spec, breaking " + joinRules(r))
	}
	return g.d.model(g.d.spec(t))
}

// ValidSpec draws a spec that every rule accepts.
func ValidSpec(t *rapid.T) dynamic.Spec { return ValidModel(t).Spec }

func joinRules(rs []kerrors.Rule) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = string(r)
	}
	return strings.Join(s, ", ")
}

// ---------------------------------------------------------------------------
// Invalid drafts.

// Invalid is a spec that breaks at least one rule.
type Invalid struct {
	Spec dynamic.Spec
	// Rule is the rule the builder must report: the first of Broken in
	// kandra.Rules() order.
	Rule kerrors.Rule
	// Broken are all the rules the spec breaks, in order.
	Broken []kerrors.Rule
	// Mutations name what was done to a valid spec.
	Mutations []string
}

type mutation struct {
	name  string
	apply func(g *gen) bool // false when it does not apply to this draft
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

var mutations = []mutation{
	{"not a struct", func(g *gen) bool { g.d.notStruct = true; return true }},
	{"table missing", func(g *gen) bool {
		g.d.table = rapid.SampledFrom([]string{"", " ", "\t \n"}).Draw(g.t, "blank table")
		return true
	}},
	{"bind an unexported field", func(g *gen) bool {
		i := g.addUnexported(rapid.SampledFrom(scalars).Draw(g.t, "unexported type"))
		g.d.fields[i].add(rapid.SampledFrom([]fieldOpt{{kind: oSensitive}, {kind: oColumn, name: "x"}, {kind: oPK, index: 0}, {kind: oIndex}}).Draw(g.t, "option"))
		return true
	}},
	{"bind the embedded struct", func(g *gen) bool {
		i := g.addEmbedded()
		g.d.fields[i].add(fieldOpt{kind: oSensitive})
		return true
	}},
	{"table option twice", func(g *gen) bool {
		k := rapid.SampledFrom([]tableOptKind{tTTL, tGC, tRead, tWrite, tCache}).Draw(g.t, "option kind")
		a := rapid.IntRange(0, 10).Draw(g.t, "first value")
		g.d.topts = append(g.d.topts, tableOpt{kind: k, n: a, m: 1}, tableOpt{kind: k, n: a + 1, m: 1})
		return true
	}},
	{"partition key twice", func(g *gen) bool {
		c := g.pickColumn("column", anyColumn)
		if c == nil {
			return false
		}
		i := rapid.IntRange(0, 5).Draw(g.t, "index")
		g.d.fields[c.field].add(fieldOpt{kind: oPK, index: i})
		g.d.fields[c.field].add(fieldOpt{kind: oPK, index: i + 1})
		return true
	}},
	{"clustering key twice", func(g *gen) bool {
		c := g.pickColumn("column", anyColumn)
		if c == nil {
			return false
		}
		i := rapid.IntRange(0, 5).Draw(g.t, "index")
		g.d.fields[c.field].add(fieldOpt{kind: oCK, index: i})
		g.d.fields[c.field].add(fieldOpt{kind: oCK, index: i, desc: true})
		return true
	}},
	{"two column names", func(g *gen) bool {
		c := g.pickColumn("column", anyColumn)
		if c == nil {
			return false
		}
		g.d.fields[c.field].add(fieldOpt{kind: oColumn, name: "first_name"})
		g.d.fields[c.field].add(fieldOpt{kind: oColumn, name: "second_name"})
		return true
	}},
	{"two lookups on a field", func(g *gen) bool {
		c := g.pickColumn("column", anyColumn)
		if c == nil {
			return false
		}
		g.d.fields[c.field].add(fieldOpt{kind: oLookup, suffix: "by_one"})
		g.d.fields[c.field].add(fieldOpt{kind: oLookup, suffix: "by_one", eventual: true})
		return true
	}},
	{"transient with another option", func(g *gen) bool {
		c := g.pickColumn("column", anyColumn)
		if c == nil {
			return false
		}
		f := &g.d.fields[c.field]
		f.add(fieldOpt{kind: oTransient})
		switch rapid.IntRange(0, 6).Draw(g.t, "other option") {
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
		default:
			if c.goType == tBool {
				g.d.softDelete, g.d.marker = true, c.field
			} else {
				f.add(fieldOpt{kind: oIndex})
			}
		}
		return true
	}},
	{"counter with AsType", func(g *gen) bool {
		i := g.addField(tInt64)
		g.d.fields[i].add(fieldOpt{kind: oAsType, as: nat("BIGINT")})
		g.d.fields[i].setRole(dynamic.Counter)
		return true
	}},
	{"two uuid strategies", func(g *gen) bool {
		i := g.addField(tUUID)
		g.d.fields[i].setRole(dynamic.UUIDTimeOrdered)
		g.d.fields[i].setRole(dynamic.UUIDRandom)
		return true
	}},
	{"timestamp role on a wrong type", func(g *gen) bool {
		typ := rapid.SampledFrom([]reflect.Type{tString, tInt64, reflect.TypeFor[*time.Time](), tDuration}).Draw(g.t, "type")
		i := g.addField(typ)
		g.d.fields[i].setRole(rapid.SampledFrom([]dynamic.Role{dynamic.CreatedAt, dynamic.UpdatedAt}).Draw(g.t, "role"))
		return true
	}},
	{"no partition key", func(g *gen) bool {
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
	{"duplicate partition index", func(g *gen) bool {
		p := g.pickColumn("partition key", (*column).isPK)
		c := g.pickColumn("column", func(c *column) bool { return !c.isKey() })
		if p == nil || c == nil {
			return false
		}
		g.d.fields[c.field].add(fieldOpt{kind: oPK, index: p.pk[0]})
		return true
	}},
	{"duplicate lookup table", func(g *gen) bool {
		c1 := g.pickColumn("first", func(c *column) bool { return !c.isKey() && len(c.lookups) == 0 })
		c2 := g.pickColumn("second", func(c *column) bool { return !c.isKey() && len(c.lookups) == 0 })
		if c1 == nil || c2 == nil || c1.field == c2.field {
			return false
		}
		g.d.fields[c1.field].add(fieldOpt{kind: oLookup, suffix: "by_dup"})
		g.d.fields[c2.field].add(fieldOpt{kind: oLookup, suffix: "by_dup", eventual: rapid.Bool().Draw(g.t, "eventual")})
		return true
	}},
	{"counter mix", func(g *gen) bool {
		if g.isCounterTable() {
			g.addField(tString)
		} else {
			g.d.fields[g.addField(tInt64)].setRole(dynamic.Counter)
			g.addField(tString)
		}
		return true
	}},
	{"duplicate timestamp", func(g *gen) bool {
		r := rapid.SampledFrom([]dynamic.Role{dynamic.CreatedAt, dynamic.UpdatedAt}).Draw(g.t, "role")
		g.d.fields[g.addField(tTime)].setRole(r)
		g.d.fields[g.addField(tTime)].setRole(r)
		return true
	}},
	{"duplicate version", func(g *gen) bool {
		g.d.fields[g.addField(tInt64)].setRole(dynamic.Version)
		g.d.fields[g.addField(tTime)].setRole(dynamic.Version)
		return true
	}},
	{"version on a wrong type", func(g *gen) bool {
		typ := rapid.SampledFrom([]reflect.Type{tString, reflect.TypeFor[int32](), reflect.TypeFor[*int64](), tDuration, reflect.TypeFor[int]()}).Draw(g.t, "type")
		g.d.fields[g.addField(typ)].setRole(dynamic.Version)
		return true
	}},
	{"bad soft-delete marker", func(g *gen) bool {
		g.d.softDelete = true
		switch rapid.IntRange(0, 3).Draw(g.t, "marker kind") {
		case 0:
			g.d.marker = g.addField(rapid.SampledFrom([]reflect.Type{reflect.TypeFor[Flag](), reflect.TypeFor[*bool](), tString, reflect.TypeFor[int8]()}).Draw(g.t, "marker type"))
		case 1:
			g.d.marker = g.addUnexported(tBool)
		case 2:
			g.d.marker = g.addEmbedded()
		default:
			i := g.addField(tBool)
			g.d.fields[i].add(fieldOpt{kind: oTransient})
			g.d.marker = i
		}
		return true
	}},
	{"partition and clustering key", func(g *gen) bool {
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
	{"invalid table name", func(g *gen) bool {
		g.d.table = rapid.SampledFrom([]string{"bad name", "bad-name", "a.b", strings.Repeat("t", 49), "tàble", "x;drop", `"quoted"`, " users"}).Draw(g.t, "bad table")
		return true
	}},
	{"invalid lookup suffix", func(g *gen) bool {
		c := g.pickColumn("column", func(c *column) bool { return !c.isKey() && len(c.lookups) == 0 })
		if c == nil {
			return false
		}
		s := rapid.SampledFrom([]string{"", "  ", "by email", "by-email", strings.Repeat("s", 48), "ü"}).Draw(g.t, "bad suffix")
		g.d.fields[c.field].add(fieldOpt{kind: oLookup, suffix: s})
		return true
	}},
	{"invalid index name", func(g *gen) bool {
		c := g.pickColumn("column", func(c *column) bool { return !c.isPK() && notRenamed(c) })
		if c == nil {
			return false
		}
		g.d.fields[c.field].add(fieldOpt{kind: oIndex})
		if rapid.Bool().Draw(g.t, "long") {
			g.d.fields[c.field].add(fieldOpt{kind: oColumn, name: strings.Repeat("c", 44)})
		} else {
			g.d.fields[c.field].add(fieldOpt{kind: oColumn, name: rapid.SampledFrom([]string{"first name", "a-b", "naïve", `q"uote`}).Draw(g.t, "name")})
		}
		return true
	}},
	{"column name not UTF-8", func(g *gen) bool {
		c := g.pickColumn("column", notRenamed)
		if c == nil {
			return false
		}
		g.d.fields[c.field].add(fieldOpt{kind: oColumn, name: "bad\xff"})
		return true
	}},
	{"duplicate column", func(g *gen) bool {
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
	{"duplicate clustering index", func(g *gen) bool {
		i := g.freshIndex(true)
		g.d.fields[g.addField(tInt64)].add(fieldOpt{kind: oCK, index: i})
		g.d.fields[g.addField(tString)].add(fieldOpt{kind: oCK, index: i, desc: true})
		return true
	}},
	{"unsupported type", func(g *gen) bool {
		switch rapid.IntRange(0, 3).Draw(g.t, "how") {
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
	{"duration or counter in a key", func(g *gen) bool {
		switch rapid.IntRange(0, 4).Draw(g.t, "how") {
		case 0:
			g.d.fields[g.addField(tDuration)].add(fieldOpt{kind: oPK, index: g.freshIndex(false)})
		case 1:
			typ := rapid.SampledFrom([]reflect.Type{tDuration, reflect.TypeFor[[]time.Duration](), reflect.TypeFor[map[string]time.Duration](), reflect.TypeFor[*time.Duration]()}).Draw(g.t, "type")
			g.d.fields[g.addField(typ)].add(fieldOpt{kind: oCK, index: g.freshIndex(true)})
		case 2:
			g.d.fields[g.addField(tDuration)].add(fieldOpt{kind: oLookup, suffix: "by_duration"})
		case 3:
			i := g.addField(tTime)
			g.d.fields[i].add(fieldOpt{kind: oCK, index: g.freshIndex(true)})
			g.d.fields[i].add(fieldOpt{kind: oAsType, as: nat("DURATION")})
		default:
			i := g.addField(tInt64)
			g.d.fields[i].add(fieldOpt{kind: oCK, index: g.freshIndex(true)})
			g.d.fields[i].setRole(dynamic.Counter)
		}
		return true
	}},
	{counterTableMutation, func(g *gen) bool {
		if !g.isCounterTable() {
			return false
		}
		switch rapid.IntRange(0, 5).Draw(g.t, "what") {
		case 0:
			g.d.topts = append(g.d.topts, tableOpt{kind: tTTL, n: rapid.IntRange(1, maxTTL).Draw(g.t, "ttl")})
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
			g.d.fields[g.addField(tTime)].setRole(dynamic.CreatedAt)
		default:
			g.d.fields[g.addField(tInt64)].setRole(dynamic.Version)
		}
		return true
	}},
	{"lookup on a key", func(g *gen) bool {
		c := g.pickColumn("key", (*column).isKey)
		if c == nil {
			return false
		}
		g.d.fields[c.field].add(fieldOpt{kind: oLookup, suffix: "by_key"})
		return true
	}},
	{"index on the only partition key", func(g *gen) bool {
		if g.pkCount() != 1 {
			return false
		}
		c := g.pickColumn("key", (*column).isPK)
		g.d.fields[c.field].add(fieldOpt{kind: oIndex})
		return true
	}},
	{"index on a duration", func(g *gen) bool {
		typ := rapid.SampledFrom([]reflect.Type{tDuration, reflect.TypeFor[[]time.Duration](), reflect.TypeFor[map[int32]time.Duration]()}).Draw(g.t, "type")
		i := g.addField(typ)
		g.d.fields[i].add(fieldOpt{kind: oIndex})
		g.d.fields[i].add(fieldOpt{kind: oColumn, name: "dur"})
		return true
	}},
	{"option out of range", func(g *gen) bool {
		switch rapid.IntRange(0, 5).Draw(g.t, "which") {
		case 0:
			g.d.setOption(tableOpt{kind: tTTL, n: rapid.SampledFrom([]int{-1, maxTTL + 1, math.MinInt32}).Draw(g.t, "ttl")})
		case 1:
			g.d.setOption(tableOpt{kind: tGC, n: rapid.SampledFrom([]int{-1, math.MinInt32, math.MaxInt32 + 1}).Draw(g.t, "gc")})
		case 2:
			g.d.softDelete = true
			g.d.softTTL = rapid.SampledFrom([]int{-1, maxTTL + 1}).Draw(g.t, "soft ttl")
		case 3:
			g.d.setOption(tableOpt{kind: tCache, n: rapid.SampledFrom([]int{-1, 10}).Draw(g.t, "cache ttl"), m: -int64(rapid.IntRange(0, 1).Draw(g.t, "negative size"))})
		default:
			k := rapid.SampledFrom([]tableOptKind{tRead, tWrite}).Draw(g.t, "which consistency")
			g.d.setOption(tableOpt{kind: k, n: rapid.IntRange(11, 0xffff).Draw(g.t, "level")})
		}
		return true
	}},
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
			if m.name == counterTableMutation {
				counter = 1
			}
			chosen = append(chosen, m)
		}
		g := newValid(t, counter)
		g.d.features = nil
		var applied []string
		for _, m := range chosen {
			if m.apply(g) {
				applied = append(applied, m.name)
			}
		}
		broken := g.d.broken()
		if len(broken) == 0 {
			if attempt < 50 {
				continue
			}
			g.d.table, applied = "", append(applied, "table missing")
			broken = g.d.broken()
		}
		sp := g.d.spec(t)
		return Invalid{Spec: sp, Rule: broken[0], Broken: broken, Mutations: applied}
	}
}

const counterTableMutation = "counter table with a forbidden option"

// InvalidSpec draws a spec that breaks one or more rules on purpose and
// returns the rule the builder must report first.
func InvalidSpec(t *rapid.T) (dynamic.Spec, kerrors.Rule) {
	c := InvalidCase(t)
	return c.Spec, c.Rule
}
