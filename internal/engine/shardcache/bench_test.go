package shardcache

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
)

// benchKeys is the working set of the benchmarks: fixed (never sized by
// b.N), generated once, outside every timed region.
const benchKeys = 1 << 20

var benchData struct {
	keys, vals [][]byte
	order      []uint32 // shuffled access order
}

func benchSetup(b *testing.B) {
	b.Helper()
	if benchData.keys != nil {
		return
	}
	keys := make([][]byte, benchKeys)
	vals := make([][]byte, benchKeys)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("key_%d", i))
		vals[i] = []byte(fmt.Sprintf("val_%d", i))
	}
	order := make([]uint32, benchKeys)
	for i := range order {
		order[i] = uint32(i)
	}
	rand.New(rand.NewPCG(1, 1)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	benchData.keys, benchData.vals, benchData.order = keys, vals, order
}

// benchCache returns a cache sized like cachebench's budget (twice the
// data plus 48 bytes per entry), filled with every key when fill is set.
func benchCache(b *testing.B, fill bool) *Cache {
	b.Helper()
	benchSetup(b)
	c, err := New(Config{MaxBytes: benchKeys * (20 + 48) * 2})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	if fill {
		for i, k := range benchData.keys {
			if err := c.Set(k, benchData.vals[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
	return c
}

// BenchmarkGet is a random lookup over 1M present keys.
func BenchmarkGet(b *testing.B) {
	c := benchCache(b, true)
	keys, order := benchData.keys, benchData.order
	buf := make([]byte, 0, 64)
	var hits int
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		var ok bool
		buf, ok = c.Get(buf[:0], keys[order[i&(benchKeys-1)]])
		if ok {
			hits++
		}
	}
	b.StopTimer()
	if hits == 0 {
		b.Fatal("no hits")
	}
}

// BenchmarkGetMiss looks up absent keys (index probe only).
func BenchmarkGetMiss(b *testing.B) {
	c := benchCache(b, true)
	miss := make([][]byte, 4096)
	for i := range miss {
		miss[i] = []byte(fmt.Sprintf("absent_%d", i))
	}
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		buf, _ = c.Get(buf[:0], miss[i&4095])
	}
}

// BenchmarkSet inserts 1M fresh keys, then overwrites them (the working
// set stays fixed whatever b.N is).
func BenchmarkSet(b *testing.B) {
	c := benchCache(b, false)
	keys, vals, order := benchData.keys, benchData.vals, benchData.order
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		j := order[i&(benchKeys-1)]
		if err := c.Set(keys[j], vals[j]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGetParallel is BenchmarkGet from GOMAXPROCS goroutines.
func BenchmarkGetParallel(b *testing.B) {
	c := benchCache(b, true)
	keys, order := benchData.keys, benchData.order
	var seed atomic.Uint32
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := seed.Add(1) * 7919
		buf := make([]byte, 0, 64)
		for pb.Next() {
			buf, _ = c.Get(buf[:0], keys[order[i&(benchKeys-1)]])
			i++
		}
	})
}

// BenchmarkSetParallel is BenchmarkSet from GOMAXPROCS goroutines.
func BenchmarkSetParallel(b *testing.B) {
	c := benchCache(b, false)
	keys, vals, order := benchData.keys, benchData.vals, benchData.order
	var seed atomic.Uint32
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := seed.Add(1) * 7919
		for pb.Next() {
			j := order[i&(benchKeys-1)]
			if err := c.Set(keys[j], vals[j]); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
}

// BenchmarkFill is cachebench's insert phase: a fresh cache (sized for the
// keys, as the adapter configures it) filled with 1M keys in insertion
// order, index growth included. The figure is per key.
func BenchmarkFill(b *testing.B) {
	benchSetup(b)
	b.ReportAllocs()
	for b.Loop() {
		c, err := New(Config{MaxBytes: benchKeys * (20 + 48) * 2, MaxEntries: benchKeys, CleanupInterval: -1})
		if err != nil {
			b.Fatal(err)
		}
		for i, k := range benchData.keys {
			if err := c.Set(k, benchData.vals[i]); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		c.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchKeys, "ns/key")
}
