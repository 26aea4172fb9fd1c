//go:build amd64 || arm64

package prefetch

// Lines asks the CPU to bring the cache lines at addrs[0:n] into the
// cache (PREFETCHT0 / PRFM PLDL1KEEP) without waiting for them: unlike a
// plain load, a prefetch retires at once and does not hold up the
// instructions after it, so the misses of a whole group of keys overlap.
// An address that is no longer mapped is harmless (see Faultless).
//
//go:noescape
func Lines(addrs *uintptr, n int)

// Faultless reports whether Lines may be given an address that is no
// longer mapped: a prefetch instruction never faults. Callers that
// prefetch memory another goroutine may unmap meanwhile check it.
const Faultless = true
