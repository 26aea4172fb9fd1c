package shardcache

import "sync"

// fire runs OnEvict for the entries collected under a shard lock; the lock
func (c *Cache) fire(ev *evictions) {
	if ev == nil {
		return
	}
	if len(ev.items) == 0 {
		putEvictions(ev)
		return
	}
	// Recycle the buffer even if a callback panics.
	defer putEvictions(ev)
	start := 0
	for _, it := range ev.items {
		c.onEvict(ev.buf[start:it.keyEnd:it.keyEnd], ev.buf[it.keyEnd:it.valEnd:it.valEnd], it.reason)
		start = it.valEnd
	}
}

// keyForError shortens a key for an error message.
func keyForError(key []byte) []byte {
	if len(key) > 64 {
		return key[:64]
	}
	return key
}

// evictions collects the entries removed under a shard lock so that
// OnEvict runs after the lock is released.
type evictions struct {
	buf   []byte
	items []evicted
}

// add queues one entry, its key and value each given in up to two pieces
// (ring wrap); ev may be nil (no callback).
func (ev *evictions) add(k1, k2, v1, v2 []byte, reason EvictReason) {
	if ev == nil {
		return
	}
	ev.buf = append(append(ev.buf, k1...), k2...)
	keyEnd := len(ev.buf)
	ev.buf = append(append(ev.buf, v1...), v2...)
	ev.items = append(ev.items, evicted{keyEnd: keyEnd, valEnd: len(ev.buf), reason: reason})
}

type evicted struct {
	keyEnd, valEnd int
	reason         EvictReason
}

var evictionsPool = sync.Pool{New: func() any { return new(evictions) }}

func getEvictions() *evictions { return evictionsPool.Get().(*evictions) }

func putEvictions(ev *evictions) {
	if ev == nil {
		return
	}
	if cap(ev.buf) > 1<<20 { // do not pin one huge value's buffer
		ev.buf = nil
	}
	ev.buf = ev.buf[:0]
	ev.items = ev.items[:0]
	evictionsPool.Put(ev)
}
