package kandra_test

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"regexp"
	"strings"
	"testing"
)

// TestFuzzTargetsListed: every fuzz target in the repository is fuzzed by
// .ci/run, so a new one cannot be left to its seed corpus alone.
func TestFuzzTargetsListed(t *testing.T) {
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "ls-files", "*_test.go").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	fuzzRE := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)
	modules := map[string]bool{".": true}
	for _, m := range regexp.MustCompile(`(?m)^modules=\((.*)\)$`).FindSubmatch(ci)[1:] {
		for _, d := range strings.Fields(string(m)) {
			modules[d] = true
		}
	}
	n := 0
	found := map[string]bool{}
	for _, f := range strings.Fields(string(out)) {
		src, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the work tree, not yet in the index: it holds no target
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range fuzzRE.FindAllSubmatch(src, -1) {
			n++
			// The spec is "MODULE-DIR PACKAGE TARGET": the module is the
			// longest listed module directory holding the file.
			dir, mod := path.Dir(f), "."
			for d := range modules {
				if d != "." && (dir == d || strings.HasPrefix(dir, d+"/")) && len(d) > len(mod) {
					mod = d
				}
			}
			pkg := "."
			if rel := strings.TrimPrefix(strings.TrimPrefix(dir, mod), "/"); rel != "" && rel != "." {
				pkg = "./" + rel
			}
			if mod == "." && dir != "." {
				pkg = "./" + dir
			}
			spec := `"` + mod + " " + pkg + " " + string(m[1]) + `"`
			found[spec] = true
			if !strings.Contains(string(ci), spec) {
				t.Errorf("%s: fuzz target %s is not in .ci/run's fuzz_targets; add %s", f, m[1], spec)
			}
		}
	}
	if n == 0 {
		t.Fatal("found no fuzz targets: the scan is broken")
	}
	// And every listed target exists: go test -fuzz matching nothing
	// passes without fuzzing anything.
	list := regexp.MustCompile(`(?s)fuzz_targets=\((.*?)\n\)`).FindSubmatch(ci)
	if list == nil {
		t.Fatal(".ci/run has no fuzz_targets=( ... ) list")
	}
	for _, spec := range regexp.MustCompile(`"[^"]+"`).FindAll(list[1], -1) {
		if !found[string(spec)] {
			t.Errorf(".ci/run fuzzes %s, which no test file declares", spec)
		}
	}
}

// TestPropertyTestsUseFixedSeeds: every package whose tests use rapid
// imports internal/rapidseed, so that go test and .ci/run draw from a
// fixed seed and cannot fail by chance (scripts/explore.sh gives fresh
// ones).
func TestPropertyTestsUseFixedSeeds(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "--cached", "--others", "--exclude-standard", "*_test.go").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	uses, seeded := map[string]bool{}, map[string]bool{}
	for _, f := range strings.Fields(string(out)) {
		src, err := os.ReadFile(f)
		if err != nil {
			continue // listed but not in the work tree yet
		}
		if strings.Contains(string(src), `"pgregory.net/rapid"`) {
			uses[path.Dir(f)] = true
		}
		if strings.Contains(string(src), `"github.com/kandra-go/kandra/internal/rapidseed"`) {
			seeded[path.Dir(f)] = true
		}
	}
	if len(uses) == 0 {
		t.Fatal("found no property tests: the scan is broken")
	}
	for dir := range uses {
		if !seeded[dir] {
			t.Errorf("%s: its tests use rapid but do not import internal/rapidseed; add a rapidseed_test.go (see the others)", dir)
		}
	}
}
