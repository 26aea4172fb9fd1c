package shardcache

// climbPeriod is the number of misses before the climber moves, a quarter
// of TinyLFU's sample per entry: its evidence comes from misses' contests.
func (p *policy) climbPeriod() uint64 {
	return sketchPeriod * uint64(max(len(p.sketch.words), 64)) / 4
}

// climber tunes the policy per shard on one scale. From minBias up a step
// moves the contests' bias (recency: a high bias admits window exits that
// lose on frequency); below it each step takes a tenth off the window's
// entry target, down to a hundredth of the shard (frequency, as Caffeine's
// climber shrinks its window). It moves on what the contests were worth,
// not on the noisier hit ratio: refused keys back through the ghost
// (returned) against kept victims read again (kept). Each period it steps
// towards the side that clearly outnumbers the other and stays put when
// they are alike (a loop); past maxBias few victims are kept to bring it back.
type climber struct {
	// pos is the position, minPos to maxBias; bias (the contests' shift)
	// and win (the window's entry target in tenths) derive from it.
	pos, bias, win int8
	returned, kept uint32 // the period's evidence
	misses         uint64 // misses at the start of the period
	warm           uint8  // periods so far, up to warmPeriods
}

const (
	minBias     = -1
	maxBias     = 5
	warmPeriods = 8           // first periods, a quarter as long: short traces move early
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
	// The margins keep a few stray returns or reads from moving it.
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
