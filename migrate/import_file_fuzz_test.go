package migrate

import (
	"os"
	"strings"
	"testing"
)

// FuzzParseSchemaFile reads fuzzed schema files: ParseSchemaFile never
// panics, and what it reads, GenerateEntities either writes or refuses
// with an error (never a panic), and what it writes parses as Go (result
// gofmt's it).
func FuzzParseSchemaFile(f *testing.F) {
	for _, c := range fileCases {
		f.Add(c.src, c.keyspace)
	}
	for _, path := range []string{"../integration/testdata/apps/temporal/schema.cql", "../integration/testdata/apps/jaeger/v004.cql.tmpl"} {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(strings.NewReplacer("${keyspace}", "jk", "${replication}", "{'class': 'SimpleStrategy', 'replication_factor': 1}",
				"${trace_ttl}", "172800", "${dependencies_ttl}", "0").Replace(string(b)), "tk")
		}
	}
	f.Add("CREATE KEYSPACE k WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}; CREATE TYPE k.t (a frozen<t>); CREATE TABLE k.x (a frozen<map<frozen<list<int>>, tuple<int, vector<float, 2>>>> PRIMARY KEY, b 'Custom');", "")
	f.Add("USE k; CREATE TABLE \"T\" (\"\"\"q\" int, PRIMARY KEY ((\"\"\"q\"))) WITH ID = ab1c395e-b41f-11e5-9f22-ba0be0483c18 AND caching = {'keys': 'x'}; DROP TABLE \"T\"; DROP KEYSPACE k", "k")
	f.Fuzz(func(t *testing.T, src, keyspace string) {
		sf, err := ParseSchemaFile([]byte(src), keyspace)
		if err != nil {
			return
		}
		if sf.Live == nil {
			t.Fatal("no error and no Live")
		}
		if sf.Live.Keyspace == nil {
			return
		}
		for _, lt := range sf.Live.Keyspace.Tables {
			for _, c := range lt.Columns {
				if (c.Kind == ColumnPartitionKey || c.Kind == ColumnClustering) != (c.Position >= 0) {
					t.Fatalf("column %+v: a position only for key columns", c)
				}
			}
		}
		_, _ = GenerateEntities(sf.Live, ImportOptions{})
		_, _ = ImportFile([]byte(src), keyspace, ImportOptions{Package: "p"})
	})
}
