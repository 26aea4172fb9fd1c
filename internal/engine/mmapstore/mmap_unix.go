//go:build unix

package mmapstore

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps size bytes of f read-only and shared, so every process
// reading the same file shares its page-cache pages.
func mapFile(f *os.File, size int64) ([]byte, bool, error) {
	if int64(int(size)) != size {
		return nil, false, ErrTooLarge
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}

func unmap(b []byte) error { return unix.Munmap(b) }

// release tells the kernel the process no longer needs b's pages of a
// read-only shared mapping; reading them again faults them back in from
// the page cache.
func release(b []byte) { _ = unix.Madvise(b, unix.MADV_DONTNEED) }
