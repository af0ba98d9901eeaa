package integration

import (
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These run without a server: the Codec's plan and the CQL type parser.

func TestParseCQLType(t *testing.T) {
	for in, want := range map[string]string{
		"TEXT":                                  "text",
		"LIST<FROZEN<LIST<INT>>>":               "list<list<int>>",
		"MAP<UUID, FROZEN<SET<DURATION>>>":      "map<uuid, set<duration>>",
		"FROZEN<MAP<TEXT, FROZEN<LIST<INET>>>>": "map<text, list<inet>>",
	} {
		n, err := parseCQLType(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, n.String(), in)
	}
	for _, bad := range []string{"", "LIST<", "MAP<TEXT INT>", "TEXT>"} {
		_, err := parseCQLType(bad)
		assert.Error(t, err, bad)
	}
}

func TestCodecPlan(t *testing.T) {
	plan := func(typ reflect.Type, cql string) *conv {
		n, err := parseCQLType(cql)
		require.NoError(t, err)
		return planConv(typ, n, true)
	}
	// Converted: what gocql v1.7.0 cannot take as kandra hands it over.
	for typ, cql := range map[reflect.Type]string{
		reflect.TypeFor[uuid.UUID]():                "UUID",
		reflect.TypeFor[*uuid.UUID]():               "UUID",
		reflect.TypeFor[[]uuid.UUID]():              "LIST<UUID>",
		reflect.TypeFor[map[uuid.UUID]string]():     "MAP<UUID, TEXT>",
		reflect.TypeFor[netip.Addr]():               "INET",
		reflect.TypeFor[net.IP]():                   "INET",
		reflect.TypeFor[map[string]struct{}]():      "SET<TEXT>",
		reflect.TypeFor[time.Duration]():            "DURATION",
		reflect.TypeFor[time.Time]():                "DATE",
		reflect.TypeFor[[]time.Duration]():          "LIST<DURATION>",
		reflect.TypeFor[map[string]time.Duration](): "MAP<TEXT, DURATION>",
	} {
		assert.NotNil(t, plan(typ, cql), "%s as %s", typ, cql)
	}
	// Passed through.
	for typ, cql := range map[reflect.Type]string{
		reflect.TypeFor[string]():              "TEXT",
		reflect.TypeFor[time.Duration]():       "TIME",
		reflect.TypeFor[time.Time]():           "TIMESTAMP",
		reflect.TypeFor[*big.Int]():            "VARINT",
		reflect.TypeFor[[]net.IP]():            "LIST<INET>",
		reflect.TypeFor[[][]int32]():           "LIST<FROZEN<LIST<INT>>>",
		reflect.TypeFor[map[string][]string](): "MAP<TEXT, FROZEN<LIST<TEXT>>>",
	} {
		assert.Nil(t, plan(typ, cql), "%s as %s", typ, cql)
	}
}

func TestCodecRoundTripInMemory(t *testing.T) {
	// Through gocql's own Marshal/Unmarshal, as a session would.
	info := gocql.NewNativeType(4, gocql.TypeUUID, "")
	n, _ := parseCQLType("UUID")
	c := planConv(reflect.TypeFor[uuid.UUID](), n, true)
	id := uuid.New()
	b, err := gocql.Marshal(info, c.toWire(reflect.ValueOf(id)).Interface())
	require.NoError(t, err)
	tmp := reflect.New(c.wire)
	require.NoError(t, gocql.Unmarshal(info, b, tmp.Interface()))
	back, err := c.fromWire(tmp.Elem())
	require.NoError(t, err)
	assert.Equal(t, id, back.Interface())
	_, err = gocql.Marshal(info, id)
	assert.Error(t, err, "gocql v1.7.0 marshals uuid.UUID unconverted: Codec's documentation is out of date")
}
