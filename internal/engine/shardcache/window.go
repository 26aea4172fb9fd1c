package shardcache

// The policy keeps two queues per shard: a window that new keys enter (a tenth of the ring bytes and, with
// MaxEntries, at most a tenth of the shard's entries) and a main queue
// (the rest). An entry read while in the window moves to the main queue
// when it reaches the window's tail (once the climber
// has moved towards frequency, only if it wins the contest below); an
// unread one is evicted there, unless the cache has room for it or
// the sketch estimates it more used than the main
// queue's victim. An evicted window
// entry's hash goes to the ghost, and a key the ghost remembers skips the
// window next time. The main queue is CLOCK with a 2-bit use count: an
// entry read since it last passed the tail moves to the head with its
// count decremented.

// makeRoom makes room for an n-byte entry at the head of queue q
// (the window or the main queue) and for one more entry in the shard:
// ring bytes in q, the entry cap, the index's load limit (the index grows
// first while it may). With cand ≥ 0 (a new key bound for the main queue
// without passing the window) each main-queue victim must be estimated
// less used than cand, else makeRoom stops and returns false;
// entries evicted before that stay evicted.
func (s *shard) makeRoom(c *Cache, q *fifo, n uint64, ev *evictions, relocs *relocBudget, cand int) bool {
	w, m := &s.q[window], &s.q[main]
	for {
		if q.free() < n {
			if q == w {
				s.windowExit(c, ev, relocs)
			} else if !s.evictMain(c, ev, relocs, cand) {
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
		// queue; for a new key bound for the window, from the window
		// after all if the main queue's victim is a read entry the
		// budget cannot move (keepRead). A door key (cand ≥ 0) that
		// takes its room from the window in effect takes it from the
		// main queue without a contest, since the window takes it back
		// from there when the next new key arrives.
		switch {
		case q == m && cand >= 0 && s.doorContests():
			// A door key meets the main queue's victim, as long as door
			// keys admitted at the cap mostly reach the tail unread
			// (see doorCheck).
			if !s.evictMain(c, ev, relocs, cand) {
				return false
			}
		case w.count > 0 && (w.count >= s.windowTarget(c) || m.count == 0):
			s.windowExit(c, ev, relocs)
		case q == w && w.count > 0:
			if !s.evictMain(c, ev, relocs, keepRead) {
				s.windowExit(c, ev, relocs)
			}
		case !s.evictMain(c, ev, relocs, cand):
			return false
		}
	}
}

// windowTarget is the most entries the window should hold: a tenth of the
// shard's share of MaxEntries (without it, of what the shard holds), or
// less while the climber has shrunk the window.
func (s *shard) windowTarget(c *Cache) int {
	if c.windowEntries > 0 {
		return max(1, c.windowEntries*int(s.pol.climb.win)/10)
	}
	return max(1, s.count*int(s.pol.climb.win)/100)
}

// windowExit takes the entry at the window's tail: a dead one is skipped,
// an expired one removed, a read one (or any while the cache has room)
// moves to the main queue, and an unread one is
// evicted into the ghost, unless the sketch prefers it to
// the main queue's victim by more than the bias allows. A read one meets
// the victim the same way where readExitsContest says so.
func (s *shard) windowExit(c *Cache, ev *evictions, relocs *relocBudget) {
	s.pol.sketching = true
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
	if s.pol.sketch.words != nil {
		s.pol.sketch.add(hh, uses)
	}
	admit := uses > 0 || (!c.atCap(s) && mq.free() >= m)
	contested := false
	// An entry read in the window meets the victim too once the climber
	// has moved towards frequency (readExitsContest).
	read := uses > 0 && s.readExitsContest(c) && !disabled(ablReadContest)
	if (!admit || read) && !disabled(ablSketch) && mq.count > 0 {
		// The candidate meets the main queue's victim; the climber's
		// bias shifts the contest towards admitting (recency) or
		// towards keeping the victim (frequency). An entry leaving the
		// window unread gets one point less than a key at the door,
		// which has been asked for twice. A candidate at 0 or below
		// cannot win (a victim's estimate is at least 0, and ties keep
		// the victim), so it is refused without a contest: the
		// contest would only have moved the victim to the head, and
		// a main queue whose hand turns on every window exit gives its
		// read entries shorter second chances.
		if cand := int(s.pol.sketch.estimate(hh)) + int(s.pol.climb.bias) - 1 + b2i(disabled(ablUnreadPoint)); cand > 0 {
			contested = true
			admit = s.evictMain(c, ev, relocs, cand)
		} else {
			admit = false
		}
	}
	// An entry moving on (read in the window, or admitted) makes room
	// in the main queue's bytes without a contest, but not by evicting
	// a read entry the budget cannot move: with large values it would be
	// a hot one, and the entry from the window goes instead.
	for admit && mq.free() < m {
		admit = s.evictMain(c, ev, relocs, keepRead)
	}
	if !admit {
		e.i = s.slotOf(c, &e)
		s.remove(&e, ReasonNoSpace, ev)
		w.advance(m)
		s.pol.ghost.add(hh, contested)
		return
	}
	// The evictions may have shifted the entry's slot (backward-shift
	// deletion): find it again.
	e.i = s.slotOf(c, &e)
	off := s.relocate(e.i, window, main, m, 0)
	if uses > 0 && !disabled(ablSketch|ablTrial) {
		setFlag(mq, off, flagTrial, true)
	}
}

// readExitsContest reports whether an entry leaving the window read meets
// the main queue's victim, as an unread one does (with the same point
// down), instead of moving on without a contest: at the entry cap, once
// the climber stands below its starting position (towards frequency), or
// at any position while the traffic looks like a loop (doorCheck finds
// door keys reaching the tail unread, or the main queue's entries are
// seldom read). There a
// key read once in the window is mostly a key read twice close together,
// as the keys at each turn of a loop are, worth no more than the victims
// the sketch keeps; moved on for free, each would displace one that the
// loop reads sooner. Towards recency read exits move on for free: there
// a read in the window is the evidence the climber trusts.
func (s *shard) readExitsContest(c *Cache) bool {
	return (s.pol.climb.pos < startPos || s.pol.door.contest || s.pol.tail.seldom()) && c.atCap(s)
}

// evictMain evicts one entry of the main queue by CLOCK: entries read
// since they last passed the tail move to the head with their use count
// decremented (within the Set's relocBudget, so a Set stays O(1)); a
// dead entry at the tail is skipped (its bytes are free then, and it
// returns true). With cand ≥ 0 the victim found is evicted only if its
// estimated use count is below cand; otherwise it moves to the head and
// evictMain returns false. With cand = keepRead a read entry that the
// budget's bytes cannot move stays at the tail and evictMain returns
// false; with -1 it is evicted.
func (s *shard) evictMain(c *Cache, ev *evictions, relocs *relocBudget, cand int) bool {
	s.pol.sketching = true
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
		if s.pol.door.n > 0 {
			s.pol.door.passed(q.tail, uses > 0)
		}
		if !expired {
			s.pol.tail.note(uses > 0)
			if s.pol.sketch.words != nil {
				s.pol.sketch.add(hh, uses)
			}
			kept := e.flags&flagKept != 0
			if kept && uses > 0 {
				// A victim the contest kept was read again: the
				// climber's evidence for frequency.
				s.pol.climb.kept++
			}
			trial := e.flags&flagTrial != 0
			if uses > 0 && relocs.take(m) {
				off := s.relocate(e.i, main, main, m, uses-1)
				if kept || trial {
					setFlag(q, off, flagKept|flagTrial, false)
				}
				continue
			}
			if cand >= 0 && s.victimEstimate(hh, trial) >= cand {
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
		s.remove(&e, reason, ev)
		q.advance(m)
		return true
	}
	return cand < 0
}

// trialDiscount is what a contest takes off the estimate of a victim on
// trial (flagTrial: it moved on from the window because it was read there,
// and has not been read since): the Set and the one read that every such
// entry has in the sketch. A key read twice in a burst and never again
// would otherwise hold its place in the main queue against every
// candidate with the same count, keys a loop reaches every round among
// them. Only contests see the discount; CLOCK's second chances and room
// made without a contest treat the entry as any other. 3 would be more
// than such an entry's certain counts, and fails TestDoorCheck's recency
// case.
const trialDiscount = 2

// victimEstimate is the estimate a contest holds against the main queue's
// victim of hash bits hh, less trialDiscount if it is on trial.
func (s *shard) victimEstimate(hh uint64, trial bool) int {
	est := int(s.pol.sketch.estimate(hh))
	if trial {
		est -= trialDiscount
	}
	return est
}

// keepRead is evictMain's cand for room made without a contest that
// should not cost a read entry its second chance. With small entries the
// budget runs out of moves first, and the entry is evicted as CLOCK's
// bound has it; with large ones its bytes run out while moves remain, and
// evictMain leaves the entry for the caller to take room from the window
// instead, so that a large hot value is not traded for a new one.
const keepRead = -2

// climbPeriod is how many misses the climber counts before it moves: a
// quarter of TinyLFU's sample of ten per entry the shard can hold. Its
// evidence (below) is steadier than a hit ratio, so it can judge from
// shorter periods; ten per entry were too slow for the small caches. It
// counts misses, not lookups, because its evidence comes from contests,
// held when a missed key is set: counted in lookups, a period of a cache
// that hits 90% would hold a tenth of the contests of one that hits none,
// often too few to clear the climber's margins.
func (s *shard) climbPeriod() uint64 {
	return sketchPeriod * uint64(max(len(s.pol.sketch.words), 64)) / 4
}

// climber adapts the policy to the workload. It moves on a single scale
// with two parts. From minBias up, the window keeps its full tenth and a
// step moves the bias: a high bias admits window entries that lose the
// frequency contest (recency wins: bursts of reuse longer than the window,
// loops that run backwards). Below minBias the bias stays there and each
// step takes a tenth off the window's entry target, down to a hundredth
// of the shard (frequency wins: on zipf-like traffic the window's entries
// are mostly keys seen once, and a small window leaves their room to the
// main queue, as Caffeine's climber shrinks its window). The window's ring
// keeps its bytes; with fewer window entries the main queue holds the
// rest of the entry budget, and a smaller target takes effect over the
// next Sets at the cap, as the window's exits leave it.
//
// It moves on what the contests at the main queue's tail turned out to
// be worth, not on the hit ratio. A key a contest refused that is
// requested again while the ghost remembers it (returned) says the
// contest should have admitted it (a key refused without a contest, one
// that could not have won, says nothing, unless it comes back soon after
// a long stay in the window: see shard.returned); a victim the contest
// kept that is read before it reaches the tail again (kept) says keeping
// it was right. After each period the climber steps towards recency when
// returns clearly outnumber such reads, towards frequency in the opposite
// case, and stays put otherwise, so a loop (both sides come back alike)
// does not make it wander; two steps at once when one side is more than
// three times the other. Hill climbing on the hit ratio, as Caffeine
// does, judges each move by a difference between periods whose hit
// ratios also move with the cache's contents: on short traces that is
// noisy, and slow to open the window for keys read again soon.
//
// The climber starts with the window at seven tenths (7% of the shard)
// and the bias stops at 5 (4 for entries leaving the window): above it
// so few victims are kept that no evidence would bring the climber back
// when the traffic changes.
type climber struct {
	// pos is the position on the scale, minPos to maxBias; bias is the
	// contest's shift and win the window's entry target in tenths of its
	// full size (1 to 10), both derived from pos.
	pos, bias, win int8
	// The period's evidence: keys the contest refused that came back,
	// and victims it kept that were read again.
	returned, kept uint32
	misses         uint64 // misses at the start of the period
	// warm counts the first periods, which are a quarter as long.
	warm uint8
}

const (
	minBias = -1
	maxBias = 5
	// warmPeriods is how many of the first periods are a quarter as
	// long, so that a new cache, or a short trace, gets to its position
	// early (a short trace may last only a few periods of full length).
	warmPeriods = 8
	minPos      = minBias - 9 // the window at a tenth of its full size
	startPos    = minBias - 3 // the window at seven tenths
)

func (k *climber) init() {
	*k = climber{pos: startPos}
	k.set()
}

// set derives the bias and the window's share from the position.
func (k *climber) set() {
	k.bias = max(k.pos, minBias)
	k.win = 10 + min(k.pos-minBias, 0)
}

// observe moves the position once the shard's counters show a full
// period of misses since the last move.
func (k *climber) observe(misses, period uint64) {
	if disabled(ablClimber) {
		return
	}
	if k.warm < warmPeriods && !disabled(ablWarm) {
		period /= 4
	}
	if misses-k.misses < period {
		return
	}
	// The margins (a quarter more, and 5) keep a few stray returns or
	// reads in a quiet period from moving the climber.
	r, f := float32(k.returned), float32(k.kept)
	step := int8(1)
	if r > 3*f+5 || f > 3*r+5 {
		step = 2
	}
	switch {
	case r > 1.25*f+5:
		k.pos = min(k.pos+step, maxBias)
		if disabled(ablClimbRec) {
			k.pos = min(k.pos, startPos)
		}
	case f > 1.25*r+5:
		k.pos = max(k.pos-step, minPos)
		if disabled(ablClimbFreq) {
			k.pos = max(k.pos, startPos)
		}
	}
	k.set()
	k.returned, k.kept = 0, 0
	k.warm = min(k.warm+1, warmPeriods)
	k.misses = misses
}
