package shardcache

// sketch is a count-min sketch of 4-bit counters: how often a key was used
// recently, in the cache or not. A key owns four distinct nibbles of one
// 64-bit word, so an estimate or an increment touches one word. Set counts
// its key; hits arrive through the use count at a queue's tail.
type sketch struct {
	words []uint64 // off the Go heap
}

const (
	sketchPeriod = 10 // TinyLFU's sample size, per entry
	counterMax   = 15
)

// sketchWords is the word count for a shard of up to entries entries (one
// each; words are picked by fast-range reduction, not a mask).
func sketchWords(entries uint64) uint64 { return max(entries, 8) }

// mix spreads a slot's hash bits: bits 0-31 pick the word, 40-47 nibbles.
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
	return &k.words[wordOf(x, uint64(len(k.words)))], sh
}

// wordOf is the index of key mix x's word among n (Set prefetches it).
func wordOf(x, n uint64) uint64 { return (x & (1<<32 - 1) * n) >> 32 }

// minCounter is the least of the key's four counters (shifts sh) in w. It
// and incremented, on Set's path, are written out: Go does not unroll loops.
func minCounter(w uint64, sh [4]uint) uint64 {
	return min(w>>sh[0]&counterMax, w>>sh[1]&counterMax, w>>sh[2]&counterMax, w>>sh[3]&counterMax)
}

// estimate returns the key's estimated recent use count (0 to 15).
func (k *sketch) estimate(hh uint64) uint64 {
	p, sh := k.place(hh)
	return minCounter(*p, sh)
}

// incremented returns w with the key's counters (shifts sh) incremented
// conservatively: those at the minimum grow by one, which below counterMax
// carries into no other nibble.
func incremented(w uint64, sh [4]uint) uint64 {
	c0, c1, c2, c3 := w>>sh[0]&counterMax, w>>sh[1]&counterMax, w>>sh[2]&counterMax, w>>sh[3]&counterMax
	m := min(c0, c1, c2, c3)
	if m == counterMax {
		return w
	}
	var inc uint64
	if c0 == m {
		inc |= 1 << sh[0]
	}
	if c1 == m {
		inc |= 1 << sh[1]
	}
	if c2 == m {
		inc |= 1 << sh[2]
	}
	if c3 == m {
		inc |= 1 << sh[3]
	}
	return w + inc
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
