//go:build amd64 || arm64

package shardcache

// prefetch asks the CPU to bring the cache lines at addrs[0:n] into the
// cache (PREFETCHT0 / PRFM PLDL1KEEP), without waiting for them: unlike a
// plain load, a prefetch does not hold up the instructions after it, so
// the misses of a whole group of keys overlap. The addresses must lie in
// mapped memory (a prefetch of an unmapped address is harmless on these
// CPUs, but GetBatch never issues one).
//
//go:noescape
func prefetch(addrs *uintptr, n int)
