package cli

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// layers is the import rule of the tree: for each package of the module
// (its path below the module root), the packages of the module it may
// import directly. The three homes keep one direction: engine knows nothing
// of workloads or report; the workload data (package workloads) knows only
// the engine's vocabulary; drivers (runner, gcpause, hitratio) bring
// engines, data and results together; report stores and renders results;
// commands may import anything. The rule is written here alone (package
// docs do not repeat it), so that it has one copy, the one this test checks.
var layers = map[string][]string{
	"internal/fileio":          nil,
	"internal/fileio/permtest": nil,
	"internal/parse":           nil,
	"internal/procgroup":       nil,
	"internal/ctxtest":         nil,
	"internal/fit":             {"internal/fileio"},

	"internal/engine":                      {"internal/parse"},
	"internal/engine/prefetch":             nil,
	"internal/engine/cputime":              nil,
	"internal/engine/netserver":            nil,
	"internal/engine/netserver/servertest": {"internal/engine/netserver"},
	"internal/engine/conformance":          {"internal/engine"},
	"internal/engine/shardcache":           {"internal/engine/prefetch"},
	"internal/engine/mmapstore":            {"internal/engine/prefetch", "internal/fileio"},
	"internal/engine/adapters": {"internal/engine", "internal/engine/prefetch", "internal/engine/shardcache",
		"internal/engine/mmapstore", "internal/engine/netserver"},

	"internal/machine":                   nil,
	"internal/workloads/trace":           {"internal/fileio", "internal/fit", "cachetrace"},
	"internal/workloads/trace/published": {"internal/workloads/trace"},
	"internal/workloads/records":         {"internal/fileio", "internal/parse"},
	"internal/workloads":                 {"internal/engine", "internal/machine", "internal/parse", "internal/workloads/trace", "internal/fit"},
	"internal/workloads/runner":          drivers,
	"internal/workloads/gcpause":         drivers,
	"internal/workloads/hitratio":        drivers,
	"internal/gate":                      {"internal/report", "internal/report/compare", "internal/procgroup"},
	"internal/workloads/advise": append(slices.Clone(drivers), "internal/workloads/runner", "internal/workloads/gcpause",
		"internal/workloads/hitratio"),

	"internal/report":         {"internal/engine", "internal/machine", "internal/fileio"},
	"internal/report/compare": {"internal/report"},
	"internal/report/chart":   {"internal/report", "internal/engine"},

	"internal/cli":   {"*"},
	"cmd/cachebench": {"internal/cli"},

	// The public packages: a thin layer of aliases and calls over the
	// internal ones ("." is the module's root package, cachebench).
	".":          {"internal/cli", "internal/engine"},
	"cachetest":  {".", "internal/engine/conformance"},
	"shardcache": {"internal/engine/shardcache"},
	"mmapstore":  {"internal/engine/mmapstore"},
	// cachetrace is imported by services: nothing of the module, and
	// of the rest only what TestCachetraceImports allows.
	"cachetrace": nil,
	// The runnable examples use only the public packages.
	"examples/record": {"cachetrace"},
}

// drivers may use the engine's interface (never the adapters: commands
// register those), the workload data and the results.
var drivers = []string{"internal/engine", "internal/workloads", "internal/machine",
	"internal/workloads/trace", "internal/workloads/records", "internal/report", "internal/report/chart",
	"internal/parse", "internal/fileio", "internal/fit", "internal/procgroup"}

func TestImportLayers(t *testing.T) {
	root, module := moduleRoot(t)
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "results") {
			return filepath.SkipDir
		}
		// A nested module (an example with its own go.mod) has its own rules.
		if path != root {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		pkg, err := build.ImportDir(path, 0)
		if err != nil {
			if _, none := err.(*build.NoGoError); none {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		seen[rel] = true
		allowed, ok := layers[rel]
		if !ok {
			t.Errorf("package %s has no line in layers: say what it may import", rel)
			return nil
		}
		for _, imp := range pkg.Imports {
			own, found := strings.CutPrefix(imp, module+"/")
			if imp == module {
				own, found = ".", true
			}
			if !found || slices.Contains(allowed, "*") || slices.Contains(allowed, own) {
				continue
			}
			t.Errorf("%s imports %s; it may import only %v", rel, own, allowed)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel := range layers {
		if !seen[rel] {
			t.Errorf("layers names %s, which is not a package of the module any more", rel)
		}
	}
}

// TestCachetraceImports holds cachetrace, which a service imports to
// record its traffic, to the standard library and klauspost/compress, so
// that importing it pulls in almost nothing.
func TestCachetraceImports(t *testing.T) {
	root, _ := moduleRoot(t)
	pkg, err := build.ImportDir(filepath.Join(root, "cachetrace"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkg.Imports) == 0 {
		t.Fatal("cachetrace imports nothing: the check reads the wrong directory")
	}
	for _, imp := range pkg.Imports {
		first, _, _ := strings.Cut(imp, "/")
		if !strings.Contains(first, ".") || strings.HasPrefix(imp, "github.com/klauspost/compress/") {
			continue
		}
		t.Errorf("cachetrace imports %s; it may import only the standard library and github.com/klauspost/compress", imp)
	}
}

// moduleRoot finds go.mod above the test's directory and returns its
// directory and module path.
func moduleRoot(t *testing.T) (string, string) {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if m, ok := strings.CutPrefix(line, "module "); ok {
					return dir, strings.TrimSpace(m)
				}
			}
			t.Fatalf("%s/go.mod names no module", dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}
