package mmapstore

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// createNamedTemp creates ".<base>.tmp-<pid>-<random>" in dir, for
// platforms or file systems without unnamed temp files. It first removes
// the temp files of earlier builds of the same destination whose process
// is gone (killed builds), so they cannot pile up; a file whose process
// still runs, or whose name carries no pid, is left alone.
func createNamedTemp(dir, base string) (*os.File, string, error) {
	removeStaleTemps(dir, base)
	f, err := os.CreateTemp(dir, tempPrefix(base)+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return nil, "", err
	}
	return f, f.Name(), nil
}

func tempPrefix(base string) string { return "." + base + ".tmp-" }

// removeStaleTemps removes dir's temp files of base left by dead builds.
func removeStaleTemps(dir, base string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := tempPrefix(base)
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		os.Remove(filepath.Join(dir, e.Name()))
	}
}
