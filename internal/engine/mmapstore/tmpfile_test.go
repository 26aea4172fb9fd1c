package mmapstore

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestStaleTempsRemoved: a named temp file of a build whose process is
// gone is removed by the next build of the same destination; one of a
// live process, of another destination or without a pid stays.
func TestStaleTempsRemoved(t *testing.T) {
	dir := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no `true` to get a dead pid from")
	}
	deadPid := strconv.Itoa(dead.Process.Pid)
	files := map[string]bool{ // name → should survive
		".s.cache.tmp-" + deadPid + "-123":                  false,
		".s.cache.tmp-" + strconv.Itoa(os.Getppid()) + "-1": true,
		".other.cache.tmp-" + deadPid + "-1":                true,
		".s.cache.tmp-abc":                                  true,
	}
	for name := range files {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, name, err := createNamedTemp(dir, "s.cache")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.Remove(name)
	for n, keep := range files {
		_, err := os.Stat(filepath.Join(dir, n))
		if (err == nil) != keep {
			t.Errorf("%s: exists %v, want %v", n, err == nil, keep)
		}
	}
}
