//go:build !unix

package mmapstore

import (
	"io"
	"os"
)

// mapFile reads the file into memory where mmap is not available; the
// store then behaves the same, minus sharing pages between processes.
func mapFile(f *os.File, size int64) ([]byte, bool, error) {
	if int64(int(size)) != size {
		return nil, false, ErrTooLarge
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, size), b); err != nil {
		return nil, false, err
	}
	return b, false, nil
}

func unmap([]byte) error { return nil }

// release does nothing where the file was read into memory.
func release([]byte) {}
