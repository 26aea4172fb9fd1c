package shardcache

import (
	"container/list"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// lruHits replays keys through an exact LRU cache of capacity entries and
// returns its hit ratio: the reference the policy tests compare with.
func lruHits(keys []uint64, capacity int) float64 {
	l := list.New()
	at := map[uint64]*list.Element{}
	hits := 0
	for _, k := range keys {
		if e, ok := at[k]; ok {
			l.MoveToFront(e)
			hits++
			continue
		}
		if l.Len() == capacity {
			b := l.Back()
			delete(at, b.Value.(uint64))
			l.Remove(b)
		}
		at[k] = l.PushFront(k)
	}
	return float64(hits) / float64(len(keys))
}

// cacheHits replays keys through a cache as get-or-set and returns its
// hit ratio and the most entries it held (sampled every 64 requests).
func cacheHits(t *testing.T, cfg Config, keys []uint64) (float64, int) {
	c := newTest(t, cfg)
	var key [8]byte
	val := make([]byte, 64)
	var dst []byte
	hits, most := 0, 0
	for i, k := range keys {
		binary.LittleEndian.PutUint64(key[:], k)
		var ok bool
		if dst, ok = c.Get(dst[:0], key[:]); ok {
			hits++
		} else if err := c.Set(key[:], val); err != nil {
			t.Fatal(err)
		}
		if i%64 == 0 {
			most = max(most, c.Len())
		}
	}
	return float64(hits) / float64(len(keys)), most
}

// recencyTrace is corda-like: every key is read twice, the second time
// soon after the first (within a few dozen requests); nothing is read
// three times. LRU hits every second read.
func recencyTrace(n int, rng *rand.Rand) []uint64 {
	keys := make([]uint64, 0, 2*n)
	var pending []uint64
	for k := range uint64(n) {
		keys = append(keys, k)
		pending = append(pending, k)
		for len(pending) > 0 && (len(pending) > 40 || rng.IntN(2) == 0) {
			i := rng.IntN(len(pending))
			keys = append(keys, pending[i])
			pending[i] = pending[len(pending)-1]
			pending = pending[:len(pending)-1]
		}
	}
	return append(keys, pending...)
}

// loopTrace is a cyclic scan over n keys, rounds times: LRU smaller than
// the loop hits nothing.
func loopTrace(n, rounds int) []uint64 {
	keys := make([]uint64, 0, n*rounds)
	for range rounds {
		for k := range uint64(n) {
			keys = append(keys, k)
		}
	}
	return keys
}

// The default policy on sequences where admission filters without a
// window fail (a key read again once, soon: corda's vault service) and
// where recency fails (a loop larger than the cache), against exact LRU
// of the same entry count. Each cache holds at most its entry budget + 5%.
func TestPolicyAgainstLRU(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name     string
		keys     []uint64
		capacity int
		// least is the hit ratio the policy must reach, relative to
		// LRU's (lru + margin).
		margin float64
	}{
		// TinyLFU without a window scored 3% here where LRU has 50%.
		{"recency", recencyTrace(50000, rng), 1000, -0.01},
		// A small cache needs the climber to raise its bias (see climber):
		// on a trace this long it does.
		{"recency-small", recencyTrace(50000, rng), 100, -0.02},
		// LRU 0; OPT would keep capacity/n = 20% of the loop.
		{"loop", loopTrace(5000, 40), 1000, 0.08},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lru := lruHits(tc.keys, tc.capacity)
			for _, p := range []Policy{WindowTinyLFU, S3FIFO, TinyLFU} {
				got, most := cacheHits(t, Config{MaxBytes: int64(tc.capacity) * 400, MaxEntries: tc.capacity, Policy: p}, tc.keys)
				t.Logf("%s: %v %.4f, lru %.4f, held up to %d of %d", tc.name, p, got, lru, most, tc.capacity)
				if most > tc.capacity*105/100 {
					t.Errorf("%v held %d entries, budget %d", p, most, tc.capacity)
				}
				if p == WindowTinyLFU && got < lru+tc.margin {
					t.Errorf("%v hit ratio %.4f, want at least lru %.4f %+.2f", p, got, lru, tc.margin)
				}
			}
		})
	}
}
