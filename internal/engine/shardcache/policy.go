package shardcache

// policy is one shard's state of s3fifo-tinylfu (doc.go, DESIGN.md). It
// acts on the shard's storage through a small surface: the ring's two
// queues (fifo), the entry at a queue's tail (shard.tail), and what keeps
// ring and index in step (shard.relocate, evict, hasSlot). Its methods run
// under the shard's exclusive lock; Get's one policy step is markUse.
type policy struct {
	sketch     sketch // use counts, off the Go heap
	ghost      ghost  // keys the window evicted
	agedAt     uint64 // hits+sets when the sketch was last halved
	sketchFrom int    // entries held when the sketch starts (see touch)
	sketching  bool
	climb      climber
	door       doorCheck
	tail       tailReads
}

// markUse counts a hit in the 2-bit use count of meta word p, loaded as w,
// with a plain byte store: the policy's one record of a read.
func markUse(p *uint64, w uint64) {
	if u := (w & slotUses) >> useShift; u < 3 {
		setUses(p, u+1)
	}
}

// reset forgets what the policy learnt; the shard clears the words.
func (p *policy) reset() {
	p.climb.init()
	p.door, p.tail = doorCheck{}, tailReads{}
	p.sketching, p.ghost.used = false, false
}

// sketchRef is a key's sketch word, loaded by touch before the Set probes
// the index, so that the two cache misses overlap.
type sketchRef struct {
	p  *uint64
	w  uint64
	sh [4]uint
}

// touch loads the sketch word of a key being set once the sketch counts:
// from the first eviction, or at half full (entries or main-queue bytes).
func (p *policy) touch(s *shard, hh uint64) sketchRef {
	m := &s.q[main]
	if p.sketch.words == nil || !p.sketching && s.count < p.sketchFrom && 2*(m.size()-m.free()) < m.size() {
		return sketchRef{}
	}
	p.sketching = true
	w, sh := p.sketch.place(hh)
	return sketchRef{w, *w, sh}
}

// count records a Set of the key touched, ages the sketch every
// sketchPeriod samples per entry held, and lets the climber move.
func (p *policy) count(s *shard, t sketchRef) {
	if t.p != nil {
		*t.p = incremented(t.w, t.sh)
		if samples := counter(&s.hits) + s.sets; samples-p.agedAt >= sketchPeriod*uint64(max(s.count, 64)) {
			p.sketch.halve()
			p.agedAt = samples
		}
	}
	p.climb.observe(counter(&s.misses), p.climbPeriod())
}

// admit picks the queue a new n-byte entry enters and makes room there,
// or returns nil. A door key (the ghost remembers it, or too large for the
// window) goes to the main queue, as in S3-FIFO, but meets its victims.
func (p *policy) admit(s *shard, c *Cache, hh, n uint64, t sketchRef, ev *evictions) *fifo {
	w, q := &s.q[window], &s.q[main]
	cand := -1 // a door key's estimate, shifted by the climber's bias
	switch {
	case !disabled(ablFill) && w.free() < n && !c.atCap(s) && q.free() >= n && s.count+1 <= maxLoad(int(s.maxSlots)):
		// While the cache fills, a new key skips the window it would pass.
	case !p.returned(hh) && n <= w.size():
		q = w
	case !disabled(ablSketch | ablDoorContest):
		cand = int(p.climb.bias)
		if t.p != nil {
			cand += int(minCounter(*t.p, t.sh))
		}
		if cand > 0 && p.doorKeyDown() {
			cand-- // never below 0, which meets no victim
		}
	}
	// A door key at the cap is sampled (doorCheck); one that lost the
	// contest gets the window's chance, on the same budget.
	atCap := q != w && cand >= 0 && c.atCap(s)
	contest := atCap && p.doorContests()
	relocs := newRelocs(n)
	room := p.makeRoom(s, c, q, n, ev, &relocs, cand)
	if !room && contest && n <= w.size() {
		q, atCap = w, false
		room = p.makeRoom(s, c, q, n, ev, &relocs, -1)
	}
	if !room {
		return nil
	}
	if atCap {
		p.door.admitted(q.head)
	}
	return q
}

// makeRoom, the one room-making path, makes room for an n-byte entry in
// queue q and one more entry in the shard. With cand ≥ 0 (a door key) each
// main-queue victim must be estimated below cand, else it returns false.
func (p *policy) makeRoom(s *shard, c *Cache, q *fifo, n uint64, ev *evictions, relocs *relocBudget, cand int) bool {
	w, m := &s.q[window], &s.q[main]
	for {
		if q.free() < n {
			if q == w {
				p.windowExit(s, c, ev, relocs)
			} else if !p.evictMain(s, c, ev, relocs, cand) {
				return false
			}
			continue
		}
		if !c.atCap(s) && s.hasSlot() {
			return true
		}
		// One entry must go: the window's while it holds its share, else the
		// main queue's (sparing, for a window entry, an unmovable read victim).
		switch {
		case q == m && cand >= 0 && p.doorContests():
			if !p.evictMain(s, c, ev, relocs, cand) {
				return false
			}
		case w.count > 0 && (w.count >= p.windowTarget(s, c) || m.count == 0):
			p.windowExit(s, c, ev, relocs)
		case q == w && w.count > 0:
			if !p.evictMain(s, c, ev, relocs, keepRead) {
				p.windowExit(s, c, ev, relocs)
			}
		case !p.evictMain(s, c, ev, relocs, cand):
			return false
		}
	}
}

