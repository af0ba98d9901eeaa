package adapter

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sync"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/cqlorder"
	"github.com/kandra-go/kandra/internal/cqlvalue"
	"github.com/kandra-go/kandra/internal/reflectx"
	"github.com/kandra-go/kandra/kerrors"
)

// User-defined types: a Go struct kandra maps to a user-defined type (see
// kandra.Register) is bound and scanned as udtWire, which the core
// encodes and decodes itself for both drivers: the protocol's form, each
// field as [int32 length][bytes] (length -1 for null), every field
// through the conv a column of its Go type and CQL type would have
// (kandra's value rules, references, sorted sets and maps), marshalled and
// unmarshalled by the driver with the field's type info.
//
// Fields are matched by name against the type the server describes
// (TypeSystem.UDT), not by position: after ALTER TYPE ... ADD the server's
// order is the model's only while the model adds fields at the end. A
// field the server's type has and the Go struct lacks is written as null
// and skipped on read; a field the Go struct has and the server's type
// lacks is a write error (the migration has not run: writing would drop
// the value). A stored value with fewer fields than the type (written
// before the type gained them) reads its missing fields as null.

// udtPlan is how the Go struct type t binds and scans as the user-defined
// type it maps to.
type udtPlan[I any, D TypeSystem[I]] struct {
	t      reflect.Type
	name   string // the type's name, for messages
	fields []udtField
	byName map[string]int // CQL field name -> index in fields
	err    error          // the struct does not match the type (never for a registered one)
}

// udtField is one field of a udtPlan.
type udtField struct {
	name  string // the CQL field name
	goIdx int    // the Go struct field's index
	cv    *conv  // as a column's own value of its Go and CQL type; nil: as it is
}

// planUDT is the conv of the Go struct type t as the user-defined type n.
func planUDT[I any, D TypeSystem[I]](t reflect.Type, n cqlorder.Type) *conv {
	p := &udtPlan[I, D]{t: t, name: n.UDT, byName: make(map[string]int, len(n.Args))}
	// The struct's stored fields are the type's, in order (kandra's
	// mapping): the names are the type's.
	if stored := reflectx.StoredFields(t); len(stored) != len(n.Args) || len(n.Fields) != len(n.Args) {
		p.err = fmt.Errorf("the Go struct %s has %d fields for the user-defined type %s, which has %d: kandra's mapping and its adapter disagree; please report it", t, len(stored), n, len(n.Args))
	} else {
		for i, j := range stored {
			p.byName[n.Fields[i]] = i
			p.fields = append(p.fields, udtField{name: n.Fields[i], goIdx: j, cv: planTop[I, D](t.Field(j).Type, n.Args[i])})
		}
	}
	wire := reflect.TypeFor[udtWire[I, D]]()
	return &conv{
		wire: wire,
		toWire: func(v reflect.Value) reflect.Value {
			c := reflect.New(t).Elem() // a copy: the driver may marshal it after the call
			c.Set(v)
			return reflect.ValueOf(udtWire[I, D]{&udtValue[I, D]{plan: p, val: c}})
		},
		fromWire: func(v reflect.Value) (reflect.Value, error) {
			w := v.Interface().(udtWire[I, D])
			if w.v == nil {
				return reflect.Zero(t), nil // null
			}
			return p.decode(w.v.info, w.v.data)
		},
	}
}

// planTop is the conv of a value of Go type t in CQL type n bound on its
// own (a column, a field of a user-defined type): planConv's, else the
// driver's or the core's reference for t, else nil (as it is).
func planTop[I any, D TypeSystem[I]](t reflect.Type, n cqlorder.Type) *conv {
	if cv := planConv[I, D](t, n, true); cv != nil {
		return cv
	}
	var d D
	if r := d.Ref(t); r != nil {
		return refOnlyConv(t, r)
	}
	if r, ok := refType[I, D](t); ok {
		return refOnlyConv(t, r)
	}
	return nil
}

// udtWire is a Go struct in a user-defined type (see planUDT): a pointer,
// so that the wire type is comparable (a map key) whatever the struct
// holds. Bound, it holds a copy of the struct and its plan; scanned, the
// stored bytes and the type info, which the conv decodes (the driver
// creates the value inside a collection, without the plan). nil is null.
type udtWire[I any, D TypeSystem[I]] struct{ v *udtValue[I, D] }

