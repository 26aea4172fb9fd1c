package mmapstore

import (
	"encoding/binary"
	"math/bits"
	"unsafe"

	"github.com/cachebench/cachebench/internal/engine/prefetch"
)

// getBatch's pipeline: keys are hashed and both lines of their home
// buckets prefetched in groups of batchGroup, batchAhead groups ahead of
// the key being resolved, so that a bucket has been requested about
// batchAhead × batchGroup keys' worth of work (~0.5 µs) before it is
// read. batchRing holds the hash and bucket of every key in flight.
const (
	batchGroup = 4
	batchAhead = 3
	batchRing  = 16 // a power of two ≥ (batchAhead + 1) × batchGroup
)

// batchKey is a key between its prefetch and its resolution.
type batchKey struct {
	h, b uint64 // the hash and the home bucket
	bk   *[bucketSize]byte
}

// getBatch is GetBatch, software-pipelined: while one
// key is resolved, both cache lines of the home buckets of the keys
// batchAhead groups further on have been requested, so their misses
// overlap with each other and with useful work, and a key in its home
// bucket costs no miss when it is resolved. Resolution takes a fast
// path, written into the loop, for a key of 8 to 16 bytes: a home bucket
// with no tag candidate and no overflow bit is a miss; one with no
// candidate and the bit set sends it to the next bucket; there, one tag
// candidate that is an inline entry whose two key words equal the key's
// is a hit. Anything else (several candidates, a record out of line, a
// mismatch, a longer or shorter key) goes through find, and the fast
// path answers only where find would answer the same, so the results
// are find's (TestGetBatchAgreesWithGet, the corruption sweep and
// FuzzBucket check it).
func (s *Store) getBatch(keys [][]byte, fn func(i int, val []byte, found bool)) {
	if s.maxProbe == 0 {
		for i := range keys {
			fn(i, nil, false)
		}
		return
	}
	var ring [batchRing]batchKey
	var addrs [2 * batchGroup]uintptr
	nb, seed, cb1 := s.buckets, s.seed, s.hashID == HashCB1
	start := func(lo int) {
		hi := min(lo+batchGroup, len(keys))
		if lo >= hi {
			return
		}
		for i, k := range keys[lo:hi] {
			var h uint64
			if n := len(k); cb1 && n >= 8 && n <= 16 {
				h = hashWords(binary.LittleEndian.Uint64(k), binary.LittleEndian.Uint64(k[n-8:]), n, seed)
			} else {
				h = s.hash(k)
			}
			b := homeBucket(h, nb)
			bk := s.bucket(b)
			ring[(lo+i)&(batchRing-1)] = batchKey{h, b, bk}
			addrs[2*i] = uintptr(unsafe.Pointer(&bk[0]))
			addrs[2*i+1] = uintptr(unsafe.Pointer(&bk[bucketFlags]))
		}
		prefetch.Lines(&addrs[0], 2*(hi-lo))
	}
	for g := range batchAhead {
		start(g * batchGroup)
	}
	for i, k := range keys {
		if i&(batchGroup-1) == 0 {
			start(i + batchAhead*batchGroup)
		}
		e := ring[i&(batchRing-1)]
		if kl := len(k); kl >= 8 && kl <= 16 {
			bk, t := e.bk, bucketTag(e.h)
			m := tagMatches(binary.LittleEndian.Uint64(bk[:8]), t)
			if m == 0 {
				if bk[bucketFlags]&bucketOverflow == 0 {
					fn(i, nil, false) // find's answer: not in the only bucket it may be in
					continue
				}
				if s.maxProbe > 1 { // else find looks no further
					// The key lives further on, nearly always in the
					// next bucket: look there the same way.
					bk = s.bucket(e.b + 1)
					m = tagMatches(binary.LittleEndian.Uint64(bk[:8]), t)
				}
			}
			if m != 0 && m&(m-1) == 0 {
				// The only candidate of the bucket (tagMatches flags
				// every true match, and the buckets before it had
				// none): an untyped inline entry of the key's length
				// whose two key words equal the key's is the key (a
				// typed one goes through find).
				p := int(bk[8+bits.TrailingZeros64(m)>>3])
				if p >= bucketData && p+2+kl <= bucketFlags && int(bk[p]) == kl && bk[p+1] < inlineTyped {
					if end := p + 2 + kl + int(bk[p+1]); end <= bucketFlags &&
						binary.LittleEndian.Uint64(bk[p+2:]) == binary.LittleEndian.Uint64(k) &&
						binary.LittleEndian.Uint64(bk[p+kl-6:]) == binary.LittleEndian.Uint64(k[kl-8:]) {
						fn(i, bk[p+2+kl:end:end], true)
						continue
					}
				}
			}
		}
		v, _, _, ok := s.find(k, e.h)
		fn(i, v.b, ok)
	}
}

// GetBatch looks up every key and calls fn(i, val, found) for each, in
// order; val is the value's bytes, a zero-copy slice as for Get. It overlaps the cache
// misses of the keys: the home buckets of the keys a few groups ahead
// are requested before the current key is resolved (see getBatch).
func (s *Store) GetBatch(keys [][]byte, fn func(i int, val []byte, found bool)) {
	s.getBatch(keys, fn)
}
