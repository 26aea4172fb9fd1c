package fileio

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// CreateTemp opens a new temp file in dir for the destination dir/base.
// On Linux it is unnamed (O_TMPFILE, name ""): the kernel frees it if the
// process dies, even by SIGKILL; LinkTemp names it just before the rename.
// Elsewhere, or on a file system without O_TMPFILE, it is a named file
// ".<base>.tmp-<pid>-<random>" whose name is returned; such files of
// earlier processes that are gone are removed first, so they cannot pile up.
func CreateTemp(dir, base string) (f *os.File, name string, err error) {
	return createTemp(dir, base)
}

// LinkTemp gives the unnamed temp file f a temporary name in dir, for the
// rename over the destination (linkat cannot replace a file). The name
// exists only between this call and the rename that follows it.
func LinkTemp(f *os.File, dir, base string) (string, error) {
	return linkTemp(f, dir, base)
}

// createNamedTemp creates ".<base>.tmp-<pid>-<random>" in dir, for
// platforms or file systems without unnamed temp files. It first removes
// the temp files of earlier writes of the same destination whose process
// is gone (killed), so they cannot pile up; a file whose process still
// runs, or whose name carries no pid, is left alone.
func createNamedTemp(dir, base string) (*os.File, string, error) {
	removeStaleTemps(dir, base)
	f, err := os.CreateTemp(dir, tempPrefix(base)+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return nil, "", err
	}
	return f, f.Name(), nil
}

func tempPrefix(base string) string { return "." + base + ".tmp-" }

// removeStaleTemps removes dir's temp files of base left by dead processes.
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

// SyncDir fsyncs a directory so that a rename in it survives a crash.
// Some systems cannot fsync a directory (EINVAL); that is not an error.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !isSyncUnsupported(err) {
		return err
	}
	return nil
}
