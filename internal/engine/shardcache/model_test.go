package shardcache

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a monotonic clock tests move by hand.
type fakeClock struct{ ns atomic.Int64 }

func (f *fakeClock) Now() time.Duration      { return time.Duration(f.ns.Load()) }
func (f *fakeClock) Advance(d time.Duration) { f.ns.Add(int64(d)) }

// modelEntry is what the map model holds for a key.
type modelEntry struct {
	val []byte
	exp int64 // 0: never expires
}

type event struct {
	key, val []byte
	reason   EvictReason
}

const modelKeys = 33 // key 32 is the empty key

func modelKey(i int) []byte {
	if i == modelKeys-1 {
		return []byte{}
	}
	return []byte(fmt.Sprintf("k%d", i))
}

// modelValue builds a value of n bytes that differs for every version.
func modelValue(version uint64, n int) []byte {
	v := make([]byte, n)
	for i := range v {
		v[i] = byte(version) + byte(i)
	}
	if n >= 8 {
		binary.LittleEndian.PutUint64(v, version)
	}
	return v
}

// runModel decodes data into a cache configuration and a sequence of
// operations, runs them against a Cache and a plain map, and fails on any
// difference. Evictions are mirrored into the model through OnEvict, so
// the comparison is exact: a hit must return the model's value, a miss is
// only allowed for keys the model does not hold (or holds expired).
func runModel(t *testing.T, data []byte) {
	if len(data) > 64 {
		// Long inputs run under one index configuration, picked by
		// their last byte, to keep the race-enabled run short.
		runModelLayout(t, data, layouts[int(data[len(data)-1])%len(layouts)])
		return
	}
	for _, l := range layouts {
		runModelLayout(t, data, l)
	}
}

