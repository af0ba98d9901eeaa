// Package reflectx holds the reflection kandra does once per type at
// registration time, flattening a struct's fields the way encoding/json
// does, and the only unsafe code in kandra: typed field access by offset
// and interface values built from field addresses, so that per-row code
// needs no reflection at all (see unsafe.go).
package reflectx

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// Field is one exported, addressable field of a flattened struct.
type Field struct {
	// Name is the Go field name.
	Name string
	// Path is the dotted path from the root struct ("Audit.CreatedAt").
	Path string
	// Index is the reflect index sequence from the root struct.
	Index []int
	// Offset is the byte offset from the start of the root struct.
	Offset uintptr
	// Type is the field's type.
	Type reflect.Type
	// Depth is the number of embedded structs passed through (0 = top level).
	Depth int
}

// FlattenError reports a struct that cannot be flattened unambiguously.
type FlattenError struct {
	Path   string
	Reason string
}

func (e *FlattenError) Error() string { return e.Path + ": " + e.Reason }

// Fields returns the exported fields of struct type t in declaration order,
// with embedded structs flattened as encoding/json flattens them: an
// embedded struct's exported fields are promoted (even when the embedded
// type itself is unexported), a field at a shallower depth hides one of the
// same name deeper down, and two fields of the same name at the same
// shallowest depth are an error (encoding/json drops both silently; a schema
// must not lose a column without saying so). Embedded pointers to structs
// are an error too: their fields do not live at a fixed offset.
func Fields(t reflect.Type) ([]Field, error) {
	if t.Kind() != reflect.Struct {
		return nil, &FlattenError{Path: t.String(), Reason: "not a struct"}
	}
	all := make([]Field, 0, t.NumField())
	if err := walk(t, nil, "", 0, 0, &all, map[reflect.Type]bool{t: true}); err != nil {
		return nil, err
	}
	// Without promoted fields there is nothing to resolve: the fields of
	// one struct have distinct names.
	promoted := false
	for _, f := range all {
		promoted = promoted || f.Depth > 0
	}
	if !promoted {
		return all, nil
	}
	// Resolve name conflicts: keep the shallowest; ties are errors.
	byName := make(map[string][]int, len(all))
	for i, f := range all {
		byName[f.Name] = append(byName[f.Name], i)
	}
	keep := make([]bool, len(all))
	for name, idx := range byName {
		best := idx[0]
		tie := false
		for _, i := range idx[1:] {
			switch {
			case all[i].Depth < all[best].Depth:
				best, tie = i, false
			case all[i].Depth == all[best].Depth:
				tie = true
			}
		}
		if tie {
			var paths []string
			for _, i := range idx {
				if all[i].Depth == all[best].Depth {
					paths = append(paths, all[i].Path)
				}
			}
			sort.Strings(paths)
			return nil, &FlattenError{Path: paths[0], Reason: fmt.Sprintf(
				"field name %q is ambiguous: %s are promoted at the same depth", name, strings.Join(paths, " and "))}
		}
		keep[best] = true
	}
	out := all[:0]
	for i, f := range all {
		if keep[i] {
			out = append(out, f)
		}
	}
	return out, nil
}

func walk(t reflect.Type, index []int, prefix string, base uintptr, depth int, out *[]Field, seen map[reflect.Type]bool) error {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		path := prefix + sf.Name
		idx := append(slices.Clone(index), i)
		if sf.Anonymous {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
				if !sf.IsExported() && !hasExported(ft.Elem()) {
					continue
				}
				return &FlattenError{Path: path, Reason: "embedded pointer to a struct is not supported: its fields have no fixed offset; embed " + ft.Elem().String() + " by value"}
			}
			if ft.Kind() == reflect.Struct && !isLeafStruct(ft) {
				if seen[ft] {
					continue
				}
				seen[ft] = true
				err := walk(ft, idx, path+".", base+sf.Offset, depth+1, out, seen)
				delete(seen, ft)
				if err != nil {
					return err
				}
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		*out = append(*out, Field{Name: sf.Name, Path: path, Index: idx, Offset: base + sf.Offset, Type: sf.Type, Depth: depth})
	}
	return nil
}

// isLeafStruct reports struct types that are values in their own right
// (time.Time, netip.Addr, ...) rather than containers of columns: an
// embedded one is a column, not flattened. Only structs from the standard
// library with no exported fields qualify.
func isLeafStruct(t reflect.Type) bool {
	return !hasExported(t) && t.PkgPath() != "" && !strings.Contains(t.PkgPath(), ".")
}

func hasExported(t reflect.Type) bool {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.IsExported() {
			return true
		}
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct && hasExported(sf.Type) {
			return true
		}
	}
	return false
}

// UDTTag is the struct tag key of a user-defined type's fields
// (kandra.UDTTag): `kandra:"name"` names one, `kandra:"-"` leaves it out.
const UDTTag = "kandra"

// Stored reports whether the struct field f is a field of its struct's
// user-defined type: every field but one tagged `kandra:"-"` (kandra
// refuses a struct with an unexported or embedded one at registration).
func Stored(f reflect.StructField) bool { return f.Tag.Get(UDTTag) != "-" }

// StoredFields returns the indexes of the fields of the struct type t
// that its user-defined type stores, in order: the i-th is the type's
// i-th field (kandra.CQLType.Fields).
func StoredFields(t reflect.Type) []int {
	var out []int
	for i := range t.NumField() {
		if Stored(t.Field(i)) {
			out = append(out, i)
		}
	}
	return out
}
