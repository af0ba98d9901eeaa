package kandra

import (
	"errors"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Replication is a keyspace's replication strategy, built with
// SimpleStrategy or NetworkTopologyStrategy.
type Replication struct {
	simple int
	dcs    map[string]int
}

// SimpleStrategy places factor replicas on consecutive nodes of the ring,
// ignoring datacenters: for a single-datacenter or test cluster.
func SimpleStrategy(factor int) Replication { return Replication{simple: factor} }

// NetworkTopologyStrategy sets a replication factor per datacenter, for
// production clusters. Cassandra 4.0 and later reject a datacenter name the
// cluster does not know.
func NetworkTopologyStrategy(factors map[string]int) Replication {
	dcs := make(map[string]int, len(factors))
	for k, v := range factors {
		dcs[k] = v
	}
	return Replication{dcs: dcs}
}

// CreateKeyspace renders CREATE KEYSPACE IF NOT EXISTS for name with the
// given replication. It fails on a keyspace name servers reject (see
// ValidateName), a replication factor below 1 (SimpleStrategy) or below 0
// (a datacenter), no datacenter with a replica, or a datacenter name that
// is empty, not UTF-8, or holds control characters.
func CreateKeyspace(name string, r Replication) (string, error) {
	if err := ValidateName(name); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("CREATE KEYSPACE IF NOT EXISTS ")
	b.WriteString(QuoteIdent(name))
	b.WriteString(" WITH replication = {'class': ")
	if r.dcs == nil {
		if r.simple < 1 {
			return "", errors.New("kandra: SimpleStrategy needs a replication factor of at least 1, not " + strconv.Itoa(r.simple))
		}
		b.WriteString("'SimpleStrategy', 'replication_factor': ")
		b.WriteString(strconv.Itoa(r.simple))
	} else {
		b.WriteString("'NetworkTopologyStrategy'")
		dcs := make([]string, 0, len(r.dcs))
		total := 0
		for dc, f := range r.dcs {
			if err := validateDatacenter(dc); err != nil {
				return "", err
			}
			if f < 0 {
				return "", errors.New("kandra: datacenter " + strconv.Quote(dc) + " has a negative replication factor " + strconv.Itoa(f))
			}
			total += f
			dcs = append(dcs, dc)
		}
		if total == 0 {
			return "", errors.New("kandra: NetworkTopologyStrategy needs at least one datacenter with a replica")
		}
		sort.Strings(dcs) // deterministic output
		for _, dc := range dcs {
			b.WriteString(", ")
			b.WriteString(quoteLiteral(dc))
			b.WriteString(": ")
			b.WriteString(strconv.Itoa(r.dcs[dc]))
		}
	}
	b.WriteString("};")
	return b.String(), nil
}

// MustCreateKeyspace is CreateKeyspace for fixed arguments; it panics on error.
func MustCreateKeyspace(name string, r Replication) string {
	s, err := CreateKeyspace(name, r)
	if err != nil {
		panic(err)
	}
	return s
}

func validateDatacenter(dc string) error {
	if dc == "" {
		return errors.New("kandra: a datacenter name is empty")
	}
	if !utf8.ValidString(dc) {
		return errors.New("kandra: datacenter name " + strconv.Quote(dc) + " is not valid UTF-8")
	}
	for _, r := range dc {
		if unicode.IsControl(r) {
			return errors.New("kandra: datacenter name " + strconv.Quote(dc) + " contains a control character")
		}
	}
	return nil
}

// quoteLiteral writes s as a CQL string literal: single quotes, with each
// embedded single quote doubled.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