func runModelLayout(t *testing.T, data []byte, l layout) {
	if len(data) < 2 {
		return
	}
	conf := data[0]
	data = data[1:]
	clock := &fakeClock{}
	var events []event
	cfg := Config{
		MaxBytes:        []int64{16 << 10, 40 << 10, 96 << 10, 1 << 20}[conf>>3&3],
		Shards:          []int{1, 4, 256, 0}[conf>>5&3],
		clock:           clock.Now,
		CleanupInterval: -1,
		Index:           l.index,
		HugeIndex:       l.huge,
		// The entry cap, from the input's length: none, a single small
		// shard, several shards publishing their counts in batches.
		MaxEntries: []int{0, 0, 10, 2000}[len(data)%4],
		OnEvict: func(k, v []byte, r EvictReason) {
			events = append(events, event{bytes.Clone(k), bytes.Clone(v), r})
		},
	}
	switch conf >> 1 & 3 {
	case 1:
		cfg.hash = func([]byte) uint64 { return 0x9e3779b97f4a7c15 } // everything collides
	case 2:
		cfg.hash = func(k []byte) uint64 { // a few distinct hashes
			if len(k) == 0 {
				return 7
			}
			return uint64(k[len(k)-1]%3) * 0x9e3779b97f4a7c15
		}
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	model := map[string]modelEntry{}
	var version uint64
	live := func(k []byte) (modelEntry, bool) {
		m, ok := model[string(k)]
		if ok && m.exp != 0 && m.exp <= clock.ns.Load() {
			return m, false
		}
		return m, ok
	}
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	for step := 0; len(data) > 0; step++ {
		op := next()
		kb := next()
		key := modelKey(int(kb) % modelKeys)
		events = events[:0]
		allowed := ReasonNoSpace // the reasons op may produce besides expiry
		switch op % 8 {
		case 0, 7: // set, optionally with a TTL
			b := int(next())
			n := b
			if b >= 200 {
				n = (b - 200) * 300 // up to 16,500 bytes: beyond small rings
			}
			version++
			val := modelValue(version, n)
			if op%8 == 7 && n%5 == 0 {
				val = nil
			}
			var ttl time.Duration
			if tb := next(); tb%4 == 0 {
				ttl = time.Duration(tb) * time.Millisecond
			}
			lenBefore := c.Len()
			err := c.SetWithTTL(key, val, ttl)
			if len(key)+len(val) > c.MaxEntrySize() {
				if !errors.Is(err, ErrEntryTooLarge) {
					t.Fatalf("step %d: Set of %d bytes over max %d: err %v", step, len(key)+len(val), c.MaxEntrySize(), err)
				}
				if len(events) != 0 || c.Len() != lenBefore {
					t.Fatalf("step %d: rejected Set evicted %d entries", step, len(events))
				}
				continue
			}
			if err != nil {
				t.Fatalf("step %d: Set: %v", step, err)
			}
			m := modelEntry{val: bytes.Clone(val)}
			if ttl > 0 {
				m.exp = clock.ns.Load() + int64(ttl)
			}
			model[string(key)] = m
		case 1: // get
			dst := []byte("pre")
			got, ok := c.Get(dst, key)
			m, want := live(key)
			if ok != want {
				t.Fatalf("step %d: Get(%q) found=%v, model %v", step, key, ok, want)
			}
			if !bytes.Equal(got[:3], []byte("pre")) {
				t.Fatalf("step %d: Get clobbered dst", step)
			}
			if ok && !bytes.Equal(got[3:], m.val) {
				t.Fatalf("step %d: Get(%q) wrong value (len %d, want %d)", step, key, len(got)-3, len(m.val))
			}
		case 2: // delete
			allowed = ReasonDeleted
			_, want := live(key)
			if got := c.Delete(key); got != want {
				t.Fatalf("step %d: Delete(%q) = %v, model %v", step, key, got, want)
			}
			if want && (len(events) != 1 || events[0].reason != ReasonDeleted) {
				t.Fatalf("step %d: Delete fired %v", step, events)
			}
		case 3: // has
			if _, want := live(key); c.Has(key) != want {
				t.Fatalf("step %d: Has(%q) = %v, model %v", step, key, !want, want)
			}
		case 4: // advance the clock
			clock.Advance(time.Duration(op) * 3 * time.Millisecond)
		case 5: // remove expired entries
			c.DeleteExpired()
			for _, e := range events {
				if e.reason != ReasonExpired {
					t.Fatalf("step %d: DeleteExpired fired %v", step, e.reason)
				}
			}
			for k, m := range model {
				if m.exp != 0 && m.exp <= clock.ns.Load() && !containsKey(events, k) {
					t.Fatalf("step %d: DeleteExpired left expired %q", step, k)
				}
			}
		case 6:
			if op%64 == 6 {
				c.Reset()
				clear(model)
				break
			}
			// A burst of small entries under fresh keys: fills the index
			// up to its limit (growth, then eviction for index space).
			for range int(kb) % 64 * 2 {
				version++
				k := []byte(fmt.Sprintf("w%d", version))
				v := modelValue(version, int(version%4))
				if err := c.Set(k, v); err != nil {
					t.Fatalf("step %d: Set: %v", step, err)
				}
				model[string(k)] = modelEntry{val: v}
				if len(events) > 0 {
					// Mirror evictions as they happen, so that a key set in
					// this burst and evicted later in it stays consistent.
					if !applyEvents(t, step, model, events, clock.ns.Load(), allowed) {
						return
					}
					events = events[:0]
				}
			}
		}
		applyEvents(t, step, model, events, clock.ns.Load(), allowed)
		if c.Len() != len(model) {
			t.Fatalf("step %d: Len %d, model %d", step, c.Len(), len(model))
		}
		st := c.Stats()
		if st.BytesUsed > st.Capacity || st.Capacity > uint64(cfg.MaxBytes) || st.Entries != uint64(len(model)) {
			t.Fatalf("step %d: stats out of bounds: %+v (limit %d, model %d)", step, st, cfg.MaxBytes, len(model))
		}
		if cfg.MaxEntries > 0 && st.Entries > capBound(c, cfg.MaxEntries) {
			t.Fatalf("step %d: %d entries held, MaxEntries %d", step, st.Entries, cfg.MaxEntries)
		}
	}
	// Every key the model holds must still read back.
	for k, m := range model {
		got, ok := c.Get(nil, []byte(k))
		if _, want := live([]byte(k)); ok != want || (ok && !bytes.Equal(got, m.val)) {
			t.Fatalf("final: Get(%q) = %v, model live %v", k, ok, want)
		}
	}
}

// applyEvents checks OnEvict calls against the model and removes the
// evicted keys from it.
func applyEvents(t *testing.T, step int, model map[string]modelEntry, events []event, now int64, allowed EvictReason) bool {
	t.Helper()
	for _, e := range events {
		m, ok := model[string(e.key)]
		if !ok {
			t.Fatalf("step %d: OnEvict(%q, %v) for a key the model does not hold", step, e.key, e.reason)
		}
		if !bytes.Equal(m.val, e.val) {
			t.Fatalf("step %d: OnEvict(%q, %v) with a wrong value", step, e.key, e.reason)
		}
		expired := m.exp != 0 && m.exp <= now
		switch {
		case e.reason == ReasonExpired && !expired:
			t.Fatalf("step %d: %q evicted as expired before its time", step, e.key)
		case e.reason != ReasonExpired && e.reason != allowed && (e.reason != ReasonRejected || allowed != ReasonNoSpace):
			t.Fatalf("step %d: %q evicted with reason %v", step, e.key, e.reason)
		}
		delete(model, string(e.key))
	}
	return true
}

func containsKey(events []event, k string) bool {
	for _, e := range events {
		if string(e.key) == k {
			return true
		}
	}
	return false
}

// FuzzCacheModel is the differential fuzz test; `go test` runs it on its
// seed corpus (hand-written cases plus long pseudo-random op streams).
func FuzzCacheModel(f *testing.F) {
	f.Add([]byte{0, 0, 1, 10, 0, 1, 1})
	f.Add([]byte{2, 0, 1, 10, 0, 0, 2, 20, 0, 1, 1, 1, 2, 2, 1, 1, 2})             // constant hash
	f.Add([]byte{0, 0, 32, 0, 0, 1, 32, 2, 32, 1, 32})                             // empty key and value
	f.Add([]byte{0, 0, 1, 255, 0, 0, 2, 241, 0, 1, 1, 1, 2})                       // too large, at the edge
	f.Add([]byte{0, 0, 1, 30, 4, 4, 0, 4, 0, 1, 1, 5, 0, 1, 1})                    // TTL then expiry
	f.Add([]byte{1, 0, 1, 150, 0, 0, 2, 150, 0, 0, 3, 150, 0, 0, 4, 150, 0, 1, 1}) // large values
	// Values of 16.5 KB in one 1 MiB shard, each set, read at once (so
	// it moves on from the window) and read again with every other key: a
	// Set's relocation budget runs out of bytes before moves, and the
	// entry from the window is evicted instead of a read one (keepRead).
	large := []byte{3 << 3}
	for i := range 100 {
		k := byte(i * 7 % modelKeys)
		large = append(large, 0, k, 255, 1, 1, k)
		for j := range modelKeys {
			large = append(large, 1, byte(j))
		}
	}
	for (len(large)-1)%4 > 1 || (len(large)-1)/4%3 != 0 {
		large = append(large, 3) // Has, no effect on the cache
	}
	f.Add(large)
	// A loop over every key, get then set, through one shard of 10
	// entries: the keys the ghost sends to the door reach the main
	// queue's tail unread, so that door keys at the cap come to contest
	// the victim, and those that lose enter the window (doorCheck).
	loop := []byte{0}
	for range 30 {
		for k := range byte(modelKeys - 1) {
			loop = append(loop, 1, k, 0, k, 10, 1)
		}
	}
	for (len(loop)-1)%4 != 2 || (len(loop)-1)/4%3 != 0 {
		loop = append(loop, 3)
	}
	f.Add(loop)
	// The same loop over 24 keys with a burst after every fourth: one of
	// the other keys set and read at once, so that it leaves the window
	// read and is on trial in the main queue, where the loop's window
	// exits and door keys contest it (trialDiscount).
	bursts := []byte{0}
	for r := range 30 {
		for k := range byte(24) {
			bursts = append(bursts, 1, k, 0, k, 10, 1)
			if k%4 == 3 {
				b := 24 + (byte(r)*6+k/4)%8
				bursts = append(bursts, 0, b, 10, 1, 1, b)
			}
		}
	}
	for (len(bursts)-1)%4 != 2 || (len(bursts)-1)/4%3 != 0 {
		bursts = append(bursts, 3)
	}
	f.Add(bursts)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 48 {
		b := make([]byte, 3000)
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		b[0] = byte(i * 5)
		// Bias toward sets and gets so that the rings fill and wrap.
		for j := 1; j+3 < len(b); j += 4 {
			if r := rng.IntN(10); r < 4 {
				b[j] = byte(rng.IntN(32)) * 8
			} else if r < 7 {
				b[j] = byte(rng.IntN(32))*8 + 1
			}
		}
		f.Add(b)
	}
	f.Fuzz(runModel)
}
