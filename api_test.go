package kandra_test

import (
	"go/importer"
	gotoken "go/token"
	"go/types"
	"testing"
)

// apiPackages are the packages of the root module an app or adapter author
// imports: the API v0.1 freezes.
var apiPackages = []string{
	"github.com/kandra-go/kandra",
	"github.com/kandra-go/kandra/kstore",
	"github.com/kandra-go/kandra/adapter",
	"github.com/kandra-go/kandra/migrate",
	"github.com/kandra-go/kandra/migrate/cli",
	"github.com/kandra-go/kandra/kerrors",
	"github.com/kandra-go/kandra/auth",
}

// TestNoExportedSignatureNamesAnUnexportedType: no exported function,
// method, variable, struct field or interface method of the API packages
// has a parameter, result or type that a user cannot name (a type they
// could receive but never declare).
func TestNoExportedSignatureNamesAnUnexportedType(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the packages from source")
	}
	imp := importer.ForCompiler(gotoken.NewFileSet(), "source", nil)
	for _, path := range apiPackages {
		pkg, err := imp.Import(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		checked := 0
		check := func(where string, t0 types.Type) {
			checked++
			seen := map[types.Type]bool{}
			var walk func(types.Type)
			walk = func(x types.Type) {
				if seen[x] {
					return
				}
				seen[x] = true
				switch x := x.(type) {
				case *types.Named:
					if o := x.Obj(); o.Pkg() != nil && !o.Exported() {
						t.Errorf("%s.%s names the unexported type %s.%s", pkg.Name(), where, o.Pkg().Name(), o.Name())
					}
					for i := 0; i < x.TypeArgs().Len(); i++ {
						walk(x.TypeArgs().At(i))
					}
				case *types.Pointer:
					walk(x.Elem())
				case *types.Slice:
					walk(x.Elem())
				case *types.Array:
					walk(x.Elem())
				case *types.Map:
					walk(x.Key())
					walk(x.Elem())
				case *types.Chan:
					walk(x.Elem())
				case *types.Signature:
					for i := 0; i < x.Params().Len(); i++ {
						walk(x.Params().At(i).Type())
					}
					for i := 0; i < x.Results().Len(); i++ {
						walk(x.Results().At(i).Type())
					}
				}
			}
			walk(t0)
		}
		scope := pkg.Scope()
		for _, name := range scope.Names() {
			switch o := scope.Lookup(name).(type) {
			case *types.Func:
				if o.Exported() {
					check(name, o.Type())
				}
			case *types.Var:
				if o.Exported() {
					check(name, o.Type())
				}
			case *types.TypeName:
				nt, ok := o.Type().(*types.Named)
				if !o.Exported() || !ok {
					continue
				}
				for i := 0; i < nt.NumMethods(); i++ {
					if m := nt.Method(i); m.Exported() {
						check(name+"."+m.Name(), m.Type())
					}
				}
				switch u := nt.Underlying().(type) {
				case *types.Struct:
					for i := 0; i < u.NumFields(); i++ {
						if f := u.Field(i); f.Exported() {
							check(name+"."+f.Name(), f.Type())
						}
					}
				case *types.Interface:
					for i := 0; i < u.NumExplicitMethods(); i++ {
						if m := u.ExplicitMethod(i); m.Exported() {
							check(name+"."+m.Name(), m.Type())
						}
					}
				}
			}
		}
		if checked == 0 {
			t.Errorf("%s: no exported name checked", path)
		}
	}
}
