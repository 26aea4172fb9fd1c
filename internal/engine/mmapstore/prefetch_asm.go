//go:build amd64 || arm64

package mmapstore

// prefetch asks the CPU to bring the cache lines at addrs[0:n] into the
// cache (PREFETCHT0 / PRFM PLDL1KEEP) without waiting for them: unlike a
// load, a prefetch retires at once, so the misses of a whole chunk of
// keys overlap and the instructions after it (hashing the next keys) are
// not held up. Every address GetBatch passes lies inside the mapping.
//
//go:noescape
func prefetch(addrs *uintptr, n int)
