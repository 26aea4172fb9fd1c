//go:build !amd64 && !arm64

package mmapstore

import "unsafe"

// prefetch touches the cache lines at addrs[0:n] with plain loads where
// no prefetch instruction is wired up; the loads still overlap within
// the CPU's out-of-order window.
func prefetch(addrs *uintptr, n int) {
	var sink byte
	for _, a := range unsafe.Slice(addrs, n) {
		sink += *(*byte)(unsafe.Pointer(a))
	}
	keep(sink)
}
