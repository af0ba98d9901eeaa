package kandra

import (
	"reflect"
	"strconv"
	"time"

	"github.com/kandra-go/kandra/internal/dynamic"
	"github.com/kandra-go/kandra/internal/reflectx"
)

// The entry points for run-time struct types (reflect.StructOf, which
// cannot have a Describe method) live in an internal package, so the public
// API stays generic-only. They feed the builder Register uses. Only test
// binaries install them (export_test.go, dynamic_hook.go): nothing calls
// installDynamic in a user's binary, so the linker leaves it and the
// builder below out.
func installDynamic() {
	dynamic.Install(func(sp dynamic.Spec) (any, error) { return buildDynamic(sp) }, func(sp dynamic.Spec) (any, error) {
		if sp.Type == nil || sp.Type.Kind() != reflect.Struct {
			return buildDynamic(sp)
		}
		r := cached(reflectx.PointerWordOf(sp.Type)).build(sp.Type, func() (any, *TableSchema, error) {
			ts, err := buildDynamic(sp)
			return nil, ts, err
		})
		if r.err != nil {
			return nil, r.err
		}
		return r.schema, nil
	})
}

func buildDynamic(sp dynamic.Spec) (*TableSchema, error) {
	typ := sp.Type
	if typ == nil {
		panic("kandra: dynamic.Spec without a Type")
	}
	if typ.Kind() != reflect.Struct {
		return build(typ, describeResult{})
	}
	probe := reflect.New(typ)
	d := describeResult{probe: probe.Interface(), table: sp.Table}
	// fieldPtr is &probe.Field(i) as an any, also for an unexported field
	// (which reflect will not hand out), so that binding one reaches the
	// rule that refuses it, as through the typed API.
	_, data := reflectx.Unpack(d.probe)
	fieldPtr := func(i int) any {
		sf := typ.Field(i)
		return data.PackAt(reflectx.PointerWordOf(sf.Type), sf.Offset)
	}
	if sp.Table != "" {
		d.tableCalls = 1
	}
	for _, o := range sp.TableOptions {
		o.(TableOption).applyTable(&d.opts)
	}
	if sp.SoftDelete {
		var marker *bool
		if sp.MarkerField >= 0 {
			m, ok := fieldPtr(sp.MarkerField).(*bool)
			if !ok {
				panic("kandra: dynamic soft-delete marker is not a bool field") // a compile error through SoftDelete
			}
			marker = m
		}
		d.opts.softDelete = &softDeleteSpec{ttl: time.Duration(sp.SoftTTL) * time.Second, marker: marker}
	}
	for _, bnd := range sp.Binds {
		f := typ.Field(bnd.Field)
		opts := make([]FieldOption, len(bnd.Options))
		for i, o := range bnd.Options {
			opts[i] = o.(FieldOption)
		}
		d.binds = append(d.binds, bindRecord{ptr: fieldPtr(bnd.Field), typ: f.Type, opts: opts, role: dynamicRole(bnd.Role, f.Type)})
	}
	return build(typ, d)
}

// dynamicRole is the run-time counterpart of the typed binders. A role on a
// field of the wrong type is a compile error through the typed API, so here
// it can only be a bug in the test that built the spec: it panics.
func dynamicRole(r dynamic.Role, t reflect.Type) FieldOption {
	need := func(ok bool) {
		if !ok {
			panic("kandra: dynamic role " + strconv.Itoa(int(r)) + " on a field of type " + t.String())
		}
	}
	switch r {
	case dynamic.NoRole:
		return nil
	case dynamic.CreatedAt:
		need(t == typeTime)
		return roleCreatedAt
	case dynamic.UpdatedAt:
		need(t == typeTime)
		return roleUpdatedAt
	case dynamic.Version:
		need(t == typeTime || t == reflect.TypeFor[int64]())
		return roleVersion
	case dynamic.Counter:
		need(t == reflect.TypeFor[int64]())
		return roleCounter
	case dynamic.UUIDTimeOrdered:
		need(t == typeUUID)
		return roleGenerated(UUIDTimeOrdered)
	case dynamic.UUIDRandom:
		need(t == typeUUID)
		return roleGenerated(UUIDRandom)
	}
	panic("kandra: unknown dynamic role " + strconv.Itoa(int(r)))
}
