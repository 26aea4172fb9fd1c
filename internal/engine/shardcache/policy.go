package shardcache

// policy is one shard's state of s3fifo-tinylfu, the eviction and
// admission policy (window.go, door.go, sketch.go, ghost.go; doc.go and
// DESIGN.md describe it). The shard owns the storage it acts on: the two
// queues of its ring, the index and the read counters. Get's only part in
// the policy is the slot's use count (Cache.markUse); everything here is
// read and written under the shard's exclusive lock.
type policy struct {
	sketch sketch // use counts, off the Go heap
	ghost  ghost  // keys the window evicted
	agedAt uint64 // hits+sets when the sketch was last halved
	// The sketch starts counting once the shard holds sketchFrom entries
	// (half its share of the cache), fills half its main queue's bytes or
	// first evicts; see startSketch.
	sketchFrom int
	sketching  bool
	climb      climber
	door       doorCheck
	tail       tailReads
}
