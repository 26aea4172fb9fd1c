package shardcache

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/cachebench/cachebench/internal/engine/prefetch"
)

// Set stores val under key with the default TTL, replacing any previous
// value. Key and value are copied. It returns ErrEntryTooLarge (wrapped,
// naming the key) for an entry that can never fit, and ErrClosed after
// Close.
func (c *Cache) Set(key, val []byte) error { return c.SetWithTTL(key, val, c.ttl) }

// SetWithTTL is Set with a per-entry TTL; ttl <= 0 means the entry never
// expires. The expiry time has the clock's resolution (nanoseconds by
// default).
func (c *Cache) SetWithTTL(key, val []byte, ttl time.Duration) error {
	if len(key) > MaxKeySize || len(key)+len(val) > c.maxEntry {
		// string(...) copies the key, so the caller's key does not escape.
		return fmt.Errorf("%w: key %q: %d-byte key + %d-byte value exceeds %d bytes (keys at most %d)",
			ErrEntryTooLarge, string(keyForError(key)), len(key), len(val), c.maxEntry, MaxKeySize)
	}
	exp := int64(noExpiry)
	if ttl > 0 {
		exp = c.now() + int64(ttl)
		if exp < 0 || exp == noExpiry { // overflow: a TTL beyond ~292 years
			exp = noExpiry - 1
		}
	}
	h := c.sum(key)
	s := c.shardFor(h)
	var ev *evictions
	if c.onEvict != nil {
		ev = getEvictions()
	}
	c.prefetchSet(s, h)
	s.lock()
	if s.ring == nil {
		s.unlock()
		putEvictions(ev)
		return ErrClosed
	}
	s.set(c, key, val, h, exp, ev)
	s.publishSketch()
	c.publish(s)
	s.unlock()
	if ev != nil {
		c.fire(ev)
	}
	return nil
}

// prefetchSet starts the misses of a Set's two random loads before it
// takes the lock, whose locked instruction holds back the loads after it:
// the key's home slot line and, once the policy counts in the sketch, the
// key's sketch word, so that both misses overlap each other and the lock.
// The published table is read as Get reads it (no lock); a prefetch of a
// stale table's line is harmless. The sketch is unmapped by Close, which
// may run meanwhile, so its word is prefetched only where a prefetch of
// an unmapped address cannot fault.
func (c *Cache) prefetchSet(s *shard, h uint64) {
	var a [2]uintptr
	n := 0
	if p, _, ok := c.homeSlot(s, h); ok {
		a[0], n = p, 1
	}
	if w := s.pfSketch.Load(); prefetch.Faultless && w != nil {
		a[n] = uintptr(unsafe.Pointer(w)) + uintptr(wordOf(mix(h>>(64-hashBits)), c.sketchLen))*8
		n++
	}
	prefetch.Lines(&a[0], n)
}

// Delete removes key and reports whether a live entry was removed. An
// expired entry is removed too, but reported as absent (and passed to
// OnEvict with ReasonExpired).
func (c *Cache) Delete(key []byte) bool {
	h := c.sum(key)
	s := c.shardFor(h)
	var ev *evictions
	if c.onEvict != nil {
		ev = getEvictions()
	}
	s.lock()
	e, ok := s.lookup(key, h)
	live := false
	if ok {
		reason := ReasonDeleted
		if e.exp != noExpiry && e.exp <= c.now() {
			reason = ReasonExpired
		} else {
			live = true
		}
		s.remove(&e, reason, ev)
		s.trimTail()
		c.publish(s)
	}
	s.unlock()
	c.fire(ev)
	return live
}

// Len returns the number of entries held, including expired entries not
// yet removed.
func (c *Cache) Len() int {
	n := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.RLock()
		n += s.count
		s.mu.RUnlock()
	}
	return n
}

// Reset removes every entry without calling OnEvict, and gives the
// physical memory of the rings and indexes back to the system. Counters
// are kept.
func (c *Cache) Reset() {
	for i := range c.shards {
		s := &c.shards[i]
		s.lock()
		if s.ring != nil {
			s.reset()
			c.publish(s)
		}
		s.unlock()
	}
}

// DeleteExpired removes every expired entry now (the cleanup goroutine
// does it incrementally in the background) and returns how many it
// removed.
func (c *Cache) DeleteExpired() int {
	n := 0
	for i := range c.shards {
		n += c.cleanShard(&c.shards[i], true)
	}
	return n
}
