package cli

import (
	"os"
	"path/filepath"

	"github.com/cachebench/cachebench/internal/fileio"
	"github.com/cachebench/cachebench/internal/fit"
)

// checkFit refuses (exit 2) work whose estimate does not fit the disk of
// its output or the memory of the machine (fit.Check), unless force; the
// error carries the estimate and the limit.
func checkFit(need fit.Need, force bool) error {
	if force {
		return nil
	}
	if err := fit.Check(need); err != nil {
		return usageErrorf("%w; --force runs it anyway", err)
	}
	return nil
}

// outputDir is the directory whose file system an output's bytes land
// on: the target's own for a regular file, the temp directory for a
// device or FIFO (the output is made there first).
func outputDir(t fileio.Target) string {
	if t.Direct {
		return os.TempDir()
	}
	return filepath.Dir(t.File)
}
