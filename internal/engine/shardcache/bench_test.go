package shardcache

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cachebench/cachebench/internal/engine/cputime"
)

// benchKeys is the working set of the benchmarks: fixed (never sized by
// b.N), generated once, outside every timed region.
const benchKeys = 1 << 20

// benchData holds the keys and values by index, and the request keys and
// their values in access order: each a separate copy, laid out one after
// the other in one buffer, with their slice headers in one array, so that
// a loop fetching the next request reads memory sequentially instead of
// paying one or two cache misses of its own per operation (as cachebench's
// streams do).
var benchData struct {
	keys, vals [][]byte
	reqs       [][]byte // the keys in a shuffled access order, copied
	reqVals    [][]byte // their values, copied in the same order
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
	reqs, reqVals := inAccessOrder(keys, order), inAccessOrder(vals, order)
	benchData.keys, benchData.vals, benchData.reqs, benchData.reqVals = keys, vals, reqs, reqVals
}

// inAccessOrder copies p[order[i]] for each i into one buffer, one after
// the other, and returns their slices in that order.
func inAccessOrder(p [][]byte, order []uint32) [][]byte {
	n := 0
	for _, b := range p {
		n += len(b)
	}
	buf := make([]byte, 0, n)
	out := make([][]byte, len(order))
	for i, k := range order {
		start := len(buf)
		buf = append(buf, p[k]...)
		out[i] = buf[start:len(buf):len(buf)]
	}
	return out
}

// benchCase is one cache configuration the benchmarks compare.
type benchCase struct {
	name   string
	huge   bool // Config.HugeIndex
	locked bool // Get takes the shard's read lock (Cache.lockedReads)
}

// benchCases are the configurations the lookup benchmarks compare: the
// cache on 4 KiB pages, the same with the read lock on every Get instead
// of the optimistic read (an A/B of the two read paths in one run), and
// with transparent huge pages on the index, to show what the page walks
// cost.
var benchCases = []benchCase{
	{"optimistic", false, false},
	{"locked", false, true},
	{"huge-pages", true, false},
}

// plain is the configuration of the benchmarks that compare none.
var plain = benchCases[0]

// benchCache returns a cache sized like cachebench's budget (twice the
// data plus 48 bytes per entry, the keys as MaxEntries), filled with
// every key when fill is set.
func benchCache(b *testing.B, fill bool, bc benchCase) *Cache {
	b.Helper()
	benchSetup(b)
	// MaxEntries as the adapter sets it: the index is sized for the keys
	// (without it a huge-page index, charged twice, would get half the
	// slots and hold fewer keys).
	c, err := New(Config{MaxBytes: benchKeys * (20 + 48) * 2, MaxEntries: benchKeys, HugeIndex: bc.huge})
	if err != nil {
		b.Fatal(err)
	}
	c.setLockedReads(bc.locked)
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

// BenchmarkGet is a random lookup over 1M present keys, one at a time.
func BenchmarkGet(b *testing.B) {
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) {
			c := benchCache(b, true, bc)
			reqs := benchData.reqs
			buf := make([]byte, 0, 64)
			var hits int
			b.ReportAllocs()
			b.ResetTimer()
			t := cputime.Start()
			for i := 0; b.Loop(); i++ {
				var ok bool
				buf, ok = c.Get(buf[:0], reqs[i&(benchKeys-1)])
				if ok {
					hits++
				}
			}
			b.StopTimer()
			t.Report(b, b.N, "op")
			if hits == 0 {
				b.Fatal("no hits")
			}
		})
	}
}

// BenchmarkGetBatch is BenchmarkGet through GetBatch, 64 keys a call;
// ns/key is comparable with BenchmarkGet's ns/op.
func BenchmarkGetBatch(b *testing.B) {
	const batch = 64
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) {
			c := benchCache(b, true, bc)
			reqs := benchData.reqs
			var hits int
			fn := func(_ int, _ []byte, ok bool) {
				if ok {
					hits++
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			pos := 0
			t := cputime.Start()
			for b.Loop() {
				if pos+batch > len(reqs) {
					pos = 0
				}
				_ = c.GetBatch(reqs[pos:pos+batch], fn)
				pos += batch
			}
			b.StopTimer()
			t.Report(b, b.N*batch, "key")
			if hits == 0 {
				b.Fatal("no hits")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/batch, "ns/key")
		})
	}
}

// BenchmarkGetMiss looks up absent keys (index probe only).
func BenchmarkGetMiss(b *testing.B) {
	c := benchCache(b, true, plain)
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
	c := benchCache(b, false, plain)
	keys, vals := benchData.reqs, benchData.reqVals
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		j := i & (benchKeys - 1)
		if err := c.Set(keys[j], vals[j]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGetParallel is BenchmarkGet from GOMAXPROCS goroutines; run it
// with -cpu 1,2 for the scaling figure.
func BenchmarkGetParallel(b *testing.B) {
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) {
			c := benchCache(b, true, bc)
			reqs := benchData.reqs
			var seed atomic.Uint32
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i := seed.Add(1) * (benchKeys / 7)
				buf := make([]byte, 0, 64)
				for pb.Next() {
					buf, _ = c.Get(buf[:0], reqs[i&(benchKeys-1)])
					i++
				}
			})
		})
	}
}

