//go:build !linux

package fileio

import (
	"errors"
	"os"
)

// createTemp creates a named temp file: without O_TMPFILE, a process
// killed by SIGKILL leaves it behind, and the next write of the same
// destination removes it (createNamedTemp).
func createTemp(dir, base string) (*os.File, string, error) {
	return createNamedTemp(dir, base)
}

// linkTemp is never called here: createTemp always names the file.
func linkTemp(*os.File, string, string) (string, error) {
	return "", errors.New("unnamed temp files are not supported on this platform")
}
