package shardcache

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// TestConcurrentMix runs every operation from many goroutines at once
// (meant for -race). Each value embeds its key, so a value returned for
// the wrong key, or torn by a concurrent write, is detected.
func TestConcurrentMix(t *testing.T) {
	for _, tc := range []struct {
		name       string
		goroutines int
		cfg        Config
	}{
		{"1-goroutine", 1, Config{MaxBytes: 256 << 10}},
		{"16-goroutines-small", 16, Config{MaxBytes: 64 << 10, Shards: 2}},
		{"64-goroutines-collisions", 64, Config{MaxBytes: 256 << 10, hash: func(k []byte) uint64 {
			if len(k) == 0 {
				return 0
			}
			return uint64(k[len(k)-1]) // ten distinct hashes
		}}},
		{"200-goroutines-ttl", 200, Config{MaxBytes: 1 << 20, DefaultTTL: 5 * time.Millisecond, CleanupInterval: time.Millisecond}},
		{"16-goroutines-capped", 16, Config{MaxBytes: 256 << 10, MaxEntries: 300}},
		{"16-goroutines-compact", 16, Config{MaxBytes: 64 << 10, Shards: 2, Index: CompactIndex}},
		// Locked readers (Config.lockedReads) against writers, and the
		// optimistic readers' fallback to the read lock.
		{"16-goroutines-locked-reads", 16, Config{MaxBytes: 64 << 10, Shards: 2, lockedReads: true}},
		{"64-goroutines-locked-reads-capped", 64, Config{MaxBytes: 256 << 10, MaxEntries: 300, lockedReads: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var evictMu sync.Mutex
			evicted := 0
			cfg := tc.cfg
			cfg.OnEvict = func(k, v []byte, _ EvictReason) {
				if len(v) > 0 && !bytes.HasPrefix(v, k) {
					t.Errorf("OnEvict(%q) with value %q", k, v)
				}
				evictMu.Lock()
				evicted++
				evictMu.Unlock()
			}
			c := newTest(t, cfg)
			ops := 40000 / tc.goroutines
			if testing.Short() {
				ops /= 4
			}
			var wg sync.WaitGroup
			for g := range tc.goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(g), 9))
					buf := make([]byte, 0, 256)
					for i := range ops {
						key := fmt.Appendf(nil, "key-%d", rng.IntN(500))
						switch r := rng.IntN(100); {
						case r < 45:
							var ok bool
							buf, ok = c.Get(buf[:0], key)
							if ok && !bytes.HasPrefix(buf, key) {
								t.Errorf("Get(%q) = %q", key, buf)
								return
							}
						case r < 80:
							v := append(append([]byte{}, key...), bytes.Repeat([]byte{'.'}, rng.IntN(200))...)
							var err error
							if r < 60 {
								err = c.Set(key, v)
							} else {
								err = c.SetWithTTL(key, v, time.Duration(rng.IntN(3))*time.Millisecond)
							}
							if err != nil {
								t.Error(err)
								return
							}
						case r < 90:
							c.Delete(key)
						case r < 92:
							c.Has(key)
						case r < 94:
							batch := [][]byte{key, fmt.Appendf(nil, "key-%d", rng.IntN(500)), []byte("absent")}
							_ = c.GetBatch(batch, func(j int, v []byte, ok bool) {
								if ok && !bytes.HasPrefix(v, batch[j]) {
									t.Errorf("GetBatch(%q) = %q", batch[j], v)
								}
							})
						case r < 97:
							_ = c.Stats()
							_ = c.Len()
						case r < 99:
							c.DeleteExpired()
						default:
							if i%10 == 0 {
								c.Reset()
							}
						}
					}
				}()
			}
			wg.Wait()
			// The cleanup goroutine may still remove expired entries, and
			// only remove: Stats' count lies between Len before and after.
			before := uint64(c.Len())
			st := c.Stats()
			after := uint64(c.Len())
			if st.BytesUsed > st.Capacity || st.Entries > before || st.Entries < after {
				t.Fatalf("stats after the run: %+v; Len %d before Stats, %d after", st, before, after)
			}
			// The cleanup goroutine may still be firing callbacks.
			evictMu.Lock()
			t.Logf("%+v, %d evictions seen", st, evicted)
			evictMu.Unlock()
		})
	}
}

// Close while GetBatch calls are running: the batches prefetch shard
// memory without a lock, so Close must wait for them before unmapping.
func TestCloseDuringGetBatch(t *testing.T) {
	for range 20 {
		c, err := New(Config{MaxBytes: 1 << 20, CleanupInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		keys := make([][]byte, 64)
		for i := range keys {
			keys[i] = fmt.Appendf(nil, "k%d", i)
			_ = c.Set(keys[i], bytes.Repeat(keys[i], 5))
		}
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 200 {
					_ = c.GetBatch(keys, func(j int, v []byte, ok bool) {
						if ok && !bytes.HasPrefix(v, keys[j]) {
							t.Errorf("GetBatch(%q) = %q", keys[j], v)
						}
					})
				}
			}()
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
	}
}
