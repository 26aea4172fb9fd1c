package shardcache

import (
	"math/bits"
	"sync/atomic"
)

// sketch is a count-min sketch of 4-bit counters for the TinyLFU policy:
// it estimates how often a key was used recently, for keys in the cache
// and keys that were evicted or never admitted alike. One 64-bit word
// holds 16 counters; a key owns four distinct nibbles of one word, chosen
// by its hash, so reading an estimate is one load and an increment one
// load and one compare-and-swap on a single cache line. Counters are
// halved every sketchPeriod samples per entry held, so that old
// popularity fades.
//
// The words live off the Go heap like the rest of the shard and hold no
// pointers. Get increments them under the shard's shared lock (hence the
// atomics); halving runs under the exclusive lock.
type sketch struct {
	words []uint64
	mask  uint64
}

const (
	// sketchPeriod is how many samples per entry held the counters see
	// before they are halved (TinyLFU's sample size, as a multiple of the
	// cache size).
	sketchPeriod = 10
	// sketchWordsPerEntry sets the sketch's size: one word (16 counters)
	// per this many entries the shard can hold, rounded to a power of two.
	sketchEntriesPerWord = 1
	counterMax           = 15
)

// sketchWords is the word count of a sketch for a shard holding up to
// entries entries: a power of two, at least 8.
func sketchWords(entries uint64) uint64 {
	n := max(entries/sketchEntriesPerWord, 8)
	return 1 << bits.Len64(n-1)
}

// mix spreads the 30 hash bits kept in a slot (the same for a key being
// set and for a victim found through its slot): the low bits pick the
// word, bits 40 to 47 the nibbles.
func mix(hh uint64) uint64 {
	x := (hh + 1) * 0x9e3779b97f4a7c15
	return x ^ x>>29
}

// place returns the key's word and its four distinct nibble shifts:
// a + i·b mod 16 with b odd.
func (k *sketch) place(hh uint64) (*uint64, [4]uint) {
	x := mix(hh)
	return &k.words[x&k.mask], shifts(x)
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
	return minCounter(atomic.LoadUint64(p), sh)
}

// increment counts one use of the key. It uses the conservative update
// (only the counters at the minimum grow), which keeps estimates of rare
// keys from being inflated by the frequent keys they share counters with.
// A lost race skips the count: the sketch is an estimate.
func (k *sketch) increment(hh uint64) {
	p, sh := k.place(hh)
	bump(p, sh, atomic.LoadUint64(p))
}

// bump is increment given the word's address, shifts and a value loaded
// earlier (Get loads it before probing the index, so that the two cache
// misses overlap); if the word changed meanwhile, the count is skipped.
func bump(p *uint64, sh [4]uint, old uint64) {
	m := minCounter(old, sh)
	if m == counterMax {
		return
	}
	w := old
	for _, s := range sh {
		if w>>s&counterMax == m {
			w += 1 << s
		}
	}
	atomic.CompareAndSwapUint64(p, old, w)
}

// halve ages every counter; the caller holds the shard lock exclusively.
func (k *sketch) halve() {
	for i, w := range k.words {
		k.words[i] = w >> 1 & 0x7777777777777777
	}
}
