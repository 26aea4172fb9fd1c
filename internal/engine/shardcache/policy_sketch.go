package shardcache

// sketch is a count-min sketch of 4-bit counters for the policy's contests:
// it estimates how often a key was used recently, whether it is in the
// cache or not. A key owns four distinct nibbles of one 64-bit word, chosen
// by its hash, so an estimate or an increment touches one word. Counters
// are halved every sketchPeriod samples per entry held, so that old
// popularity fades. Set counts the key it stores; hits reach the sketch
// through the slot's use count when the entry leaves a queue's tail.
type sketch struct {
	words []uint64 // off the Go heap
}

const (
	sketchPeriod = 10 // TinyLFU's sample size, per entry
	counterMax   = 15
)

// sketchWords is the word count of a sketch for a shard holding up to
// entries entries: one word each, at least 8 (words are picked by
// fast-range reduction, so no power of two is needed).
func sketchWords(entries uint64) uint64 { return max(entries, 8) }

// mix spreads the hash bits kept in a slot: the low 32 bits pick the
// word, bits 40 to 47 the nibbles.
func mix(hh uint64) uint64 {
	x := (hh + 1) * 0x9e3779b97f4a7c15
	return x ^ x>>29
}

// place returns the key's word and its four distinct nibble shifts:
// a + i·b mod 16 with b odd.
func (k *sketch) place(hh uint64) (*uint64, [4]uint) {
	x := mix(hh)
	a, b := uint(x>>40), uint(x>>44)|1
	sh := [4]uint{(a & 15) * 4, ((a + b) & 15) * 4, ((a + 2*b) & 15) * 4, ((a + 3*b) & 15) * 4}
	return &k.words[(x&(1<<32-1)*uint64(len(k.words)))>>32], sh
}

func minCounter(w uint64, sh [4]uint) uint64 {
	m := uint64(counterMax)
	for _, s := range sh {
		m = min(m, w>>s&counterMax)
	}
	return m
}

// estimate returns the key's estimated recent use count (0 to 15).
func (k *sketch) estimate(hh uint64) uint64 {
	p, sh := k.place(hh)
	return minCounter(*p, sh)
}

// incremented returns word w with the key's counters (at shifts sh)
// incremented by the conservative update: only the counters at the
// minimum grow, so that frequent keys do not inflate rare ones.
func incremented(w uint64, sh [4]uint) uint64 {
	m := minCounter(w, sh)
	if m == counterMax {
		return w
	}
	for _, s := range sh {
		if w>>s&counterMax == m {
			w += 1 << s
		}
	}
	return w
}

// add counts n uses of the key.
func (k *sketch) add(hh, n uint64) {
	if k.words == nil {
		return
	}
	p, sh := k.place(hh)
	for range n {
		*p = incremented(*p, sh)
	}
}

// halve ages every counter.
func (k *sketch) halve() {
	for i, w := range k.words {
		k.words[i] = w >> 1 & 0x7777777777777777
	}
}
