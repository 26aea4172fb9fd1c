package trace

import (
	"math/rand/v2"
	"testing"
)

// zipfKeys draws n requests over objects random 64-bit IDs, zipf(1).
func zipfKeys(n, objects int) []uint64 {
	rng := rand.New(rand.NewPCG(1, 2))
	ids := make([]uint64, objects)
	for i := range ids {
		ids[i] = rng.Uint64()
	}
	z := rand.NewZipf(rng, 1.0001, 1, uint64(objects-1))
	out := make([]uint64, n)
	for i := range out {
		out[i] = ids[z.Uint64()]
	}
	return out
}

// BenchmarkDenseNumbering compares the forward pass's numbering of
// object IDs by idMap with a Go map, on zipf requests over 1M objects.
func BenchmarkDenseNumbering(b *testing.B) {
	keys := zipfKeys(4_000_000, 1_000_000)
	b.Run("impl=idmap", func(b *testing.B) {
		for b.Loop() {
			m := newIDMap()
			for _, k := range keys {
				m.number(k)
			}
		}
		b.ReportMetric(float64(len(keys))*float64(b.N)/b.Elapsed().Seconds(), "req/s")
	})
	b.Run("impl=map", func(b *testing.B) {
		for b.Loop() {
			m := map[uint64]uint64{}
			for _, k := range keys {
				if _, ok := m[k]; !ok {
					m[k] = uint64(len(m))
				}
			}
		}
		b.ReportMetric(float64(len(keys))*float64(b.N)/b.Elapsed().Seconds(), "req/s")
	})
}

// idMap numbers keys as a Go map does, in order of first appearance,
// through its growth, for keys that share their low or their high
// halves, keys 0 and 2^64-1, sequential and random keys.
func TestIDMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var keys []uint64
	for i := uint64(0); i < 3000; i++ {
		keys = append(keys, i, i<<32, i<<32|7, ^i, rng.Uint64(), rng.Uint64()&0xffff)
	}
	for range 4 * len(keys) {
		keys = append(keys, keys[rng.IntN(len(keys))])
	}
	m := newIDMap()
	want := map[uint64]uint64{}
	for i, k := range keys {
		w, seen := want[k]
		if !seen {
			w = uint64(len(want))
			want[k] = w
		}
		got, added := m.number(k)
		if got != w || added == seen {
			t.Fatalf("key %d (%#x): number %d added %v, want %d added %v", i, k, got, added, w, !seen)
		}
	}
	if m.Len() != len(want) || len(m.slots) < m.Len() {
		t.Errorf("Len %d, %d slots; want %d keys", m.Len(), len(m.slots), len(want))
	}
}