type udtValue[I any, D TypeSystem[I]] struct {
	plan *udtPlan[I, D]
	val  reflect.Value // bound: the struct, addressable
	data []byte        // scanned: the stored value, a copy
	info I             // scanned: its type info
}

// MarshalCQL implements the driver's Marshaler.
func (w udtWire[I, D]) MarshalCQL(info I) ([]byte, error) {
	switch {
	case w.v == nil:
		return nil, nil
	case w.v.plan == nil: // scanned, bound again
		return w.v.data, nil
	}
	return w.v.plan.marshal(info, w.v.val)
}

// UnmarshalCQL implements the driver's Unmarshaler: it keeps a copy of the
// bytes (the driver reuses its buffer) and the type info; the conv decodes
// them.
func (w *udtWire[I, D]) UnmarshalCQL(info I, data []byte) error {
	if data == nil {
		w.v = nil
		return nil
	}
	b := make([]byte, len(data))
	copy(b, data)
	w.v = &udtValue[I, D]{data: b, info: info}
	return nil
}

// udtInfo is the number of fields of info, which must be a user-defined
// type's.
func (p *udtPlan[I, D]) udtInfo(info I) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	var d D
	_, _, n, ok := d.UDT(info)
	if !ok {
		return 0, fmt.Errorf("the Go struct %s maps to the user-defined type %s, and the server's type here is not a user-defined type (protocol type %#x): the live schema is not the model's; run the migration", p.t, p.name, int(d.Type(info)))
	}
	return n, nil
}

// marshal writes v, a p.t, as the server's user-defined type info: its
// fields in the server's order, matched by name; a field the Go struct
// lacks is null.
func (p *udtPlan[I, D]) marshal(info I, v reflect.Value) ([]byte, error) {
	n, err := p.udtInfo(info)
	if err != nil {
		return nil, err
	}
	var d D
	matched := 0
	for i := range n {
		if name, _ := d.UDTField(info, i); p.has(name) {
			matched++
		}
	}
	if matched < len(p.fields) {
		return nil, p.missing(info, n)
	}
	var out []byte
	for i := range n {
		name, fi := d.UDTField(info, i)
		j, ok := p.byName[name]
		if !ok {
			out = binary.BigEndian.AppendUint32(out, math.MaxUint32) // a field the struct does not have: null
			continue
		}
		f := &p.fields[j]
		b, err := d.Marshal(fi, bind[I, D](f.cv, v.Field(f.goIdx).Addr().Interface(), true))
		if err != nil {
			return nil, fieldErr(p.name, name, err)
		}
		if b == nil {
			out = binary.BigEndian.AppendUint32(out, math.MaxUint32)
			continue
		}
		if len(b) > math.MaxInt32 {
			return nil, fieldErr(p.name, name, fmt.Errorf("the value is %d bytes long, past the protocol's %d", len(b), math.MaxInt32))
		}
		out = binary.BigEndian.AppendUint32(out, uint32(len(b)))
		out = append(out, b...)
	}
	return out, nil
}

func (p *udtPlan[I, D]) has(name string) bool {
	_, ok := p.byName[name]
	return ok
}

// missing is the error for the first field of the Go struct the server's
// type lacks.
func (p *udtPlan[I, D]) missing(info I, n int) error {
	var d D
	ks, name, _, _ := d.UDT(info)
	live := make([]string, n)
	for i := range n {
		live[i], _ = d.UDTField(info, i)
	}
	for _, f := range p.fields {
		if !slices.Contains(live, f.name) {
			return &kerrors.UDTFieldError{Keyspace: ks, Type: name, Field: f.name, GoField: p.t.String() + "." + p.t.Field(f.goIdx).Name, Fields: live}
		}
	}
	return nil
}

