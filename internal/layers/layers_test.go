package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// module is the module's import path; packages below are named relative
// to it ("" is the module's root package).
const module = "github.com/isagi-lab/isagi"

// layer is one floor of the house: the packages in it, named by path
// prefix ("engine" is engine and everything under engine/).
type layer struct {
	name     string
	packages []string
}

// order is the house's layers, top first. A package may import its own
// layer and the layers below it, never one above. This is the one place
// the order is written; docs/architecture.md describes it.
var order = []layer{
	{"interface", []string{
		"cmd/isagi", "internal/cli", "tui", "serve",
		"scripts/serveload", // a load generator: a client of serve over HTTP
		// What reaches a terminal is cleaned there, by the interface: a
		// session writes text to an io.Writer and knows no terminal.
		"internal/termtext",
	}},
	{"application", []string{"session"}},
	{"mechanisms", []string{
		"geometry", "ugt", "teh", "ogd", "snipe", "cog", "gtc", "miku",
		// What the features are measured and fed with: the calibration
		// prompts, and `isagi eval kv`'s tasks and measurement.
		"prompts", "internal/kvtask", "internal/kveval",
		// Files' JSON errors in their readers' words, for the session's
		// files and the commands' inputs alike.
		"internal/jsonwords",
		// Where models come from and where isagi keeps its files.
		"hub", "store",
		// The demo models, and the root package that embeds the one
		// that lives with the fixtures (assets.go) for demo.
		"demo", "",
	}},
	{"engine", []string{"engine", "gpu"}},
}

// testOnly are helpers that only tests import. They are exempt from the
// order, because a test helper serves the tests of every layer (the
// fixture models, a quick geometry profile, the special files every
// reader must refuse); in exchange no package's own code may import them,
// so none of them reaches a binary.
var testOnly = []string{"internal/testkit", "internal/cli/clitest", "internal/layers"}

// The interface may reach the engine directly (cmd/isagi's token-exact
// `isagi run`, internal/cli's bench and inspect), but the TUI and the
// server are clients of the session: they import no engine package
// except these.
var sessionClients = []string{"tui", "serve"}

var sessionClientsMayImport = map[string]bool{
	// The Hardware pane shows the card's telemetry (NVML), which is about
	// the machine and not about the conversation a session owns.
	"gpu": true,
}

// pkg is what `go list -json` says of one package.
type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// TestLayers checks every package's imports against the order:
//
//   - a package's own code and its in-package test files import nothing
//     from a layer above;
//   - engine/'s own code imports nothing outside engine/ (the standard
//     library and third-party modules aside), so the engine stands on its
//     own;
//   - tui and serve import no engine package but sessionClientsMayImport;
//   - only tests import the test-only helpers;
//   - every package is placed in a layer (or is test-only).
//
// External test packages (package x_test) are exempt: they use a package
// from outside, as a client does, and may drive it through a layer above
// (geometry's COG tests run a session). They cannot make an import cycle,
// and no binary contains them.
func TestLayers(t *testing.T) {
	var problems []string
	for _, p := range list(t) {
		rel, ok := relative(p.ImportPath)
		if !ok {
			continue
		}
		if isTestOnly(rel) {
			continue
		}
		from := layerOf(rel)
		if from < 0 {
			problems = append(problems, fmt.Sprintf("%s is in no layer: place it in internal/layers/layers_test.go's order (and docs/architecture.md)", show(rel)))
			continue
		}
		check := func(imports []string, what string, test bool) {
			for _, imp := range imports {
				to, ok := relative(imp)
				if !ok {
					continue // the standard library or another module
				}
				switch {
				case isTestOnly(to):
					if !test {
						problems = append(problems, fmt.Sprintf("%s imports %s: a test-only helper in %s", show(rel), show(to), what))
					}
					continue
				case layerOf(to) < 0:
					continue // reported as unplaced on its own
				case layerOf(to) < from:
					problems = append(problems, fmt.Sprintf("%s (%s) imports %s (%s, a layer above) in %s",
						show(rel), order[from].name, show(to), order[layerOf(to)].name, what))
				}
				if test {
					continue
				}
				if under(rel, "engine") && !under(to, "engine") {
					problems = append(problems, fmt.Sprintf("%s imports %s: engine/ imports nothing outside engine/", show(rel), show(to)))
				}
				if isSessionClient(rel) && layerOf(to) == len(order)-1 && !sessionClientsMayImport[to] {
					problems = append(problems, fmt.Sprintf("%s imports %s: the TUI and the server reach the engine through the session", show(rel), show(to)))
				}
			}
		}
		check(p.Imports, "its code", false)
		check(p.TestImports, "its tests", true)
	}
	sort.Strings(problems)
	for _, s := range problems {
		t.Error(s)
	}
}

// TestOrderNamesPackages keeps the order honest: every prefix it names
// matches a package, so a moved or deleted package cannot leave a stale
// entry that would quietly place a future one.
func TestOrderNamesPackages(t *testing.T) {
	pkgs := list(t)
	matches := func(prefix string) bool {
		for _, p := range pkgs {
			if rel, ok := relative(p.ImportPath); ok && under(rel, prefix) {
				return true
			}
		}
		return false
	}
	for _, l := range order {
		for _, prefix := range l.packages {
			if !matches(prefix) {
				t.Errorf("the %s layer names %s, which is no package", l.name, show(prefix))
			}
		}
	}
	for _, prefix := range append(append([]string{}, testOnly...), sessionClients...) {
		if !matches(prefix) {
			t.Errorf("%s is no package", show(prefix))
		}
	}
}

// list runs `go list` once over the module, from its root.
func list(t *testing.T) []pkg {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,TestImports,XTestImports", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("reading go list's output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	return pkgs
}

// moduleRoot is the directory above the test's that holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the module root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("finding the module root: no go.mod above the test's directory")
		}
		dir = up
	}
}

// relative names an import path inside the module relative to it; ok is
// false for the standard library and other modules.
func relative(path string) (string, bool) {
	if path == module {
		return "", true
	}
	rel, ok := strings.CutPrefix(path, module+"/")
	return rel, ok
}

// under reports whether rel is prefix or below it ("" is the root
// package only).
func under(rel, prefix string) bool {
	if prefix == "" {
		return rel == ""
	}
	return rel == prefix || strings.HasPrefix(rel, prefix+"/")
}

// layerOf is the index in order of rel's layer, or -1. The longest
// matching prefix wins, so a package can be placed apart from its
// parent directory.
func layerOf(rel string) int {
	best, bestLen := -1, -1
	for i, l := range order {
		for _, prefix := range l.packages {
			if under(rel, prefix) && len(prefix) > bestLen {
				best, bestLen = i, len(prefix)
			}
		}
	}
	return best
}

func isTestOnly(rel string) bool {
	for _, prefix := range testOnly {
		if under(rel, prefix) {
			return true
		}
	}
	return false
}

func isSessionClient(rel string) bool {
	for _, prefix := range sessionClients {
		if under(rel, prefix) {
			return true
		}
	}
	return false
}

// show names a package for messages.
func show(rel string) string {
	if rel == "" {
		return module + " (the root package)"
	}
	return rel
}
