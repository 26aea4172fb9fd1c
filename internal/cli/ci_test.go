package cli

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The README's test command runs with -short; what -short skips or
// shortens must still run in CI. So every package whose tests consult
// testing.Short must be named (./DIR/) by a go test line of .ci/run that
// has no -short.
func TestLongTestsRunInCI(t *testing.T) {
	root, _ := moduleRoot(t)
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	var full []string // package patterns of go test lines without -short
	for _, line := range strings.Split(string(ci), "\n") {
		words := strings.Fields(line)
		i := slices.Index(words, "test")
		if i < 1 || words[i-1] != "go" || slices.Contains(words, "-short") {
			continue
		}
		for _, w := range words[i+1:] {
			if strings.HasPrefix(w, "./") {
				full = append(full, strings.TrimSuffix(strings.TrimPrefix(w, "./"), "/"))
			}
		}
	}
	var short []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "examples") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte("testing.Short()")) {
			dir, _ := filepath.Rel(root, filepath.Dir(path))
			if !slices.Contains(short, filepath.ToSlash(dir)) {
				short = append(short, filepath.ToSlash(dir))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(short) == 0 {
		t.Fatal("no test consults testing.Short; the scan is broken")
	}
	for _, dir := range short {
		if !slices.Contains(full, dir) {
			t.Errorf("%s has tests that -short skips or shortens, and no go test line of .ci/run without -short names ./%s/", dir, dir)
		}
	}
}
