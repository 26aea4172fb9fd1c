//go:build !amd64 && !arm64

package prefetch

import "unsafe"

// sink keeps the fallback's loads from being optimised away.
var sink byte

// Faultless reports whether Lines may be given an address that is no
// longer mapped: not here, where it loads from each address.
const Faultless = false

// Lines touches the cache lines at addrs[0:n] with plain loads where no
// prefetch instruction is wired up; the loads still overlap, within the
// CPU's out-of-order window.
func Lines(addrs *uintptr, n int) {
	var s byte
	for _, a := range unsafe.Slice(addrs, n) {
		s += *(*byte)(unsafe.Pointer(a))
	}
	sink = s
}
