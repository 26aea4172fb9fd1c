package shardcache

// climbPeriod is how many misses the climber counts before it moves: a
// quarter of TinyLFU's sample of ten per entry the shard can hold. Its
// evidence (below) is steadier than a hit ratio, so it can judge from
// shorter periods; ten per entry were too slow for the small caches. It
// counts misses, not lookups, because its evidence comes from contests,
// held when a missed key is set: counted in lookups, a period of a cache
// that hits 90% would hold a tenth of the contests of one that hits none,
// often too few to clear the climber's margins.
func (p *policy) climbPeriod() uint64 {
	return sketchPeriod * uint64(max(len(p.sketch.words), 64)) / 4
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
