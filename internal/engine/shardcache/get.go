package shardcache

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// Get appends the value stored under key to dst and returns the extended
// slice and true, or dst and false when the key is absent or expired. It
// does not allocate unless dst must grow.
//
// It repeats get's first step rather than calling get: one call frame
// less on every lookup.
func (c *Cache) Get(dst, key []byte) ([]byte, bool) {
	h := c.sum(key)
	if c.inlineReads {
		if out, hit, ok := c.getInline(c.shardFor(h), dst, key, h); ok {
			return out, hit
		}
	}
	return c.getSlow(dst, key, h)
}

// optimisticTries is how many optimistic reads get attempts before it
// takes the shard's read lock (a writer held the shard, or changed it
// during each attempt).
const optimisticTries = 4

// get is Get given the key's hash. It reads optimistically (see tryGet),
// and takes the shard's read lock only when that fails optimisticTries
// times, or always with lockedReads.
func (c *Cache) get(dst, key []byte, h uint64) ([]byte, bool) {
	if c.inlineReads {
		if out, hit, ok := c.getInline(c.shardFor(h), dst, key, h); ok {
			return out, hit
		}
	}
	return c.getSlow(dst, key, h)
}

// getSlow is get past getInline: the full optimistic read, then the
// locked one.
func (c *Cache) getSlow(dst, key []byte, h uint64) ([]byte, bool) {
	s := c.shardFor(h)
	if !c.lockedReads {
		for range optimisticTries {
			if out, hit, ok := c.tryGet(s, dst, key, h); ok {
				return out, hit
			}
		}
	}
	return c.getLocked(s, dst, key, h)
}

// getInline is the optimistic read of an inline table's commonest cases
// as a small function: a hit on an inline entry, or a miss, within the
// first inlineProbes slots of the key's probe run. Without find's general
// loop and the entry it returns, and without tryGet's larger frame, fewer
// instructions lie between one lookup's slot load and the next one's,
// so that more of the next lookup runs while this one's miss is pending.
// It reports ok false for anything else (a matching tag on a non-inline
// entry or another key, a longer run, a writer at work), and tryGet
// then does the full read.
func (c *Cache) getInline(s *shard, dst, key []byte, h uint64) (out []byte, hit, ok bool) {
	s1 := s.seq.Load()
	base := s.pfIndex.Load()
	if s1&1 != 0 || base == nil {
		return dst, false, false
	}
	hh := h >> (64 - hashBits)
	want := slotUsed | hh<<32
	n := min(s.pfLen.Load(), c.maxSlots)
	i := (hh * n) >> hashBits
	for probes := min(n, inlineProbes); probes > 0; probes-- {
		p := (*slot)(unsafe.Add(unsafe.Pointer(base), i<<inlineShift))
		w := atomic.LoadUint64(&p.meta)
		if w&slotUsed == 0 {
			loadFence()
			if s.seq.Load() != s1 {
				return dst, false, false
			}
			bump(&s.misses)
			return dst, false, true
		}
		if w&(slotUsed|slotHashMask) == want {
			// klen 0 (not inline) gives kl -1, which matches no key;
			// kl+vl is checked because a writer may be changing the
			// slot.
			kl, vl := int(p.klen)-1, int(p.vlen)
			if kl != len(key) || kl+vl > inlineMax || string(p.data[:kl]) != string(key) {
				return dst, false, false
			}
			m := len(dst)
			dst = append(dst, p.data[kl:kl+vl]...)
			loadFence()
			if s.seq.Load() != s1 {
				return dst[:m], false, false
			}
			markUse(&p.meta, w)
			bump(&s.hits)
			runtime.KeepAlive(s)
			return dst, true, true
		}
		if i++; i == n {
			i = 0
		}
	}
	return dst, false, false
}

// inlineProbes is how many slots of a probe run getInline looks at (at
// the 3/4 load limit, linear probing's successful searches average 2.5
// probes and unsuccessful ones 8.5).
const inlineProbes = 8

// tryGet is one optimistic read, with no lock and no locked instruction:
// it loads the shard's sequence number (odd while a writer changes the
// shard), looks the key up in the published table and ring, appends the
// value, and loads the sequence number again. If it changed, a writer
// may have changed what was read: dst is cut back and ok is false. The
// lookup (find) stays within mapped memory and never panics whatever it
// reads, and only a validated length may grow dst. A hit updates the use
// count with a plain byte store (setUses), after validation.
func (c *Cache) tryGet(s *shard, dst, key []byte, h uint64) (out []byte, hit, ok bool) {
	s1 := s.seq.Load()
	if s1&1 != 0 {
		return dst, false, false
	}
	base, r := s.pfIndex.Load(), s.pfRing.Load()
	if base == nil || r == nil {
		return dst, false, false // closed: the locked path reports the miss
	}
	// The length is loaded apart from the base, so it may belong to the
	// other table; both regions hold maxSlots slots, which bounds it.
	idx := table{base: unsafe.Pointer(base), n: min(s.pfLen.Load(), c.maxSlots), shift: c.shift}
	ring := unsafe.Slice(r, c.ringSize)
	var e entry
	found := s.find(idx, ring, c.small, key, h, &e)
	if found && e.exp != noExpiry && e.exp <= c.now() {
		found = false
	}
	if !found {
		loadFence()
		if s.seq.Load() != s1 {
			return dst, false, false
		}
		bump(&s.misses)
		return dst, false, true
	}
	m := len(dst)
	if uint64(cap(dst)-m) < e.vl {
		// dst must grow: validate the length first, so that a torn
		// read never allocates.
		loadFence()
		if s.seq.Load() != s1 {
			return dst, false, false
		}
	}
	dst = appendValue(idx, queueRing(ring, c.small, e.q), dst, e)
	loadFence()
	if s.seq.Load() != s1 {
		return dst[:m], false, false
	}
	markUse(idx.meta(e.i), e.slot)
	bump(&s.hits)
	// s points into the shard array, whose cleanup unmaps the memory the
	// store above wrote: it must stay reachable until here.
	runtime.KeepAlive(s)
	return dst, true, true
}

// getLocked is Get under the shard's read lock, with a compare-and-swap
// for the use count.
func (c *Cache) getLocked(s *shard, dst, key []byte, h uint64) ([]byte, bool) {
	s.mu.RLock()
	e, ok := s.lookup(key, h)
	if ok && e.exp != noExpiry && e.exp <= c.now() {
		ok = false
	}
	if !ok {
		s.mu.RUnlock()
		bump(&s.misses)
		return dst, false
	}
	if e.slot&slotUses != slotUses {
		s.countUse(e.i, e.slot)
	}
	dst = appendValue(s.index, s.q[e.q].ring, dst, e)
	s.mu.RUnlock()
	bump(&s.hits)
	return dst, true
}

// Has reports whether key holds a live entry. It changes no counter and
// does not count as a use for the eviction policy.
func (c *Cache) Has(key []byte) bool {
	h := c.sum(key)
	s := c.shardFor(h)
	s.mu.RLock()
	e, ok := s.lookup(key, h)
	ok = ok && (e.exp == noExpiry || e.exp > c.now())
	s.mu.RUnlock()
	return ok
}
