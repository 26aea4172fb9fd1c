package shardcache

// loadFence orders the loads before it before the loads after it; see
// fence_other.go. x86-64 keeps loads in program order (TSO), so Get's
// optimistic read needs no instruction here, only the compiler's own
// ordering of its loads around the atomic load of seq that follows.
func loadFence() {}

// storeFence orders the stores after it after the (atomic) stores before
// it: TSO keeps stores in order, and seq's increment is a locked
// instruction anyway.
func storeFence() {}
