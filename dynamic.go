package kandra

import (
	"reflect"
	"unsafe"

	kerrors "github.com/kandra-go/kandra/errors"
	"github.com/kandra-go/kandra/internal/dynamic"
)

// The entry points for run-time struct types live in an internal package
// so the public API stays generic-only.
func init() {
	dynamic.Build = func(sp dynamic.Spec) (any, error) { return buildDynamic(sp) }
	dynamic.Register = func(sp dynamic.Spec) (any, error) {
		if sp.Type == nil || sp.Type.Kind() != reflect.Struct {
			return buildDynamic(sp)
		}
		_, err := registry.register(sp.Type, func() (any, *TableSchema, error) {
			ts, err := buildDynamic(sp)
			return nil, ts, err
		})
		if err != nil {
			return nil, err
		}
		ts, _ := SchemaOf(sp.Type)
		return ts, nil
	}
}

func buildDynamic(sp dynamic.Spec) (*TableSchema, error) {
	typ := sp.Type
	if typ == nil || typ.Kind() != reflect.Struct {
		return nil, &kerrors.SchemaError{Entity: "<dynamic>", Rule: RuleNotStruct, Detail: "not a struct type"}
	}
	probe := reflect.New(typ)
	d := describeResult{table: sp.Table}
	if sp.Table != "" {
		d.tableCalls = 1
	}
	for _, o := range sp.TableOptions {
		o.(TableOption).applyTable(&d.opts)
	}
	if sp.SoftDelete {
		var marker unsafe.Pointer
		if sp.MarkerField >= 0 {
			marker = probe.Elem().Field(sp.MarkerField).Addr().UnsafePointer()
		}
		d.opts.softDelete = &softDeleteSpec{ttl: sp.SoftTTL, marker: marker}
	}
	for _, bnd := range sp.Binds {
		f := probe.Elem().Field(bnd.Field)
		opts := make([]FieldOption, len(bnd.Options))
		for i, o := range bnd.Options {
			opts[i] = o.(FieldOption)
		}
		role, rule, ok := dynamicRole(bnd.Role, f.Type())
		if !ok {
			// What the typed binders make a compile error is reported in
			// its rule's place in the order; the role still counts for the
			// rules before it (two Versions are two Versions).
			d.roleErrs = append(d.roleErrs, &kerrors.SchemaError{Entity: typ.String(), Field: typ.Field(bnd.Field).Name, Rule: rule,
				Detail: "the role does not accept a field of type " + f.Type().String()})
		}
		d.binds = append(d.binds, bindRecord{ptr: f.Addr().UnsafePointer(), typ: f.Type(), opts: opts, role: role})
	}
	return build(typ, probe.UnsafePointer(), d)
}

// dynamicRole is the run-time counterpart of the typed binders' signatures.
func dynamicRole(r dynamic.Role, t reflect.Type) (func(*fieldSpec), kerrors.Rule, bool) {
	switch r {
	case dynamic.CreatedAt:
		return func(f *fieldSpec) { f.createdAt = true }, RuleTimestampType, t == typeTime
	case dynamic.UpdatedAt:
		return func(f *fieldSpec) { f.updatedAt = true }, RuleTimestampType, t == typeTime
	case dynamic.Version:
		return func(f *fieldSpec) { f.version++ }, RuleVersionType, t == typeTime || t == reflect.TypeFor[int64]()
	case dynamic.Counter:
		return func(f *fieldSpec) { f.counter = true }, RuleUnsupportedType, t == reflect.TypeFor[int64]()
	case dynamic.UUIDTimeOrdered:
		return generatedRole(TimeOrdered), RuleUnsupportedType, t == typeUUID
	case dynamic.UUIDRandom:
		return generatedRole(Random), RuleUnsupportedType, t == typeUUID
	}
	return nil, "", true
}
