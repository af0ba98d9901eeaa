package integration

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// This runs without a server: the suite's CQL type parser. The Codec's
// own tests are in driver/gocql.

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
