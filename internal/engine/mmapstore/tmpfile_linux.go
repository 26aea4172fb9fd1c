//go:build linux

package mmapstore

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// createTemp opens an unnamed file in dir (O_TMPFILE): the kernel frees
// it if the build dies, even by SIGKILL, so no temp file can be left
// behind. Where the file system lacks O_TMPFILE it falls back to a named
// temp file (createNamedTemp), which the returned name then holds.
func createTemp(dir, base string) (*os.File, string, error) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o644)
	if err == nil {
		return os.NewFile(uintptr(fd), filepath.Join(dir, "(unnamed temp file)")), "", nil
	}
	if err == unix.EISDIR || err == unix.EOPNOTSUPP || err == unix.EINVAL {
		return createNamedTemp(dir, base)
	}
	return nil, "", &os.PathError{Op: "create temp file in", Path: dir, Err: err}
}

// linkTemp gives the unnamed file f a temporary name in dir, for the
// rename over the destination (linkat cannot replace a file). The name
// exists only between this call and the rename that follows it.
func linkTemp(f *os.File, dir, base string) (string, error) {
	proc := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	for range 100 {
		name := filepath.Join(dir, "."+base+".tmp-"+strconv.FormatUint(rand.Uint64(), 36))
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
