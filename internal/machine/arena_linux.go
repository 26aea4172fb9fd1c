//go:build linux

package machine

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePage is the alignment of every arena: a transparent huge page on
// amd64 and arm64 Linux.
const hugePage = 2 << 20

// Arena returns n zeroed bytes outside the Go heap, starting on a
// 2 MiB boundary and advised as huge-page memory. The harness's data then
// sits at the same offsets within huge pages in every process, whatever
// the heap looked like before, and the GC never scans or moves it (the
// arenas hold no pointers). A workload's arenas live until the process
// exits (it is generated once per run); a measurement's buffer is given
// back with FreeArena.
func Arena(n int) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	size := uintptr(n+hugePage-1) &^ (hugePage - 1)
	p, err := unix.MmapPtr(-1, 0, nil, size+hugePage, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("machine: map %d bytes: %w", size, err)
	}
	// Trim the mapping to a 2 MiB-aligned window: unmap the part before
	// the boundary and the part after the window. Unmapping sub-ranges of
	// our own fresh mapping cannot fail.
	base := uintptr(p)
	head := (hugePage - base%hugePage) % hugePage
	if head > 0 {
		_ = unix.MunmapPtr(p, head)
	}
	if tail := hugePage - head; tail > 0 {
		_ = unix.MunmapPtr(unsafe.Add(p, head+size), tail)
	}
	b := unsafe.Slice((*byte)(unsafe.Add(p, head)), size)
	// Best effort: with THP "never" the advice is refused, and the data
	// still works in small pages (the run's env records the mode).
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
	return b[:n:n], nil
}

// FreeArena unmaps an arena returned by Arena. b must be that arena, not
// a re-sliced part of it, and must not be used afterwards.
func FreeArena(b []byte) error {
	if cap(b) == 0 {
		return nil
	}
	size := uintptr(cap(b)+hugePage-1) &^ (hugePage - 1)
	if err := unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(b)), size); err != nil {
		return fmt.Errorf("machine: unmap %d bytes: %w", size, err)
	}
	return nil
}
