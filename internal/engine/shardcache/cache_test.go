package shardcache

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

func newTest(t testing.TB, cfg Config) *Cache {
	t.Helper()
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = 4 << 20
	}
	if cfg.CleanupInterval == 0 {
		cfg.CleanupInterval = -1
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return c
}

// layout is an index configuration the tests run under.
type layout struct {
	index IndexLayout
	huge  bool
}

func (l layout) String() string {
	if l.huge {
		return l.index.String() + "-huge"
	}
	return l.index.String()
}

// layouts are the index configurations the tests run under.
var layouts = []layout{{InlineIndex, false}, {CompactIndex, false}, {InlineIndex, true}, {CompactIndex, true}}

// forLayouts runs f as a subtest for every index configuration.
func forLayouts(t *testing.T, f func(t *testing.T, l layout)) {
	t.Helper()
	for _, l := range layouts {
		t.Run(l.String(), func(t *testing.T) { f(t, l) })
	}
}

func mustGet(t *testing.T, c *Cache, key, want []byte) {
	t.Helper()
	got, ok := c.Get(nil, key)
	if !ok || !bytes.Equal(got, want) {
		t.Fatalf("Get(%q) = %q, %v; want %q", key, got, ok, want)
	}
}

func TestBasics(t *testing.T) {
	c := newTest(t, Config{})
	if _, ok := c.Get(nil, []byte("a")); ok {
		t.Fatal("hit in an empty cache")
	}
	for _, kv := range [][2][]byte{
		{[]byte("a"), []byte("1")},
		{nil, []byte("nil key")},                       // nil and empty keys are the same key
		{[]byte("empty value"), nil},                   // inline path
		{[]byte("long"), bytes.Repeat([]byte{7}, 500)}, // ring path
	} {
		if err := c.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	mustGet(t, c, []byte("a"), []byte("1"))
	mustGet(t, c, []byte{}, []byte("nil key"))
	mustGet(t, c, []byte("long"), bytes.Repeat([]byte{7}, 500))
	if v, ok := c.Get([]byte("x"), []byte("empty value")); !ok || string(v) != "x" {
		t.Fatalf("empty value: %q %v", v, ok)
	}
	if !c.Has([]byte("a")) || c.Has([]byte("b")) || c.Len() != 4 {
		t.Fatalf("Has/Len wrong: len %d", c.Len())
	}
	// Overwrite with a different size, then the same size (in place).
	for _, v := range []string{"22", "33", "a much longer value that is not inline"} {
		if err := c.Set([]byte("a"), []byte(v)); err != nil {
			t.Fatal(err)
		}
		mustGet(t, c, []byte("a"), []byte(v))
	}
	if !c.Delete([]byte("a")) || c.Delete([]byte("a")) || c.Has([]byte("a")) {
		t.Fatal("Delete")
	}
	st := c.Stats()
	if st.Entries != 3 || st.Deletes != 1 || st.Hits == 0 || st.Misses == 0 || st.Sets != 7 {
		t.Fatalf("stats %+v", st)
	}
	c.Reset()
	if c.Len() != 0 || c.Has([]byte("long")) || c.Stats().BytesUsed > uint64(len(c.shards))*slotChunkBytes {
		t.Fatalf("Reset left entries or memory: %+v", c.Stats())
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{MaxBytes: MinMaxBytes - 1},
		{MaxBytes: 1 << 20, Shards: 3},
		{MaxBytes: 1 << 20, Shards: 2048},
		{MaxBytes: 1 << 20, MaxEntrySize: -1},
		{MaxBytes: 1 << 20, MaxEntries: -1},
	} {
		if _, err := New(cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%+v) = %v, want ErrConfig", cfg, err)
		}
	}
}

// A constant hash sends every key to one shard, one home slot and one tag:
// only the full key comparison tells them apart.
func TestForcedCollisions(t *testing.T) { forLayouts(t, testForcedCollisions) }

