package hitratio

import (
	"testing"

	"github.com/cachebench/cachebench/internal/workloads/trace"
)

// The sweep's memory estimate counts the replays --jobs runs at once, the
// adapters selected and the value cap.
func TestSweepNeed(t *testing.T) {
	small := trace.Summary{Requests: 20_000, Distinct: 2000, DistinctBytes: 2000 * 100, MaxSize: 100}
	huge := []Capacity{{Entries: 100_000_000}}
	// An entry-bounded cache holds at most the trace's objects: lru at
	// 1e8 entries on 2,000 objects was refused as "about 94.9 GiB".
	if got := sweepNeed("t", small, []string{"lru"}, huge, 2).Memory; got > 64<<20 {
		t.Errorf("lru at 1e8 entries on 2000 objects: estimated %d bytes", got)
	}
	// A byte-budget cache counts its whole budget.
	per := BytesPerEntry(small)
	if got := sweepNeed("t", small, []string{"freecache"}, huge, 1).Memory; float64(got) < 1e8*per {
		t.Errorf("freecache at 1e8 entries: estimated %d bytes, want at least %.0f", got, 1e8*per)
	}
	// Jobs: the jobs largest replays at once.
	caps := []Capacity{{Entries: 1_000_000}, {Entries: 2_000_000}, {Entries: 3_000_000}}
	one := sweepNeed("t", small, []string{"freecache", "fastcache"}, caps, 1).Memory
	three := sweepNeed("t", small, []string{"freecache", "fastcache"}, caps, 3).Memory
	if want := int64(3_000_000*per) + int64(3_000_000*per) + int64(2_000_000*per); three < want-1000 || three > want+1000 || one > three/2 {
		t.Errorf("jobs 1: %d, jobs 3: %d bytes; want jobs 3 about %d (3M, 3M and 2M entries)", one, three, want)
	}
	// The value cap: sizes of 4 GiB are stored as 1 MiB values, and a
	// byte-bounded cache's budget per entry counts what is stored.
	big := trace.Summary{Requests: 3, Distinct: 2, DistinctBytes: 2 * (1<<32 - 1), MaxSize: 1<<32 - 1}
	if per := BytesPerEntry(big); per > MaxValue+KeyBytes+100 {
		t.Errorf("4 GiB objects: %.0f B per entry, want at most the 1 MiB value cap and overheads", per)
	}
	// bigcache's encode buffer per shard, sized by the largest value.
	if got := cellMemory("bigcache", Capacity{Entries: 1}, big); got < 1<<30 {
		t.Errorf("bigcache with 1 MiB values: estimated %d bytes, its shards' buffers take 1 GiB", got)
	}
}
