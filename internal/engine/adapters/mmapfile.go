//go:build unix

package adapters

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"golang.org/x/sys/unix"
)

// mmapFile is a whole file mapped read-only (PROT_READ, MAP_SHARED), so
// that reads come straight from the page cache without a read system call.
type mmapFile struct {
	path string
	data []byte
}

// openMmap maps path read-only. The file descriptor is closed right away:
// the mapping keeps the pages reachable. An empty file cannot be mapped
// and is reported as an error naming the path.
func openMmap(path string) (*mmapFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open %s for mmap: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	size := st.Size()
	if size == 0 {
		return nil, fmt.Errorf("mmap %s: empty file", path)
	}
	if size > math.MaxInt {
		return nil, fmt.Errorf("mmap %s: %d bytes do not fit in the address space", path, size)
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap %s (%d bytes): %w", path, size, err)
	}
	return &mmapFile{path: path, data: data}, nil
}

// ReadAt implements io.ReaderAt over the mapping with the io.ReaderAt
// contract: a short read returns io.EOF. It copies, because the readers we
// feed (colinmarc/cdb) only take an io.ReaderAt; that copy is part of the
// measured cost of such a reader, as it would be with a real file.
func (m *mmapFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("read %s at negative offset %d", m.path, off)
	}
	if off >= int64(len(m.data)) {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := copy(p, m.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Close unmaps the file; later reads would fault, so the owner must make
// sure no reader is still running. Closing twice is harmless.
func (m *mmapFile) Close() error {
	if m == nil || m.data == nil {
		return nil
	}
	err := unix.Munmap(m.data)
	m.data = nil
	if err != nil {
		return fmt.Errorf("munmap %s: %w", m.path, err)
	}
	return nil
}

// errorsJoinClose closes c and joins its error to err; a helper for the
// error paths of constructors that must release what they opened.
func errorsJoinClose(err error, c io.Closer) error {
	if c == nil {
		return err
	}
	return errors.Join(err, c.Close())
}
