package shardcache

// The windowed policies (WindowTinyLFU, S3FIFO) keep two queues per
// shard: a window that new keys enter (a tenth of the ring bytes and, with
// MaxEntries, at most a tenth of the shard's entries) and a main queue
// (the rest). An entry read while in the window moves to the main queue
// when it reaches the window's tail; an unread one is evicted there,
// unless the cache has room for it or (WindowTinyLFU only) the sketch
// estimates it more used than the main queue's victim. An evicted window
// entry's hash goes to the ghost, and a key the ghost remembers skips the
// window next time. The main queue is CLOCK with a 2-bit use count: an
// entry read since it last passed the tail moves to the head with its
// count decremented.

// windowed reports whether the policy has a window.
func (p Policy) windowed() bool { return p == WindowTinyLFU || p == S3FIFO }

// makeRoomWindowed makes room for an n-byte entry at the head of queue q
// (the window or the main queue) and for one more entry in the shard:
// ring bytes in q, the entry cap, the index's load limit (the index grows
// first while it may). With cand ≥ 0 (a new key bound for the main queue
// without passing the window) each main-queue victim must be estimated
// less used than cand, else makeRoomWindowed stops and returns false;
// entries evicted before that stay evicted.
func (s *shard) makeRoomWindowed(c *Cache, q *fifo, n uint64, ev *evictions, cand int) bool {
	relocs := newRelocs(n)
	w, m := &s.q[window], &s.q[main]
	for {
		if q.free() < n {
			if q == w {
				s.windowExit(c, ev, &relocs)
			} else if !s.evictMain(c, ev, &relocs, cand) {
				return false
			}
			continue
		}
		if !c.atCap(s) {
			if s.count+1 <= maxLoad(int(s.index.n)) {
				return true
			}
			if s.index.n < s.maxSlots {
				s.grow()
				continue
			}
		}
		// One entry must go: from the window while it holds its share of
		// the entries (or the main queue is empty), else from the main
		// queue.
		if w.count > 0 && (w.count >= s.windowTarget(c) || m.count == 0) {
			s.windowExit(c, ev, &relocs)
		} else if !s.evictMain(c, ev, &relocs, cand) {
			return false
		}
	}
}

// windowTarget is the most entries the window should hold: a tenth of the
// shard's share of MaxEntries (without it, of what the shard holds), or
// less while the climber has shrunk the window.
func (s *shard) windowTarget(c *Cache) int {
	if c.windowEntries > 0 {
		return max(1, c.windowEntries*int(s.climb.win)/10)
	}
	return max(1, s.count*int(s.climb.win)/100)
}

// windowExit takes the entry at the window's tail: a dead one is skipped,
// an expired one removed, a read one (or any while the cache has room)
// moves to the main queue, and an unread one is evicted into the ghost,
// unless (WindowTinyLFU) the sketch prefers it to the main queue's victim.
func (s *shard) windowExit(c *Cache, ev *evictions, relocs *relocBudget) {
	w, mq := &s.q[window], &s.q[main]
	e := w.decode(w.tailOff)
	e.q = window
	m := e.size()
	if e.flags&flagDead != 0 {
		w.advance(m)
		return
	}
	e.i = s.slotOf(c, &e)
	meta := *s.index.meta(e.i)
	hh := (meta & slotHashMask) >> 32
	uses := (meta & slotUses) / slotUse1
	if e.exp != noExpiry && e.exp <= c.now() {
		s.remove(&e, ReasonExpired, ev)
		w.advance(m)
		return
	}
	if s.sketch.words != nil {
		s.sketch.add(hh, uses)
	}
	admit := uses > 0 || (!c.atCap(s) && mq.free() >= m)
	if !admit && c.policy == WindowTinyLFU && mq.count > 0 {
		// The candidate meets the main queue's victim; the climber's
		// bias shifts the contest towards admitting (recency) or
		// towards keeping the victim (frequency).
		admit = s.evictMain(c, ev, relocs, int(s.sketch.estimate(hh))+int(s.climb.bias))
	}
	if !admit {
		e.i = s.slotOf(c, &e)
		s.remove(&e, ReasonNoSpace, ev)
		w.advance(m)
		s.ghost.add(hh)
		return
	}
	for mq.free() < m {
		s.evictMain(c, ev, relocs, -1)
	}
	// The evictions may have shifted the entry's slot (backward-shift
	// deletion): find it again.
	e.i = s.slotOf(c, &e)
	s.relocate(e.i, window, main, m, 0)
}