// decode reads data, a stored value of the server's user-defined type
// info, into a new p.t: by field name; a field the struct lacks is
// skipped, and fields past the end of a shorter value (written before the
// type gained them) are zero.
func (p *udtPlan[I, D]) decode(info I, data []byte) (reflect.Value, error) {
	n, err := p.udtInfo(info)
	if err != nil {
		return reflect.Value{}, err
	}
	var d D
	out := reflect.New(p.t).Elem()
	rest := data
	for i := range n {
		if len(rest) == 0 {
			break // an older value: its missing fields are null
		}
		name, fi := d.UDTField(info, i)
		if len(rest) < 4 {
			return reflect.Value{}, fieldErr(p.name, name, errors.New("the stored value ends inside the field's length"))
		}
		size := int32(binary.BigEndian.Uint32(rest))
		rest = rest[4:]
		var fb []byte
		if size >= 0 {
			if int(size) > len(rest) {
				return reflect.Value{}, fieldErr(p.name, name, fmt.Errorf("the stored value ends inside the field (%d bytes of %d)", len(rest), size))
			}
			fb, rest = rest[:size:size], rest[size:]
		}
		j, ok := p.byName[name]
		if !ok {
			continue // a field the struct does not have
		}
		f := &p.fields[j]
		field := out.Field(f.goIdx)
		target, tmp := scanTarget[I, D](f.cv, field.Addr().Interface())
		if err := d.Unmarshal(fi, fb, target); err != nil {
			return reflect.Value{}, fieldErr(p.name, name, err)
		}
		if tmp.IsValid() {
			x, err := f.cv.fromWire(tmp.Elem())
			if err != nil {
				return reflect.Value{}, fieldErr(p.name, name, err)
			}
			field.Set(x)
		}
	}
	if len(rest) > 0 {
		return reflect.Value{}, fmt.Errorf("the stored value of the user-defined type %s has more fields than the server's type (%d)", p.name, n)
	}
	return out, nil
}

// fieldErr names the field of a user-defined type in err, keeping a
// cqlvalue.ReadError one (the column's ReadError reads its value and
// reason).
func fieldErr(udt, field string, err error) error {
	where := "field " + field + " of user-defined type " + udt
	var re *cqlvalue.ReadError
	if errors.As(err, &re) {
		return &cqlvalue.ReadError{Value: re.Value, Reason: where + ": " + re.Reason}
	}
	return fmt.Errorf("%s: %w", where, err)
}

// UDTFieldAdded reports whether err is a *kerrors.UDTFieldError whose field the
// server's schema has now (system_schema.types, read through d.QueryCQL at
// consistency ONE): the driver described the type as it was when it
// prepared the statement, before ALTER TYPE ... ADD ran. Both gocql
// drivers keep a statement's prepared metadata for its text until the
// server refuses to execute it, and a write they cannot marshal never
// reaches the server: an adapter sends the statement again under a text
// the driver prepares anew (Texts.Renew). For adapter authors.
func UDTFieldAdded(ctx context.Context, d Driver, err error) bool {
	var fe *kerrors.UDTFieldError
	if !errors.As(err, &fe) || fe.Keyspace == "" || fe.Type == "" {
		return false
	}
	rows, qerr := d.QueryCQL(ctx, "SELECT field_names FROM system_schema.types WHERE keyspace_name = ? AND type_name = ?", []any{fe.Keyspace, fe.Type}, kandra.ConsistencyOne)
	if qerr != nil || len(rows) != 1 {
		return false
	}
	names, _ := rows[0]["field_names"].([]string)
	return slices.Contains(names, fe.Field)
}

// Texts is the CQL text an adapter sends for each Statement: the
// statement's own, or, once renewed, the text with trailing spaces (the
// same statement to the server), which the driver prepares anew: see
// UDTFieldAdded. The zero value is ready; it is safe for concurrent use.
// For adapter authors.
type Texts struct {
	m sync.Map // *Statement -> string
}

// CQL is the text to send for s.
func (t *Texts) CQL(s *Statement) string {
	if v, ok := t.m.Load(s); ok {
		return v.(string)
	}
	return s.CQL()
}

// Renew makes the text to send for s a new one, if it is still sent, the
// text a failed call sent (so that the calls that failed at once renew it
// once).
func (t *Texts) Renew(s *Statement, sent string) {
	next := sent + " "
	if _, loaded := t.m.LoadOrStore(s, next); loaded {
		t.m.CompareAndSwap(s, sent, next)
	}
}