func testForcedCollisions(t *testing.T, l layout) {
	c := newTest(t, Config{Shards: 4, hash: func([]byte) uint64 { return 12345 }, Index: l.index, HugeIndex: l.huge})
	const n = 300
	val := func(i int) []byte {
		if i%2 == 0 {
			return fmt.Appendf(nil, "v%d", i) // inline
		}
		return fmt.Appendf(nil, "value %d padded past the inline limit", i)
	}
	for i := range n {
		if err := c.Set(fmt.Appendf(nil, "k%d", i), val(i)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		mustGet(t, c, fmt.Appendf(nil, "k%d", i), val(i))
	}
	if c.Delete([]byte("absent")) {
		t.Fatal("Delete of an absent colliding key reported true")
	}
	for i := 0; i < n; i += 3 {
		if !c.Delete(fmt.Appendf(nil, "k%d", i)) {
			t.Fatalf("Delete k%d", i)
		}
	}
	for i := range n {
		got, ok := c.Get(nil, fmt.Appendf(nil, "k%d", i))
		if ok != (i%3 != 0) || (ok && !bytes.Equal(got, val(i))) {
			t.Fatalf("k%d after deletes: %q %v", i, got, ok)
		}
	}
	if c.Stats().Collisions == 0 {
		t.Fatal("no collisions counted")
	}
}

// A shard ring larger than the entry header's 27-bit value length holds
// (128 MiB, one bit of the header word marks entries on trial) caps
// entries there: a value one byte over is refused, one at the cap is
// stored and read back whole.
func TestValueLengthCap(t *testing.T) {
	c := newTest(t, Config{MaxBytes: 192 << 20, MaxEntries: 16, Shards: 1})
	if got := c.MaxEntrySize(); got != maxValueSize {
		t.Fatalf("MaxEntrySize %d, want the header's cap %d", got, maxValueSize)
	}
	key := []byte("k")
	if err := c.Set(key, make([]byte, maxValueSize-len(key)+1)); !errors.Is(err, ErrEntryTooLarge) {
		t.Fatalf("one byte over the header's cap: %v", err)
	}
	val := make([]byte, maxValueSize-len(key))
	val[0], val[len(val)-1] = 1, 2
	if err := c.Set(key, val); err != nil {
		t.Fatal(err)
	}
	got, ok := c.Get(nil, key)
	if !ok || len(got) != len(val) || got[0] != 1 || got[len(got)-1] != 2 {
		t.Fatalf("value at the cap read back as %d bytes (found %v)", len(got), ok)
	}
}

func TestEntrySizeLimits(t *testing.T) {
	var evicted atomic.Int64
	c := newTest(t, Config{MaxBytes: 64 << 10, Shards: 1, OnEvict: func([]byte, []byte, EvictReason) { evicted.Add(1) }})
	max := c.MaxEntrySize()
	for i := range 10 {
		if err := c.Set(fmt.Appendf(nil, "small%d", i), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	key := []byte("k")
	err := c.Set(key, make([]byte, max-len(key)+1))
	if !errors.Is(err, ErrEntryTooLarge) {
		t.Fatalf("one byte over: %v", err)
	}
	err = c.SetWithTTL(key, make([]byte, max-len(key)+1), time.Hour)
	if !errors.Is(err, ErrEntryTooLarge) {
		t.Fatalf("one byte over with TTL: %v", err)
	}
	if evicted.Load() != 0 || c.Len() != 10 {
		t.Fatalf("a rejected entry evicted %d entries", evicted.Load())
	}
	if err := c.Set(make([]byte, MaxKeySize+1), nil); !errors.Is(err, ErrEntryTooLarge) {
		t.Fatalf("key one byte over: %v", err)
	}
	// Exactly at the limit: accepted (evicting everything else, since it
	// fills the shard's ring), with and without TTL.
	if err := c.Set(key, make([]byte, max-len(key))); err != nil {
		t.Fatal(err)
	}
	mustGet(t, c, key, make([]byte, max-len(key)))
	// Into an empty shard, so that no contest can refuse it.
	c.Delete(key)
	if err := c.SetWithTTL([]byte("j"), make([]byte, max-1), time.Hour); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.Get(nil, []byte("j")); !ok || len(got) != max-1 {
		t.Fatal("entry at the limit with TTL not found")
	}
	big := newTest(t, Config{MaxBytes: 1 << 20, Shards: 1})
	if err := big.Set(make([]byte, MaxKeySize), []byte("v")); err != nil {
		t.Fatalf("key at MaxKeySize: %v", err)
	}
	mustGet(t, big, make([]byte, MaxKeySize), []byte("v"))
}

// The limit holds for any MaxBytes, including one smaller than the
// requested shards × the minimum shard size, and for resident memory.
func TestMemoryBound(t *testing.T) { forLayouts(t, testMemoryBound) }

func testMemoryBound(t *testing.T, l layout) {
	for _, limit := range []int64{MinMaxBytes, 100 << 10, 1 << 20, 3<<20 + 12345} {
		c := newTest(t, Config{MaxBytes: limit, Shards: 1024, Index: l.index, HugeIndex: l.huge})
		st := c.Stats()
		if st.Capacity > uint64(limit) || st.Shards >= 1024 {
			t.Fatalf("limit %d: capacity %d with %d shards", limit, st.Capacity, st.Shards)
		}
		rng := rand.New(rand.NewPCG(uint64(limit), 1))
		for i := range 20000 {
			v := make([]byte, rng.IntN(300))
			if err := c.Set(fmt.Appendf(nil, "key%d", i), v); err != nil {
				t.Fatal(err)
			}
			if i%1000 == 0 {
				if st := c.Stats(); st.BytesUsed > uint64(limit) {
					t.Fatalf("limit %d: %d bytes used", limit, st.BytesUsed)
				}
			}
		}
		st = c.Stats()
		if st.BytesUsed > uint64(limit) || st.EvictionsNoSpace == 0 {
			t.Fatalf("limit %d: %+v", limit, st)
		}
	}
}

// With MaxEntries the index takes only what that many entries need and
// the rings get the rest of MaxBytes: large entries then fill most of the
// limit, where the default split leaves them about half. The entry count
// is bounded too, within the 10% per-shard slack.
func TestMaxEntriesSplit(t *testing.T) {
	const limit, vsize = 16 << 20, 500
	fill := func(cfg Config, keys int) Stats {
		c := newTest(t, cfg)
		v := make([]byte, vsize)
		for i := range keys {
			if err := c.Set(fmt.Appendf(nil, "key%d", i), v); err != nil {
				t.Fatal(err)
			}
		}
		return c.Stats()
	}
	perEntry := uint64(vsize + 16)
	expected := limit / int(perEntry)
	plain := fill(Config{MaxBytes: limit}, 2*expected)
	split := fill(Config{MaxBytes: limit, MaxEntries: expected}, 2*expected)
	if split.Capacity > limit || split.BytesUsed > limit {
		t.Fatalf("over the limit: %+v", split)
	}
	if split.BytesUsed < limit*3/4 || split.Entries < plain.Entries*3/2 {
		t.Fatalf("MaxEntries %d: %d entries in %d bytes; without it %d entries in %d bytes",
			expected, split.Entries, split.BytesUsed, plain.Entries, plain.BytesUsed)
	}
	// Small entries: the index bound applies before the ring's, and
	// every one of MaxEntries fits.
	const n = 100000
	c := newTest(t, Config{MaxBytes: limit, MaxEntries: n})
	for i := range n {
		if err := c.Set(fmt.Appendf(nil, "k%d", i), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	if st := c.Stats(); st.Entries != n {
		t.Fatalf("MaxEntries %d: holds %d of %d entries", n, st.Entries, n)
	}
	for i := n; i < 2*n; i++ {
		if err := c.Set(fmt.Appendf(nil, "k%d", i), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	if st := c.Stats(); st.Entries > capBound(c, n) {
		t.Fatalf("MaxEntries %d: holds %d entries", n, st.Entries)
	}
}

// capBound is the most entries a cache with MaxEntries max may hold: the
// cap, plus what the shards have not yet published (under countBatch
// each), plus one entry per shard let in while it was empty.
func capBound(c *Cache, max int) uint64 {
	return uint64(max + len(c.shards)*c.countBatch)
}

// MaxEntries is a global cap: the cache holds at most that many entries
// (within the publication slack, under 4%) however the keys spread over
// the shards, and close to that many once it is full, so that the cap
// costs no capacity. Small caps get fewer shards.
func TestMaxEntriesCap(t *testing.T) {
	forLayouts(t, func(t *testing.T, l layout) {
		for _, tc := range []struct {
			max  int
			size int
		}{{1, 10}, {10, 10}, {100, 50}, {1000, 100}, {1000, 200}, {20000, 10}, {20000, 40}} {
			c := newTest(t, Config{MaxBytes: 64 << 20, MaxEntries: tc.max, Index: l.index, HugeIndex: l.huge})
			if bound := capBound(c, tc.max); bound > uint64(tc.max)*104/100+1 {
				t.Fatalf("MaxEntries %d: bound %d with %d shards, batches of %d", tc.max, bound, len(c.shards), c.countBatch)
			}
			v := make([]byte, tc.size)
			most := 0
			for i := range 4 * tc.max {
				if err := c.Set(fmt.Appendf(nil, "key%d", i), v); err != nil {
					t.Fatal(err)
				}
				if i%61 == 0 || i >= tc.max-1 && i < tc.max+64 {
					// Len takes every shard's lock: sampled.
					most = max(most, c.Len())
				}
				if i == tc.max-1 && c.Len() != tc.max {
					t.Fatalf("MaxEntries %d: holds %d after as many distinct keys", tc.max, c.Len())
				}
			}
			if uint64(most) > capBound(c, tc.max) || most < tc.max {
				t.Fatalf("MaxEntries %d (%d shards): held up to %d", tc.max, len(c.shards), most)
			}
			if n := c.Len(); n < tc.max*95/100 {
				t.Fatalf("MaxEntries %d: holds %d at the end", tc.max, n)
			}
			// Deleting gives the room back.
			for i := range 4 * tc.max {
				c.Delete(fmt.Appendf(nil, "key%d", i))
			}
			for i := range tc.max {
				if err := c.Set(fmt.Appendf(nil, "new%d", i), v); err != nil {
					t.Fatal(err)
				}
			}
			if n := c.Len(); n < tc.max*95/100 || uint64(n) > capBound(c, tc.max) {
				t.Fatalf("MaxEntries %d after deletes: holds %d", tc.max, n)
			}
		}
	})
}

// Long runs wrap every ring many times, with entries of every size
// straddling the ring's end; every hit must still return the right value
// and the most recent entries must be present.
func TestRingWrap(t *testing.T) { forLayouts(t, testRingWrap) }

func testRingWrap(t *testing.T, l layout) {
	for _, seed := range []uint64{7, 8} {
		c := newTest(t, Config{MaxBytes: 64 << 10, Shards: 2, Index: l.index, HugeIndex: l.huge})
		rng := rand.New(rand.NewPCG(seed, 0))
		ring := c.ringSize
		var written uint64
		latest := map[int][]byte{}
		for i := 0; written < 40*ring*2; i++ {
			k := rng.IntN(2000)
			v := modelValue(uint64(i), rng.IntN(600))
			if err := c.Set(fmt.Appendf(nil, "k%d", k), v); err != nil {
				t.Fatal(err)
			}
			latest[k] = v
			written += uint64(len(v) + 10)
			if rng.IntN(3) == 0 { // read something, setting referenced bits
				c.Get(nil, fmt.Appendf(nil, "k%d", rng.IntN(2000)))
			}
		}
		present := 0
		for k, v := range latest {
			got, ok := c.Get(nil, fmt.Appendf(nil, "k%d", k))
			if ok && !bytes.Equal(got, v) {
				t.Fatalf("seed %d: k%d returned a stale or wrong value", seed, k)
			}
			if ok {
				present++
			}
		}
		if present == 0 || present != c.Len() {
			t.Fatalf("seed %d: %d of the latest values present, Len %d", seed, present, c.Len())
		}
		if st := c.Stats(); st.EvictionsNoSpace == 0 || st.Relocations == 0 {
			t.Fatalf("seed %d: %+v", seed, st)
		}
	}
}

func TestTTL(t *testing.T) {
	clock := &fakeClock{}
	type ev struct {
		key    string
		reason EvictReason
	}
	var mu sync.Mutex
	var events []ev
	c := newTest(t, Config{
		DefaultTTL: time.Minute,
		clock:      clock.Now,
		OnEvict: func(k, _ []byte, r EvictReason) {
			mu.Lock()
			events = append(events, ev{string(k), r})
			mu.Unlock()
		},
	})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.Set([]byte("default"), []byte("v")))
	must(c.SetWithTTL([]byte("short"), []byte("v"), time.Second))
	must(c.SetWithTTL([]byte("forever"), []byte("v"), 0))
	clock.Advance(time.Second - 1)
	mustGet(t, c, []byte("short"), []byte("v"))
	clock.Advance(1)
	if _, ok := c.Get(nil, []byte("short")); ok || c.Has([]byte("short")) {
		t.Fatal("expired entry returned")
	}
	if c.Len() != 3 {
		t.Fatalf("Len %d: expired entries count until removed", c.Len())
	}
	clock.Advance(time.Minute)
	if n := c.DeleteExpired(); n != 2 {
		t.Fatalf("DeleteExpired removed %d, want 2", n)
	}
	mustGet(t, c, []byte("forever"), []byte("v"))
	if c.Len() != 1 || c.Stats().Expirations != 2 {
		t.Fatalf("after cleanup: %+v", c.Stats())
	}
	mu.Lock()
	if len(events) != 2 || events[0].reason != ReasonExpired || events[1].reason != ReasonExpired {
		t.Fatalf("events %v", events)
	}
	mu.Unlock()
	// Delete of an expired entry: reported absent, evicted as expired.
	must(c.SetWithTTL([]byte("d"), []byte("v"), time.Second))
	clock.Advance(2 * time.Second)
	if c.Delete([]byte("d")) {
		t.Fatal("Delete of an expired entry reported true")
	}
}

// The background goroutine removes expired entries and stops on Close.
func TestCleanupGoroutine(t *testing.T) {
	clock := &fakeClock{}
	before := runtime.NumGoroutine()
	c, err := New(Config{MaxBytes: 1 << 20, clock: clock.Now, CleanupInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if err := c.SetWithTTL(fmt.Appendf(nil, "k%d", i), []byte("v"), time.Second); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(time.Second)
	deadline := time.Now().Add(10 * time.Second)
	for c.Len() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("cleanup left %d entries", c.Len())
		}
		time.Sleep(time.Millisecond)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatal("cleanup goroutine still running after Close")
		}
		time.Sleep(time.Millisecond)
	}
	if err := c.Set([]byte("k"), nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Set after Close: %v", err)
	}
	if _, ok := c.Get(nil, []byte("k1")); ok || c.Delete([]byte("k1")) || c.Len() != 0 {
		t.Fatal("closed cache still answers")
	}
	c.Reset()
	c.DeleteExpired()
	_ = c.Stats()
}

// OnEvict runs without the shard lock: it may call back into the cache,
// and a panicking callback leaves the cache usable.
func TestCallbackReentry(t *testing.T) {
	var c *Cache
	var calls atomic.Int64
	c = newTest(t, Config{MaxBytes: 32 << 10, Shards: 1, OnEvict: func(k, v []byte, r EvictReason) {
		calls.Add(1)
		c.Get(nil, k)
		c.Has([]byte("x"))
		c.Delete([]byte("other"))
		_ = c.Stats()
		if r == ReasonNoSpace && calls.Load()%5 == 0 {
			if err := c.Set([]byte("from-callback"), []byte("v")); err != nil {
				panic(err)
			}
		}
		if string(k) == "boom" {
			panic("callback panic")
		}
	}})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 5000 {
			if err := c.Set(fmt.Appendf(nil, "key%d", i), make([]byte, 40)); err != nil {
				t.Error(err)
				return
			}
		}
		c.Delete([]byte("key4999"))
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("deadlock: callback re-entering the cache")
	}
	if calls.Load() == 0 {
		t.Fatal("no callbacks")
	}
	if err := c.Set([]byte("boom"), []byte("v")); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("callback panic did not propagate")
			}
		}()
		c.Delete([]byte("boom"))
	}()
	if err := c.Set([]byte("after"), []byte("panic")); err != nil {
		t.Fatal(err)
	}
	mustGet(t, c, []byte("after"), []byte("panic"))
}

// Get and Set allocate nothing, and a large cache is a handful of heap
// objects, not one per entry.
func TestNoAllocations(t *testing.T) { forLayouts(t, testNoAllocations) }

func testNoAllocations(t *testing.T, l layout) {
	c := newTest(t, Config{MaxBytes: 64 << 20, Index: l.index, HugeIndex: l.huge})
	key, small, big := []byte("key"), []byte("v"), make([]byte, 100)
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(1000, func() {
		_ = c.Set(key, small)
		_ = c.Set([]byte("big"), big)
		buf, _ = c.Get(buf[:0], key)
		buf, _ = c.Get(buf[:0], []byte("big"))
		buf, _ = c.Get(buf[:0], []byte("absent"))
	}); n != 0 {
		t.Fatalf("%v allocations per Set/Get round", n)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	k := make([]byte, 0, 16)
	for i := range 300000 {
		k = fmt.Appendf(k[:0], "k%d", i)
		if err := c.Set(k, k); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if c.Len() < 250000 {
		t.Fatalf("only %d entries held", c.Len())
	}
	if grew := int64(after.HeapObjects) - int64(before.HeapObjects); grew > 1000 {
		t.Fatalf("heap objects grew by %d for %d entries", grew, c.Len())
	}
}

// New keys the policy does not admit on a hot/cold get-or-set workload
// (20% of the keys take 80% of the accesses, the cache holds 10% of the
// keys) are counted in Stats.Rejections and each reported to OnEvict with
// ReasonRejected, and the cache stays within its limit.
func TestRejectionsReported(t *testing.T) {
	const keys = 20000
	var rejected int
	c := newTest(t, Config{MaxBytes: 1 << 20, Shards: 4, MaxEntries: keys / 10,
		OnEvict: func(_, _ []byte, r EvictReason) {
			if r == ReasonRejected {
				rejected++
			}
		}})
	rng := rand.New(rand.NewPCG(5, 5))
	val := make([]byte, 400)
	for range 300000 {
		k := uint64(rng.IntN(keys * 8 / 10))
		if rng.IntN(10) < 8 {
			k = uint64(rng.IntN(keys * 2 / 10))
		}
		key := fmt.Appendf(nil, "k%d", k)
		if _, ok := c.Get(nil, key); !ok {
			if err := c.Set(key, val); err != nil {
				t.Fatal(err)
			}
		}
	}
	st := c.Stats()
	if st.Rejections == 0 || int(st.Rejections) != rejected {
		t.Fatalf("%d rejections counted, %d reported to OnEvict", st.Rejections, rejected)
	}
	if st.BytesUsed > st.Capacity || st.Capacity > 1<<20 {
		t.Fatalf("over its limit: %+v", st)
	}
}

// GetBatch returns what Get returns for every key, in order, with forced
// collisions, misses, TTL expiry and values on the ring and inline, and
// misses everything after Close.
func TestGetBatch(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"default", Config{}},
		{"compact", Config{Index: CompactIndex}},
		{"collisions", Config{hash: func(k []byte) uint64 {
			if len(k) == 0 {
				return 1
			}
			return uint64(k[len(k)-1]%4) << 60
		}}},
		{"compact-collisions", Config{Index: CompactIndex, hash: func(k []byte) uint64 {
			if len(k) == 0 {
				return 1
			}
			return uint64(k[len(k)-1]%4) << 60
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &fakeClock{}
			tc.cfg.clock = clock.Now
			c := newTest(t, tc.cfg)
			var keys [][]byte
			for i := range 300 {
				k := fmt.Appendf(nil, "key%d", i)
				keys = append(keys, k)
				switch i % 5 {
				case 0: // absent
				case 1:
					_ = c.Set(k, []byte("v")) // inline
				case 2:
					_ = c.Set(k, bytes.Repeat(k, 10)) // ring
				case 3:
					_ = c.SetWithTTL(k, k, time.Second) // expires below
				case 4:
					_ = c.SetWithTTL(k, k, time.Hour)
				}
			}
			keys = append(keys, nil, keys[7]) // the empty key, a repeat
			clock.Advance(2 * time.Second)
			before := c.Stats()
			next := 0
			err := c.GetBatch(keys, func(i int, v []byte, ok bool) {
				if i != next {
					t.Fatalf("callback for %d, want %d", i, next)
				}
				next++
				want, wok := c.Get(nil, keys[i]) // fn may call back into the cache
				if ok != wok || !bytes.Equal(v, want) {
					t.Fatalf("key %q: GetBatch %q %v, Get %q %v", keys[i], v, ok, want, wok)
				}
				if i%5 == 3 && i < 300 && ok {
					t.Fatalf("key %q: expired entry returned", keys[i])
				}
			})
			if err != nil || next != len(keys) {
				t.Fatalf("GetBatch: err %v after %d of %d callbacks", err, next, len(keys))
			}
			after := c.Stats()
			if got := (after.Hits + after.Misses) - (before.Hits + before.Misses); got != 2*uint64(len(keys)) {
				t.Fatalf("counted %d lookups, want %d", got, 2*len(keys))
			}
			// A custom hash costs an allocation per key, and the race
			// detector makes sync.Pool drop buffers at random.
			if n := testing.AllocsPerRun(100, func() { _ = c.GetBatch(keys, func(int, []byte, bool) {}) }); n != 0 && tc.cfg.hash == nil && !raceEnabled {
				t.Fatalf("%v allocations per GetBatch", n)
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			_ = c.GetBatch(keys, func(i int, _ []byte, ok bool) {
				if ok {
					t.Fatalf("hit for %q after Close", keys[i])
				}
			})
		})
	}
}

// TestRelocationBudget fills a shard with large entries that were all
// read, so CLOCK would give each a second chance, and sets more of the
// same size: a Set may copy at most its own size in second chances (one
// entry here), and the entries moved must read back whole (the copy runs
// in pieces around the ring's end).
func TestRelocationBudget(t *testing.T) {
	// Without contests: a victim a contest keeps also moves to the head,
	// once per Set, outside the budget of second chances.
	defer func(a ablation) { ablated = a }(ablated)
	ablated = ablSketch
	c := newTest(t, Config{MaxBytes: 4 << 20, Shards: 1})
	val := func(i int) []byte { return bytes.Repeat([]byte{byte(i)}, 200<<10) }
	key := func(p string, i int) []byte { return fmt.Appendf(nil, "%s%03d", p, i) }
	readAll := func() {
		for i := range 100 {
			k := key("k", i)
			if got, ok := c.Get(nil, k); ok && !bytes.Equal(got, val(i)) {
				t.Fatalf("%s read back wrong", k)
			}
		}
	}
	for i := 0; c.Stats().EvictionsNoSpace == 0; i++ {
		if err := c.Set(key("k", i), val(i)); err != nil {
			t.Fatal(err)
		}
		readAll()
	}
	total := uint64(0)
	for round := range 30 {
		rel := c.Stats().Relocations
		if err := c.Set(key("n", round), val(round)); err != nil {
			t.Fatal(err)
		}
		moved := c.Stats().Relocations - rel
		if moved > 1 {
			t.Fatalf("round %d: a Set of %d bytes gave %d second chances to entries of its size", round, len(val(round)), moved)
		}
		total += moved
		readAll()
	}
	if total == 0 {
		t.Fatal("no second chances at all: the test does not exercise the budget")
	}
}

// With HugeIndex each shard's table starts at its largest size and never
// grows (a growth gives back the old table's pages, which would split
// the huge pages around them), and the index is charged to MaxBytes as
// without it: the same capacity, the same entries held.
func TestHugeIndexFullSize(t *testing.T) {
	for _, index := range []IndexLayout{InlineIndex, CompactIndex} {
		var caps [2]uint64
		for k, huge := range []bool{false, true} {
			c := newTest(t, Config{MaxBytes: 16 << 20, MaxEntries: 100000, Index: index, HugeIndex: huge})
			for i := range 100000 {
				if err := c.Set([]byte(fmt.Sprint(i)), []byte("v")); err != nil {
					t.Fatal(err)
				}
			}
			st := c.Stats()
			caps[k] = st.Capacity
			if huge && st.IndexGrowths != 0 {
				t.Errorf("%v, HugeIndex: %d index growths, want 0", index, st.IndexGrowths)
			}
			if !huge && st.IndexGrowths == 0 {
				t.Errorf("%v: no index growth while filling 100000 keys", index)
			}
			if st.Entries < 99000 {
				t.Errorf("%v, HugeIndex %v: %d entries held of 100000", index, huge, st.Entries)
			}
		}
		if caps[0] != caps[1] {
			t.Errorf("%v: capacity %d with HugeIndex, %d without", index, caps[1], caps[0])
		}
	}
}

// TestHomeSlotLast checks the flag that makes GetBatch prefetch a second
// line: set exactly for a home slot that ends its cache line and has more
// of the table after it, for both slot sizes, with the address inside the
// published table.
func TestHomeSlotLast(t *testing.T) {
	for _, layout := range []IndexLayout{InlineIndex, CompactIndex} {
		t.Run(layout.String(), func(t *testing.T) {
			c := newTest(t, Config{MaxBytes: 1 << 20, Shards: 1, Index: layout})
			s := &c.shards[0]
			base := uintptr(unsafe.Pointer(s.pfIndex.Load()))
			n := min(s.pfLen.Load(), c.maxSlots)
			perLine := uint64(lineBytes) >> c.shift
			seen := map[bool]int{}
			for _, hh := range []uint64{0, 1, 1<<hashBits - 1} {
				for k := range uint64(4096) {
					h := (hh + k*0x9e3779b97f4a7c15>>(64-hashBits)) << (64 - hashBits)
					addr, last, ok := c.homeSlot(s, h)
					if !ok {
						t.Fatal("no published table")
					}
					i := uint64(addr-base) >> c.shift
					if i >= n {
						t.Fatalf("hash %#x: slot %d past the table's %d", h, i, n)
					}
					if want := i%perLine == perLine-1 && i+1 < n; last != want {
						t.Fatalf("hash %#x: slot %d of %d, last %v, want %v", h, i, n, last, want)
					}
					seen[last]++
				}
			}
			if seen[true] == 0 || seen[false] == 0 {
				t.Fatalf("the hashes tried never gave both answers: %v", seen)
			}
			// The table's last slot ends a line but has nothing after it.
			hh := ((n-1)<<hashBits + n - 1) / n // the least hash bits homed there
			addr, last, _ := c.homeSlot(s, hh<<(64-hashBits))
			if i := uint64(addr-base) >> c.shift; i != n-1 || last {
				t.Fatalf("last slot: got slot %d (want %d), last %v", i, n-1, last)
			}
		})
	}
}

// Large values sit on a valueAlign boundary of the ring wherever they are
// written: by Set, and moved by a second chance or from the window to the
// main queue, the ring full or not (padValue). Every value read back is
// exact, through deletes and overwrites, and the padding records are
// skipped as dead entries.
func TestLargeValuesAligned(t *testing.T) {
	for _, seed := range []uint64{7, 8} {
		t.Run(fmt.Sprint("seed-", seed), func(t *testing.T) {
			c := newTest(t, Config{MaxBytes: 8 << 20, MaxEntries: 200, MaxEntrySize: 128 << 10, Shards: 1})
			r := rand.New(rand.NewPCG(seed, 0))
			const keys = 400
			vals := make([][]byte, keys)
			for i := range vals {
				// Key lengths and value lengths vary, so that without
				// padding the values would start at any offset.
				vals[i] = make([]byte, alignMin+r.IntN(60<<10)+i%7)
				for j := range vals[i] {
					vals[i][j] = byte(i*31 + j)
				}
			}
			key := func(i int) []byte { return fmt.Appendf(nil, "k%0*d", 1+i%5, i) }
			var checked, misaligned int
			var buf []byte
			for n := range 20000 {
				i := r.IntN(keys)
				if n%5 != 0 {
					i = r.IntN(keys / 4) // a hot quarter, so entries get read and moved
				}
				switch {
				case n%53 == 0:
					c.Delete(key(i))
					continue
				case n%71 == 0:
					// An overwrite of another size takes a new place
					// (and padding) at the head.
					vals[i] = vals[i][:len(vals[i])-1-r.IntN(100)]
					if err := c.Set(key(i), vals[i]); err != nil {
						t.Fatal(err)
					}
					continue
				}
				var ok bool
				buf, ok = c.Get(buf[:0], key(i))
				if !ok {
					if err := c.Set(key(i), vals[i]); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if !bytes.Equal(buf, vals[i]) {
					t.Fatalf("request %d: %s read back wrong (%d bytes, want %d)", n, key(i), len(buf), len(vals[i]))
				}
				h := c.sum(key(i))
				s := c.shardFor(h)
				e, found := s.lookup(key(i), h)
				if !found {
					t.Fatalf("request %d: %s hit but not found", n, key(i))
				}
				q := &s.q[e.q]
				if e.off+e.hl+e.kl+e.vl > q.size() {
					continue // the value wraps around the ring's end
				}
				checked++
				if (uintptr(unsafe.Pointer(&q.ring[0]))+uintptr(e.off+e.hl+e.kl))%valueAlign != 0 {
					misaligned++
				}
			}
			st := c.Stats()
			if st.Relocations+st.Promotions == 0 || st.EvictionsNoSpace == 0 {
				t.Fatalf("no entries moved (%d) or evicted (%d): the test does not reach relocate", st.Relocations+st.Promotions, st.EvictionsNoSpace)
			}
			// Only a Set into a ring without room for the padding too goes
			// unaligned; moves within the main queue always have it.
			if checked < 1000 || misaligned*20 > checked {
				t.Fatalf("%d of %d values read were not on a %d-byte boundary", misaligned, checked, valueAlign)
			}
		})
	}
}
