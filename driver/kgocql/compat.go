package kgocql

import gocql "github.com/gocql/gocql"

// What differs between gocql v1.7.0 and ScyllaDB's fork of gocql (the
// same import path), written so that it compiles against both.

// nativeType is gocql.NewNativeType(proto, t) of a type with no custom
// name: gocql v1.7.0's takes (proto, type, custom), the fork's, from its
// v1.17.0, (proto, type).
func nativeType(proto byte, t gocql.Type) gocql.NativeType {
	switch f := any(gocql.NewNativeType).(type) {
	case func(byte, gocql.Type, string) gocql.NativeType:
		return f(proto, t, "")
	case func(byte, gocql.Type) gocql.NativeType:
		return f(proto, t)
	}
	panic("kandra/driver/kgocql: unknown gocql.NewNativeType signature")
}

// errListEOF is gocql's own error for a list cut short ("unmarshal list:
// unexpected eof", a gocql.UnmarshalError: a string in gocql v1.7.0, a
// struct in the fork from its v1.14.5), made by gocql itself: a list of
// one text whose element claims 5 bytes and has none.
var errListEOF = func() error {
	info := gocql.CollectionType{NativeType: nativeType(4, gocql.TypeList), Elem: nativeType(4, gocql.TypeVarchar)}
	err := gocql.Unmarshal(info, []byte{0, 0, 0, 1, 0, 0, 0, 5}, new([]string))
	if err == nil {
		panic("kandra/driver/kgocql: gocql reads a list cut short")
	}
	return err
}()
