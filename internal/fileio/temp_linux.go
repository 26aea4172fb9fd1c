//go:build linux

package fileio

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

func createTemp(dir, base string) (*os.File, string, error) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err == nil {
		return os.NewFile(uintptr(fd), filepath.Join(dir, "(unnamed temp file for "+base+")")), "", nil
	}
	if err == unix.EISDIR || err == unix.EOPNOTSUPP || err == unix.EINVAL {
		return createNamedTemp(dir, base)
	}
	return nil, "", &os.PathError{Op: "create temp file in", Path: dir, Err: err}
}

func linkTemp(f *os.File, dir, base string) (string, error) {
	proc := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	for range 100 {
		name := filepath.Join(dir, tempPrefix(base)+strconv.FormatUint(rand.Uint64(), 36))
		err := unix.Linkat(unix.AT_FDCWD, proc, unix.AT_FDCWD, name, unix.AT_SYMLINK_FOLLOW)
		if err == nil {
			return name, nil
		}
		if err != unix.EEXIST {
			return "", fmt.Errorf("link temp file into %s: %w", dir, err)
		}
	}
	return "", fmt.Errorf("link temp file into %s: no free name", dir)
}
