package mmapstore

import (
	"os"

	"github.com/cachebench/cachebench/internal/fileio"
)

// createTemp and linkTemp are the temp files of every output of the tool
// (fileio.CreateTemp): unnamed on Linux until just before the rename, so
// a build killed even by SIGKILL leaves nothing behind.
func createTemp(dir, base string) (*os.File, string, error) { return fileio.CreateTemp(dir, base) }

func linkTemp(f *os.File, dir, base string) (string, error) { return fileio.LinkTemp(f, dir, base) }

// outputMode is the mode a finished store gets: that of the file it
// replaces (a 0600 store stays private), else 0644.
func outputMode(path string) os.FileMode {
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		return fi.Mode().Perm()
	}
	return 0o644
}