// BenchmarkSetParallel is BenchmarkSet from GOMAXPROCS goroutines.
func BenchmarkSetParallel(b *testing.B) {
	c := benchCache(b, false, plain)
	keys, vals := benchData.reqs, benchData.reqVals
	var seed atomic.Uint32
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := seed.Add(1) * 7919
		for pb.Next() {
			j := i & (benchKeys - 1)
			if err := c.Set(keys[j], vals[j]); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
}

// BenchmarkFill is cachebench's insert phase: a fresh cache (sized for the
// keys, as the adapter configures it) filled with 1M keys in access
// order, index growth included. The figure is per key.
func BenchmarkFill(b *testing.B) {
	for _, bc := range benchCases {
		if bc.locked { // reads only
			continue
		}
		b.Run(bc.name, func(b *testing.B) {
			benchSetup(b)
			b.ReportAllocs()
			var cpu int64
			for b.Loop() {
				c, err := New(Config{MaxBytes: benchKeys * (20 + 48) * 2, MaxEntries: benchKeys, CleanupInterval: -1, HugeIndex: bc.huge})
				if err != nil {
					b.Fatal(err)
				}
				t := cputime.Start()
				for i, k := range benchData.reqs {
					if err := c.Set(k, benchData.reqVals[i]); err != nil {
						b.Fatal(err)
					}
				}
				cpu += t.Stop()
				b.StopTimer()
				c.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchKeys, "ns/key")
			b.ReportMetric(float64(cpu)/float64(b.N)/benchKeys, "cpu-ns/key")
		})
	}
}

// BenchmarkGetReadPaths compares Get's two read paths on one cache in one
// loop: blocks of readPathBlock lookups alternate between the optimistic
// read and the locked one (Cache.lockedReads), and each path's thread CPU
// time is summed over its blocks, so that the load other jobs put on a
// shared machine falls on both alike. It reports cpu-ns per lookup for
// each and locked/optimistic.
func BenchmarkGetReadPaths(b *testing.B) {
	// A prime: over the passes through the keys, each key is looked up
	// by both paths (with a power of two each would keep to one path).
	const readPathBlock = 16381
	for _, bc := range benchCases[:1] {
		b.Run(bc.name, func(b *testing.B) {
			c := benchCache(b, true, bc)
			reqs := benchData.reqs
			buf := make([]byte, 0, 64)
			var spent, count [2]int64
			hits := 0
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			b.ReportAllocs()
			b.ResetTimer()
			mode, start := 0, cputime.Now()
			for i := 0; b.Loop(); i++ {
				if i%readPathBlock == 0 && i > 0 {
					now := cputime.Now()
					spent[mode] += now - start
					count[mode] += readPathBlock
					mode ^= 1
					c.setLockedReads(mode == 1)
					start = cputime.Now()
				}
				var ok bool
				buf, ok = c.Get(buf[:0], reqs[i&(benchKeys-1)])
				if ok {
					hits++
				}
			}
			b.StopTimer()
			if hits == 0 {
				b.Fatal("no hits")
			}
			if count[0] == 0 || count[1] == 0 {
				return // too few lookups for a block of each
			}
			opt, locked := float64(spent[0])/float64(count[0]), float64(spent[1])/float64(count[1])
			b.ReportMetric(opt, "cpu-ns/optimistic")
			b.ReportMetric(locked, "cpu-ns/locked")
			b.ReportMetric(locked/opt, "locked/optimistic")
		})
	}
}

// BenchmarkGetParallelReadPaths is BenchmarkGetReadPaths from GOMAXPROCS
// goroutines (run it with -cpu 2): the path switches every 20 ms of wall
// time, the same for every goroutine, so that the goroutines contend
// with one path at a time, and each goroutine sums its thread CPU time
// per path. The figures are CPU time per lookup: with the read lock,
// every Get writes the shard's lock word, whose cache line then moves
// between cores; the optimistic read writes no shared line but a
// statistics counter.
func BenchmarkGetParallelReadPaths(b *testing.B) {
	const block = 1024
	const phase = 20 * time.Millisecond
	bc := benchCases[0]
	c := benchCache(b, true, bc)
	reqs := benchData.reqs
	var mu sync.Mutex
	var spent, count [2]int64
	epoch := time.Now()
	var seed atomic.Uint32
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var mySpent, myCount [2]int64
		i := seed.Add(1) * (benchKeys / 7)
		buf := make([]byte, 0, 64)
		for more := true; more; {
			mode := int(time.Since(epoch)/phase) & 1
			start := cputime.Now()
			n := 0
			for ; n < block; n++ {
				if !pb.Next() {
					more = false
					break
				}
				k := reqs[i&(benchKeys-1)]
				if h := c.sum(k); mode == 1 {
					buf, _ = c.getLocked(c.shardFor(h), buf[:0], k, h)
				} else {
					buf, _ = c.get(buf[:0], k, h)
				}
				i++
			}
			mySpent[mode] += cputime.Now() - start
			myCount[mode] += int64(n)
		}
		mu.Lock()
		for m := range 2 {
			spent[m] += mySpent[m]
			count[m] += myCount[m]
		}
		mu.Unlock()
	})
	b.StopTimer()
	if count[0] == 0 || count[1] == 0 {
		return
	}
	opt, locked := float64(spent[0])/float64(count[0]), float64(spent[1])/float64(count[1])
	b.ReportMetric(opt, "cpu-ns/optimistic")
	b.ReportMetric(locked, "cpu-ns/locked")
	b.ReportMetric(locked/opt, "locked/optimistic")
}