// evictMain evicts one entry of the main queue by CLOCK: entries read
// since they last passed the tail move to the head with their use count
// decremented (at most maxRelocations per Set, so a Set stays O(1)); a
// dead entry at the tail is skipped (its bytes are free then, and it
// returns true). With cand ≥ 0 the victim found is evicted only if its
// estimated use count is below cand; otherwise it moves to the head and
// evictMain returns false.
func (s *shard) evictMain(c *Cache, ev *evictions, relocs *relocBudget, cand int) bool {
	q := &s.q[main]
	for q.tail < q.head {
		e := q.decode(q.tailOff)
		e.q = main
		m := e.size()
		if e.flags&flagDead != 0 {
			q.advance(m)
			if cand < 0 {
				return true
			}
			continue
		}
		e.i = s.slotOf(c, &e)
		meta := *s.index.meta(e.i)
		hh := (meta & slotHashMask) >> 32
		uses := (meta & slotUses) / slotUse1
		expired := e.exp != noExpiry && e.exp <= c.now()
		if !expired {
			if s.sketch.words != nil {
				s.sketch.add(hh, uses)
			}
			if uses > 0 && relocs.take(m) {
				s.relocate(e.i, main, main, m, uses-1)
				continue
			}
			if cand >= 0 && int(s.sketch.estimate(hh)) >= cand {
				s.relocate(e.i, main, main, m, 0)
				return false
			}
		}
		reason := ReasonNoSpace
		if expired {
			reason = ReasonExpired
		}
		s.remove(&e, reason, ev)
		q.advance(m)
		return true
	}
	return cand < 0
}

// climbPeriod is how many lookups the climber samples before it moves:
// ten per entry the shard can hold, as TinyLFU's sample.
func (s *shard) climbPeriod() uint64 { return sketchPeriod * uint64(max(len(s.sketch.words), 64)) }

// climber adapts WindowTinyLFU to the workload by hill climbing on the
// shard's hit ratio: after each period it moves one step on a single
// scale, in the same direction if the hit ratio of the period was no
// worse than the one before, else in the other. The scale has two parts.
// From minBias up, the window keeps its full tenth and the step moves the
// bias: a high bias admits window entries that lose the frequency contest
// (recency wins: loops that run backwards, bursts), 16 admits all of
// them. Below minBias the bias stays there and each step takes a tenth
// off the window's entry target, down to a hundredth of the shard
// (frequency wins: on zipf-like traffic the window's entries are mostly
// keys seen once, and a small window leaves their room to the main
// queue, as Caffeine's climber shrinks its window). The window's ring
// keeps its bytes; with fewer window entries the main queue holds the
// rest of the entry budget. A smaller target takes effect lazily: the
// next Sets take their victims from the window until it fits.
//
// The bias stops at -1: lower biases kept victims against candidates
// estimated up to two uses more, which a smaller window does better on
// the same traces (DESIGN.md has the figures).
type climber struct {
	bias, dir int8
	// pos is the position on the scale, minPos to maxBias; win is the
	// window's entry target in tenths of its full size (1 to 10).
	pos, win      int8
	rate          float32 // hit ratio of the last period
	hits, lookups uint64  // counters at the start of the period
}

const (
	minBias = -1
	maxBias = counterMax + 1 // always admits
	minPos  = minBias - 9    // the window at a tenth of its full size
)

func (k *climber) init() {
	*k = climber{dir: 1}
	k.set()
}

// set derives the bias and the window's share from the position.
func (k *climber) set() {
	k.bias = max(k.pos, minBias)
	k.win = 10 + min(k.pos-minBias, 0)
}

// observe moves the position once the shard's counters show a full
// period of lookups since the last move.
func (k *climber) observe(hits, misses, period uint64) {
	n := hits + misses
	if n-k.lookups < period {
		return
	}
	rate := float32(hits-k.hits) / float32(n-k.lookups)
	if rate < k.rate {
		k.dir = -k.dir
	}
	k.rate = rate
	k.pos = min(max(k.pos+k.dir, minPos), maxBias)
	k.set()
	k.hits, k.lookups = hits, n
}

// ghost remembers the hashes of keys recently evicted from the window
// (S3-FIFO's ghost queue), 2 bytes per key: each word is a bucket of four
// 16-bit tags in insertion order, and adding a tag shifts the bucket's
// oldest out, so a tag lasts about four additions to its bucket, as many
// as the ghost has tags in all. Like the sketch it lives off the Go heap
// and is only touched under the shard's exclusive lock.
type ghost struct {
	words []uint64
}

// place returns the bucket and the tag (never 0) of the 23 hash bits a
// slot keeps.
func (g *ghost) place(hh uint64) (*uint64, uint64) {
	x := mix(hh ^ 0x5bd1e995)
	return &g.words[(x&(1<<32-1)*uint64(len(g.words)))>>32], x>>48 | 1
}

// add remembers a key.
func (g *ghost) add(hh uint64) {
	if g.words == nil {
		return
	}
	p, tag := g.place(hh)
	*p = *p<<16 | tag
}

// take reports whether the ghost remembers the key, and forgets it.
func (g *ghost) take(hh uint64) bool {
	if g.words == nil {
		return false
	}
	p, tag := g.place(hh)
	for sh := uint(0); sh < 64; sh += 16 {
		if *p>>sh&0xffff == tag {
			*p &^= 0xffff << sh
			return true
		}
	}
	return false
}
