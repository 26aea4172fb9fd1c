package shardcache

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// The insert path's shortcuts against what they stand for: the counters
// written out against their loop, the slot a lookup's miss hands to the
// insert against the probe run's invariant, the stub's one store against
// its decoding, and the sketch word Set prefetches against the one the
// policy then loads.

// minCounterLoop and incrementedLoop are the sketch's counter steps as
// loops over the four shifts, the reference for the written-out ones.
func minCounterLoop(w uint64, sh [4]uint) uint64 {
	m := uint64(counterMax)
	for _, s := range sh {
		m = min(m, w>>s&counterMax)
	}
	return m
}

func incrementedLoop(w uint64, sh [4]uint) uint64 {
	m := minCounterLoop(w, sh)
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

// TestCountersMatchLoop: minCounter and incremented agree with the loops
// on random words, on the shifts place gives (distinct) and on any four
// nibbles (repeats included), and on words whose counters are all equal
// or saturated.
func TestCountersMatchLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 1))
	var k sketch
	k.words = make([]uint64, 1)
	for n := range 200000 {
		w := r.Uint64()
		switch n % 4 {
		case 1:
			w = 0x1111111111111111 * (r.Uint64() & 15) // every counter equal
		case 2:
			w |= 0x8888888888888888 // counters of 8 and above, some saturated
		}
		var sh [4]uint
		if n%2 == 0 {
			_, sh = k.place(r.Uint64() >> (64 - hashBits))
		} else {
			for i := range sh {
				sh[i] = uint(r.IntN(16)) * 4
			}
		}
		if got, want := minCounter(w, sh), minCounterLoop(w, sh); got != want {
			t.Fatalf("minCounter(%#x, %v) = %d, the loop gives %d", w, sh, got, want)
		}
		if got, want := incremented(w, sh), incrementedLoop(w, sh); got != want {
			t.Fatalf("incremented(%#x, %v) = %#x, the loop gives %#x", w, sh, got, want)
		}
	}
}

// probeRunsIntact reports the first slot of s's index whose probe run
// (from its home slot to it) has a free slot in it, which linear probing
// never leaves: a lookup would stop at the hole and miss the entry.
func probeRunsIntact(s *shard) error {
	idx := s.index
	n := idx.n
	for j := range n {
		w := *idx.meta(j)
		if w&slotUsed == 0 {
			continue
		}
		for i := ((w & slotHashMask >> 32) * n) >> hashBits; i != j; i = (i + 1) % n {
			if *idx.meta(i)&slotUsed == 0 {
				return fmt.Errorf("slot %d: free slot %d in its probe run", j, i)
			}
		}
	}
	return nil
}

// TestInsertTakesFirstFreeSlot: with hashes forced into a few long probe
// runs, random inserts, overwrites (in place, inline to ring and back) and
// deletes, at the entry cap (evictions between a lookup and its insert)
// and through the index's growth, never leave a hole in a probe run, and
// every key holds its last value.
func TestInsertTakesFirstFreeSlot(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"grows", Config{Shards: 1}},
		{"at-cap", Config{Shards: 1, MaxEntries: 200}},
		{"compact-at-cap", Config{Shards: 1, MaxEntries: 200, Index: CompactIndex}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.hash = func(k []byte) uint64 {
				// Eight home slots: long runs that wrap and shift.
				return uint64(k[len(k)-1]%8) << 61
			}
			c := newTest(t, tc.cfg)
			r := rand.New(rand.NewPCG(47, 2))
			model := map[string]string{}
			for op := range 20000 {
				k := fmt.Sprintf("k%d", r.IntN(600))
				switch r.IntN(4) {
				case 0:
					c.Delete([]byte(k))
					delete(model, k)
				default:
					v := fmt.Sprintf("v%d", op)
					if r.IntN(3) == 0 {
						v += string(make([]byte, 20+r.IntN(40))) // on the ring
					}
					if err := c.Set([]byte(k), []byte(v)); err != nil {
						t.Fatal(err)
					}
					model[k] = v
				}
				if op%97 == 0 {
					if err := probeRunsIntact(&c.shards[0]); err != nil {
						t.Fatalf("after op %d: %v", op, err)
					}
				}
			}
			if err := probeRunsIntact(&c.shards[0]); err != nil {
				t.Fatal(err)
			}
			held := 0
			for k, v := range model {
				got, ok := c.Get(nil, []byte(k))
				if ok {
					held++
					if string(got) != v {
						t.Fatalf("%s = %q, want %q", k, got, v)
					}
				}
			}
			if tc.cfg.MaxEntries == 0 && held != len(model) {
				t.Fatalf("%d of %d keys held without a cap", held, len(model))
			}
		})
	}
}

// TestStubStore: putStub writes what writeEntry's general case writes for
// a stub, which decodes to the stub's flag and hash bits.
func TestStubStore(t *testing.T) {
	c := newTest(t, Config{Shards: 1})
	s := &c.shards[0]
	q := &s.q[main]
	for _, hh := range []uint64{0, 1, 0x7fffff, 0x5a5a5a} {
		q.putStub(64, hh)
		var want [stubSize]byte
		copy(want[:], q.ring[64:64+stubSize])
		clear(q.ring[64 : 64+stubSize])
		// The general case writes a stub that wraps; at 64 it does not,
		// so its bytes can be compared with putStub's.
		s.writeEntry(q, 64, []byte("k"), []byte("v"), noExpiry, hh)
		if got := q.ring[64 : 64+stubSize]; string(got) != string(want[:]) {
			t.Fatalf("hh %#x: putStub wrote % x, writeEntry % x", hh, want, got)
		}
		e := q.decode(64)
		if !e.stub || e.hh != hh || e.flags != flagStub || e.size() != stubSize {
			t.Fatalf("hh %#x: decoded %+v", hh, e)
		}
	}
}

// TestSketchPrefetchWord: a shard publishes its sketch once the policy
// counts in it and withdraws it on Reset and Close, and the word Set
// prefetches is the word the policy loads for the key.
func TestSketchPrefetchWord(t *testing.T) {
	c := newTest(t, Config{Shards: 1, MaxEntries: 1000})
	s := &c.shards[0]
	for i := 0; !s.pol.sketching; i++ {
		if s.pfSketch.Load() != nil {
			t.Fatal("sketch published before the policy counts in it")
		}
		if i > 1000 {
			t.Fatal("the sketch never started")
		}
		_ = c.Set(fmt.Appendf(nil, "k%d", i), []byte("v"))
	}
	w := s.pfSketch.Load()
	if w != unsafe.SliceData(s.pol.sketch.words) {
		t.Fatalf("published %p, the sketch starts at %p", w, unsafe.SliceData(s.pol.sketch.words))
	}
	for hh := uint64(0); hh < 1<<hashBits; hh += 9973 {
		p, _ := s.pol.sketch.place(hh)
		if got := &s.pol.sketch.words[wordOf(mix(hh), c.sketchLen)]; got != p {
			t.Fatalf("hh %#x: prefetched word %p, the policy's %p", hh, got, p)
		}
	}
	c.Reset()
	if s.pfSketch.Load() != nil {
		t.Fatal("sketch still published after Reset")
	}
	for i := 0; !s.pol.sketching && i < 2000; i++ {
		_ = c.Set(fmt.Appendf(nil, "k%d", i), []byte("v"))
	}
	if s.pfSketch.Load() == nil {
		t.Fatal("sketch not published again after Reset")
	}
	c.Close()
	if s.pfSketch.Load() != nil {
		t.Fatal("sketch still published after Close")
	}
}
