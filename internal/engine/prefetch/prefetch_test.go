package prefetch

import (
	"testing"
	"unsafe"
)

// TestLines: prefetching any number of valid addresses, none included,
// returns and changes nothing.
func TestLines(t *testing.T) {
	buf := make([]byte, 64*1024)
	for i := range buf {
		buf[i] = byte(i)
	}
	addrs := make([]uintptr, 0, len(buf)/64)
	for off := 0; off < len(buf); off += 64 {
		addrs = append(addrs, uintptr(unsafe.Pointer(&buf[off])))
	}
	Lines(&addrs[0], 0)
	Lines(&addrs[0], 1)
	Lines(&addrs[0], len(addrs))
	for i := range buf {
		if buf[i] != byte(i) {
			t.Fatalf("byte %d changed", i)
		}
	}
}
