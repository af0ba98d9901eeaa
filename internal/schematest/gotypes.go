package schematest

import (
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"time"

	"github.com/google/uuid"
	"pgregory.net/rapid"
)

// Go types: the field types the generators draw.

// Named types, to cover "named types map by their underlying kind".
type (
	// Status is a named string type (TEXT).
	Status string
	// Level is a named int16 type (SMALLINT).
	Level int16
	// Flag is a named bool type (BOOLEAN); it is not a valid soft-delete
	// marker, which must be exactly bool.
	Flag bool
	// Ref is a named uuid.UUID (any [16]byte array type maps to UUID).
	Ref uuid.UUID
	// Stamp is a named time.Time (a struct convertible to time.Time maps
	// to TIMESTAMP).
	Stamp time.Time
	// Peer is a named netip.Addr (INET).
	Peer netip.Addr
	// Opaque has no CQL type (a struct kind): it takes any AsType, the
	// user's declaration of what the driver marshals it to.
	Opaque struct{ _ int64 }
)

// GeoPoint is a named struct: a user-defined type, geo_point.
type GeoPoint struct {
	Lat, Lon float64
}

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

// pkgPath makes a generated field unexported (reflect.StructField.PkgPath).
const pkgPath = "github.com/kandra-go/kandra/internal/schematest"

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
	tRef      = reflect.TypeFor[Ref]()
	tStamp    = reflect.TypeFor[Stamp]()
	tPeer     = reflect.TypeFor[Peer]()
	tOpaque   = reflect.TypeFor[Opaque]()
	tGeoPoint = reflect.TypeFor[GeoPoint]()
)

var (
	// scalars are the non-collection types of the mapping table.
	scalars = []reflect.Type{
		tString, tBool, reflect.TypeFor[int8](), reflect.TypeFor[int16](), reflect.TypeFor[int32](),
		reflect.TypeFor[int](), tInt64, reflect.TypeFor[float32](), reflect.TypeFor[float64](),
		reflect.TypeFor[[]byte](), tTime, tDuration, tUUID, tNetIP, tAddr, tBigInt,
		reflect.TypeFor[Status](), reflect.TypeFor[Level](), reflect.TypeFor[Flag](),
		tRef, tStamp, tPeer, reflect.TypeFor[[16]byte](), tGeoPoint,
	}
	// pointers are nullable top-level columns.
	pointers = []reflect.Type{
		reflect.TypeFor[*string](), reflect.TypeFor[*int64](), reflect.TypeFor[*bool](), reflect.TypeFor[*time.Time](),
		reflect.TypeFor[*float64](), reflect.TypeFor[*uuid.UUID](), reflect.TypeFor[*time.Duration](),
		reflect.TypeFor[*Status](), reflect.TypeFor[*int32](), reflect.TypeFor[*netip.Addr](),
		reflect.TypeFor[*Stamp](), reflect.TypeFor[*Ref](),
	}
	// vectors are VECTOR<FLOAT, N> columns, nullable behind a pointer.
	vectors = []reflect.Type{reflect.TypeFor[[1]float32](), reflect.TypeFor[[3]float32](), reflect.TypeFor[*[4]float32]()}
	// comparables can be set elements and map keys (no duration).
	comparables = []reflect.Type{
		tString, tBool, reflect.TypeFor[int8](), reflect.TypeFor[int16](), reflect.TypeFor[int32](),
		reflect.TypeFor[int](), tInt64, reflect.TypeFor[float32](), reflect.TypeFor[float64](),
		tTime, tUUID, tAddr, reflect.TypeFor[Status](), reflect.TypeFor[Level](), tRef, tStamp,
	}
	// unsupported have no CQL type (or one servers reject).
	unsupported = []reflect.Type{
		reflect.TypeFor[uint](), reflect.TypeFor[uint8](), reflect.TypeFor[uint16](), reflect.TypeFor[uint32](),
		reflect.TypeFor[uint64](), reflect.TypeFor[uintptr](), reflect.TypeFor[complex128](), reflect.TypeFor[chan int](),
		reflect.TypeFor[func()](), reflect.TypeFor[[4]int](), reflect.TypeFor[struct{ X int }](), reflect.TypeFor[any](),
		reflect.TypeFor[**string](), reflect.TypeFor[[]uint](), reflect.TypeFor[map[uint]string](),
		reflect.TypeFor[map[time.Duration]struct{}](), reflect.TypeFor[map[time.Duration]string](),
		reflect.TypeFor[[]map[time.Duration]struct{}](), reflect.TypeFor[map[string]map[time.Duration]int32](),
		reflect.TypeFor[big.Int](), tOpaque,
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
	case k == 12 && !key:
		// A vector: a column's own value only, never a key or a lookup.
		return rapid.SampledFrom(vectors).Draw(t, label+" vector")
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

// nativeScalars are the scalars of a native CQL type: every scalar but the
// user-defined type.
var nativeScalars = func() []reflect.Type {
	var out []reflect.Type
	for _, t := range scalars {
		if CQLOf(t).Kind == Native {
			out = append(out, t)
		}
	}
	return out
}()
