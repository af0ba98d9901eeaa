package integration

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/internal/dynamic"
	"github.com/kandra-go/kandra/internal/schemagen"
)

// randomSchemas is how many random valid schemas each run sends (at least
// 200; KANDRA_RANDOM_SCHEMAS raises it).
func randomSchemas() int {
	if n, err := strconv.Atoi(os.Getenv("KANDRA_RANDOM_SCHEMAS")); err == nil && n > 200 {
		return n
	}
	return 200
}

// TestRandomSchemas: random valid schemas drawn by internal/schemagen
// (rapid generators over reflect.StructOf types) are registered, their DDL
// is accepted by Cassandra, and system_schema matches each registered
// schema as in TestCatalogue. The draw is seeded (logged; set
// KANDRA_RANDOM_SEED to replay a run).
func TestRandomSchemas(t *testing.T) {
	s := session(t)
	n := randomSchemas()
	seed := time.Now().UnixNano() % 1_000_000_007
	if v, err := strconv.ParseInt(os.Getenv("KANDRA_RANDOM_SEED"), 10, 64); err == nil {
		seed = v
	}
	t.Logf("seed %d (KANDRA_RANDOM_SEED=%d replays this draw)", seed, seed)

	// Draw and register every schema first: kandra must accept them all.
	// Each table is renamed to a unique name of the same length (see
	// uniqueTableName), so that one registry and two keyspaces hold them all.
	kandra.Reset()
	var names tableNamer
	gen := rapid.Custom(schemagen.ValidModel)
	schemas := make([]*kandra.TableSchema, 0, n)
	features := map[string]int{}
	statements := 0
	for i := 0; i < n; i++ {
		m := gen.Example(int(seed) + i)
		sp := m.Spec
		sp.Table = names.next(len(sp.Table))
		v, err := dynamic.Register(sp)
		if err != nil {
			t.Errorf("schema %d (seed %d): kandra rejects a schema schemagen says is valid: %v", i, int(seed)+i, err)
			continue
		}
		ts := v.(*kandra.TableSchema)
		schemas = append(schemas, ts)
		statements += len(kandra.Statements(ts))
		for _, f := range m.Features {
			features[f]++
		}
	}

	// Send them: four sessions' worth of concurrency over two keyspaces.
	kss := []string{newKeyspace(t, s, "rand0"), newKeyspace(t, s, "rand1")}
	start := time.Now()
	type result struct {
		diffs []string
		err   error
	}
	results := make([]result, len(schemas))
	var wg sync.WaitGroup
	work := make(chan int)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				ks := kss[i%len(kss)]
				if err := createAll(s, ks, schemas[i]); err != nil {
					results[i].err = err
					continue
				}
				results[i].diffs, results[i].err = compareSchema(s, ks, schemas[i])
				if results[i].err != nil {
					results[i].err = fmt.Errorf("reading system_schema: %w", results[i].err)
				}
			}
		}()
	}
	for i := range schemas {
		work <- i
	}
	close(work)
	wg.Wait()
	elapsed := time.Since(start)

	accepted := 0
	for i, r := range results {
		ts := schemas[i]
		switch {
		case r.err != nil:
			t.Errorf("random schema %s: %v\nits statements:\n%s", ts.Name(), r.err, strings.Join(kandra.Statements(ts), "\n"))
		case len(r.diffs) > 0:
			t.Errorf("random schema %s: system_schema differs:\n  %s\nits statements:\n%s", ts.Name(), strings.Join(r.diffs, "\n  "), strings.Join(kandra.Statements(ts), "\n"))
		default:
			accepted++
		}
	}
	var fs []string
	for f, c := range features {
		fs = append(fs, fmt.Sprintf("%s=%d", f, c))
	}
	sort.Strings(fs)
	t.Logf("%d schemas, %d statements sent in %v; features drawn: %s", len(schemas), statements, elapsed.Round(time.Millisecond), strings.Join(fs, ", "))
	summary("random", fmt.Sprintf("real-server: random schemas=%d accepted=%d", n, accepted))
	if accepted != n {
		t.Errorf("only %d of %d random schemas accepted and matching", accepted, n)
	}
}

// tableNamer hands out unique table names of a requested length, made of
// letters and digits only. The length is kept because schemagen draws
// lookup-table and index names of exactly 48 characters, the limit, from
// its own table name: a longer replacement would break them. Having no
// underscore, no name is a prefix of another's "{table}_" part, so the
// lookup-table and index names of different tables cannot collide either.
type tableNamer struct{ count map[int]int }

func (n *tableNamer) next(length int) string {
	if n.count == nil {
		n.count = map[int]int{}
	}
	i := n.count[length]
	n.count[length]++
	const letters = "abcdefghijklmnopqrstuvwxyz"
	const pool = letters + "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	if length <= 1 {
		return string(pool[i%len(pool)]) // 62 names; schemagen draws few one-letter tables
	}
	rest := strconv.FormatInt(int64(i/len(letters)), 36)
	if len(rest) > length-1 {
		rest = rest[len(rest)-(length-1):]
	}
	return string(letters[i%len(letters)]) + strings.Repeat("0", length-1-len(rest)) + rest
}
