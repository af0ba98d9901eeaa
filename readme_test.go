package kandra_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kandra-go/kandra"
)

// The files whose "// snippet: NAME" blocks the README may show.
var snippetFiles = []string{"readme_snippets_test.go", "examples/todos/quickstart/quickstart.go", "kstore/example_test.go", "kstore/example_patch_test.go", "kstore/example_unit_test.go", "kstore/example_reads_test.go", "integration/readme_test.go", "examples/todoapp/store.go", "examples/todoapp/main.go"}

var markerRE = regexp.MustCompile(`^<!-- (.+) -->$`)

// docFiles are README.md and the reference in docs/: every snippet they
// show is compiled and run.
func docFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	return append([]string{"README.md"}, docs...)
}

// readDocs is the text of every doc file, one after the other.
func readDocs(t *testing.T) string {
	t.Helper()
	var all strings.Builder
	for _, f := range docFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(data)
		all.WriteString("\n")
	}
	return all.String()
}

// readmeBlocks returns the fenced code blocks of README.md and docs/*.md:
// language, the marker comment on the line before the fence ("" if none),
// and the text.
func readmeBlocks(t *testing.T) []struct{ lang, marker, text string } {
	t.Helper()
	var out []struct{ lang, marker, text string }
	lines := strings.Split(readDocs(t), "\n")
	for i := 0; i < len(lines); i++ {
		lang, ok := strings.CutPrefix(lines[i], "```")
		if !ok || lang == "" {
			continue
		}
		marker := ""
		if i > 0 {
			if m := markerRE.FindStringSubmatch(lines[i-1]); m != nil {
				marker = m[1]
			}
		}
		j := i + 1
		for j < len(lines) && lines[j] != "```" {
			j++
		}
		out = append(out, struct{ lang, marker, text string }{lang, marker, strings.Join(lines[i+1:j], "\n")})
		i = j
	}
	return out
}

// readmeBlock returns the README block of the given language under the
// marker comment.
func readmeBlock(t *testing.T, lang, marker string) string {
	t.Helper()
	for _, b := range readmeBlocks(t) {
		if b.lang == lang && b.marker == marker {
			return b.text
		}
	}
	t.Fatalf("README.md has no ```%s block under <!-- %s -->", lang, marker)
	return ""
}

// snippets returns every "// snippet: NAME" ... "// end snippet" block of
// the snippet files, dedented.
func snippets(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range snippetFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		for i := 0; i < len(lines); i++ {
			name, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), "// snippet: ")
			if !ok {
				continue
			}
			j := i + 1
			for j < len(lines) && strings.TrimSpace(lines[j]) != "// end snippet" {
				j++
			}
			if _, dup := out[name]; dup {
				t.Fatalf("snippet %q is defined twice", name)
			}
			out[name] = strings.Trim(dedent(lines[i+1:j]), "\n") // a blank line may frame the block
			i = j
		}
	}
	return out
}

func dedent(lines []string) string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, "\t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= indent && indent > 0 {
			l = l[indent:]
		}
		out[i] = l
	}
	return strings.Join(out, "\n")
}

// gocqlxMarker marks the one README Go block that is not compiled: the
// gocqlx half of the side-by-side comparison.
const gocqlxMarker = "not compiled: gocqlx"

// TestReadmeSnippets: every Go block of the README is a snippet of code
// that a test compiles and runs, word for word.
func TestReadmeSnippets(t *testing.T) {
	all := snippets(t)
	shown := map[string]bool{}
	for _, b := range readmeBlocks(t) {
		if b.lang != "go" {
			continue
		}
		if b.marker == gocqlxMarker {
			// The side-by-side's other half: gocqlx is not served by
			// the module proxy this project builds with, so it cannot
			// be compiled here; it must at least be gocqlx code.
			if !strings.Contains(b.text, "gocqlx.Session") {
				t.Errorf("README block under <!-- %s --> is not gocqlx code:\n%s", gocqlxMarker, b.text)
			}
			continue
		}
		name, ok := strings.CutPrefix(b.marker, "snippet: ")
		if !ok {
			t.Errorf("README Go block without a <!-- snippet: NAME --> marker:\n%s", b.text)
			continue
		}
		want, ok := all[name]
		if !ok {
			t.Errorf("README snippet %q is not in %v", name, snippetFiles)
			continue
		}
		if b.text != want {
			t.Errorf("README snippet %q differs from the tested code:\nREADME:\n%s\n\ncode:\n%s", name, b.text, want)
		}
		shown[name] = true
	}
	for name := range all {
		if !shown[name] {
			t.Errorf("snippet %q is not shown in the README", name)
		}
	}
}

// TestReadmeRuleTable: the README's rule table is the rule table, row for
// row, in the order the rules are checked.
func TestReadmeRuleTable(t *testing.T) {
	_, rest, ok := strings.Cut(readDocs(t), "<!-- rules:begin -->\n")
	got, _, ok2 := strings.Cut(rest, "<!-- rules:end -->")
	if !ok || !ok2 {
		t.Fatal("the docs lack the <!-- rules:begin --> / <!-- rules:end --> markers")
	}
	if want := ruleTableMarkdown(); got != want {
		t.Errorf("README rule table differs from kandra.Rules(); it should read:\n%s", want)
	}
}

func ruleTableMarkdown() string {
	var b strings.Builder
	b.WriteString("| # | rule | checked by | targets | requires | what a server does otherwise |\n|---|---|---|---|---|---|\n")
	for i, r := range kandra.Rules() {
		by := "`Register`"
		if r.Scope == kandra.KeyspaceScope {
			by = "`NewKeyspace`"
		}
		server := r.Server
		if server == "" {
			server = "–"
		}
		b.WriteString("| " + strconv.Itoa(i+1) + " | `" + string(r.Rule) + "` | " + by + " | " + r.Targets.String() + " | " +
			strings.ReplaceAll(r.Summary, "|", `\|`) + " | " + strings.ReplaceAll(server, "|", `\|`) + " |\n")
	}
	return b.String()
}