// windowTarget is the most entries the window should hold: a tenth of the
// shard's share of MaxEntries (or of its entries), as the climber sets it.
func (p *policy) windowTarget(s *shard, c *Cache) int {
	if c.windowEntries > 0 {
		return max(1, c.windowEntries*int(p.climb.win)/10)
	}
	return max(1, s.count*int(p.climb.win)/100)
}

// windowExit takes the entry at the window's tail: a read one (or any
// while the cache has room) moves to the main queue, an unread one goes to
// the ghost unless it wins the contest against the main queue's victim.
func (p *policy) windowExit(s *shard, c *Cache, ev *evictions, relocs *relocBudget) {
	p.sketching = true
	w, mq := &s.q[window], &s.q[main]
	e, hh, uses := s.tail(c, window)
	m := e.size()
	if e.flags&flagDead != 0 {
		w.advance(m)
		return
	}
	if e.exp != noExpiry && e.exp <= c.now() {
		s.evict(&e, ReasonExpired, ev)
		return
	}
	p.sketch.add(hh, uses)
	admit := uses > 0 || (!c.atCap(s) && mq.free() >= m)
	contested := false
	// A read exit contests too at the cap towards frequency or in a loop
	// (where a read in the window is mostly a loop's two close requests).
	read := uses > 0 && (p.climb.pos < startPos || p.door.contest || p.tail.seldom()) && c.atCap(s) && !disabled(ablReadContest)
	if (!admit || read) && !disabled(ablSketch) && mq.count > 0 {
		// One point below a door key (asked for twice); at 0 it cannot
		// win, and is refused without turning the main queue's hand.
		cand := int(p.sketch.estimate(hh)) + int(p.climb.bias) - 1 + b2i(disabled(ablUnreadPoint))
		contested = cand > 0
		admit = contested && p.evictMain(s, c, ev, relocs, cand)
	}
	// Not at the cost of a read entry the budget cannot move.
	for admit && mq.free() < m {
		admit = p.evictMain(s, c, ev, relocs, keepRead)
	}
	e.i = s.slotOf(c, &e) // evictions may have shifted its slot
	if !admit {
		s.evict(&e, ReasonNoSpace, ev)
		p.ghost.add(hh, contested)
		return
	}
	off := s.relocate(e.i, window, main, m, 0)
	if uses > 0 && !disabled(ablSketch|ablTrial) {
		setFlag(mq, off, flagTrial, true)
	}
}

// evictMain evicts one main-queue entry by CLOCK: a read one moves to the
// head with its use count decremented, within the Set's relocBudget. With
// cand ≥ 0 the victim goes only if its estimate is below cand; else it
// moves to the head, marked kept, and evictMain returns false, as it does
// with keepRead for a read entry the budget cannot move.
func (p *policy) evictMain(s *shard, c *Cache, ev *evictions, relocs *relocBudget, cand int) bool {
	p.sketching = true
	q := &s.q[main]
	for q.tail < q.head {
		e, hh, uses := s.tail(c, main)
		m := e.size()
		if e.flags&flagDead != 0 {
			q.advance(m)
			if cand < 0 {
				return true
			}
			continue
		}
		expired := e.exp != noExpiry && e.exp <= c.now()
		if p.door.n > 0 {
			p.door.passed(q.tail, uses > 0)
		}
		if !expired {
			p.tail.note(uses > 0)
			p.sketch.add(hh, uses)
			kept := e.flags&flagKept != 0
			if kept && uses > 0 {
				p.climb.kept++ // a kept victim read again: evidence for frequency
			}
			trial := e.flags&flagTrial != 0
			if uses > 0 && relocs.take(m) {
				off := s.relocate(e.i, main, main, m, uses-1)
				if kept || trial {
					setFlag(q, off, flagKept|flagTrial, false)
				}
				continue
			}
			if cand >= 0 && int(p.sketch.estimate(hh))-trialDiscount*b2i(trial) >= cand {
				off := s.relocate(e.i, main, main, m, 0)
				if !kept {
					setFlag(q, off, flagKept, true)
				}
				return false
			}
		}
		if cand == keepRead && uses > 0 && !expired && relocs.moves > 0 && !disabled(ablKeepRead) {
			return false
		}
		reason := ReasonNoSpace
		if expired {
			reason = ReasonExpired
		}
		s.evict(&e, reason, ev)
		return true
	}
	return cand < 0
}

const (
	// trialDiscount is the Set and the window read every entry on trial
	// (flagTrial: moved on read, not read since) has in the sketch.
	trialDiscount = 2
	// keepRead is evictMain's cand for room that should not cost a read
	// entry its second chance when the budget's bytes run out first.
	keepRead = -2
	// youngReturnWeight is what a fresh return counts for (returned):
	// rarer than contested ones, each stands for a run the window loses.
	youngReturnWeight = 3
)

// returned reports whether the ghost remembers the key, and forgets it. A
// key a contest refused is the climber's evidence for recency; one refused
// without one only if it is fresh at an estimate of 1 while door keys are
// mostly read: it sat long in the window and came back soon after.
func (p *policy) returned(hh uint64) bool {
	found, contested, fresh := p.ghost.take(hh)
	switch {
	case contested:
		p.climb.returned++
	case found && fresh && !disabled(ablYoung) && p.sketch.words != nil && p.sketch.estimate(hh) <= 1 && p.door.useful():
		p.climb.returned += youngReturnWeight
	}
	return found && !disabled(ablGhost)
}
