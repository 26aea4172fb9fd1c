//go:build !amd64

package shardcache

import "sync/atomic"

// loadFence orders the loads before it before the loads after it. On
// weakly ordered machines (arm64 and the rest) the plain loads of an
// optimistic read could otherwise be performed after seq's second load,
// which is only an acquire load, and a torn read would pass validation.
// Go has no fence primitive; a sequentially consistent read-modify-write
// (on arm64 LDADDAL, a full barrier) on a local word serves as one.
func loadFence() {
	var x uint32
	atomic.AddUint32(&x, 1)
}

// storeFence keeps a writer's plain stores after seq's increment to odd
// (a release store alone would let them be seen first).
func storeFence() {
	var x uint32
	atomic.AddUint32(&x, 1)
}
