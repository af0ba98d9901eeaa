package migrate

// The CQL types of a .cql file: read from its tokens, checked as a server
// checks them, and written in the spelling system_schema stores.

import (
	"strings"

	"github.com/kandra-go/kandra"
)

// ftype is a type as a statement of the file writes it.
type ftype struct {
	kind   string // native, udt, list, set, map, tuple, vector, custom
	name   string // the native's name (lower case, varchar as text), the type's name, the custom class
	ks     string // the keyspace a user-defined type is qualified with, or ""
	args   []*ftype
	dim    string // a vector's dimension
	frozen bool   // written frozen<...>
	line   int
}

// nativeTypes are the native type names both servers read, by their
// lower-case spelling, with the name system_schema stores.
var nativeTypes = map[string]string{
	"ascii": "ascii", "bigint": "bigint", "blob": "blob", "boolean": "boolean", "counter": "counter",
	"date": "date", "decimal": "decimal", "double": "double", "duration": "duration", "float": "float",
	"inet": "inet", "int": "int", "smallint": "smallint", "text": "text", "varchar": "text", "time": "time",
	"timestamp": "timestamp", "timeuuid": "timeuuid", "tinyint": "tinyint", "uuid": "uuid", "varint": "varint",
}

// maxFileTypeDepth caps how deep a type of the file nests, so that a
// hostile file cannot exhaust the stack; servers nest far less.
const maxFileTypeDepth = 64

// typ reads a type at depth levels of nesting.
func (p *stmtParser) typ(depth int) *ftype {
	if depth > maxFileTypeDepth {
		p.syntax("a type nested more than " + itoa(maxFileTypeDepth) + " levels deep")
	}
	t := p.next()
	switch t.kind {
	case tString:
		return &ftype{kind: "custom", name: t.text, line: t.line}
	case tQuoted:
		return p.udtName(t.text, t.line)
	case tWord:
	default:
		p.syntaxAt(t, "a type")
	}
	w := strings.ToLower(t.text)
	switch w {
	case "frozen":
		p.expectPunct("<", "after frozen")
		in := p.typ(depth + 1)
		p.expectPunct(">", "to close frozen<")
		if in.kind == "native" || in.kind == "custom" {
			p.refuse("frozen<" + in.name + ">: frozen<> is only allowed on collections, tuples and user-defined types")
		}
		in.frozen = true
		return in
	case "list", "set":
		p.expectPunct("<", "after "+w)
		e := p.typ(depth + 1)
		p.expectPunct(">", "to close "+w+"<")
		return &ftype{kind: w, args: []*ftype{e}, line: t.line}
	case "map":
		p.expectPunct("<", "after map")
		k := p.typ(depth + 1)
		p.expectPunct(",", "between a map's key and value types")
		v := p.typ(depth + 1)
		p.expectPunct(">", "to close map<")
		return &ftype{kind: w, args: []*ftype{k, v}, line: t.line}
	case "tuple":
		p.expectPunct("<", "after tuple")
		out := &ftype{kind: w, line: t.line}
		for {
			out.args = append(out.args, p.typ(depth+1))
			if !p.acceptPunct(",") {
				break
			}
		}
		p.expectPunct(">", "to close tuple<")
		return out
	case "vector":
		p.expectPunct("<", "after vector")
		e := p.typ(depth + 1)
		p.expectPunct(",", "between a vector's element type and dimension")
		d := p.next()
		if d.kind != tNumber || !allDigits(d.text) {
			p.syntaxAt(d, "a vector's dimension (a whole number)")
		}
		p.expectPunct(">", "to close vector<")
		return &ftype{kind: w, args: []*ftype{e}, dim: strings.TrimLeft(d.text, "0"), line: t.line}
	}
	if n, ok := nativeTypes[w]; ok {
		return &ftype{kind: "native", name: n, line: t.line}
	}
	return p.udtName(w, t.line)
}

// udtName reads a user-defined type named name, qualified or not.
func (p *stmtParser) udtName(name string, line int) *ftype {
	u := &ftype{kind: "udt", name: name, line: line}
	if p.acceptPunct(".") {
		u.ks, u.name = name, p.ident("a type's name after its keyspace")
	}
	return u
}

func allDigits(s string) bool {
	for i := range len(s) {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// collection reports a list, set or map.
func (t *ftype) collection() bool { return t.kind == "list" || t.kind == "set" || t.kind == "map" }

// freezable reports a type a server stores frozen<...> when frozen: a
// collection, a user-defined type, a tuple.
func (t *ftype) freezable() bool { return t.collection() || t.kind == "udt" || t.kind == "tuple" }

// check says why a server refuses t in keyspace ks (its types as the file
// has created them so far), or "": a user-defined type it lacks, or that
// is of another keyspace; a collection or type inside a collection that is
// not frozen; a counter inside another type. inside is set in a
// collection's or type's arguments; frozen when an outer type is frozen,
// which freezes everything in it.
func (t *ftype) check(ks *fileKeyspace, inside, frozen bool) string {
	switch t.kind {
	case "udt":
		switch {
		case t.ks != "" && t.ks != ks.name:
			return "the type " + t.ks + "." + t.name + " is of another keyspace than " + ks.name + ", which no server takes"
		case ks.types[t.name] == nil:
			return "the type " + kandra.QuoteIdent(t.name) + " is neither a CQL type nor a type created before it in keyspace " + ks.name
		}
	case "native":
		if t.name == "counter" && inside {
			return "a counter inside a collection or a type, which no server takes"
		}
	case "custom":
		return ""
	}
	if inside && !frozen && !t.frozen && (t.collection() || t.kind == "udt") {
		return "a " + t.kind + " inside a collection is not frozen (write frozen<...>), which no server takes"
	}
	freezes := frozen || t.frozen || t.kind == "tuple" || t.kind == "vector"
	for _, a := range t.args {
		if why := a.check(ks, true, freezes); why != "" {
			return why
		}
	}
	return ""
}

// raw writes t as system_schema stores it: natives in lower case (varchar
// as text), a user-defined type quoted unless a lower-case identifier,
// frozen<...> around a frozen type and around every collection, tuple and
// type inside another, a tuple always frozen, ", " between arguments.
func (t *ftype) raw(nested bool) string {
	var s string
	switch t.kind {
	case "native":
		return t.name
	case "custom":
		return quoteLiteral(t.name)
	case "udt":
		s = kandra.QuoteIdent(t.name)
	case "vector":
		return "vector<" + t.args[0].raw(true) + ", " + t.dim + ">"
	default:
		parts := make([]string, len(t.args))
		for i, a := range t.args {
			parts[i] = a.raw(true)
		}
		s = t.kind + "<" + strings.Join(parts, ", ") + ">"
	}
	if t.frozen || nested || t.kind == "tuple" {
		s = "frozen<" + s + ">"
	}
	return s
}

// uses reports whether t holds the user-defined type name.
func (t *ftype) uses(name string) bool {
	if t.kind == "udt" && t.name == name {
		return true
	}
	for _, a := range t.args {
		if a.uses(name) {
			return true
		}
	}
	return false
}
