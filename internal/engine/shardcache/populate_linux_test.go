package shardcache

import (
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// resident counts the pages of b that are backed (mincore).
func resident(t *testing.T, b []byte) (in, all int) {
	t.Helper()
	vec := make([]byte, (len(b)+os.Getpagesize()-1)/os.Getpagesize())
	// x/sys/unix has no wrapper for mincore on Linux.
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
	if errno != 0 {
		t.Fatalf("mincore: %v", errno)
	}
	for _, v := range vec {
		in += int(v & 1)
	}
	return in, len(vec)
}

// With HugeIndex on a system that grants huge pages, New backs the whole
// index before the first Set; without it, New backs none of it.
func TestHugeIndexBackedAtNew(t *testing.T) {
	if !thpOn() {
		t.Skip("transparent huge pages are off: HugeIndex leaves the index to the Sets")
	}
	page, err := allocOffHeap(os.Getpagesize())
	if err != nil {
		t.Fatal(err)
	}
	defer freeOffHeap(page)
	if err := unix.Madvise(page, unix.MADV_POPULATE_WRITE); err != nil {
		t.Skipf("MADV_POPULATE_WRITE (Linux 5.14): %v", err)
	}
	huge := newTest(t, Config{MaxBytes: 64 << 20, MaxEntries: 100_000, HugeIndex: true})
	if in, all := resident(t, huge.arena); in != all {
		t.Fatalf("HugeIndex: %d of the index's %d pages backed after New", in, all)
	}
	plain := newTest(t, Config{MaxBytes: 64 << 20, MaxEntries: 100_000})
	if in, _ := resident(t, plain.arena); in != 0 {
		t.Fatalf("without HugeIndex: %d index pages backed after New", in)
	}
}
