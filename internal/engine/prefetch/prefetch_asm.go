//go:build amd64 || arm64

package prefetch

// Lines asks the CPU to bring the cache lines at addrs[0:n] into the
// cache (PREFETCHT0 / PRFM PLDL1KEEP) without waiting for them: unlike a
// plain load, a prefetch retires at once and does not hold up the
// instructions after it, so the misses of a whole group of keys overlap.
// The addresses must lie in mapped memory (a prefetch of an unmapped
// address is harmless on these CPUs, but callers never issue one).
//
//go:noescape
func Lines(addrs *uintptr, n int)
