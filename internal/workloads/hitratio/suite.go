package hitratio

import (
	"math"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/workloads/trace"
)

// SuiteAdapters are the rows of the real-trace suite (`hitratio --suite
// real`): every in-memory cache that evicts, LRU and ARC, and the
// reference policies.
const SuiteAdapters = "bigcache,fastcache,freecache,otter,ristretto,theine,lru,arc,s3fifo,sieve,shardcache"

// SuiteFractions are the capacities of the real-trace suite, as shares of
// a trace's objects.
var SuiteFractions = []float64{0.01, 0.02, 0.05, 0.10, 0.20}

// SmallTrace is the object count under which the suite does not use
// SuiteFractions: 1% of 3,000 objects is 30 entries, fewer than some
// adapters can be configured with.
const SmallTrace = 3000

// SuiteCapacities is the suite's rule for a trace's capacities:
// SuiteFractions of its objects, or, for a trace of fewer than SmallTrace
// objects, five entry counts spaced evenly on a log scale from the
// smallest count every adapter of adapters can be configured with at that
// trace's object size (MinEntries) to half the objects, so that every
// bounded adapter has a figure at every point.
func SuiteCapacities(adapters []string) func(trace.Summary) []Capacity {
	return func(s trace.Summary) []Capacity {
		var out []Capacity
		if s.Distinct >= SmallTrace {
			for _, f := range SuiteFractions {
				out = append(out, Capacity{Fraction: f})
			}
			return out
		}
		lo := float64(MinEntries(adapters, s))
		hi := max(float64(s.Distinct)/2, lo)
		last := 0
		for i := 0; i <= 4; i++ {
			n := int(math.Round(lo * math.Pow(hi/lo, float64(i)/4)))
			if n > last {
				out = append(out, Capacity{Entries: n})
				last = n
			}
		}
		return out
	}
}

// MinEntries is the smallest entry count at which every registered
// adapter of names (reference policies take any) can be constructed with
// the budget the lab gives that count on trace s; 1 if all take any. It
// assumes that an adapter that accepts a budget accepts every larger one,
// and searches up to 2^20 entries.
func MinEntries(names []string, s trace.Summary) int {
	need := 1
	maxVal := int(min(s.MaxSize, MaxValue))
	for _, name := range names {
		if references[name] != nil {
			continue // the lab's own policies take any size (lru among them)
		}
		f, err := engine.Lookup(name)
		if err != nil {
			continue
		}
		ok := func(n int) bool {
			b := Capacity{Entries: n}.Resolve(s)
			a, err := f.New(engine.Options{Entries: b.Entries, MemoryBytes: b.Bytes, MaxValueSize: maxVal})
			if err != nil {
				return false
			}
			a.Close()
			return true
		}
		if ok(need) {
			continue
		}
		lo, hi := need, 1<<20 // ok(lo) false
		if !ok(hi) {
			continue
		}
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if ok(mid) {
				hi = mid
			} else {
				lo = mid
			}
		}
		need = hi
	}
	return need
}
