package gcpause

import (
	"errors"
	"fmt"
	"math"
	"runtime/metrics"
)

// runtime/metrics names read by the child.
const (
	// MetricPauses is the distribution of GC stop-the-world pauses (from
	// deciding to stop until the world restarts). Cumulative.
	MetricPauses = "/sched/pauses/total/gc:seconds"
	// MetricGCCPU is the runtime's estimate of CPU time spent on GC work
	// (mark workers, assists, pauses × GOMAXPROCS). Cumulative, and only
	// brought up to date at the end of each GC cycle, which is why the
	// child reads it only when no cycle can be half done.
	MetricGCCPU = "/cpu/classes/gc/total:cpu-seconds"
	// MetricHeapObjects counts live objects plus unswept dead ones; right
	// after runtime.GC (which sweeps) it is the live count.
	MetricHeapObjects = "/gc/heap/objects:objects"
	// MetricHeapObjectBytes and MetricHeapUnused add up to
	// runtime.MemStats.HeapInuse: the bytes of in-use heap spans.
	MetricHeapObjectBytes = "/memory/classes/heap/objects:bytes"
	MetricHeapUnused      = "/memory/classes/heap/unused:bytes"
	// MetricGCCycles counts completed GC cycles.
	MetricGCCycles = "/gc/cycles/total:gc-cycles"
)

// Snapshot is one reading of the runtime metrics the child needs.
type Snapshot struct {
	Pauses         *metrics.Float64Histogram
	GCCPUSeconds   float64
	HeapObjects    uint64
	HeapInUseBytes uint64
	GCCycles       uint64
}

// ReadSnapshot reads the metrics. It allocates a little (the histogram
// copy), so it is never called inside a timed loop.
func ReadSnapshot() (Snapshot, error) {
	names := []string{MetricPauses, MetricGCCPU, MetricHeapObjects, MetricHeapObjectBytes, MetricHeapUnused, MetricGCCycles}
	samples := make([]metrics.Sample, len(names))
	for i, n := range names {
		samples[i].Name = n
	}
	metrics.Read(samples)
	var s Snapshot
	var errs []error
	for _, m := range samples {
		v := m.Value
		switch m.Name {
		case MetricPauses:
			if v.Kind() == metrics.KindFloat64Histogram {
				s.Pauses = v.Float64Histogram()
				continue
			}
		case MetricGCCPU:
			if v.Kind() == metrics.KindFloat64 {
				s.GCCPUSeconds = v.Float64()
				continue
			}
		default:
			if v.Kind() == metrics.KindUint64 {
				switch m.Name {
				case MetricHeapObjects:
					s.HeapObjects = v.Uint64()
				case MetricHeapObjectBytes, MetricHeapUnused:
					s.HeapInUseBytes += v.Uint64()
				case MetricGCCycles:
					s.GCCycles = v.Uint64()
				}
				continue
			}
		}
		// KindBad: this Go version does not know the metric.
		errs = append(errs, fmt.Errorf("runtime metric %s unsupported (kind %v)", m.Name, v.Kind()))
	}
	return s, errors.Join(errs...)
}

// PauseStats summarises the STW pauses between two readings of
// MetricPauses.
type PauseStats struct {
	Count uint64
	// MaxSeconds is the upper bound of the highest bucket that gained a
	// pause (its lower bound when the bucket is open-ended): the runtime
	// keeps no exact maximum. Its time buckets split each power of two
	// into four (runtime/histogram.go), so this bound is up to 25% above
	// the real longest pause.
	MaxSeconds float64
	// TotalSeconds is approximate: each pause counts as the midpoint of
	// its bucket (the finite bound of an open-ended bucket), within 12.5%
	// of its real length for the same reason.
	TotalSeconds float64
}

// PauseDelta returns the pauses recorded in after but not in before. Both
// must come from the same process (same bucket boundaries); before may be
// nil, meaning an empty histogram.
func PauseDelta(before, after *metrics.Float64Histogram) (PauseStats, error) {
	var st PauseStats
	if after == nil {
		return st, errors.New("pause histogram missing")
	}
	if len(after.Buckets) != len(after.Counts)+1 {
		return st, fmt.Errorf("malformed pause histogram: %d buckets for %d counts", len(after.Buckets), len(after.Counts))
	}
	if before != nil {
		if len(before.Counts) != len(after.Counts) || len(before.Buckets) != len(after.Buckets) {
			return st, fmt.Errorf("pause histograms differ in shape: %d and %d buckets", len(before.Counts), len(after.Counts))
		}
		for i, b := range before.Buckets {
			if b != after.Buckets[i] {
				return st, fmt.Errorf("pause histograms differ at bucket %d: %v and %v", i, b, after.Buckets[i])
			}
		}
	}
	for i, c := range after.Counts {
		if before != nil {
			if before.Counts[i] > c {
				return st, fmt.Errorf("pause bucket %d went down from %d to %d", i, before.Counts[i], c)
			}
			c -= before.Counts[i]
		}
		if c == 0 {
			continue
		}
		lo, hi := after.Buckets[i], after.Buckets[i+1]
		st.Count += c
		top := hi
		if math.IsInf(hi, 1) {
			top = lo
		}
		st.MaxSeconds = top // buckets ascend: the last non-empty one wins
		st.TotalSeconds += float64(c) * bucketMid(lo, hi)
	}
	return st, nil
}

// bucketMid is the representative value of bucket [lo, hi): its midpoint,
// or its finite bound when it is open-ended (and 0 when both are infinite).
func bucketMid(lo, hi float64) float64 {
	switch {
	case math.IsInf(lo, -1) && math.IsInf(hi, 1):
		return 0
	case math.IsInf(lo, -1):
		return math.Max(hi, 0)
	case math.IsInf(hi, 1):
		return lo
	}
	return (lo + hi) / 2
}
