package mmapstore

import (
	"fmt"
	"io"
	"os"
)

// Mapping is a whole file mapped read-only (PROT_READ, MAP_SHARED where
// the platform has mmap; read into memory elsewhere), so reads come
// straight from the page cache without a system call. It is the one
// mapping helper of cachebench: Store and the file-store adapters that
// read through an io.ReaderAt (cdb) both use it.
type Mapping struct {
	path   string
	data   []byte
	mapped bool
}

// Map maps path read-only. The file descriptor is closed right away: the
// mapping keeps the pages reachable. An empty file cannot be mapped and
// is reported as an error naming the path.
func Map(path string) (*Mapping, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open %s for mmap: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if st.Size() == 0 {
		return nil, fmt.Errorf("mmap %s: empty file", path)
	}
	data, mapped, err := mapFile(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("mmap %s (%d bytes): %w", path, st.Size(), err)
	}
	return &Mapping{path: path, data: data, mapped: mapped}, nil
}

// Bytes returns the mapped bytes, valid until Close.
func (m *Mapping) Bytes() []byte { return m.data }

// ReadAt implements io.ReaderAt over the mapping with the io.ReaderAt
// contract: a short read returns io.EOF. It copies, because readers that
// only take an io.ReaderAt (colinmarc/cdb) need their own bytes; that
// copy is part of the measured cost of such a reader, as with a file.
func (m *Mapping) ReadAt(p []byte, off int64) (int, error) {
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
func (m *Mapping) Close() error {
	if m == nil || m.data == nil {
		return nil
	}
	data, mapped := m.data, m.mapped
	m.data = nil
	if !mapped {
		return nil
	}
	if err := unmap(data); err != nil {
		return fmt.Errorf("munmap %s: %w", m.path, err)
	}
	return nil
}
