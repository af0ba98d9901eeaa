package adaptertest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
)

// maxExported bounds the package's API: a conformance suite an adapter's
// author reads in one sitting, as testing/fstest's TestFS. RunAllocations
// took it from 12 to 13: its row and the hand-written code it measures
// against are the adapter's to write, in the driver's own types.
const maxExported = 13

// sources parses the package's non-test files.
func sources(t *testing.T) (*token.FileSet, []*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := pkgs["adaptertest"]
	if p == nil || len(p.Files) == 0 {
		t.Fatalf("no package adaptertest here: %v", pkgs)
	}
	var names []string
	for name := range p.Files {
		names = append(names, name)
	}
	sort.Strings(names)
	files := make([]*ast.File, len(names))
	for i, name := range names {
		files[i] = p.Files[name]
	}
	return fset, files
}

// TestExportedNames: the package exports at most maxExported names (types,
// functions, variables and constants; the fields and methods of its
// exported types are not counted).
func TestExportedNames(t *testing.T) {
	_, files := sources(t)
	var exported []string
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					exported = append(exported, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							exported = append(exported, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								exported = append(exported, n.Name)
							}
						}
					}
				}
			}
		}
	}
	sort.Strings(exported)
	t.Logf("%d exported names: %s", len(exported), strings.Join(exported, ", "))
	if len(exported) > maxExported {
		t.Errorf("the package exports %d names, more than %d: %s", len(exported), maxExported, strings.Join(exported, ", "))
	}
}

// registered reports whether kandra has a table of T.
func registered[T any]() bool {
	_, ok := kandra.TableOf[T]()
	return ok
}

// entity is one of the package's entity types, by name.
type entity struct {
	name       string
	registered func() bool
}

// entities are the package's entity types (every type with a Describe
// method; of the generic sorted, whose instances a scenario registers,
// one instance).
var entities = []entity{
	{"AllocRow", registered[AllocRow]},
	{"user", registered[user]}, {"todo", registered[todo]}, {"wallet", registered[wallet]},
	{"pageHits", registered[pageHits]}, {"event", registered[event]}, {"device", registered[device]},
	{"member", registered[member]}, {"note", registered[note]}, {"listing", registered[listing]},
	{"reading", registered[reading]}, {"ticket", registered[ticket]}, {"thread", registered[thread]},
	{"threadHits", registered[threadHits]}, {"booking", registered[booking]}, {"shift", registered[shift]},
	{"sitting", registered[sitting]}, {"stay", registered[stay]}, {"diary", registered[diary]},
	{"tally", registered[tally]}, {"customer", registered[customer]}, {"route", registered[route]},
	{"accountV1", registered[accountV1]}, {"accountV2", registered[accountV2]}, {"namedTypes", registered[namedTypes]},
	{"embedding", registered[embedding]}, {"docV1", registered[docV1]}, {"docV2", registered[docV2]},
	{"migAccountV1", registered[migAccountV1]}, {"migAccountV2", registered[migAccountV2]},
	{"migPostV1", registered[migPostV1]}, {"migPostV2", registered[migPostV2]}, {"migPostV3", registered[migPostV3]},
	{"migDocV1", registered[migDocV1]}, {"migDocV2", registered[migDocV2]},
	{"adoptDoc", registered[adoptDoc]}, {"adoptDocNamed", registered[adoptDocNamed]}, {"adoptDocOther", registered[adoptDocOther]},
	{"migVecV1", registered[migVecV1]}, {"migVecV2", registered[migVecV2]}, {"migVecV3", registered[migVecV3]},
	{"migVecV4", registered[migVecV4]}, {"migPatientV1", registered[migPatientV1]}, {"migPatientV2", registered[migPatientV2]},
	{"migPatientV3", registered[migPatientV3]}, {"migPersonV1", registered[migPersonV1]}, {"migPersonV2", registered[migPersonV2]},
	{"migPersonV3", registered[migPersonV3]}, {"migPersonV4", registered[migPersonV4]},
	{"migTagged", registered[migTagged]}, {"migTaggedV2", registered[migTaggedV2]},
	{"card", registered[card]}, {"shardRow", registered[shardRow]}, {"shelved", registered[shelved]}, {"bucketed", registered[bucketed]}, {"stocked", registered[stocked]}, {"sliced", registered[sliced]}, {"sorted[string]", registered[sorted[string]]},
	{"blobKeyed", registered[blobKeyed]},
	{"frozenShelf", registered[frozenShelf]}, {"frozenShelfLoose", registered[frozenShelfLoose]},
}

// registering are the functions of package kandra that register a type or
// need one registered.
var registering = []string{"Register", "MustRegister", "NewKeyspace", "MustNewKeyspace", "FieldOf", "MustFieldOf"}

// TestImportRegistersNothing: importing the package registers no entity
// type with kandra (a program that imports it, an adapter's test binary,
// finds kandra's registry as it left it until a suite runs). Nothing in
// this test binary has run a suite, so kandra must know none of the
// package's types; and no package-level variable's initializer nor an
// init function calls kandra's registration, so that no type added later
// is registered at import either.
func TestImportRegistersNothing(t *testing.T) {
	for _, e := range entities {
		if e.registered() {
			t.Errorf("importing the package registered %s with kandra", e.name)
		}
	}

	fset, files := sources(t)
	var describes []string
	for _, f := range files {
		kandraName := "kandra"
		for _, im := range f.Imports {
			if im.Path.Value == `"github.com/kandra-go/kandra"` && im.Name != nil {
				kandraName = im.Name.Name
			}
		}
		// The expressions evaluated at import: package-level initializers
		// and init functions.
		var atInit []ast.Node
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.Name == "init" {
					atInit = append(atInit, d.Body)
				}
				if d.Recv != nil && d.Name.Name == "Describe" && len(d.Recv.List) == 1 {
					if star, ok := d.Recv.List[0].Type.(*ast.StarExpr); ok {
						if id, ok := star.X.(*ast.Ident); ok {
							describes = append(describes, id.Name)
						}
					}
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if vs, ok := s.(*ast.ValueSpec); ok {
						for _, v := range vs.Values {
							atInit = append(atInit, v)
						}
					}
				}
			}
		}
		for _, n := range atInit {
			ast.Inspect(n, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				fun := call.Fun
				switch x := fun.(type) { // kandra.MustRegister[T]()
				case *ast.IndexExpr:
					fun = x.X
				case *ast.IndexListExpr:
					fun = x.X
				}
				if sel, ok := fun.(*ast.SelectorExpr); ok {
					if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == kandraName && slices.Contains(registering, sel.Sel.Name) {
						t.Errorf("%s: kandra.%s runs at import (a package-level initializer or an init function); register in register() instead", fset.Position(call.Pos()), sel.Sel.Name)
					}
				}
				if id, ok := fun.(*ast.Ident); ok && id.Name == "register" {
					t.Errorf("%s: register runs at import", fset.Position(call.Pos()))
				}
				return true
			})
		}
	}
	// Every entity type is checked above.
	for _, name := range describes {
		if !slices.ContainsFunc(entities, func(e entity) bool { return e.name == name }) {
			t.Errorf("entity type %s is not in this test's list of entities", name)
		}
	}
	if len(describes) < 40 {
		t.Errorf("found %d entity types with a Describe method; the parse missed some", len(describes))
	}
}
