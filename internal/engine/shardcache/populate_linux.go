package shardcache

import (
	"bytes"
	"os"

	"golang.org/x/sys/unix"
)

// populate faults in the pages of b, about to be written in full (an
// index being rebuilt, or a huge-page index that the first Sets would
// back anyway), in one system call instead of one trap per page, which
// made up a third of the insert time when the index grew by page faults.
// It needs Linux 5.14; elsewhere the pages fault as usual.
func populate(b []byte) {
	if len(b) > 0 {
		_ = unix.Madvise(b, unix.MADV_POPULATE_WRITE)
	}
}

// hugePages asks for transparent huge pages on b (MADV_HUGEPAGE), and
// reports whether the system will give them: the advice was taken and the
// THP mode is not "never". An error (a kernel without THP) only means
// 4 KiB pages.
func hugePages(b []byte) bool {
	return len(b) > 0 && unix.Madvise(b, unix.MADV_HUGEPAGE) == nil && thpOn()
}

// thpOn reports whether the system's THP mode is other than "never".
func thpOn() bool {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && !bytes.Contains(mode, []byte("[never]"))
}
