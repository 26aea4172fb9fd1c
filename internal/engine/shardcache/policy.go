package shardcache

// policy is one shard's state of s3fifo-tinylfu, the eviction and
// admission policy (policy_*.go; doc.go and DESIGN.md describe it). It
// acts on storage the shard owns, through a small surface: the two queues
// of the ring (fifo: free bytes, entry counts, tail, head, flags), the
// entry at a queue's tail with its slot (shard.tail), and the moves and
// removals that keep ring and index in step (shard.relocate, shard.evict,
// shard.hasSlot). The policy never touches the read sequence: every
// method runs under the shard's exclusive lock, and Get's only part in the
// policy is markUse.
type policy struct {
	sketch sketch // use counts, off the Go heap
	ghost  ghost  // keys the window evicted
	agedAt uint64 // hits+sets when the sketch was last halved
	// The sketch starts counting once the shard holds sketchFrom entries
	// (half its share of the cache), fills half its main queue's bytes or
	// first evicts; see touch.
	sketchFrom int
	sketching  bool
	climb      climber
	door       doorCheck
	tail       tailReads
}

// markUse counts a hit in the use count of meta word p, loaded as w, up to
// 3, with a plain byte store (setUses): the policy's one record of a read.
func markUse(p *uint64, w uint64) {
	if u := (w & slotUses) >> useShift; u < 3 {
		setUses(p, u+1)
	}
}

// reset forgets what the policy learnt (the sketch's and the ghost's
// words are the shard's to clear).
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

// touch loads the sketch word of a key being set, once the sketch counts:
// from the first eviction, or once the shard is half full (by entries or
// by its main queue's bytes). Before that no contest is held, and counts
// would only cost a random access per insert (Caffeine sizes its sketch
// at half full too).
func (p *policy) touch(s *shard, hh uint64) sketchRef {
	if p.sketch.words == nil {
		return sketchRef{}
	}
	if m := &s.q[main]; !p.sketching && s.count < p.sketchFrom && 2*(m.size()-m.free()) < m.size() {
		return sketchRef{}
	}
	p.sketching = true
	w, sh := p.sketch.place(hh)
	return sketchRef{w, *w, sh}
}

// count records a Set of the key touched (t) in the sketch, halves the
// sketch every sketchPeriod samples per entry held, and lets the climber
// move.
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

