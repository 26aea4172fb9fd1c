//go:build unix

package shardcache

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// allocOffHeap returns n zeroed bytes the Go garbage collector neither
// scans nor counts: an anonymous private mapping. MAP_NORESERVE because
// pages are only backed when first written, which is how the cache grows
// on demand up to its limit.
func allocOffHeap(n int) ([]byte, error) {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE|unix.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("shardcache: mmap %d bytes: %w", n, err)
	}
	return b, nil
}

// freeOffHeap returns a mapping from allocOffHeap to the kernel.
func freeOffHeap(b []byte) error {
	if err := unix.Munmap(b); err != nil {
		return fmt.Errorf("shardcache: munmap %d bytes: %w", len(b), err)
	}
	return nil
}

// dropPages releases the physical pages behind b, which read back as
// zeros afterwards, so that Reset gives memory back to the system.
func dropPages(b []byte) {
	if len(b) > 0 {
		// An error only means the pages stay resident; nothing to undo.
		_ = unix.Madvise(b, unix.MADV_DONTNEED)
	}
}
