package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/fileio/permtest"
)

// TestUnreadableInputs: every command that reads a file refuses one it may
// not read with exit 2, naming the file and saying why, and writes
// nothing to its -o. Run as nobody when the tests run as root (see
// permtest), since root reads anything.
func TestUnreadableInputs(t *testing.T) {
	if !permtest.Apply(t) {
		return
	}
	dir := t.TempDir()
	tr, res := smallInputs(t, dir)
	store := filepath.Join(dir, "s.cache")
	if code, _, errs := runCLI(t, "build", "--synthetic", "50", "-o", store, "--progress", "never"); code != 0 {
		t.Fatal(errs)
	}
	tsv := writeFile(t, dir, "in.tsv", "a\t1\nb\t2\n")
	for _, p := range []string{tr, res, store, tsv} {
		if err := os.Chmod(p, 0o000); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out")
	for name, c := range map[string]struct {
		in   string
		args []string
	}{
		"build":       {tsv, []string{"build", "--input", tsv, "-o", out, "--progress", "never"}},
		"inspect":     {store, []string{"inspect", store}},
		"compare":     {res, []string{"compare", res, res}},
		"merge":       {res, []string{"merge", res, res, "-o", out}},
		"report":      {res, []string{"report", res}},
		"hitratio":    {tr, []string{"hitratio", "--trace", tr, "--adapters", "lru", "--capacity", "10", "-o", out, "--progress", "never"}},
		"trace stats": {tr, []string{"trace", "stats", tr}},
		"run trace": {tr, []string{"run", "--workload", "trace:" + tr, "--adapters", "map", "--count", "1", "--no-floor",
			"-o", out, "--progress", "never"}},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(errs, c.in) || !strings.Contains(errs, "permission denied") {
			t.Errorf("%s: exit %d, %q; want exit %d naming %s, permission denied", name, code, errs, exitUsage, c.in)
		}
		if _, err := os.Lstat(out); err == nil {
			t.Errorf("%s: wrote %s", name, out)
			os.Remove(out)
		}
	}
	noTempFiles(t, dir)
}

// TestReadOnlyOutputDirectory: every command with -o, and run's --dir,
// refuse a directory they may not write, before any work, with exit 2,
// and leave nothing there (as nobody under root, which writes anywhere).
func TestReadOnlyOutputDirectory(t *testing.T) {
	if !permtest.Apply(t) {
		return
	}
	in := t.TempDir()
	ro := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	for name, args := range outputCommands(t, in) {
		code, _, errs := runCLI(t, args(filepath.Join(ro, "x.out"))...)
		if code != exitUsage || !strings.Contains(errs, ro) {
			t.Errorf("%s: exit %d, %q; want exit %d naming %s", name, code, errs, exitUsage, ro)
		}
	}
	// The file stores' directory of run, the same way.
	code, _, errs := runCLI(t, "run", "--adapters", "file", "--keys", "200", "--count", "1", "--no-floor", "--dir", ro, "--progress", "never")
	if code != exitUsage || !strings.Contains(errs, ro) || !strings.Contains(errs, "permission denied") {
		t.Errorf("run --dir: exit %d, %q; want exit %d naming %s", code, errs, exitUsage, ro)
	}
	if ents, _ := os.ReadDir(ro); len(ents) != 0 {
		t.Errorf("left in the read-only directory: %v", ents)
	}
}
