// Command release lays out kandra's modules at a candidate version as a
// module proxy on local disk (the layout GOPROXY=file://DIR reads), from
// the files git tracks at a revision, after checking that each is fit to
// publish: its go.mod has no replace directive pointing to a directory,
// and it requires every other kandra module at the candidate version.
// scripts/release-check.sh builds a scratch application against that
// proxy alone; RELEASING.md is the procedure.
//
//	go run ./tools/release -version v0.1.0 -out DIR [-rev HEAD] MODULE-DIR...
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	modzip "golang.org/x/mod/zip"
)

func main() {
	version := flag.String("version", "", "the candidate version, for example v0.1.0")
	out := flag.String("out", "", "the proxy directory to write")
	rev := flag.String("rev", "HEAD", "the git revision whose files are published")
	flag.Parse()
	if *version == "" || *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: release -version vX.Y.Z -out DIR [-rev REV] MODULE-DIR...")
		os.Exit(2)
	}
	if err := run(*version, *out, *rev, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(version, out, rev string, dirs []string) error {
	if !semver.IsValid(version) || semver.Canonical(version) != version {
		return fmt.Errorf("%q is not a canonical version", version)
	}
	root, err := gitRoot()
	if err != nil {
		return err
	}
	var problems []string
	for _, dir := range dirs {
		path, err := publish(root, dir, version, out, rev)
		if err != nil {
			problems = append(problems, dir+": "+err.Error())
			continue
		}
		fmt.Printf("release: %s@%s from %s\n", path, version, dir)
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n  "))
	}
	return nil
}

// publish writes the module in dir (relative to the repository root) to
// the proxy at out and returns its path.
func publish(root, dir, version, out, rev string) (string, error) {
	dir = filepath.Clean(dir)
	gomod, err := gitShow(root, rev, filepath.ToSlash(filepath.Join(dir, "go.mod")))
	if err != nil {
		return "", err
	}
	f, err := modfile.Parse("go.mod", gomod, nil)
	if err != nil {
		return "", err
	}
	if err := fit(f, version); err != nil {
		return "", err
	}
	mod := module.Version{Path: f.Module.Mod.Path, Version: version}
	esc, err := module.EscapePath(mod.Path)
	if err != nil {
		return "", err
	}
	at := filepath.Join(out, filepath.FromSlash(esc), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return "", err
	}
	var zip bytes.Buffer
	sub := filepath.ToSlash(dir)
	if sub == "." {
		sub = ""
	}
	if err := modzip.CreateFromVCS(&zip, mod, root, rev, sub); err != nil {
		return "", fmt.Errorf("zip: %w", err)
	}
	info, _ := json.Marshal(map[string]any{"Version": version, "Time": time.Now().UTC().Format(time.RFC3339)})
	for name, data := range map[string][]byte{version + ".mod": gomod, version + ".zip": zip.Bytes(), version + ".info": info, "list": []byte(version + "\n")} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			return "", err
		}
	}
	return mod.Path, nil
}

// fit says why a go.mod cannot be published as it is: a replace of a
// module by a directory (a consumer's build ignores it, so the module
// would build here and nowhere else), or a kandra module required at
// another version than the one released with it.
func fit(f *modfile.File, version string) error {
	var problems []string
	for _, r := range f.Replace {
		if r.New.Version == "" {
			problems = append(problems, fmt.Sprintf("replace %s => %s points to a directory; a consumer's build ignores it (develop through go.work instead)", r.Old.Path, r.New.Path))
		}
	}
	for _, r := range f.Require {
		if strings.HasPrefix(r.Mod.Path, "github.com/kandra-go/kandra") && r.Mod.Version != version {
			problems = append(problems, fmt.Sprintf("requires %s %s, not the release version %s", r.Mod.Path, r.Mod.Version, version))
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

func gitRoot() (string, error) {
	b, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", fmt.Errorf("not in a git checkout: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

func gitShow(root, rev, file string) ([]byte, error) {
	cmd := exec.Command("git", "show", rev+":"+file)
	cmd.Dir = root
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git show %s:%s: %w", rev, file, err)
	}
	return b, nil
}
