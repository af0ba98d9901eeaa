package reflectx

import (
	"reflect"
	"strconv"
	"time"
	"unsafe"
)

var timeType = reflect.TypeFor[time.Time]()

// SetCanaries stores in each field of the struct at base a value that no
// other field and no zero value holds, where the field's type allows one,
// and returns those values (an invalid Value where it does not: bool,
// struct types other than time.Time, ...).
//
// kandra uses them when Describe has a value receiver: Describe then runs
// on a copy of the probe whose address is unknown, and a bound pointer is
// attributed to a field only if it points at that field's canary. This
// tells fields of one type apart and rejects pointers to anything else.
func SetCanaries(base unsafe.Pointer, fields []Field) []reflect.Value {
	out := make([]reflect.Value, len(fields))
	for i, f := range fields {
		v := reflect.NewAt(f.Type, unsafe.Add(base, f.Offset)).Elem()
		switch k := f.Type.Kind(); {
		case k == reflect.String:
			v.SetString("\x00kandra probe " + strconv.Itoa(i))
		case k >= reflect.Int && k <= reflect.Int64:
			v.SetInt(int64(101 + i))
		case k >= reflect.Uint && k <= reflect.Uintptr:
			v.SetUint(uint64(101 + i))
		case k == reflect.Float32 || k == reflect.Float64:
			v.SetFloat(float64(i) + 0.5)
		case k == reflect.Array && f.Type.Elem().Kind() == reflect.Uint8 && f.Type.Len() > 0:
			for j := 0; j < f.Type.Len(); j++ {
				v.Index(j).SetUint(uint64(0xA5 ^ (i + j)))
			}
		case k == reflect.Pointer && f.Type.Elem().Size() > 0:
			v.Set(reflect.New(f.Type.Elem()))
		case k == reflect.Slice && f.Type.Elem().Size() > 0:
			v.Set(reflect.MakeSlice(f.Type, 1, 1))
		case k == reflect.Map:
			v.Set(reflect.MakeMap(f.Type))
		case f.Type == timeType:
			v.Set(reflect.ValueOf(time.Unix(1_000_000_000+int64(i), 0).UTC()))
		default:
			continue
		}
		out[i] = reflect.ValueOf(v.Interface())
	}
	return out
}

// HoldsCanary reports whether the value of type t at p equals canary.
func HoldsCanary(p unsafe.Pointer, t reflect.Type, canary reflect.Value) bool {
	v := reflect.NewAt(t, p).Elem()
	switch k := t.Kind(); {
	case t == timeType:
		return v.Interface().(time.Time).Equal(canary.Interface().(time.Time))
	case k == reflect.String:
		return v.String() == canary.String()
	case k >= reflect.Int && k <= reflect.Int64:
		return v.Int() == canary.Int()
	case k >= reflect.Uint && k <= reflect.Uintptr:
		return v.Uint() == canary.Uint()
	case k == reflect.Float32 || k == reflect.Float64:
		return v.Float() == canary.Float()
	case k == reflect.Array:
		return v.Interface() == canary.Interface()
	case k == reflect.Pointer || k == reflect.Map || k == reflect.Slice:
		return v.UnsafePointer() == canary.UnsafePointer()
	}
	return false
}
