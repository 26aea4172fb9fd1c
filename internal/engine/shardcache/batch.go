package shardcache

import (
	"runtime"
	"sync"
	"unsafe"

	"github.com/cachebench/cachebench/internal/engine/prefetch"
)

// batchGroup is how many keys GetBatch prefetches before it looks the
// first of them up: enough independent cache misses in flight to cover
// one DRAM latency (~150 ns) with ~10 ns per key of issue cost, few
// enough that the lines touched are still in L1/L2 when they are used.
const batchGroup = 16

// batchBufs recycles the buffer GetBatch copies values into, so that a
// batch does not allocate.
var batchBufs = sync.Pool{New: func() any { return new([]byte) }}

// GetBatch looks every key of keys up and calls fn(i, value, found) for
// each, in order. value is only valid during the call (it is a buffer
// reused for the next key); fn runs without any lock held, so it may call
// back into the cache. It counts hits, misses and uses exactly as Get
// does, and returns nil (the error is for the engine.BatchGetter
// interface).
//
// It is faster per key than Get because it overlaps the cache misses of
// many keys: it hashes a group of batchGroup keys and prefetches their
// home slots one group before it looks them up; just before the lookups
// it prefetches the ring record of every key whose slot tag matches and
// whose entry is not inline (in an inline table, only until a group has
// none: the rest of the batch then skips that step, whose load of each
// home slot costs a tenth of a batch of cache-resident keys); then it
// does the real lookup as Get does
// (optimistically, or under the read lock with Config.lockedReads), whose
// loads should now hit the cache. The touches are prefetch instructions;
// they, and the one read of each home slot, address memory that stays
// mapped while the batch runs (Close only gives pages back, and waits
// for the batches in flight; the mappings go when the shard array is
// garbage).
func (c *Cache) GetBatch(keys [][]byte, fn func(i int, val []byte, found bool)) error {
	c.batches.Add(1)
	defer c.batches.Add(-1)
	if c.closed.Load() {
		for i := range keys {
			fn(i, nil, false)
		}
		return nil
	}
	bp := batchBufs.Get().(*[]byte)
	buf := (*bp)[:0]
	// Software pipeline: the slots of group g+1 are prefetched before
	// group g is looked up, so each line has a whole group's work to
	// arrive in.
	var hs [2][batchGroup]uint64
	records := true
	c.prefetchSlots(keys[:min(batchGroup, len(keys))], &hs[0])
	for g, base := 0, 0; base < len(keys); g, base = g+1, base+batchGroup {
		ks := keys[base:min(base+batchGroup, len(keys))]
		cur := &hs[g&1]
		if next := base + batchGroup; next < len(keys) {
			c.prefetchSlots(keys[next:min(next+batchGroup, len(keys))], &hs[(g+1)&1])
		}
		if records {
			// In an inline table, a group with no record to fetch (every
			// hit inline) says the rest of the batch likely has none
			// either: the load of each home slot is then skipped.
			records = c.prefetchRecords(cur[:len(ks)]) > 0 || c.shift != inlineShift
		}
		for i, k := range ks {
			var ok bool
			buf, ok = c.get(buf[:0], k, cur[i])
			fn(base+i, buf, ok)
		}
	}
	if cap(buf) <= 1<<20 { // do not pin one huge value's buffer
		*bp = buf[:0]
		batchBufs.Put(bp)
	}
	return nil
}

// prefetchSlots hashes ks into hs and prefetches their home slots. The
// hashes come first, then the addresses in a tight loop: hashing between
// the prefetches would fill the CPU's window and hold the misses back.
func (c *Cache) prefetchSlots(ks [][]byte, hs *[batchGroup]uint64) {
	for i, k := range ks {
		hs[i] = c.sum(k)
	}
	var addrs [2 * batchGroup]uintptr
	n := 0
	for _, h := range hs[:len(ks)] {
		a, last, ok := c.homeSlot(c.shardFor(h), h)
		if !ok {
			continue
		}
		addrs[n] = a
		n++
		// When the home slot ends its line, the next line too: at the
		// adapter's load about a quarter of the keys lie past their home
		// line, most of them just past an odd home slot.
		if last {
			addrs[n] = a&^(lineBytes-1) + lineBytes
			n++
		}
	}
	prefetch.Lines(&addrs[0], n)
}

// lineBytes is the cache line size the index layout assumes.
const lineBytes = 64

// homeSlot returns the address of the home slot of hash h in shard s's
// published table (read as Get reads it, without the lock), for a
// prefetch, and whether that slot is the last of its cache line with
// more of the table after it; ok is false while the shard has no table.
func (c *Cache) homeSlot(s *shard, h uint64) (addr uintptr, last, ok bool) {
	p := s.pfIndex.Load()
	if p == nil {
		return 0, false, false
	}
	// The length is loaded apart from the base (see tryGet); both
	// regions hold maxSlots slots, so the next line stays inside one.
	n := min(s.pfLen.Load(), c.maxSlots)
	i := ((h >> (64 - hashBits)) * n) >> hashBits
	addr = uintptr(unsafe.Pointer(p)) + uintptr(i)<<c.shift
	last = addr&(lineBytes-1) >= lineBytes-1<<c.shift && i+1 < n
	return addr, last, true
}

// prefetchRecords prefetches the ring records of the keys (by hash) whose
// home slot matches and holds no inline entry; the slots were prefetched
// one group earlier.
func (c *Cache) prefetchRecords(hs []uint64) int {
	var addrs [batchGroup]uintptr
	n := 0
	for _, h := range hs {
		s := c.shardFor(h)
		hh := h >> (64 - hashBits)
		p, r := s.pfIndex.Load(), s.pfRing.Load()
		if p == nil || r == nil {
			continue
		}
		i := (hh * s.pfLen.Load()) >> hashBits
		w := *(*uint64)(unsafe.Add(unsafe.Pointer(p), i<<c.shift))
		// An inline entry's record is a stub: nothing to fetch.
		if w&(slotUsed|slotHashMask) == slotUsed|hh<<32 && (c.shift != inlineShift || (*slot)(unsafe.Add(unsafe.Pointer(p), i<<inlineShift)).klen == 0) {
			if off := w & slotOffMask; off < c.ringSize {
				addrs[n] = uintptr(unsafe.Pointer(r)) + uintptr(off)
				n++
			}
		}
	}
	prefetch.Lines(&addrs[0], n)
	return n
}

// closing marks the cache closed for GetBatch and waits for the batches
// in flight to finish, so that none starts prefetching a closed cache
// (its memory stays mapped anyway: see Close).
func (c *Cache) closing() {
	c.closed.Store(true)
	for c.batches.Load() != 0 {
		runtime.Gosched()
	}
}
