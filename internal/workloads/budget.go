package workloads

import (
	"math"

	"github.com/cachebench/cachebench/internal/engine"
)

// EntryOverhead is the per-entry allowance, in bytes, added to the mean key
// plus value size when the memory budget of byte-bounded caches is derived
// from an entry budget. It covers the entry headers of the arena caches
// (bigcache 18 B, freecache 24 B, fastcache 4 B) and their index slots.
const EntryOverhead = 48

// InsertHeadroom multiplies the memory budget of scenarios in which every
// key must fit (insert-lookup, mixed, gc-pause's fill): sharded arenas fill
// unevenly, and a cache that drops entries there would be measured on less
// work. Dropped entries still show up as misses and flag the adapter.
const InsertHeadroom = 2.0

// MemoryBudget is the one rule that turns an entry budget into the memory
// budget of byte-bounded caches, for `run` and `gc-pause` alike:
// entries × (meanEntryBytes + EntryOverhead) × headroom, rounded up to a
// MiB. meanEntryBytes is the mean key plus value size.
func MemoryBudget(entries int, meanEntryBytes, headroom float64) int64 {
	mem := float64(entries) * (meanEntryBytes + EntryOverhead) * headroom
	const mib = 1 << 20
	return int64(math.Ceil(mem/mib)) * mib
}

// Budget returns the options every adapter gets in w: the entry budget (the
// key space, or its Capacity share in get-or-set, where the cache must
// evict), the memory budget derived from it by MemoryBudget (headroom
// InsertHeadroom where every key must fit, 1 in get-or-set; not rounded
// to a MiB for a trace) and the largest value.
func (w *Workload) Budget() engine.Options {
	entries := w.budgetEntries()
	mem := MemoryBudget(entries, w.AvgEntryBytes(), w.budgetHeadroom())
	if w.Spec.Scenario == Trace {
		// A trace is compared on hit ratio at sizes of its own, often far
		// below a MiB (5% of LIRS sprite is 43 KB): rounded up to a MiB,
		// a byte-bounded cache would hold many times the entries of the
		// others. Not rounded, as in the hit-ratio lab.
		mem = int64(math.Ceil(float64(entries) * (w.AvgEntryBytes() + EntryOverhead)))
	}
	return engine.Options{
		Entries:      entries,
		MemoryBytes:  mem,
		MaxValueSize: w.MaxValueSize(),
	}
}

func (w *Workload) budgetEntries() int {
	if w.Spec.Scenario == GetOrSet || w.Spec.Scenario == Trace {
		return int(math.Ceil(float64(w.Spec.Keys) * w.Spec.Capacity))
	}
	return w.Spec.Keys
}

func (w *Workload) budgetHeadroom() float64 {
	if w.Spec.Scenario == GetOrSet || w.Spec.Scenario == Trace {
		return 1
	}
	return InsertHeadroom
}

// Estimate is what a run of s needs: data, the memory Generate fills
// (keys and values with their offsets, the orders, and the operation
// streams at an Op, a value reference and the key bytes per operation,
// the bound Spec.Validate uses), held for the whole run; budget, the
// memory budget of the adapter measuring it, one adapter at a time; and
// disk, what a file store writes for it (the entries at their mean size
// plus EntryOverhead). It reads the spec, not a generated workload, so
// that a run can be refused before generating.
func (s Spec) Estimate() (data, budget, disk int64) {
	n := int64(s.Keys)
	meanValue := int64(ShortValueSize(uint64(max(s.Keys-1, 0))))
	if s.ValueMax > 0 {
		meanValue = int64(s.ValueMin+s.ValueMax) / 2
	}
	if s.Scenario == ReadVector {
		// The text form of a vector (about 10 bytes an element up to 10^7
		// keys) is the larger of its two: the typed one is 8 an element.
		meanValue = VectorLen * 10
	}
	perEntry := int64(MaxKeySize) + meanValue
	data = n * (perEntry + 16) // keys, values and their offsets
	streamOps := 2 * n         // insert-lookup: the insert and the lookup stream
	switch s.Scenario {
	case Mixed:
		streamOps = n + int64(s.Ops)
	case GetOrSet:
		streamOps = int64(s.Ops)
	}
	data += 4*(2*n+int64(s.Ops)) + streamOps*int64(16+2*MaxKeySize)
	w := Workload{Spec: s}
	entries := w.budgetEntries()
	budget = MemoryBudget(entries, float64(perEntry), w.budgetHeadroom())
	return data, budget, n * (perEntry + EntryOverhead)
}
