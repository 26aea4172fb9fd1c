package shardcache

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// stressValue is the value a stress writer stores under key at version
// v: the key, the version and a filler whose byte and length derive from
// both, so that a reader can rebuild the exact bytes from what it got.
// Lengths vary from inline-sized to a few hundred bytes, so overwrites
// change sizes, move entries between slot and ring, and wrap the ring.
// With small, every value of a key of up to 4 bytes and a version below
// 10^7 fits an inline slot (22 bytes).
func stressValue(dst, key []byte, v uint64, small bool) []byte {
	dst = append(append(append(dst, key...), ':'), strconv.FormatUint(v, 10)...)
	dst = append(dst, ':')
	n := int((v*7 + uint64(len(key))) % 13)
	switch {
	case small:
		n %= 10
	case v%5 == 0:
		n = int(v % 300)
	}
	fill := byte('a' + (v+uint64(len(key)))%26)
	for range n {
		dst = append(dst, fill)
	}
	return dst
}

// checkStressValue reports whether got is exactly stressValue(key, v) for
// some version v below limit (a version already handed to a writer).
func checkStressValue(key, got []byte, limit uint64, small bool) error {
	rest, ok := bytes.CutPrefix(got, append(key[:len(key):len(key)], ':'))
	if !ok {
		return fmt.Errorf("value %q does not start with its key", got)
	}
	num, _, ok := bytes.Cut(rest, []byte{':'})
	if !ok {
		return fmt.Errorf("value %q has no version", got)
	}
	v, err := strconv.ParseUint(string(num), 10, 64)
	if err != nil || v >= limit {
		return fmt.Errorf("value %q has a version never written (limit %d)", got, limit)
	}
	if want := stressValue(nil, key, v, small); !bytes.Equal(got, want) {
		return fmt.Errorf("value %q, want %q", got, want)
	}
	return nil
}

// TestOptimisticReadStress has writers overwrite, delete and (through a
// small MaxBytes) evict entries of a small key set, and grow and reset
// the index, while readers Get and GetBatch them without locks and check
// every value they receive byte for byte against the values written for
// that key. A torn read that passed validation (a missing or misplaced
// sequence check, a writer changing a shard outside lock/unlock) shows up
// as a value that mixes two versions or two entries.
func TestOptimisticReadStress(t *testing.T) {
	d := 400 * time.Millisecond
	if testing.Short() {
		d = 100 * time.Millisecond
	}
	for _, tc := range []struct {
		name  string
		cfg   Config
		small bool // values always inline-sized
		keys  int  // the key set; 0 means 300
	}{
		{"inline-default", Config{MaxBytes: 64 << 10, Shards: 2}, false, 0},
		// Small values: every entry lives in its slot, and GetBatch and
		// Get take the inline path (getInline) whenever the key is in
		// its home slot. Few keys, so that readers and writers meet on
		// the same slots often (nothing is evicted then).
		{"inline-small", Config{MaxBytes: 64 << 10, Shards: 1}, true, 8},
		{"compact", Config{MaxBytes: 64 << 10, Shards: 2, Index: CompactIndex}, false, 0},
		{"collisions", Config{MaxBytes: 64 << 10, Shards: 1, hash: func(k []byte) uint64 {
			return uint64(k[len(k)-1]%4) * 0x9e3779b97f4a7c15 // four distinct hashes
		}}, false, 0},
		{"ttl", Config{MaxBytes: 64 << 10, Shards: 2, DefaultTTL: time.Hour, CleanupInterval: time.Millisecond}, false, 0},
		{"locked-reads", Config{MaxBytes: 64 << 10, Shards: 2, lockedReads: true}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			c := newTest(t, cfg)
			nkeys := 300
			if tc.keys > 0 {
				nkeys = tc.keys
			}
			keys := make([][]byte, nkeys)
			for i := range keys {
				keys[i] = fmt.Appendf(nil, "k%d", i)
			}
			var version atomic.Uint64 // the next version handed out
			var stop atomic.Bool
			var reads, hits atomic.Int64
			var wg sync.WaitGroup
			for w := range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(w), 1))
					var val []byte
					for i := 0; !stop.Load(); i++ {
						k := keys[rng.IntN(nkeys)]
						switch r := rng.IntN(100); {
						case r < 80:
							val = stressValue(val[:0], k, version.Add(1)-1, tc.small)
							if err := c.Set(k, val); err != nil {
								t.Error(err)
								return
							}
						case r < 98:
							c.Delete(k)
						default:
							if i%50 == 0 {
								c.Reset()
							}
						}
					}
				}()
			}
			for g := range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(g), 2))
					buf := make([]byte, 0, 8) // grows: exercises the validated growth
					batch := make([][]byte, 8)
					for n := 0; !stop.Load(); n++ {
						if n%64 == 0 {
							// Readers that never block would keep a
							// writer parked on the shard lock for a
							// whole scheduler time slice.
							runtime.Gosched()
						}
						if rng.IntN(4) == 0 {
							for j := range batch {
								batch[j] = keys[rng.IntN(nkeys)]
							}
							limit := version.Load()
							_ = c.GetBatch(batch, func(j int, v []byte, ok bool) {
								reads.Add(1)
								if ok {
									hits.Add(1)
									// A version handed out after limit
									// may be read too: check against now.
									if err := checkStressValue(batch[j], v, max(limit, version.Load()), tc.small); err != nil {
										t.Errorf("GetBatch(%q): %v", batch[j], err)
									}
								}
							})
							continue
						}
						k := keys[rng.IntN(nkeys)]
						prefix := []byte("prefix")
						var ok bool
						buf, ok = c.Get(append(buf[:0], prefix...), k)
						reads.Add(1)
						if !bytes.HasPrefix(buf, prefix) {
							t.Errorf("Get(%q) changed the bytes before dst's length: %q", k, buf)
						}
						if !ok {
							if len(buf) != len(prefix) {
								t.Errorf("Get(%q) missed but appended %q", k, buf[len(prefix):])
							}
							continue
						}
						hits.Add(1)
						if err := checkStressValue(k, buf[len(prefix):], version.Load(), tc.small); err != nil {
							t.Errorf("Get(%q): %v", k, err)
						}
						if t.Failed() {
							return
						}
					}
				}()
			}
			// A compact index starts with 512 slots, more than these
			// keys need: only inline indexes grow here.
			exercised := func(st Stats) bool {
				grew := st.IndexGrowths > 0 || cfg.Index == CompactIndex || tc.keys > 0
				evicted := st.EvictionsNoSpace+st.Rejections > 0 || tc.keys > 0
				return hits.Load() > 0 && evicted && grew
			}
			// Run for d, and on past it (up to 20 s) until the run has
			// seen hits, evictions and growth: under the race detector on
			// a busy machine d writes too few versions to fill the cache.
			time.Sleep(d)
			for deadline := time.Now().Add(20 * time.Second); !exercised(c.Stats()) && time.Now().Before(deadline); {
				time.Sleep(20 * time.Millisecond)
			}
			stop.Store(true)
			wg.Wait()
			st := c.Stats()
			t.Logf("%d reads, %d hits, %d versions written; %+v", reads.Load(), hits.Load(), version.Load(), st)
			if !exercised(st) {
				t.Fatalf("the run did not exercise hits, evictions and index growth: %d hits, %+v", hits.Load(), st)
			}
		})
	}
}