// admit picks the queue a new n-byte entry (hash bits hh, sketch word t)
// enters and makes room for it there, or returns nil to refuse it.
// A new key enters the window, unless the ghost remembers it (it is used
// again, so it goes straight to the main queue, as in S3-FIFO) or it does
// not fit there: such door keys meet the main queue's victims, as the
// window's unread exits do, so that ghosts and large one-time values do
// not push hot entries out.
func (p *policy) admit(s *shard, c *Cache, hh, n uint64, t sketchRef, ev *evictions) *fifo {
	w, q := &s.q[window], &s.q[main]
	cand := -1 // a door key's estimate, shifted by the climber's bias
	switch {
	case !disabled(ablFill) && w.free() < n && !c.atCap(s) && q.free() >= n && s.count+1 <= maxLoad(int(s.maxSlots)):
		// The window is full but the cache has room: its oldest entry
		// would only move on to the main queue, so the new one goes
		// there and each entry is copied once while the cache fills.
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
	// A door key at the entry cap is sampled when it gets in (doorCheck);
	// if it met the victim and lost, it gets the window's chance. Both
	// attempts share one budget of second chances.
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

// makeRoom makes room for an n-byte entry at the head of queue q and for
// one more entry in the shard: ring bytes in q, the entry cap, the index's
// load limit. With cand ≥ 0 (a door key) each main-queue victim must be
// estimated less used than cand, else makeRoom stops and returns false
// (entries evicted before that stay evicted).
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
		// One entry must go: from the window while it holds its share of
		// the entries (or the main queue is empty), else from the main
		// queue; for a window entry, from the window after all if the
		// main queue's victim is a read entry the budget cannot move. A
		// door key that takes its room from the window takes it from the
		// main queue without a contest, as S3-FIFO admits a ghost hit.
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
// shard's share of MaxEntries (without it, of what the shard holds), less
// while the climber has shrunk the window.
func (p *policy) windowTarget(s *shard, c *Cache) int {
	if c.windowEntries > 0 {
		return max(1, c.windowEntries*int(p.climb.win)/10)
	}
	return max(1, s.count*int(p.climb.win)/100)
}

// windowExit takes the entry at the window's tail: a dead one is skipped,
// an expired one removed, a read one (or any while the cache has room)
// moves to the main queue, and an unread one is evicted into the ghost
// unless it wins the contest against the main queue's victim. A read one
// contests too where readExitsContest says so.
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
	if p.sketch.words != nil {
		p.sketch.add(hh, uses)
	}
	admit := uses > 0 || (!c.atCap(s) && mq.free() >= m)
	contested := false
	read := uses > 0 && p.readExitsContest(s, c) && !disabled(ablReadContest)
	if (!admit || read) && !disabled(ablSketch) && mq.count > 0 {
		// The candidate meets the victim with the climber's bias and one
		// point less than a door key, which was asked for twice. One at
		// 0 or below cannot win (ties keep the victim): it is refused
		// without a contest, which would only turn the main queue's hand.
		if cand := int(p.sketch.estimate(hh)) + int(p.climb.bias) - 1 + b2i(disabled(ablUnreadPoint)); cand > 0 {
			contested = true
			admit = p.evictMain(s, c, ev, relocs, cand)
		} else {
			admit = false
		}
	}
	// An entry moving on makes room in the main queue's bytes without a
	// contest, but not by evicting a read entry the budget cannot move (a
	// hot large value): the window's entry goes instead.
	for admit && mq.free() < m {
		admit = p.evictMain(s, c, ev, relocs, keepRead)
	}
	// The evictions may have shifted the entry's slot (backward-shift
	// deletion): find it again.
	e.i = s.slotOf(c, &e)
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

// readExitsContest reports whether an entry leaving the window read meets
// the victim as an unread one does: at the entry cap, once the climber is
// below its start (towards frequency) or while the traffic looks like a
// loop. There a read in the window is mostly the two close requests a loop
// makes of each key near its turn, worth no more than the victims the
// sketch keeps. Towards recency such a read is the evidence the climber
// trusts, and read exits move on for free.
func (p *policy) readExitsContest(s *shard, c *Cache) bool {
	return (p.climb.pos < startPos || p.door.contest || p.tail.seldom()) && c.atCap(s)
}

// evictMain evicts one entry of the main queue by CLOCK: an entry read
// since it last passed the tail moves to the head with its use count
// decremented (within the Set's relocBudget); a dead one is skipped (its
// bytes are free, and with cand < 0 that is the room made). With cand ≥ 0
// the victim is evicted only if its estimate is below cand; otherwise it
// moves to the head, marked kept, and evictMain returns false. With cand =
// keepRead a read entry that the budget cannot move stays and evictMain
// returns false; with -1 it is evicted.
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
			if p.sketch.words != nil {
				p.sketch.add(hh, uses)
			}
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
			if cand >= 0 && p.victimEstimate(hh, trial) >= cand {
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

// trialDiscount is what a contest takes off the estimate of a victim on
// trial (flagTrial: moved on from the window because it was read there,
// not read since): the Set and the one read every such entry has in the
// sketch. Otherwise a key read twice in a burst and never again would hold
// its place against every candidate with the same count, a loop's keys
// among them. 3 would exceed such an entry's certain counts.
const trialDiscount = 2

// victimEstimate is the estimate a contest holds against the main queue's
// victim of hash bits hh, less trialDiscount if it is on trial.
func (p *policy) victimEstimate(hh uint64, trial bool) int {
	est := int(p.sketch.estimate(hh))
	if trial {
		est -= trialDiscount
	}
	return est
}

// keepRead is evictMain's cand for room made without a contest that should
// not cost a read entry its second chance. With small entries the budget
// runs out of moves first and the entry is evicted as CLOCK's bound has
// it; with large ones its bytes run out first, and the caller takes room
// from the window instead, so that a hot large value is not traded for a
// new one.
const keepRead = -2

// returned reports whether the ghost remembers the key (and forgets it). A
// key a contest refused that comes back is the climber's evidence for
// recency; one refused without a contest is not (counting those, the
// returns of zipf-like traffic would hold the climber at the recency end),
// except when it comes back fresh (its tag the newest of its bucket)
// though the sketch has it at 1 with this request: its earlier request
// was a long stretch ago, while it left the window only lately, a reuse
// distance a little beyond what the window holds, which LRU keeps. Such a
// return counts youngReturnWeight while door keys are mostly read
// (doorCheck.useful); where they are not, returning keys are a zipf tail.
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

// youngReturnWeight is what one fresh return of a key refused without a
// contest counts for: such returns are rarer than contested ones, and
// each stands for a run of keys the window loses.
const youngReturnWeight = 3
