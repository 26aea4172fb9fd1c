package shardcache

// policy is one shard's state of s3fifo-tinylfu (doc.go, DESIGN.md). It
// acts on the shard's storage through a small surface: the ring's three
// queues (fifo: the window, and the main queue's probation and protected
// segments), the entry at a queue's tail (shard.tail), and what keeps
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
	pr, pt := &s.q[probation], &s.q[protected]
	if p.sketch.words == nil || !p.sketching && s.count < p.sketchFrom && 2*(pr.size()-pr.free()+pt.size()-pt.free()) < pr.size()+pt.size() {
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
	w, q := &s.q[window], s.mainQueue(n)
	cand := -1 // a door key's estimate, shifted by the climber's bias
	switch {
	case !disabled(ablFill) && (w.free() < n || w.count >= p.windowTarget(s, c)) && !c.atCap(s) && p.room(s, c, q) >= n && s.count+1 <= maxLoad(int(s.maxSlots)):
		// While the cache fills, a new key skips the window it would pass.
	case !p.returned(hh) && n <= w.size():
		q = w
	default:
		if d := p.doorQueue(s); n <= d.size() {
			q = d
		}
		if disabled(ablSketch | ablDoorContest) {
			break
		}
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
	if atCap && q == p.doorQueue(s) {
		p.door.admitted(q.head)
	}
	if pt := &s.q[protected]; q == pt {
		for pt.count >= p.protectedTarget(s, c) && p.demote(s, c, ev, &relocs, moveOnly) {
		}
	}
	return q
}

// minProtectedShare is the smallest share of MaxEntries whose shard
// splits its main queue into two segments.
const minProtectedShare = 64

// doorQueue is the main queue's segment door keys enter: protected,
// unless door keys contest the victim (doorCheck: a loop), where they
// must be read in probation to stay.
func (p *policy) doorQueue(s *shard) *fifo {
	if disabled(ablDoorProtected) || p.door.contest {
		return &s.q[probation]
	}
	return &s.q[protected]
}

// mainQueue is the main queue's segment an n-byte entry enters:
// probation, unless it is too large for probation's ring.
func (s *shard) mainQueue(n uint64) *fifo {
	if n <= s.q[probation].size() {
		return &s.q[probation]
	}
	return &s.q[protected]
}

// makeRoom, the one room-making path, makes room for an n-byte entry in
// queue q and one more entry in the shard. With cand ≥ 0 (a door key) each
// main-queue victim must be estimated below cand, else it returns false.
func (p *policy) makeRoom(s *shard, c *Cache, q *fifo, n uint64, ev *evictions, relocs *relocBudget, cand int) bool {
	w := &s.q[window]
	for {
		if q.free() < n {
			switch {
			case q == w:
				p.windowExit(s, c, ev, relocs)
			case q == &s.q[protected]:
				p.demote(s, c, ev, relocs, evictAny)
			case !p.evictMain(s, c, ev, relocs, cand):
				return false
			}
			continue
		}
		if !c.atCap(s) && s.hasSlot() {
			return true
		}
		// One entry must go: from the window while it holds its share,
		// else from the main queue (keeping a read victim the budget
		// cannot move for a window entry).
		switch {
		case q != w && cand >= 0 && p.doorContests():
			if !p.evictMain(s, c, ev, relocs, cand) {
				return false
			}
		case w.count > 0 && (w.count >= p.windowTarget(s, c) || s.count == w.count):
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

// protectedTarget is the most entries protected holds at the entry cap,
// four fifths of the main queue's (as in W-TinyLFU): above it a promotion
// demotes protected's tail, below it probation's unread tail moves there
// instead of being evicted. Without the cap protected's ring bounds it.
// A shard of fewer than minProtectedShare entries keeps none there.
func (p *policy) protectedTarget(s *shard, c *Cache) int {
	if c.shareEntries > 0 {
		if c.shareEntries < minProtectedShare {
			return 0 // too few entries for two segments: probation is CLOCK
		}
		return (c.shareEntries - p.windowTarget(s, c)) * 4 / 5
	}
	return s.count + 1
}

// room is how many bytes queue q takes without an eviction: its free
// bytes, and for probation those protected takes from probation's tail
// while below its target.
func (p *policy) room(s *shard, c *Cache, q *fifo) uint64 {
	r := q.free()
	if pt := &s.q[protected]; q == &s.q[probation] && pt.count < p.protectedTarget(s, c) {
		r += pt.free()
	}
	return r
}

// windowExit takes the entry at the window's tail: a read one (or any
// while the cache has room) moves to probation, an unread one goes to the
// ghost unless it wins the contest against the main queue's victim.
func (p *policy) windowExit(s *shard, c *Cache, ev *evictions, relocs *relocBudget) {
	p.sketching = true
	w := &s.q[window]
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
	mq := s.mainQueue(m)
	if uses > 0 && !disabled(ablReadProtected) {
		mq = &s.q[protected] // read in the window: used twice
	}
	admit := uses > 0 || (!c.atCap(s) && p.room(s, c, mq) >= m)
	contested := false
	// A read exit contests too at the cap towards frequency or in a loop
	// (where a read in the window is mostly a loop's two close requests).
	read := uses > 0 && (p.climb.pos < startPos || p.door.contest || p.tail.seldom()) && c.atCap(s) && !disabled(ablReadContest)
	if (!admit || read) && !disabled(ablSketch) && s.count > w.count {
		// One point below a door key (asked for twice); at 0 it cannot
		// win, and is refused without turning the main queue's hand.
		cand := int(p.sketch.estimate(hh)) + int(p.climb.bias) - 1 + b2i(disabled(ablUnreadPoint))
		contested = cand > 0
		admit = contested && p.evictMain(s, c, ev, relocs, cand)
	}
	// Not at the cost of a read entry the budget cannot move.
	for admit && mq.free() < m {
		if mq == &s.q[protected] {
			admit = p.demote(s, c, ev, relocs, evictUnread)
		} else {
			admit = p.evictMain(s, c, ev, relocs, keepRead)
		}
	}
	e.i = s.slotOf(c, &e) // evictions may have shifted its slot
	if !admit {
		s.evict(&e, ReasonNoSpace, ev)
		p.ghost.add(hh, contested)
		return
	}
	off := s.relocate(e.i, window, mq.queue(s), m, 0)
	if uses > 0 && !disabled(ablSketch|ablTrial) {
		setFlag(mq, off, flagTrial, true)
	}
	for s.q[protected].count > p.protectedTarget(s, c) && p.demote(s, c, ev, relocs, moveOnly) {
	}
}

// queue is q's index in the shard's queues.
func (q *fifo) queue(s *shard) int {
	switch q {
	case &s.q[window]:
		return window
	case &s.q[probation]:
		return probation
	}
	return protected
}

// evictMain evicts one main-queue entry, the victim at probation's tail.
// A read one there is promoted to protected's head with its use count
// decremented, within the Set's relocBudget; an unread one moves there
// too while protected is below its target and has the bytes, which makes
// room without an eviction. With probation empty, protected's tail is
// demoted first. With cand ≥ 0 the victim goes only if its estimate is
// below cand; else it moves to probation's head, marked kept, and
// evictMain returns false, as it does with keepRead for a read entry the
// budget cannot move.
func (p *policy) evictMain(s *shard, c *Cache, ev *evictions, relocs *relocBudget, cand int) bool {
	p.sketching = true
	q, pt := &s.q[probation], &s.q[protected]
	for {
		if q.tail == q.head {
			n := s.count
			if pt.tail == pt.head || !p.demote(s, c, ev, relocs, evictAny) {
				return cand < 0
			}
			if s.count < n {
				return true
			}
			continue
		}
		e, hh, uses := s.tail(c, probation)
		m := e.size()
		if e.flags&flagDead != 0 {
			q.advance(m)
			if cand < 0 {
				return true
			}
			continue
		}
		expired := e.exp != noExpiry && e.exp <= c.now()
		if p.door.n > 0 && q == p.doorQueue(s) {
			p.door.passed(q.tail, uses > 0)
		}
		if !expired {
			p.sketch.add(hh, uses)
			kept := e.flags&flagKept != 0
			if kept && uses > 0 {
				p.climb.kept++ // a kept victim read again: evidence for frequency
			}
			trial := e.flags&flagTrial != 0
			fill := uses == 0 && pt.count < p.protectedTarget(s, c) && pt.free() >= m
			if (uses > 0 || fill) && relocs.take(m) {
				n := s.count
				for pt.free() < m && p.demote(s, c, ev, relocs, evictUnread) {
				}
				if s.count < n {
					e.i = s.slotOf(c, &e) // evictions may have shifted its slot
				}
				if pt.free() < m {
					// Protected's tail is read and the budget is spent:
					// a second chance in probation instead.
					s.relocate(e.i, probation, probation, m, max(uses, 1)-1)
					continue
				}
				off := s.relocate(e.i, probation, protected, m, max(uses, 1)-1)
				if kept || trial {
					setFlag(pt, off, flagKept|flagTrial, false)
				}
				if fill {
					return true
				}
				for pt.count > p.protectedTarget(s, c) && p.demote(s, c, ev, relocs, moveOnly) {
				}
				continue
			}
			if cand >= 0 && int(p.sketch.estimate(hh))-trialDiscount*b2i(trial) >= cand {
				// The victim won on frequency: it moves to protected.
				to := probation
				if pt.free() >= m && !disabled(ablKeptProtected) {
					to = protected
				}
				off := s.relocate(e.i, probation, to, m, 0)
				setFlag(&s.q[to], off, flagKept|flagTrial, false)
				setFlag(&s.q[to], off, flagKept, true)
				for pt.count > p.protectedTarget(s, c) && p.demote(s, c, ev, relocs, moveOnly) {
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
}

// What demote may evict of an entry it cannot move.
const (
	moveOnly    = iota // nothing
	evictUnread        // an unread entry
	evictAny           // any entry
)

// demote takes the entry at protected's tail: a read one gets CLOCK's
// second chance at protected's head with its use count decremented, an
// unread one moves to probation's head, where it is the next victim
// unless it is read first, both within the Set's relocBudget. Without the
// budget or probation's room it is evicted if mode allows, else demote
// returns false; it returns true once an entry left protected.
func (p *policy) demote(s *shard, c *Cache, ev *evictions, relocs *relocBudget, mode int) bool {
	q, pr := &s.q[protected], &s.q[probation]
	for q.tail < q.head {
		e, hh, uses := s.tail(c, protected)
		m := e.size()
		if e.flags&flagDead != 0 {
			q.advance(m)
			continue
		}
		if e.exp != noExpiry && e.exp <= c.now() {
			s.evict(&e, ReasonExpired, ev)
			return true
		}
		if p.door.n > 0 && q == p.doorQueue(s) {
			p.door.passed(q.tail, uses > 0)
		}
		p.tail.note(uses > 0)
		kept := e.flags&flagKept != 0
		if kept && uses > 0 {
			p.climb.kept++ // a kept victim read again: evidence for frequency
		}
		if uses > 0 && relocs.take(m) {
			p.sketch.add(hh, uses)
			off := s.relocate(e.i, protected, protected, m, uses-1)
			if kept {
				setFlag(q, off, flagKept, false)
			}
			continue
		}
		if uses == 0 && pr.free() >= m && relocs.take(m) {
			s.relocate(e.i, protected, probation, m, 0)
			return true
		}
		if mode == moveOnly || mode == evictUnread && uses > 0 {
			return false
		}
		p.sketch.add(hh, uses)
		s.evict(&e, ReasonNoSpace, ev)
		return true
	}
	return false
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
