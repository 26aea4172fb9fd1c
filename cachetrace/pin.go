package cachetrace

import _ "unsafe" // for go:linkname

// procPin returns the number of the processor (P) the calling goroutine
// runs on, pinning it there until procUnpin. Record uses it only as a
// hint for its first shard, unpinned at once: goroutines on one processor
// then share a buffer that stays in that core's cache, where a shard
// picked by the key's hash would move its lock and buffer between cores
// on most requests. The runtime keeps these two symbols for packages that
// link to them, as sync.Pool's per-P caches do inside the standard
// library.
//
//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()
