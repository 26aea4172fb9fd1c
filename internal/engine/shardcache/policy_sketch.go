package shardcache

// sketch is a count-min sketch of 4-bit counters for the policy's contests:
// it estimates how often a key was used recently, for keys in the cache
// and keys that were evicted or never admitted alike. One 64-bit word
// holds 16 counters; a key owns four distinct nibbles of one word, chosen
// by its hash, so an estimate or an increment touches one word. Counters are
// halved every sketchPeriod samples per entry held, so that old
// popularity fades.
//
// The words live off the Go heap like the rest of the shard and hold no
// pointers. They are only read and written under the shard's exclusive
// lock: Set counts the key it stores, and hits reach the sketch through
// the 2-bit use count of the entry's slot when the entry leaves the tail
// (Get only touches the slot line it has loaded anyway).
type sketch struct {
	words []uint64
}

const (
	// sketchPeriod is how many samples per entry held the counters see
	// before they are halved (TinyLFU's sample size, as a multiple of the
	// cache size).
	sketchPeriod = 10
	// sketchEntriesPerWord sets the sketch's size: one word (16
	// counters) per this many entries the shard can hold.
	sketchEntriesPerWord = 1
	counterMax           = 15
)

// sketchWords is the word count of a sketch for a shard holding up to
// entries entries, at least 8 (not a power of two: words are picked by a
// fast-range reduction, so no memory is lost to rounding).
func sketchWords(entries uint64) uint64 {
	return max(entries/sketchEntriesPerWord, 8)
}

// mix spreads the 29 hash bits kept in a slot (the same for a key being
// set and for a victim found through its slot): the low 32 bits pick the
// word, bits 40 to 47 the nibbles.
func mix(hh uint64) uint64 {
	x := (hh + 1) * 0x9e3779b97f4a7c15
	return x ^ x>>29
}

// place returns the key's word and its four distinct nibble shifts:
// a + i·b mod 16 with b odd.
func (k *sketch) place(hh uint64) (*uint64, [4]uint) {
	x := mix(hh)
	return &k.words[(x&(1<<32-1)*uint64(len(k.words)))>>32], shifts(x)
}

func shifts(x uint64) [4]uint {
	a, b := uint(x>>40), uint(x>>44)|1
	return [4]uint{
		(a & 15) * 4,
		((a + b) & 15) * 4,
		((a + 2*b) & 15) * 4,
		((a + 3*b) & 15) * 4,
	}
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

// increment counts one use of the key. It uses the conservative update
// (only the counters at the minimum grow), which keeps estimates of rare
// keys from being inflated by the frequent keys they share counters with.
func (k *sketch) increment(hh uint64) {
	p, sh := k.place(hh)
	*p = incremented(*p, sh)
}

// incremented returns word w with the key's counters (at shifts sh)
// incremented.
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
	for range n {
		k.increment(hh)
	}
}

// halve ages every counter; the caller holds the shard lock exclusively.
func (k *sketch) halve() {
	for i, w := range k.words {
		k.words[i] = w >> 1 & 0x7777777777777777
	}
}
